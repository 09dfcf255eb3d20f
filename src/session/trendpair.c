/* trendpair: two runs of trend data in the analyzer (trendpair.h). */
#include "src/session/trendpair.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/rundiff.h"
#include "model/cube/cube_lazy.h"
#include "model/compare/runpair.h"
#include "src/io/common/mapping.h"
#include "src/io/formats.h"
#include "src/io/load.h"
#include "src/io/monitor/read_monitor_v2.h"
#include "src/session/graphs.h"
#include "src/session/session.h"

_Static_assert((int)TRENDPAIR_PROBLEM == (int)RUN_PROBLEM && (int)TRENDPAIR_BENCH == (int)RUN_BENCH && (int)TRENDPAIR_DIFF == (int)RUN_DIFF,
               "R and :run name the runs of both pairs by graphs_run_name()");

/* `f` on its own thread: the first place the runs part, over cubes of
 * its own (a lazy .trend.db opened again: the screen's cube and its cache
 * stay the screen's) or the screen's dense ones, which nobody changes
 * while it runs (a newer dataset stops it first: trendpair_data_ready). */
struct firstjob {
    pthread_t thread;
    atomic_int cancel, done, progress;
    atomic_int total;                 /* steps to look at over both passes */
    const struct cube *pc, *bc;  /* dense cubes of the screen, or NULL: open path */
    const char *ppath, *bpath;
    struct load_opts o;
    struct dataset *pds, *bds;   /* owned: the job's own lazy runs */
    const struct mapping *map;
    char metric[256];            /* the shown metric, looked at first */
    double threshold;
    struct runpair *rp;          /* owned: the job's match */
    int rc, found;
    struct runpair_cell cell;
    struct pt_error err;
};

struct trendpair {
    struct firstjob *job;        /* `f` running, or finished and not yet polled */
    struct mapping map;          /* --mapping: the problem's names renamed for the match */
    double threshold;
    struct runpair *rp;          /* over a->ds->cube and a->bench_ds->cube; NULL until needed */
    struct cube *diff;           /* |p-b|/|b|, lazy; with rp */
    int run;                     /* enum trendpair_run shown */
    /* the last shown target translated to a pair target (pair_target) */
    const struct cube *last_cube;
    uint32_t last_target, last_pair;
};

int trendpair_is_trend(const char *path) {
    const struct formats_row *f = formats_detect(path);
    return f && (!strcmp(f->name, "trenddb") || !strcmp(f->name, "monitor") || !strcmp(f->name, "monitor_v2"));
}

int trendpair_on(const struct session *a) { return a->pair != NULL; }

int trendpair_open(struct session *a, struct pt_error *err) {
    if (a->mode != SESSION_MODE_COMPARE || a->npaths != 2 || a->lopts.format || a->demo) return 0;
    if (!trendpair_is_trend(a->paths[0]) || !trendpair_is_trend(a->paths[1])) return 0;
    struct trendpair *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    p->threshold = RUNPAIR_THRESHOLD;
    if (a->lopts.mapping && mapping_read(a->lopts.mapping, &p->map, err) != 0) {
        free(p);
        return -1;
    }
    /* the problem's names are renamed by the match, not on load (a
     * .trend.db's reader renames nothing: one rule for every input) */
    a->lopts.mapping = NULL;
    struct load_opts o = a->lopts;
    o.lazy = 1;
    o.mon_cache = NULL;
    o.dump_cache = NULL;
    struct dataset *d = NULL;
    if (load_dataset(a->paths[1], &o, &d, err) != 0) {
        mapping_free(&p->map);
        free(p);
        return -1;
    }
    if (!d->cube || !d->cube->nmetrics) {
        dataset_free(d);
        mapping_free(&p->map);
        free(p);
        return pt_errorf(err, "%s holds no trend data", a->paths[1]);
    }
    a->mode = SESSION_MODE_TREND;
    dataset_free(a->bench_ds);
    a->bench_ds = d;
    a->pair = p;
    return 0;
}

static void job_free(struct trendpair *p) {
    struct firstjob *j = p->job;
    if (!j) return;
    atomic_store(&j->cancel, 1);
    pthread_join(j->thread, NULL);
    runpair_free(j->rp);
    dataset_free(j->pds);
    dataset_free(j->bds);
    free(j);
    p->job = NULL;
}

static void drop(struct trendpair *p) {
    job_free(p);
    cube_free(p->diff);
    p->diff = NULL;
    runpair_free(p->rp);
    p->rp = NULL;
}

void trendpair_data_ready(struct session *a) {
    struct trendpair *p = a->pair;
    if (!p) return;
    if (p->job && !atomic_load(&p->job->done)) session_msg(a, "f: new data came, the search for where the runs part stopped");
    if (a->cube == p->diff || (a->bench_ds && a->cube == a->bench_ds->cube)) a->cube = a->ds ? a->ds->cube : NULL;
    drop(p);
    p->run = TRENDPAIR_PROBLEM;
    p->last_cube = NULL;
}

/* The match, made on first use. */
static int ensure(struct session *a, struct pt_error *err) {
    struct trendpair *p = a->pair;
    if (!p) return pt_errorf(err, "the runs need two inputs of trend data (probetop PROBLEM BENCH)");
    if (p->rp) return 0;
    if (!a->ds || !a->ds->cube) return pt_errorf(err, "the problem run is not loaded (yet)");
    if (runpair_build(a->ds->cube, a->bench_ds->cube, p->map.from, p->map.to, p->map.n, monitor_v2_v1_metric, &p->rp,
                      err) != 0)
        return -1;
    if (runpair_diff_cube(p->rp, a->ds->labels, a->lopts.mem_budget, &p->diff, err) != 0) {
        drop(p);
        return -1;
    }
    return 0;
}

int trendpair_run(const struct session *a) { return a->pair ? a->pair->run : -1; }

const char *trendpair_run_name(int run) {
    return run == TRENDPAIR_BENCH ? "benchmark" : run == TRENDPAIR_DIFF ? "|p-b|/|b|" : "problem";
}

static const struct cube *cube_of(const struct session *a, int run) {
    return run == TRENDPAIR_BENCH ? a->bench_ds->cube : run == TRENDPAIR_DIFF ? a->pair->diff : a->ds->cube;
}

/* The shown cube's indexes of pair cell c (metric, step, rank, target in
 * the pair's axes): -1 when the shown run has no such cell. */
static int to_shown(const struct session *a, const struct runpair_cell *c, int *m, int *st, int *s, int *r,
                    uint32_t *t) {
    const struct runpair *rp = a->pair->rp;
    const struct runpair_metric *pm = &rp->m[c->metric];
    switch (a->pair->run) {
    case TRENDPAIR_DIFF: *m = c->metric; *st = c->stat; *s = c->step; *r = c->rank; *t = c->target; break;
    case TRENDPAIR_BENCH:
        *m = pm->b; *st = pm->bstat[c->stat]; *s = rp->bstep[c->step]; *r = rp->brank[c->rank]; *t = rp->tb[c->target];
        break;
    default:
        *m = pm->p; *st = pm->pstat[c->stat]; *s = rp->pstep[c->step]; *r = rp->prank[c->rank]; *t = rp->tp[c->target];
        break;
    }
    return *t == NAMES_NONE ? -1 : 0;
}

int trendpair_set_run(struct session *a, int run, struct pt_error *err) {
    struct trendpair *p = a->pair;
    if (!p) return pt_errorf(err, "the run choice needs two runs (probetop PROBLEM BENCH)");
    if (!a->ds) return pt_errorf(err, "the problem run is not loaded (yet)");
    if (a->cube && a->cube != a->ds->cube && a->cube != p->diff && a->cube != a->bench_ds->cube)
        return pt_errorf(err, "another view of the data is shown (:layers local first)");
    if (run == TRENDPAIR_DIFF && ensure(a, err) != 0) return -1;
    const struct cube *to = cube_of(a, run);
    /* the selected cell by its step value, rank number and target name */
    const struct cube *from = a->cube;
    uint32_t sel = NAMES_NONE;
    int step = -1, rank = -1;
    if (from && from->nmetrics) {
        if (a->sel_target != NAMES_NONE && a->sel_target < names_count(from->names)) {
            const struct target *t = names_target(from->names, a->sel_target);
            sel = names_find(to->names, names_str(from->names, a->sel_target), t->len, t->vpp, t->call);
        }
        if (a->sel_step >= 0 && a->sel_step < from->nsteps) step = cube_step_find(to, from->steps[a->sel_step].value);
        if (a->sel_rank >= 0 && a->sel_rank < from->nranks) rank = cube_rank_find(to, from->ranks[a->sel_rank]);
    }
    int metric = from && a->metric < from->nmetrics ? cube_metric_find(to, from->metrics[a->metric].name) : -1;
    int stat = metric >= 0 ? cube_stat_find(to, metric, from->metrics[a->metric].stats[a->stat]) : -1;
    p->run = run;
    p->last_cube = NULL;
    a->cube = to;
    /* the panes translate what they hold by names and values, as for a
     * newer dataset (src/session/swap.h): the line chart keeps its lines,
     * re-read from the run now shown */
    if (to->nmetrics) {
        a->metric = metric >= 0 ? metric : 0;
        a->stat = stat >= 0 ? stat : 0;
        a->sel_step = step >= 0 ? step : 0;
        a->sel_rank = rank >= 0 ? rank : 0;
        a->sel_target = sel;
    }
    a->swap_from = from && from->nmetrics && from != to ? from : NULL;
    session_changed(a, SESSION_CH_DATA);
    a->swap_from = NULL;
    if (a->label_mask) session_set_label_filter(a, NULL, NULL);
    char *re = a->regex ? strdup(a->regex) : NULL;
    struct pt_error e2;
    if (session_set_regex(a, re, &e2) != 0) session_set_regex(a, NULL, &e2);
    free(re);
    if (to->nmetrics) session_set_metric(a, metric >= 0 ? metric : 0, stat);
    session_select(a, step, rank, sel);
    return 0;
}

double trendpair_threshold(const struct session *a) { return a->pair ? a->pair->threshold : RUNPAIR_THRESHOLD; }

int trendpair_set_threshold(struct session *a, double fraction, struct pt_error *err) {
    if (!a->pair) return pt_errorf(err, ":threshold needs two runs of trend data (probetop PROBLEM BENCH)");
    if (!(fraction > 0) || !isfinite(fraction)) return pt_errorf(err, ":threshold wants a percentage above 0");
    a->pair->threshold = fraction;
    return 0;
}

/* Says the first parting cell c (the screen's pair axes) and selects it. */
static int report(struct session *a, const struct runpair_cell *c, struct pt_error *err) {
    const struct runpair *rp = a->pair->rp;
    char pct[32];
    snprintf(pct, sizeof pct, "%g%%", a->pair->threshold * 100);
    int m, st, s, r;
    uint32_t t;
    if (to_shown(a, c, &m, &st, &s, &r, &t) != 0) return pt_errorf(err, "the cell is not in the shown run");
    if (m != a->metric || st != a->stat) session_set_metric(a, m, st);
    session_select(a, s, r, t);
    char step[40], name[512];
    names_display(rp->names, c->target, name, sizeof name);
    const struct runpair_metric *mm = &rp->m[c->metric];
    session_msg(a, "first part: step %s rank %d %s/%s problem %.6g bench %.6g |p-b|/|b| %.3g > %s: %s",
                cube_step_text(rp->p, rp->pstep[c->step], step, sizeof step), (int)rp->p->ranks[rp->prank[c->rank]],
                rp->p->metrics[mm->p].name, rp->p->metrics[mm->p].stats[mm->pstat[c->stat]], (double)c->p, (double)c->b,
                (double)c->rel, pct, name);
    return 1;
}

static int pair_metric(const struct runpair *rp, const char *name) {
    for (int m = 0; m < rp->nmetrics; m++)
        if (!strcmp(rp->p->metrics[rp->m[m].p].name, name)) return m;
    return -1;
}

static void *job_run(void *arg) {
    struct firstjob *j = arg;
    const struct cube *pc = j->pc, *bc = j->bc;
    if (!pc && load_dataset(j->ppath, &j->o, &j->pds, &j->err) != 0) goto out;
    if (!pc) pc = j->pds->cube;
    if (!bc && load_dataset(j->bpath, &j->o, &j->bds, &j->err) != 0) goto out;
    if (!bc) bc = j->bds->cube;
    if (!pc || !bc) {
        pt_errorf(&j->err, "a run holds no trend data");
        goto out;
    }
    if (runpair_build(pc, bc, j->map->from, j->map->to, j->map->n, monitor_v2_v1_metric, &j->rp, &j->err) != 0)
        goto out;
    int pm = pair_metric(j->rp, j->metric);
    atomic_store(&j->total, (pm >= 0 ? 2 : 1) * j->rp->nsteps);
    int done = 0;
    /* the shown metric first, then every metric */
    for (int pass = pm >= 0 ? 0 : 1; pass < 2 && !j->found; pass++)
        for (int s = 0; s < j->rp->nsteps; s++, done++) {
            if (atomic_load(&j->cancel)) goto out;
            atomic_store(&j->progress, done);
            int f = runpair_first_step(j->rp, pass == 0 ? pm : -1, s, j->threshold, &j->cell, &j->err);
            if (f < 0) goto out;
            if (f > 0) {
                j->found = 1;
                break;
            }
        }
    j->rc = 1;
out:
    atomic_store(&j->done, 1);
    return NULL;
}

int trendpair_first(struct session *a, struct pt_error *err) {
    struct trendpair *p = a->pair;
    if (p && p->job) {
        session_msg(a, "f: still looking for where the runs part (Esc stops)");
        return 0;
    }
    if (ensure(a, err) != 0) return -1;
    struct firstjob *j = calloc(1, sizeof *j);
    if (!j) return pt_errorf(err, "out of memory");
    const struct cube *pc = a->ds->cube, *bc = a->bench_ds->cube;
    j->pc = cube_is_lazy(pc) ? NULL : pc;
    j->bc = cube_is_lazy(bc) ? NULL : bc;
    j->ppath = a->paths[0];
    j->bpath = a->paths[1];
    j->o = a->lopts;
    j->o.lazy = 1;
    j->o.progress = NULL;
    j->o.cancel = &j->cancel;
    j->o.max_steps = j->o.max_files = 0;
    j->o.follow = 0;
    j->o.mon_cache = NULL;
    j->o.dump_cache = NULL;
    j->o.curves_cache = NULL;
    j->map = &p->map;
    j->threshold = p->threshold;
    if (a->cube && a->metric < a->cube->nmetrics)
        snprintf(j->metric, sizeof j->metric, "%s", a->cube->metrics[a->metric].name);
    atomic_init(&j->cancel, 0);
    atomic_init(&j->done, 0);
    atomic_init(&j->progress, 0);
    atomic_init(&j->total, 0);
    if (pthread_create(&j->thread, NULL, job_run, j) != 0) {
        free(j);
        return pt_errorf(err, "cannot start the search");
    }
    p->job = j;
    session_msg(a, "f: looking for where the runs part... (Esc stops)");
    return 0;
}

int trendpair_busy(const struct session *a) { return a->pair && a->pair->job; }

void trendpair_cancel(struct session *a) {
    if (!trendpair_busy(a)) return;
    job_free(a->pair);
    session_msg(a, "f: stopped looking for where the runs part");
}

/* The screen's pair cell of the job's cell c (same names, step value and
 * rank number); -1 when the screen's match has none. */
static int translate(const struct runpair *rp, const struct runpair *jr, const struct runpair_cell *c,
                     struct runpair_cell *out) {
    *out = *c;
    out->metric = pair_metric(rp, jr->p->metrics[jr->m[c->metric].p].name);
    if (out->metric < 0 || c->stat >= rp->m[out->metric].nstats) return -1;
    out->step = out->rank = -1;
    int32_t sv = jr->p->steps[jr->pstep[c->step]].value, rv = jr->p->ranks[jr->prank[c->rank]];
    for (int s = 0; s < rp->nsteps && out->step < 0; s++)
        if (rp->p->steps[rp->pstep[s]].value == sv) out->step = s;
    for (int r = 0; r < rp->nranks && out->rank < 0; r++)
        if (rp->p->ranks[rp->prank[r]] == rv) out->rank = r;
    const struct target *tg = names_target(jr->names, c->target);
    out->target = names_find(rp->names, names_str(jr->names, c->target), tg->len, tg->vpp, tg->call);
    return out->step < 0 || out->rank < 0 || out->target == NAMES_NONE ? -1 : 0;
}

int trendpair_poll(struct session *a) {
    struct trendpair *p = a->pair;
    struct firstjob *j = p ? p->job : NULL;
    if (!j) return 0;
    if (!atomic_load(&j->done)) {
        int total = atomic_load(&j->total), done = atomic_load(&j->progress);
        if (!a->msg[0] || !strncmp(a->msg, "f: looking", 10)) {
            if (total > 0) session_msg(a, "f: looking for where the runs part: %d%% (Esc stops)", (int)(100.0 * done / total));
            else session_msg(a, "f: looking for where the runs part... (Esc stops)");
        }
        return 1;
    }
    pthread_join(j->thread, NULL);
    p->job = NULL;
    struct pt_error err;
    struct runpair_cell c;
    if (!j->rc) session_err(a, "f: %s", j->err.msg);
    else if (!j->found)
        session_msg(a, "the runs do not part: no shared cell above |p-b|/|b| %g%%", p->threshold * 100);
    else if (ensure(a, &err) != 0) session_err(a, "f: %s", err.msg);
    else if (translate(p->rp, j->rp, &j->cell, &c) != 0) session_err(a, "f: the runs changed while looking");
    else if (report(a, &c, &err) < 0) session_err(a, "f: %s", err.msg);
    runpair_free(j->rp);
    dataset_free(j->pds);
    dataset_free(j->bds);
    free(j);
    return 1;
}

/* The pair target of the shown cube's target t (the last one kept: the
 * line chart asks for one target point after point). */
static uint32_t pair_target(const struct session *a, uint32_t t) {
    struct trendpair *p = a->pair;
    const struct runpair *rp = p->rp;
    if (p->run == TRENDPAIR_DIFF) return t;
    if (p->last_cube == a->cube && p->last_target == t) return p->last_pair;
    uint32_t id = NAMES_NONE;
    if (p->run == TRENDPAIR_BENCH) {
        const struct target *tg = names_target(rp->b->names, t);
        id = names_find(rp->names, names_str(rp->b->names, t), tg->len, tg->vpp, tg->call);
    } else {
        for (uint32_t i = 0; i < names_count(rp->names); i++)
            if (rp->tp[i] == t) { id = i; break; }
    }
    p->last_cube = a->cube;
    p->last_target = t;
    p->last_pair = id;
    return id;
}

float trendpair_value(struct session *a, int run, int metric, int stat, int step, int rank, uint32_t target) {
    struct trendpair *p = a->pair;
    struct pt_error e;
    const struct cube *sc = a->cube;
    if (!p || !sc || run < TRENDPAIR_PROBLEM || run > TRENDPAIR_BENCH || metric < 0 || metric >= sc->nmetrics ||
        stat < 0 || stat >= sc->metrics[metric].nstats || step < 0 || step >= sc->nsteps || rank < 0 ||
        rank >= sc->nranks || target == NAMES_NONE || ensure(a, &e) != 0)
        return cube_missing();
    const struct cube *c = run == TRENDPAIR_PROBLEM ? a->ds->cube : a->bench_ds->cube;
    uint32_t pid = pair_target(a, target);
    uint32_t t = pid == NAMES_NONE ? NAMES_NONE : run == TRENDPAIR_PROBLEM ? p->rp->tp[pid] : p->rp->tb[pid];
    if (t == NAMES_NONE) return cube_missing();
    int m = c == sc ? metric : cube_metric_find(c, sc->metrics[metric].name);
    int st = m < 0 ? -1 : c == sc ? stat : cube_stat_find(c, m, sc->metrics[metric].stats[stat]);
    int s = c == sc ? step : cube_step_find(c, sc->steps[step].value);
    int r = c == sc ? rank : cube_rank_find(c, sc->ranks[rank]);
    uint32_t lt = m >= 0 ? cube_local_target(c, m, t) : UINT32_MAX;
    return st < 0 || s < 0 || r < 0 || lt == UINT32_MAX ? cube_missing() : cube_get(c, m, st, lt, s, r);
}

const char *trendpair_cell_text(struct session *a, char *buf, size_t size) {
    buf[0] = '\0';
    struct trendpair *p = a->pair;
    struct pt_error e;
    if (!p || !a->cube || a->sel_target == NAMES_NONE || a->metric >= a->cube->nmetrics || ensure(a, &e) != 0) return buf;
    const struct cube *sc = a->cube;
    if (a->sel_step < 0 || a->sel_step >= sc->nsteps || a->sel_rank < 0 || a->sel_rank >= sc->nranks) return buf;
    float v[2];
    for (int k = 0; k < 2; k++)
        v[k] = trendpair_value(a, k == 0 ? TRENDPAIR_PROBLEM : TRENDPAIR_BENCH, a->metric, a->stat, a->sel_step,
                               a->sel_rank, a->sel_target);
    if (cube_is_missing(v[0]) && cube_is_missing(v[1])) snprintf(buf, size, "in neither run");
    else if (cube_is_missing(v[1])) snprintf(buf, size, "problem %.6g, not in the benchmark", (double)v[0]);
    else if (cube_is_missing(v[0])) snprintf(buf, size, "bench %.6g, not in the problem run", (double)v[1]);
    else {   /* what the shown value is not: the other run, the difference */
        const char *parts = runpair_parts(v[0], v[1], p->threshold) ? " (parts)" : "";
        double rel = rundiff_cell(v[0], v[1]);
        if (p->run == TRENDPAIR_DIFF) snprintf(buf, size, "problem %.6g  bench %.6g%s", (double)v[0], (double)v[1], parts);
        else if (p->run == TRENDPAIR_BENCH) snprintf(buf, size, "problem %.6g  |p-b|/|b| %.3g%s", (double)v[0], rel, parts);
        else snprintf(buf, size, "bench %.6g  |p-b|/|b| %.3g%s", (double)v[1], rel, parts);
    }
    return buf;
}

void trendpair_free(struct session *a) {
    struct trendpair *p = a->pair;
    if (p) {
        if (a->cube == p->diff) a->cube = a->ds ? a->ds->cube : NULL;
        drop(p);
        mapping_free(&p->map);
        free(p);
        a->pair = NULL;
    }
    if (a->bench_ds && a->cube == a->bench_ds->cube) a->cube = a->ds ? a->ds->cube : NULL;
}
