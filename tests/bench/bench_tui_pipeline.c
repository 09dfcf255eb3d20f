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
#include "bench/bench_keys.h"

int main(int argc, char **argv) {
    struct vt vt;
    int reps;
    double t_up;
    if (bench_start(&vt, argc, argv, "bench_tui_pipeline", &reps, &t_up) != 0) return 2;
    vt_mark(&vt);
    double t1 = vt_now(), c0 = bench_cpu_ms(vt.pid);
    vt_send(&vt, ":view pipeline\r");
    if (vt_wait_text(&vt, "Pipeline  step", 60000) != 0) { vt_close(&vt); return 2; }
    vt_wait_idle(&vt, BENCH_QUIET_MS);
    double t_view = (vt.t_last - t1) * 1e3, c_view = bench_cpu_ms(vt.pid) - c0;
    struct bench_kind kinds[] = {
        {"micro-batch: next / previous", {"]", "["}, 0, 0, 0, 0, 0},
        {"widest bubble / slowest link", {"b", "L"}, 0, 0, 0, 0, 0},
        {"step: next / previous", {")", "("}, 0, 0, 0, 0, 0},
        {"group: next (p, not seen yet)", {"p", "p"}, 0, 0, 0, 0, 0},
    };
    size_t nk = sizeof kinds / sizeof kinds[0];
    if (bench_kinds_run(&vt, kinds, nk, reps) != 0) { vt_close(&vt); return 2; }
    printf("pipeline view on %s: loaded and drawn in %.2f s; :view pipeline %.1f ms (CPU %.1f ms)\n", argv[1], t_up, t_view,
           c_view);
    bench_kinds_print(kinds, nk);
    vt_send(&vt, "q");
    vt_wait_exit(&vt, 10000, NULL);
    vt_close(&vt);
    return 0;
}
