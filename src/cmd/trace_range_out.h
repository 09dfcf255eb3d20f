/* trace_range_out: `probetop trace --from US --to US [--step N]`
 * (probetop(1), TRACE): a time range of one step across every rank, as the
 * lane view's range selection gives it (model/trace/range.h): rank-time
 * per category (compute, communication, memory, idle) and per phase and
 * category.  Times are microseconds from the step's start on one clock:
 * the earliest rank's start of the step, the 0 of the lane view's axis. */
#ifndef PT_CMD_TRACE_RANGE_OUT_H
#define PT_CMD_TRACE_RANGE_OUT_H

#include "model/trace/trace.h"

/* Prints the range in fmt 0 text, 1 csv, 2 json.  step < 0: the run's
 * first step.  0, or -1 (a message on stderr) when the run has no such
 * step or no memory. */
int trace_range_out(const struct trace_run *run, int fmt, int has_step, int32_t step, double from_us, double to_us);

#endif
