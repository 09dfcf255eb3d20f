/* session: the shared state the panes read and change, and what a pane may
 * ask of the shell.
 *
 * One struct session per run of the program.  It holds the input and its
 * data (the dataset and its loader, the graphs of compare / .vis.db mode,
 * the origin search, follow mode), what the heat map shows (metric,
 * statistic, dimension and its value), the selected cell, the target
 * filters, the colouring, the Megatron layout hooks and the status line's
 * message.  What only one pane needs (scroll offsets, the line chart's
 * lines, a tree) is that pane's own state (struct view's priv, views/view.h);
 * the terminal, the windows, the screens, the prompt and the key queue are
 * the shell's (src/app).
 *
 * Changing shared state goes through the session_* setters below (or, for
 * plain fields, a direct write followed by session_changed()), so every
 * pane hears about it (its ops->notify, SESSION_CH_* bits).
 *
 * A pane asks the shell for what only the shell can do (show the screen of
 * a pane, go back to the previous screen, redraw) through a->host (struct
 * session_host), which the shell installs at start, as a window mode asks
 * its server; it asks another pane only through what that pane offers in
 * a->offers (struct session_offers).  A pane never calls the shell or
 * another pane directly (tests/layers.sh; README "Layout of the code").
 *
 * Threads: the session is the UI thread's; the loader threads (struct
 * loader, the graphs' loaders, the origin search, follow mode's watch)
 * touch only their own job structs, which the UI thread polls. */
#ifndef PT_SESSION_H
#define PT_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/cube.h"
#include "model/cube/dataset.h"
#include "model/cube/search.h"
#include "model/err.h"
#include "src/session/loader.h"

struct session;
struct graphs;          /* src/session/graphs.h: the graphs of compare / build / .vis.db mode */
struct follow;          /* src/session/follow.c: follow mode */
struct trendpair;       /* src/session/trendpair.h: two runs of trend data */
struct origin_search;   /* src/session/origin_search.c */
struct mon_cache;       /* src/io/monitor/mon_cache.h */
struct dump_cache;      /* src/io/dump/dump_cache.h */
struct demo_session;    /* src/session/demo_session.c: the demo's files */
struct curves_cache;    /* src/io/curves/curves_cache.h */
struct ui;              /* ui/ui.h: the terminal the panes draw on (the session never follows it) */

/* What changed in the shared state (session_changed()). */
enum {
    SESSION_CH_DATA   = 1u << 0,   /* the dataset was (re)loaded */
    SESSION_CH_METRIC = 1u << 1,   /* metric or statistic */
    SESSION_CH_DIM    = 1u << 2,   /* dimension or dimension value */
    SESSION_CH_FILTER = 1u << 3,   /* regex or label filter on targets */
    SESSION_CH_CURSOR = 1u << 4,   /* the selected cell (step, rank, target) */
    SESSION_CH_LAYOUT = 1u << 5,   /* Megatron layout settings */
    SESSION_CH_COLOR  = 1u << 6,   /* colour mode, range, log scale */
    SESSION_CH_GRAPH  = 1u << 7,   /* another graph (step, rank) is shown in the tree panes */
    SESSION_CH_ALL    = 0xffffu
};

enum session_mode {
    SESSION_MODE_TREND,      /* one PATH (dump, monitor tree, .trend.db) or --demo */
    SESSION_MODE_COMPARE,    /* PROBLEM BENCH: the tree/detail panes load them */
    SESSION_MODE_VISDB       /* a msProbe .vis.db: the tree pane loads it */
};

enum session_color { SESSION_COLOR_GRADIENT, SESSION_COLOR_SEGMENTED };

/* Hooks a pane (the Megatron layout pane) installs to relabel ranks and
 * targets; NULL = plain numbers and names.  Each writes a NUL-terminated
 * label into buf and returns buf, or NULL to keep the plain one. */
struct session_label_hooks {
    void *ctx;
    const char *(*rank)(void *ctx, int32_t rank, char *buf, size_t size);
    const char *(*target)(void *ctx, int32_t rank, uint32_t target, char *buf, size_t size);
    /* Appended to the status line for the selected cell ("global layer 17"). */
    const char *(*cell)(void *ctx, int32_t step, int32_t rank, uint32_t target, char *buf, size_t size);
};

/* What one pane offers the others.  The pane fills its part in its init
 * (ctx = its own state) and clears it in its free; a NULL ctx means there
 * is no such pane for this input.  The asker passes the ctx back. */
struct session_offers {
    /* The layout pane: the heat map's rank axis order under `:group`: perm
     * gets cube rank indexes in display order.  0 when filled, -1 for the
     * natural order (no layout, `:group none`, or no cube); ranks outside
     * the layout keep their order after the others. */
    void *layout_pane;
    int (*rank_order)(void *layout_pane, const struct session *a, int *perm, int n);

    /* The line chart: adds the selected cell's trend along the remaining
     * dimension as a line (msProbe: clicking a cell), not twice; 0 ok
     * (message set), -1 with a message.  clear_lines removes every line. */
    void *linechart_pane;
    int (*add_line)(void *linechart_pane, struct session *a);
    void (*clear_lines)(void *linechart_pane, struct session *a);

    /* The tree pane.  tree_goto shows node `name` of the graph of (step,
     * rank) in the tree screen, loading that graph first when another one
     * is shown (the node is selected when the load completes); 0 ok, -1
     * with err.  tree_selected: the node the tree has selected (or the node
     * of its list row), -1 none; *side = 0 problem, 1 benchmark. */
    void *tree_pane;
    int (*tree_goto)(void *tree_pane, struct session *a, int32_t step, int32_t rank, const char *name,
                     struct pt_error *err);
    int (*tree_selected)(void *tree_pane, struct session *a, int *side);
};

/* The key and command tables as one document, walked in order: the
 * global rows, then each pane's rows (pane table order), then the `:`
 * commands.  Drives the `?` help pane and `probetop --keys-man`. */
struct session_doc_ops {
    void (*section)(void *ctx, const char *title);
    void (*row)(void *ctx, const char *keys, const char *help);
    /* Optional: a legend row, the glyph to be drawn in role (a UI_* role,
     * ui/ui.h); NULL = row(). */
    void (*legend)(void *ctx, const char *glyph, int role, const char *help);
    int ascii;                 /* legend glyphs as --ascii draws them */
};

/* What a pane asks of the shell (src/app installs it at start).  Without a
 * host (unit tests of the state), session_changed() and the messages only
 * change the state. */
struct session_host {
    /* Tells every pane (ops->notify) what changed (SESSION_CH_* bits), and
     * draws a frame.  Panes call session_changed(). */
    void (*changed)(struct session *a, unsigned what);
    /* Shows the screen of pane `pane` and focuses it; -1 when there is no
     * such pane for this input. */
    int (*show)(struct session *a, const char *pane);
    /* 1 when pane `pane` is there for this input, 0 when not (a jump asks
     * before it moves the cursor). */
    int (*has)(struct session *a, const char *pane);
    /* Back to the screen shown before, its first pane focused (the help
     * and load report screens' close key). */
    void (*back)(struct session *a);
    /* Draws a frame at the next turn of the loop (a pane changed only
     * what it draws itself). */
    void (*redraw)(struct session *a);
    /* Walks the key and command tables (the help pane). */
    void (*doc)(const struct session_doc_ops *ops, void *ctx);
    /* The curves pane's step to dump, opened: the input becomes the dump
     * root root (loaded now, the panes started on it) and the heat map
     * lands on step (its first micro step), on the metric of pass
     * ("forward", "backward": a dump's metrics are its passes; NULL any).  0, or -1 with err (the curves
     * stay when the root does not load). */
    int (*open_dump)(struct session *a, const char *root, int64_t step, const char *pass, struct pt_error *err);
};

struct session {
    const struct session_host *host;   /* NULL: no shell (tests) */
    struct ui *ui;                     /* the shell's terminal, for the panes' drawing */

    /* --- input --- */
    enum session_mode mode;
    char *paths[2];            /* owned; npaths of them */
    int npaths;
    int demo;                  /* --demo */
    int demo_cube;             /* --demo=trend or --demo=RxT: the made-up trend cube (model/cube/demo.h) */
    int demo_ranks, demo_targets;   /* --demo=RxT (benchmarks), 0 = the small cube */
    struct demo_session *demo_files;   /* owned (src/session/demo_session.c): the small demo's files in
                                          their private folder, removed at the end; NULL otherwise */
    char *parallel_arg;        /* --parallel SPEC as typed, for the layout pane (owned) */
    const char *curves_dump;   /* training curves: the dump root of the run, where the curves
                                  pane's step to dump is looked for and opened: --dump DIR (points
                                  into argv) or `probetop LOG DUMPDIR` (paths[1], npaths then 1);
                                  NULL none */
    const char *trace_patterns_file;   /* --patterns FILE (points into argv), NULL none */
    struct tpatterns *trace_patterns;  /* owned: read from it (src/session/loader.h: loader_patterns); lopts points to it */
    struct load_opts lopts;
    struct loader load;
    struct mon_cache *mon_cache;  /* owned (src/io/monitor/mon_cache.h): a monitor tree's parsed files, kept
                                     between its loads (made by the first load of trend mode) */
    struct dump_cache *dump_cache;  /* owned (src/io/dump/dump_cache.h): a dump's parsed rank folders, the same */
    struct curves_cache *curves_cache;  /* owned (src/io/curves/curves_cache.h): a curve input's points, the same */
    struct origin_search *origin;  /* owned (src/session/origin_search.c): the NaN's origin rank, searched after the load */

    /* --- graphs (compare mode, a .vis.db, a dump with construct.json) --- */
    struct graphs *graphs;     /* owned (src/session/graphs.c); NULL: no tree for this input */
    int fuzzy;                 /* --fuzzy-match */
    const char *layer_mapping; /* --layer-mapping FILE (points into argv) */
    const char *match_config;  /* --match-config FILE (points into argv) */

    /* --- data (trend mode; NULL until loaded) --- */
    struct dataset *ds;        /* owned */
    /* PROBLEM BENCH when both are training curves (loader_curves_pair): the
     * benchmark run, loaded once (loader_bench); the problem run is ds. */
    struct dataset *bench_ds;  /* owned; NULL otherwise (also the benchmark of a trend pair) */
    struct trendpair *pair;    /* owned (src/session/trendpair.h): PROBLEM BENCH of trend data; NULL otherwise */
    const struct cube *cube;   /* ds->cube */
    /* Only while panes hear SESSION_CH_DATA of a swap (a newer dataset of
     * the same input, src/session/swap.c): the cube they held indexes into,
     * still valid; swap_*() translate its indexes.  NULL otherwise. */
    const struct cube *swap_from;
    int follow_arg;            /* --follow */
    struct follow *follow;     /* owned (src/session/follow.c): follow mode, NULL when off */
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
    enum session_color color_mode;
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
    struct session_label_hooks hooks;
    struct session_offers offers;

    /* --- the status line --- */
    char msg[512];             /* one-line message in the status line */
    int msg_error;
};

/* Tells every pane what changed (through the host), and redraws. */
void session_changed(struct session *a, unsigned what);
/* A message for the status line (until the next key). */
void session_msg(struct session *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void session_err(struct session *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Metric and statistic by index (stat -1 = the metric's first); resets the
 * range and keeps the dim and value where they still exist. */
int session_set_metric(struct session *a, int metric, int stat);
int session_set_dim(struct session *a, enum cube_dim dim, int value);
/* Selects a cell (cube indexes; -1 / NAMES_NONE keep the current one) and
 * moves the fixed dimension value so the heat map shows it. */
int session_select(struct session *a, int step, int rank, uint32_t target);

/* `:goto TARGET`: selects a target of the current metric by its full name
 * or a unique part of it (case aside); -1 with err naming why not (several
 * match, another metric has it, the filter hides it). */
int session_goto(struct session *a, const char *target, struct pt_error *err);

/* The regex filter on target names (NULL or "" clears); -1 with err when
 * the pattern does not compile (the old filter stays). */
int session_set_regex(struct session *a, const char *pattern, struct pt_error *err);
/* The label filter: mask per global target (taken over; NULL clears) and
 * its description for the toolbar (copied). */
void session_set_label_filter(struct session *a, uint8_t *mask, const char *desc);

/* The y axis row of a local target in a->rows, -1 when filtered out. */
long session_row_of(const struct session *a, uint32_t local_target);

/* Display names: a rank ("3", or what the layout hook says) and a target
 * (the names_display() form, or the layout hook's renaming). */
const char *session_rank_label(const struct session *a, int rank_index, char *buf, size_t size);
/* The rank number with its layout label when there is one: "5 (p0t1d0)". */
const char *session_rank_both(const struct session *a, int rank_index, char *buf, size_t size);
const char *session_target_label(const struct session *a, int rank_index, uint32_t target, char *buf, size_t size);

/* Sets msProbe's defaults once a->ds is loaded. */
void session_data_ready(struct session *a);
/* Rebuilds the filtered rows and keeps the selection valid (after the
 * cube or a filter changed under them). */
void session_refilter(struct session *a);

#endif
