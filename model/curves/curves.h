/* curves: the scalar series of one training run -- loss, grad norm, loss
 * scale, learning rate, throughput... against the training step -- as a
 * training log, a TensorBoard event file or a CSV/JSONL export holds them.
 * Plain data: the curve readers fill it, model/curves/curves_cube.c lays it out as a
 * cube, the classification of a problem run against its benchmark reads
 * two of them.
 *
 * A series keeps the name its source gives it ("lm loss", "grad-norm",
 * "actor/pg_loss") and a role (curves_role_of) under which the series of
 * two sources of different kinds meet: a Megatron log's "lm loss" and an
 * event file's "lm-loss" are both CURVES_LOSS.  Values are doubles as
 * read (NaN and infinities kept: they are findings); points are in the
 * order read, and curves_finish() sorts each series by step, keeping the
 * last value of a step logged twice (a restarted run logs its steps
 * again). */
#ifndef PT_MODEL_CURVES_H
#define PT_MODEL_CURVES_H

#include <stddef.h>
#include <stdint.h>

enum curves_role {
    CURVES_OTHER = 0,
    CURVES_LOSS,           /* lm loss, loss, actor/pg_loss... */
    CURVES_GRAD_NORM,      /* grad norm, global_norm, actor/grad_norm */
    CURVES_LOSS_SCALE,
    CURVES_LR,             /* learning rate */
    CURVES_THROUGHPUT,     /* tokens or samples per second, TFLOPs, time per iteration */
    CURVES_SKIPPED,        /* number of skipped iterations (per logging interval) */
    CURVES_NAN_ITERS,      /* number of nan iterations (per logging interval) */
    CURVES_LOGP_DIFF,      /* RL: training/rollout probability or log-prob difference */
    CURVES_REWARD,         /* RL: critic/score/mean, reward */
    CURVES_NROLES
};

struct curves_point {
    int64_t step;
    double value;
};

struct curves_series {
    char *name;                    /* as the source names it (owned) */
    enum curves_role role;
    struct curves_point *pts;      /* owned; sorted by step after curves_finish() */
    size_t n, cap;
};

struct curves {
    struct curves_series *series;  /* owned, in the order first met */
    size_t nseries, cap;
    int64_t first_step, last_step; /* over every series (curves_finish); 0, -1 when empty */
};

struct curves *curves_new(void);
void curves_free(struct curves *c);

/* The series named name (created, with its role, on first use); NULL
 * without memory.  Names compare exactly. */
struct curves_series *curves_series(struct curves *c, const char *name);
/* The first series of a role, or NULL. */
const struct curves_series *curves_find_role(const struct curves *c, enum curves_role role);
const struct curves_series *curves_find(const struct curves *c, const char *name);

/* Appends a point; 0, or -1 without memory. */
int curves_push(struct curves_series *s, int64_t step, double value);

/* Sorts every series by step (a step given twice keeps its last value)
 * and sets first_step / last_step.  0, or -1 without memory. */
int curves_finish(struct curves *c);

/* The value at step, by binary search in a finished series; 0 when the
 * series has no point there (*v untouched), 1 found. */
int curves_value_at(const struct curves_series *s, int64_t step, double *v);

/* The role a series name plays (case and the separators ' ', '-', '_'
 * ignored: "lm loss", "lm-loss", "LM_Loss" are one); CURVES_OTHER when
 * none. */
enum curves_role curves_role_of(const char *name);
/* "loss", "grad_norm", "loss_scale", "lr", "throughput", "skipped",
 * "nan_iterations", "logp_diff", "reward", "other". */
const char *curves_role_name(enum curves_role role);

#endif
