/* pipeline: the pipeline view (probetop(1), PIPELINE VIEW): a Marey chart
 * of one step of one pipeline group.  The group's stages are rows, time
 * runs across (the group's earliest pass to its latest), each cell shows
 * the micro-batch whose pass covers the cell's middle: its number in
 * green for a forward, in yellow for a backward, '.' where the stage
 * idles.  A micro-batch's bands step from row to row along the sends, so
 * bubbles and the late stage show as bent lines; the title and status
 * line say whether the links are send/recv pairs or micro-batch order.  The picked micro-batch's
 * bands are highlighted; b puts the cursor on the widest bubble, L on the
 * slowest link, both named in the status line.
 *
 * The bands, links and bubbles are model/trace/pipeline.c.  The step and
 * group follow the session's selected step and rank (the lane view's
 * cursor): the group shown is the one holding the selected rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/trace/lanes.h"
#include "model/trace/pipeline.h"
#include "model/trace/trace.h"
#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

enum {
    PV_PREV = 1, PV_NEXT, PV_BUBBLE, PV_LINK, PV_GROUP, PV_STEP_PREV, PV_STEP_NEXT, PV_DIGIT,
    PV_UP, PV_DOWN, PV_PGUP, PV_PGDN, PV_HALFUP, PV_HALFDN, PV_TOP, PV_BOTTOM,
};

static const int pipeline_nav[NAV_COUNT] = {
    [NAV_UP] = PV_UP, [NAV_DOWN] = PV_DOWN, [NAV_PGUP] = PV_PGUP, [NAV_PGDN] = PV_PGDN,
    [NAV_HALFUP] = PV_HALFUP, [NAV_HALFDN] = PV_HALFDN, [NAV_TOP] = PV_TOP, [NAV_BOTTOM] = PV_BOTTOM,
};

static const struct keys_row pipeline_keys[] = {
    {KEYS_UP, NULL, PV_UP, "previous stage (its label marked)"}, {'k', NULL, PV_UP, NULL},
    {KEYS_DOWN, NULL, PV_DOWN, "next stage"}, {'j', NULL, PV_DOWN, NULL},
    {KEYS_PGUP, NULL, PV_PGUP, "stages: page up"}, {KEYS_PGDN, NULL, PV_PGDN, "stages: page down"},
    {KEYS_CTRL('u'), NULL, PV_HALFUP, "stages: half a page up"}, {KEYS_CTRL('d'), NULL, PV_HALFDN, "stages: half a page down"},
    {'g', NULL, PV_TOP, "first stage"}, {KEYS_HOME, NULL, PV_TOP, NULL},
    {'G', NULL, PV_BOTTOM, "last stage"}, {KEYS_END, NULL, PV_BOTTOM, NULL},
    {'[', NULL, PV_PREV, "previous micro-batch (its bands highlighted on every stage)"},
    {']', NULL, PV_NEXT, "next micro-batch"},
    {'0', NULL, PV_DIGIT, "micro-batch 0..9 (digits)"},
    {'1', NULL, PV_DIGIT, NULL}, {'2', NULL, PV_DIGIT, NULL}, {'3', NULL, PV_DIGIT, NULL},
    {'4', NULL, PV_DIGIT, NULL}, {'5', NULL, PV_DIGIT, NULL}, {'6', NULL, PV_DIGIT, NULL},
    {'7', NULL, PV_DIGIT, NULL}, {'8', NULL, PV_DIGIT, NULL}, {'9', NULL, PV_DIGIT, NULL},
    {'b', NULL, PV_BUBBLE, "the widest bubble (a stage's longest idle gap between passes)"},
    {'L', NULL, PV_LINK, "the slowest link (a micro-batch's longest hand-over between stages)"},
    {'p', NULL, PV_GROUP, "next pipeline group"},
    {'(', NULL, PV_STEP_PREV, "previous step"}, {')', NULL, PV_STEP_NEXT, "next step"},
};

/* The pipelines built, by (step, group): each is built once while the run
 * is loaded, so stepping back and forth or cycling groups is a look-up. */
#define PV_CACHE 16

struct pview {
    const struct trace_run *run;
    int32_t *steps;
    int nsteps, si;
    int group;                  /* pipeline group shown */
    struct pipeline *pl;        /* the one shown: in cache, or &none */
    struct pipeline none;       /* empty */
    struct pipeline cache[PV_CACHE];
    int32_t cstep[PV_CACHE];
    int cgroup[PV_CACHE];
    int ncache, cnext;          /* entries used; the next to reuse */
    int ok;
    int micro;                  /* picked micro-batch */
    int mark;                   /* 0 none, 1 the widest bubble, 2 the slowest link */
    int cur, nvis;              /* the stage whose label is marked; rows shown */
};

static struct pview *priv_of(struct view *v) { return v->priv; }

/* How the links were found (model/trace/pipeline.h): short for the title,
 * long for the status line. */
static const char *links_how(const struct pipeline *pl, int lng) {
    if (!pl->nlinks) return lng ? "no links between stages" : "no links";
    if (pl->npaired == pl->nlinks) return lng ? "links by send/recv pairs" : "links: send/recv";
    if (!pl->npaired) return lng ? "links by micro-batch order: the trace names no send/recv peers" : "links: micro-batch order";
    return lng ? "links by send/recv pairs, by micro-batch order where a stage's peers are unknown" : "links: send/recv, some by order";
}
static int32_t step_now(const struct pview *p) { return p->nsteps ? p->steps[p->si] : -1; }

static void cache_clear(struct pview *p) {
    for (int i = 0; i < p->ncache; i++) pipeline_free(&p->cache[i]);
    p->ncache = p->cnext = 0;
    p->pl = &p->none;
}

static void rebuild(struct pview *p, struct session *a) {
    p->ok = 0;
    p->pl = &p->none;
    int n = 0;
    const int32_t *g = p->run ? lanes_pp_group(p->run, p->group, &n) : NULL;
    if (!g || !p->nsteps) return;
    int i = 0;
    while (i < p->ncache && !(p->cstep[i] == step_now(p) && p->cgroup[i] == p->group)) i++;
    if (i == p->ncache) {   /* not built yet: into a free entry, or over the oldest */
        struct pt_error err;
        if (p->ncache < PV_CACHE) i = p->ncache++;
        else { i = p->cnext; p->cnext = (p->cnext + 1) % PV_CACHE; pipeline_free(&p->cache[i]); }
        p->cstep[i] = INT32_MIN;
        p->cgroup[i] = -1;
        if (pipeline_build(p->run, g, n, step_now(p), &p->cache[i], &err) != 0) { session_err(a, "%s", err.msg); return; }
        p->cstep[i] = step_now(p);
        p->cgroup[i] = p->group;
    }
    p->pl = &p->cache[i];
    p->ok = 1;
    if (p->cur >= p->pl->nstages) p->cur = p->pl->nstages ? p->pl->nstages - 1 : 0;
    if (p->micro >= p->pl->nmicro) p->micro = p->pl->nmicro ? p->pl->nmicro - 1 : 0;
}

/* The session's step, and the group holding its rank. */
static void follow_app(struct pview *p, const struct session *a) {
    const struct cube *c = a->cube;
    if (!c) return;
    if (a->sel_step >= 0 && a->sel_step < c->nsteps)
        for (int i = 0; i < p->nsteps; i++)
            if (p->steps[i] == c->steps[a->sel_step].origin) p->si = i;
    if (a->sel_rank >= 0 && a->sel_rank < c->nranks) {
        int32_t r = c->ranks[a->sel_rank];
        for (int gi = 0, n; gi < lanes_pp_groups(p->run); gi++) {
            const int32_t *g = lanes_pp_group(p->run, gi, &n);
            for (int k = 0; k < n; k++)
                if (g[k] == r) p->group = gi;
        }
    }
}

static void sync_run(struct pview *p, struct session *a) {
    const struct trace_run *run = a->ds ? a->ds->trace : NULL;
    if (run == p->run) return;
    p->run = run;
    cache_clear(p);
    p->ok = 0;
    if (!run) return;
    if (trace_run_steps(run, &p->steps, &p->nsteps) != 0) { session_err(a, "out of memory"); p->run = NULL; return; }
    if (p->si >= p->nsteps) p->si = p->nsteps ? p->nsteps - 1 : 0;
    follow_app(p, a);
    rebuild(p, a);
}

/* The column of time t in barw columns of [t0, t1]. */
static int col_of(const struct pipeline *pl, int64_t t, int barw) {
    int64_t w = pl->t1 > pl->t0 ? pl->t1 - pl->t0 : 1;
    int c = (int)((double)(t - pl->t0) / (double)w * barw);
    return c < 0 ? 0 : c >= barw ? barw - 1 : c;
}

static void stage_row(struct view *v, struct session *a, const struct pview *p, int s, int y, int labw, int barw) {
    const struct pipeline *pl = p->pl;
    const struct pipe_stage *st = &pl->stages[s];
    char lab[64];
    snprintf(lab, sizeof lab, "s%d r%d", s, (int)st->rank);
    ui_role(v->win, a->ui, s == p->cur ? UI_AXIS_SEL : UI_AXIS);
    ui_fill(v->win, y, 0, labw);
    ui_put(v->win, y, 0, labw, lab);
    int64_t w = pl->t1 > pl->t0 ? pl->t1 - pl->t0 : 1;
    int bi = 0, m0 = -1, m1 = -1;
    if (p->mark == 1 && pl->widest >= 0 && pl->bubbles[pl->widest].stage == s) {
        m0 = col_of(pl, pl->bubbles[pl->widest].start_ns, barw);
        m1 = col_of(pl, pl->bubbles[pl->widest].end_ns, barw);
    }
    for (int c = 0; c < barw; c++) {
        int64_t t = pl->t0 + (int64_t)(((double)c + 0.5) / barw * (double)w);
        while (bi < st->nbands && st->bands[bi].end_ns <= t) bi++;
        const struct pipe_band *b = bi < st->nbands && st->bands[bi].start_ns <= t ? &st->bands[bi] : NULL;
        char ch[2] = {'.', 0};
        int role = UI_DIM;
        if (b) {
            ch[0] = b->micro < 0 ? '?' : (char)('0' + b->micro % 10);
            role = b->micro == p->micro ? UI_MATCH : b->backward ? UI_WARN : UI_OK;
        }
        if (c >= m0 && c <= m1 && !b) { ch[0] = '!'; role = UI_BAD; }
        ui_role(v->win, a->ui, role);
        ui_put(v->win, y, labw + 1 + c, 1, ch);
    }
}

static void pipeline_draw(struct view *v, struct session *a) {
    struct pview *p = priv_of(v);
    WINDOW *w = v->win;
    werase(w);
    sync_run(p, a);
    char buf[256];
    if (!p->run || !p->ok) {
        ui_role(w, a->ui, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
        ui_fill(w, 0, 0, v->w);
        ui_put(w, 0, 0, v->w, "Pipeline");
        ui_role(w, a->ui, UI_HINT);
        if (v->h > 1)
            ui_put(w, 1, 0, v->w, !p->run ? "No timeline in this data: the pipeline view needs profiler traces."
                                         : "No pipeline groups in these traces (pg_config, Megatron's group listing).");
        return;
    }
    const struct pipeline *pl = p->pl;
    char d[48];
    snprintf(buf, sizeof buf, "Pipeline  step %d (%d/%d)  group %d/%d  %d stages  %d micro-batches  %s  %s",
             (int)step_now(p), p->si + 1, p->nsteps, p->group, lanes_pp_groups(p->run), pl->nstages, pl->nmicro,
             text_fmt_ns(pl->t1 - pl->t0, d, sizeof d), links_how(pl, 0));
    ui_role(w, a->ui, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 0, 0, v->w);
    ui_put(w, 0, 0, v->w, buf);
    int labw = 10, barw = v->w - labw - 1;
    if (barw < 4 || v->h < 3) return;
    int rows = v->h - 2;
    p->nvis = rows;
    for (int s = 0; s < pl->nstages && s < rows; s++) stage_row(v, a, p, s, 1 + s, labw, barw);
    ui_role(w, a->ui, UI_DIM);
    ui_put(w, v->h - 1, 0, v->w, "digit forward  digit backward  . idle  [ ] micro  b bubble  L link  p group  ( ) step");
    ui_role(w, a->ui, UI_OK);
    ui_put(w, v->h - 1, 0, 5, "digit");
    ui_role(w, a->ui, UI_WARN);
    ui_put(w, v->h - 1, 15, 5, "digit");
}

static void move_step(struct pview *p, struct session *a, int dir) {
    int si = p->si + dir;
    if (si < 0 || si >= p->nsteps) { session_msg(a, dir < 0 ? "first step" : "last step"); return; }
    p->si = si;
    rebuild(p, a);
}

static int pipeline_key(struct view *v, struct session *a, int action, int key) {
    struct pview *p = priv_of(v);
    sync_run(p, a);
    if (!p->run) return 0;
    int mv = nav_move_of(pipeline_nav, action);
    if (mv != NAV_NONE) {
        if (p->ok && p->pl->nstages) p->cur = (int)nav_target(mv, p->cur, p->pl->nstages, p->nvis > 0 ? p->nvis : 1);
        return 1;
    }
    switch (action) {
    case PV_PREV: if (p->micro > 0) p->micro--; p->mark = 0; return 1;
    case PV_NEXT: if (p->micro + 1 < p->pl->nmicro) p->micro++; p->mark = 0; return 1;
    case PV_DIGIT:
        if (key - '0' < p->pl->nmicro) p->micro = key - '0';
        else session_msg(a, "no micro-batch %d (%d in this step)", key - '0', p->pl->nmicro);
        p->mark = 0;
        return 1;
    case PV_BUBBLE:
        if (!p->ok || p->pl->widest < 0) { session_msg(a, "no bubble"); return 1; }
        p->mark = 1;
        return 1;
    case PV_LINK:
        if (!p->ok || p->pl->slowest < 0) { session_msg(a, "no link between stages"); return 1; }
        p->mark = 2;
        p->micro = p->pl->links[p->pl->slowest].micro;
        return 1;
    case PV_GROUP: {
        int ng = lanes_pp_groups(p->run);
        if (!ng) { session_msg(a, "no pipeline groups in the traces (pg_config, group listing)"); return 1; }
        p->group = (p->group + 1) % ng;
        p->mark = 0;
        rebuild(p, a);
        return 1;
    }
    case PV_STEP_PREV: move_step(p, a, -1); return 1;
    case PV_STEP_NEXT: move_step(p, a, 1); return 1;
    }
    (void)v;
    return 0;
}

/* The picked micro-batch (its passes on the first and last stage), or the
 * widest bubble, or the slowest link. */
static void pipeline_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct pview *p = priv_of(v);
    (void)a;
    if (!p->run || !p->ok) { snprintf(buf, size, "no pipeline"); return; }
    const struct pipeline *pl = p->pl;
    char x[48], y[48], z[48];
    if (p->mark == 1 && pl->widest >= 0) {
        const struct pipe_gap *g = &pl->bubbles[pl->widest];
        snprintf(buf, size, "widest bubble: stage %d (rank %d)  idle %s  from +%s to +%s  step %d", g->stage,
                 (int)pl->stages[g->stage].rank, text_fmt_ns(g->end_ns - g->start_ns, x, sizeof x),
                 text_fmt_ns(g->start_ns - pl->t0, y, sizeof y), text_fmt_ns(g->end_ns - pl->t0, z, sizeof z),
                 (int)step_now(p));
        return;
    }
    if (p->mark == 2 && pl->slowest >= 0) {
        const struct pipe_link *l = &pl->links[pl->slowest];
        snprintf(buf, size, "slowest link: micro-batch %d %s  stage %d -> %d  %s  from +%s to +%s  step %d  %s",
                 (int)l->micro, l->backward ? "backward" : "forward", l->from, l->to,
                 text_fmt_ns(l->end_ns - l->start_ns, x, sizeof x), text_fmt_ns(l->start_ns - pl->t0, y, sizeof y),
                 text_fmt_ns(l->end_ns - pl->t0, z, sizeof z), (int)step_now(p),
                 l->paired ? "(a send and its receive)" : "(by micro-batch order)");
        return;
    }
    const struct pipe_band *f0 = pipeline_band(pl, 0, p->micro, 0);
    const struct pipe_band *b0 = pipeline_band(pl, 0, p->micro, 1);
    snprintf(buf, size, "micro-batch %d  step %d  stage 0: forward at +%s, backward done at +%s  %s", p->micro,
             (int)step_now(p), f0 ? text_fmt_ns(f0->start_ns - pl->t0, x, sizeof x) : "-",
             b0 ? text_fmt_ns(b0->end_ns - pl->t0, y, sizeof y) : "-", links_how(pl, 1));
}

static void pipeline_notify(struct view *v, struct session *a, unsigned what) {
    struct pview *p = priv_of(v);
    if (what & SESSION_CH_DATA) {
        p->run = NULL;
        sync_run(p, a);
        return;
    }
    if (p->run && (what & SESSION_CH_CURSOR)) {
        int si = p->si, g = p->group;
        follow_app(p, a);
        if (si != p->si || g != p->group) rebuild(p, a);
    }
}

static int pipeline_init(struct view *v, struct session *a, struct pt_error *err) {
    struct pview *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    p->none.widest = p->none.slowest = -1;
    p->pl = &p->none;
    v->priv = p;
    sync_run(p, a);
    return 0;
}

static void pipeline_free_view(struct view *v) {
    struct pview *p = priv_of(v);
    if (!p) return;
    cache_clear(p);
    free(p->steps);
    free(p);
    v->priv = NULL;
}

const struct view_ops view_pipeline = {
    .name = "pipeline",
    .title = "Pipeline",
    .init = pipeline_init,
    .free = pipeline_free_view,
    .draw = pipeline_draw,
    .key = pipeline_key,
    .notify = pipeline_notify,
    .status = pipeline_status,
    .hints = "[ ] micro  b bubble  L link  p group  ( ) step",
    .keys = pipeline_keys,
    .nkeys = sizeof pipeline_keys / sizeof pipeline_keys[0],
};
