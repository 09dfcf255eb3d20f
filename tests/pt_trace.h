/* pt_trace.h: a profiler trace loaded or generated (tests/gen_trace.py) and
 * the figures of its ranks, for the trace tests (test_trace.c,
 * test_trace_hostile.c).  Include after pt_test.h. */
#ifndef PT_TEST_TRACE_H
#define PT_TEST_TRACE_H

#include "model/trace/trace.h"
#include "src/io/formats.h"
#include "src/io/load.h"

/* The profiler trace(s) at path loaded; NULL with the reason in err. */
static inline struct dataset *load(const char *path, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    lo.format = formats_find("trace");
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

/* The figures of rank r, or NULL when the run has no such rank. */
static inline const struct trace_rank *rank_of(const struct dataset *ds, int32_t r) {
    for (int i = 0; ds->trace && i < ds->trace->nranks; i++)
        if (ds->trace->ranks[i].rank == r) return &ds->trace->ranks[i];
    return NULL;
}

/* The rows of the cube's step axis that are whole steps (not micro-batches). */
static inline int whole_steps(const struct dataset *ds) {
    int n = 0;
    for (int i = 0; ds->cube && i < ds->cube->nsteps; i++) n += ds->cube->steps[i].micro < 0;
    return n;
}

/* tests/gen_trace.py into dir with args; 0, or -1 when Python or the
 * generator is absent or it failed. */
static inline int gen(const char *dir, const char *args) {
    const char *py = getenv("PT_PYTHON"), *g = pt_tool("gen_trace.py");
    char cmd[9000];
    if (!py || !*py || !g) return -1;
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' %s", py, g, dir, args);
    return system(cmd) == 0 ? 0 : -1;
}

/* dir/<name> generated with args and loaded; NULL (checked) on failure. */
static inline struct dataset *gen_load(const char *name, const char *args, char *path, size_t n) {
    const char *dir = pt_tmpdir(name);
    if (!dir || gen(dir, args) != 0) {
        CHECK(!"gen_trace.py failed");
        return NULL;
    }
    snprintf(path, n, "%s", dir);
    struct pt_error err;
    struct dataset *ds = load(dir, &err);
    if (!ds) fprintf(stderr, "%s\n", err.msg);
    CHECK(ds != NULL);
    return ds;
}

/* Figures of every rank, for comparing encodings of the same run. */
static inline void totals(const struct dataset *ds, int64_t *v, int n) {
    for (int i = 0; i < n; i++) {
        const struct trace_rank *r = rank_of(ds, i);
        v[i * 4] = r ? r->total.idle_ns : -1;
        v[i * 4 + 1] = r ? r->total.cat_ns[TRACE_COMPUTE] : -1;
        v[i * 4 + 2] = r ? r->total.kernel_ns : -1;
        v[i * 4 + 3] = r ? r->total.overlap_ns : -1;
    }
}

#endif
