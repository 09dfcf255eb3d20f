/* lanegroup: lanes grouped, each group's distribution per slice (see lanegroup.h). */
#include "model/trace/lanegroup.h"
#include "model/trace/tpatterns.h"

#include <stdlib.h>
#include <string.h>

const char *lanegroup_by_name(int by) {
    static const char *const n[LANEGROUP_NBY] = {"ranks", "stage", "pipeline", "block"};
    return by >= 0 && by < LANEGROUP_NBY ? n[by] : "?";
}

void lanegroups_free(struct lanegroups *g) {
    free(g->members);
    free(g->start);
    free(g->key);
    memset(g, 0, sizeof *g);
}

/* Ascending key, -1 last; then the lane's position. */
struct kl { int key, pos; };
static int cmp_kl(const void *a, const void *b) {
    const struct kl *x = a, *y = b;
    unsigned kx = (unsigned)x->key, ky = (unsigned)y->key;   /* -1 sorts last */
    if (kx != ky) return (kx > ky) - (kx < ky);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

int lanegroup_from_keys(const int *lanes, const int *keys, int nlanes, struct lanegroups *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    size_t n = nlanes > 0 ? (size_t)nlanes : 0;
    struct kl *v = malloc((n ? n : 1) * sizeof *v);
    out->members = malloc((n ? n : 1) * sizeof *out->members);
    out->start = malloc((n + 1) * sizeof *out->start);
    out->key = malloc((n ? n : 1) * sizeof *out->key);
    if (!v || !out->members || !out->start || !out->key) {
        free(v);
        lanegroups_free(out);
        return pt_errorf(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) v[i] = (struct kl){keys[i] < 0 ? -1 : keys[i], (int)i};
    qsort(v, n, sizeof *v, cmp_kl);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || v[i].key != v[i - 1].key) {
            out->start[out->ngroups] = (int)i;
            out->key[out->ngroups++] = v[i].key;
        }
        out->members[i] = lanes[v[i].pos];
    }
    out->start[out->ngroups] = (int)n;
    free(v);
    return 0;
}

/* A rank's place in a pipeline group: the group's number and the rank's position in it. */
struct rk { int32_t rank; int order, pg, pos; };
static int cmp_rk(const void *a, const void *b) {
    const struct rk *x = a, *y = b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->order > y->order) - (x->order < y->order);
}

/* Rank r's key by a scan of the pipeline groups, -1 in none. */
static int scan_key(const struct trace_run *run, int32_t r, enum lanegroup_by by) {
    for (int g = 0, pg = 0; g < run->ngroups; g++) {
        if (run->groups[g].dim != TPAT_DIM_PP) continue;
        for (int m = 0; m < run->groups[g].nranks; m++)
            if (run->groups[g].ranks[m] == r) return by == LANEGROUP_STAGE ? m : pg;
        pg++;
    }
    return -1;
}

int lanegroup_keys(const struct trace_run *run, const int *lanes, int nlanes, enum lanegroup_by by, int block,
                   int *keys) {
    if (by == LANEGROUP_BLOCK || by == LANEGROUP_OFF) {
        if (block < 1) block = 1;
        for (int i = 0; i < nlanes; i++) keys[i] = by == LANEGROUP_OFF ? i : i / block;
        return 0;
    }
    /* every member of every pipeline group, by rank (then the groups' order:
     * a rank's first group is its own), each lane's rank searched there */
    size_t n = 0;
    for (int g = 0; g < run->ngroups; g++)
        if (run->groups[g].dim == TPAT_DIM_PP) n += (size_t)run->groups[g].nranks;
    struct rk *v = malloc((n ? n : 1) * sizeof *v);
    int found = 0;
    if (!v) {   /* no memory: each lane's groups scanned */
        for (int i = 0; i < nlanes; i++) {
            keys[i] = lanes[i] < 0 || lanes[i] >= run->nranks ? -1 : scan_key(run, run->ranks[lanes[i]].rank, by);
            found |= keys[i] >= 0;
        }
        return found ? 0 : -1;
    }
    n = 0;
    for (int g = 0, pg = 0; g < run->ngroups; g++) {
        if (run->groups[g].dim != TPAT_DIM_PP) continue;
        for (int m = 0; m < run->groups[g].nranks; m++, n++) v[n] = (struct rk){run->groups[g].ranks[m], (int)n, pg, m};
        pg++;
    }
    qsort(v, n, sizeof *v, cmp_rk);
    for (int i = 0; i < nlanes; i++) {
        keys[i] = -1;
        if (lanes[i] < 0 || lanes[i] >= run->nranks) continue;
        int32_t r = run->ranks[lanes[i]].rank;
        size_t lo = 0, hi = n;   /* the first entry of rank r */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (v[mid].rank < r) lo = mid + 1;
            else hi = mid;
        }
        if (lo < n && v[lo].rank == r) {
            keys[i] = by == LANEGROUP_STAGE ? v[lo].pos : v[lo].pg;
            found = 1;
        }
    }
    free(v);
    return found ? 0 : -1;
}

int lanegroup_busy(const struct trace_run *run, int ri, int32_t step, enum lanes_align align, int64_t t0, int64_t t1,
                   int nbins, float *out, struct pt_error *err) {
    if (nbins < 1) return 0;
    for (int i = 0; i < nbins; i++) out[i] = 0;
    if (t1 <= t0 || ri < 0 || ri >= run->nranks) return 0;
    const struct trace_rank *r = &run->ranks[ri];
    const struct trace_step *st;
    int64_t s0, s1;
    if (!lanes_rank_span(r, step, &s0, &s1, &st)) return 0;
    int64_t off = align == LANES_STEP ? s0 : 0;
    double w = (double)(t1 - t0) / nbins, *acc = calloc((size_t)nbins, sizeof *acc);
    if (!acc) return pt_errorf(err, "out of memory");
    int64_t u0 = 0, u1 = 0;   /* the union's current interval */
    int open = 0;
    for (size_t i = st->first; i < st->first + st->nsegs && i < r->nsegs; i++) {
        const struct trace_seg *g = &r->segs[i];
        int64_t a = g->start_ns, b = a + (g->dur_ns > 0 ? g->dur_ns : 0);
        if (open && a <= u1) {
            if (b > u1) u1 = b;
            continue;
        }
        if (open) lanes_spread(acc, 1, nbins, t0, w, u0 - off, u1 - off);
        if (a - off >= t1) { open = 0; break; }
        u0 = a, u1 = b, open = 1;
    }
    if (open) lanes_spread(acc, 1, nbins, t0, w, u0 - off, u1 - off);
    for (int i = 0; i < nbins; i++) out[i] = acc[i] > 1 ? 1 : (float)acc[i];
    free(acc);
    return 0;
}

/* The k-th smallest of v[0..n) (v reordered): Hoare's selection, O(n). */
static float kth(float *v, int n, int k) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        float pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                float t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return v[k];
}

void lanegroup_dist_busy(const float *busy, int nbins, const int *rows, int n, float *med, float *worst, int *wrank,
                         float *col) {
    for (int i = 0; i < nbins; i++) med[i] = worst[i] = 0, wrank[i] = -1;
    if (n < 1) return;
    for (int i = 0; i < nbins; i++) {
        int wk = 0;
        for (int k = 0; k < n; k++) {
            col[k] = busy[(size_t)(rows ? rows[k] : k) * (size_t)nbins + (size_t)i];
            if (col[k] < col[wk]) wk = k;
        }
        worst[i] = col[wk];
        wrank[i] = wk;
        float hi = kth(col, n, n / 2);
        if (n % 2) {
            med[i] = hi;
        } else {   /* the largest of the lower half, now left of n / 2 */
            float lo = col[0];
            for (int k = 1; k < n / 2; k++) lo = col[k] > lo ? col[k] : lo;
            med[i] = (lo + hi) / 2;
        }
    }
}

int lanegroup_dist(const struct trace_run *run, const int *members, int n, int32_t step, enum lanes_align align,
                   int64_t t0, int64_t t1, int nbins, float *med, float *worst, int *wrank, struct pt_error *err) {
    if (nbins < 1) return 0;
    for (int i = 0; i < nbins; i++) med[i] = worst[i] = 0, wrank[i] = -1;
    if (n < 1) return 0;
    float *b = malloc((size_t)n * (size_t)nbins * sizeof *b), *col = malloc((size_t)n * sizeof *col);
    if (!b || !col) {
        free(b);
        free(col);
        return pt_errorf(err, "out of memory");
    }
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++)
        rc = lanegroup_busy(run, members[k], step, align, t0, t1, nbins, b + (size_t)k * nbins, err);
    if (rc == 0) lanegroup_dist_busy(b, nbins, NULL, n, med, worst, wrank, col);
    free(b);
    free(col);
    return rc;
}
