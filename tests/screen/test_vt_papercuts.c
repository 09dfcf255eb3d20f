/* test_vt_papercuts: the paper cuts a first user meets, each as the user met it: keys typed during a load, a
 * rank that does not load, the help's legend, keys with one meaning, the
 * small ones, and the screen left behind after the terminal grew.  Every
 * wait is followed by a check of what it waited for. */
#include "pt_test.h"
#include "screen/vt.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static bool status_has(struct vt *vt, const char *text) {
    return vt_row_has(vt, vt_status_row(vt), text) || (vt->rows >= 12 && vt_row_has(vt, vt->rows - 1, text));
}

/* The status line names the selected node first ("module ID  pass ..."):
 * whether that part is `node` (the numbers after it differ per step). */
static bool status_is(struct vt *vt, const char *node) {
    const char *t = vt_row_text(vt, vt_status_row(vt)), *e = strstr(t, "  ");
    size_t n = e ? (size_t)(e - t) : strlen(t);
    return n == strlen(node) && !strncmp(t, node, n);
}

static void status_node(struct vt *vt, char *out, size_t size) {
    const char *t = vt_row_text(vt, vt_status_row(vt)), *e = strstr(t, "  ");
    snprintf(out, size, "%.*s", (int)(e ? (size_t)(e - t) : strlen(t)), t);
}

static void quit(struct vt *vt) {
    vt_send(vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char why[256] = "";
    bool ok = vt_restored(vt, why, sizeof why);
    if (!ok) fprintf(stderr, "   not restored: %s\n", why);
    CHECK(ok);
}

/* A generated problem / benchmark pair (gen_dump.py) of `steps` steps and
 * `ranks` ranks under PT_TMP/name; p and b get the two paths.  0, or -1
 * when python or the generator are missing. */
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

/* 3: `)))jjj` in one write is three steps on and three rows down, and no
 * stale "loading step..." stays behind (7). */
static void test_keys_queued(void) {
    char p[1200], b[1200], row3[2048];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("keys_queued", 4, 1, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 40, args, NULL), 0);
    /* a whole run opens on its step x rank summary: Enter on step 0 */
    VT_WAIT(&vt, vt_row_has(&vt, 1, "Run  4 steps x 1 rank:"));
    CHECKV(&vt, vt_row_has(&vt, 1, "Run  4 steps x 1 rank:"));
    vt_send(&vt, "g<Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 1, "matched"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 1, "matched"));
    /* the tree opens on the pair's first divergence: g goes to the root */
    vt_send(&vt, "g");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 1, "matched") &&
                     vt_row_has(&vt, vt_status_row(&vt), "DefaultModel"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 1, "matched") &&
                    vt_row_has(&vt, vt_status_row(&vt), "DefaultModel"));
    char root[2048];
    status_node(&vt, root, sizeof root);
    /* what three rows down from the root is, on step 3 (the tree of step 0
     * came from the summary with its divergence path open) */
    vt_send(&vt, ")))");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 3") && !vt_has(&vt, "loading"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 3"));
    vt_send(&vt, "g");
    VT_WAIT(&vt, status_is(&vt, root));
    CHECKV(&vt, status_is(&vt, root));
    vt_send(&vt, "jjj");
    VT_WAIT(&vt, !status_is(&vt, root));
    CHECKV(&vt, !status_is(&vt, root));
    status_node(&vt, row3, sizeof row3);
    vt_send(&vt, "(((");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 0") && !vt_has(&vt, "loading"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 0"));
    vt_send(&vt, "g");
    VT_WAIT(&vt, status_is(&vt, root));
    CHECKV(&vt, status_is(&vt, root));
    /* one write: three steps on, three rows down */
    vt_send(&vt, ")))jjj");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 3") && status_is(&vt, row3));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 3") && status_is(&vt, row3));
    /* the load is over: no "loading step 3 rank 0..." left */
    CHECKV(&vt, !vt_has(&vt, "loading"));
    /* one step back: the message goes when the graph is there */
    vt_send(&vt, "(");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 2") && !vt_has(&vt, "loading"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 2") && !vt_has(&vt, "loading"));
    quit(&vt);
    vt_close(&vt);
}

/* 10: the title keeps a backslash single; switching metric keeps the
 * statistic; the search pane's counts say what the toolbar's say and its
 * names keep the layer that tells them apart. */
static void test_small_ones(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/norm"));
    CHECKV(&vt, vt_row_has(&vt, 0, "forward/norm"));
    vt_send(&vt, "/mlp\\.linear_fc2<Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "/mlp\\.linear_fc2/ 16/139"));
    CHECKV(&vt, vt_row_has(&vt, 0, "/mlp\\.linear_fc2/ 16/139"));
    CHECKV(&vt, !vt_row_has(&vt, 0, "\\\\"));
    /* s: the next statistic; m: the next metric, which has it too */
    vt_send(&vt, "s");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/max"));
    CHECKV(&vt, vt_row_has(&vt, 0, "forward/max"));
    vt_send(&vt, "m");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "backward/max"));
    CHECKV(&vt, vt_row_has(&vt, 0, "backward/max"));
    vt_send(&vt, "M");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/max"));
    CHECKV(&vt, vt_row_has(&vt, 0, "forward/max"));
    /* the search pane: the toolbar's 16 of 139 (forward) and its own count */
    vt_send(&vt, "<F4>");
    VT_WAIT(&vt, vt_has(&vt, "Targets (Enter") && vt_row_has(&vt, 1, "16 of 139 in forward") &&
                     vt_has(&vt, "L2.mlp.linear_fc2"));
    CHECKV(&vt, vt_has(&vt, "Targets (Enter") && vt_row_has(&vt, 1, "16 of 139 in forward"));
    /* names longer than the target column are shortened, the layers stay */
    CHECKV(&vt, vt_has(&vt, "L0.mlp.linear_fc2") && vt_has(&vt, "L1.mlp.linear_fc2") && vt_has(&vt, "L2.mlp.linear_fc2"));
    quit(&vt);
    vt_close(&vt);
}

/* 10: at 80 columns the search pane's target names keep their layer and
 * its labels the start that tells them apart (Column / Row ParallelLinear). */
static void test_search_labels_80(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/norm"));
    CHECKV(&vt, vt_row_has(&vt, 0, "forward/norm"));
    vt_send(&vt, "<F4>");
    VT_WAIT(&vt, vt_has(&vt, "Targets (Enter") && vt_has(&vt, "[ ] RowParallelLinear.") &&
                     vt_has(&vt, "L0.self_attention.linear_qkv"));
    CHECKV(&vt, vt_has(&vt, "Targets (Enter"));
    CHECKV(&vt, vt_has(&vt, "[ ] ColumnParallelLinear.") && vt_has(&vt, "[ ] RowParallelLinear."));
    /* and the target names their layer, not "Module.module.module.de..." */
    CHECKV(&vt, vt_has(&vt, "L0.self_attention.linear_qkv") && !vt_has(&vt, "Module.module.module.de"));
    quit(&vt);
    vt_close(&vt);
}

/* 10: --parallel at 120 columns labels every rank, and the status line
 * says the rank number beside its label. */
static void test_parallel_labels(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", "--parallel", "W=8 L=4 TP=2 PP=2", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 40, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 2, "p1t1d1") && status_has(&vt, "step 0  rank 0 (p0t0d0)"));
    CHECKV(&vt, vt_row_has(&vt, 2, "p0t0d0 p0t1d0 p0t0d1 p0t1d1 p1t0d0 p1t1d0 p1t0d1 p1t1d1"));
    CHECKV(&vt, status_has(&vt, "step 0  rank 0 (p0t0d0)"));
    vt_send(&vt, "l");
    VT_WAIT(&vt, status_has(&vt, "rank 1 (p0t1d0)"));
    CHECKV(&vt, status_has(&vt, "rank 1 (p0t1d0)"));
    /* the line chart names its line the same way */
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "1 rank 1 (p0t1d0) / "));
    CHECKV(&vt, vt_has(&vt, "1 rank 1 (p0t1d0) / "));
    quit(&vt);
    vt_close(&vt);
}


/* text on screen even where a pane wrapped it at blanks (the load report
 * wraps long lines, and where depends on the checkout's path length): the
 * rows joined with one blank, each without its leading and trailing ones */
static bool has_wrapped(struct vt *vt, const char *text) {
    static char flat[16384];
    size_t o = 0;
    for (int r = 0; r < vt->rows; r++) {
        const char *t = vt_row_text(vt, r);
        while (*t == ' ') t++;
        size_t l = strlen(t);
        while (l && t[l - 1] == ' ') l--;
        if (!l || o + l + 2 >= sizeof flat) continue;
        if (o) flat[o++] = ' ';
        memcpy(flat + o, t, l);
        o += l;
    }
    flat[o] = '\0';
    return strstr(flat, text) != NULL;
}
/* 5: a rank whose dump.json is cut short: the toolbar and the status line
 * say a file was skipped, :skipped lists it with the reason, q goes back. */
static void test_skipped_rank(void) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!py || !py[0] || !s) SKIP("no python or shared tools");
    const char *dir = pt_tmpdir("skipped_rank");
    char cmd[4096], root[1200];
    snprintf(root, sizeof root, "%s/run", dir);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 2 --ranks 2 --layers 2 --hidden 64 --heads 4 --ffn 128 "
             "--seq 8 --vocab 64 --quiet >/dev/null 2>&1 && truncate -s 1000 '%s/step0/rank1/dump.json'",
             py, s, root, root);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    const char *args[] = {root, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 30, args, NULL), 0);
    /* the toolbar and the status line say it (and the status line keeps
     * saying it after a key: the message at start-up may share the line) */
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, 0, "skipped") && status_has(&vt, "1 skipped (:skipped)"));
    CHECKV(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, 0, "1 file skipped (:skipped)"));
    CHECKV(&vt, status_has(&vt, "1 skipped (:skipped)"));
    vt_send(&vt, "j");
    VT_WAIT(&vt, !vt_row_has(&vt, vt.rows - 1, "lists them"));
    CHECKV(&vt, !vt_row_has(&vt, vt.rows - 1, "lists them") && vt_row_has(&vt, 0, "1 file skipped") &&
                    status_has(&vt, "1 skipped (:skipped)"));
    vt_send(&vt, ":skipped<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "Load report") && has_wrapped(&vt, "JSON ends early"));
    CHECKV(&vt, vt_has(&vt, "Load report") && has_wrapped(&vt, "step0/rank1/dump.json") &&
                    has_wrapped(&vt, "JSON ends early"));
    vt_send(&vt, "q");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && !vt_has(&vt, "Load report"));
    CHECKV(&vt, vt_has(&vt, "Heat map") && !vt_has(&vt, "Load report"));
    quit(&vt);
    vt_close(&vt);

    /* nothing skipped: :skipped says so */
    const char *demo[] = {"--demo=trend", NULL};
    CHECK_INT(vt_spawn_app(&vt, 100, 24, demo, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/norm"));
    CHECKV(&vt, vt_row_has(&vt, 0, "forward/norm") && !vt_row_has(&vt, 0, "skipped"));
    vt_send(&vt, ":skipped<Enter>");
    VT_WAIT(&vt, vt_has(&vt, "nothing was skipped"));
    CHECKV(&vt, vt_has(&vt, "nothing was skipped: every file loaded"));
    quit(&vt);
    vt_close(&vt);
}

/* The overflow list's cursor row (marked with the focus glyph), -1. */
static int cursor_row(struct vt *vt) {
    int r = -1;
    for (int i = 0; i < vt_status_row(vt); i++)
        if (!strncmp(vt_row_text(vt, i), "\xe2\x96\xb6", 3)) r = i;
    return r;
}

/* 10: F in the overflow pane puts the first occurrence (a NaN born at
 * step 3, far down the list) with context below it, not on the last line. */
static void test_overflow_first_context(void) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!py || !py[0] || !s) SKIP("no python or shared tools");
    const char *dir = pt_tmpdir("overflow_first");
    char cmd[4096], root[1200];
    snprintf(root, sizeof root, "%s/run", dir);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 4 --ranks 2 --layers 2 --hidden 64 --heads 4 --ffn 128 "
             "--seq 8 --vocab 64 --quiet --nan 3:1:layers.1.mlp.linear_fc2 >/dev/null 2>&1", py, s, root);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    const char *args[] = {root, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    CHECKV(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F3>");
    VT_WAIT(&vt, vt_has(&vt, "name / non-finite") &&
                     vt_row_has(&vt, vt.rows - 1, "r only rank  s only step  c clear filters  F first  n/N next match"));
    CHECKV(&vt, vt_has(&vt, "name / non-finite"));
    /* 9: the footer says what r, s, c and n mean in this pane */
    CHECKV(&vt, vt_row_has(&vt, vt.rows - 1, "r only rank  s only step  c clear filters  F first  n/N next match"));
    vt_send(&vt, "F");
    VT_WAIT(&vt, vt_has(&vt, "first occurrence: critical at step 3") && cursor_row(&vt) > 0 &&
                     strstr(vt_row_text(&vt, cursor_row(&vt)), "Functional.linear.7.forward"));
    CHECKV(&vt, vt_has(&vt, "first occurrence: critical at step 3, rank 1"));
    int r = cursor_row(&vt);
    CHECKV(&vt, r > 0 && strstr(vt_row_text(&vt, r), "Functional.linear.7.forward"));
    /* at least three entries of context below it */
    CHECKV(&vt, r > 0 && r + 3 < vt_status_row(&vt) && strstr(vt_row_text(&vt, r + 3), "Max=nan"));
    quit(&vt);
    vt_close(&vt);
}

/* 9: r means "reset the value range" in the line chart too (its whole x
 * range is w), so the heat map's range narrowed with < comes back. */
static void test_r_one_meaning(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/norm"));
    CHECKV(&vt, vt_row_has(&vt, 0, "forward/norm"));
    vt_send(&vt, "<lt><lt>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "range* "));
    CHECKV(&vt, vt_row_has(&vt, 0, "range* "));
    vt_send(&vt, "<Enter>");   /* a line in the chart */
    VT_WAIT(&vt, !vt_has(&vt, "adds its trend here"));
    CHECKV(&vt, !vt_has(&vt, "adds its trend here"));
    vt_send(&vt, "<Tab>");   /* the line chart */
    VT_WAIT(&vt, vt_has(&vt, "\xe2\x96\xb6 Line chart"));
    CHECKV(&vt, vt_has(&vt, "\xe2\x96\xb6 Line chart"));
    vt_send(&vt, "r");
    VT_WAIT(&vt, vt_has(&vt, "value range reset"));
    CHECKV(&vt, vt_has(&vt, "value range reset") && !vt_row_has(&vt, 0, "range* "));
    vt_send(&vt, "w");
    VT_WAIT(&vt, vt_has(&vt, "line chart: whole x range"));
    CHECKV(&vt, vt_has(&vt, "line chart: whole x range"));
    quit(&vt);
    vt_close(&vt);
}

/* Pages the help from the top until text shows; true when found. */
static bool help_find(struct vt *vt, const char *text) {
    vt_send(vt, "g");
    VT_WAIT(vt, vt_row_has(vt, 2, "Everywhere"));
    if (!vt_row_has(vt, 2, "Everywhere")) return false;
    VT_WAIT(vt, vt_wait_idle(vt, 100) == 0);
    for (int i = 0; i < 20; i++) {
        if (vt_has(vt, text)) return true;
        /* the help's last line (the mouse drag) shown: nowhere further to go,
         * so no wait below can be one that never ends */
        if (vt_has(vt, "the line chart's title row")) return false;
        char before[4096];
        snprintf(before, sizeof before, "%s", vt_row_text(vt, 2));
        vt_send(vt, "<PgDn>");
        VT_WAIT(vt, strcmp(vt_row_text(vt, 2), before) != 0);
        if (!strcmp(vt_row_text(vt, 2), before)) return false;
        VT_WAIT(vt, vt_wait_idle(vt, 100) == 0);   /* the rest of the page */
    }
    return vt_has(vt, text);
}

/* The background colour of the first cell showing glyph on row `row`
 * right of column 1, or 0xffffffff. */
static uint32_t glyph_paper(struct vt *vt, int row, const char *glyph) {
    for (int c = 1; c < vt->cols; c++) {
        struct vt_cell cell;
        if (vt_cell(vt, row, c, &cell) == 0 && !strcmp(cell.glyph, glyph)) return vt_cell_paper(&cell);
    }
    return 0xffffffffu;
}

/* 8: the help has a legend for every glyph and colour, the `:` syntax is
 * never cut (200 columns), a pane key that means something else elsewhere
 * says so (9), and F10 quits (9). */
static void test_help(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--demo=trend", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 200, 50, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 0, "forward/norm"));
    CHECKV(&vt, vt_row_has(&vt, 0, "forward/norm"));
    vt_send(&vt, "?");
    VT_WAIT(&vt, vt_row_has(&vt, 2, "Everywhere") && vt_has(&vt, "q, F10"));
    CHECKV(&vt, vt_row_has(&vt, 2, "Everywhere") && vt_has(&vt, "q, F10"));
    CHECKV(&vt, help_find(&vt, ":color gradient|segmented"));
    CHECKV(&vt, help_find(&vt, ":run problem|bench|diff"));
    CHECKV(&vt, !vt_has(&vt, "\xe2\x80\xa6"));   /* no ellipsis: nothing cut */
    /* the overflow pane's r and s say what they are elsewhere */
    CHECKV(&vt, help_find(&vt, "(in this pane; elsewhere r is: reset the value range)"));
    CHECKV(&vt, help_find(&vt, "(in this pane; elsewhere s is: next statistic)"));
    /* the legend: tree chips, the overflow arrow, heat-map cells, levels */
    CHECKV(&vt, help_find(&vt, "Legend: tree"));
    int r;
    CHECKV(&vt, vt_find(&vt, "\xe2\x80\xa2", &r, NULL) && vt_row_has(&vt, r, "pass"));
    CHECKV(&vt, vt_find(&vt, "!  ", &r, NULL) || vt_has(&vt, "warning: "));
    CHECKV(&vt, vt_find(&vt, "\xc3\x97", &r, NULL) && vt_row_has(&vt, r, "error"));
    CHECKV(&vt, vt_has(&vt, "unmatched: no counterpart"));
    /* its page, wherever the rows above put it */
    CHECKV(&vt, help_find(&vt, "overflow, critical") && vt_find(&vt, "overflow, critical", &r, NULL) &&
                vt_row_has(&vt, r, "\xe2\x86\x91"));
    CHECKV(&vt, help_find(&vt, "a NaN cell"));
    CHECKV(&vt, vt_find(&vt, "a NaN cell", &r, NULL));
    /* drawn in the heat map's NaN colour (magenta paper) */
    uint32_t bg = glyph_paper(&vt, r, "N");
    CHECK(((bg >> 16) & 0xff) > 0x80 && ((bg >> 8) & 0xff) < 0x40 && (bg & 0xff) > 0x80);
    CHECKV(&vt, vt_has(&vt, "a +Inf cell") && vt_has(&vt, "a -Inf cell"));
    CHECKV(&vt, help_find(&vt, "critical: NaN/Inf born here"));
    CHECKV(&vt, vt_has(&vt, "\xe2\x96\x88" "C") && vt_has(&vt, "\xe2\x96\x93" "H") && vt_has(&vt, "\xe2\x96\x91" "M"));
    /* F10 quits, from the help too */
    vt_send(&vt, "<F10>");
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    vt_close(&vt);
}

/* 8: a single run's tree footer shows only keys that work there. */
static void test_single_run_footer(void) {
    const char *s = pt_shared();
    char db[4096];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!s) SKIP("no shared fixtures");
    snprintf(db, sizeof db, "%s/fixtures/msprobe-outputs/gpu_dump_step0.build.vis.db", s);
    if (access(db, R_OK) != 0) SKIP("fixture absent");
    const char *args[] = {db, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 30, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, vt.rows - 1, "Enter expand  /") && vt_has(&vt, "DefaultModel"));
    CHECKV(&vt, vt_row_has(&vt, vt.rows - 1, "Enter expand  / search  n/N next match"));
    CHECKV(&vt, !vt_has(&vt, "divergent") && !vt_has(&vt, "u unmatched") && !vt_has(&vt, "M match"));
    quit(&vt);
    vt_close(&vt);
}

/* --- in tmux: what the real terminal multiplexer keeps --- */

static char tmux_sock[64];

/* Runs `tmux -L SOCK ARGS`, its output (up to size) in out when out is
 * not NULL; the exit status, -1 when it could not run. */
static int tmux(const char *args, char *out, size_t size) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "tmux -L %s %s 2>/dev/null", tmux_sock, args);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    size_t n = 0;
    if (out) {
        n = fread(out, 1, size - 1, f);
        out[n] = '\0';
    } else {
        char sink[4096];
        while (fread(sink, 1, sizeof sink, f) > 0) {}
    }
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Polls the pane until pred holds on its text (rows joined by '\n'), up
 * to 10 s (scaled like the vt deadlines). */
static bool tmux_wait(bool (*pred)(const char *text), char *text, size_t size) {
    const char *sc = getenv("PT_TIMEOUT_SCALE");
    double scale = sc && atof(sc) > 0 ? atof(sc) : 1, deadline = vt_now() + 10 * scale;
    for (;;) {
        if (tmux("capture-pane -p", text, size) == 0 && pred(text)) return true;
        if (vt_now() >= deadline) return false;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static bool shows_heatmap(const char *t) { return strstr(t, "Heat map") != NULL; }
static bool grown(const char *t) {
    /* 41 rows, the last one (the status line's second row) drawn */
    int rows = 1;
    const char *last = t;
    for (const char *p = t; *p; p++)
        if (*p == '\n' && p[1]) { rows++; last = p + 1; }
    return rows == 41 && *last && *last != '\n';
}
static bool after_exit(const char *t) { return strstr(t, "AFTER-EXIT") != NULL; }

/* Screen left behind: the terminal grew while probetop ran (tmux, 120x40
 * -> 121x41); q must give back the shell's screen as it was, not rows of
 * the heat map. */
static void test_grown_then_quit(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (system("tmux -V >/dev/null 2>&1") != 0) SKIP("no tmux");
    snprintf(tmux_sock, sizeof tmux_sock, "pt-papercuts-%d", (int)getpid());
    char cmd[4096], text[65536];
    snprintf(cmd, sizeof cmd,
             "-f /dev/null new-session -d -x 120 -y 40 "
             "\"printf 'SHELL-LINE\\n'; '%s' --demo=trend; printf 'AFTER-EXIT\\n'; sleep 60\"", vt_bin());
    if (tmux(cmd, NULL, 0) != 0) SKIP("tmux cannot start a session here");
    bool ok = tmux_wait(shows_heatmap, text, sizeof text);
    CHECK(ok);
    if (tmux("resize-window -x 121 -y 41", NULL, 0) != 0) {
        tmux("kill-server", NULL, 0);
        SKIP("this tmux has no resize-window");
    }
    ok = tmux_wait(grown, text, sizeof text);
    CHECK(ok);
    tmux("send-keys q", NULL, 0);
    ok = tmux_wait(after_exit, text, sizeof text);
    CHECK(ok);
    CHECK(!strncmp(text, "SHELL-LINE\nAFTER-EXIT", 21));
    CHECK(!strstr(text, "Heat map"));
    if (strncmp(text, "SHELL-LINE\nAFTER-EXIT", 21)) fprintf(stderr, "---- tmux pane ----\n%.2000s\n----\n", text);
    tmux("kill-server", NULL, 0);
}

int main(void) {
    RUN(test_keys_queued);
    RUN(test_small_ones);
    RUN(test_search_labels_80);
    RUN(test_parallel_labels);
    RUN(test_skipped_rank);
    RUN(test_overflow_first_context);
    RUN(test_r_one_meaning);
    RUN(test_help);
    RUN(test_single_run_footer);
    RUN(test_grown_then_quit);
    PT_DONE();
}
