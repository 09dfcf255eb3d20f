/* cmp_scan: the pairs of two runs summarized on a few threads (see
 * cmp_scan.h). */
#include "src/io/compare/cmp_scan.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph/layermap.h"
#include "src/io/dump/read_graph.h"
#include "src/io/dump/read_npy.h"

/* One pair, start to end, on the calling thread. */
/* The pair's node (or, without structure, record) named pin as its first
 * at index which; nothing when it has none of that name. */
static int pin_graph(struct compare_run_pair *out, const struct cmp_graph *g, const char *pin, int which) {
    for (size_t n = 0; n < g->npu->nnodes; n++) {
        if (strcmp(tree_id(g->npu, (int)n), pin) != 0) continue;
        struct compare_run_point at;
        const char *in;
        compare_run_node_point(g, (int)n, &at, &in);
        return compare_run_pin(out, which, &at, pin, in, g->nodes[n].worst_rel);
    }
    return 0;
}

static int pin_table(struct compare_run_pair *out, const struct cmp_table *t, const char *pin, int which) {
    double worst = -1, f;
    int32_t rec = -1;
    for (size_t k = 0; k < t->nrows; k++) {
        const struct crow *r = &t->rows[k];
        if (strcmp(tree_s(t->npu, t->npu->recs[r->rec].name), pin) != 0) continue;
        rec = r->rec;
        if (cmp_row_worst(r, t->mode, &f) && f > worst) worst = f;
    }
    if (rec < 0) return 0;
    struct compare_run_point at = {t->npu->step, 0, t->npu->rank, rec};
    return compare_run_pin(out, which, &at, pin, NULL, worst);
}

static void scan_pair(const struct cmp_scan_pair *p, struct compare_run_pair *out, const struct cmp_scan_opts *o, const char *pin,
                      int which) {
    struct tree *a = NULL, *b = NULL;
    struct layermap *pm = NULL;
    struct pt_error err;
    char why[1200];
    out->step = p->step;
    out->rank = p->rank;
    /* both sides with their stacks: the tree build's recompute rule reads them */
    if (graph_read(p->dir[0], 0, &a, &err) != 0 || graph_read(p->dir[1], 0, &b, &err) != 0) {
        compare_run_pair_fail(out, err.msg);
        goto out;
    }
    a->step = b->step = p->step;
    a->rank = b->rank = p->rank;
    if (a->framework[0] && b->framework[0] && strcmp(a->framework, b->framework) && !o->lmap) {
        snprintf(why, sizeof why, "the problem dump is %s and the benchmark %s: names differ between frameworks, "
                                  "give --layer-mapping FILE (a YAML of renames, or auto)", a->framework, b->framework);
        compare_run_pair_fail(out, why);
        goto out;
    }
    if (o->lmap) {
        char warn[1024];
        pm = cmp_files_lmap_build(o->lmap, a, b, warn, sizeof warn);
    }
    struct cmp_opts co = {.fuzzy = o->fuzzy, .map = pm ? layermap_apply : NULL, .map_ctx = pm};
    npy_setup_opts(&co, a, b);   /* tensor dumps with .npy files: the real tensors */
    struct pt_error berr;
    if (tree_build(a, &berr) == 0 && tree_build(b, &berr) == 0) {
        struct cmp_graph *g = NULL;
        if (cmp_graph_new(a, b, &co, &g, &err) != 0) {
            compare_run_pair_fail(out, err.msg);
            goto out;
        }
        if (o->match_config) {
            struct cmp_files_report rep;
            if (cmp_files_match_apply(g, o->match_config, &rep, &err) != 0) {
                compare_run_pair_fail(out, err.msg);
                cmp_graph_free(g);
                goto out;
            }
        }
        if (compare_run_pair_from_graph(out, g) != 0 || (pin && pin_graph(out, g, pin, which) != 0))
            compare_run_pair_fail(out, "out of memory");
        cmp_graph_free(g);
    } else {
        /* no structure (level L1): the table's rows in dump order */
        struct cmp_table *t = NULL;
        if (cmp_table_new(a, b, &co, &t, &err) != 0) compare_run_pair_fail(out, err.msg);
        else if (compare_run_pair_from_table(out, t) != 0 || (pin && pin_table(out, t, pin, which) != 0))
            compare_run_pair_fail(out, "out of memory");
        cmp_table_free(t);
    }
out:
    layermap_free(pm);
    tree_free(a);
    tree_free(b);
}

struct scan_job {
    const struct cmp_scan_pair *v;
    size_t n;
    struct compare_run_pair *out;
    const struct cmp_scan_opts *o;
    atomic_size_t next;
};

static void *scan_worker(void *arg) {
    struct scan_job *j = arg;
    for (;;) {
        if (j->o->cancel && atomic_load(j->o->cancel)) break;
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n) break;
        scan_pair(&j->v[i], &j->out[i], j->o, NULL, 0);
        if (j->o->done) j->o->done(j->o->ctx, i);
    }
    return NULL;
}

void cmp_scan_run(const struct cmp_scan_pair *v, size_t n, struct compare_run_pair *out, const struct cmp_scan_opts *o) {
    struct scan_job j = {.v = v, .n = n, .out = out, .o = o};
    atomic_init(&j.next, 0);
    for (size_t i = 0; i < n; i++) {
        out[i].step = v[i].step;
        out[i].rank = v[i].rank;
    }
    int want = o->threads > 1 ? o->threads - 1 : 0;
    if ((size_t)want > n) want = (int)n;
    pthread_t th[16];
    int started = 0;
    for (int k = 0; k < want && k < 16; k++)
        if (pthread_create(&th[started], NULL, scan_worker, &j) == 0) started++;
    scan_worker(&j);   /* this thread is a worker too */
    for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
}

void cmp_scan_pin(const struct cmp_scan_pair *p, const struct cmp_scan_opts *o, const char *name, int which,
               struct compare_run_pair *out) {
    scan_pair(p, out, o, name, which);
}
