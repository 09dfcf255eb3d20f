/* lanes: the lane view (probetop(1), LANE VIEW): one step of a profiled
 * run across ranks, one lane per rank, each lane the step's time coloured
 * by what the device did (compute, communication, memory, idle), on one
 * time axis or each rank from its own step start.  A cursor walks a lane's
 * kernels and idle gaps; the status line names the one under it.
 *
 * The time arithmetic (spans, bins, items, zoom, pan) is model/trace/lanes.c;
 * the coloured cells ui/strip.c.  This pane owns the window on the time
 * axis, the cursor, the lanes shown (all ranks or one pipeline group of
 * the layout pane's --parallel) and a cache of the bins of the last frame.
 * The step and rank follow the session's selected cell both ways, so the heat
 * map and the lanes show the same step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/trace/lanes.h"
#include "model/trace/range.h"
#include "model/layout/layout.h"
#include "model/trace/trace.h"
#include "ui/nav.h"
#include "ui/strip.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/lanes_group.h"
#include "views/view.h"

enum {
    LA_UP = 1, LA_DOWN, LA_PGUP, LA_PGDN, LA_HALFUP, LA_HALFDN, LA_TOP, LA_BOTTOM, LA_LEFT, LA_RIGHT, LA_FIRST,
    LA_LAST, LA_ZOOMIN, LA_ZOOMOUT, LA_RESET, LA_PANL, LA_PANR, LA_STEP_PREV, LA_STEP_NEXT, LA_ALIGN, LA_GROUP,
    LA_HALF, LA_TABLES, LA_GROUPBY, LA_DRILL, LA_BACK, LA_SEL, LA_PIPE,
};

static const int lanes_nav[NAV_COUNT] = {
    [NAV_UP] = LA_UP, [NAV_DOWN] = LA_DOWN, [NAV_PGUP] = LA_PGUP, [NAV_PGDN] = LA_PGDN,
    [NAV_HALFUP] = LA_HALFUP, [NAV_HALFDN] = LA_HALFDN, [NAV_TOP] = LA_TOP, [NAV_BOTTOM] = LA_BOTTOM,
};

static const struct keys_row lanes_keys[] = {
    {KEYS_UP, NULL, LA_UP, "previous rank (lane)"}, {'k', NULL, LA_UP, NULL},
    {KEYS_DOWN, NULL, LA_DOWN, "next rank (lane)"}, {'j', NULL, LA_DOWN, NULL},
    {KEYS_PGUP, NULL, LA_PGUP, "lanes: page up"}, {KEYS_PGDN, NULL, LA_PGDN, "lanes: page down"},
    {KEYS_CTRL('u'), NULL, LA_HALFUP, "lanes: half a page up"}, {KEYS_CTRL('d'), NULL, LA_HALFDN, "lanes: half a page down"},
    {'g', NULL, LA_TOP, "first lane"}, {KEYS_HOME, NULL, LA_TOP, NULL},
    {'G', NULL, LA_BOTTOM, "last lane"}, {KEYS_END, NULL, LA_BOTTOM, NULL},
    {KEYS_LEFT, NULL, LA_LEFT, "previous kernel or idle gap on the lane"}, {'h', NULL, LA_LEFT, NULL},
    {KEYS_RIGHT, NULL, LA_RIGHT, "next kernel or idle gap on the lane"}, {'l', NULL, LA_RIGHT, NULL},
    {'0', NULL, LA_FIRST, "the lane's first kernel"}, {'$', NULL, LA_LAST, "the lane's last kernel or gap"},
    {'Z', NULL, LA_ZOOMIN, "zoom in on the cursor (time x2)"},
    {'z', NULL, LA_ZOOMOUT, "zoom out (time /2)"},
    {'r', NULL, LA_RESET, "the whole step again (zoom reset)"},
    {',', NULL, LA_PANL, "pan left (a quarter of the window)"},
    {'.', NULL, LA_PANR, "pan right"},
    {'(', NULL, LA_STEP_PREV, "previous step"}, {')', NULL, LA_STEP_NEXT, "next step"},
    {'a', NULL, LA_ALIGN, "time axis: one clock for all ranks / each rank from its own step start"},
    {'p', NULL, LA_GROUP, "lanes: all ranks, then each pipeline group (--parallel's, else the traces' process groups)"},
    {'b', NULL, LA_HALF, "half blocks (two bins per cell) / one marked bin per cell"},
    {'t', NULL, LA_TABLES, "the trace's kernel tables (:view tables; q comes back)"},
    {'c', NULL, LA_GROUPBY, "rows: one per rank, or grouped by pipeline stage, by pipeline group, in blocks of ranks"},
    {KEYS_ENTER, NULL, LA_DRILL, "on a group: its ranks, one lane each"},
    {KEYS_ESC, NULL, LA_BACK, "back from a group's ranks to the groups (else: clear the time range)"},
    {KEYS_BACKSPACE, NULL, LA_BACK, NULL},
    {'v', NULL, LA_SEL, "time range: start at the cursor, then end it (its figures in the status line)"},
    {'P', NULL, LA_PIPE, "the pipeline view of the cursor's step and pipeline group"},
};

/* The categories as strip classes: colours, and marks for no colour. */
static const struct strip_class lane_classes[LANE_NKINDS] = {
    [TRACE_COMPUTE] = {{0x5f, 0xaf, 0x5f}, '#', 0},
    [TRACE_COMM] = {{0x5f, 0x87, 0xff}, '~', 0},
    [TRACE_MEMORY] = {{0xd7, 0xaf, 0x00}, 'm', 0},
    [TRACE_IDLE] = {{0x80, 0x80, 0x80}, '.', 0},
    [LANE_NONE] = {{0, 0, 0}, ' ', 1},
};

struct lanes {
    const struct trace_run *run;   /* the run the state below was made for */
    int32_t *steps;                /* every rank's step numbers, ascending, distinct */
    int nsteps, si;                /* the step shown: steps[si] */
    int *lanes, nlanes;            /* trace rank indexes shown, in order */
    int group;                     /* -1 all ranks, else the pipeline group shown */
    enum lanes_align align;
    int64_t s0, s1;                /* the step's span over the lanes (align's clock) */
    int64_t w0, w1;                /* the window shown */
    int cur, top;                  /* cursor lane, first lane shown (indexes into lanes) */
    struct lane_items items;       /* the cursor lane's items */
    int items_ok;
    long item;                     /* the cursor's item, -1 none */
    int half;                      /* half blocks wanted */
    /* bins of the last frame: nlanes x nbins */
    uint8_t *bins;
    int nbins, bins_ok;
    struct lanes_grp grp;          /* the grouped rows (views/lanes_group.c) */
    int grp_ok;                    /* groups made for the lanes shown */
    uint8_t *have;                 /* [nlanes]: lane k's bins are made (only the lanes shown are) */
    int sel;                       /* time range: 0 none, 1 started, 2 done */
    struct range_agg rng;          /* the range's figures, when rng_ok */
    int rng_ok;
    int64_t sel0, sel0e, sel1;     /* its start (and the end of what the cursor was on), its end */
    /* geometry of the last frame, for the mouse */
    int gy, gx, barw, nvis;
};

static struct lanes *priv_of(struct view *v) { return v->priv; }
static const struct trace_run *run_of(const struct session *a) { return a->ds ? a->ds->trace : NULL; }
static int32_t step_now(const struct lanes *p) { return p->nsteps ? p->steps[p->si] : -1; }

/* ---- state ---- */

static void drop_items(struct lanes *p) {
    lanes_items_free(&p->items);
    p->items_ok = 0;
    p->item = -1;
}

/* The trace rank index of rank number r, -1 when the run lacks it. */
static int trace_index(const struct trace_run *run, int32_t r) {
    for (int i = 0; i < run->nranks; i++)
        if (run->ranks[i].rank == r) return i;
    return -1;
}

/* The lanes: every rank, or the members of pipeline group p->group. */
static int make_lanes(struct lanes *p, const struct session *a) {
    const struct trace_run *run = p->run;
    const struct layout *l = a->layout;
    free(p->lanes);
    p->nlanes = 0;
    p->lanes = malloc(((size_t)run->nranks + 1) * sizeof *p->lanes);
    if (!p->lanes) return -1;
    p->grp_ok = p->grp.drilled >= 0 ? p->grp_ok : 0;
    if (p->grp.drilled >= 0 && p->grp.drilled < p->grp.g.ngroups) {   /* one group's ranks */
        for (int i = p->grp.g.start[p->grp.drilled]; i < p->grp.g.start[p->grp.drilled + 1]; i++)
            p->lanes[p->nlanes++] = p->grp.g.members[i];
        if (p->cur >= p->nlanes) p->cur = p->nlanes ? p->nlanes - 1 : 0;
        return 0;
    }
    int ng = l ? layout_ngroups(l, LAYOUT_PP) : lanes_pp_groups(run), n;
    const int32_t *g = !l && p->group >= 0 && p->group < ng ? lanes_pp_group(run, p->group, &n) : NULL;
    if (p->group >= 0 && l && p->group < ng) {
        int *m = malloc((size_t)l->pp * sizeof *m);
        if (!m) return -1;
        layout_group(l, LAYOUT_PP, p->group, m);
        for (int i = 0; i < l->pp; i++) {
            int ti = trace_index(run, m[i]);
            if (ti >= 0) p->lanes[p->nlanes++] = ti;
        }
        free(m);
    } else if (g) {   /* the traces' own pipeline groups (pg_config, Megatron's listing) */
        for (int i = 0; i < n; i++) {
            int ti = trace_index(run, g[i]);
            if (ti >= 0 && p->nlanes < run->nranks) p->lanes[p->nlanes++] = ti;
        }
    } else {
        p->group = -1;
        for (int i = 0; i < run->nranks; i++) p->lanes[p->nlanes++] = i;
    }
    if (p->cur >= p->nlanes) p->cur = p->nlanes ? p->nlanes - 1 : 0;
    return 0;
}

/* The step's busy index (views/lanes_group.c keeps it): the ranks' spans
 * without a walk of their kernels; NULL without memory. */
static const struct lanebusy *index_of(struct lanes *p) {
    struct pt_error err;
    return lanes_grp_index(&p->grp, p->run, step_now(p), &err);
}

/* Lane k's span of the step: 1, or 0 when its rank lacks the step. */
static int lane_span(struct lanes *p, int k, int64_t *t0, int64_t *t1) {
    const struct lanebusy *lb = index_of(p);
    if (k < 0 || k >= p->nlanes) return 0;
    if (lb) return lanebusy_rank_span(lb, p->lanes[k], t0, t1);
    return lanes_rank_span(&p->run->ranks[p->lanes[k]], step_now(p), t0, t1, NULL);
}

/* The step's span over the lanes and the window back to all of it. */
static void reset_window(struct lanes *p) {
    const struct lanebusy *lb = index_of(p);
    if (lb) lanebusy_span(lb, p->lanes, p->nlanes, p->align, &p->s0, &p->s1);
    else lanes_span(p->run, p->lanes, p->nlanes, step_now(p), p->align, &p->s0, &p->s1);
    p->w0 = p->s0;
    p->w1 = p->s1 > p->s0 ? p->s1 : p->s0 + 1;
    p->bins_ok = 0;
}

/* The offset of lane k's times on the window's clock. */
static int64_t lane_off(struct lanes *p, int k) {
    int64_t a, b;
    if (p->align != LANES_STEP || k < 0 || k >= p->nlanes) return 0;
    return lane_span(p, k, &a, &b) ? a : 0;
}

/* The cursor lane's items, with the cursor on the item at window time t. */
static void load_items(struct lanes *p, int64_t t, struct session *a) {
    struct pt_error err;
    drop_items(p);
    if (!p->nlanes) return;
    if (lanes_items(p->run, p->lanes[p->cur], step_now(p), &p->items, &err) != 0) {
        session_err(a, "%s", err.msg);
        return;
    }
    p->items_ok = 1;
    p->item = lanes_item_at(&p->items, t + lane_off(p, p->cur));
}

/* Window time of the cursor (its item's start), or the window's middle. */
static int64_t cursor_time(struct lanes *p) {
    if (p->items_ok && p->item >= 0) return p->items.v[p->item].start_ns - lane_off(p, p->cur);
    return p->w0 + (p->w1 - p->w0) / 2;
}

/* Everything for a (new) run, step or lane set, keeping the cursor's time. */
static void rebuild(struct lanes *p, struct session *a, int keep_time) {
    int64_t t = keep_time ? cursor_time(p) : 0;
    p->rng_ok = 0;
    if (make_lanes(p, a) != 0) { session_err(a, "out of memory"); return; }
    reset_window(p);
    load_items(p, keep_time ? t : p->w0, a);
}

/* The app's selected step and rank, when the run has them. */
static void follow_app(struct lanes *p, const struct session *a) {
    const struct cube *c = a->cube;
    if (!c) return;
    if (a->sel_step >= 0 && a->sel_step < c->nsteps)
        for (int i = 0; i < p->nsteps; i++)
            if (p->steps[i] == c->steps[a->sel_step].origin) p->si = i;
    if (a->sel_rank >= 0 && a->sel_rank < c->nranks)
        for (int k = 0; k < p->nlanes; k++)
            if (p->run->ranks[p->lanes[k]].rank == c->ranks[a->sel_rank]) p->cur = k;
}

/* Makes the state for the session's run when it changed (or first). */
static void sync_run(struct lanes *p, struct session *a) {
    const struct trace_run *run = run_of(a);
    if (run == p->run) return;
    p->run = run;
    drop_items(p);
    lanes_grp_drop(&p->grp);   /* the old run's busy index */
    p->bins_ok = 0;
    p->rng_ok = 0;
    if (!run) return;
    p->grp.drilled = -1;
    p->sel = 0;
    if (trace_run_steps(run, &p->steps, &p->nsteps) != 0 || make_lanes(p, a) != 0) {
        session_err(a, "out of memory");
        p->run = NULL;
        return;
    }
    if (p->si >= p->nsteps) p->si = p->nsteps ? p->nsteps - 1 : 0;
    /* more ranks than a screen's rows: grouped, by stage where the run has pipelines */
    p->grp.by = run->nranks <= 64 ? LANEGROUP_OFF : a->layout || lanes_pp_groups(run) ? LANEGROUP_STAGE : LANEGROUP_BLOCK;
    follow_app(p, a);
    rebuild(p, a, 0);
}

/* Tells the session the cursor's step and rank, so the heat map follows. */
static void tell_app(struct lanes *p, struct session *a) {
    const struct cube *c = a->cube;
    if (!c || !p->nlanes) return;
    int si = -1, ri = cube_rank_find(c, p->run->ranks[p->lanes[p->cur]].rank);
    for (int i = 0; i < c->nsteps; i++)
        if (c->steps[i].origin == step_now(p) && (si < 0 || c->steps[i].micro <= 0)) si = i;
    if ((si >= 0 && si != a->sel_step) || (ri >= 0 && ri != a->sel_rank)) session_select(a, si, ri, NAMES_NONE);
}

/* ---- groups (views/lanes_group.c draws them) ---- */

static int grouped(const struct lanes *p) { return p->grp.by != LANEGROUP_OFF && p->grp.drilled < 0; }

static struct lanes_grp_ctx grp_ctx(const struct lanes *p) {
    return (struct lanes_grp_ctx){p->run, p->lanes, p->nlanes, step_now(p), p->align, p->w0, p->w1};
}

/* --parallel's pipeline stage or group of each lane, when a layout is set
 * (NULL: the traces' own groups, or blocks). */
static int *layout_keys(const struct lanes *p, const struct session *a) {
    const struct layout *l = a->layout;
    if (!l || (p->grp.by != LANEGROUP_STAGE && p->grp.by != LANEGROUP_PIPELINE) || l->pp < 1) return NULL;
    int ng = layout_ngroups(l, LAYOUT_PP);
    int *keys = malloc((size_t)(p->nlanes ? p->nlanes : 1) * sizeof *keys), *m = malloc((size_t)l->pp * sizeof *m);
    if (!keys || !m) { free(keys); free(m); return NULL; }
    for (int i = 0; i < p->nlanes; i++) keys[i] = -1;
    for (int g = 0; g < ng; g++) {
        layout_group(l, LAYOUT_PP, g, m);
        for (int j = 0; j < l->pp; j++)
            for (int i = 0; i < p->nlanes; i++)
                if (p->run->ranks[p->lanes[i]].rank == m[j]) keys[i] = p->grp.by == LANEGROUP_STAGE ? j : g;
    }
    free(m);
    return keys;
}

/* The groups of the lanes shown, for rows rows; -1 (said) when they cannot be made. */
static int make_groups(struct lanes *p, struct session *a, int rows) {
    if (p->grp_ok) return 0;
    struct lanes_grp_ctx c = grp_ctx(p);
    struct pt_error err;
    int *keys = layout_keys(p, a);
    int rc = lanes_grp_make(&p->grp, &c, keys, rows, &err);
    free(keys);
    if (rc != 0) {
        session_msg(a, "%s", err.msg);
        p->grp.by = LANEGROUP_OFF;
        return -1;
    }
    p->grp_ok = 1;
    p->bins_ok = 0;
    return 0;
}

/* ---- text ---- */

static const char *cat_word(int cat) { return cat == TRACE_IDLE ? "idle" : trace_cat_name(cat); }

/* The lane's rank, with its layout label: "5 (p0t1d0)". */
static char *lane_label(const struct lanes *p, const struct session *a, int k, char *buf, size_t n) {
    int32_t r = p->run->ranks[p->lanes[k]].rank;
    int ci = a->cube ? cube_rank_find(a->cube, r) : -1;
    if (ci >= 0) session_rank_both(a, ci, buf, n);
    else snprintf(buf, n, "%d", (int)r);
    return buf;
}

/* ---- drawing ---- */

/* The bins of the lanes for nbins bins: made for the lanes drawn
 * (lane_bins), kept until the window or the lanes change. */
static void make_bins(struct lanes *p, struct session *a, int nbins) {
    if (p->bins_ok && p->nbins == nbins) return;
    size_t n = (size_t)(p->nlanes ? p->nlanes : 1);
    uint8_t *b = realloc(p->bins, n * (size_t)nbins), *h = b ? realloc(p->have, n) : NULL;
    if (b) p->bins = b;
    if (h) p->have = h;
    if (!b || !h) { session_err(a, "out of memory"); return; }
    memset(p->have, 0, n);
    p->nbins = nbins;
    p->bins_ok = 1;
}

/* Lane k's bins, made when first drawn; 0, or -1 (said). */
static int lane_bins(struct lanes *p, struct session *a, int k) {
    struct pt_error err;
    if (!p->bins_ok || !p->have || k < 0 || k >= p->nlanes) return -1;
    if (p->have[k]) return 0;
    if (lanes_bin(p->run, p->lanes[k], step_now(p), p->align, p->w0, p->w1, p->nbins, p->bins + (size_t)k * p->nbins,
                  &err) != 0) {
        session_err(a, "%s", err.msg);
        return -1;
    }
    p->have[k] = 1;
    return 0;
}

static void title_row(struct view *v, struct session *a, struct lanes *p, int width) {
    char buf[512], grp[64];
    if (p->group >= 0) snprintf(grp, sizeof grp, "pipeline group %d", p->group);
    else snprintf(grp, sizeof grp, "all ranks");
    snprintf(buf, sizeof buf, "Lanes  step %d (%d/%d)  %d lane%s: %s  %s", (int)step_now(p), p->si + 1, p->nsteps,
             p->nlanes, p->nlanes == 1 ? "" : "s", grp,
             p->align == LANES_STEP ? "each rank from its step start" : "one clock");
    ui_role(v->win, a->ui, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(v->win, 0, 0, width);
    ui_put(v->win, 0, 0, width, buf);
}

/* The time axis: the window's start, middle and end, from the span start. */
static void axis_row(struct view *v, struct session *a, const struct lanes *p, int y, int x, int barw) {
    char l[48], m[48], r[48];
    text_fmt_ns(p->w0 - p->s0, l, sizeof l);
    text_fmt_ns(p->w0 + (p->w1 - p->w0) / 2 - p->s0, m, sizeof m);
    text_fmt_ns(p->w1 - p->s0, r, sizeof r);
    ui_role(v->win, a->ui, UI_AXIS);
    ui_put(v->win, y, x, barw, l);
    int mw = text_width(m), rw = text_width(r), lw = text_width(l);
    if (barw >= lw + mw + rw + 4) ui_put(v->win, y, x + (barw - mw) / 2, mw, m);
    if (barw >= lw + rw + 2) ui_put(v->win, y, x + barw - rw, rw, r);
}

static void legend_row(struct view *v, struct session *a, int y, int width) {
    struct ui *u = a->ui;
    int x = 0;
    for (int k = 0; k < TRACE_NCATS && x < width; k++) {
        uint8_t bin[2] = {(uint8_t)k, (uint8_t)k};
        strip_draw(v->win, u, y, x, 1, bin, 0, lane_classes, LANE_NKINDS, -1, -1);
        x += 2;
        ui_role(v->win, u, UI_HINT);
        x += ui_put(v->win, y, x, width - x, cat_word(k)) + 2;
    }
    if (x + 20 < width) {
        ui_role(v->win, u, UI_DIM);
        ui_put(v->win, y, x, width - x, "h/l kernel  Z/z zoom  ,/. pan  ( ) step  a clock  p group");
    }
}

/* The grouped rows: a group per row, its median and worst per column.
 * -1 when the groups cannot be made (then the lanes are drawn). */
static int draw_groups(struct view *v, struct session *a, struct lanes *p, int h, int width) {
    int rows = h - 3 > 0 ? h - 3 : 1;
    if (p->grp.by == LANEGROUP_BLOCK && p->nvis != rows) p->grp_ok = 0;
    p->nvis = rows;
    if (make_groups(p, a, rows) != 0) return -1;
    struct lanes_grp *g = &p->grp;
    char lab[96], fit[128];
    int labw = 4;
    for (int k = 0; k < g->g.ngroups; k++) {
        int lw = text_width(lanes_grp_label(g, p->run, k, lab, sizeof lab));
        if (lw > labw) labw = lw;
    }
    if (labw > width / 4) labw = width / 4;
    int barw = width - labw - 1;
    if (barw < 1) return 0;
    if (!p->bins_ok || g->nbins != barw) {
        struct lanes_grp_ctx c = grp_ctx(p);
        struct pt_error err;
        if (lanes_grp_dist(g, &c, barw, &err) != 0) { session_err(a, "%s", err.msg); return 0; }
        p->bins_ok = 1;
    }
    if (g->col >= barw) g->col = barw - 1;
    if (g->col < 0) g->col = 0;
    axis_row(v, a, p, 1, labw + 1, barw);
    if (g->cur < g->top) g->top = g->cur;
    if (g->cur >= g->top + rows) g->top = g->cur - rows + 1;
    if (g->top > g->g.ngroups - rows) g->top = g->g.ngroups - rows > 0 ? g->g.ngroups - rows : 0;
    for (int i = 0; i < rows && g->top + i < g->g.ngroups; i++) {
        int k = g->top + i;
        ui_role(v->win, a->ui, k == g->cur ? UI_AXIS_SEL : UI_AXIS);
        text_fit(lanes_grp_label(g, p->run, k, lab, sizeof lab), labw, TEXT_CUT_RIGHT, a->ui->utf8, fit, sizeof fit);
        ui_fill(v->win, 2 + i, 0, labw);
        ui_put(v->win, 2 + i, 0, labw, fit);
        lanes_grp_row(v->win, a->ui, g, k, 2 + i, labw + 1, barw, k == g->cur);
    }
    p->gy = 2;
    p->gx = labw + 1;
    p->barw = barw;
    if (h >= 4) {
        ui_role(v->win, a->ui, UI_HINT);
        ui_put(v->win, h - 1, 0, width, "height: median busy  colour: worst rank >=50% / >=25% / less  "
                                        "Enter its ranks  c rows  v range");
    }
    return 0;
}

/* One lane: label, bar, the rank's step length. */
static void lane_row(struct view *v, struct session *a, struct lanes *p, int k, int y, int labw, int barw, int half) {
    char lab[96], d[48];
    WINDOW *w = v->win;
    ui_role(w, a->ui, k == p->cur ? UI_AXIS_SEL : UI_AXIS);
    char fit[128];
    text_fit(lane_label(p, a, k, lab, sizeof lab), labw, TEXT_CUT_RIGHT, a->ui->utf8, fit, sizeof fit);
    ui_fill(w, y, 0, labw);
    ui_put(w, y, 0, labw, fit);
    int hi0 = -1, hi1 = -1;
    if (k == p->cur && p->items_ok && p->item >= 0) {
        const struct lane_item *it = &p->items.v[p->item];
        int64_t off = lane_off(p, k);
        hi0 = lanes_col(it->start_ns - off, p->w0, p->w1, barw);
        hi1 = lanes_col(it->start_ns + it->dur_ns - off - (it->dur_ns > 0), p->w0, p->w1, barw) + 1;
        if (hi0 < 0) hi0 = 0;
    }
    if (lane_bins(p, a, k) == 0) strip_draw(w, a->ui, y, labw + 1, barw, p->bins + (size_t)k * p->nbins, half, lane_classes,
                               LANE_NKINDS, hi0, hi1);
    int64_t s0, s1;
    if (lane_span(p, k, &s0, &s1)) text_fmt_ns(s1 - s0, d, sizeof d);
    else snprintf(d, sizeof d, "-");
    ui_role(w, a->ui, UI_AXIS);
    ui_put(w, y, labw + 1 + barw + 1, v->w - (labw + barw + 2), d);
}

static void lanes_draw(struct view *v, struct session *a) {
    struct lanes *p = priv_of(v);
    WINDOW *w = v->win;
    int h = v->h, width = v->w;
    werase(w);
    sync_run(p, a);
    if (!p->run || !p->nsteps) {
        ui_role(w, a->ui, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
        ui_fill(w, 0, 0, width);
        ui_put(w, 0, 0, width, "Lanes");
        ui_role(w, a->ui, UI_HINT);
        if (h > 1)
            ui_put(w, 1, 0, width, !a->ds ? "No data loaded."
                   : !p->run ? "No timeline in this data: the lane view needs profiler traces (per-step totals and "
                               "monitor data have no kernels)."
                             : "No ProfilerStep in these traces: no step to lay out.");
        return;
    }
    title_row(v, a, p, width);
    if (h < 3) return;
    if (grouped(p) && draw_groups(v, a, p, h, width) == 0) return;
    int labw = 4;
    for (int k = 0; k < p->nlanes; k++) {
        char lab[96];
        int lw = text_width(lane_label(p, a, k, lab, sizeof lab));
        if (lw > labw) labw = lw;
    }
    if (labw > width / 4) labw = width / 4;
    int durw = 11, barw = width - labw - 1 - durw - 1;
    if (barw < 8) { durw = 0; barw = width - labw - 1; }
    if (barw < 1) return;
    int half = p->half && strip_half_ok(a->ui);
    make_bins(p, a, half ? 2 * barw : barw);
    axis_row(v, a, p, 1, labw + 1, barw);
    int rows = h - 3;   /* title, axis, legend */
    if (rows < 1) rows = h - 2;
    if (p->cur < p->top) p->top = p->cur;
    if (p->cur >= p->top + rows) p->top = p->cur - rows + 1;
    if (p->top > p->nlanes - rows) p->top = p->nlanes - rows > 0 ? p->nlanes - rows : 0;
    for (int i = 0; i < rows && p->top + i < p->nlanes; i++) lane_row(v, a, p, p->top + i, 2 + i, labw, barw, half);
    p->gy = 2;
    p->gx = labw + 1;
    p->barw = barw;
    p->nvis = rows;
    if (h >= 4) legend_row(v, a, h - 1, width);
}

/* ---- keys ---- */

/* Puts the cursor on item i of its lane, panning so it shows. */
static void goto_item(struct lanes *p, long i) {
    if (!p->items_ok || !p->items.n) return;
    if (i < 0) i = 0;
    if (i >= (long)p->items.n) i = (long)p->items.n - 1;
    p->item = i;
    const struct lane_item *it = &p->items.v[i];
    int64_t t = it->start_ns - lane_off(p, p->cur), width = p->w1 - p->w0;
    if (t < p->w0 || t >= p->w1) {
        lanes_pan(&p->w0, &p->w1, t - (p->w0 + width / 2), p->s0, p->s1 > p->s0 ? p->s1 : p->s0 + 1);
        p->bins_ok = 0;
    }
}

static void move_lane(struct lanes *p, struct session *a, long to) {
    if (to < 0) to = 0;
    if (to >= p->nlanes) to = p->nlanes - 1;
    if (to == p->cur) return;
    int64_t t = cursor_time(p);
    p->cur = (int)to;
    load_items(p, t, a);
    tell_app(p, a);
}

static void move_step(struct lanes *p, struct session *a, int dir) {
    int si = p->si + dir;
    if (si < 0 || si >= p->nsteps) { session_msg(a, dir < 0 ? "first step" : "last step"); return; }
    p->si = si;
    rebuild(p, a, 0);
    tell_app(p, a);
}

static void zoom(struct lanes *p, double f) {
    int64_t hi = p->s1 > p->s0 ? p->s1 : p->s0 + 1;
    struct lanes_grp_ctx gc = grp_ctx(p);
    int64_t c = grouped(p) && p->grp_ok ? lanes_grp_col_time(&gc, p->grp.col, p->grp.nbins) : cursor_time(p);
    if (c < p->w0 || c > p->w1) c = p->w0 + (p->w1 - p->w0) / 2;
    lanes_zoom(&p->w0, &p->w1, c, f, p->s0, hi, 100);
    p->bins_ok = 0;
}

/* `v`: the time range's start, then its end (the item or column under the cursor included). */
static void select_range(struct lanes *p) {
    int64_t t0, t1;
    if (grouped(p) && p->grp_ok) {
        struct lanes_grp_ctx c = grp_ctx(p);
        t0 = lanes_grp_col_time(&c, p->grp.col, p->grp.nbins);
        t1 = lanes_grp_col_time(&c, p->grp.col + 1, p->grp.nbins);
    } else {
        t0 = cursor_time(p);
        t1 = p->items_ok && p->item >= 0 ? t0 + p->items.v[p->item].dur_ns : t0 + 1;
    }
    if (p->sel != 1) {
        p->sel0 = t0, p->sel0e = t1 > t0 ? t1 : t0 + 1, p->sel = 1;   /* the status line says so */
        return;
    }
    int64_t a0 = t0 < p->sel0 ? t0 : p->sel0, a1 = t1 > p->sel0e ? t1 : p->sel0e;
    p->sel0 = a0, p->sel1 = a1, p->sel = 2;
    p->rng_ok = 0;
}

static int lane_action(struct view *v, struct session *a, struct lanes *p, int action) {
    int64_t hi = p->s1 > p->s0 ? p->s1 : p->s0 + 1, q = (p->w1 - p->w0) / 4 ? (p->w1 - p->w0) / 4 : 1;
    switch (action) {
    case LA_LEFT: goto_item(p, p->item - 1); return 1;
    case LA_RIGHT: goto_item(p, p->item + 1); return 1;
    case LA_FIRST: goto_item(p, 0); return 1;
    case LA_LAST: goto_item(p, (long)p->items.n - 1); return 1;
    case LA_ZOOMIN: zoom(p, 0.5); return 1;
    case LA_ZOOMOUT: zoom(p, 2); return 1;
    case LA_RESET: reset_window(p); return 1;
    case LA_PANL: lanes_pan(&p->w0, &p->w1, -q, p->s0, hi); p->bins_ok = 0; return 1;
    case LA_PANR: lanes_pan(&p->w0, &p->w1, q, p->s0, hi); p->bins_ok = 0; return 1;
    case LA_STEP_PREV: move_step(p, a, -1); return 1;
    case LA_STEP_NEXT: move_step(p, a, 1); return 1;
    case LA_ALIGN:
        p->align = p->align == LANES_STEP ? LANES_GLOBAL : LANES_STEP;
        rebuild(p, a, 0);   /* the title says which */
        return 1;
    case LA_GROUP: {
        const struct layout *l = a->layout;
        int ng = l ? layout_ngroups(l, LAYOUT_PP) : lanes_pp_groups(p->run);
        if (!ng) {
            session_msg(a, "no pipeline groups: none in the traces (pg_config, group listing); set a layout with --parallel or :parallel");
            return 1;
        }
        p->group = p->group + 1 >= ng ? -1 : p->group + 1;
        p->cur = p->top = 0;
        rebuild(p, a, 0);
        if (p->group < 0) session_msg(a, "lanes: all %d ranks", p->nlanes);
        else session_msg(a, "lanes: pipeline group %d (%d ranks in the traces)", p->group, p->nlanes);
        return 1;
    }
    case LA_TABLES:
        if (!a->host || a->host->show(a, "tables") < 0) session_msg(a, "no kernel tables for this input");
        return 1;
    case LA_GROUPBY: {
        int by = p->grp.by;
        for (int tries = 0; tries < LANEGROUP_NBY; tries++) {
            by = (by + 1) % LANEGROUP_NBY;
            if (by == LANEGROUP_OFF || by == LANEGROUP_BLOCK || a->layout || lanes_pp_groups(p->run)) break;
        }
        p->grp.by = by;
        p->grp.drilled = -1;
        p->grp.cur = p->grp.top = 0;
        rebuild(p, a, 0);
        session_msg(a, by == LANEGROUP_OFF ? "lanes: one per rank" : "lanes grouped by %s", lanegroup_by_name(by));
        return 1;
    }
    case LA_DRILL:
        session_msg(a, p->grp.by == LANEGROUP_OFF ? "Enter opens a group: c groups the lanes" : "already one lane per rank (Esc: the groups)");
        return 1;
    case LA_BACK:
        if (p->grp.drilled >= 0) {
            p->grp.drilled = -1;
            p->cur = p->top = 0;
            rebuild(p, a, 0);
        } else if (p->sel) {
            p->sel = 0;
        } else {
            return 0;
        }
        return 1;
    case LA_SEL: select_range(p); return 1;
    case LA_PIPE:
        if (a->host && a->host->show) a->host->show(a, "pipeline");
        return 1;
    case LA_HALF:
        if (!strip_half_ok(a->ui)) { session_msg(a, "half blocks need colour and UTF-8"); return 1; }
        p->half = !p->half;
        p->bins_ok = 0;
        return 1;
    }
    (void)v;
    return 0;
}

/* The keys that act on the groups when the rows are grouped; 0 for the others. */
static int group_key(struct session *a, struct lanes *p, int action) {
    struct lanes_grp *g = &p->grp;
    int mv = nav_move_of(lanes_nav, action), last = g->nbins > 0 ? g->nbins - 1 : 0;
    if (mv != NAV_NONE) {
        g->cur = nav_target(mv, g->cur, g->g.ngroups, p->nvis > 0 ? p->nvis : 1);
        return 1;
    }
    switch (action) {
    case LA_LEFT: g->col = g->col > 0 ? g->col - 1 : 0; return 1;
    case LA_RIGHT: g->col = g->col < last ? g->col + 1 : last; return 1;
    case LA_FIRST: g->col = 0; return 1;
    case LA_LAST: g->col = last; return 1;
    case LA_DRILL: {
        char lab[64];
        if (g->cur < 0 || g->cur >= g->g.ngroups) return 1;
        g->drilled = g->cur;
        p->cur = p->top = 0;
        rebuild(p, a, 0);
        session_msg(a, "lanes: %s, one lane per rank (Esc: back to the groups)", lanes_grp_label(g, p->run, g->cur, lab, sizeof lab));
        return 1;
    }
    }
    return 0;
}

static int lanes_key(struct view *v, struct session *a, int action, int key) {
    struct lanes *p = priv_of(v);
    (void)key;
    sync_run(p, a);
    if (!p->run || !p->nsteps) return 0;
    if (grouped(p) && p->grp_ok && group_key(a, p, action)) return 1;
    int mv = nav_move_of(lanes_nav, action);
    if (mv != NAV_NONE) {
        move_lane(p, a, nav_target(mv, p->cur, p->nlanes, p->nvis > 0 ? p->nvis : 1));
        return 1;
    }
    return lane_action(v, a, p, action);
}

static int lanes_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct lanes *p = priv_of(v);
    if (!p->run || !p->nlanes) return 0;
    if (m->wheel) {
        move_lane(p, a, p->cur + 3 * m->wheel);
        return 1;
    }
    if (grouped(p) && p->grp_ok) {
        int gk = p->grp.top + m->y - p->gy;
        if (m->button != 1 || m->y < p->gy || gk >= p->grp.g.ngroups || gk >= p->grp.top + p->nvis) return 0;
        p->grp.cur = gk;
        if (m->x >= p->gx && m->x < p->gx + p->barw) p->grp.col = m->x - p->gx;
        return 1;
    }
    int k = p->top + m->y - p->gy;
    if (m->button != 1 || m->y < p->gy || k >= p->nlanes || k >= p->top + p->nvis) return 0;
    move_lane(p, a, k);
    if (m->x >= p->gx && m->x < p->gx + p->barw && p->items_ok) {
        int64_t t = p->w0 + (int64_t)((double)(m->x - p->gx) / p->barw * (double)(p->w1 - p->w0));
        p->item = lanes_item_at(&p->items, t + lane_off(p, p->cur));
    }
    return 1;
}

/* ---- status, notify, life ---- */

/* Line 1: the lane, the step and the item under the cursor (category,
 * phase, start from the step's start, duration); line 2: the kernel's name
 * and stream, then the window shown. */
/* The time range's figures: rank-time per category, then per phase, in % of
 * the range's rank-time over the lanes shown. */
static void range_line(struct lanes *p, char *buf, size_t size) {
    char a0[48], a1[48];
    int64_t base = p->align == LANES_STEP ? 0 : p->s0;
    if (p->sel == 1) {
        snprintf(buf, size, "range from +%s: move, then v", text_fmt_ns(p->sel0 - base, a0, sizeof a0));
        return;
    }
    const struct lanebusy *lb = p->rng_ok ? NULL : index_of(p);
    if (lb) range_of_index(lb, p->lanes, p->nlanes, p->align, p->sel0, p->sel1, &p->rng);
    else if (!p->rng_ok) range_of(p->run, p->lanes, p->nlanes, step_now(p), p->align, p->sel0, p->sel1, &p->rng);
    p->rng_ok = 1;
    const struct range_agg r = p->rng;
    size_t n = (size_t)snprintf(buf, size, "range +%s..+%s %d rank%s:", text_fmt_ns(p->sel0 - base, a0, sizeof a0),
                                text_fmt_ns(p->sel1 - base, a1, sizeof a1), r.nranks, r.nranks == 1 ? "" : "s");
    double tot = r.span_ns > 0 ? (double)r.span_ns : 1;
    static const char *const shortn[TRACE_NCATS] = {"comp", "comm", "mem", "idle"};
    for (int c = 0; c < TRACE_NCATS && n < size; c++)
        n += (size_t)snprintf(buf + n, size - n, " %s %.1f%%", shortn[c], 100.0 * (double)r.cat_ns[c] / tot);
    if (n < size) n += (size_t)snprintf(buf + n, size - n, " |");
    for (int ph = 0; ph < TRACE_NPHASES && n < size; ph++) {
        int64_t t = 0;
        for (int c = 0; c < TRACE_IDLE; c++) t += r.phase_ns[ph][c];
        if (t > 0) n += (size_t)snprintf(buf + n, size - n, " %s %.1f%%", trace_phase_name(ph), 100.0 * (double)t / tot);
    }
}

static void lanes_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct lanes *p = priv_of(v);
    if (!p->run || !p->nlanes || !p->nsteps) { snprintf(buf, size, "no timeline"); return; }
    if (p->sel || (grouped(p) && p->grp_ok)) {
        size_t n;
        if (grouped(p) && p->grp_ok) {
            struct lanes_grp_ctx c = grp_ctx(p);
            n = (size_t)lanes_grp_status(&p->grp, &c, p->align == LANES_STEP ? 0 : p->s0, buf, size);
        } else {
            char lab[96];
            n = (size_t)snprintf(buf, size, "rank %s  step %d", lane_label(p, a, p->cur, lab, sizeof lab), (int)step_now(p));
        }
        if (n + 2 >= size) return;
        buf[n++] = '\n';
        if (p->sel) range_line(p, buf + n, size - n);
        else snprintf(buf + n, size - n, "%sstep %d  %d groups of %d ranks  c: rows  Enter: a group's ranks",
                      p->run->lane_slices ? "lanes downsampled  " : "", (int)step_now(p), p->grp.g.ngroups, p->nlanes);
        return;
    }
    char lab[96], st[48], du[48], w0[48], w1[48], name[200] = "";
    lane_label(p, a, p->cur, lab, sizeof lab);
    size_t n = (size_t)snprintf(buf, size, "rank %s  step %d", lab, (int)step_now(p));
    if (p->run->lane_slices && n < size)   /* a shard's lanes: each category's busy share per slice */
        n += (size_t)snprintf(buf + n, size - n, "  lanes downsampled (%d slices)", p->run->lane_slices);
    if (p->items_ok && p->item >= 0 && n < size) {
        const struct lane_item *it = &p->items.v[p->item];
        int64_t base = p->align == LANES_STEP ? p->items.span0 : p->s0;
        n += (size_t)snprintf(buf + n, size - n, "  %s%s%s%s  start +%s  dur %s", cat_word(it->cat),
                              it->phase != TRACE_PH_NONE ? " (" : "",
                              it->phase != TRACE_PH_NONE ? trace_phase_name(it->phase) : "",
                              it->phase != TRACE_PH_NONE ? ")" : "", text_fmt_ns(it->start_ns - base, st, sizeof st),
                              text_fmt_ns(it->dur_ns, du, sizeof du));
        if (it->name != LANE_IDLE_NAME && it->name < p->run->nnames) {
            char esc[160];
            pt_escape(p->run->names[it->name], strlen(p->run->names[it->name]), esc, sizeof esc);
            snprintf(name, sizeof name, "%s  stream %u", esc, it->stream);
        }
    } else if (n < size) {
        n += (size_t)snprintf(buf + n, size - n, "  (not in this step)");
    }
    if (n >= size) return;
    /* the kernel's name and stream first, then the window, three blanks
     * apart, shortened (then left out) where it does not fit: it ran into
     * "window" at 80 columns */
    char win[200], fit[200];
    int nw = name[0] ? text_width(name) + 3 : 0;
    int k = snprintf(win, sizeof win, "window +%s .. +%s of %s", text_fmt_ns(p->w0 - p->s0, w0, sizeof w0),
                     text_fmt_ns(p->w1 - p->s0, w1, sizeof w1), text_fmt_ns(p->s1 - p->s0, st, sizeof st));
    const char *al = p->align == LANES_STEP ? "from each rank's step start" : "one clock";
    if (nw + k + 2 + text_width(al) <= COLS || !name[0]) snprintf(win + k, sizeof win - (size_t)k, "  %s", al);
    else if (nw + k > COLS) win[0] = '\0';
    if (name[0] && win[0]) snprintf(fit, sizeof fit, "%s   ", name);
    else snprintf(fit, sizeof fit, "%s", name);
    snprintf(buf + n, size - n, "\n%s%s", fit, win);
}

/* y: the kernel under the cursor, then its rank and step. */
static int lanes_copy(struct view *v, struct session *a, char *buf, size_t size) {
    struct lanes *p = priv_of(v);
    if (!p->run || !p->nlanes || !p->nsteps || !p->items_ok || p->item < 0) return 0;
    const struct lane_item *it = &p->items.v[p->item];
    if (it->name == LANE_IDLE_NAME || it->name >= p->run->nnames) return 0;
    char lab[96];
    lane_label(p, a, p->cur, lab, sizeof lab);
    snprintf(buf, size, "%s  rank %s  step %d", p->run->names[it->name], lab, (int)step_now(p));
    return 1;
}

static void lanes_notify(struct view *v, struct session *a, unsigned what) {
    struct lanes *p = priv_of(v);
    if (what & SESSION_CH_DATA) {
        p->run = NULL;
        sync_run(p, a);
        return;
    }
    if (!p->run) return;
    if (what & SESSION_CH_LAYOUT) {
        if (!a->layout) p->group = -1;
        rebuild(p, a, 1);
    }
    if (what & SESSION_CH_CURSOR) {
        int si = p->si, cur = p->cur;
        follow_app(p, a);
        if (si != p->si) rebuild(p, a, 0);
        else if (cur != p->cur) load_items(p, cursor_time(p), a);
    }
}

static int lanes_init(struct view *v, struct session *a, struct pt_error *err) {
    struct lanes *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    p->group = -1;
    p->grp.drilled = -1;
    p->item = -1;
    p->half = 1;
    v->priv = p;
    sync_run(p, a);
    return 0;
}

static void lanes_free(struct view *v) {
    struct lanes *p = priv_of(v);
    if (!p) return;
    lanes_items_free(&p->items);
    lanes_grp_free(&p->grp);
    free(p->steps);
    free(p->lanes);
    free(p->bins);
    free(p->have);
    free(p);
    v->priv = NULL;
}

const struct view_ops view_lanes = {
    .name = "lanes",
    .title = "Lanes",
    .init = lanes_init,
    .free = lanes_free,
    .draw = lanes_draw,
    .key = lanes_key,
    .mouse = lanes_mouse,
    .notify = lanes_notify,
    .status = lanes_status,
    .copy = lanes_copy,
    .hints = "h/l kernel  j/k rank  Z/z zoom  ,/. pan  ( ) step  a clock  p group  c rows  v range  t tables",
    .keys = lanes_keys,
    .nkeys = sizeof lanes_keys / sizeof lanes_keys[0],
};
