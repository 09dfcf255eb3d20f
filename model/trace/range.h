/* range: what a time range of one step holds across ranks (probetop(1),
 * LANE VIEW: Range; `probetop trace --from --to`).  For each rank the
 * range is cut to the rank's span of the step (model/trace/lanes.h) and
 * its kernels to the range; the figures are HTA's unions
 * (model/trace/trace.h) of those pieces, summed over the ranks: rank-time,
 * so 8 ranks idle for 1 ms together are 8 ms of idle. */
#ifndef PT_MODEL_RANGE_H
#define PT_MODEL_RANGE_H

#include <stdint.h>

#include "model/err.h"
#include "model/trace/lanebusy.h"
#include "model/trace/lanes.h"
#include "model/trace/trace.h"

struct range_agg {
    int nranks;                                   /* ranks whose span meets the range */
    int64_t span_ns;                              /* the range's rank-time inside the ranks' spans */
    int64_t cat_ns[TRACE_NCATS];                  /* union per category; [TRACE_IDLE] no kernel runs */
    int64_t overlap_ns;                           /* compute and communication at once */
    int64_t phase_ns[TRACE_NPHASES][TRACE_NCATS]; /* union per phase and category (no idle) */
    size_t nkernels;                              /* kernels that meet the range */
};

/* The aggregates of [t0, t1) (align's clock: LANES_GLOBAL the traces'
 * clock, LANES_STEP ns from each rank's span start) over the lanes (trace
 * rank indexes) at step N into *out. */
void range_of(const struct trace_run *run, const int *lanes, int nlanes, int32_t step, enum lanes_align align,
              int64_t t0, int64_t t1, struct range_agg *out);

/* range_of at the step of lb, the ranks' spans taken from it (no walk of
 * their kernels for them). */
void range_of_index(const struct lanebusy *lb, const int *lanes, int nlanes, enum lanes_align align, int64_t t0,
                    int64_t t1, struct range_agg *out);

#endif
