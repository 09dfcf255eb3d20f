/* names: target interning (one arena, open-addressing hash) and the label
 * rules of probetop-rules(7), LABELS. */
#include "model/cube/names.h"

#include "model/util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct names {
    char *arena;
    size_t alen, acap;
    struct target *t;
    uint32_t n, cap;
    uint32_t *hash;          /* id + 1, 0 = empty */
    uint32_t hcap;           /* power of two */
    /* labels */
    struct label *labels;
    uint32_t nlabels, lcap;
    uint32_t *lhash;         /* label id + 1 */
    uint32_t lhcap;
    uint32_t *tl_off;        /* n + 1 offsets into tl_ids */
    uint32_t *tl_ids;
};

static uint64_t target_hash(const char *name, size_t len, int32_t vpp, int32_t call) {
    return util_hash_fast(name, len, ((uint64_t)(uint32_t)vpp << 32) ^ (uint32_t)call * 0x9e3779b97f4a7c15ull);
}

struct names *names_new(void) {
    struct names *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->hcap = 1024;
    n->hash = calloc(n->hcap, sizeof *n->hash);
    n->acap = 1 << 16;
    n->arena = malloc(n->acap);
    if (!n->hash || !n->arena) { names_free(n); return NULL; }
    n->arena[0] = '\0';
    n->alen = 1;   /* offset 0 is the empty string */
    return n;
}

static void labels_clear(struct names *n) {
    for (uint32_t i = 0; i < n->nlabels; i++) free(n->labels[i].targets);
    free(n->labels);
    free(n->lhash);
    free(n->tl_off);
    free(n->tl_ids);
    n->labels = NULL;
    n->lhash = n->tl_off = n->tl_ids = NULL;
    n->nlabels = n->lcap = n->lhcap = 0;
}

void names_free(struct names *n) {
    if (!n) return;
    labels_clear(n);
    free(n->arena);
    free(n->t);
    free(n->hash);
    free(n);
}

/* Copies len bytes plus a NUL into the arena; returns the offset or UINT32_MAX. */
static uint32_t arena_put(struct names *n, const char *s, size_t len) {
    uint32_t off;
    return util_strpool_put(&n->arena, &n->alen, &n->acap, s, len, &off) == 0 ? off : UINT32_MAX;
}

static int target_eq(const struct names *n, uint32_t id, const char *name, size_t len, int32_t vpp, int32_t call) {
    const struct target *t = &n->t[id];
    return t->len == len && t->vpp == vpp && t->call == call && memcmp(n->arena + t->name, name, len) == 0;
}

/* The id of the triple whose hash is h, or NAMES_NONE with *slot the
 * empty slot where the probe stopped. */
static uint32_t find_h(const struct names *n, uint64_t h, const char *name, size_t len, int32_t vpp, int32_t call,
                       uint32_t *slot) {
    uint32_t mask = n->hcap - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        uint32_t v = n->hash[i];
        if (!v) {
            *slot = i;
            return NAMES_NONE;
        }
        if (target_eq(n, v - 1, name, len, vpp, call)) return v - 1;
    }
}

uint32_t names_find(const struct names *n, const char *name, size_t len, int32_t vpp, int32_t call) {
    uint32_t slot;
    return find_h(n, target_hash(name, len, vpp, call), name, len, vpp, call, &slot);
}

static int rehash(struct names *n) {
    uint32_t cap = n->hcap * 2;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) return -1;
    for (uint32_t id = 0; id < n->n; id++) {
        const struct target *t = &n->t[id];
        uint32_t i = (uint32_t)target_hash(n->arena + t->name, t->len, t->vpp, t->call) & (cap - 1);
        while (h[i]) i = (i + 1) & (cap - 1);
        h[i] = id + 1;
    }
    free(n->hash);
    n->hash = h;
    n->hcap = cap;
    return 0;
}

uint32_t names_intern(struct names *n, const char *name, size_t len, int32_t vpp, int32_t call) {
    uint64_t h = target_hash(name, len, vpp, call);   /* once, for the lookup and the insert */
    uint32_t slot, id = find_h(n, h, name, len, vpp, call, &slot);
    if (id != NAMES_NONE) return id;
    if (n->n >= UINT32_MAX - 1) return NAMES_NONE;
    if ((uint64_t)(n->n + 1) * 2 > n->hcap) {
        if (rehash(n) != 0) return NAMES_NONE;
        uint32_t mask = n->hcap - 1;
        for (slot = (uint32_t)h & mask; n->hash[slot]; slot = (slot + 1) & mask) {}
    }
    if (n->n == n->cap) {
        uint32_t cap = n->cap ? n->cap * 2 : 256;
        struct target *t = realloc(n->t, (size_t)cap * sizeof *t);
        if (!t) return NAMES_NONE;
        n->t = t;
        n->cap = cap;
    }
    uint32_t off = arena_put(n, name, len);
    if (off == UINT32_MAX) return NAMES_NONE;
    id = n->n++;
    n->t[id] = (struct target){.name = off, .len = (uint32_t)len, .vpp = vpp, .call = call};
    n->hash[slot] = id + 1;
    return id;
}

uint32_t names_count(const struct names *n) { return n->n; }
const struct target *names_target(const struct names *n, uint32_t id) { return &n->t[id]; }
const char *names_str(const struct names *n, uint32_t id) { return n->arena + n->t[id].name; }
const char *names_arena(const struct names *n, uint32_t off) { return n->arena + off; }

char *names_display(const struct names *n, uint32_t id, char *buf, size_t size) {
    const struct target *t = &n->t[id];
    int k = snprintf(buf, size, "%s", n->arena + t->name);
    if (k >= 0 && (size_t)k < size && t->call != 0) k += snprintf(buf + k, size - (size_t)k, "#%d", t->call);
    if (k >= 0 && (size_t)k < size && t->vpp != 0) snprintf(buf + k, size - (size_t)k, "@%d", t->vpp);
    return buf;
}

/* ---- label rules ---- */

static const char *const cat_names[LABEL_NCAT] = {"default", "function", "index", "layer", "module"};
const char *label_cat_name(int cat) { return cat >= 0 && cat < LABEL_NCAT ? cat_names[cat] : "?"; }

struct part { const char *s; size_t len; };

static int is_numeric(const struct part *p) {
    if (p->len == 0) return 0;
    for (size_t i = 0; i < p->len; i++)
        if (p->s[i] < '0' || p->s[i] > '9') return 0;
    return 1;
}

/* Joins parts [a, b] (inclusive) with '.' into buf; returns the length. */
static size_t join(const struct part *parts, long a, long b, char *buf, size_t size) {
    size_t o = 0;
    for (long i = a; i <= b; i++) {
        if (i > a && o + 1 < size) buf[o++] = '.';
        size_t l = parts[i].len;
        if (o + l >= size) l = size - o - 1;
        memcpy(buf + o, parts[i].s, l);
        o += l;
    }
    buf[o] = '\0';
    return o;
}

#define MAX_PARTS 256
#define LABEL_BUF 4096

static void derive_monitor(const struct part *pt, size_t np, label_emit_fn emit, void *ctx) {
    char buf[LABEL_BUF];
    for (size_t i = 0; i < np; i++) {
        if (!is_numeric(&pt[i])) emit(ctx, LABEL_MODULE, pt[i].s, pt[i].len);
        else if (i > 0 && !is_numeric(&pt[i - 1])) {
            size_t l = join(pt, (long)i - 1, (long)i, buf, sizeof buf);
            emit(ctx, LABEL_LAYER, buf, l);
        }
    }
}

static void derive_dump(const struct part *pt, size_t np, label_emit_fn emit, void *ctx) {
    char buf[LABEL_BUF];
    struct part f[MAX_PARTS];
    size_t nf = 0;
    int is_module = 0, ndefault = 0;
    const char *defaults[MAX_PARTS];
    size_t deflen[MAX_PARTS];
    if (np < 3) return;
    for (size_t i = 0; i + 2 < np; i++) {
        if ((pt[i].len == 6 && !memcmp(pt[i].s, "Module", 6)) || (pt[i].len == 4 && !memcmp(pt[i].s, "Cell", 4))) {
            is_module = 1;
            defaults[ndefault] = pt[i].s;
            deflen[ndefault++] = pt[i].len;
        } else {
            f[nf++] = pt[i];
        }
    }
    if (nf == 0) return;
    size_t l = join(pt, (long)np - 2, (long)np - 1, buf, sizeof buf);
    emit(ctx, LABEL_INDEX, buf, l);
    for (int i = 0; i < ndefault; i++) emit(ctx, LABEL_DEFAULT, defaults[i], deflen[i]);
    if (!is_module) {
        l = join(f, 0, (long)nf - 1, buf, sizeof buf);
        emit(ctx, LABEL_FUNCTION, buf, l);
        return;
    }
    /* P holds consumed positions; only its last element and membership of
     * i-1 matter, and i-1 is in P iff it was the last appended. */
    long last = -1;
    for (long i = 0; i < (long)nf; i++) {
        if (!is_numeric(&f[i])) continue;
        if (i == 0 || i - 1 == last) { last = i; continue; }
        l = join(f, i - 1, i, buf, sizeof buf);
        emit(ctx, LABEL_LAYER, buf, l);
        if (i - 2 >= last + 1) {
            l = join(f, last + 1, i - 2, buf, sizeof buf);
            emit(ctx, LABEL_MODULE, buf, l);
        }
        last = i;
    }
    if (last != (long)nf - 1) {
        l = join(f, last + 1, (long)nf - 1, buf, sizeof buf);
        if (l) emit(ctx, LABEL_MODULE, buf, l);
    }
}

void labels_derive(const char *name, size_t len, enum label_rules rules, label_emit_fn emit, void *ctx) {
    struct part pt[MAX_PARTS];
    size_t np = 0;
    const char *p = name, *end = name + len;
    for (;;) {
        const char *dot = memchr(p, '.', (size_t)(end - p));
        if (np == MAX_PARTS) return;   /* absurd names get no labels rather than wrong ones */
        pt[np].s = p;
        pt[np].len = dot ? (size_t)(dot - p) : (size_t)(end - p);
        np++;
        if (!dot) break;
        p = dot + 1;
    }
    if (rules == LABELS_MONITOR) derive_monitor(pt, np, emit, ctx);
    else derive_dump(pt, np, emit, ctx);
}

/* ---- the label table ---- */

struct build_ctx {
    struct names *n;
    uint32_t *ids;     /* labels of the current target */
    uint32_t nids, cap;
    int failed;
};

static uint32_t label_find_exact(const struct names *n, const char *text, size_t len, int cat) {
    if (!n->lhcap) return NAMES_NONE;
    uint32_t mask = n->lhcap - 1;
    for (uint32_t i = (uint32_t)util_hash_fast(text, len, (uint64_t)cat) & mask;; i = (i + 1) & mask) {
        uint32_t v = n->lhash[i];
        if (!v) return NAMES_NONE;
        const struct label *l = &n->labels[v - 1];
        const char *s = n->arena + l->text;
        if (l->cat == cat && strlen(s) == len && memcmp(s, text, len) == 0) return v - 1;
    }
}

static int label_rehash(struct names *n) {
    uint32_t cap = n->lhcap ? n->lhcap * 2 : 256;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) return -1;
    for (uint32_t id = 0; id < n->nlabels; id++) {
        const char *s = n->arena + n->labels[id].text;
        uint32_t i = (uint32_t)util_hash_fast(s, strlen(s), n->labels[id].cat) & (cap - 1);
        while (h[i]) i = (i + 1) & (cap - 1);
        h[i] = id + 1;
    }
    free(n->lhash);
    n->lhash = h;
    n->lhcap = cap;
    return 0;
}

static void build_emit(void *vctx, int cat, const char *text, size_t len) {
    struct build_ctx *c = vctx;
    struct names *n = c->n;
    if (c->failed) return;
    uint32_t id = label_find_exact(n, text, len, cat);
    if (id == NAMES_NONE) {
        if ((uint64_t)(n->nlabels + 1) * 2 > n->lhcap && label_rehash(n) != 0) { c->failed = 1; return; }
        if (n->nlabels == n->lcap) {
            uint32_t cap = n->lcap ? n->lcap * 2 : 64;
            struct label *l = realloc(n->labels, (size_t)cap * sizeof *l);
            if (!l) { c->failed = 1; return; }
            n->labels = l;
            n->lcap = cap;
        }
        uint32_t off = arena_put(n, text, len);
        if (off == UINT32_MAX) { c->failed = 1; return; }
        id = n->nlabels++;
        n->labels[id] = (struct label){.text = off, .cat = (uint8_t)cat};
        uint32_t mask = n->lhcap - 1, i = (uint32_t)util_hash_fast(text, len, (uint64_t)cat) & mask;
        while (n->lhash[i]) i = (i + 1) & mask;
        n->lhash[i] = id + 1;
    }
    for (uint32_t i = 0; i < c->nids; i++)
        if (c->ids[i] == id) return;
    if (c->nids == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 16;
        uint32_t *ids = realloc(c->ids, cap * sizeof *ids);
        if (!ids) { c->failed = 1; return; }
        c->ids = ids;
        c->cap = cap;
    }
    c->ids[c->nids++] = id;
}

int names_build_labels(struct names *n, enum label_rules rules) {
    struct build_ctx c = {.n = n};
    uint32_t *ids = NULL;
    size_t nids = 0, cap = 0;
    labels_clear(n);
    n->tl_off = malloc(((size_t)n->n + 1) * sizeof *n->tl_off);
    if (!n->tl_off) return -1;
    for (uint32_t t = 0; t < n->n; t++) {
        c.nids = 0;
        labels_derive(n->arena + n->t[t].name, n->t[t].len, rules, build_emit, &c);
        if (c.failed) break;
        n->tl_off[t] = (uint32_t)nids;
        if (nids + c.nids > cap) {
            size_t nc = cap ? cap * 2 : 1024;
            while (nc < nids + c.nids) nc *= 2;
            uint32_t *x = realloc(ids, nc * sizeof *x);
            if (!x) { c.failed = 1; break; }
            ids = x;
            cap = nc;
        }
        if (c.nids) memcpy(ids + nids, c.ids, c.nids * sizeof *ids);   /* ids is NULL until the first label */
        nids += c.nids;
    }
    free(c.ids);
    if (c.failed) { free(ids); labels_clear(n); return -1; }
    n->tl_off[n->n] = (uint32_t)nids;
    n->tl_ids = ids;
    /* label -> targets, ascending because targets are visited in order */
    for (size_t i = 0; i < nids; i++) n->labels[ids[i]].ntargets++;
    for (uint32_t l = 0; l < n->nlabels; l++) {
        n->labels[l].targets = malloc((n->labels[l].ntargets ? n->labels[l].ntargets : 1) * sizeof(uint32_t));
        if (!n->labels[l].targets) { labels_clear(n); return -1; }
        n->labels[l].ntargets = 0;
    }
    for (uint32_t t = 0; t < n->n; t++)
        for (uint32_t i = n->tl_off[t]; i < n->tl_off[t + 1]; i++) {
            struct label *l = &n->labels[ids[i]];
            l->targets[l->ntargets++] = t;
        }
    return 0;
}

uint32_t names_label_count(const struct names *n) { return n->nlabels; }
const struct label *names_label(const struct names *n, uint32_t id) { return &n->labels[id]; }
const char *names_label_text(const struct names *n, uint32_t id) { return n->arena + n->labels[id].text; }

void names_target_labels(const struct names *n, uint32_t target, const uint32_t **ids, uint32_t *count) {
    if (!n->tl_off || target >= n->n) { *ids = NULL; *count = 0; return; }
    *ids = n->tl_ids ? n->tl_ids + n->tl_off[target] : NULL;   /* NULL when no target has a label */
    *count = n->tl_off[target + 1] - n->tl_off[target];
}

uint32_t names_label_find(const struct names *n, const char *text, int cat) {
    size_t len = strlen(text);
    if (cat >= 0) return label_find_exact(n, text, len, cat);
    for (int c = 0; c < LABEL_NCAT; c++) {
        uint32_t id = label_find_exact(n, text, len, c);
        if (id != NAMES_NONE) return id;
    }
    return NAMES_NONE;
}
