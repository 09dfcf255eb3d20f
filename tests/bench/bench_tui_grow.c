/* bench_tui_grow: progressive folders (the first step on screen while the
 * rest loads), seen from the terminal.
 *
 * Runs `probetop PATH` in a pty at 160x40 through the libvterm harness and
 * prints the time from start to the first heat map on screen (the first
 * step, while the rest still loads), to the whole run loaded (the
 * "loading" note gone), and how long a cursor key took to show while the
 * rest was loading.  Asserts nothing; exit 0 unless it could not run (2).
 *
 *   bench_tui_grow PATH [--bin PATH]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "screen/vt.h"

int main(int argc, char **argv) {
    const char *bin = getenv("PT_BIN"), *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bin") && i + 1 < argc) bin = argv[++i];
        else if (!path) path = argv[i];
        else { fprintf(stderr, "usage: bench_tui_grow PATH [--bin PATH]\n"); return 2; }
    }
    if (!bin || !path) { fprintf(stderr, "usage: bench_tui_grow PATH [--bin PATH] (or PT_BIN)\n"); return 2; }
    char *args[] = {(char *)bin, (char *)path, NULL};
    struct vt vt;
    double t0 = vt_now();
    if (vt_spawn(&vt, 160, 40, args, NULL) < 0) return 2;
    vt.timeout_ms = 600000;
    double t_first = 0, t_key = 0, t_all = 0;
    int keyed = 0;
    char before[2048] = "";
    while (vt_now() - t0 < 600) {
        if (vt_pump(&vt, 20) < 0) break;
        if (!strstr(vt_screen_text(&vt), "Heat map")) continue;
        vt_settle(&vt);   /* a whole frame: the status line comes after the panes */
        const char *s = vt_screen_text(&vt);
        int map = strstr(s, "Heat map") != NULL, loading = strstr(vt_row_text(&vt, vt.rows - 2), "loading") != NULL;
        if (map && !t_first) t_first = vt_now() - t0;
        if (map && loading && !keyed) {
            snprintf(before, sizeof before, "%s", vt_row_text(&vt, vt.rows - 1));
            vt_send(&vt, "j");
            keyed = 1;
            t_key = vt_now();
        } else if (keyed == 1 && strcmp(vt_row_text(&vt, vt.rows - 1), before)) {
            t_key = vt_now() - t_key;
            keyed = 2;
        }
        if (map && !loading && (keyed != 1)) {
            t_all = vt_now() - t0;
            break;
        }
    }
    printf("probetop %s (progressive load, 160x40 terminal)\n", path);
    printf("  first heat map on screen   %8.1f ms\n", t_first * 1e3);
    if (keyed == 2) printf("  j while the rest loads     %8.1f ms to show\n", t_key * 1e3);
    else printf("  j while the rest loads     (the load was over before a key could be tried)\n");
    printf("  whole run loaded           %8.1f ms\n", t_all * 1e3);
    vt_send(&vt, "q");
    int st;
    vt_wait_exit(&vt, 10000, &st);
    vt_close(&vt);
    return t_first > 0 ? 0 : 2;
}
