/* pt_cube: one cell of a loaded cube by names, for reader tests. */
#ifndef PT_TEST_CUBE_H
#define PT_TEST_CUBE_H

#include <stdint.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/cube/dataset.h"
#include "model/cube/names.h"

/* The value at (metric, statistic, target with call index, step, rank);
 * -12345 when any of them is not in the cube. */
static inline float pt_cube_value(const struct dataset *ds, const char *metric, const char *stat, const char *target,
                                  int call, int step, int rank) {
    const struct cube *c = ds->cube;
    int m = cube_metric_find(c, metric), s = cube_stat_find(c, m, stat);
    uint32_t t = names_find(c->names, target, strlen(target), 0, call);
    uint32_t lt = cube_local_target(c, m, t);
    int si = cube_step_find(c, step), ri = cube_rank_find(c, rank);
    if (m < 0 || s < 0 || lt == UINT32_MAX || si < 0 || ri < 0) return -12345;
    return cube_get(c, m, s, lt, si, ri);
}

/* The same at a step written as the user writes it ("2": the step's own
 * row, "2.1": its micro step 1; cube_step_parse). */
static inline float pt_cube_at(const struct dataset *ds, const char *metric, const char *stat, const char *target,
                               const char *step, int rank) {
    const struct cube *c = ds->cube;
    int m = cube_metric_find(c, metric), s = cube_stat_find(c, m, stat);
    uint32_t t = names_find(c->names, target, strlen(target), 0, 0);
    uint32_t lt = cube_local_target(c, m, t);
    int si = cube_step_parse(c, step), ri = cube_rank_find(c, rank);
    if (m < 0 || s < 0 || lt == UINT32_MAX || si < 0 || ri < 0) return -12345;
    return cube_get(c, m, s, lt, si, ri);
}

#endif
