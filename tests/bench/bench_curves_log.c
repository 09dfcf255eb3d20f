/* bench_curves_log: the text training-log reader's speed on one file
 * (tests/bench/curves_log.sh runs it beside `grep -c`):
 *   parse  the lines through src/io/curves/log_parse.c alone (read in
 *          8 MiB pieces, as read_log.c does), into the curves;
 *   load   load_dataset with the `log` row: the parse, the NaN points,
 *          curves_finish and the cube (model/curves/curves_cube.c).
 * Best of 3 in CPU seconds (one thread), MB/s of the file's bytes. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/io/curves/log_parse.h"
#include "src/io/load.h"

/* CPU seconds of the process: on a machine other work shares (the 2 cores
 * of the project's), wall time says more of the others than of the reader */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double parse_once(const char *path, size_t *bytes, size_t *points) {
    struct pt_error err;
    struct log_parse *lp = log_parse_new(&err);
    struct curves *c = curves_new();
    struct log_parse_stats st;
    memset(&st, 0, sizeof st);
    int fd = open(path, O_RDONLY);
    size_t cap = 8u << 20, have = 0;
    char *buf = malloc(cap);
    if (!lp || !c || fd < 0 || !buf) { fprintf(stderr, "bench_curves_log: cannot set up\n"); exit(1); }
    double t0 = now();
    *bytes = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, cap - have);
        if (n <= 0) break;
        have += (size_t)n;
        *bytes += (size_t)n;
        size_t whole = have;
        while (whole && buf[whole - 1] != '\n') whole--;
        log_parse_lines(lp, buf, whole, c, &st);
        memmove(buf, buf + whole, have - whole);
        have -= whole;
    }
    log_parse_finish(lp, c);
    double t = now() - t0;
    *points = (size_t)st.points;
    close(fd);
    free(buf);
    curves_free(c);
    log_parse_free(lp);
    return t;
}

static double load_once(const char *path) {
    struct load_opts lo;
    load_opts_init(&lo);
    lo.format = formats_find("log");
    struct dataset *ds = NULL;
    struct pt_error err;
    double t0 = now();
    if (load_dataset(path, &lo, &ds, &err) != 0) { fprintf(stderr, "bench_curves_log: %s\n", err.msg); exit(1); }
    double t = now() - t0;
    dataset_free(ds);
    return t;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: bench_curves_log LOG\n"); return 2; }
    setenv("PROBETOP_PATTERNS", "", 1);
    size_t bytes = 0, points = 0;
    double bp = 1e9, bl = 1e9;
    for (int k = 0; k < 3; k++) {
        double t = parse_once(argv[1], &bytes, &points);
        if (t < bp) bp = t;
        t = load_once(argv[1]);
        if (t < bl) bl = t;
    }
    printf("log parse       %.3f s   %6.0f MB/s per CPU second (%zu points)\n", bp, bytes / 1e6 / bp, points);
    printf("log load        %.3f s   %6.0f MB/s per CPU second (parse + curves_finish + cube)\n", bl, bytes / 1e6 / bl);
    return 0;
}
