/* test_compare_run: the order "first divergence" means.
 *
 * Against msProbe's own compare of the quick_start pair (the fixtures'
 * compare_oc.vis.db): walking the divergent nodes with cmp_next_divergent
 * gives exactly the NPU nodes the db stores at precision index >= 0.3
 * (warning or error), in its node_order; the first at error level is the
 * db's first at index 1.  Then the whole-run order of model/compare/compare_run.h:
 * step, micro step, rank, node_order; error before warning. */
#include <sqlite3.h>

#include "model/compare/compare_run.h"
#include "pt_test.h"
#include "pt_graph.h"
#include "src/io/dump/read_graph.h"

static void test_quick_start_node_order(void) {
    const char *sh = pt_shared();
    struct tree *npu = pt_graph_load("examples/quick_start/gpu_dump/step0/proc2016", GRAPH_BUILD);
    struct tree *bench = pt_graph_load("examples/quick_start/gpu_dump/step1/proc2016", GRAPH_BUILD);
    if (!sh || !npu || !bench) {
        tree_free(npu);
        tree_free(bench);
        SKIP("fixtures absent");
    }
    char dbp[4096];
    snprintf(dbp, sizeof dbp, "%s/fixtures/msprobe-outputs/gpu_dump_step0_vs_step1.compare_oc.vis.db", sh);
    sqlite3 *db = NULL;
    struct cmp_graph *g = NULL;
    struct pt_error err;
    CHECK_INT(pt_sqlite_ro(dbp, &db), SQLITE_OK);
    CHECK_INT(cmp_graph_new(npu, bench, NULL, &g, &err), 0);
    if (!g || !db) goto out;
    sqlite3_stmt *st;
    CHECK_INT(sqlite3_prepare_v2(db,
                                 "SELECT node_name, precision_index FROM tb_nodes WHERE data_source = 'NPU' "
                                 "AND precision_index >= 0.3 AND node_name NOT LIKE 'Apis_Between_Modules%' "
                                 "ORDER BY node_order", -1, &st, NULL), SQLITE_OK);
    int n = -1, rows = 0, bad = 0;
    char first_error[512] = "";
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (!first_error[0] && sqlite3_column_double(st, 1) >= 0.6) snprintf(first_error, sizeof first_error, "%s", name);
        n = cmp_next_divergent(g, n, 1);
        rows++;
        if ((n < 0 || strcmp(tree_id(npu, n), name)) && bad++ < 5)
            fprintf(stderr, "divergent node %d: ours %s, msProbe's %s\n", rows, n >= 0 ? tree_id(npu, n) : "(none)", name);
        if (n < 0) break;
    }
    sqlite3_finalize(st);
    CHECK_INT(bad, 0);
    CHECK_INT(rows, 65);
    CHECK_INT(cmp_next_divergent(g, n, 1), -1);
    /* and backwards, from the end */
    int last = cmp_next_divergent(g, -1, -1);
    CHECK_INT(last, n);
    /* the first error: the Linear's operation, not the module around it */
    CHECK_STR(first_error, "Functional.linear.0.forward");
    int f = cmp_first_divergence(g);
    CHECK(f >= 0);
    if (f >= 0) {
        CHECK_STR(tree_id(npu, f), first_error);
        int in = tree_enclosing_module(npu, f);
        CHECK(in >= 0);
        if (in >= 0) CHECK_STR(tree_id(npu, in), "Module.fc.Linear.forward.0");
    }
    /* the pair's summary */
    struct compare_run_pair p;
    memset(&p, 0, sizeof p);
    CHECK_INT(compare_run_pair_from_graph(&p, g), 0);
    CHECK_INT(p.state, COMPARE_RUN_DONE);
    CHECK_INT((int)p.nunmatched, 220);
    CHECK_INT((int)p.nunmatched_bench, 58);
    CHECK_INT((int)(p.nerror + p.nwarning), 65);
    CHECK(p.first[COMPARE_RUN_ERR].have && p.first[COMPARE_RUN_WARN].have);
    CHECK_STR(p.first[COMPARE_RUN_ERR].name, "Functional.linear.0.forward");
    CHECK_STR(p.first[COMPARE_RUN_ERR].in, "Module.fc.Linear.forward.0");
    CHECK_STR(p.first[COMPARE_RUN_WARN].name, "Functional.relu.1.forward");
    CHECK_STR(p.first[COMPARE_RUN_WARN].in, "Module.layer1.0.relu.ReLU.forward.0");
    CHECK_INT(p.first[COMPARE_RUN_ERR].at.order, 411);
    int which;
    CHECK_INT(compare_run_first(&p, 1, &which), 0);
    CHECK_INT(which, COMPARE_RUN_ERR);
    compare_run_pair_clear(&p);
    CHECK_INT(p.state, COMPARE_RUN_PENDING);
out:
    cmp_graph_free(g);
    if (db) sqlite3_close(db);
    tree_free(npu);
    tree_free(bench);
}

static void offer(struct compare_run_pair *p, int level, int32_t micro, int32_t order, const char *name) {
    struct compare_run_point at = {p->step, micro, p->rank, order};
    CHECK_INT(compare_run_offer(p, level, &at, name, "Module.m.forward.0", 0.5), 0);
}

static void test_run_order(void) {
    struct compare_run_point a = {1, 0, 5, 100}, b = {1, 1, 0, 3}, c = {0, 4, 7, 9}, d = {1, 0, 2, 900};
    CHECK(compare_run_cmp(&c, &a) < 0);   /* step first */
    CHECK(compare_run_cmp(&a, &b) < 0);   /* then micro step */
    CHECK(compare_run_cmp(&d, &a) < 0);   /* then rank */
    CHECK(compare_run_cmp(&a, &a) == 0);
    struct compare_run_point e = {1, 0, 5, 99};
    CHECK(compare_run_cmp(&e, &a) < 0);   /* then node_order */
    struct compare_run_point r2 = {1, 0, 2, 900}, r10 = {1, 0, 10, 1};
    CHECK(compare_run_rank_cmp(&r2, &r10) < 0);

    /* four pairs: step 0 ranks 0-1, step 1 ranks 0-1 */
    struct compare_run_pair v[4];
    memset(v, 0, sizeof v);
    for (int i = 0; i < 4; i++) {
        v[i].step = i / 2;
        v[i].rank = i % 2;
        v[i].state = COMPARE_RUN_DONE;
    }
    int which;
    CHECK_INT(compare_run_first(v, 4, &which), -1);
    CHECK_INT(which, -1);
    /* warnings only: the earliest warning, step 0 rank 1 */
    offer(&v[1], CL_WARNING, 0, 50, "w01");
    offer(&v[2], CL_WARNING, 0, 1, "w10");
    CHECK_INT(compare_run_first(v, 4, &which), 1);
    CHECK_INT(which, COMPARE_RUN_WARN);
    /* an error anywhere wins over every warning */
    offer(&v[3], CL_ERROR, 2, 70, "e11");
    CHECK_INT(compare_run_first(v, 4, &which), 3);
    CHECK_INT(which, COMPARE_RUN_ERR);
    /* same step: an earlier micro step on rank 0 comes before rank 1 */
    offer(&v[2], CL_ERROR, 1, 800, "e10");
    CHECK_INT(compare_run_first(v, 4, &which), 2);
    /* a pair keeps its earliest per level; a later offer does not replace it */
    offer(&v[2], CL_ERROR, 1, 900, "later");
    CHECK_STR(v[2].first[COMPARE_RUN_ERR].name, "e10");
    offer(&v[2], CL_ERROR, 0, 900, "earlier micro");
    CHECK_STR(v[2].first[COMPARE_RUN_ERR].name, "earlier micro");
    /* same step and micro step: the lower rank first, whatever its order */
    offer(&v[3], CL_ERROR, 0, 5, "e11 early");
    CHECK_INT(compare_run_first(v, 4, &which), 2);
    /* pending or failed pairs do not count */
    v[2].state = COMPARE_RUN_PENDING;
    CHECK_INT(compare_run_first(v, 4, &which), 3);
    compare_run_pair_fail(&v[3], "no tree");
    CHECK_INT(v[3].state, COMPARE_RUN_FAILED);
    CHECK_STR(v[3].why, "no tree");
    CHECK_INT(compare_run_first(v, 4, &which), 1);
    CHECK_INT(which, COMPARE_RUN_WARN);
    for (int i = 0; i < 4; i++) compare_run_pair_clear(&v[i]);
}

int main(void) {
    RUN(test_quick_start_node_order);
    RUN(test_run_order);
    PT_DONE();
}
