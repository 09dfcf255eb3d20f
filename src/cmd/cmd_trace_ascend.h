/* cmd_trace_ascend: `probetop trace` on Ascend step time tables (torch_npu's
 * step_trace_time.csv, msprof-analyze's cluster_step_trace_time.csv;
 * probetop-formats(5), ASCEND STEP TIME CSV): what they hold of the
 * breakdown (computing, communication not overlapped, overlapped, free,
 * stage, bubble, ...) per rank and per (step, rank), and each step's
 * straggler, as text, CSV or JSON.  A torch_npu trace_view.json is a
 * profiler trace and goes the trace's way. */
#ifndef PT_CMD_TRACE_ASCEND_H
#define PT_CMD_TRACE_ASCEND_H

#include <stdint.h>

/* 1 when path opens as a step time table (detected, not forced). */
int cmd_trace_ascend_is(const char *path);
/* Loads path as a step time table and prints it; format 0 text, 1 csv,
 * 2 json.  The command's exit code. */
int cmd_trace_ascend(const char *path, int format, int per_step, uint64_t mem);

#endif
