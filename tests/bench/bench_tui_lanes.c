/* bench_tui_lanes: how fast the lane view (F8) answers, seen from the
 * terminal, on a folder of profiler traces: per kind of key, from the key
 * written to the frame complete (the output quiet for 25 ms, not counted),
 * mean and worst over the repetitions, and the bytes a frame costs.  Kinds:
 * next/previous step (every lane binned again), zoom in/out (the same, on
 * another window), the cursor to the next kernel, the cursor to another
 * lane; with more than 64 ranks the rows are groups (stages, blocks) and
 * the cursor keys walk groups and time slices, and three more kinds: a
 * time range selected (v, its figures in the status line), a group opened
 * and closed (Enter, Backspace), the grouping changed (c).  Times include the pty round trip: an upper bound of the program's
 * own work; the program's CPU time per key (from /proc) is what a frame
 * costs on a shared machine.  Asserts nothing (exit 2 when it cannot run).
 *   PT_BIN=probetop bench_tui_lanes TRACES [REPS]
 * tests/bench/run.sh makes TRACES with tests/gen_trace.py (64 ranks, and
 * 1 024 ranks of about 2 000 kernels per step). */
#include "bench/bench_keys.h"

int main(int argc, char **argv) {
    struct vt vt;
    int reps;
    double t_up;
    if (bench_start(&vt, argc, argv, "bench_tui_lanes", &reps, &t_up) != 0) return 2;
    vt_mark(&vt);
    double t1 = vt_now();
    vt_send(&vt, "<F8>");
    if (vt_wait_text(&vt, "Lanes  step", 60000) != 0) { vt_close(&vt); return 2; }
    vt_wait_idle(&vt, BENCH_QUIET_MS);
    double t_lanes = (vt.t_last - t1) * 1e3;
    struct bench_kind kinds[] = {
        {"next / previous step", {")", "("}, 0, 0, 0, 0, 0},
        {"zoom in / out", {"Z", "z"}, 0, 0, 0, 0, 0},
        {"cursor: next / previous kernel", {"l", "h"}, 0, 0, 0, 0, 0},
        {"cursor: next / previous lane", {"j", "k"}, 0, 0, 0, 0, 0},
        {"time range: start / end (v)", {"v", "v"}, 0, 0, 0, 0, 0},
        /* back by Backspace: a lone Esc waits out ncurses' ESCDELAY (25 ms here,
         * to tell it from an escape sequence), which is the terminal's, not a frame's */
        {"group: open / back (Enter, BS)", {"<Enter>", "<BS>"}, 0, 0, 0, 0, 0},
        {"grouping: next (c)", {"c", "c"}, 0, 0, 0, 0, 0},
    };
    size_t nk = sizeof kinds / sizeof kinds[0];
    if (bench_kinds_run(&vt, kinds, nk, reps) != 0) { vt_close(&vt); return 2; }
    printf("lane view on %s: loaded and drawn in %.2f s; F8 to the lanes %.1f ms\n", argv[1], t_up, t_lanes);
    bench_kinds_print(kinds, nk);
    vt_send(&vt, "q");
    vt_wait_exit(&vt, 10000, NULL);
    vt_close(&vt);
    return 0;
}
