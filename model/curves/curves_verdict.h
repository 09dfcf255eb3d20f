/* curves_verdict: the accuracy-debugging guide's first look at a run, in
 * one place -- a problem run's curves against its benchmark's (or one run
 * alone), aligned on the training step: the first misaligned step of the
 * loss, whether the runs differ from the start or drift apart later and
 * how the error grows, spikes of loss and grad norm, non-finite values,
 * skipped and NaN iterations, loss-scale drops, which of grad norm and
 * loss went wrong first, RL's probability difference and reward, and from
 * all of it the guide's category and the passes of which steps to dump
 * next.  The rules, with their thresholds: probetop-rules(7), TRAINING
 * CURVES.  Plain data over two struct curves (finished); the names in the
 * result point into them. */
#ifndef PT_CURVES_VERDICT_H
#define PT_CURVES_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "model/curves/curves.h"

#define CURVES_NO_STEP INT64_MIN

struct curves_verdict_opts {
    double threshold;     /* relative error |p-b|/|b| above which a step is misaligned (0.01) */
    int window;           /* steps it must stay above (3): one or two noisy steps are no misalignment */
    double spike_loss;    /* a loss value above median x this is a spike (1.2) */
    double spike_grad;    /* a grad norm above median x this (2.0) */
    int median_span;      /* the rolling median: of the previous this many finite points (9) */
    int back_span;        /* "falls back": below the bar again within this many points (5) */
    double logp_limit;    /* RL: a logp_diff / probability difference above this is flagged (0.01) */
};

void curves_verdict_defaults(struct curves_verdict_opts *o);

struct curves_spike {
    const char *series;
    enum curves_role role;
    int64_t step;
    double value, median;
    int back;             /* 1 fell back within back_span points (a spike), 0 stayed up (a jump) */
};

struct curves_nonfinite {
    const char *series;
    int64_t step;
    double value;         /* NaN, +Inf or -Inf */
};

struct curves_scale_drop {
    int64_t step;
    double from, to;
};

/* One run's findings, with or without a benchmark. */
struct curves_run_report {
    struct curves_spike *spikes;          /* loss and grad-norm series, in step order per series */
    size_t nspikes, spike_steps;          /* spike_steps: distinct steps */
    struct curves_nonfinite *nonfinite;   /* every series */
    size_t nnonfinite, nonfinite_steps;   /* nonfinite_steps: distinct steps, with those of nan iterations > 0 */
    struct curves_scale_drop *drops;
    size_t ndrops;
    double skipped, nan_iters;            /* sums of the counts logged; -1 when the run logs none */
    size_t overflow_steps;                /* distinct steps with skipped > 0 or a loss-scale drop */
    int64_t first_loss_bad, first_grad_bad;   /* first abnormal step of loss / grad norm: a spike, a
                                                 non-finite value or (benchmark) misalignment */
    const char *came_first;               /* "grad_norm", "loss", "same" or NULL (one or none abnormal) */
    const char *logp_series;              /* RL: the first series over logp_limit, NULL none */
    int64_t logp_step;
    double logp_value;
    size_t logp_over;                     /* points over logp_limit */
};

enum curves_verdict_kind {
    CURVES_ALIGNED = 0,        /* nothing (with a benchmark) / "clean" (one run) */
    CURVES_FROM_START,         /* misaligned from the first common step */
    CURVES_LOSS_JUMP,          /* the loss jumps at N (a spike, or the error crossing at once) */
    CURVES_GRAD_JUMP,          /* the grad norm jumps at N, the loss after */
    CURVES_DRIFT,              /* aligned first, then apart little by little */
    CURVES_NAN,                /* non-finite values / NaN or skipped iterations (more than the benchmark) */
    CURVES_SPIKES,             /* more spike steps than the benchmark, no misalignment */
    CURVES_RL_LOGP,            /* RL: training/rollout probability difference over the limit */
    CURVES_RL_REWARD,          /* RL: reward below the benchmark's */
    CURVES_NKINDS
};

struct curves_dump_pass {
    int64_t step;
    const char *pass;          /* "forward" or "backward" */
};

struct curves_verdict {
    int has_bench;
    struct curves_run_report problem, bench;
    /* the loss compared (with a benchmark): names, steps in common */
    const char *loss_p, *loss_b;
    size_t common;
    int misaligned;                /* first_* valid */
    const char *mis_series;        /* the problem's loss series */
    int64_t mis_step;
    double mis_rel;                /* may be +Inf (one value non-finite, or b = 0) */
    int64_t grad_mis_step;         /* the grad norm's own first misaligned step, CURVES_NO_STEP none */
    /* how the error grows over the common steps */
    int64_t first_common;
    double rel_first, rel_last, rel_max;
    int64_t rel_max_step;
    int from_start;                /* misaligned at the first common step */
    /* RL reward below the benchmark (by the threshold, held for the window) */
    int reward_below;
    int64_t reward_step;
    double reward_rel;
    enum curves_verdict_kind kind;
    int64_t at;                    /* the step the verdict is about, CURVES_NO_STEP none */
    char why[320];                 /* one sentence */
    struct curves_dump_pass dump[2];
    size_t ndump;
    int found;                     /* the command's exit 1: kind != CURVES_ALIGNED */
};

/* "aligned" ("clean" without a benchmark), "misaligned_from_start",
 * "loss_jump", "grad_norm_jump", "long_term_drift", "nan_overflow",
 * "spikes", "rl_logp_diff", "rl_reward_below". */
const char *curves_verdict_name(const struct curves_verdict *v);

/* Classifies problem (and bench, NULL for one run) under o (NULL: the
 * defaults).  Both finished (curves_finish).  0, or -1 without memory
 * (*v then freed).  curves_verdict_free() after. */
int curves_verdict_run(const struct curves *problem, const struct curves *bench,
                       const struct curves_verdict_opts *o, struct curves_verdict *v);
void curves_verdict_free(struct curves_verdict *v);

/* The relative error of p against b: |p-b|/|b|; 0 when both are equal
 * (0 and 0 too), +Inf when b is 0 and p is not or either is not finite
 * (both NaN: 0). */
double curves_verdict_rel(double p, double b);

#endif
