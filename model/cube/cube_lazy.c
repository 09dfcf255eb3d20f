/* cube_lazy: the block cache, the cell lookups and the background fill of
 * a cube whose values stay in their source (model/cube/cube_lazy.h). */
#include "model/cube/cube_lazy.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many blocks, however small. */
#define LAZY_MAX_BLOCKS 32

struct lblock {
    enum cube_dim dim;
    int value;               /* step index, rank index or global target id */
    int metric;
    int group;               /* 0: exact; else ranks per group (a zoomed-out DIM_STEP block) */
    float *v;
    size_t bytes;
    uint64_t used;
};

struct cube_lazy {
    const struct cube_source_ops *ops;
    void *src;
    pthread_mutex_t mu;      /* everything below but the fill's own fields */
    struct lblock *b;
    int nb;
    uint64_t tick;
    size_t bytes, max_bytes;
    int cell_ok, cell_metric, cell_step, cell_rank;
    uint32_t cell_lt;
    float cell[CUBE_MAX_STATS];
    char error[256];
    /* background fill: full[] and fill_err belong to the thread until done */
    uint64_t budget;
    const struct cube *c;
    float **full;
    pthread_t thread;
    int want_fill, running, installed, failed;
    atomic_int cancel, done;
    int rc;
    struct pt_error fill_err;
};

static size_t metric_cells(const struct cube *c, int m, enum cube_dim dim, int value) {
    const struct cube_metric *cm = &c->metrics[m];
    switch (dim) {
    case DIM_STEP: return (size_t)cm->nstats * cm->ntargets * (size_t)c->nranks;
    case DIM_RANK: return (size_t)cm->nstats * cm->ntargets * (size_t)c->nsteps;
    case DIM_TARGET:
        return cube_local_target(c, m, (uint32_t)value) == UINT32_MAX ? 0
                                                                      : (size_t)cm->nstats * c->nsteps * (size_t)c->nranks;
    }
    return 0;
}

uint64_t cube_dense_bytes(const struct cube *c) {
    uint64_t n = 0;
    for (int m = 0; m < c->nmetrics; m++)
        n += (uint64_t)c->metrics[m].nstats * c->metrics[m].ntargets * (uint64_t)c->nsteps * (uint64_t)c->nranks;
    return n * sizeof(float);
}

static void block_free(struct lblock *b) {
    free(b->v);
    b->v = NULL;
}

static void cache_clear(struct cube_lazy *l) {
    for (int i = 0; i < l->nb; i++) block_free(&l->b[i]);
    l->nb = 0;
    l->bytes = 0;
    l->cell_ok = 0;
}

static void fill_missing(float *v, size_t n) {
    float miss = cube_missing();
    for (size_t i = 0; i < n; i++) v[i] = miss;
}

/* The cached block (dim, value) of metric, fetched when absent; the least
 * recently used blocks beyond the byte bound (CUBE_LAZY_KEEP at least) go.
 * Caller holds the mutex.  NULL with l->error set. */
static struct lblock *get_block(const struct cube *c, struct cube_lazy *l, enum cube_dim dim, int value, int metric,
                                int group) {
    for (int i = 0; i < l->nb; i++)
        if (l->b[i].dim == dim && l->b[i].value == value && l->b[i].metric == metric && l->b[i].group == group) {
            l->b[i].used = ++l->tick;
            return &l->b[i];
        }
    struct lblock nb = {.dim = dim, .value = value, .metric = metric, .group = group};
    struct pt_error err;
    size_t n = group ? (size_t)c->metrics[metric].nstats * c->metrics[metric].ntargets *
                           (size_t)((c->nranks + group - 1) / group)
                     : metric_cells(c, metric, dim, value);
    /* one block within --mem (16 MiB at least): a crafted database can
     * claim a million steps of a thousand targets, a block of gigabytes */
    uint64_t most = cube_lazy_most(l->budget);
    if ((double)n * sizeof(float) > (double)most) {
        snprintf(l->error, sizeof l->error, "a slice of %.0f MiB is over the --mem budget of %.0f MiB",
                 (double)n * sizeof(float) / 1048576.0, (double)most / 1048576.0);
        return NULL;
    }
    if (!(nb.v = malloc((n ? n : 1) * sizeof(float)))) goto oom;   /* a metric without targets: empty */
    fill_missing(nb.v, n ? n : 1);
    nb.bytes = n * sizeof(float);
    if (n) {
        int rc = group ? l->ops->fill_groups(l->src, c, value, metric, group, nb.v, &err)
                       : l->ops->fill_block(l->src, c, dim, value, metric, nb.v, &err);
        if (rc != 0) {
            if (rc < 0) snprintf(l->error, sizeof l->error, "%s", err.msg);
            block_free(&nb);
            return NULL;
        }
    }
    while (l->nb > 0 && (l->nb >= LAZY_MAX_BLOCKS || (l->nb >= CUBE_LAZY_KEEP - 1 && l->bytes + nb.bytes > l->max_bytes))) {
        int old = 0;
        for (int i = 1; i < l->nb; i++)
            if (l->b[i].used < l->b[old].used) old = i;
        l->bytes -= l->b[old].bytes;
        block_free(&l->b[old]);
        l->b[old] = l->b[--l->nb];
    }
    if (!l->b && !(l->b = calloc(LAZY_MAX_BLOCKS, sizeof *l->b))) goto oom;
    nb.used = ++l->tick;
    l->b[l->nb] = nb;
    l->bytes += nb.bytes;
    return &l->b[l->nb++];
oom:
    block_free(&nb);
    snprintf(l->error, sizeof l->error, "out of memory for a slice");
    return NULL;
}

int cube_is_lazy(const struct cube *c) {
    return c && c->lazy && !c->lazy->installed;
}


int cube_lazy_slice(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, struct cube_slice *out) {
    struct cube_lazy *l = c->lazy;
    const struct cube_metric *m = &c->metrics[metric];
    if (!l) return -1;
    int key = value;
    switch (dim) {
    case DIM_STEP: if (value < 0 || value >= c->nsteps) return -1; break;
    case DIM_RANK: if (value < 0 || value >= c->nranks) return -1; break;
    case DIM_TARGET:
        if (value < 0 || (uint32_t)value >= m->ntargets) return -1;
        key = (int)m->targets[value];
        break;
    }
    pthread_mutex_lock(&l->mu);
    struct lblock *b = get_block(c, l, dim, key, metric, 0);
    pthread_mutex_unlock(&l->mu);
    if (!b || !b->v) return -1;
    const float *blk = b->v;
    size_t nt = m->ntargets;
    switch (dim) {
    case DIM_STEP:
        *out = (struct cube_slice){blk + (size_t)stat * nt * (size_t)c->nranks, 1, c->nranks, c->nranks, (int)nt, dim, 0};
        break;
    case DIM_RANK:
        *out = (struct cube_slice){blk + (size_t)stat * nt * (size_t)c->nsteps, 1, c->nsteps, c->nsteps, (int)nt, dim, 0};
        break;
    case DIM_TARGET:
        *out = (struct cube_slice){blk + (size_t)stat * c->nsteps * (size_t)c->nranks, c->nranks, 1, c->nsteps,
                                   c->nranks, dim, 0};
        break;
    }
    return 0;
}

int cube_lazy_series(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, int x, int y,
                     struct cube_series *out) {
    struct cube_lazy *l = c->lazy;
    const struct cube_metric *m = &c->metrics[metric];
    size_t nt = m->ntargets;
    /* the block holding the series: a rank's for a series over steps, a step's otherwise */
    enum cube_dim bd = dim == DIM_STEP ? DIM_RANK : DIM_STEP;
    int bv = x;   /* rank x (a series over steps), else step x */
    if (!l) return -1;
    pthread_mutex_lock(&l->mu);
    struct lblock *b = get_block(c, l, bd, bv, metric, 0);
    pthread_mutex_unlock(&l->mu);
    if (!b || !b->v) return -1;
    const float *blk = b->v;
    switch (dim) {
    case DIM_STEP:    /* (rank x, target y) over steps */
        *out = (struct cube_series){blk + ((size_t)stat * nt + (size_t)y) * (size_t)c->nsteps, 1, c->nsteps};
        return 0;
    case DIM_RANK:    /* (step x, target y) over ranks */
        *out = (struct cube_series){blk + ((size_t)stat * nt + (size_t)y) * (size_t)c->nranks, 1, c->nranks};
        return 0;
    case DIM_TARGET:  /* (step x, rank y) over targets */
        *out = (struct cube_series){blk + (size_t)stat * nt * (size_t)c->nranks + (size_t)y, c->nranks, (int)nt};
        return 0;
    }
    (void)value;
    return -1;
}

int cube_lazy_zoomed(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, int zx,
                     struct cube_slice *out) {
    struct cube_lazy *l = c->lazy;
    int group = zx % 64 == 0 && c->nranks > 64 ? 64 : zx % 8 == 0 ? 8 : 0;
    if (!cube_is_lazy(c) || dim != DIM_STEP || !group || !l->ops->fill_groups || metric < 0 ||
        metric >= c->nmetrics || stat < 0 || stat >= c->metrics[metric].nstats || value < 0 || value >= c->nsteps ||
        c->nranks == 0 || c->ranks[0] != 0 || c->ranks[c->nranks - 1] != c->nranks - 1)
        return 1;
    struct lblock *b = NULL;
    pthread_mutex_lock(&l->mu);
    int exact = 0;
    for (int i = 0; i < l->nb; i++)
        exact |= l->b[i].dim == DIM_STEP && l->b[i].value == value && l->b[i].metric == metric && !l->b[i].group;
    if (!exact) b = get_block(c, l, DIM_STEP, value, metric, group);
    pthread_mutex_unlock(&l->mu);
    if (!b) return 1;
    size_t nt = c->metrics[metric].ntargets, ng = (size_t)((c->nranks + group - 1) / group);
    *out = (struct cube_slice){b->v + (size_t)stat * nt * ng, 1, (ptrdiff_t)ng, c->nranks, (int)nt, dim,
                               group == 64 ? 6 : 3};
    return 0;
}

/* The cell from a cached block, or NULL. */
static const float *cached_cell(const struct cube *c, const struct cube_lazy *l, int metric, int stat, uint32_t lt,
                                int step, int rank) {
    size_t nt = c->metrics[metric].ntargets;
    for (int i = 0; i < l->nb; i++) {
        const struct lblock *b = &l->b[i];
        const float *v = b->v;
        if (!v || b->metric != metric || b->group) continue;
        if (b->dim == DIM_STEP && b->value == step) return v + ((size_t)stat * nt + lt) * (size_t)c->nranks + (size_t)rank;
        if (b->dim == DIM_RANK && b->value == rank) return v + ((size_t)stat * nt + lt) * (size_t)c->nsteps + (size_t)step;
        if (b->dim == DIM_TARGET && (uint32_t)b->value == c->metrics[metric].targets[lt])
            return v + ((size_t)stat * c->nsteps + (size_t)step) * (size_t)c->nranks + (size_t)rank;
    }
    return NULL;
}

float cube_lazy_get(const struct cube *c, int metric, int stat, uint32_t lt, int step, int rank) {
    struct cube_lazy *l = c->lazy;
    if (!l) return cube_missing();
    pthread_mutex_lock(&l->mu);
    float v = cube_missing();
    const float *p = cached_cell(c, l, metric, stat, lt, step, rank);
    if (p) v = *p;
    else if (l->cell_ok && l->cell_metric == metric && l->cell_lt == lt && l->cell_step == step && l->cell_rank == rank)
        v = l->cell[stat];
    else {
        struct pt_error err;
        fill_missing(l->cell, CUBE_MAX_STATS);
        l->cell_ok = 0;
        if (l->ops->fill_cell(l->src, c, metric, lt, step, rank, l->cell, &err) != 0)
            snprintf(l->error, sizeof l->error, "%s", err.msg);
        else {
            l->cell_ok = 1;
            l->cell_metric = metric;
            l->cell_lt = lt;
            l->cell_step = step;
            l->cell_rank = rank;
            v = l->cell[stat];
        }
    }
    pthread_mutex_unlock(&l->mu);
    return v;
}

/* ---- the background fill ---- */

static void *fill_run(void *arg) {
    struct cube_lazy *l = arg;
    const struct cube *c = l->c;
    l->rc = -1;
    for (int m = 0; m < c->nmetrics; m++) {
        size_t n = (size_t)c->metrics[m].nstats * c->metrics[m].ntargets * (size_t)c->nsteps * (size_t)c->nranks;
        if (!(l->full[m] = malloc((n ? n : 1) * sizeof(float)))) {
            pt_errorf(&l->fill_err, "out of memory for the whole cube");
            atomic_store(&l->done, 1);
            return NULL;
        }
        fill_missing(l->full[m], n);
    }
    l->rc = l->ops->fill_all(l->src, c, l->full, &l->cancel, &l->fill_err);
    atomic_store(&l->done, 1);
    return NULL;
}

int cube_lazy_attach(struct cube *c, const struct cube_source_ops *ops, void *src, uint64_t budget,
                     struct pt_error *err) {
    struct cube_lazy *l = calloc(1, sizeof *l);
    if (!l) {
        ops->free(src);
        return pt_errorf(err, "out of memory");
    }
    l->ops = ops;
    l->src = src;
    l->budget = budget;
    l->c = c;
    /* recent slices: an eighth of the budget, 16 MiB at least */
    l->max_bytes = budget / 8 > (16u << 20) ? (size_t)(budget / 8) : (size_t)16 << 20;
    pthread_mutex_init(&l->mu, NULL);
    atomic_init(&l->cancel, 0);
    atomic_init(&l->done, 0);
    c->lazy = l;
    /* the fill waits for the first slice (cube_lazy_poll): it would
     * otherwise share the cores with the query of the first picture */
    l->want_fill = cube_dense_bytes(c) <= budget && ops->fill_all;
    return 0;
}

/* Starts the background fill; on failure the cube stays by slices. */
static void start_fill(struct cube *c, struct cube_lazy *l) {
    l->want_fill = 0;
    l->full = calloc((size_t)(c->nmetrics ? c->nmetrics : 1), sizeof *l->full);
    if (!l->full) return;
    if (pthread_create(&l->thread, NULL, fill_run, l) != 0) {
        free(l->full);
        l->full = NULL;
        return;
    }
    l->running = 1;
}

static void free_full(struct cube_lazy *l, int nmetrics) {
    if (l->full)
        for (int m = 0; m < nmetrics; m++) free(l->full[m]);
    free(l->full);
    l->full = NULL;
}

/* The fill's blocks become the cube's; the cache goes. */
static void install(struct cube *c, struct cube_lazy *l) {
    pthread_mutex_lock(&l->mu);
    for (int m = 0; m < c->nmetrics; m++) {
        c->metrics[m].vals = l->full[m];
        l->full[m] = NULL;
    }
    free_full(l, c->nmetrics);
    cache_clear(l);
    l->installed = 1;
    pthread_mutex_unlock(&l->mu);
}

int cube_lazy_poll(struct cube *c, char *msg, size_t size) {
    struct cube_lazy *l = c ? c->lazy : NULL;
    if (msg && size) msg[0] = '\0';
    /* an empty cube has no first slice to wait for */
    if (l && l->want_fill && (l->tick > 0 || cube_dense_bytes(c) == 0)) start_fill(c, l);
    if (l && l->error[0]) {   /* a slice that did not load: said once */
        pthread_mutex_lock(&l->mu);
        if (msg) snprintf(msg, size, "%s", l->error);
        l->error[0] = '\0';
        pthread_mutex_unlock(&l->mu);
        return 1;
    }
    if (!l || !l->running || !atomic_load(&l->done)) return 0;
    pthread_join(l->thread, NULL);
    l->running = 0;
    if (l->rc != 0) {
        l->failed = 1;
        free_full(l, c->nmetrics);
        if (msg) snprintf(msg, size, "whole run not loaded, answering by slices: %s", l->fill_err.msg);
        return 1;
    }
    install(c, l);
    size_t missed = l->ops->missed ? l->ops->missed(l->src) : 0;
    if (missed && msg)
        snprintf(msg, size, "%zu row%s of targets the first look at the file did not find: not shown", missed,
                 missed == 1 ? "" : "s");
    return 1;
}

const char *cube_lazy_state(const struct cube *c, char *buf, size_t size) {
    const struct cube_lazy *l = c ? c->lazy : NULL;
    if (!l || l->installed) snprintf(buf, size, "%s", "in memory");
    else if (l->running || l->want_fill) snprintf(buf, size, "%s", "loading the whole run");
    else snprintf(buf, size, "%s", "by slices");
    return buf;
}

int cube_materialize(struct cube *c, struct pt_error *err) {
    struct cube_lazy *l = c->lazy;
    if (!l || l->installed) return 0;
    uint64_t need = cube_dense_bytes(c);
    if (!l->running) {
        if (need > l->budget)
            return pt_errorf(err, "this needs the whole run in memory: %.0f MiB, over the --mem budget of %.0f MiB",
                             (double)need / 1048576.0, (double)l->budget / 1048576.0);
        if (l->failed) return pt_errorf(err, "the whole run did not load: %s", l->fill_err.msg);
        l->full = calloc((size_t)(c->nmetrics ? c->nmetrics : 1), sizeof *l->full);
        if (!l->full) return pt_errorf(err, "out of memory");
        fill_run(l);   /* here, on the caller's thread */
    } else {
        pthread_join(l->thread, NULL);
    }
    l->running = 0;
    if (l->rc != 0) {
        l->failed = 1;
        free_full(l, c->nmetrics);
        return pt_errorf(err, "the whole run did not load: %s", l->fill_err.msg);
    }
    install(c, l);
    return 0;
}

int cube_lazy_changed(const struct cube *c) {
    const struct cube_lazy *l = c ? c->lazy : NULL;
    return l && !l->installed && l->ops->changed && l->ops->changed(l->src);
}

int cube_lazy_notensor(const struct cube *c, size_t *out, struct pt_error *err) {
    const struct cube_lazy *l = c ? c->lazy : NULL;
    *out = 0;
    if (!l || l->installed || !l->ops->notensor) return 0;
    return l->ops->notensor(l->src, c, out, err);
}

void cube_lazy_free(struct cube_lazy *l) {
    if (!l) return;
    int nm = l->c->nmetrics;
    if (l->running) {
        atomic_store(&l->cancel, 1);
        pthread_join(l->thread, NULL);
    }
    free_full(l, nm);
    cache_clear(l);
    free(l->b);
    l->ops->free(l->src);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/* ---- non-finite cells ---- */

int cube_lazy_nonfinite(const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn, void *ctx,
                        struct pt_error *err) {
    struct cube_lazy *l = c->lazy;
    pthread_mutex_lock(&l->mu);
    int rc = l->ops->nonfinite(l->src, c, metric, step, rank, fn, ctx, err);
    pthread_mutex_unlock(&l->mu);
    return rc;
}
