/* rundiff: |problem - benchmark| / |benchmark| per shared cell (rundiff.h). */
#include "model/compare/rundiff.h"

#include <math.h>
#include <stdlib.h>

float rundiff_cell(float p, float b) {
    if (cube_is_missing(p) || cube_is_missing(b)) return cube_missing();
    if (isnan(p) || isnan(b)) return NAN;
    if (isinf(p) || isinf(b)) return p == b ? 0.0f : INFINITY;
    double d = fabs((double)p - (double)b);
    if (d == 0) return 0.0f;
    if (b == 0) return INFINITY;
    double r = d / fabs((double)b);
    return r > 3.0e38 ? 3.0e38f : (float)r;
}

int rundiff_cube(const struct cube *pc, const struct cube *bc, enum label_rules rules, struct cube **out,
                 struct pt_error *err) {
    *out = NULL;
    struct names *nm = names_new();
    if (!nm) return pt_errorf(err, "out of memory");
    struct cube_builder *b = cube_builder_new(nm);
    if (!b) return pt_errorf(err, "out of memory");
    int *bstep = malloc((size_t)(pc->nsteps ? pc->nsteps : 1) * sizeof *bstep);
    int *brank = malloc((size_t)(pc->nranks ? pc->nranks : 1) * sizeof *brank);
    double *vals = malloc(CUBE_MAX_STATS * sizeof *vals);
    int rc = -1, cells = 0;
    if (!bstep || !brank || !vals) { pt_errorf(err, "out of memory"); goto out; }
    for (int s = 0; s < pc->nsteps; s++) {
        bstep[s] = cube_step_find(bc, pc->steps[s].value);
        if (cube_builder_step(b, pc->steps[s].value, pc->steps[s].origin, pc->steps[s].micro) != 0) {
            pt_errorf(err, "out of memory");
            goto out;
        }
    }
    for (int r = 0; r < pc->nranks; r++) {
        brank[r] = cube_rank_find(bc, pc->ranks[r]);
        if (cube_builder_rank(b, pc->ranks[r]) != 0) { pt_errorf(err, "out of memory"); goto out; }
    }
    for (int m = 0; m < pc->nmetrics; m++) {
        const struct cube_metric *pm = &pc->metrics[m];
        int bm = cube_metric_find(bc, pm->name);
        if (bm < 0) continue;
        int sidx[CUBE_MAX_STATS], ns = 0;
        const char *snames[CUBE_MAX_STATS];
        for (int s = 0; s < pm->nstats; s++) {
            int k = cube_stat_find(bc, bm, pm->stats[s]);
            if (k < 0) continue;
            sidx[ns] = k;
            snames[ns++] = pm->stats[s];
        }
        if (!ns) continue;
        int om = cube_builder_metric(b, pm->name, ns, snames);
        if (om < 0) { pt_errorf(err, "out of memory"); goto out; }
        /* the problem metric's stat index of each kept stat */
        int pidx[CUBE_MAX_STATS];
        for (int k = 0; k < ns; k++) pidx[k] = cube_stat_find(pc, m, snames[k]);
        for (uint32_t lt = 0; lt < pm->ntargets; lt++) {
            uint32_t t = pm->targets[lt];
            const struct target *tg = names_target(pc->names, t);
            const char *name = names_str(pc->names, t);
            uint32_t bt = names_find(bc->names, name, tg->len, tg->vpp, tg->call);
            uint32_t blt = bt == NAMES_NONE ? UINT32_MAX : cube_local_target(bc, bm, bt);
            if (blt == UINT32_MAX) continue;
            uint32_t ot = names_intern(nm, name, tg->len, tg->vpp, tg->call);
            if (ot == NAMES_NONE) { pt_errorf(err, "out of memory"); goto out; }
            for (int s = 0; s < pc->nsteps; s++) {
                if (bstep[s] < 0) continue;
                for (int r = 0; r < pc->nranks; r++) {
                    if (brank[r] < 0) continue;
                    uint32_t present = 0;
                    for (int k = 0; k < ns; k++) {
                        float v = rundiff_cell(cube_get(pc, m, pidx[k], lt, s, r),
                                               cube_get(bc, bm, sidx[k], blt, bstep[s], brank[r]));
                        if (cube_is_missing(v)) continue;
                        vals[k] = v;
                        present |= 1u << k;
                    }
                    if (!present) continue;
                    if (cube_builder_add(b, om, ot, pc->steps[s].value, pc->ranks[r], vals, present) != 0) {
                        pt_errorf(err, "out of memory");
                        goto out;
                    }
                    cells++;
                }
            }
        }
    }
    if (!cells) {
        pt_errorf(err, "the two runs share no cell (same metric, target, step and rank)");
        goto out;
    }
    if (names_build_labels(nm, rules) != 0) { pt_errorf(err, "out of memory"); goto out; }
    rc = cube_builder_finish(b, out, err);
out:
    cube_builder_free(b);
    free(bstep);
    free(brank);
    free(vals);
    return rc;
}
