/* overflow pane: NaN/Inf triage across all steps and ranks.
 *
 * Owns the filtered list of flagged records (the dataset's ovf list for
 * dumps; for monitor data and .trend.db files the non-finite cells of the
 * cube, scanned here once, without levels) as display lines: the rows of
 * model/overflow/ovfrows.h (NaN/Inf first, numeric-jump records grouped by name)
 * under headings per part and step; the step x rank grid drawn above it,
 * the level / rank / step filters and the cursor.  The list and the grid
 * are built in views/overflow_list.c (views/overflow.h between the two).
 * Enter jumps to the record: the graph pane's `:node` when a graph pane is
 * there, otherwise its cell in the heat map.  A monitor dataset's msProbe
 * anomaly reports (model/overflow/anomaly.h) are listed first, in msProbe's
 * first-anomaly order; Enter on one shows the cell its tag names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/anomaly.h"
#include "model/cube/cube.h"
#include "model/cube/cube_lazy.h"
#include "model/util/util.h"
#include "model/overflow/overflow.h"
#include "model/overflow/ovfrows.h"
#include "model/cube/search.h"
#include "src/session/graphs.h"
#include "src/session/origin_search.h"
#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/overflow.h"
#include "views/view.h"

enum {
    OA_DOWN = 1, OA_UP, OA_PGDN, OA_PGUP, OA_HALFDN, OA_HALFUP, OA_TOP, OA_BOTTOM,
    OA_CRIT, OA_HIGH, OA_MED, OA_RANK, OA_STEP, OA_CLEAR, OA_FIRST, OA_FIRST_ANOMALY, OA_JUMP
};

/* the shared navigation keys (ui/nav.h) as this pane's actions */
static const int ovf_nav[NAV_COUNT] = {
    [NAV_UP] = OA_UP, [NAV_DOWN] = OA_DOWN, [NAV_PGUP] = OA_PGUP, [NAV_PGDN] = OA_PGDN,
    [NAV_HALFUP] = OA_HALFUP, [NAV_HALFDN] = OA_HALFDN, [NAV_TOP] = OA_TOP, [NAV_BOTTOM] = OA_BOTTOM,
};

static const struct keys_row ovf_keys[] = {
    { 'j', NULL, OA_DOWN, "next entry" },
    { KEYS_DOWN, NULL, OA_DOWN, "next entry" },
    { 'k', NULL, OA_UP, "previous entry" },
    { KEYS_UP, NULL, OA_UP, "previous entry" },
    { KEYS_PGDN, NULL, OA_PGDN, "page down" },
    { KEYS_PGUP, NULL, OA_PGUP, "page up" },
    { KEYS_CTRL('d'), NULL, OA_HALFDN, "half a page down" },
    { KEYS_CTRL('u'), NULL, OA_HALFUP, "half a page up" },
    { 'g', NULL, OA_TOP, "first entry" },
    { KEYS_HOME, NULL, OA_TOP, "first entry" },
    { 'G', NULL, OA_BOTTOM, "last entry" },
    { KEYS_END, NULL, OA_BOTTOM, "last entry" },
    { '1', NULL, OA_CRIT, "show/hide critical entries" },
    { '2', NULL, OA_HIGH, "show/hide high entries" },
    { '3', NULL, OA_MED, "show/hide medium entries" },
    { 'r', NULL, OA_RANK, "only the selected entry's rank (again: all ranks)" },
    { 's', NULL, OA_STEP, "only the selected entry's step (again: all steps)" },
    { 'c', NULL, OA_CLEAR, "clear the level, rank and step filters" },
    { 'F', NULL, OA_FIRST, "jump to the first occurrence (the origin, else the first NaN/Inf; without any, the first msProbe anomaly report)" },
    { 'A', NULL, OA_FIRST_ANOMALY, "jump to the first msProbe anomaly report" },
    { KEYS_ENTER, NULL, OA_JUMP, "show the record in the graph pane, else its heat-map cell" },
};

/* ---- helpers ---- */

static const struct ovf_entry *cur_entry(const struct ovp *p) {
    if (!p->nlines || p->cur >= p->nlines || p->lines[p->cur].heading || p->lines[p->cur].section == OVFROWS_ANOMALY)
        return NULL;
    return &p->list->v[p->lines[p->cur].entry];
}

/* The anomaly report under the cursor, or NULL. */
static const struct anomaly *cur_anomaly(const struct ovp *p) {
    if (!p->nlines || p->cur >= p->nlines || p->lines[p->cur].heading || p->lines[p->cur].section != OVFROWS_ANOMALY)
        return NULL;
    return &p->anom->v[p->lines[p->cur].entry];
}

static const char *level_mark(const struct ui *u, int levels, int level) {
    if (!levels) return u->utf8 ? "\xe2\x96\x88!" : "#!";
    switch (level) {
    case OVF_CRITICAL: return u->utf8 ? "\xe2\x96\x88" "C" : "#C";
    case OVF_HIGH: return u->utf8 ? "\xe2\x96\x93" "H" : "+H";
    case OVF_MEDIUM: return u->utf8 ? "\xe2\x96\x91" "M" : "-M";
    default: return "  ";
    }
}

static int level_role(int levels, int level) {
    if (!levels) return UI_NAN;
    return level == OVF_CRITICAL ? UI_BAD : level == OVF_HIGH ? UI_WARN : level == OVF_MEDIUM ? UI_HINT : UI_DIM;
}

/* Grid cell glyph: worst level (g = level + 1), clean, or no data. */
static const char *grid_glyph(const struct ui *u, int levels, int g) {
    if (g == 0) return u->utf8 ? "\xc2\xb7" : ".";
    if (!levels) return u->utf8 ? "\xe2\x96\x88" : "#";
    switch (g - 1) {
    case OVF_CRITICAL: return u->utf8 ? "\xe2\x96\x88" : "#";
    case OVF_HIGH: return u->utf8 ? "\xe2\x96\x93" : "+";
    default: return u->utf8 ? "\xe2\x96\x91" : "-";
    }
}

/* Moves the cursor to entry line `to` (clamped, skipping headings in the
 * direction of travel). */
static void move_to(struct ovp *p, long to, int dir) {
    if (!p->nlines) return;
    if (to < 0) to = 0;
    if (to >= (long)p->nlines) to = (long)p->nlines - 1;
    while (to >= 0 && to < (long)p->nlines && p->lines[to].heading) to += dir >= 0 ? 1 : -1;
    if (to < 0 || to >= (long)p->nlines) {   /* ran off: search the other way */
        to = to < 0 ? 0 : (long)p->nlines - 1;
        while (to >= 0 && to < (long)p->nlines && p->lines[to].heading) to += dir >= 0 ? -1 : 1;
        if (to < 0 || to >= (long)p->nlines) return;
    }
    p->cur = (size_t)to;
}

/* ---- the jump ---- */

/* The cube step index of (step directory, micro step): the exact micro
 * step, else the step's first. */
static int cube_step_of(const struct cube *c, int32_t step, int32_t micro) {
    int first = -1;
    for (int i = 0; i < c->nsteps; i++) {
        if (c->steps[i].origin != step) continue;
        if (first < 0) first = i;
        if (micro < 0 || c->steps[i].micro < 0 || c->steps[i].micro == micro) return i;
    }
    return first;
}

/* The heat-map target of dump record `name` (probetop-rules(7), TREND TARGETS: the key
 * without .forward/.backward, then ".output.i" / ".input.i" with the call
 * index as the target's call).  Micro-step mode renumbers call indices, so
 * among the record's targets the one whose cell at (step, rank) is
 * non-finite wins, then the one with the record's own call index. */
static uint32_t record_target(const struct cube *c, const char *name, int step, int rank, int *metric_out) {
    char key[1024];
    snprintf(key, sizeof key, "%s", name);
    const char *metric = "forward";
    char *p;
    if ((p = strstr(key, ".backward")) != NULL && (p[9] == '\0' || p[9] == '.')) {
        metric = "backward";
        memmove(p, p + 9, strlen(p + 9) + 1);
    } else if ((p = strstr(key, ".forward")) != NULL && (p[8] == '\0' || p[8] == '.')) {
        memmove(p, p + 8, strlen(p + 8) + 1);
    }
    int32_t call = 0;
    char *dot = strrchr(key, '.');
    if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1)) {
        call = (int32_t)atol(dot + 1);
        *dot = '\0';
    }
    size_t klen = strlen(key);
    uint32_t best = NAMES_NONE;
    int best_score = -1, best_metric = -1;
    for (int m = 0; m < c->nmetrics; m++) {
        int mscore = strcmp(c->metrics[m].name, metric) == 0 ? 4 : strcmp(c->metrics[m].name, "recompute") == 0 ? 2 : -1;
        if (mscore < 0) continue;
        const struct cube_metric *cm = &c->metrics[m];
        for (uint32_t lt = 0; lt < cm->ntargets; lt++) {
            uint32_t t = cm->targets[lt];
            const char *tn = names_str(c->names, t);
            if (strncmp(tn, key, klen) != 0 || (strncmp(tn + klen, ".output.", 8) != 0 && strncmp(tn + klen, ".input.", 7) != 0))
                continue;
            int score = mscore + (strncmp(tn + klen, ".output.", 8) == 0);
            if (names_target(c->names, t)->call == call) score += 8;
            if (step >= 0 && rank >= 0) {
                for (int s = 0; s < cm->nstats; s++) {
                    float v = cube_get(c, m, s, lt, step, rank);
                    if (!cube_is_missing(v) && !isfinite(v)) {
                        score += 16;
                        break;
                    }
                }
            }
            if (score > best_score) best_score = score, best = t, best_metric = m;
        }
    }
    *metric_out = best_metric;
    return best;
}

/* The tree pane, when this input has one, takes the jump (its goto offer:
 * expand the ancestors, select). */
static int jump_tree(struct session *a, const struct ovf_entry *e) {
    if (!a->offers.tree_pane) return 0;
    struct pt_error err = {{0}};
    if (a->offers.tree_goto(a->offers.tree_pane, a, e->step, e->rank, e->name, &err) != 0) session_err(a, "%s", err.msg);
    return 1;
}

/* An anomaly report: the cell its tag names (placed by the reader), with
 * the statistic it names when the metric has it. */
static void jump_anomaly(struct session *a, const struct anomaly *an) {
    const struct cube *c = a->cube;
    char esc[512];
    if (!c || !a->host->has(a, "heatmap") || an->metric < 0 || an->metric >= c->nmetrics) {
        session_err(a, "%s has no cell in the heat map (no such metric, target, step or rank in the data)",
                pt_escape(an->tag_name, strlen(an->tag_name), esc, sizeof esc));
        return;
    }
    if (an->metric != a->metric || an->stat >= 0) session_set_metric(a, an->metric, an->stat);
    session_select(a, an->step_idx, an->rank_idx, an->target);
    a->host->show(a, "heatmap");
}

static void jump(struct ovp *p, struct session *a) {
    const struct ovf_entry *e = cur_entry(p);
    const struct cube *c = a->cube;
    const struct anomaly *an = cur_anomaly(p);
    if (an) {
        jump_anomaly(a, an);
        return;
    }
    if (!e) return;
    if (p->levels && jump_tree(a, e)) return;
    if (!c || !a->host->has(a, "heatmap")) {
        session_err(a, "no graph or heat map to show %s in", e->name);
        return;
    }
    int step = cube_step_of(c, e->step, e->micro), rank = cube_rank_find(c, e->rank), metric = -1;
    uint32_t target = NAMES_NONE;
    if (p->levels) {
        target = record_target(c, e->name, step, rank, &metric);
    } else {
        target = e->pos;   /* scanned cells: pos is the target, what starts with the metric */
        char mname[64];
        if (sscanf(e->what, "%63s", mname) == 1) metric = cube_metric_find(c, mname);
    }
    if (target == NAMES_NONE || metric < 0 || step < 0 || rank < 0) {
        char esc[512];
        session_err(a, "%s has no cell in the heat map (not a trend target)",
                pt_escape(e->name, strlen(e->name), esc, sizeof esc));
        return;
    }
    if (metric != a->metric) {
        int stat = a->metric >= 0 && a->metric < c->nmetrics && a->stat >= 0 && a->stat < c->metrics[a->metric].nstats
                       ? cube_stat_find(c, metric, c->metrics[a->metric].stats[a->stat]) : -1;
        session_set_metric(a, metric, stat);
    }
    session_select(a, step, rank, target);
    a->host->show(a, "heatmap");
}

/* ---- ops ---- */

static int ovf_init(struct view *v, struct session *a, struct pt_error *err) {
    struct ovp *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "overflow pane: out of memory");
    p->show = (1u << OVF_CRITICAL) | (1u << OVF_HIGH) | (1u << OVF_MEDIUM);
    p->lead = -1;
    search_init(&p->re);
    v->priv = p;
    if (a->ds && overflow_list_build(p, a, err) != 0) return -1;
    return 0;
}

static void ovf_free(struct view *v) {
    struct ovp *p = v->priv;
    if (!p) return;
    overflow_list_reset(p);
    search_free(&p->re);
    free(p->keep_name);
    free(p);
    v->priv = NULL;
}

static int ovf_available(const struct session *a) {
    return a->mode != SESSION_MODE_VISDB;   /* trend and compare modes have trend data */
}

/* A newer dataset of the input (follow mode): the cursor stays on its
 * entry (same step, micro step, rank, position and name), as far from the
 * top of the list as it was.  keep_place notes it before the swap,
 * find_place finds it once the list is built (at once, or at the draw
 * after a deferred scan). */
static void keep_place(struct ovp *p) {
    const struct ovf_entry *e = cur_entry(p);
    free(p->keep_name);
    p->keep_name = e && e->name ? strdup(e->name) : NULL;
    p->keep_off = p->cur >= p->top ? p->cur - p->top : 0;
    p->keep = e != NULL;
    if (e) p->keep_key = *e;
}

static void find_place(struct ovp *p) {
    if (!p->keep || !p->built) return;
    const struct ovf_entry *k = &p->keep_key;
    for (size_t i = 0; p->keep_name && i < p->nlines; i++) {
        if (p->lines[i].heading) continue;
        const struct ovf_entry *x = &p->list->v[p->lines[i].entry];
        if (x->step == k->step && x->micro == k->micro && x->rank == k->rank && x->pos == k->pos && x->name &&
            !strcmp(x->name, p->keep_name)) {
            p->cur = i;
            p->top = i > p->keep_off ? i - p->keep_off : 0;
            break;
        }
    }
    free(p->keep_name);
    p->keep_name = NULL;
    p->keep = 0;
}

static void ovf_notify(struct view *v, struct session *a, unsigned what) {
    struct ovp *p = v->priv;
    if (!(what & SESSION_CH_DATA)) return;
    struct pt_error err = { { 0 } };
    /* a place is kept only when the user chose it: the cursor an early
     * round of the load left on its first row goes to the new first row */
    if (a->swap_from && p->built) {
        if (p->moved) keep_place(p);
        else p->keep = 0;
    } else if (!a->swap_from) p->keep = 0;
    if (overflow_list_build(p, a, &err) != 0) session_err(a, "%s", err.msg);
    find_place(p);
}

/* One level's count: form 0 "1 critical 7   ", 1 the same with one space
 * after it, 2 "C:7 " (hidden levels in brackets). */
static void level_text(const struct ovp *p, int i, int l, int form, char *buf, size_t n) {
    int on = (p->show >> l) & 1;
    if (form == 2) snprintf(buf, n, on ? ":%zu " : ":(%zu) ", p->counts[l]);
    else snprintf(buf, n, " %d %s %zu%s%s", i + 1, ovf_level_name((enum ovf_level)l), p->counts[l],
                  on ? "" : " (hidden)", form == 0 ? "   " : i < 2 ? " " : "");
}

static const char *level_mark_text(const struct ui *u, int l, int form) {
    return form == 2 ? level_mark(u, 1, l) + (u->utf8 ? 3 : 1) : level_mark(u, 1, l);
}

/* Width the level counts take in a form. */
static int header_levels_width(const struct ovp *p, const struct ui *u, int form) {
    char buf[128];
    int n = 0;
    static const int order[3] = { OVF_CRITICAL, OVF_HIGH, OVF_MEDIUM };
    for (int i = 0; i < 3; i++) {
        level_text(p, i, order[i], form, buf, sizeof buf);
        n += text_width(level_mark_text(u, order[i], form)) + text_width(buf);
    }
    return n;
}

static void draw_header(struct ovp *p, struct session *a, WINDOW *w, int width) {
    const struct ui *u = a->ui;
    char buf[256], filt[64], rb[32] = "all", sb[32] = "all";
    int x = 0;
    if (p->has_rank) snprintf(rb, sizeof rb, "%d", (int)p->rank);
    if (p->has_step) snprintf(sb, sizeof sb, "%d", (int)p->step);
    snprintf(filt, sizeof filt, " rank %s  step %s", rb, sb);
    int fw = text_width(filt);
    ui_role(w, u, UI_NORMAL);
    ui_fill(w, 0, 0, width);
    if (!p->levels) {
        ui_role(w, u, UI_NAN);
        x += ui_put(w, 0, x, width - x, level_mark(u, 0, 0));
        ui_role(w, u, UI_NORMAL);
        snprintf(buf, sizeof buf, " %zu non-finite cells  (levels not available for this input)", p->counts[0]);
        if (x + text_width(buf) + fw > width)
            snprintf(buf, sizeof buf, " %zu non-finite cells (levels not available)", p->counts[0]);
        if (p->anom) {   /* the reports instead of the levels' note */
            snprintf(buf, sizeof buf, " %zu non-finite cells, %zu msProbe anomaly reports", p->counts[0], p->anom->n);
            if (x + text_width(buf) + fw > width) snprintf(buf, sizeof buf, " %zu non-finite, %zu anomalies", p->counts[0], p->anom->n);
        }
        x += ui_put(w, 0, x, width - x, buf);
    } else {
        /* the words while they fit beside the filters, then "C:7 H:126 M:4" */
        int form = 0;
        while (form < 2 && header_levels_width(p, u, form) + fw > width) form++;
        static const int order[3] = { OVF_CRITICAL, OVF_HIGH, OVF_MEDIUM };
        for (int i = 0; i < 3; i++) {
            int l = order[i];
            int on = (p->show >> l) & 1;
            ui_role(w, u, on ? level_role(1, l) : UI_DIM);
            x += ui_put(w, 0, x, width - x, level_mark_text(u, l, form));
            ui_role(w, u, on ? UI_NORMAL : UI_DIM);
            level_text(p, i, l, form, buf, sizeof buf);
            x += ui_put(w, 0, x, width - x, buf);
        }
    }
    ui_role(w, u, UI_HINT);
    ui_put(w, 0, x, width - x, filt);
}

/* The grid: rows = ranks, columns = steps, each cell the worst level of
 * the ranks and steps it covers (several when the window is too small),
 * else the anomaly mark when a report names one of them. */
static int draw_grid(struct ovp *p, struct session *a, WINDOW *w, int y, int width, int max_rows) {
    const struct ui *u = a->ui;
    p->grid_rows = 0;
    if (!p->ngsteps || !p->ngranks || max_rows < 2 || width < 12) return 0;
    char lab[32];
    /* the widest row label: "rank N" or, when rows merge ranks, "rA-B" */
    int last = p->ngranks - 1;
    snprintf(lab, sizeof lab, "r%d-%d", (int)p->granks[last], (int)p->granks[last]);
    int labw = text_width(lab);
    snprintf(lab, sizeof lab, "rank %d", (int)p->granks[last]);
    if (text_width(lab) > labw) labw = text_width(lab);
    labw++;
    int cols = width - labw;
    if (cols < 1) return 0;
    int rows = max_rows - 1;
    p->grid_sper = (p->ngsteps + cols - 1) / cols;
    p->grid_rper = (p->ngranks + rows - 1) / rows;
    int ncols = (p->ngsteps + p->grid_sper - 1) / p->grid_sper;
    int nrows = (p->ngranks + p->grid_rper - 1) / p->grid_rper;
    p->grid_y = y + 1;
    p->grid_x = labw;
    p->grid_rows = nrows;
    p->grid_cols = ncols;

    /* step ruler: a number every 10 columns */
    ui_role(w, u, UI_AXIS);
    ui_fill(w, y, 0, width);
    ui_put(w, y, 0, labw, p->grid_sper > 1 ? "steps" : "step");
    for (int cx = 0; cx < ncols; cx += 10) {
        snprintf(lab, sizeof lab, "%d", (int)p->gsteps[cx * p->grid_sper]);
        ui_put(w, y, labw + cx, width - labw - cx, lab);
    }
    for (int ry = 0; ry < nrows; ry++) {
        int r0 = ry * p->grid_rper;
        ui_role(w, u, UI_AXIS);
        ui_fill(w, y + 1 + ry, 0, width);
        int r1 = r0 + p->grid_rper - 1 < p->ngranks ? r0 + p->grid_rper - 1 : p->ngranks - 1;
        if (r1 > r0) snprintf(lab, sizeof lab, "r%d-%d", (int)p->granks[r0], (int)p->granks[r1]);
        else snprintf(lab, sizeof lab, "rank %d", (int)p->granks[r0]);
        ui_put(w, y + 1 + ry, 0, labw, lab);
        for (int cx = 0; cx < ncols; cx++) {
            int worst = 0, reported = 0, jumped = 0;
            for (int r = r0; r < r0 + p->grid_rper && r < p->ngranks; r++)
                for (int s = cx * p->grid_sper; s < (cx + 1) * p->grid_sper && s < p->ngsteps; s++) {
                    int g = p->grid[(size_t)r * (size_t)p->ngsteps + (size_t)s];
                    reported |= g & GRID_ANOMALY;
                    jumped |= g & GRID_JUMP;
                    if ((g & GRID_LEVEL) > worst) worst = g & GRID_LEVEL;
                }
            /* a NaN/Inf record outranks a report on the same cell (most
             * AnomalyNan reports name a non-finite cell) */
            if (!worst && reported) {
                ui_role(w, u, UI_ANOMALY);
                ui_put(w, y + 1 + ry, labw + cx, 1, u->utf8 ? "\xe2\x97\x86" : "*");
                continue;
            }
            if (!worst && jumped) {   /* the heuristic alone: apart from the levels */
                ui_role(w, u, UI_DIM);
                ui_put(w, y + 1 + ry, labw + cx, 1, u->utf8 ? "\xe2\x88\xbc" : "~");
                continue;
            }
            ui_role(w, u, worst ? level_role(p->levels, worst - 1) : UI_DIM);
            ui_put(w, y + 1 + ry, labw + cx, 1, grid_glyph(u, p->levels, worst));
        }
    }
    return 1 + nrows;
}

/* draw_entry's name column: as wide as the widest name shown, but leaving
 * the non-finite description at least 2/5 of the room. */
static int name_column(struct ovp *p, int room) {
    int widest = 0;
    char name[1024];
    for (int r = 0; r < p->list_h && p->top + (size_t)r < p->nlines; r++) {
        const struct oline *ln = &p->lines[p->top + (size_t)r];
        if (ln->heading) continue;
        const char *n = ln->section == OVFROWS_ANOMALY ? p->anom->v[ln->entry].tag_name : p->list->v[ln->entry].name;
        int wdt = text_width(pt_escape(n, strlen(n), name, sizeof name));
        if (wdt > widest) widest = wdt;
    }
    if (room < 40) return room;   /* too narrow for both: the status line has the rest */
    int cap = room * 3 / 5;
    return widest < cap ? widest : cap;
}

/* A row: a record, or (group != NULL) a numeric-jump group, whose fixed
 * part says "jump" and its number of records instead of rank, micro step
 * and position, and whose description is what it covers. */
static void draw_entry(struct ovp *p, struct session *a, WINDOW *w, int y, int width, const struct ovf_entry *e,
                       const struct ovfrows_row *group, int sel, int name_w) {
    const struct ui *u = a->ui;
    char name[1024], what[512], fit[1024], buf[64];
    ui_role(w, u, sel ? UI_AXIS_SEL : UI_NORMAL);
    ui_fill(w, y, 0, width);
    int x = 0;
    x += ui_put(w, y, x, width - x, sel ? ui_glyph_focus(u) : " ");
    ui_role(w, u, level_role(p->levels, e->level));
    x += ui_put(w, y, x, width - x, level_mark(u, p->levels, e->level));
    ui_role(w, u, sel ? UI_AXIS_SEL : UI_NORMAL);
    if (group) snprintf(buf, sizeof buf, " jump x%-11zu ", group->count);
    else if (e->micro >= 0) snprintf(buf, sizeof buf, " %4d %5d %6u ", (int)e->rank, (int)e->micro, (unsigned)e->pos);
    else snprintf(buf, sizeof buf, " %4d %5s %6u ", (int)e->rank, "-", (unsigned)e->pos);
    x += ui_put(w, y, x, width - x, buf);
    int room = width - x;
    if (room <= 0) return;
    pt_escape(e->name, strlen(e->name), name, sizeof name);
    if (group) ovfrows_group_text(group, 0, what, sizeof what);
    else pt_escape(e->what, strlen(e->what), what, sizeof what);
    if (name_w > room) name_w = room;
    text_fit(name, name_w, TEXT_CUT_MIDDLE, u->utf8, fit, sizeof fit);
    /* the part of the name matching `/` stands out */
    size_t so, eo;
    int nx = x;
    if (search_active(&p->re) && strcmp(fit, name) == 0 && search_find(&p->re, name, strlen(name), 0, &so, &eo) == 1) {
        char part[1024];
        snprintf(part, sizeof part, "%.*s", (int)so, name);
        nx += ui_put(w, y, nx, name_w, part);
        ui_role(w, u, UI_MATCH);
        snprintf(part, sizeof part, "%.*s", (int)(eo - so), name + so);
        nx += ui_put(w, y, nx, x + name_w - nx, part);
        ui_role(w, u, sel ? UI_AXIS_SEL : UI_NORMAL);
        ui_put(w, y, nx, x + name_w - nx, name + eo);
    } else {
        ui_put(w, y, x, name_w, fit);
    }
    x += name_w + 2;
    if (x < width) {
        ui_role(w, u, sel ? UI_AXIS_SEL : level_role(p->levels, e->level) == UI_NAN ? UI_WARN : UI_HINT);
        text_fit(what, width - x, TEXT_CUT_RIGHT, u->utf8, fit, sizeof fit);
        ui_put(w, y, x, width - x, fit);
    }
}

/* An anomaly report's row: its mark, rank, micro step and call id where a
 * record has rank, micro step and position; the tag; the rule and statistic. */
static void draw_anomaly(struct ovp *p, struct session *a, WINDOW *w, int y, int width, const struct anomaly *an, int sel,
                         int name_w) {
    const struct ui *u = a->ui;
    char name[1024], what[256], fit[1024], buf[64];
    ui_role(w, u, sel ? UI_AXIS_SEL : UI_NORMAL);
    ui_fill(w, y, 0, width);
    int x = ui_put(w, y, 0, width, sel ? ui_glyph_focus(u) : " ");
    ui_role(w, u, UI_ANOMALY);
    x += ui_put(w, y, x, width - x, u->utf8 ? "\xe2\x97\x86" "A" : "*A");
    ui_role(w, u, sel ? UI_AXIS_SEL : UI_NORMAL);
    snprintf(buf, sizeof buf, " %4d %5d %6d ", (int)an->rank, (int)an->micro_step, (int)an->call_id);
    x += ui_put(w, y, x, width - x, buf);
    int room = width - x;
    if (room <= 0) return;
    pt_escape(an->tag_name, strlen(an->tag_name), name, sizeof name);
    if (name_w > room) name_w = room;
    text_fit(name, name_w, TEXT_CUT_MIDDLE, u->utf8, fit, sizeof fit);
    ui_put(w, y, x, name_w, fit);
    x += name_w + 2;
    if (x < width) {
        snprintf(what, sizeof what, "%s %s %s%s", anomaly_stage_name(an->stage), anomaly_rule_name((enum anomaly_rule)an->rule),
                 an->op, an->metric < 0 ? " (no cell)" : "");
        ui_role(w, u, sel ? UI_AXIS_SEL : an->rule == ANOM_RULE_NAN ? UI_WARN : UI_HINT);
        text_fit(what, width - x, TEXT_CUT_RIGHT, u->utf8, fit, sizeof fit);
        ui_put(w, y, x, width - x, fit);
    }
    (void)p;
}

/* The deferred scan, done now: the pane is drawn, or a key or command
 * needs its list. */
static void ensure_built(struct ovp *p, struct session *a) {
    if (p->built || !p->deferred) return;
    struct pt_error err = { { 0 } };
    p->drawing = 1;
    if (overflow_list_build(p, a, &err) != 0) session_err(a, "%s", err.msg);
    p->drawing = 0;
    find_place(p);
}

/* The origin, once the background search has it, heads the list; the
 * cursor goes to it unless the user has moved it (probetop-rules(7),
 * ORIGIN ACROSS RANKS). */
static void take_lead(struct ovp *p, struct session *a) {
    if (!p->built || p->lead_known || !p->levels) return;
    long lead = origin_search_entry(a);
    if (lead < 0) return;
    p->lead_known = 1;
    p->lead = lead;
    overflow_list_relist(p);
    if (!p->moved) {
        p->top = 0;
        move_to(p, 0, 1);
    }
}

static void ovf_draw(struct view *v, struct session *a) {
    struct ovp *p = v->priv;
    WINDOW *w = v->win;
    const struct ui *u = a->ui;
    int h = v->h, width = v->w;
    if (!w) return;
    ensure_built(p, a);
    take_lead(p, a);
    if (!p->built) {
        werase(w);
        ui_role(w, u, UI_DIM);
        ui_put(w, 0, 0, width, a->ds ? "no overflow data" : "loading...");
        return;
    }
    draw_header(p, a, w, width);
    int y = 1;
    int grid_max = h >= 12 ? (h - 4) / 3 + 1 : h >= 8 ? 2 : 0;
    if (p->ngranks + 1 < grid_max) grid_max = p->ngranks + 1;
    y += draw_grid(p, a, w, y, width, grid_max);
    if (y < h - 1) {
        /* column titles, aligned with draw_entry's fixed part */
        ui_role(w, u, UI_DIM);
        ui_fill(w, y, 0, width);
        ui_put(w, y, 0, width, "   lvl rank micro    pos name / non-finite");
        y++;
    }
    p->list_y = y;
    p->list_h = h - y;
    if (p->list_h <= 0) return;
    if (p->nlines == 0) {
        for (int r = y; r < h; r++) {
            ui_role(w, u, UI_NORMAL);
            ui_fill(w, r, 0, width);
        }
        ui_role(w, u, UI_OK);
        ui_put(w, y, 1, width - 1,
               p->list->n || p->anom ? "nothing matches the filters (c clears them)" : "no NaN or Inf found in this data");
        return;
    }
    /* after a jump (F) the cursor sits a third down, not on the last line:
     * what follows it is context too */
    if (p->context) {
        size_t third = (size_t)(p->list_h / 3);
        if (p->cur >= p->top + (size_t)p->list_h - third || p->cur < p->top)
            p->top = p->cur > third ? p->cur - third : 0;
        p->context = 0;
    }
    /* keep the cursor visible, with its step heading when possible */
    if (p->cur < p->top) p->top = p->cur > 0 && p->lines[p->cur - 1].heading ? p->cur - 1 : p->cur;
    if (p->cur >= p->top + (size_t)p->list_h) p->top = p->cur - (size_t)p->list_h + 1;
    /* the fixed part of a row: focus mark, level mark, rank, micro, position */
    int name_w = name_column(p, width - 24);
    for (int r = 0; r < p->list_h; r++) {
        size_t li = p->top + (size_t)r;
        int yy = y + r;
        if (li >= p->nlines) {
            ui_role(w, u, UI_NORMAL);
            ui_fill(w, yy, 0, width);
            continue;
        }
        const struct oline *ln = &p->lines[li];
        if (ln->heading) {
            char buf[160];
            const char *hl = ui_glyph_hline(u);
            ui_role(w, u, UI_TITLE);
            ui_fill(w, yy, 0, width);
            if (ln->section == OVFROWS_ANOMALY)
                snprintf(buf, sizeof buf, "%s msProbe anomaly reports%s: first-anomaly order %s", hl,
                         p->anom && p->anom->analyse ? " (anomaly_analyse.json)" : "", hl);
            else if (ln->section == OVFROWS_JUMP)
                snprintf(buf, sizeof buf, "%s %s: msProbe heuristic, no NaN/Inf; one row per name %s", hl,
                         OVFROWS_JUMP_NAME, hl);
            else if (ln->origin)
                snprintf(buf, sizeof buf, "%s step %d: origin, where the NaN/Inf was born %s", hl, (int)ln->step, hl);
            else if (!p->levels)
                snprintf(buf, sizeof buf, "%s step %d %s", hl, (int)ln->step, hl);
            else
                snprintf(buf, sizeof buf, "%s step %d: %s %s", hl, (int)ln->step,
                         ln->section == OVFROWS_CRITICAL ? "critical, NaN/Inf born here" : "NaN/Inf passed on or absorbed", hl);
            ui_put(w, yy, 0, width, buf);
        } else if (ln->section == OVFROWS_ANOMALY) {
            draw_anomaly(p, a, w, yy, width, &p->anom->v[ln->entry], li == p->cur && v->focused, name_w);
        } else {
            draw_entry(p, a, w, yy, width, &p->list->v[ln->entry], ln->section == OVFROWS_JUMP ? &p->rows.v[ln->row] : NULL,
                       li == p->cur && v->focused, name_w);
        }
    }
}

static void toggle_level(struct ovp *p, struct session *a, int level) {
    if (!p->levels) {
        session_msg(a, "levels are not available for this input");
        return;
    }
    p->show ^= 1u << level;
    overflow_list_relist(p);
}

/* `A` (and `F` when there is no NaN/Inf): the first report in msProbe's
 * first-anomaly order, the list's own order. */
static int first_anomaly(struct ovp *p, struct session *a) {
    if (!p->anom) {
        session_msg(a, "no msProbe anomaly reports in this data");
        return 1;
    }
    overflow_list_select(p, 1, 0);
    p->context = 1;
    const struct anomaly *an = &p->anom->v[0];
    char esc[512], st[40];
    /* its micro step beside the step when the heat map has micro steps */
    int micro = cube_has_micro(a->cube) ? an->micro_step : -1;
    session_msg(a, "first msProbe anomaly report: %s at step %s, rank %d: %s", anomaly_rule_name((enum anomaly_rule)an->rule),
            step_text(an->step, micro, st, sizeof st), (int)an->rank, pt_escape(an->tag_name, strlen(an->tag_name), esc, sizeof esc));
    return 1;
}

static int ovf_act(struct view *v, struct session *a, int action, int key) {
    struct ovp *p = v->priv;
    ensure_built(p, a);
    if (!p->built) return 0;
    long page = p->list_h > 1 ? p->list_h - 1 : 1;
    const struct ovf_entry *e = cur_entry(p);
    const struct anomaly *an = cur_anomaly(p);
    if (nav_of_key(key)) action = ovf_nav[nav_of_key(key)];
    switch (action) {
    case OA_DOWN: case OA_UP: case OA_PGDN: case OA_PGUP: case OA_HALFDN: case OA_HALFUP: {
        long d = nav_delta(nav_move_of(ovf_nav, action), page);
        move_to(p, (long)p->cur + d, d > 0 ? 1 : -1);   /* skipping headings the way it goes */
        return 1;
    }
    case OA_TOP: move_to(p, 0, 1); return 1;
    case OA_BOTTOM: move_to(p, (long)p->nlines - 1, -1); return 1;
    case OA_CRIT: toggle_level(p, a, OVF_CRITICAL); return 1;
    case OA_HIGH: toggle_level(p, a, OVF_HIGH); return 1;
    case OA_MED: toggle_level(p, a, OVF_MEDIUM); return 1;
    case OA_RANK:
        if (p->has_rank) p->has_rank = 0;
        else if (e || an) p->has_rank = 1, p->rank = e ? e->rank : an->rank;
        overflow_list_relist(p);
        return 1;
    case OA_STEP:
        if (p->has_step) p->has_step = 0;
        else if (e || an) p->has_step = 1, p->step = e ? e->step : an->step;
        overflow_list_relist(p);
        return 1;
    case OA_CLEAR:
        p->has_rank = p->has_step = 0;
        p->show = (1u << OVF_CRITICAL) | (1u << OVF_HIGH) | (1u << OVF_MEDIUM);
        overflow_list_relist(p);
        return 1;
    case OA_FIRST: {
        long f = p->lead >= 0 ? p->lead : ovf_first(p->list);
        if (f < 0 && p->anom) return first_anomaly(p, a);
        if (f < 0) {
            session_msg(a, "no NaN or Inf in this data");
            return 1;
        }
        overflow_list_select(p, 0, (size_t)f);
        p->context = 1;
        const struct ovf_entry *fe = &p->list->v[f];
        char esc[512], st[40];
        session_msg(a, "first occurrence: %s at step %s, rank %d: %s%s", p->levels ? ovf_level_name((enum ovf_level)fe->level) : "non-finite",
                step_text(fe->step, cube_has_micro(a->cube) ? fe->micro : -1, st, sizeof st), (int)fe->rank,
                pt_escape(fe->name, strlen(fe->name), esc, sizeof esc), p->lead >= 0 ? " (born here: origin across ranks)" : "");
        return 1;
    }
    case OA_FIRST_ANOMALY: return first_anomaly(p, a);
    case OA_JUMP: jump(p, a); return 1;
    default: return 0;
    }
}

static int ovf_key(struct view *v, struct session *a, int action, int key) {
    int rc = ovf_act(v, a, action, key);
    if (rc) ((struct ovp *)v->priv)->moved = 1;
    return rc;
}

static int ovf_click(struct view *v, struct session *a, const struct view_mouse *m);

static int ovf_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    int rc = ovf_click(v, a, m);
    if (rc) ((struct ovp *)v->priv)->moved = 1;
    return rc;
}

static int ovf_click(struct view *v, struct session *a, const struct view_mouse *m) {
    struct ovp *p = v->priv;
    ensure_built(p, a);
    if (!p->built) return 0;
    if (m->wheel) {
        move_to(p, (long)p->cur + 3 * m->wheel, m->wheel);
        return 1;
    }
    if (m->button != 1) return 0;
    if (p->grid_rows && m->y >= p->grid_y && m->y < p->grid_y + p->grid_rows && m->x >= p->grid_x &&
        m->x < p->grid_x + p->grid_cols) {
        /* a grid cell: filter to its step and rank (when it stands for one) */
        int s = (m->x - p->grid_x) * p->grid_sper, r = (m->y - p->grid_y) * p->grid_rper;
        p->has_step = p->grid_sper == 1;
        p->has_rank = p->grid_rper == 1;
        p->step = p->gsteps[s];
        p->rank = p->granks[r];
        overflow_list_relist(p);
        return 1;
    }
    if (m->y >= p->list_y && m->y < p->list_y + p->list_h) {
        size_t li = p->top + (size_t)(m->y - p->list_y);
        if (li < p->nlines && !p->lines[li].heading) {
            p->cur = li;
            if (m->dbl) jump(p, a);
        }
        return 1;
    }
    return 0;
}

static void ovf_status_entry(struct view *v, struct session *a, char *buf, size_t size) {
    struct ovp *p = v->priv;
    (void)a;
    const struct ovf_entry *e = p->built ? cur_entry(p) : NULL;
    const struct anomaly *an = p->built ? cur_anomaly(p) : NULL;
    if (an) {
        char msg[768];
        snprintf(buf, size, "msProbe anomaly (%s): %s", an->metric < 0 ? "no heat-map cell" : "Enter shows its cell",
                 pt_escape(an->message, strlen(an->message), msg, sizeof msg));
        return;
    }
    if (!e) {
        snprintf(buf, size, "%zu of %zu entries", p->nentries, p->list ? p->list->n : 0);
        return;
    }
    char name[768], what[256];
    pt_escape(e->name, strlen(e->name), name, sizeof name);
    pt_escape(e->what, strlen(e->what), what, sizeof what);
    const struct oline *ln = &p->lines[p->cur];
    if (ln->section == OVFROWS_JUMP) {
        char cover[160];
        ovfrows_group_text(&p->rows.v[ln->row], 1, cover, sizeof cover);
        snprintf(buf, size, "%s %s (heuristic, no NaN/Inf) %s: %s; earliest step %d rank %d #%u: %s",
                 ovf_level_name((enum ovf_level)e->level), OVFROWS_JUMP_NAME, name, cover, (int)e->step, (int)e->rank,
                 (unsigned)e->pos, what);
    } else {
        char st[40];   /* the step as the heat map and the status bar write it */
        snprintf(buf, size, "%s step %s rank %d #%u %s: %s", p->levels ? ovf_level_name((enum ovf_level)e->level) : "non-finite",
                 step_text(e->step, cube_has_micro(a->cube) ? e->micro : -1, st, sizeof st), (int)e->rank, (unsigned)e->pos, name, what);
    }
}

/* y: the entry's name, then its step and rank. */
static int ovf_copy(struct view *v, struct session *a, char *buf, size_t size) {
    struct ovp *p = v->priv;
    (void)a;
    const struct ovf_entry *e = p->built ? cur_entry(p) : NULL;
    if (!e || cur_anomaly(p)) return 0;
    snprintf(buf, size, "%s  step %d  rank %d", e->name, (int)e->step, (int)e->rank);
    return 1;
}

/* The status line: the entry, then, when the terminal is wide enough for
 * both beside the key hints, the origin rank of the first step's NaN/Inf
 * once the background search has found it (origin_search_first). */
static void ovf_status(struct view *v, struct session *a, char *buf, size_t size) {
    char entry[1536], orig[768];
    ovf_status_entry(v, a, entry, sizeof entry);
    snprintf(buf, size, "%s", entry);
    int32_t ostep, orank;
    uint32_t opos;
    const char *oname;
    size_t nchain;
    if (!origin_search_first(a, &ostep, &orank, &opos, &oname, &nchain)) return;
    char name[512];
    pt_escape(oname, strlen(oname), name, sizeof name);
    snprintf(orig, sizeof orig, "  | origin: step %d rank %d #%u %s, %zu other rank%s reached", (int)ostep,
             (int)orank, (unsigned)opos, name, nchain, nchain == 1 ? "" : "s");
    if (text_width(entry) + text_width(orig) + 16 <= COLS) snprintf(buf, size, "%s%s", entry, orig);
}

/* `/`: highlights matching names and moves to the next match. */
static int find_match(struct ovp *p, struct session *a, size_t from, int dir) {
    if (!p->nlines) return 0;
    for (size_t k = 0; k < p->nlines; k++) {
        size_t li = dir > 0 ? (from + 1 + k) % p->nlines : (from + p->nlines - 1 - k % p->nlines) % p->nlines;
        if (p->lines[li].heading) continue;
        const char *n = p->lines[li].section == OVFROWS_ANOMALY ? p->anom->v[p->lines[li].entry].tag_name
                                                          : p->list->v[p->lines[li].entry].name;
        int rc = search_match(&p->re, n, strlen(n));
        if (rc < 0) {
            session_err(a, "%s", p->re.why);
            return 1;
        }
        if (rc == 1) {
            p->cur = li;
            return 1;
        }
    }
    session_msg(a, "no entry matches /%s/", p->re.pattern ? p->re.pattern : "");
    return 1;
}

static int ovf_search(struct view *v, struct session *a, const char *pattern, struct pt_error *err) {
    struct ovp *p = v->priv;
    if (search_compile(&p->re, pattern, 0, err) != 0) return -1;
    ensure_built(p, a);
    if (!search_active(&p->re) || !p->built) return 0;
    find_match(p, a, p->cur ? p->cur - 1 : p->nlines - 1, 1);
    return 0;
}

static int ovf_search_next(struct view *v, struct session *a, int dir) {
    struct ovp *p = v->priv;
    ensure_built(p, a);
    if (!search_active(&p->re) || !p->built) return 0;
    return find_match(p, a, p->cur, dir);
}

/* `:ovf-rank N|all`, `:ovf-step N|all`. */
static int filter_cmd(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err, int is_rank) {
    struct ovp *p = v ? v->priv : NULL;
    if (p) ensure_built(p, a);
    if (!p || !p->built) return pt_errorf(err, "no overflow data");
    if (argc != 2) return pt_errorf(err, "usage: %s N|all", argv[0]);
    int *has = is_rank ? &p->has_rank : &p->has_step;
    int32_t *val = is_rank ? &p->rank : &p->step;
    if (!strcmp(argv[1], "all")) {
        *has = 0;
    } else {
        char *end;
        long n = strtol(argv[1], &end, 10);
        if (end == argv[1] || *end) return pt_errorf(err, "%s: '%s' is not a number", argv[0], argv[1]);
        if (overflow_list_axis_find(is_rank ? p->granks : p->gsteps, is_rank ? p->ngranks : p->ngsteps, (int32_t)n) < 0)
            return pt_errorf(err, "%s: there is no %s %ld", argv[0], is_rank ? "rank" : "step", n);
        *has = 1;
        *val = (int32_t)n;
    }
    overflow_list_relist(p);
    a->host->show(a, "overflow");
    return 0;
}
static int cmd_rank(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    return filter_cmd(v, a, argc, argv, err, 1);
}
static int cmd_step(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    return filter_cmd(v, a, argc, argv, err, 0);
}

static const struct view_cmd ovf_cmds[] = {
    { "ovf-rank", "N|all", "overflow pane: only rank N (all: every rank)", 0, cmd_rank },
    { "ovf-step", "N|all", "overflow pane: only step N (all: every step)", 0, cmd_step },
};

const struct view_ops view_overflow = {
    .name = "overflow",
    .title = "Overflow",
    .init = ovf_init,
    .free = ovf_free,
    .available = ovf_available,
    .draw = ovf_draw,
    .key = ovf_key,
    .mouse = ovf_mouse,
    .notify = ovf_notify,
    .status = ovf_status,
    .copy = ovf_copy,
    .search = ovf_search,
    .search_next = ovf_search_next,
    .hints = "1/2/3 levels  r only rank  s only step  c clear filters  F first  n/N next match  Enter show",
    .keys = ovf_keys,
    .nkeys = sizeof ovf_keys / sizeof ovf_keys[0],
    .cmds = ovf_cmds,
    .ncmds = sizeof ovf_cmds / sizeof ovf_cmds[0],
};
