/* test_summary: compare mode over a whole run (probetop(1), COMPARE MODE), as
 * a user meets it at 80x24 on a generated pair of runs, 2 steps x 4 ranks,
 * the problem run with a NaN planted in layer 1's MLP at step 1 rank 3:
 *  - the app opens on the step x rank summary, not on step 0 rank 0's tree;
 *  - once every pair is compared, the cursor is on step 1 rank 3, marked
 *    as the first divergence, the status line names the operation and its
 *    module ("first error: step 1 rank 3 Functional.linear.6.forward in
 *    L1...linear_fc1.forward.0"), the cell shows the pair's counts with a level glyph (x), and
 *    the line below the grid says the same counts in words;
 *  - Enter on step 0 rank 0 opens that pair's tree (nothing diverges);
 *    f there goes to step 1 rank 3 and selects the planted operation;
 *  - F7 comes back to the summary.
 * Every wait is followed by a check of what it waited for. */
#include "pt_test.h"
#include "screen/vt.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static bool status_has(struct vt *vt, const char *text) {
    return vt_row_has(vt, vt_status_row(vt), text) || (vt->rows >= 12 && vt_row_has(vt, vt->rows - 1, text));
}

/* The row of the grid for a rank ("rank 3 ..."), -1 none. */
static int rank_row(struct vt *vt, int rank) {
    char lab[32];
    snprintf(lab, sizeof lab, "rank %d ", rank);
    for (int r = 1; r < vt_status_row(vt); r++)
        if (!strncmp(vt_row_text(vt, r), lab, strlen(lab))) return r;
    return -1;
}

static void test_summary_80x24(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    char p[4200], b[4200];
    const char *gen = "--steps 2 --ranks 4 --tp 2 --layers 2 --seed 3 --hidden 64 --heads 4 --ffn 128 --seq 8 "
                      "--vocab 64 --jobs 1 --quiet";
    if (pt_gen_pair(pt_tmpdir("summary"), gen, "--nan 1:3:layers.1.mlp", p, b, sizeof p) != 0)
        SKIP("no python or shared tools, or gen_dump.py failed");
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);

    /* the summary first, every pair compared */
    VT_WAIT(&vt, vt_row_has(&vt, 1, "Run  2 steps x 4 ranks: 8 pairs, 1 with errors"));
    CHECKV(&vt, vt_row_has(&vt, 1, "Run  2 steps x 4 ranks: 8 pairs, 1 with errors, 0 with warnings only"));
    /* the first divergence selected and named in the status line */
    VT_WAIT(&vt, status_has(&vt, "first error: step 1 rank 3 Functional.linear."));
    CHECKV(&vt, status_has(&vt, "first error: step 1 rank 3 Functional.linear."));
    CHECKV(&vt, status_has(&vt, ".forward in L1") && status_has(&vt, "_fc1.forward.0"));
    CHECKV(&vt, vt_has(&vt, "step 1 rank 3: "));
    /* the grid: rank 3's row has a pass cell at step 0 and the error cell,
     * with its counts and the first-divergence mark, at step 1 */
    int r3 = rank_row(&vt, 3), r0 = rank_row(&vt, 0);
    CHECKV(&vt, r3 > 0 && r0 > 0 && r0 < r3);
    const char *row = r3 > 0 ? vt_row_text(&vt, r3) : "";
    const char *x = strstr(row, "\xc3\x97");   /* × */
    unsigned long ne = 0, nw = 9, nu = 9;
    CHECKV(&vt, x && sscanf(x + 2, "%lu/%lu/%lu*", &ne, &nw, &nu) == 3);
    CHECK(ne > 0);
    CHECK_INT(nw, 0);
    CHECK_INT(nu, 0);
    CHECKV(&vt, strstr(row, "\xe2\x80\xa2" "0/0/0") != NULL);   /* • pass at step 0 */
    CHECKV(&vt, strchr(row, '*') && strchr(row, '*') > x);
    /* the same counts in words below the grid */
    char words[128];
    snprintf(words, sizeof words, "step 1 rank 3: %lu error, 0 warning, 0 unmatched nodes", ne);
    CHECKV(&vt, vt_has(&vt, words));
    CHECKV(&vt, vt_has(&vt, "first error: Functional.linear."));
    /* every pair of rank 0 passes */
    CHECKV(&vt, r0 > 0 && strstr(vt_row_text(&vt, r0), "\xc3\x97") == NULL);
    CHECK_INT(vt_shot(&vt, "summary", "probetop PROBLEM BENCH over 2 steps x 4 ranks: the run summary") >= 0, 1);

    /* Enter on step 0 rank 0: its tree */
    vt_send(&vt, "g<Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 0, "rank 0") && vt_row_has(&vt, 1, "Tree"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 0, "rank 0") && vt_row_has(&vt, 1, "Tree"));
    /* n: nothing diverges in this pair */
    vt_send(&vt, "n");
    VT_WAIT(&vt, status_has(&vt, "no divergent node after this one"));
    CHECKV(&vt, status_has(&vt, "no divergent node after this one"));
    /* f: the run's first divergence, on its step and rank */
    vt_send(&vt, "f");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 1") && vt_row_has(&vt, 0, "rank 3") &&
                 vt_row_has(&vt, vt_status_row(&vt), "api Functional.linear."));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 1") && vt_row_has(&vt, 0, "rank 3"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "api Functional.linear.") &&
                vt_row_has(&vt, vt_status_row(&vt), "error"));
    CHECKV(&vt, status_has(&vt, "first divergence: Functional.linear.") && status_has(&vt, "step 1 rank 3"));
    /* inside the planted layer's MLP: its rows are open above the node */
    CHECKV(&vt, vt_has(&vt, "layers.1.Trans") && vt_has(&vt, "mlp.MLP.forward.0") && vt_has(&vt, "linear_fc1.C"));
    /* the selected node is the one the summary named */
    char name[128] = "";
    const char *st = strstr(vt_row_text(&vt, vt_status_row(&vt)), "api Functional.linear.");
    if (st) sscanf(st + 4, "%127s", name);
    CHECK(name[0]);
    /* F7: back on the summary, which names the same node */
    vt_send(&vt, "<F7>");
    VT_WAIT(&vt, vt_row_has(&vt, 1, "Run  2 steps x 4 ranks"));
    CHECKV(&vt, vt_row_has(&vt, 1, "Run  2 steps x 4 ranks"));
    char want[200];
    snprintf(want, sizeof want, "first error: step 1 rank 3 %s in ", name);
    CHECKV(&vt, name[0] && status_has(&vt, want));
    vt_send(&vt, "q");
    int stt = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &stt), 0);
    CHECKV(&vt, WIFEXITED(stt) && WEXITSTATUS(stt) == 0);
    vt_close(&vt);
}

/* The ranks of the first divergence's step in the origin order
 * (probetop-rules(7), ORIGIN ACROSS RANKS): tests/gen_origin.py's all_reduce scenario, drifted against its
 * clean twin, is born on rank 2 (a gelu) and reaches ranks 0, 1 and 3
 * through the all_reduce.  By rank number, rank 0's all_reduce would be
 * first; the summary names rank 2's gelu, as `compare --first` does, and f
 * from rank 0's tree lands there. */
static void test_summary_origin(void) {
    const char *py = getenv("PT_PYTHON");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!py || !py[0]) SKIP("no python");
    char gen[1200];
    snprintf(gen, sizeof gen, "%s", __FILE__);
    char *slash = strstr(gen, "/screen/test_summary.c");
    if (!slash) SKIP("tests folder not found");
    strcpy(slash, "/gen_origin.py");
    const char *dir = pt_tmpdir("summary_origin");
    char cmd[8192], p[4200], b[4200];
    snprintf(p, sizeof p, "%s/drift", dir);
    snprintf(b, sizeof b, "%s/clean", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' --as drift allreduce && '%s' '%s' --out '%s' --as clean allreduce",
             py, gen, p, py, gen, b);
    CHECK_INT(system(cmd), 0);
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, status_has(&vt, "first error: step 0 rank 2 Functional.gelu.0.forward"));
    CHECKV(&vt, status_has(&vt, "first error: step 0 rank 2 Functional.gelu.0.forward"));
    int r2 = rank_row(&vt, 2), r0 = rank_row(&vt, 0);
    CHECKV(&vt, r2 > 0 && strchr(vt_row_text(&vt, r2), '*') != NULL);   /* the mark is on rank 2 */
    CHECKV(&vt, r0 > 0 && strchr(vt_row_text(&vt, r0), '*') == NULL);
    /* these dumps are level L1 (no model tree): on the summary, g goes to
     * rank 0's cell and f back to rank 2's */
    vt_send(&vt, "g");
    VT_WAIT(&vt, vt_has(&vt, "step 0 rank 0: "));
    CHECKV(&vt, vt_has(&vt, "step 0 rank 0: "));
    vt_send(&vt, "f");
    VT_WAIT(&vt, vt_has(&vt, "step 0 rank 2: "));
    CHECKV(&vt, vt_has(&vt, "step 0 rank 2: "));
    vt_send(&vt, "q");
    int stt = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &stt), 0);
    CHECKV(&vt, WIFEXITED(stt) && WEXITSTATUS(stt) == 0);
    vt_close(&vt);
}

int main(void) {
    RUN(test_summary_80x24);
    RUN(test_summary_origin);
    PT_DONE();
}
