/* bench_lazy: a .trend.db opened in the real TUI (read by slices within
 * --mem), seen from the terminal.
 *
 *   bench_lazy gen PATH RANKS STEPS TARGETS
 *       writes a synthetic monitor .trend.db (tests/pt_trenddb_gen.h) of
 *       RANKS x STEPS x TARGETS x 4 metrics rows;
 *   bench_lazy run [--mem SIZE] LABEL=PATH...
 *       for each database: start `probetop [--mem SIZE] PATH` in a 200x60
 *       pty, time start to the first heat map on screen, then browse (next
 *       step, statistic, metric, dimension, cursor moves) timing each key to
 *       its finished frame, and read the peak RSS (VmHWM) before quitting.
 *
 * Prints one line per database, side by side; asserts nothing (exit 0
 * unless it could not run: 2).  Times include the pty round trip and, on a
 * shared machine, whatever else runs: the load average is printed too. */
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

static int status_has(struct vt *vt, const char *text) {
    return strstr(vt_row_text(vt, vt->rows - 2), text) != NULL;
}

/* One key to its finished frame, in ms; -1 when the program is gone. */
static double key_ms(struct vt *vt, const char *key) {
    if (vt_wait_idle(vt, 50) < 0) return -1;
    vt_mark(vt);
    double t0 = vt_now();
    if (vt_send(vt, key) < 0) return -1;
    while (vt->bytes_mark == 0 && vt_now() < t0 + 30)
        if (vt_pump(vt, 20) < 0) return -1;
    if (vt_wait_idle(vt, 40) < 0) return -1;
    return (vt->t_last - t0) * 1e3;
}

static int run_one(const char *bin, const char *mem, const char *label, const char *path) {
    const char *args[6];
    int n = 0;
    args[n++] = bin;
    if (mem) { args[n++] = "--mem"; args[n++] = mem; }
    args[n++] = path;
    args[n] = NULL;
    struct vt vt;
    double t0 = vt_now();
    if (vt_spawn(&vt, 200, 60, (char *const *)args, NULL) < 0) return -1;
    vt.timeout_ms = 600000;
    double t_up = 0;
    while (vt_now() - t0 < 600) {
        if (vt_pump(&vt, 20) < 0) break;
        if (vt.altscreen && strstr(vt_screen_text(&vt), "Heat map") && status_has(&vt, "step ")) {
            t_up = vt.t_last - t0;
            break;
        }
    }
    if (!t_up) {
        fprintf(stderr, "bench_lazy: %s did not come up\n", path);
        vt_dump(&vt, stderr);
        vt_close(&vt);
        return -1;
    }
    double rss_up = peak_rss_mb(vt.pid);
    /* browse: the keys a user presses first */
    static const char *const keys[] = {"]", "]", "]", "s", "m", "l", "j", "<Enter>", "d", "]", "d", "]", "d", "[", "M", "z"};
    double sum = 0, worst = 0;
    int nk = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double ms = key_ms(&vt, keys[i]);
        if (ms < 0) break;
        sum += ms;
        if (ms > worst) worst = ms;
        nk++;
    }
    double rss = peak_rss_mb(vt.pid);
    printf("%-10s first heat map %8.1f ms   peak RSS %7.1f MB at first frame, %7.1f MB after %d keys "
           "(key to frame: mean %6.1f ms, worst %7.1f ms)\n",
           label, t_up * 1e3, rss_up, rss, nk, nk ? sum / nk : 0, worst);
    fflush(stdout);
    vt_send(&vt, "q");
    int st;
    vt_wait_exit(&vt, 30000, &st);
    vt_close(&vt);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 6 && !strcmp(argv[1], "gen"))
        return pt_gen_trenddb(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5])) == 0 ? 0 : 2;
    if (argc < 3 || strcmp(argv[1], "run")) {
        fprintf(stderr, "usage: bench_lazy gen PATH RANKS STEPS TARGETS | bench_lazy run [--mem SIZE] LABEL=PATH...\n");
        return 2;
    }
    const char *bin = getenv("PT_BIN"), *mem = NULL;
    if (!bin) { fprintf(stderr, "bench_lazy: set PT_BIN\n"); return 2; }
    int i = 2;
    if (i + 1 < argc && !strcmp(argv[i], "--mem")) { mem = argv[i + 1]; i += 2; }
    FILE *la = fopen("/proc/loadavg", "r");
    char load[64] = "?";
    if (la) { if (!fgets(load, sizeof load, la)) load[0] = 0; fclose(la); }
    printf("probetop on .trend.db files, 200x60 terminal, --mem %s, load average %.14s\n", mem ? mem : "(default)", load);
    int rc = 0;
    for (; i < argc; i++) {
        char label[64];
        const char *eq = strchr(argv[i], '=');
        if (!eq) { fprintf(stderr, "bench_lazy: %s: want LABEL=PATH\n", argv[i]); return 2; }
        snprintf(label, sizeof label, "%.*s", (int)(eq - argv[i]), argv[i]);
        if (run_one(bin, mem, label, eq + 1) != 0) rc = 2;
    }
    return rc;
}
