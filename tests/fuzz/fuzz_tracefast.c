/* fuzz_tracefast: the trace reader's fast event path (src/io/trace/trace_fast.c)
 * against the tokenizer path on every input (tests/pt_tracefast.h): the
 * same events, names, groups, steps, counters and the same message, read
 * through the default 4 MiB buffer (whole objects: the fast path) and in
 * pieces of 4 KiB (objects cut by the buffer: the fallback); and in one
 * pass against split on two threads at the guessed middle boundary
 * (src/io/trace/trace_split.c: a boundary in a string or an object must
 * not be taken, halves merge as one pass reads).  A difference aborts.  Seeds: tests/fuzz/seeds/tracefast (the trace seeds and events
 * in the shapes the fast path gives up on). */
#include "fuzz.h"

#include "tests/pt_tracefast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[1024], why[512];
    fuzz_write("t.json", data, size);
    fuzz_path(path, sizeof path, "t.json");
    static const size_t max[] = {TRACE_PARSE_MAX_VALUE, 4096};
    for (int i = 0; i < 2; i++)
        if (!pt_tracefast_same(path, max[i], why, sizeof why)) {
            fprintf(stderr, "fuzz_tracefast: the fast path differs (buffer limit %zu): %s\n", max[i], why);
            abort();
        }
    int merged;
    for (int i = 0; i < 2; i++)
        if (!pt_tracesplit_same(path, max[i], &merged, why, sizeof why)) {
            fprintf(stderr, "fuzz_tracefast: split on two threads differs (buffer limit %zu): %s\n", max[i], why);
            abort();
        }
    return 0;
}
