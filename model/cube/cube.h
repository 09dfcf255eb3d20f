/* cube: the step x rank x target x metric x statistic values.
 *
 * Values are float32 in one dense block per metric, laid out
 * [stat][local target][step][rank], where a metric's local targets are the
 * targets that have data in it (ascending target id).  A cell with no data
 * holds CUBE_MISSING, a NaN whose payload no arithmetic or parser produces,
 * so missing stays distinct from NaN, +Inf and -Inf (which are kept raw).
 * A cell whose row describes no tensor (a monitor placeholder row, a
 * .trend.db target NULL on every step and rank; probetop-rules(7),
 * OVERFLOW LEVELS) holds CUBE_NOTENSOR, another such payload: it is
 * missing data to every query (cube_is_missing is true for it), and only
 * the heat map tells it apart (cube_is_notensor) to draw "no tensor".
 * Values beyond float32's range are clamped to +-FLT_MAX rather than turned
 * into infinities, so an Inf in the cube was an Inf in the data.
 *
 * Axes: steps are the distinct step values of the data (global micro steps
 * when the dataset was loaded in micro-step mode), ascending; ranks the
 * distinct rank numbers, ascending.  The builder collects rows in any order
 * and lays them out once in cube_builder_finish(). */
#ifndef PT_CUBE_H
#define PT_CUBE_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/err.h"
#include "model/cube/names.h"

#define CUBE_MISSING_BITS 0x7fa0dead
#define CUBE_NOTENSOR_BITS 0x7fa0deac   /* differs from CUBE_MISSING_BITS in the last bit only */

static inline float cube_missing(void) {
    uint32_t b = CUBE_MISSING_BITS;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static inline float cube_notensor(void) {
    uint32_t b = CUBE_NOTENSOR_BITS;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
/* Missing data: no row, or a row describing no tensor. */
static inline int cube_is_missing(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return (b | 1u) == CUBE_MISSING_BITS;
}
static inline int cube_is_notensor(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b == CUBE_NOTENSOR_BITS;
}

#define CUBE_MAX_STATS 16

/* A value as the cube keeps it: float32 keeps Inf and NaN; finite values
 * beyond its range saturate so that an Inf in the cube always was an Inf in
 * the data; a NaN is the canonical one, never the missing payload. */
static inline float cube_to_f32(double v) {
    if (v > FLT_MAX && isfinite(v)) return FLT_MAX;
    if (v < -FLT_MAX && isfinite(v)) return -FLT_MAX;
    if (isnan(v)) return NAN;
    return (float)v;
}

struct cube_lazy;

struct cube_metric {
    char *name;                    /* "forward", "actv", ... */
    int nstats;
    char *stats[CUBE_MAX_STATS];   /* "norm", "max", ... in display order */
    uint32_t ntargets;             /* local targets */
    uint32_t *targets;             /* local -> global target id, ascending */
    float *vals;                   /* nstats * ntargets * nsteps * nranks; NULL while lazy */
};

struct cube_step {
    int32_t value;     /* the step axis value (global micro step or step number) */
    int32_t origin;    /* step directory / CSV step it came from */
    int32_t micro;     /* micro step inside origin, -1 when not in micro mode */
};

struct cube {
    int nsteps;
    struct cube_step *steps;
    int nranks;
    int32_t *ranks;
    int nmetrics;
    struct cube_metric *metrics;
    struct names *names;           /* owned */
    struct cube_lazy *lazy;        /* owned; NULL: dense (model/cube/cube_lazy.h) */
};

/* Dimension a heat map is cut along (probetop-rules(7), HEAT MAP SCALE). */
enum cube_dim { DIM_STEP, DIM_RANK, DIM_TARGET };

static inline size_t cube_index(const struct cube *c, const struct cube_metric *m,
                                int stat, uint32_t lt, int step, int rank) {
    return (((size_t)stat * m->ntargets + lt) * (size_t)c->nsteps + (size_t)step) * (size_t)c->nranks + (size_t)rank;
}
/* A lazy cube's cell (model/cube/cube_lazy.h): from its cache or its source. */
float cube_lazy_get(const struct cube *c, int metric, int stat, uint32_t lt, int step, int rank);
static inline float cube_get(const struct cube *c, int metric, int stat, uint32_t lt, int step, int rank) {
    const struct cube_metric *m = &c->metrics[metric];
    if (!m->vals) return cube_lazy_get(c, metric, stat, lt, step, rank);
    return m->vals[cube_index(c, m, stat, lt, step, rank)];
}

void cube_free(struct cube *c);

/* Lookups; -1 (or UINT32_MAX for targets) when absent. */
int cube_metric_find(const struct cube *c, const char *name);
int cube_stat_find(const struct cube *c, int metric, const char *name);
int cube_step_find(const struct cube *c, int32_t value);

/* The one way a step is written for the user (axes, status lines, panes,
 * messages): the training step, with its micro step after a dot when micro
 * steps are on ("12.0", "12.3"); micro < 0 gives "12".  The step axis
 * keeps its own numbering (cube_step.value) inside; a step folder opened
 * alone still says its own step.  Returns buf. */
char *step_text(int32_t step, int32_t micro, char *buf, size_t n);
/* 1 when some step of c has a micro step beyond the first: only then are
 * micro steps written (a run of one micro-batch per step says "12"). */
int cube_has_micro(const struct cube *c);
/* step_text of step index i of c. */
char *cube_step_text(const struct cube *c, int i, char *buf, size_t n);
/* The step index of what the user wrote as step_text writes it ("12.3"),
 * or a training step alone ("12": its first micro step).  -1 no such step,
 * -2 not a step number. */
int cube_step_parse(const struct cube *c, const char *text);
int cube_rank_find(const struct cube *c, int32_t rank);
/* The local index of a global target id in metric (its place in the
 * metric's ascending targets[]); inline: the lazy cube's cache and the
 * panes look targets up per cell. */
static inline uint32_t cube_local_target(const struct cube *c, int metric, uint32_t target) {
    if (metric < 0 || metric >= c->nmetrics) return UINT32_MAX;
    const struct cube_metric *m = &c->metrics[metric];
    uint32_t lo = 0, hi = m->ntargets;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->targets[mid] == target) return mid;
        if (m->targets[mid] < target) lo = mid + 1; else hi = mid;
    }
    return UINT32_MAX;
}

/* A 2-D cut: the cell at (x, y) is base[x * sx + y * sy].
 *   DIM_STEP  (value = step index):   x = rank index, y = local target
 *   DIM_RANK  (value = rank index):   x = step index, y = local target
 *   DIM_TARGET(value = local target): x = step index, y = rank index */
struct cube_slice {
    const float *base;
    ptrdiff_t sx, sy;
    int nx, ny;
    enum cube_dim dim;
    int xshift;      /* 0; k: cells x come from base[(x >> k) * sx ...], a zoomed-out
                        slice of groups of 2^k ranks (cube_slice_zoomed) */
};
int cube_slice(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, struct cube_slice *out);
static inline float cube_slice_at(const struct cube_slice *s, int x, int y) {
    return s->base[(ptrdiff_t)(x >> s->xshift) * s->sx + (ptrdiff_t)y * s->sy];
}

/* The slice a heat map zoomed out by zx ranks per cell shows: for a lazy
 * cube (model/cube/cube_lazy.h) along DIM_STEP whose ranks are 0..n-1
 * and whose source has group summaries (a .trend.db with
 * probetop_rank_summary), while the step's exact slice is not cached and
 * zx is a multiple of 8, a slice with
 * xshift 3 or 6 read from groups of 8 or 64 ranks (a fraction of the
 * rows); its zoomed cells equal those of the exact slice (up to which of
 * two values of equal magnitude and opposite sign shows).  Otherwise
 * cube_slice(). */
int cube_slice_zoomed(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, int zx,
                      struct cube_slice *out);

/* The series through cell (x, y) of a slice along the remaining dimension
 * (msProbe's line chart): DIM_STEP -> over steps for (rank x, target y);
 * DIM_RANK -> over ranks for (step x, target y); DIM_TARGET -> over local
 * targets for (step x, rank y).  Point i is base[i * stride]. */
struct cube_series {
    const float *base;
    ptrdiff_t stride;
    int n;
};
int cube_series(const struct cube *c, int metric, int stat, enum cube_dim dim, int value,
                int x, int y, struct cube_series *out);

/* Min and max of the finite values of a slice (missing, NaN, +-Inf ignored);
 * returns how many finite values there were (0: min/max untouched). */
size_t cube_slice_range(const struct cube_slice *s, double *min, double *max);

/* Non-finite values (NaN, +Inf, -Inf; every statistic counts) of a metric,
 * restricted to one step index and/or rank index (-1 = all). */
size_t cube_count_nonfinite(const struct cube *c, int metric, int step, int rank);
/* One cell with non-finite values: vals[stat] for each statistic of the
 * metric (missing where none). */
typedef int (*cube_nonfinite_fn)(void *ctx, int metric, uint32_t lt, int step, int rank, const float *vals);

/* Calls fn for each non-finite cell (dense or lazy). */
int cube_each_nonfinite(const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn, void *ctx,
                        struct pt_error *err);

/* Present (non-missing) cells of a metric, every statistic counted. */
size_t cube_count_present(const struct cube *c, int metric);

/* A .trend.db stores NaN as NULL (probetop-formats(5), TREND.DB):
 * a local target of metric whose every present value, at every step,
 * rank and statistic, is NaN was NULL throughout -- on two steps or more,
 * a target that is no tensor (probetop-rules(7), OVERFLOW LEVELS).  Turns such targets' cells
 * into CUBE_NOTENSOR in vals (the metric's values in cube layout: its
 * dense block, or one being filled) and returns how many (step, rank)
 * rows they had. */
size_t cube_null_targets_notensor(const struct cube *c, int metric, float *vals);

/* --- building --- */
struct cube_builder;

/* The builder takes ownership of names (also on failure, at free). */
struct cube_builder *cube_builder_new(struct names *names);
void cube_builder_free(struct cube_builder *b);
struct names *cube_builder_names(struct cube_builder *b);
/* Declares a metric and its statistics; returns its index or -1. */
int cube_builder_metric(struct cube_builder *b, const char *name, int nstats, const char *const *stats);
/* Adds a statistic to an existing metric (monitor files differ in columns);
 * returns the stat index or -1. */
int cube_builder_stat(struct cube_builder *b, int metric, const char *stat);
/* One row: vals[i] for stat i where bit i of present is set.  The first
 * row for a cell wins (as msProbe's INSERT OR IGNORE).  0 ok, -1 no memory. */
int cube_builder_add(struct cube_builder *b, int metric, uint32_t target, int32_t step,
                     int32_t rank, const double *vals, uint32_t present);
/* A row that describes no tensor (probetop-rules(7), OVERFLOW LEVELS):
 * every statistic of its cell holds CUBE_NOTENSOR.  A row with values for
 * the same cell, before or after, wins over it.  0 ok, -1 no memory. */
int cube_builder_add_notensor(struct cube_builder *b, int metric, uint32_t target, int32_t step, int32_t rank);
/* Beyond any real run: a reader refuses such data with a message before it
 * allocates for it (a 73-byte CSV can claim two billion micro steps). */
#define CUBE_MAX_STEPS 1000000
#define CUBE_MAX_RANKS 1000000
/* Tells the builder that a step value comes from (origin, micro); optional.
 * -1 without memory or past CUBE_MAX_STEPS declared steps. */
int cube_builder_step(struct cube_builder *b, int32_t value, int32_t origin, int32_t micro);
/* Declares a rank so it gets a column even without rows; optional. */
int cube_builder_rank(struct cube_builder *b, int32_t rank);
/* The values laid out may take at most bytes (--mem; 0: no bound): finish
 * refuses more, before allocating them. */
void cube_builder_budget(struct cube_builder *b, uint64_t bytes);
/* Lays the rows out; the builder is consumed (free it anyway). */
int cube_builder_finish(struct cube_builder *b, struct cube **out, struct pt_error *err);

#endif
