/* test_vt_curves_dump: from curve to dump in the TUI (issue 22).  The
 * problem run tests/data/curves/megatron_run.csv drifts off its benchmark
 * (written here) from step 11, so the step to dump is the forward and
 * backward of step 11; alone, its NaN grad norm at step 12 says the
 * backward of step 12.  The run's dump root is generated here
 * (gen_dump.py, its steps renamed step11 and step12).
 *
 * test_pair_80x24, test_pair_200x60: `probetop PROBLEM BENCH --dump DIR`
 * opens the curves screen; the status line says the step to dump is in
 * the root (its rank folders) and that Enter opens it; Enter loads the
 * root and lands on the heat map at step 11, on the forward pass (a
 * dump's metric).
 * test_log_and_dump: `probetop LOG DUMPDIR` (one curve input, one dump
 * root; before: the compare screen with an error) is the curves of the run
 * with the root attached: Enter lands on step 12, the backward pass, and
 * the tree (F6) on the graph of step 12.
 * test_not_in_dump: a root without the step: the status line says so,
 * and Enter does not leave the curves. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <unistd.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

/* A temp folder holding bench.csv, dump/ (steps 11, 12) and other/ (step 3); NULL to skip. */
static const char *setup(const char *name) {
    const char *d = pt_tmpdir(name), *py = getenv("PT_PYTHON"), *sh = pt_shared();
    if (!d || !py || !py[0] || !sh) return NULL;
    char cmd[8192], p[1200];
    snprintf(p, sizeof p, "%s/bench.csv", d);
    FILE *f = fopen(p, "w");
    if (!f) return NULL;
    fprintf(f, "step,lm loss,grad norm,loss scale,number of nan iterations\n");
    double l = 7.613042;
    for (int s = 1; s <= 20; s++, l *= 0.955) fprintf(f, "%d,%.6f,1.55,65536,0\n", s, l);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' '%s/tools/gen_dump.py' --out dump --steps 2 --ranks 2 --layers 2 --quiet >/dev/null 2>&1 && "
             "mv dump/step1 dump/step12 && mv dump/step0 dump/step11 && cp -r dump other && mv other/step11 other/step3 && "
             "rm -rf other/step12",
             d, py, sh);
    return system(cmd) == 0 ? d : NULL;
}

static bool said(struct vt *vt, const char *text) {
    int st = vt_status_row(vt);
    return vt_row_has(vt, st, text) || vt_row_has(vt, st + 1, text);
}

static void pair(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *problem = pt_shared_file("curves", "megatron_run.csv");
    const char *d = setup(cols > 100 ? "wide" : "narrow");
    if (!problem || !d) SKIP("no fixture or no gen_dump.py");
    char bench[1200];
    snprintf(bench, sizeof bench, "%s/bench.csv", d);
    if (chdir(d) != 0) { CHECK(!"chdir"); return; }   /* the root named short: "dump" */
    struct vt vt;
    const char *args[] = {problem, bench, "--dump", "dump", NULL};
    const char *env[] = {"NO_COLOR=1", NULL};
    if (vt_spawn_app(&vt, cols, rows, args, env) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Curves") && vt_has(&vt, "long_term_drift"));
    VT_WAIT(&vt, said(&vt, "dump step 11 (forward, backward): in dump (2 rank folders)"));
    if (cols > 100) CHECKV(&vt, said(&vt, "Enter opens it"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, said(&vt, "step 11 of dump, the forward pass"));
    CHECKV(&vt, !vt_has(&vt, "Curves"));
    /* the heat map of the forward pass at step 11 (the toolbar says both) */
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/norm") && vt_row_has(&vt, 0, "step 11") && vt_has(&vt, "Heat map"));
    vt_send(&vt, "q");
    vt_close(&vt);
}

static void test_pair_80x24(void) { pair(80, 24); }
static void test_pair_200x60(void) { pair(200, 60); }

static void test_log_and_dump(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *problem = pt_shared_file("curves", "megatron_run.csv");
    const char *d = setup("logdump");
    if (!problem || !d) SKIP("no fixture or no gen_dump.py");
    if (chdir(d) != 0) { CHECK(!"chdir"); return; }
    struct vt vt;
    const char *args[] = {problem, "dump", NULL};
    const char *env[] = {"NO_COLOR=1", NULL};
    if (vt_spawn_app(&vt, 120, 40, args, env) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Curves"));
    CHECKV(&vt, !vt_has(&vt, "error"));
    VT_WAIT(&vt, said(&vt, "dump the backward of step 12: in dump (2 rank folders)"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, said(&vt, "step 12 of dump, the backward pass"));
    VT_WAIT(&vt, vt_row_has(&vt, 0, "backward/norm") && vt_row_has(&vt, 0, "step 12"));
    /* the tree on that step's graph too (before: the dump's first, step 11) */
    vt_send(&vt, "<F6>");
    VT_WAIT(&vt, vt_has(&vt, "Tree") && vt_row_has(&vt, 0, "step 12") && !vt_row_has(&vt, 0, "step 11"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 12") && !vt_row_has(&vt, 0, "step 11"));
    vt_send(&vt, "q");
    vt_close(&vt);
}

static void test_not_in_dump(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *problem = pt_shared_file("curves", "megatron_run.csv");
    const char *d = setup("notin");
    if (!problem || !d) SKIP("no fixture or no gen_dump.py");
    char bench[1200];
    snprintf(bench, sizeof bench, "%s/bench.csv", d);
    if (chdir(d) != 0) { CHECK(!"chdir"); return; }
    struct vt vt;
    const char *args[] = {problem, bench, "--dump", "other", NULL};
    const char *env[] = {"NO_COLOR=1", NULL};
    if (vt_spawn_app(&vt, 120, 40, args, env) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, said(&vt, "dump step 11 (forward, backward): not in other"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "Curves") && said(&vt, "not in other"));
    vt_send(&vt, "q");
    vt_close(&vt);
}

int main(void) {
    RUN(test_pair_80x24);
    RUN(test_pair_200x60);
    RUN(test_log_and_dump);
    RUN(test_not_in_dump);
    PT_DONE();
}
