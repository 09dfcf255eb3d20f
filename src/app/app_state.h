/* app_state: the shell's state -- what the files of src/app share and the
 * panes do not see.
 *
 * struct app is the interactive shell: the terminal, the windows, the
 * pane and screen tables, the prompt, the key queue, quit / redraw / exit
 * code.  The state the panes share (the data, the cursor, the filters, the
 * loaders) is its struct session (src/session/session.h), which the shell
 * hands to the panes with the host of their asks (app_host, app_host.c).  This
 * header is private to src/app (tests/layers.sh refuses it in views/). */
#ifndef PT_APP_STATE_H
#define PT_APP_STATE_H

#include <curses.h>
#include <stddef.h>
#include <stdio.h>

#include "model/err.h"
#include "src/io/load.h"
#include "src/session/follow.h"
#include "src/session/graphs.h"
#include "src/session/loader.h"
#include "src/session/origin_search.h"
#include "src/session/session.h"
#include "src/session/trendpair.h"
#include "src/session/swap.h"
#include "views/view.h"

struct ui;          /* ui/ui.h: the terminal, colours, glyphs */
struct prompt;      /* ui/prompt.h */

struct app_screen {
    const char *name;          /* "trend" */
    int horizontal;            /* 1: panes side by side, 0: stacked */
    int fkey;                  /* KEYS_F2...: switches to it */
};

/* The pane table (src/app/app_panes.c): one line per pane, in Tab order
 * inside a screen; the first pane of a screen gets focus when it is shown.
 * Panes export `const struct view_ops view_<name>`. */
struct app_pane {
    const struct view_ops *ops;
    const char *screen;        /* a name in app_screens[] */
    int weight;                /* share of the screen's body */
};
extern const struct app_pane app_panes[];
extern const int app_npanes;
extern const struct app_screen app_screens[];
extern const int app_nscreens;

struct app {
    struct session session;    /* the shared state; first, so the host's asks find the app (app_of) */

    /* --- the screen --- */
    struct ui *ui;
    struct prompt *prompt;
    struct view *views;        /* one per pane table entry */
    int nviews;
    const struct app_screen *screens;
    int nscreens;
    int screen;                /* index of the screen shown */
    int focus;                 /* index into views of the focused pane */
    int prev_screen;           /* where `?` / q in help returns */
    int arranged;              /* the screen the windows were made for (-1 none) */
    int split;                 /* heat map share of the trend screen, percent */
    int rows_total, cols_total;
    WINDOW *bar, *status;      /* toolbar (also reads the keys) and status lines */
    int status_h;
    WINDOW *keybar;            /* the key bar, the bottom row (app_keybar.c); NULL when hidden */
    int keybar_on;             /* K: shown (on by default; PROBETOP_KEYBAR=off starts hidden) */
    /* Keys (and mouse events) that arrive while the data or a graph
     * loads wait here and run in order once it landed, so `)))jjj` means
     * three steps on, then three rows down, not one step and nothing. */
    struct app_qkey { int key, y, x, b; } keyq[256];
    int nkeyq;
    int quit;
    int dirty;                 /* something changed: draw a frame */
    char *export_path;         /* :export FILE waiting for the next frame (owned), NULL */
    int exit_code;
};

/* The app whose session s is (a host's ask gets the session back). */
static inline struct app *app_of(struct session *s) { return (struct app *)s; }
_Static_assert(offsetof(struct app, session) == 0, "app_of: the session is struct app's first member");

/* What the panes ask of the shell (struct session_host), installed in a->session.host. */
extern const struct session_host app_host;
/* The pane table index of the first live pane of screen `screen`, -1 none. */
int app_first_pane(const struct app *a, int screen);
/* The live pane named `name`, NULL when there is none for this input. */
struct view *app_view(struct app *a, const char *name);
/* Shows the screen of pane `name` and focuses it; -1 if it does not exist. */
int app_show(struct app *a, const char *name);
/* The data is in (session defaults, the graphs' steps, the origin search);
 * the panes started on it and the first screen chosen (-1: nothing to show). */
void app_data_ready(struct app *a);
int app_init_panes(struct app *a);
/* session_host.open_dump (app_reopen.c). */
int app_open_dump(struct session *s, const char *root, int64_t step, const char *pass, struct pt_error *err);
/* The key and command tables as one document (struct session_doc_ops). */
void app_doc_walk(const struct session_doc_ops *ops, void *ctx);
/* Draws the key bar (F1 Help, the screens by name, F10 Quit...) into w,
 * one row as wide as the screen, shortened to fit it. */
void app_keybar_draw(struct app *a, WINDOW *w);
/* The key of the key bar's item at column col, 0 when none. */
int app_keybar_key_at(struct app *a, int col);

/* Prints the man page KEYS and COMMANDS sections as roff. */
void app_keys_man(FILE *f);

/* App internals shared by the files of src/app. */
extern const struct keys_row app_keys[];
extern const size_t app_nkeys;
int app_global_action(struct app *a, int action);
int app_run_command(struct app *a, char *line);        /* the text after ':' */
/* Writes the picture :export asked for, once the frame without the prompt
 * is on the screen (frame() calls it after doupdate); frees the path. */
void app_export_frame(struct app *a);
int app_complete(void *ctx, const char *line, int cycle, char *out);
void app_search(struct app *a, const char *pattern);
/* The command line (src/app/app_args.c): -1 after a usage message. */
struct ui_opts;
int app_args_parse(struct app *a, struct ui_opts *uo, int argc, char **argv, int *keys_man);
/* "probetop: <fmt with arg> (probetop --help)" on stderr. */
void app_args_usage_error(const char *fmt, const char *arg);

#endif
