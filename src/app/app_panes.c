/* app_panes: the pane and screen tables, and the shell's answers to what a
 * pane asks (app_host, struct session_host in src/session/session.h).
 * Adding a pane is one line here (plus its views/<name>.c); its keys and
 * `:` commands come with its ops. */
#include <string.h>

#include "src/app/app_state.h"
#include "ui/keys.h"

extern const struct view_ops view_heatmap;
extern const struct view_ops view_linechart;
extern const struct view_ops view_help;
extern const struct view_ops view_overflow;
extern const struct view_ops view_search;
extern const struct view_ops view_layout;
extern const struct view_ops view_tree;
extern const struct view_ops view_detail;
extern const struct view_ops view_summary;
extern const struct view_ops view_report;
extern const struct view_ops view_lanes;

const struct app_screen app_screens[] = {
    {"trend", 0, KEYS_F2},
    {"overflow", 0, KEYS_F3},
    {"search", 0, KEYS_F4},
    {"layout", 0, KEYS_F5},
    {"compare", 1, KEYS_F6},
    {"summary", 0, KEYS_F7},
    {"lanes", 0, KEYS_F8},
    {"help", 0, KEYS_F1},
    {"report", 0, 0},          /* :skipped */
};
const int app_nscreens = (int)(sizeof app_screens / sizeof app_screens[0]);

const struct app_pane app_panes[] = {
    {&view_heatmap, "trend", 70},
    {&view_linechart, "trend", 30},
    {&view_overflow, "overflow", 100},
    {&view_search, "search", 100},
    {&view_layout, "layout", 100},
    {&view_tree, "compare", 55},
    {&view_detail, "compare", 45},
    {&view_summary, "summary", 100},
    {&view_lanes, "lanes", 100},
    {&view_help, "help", 100},
    {&view_report, "report", 100},
};
const int app_npanes = (int)(sizeof app_panes / sizeof app_panes[0]);

/* --- what panes ask of the shell --- */

int app_first_pane(const struct app *a, int screen) {
    for (int i = 0; i < a->nviews; i++)
        if (a->views[i].live && !strcmp(app_panes[i].screen, a->screens[screen].name)) return i;
    return -1;
}

struct view *app_view(struct app *a, const char *name) {
    for (int i = 0; i < a->nviews; i++)
        if (a->views[i].live && !strcmp(a->views[i].ops->name, name)) return &a->views[i];
    return NULL;
}

static int screen_of(const struct app *a, const char *screen) {
    for (int i = 0; i < a->nscreens; i++)
        if (!strcmp(a->screens[i].name, screen)) return i;
    return -1;
}

int app_show(struct app *a, const char *name) {
    struct view *v = app_view(a, name);
    if (!v) return -1;
    int s = screen_of(a, app_panes[v->index].screen);
    if (s < 0) return -1;
    if (s != a->screen) {
        a->prev_screen = a->screen;
        a->screen = s;
    }
    a->focus = v->index;
    a->dirty = 1;
    return 0;
}

static void host_changed(struct session *s, unsigned what) {
    struct app *a = app_of(s);
    for (int i = 0; i < a->nviews; i++) {
        struct view *v = &a->views[i];
        if (v->live && v->ops->notify) v->ops->notify(v, s, what);
    }
    a->dirty = 1;
}

static int host_show(struct session *s, const char *pane) { return app_show(app_of(s), pane); }

static int host_has(struct session *s, const char *pane) { return app_view(app_of(s), pane) != NULL; }

static void host_back(struct session *s) {
    struct app *a = app_of(s);
    a->screen = a->prev_screen;
    int i = app_first_pane(a, a->screen);
    if (i >= 0) a->focus = i;
}

static void host_redraw(struct session *s) { app_of(s)->dirty = 1; }

const struct session_host app_host = {
    .changed = host_changed,
    .show = host_show,
    .has = host_has,
    .back = host_back,
    .redraw = host_redraw,
    .doc = app_doc_walk,
};
