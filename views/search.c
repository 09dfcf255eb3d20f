/* search pane: the label picker and the regex filter.
 *
 * Owns the picker's view of the labels (grouped by category, sorted by
 * text, with counts), which labels are selected, and the two cursors (label
 * column, target column).  The filters themselves live in the session:
 * the selection becomes the session's label mask (msProbe's AND of label
 * texts, model/cube/search.h), the pattern the session's regex filter, so
 * the heat map rows and every other pane follow.  The right column lists the
 * targets passing both, with the regex matches highlighted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/cube/names.h"
#include "model/cube/search.h"
#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

enum {
    SA_DOWN = 1, SA_UP, SA_PGDN, SA_PGUP, SA_TOP, SA_BOTTOM, SA_LEFT, SA_RIGHT,
    SA_TOGGLE, SA_ENTER, SA_CLEAR_LABELS, SA_CLEAR_REGEX, SA_CASE, SA_HALFDN, SA_HALFUP
};

/* the shared navigation keys (ui/nav.h) as this pane's actions */
static const int search_nav[NAV_COUNT] = {
    [NAV_UP] = SA_UP, [NAV_DOWN] = SA_DOWN, [NAV_PGUP] = SA_PGUP, [NAV_PGDN] = SA_PGDN,
    [NAV_HALFUP] = SA_HALFUP, [NAV_HALFDN] = SA_HALFDN, [NAV_TOP] = SA_TOP, [NAV_BOTTOM] = SA_BOTTOM,
};

struct sline {
    int heading;           /* a category heading */
    int cat;
    uint32_t label;
};

struct srp {
    int built;
    const struct names *names;
    struct sline *lines;   /* the picker */
    size_t nlines;
    uint8_t *sel;          /* per label id */
    uint32_t *order;       /* selected label ids in the order picked */
    uint32_t nsel;
    uint32_t *targets;     /* passing the session's filters, ascending */
    uint32_t ntargets;
    size_t lcur, ltop, tcur, ttop;
    int col;               /* 0 labels, 1 targets */
    int case_sensitive;
    char *pattern;         /* as typed (without the case prefix) */
    struct search re;      /* the session's pattern, for highlighting */
    int body_y, body_h, split;
};

static const struct keys_row search_keys[] = {
    { 'j', NULL, SA_DOWN, "next row" },
    { KEYS_DOWN, NULL, SA_DOWN, "next row" },
    { 'k', NULL, SA_UP, "previous row" },
    { KEYS_UP, NULL, SA_UP, "previous row" },
    { KEYS_PGDN, NULL, SA_PGDN, "page down" },
    { KEYS_PGUP, NULL, SA_PGUP, "page up" },
    { KEYS_CTRL('d'), NULL, SA_HALFDN, "half a page down" },
    { KEYS_CTRL('u'), NULL, SA_HALFUP, "half a page up" },
    { 'g', NULL, SA_TOP, "first row" },
    { KEYS_HOME, NULL, SA_TOP, "first row" },
    { 'G', NULL, SA_BOTTOM, "last row" },
    { KEYS_END, NULL, SA_BOTTOM, "last row" },
    { 'h', NULL, SA_LEFT, "label column" },
    { KEYS_LEFT, NULL, SA_LEFT, "label column" },
    { 'l', NULL, SA_RIGHT, "target column" },
    { KEYS_RIGHT, NULL, SA_RIGHT, "target column" },
    { ' ', NULL, SA_TOGGLE, "select / unselect the label (selected labels combine with AND)" },
    { KEYS_ENTER, NULL, SA_ENTER, "label: select / unselect; target: show it in the heat map" },
    { 'c', NULL, SA_CLEAR_LABELS, "clear the label selection" },
    { 'x', NULL, SA_CLEAR_REGEX, "clear the regex filter" },
    { 'i', NULL, SA_CASE, "toggle case-sensitive regex (default: ignore case)" },
};

/* ---- state ---- */

static void srp_reset(struct srp *p) {
    free(p->lines);
    free(p->sel);
    free(p->order);
    free(p->targets);
    p->lines = NULL;
    p->sel = NULL;
    p->order = p->targets = NULL;
    p->nlines = p->nsel = p->ntargets = 0;
    p->lcur = p->ltop = p->tcur = p->ttop = 0;
    p->names = NULL;
    p->built = 0;
}

/* The targets the session's filters let through. */
static int retarget(struct srp *p, struct session *a) {
    uint32_t n = p->names ? names_count(p->names) : 0;
    uint32_t *t = realloc(p->targets, (n ? n : 1) * sizeof *t);
    if (!t) return -1;
    p->targets = t;
    p->ntargets = 0;
    for (uint32_t i = 0; i < n; i++)
        if ((!a->label_mask || a->label_mask[i]) && (!a->regex_mask || a->regex_mask[i])) t[p->ntargets++] = i;
    if (p->tcur >= p->ntargets) p->tcur = p->ntargets ? p->ntargets - 1 : 0;
    return 0;
}

/* Highlighting follows the session's pattern, whoever set it. */
static void sync_regex(struct srp *p, struct session *a) {
    struct pt_error err;
    if (!a->regex || !a->regex[0]) {
        search_clear(&p->re);
        return;
    }
    if (!p->re.pattern || strcmp(p->re.pattern, a->regex) != 0) search_compile(&p->re, a->regex, 0, &err);
}

static int build(struct srp *p, struct session *a, struct pt_error *err) {
    srp_reset(p);
    if (!a->cube) return 0;
    struct names *n = a->cube->names;
    p->names = n;
    if (names_label_count(n) == 0 && names_count(n) > 0 &&
        names_build_labels(n, a->ds ? a->ds->labels : LABELS_DUMP) != 0)
        return pt_errorf(err, "search pane: out of memory");
    uint32_t *ids, nl;
    if (search_labels_sorted(n, &ids, &nl, err) != 0) return -1;
    p->lines = malloc(((size_t)nl + LABEL_NCAT) * sizeof *p->lines);
    p->sel = calloc(nl ? nl : 1, 1);
    p->order = malloc((nl ? nl : 1) * sizeof *p->order);
    if (!p->lines || !p->sel || !p->order) {
        free(ids);
        return pt_errorf(err, "search pane: out of memory");
    }
    int last = -1;
    for (uint32_t i = 0; i < nl; i++) {
        int cat = names_label(n, ids[i])->cat;
        if (cat != last) p->lines[p->nlines++] = (struct sline){ .heading = 1, .cat = cat };
        last = cat;
        p->lines[p->nlines++] = (struct sline){ .cat = cat, .label = ids[i] };
    }
    free(ids);
    p->lcur = p->nlines > 1 ? 1 : 0;
    sync_regex(p, a);
    if (retarget(p, a) != 0) return pt_errorf(err, "search pane: out of memory");
    p->built = 1;
    return 0;
}

/* Hands the selection to the session as a target mask. */
static void apply_labels(struct srp *p, struct session *a) {
    if (p->nsel == 0) {
        session_set_label_filter(a, NULL, NULL);
        return;
    }
    uint32_t nt = names_count(p->names);
    uint8_t *mask = malloc(nt ? nt : 1);
    struct pt_error err = { { 0 } };
    if (!mask || search_labels_mask(p->names, p->order, p->nsel, mask, &err) < 0) {
        free(mask);
        session_err(a, "%s", err.msg[0] ? err.msg : "label filter: out of memory");
        return;
    }
    char desc[512] = "";
    size_t len = 0;
    for (uint32_t i = 0; i < p->nsel && len + 8 < sizeof desc; i++) {
        const struct label *l = names_label(p->names, p->order[i]);
        char esc[128];
        const char *t = names_label_text(p->names, p->order[i]);
        pt_escape(t, strlen(t), esc, sizeof esc);
        int k = snprintf(desc + len, sizeof desc - len, "%s%s:%s", i ? " AND " : "", label_cat_name(l->cat), esc);
        if (k < 0 || (size_t)k >= sizeof desc - len) break;
        len += (size_t)k;
    }
    session_set_label_filter(a, mask, desc);
}

static void toggle_label(struct srp *p, struct session *a, uint32_t id) {
    if (p->sel[id]) {
        p->sel[id] = 0;
        uint32_t k = 0;
        for (uint32_t i = 0; i < p->nsel; i++)
            if (p->order[i] != id) p->order[k++] = p->order[i];
        p->nsel = k;
    } else {
        p->sel[id] = 1;
        p->order[p->nsel++] = id;
    }
    apply_labels(p, a);
}

/* Sets the session's regex: the pattern as typed, with PCRE2's inline (?-i)
 * in front when case matters (the session's search ignores case by default).
 * The pattern is compiled here first so an error names the column the
 * user typed, not one shifted by the prefix. */
static int set_regex(struct srp *p, struct session *a, const char *pattern, struct pt_error *err) {
    struct search probe;
    search_init(&probe);
    int rc = search_compile(&probe, pattern, p->case_sensitive ? SEARCH_CASE : 0, err);
    search_free(&probe);
    if (rc != 0) return -1;
    char *copy = strdup(pattern ? pattern : "");
    if (!copy) return pt_errorf(err, "out of memory");
    char full[1100];
    snprintf(full, sizeof full, "%s%s", pattern && pattern[0] && p->case_sensitive ? "(?-i)" : "", pattern ? pattern : "");
    if (session_set_regex(a, full[0] ? full : NULL, err) != 0) {
        free(copy);
        return -1;
    }
    free(p->pattern);
    p->pattern = copy;
    return 0;
}

/* ---- drawing ---- */

/* Writes s (escaped already) at (y, x) in `width` columns with the spans
 * matching the regex highlighted; returns columns written.  A target name
 * too long for the column takes the short form the heat map's axis uses
 * (wrapper words and class names go, "layers.3" becomes "L3"), which keeps
 * the layer and the module that tell rows apart; a label (short, told
 * apart by its start) is cut at the right.  Matches are highlighted in
 * what is shown. */
static int put_highlighted(struct srp *p, struct session *a, WINDOW *w, int y, int x, int width, const char *s,
                           int base_role, int target) {
    const struct ui *u = a->ui;
    char fit[1024], shortn[1024];
    text_fit(s, width, TEXT_CUT_RIGHT, u->utf8, fit, sizeof fit);
    if (strcmp(fit, s) != 0) s = target ? text_short_target(s, width, u->utf8, shortn, sizeof shortn) : fit;
    if (!search_active(&p->re)) {
        ui_role(w, u, base_role);
        return ui_put(w, y, x, width, s);
    }
    size_t len = strlen(s), from = 0, so, eo;
    int col = 0;
    char part[1024];
    while (from < len && col < width && search_find(&p->re, s, len, from, &so, &eo) == 1) {
        snprintf(part, sizeof part, "%.*s", (int)(so - from), s + from);
        ui_role(w, u, base_role);
        col += ui_put(w, y, x + col, width - col, part);
        snprintf(part, sizeof part, "%.*s", (int)(eo - so), s + so);
        ui_role(w, u, UI_MATCH);
        col += ui_put(w, y, x + col, width - col, part);
        from = eo;
    }
    ui_role(w, u, base_role);
    if (from < len) col += ui_put(w, y, x + col, width - col, s + from);
    return col;
}

static void fix_scroll(size_t cur, size_t *top, int h) {
    if (h <= 0) return;
    if (cur < *top) *top = cur;
    if (cur >= *top + (size_t)h) *top = cur - (size_t)h + 1;
}

static void draw_labels(struct srp *p, struct session *a, WINDOW *w, int y, int h, int width, int focused) {
    const struct ui *u = a->ui;
    fix_scroll(p->lcur, &p->ltop, h);
    /* the category heading above the first label of a category stays in view */
    if (p->lcur > 0 && p->lines[p->lcur - 1].heading && p->ltop == p->lcur) p->ltop--;
    for (int r = 0; r < h; r++) {
        size_t li = p->ltop + (size_t)r;
        ui_role(w, u, UI_NORMAL);
        ui_fill(w, y + r, 0, width);
        if (li >= p->nlines) continue;
        const struct sline *ln = &p->lines[li];
        if (ln->heading) {
            ui_role(w, u, UI_TITLE);
            ui_put(w, y + r, 0, width, label_cat_name(ln->cat));
            continue;
        }
        int sel = focused && li == p->lcur;
        const struct label *l = names_label(p->names, ln->label);
        char buf[64], esc[512];
        int base = sel ? UI_AXIS_SEL : UI_NORMAL;
        ui_role(w, u, base);
        if (sel) ui_fill(w, y + r, 0, width);
        int x = ui_put(w, y + r, 0, width, sel ? ui_glyph_focus(u) : " ");
        ui_role(w, u, p->sel[ln->label] ? UI_WARN : base);
        x += ui_put(w, y + r, x, width - x, p->sel[ln->label] ? "[x] " : "[ ] ");
        snprintf(buf, sizeof buf, " %u", l->ntargets);
        int cw = text_width(buf);
        const char *t = names_label_text(p->names, ln->label);
        pt_escape(t, strlen(t), esc, sizeof esc);
        if (width - x - cw > 0) put_highlighted(p, a, w, y + r, x, width - x - cw, esc, base, 0);
        ui_role(w, u, sel ? base : UI_DIM);
        ui_put(w, y + r, width - cw, cw, buf);
    }
}

static void draw_targets(struct srp *p, struct session *a, WINDOW *w, int y, int h, int x0, int width, int focused) {
    const struct ui *u = a->ui;
    fix_scroll(p->tcur, &p->ttop, h);
    for (int r = 0; r < h; r++) {
        size_t ti = p->ttop + (size_t)r;
        ui_role(w, u, UI_NORMAL);
        ui_fill(w, y + r, x0, width);
        if (ti >= p->ntargets) {
            if (r == 0 && p->ntargets == 0) {
                ui_role(w, u, UI_DIM);
                ui_put(w, y, x0 + 1, width - 1, "no target passes the filters (c / x clear them)");
            }
            continue;
        }
        int sel = focused && ti == p->tcur;
        int base = sel ? UI_AXIS_SEL : UI_NORMAL;
        char name[1024], esc[1024];
        names_display(p->names, p->targets[ti], name, sizeof name);
        pt_escape(name, strlen(name), esc, sizeof esc);
        ui_role(w, u, base);
        if (sel) ui_fill(w, y + r, x0, width);
        int x = ui_put(w, y + r, x0, width, sel ? ui_glyph_focus(u) : " ");
        put_highlighted(p, a, w, y + r, x0 + x, width - x, esc, base, 1);
    }
}

static void search_draw(struct view *v, struct session *a) {
    struct srp *p = v->priv;
    WINDOW *w = v->win;
    const struct ui *u = a->ui;
    int h = v->h, width = v->w;
    if (!w) return;
    if (!p->built) {
        werase(w);
        ui_role(w, u, UI_DIM);
        ui_put(w, 0, 0, width, a->ds ? "no labels" : "loading...");
        return;
    }
    char buf[1400], esc[1100], cnt[128];
    int x = 0;
    ui_role(w, u, UI_NORMAL);
    ui_fill(w, 0, 0, width);
    const char *desc = a->label_desc && p->nsel ? a->label_desc : "none";
    const char *shown = p->pattern && a->regex ? p->pattern : a->regex;
    esc[0] = '\0';
    if (shown && shown[0]) {
        /* a regex is shown as typed (its backslashes mean something); only
         * bytes a terminal would act on are escaped */
        int raw = 1;
        for (const unsigned char *q = (const unsigned char *)shown; *q && raw; q++) raw = *q >= 0x20 && *q != 0x7f;
        if (raw) snprintf(esc, sizeof esc, "%s", shown);
        else pt_escape(shown, strlen(shown), esc, sizeof esc);
    }
    const char *casenote = p->case_sensitive ? " (case-sensitive)" : " (ignore case)";
    snprintf(cnt, sizeof cnt, "   %u of %u targets", p->ntargets, names_count(p->names));
    /* all metrics' targets here; the toolbar's n/m counts the metric the
     * heat map shows: say that one too when the row has room, so the two
     * never seem to disagree */
    char mcnt[64] = "";
    if (a->cube && a->cube->nmetrics && (a->regex || a->label_desc))
        snprintf(mcnt, sizeof mcnt, ", %u of %u in %.24s", a->nrows, a->cube->metrics[a->metric].ntargets,
                 a->cube->metrics[a->metric].name);
    /* When the row is tight, what goes first: the case note, then "Regex
     * none" when there is no pattern; the selection, the pattern and the
     * result count are what the row is for, and the count keeps its place
     * at the right end. */
    int rw = esc[0] ? 9 + text_width(esc) + 2 : 13;
    if (mcnt[0] && 7 + text_width(desc) + text_width(cnt) + text_width(mcnt) + rw + text_width(casenote) <= width)
        strcat(cnt, mcnt);
    int base = 7 + text_width(desc) + text_width(cnt);
    int show_case = base + rw + text_width(casenote) <= width;
    int show_regex = esc[0] || base + rw <= width;
    int avail = width - text_width(cnt);
    if (avail < width / 2) avail = width;   /* a very narrow pane shows what fits in order */
    ui_role(w, u, UI_KEY);
    x += ui_put(w, 0, x, avail - x, "Labels ");
    ui_role(w, u, p->nsel ? UI_WARN : UI_DIM);
    x += ui_put(w, 0, x, avail - x, desc);
    if (show_regex) {
        ui_role(w, u, UI_KEY);
        x += ui_put(w, 0, x, avail - x, "   Regex ");
        if (esc[0]) {
            snprintf(buf, sizeof buf, "/%s/", esc);
            ui_role(w, u, UI_MATCH);
        } else {
            snprintf(buf, sizeof buf, "none");
            ui_role(w, u, UI_DIM);
        }
        x += ui_put(w, 0, x, avail - x, buf);
    }
    if (show_case) {
        ui_role(w, u, UI_DIM);
        x += ui_put(w, 0, x, avail - x, casenote);
    }
    ui_role(w, u, UI_NORMAL);
    if (avail < width) x = avail > x ? avail : x;
    ui_put(w, 0, x, width - x, cnt);

    if (h < 3) return;
    int split = width * 2 / 5;
    if (split < 16) split = width < 32 ? width / 2 : 16;
    p->split = split;
    p->body_y = 2;
    p->body_h = h - 2;
    ui_role(w, u, v->focused && p->col == 0 ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 1, 0, split);
    ui_put(w, 1, 0, split, "Labels (Space: select, AND)");
    ui_role(w, u, v->focused && p->col == 1 ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 1, split, width - split);
    ui_put(w, 1, split + 1, width - split - 1, "Targets (Enter: heat map)");
    draw_labels(p, a, w, 2, h - 2, split - 1, v->focused && p->col == 0);
    for (int r = 1; r < h; r++) {
        ui_role(w, u, UI_DIM);
        ui_put(w, r, split - 1, 1, ui_glyph_vline(u));
    }
    draw_targets(p, a, w, 2, h - 2, split, width - split, v->focused && p->col == 1);
}

/* ---- input ---- */

static void label_move(struct srp *p, long to, int dir) {
    if (!p->nlines) return;
    if (to < 0) to = 0;
    if (to >= (long)p->nlines) to = (long)p->nlines - 1;
    while (to >= 0 && to < (long)p->nlines && p->lines[to].heading) to += dir >= 0 ? 1 : -1;
    if (to < 0) to = 1;
    if (to >= (long)p->nlines) to = (long)p->nlines - 1;
    if (to >= 0 && to < (long)p->nlines && !p->lines[to].heading) p->lcur = (size_t)to;
}

static void target_move(struct srp *p, long to) {
    if (!p->ntargets) return;
    if (to < 0) to = 0;
    if (to >= (long)p->ntargets) to = (long)p->ntargets - 1;
    p->tcur = (size_t)to;
}

static void show_target(struct srp *p, struct session *a) {
    if (!p->ntargets || !a->host->has(a, "heatmap")) return;
    uint32_t t = p->targets[p->tcur];
    const struct cube *c = a->cube;
    if (cube_local_target(c, a->metric, t) == UINT32_MAX) {
        /* not in the current metric: the first metric that has it */
        for (int m = 0; m < c->nmetrics; m++)
            if (cube_local_target(c, m, t) != UINT32_MAX) {
                /* the statistic shown stays when that metric has it */
                session_set_metric(a, m, cube_stat_find(c, m, c->metrics[a->metric].stats[a->stat]));
                break;
            }
    }
    session_select(a, -1, -1, t);
    a->host->show(a, "heatmap");
}

static int search_key(struct view *v, struct session *a, int action, int key) {
    struct srp *p = v->priv;
    if (!p->built) return 0;
    long page = p->body_h > 1 ? p->body_h - 1 : 1;
    struct pt_error err = { { 0 } };
    if (nav_of_key(key)) action = search_nav[nav_of_key(key)];
    switch (action) {
    case SA_DOWN: case SA_UP: case SA_PGDN: case SA_PGUP: case SA_HALFDN: case SA_HALFUP: case SA_TOP: case SA_BOTTOM: {
        long d = nav_delta(nav_move_of(search_nav, action), page);
        if (p->col == 0) {
            long to = action == SA_TOP ? 0 : action == SA_BOTTOM ? (long)p->nlines - 1 : (long)p->lcur + d;
            label_move(p, to, action == SA_TOP ? 1 : action == SA_BOTTOM ? -1 : (d >= 0 ? 1 : -1));
        } else {
            target_move(p, action == SA_TOP ? 0 : action == SA_BOTTOM ? (long)p->ntargets - 1 : (long)p->tcur + d);
        }
        return 1;
    }
    case SA_LEFT: p->col = 0; return 1;
    case SA_RIGHT: p->col = 1; return 1;
    case SA_TOGGLE:
    case SA_ENTER:
        if (p->col == 1) {
            if (action == SA_ENTER) show_target(p, a);
            return 1;
        }
        if (p->lcur < p->nlines && !p->lines[p->lcur].heading) toggle_label(p, a, p->lines[p->lcur].label);
        return 1;
    case SA_CLEAR_LABELS:
        memset(p->sel, 0, names_label_count(p->names) ? names_label_count(p->names) : 1);
        p->nsel = 0;
        apply_labels(p, a);
        return 1;
    case SA_CLEAR_REGEX:
        if (set_regex(p, a, "", &err) != 0) session_err(a, "%s", err.msg);
        return 1;
    case SA_CASE:
        p->case_sensitive = !p->case_sensitive;
        if (p->pattern && p->pattern[0] && set_regex(p, a, p->pattern, &err) != 0) session_err(a, "%s", err.msg);
        session_msg(a, "regex: %s", p->case_sensitive ? "case-sensitive" : "ignore case");
        return 1;
    default:
        return 0;
    }
}

static int search_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct srp *p = v->priv;
    if (!p->built || m->y < p->body_y || m->y >= p->body_y + p->body_h) return 0;
    int col = m->x < p->split ? 0 : 1;
    if (m->wheel) {
        if (col == 0) label_move(p, (long)p->lcur + 3 * m->wheel, m->wheel);
        else target_move(p, (long)p->tcur + 3 * m->wheel);
        return 1;
    }
    if (m->button != 1) return 0;
    p->col = col;
    size_t row = (size_t)(m->y - p->body_y);
    if (col == 0) {
        size_t li = p->ltop + row;
        if (li < p->nlines && !p->lines[li].heading) {
            p->lcur = li;
            toggle_label(p, a, p->lines[li].label);   /* a click toggles, like a checkbox */
        }
    } else {
        size_t ti = p->ttop + row;
        if (ti < p->ntargets) {
            p->tcur = ti;
            if (m->dbl) show_target(p, a);
        }
    }
    return 1;
}

/* n / N: the next label (or target) whose text matches. */
static int search_next(struct view *v, struct session *a, int dir) {
    struct srp *p = v->priv;
    if (!p->built || !search_active(&p->re)) return 0;
    size_t n = p->col == 0 ? p->nlines : p->ntargets;
    size_t cur = p->col == 0 ? p->lcur : p->tcur;
    char name[1024];
    for (size_t k = 1; k <= n; k++) {
        size_t i = dir > 0 ? (cur + k) % n : (cur + n - k % n) % n;
        const char *s;
        if (p->col == 0) {
            if (p->lines[i].heading) continue;
            s = names_label_text(p->names, p->lines[i].label);
        } else {
            s = names_display(p->names, p->targets[i], name, sizeof name);
        }
        int rc = search_match(&p->re, s, strlen(s));
        if (rc < 0) {
            session_err(a, "%s", p->re.why);
            return 1;
        }
        if (rc == 1) {
            if (p->col == 0) p->lcur = i;
            else p->tcur = i;
            return 1;
        }
    }
    session_msg(a, "nothing matches in this column");
    return 1;
}

static int search_search(struct view *v, struct session *a, const char *pattern, struct pt_error *err) {
    struct srp *p = v->priv;
    if (set_regex(p, a, pattern, err) != 0) return -1;
    if (p->built && p->col == 0 && search_active(&p->re)) {
        /* move to the first matching label from the top */
        p->lcur = p->nlines ? p->nlines - 1 : 0;
        search_next(v, a, 1);
    }
    return 0;
}

static void search_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct srp *p = v->priv;
    (void)a;
    if (!p->built) {
        snprintf(buf, size, "no labels");
        return;
    }
    char esc[1024];
    if (p->col == 0 && p->lcur < p->nlines && !p->lines[p->lcur].heading) {
        uint32_t id = p->lines[p->lcur].label;
        const char *t = names_label_text(p->names, id);
        pt_escape(t, strlen(t), esc, sizeof esc);
        snprintf(buf, size, "%s label %s: %u targets%s", label_cat_name(names_label(p->names, id)->cat), esc,
                 names_label(p->names, id)->ntargets, p->sel[id] ? " (selected)" : "");
    } else if (p->col == 1 && p->tcur < p->ntargets) {
        char name[1024];
        names_display(p->names, p->targets[p->tcur], name, sizeof name);
        pt_escape(name, strlen(name), esc, sizeof esc);
        snprintf(buf, size, "target %u: %s", p->targets[p->tcur], esc);
    } else {
        snprintf(buf, size, "%u targets", p->ntargets);
    }
}

/* ---- lifecycle ---- */

static int search_init_view(struct view *v, struct session *a, struct pt_error *err) {
    struct srp *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "search pane: out of memory");
    search_init(&p->re);
    v->priv = p;
    if (a->cube && build(p, a, err) != 0) return -1;
    return 0;
}

static void search_free_view(struct view *v) {
    struct srp *p = v->priv;
    if (!p) return;
    srp_reset(p);
    search_free(&p->re);
    free(p->pattern);
    free(p);
    v->priv = NULL;
}

static int search_available(const struct session *a) {
    return a->mode != SESSION_MODE_VISDB;   /* trend and compare modes have trend data */
}

/* A newer dataset of the input (follow mode): the pane is built on the
 * new names and the selected labels chosen again by their text, so the
 * label filter covers the targets that came with the new data too.  The
 * old names are still valid here (swap_dataset frees them after notify). */
static void reselect(struct srp *p, struct session *a) {
    struct pt_error err = { { 0 } };
    uint32_t n = p->nsel, *cat = malloc(n * sizeof *cat);
    char **text = calloc(n, sizeof *text);
    for (uint32_t i = 0; cat && text && i < n; i++) {
        cat[i] = (uint32_t)names_label(p->names, p->order[i])->cat;
        text[i] = strdup(names_label_text(p->names, p->order[i]));
    }
    if (build(p, a, &err) != 0) session_err(a, "%s", err.msg);
    else if (cat && text) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t id = text[i] ? names_label_find(p->names, text[i], (int)cat[i]) : NAMES_NONE;
            if (id == NAMES_NONE || p->sel[id]) continue;
            p->sel[id] = 1;
            p->order[p->nsel++] = id;
        }
        apply_labels(p, a);
    }
    for (uint32_t i = 0; text && i < n; i++) free(text[i]);
    free(text);
    free(cat);
}

static void search_notify(struct view *v, struct session *a, unsigned what) {
    struct srp *p = v->priv;
    struct pt_error err = { { 0 } };
    if (what & SESSION_CH_DATA) {
        if (a->swap_from && p->built && p->nsel) {
            reselect(p, a);
            return;
        }
        if (build(p, a, &err) != 0) session_err(a, "%s", err.msg);
        return;
    }
    if (!p->built) return;
    if (what & SESSION_CH_FILTER) {
        /* another pane may have set the regex: forget our copy if so */
        if (p->pattern && (!a->regex || !strstr(a->regex, p->pattern))) {
            free(p->pattern);
            p->pattern = NULL;
        }
        sync_regex(p, a);
        if (!a->label_mask && p->nsel) {
            memset(p->sel, 0, names_label_count(p->names) ? names_label_count(p->names) : 1);
            p->nsel = 0;
        }
        if (retarget(p, a) != 0) session_err(a, "search pane: out of memory");
    }
}

const struct view_ops view_search = {
    .name = "search",
    .title = "Search",
    .init = search_init_view,
    .free = search_free_view,
    .available = search_available,
    .draw = search_draw,
    .key = search_key,
    .mouse = search_mouse,
    .notify = search_notify,
    .status = search_status,
    .search = search_search,
    .search_next = search_next,
    .hints = "Space select label  / regex  n/N next match  i case  c clear labels  x clear regex  Enter show",
    .keys = search_keys,
    .nkeys = sizeof search_keys / sizeof search_keys[0],
};
