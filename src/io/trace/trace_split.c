/* trace_split: a big trace file's second half on a second thread, merged
 * into the first's as one pass would have made it (see trace_split.h). */
#include "src/io/trace/trace_split.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json_scan.h"
#include "src/io/trace/trace_parse_ctx.h"

#define SPLIT_GUESS_LIMIT ((size_t)1 << 20)   /* bytes looked at for a boundary past the middle */
#define SPLIT_MAX_KEYS 255                    /* process group keys of a second half (a byte each) */

struct tp_pkeys {
    struct pkey { char *name, *desc, *ranks; } k[SPLIT_MAX_KEYS];
    int n, last, full;
};

struct trace_split {
    pthread_t th;
    int running;
    struct ctx *c2;
    struct trace_parse_file f2;
    struct trace_parse_names n2;
    struct trace_spill_budget own;   /* the second half's: the first's spills stay as one pass makes them */
    struct pt_error err2;
    int rc2;
};

long long trace_split_guess(const char *text, size_t n, size_t from, size_t limit) {
    size_t stop = n - from > limit ? from + limit : n;
    for (const char *p = text + from, *end = text + stop; (p = memchr(p, '}', (size_t)(end - p))); p++) {
        const char *q = json_scan_ws(p + 1, text + n);
        if (q >= text + n || *q != ',') continue;
        q = json_scan_ws(q + 1, text + n);
        if (q < text + n && *q == '{') return (long long)(q - text);
    }
    return -1;
}

static void *half2(void *arg) {
    struct trace_split *sp = arg;
    struct ctx *c = sp->c2;
    sp->rc2 = tp_refill(c) || tp_parse_events(c) ? -1 : 0;
    if (!sp->rc2 && c->lx.depth == 1) sp->rc2 = tp_top_rest(c);   /* the object's members after the list */
    else if (!sp->rc2) {
        enum json_tok t;
        while ((t = json_lex_next(&c->lx)) == JT_MORE)
            if (tp_refill(c)) break;
        sp->rc2 = t == JT_END ? 0 : -1;
    }
    return NULL;
}

static void pkeys_free(struct tp_pkeys *t);

static void split_free(struct trace_split *sp) {
    if (!sp) return;
    if (sp->c2) {
        trace_src_close(&sp->c2->src);
        pkeys_free(sp->c2->pkeys);
        tp_ctx_free(sp->c2);
    }
    trace_parse_file_free(&sp->f2);
    trace_parse_names_free(&sp->n2);
    free(sp);
}

static void split_start(struct ctx *c) {
    struct trace_parse_file *f = c->f;
    if (!f->split_min || !c->src.map || c->src.gz || c->src.size < f->split_min || c->src.size < 2) return;
    const char *m = c->src.map;
    size_t n = (size_t)c->src.size;
    const char *p = json_scan_ws(m, m + n);
    if (p >= m + n || (*p != '{' && *p != '[')) return;
    long long at = trace_split_guess(m, n, n / 2, SPLIT_GUESS_LIMIT);
    if (at <= 0) return;
    struct trace_split *sp = calloc(1, sizeof *sp);
    if (!sp) return;
    if (f->budget) {   /* (half the load's: the two together hold at most 1.5 times it) */
        sp->own.cap = f->budget->cap / 2;
        sp->f2.budget = &sp->own;
    }
    sp->f2.patterns = c->pat;
    struct ctx *c2 = sp->c2 = tp_ctx_new(c->path, &sp->n2, c->max, c->cancel, &sp->f2, &sp->err2);
    if (!c2 || trace_src_open(&c2->src, c->path, &sp->err2) || !c2->src.map || c2->src.size != c->src.size) {
        split_free(sp);
        return;
    }
    static const uint8_t obj[2] = {1, 2}, arr[1] = {2};
    c2->half2 = 1;
    c2->hooks = c->hooks;
    json_lex_init(&c2->lx, c2->src.map, 0, c->path, &sp->err2);
    c2->lx.pos = c2->lx.end = c2->src.map + at;
    c2->lx.more = 1;
    c2->lx.streaming = 1;
    if (*p == '{' ? json_lex_enter(&c2->lx, obj, 2) : json_lex_enter(&c2->lx, arr, 1)) { split_free(sp); return; }
    if (pthread_create(&sp->th, NULL, half2, sp)) { split_free(sp); return; }
    sp->running = 1;
    c->split = sp;
    c->split_off = (uint64_t)at;
}

static void join(struct trace_split *sp) {
    if (sp->running) pthread_join(sp->th, NULL);
    sp->running = 0;
}

static void split_end(struct ctx *c) {
    if (!c->split) return;
    join(c->split);
    split_free(c->split);
    c->split = NULL;
    c->split_off = UINT64_MAX;
}

/* The stream's records in push order, all in memory (none spilled); NULL
 * when it spilled. */
static const char *in_memory(struct trace_spill *s, size_t *n) {
    const struct trace_spill_head *h = (const struct trace_spill_head *)(const void *)s;
    *n = h->n;
    return h->count == h->n ? h->buf : NULL;
}

/* s (rec bytes a record; NULL: none yet) would stay in memory, and the
 * budget's count of it grow to hold its records and m more: *held moved
 * by the difference.  0 when it spilled already. */
static int fits(const struct trace_spill *s, size_t rec, uint64_t m, uint64_t *held) {
    const struct trace_spill_head *h = (const struct trace_spill_head *)(const void *)s;
    if (s && h->count != h->n) return 0;
    uint64_t now = s ? h->vcap : 0, n = s ? h->count : 0;
    *held += (trace_spill_vcap_for(n + m) - now) * rec;
    return 1;
}

/* One pass would have made what the two halves did (see trace_split.h):
 * within the budget, the first half's streams took no spill, and the
 * merge makes none (their records then are what one pass holds, which
 * spilled nothing either: the budget's count only grows). */
static int mergeable(const struct ctx *c, const struct trace_split *sp) {
    const struct ctx *c2 = sp->c2;
    const struct trace_parse_file *f = c->f, *g = &sp->f2;
    size_t n;
    if (!c->src.map || !c2->src.map) return 0;   /* a lease broke: the file may have changed under it */
    if (sp->rc2 || c->nhw || c2->nhw || c2->saw_dist || g->npgs || g->pg_warn || f->nlumped || g->nlumped) return 0;
    if (c2->pkeys && c2->pkeys->full) return 0;
    if ((g->kernels && !in_memory(g->kernels, &n)) || (g->launches && !in_memory(g->launches, &n))) return 0;
    if (!f->budget) return 1;
    uint64_t held = atomic_load(&f->budget->held);
    if (!fits(f->kernels, sizeof(struct trace_parse_kernel), g->nkernels, &held) ||
        !fits(f->launches, sizeof(struct trace_parse_launch), g->nlaunches, &held) || held > f->budget->cap)
        return 0;
    uint64_t bytes = c->names->bytes;   /* names new to the first half, as intern counts them */
    for (size_t i = 0; i < sp->n2.n; i++)
        if (!util_smap_slot(&c->names->map, sp->n2.v[i], 0)) bytes += strlen(sp->n2.v[i]) + 1 + 3 * sizeof(void *);
    return bytes <= f->budget->cap / 4;
}

/* The second half's names in the first's table, in its order: where each went. */
static uint32_t *merge_names(struct ctx *c, struct trace_parse_names *n2) {
    struct trace_parse_names *nm = c->names;
    uint32_t *to = malloc((n2->n ? n2->n : 1) * sizeof *to);
    if (!to) return NULL;
    for (size_t i = 0; i < n2->n; i++) {
        int32_t *slot = util_smap_slot(&nm->map, n2->v[i], 0);
        if (!slot) {
            if (nm->n >= INT32_MAX || UTIL_PUSH(nm->v, nm->n, nm->cap) || UTIL_PUSH(nm->cat, nm->n, nm->capcat)) { free(to); return NULL; }
            nm->v[nm->n] = n2->v[i];   /* moved */
            if (!(slot = util_smap_slot(&nm->map, nm->v[nm->n], 1))) { free(to); return NULL; }
            n2->v[i] = NULL;
            nm->cat[nm->n] = n2->cat[i];
            nm->bytes += strlen(nm->v[nm->n]) + 1 + 3 * sizeof(void *);
            *slot = (int32_t)nm->n++;
        }
        to[i] = (uint32_t)*slot;
    }
    return to;
}

static int append(void **dst, size_t *n, size_t *cap, const void *src, size_t m, size_t rec) {
    if (!m) return 0;
    if (util_grow(dst, cap, *n + m, rec)) return -1;
    memcpy((char *)*dst + *n * rec, src, m * rec);
    *n += m;
    return 0;
}

static int merge_kernels(struct ctx *c, struct trace_split *sp, const uint32_t *to) {
    struct trace_parse_file *f = c->f;
    const struct tp_pkeys *keys = sp->c2->pkeys;
    size_t n;
    const struct trace_parse_kernel *v = (const void *)in_memory(sp->f2.kernels, &n);
    if (n && !f->kernels && tp_new_stream(c, &f->kernels, sizeof *v, trace_parse_cmp_kernel_corr)) return -1;
    for (size_t i = 0; i < n; i++) {
        struct trace_parse_kernel k = v[i];
        k.name = to[k.name];
        if (k.pg) {   /* looked up as one pass does, in order */
            const struct pkey *y = &keys->k[k.pg - 1];
            if (tp_pg_lookup(c, y->name, y->desc, y->ranks, &k.pg)) return -1;
        }
        if (k.peer <= -2) {
            int64_t pr = -2 - (int64_t)k.peer;
            const struct trace_parse_pg *g = k.pg ? &f->pgs[k.pg - 1] : NULL;
            k.peer = g && pr < g->nranks ? g->ranks[pr] : -1;
        }
        if (trace_spill_push(f->kernels, &k, c->err)) return -1;
    }
    f->nkernels += sp->f2.nkernels;
    return 0;
}

static int merge(struct ctx *c, struct trace_split *sp) {
    struct trace_parse_file *f = c->f, *g = &sp->f2;
    uint32_t *to = merge_names(c, &sp->n2);
    if (!to) return pt_errorf(c->err, "out of memory");
    int rc = g->kernels ? merge_kernels(c, sp, to) : 0;
    free(to);
    if (rc) return -1;
    size_t n;
    const struct trace_parse_launch *l = g->launches ? (const void *)in_memory(g->launches, &n) : NULL;
    if (l && n && !f->launches && tp_new_stream(c, &f->launches, sizeof *l, trace_parse_cmp_launch)) return -1;
    for (size_t i = 0; l && i < n; i++)
        if (trace_spill_push(f->launches, &l[i], c->err)) return -1;
    f->nlaunches += g->nlaunches;
    if (append((void **)&f->steps, &f->nsteps, &f->capsteps, g->steps, g->nsteps, sizeof *g->steps) ||
        append((void **)&f->annos, &f->nannos, &f->capannos, g->annos, g->nannos, sizeof *g->annos) ||
        append((void **)&f->flows, &f->nflows, &f->capflows, g->flows, g->nflows, sizeof *g->flows))
        return pt_errorf(c->err, "out of memory");
    f->nneg += g->nneg;
    f->nbadts += g->nbadts;
    f->ts_frac |= g->ts_frac;
    if (sp->c2->saw_base) f->base_ns = g->base_ns, c->saw_base = 1;
    c->src.raw = sp->c2->src.raw;   /* the file read to its end */
    return 0;
}

static int split_meet(struct ctx *c) {
    struct trace_split *sp = c->split;
    join(sp);
    int rc = mergeable(c, sp) ? (merge(c, sp) ? -1 : 1) : 0;
    if (rc == 1) c->f->split_merged = 1;
    split_end(c);
    return rc;
}

static int split_pkey(struct ctx *c, const char *name, const char *desc, const char *ranks, uint8_t *out) {
    *out = 0;
    if (!*name && !*desc) return 0;
    if (!c->pkeys && !(c->pkeys = calloc(1, sizeof *c->pkeys))) return pt_errorf(c->err, "out of memory");
    struct tp_pkeys *t = c->pkeys;
    for (int j = 0; j < t->n; j++) {
        int i = (t->last + j) % t->n;   /* the last one first */
        if (!strcmp(t->k[i].name, name) && !strcmp(t->k[i].desc, desc) && !strcmp(t->k[i].ranks, ranks)) {
            t->last = i;
            *out = (uint8_t)(i + 1);
            return 0;
        }
    }
    if (t->n >= SPLIT_MAX_KEYS) { t->full = 1; return 0; }
    struct pkey *y = &t->k[t->n];
    if (!(y->name = strdup(name)) || !(y->desc = strdup(desc)) || !(y->ranks = strdup(ranks))) {
        free(y->name), free(y->desc), free(y->ranks);
        *y = (struct pkey){0};
        return pt_errorf(c->err, "out of memory");
    }
    t->last = t->n;
    *out = (uint8_t)++t->n;
    return 0;
}

static void pkeys_free(struct tp_pkeys *t) {
    if (!t) return;
    for (int i = 0; i < t->n; i++) free(t->k[i].name), free(t->k[i].desc), free(t->k[i].ranks);
    free(t);
}

static const struct tp_hooks split_hooks = {split_start, split_end, split_meet, split_pkey};

int trace_parse(const char *path, struct trace_parse_names *names, size_t max_value, atomic_int *cancel, struct trace_parse_file *f,
                struct pt_error *err) {
    struct ctx *c = tp_ctx_new(path, names, max_value, cancel, f, err);
    if (!c) return -1;
    c->hooks = &split_hooks;
    int rc = tp_parse_file(c);
    tp_ctx_free(c);
    return rc;
}
