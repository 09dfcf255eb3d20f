/* test_graph: the compare screen (tree beside detail) as a user sees it,
 * on msProbe's quick_start pair (step0 problem vs step1 benchmark), at
 * 80x24 and 120x40 (probetop(1), COMPARE MODE), plus the .vis.db mode, bad
 * inputs and a 20x6 terminal.
 *
 * The numbers come from msProbe's own compare of the pair (the fixtures'
 * compare_oc.vis.db and compare_result.csv): 709 nodes matched, 220
 * problem / 58 benchmark nodes unmatched, and the first node at error
 * level in msProbe's node_order is Functional.linear.0.forward, the
 * operation inside Module.fc.Linear.forward.0, whose output.0
 * NormRelativeErr is 52.5% (Max 74.3%).  Every step waits for the state
 * it asserts. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

#define QS "examples/quick_start/gpu_dump"
#define FIRST "Module.fc.Linear.forward.0"
#define FIRST_OP "Functional.linear.0.forward"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static bool status_has(struct vt *vt, const char *text) {
    return vt_row_has(vt, vt_status_row(vt), text) || (vt->rows >= 12 && vt_row_has(vt, vt->rows - 1, text));
}

static void command(struct vt *vt, const char *cmd) {
    char keys[512];
    snprintf(keys, sizeof keys, ":%s<Enter>", cmd);
    vt_send(vt, keys);
}

/* The verdict chip of a tree row: the first of . ! x ? - after the marker. */
static int chip_col(struct vt *vt, int row) {
    for (int c = 0; c < vt->cols / 2; c++) {
        struct vt_cell cell;
        vt_cell(vt, row, c, &cell);
        if (cell.ch == 0x2022 || cell.ch == '!' || cell.ch == 0xd7 || cell.ch == '?' || cell.ch == '-') return c;
    }
    return -1;
}

static void tree_at(int cols, int rows) {
    const char *p = pt_fixture(QS "/step0/proc2016"), *b = pt_fixture(QS "/step1/proc2016");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!p || !b) SKIP("quick_start fixtures absent");
    fprintf(stderr, "   at %dx%d\n", cols, rows);
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, args, NULL), 0);
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "DefaultModel") >= 0 && pt_vt_tree_row(&vt, "Module.conv1.Conv2d.forward.0") >= 0);
    CHECKV(&vt, vt_row_has(&vt, 0, "compare") && vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 0, "rank 0"));
    /* msProbe's counts for the pair */
    CHECKV(&vt, vt_row_has(&vt, 1, "matched 709") && vt_row_has(&vt, 1, "unmatched 220/58"));

    /* Root expanded, its children collapsed with a pass chip. */
    int r = pt_vt_tree_row(&vt, "Module.conv1.Conv2d.forward.0");
    CHECKV(&vt, r > 0 && strstr(vt_row_text(&vt, r), "\xe2\x96\xb8") != NULL);   /* ▸ */
    int cc = r > 0 ? chip_col(&vt, r) : -1;
    struct vt_cell cell;
    CHECKV(&vt, cc > 0);
    if (cc > 0) {
        vt_cell(&vt, r, cc, &cell);
        CHECK(cell.ch == 0x2022);   /* • pass */
    }
    CHECKV(&vt, pt_vt_tree_row(&vt, "optimizer") > 0 || rows < 30);

    /* f: the first divergence, as msProbe's index and node_order say: the
     * Linear's operation, shown inside its opened module */
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "first divergence: " FIRST_OP));
    CHECKV(&vt, status_has(&vt, "first divergence: " FIRST_OP "  error  in Module.fc.Linear."));
    r = pt_vt_tree_row(&vt, "linear.0.forward");
    CHECKV(&vt, r > 0 && r == pt_vt_tree_row(&vt, FIRST) + 1);
    CHECKV(&vt, strstr(vt_row_text(&vt, pt_vt_tree_row(&vt, FIRST)), "\xe2\x96\xbe") != NULL);   /* ▾ */
    cc = r > 0 ? chip_col(&vt, r) : -1;
    CHECKV(&vt, cc > 0);
    if (cc > 0) {
        vt_cell(&vt, r, cc, &cell);
        CHECK(cell.ch == 0xd7);   /* × error */
        uint32_t bg = vt_cell_paper(&cell);
        CHECK(((bg >> 16) & 0xff) > 0x90 && ((bg >> 8) & 0xff) < 0x80);   /* red */
    }
    /* the module around it is red too */
    r = pt_vt_tree_row(&vt, FIRST);
    cc = r > 0 ? chip_col(&vt, r) : -1;
    if (cc > 0) {
        vt_cell(&vt, r, cc, &cell);
        CHECK(cell.ch == 0xd7);
    }
    CHECKV(&vt, vt_has(&vt, "input.0  pass") && vt_has(&vt, "benchmark: Functional.linear.0"));

    /* n: the next divergent node in node_order is the module holding the
     * operation (a module comes after everything inside it); N back */
    vt_send(&vt, "n");
    VT_WAIT(&vt, status_has(&vt, "next divergence: "));
    CHECKV(&vt, status_has(&vt, "next divergence: " FIRST "  error"));
    vt_send(&vt, "N");
    VT_WAIT(&vt, status_has(&vt, "previous divergence: "));
    CHECKV(&vt, status_has(&vt, "previous divergence: " FIRST_OP "  error"));
    /* ← on the leaf goes to its module, ← again collapses it */
    vt_send(&vt, "<Left>");
    VT_WAIT(&vt, status_has(&vt, "module " FIRST));
    CHECKV(&vt, status_has(&vt, "module " FIRST));
    /* the detail pane: both sides, the compare columns, the verdict */
    CHECKV(&vt, vt_has(&vt, "input.0  pass") && vt_has(&vt, "output.0  error"));
    CHECKV(&vt, vt_has(&vt, "benchmark:"));
    CHECKV(&vt, vt_has(&vt, "torch.float32"));
    CHECKV(&vt, vt_has(&vt, "74.3") && vt_has(&vt, "52.5"));   /* Max / Norm relative errors */
    vt_send(&vt, "<Left>");
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "linear.0.forward") < 0);
    CHECKV(&vt, pt_vt_tree_row(&vt, "linear.0.forward") < 0);
    /* Enter expands it again */
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "linear.0.forward") > 0);
    CHECKV(&vt, pt_vt_tree_row(&vt, "linear.0.forward") == pt_vt_tree_row(&vt, FIRST) + 1);

    /* Tab: the detail pane takes the keys (scrolls), Tab again back. */
    vt_send(&vt, "<Tab>");
    VT_WAIT(&vt, status_has(&vt, "line 1 of"));
    CHECKV(&vt, status_has(&vt, "line 1 of"));
    vt_send(&vt, "jj");
    VT_WAIT(&vt, status_has(&vt, "line 3 of"));
    CHECKV(&vt, status_has(&vt, "line 3 of"));
    vt_send(&vt, "<Tab>");
    VT_WAIT(&vt, status_has(&vt, "module " FIRST));
    CHECKV(&vt, status_has(&vt, "module " FIRST));

    /* u: the unmatched lists of both sides, with counts. */
    vt_send(&vt, "u");
    VT_WAIT(&vt, vt_has(&vt, "unmatched problem nodes: 220"));
    CHECKV(&vt, vt_has(&vt, "unmatched problem nodes: 220"));
    vt_send(&vt, "<Esc>");
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "DefaultModel") > 0);
    CHECKV(&vt, pt_vt_tree_row(&vt, "DefaultModel") > 0);

    /* /: a regex over node ids, n goes on to the next match. */
    vt_send(&vt, "/layer4\\.2\\..*Bottleneck.forward<Enter>");
    VT_WAIT(&vt, status_has(&vt, "match: Module.layer4.2."));
    CHECKV(&vt, status_has(&vt, "match: Module.layer4.2.Bottleneck.forward.0"));
    vt_send(&vt, "<Esc>");
    VT_WAIT(&vt, status_has(&vt, "search cleared"));
    CHECKV(&vt, status_has(&vt, "search cleared"));

    /* Manual match: the unmatched optimizer node with a benchmark node. */
    command(&vt, "node optimizer");
    VT_WAIT(&vt, status_has(&vt, "at: optimizer"));
    CHECKV(&vt, status_has(&vt, "at: optimizer  unmatched"));
    vt_send(&vt, "M");
    VT_WAIT(&vt, vt_has(&vt, "pick the benchmark node"));
    CHECKV(&vt, vt_has(&vt, "Manual match"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, status_has(&vt, "y confirms"));
    CHECKV(&vt, status_has(&vt, "match optimizer with "));
    vt_send(&vt, "y");
    VT_WAIT(&vt, status_has(&vt, "matched by hand: optimizer"));
    CHECKV(&vt, status_has(&vt, "matched by hand: optimizer"));
    CHECKV(&vt, vt_row_has(&vt, 1, "matched 710") && vt_row_has(&vt, 1, "unmatched 219/57"));
    r = pt_vt_tree_row(&vt, "optimizer");
    cc = r > 0 ? chip_col(&vt, r) : -1;
    if (cc > 0) {
        vt_cell(&vt, r, cc, &cell);
        CHECK(cell.ch != '?');
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/match_%dx%d.vis.config", pt_tmpdir("graph"), cols, rows);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "save-match %s", path);
    command(&vt, cmd);
    VT_WAIT(&vt, status_has(&vt, "manual pair"));
    CHECKV(&vt, status_has(&vt, "1 manual pair written"));
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        char buf[4096];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        CHECK(strstr(buf, "\"optimizer\": \"") != NULL);
    }

    if (cols >= 120) {
        /* everything folded, then f and Enter: the screenshot of the tree */
        vt_send(&vt, "gE");
        VT_WAIT(&vt, pt_vt_tree_row(&vt, "layer4.2.Bottleneck") < 0 && pt_vt_tree_row(&vt, "linear.0.forward") < 0);
        CHECKV(&vt, pt_vt_tree_row(&vt, "layer4.2.Bottleneck") < 0 && pt_vt_tree_row(&vt, "linear.0.forward") < 0);
        vt_send(&vt, "f");
        VT_WAIT(&vt, status_has(&vt, "first divergence") && pt_vt_tree_row(&vt, "linear.0.forward") > 0);
        CHECKV(&vt, status_has(&vt, "first divergence") && pt_vt_tree_row(&vt, "linear.0.forward") > 0);
        CHECKV(&vt, pt_vt_tree_row(&vt, "linear.0.forward") == pt_vt_tree_row(&vt, FIRST) + 1);
        CHECK_INT(vt_shot(&vt, "tree", "probetop PROBLEM BENCH: the tree, f on the first divergence") >= 0, 1);
        /* the detail pane of the Linear module's output, scrolled to its error */
        vt_send(&vt, "<Left>");
        VT_WAIT(&vt, status_has(&vt, "module " FIRST));
        CHECKV(&vt, status_has(&vt, "module " FIRST));
        vt_send(&vt, "<Tab>");
        VT_WAIT(&vt, status_has(&vt, "line 1 of"));
        CHECKV(&vt, status_has(&vt, "line 1 of"));
        for (int i = 0; i < 14; i++) vt_send(&vt, "j");
        VT_WAIT(&vt, status_has(&vt, "line 15 of"));
        CHECKV(&vt, status_has(&vt, "line 15 of") && vt_has(&vt, "output.0  error"));
        CHECK_INT(vt_shot(&vt, "detail", "probetop PROBLEM BENCH: the detail pane of Module.fc.Linear.forward.0") >= 0, 1);
    }

    vt_send(&vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char why[512];
    CHECK(vt_restored(&vt, why, sizeof why));
    vt_close(&vt);
}

static void test_80x24(void) { tree_at(80, 24); }
static void test_120x40(void) { tree_at(120, 40); }

/* A saved match config applied at start: the pair is matched, and a name
 * that is not a node is reported, not fatal. */
static void test_match_config(void) {
    const char *p = pt_fixture(QS "/step0/proc2016"), *b = pt_fixture(QS "/step1/proc2016");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!p || !b) SKIP("quick_start fixtures absent");
    char path[4200];
    snprintf(path, sizeof path, "%s/start.vis.config", pt_tmpdir("graph_mc"));
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"optimizer\": \"Module.fc.Linear.parameters_grad.1\", \"No.such.node\": \"optimizer\"}\n", f);
    fclose(f);
    const char *args[] = {p, b, "--match-config", path, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 30, args, NULL), 0);
    VT_WAIT(&vt, status_has(&vt, "--match-config"));
    CHECKV(&vt, status_has(&vt, "--match-config: 1 pairs applied, 1 failed (No.such.node is not a node of the problem graph)"));
    CHECKV(&vt, vt_row_has(&vt, 1, "matched 710"));
    vt_send(&vt, "q");
    int st = -1;
    CHECKV(&vt, vt_wait_exit(&vt, 0, &st) == 0);
    vt_close(&vt);
}

/* msProbe's own compare .vis.db: the same verdicts, read-only. */
static void test_visdb(void) {
    const char *s = pt_shared();
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!s) SKIP("shared fixtures absent");
    char db[4200];
    snprintf(db, sizeof db, "%s/fixtures/msprobe-outputs/gpu_dump_step0_vs_step1.compare_oc.vis.db", s);
    const char *args[] = {db, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 30, args, NULL), 0);
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "DefaultModel") >= 0);
    CHECKV(&vt, vt_row_has(&vt, 0, ".vis.db compare"));
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "first divergence: "));
    CHECKV(&vt, status_has(&vt, "first divergence: " FIRST_OP "  error  in " FIRST));
    CHECKV(&vt, vt_has(&vt, "input.0  pass") && vt_has(&vt, "benchmark: Functional.linear.0"));
    vt_send(&vt, "M");
    VT_WAIT(&vt, status_has(&vt, "read-only"));
    CHECKV(&vt, status_has(&vt, "read-only"));
    vt_send(&vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    vt_close(&vt);
}

/* A node whose stored output_data is not a JSON object: the reader keeps
 * the message, the detail pane shows it (never a silently empty pane),
 * the inputs still show. */
static void test_visdb_bad_column(void) {
    const char *s = pt_shared(), *py = getenv("PT_PYTHON");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!s) SKIP("shared fixtures absent");
    if (!py || !py[0]) SKIP("PT_PYTHON not set");
    char src[4200], dst[4200], cmd[9800];
    snprintf(src, sizeof src, "%s/fixtures/msprobe-outputs/gpu_dump_step0_vs_step1.compare_oc.vis.db", s);
    snprintf(dst, sizeof dst, "%s/c.vis.db", pt_tmpdir("graph_badcol"));
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && '%s' -c \"import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); "
             "d.execute(\\\"UPDATE tb_nodes SET output_data='[1]' WHERE node_name='" FIRST_OP "' AND data_source='NPU'\\\"); "
             "d.commit()\" '%s'", src, dst, py, dst);
    CHECK_INT(system(cmd), 0);
    const char *args[] = {dst, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 200, 40, args, NULL), 0);
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "DefaultModel") >= 0);
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "first divergence: "));
    VT_WAIT(&vt, vt_has(&vt, "not a JSON object"));
    CHECKV(&vt, vt_has(&vt, "output_data: not a JSON object"));
    CHECKV(&vt, vt_has(&vt, "input.0  pass"));
    vt_send(&vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    vt_close(&vt);
}

/* Bad inputs get a message and exit 2 (a trend db given as a .vis.db,
 * two dumps sharing no step/rank). */
static void test_bad_input(void) {
    const char *s = pt_shared();
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!s) SKIP("shared fixtures absent");
    char src[4200], dst[4200], cmd[9000];
    snprintf(src, sizeof src, "%s/fixtures/msprobe-outputs/gpu_dump.dump_data.trend.db", s);
    snprintf(dst, sizeof dst, "%s/trend.vis.db", pt_tmpdir("graph_bad"));
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
    CHECK_INT(system(cmd), 0);
    const char *args[] = {dst, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 30, args, NULL), 0);
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    CHECKV(&vt, vt_has(&vt, "it is a trend database"));
    vt_close(&vt);
}

/* An md5 pair (tests/md5/, with a construct.json of its records): f names
 * the operator the determinism rule finds, and the detail pane of a
 * backward whose output list holds nulls shows them (it crashed). */
static void test_md5(void) {
    const char *src = getenv("PT_SRC");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!src) SKIP("PT_SRC absent");
    const char *dir = pt_tmpdir("graph_md5");
    char d[2][1300], cmd[6000];
    for (int s = 0; s < 2; s++) {
        snprintf(d[s], sizeof d[s], "%s/%s", dir, s ? "bench" : "npu");
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s/tests/md5/%s/dump.json' '%s/' && printf '%%s' "
                 "'{\"Functional.embedding.0.forward\": null, \"Functional.conv2d.0.forward\": null, "
                 "\"Functional.relu.0.forward\": null, \"Functional.linear.0.forward\": null, "
                 "\"Functional.linear.0.backward\": null, \"Functional.conv2d.0.backward\": null}' > '%s/construct.json'",
                 d[s], src, s ? "bench" : "npu", d[s], d[s]);
        CHECK_INT(system(cmd), 0);
    }
    const char *args[] = {d[0], d[1], NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 40, args, NULL), 0);
    VT_WAIT(&vt, pt_vt_tree_row(&vt, "Apis_Between_Modules.0") >= 0);   /* the operators, folded */
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "first nondeterministic operator"));
    CHECKV(&vt, status_has(&vt, "first nondeterministic operator (inputs equal, outputs differ): "
                                "Functional.relu.0.forward  error"));
    CHECKV(&vt, vt_has(&vt, "3d3d3d3d") && vt_has(&vt, "4e4e4e4e"));   /* the two outputs' checksums */
    /* the backward with [null, {...}, null] outputs */
    for (int i = 0; i < 6 && !status_has(&vt, "Functional.conv2d.0.backward"); i++) {
        vt_send(&vt, "n");
        VT_WAIT(&vt, status_has(&vt, "next divergence: "));
    }
    CHECKV(&vt, status_has(&vt, "next divergence: Functional.conv2d.0.backward  error"));
    VT_WAIT(&vt, vt_has(&vt, "f6f6f6f6"));
    CHECKV(&vt, vt_has(&vt, "output.0  pass") && vt_has(&vt, "output.1  error") && vt_has(&vt, "None"));
    vt_send(&vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    vt_close(&vt);
}

/* Never a crash at 20x6: every key of the tree once. */
static void test_tiny(void) {
    const char *p = pt_fixture(QS "/step0/proc2016"), *b = pt_fixture(QS "/step1/proc2016");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!p || !b) SKIP("quick_start fixtures absent");
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 20, 6, args, NULL), 0);
    /* loaded: the title counts the matched nodes */
    VT_WAIT(&vt, vt_row_has(&vt, 1, "Tree  match"));
    CHECKV(&vt, vt_row_has(&vt, 1, "Tree  match"));
    /* every key, then a command whose answer shows the keys were all taken */
    vt_send(&vt, "fn<Enter>eEupM<Esc><Esc>");
    command(&vt, "node optimizer");
    VT_WAIT(&vt, vt_row_has(&vt, 5, "at: optim"));
    CHECKV(&vt, vt_row_has(&vt, 5, "at: optim"));
    vt_send(&vt, "M<Esc><Tab>jjG<Tab>}{)(<Left>");
    vt_resize(&vt, 80, 24);
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "first divergence"));
    CHECKV(&vt, status_has(&vt, "first divergence"));
    pt_vt_quit(&vt);
}

/* Two ranks of a generated tensor-parallel pair (gen_dump.py --drift):
 * the run summary first, then the tree; the first divergence is the first
 * operation inside the drifted MLP, } shows rank 1 with the same node
 * selected, and an all_reduce lists its peer on the other rank. */
static void test_ranks(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    char p[4200], b[4200];
    const char *gen = "--steps 1 --ranks 2 --layers 2 --tp 2 --hidden 64 --heads 4 --ffn 128 --seq 8 --vocab 64";
    if (pt_gen_pair(pt_tmpdir("graph_ranks"), gen, "--drift 1.5:layers.1.mlp", p, b, sizeof p) != 0)
        SKIP("no python or shared tools, or gen_dump.py failed");
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 40, args, NULL), 0);
    /* two pairs: the run summary first; Enter on the selected cell (the
     * first divergence, rank 1: see f below) opens its tree */
    VT_WAIT(&vt, vt_row_has(&vt, 1, "Run  1 step x 2 ranks: 2 pairs, 2 with errors"));
    CHECKV(&vt, vt_row_has(&vt, 1, "Run  1 step x 2 ranks: 2 pairs, 2 with errors"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, 1, "matched") && vt_row_has(&vt, 0, "rank 1"));
    CHECKV(&vt, vt_row_has(&vt, 1, "matched") && vt_row_has(&vt, 0, "rank 1"));
    /* f: where the divergence was born (probetop-rules(7), FIRST
     * DIVERGENCE): the drifted MLP's first operation on rank 1, whose 50.3%
     * relative error is an error there (bf16 rounding leaves rank 0's at
     * 50%, where only the MLP module around it is an error) */
    vt_send(&vt, "f");
    VT_WAIT(&vt, status_has(&vt, "first divergence: "));
    CHECKV(&vt, status_has(&vt, "first divergence: Functional.linear.6.forward") &&
                status_has(&vt, "error  step 0 rank 1"));
    char kind[16] = "", op[128] = "";
    sscanf(vt_row_text(&vt, vt_status_row(&vt)), "%15s %127s", kind, op);
    CHECKV(&vt, strstr(op, "linear.6") != NULL);
    /* {: rank 0, then }: rank 1 again, the same node selected */
    char want[160];
    snprintf(want, sizeof want, "%s %s", kind, op);
    vt_send(&vt, "{");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "rank 0") && status_has(&vt, want));
    CHECKV(&vt, vt_row_has(&vt, 0, "rank 0") && status_has(&vt, want));
    vt_send(&vt, "}");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "rank 1") && status_has(&vt, want));
    CHECKV(&vt, vt_row_has(&vt, 0, "rank 1") && status_has(&vt, want));
    command(&vt, "node Distributed.all_reduce.0.forward");
    VT_WAIT(&vt, vt_has(&vt, "send_receive rank 0"));
    CHECKV(&vt, vt_has(&vt, "communication peers") && vt_has(&vt, "send_receive rank 0"));
    /* Enter on the peer (detail line 4) shows it on its rank */
    vt_send(&vt, "<Tab>jjj");
    VT_WAIT(&vt, status_has(&vt, "line 4 of"));
    CHECKV(&vt, status_has(&vt, "line 4 of"));
    vt_send(&vt, "<Enter>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "rank 0") && vt_has(&vt, "send_receive rank 1"));
    CHECKV(&vt, vt_row_has(&vt, 0, "rank 0") && vt_has(&vt, "send_receive rank 1"));
    /* the tree has the focus back, on the peer node */
    VT_WAIT(&vt, status_has(&vt, "api Distributed.all_reduce.0.forward"));
    CHECKV(&vt, status_has(&vt, "api Distributed.all_reduce.0.forward"));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(test_80x24);
    RUN(test_120x40);
    RUN(test_match_config);
    RUN(test_ranks);
    RUN(test_visdb);
    RUN(test_visdb_bad_column);
    RUN(test_bad_input);
    RUN(test_tiny);
    RUN(test_md5);
    PT_DONE();
}
