/* p2p: the pipeline sends and receives of a trace (struct trace_p2p) and
 * their pairing (probetop(1), PIPELINE VIEW: Links).  As the origin search
 * pairs msProbe's send and recv records (model/graph/comm.h: the n-th
 * "{api}rank{peer}" of a rank with its partner's n-th mirrored key), the
 * n-th send of rank a to rank b in process group g pairs with the n-th
 * receive of b from a in g, n counted in start order among the records
 * given (one step's). */
#ifndef PT_MODEL_P2P_H
#define PT_MODEL_P2P_H

#include <stddef.h>
#include <stdint.h>

#include "model/trace/trace.h"

/* Appends *p to r->p2p (capacity *cap).  0, or -1 out of memory. */
int p2p_push(struct trace_rank *r, size_t *cap, const struct trace_p2p *p);
/* Sorts r->p2p by start (the reader appends them as it meets them). */
void p2p_sort(struct trace_rank *r);
/* Rank r's records that start in [a, b): *n of them from the returned one. */
const struct trace_p2p *p2p_window(const struct trace_rank *r, int64_t a, int64_t b, size_t *n);

/* A send and its receive: from and to index the ranks given to p2p_pair. */
struct p2p_pair {
    int from, to;
    const struct trace_p2p *send, *recv;
};
/* Pairs the records rec[i][0 .. nrec[i]) of ranks[i] (i < n, start
 * order) whose peer is another of the ranks: *out (malloc'd, by sender,
 * then its send's start) and *nout.  0, or -1 out of memory. */
int p2p_pair(const int32_t *ranks, const struct trace_p2p *const *rec, const size_t *nrec, int n, struct p2p_pair **out,
             size_t *nout);

#endif
