/* demo: the built-in demo data (`probetop --demo`), made in memory.
 *
 * A small Megatron-style GPT (8 decoder layers, names after msProbe's
 * trend naming: module inputs/outputs, Functional.linear and
 * Tensor.__add__ calls, parameter gradients), 16 steps x 8 ranks, metrics
 * forward / backward / parameters_grad with statistics norm, max, min,
 * mean.  Two things are planted for a newcomer to find:
 *   - a NaN burst: at step DEMO_BURST_STEP on rank DEMO_BURST_RANK the
 *     forward output of DEMO_BURST_TARGET overflows (norm and max +Inf,
 *     min -Inf, mean NaN); everything after it in execution order is NaN,
 *     the backward pass of that step too, and it spreads to earlier layers
 *     on later steps and to the rank's tensor-parallel peer, then to all
 *     ranks, as a NaN does through the optimizer and all-reduce;
 *   - a drift: the norm of DEMO_DRIFT_TARGET grows with the step on every
 *     rank (x5.5 by the last step) while its neighbours stay flat.
 * Values are deterministic (a fixed hash, no clock, no rand()).
 *
 * demo_cube_big() makes the benchmark scale (e.g. 1024 ranks x 5000
 * targets): the same layer pattern repeated, 4 steps, metric forward with
 * statistic norm only, laid out directly (the row builder would need
 * several times the memory). */
#ifndef PT_DEMO_H
#define PT_DEMO_H

#include "model/cube/cube.h"
#include "model/err.h"

#define DEMO_STEPS 16
#define DEMO_RANKS 8
#define DEMO_LAYERS 8

/* A fixed 64-bit mix (splitmix64 finaliser): noise in [-1, 1] that depends
 * only on its arguments; every demo's values are made with it. */
double demo_noise(uint64_t a, uint64_t b, uint64_t c, uint64_t d);
#define DEMO_BURST_STEP 9
#define DEMO_BURST_RANK 5
#define DEMO_BURST_TARGET "Module.module.module.decoder.layers.5.mlp.linear_fc2.RowParallelLinear.output.0"
#define DEMO_DRIFT_TARGET "Module.module.module.decoder.layers.2.self_attention.linear_proj.RowParallelLinear.output.0"

/* The small demo.  0 ok, -1 with err (out of memory). */
int demo_cube(struct cube **out, struct pt_error *err);
/* ranks >= 1, targets >= 1, both at most 100000. */
int demo_cube_big(int ranks, int targets, struct cube **out, struct pt_error *err);

#endif
