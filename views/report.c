/* report: what the load left out -- the files skipped (unreadable, cut
 * short, not msProbe's) and the loader's warnings, as `probetop info`
 * lists them.  The toolbar says how many files were skipped; `:skipped`
 * (src/app/app_keys.c) shows this pane, q or Esc goes back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

enum { RP_UP = 1, RP_DOWN, RP_PGUP, RP_PGDN, RP_TOP, RP_BOTTOM, RP_CLOSE, RP_HALFUP, RP_HALFDN };

/* the shared navigation keys (ui/nav.h) as this pane's actions */
static const int report_nav[NAV_COUNT] = {
    [NAV_UP] = RP_UP, [NAV_DOWN] = RP_DOWN, [NAV_PGUP] = RP_PGUP, [NAV_PGDN] = RP_PGDN,
    [NAV_HALFUP] = RP_HALFUP, [NAV_HALFDN] = RP_HALFDN, [NAV_TOP] = RP_TOP, [NAV_BOTTOM] = RP_BOTTOM,
};

static const struct keys_row report_keys[] = {
    {'j', NULL, RP_DOWN, "scroll down"}, {KEYS_DOWN, NULL, RP_DOWN, NULL},
    {'k', NULL, RP_UP, "scroll up"}, {KEYS_UP, NULL, RP_UP, NULL},
    {KEYS_PGDN, NULL, RP_PGDN, "page down"}, {' ', NULL, RP_PGDN, NULL},
    {KEYS_PGUP, NULL, RP_PGUP, "page up"},
    {KEYS_CTRL('d'), NULL, RP_HALFDN, "half a page down"}, {KEYS_CTRL('u'), NULL, RP_HALFUP, "half a page up"},
    {'g', NULL, RP_TOP, "top"}, {KEYS_HOME, NULL, RP_TOP, NULL},
    {'G', NULL, RP_BOTTOM, "bottom"}, {KEYS_END, NULL, RP_BOTTOM, NULL},
    {'q', NULL, RP_CLOSE, "back to the screen before"}, {KEYS_ESC, NULL, RP_CLOSE, NULL},
};

struct rp {
    int top;
};

static int report_init(struct view *v, struct session *a, struct pt_error *err) {
    (void)a;
    struct rp *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    v->priv = p;
    return 0;
}

static void report_free(struct view *v) {
    free(v->priv);
    v->priv = NULL;
}

/* Puts text (escaped) from display line *line on, wrapped at width w,
 * the first line at indent - 2 (a heading at 2: flush left), the others
 * at indent; rows above top or below the pane
 * are counted, not drawn.  Advances *line. */
static void put_wrapped(struct view *v, struct session *a, int *line, int top, int role, const char *text, int indent) {
    char esc[4096];
    pt_escape(text, strlen(text), esc, sizeof esc);
    size_t off = 0, len = strlen(esc);
    int first = 1, w = v->w;
    do {
        int x = first ? indent - 2 : indent, room = w - x;
        if (room < 8) room = 8;
        size_t take = text_prefix(esc + off, room);
        if (off + take < len) {
            /* break at the last blank that fits, when there is one */
            size_t b = take;
            while (b > 0 && esc[off + b] != ' ') b--;
            if (b > 0) take = b + 1;
        }
        int y = *line - top + 1;
        if (y >= 1 && y < v->h) {
            char part[4096];
            snprintf(part, sizeof part, "%.*s", (int)take, esc + off);
            ui_role(v->win, a->ui, role);
            ui_put(v->win, y, x, w - x, part);
        }
        (*line)++;
        off += take;
        first = 0;
    } while (off < len && off > 0);
}

/* Draws the lines from display line top on; returns how many there are. */
static int report_lines(struct view *v, struct session *a, int top) {
    const struct dataset *ds = a->ds;
    int line = 0;
    char head[160];
    if (!ds) return 0;
    snprintf(head, sizeof head, "%zu file%s skipped (not in the heat map, the line chart or the overflow list):",
             ds->nskipped, ds->nskipped == 1 ? "" : "s");
    put_wrapped(v, a, &line, top, UI_TITLE, head, 2);
    for (size_t i = 0; i < ds->nskipped; i++) put_wrapped(v, a, &line, top, UI_ERROR, ds->skipped[i], 6);
    if (ds->nwarnings) {
        line++;
        snprintf(head, sizeof head, "%zu warning%s from the loader:", ds->nwarnings, ds->nwarnings == 1 ? "" : "s");
        put_wrapped(v, a, &line, top, UI_TITLE, head, 2);
        for (size_t i = 0; i < ds->nwarnings; i++) put_wrapped(v, a, &line, top, UI_NORMAL, ds->warnings[i], 6);
    }
    return line;
}

static void report_draw(struct view *v, struct session *a) {
    struct rp *p = v->priv;
    werase(v->win);
    ui_role(v->win, a->ui, UI_TITLE_FOCUS);
    ui_fill(v->win, 0, 0, v->w);
    ui_put(v->win, 0, 0, v->w, " Load report: files skipped and warnings (q or Esc goes back)");
    /* count first: with top past every line nothing is drawn */
    int n = report_lines(v, a, 1 << 30);
    if (p->top > n - (v->h - 1)) p->top = n - (v->h - 1);
    if (p->top < 0) p->top = 0;
    report_lines(v, a, p->top);
}

static int report_key(struct view *v, struct session *a, int action, int key) {
    struct rp *p = v->priv;
    int page = v->h > 2 ? v->h - 2 : 1;
    if (nav_of_key(key)) action = report_nav[nav_of_key(key)];
    switch (action) {
    case RP_UP: case RP_DOWN: case RP_PGUP: case RP_PGDN: case RP_HALFUP: case RP_HALFDN:
        p->top += (int)nav_delta(nav_move_of(report_nav, action), page);
        break;
    case RP_TOP: p->top = 0; break;
    case RP_BOTTOM: p->top = 1 << 29; break;
    case RP_CLOSE:
        a->host->back(a);
        break;
    default: return 0;
    }
    if (p->top < 0) p->top = 0;
    a->host->redraw(a);
    return 1;
}

static void report_status(struct view *v, struct session *a, char *buf, size_t size) {
    (void)v;
    snprintf(buf, size, "%zu file%s skipped, %zu warning%s", a->ds ? a->ds->nskipped : 0,
             a->ds && a->ds->nskipped == 1 ? "" : "s", a->ds ? a->ds->nwarnings : 0,
             a->ds && a->ds->nwarnings == 1 ? "" : "s");
}

const struct view_ops view_report = {
    .name = "report",
    .title = "Load report",
    .init = report_init,
    .free = report_free,
    .draw = report_draw,
    .key = report_key,
    .status = report_status,
    .hints = "j/k scroll  q back",
    .keys = report_keys,
    .nkeys = sizeof report_keys / sizeof report_keys[0],
};
