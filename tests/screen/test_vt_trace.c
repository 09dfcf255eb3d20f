/* test_vt_trace: the heat map on profiler traces (probetop-rules(7),
 * PROFILER TRACES): a generated run
 * of 8 ranks (tests/gen_trace.py) whose rank 5 computes 1.6 times slower.
 * The heat map of a step shows the breakdown targets as rows (compute,
 * communication, idle, exposed_communication, the Megatron phase targets)
 * and ranks as columns; the straggler stands out by colour in compute and
 * in exposed_communication, where it waits least; moving the cursor onto its
 * cell names rank 5 and the value in the status line. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static char gen_path[4096];

/* The generated run's folder, or NULL (skip). */
static const char *make_run(void) {
    static char dir[1100];
    const char *py = getenv("PT_PYTHON"), *d = pt_tmpdir("run");
    char cmd[9000];
    if (!py || !*py || !d) return NULL;
    snprintf(dir, sizeof dir, "%s", d);
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' --ranks 8 --steps 4 --straggler 5 --slow 1.6", py, gen_path, dir);
    return system(cmd) == 0 ? dir : NULL;
}

/* The heat map cell of (row label, column) as its background colour. */
static uint32_t paper_at(struct vt *vt, int row, int col) {
    struct vt_cell c;
    if (vt_cell(vt, row, col, &c) != 0) return 0xffffffffu;
    return vt_cell_paper(&c);
}

static int label_row(struct vt *vt, const char *label) {
    for (int r = 0; r < vt->rows; r++) {
        const char *t = vt_row_text(vt, r);
        const char *p = strstr(t, label);
        if (p && (p == t || p[-1] == ' ') && (p[strlen(label)] == ' ' || p[strlen(label)] == '\0')) return r;
    }
    return -1;
}

static void heatmap(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = make_run();
    if (!dir) SKIP("python or gen_trace.py unavailable");
    struct vt vt;
    const char *args[] = {dir, NULL};
    if (vt_spawn_app(&vt, cols, rows, args, NULL) != 0) { CHECK(!"spawn"); return; }
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    VT_WAIT(&vt, vt_has(&vt, "compute"));
    CHECKV(&vt, vt_has(&vt, "time"));
    int rc = label_row(&vt, "compute"), re = label_row(&vt, "exposed_communication");
    CHECKV(&vt, rc > 0);
    CHECKV(&vt, label_row(&vt, "communication") > 0);
    CHECKV(&vt, label_row(&vt, "idle") > 0);
    if (rows >= 30) {
        CHECKV(&vt, label_row(&vt, "forward.compute") > 0);
        CHECKV(&vt, label_row(&vt, "dp_grad.communication") > 0);
    }
    /* ranks are columns: eight cells after the label column; rank 5 differs
     * from rank 0 in compute and in exposed communication, and ranks 0..4, 6, 7
     * look alike */
    int axis = -1;
    vt_find(&vt, "Heat map", &axis, NULL);
    int c0 = -1, c5 = -1, c7 = -1;
    if (axis >= 0) {
        c0 = vt_col_of(&vt, axis + 1, " 0");
        c5 = vt_col_of(&vt, axis + 1, " 5");
        c7 = vt_col_of(&vt, axis + 1, " 7");
    }
    CHECKV(&vt, c0 >= 0 && c5 > c0 && c7 > c5);
    if (rc > 0 && re > 0 && c0 >= 0 && c5 >= 0 && c7 >= 0) {
        c0++, c5++, c7++;   /* the digit's cell */
        CHECKV(&vt, paper_at(&vt, rc, c5) != paper_at(&vt, rc, c0));
        CHECKV(&vt, paper_at(&vt, re, c5) != paper_at(&vt, re, c0));
        CHECKV(&vt, paper_at(&vt, rc, c7) == paper_at(&vt, rc, c0));
        CHECKV(&vt, paper_at(&vt, re, c7) == paper_at(&vt, re, c0));
    }
    /* the cursor on the straggler's compute cell: 2 micro batches x 12 kernels
     * of 64 us, and the optimizer's 25 us */
    vt_send(&vt, "<Right><Right><Right><Right><Right>");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "rank 5"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "time/us = 1561"));
    if (rows >= 40)
        CHECK(vt_shot(&vt, "trace", "probetop TRACES/ (8 ranks, rank 5 slow): the step's breakdown per rank, cursor on the straggler") >= 0);
    if (getenv("PT_DUMP")) vt_dump(&vt, stderr);
    vt_send(&vt, "q");
    int st;
    VT_WAIT(&vt, vt_wait_exit(&vt, 0, &st) == 0);
    char why[256];
    CHECKV(&vt, vt_restored(&vt, why, sizeof why));
    vt_close(&vt);
}

static void heatmap_80x24(void) { heatmap(80, 24); }
static void heatmap_120x40(void) { heatmap(120, 40); }

int main(void) {
    snprintf(gen_path, sizeof gen_path, "%s", __FILE__);
    char *slash = strstr(gen_path, "/screen/test_vt_trace.c");
    if (slash) snprintf(slash, sizeof gen_path - (size_t)(slash - gen_path), "/gen_trace.py");
    RUN(heatmap_80x24);
    RUN(heatmap_120x40);
    PT_DONE();
}
