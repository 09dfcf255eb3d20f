/* pipeline: one step of one pipeline group as the pipeline view draws it
 * (probetop(1), PIPELINE VIEW), a Marey chart: the group's stages as rows,
 * time across, each micro-batch's forward and backward pass a band on every
 * stage, linked from stage to stage along the pipeline's sends.
 *
 * A band is the k-th forward (backward) pass of the step on the stage: the
 * k-th run of consecutive kernels (in start order) whose phase is forward
 * (backward or recompute), what nests in a pass (TP, EP, CP communication)
 * joining the open run; a pipeline send or receive, another pass or any
 * other phase ends it.  Megatron runs a stage's forwards (backwards) in
 * micro-batch order, so the k-th is micro-batch k.  A band spans its first
 * kernel's start to its last kernel's end.
 *
 * A link is micro-batch m's hand-over between neighbouring stages: a
 * forward from stage i to i+1, a backward from i+1 to i; its time is from
 * the sender's band end to the receiver's band start (the send, and the
 * receiver's wait until it is free).  A bubble is an idle gap of a stage
 * between its bands, counting the gap from the earliest band of the group
 * to the stage's first and from its last to the latest band of the group
 * (warm-up and cool-down). */
#ifndef PT_MODEL_PIPELINE_H
#define PT_MODEL_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/trace/trace.h"

struct pipe_band {
    int64_t start_ns, end_ns;   /* the trace's clock */
    int32_t micro;
    uint8_t backward;           /* 0 forward, 1 backward */
};

struct pipe_stage {
    int ri;                     /* index in run->ranks, -1 when the rank has no trace */
    int32_t rank;
    struct pipe_band *bands;    /* ascending start (owned) */
    int nbands;
};

struct pipe_link {
    int from, to;               /* stage indexes */
    int32_t micro;
    uint8_t backward;
    int64_t start_ns, end_ns;   /* sender's band end, receiver's band start */
};

struct pipe_gap {
    int stage;
    int64_t start_ns, end_ns;
};

struct pipeline {
    int32_t step;
    struct pipe_stage *stages;  /* in the group's order (owned) */
    int nstages;
    int nmicro;                 /* 1 + the largest micro-batch of any band */
    int64_t t0, t1;             /* the earliest band start, the latest band end */
    struct pipe_link *links;    /* by micro, forward first, then stage (owned) */
    int nlinks;
    struct pipe_gap *bubbles;   /* by stage, then start (owned) */
    int nbubbles;
    int widest;                 /* index into bubbles of the widest (the first of equals), -1 none */
    int slowest;                /* index into links of the slowest, -1 none */
};

/* The pipeline of step N over the ranks[n] (the group's stages in order).
 * 0, or -1 (err) without memory. */
int pipeline_build(const struct trace_run *run, const int32_t *ranks, int n, int32_t step, struct pipeline *out,
                   struct pt_error *err);
void pipeline_free(struct pipeline *p);
/* Stage s's band of micro-batch m, pass backward; NULL when it has none. */
const struct pipe_band *pipeline_band(const struct pipeline *p, int s, int32_t micro, int backward);

#endif
