/* trace_build: one rank of a profiler trace assembled from its parsed
 * files (trace_build.h says what it owns; probetop-rules(7), PROFILER
 * TRACES, for the figures). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "model/trace/p2p.h"
#include "model/trace/phases.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/trace/trace_build.h"

struct ktmp {
    struct trace_seg seg;
    int32_t step;       /* ProfilerStep it was launched in, INT32_MIN none */
    int32_t hta_ds, hta_de;   /* HTA's rounding of its start and end (trace_parse_kernel), 0 unless its file has ts_frac */
    uint8_t keep;       /* in HTA's window */
    uint8_t hta_kernel; /* in HTA's idle breakdown (trace_parse_kernel) */
    int64_t launch_ns;  /* its CPU launch (HTA's whole us when hta_ds is), IDLE_NO_LAUNCH none */
    int16_t micro;      /* its micro-batch in the step, -1 none (or beyond 32767) */
};

static int cmp_step(const void *a, const void *b) {
    const struct trace_parse_step *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}
static int cmp_anno(const void *a, const void *b) {
    const struct trace_parse_anno *x = a, *y = b;
    if (x->start != y->start) return (x->start > y->start) - (x->start < y->start);
    return (x->end < y->end) - (x->end > y->end);   /* the enclosing one first */
}
/* A CPU ProfilerStep of one of a rank's files, numbered in file order. */
struct step_ref {
    int32_t n;
    size_t seq;
    int64_t start, end;
};
static int cmp_step_ref(const void *a, const void *b) {
    const struct step_ref *x = a, *y = b;
    if (x->n != y->n) return (x->n > y->n) - (x->n < y->n);
    return (x->seq > y->seq) - (x->seq < y->seq);
}
static int cmp_trace_step(const void *a, const void *b) {
    const struct trace_step *x = a, *y = b;
    return (x->cpu_start_ns > y->cpu_start_ns) - (x->cpu_start_ns < y->cpu_start_ns);
}
static int cmp_ktmp(const void *a, const void *b) {
    const struct ktmp *x = a, *y = b;
    if (x->seg.start_ns != y->seg.start_ns) return (x->seg.start_ns > y->seg.start_ns) - (x->seg.start_ns < y->seg.start_ns);
    return (x->seg.stream > y->seg.stream) - (x->seg.stream < y->seg.stream);
}

/* qsort, unless every item is strictly before the next (a trace's steps
 * and annotations mostly come in order): with no ties that is the order
 * qsort gives. */
static void sort_unless_ordered(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    const char *p = v;
    size_t i = 1;
    while (i < n && cmp(p + (i - 1) * size, p + i * size) < 0) i++;
    if (i < n) qsort(v, n, size, cmp);
}

/* cmp_ktmp's order as one key (trace_spill_keys): the start less the
 * smallest, then the stream; -1 when the starts span 2^48 ns (78 hours) or
 * more. */
static int ktmp_keys(const void *recs, size_t n, size_t rec, uint64_t *out) {
    const struct ktmp *v = recs;
    if (rec != sizeof *v || !n) return -1;
    int64_t lo = v[0].seg.start_ns, hi = lo;
    for (size_t i = 1; i < n; i++) {
        if (v[i].seg.start_ns < lo) lo = v[i].seg.start_ns;
        if (v[i].seg.start_ns > hi) hi = v[i].seg.start_ns;
    }
    if ((uint64_t)hi - (uint64_t)lo >= (uint64_t)1 << 48) return -1;
    for (size_t i = 0; i < n; i++) out[i] = ((uint64_t)v[i].seg.start_ns - (uint64_t)lo) << 16 | v[i].seg.stream;
    return 0;
}

/* The last of n items sorted by start whose start <= t, or -1. */
#define LAST_AT_OR_BEFORE(arr, n, t, out)                     \
    do {                                                      \
        size_t lo_ = 0, hi_ = (n);                            \
        while (lo_ < hi_) {                                   \
            size_t mid_ = (lo_ + hi_) / 2;                    \
            if ((arr)[mid_].start <= (t)) lo_ = mid_ + 1;     \
            else hi_ = mid_;                                  \
        }                                                     \
        (out) = (long)lo_ - 1;                                \
    } while (0)

/* LAST_AT_OR_BEFORE, the answer of the call before (*hint, -1 none) or
 * the one after it tried first (times mostly come in order); *hint set. */
#define LAST_AT_OR_BEFORE_HINT(arr, n, t, hint, out)                                                   \
    do {                                                                                               \
        size_t h_ = (size_t)*(hint);                                                                   \
        if (*(hint) >= 0 && h_ < (n) && (arr)[h_].start <= (t) && (h_ + 1 == (n) || (arr)[h_ + 1].start > (t))) \
            (out) = (long)h_;                                                                          \
        else if (*(hint) >= 0 && h_ + 1 < (n) && (arr)[h_ + 1].start <= (t) &&                         \
                 (h_ + 2 == (n) || (arr)[h_ + 2].start > (t)))                                         \
            (out) = (long)h_ + 1;                                                                      \
        else                                                                                           \
            LAST_AT_OR_BEFORE(arr, n, t, out);                                                         \
        *(hint) = (out);                                                                               \
    } while (0)

/* The CPU step (gpu copies left out) whose span holds t: its number, or
 * INT32_MIN.  hint: see LAST_AT_OR_BEFORE_HINT. */
static int32_t step_at(const struct trace_parse_step *s, size_t n, int64_t t, long *hint) {
    long i;
    LAST_AT_OR_BEFORE_HINT(s, n, t, hint, i);
    for (; i >= 0; i--) {   /* gpu copies are interleaved: skip them */
        if (s[i].gpu) continue;
        return t < s[i].end ? s[i].n : INT32_MIN;
    }
    return INT32_MIN;
}

/* The innermost annotation holding t (parent[] links each to the one
 * enclosing it), -1 none. */
static long anno_at(const struct trace_parse_anno *a, const long *parent, size_t n, int64_t t, long *hint) {
    long i;
    LAST_AT_OR_BEFORE_HINT(a, n, t, hint, i);
    while (i >= 0 && a[i].end <= t) i = parent[i];
    return i;
}

/* Micro-batches (probetop-rules(7), PROFILER TRACES: Micro-batches): the
 * k-th forward_step (backward_step) of a step is micro-batch k, unless it
 * nests in one of its kind (one pass seen twice); what nests in a pass
 * takes its micro-batch. */
static void anno_micros(struct trace_parse_anno *a, const long *parent, size_t n, const struct trace_parse_file *f) {
    int32_t step = INT32_MIN, nf = 0, nb = 0;
    long hint = -1;
    for (size_t i = 0; i < n; i++) {
        int32_t st = step_at(f->steps, f->nsteps, a[i].start, &hint);
        if (st != step) step = st, nf = nb = 0;
        a[i].micro = parent[i] >= 0 ? a[parent[i]].micro : -1;
        if (a[i].phase != TRACE_PH_FORWARD && a[i].phase != TRACE_PH_BACKWARD) continue;
        long q = parent[i];
        while (q >= 0 && a[q].phase != a[i].phase) q = parent[q];
        if (q < 0) a[i].micro = a[i].phase == TRACE_PH_FORWARD ? nf++ : nb++;
    }
}

/* torch_npu: kernels without a correlation id (v, nv: sorted by stream
 * then start) take the id of the launch flow ending inside them (same
 * stream). */
static void link_flows(struct trace_parse_kernel *v, size_t n, const struct trace_parse_file *f) {
    for (size_t i = 0; i < f->nflows; i++) {
        const struct trace_parse_flow *w = &f->flows[i];
        int64_t st = w->tid < 0 ? 0 : w->tid > 65535 ? 65535 : w->tid;
        int64_t ts = w->ts - f->base_ns;   /* the kernels have no base yet */
        size_t lo = 0, hi = n;   /* the last kernel of the stream starting at or before the flow */
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (v[m].stream < st || (v[m].stream == st && v[m].start <= ts)) lo = m + 1;
            else hi = m;
        }
        if (lo == 0) continue;
        struct trace_parse_kernel *k = &v[lo - 1];
        if (k->stream == st && ts <= k->start + k->dur && k->corr < 0) k->corr = w->id;
    }
}



struct rank_build {
    struct trace_rank *r;
    int n;                   /* steps */
    int32_t *num;            /* their numbers, ascending */
    int64_t *first, *last;   /* by num: the first start and last end of the kernels launched in it */
    int synth;
    struct trace_spill *k;           /* every kernel of the rank (ktmp), by start */
    int64_t lo, hi;          /* the first start, the last end */
    uint8_t streams[8192];   /* which streams have kernels (a bit each) */
    size_t nstreams;
    int frac;
    size_t capp2p, maxp2p;   /* sends and receives kept: as many as the lane view's segments */
    const struct trace_build_ctx *x;
    struct tpat_md *md;      /* the rank's match scratch */
    uint8_t *ep;             /* by run name index: 0 not asked yet, 1 no, 2 name_ep */
    struct trace_build_out *out;
    long step_hint, anno_hint;   /* the file's step and annotation found last (LAST_AT_OR_BEFORE_HINT) */
    int32_t hit_step;        /* the step number looked up last in num, */
    int32_t *hit;            /* and its place there (NULL: not there) */
    int hit_set;
};

/* The annotations' nesting: parent[i] is the one enclosing a[i] (a sorted). */
static long *anno_parents(const struct trace_parse_anno *a, size_t n) {
    long *parent = malloc((n ? n : 1) * sizeof *parent), *stack = malloc((n ? n : 1) * sizeof *stack);
    if (!parent || !stack) { free(parent); free(stack); return NULL; }
    size_t sp = 0;
    for (size_t i = 0; i < n; i++) {
        while (sp && a[stack[sp - 1]].end <= a[i].start) sp--;
        parent[i] = sp ? stack[sp - 1] : -1;
        stack[sp++] = (long)i;
    }
    free(stack);
    return parent;
}

/* One kernel k with its launch l (NULL: none) into the rank. */
static int take_kernel(struct rank_build *b, const struct trace_build_file *rf, const struct trace_parse_kernel *k, const struct trace_parse_launch *l,
                       const long *parent, int multi_step, int64_t last_start, const char *path,
                       struct pt_error *err) {
    const struct trace_parse_file *f = rf->f;
    int64_t st, end, lts = 0;
    if (__builtin_add_overflow(k->start, f->base_ns, &st) || __builtin_add_overflow(st, k->dur, &end) ||
        (l && __builtin_add_overflow(l->ts, f->base_ns, &lts)))
        return pt_errorf(err, "%s: baseTimeNanoseconds plus the event times is beyond 292 years of nanoseconds", path);
    struct ktmp t;
    memset(&t, 0, sizeof t);
    t.seg = (struct trace_seg){.start_ns = st, .dur_ns = k->dur, .name = rf->to ? rf->to[k->name] : k->name,
                               .cat = k->cat, .phase = TRACE_PH_NONE, .stream = k->stream};
    t.step = step_at(f->steps, f->nsteps, l ? lts : st, &b->step_hint);
    t.hta_ds = f->ts_frac ? k->hta_ds : 0;
    t.hta_de = f->ts_frac ? k->hta_de : 0;
    t.hta_kernel = k->hta_kernel;
    t.launch_ns = l ? lts : IDLE_NO_LAUNCH;
    if (l && f->ts_frac) t.launch_ns += l->hta_ds;   /* HTA rounds the launch's start up to a whole us too */
    long ai = l && f->nannos ? anno_at(f->annos, parent, f->nannos, lts, &b->anno_hint) : -1;
    t.micro = ai >= 0 && f->annos[ai].micro <= INT16_MAX ? (int16_t)f->annos[ai].micro : -1;
    t.seg.phase = ai >= 0 ? f->annos[ai].phase : TRACE_PH_NONE;
    if (k->cat == TRACE_COMM) {   /* its group, else the pass it is in (probetop-rules(7), PROFILER TRACES: Phases) */
        uint8_t *ep = &b->ep[t.seg.name];
        if (!*ep) *ep = 1 + (uint8_t)tpatterns_match(b->x->pat, b->md, TPAT_NAME_EP, b->x->names[t.seg.name], strlen(b->x->names[t.seg.name]));
        t.seg.phase = (uint8_t)phases_comm(t.seg.phase, k->pg ? f->pgs[k->pg - 1].dim : TPAT_DIM_NONE, *ep == 2);
    }
    if (k->p2p && k->peer >= 0 && b->r->np2p < b->maxp2p &&   /* a send or receive with its peer, for the pipeline view */
        p2p_push(b->r, &b->capp2p, &(struct trace_p2p){st, k->dur, k->pg ? util_hash_str(f->pgs[k->pg - 1].name) : 0, k->peer, k->p2p == 1}))
        return pt_errorf(err, "out of memory");
    if (t.micro >= 0) b->out->has_micro = 1;
    if (t.seg.phase != TRACE_PH_NONE) b->out->has_phase = 1;
    if (!multi_step) t.keep = 1;
    else if (k->corr >= 0) t.keep = l && f->nsteps && lts < last_start;
    else t.keep = f->nsteps && st < last_start;
    if (!b->hit_set || t.step != b->hit_step) {   /* (kernels mostly come a step at a time) */
        b->hit = b->synth ? b->num : bsearch(&t.step, b->num, (size_t)b->n, sizeof *b->num, util_cmp_i32);
        b->hit_step = t.step;
        b->hit_set = 1;
    }
    int32_t *hit = b->hit;
    if (hit) {
        size_t i = (size_t)(hit - b->num);
        if (st < b->first[i]) b->first[i] = st;
        if (end > b->last[i]) b->last[i] = end;
    }
    if (!trace_spill_count(b->k) || st < b->lo) b->lo = st;
    if (!trace_spill_count(b->k) || end > b->hi) b->hi = end;
    if (!(b->streams[k->stream >> 3] & (1u << (k->stream & 7)))) {
        b->streams[k->stream >> 3] |= (uint8_t)(1u << (k->stream & 7));
        b->nstreams++;
    }
    struct ktmp *d = trace_spill_slot(b->k, err);
    if (!d) return -1;
    *d = t;
    return 0;
}

/* One file's kernels, joined to their launches by correlation id (both
 * streams in that order), into the rank; the file's streams are freed. */
static int join_file(struct rank_build *b, struct trace_build_file *rf, int multi_step, const char *path,
                     struct pt_error *err) {
    struct trace_parse_file *f = rf->f;
    if (f->nsteps > 1) sort_unless_ordered(f->steps, f->nsteps, sizeof *f->steps, cmp_step);   /* (qsort of NULL is undefined, even of 0 items) */
    if (f->nannos > 1) sort_unless_ordered(f->annos, f->nannos, sizeof *f->annos, cmp_anno);
    long *parent = anno_parents(f->annos, f->nannos);
    if (!parent) return pt_errorf(err, "out of memory");
    b->step_hint = b->anno_hint = -1;
    anno_micros(f->annos, parent, f->nannos, f);
    /* HTA's window: what was launched before the last ProfilerStep began */
    int64_t last_start = INT64_MIN;
    for (size_t i = 0; i < f->nsteps; i++)
        if (f->steps[i].start > last_start) last_start = f->steps[i].start;
    int rc = 0;
    struct trace_parse_kernel *neg = NULL;   /* torch_npu: the kernels a flow links, in memory */
    size_t nneg = 0, capneg = 0, ineg = 0;
    if (f->kernels) trace_spill_shelve(f->kernels, b->x->shelf);   /* their sorts' arrays: pages touched before */
    if (f->launches) trace_spill_shelve(f->launches, b->x->shelf);
    if ((f->kernels && trace_spill_sort(f->kernels, err)) || (f->launches && trace_spill_sort(f->launches, err))) rc = -1;
    struct trace_spill_rd kr = {0}, lr = {0};
    if (!rc && f->kernels) trace_spill_rd_init(&kr, f->kernels);
    if (!rc && f->launches) trace_spill_rd_init(&lr, f->launches);
    const struct trace_parse_kernel *kq = rc || !f->kernels ? NULL : trace_spill_rd_next(&kr, err);
    const struct trace_parse_launch *lq = rc || !f->launches ? NULL : trace_spill_rd_next(&lr, err);
    if (!rc && f->nflows) {   /* those without a correlation id come first, by stream then start */
        for (; kq && kq->corr < 0; kq = trace_spill_rd_next(&kr, err)) {
            if (UTIL_PUSH(neg, nneg, capneg)) { rc = pt_errorf(err, "out of memory"); break; }
            neg[nneg++] = *kq;
        }
        link_flows(neg, nneg, f);
        if (nneg > 1) qsort(neg, nneg, sizeof *neg, trace_parse_cmp_kernel_corr);
    }
    while (!rc) {
        const struct trace_parse_kernel *k;
        int from_neg = ineg < nneg && (!kq || trace_parse_cmp_kernel_corr(&neg[ineg], kq) <= 0);
        if (from_neg) k = &neg[ineg++];
        else if (kq) k = kq;
        else break;
        const struct trace_parse_launch *l = NULL;
        if (k->corr >= 0) {
            while (lq && lq->corr < k->corr) lq = trace_spill_rd_next(&lr, err);
            if (lq && lq->corr == k->corr) l = lq;
        }
        rc = take_kernel(b, rf, k, l, parent, multi_step, last_start, path, err);
        if (!from_neg) kq = trace_spill_rd_next(&kr, err);
    }
    if (!rc && ((f->kernels && trace_spill_failed(f->kernels)) || (f->launches && trace_spill_failed(f->launches)))) rc = -1;
    free(neg);
    free(parent);
    trace_spill_free(f->kernels);
    trace_spill_free_to(f->launches, b->x->shelf);   /* the lane view's segments' size, about: stream_rank's */
    f->kernels = f->launches = NULL;
    return rc;
}

/* The steps of a rank from its files' CPU ProfilerStep spans (a step
 * number met twice keeps its first span), their numbers sorted into
 * b->num. */
static int make_steps(struct rank_build *b, struct trace_build_file *files, size_t nf, struct pt_error *err) {
    struct trace_rank *r = b->r;
    size_t ns = 0;
    for (size_t i = 0; i < nf; i++) ns += files[i].f->nsteps;
    if (b->synth) ns = 1;
    r->steps = calloc(ns ? ns : 1, sizeof *r->steps);
    if (!r->steps) return pt_errorf(err, "out of memory");
    int n = 0;
    if (b->synth) {   /* no ProfilerStep anywhere: the whole trace is step 0 */
        r->steps[0] = (struct trace_step){.step = 0};
        n = 1;
    } else {   /* by number then file order: the first of a number met twice is kept */
        struct step_ref *all = malloc((ns ? ns : 1) * sizeof *all);
        if (!all) return pt_errorf(err, "out of memory");
        size_t na = 0;
        for (size_t i = 0; i < nf; i++)
            for (size_t j = 0; j < files[i].f->nsteps; j++) {
                const struct trace_parse_step *s = &files[i].f->steps[j];
                if (!s->gpu) all[na] = (struct step_ref){s->n, na, s->start, s->end}, na++;
            }
        if (na > 1) qsort(all, na, sizeof *all, cmp_step_ref);
        size_t dups = 0;
        for (size_t i = 0; i < na; i++) {
            if (i && all[i].n == all[i - 1].n) { dups++; continue; }
            r->steps[n++] = (struct trace_step){.step = all[i].n, .cpu_start_ns = all[i].start, .cpu_end_ns = all[i].end};
        }
        free(all);
        b->out->dup_steps = dups;   /* the caller warns, in rank order */
        if (n > 1) qsort(r->steps, (size_t)n, sizeof *r->steps, cmp_trace_step);
    }
    r->nsteps = b->n = n;
    b->num = malloc((size_t)(n ? n : 1) * sizeof *b->num);
    b->first = malloc((size_t)(n ? n : 1) * sizeof *b->first);
    b->last = malloc((size_t)(n ? n : 1) * sizeof *b->last);
    if (!b->num || !b->first || !b->last) return pt_errorf(err, "out of memory");
    for (int i = 0; i < n; i++) { b->num[i] = r->steps[i].step; b->first[i] = INT64_MAX; b->last[i] = INT64_MIN; }
    qsort(b->num, (size_t)n, sizeof *b->num, util_cmp_i32);
    return 0;
}

/* The steps placed on the device timeline: from the first kernel launched
 * in each to the next one's start (the last: to its last kernel's end). */
static void place_steps(struct rank_build *b) {
    struct trace_rank *r = b->r;
    int n = b->n;
    for (int i = 0; i < n; i++) {
        struct trace_step *st = &r->steps[i];
        int32_t *hit = bsearch(&st->step, b->num, (size_t)n, sizeof *b->num, util_cmp_i32);
        size_t x = (size_t)(hit - b->num);
        int found = b->first[x] != INT64_MAX;
        st->start_ns = found ? b->first[x] : st->cpu_start_ns;
        st->end_ns = found ? b->last[x] : st->cpu_end_ns;
        if (b->synth && found) st->cpu_start_ns = b->first[x], st->cpu_end_ns = b->last[x];
        if (i > 0 && st->start_ns < r->steps[i - 1].start_ns) st->start_ns = r->steps[i - 1].start_ns;
    }
    for (int i = 0; i + 1 < n; i++) r->steps[i].end_ns = r->steps[i + 1].start_ns;
    for (int i = 0; i < n; i++)
        if (r->steps[i].end_ns < r->steps[i].start_ns) r->steps[i].end_ns = r->steps[i].start_ns;
}

/* The lane view's segments when the rank has more kernels than --mem
 * holds for it: per stream, the kernels starting in one slice of q ns (and
 * one step) become one segment from the first start to the last end,
 * named and coloured after the longest of them (probetop-formats(5),
 * PROFILER TRACES: Memory). */
struct lane_slot {
    struct trace_seg g;
    int64_t bucket, end, longest;
};
struct lane_merge {
    int64_t q, lo;
    int32_t *slot_of;        /* by stream: its slot, -1 none (65536) */
    struct lane_slot *slot;  /* the open ones */
    size_t nslot;
    uint16_t *open;          /* the streams with an open slot */
    size_t nopen;
};

static int emit(struct trace_rank *r, size_t *cap, const struct trace_seg *g, struct pt_error *err) {
    if (r->nsegs == *cap && util_grow((void **)&r->segs, cap, r->nsegs + 1, sizeof *r->segs)) return pt_errorf(err, "out of memory");
    r->segs[r->nsegs++] = *g;
    return 0;
}

static int lane_flush(struct lane_merge *m, struct trace_rank *r, size_t *cap, struct pt_error *err) {
    for (size_t i = 0; i < m->nopen; i++) {
        struct lane_slot *s = &m->slot[m->slot_of[m->open[i]]];
        s->g.dur_ns = s->end - s->g.start_ns;
        if (emit(r, cap, &s->g, err)) return -1;
        m->slot_of[m->open[i]] = -1;
    }
    m->nopen = m->nslot = 0;
    return 0;
}

static int lane_add(struct lane_merge *m, const struct trace_seg *g, struct trace_rank *r, size_t *cap, struct pt_error *err) {
    int64_t bucket = (g->start_ns - m->lo) / m->q, end = g->start_ns + g->dur_ns;
    int32_t i = m->slot_of[g->stream];
    if (i >= 0 && m->slot[i].bucket == bucket) {
        struct lane_slot *s = &m->slot[i];
        if (end > s->end) s->end = end;
        if (g->dur_ns > s->longest) {
            s->longest = g->dur_ns;
            s->g.name = g->name, s->g.cat = g->cat, s->g.phase = g->phase;
        }
        return 0;
    }
    if (i >= 0) {   /* the stream's slice is over */
        struct lane_slot *s = &m->slot[i];
        s->g.dur_ns = s->end - s->g.start_ns;
        if (emit(r, cap, &s->g, err)) return -1;
    } else {
        i = (int32_t)m->nslot++;
        m->slot_of[g->stream] = i;
        m->open[m->nopen++] = g->stream;
    }
    m->slot[i] = (struct lane_slot){.g = *g, .bucket = bucket, .end = end, .longest = g->dur_ns};
    return 0;
}

static int cmp_seg(const void *a, const void *b) {
    const struct trace_seg *x = a, *y = b;
    if (x->start_ns != y->start_ns) return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Room for the micro-batches of the steps left (steps), as many a step as
 * the first step that had some (per), made at once instead of by doublings
 * that copy the list (a trace_micro is 800 bytes); never more than one per
 * kernel (nk) nor TRACE_BUILD_MICROS_AHEAD bytes.  Without the memory the
 * list grows as before: nothing fails here. */
#define TRACE_BUILD_MICROS_AHEAD ((size_t)64 << 20)
static void micros_ahead(struct trace_rank *r, size_t *cap, size_t per, size_t steps, size_t nk) {
    if (steps > nk / (per ? per : 1)) steps = nk / (per ? per : 1);
    size_t want = r->nmicros + per * steps;
    if (want > *cap && want <= TRACE_BUILD_MICROS_AHEAD / sizeof *r->micros)
        (void)util_grow((void **)&r->micros, cap, want, sizeof *r->micros);
}

/* The window's figures (HTA's kernel and idle tables, the total over
 * it): summed over the kept kernels in start order, on the rank's thread,
 * or, with a thread to spare (trace_build_ctx.spare) and the kernels in
 * memory, on a second one that reads them again in the same order (so the
 * same sums) while the first makes the steps, phases and segments. */
struct window {
    struct rank_build *b;
    struct trace_acc total;
    struct kernels_acc ka;
    struct idle_acc ia;
    size_t n;                /* kernels in it */
    int rc;                  /* (the second thread's) */
    struct pt_error err;
};

/* The kernel as HTA's window figures take it: HTA's whole-us start and
 * end in fractional-us traces (trace_parse_file.ts_frac; a double's
 * rounding is monotone: still in start order). */
__attribute__((always_inline)) static inline void window_seg(const struct window *w, const struct ktmp *t, struct trace_seg *h) {
    *h = t->seg;
    if (w->b->frac) {
        h->start_ns = t->seg.start_ns + t->hta_ds;
        h->dur_ns = t->seg.start_ns + t->seg.dur_ns + t->hta_de - h->start_ns;
    }
}

/* h (window_seg of t) into the window's tables, and into its total unless
 * the caller added it there already (trace_acc_add3). */
__attribute__((always_inline)) static inline int window_take(struct window *w, const struct ktmp *t, const struct trace_seg *h, int total_done) {   /* (inlined: once a kernel) */
    if (!total_done) trace_acc_add(&w->total, h);
    w->n++;
    return kernels_acc_add(&w->ka, h) || (t->hta_kernel && idle_acc_add(&w->ia, h->stream, h->start_ns, h->start_ns + h->dur_ns, t->launch_ns));
}

static void *window_run(void *arg) {
    struct window *w = arg;
    struct trace_spill_rd rd;
    const struct ktmp *t;
    struct trace_seg h;
    trace_spill_rd_init(&rd, w->b->k);
    while ((t = trace_spill_rd_next(&rd, &w->err)))   /* (in memory: no read fails) */
        if (t->keep && (window_seg(w, t, &h), window_take(w, t, &h, 0))) {
            w->rc = pt_errorf(&w->err, "out of memory");
            break;
        }
    return NULL;
}

/* The rank's kernels in start order: the figures of every step and of
 * HTA's window, and the lane view's segments (every kernel, or merged
 * when more than max_segs). */
static int stream_rank(struct rank_build *b, size_t max_segs, struct pt_error *err) {
    struct trace_rank *r = b->r;
    size_t nk = (size_t)trace_spill_count(b->k), cap = 0, got;
    struct lane_merge m = {0};
    if (trace_spill_sort(b->k, err)) return -1;
    if (nk > max_segs) {
        double q = ceil((double)(b->hi - b->lo) * (double)b->nstreams / (double)max_segs);
        m.q = q < 1 ? 1 : q > 1e18 ? (int64_t)1e18 : (int64_t)q;
        m.lo = b->lo;
        m.slot_of = malloc(65536 * sizeof *m.slot_of);
        m.slot = malloc(b->nstreams * sizeof *m.slot);
        m.open = malloc(b->nstreams * sizeof *m.open);
        if (!m.slot_of || !m.slot || !m.open) { free(m.slot_of); free(m.slot); free(m.open); return pt_errorf(err, "out of memory"); }
        memset(m.slot_of, 0xff, 65536 * sizeof *m.slot_of);
        r->lane_merge_ns = m.q;
    } else if (nk && !(r->segs = util_shelf_get(b->x->shelf, nk * sizeof *r->segs, &got))) {
        return pt_errorf(err, "out of memory");
    } else {
        cap = nk;
    }
    struct trace_acc step;
    struct phases_step ps = {0};
    size_t capmicro = 0;
    int ahead = 0;   /* micros_ahead done */
    trace_acc_init(&step);
    struct window w = {.b = b};
    trace_acc_init(&w.total);
    if (kernels_acc_init(&w.ka, (const char *const *)b->x->names, b->x->nnames)) {
        free(m.slot_of); free(m.slot); free(m.open);
        return pt_errorf(err, "out of memory");
    }
    if (idle_acc_init(&w.ia)) {
        kernels_acc_free(&w.ka);
        free(m.slot_of); free(m.slot); free(m.open);
        return pt_errorf(err, "out of memory");
    }
    int si = 0, rc = 0;
    const struct ktmp *t;
    struct trace_spill_rd kr;
    trace_spill_rd_init(&kr, b->k);
    pthread_t th;
    int par = b->x->spare && kr.v && !pthread_create(&th, NULL, window_run, &w);   /* (none made: here) */
    while ((t = trace_spill_rd_next(&kr, err))) {
        const struct trace_seg *g = &t->seg;
        while (si < b->n && g->start_ns >= r->steps[si].end_ns + (si + 1 == b->n)) {   /* the last keeps a kernel at its very end */
            if (phases_step_flush(&ps, r->steps[si].step, &r->micros, &r->nmicros, &capmicro)) { rc = pt_errorf(err, "out of memory"); break; }
            if (!ahead && r->nmicros) ahead = 1, micros_ahead(r, &capmicro, r->nmicros, (size_t)(b->n - si - 1), nk);
            trace_acc_finish(&step, &r->steps[si++].stats);
            trace_acc_init(&step);
            if (m.q && (rc = lane_flush(&m, r, &cap, err))) break;
        }
        if (rc) break;
        int in_step = si < b->n && g->start_ns >= r->steps[si].start_ns, win = t->keep && !par;
        struct trace_seg h;
        if (win) window_seg(&w, t, &h);
        if (in_step) {   /* the step's, the micro-batch's and the window's figures in one call */
            struct trace_acc *macc = phases_step_acc(&ps, t->micro);
            if (!macc) { rc = pt_errorf(err, "out of memory"); break; }
            if (win) trace_acc_add3(&step, macc, g, &w.total, &h);
            else trace_acc_add2(&step, macc, g);
        }
        if (b->x->o->trace_kernel) {   /* probetop trace --kernels: every kernel as it comes */
            struct trace_kernel_row row = {.rank = r->rank, .step = in_step ? r->steps[si].step : 0, .has_step = in_step,
                                           .micro = in_step ? t->micro : -1, .seg = g, .name = b->x->names[g->name]};
            if ((rc = b->x->o->trace_kernel(b->x->o->trace_kernel_ctx, &row, err))) break;
        }
        if (win && window_take(&w, t, &h, in_step)) {
            rc = pt_errorf(err, "out of memory");
            break;
        }
        if ((rc = m.q ? lane_add(&m, g, r, &cap, err) : emit(r, &cap, g, err))) break;
    }
    if (par) {
        pthread_join(th, NULL);
        if (!rc && w.rc) *err = w.err, rc = -1;
    }
    if (!rc && trace_spill_failed(b->k)) rc = -1;
    if (!rc && m.q) rc = lane_flush(&m, r, &cap, err);
    if (!rc && si < b->n && phases_step_flush(&ps, r->steps[si].step, &r->micros, &r->nmicros, &capmicro)) rc = pt_errorf(err, "out of memory");
    phases_step_free(&ps);
    free(m.slot_of);
    free(m.slot);
    free(m.open);
    if (!rc) {
        r->kernels = kernels_acc_finish(&w.ka);
        r->idle = idle_acc_finish(&w.ia);
        if (!r->kernels || !r->idle) rc = pt_errorf(err, "out of memory");
    } else {
        kernels_acc_free(&w.ka);
        idle_acc_free(&w.ia);
    }
    if (rc) return -1;
    for (; si < b->n; si++) {
        trace_acc_finish(&step, &r->steps[si].stats);
        trace_acc_init(&step);
    }
    trace_acc_finish(&w.total, &r->total);
    r->nwindow += w.n;
    r->nkernels = nk;
    if (m.q && r->nsegs > 1) qsort(r->segs, r->nsegs, sizeof *r->segs, cmp_seg);
    for (int i = 0; i < b->n; i++) {   /* each step's segments: those that start in it */
        struct trace_step *st = &r->steps[i];
        size_t lo = 0, hi = r->nsegs;
        while (lo < hi) { size_t x = (lo + hi) / 2; if (r->segs[x].start_ns < st->start_ns) lo = x + 1; else hi = x; }
        size_t a = lo;
        hi = r->nsegs;
        int64_t end = st->end_ns + (i + 1 == b->n);
        while (lo < hi) { size_t x = (lo + hi) / 2; if (r->segs[x].start_ns < end) lo = x + 1; else hi = x; }
        st->first = a;
        st->nsegs = lo - a;
    }
    return 0;
}

int trace_build_rank(struct trace_rank *r, struct trace_build_file *files, size_t nf, int multi_step, int synth,
                     size_t max_segs, struct trace_spill_budget *bud, const struct trace_build_ctx *x,
                     struct trace_build_out *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    struct rank_build *b = calloc(1, sizeof *b);
    if (!b) return pt_errorf(err, "out of memory");
    b->r = r;
    b->x = x;
    b->out = out;
    b->synth = synth;
    b->maxp2p = max_segs;
    int rc = 0;
    if (!(b->md = tpatterns_md_new()) || !(b->ep = calloc(x->nnames ? x->nnames : 1, 1))) rc = pt_errorf(err, "out of memory");
    if (!rc) rc = make_steps(b, files, nf, err);
    if (!rc && !(b->k = trace_spill_new(sizeof(struct ktmp), cmp_ktmp, bud))) rc = pt_errorf(err, "out of memory");
    if (!rc) {
        trace_spill_keys(b->k, ktmp_keys);
        trace_spill_lanes(b->k, 16);   /* ktmp_keys' low 16 bits: the stream, whose kernels come in start order */
        uint64_t nk = 0;   /* one ktmp per kernel of the files */
        for (size_t i = 0; i < nf; i++) nk += files[i].f->kernels ? trace_spill_count(files[i].f->kernels) : 0;
        trace_spill_take(b->k, x->shelf, nk);   /* pages a rank built before touched: none faulted in */
        rc = trace_spill_reserve(b->k, nk, err);
    }
    for (size_t i = 0; !rc && i < nf; i++) {
        b->frac |= files[i].f->ts_frac;
        rc = join_file(b, &files[i], multi_step, r->file, err);
    }
    if (!rc) {
        place_steps(b);
        p2p_sort(r);
        rc = stream_rank(b, max_segs, err);
    }
    trace_spill_free_to(b->k, x->shelf);
    tpatterns_md_free(b->md);
    free(b->ep);
    free(b->num);
    free(b->first);
    free(b->last);
    free(b);
    return rc;
}
