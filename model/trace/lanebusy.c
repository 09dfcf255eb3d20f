/* lanebusy: one step's busy time of every rank, indexed (see lanebusy.h). */
#include "model/trace/lanebusy.h"

#include <stdlib.h>
#include <string.h>

void lanebusy_free(struct lanebusy *lb) {
    free(lb->has);
    free(lb->s0);
    free(lb->s1);
    free(lb->first);
    free(lb->a);
    free(lb->b);
    free(lb->cum);
    memset(lb, 0, sizeof *lb);
}

/* *v grown to n elements of size sz (kept when it holds them); 0, or -1. */
static int grow(void *v, size_t *cap, size_t n, size_t sz) {
    if (n <= *cap && *(void **)v) return 0;
    void *p = realloc(*(void **)v, (n ? n : 1) * sz);
    if (!p) return -1;
    *(void **)v = p;
    *cap = n;
    return 0;
}

int lanebusy_build(struct lanebusy *lb, const struct trace_run *run, int32_t step, struct pt_error *err) {
    size_t nr = run->nranks > 0 ? (size_t)run->nranks : 0, cap = 0, c;
    lb->run = NULL;   /* until it is made */
    for (size_t r = 0; r < nr; r++) {
        const struct trace_rank *rk = &run->ranks[r];
        const struct trace_step *s = lanes_step_of(rk, step);
        if (s && s->first < rk->nsegs) cap += s->nsegs < rk->nsegs - s->first ? s->nsegs : rk->nsegs - s->first;
    }
    /* the buffers of the last step are reused: a step's index costs no page faults */
    c = lb->rcap;
    if (grow(&lb->has, &c, nr, sizeof *lb->has)) goto oom;
    c = lb->rcap;
    if (grow(&lb->s0, &c, nr, sizeof *lb->s0)) goto oom;
    c = lb->rcap;
    if (grow(&lb->s1, &c, nr, sizeof *lb->s1)) goto oom;
    c = lb->rcap;
    if (grow(&lb->first, &c, nr + 1, sizeof *lb->first)) goto oom;
    lb->rcap = nr;
    c = lb->icap;
    if (grow(&lb->a, &c, cap, sizeof *lb->a)) goto oom;
    c = lb->icap;
    if (grow(&lb->b, &c, cap, sizeof *lb->b)) goto oom;
    c = lb->icap;
    if (grow(&lb->cum, &c, cap, sizeof *lb->cum)) goto oom;
    lb->icap = c;
    size_t n = 0;
    for (size_t r = 0; r < nr; r++) {
        lb->first[r] = n;
        const struct trace_rank *rk = &run->ranks[r];
        const struct trace_step *s = lanes_step_of(rk, step);
        lb->has[r] = s != NULL;
        lb->s0[r] = lb->s1[r] = 0;
        if (!s) continue;
        int64_t busy = 0;
        /* the union of the step's kernels, in start order; its last interval ends with the last kernel */
        for (size_t i = s->first; i < s->first + s->nsegs && i < rk->nsegs; i++) {
            const struct trace_seg *g = &rk->segs[i];
            int64_t a = g->start_ns, b = a + (g->dur_ns > 0 ? g->dur_ns : 0);
            if (n > lb->first[r] && a <= lb->b[n - 1]) {   /* meets the union's last interval */
                if (b > lb->b[n - 1]) {
                    busy += b - lb->b[n - 1];
                    lb->b[n - 1] = b;
                }
                continue;
            }
            lb->a[n] = a, lb->b[n] = b, lb->cum[n] = busy;
            busy += b - a;
            n++;
        }
        lanes_step_span(rk, s, n > lb->first[r] ? lb->b[n - 1] : s->end_ns, &lb->s0[r], &lb->s1[r]);
    }
    lb->first[nr] = n;
    lb->run = run;
    lb->step = step;
    lb->nranks = (int)nr;
    return 0;
oom:
    lanebusy_free(lb);
    return pt_errorf(err, "out of memory");
}

int lanebusy_rank_span(const struct lanebusy *lb, int ri, int64_t *t0, int64_t *t1) {
    if (ri < 0 || ri >= lb->nranks || !lb->has[ri]) return 0;
    *t0 = lb->s0[ri];
    *t1 = lb->s1[ri];
    return 1;
}

int lanebusy_span(const struct lanebusy *lb, const int *lanes, int nlanes, enum lanes_align align, int64_t *t0,
                  int64_t *t1) {
    struct lanes_extent x = {0, 0, 0};
    for (int k = 0; k < nlanes; k++) {
        int64_t a, b;
        if (lanebusy_rank_span(lb, lanes[k], &a, &b)) lanes_extent_add(&x, a, b, align);
    }
    return lanes_extent_end(&x, t0, t1);
}

/* The first interval of [k, end) that ends after x (ns from the window's
 * start, base the intervals' offset to it), end when none: a gallop from
 * k, since x only grows. */
static size_t ending_after(const int64_t *b, size_t k, size_t end, int64_t base, double x) {
    if (k >= end || (double)(b[k] - base) > x) return k;
    size_t lo = k, step = 1;   /* b[lo] ends at or before x */
    while (lo + step < end && (double)(b[lo + step] - base) <= x) lo += step, step *= 2;
    size_t hi = lo + step < end ? lo + step : end;   /* b[hi] ends after x, or hi == end */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if ((double)(b[mid] - base) <= x) lo = mid;
        else hi = mid;
    }
    return hi;
}

void lanebusy_slices(const struct lanebusy *lb, int ri, enum lanes_align align, int64_t t0, int64_t t1, int nbins,
                     float *out) {
    if (nbins < 1) return;
    for (int i = 0; i < nbins; i++) out[i] = 0;
    if (t1 <= t0 || ri < 0 || ri >= lb->nranks || !lb->has[ri]) return;
    size_t k = lb->first[ri], end = lb->first[ri + 1];
    if (k == end) return;
    int64_t base = (align == LANES_STEP ? lb->s0[ri] : 0) + t0;   /* interval times less base: ns from the window's start */
    double w = (double)(t1 - t0) / nbins, total = (double)(lb->cum[end - 1] + (lb->b[end - 1] - lb->a[end - 1]));
    /* busy ns before x: the intervals before k whole, and k's part before x */
    double prev = 0;
    for (int i = 0; i <= nbins; i++) {
        double x = i * w, before;
        k = ending_after(lb->b, k, end, base, x);
        if (k == end) {
            before = total;
        } else {
            double into = x - (double)(lb->a[k] - base);
            before = (double)lb->cum[k] + (into > 0 ? into : 0);
        }
        if (i > 0) {
            double s = (before - prev) / w;
            out[i - 1] = (float)(s > 1 ? 1 : s < 0 ? 0 : s);
        }
        prev = before;
        if (k == end) break;   /* the rest of the slices stay 0 */
    }
}
