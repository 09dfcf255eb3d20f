/* test_curves_verdict: the guide's classification of a problem run against
 * its benchmark (model/curves/curves_verdict.h, probetop-rules(7), TRAINING
 * CURVES) on generated series: aligned runs, a run misaligned from step 0,
 * a drifting run, a loss jump, a grad-norm jump before the loss, a NaN
 * iteration, a spike, RL's logp_diff and reward, one run alone, and the
 * options (threshold, window). */
#include "pt_test.h"

#include <math.h>

#include "model/curves/curves.h"
#include "model/curves/curves_verdict.h"

/* A smooth descending loss with a little deterministic noise (+-0.2 %),
 * and a grad norm around 1.5. */
static double base_loss(int s) { return 8.0 * exp(-s / 60.0) + 2.0 + 0.004 * sin(s * 1.7); }
static double base_grad(int s) { return 1.5 + 0.1 * sin(s * 0.9); }

static struct curves *run(int n, double (*loss)(int), double (*grad)(int)) {
    struct curves *c = curves_new();
    struct curves_series *l = curves_series(c, "lm loss"), *g = curves_series(c, "grad norm");
    for (int s = 0; s < n; s++) {
        curves_push(l, s, loss ? loss(s) : base_loss(s));
        curves_push(g, s, grad ? grad(s) : base_grad(s));
    }
    return c;
}

static struct curves *fin(struct curves *c) {
    curves_finish(c);
    return c;
}

static void check_dump(const struct curves_verdict *v, size_t n, int64_t s0, const char *p0, int64_t s1, const char *p1) {
    CHECK_INT(v->ndump, n);
    if (n > 0 && v->ndump > 0) { CHECK_INT(v->dump[0].step, s0); CHECK_STR(v->dump[0].pass, p0); }
    if (n > 1 && v->ndump > 1) { CHECK_INT(v->dump[1].step, s1); CHECK_STR(v->dump[1].pass, p1); }
}

static void test_aligned(void) {
    struct curves *p = fin(run(100, NULL, NULL)), *b = fin(run(100, NULL, NULL));
    /* the problem 0.5 % off everywhere: under the 1 % threshold */
    struct curves_series *l = (struct curves_series *)curves_find(p, "lm loss");
    for (size_t i = 0; i < l->n; i++) l->pts[i].value *= 1.005;
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "aligned");
    CHECK_INT(v.found, 0);
    CHECK_INT(v.misaligned, 0);
    CHECK_INT(v.common, 100);
    CHECK_NEAR(v.rel_max, 0.005, 1e-9);
    CHECK_INT(v.problem.nspikes, 0);
    CHECK_INT(v.problem.nnonfinite, 0);
    CHECK_INT(v.ndump, 0);
    CHECK_STR(v.loss_p, "lm loss");
    curves_verdict_free(&v);
    /* one run alone: clean */
    CHECK_INT(curves_verdict_run(b, NULL, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "clean");
    CHECK_INT(v.found, 0);
    curves_verdict_free(&v);
    curves_free(p);
    curves_free(b);
}

static double loss_from0(int s) { return base_loss(s) * 1.03; }

static void test_from_start(void) {
    struct curves *p = fin(run(50, loss_from0, NULL)), *b = fin(run(50, NULL, NULL));
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "misaligned_from_start");
    CHECK_INT(v.misaligned, 1);
    CHECK_INT(v.mis_step, 0);
    CHECK_NEAR(v.mis_rel, 0.03, 1e-9);
    CHECK_INT(v.from_start, 1);
    CHECK_INT(v.found, 1);
    check_dump(&v, 1, 0, "forward", 0, NULL);
    curves_verdict_free(&v);
    curves_free(p);
    curves_free(b);
}

/* apart by 0.02 % per step from step 40: over 1 % from step 90 */
static double loss_drift(int s) { return base_loss(s) * (1 + (s > 40 ? 0.0002 * (s - 40) : 0)); }

static void test_drift(void) {
    struct curves *p = fin(run(200, loss_drift, NULL)), *b = fin(run(200, NULL, NULL));
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "long_term_drift");
    CHECK_INT(v.mis_step, 91);   /* 0.0002 * 51 = 1.02 % */
    CHECK_INT(v.from_start, 0);
    CHECK_NEAR(v.rel_first, 0, 1e-12);
    CHECK_NEAR(v.rel_last, 0.0002 * 159, 1e-9);
    CHECK_INT(v.rel_max_step, 199);
    CHECK_INT(v.problem.nspikes, 0);
    check_dump(&v, 2, 91, "forward", 91, "backward");
    curves_verdict_free(&v);
    curves_free(p);
    curves_free(b);
}

/* the loss jumps by 30 % at step 60 and stays */
static double loss_jump(int s) { return base_loss(s) * (s >= 60 ? 1.3 : 1); }

static void test_loss_jump(void) {
    struct curves *p = fin(run(100, loss_jump, NULL)), *b = fin(run(100, NULL, NULL));
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "loss_jump");
    CHECK_INT(v.mis_step, 60);
    CHECK_INT(v.at, 60);
    check_dump(&v, 2, 59, "backward", 60, "forward");
    CHECK_INT(v.problem.nspikes >= 1, 1);
    if (v.problem.nspikes) {
        CHECK_INT(v.problem.spikes[0].step, 60);
        CHECK_INT(v.problem.spikes[0].back, 0);   /* a jump: it stays up */
    }
    CHECK_STR(v.problem.came_first ? v.problem.came_first : "(null)", "(null)");   /* the grad norm is fine */
    curves_verdict_free(&v);
    curves_free(p);
    curves_free(b);
}

/* the grad norm jumps at 50 (x4, stays), the loss parts from 52 */
static double grad_jump(int s) { return base_grad(s) * (s >= 50 ? 4 : 1); }
static double loss_after_grad(int s) { return base_loss(s) * (s >= 52 ? 1.05 : 1); }

static void test_grad_jump(void) {
    struct curves *p = fin(run(100, loss_after_grad, grad_jump)), *b = fin(run(100, NULL, NULL));
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "grad_norm_jump");
    CHECK_INT(v.mis_step, 52);
    CHECK_INT(v.grad_mis_step, 50);
    CHECK_INT(v.at, 50);
    CHECK_STR(v.problem.came_first ? v.problem.came_first : "(null)", "grad_norm");
    check_dump(&v, 1, 50, "backward", 0, NULL);
    curves_verdict_free(&v);
    curves_free(p);
    curves_free(b);
}

/* a spike: the loss x1.5 at step 30 alone; a NaN iteration at step 70 in
 * Megatron's way (the loss left out, number of nan iterations 1), and a
 * NaN grad norm at 70 */
static void test_spike_and_nan(void) {
    struct curves *p = run(100, NULL, NULL), *b = fin(run(100, NULL, NULL));
    struct curves_series *l = (struct curves_series *)curves_find(p, "lm loss");
    struct curves_series *g = (struct curves_series *)curves_find(p, "grad norm");
    struct curves_series *ni = curves_series(p, "number of nan iterations");
    struct curves_series *ls = curves_series(p, "loss scale");
    for (int s = 0; s < 100; s++) {
        curves_push(ni, s, s == 70);
        curves_push(ls, s, s < 70 ? 65536 : 32768);
    }
    l->pts[30].value *= 1.5;
    g->pts[70].value = NAN;
    l->pts[70].value = NAN;
    fin(p);
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, NULL, NULL, &v), 0);
    CHECK_INT(v.problem.nspikes, 1);
    if (v.problem.nspikes) {
        CHECK_INT(v.problem.spikes[0].step, 30);
        CHECK_INT(v.problem.spikes[0].back, 1);
        CHECK_STR(v.problem.spikes[0].series, "lm loss");
    }
    CHECK_INT(v.problem.nnonfinite, 2);
    CHECK_INT(v.problem.nonfinite_steps, 1);
    CHECK_NEAR(v.problem.nan_iters, 1, 0);
    CHECK_NEAR(v.problem.skipped, -1, 0);
    CHECK_INT(v.problem.ndrops, 1);
    if (v.problem.ndrops) {
        CHECK_INT(v.problem.drops[0].step, 70);
        CHECK_NEAR(v.problem.drops[0].to, 32768, 0);
    }
    CHECK_INT(v.problem.first_loss_bad, 30);
    CHECK_INT(v.problem.first_grad_bad, 70);
    CHECK_STR(v.problem.came_first, "loss");
    /* alone: the spike at 30 comes first */
    CHECK_STR(curves_verdict_name(&v), "loss_jump");
    check_dump(&v, 2, 29, "backward", 30, "forward");
    curves_verdict_free(&v);
    /* against the benchmark: the NaN step is the earliest finding the
     * benchmark does not share after the spike... the spike comes first */
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "spikes");
    CHECK_INT(v.misaligned, 0);   /* one step over the threshold is no misalignment (window 3) */
    CHECK_INT(v.at, 30);
    CHECK_INT(v.found, 1);
    curves_verdict_free(&v);
    /* without the spike: NaN / overflow, grad norm NaN -> the loss's too,
     * so the forward of 70 and the backward of 69 */
    l->pts[30].value /= 1.5;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "nan_overflow");
    CHECK_INT(v.at, 70);
    CHECK_INT(v.found, 1);
    CHECK_INT(v.ndump >= 1, 1);
    curves_verdict_free(&v);
    /* window 1: that one NaN step is a misalignment too, at the same step
     * as the NaN, and NaN wins the tie */
    struct curves_verdict_opts o;
    curves_verdict_defaults(&o);
    o.window = 1;
    CHECK_INT(curves_verdict_run(p, b, &o, &v), 0);
    CHECK_INT(v.mis_step, 70);
    CHECK_STR(curves_verdict_name(&v), "nan_overflow");
    curves_verdict_free(&v);
    curves_free(p);
    curves_free(b);
}

/* the threshold and window as options; an error over the threshold for 2
 * steps only */
static double loss_blip(int s) { return base_loss(s) * (s == 40 || s == 41 ? 1.02 : 1.0); }

static void test_options(void) {
    struct curves *p = fin(run(80, loss_blip, NULL)), *b = fin(run(80, NULL, NULL));
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_INT(v.misaligned, 0);   /* 2 < window 3 */
    curves_verdict_free(&v);
    struct curves_verdict_opts o;
    curves_verdict_defaults(&o);
    o.window = 2;
    CHECK_INT(curves_verdict_run(p, b, &o, &v), 0);
    CHECK_INT(v.misaligned, 1);
    CHECK_INT(v.mis_step, 40);
    curves_verdict_free(&v);
    o.window = 2;
    o.threshold = 0.05;
    CHECK_INT(curves_verdict_run(p, b, &o, &v), 0);
    CHECK_INT(v.misaligned, 0);
    curves_verdict_free(&v);
    CHECK_NEAR(curves_verdict_rel(1.01, 1.0), 0.01, 1e-12);
    CHECK(isinf(curves_verdict_rel(1, 0)));
    CHECK_NEAR(curves_verdict_rel(0, 0), 0, 0);
    CHECK(isinf(curves_verdict_rel(NAN, 1)));
    CHECK_NEAR(curves_verdict_rel(NAN, NAN), 0, 0);
    curves_free(p);
    curves_free(b);
}

static void test_rl(void) {
    struct curves *p = curves_new(), *b = curves_new();
    struct curves_series *pd = curves_series(p, "training/rollout_probs_diff_max");
    struct curves_series *pr = curves_series(p, "critic/score/mean"), *br = curves_series(b, "critic/score/mean");
    for (int s = 1; s <= 40; s++) {
        curves_push(pd, s, s >= 25 ? 0.03 : 0.004);
        curves_push(pr, s, 0.2 + 0.01 * s - (s >= 10 ? 0.05 : 0));
        curves_push(br, s, 0.2 + 0.01 * s);
    }
    fin(p);
    fin(b);
    struct curves_verdict v;
    CHECK_INT(curves_verdict_run(p, b, NULL, &v), 0);
    CHECK_INT(v.reward_below, 1);
    CHECK_INT(v.reward_step, 10);
    CHECK_STR(v.problem.logp_series, "training/rollout_probs_diff_max");
    CHECK_INT(v.problem.logp_step, 25);
    CHECK_INT(v.problem.logp_over, 16);
    CHECK_STR(curves_verdict_name(&v), "rl_reward_below");   /* 10 before 25 */
    CHECK_INT(v.misaligned, 0);                              /* no loss series */
    curves_verdict_free(&v);
    CHECK_INT(curves_verdict_run(p, NULL, NULL, &v), 0);
    CHECK_STR(curves_verdict_name(&v), "rl_logp_diff");
    check_dump(&v, 1, 25, "forward", 0, NULL);
    curves_verdict_free(&v);
    curves_free(p);
    curves_free(b);
}

int main(void) {
    RUN(test_aligned);
    RUN(test_from_start);
    RUN(test_drift);
    RUN(test_loss_jump);
    RUN(test_grad_jump);
    RUN(test_spike_and_nan);
    RUN(test_options);
    RUN(test_rl);
    PT_DONE();
}
