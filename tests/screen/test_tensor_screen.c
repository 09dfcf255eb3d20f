/* test_tensor_screen: tensor mode on the compare screen.  A tensor dump pair
 * written by the test (tests/tensor_pair.h: .npy files, one output negated,
 * one a little off, one shape changed, one call only on the problem side)
 * is opened as `probetop PROBLEM BENCH`; the tree's chips, `f`, and the
 * detail pane's six tensor metrics are checked at 80x24 and 120x40. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"
#include "tensor_pair.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static bool status_has(struct vt *vt, const char *text) {
    return strstr(vt_row_text(vt, vt_status_row(vt)), text) || strstr(vt_row_text(vt, vt->rows - 1), text);
}

/* The verdict chip of a tree row (• ! × ? -), 0 none. */
static uint32_t chip(struct vt *vt, int row) {
    for (int c = 0; row >= 0 && c < vt->cols / 2; c++) {
        struct vt_cell cell;
        vt_cell(vt, row, c, &cell);
        if (cell.ch == 0x2022 || cell.ch == '!' || cell.ch == 0xd7 || cell.ch == '?' || cell.ch == '-') return cell.ch;
    }
    return 0;
}

static void at(const char *npu, const char *bench, int cols, int rows) {
    fprintf(stderr, "   at %dx%d\n", cols, rows);
    const char *args[] = {npu, bench, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "Apis_Between_Modules") > 0);
    vt_send(&vt, "e");   /* expand everything under the root */
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "sub.0.forward") > 0);
    CHECKV(&vt, pt_vt_tree_row(&vt, "mul.0.forward") > 0);
    /* no fallback note: the .npy files are read */
    CHECKV(&vt, !vt_has(&vt, "comparing statistics"));
    CHECK(chip(&vt, pt_vt_tree_row(&vt, "add.0.forward")) == 0x2022);   /* • pass */
    CHECK(chip(&vt, pt_vt_tree_row(&vt, "mul.0.forward")) == 0xd7);     /* × error */
    CHECK(chip(&vt, pt_vt_tree_row(&vt, "relu.0.forward")) == 0xd7);    /* shape */
    CHECK(chip(&vt, pt_vt_tree_row(&vt, "sub.0.forward")) == '?');      /* unmatched */

    /* f: the negated output is the first divergence; the detail pane shows
     * the tensor metrics of its rows, cosine -1 on the output */
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "first divergence: Functional.mul.0.forward"));
    CHECKV(&vt, status_has(&vt, "first divergence: Functional.mul.0.forward  error"));
    VT_WAIT(&vt, vt_has(&vt, "Cosine"));
    CHECKV(&vt, vt_has(&vt, "Cosine") && vt_has(&vt, "EucDist") && vt_has(&vt, "MaxRel"));
    CHECKV(&vt, vt_has(&vt, "1/1000") && vt_has(&vt, "5/1000"));
    /* scroll the detail to the output row: Tab, then down until it shows */
    vt_send(&vt, "<Tab>");
    for (int i = 0; i < 80 && !vt_has(&vt, "-1.0"); i++) {
        vt_send(&vt, "j");
        vt_settle(&vt);
    }
    CHECKV(&vt, vt_has(&vt, "output.0  error"));
    CHECKV(&vt, vt_has(&vt, "-1.0"));   /* Cosine of a negated tensor */
    vt_send(&vt, "<Tab>");

    /* the add node: a small error, MaxAbs 4.1f - 4 */
    vt_send(&vt, "gg");
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "add.0.forward") > 0);
    int r = pt_vt_tree_row(&vt, "add.0.forward"), cur = pt_vt_tree_row(&vt, "DefaultModel");
    for (int i = 0; i < 10 && cur >= 0 && cur < r; i++, cur++) vt_send(&vt, "j");
    VT_WAIT(&vt, status_has(&vt, "Functional.add.0.forward"));
    vt_send(&vt, "<Tab>");
    for (int i = 0; i < 80 && !vt_has(&vt, "0.0999999"); i++) {
        vt_send(&vt, "j");
        vt_settle(&vt);
    }
    CHECKV(&vt, vt_has(&vt, "0.0999999"));

    pt_vt_quit(&vt);
}

static void test_tensor_screen(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_tmpdir("tensor_screen");
    char npu[1200], bench[1200];
    snprintf(npu, sizeof npu, "%s/npu/rank0", dir);
    snprintf(bench, sizeof bench, "%s/bench/rank0", dir);
    CHECK_INT(tp_write_side(npu, 0, ".npy"), 0);
    CHECK_INT(tp_write_side(bench, 1, ".npy"), 0);
    at(npu, bench, 80, 24);
    at(npu, bench, 120, 40);
}

int main(void) {
    RUN(test_tensor_screen);
    PT_DONE();
}
