/* cmp_origin: divergence origin across the ranks of one step: what a pair
 * gives the search (its problem tree, flagged where it diverges); the
 * search itself is ovf_origin_step (src/io/dump/ovf_origin.h), the one the
 * NaN/Inf triage runs too. */
#include "src/io/compare/cmp_origin.h"

#include <stdlib.h>
#include <string.h>

#include "model/compare/compare.h"
#include "model/overflow/origin.h"
#include "src/io/dump/read_graph.h"

struct job {
    const struct cmp_scan_pair *const *pairs;
    int fuzzy, level;
};

/* One pair (ovf_origin_read_fn): the problem tree and its divergence flags. */
static int read_pair(void *ctx, size_t i, struct tree **tree, uint8_t **flags, struct pt_error *e) {
    struct job *j = ctx;
    const struct cmp_scan_pair *p = j->pairs[i];
    struct tree *b = NULL;
    struct cmp_table *t = NULL;
    if (graph_read(p->dir[0], GRAPH_NO_STACK, tree, e) != 0) return -1;
    if (graph_read(p->dir[1], GRAPH_NO_STACK, &b, e) != 0) return -1;
    (*tree)->step = b->step = p->step;
    (*tree)->rank = b->rank = p->rank;
    struct cmp_opts o = {.fuzzy = j->fuzzy};
    int rc = cmp_table_new(*tree, b, &o, &t, e);
    if (rc == 0) {
        *flags = malloc((*tree)->nrecs ? (*tree)->nrecs : 1);
        if (!*flags) rc = pt_errorf(e, "out of memory");
        else origin_flags_divergence(*tree, t->rows, t->nrows, t->mode, j->level, *flags);
    }
    cmp_table_free(t);
    tree_free(b);
    return rc;
}

static int by_rank(const void *a, const void *b) {
    const struct cmp_scan_pair *x = *(const struct cmp_scan_pair *const *)a, *y = *(const struct cmp_scan_pair *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int cmp_origin_step(const struct cmp_scan_pair *v, size_t n, int32_t step, int fuzzy, int level,
                    struct ovf_origin_report *out, struct pt_error *err) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) m += v[i].step == step;
    if (m < 2) return 0;
    const struct cmp_scan_pair **pairs = calloc(m, sizeof *pairs);
    if (!pairs) return pt_errorf(err, "out of memory");
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].step == step) pairs[m++] = &v[i];
    qsort(pairs, m, sizeof *pairs, by_rank);
    struct job j = {.pairs = pairs, .fuzzy = fuzzy, .level = level};
    int rc = ovf_origin_step(out, step, m, ORIGIN_DIVERGENCE, read_pair, &j, NULL, err);
    free(pairs);
    return rc;
}

/* The run's first divergence: the origin node when the rules found one on
 * pair head (that pair compared again with the node as its first, unless
 * it is its first already), else the pair's own first. */
static void answer(const struct cmp_scan_pair *pairs, const struct compare_run_pair *sum, long head, int which, int fuzzy,
                   const struct ovf_origin_report *rep, struct compare_run_first *ans) {
    const struct compare_run_first *own = &sum[head].first[which];
    const struct ovf_origin_node *o = rep->n && rep->v[0].norigins ? &rep->v[0].origins[0] : NULL;
    if (o && o->rank == sum[head].rank && (!own->have || strcmp(own->name, o->name) != 0)) {
        struct compare_run_pair tmp = {0};
        struct cmp_scan_opts so = {.fuzzy = fuzzy, .threads = 1};
        cmp_scan_pin(&pairs[head], &so, o->name, which, &tmp);
        int ok = tmp.state == COMPARE_RUN_DONE && tmp.first[which].have && !strcmp(tmp.first[which].name, o->name);
        if (ok) {
            *ans = tmp.first[which];
            memset(&tmp.first[which], 0, sizeof tmp.first[which]);
        }
        compare_run_pair_clear(&tmp);
        if (ok) return;
    }
    if (own->have && compare_run_first_copy(ans, own) != 0) memset(ans, 0, sizeof *ans);
}

long cmp_origin_first(const struct cmp_scan_pair *pairs, size_t n, const struct compare_run_pair *sum, int fuzzy,
                      int by_number, struct ovf_origin_report *o, int *which, struct compare_run_first *ans,
                      struct pt_error *err) {
    err->msg[0] = '\0';
    if (ans) memset(ans, 0, sizeof *ans);
    long k = compare_run_first(sum, n, which);
    if (k < 0) return -1;
    if (by_number) {
        if (ans) answer(pairs, sum, k, *which, fuzzy, &(struct ovf_origin_report){0}, ans);
        return k;
    }
    /* only the ranks whose pair diverges at that step and level: a clean
     * rank can hold no origin, and each rank costs a second read of both
     * dumps */
    struct cmp_scan_pair *sel = malloc(n * sizeof *sel);
    if (!sel) {
        pt_errorf(err, "out of memory");
        if (ans) answer(pairs, sum, k, *which, fuzzy, &(struct ovf_origin_report){0}, ans);
        return k;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (sum[i].step == sum[k].step && sum[i].state == COMPARE_RUN_DONE && (*which == COMPARE_RUN_ERR ? sum[i].nerror : sum[i].nwarning))
            sel[m++] = pairs[i];
    struct ovf_origin_report mine = {0}, *rep = o ? o : &mine;
    long head = -1;
    int level = *which == COMPARE_RUN_ERR ? CL_ERROR : CL_WARNING;
    if (m > 1 && cmp_origin_step(sel, m, sum[k].step, fuzzy, level, rep, err) == 0 && rep->n && rep->v[0].norigins)
        for (size_t i = 0; i < n && head < 0; i++)
            if (sum[i].step == rep->v[0].step && sum[i].rank == rep->v[0].origins[0].rank && sum[i].state == COMPARE_RUN_DONE)
                head = (long)i;
    free(sel);
    if (head < 0) head = k;
    if (ans) {
        answer(pairs, sum, head, *which, fuzzy, rep, ans);
        /* the origin block names the node's micro step as the answer does */
        if (rep->n && rep->v[0].norigins && ans->have && rep->v[0].origins[0].rank == ans->at.rank &&
            !strcmp(rep->v[0].origins[0].name, ans->name))
            rep->v[0].origins[0].micro = ans->at.micro;
    }
    if (!o) ovf_origin_report_free(&mine);
    return head;
}
