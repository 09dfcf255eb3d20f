/* origin: the rank and node where an anomaly (a NaN/Inf, or a divergence
 * from the benchmark) was born, when it shows on several ranks of a step,
 * and the chain of communication ops that carried it to the other ranks.
 * The rules are msProbe's overflow_check (and, for divergence, its
 * compare -da first-diff analysis); man/probetop.1, "Origin across ranks",
 * says them in full.  In short:
 *
 *  - each rank's dump is cut at its communication ops (Distributed.* names
 *    holding send, recv, broadcast, reduce, gather, scatter, all_to_all);
 *    a compute op is a candidate (born) when its inputs are normal and its
 *    outputs are not -- one search for NaN/Inf and for divergence, only the
 *    flags differ (probetop-rules(7), ORIGIN ACROSS RANKS);
 *  - before any communication a rank's first candidate is an origin on its
 *    own (one per rank);
 *  - otherwise the communication ops are paired across ranks (a directed op
 *    -- send/recv, broadcast, scatter, gather -- links its source with its
 *    destinations; a collective links every member of its group), paired
 *    ops share one "layer" (a logical time that keeps each rank's order),
 *    and the earliest group (by layer) holding an anomaly gives the origin:
 *    a candidate compute op that fed an anomalous source/collective input,
 *    or a communication op whose inputs were normal and outputs not (when
 *    no source or partner of its group had it first), whichever comes
 *    first by (layer, position since the previous communication op), ties
 *    to the lowest rank;
 *  - failing that, each rank's first candidate after its last
 *    communication op.
 * An anomaly that first appears on a rank at the output of a communication
 * op whose peer already had it is propagated, not born: it becomes a hop of
 * the chain.
 *
 * Input: one tree per rank of one step (records and params; the tree need
 * not be built), in ascending rank order, with one flag byte per record.
 * No files, no drawing.  Owns the result arrays. */
#ifndef PT_ORIGIN_H
#define PT_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/graph/tree.h"

/* Flag bits of a record. */
#define ORIGIN_IN 1     /* some top-level input is anomalous */
#define ORIGIN_OUT 2    /* some top-level output is anomalous (divergence: the record diverges) */

/* Which of msProbe's two rule sets: overflow_check's or compare -da's
 * names of communication ops and skipped records (the latter adds
 * MindSpore's communication APIs and Tensor.__setitem__), and which births
 * a group takes (overflow_check: those before an op that passes the anomaly
 * on; compare -da: every one before the group's ops).  "Born" is the same. */
enum origin_rules {
    ORIGIN_OVERFLOW = 0,    /* msProbe overflow_check */
    ORIGIN_DIVERGENCE = 1,  /* msProbe compare -da (find_first) */
};

enum origin_phase {
    ORIGIN_NONE = 0,        /* no anomaly */
    ORIGIN_BEFORE_COMM,     /* born before a rank's first communication op */
    ORIGIN_DURING_COMM,     /* found by walking the paired communication ops */
    ORIGIN_AFTER_COMM,      /* born after a rank's last communication op */
};

struct origin_rank {
    const struct tree *tree;   /* records and params; tree->rank names the rank */
    const uint8_t *flags;   /* t->nrecs flag bytes (ORIGIN_IN | ORIGIN_OUT) */
};

/* A node the rules report. */
struct origin_hit {
    int rank;               /* index into the ranks array */
    int32_t rec;            /* record index in that tree */
    int32_t layer;          /* communication layer (-1 before any) */
    int32_t sub_layer;      /* compute ops since the previous communication op */
};

/* One hop of the chain: the anomaly reached rank `to` at record to_rec,
 * the output of a communication op paired with from_rec on rank `from`;
 * from = -1 when it appeared there with no anomalous peer (born again). */
struct origin_hop {
    int from, to;           /* indexes into the ranks array */
    int32_t from_rec, to_rec;
};

struct origin_result {
    enum origin_phase phase;
    struct origin_hit *hits; size_t nhits;   /* the origins, ascending rank */
    struct origin_hop *hops; size_t nhops;   /* the other affected ranks, in spreading order */
};

/* Applies the rules to ranks[0..n) (ascending rank).  Each rank's own part
 * (its communication ops and candidates) runs on the pool's threads
 * (model/util/pool.h), joined in rank order: the result is the same on any
 * number of threads.  0 ok (out filled, phase ORIGIN_NONE when nothing is
 * anomalous), -1 out of memory (err). */
int origin_find(const struct origin_rank *ranks, size_t n, enum origin_rules rules,
                struct origin_result *out, struct pt_error *err);
void origin_result_free(struct origin_result *r);

/* The cross-rank order the result implies, for ordering a step's ranks
 * (e.g. the whole-run first divergence: step, micro step, then this, then
 * the node's place): the origin ranks, then the ranks in the chain's
 * spreading order, then the others ascending.  order gets n indexes into
 * the ranks array given to origin_find (n = that array's length). */
void origin_rank_order(const struct origin_result *r, size_t n, int *order);

/* The overflow flags of every record of t (flags has t->nrecs bytes), as
 * msProbe's overflow check reads a dump: an input (or output) is anomalous
 * when the Max or Min of one of its top-level tensors is nan, inf or -inf;
 * elements nested inside lists do not count. */
void origin_flags_nonfinite(const struct tree *t, uint8_t *flags);
/* The same for record r alone. */
uint8_t origin_rec_nonfinite(const struct tree *t, size_t r);
/* A statistic's text origin_flags_nonfinite reads as NaN/Inf: "nan", "inf"
 * or "-inf" in any case, one tab after it allowed. */
int origin_text_nonfinite(const char *s);

/* The divergence flags of every record of the problem tree npu (flags has
 * npu->nrecs bytes) from the rows of its table compare (model/compare/compare.h,
 * compare mode `mode`): ORIGIN_OUT when one of its output rows is at
 * `level` (CL_ERROR or CL_WARNING, the level of the run's first
 * divergence) or above, ORIGIN_IN when one of its input rows differs
 * (cmp_row_differs) (probetop-rules(7), FIRST DIVERGENCE).  The fifth and
 * sixth outputs of npu_fusion_attention do not count. */
struct crow;
void origin_flags_divergence(const struct tree *npu, const struct crow *rows, size_t nrows, int mode, int level,
                             uint8_t *flags);

/* 1 when a record name is a communication op for the overflow rules
 * (Distributed.<api>.<n>.<direction> with send, recv, broadcast, reduce,
 * gather, scatter or all_to_all in it; the divergence rules also take
 * MintDistributed and communication.comm_func names). */
int origin_is_comm(const char *name);

/* A copy of t holding what origin_find reads once the flags are made: every
 * record's name, and the params of its communication ops only (the others'
 * statistics are what the flags already say), so that a step's ranks are
 * kept in a fraction of their dumps' size.  NULL out of memory. */
struct tree *origin_slim(const struct tree *t, enum origin_rules rules);
/* Whether t is already what origin_slim would keep: params for
 * communication ops only (the load's capture re-read: origin_slim's copy
 * would only move it, a tenth of the search's re-read). */
int origin_is_slim(const struct tree *t, enum origin_rules rules);

/* What the pairing reads of record r of t (a communication op), as text:
 * for src, src_group, dst, dst_group and group, the first input param of
 * that name -- absent, None, or the rank its value reads as (and the
 * group's ranks text) --, then every positional int argument with its
 * value.  Two trees giving the same text for an op pair it alike (the
 * light capture's tests check it against the whole read).  Malloc'd; NULL
 * out of memory. */
char *origin_op_view(const struct tree *t, size_t r);

const char *origin_phase_name(enum origin_phase p);   /* "before communication", ... */

#endif
