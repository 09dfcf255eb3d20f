/* test_vt_trace_tables: the kernel tables pane (`:view tables`) on HTA's
 * sampled_2rank trace (probetop-rules(7), PROFILER TRACES: Kernel types, Top
 * kernels, Idle time), at 80x24 and 200x60: HTA's kernel-type rows with its
 * numbers (hta_tables.py: communication alone 305 584 us, computation
 * overlapping communication 56 747 us), rank 0's top kernel (the NCCL
 * SendRecv, 5 kernels, 195 327 us), its `others` row, and, scrolled to the
 * end, rank 1's idle time of stream 84 (host wait 251 860 us, other
 * 23 247 us); A lists every kernel name; q goes back. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static void tables(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("fixtures absent");
    struct vt vt;
    const char *args[] = {p, NULL};
    if (vt_spawn_app(&vt, cols, rows, args, NULL) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, ":view tables<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "Kernel tables"));
    VT_WAIT(&vt, vt_has(&vt, "Kernel types, all ranks"));
    CHECKV(&vt, vt_has(&vt, "305584"));
    CHECKV(&vt, vt_has(&vt, "COMPUTATION overlapping COMMUNICATION"));
    CHECKV(&vt, vt_has(&vt, "56747"));
    if (rows >= 60) {
        CHECKV(&vt, vt_has(&vt, "195327"));       /* rank 0's NCCL SendRecv */
        CHECKV(&vt, vt_has(&vt, "ncclKernel_SendRecv"));
        CHECKV(&vt, vt_has(&vt, "others"));
        CHECKV(&vt, vt_has(&vt, "213825"));       /* rank 0 stream 7 host wait */
        CHECK(vt_shot(&vt, "trace_tables", "probetop TRACES/ then :view tables: kernel types, top kernels, idle time") >= 0);
    }
    vt_send(&vt, "G");
    VT_WAIT(&vt, vt_has(&vt, "251860"));          /* at the end: rank 1, stream 84 */
    CHECKV(&vt, vt_has(&vt, "23247"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "kernel tables of 2 ranks"));
    vt_send(&vt, "gA");
    VT_WAIT(&vt, vt_has(&vt, "every kernel") == 0 && vt_has(&vt, "the first 10"));
    vt_send(&vt, "q");
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    if (getenv("PT_DUMP")) vt_dump(&vt, stderr);
    vt_send(&vt, "q");
    int st;
    VT_WAIT(&vt, vt_wait_exit(&vt, 0, &st) == 0);
    char why[256];
    CHECKV(&vt, vt_restored(&vt, why, sizeof why));
    vt_close(&vt);
}

static void tables_80x24(void) { tables(80, 24); }
static void tables_200x60(void) { tables(200, 60); }

/* From the lanes (F8), t opens the kernel tables and q comes back to the
 * lanes (the pane had no key before). */
static void from_lanes(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("fixtures absent");
    struct vt vt;
    const char *args[] = {p, NULL};
    if (vt_spawn_app(&vt, cols, rows, args, NULL) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_has(&vt, "Lanes"));
    CHECKV(&vt, vt_has(&vt, "Lanes"));
    vt_send(&vt, "t");
    VT_WAIT(&vt, vt_has(&vt, "Kernel types, all ranks"));
    CHECKV(&vt, vt_has(&vt, "Kernel tables") && vt_has(&vt, "305584"));
    vt_send(&vt, "q");
    VT_WAIT(&vt, vt_has(&vt, "Lanes") && !vt_has(&vt, "Kernel tables"));
    CHECKV(&vt, vt_has(&vt, "Lanes") && !vt_has(&vt, "Kernel tables"));
    vt_send(&vt, "q");
    int st;
    VT_WAIT(&vt, vt_wait_exit(&vt, 0, &st) == 0);
    vt_close(&vt);
}
static void lanes_t_80x24(void) { from_lanes(80, 24); }
static void lanes_t_200x60(void) { from_lanes(200, 60); }

int main(void) {
    RUN(tables_80x24);
    RUN(tables_200x60);
    RUN(lanes_t_80x24);
    RUN(lanes_t_200x60);
    PT_DONE();
}
