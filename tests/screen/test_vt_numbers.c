/* test_vt_numbers: numbers you can read, taking a name with you, and the
 * small gaps a first user meets (probetop(1); issue 24 points 4, 7, 8), at
 * 80x24 and 200x60: numbers rounded to their room and never cut in the
 * middle, values in the heat-map cells (v), status parts kept apart, chart
 * labels off the axis, the lanes' kernel name before its window, the
 * compare rule at 40x12, the 1-column cursor, y copying with OSC 52, the
 * layout's l, the :parallel mismatch note, the follow wait message, and
 * `compare`'s note on pairs present on one side only. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <ctype.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *const ELL = "\xe2\x80\xa6";   /* the ellipsis text_fit cuts with */
static const char *const RULE = "\xe2\x94\x82";

static bool status_has(struct vt *vt, const char *text) {
    return vt_row_has(vt, vt_status_row(vt), text) || (vt->rows >= 12 && vt_row_has(vt, vt->rows - 1, text));
}

/* A generated problem / benchmark pair of `steps` steps and `ranks` ranks
 * (the problem's layers.1.mlp drifts), under PT_TMP/name. */
static int gen_pair(const char *name, int steps, int ranks, char *p, char *b, size_t size) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!py || !py[0] || !s) return -1;
    const char *dir = pt_tmpdir(name);
    if (!dir) return -1;
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "G='--steps %d --ranks %d --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 8 --vocab 64 --quiet'; "
             "'%s' '%s/tools/gen_dump.py' --out '%s/b' $G >/dev/null 2>&1 && "
             "'%s' '%s/tools/gen_dump.py' --out '%s/p' $G --drift 1.5:layers.1.mlp >/dev/null 2>&1",
             steps, ranks, py, s, dir, py, s, dir);
    if (system(cmd) != 0) return -1;
    snprintf(p, size, "%s/p", dir);
    snprintf(b, size, "%s/b", dir);
    return 0;
}

static int gen_dump(const char *dir, const char *args) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    char cmd[8192];
    if (!py || !py[0] || !s) return -1;
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' %s --quiet >/dev/null 2>&1", py, s, dir, args);
    return system(cmd) == 0 ? 0 : -1;
}

/* Whether any row, right of the detail pane's rule, has a number with
 * digits cut out of its middle ("-0…125", "0.…78%"). */
static bool number_cut(struct vt *vt) {
    for (int r = 1; r < vt_status_row(vt); r++) {
        const char *t = vt_row_text(vt, r), *d = strstr(t, RULE);
        for (const char *e = d ? strstr(d, ELL) : NULL; e; e = strstr(e + 3, ELL)) {
            char before = e[-1], after = e[3];
            if ((isdigit((unsigned char)before) || before == '.' || before == '-') &&
                (isdigit((unsigned char)after) || after == '.' || after == '%'))
                return true;
        }
    }
    return false;
}

/* 4: the detail pane of a drifting node: numbers rounded to the room
 * ("-3e-4", not "-0…125"), dtypes without "torch.". */
static void detail_numbers(int cols, int rows) {
    char p[1200], b[1200], ps[1300], bs[1300];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("detail_numbers", 2, 1, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    snprintf(ps, sizeof ps, "%s/step0/rank0", p);
    snprintf(bs, sizeof bs, "%s/step0/rank0", b);
    const char *args[] = {ps, bs, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map") || vt_has(&vt, "Detail"));
    vt_send(&vt, "<F6>");
    VT_WAIT(&vt, vt_has(&vt, "Detail") && vt_has(&vt, "matched"));
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "divergen"));
    /* walk the divergent nodes: none shows a number cut in the middle */
    int seen_exp = 0;
    for (int i = 0; i < 6; i++) {
        CHECKV(&vt, !number_cut(&vt));
        if (number_cut(&vt)) break;
        for (int r = 1; r < vt_status_row(&vt); r++) {
            const char *t = vt_row_text(&vt, r), *d = strstr(t, RULE);
            if (d && (strstr(d, "e-4") || strstr(d, "e-5") || strstr(d, "e-6"))) seen_exp = 1;
        }
        char before[4096];
        snprintf(before, sizeof before, "%s", vt_screen_text(&vt));
        vt_send(&vt, "n");
        if (vt_wait_change(&vt, -1, before, 2000) != 0) break;
    }
    CHECKV(&vt, seen_exp);
    CHECKV(&vt, vt_has(&vt, "bfloat16") && !vt_has(&vt, "torch.\xe2\x80\xa6"));
    pt_vt_quit(&vt);
}
static void detail_numbers_80(void) { detail_numbers(80, 24); }
static void detail_numbers_200(void) { detail_numbers(200, 60); }

/* 4: v shows the values in the heat-map cells, in a colour readable on
 * the cell's, the cursor's in brackets; v again hides them. */
static void heat_values(int cols, int rows, const char *cursor, const char *next) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 3, "[    ]"));
    CHECKV(&vt, !vt_row_has(&vt, 3, next));
    vt_send(&vt, "v");
    VT_WAIT(&vt, vt_row_has(&vt, 3, cursor));
    CHECKV(&vt, vt_row_has(&vt, 3, cursor) && vt_row_has(&vt, 3, next));
    CHECKV(&vt, status_has(&vt, "values in the cells"));
    /* the rank-1 value: ink on the cell's colour, and not the same colour */
    int col = vt_col_of(&vt, 3, next);
    struct vt_cell c;
    CHECK_INT(vt_cell(&vt, 3, col, &c), 0);
    CHECK(!c.bg_default);
    CHECK(vt_cell_ink(&c) != vt_cell_paper(&c));
    vt_send(&vt, "v");
    VT_WAIT(&vt, vt_row_has(&vt, 3, "[    ]") || vt_row_has(&vt, 3, "[      ]"));
    CHECKV(&vt, !vt_row_has(&vt, 3, next));
    pt_vt_quit(&vt);
}
static void heat_values_80(void) { heat_values(80, 24, "[24.3]", "24.99"); }
static void heat_values_200(void) { heat_values(200, 60, "[24.274]", "24.9945"); }

/* 4: the follow mode's "live" is kept apart from the cell's text and the
 * hints ("embeddinlive" at 80 columns); 8: its wait message goes once data
 * came. */
static void status_apart(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *tmp = pt_tmpdir("status_apart");
    char full[1200], live[1300], cmd[4096];
    if (!tmp) SKIP("no scratch folder");
    snprintf(full, sizeof full, "%s/full", tmp);
    snprintf(live, sizeof live, "%s/live", tmp);
    if (gen_dump(full, "--monitor-v2 --steps 2 --ranks 2 --layers 2") != 0) SKIP("gen_dump.py not available");
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", live, live);
    CHECK(system(cmd) == 0);
    const char *args[] = {"--follow", live, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "waiting for data"));
    snprintf(cmd, sizeof cmd, "cp -r '%s/.' '%s/'", full, live);
    CHECK(system(cmd) == 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, vt_status_row(&vt), "live"));
    vt_wait_idle(&vt, 200);
    CHECKV(&vt, !vt_has(&vt, "waiting for data"));
    const char *t = vt_row_text(&vt, vt_status_row(&vt)), *l = strstr(t, "live");
    CHECKV(&vt, l && l >= t + 2 && l[-1] == ' ' && l[-2] == ' ');
    CHECKV(&vt, !strstr(t, "quitlive"));
    pt_vt_quit(&vt);
}
static void status_apart_80(void) { status_apart(80, 24); }
static void status_apart_200(void) { status_apart(200, 60); }

/* 4: the line chart's y labels keep a blank before the axis. */
static void chart_labels(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 3, "[    ]"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "1 line over step"));
    int row = -1, col = -1;
    CHECK(vt_find(&vt, "24.273", &row, &col) || vt_find(&vt, "30.6", &row, &col) || vt_find(&vt, "24.2", &row, &col));
    int axis = 0;
    for (int r = 0; r < vt.rows; r++) {
        const char *t = vt_row_text(&vt, r);
        const char *a = strstr(t, RULE);
        if (a && a > t && isdigit((unsigned char)t[0])) {
            axis++;
            CHECKV(&vt, a[-1] == ' ');
        }
    }
    CHECKV(&vt, axis >= 1);
    pt_vt_quit(&vt);
}
static void chart_labels_80(void) { chart_labels(80, 24); }
static void chart_labels_200(void) { chart_labels(200, 60); }

/* 4: the lanes' second status line: the kernel's name, cut at its end,
 * then three blanks, then the window (was "stream 7…ns .. +10.9 ms"). */
static void lanes_status(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *py = getenv("PT_PYTHON"), *tmp = pt_tmpdir("lanes_status");
    if (!py || !py[0] || !tmp) SKIP("python absent");
    char cmd[4096], dir[1200];
    snprintf(dir, sizeof dir, "%s/traces", tmp);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/screen/gen_lanes.py' --out '%s' --ranks 8 --pp 4 --steps 3 >/dev/null 2>&1", py,
             getenv("PT_SRC") ? getenv("PT_SRC") : ".", dir);
    if (system(cmd) != 0) SKIP("gen_lanes.py failed");
    const char *args[] = {dir, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_has(&vt, "Lanes"));
    vt_send(&vt, "lll");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "compute"));
    /* a long kernel name whole with its stream; the window after three
     * blanks, or left out where it does not fit, never cut into */
    const char *t = vt_row_text(&vt, vt_status_row(&vt) + 1), *w = strstr(t, "window +");
    CHECKV(&vt, !strncmp(t, "sm80_xmma_gemm_f16f16_f32_fwd  stream 7", 39) && !strstr(t, ELL));
    CHECKV(&vt, !w || (w >= t + 3 && !strncmp(w - 3, "   ", 3)));
    if (cols >= 200) CHECKV(&vt, w && vt_row_has(&vt, vt_status_row(&vt) + 1, "one clock"));
    /* a short name: the window follows it */
    vt_send(&vt, "jjjjjj0l");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "communication"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt) + 1, "ncclKernel_SendRecv  stream 20   window +0 ns .. +"));
    pt_vt_quit(&vt);
}
static void lanes_status_80(void) { lanes_status(80, 24); }
static void lanes_status_200(void) { lanes_status(200, 60); }

/* 4: at 40x12 the compare screen keeps the rule between tree and detail. */
static void compare_rule_40(void) {
    char p[1200], b[1200], ps[1300], bs[1300];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("compare_rule", 1, 1, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    snprintf(ps, sizeof ps, "%s/step0/rank0", p);
    snprintf(bs, sizeof bs, "%s/step0/rank0", b);
    const char *args[] = {ps, bs, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 40, 12, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map") || vt_has(&vt, "Detail"));
    vt_send(&vt, "<F6>");
    VT_WAIT(&vt, vt_has(&vt, "Detail"));
    int rule = vt_col_of(&vt, 1, RULE), det = vt_col_of(&vt, 1, "Detail");
    CHECKV(&vt, rule > 0 && det == rule + 1);
    for (int r = 2; r < 6; r++) CHECKV(&vt, vt_col_of(&vt, r, RULE) == rule);
    /* and at 80x24 and 200x60, as before */
    vt_resize(&vt, 80, 24);
    VT_WAIT(&vt, vt_col_of(&vt, 1, RULE) > 0 && vt_col_of(&vt, 1, "Detail") == vt_col_of(&vt, 1, RULE) + 2);
    vt_resize(&vt, 200, 60);
    VT_WAIT(&vt, vt_col_of(&vt, 1, RULE) > 0 && vt_col_of(&vt, 1, "Detail") == vt_col_of(&vt, 1, RULE) + 2);
    pt_vt_quit(&vt);
}

/* 4: with 1-column cells the cursor is not the diamond of msProbe's
 * anomaly marks. */
static void cursor_one_column(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 20, 10, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_wait_idle(&vt, 100);
    CHECKV(&vt, !vt_has(&vt, "\xe2\x97\x86"));
    CHECKV(&vt, vt_row_has(&vt, 3, "\xe2\x96\xa1"));
    pt_vt_quit(&vt);
}

/* --- 7: y copies with OSC 52 --- */

static void b64(const char *in, char *out) {
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(in), o = 0;
    const unsigned char *p = (const unsigned char *)in;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[o++] = al[v >> 18 & 63];
        out[o++] = al[v >> 12 & 63];
        out[o++] = i + 1 < n ? al[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? al[v & 63] : '=';
    }
    out[o] = 0;
}

static bool clip_is(struct vt *vt, const char *text) {
    char want[8192];
    want[0] = 'c';
    want[1] = ';';
    b64(text, want + 2);
    return !strcmp(vt->clip, want);
}

#define EMB "Module.module.module.embedding.word_embeddings.VocabParallelEmbedding.output.0"

static void copy_heat(int cols, int rows, const char *mouse) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", mouse, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 3, "[    ]"));
    CHECK_INT(vt.nclip, 0);
    vt_send(&vt, "y");
    VT_WAIT(&vt, vt.nclip == 1 && vt_has(&vt, "copied: "));
    CHECKV(&vt, clip_is(&vt, EMB "  step 0  rank 0  forward/norm = 24.2739"));
    if (!clip_is(&vt, EMB "  step 0  rank 0  forward/norm = 24.2739")) fprintf(stderr, "clip: %s\n", vt.clip);
    CHECKV(&vt, status_has(&vt, "copied: Module.module"));
    /* another cell: its rank and value */
    vt_send(&vt, "ly");
    VT_WAIT(&vt, vt.nclip == 2);
    CHECKV(&vt, clip_is(&vt, EMB "  step 0  rank 1  forward/norm = 24.9945"));
    /* the mouse mode is what was asked */
    CHECK(mouse ? vt.mouse_mode == 0 : vt.mouse_mode != 0);
    pt_vt_quit(&vt);
}
static void copy_heat_80(void) { copy_heat(80, 24, NULL); }
static void copy_heat_200(void) { copy_heat(200, 60, NULL); }
static void copy_heat_no_mouse(void) { copy_heat(80, 24, "--no-mouse"); }

/* y in the compare tree copies the node's name; in the lanes the kernel's. */
static void copy_tree(int cols, int rows) {
    char p[1200], b[1200], ps[1300], bs[1300];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("copy_tree", 1, 1, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    snprintf(ps, sizeof ps, "%s/step0/rank0", p);
    snprintf(bs, sizeof bs, "%s/step0/rank0", b);
    const char *args[] = {ps, bs, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map") || vt_has(&vt, "Detail"));
    vt_send(&vt, "<F6>");
    VT_WAIT(&vt, vt_has(&vt, "Detail") && status_has(&vt, "DefaultModel"));
    vt_send(&vt, "y");
    VT_WAIT(&vt, vt.nclip == 1);
    CHECKV(&vt, clip_is(&vt, "DefaultModel"));
    CHECKV(&vt, status_has(&vt, "copied: DefaultModel"));
    /* the detail pane copies the node it shows */
    vt_send(&vt, "j<Tab>y");
    VT_WAIT(&vt, vt.nclip == 2);
    char want[256];
    snprintf(want, sizeof want, "copied: %s", "Module.module.");
    CHECKV(&vt, status_has(&vt, want) && strncmp(vt.clip, "c;TW9kdWxl", 10) == 0);   /* "Module" */
    pt_vt_quit(&vt);
}
static void copy_tree_80(void) { copy_tree(80, 24); }
static void copy_tree_200(void) { copy_tree(200, 60); }

/* --- 8: small gaps --- */

/* l does not scroll the stage columns when every one is shown; a layout
 * of more ranks than the data has says so. */
static void layout_gaps(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, ":parallel W=8 L=8 TP=2 PP=2 V=2<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "Stage 1") && vt_has(&vt, "stages from 0 of 2"));
    vt_send(&vt, "l");
    VT_WAIT(&vt, status_has(&vt, "every stage column is shown"));
    CHECKV(&vt, vt_has(&vt, "stages from 0 of 2") && vt_has(&vt, "Stage 0"));
    vt_send(&vt, ":parallel W=32 L=8 TP=2 PP=2<Enter>");
    VT_WAIT(&vt, status_has(&vt, "the data has 8 ranks"));
    CHECKV(&vt, status_has(&vt, "W=32") && status_has(&vt, "the other 24 show no data"));
    pt_vt_quit(&vt);
}
static void layout_gaps_80(void) { layout_gaps(80, 24); }
static void layout_gaps_200(void) { layout_gaps(200, 60); }

/* `probetop compare`: a (step, rank) in one dump only is named on stderr,
 * not skipped without a word. */
static void compare_one_side(void) {
    char p[1200], b[1200], cmd[4096];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("compare_one_side", 1, 2, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    snprintf(cmd, sizeof cmd, "rm -rf '%s/step0/rank1'", b);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "'%s' compare '%s' '%s' 2>&1 >/dev/null", vt_bin(), p, b);
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    if (!f) return;
    char out[8192] = "";
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    pclose(f);
    CHECK(strstr(out, "step 0 rank 1: in ") && strstr(out, "only, not compared"));
    CHECK(strstr(out, "1 (step, rank) pair in one dump only (1 problem, 0 benchmark)"));
    if (!strstr(out, "only, not compared")) fprintf(stderr, "stderr: %s\n", out);
}

/* The run summary: a (step, rank) in one dump only shows "-" (not
 * compared, as the man page says), and the header says so. */
static void summary_one_side(int cols, int rows) {
    char p[1200], b[1200], cmd[4096];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("summary_one_side", 2, 2, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    snprintf(cmd, sizeof cmd, "rm -rf '%s/step1/rank1'", b);
    CHECK(system(cmd) == 0);
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 1, "Run  2 steps x 2 ranks:"));
    CHECKV(&vt, vt_row_has(&vt, 1, "3 pairs"));
    if (cols >= 200) CHECKV(&vt, vt_row_has(&vt, 1, ", 1 in one dump only (-)"));
    int row = -1;
    CHECK(vt_find(&vt, "rank 1", &row, NULL));
    /* rank 1's row: step 0 compared, step 1 "-" */
    const char *t = vt_row_text(&vt, row);
    CHECKV(&vt, strstr(t, " -") != NULL);
    vt_send(&vt, "jl");
    VT_WAIT(&vt, status_has(&vt, "step 1 rank 1: not compared"));
    CHECKV(&vt, status_has(&vt, "in one dump only"));
    pt_vt_quit(&vt);
}
static void summary_one_side_80(void) { summary_one_side(80, 24); }
static void summary_one_side_200(void) { summary_one_side(200, 60); }

/* M's picker starts on the benchmark node of the same name but its call
 * number (Functional.linear.7.backward -> .70.), not on the first. */
static void picker_same_name(int cols, int rows) {
    char p[1200], b[1200], cmd[4096];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("picker_same_name", 1, 1, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    snprintf(cmd, sizeof cmd,
             "cd '%s/step0/rank0' && sed -i -e 's/\"Functional.linear.7.backward\"/\"Functional.linear.70.backward\"/' "
             "-e 's/\"Functional.embedding.0.forward\"/\"Functional.embedx.0.forward\"/' *.json", b);
    CHECK(system(cmd) == 0);
    char ps[1300], bs[1300];
    snprintf(ps, sizeof ps, "%s/step0/rank0", p);
    snprintf(bs, sizeof bs, "%s/step0/rank0", b);
    const char *args[] = {ps, bs, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map") || vt_has(&vt, "Detail"));
    vt_send(&vt, "<F6>");
    VT_WAIT(&vt, vt_has(&vt, "Detail") && status_has(&vt, "DefaultModel"));
    vt_send(&vt, "u");
    VT_WAIT(&vt, vt_has(&vt, "unmatched problem nodes: 2"));
    vt_send(&vt, "j<Enter>");
    VT_WAIT(&vt, status_has(&vt, "Functional.linear.7.backward"));
    vt_send(&vt, "M");
    VT_WAIT(&vt, status_has(&vt, "matching Functional.linear.7.backward"));
    int row = pt_vt_tree_row(&vt, "Functional.linear.70.backward");
    CHECKV(&vt, row > 0 && vt_row_has(&vt, vt_status_row(&vt), "benchmark Functional.linear.70.backward"));
    pt_vt_quit(&vt);
}
static void picker_same_name_80(void) { picker_same_name(80, 24); }
static void picker_same_name_200(void) { picker_same_name(200, 60); }

int main(void) {
    RUN(detail_numbers_80);
    RUN(detail_numbers_200);
    RUN(heat_values_80);
    RUN(heat_values_200);
    RUN(status_apart_80);
    RUN(status_apart_200);
    RUN(chart_labels_80);
    RUN(chart_labels_200);
    RUN(lanes_status_80);
    RUN(lanes_status_200);
    RUN(compare_rule_40);
    RUN(cursor_one_column);
    RUN(copy_heat_80);
    RUN(copy_heat_200);
    RUN(copy_heat_no_mouse);
    RUN(copy_tree_80);
    RUN(copy_tree_200);
    RUN(layout_gaps_80);
    RUN(layout_gaps_200);
    RUN(compare_one_side);
    RUN(summary_one_side_80);
    RUN(summary_one_side_200);
    RUN(picker_same_name_80);
    RUN(picker_same_name_200);
    PT_DONE();
}
