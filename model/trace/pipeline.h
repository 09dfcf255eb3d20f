/* pipeline: one step of one pipeline group as the pipeline view draws it
 * (probetop(1), PIPELINE VIEW), a Marey chart: the group's stages as rows,
 * time across, each micro-batch's forward and backward pass a band on every
 * stage, linked from stage to stage along the pipeline's sends.
 *
 * A band is a run of consecutive kernels (in start order) whose phase is
 * forward (backward or recompute), what nests in a pass (TP, EP, CP
 * communication) joining the open run; a pipeline send or receive, another
 * pass or any other phase ends it.  A band spans its first kernel's start
 * to its last kernel's end.
 *
 * A link is a micro-batch's hand-over from a stage to another: found from
 * the step's sends and receives (model/trace/p2p.h: the n-th send of stage
 * a to stage b in a process group with the n-th receive of b from a in
 * it), from the sender's band (the last to start at or before the send) to
 * the receiver's (the first of the same pass to start at or after the
 * receive); its time is from the sender's band end to the receiver's band
 * start (the send, and the receiver's wait until it is free).  Interleaved
 * schedules link the last stage back to the first.
 *
 * Micro-batches: a band a link reaches is the sender band's micro-batch; a
 * forward no link reaches is its stage's next (0, 1, ... in start order:
 * the first stage's forwards); a backward no link reaches is the micro-batch
 * of its stage's earliest forward not yet matched that hands on to no
 * stage (the last stage runs its backwards in the order of its forwards),
 * or, with none left, its order among the stage's backwards.
 * Where two neighbouring stages have no paired send and receive (traces
 * whose kernel args name no peer), their links fall back to micro-batch
 * order: micro-batch m's forward from stage i to i+1, backward from i+1 to
 * i; without any pair that is the k-th forward (backward) pass of each
 * stage as micro-batch k.
 *
 * A bubble is an idle gap of a stage between its bands, counting the gap
 * from the earliest band of the group to the stage's first and from its
 * last to the latest band of the group (warm-up and cool-down). */
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
    int *at;                    /* [micro * 2 + backward]: the band's index, -1 none (owned) */
};

struct pipe_link {
    int from, to;               /* stage indexes */
    int32_t micro;
    uint8_t backward;
    uint8_t paired;             /* 1 by a send and its receive, 0 by micro-batch order */
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
    struct pipe_link *links;    /* by micro, forward first, then sending stage (owned) */
    int nlinks;
    int npaired;                /* of them by a send and its receive */
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
