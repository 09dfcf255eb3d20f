/* The origin search's per-rank work runs on the pool's threads (issue 27
 * point 2; model/overflow/origin_ranks.c): each rank's communication ops,
 * candidates and groups are built apart and joined in rank order.  With
 * PROBETOP_THREADS=1 (everything on the calling thread, in rank order, as
 * before) and =2, 3, 4 the result must be the same to the last field:
 *
 *  - test_results: on tests/gen_origin.py's scenarios and layouts (groups
 *    named by every rank, pipeline and tensor-parallel groups, several
 *    births), origin_find's hits (rank, record, layer, sub-layer) and
 *    hops, one thread against several;
 *  - test_command: `probetop overflow --format json` and the text report
 *    on a 48-rank step, byte for byte, one thread against two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/overflow/origin.h"
#include "pt_test.h"
#include "src/io/dump/ovf_origin.h"
#include "src/io/load.h"

static struct dataset *load(const char *path) {
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    if (load_dataset(path, &lo, &ds, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        return NULL;
    }
    return ds;
}

static int by_rank(const void *a, const void *b) {
    const struct ds_rankdir *x = *(const struct ds_rankdir *const *)a, *y = *(const struct ds_rankdir *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* origin_find on every rank of the step under `threads` threads in all. */
static int find(struct origin_rank *ranks, size_t n, const char *threads, struct origin_result *res) {
    setenv("PROBETOP_THREADS", threads, 1);
    struct pt_error err = {{0}};
    int rc = origin_find(ranks, n, ORIGIN_OVERFLOW, res, &err);
    unsetenv("PROBETOP_THREADS");
    return rc;
}

static int same_result(const struct origin_result *a, const struct origin_result *b) {
    return a->phase == b->phase && a->nhits == b->nhits && a->nhops == b->nhops &&
           (!a->nhits || !memcmp(a->hits, b->hits, a->nhits * sizeof *a->hits)) &&
           (!a->nhops || !memcmp(a->hops, b->hops, a->nhops * sizeof *a->hops));
}

static void check_step(const char *step, size_t *found) {
    struct dataset *ds = load(step);
    CHECK(ds != NULL);
    if (!ds) return;
    size_t n = ds->nrankdirs;
    const struct ds_rankdir **dirs = calloc(n ? n : 1, sizeof *dirs);
    struct origin_rank *ranks = calloc(n ? n : 1, sizeof *ranks);
    struct tree **trees = calloc(n ? n : 1, sizeof *trees);
    uint8_t **flags = calloc(n ? n : 1, sizeof *flags);
    CHECK(dirs && ranks && trees && flags);
    for (size_t i = 0; dirs && i < n; i++) dirs[i] = &ds->rankdirs[i];
    if (dirs) qsort(dirs, n, sizeof *dirs, by_rank);
    int ok = dirs && ranks && trees && flags;
    for (size_t i = 0; ok && i < n; i++) {
        struct pt_error err = {{0}};
        ok = ovf_origin_read_rank(dirs[i], 0, 1, &trees[i], &flags[i], &err) == 0;
        if (ok) ranks[i] = (struct origin_rank){trees[i], flags[i]};
    }
    CHECK(ok);
    struct origin_result one = {0};
    if (ok && find(ranks, n, "1", &one) == 0) {
        *found += one.phase != ORIGIN_NONE;
        static const char *const more[] = {"2", "3", "4"};
        for (size_t k = 0; k < sizeof more / sizeof *more; k++) {
            struct origin_result r = {0};
            CHECK_INT(find(ranks, n, more[k], &r), 0);
            if (!same_result(&one, &r)) {
                fprintf(stderr, "%s: %s threads: phase %d hits %zu hops %zu, one thread: %d %zu %zu\n", step, more[k],
                        (int)r.phase, r.nhits, r.nhops, (int)one.phase, one.nhits, one.nhops);
                CHECK(!"the same result on any number of threads");
            }
            origin_result_free(&r);
        }
    } else CHECK(!"origin_find on one thread");
    origin_result_free(&one);
    for (size_t i = 0; trees && i < n; i++) tree_free(trees[i]);
    for (size_t i = 0; flags && i < n; i++) free(flags[i]);
    free(dirs);
    free(ranks);
    free(trees);
    free(flags);
    dataset_free(ds);
}

static void test_results(void) {
    const char *py = getenv("PT_PYTHON");
    if (!py || !py[0] || access(py, X_OK) != 0) SKIP("no python");
    static const char *const args[] = {"after", "allreduce", "broadcast", "commborn", "compute", "gather", "p2p",
                                       "scatter", "warn", "--ranks 32 --layers 4", "--ranks 16 --tp 2 --pp 8 --born 9",
                                       "--ranks 24 --tp 4 --pp 3 --born 5,20 --layers 3",
                                       "--ranks 12 --tp 3 --pp 2 --born 0,7 --layers 2"};
    size_t found = 0;
    for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
        char name[32], cmd[9000], step[1200];
        snprintf(name, sizeof name, "thr%zu", i);
        const char *dir = pt_tmpdir(name);
        snprintf(step, sizeof step, "%s/step0", dir ? dir : "");
        snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' %s", py, pt_tool("gen_origin.py"), step, args[i]);
        if (!dir || system(cmd) != 0) {
            CHECK(!"gen_origin.py failed");
            continue;
        }
        check_step(step, &found);
    }
    /* every scenario plants a NaN the rules find (clean ones have none) */
    CHECK(found >= sizeof args / sizeof *args - 1);
}

/* The command's output under PROBETOP_THREADS=threads, NULL on failure. */
static char *run(const char *bin, const char *step, const char *threads, const char *format) {
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "PROBETOP_THREADS=%s '%s' overflow '%s' --format %s 2>/dev/null", threads, bin, step,
             format);
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 > cap) {
            char *b = realloc(buf, cap = 2 * cap + 65536);
            if (!b) { free(buf); pclose(p); return NULL; }
            buf = b;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, p);
        if (!got) break;
        len += got;
    }
    pclose(p);
    buf[len] = '\0';
    return buf;
}

static void test_command(void) {
    const char *py = getenv("PT_PYTHON"), *bin = getenv("PT_BIN");
    if (!py || !py[0] || access(py, X_OK) != 0) SKIP("no python");
    if (!bin || !bin[0] || access(bin, X_OK) != 0) SKIP("no probetop binary (PT_BIN)");
    const char *dir = pt_tmpdir("thrcmd");
    char cmd[9000], step[1200];
    snprintf(step, sizeof step, "%s/step0", dir ? dir : "");
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' --ranks 48 --layers 6", py, pt_tool("gen_origin.py"), step);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return;
    }
    static const char *const formats[] = {"json", "text"};
    for (size_t f = 0; f < 2; f++) {
        char *a = run(bin, step, "1", formats[f]), *b = run(bin, step, "2", formats[f]);
        CHECK(a && b);
        if (a && b) {
            CHECK(strlen(a) > 1000);
            CHECK(!strcmp(a, b));
            /* gen_origin.py plants it on rank (n / 2) & ~1 */
            CHECK_CONTAINS(a, f ? "born on rank 24" : "\"rank\": 24");
        }
        free(a);
        free(b);
    }
}

int main(void) {
    RUN(test_results);
    RUN(test_command);
    PT_DONE();
}
