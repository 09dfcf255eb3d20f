/* lanebusy: one step's busy time of every rank, indexed, for the lane view
 * at cluster scale (model/trace/lanegroup.h).  Made once per step from the
 * kernels; then a rank's busy share of any slices of any window is read
 * from it without walking the kernels again: each rank's busy time is the
 * union of its kernels (any stream, overlaps once) as sorted disjoint
 * intervals with the busy time before each (a prefix sum), so the busy
 * time before t is one search away and a slice's is the difference of two.
 * It holds the ranks' spans of the step too (lanes_rank_span), which every
 * window of the view starts from. */
#ifndef PT_MODEL_LANEBUSY_H
#define PT_MODEL_LANEBUSY_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/trace/lanes.h"
#include "model/trace/trace.h"

struct lanebusy {
    const struct trace_run *run;   /* what it was made for */
    int32_t step;
    int nranks;
    uint8_t *has;                  /* [nranks]: the rank has the step */
    int64_t *s0, *s1;              /* [nranks]: its span of the step (lanes_rank_span) */
    size_t *first;                 /* [nranks + 1]: rank r's intervals are [first[r], first[r + 1]) */
    int64_t *a, *b, *cum;          /* intervals [a, b), ascending, disjoint; cum: busy ns before it on its rank */
    size_t rcap, icap;             /* room for ranks, for intervals */
};

/* The index of step N over every rank of run (made again in lb's buffers,
 * or a zeroed lb).  0, or -1 (err) without memory. */
int lanebusy_build(struct lanebusy *lb, const struct trace_run *run, int32_t step, struct pt_error *err);
void lanebusy_free(struct lanebusy *lb);

/* Rank ri's span of the step as lanes_rank_span gives it: 1, or 0 when it
 * lacks the step. */
int lanebusy_rank_span(const struct lanebusy *lb, int ri, int64_t *t0, int64_t *t1);
/* lanes_span from the index: the step's span over the lanes. */
int lanebusy_span(const struct lanebusy *lb, const int *lanes, int nlanes, enum lanes_align align, int64_t *t0,
                  int64_t *t1);

/* Rank ri's busy share (0..1) of each of nbins equal slices of the window
 * [t0, t1) (align's clock) into out[nbins]: lanegroup_busy's figures. */
void lanebusy_slices(const struct lanebusy *lb, int ri, enum lanes_align align, int64_t t0, int64_t t1, int nbins,
                     float *out);

#endif
