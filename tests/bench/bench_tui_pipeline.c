/* bench_tui_pipeline: how fast the pipeline view (:view pipeline; P in the
 * lanes) answers, seen from the terminal, on a folder of profiler traces:
 * per kind of key, from the key written to the frame complete (the output
 * quiet for 25 ms, not counted), mean and worst over the repetitions, the
 * program's CPU time per key (from /proc: what a frame costs on a shared
 * machine) and the bytes a frame costs.  Kinds: pick a micro-batch (] [),
 * the widest bubble and the slowest link (b L), the next and previous step
 * (first visits build the step's pipeline, later ones find it cached), the
 * next pipeline group (p: each press a group not seen yet, so every one is
 * built: the uncached cost).  Times include the pty round trip: an upper
 * bound of the program's own work.  Asserts nothing (exit 2 when it cannot
 * run).
 *   PT_BIN=probetop bench_tui_pipeline TRACES [REPS]
 * tests/bench/run.sh makes TRACES with tests/gen_trace.py (1 024 ranks,
 * PP 4, 1F1B with its sends and receives, about 2 000 kernels per step). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "screen/vt.h"

#define QUIET_MS 25

/* The program's CPU time so far (user + system), in ms; -1 unknown. */
static double cpu_ms(pid_t pid) {
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

struct kind {
    const char *name, *keys[2];   /* alternated */
    double sum, worst, bytes, cpu;
    int n;
};

/* One key to its complete frame: the milliseconds, or -1 when the program is gone. */
static double frame(struct vt *vt, const char *key) {
    if (vt_wait_idle(vt, QUIET_MS * 2) < 0) return -1;
    vt_mark(vt);
    double t0 = vt_now();
    if (vt_send(vt, key) < 0) return -1;
    while (vt->bytes_mark == 0 && vt_now() < t0 + 5.0)
        if (vt_pump(vt, 20) < 0) return -1;
    if (vt_wait_idle(vt, QUIET_MS) < 0) return -1;
    return vt->bytes_mark ? (vt->t_last - t0) * 1e3 : 0;
}

int main(int argc, char **argv) {
    if (argc < 2 || !vt_bin()) {
        fprintf(stderr, "usage: PT_BIN=probetop bench_tui_pipeline TRACES [REPS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    if (reps < 1) reps = 1;
    const char *args[] = {argv[1], NULL};
    struct vt vt;
    double t0 = vt_now();
    if (vt_spawn_app(&vt, 200, 60, args, NULL) != 0) return 2;
    vt.timeout_ms = 300000;
    if (vt_wait_text(&vt, "Heat map", 300000) != 0) {
        fprintf(stderr, "bench_tui_pipeline: %s did not load\n", argv[1]);
        vt_dump(&vt, stderr);
        vt_close(&vt);
        return 2;
    }
    double t_up = vt_now() - t0;
    vt_mark(&vt);
    double t1 = vt_now(), c0 = cpu_ms(vt.pid);
    vt_send(&vt, ":view pipeline\r");
    if (vt_wait_text(&vt, "Pipeline  step", 60000) != 0) { vt_close(&vt); return 2; }
    vt_wait_idle(&vt, QUIET_MS);
    double t_view = (vt.t_last - t1) * 1e3, c_view = cpu_ms(vt.pid) - c0;
    struct kind kinds[] = {
        {"micro-batch: next / previous", {"]", "["}, 0, 0, 0, 0, 0},
        {"widest bubble / slowest link", {"b", "L"}, 0, 0, 0, 0, 0},
        {"step: next / previous", {")", "("}, 0, 0, 0, 0, 0},
        {"group: next (p, not seen yet)", {"p", "p"}, 0, 0, 0, 0, 0},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double a = cpu_ms(vt.pid);
        for (int i = 0; i < 2 * reps; i++) {
            double ms = frame(&vt, kinds[k].keys[i & 1]);
            if (ms < 0) { vt_close(&vt); return 2; }
            kinds[k].sum += ms;
            kinds[k].bytes += (double)vt.bytes_mark;
            if (ms > kinds[k].worst) kinds[k].worst = ms;
            kinds[k].n++;
        }
        double b = cpu_ms(vt.pid);
        kinds[k].cpu = a >= 0 && b >= 0 ? (b - a) / kinds[k].n : -1;
    }
    printf("pipeline view on %s: loaded and drawn in %.2f s; :view pipeline %.1f ms (CPU %.1f ms)\n", argv[1], t_up, t_view,
           c_view);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        printf("  %-32s key to frame done %6.2f ms mean, %6.2f ms worst; CPU %5.1f ms/key; %7.0f bytes/frame (%d keys)\n",
               kinds[k].name, kinds[k].sum / kinds[k].n, kinds[k].worst, kinds[k].cpu, kinds[k].bytes / kinds[k].n,
               kinds[k].n);
    vt_send(&vt, "q");
    vt_wait_exit(&vt, 10000, NULL);
    vt_close(&vt);
    return 0;
}
