/* test_app_compare: the curses-free parts of compare mode in the app: the
 * divergence heat map's derived cube (model/compare/rundiff.h), communication
 * links between ranks (model/graph/comm.h, probetop-rules(7), ORIGIN ACROSS RANKS: Communication links, on
 * synthetic ranks and on a gen_dump.py tensor-parallel pair), and the side
 * files (src/io/compare/cmp_files.h: layer mapping, match config saved and applied on
 * the quick_start pair). */
#include <math.h>
#include <sys/wait.h>

#include "model/graph/comm.h"
#include "model/compare/compare.h"
#include "model/compare/rundiff.h"
#include "pt_test.h"
#include "src/io/compare/cmp_files.h"
#include "src/io/dump/read_graph.h"

/* ---- rundiff ---- */

static void test_rundiff_cell(void) {
    CHECK_NEAR(rundiff_cell(3.0f, 2.0f), 0.5, 1e-7);
    CHECK_NEAR(rundiff_cell(1.0f, -2.0f), 1.5, 1e-7);
    CHECK(rundiff_cell(0.0f, 0.0f) == 0.0f);
    CHECK(isinf(rundiff_cell(1.0f, 0.0f)) && rundiff_cell(1.0f, 0.0f) > 0);
    CHECK(isnan(rundiff_cell(NAN, 1.0f)) && !cube_is_missing(rundiff_cell(NAN, 1.0f)));
    CHECK(isinf(rundiff_cell(INFINITY, 1.0f)));
    CHECK(rundiff_cell(INFINITY, INFINITY) == 0.0f);
    CHECK(cube_is_missing(rundiff_cell(cube_missing(), 1.0f)));
    CHECK(cube_is_missing(rundiff_cell(1.0f, cube_missing())));
}

static struct cube *small_cube(double scale, int with_extra) {
    struct names *n = names_new();
    struct cube_builder *b = cube_builder_new(n);
    static const char *const st[] = {"norm", "max"};
    int m = cube_builder_metric(b, "forward", 2, st);
    uint32_t t0 = names_intern(n, "Module.a.output.0", 17, 0, 0);
    uint32_t t1 = names_intern(n, "Module.b.output.0", 17, 0, 0);
    uint32_t t2 = with_extra ? names_intern(n, "Module.only.output.0", 20, 0, 0) : NAMES_NONE;
    for (int step = 0; step < 2; step++)
        for (int rank = 0; rank < 2; rank++) {
            double v0[2] = {scale * (1 + step + rank), 4.0};
            double v1[2] = {step == 1 && rank == 1 ? 0.0 : 2.0 * scale, 2.0};
            cube_builder_add(b, m, t0, step, rank, v0, 3);
            cube_builder_add(b, m, t1, step, rank, v1, 1);   /* max missing */
            if (t2 != NAMES_NONE) cube_builder_add(b, m, t2, step, rank, v0, 3);
        }
    struct cube *c = NULL;
    struct pt_error err;
    if (cube_builder_finish(b, &c, &err) != 0) fprintf(stderr, "%s\n", err.msg);
    cube_builder_free(b);
    return c;
}

static void test_rundiff_cube(void) {
    struct cube *p = small_cube(1.5, 1), *b = small_cube(1.0, 0), *d = NULL;
    CHECK(p && b);
    if (!p || !b) return;
    struct pt_error err;
    CHECK_INT(rundiff_cube(p, b, LABELS_DUMP, &d, &err), 0);
    if (!d) goto out;
    CHECK_INT(d->nsteps, 2);
    CHECK_INT(d->nranks, 2);
    CHECK_INT(d->nmetrics, 1);
    CHECK_STR(d->metrics[0].name, "forward");
    CHECK_INT((int)d->metrics[0].ntargets, 2);   /* the problem-only target is gone */
    CHECK_INT(d->metrics[0].nstats, 2);
    uint32_t a = names_find(d->names, "Module.a.output.0", 17, 0, 0), bb = names_find(d->names, "Module.b.output.0", 17, 0, 0);
    CHECK(a != NAMES_NONE && bb != NAMES_NONE);
    CHECK(names_find(d->names, "Module.only.output.0", 20, 0, 0) == NAMES_NONE);
    uint32_t la = cube_local_target(d, 0, a), lb = cube_local_target(d, 0, bb);
    /* |1.5x - x| / |x| = 0.5 everywhere for norm, max equal: 0 */
    for (int s = 0; s < 2; s++)
        for (int r = 0; r < 2; r++) {
            CHECK_NEAR(cube_get(d, 0, 0, la, s, r), 0.5, 1e-6);
            CHECK(cube_get(d, 0, 1, la, s, r) == 0.0f);
            CHECK(cube_is_missing(cube_get(d, 0, 1, lb, s, r)));   /* missing on both sides */
        }
    CHECK(cube_get(d, 0, 0, lb, 1, 1) == 0.0f);   /* 0 vs 0 */
    CHECK_NEAR(cube_get(d, 0, 0, lb, 0, 0), 0.5, 1e-6);
    /* nothing shared: a message */
    struct cube *none = NULL;
    struct cube *q = small_cube(1.0, 0);
    if (q) {
        q->steps[0].value = 100;
        q->steps[1].value = 101;
        CHECK_INT(rundiff_cube(p, q, LABELS_DUMP, &none, &err), -1);
        CHECK_CONTAINS(err.msg, "share no cell");
        cube_free(q);
    }
out:
    cube_free(d);
    cube_free(p);
    cube_free(b);
}

/* ---- communication links ---- */

static int rec(struct tree *t, const char *name) { return tree_add_record(t, name, strlen(name)); }

static void param(struct tree *t, int r, const char *name, const char *value, const char *gid) {
    struct tparam *p = tree_add_param(t, r);
    p->name = tree_str(t, name, strlen(name));
    p->dtype = p->shape = p->type = p->data_name = p->md5 = TREE_NONE;
    p->value = value ? tree_str(t, value, strlen(value)) : TREE_NONE;
    if (gid) tree_comm_set(t, t->nparams - 1, tree_str(t, gid, strlen(gid)), TREE_NONE);
}

static const struct comm_link *link_of(const struct comm_links *l, int ft, const struct tree *f, const char *from,
                                       int tt, const struct tree *to, const char *dst) {
    for (size_t i = 0; i < l->n; i++) {
        const struct comm_link *k = &l->v[i];
        if (k->from_tree == ft && k->to_tree == tt && !strcmp(tree_s(f, f->recs[k->from_rec].name), from) &&
            !strcmp(tree_s(to, to->recs[k->to_rec].name), dst))
            return k;
    }
    return NULL;
}

static void test_links_synthetic(void) {
    struct tree *t[3];
    for (int i = 0; i < 3; i++) {
        t[i] = tree_new();
        t[i]->rank = i;
    }
    /* rank 0 isend -> rank 1 irecv, twice; rank 2's irecv names rank 1 (no partner) */
    for (int k = 0; k < 2; k++) {
        char n0[64], n1[64], p0[96], p1[96];
        snprintf(n0, sizeof n0, "Distributed.isend.%d.forward", k);
        snprintf(n1, sizeof n1, "Distributed.irecv.%d.forward", k);
        snprintf(p0, sizeof p0, "%s.input.dst", n0);
        snprintf(p1, sizeof p1, "%s.input.src", n1);
        param(t[0], rec(t[0], n0), p0, "1", NULL);
        param(t[1], rec(t[1], n1), p1, "0", NULL);
    }
    param(t[2], rec(t[2], "Distributed.irecv.0.forward"), "Distributed.irecv.0.forward.input.src", "1", NULL);
    /* broadcast rooted at rank 0 in group g7 on all three ranks */
    for (int i = 0; i < 3; i++) {
        int r = rec(t[i], "Distributed.broadcast.0.forward");
        param(t[i], r, "Distributed.broadcast.0.forward.input.1", "0", NULL);
        param(t[i], r, "Distributed.broadcast.0.forward.input.group", NULL, "g7");
    }
    /* all_reduce: everybody with everybody */
    for (int i = 0; i < 2; i++) {
        int r = rec(t[i], "Distributed.all_reduce.0.forward");
        param(t[i], r, "Distributed.all_reduce.0.forward.input.group", NULL, "g3");
    }
    struct comm_links l;
    struct pt_error err;
    const struct tree *tt[3] = {t[0], t[1], t[2]};
    CHECK_INT(comm_links_build(tt, 3, &l, &err), 0);
    const struct comm_link *k;
    k = link_of(&l, 0, t[0], "Distributed.isend.0.forward", 1, t[1], "Distributed.irecv.0.forward");
    CHECK(k && k->type == COMM_SEND);
    k = link_of(&l, 1, t[1], "Distributed.irecv.1.forward", 0, t[0], "Distributed.isend.1.forward");
    CHECK(k && k->type == COMM_RECEIVE);
    CHECK(!link_of(&l, 0, t[0], "Distributed.isend.0.forward", 1, t[1], "Distributed.irecv.1.forward"));
    CHECK(!link_of(&l, 2, t[2], "Distributed.irecv.0.forward", 1, t[1], "Distributed.isend.0.forward"));
    k = link_of(&l, 0, t[0], "Distributed.broadcast.0.forward", 2, t[2], "Distributed.broadcast.0.forward");
    CHECK(k && k->type == COMM_SEND);
    k = link_of(&l, 2, t[2], "Distributed.broadcast.0.forward", 0, t[0], "Distributed.broadcast.0.forward");
    CHECK(k && k->type == COMM_RECEIVE);
    /* non-roots are not linked with each other */
    CHECK(!link_of(&l, 1, t[1], "Distributed.broadcast.0.forward", 2, t[2], "Distributed.broadcast.0.forward"));
    k = link_of(&l, 1, t[1], "Distributed.all_reduce.0.forward", 0, t[0], "Distributed.all_reduce.0.forward");
    CHECK(k && k->type == COMM_SEND_RECEIVE);
    /* 2 + 2 p2p, 4 broadcast, 2 all_reduce */
    CHECK_INT((int)l.n, 10);
    CHECK_STR(comm_type_name(COMM_SEND_RECEIVE), "send_receive");
    comm_links_free(&l);
    for (int i = 0; i < 3; i++) tree_free(t[i]);
}

/* gen_dump.py with --tp 2: every all_reduce of rank 0 pairs with the same
 * call on rank 1. */
static void test_links_gen_dump(void) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!py || !py[0] || !s) SKIP("no python or shared tools");
    const char *dir = pt_tmpdir("app_compare_links");
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s/d' --steps 1 --ranks 2 --layers 1 --tp 2 --hidden 64 --heads 4 "
             "--ffn 128 --seq 8 --vocab 64 > /dev/null 2>&1", py, s, dir);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    struct tree *t[2] = {NULL, NULL};
    struct pt_error err;
    for (int r = 0; r < 2; r++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/d/step0/rank%d", dir, r);
        CHECK_INT(graph_read(p, GRAPH_NO_STACK, &t[r], &err), 0);
        if (t[r]) t[r]->rank = r;
    }
    if (!t[0] || !t[1]) goto out;
    struct comm_links l;
    const struct tree *tt[2] = {t[0], t[1]};
    CHECK_INT(comm_links_build(tt, 2, &l, &err), 0);
    size_t nar = 0;
    for (size_t i = 0; i < t[0]->nrecs; i++)
        if (!strncmp(tree_s(t[0], t[0]->recs[i].name), "Distributed.all_reduce.", 23)) nar++;
    CHECK(nar > 0);
    /* one link each way per all_reduce */
    CHECK_INT((int)l.n, (int)(2 * nar));
    const struct comm_link *k = link_of(&l, 0, t[0], "Distributed.all_reduce.0.forward", 1, t[1], "Distributed.all_reduce.0.forward");
    CHECK(k && k->type == COMM_SEND_RECEIVE);
    comm_links_free(&l);
out:
    tree_free(t[0]);
    tree_free(t[1]);
}

/* ---- side files ---- */

static void test_lmap(void) {
    const char *dir = pt_tmpdir("app_compare_lmap");
    char path[4200];
    snprintf(path, sizeof path, "%s/map.yaml", dir);
    CHECK_INT(pt_write(path, "# renames\nParallelMLP:\n  mlp: feed_forward   # comment\n  'dense': \"proj\"\n"), 0);
    struct cmp_files_lmap m;
    memset(&m, 0, sizeof m);
    struct pt_error err;
    CHECK_INT(cmp_files_lmap_load(&m, path, &err), 0);
    CHECK_INT((int)m.n, 2);
    if (m.n == 2) {   /* the rules; tests/unit/test_layermap.c applies them */
        CHECK_STR(m.rules[0].cls, "ParallelMLP");
        CHECK_STR(m.rules[0].from, "mlp");
        CHECK_STR(m.rules[0].to, "feed_forward");
        CHECK_STR(m.rules[1].from, "dense");
        CHECK_STR(m.rules[1].to, "proj");
        CHECK_INT(m.rules[1].line, 4);
    }
    cmp_files_lmap_free(&m);
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    CHECK_INT(pt_write(path, "A:\n  no colon here\n"), 0);
    memset(&m, 0, sizeof m);
    CHECK_INT(cmp_files_lmap_load(&m, path, &err), -1);
    CHECK_CONTAINS(err.msg, "line 2");
    cmp_files_lmap_free(&m);
}

static struct cmp_graph *quick_graph(struct tree **a, struct tree **b) {
    const char *pa = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016");
    const char *pb = pt_fixture("examples/quick_start/gpu_dump/step1/proc2016");
    struct pt_error err;
    *a = *b = NULL;
    if (!pa || !pb) return NULL;
    if (graph_read(pa, GRAPH_BUILD, a, &err) != 0 || graph_read(pb, GRAPH_BUILD, b, &err) != 0) return NULL;
    struct cmp_opts o = {0};
    struct cmp_graph *g = NULL;
    if (cmp_graph_new(*a, *b, &o, &g, &err) != 0) return NULL;
    return g;
}

static void test_match_config(void) {
    struct tree *a, *b;
    struct cmp_graph *g = quick_graph(&a, &b);
    if (!g) {
        tree_free(a);
        tree_free(b);
        SKIP("quick_start fixtures absent");
    }
    struct pt_error err;
    const char *dir = pt_tmpdir("app_compare_mc");
    char path[4200];
    snprintf(path, sizeof path, "%s/m.vis.config", dir);
    int x = tree_find(a, "optimizer"), y = tree_find(b, "Module.fc.Linear.parameters_grad.1");
    CHECK(x >= 0 && y >= 0);
    CHECK_INT((int)g->nmatched, 709);
    CHECK_INT(cmp_manual_match(g, x, y, 0, &err), 0);
    CHECK_INT((int)cmp_files_match_save(g, path, &err), 1);
    cmp_graph_free(g);
    tree_free(a);
    tree_free(b);

    g = quick_graph(&a, &b);
    if (!g) return;
    struct cmp_files_report rep;
    CHECK_INT(cmp_files_match_apply(g, path, &rep, &err), 0);
    CHECK_INT((int)rep.ok, 1);
    CHECK_INT((int)rep.failed, 0);   /* the reverse entry is recognised */
    CHECK_INT(g->nodes[x].bench, y);
    CHECK(g->nodes[x].manual);
    CHECK_INT((int)g->nmatched, 710);
    /* unknown names are reported, the rest applied */
    CHECK_INT(pt_write(path, "{\"Not.a.node\": \"optimizer\", \"optimizer\": \"Module.fc.Linear.parameters_grad.1\"}"), 0);
    CHECK_INT(cmp_files_match_apply(g, path, &rep, &err), 0);
    CHECK_INT((int)rep.ok, 1);
    CHECK_INT((int)rep.failed, 1);
    CHECK_CONTAINS(rep.first_bad, "Not.a.node is not a node of the problem graph");
    CHECK_INT(pt_write(path, "[1, 2]"), 0);
    CHECK_INT(cmp_files_match_apply(g, path, &rep, &err), -1);
    CHECK_CONTAINS(err.msg, "expected a JSON object");
    cmp_graph_free(g);
    tree_free(a);
    tree_free(b);
}

int main(void) {
    RUN(test_rundiff_cell);
    RUN(test_rundiff_cube);
    RUN(test_links_synthetic);
    RUN(test_links_gen_dump);
    RUN(test_lmap);
    RUN(test_match_config);
    PT_DONE();
}
