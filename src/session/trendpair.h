/* trendpair: `probetop PROBLEM BENCH` on two runs of trend data (two
 * .trend.db files, two monitor trees, v1 or v2, or one of each; probetop(1),
 * COMPARE TWO EXPERIMENTS).
 *
 * The analyzer opens them in trend mode: the problem run is a->ds (read
 * by slices when it is a .trend.db, as one input is), the benchmark
 * a->bench_ds (read the same way, before the screen comes up).  `R` (and
 * `:run`) shows the problem, the benchmark, or |p-b|/|b| over the cells
 * both runs have: a lazy cube (model/compare/runpair.h) whose blocks are
 * computed from the two runs' blocks when a pane asks.  `f` in the heat
 * map goes to the first place the runs part (runpair_first over the shown
 * metric, else over every metric; --threshold of probetop compare is
 * `:threshold P` here), the status line says both runs' values of the
 * selected cell.  --mapping renames the problem's target names for the
 * match (not on load).
 *
 * The pair is matched over a->ds->cube when first needed and dropped when
 * a newer dataset of the problem is swapped in (trendpair_data_ready:
 * the view goes back to the problem run). */
#ifndef PT_SESSION_TRENDPAIR_H
#define PT_SESSION_TRENDPAIR_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"

struct session;

enum trendpair_run { TRENDPAIR_PROBLEM = 0, TRENDPAIR_BENCH, TRENDPAIR_DIFF };

/* 1 when path is trend data: a .trend.db (or a folder of them), a
 * monitor tree, v1 or v2 (the reader rows trenddb, monitor, monitor_v2). */
int trendpair_is_trend(const char *path);

/* In compare mode with two trend-data paths (and no --format): trend mode
 * on the problem, the benchmark loaded into a->bench_ds, the pair made.
 * 0 (also when the paths are no such pair: nothing done), -1 with err. */
int trendpair_open(struct session *a, struct pt_error *err);

/* 1 when the session shows two runs of trend data. */
int trendpair_on(const struct session *a);

/* A newer problem dataset is in (src/session/swap.c): the match and the
 * difference of the old one go, the heat map shows the problem. */
void trendpair_data_ready(struct session *a);

/* The run the heat map shows (enum trendpair_run); -1 without a pair. */
int trendpair_run(const struct session *a);
const char *trendpair_run_name(int run);
/* Shows run (`R`, `:run`); -1 with err. */
int trendpair_set_run(struct session *a, int run, struct pt_error *err);

/* `f`: looks for the first cell where the runs part on a thread of its
 * own (a search over every step of two big runs takes seconds) and says
 * so in the status line; 0, or -1 with err (no pair, the match failed).
 * trendpair_poll on the UI thread then shows the progress and, once the
 * search is over, selects the cell (in the shown run's indexes) and says
 * it, or that they never part, or why it failed. */
int trendpair_first(struct session *a, struct pt_error *err);
/* 1 while the search runs (or ended and was not yet polled). */
int trendpair_busy(const struct session *a);
/* 1 when the screen should be redrawn: the progress moved, or the search
 * ended (the cell selected, the answer in the status line). */
int trendpair_poll(struct session *a);
/* Esc: stops the search (said). */
void trendpair_cancel(struct session *a);

/* `:threshold P` (percent above 0). */
int trendpair_set_threshold(struct session *a, double fraction, struct pt_error *err);
double trendpair_threshold(const struct session *a);

/* For the status line, what the shown value of the selected cell is not:
 * the problem run shown, "bench 1  |p-b|/|b| 0.5"; the benchmark shown,
 * "problem 1.5  |p-b|/|b| 0.5"; the difference shown, "problem 1.5  bench
 * 1", each with " (parts)" when the cell parts; "problem 1.5, not in the
 * benchmark" and the like for a cell of one run; "" without a pair. */
const char *trendpair_cell_text(struct session *a, char *buf, size_t size);

/* The value in run (TRENDPAIR_PROBLEM or _BENCH) of the shown cube's cell
 * (a->cube's indexes: metric, stat, step, rank, global target), found by
 * names, step value and rank number; missing when that run has no such
 * cell or there is no pair.  The line chart's lines of both runs. */
float trendpair_value(struct session *a, int run, int metric, int stat, int step, int rank, uint32_t target);

/* Frees the pair (not a->bench_ds: src/session/loader.h, loader_bench_free). */
void trendpair_free(struct session *a);

#endif
