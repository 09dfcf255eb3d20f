/* ovf_origin: per-step origin search over the rank folders of a dump. */
#include "src/ovf_origin.h"

#include <stdlib.h>
#include <string.h>

#include "src/read_graph.h"

/* The micro step of a record: its own flagged entry's, else that of the
 * nearest flagged record of the same file before it, else after it (micro
 * steps are contiguous in dump order). */
static int32_t micro_of(const struct dataset *ds, int32_t step, int32_t rank, uint32_t pos) {
    const struct ovf_entry *before = NULL, *after = NULL;
    for (size_t i = 0; i < ds->ovf.n; i++) {
        const struct ovf_entry *e = &ds->ovf.v[i];
        if (e->step != step || e->rank != rank || e->micro < 0) continue;
        if (e->pos == pos) return e->micro;
        if (e->pos < pos && (!before || e->pos > before->pos)) before = e;
        if (e->pos > pos && (!after || e->pos < after->pos)) after = e;
    }
    return before ? before->micro : after ? after->micro : -1;
}

static int name_node(const struct dataset *ds, int32_t step, const struct tree *t, int32_t rec,
                     struct ovf_origin_node *n) {
    const char *s = tree_s(t, t->recs[rec].name);
    n->step = step;
    n->rank = t->rank;
    n->pos = (uint32_t)rec;
    n->micro = micro_of(ds, step, t->rank, (uint32_t)rec);
    n->name = strdup(s ? s : "");
    return n->name ? 0 : -1;
}

static int by_rank(const void *a, const void *b) {
    const struct ds_rankdir *x = *(const struct ds_rankdir *const *)a, *y = *(const struct ds_rankdir *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int step_flagged(const struct dataset *ds, int32_t step) {
    for (size_t i = 0; i < ds->ovf.n; i++)
        if (ds->ovf.v[i].step == step) return 1;
    return 0;
}

/* One step: the rank folders dirs[0..n), ascending rank. */
static int run_step(const struct dataset *ds, int32_t step, const struct ds_rankdir *const *dirs, size_t n,
                    struct ovf_origin_report *out, struct pt_error *err) {
    struct tree **trees = calloc(n, sizeof *trees);
    uint8_t **flags = calloc(n, sizeof *flags);
    struct origin_rank *ranks = calloc(n, sizeof *ranks);
    struct origin_result res = {0};
    int rc = -1;
    if (!trees || !flags || !ranks) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < n; i++) {
        if (graph_read(dirs[i]->dir, GRAPH_NO_STACK, &trees[i], err) != 0) goto out;
        trees[i]->rank = dirs[i]->rank;
        trees[i]->step = step;
        flags[i] = malloc(trees[i]->nrecs ? trees[i]->nrecs : 1);
        if (!flags[i]) { pt_errorf(err, "out of memory"); goto out; }
        origin_flags_nonfinite(trees[i], flags[i]);
        ranks[i] = (struct origin_rank){trees[i], flags[i]};
    }
    if (origin_find(ranks, n, ORIGIN_OVERFLOW, &res, err) != 0) goto out;
    if (res.phase == ORIGIN_NONE) { rc = 0; goto out; }
    struct ovf_origin_step *v = realloc(out->v, (out->n + 1) * sizeof *v);
    if (!v) { pt_errorf(err, "out of memory"); goto out; }
    out->v = v;
    struct ovf_origin_step *s = &v[out->n++];
    memset(s, 0, sizeof *s);
    s->step = step;
    s->phase = res.phase;
    s->origins = calloc(res.nhits ? res.nhits : 1, sizeof *s->origins);
    s->chain = calloc(res.nhops ? res.nhops : 1, sizeof *s->chain);
    if (!s->origins || !s->chain) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < res.nhits; i++, s->norigins++)
        if (name_node(ds, step, trees[res.hits[i].rank], res.hits[i].rec, &s->origins[i]) != 0) {
            pt_errorf(err, "out of memory");
            goto out;
        }
    for (size_t i = 0; i < res.nhops; i++, s->nchain++) {
        const struct origin_hop *h = &res.hops[i];
        struct ovf_origin_hop *o = &s->chain[i];
        if (name_node(ds, step, trees[h->to], h->to_rec, &o->to) != 0 ||
            (h->from >= 0 && name_node(ds, step, trees[h->from], h->from_rec, &o->from) != 0)) {
            pt_errorf(err, "out of memory");
            goto out;
        }
        o->has_from = h->from >= 0;
    }
    rc = 0;
out:
    origin_result_free(&res);
    for (size_t i = 0; i < n; i++) {
        if (trees) tree_free(trees[i]);
        if (flags) free(flags[i]);
    }
    free(trees);
    free(flags);
    free(ranks);
    return rc;
}

int ovf_origin_run(const struct dataset *ds, struct ovf_origin_report *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    if (ds->format != DS_DUMP || !ds->ovf_levels || ds->ovf.n == 0 || ds->nrankdirs == 0) return 0;
    const struct ds_rankdir **dirs = malloc(ds->nrankdirs * sizeof *dirs);
    if (!dirs) return pt_errorf(err, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < ds->nrankdirs && rc == 0;) {
        int32_t step = ds->rankdirs[i].step;
        size_t n = 0;
        for (size_t j = 0; j < ds->nrankdirs; j++)
            if (ds->rankdirs[j].step == step) dirs[n++] = &ds->rankdirs[j];
        /* steps come in any order in rankdirs: handle each once */
        int done = 0;
        for (size_t k = 0; k < i; k++) done |= ds->rankdirs[k].step == step;
        if (!done && step_flagged(ds, step)) {
            qsort(dirs, n, sizeof *dirs, by_rank);
            rc = run_step(ds, step, dirs, n, out, err);
        }
        i++;
    }
    free(dirs);
    if (rc != 0) {
        ovf_origin_report_free(out);
        return -1;
    }
    /* ascending step */
    for (size_t i = 1; i < out->n; i++)
        for (size_t j = i; j > 0 && out->v[j - 1].step > out->v[j].step; j--) {
            struct ovf_origin_step t = out->v[j];
            out->v[j] = out->v[j - 1];
            out->v[j - 1] = t;
        }
    return 0;
}

void ovf_origin_report_free(struct ovf_origin_report *r) {
    for (size_t i = 0; i < r->n; i++) {
        struct ovf_origin_step *s = &r->v[i];
        for (size_t k = 0; k < s->norigins; k++) free(s->origins[k].name);
        for (size_t k = 0; k < s->nchain; k++) {
            free(s->chain[k].from.name);
            free(s->chain[k].to.name);
        }
        free(s->origins);
        free(s->chain);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}
