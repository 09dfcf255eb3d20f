/* pipeline: the bands, links and bubbles of one step of a pipeline group
 * (model/trace/pipeline.h). */
#include "model/trace/pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "model/trace/lanes.h"
#include "model/trace/p2p.h"
#include "model/util/util.h"

/* The pass a phase belongs to: 0 forward, 1 backward, 2 nests in the
 * open pass, -1 ends it. */
static int pass_of(int phase) {
    switch (phase) {
    case TRACE_PH_FORWARD: return 0;
    case TRACE_PH_BACKWARD:
    case TRACE_PH_RECOMPUTE: return 1;
    case TRACE_PH_TP_COMM:
    case TRACE_PH_EP_COMM:
    case TRACE_PH_CP_COMM: return 2;
    default: return -1;
    }
}

static int push(void **v, int *n, int *cap, size_t sz) {
    if (*n < *cap) return 0;
    int c = *cap ? *cap * 2 : 16;
    void *q = realloc(*v, (size_t)c * sz);
    if (!q) return -1;
    *v = q;
    *cap = c;
    return 0;
}

/* The bands of rank r at step N into st (their micro-batches -1); the
 * step's span in *a, *b. */
static int stage_bands(const struct trace_rank *r, int32_t step, struct pipe_stage *st, int64_t *a, int64_t *b) {
    const struct trace_step *ts = NULL;
    int cap = 0, open = -1;
    if (!lanes_rank_span(r, step, a, b, &ts) || !ts) return 0;
    *a = ts->start_ns;
    *b = ts->end_ns + (ts == r->steps + r->nsteps - 1);   /* the kernels that start in the step (trace_step) */
    for (size_t i = ts->first; i < ts->first + ts->nsegs; i++) {
        const struct trace_seg *g = &r->segs[i];
        int k = pass_of(g->phase);
        if (k == 2 && open < 0) continue;
        if (k < 0 || (k < 2 && k != open)) open = -1;
        if (k < 0) continue;
        if (open < 0) {
            if (push((void **)&st->bands, &st->nbands, &cap, sizeof *st->bands)) return -1;
            st->bands[st->nbands++] = (struct pipe_band){g->start_ns, g->start_ns + g->dur_ns, -1, (uint8_t)k};
            open = k;
            continue;
        }
        struct pipe_band *bd = &st->bands[st->nbands - 1];
        if (g->start_ns + g->dur_ns > bd->end_ns) bd->end_ns = g->start_ns + g->dur_ns;
    }
    return 0;
}

const struct pipe_band *pipeline_band(const struct pipeline *p, int s, int32_t micro, int backward) {
    if (s < 0 || s >= p->nstages || micro < 0 || micro >= p->nmicro || !p->stages[s].at) return NULL;
    int i = p->stages[s].at[micro * 2 + (backward != 0)];
    return i >= 0 ? &p->stages[s].bands[i] : NULL;
}

/* The index of stage st's last band starting at or before t, -1 none. */
static int band_at_or_before(const struct pipe_stage *st, int64_t t) {
    int lo = 0, hi = st->nbands;
    while (lo < hi) {
        int m = (lo + hi) / 2;
        if (st->bands[m].start_ns <= t) lo = m + 1;
        else hi = m;
    }
    return lo - 1;
}

/* A band while the micro-batches are told: the link reaching it (-1
 * none) and whether a forward link leaves it. */
struct band_ref {
    int64_t start_ns;
    int stage, band;
    int in;
    uint8_t out_fwd;
};

static int cmp_ref(const void *a, const void *b) {
    const struct band_ref *x = a, *y = b;
    if (x->start_ns != y->start_ns) return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
    return x->stage != y->stage ? x->stage - y->stage : x->band - y->band;
}

/* The links of the step's sends and receives (p2p_pair) among the
 * stages' bands (span: each stage's step, [a, b)); per link, the sender's
 * and receiver's band in fb[], tb[] (malloc'd). */
static int paired_links(struct pipeline *p, const struct trace_run *run, const int64_t *span, int *cap, int **fb,
                        int **tb) {
    int n = p->nstages, rc = -1;
    size_t nz = n > 0 ? (size_t)n : 1;
    const struct trace_p2p **rec = calloc(nz, sizeof *rec);
    size_t *nrec = calloc(nz, sizeof *nrec), npairs = 0;
    int32_t *ranks = calloc(nz, sizeof *ranks);
    struct p2p_pair *pairs = NULL;
    if (!rec || !nrec || !ranks) goto out;
    for (int s = 0; s < n; s++) {
        ranks[s] = p->stages[s].rank;
        if (p->stages[s].ri >= 0 && p->stages[s].nbands)
            rec[s] = p2p_window(&run->ranks[p->stages[s].ri], span[2 * s], span[2 * s + 1], &nrec[s]);
    }
    if (p2p_pair(ranks, rec, nrec, n, &pairs, &npairs)) goto out;
    *cap = npairs ? (int)npairs : 1;
    if (!(p->links = malloc((size_t)*cap * sizeof *p->links)) || !(*fb = malloc((size_t)*cap * sizeof **fb)) ||
        !(*tb = malloc((size_t)*cap * sizeof **tb)))
        goto out;
    for (size_t i = 0; i < npairs; i++) {
        const struct pipe_stage *x = &p->stages[pairs[i].from], *y = &p->stages[pairs[i].to];
        int f = band_at_or_before(x, pairs[i].send->start_ns), t;
        if (f < 0) continue;
        int bw = x->bands[f].backward;
        for (t = band_at_or_before(y, pairs[i].recv->start_ns - 1) + 1; t < y->nbands && y->bands[t].backward != bw; t++) {}
        if (t >= y->nbands) continue;
        (*fb)[p->nlinks] = f;
        (*tb)[p->nlinks] = t;
        p->links[p->nlinks++] = (struct pipe_link){pairs[i].from, pairs[i].to, -1, (uint8_t)bw, 1, x->bands[f].end_ns,
                                                    y->bands[t].start_ns};
    }
    p->npaired = p->nlinks;
    rc = 0;
out:
    free(rec);
    free(nrec);
    free(ranks);
    free(pairs);
    return rc;
}

/* Every band's micro-batch (pipeline.h), the bands taken in start order so
 * a sender's is told before its receiver's; then the paired links'. */
static int tell_micros(struct pipeline *p, const int *fb, const int *tb) {
    int n = p->nstages, total = 0, k = 0;
    for (int s = 0; s < n; s++) total += p->stages[s].nbands;
    size_t nz = n > 0 ? (size_t)n : 1;
    int *base = calloc(nz + 1, sizeof *base), *next = calloc(nz, sizeof *next);
    int *fifo = calloc(nz, sizeof *fifo), *nbw = calloc(nz, sizeof *nbw);
    struct band_ref *v = malloc((size_t)(total ? total : 1) * sizeof *v);
    if (!base || !next || !fifo || !nbw || !v) { free(base); free(next); free(fifo); free(nbw); free(v); return -1; }
    for (int s = 0; s < n; s++) {
        base[s + 1] = base[s] + p->stages[s].nbands;
        for (int i = 0; i < p->stages[s].nbands; i++)
            v[k++] = (struct band_ref){p->stages[s].bands[i].start_ns, s, i, -1, 0};
    }
    for (int l = 0; l < p->npaired; l++) {
        struct band_ref *to = &v[base[p->links[l].to] + tb[l]];
        if (to->in < 0) to->in = l;
        if (!p->links[l].backward) v[base[p->links[l].from] + fb[l]].out_fwd = 1;
    }
    uint8_t *last = calloc((size_t)(total ? total : 1), 1);   /* by stage and band: a forward that hands on to no stage */
    if (!last) { free(base); free(next); free(fifo); free(nbw); free(v); return -1; }
    for (int i = 0; i < total; i++) last[i] = !v[i].out_fwd;
    qsort(v, (size_t)total, sizeof *v, cmp_ref);
    for (int i = 0; i < total; i++) {
        struct pipe_stage *st = &p->stages[v[i].stage];
        struct pipe_band *b = &st->bands[v[i].band];
        if (v[i].in >= 0) {
            const struct pipe_link *l = &p->links[v[i].in];
            b->micro = p->stages[l->from].bands[fb[v[i].in]].micro;
        }
        if (b->backward) nbw[v[i].stage]++;
        if (b->micro >= 0) continue;
        if (!b->backward) { b->micro = next[v[i].stage]++; continue; }
        int *q = &fifo[v[i].stage];   /* the stage's forwards in order, each taken once */
        while (*q < v[i].band && (st->bands[*q].backward || !last[base[v[i].stage] + *q] || st->bands[*q].micro < 0)) (*q)++;
        if (*q < v[i].band) b->micro = st->bands[(*q)++].micro;
        else b->micro = nbw[v[i].stage] - 1;   /* no forward before it: its order among the backwards */
    }
    for (int l = 0; l < p->npaired; l++) p->links[l].micro = p->stages[p->links[l].from].bands[fb[l]].micro;
    free(last);
    free(base);
    free(next);
    free(fifo);
    free(nbw);
    free(v);
    return 0;
}

/* Each stage's band index by (micro-batch, pass): the first of them. */
static int index_bands(struct pipeline *p) {
    for (int s = 0; s < p->nstages; s++) {
        struct pipe_stage *st = &p->stages[s];
        for (int i = 0; i < st->nbands; i++)
            if (st->bands[i].micro + 1 > p->nmicro) p->nmicro = st->bands[i].micro + 1;
    }
    for (int s = 0; s < p->nstages; s++) {
        struct pipe_stage *st = &p->stages[s];
        if (!(st->at = malloc((size_t)(p->nmicro ? p->nmicro : 1) * 2 * sizeof *st->at))) return -1;
        for (int i = 0; i < p->nmicro * 2; i++) st->at[i] = -1;
        for (int i = st->nbands - 1; i >= 0; i--)
            if (st->bands[i].micro >= 0) st->at[st->bands[i].micro * 2 + st->bands[i].backward] = i;
    }
    return 0;
}

/* Links by micro-batch order between neighbouring stages no send and
 * receive links (pipeline.h). */
static int order_links(struct pipeline *p, int *cap) {
    for (int i = 0; i + 1 < p->nstages; i++) {
        int any = 0;
        for (int l = 0; l < p->npaired && !any; l++)
            any = (p->links[l].from == i && p->links[l].to == i + 1) || (p->links[l].from == i + 1 && p->links[l].to == i);
        if (any) continue;
        for (int32_t m = 0; m < p->nmicro; m++)
            for (int bw = 0; bw < 2; bw++) {
                int from = bw ? i + 1 : i, to = bw ? i : i + 1;
                const struct pipe_band *x = pipeline_band(p, from, m, bw), *y = pipeline_band(p, to, m, bw);
                if (!x || !y) continue;
                if (push((void **)&p->links, &p->nlinks, cap, sizeof *p->links)) return -1;
                p->links[p->nlinks++] = (struct pipe_link){from, to, m, (uint8_t)bw, 0, x->end_ns, y->start_ns};
            }
    }
    return 0;
}

static int cmp_link(const void *a, const void *b) {
    const struct pipe_link *x = a, *y = b;
    if (x->micro != y->micro) return x->micro < y->micro ? -1 : 1;
    if (x->backward != y->backward) return x->backward - y->backward;
    if (x->from != y->from) return x->from - y->from;
    return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static void slowest_link(struct pipeline *p) {
    if (p->nlinks > 1) qsort(p->links, (size_t)p->nlinks, sizeof *p->links, cmp_link);
    for (int i = 0; i < p->nlinks; i++) {
        const struct pipe_link *l = &p->links[i];
        if (p->slowest < 0 || l->end_ns - l->start_ns > p->links[p->slowest].end_ns - p->links[p->slowest].start_ns)
            p->slowest = i;
    }
}

static int add_gap(struct pipeline *p, int *cap, int s, int64_t a, int64_t b) {
    if (b <= a) return 0;
    if (push((void **)&p->bubbles, &p->nbubbles, cap, sizeof *p->bubbles)) return -1;
    p->bubbles[p->nbubbles++] = (struct pipe_gap){s, a, b};
    const struct pipe_gap *w = p->widest >= 0 ? &p->bubbles[p->widest] : NULL;
    if (!w || b - a > w->end_ns - w->start_ns) p->widest = p->nbubbles - 1;
    return 0;
}

static int bubbles_of(struct pipeline *p) {
    int cap = 0;
    for (int s = 0; s < p->nstages; s++) {
        const struct pipe_stage *st = &p->stages[s];
        if (!st->nbands) continue;
        int64_t at = p->t0;
        for (int i = 0; i < st->nbands; i++) {
            if (add_gap(p, &cap, s, at, st->bands[i].start_ns)) return -1;
            if (st->bands[i].end_ns > at) at = st->bands[i].end_ns;
        }
        if (add_gap(p, &cap, s, at, p->t1)) return -1;
    }
    return 0;
}

int pipeline_build(const struct trace_run *run, const int32_t *ranks, int n, int32_t step, struct pipeline *out,
                   struct pt_error *err) {
    memset(out, 0, sizeof *out);
    out->step = step;
    out->widest = out->slowest = -1;
    out->stages = calloc(n > 0 ? (size_t)n : 1, sizeof *out->stages);
    int64_t *span = calloc(n > 0 ? 2 * (size_t)n : 1, sizeof *span);
    int *fb = NULL, *tb = NULL, cap = 0;
    if (!out->stages || !span) goto oom;
    out->nstages = n;
    int any = 0;
    for (int s = 0; s < n; s++) {
        struct pipe_stage *st = &out->stages[s];
        st->rank = ranks[s];
        st->ri = -1;
        int lo = 0, hi = run->nranks;   /* ranks ascend */
        while (lo < hi) {
            int m = (lo + hi) / 2;
            if (run->ranks[m].rank < ranks[s]) lo = m + 1;
            else hi = m;
        }
        if (lo < run->nranks && run->ranks[lo].rank == ranks[s]) st->ri = lo;
        if (st->ri < 0) continue;
        if (stage_bands(&run->ranks[st->ri], step, st, &span[2 * s], &span[2 * s + 1])) goto oom;
        for (int i = 0; i < st->nbands; i++) {
            const struct pipe_band *b = &st->bands[i];
            if (!any || b->start_ns < out->t0) out->t0 = b->start_ns;
            if (!any || b->end_ns > out->t1) out->t1 = b->end_ns;
            any = 1;
        }
    }
    if (paired_links(out, run, span, &cap, &fb, &tb) || tell_micros(out, fb, tb) || index_bands(out) ||
        order_links(out, &cap) || bubbles_of(out))
        goto oom;
    slowest_link(out);
    free(span);
    free(fb);
    free(tb);
    return 0;
oom:
    free(span);
    free(fb);
    free(tb);
    pipeline_free(out);
    return pt_errorf(err, "out of memory");
}

void pipeline_free(struct pipeline *p) {
    for (int s = 0; p->stages && s < p->nstages; s++) {
        free(p->stages[s].bands);
        free(p->stages[s].at);
    }
    free(p->stages);
    free(p->links);
    free(p->bubbles);
    memset(p, 0, sizeof *p);
    p->widest = p->slowest = -1;
}
