/* test_vt_lanes_group: the lane view at cluster scale (probetop(1), LANE
 * VIEW: Groups) driven through the real binary.  At 200x60, 256 ranks of
 * tests/gen_trace.py in pipelines of 4 (pg_config: stage = rank % 4): one
 * row per stage, each slice's median busy share as a glyph's height and
 * its worst rank's as the colour, the status line naming the slice's
 * median and worst rank, the drill-down into a stage (Enter) and back
 * (Esc), the other groupings (c), a time range (v .. v) and its figures.
 * At 80x24, 128 ranks without process groups: blocks of ranks, as many as
 * fit the rows. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

#define ROW0 3   /* toolbar, title, axis: the first group row */

/* The screen row whose text starts with s, -1 when none. */
static int row_of(struct vt *vt, const char *s) {
    for (int r = 0; r < vt->rows; r++)
        if (!strncmp(vt_row_text(vt, r), s, strlen(s))) return r;
    return -1;
}

/* Glyphs of a grouped row right of its label: the distinct ones seen,
 * and how many cells are drawn in colours different from the first. */
static int glyphs(struct vt *vt, int r, int c0, int *colours) {
    uint32_t seen[16];
    int ns = 0, ng = 0;
    uint32_t g[16];
    for (int c = c0; c < vt->cols; c++) {
        struct vt_cell x;
        if (vt_cell(vt, r, c, &x) != 0) break;
        int k;
        for (k = 0; k < ng && g[k] != x.ch; k++) {}
        if (k == ng && ng < 16) g[ng++] = x.ch;
        uint32_t ink = vt_cell_ink(&x);
        for (k = 0; k < ns && seen[k] != ink; k++) {}
        if (k == ns && ns < 16) seen[ns++] = ink;
    }
    *colours = ns;
    return ng;
}

static void group_200x60(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = pt_gen_traces("g256", "--ranks 256 --pp 4 --pg-config --steps 2 --micro 2 --straggler 37");
    if (!dir) SKIP("python absent");
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, 200, 60, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "256 lanes: all ranks", NULL, NULL));
    /* more ranks than rows: one row per pipeline stage, 64 ranks each */
    VT_WAIT(&vt, row_of(&vt, "stage 0 (64)") == ROW0);
    for (int k = 0; k < 4; k++) {
        char lab[32];
        snprintf(lab, sizeof lab, "stage %d (64)", k);
        CHECKV(&vt, row_of(&vt, lab) == ROW0 + k);
        int colours, ng = glyphs(&vt, ROW0 + k, 13, &colours);
        CHECKV(&vt, ng >= 3);   /* busy shares of several heights */
    }
    CHECKV(&vt, row_of(&vt, "stage 4") < 0);
    CHECKV(&vt, vt_find(&vt, "height: median busy", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "stage 0 (64)  +0.000..+", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "busy median ", NULL, NULL) && vt_find(&vt, "(rank ", NULL, NULL));
    CHECK_INT(vt_shot(&vt, "lanes-groups-256", "probetop TRACES (256 ranks, PP 4): the lanes grouped by stage") >= 0, 1);
    /* stage 1 holds the straggler 37: Enter shows its 64 ranks, 1, 5, 9, ... */
    vt_send(&vt, "j");
    VT_WAIT(&vt, vt_find(&vt, "stage 1 (64)  +0.000..+", NULL, NULL));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_find(&vt, "64 lanes: all ranks", NULL, NULL));
    CHECKV(&vt, row_of(&vt, "1 ") == ROW0 && row_of(&vt, "5 ") == ROW0 + 1 && row_of(&vt, "37 ") == ROW0 + 9);
    vt_send(&vt, "<Esc>");
    VT_WAIT(&vt, row_of(&vt, "stage 0 (64)") == ROW0);
    /* c: by pipeline group (64 of 4), blocks, one lane per rank, stage again */
    vt_send(&vt, "c");
    VT_WAIT(&vt, row_of(&vt, "pipeline 0 (4)") == ROW0);
    CHECKV(&vt, row_of(&vt, "pipeline 1 (4)") == ROW0 + 1);
    vt_send(&vt, "c");
    VT_WAIT(&vt, row_of(&vt, "ranks 0-4 ") == ROW0);   /* 256 ranks on 55 rows: blocks of 5 */
    vt_send(&vt, "c");
    VT_WAIT(&vt, vt_find(&vt, "lanes: one per rank", NULL, NULL));
    vt_send(&vt, "c");
    VT_WAIT(&vt, row_of(&vt, "stage 0 (64)") == ROW0);
    /* a time range: 20 columns of stage 0 */
    vt_send(&vt, "v");
    VT_WAIT(&vt, vt_find(&vt, "range from +0 ns: move, then v", NULL, NULL));
    for (int i = 0; i < 19; i++) vt_send(&vt, "l");
    vt_send(&vt, "v");
    VT_WAIT(&vt, vt_find(&vt, "range +0 ns..+", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "256 ranks: comp ", NULL, NULL) && vt_find(&vt, " idle ", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "| forward ", NULL, NULL));
    vt_send(&vt, "<Esc>");
    VT_WAIT(&vt, !vt_find(&vt, "range +0 ns..+", NULL, NULL));
    pt_vt_quit(&vt);
}

static void group_80x24(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = pt_gen_traces("g128", "--ranks 128 --pp 4 --steps 2");
    if (!dir) SKIP("python absent");
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "128 lanes: all ranks", NULL, NULL));
    /* no process groups in the traces: blocks of consecutive ranks */
    VT_WAIT(&vt, row_of(&vt, "ranks 0-") == ROW0);
    int last = -1;
    for (int r = ROW0; r < vt_status_row(&vt) - 1; r++)
        if (!strncmp(vt_row_text(&vt, r), "ranks ", 6)) last = r;
    CHECKV(&vt, last > ROW0 && strstr(vt_row_text(&vt, last), "-127") != NULL);
    vt_send(&vt, "G");
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_find(&vt, "Esc: back to the groups", NULL, NULL));
    CHECKV(&vt, row_of(&vt, "127") > 0);
    vt_send(&vt, "<BS>");
    VT_WAIT(&vt, row_of(&vt, "ranks 0-") == ROW0);
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(group_200x60);
    RUN(group_80x24);
    PT_DONE();
}
