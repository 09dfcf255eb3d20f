/* bench_keys.h: what the key-to-frame benchmarks of one pane share
 * (bench_tui_lanes, bench_tui_pipeline; bench_tui_curves reads the CPU
 * clock): a kind of key pressed REPS times
 * each way, from the key written to the frame complete (the output quiet
 * for BENCH_QUIET_MS, not counted), the mean and worst milliseconds, the
 * bytes a frame costs, and the program's CPU time per key read from /proc,
 * which says what a frame costs on a shared machine better than the wall
 * clock.  Times include the pty round trip: an upper bound of the
 * program's own work. */
#ifndef PT_BENCH_KEYS_H
#define PT_BENCH_KEYS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "screen/vt.h"

#define BENCH_QUIET_MS 25

/* The program's CPU time so far (user + system), in ms; -1 unknown. */
static inline double bench_cpu_ms(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');   /* the command may hold blanks */
    unsigned long ut, st;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) return -1;
    return (double)(ut + st) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

struct bench_kind {
    const char *name, *keys[2];   /* alternated */
    double sum, worst, bytes, cpu;
    int n;
};

/* One key to its complete frame: the milliseconds, or -1 when the program is gone. */
static inline double bench_frame(struct vt *vt, const char *key) {
    if (vt_wait_idle(vt, BENCH_QUIET_MS * 2) < 0) return -1;
    vt_mark(vt);
    double t0 = vt_now();
    if (vt_send(vt, key) < 0) return -1;
    while (vt->bytes_mark == 0 && vt_now() < t0 + 5.0)
        if (vt_pump(vt, 20) < 0) return -1;
    if (vt_wait_idle(vt, BENCH_QUIET_MS) < 0) return -1;
    return vt->bytes_mark ? (vt->t_last - t0) * 1e3 : 0;
}

/* Every kind's keys, 2 * reps presses each: 0, or -1 when the program is gone. */
static inline int bench_kinds_run(struct vt *vt, struct bench_kind *kinds, size_t nkinds, int reps) {
    for (size_t k = 0; k < nkinds; k++) {
        double c0 = bench_cpu_ms(vt->pid);
        for (int i = 0; i < 2 * reps; i++) {
            double ms = bench_frame(vt, kinds[k].keys[i & 1]);
            if (ms < 0) return -1;
            kinds[k].sum += ms;
            kinds[k].bytes += (double)vt->bytes_mark;
            if (ms > kinds[k].worst) kinds[k].worst = ms;
            kinds[k].n++;
        }
        double c1 = bench_cpu_ms(vt->pid);
        kinds[k].cpu = c0 >= 0 && c1 >= 0 ? (c1 - c0) / kinds[k].n : -1;
    }
    return 0;
}

static inline void bench_kinds_print(const struct bench_kind *kinds, size_t nkinds) {
    for (size_t k = 0; k < nkinds; k++)
        printf("  %-32s key to frame done %6.2f ms mean, %6.2f ms worst; CPU %5.1f ms/key; %7.0f bytes/frame (%d keys)\n",
               kinds[k].name, kinds[k].sum / kinds[k].n, kinds[k].worst, kinds[k].cpu, kinds[k].bytes / kinds[k].n,
               kinds[k].n);
}

/* The analyzer on argv[1] at 200x60, loaded (its heat map drawn): 0 with
 * *reps (argv[2], default 10) and *t_up, the seconds it took; 2 (the exit
 * status) when it cannot run, said on stderr under prog's name. */
static inline int bench_start(struct vt *vt, int argc, char **argv, const char *prog, int *reps, double *t_up) {
    if (argc < 2 || !vt_bin()) {
        fprintf(stderr, "usage: PT_BIN=probetop %s TRACES [REPS]\n", prog);
        return 2;
    }
    *reps = argc > 2 ? atoi(argv[2]) : 10;
    if (*reps < 1) *reps = 1;
    const char *args[] = {argv[1], NULL};
    double t0 = vt_now();
    if (vt_spawn_app(vt, 200, 60, args, NULL) != 0) return 2;
    vt->timeout_ms = 300000;
    if (vt_wait_text(vt, "Heat map", 300000) != 0) {
        fprintf(stderr, "%s: %s did not load\n", prog, argv[1]);
        vt_dump(vt, stderr);
        vt_close(vt);
        return 2;
    }
    *t_up = vt_now() - t0;
    return 0;
}

#endif
