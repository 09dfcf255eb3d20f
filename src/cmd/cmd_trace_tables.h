/* cmd_trace_tables: HTA's other first tables in `probetop trace` (kernel
 * types with their overlaps, top kernels per rank, idle time per stream;
 * probetop-rules(7), PROFILER TRACES), printed as text, CSV or JSON.  The
 * figures are the model's (model/trace/kernels.h, model/trace/idle.h). */
#ifndef PT_CMD_TRACE_TABLES_H
#define PT_CMD_TRACE_TABLES_H

#include <stddef.h>

#include "model/trace/trace.h"

/* Which table `--table` asks for in CSV. */
enum cmd_trace_table { CMD_TRACE_BREAKDOWN, CMD_TRACE_KERNEL_TYPES, CMD_TRACE_TOP_KERNELS, CMD_TRACE_IDLE };

/* "breakdown", "kernel_types", "top_kernels", "idle": its enum, -1 none. */
int cmd_trace_tables_parse(const char *name);
/* The three tables as text, after the breakdown; top: kernels shown per
 * rank before the rest is one `others` row (0: all). */
void cmd_trace_tables_text(const struct trace_run *run, size_t top);
/* One table (not CMD_TRACE_BREAKDOWN) as CSV with its header. */
void cmd_trace_tables_csv(const struct trace_run *run, int table, size_t top);
/* `, "kernel_types": [...], "top_kernels": [...], "idle": [...]` (inside the object). */
void cmd_trace_tables_json(const struct trace_run *run, size_t top);

#endif
