/* test_tree: graph building (probetop-rules(7), GRAPH BUILDING) against msProbe's own
 * .vis.db for the quick_start dumps, the small example of probetop-rules(7), GRAPH BUILDING, labels,
 * parent fixes and hostile inputs. */
#include <sqlite3.h>

#include "model/graph/tree.h"
#include "pt_test.h"
#include "pt_graph.h"
#include "src/io/dump/read_graph.h"
#include "src/io/visdb/read_visdb.h"

/* a param name composed for a check (names here are short: no heap) */
static struct tree_pn tnb;

/* Every row of one graph of the db equals our node: order, kind, parent,
 * children.  Returns the number of rows compared. */
static int check_against_db(const struct tree *t, sqlite3 *db, const char *source) {
    sqlite3_stmt *st;
    int rows = 0, bad = 0;
    CHECK_INT(sqlite3_prepare_v2(db,
                                 "SELECT node_name, node_order, node_type, up_node, sub_nodes, micro_step_id "
                                 "FROM tb_nodes WHERE data_source = ?1 ORDER BY node_order",
                                 -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int order = sqlite3_column_int(st, 1);
        int type = atoi((const char *)sqlite3_column_text(st, 2));
        const char *up = (const char *)sqlite3_column_text(st, 3);
        const char *sub = (const char *)sqlite3_column_text(st, 4);
        rows++;
        int n = tree_find(t, name);
        if (n < 0) { if (bad++ < 5) fprintf(stderr, "%s: %s missing\n", source, name); continue; }
        const struct tnode *nd = &t->nodes[n];
        char kids[65536];
        size_t o = 0;
        kids[0] = '\0';
        if (nd->first >= 0) {
            o += (size_t)snprintf(kids, sizeof kids, "[");
            for (int c = nd->first; c >= 0 && o < sizeof kids - 8; c = t->nodes[c].next)
                o += (size_t)snprintf(kids + o, sizeof kids - o, "%s\"%s\"", c == nd->first ? "" : ", ", tree_id(t, c));
            snprintf(kids + o, sizeof kids - o, "]");
        }
        const char *par = nd->parent >= 0 ? tree_id(t, nd->parent) : "";
        if (nd->order != order || nd->kind != type || strcmp(par, up ? up : "") || strcmp(kids, sub ? sub : "") ||
            nd->micro != sqlite3_column_int(st, 5)) {
            if (bad++ < 5)
                fprintf(stderr, "%s %s: order %d/%d kind %d/%d parent %s/%s micro %d/%d\n", source, name, nd->order,
                        order, nd->kind, type, par, up, nd->micro, sqlite3_column_int(st, 5));
        }
    }
    sqlite3_finalize(st);
    CHECK_INT(bad, 0);
    CHECK_INT((int)t->norder, rows);
    return rows;
}

static void test_quick_start_vs_visdb(void) {
    const char *dbp = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    struct tree *npu = pt_graph_load("examples/quick_start/gpu_dump/step0/proc2016", GRAPH_BUILD);
    struct tree *bench = pt_graph_load("examples/quick_start/gpu_dump/step1/proc2016", GRAPH_BUILD);
    if (!dbp || !npu || !bench) { tree_free(npu); tree_free(bench); SKIP("fixtures absent"); }
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(dbp, &db), SQLITE_OK);
    CHECK_INT(check_against_db(npu, db, "NPU"), 929);
    CHECK_INT(check_against_db(bench, db, "Bench"), 767);
    sqlite3_close(db);
    /* worked-example oracles (step1 = 767 nodes: 374 module + 391 API + 2 collections) */
    int kinds[10] = {0};
    for (size_t i = 0; i < bench->norder; i++) kinds[bench->nodes[bench->order[i]].kind]++;
    CHECK_INT(kinds[TK_MODULE], 374);
    CHECK_INT(kinds[TK_API], 391);
    CHECK_INT(kinds[TK_APIS], 2);
    CHECK_INT(bench->nodes[bench->root].nchildren, 23);
    CHECK_INT(npu->nodes[npu->root].nchildren, 24);
    CHECK_INT(bench->nodes[tree_find(bench, "DefaultModel")].order, 766);
    CHECK_INT(bench->nodes[tree_find(bench, "Functional.conv2d.0.forward")].order, 3);
    CHECK_INT(bench->nodes[tree_find(bench, "Functional.relu.1.forward")].order, 17);
    CHECK_INT(bench->nodes[tree_find(bench, "Module.fc.Linear.forward.0")].order, 412);
    CHECK_INT(bench->nmicro, 1);
    /* parameter-gradient node under the last backward of its module */
    int pg = tree_find(bench, "Module.conv1.Conv2d.parameters_grad.1");
    CHECK(pg >= 0);
    if (pg >= 0) CHECK_STR(tree_id(bench, bench->nodes[pg].parent), "Module.conv1.Conv2d.backward.0");
    /* in-place hook fix: the ReLU backward attached to the root */
    int rb = tree_find(bench, "Module.relu.ReLU.backward.0");
    CHECK(rb >= 0);
    if (rb >= 0) CHECK_INT(bench->nodes[rb].parent, bench->root);
    /* labels (probetop-rules(7), GRAPH BUILDING: Labels of tree rows) */
    char buf[256];
    CHECK_STR(tree_label(bench, tree_find(bench, "Module.layer1.0.Bottleneck.forward.0"), buf, sizeof buf),
              "layer1.0.Bottleneck.forward.0");
    CHECK_STR(tree_label(bench, tree_find(bench, "Module.layer1.0.conv1.Conv2d.forward.0"), buf, sizeof buf),
              "conv1.Conv2d.forward.0");
    CHECK_STR(tree_label(bench, tree_find(bench, "Functional.relu.1.forward"), buf, sizeof buf), "relu.1.forward");
    CHECK_STR(tree_label(bench, pg, buf, sizeof buf), "conv1.Conv2d.parameters_grad.1");
    CHECK_STR(tree_label(bench, tree_find(bench, "Module.conv1.Conv2d.forward.0"), buf, sizeof buf),
              "Module.conv1.Conv2d.forward.0");
    /* params of the conv (probetop-rules(7), GRAPH BUILDING: Params names and values) */
    uint32_t np;
    const struct tparam *p = tree_params(bench, tree_find(bench, "Functional.conv2d.0.forward"), &np);
    CHECK_INT(np, 11);
    if (np == 11) {
        CHECK_STR(tree_pname(bench, &p[3], &tnb), "Functional.conv2d.0.forward.input.3.0");
        CHECK_STR(tree_s(bench, p[3].dtype), "<class 'int'>");
        CHECK_INT(tree_stat(bench, &p[3], 0).kind, TV_INT);
        CHECK_INT(p[2].is_null, 1);
        CHECK_STR(tree_s(bench, p[1].shape), "[64, 3, 7, 7]");
        CHECK_NEAR(tree_stat(bench, &p[1], 3).real, 15.329440116882324, 0);
        CHECK_INT(p[10].output_map, 1);
        CHECK_INT(tree_rg_get(bench, &p[0]).kind, TV_BOOL);
    }
    /* stacks: backward modules borrow the forward stack */
    const uint32_t *lines;
    CHECK(tree_stack_lines(bench, tree_find(bench, "Functional.conv2d.0.forward"), &lines) > 3);
    tree_free(npu);
    tree_free(bench);
}

static void test_small_example(void) {
    const char *dir = pt_tmpdir("tree_small");
    char p[4200];
    snprintf(p, sizeof p, "%s/construct.json", dir);
    pt_write(p, "{\"Tensor.to.0.forward\": null, \"Tensor.to.1.forward\": null,\n"
                " \"Functional.linear.0.forward\": \"Module.fc.Linear.forward.0\",\n"
                " \"Module.fc.Linear.forward.0\": null, \"Functional.relu.0.forward\": null,\n"
                " \"Module.a.A.forward.0\": \"Module.b.B.forward.0\", \"Module.b.B.forward.0\": \"Module.a.A.forward.0\"}");
    snprintf(p, sizeof p, "%s/dump.json", dir);
    pt_write(p, "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {"
                "\"Functional.relu.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\","
                " \"shape\": [2], \"Max\": Infinity, \"Min\": NaN, \"Mean\": 1, \"Norm\": 2.0, \"requires_grad\": false}],"
                " \"input_kwargs\": {\"inplace\": {\"type\": \"bool\", \"value\": true}}, \"output\": [null]}}}");
    snprintf(p, sizeof p, "%s/stack.json", dir);
    pt_write(p, "{}");
    struct tree *t;
    struct pt_error err;
    CHECK_INT(graph_read(dir, GRAPH_BUILD, &t, &err), 0);
    if (!t) return;
    int root = t->root;
    CHECK_INT(t->nodes[root].nchildren, 3);
    int c = t->nodes[root].first;
    CHECK_STR(tree_id(t, c), "Apis_Between_Modules.0");
    CHECK_INT(t->nodes[c].kind, TK_APIS);
    CHECK_INT(t->nodes[c].nchildren, 2);
    c = t->nodes[c].next;
    CHECK_STR(tree_id(t, c), "Module.fc.Linear.forward.0");
    CHECK_STR(tree_id(t, t->nodes[c].first), "Functional.linear.0.forward");
    c = t->nodes[c].next;
    CHECK_STR(tree_id(t, c), "Functional.relu.0.forward");
    /* the cycle A <-> B stays unreachable and does not hang */
    int a = tree_find(t, "Module.a.A.forward.0");
    CHECK(a >= 0);
    if (a >= 0) CHECK_INT(t->nodes[a].order, -1);
    uint32_t np;
    const struct tparam *pp = tree_params(t, tree_find(t, "Functional.relu.0.forward"), &np);
    CHECK_INT(np, 3);
    if (np == 3) {
        CHECK(isinf(tree_stat(t, &pp[0], 0).real));
        CHECK_INT(tree_stat(t, &pp[0], 2).kind, TV_INT);
        struct tree_pn nb = {0};
        CHECK_STR(tree_pname(t, &pp[1], &nb), "Functional.relu.0.forward.input.inplace");
        tree_pn_free(&nb);
        CHECK_STR(tree_s(t, pp[1].dtype), "<class 'bool'>");
        CHECK_STR(tree_s(t, pp[1].md5), "5dcee3b3");   /* CRC-32 of "True" */
        CHECK_INT(pp[2].is_null, 1);
        CHECK_INT(pp[2].output_map, 1);
    }
    tree_free(t);
}

/* The texts params repeat (type, dtype, shape, data_name, the CRC of an
 * empty value) are put in the pool once and shared by every param: a
 * record of 200 identical tensors takes one copy of each, not 200 (the
 * trees of a compared pair were 1.7 x their dump.json).  Names and texts
 * over 64 bytes stay each param's own; every text still reads back as
 * written. */
static void test_shared_texts(void) {
    const char *dir = pt_tmpdir("tree_shared");
    char p[4200];
    snprintf(p, sizeof p, "%s/dump.json", dir);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {\"Functional.cat.0.forward\": {\"input_args\": [", f);
    for (int i = 0; i < 200; i++)
        fprintf(f, "%s{\"type\": \"torch.Tensor\", \"dtype\": \"torch.bfloat16\", \"shape\": [4096, 1024], "
                   "\"Max\": %d.5, \"Min\": -1.5, \"Mean\": 0.25, \"Norm\": 3.0, \"requires_grad\": true}",
                i ? ", " : "", i);
    /* a shape text longer than 64 bytes: not shared */
    fputs(", {\"type\": \"torch.Tensor\", \"dtype\": \"torch.bfloat16\", \"shape\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
          "14, 15, 16, 17, 18, 19, 20], \"Max\": 1.0, \"Min\": 1.0, \"Mean\": 1.0, \"Norm\": 1.0, \"requires_grad\": true}"
          ", {\"type\": \"torch.Tensor\", \"dtype\": \"torch.bfloat16\", \"shape\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
          "14, 15, 16, 17, 18, 19, 20], \"Max\": 1.0, \"Min\": 1.0, \"Mean\": 1.0, \"Norm\": 1.0, \"requires_grad\": true}"
          "]}}}", f);
    fclose(f);
    struct tree *t;
    struct pt_error err;
    CHECK_INT(graph_read(dir, 0, &t, &err), 0);
    if (!t) return;
    CHECK_INT(t->nparams, 202);
    if (t->nparams == 202) {
        const struct tparam *a = &t->params[0], *b = &t->params[199];
        CHECK_STR(tree_pname(t, b, &tnb), "Functional.cat.0.forward.input.199");
        CHECK_STR(tree_s(t, b->type), "torch.Tensor");
        CHECK_STR(tree_s(t, b->dtype), "torch.bfloat16");
        CHECK_STR(tree_s(t, b->shape), "[4096, 1024]");
        CHECK_STR(tree_s(t, b->data_name), "-1");
        CHECK_STR(tree_s(t, b->md5), "00000000");   /* CRC-32 of no value */
        CHECK(tree_stat(t, b, 0).real == 199.5);
        CHECK_INT(a->type == b->type && a->dtype == b->dtype && a->shape == b->shape, 1);
        CHECK_INT(a->data_name == b->data_name && a->md5 == b->md5, 1);
        CHECK(a->name != b->name);
        const struct tparam *l1 = &t->params[200], *l2 = &t->params[201];
        CHECK_STR(tree_s(t, l2->shape), "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]");
        CHECK(l1->shape != l2->shape);
        CHECK_INT(l1->dtype == a->dtype, 1);
        /* 202 names of about 36 bytes, one copy of each short text */
        CHECK(t->plen < 202 * 40 + 400);
    }
    tree_free(t);
}

static void test_bad_inputs(void) {
    const char *dir = pt_tmpdir("tree_bad");
    char p[4200];
    struct tree *t;
    struct pt_error err;
    /* L1: empty construct.json */
    snprintf(p, sizeof p, "%s/dump.json", dir);
    pt_write(p, "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {}}");
    snprintf(p, sizeof p, "%s/construct.json", dir);
    pt_write(p, "{}");
    CHECK_INT(graph_read(dir, GRAPH_BUILD, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "L1");
    /* without construct: records only */
    CHECK_INT(graph_read(dir, 0, &t, &err), 0);
    tree_free(t);
    remove(p);
    CHECK_INT(graph_read(dir, GRAPH_BUILD, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "no construct.json");
    /* truncated dump */
    snprintf(p, sizeof p, "%s/dump.json", dir);
    pt_write(p, "{\"task\": \"statistics\", \"data\": {\"a\": {\"input_args\": [");
    CHECK_INT(graph_read(dir, 0, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "dump.json");
    /* not a dump */
    pt_write(p, "[1, 2]");
    CHECK_INT(graph_read(dir, 0, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "object");
    CHECK_INT(graph_read("/nonexistent/x", 0, &t, &err), -1);
    struct graph_dirs d;
    CHECK_INT(graph_scan("/nonexistent/x", &d, &err), -1);
}

static void test_scan(void) {
    const char *root = pt_fixture("examples/quick_start/gpu_dump");
    if (!root) SKIP("fixtures absent");
    struct graph_dirs d;
    struct pt_error err;
    CHECK_INT(graph_scan(root, &d, &err), 0);
    CHECK_INT((int)d.n, 2);
    if (d.n == 2) {
        CHECK_INT(d.v[0].step, 0);
        CHECK_INT(d.v[1].step, 1);
        CHECK_INT(d.v[1].rank, 0);
    }
    graph_dirs_free(&d);
    const char *mr = pt_fixture("test/msprobe_test/visualization_ut/input_format_correct");
    if (mr) {
        CHECK_INT(graph_scan(mr, &d, &err), 0);
        CHECK_INT((int)d.n, 4);
        graph_dirs_free(&d);
    }
}

static void test_visdb(void) {
    const char *cmp = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    const char *build = pt_outputs("gpu_dump_step0.build.vis.db");
    const char *trend = pt_outputs("gpu_dump.dump_data.trend.db");
    struct tree *npu = pt_graph_load("examples/quick_start/gpu_dump/step0/proc2016", GRAPH_BUILD);
    if (!cmp || !build || !trend || !npu) { tree_free(npu); SKIP("fixtures absent"); }
    struct visdb *v;
    struct visdb_graph *g;
    struct pt_error err;
    if (visdb_open(cmp, &v, &err) != 0) { CHECK(!"opens the compare db"); tree_free(npu); return; }
    CHECK_INT(v->compare, 1);
    CHECK_STR(v->task, "summary");
    CHECK_INT(v->micro_steps, 1);
    CHECK_INT(v->overflow_check, 1);
    CHECK_INT((int)v->nranks, 1);
    CHECK_INT(visdb_load(v, 0, 0, "NPU", &g, &err), 0);
    CHECK_INT((int)g->tree->norder, 929);
    int same = 1;
    for (size_t i = 0; i < g->tree->norder && i < npu->norder; i++)
        if (strcmp(tree_id(g->tree, g->tree->order[i]), tree_id(npu, npu->order[i]))) same = 0;
    CHECK(same);
    int n = tree_find(g->tree, "Functional.linear.0.forward");
    CHECK(n >= 0);
    if (n >= 0) {
        CHECK_NEAR(g->index[n], 1.0, 0);
        CHECK_STR(g->link[n], "Functional.linear.0.forward");
        /* the output_data column, decoded by the reader */
        CHECK(g->out[n].error == NULL);
        int has_error = 0;
        for (size_t k = 0; k < g->out[n].n; k++)
            if (g->out[n].p[k].result && !strcmp(g->out[n].p[k].result, "error")) has_error = 1;
        CHECK(has_error);
        const uint32_t *lines;
        CHECK(tree_stack_lines(g->tree, n, &lines) > 0);
    }
    n = tree_find(g->tree, "Module.conv1.Conv2d.parameters_grad.0");
    CHECK(n >= 0 && g->link[n] == NULL && isnan(g->index[n]));
    visdb_graph_free(g);
    CHECK_INT(visdb_load(v, 5, 0, "NPU", &g, &err), -1);
    CHECK_CONTAINS(err.msg, "no NPU graph for step 5");
    visdb_close(v);
    if (visdb_open(build, &v, &err) != 0) { CHECK(!"opens the build db"); tree_free(npu); return; }
    CHECK_INT(v->compare, 0);
    CHECK_INT(visdb_load(v, 0, 0, "NPU", &g, &err), 0);
    CHECK_INT((int)g->tree->norder, 929);
    visdb_graph_free(g);
    visdb_close(v);
    /* another schema, not a database */
    CHECK_INT(visdb_open(trend, &v, &err), -1);
    CHECK_CONTAINS(err.msg, "trend database");
    const char *dir = pt_tmpdir("visdb_bad");
    char p[1200];
    snprintf(p, sizeof p, "%s/x.vis.db", dir);
    pt_write(p, "this is not sqlite at all, just text that is long enough to look like a header.....");
    CHECK_INT(visdb_open(p, &v, &err), -1);
    CHECK_CONTAINS(err.msg, "not an SQLite database");
    snprintf(p, sizeof p, "%s/other.vis.db", dir);
    sqlite3 *db;
    sqlite3_open(p, &db);
    sqlite3_exec(db, "CREATE TABLE tb_nodes(node_name TEXT); CREATE TABLE tb_config(id TEXT);", NULL, NULL, NULL);
    sqlite3_close(db);
    CHECK_INT(visdb_open(p, &v, &err), -1);
    CHECK_CONTAINS(err.msg, "another schema");
    tree_free(npu);
}

/* A dump larger than a few MB: its buffer is given back as records are
 * stored (read_graph.c, release_read), and construct.json's names are the
 * records' own copies.  Every record must come out whole; a syntax error
 * after a part was given back must still name its line (counted here, as
 * the file is written) and byte. */
static void test_large_dump(void) {
    const char *dir = pt_tmpdir("tree_large");
    char p[4200], c[4200];
    snprintf(p, sizeof p, "%s/dump.json", dir);
    snprintf(c, sizeof c, "%s/construct.json", dir);
    enum { NREC = 100000 };
    for (int broken = 0; broken < 2; broken++) {
        FILE *f = fopen(p, "w");
        CHECK(f != NULL);
        if (!f) return;
        long line = 1, bad_at = -1;
        fputs("{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n", f);
        line++;
        fputs("\"Module.m.M.forward.0\": {\"input_args\": [], \"output\": []},\n", f);
        line++;
        for (int i = 0; i < NREC; i++) {
            fprintf(f, "\"Functional.op.%d.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
                       "\"torch.float32\", \"shape\": [2, 2], \"Max\": %d.5, \"Min\": 0.0, \"Mean\": 0.5, "
                       "\"Norm\": 1.0, \"requires_grad\": false}]}", i, i);
            if (broken && i == NREC - 10) {
                fputs(", ", f);
                bad_at = ftell(f);
                fputs(",", f);   /* a second comma: the error */
            }
            fputs(i + 1 < NREC ? ",\n" : "\n", f);
            if (bad_at < 0) line++;
        }
        fputs("}}\n", f);
        CHECK(ftell(f) > 16L << 20);   /* well past a few release steps */
        fclose(f);
        f = fopen(c, "w");
        CHECK(f != NULL);
        if (!f) return;
        fputs("{\"Module.m.M.forward.0\": null", f);
        for (int i = 0; i < NREC; i++) fprintf(f, ", \"Functional.op.%d.forward\": \"Module.m.M.forward.0\"", i);
        fputs("}", f);
        fclose(f);
        struct tree *t = NULL;
        struct pt_error err;
        int rc = graph_read(dir, GRAPH_BUILD, &t, &err);
        if (broken) {
            CHECK_INT(rc, -1);
            char want[128];
            snprintf(want, sizeof want, "dump.json: line %ld, byte %ld: ", line, bad_at);
            CHECK_CONTAINS(err.msg, want);
            continue;
        }
        CHECK_INT(rc, 0);
        if (!t) return;
        CHECK_INT(t->nrecs, NREC + 1);
        CHECK_INT(t->nparams, NREC);
        if (t->nparams == NREC) {
            const struct tparam *q = &t->params[NREC - 1];
            struct tree_pn nb = {0};
            CHECK_STR(tree_pname(t, q, &nb), "Functional.op.99999.forward.input.0");
            tree_pn_free(&nb);
            CHECK(tree_stat(t, q, 0).kind == TV_FLOAT && tree_stat(t, q, 0).real == 99999.5);
            CHECK_STR(tree_s(t, q->shape), "[2, 2]");
        }
        /* one copy of each name: the node ids and construct.json's keys
         * and parents are the records' */
        int n = tree_find(t, "Functional.op.77.forward");
        int r = tree_find_record(t, "Functional.op.77.forward");
        CHECK(n >= 0 && r >= 0);
        if (n >= 0 && r >= 0) CHECK_INT(t->nodes[n].id, t->recs[r].name);
        int m = tree_find(t, "Module.m.M.forward.0");
        CHECK(m >= 0);
        if (m >= 0) CHECK_INT(t->nodes[m].id, t->recs[tree_find_record(t, "Module.m.M.forward.0")].name);
        /* compare frees the record map once both trees are built: the
         * nodes are still found, records no longer, none can be added */
        size_t nrecs = t->nrecs;
        tree_forget_records(t);
        CHECK_INT(tree_find_record(t, "Functional.op.77.forward"), -1);
        CHECK_INT(tree_find(t, "Functional.op.77.forward"), n);
        CHECK_INT(tree_add_record(t, "Functional.op.x.forward", 23), -1);
        CHECK_INT(t->nrecs, nrecs);
        tree_free(t);
    }
}

/* tree_unmap_records (the origin search's re-read): records added after
 * it are kept in order with their names, and are not found by name; those
 * added before still are. */
static void test_unmapped_records(void) {
    struct tree *t = tree_new();
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(tree_add_record(t, "A.a.0.forward", 13), 0);
    tree_unmap_records(t);
    CHECK_INT(tree_add_record(t, "B.b.0.forward", 13), 1);
    CHECK_INT(tree_add_record(t, "B.b.0.forward", 13), 2);   /* a name twice: two records, as mapped */
    CHECK_INT(tree_add_record(t, "C.c.0.forward", 13), 3);
    CHECK_INT(t->nrecs, 4);
    CHECK_STR(tree_s(t, t->recs[3].name), "C.c.0.forward");
    CHECK_INT(tree_find_record(t, "A.a.0.forward"), 0);
    CHECK_INT(tree_find_record(t, "B.b.0.forward"), -1);
    CHECK_INT(tree_find_record(t, "C.c.0.forward"), -1);
    tree_free(t);
}

int main(void) {
    RUN(test_unmapped_records);
    RUN(test_visdb);
    RUN(test_quick_start_vs_visdb);
    RUN(test_small_example);
    RUN(test_shared_texts);
    RUN(test_bad_inputs);
    RUN(test_large_dump);
    RUN(test_scan);
    PT_DONE();
}
