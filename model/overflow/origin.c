/* origin: msProbe's origin rules across ranks (man/probetop.1, "Origin
 * across ranks"): the search over the groups of paired communication ops
 * in layer order, the chain that carried the anomaly to the other ranks,
 * and the entry point.  What a record's flags are and what is a
 * communication op is model/overflow/origin_flags.c; how the ops pair and
 * get their layers, model/overflow/origin_pair.c. */
#include "model/overflow/origin_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- searching ---- */

static int push_hit(struct origin_result *out, size_t *cap, int rk, int32_t rec, int32_t layer, int32_t sub) {
    if (UTIL_PUSH(out->hits, out->nhits, *cap) != 0) return -1;
    out->hits[out->nhits++] = (struct origin_hit){rk, rec, layer, sub};
    return 0;
}

struct qent { size_t node; int32_t layer; size_t pos; };

static int by_layer(const void *a, const void *b) {
    const struct qent *x = a, *y = b;
    if (x->layer != y->layer) return (x->layer > y->layer) - (x->layer < y->layer);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Walks the groups of paired ops in layer order (see the header). */
static int search_groups(struct st *s, struct origin_result *out) {
    int rc = -1;
    size_t nn = s->nn, hcap = 0;
    size_t *uf = malloc((nn ? nn : 1) * sizeof *uf);
    uint8_t *seen = calloc(nn ? nn : 1, 1);
    struct qent *q = malloc((nn ? nn : 1) * sizeof *q);
    size_t *qpos = calloc(s->nr ? s->nr : 1, sizeof *qpos), *qend = calloc(s->nr ? s->nr : 1, sizeof *qend);
    size_t *groups = malloc((s->nr ? s->nr : 1) * sizeof *groups);
    /* each group's members, ascending: mem[g0[g] .. g0[g + 1]); gmark[g]:
     * the round that opened group g */
    size_t *g0 = calloc(nn + 1, sizeof *g0), *mem = malloc((nn ? nn : 1) * sizeof *mem);
    size_t *gmark = calloc(nn ? nn : 1, sizeof *gmark), round = 0;
    if (!uf || !seen || !q || !qpos || !qend || !groups || !g0 || !mem || !gmark) goto out;
    for (size_t i = 0; i < nn; i++) uf[i] = i;
    for (size_t e = 0; e < s->ne; e++) {
        const struct edge *E = &s->edges[e];
        if (s->nodes[E->a].pruned || s->nodes[E->b].pruned) continue;
        size_t a = origin_uf_find(uf, (size_t)E->a), b = origin_uf_find(uf, (size_t)E->b);
        if (a != b) uf[a] = b;
    }
    for (size_t i = 0; i < nn; i++)
        if (!s->nodes[i].pruned) g0[origin_uf_find(uf, i) + 1]++;
    for (size_t i = 0; i < nn; i++) g0[i + 1] += g0[i];
    for (size_t i = 0; i < nn; i++)   /* gmark counts the members placed, until the rounds use it */
        if (!s->nodes[i].pruned) {
            size_t g = origin_uf_find(uf, i);
            mem[g0[g] + gmark[g]++] = i;
        }
    memset(gmark, 0, (nn ? nn : 1) * sizeof *gmark);
    size_t nq = 0;
    for (size_t r = 0; r < s->nr; r++) {
        size_t q0 = nq;
        for (size_t i = s->ri[r].n0; i < s->ri[r].n1; i++)
            if (!s->nodes[i].pruned) q[nq++] = (struct qent){i, s->nodes[i].layer, i};
        int sorted = 1;   /* most often already in layer order: no sort */
        for (size_t i = q0 + 1; i < nq && sorted; i++) sorted = by_layer(&q[i - 1], &q[i]) < 0;
        if (!sorted) qsort(q + q0, nq - q0, sizeof *q, by_layer);
        qpos[r] = q0;
        qend[r] = nq;
    }
    for (;;) {
        int any = 0;
        for (size_t r = 0; r < s->nr; r++) any |= qpos[r] < qend[r];
        if (!any) break;
        size_t ng = 0;
        round++;
        for (size_t r = 0; r < s->nr; r++) {
            size_t node = SIZE_MAX;
            while (qpos[r] < qend[r]) {
                size_t x = q[qpos[r]++].node;
                if (!seen[x]) { node = x; break; }
            }
            if (node == SIZE_MAX) continue;
            size_t g = origin_uf_find(uf, node);
            int known = gmark[g] == round;
            gmark[g] = round;
            /* every rank's next op opens its group (msProbe's overflow
             * check opens only the first rank's and drops the other ranks'
             * ops of the round, which makes its answer depend on the order
             * the file system lists the rank folders in) */
            if (!known) groups[ng++] = g;
        }
        size_t h0 = out->nhits;
        for (size_t k = 0; k < ng; k++) {
            /* compute ops first, then communication ops, each in rank order */
            size_t m0 = g0[groups[k]], m1 = g0[groups[k] + 1];
            for (size_t m = m0; m < m1; m++) {
                size_t i = mem[m];
                const struct cnode *c = &s->nodes[i];
                seen[i] = 1;
                /* overflow_check takes the births before an op that sends
                 * the anomaly on; compare -da every birth before the op */
                int feeds = s->rules == ORIGIN_DIVERGENCE || ((c->type == T_SRC || c->type == T_LINK) && (c->bad & ORIGIN_IN));
                if (!feeds) continue;
                for (size_t j = 0; j < c->nc; j++) {
                    const struct cand *cd = &s->cands[c->c0 + j];
                    if (push_hit(out, &hcap, cd->rk, cd->rec, c->layer, cd->sub_layer) != 0) goto out;
                }
            }
            /* an op whose output is anomalous while a source or collective
             * partner of its group had the anomaly in its inputs received
             * it: propagated, not born (here probetop parts from msProbe,
             * which also counts such an op, see man/probetop.1) */
            int fed = 0;
            for (size_t m = m0; m < m1 && !fed; m++) {
                const struct cnode *c = &s->nodes[mem[m]];
                fed = (c->type == T_SRC || c->type == T_LINK) && (c->bad & ORIGIN_IN);
            }
            for (size_t m = m0; m < m1 && !fed; m++) {
                const struct cnode *c = &s->nodes[mem[m]];
                if (!c->anomaly) continue;
                if (push_hit(out, &hcap, c->rk, c->rec, c->layer, c->sub_layer) != 0) goto out;
            }
        }
        if (out->nhits > h0) {
            /* the least (layer, sub_layer), ties to the lowest rank */
            size_t best = h0;
            for (size_t i = h0 + 1; i < out->nhits; i++) {
                const struct origin_hit *a = &out->hits[i], *b = &out->hits[best];
                if (a->layer != b->layer ? a->layer < b->layer
                    : a->sub_layer != b->sub_layer ? a->sub_layer < b->sub_layer : a->rank < b->rank)
                    best = i;
            }
            out->hits[0] = out->hits[best];
            out->nhits = 1;
            out->phase = ORIGIN_DURING_COMM;
            break;
        }
    }
    rc = 0;
out:
    free(uf);
    free(seen);
    free(q);
    free(qpos);
    free(qend);
    free(groups);
    free(g0);
    free(mem);
    free(gmark);
    return rc;
}

/* ---- the chain ---- */

static int push_hop(struct origin_result *out, size_t *cap, struct origin_hop h) {
    if (UTIL_PUSH(out->hops, out->nhops, *cap) != 0) return -1;
    out->hops[out->nhops++] = h;
    return 0;
}

/* The node holding record rec of rank rk, SIZE_MAX none. */
static size_t node_of(const struct st *s, int rk, int32_t rec) {
    const struct rankinfo *ri = &s->ri[rk];
    size_t lo = ri->n0, hi = ri->n1;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s->nodes[m].rec < rec) lo = m + 1;
        else hi = m;
    }
    return lo < ri->n1 && s->nodes[lo].rec == rec ? lo : SIZE_MAX;
}

/* The peer op that fed node n (its source, or a collective partner) with
 * an anomaly, preferring ranks in `infected`; SIZE_MAX none. */
static size_t feeding_peer(const struct st *s, size_t n, const uint8_t *infected, int need_infected) {
    size_t best = SIZE_MAX;
    for (size_t k = s->adj0[n]; k < s->adj0[n + 1]; k++) {
        const struct edge *E = &s->edges[s->adj[k]];
        size_t p;
        if (E->kind == E_DST) {
            if ((size_t)E->b != n) continue;   /* a destination does not feed its source */
            p = (size_t)E->a;
        } else if ((size_t)E->a == n) p = (size_t)E->b;
        else if ((size_t)E->b == n) p = (size_t)E->a;
        else continue;
        const struct cnode *c = &s->nodes[p];
        if (!c->bad) continue;
        if (need_infected && !infected[c->rk]) continue;
        /* the peer that had it in its inputs (the one that sent it), else
         * the lowest rank */
        if (best == SIZE_MAX || ((c->bad & ORIGIN_IN) && !(s->nodes[best].bad & ORIGIN_IN)) ||
            (!(c->bad & ORIGIN_IN) == !(s->nodes[best].bad & ORIGIN_IN) && c->rk < s->nodes[best].rk))
            best = p;
    }
    return best;
}

static int build_chain(struct st *s, struct origin_result *out) {
    size_t nr = s->nr, cap = 0;
    uint8_t *infected = calloc(nr ? nr : 1, 1);
    int32_t *entry = malloc((nr ? nr : 1) * sizeof *entry);
    /* each node's edges, in edge order: adj[adj0[n] .. adj0[n + 1]) */
    s->adj0 = calloc(s->nn + 1, sizeof *s->adj0);
    s->adj = malloc((s->ne ? 2 * s->ne : 1) * sizeof *s->adj);
    if (!infected || !entry || !s->adj0 || !s->adj) { free(infected); free(entry); return -1; }
    for (size_t e = 0; e < s->ne; e++) {
        s->adj0[s->edges[e].a + 1]++;
        s->adj0[s->edges[e].b + 1]++;
    }
    for (size_t i = 0; i < s->nn; i++) s->adj0[i + 1] += s->adj0[i];
    for (size_t e = 0; e < s->ne; e++) {   /* adj0[n] runs to its end, then steps back */
        s->adj[s->adj0[s->edges[e].a]++] = e;
        s->adj[s->adj0[s->edges[e].b]++] = e;
    }
    for (size_t i = s->nn; i > 0; i--) s->adj0[i] = s->adj0[i - 1];
    s->adj0[0] = 0;
    uint8_t mask = ORIGIN_IN | ORIGIN_OUT;
    for (size_t r = 0; r < nr; r++) {
        entry[r] = -1;
        const struct tree *t = s->R[r].tree;
        for (size_t i = 0; i < t->nrecs && entry[r] < 0; i++)
            if ((s->R[r].flags[i] & mask) && !origin_skipped(origin_rec_name(t, i), s->rules)) entry[r] = (int32_t)i;
    }
    for (size_t h = 0; h < out->nhits; h++) infected[out->hits[h].rank] = 1;
    int rc = 0;
    for (;;) {
        /* every rank reached from an already affected one, until none is */
        int changed = 1;
        while (changed && rc == 0) {
            changed = 0;
            for (size_t r = 0; r < nr && rc == 0; r++) {
                if (infected[r] || entry[r] < 0) continue;
                size_t n = node_of(s, (int)r, entry[r]);
                size_t p = n == SIZE_MAX ? SIZE_MAX : feeding_peer(s, n, infected, 1);
                if (p == SIZE_MAX) continue;
                rc = push_hop(out, &cap, (struct origin_hop){s->nodes[p].rk, (int)r, s->nodes[p].rec, entry[r]});
                infected[r] = changed = 1;
            }
        }
        /* then the first rank left: fed by a peer not yet placed, or born there */
        size_t r = 0;
        while (r < nr && (infected[r] || entry[r] < 0)) r++;
        if (rc != 0 || r == nr) break;
        size_t n = node_of(s, (int)r, entry[r]);
        size_t p = n == SIZE_MAX ? SIZE_MAX : feeding_peer(s, n, infected, 0);
        struct origin_hop hop = {-1, (int)r, -1, entry[r]};
        if (p != SIZE_MAX) {
            hop.from = s->nodes[p].rk;
            hop.from_rec = s->nodes[p].rec;
        }
        rc = push_hop(out, &cap, hop);
        infected[r] = 1;
    }
    free(infected);
    free(entry);
    return rc;
}

/* ---- entry point ---- */

int origin_find(const struct origin_rank *ranks, size_t n, enum origin_rules rules, struct origin_result *out,
                struct pt_error *err) {
    memset(out, 0, sizeof *out);
    struct st s = {.R = ranks, .nr = n, .rules = rules, .groups = {.borrow = 1}};
    size_t hcap = 0;
    int rc = -1;
    int32_t *born = NULL;
    s.ri = calloc(n ? n : 1, sizeof *s.ri);
    if (!s.ri) goto oom;
    /* each rank's first communication op, a birth before it, its ops */
    if (!(born = malloc((n ? n : 1) * sizeof *born)) || origin_build_ranks(&s, born) != 0) goto oom;
    /* before any communication: each rank's first candidate */
    for (size_t r = 0; r < n; r++)
        if (born[r] >= 0 && push_hit(out, &hcap, (int)r, born[r], -1, 0) != 0) goto oom;
    if (out->nhits) out->phase = ORIGIN_BEFORE_COMM;
    /* pairing also serves the chain, so it runs whatever the phase */
    if (s.nn) {
        if (origin_pair_ops(&s) != 0) goto oom;
        for (size_t i = 0; i < s.nn; i++) {
            struct cnode *c = &s.nodes[i];
            if (!c->bad && c->nc == 0) c->pruned = 1;
        }
        if (!out->nhits && search_groups(&s, out) != 0) goto oom;
    }
    if (!out->nhits) {
        for (size_t r = 0; r < n; r++)
            if (s.ri[r].na) {
                const struct cand *c = &s.cands[s.ri[r].a0];
                int32_t layer = (int32_t)(s.ri[r].n1 - s.ri[r].n0);
                if (push_hit(out, &hcap, c->rk, c->rec, layer, c->sub_layer) != 0) goto oom;
            }
        if (out->nhits) out->phase = ORIGIN_AFTER_COMM;
    }
    if (out->nhits && build_chain(&s, out) != 0) goto oom;
    rc = 0;
    goto done;
oom:
    origin_result_free(out);
    pt_errorf(err, "out of memory while looking for the origin rank");
done:
    for (size_t i = 0; i < s.nn; i++)
        if (s.nodes[i].own_conn) free(s.nodes[i].conn);
    for (size_t i = 0; i < s.ngsets; i++) free(s.gsets[i].v);
    free(s.gsets);
    util_smap_free(&s.groups);
    free(s.byk);
    free(s.ktab);
    free(s.adj0);
    free(s.adj);
    free(s.keys);
    free(s.segs);
    free(s.nodes);
    free(s.cands);
    free(s.edges);
    free(s.ri);
    free(born);
    return rc;
}

void origin_rank_order(const struct origin_result *r, size_t n, int *order) {
    size_t k = 0;
    /* a rank goes in at its first mention */
    for (size_t i = 0; i < r->nhits + r->nhops + n; i++) {
        int x = i < r->nhits ? r->hits[i].rank : i < r->nhits + r->nhops ? r->hops[i - r->nhits].to
                                                                        : (int)(i - r->nhits - r->nhops);
        if (x < 0 || (size_t)x >= n) continue;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++) seen = order[j] == x;
        if (!seen) order[k++] = x;
    }
}

void origin_result_free(struct origin_result *r) {
    free(r->hits);
    free(r->hops);
    memset(r, 0, sizeof *r);
}

const char *origin_phase_name(enum origin_phase p) {
    switch (p) {
    case ORIGIN_BEFORE_COMM: return "before any communication";
    case ORIGIN_DURING_COMM: return "between communication ops";
    case ORIGIN_AFTER_COMM: return "after the last communication op";
    default: return "none";
    }
}
