/* runpair_cube: the difference of two runs of trend data as a lazy cube
 * (runpair.h, runpair_diff_cube): a block of the difference is computed
 * from the two runs' blocks when a pane asks, so two .trend.db files read
 * by slices are compared by slices too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/rundiff.h"
#include "model/compare/runpair.h"
#include "model/cube/cube_lazy.h"

struct dsrc {
    const struct runpair *rp;
};

/* The two runs' slices of diff metric m (= pair metric m), statistic k,
 * cut along dim at the pair's value v (a shared step or rank index, or a
 * local target of the metric). */
static int two_slices(const struct runpair *rp, int m, int k, enum cube_dim dim, int v, struct cube_slice *ps,
                      struct cube_slice *bs, struct pt_error *err) {
    const struct runpair_metric *pm = &rp->m[m];
    int pv = dim == DIM_STEP ? rp->pstep[v] : dim == DIM_RANK ? rp->prank[v] : (int)pm->plt[v];
    int bv = dim == DIM_STEP ? rp->bstep[v] : dim == DIM_RANK ? rp->brank[v] : (int)pm->blt[v];
    if (cube_slice(rp->p, pm->p, pm->pstat[k], dim, pv, ps) != 0)
        return pt_errorf(err, "a slice of the problem run's %s did not load", rp->p->metrics[pm->p].name);
    if (cube_slice(rp->b, pm->b, pm->bstat[k], dim, bv, bs) != 0)
        return pt_errorf(err, "a slice of the benchmark's %s did not load", rp->b->metrics[pm->b].name);
    return 0;
}

static int fill_block(void *src, const struct cube *c, enum cube_dim dim, int value, int metric, float *out,
                      struct pt_error *err) {
    const struct runpair *rp = ((struct dsrc *)src)->rp;
    const struct runpair_metric *pm = &rp->m[metric];
    size_t nt = pm->ntargets;
    if (dim == DIM_TARGET) {
        uint32_t lt = cube_local_target(c, metric, (uint32_t)value);
        if (lt == UINT32_MAX) return 0;
        for (int k = 0; k < pm->nstats; k++) {
            struct cube_slice ps, bs;
            if (two_slices(rp, metric, k, DIM_TARGET, (int)lt, &ps, &bs, err) != 0) return -1;
            float *o = out + (size_t)k * (size_t)c->nsteps * (size_t)c->nranks;
            for (int s = 0; s < c->nsteps; s++)
                for (int r = 0; r < c->nranks; r++)
                    o[(size_t)s * (size_t)c->nranks + (size_t)r] =
                        rundiff_cell(cube_slice_at(&ps, rp->pstep[s], rp->prank[r]), cube_slice_at(&bs, rp->bstep[s], rp->brank[r]));
        }
        return 0;
    }
    /* DIM_STEP: [stat][lt][rank] from slices x = rank; DIM_RANK: [stat][lt][step] from slices x = step */
    int nx = dim == DIM_STEP ? c->nranks : c->nsteps;
    const int *px = dim == DIM_STEP ? rp->prank : rp->pstep, *bx = dim == DIM_STEP ? rp->brank : rp->bstep;
    for (int k = 0; k < pm->nstats; k++) {
        struct cube_slice ps, bs;
        if (two_slices(rp, metric, k, dim, value, &ps, &bs, err) != 0) return -1;
        for (size_t t = 0; t < nt; t++) {
            float *o = out + ((size_t)k * nt + t) * (size_t)nx;
            for (int x = 0; x < nx; x++)
                o[x] = rundiff_cell(cube_slice_at(&ps, px[x], (int)pm->plt[t]), cube_slice_at(&bs, bx[x], (int)pm->blt[t]));
        }
    }
    return 0;
}

static int fill_cell(void *src, const struct cube *c, int metric, uint32_t lt, int step, int rank, float *vals,
                     struct pt_error *err) {
    const struct runpair *rp = ((struct dsrc *)src)->rp;
    const struct runpair_metric *pm = &rp->m[metric];
    (void)c, (void)err;
    for (int k = 0; k < pm->nstats; k++)
        vals[k] = rundiff_cell(cube_get(rp->p, pm->p, pm->pstat[k], pm->plt[lt], rp->pstep[step], rp->prank[rank]),
                               cube_get(rp->b, pm->b, pm->bstat[k], pm->blt[lt], rp->bstep[step], rp->brank[rank]));
    return 0;
}

/* Non-finite cells of the difference (a NaN or Inf on either side, x/0):
 * computed a step block at a time; the overflow scans read datasets, not
 * this cube, so this is rarely asked. */
static int nonfinite(void *src, const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn, void *ctx,
                     struct pt_error *err) {
    int m0 = metric < 0 ? 0 : metric, m1 = metric < 0 ? c->nmetrics : metric + 1;
    int s0 = step < 0 ? 0 : step, s1 = step < 0 ? c->nsteps : step + 1;
    int r0 = rank < 0 ? 0 : rank, r1 = rank < 0 ? c->nranks : rank + 1;
    for (int m = m0; m < m1; m++) {
        const struct cube_metric *cm = &c->metrics[m];
        size_t per = (size_t)cm->ntargets * (size_t)c->nranks;
        float *blk = malloc((per * (size_t)cm->nstats + 1) * sizeof *blk);
        if (!blk) return pt_errorf(err, "out of memory");
        for (int s = s0; s < s1; s++) {
            if (fill_block(src, c, DIM_STEP, s, m, blk, err) != 0) { free(blk); return -1; }
            for (uint32_t t = 0; t < cm->ntargets; t++)
                for (int r = r0; r < r1; r++) {
                    float v[CUBE_MAX_STATS];
                    int any = 0;
                    for (int k = 0; k < cm->nstats; k++) {
                        v[k] = blk[(size_t)k * per + (size_t)t * (size_t)c->nranks + (size_t)r];
                        any |= !isfinite(v[k]) && !cube_is_missing(v[k]);
                    }
                    if (any && fn(ctx, m, t, s, r, v) != 0) { free(blk); return 0; }
                }
        }
        free(blk);
    }
    return 0;
}

/* The dense cube, a step block at a time.  Only cube_materialize() asks it,
 * on the owning thread: nothing polls a difference cube (cube_lazy_poll),
 * so no background fill reads the runs' slices beside the panes. */
static int fill_all(void *src, const struct cube *c, float *const *vals, atomic_int *cancel, struct pt_error *err) {
    for (int m = 0; m < c->nmetrics; m++) {
        const struct cube_metric *cm = &c->metrics[m];
        size_t nr = (size_t)c->nranks, per = (size_t)cm->ntargets * nr;
        float *blk = malloc((per * (size_t)cm->nstats + 1) * sizeof *blk);
        if (!blk) return pt_errorf(err, "out of memory");
        for (int s = 0; s < c->nsteps; s++) {
            if (atomic_load(cancel)) { free(blk); return pt_errorf(err, "cancelled"); }
            if (fill_block(src, c, DIM_STEP, s, m, blk, err) != 0) { free(blk); return -1; }
            for (int k = 0; k < cm->nstats; k++)
                for (uint32_t t = 0; t < cm->ntargets; t++)
                    memcpy(vals[m] + cube_index(c, cm, k, t, s, 0), blk + (size_t)k * per + (size_t)t * nr, nr * sizeof *blk);
        }
        free(blk);
    }
    return 0;
}

static int changed(void *src) {
    const struct runpair *rp = ((struct dsrc *)src)->rp;
    return cube_lazy_changed(rp->p) || cube_lazy_changed(rp->b);
}

static void dsrc_free(void *src) { free(src); }

static const struct cube_source_ops diff_ops = {
    .fill_block = fill_block,
    .fill_cell = fill_cell,
    .fill_all = fill_all,
    .nonfinite = nonfinite,
    .changed = changed,
    .free = dsrc_free,
};

int runpair_diff_cube(const struct runpair *rp, enum label_rules rules, uint64_t budget, struct cube **out,
                      struct pt_error *err) {
    *out = NULL;
    struct cube *c = calloc(1, sizeof *c);
    if (!c) return pt_errorf(err, "out of memory");
    c->names = names_new();
    c->steps = malloc((size_t)rp->nsteps * sizeof *c->steps);
    c->ranks = malloc((size_t)rp->nranks * sizeof *c->ranks);
    c->metrics = calloc((size_t)rp->nmetrics, sizeof *c->metrics);
    if (!c->names || !c->steps || !c->ranks || !c->metrics) goto oom;
    /* the pair's names, interned in their order: the same ids */
    for (uint32_t t = 0; t < names_count(rp->names); t++) {
        const struct target *tg = names_target(rp->names, t);
        if (names_intern(c->names, names_str(rp->names, t), tg->len, tg->vpp, tg->call) != t) goto oom;
    }
    if (names_build_labels(c->names, rules) != 0) goto oom;
    c->nsteps = rp->nsteps;
    for (int s = 0; s < rp->nsteps; s++) c->steps[s] = rp->p->steps[rp->pstep[s]];
    c->nranks = rp->nranks;
    for (int r = 0; r < rp->nranks; r++) c->ranks[r] = rp->p->ranks[rp->prank[r]];
    for (int m = 0; m < rp->nmetrics; m++) {
        const struct runpair_metric *pm = &rp->m[m];
        struct cube_metric *cm = &c->metrics[m];
        c->nmetrics = m + 1;
        cm->name = strdup(rp->p->metrics[pm->p].name);
        if (!cm->name) goto oom;
        for (int k = 0; k < pm->nstats; k++) {
            cm->stats[k] = strdup(rp->p->metrics[pm->p].stats[pm->pstat[k]]);
            if (!cm->stats[k]) goto oom;
            cm->nstats = k + 1;
        }
        cm->targets = malloc(((size_t)pm->ntargets + 1) * sizeof *cm->targets);
        if (!cm->targets) goto oom;
        memcpy(cm->targets, pm->targets, (size_t)pm->ntargets * sizeof *cm->targets);
        cm->ntargets = pm->ntargets;
    }
    struct dsrc *src = calloc(1, sizeof *src);
    if (!src) goto oom;
    src->rp = rp;
    if (cube_lazy_attach(c, &diff_ops, src, budget, err) != 0) {
        cube_free(c);
        return -1;
    }
    *out = c;
    return 0;
oom:
    cube_free(c);
    return pt_errorf(err, "out of memory");
}
