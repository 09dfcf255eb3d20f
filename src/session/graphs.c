/* graphs: compare / build / .vis.db state of the session (see
 * graphs.h). */
#include "src/session/graphs.h"
#include "model/util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "model/cube/cube_lazy.h"
#include "model/compare/rundiff.h"
#include "src/io/compare/cmp_files.h"
#include "src/io/compare/cmp_scan.h"
#include "src/io/load.h"
#include "src/io/visdb/read_visdb.h"
#include "src/session/session.h"
#include "src/io/compare/cmp_origin.h"
#include "src/io/common/json.h"
#include "src/io/dump/read_graph.h"
#include "src/io/dump/read_npy.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sorted distinct values of v[0..n) in place; the new count. */
static int uniq(int32_t *v, size_t n) {
    qsort(v, n, sizeof *v, util_cmp_i32);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || v[k - 1] != v[i]) v[k++] = v[i];
    return (int)k;
}

static void trend_start(struct session *a);
static int trend_poll(struct session *a);
static int scan_poll(struct session *a);
static void summary_refresh(struct graphs *c, const struct graphs_loaded *G);

/* ---- the graph of one (step, rank) ---- */

static void graph_free(struct graphs_loaded *G) {
    if (!G) return;
    cmp_graph_free(G->g);
    for (int i = 0; i < 2; i++) {
        if (G->vg[i]) visdb_graph_free(G->vg[i]);
        else tree_free(G->t[i]);
    }
    free(G->ovf);
    free(G->pre);
    free(G->bpre);
    free(G->vlink);
    free(G->vblink);
    for (size_t i = 0; i < G->npeers; i++) free(G->peers[i].node);
    free(G->peers);
    free(G->peer0);
    free(G->npeer);
    dataflow_free(G->df);
    free(G);
}

/* Pre-order (execution) positions of every reachable node. */
static int32_t *preorder(const struct tree *t) {
    int32_t *pre = malloc((t->nnodes ? t->nnodes : 1) * sizeof *pre);
    int32_t *stack = malloc((t->nnodes ? t->nnodes : 1) * sizeof *stack);
    if (!pre || !stack) {
        free(pre);
        free(stack);
        return NULL;
    }
    for (size_t i = 0; i < t->nnodes; i++) pre[i] = -1;
    size_t sp = 0;
    int32_t k = 0;
    if (t->root >= 0) stack[sp++] = t->root;
    while (sp) {
        int n = stack[--sp];
        if (pre[n] >= 0) continue;
        pre[n] = k++;
        /* children reversed on the stack so the first comes out next */
        size_t mark = sp;
        for (int c = t->nodes[n].first; c >= 0 && sp < t->nnodes; c = t->nodes[c].next) stack[sp++] = c;
        for (size_t i = mark, j = sp ? sp - 1 : 0; i < j; i++, j--) {
            int32_t x = stack[i];
            stack[i] = stack[j];
            stack[j] = x;
        }
    }
    free(stack);
    return pre;
}

struct side_job {
    const char *dir;
    struct tree *t;
    int rc, built;
    struct pt_error err, berr;
};

static void *side_run(void *arg) {
    struct side_job *j = arg;
    j->rc = graph_read(j->dir, 0, &j->t, &j->err);
    if (j->rc == 0) j->built = tree_build(j->t, &j->berr) == 0;
    return NULL;
}

static const struct graphs_pair *pair_of(const struct graphs *c, int32_t step, int32_t rank) {
    for (size_t i = 0; i < c->npairs; i++)
        if (c->pairs[i].step == step && c->pairs[i].rank == rank) return &c->pairs[i];
    return NULL;
}

static int load_visdb(struct graphs *c, struct graphs_loaded *G, struct pt_error *err) {
    if (visdb_load(c->vdb, G->step, G->rank, "NPU", &G->vg[0], err) != 0) return -1;
    G->t[0] = G->vg[0]->tree;
    G->vin[0] = G->vg[0]->in;
    G->vout[0] = G->vg[0]->out;
    if (!c->vdb->compare) return 0;
    struct pt_error e2;
    if (visdb_load(c->vdb, G->step, G->rank, "Bench", &G->vg[1], &e2) != 0) {
        snprintf(G->note, sizeof G->note, "no benchmark graph stored: %s", e2.msg);
        return 0;
    }
    G->t[1] = G->vg[1]->tree;
    G->vin[1] = G->vg[1]->in;
    G->vout[1] = G->vg[1]->out;
    const struct tree *a = G->t[0], *b = G->t[1];
    G->vlink = malloc((a->nnodes ? a->nnodes : 1) * sizeof *G->vlink);
    G->vblink = malloc((b->nnodes ? b->nnodes : 1) * sizeof *G->vblink);
    if (!G->vlink || !G->vblink) return pt_errorf(err, "out of memory");
    for (size_t i = 0; i < b->nnodes; i++) G->vblink[i] = -1;
    for (size_t i = 0; i < a->nnodes; i++) {
        const char *l = G->vg[0]->link[i];
        G->vlink[i] = l ? tree_find(b, l) : -1;
        if (G->vlink[i] >= 0) G->vblink[G->vlink[i]] = (int32_t)i;
    }
    return 0;
}

static int load_dumps(struct graphs *c, const struct graphs_pair *p, struct graphs_loaded *G, struct pt_error *err) {
    struct side_job j[2];
    memset(j, 0, sizeof j);
    j[0].dir = p->dir[0];
    j[1].dir = p->dir[1];
    pthread_t th;
    int threaded = 0;
    /* the two sides in two threads: the reading is most of the time */
    if (p->dir[1]) threaded = pthread_create(&th, NULL, side_run, &j[1]) == 0;
    side_run(&j[0]);
    if (p->dir[1]) {
        if (threaded) pthread_join(th, NULL);
        else side_run(&j[1]);
    }
    int rc = -1;
    if (j[0].rc != 0) {
        *err = j[0].err;
        goto out;
    }
    j[0].t->step = p->step;
    j[0].t->rank = p->rank;
    if (j[1].t) {
        j[1].t->step = p->step;
        j[1].t->rank = p->rank;
    }
    if (!j[0].built) {
        /* no tree (level L1): the trend screen still has the data */
        snprintf(G->note, sizeof G->note, "step %d rank %d: no model tree: %s. F2 shows the trend screen",
                 (int)p->step, (int)p->rank, j[0].berr.msg);
        G->t[0] = j[0].t;
        j[0].t = NULL;
        rc = 0;
        goto out;
    }
    G->t[0] = j[0].t;
    j[0].t = NULL;
    if (!p->dir[1]) { rc = 0; goto out; }
    if (j[1].rc != 0) {
        snprintf(G->note, sizeof G->note, "benchmark: %s; showing the problem tree without verdicts", j[1].err.msg);
        rc = 0;
        goto out;
    }
    if (!j[1].built) {
        snprintf(G->note, sizeof G->note, "benchmark has no model tree (%s); showing the problem tree without verdicts",
                 j[1].berr.msg);
        rc = 0;
        goto out;
    }
    G->t[1] = j[1].t;
    j[1].t = NULL;
    const struct tree *a = G->t[0], *b = G->t[1];
    if (a->framework[0] && b->framework[0] && strcmp(a->framework, b->framework) && !c->have_lmap) {
        snprintf(G->note, sizeof G->note,
                 "the problem dump is %s and the benchmark %s: names differ between frameworks; give "
                 "--layer-mapping FILE or auto. Showing the problem tree without verdicts", a->framework, b->framework);
        rc = 0;
        goto out;
    }
    /* the layer mapping of this pair, from both dumps (probetop-rules(7), MATCHING: Graph matching); only the
     * matching uses it */
    struct layermap *pm = NULL;
    if (c->have_lmap) {
        char warn[1024];
        pm = cmp_files_lmap_build(c->lmap, a, b, warn, sizeof warn);
        if (warn[0]) snprintf(G->note, sizeof G->note, "%s", warn);
    }
    struct cmp_opts o = {.fuzzy = c->fuzzy, .map = pm ? layermap_apply : NULL, .map_ctx = pm};
    /* tensor dumps with .npy files: the real tensors (.pt: statistics) */
    const char *tn = npy_setup_opts(&o, a, b);
    if (tn && !G->note[0]) snprintf(G->note, sizeof G->note, "%s", tn);
    struct pt_error ce;
    if (cmp_graph_new(a, b, &o, &G->g, &ce) != 0) {
        G->g = NULL;
        snprintf(G->note, sizeof G->note, "no compare: %s; showing the problem tree without verdicts", ce.msg);
    } else if (G->g->tensor_failed && !G->note[0]) {
        snprintf(G->note, sizeof G->note, "%zu tensors could not be read (their rows say unsupported); first: %s",
                 G->g->tensor_failed, G->g->tensor_err);
    }
    layermap_free(pm);
    rc = 0;
out:
    tree_free(j[0].t);
    tree_free(j[1].t);
    return rc;
}

/* Reads, builds and compares one (step, rank): the loader thread's work. */
static struct graphs_loaded *load_graph(struct graphs *c, int32_t step, int32_t rank, struct pt_error *err) {
    double t0 = now_s();
    struct graphs_loaded *G = calloc(1, sizeof *G);
    if (!G) {
        pt_errorf(err, "out of memory");
        return NULL;
    }
    G->step = step;
    G->rank = rank;
    int rc;
    if (c->visdb) rc = load_visdb(c, G, err);
    else {
        const struct graphs_pair *p = pair_of(c, step, rank);
        rc = p ? load_dumps(c, p, G, err) : pt_errorf(err, "no step %d rank %d", (int)step, (int)rank);
    }
    if (rc == 0 && G->t[0] && G->t[0]->norder) {
        G->pre = preorder(G->t[0]);
        if (G->t[1]) G->bpre = preorder(G->t[1]);
        if (!G->pre || (G->t[1] && !G->bpre)) rc = pt_errorf(err, "out of memory");
    }
    if (rc != 0) {
        graph_free(G);
        return NULL;
    }
    G->load_seconds = now_s() - t0;
    return G;
}

static void *loader_run(void *arg) {
    struct graphs *c = arg;
    c->next = load_graph(c, c->want_step, c->want_rank, &c->err);
    c->rc = c->next ? 0 : -1;
    atomic_store(&c->done, 1);
    return NULL;
}

/* ---- finishing a graph in the UI thread ---- */

/* Overflow marks: the dataset's flagged records of this (step, rank), or
 * what the .vis.db stored. */
static void mark_overflow(struct session *a, struct graphs_loaded *G) {
    const struct tree *t = G->t[0];
    if (!t || !t->nnodes) return;
    if (!G->ovf) G->ovf = calloc(t->nnodes, 1);
    if (!G->ovf) return;
    memset(G->ovf, 0, t->nnodes);
    if (G->vg[0]) {
        for (size_t i = 0; i < t->nnodes; i++) {
            const char *o = G->vg[0]->overflow[i];
            if (!o) continue;
            G->ovf[i] = !strcmp(o, "critical") ? OVF_CRITICAL : !strcmp(o, "high") ? OVF_HIGH : !strcmp(o, "medium") ? OVF_MEDIUM : 0;
        }
        return;
    }
    if (!a->ds || !a->ds->ovf_levels) return;
    for (size_t i = 0; i < a->ds->ovf.n; i++) {
        const struct ovf_entry *e = &a->ds->ovf.v[i];
        if (e->step != G->step || e->rank != G->rank) continue;
        int n = tree_find(t, e->name);
        if (n >= 0 && e->level > G->ovf[n]) G->ovf[n] = e->level;
    }
}

void graphs_data_ready(struct session *a) {
    if (a->graphs && a->graphs->cur) mark_overflow(a, a->graphs->cur);
}

static void finish_graph(struct session *a, struct graphs_loaded *G) {
    struct graphs *c = a->graphs;
    mark_overflow(a, G);
    if (!G->g) return;
    c->mc_report[0] = '\0';
    if (c->mc_path) {
        struct cmp_files_report rep;
        struct pt_error e;
        if (cmp_files_match_apply(G->g, c->mc_path, &rep, &e) != 0)
            snprintf(c->mc_report, sizeof c->mc_report, "--match-config: %s", e.msg);
        else if (rep.failed)
            snprintf(c->mc_report, sizeof c->mc_report, "--match-config: %zu pairs applied, %zu failed (%s)", rep.ok,
                     rep.failed, rep.first_bad);
        else
            snprintf(c->mc_report, sizeof c->mc_report, "--match-config: %zu pairs applied", rep.ok);
    }
    for (size_t i = 0; i < c->nmanual; i++) {
        const struct graphs_manual *m = &c->manual[i];
        if (m->step != G->step || m->rank != G->rank) continue;
        int x = tree_find(G->t[0], m->a), y = tree_find(G->t[1], m->b);
        struct pt_error e;
        if (x >= 0 && y >= 0 && G->g->nodes[x].bench < 0 && G->g->bmatch[y] < 0) cmp_manual_match(G->g, x, y, 0, &e);
    }
}

static void swap_in(struct session *a, struct graphs_loaded *G) {
    struct graphs *c = a->graphs;
    finish_graph(a, G);
    summary_refresh(c, G);
    graph_free(c->cur);
    c->cur = G;
    c->gen++;
    c->error[0] = '\0';
    if (c->mc_report[0]) session_msg(a, "%s", c->mc_report);
    else if (G->note[0]) session_err(a, "%s", G->note);
}

/* ---- the whole-run summary ---- */

/* The shown graph's verdicts are the pair's newest (manual matches, a
 * match config applied again): its summary entry follows them. */
static void summary_refresh(struct graphs *c, const struct graphs_loaded *G) {
    if (!c->summary || !G->g || !c->sum) return;
    long i = -1;
    for (size_t k = 0; k < c->npairs; k++)
        if (c->pairs[k].step == G->step && c->pairs[k].rank == G->rank) i = (long)k;
    if (i < 0 || !atomic_load(&c->sready[i])) return;   /* the scan still owns it */
    if (compare_run_pair_from_graph(&c->sum[i], G->g) != 0) compare_run_pair_fail(&c->sum[i], "out of memory");
}

static void scan_done(void *ctx, size_t i) {
    struct graphs *c = ctx;
    atomic_store(&c->sready[i], 1);
    atomic_fetch_add(&c->sdone, 1);
}

static void *scan_run(void *arg) {
    struct graphs *c = arg;
    /* two workers: a pair is mostly reading, and the machine may have two cores */
    struct cmp_scan_opts o = {.fuzzy = c->fuzzy, .lmap = c->have_lmap ? c->lmap : NULL, .match_config = c->mc_path,
                           .threads = 2, .cancel = &c->scancel, .done = scan_done, .ctx = c};
    cmp_scan_run(c->spairs, c->npairs, c->sum, &o);
    /* the same first divergence `compare --first` prints: across the ranks
     * of its step, the one where it was born (with --layer-mapping, ranks
     * go by number there too) */
    c->sorigin_err[0] = '\0';
    compare_run_first_free(&c->sfirst);
    if (atomic_load(&c->scancel)) c->shead = -1;
    else {
        struct pt_error e;
        c->shead = cmp_origin_first(c->spairs, c->npairs, c->sum, c->fuzzy, c->have_lmap, NULL, &c->swhich,
                                    &c->sfirst, &e);
        if (e.msg[0]) snprintf(c->sorigin_err, sizeof c->sorigin_err, "origin across ranks: %s", e.msg);
    }
    if (c->shead >= 0 && !c->sfirst.have) c->shead = -1;
    atomic_store(&c->send, 1);
    return NULL;
}

static int scan_start(struct graphs *c, struct pt_error *err) {
    c->spairs = calloc(c->npairs, sizeof *c->spairs);
    c->sum = calloc(c->npairs, sizeof *c->sum);
    c->sready = calloc(c->npairs, sizeof *c->sready);
    if (!c->spairs || !c->sum || !c->sready) return pt_errorf(err, "out of memory");
    for (size_t i = 0; i < c->npairs; i++) {
        c->spairs[i] = (struct cmp_scan_pair){c->pairs[i].step, c->pairs[i].rank, {c->pairs[i].dir[0], c->pairs[i].dir[1]}};
        c->sum[i].step = c->pairs[i].step;
        c->sum[i].rank = c->pairs[i].rank;
        atomic_init(&c->sready[i], 0);
    }
    atomic_init(&c->sdone, 0);
    atomic_store(&c->scancel, 0);
    atomic_store(&c->send, 0);
    if (pthread_create(&c->sth, NULL, scan_run, c) != 0) return pt_errorf(err, "cannot start the compare thread");
    c->srunning = 1;
    return 0;
}

/* The scan's progress: 1 when something new is there to draw.  When it
 * ends, the tree of the run's first divergence starts loading, that node
 * to be selected, so the tree is ready when the user asks for it. */
static int scan_poll(struct session *a) {
    struct graphs *c = a->graphs;
    if (!c->summary) return 0;
    size_t d = atomic_load(&c->sdone);
    int changed = d != c->sseen;
    c->sseen = d;
    if (!c->srunning || !atomic_load(&c->send)) return changed;
    pthread_join(c->sth, NULL);
    c->srunning = 0;
    c->sfinished = 1;
    if (c->sorigin_err[0]) session_err(a, "%s", c->sorigin_err);
    if (!c->cur && !c->running) {
        long k;
        int which;
        struct pt_error e;
        if (graphs_run_first(a, &k, &which) == 1) {
            free(c->select_after);
            c->select_after = strdup(graphs_run_first_node(a)->name);
        } else k = 0;
        if (graphs_load(a, c->pairs[k].step, c->pairs[k].rank, &e) != 0) session_err(a, "%s", e.msg);
    }
    session_changed(a, SESSION_CH_GRAPH);
    return 1;
}

int graphs_start(struct session *a, struct pt_error *err) {
    struct graphs *c = a->graphs;
    if (!c) return 0;
    if (c->summary) return scan_start(c, err);
    return graphs_load(a, c->pairs[0].step, c->pairs[0].rank, err);
}

const struct compare_run_pair *graphs_summary(const struct session *a, size_t i) {
    const struct graphs *c = a->graphs;
    if (!c || !c->summary || !c->sum || i >= c->npairs || !atomic_load(&c->sready[i])) return NULL;
    return &c->sum[i];
}

int graphs_run_first(const struct session *a, long *pair, int *which) {
    const struct graphs *c = a->graphs;
    *pair = -1;
    *which = -1;
    if (!c || !c->summary || !c->sfinished) return -1;
    *pair = c->shead;
    *which = c->shead >= 0 ? c->swhich : -1;
    return *pair >= 0;
}

const struct compare_run_first *graphs_run_first_node(const struct session *a) {
    long k;
    int which;
    return graphs_run_first(a, &k, &which) == 1 ? &a->graphs->sfirst : NULL;
}

/* ---- opening ---- */

static int add_pair(struct graphs *c, int32_t step, int32_t rank, const char *d0, const char *d1) {
    struct graphs_pair *np = realloc(c->pairs, (c->npairs + 1) * sizeof *np);
    if (!np) return -1;
    c->pairs = np;
    struct graphs_pair *p = &c->pairs[c->npairs];
    p->step = step;
    p->rank = rank;
    p->dir[0] = d0 ? strdup(d0) : NULL;
    p->dir[1] = d1 ? strdup(d1) : NULL;
    if ((d0 && !p->dir[0]) || (d1 && !p->dir[1])) {
        free(p->dir[0]);
        free(p->dir[1]);
        return -1;
    }
    c->npairs++;
    return 0;
}

static int axes(struct graphs *c, struct pt_error *err) {
    c->steps = malloc((c->npairs ? c->npairs : 1) * sizeof *c->steps);
    c->ranks = malloc((c->npairs ? c->npairs : 1) * sizeof *c->ranks);
    if (!c->steps || !c->ranks) return pt_errorf(err, "out of memory");
    for (size_t i = 0; i < c->npairs; i++) {
        c->steps[i] = c->pairs[i].step;
        c->ranks[i] = c->pairs[i].rank;
    }
    c->nsteps = uniq(c->steps, c->npairs);
    c->nranks = uniq(c->ranks, c->npairs);
    return 0;
}

/* A rank folder with a non-empty construct.json (more than "{}"). */
static int has_structure(const char *dir) {
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/construct.json", dir);
    if (stat(p, &st) != 0) {
        /* a dump.json file given directly */
        const char *slash = strrchr(dir, '/');
        if (!util_ends_with(dir, ".json") || !slash) return 0;
        snprintf(p, sizeof p, "%.*s/construct.json", (int)(slash - dir), dir);
        if (stat(p, &st) != 0) return 0;
    }
    return S_ISREG(st.st_mode) && st.st_size > 2;
}

int graphs_open(struct session *a, struct pt_error *err) {
    struct graphs *c = calloc(1, sizeof *c);
    if (!c) return pt_errorf(err, "out of memory");
    if (!(c->lmap = calloc(1, sizeof *c->lmap))) {
        free(c);
        return pt_errorf(err, "out of memory");
    }
    c->fuzzy = a->fuzzy;
    c->bench_rc = -1;
    a->graphs = c;
    if (a->layer_mapping) {
        if (!(c->lmap_path = strdup(a->layer_mapping))) goto oom;
        if (cmp_files_lmap_load(c->lmap, a->layer_mapping, err) != 0) goto fail;
        c->have_lmap = 1;
    }
    if (a->match_config) {
        /* read now with the readers' checks (a FIFO or /dev/zero is
         * refused here, not waited on when the graph is built) */
        char *mcb;
        size_t mcl;
        struct pt_error e;
        if (json_read_file(a->match_config, JSON_SIDE_MAX, &mcb, &mcl, &e) != 0) {
            pt_errorf(err, "--match-config %s", e.msg);
            goto fail;
        }
        free(mcb);
        if (!(c->mc_path = strdup(a->match_config))) goto oom;
    }
    if (a->mode == SESSION_MODE_VISDB) {
        c->visdb = 1;
        if (visdb_open(a->paths[0], &c->vdb, err) != 0) goto fail;
        c->build = !c->vdb->compare;
        for (size_t s = 0; s < c->vdb->nsteps; s++)
            for (size_t r = 0; r < c->vdb->nranks; r++)
                if (add_pair(c, c->vdb->steps[s], c->vdb->ranks[r], NULL, NULL) != 0) goto oom;
    } else if (a->mode == SESSION_MODE_COMPARE) {
        struct graph_dirs d[2];
        memset(d, 0, sizeof d);
        if (graph_scan(a->paths[0], &d[0], err) != 0) goto fail;
        if (graph_scan(a->paths[1], &d[1], err) != 0) {
            graph_dirs_free(&d[0]);
            goto fail;
        }
        int bad = 0;
        unsigned char *used = calloc(d[1].n + 1, 1);
        for (size_t i = 0; i < d[0].n && !bad && used; i++) {
            long j = graph_pair(&d[0], &d[1], i);
            if (j < 0) c->nalone++;
            else used[j] = 1;
            if (j >= 0 && add_pair(c, d[0].v[i].step, d[0].v[i].rank, d[0].v[i].dir, d[1].v[j].dir) != 0) bad = 1;
        }
        for (size_t j = 0; used && j < d[1].n; j++) c->nalone += !used[j];
        if (!used) bad = 1;
        free(used);
        graph_dirs_free(&d[0]);
        graph_dirs_free(&d[1]);
        if (bad) goto oom;
        if (!c->npairs) {
            pt_errorf(err, "%s and %s share no (step, rank): nothing to compare", a->paths[0], a->paths[1]);
            goto fail;
        }
        c->summary = c->npairs > 1;
    } else {
        /* trend mode: a dump with structure also gets the tree (build mode) */
        c->build = 1;
        struct graph_dirs d;
        struct pt_error ignored;
        /* only a format whose row says its folders may hold construct.json */
        const struct formats_row *f = a->demo || !a->paths[0] ? NULL
                                      : a->lopts.format ? a->lopts.format : formats_detect(a->paths[0]);
        if (!f || !f->tree || graph_scan(a->paths[0], &d, &ignored) != 0) {
            graphs_free(a);
            return 0;
        }
        for (size_t i = 0; i < d.n; i++)
            if (has_structure(d.v[i].dir) && add_pair(c, d.v[i].step, d.v[i].rank, d.v[i].dir, NULL) != 0) {
                graph_dirs_free(&d);
                goto oom;
            }
        graph_dirs_free(&d);
        if (!c->npairs) {
            graphs_free(a);
            return 0;
        }
    }
    if (axes(c, err) != 0) goto fail;
    return 0;
oom:
    pt_errorf(err, "out of memory");
fail:
    graphs_free(a);
    return -1;
}

static void join_loader(struct graphs *c) {
    if (!c->running) return;
    pthread_join(c->th, NULL);
    c->running = 0;
    graph_free(c->next);
    c->next = NULL;
}

void graphs_free(struct session *a) {
    struct graphs *c = a->graphs;
    if (!c) return;
    join_loader(c);
    if (c->srunning) {
        atomic_store(&c->scancel, 1);
        pthread_join(c->sth, NULL);
        c->srunning = 0;
    }
    for (size_t i = 0; c->sum && i < c->npairs; i++) compare_run_pair_clear(&c->sum[i]);
    compare_run_first_free(&c->sfirst);
    free(c->sum);
    free(c->spairs);
    free((void *)c->sready);
    if (c->trunning) {
        atomic_store(&c->tcancel, 1);
        pthread_join(c->tth, NULL);
        c->trunning = 0;
    }
    if (c->pds) dataset_free(c->pds);
    graph_free(c->cur);
    for (size_t i = 0; i < c->npairs; i++) {
        free(c->pairs[i].dir[0]);
        free(c->pairs[i].dir[1]);
    }
    free(c->pairs);
    free(c->steps);
    free(c->ranks);
    visdb_close(c->vdb);
    cmp_files_lmap_free(c->lmap);
    free(c->lmap);
    free(c->lmap_path);
    free(c->mc_path);
    free(c->select_after);
    for (size_t i = 0; i < c->nmanual; i++) {
        free(c->manual[i].a);
        free(c->manual[i].b);
    }
    free(c->manual);
    if (a->cube == c->diff || (c->bench_ds && a->cube == c->bench_ds->cube)) a->cube = a->ds ? a->ds->cube : NULL;
    cube_free(c->diff);
    if (c->bench_ds) dataset_free(c->bench_ds);
    free(c);
    a->graphs = NULL;
}

/* ---- loading ---- */

int graphs_load(struct session *a, int32_t step, int32_t rank, struct pt_error *err) {
    struct graphs *c = a->graphs;
    if (!c) return pt_errorf(err, "no graph for this input");
    if (!pair_of(c, step, rank)) return pt_errorf(err, "no graph for step %d rank %d", (int)step, (int)rank);
    join_loader(c);   /* a newer choice replaces a load under way */
    c->want_step = step;
    c->want_rank = rank;
    c->next = NULL;
    atomic_store(&c->done, 0);
    if (pthread_create(&c->th, NULL, loader_run, c) != 0) return graphs_load_now(a, step, rank, err);
    c->running = 1;
    return 0;
}

int graphs_load_now(struct session *a, int32_t step, int32_t rank, struct pt_error *err) {
    struct graphs *c = a->graphs;
    if (!c) return pt_errorf(err, "no graph for this input");
    join_loader(c);
    struct graphs_loaded *G = load_graph(c, step, rank, err);
    if (!G) return -1;
    swap_in(a, G);
    session_changed(a, SESSION_CH_GRAPH);   /* the trend data did not change: the other panes keep their state */
    return 0;
}

int graphs_loading(const struct session *a) { return a->graphs && (a->graphs->running || a->graphs->trunning || a->graphs->srunning); }

int graphs_poll(struct session *a) {
    struct graphs *c = a->graphs;
    if (!c) return 0;
    int r = trend_poll(a);
    r |= scan_poll(a);
    if (!c->running || !atomic_load(&c->done)) return r;
    pthread_join(c->th, NULL);
    c->running = 0;
    if (c->rc != 0) {
        snprintf(c->error, sizeof c->error, "%s", c->err.msg);
        session_err(a, "%s", c->err.msg);
        return 1;
    }
    struct graphs_loaded *G = c->next;
    c->next = NULL;
    swap_in(a, G);
    session_changed(a, SESSION_CH_GRAPH);
    trend_start(a);
    return 1;
}

/* ---- the trend data of both runs (compare mode) ---- */

static void *trend_run(void *arg) {
    struct graphs *c = arg;
    struct load_opts o = c->lopts;
    o.cancel = &c->tcancel;
    c->prc = load_dataset(c->tpath[0], &o, &c->pds, &c->perr);
    if (c->prc == 0 && !atomic_load(&c->tcancel)) c->bench_rc = load_dataset(c->tpath[1], &o, &c->bench_ds, &c->bench_err);
    atomic_store(&c->tdone, 1);
    return NULL;
}

/* Starts reading the two runs' trend data (after the first tree is up, so
 * the tree does not wait for it). */
static void trend_start(struct session *a) {
    struct graphs *c = a->graphs;
    if (c->visdb || c->build || c->tstarted || a->mode != SESSION_MODE_COMPARE) return;
    c->tstarted = 1;
    c->lopts = a->lopts;
    c->lopts.progress = NULL;
    c->tpath[0] = a->paths[0];
    c->tpath[1] = a->paths[1];
    atomic_store(&c->tdone, 0);
    if (pthread_create(&c->tth, NULL, trend_run, c) == 0) c->trunning = 1;
}

static int trend_poll(struct session *a) {
    struct graphs *c = a->graphs;
    if (!c->trunning || !atomic_load(&c->tdone)) return 0;
    pthread_join(c->tth, NULL);
    c->trunning = 0;
    if (c->prc != 0) {
        session_err(a, "trend data of the problem run: %s", c->perr.msg);
        return 1;
    }
    if (!a->ds) {
        a->ds = c->pds;
        c->pds = NULL;
        session_data_ready(a);
        if (c->cur) mark_overflow(a, c->cur);
        session_changed(a, SESSION_CH_DATA);
    }
    return 1;
}

/* ---- node queries ---- */

int graphs_is_compare(const struct graphs_loaded *G) { return G && (G->g || G->vlink); }

int graphs_mark(const struct graphs_loaded *G, int n) {
    if (G->g) {
        int lv = cmp_node_level(G->g, n);
        return lv == -1 ? AM_UNMATCHED : lv == -2 ? AM_NODATA : lv == CL_PASS ? AM_PASS : lv == CL_WARNING ? AM_WARN : AM_ERROR;
    }
    if (G->vlink) {
        if (G->vlink[n] < 0 && !G->vg[0]->link[n]) return AM_UNMATCHED;
        double x = G->vg[0]->index[n];
        if (isnan(x)) return AM_NODATA;
        return x >= 0.6 ? AM_ERROR : x >= 0.3 ? AM_WARN : AM_PASS;
    }
    return AM_NONE;
}

double graphs_magnitude(const struct graphs_loaded *G, int n) {
    if (G->g) return G->g->nodes[n].magnitude;
    if (G->vlink && !isnan(G->vg[0]->index[n])) return G->vg[0]->index[n];
    return -1;
}

int graphs_counterpart(const struct graphs_loaded *G, int n) {
    if (G->g) return G->g->nodes[n].bench;
    if (G->vlink) return G->vlink[n];
    return -1;
}

/* .vis.db graphs: the same order as model/compare/compare.h, msProbe's node_order
 * (post order), over the stored verdicts. */
static int vis_divergent(const struct graphs_loaded *G, int n) {
    int m = graphs_mark(G, n);
    return (m == AM_WARN || m == AM_ERROR) && G->t[0]->nodes[n].kind != TK_APIS;
}

int graphs_first_divergence(const struct graphs_loaded *G) {
    if (G->g) return cmp_first_divergence(G->g);
    if (!G->vlink) return -1;
    const struct tree *t = G->t[0];
    for (int want = AM_ERROR; want >= AM_WARN; want--)
        for (size_t k = 0; k < t->norder; k++)
            if (vis_divergent(G, t->order[k]) && graphs_mark(G, t->order[k]) == want) return t->order[k];
    return -1;
}

int graphs_nondeterministic(const struct graphs_loaded *G, int n) {
    return G->g && n >= 0 ? cmp_node_nondeterministic(G->g, n) : 0;
}

int graphs_next_divergent(const struct graphs_loaded *G, int n, int dir) {
    if (G->g) return cmp_next_divergent(G->g, n, dir);
    if (!G->vlink) return -1;
    const struct tree *t = G->t[0];
    long k = n >= 0 && t->nodes[n].order >= 0 ? t->nodes[n].order : (dir > 0 ? -1 : (long)t->norder);
    for (k += dir; k >= 0 && (size_t)k < t->norder; k += dir)
        if (vis_divergent(G, t->order[k])) return t->order[k];
    return -1;
}

/* ---- manual matching ---- */

int graphs_manual_match(struct session *a, int na, int nb, struct pt_error *err) {
    struct graphs *c = a->graphs;
    struct graphs_loaded *G = c ? c->cur : NULL;
    if (!G || !G->g) return pt_errorf(err, c && c->visdb ? "a .vis.db is shown read-only: no manual matching"
                                                           : "manual matching needs two compared runs");
    const struct tree *t0 = G->t[0], *t1 = G->t[1];
    if (na < 0 || (size_t)na >= t0->nnodes || nb < 0 || (size_t)nb >= t1->nnodes) return pt_errorf(err, "no such node");
    if (G->g->nodes[na].bench >= 0) return pt_errorf(err, "%s is matched already", tree_id(t0, na));
    if (G->g->bmatch[nb] >= 0) return pt_errorf(err, "benchmark %s is matched already", tree_id(t1, nb));
    if (t0->nodes[na].kind != t1->nodes[nb].kind)
        return pt_errorf(err, "the two nodes differ in kind (%s vs %s): msProbe matches only the same kind",
                         tree_kind_name(t0->nodes[na].kind), tree_kind_name(t1->nodes[nb].kind));
    if (cmp_manual_match(G->g, na, nb, 1, err) != 0) return -1;
    summary_refresh(c, G);
    /* remember every pair now manual (the twins too) for reloads */
    for (size_t i = 0; i < t0->nnodes; i++) {
        if (!G->g->nodes[i].manual || G->g->nodes[i].bench < 0) continue;
        const char *x = tree_id(t0, (int)i), *y = tree_id(t1, G->g->nodes[i].bench);
        int known = 0;
        for (size_t k = 0; k < c->nmanual && !known; k++)
            known = c->manual[k].step == G->step && c->manual[k].rank == G->rank && !strcmp(c->manual[k].a, x);
        if (known) continue;
        struct graphs_manual *nm = realloc(c->manual, (c->nmanual + 1) * sizeof *nm);
        if (!nm) return pt_errorf(err, "out of memory");
        c->manual = nm;
        nm[c->nmanual] = (struct graphs_manual){G->step, G->rank, strdup(x), strdup(y)};
        if (!nm[c->nmanual].a || !nm[c->nmanual].b) {
            free(nm[c->nmanual].a);
            free(nm[c->nmanual].b);
            return pt_errorf(err, "out of memory");
        }
        c->nmanual++;
    }
    return 0;
}

long graphs_save_match(struct session *a, const char *path, struct pt_error *err) {
    struct graphs *c = a->graphs;
    if (!c || !c->cur || !c->cur->g) return pt_errorf(err, "no compared graph to save matches from");
    return cmp_files_match_save(c->cur->g, path, err);
}

/* ---- communication peers ---- */

static int peers_build(struct session *a, struct graphs_loaded *G, struct pt_error *err) {
    struct graphs *c = a->graphs;
    const struct tree *t0 = G->t[0];
    G->peer0 = calloc(t0->nnodes ? t0->nnodes : 1, sizeof *G->peer0);
    G->npeer = calloc(t0->nnodes ? t0->nnodes : 1, sizeof *G->npeer);
    if (!G->peer0 || !G->npeer) return pt_errorf(err, "out of memory");
    G->peers_done = 1;
    if (c->visdb || !t0->nrecs) return 0;   /* stored graphs keep no records */
    /* the other ranks of this step: their records are enough */
    const struct tree **trees = calloc(c->npairs + 1, sizeof *trees);
    struct tree **owned = calloc(c->npairs + 1, sizeof *owned);
    int rc = 0, me = 0;
    size_t nt = 0;
    if (!trees || !owned) { rc = pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < c->npairs; i++) {
        const struct graphs_pair *p = &c->pairs[i];
        if (p->step != G->step) continue;
        if (p->rank == G->rank) {
            me = (int)nt;
            trees[nt++] = t0;
            continue;
        }
        struct tree *t = NULL;
        struct pt_error e;
        if (graph_read(p->dir[0], GRAPH_NO_STACK, &t, &e) != 0) continue;   /* an unreadable rank has no peers */
        t->step = p->step;
        t->rank = p->rank;
        owned[nt] = t;
        trees[nt++] = t;
    }
    struct comm_links L;
    if (comm_links_build(trees, nt, &L, err) != 0) { rc = -1; goto out; }
    /* group by node: count, then fill */
    size_t total = 0;
    for (size_t i = 0; i < L.n; i++)
        if (L.v[i].from_tree == me && t0->recs[L.v[i].from_rec].node >= 0) total++;
    G->peers = calloc(total ? total : 1, sizeof *G->peers);
    if (!G->peers) { comm_links_free(&L); rc = pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < L.n; i++) {
        const struct comm_link *l = &L.v[i];
        int n = l->from_tree == me ? t0->recs[l->from_rec].node : -1;
        if (n >= 0) G->npeer[n]++;
    }
    uint32_t acc = 0;
    for (size_t n = 0; n < t0->nnodes; n++) {
        G->peer0[n] = acc;
        acc += G->npeer[n];
        G->npeer[n] = 0;
    }
    for (size_t i = 0; i < L.n; i++) {
        const struct comm_link *l = &L.v[i];
        int n = l->from_tree == me ? t0->recs[l->from_rec].node : -1;
        if (n < 0) continue;
        struct graphs_peer *p = &G->peers[G->peer0[n] + G->npeer[n]++];
        const struct tree *pt = trees[l->to_tree];
        p->rank = pt->rank;
        p->type = l->type;
        p->node = strdup(tree_s(pt, pt->recs[l->to_rec].name));
        G->npeers++;
    }
    comm_links_free(&L);
out:
    for (size_t i = 0; owned && i < nt; i++) tree_free(owned[i]);
    free(owned);
    free(trees);
    return rc;
}

int graphs_peers(struct session *a, int n, const struct graphs_peer **peers, size_t *count, struct pt_error *err) {
    struct graphs *c = a->graphs;
    struct graphs_loaded *G = c ? c->cur : NULL;
    *peers = NULL;
    *count = 0;
    if (!G || !G->t[0] || n < 0 || (size_t)n >= G->t[0]->nnodes) return 0;
    if (strncmp(tree_id(G->t[0], n), "Distributed.", 12) != 0) return 0;
    if (!G->peers_done && peers_build(a, G, err) != 0) return -1;
    if (!G->peer0) return 0;
    *peers = G->peers + G->peer0[n];
    *count = G->npeer[n];
    return 0;
}

/* ---- the run choice of the trend screen ---- */

const char *graphs_run_name(int run) {
    return run == RUN_BENCH ? "benchmark" : run == RUN_DIFF ? "|p-b|/|b|" : "problem";
}

int graphs_set_run(struct session *a, int run, struct pt_error *err) {
    struct graphs *c = a->graphs;
    if (!c || c->visdb || c->build) return pt_errorf(err, "the run choice needs two runs (probetop PROBLEM BENCH)");
    if (!a->ds) return pt_errorf(err, "the problem run's trend data is not loaded (yet)");
    const struct cube *base = a->ds->cube;
    if (a->cube && a->cube != base && a->cube != c->diff && (!c->bench_ds || a->cube != c->bench_ds->cube))
        return pt_errorf(err, "another view of the data is shown (:layers local first)");
    const struct cube *to = base;
    if (run != RUN_PROBLEM) {
        if (!c->bench_ds)
            return pt_errorf(err, "the benchmark's trend data did not load: %s", c->bench_rc < 0 && c->bench_err.msg[0] ? c->bench_err.msg : "still loading");
        if (run == RUN_BENCH) to = c->bench_ds->cube;
        else {
            if (!c->diff && (cube_materialize(a->ds->cube, err) != 0 || cube_materialize(c->bench_ds->cube, err) != 0 ||
                             rundiff_cube(base, c->bench_ds->cube, a->ds->labels, &c->diff, err) != 0))
                return -1;
            to = c->diff;
        }
    }
    /* keep the selected target by name when the new cube has it */
    uint32_t sel = NAMES_NONE;
    if (a->cube && a->sel_target != NAMES_NONE && a->sel_target < names_count(a->cube->names)) {
        const struct target *t = names_target(a->cube->names, a->sel_target);
        sel = names_find(to->names, names_str(a->cube->names, a->sel_target), t->len, t->vpp, t->call);
    }
    c->run = run;
    a->cube = to;
    if (a->label_mask) session_set_label_filter(a, NULL, NULL);
    char *re = a->regex ? strdup(a->regex) : NULL;
    struct pt_error e2;
    if (session_set_regex(a, re, &e2) != 0) session_set_regex(a, NULL, &e2);
    free(re);
    if (to->nmetrics) {
        int m = a->metric < to->nmetrics ? a->metric : 0;
        session_set_metric(a, m, m == a->metric && a->stat < to->metrics[m].nstats ? a->stat : -1);
    }
    session_select(a, -1, -1, sel);
    session_changed(a, SESSION_CH_DATA);
    return 0;
}
