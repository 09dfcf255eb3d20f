/* test_vt_steps: one step number for the user everywhere (probetop(1),
 * "--micro-step"): on a dump with micro steps, the heat map's step axis,
 * its status line, the status bar and the overflow pane all say the
 * training step with its micro step beside it ("3.0"), never the step
 * axis's own index; a step folder opened alone keeps its own step.
 *
 * The data: gen_dump.py, 4 steps of 2 micro-batches, 2 ranks, a NaN
 * planted at step 3 rank 1 (on the axis, index 6). */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)
#define WAIT_CHECK(vt, cond) do { VT_WAIT(vt, cond); CHECKV(vt, cond); } while (0)

#define GEN_ARGS "--steps 4 --ranks 2 --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 16 --vocab 100 " \
                 "--micro-batches 2 --nan 3:1:layers.1.self_attention --quiet"

static char dir[4200];

static int make_data(void) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    char cmd[13000];
    if (!py || !py[0] || !s) return -1;
    const char *tmp = pt_tmpdir("vt_steps");
    if (!tmp) return -1;
    snprintf(dir, sizeof dir, "%s/mb", tmp);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' " GEN_ARGS " >/dev/null 2>&1", py, s, dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The row at or below from whose text holds text, -1 none. */
static int row_with(struct vt *vt, int from, const char *text) {
    for (int r = from; r < vt->rows; r++)
        if (vt_row_has(vt, r, text)) return r;
    return -1;
}

/* Heat map, status bar and overflow pane on the whole run: step 3 micro 0
 * is "3.0" in all of them (the axis index is 6). */
static void test_micro_steps_agree(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    const char *args[] = {dir, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 30, args, NULL), 0);
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));
    /* the overflow pane's first occurrence: step 3, micro step 0 */
    vt_send(&vt, "<F3>");
    WAIT_CHECK(&vt, vt_has(&vt, "rank all  step all"));
    vt_send(&vt, "F");
    WAIT_CHECK(&vt, vt_row_has(&vt, vt_status_row(&vt), "step 3.0 rank 1"));
    /* the same step on the heat map: selected by the number the user reads */
    vt_send(&vt, "<F2>");
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, ":step 3.0<Enter>");
    WAIT_CHECK(&vt, vt_row_has(&vt, 0, "step 3.0") && vt_row_has(&vt, vt_status_row(&vt), "step 3.0  rank"));
    /* the step axis (dimension module: x step, y target): the training
     * steps with their micro steps, the selected one still 3.0 */
    vt_send(&vt, ":dim module<Enter>");
    WAIT_CHECK(&vt, vt_has(&vt, "x step (8)"));
    int ax = row_with(&vt, 1, "0.0");
    CHECKV(&vt, ax >= 0 && vt_row_has(&vt, ax, "3.1"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "step 3.0  rank"));
    vt_send(&vt, ":dim step<Enter>");
    WAIT_CHECK(&vt, vt_has(&vt, "x rank (2)"));
    /* a micro step of its own, and a step that is not there */
    vt_send(&vt, ":step 3.1<Enter>");
    WAIT_CHECK(&vt, vt_has(&vt, "step 3.1  rank"));
    vt_send(&vt, ":step 9<Enter>");
    WAIT_CHECK(&vt, vt_has(&vt, "no step 9 (steps 0.0..3.1)"));
    pt_vt_quit(&vt);
}

/* A step folder opened alone keeps its step: step3/rank1 is step 3.0 and
 * 3.1, not 3 and 4. */
static void test_step_folder_alone(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (make_data() != 0) SKIP("gen_dump.py (PT_PYTHON, PT_SHARED) not available");
    char one[4400];
    snprintf(one, sizeof one, "%s/step3/rank1", dir);
    const char *args[] = {one, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 30, args, NULL), 0);
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));
    WAIT_CHECK(&vt, vt_row_has(&vt, 0, "step 3.0") && vt_row_has(&vt, vt_status_row(&vt), "step 3.0  rank"));
    vt_send(&vt, ":dim module<Enter>");
    WAIT_CHECK(&vt, vt_has(&vt, "x step (2)"));
    int ax = row_with(&vt, 1, "3.0");
    CHECKV(&vt, ax >= 0 && vt_row_has(&vt, ax, "3.1"));
    vt_send(&vt, "<F3>");
    WAIT_CHECK(&vt, vt_has(&vt, "rank all  step all"));
    vt_send(&vt, "F");
    WAIT_CHECK(&vt, vt_row_has(&vt, vt_status_row(&vt), "step 3.0 rank 1"));
    CHECKV(&vt, !vt_has(&vt, "step 4"));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(test_micro_steps_agree);
    RUN(test_step_folder_alone);
    PT_DONE();
}
