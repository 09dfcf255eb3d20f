/* pipeline: the bands, links and bubbles of one step of a pipeline group
 * (model/trace/pipeline.h). */
#include "model/trace/pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "model/trace/lanes.h"

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

/* The bands of rank r at step N into st. */
static int stage_bands(const struct trace_rank *r, int32_t step, struct pipe_stage *st) {
    const struct trace_step *ts = NULL;
    int64_t a, b;
    int cap = 0, open = -1, nk[2] = {0, 0};
    if (!lanes_rank_span(r, step, &a, &b, &ts) || !ts) return 0;
    for (size_t i = ts->first; i < ts->first + ts->nsegs; i++) {
        const struct trace_seg *g = &r->segs[i];
        int k = pass_of(g->phase);
        if (k == 2 && open < 0) continue;
        if (k < 0 || (k < 2 && k != open)) open = -1;
        if (k < 0) continue;
        if (open < 0) {
            if (push((void **)&st->bands, &st->nbands, &cap, sizeof *st->bands)) return -1;
            st->bands[st->nbands++] = (struct pipe_band){g->start_ns, g->start_ns + g->dur_ns, nk[k]++, (uint8_t)k};
            open = k;
            continue;
        }
        struct pipe_band *bd = &st->bands[st->nbands - 1];
        if (g->start_ns + g->dur_ns > bd->end_ns) bd->end_ns = g->start_ns + g->dur_ns;
    }
    return 0;
}

const struct pipe_band *pipeline_band(const struct pipeline *p, int s, int32_t micro, int backward) {
    if (s < 0 || s >= p->nstages) return NULL;
    const struct pipe_stage *st = &p->stages[s];
    for (int i = 0; i < st->nbands; i++)
        if (st->bands[i].micro == micro && st->bands[i].backward == backward) return &st->bands[i];
    return NULL;
}

static int links_of(struct pipeline *p) {
    int cap = 0;
    for (int32_t m = 0; m < p->nmicro; m++)
        for (int bw = 0; bw < 2; bw++)
            for (int i = 0; i + 1 < p->nstages; i++) {
                int from = bw ? i + 1 : i, to = bw ? i : i + 1;
                const struct pipe_band *x = pipeline_band(p, from, m, bw), *y = pipeline_band(p, to, m, bw);
                if (!x || !y) continue;
                if (push((void **)&p->links, &p->nlinks, &cap, sizeof *p->links)) return -1;
                struct pipe_link *l = &p->links[p->nlinks++];
                *l = (struct pipe_link){from, to, m, (uint8_t)bw, x->end_ns, y->start_ns};
                if (p->slowest < 0 ||
                    l->end_ns - l->start_ns > p->links[p->slowest].end_ns - p->links[p->slowest].start_ns)
                    p->slowest = p->nlinks - 1;
            }
    return 0;
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
    if (!out->stages) return pt_errorf(err, "out of memory");
    out->nstages = n;
    int any = 0;
    for (int s = 0; s < n; s++) {
        struct pipe_stage *st = &out->stages[s];
        st->rank = ranks[s];
        st->ri = -1;
        for (int i = 0; i < run->nranks; i++)
            if (run->ranks[i].rank == ranks[s]) st->ri = i;
        if (st->ri < 0) continue;
        if (stage_bands(&run->ranks[st->ri], step, st)) goto oom;
        for (int i = 0; i < st->nbands; i++) {
            const struct pipe_band *b = &st->bands[i];
            if (!any || b->start_ns < out->t0) out->t0 = b->start_ns;
            if (!any || b->end_ns > out->t1) out->t1 = b->end_ns;
            if (b->micro + 1 > out->nmicro) out->nmicro = b->micro + 1;
            any = 1;
        }
    }
    if (links_of(out) || bubbles_of(out)) goto oom;
    return 0;
oom:
    pipeline_free(out);
    return pt_errorf(err, "out of memory");
}

void pipeline_free(struct pipeline *p) {
    for (int s = 0; p->stages && s < p->nstages; s++) free(p->stages[s].bands);
    free(p->stages);
    free(p->links);
    free(p->bubbles);
    memset(p, 0, sizeof *p);
    p->widest = p->slowest = -1;
}
