/* overflow_answer: see overflow_answer.h. */
#include "src/cmd/overflow_answer.h"

#include <stdint.h>
#include <stdlib.h>

#include "model/overflow/anomaly.h"
#include "model/util/util.h"
#include "src/cmd/cmd.h"

size_t overflow_answer_unread(const struct overflow_answer *r) { return r->ds->nskipped + r->ds->npartial; }

int overflow_answer_exit(const struct overflow_answer *r) {
    if (r->failing) return EXIT_FOUND;
    return overflow_answer_unread(r) && !r->partial_ok ? EXIT_INCOMPLETE : EXIT_OK;
}

const char *overflow_answer_level(const struct overflow_answer *r, const struct ovf_entry *e) {
    return r->levels ? ovf_level_name((enum ovf_level)e->level) : "nonfinite";
}

/* The tally for key in a sorted array (it is there by construction). */
static struct overflow_tally *tally_find(struct overflow_tally *t, size_t n, int32_t key) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && t[lo].key == key ? &t[lo] : NULL;
}

/* Where a key's tally is: by its offset from lo when the keys were marked
 * in a table (at: index + 1, 0 none), else by binary search (at NULL). */
struct tally_at {
    int32_t lo;
    size_t span;
    uint32_t *at;
};

static struct overflow_tally *tally_of(struct overflow_tally *t, size_t n, const struct tally_at *w, int32_t key) {
    if (!w->at) return tally_find(t, n, key);
    return &t[w->at[(size_t)((int64_t)key - w->lo)] - 1];
}

/* Distinct values of a field of every entry, ascending, as zeroed tallies.
 * Steps and ranks lie close together: marked in a table over their range
 * when it is not much longer than the list (a sort of hundreds of
 * thousands of entries was a tenth of the answer), else sorted; the table
 * then says where each key's tally is (a binary search per entry and
 * field was most of what was left). */
static int make_tallies(const struct ovf_list *l, int by_rank, struct overflow_tally **out, size_t *nout,
                        struct tally_at *w) {
    *w = (struct tally_at){0};
    int32_t *keys = malloc((l->n ? l->n : 1) * sizeof *keys);
    if (!keys) return -1;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < l->n; i++) {
        int32_t k = keys[i] = by_rank ? l->v[i].rank : l->v[i].step;
        if (k < lo) lo = k;
        if (k > hi) hi = k;
    }
    size_t n = 0, span = l->n ? (size_t)((int64_t)hi - lo) + 1 : 0;
    uint32_t *at = span && span <= 4 * l->n + 4096 ? calloc(span, sizeof *at) : NULL;
    if (at) {
        for (size_t i = 0; i < l->n; i++) at[keys[i] - lo] = 1;
        for (size_t k = 0; k < span; k++)
            if (at[k]) {
                keys[n++] = (int32_t)((int64_t)lo + (int64_t)k);
                at[k] = (uint32_t)n;
            }
        *w = (struct tally_at){lo, span, at};
    } else {
        qsort(keys, l->n, sizeof *keys, util_cmp_i32);
        for (size_t i = 0; i < l->n; i++)
            if (n == 0 || keys[n - 1] != keys[i]) keys[n++] = keys[i];
    }
    struct overflow_tally *t = calloc(n ? n : 1, sizeof *t);
    if (!t) {
        free(keys);
        free(at);
        *w = (struct tally_at){0};
        return -1;
    }
    for (size_t i = 0; i < n; i++) t[i].key = keys[i];
    free(keys);
    *out = t;
    *nout = n;
    return 0;
}

static int matched_level(const struct ovf_entry *e, void *ctx) {
    const struct overflow_answer *r = ctx;
    return !r->levels || (int)e->level >= r->min_level;
}

int overflow_answer_build(struct overflow_answer *r) {
    const struct ovf_list *l = r->l;
    r->match = malloc((l->n ? l->n : 1) * sizeof *r->match);
    if (!r->match) return -1;
    struct tally_at ws, wr;
    if (make_tallies(l, 0, &r->steps, &r->nsteps, &ws) != 0) return -1;
    if (make_tallies(l, 1, &r->ranks, &r->nranks, &wr) != 0) {
        free(ws.at);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        const struct ovf_entry *e = &l->v[i];
        unsigned lv = e->level <= OVF_CRITICAL ? e->level : OVF_NONE;
        r->counts[lv]++;
        tally_of(r->steps, r->nsteps, &ws, e->step)->n[lv]++;
        tally_of(r->ranks, r->nranks, &wr, e->rank)->n[lv]++;
        if (!r->levels || (int)lv >= r->min_level) r->match[r->nmatch++] = i;
        if ((int)ovf_gate_level(e) >= r->fail_on) r->failing++;
        r->jumps += e->jump != 0;
    }
    free(ws.at);
    free(wr.at);
    if (ovfrows_build(l, matched_level, r, &r->rows, NULL) != 0) return -1;
    /* the origin heads every listing (probetop-rules(7), ORIGIN ACROSS RANKS) */
    long o = ovf_origin_entry(r->origin, l);
    if (o >= 0 && !matched_level(&l->v[o], r)) o = -1;
    if (o >= 0) ovfrows_lead(&r->rows, (size_t)o);
    /* msProbe's anomaly reports count by their rule (anomaly_gate_level) */
    for (size_t i = 0; i < r->ds->anomalies.n; i++)
        if (anomaly_gate_level(&r->ds->anomalies.v[i]) >= r->fail_on) r->failing++;
    r->by_pos = ovf_first(l);
    if (r->by_pos >= 0 && r->levels && (int)l->v[r->by_pos].level < r->min_level) r->by_pos = -1;
    r->first = o >= 0 ? o : r->by_pos;
    r->first_is_origin = o >= 0;
    return 0;
}

void overflow_answer_free(struct overflow_answer *r) {
    free(r->match);
    free(r->steps);
    free(r->ranks);
    ovfrows_free(&r->rows);
}
