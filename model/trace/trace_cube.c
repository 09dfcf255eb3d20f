/* trace_cube: the run's per-(step, rank) breakdown into a cube (see
 * trace_cube.h). */
#include "model/trace/trace_cube.h"

#include <stdio.h>
#include <string.h>

#include "model/cube/names.h"

/* One cell: union time, share of the step's kernel time, count. */
static int add(struct cube_builder *b, uint32_t tgt, int32_t step, int32_t rank, int64_t ns, int64_t kernel_ns,
               uint32_t count, int has_count) {
    double v[3] = {(double)ns / 1000.0, kernel_ns > 0 ? 100.0 * (double)ns / (double)kernel_ns : 0.0, (double)count};
    return cube_builder_add(b, 0, tgt, step, rank, v, has_count ? 7u : 3u);
}

int trace_cube_build(const struct trace_run *run, struct cube **out, struct pt_error *err) {
    static const char *const stats[] = {"us", "pct", "count"};
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) {
        if (!nm) return pt_errorf(err, "out of memory");
        return pt_errorf(err, "out of memory");
    }
    int rc = -1;
    uint32_t fixed[6];
    const char *fixed_names[6] = {"compute", "communication", "memory", "idle", TRACE_TGT_OVERLAPPED, TRACE_TGT_EXPOSED};
    uint32_t phase_tgt[TRACE_NPHASES][TRACE_IDLE];
    if (cube_builder_metric(b, "time", 3, stats) != 0) { pt_errorf(err, "out of memory"); goto out; }
    for (int i = 0; i < 6; i++)
        if ((fixed[i] = names_intern(nm, fixed_names[i], strlen(fixed_names[i]), 0, 0)) == NAMES_NONE) {
            pt_errorf(err, "out of memory");
            goto out;
        }
    /* phase targets, in phase then category order, only those some step has */
    for (int p = 0; p < TRACE_NPHASES; p++)
        for (int c = 0; c < TRACE_IDLE; c++) {
            phase_tgt[p][c] = NAMES_NONE;
            if (p == TRACE_PH_NONE) continue;
            int any = 0;
            for (int r = 0; r < run->nranks && !any; r++)
                for (int s = 0; s < run->ranks[r].nsteps && !any; s++) any = run->ranks[r].steps[s].stats.phase_count[p][c] > 0;
            if (!any) continue;
            char name[64];
            int l = snprintf(name, sizeof name, "%s.%s", trace_phase_name(p), trace_cat_name(c));
            if ((phase_tgt[p][c] = names_intern(nm, name, (size_t)l, 0, 0)) == NAMES_NONE) {
                pt_errorf(err, "out of memory");
                goto out;
            }
        }
    for (int r = 0; r < run->nranks; r++) {
        const struct trace_rank *tr = &run->ranks[r];
        if (cube_builder_rank(b, tr->rank) != 0) { pt_errorf(err, "out of memory"); goto out; }
        for (int s = 0; s < tr->nsteps; s++) {
            const struct trace_step *st = &tr->steps[s];
            const struct trace_stats *x = &st->stats;
            int32_t step = st->step, rank = tr->rank;
            int64_t k = x->kernel_ns;
            if (cube_builder_step(b, step, step, -1) != 0) { pt_errorf(err, "out of memory"); goto out; }
            int bad = 0;
            for (int c = 0; c < TRACE_NCATS; c++) bad |= add(b, fixed[c], step, rank, x->cat_ns[c], k, x->count[c], 1);
            bad |= add(b, fixed[4], step, rank, x->overlap_ns, k, 0, 0);
            bad |= add(b, fixed[5], step, rank, x->cat_ns[TRACE_COMM] - x->overlap_ns, k, 0, 0);
            for (int p = 1; p < TRACE_NPHASES; p++)
                for (int c = 0; c < TRACE_IDLE; c++)
                    if (phase_tgt[p][c] != NAMES_NONE)
                        bad |= add(b, phase_tgt[p][c], step, rank, x->phase_ns[p][c], k, x->phase_count[p][c], 1);
            if (bad) { pt_errorf(err, "out of memory"); goto out; }
        }
    }
    rc = cube_builder_finish(b, out, err);
out:
    cube_builder_free(b);
    return rc;
}
