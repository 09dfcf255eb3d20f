/* bench_tui_graph: how long until the compare screen shows the tree of a
 * rank pair (README.md's measurements hold it against msProbe's
 * graph_visualize on the same pair).  Runs the real
 * binary in a pseudo-terminal and stops the clock when the tree's first
 * top-level module and the divergence counts are on screen.
 *   bench_tui_graph PROBLEM BENCH [RUNS]     (PT_BIN = the binary) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "screen/vt.h"

int main(int argc, char **argv) {
    if (argc < 3 || !vt_bin()) {
        fprintf(stderr, "usage: PT_BIN=probetop bench_tui_graph PROBLEM BENCH [RUNS]\n");
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    double best = 1e9, sum = 0;
    for (int i = 0; i < runs; i++) {
        const char *args[] = {argv[1], argv[2], NULL};
        struct vt vt;
        double t0 = vt_now();
        if (vt_spawn_app(&vt, 120, 40, args, NULL) != 0) return 1;
        vt.timeout_ms = 60000;
        int ok = vt_wait_text(&vt, "  matched ", 60000) == 0;
        double t = vt_now() - t0;
        vt_send(&vt, "q");
        vt_wait_exit(&vt, 10000, NULL);
        vt_close(&vt);
        if (!ok) {
            fprintf(stderr, "bench_tui_graph: the tree never showed\n");
            return 1;
        }
        if (t < best) best = t;
        sum += t;
    }
    printf("compare screen, tree ready (spawn to tree on screen): best %.3f s, mean %.3f s over %d runs; "
           "msProbe graph_visualize 14 s -> %.0fx\n", best, sum / runs, runs, 14.0 / best);
    return 0;
}
