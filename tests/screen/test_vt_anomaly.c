/* test_vt_anomaly: msProbe's monitor anomaly reports on screen
 * (probetop-rules(7), FIRST ANOMALY ORDER): the mark on the heat-map cell an entry names, in its own colour,
 * and the overflow pane's list in msProbe's first-anomaly order, Enter on
 * an entry landing on its cell.
 *
 * The data is written by the test from the documented formats
 * (tests/pt_anomaly.h): a v1 monitor tree and a monitor_v2 tree, each with
 * anomaly_detected/rank<N>/anomaly.json.  Every step waits for the state it
 * asserts. */
#include "pt_test.h"
#include "pt_anomaly.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)
#define WAIT_CHECK(vt, cond) do { VT_WAIT(vt, cond); CHECKV(vt, cond); } while (0)

#define MARK "\xe2\x97\x86"   /* the anomaly glyph (views/heatmap.c) */

/* Orange, as the anomaly role paints it (0xff8700 in xterm's palette;
 * libvterm's own 256-colour cube shows index 208 as 0xff6600): red full,
 * green half, no blue.  Apart from NaN's magenta, +Inf's green, -Inf's cyan. */
static int orange(uint32_t rgb) {
    unsigned r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
    return r == 0xff && g >= 0x40 && g <= 0xb0 && b < 0x40;
}

/* The row (>= from) whose text contains s, or -1. */
static int row_with(struct vt *vt, const char *s, int from) {
    int r, c;
    return vt_find_from(vt, s, from, &r, &c) ? r : -1;
}

/* Number of anomaly marks on rows [r0, r1), and the first one's place. */
static int count_marks(struct vt *vt, int r0, int r1, int *row, int *col) {
    int n = 0;
    for (int y = r0; y < r1; y++)
        for (int x = 0; x < vt->cols; x++) {
            struct vt_cell c;
            if (vt_cell(vt, y, x, &c) != 0 || strcmp(c.glyph, MARK)) continue;
            if (!n && row) *row = y, *col = x;
            n++;
        }
    return n;
}

/* The overflow pane lists the fixture's entries in msProbe's order: the
 * tag of each, top to bottom. */
static void check_list_order(struct vt *vt) {
    int from = 0;
    for (int i = 0; i < PT_ANOM_N; i++) {
        const char *tag = pt_anoms[PT_ANOM_ORDER[i]].tag;
        int r = row_with(vt, tag, from);
        CHECKV(vt, r >= from);
        if (r < 0) return;
        from = r + 1;
    }
}

/* probetop on dir, at 120x36, showing the overflow pane with its reports.
 * 0, or -1 when it could not start. */
static int open_overflow(struct vt *vt, const char *dir) {
    const char *args[] = {dir, NULL};
    if (vt_spawn_app(vt, 120, 36, args, NULL) != 0) {
        CHECK(!"spawn");
        return -1;
    }
    WAIT_CHECK(vt, vt_find(vt, "Heat map", NULL, NULL));
    vt_send(vt, "<F3>");
    WAIT_CHECK(vt, vt_find(vt, "msProbe anomaly reports", NULL, NULL));
    return 0;
}

static void run_tree(const char *dir, const char *metric, const char *target_row, int shots) {
    struct vt vt;
    /* the overflow pane: the reports first, in msProbe's order */
    if (open_overflow(&vt, dir) != 0) return;
    check_list_order(&vt);
    int r = row_with(&vt, pt_anoms[PT_ANOM_ORDER[0]].tag, 0), col = vt_col_of(&vt, r, MARK);
    CHECKV(&vt, r >= 0 && col >= 0);
    struct vt_cell mark;
    if (r >= 0 && col >= 0 && vt_cell(&vt, r, col, &mark) == 0) CHECK(orange(vt_cell_paper(&mark)));
    if (shots) vt_shot(&vt, "anomaly-overflow", "probetop: msProbe anomaly reports in the overflow pane");
    /* Enter on the AnomalyNan entry (the second): its cell in the heat map */
    vt_send(&vt, "j<Enter>");
    WAIT_CHECK(&vt, vt_find(&vt, "anomaly: AnomalyNan norm (forward)", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, metric, NULL, NULL));
    /* the cursor's cell carries the mark, on the entry's target row, in the anomaly colour */
    int hm = row_with(&vt, "Heat map", 0), leg = row_with(&vt, "-Inf", hm + 1), mr = -1, mc = -1;
    /* one report in this slice (step 1 micro step 0 of actv): one mark in the body; the legend has one too */
    int n = count_marks(&vt, hm + 1, leg, &mr, &mc);
    CHECKV(&vt, leg > hm && n == 1);
    CHECKV(&vt, count_marks(&vt, leg, leg + 1, NULL, NULL) == 1);
    int tr = row_with(&vt, target_row, hm + 1);
    struct vt_cell c;
    if (n >= 1 && vt_cell(&vt, mr, mc, &c) == 0) {
        CHECK(orange(vt_cell_paper(&c)));
        CHECK_INT(vt_cell_ink(&c), 0x000000);
    }
    /* the marked cell is on the cursor's row (the entry's target) */
    CHECKV(&vt, tr >= 0 && mr == tr);
    if (shots) vt_shot(&vt, "anomaly-heatmap", "probetop: an msProbe anomaly report marked on its heat-map cell");
    /* the other cuts through the same cell: one rank over the steps, one
     * target over steps and ranks; the report's cell is marked in each */
    static const char *const dims[] = {"x step (", "y rank ("};
    for (int d = 0; d < 2; d++) {
        vt_send(&vt, "d");
        WAIT_CHECK(&vt, vt_find(&vt, dims[d], NULL, NULL));
        hm = row_with(&vt, "Heat map", 0);
        leg = row_with(&vt, "-Inf", hm + 1);
        CHECKV(&vt, leg > hm && count_marks(&vt, hm + 1, leg, NULL, NULL) == 1);
    }
    vt_send(&vt, "q");
    int st;
    CHECK(vt_wait_exit(&vt, 0, &st) == 0);
    vt_close(&vt);
}

static void v1_tree(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_tmpdir("vt_anom_v1");
    CHECK(dir && pt_anom_v1(dir) == 0);
    char d[1024];
    snprintf(d, sizeof d, "%s", dir);
    run_tree(d, "actv", "layers.0.mlp.output", 1);
}

static void v2_tree(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_tmpdir("vt_anom_v2");
    CHECK(dir && pt_anom_v2(dir) == 0);
    char d[1024];
    snprintf(d, sizeof d, "%s", dir);
    run_tree(d, "module/forward", "layers.0.mlp.output.0", 0);
}

/* The overflow pane's step x rank grid: the glyph of (rank, step), the
 * grid's columns right of the "rank N" labels (steps 0 and 1 here). */
static int grid_cell(struct vt *vt, int rank, int step, struct vt_cell *c) {
    char lab[16];
    snprintf(lab, sizeof lab, "rank %d", rank);
    for (int y = 0; y < vt->rows; y++)
        if (vt_col_of(vt, y, lab) == 0) return vt_cell(vt, y, (int)strlen("rank 1") + 1 + step, c);
    return -1;
}

/* F and A, and the grid: with a NaN and reports, F goes to the NaN cell and
 * A to msProbe's first report; without a NaN, F goes to that report.  The
 * grid marks the cells the reports name (a NaN cell keeps its own glyph). */
static void first_keys(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const struct pt_anom *first = &pt_anoms[PT_ANOM_ORDER[0]];   /* post_grad, step 0, rank 1 */
    char want[256];
    /* the tree has micro steps: the step with its micro step, as on the heat map */
    snprintf(want, sizeof want, "first msProbe anomaly report: AnomalyTurbulence at step %d.%d, rank %d", first->step,
             first->micro_step, first->rank);
    for (int nan = 1; nan >= 0; nan--) {
        const char *dir = pt_tmpdir(nan ? "vt_anom_keys_nan" : "vt_anom_keys");
        CHECK(dir && pt_anom_v1_nan(dir, nan) == 0);
        char d[1024];
        snprintf(d, sizeof d, "%s", dir);
        struct vt vt;
        if (open_overflow(&vt, d) != 0) return;
        struct vt_cell c;
        /* rank 1's steps 0 and 1: reports only */
        for (int s = 0; s < 2; s++) {
            CHECKV(&vt, grid_cell(&vt, 1, s, &c) == 0 && !strcmp(c.glyph, MARK));
            CHECK(orange(vt_cell_paper(&c)));
        }
        CHECKV(&vt, grid_cell(&vt, 0, 0, &c) == 0 && !strcmp(c.glyph, "\xc2\xb7"));   /* clean */
        CHECKV(&vt, grid_cell(&vt, 0, 1, &c) == 0 && !strcmp(c.glyph, nan ? "\xe2\x96\x88" : MARK));
        vt_send(&vt, "G");   /* off the first report, so F has to move */
        vt_send(&vt, "F");
        if (nan) {
            WAIT_CHECK(&vt, vt_find(&vt, "first occurrence: non-finite at step 1.0, rank 0", NULL, NULL));
            vt_send(&vt, "A");
        }
        WAIT_CHECK(&vt, vt_find(&vt, want, NULL, NULL));
        /* the cursor is on that report's row */
        int r = row_with(&vt, first->tag, 0);
        CHECKV(&vt, r >= 0 && vt_col_of(&vt, r, "\xe2\x96\xb6") == 0);
        pt_vt_quit(&vt);
    }
}

int main(void) {
    RUN(v1_tree);
    RUN(v2_tree);
    RUN(first_keys);
    PT_DONE();
}
