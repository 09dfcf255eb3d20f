/* test_vt_curves: the curves pane on PROBLEM BENCH of two training-curve
 * CSVs (issue 22).  The problem is tests/data/curves/megatron_run.csv (a
 * loss that drifts off an exponential decay from step 11, a spike at 15, a
 * NaN grad norm at 12); the benchmark is written here: the clean
 * exponential decay of the same start.  The curves screen opens first with
 * both runs named, the marks row names the findings by glyph (no colour
 * asked: NO_COLOR, and --ascii at 80x24), `f` lands on the first
 * misaligned step and the status line says it, n / N move between the
 * series' findings, j goes to the next series. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

/* The benchmark CSV in a temp folder, or NULL. */
static const char *make_bench(void) {
    static char path[1200];
    const char *d = pt_tmpdir("curves");
    if (!d) return NULL;
    snprintf(path, sizeof path, "%s/bench.csv", d);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    fprintf(f, "step,lm loss,grad norm,loss scale,number of nan iterations\n");
    double l = 7.613042;
    for (int s = 1; s <= 20; s++, l *= 0.955) fprintf(f, "%d,%.6f,1.55,65536,0\n", s, l);
    return fclose(f) == 0 ? path : NULL;
}

/* The row the marks are on ("marks" at its left), -1 none. */
static int marks_row(struct vt *vt) {
    for (int r = 0; r < vt->rows; r++)
        if (!strncmp(vt_row_text(vt, r), "marks", 5)) return r;
    return -1;
}

/* The status line (or the message line under it) says text. */
static bool said(struct vt *vt, const char *text) {
    int st = vt_status_row(vt);
    return vt_row_has(vt, st, text) || vt_row_has(vt, st + 1, text);
}

static void pane(int cols, int rows, int ascii) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *problem = pt_shared_file("curves", "megatron_run.csv"), *bench = make_bench();
    if (!problem || !bench) SKIP("no curves fixture");
    struct vt vt;
    const char *args[] = {problem, bench, ascii ? "--ascii" : NULL, NULL};
    const char *env[] = {"NO_COLOR=1", NULL};
    if (vt_spawn_app(&vt, cols, rows, args, env) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Curves"));
    /* the loss first, both runs named, the verdict in the title */
    CHECKV(&vt, vt_has(&vt, "lm loss"));
    CHECKV(&vt, vt_has(&vt, "problem megatron_run.csv"));
    CHECKV(&vt, vt_has(&vt, "bench bench.csv"));
    CHECKV(&vt, vt_has(&vt, "long_term_drift"));
    /* the marks read as glyphs: M the first misaligned step, S the spike */
    int mr = marks_row(&vt);
    CHECKV(&vt, mr > 0);
    CHECKV(&vt, mr > 0 && strchr(vt_row_text(&vt, mr) + 5, 'M') && strchr(vt_row_text(&vt, mr) + 5, 'S'));
    if (mr > 0) {   /* M left of S (step 11 before 15) */
        const char *t = vt_row_text(&vt, mr);
        CHECKV(&vt, strchr(t + 5, 'M') < strchr(t + 5, 'S'));
    }
    vt_send(&vt, "f");
    VT_WAIT(&vt, said(&vt, "first misaligned step 11"));
    CHECKV(&vt, said(&vt, "step 11  problem 4.88183"));
    vt_send(&vt, "n");
    VT_WAIT(&vt, said(&vt, "spike at step 15"));
    vt_send(&vt, "n");
    VT_WAIT(&vt, said(&vt, "no later finding"));
    vt_send(&vt, "N");
    VT_WAIT(&vt, said(&vt, "first misaligned step 11"));
    vt_send(&vt, "N");
    VT_WAIT(&vt, said(&vt, "no earlier finding"));
    /* the next series: the grad norm, its NaN at step 12 */
    vt_send(&vt, "j");
    VT_WAIT(&vt, vt_has(&vt, "grad norm (2/"));
    vt_send(&vt, "g");
    vt_send(&vt, "n");
    VT_WAIT(&vt, said(&vt, "NaN at step 12"));
    mr = marks_row(&vt);
    CHECKV(&vt, mr > 0 && strchr(vt_row_text(&vt, mr) + 5, 'N'));
    /* f from another series goes back to the loss's first misaligned step */
    vt_send(&vt, "f");
    VT_WAIT(&vt, said(&vt, "first misaligned step 11"));
    CHECKV(&vt, vt_has(&vt, "lm loss (1/"));
    /* zoom in and out keep the cursor's step */
    vt_send(&vt, "ZZ");
    VT_WAIT(&vt, said(&vt, "step 11 "));
    vt_send(&vt, "w");
    VT_WAIT(&vt, said(&vt, "every step"));
    if (rows >= 40)
        CHECK(vt_shot(&vt, "curves", "probetop PROBLEM.csv BENCH.csv: the loss of both runs, the error strip, f on the first misaligned step") >= 0);
    if (getenv("PT_DUMP")) vt_dump(&vt, stderr);
    vt_send(&vt, "q");
    int stt;
    VT_WAIT(&vt, vt_wait_exit(&vt, 0, &stt) == 0);
    char why[256];
    CHECKV(&vt, vt_restored(&vt, why, sizeof why));
    vt_close(&vt);
}

/* One run alone opens the screen too, with nothing to be misaligned from. */
static void one_run(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *problem = pt_shared_file("curves", "megatron_run.csv");
    if (!problem) SKIP("no curves fixture");
    struct vt vt;
    const char *args[] = {problem, NULL};
    if (vt_spawn_app(&vt, 80, 24, args, NULL) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Curves"));
    CHECKV(&vt, vt_has(&vt, "problem megatron_run.csv"));
    CHECKV(&vt, !vt_has(&vt, "bench "));
    vt_send(&vt, "f");
    VT_WAIT(&vt, said(&vt, "one run"));
    vt_send(&vt, "n");
    VT_WAIT(&vt, said(&vt, "spike at step 15"));
    /* the heat map of the run is still a screen away */
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F9>");
    VT_WAIT(&vt, vt_has(&vt, "Curves"));
    vt_send(&vt, "q");
    int stt;
    VT_WAIT(&vt, vt_wait_exit(&vt, 0, &stt) == 0);
    vt_close(&vt);
}

static void pane_80x24(void) { pane(80, 24, 1); }
static void pane_200x60(void) { pane(200, 60, 0); }

int main(void) {
    RUN(pane_80x24);
    RUN(pane_200x60);
    RUN(one_run);
    PT_DONE();
}
