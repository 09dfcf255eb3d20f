/* fuzz_shard: one trace shard file (probetop-formats(5), TRACE SHARDS)
 * through shard_json_parse (src/io/trace/shard_json.c, what the shard
 * reader does with a file's bytes); a run that parses is joined with a
 * second copy of itself (every rank doubled: tshard_join's duplicate
 * path), made a cube, and written back as a shard. */
#include "fuzz.h"

#include "model/cube/cube.h"
#include "model/trace/trace_cube.h"
#include "model/trace/tshard.h"
#include "src/io/trace/shard_json.h"

static void no_warn(void *ctx, const char *msg) { (void)ctx, (void)msg; }
static void no_dup(void *ctx, int part, int first, int32_t rank) { (void)ctx, (void)part, (void)first, (void)rank; }

static void check(const struct trace_run *run) {
    for (int r = 0; r < run->nranks; r++) {
        const struct trace_rank *tr = &run->ranks[r];
        for (int s = 0; s < tr->nsteps; s++)
            if (tr->steps[s].first > tr->nsegs || tr->steps[s].nsegs > tr->nsegs - tr->steps[s].first) abort();
        for (size_t i = 0; i < tr->nsegs; i++)
            if (tr->segs[i].name >= run->nnames || tr->segs[i].cat >= TRACE_IDLE) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *buf = fuzz_strdup(data, size);   /* NUL-terminated, as json_read_file gives it */
    struct trace_run *a = NULL, *b = NULL, *j = NULL;
    struct shard_json_info info;
    struct pt_error err;
    if (shard_json_parse(buf, size, "fuzz/trace.shard-1-of-1.json", &a, &info, no_warn, NULL, &err) == 0) {
        check(a);
        if (info.k < 1 || info.k > info.n) abort();
        if (shard_json_parse(buf, size, "fuzz", &b, &info, no_warn, NULL, &err) != 0) abort();   /* the same bytes again */
        struct trace_run *parts[2] = {a, b};
        if (tshard_join(parts, 2, &j, no_dup, NULL, &err) == 0) {
            check(j);
            struct cube *c = NULL;
            if (trace_cube_build(j, 1, &c, &err) == 0) cube_free(c);
            FILE *f = fopen("/dev/null", "w");
            if (f) {
                shard_json_write(f, j, &info, NULL, 0);
                fclose(f);
            }
            trace_run_free(j);
        }
    }
    free(buf);
    return 0;
}
