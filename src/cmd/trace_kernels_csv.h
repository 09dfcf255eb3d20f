/* trace_kernels_csv: `probetop trace --kernels FILE.csv`, one row per
 * kernel as the trace reader assembles it (load_opts.trace_kernel):
 * rank, step, micro, stream, start_us, dur_us, category, phase, name
 * (probetop(1), TRACE; what Megatron-TraceViz writes as parquet, for
 * pandas or DuckDB).  Written to a temporary file beside FILE and renamed
 * when the load succeeded, so nobody reads half a table. */
#ifndef PT_CMD_TRACE_KERNELS_CSV_H
#define PT_CMD_TRACE_KERNELS_CSV_H

#include <stdio.h>

#include "model/err.h"
#include "model/trace/trace.h"

struct trace_kernels_csv {
    const char *out;   /* FILE */
    char *tmp;         /* the temporary file beside it */
    FILE *f;
    int fd;
    size_t rows;
};

/* Opens the temporary file and writes the header.  0, or -1 with err. */
int trace_kernels_csv_open(struct trace_kernels_csv *k, const char *out, struct pt_error *err);
/* The load_opts.trace_kernel sink (ctx: the struct trace_kernels_csv). */
int trace_kernels_csv_row(void *ctx, const struct trace_kernel_row *row, struct pt_error *err);
/* ok: flushes, syncs and renames it to FILE (0, or -1 with err); else
 * removes it.  Either way the temporary file is gone afterwards. */
int trace_kernels_csv_close(struct trace_kernels_csv *k, int ok, struct pt_error *err);

#endif
