/* ovfrows: the listing order of flagged records (see ovfrows.h).
 *
 * Critical records, then the other NaN/Inf records, straight from the
 * sorted list; numeric-jump records grouped by name.  A group remembers its
 * earliest record (the list is in triage order, so the smallest index) and
 * the spread of its steps and ranks, which is what tells a healthy sum
 * reduction flagged on every step and rank from a real jump. */
#include "model/overflow/ovfrows.h"
#include "model/overflow/anomaly.h"
#include "model/util/util.h"

#include "model/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct named {
    const char *name;
    size_t idx;
};

static int cmp_named(const void *pa, const void *pb) {
    const struct named *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static int cmp_row_entry(const void *pa, const void *pb) {
    const struct ovfrows_row *a = pa, *b = pb;
    return (a->entry > b->entry) - (a->entry < b->entry);
}

/* Number of distinct values in v[0..n) (sorts v). */
static uint32_t distinct(int32_t *v, size_t n) {
    qsort(v, n, sizeof *v, util_cmp_i32);
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1]) k++;
    return k;
}

static struct ovfrows_row single(const struct ovf_list *l, size_t i, int section) {
    const struct ovf_entry *e = &l->v[i];
    return (struct ovfrows_row){ .section = (uint8_t)section, .level = e->level, .entry = i, .count = 1,
                             .nsteps = 1, .nranks = 1, .step_min = e->step, .step_max = e->step,
                             .rank_min = e->rank, .rank_max = e->rank };
}

int ovfrows_build(const struct ovf_list *l, int (*keep)(const struct ovf_entry *e, void *ctx), void *ctx,
                  struct ovfrows *out, struct pt_error *err) {
    ovfrows_free(out);
    size_t n = l->n;
    struct ovfrows_row *rows = malloc((n ? n : 1) * sizeof *rows);
    struct named *jumps = malloc((n ? n : 1) * sizeof *jumps);
    int32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!rows || !jumps || !tmp) {
        free(rows);
        free(jumps);
        free(tmp);
        return pt_errorf(err, "overflow listing: out of memory");
    }
    size_t nrows = 0, njumps = 0, records = 0;
    /* criticals, then the other NaN/Inf records, each in list order */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            const struct ovf_entry *e = &l->v[i];
            if (keep && !keep(e, ctx)) continue;
            if (e->jump) {
                if (pass == 0) jumps[njumps++] = (struct named){ e->name, i };
                continue;
            }
            int crit = e->level == OVF_CRITICAL;
            if (crit != (pass == 0)) continue;
            rows[nrows++] = single(l, i, crit ? OVFROWS_CRITICAL : OVFROWS_NONFINITE);
            records++;
        }
    /* numeric-jump records: one row per name, by earliest record */
    qsort(jumps, njumps, sizeof *jumps, cmp_named);
    size_t first_group = nrows;
    for (size_t i = 0; i < njumps;) {
        size_t j = i;
        while (j < njumps && strcmp(jumps[j].name, jumps[i].name) == 0) j++;
        struct ovfrows_row r = single(l, jumps[i].idx, OVFROWS_JUMP);   /* idx ascending: i is the earliest */
        r.count = j - i;
        for (size_t k = i; k < j; k++) {
            const struct ovf_entry *e = &l->v[jumps[k].idx];
            if (e->step < r.step_min) r.step_min = e->step;
            if (e->step > r.step_max) r.step_max = e->step;
            if (e->rank < r.rank_min) r.rank_min = e->rank;
            if (e->rank > r.rank_max) r.rank_max = e->rank;
            if (e->level > r.level) r.level = e->level;
            tmp[k - i] = e->step;
        }
        r.nsteps = distinct(tmp, j - i);
        for (size_t k = i; k < j; k++) tmp[k - i] = l->v[jumps[k].idx].rank;
        r.nranks = distinct(tmp, j - i);
        rows[nrows++] = r;
        records += r.count;
        i = j;
    }
    qsort(rows + first_group, nrows - first_group, sizeof *rows, cmp_row_entry);
    free(jumps);
    free(tmp);
    out->v = rows;
    out->n = nrows;
    out->records = records;
    return 0;
}

int ovfrows_add_anomalies(struct ovfrows *out, const struct anomaly_list *al,
                          int (*keep)(const struct anomaly *a, void *ctx), void *ctx, struct pt_error *err) {
    size_t k = 0;
    for (size_t i = 0; al && i < al->n; i++) k += !keep || keep(&al->v[i], ctx);
    if (!k) return 0;
    struct ovfrows_row *rows = malloc((out->n + k) * sizeof *rows);
    if (!rows) return pt_errorf(err, "overflow listing: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < al->n; i++) {
        const struct anomaly *a = &al->v[i];
        if (keep && !keep(a, ctx)) continue;
        rows[n++] = (struct ovfrows_row){ .section = OVFROWS_ANOMALY, .level = (uint8_t)anomaly_gate_level(a), .entry = i,
                                      .count = 1, .nsteps = 1, .nranks = 1, .step_min = a->step, .step_max = a->step,
                                      .rank_min = a->rank, .rank_max = a->rank };
    }
    if (out->n) memcpy(rows + n, out->v, out->n * sizeof *rows);
    free(out->v);
    out->v = rows;
    out->n += n;
    return 0;
}

void ovfrows_lead(struct ovfrows *r, size_t entry) {
    size_t at = 0, k = SIZE_MAX;
    while (at < r->n && r->v[at].section == OVFROWS_ANOMALY) at++;
    for (size_t i = at; i < r->n && k == SIZE_MAX; i++)
        if (r->v[i].section < OVFROWS_JUMP && r->v[i].entry == entry) k = i;
    if (k == SIZE_MAX) return;
    struct ovfrows_row w = r->v[k];
    memmove(r->v + at + 1, r->v + at, (k - at) * sizeof *r->v);
    w.origin = 1;
    r->v[at] = w;
}

void ovfrows_free(struct ovfrows *r) {
    free(r->v);
    r->v = NULL;
    r->n = r->records = 0;
}

static void span(char *buf, size_t size, uint32_t n, const char *what, int32_t lo, int32_t hi) {
    if (n == 1) snprintf(buf, size, "1 %s (%d)", what, (int)lo);
    else snprintf(buf, size, "%u %ss (%d-%d)", (unsigned)n, what, (int)lo, (int)hi);
}

void ovfrows_group_text(const struct ovfrows_row *r, int records, char *buf, size_t size) {
    char s[64], k[64];
    if (!buf || size == 0) return;
    span(s, sizeof s, r->nsteps, "step", r->step_min, r->step_max);
    span(k, sizeof k, r->nranks, "rank", r->rank_min, r->rank_max);
    if (records) snprintf(buf, size, "%zu record%s, %s, %s", r->count, r->count == 1 ? "" : "s", s, k);
    else snprintf(buf, size, "%s, %s", s, k);
}
