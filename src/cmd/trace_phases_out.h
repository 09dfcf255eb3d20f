/* trace_phases_out: the phases table of `probetop trace` (probetop(1),
 * TRACE; probetop-rules(7), PROFILER TRACES: Phases, Micro-batches): per
 * (step, micro-batch, rank) one row per phase present and one "all" row,
 * each with its compute, communication and memory time (unions), the
 * compute/communication overlap, the span (first start to last end) and
 * the kernels; micro null (CSV: empty)
 * is the step's kernels outside any micro-batch.  And the run's process
 * groups (JSON groups[]). */
#ifndef PT_CMD_TRACE_PHASES_OUT_H
#define PT_CMD_TRACE_PHASES_OUT_H

#include "model/trace/trace.h"

/* JSON: `,\n "phases": [...], "groups": [...], "groups_from": ...` (empty
 * lists when the run has none).  0, or -1 out of memory. */
int trace_phases_out_json(const struct trace_run *run);
/* CSV: the header and the rows; text: the same as columns.  0, or -1 out
 * of memory. */
int trace_phases_out_csv(const struct trace_run *run);
int trace_phases_out_text(const struct trace_run *run);

#endif
