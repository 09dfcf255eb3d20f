/* test_compare: graph compare against msProbe's compare .vis.db (match,
 * precision index of every node), the five worked examples of
 * probetop-rules(7), VERDICTS: Example, the table compare against msProbe's csv row
 * for row, manual matching, first divergence and bad input. */
#include <sqlite3.h>

#include "model/compare/compare.h"
#include "pt_test.h"
#include "pt_graph.h"
#include "src/io/dump/read_graph.h"

#define STEP0 "examples/quick_start/gpu_dump/step0/proc2016"
#define STEP1 "examples/quick_start/gpu_dump/step1/proc2016"

/* Every NPU node: link (its last element) and precision index as in the db. */
static void test_graph_vs_visdb(void) {
    const char *dbp = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    struct tree *npu = pt_graph_load(STEP0, GRAPH_BUILD), *bench = pt_graph_load(STEP1, GRAPH_BUILD);
    if (!dbp || !npu || !bench) { tree_free(npu); tree_free(bench); SKIP("fixtures absent"); }
    struct cmp_graph *g;
    struct pt_error err;
    CHECK_INT(cmp_graph_new(npu, bench, NULL, &g, &err), 0);
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(dbp, &db), SQLITE_OK);
    sqlite3_stmt *st;
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT node_name, matched_node_link, precision_index, data_source "
                                     "FROM tb_nodes ORDER BY data_source, node_order", -1, &st, NULL), SQLITE_OK);
    int rows = 0, bad = 0, counts[4] = {0};
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *link = (const char *)sqlite3_column_text(st, 1);
        int is_npu = !strcmp((const char *)sqlite3_column_text(st, 3), "NPU");
        const struct tree *t = is_npu ? npu : bench;
        int n = tree_find(t, name);
        rows++;
        if (n < 0) { bad++; continue; }
        /* the counterpart is the last element of the link */
        char want[4096] = "";
        const char *q = strrchr(link, '"');
        if (q && q > link) {
            const char *b = q - 1;
            while (b > link && *b != '"') b--;
            snprintf(want, sizeof want, "%.*s", (int)(q - b - 1), b + 1);
        }
        int other = is_npu ? g->nodes[n].bench : g->bmatch[n];
        const char *got = other < 0 ? "" : tree_id(is_npu ? bench : npu, other);
        int idx = -1;
        if (sqlite3_column_type(st, 2) != SQLITE_NULL) idx = (int)(sqlite3_column_double(st, 2) * 2 + 0.5);
        int mine = is_npu ? g->nodes[n].index : -1;
        if (is_npu) counts[idx + 1]++;
        if (strcmp(got, want) || (is_npu && mine != idx)) {
            if (bad++ < 8) fprintf(stderr, "%s %s: match %s/%s index %d/%d\n", is_npu ? "NPU" : "Bench", name, got,
                                   want, mine, idx);
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    CHECK_INT(rows, 929 + 767);
    CHECK_INT(bad, 0);
    CHECK_INT(counts[0], 274);   /* NULL */
    CHECK_INT(counts[1], 590);   /* 0 */
    CHECK_INT(counts[2], 62);    /* 0.5 */
    CHECK_INT(counts[3], 3);     /* 1 */
    cmp_graph_free(g);
    tree_free(npu);
    tree_free(bench);
}

static const struct crow *row_of(const struct cmp_graph *g, int n, const char *suffix) {
    for (uint32_t i = 0; i < g->nodes[n].nrows; i++) {
        const struct crow *r = &g->rows[g->nodes[n].row0 + i];
        struct tree_pn nb = {0};
        char name[512];
        snprintf(name, sizeof name, "%s", tree_pname(g->npu, &g->npu->params[r->np], &nb));
        tree_pn_free(&nb);
        size_t a = strlen(name), b = strlen(suffix);
        if (a >= b && !strcmp(name + a - b, suffix)) return r;
    }
    return NULL;
}

static char *cell(const struct cmp_graph *g, const struct crow *r, int col) {
    static char buf[4][512];
    static int k;
    char *b = buf[k++ & 3];
    if (!r) return strcpy(b, "(no row)");
    return cmp_graph_cell(g, r, col, b, 512);
}

/* probetop-rules(7), VERDICTS: Example: step1 (problem) vs step0 (benchmark). */
static void test_worked_examples(void) {
    struct tree *npu = pt_graph_load(STEP1, GRAPH_BUILD), *bench = pt_graph_load(STEP0, GRAPH_BUILD);
    if (!npu || !bench) { tree_free(npu); tree_free(bench); SKIP("fixtures absent"); }
    struct cmp_graph *g;
    struct pt_error err;
    CHECK_INT(cmp_graph_new(npu, bench, NULL, &g, &err), 0);
    int counts[4] = {0};
    for (size_t i = 0; i < npu->norder; i++) counts[g->nodes[npu->order[i]].index + 1]++;
    CHECK_INT(counts[0], 112);
    CHECK_INT(counts[1], 537);
    CHECK_INT(counts[2], 58);
    CHECK_INT(counts[3], 60);
    CHECK_INT((int)g->nunmatched_npu, 58);
    CHECK_INT((int)g->nunmatched_bench, 220);
    /* 3.1 conv2d: pass */
    int n = tree_find(npu, "Functional.conv2d.0.forward");
    CHECK_INT(g->nodes[n].index, CL_PASS);
    CHECK_INT((int)g->nodes[n].nrows, 11);
    const struct crow *r = row_of(g, n, ".input.0");
    CHECK_STR(cell(g, r, 10), "-0.00010648369789123535");
    CHECK_STR(cell(g, r, 13), "N/A");
    CHECK_STR(cell(g, r, 14), "0.02132239678778361%");
    CHECK_STR(cell(g, r, 15), "0.014298969203197884%");
    CHECK_STR(cell(g, r, 12), "0.0%");
    r = row_of(g, n, ".input.1");
    CHECK_STR(cell(g, r, 8), "0.5271330401301384");
    CHECK_STR(cell(g, r, 12), "544.2500716750121%");
    CHECK_STR(cell(g, r, 15), "517.845075589922%");
    r = row_of(g, n, ".input.3.1");
    CHECK_STR(cell(g, r, 8), "0");
    CHECK_STR(cell(g, r, 12), "0.0%");
    r = row_of(g, n, ".input.2");
    CHECK_STR(cell(g, r, 8), "N/A");
    r = row_of(g, n, ".output.0");
    CHECK_STR(cell(g, r, 15), "612.2943682578334%");
    CHECK_STR(cell(g, r, 25), "pass");
    /* 3.2 conv module: pass from its own rows */
    n = tree_find(npu, "Module.conv1.Conv2d.forward.0");
    CHECK_INT(g->nodes[n].index, CL_PASS);
    CHECK_INT((int)g->nodes[n].nrows, 3);
    /* 3.3 relu: warning on output.0 */
    n = tree_find(npu, "Functional.relu.1.forward");
    CHECK_INT(g->nodes[n].index, CL_WARNING);
    r = row_of(g, n, ".input.0");
    CHECK_STR(cell(g, r, 14), "9180414.394793253%");
    CHECK_STR(cell(g, r, 15), "0.037301437521489025%");
    r = row_of(g, n, ".input.inplace");
    CHECK_STR(cell(g, r, 8), "N/A");
    r = row_of(g, n, ".output.0");
    CHECK_STR(cell(g, r, 25), "warning");
    CHECK_STR(cell(g, r, 26), "[\"warning: The norm relative error of output is 10 times that of input.\"]");
    CHECK_INT(g->nodes[tree_find(npu, "Module.layer1.0.relu.ReLU.forward.0")].index, CL_PASS);
    /* 3.4 add_: error */
    n = tree_find(npu, "Tensor.add_.0.forward");
    CHECK_INT(g->nodes[n].index, CL_ERROR);
    r = row_of(g, n, ".input.0");
    CHECK_STR(cell(g, r, 8), "1");
    CHECK_STR(cell(g, r, 12), "N/A");
    r = row_of(g, n, ".output.0");
    CHECK_STR(cell(g, r, 15), "100.0%");
    CHECK_STR(cell(g, r, 26), "[\"error: The NormRelativeErr of output is greater than 0.5.\", "
                              "\"warning: The norm relative error of output is 10 times that of input.\"]");
    CHECK_INT(g->nodes[tree_find(npu, "Module.bn1.BatchNorm2d.forward.0")].index, CL_PASS);
    /* 3.5 fc: error */
    n = tree_find(npu, "Module.fc.Linear.forward.0");
    CHECK_INT(g->nodes[n].index, CL_ERROR);
    r = row_of(g, n, ".parameters.weight");
    CHECK_STR(cell(g, r, 10), "3.5925040720030665e-11");
    CHECK_STR(cell(g, r, 15), "0.08969109280212526%");
    r = row_of(g, n, ".output.0");
    CHECK_STR(cell(g, r, 15), "110.54705355935694%");
    CHECK_NEAR(g->nodes[n].magnitude, 1.0, 1e-12);
    CHECK_NEAR(g->nodes[n].worst_rel, 2.896987180163545, 1e-12);
    /* 4: collections and data-less nodes */
    n = tree_find(npu, "Apis_Between_Modules.0");
    CHECK_INT(g->nodes[n].index, CL_PASS);
    CHECK_INT(cmp_node_level(g, tree_find(npu, "Tensor.to.0.forward")), -2);
    CHECK_INT(cmp_node_level(g, tree_find(npu, "Module.conv1.Conv2d.parameters_grad.1")), -1);
    CHECK_INT(g->nodes[tree_find(npu, "DefaultModel")].index, CL_NONE);
    /* first divergence: the earliest error in execution order */
    int f = cmp_first_divergence(g);
    CHECK(f >= 0);
    if (f >= 0) CHECK_STR(tree_id(npu, f), "Tensor.add_.0.forward");
    int nx = cmp_next_divergent(g, f, 1);
    CHECK(nx >= 0 && npu->nodes[nx].order > npu->nodes[f].order);
    CHECK_INT(cmp_next_divergent(g, nx, -1), f);
    /* manual match of an unmatched gradient node with its .0 counterpart */
    int a = tree_find(npu, "Module.fc.Linear.parameters_grad.1"), b = tree_find(bench, "Module.fc.Linear.parameters_grad.0");
    CHECK(a >= 0 && b >= 0);
    CHECK_INT(cmp_manual_match(g, a, b, 1, &err), 0);
    CHECK_INT(g->nodes[a].bench, b);
    CHECK(g->nodes[a].index >= CL_PASS);
    CHECK_INT((int)g->nodes[a].nrows, 2);
    CHECK_INT(cmp_manual_match(g, a, b, 1, &err), -1);
    CHECK_CONTAINS(err.msg, "already matched");
    CHECK_INT(cmp_manual_match(g, tree_find(npu, "Functional.conv2d.0.forward"), tree_find(bench, "optimizer"), 0, &err), -1);
    CHECK_INT(cmp_unmatch(g, a, &err), 0);
    CHECK_INT(g->nodes[a].bench, -1);
    CHECK_INT(cmp_node_level(g, a), -1);
    cmp_graph_free(g);
    tree_free(npu);
    tree_free(bench);
}

static void test_table_vs_csv(void) {
    const char *csvp = pt_outputs("gpu_dump_step0_vs_step1.compare_result.csv");
    struct tree *npu = pt_graph_load(STEP0, 0), *bench = pt_graph_load(STEP1, 0);
    if (!csvp || !npu || !bench) { tree_free(npu); tree_free(bench); SKIP("fixtures absent"); }
    struct cmp_table *t;
    struct pt_error err;
    CHECK_INT(cmp_table_new(npu, bench, NULL, &t, &err), 0);
    char *text;
    size_t len;
    FILE *f = fopen(csvp, "rb");
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc(len + 1);
    CHECK_INT(fread(text, 1, len, f), len);
    text[len] = '\0';
    fclose(f);
    char *p = text, *fields[40];
    int nf = pt_csv_record(&p, fields, 40);
    CHECK_INT(nf, 28);
    const char *const *head = cmp_header(t->mode);
    for (int i = 0; i < 27; i++) CHECK_STR(head[i], fields[i]);
    size_t row = 0;
    int bad = 0;
    char buf[65536];
    while ((nf = pt_csv_record(&p, fields, 40)) > 0) {
        if (row >= t->nrows) { row++; continue; }
        const struct crow *r = &t->rows[row];
        /* magnitude for the tolerance on differences of nearly equal values */
        double scale = 0;
        for (int c = 16; c < 24; c++) scale = fmax(scale, fabs(strtod(fields[c], NULL)));
        for (int c = 0; c < 28; c++) {
            cmp_table_cell(t, r, c, buf, sizeof buf);
            if (!pt_same_cell(buf, fields[c], scale)) {
                if (bad++ < 10) fprintf(stderr, "row %zu col %d: \"%.200s\" expected \"%.200s\"\n", row + 1, c, buf, fields[c]);
            }
        }
        row++;
    }
    CHECK_INT(row, 2822);
    CHECK_INT((int)t->nrows, 2822);
    CHECK_INT(bad, 0);
    CHECK_INT((int)t->counts[CL_PASS], 2756);
    CHECK_INT((int)t->counts[CL_WARNING], 63);
    CHECK_INT((int)t->counts[CL_ERROR], 3);
    free(text);
    cmp_table_free(t);
    tree_free(npu);
    tree_free(bench);
}

/* The reverse direction gives the worked example's table counts. */
static void test_table_reverse(void) {
    struct tree *npu = pt_graph_load(STEP1, 0), *bench = pt_graph_load(STEP0, 0);
    if (!npu || !bench) { tree_free(npu); tree_free(bench); SKIP("fixtures absent"); }
    struct cmp_table *t;
    struct pt_error err;
    CHECK_INT(cmp_table_new(npu, bench, NULL, &t, &err), 0);
    CHECK_INT((int)t->nrows, 2822);
    CHECK_INT((int)t->counts[CL_PASS], 2696);
    CHECK_INT((int)t->counts[CL_WARNING], 62);
    CHECK_INT((int)t->counts[CL_ERROR], 64);
    size_t na = 0;
    char buf[256];
    for (size_t i = 0; i < t->nrows; i++) {
        if (t->rows[i].bp < 0) {
            na++;
            CHECK_STR(cmp_table_cell(t, &t->rows[i], 25, buf, sizeof buf), "pass");
        }
    }
    CHECK_INT((int)na, 161);
    cmp_table_free(t);
    tree_free(npu);
    tree_free(bench);
}

/* NPU_Stack_Info is Python's repr of the entry's stack lines (expected
 * texts from python3: repr(['File "/a/b.py", ...', ...])): quotes chosen
 * per line, backslash, tab, newline and quote escaped, long plain runs
 * copied whole; a cell cut at the buffer's size keeps what the byte-wise
 * writer kept (here up to "ret", then the closing quote and "]"). */
static void test_stack_cell(void) {
    const char *dir = pt_tmpdir("compare_stack");
    char p[4200];
    snprintf(p, sizeof p, "%s/dump.json", dir);
    pt_write(p, "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {\"Functional.relu.0.forward\": {\"input_args\": "
                "[{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, "
                "\"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}]}}}");
    snprintf(p, sizeof p, "%s/stack.json", dir);
    pt_write(p, "{\"Functional.relu.0.forward\": [\"File \\\"/a/b.py\\\", line 12, in forward, return self._conv(x)\", "
                "\"it's\\tx\\\\y\\nz\", \"a'b\\\"c\", \"plain\"]}");
    struct tree *a = NULL, *b = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(dir, 0, &a, &err), 0);
    CHECK_INT(graph_read(dir, 0, &b, &err), 0);
    if (!a || !b) { tree_free(a); tree_free(b); return; }
    struct cmp_table *t;
    CHECK_INT(cmp_table_new(a, b, NULL, &t, &err), 0);
    int col = cmp_table_ncols(t) - 1;
    CHECK_STR(cmp_table_colname(t, col), "NPU_Stack_Info");
    char buf[512], small[48];
    CHECK_STR(cmp_table_cell(t, &t->rows[0], col, buf, sizeof buf),
              "['File \"/a/b.py\", line 12, in forward, return self._conv(x)', \"it's\\tx\\\\y\\nz\", 'a\\'b\"c', "
              "'plain']");
    CHECK_STR(cmp_table_cell(t, &t->rows[0], col, small, sizeof small), "['File \"/a/b.py\", line 12, in forward, ret']");
    cmp_table_free(t);
    tree_free(a);
    tree_free(b);
}

static void test_text(void) {
    char b[64];
    CHECK_STR(cmp_pyfloat(1.0, b, sizeof b), "1.0");
    CHECK_STR(cmp_pyfloat(1e-5, b, sizeof b), "1e-05");
    CHECK_STR(cmp_pyfloat(0.0001, b, sizeof b), "0.0001");
    CHECK_STR(cmp_pyfloat(1e16, b, sizeof b), "1e+16");
    CHECK_STR(cmp_pyfloat(123456789012345.6, b, sizeof b), "123456789012345.6");
    CHECK_STR(cmp_pyfloat(-2.5e-300, b, sizeof b), "-2.5e-300");
    CHECK_STR(cmp_pyfloat(0.1, b, sizeof b), "0.1");
    CHECK_STR(cmp_pyfloat(-INFINITY, b, sizeof b), "-inf");
    CHECK_STR(cmp_pyfloat(NAN, b, sizeof b), "nan");
    struct cval c = {CV_NUM, {INFINITY}};
    CHECK_STR(cmp_cval_text(&c, 1, b, sizeof b), "inf\t");
    CHECK_STR(cmp_cval_text(&c, 0, b, sizeof b), "inf");
}

static void test_mode_mismatch(void) {
    struct tree *a = tree_new(), *b = tree_new();
    snprintf(a->task, sizeof a->task, "statistics");
    snprintf(b->task, sizeof b->task, "tensor");
    struct pt_error err;
    CHECK_INT(cmp_mode_of(a, b, &err), -1);
    CHECK_CONTAINS(err.msg, "different tasks");
    snprintf(b->task, sizeof b->task, "statistics");
    b->md5_mode = 1;
    CHECK_INT(cmp_mode_of(a, b, &err), -1);
    CHECK_CONTAINS(err.msg, "md5");
    a->md5_mode = 1;
    CHECK_INT(cmp_mode_of(a, b, &err), CMP_MD5);
    struct cmp_graph *g;
    CHECK_INT(cmp_graph_new(a, b, NULL, &g, &err), -1);   /* not built */
    tree_free(a);
    tree_free(b);
}

/* The md5 pair of tests/md5/ as graphs (a construct.json of top-level
 * APIs added): every cell of every row has a text (the null items of
 * Functional.conv2d.0.backward crashed the detail pane), null items are
 * None on both sides and pass, and the determinism rule names the relu. */
static void md5_pair(const char *src, const char *dir, struct tree *t[2]) {
    for (int s = 0; s < 2; s++) {
        char cmd[4200], d[1300];
        snprintf(d, sizeof d, "%s/s%d", dir, s);
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s/tests/md5/%s/dump.json' '%s/'", d, src, s ? "bench" : "npu", d);
        CHECK_INT(system(cmd), 0);
        snprintf(cmd, sizeof cmd, "%s/construct.json", d);
        pt_write(cmd, "{\"Functional.embedding.0.forward\": null, \"Functional.conv2d.0.forward\": null, "
                      "\"Functional.relu.0.forward\": null, \"Functional.linear.0.forward\": null, "
                      "\"Functional.linear.0.backward\": null, \"Functional.conv2d.0.backward\": null}");
        struct pt_error err;
        CHECK_INT(graph_read(d, GRAPH_BUILD, &t[s], &err), 0);
    }
}

static void test_md5_graph(void) {
    const char *src = getenv("PT_SRC");
    if (!src) SKIP("PT_SRC absent");
    struct tree *t[2] = {NULL, NULL};
    md5_pair(src, pt_tmpdir("compare_md5"), t);
    if (!t[0] || !t[1]) { tree_free(t[0]); tree_free(t[1]); return; }
    struct cmp_graph *g;
    struct pt_error err;
    CHECK_INT(cmp_graph_new(t[0], t[1], NULL, &g, &err), 0);
    CHECK_INT(g->mode, CMP_MD5);
    for (size_t i = 0; i < g->nrows; i++)
        for (int c = 0; c < 13; c++) CHECK(cell(g, &g->rows[i], c) != NULL);
    int bw = tree_find(t[0], "Functional.conv2d.0.backward");
    CHECK(bw >= 0);
    if (bw >= 0) {
        const struct crow *r0 = row_of(g, bw, ".output.0"), *r1 = row_of(g, bw, ".output.1");
        CHECK_STR(cell(g, r0, 8), "None");
        CHECK_STR(cell(g, r0, 9), "None");
        CHECK_STR(cell(g, r0, 11), "pass");
        CHECK_STR(cell(g, r1, 8), "f6f6f6f6");
        CHECK_STR(cell(g, r1, 11), "error");
        CHECK(cmp_node_nondeterministic(g, bw));   /* its input agrees, an output differs */
    }
    int emb = tree_find(t[0], "Functional.embedding.0.forward"), relu = tree_find(t[0], "Functional.relu.0.forward");
    CHECK(emb >= 0 && relu >= 0);
    if (emb >= 0) CHECK(!cmp_node_nondeterministic(g, emb));   /* its input differs */
    CHECK_INT(cmp_first_divergence(g), relu);
    cmp_graph_free(g);
    tree_free(t[0]);
    tree_free(t[1]);
}

/* The compare command's graph (cmp_opts.summary_only: no rows kept) gives
 * every node the same match, index, magnitude, worst error and md5
 * nondeterminism, and the same first divergence, as the graph with rows. */
static void same_summary(const struct tree *a, const struct tree *b) {
    struct cmp_graph *g = NULL, *s = NULL;
    struct pt_error err;
    struct cmp_opts o = {.summary_only = 1};
    CHECK_INT(cmp_graph_new(a, b, NULL, &g, &err), 0);
    CHECK_INT(cmp_graph_new(a, b, &o, &s, &err), 0);
    if (!g || !s) { cmp_graph_free(g); cmp_graph_free(s); return; }
    CHECK(g->nrows > 0);
    CHECK_INT(s->nrows, 0);
    int bad = 0, ndet = 0;
    for (size_t n = 0; n < a->nnodes; n++) {
        const struct cmp_node *x = &g->nodes[n], *y = &s->nodes[n];
        int dx = cmp_node_nondeterministic(g, (int)n), dy = cmp_node_nondeterministic(s, (int)n);
        ndet += dx;
        if (x->bench != y->bench || x->index != y->index || x->magnitude != y->magnitude ||
            x->worst_rel != y->worst_rel || dx != dy || cmp_node_level(g, (int)n) != cmp_node_level(s, (int)n))
            if (bad++ < 4) fprintf(stderr, "node %s differs without rows\n", tree_id(a, (int)n));
    }
    CHECK_INT(bad, 0);
    CHECK_INT(cmp_first_divergence(s), cmp_first_divergence(g));
    CHECK_INT(s->nmatched, g->nmatched);
    CHECK_INT(s->nunmatched_bench, g->nunmatched_bench);
    if (g->mode == CMP_MD5) CHECK(ndet > 0);
    cmp_graph_free(g);
    cmp_graph_free(s);
}

static void test_summary_only(void) {
    struct tree *npu = pt_graph_load(STEP0, GRAPH_BUILD), *bench = pt_graph_load(STEP1, GRAPH_BUILD);
    if (npu && bench) {
        same_summary(npu, bench);
        same_summary(bench, npu);
    }
    tree_free(npu);
    tree_free(bench);
    const char *src = getenv("PT_SRC");
    if (!src) SKIP("PT_SRC absent");
    struct tree *t[2] = {NULL, NULL};
    md5_pair(src, pt_tmpdir("compare_summary"), t);
    if (t[0] && t[1]) same_summary(t[0], t[1]);
    tree_free(t[0]);
    tree_free(t[1]);
}

/* Backward calls are joined by their order among the calls of their op
 * (msProbe renumbers them): Functional.linear.5.backward is the second
 * linear backward, so it meets the benchmark's Functional.linear.1.backward,
 * and Module.layer.Linear.backward.5 its Module.layer.Linear.backward.1.
 * The same pairs whole (cmp_table_new) and a block at a time
 * (cmp_table_open / cmp_table_next, one entry a block). */
static void test_table_renumbered(void) {
    static const char *const T = "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], "
                                 "\"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}";
    struct tree *t[2] = {NULL, NULL};
    for (int s = 0; s < 2; s++) {
        static const int num[2][2] = {{3, 5}, {0, 1}};
        char d[1300], p[1400], data[8192];
        snprintf(d, sizeof d, "%s/s%d", pt_tmpdir("compare_renum"), s);
        snprintf(p, sizeof p, "mkdir -p '%s'", d);
        CHECK_INT(system(p), 0);
        int n = snprintf(data, sizeof data, "{\"task\": \"statistics\", \"level\": \"mix\", \"data\": {"
                                            "\"Functional.linear.0.forward\": {\"input_args\": [%s], \"output\": [%s]}", T, T);
        for (int k = 0; k < 2; k++)
            n += snprintf(data + n, sizeof data - (size_t)n, ", \"Functional.linear.%d.backward\": {\"input\": [%s], "
                          "\"output\": [%s]}, \"Module.layer.Linear.backward.%d\": {\"input\": [%s]}",
                          num[s][k], T, T, num[s][k], T);
        snprintf(data + n, sizeof data - (size_t)n, "}}");
        snprintf(p, sizeof p, "%s/dump.json", d);
        pt_write(p, data);
        struct pt_error err;
        CHECK_INT(graph_read(d, 0, &t[s], &err), 0);
    }
    if (!t[0] || !t[1]) { tree_free(t[0]); tree_free(t[1]); return; }
    static const char *const want[][2] = {
        {"Functional.linear.0.forward.input.0", "Functional.linear.0.forward.input.0"},
        {"Functional.linear.0.forward.output.0", "Functional.linear.0.forward.output.0"},
        {"Functional.linear.3.backward.input.0", "Functional.linear.0.backward.input.0"},
        {"Functional.linear.3.backward.output.0", "Functional.linear.0.backward.output.0"},
        {"Module.layer.Linear.backward.3.input.0", "Module.layer.Linear.backward.0.input.0"},
        {"Functional.linear.5.backward.input.0", "Functional.linear.1.backward.input.0"},
        {"Functional.linear.5.backward.output.0", "Functional.linear.1.backward.output.0"},
        {"Module.layer.Linear.backward.5.input.0", "Module.layer.Linear.backward.1.input.0"},
    };
    struct pt_error err;
    struct cmp_table *whole, *blocks;
    char buf[256];
    CHECK_INT(cmp_table_new(t[0], t[1], NULL, &whole, &err), 0);
    CHECK_INT(cmp_table_open(t[0], t[1], NULL, &blocks, &err), 0);
    if (whole && blocks) {
        CHECK_INT((int)whole->nrows, 8);
        for (size_t i = 0; i < whole->nrows && i < 8; i++) {
            CHECK_STR(cmp_table_cell(whole, &whole->rows[i], 0, buf, sizeof buf), want[i][0]);
            CHECK_STR(cmp_table_cell(whole, &whole->rows[i], 1, buf, sizeof buf), want[i][1]);
        }
        size_t at = 0;
        long got;
        while ((got = cmp_table_next(blocks, 1, &err)) > 0)
            for (size_t i = 0; i < blocks->nrows; i++, at++) {
                CHECK(i == 0 || blocks->rows[i].rec == blocks->rows[0].rec);   /* whole entries a block */
                if (at < 8) CHECK_STR(cmp_table_cell(blocks, &blocks->rows[i], 1, buf, sizeof buf), want[at][1]);
            }
        CHECK_INT((int)got, 0);
        CHECK_INT((int)at, 8);
    }
    cmp_table_free(whole);
    cmp_table_free(blocks);
    tree_free(t[0]);
    tree_free(t[1]);
}

int main(void) {
    RUN(test_text);
    RUN(test_stack_cell);
    RUN(test_graph_vs_visdb);
    RUN(test_worked_examples);
    RUN(test_table_vs_csv);
    RUN(test_table_reverse);
    RUN(test_table_renumbered);
    RUN(test_mode_mismatch);
    RUN(test_md5_graph);
    RUN(test_summary_only);
    PT_DONE();
}
