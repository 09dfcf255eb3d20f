/* comm: communication ("data sending / receiving") links between the
 * Distributed.* nodes of the ranks of one step (probetop-rules(7), ORIGIN ACROSS RANKS: Communication links).
 *
 * Input: one tree per rank (records and params are enough; the tree need
 * not be built).  Point-to-point calls (send/isend -> recv/irecv) pair by
 * "{api}rank{peer}_{n}" with the partner's mirrored key and its own source/destination rank
 * pointing back; collectives pair by "{group_id}{api}_{n}": a rooted one
 * (broadcast, scatter, gather, reduce) links its root with every other
 * member and back with the opposite direction, an unrooted one (all_reduce,
 * all_gather, ...) links every member with every other.  n counts the
 * key's occurrences in dump order within the rank.  batch_isend_irecv gets
 * no link, as in msProbe.
 *
 * Owns the link array; records are named by (tree index, record index). */
#ifndef PT_COMM_H
#define PT_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/graph/tree.h"

enum comm_type { COMM_SEND = 0, COMM_RECEIVE = 1, COMM_SEND_RECEIVE = 2 };

struct comm_link {
    int from_tree;
    int32_t from_rec;
    int to_tree;
    int32_t to_rec;
    uint8_t type;          /* enum comm_type, as seen from `from` */
};

struct comm_links {
    struct comm_link *v;
    size_t n, cap;
};

int comm_links_build(const struct tree *const *trees, size_t ntrees, struct comm_links *out, struct pt_error *err);
void comm_links_free(struct comm_links *l);
const char *comm_type_name(int type);   /* "send", "receive", "send_receive" */

#endif
