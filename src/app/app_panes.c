/* app_panes: the pane and screen tables and the lookups on them (a pane by
 * name, the first pane of a screen, showing a pane's screen).  Adding a
 * pane is one line here (plus its views/<name>.c); its keys and `:`
 * commands come with its ops. */
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
extern const struct view_ops view_curves;
extern const struct view_ops view_tables;
extern const struct view_ops view_pipeline;

const struct app_screen app_screens[] = {
    {"trend", 0, KEYS_F2},
    {"overflow", 0, KEYS_F3},
    {"search", 0, KEYS_F4},
    {"layout", 0, KEYS_F5},
    {"compare", 1, KEYS_F6},
    {"summary", 0, KEYS_F7},
    {"lanes", 0, KEYS_F8},
    {"curves", 0, KEYS_F9},
    {"help", 0, KEYS_F1},
    {"report", 0, 0},          /* :skipped */
    {"tables", 0, 0},          /* :view tables (a profiled run's kernel tables) */
    {"pipeline", 0, 0},        /* :view pipeline, P in the lanes (a pipeline group's Marey chart) */
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
    {&view_curves, "curves", 100},
    {&view_help, "help", 100},
    {&view_report, "report", 100},
    {&view_tables, "tables", 100},
    {&view_pipeline, "pipeline", 100},
};
const int app_npanes = (int)(sizeof app_panes / sizeof app_panes[0]);

/* --- lookups --- */

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
