/* test_trendpair: two runs of trend data (issue 24, point 5; probetop(1),
 * COMPARE TWO EXPERIMENTS): `probetop compare PROBLEM BENCH` on monitor
 * trees (v1, v2) and .trend.db files, and the pair's model
 * (model/compare/runpair.h).
 *
 * The runs come from tests/gen_dump.py with one seed, so every value is
 * equal but what is planted: a NaN at step 2 on rank 1 in layers.1.mlp, or
 * a drift of 1.5x in layers.1 (|p-b|/|b| = 0.5 from step 0).  The expected
 * values are computed apart from probetop, from the CSV files, by
 * tests/runpair_oracle.py (cells, parting cells, first parting step and
 * rank, the largest |p-b|/|b| of every target, the one-run-only targets,
 * and the first step x target where the runs part); the .trend.db files
 * `probetop data2db` writes give the same table as their trees; the real
 * fixture tests/data/msprobe/derived/synthetic_monitor_output against the
 * .trend.db msProbe's own data2db wrote from it does not part at all. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/rundiff.h"
#include "model/compare/runpair.h"
#include "model/cube/cube_lazy.h"
#include "pt_test.h"
#include "src/cmd/cmd.h"

static char dir[1024];

/* gen_dump.py into dir/name with opts; 0 ok. */
static int gen(const char *name, const char *opts) {
    const char *sh = pt_shared(), *py = getenv("PT_PYTHON");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s/%s' --monitor --layers 2 --seed 1 --quiet --jobs 1 %s",
             py, sh, dir, name, opts);
    return system(cmd) == 0 ? 0 : -1;
}

static int need(void) {
    const char *sh = pt_shared(), *py = getenv("PT_PYTHON");
    if (!sh || !py || !*py) return -1;
    const char *d = pt_tmpdir("trendpair");
    if (!d) return -1;
    snprintf(dir, sizeof dir, "%s", d);
    return 0;
}

/* probetop compare with args into dir/out, dir/err: its exit code. */
static int compare(const char *const *args, int n) {
    const char *argv[16] = {"compare"};
    for (int i = 0; i < n; i++) argv[i + 1] = args[i];
    char out[1200], err[1200];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    return pt_capture(out, err, cmd_compare_entry.run, n + 1, argv);
}

static char *slurp(const char *name) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return pt_slurp(p);
}

/* The oracle on dir/P and dir/B for metric (probetop's csv in dir/out):
 * its exit code, its first line into first. */
static int oracle(const char *p, const char *b, const char *metric, const char *extra, char *first, size_t n) {
    char cmd[4096], o[1200];
    snprintf(o, sizeof o, "%s/oracle", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/runpair_oracle.py' '%s/%s' '%s/%s' --metric %s --csv '%s/out' %s > '%s'",
             getenv("PT_PYTHON"), getenv("PT_SRC"), dir, p, dir, b, metric, dir, extra ? extra : "", o);
    int rc = system(cmd);
    char *s = pt_slurp(o);
    snprintf(first, n, "%s", s ? s : "");
    char *nl = strchr(first, '\n');
    if (nl) *nl = '\0';
    free(s);
    return rc;
}

static void path(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

/* The planted NaN: the table of every metric matches the oracle, and the
 * first part is step 2, rank 1, the first layers.1.mlp output. */
static void test_nan_trees(void) {
    if (need() != 0 || !getenv("PT_SRC")) SKIP("PT_SHARED, PT_SRC or PT_PYTHON absent");
    const char *opts = "--steps 4 --ranks 4";
    char o2[200];
    snprintf(o2, sizeof o2, "%s --nan 2:1:layers.1.mlp", opts);
    if (gen("p", o2) != 0 || gen("b", opts) != 0) SKIP("gen_dump.py failed");
    char p[1200], b[1200];
    path(p, sizeof p, "p");
    path(b, sizeof b, "b");
    const char *metrics[] = {"actv", "actv_grad", "grad_reduced", "exp_avg", "param_origin"};
    for (size_t i = 0; i < sizeof metrics / sizeof *metrics; i++) {
        const char *args[] = {p, b, "--metric", metrics[i], "--format", "csv"};
        int rc = compare(args, 6);
        char first[2048];
        CHECK_INT(oracle("p", "b", metrics[i], NULL, first, sizeof first), 0);
        /* the oracle's first part is --first's */
        const char *fa[] = {p, b, "--metric", metrics[i], "--first"};
        CHECK_INT(compare(fa, 5), rc);
        char *so = slurp("out");
        if (!strcmp(first, "first none")) {
            CHECK_INT(rc, EXIT_OK);
            CHECK_CONTAINS(so, "the runs do not part");
        } else {
            CHECK_INT(rc, EXIT_FOUND);
            int s, r;
            char name[1024];
            CHECK_INT(sscanf(first, "first step %d rank %d target %1023s", &s, &r, name), 3);
            char want[1400];
            snprintf(want, sizeof want, "first part  step %d  rank %d  %s/", s, r, metrics[i]);
            CHECK_CONTAINS(so, want);
            snprintf(want, sizeof want, "  %s: problem nan", name);
            CHECK_CONTAINS(so, want);
        }
        free(so);
    }
    /* every metric: the first is actv's (the first metric at step 2) */
    const char *all[] = {p, b, "--first"};
    CHECK_INT(compare(all, 3), EXIT_FOUND);
    char *so = slurp("out");
    CHECK_CONTAINS(so, "first part  step 2  rank 1  actv/norm  module.module.decoder.layers.1.mlp.linear_fc1.output_0: "
                       "problem nan bench 12250.0166");
    free(so);
    /* the .trend.db files data2db writes: the same table, alone or one of each */
    const char *args[] = {p, b, "--format", "csv"};
    CHECK_INT(compare(args, 4), EXIT_FOUND);
    char *trees = slurp("out");
    char pdb[1200], bdb[1200], out[1200], err[1200];
    path(pdb, sizeof pdb, "pdb");
    path(bdb, sizeof bdb, "bdb");
    path(out, sizeof out, "d2db");
    path(err, sizeof err, "d2db.err");
    const char *d1[] = {"data2db", "--data", p, "--db", pdb}, *d2[] = {"data2db", "--data", b, "--db", bdb};
    CHECK_INT(pt_capture(out, err, cmd_data2db_entry.run, 5, d1), 0);
    CHECK_INT(pt_capture(out, err, cmd_data2db_entry.run, 5, d2), 0);
    const char *pairs[3][2] = {{pdb, bdb}, {p, bdb}, {pdb, b}};
    for (int k = 0; k < 3; k++) {
        const char *a2[] = {pairs[k][0], pairs[k][1], "--format", "csv"};
        CHECK_INT(compare(a2, 4), EXIT_FOUND);
        char *t = slurp("out");
        CHECK(t && trees && !strcmp(t, trees));
        free(t);
    }
    free(trees);
    /* json: the first part and a row */
    const char *js[] = {pdb, bdb, "--format", "json", "--metric", "actv"};
    CHECK_INT(compare(js, 6), EXIT_FOUND);
    so = slurp("out");
    CHECK_CONTAINS(so, "\"first_part\": {\"step\": \"2\", \"rank\": 1, \"stat\": \"norm\", \"metric\": \"actv\", "
                       "\"target\": \"module.module.decoder.layers.1.mlp.linear_fc1.output_0\", \"problem\": \"nan\", "
                       "\"bench\": 12250.0166, \"rel\": \"nan\"}");
    free(so);
}

/* A drift of 1.5x in layers.1, a benchmark with fewer steps and ranks: the
 * steps and ranks of one run are counted and left out, the first part is
 * step 0 with |p-b|/|b| 0.5, the table matches the oracle; a threshold
 * above 50 % and they do not part. */
static void test_drift_one_side(void) {
    if (need() != 0 || !getenv("PT_SRC")) SKIP("PT_SHARED, PT_SRC or PT_PYTHON absent");
    if (gen("pd", "--steps 4 --ranks 4 --drift 1.5:layers.1") != 0 || gen("bd", "--steps 3 --ranks 2") != 0)
        SKIP("gen_dump.py failed");
    char p[1200], b[1200];
    path(p, sizeof p, "pd");
    path(b, sizeof b, "bd");
    const char *args[] = {p, b, "--metric", "actv", "--format", "csv"};
    CHECK_INT(compare(args, 6), EXIT_FOUND);
    char first[2048];
    CHECK_INT(oracle("pd", "bd", "actv", NULL, first, sizeof first), 0);
    CHECK_STR(first, "first step 0 rank 0 target module.module.decoder.layers.1.input_layernorm.output");
    const char *text[] = {p, b};
    CHECK_INT(compare(text, 2), EXIT_FOUND);
    char *so = slurp("out");
    CHECK_CONTAINS(so, "matched    3 steps, 2 ranks, 8 metrics\n");
    CHECK_CONTAINS(so, "one run only (problem/benchmark, not compared): steps 1/0, ranks 2/0, metrics 0/0, targets 0/0\n");
    CHECK_CONTAINS(so, "first part  step 0  rank 0  actv/norm  module.module.decoder.layers.1.input_layernorm.output: "
                       "problem 6136.56689 bench 4091.04468 |p-b|/|b| 0.49999997 (above 1%)");
    free(so);
    /* the activations: bf16 rounding takes min and max a little past 0.5
     * (-20 against -13.3125); tiny gradients part by more (rounding to 1e-6) */
    const char *hi[] = {p, b, "--threshold", "51", "--first", "--metric", "actv"};
    CHECK_INT(compare(hi, 7), EXIT_OK);
    so = slurp("out");
    CHECK_CONTAINS(so, "the runs do not part: no shared cell above |p-b|/|b| 51%");
    free(so);
    const char *bad[] = {p, b, "--threshold", "0"};
    CHECK_INT(compare(bad, 4), EXIT_USAGE);
}

/* --mapping: the benchmark's names spelled otherwise (model. for
 * module.module.); without the mapping no target pairs, with it all do. */
static void test_mapping(void) {
    if (need() != 0 || !getenv("PT_SRC")) SKIP("PT_SHARED, PT_SRC or PT_PYTHON absent");
    if (gen("pm", "--steps 2 --ranks 2 --nan 1:0:layers.0.mlp") != 0 || gen("bm", "--steps 2 --ranks 2") != 0)
        SKIP("gen_dump.py failed");
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "sed -i 's/module\\.module\\./model./g' '%s'/bm/*/*.csv", dir);
    CHECK_INT(system(cmd), 0);
    char p[1200], b[1200], map[1200];
    path(p, sizeof p, "pm");
    path(b, sizeof b, "bm");
    path(map, sizeof map, "map.json");
    CHECK_INT(pt_write(map, "{\"module.module.\": \"model.\"}"), 0);
    const char *plain[] = {p, b, "--first"};
    CHECK_INT(compare(plain, 3), EXIT_OK);
    const char *text[] = {p, b, "--metric", "actv"};
    compare(text, 4);
    char *so = slurp("out");
    CHECK_CONTAINS(so, "(problem only)");
    CHECK_CONTAINS(so, "(benchmark only)");
    free(so);
    const char *mapped[] = {p, b, "--mapping", map, "--metric", "actv", "--format", "csv"};
    CHECK_INT(compare(mapped, 8), EXIT_FOUND);
    char first[2048];
    char o2[1600];
    snprintf(o2, sizeof o2, "--mapping '%s'", map);
    CHECK_INT(oracle("pm", "bm", "actv", o2, first, sizeof first), 0);
    CHECK_STR(first, "first step 1 rank 0 target model.decoder.layers.0.mlp.linear_fc1.output_0");
    so = slurp("out");
    CHECK(so && !strstr(so, "only,"));
    free(so);
}

/* The real fixture: the monitor tree against the .trend.db msProbe's own
 * data2db wrote from it (tests/data/README.md).  The same data, an Inf
 * (rank 0 actv) and a NaN (rank 1 actv) on both sides, which do not part;
 * but msProbe clips values beyond 1e9 into its database
 * (probetop-formats(5), TREND.DB), so the tree's 2.5e9 in param_origin
 * at step 1 is 1e9 there: the one place they part, |p-b|/|b| 1.5. */
static void test_real_fixture(void) {
    const char *tree = pt_fixture("derived/synthetic_monitor_output");
    const char *db = pt_fixture("derived/synthetic_monitor.micro_step_true/monitor_data.trend.db");
    if (!tree || !db || need() != 0) SKIP("fixtures absent");
    const char *args[] = {tree, db};
    CHECK_INT(compare(args, 2), EXIT_FOUND);
    char *so = slurp("out");
    CHECK_CONTAINS(so, "matched    4 steps, 2 ranks, 4 metrics\n");
    CHECK_CONTAINS(so, "steps 0/0, ranks 0/0, metrics 0/0, targets 0/0\n");
    CHECK_CONTAINS(so, "first part  step 1.0  rank 0  param_origin/norm  module.embedding.word_embeddings.weight: "
                       "problem 2.5e+09 bench 1e+09 |p-b|/|b| 1.5 (above 1%)");
    free(so);
    /* every other target: no parting cell */
    const char *csv[] = {tree, db, "--format", "csv"};
    CHECK_INT(compare(csv, 4), EXIT_FOUND);
    so = slurp("out");
    int parting = 0, rows = 0;
    for (char *l = so ? strchr(so, '\n') : NULL; l && l[1]; l = strchr(l + 1, '\n')) {
        char f[6][200];
        rows++;
        if (sscanf(l + 1, "%199[^,],%199[^,],%199[^,],%199[^,],%199[^,],", f[0], f[1], f[2], f[3], f[4]) == 5 &&
            strcmp(f[4], "0")) {
            parting++;
            CHECK_STR(f[0], "param_origin");
            CHECK_STR(f[1], "module.embedding.word_embeddings.weight");
        }
    }
    CHECK_INT(parting, 1);
    CHECK_INT(rows, 6 + 6 + 4 + 4);
    free(so);
    const char *self[] = {tree, tree, "--format", "json"};
    CHECK_INT(compare(self, 4), EXIT_OK);
    so = slurp("out");
    CHECK_CONTAINS(so, "\"first_part\": null");
    free(so);
}

/* A v2 tree (module/forward) pairs with the v1-named .trend.db data2db
 * writes from a tree: the metrics by msProbe's mapping of the scopes. */
static void test_v2_and_db(void) {
    const char *tree = pt_fixture("derived/monitor_v2_output");
    if (!tree || need() != 0) SKIP("fixtures absent");
    char db[1200], out[1200], err[1200];
    path(db, sizeof db, "v2db");
    path(out, sizeof out, "d2db");
    path(err, sizeof err, "d2db.err");
    const char *d[] = {"data2db", "--data", tree, "--db", db};
    CHECK_INT(pt_capture(out, err, cmd_data2db_entry.run, 5, d), 0);
    const char *args[] = {tree, db};
    CHECK_INT(compare(args, 2), EXIT_OK);
    char *so = slurp("out");
    CHECK_CONTAINS(so, "first part  none");
    CHECK_CONTAINS(so, "\nmodule/forward ");
    CHECK_CONTAINS(so, "matched    6 steps, 2 ranks, ");
    free(so);
}

/* 2 steps x 3 ranks x 3 targets of one metric (norm, max), values
 * 1 + step + rank + 10 target; the benchmark (bench) with step 5 and rank
 * 7 more, and a target of its own. */
static struct cube *small(int bench) {
    struct names *n = names_new();
    struct cube_builder *b = cube_builder_new(n);
    static const char *const st[] = {"norm", "max"};
    int m = cube_builder_metric(b, "forward", 2, st);
    const char *tn[] = {"Module.a.output.0", "Module.b.output.0", bench ? "Module.bench.output.0" : "Module.c.output.0"};
    for (int t = 0; t < 3; t++) {
        uint32_t id = names_intern(n, tn[t], strlen(tn[t]), 0, 0);
        for (int step = 0; step < (bench ? 3 : 2); step++)
            for (int rank = 0; rank < (bench ? 4 : 3); rank++) {
                double v[2] = {1 + step + rank + 10 * t, 100};
                cube_builder_add(b, m, id, step == 2 ? 5 : step, rank == 3 ? 7 : rank, v, 3);
            }
    }
    struct cube *c = NULL;
    struct pt_error err;
    if (cube_builder_finish(b, &c, &err) != 0) fprintf(stderr, "%s\n", err.msg);
    cube_builder_free(b);
    return c;
}

/* The difference cube: lazy, each cell rundiff_cell of the two runs'
 * cells, only the shared axes; the first part by the documented order. */
static void test_diff_cube(void) {
    struct cube *p = small(0), *b = small(1);
    if (!p || !b) { CHECK(!"cubes"); cube_free(p); cube_free(b); return; }
    /* plant: b's max of (b, step 1, rank 2) halved, and (a, step 1, rank 1) too: a comes first */
    struct cube_metric *m = &b->metrics[0];
    m->vals[cube_index(b, m, 1, 1, 1, 2)] = 50;
    m->vals[cube_index(b, m, 1, 0, 1, 1)] = 50;
    struct runpair *rp = NULL;
    struct pt_error err;
    CHECK_INT(runpair_build(p, b, NULL, NULL, 0, NULL, &rp, &err), 0);
    if (!rp) { cube_free(p); cube_free(b); return; }
    struct cube *d = NULL;
    CHECK_INT(runpair_diff_cube(rp, LABELS_DUMP, 1 << 20, &d, &err), 0);
    CHECK(d && cube_is_lazy(d));
    /* the shared axes: steps 0 1, ranks 0 1 2, targets a b; one run's own counted */
    CHECK_INT(rp->nsteps, 2);
    CHECK_INT(rp->b_only_steps, 1);
    CHECK_INT(rp->nranks, 3);
    CHECK_INT(rp->b_only_ranks, 1);
    CHECK_INT((int)rp->m[0].ntargets, 2);
    CHECK_INT((int)rp->m[0].p_only, 1);
    CHECK_INT((int)rp->m[0].b_only, 1);
    if (d) {
        CHECK_INT(d->nsteps, 2);
        CHECK_INT(d->nranks, 3);
        CHECK_INT((int)d->metrics[0].ntargets, 2);
        /* (max, a, step 1, rank 1): 100 against 50; by cell, by slice of every dimension */
        CHECK_NEAR(cube_get(d, 0, 1, 0, 1, 1), 1.0, 1e-7);
        CHECK(cube_get(d, 0, 0, 0, 1, 1) == 0.0f);
        struct cube_slice sl;
        CHECK_INT(cube_slice(d, 0, 1, DIM_STEP, 1, &sl), 0);
        CHECK_NEAR(cube_slice_at(&sl, 2, 1), 1.0, 1e-7);
        CHECK(cube_slice_at(&sl, 0, 1) == 0.0f);
        CHECK_INT(cube_slice(d, 0, 1, DIM_RANK, 1, &sl), 0);
        CHECK_NEAR(cube_slice_at(&sl, 1, 0), 1.0, 1e-7);
        CHECK_INT(cube_slice(d, 0, 1, DIM_TARGET, 1, &sl), 0);
        CHECK_NEAR(cube_slice_at(&sl, 1, 2), 1.0, 1e-7);
        CHECK(cube_slice_at(&sl, 1, 1) == 0.0f);
        /* materialized: the same values */
        CHECK_INT(cube_materialize(d, &err), 0);
        CHECK_NEAR(cube_get(d, 0, 1, 1, 1, 2), 1.0, 1e-7);
        CHECK(!cube_is_lazy(d));
    }
    struct runpair_cell c;
    CHECK_INT(runpair_first(rp, -1, RUNPAIR_THRESHOLD, &c, &err), 1);
    CHECK_INT(c.step, 1);
    CHECK_INT(c.rank, 1);
    CHECK_INT(c.stat, 1);
    CHECK_STR(names_str(rp->names, c.target), "Module.a.output.0");
    CHECK_NEAR(c.rel, 1.0, 1e-7);
    /* the table: a's and b's rows, then each run's own */
    struct runpair_row *rows = NULL;
    size_t n = 0;
    CHECK_INT(runpair_table(rp, RUNPAIR_THRESHOLD, &rows, &n, &err), 0);
    CHECK_INT((int)n, 4);
    if (n == 4) {
        CHECK_INT((int)rows[0].compared, 12);   /* 2 steps x 3 ranks x 2 statistics */
        CHECK_INT((int)rows[0].parted, 1);
        CHECK_INT((int)rows[1].parted, 1);
        CHECK(rows[1].has_first && rows[1].first.step == 1 && rows[1].first.rank == 2);
        CHECK_INT(rows[2].side, RUNPAIR_PROBLEM_ONLY);
        CHECK_STR(names_str(rp->names, rows[2].target), "Module.c.output.0");
        CHECK_INT(rows[3].side, RUNPAIR_BENCH_ONLY);
    }
    free(rows);
    CHECK(runpair_parts(NAN, 1.0f, 0.01) && !runpair_parts(NAN, NAN, 0.01) && !runpair_parts(1.0f, cube_missing(), 0.01));
    CHECK(runpair_parts(1.0f, 0.0f, 0.01) && !runpair_parts(INFINITY, INFINITY, 0.01) && !runpair_parts(1.005f, 1.0f, 0.01));
    cube_free(d);
    runpair_free(rp);
    cube_free(p);
    cube_free(b);
}

int main(void) {
    RUN(test_nan_trees);
    RUN(test_drift_one_side);
    RUN(test_mapping);
    RUN(test_real_fixture);
    RUN(test_v2_and_db);
    RUN(test_diff_cube);
    PT_DONE();
}
