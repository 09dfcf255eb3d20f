/* swap: installs a newer dataset of the input on screen (a partial
 * result of the progressive load, a reload in follow mode or by ^R) and
 * keeps the user's place by value, not by index: the metric and statistic
 * by name, the selected step and rank by number, the target by name, the
 * dimension, the value range, the filters (the regex is matched again on
 * the new names, the label filter is carried by name until the search
 * pane reapplies its labels).  Axes may grow on every side of the cursor.
 *
 * Every pane hears SESSION_CH_DATA while a->swap_from still points at the old
 * cube, so it can translate what it holds (the line chart's lines) with
 * swap_*(); then the old dataset is freed: no pane may keep a pointer
 * into it past its notify. */
#include <stdlib.h>
#include <string.h>

#include "src/io/load.h"
#include "src/session/graphs.h"
#include "src/session/origin_search.h"
#include "src/session/session.h"
#include "src/session/swap.h"
#include "src/session/trendpair.h"

int swap_metric(const struct session *a, int metric) {
    const struct cube *o = a->swap_from;
    if (!o || !a->cube || metric < 0 || metric >= o->nmetrics) return -1;
    return cube_metric_find(a->cube, o->metrics[metric].name);
}

int swap_stat(const struct session *a, int old_metric, int stat) {
    const struct cube *o = a->swap_from;
    int m = swap_metric(a, old_metric);
    if (m < 0 || stat < 0 || stat >= o->metrics[old_metric].nstats) return -1;
    return cube_stat_find(a->cube, m, o->metrics[old_metric].stats[stat]);
}

int swap_step(const struct session *a, int step) {
    const struct cube *o = a->swap_from;
    if (!o || !a->cube || step < 0 || step >= o->nsteps) return -1;
    return cube_step_find(a->cube, o->steps[step].value);
}

int swap_rank(const struct session *a, int rank) {
    const struct cube *o = a->swap_from;
    if (!o || !a->cube || rank < 0 || rank >= o->nranks) return -1;
    return cube_rank_find(a->cube, o->ranks[rank]);
}

uint32_t swap_target(const struct session *a, uint32_t target) {
    const struct cube *o = a->swap_from;
    if (!o || !a->cube || target >= names_count(o->names)) return NAMES_NONE;
    const struct target *t = names_target(o->names, target);
    return names_find(a->cube->names, names_str(o->names, target), t->len, t->vpp, t->call);
}

/* The index of the first value of v[0..n) at or after x (n when none):
 * a step or rank that vanished (it never does while data only grows)
 * leaves the cursor on its successor. */
static int nearest_step(const struct cube *c, int32_t x) {
    int i = 0;
    while (i < c->nsteps && c->steps[i].value < x) i++;
    return i < c->nsteps ? i : c->nsteps - 1;
}
static int nearest_rank(const struct cube *c, int32_t x) {
    int i = 0;
    while (i < c->nranks && c->ranks[i] < x) i++;
    return i < c->nranks ? i : c->nranks - 1;
}

/* The label mask over the new names: a target keeps the old verdict of
 * its namesake; new targets wait for the search pane's labels. */
static uint8_t *carry_mask(const struct session *a, const uint8_t *old) {
    uint32_t n = names_count(a->cube->names);
    uint8_t *m = calloc(n ? n : 1, 1);
    if (!m) return NULL;
    const struct names *on = a->swap_from->names, *nn = a->cube->names;
    for (uint32_t t = 0; t < names_count(on); t++) {
        if (!old[t]) continue;
        const struct target *x = names_target(on, t);
        uint32_t k = names_find(nn, names_str(on, t), x->len, x->vpp, x->call);
        if (k != NAMES_NONE) m[k] = 1;
    }
    return m;
}

/* The regex matched again on the new names; NULL when out of memory or the
 * pattern stops on a name (the filter is then dropped, with a message). */
static uint8_t *redo_regex(struct session *a) {
    uint32_t n = names_count(a->cube->names);
    uint8_t *m = calloc(n ? n : 1, 1);
    if (!m) return NULL;
    for (uint32_t t = 0; t < n; t++) {
        int r = search_match_target(&a->re, a->cube->names, t);
        if (r < 0) { free(m); return NULL; }
        m[t] = (uint8_t)r;
    }
    return m;
}

int swap_dataset(struct session *a, struct dataset *nd, struct pt_error *err) {
    if (!nd || !nd->cube) { dataset_free(nd); return pt_errorf(err, "no data to show"); }
    struct dataset *old = a->ds;
    const struct cube *oc = a->cube;
    if (!old || !oc || oc->nmetrics == 0) {   /* nothing shown yet: the defaults */
        origin_search_stop(a);
        a->ds = nd;
        session_data_ready(a);
        session_changed(a, SESSION_CH_ALL);
        dataset_free(old);
        if (!a->load.running || a->load.reload) origin_search_start(a);
        graphs_data_ready(a);
        trendpair_data_ready(a);
        return 0;
    }
    if (nd->cube->nmetrics == 0) {   /* data that shrank to nothing: a writer at work, keep what is shown */
        dataset_free(nd);
        return pt_errorf(err, "the new data holds no metric");
    }
    /* Stop what reads the old dataset in the background first. */
    origin_search_stop(a);
    int om = a->metric, os = a->stat, ostep = a->sel_step, orank = a->sel_rank;
    uint32_t otarget = a->sel_target;
    a->ds = nd;
    a->cube = nd->cube;
    a->swap_from = oc;
    const struct cube *c = a->cube;
    int m = swap_metric(a, om);
    int s = m >= 0 ? swap_stat(a, om, os) : -1;
    a->metric = m >= 0 ? m : 0;
    a->stat = s >= 0 ? s : 0;
    int st = swap_step(a, ostep), rk = swap_rank(a, orank);
    a->sel_step = st >= 0 ? st : c->nsteps ? nearest_step(c, oc->steps[ostep].value) : 0;
    a->sel_rank = rk >= 0 ? rk : c->nranks ? nearest_rank(c, oc->ranks[orank]) : 0;
    a->sel_target = otarget == NAMES_NONE ? NAMES_NONE : swap_target(a, otarget);
    /* the filters, over the new names */
    if (a->regex_mask) {
        uint8_t *rm = redo_regex(a);
        free(a->regex_mask);
        a->regex_mask = rm;
        if (!rm) {
            free(a->regex);
            a->regex = NULL;
            search_clear(&a->re);
            session_err(a, "the target filter was dropped on the new data (out of memory or a name it stops on)");
        }
    }
    if (a->label_mask) {
        uint8_t *lm = carry_mask(a, a->label_mask);
        free(a->label_mask);
        a->label_mask = lm;
        if (!lm) {
            free(a->label_desc);
            a->label_desc = NULL;
        }
    }
    session_refilter(a);
    /* Every pane revalidates, translating through swap_from.  A cube derived
     * from the dataset was shown (the layout pane's global names): its ids
     * are not the dataset's, and its owner frees it when it hears of the new
     * data, so the panes get no translation (they start afresh). */
    if (oc != old->cube) a->swap_from = NULL;
    session_changed(a, SESSION_CH_DATA | SESSION_CH_METRIC | SESSION_CH_DIM | SESSION_CH_FILTER | SESSION_CH_CURSOR | SESSION_CH_COLOR);
    a->swap_from = NULL;
    dataset_free(old);
    /* the origin search reads the dataset in the background: not on the
     * partial ones of a progressive load (the next swap would wait for it) */
    if (!a->load.running || a->load.reload) origin_search_start(a);
    graphs_data_ready(a);
    trendpair_data_ready(a);
    return 0;
}
