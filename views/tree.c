/* tree pane: the model tree of the problem run, collapsible like ncdu or
 * tig, each node with its verdict against the benchmark.
 *
 * Owns the expand state (one byte per problem node), the visible row list
 * built from it, the cursor, the `/` search, and the three lists that take
 * the pane's place on demand: unmatched nodes of both sides (u), the
 * precision filter (p: leaves at the chosen levels, execution order) and
 * the benchmark pick list of a manual match (M).  The graph itself
 * belongs to src/session/graphs.c (a->graphs->cur); when it is replaced
 * (another rank or step) the pane rebuilds and keeps the selection by node
 * id.  The rows and the lists are built in views/tree_rows.c
 * (views/tree.h between the two).
 *
 * A row: focus, indent, expand marker, verdict chip (a glyph readable
 * without colour: "." pass, "!" warning, "x" error, "?" unmatched, "-"
 * nothing compared; errors shaded deeper red with the continuous error
 * magnitude), overflow mark ("^" + level colour), the short label of
 * probetop-rules(7), GRAPH BUILDING: Labels of tree rows and the node kind. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/overflow.h"
#include "model/util/util.h"
#include "model/cube/search.h"
#include "src/session/graphs.h"
#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/tree.h"
#include "views/view.h"

enum {
    TA_DOWN = 1, TA_UP, TA_PGDN, TA_PGUP, TA_TOP, TA_BOTTOM, TA_OPEN, TA_CLOSE, TA_EXPAND_ALL, TA_COLLAPSE_ALL,
    TA_FIRST, TA_NEXT, TA_PREV, TA_UNMATCHED, TA_PRECISION, TA_MATCH, TA_RANK_PREV, TA_RANK_NEXT, TA_STEP_PREV,
    TA_STEP_NEXT, TA_BACK, TA_F1, TA_F2, TA_F3, TA_F4, TA_YES, TA_HALFDN, TA_HALFUP, TA_FLOW_UP, TA_FLOW_DOWN,
    TA_FLOW_BACK
};

/* the shared navigation keys (ui/nav.h) as this pane's actions */
static const int tree_nav[NAV_COUNT] = {
    [NAV_UP] = TA_UP, [NAV_DOWN] = TA_DOWN, [NAV_PGUP] = TA_PGUP, [NAV_PGDN] = TA_PGDN,
    [NAV_HALFUP] = TA_HALFUP, [NAV_HALFDN] = TA_HALFDN, [NAV_TOP] = TA_TOP, [NAV_BOTTOM] = TA_BOTTOM,
};

/* This pane's offers (struct session_offers), defined with the commands. */
static int tree_goto(void *tree_pane, struct session *a, int32_t step, int32_t rank, const char *name,
                     struct pt_error *err);
static int tree_selected(void *tree_pane, struct session *a, int *side);

static const struct keys_row tree_keys[] = {
    {'j', NULL, TA_DOWN, "next node"}, {KEYS_DOWN, NULL, TA_DOWN, "next node"},
    {'k', NULL, TA_UP, "previous node"}, {KEYS_UP, NULL, TA_UP, "previous node"},
    {KEYS_PGDN, NULL, TA_PGDN, "page down"}, {KEYS_CTRL('d'), NULL, TA_HALFDN, "half a page down"},
    {KEYS_PGUP, NULL, TA_PGUP, "page up"}, {KEYS_CTRL('u'), NULL, TA_HALFUP, "half a page up"},
    {'g', NULL, TA_TOP, "the root"}, {KEYS_HOME, NULL, TA_TOP, "the root"},
    {'G', NULL, TA_BOTTOM, "last row"}, {KEYS_END, NULL, TA_BOTTOM, "last row"},
    {KEYS_ENTER, NULL, TA_OPEN, "expand the node (in a list: go to the node)"},
    {KEYS_RIGHT, NULL, TA_OPEN, "expand the node (in a list: go to the node)"},
    {'l', NULL, TA_OPEN, NULL},
    {KEYS_LEFT, NULL, TA_CLOSE, "collapse, or go to the parent"}, {'h', NULL, TA_CLOSE, NULL},
    {'e', NULL, TA_EXPAND_ALL, "expand everything below the cursor"},
    {'E', NULL, TA_COLLAPSE_ALL, "collapse everything below the cursor"},
    {'f', NULL, TA_FIRST, "the first divergence: earliest error (else warning) in node order, over every step and rank"},
    {'n', NULL, TA_NEXT, "next divergent node in node order (next match after /)"},
    {'N', NULL, TA_PREV, "previous divergent node (previous match after /)"},
    {'u', NULL, TA_UNMATCHED, "list the unmatched nodes of both sides, with counts"},
    {'p', NULL, TA_PRECISION, "precision filter: leaves at error / warning / pass / unmatched"},
    {'1', NULL, TA_F1, "precision list: show/hide pass"}, {'2', NULL, TA_F2, "precision list: show/hide warning"},
    {'3', NULL, TA_F3, "precision list: show/hide error"}, {'4', NULL, TA_F4, "precision list: show/hide unmatched"},
    {'M', NULL, TA_MATCH, "manual match: mark this unmatched node, then pick the benchmark node"},
    {'y', NULL, TA_YES, "confirm a manual match"},
    {'{', NULL, TA_RANK_PREV, "previous rank"}, {'}', NULL, TA_RANK_NEXT, "next rank"},
    {'(', NULL, TA_STEP_PREV, "previous step"}, {')', NULL, TA_STEP_NEXT, "next step"},
    {KEYS_ESC, NULL, TA_BACK, "leave a list / cancel a match / clear the search, then the data-flow walk"},
    {'<', NULL, TA_FLOW_UP, "data flow: the node that produced this node's input (a NaN/Inf one first; a recv's sender)"},
    {'>', NULL, TA_FLOW_DOWN, "data flow: the node that consumed this node's output (a NaN/Inf one first; a send's receiver)"},
    {KEYS_BACKSPACE, NULL, TA_FLOW_BACK, "data flow: one hop back along the walk (the breadcrumb)"}, {'b', NULL, TA_FLOW_BACK, NULL},
};

/* ---- drawing ---- */

static struct rgb mark_rgb(int mark, double mag) {
    switch (mark) {
    case AM_PASS: return (struct rgb){0xff, 0xfc, 0xf3};
    case AM_WARN: return (struct rgb){0xff, 0xdc, 0x7f};
    case AM_ERROR: {
        /* msProbe's #FF704D for the smallest error, deepening to #A00000 */
        double t = mag < 0 ? 0 : mag > 1 ? 1 : mag;
        return (struct rgb){(uint8_t)(0xff - t * 0x5f), (uint8_t)(0x70 - t * 0x70), (uint8_t)(0x4d - t * 0x4d)};
    }
    case AM_UNMATCHED: return (struct rgb){0xc7, 0xc7, 0xc7};
    default: return (struct rgb){0xff, 0xff, 0xff};
    }
}

static const char *mark_glyph(const struct ui *u, int mark) {
    switch (mark) {
    case AM_PASS: return u->utf8 ? "\xe2\x80\xa2" : ".";
    case AM_WARN: return "!";
    case AM_ERROR: return u->utf8 ? "\xc3\x97" : "x";
    case AM_UNMATCHED: return "?";
    case AM_NODATA: return "-";
    default: return " ";
    }
}

static int mark_role(int mark) {
    return mark == AM_PASS ? UI_OK : mark == AM_WARN ? UI_WARN : mark == AM_ERROR ? UI_BAD : UI_DIM;
}

/* The verdict chip: black glyph on msProbe's fill colour, or the role
 * colour on terminals with few colours. */
static void put_chip(WINDOW *w, struct ui *u, int y, int x, int mark, double mag) {
    if (mark == AM_NONE) {
        ui_role(w, u, UI_NORMAL);
        ui_put(w, y, x, 1, " ");
        return;
    }
    if (u->ncolors >= 256) {
        int pair = ui_pair(u, ui_color(u, (struct rgb){0, 0, 0}), ui_color(u, mark_rgb(mark, mag)));
        ui_style(w, mark == AM_ERROR ? A_BOLD : A_NORMAL, pair);
    } else {
        ui_role(w, u, mark_role(mark));
    }
    ui_put(w, y, x, 1, mark_glyph(u, mark));
}

static void put_ovf(WINDOW *w, struct ui *u, int y, int x, int level) {
    if (!level) {
        ui_role(w, u, UI_NORMAL);
        ui_put(w, y, x, 1, " ");
        return;
    }
    ui_role(w, u, level == OVF_CRITICAL ? UI_NAN : level == OVF_HIGH ? UI_PINF : UI_HINT);
    ui_put(w, y, x, 1, u->utf8 ? "\xe2\x86\x91" : "^");
}

/* The label with the `/` match highlighted. */
static int put_label(WINDOW *w, struct ui *u, struct search *re, int y, int x, int width, const char *text, int role) {
    char fit[1200];
    text_fit(text, width, TEXT_CUT_MIDDLE, u->utf8, fit, sizeof fit);
    size_t so, eo;
    if (search_active(re) && !strcmp(fit, text) && search_find(re, text, strlen(text), 0, &so, &eo) == 1) {
        char part[1200];
        int cx = x;
        snprintf(part, sizeof part, "%.*s", (int)so, text);
        ui_role(w, u, role);
        cx += ui_put(w, y, cx, x + width - cx, part);
        snprintf(part, sizeof part, "%.*s", (int)(eo - so), text + so);
        ui_role(w, u, UI_MATCH);
        cx += ui_put(w, y, cx, x + width - cx, part);
        ui_role(w, u, role);
        cx += ui_put(w, y, cx, x + width - cx, text + eo);
        return cx - x;
    }
    ui_role(w, u, role);
    return ui_put(w, y, x, width, fit);
}

static void draw_node_row(struct tp *p, struct session *a, WINDOW *w, int y, int width, const struct tree *t, int side,
                          int n, int indent, int selected, int tree_row) {
    struct ui *u = a->ui;
    const struct graphs_loaded *G = p->G;
    int base = selected ? UI_AXIS_SEL : UI_NORMAL;
    ui_role(w, u, base);
    ui_fill(w, y, 0, width);
    int x = ui_put(w, y, 0, width, selected ? ui_glyph_focus(u) : " ");
    for (int i = 0; i < indent && x < width - 8; i++) x += ui_put(w, y, x, width - x, " ");
    if (tree_row) {
        const char *m = t->nodes[n].first < 0 ? "  " : p->open[n] ? (u->utf8 ? "\xe2\x96\xbe " : "- ")
                                                                    : (u->utf8 ? "\xe2\x96\xb8 " : "+ ");
        ui_role(w, u, base);
        x += ui_put(w, y, x, width - x, m);
    }
    if (x >= width) return;
    if (side == 0) {
        put_chip(w, u, y, x++, graphs_mark(G, n), graphs_magnitude(G, n));
        if (x < width) put_ovf(w, u, y, x++, G->ovf ? G->ovf[n] : 0);
    } else {
        put_chip(w, u, y, x++, tree_rows_bench_matched(G, n) ? AM_NODATA : AM_UNMATCHED, -1);
        x++;
    }
    ui_role(w, u, base);
    if (x < width) x += ui_put(w, y, x, width - x, " ");
    char label[1100], esc[1200];
    if (tree_row) tree_label(t, n, label, sizeof label);
    else snprintf(label, sizeof label, "%s", tree_id(t, n));
    pt_escape(label, strlen(label), esc, sizeof esc);
    const char *kind = tree_kind_name(t->nodes[n].kind);
    int kw = (int)strlen(kind) + 1;
    int show_kind = width - x > 30;
    int room = width - x - (show_kind ? kw : 0);
    if (room < 1) return;
    put_label(w, u, side == 0 ? &p->re : &(struct search){0}, y, x, room, esc, base);
    if (show_kind) {
        ui_role(w, u, selected ? UI_AXIS_SEL : UI_DIM);
        ui_put(w, y, width - kw + 1, kw - 1, kind);
    }
}

static void tree_draw(struct view *v, struct session *a) {
    struct tp *p = v->priv;
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    int h = v->h, width = v->w;
    tree_rows_adopt(p, a);
    werase(w);
    const struct graphs *c = a->graphs;
    char buf[600];
    /* title row */
    ui_role(w, u, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 0, 0, width);
    const struct graphs_loaded *G = p->G;
    if (p->list == L_UNMATCHED) snprintf(buf, sizeof buf, "Unmatched nodes  (Enter go to, Esc back)");
    else if (p->list == L_PRECISION) snprintf(buf, sizeof buf, "Precision filter  (1-4 toggle, Enter go to, Esc back)");
    else if (p->list == L_PICK) snprintf(buf, sizeof buf, "Manual match  (Enter pick, Esc cancel)");
    else if (G && graphs_is_compare(G) && G->g)
        snprintf(buf, sizeof buf, "Tree  matched %zu  unmatched %zu/%zu", G->g->nmatched, G->g->nunmatched_npu,
                 G->g->nunmatched_bench);
    else snprintf(buf, sizeof buf, "Tree");
    ui_put(w, 0, 0, width, buf);
    if (h < 2) return;
    p->body_h = h - 1;
    int y0 = 1 + tree_flow_breadcrumb(p, a, w, width);
    p->body_h -= y0 - 1;
    if (!have_tree(p)) {
        ui_role(w, u, c && c->error[0] ? UI_ERROR : UI_DIM);
        char scanning[160];
        snprintf(scanning, sizeof scanning, "comparing the run: %zu of %zu pairs done; then the tree of its first "
                                            "divergence loads (F7: the summary, Enter opens any pair)",
                 c ? (size_t)atomic_load(&c->sdone) : 0, c ? c->npairs : 0);
        const char *why = !c ? "no model tree for this input"
                        : graphs_loading(a) && c->running ? "loading the graphs..."
                        : c->error[0] ? c->error
                        : G && G->note[0] ? G->note
                        : c->summary && !c->cur && c->srunning ? scanning : "no model tree";
        /* wrap the message over the body */
        char esc[1024];
        pt_escape(why, strlen(why), esc, sizeof esc);
        size_t off = 0, len = strlen(esc);
        for (int y = 1; y < h && off < len; y++) {
            size_t take = text_prefix(esc + off, width - 1);
            if (!take) break;
            char line[1024];
            snprintf(line, sizeof line, "%.*s", (int)take, esc + off);
            ui_put(w, y, 1, width - 1, line);
            off += take;
        }
        return;
    }
    const struct tree *t0 = G->t[0];
    if (p->list != L_TREE) {
        if (p->lcur < p->ltop) p->ltop = p->lcur;
        if (p->lcur >= p->ltop + (size_t)p->body_h) p->ltop = p->lcur - (size_t)p->body_h + 1;
        for (int r = 0; r < p->body_h; r++) {
            size_t i = p->ltop + (size_t)r;
            if (i >= p->nl) break;
            const struct lrow *l = &p->lrows[i];
            if (l->side < 0) {
                ui_role(w, u, UI_TITLE);
                ui_fill(w, 1 + r, 0, width);
                ui_put(w, 1 + r, 1, width - 1, l->head);
                continue;
            }
            draw_node_row(p, a, w, 1 + r, width, l->side ? G->t[1] : t0, l->side, l->node, 0,
                          i == p->lcur && v->focused, 0);
        }
        if (p->nl <= 1) {
            ui_role(w, u, UI_OK);
            ui_put(w, 2, 1, width - 1, "(none)");
        }
        return;
    }
    long sr = tree_rows_row_of(p, p->sel);
    if (sr < 0 && p->nrows) {
        p->sel = p->rows[0];
        sr = 0;
    }
    if ((size_t)sr < p->top) p->top = (size_t)sr;
    if ((size_t)sr >= p->top + (size_t)p->body_h) p->top = (size_t)sr - (size_t)p->body_h + 1;
    for (int r = 0; r < p->body_h; r++) {
        size_t i = p->top + (size_t)r;
        if (i >= p->nrows) break;
        int n = p->rows[i];
        int d = tree_depth(t0, n);
        draw_node_row(p, a, w, y0 + r, width, t0, 0, n, d * 2 > width / 3 ? width / 3 : d * 2,
                      n == p->sel && v->focused ? 1 : 0, 1);
        if (n == p->sel && !v->focused) {
            /* the selection stays visible when the detail pane has focus */
            ui_role(w, u, UI_AXIS);
            ui_put(w, y0 + r, 0, 1, ui_glyph_focus(u));
        }
    }
}

/* ---- keys ---- */

/* "first divergence: NAME  error  in MODULE": the node, its verdict and
 * the module it runs in (divergences are operations inside modules). */
/* what f names in md5 mode (probetop-rules(7), FIRST DIVERGENCE: Determinism) */
#define DET_WORDS "first nondeterministic operator (inputs equal, outputs differ)"

static void say_node(struct session *a, const struct tp *p, const char *what, int n) {
    char id[1024], esc[1100], in[1100] = "";
    snprintf(id, sizeof id, "%s", tree_id(T(p), n));
    pt_escape(id, strlen(id), esc, sizeof esc);
    const char *lv[] = {"", "pass", "warning", "error", "unmatched", "no data"};
    int m = graphs_mark(p->G, n);
    int e = tree_enclosing_module(T(p), n);
    if (e >= 0 && T(p)->nodes[n].kind != TK_MODULE) pt_escape(tree_id(T(p), e), strlen(tree_id(T(p), e)), in, sizeof in);
    session_msg(a, "%s: %s%s%s%s%s", what, esc, m ? "  " : "", lv[m], in[0] ? "  in " : "", in);
}

/* f with several (step, rank) pairs: the run's first divergence, on its
 * step and rank (the summary's scan knows it). */
static void run_first(struct tp *p, struct session *a) {
    struct graphs *c = a->graphs;
    long k;
    int which;
    int st = graphs_run_first(a, &k, &which);
    if (st < 0) {
        session_msg(a, "still comparing the run (%zu of %zu pairs): f again when it is done; n/N walk this pair",
                (size_t)atomic_load(&c->sdone), c->npairs);
        return;
    }
    if (st == 0) {
        session_msg(a, "no divergence: every node of the %zu compared pairs passes", c->npairs);
        return;
    }
    const struct compare_run_pair *cp = &c->sum[k];
    const struct compare_run_first *f = graphs_run_first_node(a);
    const char *level = which == COMPARE_RUN_ERR ? "error" : "warning";
    char esc[1100], in[1100] = "";
    pt_escape(f->name, strlen(f->name), esc, sizeof esc);
    if (f->in) pt_escape(f->in, strlen(f->in), in, sizeof in);
    if (c->cur && c->cur->step == cp->step && c->cur->rank == cp->rank) {
        int n = tree_find(T(p), f->name);
        if (n >= 0) tree_rows_select(p, n);
        session_changed(a, SESSION_CH_CURSOR);
    } else {
        struct pt_error err;
        if (tree_goto(p, a, cp->step, cp->rank, cp->graph ? f->name : NULL, &err) != 0) {
            session_err(a, "%s", err.msg);
            return;
        }
    }
    session_msg(a, "%s: %s  %s  step %d rank %d%s%s", f->det ? DET_WORDS : "first divergence", esc, level,
            (int)cp->step, (int)cp->rank, in[0] ? "  in " : "", in);
}

static void switch_graph(struct tp *p, struct session *a, int dstep, int drank) {
    struct graphs *c = a->graphs;
    if (!c || !c->cur) {
        session_msg(a, "no graph loaded yet");
        return;
    }
    int32_t step = c->cur->step, rank = c->cur->rank;
    const int32_t *vals = dstep ? c->steps : c->ranks;
    int nv = dstep ? c->nsteps : c->nranks, d = dstep ? dstep : drank;
    int32_t curv = dstep ? step : rank;
    int i = 0;
    while (i < nv && vals[i] != curv) i++;
    for (int k = i + d; k >= 0 && k < nv; k += d) {
        struct pt_error err;
        int32_t s = dstep ? vals[k] : step, r = dstep ? rank : vals[k];
        int ok = 0;
        for (size_t q = 0; q < c->npairs && !ok; q++) ok = c->pairs[q].step == s && c->pairs[q].rank == r;
        if (!ok) continue;
        if (p->sel >= 0 && have_tree(p)) {
            free(c->select_after);
            c->select_after = strdup(tree_id(T(p), p->sel));
        }
        if (graphs_load(a, s, r, &err) != 0) session_err(a, "%s", err.msg);
        else session_msg(a, "loading step %d rank %d...", (int)s, (int)r);
        return;
    }
    session_msg(a, d < 0 ? "first %s" : "last %s", dstep ? "step" : "rank");
}

static void move_sel(struct tp *p, long by) {
    if (!p->nrows) return;
    long r = tree_rows_row_of(p, p->sel);
    r = r < 0 ? 0 : r + by;
    if (r < 0) r = 0;
    if (r >= (long)p->nrows) r = (long)p->nrows - 1;
    p->sel = p->rows[r];
}

static void move_list(struct tp *p, long by) {
    if (p->nl < 2) return;
    long r = (long)p->lcur + by;
    if (r < 1) r = 1;
    if (r >= (long)p->nl) r = (long)p->nl - 1;
    /* skip headings in the direction of travel */
    while (r > 0 && r < (long)p->nl && p->lrows[r].side < 0) r += by >= 0 ? 1 : -1;
    if (r <= 0 || r >= (long)p->nl) return;
    p->lcur = (size_t)r;
}

static void start_match(struct tp *p, struct session *a) {
    const struct graphs_loaded *G = p->G;
    if (!G->g) {
        session_err(a, "%s", a->graphs->visdb ? "a .vis.db is shown read-only: no manual matching"
                                       : "manual matching needs two compared runs");
        return;
    }
    if (graphs_mark(G, p->sel) != AM_UNMATCHED) {
        session_err(a, "M marks an unmatched node (shown with ?); this one is matched");
        return;
    }
    p->pick_npu = p->sel;
    p->confirm_bench = -1;
    tree_rows_open_list(p, a, L_PICK);
    char esc[600];
    const char *id = tree_id(T(p), p->sel);
    session_msg(a, "matching %s: pick its benchmark node, Enter", pt_escape(id, strlen(id), esc, sizeof esc));
}

static void list_enter(struct tp *p, struct session *a) {
    if (p->lcur >= p->nl || p->lrows[p->lcur].side < 0) return;
    const struct lrow *l = &p->lrows[p->lcur];
    if (p->list == L_PICK) {
        p->confirm_bench = l->node;
        char e1[400], e2[400];
        const char *x = tree_id(T(p), p->pick_npu), *y = tree_id(p->G->t[1], l->node);
        session_msg(a, "match %s with %s? y confirms, Esc cancels", pt_escape(x, strlen(x), e1, sizeof e1),
                pt_escape(y, strlen(y), e2, sizeof e2));
        return;
    }
    if (l->side == 1) {
        session_msg(a, "a benchmark node: mark its problem node with M to match them");
        return;
    }
    int n = l->node;
    p->list = L_TREE;
    tree_rows_select(p, n);
    say_node(a, p, "at", n);
}

static int tree_key(struct view *v, struct session *a, int action, int key) {
    struct tp *p = v->priv;
    int mv = nav_of_key(key);
    if (mv) action = tree_nav[mv];
    tree_rows_adopt(p, a);
    if (action == TA_RANK_PREV || action == TA_RANK_NEXT) {
        switch_graph(p, a, 0, action == TA_RANK_PREV ? -1 : 1);
        return 1;
    }
    if (action == TA_STEP_PREV || action == TA_STEP_NEXT) {
        switch_graph(p, a, action == TA_STEP_PREV ? -1 : 1, 0);
        return 1;
    }
    if (!have_tree(p)) return 0;
    const struct tree *t = T(p);
    const struct graphs_loaded *G = p->G;
    long page = p->body_h > 2 ? p->body_h - 1 : 1;
    if (action == TA_FLOW_UP || action == TA_FLOW_DOWN || action == TA_FLOW_BACK) {
        tree_flow_key(p, a, action == TA_FLOW_BACK ? -1 : action == TA_FLOW_DOWN);
        return 1;
    }
    if (p->list != L_TREE) {
        switch (action) {
        case TA_DOWN: move_list(p, 1); return 1;
        case TA_UP: move_list(p, -1); return 1;
        case TA_PGDN: case TA_PGUP: case TA_HALFDN: case TA_HALFUP:
            move_list(p, nav_delta(nav_move_of(tree_nav, action), page));
            return 1;
        case TA_TOP: p->lcur = 0; move_list(p, 1); return 1;
        case TA_BOTTOM: p->lcur = p->nl - 1; move_list(p, 0); return 1;
        case TA_OPEN: list_enter(p, a); return 1;
        case TA_YES:
            if (p->list == L_PICK && p->confirm_bench >= 0) {
                struct pt_error err;
                int na = p->pick_npu, nb = p->confirm_bench;
                p->confirm_bench = -1;
                if (graphs_manual_match(a, na, nb, &err) != 0) {
                    session_err(a, "%s", err.msg);
                    return 1;
                }
                p->list = L_TREE;
                p->pick_npu = -1;
                tree_rows_select(p, na);
                say_node(a, p, "matched by hand", na);
                session_changed(a, SESSION_CH_CURSOR);
                return 1;
            }
            return 0;
        case TA_F1: case TA_F2: case TA_F3: case TA_F4:
            if (p->list != L_PRECISION) return 0;
            p->pmask ^= 1u << (action == TA_F1 ? AM_PASS : action == TA_F2 ? AM_WARN : action == TA_F3 ? AM_ERROR : AM_UNMATCHED);
            tree_rows_open_list(p, a, L_PRECISION);
            return 1;
        case TA_BACK: case TA_CLOSE:
            p->list = L_TREE;
            p->pick_npu = p->confirm_bench = -1;
            session_msg(a, "back to the tree");
            return 1;
        case TA_UNMATCHED: tree_rows_open_list(p, a, L_UNMATCHED); return 1;
        case TA_PRECISION: tree_rows_open_list(p, a, L_PRECISION); return 1;
        case TA_MATCH:
            /* M on an unmatched problem node of a list: match it */
            if (p->list != L_PICK && p->lcur < p->nl && p->lrows[p->lcur].side == 0) {
                p->sel = p->lrows[p->lcur].node;
                start_match(p, a);
            } else session_msg(a, "M marks an unmatched problem node");
            return 1;
        default: return 0;
        }
    }
    int sel = p->sel;
    switch (action) {
    case TA_DOWN: move_sel(p, 1); break;
    case TA_UP: move_sel(p, -1); break;
    case TA_PGDN: case TA_PGUP: case TA_HALFDN: case TA_HALFUP:
        move_sel(p, nav_delta(nav_move_of(tree_nav, action), page));
        break;
    case TA_TOP: move_sel(p, -(long)p->nrows); break;
    case TA_BOTTOM: move_sel(p, (long)p->nrows); break;
    case TA_OPEN:
        if (t->nodes[sel].first < 0) session_msg(a, "a leaf: Tab shows its inputs and outputs");
        else if (!p->open[sel]) {
            p->open[sel] = 1;
            tree_rows_rebuild(p);
        } else move_sel(p, 1);
        break;
    case TA_CLOSE:
        if (t->nodes[sel].first >= 0 && p->open[sel] && sel != t->root) {
            p->open[sel] = 0;
            tree_rows_rebuild(p);
        } else if (t->nodes[sel].parent >= 0) {
            p->sel = t->nodes[sel].parent;
        }
        break;
    case TA_EXPAND_ALL: tree_rows_set_subtree(p, sel, 1); break;
    case TA_COLLAPSE_ALL: tree_rows_set_subtree(p, sel, 0); break;
    case TA_FIRST: {
        if (!graphs_is_compare(G)) { session_msg(a, "no verdicts in build mode: nothing diverges"); return 1; }
        if (a->graphs->summary) {
            run_first(p, a);
            return 1;
        }
        int n = graphs_first_divergence(G);
        if (n < 0) { session_msg(a, "no divergence: every compared node passes"); return 1; }
        tree_rows_select(p, n);
        say_node(a, p, graphs_nondeterministic(G, n) ? DET_WORDS : "first divergence", n);
        break;
    }
    case TA_NEXT: case TA_PREV: {
        int dir = action == TA_NEXT ? 1 : -1;
        if (search_active(&p->re)) {
            v->ops->search_next(v, a, dir);
            return 1;
        }
        if (!graphs_is_compare(G)) { session_msg(a, "no verdicts in build mode (/ searches names)"); return 1; }
        int n = graphs_next_divergent(G, sel, dir);
        if (n < 0) { session_msg(a, dir > 0 ? "no divergent node after this one" : "no divergent node before this one"); return 1; }
        tree_rows_select(p, n);
        say_node(a, p, dir > 0 ? "next divergence" : "previous divergence", n);
        break;
    }
    case TA_UNMATCHED:
        if (!graphs_is_compare(G)) { session_msg(a, "no benchmark in build mode: nothing is unmatched"); return 1; }
        tree_rows_open_list(p, a, L_UNMATCHED);
        break;
    case TA_PRECISION:
        if (!graphs_is_compare(G)) { session_msg(a, "no verdicts in build mode"); return 1; }
        tree_rows_open_list(p, a, L_PRECISION);
        break;
    case TA_MATCH: start_match(p, a); break;
    case TA_BACK:
        if (search_active(&p->re)) {
            search_clear(&p->re);
            session_msg(a, "search cleared");
            break;
        }
        if (tree_flow_breadcrumb(p, a, NULL, 0)) {
            tree_flow_key(p, a, -2);
            break;
        }
        return 0;
    default: return 0;
    }
    if (p->sel != sel) session_changed(a, SESSION_CH_CURSOR);
    return 1;
}

static int tree_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct tp *p = v->priv;
    tree_rows_adopt(p, a);
    if (!have_tree(p)) return 0;
    if (m->wheel) {
        if (p->list != L_TREE) move_list(p, 3 * m->wheel);
        else move_sel(p, 3 * m->wheel);
        session_changed(a, SESSION_CH_CURSOR);
        return 1;
    }
    if (m->button != 1 || m->y < 1) return 0;
    if (p->list != L_TREE) {
        size_t i = p->ltop + (size_t)(m->y - 1);
        if (i < p->nl && p->lrows[i].side >= 0) {
            p->lcur = i;
            if (m->dbl) list_enter(p, a);
        }
        return 1;
    }
    int crumb = tree_flow_breadcrumb(p, a, NULL, 0);
    size_t i = p->top + (size_t)(m->y - 1 - crumb);
    if (m->y - 1 < crumb || i >= p->nrows) return 1;
    p->sel = p->rows[i];
    if (m->dbl && T(p)->nodes[p->sel].first >= 0 && p->sel != T(p)->root) {
        p->open[p->sel] = !p->open[p->sel];
        tree_rows_rebuild(p);
    }
    session_changed(a, SESSION_CH_CURSOR);
    return 1;
}

/* y: the selected node's name (a picker row's too), as the dump spells it. */
static int tree_copy(struct view *v, struct session *a, char *buf, size_t size) {
    struct tp *p = v->priv;
    tree_rows_adopt(p, a);
    if (!have_tree(p)) return 0;
    const struct lrow *l = p->list != L_TREE && p->lcur < p->nl && p->lrows[p->lcur].side >= 0 ? &p->lrows[p->lcur] : NULL;
    if (!l && p->sel < 0) return 0;
    snprintf(buf, size, "%s", tree_id(l ? (l->side ? p->G->t[1] : T(p)) : T(p), l ? l->node : p->sel));
    return 1;
}

static void tree_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct tp *p = v->priv;
    tree_rows_adopt(p, a);
    if (!have_tree(p)) {
        snprintf(buf, size, "%s", a->graphs && graphs_loading(a) ? "loading..." : "no tree");
        return;
    }
    int n = p->sel;
    if (p->list != L_TREE && p->lcur < p->nl && p->lrows[p->lcur].side >= 0) {
        const struct lrow *l = &p->lrows[p->lcur];
        const struct tree *t = l->side ? p->G->t[1] : T(p);
        char esc[1200];
        const char *id = tree_id(t, l->node);
        snprintf(buf, size, "%s %s", l->side ? "benchmark" : "problem", pt_escape(id, strlen(id), esc, sizeof esc));
        return;
    }
    if (n < 0) {
        buf[0] = '\0';
        return;
    }
    const struct tree *t = T(p);
    char esc[1200], idx[64] = "";
    const char *id = tree_id(t, n);
    const char *lv[] = {"", "pass", "warning", "error", "unmatched", "no data"};
    int m = graphs_mark(p->G, n);
    double mag = graphs_magnitude(p->G, n);
    if (m == AM_ERROR || m == AM_WARN || m == AM_PASS) {
        if (p->G->g && p->G->g->nodes[n].worst_rel >= 0) {
            double wr = p->G->g->nodes[n].worst_rel;
            if (isinf(wr)) snprintf(idx, sizeof idx, "  worst rel err inf");
            else snprintf(idx, sizeof idx, "  worst rel err %.6g%%", wr * 100);
        } else if (mag >= 0) snprintf(idx, sizeof idx, "  index %.2g", mag);
    }
    int ov = p->G->ovf ? p->G->ovf[n] : 0;
    snprintf(buf, size, "%s %s  %s%s%s%s%s\n%s", tree_kind_name(t->nodes[n].kind), pt_escape(id, strlen(id), esc, sizeof esc),
             lv[m], idx, ov ? "  overflow " : "", ov ? ovf_level_name((enum ovf_level)ov) : "",
             p->G->g && p->G->g->nodes[n].manual ? "  (matched by hand)" : "",
             /* only the keys that work here: a single run has no verdicts */
             graphs_is_compare(p->G) ? "Enter expand  f first  n/N divergent  u unmatched  p filter  M match  Tab detail"
                                   : "Enter expand  / search  n/N next match  {} rank  () step  Tab detail");
}

/* `/`: a regex over node ids (the one search, model/cube/search.h); the
 * cursor goes to the next match in display... in execution order, opening
 * the path to it. */
static int find_match(struct tp *p, struct session *a, int dir) {
    const struct tree *t = T(p);
    const int32_t *pre = p->G->pre;
    int32_t *ord = tree_rows_exec_order(t, pre);
    if (!ord) return 0;
    int32_t from = p->sel >= 0 ? pre[p->sel] : -1;
    size_t n = t->nnodes;
    int found = -1;
    for (size_t k = 1; k <= n && found < 0; k++) {
        long i = ((long)from + (long)k * dir) % (long)n;
        if (i < 0) i += (long)n;
        int node = ord[i];
        if (node < 0) continue;
        const char *id = tree_id(t, node);
        int rc = search_match(&p->re, id, strlen(id));
        if (rc < 0) {
            session_err(a, "%s", p->re.why);
            break;
        }
        if (rc == 1) found = node;
    }
    free(ord);
    if (found < 0) {
        session_msg(a, "no node matches /%s/", p->re.pattern ? p->re.pattern : "");
        return 1;
    }
    tree_rows_select(p, found);
    say_node(a, p, "match", found);
    session_changed(a, SESSION_CH_CURSOR);
    return 1;
}

static int tree_search(struct view *v, struct session *a, const char *pattern, struct pt_error *err) {
    struct tp *p = v->priv;
    tree_rows_adopt(p, a);
    if (search_compile(&p->re, pattern, 0, err) != 0) return -1;
    if (!search_active(&p->re)) {
        session_msg(a, "search cleared");
        return 0;
    }
    if (!have_tree(p)) return 0;
    p->list = L_TREE;
    find_match(p, a, 1);
    return 0;
}

static int tree_search_next(struct view *v, struct session *a, int dir) {
    struct tp *p = v->priv;
    tree_rows_adopt(p, a);
    if (!search_active(&p->re) || !have_tree(p)) return 0;
    return find_match(p, a, dir);
}

static void tree_notify(struct view *v, struct session *a, unsigned what) {
    struct tp *p = v->priv;
    if (what & (SESSION_CH_DATA | SESSION_CH_GRAPH)) tree_rows_adopt(p, a);
}

static int tree_init(struct view *v, struct session *a, struct pt_error *err) {
    struct tp *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    search_init(&p->re);
    p->sel = p->pick_npu = p->confirm_bench = -1;
    p->pmask = (1u << AM_WARN) | (1u << AM_ERROR);
    p->session = a;
    v->priv = p;
    a->offers.tree_pane = p;
    a->offers.tree_goto = tree_goto;
    a->offers.tree_selected = tree_selected;
    return 0;
}

static void tree_free_pane(struct view *v) {
    struct tp *p = v->priv;
    if (!p) return;
    if (p->session->offers.tree_pane == p) {
        p->session->offers.tree_pane = NULL;
        p->session->offers.tree_goto = NULL;
        p->session->offers.tree_selected = NULL;
    }
    free(p->open);
    free(p->rows);
    free(p->lrows);
    search_free(&p->re);
    free(p);
    v->priv = NULL;
}

static int tree_available(const struct session *a) { return a->graphs != NULL; }

/* ---- commands ---- */

/* A node by id, else by a unique part of an id. */
static int find_node(const struct tree *t, const char *want, struct pt_error *err) {
    int n = tree_find(t, want);
    if (n >= 0) return n;
    int hit = -1, count = 0;
    for (size_t i = 0; i < t->nnodes; i++)
        if (strstr(tree_id(t, (int)i), want)) {
            if (!count++) hit = (int)i;
        }
    char esc[600];
    pt_escape(want, strlen(want), esc, sizeof esc);
    if (count == 1) return hit;
    if (count > 1) return pt_errorf(err, "%d nodes contain '%s': be more specific", count, esc);
    return pt_errorf(err, "no node '%s' in this graph", esc);
}

/* Selects node `name` of the graph shown and shows the tree screen. */
static int show_node(struct tp *p, struct session *a, const char *name, struct pt_error *err) {
    if (!p) return pt_errorf(err, "no tree for this input");
    tree_rows_adopt(p, a);
    if (!have_tree(p)) return pt_errorf(err, "the tree is not loaded");
    int n = find_node(T(p), name, err);
    if (n < 0) return -1;
    p->list = L_TREE;
    tree_rows_select(p, n);
    a->host->show(a, "tree");
    say_node(a, p, "at", n);
    session_changed(a, SESSION_CH_CURSOR);
    return 0;
}

static int cmd_node(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    if (argc != 2) return pt_errorf(err, "usage: :node NAME");
    return show_node(v ? v->priv : NULL, a, argv[1], err);
}

static int goto_value(struct tp *p, struct session *a, int is_step, const char *arg, struct pt_error *err) {
    struct graphs *c = a->graphs;
    char *e;
    long want = strtol(arg, &e, 10);
    if (e == arg || *e) return pt_errorf(err, "%s wants a number, not '%s'", is_step ? ":step" : ":rank", arg);
    if (!c || !c->cur) return pt_errorf(err, "no graph loaded yet");
    int32_t s = is_step ? (int32_t)want : c->cur->step, r = is_step ? c->cur->rank : (int32_t)want;
    if (p) tree_rows_adopt(p, a);
    if (p && have_tree(p) && p->sel >= 0) {
        free(c->select_after);
        c->select_after = strdup(tree_id(T(p), p->sel));
    }
    if (graphs_load(a, s, r, err) != 0) {
        char list[256] = "";
        size_t len = 0;
        int nv = is_step ? c->nsteps : c->nranks;
        for (int i = 0; i < nv && len + 16 < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", i ? " " : "", (int)(is_step ? c->steps : c->ranks)[i]);
        return pt_errorf(err, "no graph for step %d rank %d (%ss: %s)", (int)s, (int)r, is_step ? "step" : "rank", list);
    }
    session_msg(a, "loading step %d rank %d...", (int)s, (int)r);
    return 0;
}

/* The tree's offer (struct session_offers): node name of the graph of
 * (step, rank). */
static int tree_goto(void *tree_pane, struct session *a, int32_t step, int32_t rank, const char *name,
                     struct pt_error *err) {
    struct graphs *c = a->graphs;
    if (c && (!c->cur || c->cur->step != step || c->cur->rank != rank)) {
        free(c->select_after);
        c->select_after = name ? strdup(name) : NULL;
        if (graphs_load(a, step, rank, err) == 0) {
            a->host->show(a, "tree");
            session_msg(a, "loading step %d rank %d...", (int)step, (int)rank);
            return 0;
        }
        /* no graph of that step and rank (a proc folder numbered otherwise):
         * the node in the graph shown, if it has one */
        if (!c->cur) return -1;
    }
    if (!name) {
        a->host->show(a, "tree");
        return 0;
    }
    return show_node(tree_pane, a, name, err);
}

static int cmd_step(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    if (argc != 2) return pt_errorf(err, "usage: :step N");
    return goto_value(v ? v->priv : NULL, a, 1, argv[1], err);
}

static int cmd_rank(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    if (argc != 2) return pt_errorf(err, "usage: :rank N");
    return goto_value(v ? v->priv : NULL, a, 0, argv[1], err);
}

static int cmd_save_match(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    (void)v;
    if (argc != 2 || !argv[1][0]) return pt_errorf(err, "usage: :save-match FILE");
    long n = graphs_save_match(a, argv[1], err);
    if (n < 0) return -1;
    char esc[600];
    session_msg(a, "%ld manual pair%s written to %s", n, n == 1 ? "" : "s", pt_escape(argv[1], strlen(argv[1]), esc, sizeof esc));
    return 0;
}

static int cmd_match(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    struct tp *p = v ? v->priv : NULL;
    if (argc != 3) return pt_errorf(err, "usage: :match PROBLEM_NODE BENCH_NODE");
    if (p) tree_rows_adopt(p, a);
    if (!p || !have_tree(p) || !p->G->t[1]) return pt_errorf(err, "manual matching needs two compared runs");
    int x = find_node(T(p), argv[1], err);
    if (x < 0) return -1;
    int y = find_node(p->G->t[1], argv[2], err);
    if (y < 0) return -1;
    if (graphs_manual_match(a, x, y, err) != 0) return -1;
    p->list = L_TREE;
    tree_rows_select(p, x);
    say_node(a, p, "matched by hand", x);
    session_changed(a, SESSION_CH_CURSOR);
    return 0;
}

static const struct view_cmd tree_cmds[] = {
    {"node", "NAME", "tree: select a node (its id or a unique part), opening its ancestors", 1, cmd_node},
    {"step", "N", "tree screen: show the graph of step N", 0, cmd_step},
    {"rank", "N", "tree screen: show the graph of rank N", 0, cmd_rank},
    {"match", "PROBLEM BENCH", "tree: match two unmatched nodes by hand", 0, cmd_match},
    {"save-match", "FILE", "tree: write the manual matches as msProbe's match config", 1, cmd_save_match},
};

const struct view_ops view_tree = {
    .name = "tree",
    .title = "Tree",
    .init = tree_init,
    .free = tree_free_pane,
    .available = tree_available,
    .draw = tree_draw,
    .key = tree_key,
    .mouse = tree_mouse,
    .notify = tree_notify,
    .status = tree_status,
    .copy = tree_copy,
    .search = tree_search,
    .search_next = tree_search_next,
    .hints = "Enter expand  / search  n/N next  {} rank  () step  </> data flow",
    .keys = tree_keys,
    .nkeys = sizeof tree_keys / sizeof tree_keys[0],
    .cmds = tree_cmds,
    .ncmds = sizeof tree_cmds / sizeof tree_cmds[0],
};

/* The tree's offer (struct session_offers) the detail pane shows: the
 * tree's selection (or the list row's node), side 0 problem / 1 benchmark. */
static int tree_selected(void *tree_pane, struct session *a, int *side) {
    struct tp *p = tree_pane;
    *side = 0;
    tree_rows_adopt(p, a);
    if (!have_tree(p)) return -1;
    if (p->list != L_TREE && p->lcur < p->nl && p->lrows[p->lcur].side >= 0) {
        *side = p->lrows[p->lcur].side;
        return p->lrows[p->lcur].node;
    }
    return p->sel;
}
