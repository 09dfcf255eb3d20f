/* The demo data (what is planted where) and the app's shared-state logic
 * (metric/dim/selection/filter/goto), without a terminal. */
#include <math.h>

#include "model/cube/demo.h"
#include "pt_test.h"
#include "src/io/load.h"
#include "src/session/loader.h"
#include "src/session/session.h"

static struct dataset *ds;

static float val(const char *metric, const char *stat, const char *target, int32_t call, int step, int rank) {
    const struct cube *c = ds->cube;
    int m = cube_metric_find(c, metric), s = cube_stat_find(c, m, stat);
    uint32_t g = names_find(c->names, target, strlen(target), 0, call);
    uint32_t lt = g == NAMES_NONE ? UINT32_MAX : cube_local_target(c, m, g);
    if (m < 0 || s < 0 || lt == UINT32_MAX) return cube_missing();
    return cube_get(c, m, s, lt, cube_step_find(c, step), cube_rank_find(c, rank));
}

static void shape(void) {
    const struct cube *c = ds->cube;
    CHECK_INT(c->nsteps, 16);
    CHECK_INT(c->nranks, 8);
    CHECK_INT(c->nmetrics, 3);
    CHECK_STR(c->metrics[0].name, "forward");
    CHECK_STR(c->metrics[1].name, "backward");
    CHECK_STR(c->metrics[2].name, "parameters_grad");
    CHECK_INT(c->metrics[0].nstats, 4);
    CHECK_STR(c->metrics[0].stats[3], "mean");
    CHECK_INT(c->metrics[0].ntargets, 3 + 8 * 17);
    CHECK_INT(c->metrics[2].ntargets, 8 * 4);
    CHECK(names_label_count(c->names) > 10);
    CHECK_STR(ds->path, "demo");
    CHECK(cube_count_present(c, 0) == (size_t)16 * 8 * (3 + 8 * 17) * 4);
}

static void burst(void) {
    const char *t = DEMO_BURST_TARGET;
    float n = val("forward", "norm", t, 0, DEMO_BURST_STEP, DEMO_BURST_RANK);
    CHECK(isinf(n) && n > 0);
    CHECK(isinf(val("forward", "max", t, 0, 9, 5)));
    float mn = val("forward", "min", t, 0, 9, 5);
    CHECK(isinf(mn) && mn < 0);
    CHECK(isnan(val("forward", "mean", t, 0, 9, 5)));
    /* Clean before it, on other ranks, and in the layer before. */
    CHECK(isfinite(val("forward", "norm", t, 0, 8, 5)));
    CHECK(isfinite(val("forward", "norm", t, 0, 9, 4)));
    CHECK(isfinite(val("forward", "norm", "Module.module.module.decoder.layers.5.mlp.linear_fc2.RowParallelLinear.input.0", 0, 9, 5)));
    /* Downstream in the same pass, and the backward pass of that step. */
    CHECK(isnan(val("forward", "norm", "Module.module.module.output_layer.ColumnParallelLinear.output.0", 0, 9, 5)));
    CHECK(isnan(val("backward", "norm", "Module.module.module.decoder.layers.0.input_layernorm.RMSNorm.output.0", 0, 9, 5)));
    CHECK(isfinite(val("backward", "norm", "Module.module.module.decoder.layers.0.input_layernorm.RMSNorm.output.0", 0, 9, 4)));
    /* Spreads: earlier layers next step, the TP peer, then everyone. */
    CHECK(isnan(val("forward", "norm", "Module.module.module.decoder.layers.3.input_layernorm.RMSNorm.output.0", 0, 10, 5)));
    CHECK(isnan(val("forward", "norm", t, 0, 10, 4)));
    CHECK(isfinite(val("forward", "norm", t, 0, 11, 0)));
    CHECK(isnan(val("forward", "norm", t, 0, 12, 0)));
    CHECK(isnan(val("forward", "norm", "Module.module.module.embedding.word_embeddings.VocabParallelEmbedding.output.0", 0, 15, 7)));
    CHECK(cube_count_nonfinite(ds->cube, 0, cube_step_find(ds->cube, 8), -1) == 0);
    CHECK(cube_count_nonfinite(ds->cube, 0, cube_step_find(ds->cube, 9), -1) > 0);
}

static void drift(void) {
    const char *t = DEMO_DRIFT_TARGET;
    const char *near = "Module.module.module.decoder.layers.2.self_attention.linear_proj.RowParallelLinear.input.0";
    for (int r = 0; r < 4; r++) {   /* ranks 0-3 stay clean all along */
        double grow = val("forward", "norm", t, 0, 8, r) / val("forward", "norm", t, 0, 0, r);
        double flat = val("forward", "norm", near, 0, 8, r) / val("forward", "norm", near, 0, 0, r);
        CHECK(grow > 2.8 && grow < 4.0);
        CHECK(flat > 0.8 && flat < 1.2);
    }
    /* Deterministic: the same value every build. */
    struct dataset *again;
    struct pt_error err;
    CHECK_INT(loader_demo(0, 0, &again, &err), 0);
    const struct cube_metric *a = &ds->cube->metrics[0], *b = &again->cube->metrics[0];
    size_t n = (size_t)a->nstats * a->ntargets * 16 * 8;
    CHECK(memcmp(a->vals, b->vals, n * sizeof *a->vals) == 0);
    dataset_free(again);
}

static void big(void) {
    struct dataset *d;
    struct pt_error err;
    CHECK_INT(loader_demo(64, 100, &d, &err), 0);
    CHECK_INT(d->cube->nranks, 64);
    CHECK_INT(d->cube->metrics[0].ntargets, 100);
    CHECK_INT(d->cube->nsteps, 4);
    CHECK(cube_count_nonfinite(d->cube, 0, 0, -1) == 0);
    CHECK(cube_count_nonfinite(d->cube, 0, 1, 40) > 0);   /* burst rank 64*5/8 at step 1 */
    dataset_free(d);
    CHECK_INT(loader_demo(0, 0, &d, &err), 0);
    dataset_free(d);
    struct cube *c = NULL;
    CHECK_INT(demo_cube_big(0, 5, &c, &err), -1);
    CHECK(c == NULL);
    CHECK_CONTAINS(err.msg, "1..100000");
}

static void app_logic(void) {
    struct session a;
    struct pt_error err;
    memset(&a, 0, sizeof a);
    search_init(&a.re);
    a.ds = ds;
    a.range_hi = 1;
    session_data_ready(&a);
    CHECK(a.cube == ds->cube);
    CHECK_INT(a.metric, 0);
    CHECK_INT(a.dim, DIM_STEP);
    CHECK_INT(a.nrows, ds->cube->metrics[0].ntargets);
    CHECK_INT(a.sel_target, ds->cube->metrics[0].targets[0]);

    CHECK_INT(session_set_regex(&a, "fc2", &err), 0);
    CHECK_INT(a.nrows, 8 * 2);
    CHECK_INT(session_set_regex(&a, "fc2(", &err), -1);
    CHECK_CONTAINS(err.msg, "column");
    CHECK_INT(a.nrows, 16);                         /* the old filter stays */
    CHECK_STR(a.regex, "fc2");
    /* The selection moved onto a row that passes. */
    CHECK(session_row_of(&a, cube_local_target(a.cube, 0, a.sel_target)) >= 0);

    CHECK_INT(session_goto(&a, "layers.5.mlp.linear_fc2.RowParallelLinear.output", &err), 0);
    CHECK_STR(names_str(a.cube->names, a.sel_target), DEMO_BURST_TARGET);
    CHECK_INT(session_goto(&a, "fc2", &err), -1);
    CHECK_CONTAINS(err.msg, "16 targets contain 'fc2'");
    CHECK_INT(session_goto(&a, "layers.1.input_layernorm", &err), -1);
    CHECK_CONTAINS(err.msg, "hidden by the filter");
    CHECK_INT(session_goto(&a, "linear_qkv.ColumnParallelLinear.weight", &err), -1);
    CHECK_CONTAINS(err.msg, "parameters_grad");
    CHECK_INT(session_set_regex(&a, "", &err), 0);
    CHECK_INT(a.nrows, ds->cube->metrics[0].ntargets);

    /* Selecting the burst cell; then the module dim shows that target. */
    CHECK_INT(session_goto(&a, DEMO_BURST_TARGET, &err), 0);
    session_select(&a, cube_step_find(a.cube, 9), cube_rank_find(a.cube, 5), NAMES_NONE);
    CHECK_INT(a.dimval, 9);
    session_set_dim(&a, DIM_TARGET, -1);
    CHECK_INT(a.dimval, (int)cube_local_target(a.cube, 0, a.sel_target));
    session_set_dim(&a, DIM_RANK, -1);
    CHECK_INT(a.dimval, 5);
    /* Another metric: the target is kept where it exists. */
    uint32_t keep = a.sel_target;
    CHECK_INT(session_set_metric(&a, 1, -1), 0);
    CHECK_INT(a.sel_target, keep);
    CHECK_INT(a.nrows, ds->cube->metrics[1].ntargets);
    CHECK_INT(session_set_metric(&a, 2, 3), 0);
    CHECK_INT(a.stat, 3);
    CHECK(a.sel_target != keep);                    /* parameters_grad has no activations */
    CHECK_INT(session_set_metric(&a, 7, -1), -1);

    char buf[64];
    CHECK_STR(session_rank_label(&a, 3, buf, sizeof buf), "3");
    free(a.rows);
    free(a.regex);
    free(a.regex_mask);
    search_free(&a.re);
}

int main(void) {
    struct pt_error err;
    if (loader_demo(0, 0, &ds, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    RUN(shape);
    RUN(burst);
    RUN(drift);
    RUN(big);
    RUN(app_logic);
    dataset_free(ds);
    PT_DONE();
}
