/* layout: the Megatron parallel layout pane.
 *
 * Owns the session's parallel configuration (`:parallel W=32 L=48 TP=4 PP=4
 * V=3 [ORDER] [SE]`, or --parallel SPEC on the command line) and the
 * struct layout built from it (model/layout/layout.h), and shows it as
 * `probetop parallel` does: one row per TP group, one column per virtual
 * pipeline chunk, cells coloured by model copy, a legend.  The row labels
 * stay put while the stage columns scroll.
 *
 * With a layout set it also serves the heat map through the session's label
 * hooks: rank labels by parallel coordinates (p<stage>t<tp>d<copy>), the
 * global layer number of the selected cell for the status line, `:group
 * pp|dp|tp|none` (a rank display order, its rank-order offer), and
 * `:layers global|local`, which swaps the session's cube for a copy whose
 * targets carry global layer indices (layout_cube_global()), so one heat
 * map row is one model layer across all pipeline stages.  The pane owns
 * that copy; the dataset keeps the original. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/cube/cube.h"
#include "model/cube/cube_lazy.h"
#include "model/layout/layout.h"
#include "model/cube/names.h"
#include "src/session/graphs.h"
#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

extern const struct view_ops view_layout;

struct lay {
    struct session *a;
    struct layout_config cfg;
    struct layout *l;          /* owned; a->layout points here while set */
    int *col_w;                /* per chunk: cell width including padding */
    int label_w;               /* the "TP Group" column */
    int group_by;              /* -1 none, else enum layout_dim */
    int global;                /* :layers global */
    struct cube *gcube;        /* owned: a->cube while global */
    const struct cube *gbase;  /* the dataset cube gcube was made from */
    int top, left;             /* first row, first chunk column shown */
    int nvis;                  /* table rows that fit (last draw) */
    char note[sizeof ((struct pt_error *)0)->msg + 16];   /* why there is no layout */
};

enum {
    ACT_DOWN = 1, ACT_UP, ACT_LEFT, ACT_RIGHT, ACT_PGDN, ACT_PGUP, ACT_TOP, ACT_BOTTOM, ACT_HALFDN, ACT_HALFUP,
};

/* the shared navigation keys (ui/nav.h) as this pane's actions */
static const int lay_nav[NAV_COUNT] = {
    [NAV_UP] = ACT_UP, [NAV_DOWN] = ACT_DOWN, [NAV_PGUP] = ACT_PGUP, [NAV_PGDN] = ACT_PGDN,
    [NAV_HALFUP] = ACT_HALFUP, [NAV_HALFDN] = ACT_HALFDN, [NAV_TOP] = ACT_TOP, [NAV_BOTTOM] = ACT_BOTTOM,
};

/* --- hooks for the heat map and the status line ------------------------ */

static const char *hook_rank(void *ctx, int32_t rank, char *buf, size_t size) {
    struct lay *p = ctx;
    if (!p->l || rank < 0 || rank >= p->l->world) return NULL;
    return layout_rank_label(p->l, rank, buf, size);
}

static const char *hook_cell(void *ctx, int32_t step, int32_t rank, uint32_t target, char *buf, size_t size) {
    struct lay *p = ctx;
    const struct cube *c = p->a->cube;
    (void)step;
    if (!p->l || !c || target >= names_count(c->names) || rank < 0 || rank >= p->l->world) return NULL;
    const struct target *t = names_target(c->names, target);
    const char *name = names_str(c->names, target);
    if (p->global) {
        /* The name already carries the global index. */
        long i = layout_find_layer(name, t->len, NULL, NULL);
        if (i < 0) return NULL;
        snprintf(buf, size, "global layer %ld of %d", i + 1, p->l->layers);
        return buf;
    }
    long i = layout_find_layer(name, t->len, NULL, NULL);
    if (i < 0) return NULL;
    int chunk = layout_target_chunk(name, t->len, t->vpp);
    int g = layout_name_global_layer(p->l, rank, chunk, name, t->len);
    if (g < 0) snprintf(buf, size, "layers.%ld is not a layer of rank %d chunk %d in this layout", i, (int)rank, chunk);
    else snprintf(buf, size, "global layer %d of %d (layers.%d)", g, p->l->layers, g - 1);
    return buf;
}

/* The heat map's rank axis order under `:group` (this pane's offer,
 * struct session_offers). */
static int lay_rank_order(void *layout_pane, const struct session *a, int *perm, int n) {
    struct lay *p = layout_pane;
    const struct cube *c = a->cube;
    if (!p || !p->l || p->group_by < 0 || !c || n != c->nranks) return -1;
    int *order = malloc((size_t)p->l->world * sizeof *order);
    if (!order) return -1;
    layout_rank_order(p->l, p->group_by, order);
    int k = 0;
    for (int slot = 0; slot < p->l->world; slot++) {
        int ri = cube_rank_find(c, order[slot]);
        if (ri >= 0) perm[k++] = ri;
    }
    for (int ri = 0; ri < n; ri++)
        if (c->ranks[ri] < 0 || c->ranks[ri] >= p->l->world) perm[k++] = ri;
    free(order);
    return 0;
}

static void hooks_install(struct lay *p) {
    struct session *a = p->a;
    if (p->l) {
        a->layout = p->l;
        a->hooks.ctx = p;
        a->hooks.rank = hook_rank;
        a->hooks.target = NULL;
        a->hooks.cell = hook_cell;
    } else if (a->hooks.ctx == p || a->layout) {
        a->layout = NULL;
        memset(&a->hooks, 0, sizeof a->hooks);
    }
}

/* --- switching the session between the dataset cube and the global one ------- */

/* The dataset's label rules (its reader chose them): the global copy's
 * names follow the same ones. */
static enum label_rules rules_for(const struct session *a) { return a->ds ? a->ds->labels : LABELS_DUMP; }

/* Shows cube c (the dataset's or the global copy) with the selected cell
 * moved to target sel of c. */
static void show_cube(struct lay *p, const struct cube *c, uint32_t sel) {
    struct session *a = p->a;
    struct pt_error err;
    a->cube = c;
    /* Filters are per target id: the label filter cannot carry over; the
     * regex is matched again against the new names. */
    if (a->label_mask) session_set_label_filter(a, NULL, NULL);
    char *re = a->regex ? strdup(a->regex) : NULL;
    if (session_set_regex(a, re, &err) != 0) session_set_regex(a, NULL, &err);
    free(re);
    if (c->nmetrics) session_set_metric(a, a->metric < c->nmetrics ? a->metric : 0, a->metric < c->nmetrics ? a->stat : -1);
    session_select(a, -1, -1, sel);
    session_changed(a, SESSION_CH_DATA | SESSION_CH_LAYOUT);
}

/* The selected target's counterpart in cube `to` (NAMES_NONE when none):
 * the same name renamed (to_global) or the local name that renames to it. */
static uint32_t map_selection(struct lay *p, const struct cube *to, int to_global) {
    struct session *a = p->a;
    const struct cube *from = a->cube;
    if (!from || a->sel_target == NAMES_NONE || a->sel_target >= names_count(from->names)) return NAMES_NONE;
    int32_t rank = a->sel_rank >= 0 && a->sel_rank < from->nranks ? from->ranks[a->sel_rank] : 0;
    const struct target *t = names_target(from->names, a->sel_target);
    const char *name = names_str(from->names, a->sel_target);
    size_t size = t->len + 16;
    char *buf = malloc(size);
    uint32_t id = NAMES_NONE;
    struct pt_error e;
    if (!buf) return NAMES_NONE;
    if (to_global) {
        if (layout_rename(p->l, rank, layout_target_chunk(name, t->len, t->vpp), name, t->len, buf, size, &e) >= 0)
            id = names_find(to->names, buf, strlen(buf), t->vpp, t->call);
    } else {
        /* Few targets share the call and vpp; rename each candidate. */
        uint32_t n = names_count(to->names);
        for (uint32_t k = 0; k < n && id == NAMES_NONE; k++) {
            const struct target *u = names_target(to->names, k);
            if (u->vpp != t->vpp || u->call != t->call) continue;
            const char *cand = names_str(to->names, k);
            if (u->len + 16 > size) continue;
            if (layout_rename(p->l, rank, layout_target_chunk(cand, u->len, u->vpp), cand, u->len, buf, size, &e) >= 0 &&
                strcmp(buf, name) == 0)
                id = k;
        }
    }
    free(buf);
    return id;
}

static int set_global(struct lay *p, int on, struct pt_error *err) {
    struct session *a = p->a;
    if (!on) {
        p->global = 0;
        if (!p->gcube) return 0;
        const struct cube *base = a->ds ? a->ds->cube : NULL;
        struct cube *old = p->gcube;
        if (a->cube == old) {
            if (base) show_cube(p, base, map_selection(p, base, 0));
            else a->cube = NULL;
        }
        p->gcube = NULL;
        p->gbase = NULL;
        cube_free(old);
        return 0;
    }
    if (!p->l) return pt_errorf(err, "no parallel layout: set one with :parallel W=.. L=.. [TP=..] [PP=..] [V=..]");
    const struct cube *base = a->ds ? a->ds->cube : NULL;
    if (!base) return pt_errorf(err, "no data to rename yet");
    if (cube_materialize(a->ds->cube, err) != 0) return -1;   /* a lazy .trend.db: every value at once */
    struct cube *g = NULL;
    if (layout_cube_global(p->l, base, &g, err) != 0) return -1;
    if (names_build_labels(g->names, rules_for(a)) != 0) {
        cube_free(g);
        return pt_errorf(err, "out of memory deriving the labels of the global names");
    }
    /* The selection maps from the local names; from an older global copy
     * it goes through the dataset's names first. */
    uint32_t sel = NAMES_NONE;
    if (a->cube == base) sel = map_selection(p, g, 1);
    struct cube *old = p->gcube;
    p->gcube = g;
    p->gbase = base;
    p->global = 1;
    show_cube(p, g, sel);
    cube_free(old);
    return 0;
}

/* --- the layout itself ------------------------------------------------------ */

static void measure(struct lay *p) {
    char buf[64];
    free(p->col_w);
    p->col_w = NULL;
    p->label_w = 8;
    if (!p->l) return;
    p->col_w = calloc((size_t)p->l->vpp, sizeof *p->col_w);
    if (!p->col_w) return;
    for (int row = 0; row < p->l->nrows; row++) {
        int n = (int)strlen(layout_row_label(p->l, row, buf, sizeof buf));
        if (n > p->label_w) p->label_w = n;
    }
    for (int c = 0; c < p->l->vpp; c++) {
        int w = snprintf(buf, sizeof buf, "Stage %d", c);
        for (int row = 0; row < p->l->nrows; row++) {
            struct layout_chunk ch;
            layout_chunk(p->l, p->l->row_rank[row], c, &ch);
            int n = (int)strlen(layout_chunk_text(&ch, buf, sizeof buf));
            if (n > w) w = n;
        }
        p->col_w[c] = w + 2;
    }
}

/* Replaces the layout with the one `spec` describes ("off" removes it).
 * On an invalid configuration the old layout stays and err says why.
 * Returns 1 when the layout was set but global names could not follow it
 * (the message is in err). */
static int set_layout(struct lay *p, const char *spec, struct pt_error *err) {
    struct session *a = p->a;
    struct layout_config cfg;
    struct layout *l = NULL;
    const char *s = spec ? spec : "";
    while (*s == ' ') s++;
    int off = !strcasecmp(s, "off") || !strcasecmp(s, "none") || !strcasecmp(s, "clear");
    if (!off) {
        if (layout_config_parse(&cfg, s, err) != 0) return -1;
        l = layout_new(&cfg, err);
        if (!l) return -1;
    }
    int was_global = p->global;
    if (was_global) set_global(p, 0, err);
    layout_free(p->l);
    p->l = l;
    if (l) p->cfg = cfg;
    p->top = p->left = 0;
    if (!l) p->group_by = -1;
    measure(p);
    hooks_install(p);
    p->note[0] = '\0';
    int rc = 0;
    if (l && was_global && set_global(p, 1, err) != 0) {
        /* The new layout does not fit the data: keep it, names local. */
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        pt_errorf(err, "layout set, names stay local: %s", why);
        rc = 1;
    }
    session_changed(a, SESSION_CH_LAYOUT);
    return rc;
}

/* --- the pane -------------------------------------------------------------- */

static int lay_init(struct view *v, struct session *a, struct pt_error *err) {
    struct lay *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    p->a = a;
    p->group_by = -1;
    layout_config_init(&p->cfg);
    v->priv = p;
    a->offers.layout_pane = p;
    a->offers.rank_order = lay_rank_order;
    if (a->parallel_arg && a->parallel_arg[0]) {
        struct pt_error e;
        int rc = set_layout(p, a->parallel_arg, &e);
        if (rc < 0) {
            snprintf(p->note, sizeof p->note, "--parallel: %s", e.msg);
            session_err(a, "--parallel: %s", e.msg);
        }
    }
    return 0;
}

static void lay_free(struct view *v) {
    struct lay *p = v->priv;
    if (!p) return;
    struct session *a = p->a;
    if (p->gcube) {
        if (a->cube == p->gcube) a->cube = a->ds ? a->ds->cube : NULL;
        cube_free(p->gcube);
    }
    if (a->hooks.ctx == p) memset(&a->hooks, 0, sizeof a->hooks);
    if (a->offers.layout_pane == p) {
        a->offers.layout_pane = NULL;
        a->offers.rank_order = NULL;
    }
    if (a->layout == p->l) a->layout = NULL;
    layout_free(p->l);
    free(p->col_w);
    free(p);
    v->priv = NULL;
}

static void put_line(WINDOW *w, struct ui *u, int y, int width, int role, const char *s) {
    ui_role(w, u, role);
    int n = ui_put(w, y, 0, width, s);
    ui_fill(w, y, n, width - n);
}

static void cell_style(WINDOW *w, struct ui *u, const struct layout *l, int copy) {
    if (!u->ncolors) {
        ui_style(w, copy % 2 ? A_REVERSE | A_BOLD : A_REVERSE, 0);
        return;
    }
    uint32_t rgb = layout_copy_rgb(l->dp, copy);
    struct rgb bg = {(uint8_t)(rgb >> 16), (uint8_t)(rgb >> 8), (uint8_t)rgb};
    struct rgb fg = layout_rgb_dark(rgb) ? (struct rgb){255, 255, 255} : (struct rgb){0, 0, 0};
    ui_style(w, A_NORMAL, ui_pair(u, ui_color(u, fg), ui_color(u, bg)));
}

static void clamp_scroll(struct lay *p) {
    if (!p->l) return;
    int maxtop = p->l->nrows - (p->nvis > 0 ? p->nvis : 1);
    if (p->top > maxtop) p->top = maxtop;
    if (p->top < 0) p->top = 0;
    if (p->left > p->l->vpp - 1) p->left = p->l->vpp - 1;
    if (p->left < 0) p->left = 0;
}

static void draw_empty(struct view *v, struct session *a, struct lay *p) {
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    const char *lines[] = {
        "No parallel layout.",
        "",
        "Set one with  :parallel W=32 L=48 TP=4 PP=4 V=3 [ORDER] [SE]",
        "  W world size, L layers, TP/PP sizes, V layers per virtual pipeline stage,",
        "  ORDER a rank order such as tp-cp-ep-dp-pp, SE a standalone embedding stage;",
        "or start probetop with  --parallel 'W=32 L=48 TP=4 PP=4 V=3'.",
        "",
        p->note,
    };
    int n = (int)(sizeof lines / sizeof lines[0]);
    for (int y = 0; y < v->h; y++)
        put_line(w, u, y, v->w, y == 0 ? UI_TITLE : y == n - 1 ? UI_ERROR : y < n && y >= 2 ? UI_HINT : UI_NORMAL,
                 y < n ? lines[y] : "");
}

static void lay_draw(struct view *v, struct session *a) {
    struct lay *p = v->priv;
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    if (!w || !p) return;
    const struct layout *l = p->l;
    if (!l || !p->col_w) {
        draw_empty(v, a, p);
        return;
    }
    char buf[512];
    int y = 0, H = v->h, W = v->w;
    /* What fits: title, settings, header, rows, legend; rows first. */
    int show_info = H >= 7, show_legend = H >= 5, show_title = H >= 3;
    int fixed = show_title + show_info + 1 + show_legend;
    p->nvis = H - fixed > 0 ? H - fixed : 0;
    clamp_scroll(p);

    if (show_title) {
        /* msProbe's title; when it does not fit, the numbers go first so
         * that none is cut into another number */
        snprintf(buf, sizeof buf, "Model Parallelism Configuration | Total Layers: %d | DP=%d | TP=%d | PP=%d | VPP=%d",
                 l->layers, l->dp, l->tp, l->pp, l->vpp);
        if (text_width(buf) > W)
            snprintf(buf, sizeof buf, "Total Layers: %d | DP=%d | TP=%d | PP=%d | VPP=%d", l->layers, l->dp, l->tp,
                     l->pp, l->vpp);
        put_line(w, u, y++, W, UI_TITLE, buf);
    }
    if (show_info) {
        /* The session's switches first: the rest is in the title. */
        int k = snprintf(buf, sizeof buf, "Order %s | names %s", l->order, p->global ? "global" : "local");
        if (p->group_by >= 0) k += snprintf(buf + k, sizeof buf - (size_t)k, " | ranks by %s", layout_dim_name(p->group_by));
        k += snprintf(buf + k, sizeof buf - (size_t)k, " | %d layers per pipeline stage", l->lps);
        if (l->vpp_layers) k += snprintf(buf + k, sizeof buf - (size_t)k, " | %d per virtual stage", l->vpp_layers);
        if (l->standalone) snprintf(buf + k, sizeof buf - (size_t)k, " | standalone embedding");
        put_line(w, u, y++, W, UI_HINT, buf);
    }

    /* Header. */
    ui_role(w, u, UI_AXIS);
    snprintf(buf, sizeof buf, "%-*s  %2s  %4s ", p->label_w, "TP Group", "PP", "Copy");
    int x = ui_put(w, y, 0, W, buf);
    x += ui_put(w, y, x, W - x, ui_glyph_vline(u));
    for (int c = p->left; c < l->vpp && x < W; c++) {
        char st[32];
        snprintf(st, sizeof st, "Stage %d", c);
        snprintf(buf, sizeof buf, " %-*s", p->col_w[c], st);
        x += ui_put(w, y, x, W - x, buf);
    }
    if (x < W) ui_fill(w, y, x, W - x);
    y++;

    /* The selected rank's row stands out: where the heat map's cursor is. */
    int sel_row = -1;
    if (a->cube && a->sel_rank >= 0 && a->sel_rank < a->cube->nranks) {
        int32_t r = a->cube->ranks[a->sel_rank];
        if (r >= 0 && r < l->world) sel_row = l->rank[r].group[LAYOUT_TP];
    }
    for (int i = 0; i < p->nvis; i++, y++) {
        int row = p->top + i;
        if (row >= l->nrows) {
            put_line(w, u, y, W, UI_NORMAL, "");
            continue;
        }
        int copy = layout_row_copy(l, row);
        char label[64];
        layout_row_label(l, row, label, sizeof label);
        ui_role(w, u, row == sel_row ? UI_AXIS_SEL : UI_AXIS);
        snprintf(buf, sizeof buf, "%-*s", p->label_w, label);
        x = ui_put(w, y, 0, W, buf);
        ui_role(w, u, UI_NORMAL);
        snprintf(buf, sizeof buf, "  %2d  %4d ", layout_row_stage(l, row), copy + 1);
        x += ui_put(w, y, x, W - x, buf);
        x += ui_put(w, y, x, W - x, ui_glyph_vline(u));
        for (int c = p->left; c < l->vpp && x < W; c++) {
            struct layout_chunk ch;
            char text[64];
            layout_chunk(l, l->row_rank[row], c, &ch);
            layout_chunk_text(&ch, text, sizeof text);
            ui_role(w, u, UI_NORMAL);
            x += ui_put(w, y, x, W - x, " ");
            cell_style(w, u, l, copy);
            snprintf(buf, sizeof buf, " %-*s", p->col_w[c] - 1, text);
            x += ui_put(w, y, x, W - x, buf);
        }
        ui_role(w, u, UI_NORMAL);
        if (x < W) ui_fill(w, y, x, W - x);
    }

    if (show_legend) {
        ui_role(w, u, UI_NORMAL);
        x = ui_put(w, y, 0, W, "Model Copies:");
        for (int j = 0; j < l->dp && x < W; j++) {
            ui_role(w, u, UI_NORMAL);
            x += ui_put(w, y, x, W - x, "  ");
            cell_style(w, u, l, j);
            x += ui_put(w, y, x, W - x, "  ");
            ui_role(w, u, UI_NORMAL);
            snprintf(buf, sizeof buf, " Model Copy %d", j + 1);
            x += ui_put(w, y, x, W - x, buf);
        }
        ui_role(w, u, UI_NORMAL);
        if (x < W) ui_fill(w, y, x, W - x);
        y++;
    }
    for (; y < H; y++) put_line(w, u, y, W, UI_NORMAL, "");
}

static int lay_key(struct view *v, struct session *a, int action, int key) {
    struct lay *p = v->priv;
    (void)a;
    if (!p || !p->l) return 0;
    int page = p->nvis > 1 ? p->nvis - 1 : 1;
    if (nav_of_key(key)) action = lay_nav[nav_of_key(key)];
    switch (action) {
    case ACT_DOWN: case ACT_UP: case ACT_PGDN: case ACT_PGUP: case ACT_HALFDN: case ACT_HALFUP:
        p->top += (int)nav_delta(nav_move_of(lay_nav, action), page);
        break;
    case ACT_LEFT: p->left--; break;
    case ACT_RIGHT: p->left++; break;
    case ACT_TOP: p->top = 0; p->left = 0; break;
    case ACT_BOTTOM: p->top = p->l->nrows; break;
    default: return 0;
    }
    clamp_scroll(p);
    return 1;
}

static int lay_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    if (!m->wheel) return 0;
    return lay_key(v, a, m->wheel < 0 ? ACT_UP : ACT_DOWN, 0);
}

static void lay_resize(struct view *v, struct session *a) {
    (void)a;
    struct lay *p = v->priv;
    if (p) clamp_scroll(p);
}

static void lay_notify(struct view *v, struct session *a, unsigned what) {
    struct lay *p = v->priv;
    if (!p || !(what & SESSION_CH_DATA)) return;
    /* A new dataset: the global copy belongs to the old one. */
    const struct cube *base = a->ds ? a->ds->cube : NULL;
    if (p->gcube && base != p->gbase && a->cube != p->gcube) {
        cube_free(p->gcube);
        p->gcube = NULL;
        p->gbase = NULL;
        if (p->global && base) {
            struct pt_error e;
            if (set_global(p, 1, &e) != 0) {
                p->global = 0;
                session_err(a, "names stay local: %s", e.msg);
            }
        } else {
            p->global = 0;
        }
    }
}

static void lay_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct lay *p = v->priv;
    (void)a;
    if (!p || !p->l) {
        snprintf(buf, size, "no parallel layout: :parallel W=32 L=48 TP=4 PP=4 V=3");
        return;
    }
    char cfg[160];
    int last = p->top + p->nvis < p->l->nrows ? p->top + p->nvis : p->l->nrows;
    snprintf(buf, size, "%s | rows %d-%d of %d | stages from %d of %d", layout_config_format(&p->cfg, cfg, sizeof cfg),
             p->l->nrows ? p->top + 1 : 0, last, p->l->nrows, p->left, p->l->vpp);
}

/* --- `:` commands ------------------------------------------------------------ */

static int cmd_parallel(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    struct lay *p = v && v->ops == &view_layout ? v->priv : NULL;
    if (!p) return pt_errorf(err, "the layout pane is not available");
    const char *spec = argc > 1 ? argv[1] : "";
    while (*spec == ' ') spec++;
    if (!*spec) {
        char cfg[160];
        if (p->l)
            session_msg(a, "parallel layout %s: DP=%d VPP=%d, %d TP groups", layout_config_format(&p->cfg, cfg, sizeof cfg),
                    p->l->dp, p->l->vpp, p->l->nrows);
        else
            session_msg(a, "no parallel layout: :parallel W=32 L=48 TP=4 PP=4 V=3 [ORDER] [SE]");
        return 0;
    }
    int rc = set_layout(p, spec, err);
    if (rc < 0) return -1;
    if (p->l) {
        char cfg[160];
        a->host->show(a, "layout");
        if (rc > 0) session_err(a, "%s", err->msg);
        else session_msg(a, "parallel layout %s: DP=%d VPP=%d", layout_config_format(&p->cfg, cfg, sizeof cfg), p->l->dp,
                     p->l->vpp);
        if (a->cube)
            for (int ri = 0; ri < a->cube->nranks; ri++)
                if (a->cube->ranks[ri] >= p->l->world) {
                    session_err(a, "the data has rank %d but the layout has %d ranks (0-%d)", (int)a->cube->ranks[ri], p->l->world, p->l->world - 1);
                    break;
                }
    } else {
        session_msg(a, "parallel layout removed");
    }
    return 0;
}

static int cmd_group(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    struct lay *p = v && v->ops == &view_layout ? v->priv : NULL;
    if (!p) return pt_errorf(err, "the layout pane is not available");
    if (argc < 2) return pt_errorf(err, "usage: :group pp|dp|tp|none");
    int by;
    if (!strcasecmp(argv[1], "none") || !strcasecmp(argv[1], "off")) by = -1;
    else if ((by = layout_dim_parse(argv[1])) < 0 || by == LAYOUT_CP)
        return pt_errorf(err, "group ranks by pp, dp, tp or none, not '%.40s'", argv[1]);
    if (by >= 0 && !p->l) return pt_errorf(err, "no parallel layout to group by: set one with :parallel W=.. L=..");
    p->group_by = by;
    session_changed(a, SESSION_CH_LAYOUT | SESSION_CH_DIM);
    if (by < 0) session_msg(a, "ranks in rank order");
    else session_msg(a, "ranks grouped by %s", by == LAYOUT_PP ? "pipeline stage" : by == LAYOUT_DP ? "model copy" : "tensor-parallel rank");
    return 0;
}

static int cmd_layers(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    struct lay *p = v && v->ops == &view_layout ? v->priv : NULL;
    if (!p) return pt_errorf(err, "the layout pane is not available");
    if (argc < 2) return pt_errorf(err, "usage: :layers global|local");
    int local = !strcasecmp(argv[1], "local");
    if (!local && strcasecmp(argv[1], "global") != 0) return pt_errorf(err, "layers global or local, not '%.40s'", argv[1]);
    /* what the switch undoes, said after it: the label filter (per target
     * id, it cannot carry over) and, comparing two runs, the run shown
     * (the global names are the problem run's) */
    char said[300] = "";
    int n = 0;
    if (a->label_desc) n = snprintf(said, sizeof said, "; label filter %.120s cleared (/ regex kept)", a->label_desc);
    int run = a->graphs && a->mode == SESSION_MODE_COMPARE ? a->graphs->run : RUN_PROBLEM;
    if (set_global(p, !local, err) != 0) return -1;
    if (run != RUN_PROBLEM && !local && n >= 0 && n < (int)sizeof said) {
        a->graphs->run = RUN_PROBLEM;
        snprintf(said + n, sizeof said - (size_t)n, "; the heat map shows the problem run (R after :layers local)");
    }
    if (local) session_msg(a, "target names as the dump has them (local layer indices)%s", said);
    else session_msg(a, "layers.N is now the global layer index: one row per model layer%s", said);
    return 0;
}

static const struct keys_row lay_keys[] = {
    {'j', NULL, ACT_DOWN, "scroll down"},
    {KEYS_DOWN, NULL, ACT_DOWN, NULL},
    {'k', NULL, ACT_UP, "scroll up"},
    {KEYS_UP, NULL, ACT_UP, NULL},
    {'h', NULL, ACT_LEFT, "scroll the stage columns left"},
    {KEYS_LEFT, NULL, ACT_LEFT, NULL},
    {'l', NULL, ACT_RIGHT, "scroll the stage columns right"},
    {KEYS_RIGHT, NULL, ACT_RIGHT, NULL},
    {KEYS_PGDN, NULL, ACT_PGDN, "page down"},
    {KEYS_PGUP, NULL, ACT_PGUP, "page up"},
    {KEYS_CTRL('d'), NULL, ACT_HALFDN, "half a page down"},
    {KEYS_CTRL('u'), NULL, ACT_HALFUP, "half a page up"},
    {'g', NULL, ACT_TOP, "first row and stage"},
    {KEYS_HOME, NULL, ACT_TOP, NULL},
    {'G', NULL, ACT_BOTTOM, "last row"},
    {KEYS_END, NULL, ACT_BOTTOM, NULL},
};

static const struct view_cmd lay_cmds[] = {
    {"parallel", "W=.. L=.. [TP=..] [PP=..] [V=..] [ORDER] [SE] | off",
     "set the Megatron parallel layout (no argument: show it)", 1, cmd_parallel},
    {"group", "pp|dp|tp|none", "group the heat map's ranks by pipeline stage, model copy or TP rank", 0, cmd_group},
    {"layers", "global|local", "name layers by global index (one row per model layer) or as dumped", 0, cmd_layers},
};

const struct view_ops view_layout = {
    .name = "layout",
    .title = "Parallel layout",
    .init = lay_init,
    .free = lay_free,
    .draw = lay_draw,
    .key = lay_key,
    .mouse = lay_mouse,
    .resize = lay_resize,
    .notify = lay_notify,
    .status = lay_status,
    .hints = "hjkl scroll  :parallel W=.. L=..  :group pp|dp|tp|none  :layers global|local",
    .keys = lay_keys,
    .nkeys = sizeof lay_keys / sizeof lay_keys[0],
    .cmds = lay_cmds,
    .ncmds = sizeof lay_cmds / sizeof lay_cmds[0],
};
