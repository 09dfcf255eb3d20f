/* tshard: the downsampled lanes of a trace shard and the join of shards'
 * runs (see tshard.h). */
#include "model/trace/tshard.h"

#include <stdlib.h>
#include <string.h>

#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "model/trace/lanes.h"
#include "model/util/util.h"

/* [a, b) of one category into the slices of [t0, t0 + n * w). */
static void spread(double *acc, int n, int64_t t0, double w, int64_t a, int64_t b) {
    if (b <= a || w <= 0) return;
    int j = (int)((double)(a - t0) / w);
    if (j < 0) j = 0;
    for (; j < n; j++) {
        double s0 = (double)t0 + w * j, s1 = s0 + w;
        double lo = (double)a > s0 ? (double)a : s0, hi = (double)b < s1 ? (double)b : s1;
        if (s0 >= (double)b) break;
        if (hi > lo) acc[j] += hi - lo;
    }
}

void tshard_lanes(const struct trace_rank *r, int si, int nslices, int64_t *t0, int64_t *t1, uint16_t *out) {
    memset(out, 0, (size_t)nslices * TSHARD_CATS * sizeof *out);
    const struct trace_step *st = &r->steps[si];
    *t0 = *t1 = st->start_ns;
    if (!lanes_rank_span(r, st->step, t0, t1, NULL) || *t1 <= *t0) return;
    double w = (double)(*t1 - *t0) / nslices;
    double *acc = calloc((size_t)nslices * TSHARD_CATS, sizeof *acc);
    if (!acc) return;
    for (int c = 0; c < TSHARD_CATS; c++) {
        int64_t a = 0, b = 0;
        int open = 0;
        for (size_t i = st->first; i < st->first + st->nsegs && i < r->nsegs; i++) {
            const struct trace_seg *g = &r->segs[i];
            if (g->cat != c) continue;
            int64_t e = g->start_ns + g->dur_ns;
            if (open && g->start_ns <= b) {
                if (e > b) b = e;
                continue;
            }
            if (open) spread(acc + (size_t)c * nslices, nslices, *t0, w, a, b);
            a = g->start_ns, b = e, open = 1;
        }
        if (open) spread(acc + (size_t)c * nslices, nslices, *t0, w, a, b);
    }
    for (int j = 0; j < nslices; j++)
        for (int c = 0; c < TSHARD_CATS; c++) {
            double q = 1000.0 * acc[(size_t)c * nslices + j] / w + 0.5;
            out[j * TSHARD_CATS + c] = (uint16_t)(q > 1000 ? 1000 : q < 0 ? 0 : q);
        }
    free(acc);
}

static int cmp_seg(const void *a, const void *b) {
    const struct trace_seg *x = a, *y = b;
    if (x->start_ns != y->start_ns) return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* The first segment starting at or after t. */
static size_t lower(const struct trace_seg *v, size_t n, int64_t t) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (v[m].start_ns < t) lo = m + 1;
        else hi = m;
    }
    return lo;
}

int tshard_segs(struct trace_rank *r, const int64_t *t0, const int64_t *t1, const uint16_t *shares, int nslices,
                uint32_t name0, struct pt_error *err) {
    size_t n = 0;
    for (size_t i = 0; i < (size_t)r->nsteps * (size_t)nslices * TSHARD_CATS; i++) n += shares[i] > 0;
    struct trace_seg *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return pt_errorf(err, "out of memory");
    n = 0;
    for (int s = 0; s < r->nsteps; s++) {
        if (t1[s] <= t0[s]) continue;
        double w = (double)(t1[s] - t0[s]) / nslices;
        for (int j = 0; j < nslices; j++)
            for (int c = 0; c < TSHARD_CATS; c++) {
                uint16_t q = shares[((size_t)s * nslices + j) * TSHARD_CATS + c];
                if (!q) continue;
                int64_t d = (int64_t)(w * q / 1000.0);
                v[n++] = (struct trace_seg){.start_ns = t0[s] + (int64_t)(w * j), .dur_ns = d > 0 ? d : 1,
                                            .name = name0 + (uint32_t)c, .cat = (uint8_t)c, .stream = (uint16_t)c};
            }
    }
    if (n > 1) qsort(v, n, sizeof *v, cmp_seg);
    free(r->segs);
    r->segs = v;
    r->nsegs = n;
    for (int s = 0; s < r->nsteps; s++) {   /* each step: the segments starting in [start, next start) */
        size_t a = lower(v, n, r->steps[s].start_ns < t0[s] ? r->steps[s].start_ns : t0[s]);
        size_t b = s + 1 < r->nsteps ? lower(v, n, r->steps[s + 1].start_ns < t0[s + 1] ? r->steps[s + 1].start_ns : t0[s + 1]) : n;
        r->steps[s].first = a;
        r->steps[s].nsegs = b > a ? b - a : 0;
    }
    return 0;
}

/* ---- the join ---- */

/* The joined names: one of each string (an open-addressing hash). */
struct nameset {
    char **v;
    size_t n, cap;
    uint32_t *slot;   /* index + 1, 0 empty */
    size_t nslot;
};

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int nameset_grow(struct nameset *ns) {
    size_t m = ns->nslot ? ns->nslot * 2 : 1024;
    uint32_t *t = calloc(m, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < ns->n; i++) {
        size_t h = (size_t)hash_str(ns->v[i]) & (m - 1);
        while (t[h]) h = (h + 1) & (m - 1);
        t[h] = (uint32_t)i + 1;
    }
    free(ns->slot);
    ns->slot = t;
    ns->nslot = m;
    return 0;
}

/* The index of s (taken: owned by the set from now on, or freed), UINT32_MAX out of memory. */
static uint32_t nameset_take(struct nameset *ns, char *s) {
    if ((ns->n + 1) * 2 > ns->nslot && nameset_grow(ns)) { free(s); return UINT32_MAX; }
    size_t h = (size_t)hash_str(s) & (ns->nslot - 1);
    for (; ns->slot[h]; h = (h + 1) & (ns->nslot - 1))
        if (!strcmp(ns->v[ns->slot[h] - 1], s)) {
            free(s);
            return ns->slot[h] - 1;
        }
    if (UTIL_PUSH(ns->v, ns->n, ns->cap)) { free(s); return UINT32_MAX; }
    ns->v[ns->n] = s;
    ns->slot[h] = (uint32_t)ns->n + 1;
    return (uint32_t)ns->n++;
}

static void free_rank(struct trace_rank *r) {
    free(r->file);
    free(r->steps);
    free(r->segs);
    kernels_table_free(r->kernels);
    idle_table_free(r->idle);
    free(r->micros);
    memset(r, 0, sizeof *r);
}

/* Rank r of a part: names through map, times moved by shift. */
static void move_rank(struct trace_rank *r, const uint32_t *map, size_t nmap, int64_t shift) {
    for (size_t i = 0; i < r->nsegs; i++) {
        r->segs[i].start_ns += shift;
        if (r->segs[i].name < nmap) r->segs[i].name = map[r->segs[i].name];
    }
    for (int s = 0; s < r->nsteps; s++) {
        r->steps[s].start_ns += shift;
        r->steps[s].end_ns += shift;
        r->steps[s].cpu_start_ns += shift;
        r->steps[s].cpu_end_ns += shift;
    }
    for (size_t i = 0; r->kernels && i < r->kernels->nk; i++)
        if (r->kernels->k[i].name < nmap) r->kernels->k[i].name = map[r->kernels->k[i].name];
}

/* A kernel table's order (kernels.c): descending time, ties by name index,
 * which the join renumbered. */
static int cmp_stat(const void *x, const void *y) {
    const struct kernels_stat *a = x, *b = y;
    if (a->sum_ns != b->sum_ns) return (a->sum_ns < b->sum_ns) - (a->sum_ns > b->sum_ns);
    return (a->name > b->name) - (a->name < b->name);
}

struct rank_ref { int32_t rank; int part; int idx; };

static int cmp_ref(const void *a, const void *b) {
    const struct rank_ref *x = a, *y = b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return x->part != y->part ? x->part - y->part : x->idx - y->idx;
}

static int same_group(const struct trace_group *a, const struct trace_group *b) {
    return a->dim == b->dim && a->nranks == b->nranks && !memcmp(a->ranks, b->ranks, (size_t)a->nranks * sizeof *a->ranks);
}

static int cmp_group(const void *a, const void *b) {
    const struct trace_group *x = a, *y = b;
    if (x->dim != y->dim) return x->dim - y->dim;
    int32_t p = x->nranks ? x->ranks[0] : 0, q = y->nranks ? y->ranks[0] : 0;
    return (p > q) - (p < q);
}

/* The parts' groups, one of each, into out (the parts' moved or freed). */
static int join_groups(struct trace_run **parts, int n, struct trace_run *out) {
    for (int i = 0; i < n; i++) {
        struct trace_run *p = parts[i];
        for (int g = 0; g < p->ngroups; g++) {
            int seen = 0;
            for (int h = 0; h < out->ngroups && !seen; h++) seen = same_group(&out->groups[h], &p->groups[g]);
            if (seen) {
                free(p->groups[g].ranks);
                continue;
            }
            struct trace_group *ng = realloc(out->groups, (size_t)(out->ngroups + 1) * sizeof *ng);
            if (!ng) {
                for (; g < p->ngroups; g++) free(p->groups[g].ranks);
                p->ngroups = 0;
                return -1;
            }
            out->groups = ng;
            out->groups[out->ngroups++] = p->groups[g];
        }
        p->ngroups = 0;
        if (!out->groups_from && p->groups_from) out->groups_from = p->groups_from, p->groups_from = NULL;
    }
    if (out->ngroups > 1) qsort(out->groups, (size_t)out->ngroups, sizeof *out->groups, cmp_group);
    return 0;
}

int tshard_join(struct trace_run **parts, int n, struct trace_run **out, tshard_dup_fn dup, void *ctx,
                struct pt_error *err) {
    struct trace_run *run = calloc(1, sizeof *run);
    struct nameset ns = {0};
    struct rank_ref *refs = NULL;
    uint32_t *map = NULL;
    size_t total = 0;
    int rc = -1;
    if (!run) goto oom;
    int64_t origin = 0;
    int have = 0;
    for (int i = 0; i < n; i++) {
        total += (size_t)parts[i]->nranks;
        if (parts[i]->nranks && (!have || parts[i]->origin_ns < origin)) origin = parts[i]->origin_ns, have = 1;
        run->has_phases |= parts[i]->has_phases;
        run->has_micro |= parts[i]->has_micro;
        if (parts[i]->lane_slices > run->lane_slices) run->lane_slices = parts[i]->lane_slices;
    }
    run->origin_ns = origin;
    if (!(refs = malloc((total ? total : 1) * sizeof *refs)) || !(run->ranks = calloc(total ? total : 1, sizeof *run->ranks)))
        goto oom;
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        struct trace_run *p = parts[i];
        free(map);
        if (!(map = malloc((p->nnames ? p->nnames : 1) * sizeof *map))) goto oom;
        for (size_t q = 0; q < p->nnames; q++) {
            map[q] = nameset_take(&ns, p->names[q]);
            p->names[q] = NULL;
            if (map[q] == UINT32_MAX) goto oom;
        }
        for (int r = 0; r < p->nranks; r++) {
            move_rank(&p->ranks[r], map, p->nnames, p->origin_ns - origin);
            struct kernels_table *kt = p->ranks[r].kernels;
            if (kt && kt->nk > 1) qsort(kt->k, kt->nk, sizeof *kt->k, cmp_stat);
            refs[k++] = (struct rank_ref){p->ranks[r].rank, i, r};
        }
    }
    if (k > 1) qsort(refs, k, sizeof *refs, cmp_ref);
    for (size_t i = 0; i < k; i++) {
        struct trace_rank *src = &parts[refs[i].part]->ranks[refs[i].idx];
        if (run->nranks && run->ranks[run->nranks - 1].rank == refs[i].rank) {
            size_t j = i;
            while (j > 0 && refs[j - 1].rank == refs[i].rank) j--;
            if (dup) dup(ctx, refs[i].part, refs[j].part, refs[i].rank);
            free_rank(src);
            continue;
        }
        run->ranks[run->nranks++] = *src;
        memset(src, 0, sizeof *src);
    }
    if (join_groups(parts, n, run)) goto oom;
    run->names = ns.v;
    run->nnames = ns.n;
    ns.v = NULL;
    ns.n = 0;
    *out = run;
    run = NULL;
    rc = 0;
    goto done;
oom:
    pt_errorf(err, "out of memory");
done:
    for (size_t i = 0; i < ns.n; i++) free(ns.v[i]);
    free(ns.v);
    free(ns.slot);
    free(map);
    free(refs);
    trace_run_free(run);
    for (int i = 0; i < n; i++) trace_run_free(parts[i]);
    return rc;
}
