/* cube: dense float32 blocks, built from rows in any order, and the
 * queries the panes and commands need, for dense and lazy cubes alike: a
 * lazy cube's blocks come from model/cube/cube_lazy.c, which this file
 * asks and which never calls back here. */
#include "model/cube/cube.h"
#include "model/cube/cube_lazy.h"
#include "model/util/pool.h"
#include "model/util/util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- queries ---- */

void cube_free(struct cube *c) {
    if (!c) return;
    cube_lazy_free(c->lazy);   /* first: its fill thread reads the axes */
    for (int m = 0; m < c->nmetrics; m++) {
        struct cube_metric *cm = &c->metrics[m];
        free(cm->name);
        for (int s = 0; s < cm->nstats; s++) free(cm->stats[s]);
        free(cm->targets);
        free(cm->vals);
    }
    free(c->metrics);
    free(c->steps);
    free(c->ranks);
    names_free(c->names);
    free(c);
}

int cube_metric_find(const struct cube *c, const char *name) {
    for (int m = 0; m < c->nmetrics; m++)
        if (strcmp(c->metrics[m].name, name) == 0) return m;
    return -1;
}

int cube_stat_find(const struct cube *c, int metric, const char *name) {
    if (metric < 0 || metric >= c->nmetrics) return -1;
    const struct cube_metric *m = &c->metrics[metric];
    for (int s = 0; s < m->nstats; s++)
        if (strcmp(m->stats[s], name) == 0) return s;
    return -1;
}

int cube_step_find(const struct cube *c, int32_t value) {
    int lo = 0, hi = c->nsteps - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->steps[mid].value == value) return mid;
        if (c->steps[mid].value < value) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

char *step_text(int32_t step, int32_t micro, char *buf, size_t n) {
    if (micro >= 0) snprintf(buf, n, "%d.%d", (int)step, (int)micro);
    else snprintf(buf, n, "%d", (int)step);
    return buf;
}

int cube_has_micro(const struct cube *c) {
    for (int i = 0; c && i < c->nsteps; i++)
        if (c->steps[i].micro > 0) return 1;
    return 0;
}

char *cube_step_text(const struct cube *c, int i, char *buf, size_t n) {
    return step_text(c->steps[i].origin, cube_has_micro(c) ? c->steps[i].micro : -1, buf, n);
}

int cube_step_parse(const struct cube *c, const char *text) {
    char *e;
    long step = strtol(text, &e, 10), micro = -1;
    if (e == text) return -2;
    if (*e == '.') {
        const char *m = e + 1;
        micro = strtol(m, &e, 10);
        if (e == m || micro < 0) return -2;
    }
    if (*e) return -2;
    for (int i = 0; i < c->nsteps; i++)
        if (c->steps[i].origin == step && (micro < 0 || c->steps[i].micro == micro)) return i;
    return -1;
}

int cube_rank_find(const struct cube *c, int32_t rank) {
    int lo = 0, hi = c->nranks - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->ranks[mid] == rank) return mid;
        if (c->ranks[mid] < rank) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

int cube_slice(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, struct cube_slice *out) {
    if (metric < 0 || metric >= c->nmetrics) return -1;
    const struct cube_metric *m = &c->metrics[metric];
    if (stat < 0 || stat >= m->nstats) return -1;
    if (!m->vals) return cube_lazy_slice(c, metric, stat, dim, value, out);
    const float *blk = m->vals + (size_t)stat * m->ntargets * (size_t)c->nsteps * (size_t)c->nranks;
    ptrdiff_t per_target = (ptrdiff_t)c->nsteps * c->nranks;
    out->dim = dim;
    out->xshift = 0;
    switch (dim) {
    case DIM_STEP:
        if (value < 0 || value >= c->nsteps) return -1;
        out->base = blk + (ptrdiff_t)value * c->nranks;
        out->sx = 1;
        out->sy = per_target;
        out->nx = c->nranks;
        out->ny = (int)m->ntargets;
        return 0;
    case DIM_RANK:
        if (value < 0 || value >= c->nranks) return -1;
        out->base = blk + value;
        out->sx = c->nranks;
        out->sy = per_target;
        out->nx = c->nsteps;
        out->ny = (int)m->ntargets;
        return 0;
    case DIM_TARGET:
        if (value < 0 || (uint32_t)value >= m->ntargets) return -1;
        out->base = blk + (ptrdiff_t)value * per_target;
        out->sx = c->nranks;
        out->sy = 1;
        out->nx = c->nsteps;
        out->ny = c->nranks;
        return 0;
    }
    return -1;
}

int cube_slice_zoomed(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, int zx,
                      struct cube_slice *out) {
    if (cube_lazy_zoomed(c, metric, stat, dim, value, zx, out) == 0) return 0;
    return cube_slice(c, metric, stat, dim, value, out);
}

int cube_series(const struct cube *c, int metric, int stat, enum cube_dim dim, int value,
                int x, int y, struct cube_series *out) {
    struct cube_slice s;
    if (cube_slice(c, metric, stat, dim, value, &s) != 0) return -1;
    if (x < 0 || x >= s.nx || y < 0 || y >= s.ny) return -1;
    const struct cube_metric *m = &c->metrics[metric];
    if (!m->vals) return cube_lazy_series(c, metric, stat, dim, value, x, y, out);
    const float *blk = m->vals + (size_t)stat * m->ntargets * (size_t)c->nsteps * (size_t)c->nranks;
    ptrdiff_t per_target = (ptrdiff_t)c->nsteps * c->nranks;
    switch (dim) {
    case DIM_STEP:    /* (rank x, target y) over steps */
        out->base = blk + (ptrdiff_t)y * per_target + x;
        out->stride = c->nranks;
        out->n = c->nsteps;
        return 0;
    case DIM_RANK:    /* (step x, target y) over ranks */
        out->base = blk + (ptrdiff_t)y * per_target + (ptrdiff_t)x * c->nranks;
        out->stride = 1;
        out->n = c->nranks;
        return 0;
    case DIM_TARGET:  /* (step x, rank y) over targets */
        out->base = blk + (ptrdiff_t)x * c->nranks + y;
        out->stride = per_target;
        out->n = (int)m->ntargets;
        return 0;
    }
    return -1;
}

size_t cube_slice_range(const struct cube_slice *s, double *min, double *max) {
    size_t n = 0;
    double lo = 0, hi = 0;
    for (int y = 0; y < s->ny; y++)
        for (int x = 0; x < s->nx; x++) {
            float v = cube_slice_at(s, x, y);
            if (!isfinite(v)) continue;   /* missing is a NaN too */
            if (!n++) lo = hi = v;
            else if (v < lo) lo = v;
            else if (v > hi) hi = v;
        }
    if (n) { *min = lo; *max = hi; }
    return n;
}

static int dense_nonfinite(const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn, void *ctx) {
    int m0 = metric < 0 ? 0 : metric, m1 = metric < 0 ? c->nmetrics : metric + 1;
    int s0 = step < 0 ? 0 : step, s1 = step < 0 ? c->nsteps : step + 1;
    int r0 = rank < 0 ? 0 : rank, r1 = rank < 0 ? c->nranks : rank + 1;
    float v[CUBE_MAX_STATS];
    for (int m = m0; m < m1; m++) {
        const struct cube_metric *cm = &c->metrics[m];
        for (uint32_t lt = 0; lt < cm->ntargets; lt++)
            for (int s = s0; s < s1; s++)
                for (int r = r0; r < r1; r++) {
                    int any = 0;
                    for (int st = 0; st < cm->nstats; st++) {
                        v[st] = cm->vals[cube_index(c, cm, st, lt, s, r)];
                        any |= !isfinite(v[st]) && !cube_is_missing(v[st]);
                    }
                    if (any && fn(ctx, m, lt, s, r, v) != 0) return 0;
                }
    }
    return 0;
}

int cube_each_nonfinite(const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn, void *ctx,
                        struct pt_error *err) {
    if (metric >= c->nmetrics) return 0;
    if (!cube_is_lazy(c)) return dense_nonfinite(c, metric, step, rank, fn, ctx);
    return cube_lazy_nonfinite(c, metric, step, rank, fn, ctx, err);
}

static int count_nonfinite_cell(void *ctx, int metric, uint32_t lt, int step, int rank, const float *vals) {
    struct { const struct cube *c; size_t n; } *k = ctx;
    (void)lt, (void)step, (void)rank;
    for (int s = 0; s < k->c->metrics[metric].nstats; s++)
        if (!isfinite(vals[s]) && !cube_is_missing(vals[s])) k->n++;
    return 0;
}

size_t cube_count_nonfinite(const struct cube *c, int metric, int step, int rank) {
    if (metric < 0 || metric >= c->nmetrics) return 0;
    const struct cube_metric *m = &c->metrics[metric];
    if (!m->vals) {   /* lazy: the source's query; a failed one counts what it saw */
        struct { const struct cube *c; size_t n; } k = {c, 0};
        struct pt_error err;
        cube_each_nonfinite(c, metric, step, rank, count_nonfinite_cell, &k, &err);
        return k.n;
    }
    size_t n = 0;
    int s0 = step < 0 ? 0 : step, s1 = step < 0 ? c->nsteps : step + 1;
    int r0 = rank < 0 ? 0 : rank, r1 = rank < 0 ? c->nranks : rank + 1;
    for (int st = 0; st < m->nstats; st++)
        for (uint32_t t = 0; t < m->ntargets; t++)
            for (int s = s0; s < s1; s++) {
                const float *row = m->vals + cube_index(c, m, st, t, s, 0);
                for (int r = r0; r < r1; r++)
                    if (!isfinite(row[r]) && !cube_is_missing(row[r])) n++;
            }
    return n;
}

size_t cube_count_present(const struct cube *c, int metric) {
    if (metric < 0 || metric >= c->nmetrics) return 0;
    const struct cube_metric *m = &c->metrics[metric];
    if (!m->vals) {   /* lazy: rank by rank */
        size_t n = 0;
        for (int r = 0; r < c->nranks; r++)
            for (int st = 0; st < m->nstats; st++) {
                struct cube_slice s;
                if (cube_lazy_slice(c, metric, st, DIM_RANK, r, &s) != 0) continue;
                for (int y = 0; y < s.ny; y++)
                    for (int x = 0; x < s.nx; x++) n += !cube_is_missing(cube_slice_at(&s, x, y));
            }
        return n;
    }
    size_t total = (size_t)m->nstats * m->ntargets * (size_t)c->nsteps * (size_t)c->nranks, n = 0;
    for (size_t i = 0; i < total; i++)
        if (!cube_is_missing(m->vals[i])) n++;
    return n;
}

size_t cube_null_targets_notensor(const struct cube *c, int metric, float *vals) {
    const struct cube_metric *m = &c->metrics[metric];
    size_t plane = (size_t)c->nsteps * (size_t)c->nranks, rows = 0;
    for (uint32_t t = 0; t < m->ntargets; t++) {
        int nan = 0, num = 0, step0 = -1, steps2 = 0;
        for (int st = 0; st < m->nstats && !num; st++) {
            const float *p = vals + cube_index(c, m, st, t, 0, 0);
            for (size_t i = 0; i < plane && !num; i++) {
                if (cube_is_missing(p[i])) continue;
                if (isnan(p[i])) nan = 1; else num = 1;
                int at = (int)(i / (size_t)c->nranks);
                if (step0 < 0) step0 = at;
                else steps2 |= at != step0;
            }
        }
        /* seen on one step only, a NULL cannot be told from a NaN (a
         * pipeline stage's tensors dumped for one step): NaN it stays */
        if (!nan || num || !steps2) continue;
        for (size_t i = 0; i < plane; i++) {
            int any = 0;
            for (int st = 0; st < m->nstats; st++) {
                float *p = vals + cube_index(c, m, st, t, 0, 0) + i;
                if (!cube_is_missing(*p)) { *p = cube_notensor(); any = 1; }
            }
            rows += any;
        }
    }
    return rows;
}

/* ---- building ---- */

struct brow {
    uint32_t target;
    int32_t step, rank;
    uint32_t present;
};

/* Rows are kept in chunks of BCHUNK, never moved: growing one big array by
 * realloc copied it and touched every page twice. */
#define BCHUNK_BITS 16
#define BCHUNK ((size_t)1 << BCHUNK_BITS)

struct bchunk {
    struct brow *rows;
    float *vals;             /* stride floats per row */
};

struct bmetric {
    char *name;
    int nstats;
    char *stats[CUBE_MAX_STATS];
    struct bchunk *chunks;
    size_t nchunks;
    int stride;              /* >= nstats; grows when a stat is added */
    size_t n;
};

static inline struct brow *brow_at(const struct bmetric *m, size_t r) {
    return &m->chunks[r >> BCHUNK_BITS].rows[r & (BCHUNK - 1)];
}
static inline float *bvals_at(const struct bmetric *m, size_t r) {
    return m->chunks[r >> BCHUNK_BITS].vals + (r & (BCHUNK - 1)) * (size_t)m->stride;
}

static void bmetric_free_rows(struct bmetric *m) {
    for (size_t i = 0; i < m->nchunks; i++) {
        free(m->chunks[i].rows);
        free(m->chunks[i].vals);
    }
    free(m->chunks);
    m->chunks = NULL;
    m->nchunks = 0;
    m->n = 0;
}

struct cube_builder {
    struct names *names;
    struct bmetric *m;
    int nm;
    struct cube_step *steps;   /* declared step labels */
    size_t nsteps, capsteps;
    int32_t *ranks;            /* declared ranks */
    size_t nranks, capranks;
    uint64_t budget;           /* bytes the laid-out values may take; 0: any */
};

void cube_builder_budget(struct cube_builder *b, uint64_t bytes) { b->budget = bytes; }

struct cube_builder *cube_builder_new(struct names *names) {
    struct cube_builder *b = calloc(1, sizeof *b);
    if (!b) { names_free(names); return NULL; }
    b->names = names;
    return b;
}

void cube_builder_free(struct cube_builder *b) {
    if (!b) return;
    for (int i = 0; i < b->nm; i++) {
        free(b->m[i].name);
        for (int s = 0; s < b->m[i].nstats; s++) free(b->m[i].stats[s]);
        bmetric_free_rows(&b->m[i]);
    }
    free(b->m);
    free(b->steps);
    free(b->ranks);
    names_free(b->names);
    free(b);
}

struct names *cube_builder_names(struct cube_builder *b) { return b->names; }

int cube_builder_metric(struct cube_builder *b, const char *name, int nstats, const char *const *stats) {
    for (int i = 0; i < b->nm; i++)
        if (strcmp(b->m[i].name, name) == 0) return i;
    if (nstats > CUBE_MAX_STATS) return -1;
    struct bmetric *m = realloc(b->m, (size_t)(b->nm + 1) * sizeof *m);
    if (!m) return -1;
    b->m = m;
    struct bmetric *nm = &b->m[b->nm];
    memset(nm, 0, sizeof *nm);
    nm->name = strdup(name);
    if (!nm->name) return -1;
    for (int s = 0; s < nstats; s++) {
        nm->stats[s] = strdup(stats[s]);
        if (!nm->stats[s]) {
            for (int k = 0; k < s; k++) free(nm->stats[k]);
            free(nm->name);
            return -1;
        }
    }
    nm->nstats = nstats;
    return b->nm++;
}

int cube_builder_stat(struct cube_builder *b, int metric, const char *stat) {
    if (metric < 0 || metric >= b->nm) return -1;
    struct bmetric *m = &b->m[metric];
    for (int s = 0; s < m->nstats; s++)
        if (strcmp(m->stats[s], stat) == 0) return s;
    if (m->nstats == CUBE_MAX_STATS) return -1;
    if (m->nstats + 1 > m->stride && m->n) {
        /* rare (monitor files with different columns): widen every chunk */
        int stride = m->nstats + 1;
        for (size_t c = 0; c < m->nchunks; c++) {
            float *v = malloc(BCHUNK * (size_t)stride * sizeof *v);
            if (!v) return -1;
            for (size_t r = 0; r < BCHUNK; r++) {
                memcpy(v + r * (size_t)stride, m->chunks[c].vals + r * (size_t)m->stride, (size_t)m->stride * sizeof *v);
                v[r * (size_t)stride + stride - 1] = cube_missing();
            }
            free(m->chunks[c].vals);
            m->chunks[c].vals = v;
        }
        m->stride = stride;
    }
    if (!(m->stats[m->nstats] = strdup(stat))) return -1;
    return m->nstats++;
}

/* A new row's slot: its values (stride floats) are the caller's to set. */
static float *builder_row(struct cube_builder *b, int metric, uint32_t target, int32_t step, int32_t rank,
                          uint32_t present) {
    if (metric < 0 || metric >= b->nm) return NULL;
    struct bmetric *m = &b->m[metric];
    if (m->stride < m->nstats) {
        if (m->n) return NULL;   /* cube_builder_stat keeps stride up once rows exist */
        m->stride = m->nstats;
    }
    if ((m->n & (BCHUNK - 1)) == 0 && (m->n >> BCHUNK_BITS) == m->nchunks) {
        struct bchunk *c = realloc(m->chunks, (m->nchunks + 1) * sizeof *c);
        if (!c) return NULL;
        m->chunks = c;
        c[m->nchunks].rows = malloc(BCHUNK * sizeof *c->rows);
        c[m->nchunks].vals = malloc(BCHUNK * (size_t)(m->stride ? m->stride : 1) * sizeof *c->vals);
        if (!c[m->nchunks].rows || !c[m->nchunks].vals) {
            free(c[m->nchunks].rows);
            free(c[m->nchunks].vals);
            return NULL;
        }
        m->nchunks++;
    }
    *brow_at(m, m->n) = (struct brow){.target = target, .step = step, .rank = rank, .present = present};
    return bvals_at(m, m->n++);
}

int cube_builder_add(struct cube_builder *b, int metric, uint32_t target, int32_t step,
                     int32_t rank, const double *vals, uint32_t present) {
    float *dst = builder_row(b, metric, target, step, rank, present);
    if (!dst) return -1;
    for (int s = 0; s < b->m[metric].nstats; s++) dst[s] = (present >> s) & 1 ? cube_to_f32(vals[s]) : cube_missing();
    return 0;
}

int cube_builder_add_notensor(struct cube_builder *b, int metric, uint32_t target, int32_t step, int32_t rank) {
    int n = metric >= 0 && metric < b->nm ? b->m[metric].nstats : 0;
    float *dst = builder_row(b, metric, target, step, rank, n >= 32 ? UINT32_MAX : (1u << n) - 1u);
    if (!dst) return -1;
    for (int s = 0; s < n; s++) dst[s] = cube_notensor();
    return 0;
}

int cube_builder_step(struct cube_builder *b, int32_t value, int32_t origin, int32_t micro) {
    if (b->nsteps >= CUBE_MAX_STEPS) return -1;   /* checked before allocating, not after */
    if (UTIL_PUSH(b->steps, b->nsteps, b->capsteps) != 0) return -1;
    b->steps[b->nsteps++] = (struct cube_step){.value = value, .origin = origin, .micro = micro};
    return 0;
}

int cube_builder_rank(struct cube_builder *b, int32_t rank) {
    if (UTIL_PUSH(b->ranks, b->nranks, b->capranks) != 0) return -1;
    b->ranks[b->nranks++] = rank;
    return 0;
}

static int cmp_step(const void *a, const void *b) {
    const struct cube_step *x = a, *y = b;
    return (x->value > y->value) - (x->value < y->value);
}

/* Sorts and dedupes n int32 values in place; returns the new count. */
static size_t uniq_i32(int32_t *v, size_t n) {
    size_t k = 0;
    if (n) qsort(v, n, sizeof *v, util_cmp_i32);   /* v may be NULL when n is 0 */
    for (size_t i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i]) v[k++] = v[i];
    return k;
}

static int find_i32(const int32_t *v, size_t n, int32_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] == x) return (int)mid;
        if (v[mid] < x) lo = mid + 1; else hi = mid;
    }
    return -1;
}

/* The first pass over the rows (each metric's steps, ranks and targets)
 * runs per metric on the pool's threads (model/util/pool.h) when there are
 * two metrics or more and rows enough; its lists are merged in metric
 * order, so the cube is the same byte for byte on any number of threads. */
#define FIN_PAR_ROWS ((size_t)1 << 14)

/* A metric's step and rank values (sorted, distinct) and its count of
 * targets with rows: the first pass, one metric each. */
struct fin_axes {
    int32_t *sv, *rv;
    size_t ns, nr, caps, capr;
    uint32_t nl;
};

struct fin {
    struct cube_builder *b;
    struct cube *c;
    struct fin_axes *ax;       /* per metric */
    const int *order;          /* the metrics, most rows first (the first pass takes them in this order) */
    const int32_t *sv, *rv;    /* the cube's axes */
    size_t ns, nr;
    uint32_t ntg;
};

static int fin_oom(struct pt_error *e) { return pt_errorf(e, "out of memory while laying out the cube"); }

static int fin_axes(void *ctx, size_t i, struct pt_error *e) {
    struct fin *f = ctx;
    const struct bmetric *bm = &f->b->m[f->order[i]];
    struct fin_axes *a = &f->ax[f->order[i]];
    uint8_t *has = calloc(f->ntg / 8 + 1, 1);
    if (!has) return fin_oom(e);
    /* rows come in runs of one step and rank (a file, a rank folder): a
     * value equal to the one before is not taken again before the sort */
    for (size_t r = 0; r < bm->n; r++) {
        const struct brow *row = brow_at(bm, r);
        if (!a->ns || a->sv[a->ns - 1] != row->step) {
            if (UTIL_PUSH(a->sv, a->ns, a->caps) != 0) { free(has); return fin_oom(e); }
            a->sv[a->ns++] = row->step;
        }
        if (!a->nr || a->rv[a->nr - 1] != row->rank) {
            if (UTIL_PUSH(a->rv, a->nr, a->capr) != 0) { free(has); return fin_oom(e); }
            a->rv[a->nr++] = row->rank;
        }
        uint32_t t = row->target;
        a->nl += !(has[t / 8] & (1u << (t % 8)));
        has[t / 8] |= (uint8_t)(1u << (t % 8));
    }
    free(has);
    a->ns = uniq_i32(a->sv, a->ns);
    a->nr = uniq_i32(a->rv, a->nr);
    return 0;
}

/* n indexes below lim (SIZE_MAX too): 32-bit words when they fit, half
 * the memory of 64-bit ones. */
struct idx {
    void *p;
    int wide;
};
static int idx_new(struct idx *x, size_t n, size_t lim) {
    x->wide = lim >= UINT32_MAX;
    x->p = malloc((n ? n : 1) * (x->wide ? sizeof(size_t) : sizeof(uint32_t)));
    return x->p ? 0 : -1;
}
static inline size_t idx_get(const struct idx *x, size_t i) {
    if (x->wide) return ((const size_t *)x->p)[i];
    uint32_t v = ((const uint32_t *)x->p)[i];
    return v == UINT32_MAX ? SIZE_MAX : v;
}
static inline void idx_set(struct idx *x, size_t i, size_t v) {
    if (x->wide) ((size_t *)x->p)[i] = v;
    else ((uint32_t *)x->p)[i] = v == SIZE_MAX ? UINT32_MAX : (uint32_t)v;
}

/* One metric's layout, cut into parts by step (a cell's rows are all of
 * its step): part k of nparts owns the steps [k * ns / nparts, (k + 1) *
 * ns / nparts), their rows' cells, their slots of the step order and their
 * values, so the parts run on the pool's threads and give what one pass
 * in row order gives (the first row of a cell wins). */
struct fin_part {
    struct fin *f;
    struct bmetric *bm;
    struct cube_metric *cm;
    const uint32_t *local;
    uint8_t *seen;           /* a bit a cell: parts share a byte at most at their edge (atomic) */
    struct idx cellof, order;
    size_t *at;              /* rows per step, then each step's next slot */
    size_t cells, nvals;
    int nparts, phase;
};

static void part_steps(const struct fin_part *p, size_t k, size_t *lo, size_t *hi) {
    *lo = k * p->f->ns / (size_t)p->nparts;
    *hi = (k + 1) * p->f->ns / (size_t)p->nparts;
}

/* Phase 0: its share of the values set missing, its rows' cells and their
 * count per step; phase 1: its steps' rows in step order (at[s] from
 * where step s's slots start to where they end); phase 2: their values. */
static int fin_part(void *ctx, size_t k, struct pt_error *e) {
    struct fin_part *p = ctx;
    const struct bmetric *bm = p->bm;
    const int32_t *sv = p->f->sv, *rv = p->f->rv;
    size_t ns = p->f->ns, nr = p->f->nr, lo, hi;
    part_steps(p, k, &lo, &hi);
    (void)e;
    if (p->phase == 0) {
        float miss = cube_missing();
        size_t v0 = k * p->nvals / (size_t)p->nparts, v1 = (k + 1) * p->nvals / (size_t)p->nparts;
        for (size_t v = v0; v < v1; v++) p->cm->vals[v] = miss;
    }
    if (lo >= hi) return 0;   /* no step (a metric of no row) */
    if (p->phase == 2) {
        float miss = cube_missing();
        for (size_t q = lo ? p->at[lo - 1] : 0; q < p->at[hi - 1]; q++) {
            size_t r = idx_get(&p->order, q), cell = idx_get(&p->cellof, r);
            if (cell == SIZE_MAX) continue;
            const struct brow *row = brow_at(bm, r);
            const float *src = bvals_at(bm, r);
            for (int st = 0; st < p->cm->nstats; st++)
                /* rows added before a stat was declared carry no value for it */
                p->cm->vals[(size_t)st * p->cells + cell] = st < bm->stride && ((row->present >> st) & 1) ? src[st] : miss;
        }
        return 0;
    }
    int32_t at_step = 0, at_rank = 0;
    int si = -1, ri = -1;
    for (size_t r = 0; r < bm->n; r++) {
        const struct brow *row = brow_at(bm, r);
        /* runs of one step and rank: looked up once a run */
        if (si < 0 || row->step != at_step) { si = find_i32(sv, ns, row->step); at_step = row->step; }
        if ((size_t)si < lo || (size_t)si >= hi) continue;
        if (p->phase == 1) {
            idx_set(&p->order, p->at[si]++, r);
            continue;
        }
        if (ri < 0 || row->rank != at_rank) { ri = find_i32(rv, nr, row->rank); at_rank = row->rank; }
        size_t cell = ((size_t)p->local[row->target] * ns + (size_t)si) * nr + (size_t)ri;
        p->at[si]++;
        uint8_t bit = (uint8_t)(1u << (cell % 8));
        if (__atomic_fetch_or(&p->seen[cell / 8], bit, __ATOMIC_RELAXED) & bit) {
            idx_set(&p->cellof, r, SIZE_MAX);
            continue;
        }
        idx_set(&p->cellof, r, cell);
    }
    return 0;
}

/* The parts' three phases, each on the pool (or here, with one part). */
static int fin_parts(struct fin_part *p, struct pt_error *e) {
    for (p->phase = 0; p->phase < 3; p->phase++) {
        if (p->nparts > 1 ? util_pool_for((size_t)p->nparts, fin_part, p, e) != 0 : fin_part(p, 0, e) != 0) return -1;
        if (p->phase == 0)   /* at[s]: where step s's slots start */
            for (size_t k = 0, sum = 0; k < p->f->ns; k++) {
                size_t c = p->at[k];
                p->at[k] = sum;
                sum += c;
            }
    }
    return 0;
}

/* Metric mi's block: its local targets (those with rows, ascending id)
 * and its values, then its rows freed. */
static int fin_metric(struct fin *f, int mi, uint32_t *local, struct pt_error *e) {
    struct bmetric *bm = &f->b->m[mi];
    struct cube_metric *cm = &f->c->metrics[mi];
    uint32_t ntg = f->ntg;
    memset(local, 0xff, (ntg ? ntg : 1) * sizeof *local);
    for (size_t r = 0; r < bm->n; r++) local[brow_at(bm, r)->target] = 0;
    uint32_t nl = 0;
    for (uint32_t t = 0; t < ntg; t++)
        if (local[t] == 0) nl++;
    cm->targets = malloc((nl ? nl : 1) * sizeof *cm->targets);
    if (!cm->targets) return fin_oom(e);
    nl = 0;
    for (uint32_t t = 0; t < ntg; t++)
        if (local[t] == 0) { cm->targets[nl] = t; local[t] = nl++; }
    cm->ntargets = nl;
    struct fin_part p = {.f = f, .bm = bm, .cm = cm, .local = local, .nparts = 1};
    p.cells = (size_t)nl * f->ns * f->nr;
    p.nvals = p.cells * (size_t)cm->nstats;
    if (bm->n >= FIN_PAR_ROWS && f->ns >= 2) p.nparts = util_pool_threads(4) < (int)f->ns ? util_pool_threads(4) : (int)f->ns;
    /* Each row's cell first (the first row of a cell wins), then the
     * values in step order: rows come file by file (a rank's steps),
     * so the ranks of one cache line of a plane would be written at
     * far apart times, each a miss; a step's rows together keep its
     * lines at hand until all its ranks are in. */
    cm->vals = malloc((p.nvals ? p.nvals : 1) * sizeof *cm->vals);
    p.seen = calloc(p.cells / 8 + 1, 1);
    int ok = cm->vals && p.seen && idx_new(&p.cellof, bm->n, p.cells) == 0;
    p.order.p = NULL;
    ok = ok && idx_new(&p.order, bm->n, bm->n) == 0;
    p.at = calloc(f->ns + 1, sizeof *p.at);
    int rc = ok && p.at ? 0 : fin_oom(e);
    if (rc == 0) rc = fin_parts(&p, e);
    free(p.seen);
    free(p.cellof.p);
    free(p.order.p);
    free(p.at);
    if (rc == 0) bmetric_free_rows(bm);
    return rc;
}

/* fn for each metric: on the pool when it pays, else here in order. */
static int fin_run(struct fin *f, size_t rows, int (*fn)(void *, size_t, struct pt_error *), struct pt_error *err) {
    size_t n = (size_t)f->b->nm;
    if (n >= 2 && rows >= FIN_PAR_ROWS) return util_pool_for(n, fn, f, err);
    for (size_t i = 0; i < n; i++)
        if (fn(f, i, err) != 0) return -1;
    return 0;
}

/* The step or rank values of the declared ones (decl, nd) and of every
 * metric's, sorted and distinct, into *out (*n). */
static int fin_union(const struct fin *f, const int32_t *decl, size_t nd, int steps, int32_t **out, size_t *n) {
    size_t total = nd;
    for (int i = 0; i < f->b->nm; i++) total += steps ? f->ax[i].ns : f->ax[i].nr;
    int32_t *v = malloc((total ? total : 1) * sizeof *v);
    if (!v) return -1;
    if (nd) memcpy(v, decl, nd * sizeof *v);   /* decl may be NULL when nd is 0 */
    size_t k = nd;
    for (int i = 0; i < f->b->nm; i++) {
        size_t m = steps ? f->ax[i].ns : f->ax[i].nr;
        if (m) memcpy(v + k, steps ? f->ax[i].sv : f->ax[i].rv, m * sizeof *v);
        k += m;
    }
    *n = uniq_i32(v, k);
    *out = v;
    return 0;
}

int cube_builder_finish(struct cube_builder *b, struct cube **out, struct pt_error *err) {
    *out = NULL;
    struct fin f = {.b = b, .ntg = names_count(b->names)};
    int32_t *sv = NULL, *rv = NULL, *dsteps = malloc((b->nsteps ? b->nsteps : 1) * sizeof *dsteps);
    int *order = malloc((b->nm ? (size_t)b->nm : 1) * sizeof *order);
    struct cube *c = calloc(1, sizeof *c);
    size_t ns = 0, nr = 0, rows = 0;
    f.ax = calloc(b->nm ? (size_t)b->nm : 1, sizeof *f.ax);
    int rc = 0;
    if (!dsteps || !order || !c || !f.ax) { rc = fin_oom(err); goto done; }
    /* the metrics with most rows first: taken first, they end together */
    for (int i = 0; i < b->nm; i++) {
        order[i] = i;
        rows += b->m[i].n;
        for (int j = i; j > 0 && b->m[order[j - 1]].n < b->m[order[j]].n; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    }
    f.order = order;
    if (fin_run(&f, rows, fin_axes, err) != 0) { rc = -1; goto done; }
    for (size_t i = 0; i < b->nsteps; i++) dsteps[i] = b->steps[i].value;
    if (fin_union(&f, dsteps, b->nsteps, 1, &sv, &ns) != 0 || fin_union(&f, b->ranks, b->nranks, 0, &rv, &nr) != 0) {
        rc = fin_oom(err);
        goto done;
    }
    if (ns > CUBE_MAX_STEPS || nr > CUBE_MAX_RANKS) {   /* beyond any real run: refuse rather than allocate the moon */
        rc = pt_errorf(err, "%zu steps x %zu ranks is more than probetop can lay out", ns, nr);
        goto done;
    }
    /* the values' bytes: every metric's targets with rows */
    double need = 0;
    for (int i = 0; b->budget && i < b->nm; i++)
        need += (double)f.ax[i].nl * (double)ns * (double)nr * (double)(b->m[i].nstats ? b->m[i].nstats : 1) * sizeof(float);
    if (need > (double)b->budget) {   /* refused before a byte of it is allocated */
        rc = pt_errorf(err, "%zu steps x %zu ranks take %.0f MiB in memory, over the --mem budget of %.0f MiB", ns, nr,
                       need / 1048576.0, (double)b->budget / 1048576.0);
        goto done;
    }
    c->nsteps = (int)ns;
    c->nranks = (int)nr;
    c->steps = calloc(ns ? ns : 1, sizeof *c->steps);
    c->ranks = malloc((nr ? nr : 1) * sizeof *c->ranks);
    c->metrics = calloc(b->nm ? (size_t)b->nm : 1, sizeof *c->metrics);
    if (!c->steps || !c->ranks || !c->metrics) { rc = fin_oom(err); goto done; }
    memcpy(c->ranks, rv, nr * sizeof *rv);
    if (b->nsteps) qsort(b->steps, b->nsteps, sizeof *b->steps, cmp_step);
    for (size_t i = 0; i < ns; i++) {
        c->steps[i] = (struct cube_step){.value = sv[i], .origin = sv[i], .micro = -1};
        struct cube_step key = {.value = sv[i]};
        struct cube_step *d = b->nsteps ? bsearch(&key, b->steps, b->nsteps, sizeof *b->steps, cmp_step) : NULL;
        if (d) c->steps[i] = *d;
    }
    /* names and statistics handed over here, the blocks laid out per metric */
    for (int i = 0; i < b->nm; i++) {
        struct bmetric *bm = &b->m[i];
        struct cube_metric *cm = &c->metrics[c->nmetrics++];
        cm->name = bm->name;
        bm->name = NULL;
        cm->nstats = bm->nstats;
        for (int s = 0; s < bm->nstats; s++) { cm->stats[s] = bm->stats[s]; bm->stats[s] = NULL; }
        bm->nstats = 0;
    }
    f.c = c;
    f.sv = sv;
    f.rv = rv;
    f.ns = ns;
    f.nr = nr;
    /* the blocks one metric at a time, in order: two at once on two
     * threads held two metrics' scratch and blocks beside every row (a
     * 189 MB monitor tree peaked 7 % higher) */
    uint32_t *local = malloc((f.ntg ? f.ntg : 1) * sizeof *local);   /* scratch: one word per names id */
    if (!local) { rc = fin_oom(err); goto done; }
    for (int i = 0; i < b->nm && rc == 0; i++) rc = fin_metric(&f, i, local, err);
    free(local);
    if (rc != 0) goto done;
    c->names = b->names;
    b->names = NULL;
    *out = c;
    c = NULL;
done:
    for (int i = 0; f.ax && i < b->nm; i++) {
        free(f.ax[i].sv);
        free(f.ax[i].rv);
    }
    free(f.ax);
    free(order);
    free(dsteps);
    free(sv);
    free(rv);
    if (c) { c->names = NULL; cube_free(c); }
    return rc;
}
