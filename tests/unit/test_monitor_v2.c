/* The monitor_v2 reader (probetop-formats(5), MONITOR V2 CSV TREES): the
 * real fixture's values, labels, micro steps and NaNs; a generated tree
 * with a planted NaN; a tree being written (cut last row, CRLF) and a bad
 * header. */
#include "pt_cube.h"
#include "pt_test.h"

#include "src/io/dataset.h"

static struct dataset *load(const char *path, int micro, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    lo.micro_step = micro;
    if (dataset_load(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static size_t nonfinite(const struct cube *c, int step, int rank) {
    size_t n = 0;
    for (int m = 0; m < c->nmetrics; m++) n += cube_count_nonfinite(c, m, step, rank);
    return n;
}

static const char *EMB = "module.module.embedding.word_embeddings.output.0";
static const char *EMBW = "module.module.embedding.word_embeddings.weight";

static void fixture_micro(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!p) SKIP("fixtures absent");
    struct pt_error err;
    struct dataset *ds = load(p, 1, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_STR(ds_format_name(ds->format), "monitor_v2");
    CHECK_INT(c->nmetrics, 8);
    CHECK(cube_metric_find(c, "module/forward") >= 0);
    CHECK(cube_metric_find(c, "module/backward") >= 0);
    CHECK(cube_metric_find(c, "weight_grad/unreduced") >= 0);
    CHECK(cube_metric_find(c, "optimizer/exp_avg_sq") >= 0);
    CHECK(cube_metric_find(c, "param/param_updated") >= 0);
    CHECK_INT(c->nranks, 2);
    /* 3 steps x micro steps 0..1: the module rows' two calls; weight_grad's
     * micro_step 2 (counted from 1) is micro step 1 */
    CHECK_INT(c->nsteps, 6);
    /* rank_1/module_step1-1.csv line 3: step 1, micro step 0 = axis value 2 */
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "norm", EMB, 0, 2, 1), 75.6707342469008, 1e-4);
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "max", EMB, 0, 2, 1), 0.2265625, 1e-7);
    /* rank_1/weight_grad_step0-0.csv line 2: step 0, micro_step 2 = axis value 1 */
    CHECK_NEAR(pt_cube_value(ds, "weight_grad/unreduced", "norm", EMBW, 0, 1, 1), 0.2889502402716803, 1e-7);
    CHECK(names_label_find(c->names, "layers.1", LABEL_LAYER) != NAMES_NONE);
    CHECK_INT(ds->nwarnings, 0);
    dataset_free(ds);
}

static void fixture_steps(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!p) SKIP("fixtures absent");
    struct pt_error err;
    struct dataset *ds = load(p, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_INT(c->nsteps, 3);
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "norm", EMB, 0, 1, 1), 75.6707342469008, 1e-4);
    /* the module rows of the second micro-batch (call order) are call 1 */
    CHECK(names_find(c->names, EMB, strlen(EMB), 0, 1) != NAMES_NONE);
    /* the planted NaN: 196 rows, 784 cells (4 of min,max,mean,norm each) at step 2 rank 1, none elsewhere */
    CHECK_INT(nonfinite(c, cube_step_find(c, 2), cube_rank_find(c, 1)), 784);
    CHECK_INT(nonfinite(c, -1, -1), 784);
    CHECK(isnan(pt_cube_value(ds, "module/forward", "norm", "module.module.decoder.layers.1.mlp.linear_fc1.output.0", 0, 2, 1)));
    dataset_free(ds);
}

static void generated_nan(void) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    const char *dir = pt_tmpdir("monitor_v2_gen");
    if (!py || !py[0] || !s || !dir) SKIP("python or ../shared absent");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --monitor-v2 --out '%s/t' --steps 3 --ranks 2 --layers 2 "
             "--nan 1:0:layers.1 --quiet >/dev/null 2>&1", py, s, dir);
    if (system(cmd) != 0) SKIP("generator failed");
    snprintf(cmd, sizeof cmd, "%s/t", dir);
    struct pt_error err;
    struct dataset *ds = load(cmd, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_STR(ds_format_name(ds->format), "monitor_v2");
    CHECK_INT(c->nranks, 2);
    CHECK_INT(c->nsteps, 3);
    CHECK(nonfinite(c, cube_step_find(c, 1), cube_rank_find(c, 0)) > 0);
    CHECK_INT(nonfinite(c, cube_step_find(c, 0), -1), 0);
    CHECK_INT(nonfinite(c, -1, cube_rank_find(c, 1)), 0);
    CHECK(names_label_find(c->names, "layers.1", LABEL_LAYER) != NAMES_NONE);
    dataset_free(ds);
}

static void hostile(void) {
    const char *dir = pt_tmpdir("monitor_v2_hostile");
    if (!dir) SKIP("no temp dir");
    char p[2048], f[2100];
    snprintf(p, sizeof p, "%s/t", dir);
    mkdir(p, 0755);
    snprintf(f, sizeof f, "%s/rank_3", p);
    mkdir(f, 0755);
    /* CRLF, python floats, a row with a bad step, a last row still being written */
    snprintf(f, sizeof f, "%s/rank_3/module_step4-4.csv", p);
    CHECK_INT(pt_write(f, "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\r\n"
                          "0,4,m.layers.0.output.0,forward,-inf,inf,nan,2.5,1.0\r\n"
                          "0,x,m.layers.0.output.0,forward,1,2,3,4,0\r\n"
                          "0,4,m.layers.0.output.0,forward,1.0,2.0,1.5,3.5,0.0\r\n"
                          "0,4,m.layers.1.output.0,forward,1.0,2"), 0);
    struct pt_error err;
    struct dataset *ds = load(p, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    float v = pt_cube_value(ds, "module/forward", "max", "m.layers.0.output.0", 0, 4, 3);
    CHECK(isinf(v) && v > 0);
    CHECK(isnan(pt_cube_value(ds, "module/forward", "mean", "m.layers.0.output.0", 0, 4, 3)));
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "norm", "m.layers.0.output.0", 1, 4, 3), 3.5, 0);
    CHECK(names_find(c->names, "m.layers.1.output.0", 19, 0, 0) == NAMES_NONE);   /* the cut row */
    CHECK_INT(ds->nwarnings, 1);   /* the bad step only; the cut row is silent */
    if (ds->nwarnings) {
        CHECK_CONTAINS(ds->warnings[0], "module_step4-4.csv: line 3");
    }
    dataset_free(ds);
    /* a bad header: a note naming file and line, and the load fails when nothing else is left */
    CHECK_INT(pt_write(f, "vpp_stage,step,name,scope,norm\r\n0,4,a,forward,1\r\n"), 0);
    ds = load(p, 0, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "module_step4-4.csv: line 1: header lacks the module_name column");
    /* --format monitor_v2 is a name the table knows */
    CHECK(ds_format_find("monitor_v2") != NULL);
}

int main(void) {
    RUN(fixture_micro);
    RUN(fixture_steps);
    RUN(generated_nan);
    RUN(hostile);
    PT_DONE();
}
