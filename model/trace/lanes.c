/* lanes: the time arithmetic of the lane view (see lanes.h). */
#include "model/trace/lanes.h"
#include "model/trace/tpatterns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t seg_end(const struct trace_seg *g) { return g->start_ns + (g->dur_ns > 0 ? g->dur_ns : 0); }

/* The rank's step N, by a search of its steps (ascending start, so not
 * necessarily ascending N: a scan). */
const struct trace_step *lanes_step_of(const struct trace_rank *r, int32_t step) {
    for (int i = 0; i < r->nsteps; i++)
        if (r->steps[i].step == step) return &r->steps[i];
    return NULL;
}

void lanes_step_span(const struct trace_rank *r, const struct trace_step *s, int64_t kend, int64_t *t0, int64_t *t1) {
    int64_t start = s->start_ns, end = kend > s->end_ns ? kend : s->end_ns;
    /* The device's step begins at its first kernel; what came before it
     * since the CPU entered the step (a pipeline stage waiting for its
     * first input) is idle of this step too, unless the previous step's
     * kernels still ran then. */
    if (s->cpu_end_ns > s->cpu_start_ns && s->cpu_start_ns < start) {
        int64_t from = s->cpu_start_ns;
        if (s > r->steps) {
            const struct trace_step *p = s - 1;
            for (size_t i = p->first; i < p->first + p->nsegs && i < r->nsegs; i++)
                if (seg_end(&r->segs[i]) > from) from = seg_end(&r->segs[i]);
        }
        if (from < start) start = from;
    }
    *t0 = start;
    *t1 = end > start ? end : start;
}

int lanes_rank_span(const struct trace_rank *r, int32_t step, int64_t *t0, int64_t *t1, const struct trace_step **st) {
    const struct trace_step *s = lanes_step_of(r, step);
    if (st) *st = s;
    if (!s) return 0;
    int64_t end = s->end_ns;
    for (size_t i = s->first; i < s->first + s->nsegs && i < r->nsegs; i++) {
        int64_t e = seg_end(&r->segs[i]);
        if (e > end) end = e;
    }
    lanes_step_span(r, s, end, t0, t1);
    return 1;
}

void lanes_extent_add(struct lanes_extent *x, int64_t a, int64_t b, enum lanes_align align) {
    if (align == LANES_STEP) {
        b -= a;
        a = 0;
    }
    if (!x->found || a < x->lo) x->lo = a;
    if (!x->found || b > x->hi) x->hi = b;
    x->found = 1;
}

int lanes_extent_end(const struct lanes_extent *x, int64_t *t0, int64_t *t1) {
    *t0 = x->found ? x->lo : 0;
    *t1 = x->found ? x->hi : 0;
    return x->found;
}

int lanes_span(const struct trace_run *run, const int *lanes, int nlanes, int32_t step, enum lanes_align align,
               int64_t *t0, int64_t *t1) {
    struct lanes_extent x = {0, 0, 0};
    for (int k = 0; k < nlanes; k++) {
        int64_t a, b;
        if (lanes[k] >= 0 && lanes[k] < run->nranks && lanes_rank_span(&run->ranks[lanes[k]], step, &a, &b, NULL))
            lanes_extent_add(&x, a, b, align);
    }
    return lanes_extent_end(&x, t0, t1);
}

void lanes_spread(double *acc, size_t stride, int nbins, int64_t t0, double w, int64_t a, int64_t b) {
    double x0 = (double)(a - t0) / w, x1 = (double)(b - t0) / w;
    if (x1 <= 0 || x0 >= nbins || x1 <= x0) return;
    if (x0 < 0) x0 = 0;
    if (x1 > nbins) x1 = nbins;
    int i0 = (int)x0, i1 = (int)ceil(x1);
    for (int i = i0; i < i1 && i < nbins; i++) {
        double lo = x0 > i ? x0 : i, hi = x1 < i + 1 ? x1 : i + 1;
        if (hi > lo) acc[(size_t)i * stride] += hi - lo;
    }
}

int lanes_bin(const struct trace_run *run, int ri, int32_t step, enum lanes_align align, int64_t t0, int64_t t1,
              int nbins, uint8_t *out, struct pt_error *err) {
    if (nbins < 1 || t1 <= t0) return 0;
    for (int i = 0; i < nbins; i++) out[i] = LANE_NONE;
    if (ri < 0 || ri >= run->nranks) return 0;
    const struct trace_rank *r = &run->ranks[ri];
    const struct trace_step *st;
    int64_t s0, s1;
    if (!lanes_rank_span(r, step, &s0, &s1, &st)) return 0;
    double *acc = calloc((size_t)nbins * LANE_NKINDS, sizeof *acc);
    if (!acc) return pt_errorf(err, "out of memory");
    int64_t off = align == LANES_STEP ? s0 : 0;   /* the lane's times on the window's clock */
    double w = (double)(t1 - t0) / nbins;
    lanes_spread(acc + LANE_NONE, LANE_NKINDS, nbins, t0, w, t0, s0 - off);
    lanes_spread(acc + LANE_NONE, LANE_NKINDS, nbins, t0, w, s1 - off, t1);
    int64_t cover = s0;   /* the union of kernels so far ends here: the rest is idle */
    for (size_t i = st->first; i < st->first + st->nsegs && i < r->nsegs; i++) {
        const struct trace_seg *g = &r->segs[i];
        int64_t a = g->start_ns, b = a + (g->dur_ns > 0 ? g->dur_ns : 0);
        if (a > cover) lanes_spread(acc + TRACE_IDLE, LANE_NKINDS, nbins, t0, w, cover - off, a - off);
        if (b > cover) cover = b;
        if (a - off >= t1) continue;   /* still sweeping for the idle runs */
        lanes_spread(acc + (g->cat < TRACE_IDLE ? g->cat : TRACE_COMPUTE), LANE_NKINDS, nbins, t0, w, a - off, b - off);
    }
    if (s1 > cover) lanes_spread(acc + TRACE_IDLE, LANE_NKINDS, nbins, t0, w, cover - off, s1 - off);
    static const int prefer[LANE_NKINDS] = {TRACE_COMM, TRACE_COMPUTE, TRACE_MEMORY, TRACE_IDLE, LANE_NONE};
    for (int i = 0; i < nbins; i++) {
        const double *c = &acc[(size_t)i * LANE_NKINDS];
        int best = LANE_NONE;
        double bv = -1;
        for (int k = 0; k < LANE_NKINDS; k++)
            if (c[prefer[k]] > bv) {
                bv = c[prefer[k]];
                best = prefer[k];
            }
        out[i] = (uint8_t)best;
    }
    free(acc);
    return 0;
}

void lanes_items_free(struct lane_items *it) {
    free(it->v);
    memset(it, 0, sizeof *it);
}

static int push(struct lane_items *it, size_t *cap, const struct lane_item *x) {
    if (it->n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        struct lane_item *v = realloc(it->v, c * sizeof *v);
        if (!v) return -1;
        it->v = v;
        *cap = c;
    }
    it->v[it->n++] = *x;
    return 0;
}

int lanes_items(const struct trace_run *run, int ri, int32_t step, struct lane_items *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    if (ri < 0 || ri >= run->nranks) return 0;
    const struct trace_rank *r = &run->ranks[ri];
    const struct trace_step *st;
    int64_t s0, s1;
    if (!lanes_rank_span(r, step, &s0, &s1, &st)) return 0;
    out->span0 = s0;
    out->span1 = s1;
    size_t cap = 0;
    int64_t cover = s0;
    struct lane_item gap = {0, 0, LANE_IDLE_NAME, TRACE_IDLE, TRACE_PH_NONE, 0};
    for (size_t i = st->first; i < st->first + st->nsegs && i < r->nsegs; i++) {
        const struct trace_seg *g = &r->segs[i];
        int64_t b = g->start_ns + (g->dur_ns > 0 ? g->dur_ns : 0);
        if (g->start_ns > cover) {
            gap.start_ns = cover;
            gap.dur_ns = g->start_ns - cover;
            if (push(out, &cap, &gap) != 0) goto oom;
        }
        if (b > cover) cover = b;
        struct lane_item k = {g->start_ns, g->dur_ns > 0 ? g->dur_ns : 0, g->name, g->cat, g->phase, g->stream};
        if (push(out, &cap, &k) != 0) goto oom;
    }
    if (s1 > cover) {
        gap.start_ns = cover;
        gap.dur_ns = s1 - cover;
        if (push(out, &cap, &gap) != 0) goto oom;
    }
    return 0;
oom:
    lanes_items_free(out);
    return pt_errorf(err, "out of memory");
}

long lanes_item_at(const struct lane_items *it, int64_t t) {
    if (!it->n) return -1;
    /* the last item starting at or before t */
    size_t lo = 0, hi = it->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (it->v[mid].start_ns <= t) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    long last = (long)lo - 1;
    /* a kernel on another stream may have started earlier and still run:
     * look back a little for the latest-starting item that covers t */
    for (long i = last, k = 0; i >= 0 && k < 256; i--, k++) {
        const struct lane_item *x = &it->v[i];
        if (t < x->start_ns + x->dur_ns || (x->dur_ns == 0 && t == x->start_ns)) return i;
    }
    return last;
}

int lanes_col(int64_t t, int64_t t0, int64_t t1, int ncols) {
    if (t < t0) return -1;
    if (t >= t1 || t1 <= t0) return ncols;
    double x = (double)(t - t0) / (double)(t1 - t0) * ncols;
    int c = (int)x;
    return c < ncols ? c : ncols - 1;
}

/* Moves [*t0, *t1) inside [lo, hi) without changing its width (when it fits). */
static void clamp(int64_t *t0, int64_t *t1, int64_t lo, int64_t hi) {
    int64_t w = *t1 - *t0;
    if (w >= hi - lo) {
        *t0 = lo;
        *t1 = hi;
        return;
    }
    if (*t0 < lo) { *t0 = lo; *t1 = lo + w; }
    if (*t1 > hi) { *t1 = hi; *t0 = hi - w; }
}

void lanes_zoom(int64_t *t0, int64_t *t1, int64_t center, double factor, int64_t lo, int64_t hi, int64_t min_width) {
    if (!(factor > 0) || !isfinite(factor)) return;
    double w = (double)(*t1 - *t0), nw = w * factor;
    if (nw < (double)min_width) nw = (double)min_width;
    if (nw > (double)(hi - lo)) nw = (double)(hi - lo);
    if (center < *t0) center = *t0;
    if (center > *t1) center = *t1;
    double f = w > 0 ? (double)(center - *t0) / w : 0.5;   /* center keeps its place on screen */
    *t0 = center - (int64_t)llround(nw * f);
    *t1 = *t0 + (int64_t)llround(nw);
    clamp(t0, t1, lo, hi);
}

void lanes_pan(int64_t *t0, int64_t *t1, int64_t delta, int64_t lo, int64_t hi) {
    *t0 += delta;
    *t1 += delta;
    clamp(t0, t1, lo, hi);
}

int lanes_pp_groups(const struct trace_run *run) {
    int n = 0;
    for (int i = 0; i < run->ngroups; i++) n += run->groups[i].dim == TPAT_DIM_PP;
    return n;
}

const int32_t *lanes_pp_group(const struct trace_run *run, int g, int *n) {
    for (int i = 0; i < run->ngroups; i++)
        if (run->groups[i].dim == TPAT_DIM_PP && g-- == 0) {
            *n = run->groups[i].nranks;
            return run->groups[i].ranks;
        }
    *n = 0;
    return NULL;
}
