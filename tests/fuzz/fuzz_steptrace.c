/* fuzz_steptrace: one Ascend step time CSV through steptrace_parse (the
 * part of src/io/ascend/read_steptrace.c that reads a file's bytes), as a per-rank
 * step_trace_time.csv when the first byte is even, as msprof-analyze's
 * cluster_step_trace_time.csv when it is odd. */
#include "fuzz.h"

#include "src/io/load.h"
#include "src/io/ascend/read_steptrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    int cluster = data[0] & 1;
    struct dataset *ds = calloc(1, sizeof *ds);
    struct steptrace_rows rows = {0};
    if (!ds) abort();
    char *buf = fuzz_strdup(data + 1, size - 1);   /* NUL-terminated, as json_read_file gives it */
    long n = steptrace_parse(buf, size - 1, "fuzz/step_trace_time.csv", cluster, 3, ds, &rows);
    if (n < 0 || (size_t)n != rows.n) abort();
    for (size_t i = 0; i < rows.n; i++)
        if (rows.v[i].present >> STEPTRACE_NCOLS || (cluster && rows.v[i].rank < 0)) abort();
    free(buf);
    steptrace_rows_free(&rows);
    dataset_free(ds);
    return 0;
}
