/* view: the pane interface.
 *
 * A pane is one file views/<name>.c exporting one `const struct view_ops`,
 * and one row of the shell's pane table: a new pane touches nothing else.
 * The shell (src/app/) owns the panes: it
 * creates one struct view per entry of its pane table (src/app/app_panes.c),
 * gives it a curses window, calls ops->init once, draws it when the screen
 * it belongs to is shown, and routes input to the focused pane.
 *
 * Adding a pane = write views/<name>.c + one line in the pane table
 * (src/app/app_panes.c: ops, screen name, size weight).  Its keys and `:`
 * commands are declared in the ops (keys[] / cmds[] below), so they need no
 * edit elsewhere: the same rows drive dispatch, the `?` help screen and the
 * man page KEYS section (`probetop --keys-man`).
 *
 * Screens: the body between the toolbar and the status line shows one
 * screen at a time ("trend" = heat map over line chart, "overflow",
 * "search", "layout", "compare" = tree beside detail...).  Panes of a screen
 * share the body by weight.  Tab cycles focus inside the screen;
 * F2..F9 / `:view NAME` switch screens.
 *
 * Ownership: v->priv belongs to the pane (freed by ops->free); v->win to
 * the shell.  Panes read and change the shared state, struct session
 * (src/session/session.h), through its setters and tell the others with
 * session_changed(); they ask the shell through a->host and another pane
 * through a->offers (both in src/session/session.h).  A pane includes this
 * header, src/session/ headers, the model and ui/: nothing else of src/
 * (tests/layers.sh, CMake's pt_views). */
#ifndef PT_VIEW_H
#define PT_VIEW_H

#include <curses.h>
#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "src/session/session.h"
#include "ui/keys.h"

struct view;

/* A mouse event, coordinates relative to the pane's window. */
struct view_mouse {
    int y, x;
    int button;      /* 1 left, 2 middle, 3 right, 0 none */
    int dbl;         /* double click */
    int wheel;       /* -1 wheel up, +1 wheel down, 0 none */
};

/* Key rows are struct keys_row (ui/keys.h): `code` (a KEYS_* value or a
 * printable char) runs `action` (> 0, pane-private numbering) of this pane;
 * rows with the same action and help are shown together in the help
 * ("j, Down  move down"); help == NULL hides an alias row. */

/* One `:` command.  argv[0] is the command name; argv is split on blanks
 * (a trailing argument keeps its spaces when the command says rest=1). */
struct view_cmd {
    const char *name;    /* "step" */
    const char *args;    /* "N" for the help text, "" for none */
    const char *help;
    int rest;            /* 1: everything after the name is argv[1] as typed */
    int (*run)(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err);
};

struct view_ops {
    const char *name;          /* "heatmap": the pane's id in tables and :view */
    const char *title;         /* shown in the pane's frame / screen tabs */

    /* Called once after the dataset (if any) is available; sets v->priv.
     * Failing removes the pane with err shown in the status line. */
    int  (*init)(struct view *v, struct session *a, struct pt_error *err);
    void (*free)(struct view *v);
    /* Optional: 0 hides the pane (and its screen if it has no other pane)
     * for this input, e.g. the tree pane outside compare mode. */
    int  (*available)(const struct session *a);

    /* Draws into v->win (v->h rows, v->w columns, both >= 1).  Draw only
     * what changed where cheap; at least never clear the window needlessly:
     * curses sends only the cells that differ from the last frame. */
    void (*draw)(struct view *v, struct session *a);
    /* A key for the focused pane: action is the matching keys[] row's
     * action, or 0 when the key has no row (then key is the raw KEYS_ code).
     * Returns 1 when handled (redraw), 0 to let the shell try its rows. */
    int  (*key)(struct view *v, struct session *a, int action, int key);
    /* Optional: mouse inside the pane; 1 handled. */
    int  (*mouse)(struct view *v, struct session *a, const struct view_mouse *m);
    /* Optional: v->h / v->w changed. */
    void (*resize)(struct view *v, struct session *a);
    /* Optional: shared state changed (SESSION_CH_* bits, src/session/session.h). */
    void (*notify)(struct view *v, struct session *a, unsigned what);
    /* Optional: the status line when focused (cell under the cursor ...);
     * one '\n' may separate a second line, shown when there is room. */
    void (*status)(struct view *v, struct session *a, char *buf, size_t size);
    /* Optional: `/` typed a pattern for this pane (the prompt keeps the
     * history); 0 ok, -1 with err (the old filter stays). */
    int  (*search)(struct view *v, struct session *a, const char *pattern, struct pt_error *err);
    /* Optional: n / N (dir +1 / -1). */
    int  (*search_next)(struct view *v, struct session *a, int dir);

    const char *hints;         /* key hints for the status line: "Enter add line  c clear" */
    const struct keys_row *keys;  size_t nkeys;
    const struct view_cmd *cmds;  size_t ncmds;   /* available from any pane */
};

struct view {
    const struct view_ops *ops;
    void *priv;                /* the pane's own state */
    WINDOW *win;               /* owned by the shell; NULL while not shown */
    int y, x, h, w;            /* placement on the screen */
    int focused;
    int index;                 /* position in the pane table */
    int live;                  /* init succeeded (until free) */
    int visible;               /* on the screen shown, with a window */
};

#endif
