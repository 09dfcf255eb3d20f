/* bench_origin: the origin figure (tests/bench/origin_scale.sh runs it over
 * 64 to 1024 ranks).
 *
 *   bench_origin STEP_DIR [REPS]
 *
 * STEP_DIR holds rank0..rankN-1 folders (tests/gen_origin.py --ranks N: a
 * NaN born on one rank, carried by all_reduce, send/recv and broadcast).
 * Times reading every rank's dump.json (records and params), the flag pass
 * (msProbe's Max/Min test) and the origin rules over all ranks (best of
 * REPS, default 5), and prints the origin found, so the figure is
 * checked as it is measured.  With PT_BIN set, also the whole `probetop
 * overflow STEP_DIR` command (which loads the dump twice: once for the
 * triage, once for the rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/overflow/origin.h"
#include "src/io/dump/read_graph.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_origin STEP_DIR [REPS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1) reps = 1;
    size_t cap = 64, n = 0;
    struct tree **t = malloc(cap * sizeof *t);
    uint8_t **f = malloc(cap * sizeof *f);
    struct pt_error err;
    double t0 = now();
    for (;; n++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/rank%zu", argv[1], n);
        if (access(p, F_OK) != 0) break;
        if (n == cap) {
            cap *= 2;
            t = realloc(t, cap * sizeof *t);
            f = realloc(f, cap * sizeof *f);
            if (!t || !f) return 1;
        }
        if (graph_read(p, GRAPH_NO_STACK, &t[n], &err) != 0) {
            fprintf(stderr, "bench_origin: %s\n", err.msg);
            return 1;
        }
        t[n]->rank = (int32_t)n;
    }
    double t1 = now();
    size_t recs = 0;
    struct origin_rank *r = malloc((n ? n : 1) * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        f[i] = malloc(t[i]->nrecs + 1);
        origin_flags_nonfinite(t[i], f[i]);
        r[i] = (struct origin_rank){t[i], f[i]};
        recs += t[i]->nrecs;
    }
    double t2 = now(), best = 1e9;
    struct origin_result res = {0};
    for (int k = 0; k < reps; k++) {
        origin_result_free(&res);
        double a = now();
        if (origin_find(r, n, ORIGIN_OVERFLOW, &res, &err) != 0) {
            fprintf(stderr, "bench_origin: %s\n", err.msg);
            return 1;
        }
        double b = now() - a;
        if (b < best) best = b;
    }
    printf("origin over %zu ranks (%zu records): read seconds=%.3f flags seconds=%.3f rules seconds=%.4f (best of %d)\n",
           n, recs, t1 - t0, t2 - t1, best, reps);
    if (res.nhits)
        printf("  origin: rank %d %s (%s), %zu ranks reached through communication\n",
               (int)t[res.hits[0].rank]->rank, tree_s(t[res.hits[0].rank], t[res.hits[0].rank]->recs[res.hits[0].rec].name),
               origin_phase_name(res.phase), res.nhops);
    else
        printf("  origin: none found\n");
    const char *bin = getenv("PT_BIN");
    if (bin && *bin) {
        char cmd[8400];
        snprintf(cmd, sizeof cmd, "'%s' overflow '%s' --limit 1 >/dev/null 2>&1", bin, argv[1]);
        double a = now();
        int st = system(cmd);
        printf("probetop overflow (whole command, %zu ranks) seconds=%.3f (exit %d)\n", n, now() - a,
               WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    origin_result_free(&res);
    for (size_t i = 0; i < n; i++) {
        tree_free(t[i]);
        free(f[i]);
    }
    free(t);
    free(f);
    free(r);
    return 0;
}
