/* app_keys: the app's own key rows and `:` commands, their dispatch, and
 * the document (help screen, man page) made from every table.
 *
 * A key goes first to the focused pane's rows, then to the rows here; a
 * `:` command is looked up here first, then in every live pane's cmds[]. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "src/session/graphs.h"
#include "src/app/app_state.h"
#include "ui/keys.h"
#include "ui/prompt.h"
#include "ui/shot.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/trend.h"

enum {
    G_QUIT = 1, G_HELP, G_FOCUS_NEXT, G_FOCUS_PREV, G_CMD, G_SEARCH, G_NEXT, G_PREV, G_METRIC_NEXT,
    G_METRIC_PREV, G_STAT_NEXT, G_STAT_PREV, G_DIM, G_VAL_PREV, G_VAL_NEXT, G_CLEAR, G_COLOR, G_RANGE_LO,
    G_RANGE_HI, G_RESET, G_LOG, G_SPLIT_UP, G_SPLIT_DOWN, G_REDRAW, G_RUN, G_RELOAD, G_COPY,
    G_KEYBAR,
};

const struct keys_row app_keys[] = {
    {'q', NULL, G_QUIT, "quit"}, {KEYS_F10, NULL, G_QUIT, "quit"},
    {'?', NULL, G_HELP, "help (this screen)"}, {KEYS_F1, NULL, G_HELP, "help (this screen)"},
    {KEYS_TAB, NULL, G_FOCUS_NEXT, "focus the next pane"},
    {KEYS_BTAB, NULL, G_FOCUS_PREV, "focus the previous pane"},
    {':', NULL, G_CMD, "command line (:step N, :goto TARGET, ... below)"},
    {'/', NULL, G_SEARCH, "regex filter on target names (PCRE2, caseless; empty clears)"},
    {'n', NULL, G_NEXT, "next hit: of the focused pane's / search, of the target filter on the heat map"},
    {'N', NULL, G_PREV, "previous hit"},
    {'m', NULL, G_METRIC_NEXT, "next metric"}, {'M', NULL, G_METRIC_PREV, "previous metric"},
    {'s', NULL, G_STAT_NEXT, "next statistic"}, {'S', NULL, G_STAT_PREV, "previous statistic"},
    {'d', NULL, G_DIM, "cycle the dimension: step, rank, module"},
    {'[', NULL, G_VAL_PREV, "previous dimension value"}, {']', NULL, G_VAL_NEXT, "next dimension value"},
    {'c', NULL, G_CLEAR, "clear the line chart"},
    {'x', NULL, G_COLOR, "toggle gradient / segmented (3-sigma) colours"},
    {'<', NULL, G_RANGE_LO, "narrow the value range from below (raise the low end 5%)"},
    {'>', NULL, G_RANGE_HI, "narrow the value range from above (lower the high end 5%)"},
    {'r', NULL, G_RESET, "reset the value range"},
    {'L', NULL, G_LOG, "toggle log colour scale"},
    {'+', NULL, G_SPLIT_UP, "move the heat map / line chart split down"},
    {'-', NULL, G_SPLIT_DOWN, "move the heat map / line chart split up"},
    {KEYS_CTRL('l'), NULL, G_REDRAW, "redraw the screen"},
    {'K', NULL, G_KEYBAR, "hide / show the key bar, the bottom row (F1 Help, the screens, F10 Quit)"},
    /* F5 and R, the usual reload keys, are the layout screen and the compare run here */
    {KEYS_CTRL('r'), NULL, G_RELOAD, "reload the input now, keeping your place (:reload; F5 and R, the usual keys, are taken here)"},
    {'R', NULL, G_RUN, "two runs (PROBLEM BENCH: dumps, trend data): the run the heat map shows: problem, benchmark, |p-b|/|b| (cycles)"},
    {'y', NULL, G_COPY, "copy the selected node, target or kernel name (and the cell's value, step and rank) to the terminal clipboard (OSC 52, works over SSH)"},
};
const size_t app_nkeys = sizeof app_keys / sizeof app_keys[0];

/* --- helpers --- */

static int metric_ok(const struct app *a) { return a->session.cube && a->session.cube->nmetrics > 0; }

/* What a pane said of the change (the line chart: its lines re-read)
 * follows the change itself. */
static void say_metric(struct app *a) {
    const struct cube_metric *m = &a->session.cube->metrics[a->session.metric];
    char note[sizeof a->session.msg];
    snprintf(note, sizeof note, "%s", a->session.msg);
    session_msg(&a->session, "metric %s, statistic %s%s%s", m->name, m->stats[a->session.stat], note[0] ? "; " : "", note);
}

/* The statistic to show after switching to metric m: the one shown now
 * when m has it too (norm stays norm, max stays max), else m's first. */
static int kept_stat(const struct app *a, int m) {
    const struct cube_metric *cur = &a->session.cube->metrics[a->session.metric];
    return a->session.stat >= 0 && a->session.stat < cur->nstats ? cube_stat_find(a->session.cube, m, cur->stats[a->session.stat]) : -1;
}

static void move_value(struct app *a, int dir) {
    const struct cube *c = a->session.cube;
    if (a->session.dim == DIM_STEP) {
        int s = a->session.sel_step + dir;
        if (s < 0 || s >= c->nsteps) { session_msg(&a->session, dir < 0 ? "first step" : "last step"); return; }
        session_select(&a->session, s, -1, NAMES_NONE);
    } else if (a->session.dim == DIM_RANK) {
        int r = a->session.sel_rank + dir;
        if (r < 0 || r >= c->nranks) { session_msg(&a->session, dir < 0 ? "first rank" : "last rank"); return; }
        session_select(&a->session, -1, r, NAMES_NONE);
    } else {
        long row = session_row_of(&a->session, (uint32_t)a->session.dimval) + dir;
        if (row < 0 || row >= (long)a->session.nrows) { session_msg(&a->session, dir < 0 ? "first target" : "last target"); return; }
        session_select(&a->session, -1, -1, c->metrics[a->session.metric].targets[a->session.rows[row]]);
    }
}

/* n / N without a pane search: the next target of the filtered list. */
static void next_match(struct app *a, int dir) {
    struct session *s = &a->session;
    if (!s->nrows) { session_msg(s, "no target passes the filter"); return; }
    uint32_t lt = s->sel_target == NAMES_NONE ? UINT32_MAX : cube_local_target(s->cube, s->metric, s->sel_target);
    long row = lt == UINT32_MAX ? -1 : session_row_of(s, lt);
    long n = (long)s->nrows;
    row = row < 0 ? 0 : ((row + dir) % n + n) % n;
    session_select(s, -1, -1, s->cube->metrics[s->metric].targets[s->rows[row]]);
    session_msg(s, "match %ld of %ld%s%s%s", row + 1, n, s->regex ? " for /" : "", s->regex ? s->regex : "",
            s->regex ? "/" : "");
}

static void focus_step(struct app *a, int dir) {
    int n = a->nviews;
    for (int k = 1; k <= n; k++) {
        int i = ((a->focus + dir * k) % n + n) % n;
        if (a->views[i].live && a->views[i].visible) {
            a->focus = i;
            a->dirty = 1;
            return;
        }
    }
}

/* Runs a `/` pattern on the focused pane, or the target filter. */
void app_search(struct app *a, const char *pattern) {
    struct pt_error err;
    struct view *v = a->focus >= 0 && a->focus < a->nviews ? &a->views[a->focus] : NULL;
    if (v && v->live && v->ops->search) {
        if (v->ops->search(v, &a->session, pattern, &err) < 0) session_err(&a->session, "%s", err.msg);
        a->dirty = 1;
        return;
    }
    if (!metric_ok(a)) { session_err(&a->session, "no data to filter"); return; }
    if (session_set_regex(&a->session, pattern, &err) < 0) {
        session_err(&a->session, "%s", err.msg);
        return;
    }
    if (!pattern[0]) session_msg(&a->session, "filter cleared: %u targets", a->session.nrows);
    else session_msg(&a->session, "/%s/: %u target%s", pattern, a->session.nrows, a->session.nrows == 1 ? "" : "s");
}

/* y: the focused pane's selection to the terminal clipboard (OSC 52). */
static void copy_selection(struct app *a, struct view *fv) {
    char text[4096] = "", esc[4096];
    if (!fv || !fv->live || !fv->ops->copy || !fv->ops->copy(fv, &a->session, text, sizeof text) || !text[0]) {
        session_msg(&a->session, "nothing to copy here");
        return;
    }
    if (ui_clipboard(a->ui, text) != 0) { session_err(&a->session, "could not copy (%zu bytes)", strlen(text)); return; }
    pt_escape(text, strlen(text), esc, sizeof esc);
    session_msg(&a->session, "copied: %s", esc);
}

/* Runs a global action; 1 handled. */
int app_global_action(struct app *a, int action) {
    struct view *fv = a->focus >= 0 && a->focus < a->nviews ? &a->views[a->focus] : NULL;
    int need_data = action >= G_NEXT && action <= G_RESET && action != G_CLEAR;
    if (need_data && !metric_ok(a)) { session_msg(&a->session, "no trend data here"); return 1; }
    switch (action) {
    case G_QUIT: a->quit = 1; return 1;
    case G_HELP:
        if (app_show(a, "help") < 0) session_err(&a->session, "no help pane");
        return 1;
    case G_FOCUS_NEXT: focus_step(a, 1); return 1;
    case G_FOCUS_PREV: focus_step(a, -1); return 1;
    case G_CMD: prompt_open(a->prompt, ':', ""); a->dirty = 1; return 1;
    /* empty, as less and vim: the last pattern is on Up (the toolbar shows the one applied) */
    case G_SEARCH: prompt_open(a->prompt, '/', ""); a->dirty = 1; return 1;
    case G_NEXT: case G_PREV:
        /* one meaning everywhere: the next / previous hit of the pane's
         * search (the heat map's: the target filter) */
        if (fv && fv->live && fv->ops->search_next) {
            if (!fv->ops->search_next(fv, &a->session, action == G_NEXT ? 1 : -1) && !a->session.msg[0])
                session_msg(&a->session, "no hit to go to: / searches this pane first");
        } else next_match(a, action == G_NEXT ? 1 : -1);
        a->dirty = 1;
        return 1;
    case G_METRIC_NEXT: case G_METRIC_PREV: {
        int n = a->session.cube->nmetrics, d = action == G_METRIC_NEXT ? 1 : -1;
        int m = ((a->session.metric + d) % n + n) % n;
        session_set_metric(&a->session, m, kept_stat(a, m));
        say_metric(a);
        return 1;
    }
    case G_STAT_NEXT: case G_STAT_PREV: {
        int n = a->session.cube->metrics[a->session.metric].nstats, d = action == G_STAT_NEXT ? 1 : -1;
        session_set_metric(&a->session, a->session.metric, ((a->session.stat + d) % n + n) % n);
        say_metric(a);
        return 1;
    }
    case G_DIM: {
        enum cube_dim d = a->session.dim == DIM_STEP ? DIM_RANK : a->session.dim == DIM_RANK ? DIM_TARGET : DIM_STEP;
        session_set_dim(&a->session, d, -1);
        char note[sizeof a->session.msg];
        snprintf(note, sizeof note, "%s", a->session.msg);
        session_msg(&a->session, "dimension %s: x %s, y %s%s%s", trend_dim_name(d), d == DIM_STEP ? "rank" : "step",
                d == DIM_TARGET ? "rank" : "target", note[0] ? "; " : "", note);
        return 1;
    }
    case G_VAL_PREV: move_value(a, -1); return 1;
    case G_VAL_NEXT: move_value(a, 1); return 1;
    case G_CLEAR:
        if (a->session.offers.linechart_pane) a->session.offers.clear_lines(a->session.offers.linechart_pane, &a->session);
        session_msg(&a->session, "line chart cleared");
        return 1;
    case G_COLOR:
        a->session.color_mode = a->session.color_mode == SESSION_COLOR_GRADIENT ? SESSION_COLOR_SEGMENTED : SESSION_COLOR_GRADIENT;
        session_changed(&a->session, SESSION_CH_COLOR);
        session_msg(&a->session, "%s colours", a->session.color_mode == SESSION_COLOR_GRADIENT ? "gradient" : "segmented (3-sigma)");
        return 1;
    case G_RANGE_LO:
        if (a->session.range_lo + 0.05 < a->session.range_hi - 1e-9) a->session.range_lo += 0.05;
        session_changed(&a->session, SESSION_CH_COLOR);
        session_msg(&a->session, "value range %.0f%%..%.0f%% of the slice", a->session.range_lo * 100, a->session.range_hi * 100);
        return 1;
    case G_RANGE_HI:
        if (a->session.range_hi - 0.05 > a->session.range_lo + 1e-9) a->session.range_hi -= 0.05;
        session_changed(&a->session, SESSION_CH_COLOR);
        session_msg(&a->session, "value range %.0f%%..%.0f%% of the slice", a->session.range_lo * 100, a->session.range_hi * 100);
        return 1;
    case G_RESET:
        a->session.range_lo = 0;
        a->session.range_hi = 1;
        session_changed(&a->session, SESSION_CH_COLOR);
        session_msg(&a->session, "value range reset");
        return 1;
    case G_LOG:
        a->session.logscale = !a->session.logscale;
        session_changed(&a->session, SESSION_CH_COLOR);
        session_msg(&a->session, "%s colour scale", a->session.logscale ? "log" : "linear");
        return 1;
    case G_SPLIT_UP: case G_SPLIT_DOWN:
        a->split += action == G_SPLIT_UP ? 5 : -5;
        if (a->split > 90) a->split = 90;
        if (a->split < 20) a->split = 20;
        a->arranged = -1;   /* the windows follow at once, not at the next resize */
        session_msg(&a->session, "split %d%%: heat map %d%%, line chart %d%%", a->split, a->split, 100 - a->split);
        a->dirty = 1;
        return 1;
    case G_REDRAW: clearok(curscr, TRUE); a->dirty = 1; return 1;
    case G_KEYBAR:
        a->keybar_on = !a->keybar_on;
        a->arranged = -1;
        session_msg(&a->session, a->keybar_on ? "key bar shown (K hides it)" : "key bar hidden (K shows it; ? lists every key)");
        return 1;
    case G_RUN: {
        struct pt_error err;
        /* two runs of trend data (trendpair.h) or of dumps (graphs.h): the same three runs */
        int pair = trendpair_on(&a->session);
        int next = pair ? (trendpair_run(&a->session) + 1) % 3 : a->session.graphs ? (a->session.graphs->run + 1) % 3 : 0;
        if ((pair ? trendpair_set_run(&a->session, next, &err) : graphs_set_run(&a->session, next, &err)) != 0)
            session_err(&a->session, "%s", err.msg);
        else session_msg(&a->session, "the heat map shows %s", graphs_run_name(next));
        return 1;
    }
    case G_RELOAD: {
        struct pt_error err;
        if (loader_reload(&a->session, &err) != 0) session_err(&a->session, "%s", err.msg);
        else session_msg(&a->session, "reloading %s...", a->session.paths[0]);
        return 1;
    }
    case G_COPY: copy_selection(a, fv); return 1;
    default: return 0;
    }
}

/* --- `:` commands --- */

static int cmd_step(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :step N (or N.M, micro step M of step N)");
    char esc[160], lo[40], hi[40];
    int s = cube_step_parse(a->session.cube, argv[1]);
    if (s == -2)
        return pt_errorf(err, ":step wants a step number, not '%s'", pt_escape(argv[1], strlen(argv[1]), esc, sizeof esc));
    if (s < 0)
        return pt_errorf(err, "no step %s (steps %s..%s)", pt_escape(argv[1], strlen(argv[1]), esc, sizeof esc),
                         cube_step_text(a->session.cube, 0, lo, sizeof lo),
                         cube_step_text(a->session.cube, a->session.cube->nsteps - 1, hi, sizeof hi));
    session_select(&a->session, s, -1, NAMES_NONE);
    return 0;
}

static int cmd_rank(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    char *e;
    if (argc != 2) return pt_errorf(err, "usage: :rank N");
    long n = strtol(argv[1], &e, 10);
    if (*e || e == argv[1]) return pt_errorf(err, ":rank wants a rank number, not '%s'", argv[1]);
    int r = cube_rank_find(a->session.cube, (int32_t)n);
    if (r < 0)
        return pt_errorf(err, "no rank %ld (ranks %d..%d)", n, (int)a->session.cube->ranks[0],
                         (int)a->session.cube->ranks[a->session.cube->nranks - 1]);
    session_select(&a->session, -1, r, NAMES_NONE);
    return 0;
}

static void list_metrics(const struct app *a, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < a->session.cube->nmetrics && len + 2 < size; i++) {
        int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", a->session.cube->metrics[i].name);
        if (n < 0) break;
        len += (size_t)n;
    }
}

static int cmd_metric(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    char list[512];
    if (argc != 2) return pt_errorf(err, "usage: :metric NAME");
    int m = cube_metric_find(a->session.cube, argv[1]);
    if (m < 0) {
        list_metrics(a, list, sizeof list);
        return pt_errorf(err, "no metric '%s' (there are: %s)", argv[1], list);
    }
    session_set_metric(&a->session, m, kept_stat(a, m));
    say_metric(a);
    return 0;
}

static int cmd_stat(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :stat NAME");
    int s = cube_stat_find(a->session.cube, a->session.metric, argv[1]);
    if (s < 0) {
        const struct cube_metric *m = &a->session.cube->metrics[a->session.metric];
        char list[512];
        size_t len = 0;
        list[0] = '\0';
        for (int i = 0; i < m->nstats && len + 2 < sizeof list; i++) {
            int n = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", m->stats[i]);
            if (n < 0) break;
            len += (size_t)n;
        }
        return pt_errorf(err, "metric %s has no statistic '%s' (it has: %s)", m->name, argv[1], list);
    }
    session_set_metric(&a->session, a->session.metric, s);
    say_metric(a);
    return 0;
}

static int cmd_dim(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :dim step|rank|module");
    const char *d = argv[1];
    enum cube_dim dim;
    if (!strcasecmp(d, "step")) dim = DIM_STEP;
    else if (!strcasecmp(d, "rank")) dim = DIM_RANK;
    else if (!strcasecmp(d, "module") || !strcasecmp(d, "target") || !strcasecmp(d, "module_name")) dim = DIM_TARGET;
    else return pt_errorf(err, ":dim wants step, rank or module, not '%s'", d);
    session_set_dim(&a->session, dim, -1);
    return 0;
}

static int cmd_goto(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2 || !argv[1][0]) return pt_errorf(err, "usage: :goto TARGET (a full name or a unique part of one)");
    if (session_goto(&a->session, argv[1], err) < 0) return -1;
    char name[1024], esc[1024];
    names_display(a->session.cube->names, a->session.sel_target, name, sizeof name);
    session_msg(&a->session, "at %s", pt_escape(name, strlen(name), esc, sizeof esc));
    return 0;
}

static int cmd_quit(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v; (void)argc; (void)argv; (void)err;
    a->quit = 1;
    return 0;
}

static int cmd_view(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :view NAME");
    if (app_show(a, argv[1]) == 0) return 0;
    for (int s = 0; s < a->nscreens; s++)
        if (!strcmp(a->screens[s].name, argv[1])) {
            int i = app_first_pane(a, s);
            if (i >= 0) return app_show(a, a->views[i].ops->name);
        }
    return pt_errorf(err, "no pane or screen '%s' for this input", argv[1]);
}

/* Finite range of the current slice over the shown rows. */
static int slice_range(struct app *a, double *mn, double *mx) {
    struct cube_slice s;
    if (cube_slice(a->session.cube, a->session.metric, a->session.stat, a->session.dim, a->session.dimval, &s) < 0) return -1;
    *mn = INFINITY;
    *mx = -INFINITY;
    int ny = a->session.dim == DIM_TARGET ? s.ny : (int)a->session.nrows;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < s.nx; x++) {
            float v = cube_slice_at(&s, x, a->session.dim == DIM_TARGET ? y : (int)a->session.rows[y]);
            if (!isfinite(v)) continue;
            if (v < *mn) *mn = v;
            if (v > *mx) *mx = v;
        }
    return *mn <= *mx ? 0 : -1;
}

static int cmd_range(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    double mn, mx;
    char *e1, *e2;
    if (argc != 3) return pt_errorf(err, "usage: :range LO HI (values; cells outside are hidden)");
    double lo = strtod(argv[1], &e1), hi = strtod(argv[2], &e2);
    if (*e1 || *e2 || !(lo < hi)) return pt_errorf(err, ":range wants two numbers LO < HI, got '%s %s'", argv[1], argv[2]);
    if (slice_range(a, &mn, &mx) < 0 || !(mx > mn)) return pt_errorf(err, "the slice has no range to narrow");
    double flo = (lo - mn) / (mx - mn), fhi = (hi - mn) / (mx - mn);
    if (flo < 0) flo = 0;
    if (fhi > 1) fhi = 1;
    if (flo >= fhi)
        return pt_errorf(err, "%s..%s misses the slice's values (%.6g..%.6g)", argv[1], argv[2], mn, mx);
    a->session.range_lo = flo;
    a->session.range_hi = fhi;
    session_changed(&a->session, SESSION_CH_COLOR);
    return 0;
}

static int onoff(const char *s, int *out) {
    if (!strcasecmp(s, "on") || !strcmp(s, "1") || !strcasecmp(s, "true")) { *out = 1; return 0; }
    if (!strcasecmp(s, "off") || !strcmp(s, "0") || !strcasecmp(s, "false")) { *out = 0; return 0; }
    return -1;
}

static int cmd_log(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    int on = !a->session.logscale;
    if (argc == 2 && onoff(argv[1], &on) < 0) return pt_errorf(err, ":log wants on or off");
    a->session.logscale = on;
    session_changed(&a->session, SESSION_CH_COLOR);
    return 0;
}

static int cmd_color(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :color gradient|segmented");
    if (!strcasecmp(argv[1], "gradient")) a->session.color_mode = SESSION_COLOR_GRADIENT;
    else if (!strcasecmp(argv[1], "segmented") || !strcasecmp(argv[1], "segment")) a->session.color_mode = SESSION_COLOR_SEGMENTED;
    else return pt_errorf(err, ":color wants gradient or segmented, not '%s'", argv[1]);
    session_changed(&a->session, SESSION_CH_COLOR);
    return 0;
}

static int cmd_split(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    char *e;
    if (argc != 2) return pt_errorf(err, "usage: :split PERCENT (the heat map's share, 20..90)");
    long p = strtol(argv[1], &e, 10);
    if (*e || p < 20 || p > 90) return pt_errorf(err, ":split wants 20..90, not '%s'", argv[1]);
    a->split = (int)p;
    a->arranged = -1;
    a->dirty = 1;
    return 0;
}

static int cmd_filter(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v; (void)err;
    app_search(a, argc > 1 ? argv[1] : "");
    return 0;
}

static int cmd_run(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :run problem|bench|diff");
    int run;
    if (!strcasecmp(argv[1], "problem")) run = RUN_PROBLEM;
    else if (!strcasecmp(argv[1], "bench") || !strcasecmp(argv[1], "benchmark")) run = RUN_BENCH;
    else if (!strcasecmp(argv[1], "diff")) run = RUN_DIFF;
    else return pt_errorf(err, ":run wants problem, bench or diff, not '%s'", argv[1]);
    if ((trendpair_on(&a->session) ? trendpair_set_run(&a->session, run, err) : graphs_set_run(&a->session, run, err)) != 0)
        return -1;
    session_msg(&a->session, "the heat map shows %s", graphs_run_name(run));
    return 0;
}

static int cmd_skipped(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v; (void)argc; (void)argv;
    if (!a->session.ds)
        return pt_errorf(err, a->session.graphs && a->session.graphs->trunning ? "the trend data is still loading" : "no trend data here");
    if (!a->session.ds->nskipped && !a->session.ds->nwarnings) return pt_errorf(err, "nothing was skipped: every file loaded");
    if (app_show(a, "report") < 0) return pt_errorf(err, "no load report pane");
    return 0;
}

/* :export FILE.svg: the screen as it is, as a picture (ui/shot.h).  Taken
 * after the next frame, so the picture holds the screen, not the prompt
 * the command was typed into. */
static int cmd_export(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :export FILE.svg");
    char *path = strdup(argv[1]);
    if (!path) return pt_errorf(err, "out of memory");
    free(a->export_path);
    a->export_path = path;
    a->dirty = 1;
    return 0;
}

void app_export_frame(struct app *a) {
    char *path = a->export_path;
    a->export_path = NULL;
    struct pt_error err;
    char esc[256];
    if (shot_save(a->ui, path, "probetop", &err) != 0) session_err(&a->session, "%s", err.msg);
    else session_msg(&a->session, "wrote %s", pt_escape(path, strlen(path), esc, sizeof esc));
    free(path);
    a->dirty = 1;   /* the message */
}

static int cmd_reload(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v; (void)argc; (void)argv;
    if (loader_reload(&a->session, err) != 0) return -1;
    session_msg(&a->session, "reloading %s...", a->session.paths[0]);
    return 0;
}

static int cmd_follow(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v;
    int on = !a->session.follow;   /* alone: toggles */
    if (argc > 1 && strcmp(argv[1], "on") && strcmp(argv[1], "off"))
        return pt_errorf(err, ":follow wants on or off, not '%s'", argv[1]);
    if (argc > 1) on = !strcmp(argv[1], "on");
    if (!on) {
        follow_off(&a->session);
        session_msg(&a->session, "follow mode off: ^R reloads by hand");
        return 0;
    }
    if (follow_on(&a->session, err) != 0) return -1;
    session_msg(&a->session, "follow mode on: new data shows as it is written");
    return 0;
}

static int cmd_help(struct view *v, struct session *ses, int argc, char **argv, struct pt_error *err) {
    struct app *a = app_of(ses);
    (void)v; (void)argc; (void)argv;
    if (app_show(a, "help") < 0) return pt_errorf(err, "no help pane");
    return 0;
}

/* Commands that need the trend data say so when there is none. */
#define NEEDS_DATA 1
static const struct {
    struct view_cmd c;
    int needs;
} global_cmds[] = {
    {{"step", "N", "select step N, or N.M: its micro step M (the fixed value in dimension step)", 0, cmd_step}, NEEDS_DATA},
    {{"rank", "N", "select rank N", 0, cmd_rank}, NEEDS_DATA},
    {{"metric", "NAME", "switch metric (forward, backward, ...)", 0, cmd_metric}, NEEDS_DATA},
    {{"stat", "NAME", "switch statistic (norm, max, min, mean, ...)", 0, cmd_stat}, NEEDS_DATA},
    {{"dim", "step|rank|module", "switch dimension", 0, cmd_dim}, NEEDS_DATA},
    {{"goto", "TARGET", "move the cursor to a target: its full name or a unique part of it", 1, cmd_goto}, NEEDS_DATA},
    {{"filter", "REGEX", "the same as /REGEX", 1, cmd_filter}, NEEDS_DATA},
    {{"range", "LO HI", "show only values in [LO, HI]", 0, cmd_range}, NEEDS_DATA},
    {{"log", "[on|off]", "log colour scale", 0, cmd_log}, 0},
    {{"color", "gradient|segmented", "colour mode", 0, cmd_color}, 0},
    {{"split", "PERCENT", "the heat map's share of the trend screen", 0, cmd_split}, 0},
    {{"view", "NAME", "show a pane or screen (heatmap, linechart, help, ...)", 0, cmd_view}, 0},
    {{"run", "problem|bench|diff", "two runs (dumps, trend data): the heat map shows the problem run, the benchmark or |p-b|/|b|", 0, cmd_run}, 0},
    {{"skipped", "", "the files the load skipped, and its warnings (as probetop info lists them)", 0, cmd_skipped}, 0},
    {{"reload", "", "read the input again, keeping the cursor's place (^R)", 0, cmd_reload}, NEEDS_DATA},
    {{"follow", "on|off", "follow mode: show new steps as training writes them (as --follow)", 0, cmd_follow}, NEEDS_DATA},
    {{"export", "FILE.svg", "write the screen as it is as an SVG picture, with its colours", 1, cmd_export}, 0},
    {{"help", "", "the help screen", 0, cmd_help}, 0},
    {{"q", "", "quit", 0, cmd_quit}, 0},
    {{"quit", "", "quit", 0, cmd_quit}, 0},
};
#define NGLOBAL_CMDS (sizeof global_cmds / sizeof global_cmds[0])

#define MAXARGS 16

/* Splits line into argv (in place); a command with rest=1 gets everything
 * after its name (leading blanks dropped) as argv[1]. */
int app_run_command(struct app *a, char *line) {
    struct pt_error err;
    char *argv[MAXARGS];
    int argc = 0;
    char *p = line;
    while (*p == ' ' || *p == ':') p++;
    if (!*p) return 0;
    char *name = p;
    while (*p && *p != ' ') p++;
    if (*p) *p++ = '\0';
    while (*p == ' ') p++;
    argv[argc++] = name;

    const struct view_cmd *cmd = NULL;
    struct view *owner = NULL;
    int needs = 0;
    /* The shown panes' own commands first (:step on the tree screen
     * switches the graph, on the trend screen the heat map's step). */
    for (int i = 0; i < a->nviews && !cmd; i++) {
        struct view *v = &a->views[i];
        if (!v->live || !v->visible) continue;
        for (size_t k = 0; k < v->ops->ncmds; k++)
            if (!strcmp(v->ops->cmds[k].name, name)) { cmd = &v->ops->cmds[k]; owner = v; break; }
    }
    for (size_t i = 0; i < NGLOBAL_CMDS && !cmd; i++)
        if (!strcmp(global_cmds[i].c.name, name)) { cmd = &global_cmds[i].c; needs = global_cmds[i].needs; }
    for (int i = 0; i < a->nviews && !cmd; i++) {
        struct view *v = &a->views[i];
        if (!v->live) continue;
        for (size_t k = 0; k < v->ops->ncmds; k++)
            if (!strcmp(v->ops->cmds[k].name, name)) { cmd = &v->ops->cmds[k]; owner = v; break; }
    }
    if (!cmd) {
        char esc[128];
        session_err(&a->session, "no command ':%s' (? lists them)", pt_escape(name, strlen(name), esc, sizeof esc));
        return -1;
    }
    if (needs && !metric_ok(a)) {
        session_err(&a->session, ":%s needs trend data, and this input has none", name);
        return -1;
    }
    if (cmd->rest) {
        if (*p) {
            /* Trailing blanks are not part of a name. */
            char *end = p + strlen(p);
            while (end > p && end[-1] == ' ') *--end = '\0';
            argv[argc++] = p;
        }
    } else {
        while (*p && argc < MAXARGS) {
            argv[argc++] = p;
            while (*p && *p != ' ') p++;
            if (*p) *p++ = '\0';
            while (*p == ' ') p++;
        }
        if (*p) { session_err(&a->session, "too many arguments for :%s", name); return -1; }
    }
    a->session.msg[0] = '\0';
    if (cmd->run(owner, &a->session, argc, argv, &err) < 0) {
        session_err(&a->session, "%s", err.msg);
        return -1;
    }
    a->dirty = 1;
    return 0;
}

/* Tab completion of command names, then of metric / stat / dim values. */
int app_complete(void *ctx, const char *line, int cycle, char *out) {
    struct app *a = ctx;
    const char *cands[256];
    int nc = 0;
    const char *sp = strchr(line, ' ');
    char head[64];
    if (!sp) {
        for (size_t i = 0; i < NGLOBAL_CMDS && nc < 256; i++)
            if (!strncmp(global_cmds[i].c.name, line, strlen(line))) cands[nc++] = global_cmds[i].c.name;
        for (int i = 0; i < a->nviews; i++) {
            if (!a->views[i].live) continue;
            for (size_t k = 0; k < a->views[i].ops->ncmds && nc < 256; k++)
                if (!strncmp(a->views[i].ops->cmds[k].name, line, strlen(line))) cands[nc++] = a->views[i].ops->cmds[k].name;
        }
        if (cycle >= nc) return 0;
        snprintf(out, PROMPT_MAX, "%s ", cands[cycle]);
        return 1;
    }
    size_t hl = (size_t)(sp - line);
    if (hl >= sizeof head) return 0;
    memcpy(head, line, hl);
    head[hl] = '\0';
    const char *arg = sp + 1;
    static const char *const dims[] = {"step", "rank", "module"};
    static const char *const colors[] = {"gradient", "segmented"};
    static const char *const runs[] = {"problem", "bench", "diff"};
    if (!strcmp(head, "metric") && a->session.cube) {
        for (int i = 0; i < a->session.cube->nmetrics && nc < 256; i++) cands[nc++] = a->session.cube->metrics[i].name;
    } else if (!strcmp(head, "stat") && a->session.cube && a->session.cube->nmetrics) {
        const struct cube_metric *m = &a->session.cube->metrics[a->session.metric];
        for (int i = 0; i < m->nstats; i++) cands[nc++] = m->stats[i];
    } else if (!strcmp(head, "dim")) {
        for (int i = 0; i < 3; i++) cands[nc++] = dims[i];
    } else if (!strcmp(head, "color")) {
        for (int i = 0; i < 2; i++) cands[nc++] = colors[i];
    } else if (!strcmp(head, "run")) {
        for (int i = 0; i < 3; i++) cands[nc++] = runs[i];
    } else if (!strcmp(head, "view")) {
        for (int i = 0; i < a->nviews && nc < 256; i++)
            if (a->views[i].live) cands[nc++] = a->views[i].ops->name;
    }
    int k = 0;
    for (int i = 0; i < nc; i++) {
        if (strncmp(cands[i], arg, strlen(arg))) continue;
        if (k++ == cycle) {
            snprintf(out, PROMPT_MAX, "%s %s", head, cands[i]);
            return 1;
        }
    }
    return 0;
}

/* --- the document --- */

struct walk_ctx {
    const struct session_doc_ops *ops;
    void *ctx;
};

static void emit_row(void *c, const char *keys, const char *help) {
    struct walk_ctx *w = c;
    w->ops->row(w->ctx, keys, help);
}

/* A pane's row: a key that means something else everywhere else says so,
 * so one key never has two meanings without the help telling. */
static void emit_pane_row(void *c, const char *keys, const char *help) {
    struct walk_ctx *w = c;
    char buf[512];
    const char *p = keys;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 1) {
            const struct keys_row *g = keys_find(app_keys, app_nkeys, (unsigned char)p[0]);
            if (g && g->help && strcmp(g->help, help)) {
                snprintf(buf, sizeof buf, "%s (in this pane; elsewhere %c is: %s)", help, p[0], g->help);
                help = buf;
                break;
            }
        }
        p += n;
        while (*p == ',' || *p == ' ') p++;
    }
    w->ops->row(w->ctx, keys, help);
}

static void legend(const struct session_doc_ops *ops, void *ctx, const char *utf8, const char *ascii, int role,
                   const char *help) {
    const char *g = ops->ascii ? ascii : utf8;
    if (ops->legend) ops->legend(ctx, g, role, help);
    else ops->row(ctx, g, help);
}

/* What every glyph and colour on screen means. */
static void legend_walk(const struct session_doc_ops *ops, void *ctx) {
    ops->section(ctx, "Legend: tree (compare screen), the chip before each node");
    legend(ops, ctx, "\xe2\x80\xa2", ".", UI_OK, "pass: every compared input and output within msProbe's tolerance (pale fill)");
    legend(ops, ctx, "!", "!", UI_WARN, "warning: an error between msProbe's warning and error thresholds (yellow fill)");
    legend(ops, ctx, "\xc3\x97", "x", UI_BAD, "error: above msProbe's error threshold (red fill; the deeper, the larger)");
    legend(ops, ctx, "?", "?", UI_DIM, "unmatched: no counterpart on the other side (grey)");
    legend(ops, ctx, "-", "-", UI_DIM, "matched, nothing to compare (white)");
    legend(ops, ctx, "\xe2\x86\x91", "^", UI_NAN, "overflow, critical: NaN/Inf born in this node (magenta)");
    legend(ops, ctx, "\xe2\x86\x91", "^", UI_PINF, "overflow, high: passed through, or output Norm over 100x the input's (green)");
    legend(ops, ctx, "\xe2\x86\x91", "^", UI_HINT, "overflow, medium: a non-finite input absorbed (teal)");
    legend(ops, ctx, "\xe2\x96\xb8 \xe2\x96\xbe", "+ -", UI_NORMAL, "collapsed / expanded node");
    ops->section(ctx, "Legend: data-flow breadcrumb (the tree's row under its title after < or >)");
    legend(ops, ctx, "\xe2\x86\x90stats", "<-stats", UI_HINT, "producer found by equal dtype, shape, Max, Min, Mean, Norm (the latest earlier output)");
    legend(ops, ctx, "\xe2\x86\x90" "crc", "<-crc", UI_HINT, "producer found by equal checksum (md5 / xor dumps)");
    legend(ops, ctx, "\xe2\x86\x90p2p", "<-p2p", UI_HINT, "the sender on another rank (send/recv or collective pair); \xe2\x86\x92 the same downstream; rN: rank N");
    ops->section(ctx, "Legend: heat map");
    legend(ops, ctx, "N", "N", UI_NAN, "a NaN cell (magenta)");
    legend(ops, ctx, "+", "+", UI_PINF, "a +Inf cell (green)");
    legend(ops, ctx, "-", "-", UI_NINF, "a -Inf cell (cyan)");
    legend(ops, ctx, "\xe2\x97\x86", "!", UI_ANOMALY,
           "a cell msProbe's monitor reported (its anomaly reports; orange, in the cell's last column)");
    legend(ops, ctx, "[ ]", "[ ]", UI_AXIS_SEL, "the cursor (the selected cell; \xe2\x96\xa1 or @ in a 1-column cell)");
    legend(ops, ctx, "blank", "blank", UI_NORMAL, "no data for that cell");
    legend(ops, ctx, "\xc2\xb7", ".", UI_DIM,
           "a row that describes no tensor (msProbe's all-NaN placeholder for an output that is not a tensor, a "
           ".trend.db target NULL on every step and rank): missing data, not a NaN; the status line says (no tensor)");
    legend(ops, ctx, "colours", "colours", UI_NORMAL,
           "gradient: msProbe's ramp, blue (small) through yellow to red (large); segmented (x): msProbe's 3-sigma "
           "bands around the mean; the scale and its ends are under the map");
    ops->section(ctx, "Legend: line chart");
    legend(ops, ctx, "\xe2\x96\xa0", "*", ui_series_role(0), "before a line's name in the legend: its colour; - a line hidden (Space)");
    legend(ops, ctx, "N + -", "N + -", ui_series_role(0),
           "in the plot's top row: a NaN, +Inf or -Inf point of the line in that colour (the line has a gap there)");
    ops->section(ctx, "Legend: run summary (F7, two runs), each step x rank pair");
    legend(ops, ctx, "\xc3\x97", "x", UI_BAD, "error: a node above msProbe's error threshold; the numbers: errors/warnings/unmatched");
    legend(ops, ctx, "!", "!", UI_WARN, "warning: the worst node between msProbe's warning and error thresholds");
    legend(ops, ctx, "\xe2\x80\xa2", ".", UI_OK, "pass: every node within msProbe's tolerance");
    legend(ops, ctx, "?", "?", UI_DIM, "only unmatched nodes (no counterpart on the other side)");
    legend(ops, ctx, "-", "-", UI_DIM, "not compared (the line under the grid says why)");
    legend(ops, ctx, "~", "~", UI_DIM, "still being compared");
    legend(ops, ctx, "*", "*", UI_NORMAL, "after the numbers: the run's first divergence (f goes there)");
    ops->section(ctx, "Legend: overflow screen");
    legend(ops, ctx, "\xe2\x96\x88" "C", "#C", UI_BAD, "critical: NaN/Inf born here (clean inputs, non-finite output)");
    legend(ops, ctx, "\xe2\x96\x93" "H", "+H", UI_WARN, "high: passed through, or an output Norm over 100x the input Norm");
    legend(ops, ctx, "\xe2\x96\x91" "M", "-M", UI_HINT, "medium: a non-finite input absorbed");
    legend(ops, ctx, "\xe2\x96\x88!", "#!", UI_NAN, "a cell holding NaN or +-Inf (input without levels: monitor data, .trend.db)");
    legend(ops, ctx, "\xe2\x97\x86" "A", "*A", UI_ANOMALY,
           "one of msProbe's monitor anomaly reports, listed first in msProbe's first-anomaly order");
    legend(ops, ctx, "\xc2\xb7", ".", UI_DIM, "grid: a clean step x rank; the other glyphs there are its worst NaN/Inf level");
    legend(ops, ctx, "\xe2\x88\xbc", "~", UI_DIM,
           "grid: a step x rank with numeric-jump records only (msProbe's heuristic, no NaN/Inf), never a level's colour");
    legend(ops, ctx, "\xe2\x97\x86", "*", UI_ANOMALY,
           "grid: a step x rank an msProbe anomaly report names, without a NaN/Inf record (those keep their glyph)");
    ops->section(ctx, "Legend: lane view");
    legend(ops, ctx, "\xe2\x96\x88", "#", UI_OK, "compute: a computation kernel runs (green)");
    legend(ops, ctx, "\xe2\x96\x88", "~", ui_series_role(5), "communication: an NCCL/HCCL kernel runs (blue)");
    legend(ops, ctx, "\xe2\x96\x88", "m", UI_WARN, "memory: a memcpy or memset runs (yellow)");
    legend(ops, ctx, "\xe2\x96\x88", ".", UI_DIM, "idle: no kernel on any stream; a pipeline bubble is a run of it (grey)");
    legend(ops, ctx, "\xe2\x96\x8c", "(UTF-8 only)", UI_NORMAL, "half blocks: the left half one category, the right half another");
    legend(ops, ctx, "blank", "blank", UI_NORMAL, "outside the rank's step (another rank's step is longer or starts earlier)");
}

void app_doc_walk(const struct session_doc_ops *ops, void *ctx) {
    struct walk_ctx w = {ops, ctx};
    ops->section(ctx, "Everywhere");
    keys_group(app_keys, app_nkeys, emit_row, &w);
    for (int s = 0; s < app_nscreens; s++) {
        if (!app_screens[s].fkey || !strcmp(app_screens[s].name, "help")) continue;
        char k[16], h[64];
        keys_name(app_screens[s].fkey, k, sizeof k);
        snprintf(h, sizeof h, "the %s screen", app_screens[s].name);
        ops->row(ctx, k, h);
    }
    for (int i = 0; i < app_npanes; i++) {
        const struct view_ops *o = app_panes[i].ops;
        if (!o->nkeys) continue;
        char title[128];
        snprintf(title, sizeof title, "%s (when focused)", o->title);
        ops->section(ctx, title);
        keys_group(o->keys, o->nkeys, emit_pane_row, &w);
    }
    ops->section(ctx, "Commands (type : first; Tab completes, Up/Down recall)");
    for (size_t i = 0; i < NGLOBAL_CMDS; i++) {
        char k[96];
        const struct view_cmd *c = &global_cmds[i].c;
        snprintf(k, sizeof k, ":%s%s%s", c->name, c->args[0] ? " " : "", c->args);
        ops->row(ctx, k, c->help);
    }
    for (int i = 0; i < app_npanes; i++) {
        const struct view_ops *o = app_panes[i].ops;
        for (size_t k = 0; k < o->ncmds; k++) {
            char kk[96];
            const struct view_cmd *c = &o->cmds[k];
            snprintf(kk, sizeof kk, ":%s%s%s", c->name, c->args[0] ? " " : "", c->args);
            ops->row(ctx, kk, c->help);
        }
    }
    legend_walk(ops, ctx);
    ops->section(ctx, "Mouse");
    ops->row(ctx, "click", "select a cell / a legend entry (hides or shows its line); on the key bar: that key");
    ops->row(ctx, "double click", "add the cell's line");
    ops->row(ctx, "wheel", "scroll");
    ops->row(ctx, "drag", "the line chart's title row up or down: move the heat map / line chart split");
}

static void man_section(void *ctx, const char *title) {
    FILE *f = ctx;
    fputs(".SS ", f);
    keys_roff(f, title);
    fputc('\n', f);
}

static void man_row(void *ctx, const char *keys, const char *help) {
    FILE *f = ctx;
    fputs(".TP\n.B ", f);
    keys_roff(f, keys);
    fputc('\n', f);
    keys_roff(f, help);
    fputc('\n', f);
}

void app_keys_man(FILE *f) {
    static const struct session_doc_ops ops = {man_section, man_row, NULL, 0};
    fputs(".\\\" Generated by `probetop --keys-man` from the key tables; do not edit.\n.SH KEYS\n", f);
    app_doc_walk(&ops, f);
}
