/* overflow: NaN/Inf levels of dump records and the list of flagged records.
 *
 * Owns the level rules of probetop-rules(7), OVERFLOW LEVELS (the four scenes, then the
 * false-positive rules of msProbe's ignore_rules.yaml) and the triage order
 * of the flagged list.  It sees only the compact per-element summary the
 * dump reader fills while parsing, never JSON.  For inputs that have no
 * per-record I/O (monitor data, .trend.db) it flags non-finite cube cells
 * instead, without levels. */
#include "model/overflow/overflow.h"
#include "model/cube/cube_lazy.h"
#include "model/util/util.h"

#include "model/cube/cube.h"
#include "model/err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- false-positive rules ---- */

/* An ignore rule names the top-level elements that may legitimately hold
 * inf/nan.  msProbe's rules have two categories, input_ignore (positional
 * indices and kwarg names together) and output_ignore (indices); a
 * category the rule leaves empty is not checked. */
struct ovf_rule {
    const char *api;            /* lower-cased first two name segments */
    int in_idx;                 /* -1: none */
    const char *kw_name;        /* NULL: none */
    int out_idx;                /* -1: none */
};

static const struct ovf_rule ovf_rules[] = {
    { "torch.empty", -1, NULL, 0 },
    { "torch.empty_like", -1, NULL, 0 },
    { "torch.empty_strided", -1, NULL, 0 },
    { "distributed.recv", 0, "tensor", -1 },
    { "distributed.all_gather", 0, NULL, -1 },
    { "distributed._reduce_scatter_base", 0, NULL, -1 },
    { "distributed.all_gather_into_tensor", 0, NULL, -1 },
    { "distributed.reduce_scatter_tensor", 0, NULL, -1 },
    { "tensor.masked_fill_", 0, NULL, -1 },
    { "distributed.reduce_scatter", 0, "output", -1 },
};

/* The rule keyed on name's first two segments (case-insensitive), or NULL. */
static const struct ovf_rule *rule_for(const char *name) {
    const char *dot = strchr(name, '.');
    if (!dot) return NULL;
    const char *end = strchr(dot + 1, '.');
    size_t len = end ? (size_t)(end - name) : strlen(name);
    for (size_t i = 0; i < sizeof ovf_rules / sizeof ovf_rules[0]; i++) {
        const char *k = ovf_rules[i].api;   /* (its first letter first: this runs per flagged record) */
        if ((name[0] | 0x20) == k[0] && strlen(k) == len && strncasecmp(name, k, len) == 0) return &ovf_rules[i];
    }
    return NULL;
}

/* True when every plainly anomalous element of each category the rule
 * lists is one the rule allows, i.e. the record is a known false positive. */
static int rule_covers(const struct ovf_rule *r, const struct ovf_io *io) {
    if (r->in_idx >= 0 || r->kw_name) {
        for (size_t i = 0; i < io->nin; i++)
            if (io->in[i].plain_anomalous && (long)i != r->in_idx) return 0;
        for (size_t i = 0; i < io->nkw; i++) {
            if (!io->kw[i].plain_anomalous) continue;
            const char *kn = io->kwnames ? io->kwnames[i] : NULL;
            if (!r->kw_name || !kn || strcmp(kn, r->kw_name) != 0) return 0;
        }
    }
    if (r->out_idx >= 0)
        for (size_t i = 0; i < io->nout; i++)
            if (io->out[i].plain_anomalous && (long)i != r->out_idx) return 0;
    return 1;
}

/* ---- scenes ---- */

static int any_anomalous(const struct ovf_elem *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i].anomalous) return 1;
    return 0;
}

/* Largest Norm among top-level torch.Tensor elements with a usable Norm;
 * returns 0 when there is none. */
static int max_norm(const struct ovf_elem *v, size_t n, double *max) {
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v[i].has_norm) continue;
        if (!found || v[i].norm > *max) *max = v[i].norm;
        found = 1;
    }
    return found;
}

/* Scene 4: the output Norm is more than 100 times the input Norm. */
static int numeric_jump(const struct ovf_io *io) {
    double in_a = 0, in_b = 0, out = 0;
    int has_a = max_norm(io->in, io->nin, &in_a);
    int has_b = max_norm(io->kw, io->nkw, &in_b);
    if (!has_a && !has_b) return 0;
    if (!max_norm(io->out, io->nout, &out)) return 0;
    double in = !has_a ? in_b : !has_b ? in_a : (in_a > in_b ? in_a : in_b);
    if (in == 0) return out > 100.0;
    return out / in > 100.0;   /* inf/inf is NaN: not a jump */
}

/* msProbe's level, from the inputs and outputs alone. */
static enum ovf_level io_level(const char *name, const struct ovf_io *io) {
    int bad_in = any_anomalous(io->in, io->nin) || any_anomalous(io->kw, io->nkw);
    int bad_out = any_anomalous(io->out, io->nout);
    enum ovf_level l;
    if (!bad_in && bad_out) l = OVF_CRITICAL;
    else if (bad_in && bad_out) l = OVF_HIGH;
    else if (bad_in) l = OVF_MEDIUM;
    else if (numeric_jump(io)) l = OVF_HIGH;
    else return OVF_NONE;
    const struct ovf_rule *r = name ? rule_for(name) : NULL;
    if (r && rule_covers(r, io)) return OVF_NONE;
    return l;
}

enum ovf_level ovf_classify(const char *name, const struct ovf_io *io) {
    enum ovf_level l = io_level(name, io);
    /* a NaN/Inf weight points to the optimizer step, not to the operator:
     * reported even where msProbe's rules see nothing (or only the
     * heuristic), as born here (the inputs and outputs looked at again
     * only then: the dump reader classifies every record) */
    if (any_anomalous(io->par, io->npar)) {
        int nan_io = any_anomalous(io->in, io->nin) || any_anomalous(io->kw, io->nkw) || any_anomalous(io->out, io->nout);
        if (l == OVF_NONE || !nan_io) return OVF_CRITICAL;
    }
    return l;
}

int ovf_heuristic(const struct ovf_io *io) {
    if (any_anomalous(io->in, io->nin) || any_anomalous(io->kw, io->nkw) || any_anomalous(io->out, io->nout) ||
        any_anomalous(io->par, io->npar))
        return 0;
    return numeric_jump(io);
}

static const char *nonfinite_text(double v) {
    return isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

/* (no printf here and in describe_list: they run once per flagged tensor) */
void ovf_what(char *what, size_t size, const char *stat, double v) {
    size_t len = 0;
    const char *t = nonfinite_text(v);
    size_t sl = strlen(stat), tl = strlen(t);
    if (sl + 1 + tl < size) {   /* (the statistics' names always fit: no cut to mind) */
        memcpy(what, stat, sl);
        what[sl] = '=';
        memcpy(what + sl + 1, t, tl + 1);
        return;
    }
    what[0] = '\0';
    util_put_text(what, size, &len, stat, sl);
    util_put_text(what, size, &len, "=", 1);
    util_put_text(what, size, &len, t, tl);
}

void ovf_elem_stat(struct ovf_elem *e, const char *stat, double v, int nested) {
    if (isfinite(v)) return;
    e->anomalous = 1;
    if (!nested) e->plain_anomalous = 1;
    if (e->what[0] == '\0') ovf_what(e->what, sizeof e->what, stat, v);
}

/* ---- description ---- */

struct sbuf {
    char *buf;
    size_t size, len;
    int full;
};

/* Appends s; once something does not fit, the text ends in "..." and
 * nothing more is added (never cutting a UTF-8 character in half). */
static void sb_add(struct sbuf *b, const char *s, size_t n) {
    if (b->full) return;
    if (b->len + n + 1 <= b->size) {
        memcpy(b->buf + b->len, s, n + 1);
        b->len += n;
        return;
    }
    b->full = 1;
    if (b->size < 4) { b->buf[0] = '\0'; return; }
    /* The text is buf[0..len) followed by s; keep a prefix of it. */
    size_t keep = b->size - 4;
    if (keep > b->len + n) keep = b->len + n;
#define SB_AT(i) ((unsigned char)((i) < b->len ? b->buf[(i)] : s[(i) - b->len]))
    while (keep > 0 && (SB_AT(keep) & 0xc0) == 0x80) keep--;
#undef SB_AT
    if (keep > b->len) memcpy(b->buf + b->len, s, keep - b->len);
    memcpy(b->buf + keep, "...", 4);
    b->len = keep + 3;
}

static void describe_list(struct sbuf *b, const char *prefix, const struct ovf_elem *v, size_t n,
                          const char *const *names) {
    /* "in.0 Max=inf": the name cut at 64 bytes and the statistic at 32
     * (as "%.64s" would), so the item always fits */
    char item[160];   /* 2 + 6 + 1 + 64 + 1 + 32 at most */
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < n; i++) {
        if (!v[i].anomalous) continue;
        size_t len = 0;
        if (b->len) item[len++] = ',', item[len++] = ' ';
        memcpy(item + len, prefix, pl);
        len += pl;
        item[len++] = '.';
        if (names && names[i]) {
            size_t k = strnlen(names[i], 64);
            memcpy(item + len, names[i], k);
            len += k;
        } else {
            len = util_put_uint(item, len, i);
        }
        if (v[i].what[0]) {
            size_t k = strnlen(v[i].what, 32);
            item[len++] = ' ';
            memcpy(item + len, v[i].what, k);
            len += k;
        }
        item[len] = '\0';
        sb_add(b, item, len);
    }
}

void ovf_describe(const struct ovf_io *io, char *buf, size_t size) {
    if (!buf || size == 0) return;
    struct sbuf b = { buf, size, 0, 0 };
    buf[0] = '\0';
    describe_list(&b, "in", io->in, io->nin, NULL);
    describe_list(&b, "kw", io->kw, io->nkw, io->kwnames);
    describe_list(&b, "out", io->out, io->nout, NULL);
    describe_list(&b, "weight", io->par, io->npar, io->parnames);
    if (b.len == 0 && numeric_jump(io)) {
        double in_a = 0, in_b = 0, out = 0;
        int has_a = max_norm(io->in, io->nin, &in_a);
        int has_b = max_norm(io->kw, io->nkw, &in_b);
        double in = !has_a ? in_b : !has_b ? in_a : (in_a > in_b ? in_a : in_b);
        max_norm(io->out, io->nout, &out);
        char item[96];
        snprintf(item, sizeof item, "Norm jump %.3g -> %.3g", in, out);
        sb_add(&b, item, strlen(item));
    }
}

const char *ovf_level_name(enum ovf_level l) {
    switch (l) {
    case OVF_CRITICAL: return "critical";
    case OVF_HIGH: return "high";
    case OVF_MEDIUM: return "medium";
    default: return "";
    }
}

/* ---- the flagged list ---- */

struct ovf_strs {
    struct ovf_strs *next;   /* the blocks before it */
    size_t used, cap;
    char b[];
};

/* Room for n bytes of strings in l's newest block (a new one, twice the
 * last up to 1 MB, when it is full); NULL out of memory. */
static char *strs_room(struct ovf_list *l, size_t n) {
    struct ovf_strs *s = l->strs;
    if (!s || s->cap - s->used < n) {
        size_t cap = s ? (s->cap < (1u << 20) ? 2 * s->cap : s->cap) : 512;
        if (cap < n) cap = n;
        struct ovf_strs *b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        *b = (struct ovf_strs){.next = s, .cap = cap};
        l->strs = s = b;
    }
    char *p = s->b + s->used;
    s->used += n;
    return p;
}

int ovf_list_add(struct ovf_list *l, const struct ovf_entry *e) {
    const char *name = e->name ? e->name : "", *what = e->what ? e->what : "";
    size_t nl = strlen(name) + 1, wl = strlen(what) + 1;
    if (UTIL_PUSH(l->v, l->n, l->cap) != 0) return -1;
    char *p = strs_room(l, nl + wl);
    if (!p) return -1;
    struct ovf_entry c = *e;
    c.name = memcpy(p, name, nl);
    c.what = memcpy(p + nl, what, wl);
    l->v[l->n++] = c;
    return 0;
}

int ovf_list_take(struct ovf_list *dst, struct ovf_list *src) {
    if (!src->n) return 0;
    if (util_grow((void **)&dst->v, &dst->cap, dst->n + src->n, sizeof *dst->v) != 0) return -1;
    memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
    dst->n += src->n;
    src->n = 0;
    /* its strings are dst's now: src's blocks go under dst's newest */
    struct ovf_strs *tail = src->strs;
    while (tail && tail->next) tail = tail->next;
    if (tail) {
        tail->next = dst->strs ? dst->strs->next : NULL;
        if (dst->strs) dst->strs->next = src->strs;
        else dst->strs = src->strs;
    }
    src->strs = NULL;
    return 0;
}

void ovf_list_free(struct ovf_list *l) {
    for (struct ovf_strs *s = l->strs, *next; s; s = next) {
        next = s->next;
        free(s);
    }
    free(l->v);
    l->v = NULL;
    l->strs = NULL;
    l->n = l->cap = 0;
}

long ovf_first(const struct ovf_list *l) {
    long first[OVF_CRITICAL + 1] = { -1, -1, -1, -1 };
    for (size_t i = 0; i < l->n; i++) {
        unsigned lv = l->v[i].level;
        if (lv > OVF_CRITICAL || lv == OVF_NONE || l->v[i].jump) continue;
        if (first[lv] < 0) first[lv] = (long)i;
        if (lv == OVF_CRITICAL) break;
    }
    for (int lv = OVF_CRITICAL; lv >= OVF_MEDIUM; lv--)
        if (first[lv] >= 0) return first[lv];
    /* Entries without levels (monitor, .trend.db): the earliest one. */
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].level == OVF_NONE) return (long)i;
    return -1;
}

enum ovf_level ovf_gate_level(const struct ovf_entry *e) {
    return e->jump ? (enum ovf_level)e->level : OVF_CRITICAL;
}

/* ---- inputs without levels ---- */

struct scan_ctx {
    const struct cube *c;
    struct ovf_list *out;
    int32_t *step_of;    /* the step index of each entry (NULL: not noted) */
    size_t cap_step;
    int oom;
};

static int scan_cell(void *ctx, int m, uint32_t lt, int si, int ri, const float *vals) {
    struct scan_ctx *k = ctx;
    const struct cube *c = k->c;
    const struct cube_metric *cm = &c->metrics[m];
    char name[1024], what[160];
    size_t len = 0;
    what[0] = '\0';
    /* "actv norm=nan, max=inf": as many cells as there are, so no printf */
    for (int st = 0; st < cm->nstats; st++) {
        float v = vals[st];
        if (cube_is_missing(v) || isfinite(v)) continue;
        if (len) util_put_text(what, sizeof what, &len, ", ", 2);
        else {
            util_put_text(what, sizeof what, &len, cm->name, strnlen(cm->name, 40));
            util_put_text(what, sizeof what, &len, " ", 1);
        }
        util_put_text(what, sizeof what, &len, cm->stats[st], strnlen(cm->stats[st], 32));
        util_put_text(what, sizeof what, &len, "=", 1);
        const char *t = nonfinite_text(v);
        util_put_text(what, sizeof what, &len, t, strlen(t));
    }
    if (!len) return 0;
    uint32_t t = cm->targets[lt];
    struct ovf_entry e = {
        .step = c->steps[si].origin,
        .micro = c->steps[si].micro,
        .rank = c->ranks[ri],
        /* forward before backward before the rest, as a
         * step runs; by target (first-seen) inside a metric */
        .pos = (uint32_t)((uint64_t)m * names_count(c->names) + t),
        .level = OVF_NONE,
        .name = names_display(c->names, t, name, sizeof name),
        .what = what,
    };
    if (ovf_list_add(k->out, &e) != 0) { k->oom = 1; return 1; }
    if (k->step_of) {
        if (UTIL_PUSH(k->step_of, k->out->n - 1, k->cap_step) != 0) { k->oom = 1; return 1; }
        k->step_of[k->out->n - 1] = si;
    }
    return 0;
}

/* The steps of c run in (step, micro step) order, every micro step known
 * or none: the triage order of a dense cube's cells is then the step's,
 * then the walk's (metric, target ascending, rank). */
static int steps_in_order(const struct cube *c) {
    for (int i = 1; i < c->nsteps; i++) {
        const struct cube_step *a = &c->steps[i - 1], *b = &c->steps[i];
        if ((a->micro < 0) != (b->micro < 0)) return 0;
        if (a->origin > b->origin || (a->origin == b->origin && a->micro >= b->micro)) return 0;
    }
    return 1;
}

/* Every non-finite cell: a walk of a dense cube, a query of a lazy one. */
int ovf_scan_cube(const struct cube *c, struct ovf_list *out, struct pt_error *err) {
    /* a dense cube is walked metric, target, step, rank: a stable counting
     * sort by step puts its cells in triage order (millions of them in a
     * monitor tree, where a comparison sort was most of the scan) */
    int by_step = !cube_is_lazy(c) && steps_in_order(c);
    struct scan_ctx k = {c, out, NULL, 0, 0};
    if (by_step && !(k.step_of = malloc(sizeof *k.step_of))) by_step = 0;
    if (by_step) k.cap_step = 1;
    int rc = cube_each_nonfinite(c, -1, -1, -1, scan_cell, &k, err);
    if (rc == 0 && k.oom) rc = pt_errorf(err, "overflow scan: out of memory");
    if (rc == 0 && by_step && out->n > 1) {
        size_t *at = calloc((size_t)c->nsteps + 1, sizeof *at);
        struct ovf_entry *v = malloc(out->n * sizeof *v);
        if (at && v) {
            for (size_t i = 0; i < out->n; i++) at[k.step_of[i] + 1]++;
            for (int s = 0; s < c->nsteps; s++) at[s + 1] += at[s];
            for (size_t i = 0; i < out->n; i++) v[at[k.step_of[i]]++] = out->v[i];
            free(out->v);
            out->v = v;
            out->cap = out->n;
            v = NULL;
        } else {
            by_step = 0;   /* no memory for it: the comparison sort */
        }
        free(at);
        free(v);
    }
    free(k.step_of);
    if (rc != 0) return -1;
    if (!by_step && ovf_list_sort(out) != 0) return pt_errorf(err, "overflow scan: out of memory");
    return 0;
}
