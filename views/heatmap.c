/* heatmap: the heat-map pane, msProbe's TREND ANALYZER picture.
 *
 * Shows one cut of the cube (app->metric, ->stat, ->dim, ->dimval): dim
 * step -> x = rank, y = target; rank -> x = step, y = target; module ->
 * x = step, y = rank.  The y axis of the target dims is app->rows (the
 * filtered targets).  The cursor is the session's selected cell, so other panes
 * move it with session_select().
 *
 * Zoom out is per axis: zx x zy source cells become one screen cell showing
 * agg_block() of them (max |value|, non-finite wins); the zoomed grid is
 * cached until the slice, the rows or the zoom change.  Colours: the
 * gradient quantised to the terminal (ui->steps) or the 3-sigma bands,
 * over the finite range of the slice's shown rows narrowed by
 * app->range_lo/hi (cells outside are hidden, as msProbe's slider does). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/anomaly.h"
#include "model/cube/cube_lazy.h"
#include "ui/nav.h"
#include "ui/palette.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/agg.h"
#include "views/heatmap_copy.h"
#include "views/heatmap_runs.h"
#include "views/heatmap_status.h"
#include "views/trend.h"
#include "views/view.h"

enum {
    HM_UP = 1, HM_DOWN, HM_LEFT, HM_RIGHT, HM_PGUP, HM_PGDN, HM_TOP, HM_BOTTOM, HM_FIRSTCOL, HM_LASTCOL,
    HM_ADD, HM_ZOOMOUT, HM_ZOOMIN, HM_RESET, HM_HALF, HM_HALFUP, HM_HALFDN, HM_VALUES, HM_FIRSTPART,
};

static const struct keys_row heat_keys[] = {
    {KEYS_UP, NULL, HM_UP, "move up"}, {'k', NULL, HM_UP, "move up"},
    {KEYS_DOWN, NULL, HM_DOWN, "move down"}, {'j', NULL, HM_DOWN, "move down"},
    {KEYS_LEFT, NULL, HM_LEFT, "move left"}, {'h', NULL, HM_LEFT, "move left"},
    {KEYS_RIGHT, NULL, HM_RIGHT, "move right"}, {'l', NULL, HM_RIGHT, "move right"},
    {KEYS_PGUP, NULL, HM_PGUP, "page up"}, {KEYS_CTRL('u'), NULL, HM_HALFUP, "half a page up"},
    {KEYS_PGDN, NULL, HM_PGDN, "page down"}, {KEYS_CTRL('d'), NULL, HM_HALFDN, "half a page down"},
    {'g', NULL, HM_TOP, "first row"}, {KEYS_HOME, NULL, HM_TOP, "first row"},
    {'G', NULL, HM_BOTTOM, "last row"}, {KEYS_END, NULL, HM_BOTTOM, "last row"},
    {'0', NULL, HM_FIRSTCOL, "first column"}, {'$', NULL, HM_LASTCOL, "last column"},
    {KEYS_ENTER, NULL, HM_ADD, "add the cell's trend to the line chart"},
    {'z', NULL, HM_ZOOMOUT, "zoom out (axes that do not fit aggregate: max |value|, NaN/Inf kept)"},
    {'Z', NULL, HM_ZOOMIN, "zoom in"},
    {'r', NULL, HM_RESET, "reset value range and zoom"},
    {'b', NULL, HM_HALF, "half blocks: two rows per line (colour, UTF-8)"},
    {'v', NULL, HM_VALUES, "values in the cells (cells of 5 columns or more; they widen to 8 where there is room)"},
    {'f', NULL, HM_FIRSTPART, "two runs of trend data: the first step x target where they part (|p-b|/|b| above :threshold)"},
};

struct heat {
    int zx, zy;              /* zoom: source cells per screen cell */
    int x0, y0;              /* first shown column / row, zoomed units */
    int half;                /* user asked for half blocks */
    int values;              /* user asked for the values in the cells (v) */
    /* The slice's finite range and moments over the shown rows. */
    int stats_ok, moments_ok;
    double vmin, vmax, mean, sd;
    size_t nfinite;
    struct palette_bands bands;
    /* Zoomed grid cache. */
    float *agg;
    int agg_w, agg_h, agg_zx, agg_zy, agg_ok;
    /* Finite min/max/count of every value of the current dimension, from one
     * pass over the metric's block, so that `[`/`]` on an unfiltered heat map
     * costs a lookup instead of a scan of the slice (margins_ok = 0: stale). */
    int margins_ok, mdim, mn_count;
    float *mmin, *mmax;
    size_t *mcount;
    /* `:group` rank order from the layout pane: display position -> rank
     * index (rperm) and back (rinv); NULL when ranks show in natural order. */
    uint32_t *rperm;
    int *rinv, rcap;
    int xshift;              /* of the last cut: a slice of rank groups (get_cut) */
    int notensor_shown;      /* the frame drew a no-tensor cell: the legend explains it */
    /* Geometry of the last frame (mouse, paging). */
    int gx0, gy0, cw, vis_x, vis_y, lines, per_line;
    /* The frame's cells holding an msProbe anomaly report: [line][column]
     * of the shown part (marks_w x marks_h), rebuilt every frame. */
    uint8_t *marks;
    size_t marks_cap;
    int marks_w, marks_h;
};

/* --- the cut --- */

struct cut {
    struct cube_slice s;
    int ok;
    int ny;                  /* y source rows */
    const uint32_t *ys;      /* y -> slice y, NULL = identity */
    const uint32_t *xs;      /* x -> slice x, NULL = identity (ranks under :group) */
    int cx, cy;              /* cursor, source coordinates (-1 none) */
};

/* The rank display order for this frame, or NULL (natural order). */
static const uint32_t *rank_order(struct heat *h, struct session *a) {
    int n = a->cube->nranks;
    if (n <= 0) return NULL;
    if (n > h->rcap) {
        uint32_t *p = realloc(h->rperm, (size_t)n * sizeof *p);
        if (p) h->rperm = p;
        int *q = realloc(h->rinv, (size_t)n * sizeof *q);
        if (q) h->rinv = q;
        if (!p || !q) return NULL;
        h->rcap = n;
    }
    if (!a->offers.layout_pane || a->offers.rank_order(a->offers.layout_pane, a, h->rinv, n) != 0) return NULL;
    for (int i = 0; i < n; i++) h->rperm[i] = (uint32_t)h->rinv[i];
    for (int i = 0; i < n; i++) h->rinv[h->rperm[i]] = i;
    return h->rperm;
}

static int get_cut(struct heat *h, struct session *a, struct cut *c) {
    memset(c, 0, sizeof *c);
    c->cx = c->cy = -1;
    if (!a->cube || a->cube->nmetrics == 0 || a->dimval < 0) return 0;
    const uint32_t *ro = a->dim == DIM_RANK ? NULL : rank_order(h, a);
    /* zoomed out over many ranks of a lazy .trend.db: the rank-group
     * summaries when the file has them (model/cube/cube_lazy.h) */
    int zoomed = a->dim == DIM_STEP && !ro && h->zx >= 8;
    if ((zoomed ? cube_slice_zoomed(a->cube, a->metric, a->stat, a->dim, a->dimval, h->zx, &c->s)
                : cube_slice(a->cube, a->metric, a->stat, a->dim, a->dimval, &c->s)) < 0)
        return 0;
    if (c->s.xshift != h->xshift) {   /* from groups to ranks or back: another picture */
        h->xshift = c->s.xshift;
        h->stats_ok = h->moments_ok = h->agg_ok = 0;
    }
    c->ok = 1;
    if (a->dim == DIM_TARGET) {
        c->ny = c->s.ny;
        c->ys = ro;
        c->cx = a->sel_step;
        c->cy = ro && a->sel_rank >= 0 ? h->rinv[a->sel_rank] : a->sel_rank;
    } else {
        c->ny = (int)a->nrows;
        c->ys = a->rows;
        c->xs = a->dim == DIM_STEP ? ro : NULL;
        c->cx = a->dim == DIM_STEP ? (ro && a->sel_rank >= 0 ? h->rinv[a->sel_rank] : a->sel_rank) : a->sel_step;
        uint32_t lt = a->sel_target == NAMES_NONE ? UINT32_MAX : cube_local_target(a->cube, a->metric, a->sel_target);
        c->cy = lt == UINT32_MAX ? -1 : (int)session_row_of(a, lt);
    }
    return 1;
}

static void set_cursor(struct session *a, const struct cut *c, int x, int y) {
    if (x < 0) x = 0;
    if (y < 0) y = 0;
    if (x >= c->s.nx) x = c->s.nx - 1;
    if (y >= c->ny) y = c->ny - 1;
    if (x < 0 || y < 0) return;
    if (a->dim == DIM_TARGET) session_select(a, x, c->ys ? (int)c->ys[y] : y, NAMES_NONE);
    else {
        uint32_t g = a->cube->metrics[a->metric].targets[a->rows[y]];
        if (a->dim == DIM_STEP) session_select(a, -1, c->xs ? (int)c->xs[x] : x, g);
        else session_select(a, x, -1, g);
    }
}

static float src_at(const struct cut *c, int x, int y) {
    return cube_slice_at(&c->s, c->xs ? (int)c->xs[x] : x, c->ys ? (int)c->ys[y] : y);
}

/* The slice's finite range: every frame after a change of metric, statistic,
 * dimension, value or filter, over up to millions of cells, so one tight
 * float pass.  x - x == 0 holds exactly for finite x (Inf, NaN and the
 * missing NaN give NaN). */
static void compute_stats(struct heat *h, const struct cut *c) {
    float mn = INFINITY, mx = -INFINITY;
    size_t k = 0;
    for (int y = 0; y < c->ny; y++) {
        const float *row = c->s.base + (ptrdiff_t)(c->ys ? (int)c->ys[y] : y) * c->s.sy;
        if (!c->xs && c->s.sx == 1 && !c->s.xshift) {
            for (int x = 0; x < c->s.nx; x++) {
                float v = row[x];
                if (v - v != 0.0f) continue;
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
                k++;
            }
        } else {
            for (int x = 0; x < c->s.nx; x++) {
                float v = row[(ptrdiff_t)((c->xs ? (int)c->xs[x] : x) >> c->s.xshift) * c->s.sx];
                if (v - v != 0.0f) continue;
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
                k++;
            }
        }
    }
    h->nfinite = k;
    h->vmin = k ? mn : 0;
    h->vmax = k ? mx : 0;
    h->stats_ok = 1;
    h->moments_ok = 0;
}

/* Ranges of every slice along the current dimension at once. */
static int compute_margins(struct heat *h, const struct session *a) {
    const struct cube *c = a->cube;
    const struct cube_metric *m = &c->metrics[a->metric];
    if (!m->vals) return -1;   /* lazy (model/cube/cube_lazy.h): each slice is scanned when shown */
    int n = a->dim == DIM_STEP ? c->nsteps : a->dim == DIM_RANK ? c->nranks : (int)m->ntargets;
    if (n > h->mn_count) {
        float *x = realloc(h->mmin, (size_t)n * sizeof *x);
        if (x) h->mmin = x;
        float *y = realloc(h->mmax, (size_t)n * sizeof *y);
        if (y) h->mmax = y;
        size_t *z = realloc(h->mcount, (size_t)n * sizeof *z);
        if (z) h->mcount = z;
        if (!x || !y || !z) return -1;
        h->mn_count = n;
    }
    for (int i = 0; i < n; i++) { h->mmin[i] = INFINITY; h->mmax[i] = -INFINITY; h->mcount[i] = 0; }
    const float *blk = m->vals + (size_t)a->stat * m->ntargets * (size_t)c->nsteps * (size_t)c->nranks;
    for (uint32_t t = 0; t < m->ntargets; t++)
        for (int st = 0; st < c->nsteps; st++) {
            const float *row = blk + ((size_t)t * (size_t)c->nsteps + (size_t)st) * (size_t)c->nranks;
            if (a->dim == DIM_RANK) {
                for (int r = 0; r < c->nranks; r++) {
                    float v = row[r];
                    if (v - v != 0.0f) continue;
                    h->mmin[r] = v < h->mmin[r] ? v : h->mmin[r];
                    h->mmax[r] = v > h->mmax[r] ? v : h->mmax[r];
                    h->mcount[r]++;
                }
            } else {
                int i = a->dim == DIM_STEP ? st : (int)t;
                float lo = h->mmin[i], hi = h->mmax[i];
                size_t k = 0;
                for (int r = 0; r < c->nranks; r++) {
                    float v = row[r];
                    if (v - v != 0.0f) continue;
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                    k++;
                }
                h->mmin[i] = lo;
                h->mmax[i] = hi;
                h->mcount[i] += k;
            }
        }
    h->mdim = a->dim;
    h->margins_ok = 1;
    return 0;
}

/* The range of the shown slice: a lookup when every target is shown (no
 * regex or label filter), a scan of the slice otherwise. */
static void slice_range(struct heat *h, struct session *a, const struct cut *c) {
    int unfiltered = !a->regex_mask && !a->label_mask;
    if (unfiltered && (!h->margins_ok || h->mdim != (int)a->dim)) compute_margins(h, a);
    if (unfiltered && h->margins_ok && a->dimval >= 0 && a->dimval < h->mn_count) {
        size_t k = h->mcount[a->dimval];
        h->nfinite = k;
        h->vmin = k ? h->mmin[a->dimval] : 0;
        h->vmax = k ? h->mmax[a->dimval] : 0;
        h->stats_ok = 1;
        h->moments_ok = 0;
        return;
    }
    compute_stats(h, c);
}

/* Mean and standard deviation for the segmented colours, only when they are
 * shown.  Sums are shifted by the first finite value so the variance of
 * values far from zero does not cancel away. */
static void compute_moments(struct heat *h, const struct cut *c) {
    double shift = NAN, sum = 0, sum2 = 0;
    size_t k = 0;
    for (int y = 0; y < c->ny; y++) {
        const float *row = c->s.base + (ptrdiff_t)(c->ys ? (int)c->ys[y] : y) * c->s.sy;
        for (int x = 0; x < c->s.nx; x++) {
            float v = row[(ptrdiff_t)((c->xs ? (int)c->xs[x] : x) >> c->s.xshift) * c->s.sx];
            if (!isfinite(v)) continue;
            if (k == 0) shift = v;
            double d = v - shift;
            sum += d;
            sum2 += d * d;
            k++;
        }
    }
    double m = k ? sum / (double)k : 0;
    double var = k ? sum2 / (double)k - m * m : 0;
    h->mean = k ? shift + m : 0;
    h->sd = var > 0 ? sqrt(var) : 0;
    palette_bands_make(h->mean, h->sd, &h->bands);
    h->moments_ok = 1;
}

static int disp_w(const struct heat *h, const struct cut *c) { return (c->s.nx + h->zx - 1) / h->zx; }
static int disp_h(const struct heat *h, const struct cut *c) { return (c->ny + h->zy - 1) / h->zy; }

static int build_agg(struct heat *h, const struct cut *c) {
    int w = disp_w(h, c), hh = disp_h(h, c);
    if (h->agg_ok && h->agg_w == w && h->agg_h == hh && h->agg_zx == h->zx && h->agg_zy == h->zy) return 0;
    free(h->agg);
    h->agg = malloc((size_t)(w ? w : 1) * (size_t)(hh ? hh : 1) * sizeof *h->agg);
    if (!h->agg) { h->agg_ok = 0; return -1; }
    for (int y = 0; y < hh; y++)
        for (int x = 0; x < w; x++)
            h->agg[(size_t)y * w + x] = agg_block(&c->s, x * h->zx, (x + 1) * h->zx, y * h->zy,
                                                   (y + 1) * h->zy > c->ny ? c->ny : (y + 1) * h->zy, c->xs, c->ys);
    h->agg_w = w;
    h->agg_h = hh;
    h->agg_zx = h->zx;
    h->agg_zy = h->zy;
    h->agg_ok = 1;
    return 0;
}

/* The value shown at zoomed cell (dx, dy). */
static float disp_at(const struct heat *h, const struct cut *c, int dx, int dy) {
    if (h->zx == 1 && h->zy == 1) return src_at(c, dx, dy);
    if (h->agg_ok) return h->agg[(size_t)dy * h->agg_w + dx];
    return agg_block(&c->s, dx * h->zx, (dx + 1) * h->zx, dy * h->zy,
                     (dy + 1) * h->zy > c->ny ? c->ny : (dy + 1) * h->zy, c->xs, c->ys);
}

/* --- colours --- */

struct colouring {
    double lo, hi;
    int nsteps;
    int bg[PALETTE_MAX_STEPS];       /* terminal colour per gradient step / band */
    int nbands;
    int band_bg[PALETTE_MAX_BANDS];
};

static void make_colouring(struct heat *h, struct session *a, struct colouring *k) {
    struct ui *u = a->ui;
    double span = h->vmax - h->vmin;
    k->lo = h->vmin + a->range_lo * span;
    k->hi = h->vmin + a->range_hi * span;
    k->nsteps = u->steps;
    for (int i = 0; i < k->nsteps; i++)
        k->bg[i] = u->ncolors == 0 ? -1
                 : u->ncolors < 256 ? palette_ansi_ramp(i, u->ncolors)
                 : ui_color(u, palette_step_color(i, k->nsteps));
    k->nbands = h->bands.n;
    for (int i = 0; i < k->nbands; i++) k->band_bg[i] = ui_color(u, h->bands.color[i]);
}

/* Colour index of a finite value: gradient step or band; -1 hidden. */
static int level_of(const struct session *a, const struct heat *h, const struct colouring *k, double v) {
    if (v < k->lo || v > k->hi) return -1;
    if (a->color_mode == SESSION_COLOR_SEGMENTED) return palette_band_of(&h->bands, v);
    return palette_quantise(palette_position(v, k->lo, k->hi, a->logscale), k->nsteps);
}

static int level_bg(const struct session *a, const struct colouring *k, int level) {
    if (level < 0) return -1;
    return a->color_mode == SESSION_COLOR_SEGMENTED ? k->band_bg[level] : k->bg[level];
}

static int level_count(const struct session *a, const struct colouring *k) {
    return a->color_mode == SESSION_COLOR_SEGMENTED ? k->nbands : k->nsteps;
}

static int is_light(const struct ui *u, int color) {
    struct rgb c;
    if (color < 0) return 0;
    if (u->truecolor) c = (struct rgb){(uint8_t)(color >> 16), (uint8_t)(color >> 8), (uint8_t)color};
    else c = palette_xterm_rgb(color);
    return c.r * 299 + c.g * 587 + c.b * 114 > 140000;
}

#define CURSOR1(u) ((u)->utf8 ? "\xe2\x96\xa1" : "@")   /* 1-column cursor: the diamond is msProbe's anomaly mark */
#define VALUE_MIN_W 5   /* cells this wide show their value with `v` */
/* Draws one screen cell of width cw at (y, x).  upper/lower: half-block
 * mode draws two values ('lower' ignored when !half). */
static void draw_cell(WINDOW *w, struct session *a, const struct heat *h, const struct colouring *k, int y, int x,
                      int cw, float v, int half, float lower, int cursor) {
    struct ui *u = a->ui;
    char glyph[8] = " ";
    int role = -1;
    float nf = !cube_is_missing(v) && !isfinite(v) ? v : (half && !cube_is_missing(lower) && !isfinite(lower) ? lower : 0);
    if (nf != 0 && !isfinite(nf)) {
        role = isnan(nf) ? UI_NAN : nf > 0 ? UI_PINF : UI_NINF;
        /* The word only when a blank still separates neighbours. */
        const char *word = isnan(nf) ? (cw >= 4 ? "NaN" : "N") : nf > 0 ? (cw >= 5 ? "+Inf" : "+") : (cw >= 5 ? "-Inf" : "-");
        ui_role(w, u, role);
        if (cursor) wattron(w, A_UNDERLINE);
        char cellbuf[16];
        int n = (int)strlen(word);
        if (cursor && cw >= n + 2) {
            snprintf(cellbuf, sizeof cellbuf, "[%s%*s]", word, cw - n - 2, "");
            wattroff(w, A_UNDERLINE);
        } else {
            snprintf(cellbuf, sizeof cellbuf, "%s%*s", word, cw > n ? cw - n : 0, "");
        }
        ui_put(w, y, x, cw, cellbuf);
        return;
    }
    if (cube_is_notensor(v) && (!half || cube_is_missing(lower))) {
        /* a row that describes no tensor (probetop-rules(7), OVERFLOW
         * LEVELS): missing data, marked so it does not pass for absent */
        char cellbuf[32];
        const char *dot = u->utf8 ? "\xc2\xb7" : ".";
        ui_role(w, u, UI_DIM);
        if (cursor && cw >= 3) snprintf(cellbuf, sizeof cellbuf, "[%s%*s]", dot, cw - 3, "");
        else snprintf(cellbuf, sizeof cellbuf, "%s%*s", dot, cw > 1 ? cw - 1 : 0, "");
        if (cursor && cw < 3) wattron(w, A_UNDERLINE);
        ui_put(w, y, x, cw, cellbuf);
        if (cursor && cw < 3) wattroff(w, A_UNDERLINE);
        return;
    }
    int l1 = cube_is_missing(v) ? -1 : level_of(a, h, k, v);
    if (u->ncolors == 0) {
        /* No colour: a shade glyph per level, the cursor in brackets. */
        ui_role(w, u, UI_NORMAL);
        const char *sh = l1 < 0 ? " " : palette_shade(l1, level_count(a, k), u->utf8);
        char buf[64];
        if (h->values && l1 >= 0 && cw >= VALUE_MIN_W) { ui_put(w, y, x, cw, agg_fmt_cell(v, cw, cursor, buf, sizeof buf)); return; }
        size_t len = 0;
        for (int i = 0; i < cw && len + 4 < sizeof buf; i++) {
            const char *g = sh;
            if (cursor && (i == 0 || i == cw - 1)) g = cw == 1 ? CURSOR1(u) : i == 0 ? "[" : "]";
            size_t gl = strlen(g);
            memcpy(buf + len, g, gl);
            len += gl;
        }
        buf[len] = '\0';
        ui_put(w, y, x, cw, buf);
        return;
    }
    int bg = level_bg(a, k, l1), fg = -1;
    if (half) {
        int l2 = cube_is_missing(lower) ? -1 : level_of(a, h, k, lower);
        int bg2 = level_bg(a, k, l2);
        if (!cursor) {
            /* Upper half = foreground of ▀, lower half = background. */
            if (bg < 0 && bg2 < 0) { ui_role(w, u, UI_NORMAL); ui_fill(w, y, x, cw); return; }
            if (bg < 0) { ui_style(w, A_NORMAL, ui_pair(u, bg2, -1)); snprintf(glyph, sizeof glyph, "\xe2\x96\x84"); }
            else { ui_style(w, A_NORMAL, ui_pair(u, bg, bg2)); snprintf(glyph, sizeof glyph, "\xe2\x96\x80"); }
            char buf[64];
            size_t len = 0;
            for (int i = 0; i < cw && len + 4 < sizeof buf; i++) { memcpy(buf + len, glyph, 3); len += 3; }
            buf[len] = '\0';
            ui_put(w, y, x, cw, buf);
            return;
        }
    }
    (void)role;
    int text = h->values && !half && l1 >= 0 && cw >= VALUE_MIN_W;
    if (cursor || text) fg = is_light(u, bg) ? ui_color(u, (struct rgb){0, 0, 0}) : ui_color(u, (struct rgb){255, 255, 255});
    ui_style(w, cursor ? A_BOLD : A_NORMAL, ui_pair(u, fg, bg));
    char buf[32];
    if (text) { ui_put(w, y, x, cw, agg_fmt_cell(v, cw, cursor, buf, sizeof buf)); return; }
    if (!cursor) { ui_fill(w, y, x, cw); return; }
    if (cw == 1) snprintf(buf, sizeof buf, "%s", CURSOR1(u));
    else { memset(buf, ' ', (size_t)cw); buf[0] = '['; buf[cw - 1] = ']'; buf[cw] = '\0'; }
    ui_put(w, y, x, cw, buf);
}

/* --- labels --- */

static void x_label(struct session *a, const struct cut *c, int x, char *buf, size_t size) {
    if (a->dim == DIM_STEP) session_rank_label(a, c->xs ? (int)c->xs[x] : x, buf, size);
    else cube_step_text(a->cube, x, buf, size);
}

static void y_label(struct session *a, const struct cut *c, int y, int width, char *buf, size_t size) {
    if (a->dim == DIM_TARGET) {
        char r[64];
        session_rank_label(a, c->ys ? (int)c->ys[y] : y, r, sizeof r);
        snprintf(buf, size, "%s", r);
        return;
    }
    char full[1024];
    int rank = a->dim == DIM_RANK ? a->dimval : -1;
    session_target_label(a, rank, a->cube->metrics[a->metric].targets[c->ys[y]], full, sizeof full);
    text_short_target(full, width, a->ui->utf8, buf, size);
}

/* --- drawing --- */

static void clamp_scroll(struct heat *h, const struct cut *c, int vis_x, int lines) {
    int dw = disp_w(h, c), dh = disp_h(h, c), per = h->per_line;
    int rows_vis = lines * per;
    if (c->cx >= 0) {
        int dx = c->cx / h->zx;
        if (dx < h->x0) h->x0 = dx;
        if (dx >= h->x0 + vis_x) h->x0 = dx - vis_x + 1;
    }
    if (c->cy >= 0) {
        int dy = c->cy / h->zy;
        if (dy < h->y0) h->y0 = dy - dy % per;
        if (dy >= h->y0 + rows_vis) h->y0 = dy - rows_vis + 1 + (per - 1 - (dy - rows_vis + 1) % per + per) % per;
    }
    if (h->x0 > dw - vis_x) h->x0 = dw - vis_x;
    if (h->y0 > dh - rows_vis) h->y0 = dh - rows_vis;
    if (h->x0 < 0) h->x0 = 0;
    if (h->y0 < 0) h->y0 = 0;
    if (per == 2) h->y0 -= h->y0 % 2;
}

static void draw_title(struct view *v, struct session *a, const struct cut *c, struct heat *h) {
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    char t[256];
    ui_role(w, u, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 0, 0, v->w);
    int n = snprintf(t, sizeof t, "%s Heat map", v->focused ? ui_glyph_focus(u) : " ");
    if (c->ok) {
        const char *xn = a->dim == DIM_STEP ? "rank" : "step";
        const char *yn = a->dim == DIM_TARGET ? "rank" : "target";
        n += snprintf(t + n, sizeof t - (size_t)n, "  x %s (%d)  y %s (%d)", xn, c->s.nx, yn, c->ny);
        if (h->zx > 1 || h->zy > 1) n += snprintf(t + n, sizeof t - (size_t)n, "  zoom %dx%d", h->zx, h->zy);
        if (h->per_line == 2) snprintf(t + n, sizeof t - (size_t)n, "  half");
    }
    ui_put(w, 0, 0, v->w, t);
}

static void draw_legend(struct view *v, struct session *a, struct heat *h, const struct colouring *k, int y) {
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    char lo[32], hi[32];
    int x = 0;
    ui_role(w, u, UI_NORMAL);
    ui_fill(w, y, 0, v->w);
    if (h->nfinite == 0) {
        x += ui_put(w, y, x, v->w - x, "no finite values");
    } else if (a->color_mode == SESSION_COLOR_GRADIENT) {
        palette_fmt_exp2(k->lo, lo, sizeof lo);
        palette_fmt_exp2(k->hi, hi, sizeof hi);
        x += ui_put(w, y, x, v->w - x, lo);
        x += ui_put(w, y, x, v->w - x, " ");
        int bar = v->w / 3;
        if (bar > 32) bar = 32;
        if (bar < 4) bar = 4;
        for (int i = 0; i < bar && x < v->w; i++) {
            int lvl = palette_quantise((i + 0.5) / bar, k->nsteps);
            if (u->ncolors == 0) {
                ui_role(w, u, UI_NORMAL);
                x += ui_put(w, y, x, 1, palette_shade(lvl, k->nsteps, u->utf8));
            } else {
                ui_style(w, A_NORMAL, ui_pair(u, -1, k->bg[lvl]));
                x += ui_put(w, y, x, 1, " ");
            }
        }
        ui_role(w, u, UI_NORMAL);
        x += ui_put(w, y, x, v->w - x, " ");
        x += ui_put(w, y, x, v->w - x, hi);
        if (a->logscale) x += ui_put(w, y, x, v->w - x, " log");
    } else {
        for (int i = 0; i < h->bands.n && x < v->w; i++) {
            char lab[80];
            palette_band_label(&h->bands, i, lab, sizeof lab);
            if (u->ncolors == 0) {
                ui_role(w, u, UI_NORMAL);
                x += ui_put(w, y, x, v->w - x, palette_shade(i, h->bands.n, u->utf8));
                x += ui_put(w, y, x, v->w - x, palette_shade(i, h->bands.n, u->utf8));
            } else {
                ui_style(w, A_NORMAL, ui_pair(u, -1, k->band_bg[i]));
                x += ui_put(w, y, x, v->w - x, "  ");
            }
            ui_role(w, u, UI_NORMAL);
            x += ui_put(w, y, x, v->w - x, " ");
            x += ui_put(w, y, x, v->w - x, lab);
            x += ui_put(w, y, x, v->w - x, "  ");
        }
    }
    /* The non-finite glyphs, so they are readable without colour, and the
     * no-tensor mark. */
    static const struct { int role; const char *g, *t; } nf[4] = {
        {UI_NAN, "N", " NaN"}, {UI_PINF, "+", " +Inf"}, {UI_NINF, "-", " -Inf"}, {UI_DIM, "\xc2\xb7", " no tensor"},
    };
    if (x + 20 <= v->w) {
        x += ui_put(w, y, x, v->w - x, "  ");
        for (int i = 0; i < 4; i++) {
            if (i == 3 && (x + 12 > v->w || !h->notensor_shown)) break;   /* when the frame shows one */
            const char *g = i == 3 && !u->utf8 ? "." : nf[i].g;
            ui_role(w, u, nf[i].role);
            x += ui_put(w, y, x, v->w - x, g);
            ui_role(w, u, UI_NORMAL);
            x += ui_put(w, y, x, v->w - x, nf[i].t);
            x += ui_put(w, y, x, v->w - x, " ");
        }
    }
    /* msProbe's anomaly reports, when the data has them */
    if (a->ds && a->ds->anomalies.placed && x + 10 <= v->w) {
        ui_role(w, u, UI_ANOMALY);
        x += ui_put(w, y, x, v->w - x, u->utf8 ? "\xe2\x97\x86" : "!");
        ui_role(w, u, UI_NORMAL);
        x += ui_put(w, y, x, v->w - x, " anomaly");
    }
}

/* --- anomaly marks --- */

/* The cut coordinates (source x, y) of an anomaly report's cell, or 0 when
 * it is not in this cut (another metric, step, rank or target; filtered). */
static int anomaly_xy(const struct heat *h, struct session *a, const struct cut *c, const struct anomaly *an, int *x,
                      int *y) {
    if (an->metric != a->metric) return 0;
    uint32_t lt = cube_local_target(a->cube, a->metric, an->target);
    if (lt == UINT32_MAX) return 0;
    int rank = an->rank_idx;
    switch (a->dim) {
    case DIM_STEP:
        if (an->step_idx != a->dimval) return 0;
        *x = c->xs ? h->rinv[rank] : rank;
        *y = (int)session_row_of(a, lt);
        return *y >= 0;
    case DIM_RANK:
        if (rank != a->dimval) return 0;
        *x = an->step_idx;
        *y = (int)session_row_of(a, lt);
        return *y >= 0;
    default:
        if ((int)lt != a->dimval) return 0;
        *x = an->step_idx;
        *y = c->ys ? h->rinv[rank] : rank;
        return 1;
    }
}

/* Marks the shown cells (columns x0.., lines of per_line zoomed rows from
 * y0) that hold an anomaly report.  0 marks, or how many were shown. */
static int build_marks(struct heat *h, struct session *a, const struct cut *c, int vis_x, int lines) {
    const struct anomaly_list *al = a->ds ? &a->ds->anomalies : NULL;
    h->marks_w = h->marks_h = 0;
    if (!al || !al->placed || vis_x <= 0 || lines <= 0) return 0;
    size_t need = (size_t)vis_x * (size_t)lines;
    if (need > h->marks_cap) {
        uint8_t *m = realloc(h->marks, need);
        if (!m) return 0;   /* no marks this frame, the map itself still draws */
        h->marks = m;
        h->marks_cap = need;
    }
    memset(h->marks, 0, need);
    h->marks_w = vis_x;
    h->marks_h = lines;
    int shown = 0;
    for (size_t i = 0; i < al->n; i++) {
        int x, y;
        if (al->v[i].metric < 0 || !anomaly_xy(h, a, c, &al->v[i], &x, &y)) continue;
        int dx = x / h->zx - h->x0, line = (y / h->zy - h->y0) / (h->per_line ? h->per_line : 1);
        if (dx < 0 || dx >= vis_x || y / h->zy < h->y0 || line >= lines) continue;
        h->marks[(size_t)line * (size_t)vis_x + (size_t)dx] = 1;
        shown++;
    }
    return shown;
}

/* The mark over a drawn cell: the anomaly glyph in its colour in the
 * cell's last column (inside the cursor's brackets). */
static void draw_mark(WINDOW *w, const struct ui *u, int y, int x, int cw, int cursor) {
    int at = cw >= 3 && cursor ? cw - 2 : cw - 1;
    ui_role(w, u, UI_ANOMALY);
    ui_put(w, y, x + at, 1, u->utf8 ? "\xe2\x97\x86" : "!");
}

static void heat_draw(struct view *v, struct session *a) {
    struct heat *h = v->priv;
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    struct cut c;
    werase(w);
    get_cut(h, a, &c);
    a->shown_ok = 0;
    draw_title(v, a, &c, h);
    if (v->h < 2) return;
    if (!c.ok || c.ny == 0 || c.s.nx == 0) {
        ui_role(w, u, UI_DIM);
        const char *why = !a->cube ? "no data" : a->nrows == 0 && a->dim != DIM_TARGET ? "no target passes the filter"
                        : a->dim == DIM_TARGET && a->nrows == 0 ? "no target passes the filter" : "nothing to show";
        ui_put(w, 1, 1, v->w - 1, why);
        return;
    }
    if (!h->stats_ok) slice_range(h, a, &c);
    if (a->color_mode == SESSION_COLOR_SEGMENTED && !h->moments_ok) compute_moments(h, &c);
    struct colouring k;
    make_colouring(h, a, &k);
    a->shown_lo = k.lo;
    a->shown_hi = k.hi;
    a->shown_ok = h->nfinite > 0;

    int has_xl = v->h >= 4, has_leg = v->h >= 6;
    int gy0 = 1 + has_xl, gy1 = v->h - has_leg;
    int lines = gy1 - gy0;
    if (lines < 1) { lines = 1; gy1 = gy0 + 1; }
    h->per_line = h->half && u->utf8 && u->ncolors > 0 ? 2 : 1;

    /* y label width: what the labels need, at most a third of the pane. */
    int lw;
    if (a->dim == DIM_TARGET) {
        lw = 1;
        char r[64];
        for (int y = 0; y < c.ny; y++) {
            int l = text_width(session_rank_label(a, c.ys ? (int)c.ys[y] : y, r, sizeof r));
            if (l > lw) lw = l;
        }
        lw += 1;
    } else {
        lw = v->w / 3;
        if (lw > 40) lw = 40;
    }
    if (lw > v->w - 2) lw = v->w - 2;
    if (lw < 1) lw = 1;
    int gx0 = lw + 1, gw = v->w - gx0;
    if (gw < 1) gw = 1;
    int dw = disp_w(h, &c);
    int cw = gw / (dw ? dw : 1);
    /* Cells are at most 6 wide, or as wide as the widest x label and a
     * blank when the width is there: Megatron labels (p0t0d0) would
     * otherwise show on every other column only. */
    int cap = 6;
    if (has_xl && dw <= 4096) {
        char lab[64];
        for (int dx = 0; dx < dw; dx++) {
            x_label(a, &c, dx * h->zx, lab, sizeof lab);
            if (text_width(lab) + 1 > cap) cap = text_width(lab) + 1;
        }
    }
    if (h->values && h->per_line == 1 && cap < 8) cap = 8;   /* v: room for 7 digits */
    if (cw > cap) cw = cap;
    if (cw < 1) cw = 1;
    int vis_x = gw / cw;
    if (vis_x > dw) vis_x = dw;
    clamp_scroll(h, &c, vis_x, lines);
    if (h->zx > 1 || h->zy > 1) build_agg(h, &c);
    int dh = disp_h(h, &c);
    int ccx = c.cx >= 0 ? c.cx / h->zx : -1, ccy = c.cy >= 0 ? c.cy / h->zy : -1;

    /* x labels: the cursor's first, then left to right where they fit. */
    if (has_xl) {
        char lab[64];
        int taken_from = -1, taken_to = -1;
        ui_role(w, u, UI_AXIS);
        ui_fill(w, 1, 0, v->w);
        if (ccx >= h->x0 && ccx < h->x0 + vis_x) {
            x_label(a, &c, ccx * h->zx, lab, sizeof lab);
            taken_from = gx0 + (ccx - h->x0) * cw;
            ui_role(w, u, UI_AXIS_SEL);
            taken_to = taken_from + ui_put(w, 1, taken_from, v->w - taken_from, lab);
        }
        ui_role(w, u, UI_AXIS);
        int next = gx0;
        for (int dx = h->x0; dx < h->x0 + vis_x; dx++) {
            int px = gx0 + (dx - h->x0) * cw;
            if (px < next || dx == ccx) continue;
            x_label(a, &c, dx * h->zx, lab, sizeof lab);
            int lwid = text_width(lab);
            if (px + lwid > v->w) break;
            if (taken_from >= 0 && px + lwid >= taken_from && px <= taken_to) continue;
            ui_put(w, 1, px, lwid, lab);
            next = px + lwid + 1;
        }
        ui_put(w, 1, 0, lw, a->dim == DIM_STEP ? "rank" : "step");
    }

    /* Rows. */
    build_marks(h, a, &c, vis_x, lines);
    h->notensor_shown = 0;
    for (int line = 0; line < lines; line++) {
        int dy = h->y0 + line * h->per_line;
        int y = gy0 + line;
        if (dy >= dh) break;
        int sel = ccy == dy || (h->per_line == 2 && ccy == dy + 1);
        char lab[256];
        int ly = sel && h->per_line == 2 ? ccy : dy;
        y_label(a, &c, ly * h->zy, lw, lab, sizeof lab);
        ui_role(w, u, sel ? UI_AXIS_SEL : UI_AXIS);
        int lwid = ui_put(w, y, 0, lw, lab);
        ui_role(w, u, UI_AXIS);
        ui_fill(w, y, lwid, gx0 - lwid);
        for (int dx = h->x0; dx < h->x0 + vis_x; dx++) {
            float val = disp_at(h, &c, dx, dy);
            float lower = h->per_line == 2 && dy + 1 < dh ? disp_at(h, &c, dx, dy + 1) : cube_missing();
            int cur = dx == ccx && (dy == ccy || (h->per_line == 2 && dy + 1 == ccy));
            if (cur && h->per_line == 2 && dy + 1 == ccy) val = lower;
            h->notensor_shown |= cube_is_notensor(val);
            draw_cell(w, a, h, &k, y, gx0 + (dx - h->x0) * cw, cw, val, h->per_line == 2 && !cur, lower, cur);
            if (line < h->marks_h && h->marks[(size_t)line * (size_t)h->marks_w + (size_t)(dx - h->x0)])
                draw_mark(w, u, y, gx0 + (dx - h->x0) * cw, cw, cur);
        }
    }
    if (has_leg) draw_legend(v, a, h, &k, v->h - 1);
    h->gx0 = gx0;
    h->gy0 = gy0;
    h->cw = cw;
    h->vis_x = vis_x;
    h->vis_y = lines;
    h->lines = lines;
}

/* --- input --- */

/* Enter / a double click: the line chart adds the cell's trend (its offer). */
static void add_line(struct session *a) {
    if (a->offers.linechart_pane) a->offers.add_line(a->offers.linechart_pane, a);
    else session_err(a, "there is no line chart on this screen");
}

static int heat_key(struct view *v, struct session *a, int action, int key) {
    struct heat *h = v->priv;
    struct cut c;
    if (!get_cut(h, a, &c)) return 0;
    int x = c.cx < 0 ? 0 : c.cx, y = c.cy < 0 ? 0 : c.cy;
    int page = (h->lines > 1 ? h->lines - 1 : 1) * h->zy * (h->per_line ? h->per_line : 1);
    /* the shared navigation keys (ui/nav.h); a row of the heat map is zy cube rows */
    int mv = nav_of_key(key);
    if (mv == NAV_UP || mv == NAV_DOWN) { set_cursor(a, &c, x, y + (int)nav_delta(mv, 1) * h->zy); return 1; }
    if (mv) { set_cursor(a, &c, x, (int)nav_target(mv, y, c.ny, page)); return 1; }
    switch (action) {
    case HM_UP: set_cursor(a, &c, x, y - h->zy); return 1;
    case HM_DOWN: set_cursor(a, &c, x, y + h->zy); return 1;
    case HM_LEFT: set_cursor(a, &c, x - h->zx, y); return 1;
    case HM_RIGHT: set_cursor(a, &c, x + h->zx, y); return 1;
    case HM_PGUP: set_cursor(a, &c, x, y - page); return 1;
    case HM_PGDN: set_cursor(a, &c, x, y + page); return 1;
    case HM_TOP: set_cursor(a, &c, x, 0); return 1;
    case HM_BOTTOM: set_cursor(a, &c, x, c.ny - 1); return 1;
    case HM_FIRSTCOL: set_cursor(a, &c, 0, y); return 1;
    case HM_LASTCOL: set_cursor(a, &c, c.s.nx - 1, y); return 1;
    case HM_ADD: add_line(a); return 1;
    case HM_ZOOMOUT: {
        int gw = v->w - h->gx0, lines = h->lines * (h->per_line ? h->per_line : 1);
        int zx = agg_zoom_fit(c.s.nx, gw), zy = agg_zoom_fit(c.ny, lines);
        /* Each axis that does not fit doubles, up to what makes it fit. */
        int changed = 0;
        if (h->zx < zx) { h->zx *= 2; changed = 1; }
        if (h->zy < zy) { h->zy *= 2; changed = 1; }
        if (!changed) session_msg(a, "the whole slice fits: nothing to zoom out");
        else session_msg(a, "zoom %dx%d: a cell shows the largest |value| it covers, NaN/Inf if any", h->zx, h->zy);
        h->agg_ok = 0;
        return 1;
    }
    case HM_ZOOMIN:
        if (h->zx == 1 && h->zy == 1) { session_msg(a, "not zoomed out"); return 1; }
        if (h->zx > 1) h->zx /= 2;
        if (h->zy > 1) h->zy /= 2;
        h->agg_ok = 0;
        return 1;
    case HM_RESET:
        h->zx = h->zy = 1;
        h->agg_ok = 0;
        a->range_lo = 0;
        a->range_hi = 1;
        session_changed(a, SESSION_CH_COLOR);
        session_msg(a, "value range and zoom reset");
        return 1;
    case HM_HALF:
        if (!a->ui->utf8 || a->ui->ncolors == 0) { session_msg(a, "half blocks need colour and UTF-8"); return 1; }
        h->half = !h->half;
        return 1;
    case HM_VALUES:
        h->values = !h->values; session_msg(a, h->values ? "values in the cells (v hides them)" : "values hidden"); return 1;
    case HM_FIRSTPART: heatmap_runs_first(a); return 1;
    default: return 0;
    }
}

static int heat_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct heat *h = v->priv;
    struct cut c;
    if (!get_cut(h, a, &c)) return 0;
    if (m->wheel) {
        int x = c.cx < 0 ? 0 : c.cx, y = c.cy < 0 ? 0 : c.cy;
        set_cursor(a, &c, x, y + m->wheel * 3 * h->zy);
        return 1;
    }
    if (m->y < h->gy0 || m->y >= h->gy0 + h->vis_y || m->x < h->gx0 || h->cw < 1) return 1;
    int dx = h->x0 + (m->x - h->gx0) / h->cw;
    int dy = h->y0 + (m->y - h->gy0) * (h->per_line ? h->per_line : 1);
    if (dx >= h->x0 + h->vis_x) return 1;
    set_cursor(a, &c, dx * h->zx, dy * h->zy);
    if (m->dbl) add_line(a);
    return 1;
}

static void heat_notify(struct view *v, struct session *a, unsigned what) {
    struct heat *h = v->priv;
    if (what & (SESSION_CH_DATA | SESSION_CH_METRIC | SESSION_CH_DIM | SESSION_CH_FILTER)) {
        h->stats_ok = 0;
        h->agg_ok = 0;
    }
    if (what & (SESSION_CH_DATA | SESSION_CH_METRIC)) h->margins_ok = 0;
    /* a newer dataset of the input (follow mode) keeps the scroll: the
     * cursor stays where the eye left it unless the rows moved it away */
    if (a->swap_from) return;
    if (what & (SESSION_CH_DATA | SESSION_CH_METRIC | SESSION_CH_FILTER) || (what & SESSION_CH_DIM && !(what & SESSION_CH_CURSOR))) {
        h->y0 = 0;
    }
}

static int heat_init(struct view *v, struct session *a, struct pt_error *err) {
    (void)a;
    struct heat *h = calloc(1, sizeof *h);
    if (!h) return pt_errorf(err, "out of memory");
    h->zx = h->zy = 1;
    h->per_line = 1;
    v->priv = h;
    return 0;
}

static void heat_free(struct view *v) {
    struct heat *h = v->priv;
    if (!h) return;
    free(h->agg);
    free(h->rperm);
    free(h->rinv);
    free(h->mmin);
    free(h->mmax);
    free(h->mcount);
    free(h->marks);
    free(h);
    v->priv = NULL;
}

/* trend data exists in trend and compare modes (the problem run), not for a .vis.db */
static int heat_available(const struct session *a) { return a->mode != SESSION_MODE_VISDB; }

static int cmd_zoom(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    struct heat *h = v->priv;
    long zx, zy;
    char *e1, *e2;
    if (argc != 3) return pt_errorf(err, "usage: :zoom X Y (source cells per screen cell, 1 = none)");
    zx = strtol(argv[1], &e1, 10);
    zy = strtol(argv[2], &e2, 10);
    if (*e1 || *e2 || zx < 1 || zy < 1 || zx > 1000000 || zy > 1000000)
        return pt_errorf(err, ":zoom wants two whole numbers >= 1, got '%s %s'", argv[1], argv[2]);
    h->zx = (int)zx;
    h->zy = (int)zy;
    h->agg_ok = 0;
    a->host->redraw(a);
    return 0;
}

static const struct view_cmd heat_cmds[] = {
    {"zoom", "X Y", "heat map zoom: X source columns and Y source rows per screen cell", 0, cmd_zoom},
    {"threshold", "P", "two runs of trend data: a cell parts above |p-b|/|b| P % (f, default 1)", 0, heatmap_runs_cmd_threshold},
};

const struct view_ops view_heatmap = {
    .name = "heatmap",
    .title = "Heat map",
    .init = heat_init,
    .free = heat_free,
    .available = heat_available,
    .draw = heat_draw,
    .key = heat_key,
    .mouse = heat_mouse,
    .notify = heat_notify,
    .status = heatmap_status,
    .copy = heatmap_copy,
    .hints = "Enter add line  z zoom  x colours  / filter  n/N next match  ? help",
    .keys = heat_keys,
    .nkeys = sizeof heat_keys / sizeof heat_keys[0],
    .cmds = heat_cmds,
    .ncmds = sizeof heat_cmds / sizeof heat_cmds[0],
};
