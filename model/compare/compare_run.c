/* compare_run: the whole run's first divergence (see compare_run.h). */
#include "model/compare/compare_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int compare_run_rank_cmp(const struct compare_run_point *a, const struct compare_run_point *b) {
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static int cmp32(int32_t a, int32_t b) { return (a > b) - (a < b); }

int compare_run_cmp(const struct compare_run_point *a, const struct compare_run_point *b) {
    int c = cmp32(a->step, b->step);
    if (!c) c = cmp32(a->micro, b->micro);
    if (!c) c = compare_run_rank_cmp(a, b);
    if (!c) c = cmp32(a->order, b->order);
    return c;
}

int compare_run_first_copy(struct compare_run_first *dst, const struct compare_run_first *src) {
    *dst = *src;
    dst->name = src->name ? strdup(src->name) : NULL;
    dst->in = src->in ? strdup(src->in) : NULL;
    if ((src->name && !dst->name) || (src->in && !dst->in)) {
        compare_run_first_free(dst);
        return -1;
    }
    return 0;
}

void compare_run_first_free(struct compare_run_first *f) {
    free(f->name);
    free(f->in);
    memset(f, 0, sizeof *f);
    f->worst = -1;
}

int compare_run_offer(struct compare_run_pair *p, int level, const struct compare_run_point *at, const char *name,
                      const char *in, double worst) {
    if (level != CL_ERROR && level != CL_WARNING) return 0;
    struct compare_run_first *f = &p->first[level == CL_ERROR ? COMPARE_RUN_ERR : COMPARE_RUN_WARN];
    if (f->have && compare_run_cmp(at, &f->at) >= 0) return 0;
    char *nm = strdup(name), *im = in ? strdup(in) : NULL;
    if (!nm || (in && !im)) {
        free(nm);
        free(im);
        return -1;
    }
    compare_run_first_free(f);
    f->have = 1;
    f->at = *at;
    f->name = nm;
    f->in = im;
    f->worst = worst;
    return 0;
}

int compare_run_node_point(const struct cmp_graph *g, int n, struct compare_run_point *at, const char **in) {
    const struct tree *t = g->npu;
    *at = (struct compare_run_point){t->step, t->nodes[n].micro, t->rank, t->nodes[n].order};
    /* a node right under the root runs "in" the root (DefaultModel) */
    int m = tree_enclosing_module(t, n);
    if (m < 0 && n != t->root) m = t->root;
    *in = m >= 0 ? tree_id(t, m) : NULL;
    return cmp_node_level(g, n);
}

int compare_run_pin(struct compare_run_pair *p, int which, const struct compare_run_point *at, const char *name,
                    const char *in, double worst) {
    struct compare_run_first keep = p->first[which];
    memset(&p->first[which], 0, sizeof keep);
    if (compare_run_offer(p, which == COMPARE_RUN_ERR ? CL_ERROR : CL_WARNING, at, name, in, worst) != 0) {
        p->first[which] = keep;
        return -1;
    }
    compare_run_first_free(&keep);
    return 0;
}

/* md5 mode: the error first becomes the operator the determinism rule
 * named (probetop-rules(7), FIRST DIVERGENCE: Determinism).  0, or -1
 * without memory. */
static int offer_det(struct compare_run_pair *p, const struct compare_run_point *at, const char *name, const char *in) {
    if (compare_run_pin(p, COMPARE_RUN_ERR, at, name, in, -1) != 0) return -1;
    p->first[COMPARE_RUN_ERR].det = 1;
    return 0;
}

int compare_run_pair_from_graph(struct compare_run_pair *p, const struct cmp_graph *g) {
    const struct tree *t = g->npu;
    compare_run_pair_clear(p);
    p->step = t->step;
    p->rank = t->rank;
    p->graph = 1;
    p->nunmatched_bench = g->nunmatched_bench;
    int det = g->mode == CMP_MD5 ? cmp_first_divergence(g) : -1;
    if (det >= 0 && !cmp_node_nondeterministic(g, det)) det = -1;
    for (size_t k = 0; k < t->norder; k++) {
        int n = t->order[k];
        if (t->nodes[n].kind == TK_APIS) continue;
        struct compare_run_point at;
        const char *in;
        int lv = compare_run_node_point(g, n, &at, &in);
        if (lv == -1) p->nunmatched++;
        if (lv != CL_ERROR && lv != CL_WARNING) continue;
        if (lv == CL_ERROR) p->nerror++;
        else p->nwarning++;
        if ((n == det ? offer_det(p, &at, tree_id(t, n), in)
                      : p->first[COMPARE_RUN_ERR].det && lv == CL_ERROR ? 0
                      : compare_run_offer(p, lv, &at, tree_id(t, n), in, g->nodes[n].worst_rel)) != 0) {
            compare_run_pair_clear(p);
            return -1;
        }
    }
    p->state = COMPARE_RUN_DONE;
    return 0;
}

int compare_run_pair_from_table(struct compare_run_pair *p, const struct cmp_table *tb) {
    compare_run_pair_clear(p);
    return compare_run_pair_add_table(p, tb);
}

int compare_run_pair_add_table(struct compare_run_pair *p, const struct cmp_table *tb) {
    const struct tree *t = tb->npu;
    p->step = t->step;
    p->rank = t->rank;
    /* md5: the first record the determinism rule names, once pinned (a
     * block holds whole dump entries, so its first row starts one) */
    for (size_t k = 0; k < tb->nrows; k++) {
        const struct crow *r = &tb->rows[k];
        int det = p->first[COMPARE_RUN_ERR].det;
        if (tb->mode == CMP_MD5 && !det && (k == 0 || r[-1].rec != r->rec)) {
            size_t e = k;
            while (e < tb->nrows && tb->rows[e].rec == r->rec) e++;
            const char *name = tree_s(t, t->recs[r->rec].name);
            int kind = tree_kind_of(name);
            if ((kind == TK_API || kind == TK_FUSED) && cmp_rows_nondeterministic(r, e - k)) {
                struct compare_run_point at = {t->step, 0, t->rank, r->rec};
                if (offer_det(p, &at, name, NULL) != 0) {
                    compare_run_pair_clear(p);
                    return -1;
                }
                det = 1;
            }
        }
        if (r->level == CL_ERROR) p->nerror++;
        else if (r->level == CL_WARNING) p->nwarning++;
        else continue;
        double w = -1, f;
        if (cmp_row_worst(r, tb->mode, &f)) w = f;
        struct compare_run_point at = {t->step, 0, t->rank, r->rec};
        if (det && r->level == CL_ERROR) continue;
        if (compare_run_offer(p, r->level, &at, tree_s(t, t->recs[r->rec].name), NULL, w) != 0) {
            compare_run_pair_clear(p);
            return -1;
        }
    }
    p->state = COMPARE_RUN_DONE;
    return 0;
}

void compare_run_pair_fail(struct compare_run_pair *p, const char *why) {
    compare_run_pair_clear(p);
    p->why = strdup(why ? why : "");
    p->state = COMPARE_RUN_FAILED;
}

void compare_run_pair_clear(struct compare_run_pair *p) {
    int32_t step = p->step, rank = p->rank;
    compare_run_first_free(&p->first[0]);
    compare_run_first_free(&p->first[1]);
    free(p->why);
    memset(p, 0, sizeof *p);
    p->first[0].worst = p->first[1].worst = -1;
    p->step = step;
    p->rank = rank;
}

long compare_run_first(const struct compare_run_pair *v, size_t n, int *which) {
    int anydet = 0;
    for (size_t i = 0; i < n; i++) anydet |= v[i].state == COMPARE_RUN_DONE && v[i].first[COMPARE_RUN_ERR].det;
    for (int w = COMPARE_RUN_ERR; w <= COMPARE_RUN_WARN; w++) {
        long best = -1;
        for (size_t i = 0; i < n; i++) {
            if (v[i].state != COMPARE_RUN_DONE || !v[i].first[w].have) continue;
            if (anydet && !v[i].first[w].det) continue;
            if (best < 0 || compare_run_cmp(&v[i].first[w].at, &v[best].first[w].at) < 0) best = (long)i;
        }
        if (best >= 0) {
            *which = w;
            return best;
        }
    }
    *which = -1;
    return -1;
}

char *compare_run_where(const struct compare_run_first *f, char *buf, size_t size) {
    if (!f->have) snprintf(buf, size, "-");
    else if (f->in) snprintf(buf, size, "%s in %s", f->name, f->in);
    else snprintf(buf, size, "%s", f->name);
    return buf;
}
