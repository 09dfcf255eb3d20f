/* app: the interactive program.  Parses the analyzer's options, loads the
 * input in the background (progress line, Ctrl-C cancels), starts the
 * terminal, and runs the one event loop: read a key, give it to the
 * prompt, the focused pane or the global table, draw a frame when
 * something changed.  Arrangement: toolbar (1 row), the body (the shown
 * screen's panes by weight), the status lines (2, or 1 below 12 rows).
 *
 * Exit codes: 0 after q, 2 for bad usage or an input that does not load,
 * 128+signal after Ctrl-C / SIGTERM / SIGHUP (the terminal is restored on
 * every path, see ui/term.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/cube/cube_lazy.h"
#include "model/util/util.h"
#include "src/app/app.h"
#include "src/session/demo_session.h"
#include "src/session/graphs.h"
#include "src/session/origin_search.h"
#include "src/session/trendpair.h"
#include "src/app/app_state.h"
#include "src/io/dump/dump_cache.h"
#include "src/io/common/json.h"
#include "src/io/monitor/mon_cache.h"
#include "src/cmd/cmd.h"
#include "ui/keys.h"
#include "ui/palette.h"
#include "ui/prompt.h"
#include "ui/shot.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/trend.h"

/* --- arrangement: the windows of the screen shown --- */

static void set_win(struct view *v, int y, int x, int h, int w) {
    if (h < 1 || w < 1) {
        if (v->win) delwin(v->win);
        v->win = NULL;
        v->visible = 0;
        v->h = v->w = 0;
        return;
    }
    if (!v->win || v->y != y || v->x != x || v->h != h || v->w != w) {
        if (v->win) delwin(v->win);
        v->win = newwin(h, w, y, x);
        int changed = v->h != h || v->w != w;
        v->y = y; v->x = x; v->h = h; v->w = w;
        v->visible = v->win != NULL;
        if (v->win) leaveok(v->win, TRUE);
        (void)changed;
        return;
    }
    v->visible = 1;
}

static WINDOW *remake(WINDOW *old, int h, int w, int y, int x) {
    if (old) delwin(old);
    if (h < 1 || w < 1) return NULL;
    return newwin(h, w, y, x);
}

static void arrange(struct app *a) {
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    a->rows_total = rows;
    a->cols_total = cols;
    a->status_h = rows >= 12 ? 2 : rows >= 3 ? 1 : 0;
    int bar_h = rows >= 2 ? 1 : 0, keys_h = a->keybar_on && rows >= 6 ? 1 : 0;   /* the key bar: the bottom row */
    if (a->bar) delwin(a->bar);
    a->bar = newwin(1, cols > 0 ? cols : 1, 0, 0);
    if (a->bar) {
        keypad(a->bar, TRUE);
        leaveok(a->bar, TRUE);
    }
    a->status = remake(a->status, a->status_h, cols, rows - a->status_h - keys_h, 0);
    a->keybar = remake(a->keybar, keys_h, cols, rows - keys_h, 0);
    int body_y = bar_h, body_h = rows - bar_h - a->status_h - keys_h;
    if (body_h < 0) body_h = 0;

    /* The shown screen's live panes. */
    int idx[32], n = 0, total = 0;
    const struct app_screen *scr = &a->screens[a->screen];
    for (int i = 0; i < a->nviews; i++) {
        struct view *v = &a->views[i];
        if (v->live && !strcmp(app_panes[i].screen, scr->name) && n < 32) {
            idx[n++] = i;
            total += app_panes[i].weight;
        } else {
            set_win(v, 0, 0, 0, 0);
        }
    }
    int size[32], wgt[32];
    int room = scr->horizontal ? cols : body_h;
    total = 0;
    for (int k = 0; k < n; k++) {
        wgt[k] = app_panes[idx[k]].weight;
        /* The trend screen's split is the user's (+ / - / :split). */
        if (!strcmp(scr->name, "trend") && n == 2) wgt[k] = k == 0 ? a->split : 100 - a->split;
        total += wgt[k];
    }
    for (int k = 0; k < n; k++) size[k] = total > 0 ? room * wgt[k] / total : 0;
    /* Too small to be useful (a title and two rows): the first pane takes it. */
    int used = 0;
    for (int k = 1; k < n; k++) {
        if (size[k] < 3) { size[0] += size[k]; size[k] = 0; }
        used += size[k];
    }
    if (n) size[0] = room - used;
    a->arranged = a->screen;
    int pos = 0;
    for (int k = 0; k < n; k++) {
        struct view *v = &a->views[idx[k]];
        if (scr->horizontal) set_win(v, body_y, pos, body_h, size[k]);
        else set_win(v, body_y + pos, 0, size[k], cols);
        pos += size[k];
        if (v->visible && v->ops->resize) v->ops->resize(v, &a->session);
    }
    /* Focus stays on a shown pane. */
    if (a->focus < 0 || a->focus >= a->nviews || !a->views[a->focus].visible)
        for (int k = 0; k < n; k++)
            if (a->views[idx[k]].visible) { a->focus = idx[k]; break; }
    a->dirty = 1;
}

/* --- toolbar and status --- */

static void bar_part(WINDOW *w, struct app *a, int *x, int role, const char *s) {
    int cols = a->cols_total;
    if (*x >= cols) return;
    ui_role(w, a->ui, role);
    *x += ui_put(w, 0, *x, cols - *x, s);
}

/* Nothing to show yet: the first data is still loading.  (A reload, or
 * the later steps of a progressive load, run while the data shown works.) */
static int waiting(const struct app *a) { return a->session.load.running && !a->session.ds; }

/* Files the load skipped: said in the toolbar for as long as it runs
 * (`:skipped` lists them). */
static void bar_skipped(WINDOW *w, struct app *a, int *x) {
    if (!a->session.ds || !a->session.ds->nskipped) return;
    char t[64];
    snprintf(t, sizeof t, "%zu file%s skipped (:skipped)", a->session.ds->nskipped, a->session.ds->nskipped == 1 ? "" : "s");
    bar_part(w, a, x, UI_ERROR, t);
    bar_part(w, a, x, UI_BAR, ui_glyph_sep(a->ui));
}

static void draw_bar(struct app *a) {
    WINDOW *w = a->bar;
    if (!w) return;
    struct ui *u = a->ui;
    int x = 0;
    ui_role(w, u, UI_BAR);
    ui_fill(w, 0, 0, a->cols_total);
    if (waiting(a)) {
        char t[600];
        snprintf(t, sizeof t, " probetop  loading %s", a->session.demo ? "demo" : a->session.paths[0]);
        bar_part(w, a, &x, UI_BAR_HI, t);
        return;
    }
    const char *scr = a->screens[a->screen].name;
    if (!a->session.cube || a->session.cube->nmetrics == 0 || !strcmp(scr, "compare") || !strcmp(scr, "summary") || !strcmp(scr, "curves")) {
        bar_part(w, a, &x, UI_BAR_HI, " probetop  ");
        bar_skipped(w, a, &x);
        if (a->session.graphs) {
            char t[160];
            const struct graphs *c = a->session.graphs;
            snprintf(t, sizeof t, "%s", c->visdb ? (c->build ? ".vis.db build" : ".vis.db compare")
                                          : c->build ? "build" : "compare");
            bar_part(w, a, &x, UI_BAR, t);
            if (!strcmp(scr, "summary")) {
                snprintf(t, sizeof t, "%swhole run", ui_glyph_sep(a->ui));
                bar_part(w, a, &x, UI_BAR_HI, t);
            } else if (c->cur) {
                snprintf(t, sizeof t, "%sstep %d%srank %d", ui_glyph_sep(a->ui), (int)c->cur->step, ui_glyph_sep(a->ui),
                         (int)c->cur->rank);
                bar_part(w, a, &x, UI_BAR_HI, t);
            }
            /* the summary's own line says how far the run's compare is */
            if (graphs_loading(&a->session) && c->running && strcmp(scr, "summary")) bar_part(w, a, &x, UI_BAR, "  loading...");
        }
        return;
    }
    const struct cube *c = a->session.cube;
    const struct cube_metric *m = &c->metrics[a->session.metric];
    char t[512];
    const char *sep = ui_glyph_sep(u);
    if (a->cols_total >= 60) bar_part(w, a, &x, UI_BAR_HI, " probetop ");
    else bar_part(w, a, &x, UI_BAR, " ");
    bar_skipped(w, a, &x);
    if ((a->session.graphs && a->session.mode == SESSION_MODE_COMPARE) || trendpair_on(&a->session)) {
        /* the run the heat map shows (divergence heat map; two runs of trend data: the same choices) */
        snprintf(t, sizeof t, "run %s", graphs_run_name(a->session.pair ? trendpair_run(&a->session) : a->session.graphs->run));
        bar_part(w, a, &x, UI_BAR_HI, t);
        bar_part(w, a, &x, UI_BAR, sep);
    }
    snprintf(t, sizeof t, "%s/%s", m->name, m->stats[a->session.stat]);
    bar_part(w, a, &x, UI_BAR_HI, t);
    bar_part(w, a, &x, UI_BAR, sep);
    char st[40];
    if (a->session.dim == DIM_STEP) snprintf(t, sizeof t, "step %s", cube_step_text(c, a->session.sel_step, st, sizeof st));
    else if (a->session.dim == DIM_RANK) {
        char rk[160];
        snprintf(t, sizeof t, "rank %s", session_rank_both(&a->session, a->session.sel_rank, rk, sizeof rk));
    } else {
        char full[1024], sh[64];
        if (a->session.sel_target == NAMES_NONE) snprintf(t, sizeof t, "module -");
        else {
            session_target_label(&a->session, -1, a->session.sel_target, full, sizeof full);
            text_short_target(full, 24, u->utf8, sh, sizeof sh);
            snprintf(t, sizeof t, "module %s", sh);
        }
    }
    bar_part(w, a, &x, UI_BAR_HI, t);
    if (a->session.regex) {
        /* as typed: a backslash stays one (pt_escape would double it);
         * only control bytes, which the prompt never takes, get escapes */
        char esc[128];
        const char *shown = a->session.regex;
        for (const char *q = a->session.regex; *q; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f) {
                shown = pt_escape(a->session.regex, strlen(a->session.regex), esc, sizeof esc);
                break;
            }
        bar_part(w, a, &x, UI_BAR, sep);
        snprintf(t, sizeof t, "/%s/", shown);
        bar_part(w, a, &x, UI_BAR_HI, t);
    }
    if (a->session.label_desc) {
        bar_part(w, a, &x, UI_BAR, sep);
        snprintf(t, sizeof t, "labels %s", a->session.label_desc);
        bar_part(w, a, &x, UI_BAR_HI, t);
    }
    if (a->session.regex || a->session.label_desc) {
        snprintf(t, sizeof t, " %u/%u", a->session.nrows, m->ntargets);
        bar_part(w, a, &x, UI_BAR, t);
    }
    bar_part(w, a, &x, UI_BAR, sep);
    bar_part(w, a, &x, UI_BAR, a->session.color_mode == SESSION_COLOR_GRADIENT ? "gradient" : "segmented");
    if (a->session.logscale) bar_part(w, a, &x, UI_BAR, " log");
    if (a->session.shown_ok) {
        char lo[32], hi[32];
        palette_fmt_exp2(a->session.shown_lo, lo, sizeof lo);
        palette_fmt_exp2(a->session.shown_hi, hi, sizeof hi);
        bar_part(w, a, &x, UI_BAR, sep);
        snprintf(t, sizeof t, "%s%s..%s", a->session.range_lo > 0 || a->session.range_hi < 1 ? "range* " : "", lo, hi);
        bar_part(w, a, &x, UI_BAR, t);
    }
    if (cube_is_lazy(c)) {   /* a .trend.db read by slices (--mem) */
        bar_part(w, a, &x, UI_BAR, sep);
        bar_part(w, a, &x, UI_BAR, cube_lazy_state(c, t, sizeof t));
    }
}

/* What the status line says of the data's own state: the steps still
 * loading under the ones shown, follow mode ("live, grew 12:03:41"),
 * files being written.  "" when there is nothing to say. */
static const char *load_text(const struct app *a, char *buf, size_t size) {
    buf[0] = '\0';
    char fl[96];
    follow_text(&a->session, fl, sizeof fl);
    if (a->session.load.running && !a->session.load.reload) {
        size_t fd = atomic_load(&a->session.load.files_done), ft = atomic_load(&a->session.load.files_total);
        if (ft) snprintf(buf, size, "loading %zu/%zu files  ", fd, ft);
        else snprintf(buf, size, "loading...  ");
    } else if (fl[0]) {
        size_t np = a->session.ds ? a->session.ds->npending : 0;
        if (np) snprintf(buf, size, "%s, %zu file%s being written  ", fl, np, np == 1 ? "" : "s");
        else snprintf(buf, size, "%s  ", fl);
    }
    return buf;
}

static void draw_status(struct app *a) {
    WINDOW *w = a->status;
    if (!w) return;
    struct ui *u = a->ui;
    int cols = a->cols_total;
    char buf[2048] = "";
    werase(w);
    if (waiting(a)) {
        size_t fd = atomic_load(&a->session.load.files_done), ft = atomic_load(&a->session.load.files_total);
        uint64_t bd = atomic_load(&a->session.load.bytes_done), bt = atomic_load(&a->session.load.bytes_total);
        if (ft)
            snprintf(buf, sizeof buf, "%zu/%zu files  %.1f/%.1f MB  Ctrl-C cancels", fd, ft, bd / 1048576.0,
                     bt / 1048576.0);
        else
            snprintf(buf, sizeof buf, "reading...  Ctrl-C cancels");
        ui_role(w, u, UI_NORMAL);
        ui_put(w, 0, 0, cols, buf);
        return;
    }
    struct view *fv = a->focus >= 0 && a->focus < a->nviews && a->views[a->focus].live ? &a->views[a->focus] : NULL;
    if (fv && fv->ops->status) fv->ops->status(fv, &a->session, buf, sizeof buf);
    char *second = strchr(buf, '\n');
    if (second) *second++ = '\0';
    const char *note = NULL;
    char small[96];
    if (a->cols_total < 40 || a->rows_total < 12) {
        snprintf(small, sizeof small, "40x12 shows all");
        note = small;
    }
    int last = a->status_h - 1;
    if (a->prompt->active) {
        /* The prompt takes the last row. */
        char line[PROMPT_MAX + 2];
        snprintf(line, sizeof line, "%c%s", a->prompt->kind, a->prompt->buf);
        int ccol = 1 + prompt_cursor_col(a->prompt);
        int start = ccol >= cols ? ccol - cols + 1 : 0;
        ui_role(w, u, UI_PROMPT);
        ui_put(w, last, 0, cols, line + text_prefix(line, start));
        if (a->status_h == 2) {
            ui_role(w, u, UI_HINT);
            ui_put(w, 0, 0, cols, a->prompt->kind == ':' ? "Enter runs  Esc cancels  Tab completes  Up/Down history"
                                                          : "regex on target names (caseless)  Enter applies  empty clears  Up recalls  Esc cancels");
        }
        wmove(w, last, ccol - start);
        return;
    }
    /* Row 0: the cell (or the message when there is one row). */
    int x = 0;
    if (a->status_h == 1 && (a->session.msg[0] || note)) {
        ui_role(w, u, a->session.msg[0] && a->session.msg_error ? UI_ERROR : UI_MSG);
        ui_put(w, 0, 0, cols, a->session.msg[0] ? a->session.msg : note);
        return;
    }
    const char *hints = "? help  q quit";
    char live[160];
    int right = cols;   /* row 0's right end, left of what is said there */
    if (load_text(a, live, sizeof live)[0]) {
        /* the rest still loading, or follow mode: said at the right end,
         * before the cell's text, which it may cut */
        int lw = text_width(live);
        if (lw + 20 <= cols) {
            ui_role(w, u, UI_MSG);
            ui_put(w, 0, cols - lw, lw, live);
            /* two blanks keep it apart from the cell's text and the hints
             * ("quitlive", "emblive, grew" at 80 columns) */
            right = cols - lw - 2;
        }
    }
    ui_role(w, u, UI_NORMAL);
    x = ui_put(w, 0, 0, right, buf);
    int hw = text_width(hints);
    if (x + hw + 2 <= right) {
        ui_role(w, u, UI_HINT);
        ui_put(w, 0, right - hw, hw, hints);
        /* files the load skipped stay said here, beside the hints */
        if (a->session.ds && a->session.ds->nskipped) {
            char sk[64];
            snprintf(sk, sizeof sk, "%zu skipped (:skipped)  ", a->session.ds->nskipped);
            int sw = text_width(sk);
            if (x + hw + sw + 2 <= right) {
                ui_role(w, u, UI_ERROR);
                ui_put(w, 0, right - hw - sw, sw, sk);
            }
        }
    }
    if (a->status_h < 2) return;
    if (a->session.msg[0]) {
        ui_role(w, u, a->session.msg_error ? UI_ERROR : UI_MSG);
        ui_put(w, 1, 0, cols, a->session.msg);
    } else if (second && second[0]) {
        char fit[2048];
        ui_role(w, u, UI_NORMAL);
        ui_put(w, 1, 0, cols, text_fit(second, cols, TEXT_CUT_MIDDLE, u->utf8, fit, sizeof fit));
    } else if (note) {
        ui_role(w, u, UI_HINT);
        ui_put(w, 1, 0, cols, note);
    } else if (fv && fv->ops->hints) {
        ui_role(w, u, UI_HINT);
        ui_put(w, 1, 0, cols, fv->ops->hints);
    }
    if (note && (a->session.msg[0] || (second && second[0]))) {
        /* Keep the note visible at the right of row 0 instead. */
        int nw = text_width(note);
        if (x + nw + 2 <= cols) {
            ui_role(w, u, UI_HINT);
            ui_put(w, 0, cols - nw, nw, note);
        }
    }
}

static void frame(struct app *a) {
    /* A pane may have switched screens (app_show): windows first. */
    if (a->arranged != a->screen) arrange(a);
    if (a->bar) wnoutrefresh(a->bar);
    /* Panes first: the toolbar shows what the heat map computed. */
    for (int i = 0; i < a->nviews; i++) {
        struct view *v = &a->views[i];
        v->focused = i == a->focus;
        if (v->visible && v->win && !waiting(a)) v->ops->draw(v, &a->session);
    }
    draw_bar(a);
    draw_status(a);
    app_keybar_draw(a, a->keybar);
    if (a->bar) wnoutrefresh(a->bar);
    for (int i = 0; i < a->nviews; i++)
        if (a->views[i].visible && a->views[i].win) wnoutrefresh(a->views[i].win);
    if (a->status) wnoutrefresh(a->status);
    if (a->keybar) wnoutrefresh(a->keybar);
    curs_set(a->prompt->active ? 1 : 0);
    doupdate();
    a->dirty = 0;
    if (a->export_path) app_export_frame(a);
}

/* --- input --- */

static struct view *view_at(struct app *a, int y, int x) {
    for (int i = 0; i < a->nviews; i++) {
        struct view *v = &a->views[i];
        if (v->visible && y >= v->y && y < v->y + v->h && x >= v->x && x < v->x + v->w) return v;
    }
    return NULL;
}

/* The trend screen's two panes (heat map above, line chart below), or 0. */
static int trend_panes(struct app *a, struct view **top, struct view **bottom) {
    struct view *v[2];
    int n = 0;
    if (strcmp(a->screens[a->screen].name, "trend")) return 0;
    for (int i = 0; i < a->nviews && n < 2; i++)
        if (a->views[i].visible && a->views[i].h > 0 && !strcmp(app_panes[i].screen, "trend")) v[n++] = &a->views[i];
    if (n != 2) return 0;
    *top = v[0]->y <= v[1]->y ? v[0] : v[1];
    *bottom = *top == v[0] ? v[1] : v[0];
    return 1;
}

/* A drag that starts on the line chart's title row moves the split to
 * where it ends; other drags do nothing. */
static void mouse_drag(struct app *a, int my) {
    struct view *top, *bottom;
    if (!trend_panes(a, &top, &bottom) || a->ui->press_y != bottom->y) return;
    /* arrange() gives the chart floor(total * (100 - p) / 100) rows: the
     * smallest such share that puts its title on row my */
    int total = top->h + bottom->h, rows = my - top->y;
    int p = total > 0 ? 100 - ((total - rows) * 100 + total - 1) / total : a->split;
    if (p < 20) p = 20;
    if (p > 90) p = 90;
    a->split = p;
    arrange(a);
    session_msg(&a->session, "split %d%% (also + / - / :split)", p);
}

static void on_key(struct app *a, int key, int my, int mx, int mb) {
    if (key == KEYS_RESIZE) { arrange(a); return; }
    if (a->prompt->active) {
        if (key == KEYS_MOUSE) return;
        enum prompt_result r = prompt_key(a->prompt, key);
        a->dirty = 1;
        if (r == PROMPT_DONE) {
            char line[PROMPT_MAX];
            memcpy(line, a->prompt->buf, sizeof line);
            a->session.msg[0] = '\0';
            int before = a->screen;
            if (a->prompt->kind == ':') app_run_command(a, line);
            else app_search(a, line);
            if (a->screen != before) arrange(a);
        }
        return;
    }
    if (key == KEYS_MOUSE && mb == 8) { mouse_drag(a, my); return; }
    if (key == KEYS_MOUSE && a->keybar && my == a->rows_total - 1 && mb == 1) {
        key = app_keybar_key_at(a, mx);   /* a click on the key bar: its key */
        if (!key) return;
    } else if (key == KEYS_MOUSE) {
        struct view *v = view_at(a, my, mx);
        if (!v) return;
        a->session.msg[0] = '\0';
        a->focus = v->index;
        struct view_mouse m = {my - v->y, mx - v->x, mb == 1 || mb == 2 ? 1 : 0, mb == 2, mb == 4 ? -1 : mb == 5 ? 1 : 0};
        int before = a->screen;
        if (v->ops->mouse) v->ops->mouse(v, &a->session, &m);
        if (a->screen != before) arrange(a);   /* a pane may switch screens (Enter on a list row) */
        a->dirty = 1;
        return;
    }
    a->session.msg[0] = '\0';
    a->dirty = 1;
    if (key == KEYS_ESC && trendpair_busy(&a->session)) {   /* Esc stops `f` on two runs */
        trendpair_cancel(&a->session);
        return;
    }
    struct view *fv = a->focus >= 0 && a->focus < a->nviews && a->views[a->focus].live ? &a->views[a->focus] : NULL;
    if (fv && fv->ops->key && !waiting(a)) {
        const struct keys_row *row = keys_find(fv->ops->keys, fv->ops->nkeys, key);
        int before = a->screen;
        if (fv->ops->key(fv, &a->session, row ? row->action : 0, key)) {
            if (a->screen != before) arrange(a);
            return;
        }
    }
    for (int s = 0; s < a->nscreens; s++)
        if (a->screens[s].fkey && a->screens[s].fkey == key && strcmp(a->screens[s].name, "help")) {
            int i = app_first_pane(a, s);
            if (i >= 0) {
                app_show(a, a->views[i].ops->name);
                return;
            }
            session_msg(&a->session, "no %s screen for this input", a->screens[s].name);
            return;
        }
    const struct keys_row *row = keys_find(app_keys, app_nkeys, key);
    if (row) {
        app_global_action(a, row->action);
        return;
    }
    char kn[16];
    session_msg(&a->session, "%s does nothing here (? lists the keys)", keys_name(key, kn, sizeof kn));
}

/* --- start and stop --- */

static void free_all(struct app *a) {
    free(a->export_path);
    a->export_path = NULL;
    for (int i = 0; i < a->nviews; i++) {
        struct view *v = &a->views[i];
        if (v->live && v->ops->free) v->ops->free(v);
        v->live = 0;
        if (v->win) delwin(v->win);
        v->win = NULL;
    }
    free(a->views);
    a->views = NULL;
    if (a->bar) delwin(a->bar);
    if (a->status) delwin(a->status);
    if (a->keybar) delwin(a->keybar);
    a->bar = a->status = a->keybar = NULL;
}

static void release(struct app *a) {
    follow_off(&a->session);
    if (a->session.load.running) {
        atomic_store(&a->session.load.cancel, 1);
        struct pt_error e;
        loader_finish(&a->session, &e);
    }
    origin_search_stop(&a->session);
    if (a->session.ds) dataset_free(a->session.ds);
    a->session.ds = NULL;
    loader_bench_free(&a->session);   /* the benchmark run (curves or trend data) */
    loader_caches_free(&a->session);   /* after the load thread is joined */
    loader_patterns_free(&a->session);
    graphs_free(&a->session);   /* first: its threads read the paths until joined */
    for (int i = 0; i < 2; i++) free(a->session.paths[i]);
    free(a->session.parallel_arg);
    free(a->session.regex);
    free(a->session.regex_mask);
    free(a->session.label_mask);
    free(a->session.label_desc);
    free(a->session.rows);
    search_free(&a->session.re);
    if (a->prompt) prompt_free(a->prompt);
    demo_session_close(&a->session);   /* last: every reader of its folder is done */
}


/* A lazy .trend.db (--mem): starts and installs its background load; 1
 * when the screen changes. */
static int poll_lazy(struct app *a) {
    char msg[400];
    if (!a->session.ds || !a->session.ds->cube || !cube_lazy_poll(a->session.ds->cube, msg, sizeof msg)) return 0;
    if (msg[0]) session_err(&a->session, "%s", msg);
    return 1;
}

/* A reload (or a later round of the progressive load) failed while data
 * is shown: the data stays.  In follow mode an input that changed less
 * than DS_SETTLE_SECONDS ago is a writer at work (a database in the middle
 * of a transaction): not said; the next change or the settle time
 * reloads it again. */
static void load_failed(struct app *a, const struct pt_error *err) {
    if (a->session.follow) {
        struct stat st;
        if (stat(a->session.paths[0], &st) == 0 && time(NULL) - st.st_mtime < DS_SETTLE_SECONDS) return;
    }
    session_err(&a->session, "reload failed, the data shown stays: %s", err->msg);
}

/* Follow mode on a path that is there but holds no data yet (a training
 * about to write, a database in the middle of a transaction): the program
 * waits for the data instead of ending. */
static int wait_for_data(const struct app *a) {
    struct stat st;
    return a->session.follow_arg && a->session.mode == SESSION_MODE_TREND && !a->session.demo && stat(a->session.paths[0], &st) == 0;
}

/* What the loader brought since the last look: the first data (the panes
 * start), newer data (swapped in), a failure.  -1 with err when the first
 * load failed (nothing to show: the program ends), else 0. */
static int poll_load(struct app *a, int *ready, struct pt_error *err) {
    int ev = loader_poll(&a->session, err);
    if ((ev & LOADER_FAILED) && !a->session.ds) {
        if (!wait_for_data(a)) return -1;
        session_err(&a->session, "waiting for data (follow mode): %s", err->msg);
    }
    if (ev & LOADER_FAILED) load_failed(a, err);
    if (!*ready && a->session.ds) {
        /* the wait is over: its message goes (follow mode kept it after the data came) */
        if (!strncmp(a->session.msg, "waiting for data", 16)) a->session.msg[0] = '\0';
        app_data_ready(a);
        if (app_init_panes(a) < 0) session_err(&a->session, "nothing to show for this input");
        *ready = 1;
        arrange(a);
    }
    if (ev) a->dirty = 1;
    if (follow_tick(&a->session)) a->dirty = 1;
    return 0;
}

/* A graph (step, rank) is loading in the background (compare, build and
 * .vis.db modes); the trend data of compare mode loads beside and does
 * not hold keys back. */
static int graph_loading(const struct app *a) { return a->session.graphs && a->session.graphs->running; }

static void queue_key(struct app *a, int key, int y, int x, int b) {
    if (a->nkeyq == (int)(sizeof a->keyq / sizeof a->keyq[0])) {
        session_msg(&a->session, "busy loading: %d keys waiting, further keys dropped", a->nkeyq);
        return;
    }
    a->keyq[a->nkeyq++] = (struct app_qkey){key, y, x, b};
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
}

/* No terminal: said before any input is read (a crafted database could
 * take seconds to read for nothing), a missing path or a side file that
 * cannot be read still first.  -1 when said. */
static int no_terminal(const struct app *a) {
    struct pt_error err;
    struct stat st;
    if (ui_can_start(&err) == 0) return 0;
    for (int i = 0; i < a->session.npaths; i++)
        if (stat(a->session.paths[i], &st) != 0) {
            fprintf(stderr, "probetop: %s: %s\n", CMD_ESC(a->session.paths[i]), strerror(errno));
            return -1;
        }
    /* a side file that cannot be read (a FIFO, /dev/zero) is bad usage
     * first too, with the readers' words */
    const char *side[] = {a->session.lopts.mapping,
                          a->session.layer_mapping && strcmp(a->session.layer_mapping, "auto") ? a->session.layer_mapping : NULL,
                          a->session.match_config};
    for (size_t i = 0; i < sizeof side / sizeof *side; i++) {
        char *buf;
        size_t len;
        struct pt_error e;
        if (!side[i]) continue;
        if (json_read_file(side[i], JSON_SIDE_MAX, &buf, &len, &e) != 0) {
            fprintf(stderr, "probetop: %s\n", CMD_ESC(e.msg));
            return -1;
        }
        free(buf);
    }
    fprintf(stderr, "probetop: %s\n", err.msg);
    return -1;
}

/* The state before the options: the session answered by this shell's
 * host, nothing selected, the whole value range, no windows yet. */
static void start_state(struct app *a, struct prompt *prompt) {
    memset(a, 0, sizeof *a);
    a->session.host = &app_host;
    prompt_init(prompt);
    a->prompt = prompt;
    search_init(&a->session.re);
    a->split = 70;
    const char *kb = getenv("PROBETOP_KEYBAR");
    a->keybar_on = !kb || (strcmp(kb, "off") && strcmp(kb, "0"));
    a->arranged = -1;
    a->session.range_hi = 1;
    a->session.sel_target = NAMES_NONE;
}

int app_main(int argc, char **argv) { return app_run(argc, argv, NULL); }

/* The headless run's next step (snap): a wait while anything loads
 * (the data, a graph, the run's compare, the origin search), then the
 * pane asked for, the keys one by one (each after the frame it sees), and
 * the picture.  at: {pane shown, keys typed}.  0 to go on, 1 when done
 * (*code set). */
static int snap_step(struct app *a, const struct app_snap *snap, int ready, int at[2], int *code) {
    struct pt_error err;
    int *done_view = &at[0], *nkey = &at[1];
    if (!ready || waiting(a) || graphs_loading(&a->session) || a->session.load.running || origin_search_busy(&a->session)) {
        sleep_ms(5);
        return 0;
    }
    if (!*done_view) {
        *done_view = 1;
        if (snap->view && app_show(a, snap->view) < 0) {
            snprintf(err.msg, sizeof err.msg, "no pane '%s' to show for this input (the names of :show)", snap->view);
            *code = EXIT_USAGE;
            goto fail;
        }
        a->dirty = 1;
        return 0;
    }
    if (*nkey < snap->nkeys) {
        on_key(a, snap->keys[(*nkey)++], 0, 0, 0);
        a->dirty = 1;
        if (!a->quit) return 0;
        snprintf(err.msg, sizeof err.msg, "the keys quit the analyzer before the picture");
        *code = EXIT_USAGE;
        goto fail;
    }
    frame(a);
    if (shot_save(a->ui, snap->svg, "probetop", &err) < 0) { *code = EXIT_USAGE; goto fail; }
    return 1;
fail:
    ui_stop(a->ui);
    fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg));
    return 1;
}

int app_run(int argc, char **argv, const struct app_snap *snap) {
    struct app app;
    struct app *a = &app;
    struct ui ui;
    struct prompt prompt;
    struct ui_opts uo = {0, 0, 0, 0};
    struct pt_error err;
    int keys_man = 0;

    start_state(a, &prompt);
    if (app_args_parse(a, &uo, argc, argv, &keys_man) < 0) { release(a); return EXIT_USAGE; }
    if (keys_man) { app_keys_man(stdout); release(a); return EXIT_OK; }
    struct session *s = &a->session;
    if (s->demo && s->npaths) { app_args_usage_error("--demo takes no PATH (got '%s')", s->paths[0]); release(a); return EXIT_USAGE; }
    if (!s->demo && s->npaths == 0) { app_args_usage_error("%s", "give a PATH, PROBLEM BENCH or --demo"); release(a); return EXIT_USAGE; }
    a->session.mode = a->session.npaths == 2 ? SESSION_MODE_COMPARE
            : a->session.npaths == 1 && util_ends_with(a->session.paths[0], ".vis.db") ? SESSION_MODE_VISDB : SESSION_MODE_TREND;
    if (loader_bench(s, &err) < 0 || loader_patterns(s, &err) < 0) { fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg)); release(a); return EXIT_USAGE; }

    if (!snap && no_terminal(a) < 0) { release(a); return EXIT_USAGE; }
    if (snap) { uo.rows = snap->rows; uo.cols = snap->cols; uo.no_mouse = 1; }
    /* the small demo: its files in a private folder, opened as PROBLEM BENCH (no terminal: nothing written) */
    if (s->demo && !s->demo_cube && demo_session_open(s, &err) < 0) { fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg)); release(a); return EXIT_USAGE; }
    if (a->session.mode == SESSION_MODE_TREND) {
        if (loader_start(&a->session, &err) < 0) { fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg)); release(a); return EXIT_USAGE; }
        /* A small input is there before a terminal would flash: wait a
         * moment, and report a bad path on stderr without any screen. */
        for (int i = 0; i < 30 && !atomic_load(&a->session.load.done); i++) sleep_ms(10);
        if (atomic_load(&a->session.load.done)) {
            if (loader_finish(&a->session, &err) < 0 && !wait_for_data(a)) {
                fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg));
                release(a);
                return EXIT_USAGE;
            }
            if (!a->session.ds) session_err(&a->session, "waiting for data (follow mode): %s", err.msg);
        }
    }

    /* The graphs: compare and .vis.db modes need them; a dump with
     * construct.json gets its tree too (build mode). */
    if (graphs_open(&a->session, &err) < 0) {
        fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg));
        release(a);
        return EXIT_USAGE;
    }
    if (a->session.graphs && graphs_start(&a->session, &err) < 0) {
        fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg));
        release(a);
        return EXIT_USAGE;
    }

    if (ui_start(&ui, &uo, &err) < 0) {
        fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg));
        release(a);
        return EXIT_USAGE;
    }
    a->ui = &ui;
    a->session.ui = &ui;
    prompt.complete = app_complete;
    prompt.complete_ctx = a;
    a->screens = app_screens;
    a->nscreens = app_nscreens;
    a->nviews = app_npanes;
    a->views = calloc((size_t)app_npanes, sizeof *a->views);
    if (!a->views) {
        ui_stop(&ui);
        fprintf(stderr, "probetop: out of memory\n");
        release(a);
        return EXIT_USAGE;
    }
    for (int i = 0; i < a->nviews; i++) {
        a->views[i].ops = app_panes[i].ops;
        a->views[i].index = i;
    }
    int ready = 0;
    if (!a->session.load.running && (a->session.ds || !wait_for_data(a))) {
        if (a->session.ds) app_data_ready(a);
        if (app_init_panes(a) < 0) session_err(&a->session, "nothing to show for this input");
        ready = 1;
    }
    if (a->session.follow_arg && follow_on(&a->session, &err) < 0) session_err(&a->session, "follow mode: %s", err.msg);
    arrange(a);
    int code = EXIT_OK;
    int snap_at[2] = {0, 0};   /* snapshot: the pane shown, keys typed */
    while (!a->quit) {
        if (poll_load(a, &ready, &err) < 0) {
            ui_stop(&ui);
            fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg));
            free_all(a);
            release(a);
            return EXIT_USAGE;
        }
        int graph_was = graph_loading(a);
        if (graphs_poll(&a->session)) {
            a->dirty = 1;
            /* "loading step 3 rank 5..." is over once the graph landed
             * (an error replaced it already) */
            if (graph_was && !graph_loading(a) && !s->msg_error && !strncmp(s->msg, "loading ", 8)) s->msg[0] = '\0';
        }
        if (origin_search_poll(&a->session) | poll_lazy(a) | trendpair_poll(&a->session)) a->dirty = 1;
        /* Keys typed during a load run now, in order, until one starts
         * another load (the rest wait for that one). */
        if (a->nkeyq && !waiting(a) && !graph_loading(a)) {
            struct app_qkey q = a->keyq[0];
            a->nkeyq--;
            memmove(a->keyq, a->keyq + 1, (size_t)a->nkeyq * sizeof *a->keyq);
            on_key(a, q.key, q.y, q.x, q.b);
            continue;
        }
        if (a->dirty) frame(a);
        if (snap) { if (snap_step(a, snap, ready, snap_at, &code)) break; continue; }
        int my = 0, mx = 0, mb = 0;
        /* loading, or following a run: look at the load and the watch often */
        int key = ui_getkey(&ui, a->bar, graphs_loading(s) ? 10 : s->load.running || s->follow || trendpair_busy(s) ? 100 : 250, &my, &mx, &mb);
        if (a->session.load.running && !a->session.load.reload) a->dirty = 1;   /* the progress moves */
        if (ui_signal) {
            int sig = ui_signal;
            ui_signal = 0;
            if (waiting(a) && sig == SIGINT) {
                /* Ctrl-C while loading cancels the load, which ends the program. */
                atomic_store(&a->session.load.cancel, 1);
                session_msg(&a->session, "cancelling...");
                continue;
            }
            code = 128 + sig;
            break;
        }
        if (waiting(a)) {
            /* q ends a long load at once (it would end the program anyway) */
            if (key == 'q' || key == KEYS_F10) {
                atomic_store(&a->session.load.cancel, 1);
                continue;
            }
            if (key == KEYS_RESIZE) arrange(a);
            else if (key != KEYS_NONE) queue_key(a, key, my, mx, mb);
            a->dirty = 1;   /* the progress line moves */
            continue;
        }
        if (key == KEYS_NONE) continue;
        if (key != KEYS_RESIZE && (graph_loading(a) || a->nkeyq)) {
            queue_key(a, key, my, mx, mb);
            continue;
        }
        on_key(a, key, my, mx, mb);
    }
    ui_stop(&ui);
    free_all(a);
    release(a);
    return code;
}
