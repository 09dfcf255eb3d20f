/* curves_cube: a run's curves as the step x rank x target cube, so the
 * heat map, line chart, search and `info` work on a training log as on
 * any other data: one metric "curve" with the statistic "value", one
 * target per series (its source's name), rank 0, the training steps. */
#ifndef PT_CURVES_CUBE_H
#define PT_CURVES_CUBE_H

#include "model/cube/cube.h"
#include "model/curves/curves.h"
#include "model/err.h"

/* c finished (curves_finish).  Steps outside the cube's 32-bit range are
 * left out, and past CUBE_MAX_STEPS distinct steps only every k-th is kept
 * (k the smallest that fits: the heat map's view of a 10 M-step run; the
 * curves keep every point); the points left out are counted in *dropped
 * (may be NULL).  0, or -1 with err. */
int curves_cube_build(const struct curves *c, struct cube **out, size_t *dropped, struct pt_error *err);

#endif
