/* ovf_sort: the triage order of a flagged list (ovf_list_sort,
 * overflow.h).  Two stable sorts: file order (step, rank, position), in
 * which an entry without a micro step takes its neighbour's, then the
 * triage order (step, micro step, position, rank, level down, name,
 * what).  Each is a radix sort of the entries' places by their integer
 * fields packed into one or two keys, each field given only the bits its
 * range needs; names and texts are compared only between entries equal in
 * every integer field.  A comparison sort of whole entries cost twenty
 * times more on a thousand ranks' list, and stable sorts give one order
 * whatever the order the loader's threads added the entries in.  The list
 * the loaders mostly give (in file order, one micro step throughout) takes
 * one counting pass instead (sort_filed). */
#include "model/overflow/overflow.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/radix.h"

#define MAX_COLS 5

/* The integer fields to sort by, most significant first: cols[c][i] is
 * field c of entry i. */
struct cols {
    const int64_t *v[MAX_COLS];
    int n;
};

/* One key of the columns [c0, c1) of entry i, each column offset by its
 * least value and shifted past the less significant ones. */
static uint64_t pack(const struct cols *k, const int64_t *lo, const int *bits, int c0, int c1, size_t i) {
    uint64_t key = 0;
    for (int c = c0; c < c1; c++) key = (bits[c] ? key << bits[c] : key) | (uint64_t)(k->v[c][i] - lo[c]);
    return key;
}

/* ord[0..n) (places, in their present order) made stable-sorted by the
 * columns; tie (NULL: not wanted) then says of each place whether it
 * equals the one before in every column.  0, or -1 without memory (ord
 * then unchanged). */
static int sort_cols(const struct cols *k, size_t n, uint32_t *ord, uint8_t *tie) {
    int64_t lo[MAX_COLS];
    int bits[MAX_COLS];
    for (int c = 0; c < k->n; c++) {
        int64_t mn = k->v[c][0], mx = mn;
        for (size_t i = 1; i < n; i++) {
            if (k->v[c][i] < mn) mn = k->v[c][i];
            if (k->v[c][i] > mx) mx = k->v[c][i];
        }
        lo[c] = mn;
        bits[c] = radix_bits((uint64_t)(mx - mn));
    }
    struct radix_kv *a = malloc(2 * n * sizeof *a);
    if (!a) return -1;
    /* least significant keys first: each sort keeps the order of the last
     * among equal keys */
    int c1 = k->n, keys = 0;
    struct radix_kv *s = a;
    while (c1 > 0) {
        int c0 = c1, width = 0;
        while (c0 > 0 && width + bits[c0 - 1] <= 64) width += bits[--c0];
        if (c0 == c1) width = bits[--c0];   /* (a field never needs more than 64 bits) */
        for (size_t i = 0; i < n; i++) a[i] = (struct radix_kv){pack(k, lo, bits, c0, c1, ord[i]), ord[i]};
        if (!(s = radix_sort_kv(a, a + n, n, width))) {
            free(a);
            return -1;
        }
        for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)s[i].val;
        c1 = c0;
        keys++;
    }
    /* one key holds every column: equal keys are equal places (else the
     * columns are compared) */
    for (size_t i = 0; tie && i < n; i++) {
        int same = i > 0;
        if (same && keys == 1) same = s[i].key == s[i - 1].key;
        else
            for (int c = 0; c < k->n && same; c++) same = k->v[c][ord[i - 1]] == k->v[c][ord[i]];
        tie[i] = (uint8_t)same;
    }
    free(a);
    return 0;
}

/* Level down, name, what: the order of entries equal in every integer
 * field (0 when equal: they keep their order). */
static int tie_cmp(const struct ovf_entry *a, const struct ovf_entry *b) {
    if (a->level != b->level) return a->level > b->level ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->what, b->what);
}

/* Runs of ord equal in the columns (tie: sort_cols'), sorted by tie_cmp
 * (insertion: they are one or two entries long). */
static void sort_ties(const struct ovf_list *l, const uint8_t *tie, uint32_t *ord, size_t n) {
    for (size_t i = 1; i < n; i++) {
        if (!tie[i]) continue;
        size_t j = i;   /* ord[j - 1] and ord[j] are in one run while tie[j] */
        for (; j > 0 && tie[j] && tie_cmp(&l->v[ord[j - 1]], &l->v[ord[j]]) > 0; j--) {
            uint32_t t = ord[j - 1];
            ord[j - 1] = ord[j];
            ord[j] = t;
        }
    }
}

/* The micro step each entry sorts with (see overflow.h): taken from the
 * flagged entry before it in its file, else the one after it.  A record
 * outside every micro step (micro -1: an API called outside the model,
 * such as the loss, or a record construct.json does not list) runs between
 * the records around it; sorting -1 first would put the loss of the last
 * micro batch ahead of the layer that produced the NaN. */
static void fill_micro(const struct ovf_list *l, const uint32_t *ord, size_t n, int64_t *micro) {
    for (size_t i = 0; i < n;) {
        size_t j = i;   /* [i, j): one file (step, rank) in execution order */
        const struct ovf_entry *f = &l->v[ord[i]];
        while (j < n && l->v[ord[j]].step == f->step && l->v[ord[j]].rank == f->rank) j++;
        int64_t prev = -1, next = -1;
        for (size_t t = i; t < j; t++) {
            if (micro[ord[t]] >= 0) prev = micro[ord[t]];
            else if (prev >= 0) micro[ord[t]] = prev;
        }
        for (size_t t = j; t-- > i;) {
            if (micro[ord[t]] >= 0) next = micro[ord[t]];
            else if (next >= 0) micro[ord[t]] = next;
        }
        i = j;
    }
}

/* b may follow a in file order: (step, rank, position). */
static inline int file_order(const struct ovf_entry *a, const struct ovf_entry *b) {
    return a->step != b->step ? a->step < b->step : a->rank != b->rank ? a->rank < b->rank : a->pos <= b->pos;
}

/* Most keys sort_filed counts in (4M: 16 MB of counts). */
#define FILED_KEYS ((size_t)1 << 22)

/* The list the loaders mostly give: in file order already, one micro step
 * throughout (none, mostly), steps and positions in a modest range.  The
 * triage order is then (step, position), file order among equals -- which
 * is rank order, as the files come by (step, rank) -- and one counting
 * pass moves every entry to its place: a tenth of the two radix sorts'
 * instructions and none of their arrays.  Entries equal in step, position
 * and rank too (a record given twice) are put in tie_cmp's order.  1 done,
 * 0 not such a list (l unchanged), -1 out of memory. */
static int sort_filed(struct ovf_list *l) {
    size_t n = l->n;
    const struct ovf_entry *e = l->v;
    uint32_t pmin = e[0].pos, pmax = e[0].pos;
    for (size_t i = 1; i < n; i++) {
        if (e[i].micro != e[0].micro || !file_order(&e[i - 1], &e[i])) return 0;
        if (e[i].pos < pmin) pmin = e[i].pos;
        if (e[i].pos > pmax) pmax = e[i].pos;
    }
    int64_t smin = e[0].step;   /* (in file order: the first and last are the least and greatest) */
    size_t ns = (size_t)(e[n - 1].step - smin) + 1, np = (size_t)(pmax - pmin) + 1;
    if (ns > FILED_KEYS || np > FILED_KEYS / ns) return 0;
    uint32_t *at = calloc(ns * np + 1, sizeof *at);   /* n < 2^32: counts and places fit */
    struct ovf_entry *v = malloc(n * sizeof *v);
    if (!at || !v) {
        free(at);
        free(v);
        return -1;
    }
#define FILED_KEY(x) ((size_t)((x)->step - smin) * np + ((x)->pos - pmin))
    for (size_t i = 0; i < n; i++) at[FILED_KEY(&e[i]) + 1]++;
    for (size_t k = 1; k <= ns * np; k++) at[k] += at[k - 1];   /* at[k]: key k's first place */
    for (size_t i = 0; i < n; i++) v[at[FILED_KEY(&e[i])]++] = e[i];
#undef FILED_KEY
    for (size_t i = 1; i < n; i++)   /* (insertion: runs of one or two) */
        for (size_t j = i; j > 0 && v[j - 1].step == v[j].step && v[j - 1].pos == v[j].pos &&
                           v[j - 1].rank == v[j].rank && tie_cmp(&v[j - 1], &v[j]) > 0;
             j--) {
            struct ovf_entry t = v[j - 1];
            v[j - 1] = v[j];
            v[j] = t;
        }
    free(at);
    free(l->v);
    l->v = v;
    l->cap = n;
    return 1;
}

int ovf_list_sort(struct ovf_list *l) {
    size_t n = l->n;
    if (n < 2) return 0;
    if (n > UINT32_MAX) return -1;
    int fast = sort_filed(l);
    if (fast != 0) return fast < 0 ? -1 : 0;
    int64_t *col = malloc(5 * n * sizeof *col);
    uint32_t *ord = malloc(n * sizeof *ord);
    uint8_t *tie = malloc(n);
    struct ovf_entry *v = malloc(n * sizeof *v);
    int rc = -1;
    if (!col || !ord || !tie || !v) goto out;
    int64_t *step = col, *rank = col + n, *pos = col + 2 * n, *micro = col + 3 * n, *down = col + 4 * n;
    for (size_t i = 0; i < n; i++) {
        const struct ovf_entry *e = &l->v[i];
        step[i] = e->step;
        rank[i] = e->rank;
        pos[i] = e->pos;
        micro[i] = e->micro;
        down[i] = -(int64_t)e->level;
        ord[i] = (uint32_t)i;
    }
    /* the loaders add a file's entries in execution order, and the files
     * mostly in (step, rank) order: then the first sort has nothing to do,
     * and what follows reads the entries in place, not scattered */
    int filed = 1;
    for (size_t i = 1; i < n && filed; i++) filed = file_order(&l->v[i - 1], &l->v[i]);
    struct cols file = {{step, rank, pos}, 3};
    if (!filed && sort_cols(&file, n, ord, NULL) != 0) goto out;
    fill_micro(l, ord, n, micro);
    struct cols triage = {{step, micro, pos, rank, down}, 5};
    if (sort_cols(&triage, n, ord, tie) != 0) goto out;
    sort_ties(l, tie, ord, n);
    for (size_t i = 0; i < n; i++) {
        if (i + 8 < n) __builtin_prefetch(&l->v[ord[i + 8]]);   /* a gather: the entries' memory ahead */
        v[i] = l->v[ord[i]];
    }
    free(l->v);
    l->v = v;
    l->cap = n;
    v = NULL;
    rc = 0;
out:
    free(col);
    free(ord);
    free(tie);
    free(v);
    return rc;
}
