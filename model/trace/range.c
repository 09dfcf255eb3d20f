/* range: a time range's aggregates across ranks (see range.h). */
#include "model/trace/range.h"

#include <string.h>

/* Adds rank r's part of [t0, t1) at its step st (span [s0, s1)) to *out. */
static void add_rank(const struct trace_rank *r, const struct trace_step *st, int64_t s0, int64_t s1,
                     enum lanes_align align, int64_t t0, int64_t t1, struct range_agg *out) {
    int64_t off = align == LANES_STEP ? s0 : 0;
    int64_t a = t0 + off > s0 ? t0 + off : s0, b = t1 + off < s1 ? t1 + off : s1;
    if (b <= a) return;
    struct trace_acc acc;
    trace_acc_init(&acc);
    for (size_t i = st->first; i < st->first + st->nsegs && i < r->nsegs; i++) {
        struct trace_seg g = r->segs[i];
        int64_t e = g.start_ns + (g.dur_ns > 0 ? g.dur_ns : 0);
        if (g.start_ns >= b) break;
        if (e <= a) continue;
        if (g.start_ns < a) g.start_ns = a;
        if (e > b) e = b;
        g.dur_ns = e - g.start_ns;
        trace_acc_add(&acc, &g);
    }
    struct trace_stats s;
    trace_acc_finish(&acc, &s);
    out->nranks++;
    out->span_ns += b - a;
    int64_t busy = s.kernel_ns - s.idle_ns;
    for (int c = 0; c < TRACE_IDLE; c++) out->cat_ns[c] += s.cat_ns[c];
    out->cat_ns[TRACE_IDLE] += (b - a) - (s.nkernels ? busy : 0);
    out->overlap_ns += s.overlap_ns;
    for (int p = 0; p < TRACE_NPHASES; p++)
        for (int c = 0; c < TRACE_IDLE; c++) out->phase_ns[p][c] += s.phase_ns[p][c];
    out->nkernels += s.nkernels;
}

void range_of(const struct trace_run *run, const int *lanes, int nlanes, int32_t step, enum lanes_align align,
              int64_t t0, int64_t t1, struct range_agg *out) {
    memset(out, 0, sizeof *out);
    if (t1 <= t0) return;
    for (int k = 0; k < nlanes; k++) {
        if (lanes[k] < 0 || lanes[k] >= run->nranks) continue;
        const struct trace_rank *r = &run->ranks[lanes[k]];
        const struct trace_step *st;
        int64_t s0, s1;
        if (lanes_rank_span(r, step, &s0, &s1, &st)) add_rank(r, st, s0, s1, align, t0, t1, out);
    }
}

void range_of_index(const struct lanebusy *lb, const int *lanes, int nlanes, enum lanes_align align, int64_t t0,
                    int64_t t1, struct range_agg *out) {
    memset(out, 0, sizeof *out);
    if (t1 <= t0) return;
    for (int k = 0; k < nlanes; k++) {
        int64_t s0, s1;
        if (!lanebusy_rank_span(lb, lanes[k], &s0, &s1)) continue;
        const struct trace_rank *r = &lb->run->ranks[lanes[k]];
        const struct trace_step *st = lanes_step_of(r, lb->step);
        if (st) add_rank(r, st, s0, s1, align, t0, t1, out);
    }
}
