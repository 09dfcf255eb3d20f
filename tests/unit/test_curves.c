/* test_curves: the series store of a training run (model/curves/curves.h):
 * the roles of the names Megatron-LM/MindSpeed, MindFormers, verl and
 * TensorBoard give their series; curves_finish's sort (stable: a step
 * logged twice keeps its last value) and first/last step; curves_value_at;
 * and the cube a run lays out as (model/curves/curves_cube.h). */
#include "pt_test.h"
#include "pt_cube.h"

#include <math.h>

#include "model/curves/curves.h"
#include "model/curves/curves_cube.h"

struct role_case { const char *name; enum curves_role role; };

static void test_roles(void) {
    static const struct role_case cases[] = {
        /* Megatron-LM / MindSpeed log lines */
        {"lm loss", CURVES_LOSS},
        {"loss scale", CURVES_LOSS_SCALE},
        {"grad norm", CURVES_GRAD_NORM},
        {"learning rate", CURVES_LR},
        {"number of skipped iterations", CURVES_SKIPPED},
        {"number of nan iterations", CURVES_NAN_ITERS},
        {"elapsed time per iteration (ms)", CURVES_THROUGHPUT},
        {"throughput per GPU (TFLOP/s/GPU)", CURVES_THROUGHPUT},
        {"params norm", CURVES_OTHER},
        {"num zeros", CURVES_OTHER},
        {"consumed samples", CURVES_OTHER},
        {"global batch size", CURVES_OTHER},
        /* Megatron's TensorBoard tags */
        {"lm-loss", CURVES_LOSS},
        {"LM_Loss", CURVES_LOSS},
        {"grad-norm", CURVES_GRAD_NORM},
        {"loss-scale", CURVES_LOSS_SCALE},
        {"learning-rate", CURVES_LR},
        {"iteration-time", CURVES_THROUGHPUT},
        {"lm loss vs samples", CURVES_LOSS},
        {"params-norm", CURVES_OTHER},
        {"batch-size", CURVES_OTHER},
        /* MindFormers */
        {"loss", CURVES_LOSS},
        {"global_norm", CURVES_GRAD_NORM},
        {"lr", CURVES_LR},
        {"loss_scale", CURVES_LOSS_SCALE},
        {"per_step_time", CURVES_THROUGHPUT},
        /* verl */
        {"actor/pg_loss", CURVES_LOSS},
        {"actor/grad_norm", CURVES_GRAD_NORM},
        {"actor/lr", CURVES_LR},
        {"critic/score/mean", CURVES_REWARD},
        {"critic/rewards/mean", CURVES_REWARD},
        {"training/rollout_probs_diff_max", CURVES_LOGP_DIFF},
        {"actor/logp_diff", CURVES_LOGP_DIFF},
        {"perf/throughput", CURVES_THROUGHPUT},
        {"actor/entropy", CURVES_OTHER},
        {"actor/pg_clipfrac", CURVES_OTHER},
        {"response_length/mean", CURVES_OTHER},
        /* verl logs these before actor/pg_loss and critic/score: were they
         * loss and reward, the run's loss would be the KL term */
        {"actor/kl_loss", CURVES_OTHER},
        {"actor/kl_coef", CURVES_OTHER},
        {"actor/reward_kl_penalty", CURVES_OTHER},
        {"actor/reward_kl_penalty_coeff", CURVES_OTHER},
        /* generic */
        {"train/loss", CURVES_LOSS},
        {"Loss/train", CURVES_LOSS},
        {"tokens/sec", CURVES_THROUGHPUT},
        {"global_step", CURVES_OTHER},
        {"", CURVES_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        enum curves_role r = curves_role_of(cases[i].name);
        if (r != cases[i].role)
            fprintf(stderr, "role of '%s': %s, expected %s\n", cases[i].name, curves_role_name(r),
                    curves_role_name(cases[i].role));
        CHECK_INT(r, cases[i].role);
    }
    CHECK_STR(curves_role_name(CURVES_GRAD_NORM), "grad_norm");
    CHECK_STR(curves_role_name(CURVES_NROLES), "other");
    char longname[600];
    memset(longname, 'x', sizeof longname - 5);
    strcpy(longname + sizeof longname - 5, "loss");
    CHECK_INT(curves_role_of(longname), CURVES_OTHER);   /* cut at 255: never reads past */
}

static void test_finish(void) {
    struct curves *c = curves_new();
    CHECK(c != NULL);
    CHECK_INT(c->last_step, -1);
    CHECK_INT(curves_finish(c), 0);   /* empty */
    CHECK_INT(c->first_step, 0);
    CHECK_INT(c->last_step, -1);
    struct curves_series *a = curves_series(c, "lm loss");
    CHECK(a != NULL && a->role == CURVES_LOSS);
    CHECK(curves_series(c, "lm loss") == a);   /* found again, not made twice */
    /* out of order, step 3 logged twice (a restart): the last one stays */
    int64_t steps[] = {5, 3, 4, 1, 3, 2};
    double vals[] = {5.0, 3.0, 4.0, 1.0, 3.5, 2.0};
    for (int i = 0; i < 6; i++) CHECK_INT(curves_push(a, steps[i], vals[i]), 0);
    struct curves_series *g = curves_series(c, "grad norm");
    CHECK_INT(curves_push(g, 7, NAN), 0);
    CHECK_INT(curves_push(g, 0, 1.0), 0);
    curves_series(c, "empty");
    CHECK_INT(curves_finish(c), 0);
    a = (struct curves_series *)curves_find(c, "lm loss");
    CHECK_INT(a->n, 5);
    for (size_t i = 0; i < a->n; i++) CHECK_INT(a->pts[i].step, (int64_t)i + 1);
    CHECK_NEAR(a->pts[2].value, 3.5, 0);
    CHECK_INT(c->first_step, 0);
    CHECK_INT(c->last_step, 7);
    double v = -1;
    CHECK_INT(curves_value_at(a, 3, &v), 1);
    CHECK_NEAR(v, 3.5, 0);
    v = -1;
    CHECK_INT(curves_value_at(a, 0, &v), 0);
    CHECK_INT(curves_value_at(a, 6, &v), 0);
    CHECK_NEAR(v, -1, 0);   /* untouched */
    CHECK_INT(curves_value_at(curves_find(c, "empty"), 1, &v), 0);
    CHECK_INT(curves_value_at(curves_find(c, "grad norm"), 7, &v), 1);
    CHECK(isnan(v));
    CHECK(curves_find_role(c, CURVES_GRAD_NORM) == curves_find(c, "grad norm"));
    CHECK(curves_find_role(c, CURVES_LR) == NULL);
    CHECK(curves_find(c, "nope") == NULL);
    curves_free(c);
    curves_free(NULL);
}

/* Many points in reverse and with repeats: the merge sort's stability on a
 * long series (each step pushed twice; the second value must stay). */
static void test_finish_long(void) {
    struct curves *c = curves_new();
    struct curves_series *s = curves_series(c, "loss");
    for (int64_t i = 9999; i >= 0; i--) {
        curves_push(s, i, (double)i);
        curves_push(s, i, (double)i + 0.5);
    }
    CHECK_INT(curves_finish(c), 0);
    CHECK_INT(s->n, 10000);
    int ok = 1;
    for (size_t i = 0; i < s->n; i++) ok &= s->pts[i].step == (int64_t)i && s->pts[i].value == (double)i + 0.5;
    CHECK(ok);
    CHECK_INT(c->first_step, 0);
    CHECK_INT(c->last_step, 9999);
    curves_free(c);
}

static void test_cube(void) {
    struct curves *c = curves_new();
    struct curves_series *l = curves_series(c, "lm loss"), *g = curves_series(c, "grad norm");
    curves_push(l, 1, 5.5);
    curves_push(l, 2, 5.25);
    curves_push(l, -3, 9.0);                /* outside the cube's steps */
    curves_push(l, (int64_t)1 << 40, 1.0);  /* too */
    curves_push(g, 2, NAN);
    curves_push(g, 4, 1.5);
    CHECK_INT(curves_finish(c), 0);
    struct dataset ds = {0};
    struct pt_error err = {0};
    size_t dropped = 99;
    CHECK_INT(curves_cube_build(c, &ds.cube, &dropped, &err), 0);
    CHECK_INT(dropped, 2);
    CHECK_NEAR(pt_cube_value(&ds, "curve", "value", "lm loss", 0, 1, 0), 5.5, 0);
    CHECK_NEAR(pt_cube_value(&ds, "curve", "value", "lm loss", 0, 2, 0), 5.25, 0);
    CHECK_NEAR(pt_cube_value(&ds, "curve", "value", "grad norm", 0, 4, 0), 1.5, 0);
    CHECK(isnan(pt_cube_value(&ds, "curve", "value", "grad norm", 0, 2, 0)));
    CHECK(cube_is_missing(pt_cube_value(&ds, "curve", "value", "grad norm", 0, 1, 0)));
    CHECK(cube_step_find(ds.cube, 3) < 0);   /* no series has step 3 */
    CHECK(cube_step_find(ds.cube, 4) >= 0);
    cube_free(ds.cube);
    /* an empty run: a cube with no step, no failure */
    struct curves *e = curves_new();
    curves_finish(e);
    struct cube *ec = NULL;
    CHECK_INT(curves_cube_build(e, &ec, NULL, &err), 0);
    cube_free(ec);
    curves_free(e);
    curves_free(c);
}

/* More points in all than the cube has steps (4 series x 300000 steps: it
 * was refused, each point declaring its step), and more distinct steps than
 * it has (1500000: every second kept, the curves whole). */
static void test_cube_many(void) {
    struct curves *c = curves_new();
    const char *names[] = {"lm loss", "grad norm", "loss scale", "learning rate"};
    for (int k = 0; k < 4; k++) {
        struct curves_series *s = curves_series(c, names[k]);
        for (int i = 0; i < 300000; i++) curves_push(s, i, 1.0 + k);
    }
    CHECK_INT(curves_finish(c), 0);
    struct cube *cube = NULL;
    struct pt_error err = {0};
    size_t dropped = 99;
    CHECK_INT(curves_cube_build(c, &cube, &dropped, &err), 0);
    if (!cube) fprintf(stderr, "%s\n", err.msg);
    CHECK_INT(cube ? cube->nsteps : -1, 300000);
    CHECK_INT(dropped, 0);
    cube_free(cube);
    curves_free(c);

    c = curves_new();
    struct curves_series *s = curves_series(c, "loss");
    for (int i = 0; i < 1500000; i++) curves_push(s, i, 2.0);
    curves_series(c, "empty");
    CHECK_INT(curves_finish(c), 0);
    cube = NULL;
    CHECK_INT(curves_cube_build(c, &cube, &dropped, &err), 0);
    CHECK_INT(cube ? cube->nsteps : -1, 750000);
    CHECK_INT(dropped, 750000);
    CHECK_INT(s->n, 1500000);
    if (cube) {
        CHECK_INT(cube->steps[0].value, 0);
        CHECK_INT(cube->steps[1].value, 2);
        CHECK_INT(cube->steps[0].micro, -1);
    }
    cube_free(cube);
    curves_free(c);
}

int main(void) {
    RUN(test_roles);
    RUN(test_finish);
    RUN(test_finish_long);
    RUN(test_cube);
    RUN(test_cube_many);
    PT_DONE();
}
