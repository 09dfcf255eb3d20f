/* test_vt_pipeline: the pipeline view (P in the lanes, :view pipeline;
 * probetop(1), PIPELINE VIEW) driven through the real binary on a 1F1B
 * run of tests/gen_trace.py --schedule 1f1b (PP 2, 2 micro-batches, the
 * last stage 1.6 times slower: test_trace_pipeline.c works its times out).
 * At 80x24 and 200x60: one row per stage, the picked micro-batch's bands
 * in the highlight colour on every stage, the widest bubble and the
 * slowest link in the status line; p walks the pipeline groups. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

/* The screen row whose text starts with s. */
static int row_of(struct vt *vt, const char *s) {
    for (int r = 0; r < vt->rows; r++)
        if (!strncmp(vt_row_text(vt, r), s, strlen(s))) return r;
    return -1;
}

/* The colour (ink) of the first cell of row r from column c0 showing ch. */
static int ink_of(struct vt *vt, int r, int c0, char ch, uint32_t *out) {
    for (int c = c0; c < vt->cols; c++) {
        struct vt_cell x;
        if (vt_cell(vt, r, c, &x) != 0) return -1;
        if (x.ch == (uint32_t)ch) { *out = vt_cell_ink(&x); return 0; }
    }
    return -1;
}

static void at_size(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    char name[32];
    snprintf(name, sizeof name, "pipe%dx%d", cols, rows);
    const char *dir = pt_gen_traces(name, "--ranks 4 --pp 2 --micro 2 --steps 2 --schedule 1f1b --pg-config --time relative");
    if (!dir) SKIP("python absent");
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "Lanes  step 1", NULL, NULL));
    vt_send(&vt, "P");
    VT_WAIT(&vt, vt_find(&vt, "Pipeline  step 1 (1/2)  group 0/2  2 stages  2 micro-batches", NULL, NULL));
    /* a row per stage, in the group's order */
    int r0 = row_of(&vt, "s0 r0"), r1 = row_of(&vt, "s1 r1");
    CHECKV(&vt, r0 > 0 && r1 == r0 + 1);
    CHECKV(&vt, row_of(&vt, "s2") < 0);
    /* micro-batch 0 picked: its cells in the highlight colour, micro-batch
     * 1's forward (green) not; then 1 picked: the other way round */
    uint32_t h0 = 0, f1 = 0, h1 = 0, f0 = 0;
    CHECKV(&vt, ink_of(&vt, r0, 11, '0', &h0) == 0 && ink_of(&vt, r0, 11, '1', &f1) == 0);
    CHECKV(&vt, h0 != f1);
    vt_send(&vt, "]");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, vt_status_row(&vt)), "micro-batch 1  step 1"));
    CHECKV(&vt, ink_of(&vt, r0, 11, '1', &h1) == 0 && ink_of(&vt, r0, 11, '0', &f0) == 0);
    CHECKV(&vt, h1 == h0 && f0 == f1);
    uint32_t s1 = 0;   /* on the other stage too */
    CHECKV(&vt, ink_of(&vt, r1, 11, '1', &s1) == 0 && s1 == h0);
    /* the widest bubble: stage 0 idles between micro-batch 1's forward and
     * micro-batch 0's backward, 598.5 us (the generator's clock skew: +-0.5) */
    vt_send(&vt, "b");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, vt_status_row(&vt)), "widest bubble: stage 0 (rank 0)  idle 598."));
    CHECKV(&vt, vt_row_has(&vt, r0, "!"));
    vt_send(&vt, "L");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, vt_status_row(&vt)), "slowest link: micro-batch 1 forward  stage 0 -> 1  583."));
    vt_send(&vt, "p");
    VT_WAIT(&vt, vt_find(&vt, "group 1/2", NULL, NULL));
    CHECKV(&vt, row_of(&vt, "s0 r2") > 0 && row_of(&vt, "s1 r3") > 0);
    vt_send(&vt, ")");
    VT_WAIT(&vt, vt_find(&vt, "Pipeline  step 2 (2/2)", NULL, NULL));
    vt_close(&vt);
}

static void pipe_80x24(void) { at_size(80, 24); }
static void pipe_200x60(void) { at_size(200, 60); }

/* Interleaved 1F1B with its sends and receives (gen_trace.py --vpp 2
 * --p2p; test_trace_pipeline.test_interleaved works the times out): the
 * title says the links are the pairs, stage 1's bands carry micro-batches
 * 0 and 1 only, and L names the hand-over stage 0's F(c1,m1) waits 295.25
 * us for. */
static void interleaved_at(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    char name[32];
    snprintf(name, sizeof name, "pipev%dx%d", cols, rows);
    const char *dir = pt_gen_traces(name, "--ranks 2 --pp 2 --vpp 2 --micro 2 --steps 1 --straggler -1 --schedule 1f1b "
                                          "--pg-config --p2p --time relative");
    if (!dir) SKIP("python absent");
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, ":view pipeline\r");
    VT_WAIT(&vt, vt_find(&vt, "Pipeline  step 1 (1/1)  group 0/1  2 stages  2 micro-batches", NULL, NULL));
    if (cols >= 100) CHECKV(&vt, vt_find(&vt, "links: send/recv", NULL, NULL));
    int r1 = row_of(&vt, "s1 r1");
    CHECKV(&vt, r1 > 0 && !vt_row_has(&vt, r1, "2") && !vt_row_has(&vt, r1, "3"));
    vt_send(&vt, "L");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, vt_status_row(&vt)), "slowest link: micro-batch 1 forward  stage 0 -> 1  295."));
    if (cols >= 100) CHECKV(&vt, strstr(vt_row_text(&vt, vt_status_row(&vt)), "(a send and its receive)") != NULL);
    vt_close(&vt);
}

static void interleaved_80x24(void) { interleaved_at(80, 24); }
static void interleaved_200x60(void) { interleaved_at(200, 60); }

/* :view pipeline without pipeline groups says so. */
static void no_groups(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = pt_gen_traces("pipenog", "--ranks 2 --pp 2 --steps 1");
    if (!dir) SKIP("python absent");
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, ":view pipeline\r");
    VT_WAIT(&vt, vt_find(&vt, "No pipeline groups in these traces", NULL, NULL));
    vt_close(&vt);
}

int main(void) {
    RUN(pipe_80x24);
    RUN(pipe_200x60);
    RUN(interleaved_80x24);
    RUN(interleaved_200x60);
    RUN(no_groups);
    PT_DONE();
}
