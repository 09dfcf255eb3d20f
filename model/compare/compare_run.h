/* compare_run: "where did it first go wrong?" over a whole run, that is
 * over every (step, rank) pair a problem run and a benchmark run share.
 *
 * Owns the summary of one compared pair (counts of error / warning /
 * unmatched nodes, the pair's earliest diverging node at each level) and
 * the one order in which diverging nodes of different pairs are weighed:
 * step, then micro step, then rank, then the node's place in its graph
 * (msProbe's node_order, see model/compare/compare.h).  The cross-rank part of that
 * order is compare_run_rank_cmp() and nothing else, so rules that know on which
 * rank a divergence was born can take its place without touching the rest.
 *
 * The run's first divergence is the earliest node at error level in that
 * order, else the earliest at warning level (man page, "first divergence");
 * in md5 mode the earliest operator the determinism rule names comes
 * before them (probetop-rules(7), FIRST DIVERGENCE: Determinism). */
#ifndef PT_COMPARE_RUN_H
#define PT_COMPARE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "model/compare/compare.h"
#include "model/graph/tree.h"

enum compare_run_state {
    COMPARE_RUN_PENDING = 0,     /* not compared yet */
    COMPARE_RUN_DONE,            /* compared: counts and firsts are valid */
    COMPARE_RUN_FAILED           /* could not be compared (why says so) */
};

enum { COMPARE_RUN_ERR = 0, COMPARE_RUN_WARN = 1 };   /* index of compare_run_pair.first */

/* Where a diverging node is in the run. */
struct compare_run_point {
    int32_t step, micro, rank;
    int32_t order;        /* node_order in its graph; a pair without a
                             graph: the dump record's index */
};

struct compare_run_first {
    int have;
    struct compare_run_point at;
    char *name;           /* node id (owned) */
    char *in;             /* id of the enclosing module (owned), NULL none */
    double worst;         /* worst relative error as a fraction (inf allowed), -1 none */
    int det;              /* md5 mode: named by the determinism rule (an
                             operator with equal inputs, different outputs) */
};

struct compare_run_pair {
    int32_t step, rank;
    uint8_t state;        /* enum compare_run_state */
    uint8_t graph;        /* counts are of graph nodes (0: of table rows, no structure) */
    size_t nerror, nwarning, nunmatched, nunmatched_bench;
    struct compare_run_first first[2];   /* [COMPARE_RUN_ERR], [COMPARE_RUN_WARN] */
    char *why;            /* COMPARE_RUN_FAILED: the reason (owned) */
};

/* The cross-rank order: of two points at the same step and micro step,
 * <0, 0, >0 as a's rank comes before, with, after b's.  Ascending rank
 * numbers.  It sees both whole points, so rules that order ranks by where
 * a divergence was born (communication between ranks) can decide here. */
int compare_run_rank_cmp(const struct compare_run_point *a, const struct compare_run_point *b);
/* The run order of two points: step, micro step, rank (compare_run_rank_cmp),
 * node_order. */
int compare_run_cmp(const struct compare_run_point *a, const struct compare_run_point *b);

/* Offers a diverging node at level CL_ERROR or CL_WARNING to the pair:
 * kept when it comes before the one it has.  0, or -1 without memory. */
int compare_run_offer(struct compare_run_pair *p, int level, const struct compare_run_point *at, const char *name,
                      const char *in, double worst);

/* Makes the given node the pair's first at index which (COMPARE_RUN_ERR or
 * COMPARE_RUN_WARN), whatever its place: the node where the origin rules found
 * the run's divergence born.  0, or -1 without memory (the pair unchanged). */
int compare_run_pin(struct compare_run_pair *p, int which, const struct compare_run_point *at, const char *name,
                    const char *in, double worst);

/* Fills the pair from a graph compare: counts of the problem nodes at
 * error and warning level and of the unmatched ones (API collections not
 * counted, as the tree shows them), and the firsts.  The pair's step and
 * rank are the graph's.  0, or -1 without memory. */
int compare_run_pair_from_graph(struct compare_run_pair *p, const struct cmp_graph *g);
/* The same from a table compare (dumps without structure): rows, not
 * nodes; the order is the dump order. */
int compare_run_pair_from_table(struct compare_run_pair *p, const struct cmp_table *t);
/* The same a block at a time (cmp_table_next): the rows t holds now added
 * to what p already has; start with compare_run_pair_clear. */
int compare_run_pair_add_table(struct compare_run_pair *p, const struct cmp_table *t);
/* Where node n of g's problem tree is in the run (step, micro step, rank,
 * node_order) and the id of the module it runs in (*in, NULL none); returns
 * its level (cmp_node_level). */
int compare_run_node_point(const struct cmp_graph *g, int n, struct compare_run_point *at, const char **in);
/* Marks the pair failed with a reason (copied). */
void compare_run_pair_fail(struct compare_run_pair *p, const char *why);
/* Frees what the pair owns; it is PENDING again with its step and rank. */
void compare_run_pair_clear(struct compare_run_pair *p);

/* A copy of src into dst (0), or -1 without memory (dst empty); what a
 * compare_run_first owns is freed by compare_run_first_free, which leaves it empty. */
int compare_run_first_copy(struct compare_run_first *dst, const struct compare_run_first *src);
void compare_run_first_free(struct compare_run_first *f);

/* A diverging node for a person: "Functional.linear.8.forward in
 * Module....forward.0" (just the id when no module holds it). */
char *compare_run_where(const struct compare_run_first *f, char *buf, size_t size);

/* The run's first divergence over the DONE pairs of v[0..n): the index of
 * the pair holding it, with *which = COMPARE_RUN_ERR or COMPARE_RUN_WARN; -1 when no
 * pair has a diverging node.  A first the determinism rule named (det)
 * comes before every other. */
long compare_run_first(const struct compare_run_pair *v, size_t n, int *which);

#endif
