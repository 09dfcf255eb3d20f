/* summary pane: the whole run at a glance in compare mode -- one cell per
 * (step, rank) pair the two runs share, ranks down, steps across (as the
 * overflow grid), each cell the pair's verdict as a glyph readable without
 * colour ("x" error, "!" warning, "." pass, "?" only unmatched nodes, "-"
 * not compared, "~" still comparing) and its counts of error / warning /
 * unmatched problem nodes ("*" marks the run's first divergence).  Below
 * the grid, the selected pair in words.
 *
 * The numbers come from the scan of src/session/graphs.c (every pair compared
 * once in the background); this pane owns only its cursor, the scroll
 * offsets and the grid's placement on screen (for the mouse).  Enter opens
 * the pair's tree on its first divergent node; f opens the run's first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/session/graphs.h"
#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

enum { SA_LEFT = 1, SA_RIGHT, SA_UP, SA_DOWN, SA_PGUP, SA_PGDN, SA_HOME, SA_END, SA_OPEN, SA_FIRST, SA_HALFUP,
       SA_HALFDN };

/* the shared navigation keys (ui/nav.h) as this pane's actions: rows are ranks; top and
 * bottom are the first and the last pair */
static const int sum_nav[NAV_COUNT] = {
    [NAV_UP] = SA_UP, [NAV_DOWN] = SA_DOWN, [NAV_PGUP] = SA_PGUP, [NAV_PGDN] = SA_PGDN,
    [NAV_HALFUP] = SA_HALFUP, [NAV_HALFDN] = SA_HALFDN, [NAV_TOP] = SA_HOME, [NAV_BOTTOM] = SA_END,
};

struct sp {
    int s, r;              /* cursor: indexes into a->graphs->steps / ranks */
    int moved;             /* the user moved it (the scan's end does not then) */
    int placed;            /* put on the first divergence once */
    int top, left;         /* first rank row / step column shown */
    long *cell;            /* [r * nsteps + s] -> pair index, -1 none */
    /* placement of the last frame, for the mouse */
    int gy, gx, cw, nrow, ncol;
};

static const struct keys_row summary_keys[] = {
    {KEYS_LEFT, NULL, SA_LEFT, "previous step"}, {'h', NULL, SA_LEFT, NULL},
    {KEYS_RIGHT, NULL, SA_RIGHT, "next step"}, {'l', NULL, SA_RIGHT, NULL},
    {KEYS_UP, NULL, SA_UP, "previous rank"}, {'k', NULL, SA_UP, NULL},
    {KEYS_DOWN, NULL, SA_DOWN, "next rank"}, {'j', NULL, SA_DOWN, NULL},
    {KEYS_PGUP, NULL, SA_PGUP, "ranks: page up"}, {KEYS_PGDN, NULL, SA_PGDN, "ranks: page down"},
    {KEYS_CTRL('u'), NULL, SA_HALFUP, "ranks: half a page up"}, {KEYS_CTRL('d'), NULL, SA_HALFDN, "ranks: half a page down"},
    {KEYS_HOME, NULL, SA_HOME, "the first pair"}, {'g', NULL, SA_HOME, NULL},
    {KEYS_END, NULL, SA_END, "the last pair"}, {'G', NULL, SA_END, NULL},
    {KEYS_ENTER, NULL, SA_OPEN, "open the pair's tree on its first divergent node"},
    {'f', NULL, SA_FIRST, "open the tree on the run's first divergence"},
};

static int nsteps(const struct session *a) { return a->graphs ? a->graphs->nsteps : 0; }
static int nranks(const struct session *a) { return a->graphs ? a->graphs->nranks : 0; }

static long pair_at(const struct sp *p, const struct session *a, int s, int r) {
    if (!p->cell || s < 0 || r < 0 || s >= nsteps(a) || r >= nranks(a)) return -1;
    return p->cell[(size_t)r * (size_t)nsteps(a) + (size_t)s];
}

/* ---- cell text ---- */

enum { CK_NONE, CK_PENDING, CK_FAILED, CK_PASS, CK_UNMATCHED, CK_WARN, CK_ERROR };

static int cell_kind(const struct compare_run_pair *c) {
    if (!c) return CK_PENDING;
    if (c->state == COMPARE_RUN_FAILED) return CK_FAILED;
    if (c->nerror) return CK_ERROR;
    if (c->nwarning) return CK_WARN;
    if (c->nunmatched) return CK_UNMATCHED;
    return CK_PASS;
}

static const char *kind_glyph(const struct ui *u, int k) {
    switch (k) {
    case CK_PENDING: return "~";
    case CK_FAILED: return "-";
    case CK_PASS: return u->utf8 ? "\xe2\x80\xa2" : ".";
    case CK_UNMATCHED: return "?";
    case CK_WARN: return "!";
    case CK_ERROR: return u->utf8 ? "\xc3\x97" : "x";
    default: return " ";
    }
}

static int kind_role(int k) {
    return k == CK_ERROR ? UI_BAD : k == CK_WARN ? UI_WARN : k == CK_PASS ? UI_OK : UI_DIM;
}

/* The numbers of a cell: "E/W/U" (full) or the one that sets its level. */
static void cell_numbers(const struct compare_run_pair *c, int full, char *buf, size_t size) {
    buf[0] = '\0';
    if (!c || c->state != COMPARE_RUN_DONE) return;
    if (full) snprintf(buf, size, "%zu/%zu/%zu", c->nerror, c->nwarning, c->nunmatched);
    else if (c->nerror) snprintf(buf, size, "%zu", c->nerror);
    else if (c->nwarning) snprintf(buf, size, "%zu", c->nwarning);
    else if (c->nunmatched) snprintf(buf, size, "%zu", c->nunmatched);
}

/* "NAME in MODULE" in at most width columns: the module shortened first
 * (wrapper words out, "layers.1" as "L1": what names the layer stays),
 * then the name cut in the middle. */
static char *fit_where(const char *name, const char *in, int width, int utf8, char *buf, size_t size) {
    char en[1100], ei[1100], cut[1100];
    pt_escape(name, strlen(name), en, sizeof en);
    if (!in) return text_fit(en, width, TEXT_CUT_MIDDLE, utf8, buf, size);
    pt_escape(in, strlen(in), ei, sizeof ei);
    int room = width - text_width(en) - 4;
    if (room >= 10) {
        snprintf(buf, size, "%s in %s", en, text_short_target(ei, room, utf8, cut, sizeof cut));
        return buf;
    }
    return text_fit(en, width, TEXT_CUT_MIDDLE, utf8, buf, size);
}

/* ---- drawing ---- */

static void line(WINDOW *w, const struct ui *u, int y, int width, int role, const char *text) {
    ui_role(w, u, role);
    ui_fill(w, y, 0, width);
    ui_put(w, y, 0, width, text);
}

/* The run's first divergence in words, for the pane and the status line. */
static void first_text(struct session *a, int width, char *buf, size_t size) {
    const struct graphs *c = a->graphs;
    long k;
    int which;
    int st = graphs_run_first(a, &k, &which);
    if (st < 0) {
        snprintf(buf, size, "first divergence: comparing the run, %zu of %zu pairs done",
                 (size_t)atomic_load(&c->sdone), c->npairs);
        return;
    }
    if (st == 0) {
        snprintf(buf, size, "no divergence: every node of the %zu pairs passes", c->npairs);
        return;
    }
    /* "first error" / "first warning": the run's first divergence and its level */
    const struct compare_run_first *f = graphs_run_first_node(a);
    char head[160], where[1200];
    snprintf(head, sizeof head, "first %s: step %d rank %d ", which == COMPARE_RUN_ERR ? "error" : "warning", (int)f->at.step,
             (int)f->at.rank);
    fit_where(f->name, f->in, width - text_width(head), a->ui->utf8, where, sizeof where);
    snprintf(buf, size, "%s%s", head, where);
}

static void sum_draw(struct view *v, struct session *a) {
    struct sp *p = v->priv;
    WINDOW *w = v->win;
    const struct ui *u = a->ui;
    const struct graphs *c = a->graphs;
    int h = v->h, width = v->w;
    werase(w);
    char buf[1400];
    size_t done = (size_t)atomic_load(&c->sdone), nerr = 0, nwarn = 0, nfail = 0;
    for (size_t i = 0; i < c->npairs; i++) {
        const struct compare_run_pair *cp = graphs_summary(a, i);
        int k = cell_kind(cp);
        nerr += k == CK_ERROR;
        nwarn += k == CK_WARN;
        nfail += k == CK_FAILED;
    }
    const char *ss = nsteps(a) == 1 ? "" : "s", *rs = nranks(a) == 1 ? "" : "s";
    if (c->sfinished)
    {
        int k = snprintf(buf, sizeof buf, "Run  %d step%s x %d rank%s: %zu pairs, %zu with errors, %zu with warnings only%s",
                         nsteps(a), ss, nranks(a), rs, c->npairs, nerr, nwarn, nfail ? ", some not compared" : "");
        if (c->nalone) snprintf(buf + k, sizeof buf - (size_t)k, ", %zu in one dump only (-)", c->nalone);
    }
    else
        snprintf(buf, sizeof buf, "Run  %d step%s x %d rank%s  comparing %zu/%zu...", nsteps(a), ss, nranks(a), rs, done,
                 c->npairs);
    line(w, u, 0, width, v->focused ? UI_TITLE_FOCUS : UI_TITLE, buf);
    if (h < 2) return;
    first_text(a, width, buf, sizeof buf);
    long fk;
    int fw;
    int have_first = graphs_run_first(a, &fk, &fw) == 1;
    line(w, u, 1, width, have_first ? (fw == COMPARE_RUN_ERR ? UI_BAD : UI_WARN) : UI_NORMAL, buf);

    /* cell width: the full counts when every step fits, else the level's count */
    int ns = nsteps(a), nr = nranks(a), numw_full = 0, numw = 0;
    for (size_t i = 0; i < c->npairs; i++) {
        char nb[96];
        cell_numbers(graphs_summary(a, i), 1, nb, sizeof nb);
        if ((int)strlen(nb) > numw_full) numw_full = (int)strlen(nb);
        cell_numbers(graphs_summary(a, i), 0, nb, sizeof nb);
        if ((int)strlen(nb) > numw) numw = (int)strlen(nb);
    }
    char lab[64];
    snprintf(lab, sizeof lab, "rank %d", (int)c->ranks[nr - 1]);
    int labw = text_width(lab) + 1;
    if (labw < 6) labw = 6;
    for (int s = 0; s < ns; s++) {
        snprintf(lab, sizeof lab, "%d", (int)c->steps[s]);
        if ((int)strlen(lab) > numw) numw = (int)strlen(lab);
    }
    int full = labw + ns * (numw_full + 3) <= width;
    int cw = (full ? numw_full : numw) + 3;   /* glyph, numbers, first mark, gap */
    if (cw < 4) cw = 4;
    if (h >= 3)
        line(w, u, 2, width, UI_HINT,
             full ? "cells: level errors/warnings/unmatched nodes  * first divergence  Enter tree  f first"
                  : "cells: level and errors (else warnings)  * first divergence  Enter tree  f first");
    int gy = 3;
    int rows_room = h - gy - 1 - 4;   /* ruler, and the selected pair below */
    if (rows_room < 1) rows_room = h - gy - 1;
    if (rows_room < 1) return;
    int ncol = (width - labw) / cw;
    if (ncol < 1) ncol = 1;
    int nrow = nr < rows_room ? nr : rows_room;
    /* keep the cursor in view */
    if (p->s < p->left) p->left = p->s;
    if (p->s >= p->left + ncol) p->left = p->s - ncol + 1;
    if (p->r < p->top) p->top = p->r;
    if (p->r >= p->top + nrow) p->top = p->r - nrow + 1;
    p->gy = gy + 1;
    p->gx = labw;
    p->cw = cw;
    p->nrow = nrow;
    p->ncol = ncol;
    /* the step ruler */
    ui_role(w, u, UI_AXIS);
    ui_fill(w, gy, 0, width);
    ui_put(w, gy, 0, labw, ns > ncol ? (p->left ? "< step" : "step >") : "step");
    for (int cx = 0; cx < ncol && p->left + cx < ns; cx++) {
        snprintf(lab, sizeof lab, "%d", (int)c->steps[p->left + cx]);
        ui_put(w, gy, labw + cx * cw + 1, cw - 1, lab);
    }
    for (int ry = 0; ry < nrow; ry++) {
        int r = p->top + ry, y = gy + 1 + ry;
        ui_role(w, u, UI_AXIS);
        ui_fill(w, y, 0, width);
        snprintf(lab, sizeof lab, "rank %d", (int)c->ranks[r]);
        ui_put(w, y, 0, labw, lab);
        for (int cx = 0; cx < ncol && p->left + cx < ns; cx++) {
            int s = p->left + cx, x = labw + cx * cw;
            long k = pair_at(p, a, s, r);
            int sel = s == p->s && r == p->r;
            if (k < 0) {
                /* no pair: in one dump only (or neither), not compared */
                ui_role(w, u, sel ? UI_AXIS_SEL : UI_DIM);
                ui_put(w, y, x, cw - 1, "-");
                continue;
            }
            const struct compare_run_pair *cp = graphs_summary(a, (size_t)k);
            int kind = cell_kind(cp);
            char nb[96], cell[128];
            cell_numbers(cp, full, nb, sizeof nb);
            snprintf(cell, sizeof cell, "%s%s", nb, have_first && k == fk ? "*" : "");
            if (sel) {
                ui_role(w, u, UI_AXIS_SEL);
                ui_fill(w, y, x, cw - 1);
            }
            ui_role(w, u, sel ? UI_AXIS_SEL : kind_role(kind));
            int gx = ui_put(w, y, x, cw - 1, kind_glyph(u, kind));
            ui_role(w, u, sel ? UI_AXIS_SEL : kind == CK_ERROR || kind == CK_WARN ? kind_role(kind) : UI_NORMAL);
            ui_put(w, y, x + gx, cw - 1 - gx, cell);
        }
    }
    /* the selected pair in words */
    int y = gy + 1 + nrow + 1;
    long k = pair_at(p, a, p->s, p->r);
    if (y >= h || k < 0) return;
    const struct compare_run_pair *cp = graphs_summary(a, (size_t)k);
    int step = (int)c->steps[p->s], rank = (int)c->ranks[p->r];
    if (!cp) snprintf(buf, sizeof buf, "step %d rank %d: being compared...", step, rank);
    else if (cp->state == COMPARE_RUN_FAILED) {
        char esc[1024];
        snprintf(buf, sizeof buf, "step %d rank %d: not compared: %s", step, rank,
                 pt_escape(cp->why, strlen(cp->why), esc, sizeof esc));
    } else
        snprintf(buf, sizeof buf, "step %d rank %d: %zu error, %zu warning, %zu unmatched nodes (%zu benchmark)%s", step,
                 rank, cp->nerror, cp->nwarning, cp->nunmatched, cp->nunmatched_bench,
                 cp->graph ? "" : " (table rows: no structure)");
    line(w, u, y, width, UI_NORMAL, buf);
    if (++y >= h || !cp || cp->state != COMPARE_RUN_DONE) return;
    int wi = cp->first[COMPARE_RUN_ERR].have ? COMPARE_RUN_ERR : COMPARE_RUN_WARN;
    if (!cp->first[wi].have) {
        line(w, u, y, width, UI_OK, "nothing diverges here");
        return;
    }
    char where[1200];
    const char *head = wi == COMPARE_RUN_ERR ? "first error: " : "first warning: ";
    fit_where(cp->first[wi].name, cp->first[wi].in, width - text_width(head), u->utf8, where, sizeof where);
    snprintf(buf, sizeof buf, "%s%s", head, where);
    line(w, u, y, width, wi == COMPARE_RUN_ERR ? UI_BAD : UI_WARN, buf);
}

/* ---- moving and opening ---- */

static void place_first(struct sp *p, struct session *a) {
    long k;
    int which;
    if (graphs_run_first(a, &k, &which) != 1) return;
    const struct graphs *c = a->graphs;
    for (int s = 0; s < nsteps(a); s++)
        if (c->steps[s] == c->pairs[k].step) p->s = s;
    for (int r = 0; r < nranks(a); r++)
        if (c->ranks[r] == c->pairs[k].rank) p->r = r;
}

/* The tree of pair k, on node name (NULL: its root); -1 with a message
 * when it cannot be shown. */
static int open_pair(struct session *a, long k, const char *name) {
    struct graphs *c = a->graphs;
    struct pt_error err;
    if (!a->offers.tree_pane) {
        session_err(a, "no tree for this input");
        return -1;
    }
    if (a->offers.tree_goto(a->offers.tree_pane, a, c->pairs[k].step, c->pairs[k].rank, name, &err) == 0) return 0;
    session_err(a, "%s", err.msg);
    return -1;
}

static void open_cell(struct sp *p, struct session *a) {
    long k = pair_at(p, a, p->s, p->r);
    if (k < 0) {
        session_msg(a, "the two runs do not both have step %d rank %d", (int)a->graphs->steps[p->s], (int)a->graphs->ranks[p->r]);
        return;
    }
    const struct compare_run_pair *cp = graphs_summary(a, (size_t)k);
    const char *name = NULL;
    if (cp && cp->state == COMPARE_RUN_DONE && cp->graph)
        name = cp->first[COMPARE_RUN_ERR].have ? cp->first[COMPARE_RUN_ERR].name : cp->first[COMPARE_RUN_WARN].have ? cp->first[COMPARE_RUN_WARN].name : NULL;
    open_pair(a, k, name);
}

static void open_first(struct sp *p, struct session *a) {
    long k;
    int which;
    int st = graphs_run_first(a, &k, &which);
    if (st < 0) {
        session_msg(a, "still comparing the run (%zu of %zu pairs): f again when it is done",
                (size_t)atomic_load(&a->graphs->sdone), a->graphs->npairs);
        return;
    }
    if (st == 0) {
        session_msg(a, "no divergence: every node of the %zu pairs passes", a->graphs->npairs);
        return;
    }
    place_first(p, a);
    p->moved = 1;
    const struct compare_run_pair *cp = &a->graphs->sum[k];
    const struct compare_run_first *f = graphs_run_first_node(a);
    if (open_pair(a, k, cp->graph ? f->name : NULL) != 0) return;
    char esc[1100], in[1100] = "";
    pt_escape(f->name, strlen(f->name), esc, sizeof esc);
    if (f->in) pt_escape(f->in, strlen(f->in), in, sizeof in);
    session_msg(a, "first divergence: %s  %s  step %d rank %d%s%s", esc, which == COMPARE_RUN_ERR ? "error" : "warning",
            (int)cp->step, (int)cp->rank, in[0] ? "  in " : "", in);
}

static void clamp(struct sp *p, struct session *a) {
    if (p->s >= nsteps(a)) p->s = nsteps(a) - 1;
    if (p->r >= nranks(a)) p->r = nranks(a) - 1;
    if (p->s < 0) p->s = 0;
    if (p->r < 0) p->r = 0;
}

static int sum_key(struct view *v, struct session *a, int action, int key) {
    struct sp *p = v->priv;
    int page = p->nrow > 1 ? p->nrow : 1;
    if (nav_of_key(key)) action = sum_nav[nav_of_key(key)];
    switch (action) {
    case SA_LEFT: p->s--; break;
    case SA_RIGHT: p->s++; break;
    case SA_UP: case SA_DOWN: case SA_PGUP: case SA_PGDN: case SA_HALFUP: case SA_HALFDN:
        p->r += (int)nav_delta(nav_move_of(sum_nav, action), page);
        break;
    case SA_HOME: p->s = p->r = 0; break;
    case SA_END: p->s = nsteps(a) - 1; p->r = nranks(a) - 1; break;
    case SA_OPEN: open_cell(p, a); return 1;
    case SA_FIRST: open_first(p, a); return 1;
    default: return 0;
    }
    p->moved = 1;
    clamp(p, a);
    return 1;
}

static int sum_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct sp *p = v->priv;
    if (m->wheel) {
        p->r += 3 * m->wheel;
        clamp(p, a);
        p->moved = 1;
        return 1;
    }
    if (m->button != 1 || p->cw <= 0) return 0;
    int ry = m->y - p->gy, cx = m->x >= p->gx ? (m->x - p->gx) / p->cw : -1;
    if (ry < 0 || ry >= p->nrow || cx < 0 || cx >= p->ncol) return 0;
    p->r = p->top + ry;
    p->s = p->left + cx;
    clamp(p, a);
    p->moved = 1;
    if (m->dbl) open_cell(p, a);
    return 1;
}

static void sum_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct sp *p = v->priv;
    char first[1400];
    first_text(a, getmaxx(stdscr), first, sizeof first);   /* the status line's width */
    long k = pair_at(p, a, p->s, p->r);
    const struct compare_run_pair *cp = k >= 0 ? graphs_summary(a, (size_t)k) : NULL;
    char cell[300];
    if (k < 0 && p->s >= 0 && p->s < nsteps(a) && p->r >= 0 && p->r < nranks(a))
        snprintf(cell, sizeof cell, "step %d rank %d: not compared (in one dump only, or in neither)", (int)a->graphs->steps[p->s],
                 (int)a->graphs->ranks[p->r]);
    else if (k < 0) snprintf(cell, sizeof cell, "no pair here");
    else if (!cp) snprintf(cell, sizeof cell, "step %d rank %d: being compared", (int)a->graphs->steps[p->s], (int)a->graphs->ranks[p->r]);
    else if (cp->state == COMPARE_RUN_FAILED) snprintf(cell, sizeof cell, "step %d rank %d: not compared", (int)cp->step, (int)cp->rank);
    else snprintf(cell, sizeof cell, "step %d rank %d: %zu error %zu warning %zu unmatched  Enter tree  f first", (int)cp->step,
                  (int)cp->rank, cp->nerror, cp->nwarning, cp->nunmatched);
    snprintf(buf, size, "%s\n%s", first, cell);
}

static void sum_notify(struct view *v, struct session *a, unsigned what) {
    struct sp *p = v->priv;
    /* the scan ended: the cursor goes to the first divergence, unless the
     * user has put it somewhere */
    if ((what & SESSION_CH_GRAPH) && a->graphs && a->graphs->sfinished && !p->placed) {
        p->placed = 1;
        if (!p->moved) place_first(p, a);
    }
}

static int sum_init(struct view *v, struct session *a, struct pt_error *err) {
    struct sp *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    const struct graphs *c = a->graphs;
    size_t n = (size_t)c->nsteps * (size_t)c->nranks;
    p->cell = malloc((n ? n : 1) * sizeof *p->cell);
    if (!p->cell) {
        free(p);
        return pt_errorf(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) p->cell[i] = -1;
    for (size_t i = 0; i < c->npairs; i++) {
        int s = -1, r = -1;
        for (int k = 0; k < c->nsteps; k++)
            if (c->steps[k] == c->pairs[i].step) s = k;
        for (int k = 0; k < c->nranks; k++)
            if (c->ranks[k] == c->pairs[i].rank) r = k;
        if (s >= 0 && r >= 0) p->cell[(size_t)r * (size_t)c->nsteps + (size_t)s] = (long)i;
    }
    v->priv = p;
    return 0;
}

static void sum_free(struct view *v) {
    struct sp *p = v->priv;
    if (!p) return;
    free(p->cell);
    free(p);
    v->priv = NULL;
}

static int sum_available(const struct session *a) { return a->graphs && a->graphs->summary; }

const struct view_ops view_summary = {
    .name = "summary",
    .title = "Run",
    .init = sum_init,
    .free = sum_free,
    .available = sum_available,
    .draw = sum_draw,
    .key = sum_key,
    .mouse = sum_mouse,
    .notify = sum_notify,
    .status = sum_status,
    .hints = "arrows move  Enter tree of the pair  f first divergence  F6 tree",
    .keys = summary_keys,
    .nkeys = sizeof summary_keys / sizeof summary_keys[0],
};
