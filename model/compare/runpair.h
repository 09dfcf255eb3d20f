/* runpair: two runs of trend data side by side (probetop(1), COMPARE TWO
 * EXPERIMENTS): two .trend.db files, two monitor trees, or one of each.
 *
 * Matching.  Metrics and statistics by name (a metric also by the name
 * the caller's alias gives it: a monitor_v2 scope's v1 metric, so a v2 tree
 * pairs with the .trend.db data2db wrote from it); targets by (name, vpp, call),
 * the problem's names first renamed by --mapping (every occurrence of each
 * key, key after key, as the readers do); steps by their step value, ranks
 * by their number.  A step, rank, metric or target present in one run only
 * is counted (the *_only fields) and compared with nothing: it stays in
 * that run's own heat map, the difference has no cell for it, and the
 * difference table lists such a target with "-" for every figure.
 *
 * Where the runs part.  A cell (metric, statistic, target, step, rank)
 * present in both runs parts when exactly one of its two values is NaN, or
 * neither is and |p - b| / |b| (rundiff_cell: x/0 is +Inf, Inf against
 * the same Inf is 0) is above the threshold (RUNPAIR_THRESHOLD, --threshold).
 * The first place they part is the earliest shared step holding a parting
 * cell; within the step, the first metric (the problem's order), then the
 * first target (the problem's order), then the lowest rank, then the first
 * statistic.  The TUI's `f` and `probetop compare` use this one rule.
 *
 * Every answer reads the cubes a step slice at a time (cube_slice along
 * DIM_STEP: one query per metric and step for a lazy .trend.db), so a run
 * of any size is compared within the cubes' caches, never loaded whole. */
#ifndef PT_RUNPAIR_H
#define PT_RUNPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/cube.h"
#include "model/err.h"

#define RUNPAIR_THRESHOLD 0.01   /* 1 %: the curves' misalignment threshold too */

struct runpair_metric {
    int p, b;                          /* its index in each run's cube */
    int nstats;                        /* the statistics both have, in the problem's order */
    int pstat[CUBE_MAX_STATS], bstat[CUBE_MAX_STATS];
    uint32_t ntargets;                 /* the targets both runs have in it, ascending pair id */
    uint32_t *targets;                 /* pair target ids */
    uint32_t *plt, *blt;               /* their local index in each run's metric */
    uint32_t p_only, b_only;           /* its targets in one run only */
};

struct runpair {
    const struct cube *p, *b;          /* not owned; outlive the pair */
    struct names *names;               /* pair targets: the problem's (renamed), then the benchmark's own */
    uint32_t *tp, *tb;                 /* pair target -> global id in p / in b, NAMES_NONE when absent */
    int nsteps;                        /* shared steps, ascending */
    int *pstep, *bstep;                /* their index in each cube */
    int p_only_steps, b_only_steps;
    int nranks;                        /* shared ranks, ascending */
    int *prank, *brank;
    int p_only_ranks, b_only_ranks;
    int nmetrics;
    struct runpair_metric *m;
    int p_only_metrics, b_only_metrics;
};

/* Matches p and b (the mapping: nmap (from, to) replacements of the
 * problem's names, may be 0; alias: another name of a metric, or NULL, may
 * be NULL).  0, or -1 with err (nothing shared: no metric, step or rank in
 * common is an error, said). */
int runpair_build(const struct cube *p, const struct cube *b, char *const *from, char *const *to, size_t nmap,
                  const char *(*alias)(const char *metric), struct runpair **out, struct pt_error *err);
void runpair_free(struct runpair *rp);

/* 1 when the pair of values parts (the rule above); missing on either side
 * never does. */
int runpair_parts(float p, float b, double threshold);

/* One cell of the pair, indices into the pair's axes (metric into rp->m,
 * stat into its shared statistics, step and rank into the shared axes,
 * target a pair target id). */
struct runpair_cell {
    int metric, stat, step, rank;
    uint32_t target;
    float p, b, rel;
};

/* The first place the runs part, over one pair metric (-1: every metric).
 * 1 found (*out), 0 they never part, -1 with err (a slice did not load). */
int runpair_first(const struct runpair *rp, int metric, double threshold, struct runpair_cell *out,
                  struct pt_error *err);
/* The same within shared step s only (a search that reports progress and
 * can stop between steps: steps in ascending order give runpair_first). */
int runpair_first_step(const struct runpair *rp, int metric, int s, double threshold, struct runpair_cell *out,
                       struct pt_error *err);

/* The difference table: one row per (metric, target) of either run. */
enum runpair_side { RUNPAIR_BOTH, RUNPAIR_PROBLEM_ONLY, RUNPAIR_BENCH_ONLY };
struct runpair_row {
    int metric;                        /* pair metric */
    uint32_t target;                   /* pair target */
    enum runpair_side side;
    size_t compared, parted;           /* cells (every statistic) present in both, parting */
    int has_first;                     /* first: its first parting cell (step, rank, stat order) */
    struct runpair_cell first;
    int has_max;                       /* max: its largest |p-b|/|b| (NaN/Inf first), earliest on ties */
    struct runpair_cell max;
};
/* Rows ordered by metric, then both-run targets (pair order), then the
 * problem's own, then the benchmark's own.  0, or -1 with err. */
int runpair_table(const struct runpair *rp, double threshold, struct runpair_row **rows, size_t *n,
                  struct pt_error *err);

/* The difference as a lazy cube (model/cube/cube_lazy.h) over the shared
 * axes: metrics with their shared statistics, the targets both runs have,
 * each cell rundiff_cell(p, b) computed from the two runs' slices when a
 * pane asks; its names are the pair's (labels by rules).  rp must outlive
 * the cube.  0, or -1 with err. */
int runpair_diff_cube(const struct runpair *rp, enum label_rules rules, uint64_t budget, struct cube **out,
                      struct pt_error *err);

#endif
