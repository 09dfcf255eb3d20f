/* test_vt_nonfinite: the .trend.db msProbe's data2db wrote from a monitor
 * tree with placeholder rows and a planted NaN/Inf (tests/data/nonfinite),
 * fully loaded and lazily (--mem 0): a NaN stored as NULL shows as NaN in
 * the heat map and the status line, not as absent data; a target NULL on
 * every step and rank shows the no-tensor mark (probetop-rules(7), OVERFLOW
 * LEVELS; probetop-formats(5), TREND.DB). */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *db_path(void) {
    static char path[4200];
    const char *src = getenv("PT_SRC");
    snprintf(path, sizeof path, "%s/tests/data/nonfinite/msprobe_db/monitor_data.trend.db", src ? src : ".");
    return path;
}

static bool status_has(struct vt *vt, const char *text) {
    return strstr(vt_row_text(vt, vt->rows - 2), text) != NULL;
}

/* The screen row holding both texts (a heat-map row: its label and a
 * cell; the legend: its glyphs), or "". */
static const char *row_with(struct vt *vt, const char *a, const char *b) {
    for (int y = 0; y < vt->rows; y++) {
        const char *r = vt_row_text(vt, y);
        if (strstr(r, a) && strstr(r, b)) return r;
    }
    return "";
}

/* Filters the targets to regex re (one row). */
static void filter(struct vt *vt, const char *re) {
    vt_send(vt, "/\x15");   /* the prompt, emptied */
    vt_send(vt, re);
    vt_send(vt, "\r");
}

static void browse(const char *mem) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--mem", mem, db_path(), NULL};
    struct vt vt;
    if (vt_spawn_app(&vt, 140, 30, args, NULL) < 0) SKIP("spawn failed");
    VT_WAIT(&vt, strstr(vt_screen_text(&vt), "Heat map") != NULL);
    VT_WAIT(&vt, status_has(&vt, "step 0  rank 0  actv/"));
    filter(&vt, "layers.0.mlp.linear_fc1.output_0");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, vt.rows - 1), "linear_fc1.output_0") != NULL);
    vt_send(&vt, "]l");   /* step 1, rank 1: the planted cell */
    VT_WAIT(&vt, status_has(&vt, "step 1  rank 1  actv/"));
    for (int i = 0; i < 8 && !status_has(&vt, "actv/mean "); i++) {
        vt_send(&vt, "s");
        VT_WAIT(&vt, status_has(&vt, "actv/"));
    }
    VT_WAIT(&vt, status_has(&vt, "actv/mean = NaN"));   /* stored as NULL: NaN, not "(no data)" */
    CHECKV(&vt, strstr(row_with(&vt, "linear_fc1.output_0 ", "["), "[NaN") != NULL);   /* the cursor's cell */
    CHECKV(&vt, !status_has(&vt, "(no data)"));
    /* msProbe's placeholder for an output that is no tensor: the no-tensor mark */
    filter(&vt, "layers.0.self_attention.linear_qkv.output_1");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, vt.rows - 1), "linear_qkv.output_1") != NULL);
    VT_WAIT(&vt, status_has(&vt, "(no tensor)"));
    CHECKV(&vt, strstr(row_with(&vt, "linear_qkv.output_1 ", "["), "[\xc2\xb7") != NULL);
    CHECKV(&vt, strstr(row_with(&vt, "linear_qkv.output_1 ", "["), "NaN") == NULL);
    CHECKV(&vt, row_with(&vt, "-Inf", "\xc2\xb7 no tensor")[0] != '\0');   /* the legend */
    vt_send(&vt, "q");
    int st = -1;
    CHECKV(&vt, vt_wait_exit(&vt, 10000, &st) == 0);
    CHECK_INT(st, 0);
    vt_close(&vt);
}

static void loaded(void) { browse("1G"); }
static void slices_only(void) { browse("0"); }

int main(void) {
    RUN(loaded);
    RUN(slices_only);
    PT_DONE();
}
