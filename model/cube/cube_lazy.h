/* cube_lazy: a cube whose values stay in their file until a pane asks
 * (probetop(1), --mem).
 *
 * A lazy cube has its axes (steps, ranks, metrics, statistics, local
 * targets) like any cube, but no value blocks (cube_metric.vals == NULL).
 * cube_slice() and cube_series() answer from a bounded cache of blocks --
 * one metric's values, every statistic, at one step, one rank or one
 * target -- that a source (e.g. the .trend.db reader) fills with one query
 * each (or one per rank, or per (rank, step)); cube_get()
 * reads a cached block or asks the source for that one cell.  Whole-run
 * answers (non-finite cells) are queries to the source.  When the dense
 * cube fits the memory budget, a background thread fills it from the
 * source; cube_lazy_poll() on the owning thread then installs the blocks,
 * and from there on the cube is an ordinary dense cube.
 *
 * Threads: the cube belongs to one thread (the UI's); cache, source calls
 * and installation happen under the cube's mutex, so another thread may
 * read values too.  The background fill calls only ops->fill_all, which must
 * use its own connection to the data (the .trend.db source opens a second
 * read-only connection), and writes only into blocks nobody else sees until
 * cube_lazy_poll() installs them.
 *
 * Pointers: a cube_slice()/cube_series() base into the cache stays valid
 * until CUBE_LAZY_KEEP - 1 other blocks were fetched, cube_lazy_poll()
 * installed the full cube, or the cube is freed: panes take a slice per
 * frame and keep no pointer past it. */
#ifndef PT_CUBE_LAZY_H
#define PT_CUBE_LAZY_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cube/cube.h"
#include "model/err.h"

/* Blocks kept at least (the newest ones), whatever their size. */
#define CUBE_LAZY_KEEP 4

/* A source of values.  A block is one metric's values at one value of a
 * dimension (out pre-set to missing; the source writes what it has):
 *   DIM_STEP   value = step index:       [stat][local target][rank]
 *   DIM_RANK   value = rank index:       [stat][local target][step]
 *   DIM_TARGET value = global target id: [stat][step][rank] (only asked
 *              when the metric has that target)
 * Every function returns 0, or -1 with err set. */
struct cube_source_ops {
    int (*fill_block)(void *src, const struct cube *c, enum cube_dim dim, int value, int metric, float *out,
                      struct pt_error *err);
    /* vals[stat] of one cell (pre-set to missing). */
    int (*fill_cell)(void *src, const struct cube *c, int metric, uint32_t lt, int step, int rank, float *vals,
                     struct pt_error *err);
    /* The dense blocks (cube layout, pre-set to missing); called on the fill
     * thread: uses a connection of its own, stops early when *cancel. */
    int (*fill_all)(void *src, const struct cube *c, float *const *vals, atomic_int *cancel, struct pt_error *err);
    /* fn for each cell with a non-finite value, of metric (-1: all), step
     * index and rank index (-1: all); stops when fn returns non-zero. */
    int (*nonfinite)(void *src, const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn,
                     void *ctx, struct pt_error *err);
    /* A zoomed-out block at one step index: [stat][local target][rank
     * group] of groups of `group` ranks (rank / group), each the value a
     * zoomed-out heat-map cell shows for the group (views/agg.h: an
     * infinity if any, else the value of largest magnitude).  1 when the
     * source has no such summary (the caller falls back to the ranks);
     * may be NULL. */
    int (*fill_groups)(void *src, const struct cube *c, int step, int metric, int group, float *out,
                       struct pt_error *err);
    /* Rows the whole-run fill met off the cube's axes (the source's axes
     * missed them); may be NULL. */
    size_t (*missed)(void *src);
    /* 1 when the source's data changed since it was opened (another
     * process writes its file); may be NULL. */
    int (*changed)(void *src);
    /* *out: the source's rows that describe no tensor (a target with no
     * value on any step and rank: probetop-rules(7), OVERFLOW LEVELS), as a
     * loaded cube counts them; may be NULL (none). */
    int (*notensor)(void *src, const struct cube *c, size_t *out, struct pt_error *err);
    void (*free)(void *src);
};

/* Makes c lazy over src (c's metrics must have vals == NULL); c owns src
 * from here (also on failure).  budget: bytes the dense cube may take; when
 * it fits, cube_lazy_poll() starts the background fill once a first slice
 * was served.  0, or -1 with err set. */
int cube_lazy_attach(struct cube *c, const struct cube_source_ops *ops, void *src, uint64_t budget,
                     struct pt_error *err);

/* The most one layout of a lazy cube may take (a block, a map of its
 * targets): the --mem budget, 16 MiB at least (probetop(1), --mem). */
static inline uint64_t cube_lazy_most(uint64_t budget) {
    return budget > ((uint64_t)16 << 20) ? budget : (uint64_t)16 << 20;
}

/* Bytes of the dense value blocks of c's axes. */
uint64_t cube_dense_bytes(const struct cube *c);

/* 1 when c answers from its source (not yet, or never, filled). */
int cube_is_lazy(const struct cube *c);

/* On the owning thread, between frames: starts the background fill (see
 * cube_lazy_attach) and installs it when finished.  Returns 1 when
 * something changed (values now dense, the fill failed or a slice did not
 * load: then msg says why, once), else 0.  msg may be NULL. */
int cube_lazy_poll(struct cube *c, char *msg, size_t size);

/* State for the status line: "slices", "filling 42%"... into buf. */
const char *cube_lazy_state(const struct cube *c, char *buf, size_t size);

/* The whole cube in memory now (waits for or runs the fill), for what
 * needs every value at once (layouts, run differences).  Refused with a
 * message when it does not fit the budget. */
int cube_materialize(struct cube *c, struct pt_error *err);

/* 1 when c answers from a source whose data changed since it was opened
 * (its answers since then are errors: read the input again). */
int cube_lazy_changed(const struct cube *c);

/* *out: the rows of a lazy cube's source that describe no tensor (0 for a
 * source that has none to say, or a filled cube: its loader counted them).
 * 0, or -1 with err set. */
int cube_lazy_notensor(const struct cube *c, size_t *out, struct pt_error *err);

/* --- for cube.c, which answers for dense and lazy cubes alike (calls go
 * one way: cube.c asks this file, never the other way round) --- */
void cube_lazy_free(struct cube_lazy *l);
int cube_lazy_slice(const struct cube *c, int metric, int stat, enum cube_dim dim, int value,
                    struct cube_slice *out);
int cube_lazy_series(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, int x, int y,
                     struct cube_series *out);
/* cube_slice_zoomed() of a lazy cube when the group summaries answer:
 * 0 with out set, 1 when the exact slice is the answer. */
int cube_lazy_zoomed(const struct cube *c, int metric, int stat, enum cube_dim dim, int value, int zx,
                     struct cube_slice *out);
/* cube_each_nonfinite() of a lazy cube: the source's query. */
int cube_lazy_nonfinite(const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn, void *ctx,
                        struct pt_error *err);

#endif
