/* flow: a tensor followed through the shown graph and across ranks, and
 * the walk of the hops (src/session/flow.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/graph/comm.h"
#include "model/graph/dataflow.h"
#include "src/session/flow.h"
#include "src/session/graphs.h"
#include "src/session/session.h"

#define NONE UINT32_MAX

const char *flow_how_name(int how) {
    return how == FLOW_CHECKSUM ? "checksum" : how == FLOW_STATS ? "statistics" : how == FLOW_COMM ? "send/recv" : "";
}

/* The shown graph's index, built on first use. */
static const struct dataflow *index_of(struct session *a, struct pt_error *err) {
    struct graphs_loaded *G = a->graphs ? a->graphs->cur : NULL;
    if (!G || !G->t[0]) return NULL;
    if (!G->df && dataflow_build(G->t[0], &G->df, err) != 0) return NULL;
    return G->df;
}

/* The param's name without its record's name in front ("output.0"). */
static const char *slot_of(const struct tree *t, uint32_t p, int32_t rec) {
    const char *rn = rec >= 0 ? tree_s(t, t->recs[rec].name) : NULL;
    size_t l = rn ? strlen(rn) : 0;
    const char *after = l ? tree_pname_after(t, &t->params[p], rn, l) : NULL, *nm = tree_pname_whole(t, &t->params[p]);
    if (after && after[0] == '.') return after + 1;
    return nm ? nm : after && !*after ? rn : "?";
}

static int nonfinite(const struct tree *t, const struct tparam *q) {
    for (int s = 0; s < 4; s++) {
        struct tval v = tree_stat(t, q, s);
        if (v.kind == TV_FLOAT && !isfinite(v.real)) return 1;
    }
    return 0;
}

/* Any input (want 0) / output (want 1) of node n holds NaN/Inf. */
static int side_nonfinite(const struct tree *t, int n, int want) {
    uint32_t np;
    const struct tparam *pp = tree_params(t, n, &np);
    for (uint32_t k = 0; k < np; k++)
        if ((pp[k].state == PS_INPUT) == !want && pp[k].state != PS_PARAMETERS && nonfinite(t, &pp[k])) return 1;
    return 0;
}

struct acc {
    struct flow_link *out;
    size_t max, n;
};

static void put(struct acc *c, const struct flow_link *l) {
    if (c->n < c->max) c->out[c->n] = *l;
    c->n++;
}

/* The peers of n on other ranks whose direction is `down`: those of a
 * send or receive (coll 0), or of a collective, both ways (coll 1). */
static int peer_links(struct session *a, int n, int down, int coll, struct acc *c, struct pt_error *err) {
    const struct graphs_peer *peers;
    size_t np;
    if (graphs_peers(a, n, &peers, &np, err) != 0) return -1;
    for (size_t i = 0; i < np; i++) {
        int t = peers[i].type;
        if ((t == COMM_SEND_RECEIVE) != coll || (t != COMM_SEND_RECEIVE && (t == COMM_SEND) != down)) continue;
        /* the other end's role: the mirror of ours */
        const char *role = t == COMM_SEND ? "receive" : t == COMM_RECEIVE ? "send" : "send_receive";
        put(c, &(struct flow_link){(uint8_t)down, FLOW_COMM, NONE, peers[i].rank, -1, peers[i].node, role, 1});
    }
    return 0;
}

long flow_links(struct session *a, int n, struct flow_link *out, size_t max, struct pt_error *err) {
    struct graphs_loaded *G = a->graphs ? a->graphs->cur : NULL;
    if (!G || !G->t[0] || n < 0 || (size_t)n >= G->t[0]->nnodes) return 0;
    const struct tree *t = G->t[0];
    const struct dataflow *d = index_of(a, err);
    if (!d) return G->df || !t->nparams ? 0 : -1;
    struct acc c = {out, max, 0};
    uint32_t np;
    const struct tparam *pp = tree_params(t, n, &np);
    uint32_t p0 = np ? (uint32_t)(pp - t->params) : 0;
    if (peer_links(a, n, 0, 0, &c, err) != 0) return -1;
    for (uint32_t k = 0; k < np; k++) {
        struct dataflow_link l;
        if (pp[k].state != PS_INPUT || !dataflow_producer(d, p0 + k, &l)) continue;
        int node = t->recs[l.rec].node;
        put(&c, &(struct flow_link){0, l.method == DATAFLOW_CHECKSUM ? FLOW_CHECKSUM : FLOW_STATS, p0 + k, G->rank,
                                    node, tree_s(t, t->recs[l.rec].name), slot_of(t, l.param, l.rec), l.nequal});
    }
    /* a collective's members after the node's own inputs: a NaN input of
     * its own is followed first */
    if (peer_links(a, n, 0, 1, &c, err) != 0) return -1;
    for (uint32_t k = 0; k < np; k++) {
        const uint32_t *ins;
        uint32_t nc = pp[k].state == PS_INPUT ? 0 : dataflow_consumers(d, p0 + k, &ins);
        for (uint32_t j = 0; j < nc; j++) {
            struct dataflow_link l;
            int32_t r = dataflow_rec_of(d, ins[j]);
            if (r < 0 || !dataflow_producer(d, ins[j], &l)) continue;
            put(&c, &(struct flow_link){1, l.method == DATAFLOW_CHECKSUM ? FLOW_CHECKSUM : FLOW_STATS, p0 + k, G->rank,
                                        t->recs[r].node, tree_s(t, t->recs[r].name), slot_of(t, ins[j], r), l.nequal});
        }
    }
    if (peer_links(a, n, 1, 0, &c, err) != 0 || peer_links(a, n, 1, 1, &c, err) != 0) return -1;
    return (long)c.n;
}

int flow_pick(struct session *a, int n, int down, struct flow_link *l, struct pt_error *err) {
    struct flow_link ls[256];
    long k = flow_links(a, n, ls, sizeof ls / sizeof ls[0], err);
    if (k < 0) return -1;
    if ((size_t)k > sizeof ls / sizeof ls[0]) k = (long)(sizeof ls / sizeof ls[0]);
    const struct tree *t = a->graphs->cur->t[0];
    int first = -1;
    for (long i = 0; i < k; i++) {
        if (ls[i].down != down) continue;
        if (first < 0) first = (int)i;
        int bad = ls[i].mine != NONE ? nonfinite(t, &t->params[ls[i].mine]) : side_nonfinite(t, n, !down);
        if (bad) {
            *l = ls[i];
            return 1;
        }
    }
    if (first < 0) return 0;
    *l = ls[first];
    return 1;
}

static void crumb_set(struct flow_crumb *c, int32_t step, int32_t rank, int how, int down, const char *id) {
    c->step = step;
    c->rank = rank;
    c->how = (uint8_t)how;
    c->down = (uint8_t)down;
    snprintf(c->id, sizeof c->id, "%s", id);
}

static int go(struct session *a, const struct flow_crumb *c, struct pt_error *err) {
    if (!a->offers.tree_pane) return pt_errorf(err, "no tree pane for this input");
    return a->offers.tree_goto(a->offers.tree_pane, a, c->step, c->rank, c->id, err);
}

int flow_follow(struct session *a, int n, const struct flow_link *l, struct pt_error *err) {
    struct graphs *g = a->graphs;
    struct graphs_loaded *G = g ? g->cur : NULL;
    if (!G || !G->t[0]) return pt_errorf(err, "no graph loaded yet");
    struct flow_walk *w = &g->walk;
    const char *id = tree_id(G->t[0], n);
    const struct flow_crumb *last = w->n ? &w->c[w->n - 1] : NULL;
    if (!last || last->step != G->step || last->rank != G->rank || strcmp(last->id, id)) {
        w->n = 1;
        crumb_set(&w->c[0], G->step, G->rank, FLOW_START, 0, id);
    }
    if (w->n == FLOW_CRUMBS) {
        memmove(w->c, w->c + 1, (FLOW_CRUMBS - 1) * sizeof w->c[0]);
        w->n--;
    }
    char mine[160];
    snprintf(mine, sizeof mine, "%s", l->mine != NONE ? slot_of(G->t[0], l->mine, G->t[0]->nodes[n].rec) : "");
    int32_t step = G->step;
    crumb_set(&w->c[w->n++], step, l->rank, l->how, l->down, l->id);
    if (go(a, &w->c[w->n - 1], err) != 0) {
        w->n--;
        return -1;
    }
    char how[96];
    if (l->how == FLOW_COMM) snprintf(how, sizeof how, "the send/recv pair");
    else if (l->nequal > 1 && !l->down)
        snprintf(how, sizeof how, "%s; %u earlier outputs equal, the latest taken", flow_how_name(l->how), l->nequal);
    else snprintf(how, sizeof how, "%s", flow_how_name(l->how));
    char esc[600];
    const char *to = w->c[w->n - 1].id;
    pt_escape(to, strlen(to), esc, sizeof esc);
    if (l->how == FLOW_COMM) session_msg(a, "%s on rank %d: %s  (%s)", l->down ? "receiver" : "sender", (int)l->rank, esc, how);
    else session_msg(a, "%s of %s: %s %s  (%s)", l->down ? "consumer" : "producer", mine, esc, l->slot, how);
    return 0;
}

int flow_back(struct session *a, struct pt_error *err) {
    struct graphs *g = a->graphs;
    if (!g || g->walk.n < 2) return pt_errorf(err, "at the start of the walk (< and > follow a tensor)");
    struct flow_walk *w = &g->walk;
    w->n--;
    if (go(a, &w->c[w->n - 1], err) != 0) {
        w->n++;
        return -1;
    }
    char esc[600];
    pt_escape(w->c[w->n - 1].id, strlen(w->c[w->n - 1].id), esc, sizeof esc);
    session_msg(a, "back: %s  (%d hop%s walked)", esc, w->n - 1, w->n == 2 ? "" : "s");
    return 0;
}

/* The short name of a crumb: a module's last four segments, an op's id
 * without its family ("linear.6.forward"). */
static const char *short_id(const char *id) {
    if (!strncmp(id, "Module.", 7) || !strncmp(id, "Cell.", 5)) {
        const char *p = id + strlen(id);
        for (int dots = 0; p > id; p--)
            if (p[-1] == '.' && ++dots == 4) break;
        return p;
    }
    const char *dot = strchr(id, '.');
    return dot && dot[1] ? dot + 1 : id;
}

const char *flow_breadcrumb(const struct session *a, int ascii, char *buf, size_t size) {
    const struct flow_walk *w = a->graphs ? &a->graphs->walk : NULL;
    buf[0] = '\0';
    if (!w || w->n < 2 || !size) return buf;
    int ranks = 0;
    for (int i = 1; i < w->n; i++) ranks |= w->c[i].rank != w->c[0].rank;
    size_t len = 0;
    for (int i = 0; i < w->n && len + 1 < size; i++) {
        const struct flow_crumb *c = &w->c[i];
        if (i) {
            const char *arrow = c->down ? (ascii ? "->" : "\xe2\x86\x92") : (ascii ? "<-" : "\xe2\x86\x90");
            const char *tag = c->how == FLOW_CHECKSUM ? "crc" : c->how == FLOW_STATS ? "stats" : "p2p";
            len += (size_t)snprintf(buf + len, size - len, " %s%s ", arrow, tag);
        }
        if (len + 1 >= size) break;
        if (ranks && (!i || c->rank != w->c[i - 1].rank)) len += (size_t)snprintf(buf + len, size - len, "r%d:", (int)c->rank);
        if (len + 1 >= size) break;
        char esc[600];
        const char *s = short_id(c->id);
        len += (size_t)snprintf(buf + len, size - len, "%s", pt_escape(s, strlen(s), esc, sizeof esc));
    }
    if (len >= size) buf[size - 1] = '\0';
    return buf;
}
