/* test_vt_trend: the trend screen of `probetop --demo=trend` as a user sees it, at
 * 80x24, 120x40 and 40x12, with its screenshots.
 *
 * The demo plants a burst (model/cube/demo.h): at step 9 on rank 5 the forward
 * output of layers.5.mlp.linear_fc2 overflows (norm +Inf) and everything
 * after it in that pass is NaN.  Each size checks that the burst is visible
 * by glyph and colour, that `:goto` lands on it with the value in the
 * status line, that m/s/d/[/] change the toolbar and the picture, that
 * Enter adds a legend entry per line, and that q gives the terminal back.
 * Every step waits for the state it asserts; nothing depends on timing. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

#define BURST_TARGET "layers.5.mlp.linear_fc2.RowParallelLinear.output"
#define AFTER_BURST "layers.6.input_layernorm"          /* first NaN row of the next layer */
#define DRIFT_TARGET "layers.2.self_attention.linear_proj.RowParallelLinear.output"

/* CHECK, plus the screen on failure. */
#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *const demo_args[] = { "--demo=trend", NULL };

/* Where the panes are on this screen. */
struct rows_of {
    int hm_title;     /* "Heat map" title row */
    int axis;         /* x labels */
    int hm_end;       /* first row after the heat map body (legend or chart) */
    int lc_title;     /* "Line chart" row, -1 when the chart is not shown */
    int status;       /* first status row */
};

static void find_rows(struct vt *vt, struct rows_of *r) {
    r->hm_title = r->lc_title = -1;
    vt_find(vt, "Heat map", &r->hm_title, NULL);
    vt_find(vt, "Line chart", &r->lc_title, NULL);
    r->axis = r->hm_title + 1;
    r->status = vt->rows >= 12 ? vt->rows - 2 : vt->rows - 1;
    r->hm_end = r->lc_title >= 0 ? r->lc_title : r->status;
    int legend;
    if (vt_find_from(vt, "+Inf - -Inf", r->axis + 1, &legend, NULL) && legend < r->hm_end) r->hm_end = legend;
}


static void command(struct vt *vt, const char *cmd) {
    char keys[256];
    snprintf(keys, sizeof keys, ":%s<Enter>", cmd);
    vt_send(vt, keys);
}

/* Cell column of single-digit x label `label` on the axis row (the label
 * starts where its column of cells starts), -1 when absent. */
static int label_col(struct vt *vt, int axis, const char *label) {
    char pat[16];
    snprintf(pat, sizeof pat, " %s ", label);
    int col = vt_col_of(vt, axis, pat);
    if (col < 0) {
        snprintf(pat, sizeof pat, " %s", label);   /* the last label ends the row */
        col = vt_col_of(vt, axis, pat);
    }
    return col < 0 ? -1 : col + 1;
}

/* The row of the heat map whose cell at col is the cursor ("[" ... "]"). */
static int cursor_row(struct vt *vt, const struct rows_of *r, int col) {
    for (int y = r->axis + 1; y < r->hm_end; y++) {
        struct vt_cell c;
        vt_cell(vt, y, col, &c);
        if (c.ch == '[') return y;
    }
    return -1;
}

static bool status_has(struct vt *vt, const char *text) {
    return strstr(vt_row_text(vt, vt->rows >= 12 ? vt->rows - 2 : vt->rows - 1), text) != NULL;
}

static void burst(struct vt *vt, int cols, int rows) {
    struct rows_of r;
    command(vt, "step 9");
    VT_WAIT(vt, vt_row_has(vt, 0, "step 9"));
    CHECKV(vt, vt_row_has(vt, 0, "step 9"));
    command(vt, "rank 5");
    VT_WAIT(vt, status_has(vt, "rank 5"));
    CHECKV(vt, status_has(vt, "step 9  rank 5"));

    /* :goto the overflowing module: +Inf in the status line. */
    command(vt, "goto " BURST_TARGET);
    VT_WAIT(vt, status_has(vt, "= +Inf"));
    CHECKV(vt, status_has(vt, "forward/norm = +Inf"));
    find_rows(vt, &r);
    int x5 = label_col(vt, r.axis, "5");
    CHECKV(vt, x5 > 0);
    int cy = cursor_row(vt, &r, x5);
    CHECKV(vt, cy > r.axis);
    struct vt_cell inf, nan, fin, sw;
    vt_cell(vt, cy, x5 + 1, &inf);
    CHECKV(vt, inf.ch == '+');
    CHECK(strstr(vt_row_text(vt, cy), "fc2") != NULL);   /* the y label names the module */

    /* The next layer's input: NaN, and the NaN cells between are visible. */
    command(vt, "goto " AFTER_BURST);
    VT_WAIT(vt, status_has(vt, "= NaN"));
    CHECKV(vt, status_has(vt, "step 9  rank 5  forward/norm = NaN"));
    if (rows >= 12) CHECKV(vt, strstr(vt_screen_text(vt), "decoder.layers.6.input_layernorm") != NULL ||
                               cols < 60);
    find_rows(vt, &r);
    x5 = label_col(vt, r.axis, "5");
    int x0 = label_col(vt, r.axis, "0");
    cy = cursor_row(vt, &r, x5);
    CHECKV(vt, cy > r.axis);
    if (cy <= r.axis || x5 <= 0 || x0 < 0) return;
    vt_cell(vt, cy, x5 + 1, &nan);
    CHECKV(vt, nan.ch == 'N');
    if (cols >= 80) CHECKV(vt, strstr(vt_row_text(vt, cy), "[NaN") != NULL);
    /* Every non-cursor cell of rank 5 from the burst down to the cursor:
     * +Inf then NaN, each with its glyph; the NaN ones share one colour
     * that no finite cell (rank 0, same rows) has. */
    int nans = 0, infs = 0;
    for (int y = r.axis + 1; y < cy; y++) {
        struct vt_cell c;
        vt_cell(vt, y, x5, &c);
        if (c.ch == 'N') {
            nans++;
            CHECK(vt_cell_paper(&c) == vt_cell_paper(&nan));
            CHECK(vt_cell_ink(&c) == vt_cell_ink(&nan));
        } else if (c.ch == '+') {
            infs++;
            CHECK(vt_cell_paper(&c) == vt_cell_paper(&inf));
        }
        vt_cell(vt, y, x0, &fin);
        CHECK(fin.ch != 'N' && fin.ch != '+');
        CHECK(vt_cell_paper(&fin) != vt_cell_paper(&nan));
    }
    CHECKV(vt, infs == 1);
    CHECKV(vt, nans >= 1);
    CHECK(vt_cell_paper(&nan) != vt_cell_paper(&inf));
    CHECK(vt_cell_paper(&nan) != VT_DEFAULT_BG);
    /* The legend's NaN swatch (when there is room for it) is that colour. */
    int ly, lx;
    if (vt_find_from(vt, "N NaN", r.axis, &ly, &lx)) {
        vt_cell(vt, ly, lx, &sw);
        CHECK(vt_cell_paper(&sw) == vt_cell_paper(&nan));
    } else {
        CHECKV(vt, rows < 24);
    }
}

/* Key `key` changes the toolbar to contain `want` and the heat map's
 * picture. */
static void changes(struct vt *vt, const char *key, const char *want, const char *title_want) {
    struct rows_of r;
    find_rows(vt, &r);
    uint64_t before = vt_hash_rows(vt, r.axis, r.hm_end);
    vt_send(vt, key);
    VT_WAIT(vt, vt_row_has(vt, 0, want) && vt_hash_rows(vt, r.axis, r.hm_end) != before);
    if (!vt_row_has(vt, 0, want)) fprintf(stderr, "after %s: toolbar lacks \"%s\"\n", key, want);
    CHECKV(vt, vt_row_has(vt, 0, want));
    CHECKV(vt, vt_hash_rows(vt, r.axis, r.hm_end) != before);
    if (title_want) {
        VT_WAIT(vt, r.hm_title >= 0 && vt_row_has(vt, r.hm_title, title_want));
        CHECKV(vt, r.hm_title >= 0 && vt_row_has(vt, r.hm_title, title_want));
    }
}

static void keys(struct vt *vt) {
    changes(vt, "m", "backward/norm", NULL);
    changes(vt, "s", "backward/max", NULL);
    changes(vt, "S", "backward/norm", NULL);
    changes(vt, "M", "forward/norm", NULL);
    changes(vt, "]", "step 10", NULL);
    changes(vt, "[", "step 9", NULL);
    changes(vt, "d", "rank 5", "x step");
    changes(vt, "]", "rank 6", NULL);
    changes(vt, "[", "rank 5", NULL);
    changes(vt, "d", "module", "y rank");
    changes(vt, "d", "step 9", "x rank");
}

/* Legend entry i: the row of the line chart holding "■ i " (or "# i"). */
static int legend_row(struct vt *vt, const struct rows_of *r, int i) {
    char pat[16];
    snprintf(pat, sizeof pat, " %d rank", i);
    int y;
    if (r->lc_title >= 0 && vt_find_from(vt, pat, r->lc_title, &y, NULL) && y < r->status) return y;
    return -1;
}

/* The colour of legend entry i's swatch (the glyph before its number). */
static uint32_t swatch(struct vt *vt, int row, int i) {
    char pat[16];
    snprintf(pat, sizeof pat, " %d rank", i);
    int col = vt_col_of(vt, row, pat);
    struct vt_cell c;
    if (col < 1 || vt_cell(vt, row, col - 1, &c) < 0 || c.ch == ' ' || c.ch == 0 || c.fg_default) return 0;
    return vt_cell_ink(&c);
}

static bool focused(struct vt *vt, int title_row) {
    struct vt_cell c;
    return title_row >= 0 && vt_cell(vt, title_row, 0, &c) == 0 && c.ch != ' ' && c.ch != 0;
}

static void lines(struct vt *vt) {
    struct rows_of r;
    command(vt, "goto " DRIFT_TARGET);
    VT_WAIT(vt, status_has(vt, "rank 5  forward/norm ="));
    find_rows(vt, &r);
    uint64_t chart = r.lc_title >= 0 ? vt_hash_rows(vt, r.lc_title + 1, r.status) : 0;
    vt_send(vt, "<Enter>");
    VT_WAIT(vt, strstr(vt_screen_text(vt), "line 1 added") != NULL &&
                (r.lc_title < 0 || legend_row(vt, &r, 1) >= 0));
    CHECKV(vt, strstr(vt_screen_text(vt), "line 1 added") != NULL);
    if (r.lc_title < 0) return;                  /* 40x12: no room for the chart */
    int l1 = legend_row(vt, &r, 1);
    CHECKV(vt, l1 > r.lc_title);
    if (l1 < 0) return;
    CHECK(vt_row_has(vt, l1, "rank 5"));
    CHECK(vt_row_has(vt, l1, "linear_proj"));
    CHECK(vt_hash_rows(vt, r.lc_title + 1, r.status) != chart);
    uint32_t ink1 = swatch(vt, l1, 1);
    CHECKV(vt, ink1 != 0);

    /* A second line, one row down: a second entry in another colour. */
    char before[2048];
    snprintf(before, sizeof before, "%s", vt_row_text(vt, r.status));
    vt_send(vt, "j");
    CHECKV(vt, vt_wait_change(vt, r.status, before, 0) == 0);
    vt_send(vt, "<Enter>");
    VT_WAIT(vt, legend_row(vt, &r, 2) >= 0);
    int l2 = legend_row(vt, &r, 2);
    CHECKV(vt, l2 >= 0);
    if (l2 < 0) return;
    CHECKV(vt, strstr(vt_row_text(vt, r.lc_title), "2 lines") != NULL);
    uint32_t ink2 = swatch(vt, l2, 2);
    CHECKV(vt, ink2 != 0 && ink2 != ink1);

    /* Entry 1 is still there: on screen, or one legend step up when the
     * pane only has room for the selected entry. */
    if (legend_row(vt, &r, 1) < 0) {
        vt_send(vt, "<Tab>");
        VT_WAIT(vt, focused(vt, r.lc_title));
        CHECKV(vt, focused(vt, r.lc_title) && !focused(vt, r.hm_title));
        vt_send(vt, "k");
        VT_WAIT(vt, legend_row(vt, &r, 1) >= 0);
        vt_send(vt, "<Tab>");
        VT_WAIT(vt, focused(vt, r.hm_title));
    }
    l1 = legend_row(vt, &r, 1);
    CHECKV(vt, l1 >= 0);
    if (l1 >= 0) CHECK(swatch(vt, l1, 1) == ink1);

    /* c clears them. */
    vt_send(vt, "c");
    VT_WAIT(vt, legend_row(vt, &r, 1) < 0 && legend_row(vt, &r, 2) < 0);
    CHECKV(vt, legend_row(vt, &r, 1) < 0 && legend_row(vt, &r, 2) < 0);
}

static void trend_at(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    fprintf(stderr, "   at %dx%d\n", cols, rows);
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, demo_args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL) && vt_row_has(&vt, 0, "forward/norm"));
    CHECKV(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    CHECK(vt.altscreen);
    CHECK(vt_row_has(&vt, 0, "step 0"));
    CHECK(status_has(&vt, "step 0  rank 0"));
    burst(&vt, cols, rows);
    keys(&vt);
    lines(&vt);
    pt_vt_quit(&vt);
}

/* The mouse: a click selects a heat-map cell, a double click adds its
 * line, a press held past the click interval and released in place is
 * still a click, and dragging the line chart's title row moves the split. */
static void test_mouse(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, demo_args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Line chart", NULL, NULL) && vt_row_has(&vt, 0, "forward/norm"));
    struct rows_of r;
    find_rows(&vt, &r);
    CHECKV(&vt, r.lc_title > r.axis);
    int c5 = label_col(&vt, r.axis, "5"), c2 = label_col(&vt, r.axis, "2");
    CHECKV(&vt, c5 > 0 && c2 > 0);
    char ev[64];

    /* click: the cell under the pointer becomes the cursor */
    snprintf(ev, sizeof ev, "<click:%d,%d>", r.axis + 2, c5);
    vt_send(&vt, ev);
    VT_WAIT(&vt, status_has(&vt, "rank 5"));
    CHECKV(&vt, status_has(&vt, "step 0  rank 5"));
    CHECKV(&vt, cursor_row(&vt, &r, c5) == r.axis + 2);

    /* double click: its line joins the chart */
    snprintf(ev, sizeof ev, "<dclick:%d,%d>", r.axis + 2, c5);
    vt_send(&vt, ev);
    VT_WAIT(&vt, vt_find(&vt, "1 line", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "1 line", NULL, NULL));

    /* a slow click (held longer than ncurses' click interval) */
    snprintf(ev, sizeof ev, "<press:%d,%d>", r.axis + 3, c2);
    vt_send(&vt, ev);
    vt_pump(&vt, 400);
    snprintf(ev, sizeof ev, "<release:%d,%d>", r.axis + 3, c2);
    vt_send(&vt, ev);
    VT_WAIT(&vt, status_has(&vt, "rank 2"));
    CHECKV(&vt, status_has(&vt, "step 0  rank 2"));

    /* drag the chart's title up 4 rows, then down 2 */
    int from = r.lc_title;
    snprintf(ev, sizeof ev, "<press:%d,%d>", from, 10);
    vt_send(&vt, ev);
    vt_pump(&vt, 50);
    snprintf(ev, sizeof ev, "<release:%d,%d>", from - 4, 10);
    vt_send(&vt, ev);
    VT_WAIT(&vt, vt_row_has(&vt, from - 4, "Line chart"));
    CHECKV(&vt, vt_row_has(&vt, from - 4, "Line chart"));
    CHECKV(&vt, status_has(&vt, "split") || vt_find(&vt, "split", NULL, NULL));
    snprintf(ev, sizeof ev, "<press:%d,%d>", from - 4, 10);
    vt_send(&vt, ev);
    vt_pump(&vt, 50);
    snprintf(ev, sizeof ev, "<release:%d,%d>", from - 2, 10);
    vt_send(&vt, ev);
    VT_WAIT(&vt, vt_row_has(&vt, from - 2, "Line chart"));
    CHECKV(&vt, vt_row_has(&vt, from - 2, "Line chart"));
    /* the split is kept like the + / - one: a repaint shows the same */
    vt_send(&vt, "<C-l>");
    vt_settle(&vt);
    CHECKV(&vt, vt_row_has(&vt, from - 2, "Line chart"));
    /* a press and release elsewhere (not on the title, moved) does nothing */
    snprintf(ev, sizeof ev, "<press:%d,%d>", r.axis + 2, c2);
    vt_send(&vt, ev);
    vt_pump(&vt, 50);
    snprintf(ev, sizeof ev, "<release:%d,%d>", r.axis + 4, c5);
    vt_send(&vt, ev);
    vt_settle(&vt);
    CHECKV(&vt, status_has(&vt, "rank 2") && vt_row_has(&vt, from - 2, "Line chart"));

    pt_vt_quit(&vt);
}

static void test_80x24(void) { trend_at(80, 24); }
static void test_120x40(void) { trend_at(120, 40); }
static void test_40x12(void) { trend_at(40, 12); }

int main(void) {
    RUN(test_80x24);
    RUN(test_120x40);
    RUN(test_40x12);
    RUN(test_mouse);
    PT_DONE();
}
