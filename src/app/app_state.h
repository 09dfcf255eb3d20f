/* app_state: the one state struct of the interactive app, and the calls
 * panes use to read and change it.
 *
 * Everything a pane shares with another pane lives here: the dataset, the
 * current metric / statistic / dimension / dimension value, the selected
 * cell, the target filters (regex and labels), the heat-map colouring, the
 * Megatron layout hooks, the panes themselves.  What only one pane needs
 * (scroll offsets, the line-chart lines, a tree) is that pane's v->priv.
 *
 * Changing shared state goes through the app_* setters below (or, for
 * plain fields, a direct write followed by app_changed()), so every pane
 * hears about it through ops->notify.  The app is single-threaded except
 * for the loader thread, which touches only struct app_load. */
#ifndef PT_APP_STATE_H
#define PT_APP_STATE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "model/cube.h"
#include "model/err.h"
#include "model/search.h"
#include "src/io/dataset.h"
#include "views/view.h"

struct ui;          /* ui/ui.h: the terminal, colours, glyphs */
struct app_cmp;     /* src/app_compare.h: the graphs of compare / build / .vis.db mode */
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
    atomic_int done;           /* set by the thread when dataset_load returned */
    atomic_int cancel;         /* set by the UI on Ctrl-C */
    atomic_size_t files_done, files_total;
    atomic_uint_least64_t bytes_done, bytes_total;
    int rc;                    /* dataset_load's result (valid when done) */
    struct dataset *ds;        /* its output (moved to app->ds) */
    struct pt_error err;
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
    int fkey;                  /* UK_F2...: switches to it */
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
    struct app_origin *origin;  /* owned (src/app_origin.c): the NaN's origin rank, searched after the load */

    /* --- graphs (compare mode, a .vis.db, a dump with construct.json) --- */
    struct app_cmp *cmp;       /* owned (src/app_compare.c); NULL: no tree for this input */
    int fuzzy;                 /* --fuzzy-match */
    const char *layer_mapping; /* --layer-mapping FILE (points into argv) */
    const char *match_config;  /* --match-config FILE (points into argv) */

    /* --- data (trend mode; NULL until loaded) --- */
    struct dataset *ds;        /* owned */
    const struct cube *cube;   /* ds->cube */

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
    struct search re;          /* the compiled regex (model/search.h) */
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
    const void *layout;        /* struct layout * from model/layout.h, or NULL */
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
/* Prints the man page KEYS and COMMANDS sections as roff. */
void app_keys_man(FILE *f);

/* App internals shared by src/app*.c (panes do not need these). */
extern const struct keys_row app_keys[];
extern const size_t app_nkeys;
int app_global_action(struct app *a, int action);
int app_run_command(struct app *a, char *line);        /* the text after ':' */
int app_complete(void *ctx, const char *line, int cycle, char *out);
void app_search(struct app *a, const char *pattern);
int app_goto(struct app *a, const char *target, struct pt_error *err);
int app_load_start(struct app *a, struct pt_error *err);   /* background load */
int app_load_finish(struct app *a, struct pt_error *err);  /* join; moves the dataset in */
int app_demo_dataset(int ranks, int targets, struct dataset **out, struct pt_error *err);

/* Sets msProbe's defaults once a->ds is loaded (app internals). */
void app_data_ready(struct app *a);

/* The y axis row of a local target in a->rows, -1 when filtered out. */
long app_row_of(const struct app *a, uint32_t local_target);

/* Display names: a rank ("3", or what the layout hook says) and a target
 * (the names_display() form, or the layout hook's renaming). */
const char *app_rank_label(const struct app *a, int rank_index, char *buf, size_t size);
/* The rank number with its layout label when there is one: "5 (p0t1d0)". */
const char *app_rank_both(const struct app *a, int rank_index, char *buf, size_t size);
const char *app_target_label(const struct app *a, int rank_index, uint32_t target, char *buf, size_t size);

#endif
