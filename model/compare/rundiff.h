/* rundiff: the divergence heat map's derived cube (probetop(1),
 * COMPARE MODE): for every cell the problem and benchmark cubes share,
 * |problem - benchmark| / |benchmark|.
 *
 * Cells are matched by metric name, statistic name, target (name, vpp,
 * call), step value and rank; a cell missing on either side stays missing.
 * 0/0 is 0 (both runs agree on zero); x/0 with x != 0 is +Inf; NaN or Inf
 * on either side gives NaN / Inf, so the overflow colours still show them.
 * The result owns its own names (labels derived with the given rules). */
#ifndef PT_RUNDIFF_H
#define PT_RUNDIFF_H

#include "model/cube/cube.h"
#include "model/err.h"

/* The relative difference of one cell (the rule above); missing when
 * either side is missing. */
float rundiff_cell(float problem, float bench);

int rundiff_cube(const struct cube *problem, const struct cube *bench, enum label_rules rules, struct cube **out,
                 struct pt_error *err);

#endif
