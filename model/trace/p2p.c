/* p2p: pipeline sends and receives and their pairing (model/trace/p2p.h). */
#include "model/trace/p2p.h"

#include <stdlib.h>

#include "model/util/util.h"

int p2p_push(struct trace_rank *r, size_t *cap, const struct trace_p2p *p) {
    if (UTIL_PUSH(r->p2p, r->np2p, *cap)) return -1;
    r->p2p[r->np2p++] = *p;
    return 0;
}

static int cmp_start(const void *a, const void *b) {
    const struct trace_p2p *x = a, *y = b;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

void p2p_sort(struct trace_rank *r) {
    if (r->np2p > 1) qsort(r->p2p, r->np2p, sizeof *r->p2p, cmp_start);
}

/* The first of r's records starting at or after t. */
static size_t first_at(const struct trace_rank *r, int64_t t) {
    size_t lo = 0, hi = r->np2p;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (r->p2p[m].start_ns < t) lo = m + 1;
        else hi = m;
    }
    return lo;
}

const struct trace_p2p *p2p_window(const struct trace_rank *r, int64_t a, int64_t b, size_t *n) {
    size_t i = first_at(r, a), j = first_at(r, b);
    *n = j > i ? j - i : 0;
    return r->p2p ? r->p2p + i : NULL;
}

/* A record keyed for the join: (send, pg, from, to), then start. */
struct item {
    uint64_t pg;
    int from, to;
    int send;
    const struct trace_p2p *p;
};

static int cmp_item(const void *a, const void *b) {
    const struct item *x = a, *y = b;
    if (x->send != y->send) return x->send - y->send;
    if (x->pg != y->pg) return x->pg < y->pg ? -1 : 1;
    if (x->from != y->from) return x->from - y->from;
    if (x->to != y->to) return x->to - y->to;
    return (x->p->start_ns > y->p->start_ns) - (x->p->start_ns < y->p->start_ns);
}

static int same_key(const struct item *x, const struct item *y) {
    return x->pg == y->pg && x->from == y->from && x->to == y->to;
}

static int cmp_pair(const void *a, const void *b) {
    const struct p2p_pair *x = a, *y = b;
    if (x->from != y->from) return x->from - y->from;
    return (x->send->start_ns > y->send->start_ns) - (x->send->start_ns < y->send->start_ns);
}

int p2p_pair(const int32_t *ranks, const struct trace_p2p *const *rec, const size_t *nrec, int n, struct p2p_pair **out,
             size_t *nout) {
    size_t total = 0, ni = 0, np = 0;
    *out = NULL;
    *nout = 0;
    for (int i = 0; i < n; i++) total += nrec[i];
    if (!total) return 0;
    struct item *v = malloc(total * sizeof *v);
    struct p2p_pair *pv = malloc(total * sizeof *pv);
    if (!v || !pv) { free(v); free(pv); return -1; }
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < nrec[i]; k++) {
            const struct trace_p2p *p = &rec[i][k];
            int j = 0;
            while (j < n && ranks[j] != p->peer) j++;
            if (j == n || j == i) continue;
            v[ni++] = (struct item){p->pg, p->send ? i : j, p->send ? j : i, p->send, p};
        }
    qsort(v, ni, sizeof *v, cmp_item);
    size_t r = 0, s = 0;   /* receives [0, nr), sends [nr, ni) */
    while (s < ni && !v[s].send) s++;
    size_t nr = s;
    while (r < nr && s < ni) {   /* each key's runs, k-th with k-th */
        int c = cmp_item(&(struct item){v[r].pg, v[r].from, v[r].to, 1, v[r].p}, &v[s]);
        if (same_key(&v[r], &v[s])) {
            size_t r1 = r, s1 = s;
            while (r1 < nr && same_key(&v[r1], &v[r])) r1++;
            while (s1 < ni && same_key(&v[s1], &v[s])) s1++;
            for (size_t k = 0; r + k < r1 && s + k < s1; k++)
                pv[np++] = (struct p2p_pair){v[s].from, v[s].to, v[s + k].p, v[r + k].p};
            r = r1;
            s = s1;
        } else if (c < 0) {
            r++;
        } else {
            s++;
        }
    }
    free(v);
    if (np > 1) qsort(pv, np, sizeof *pv, cmp_pair);
    *out = pv;
    *nout = np;
    return 0;
}
