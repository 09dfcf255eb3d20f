/* curves_cube: a run's series into a cube (see curves_cube.h). */
#include "model/curves/curves_cube.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/names.h"

int curves_cube_build(const struct curves *c, struct cube **out, size_t *dropped, struct pt_error *err) {
    static const char *const stats[] = {"value"};
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) return pt_errorf(err, "out of memory");
    size_t left_out = 0, *cur = NULL;
    uint32_t *tgt = NULL;
    int rc = -1;
    /* a run longer than the cube holds (a 1 GB log has millions of
     * iterations): every stride-th step of it (the curves keep them all) */
    int64_t stride = 1;
    if (c->last_step >= c->first_step && c->last_step - c->first_step >= CUBE_MAX_STEPS)
        stride = (c->last_step - c->first_step) / CUBE_MAX_STEPS + 1;
    if (cube_builder_metric(b, "curve", 1, stats) != 0 || cube_builder_rank(b, 0) != 0) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    tgt = malloc((c->nseries ? c->nseries : 1) * sizeof *tgt);
    cur = calloc(c->nseries ? c->nseries : 1, sizeof *cur);
    if (!tgt || !cur) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < c->nseries; i++) {
        tgt[i] = names_intern(nm, c->series[i].name, strlen(c->series[i].name), 0, 0);
        if (tgt[i] == NAMES_NONE) {
            pt_errorf(err, "out of memory");
            goto out;
        }
    }
    /* Step by step across the series (each sorted), so that the builder
     * meets each step once in a run rather than once per series (its sort
     * of the steps is then of the distinct ones); series by series when
     * there are too many for a merge by scanning. */
    int merge = c->nseries <= 64;
    for (size_t i = 0; i < c->nseries; i++) {
        const struct curves_series *s = &c->series[i];
        int64_t next = INT64_MIN;
        for (;;) {
            size_t who = i;
            if (merge) {   /* the series whose next point has the least step, the first of equals */
                who = SIZE_MAX;
                for (size_t j = 0; j < c->nseries; j++)
                    if (cur[j] < c->series[j].n && (who == SIZE_MAX || c->series[j].pts[cur[j]].step < next))
                        who = j, next = c->series[j].pts[cur[j]].step;
                if (who == SIZE_MAX) break;
            } else if (cur[i] >= s->n) {
                break;
            }
            const struct curves_point *pt = &c->series[who].pts[cur[who]++];
            int64_t step = pt->step;
            if (step < 0 || step > INT32_MAX || (step - c->first_step) % stride) {
                left_out++;
                continue;
            }
            double v = pt->value;
            /* (no cube_builder_step: a step's origin is itself, and it
             * would count a step once per series against CUBE_MAX_STEPS) */
            if (cube_builder_add(b, 0, tgt[who], (int32_t)step, 0, &v, 1u) != 0) {
                pt_errorf(err, "out of memory");
                goto out;
            }
        }
        if (merge) break;
    }
    rc = cube_builder_finish(b, out, err);
out:
    free(tgt);
    free(cur);
    cube_builder_free(b);
    if (dropped) *dropped = left_out;
    return rc;
}
