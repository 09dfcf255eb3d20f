/* linechart: the line-chart pane under the heat map (msProbe's trend lines).
 *
 * Each line is the trend of one heat-map cell along the remaining
 * dimension: dim step -> over steps for (rank, target); dim rank -> over
 * ranks for (step, target); dim module -> over the shown targets for
 * (step, rank).  Lines keep their own coordinates, so moving the dimension
 * value keeps them; changing metric or statistic re-reads them under the
 * new one, changing the dimension turns each into its cell's trend along
 * the new one (lc_follow), and the status line says so.  Drawn on a braille canvas (half blocks or ASCII where
 * braille is not available), y from the visible values clamped to +-1e8
 * (msProbe's display clamp), missing and non-finite points leave a gap and
 * get a marker in the top row.  A vertical cursor shows every line's value
 * at its x in the legend.  Two runs of trend data (src/session/trendpair.h):
 * a cell's trend comes with the same trend in the other run (the problem
 * and the benchmark when the difference is shown), named by its run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/session/swap.h"
#include "src/session/trendpair.h"
#include "ui/canvas.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/agg.h"
#include "views/trend.h"
#include "views/view.h"

#define LC_CLAMP 1e8

enum { LC_LEFT = 1, LC_RIGHT, LC_UP, LC_DOWN, LC_TOGGLE, LC_ZIN, LC_ZOUT, LC_FIRST, LC_LAST, LC_RESET, LC_DELETE };

static const struct keys_row lc_keys[] = {
    {KEYS_LEFT, NULL, LC_LEFT, "cursor left"}, {'h', NULL, LC_LEFT, "cursor left"},
    {KEYS_RIGHT, NULL, LC_RIGHT, "cursor right"}, {'l', NULL, LC_RIGHT, "cursor right"},
    {KEYS_UP, NULL, LC_UP, "previous legend entry"}, {'k', NULL, LC_UP, "previous legend entry"},
    {KEYS_DOWN, NULL, LC_DOWN, "next legend entry"}, {'j', NULL, LC_DOWN, "next legend entry"},
    {' ', NULL, LC_TOGGLE, "hide / show the selected line"},
    {'Z', NULL, LC_ZIN, "zoom in on x around the cursor"},
    {'z', NULL, LC_ZOUT, "zoom out on x"},
    {'g', NULL, LC_FIRST, "cursor to the first x"}, {KEYS_HOME, NULL, LC_FIRST, "cursor to the first x"},
    {'G', NULL, LC_LAST, "cursor to the last x"}, {KEYS_END, NULL, LC_LAST, "cursor to the last x"},
    {'w', NULL, LC_RESET, "show the whole x range (r resets the value range, as everywhere)"},
    {KEYS_DELETE, NULL, LC_DELETE, "remove the selected line"}, {'D', NULL, LC_DELETE, "remove the selected line"},
};

struct line {
    int metric, stat;
    enum cube_dim dim;       /* the heat map's dim when added */
    int step, rank;          /* fixed coordinates (-1 = the varying one) */
    uint32_t target;         /* global id, NAMES_NONE when varying */
    int color;
    int hidden;
    int run;                 /* -1: the shown cube; a trend pair's other run (TRENDPAIR_PROBLEM, _BENCH) */
};

struct lc {
    struct session *session; /* whose offers it filled (cleared by lc_free) */
    struct line *lines;
    int n, cap;
    int sel;
    int cursor;              /* x index */
    int xv0, xv1;            /* shown x range [xv0, xv1); xv1 == 0: all */
    int next_color;
    int metric, stat;
    enum cube_dim dim;
    enum canvas_mode mode;
    int mode_forced;
    /* Geometry of the last frame. */
    int px0, py0, pw, ph, leg_y0, leg_first, leg_rows;
};

/* Points of the series and the value of point i. */
static int npoints(const struct session *a, const struct line *l) {
    if (!a->cube) return 0;
    if (l->dim == DIM_STEP) return a->cube->nsteps;
    if (l->dim == DIM_RANK) return a->cube->nranks;
    return (int)a->nrows;
}

static float point(const struct session *a, const struct line *l, int i) {
    const struct cube *c = a->cube;
    if (l->run >= 0) {   /* the same cell in the other run of a trend pair */
        struct session *sa = (struct session *)a;   /* its translation cache */
        if (l->dim == DIM_STEP) return i < c->nsteps ? trendpair_value(sa, l->run, l->metric, l->stat, i, l->rank, l->target) : cube_missing();
        if (l->dim == DIM_RANK) return i < c->nranks ? trendpair_value(sa, l->run, l->metric, l->stat, l->step, i, l->target) : cube_missing();
        return cube_missing();
    }
    if (l->dim == DIM_TARGET) {
        if (i < 0 || (uint32_t)i >= a->nrows) return cube_missing();
        return cube_get(c, l->metric, l->stat, a->rows[i], l->step, l->rank);
    }
    uint32_t lt = cube_local_target(c, l->metric, l->target);
    if (lt == UINT32_MAX) return cube_missing();
    if (l->dim == DIM_STEP) return cube_get(c, l->metric, l->stat, lt, i, l->rank);
    return cube_get(c, l->metric, l->stat, lt, l->step, i);
}

static void x_label(const struct session *a, const struct line *l, int i, char *buf, size_t size) {
    if (!l || i < 0) { snprintf(buf, size, "?"); return; }
    if (l->dim == DIM_STEP && i < a->cube->nsteps) cube_step_text(a->cube, i, buf, size);
    else if (l->dim == DIM_RANK) session_rank_label(a, i, buf, size);
    else if ((uint32_t)i < a->nrows) snprintf(buf, size, "%u", a->cube->metrics[a->metric].targets[a->rows[i]]);
    else snprintf(buf, size, "?");
}

static void line_name(const struct session *a, const struct line *l, int width, char *buf, size_t size) {
    char t[1024], s[512], rk[160], st[40];
    /* the rank number, and its layout label beside it (--parallel) */
    if (l->dim == DIM_TARGET) {
        session_rank_both(a, l->rank, rk, sizeof rk);
        snprintf(buf, size, "step %s / rank %s", cube_step_text(a->cube, l->step, st, sizeof st), rk);
        return;
    }
    char head[200];
    if (l->dim == DIM_STEP) {
        session_rank_both(a, l->rank, rk, sizeof rk);
        snprintf(head, sizeof head, "rank %s / ", rk);
    } else {
        snprintf(head, sizeof head, "step %s / ", cube_step_text(a->cube, l->step, st, sizeof st));
    }
    session_target_label(a, l->dim == DIM_RANK ? -1 : l->rank, l->target, t, sizeof t);
    if (trendpair_on(a)) {   /* two runs: which one this line is */
        char h2[240];
        int run = l->run >= 0 ? l->run : trendpair_run(a);
        snprintf(h2, sizeof h2, "%s %s", run == TRENDPAIR_BENCH ? "bench" : run == TRENDPAIR_DIFF ? "|p-b|/|b|" : "problem", head);
        snprintf(head, sizeof head, "%s", h2);
    }
    int room = width - text_width(head);
    text_short_target(t, room < 8 ? 8 : room, a->ui ? a->ui->utf8 : 0, s, sizeof s);
    snprintf(buf, size, "%s%s", head, s);
}

/* The line chart's offers (struct session_offers): add the selected
 * cell's trend, clear every line. */
static int lc_add_line(void *linechart_pane, struct session *a) {
    struct lc *lc = linechart_pane;
    if (!a->cube || a->sel_target == NAMES_NONE) { session_err(a, "no cell selected"); return -1; }
    struct line l = {a->metric, a->stat, a->dim, -1, -1, NAMES_NONE, 0, 0, -1};
    if (a->dim == DIM_STEP) { l.rank = a->sel_rank; l.target = a->sel_target; }
    else if (a->dim == DIM_RANK) { l.step = a->sel_step; l.target = a->sel_target; }
    else { l.step = a->sel_step; l.rank = a->sel_rank; }
    for (int i = 0; i < lc->n; i++) {
        const struct line *o = &lc->lines[i];
        if (o->run < 0 && o->dim == l.dim && o->step == l.step && o->rank == l.rank && o->target == l.target &&
            o->metric == l.metric && o->stat == l.stat) {
            lc->sel = i;
            session_msg(a, "that line is already in the chart");
            return 0;
        }
    }
    if (lc->n + 3 > lc->cap) {   /* a trend pair's cell adds up to three */
        int cap = lc->cap ? lc->cap * 2 : 8;
        struct line *nl = realloc(lc->lines, (size_t)cap * sizeof *nl);
        if (!nl) { session_err(a, "out of memory adding a line"); return -1; }
        lc->lines = nl;
        lc->cap = cap;
    }
    if (lc->n == 0) {
        lc->metric = a->metric;
        lc->stat = a->stat;
        lc->dim = a->dim;
        lc->cursor = a->dim == DIM_STEP ? a->sel_step : a->dim == DIM_RANK ? a->sel_rank
                   : (int)session_row_of(a, cube_local_target(a->cube, a->metric, a->sel_target));
        if (lc->cursor < 0) lc->cursor = 0;
    }
    l.color = lc->next_color++ % UI_NSERIES;
    lc->lines[lc->n] = l;
    lc->sel = lc->n++;
    char name[256];
    line_name(a, &l, 60, name, sizeof name);
    session_msg(a, "line %d added: %s", lc->n, name);
    if (trendpair_on(a) && a->dim != DIM_TARGET) {
        /* the other run beside it: the benchmark of the problem and back, both of the difference */
        int shown = trendpair_run(a);
        for (int run = TRENDPAIR_PROBLEM; run <= TRENDPAIR_BENCH; run++) {
            if (run == shown) continue;
            struct line o = l;
            o.run = run;
            o.color = lc->next_color++ % UI_NSERIES;
            lc->lines[lc->n++] = o;
        }
        session_msg(a, "lines added: %s, and the other run's", name);
    }
    a->host->redraw(a);
    return 0;
}

static void lc_clear_lines(void *linechart_pane, struct session *a) {
    struct lc *lc = linechart_pane;
    lc->n = 0;
    lc->sel = 0;
    lc->xv0 = lc->xv1 = 0;
    lc->next_color = 0;
    a->host->redraw(a);
}

/* --- drawing --- */

static void range_x(const struct lc *lc, int np, int *x0, int *x1) {
    *x0 = lc->xv0;
    *x1 = lc->xv1 ? lc->xv1 : np;
    if (*x1 > np) *x1 = np;
    if (*x0 >= *x1) *x0 = *x1 > 0 ? *x1 - 1 : 0;
    if (*x0 < 0) *x0 = 0;
}

static double clampv(double v) { return v > LC_CLAMP ? LC_CLAMP : v < -LC_CLAMP ? -LC_CLAMP : v; }

/* The y range over the shown x range [x0, x1) of the shown lines, padded
 * when flat. */
static void y_range(struct session *a, const struct lc *lc, int x0, int x1, double *ymin_out, double *ymax_out) {
    double ymin = INFINITY, ymax = -INFINITY;
    for (int k = 0; k < lc->n; k++) {
        if (lc->lines[k].hidden) continue;
        for (int i = x0; i < x1; i++) {
            float p = point(a, &lc->lines[k], i);
            if (!isfinite(p)) continue;
            double d = clampv(p);
            if (d < ymin) ymin = d;
            if (d > ymax) ymax = d;
        }
    }
    if (!(ymin <= ymax)) { ymin = 0; ymax = 1; }
    if (ymin == ymax) {
        double pad = ymin == 0 ? 1 : fabs(ymin) * 0.1;
        ymin -= pad;
        ymax += pad;
    }
    *ymin_out = ymin;
    *ymax_out = ymax;
}

/* The plot of the shown lines over x [x0, x1) and y [ymin, ymax], plot_h
 * rows high right of a y axis yw wide, with its axis labels. */
static void draw_plot(struct view *v, struct session *a, struct lc *lc, int x0, int x1, double ymin, double ymax,
                      int plot_h, int yw, const char *ylo, const char *yhi) {
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    int px0 = yw + 1, pw = v->w - px0;
    struct canvas cv;
    if (canvas_init(&cv, lc->mode, pw, plot_h) == 0) {
        int xd = canvas_xdots(&cv), yd = canvas_ydots(&cv);
        int span = x1 - x0;
        /* Markers for non-finite points, per screen column. */
        int *mark = calloc((size_t)pw, sizeof *mark);
        int *mark_series = calloc((size_t)pw, sizeof *mark_series);
        for (int k = 0; k < lc->n; k++) {
            const struct line *l = &lc->lines[k];
            if (l->hidden) continue;
            double px = NAN, py = NAN;
            for (int i = x0; i < x1; i++) {
                float p = point(a, l, i);
                double dx = span > 1 ? (double)(i - x0) * (xd - 1) / (span - 1) : (xd - 1) / 2.0;
                if (!isfinite(p)) {
                    if (!cube_is_missing(p) && mark) {
                        int col = (int)(dx / cv.dw);
                        if (col >= 0 && col < pw) {
                            mark[col] = isnan(p) ? 'N' : p > 0 ? '+' : '-';
                            mark_series[col] = l->color;
                        }
                    }
                    px = py = NAN;
                    continue;
                }
                double dy = (ymax - clampv(p)) / (ymax - ymin) * (yd - 1);
                if (isfinite(px)) canvas_line(&cv, px, py, dx, dy, l->color);
                else canvas_line(&cv, dx, dy, dx, dy, l->color);
                px = dx;
                py = dy;
            }
        }
        int ccol = span > 1 ? (int)((double)(lc->cursor - x0) * (xd - 1) / (span - 1) / cv.dw)
                            : (xd - 1) / 2 / cv.dw;
        for (int cy = 0; cy < plot_h; cy++) {
            for (int cx = 0; cx < pw; cx++) {
                char g[8];
                int s = canvas_cell(&cv, cx, cy, g);
                if (cy == 0 && mark && mark[cx]) {
                    ui_role(w, u, ui_series_role(mark_series[cx]));
                    wattron(w, A_BOLD | A_REVERSE);
                    char m[2] = {(char)mark[cx], 0};
                    ui_put(w, 1 + cy, px0 + cx, 1, m);
                    continue;
                }
                if (s >= 0) {
                    ui_role(w, u, ui_series_role(s));
                    if (cx == ccol) wattron(w, A_REVERSE);
                    ui_put(w, 1 + cy, px0 + cx, 1, g);
                } else if (cx == ccol) {
                    ui_role(w, u, UI_DIM);
                    ui_put(w, 1 + cy, px0 + cx, 1, ui_glyph_vline(u));
                }
            }
        }
        free(mark);
        free(mark_series);
        canvas_free(&cv);
        /* Axes: y labels at the top and bottom, x labels below. */
        ui_role(w, u, UI_AXIS);
        ui_put(w, 1, 0, yw, yhi);
        if (plot_h > 1) ui_put(w, plot_h, 0, yw, ylo);
        for (int cy = 0; cy < plot_h; cy++) ui_put(w, 1 + cy, yw, 1, ui_glyph_vline(u));
        int ay = 1 + plot_h;
        char lab[64];
        x_label(a, &lc->lines[0], x0, lab, sizeof lab);
        int used = ui_put(w, ay, px0, pw, lab);
        x_label(a, &lc->lines[0], x1 - 1, lab, sizeof lab);
        int lw = text_width(lab);
        int rx = px0 + pw - lw;
        if (rx > px0 + used + 1) ui_put(w, ay, rx, lw, lab);
        x_label(a, &lc->lines[0], lc->cursor, lab, sizeof lab);
        lw = text_width(lab);
        int cxp = px0 + ccol - lw / 2;
        if (cxp < px0) cxp = px0;
        if (cxp + lw > v->w) cxp = v->w - lw;
        ui_role(w, u, UI_AXIS_SEL);
        ui_put(w, ay, cxp, lw, lab);
        ui_role(w, u, UI_DIM);
        ui_put(w, ay, 0, yw, lc->dim == DIM_STEP ? "step" : lc->dim == DIM_RANK ? "rank" : "id");
    }
}

/* Legend: colour swatch, name, value at the cursor; leg_rows rows from
 * leg_y0, scrolled to keep the selected line. */
static void draw_legend(struct view *v, struct session *a, struct lc *lc, int leg_y0, int leg_rows) {
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    int first = 0;
    if (lc->sel >= leg_rows) first = lc->sel - leg_rows + 1;
    lc->leg_y0 = leg_y0;
    lc->leg_first = first;
    lc->leg_rows = leg_rows;
    for (int r = 0; r < leg_rows && first + r < lc->n; r++) {
        const struct line *l = &lc->lines[first + r];
        int y = leg_y0 + r;
        int x = 0;
        char name[512], val[32], row[700];
        float p = point(a, l, lc->cursor);
        agg_fmt_value(p, val, sizeof val);
        line_name(a, l, v->w - 24, name, sizeof name);
        int selected = first + r == lc->sel && v->focused;
        ui_role(w, u, selected ? UI_AXIS_SEL : UI_NORMAL);
        x += ui_put(w, y, x, v->w, selected ? ui_glyph_focus(u) : " ");
        ui_role(w, u, ui_series_role(l->color));
        wattron(w, A_BOLD);
        char sw[8];
        snprintf(sw, sizeof sw, "%s", l->hidden ? "-" : u->utf8 ? "\xe2\x96\xa0" : "*");
        x += ui_put(w, y, x, v->w - x, sw);
        ui_role(w, u, l->hidden ? UI_DIM : UI_NORMAL);
        snprintf(row, sizeof row, " %d %s = %s%s", first + r + 1, name, cube_is_missing(p) ? "(no data)" : val,
                 l->hidden ? " (hidden)" : "");
        ui_put(w, y, x, v->w - x, row);
    }
}

static void lc_draw(struct view *v, struct session *a) {
    struct lc *lc = v->priv;
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    werase(w);
    char t[256];
    int np = lc->n ? npoints(a, &lc->lines[0]) : 0;
    ui_role(w, u, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 0, 0, v->w);
    int tn = snprintf(t, sizeof t, "%s Line chart", v->focused ? ui_glyph_focus(u) : " ");
    if (lc->n)
        snprintf(t + tn, sizeof t - (size_t)tn, "  %d line%s over %s  %s/%s", lc->n, lc->n == 1 ? "" : "s",
                 trend_dim_name(lc->dim == DIM_STEP ? DIM_STEP : lc->dim == DIM_RANK ? DIM_RANK : DIM_TARGET),
                 a->cube->metrics[lc->metric].name, a->cube->metrics[lc->metric].stats[lc->stat]);
    ui_put(w, 0, 0, v->w, t);
    if (v->h < 2) return;
    if (lc->n == 0 || np == 0) {
        ui_role(w, u, UI_DIM);
        ui_put(w, 1, 1, v->w - 1, "Enter (or a double click) on a heat-map cell adds its trend here");
        return;
    }
    if (lc->cursor >= np) lc->cursor = np - 1;
    if (lc->cursor < 0) lc->cursor = 0;
    int x0, x1;
    range_x(lc, np, &x0, &x1);
    /* Keep the cursor in view by panning. */
    if (lc->cursor < x0 || lc->cursor >= x1) {
        int span = x1 - x0;
        x0 = lc->cursor - span / 2;
        if (x0 < 0) x0 = 0;
        x1 = x0 + span;
        if (x1 > np) { x1 = np; x0 = np - span < 0 ? 0 : np - span; }
        if (lc->xv1) { lc->xv0 = x0; lc->xv1 = x1; }
    }

    /* Legend rows: as many as lines, at most a third of the pane. */
    int leg_rows = lc->n;
    int max_leg = (v->h - 1) / 3;
    if (max_leg < 1) max_leg = 1;
    if (leg_rows > max_leg) leg_rows = max_leg;
    int plot_h = v->h - 1 - leg_rows - 1;   /* title, legend, x axis */
    int leg_y0 = v->h - leg_rows;
    if (plot_h < 1) {
        plot_h = 0;
        leg_rows = v->h - 1;
        leg_y0 = 1;
    }

    /* y range over the shown x range of the shown lines. */
    double ymin, ymax;
    y_range(a, lc, x0, x1, &ymin, &ymax);
    char ylo[32], yhi[32];
    /* msProbe's tick form, shortened when it would eat the plot. */
    text_fmt_tick(ymin, ylo, sizeof ylo);
    text_fmt_tick(ymax, yhi, sizeof yhi);
    if (text_width(ylo) > 9) text_fmt_compact(ymin, 9, ylo, sizeof ylo);
    if (text_width(yhi) > 9) text_fmt_compact(ymax, 9, yhi, sizeof yhi);
    /* and a blank between the labels and the axis */
    int yw = (text_width(ylo) > text_width(yhi) ? text_width(ylo) : text_width(yhi)) + 1;
    if (yw > 13) yw = 13;
    int px0 = yw + 1, pw = v->w - px0;
    if (plot_h > 0 && pw >= 2) draw_plot(v, a, lc, x0, x1, ymin, ymax, plot_h, yw, ylo, yhi);
    lc->px0 = px0;
    lc->py0 = 1;
    lc->pw = pw;
    lc->ph = plot_h;

    draw_legend(v, a, lc, leg_y0, leg_rows);
}

/* --- input --- */

static void zoom(struct lc *lc, int np, int in) {
    int x0, x1;
    range_x(lc, np, &x0, &x1);
    int span = x1 - x0;
    int ns = in ? span / 2 : span * 2;
    if (ns < 2) ns = 2;
    if (ns >= np) { lc->xv0 = lc->xv1 = 0; return; }
    int nx0 = lc->cursor - ns / 2;
    if (nx0 < 0) nx0 = 0;
    if (nx0 + ns > np) nx0 = np - ns;
    lc->xv0 = nx0;
    lc->xv1 = nx0 + ns;
}

static int lc_key(struct view *v, struct session *a, int action, int key) {
    struct lc *lc = v->priv;
    (void)key;
    int np = lc->n ? npoints(a, &lc->lines[0]) : 0;
    if (action == 0) return 0;
    if (lc->n == 0) {
        session_msg(a, "no lines yet: Enter on a heat-map cell adds one");
        return 1;
    }
    switch (action) {
    case LC_LEFT: if (lc->cursor > 0) lc->cursor--; return 1;
    case LC_RIGHT: if (lc->cursor + 1 < np) lc->cursor++; return 1;
    case LC_UP: if (lc->sel > 0) lc->sel--; return 1;
    case LC_DOWN: if (lc->sel + 1 < lc->n) lc->sel++; return 1;
    case LC_TOGGLE: lc->lines[lc->sel].hidden = !lc->lines[lc->sel].hidden; return 1;
    case LC_ZIN: zoom(lc, np, 1); return 1;
    case LC_ZOUT: zoom(lc, np, 0); return 1;
    case LC_FIRST: lc->cursor = 0; return 1;
    case LC_LAST: lc->cursor = np - 1; return 1;
    case LC_RESET: lc->xv0 = lc->xv1 = 0; session_msg(a, "line chart: whole x range"); return 1;
    case LC_DELETE:
        memmove(&lc->lines[lc->sel], &lc->lines[lc->sel + 1], (size_t)(lc->n - lc->sel - 1) * sizeof *lc->lines);
        lc->n--;
        if (lc->sel >= lc->n && lc->sel > 0) lc->sel--;
        return 1;
    default: return 0;
    }
}

static int lc_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct lc *lc = v->priv;
    int np = lc->n ? npoints(a, &lc->lines[0]) : 0;
    if (!lc->n || np == 0) return 1;
    if (m->wheel) {
        int x0, x1;
        range_x(lc, np, &x0, &x1);
        int step = (x1 - x0) / 10 > 1 ? (x1 - x0) / 10 : 1;
        lc->cursor += m->wheel * step;
        if (lc->cursor < 0) lc->cursor = 0;
        if (lc->cursor >= np) lc->cursor = np - 1;
        return 1;
    }
    if (m->y >= lc->leg_y0 && m->y < lc->leg_y0 + lc->leg_rows) {
        int i = lc->leg_first + (m->y - lc->leg_y0);
        if (i < lc->n) {
            lc->sel = i;
            lc->lines[i].hidden = !lc->lines[i].hidden;
        }
        return 1;
    }
    if (m->y >= lc->py0 && m->y < lc->py0 + lc->ph && m->x >= lc->px0 && lc->pw > 1) {
        int x0, x1;
        range_x(lc, np, &x0, &x1);
        int span = x1 - x0;
        double f = (double)(m->x - lc->px0) / (lc->pw - 1);
        lc->cursor = x0 + (int)lround(f * (span - 1));
        return 1;
    }
    return 1;
}

/* A newer dataset of the same input (follow mode, progressive loading):
 * each line keeps its metric, statistic, step, rank and target by value;
 * a line whose cell is gone goes.  The x cursor keeps its step or rank. */
static void lc_swap(struct lc *lc, struct session *a) {
    int k = 0;
    for (int i = 0; i < lc->n; i++) {
        struct line l = lc->lines[i];
        int m = swap_metric(a, l.metric), s = swap_stat(a, l.metric, l.stat);
        int st = l.step >= 0 ? swap_step(a, l.step) : -1, rk = l.rank >= 0 ? swap_rank(a, l.rank) : -1;
        uint32_t t = l.target != NAMES_NONE ? swap_target(a, l.target) : NAMES_NONE;
        if (m < 0 || s < 0 || (l.step >= 0 && st < 0) || (l.rank >= 0 && rk < 0) || (l.target != NAMES_NONE && t == NAMES_NONE))
            continue;
        l.metric = m;
        l.stat = s;
        l.step = st;
        l.rank = rk;
        l.target = t;
        lc->lines[k++] = l;
    }
    if (lc->sel >= k) lc->sel = k ? k - 1 : 0;
    int m = swap_metric(a, lc->metric), s = swap_stat(a, lc->metric, lc->stat);
    lc->metric = m >= 0 ? m : lc->metric;
    lc->stat = s >= 0 ? s : lc->stat;
    if (lc->dim == DIM_STEP && swap_step(a, lc->cursor) >= 0) lc->cursor = swap_step(a, lc->cursor);
    if (lc->dim == DIM_RANK && swap_rank(a, lc->cursor) >= 0) lc->cursor = swap_rank(a, lc->cursor);
    lc->n = k;
    /* the x zoom keeps its first and last step (or rank) */
    if (lc->xv1 > 0 && lc->dim != DIM_TARGET) {
        int (*map)(const struct session *, int) = lc->dim == DIM_STEP ? swap_step : swap_rank;
        int x0 = map(a, lc->xv0), x1 = map(a, lc->xv1 - 1);
        if (x0 >= 0 && x1 >= x0) {
            lc->xv0 = x0;
            lc->xv1 = x1 + 1;
        } else {
            lc->xv0 = lc->xv1 = 0;
        }
    }
}

/* The cursor's x under dimension dim: its step, rank or target row. */
static int cursor_x(const struct session *a) {
    int x = a->dim == DIM_STEP ? a->sel_step : a->dim == DIM_RANK ? a->sel_rank
          : a->sel_target == NAMES_NONE ? 0 : (int)session_row_of(a, cube_local_target(a->cube, a->metric, a->sel_target));
    return x < 0 ? 0 : x;
}

/* The metric, statistic or dimension changed (m, s, d...): each line is
 * re-read under the new metric and statistic, keeping its step, rank and
 * target; under another dimension it becomes its cell's trend along the
 * new one, the coordinate it lacked taken from the selected cell.  Lines
 * that became the same are merged, a line whose target the new metric
 * does not have goes; the status line says which. */
static void lc_follow(struct lc *lc, struct session *a) {
    int k = 0, merged = 0, gone = 0, redim = a->dim != lc->dim;
    for (int i = 0; i < lc->n; i++) {
        struct line l = lc->lines[i];
        if (l.dim != a->dim) {
            int step = l.step >= 0 ? l.step : a->sel_step, rank = l.rank >= 0 ? l.rank : a->sel_rank;
            uint32_t target = l.target != NAMES_NONE ? l.target : a->sel_target;
            l.step = a->dim == DIM_STEP ? -1 : step;
            l.rank = a->dim == DIM_RANK ? -1 : rank;
            l.target = a->dim == DIM_TARGET ? NAMES_NONE : target;
            l.dim = a->dim;
        }
        l.metric = a->metric;
        l.stat = a->stat;
        if (l.dim != DIM_TARGET && (l.target == NAMES_NONE || cube_local_target(a->cube, l.metric, l.target) == UINT32_MAX)) {
            gone++;
            continue;
        }
        int dup = 0;
        for (int j = 0; j < k && !dup; j++) {
            const struct line *o = &lc->lines[j];
            dup = o->step == l.step && o->rank == l.rank && o->target == l.target;
        }
        if (dup) { merged++; continue; }
        lc->lines[k++] = l;
    }
    lc->n = k;
    if (lc->sel >= k) lc->sel = k ? k - 1 : 0;
    lc->metric = a->metric;
    lc->stat = a->stat;
    if (redim) {
        lc->dim = a->dim;
        lc->cursor = cursor_x(a);
        lc->xv0 = lc->xv1 = 0;
    }
    char more[160] = "";
    int n = 0;
    if (merged) n += snprintf(more + n, sizeof more - (size_t)n, ", %d merged (the same cell now)", merged);
    if (gone && n < (int)sizeof more)
        snprintf(more + n, sizeof more - (size_t)n, ", %d dropped: %s has no such target", gone, a->cube->metrics[a->metric].name);
    if (!k) session_msg(a, "line chart: no line left%s", more);
    else session_msg(a, "line chart: %d line%s re-read%s%s", k, k == 1 ? "" : "s",
                     redim ? " over " : "", redim ? trend_dim_name(a->dim) : "");
    if (k && more[0]) {
        size_t len = strlen(a->msg);
        snprintf(a->msg + len, sizeof a->msg - len, "%s", more);
    }
}

static void lc_notify(struct view *v, struct session *a, unsigned what) {
    struct lc *lc = v->priv;
    if (!lc->n) return;
    int clear = 0;
    if ((what & SESSION_CH_DATA) && a->swap_from && lc->dim != DIM_TARGET) lc_swap(lc, a);
    else if (what & SESSION_CH_DATA) clear = 1;
    if (!clear && a->cube && a->cube->nmetrics && (a->metric != lc->metric || a->stat != lc->stat || a->dim != lc->dim))
        lc_follow(lc, a);
    if ((what & SESSION_CH_FILTER) && lc->dim == DIM_TARGET) clear = 1;
    if (clear) {
        lc->n = 0;
        lc->sel = 0;
        lc->xv0 = lc->xv1 = 0;
        lc->next_color = 0;
    }
}

static void lc_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct lc *lc = v->priv;
    if (!lc->n) { snprintf(buf, size, "no lines: Enter on a heat-map cell adds one"); return; }
    const struct line *l = &lc->lines[lc->sel];
    char name[512], xl[64], val[32];
    line_name(a, l, 200, name, sizeof name);
    x_label(a, l, lc->cursor, xl, sizeof xl);
    float p = point(a, l, lc->cursor);
    agg_fmt_value(p, val, sizeof val);
    snprintf(buf, size, "line %d of %d  %s %s = %s%s\n%s", lc->sel + 1, lc->n,
             lc->dim == DIM_STEP ? "step" : lc->dim == DIM_RANK ? "rank" : "target", xl,
             cube_is_missing(p) ? "(no data)" : val, l->hidden ? "  (hidden)" : "", name);
}

static int lc_init(struct view *v, struct session *a, struct pt_error *err) {
    struct lc *lc = calloc(1, sizeof *lc);
    if (!lc) return pt_errorf(err, "out of memory");
    lc->mode = a->ui && a->ui->utf8 ? CANVAS_BRAILLE : CANVAS_ASCII;
    lc->session = a;
    v->priv = lc;
    a->offers.linechart_pane = lc;
    a->offers.add_line = lc_add_line;
    a->offers.clear_lines = lc_clear_lines;
    return 0;
}

static void lc_free(struct view *v) {
    struct lc *lc = v->priv;
    if (!lc) return;
    if (lc->session->offers.linechart_pane == lc) {
        lc->session->offers.linechart_pane = NULL;
        lc->session->offers.add_line = NULL;
        lc->session->offers.clear_lines = NULL;
    }
    free(lc->lines);
    free(lc);
    v->priv = NULL;
}

static int lc_available(const struct session *a) { return a->mode != SESSION_MODE_VISDB; }

static int cmd_chart(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    struct lc *lc = v->priv;
    if (argc != 2) return pt_errorf(err, "usage: :chart braille|half|ascii");
    if (!strcmp(argv[1], "ascii")) lc->mode = CANVAS_ASCII;
    else if (!a->ui->utf8) return pt_errorf(err, "%s needs a UTF-8 locale (and no --ascii)", argv[1]);
    else if (!strcmp(argv[1], "braille")) lc->mode = CANVAS_BRAILLE;
    else if (!strcmp(argv[1], "half")) lc->mode = CANVAS_HALF;
    else return pt_errorf(err, ":chart wants braille, half or ascii, not '%s'", argv[1]);
    a->host->redraw(a);
    return 0;
}

static const struct view_cmd lc_cmds[] = {
    {"chart", "braille|half|ascii", "how the line chart draws: braille dots, half blocks or ASCII", 0, cmd_chart},
};

const struct view_ops view_linechart = {
    .name = "linechart",
    .title = "Line chart",
    .init = lc_init,
    .free = lc_free,
    .available = lc_available,
    .draw = lc_draw,
    .key = lc_key,
    .mouse = lc_mouse,
    .notify = lc_notify,
    .status = lc_status,
    .hints = "h/l cursor  j/k select  Space hide  z/Z zoom  w whole x  c clear",
    .keys = lc_keys,
    .nkeys = sizeof lc_keys / sizeof lc_keys[0],
    .cmds = lc_cmds,
    .ncmds = sizeof lc_cmds / sizeof lc_cmds[0],
};
