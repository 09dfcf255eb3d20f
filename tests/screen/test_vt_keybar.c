/* test_vt_keybar: the keys said, and keys that do what they say, at 80x24
 * and 200x60: the key bar at the bottom (F1 Help, the screens by name, F10
 * Quit), shortened to the width and hidden with K; +, - and :split moving
 * the heat map / line chart split at once; the line chart's lines kept
 * across s, S, m, M and d; the `/` prompt opening empty (the last pattern
 * on Up); `:layers global` in compare mode saying what it did to the label
 * filter and the run, with a toolbar that tells the truth after it. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <stdlib.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *const demo_args[] = {"--demo=trend", NULL};
/* the key bar is on by default; the harness starts it hidden (vt.c) */
static const char *const keybar_env[] = {"PROBETOP_KEYBAR", NULL};

static int msg_row(struct vt *vt) { return vt->rows - 1; }

static void command(struct vt *vt, const char *cmd) {
    char keys[512];
    snprintf(keys, sizeof keys, ":%s<Enter>", cmd);
    vt_send(vt, keys);
}

static void open_demo(struct vt *vt, int cols, int rows, const char *const *env) {
    CHECK_INT(vt_spawn_app(vt, cols, rows, demo_args, env), 0);
    VT_WAIT(vt, vt_find(vt, "Line chart", NULL, NULL) && vt_row_has(vt, 0, "forward/norm"));
    CHECKV(vt, vt_find(vt, "Line chart", NULL, NULL));
}

/* --- the key bar --- */

/* The bar's text on the last row: whole items only, within the width. */
static bool bar_is(struct vt *vt, const char *text) { return !strcmp(vt_row_text(vt, vt->rows - 1), text); }

static void keybar_at(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    open_demo(&vt, cols, rows, keybar_env);
    int last = rows - 1;
    /* the screens the demo has, by name, from the screen table */
    const char *full = "F1Help F2Trend F3Overflow F4Search F5Layout F8Lanes F10Quit";
    VT_WAIT(&vt, vt_row_has(&vt, last, full));
    CHECKV(&vt, !strncmp(vt_row_text(&vt, last), full, strlen(full)));
    if (cols >= 200) CHECKV(&vt, vt_row_has(&vt, last, ":Command") && vt_row_has(&vt, last, "KHide"));
    CHECKV(&vt, (int)strlen(vt_row_text(&vt, last)) <= cols);
    /* the key in the terminal's colours, its label on the bar's; the shown
     * screen's label bold */
    struct vt_cell k, l, cur, other;
    CHECK_INT(vt_cell(&vt, last, 0, &k), 0);        /* F of F1 */
    CHECK_INT(vt_cell(&vt, last, 2, &l), 0);        /* H of Help */
    CHECK_INT(vt_cell(&vt, last, vt_col_of(&vt, last, "Trend"), &cur), 0);
    CHECK_INT(vt_cell(&vt, last, vt_col_of(&vt, last, "Search"), &other), 0);
    CHECKV(&vt, k.bold && vt_cell_paper(&k) == VT_DEFAULT_BG && vt_cell_paper(&l) != VT_DEFAULT_BG);
    CHECKV(&vt, cur.bold && !other.bold && vt_cell_paper(&cur) == vt_cell_paper(&other));
    /* the status line sits above it */
    CHECKV(&vt, vt_row_has(&vt, rows - 3, "step 0  rank 0"));

    /* K hides it (the status line takes the bottom rows), K shows it again */
    vt_send(&vt, "K");
    VT_WAIT(&vt, !vt_row_has(&vt, last, "F1Help") && vt_row_has(&vt, rows - 1, "key bar hidden"));
    CHECKV(&vt, vt_row_has(&vt, rows - 2, "step 0  rank 0") && vt_row_has(&vt, rows - 1, "K shows it"));
    vt_send(&vt, "K");
    VT_WAIT(&vt, vt_row_has(&vt, last, full));
    CHECKV(&vt, vt_row_has(&vt, rows - 2, "key bar shown"));

    /* another screen: its label is the bold one */
    vt_send(&vt, "<F3>");
    VT_WAIT(&vt, vt_row_has(&vt, last, full) && !vt_has(&vt, "Heat map"));
    CHECK_INT(vt_cell(&vt, last, vt_col_of(&vt, last, "Overflow"), &cur), 0);
    CHECK_INT(vt_cell(&vt, last, vt_col_of(&vt, last, "Trend"), &other), 0);
    CHECKV(&vt, cur.bold && !other.bold);

    /* a click on an item is its key */
    char ev[64];
    snprintf(ev, sizeof ev, "<click:%d,%d>", last, vt_col_of(&vt, last, "F2Trend") + 3);
    vt_send(&vt, ev);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    CHECK_INT(vt_cell(&vt, last, vt_col_of(&vt, last, "Trend"), &cur), 0);
    CHECKV(&vt, vt_has(&vt, "Heat map") && cur.bold);

    /* narrower: labels shortened alike, never cut through an item */
    vt_resize(&vt, 50, 24);
    VT_WAIT(&vt, bar_is(&vt, "F1Help F2Tren F3Over F4Sear F5Layo F8Lane F10Quit"));
    CHECKV(&vt, bar_is(&vt, "F1Help F2Tren F3Over F4Sear F5Layo F8Lane F10Quit"));
    vt_resize(&vt, 40, 12);
    VT_WAIT(&vt, bar_is(&vt, "F1Help F2Tren F3Over F4Sear F10Quit"));
    CHECKV(&vt, bar_is(&vt, "F1Help F2Tren F3Over F4Sear F10Quit"));
    /* 20x6: help and quit, whole (a screen dropped rather than cut) */
    vt_resize(&vt, 20, 6);
    VT_WAIT(&vt, bar_is(&vt, "F1Help F10Quit"));
    CHECKV(&vt, bar_is(&vt, "F1Help F10Quit"));
    vt_resize(&vt, cols, rows);
    VT_WAIT(&vt, vt_row_has(&vt, last, full));
    CHECKV(&vt, vt_row_has(&vt, last, full));
    pt_vt_quit(&vt);
}

static void test_keybar_80x24(void) { keybar_at(80, 24); }
static void test_keybar_200x60(void) { keybar_at(200, 60); }

/* --- the split, at once --- */

/* The row of the line chart's title, -1 when not on screen. */
static int chart_row(struct vt *vt) {
    int r = -1;
    return vt_find(vt, "Line chart", &r, NULL) ? r : -1;
}

/* Where arrange() puts the title for split p: the body is the rows between
 * the toolbar and the two status rows; the chart gets floor(body*(100-p)/100). */
static int want_row(const struct vt *vt, int p) {
    int body = vt->rows - 3;
    return 1 + body - body * (100 - p) / 100;
}

static void split_at(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    open_demo(&vt, cols, rows, NULL);
    CHECKV(&vt, chart_row(&vt) == want_row(&vt, 70));
    vt_send(&vt, "-");
    VT_WAIT(&vt, chart_row(&vt) == want_row(&vt, 65));
    CHECKV(&vt, chart_row(&vt) == want_row(&vt, 65) && vt_row_has(&vt, msg_row(&vt), "split 65%"));
    vt_send(&vt, "++");
    VT_WAIT(&vt, chart_row(&vt) == want_row(&vt, 75));
    CHECKV(&vt, chart_row(&vt) == want_row(&vt, 75));
    command(&vt, "split 50");
    VT_WAIT(&vt, chart_row(&vt) == want_row(&vt, 50));
    CHECKV(&vt, chart_row(&vt) == want_row(&vt, 50));
    /* the heat map's own rows follow: its colour scale sits right above the chart */
    CHECKV(&vt, vt_row_has(&vt, want_row(&vt, 50) - 1, "NaN"));
    pt_vt_quit(&vt);
}

static void test_split_80x24(void) { split_at(80, 24); }
static void test_split_200x60(void) { split_at(200, 60); }

/* --- the line chart's lines kept --- */

static bool title_has(struct vt *vt, const char *text) {
    int r = chart_row(vt);
    return r >= 0 && vt_row_has(vt, r, text);
}

static void lines_at(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    open_demo(&vt, cols, rows, NULL);
    /* two lines: the first cell's and the one below */
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, title_has(&vt, "1 line over"));
    vt_send(&vt, "j<Enter>");
    VT_WAIT(&vt, title_has(&vt, "2 lines over step  forward/norm"));
    CHECKV(&vt, title_has(&vt, "2 lines over step  forward/norm"));
    /* s: the next statistic, the same two lines read under it */
    vt_send(&vt, "s");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/") && !vt_row_has(&vt, 0, "forward/norm"));
    VT_WAIT(&vt, title_has(&vt, "2 lines over step  forward/") && !title_has(&vt, "forward/norm"));
    CHECKV(&vt, title_has(&vt, "2 lines over step") && vt_row_has(&vt, msg_row(&vt), "line chart: 2 lines re-read"));
    /* the legend's rows: the lines' names stay */
    CHECKV(&vt, vt_has(&vt, "rank 0 / "));
    /* S: back */
    vt_send(&vt, "S");
    VT_WAIT(&vt, title_has(&vt, "2 lines over step  forward/norm"));
    CHECKV(&vt, title_has(&vt, "2 lines over step  forward/norm"));
    /* m / M: the next metric and back; a line whose target the metric
     * lacks is said to go, the others stay */
    vt_send(&vt, "m");
    VT_WAIT(&vt, !vt_row_has(&vt, 0, "forward/"));
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "line chart:"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "line chart: 2 lines re-read") ||
                    vt_row_has(&vt, msg_row(&vt), "has no such target"));
    vt_send(&vt, "M");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/norm"));
    VT_WAIT(&vt, title_has(&vt, "lines over step  forward/norm") || title_has(&vt, "line over step  forward/norm"));
    CHECKV(&vt, title_has(&vt, "over step  forward/norm"));
    /* d: over ranks now, each line the same target's */
    vt_send(&vt, "d");
    VT_WAIT(&vt, title_has(&vt, "over rank  forward/norm"));
    CHECKV(&vt, title_has(&vt, "over rank  forward/norm") && vt_row_has(&vt, msg_row(&vt), "re-read over rank"));
    pt_vt_quit(&vt);
}

static void test_lines_80x24(void) { lines_at(80, 24); }
static void test_lines_200x60(void) { lines_at(200, 60); }

/* --- the `/` prompt opens empty --- */

static void slash_at(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    open_demo(&vt, cols, rows, NULL);
    vt_send(&vt, "/mlp<Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "/mlp/"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "/mlp/:"));
    vt_send(&vt, "/");
    VT_WAIT(&vt, vt_row_text(&vt, msg_row(&vt))[0] == '/');
    CHECKV(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/"));
    vt_send(&vt, "<Up>");
    VT_WAIT(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/mlp"));
    CHECKV(&vt, !strcmp(vt_row_text(&vt, msg_row(&vt)), "/mlp"));
    /* an empty pattern clears, with no C-u first */
    vt_send(&vt, "<Down><Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "filter cleared"));
    CHECKV(&vt, !vt_row_has(&vt, 0, "/mlp/"));
    pt_vt_quit(&vt);
}

static void test_slash_80x24(void) { slash_at(80, 24); }
static void test_slash_200x60(void) { slash_at(200, 60); }

/* --- :layers global in compare mode --- */

static int gen_pair(const char *name, char *p, char *b, size_t size) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!py || !py[0] || !s) return -1;
    const char *dir = pt_tmpdir(name);
    if (!dir) return -1;
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "G='--steps 2 --ranks 1 --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 8 --vocab 64 --quiet'; "
             "'%s' '%s/tools/gen_dump.py' --out '%s/b' $G >/dev/null 2>&1 && "
             "'%s' '%s/tools/gen_dump.py' --out '%s/p' $G --drift 1.5:layers.1.mlp >/dev/null 2>&1",
             py, s, dir, py, s, dir);
    if (system(cmd) != 0) return -1;
    snprintf(p, size, "%s/p", dir);
    snprintf(b, size, "%s/b", dir);
    return 0;
}

static void layers_at(int cols, int rows) {
    char p[1200], b[1200], name[64];
    if (!vt_bin()) SKIP("PT_BIN not set");
    snprintf(name, sizeof name, "layers_%d", cols);
    if (gen_pair(name, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Run"));
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "run problem"));
    vt_send(&vt, "R");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "run benchmark"));
    vt_send(&vt, "R");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "run |p-b|/|b|"));
    CHECKV(&vt, vt_row_has(&vt, 0, "run |p-b|/|b|"));
    /* a label filter from the picker */
    vt_send(&vt, "<F4>");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), " label "));
    vt_send(&vt, " ");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "labels "));
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, 0, "labels "));
    CHECKV(&vt, vt_row_has(&vt, 0, "labels ") && vt_row_has(&vt, 0, "run |p-b|/|b|"));
    command(&vt, "parallel W=1 L=2");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "parallel layout"));
    command(&vt, "layers global");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "global layer index"));
    /* said: the label filter went, and the run shown is the problem's */
    const char *m = vt_row_text(&vt, msg_row(&vt));
    if (cols >= 200) {
        CHECKV(&vt, strstr(m, "label filter") && strstr(m, "cleared") && strstr(m, "the heat map shows the problem run"));
    } else {
        CHECKV(&vt, strstr(m, "label filter") != NULL);
    }
    /* the toolbar: the problem run, no label filter */
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    CHECKV(&vt, vt_row_has(&vt, 0, "run problem") && !vt_row_has(&vt, 0, "|p-b|/|b|") && !vt_row_has(&vt, 0, "labels "));
    pt_vt_quit(&vt);
}

static void test_layers_80x24(void) { layers_at(80, 24); }
static void test_layers_200x60(void) { layers_at(200, 60); }

int main(void) {
    RUN(test_keybar_80x24);
    RUN(test_keybar_200x60);
    RUN(test_split_80x24);
    RUN(test_split_200x60);
    RUN(test_lines_80x24);
    RUN(test_lines_200x60);
    RUN(test_slash_80x24);
    RUN(test_slash_200x60);
    RUN(test_layers_80x24);
    RUN(test_layers_200x60);
    PT_DONE();
}
