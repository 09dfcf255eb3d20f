/* fuzz_trace: a profiler trace (src/io/trace/read_trace.c, trace_parse.c) on a file
 * holding the input (plain, or gzip when it starts with gzip's magic):
 * streamed in pieces of 4 KiB, so tokens cross piece boundaries, then loaded
 * whole (ranks, steps, windows, figures, the cube). */
#include "fuzz.h"

#include "model/trace/trace.h"
#include "src/io/load.h"
#include "src/io/formats.h"
#include "src/io/trace/trace_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[1024];
    struct pt_error err;
    fuzz_write("t.json", data, size);
    fuzz_path(path, sizeof path, "t.json");
    struct trace_parse_names nm;
    struct trace_parse_file f;
    memset(&nm, 0, sizeof nm);
    memset(&f, 0, sizeof f);
    (void)trace_parse(path, &nm, 4096, NULL, &f, &err);
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
    struct load_opts lo;
    struct dataset *ds;
    load_opts_init(&lo);
    lo.format = formats_find("trace");
    if (load_dataset(path, &lo, &ds, &err) == 0) {
        struct trace_straggler *g;
        size_t ng;
        if (trace_stragglers(ds->trace, &g, &ng) == 0) free(g);
        dataset_free(ds);
    }
    return 0;
}
