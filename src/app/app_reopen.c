/* app_reopen: the curves pane's step to dump, opened (session_host.open_dump,
 * issue 22).  The training curves point to a step and a pass to dump; with
 * the run's dump root attached (--dump DIR, `probetop LOG DUMPDIR`) Enter
 * in the curves pane asks the shell to make that root the input: it is
 * loaded first (a root that does not load leaves the curves as they are),
 * then what the curves input held goes (follow mode, a load under way, the
 * origin search, the panes, the datasets, the graphs), the panes start on
 * the dump as at start-up, and the heat map lands on the step (its first
 * micro step), on the metric of the pass (a dump's metrics are its
 * passes).  A dump root with construct.json gets its tree (build mode),
 * on the graph of that step (F6 shows its nodes). */
#include <stdlib.h>
#include <string.h>

#include "src/app/app_state.h"

/* The first step of the cube from step folder `step`, -1 none. */
static int step_index(const struct cube *c, int64_t step) {
    for (int i = 0; c && i < c->nsteps; i++)
        if (c->steps[i].origin == step) return i;
    return -1;
}

/* The tree (F6) started on the graph of step folder `step` (its first
 * rank), as graphs_start() on the first pair when the dump has no such
 * step. */
static int tree_start(struct session *s, int64_t step, struct pt_error *err) {
    const struct graphs *g = s->graphs;
    for (size_t i = 0; !g->summary && i < g->npairs; i++)
        if (g->pairs[i].step == step) return graphs_load(s, g->pairs[i].step, g->pairs[i].rank, err);
    return graphs_start(s, err);
}

int app_open_dump(struct session *s, const char *root, int64_t step, const char *pass, struct pt_error *err) {
    struct app *a = app_of(s);
    char *path = strdup(root);
    if (!path) return pt_errorf(err, "out of memory");
    struct load_opts o = s->lopts;
    o.format = NULL;
    o.follow = 0;
    o.mon_cache = NULL;
    o.dump_cache = NULL;
    o.curves_cache = NULL;
    o.progress = NULL;
    o.cancel = NULL;
    struct dataset *d = NULL;
    if (load_dataset(path, &o, &d, err) != 0) { free(path); return -1; }
    if (!d->cube || d->curves) {
        dataset_free(d);
        free(path);
        return pt_errorf(err, "%s holds no dump", root);
    }
    /* what the curves input held goes */
    follow_off(s);
    if (s->load.running) {
        struct pt_error e;
        atomic_store(&s->load.cancel, 1);
        if (loader_finish(s, &e) == 0) { /* its dataset is a->ds now: freed below */ }
    }
    origin_search_stop(s);
    for (int i = 0; i < a->nviews; i++) {
        struct view *v = &a->views[i];
        if (v->live && v->ops->free) v->ops->free(v);
        v->live = 0;
    }
    dataset_free(s->ds);
    dataset_free(s->bench_ds);
    s->bench_ds = NULL;
    graphs_free(s);
    free(s->paths[0]);
    s->paths[0] = path;
    s->npaths = 1;
    s->mode = SESSION_MODE_TREND;
    s->curves_dump = NULL;   /* (paths[1] keeps its text until the end) */
    s->follow_arg = 0;
    s->lopts.follow = 0;
    s->ds = d;
    /* the panes on the dump, as at start-up */
    struct pt_error e;
    if (graphs_open(s, &e) == 0 && s->graphs && tree_start(s, step, &e) != 0) session_err(s, "tree: %s", e.msg);
    app_data_ready(a);
    if (app_init_panes(a) < 0) session_err(s, "nothing to show for this input");
    app_show(a, "heatmap");
    int k = step_index(s->cube, step);
    if (k < 0) {
        session_err(s, "%s opened: it has no step %lld", root, (long long)step);
    } else {
        /* a dump's metrics are its passes (forward, backward, ...) */
        int m = -1;
        for (int i = 0; pass && i < s->cube->nmetrics && m < 0; i++)
            if (!strcmp(s->cube->metrics[i].name, pass)) m = i;
        if (m >= 0) session_set_metric(s, m, -1);
        session_select(s, k, -1, NAMES_NONE);
        if (pass && m < 0) session_msg(s, "step %lld of %s (it has no %s pass)", (long long)step, root, pass);
        else session_msg(s, "step %lld of %s, the %s pass", (long long)step, root, pass ? pass : "whole");
    }
    session_changed(s, SESSION_CH_ALL);
    return 0;
}
