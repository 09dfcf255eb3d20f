/* bench_trendpair: two .trend.db files as PROBLEM BENCH in the real TUI
 * (probetop(1), COMPARE TWO EXPERIMENTS), both read by slices, seen from
 * the terminal.
 *
 *   bench_trendpair gen PATH RANKS STEPS TARGETS
 *       a synthetic monitor .trend.db (tests/pt_trenddb_gen.h; two of them
 *       differ by their random min and max, so they part at step 0);
 *   bench_trendpair run [--mem SIZE] PROBLEM BENCH
 *       `probetop [--mem SIZE] PROBLEM BENCH` in a 200x60 pty: start to the
 *       first heat map, then each key to its finished frame: R (the
 *       benchmark), R (|p-b|/|b|, the lazy difference), ] ] (next steps),
 *       j, s (statistic), m (metric), f (the first part), Enter (three
 *       lines), R; the peak RSS (VmHWM) before quitting.
 *
 * Prints the figures; asserts nothing (exit 0 unless it could not run: 2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_trenddb_gen.h"
#include "screen/vt.h"

static double peak_rss_mb(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    double kb = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kb = atof(line + 6);
    fclose(f);
    return kb / 1024.0;
}

static double key_ms(struct vt *vt, const char *key) {
    if (vt_wait_idle(vt, 50) < 0) return -1;
    vt_mark(vt);
    double t0 = vt_now();
    if (vt_send(vt, key) < 0) return -1;
    while (vt->bytes_mark == 0 && vt_now() < t0 + 120)
        if (vt_pump(vt, 20) < 0) return -1;
    if (vt_wait_idle(vt, 40) < 0) return -1;
    return (vt->t_last - t0) * 1e3;
}

int main(int argc, char **argv) {
    if (argc == 6 && !strcmp(argv[1], "gen"))
        return pt_gen_trenddb(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5])) == 0 ? 0 : 2;
    const char *bin = getenv("PT_BIN"), *mem = NULL;
    int i = 2;
    if (argc > 3 && !strcmp(argv[i], "--mem")) { mem = argv[i + 1]; i += 2; }
    if (argc != i + 2 || strcmp(argv[1], "run") || !bin) {
        fprintf(stderr, "usage: bench_trendpair gen PATH RANKS STEPS TARGETS | PT_BIN=... bench_trendpair run [--mem SIZE] PROBLEM BENCH\n");
        return 2;
    }
    const char *args[7];
    int n = 0;
    args[n++] = bin;
    if (mem) { args[n++] = "--mem"; args[n++] = mem; }
    args[n++] = argv[i];
    args[n++] = argv[i + 1];
    args[n] = NULL;
    struct vt vt;
    double t0 = vt_now();
    if (vt_spawn(&vt, 200, 60, (char *const *)args, NULL) < 0) return 2;
    vt.timeout_ms = 600000;
    double t_up = 0;
    while (vt_now() - t0 < 600) {
        if (vt_pump(&vt, 20) < 0) break;
        if (vt.altscreen && strstr(vt_screen_text(&vt), "Heat map") && strstr(vt_row_text(&vt, 58), "step ")) {
            t_up = vt.t_last - t0;
            break;
        }
    }
    if (!t_up) {
        vt_dump(&vt, stderr);
        vt_close(&vt);
        return 2;
    }
    printf("PROBLEM BENCH of two .trend.db, 200x60, --mem %s: first heat map %.1f ms, peak RSS %.1f MB\n",
           mem ? mem : "(default)", t_up * 1e3, peak_rss_mb(vt.pid));
    static const char *const keys[] = {"R", "R", "]", "]", "j", "s", "m", "f", "<Enter>", "R"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        double ms = key_ms(&vt, keys[k]);
        if (ms < 0) break;
        printf("  key %-8s %8.1f ms   %s\n", keys[k], ms, vt_row_text(&vt, 59));
    }
    printf("  peak RSS after the keys %.1f MB\n", peak_rss_mb(vt.pid));
    vt_send(&vt, "q");
    int st;
    vt_wait_exit(&vt, 30000, &st);
    vt_close(&vt);
    return 0;
}
