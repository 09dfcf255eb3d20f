/* test_vt_lanes: the lane view (F8, probetop(1), LANE VIEW) driven through
 * the real binary.  At 80x24, 8 ranks of a pipelined run (PP 4, GPipe,
 * tests/screen/gen_lanes.py): the lanes' labels, colours (compute green,
 * communication blue, idle grey: the last stage's wait for its first
 * input), the kernel under the cursor in the status line, steps, the
 * straggler, the per-rank clock, zoom and a pipeline group.  At 200x60,
 * 64 ranks of tests/gen_trace.py (the trace reader's generator; its stage
 * is rank % PP, hence the layout's order tp-cp-pp-ep-dp): the lanes that
 * fit, the straggler, scrolling to the last.  Marks without colour; data
 * without a timeline (Ascend step time tables) get one line and no crash. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *src_path(const char *rel) {
    static char buf[4096];
    const char *s = getenv("PT_SRC");
    snprintf(buf, sizeof buf, "%s/%s", s ? s : ".", rel);
    return buf;
}

/* The categories' colours as the legend row shows them (the emulator's
 * palette decides the RGB a 256-colour index gets). */
static uint32_t GREEN, BLUE, GREY;

/* Reads them: the legend's swatch is two columns left of each word. */
static int legend_colours(struct vt *vt) {
    int r = vt_status_row(vt) - 1;
    const char *words[] = {"compute", "communication", "idle"};
    uint32_t *out[] = {&GREEN, &BLUE, &GREY};
    for (int i = 0; i < 3; i++) {
        int c = vt_col_of(vt, r, words[i]);
        struct vt_cell x;
        if (c < 2 || vt_cell(vt, r, c - 2, &x) != 0 || x.bg_default) return -1;
        *out[i] = vt_cell_paper(&x);
    }
    return GREEN != BLUE && BLUE != GREY && GREEN != GREY ? 0 : -1;
}

/* Generated traces in PT_TMP/name (tests/GEN with args; OUT is the
 * output folder); NULL (skip) without Python. */
static const char *gen_with(const char *script, const char *name, const char *args) {
    static char dir[1200];
    const char *py = getenv("PT_PYTHON"), *tmp = pt_tmpdir(name);
    if (!py || !py[0] || !tmp) return NULL;
    snprintf(dir, sizeof dir, "%s/traces", tmp);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' '%s' %s '%s' %s", py, src_path(script),
             strstr(script, "gen_lanes") ? "--out" : "", dir, args);
    return system(cmd) == 0 ? dir : NULL;
}

static const char *gen(const char *name, const char *args) { return gen_with("tests/screen/gen_lanes.py", name, args); }

/* Whether the binary reads the traces at all (`probetop info DIR`). */
static int reads_traces(const char *dir) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' info '%s' >/dev/null 2>&1", vt_bin(), dir);
    return system(cmd) == 0;
}

/* The pane's rows: the toolbar is row 0, the title row 1, the time axis
 * row 2, lanes from row 3 (LANE0), the legend above the status line. */
#define LANE0 3

/* The screen row of the lane whose label starts with "R " or "R(" or is "R". */
static int lane_row(struct vt *vt, int rank) {
    char lab[16];
    int n = snprintf(lab, sizeof lab, "%d", rank);
    for (int r = LANE0; r < vt_status_row(vt) - 1; r++) {
        const char *t = vt_row_text(vt, r);
        if (!strncmp(t, lab, (size_t)n) && (t[n] == ' ' || t[n] == '(' || !t[n])) return r;
    }
    return -1;
}

/* How many cells of row r, from column c0 on, a viewer sees in colour rgb
 * (background, or the ink of a half-block glyph). */
static int cells_in(struct vt *vt, int r, int c0, uint32_t rgb) {
    int n = 0;
    for (int c = c0; c < vt->cols; c++) {
        struct vt_cell x;
        if (vt_cell(vt, r, c, &x) != 0) break;
        n += (!x.bg_default && vt_cell_paper(&x) == rgb) || (x.ch == 0x258c && vt_cell_ink(&x) == rgb);
    }
    return n;
}

/* The bar's first column: right of the widest label (the axis row starts there). */
static int bar_col(struct vt *vt) {
    const char *t = vt_row_text(vt, LANE0 - 1);
    int c = 0;
    while (t[c] == ' ') c++;
    return c;
}

/* The lane's step length in microseconds, from the right column ("1.234 ms"). */
static double lane_len_us(struct vt *vt, int r) {
    const char *t = vt_row_text(vt, r), *ms = strstr(t, " ms");
    if (!ms) return -1;
    const char *p = ms;
    while (p > t && p[-1] != ' ') p--;
    return atof(p) * 1000;
}

/* The status line's window is the whole step: "window +0 ns .. +X of X". */
static bool whole_window(const char *row) {
    const char *w = strstr(row, "window +0 ns .. +"), *of = w ? strstr(w, " of ") : NULL;
    if (!of) return false;
    const char *x = w + strlen("window +0 ns .. +"), *y = of + 4;
    size_t n = (size_t)(of - x);
    return !strncmp(x, y, n) && (y[n] == ' ' || !y[n]);
}

static void lanes_80x24(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = gen("l8", "--ranks 8 --pp 4 --steps 3 --straggler 5:2");
    if (!dir) SKIP("python absent");
    if (!reads_traces(dir)) SKIP("this build reads no profiler traces (probetop info fails on them)");
    struct vt vt;
    const char *args[] = {dir, "--parallel", "W=8 L=8 TP=1 PP=4", NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "Lanes  step 1 (1/3)", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "8 lanes: all ranks  one clock", NULL, NULL));
    /* one lane per rank, in order, labelled with the parallel coordinates */
    for (int k = 0; k < 8; k++) CHECKV(&vt, lane_row(&vt, k) == LANE0 + k);
    CHECKV(&vt, strstr(vt_row_text(&vt, LANE0), "0 (p0t0d0)") != NULL);
    CHECKV(&vt, strstr(vt_row_text(&vt, LANE0 + 6), "6 (p3t0d0)") != NULL);
    int c0 = bar_col(&vt);
    CHECKV(&vt, c0 > 5 && c0 < 20);
    CHECKV(&vt, legend_colours(&vt) == 0);
    /* stage 0 computes first; stage 3 waits for its first input: idle */
    struct vt_cell x;
    vt_cell(&vt, LANE0, c0, &x);
    CHECKV(&vt, vt_cell_paper(&x) == GREEN);
    vt_cell(&vt, LANE0 + 6, c0, &x);
    CHECKV(&vt, vt_cell_paper(&x) == GREY);
    for (int k = 0; k < 8; k++) {
        CHECKV(&vt, cells_in(&vt, LANE0 + k, c0, GREEN) > 10);   /* compute */
        CHECKV(&vt, cells_in(&vt, LANE0 + k, c0, BLUE) >= 1);    /* the all-reduce, the sends and receives */
        CHECKV(&vt, cells_in(&vt, LANE0 + k, c0, GREY) >= 1);    /* bubbles */
    }
    /* the legend */
    CHECKV(&vt, vt_find(&vt, "compute", NULL, NULL) && vt_find(&vt, "communication", NULL, NULL) &&
                vt_find(&vt, "idle", NULL, NULL));
    /* the cursor on rank 0's first item (the 20 us from the step's start
     * on the CPU to its first kernel), then that kernel, named in the
     * status line, then the gap after it */
    int sr = vt_status_row(&vt);
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "rank 0 (p0t0d0)  step 1  idle  start +0 ns  dur 20.000 us"));
    vt_send(&vt, "l");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "rank 0 (p0t0d0)  step 1  compute (forward)  start +20.000 us  dur 400.000 us"));
    CHECKV(&vt, !strncmp(vt_row_text(&vt, sr + 1), "sm80_xmma_gemm_f16f16_f32_fwd  stream 7", 39));
    vt_send(&vt, "l");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "step 1  idle  start +420.000 us  dur 50.000 us"));
    /* down to stage 3: its first item is the wait for input */
    vt_send(&vt, "jjjjjj0");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "rank 6 (p3t0d0)  step 1  idle  start +0 ns"));
    vt_send(&vt, "l");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "rank 6 (p3t0d0)  step 1  communication (pp_comm)  start +"));
    CHECKV(&vt, !strncmp(vt_row_text(&vt, sr + 1), "ncclKernel_SendRecv  stream 20", 30));
    /* the straggler: at step 2 rank 5 computes longer, the others wait for
     * it in the all-reduce (blue); every lane's step is as long */
    vt_send(&vt, ")");
    VT_WAIT(&vt, vt_find(&vt, "Lanes  step 2 (2/3)", NULL, NULL));
    int r4 = lane_row(&vt, 4), r5 = lane_row(&vt, 5);
    CHECKV(&vt, cells_in(&vt, r5, c0, GREEN) > cells_in(&vt, r4, c0, GREEN) + 5);
    CHECKV(&vt, cells_in(&vt, r4, c0, BLUE) > cells_in(&vt, r5, c0, BLUE) + 5);
    double l5 = lane_len_us(&vt, r5), l4 = lane_len_us(&vt, r4);
    CHECKV(&vt, l4 > 0 && l5 > 0.95 * l4 && l5 < 1.05 * l4);
    CHECK_INT(vt_shot(&vt, "lanes", "probetop TRACES --parallel 'W=8 L=8 TP=1 PP=4': the lane view (F8), step 2, "
                                    "rank 5 the straggler") >= 0, 1);
    /* each rank from its own step start, then back */
    vt_send(&vt, "a");
    VT_WAIT(&vt, vt_find(&vt, "each rank from its step start", NULL, NULL));
    vt_send(&vt, "a");
    VT_WAIT(&vt, vt_find(&vt, "8 lanes: all ranks  one clock", NULL, NULL));
    /* zoom in: the window narrows to a quarter; r: the whole step again */
    VT_WAIT(&vt, whole_window(vt_row_text(&vt, sr + 1)));
    vt_send(&vt, "ZZ");
    VT_WAIT(&vt, !whole_window(vt_row_text(&vt, sr + 1)));
    CHECKV(&vt, strstr(vt_row_text(&vt, sr + 1), "window +") != NULL);
    vt_send(&vt, "r");
    VT_WAIT(&vt, whole_window(vt_row_text(&vt, sr + 1)));
    /* one pipeline group: ranks 0, 2, 4, 6 in stage order */
    vt_send(&vt, "p");
    VT_WAIT(&vt, vt_find(&vt, "4 lanes: pipeline group 0", NULL, NULL));
    CHECKV(&vt, lane_row(&vt, 0) == LANE0 && lane_row(&vt, 2) == LANE0 + 1 && lane_row(&vt, 4) == LANE0 + 2 &&
                lane_row(&vt, 6) == LANE0 + 3);
    CHECKV(&vt, lane_row(&vt, 1) < 0);
    vt_send(&vt, "pp");
    VT_WAIT(&vt, vt_find(&vt, "8 lanes: all ranks", NULL, NULL));
    /* a click puts the cursor on that lane and time */
    char click[64];
    snprintf(click, sizeof click, "<click:%d,%d>", lane_row(&vt, 3), c0 + 2);
    vt_send(&vt, click);
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "rank 3 (p1t0d1)  step 2  "));
    /* b: one slice per cell, marked on its colour */
    vt_send(&vt, "b");
    VT_WAIT(&vt, strchr(vt_row_text(&vt, LANE0) + c0, '#') != NULL);
    CHECKV(&vt, strchr(vt_row_text(&vt, LANE0) + c0, '~') != NULL);
    vt_send(&vt, "b");
    VT_WAIT(&vt, strchr(vt_row_text(&vt, LANE0) + c0, '#') == NULL);
    /* small terminals: still drawn, no crash; and back */
    vt_resize(&vt, 40, 12);
    VT_WAIT(&vt, vt_find(&vt, "Lanes  step 2", NULL, NULL));
    vt_resize(&vt, 30, 6);
    VT_WAIT(&vt, vt_find(&vt, "Lanes", NULL, NULL));
    vt_resize(&vt, 80, 24);
    VT_WAIT(&vt, lane_row(&vt, 7) == LANE0 + 7);
    pt_vt_quit(&vt);
}

/* --patterns FILE (probetop-formats(5), TRACE PATTERNS) classifies what
 * the panes show.  With the GEMMs put among the communication kernels,
 * rank 0's first kernel (compute (forward) above) is communication, and
 * by probetop-rules(7) (a communication kernel in a forward pass without a
 * process group, its name not name_ep's) tp_comm; its cells turn blue.  A
 * file with a bad line is refused before the screen opens, with the file
 * and the line, as probetop trace refuses it. */
static void lanes_patterns(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = gen("lpat", "--ranks 8 --pp 4 --steps 3 --straggler 5:2");
    if (!dir) SKIP("python absent");
    if (!reads_traces(dir)) SKIP("this build reads no profiler traces (probetop info fails on them)");
    char pat[1300], bad[1300];
    snprintf(pat, sizeof pat, "%s/../gemm.pat", dir);
    snprintf(bad, sizeof bad, "%s/../bad.pat", dir);
    CHECK_INT(pt_write(pat, "# the GEMMs as communication\ncommunication = ^sm80_xmma_gemm|^(nccl|hccl)\n"), 0);
    CHECK_INT(pt_write(bad, "# ok\nforward = fwd\nrecompute = [oops\n"), 0);
    struct vt vt;
    const char *args[] = {dir, "--parallel", "W=8 L=8 TP=1 PP=4", "--patterns", pat, NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "Lanes  step 1 (1/3)", NULL, NULL));
    CHECKV(&vt, legend_colours(&vt) == 0);
    int sr = vt_status_row(&vt), c0 = bar_col(&vt);
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "rank 0 (p0t0d0)  step 1  idle  start +0 ns  dur 20.000 us"));
    vt_send(&vt, "l");
    VT_WAIT(&vt, strstr(vt_row_text(&vt, sr), "rank 0 (p0t0d0)  step 1  communication (tp_comm)  start +20.000 us  dur 400.000"));
    CHECKV(&vt, !strncmp(vt_row_text(&vt, sr + 1), "sm80_xmma_gemm_f16f16_f32_fwd  stream 7", 39));
    struct vt_cell x;
    vt_cell(&vt, LANE0, c0, &x);
    CHECKV(&vt, vt_cell_paper(&x) == BLUE);   /* green without the file */
    CHECKV(&vt, cells_in(&vt, LANE0, c0, GREEN) < 3);
    vt_send(&vt, "q");
    int st = -1;
    CHECKV(&vt, vt_wait_exit(&vt, 10000, &st) == 0);
    vt_close(&vt);
    /* the bad file: refused, the terminal never taken (200 columns: the
     * message names the file by its path, whose length depends on the
     * build tree, and a wrapped line would split the text looked for) */
    const char *bargs[] = {dir, "--patterns", bad, NULL};
    CHECK_INT(vt_spawn_app(&vt, 200, 24, bargs, NULL), 0);
    st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    CHECKV(&vt, vt_has(&vt, "bad.pat:3: recompute: the regex does not compile"));
    CHECKV(&vt, vt_mode(&vt, 1049) != 1);
    vt_close(&vt);
}

static void lanes_200x60(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = gen_with("tests/gen_trace.py", "l64", "--ranks 64 --pp 8 --steps 2 --straggler 37");
    if (!dir) SKIP("python absent");
    if (!reads_traces(dir)) SKIP("this build reads no profiler traces (probetop info fails on them)");
    struct vt vt;
    const char *args[] = {dir, "--parallel", "W=64 L=64 TP=1 PP=8 tp-cp-pp-ep-dp", NULL};
    CHECK_INT(vt_spawn_app(&vt, 200, 60, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "64 lanes: all ranks", NULL, NULL));
    /* toolbar, title, axis, legend: the other rows are lanes 0.. */
    int fit = vt_status_row(&vt) - 1 - LANE0;
    CHECK_INT(fit, 54);
    for (int k = 0; k < fit; k++) CHECKV(&vt, lane_row(&vt, k) == LANE0 + k);
    CHECKV(&vt, lane_row(&vt, fit) < 0);
    int c0 = bar_col(&vt);
    CHECKV(&vt, legend_colours(&vt) == 0);
    for (int k = 0; k < fit; k++)
        CHECKV(&vt, cells_in(&vt, LANE0 + k, c0, GREEN) > 20 && cells_in(&vt, LANE0 + k, c0, BLUE) >= 1);
    /* the straggler computes longest; the others wait in the all-reduce */
    int r37 = lane_row(&vt, 37), r36 = lane_row(&vt, 36);
    CHECKV(&vt, cells_in(&vt, r37, c0, GREEN) > cells_in(&vt, r36, c0, GREEN) + 10);
    CHECKV(&vt, cells_in(&vt, r36, c0, BLUE) > cells_in(&vt, r37, c0, BLUE) + 10);
    CHECK_INT(vt_shot(&vt, "lanes-64", "probetop TRACES (64 ranks, PP 8): the lane view at 200x60") >= 0, 1);
    /* to the last lane: the lanes scroll */
    vt_send(&vt, "G");
    VT_WAIT(&vt, lane_row(&vt, 63) == vt_status_row(&vt) - 2);
    CHECKV(&vt, strstr(vt_row_text(&vt, vt_status_row(&vt)), "rank 63 (p7t0d7)") != NULL);
    CHECKV(&vt, lane_row(&vt, 0) < 0);
    vt_send(&vt, "g");
    VT_WAIT(&vt, lane_row(&vt, 0) == LANE0);
    /* p: the pipeline group of rank 0 is ranks 0..7, stage order */
    vt_send(&vt, "p");
    VT_WAIT(&vt, vt_find(&vt, "8 lanes: pipeline group 0", NULL, NULL));
    for (int k = 0; k < 8; k++) CHECKV(&vt, lane_row(&vt, k) == LANE0 + k);
    CHECKV(&vt, lane_row(&vt, 8) < 0);
    CHECKV(&vt, strstr(vt_row_text(&vt, LANE0 + 5), "5 (p5t0d0)") != NULL);
    pt_vt_quit(&vt);
}

/* The pipeline groups of the traces themselves (distributedInfo.pg_config,
 * tests/gen_trace.py --pg-config: stage = rank % PP, so the pipeline group
 * of rank 0 is ranks 0..3), without --parallel; --parallel overrides them
 * (its order tp-cp-ep-dp-pp puts ranks 0, 2, 4, 6 in a pipeline group). */
static void lanes_pg_config(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = gen_with("tests/gen_trace.py", "pgc", "--ranks 8 --pp 4 --tp 2 --steps 2 --pg-config");
    if (!dir) SKIP("python absent");
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "8 lanes: all ranks", NULL, NULL));
    vt_send(&vt, "p");
    VT_WAIT(&vt, vt_find(&vt, "4 lanes: pipeline group 0", NULL, NULL));
    for (int k = 0; k < 4; k++) CHECKV(&vt, lane_row(&vt, k) == LANE0 + k);
    CHECKV(&vt, lane_row(&vt, 4) < 0);
    vt_send(&vt, "p");
    VT_WAIT(&vt, vt_find(&vt, "4 lanes: pipeline group 1", NULL, NULL));
    for (int k = 4; k < 8; k++) CHECKV(&vt, lane_row(&vt, k) == LANE0 + k - 4);
    vt_send(&vt, "p");
    VT_WAIT(&vt, vt_find(&vt, "8 lanes: all ranks", NULL, NULL));
    pt_vt_quit(&vt);
    const char *args2[] = {dir, "--parallel", "W=8 L=8 TP=1 PP=4", NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args2, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "8 lanes: all ranks", NULL, NULL));
    vt_send(&vt, "p");
    VT_WAIT(&vt, vt_find(&vt, "4 lanes: pipeline group 0", NULL, NULL));
    CHECKV(&vt, lane_row(&vt, 0) == LANE0 && lane_row(&vt, 2) == LANE0 + 1 && lane_row(&vt, 4) == LANE0 + 2 &&
                lane_row(&vt, 6) == LANE0 + 3);
    CHECKV(&vt, lane_row(&vt, 1) < 0);
    pt_vt_quit(&vt);
}

/* A real trace (HTA's sampled_2rank fixture, steps 551-552): two lanes,
 * every category's colour somewhere, the cursor walks real kernels. */
static void fixture(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *s = pt_shared_file("traces", "hta/sampled_2rank");
    if (!s) SKIP("no test data (PT_SHARED: run through ctest)");
    if (!reads_traces(s)) SKIP("this build reads no profiler traces (probetop info fails on them)");
    struct vt vt;
    const char *args[] = {s, NULL};
    CHECK_INT(vt_spawn_app(&vt, 120, 30, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "Lanes  step 551 (1/2)  2 lanes: all ranks", NULL, NULL));
    CHECKV(&vt, lane_row(&vt, 0) == LANE0 && lane_row(&vt, 1) == LANE0 + 1);
    CHECKV(&vt, legend_colours(&vt) == 0);
    int c0 = bar_col(&vt);
    for (int k = 0; k < 2; k++)
        CHECKV(&vt, cells_in(&vt, LANE0 + k, c0, GREEN) > 0 && cells_in(&vt, LANE0 + k, c0, BLUE) > 0 &&
                    cells_in(&vt, LANE0 + k, c0, GREY) > 0);
    /* walk to the first NCCL kernel of rank 0 */
    int sr = vt_status_row(&vt);
    for (int i = 0; i < 2000 && !strstr(vt_row_text(&vt, sr), "  communication"); i++) {
        vt_send(&vt, "l");
        vt_settle(&vt);
    }
    CHECKV(&vt, strstr(vt_row_text(&vt, sr), "rank 0  step 551  communication") != NULL);
    CHECKV(&vt, !strncmp(vt_row_text(&vt, sr + 1), "ncclKernel_", 11) || !strncmp(vt_row_text(&vt, sr + 1), "ncclDevKernel", 13));
    vt_send(&vt, ")");
    VT_WAIT(&vt, vt_find(&vt, "Lanes  step 552 (2/2)", NULL, NULL));
    pt_vt_quit(&vt);
}

/* Without colour every cell is one slice, marked #, ~, m or . */
static void marks(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = gen("marks", "--ranks 4 --pp 2 --steps 1");
    if (!dir) SKIP("python absent");
    if (!reads_traces(dir)) SKIP("this build reads no profiler traces (probetop info fails on them)");
    struct vt vt;
    const char *args[] = {dir, NULL}, *env[] = {"NO_COLOR=1", NULL};
    CHECK_INT(vt_spawn_app(&vt, 100, 24, args, env), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "4 lanes: all ranks", NULL, NULL));
    int c0 = bar_col(&vt);
    const char *r0 = vt_row_text(&vt, lane_row(&vt, 0)), *r3 = vt_row_text(&vt, lane_row(&vt, 3));
    CHECKV(&vt, (int)strlen(r0) > c0 && r0[c0] == '#' && strchr(r0 + c0, '~') && strchr(r0 + c0, '.'));
    CHECKV(&vt, (int)strlen(r3) > c0 && r3[c0] == '.');   /* stage 1 waits first */
    CHECKV(&vt, strstr(vt_screen_text(&vt), "# compute") != NULL);
    CHECK_INT(pt_vt_coloured_cells(&vt), 0);
    pt_vt_quit(&vt);
    /* ASCII only (LANG=C): the same marks, on their colours */
    const char *env_c[] = {"LANG=C", NULL};
    CHECK_INT(vt_spawn_app(&vt, 100, 24, args, env_c), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "4 lanes: all ranks", NULL, NULL));
    r0 = vt_row_text(&vt, lane_row(&vt, 0));
    CHECKV(&vt, (int)strlen(r0) > c0 && r0[c0] == '#' && strchr(r0 + c0, '~'));
    CHECKV(&vt, legend_colours(&vt) == 0);
    CHECKV(&vt, cells_in(&vt, lane_row(&vt, 0), c0, GREEN) > 10);
    for (const unsigned char *q = (const unsigned char *)vt_screen_text(&vt); *q; q++)
        if (*q >= 0x80) { CHECK(!"a byte beyond ASCII on screen"); break; }
    pt_vt_quit(&vt);
}

static void no_timeline(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    struct vt vt;
    const char *args[] = {src_path("tests/ascend/pp2"), NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "No timeline in this data", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "the lane view needs profiler traces", NULL, NULL));
    /* the pane's keys do nothing harmful without a timeline */
    vt_send(&vt, "jkhlZz,.()apbr");
    vt_send(&vt, "<click:5,40>");
    VT_WAIT(&vt, vt_find(&vt, "No timeline in this data", NULL, NULL));
    /* the step table itself is in the heat map */
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_find(&vt, "exposed_communication", NULL, NULL));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(lanes_80x24);
    RUN(lanes_patterns);
    RUN(lanes_200x60);
    RUN(lanes_pg_config);
    RUN(fixture);
    RUN(marks);
    RUN(no_timeline);
    PT_DONE();
}
