/* test_vt_dataflow: following a NaN upstream in the tree (probetop(1),
 * COMPARE MODE; probetop-rules(7), DATA FLOW), at 80x24 and 200x60.
 *
 * The data: tests/gen_dump.py, a two-stage pipeline whose NaN is made on
 * rank 0 by Functional.linear.2.forward (the first op of layers.0.mlp:
 * clean inputs, NaN output; `probetop overflow` names it as the origin)
 * and reaches rank 1 through Distributed.recv.0.forward.  From rank 1's
 * NPU.npu_rms_norm.0.forward, `<` eight times walks: recv.0 (statistics),
 * rank 0's send.0 (the send/recv pair), __add__.1, linear.3, __mul__.0,
 * silu.0, chunk.0, linear.2 (statistics; each step read off the dump.json
 * files by hand).  Backspace walks back to the start on rank 1. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <unistd.h>

static char gen_path[4096];

static int make_data(char *dir, size_t size) {
    const char *py = getenv("PT_PYTHON");
    const char *d = pt_tmpdir("vt_dataflow");
    if (!py || !*py || !d) return -1;
    snprintf(dir, size, "%s/pp", d);
    if (access(dir, F_OK) == 0) return 0;
    char cmd[9000];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s' --out '%s' --steps 1 --ranks 2 --pp 2 --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 16 "
             "--vocab 100 --nan 0:0:layers.0.mlp --quiet",
             py, gen_path, dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The breadcrumb row (the tree pane's row under its title). */
static bool crumb_has(struct vt *vt, const char *text) { return vt_row_has(vt, 2, text); }

static void walk_at(const char *dir, int cols, int rows, int shot) {
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F6>");
    VT_WAIT(&vt, vt_has(&vt, "DefaultModel"));
    vt_send(&vt, ":rank 1<Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "rank 1") && vt_has(&vt, "DefaultModel"));
    vt_send(&vt, ":node NPU.npu_rms_norm.0.forward<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "at: NPU.npu_rms_norm.0.forward"));
    int st = vt_status_row(&vt);
    /* one hop: the recv on this rank, by statistics */
    vt_send(&vt, "<lt>");
    VT_WAIT(&vt, vt_row_has(&vt, st + 1, "producer of input.0: Distributed.recv.0.forward output.0  (statistics)"));
    CHECK(crumb_has(&vt, cols >= 200 ? "flow: npu_rms_norm.0.forward \xe2\x86\x90stats recv.0.forward"
                                     : "\xe2\x86\x90stats recv.0.forward"));
    /* across ranks: the sender on rank 0 */
    vt_send(&vt, "<lt>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "rank 0") && vt_has(&vt, "sender on rank 0: Distributed.send.0.forward"));
    VT_WAIT(&vt, crumb_has(&vt, "\xe2\x86\x90p2p r0:send.0.forward"));
    /* six more: to the op that made the NaN */
    static const char *const hops[] = {"Tensor.__add__.1.forward", "Functional.linear.3.forward", "Tensor.__mul__.0.forward",
                                       "Functional.silu.0.forward", "Torch.chunk.0.forward", "Functional.linear.2.forward"};
    for (int i = 0; i < 6; i++) {
        vt_send(&vt, "<lt>");
        char want[128];
        snprintf(want, sizeof want, ": %s output.", hops[i]);
        VT_WAIT(&vt, vt_row_has(&vt, st + 1, want));
    }
    CHECK(vt_row_has(&vt, st + 1, "producer of input.0: Functional.linear.2.forward output.0  (statistics)"));
    /* the breadcrumb keeps the newest end; the origin is selected, marked critical */
    CHECK(crumb_has(&vt, "chunk.0.forward \xe2\x86\x90stats linear.2.forward"));
    CHECK(vt_row_has(&vt, st, "Functional.linear.2.forward") && vt_row_has(&vt, st, "overflow critical"));
    /* cut on the left (the tree pane is 110 columns wide at 200) */
    if (cols >= 200)
        CHECK(crumb_has(&vt, "\xe2\x80\xa6") &&
              crumb_has(&vt, "__mul__.0.forward \xe2\x86\x90stats silu.0.forward \xe2\x86\x90stats chunk.0.forward"));
    if (shot) vt_shot(&vt, "dataflow", "probetop: < walks a NaN upstream from rank 1 to the op that made it on rank 0");
    /* the detail pane lists the links with their method */
    vt_send(&vt, "<Tab>");
    VT_WAIT(&vt, vt_has(&vt, "line 1 of"));
    for (int i = 0; i < 8 && !vt_has(&vt, "data flow (Enter follows"); i++) {   /* after the params: page down */
        vt_send(&vt, "<PgDn>");
        vt_settle(&vt);
    }
    CHECK(vt_has(&vt, "data flow (Enter follows"));
    CHECK(vt_has(&vt, "input.0 from NPU.npu_rms_norm"));
    /* back: six hops to the send, then across to rank 1, then the start */
    for (int i = 4; i >= 0; i--) {
        vt_send(&vt, "<BS>");
        char want[128];
        snprintf(want, sizeof want, "back: %s", hops[i]);
        VT_WAIT(&vt, vt_row_has(&vt, st + 1, want));
    }
    vt_send(&vt, "<BS>");
    VT_WAIT(&vt, vt_row_has(&vt, st + 1, "back: Distributed.send.0.forward"));
    vt_send(&vt, "b");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "rank 1") && vt_has(&vt, "back: Distributed.recv.0.forward"));
    vt_send(&vt, "b");
    VT_WAIT(&vt, vt_row_has(&vt, st + 1, "back: NPU.npu_rms_norm.0.forward  (0 hops walked)"));
    CHECK(!crumb_has(&vt, "flow:"));
    vt_send(&vt, "<BS>");
    VT_WAIT(&vt, vt_has(&vt, "at the start of the walk"));
    /* downstream: the recv's NaN output to its first consumer */
    vt_send(&vt, ":node Distributed.recv.0.forward<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "at: Distributed.recv.0.forward"));
    vt_send(&vt, ">");
    VT_WAIT(&vt, vt_row_has(&vt, st + 1, "consumer of output.0: NPU.npu_rms_norm.0.forward input.0  (statistics)"));
    CHECK(crumb_has(&vt, "\xe2\x86\x92stats npu_rms_norm.0.forward"));
    /* Esc clears the walk and its breadcrumb */
    vt_send(&vt, "<Esc>");
    VT_WAIT(&vt, vt_row_has(&vt, st + 1, "data-flow walk cleared"));
    CHECK(!crumb_has(&vt, "flow:"));
    pt_vt_quit(&vt);
}

static void test_walk_80x24(void) {
    char dir[1200];
    if (make_data(dir, sizeof dir) != 0) SKIP("PT_PYTHON absent or gen_dump.py failed");
    walk_at(dir, 80, 24, 0);
}

static void test_walk_200x60(void) {
    char dir[1200];
    if (make_data(dir, sizeof dir) != 0) SKIP("PT_PYTHON absent or gen_dump.py failed");
    walk_at(dir, 200, 60, 1);
}

int main(void) {
    snprintf(gen_path, sizeof gen_path, "%s", __FILE__);
    char *slash = strstr(gen_path, "/screen/test_vt_dataflow.c");
    if (slash) strcpy(slash, "/gen_dump.py");
    RUN(test_walk_80x24);
    RUN(test_walk_200x60);
    PT_DONE();
}
