/* detail pane: the node the tree pane selects, problem and benchmark side
 * by side.
 *
 * For every compared input / output / parameter the fields of both sides
 * (dtype, shape, Max, Min, Mean, Norm, md5 where present, requires_grad)
 * with msProbe's compare columns beside them (the diff and the relative
 * error of each statistic) and the row's result and messages; then the
 * communication peers of a Distributed node (Enter jumps to the peer's
 * rank and node) and the stack trace of each side from stack.json.
 *
 * Owns only the scroll position and the cursor line; the text is laid out
 * again on every draw from the graph (a node has tens of rows, not
 * thousands), so it always matches the tree's selection and the width. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/compare.h"
#include "model/util/util.h"
#include "model/graph/visparam.h"
#include "src/session/flow.h"
#include "src/session/graphs.h"
#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

enum { DA_DOWN = 1, DA_UP, DA_PGDN, DA_PGUP, DA_TOP, DA_BOTTOM, DA_ENTER, DA_HALFDN, DA_HALFUP, DA_FLOW_UP, DA_FLOW_DOWN,
       DA_FLOW_BACK };

/* the shared navigation keys (ui/nav.h) as this pane's actions */
static const int detail_nav[NAV_COUNT] = {
    [NAV_UP] = DA_UP, [NAV_DOWN] = DA_DOWN, [NAV_PGUP] = DA_PGUP, [NAV_PGDN] = DA_PGDN,
    [NAV_HALFUP] = DA_HALFUP, [NAV_HALFDN] = DA_HALFDN, [NAV_TOP] = DA_TOP, [NAV_BOTTOM] = DA_BOTTOM,
};

/* One laid-out line: up to 5 cells (label + 4 columns) or a free text. */
struct dline {
    int role;
    int peer;              /* index into the node's peers, -1 */
    int flow;              /* index into the node's data-flow links (src/session/flow.h), -1 */
    int ncells;            /* 0: text only */
    int grid;              /* columns the block's lines share (1, 2 or 4) */
    char text[512];
    char cell[5][160];
};

struct dp {
    struct dline *l;
    size_t n, cap;
    size_t top, cur;
    int body_h;
    /* what the lines were made for, to reset the scroll on a new node */
    unsigned gen;
    int node, side;
    int grid;              /* the grid of the block being laid out */
    int width;             /* of the text, for wrapping */
};

static const struct keys_row detail_keys[] = {
    {'j', NULL, DA_DOWN, "scroll down"}, {KEYS_DOWN, NULL, DA_DOWN, "scroll down"},
    {'k', NULL, DA_UP, "scroll up"}, {KEYS_UP, NULL, DA_UP, "scroll up"},
    {KEYS_PGDN, NULL, DA_PGDN, "page down"}, {' ', NULL, DA_PGDN, "page down"},
    {KEYS_PGUP, NULL, DA_PGUP, "page up"},
    {KEYS_CTRL('d'), NULL, DA_HALFDN, "half a page down"}, {KEYS_CTRL('u'), NULL, DA_HALFUP, "half a page up"},
    {'g', NULL, DA_TOP, "top"}, {KEYS_HOME, NULL, DA_TOP, "top"},
    {'G', NULL, DA_BOTTOM, "bottom"}, {KEYS_END, NULL, DA_BOTTOM, "bottom"},
    {KEYS_ENTER, NULL, DA_ENTER, "on a communication peer or a data-flow line: show it (its rank's graph, the node)"},
    {'<', NULL, DA_FLOW_UP, "data flow: the node that produced this node's input (a NaN/Inf one first; a recv's sender)"},
    {'>', NULL, DA_FLOW_DOWN, "data flow: the node that consumed this node's output (a NaN/Inf one first; a send's receiver)"},
    {KEYS_BACKSPACE, NULL, DA_FLOW_BACK, "data flow: one hop back along the walk (the tree shows its breadcrumb)"},
    {'b', NULL, DA_FLOW_BACK, NULL},
};

static struct dline *add(struct dp *p, int role) {
    if (UTIL_PUSH(p->l, p->n, p->cap) != 0) return NULL;
    struct dline *d = &p->l[p->n++];
    memset(d, 0, sizeof *d);
    d->role = role;
    d->peer = d->flow = -1;
    return d;
}

static void text(struct dp *p, int role, const char *fmt, const char *s) {
    struct dline *d = add(p, role);
    if (!d) return;
    char esc[512];
    pt_escape(s, strlen(s), esc, sizeof esc);
    snprintf(d->text, sizeof d->text, fmt, esc);
}

static void cells(struct dp *p, int role, int n, const char *c0, const char *c1, const char *c2, const char *c3,
                  const char *c4) {
    struct dline *d = add(p, role);
    if (!d) return;
    d->ncells = n;
    d->grid = p->grid;
    const char *c[5] = {c0, c1, c2, c3, c4};
    for (int i = 0; i < n; i++) pt_escape(c[i] ? c[i] : "", strlen(c[i] ? c[i] : ""), d->cell[i], sizeof d->cell[i]);
}

/* Wraps s over lines of `width` columns. */
static void wrapped(struct dp *p, int role, const char *s, int width, const char *indent) {
    char esc[4096];
    pt_escape(s, strlen(s), esc, sizeof esc);
    size_t off = 0, len = strlen(esc);
    int first = 1;
    int iw = text_width(indent);
    while (off < len) {
        int room = width - (first ? 0 : iw);
        if (room < 8) room = 8;
        size_t take = text_prefix(esc + off, room);
        if (!take) break;
        struct dline *d = add(p, role);
        if (!d) return;
        snprintf(d->text, sizeof d->text, "%s%.*s", first ? "" : indent, (int)take, esc + off);
        off += take;
        first = 0;
    }
}

/* The param's name without the node id in front ("input.0"). */
static const char *short_name(const char *full, const char *id) {
    size_t l = strlen(id);
    return !strncmp(full, id, l) && full[l] == '.' ? full + l + 1 : full;
}

static int result_role(const char *r) {
    return !strcmp(r, "error") ? UI_BAD : !strcmp(r, "warning") ? UI_WARN : !strcmp(r, "pass") ? UI_OK : UI_NORMAL;
}

/* ---- compare rows (cmp_graph) ---- */

static void compare_rows(struct dp *p, const struct graphs_loaded *G, int n) {
    const struct cmp_graph *g = G->g;
    const struct cmp_node *cn = &g->nodes[n];
    const char *id = tree_id(G->t[0], n);
    int md5 = g->mode == CMP_MD5, tensor = g->mode == CMP_TENSOR;
    char c[16][160];
    for (uint32_t k = 0; k < cn->nrows; k++) {
        const struct crow *r = &g->rows[cn->row0 + k];
        /* cells by msProbe's header index */
        char name[512];
        cmp_graph_cell(g, r, 0, name, sizeof name);
        int res = md5 ? 11 : tensor ? 23 : 25, err = md5 ? 12 : tensor ? 24 : 26;
        cmp_graph_cell(g, r, res, c[0], sizeof c[0]);
        struct dline *h = add(p, UI_TITLE);
        if (!h) return;
        char esc[400];
        pt_escape(short_name(name, id), strlen(short_name(name, id)), esc, sizeof esc);
        snprintf(h->text, sizeof h->text, "%s%s  %s", r->placeholder ? "[no benchmark param] " : "", esc, c[0]);
        h->role = result_role(c[0]);
        p->grid = md5 ? 2 : 4;
        if (md5 || tensor) {
            cells(p, UI_DIM, 3, "", "problem", "benchmark", NULL, NULL);
        } else {
            cells(p, UI_DIM, 5, "", "problem", "benchmark", "diff", "rel err");
        }
        cmp_graph_cell(g, r, 2, c[1], sizeof c[1]);
        cmp_graph_cell(g, r, 3, c[2], sizeof c[2]);
        cells(p, UI_NORMAL, 3, "dtype", c[1], c[2], NULL, NULL);
        cmp_graph_cell(g, r, 4, c[1], sizeof c[1]);
        cmp_graph_cell(g, r, 5, c[2], sizeof c[2]);
        cells(p, UI_NORMAL, 3, "shape", c[1], c[2], NULL, NULL);
        if (md5) {
            cmp_graph_cell(g, r, 8, c[1], sizeof c[1]);
            cmp_graph_cell(g, r, 9, c[2], sizeof c[2]);
            cells(p, UI_NORMAL, 3, "md5", c[1], c[2], NULL, NULL);
        } else if (tensor) {
            /* the statistics side by side, then msProbe's six metrics of
             * the real tensors, one per line (short labels fit 80 columns) */
            static const char *const st[4] = {"Max", "Min", "Mean", "Norm"};
            for (int s = 0; s < 4; s++) {
                cmp_graph_cell(g, r, 14 + s, c[1], sizeof c[1]);
                cmp_graph_cell(g, r, 18 + s, c[2], sizeof c[2]);
                cells(p, UI_NORMAL, 3, st[s], c[1], c[2], NULL, NULL);
            }
            static const char *const mt[6] = {"Cosine", "EucDist", "MaxAbs", "MaxRel", "1/1000", "5/1000"};
            int grid = p->grid;
            p->grid = 1;
            for (int m = 0; m < 6; m++) {
                cmp_graph_cell(g, r, 8 + m, c[1], sizeof c[1]);
                /* highlighted like a large statistic error: Nan / N/A, a
                 * cosine below 0.99, a 1/1000 ratio below 0.9 (E3's input
                 * bound), a relative error above 0.5 */
                const struct cval *v = &r->metric[m];
                int bad = v->kind == CV_NAN || v->kind == CV_NA ||
                          (v->kind == CV_NUM && ((m == 0 && v->v < 0.99) || (m == 3 && v->v > 0.5) || (m == 4 && v->v < 0.9)));
                cells(p, bad ? UI_WARN : UI_NORMAL, 2, mt[m], c[1], NULL, NULL, NULL);
            }
            p->grid = grid;
        } else {
            static const char *const st[4] = {"Max", "Min", "Mean", "Norm"};
            for (int s = 0; s < 4; s++) {
                cmp_graph_cell(g, r, 16 + s, c[1], sizeof c[1]);
                cmp_graph_cell(g, r, 20 + s, c[2], sizeof c[2]);
                cmp_graph_cell(g, r, 8 + s, c[3], sizeof c[3]);
                cmp_graph_cell(g, r, 12 + s, c[4], sizeof c[4]);
                double f;
                int role = cmp_cval_fraction(&r->rel[s], &f) && (f != f || f > 0.5) ? UI_WARN : UI_NORMAL;
                cells(p, role, 5, st[s], c[1], c[2], c[3], c[4]);
            }
        }
        cmp_graph_cell(g, r, 6, c[1], sizeof c[1]);
        cmp_graph_cell(g, r, 7, c[2], sizeof c[2]);
        cells(p, UI_NORMAL, 3, "req_grad", c[1], c[2], NULL, NULL);
        char msg[2048];
        cmp_graph_cell(g, r, err, msg, sizeof msg);
        if (msg[0] && strcmp(msg, "[]")) wrapped(p, result_role(c[0]), msg, p->width, "  ");
    }
}

/* ---- one side's params (unmatched, build mode, a benchmark node) ---- */

static void side_rows(struct dp *p, const struct tree *t, int n, const char *side) {
    p->grid = 1;
    uint32_t np;
    const struct tparam *pp = tree_params(t, n, &np);
    if (!np) {
        text(p, UI_DIM, "%s", "no inputs or outputs in the dump");
        return;
    }
    const char *id = tree_id(t, n);
    char b[4][160];
    for (uint32_t i = 0; i < np; i++) {
        const struct tparam *q = &pp[i];
        struct tree_pn nb = {0};
        const char *nm = tree_pname(t, q, &nb);
        text(p, UI_TITLE, "%s", short_name(nm ? nm : "?", id));
        tree_pn_free(&nb);
        cells(p, UI_DIM, 2, "", side, NULL, NULL, NULL);
        if (q->is_null) {
            cells(p, UI_NORMAL, 2, "value", "None", NULL, NULL, NULL);
            continue;
        }
        const char *dt = tree_s(t, q->dtype), *sh = tree_s(t, q->shape);
        cells(p, UI_NORMAL, 2, "dtype", dt ? dt : "None", NULL, NULL, NULL);
        cells(p, UI_NORMAL, 2, "shape", sh ? sh : "None", NULL, NULL, NULL);
        static const char *const st[4] = {"Max", "Min", "Mean", "Norm"};
        for (int s = 0; s < 4; s++) {
            struct tval v = tree_stat(t, q, s);
            cells(p, UI_NORMAL, 2, st[s], cmp_tval_text(t, &v, b[s], sizeof b[s]), NULL, NULL, NULL);
        }
        if (q->has_md5) cells(p, UI_NORMAL, 2, "md5", tree_s(t, q->md5), NULL, NULL, NULL);
    }
}

/* ---- .vis.db: the stored compare rows (decoded by the reader) ---- */

static void visdb_rows(struct dp *p, const struct graphs_loaded *G, int n, int side) {
    int b = side == 0 && G->vlink ? G->vlink[n] : -1;
    int vb = b >= 0 && G->vin[1];
    const char *id = tree_id(G->t[side], n);
    for (int part = 0; part < 2; part++) {
        const struct vis_params *ps = part ? &G->vout[side][n] : &G->vin[side][n];
        const struct vis_params *bs = vb ? (part ? &G->vout[1][b] : &G->vin[1][b]) : NULL;
        if (ps->error) {
            wrapped(p, UI_ERROR, ps->error, p->width, "  ");
            continue;
        }
        if (bs && bs->error) wrapped(p, UI_ERROR, bs->error, p->width, "  ");
        for (size_t i = 0; i < ps->n; i++) {
            const struct vis_param *q = &ps->p[i];
            const struct vis_param *bp = bs && i < bs->n ? &bs->p[i] : NULL;
            const char *res = q->result;
            struct dline *h = add(p, res ? result_role(res) : UI_TITLE);
            if (!h) break;
            char esc[400];
            pt_escape(short_name(q->name, id), strlen(short_name(q->name, id)), esc, sizeof esc);
            snprintf(h->text, sizeof h->text, "%s  %s", esc, res ? res : "");
            int cols = vb ? 5 : 2;
            p->grid = vb ? 4 : 1;
            cells(p, UI_DIM, cols, "", side ? "benchmark" : "problem", "benchmark", "diff", "rel err");
            for (int k = 0; k < VF_N; k++) {
                const char *pv = q->field[k], *bv = bp ? bp->field[k] : NULL;
                if (!pv && !bv) continue;
                int st = k >= VF_MAX && k < VF_MAX + VIS_NSTATS ? k - VF_MAX : -1;
                cells(p, UI_NORMAL, st >= 0 && vb ? 5 : vb ? 3 : 2, vis_field_names[k], pv ? pv : "-", bv ? bv : "-",
                      st >= 0 ? q->diff[st] : NULL, st >= 0 ? q->relerr[st] : NULL);
            }
            const char *em = q->err_message;
            if (em && em[0] && strcmp(em, "[]") && strcmp(em, "null")) wrapped(p, res ? result_role(res) : UI_NORMAL, em, p->width, "  ");
        }
    }
}

static void stack_rows(struct dp *p, const struct tree *t, int n, const char *side, int width) {
    const uint32_t *lines;
    uint32_t k = tree_stack_lines(t, n, &lines);
    char head[64];
    snprintf(head, sizeof head, "stack (%s)", side);
    text(p, UI_TITLE, "%s", head);
    if (!k) {
        text(p, UI_DIM, "%s", "  none in stack.json");
        return;
    }
    for (uint32_t i = 0; i < k; i++) {
        char line[4096];
        snprintf(line, sizeof line, "  %s", tree_s(t, lines[i]));
        /* msProbe's lines hold "\n" before the source text: one line each */
        for (char *c = line; *c; c++)
            if (*c == '\n') *c = ' ';
        wrapped(p, UI_NORMAL, line, width, "      ");
    }
}

/* The node the tree pane has selected (its offer), side 0 problem / 1
 * benchmark; -1 when there is none or no tree pane. */
static int tree_node(struct session *a, int *side) {
    *side = 0;
    return a->offers.tree_pane ? a->offers.tree_selected(a->offers.tree_pane, a, side) : -1;
}

#define FLOW_SHOWN 64   /* data-flow lines listed per node */

/* The data-flow links of problem node n, one line each (Enter follows one). */
static void flow_rows(struct dp *p, struct session *a, int n) {
    struct flow_link fl[FLOW_SHOWN];
    struct pt_error err;
    long k = flow_links(a, n, fl, FLOW_SHOWN, &err);
    if (k < 0) {
        text(p, UI_ERROR, "data flow: %s", err.msg);
        return;
    }
    if (!k) return;
    text(p, UI_TITLE, "%s", "data flow (Enter follows, < > the first, Backspace back)");
    for (long i = 0; i < k && i < FLOW_SHOWN; i++) {
        const struct flow_link *l = &fl[i];
        struct dline *d = add(p, UI_NORMAL);
        if (!d) return;
        char id[400], mine[160] = "", eq[48] = "";
        pt_escape(l->id, strlen(l->id), id, sizeof id);
        if (l->mine != UINT32_MAX) {
            const struct tree *t = a->graphs->cur->t[0];
            struct tree_pn nb = {0};
            const char *pn = tree_pname(t, &t->params[l->mine], &nb), *nm = short_name(pn ? pn : "?", tree_id(t, n));
            pt_escape(nm, strlen(nm), mine, sizeof mine);
            tree_pn_free(&nb);
        }
        if (l->nequal > 1 && !l->down) snprintf(eq, sizeof eq, ", %u equal", l->nequal);
        const char *arrow = l->down ? (a->ui->utf8 ? "\xe2\x86\x92" : "->") : (a->ui->utf8 ? "\xe2\x86\x90" : "<-");
        if (l->how == FLOW_COMM)
            snprintf(d->text, sizeof d->text, "  %s %s rank %d %s  [send/recv]", arrow, l->down ? "to" : "from", (int)l->rank, id);
        else snprintf(d->text, sizeof d->text, "  %s %s %s %s %s  [%s%s]", arrow, mine, l->down ? "to" : "from", id, l->slot,
                      l->how == FLOW_CHECKSUM ? "checksum" : "stats", eq);
        d->flow = (int)i;
    }
    if (k > FLOW_SHOWN) {
        char more[64];
        snprintf(more, sizeof more, "  ... %ld more", k - FLOW_SHOWN);
        text(p, UI_DIM, "%s", more);
    }
}

/* Lays out the lines for the current selection. */
static void layout_lines(struct dp *p, struct session *a, int width) {
    p->n = 0;
    p->width = width;
    int side = 0;
    int n = tree_node(a, &side);
    const struct graphs_loaded *G = a->graphs ? a->graphs->cur : NULL;
    unsigned gen = a->graphs ? a->graphs->gen : 0;
    if (gen != p->gen || n != p->node || side != p->side) {
        p->top = p->cur = 0;
        p->gen = gen;
        p->node = n;
        p->side = side;
    }
    if (!G || n < 0 || !G->t[side]) {
        text(p, UI_DIM, "%s", G ? "no node selected" : "no graph yet");
        return;
    }
    const struct tree *t = G->t[side];
    const char *id = tree_id(t, n);
    text(p, UI_TITLE, side ? "benchmark %s" : "%s", id);
    int b = side == 0 ? graphs_counterpart(G, n) : -1;
    if (side == 1) {
        int m = G->g ? G->g->bmatch[n] : G->vblink ? G->vblink[n] : -1;
        if (m >= 0) text(p, UI_DIM, "problem counterpart: %s", tree_id(G->t[0], m));
        else text(p, UI_DIM, "%s", "unmatched (M on a problem node matches it)");
    } else if (graphs_is_compare(G)) {
        if (b >= 0) text(p, UI_DIM, G->g && G->g->nodes[n].manual ? "benchmark: %s  (matched by hand)" : "benchmark: %s",
                         tree_id(G->t[1], b));
        else if (graphs_mark(G, n) == AM_UNMATCHED) text(p, UI_BAD, "%s", "unmatched: no benchmark node (M matches by hand)");
    }
    /* communication peers */
    if (side == 0) {
        const struct graphs_peer *peers;
        size_t np;
        struct pt_error err;
        if (graphs_peers(a, n, &peers, &np, &err) != 0) text(p, UI_ERROR, "peers: %s", err.msg);
        else if (np) {
            text(p, UI_TITLE, "%s", "communication peers (Enter shows one)");
            for (size_t i = 0; i < np; i++) {
                struct dline *d = add(p, UI_NORMAL);
                if (!d) break;
                char esc[400];
                pt_escape(peers[i].node, strlen(peers[i].node), esc, sizeof esc);
                snprintf(d->text, sizeof d->text, "  %s rank %d  %s", comm_type_name(peers[i].type), (int)peers[i].rank, esc);
                d->peer = (int)i;
            }
        } else if (!strncmp(id, "Distributed.", 12) && !(a->graphs && a->graphs->visdb)) {
            text(p, UI_DIM, "%s", "communication peers: none found on the other ranks of this step");
        }
    }
    /* the rows */
    if (G->vin[side]) visdb_rows(p, G, n, side);
    else if (side == 0 && G->g && b >= 0 && G->g->nodes[n].nrows) compare_rows(p, G, n);
    else if (side == 0 && G->g && b >= 0) {
        text(p, UI_DIM, "%s", "matched; nothing to compare (no inputs or outputs)");
    } else side_rows(p, t, n, side ? "benchmark" : "problem");
    if (side == 0) flow_rows(p, a, n);
    /* stacks */
    stack_rows(p, t, n, side ? "benchmark" : "problem", width - 1);
    if (side == 0 && b >= 0 && G->t[1]) stack_rows(p, G->t[1], b, "benchmark", width - 1);
}

/* A number that does not fit is rounded to the room (text_fmt_fit:
 * "74.3392%", "-1.22e-4") rather than cut in the middle; a dtype loses its
 * "torch." / "mindspore." first. */
static const char *fit_number(const char *s, int room, char *buf, size_t size) {
    if (text_width(s) <= room || !s[0]) return s;
    char *e;
    double v = strtod(s, &e);
    int pct = *e == '%' && !e[1];
    if (e == s || (*e && !pct)) {
        const char *dot = strchr(s, '.');
        if (dot && (!strncmp(s, "torch.", 6) || !strncmp(s, "mindspore.", 10))) return dot + 1;
        return s;
    }
    return text_fmt_fit(v, room, pct ? "%" : "", buf, size);
}

static void draw_line(WINDOW *w, struct ui *u, int y, int x0, int width, const struct dline *d, int selected) {
    ui_role(w, u, selected ? UI_AXIS_SEL : d->role);
    ui_fill(w, y, x0, width);
    char fit[1024];
    if (!d->ncells) {
        ui_put(w, y, x0, width, text_fit(d->text, width, TEXT_CUT_RIGHT, u->utf8, fit, sizeof fit));
        return;
    }
    /* label, then the block's grid of columns */
    int ncol = d->ncells - 1;
    int grid = d->grid > 0 ? d->grid : 1;
    /* narrow: labels of one-value lines (the tensor metrics, "EucDist")
     * get the room the four-column blocks cannot spare */
    int lw = width >= 40 ? 9 : grid == 1 ? 8 : 6;
    int cw = (width - lw) / grid;
    /* problem / benchmark only (dtype, shape) in a 4-column block: each
     * takes two columns, so long shapes stay readable */
    if (grid == 4 && ncol == 2) cw *= 2;
    if (cw < 4) cw = 4;
    ui_put(w, y, x0, lw - 1, text_fit(d->cell[0], lw - 1, TEXT_CUT_RIGHT, u->utf8, fit, sizeof fit));
    for (int i = 0; i < ncol; i++) {
        int x = x0 + lw + i * cw;
        if (x >= x0 + width) break;
        int room = i == ncol - 1 && grid == 1 ? width - lw : cw - 1;
        if (x + room > x0 + width) room = x0 + width - x;
        if (room < 1) break;
        char num[64];
        const char *c = fit_number(d->cell[i + 1], room, num, sizeof num);
        ui_put(w, y, x, room, text_fit(c, room, d->role == UI_DIM ? TEXT_CUT_RIGHT : TEXT_CUT_MIDDLE, u->utf8, fit, sizeof fit));
    }
}

static void detail_draw(struct view *v, struct session *a) {
    struct dp *p = v->priv;
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    int h = v->h, width = v->w;
    werase(w);
    /* a rule on the left separates it from the tree (a blank after it
     * where there is room; under 40x12 too) */
    int x0 = width > 20 ? 2 : width > 6 ? 1 : 0;
    if (x0)
        for (int y = 0; y < h; y++) {
            ui_role(w, u, UI_DIM);
            ui_put(w, y, 0, 1, ui_glyph_vline(u));
        }
    int cw = width - x0;
    ui_role(w, u, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 0, x0, cw);
    ui_put(w, 0, x0, cw, "Detail");
    if (h < 2 || cw < 4) return;
    layout_lines(p, a, cw);
    p->body_h = h - 1;
    if (p->cur >= p->n) p->cur = p->n ? p->n - 1 : 0;
    if (p->cur < p->top) p->top = p->cur;
    if (p->cur >= p->top + (size_t)p->body_h) p->top = p->cur - (size_t)p->body_h + 1;
    for (int r = 0; r < p->body_h; r++) {
        size_t i = p->top + (size_t)r;
        if (i >= p->n) break;
        draw_line(w, u, 1 + r, x0, cw, &p->l[i], v->focused && i == p->cur);
    }
    if (p->n > (size_t)p->body_h) {
        char pos[32];
        snprintf(pos, sizeof pos, " %zu/%zu", p->cur + 1, p->n);
        ui_role(w, u, UI_DIM);
        int pw = text_width(pos);
        if (pw < cw - 8) ui_put(w, 0, width - pw, pw, pos);
    }
}

static void jump_peer(struct dp *p, struct session *a) {
    if (p->cur >= p->n || p->l[p->cur].peer < 0) {
        session_msg(a, "Enter on a communication peer shows it");
        return;
    }
    const struct graphs_peer *peers;
    size_t np;
    struct pt_error err;
    int side;
    int n = tree_node(a, &side);
    if (graphs_peers(a, n, &peers, &np, &err) != 0 || (size_t)p->l[p->cur].peer >= np) return;
    const struct graphs_peer *pe = &peers[p->l[p->cur].peer];
    struct graphs *c = a->graphs;
    free(c->select_after);
    c->select_after = strdup(pe->node);
    int32_t step = c->cur->step, rank = pe->rank;
    if (graphs_load(a, step, rank, &err) != 0) {
        session_err(a, "%s", err.msg);
        return;
    }
    a->host->show(a, "tree");
    session_msg(a, "loading rank %d for %s...", (int)rank, pe->node);
}

/* <, > and Backspace: as in the tree (views/tree_flow.c); Enter on a data-flow line: that link. */
static void flow_key(struct dp *p, struct session *a, int action) {
    struct pt_error err;
    int side, n = tree_node(a, &side), k = 0;
    struct flow_link l, fl[FLOW_SHOWN];
    if (action == DA_FLOW_BACK) {
        if (flow_back(a, &err) != 0) session_msg(a, "%s", err.msg);
        return;
    }
    if (n < 0 || side) {
        session_msg(a, "< and > follow a problem node's tensors");
        return;
    }
    if (action == DA_ENTER) {
        long nl = flow_links(a, n, fl, FLOW_SHOWN, &err);
        k = nl < 0 ? -1 : p->l[p->cur].flow < nl ? 1 : 0;
        if (k > 0) l = fl[p->l[p->cur].flow];
    } else k = flow_pick(a, n, action == DA_FLOW_DOWN, &l, &err);
    if (k < 0) session_err(a, "%s", err.msg);
    else if (!k) session_msg(a, action == DA_FLOW_DOWN ? "no consumer found for this node's outputs" : "no producer found for this node's inputs");
    else if (flow_follow(a, n, &l, &err) != 0) session_err(a, "%s", err.msg);
}

static int detail_key(struct view *v, struct session *a, int action, int key) {
    struct dp *p = v->priv;
    long page = p->body_h > 2 ? p->body_h - 1 : 1;
    if (nav_of_key(key)) action = detail_nav[nav_of_key(key)];
    if (action == DA_ENTER && p->cur < p->n && p->l[p->cur].flow >= 0) { flow_key(p, a, DA_ENTER); return 1; }
    if (action == DA_FLOW_UP || action == DA_FLOW_DOWN || action == DA_FLOW_BACK) { flow_key(p, a, action); return 1; }
    if (action == DA_ENTER) { jump_peer(p, a); return 1; }
    int mv = nav_move_of(detail_nav, action);
    if (!mv) return 0;
    p->cur = (size_t)nav_target(mv, (long)p->cur, (long)p->n, page);
    return 1;
}

static int detail_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct dp *p = v->priv;
    (void)a;
    if (m->wheel) return detail_key(v, a, m->wheel < 0 ? DA_UP : DA_DOWN, 0);
    if (m->button == 1 && m->y >= 1) {
        size_t i = p->top + (size_t)(m->y - 1);
        if (i < p->n) p->cur = i;
        if (m->dbl) detail_key(v, a, DA_ENTER, 0);
        return 1;
    }
    return 0;
}

/* y: the node shown, as the dump spells it. */
static int detail_copy(struct view *v, struct session *a, char *buf, size_t size) {
    (void)v;
    int side = 0, n = tree_node(a, &side);
    const struct graphs_loaded *G = a->graphs ? a->graphs->cur : NULL;
    if (!G || n < 0 || !G->t[side]) return 0;
    snprintf(buf, size, "%s", tree_id(G->t[side], n));
    return 1;
}

static void detail_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct dp *p = v->priv;
    (void)a;
    snprintf(buf, size, "line %zu of %zu\nj/k scroll  Enter on a peer or flow line shows it  </> data flow  Tab back", p->n ? p->cur + 1 : 0, p->n);
}

static int detail_init(struct view *v, struct session *a, struct pt_error *err) {
    (void)a;
    struct dp *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    p->node = -1;
    v->priv = p;
    return 0;
}

static void detail_free(struct view *v) {
    struct dp *p = v->priv;
    if (!p) return;
    free(p->l);
    free(p);
    v->priv = NULL;
}

static int detail_available(const struct session *a) { return a->graphs != NULL; }

const struct view_ops view_detail = {
    .name = "detail",
    .title = "Detail",
    .init = detail_init,
    .free = detail_free,
    .available = detail_available,
    .draw = detail_draw,
    .key = detail_key,
    .mouse = detail_mouse,
    .status = detail_status,
    .copy = detail_copy,
    .hints = "j/k scroll  Enter on a peer or flow line shows it  </> data flow  Tab back",
    .keys = detail_keys,
    .nkeys = sizeof detail_keys / sizeof detail_keys[0],
};
