/* pt_tracefast.h: one trace file parsed with the fast event path
 * (src/io/trace/trace_fast.c) and with the tokenizer alone
 * (PROBETOP_TRACE_FAST=0), or in one pass and split on two threads
 * (src/io/trace/trace_split.c), everything trace_parse gives compared: the
 * return code and message, the kernels and launches in order, names,
 * process groups, steps, annotations, flows and the counters.  For
 * tests/fuzz/fuzz_tracefast.c, tests/unit/test_trace_fast.c and
 * tests/unit/test_trace_split.c. */
#ifndef PT_TRACEFAST_H
#define PT_TRACEFAST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/trace/trace_parse.h"

struct pt_tf_run {
    int rc;
    struct pt_error err;
    struct trace_parse_names nm;
    struct trace_parse_file f;
    struct trace_parse_kernel *k;
    struct trace_parse_launch *l;
    size_t nk, nl;
};

static inline void pt_tf_free(struct pt_tf_run *r) {
    free(r->k);
    free(r->l);
    trace_parse_file_free(&r->f);
    trace_parse_names_free(&r->nm);
}

/* The records of a stream in order (NULL, 0 without one). */
static inline void *pt_tf_records(struct trace_spill *s, size_t rec, size_t *n) {
    *n = 0;
    if (!s) return NULL;
    struct pt_error err;
    if (trace_spill_sort(s, &err)) return NULL;
    size_t cap = (size_t)trace_spill_count(s);
    char *v = malloc(cap ? cap * rec : 1);
    const void *x;
    while (v && *n < cap && (x = trace_spill_next(s, &err)) != NULL) memcpy(v + (*n)++ * rec, x, rec);
    return v;
}

/* split_min: trace_parse_file.split_min (0: one pass). */
static inline void pt_tf_parse_split(const char *path, size_t max_value, int fast, uint64_t split_min, struct pt_tf_run *r) {
    memset(r, 0, sizeof *r);
    r->f.split_min = split_min;
    setenv("PROBETOP_TRACE_FAST", fast ? "1" : "0", 1);
    r->rc = trace_parse(path, &r->nm, max_value, NULL, &r->f, &r->err);
    unsetenv("PROBETOP_TRACE_FAST");
    if (r->rc) return;
    r->k = pt_tf_records(r->f.kernels, sizeof *r->k, &r->nk);
    r->l = pt_tf_records(r->f.launches, sizeof *r->l, &r->nl);
}

static inline void pt_tf_parse(const char *path, size_t max_value, int fast, struct pt_tf_run *r) { pt_tf_parse_split(path, max_value, fast, 0, r); }

#define PT_TF_DIFF(cond, ...) do { if (cond) { snprintf(why, nwhy, __VA_ARGS__); return 0; } } while (0)

static inline int pt_tf_compare(const struct pt_tf_run *a, const struct pt_tf_run *b, char *why, size_t nwhy) {
    PT_TF_DIFF(a->rc != b->rc, "return codes %d and %d (%s)", a->rc, b->rc, a->rc ? a->err.msg : b->err.msg);
    if (a->rc) {
        PT_TF_DIFF(strcmp(a->err.msg, b->err.msg), "messages \"%s\" and \"%s\"", a->err.msg, b->err.msg);
        return 1;
    }
    const struct trace_parse_file *x = &a->f, *y = &b->f;
    PT_TF_DIFF(x->rank != y->rank || x->base_ns != y->base_ns || x->bytes != y->bytes, "rank, time base or bytes");
    PT_TF_DIFF(x->nneg != y->nneg || x->nbadts != y->nbadts || x->nlumped != y->nlumped || x->ts_frac != y->ts_frac,
               "counters: nneg %zu/%zu nbadts %zu/%zu nlumped %zu/%zu ts_frac %d/%d", x->nneg, y->nneg, x->nbadts, y->nbadts,
               x->nlumped, y->nlumped, x->ts_frac, y->ts_frac);
    PT_TF_DIFF(x->nkernels != y->nkernels || a->nk != b->nk, "kernels %zu and %zu", x->nkernels, y->nkernels);
    for (size_t i = 0; i < a->nk; i++) {
        const struct trace_parse_kernel *p = &a->k[i], *q = &b->k[i];
        PT_TF_DIFF(p->start != q->start || p->dur != q->dur || p->corr != q->corr || p->hta_ds != q->hta_ds ||
                       p->hta_de != q->hta_de || p->name != q->name || p->stream != q->stream || p->cat != q->cat ||
                       p->hta_kernel != q->hta_kernel || p->pg != q->pg || p->p2p != q->p2p || p->peer != q->peer,
                   "kernel %zu", i);
    }
    PT_TF_DIFF(x->nlaunches != y->nlaunches || a->nl != b->nl, "launches %zu and %zu", x->nlaunches, y->nlaunches);
    for (size_t i = 0; i < a->nl; i++)
        PT_TF_DIFF(a->l[i].corr != b->l[i].corr || a->l[i].ts != b->l[i].ts || a->l[i].hta_ds != b->l[i].hta_ds, "launch %zu", i);
    PT_TF_DIFF(a->nm.n != b->nm.n, "names %zu and %zu", a->nm.n, b->nm.n);
    for (size_t i = 0; i < a->nm.n; i++)
        PT_TF_DIFF(strcmp(a->nm.v[i], b->nm.v[i]) || a->nm.cat[i] != b->nm.cat[i], "name %zu: %s and %s", i, a->nm.v[i], b->nm.v[i]);
    PT_TF_DIFF(x->npgs != y->npgs, "process groups %zu and %zu", x->npgs, y->npgs);
    for (size_t i = 0; i < x->npgs; i++) {
        const struct trace_parse_pg *p = &x->pgs[i], *q = &y->pgs[i];
        PT_TF_DIFF(strcmp(p->name, q->name) || strcmp(p->desc, q->desc) || p->nranks != q->nranks || p->dim != q->dim ||
                       p->config != q->config || (p->nranks && memcmp(p->ranks, q->ranks, (size_t)p->nranks * sizeof *p->ranks)),
                   "process group %zu", i);
    }
    PT_TF_DIFF((x->pg_warn == NULL) != (y->pg_warn == NULL) || (x->pg_warn && strcmp(x->pg_warn, y->pg_warn)), "pg_config warning");
    PT_TF_DIFF(x->nsteps != y->nsteps, "steps %zu and %zu", x->nsteps, y->nsteps);
    for (size_t i = 0; i < x->nsteps; i++)
        PT_TF_DIFF(x->steps[i].n != y->steps[i].n || x->steps[i].start != y->steps[i].start || x->steps[i].end != y->steps[i].end ||
                       x->steps[i].gpu != y->steps[i].gpu,
                   "step %zu", i);
    PT_TF_DIFF(x->nannos != y->nannos, "annotations %zu and %zu", x->nannos, y->nannos);
    for (size_t i = 0; i < x->nannos; i++)
        PT_TF_DIFF(x->annos[i].start != y->annos[i].start || x->annos[i].end != y->annos[i].end ||
                       x->annos[i].micro != y->annos[i].micro || x->annos[i].phase != y->annos[i].phase,
                   "annotation %zu", i);
    PT_TF_DIFF(x->nflows != y->nflows, "flows %zu and %zu", x->nflows, y->nflows);
    for (size_t i = 0; i < x->nflows; i++)
        PT_TF_DIFF(x->flows[i].id != y->flows[i].id || x->flows[i].ts != y->flows[i].ts || x->flows[i].tid != y->flows[i].tid,
                   "flow %zu", i);
    return 1;
}

/* 1 when path parses alike both ways (max_value as trace_parse takes it),
 * else 0 with what differs in why. */
static inline int pt_tracefast_same(const char *path, size_t max_value, char *why, size_t nwhy) {
    struct pt_tf_run a, b;
    pt_tf_parse(path, max_value, 1, &a);
    pt_tf_parse(path, max_value, 0, &b);
    int same = pt_tf_compare(&a, &b, why, nwhy);
    pt_tf_free(&a);
    pt_tf_free(&b);
    return same;
}

/* 1 when path parses alike in one pass and split on two threads (when
 * it can be: *merged says whether it was), else 0 with what differs. */
static inline int pt_tracesplit_same(const char *path, size_t max_value, int *merged, char *why, size_t nwhy) {
    struct pt_tf_run a, b;
    pt_tf_parse_split(path, max_value, 1, 0, &a);
    pt_tf_parse_split(path, max_value, 1, 1, &b);
    int same = pt_tf_compare(&a, &b, why, nwhy);
    if (same && a.f.split_merged) same = 0, snprintf(why, nwhy, "one pass says it merged");
    *merged = b.f.split_merged;
    pt_tf_free(&a);
    pt_tf_free(&b);
    return same;
}

#endif
