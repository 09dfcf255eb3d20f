/* flow: following a tensor through the shown graph (probetop-rules(7),
 * DATA FLOW) -- from a node's input to the node that produced it, from an
 * output to the nodes that consumed it, and across ranks through the
 * send/recv and collective pairs the origin search matches
 * (model/graph/comm.h) -- and the walk the tree and detail panes keep of
 * the hops taken (their breadcrumb, Backspace steps back).
 *
 * The index of a graph (model/graph/dataflow.h) is built the first time a
 * node of it is asked about and kept with the graph (graphs_loaded.df);
 * the peers on other ranks are graphs_peers().  The walk lives in struct
 * graphs (by value: step, rank and node id per hop), so it survives the
 * loads of other ranks' graphs a hop across ranks makes. */
#ifndef PT_SESSION_FLOW_H
#define PT_SESSION_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"

struct session;

/* How a hop was found: a dataflow method, or a communication pair. */
enum flow_how { FLOW_START = 0, FLOW_CHECKSUM = 1, FLOW_STATS = 2, FLOW_COMM = 3 };

#define FLOW_CRUMBS 32
struct flow_crumb {
    int32_t step, rank;
    uint8_t how;             /* how this node was reached from the one before (FLOW_START first) */
    uint8_t down;            /* reached downstream (an output's consumer) */
    char id[488];
};
struct flow_walk {
    struct flow_crumb c[FLOW_CRUMBS];
    int n;                   /* crumbs held; c[n-1] is where the walk is */
};

/* One link of a node: the other end of one of its tensors. */
struct flow_link {
    uint8_t down;            /* 0: the producer of an input; 1: a consumer of an output */
    uint8_t how;             /* enum flow_how */
    uint32_t mine;           /* the node's own param (index into tree->params), UINT32_MAX for a peer */
    int32_t rank;            /* the other end's rank */
    int node;                /* the other end in the shown graph, -1 on another rank */
    const char *id;          /* the other end's node id (valid while the graph is shown) */
    const char *slot;        /* its param ("output.0"), or the peer's role ("send") */
    uint32_t nequal;         /* outputs before the input with an equal key (1: the only one) */
};

/* The links of problem node n of the shown graph, upstream ones first,
 * each side in param order (a receiving node's peers before its inputs, a
 * collective's members after them; a sending node's receivers, then a
 * collective's members, after its outputs): how many there are; the first
 * `max` are written to out.  -1 with err (out of memory, a peer rank unreadable). */
long flow_links(struct session *a, int n, struct flow_link *out, size_t max, struct pt_error *err);
/* The link `<` (down 0) or `>` (down 1) follows from node n: the first
 * one of a tensor holding NaN/Inf when there is one, else the first; 1
 * with *l set, 0 none. */
int flow_pick(struct session *a, int n, int down, struct flow_link *l, struct pt_error *err);
/* Goes along l from node n (tree pane's offer tree_goto): the walk gets the
 * hop (started afresh when n is not where it was), the status line says
 * what was followed and how. */
int flow_follow(struct session *a, int n, const struct flow_link *l, struct pt_error *err);
/* One hop back along the walk; 0, or -1 with err at its start. */
int flow_back(struct session *a, struct pt_error *err);
/* The walk as one line, newest hop last ("rank 1 recv.0 <send/recv rank 5
 * send.0 <stats linear.6"); "" when no hop was made.  ascii: "<-" for "←". */
const char *flow_breadcrumb(const struct session *a, int ascii, char *buf, size_t size);
const char *flow_how_name(int how);   /* "checksum", "statistics", "send/recv", "" */

#endif
