/* help: the `?` screen, generated from the key and command tables (the
 * shell's document of them, asked through a->host), so it cannot drift
 * from what the keys do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/nav.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

enum { HP_UP = 1, HP_DOWN, HP_PGUP, HP_PGDN, HP_TOP, HP_BOTTOM, HP_CLOSE, HP_HALFUP, HP_HALFDN };

/* the shared navigation keys (ui/nav.h) as this pane's actions */
static const int help_nav[NAV_COUNT] = {
    [NAV_UP] = HP_UP, [NAV_DOWN] = HP_DOWN, [NAV_PGUP] = HP_PGUP, [NAV_PGDN] = HP_PGDN,
    [NAV_HALFUP] = HP_HALFUP, [NAV_HALFDN] = HP_HALFDN, [NAV_TOP] = HP_TOP, [NAV_BOTTOM] = HP_BOTTOM,
};

static const struct keys_row help_keys[] = {
    {KEYS_UP, NULL, HP_UP, "scroll up"}, {'k', NULL, HP_UP, "scroll up"},
    {KEYS_DOWN, NULL, HP_DOWN, "scroll down"}, {'j', NULL, HP_DOWN, "scroll down"},
    {KEYS_PGUP, NULL, HP_PGUP, "page up"}, {KEYS_CTRL('u'), NULL, HP_HALFUP, "half a page up"},
    {KEYS_PGDN, NULL, HP_PGDN, "page down"}, {KEYS_CTRL('d'), NULL, HP_HALFDN, "half a page down"}, {' ', NULL, HP_PGDN, "page down"},
    {'g', NULL, HP_TOP, "top"}, {KEYS_HOME, NULL, HP_TOP, "top"},
    {'G', NULL, HP_BOTTOM, "bottom"}, {KEYS_END, NULL, HP_BOTTOM, "bottom"},
    {'q', NULL, HP_CLOSE, "close the help"}, {KEYS_ESC, NULL, HP_CLOSE, "close the help"},
    {'?', NULL, HP_CLOSE, "close the help"}, {KEYS_F1, NULL, HP_CLOSE, "close the help"},
};

struct hline {
    int section;      /* 1: a section title */
    int role;         /* legend rows: the glyph's UI role; -1 a key row */
    char *keys, *help;
};

/* One screen line of the laid-out help: entry `e`, and which piece of it
 * (a key too wide for its column gets a line of its own; help text wraps). */
struct dline {
    int e;
    int keys;         /* 1: the keys are on this line */
    int off, len;     /* bytes of the help text on this line */
};

struct help {
    struct hline *v;
    int n, cap;
    int top;
    int keyw;
    int oom;
    struct dline *d;  /* laid out for width dw */
    int nd, dcap, dw;
};

static void add(struct help *h, int section, int role, const char *keys, const char *help) {
    if (h->oom) return;
    if (h->n == h->cap) {
        int cap = h->cap ? h->cap * 2 : 64;
        struct hline *nv = realloc(h->v, (size_t)cap * sizeof *nv);
        if (!nv) { h->oom = 1; return; }
        h->v = nv;
        h->cap = cap;
    }
    struct hline *l = &h->v[h->n];
    l->section = section;
    l->role = role;
    l->keys = strdup(keys ? keys : "");
    l->help = strdup(help ? help : "");
    if (!l->keys || !l->help) { free(l->keys); free(l->help); h->oom = 1; return; }
    h->n++;
    if (!section && text_width(keys) > h->keyw) h->keyw = text_width(keys);
}

static void on_section(void *ctx, const char *title) { add(ctx, 1, -1, title, ""); }
static void on_row(void *ctx, const char *keys, const char *help) { add(ctx, 0, -1, keys, help); }
static void on_legend(void *ctx, const char *glyph, int role, const char *help) { add(ctx, 0, role, glyph, help); }

static int help_init(struct view *v, struct session *a, struct pt_error *err) {
    struct help *h = calloc(1, sizeof *h);
    if (!h) return pt_errorf(err, "out of memory");
    const struct session_doc_ops ops = {on_section, on_row, on_legend, a->ui && !a->ui->utf8};
    a->host->doc(&ops, h);
    v->priv = h;
    if (h->oom) return pt_errorf(err, "out of memory building the help");
    if (h->keyw > 18) h->keyw = 18;
    return 0;
}

static void help_free(struct view *v) {
    struct help *h = v->priv;
    if (!h) return;
    for (int i = 0; i < h->n; i++) { free(h->v[i].keys); free(h->v[i].help); }
    free(h->v);
    free(h->d);
    free(h);
    v->priv = NULL;
}

static int push_line(struct help *h, int e, int keys, int off, int len) {
    if (h->nd == h->dcap) {
        int cap = h->dcap ? h->dcap * 2 : 256;
        struct dline *nd = realloc(h->d, (size_t)cap * sizeof *nd);
        if (!nd) return -1;
        h->d = nd;
        h->dcap = cap;
    }
    h->d[h->nd++] = (struct dline){e, keys, off, len};
    return 0;
}

/* The key column's width for a pane `w` wide. */
static int key_col(const struct help *h, int w) { return h->keyw + 2 < w / 2 ? h->keyw + 2 : w / 2; }

/* Lays the entries out for width w: keys wider than their column (the
 * `:` commands' syntax) get a line of their own, the help text wraps at
 * blanks, so nothing is cut at any width. */
static void layout_lines(struct help *h, int w) {
    h->nd = 0;
    h->dw = w;
    int kw = key_col(h, w), room = w - 2 - kw;
    if (room < 8) room = 8;
    for (int e = 0; e < h->n; e++) {
        const struct hline *l = &h->v[e];
        if (l->section) {
            if (push_line(h, e, 1, 0, 0) < 0) return;
            continue;
        }
        int own = text_width(l->keys) > kw - 1;
        if (own && push_line(h, e, 1, 0, 0) < 0) return;
        const char *s = l->help;
        int off = 0, len = (int)strlen(s), first = !own;
        do {
            int take = (int)text_prefix(s + off, room);
            if (off + take < len) {
                /* break at the last blank that fits, when there is one */
                int b = take;
                while (b > 0 && s[off + b] != ' ') b--;
                if (b > 0) take = b;
            }
            if (push_line(h, e, first, off, take) < 0) return;
            first = 0;
            off += take;
            while (s[off] == ' ') off++;
        } while (off < len);
    }
}

static void help_draw(struct view *v, struct session *a) {
    struct help *h = v->priv;
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    werase(w);
    ui_role(w, u, UI_TITLE_FOCUS);
    ui_fill(w, 0, 0, v->w);
    ui_put(w, 0, 0, v->w, " Help: keys, commands and legend (q or Esc closes, j/k scroll)");
    if (h->dw != v->w) layout_lines(h, v->w);
    int rows = v->h - 1;
    if (h->top > h->nd - rows) h->top = h->nd - rows;
    if (h->top < 0) h->top = 0;
    int kw = key_col(h, v->w);
    for (int r = 0; r < rows && h->top + r < h->nd; r++) {
        const struct dline *d = &h->d[h->top + r];
        const struct hline *l = &h->v[d->e];
        int y = 1 + r;
        if (l->section) {
            ui_role(w, u, UI_TITLE);
            ui_put(w, y, 0, v->w, l->keys);
            continue;
        }
        if (d->keys) {
            char kfit[256];
            int own = text_width(l->keys) > kw - 1;
            ui_role(w, u, l->role >= 0 ? l->role : UI_KEY);
            ui_put(w, y, 2, own ? v->w - 2 : kw - 1,
                   text_fit(l->keys, own ? v->w - 2 : kw - 1, TEXT_CUT_RIGHT, u->utf8, kfit, sizeof kfit));
            if (own && d->len == 0) continue;
        }
        if (d->len > 0) {
            char part[1024];
            snprintf(part, sizeof part, "%.*s", d->len, l->help + d->off);
            ui_role(w, u, UI_NORMAL);
            ui_put(w, y, 2 + kw, v->w - 2 - kw, part);
        }
    }
}

static int help_key(struct view *v, struct session *a, int action, int key) {
    struct help *h = v->priv;
    int page = v->h > 2 ? v->h - 2 : 1;
    if (nav_of_key(key)) action = help_nav[nav_of_key(key)];
    switch (action) {
    case HP_UP: case HP_DOWN: case HP_PGUP: case HP_PGDN: case HP_HALFUP: case HP_HALFDN:
        h->top += (int)nav_delta(nav_move_of(help_nav, action), page);
        break;
    case HP_TOP: h->top = 0; break;
    case HP_BOTTOM: h->top = h->nd; break;
    case HP_CLOSE:
        a->host->back(a);
        break;
    default: return 0;
    }
    if (h->top < 0) h->top = 0;
    a->host->redraw(a);
    return 1;
}

static int help_mouse(struct view *v, struct session *a, const struct view_mouse *m) {
    struct help *h = v->priv;
    (void)a;
    if (m->wheel) h->top += 3 * m->wheel;
    if (h->top < 0) h->top = 0;
    return 1;
}

const struct view_ops view_help = {
    .name = "help",
    .title = "Help",
    .init = help_init,
    .free = help_free,
    .draw = help_draw,
    .key = help_key,
    .mouse = help_mouse,
    .hints = "j/k scroll  q close",
    .keys = help_keys,
    .nkeys = sizeof help_keys / sizeof help_keys[0],
};
