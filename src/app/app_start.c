/* app_start: the panes started on the data, at start-up (app.c) and when
 * the input changes to the dump root the curves pane opens (app_reopen.c):
 * the session's defaults for the data, then every pane available for the
 * input, and the first screen. */
#include <string.h>

#include "src/app/app_state.h"

/* msProbe's defaults (dimension step, the first step), --demo=trend too: the
 * burst is there to be found (`]` through the steps, or :step 9). */
void app_data_ready(struct app *a) {
    session_data_ready(&a->session);
    graphs_data_ready(&a->session);
    /* not on the first step of a progressive load: once it is whole */
    if (!a->session.load.running) origin_search_start(&a->session);
    /* a rank that did not load is not silently missing from the map */
    if (a->session.ds && a->session.ds->nskipped) {
        char esc[300];
        const char *why = a->session.ds->nwarnings ? a->session.ds->warnings[0] : a->session.ds->skipped[0];
        session_err(&a->session, "%zu file%s skipped (:skipped lists them): %s", a->session.ds->nskipped,
                    a->session.ds->nskipped == 1 ? "" : "s",
                pt_escape(why, strlen(why), esc, sizeof esc));
    }
}

int app_init_panes(struct app *a) {
    for (int i = 0; i < a->nviews; i++) {
        struct view *v = &a->views[i];
        struct pt_error err;
        if (v->ops->available && !v->ops->available(&a->session)) continue;
        if (v->ops->init && v->ops->init(v, &a->session, &err) < 0) {
            session_err(&a->session, "%s: %s", v->ops->title, err.msg);
            continue;
        }
        v->live = 1;
    }
    /* Two runs or a .vis.db: the run summary (several pairs), else the tree first. */
    if (a->session.mode != SESSION_MODE_TREND && (app_show(a, "summary") == 0 || app_show(a, "tree") == 0)) {
        a->prev_screen = a->screen;
        return 0;
    }
    /* Training curves: their own screen first. */
    if (a->session.ds && a->session.ds->curves && app_show(a, "curves") == 0) { a->prev_screen = a->screen; return 0; }
    /* The first screen (not help, not the load report) with a live pane. */
    for (int s = 0; s < a->nscreens; s++) {
        if (!strcmp(a->screens[s].name, "help") || !strcmp(a->screens[s].name, "report")) continue;
        int i = app_first_pane(a, s);
        if (i >= 0) {
            a->screen = a->prev_screen = s;
            a->focus = i;
            return 0;
        }
    }
    return -1;
}
