/* trace_cube: a profiled run's figures as the step x rank x target cube
 * (probetop-rules(7), PROFILER TRACES: In the cube), so the heat map, line
 * chart, labels and search work on traces as on any other data.
 *
 * One metric "time" with statistics "us" (union time in microseconds),
 * "pct" (share of the step's kernel time) and "count" (kernels, or idle
 * gaps); targets compute, communication, memory, idle, overlapped,
 * exposed_communication, then <phase>.<category> where Megatron phases
 * were annotated. */
#ifndef PT_TRACE_CUBE_H
#define PT_TRACE_CUBE_H

#include "model/cube/cube.h"
#include "model/err.h"
#include "model/trace/trace.h"

/* The targets' names, in the cube's target order (fixed ones only). */
#define TRACE_TGT_OVERLAPPED "overlapped"
#define TRACE_TGT_EXPOSED "exposed_communication"

/* micro (load_opts.micro_step) and a run with micro-batches: the step axis
 * holds each step ("12", its value the row's index) followed by its
 * micro-batches as micro steps ("12.0", "12.1", ...: probetop-rules(7),
 * PROFILER TRACES: Micro-batches); else the steps, valued by their number.
 * 0, or -1 with err. */
int trace_cube_build(const struct trace_run *run, int micro, struct cube **out, struct pt_error *err);
/* Only the cube's shape, for a command that reads the run itself and never
 * the cube's cells (probetop trace: load_opts.trace_axes_only): the metric, the
 * ranks and the steps (no micro-batch rows), the targets' names interned
 * but no cell, so no target on the metric.  The cells are most of the build's
 * time: about a fifth of a `probetop trace` at 1 GB, one core's work after
 * the parse.  0, or -1 with err. */
int trace_cube_build_axes(const struct trace_run *run, struct cube **out, struct pt_error *err);

#endif
