/* ovf_origin: the origin search of one step (ovf_origin_step: ranks read on
 * all cores, kept slim, the rules, the nodes named), which the NaN/Inf
 * triage runs here over the rank folders of a dump and the compare's first
 * divergence over pairs of dumps (src/io/compare/cmp_origin.c). */
#include "src/io/dump/ovf_origin.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/pool.h"
#include "src/io/dump/read_graph.h"

/* The flagged entries of one step that know their micro step, by (rank,
 * position, list order), so that naming the nodes of a chain over many
 * ranks looks each up instead of walking the whole list. */
struct micro_index { const struct ovf_entry **v; size_t n; };

static int by_rank_pos(const void *a, const void *b) {
    const struct ovf_entry *x = *(const struct ovf_entry *const *)a, *y = *(const struct ovf_entry *const *)b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    if (x->pos != y->pos) return (x->pos > y->pos) - (x->pos < y->pos);
    return (x > y) - (x < y);   /* list order */
}

static int micro_index(const struct dataset *ds, int32_t step, struct micro_index *mi) {
    mi->n = 0;
    mi->v = malloc((ds && ds->ovf.n ? ds->ovf.n : 1) * sizeof *mi->v);
    if (!mi->v) return -1;
    for (size_t i = 0; ds && i < ds->ovf.n; i++)
        if (ds->ovf.v[i].step == step && ds->ovf.v[i].micro >= 0) mi->v[mi->n++] = &ds->ovf.v[i];
    qsort(mi->v, mi->n, sizeof *mi->v, by_rank_pos);
    return 0;
}

/* The micro step of a record: its own flagged entry's, else that of the
 * nearest flagged record of the same file before it, else after it (micro
 * steps are contiguous in dump order); the first in list order of equals. */
static int32_t micro_of(const struct micro_index *mi, int32_t rank, uint32_t pos) {
    size_t lo = 0, hi = mi->n;   /* the first entry at (rank, >= pos) */
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        const struct ovf_entry *e = mi->v[m];
        if (e->rank < rank || (e->rank == rank && e->pos < pos)) lo = m + 1;
        else hi = m;
    }
    if (lo < mi->n && mi->v[lo]->rank == rank) {
        if (mi->v[lo]->pos == pos) return mi->v[lo]->micro;
    }
    if (lo > 0 && mi->v[lo - 1]->rank == rank) {
        size_t b = lo - 1;   /* the first of the nearest position before */
        while (b > 0 && mi->v[b - 1]->rank == rank && mi->v[b - 1]->pos == mi->v[lo - 1]->pos) b--;
        return mi->v[b]->micro;
    }
    if (lo < mi->n && mi->v[lo]->rank == rank) return mi->v[lo]->micro;
    return -1;
}

static int name_node(const struct micro_index *mi, int32_t step, const struct tree *t, int32_t rec,
                     struct ovf_origin_node *n) {
    const char *s = tree_s(t, t->recs[rec].name);
    n->step = step;
    n->rank = t->rank;
    n->pos = (uint32_t)rec;
    n->micro = mi ? micro_of(mi, t->rank, (uint32_t)rec) : -1;
    n->name = strdup(s ? s : "");
    return n->name ? 0 : -1;
}

static int by_rank(const void *a, const void *b) {
    const struct ds_rankdir *x = *(const struct ds_rankdir *const *)a, *y = *(const struct ds_rankdir *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Reading the rank folders of a step (ovf_origin_read_fn): a rank that
 * cannot be read (the triage skipped it too) is left out and counted. */
struct reader {
    const struct ds_rankdir *const *dirs;
    int32_t step;
    size_t skipped;          /* ranks that could not be read */
    struct pt_error skip_err;   /* the first one's message */
    pthread_mutex_t mu;
};

int ovf_origin_read_rank(const struct ds_rankdir *d, int32_t step, int whole, struct tree **tree, uint8_t **flags,
                         struct pt_error *e) {
    *tree = NULL;
    *flags = NULL;
    /* what the load kept: only the communication ops and the records whose
     * flags it could not be sure of are parsed again */
    const struct origin_cap *cap = whole ? NULL : d->ocap;
    int got = cap ? graph_read_cap(d->dir, cap, origin_is_comm, tree, e) : 1;
    if (got < 0) return -1;
    /* else records and params: the rules read neither the stacks nor the structure */
    if (got == 1 && graph_read(d->dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, tree, e) != 0) return 1;
    if (!(*flags = malloc((*tree)->nrecs ? (*tree)->nrecs : 1))) {
        tree_free(*tree);
        *tree = NULL;
        return pt_errorf(e, "out of memory");
    }
    (*tree)->rank = d->rank;
    (*tree)->step = step;
    /* the records not parsed again (light communication ops too): their
     * flags as the load found them; the others' from their params */
    if (got != 0) origin_flags_nonfinite(*tree, *flags);
    for (size_t r = 0; got == 0 && r < (*tree)->nrecs; r++)   /* (one record a capture's: read_cap) */
        (*flags)[r] = r < cap->n && !origin_cap_reparsed(cap, r, origin_is_comm) ? cap->v[r].flags
                                                                                  : origin_rec_nonfinite(*tree, r);
    return 0;
}

static int read_dir(void *ctx, size_t i, struct tree **tree, uint8_t **flags, struct pt_error *e) {
    struct reader *rd = ctx;
    int rc = ovf_origin_read_rank(rd->dirs[i], rd->step, 0, tree, flags, e);
    /* the capture serves one search: gone as soon as its rank is read, its
     * memory then holds the step's slim trees (the peak stays the
     * search's); a later search reads the file whole */
    struct ds_rankdir *d = (struct ds_rankdir *)rd->dirs[i];
    origin_cap_free(d->ocap);
    d->ocap = NULL;
    if (rc == 1) {
        pthread_mutex_lock(&rd->mu);
        if (!rd->skipped++) rd->skip_err = *e;
        pthread_mutex_unlock(&rd->mu);
        return 0;
    }
    return rc;
}

/* A flagged record that holds a NaN or Inf (not one flagged by the Norm
 * jump alone, which the origin rules do not see). */
static int entry_nonfinite(const struct ovf_entry *e) {
    return e->level != OVF_HIGH || strncmp(e->what, "Norm jump", 9) != 0;
}

/* The number of ranks of a step with a non-finite record (0, 1 or 2 =
 * more). */
static int ranks_flagged(const struct dataset *ds, int32_t step, int32_t *only) {
    int n = 0;
    for (size_t i = 0; i < ds->ovf.n && n < 2; i++) {
        const struct ovf_entry *e = &ds->ovf.v[i];
        if (e->step != step || !entry_nonfinite(e)) continue;
        if (n == 0) { *only = e->rank; n = 1; }
        else if (e->rank != *only) n = 2;
    }
    return n;
}

/* Appends the result of the rules on one step (trees as given to
 * origin_find) to a report, naming its nodes; ds (may be NULL) gives the
 * micro steps.  Nothing is added when res found no origin.  0, or -1 out of
 * memory. */
static int add_step(struct ovf_origin_report *out, int32_t step, struct tree *const *trees,
                    const struct origin_result *res, const struct dataset *ds, struct pt_error *err) {
    if (res->phase == ORIGIN_NONE) return 0;
    struct ovf_origin_step *v = realloc(out->v, (out->n + 1) * sizeof *v);
    if (!v) return pt_errorf(err, "out of memory");
    out->v = v;
    struct ovf_origin_step *s = &v[out->n++];
    memset(s, 0, sizeof *s);
    s->step = step;
    s->phase = res->phase;
    s->origins = calloc(res->nhits ? res->nhits : 1, sizeof *s->origins);
    s->chain = calloc(res->nhops ? res->nhops : 1, sizeof *s->chain);
    struct micro_index mi = {0};
    if (!s->origins || !s->chain || (ds && micro_index(ds, step, &mi) != 0)) return pt_errorf(err, "out of memory");
    const struct micro_index *m = ds ? &mi : NULL;
    int rc = 0;
    for (size_t i = 0; i < res->nhits && rc == 0; i++, s->norigins++)
        if (name_node(m, step, trees[res->hits[i].rank], res->hits[i].rec, &s->origins[i]) != 0)
            rc = pt_errorf(err, "out of memory");
    for (size_t i = 0; i < res->nhops && rc == 0; i++, s->nchain++) {
        const struct origin_hop *h = &res->hops[i];
        struct ovf_origin_hop *o = &s->chain[i];
        if (name_node(m, step, trees[h->to], h->to_rec, &o->to) != 0 ||
            (h->from >= 0 && name_node(m, step, trees[h->from], h->from_rec, &o->from) != 0))
            rc = pt_errorf(err, "out of memory");
        o->has_from = h->from >= 0;
    }
    free(mi.v);
    return rc;
}

long ovf_origin_entry(const struct ovf_origin_report *o, const struct ovf_list *l) {
    if (!o || !o->n || !o->v[0].norigins) return -1;
    const struct ovf_origin_node *n = &o->v[0].origins[0];
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].step == n->step && l->v[i].rank == n->rank && l->v[i].pos == n->pos && !l->v[i].jump)
            return (long)i;
    return -1;
}

static void node_text(FILE *f, const struct ovf_origin_node *n) {
    char name[2048];
    fprintf(f, "rank %d", (int)n->rank);
    if (n->micro >= 0) fprintf(f, " micro step %d", (int)n->micro);
    fprintf(f, ", position %u: %s", (unsigned)n->pos, pt_escape(n->name, strlen(n->name), name, sizeof name));
}

void ovf_origin_print_text(FILE *f, const struct ovf_origin_report *o) {
    for (size_t i = 0; i < o->n; i++) {
        const struct ovf_origin_step *s = &o->v[i];
        fprintf(f, "origin across ranks, step %d (%s):\n", (int)s->step, origin_phase_name(s->phase));
        for (size_t k = 0; k < s->norigins; k++) {
            fprintf(f, "  born on ");
            node_text(f, &s->origins[k]);
            fprintf(f, "\n");
        }
        for (size_t k = 0; k < s->nchain; k++) {
            const struct ovf_origin_hop *h = &s->chain[k];
            fprintf(f, "  -> ");
            node_text(f, &h->to);
            if (h->has_from) {
                fprintf(f, "\n       received from ");
                node_text(f, &h->from);
            } else {
                fprintf(f, "\n       (no anomalous peer: appeared there too)");
            }
            fprintf(f, "\n");
        }
    }
}

/* ---- one step ---- */

struct step_job {
    ovf_origin_read_fn read;
    void *ctx;
    enum origin_rules rules;
    struct tree **trees;
    uint8_t **flags;
};

static int read_rank(void *ctx, size_t i, struct pt_error *e) {
    struct step_job *j = ctx;
    if (j->read(j->ctx, i, &j->trees[i], &j->flags[i], e) != 0) return -1;
    if (!j->trees[i]) return 0;
    /* kept until every rank is read: only what the rules read further */
    if (origin_is_slim(j->trees[i], j->rules)) {
        tree_forget_records(j->trees[i]);   /* the rules find nothing by name */
        return 0;
    }
    struct tree *slim = origin_slim(j->trees[i], j->rules);
    if (!slim) return pt_errorf(e, "out of memory");
    tree_free(j->trees[i]);
    j->trees[i] = slim;
    return 0;
}

int ovf_origin_step(struct ovf_origin_report *out, int32_t step, size_t n, enum origin_rules rules,
                    ovf_origin_read_fn read, void *ctx, const struct dataset *ds, struct pt_error *err) {
    struct tree **trees = calloc(n ? n : 1, sizeof *trees);
    uint8_t **flags = calloc(n ? n : 1, sizeof *flags);
    struct origin_rank *ranks = calloc(n ? n : 1, sizeof *ranks);
    struct origin_result res = {0};
    int rc = -1;
    if (!trees || !flags || !ranks) { pt_errorf(err, "out of memory"); goto out; }
    struct step_job j = {read, ctx, rules, trees, flags};
    if (util_pool_for(n, read_rank, &j, err) != 0) goto out;
    /* the ranks read, packed (ascending rank still) */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (trees[i]) {
            trees[m] = trees[i];
            flags[m] = flags[i];
            ranks[m] = (struct origin_rank){trees[m], flags[m]};
            m++;
        } else free(flags[i]);
    for (size_t i = m; i < n; i++) trees[i] = NULL, flags[i] = NULL;
    if (origin_find(ranks, m, rules, &res, err) != 0) goto out;
    if (add_step(out, step, trees, &res, ds, err) != 0) goto out;
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

/* ---- the run: the first step with an origin ---- */

/* One step of the dump: the rank folders dirs[0..n), ascending rank. */
static int run_step(const struct dataset *ds, int32_t step, const struct ds_rankdir *const *dirs, size_t n,
                    struct ovf_origin_report *out, struct pt_error *err) {
    struct reader rd = {.dirs = dirs, .step = step};
    pthread_mutex_init(&rd.mu, NULL);
    int rc = ovf_origin_step(out, step, n, ORIGIN_OVERFLOW, read_dir, &rd, ds, err);
    pthread_mutex_destroy(&rd.mu);
    if (rc == 0 && rd.skipped && !out->note[0])
        snprintf(out->note, sizeof out->note, "step %d: %zu rank(s) left out: %s", (int)step, rd.skipped,
                 rd.skip_err.msg);
    return rc;
}

static int cmp_step(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int ovf_origin_run(const struct dataset *ds, struct ovf_origin_report *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    if (!ds->ovf_levels || ds->ovf.n == 0 || ds->nrankdirs == 0) return 0;
    const struct ds_rankdir **dirs = malloc(ds->nrankdirs * sizeof *dirs);
    int32_t *steps = malloc(ds->nrankdirs * sizeof *steps);
    if (!dirs || !steps) {
        free(dirs);
        free(steps);
        return pt_errorf(err, "out of memory");
    }
    size_t ns = 0;
    for (size_t i = 0; i < ds->nrankdirs; i++) steps[ns++] = ds->rankdirs[i].step;
    qsort(steps, ns, sizeof *steps, cmp_step);
    int rc = 0;
    /* the steps in order, until one has an origin: a NaN that is born in
     * one step usually stays in the weights, so the later steps would only
     * repeat "before any communication" on every rank, each for a second
     * read of the whole step */
    for (size_t si = 0; si < ns && rc == 0 && out->n == 0; si++) {
        int32_t step = steps[si];
        if (si && steps[si - 1] == step) continue;
        int32_t only = 0;
        int nf = ranks_flagged(ds, step, &only);
        if (!nf) continue;
        size_t n = 0;
        for (size_t j = 0; j < ds->nrankdirs; j++)
            if (ds->rankdirs[j].step == step && (nf == 2 || ds->rankdirs[j].rank == only))
                dirs[n++] = &ds->rankdirs[j];
        /* one affected rank: the others, clean, can neither hold the origin
         * nor change the order of that rank's own ops */
        qsort(dirs, n, sizeof *dirs, by_rank);
        rc = run_step(ds, step, dirs, n, out, err);
    }
    free(dirs);
    free(steps);
    if (rc != 0) {
        ovf_origin_report_free(out);
        return -1;
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
