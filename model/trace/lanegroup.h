/* lanegroup: the lane view at cluster scale (probetop(1), LANE VIEW:
 * Groups).  A thousand ranks do not fit a screen: the lanes are grouped
 * (by pipeline stage, by pipeline group, or in blocks of consecutive
 * ranks) and each group is one row whose time slices show the group's
 * distribution: the median and the worst rank's busy share of the slice.
 *
 * A rank's busy share of a slice is the part of the slice in which at
 * least one of its kernels runs (any stream, overlapping kernels counted
 * once); time outside the rank's span of the step counts as not busy.
 * The worst rank of a slice is the least busy one (the one waiting
 * longest: a pipeline bubble, a straggler's peers); ties go to the lower
 * lane. */
#ifndef PT_MODEL_LANEGROUP_H
#define PT_MODEL_LANEGROUP_H

#include <stdint.h>

#include "model/err.h"
#include "model/trace/lanes.h"
#include "model/trace/trace.h"

enum lanegroup_by {
    LANEGROUP_OFF,        /* one lane per rank */
    LANEGROUP_STAGE,      /* the ranks at one position of their pipeline group */
    LANEGROUP_PIPELINE,   /* the ranks of one pipeline group */
    LANEGROUP_BLOCK,      /* consecutive ranks, as many as fit */
    LANEGROUP_NBY
};

/* "ranks", "stage", "pipeline", "block". */
const char *lanegroup_by_name(int by);

/* The groups: members of group g are members[start[g] .. start[g + 1]),
 * trace rank indexes in lane order; key[g] is the group's stage, pipeline
 * group or block number, -1 for the ranks in no pipeline group. */
struct lanegroups {
    int ngroups;
    int *members, *start, *key;
};

/* Groups the lanes by key: lanes with one key form a group, groups in
 * ascending key with key -1 last, members in their lanes order.  0, or -1
 * (err) without memory. */
int lanegroup_from_keys(const int *lanes, const int *keys, int nlanes, struct lanegroups *out, struct pt_error *err);
/* Keys of the lanes for a grouping from the run's own pipeline groups
 * (run->groups of dimension pp): STAGE the position in its group,
 * PIPELINE the group's number, BLOCK lane index / block.  -1 for a rank in
 * no group.  0, or -1 when the grouping needs pipeline groups the run
 * lacks. */
int lanegroup_keys(const struct trace_run *run, const int *lanes, int nlanes, enum lanegroup_by by, int block,
                   int *keys);
void lanegroups_free(struct lanegroups *g);

/* The busy share (0..1) of each of nbins equal slices of the window
 * [t0, t1) (align's clock) on lane ri at step N into out[nbins].  0, or
 * -1 (err) without memory. */
int lanegroup_busy(const struct trace_run *run, int ri, int32_t step, enum lanes_align align, int64_t t0, int64_t t1,
                   int nbins, float *out, struct pt_error *err);

/* The distribution of a group per slice: med[i] the median busy share of
 * the n members in slice i (the mean of the two middle ones for even n),
 * worst[i] the smallest, wrank[i] the index (into members) of the lane
 * that has it.  0, or -1 (err) without memory. */
int lanegroup_dist(const struct trace_run *run, const int *members, int n, int32_t step, enum lanes_align align,
                   int64_t t0, int64_t t1, int nbins, float *med, float *worst, int *wrank, struct pt_error *err);

/* lanegroup_dist from the members' busy shares already made: member k's
 * are busy[rows[k] * nbins ..] (rows NULL: row k), col a buffer of n. */
void lanegroup_dist_busy(const float *busy, int nbins, const int *rows, int n, float *med, float *worst, int *wrank,
                         float *col);

#endif
