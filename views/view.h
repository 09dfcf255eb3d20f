/* view: the pane interface.
 *
 * A pane is one file views/<name>.c exporting one `const struct view_ops`
 * (like tmux's window_mode).  The app (src/app/) owns the panes: it
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
 * the app.  Panes read and change the shared state through struct app
 * and the app_* calls below and tell the others with app_changed().
 *
 * This is the one header through which a pane sees the app (with
 * views/graph.h for the graph side): panes include no src/ header, so a
 * pane builds on the model and ui/ alone (tests/layers.sh, CMake's pt_views).
 *
 * The shared state (from src/app/app_state.h, now here): everything a pane
 * shares with another pane lives in struct app: the dataset, the current
 * metric / statistic / dimension / dimension value, the selected cell, the
 * target filters (regex and labels), the heat-map colouring, the Megatron
 * layout hooks, the panes themselves.  What only one pane needs (scroll
 * offsets, the line-chart lines, a tree) is that pane's v->priv.  Changing
 * shared state goes through the app_* setters below (or, for plain fields,
 * a direct write followed by app_changed()), so every pane hears about it
 * through ops->notify.  The input options, the loader (struct app_load),
 * the prompt and the key queue are the app's own: panes leave them alone. */
#ifndef PT_VIEW_H
#define PT_VIEW_H

#include <curses.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cube/cube.h"
#include "model/cube/dataset.h"
#include "model/err.h"
#include "model/cube/search.h"
#include "ui/keys.h"

struct app;
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
    int (*run)(struct view *v, struct app *a, int argc, char **argv, struct pt_error *err);
};

/* What changed in the shared state (app_changed()). */
enum {
    APP_CH_DATA   = 1u << 0,   /* the dataset was (re)loaded */
    APP_CH_METRIC = 1u << 1,   /* metric or statistic */
    APP_CH_DIM    = 1u << 2,   /* dimension or dimension value */
    APP_CH_FILTER = 1u << 3,   /* regex or label filter on targets */
    APP_CH_CURSOR = 1u << 4,   /* the selected cell (step, rank, target) */
    APP_CH_LAYOUT = 1u << 5,   /* Megatron layout settings */
    APP_CH_COLOR  = 1u << 6,   /* colour mode, range, log scale */
    APP_CH_GRAPH  = 1u << 7,   /* another graph (step, rank) is shown in the tree panes */
    APP_CH_ALL    = 0xffffu
};

struct view_ops {
    const char *name;          /* "heatmap": the pane's id in tables and :view */
    const char *title;         /* shown in the pane's frame / screen tabs */

    /* Called once after the dataset (if any) is available; sets v->priv.
     * Failing removes the pane with err shown in the status line. */
    int  (*init)(struct view *v, struct app *a, struct pt_error *err);
    void (*free)(struct view *v);
    /* Optional: 0 hides the pane (and its screen if it has no other pane)
     * for this input, e.g. the tree pane outside compare mode. */
    int  (*available)(const struct app *a);

    /* Draws into v->win (v->h rows, v->w columns, both >= 1).  Draw only
     * what changed where cheap; at least never clear the window needlessly:
     * curses sends only the cells that differ from the last frame. */
    void (*draw)(struct view *v, struct app *a);
    /* A key for the focused pane: action is the matching keys[] row's
     * action, or 0 when the key has no row (then key is the raw KEYS_ code).
     * Returns 1 when handled (redraw), 0 to let the app try its rows. */
    int  (*key)(struct view *v, struct app *a, int action, int key);
    /* Optional: mouse inside the pane; 1 handled. */
    int  (*mouse)(struct view *v, struct app *a, const struct view_mouse *m);
    /* Optional: v->h / v->w changed. */
    void (*resize)(struct view *v, struct app *a);
    /* Optional: shared state changed (APP_CH_* bits). */
    void (*notify)(struct view *v, struct app *a, unsigned what);
    /* Optional: the status line when focused (cell under the cursor ...);
     * one '\n' may separate a second line, shown when there is room. */
    void (*status)(struct view *v, struct app *a, char *buf, size_t size);
    /* Optional: `/` typed a pattern for this pane (the prompt keeps the
     * history); 0 ok, -1 with err (the old filter stays). */
    int  (*search)(struct view *v, struct app *a, const char *pattern, struct pt_error *err);
    /* Optional: n / N (dir +1 / -1). */
    int  (*search_next)(struct view *v, struct app *a, int dir);

    const char *hints;         /* key hints for the status line: "Enter add line  c clear" */
    const struct keys_row *keys;  size_t nkeys;
    const struct view_cmd *cmds;  size_t ncmds;   /* available from any pane */
};

struct view {
    const struct view_ops *ops;
    void *priv;                /* the pane's own state */
    WINDOW *win;               /* owned by the app; NULL while not shown */
    int y, x, h, w;            /* placement on the screen */
    int focused;
    int index;                 /* position in the pane table */
    int live;                  /* init succeeded (until free) */
    int visible;               /* on the screen shown, with a window */
};

/* ---- the app, as panes see it ---- */

struct ui;          /* ui/ui.h: the terminal, colours, glyphs */
struct app_cmp;     /* views/graph.h: the graphs of compare / build / .vis.db mode */
struct prompt;      /* ui/prompt.h */

enum app_mode {
    APP_MODE_TREND,      /* one PATH (dump, monitor tree, .trend.db) or --demo */
    APP_MODE_COMPARE,    /* PROBLEM BENCH: the tree/detail panes load them */
    APP_MODE_VISDB       /* a msProbe .vis.db: the tree pane loads it */
};

enum app_color { APP_COLOR_GRADIENT, APP_COLOR_SEGMENTED };

/* The background load (trend mode): the loader thread writes the counters,
 * the UI thread polls them and shows the progress line. */
struct app_load {
    pthread_t thread;
    int running;               /* thread started and not joined */
    atomic_int done;           /* set by the thread when load_dataset returned */
    atomic_int cancel;         /* set by the UI on Ctrl-C */
    atomic_size_t files_done, files_total;
    atomic_uint_least64_t bytes_done, bytes_total;
    int rc;                    /* load_dataset's result (valid when done) */
    struct dataset *ds;        /* its output (moved to app->ds) */
    struct pt_error err;
    /* Progressive loading: the thread loads the first step, then more
     * (load_opts.max_steps growing), and leaves each dataset but the
     * last here for the UI to swap in (under mu). */
    pthread_mutex_t mu;
    struct dataset *partial;   /* owned until the UI takes it */
    int progressive;           /* this load publishes partial datasets */
    int reload;                /* a reload of data already shown (follow mode, ^R) */
    struct load_opts opts;     /* the app's options as the load started (the thread's copy) */
};

/* Hooks a pane (the Megatron layout pane) installs to relabel ranks and
 * targets; NULL = plain numbers and names.  Each writes a NUL-terminated
 * label into buf and returns buf, or NULL to keep the plain one. */
struct app_label_hooks {
    void *ctx;
    const char *(*rank)(void *ctx, int32_t rank, char *buf, size_t size);
    const char *(*target)(void *ctx, int32_t rank, uint32_t target, char *buf, size_t size);
    /* Appended to the status line for the selected cell ("global layer 17"). */
    const char *(*cell)(void *ctx, int32_t step, int32_t rank, uint32_t target, char *buf, size_t size);
};

struct app_screen {
    const char *name;          /* "trend" */
    int horizontal;            /* 1: panes side by side, 0: stacked */
    int fkey;                  /* KEYS_F2...: switches to it */
};

/* The pane table (src/app_panes.c): one line per pane, in Tab order
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
    /* --- input --- */
    enum app_mode mode;
    char *paths[2];            /* owned; npaths of them */
    int npaths;
    int demo;                  /* --demo */
    int demo_ranks, demo_targets;   /* --demo=RxT (benchmarks), 0 = the small demo */
    char *parallel_arg;        /* --parallel SPEC as typed, for the layout pane (owned) */
    struct load_opts lopts;
    struct app_load load;
    struct mon_cache *mon_cache;  /* owned (src/io/monitor/mon_cache.h): a monitor tree's parsed files, kept
                                     between its loads (made by the first load of trend mode) */
    struct dump_cache *dump_cache;  /* owned (src/io/dump/dump_cache.h): a dump's parsed rank folders, the same */
    struct app_origin *origin;  /* owned (src/app_origin.c): the NaN's origin rank, searched after the load */

    /* --- graphs (compare mode, a .vis.db, a dump with construct.json) --- */
    struct app_cmp *cmp;       /* owned (src/app_compare.c); NULL: no tree for this input */
    int fuzzy;                 /* --fuzzy-match */
    const char *layer_mapping; /* --layer-mapping FILE (points into argv) */
    const char *match_config;  /* --match-config FILE (points into argv) */

    /* --- data (trend mode; NULL until loaded) --- */
    struct dataset *ds;        /* owned */
    const struct cube *cube;   /* ds->cube */
    /* Only while panes hear APP_CH_DATA of a swap (a newer dataset of the
     * same input, src/app/app_swap.c): the cube they held indexes into,
     * still valid; app_swap_*() translate its indexes.  NULL otherwise. */
    const struct cube *swap_from;
    int follow_arg;            /* --follow */
    struct app_follow *follow; /* owned (src/app/app_follow.c): follow mode, NULL when off */
    long long grew_at;         /* wall time (s) the data last grew on a reload, 0 never */

    /* --- what the heat map shows --- */
    int metric, stat;          /* indexes into cube->metrics / ->stats */
    enum cube_dim dim;         /* DIM_STEP, DIM_RANK, DIM_TARGET (msProbe "Module Name") */
    int dimval;                /* step index / rank index / local target of the fixed dim */

    /* The selected cell, in cube indexes (-1 / NAMES_NONE = none). */
    int sel_step, sel_rank;
    uint32_t sel_target;       /* global target id */

    /* Target filters.  rows[0..nrows) = local targets of the current metric
     * passing both filters, ascending: the heat map's y axis for the step
     * and rank dims and the value list of the module dim. */
    char *regex;               /* pattern text or NULL (owned) */
    struct search re;          /* the compiled regex (model/cube/search.h) */
    uint8_t *regex_mask;       /* per global target: matches (owned; NULL = no filter) */
    uint8_t *label_mask;       /* per global target: carries every selected label */
    char *label_desc;          /* "layer:3 AND linear_qkv" for the toolbar (owned) */
    uint32_t *rows;            /* owned */
    uint32_t nrows;

    /* --- colouring --- */
    enum app_color color_mode;
    int logscale;
    /* Value range as fractions of the slice's finite range: cells outside
     * [lo, hi] are hidden.  0 and 1 = everything. */
    double range_lo, range_hi;
    /* What the heat map last showed, for the toolbar: the colour scale's
     * ends (after narrowing) and whether there were finite values. */
    double shown_lo, shown_hi;
    int shown_ok;

    /* --- Megatron layout (the layout pane owns the object) --- */
    const void *layout;        /* struct layout * from model/layout/layout.h, or NULL */
    struct app_label_hooks hooks;

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
    int laid_out;              /* the screen the windows were made for (-1 none) */
    int split;                 /* heat map share of the trend screen, percent */
    int rows_total, cols_total;
    WINDOW *bar, *status;      /* toolbar (also reads the keys) and status lines */
    int status_h;
    /* Keys (and mouse events) that arrive while the data or a graph
     * loads wait here and run in order once it landed, so `)))jjj` means
     * three steps on, then three rows down, not one step and nothing. */
    struct app_qkey { int key, y, x, b; } keyq[256];
    int nkeyq;
    char msg[512];             /* one-line message in the status line */
    int msg_error;
    int quit;
    int dirty;                 /* something changed: draw a frame */
    int exit_code;
};

/* Tells every pane (ops->notify) what changed, and redraws. */
void app_changed(struct app *a, unsigned what);
/* A message for the status line (until the next key). */
void app_msg(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void app_err(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct view *app_view(struct app *a, const char *name);
/* Shows the screen of pane `name` and focuses it; -1 if it does not exist. */
int app_show(struct app *a, const char *name);

/* Metric and statistic by index (stat -1 = the metric's first); resets the
 * range and keeps the dim and value where they still exist. */
int app_set_metric(struct app *a, int metric, int stat);
int app_set_dim(struct app *a, enum cube_dim dim, int value);
/* Selects a cell (cube indexes; -1 / NAMES_NONE keep the current one) and
 * moves the fixed dimension value so the heat map shows it. */
int app_select(struct app *a, int step, int rank, uint32_t target);

/* The regex filter on target names (NULL or "" clears); -1 with err when
 * the pattern does not compile (the old filter stays). */
int app_set_regex(struct app *a, const char *pattern, struct pt_error *err);
/* The label filter: mask per global target (taken over; NULL clears) and
 * its description for the toolbar (copied). */
void app_set_label_filter(struct app *a, uint8_t *mask, const char *desc);

/* During a swap (a->swap_from set): the index in the new cube of what
 * index i was in the old one, by value (metric and statistic by name,
 * step and rank by number, target by name); -1 / NAMES_NONE when it is
 * gone or no swap is under way. */
int app_swap_metric(const struct app *a, int metric);
int app_swap_stat(const struct app *a, int old_metric, int stat);
int app_swap_step(const struct app *a, int step);
int app_swap_rank(const struct app *a, int rank);
uint32_t app_swap_target(const struct app *a, uint32_t target);

/* The key and command tables as one document, walked in order: the
 * global rows, then each pane's rows (pane table order), then the `:`
 * commands.  Drives the `?` help pane and `probetop --keys-man`. */
struct app_doc_ops {
    void (*section)(void *ctx, const char *title);
    void (*row)(void *ctx, const char *keys, const char *help);
    /* Optional: a legend row, the glyph to be drawn in role (a UI_* role,
     * ui/ui.h); NULL = row(). */
    void (*legend)(void *ctx, const char *glyph, int role, const char *help);
    int ascii;                 /* legend glyphs as --ascii draws them */
};
void app_doc_walk(const struct app_doc_ops *ops, void *ctx);

/* The y axis row of a local target in a->rows, -1 when filtered out. */
long app_row_of(const struct app *a, uint32_t local_target);

/* Display names: a rank ("3", or what the layout hook says) and a target
 * (the names_display() form, or the layout hook's renaming). */
const char *app_rank_label(const struct app *a, int rank_index, char *buf, size_t size);
/* The rank number with its layout label when there is one: "5 (p0t1d0)". */
const char *app_rank_both(const struct app *a, int rank_index, char *buf, size_t size);
const char *app_target_label(const struct app *a, int rank_index, uint32_t target, char *buf, size_t size);

/* The origin of the first step's NaN/Inf, once src/app/app_origin.c's
 * background search found it: 1 with its step, rank, record position and
 * name and how many other ranks it reached; 0 while searching, when the
 * search failed or found nothing. */
int app_origin_first(const struct app *a, int32_t *step, int32_t *rank, uint32_t *pos, const char **name,
                     size_t *nreached);
/* The origin's record as an index into a->ds->ovf (what the overflow
 * pane's list leads with); -1 while searching or when there is none. */
long app_origin_entry(const struct app *a);

#endif
