/* curves_cube: a run's series into a cube (see curves_cube.h). */
#include "model/curves/curves_cube.h"

#include <stdint.h>
#include <string.h>

#include "model/cube/names.h"

int curves_cube_build(const struct curves *c, struct cube **out, size_t *dropped, struct pt_error *err) {
    static const char *const stats[] = {"value"};
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) return pt_errorf(err, "out of memory");
    size_t left_out = 0;
    int rc = -1;
    if (cube_builder_metric(b, "curve", 1, stats) != 0 || cube_builder_rank(b, 0) != 0) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < c->nseries; i++) {
        const struct curves_series *s = &c->series[i];
        uint32_t tgt = names_intern(nm, s->name, strlen(s->name), 0, 0);
        if (tgt == NAMES_NONE) {
            pt_errorf(err, "out of memory");
            goto out;
        }
        for (size_t k = 0; k < s->n; k++) {
            int64_t step = s->pts[k].step;
            if (step < 0 || step > INT32_MAX) {
                left_out++;
                continue;
            }
            double v = s->pts[k].value;
            if (cube_builder_step(b, (int32_t)step, (int32_t)step, -1) != 0 ||
                cube_builder_add(b, 0, tgt, (int32_t)step, 0, &v, 1u) != 0) {
                pt_errorf(err, "out of memory");
                goto out;
            }
        }
    }
    rc = cube_builder_finish(b, out, err);
out:
    cube_builder_free(b);
    if (dropped) *dropped = left_out;
    return rc;
}
