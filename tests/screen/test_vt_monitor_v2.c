/* test_vt_monitor_v2: the analyzer on the monitor_v2 fixture (2 ranks x 3
 * steps x 2 micro steps, a NaN planted at step 2 rank 1 in layers.1.mlp):
 * the metric as the user knows it (module/forward), the targets and their
 * labels, a value in the status line, and the planted NaN on the heat map
 * at the micro step it was written in. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

/* CHECK, plus the screen on failure. */
#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)
#define WAIT_CHECK(vt, cond) do { VT_WAIT(vt, cond); CHECKV(vt, cond); } while (0)

static void v2_fixture(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!p) SKIP("fixtures absent");
    struct vt vt;
    const char *const args[] = {p, NULL};
    if (vt_spawn_app(&vt, 120, 40, args, NULL) != 0) { CHECK(0); return; }
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));
    CHECKV(&vt, vt_row_has(&vt, 0, "module/forward/norm") && vt_row_has(&vt, 0, "step 0.0"));
    CHECKV(&vt, vt_row_has(&vt, 1, "x rank (2)  y target (80)"));
    int st = vt_status_row(&vt);
    /* rank_0/module_step0-0.csv line 2: word_embeddings.input.0, norm 1182006.898... */
    CHECKV(&vt, vt_row_has(&vt, st, "step 0.0  rank 0  module/forward/norm = 1.18201e+06"));
    CHECKV(&vt, vt_row_has(&vt, st + 1, "module.module.embedding.word_embeddings.input.0"));
    /* step 2's first micro step (axis position 4): the NaN on rank 1 */
    vt_send(&vt, ":step 2.0<Enter>");
    WAIT_CHECK(&vt, vt_row_has(&vt, 0, "step 2.0"));
    vt_send(&vt, ":goto layers.1.mlp.linear_fc1.output.0<Enter>");
    WAIT_CHECK(&vt, vt_row_has(&vt, st + 1, "module.module.decoder.layers.1.mlp.linear_fc1.output.0"));
    CHECKV(&vt, vt_row_has(&vt, st, "step 2.0  rank 0  module/forward/norm = 9754.6"));
    CHECKV(&vt, vt_row_has(&vt, st, "labels: module decoder layers layers.1 mlp linear_fc1 output output.0"));
    int row = -1;
    CHECKV(&vt, vt_find(&vt, "decoder.L1.mlp.linear_fc1.out0", &row, NULL) && vt_row_has(&vt, row, "NaN"));
    vt_send(&vt, "<Right>");
    WAIT_CHECK(&vt, vt_row_has(&vt, st, "step 2.0  rank 1  module/forward/norm = NaN"));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(v2_fixture);
    PT_DONE();
}
