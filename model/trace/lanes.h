/* lanes: one step of a profiled run across ranks, as the lane view shows it
 * (probetop(1), LANE VIEW).  Owns the time arithmetic of the view, without
 * a terminal: a rank's span of a step, the window of a step across lanes
 * (one global time axis, or each rank from its own step start), the
 * binning of a window into columns (the category that takes most of each
 * column's time), the lane's items (kernels and the idle gaps between
 * them) the cursor walks, and zoom and pan of the window.
 *
 * Idle is time inside a rank's step where no kernel runs on any stream
 * (model/trace/trace.h); a pipeline bubble is such a run.  A rank's span of step
 * N starts at the step's first kernel, or earlier at the ProfilerStep#N
 * annotation's start when the previous step's kernels were done by then
 * (a pipeline stage waiting for its first input idles in the step), and
 * ends at the later of the step's end and its last kernel's end. */
#ifndef PT_MODEL_LANES_H
#define PT_MODEL_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/trace/trace.h"

/* A bin's kind: an enum trace_cat, or LANE_NONE outside the rank's step. */
#define LANE_NONE TRACE_NCATS
#define LANE_NKINDS (TRACE_NCATS + 1)

/* How times of a lane are read. */
enum lanes_align {
    LANES_GLOBAL,   /* the traces' shared clock: ranks line up in time */
    LANES_STEP      /* ns from each rank's own step start: lengths line up */
};

/* Rank r's span of step N: 1 with [*t0, *t1) (and the step, when st is not
 * NULL), 0 when the rank has no step N. */
int lanes_rank_span(const struct trace_rank *r, int32_t step, int64_t *t0, int64_t *t1, const struct trace_step **st);

/* The rank's step N, NULL when it has none. */
const struct trace_step *lanes_step_of(const struct trace_rank *r, int32_t step);
/* lanes_rank_span of the rank's step s whose kernels end by kend at the
 * latest (the caller walked them). */
void lanes_step_span(const struct trace_rank *r, const struct trace_step *s, int64_t kend, int64_t *t0, int64_t *t1);

/* The span over several lanes, one lane's [a, b) at a time: LANES_GLOBAL
 * the earliest start to the latest end, LANES_STEP 0 to the longest span
 * (lanes_span and lanebusy_span walk their own lanes through it). */
struct lanes_extent { int64_t lo, hi; int found; };
void lanes_extent_add(struct lanes_extent *x, int64_t a, int64_t b, enum lanes_align align);
/* *t0, *t1 the extent (0, 0 when empty); 1 when a lane was added. */
int lanes_extent_end(const struct lanes_extent *x, int64_t *t0, int64_t *t1);

/* The span of step N over the lanes (indexes into run->ranks): LANES_GLOBAL
 * the earliest start to the latest end, LANES_STEP 0 to the longest span.
 * 0 when no lane has the step (then *t0 = *t1 = 0). */
int lanes_span(const struct trace_run *run, const int *lanes, int nlanes, int32_t step, enum lanes_align align,
               int64_t *t0, int64_t *t1);

/* Cuts the window [t0, t1) (align's times) into nbins equal bins and
 * writes each bin's kind into out[nbins]: the category that takes most of
 * the bin's time on lane ri (kernels on every stream counted, idle the
 * time no kernel covers), LANE_NONE where most of the bin is outside the
 * rank's step.  Ties go to communication, then compute, memory, idle.
 * 0, or -1 (err) without memory; t1 <= t0 or nbins < 1 fill nothing. */
int lanes_bin(const struct trace_run *run, int ri, int32_t step, enum lanes_align align, int64_t t0, int64_t t1,
              int nbins, uint8_t *out, struct pt_error *err);

/* Adds [a, b) to the slices of the window [t0, t0 + nbins * w) it meets,
 * each slice its part in slice widths: slice i is acc[i * stride]. */
void lanes_spread(double *acc, size_t stride, int nbins, int64_t t0, double w, int64_t a, int64_t b);

/* One thing on a lane: a kernel, or an idle gap between kernels. */
struct lane_item {
    int64_t start_ns, dur_ns;   /* the trace's clock (LANES_GLOBAL) */
    uint32_t name;              /* run->names index; LANE_IDLE_NAME for a gap */
    uint8_t cat;                /* enum trace_cat (TRACE_IDLE for a gap) */
    uint8_t phase;              /* enum trace_phase */
    uint16_t stream;
};
#define LANE_IDLE_NAME UINT32_MAX

struct lane_items {
    struct lane_item *v;        /* ascending start; a gap before the kernel that ends it */
    size_t n;
    int64_t span0, span1;       /* the rank's span of the step */
};

/* The items of lane ri at step N (none when the rank lacks the step).
 * 0, or -1 (err) without memory. */
int lanes_items(const struct trace_run *run, int ri, int32_t step, struct lane_items *out, struct pt_error *err);
void lanes_items_free(struct lane_items *it);
/* The item at time t (the trace's clock): the latest-starting kernel
 * covering t, else the gap covering t, else the nearest item; -1 when
 * there are no items. */
long lanes_item_at(const struct lane_items *it, int64_t t);

/* The column (0..ncols-1) of time t in the window [t0, t1) of ncols
 * columns; -1 before, ncols after. */
int lanes_col(int64_t t, int64_t t0, int64_t t1, int ncols);

/* Zoom: the window shrinks (factor < 1) or grows (factor > 1) around
 * center, keeping center at the same place, then is kept inside [lo, hi)
 * and at least min_width wide. */
void lanes_zoom(int64_t *t0, int64_t *t1, int64_t center, double factor, int64_t lo, int64_t hi, int64_t min_width);
/* Pan: the window moves by delta, kept inside [lo, hi). */
void lanes_pan(int64_t *t0, int64_t *t1, int64_t delta, int64_t lo, int64_t hi);

/* The run's pipeline groups (its process groups of dimension pp: from the
 * traces' pg_config or Megatron's group listing), in their order. */
int lanes_pp_groups(const struct trace_run *run);
/* The ranks of pipeline group g (n of them), NULL when out of range. */
const int32_t *lanes_pp_group(const struct trace_run *run, int g, int *n);

#endif
