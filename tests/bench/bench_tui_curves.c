/* bench_tui_curves: how fast the curves pane draws a long run (issue 22:
 * a 10 M-point series draws its first frame in < 0.2 s, by min/max
 * decimation per column).  Writes two CSVs of N points (default 10 M: a
 * problem run drifting off its benchmark, a spike, a NaN) once into DIR,
 * then measures:
 *   headless   `probetop curves P B --format json`, for reference;
 *   data       in this process: the load of both runs and the verdict (the
 *              work the TUI does before the pane can draw anything);
 *   TUI        spawn of `probetop P B` to the curves pane on screen (its
 *              marks row drawn); first frame = TUI - data, the pane's own
 *              work (its steps, its min/max pyramids, the drawing) and
 *              the program's start;
 *   keys       key-to-frame (last byte of the frame) of a cursor move (a
 *              whole redraw of the plot and strip), zoom in / out, the
 *              whole run again, and the next series (its pyramids built).
 * On a shared machine wall times count the other processes too: the CPU
 * seconds are printed beside them (the TUI's read from /proc at its first
 * frame, the data's in this process; both count every thread), and the
 * first frame in CPU seconds is the robust figure.
 * Times include the pty round trip.  Prints figures, asserts nothing:
 * exit 0, or 2 when it could not run.
 *   bench_tui_curves [--bin PATH] [--points N] [--size COLSxROWS] [--dir DIR] [--reps N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/curves/curves_verdict.h"
#include "bench/bench_keys.h"
#include "screen/vt.h"
#include "src/io/load.h"

#define QUIET_MS 25

static int write_csv(const char *path, long n, int problem) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    fprintf(f, "step,lm loss,grad norm\n");
    double l = 8.0;
    for (long i = 1; i <= n; i++) {
        double x = 2.0 + 6.0 / (1.0 + i * 1e-5), g = 1.0 + (i % 977) * 1e-4;
        l = x;
        if (problem && i > n / 2) l = x * (1.0 + (double)(i - n / 2) / n);   /* drifts off */
        if (problem && i == n / 3) l = x * 4;                                /* a spike */
        if (problem && i == n / 4) fprintf(f, "%ld,%.6f,nan\n", i, l);
        else fprintf(f, "%ld,%.6f,%.4f\n", i, l, g);
    }
    return fclose(f);
}

static double run_headless(const char *bin, const char *p, const char *b) {
    fflush(stdout);
    double t0 = vt_now();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execl(bin, bin, "curves", p, b, "--format", "json", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) <= 1 ? vt_now() - t0 : -1;
}

static double cpu_self(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}


/* A key's frame: seconds to the last byte of the output it caused. */
static double key_frame(struct vt *vt, const char *key) {
    if (vt_wait_idle(vt, QUIET_MS * 2) < 0) return -1;
    vt_mark(vt);
    double t0 = vt_now();
    if (vt_send(vt, key) < 0) return -1;
    while (vt->bytes_mark == 0 && vt_now() < t0 + 10) vt_pump(vt, 20);
    if (vt_wait_idle(vt, QUIET_MS) < 0) return -1;
    return vt->bytes_mark ? vt->t_last - t0 : -1;
}

int main(int argc, char **argv) {
    const char *bin = NULL, *dir = "bench-data/curves";
    long n = 10000000;
    int cols = 200, rows = 60, reps = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bin") && i + 1 < argc) bin = argv[++i];
        else if (!strcmp(argv[i], "--points") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) sscanf(argv[++i], "%dx%d", &cols, &rows);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else { fprintf(stderr, "usage: bench_tui_curves [--bin PATH] [--points N] [--size CxR] [--dir DIR] [--reps N]\n"); return 2; }
    }
    if (bin) setenv("PT_BIN", bin, 1);
    if (!vt_bin()) { fprintf(stderr, "bench_tui_curves: set PT_BIN or --bin\n"); return 2; }
    char p[4096], b[4096], cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) return 2;
    snprintf(p, sizeof p, "%s/problem-%ld.csv", dir, n);
    snprintf(b, sizeof b, "%s/bench-%ld.csv", dir, n);
    struct stat st;
    if (stat(p, &st) != 0 || stat(b, &st) != 0) {
        printf("writing %s and %s (%ld points each)...\n", p, b, n);
        fflush(stdout);
        if (write_csv(p, n, 1) != 0 || write_csv(b, n, 0) != 0) { fprintf(stderr, "cannot write the CSVs\n"); return 2; }
    }
    stat(p, &st);
    printf("curves pane, %ld points a series (2 series a run, 2 runs, %.0f MB of CSV each), %dx%d\n", n, st.st_size / 1e6, cols, rows);
    double hbest = 1e9, tbest = 1e9, tcpu = 1e9;
    for (int r = 0; r < 3; r++) {
        double h = run_headless(vt_bin(), p, b);
        if (h < 0) { fprintf(stderr, "probetop curves failed\n"); return 2; }
        if (h < hbest) hbest = h;
    }
    double dbest = 1e9, dcpu = 1e9;
    for (int r = 0; r < 3; r++) {
        double c0 = cpu_self();
        struct load_opts lo;
        load_opts_init(&lo);
        struct dataset *dp = NULL, *db = NULL;
        struct pt_error err;
        struct curves_verdict v;
        double t0 = vt_now();
        if (load_dataset(b, &lo, &db, &err) != 0 || load_dataset(p, &lo, &dp, &err) != 0 ||
            curves_verdict_run(dp->curves, db->curves, NULL, &v) != 0) {
            fprintf(stderr, "load: %s\n", err.msg);
            return 2;
        }
        double t = vt_now() - t0, c = cpu_self() - c0;
        if (t < dbest) dbest = t;
        if (c < dcpu) dcpu = c;
        curves_verdict_free(&v);
        dataset_free(dp);
        dataset_free(db);
    }
    double keys[5][64];
    const char *names[5] = {"cursor move (l)", "zoom in (Z)", "zoom out (z)", "whole run (w)", "next series (j)"};
    const char *ks[5] = {"l", "Z", "z", "w", "j"};
    if (reps > 64) reps = 64;
    for (int r = 0; r < 3; r++) {
        struct vt vt;
        const char *args[] = {p, b, NULL};
        double t0 = vt_now();
        if (vt_spawn_app(&vt, cols, rows, args, NULL) != 0) return 2;
        vt.timeout_ms = 120000;
        int ok = 0;
        while (vt_now() - t0 < 120) {
            if (vt_pump(&vt, 5) < 0) break;
            if (vt_has(&vt, "Curves") && vt_has(&vt, "marks")) { ok = 1; break; }
        }
        double t = vt_now() - t0, c = bench_cpu_ms(vt.pid) / 1000.0;
        if (!ok) { fprintf(stderr, "the curves pane never showed\n"); vt_close(&vt); return 2; }
        if (t < tbest) tbest = t;
        if (c >= 0 && c < tcpu) tcpu = c;
        if (r == 0)
            for (int i = 0; i < reps; i++)
                for (int k = 0; k < 5; k++) {
                    keys[k][i] = key_frame(&vt, ks[k]);
                    if (k == 4) key_frame(&vt, "k");   /* back to the loss */
                }
        vt_send(&vt, "q");
        vt_wait_exit(&vt, 10000, NULL);
        vt_close(&vt);
    }
    printf("%-34s %8.3f s (best of 3)\n", "headless load + verdict", hbest);
    printf("%-34s %8.3f s wall, %.3f s CPU (best of 3)\n", "TUI spawn to curves on screen", tbest, tcpu);
    printf("%-34s %8.3f s wall, %.3f s CPU (best of 3)\n", "data: load both + verdict", dbest, dcpu);
    printf("%-34s %8.3f s wall, %.3f s CPU (TUI - data; goal < 0.2 s)\n", "first frame", tbest - dbest, tcpu - dcpu);
    for (int k = 0; k < 5; k++) {
        double best = 1e9, sum = 0;
        int m = 0;
        for (int i = 0; i < reps; i++)
            if (keys[k][i] >= 0) { if (keys[k][i] < best) best = keys[k][i]; sum += keys[k][i]; m++; }
        if (m) printf("key-to-frame %-21s %8.1f ms best, %8.1f ms mean of %d\n", names[k], best * 1000, sum / m * 1000, m);
        else printf("key-to-frame %-21s no frame\n", names[k]);
    }
    return 0;
}
