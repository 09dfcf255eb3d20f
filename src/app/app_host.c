/* app_host: the shell's answers to what a pane asks (struct session_host,
 * src/session/session.h): tell every pane of a change, show a pane's
 * screen, go back, redraw, walk the key tables for the help pane.  Apart
 * from the tables (app_panes.c) and the key dispatch (app_keys.c), which
 * both sit below it. */
#include "src/app/app_state.h"

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
    .open_dump = app_open_dump,
};
