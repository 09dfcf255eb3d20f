/* test_vt_trendpair: two runs of trend data as PROBLEM BENCH (issue 24,
 * point 5; probetop(1), COMPARE TWO EXPERIMENTS), at 80x24 and 200x60.
 *
 * The runs are monitor trees written by tests/gen_dump.py with the same
 * seed (so every value is equal), the problem with a NaN planted at step 2
 * on rank 1 in layers.1.mlp; the benchmark is also given as the .trend.db
 * `probetop data2db` writes from its tree (one of each).  Before this
 * point such a pair opened a broken compare screen ("line 1, byte 0:
 * expected a JSON value").  Checked: the heat map opens on the problem
 * with "run problem" in the toolbar, R cycles benchmark, |p-b|/|b| and
 * back, the status line says both runs' values of the cell, and f lands on
 * the first place they part, and Enter adds the cell's trend in the
 * difference and in both runs to the line chart: step 2, rank 1, the first target of
 * layers.1.mlp in the forward (actv: linear_fc1's output; the status says
 * problem nan), the same cell `probetop compare --first` names
 * (tests/unit/test_trendpair.c checks that one against an oracle). */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)
#define WAIT_CHECK(vt, cond) do { VT_WAIT(vt, cond); CHECKV(vt, cond); } while (0)

static char problem[1200], bench[1200], benchdb[1200];

/* The two trees and the benchmark's .trend.db, once per process. */
static int make_runs(void) {
    const char *sh = pt_shared(), *py = getenv("PT_PYTHON");
    if (!sh || !py || !*py || !vt_bin()) return -1;
    const char *dir = pt_tmpdir("trendpair");
    if (!dir) return -1;
    snprintf(problem, sizeof problem, "%s/problem", dir);
    snprintf(bench, sizeof bench, "%s/bench", dir);
    snprintf(benchdb, sizeof benchdb, "%s/benchdb", dir);
    const char *opts = "--monitor --steps 4 --ranks 4 --layers 2 --seed 1 --quiet --jobs 1";
    char cmd[6000];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' %s --nan 2:1:layers.1.mlp && '%s' '%s/tools/gen_dump.py' --out '%s' %s"
             " && '%s' data2db --data '%s' --db '%s' >/dev/null 2>&1",
             py, sh, problem, opts, py, sh, bench, opts, vt_bin(), bench, benchdb);
    return system(cmd) == 0 ? 0 : -1;
}

/* The status line (or the line under it) says text. */
static bool said(struct vt *vt, const char *text) {
    int st = vt_status_row(vt);
    return vt_row_has(vt, st, text) || vt_row_has(vt, st + 1, text);
}

static void screen(int cols, int rows, const char *b) {
    if (make_runs() != 0) SKIP("PT_SHARED, PT_PYTHON or PT_BIN absent, or gen_dump.py failed");
    struct vt vt;
    const char *args[] = {problem, b, NULL};
    const char *env[] = {"NO_COLOR=1", NULL};
    if (vt_spawn_app(&vt, cols, rows, args, env) != 0) { CHECK(!"spawn"); return; }
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));
    CHECKV(&vt, !vt_has(&vt, "expected a JSON value"));
    CHECKV(&vt, vt_row_has(&vt, 0, "run problem") && vt_row_has(&vt, 0, "actv/norm"));
    /* the first cell: the runs agree there */
    WAIT_CHECK(&vt, said(&vt, "|p-b|/|b| 0"));
    vt_send(&vt, "R");
    WAIT_CHECK(&vt, vt_row_has(&vt, 0, "run benchmark"));
    vt_send(&vt, "R");
    WAIT_CHECK(&vt, vt_row_has(&vt, 0, "run |p-b|/|b|"));
    CHECKV(&vt, vt_row_has(&vt, 0, "actv/norm"));
    vt_send(&vt, "f");
    WAIT_CHECK(&vt, said(&vt, "first part: step 2 rank 1 actv/norm problem nan bench 12250"));
    if (cols >= 200) CHECKV(&vt, said(&vt, "> 1%: module.module.decoder.layers.1.mlp.linear_fc1.output_0"));
    /* the cursor is on it: the status line's cell is step 2, rank 1, NaN */
    int st = vt_status_row(&vt);
    vt_send(&vt, "j");
    vt_send(&vt, "k");
    WAIT_CHECK(&vt, vt_row_has(&vt, st, "step 2  rank 1  actv/norm = NaN"));
    CHECKV(&vt, vt_row_has(&vt, st, "(parts)") || cols < 120);
    /* Enter: the cell's trend in the difference, and in both runs */
    vt_send(&vt, "<Enter>");
    WAIT_CHECK(&vt, vt_has(&vt, "Line chart  3 lines over step"));
    if (rows >= 60)
        CHECKV(&vt, vt_has(&vt, "problem rank 1 /") && vt_has(&vt, "bench rank 1 /") && vt_has(&vt, "|p-b|/|b| rank 1 /"));
    CHECKV(&vt, vt_has(&vt, "bench rank 1 / module.module.decoder.layers.1.mlp.linear_fc1.output_0 = 12250") || cols < 120);
    if (cols >= 200) vt_shot(&vt, "trendpair", "probetop PROBLEM BENCH: two runs of trend data, |p-b|/|b|, f");
    vt_send(&vt, "R");
    WAIT_CHECK(&vt, vt_row_has(&vt, 0, "run problem"));
    /* R keeps the line chart's lines, re-read from the run now shown (they
     * were all dropped before) */
    CHECKV(&vt, vt_has(&vt, "Line chart  3 lines over step"));
    CHECKV(&vt, !said(&vt, "no lines"));
    /* the cell stays where it was, in the problem run's own cube */
    WAIT_CHECK(&vt, vt_row_has(&vt, st, "step 2  rank 1  actv/norm = NaN"));
    /* a threshold that does not parse is said */
    vt_send(&vt, ":threshold x<Enter>");
    WAIT_CHECK(&vt, said(&vt, ":threshold wants a percentage"));
    /* :run names the run */
    vt_send(&vt, ":run diff<Enter>");
    WAIT_CHECK(&vt, vt_row_has(&vt, 0, "run |p-b|/|b|"));
    pt_vt_quit(&vt);
}

static void trees_80x24(void) { screen(80, 24, bench); }
static void trees_200x60(void) { screen(200, 60, bench); }
static void tree_and_db_80x24(void) { screen(80, 24, benchdb); }
static void tree_and_db_200x60(void) { screen(200, 60, benchdb); }

/* f with one input: the heat map says what it needs. */
static void f_alone(void) {
    if (make_runs() != 0) SKIP("PT_SHARED, PT_PYTHON or PT_BIN absent, or gen_dump.py failed");
    struct vt vt;
    const char *args[] = {problem, NULL};
    if (vt_spawn_app(&vt, 80, 24, args, NULL) != 0) { CHECK(!"spawn"); return; }
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "f");
    WAIT_CHECK(&vt, said(&vt, "needs two runs of trend data"));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(trees_80x24);
    RUN(trees_200x60);
    RUN(tree_and_db_80x24);
    RUN(tree_and_db_200x60);
    RUN(f_alone);
    PT_DONE();
}
