/* app_compare: the graph side of the app -- what the tree and detail panes
 * show, for the three ways in:
 *   - compare mode, `probetop PROBLEM BENCH`: the (step, rank) pairs both
 *     dumps have, each read (the two sides in two threads), built and
 *     compared (model/compare.h) in the background when it is chosen;
 *   - build mode, `probetop DUMP` with construct.json: the problem tree
 *     alone (structure and overflow marks, no verdicts);
 *   - `probetop FILE.vis.db`: the graphs msProbe stored, read-only.
 *
 * Owns the pair list, the one loaded (step, rank) graph (struct acmp_graph:
 * both trees, the compare, the overflow marks, the peers of communication
 * nodes), the loader thread, the options (--fuzzy-match, --layer-mapping,
 * --match-config), the pairs matched by hand this session (re-applied when
 * a (step, rank) is loaded again), the whole-run summary of compare mode
 * over several pairs (every pair compared once, src/cmp_scan.h), and the run
 * choice of the trend screen (problem, benchmark, relative difference) with
 * the cubes it needs.
 *
 * Threads: the loader thread builds a new struct acmp_graph and touches
 * nothing else; the UI thread swaps it in (acmp_poll).  The scan thread
 * writes summary entry i and then sets sready[i]; the UI reads an entry
 * only once it is set. */
#ifndef PT_APP_COMPARE_H
#define PT_APP_COMPARE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "model/commlinks.h"
#include "model/compare.h"
#include "model/compare_run.h"
#include "model/err.h"
#include "model/tree.h"
#include "src/io/cmp_files.h"
#include "src/io/cmp_scan.h"
#include "src/io/dataset.h"
#include "src/io/read_visdb.h"

struct app;

/* A node's mark in the tree (visible without colour). */
enum acmp_mark {
    AM_NONE = 0,      /* build mode: no verdict */
    AM_PASS, AM_WARN, AM_ERROR,
    AM_UNMATCHED,
    AM_NODATA         /* matched, nothing compared (white in msProbe) */
};

enum acmp_run { RUN_PROBLEM = 0, RUN_BENCH, RUN_DIFF };

struct acmp_pair {
    int32_t step, rank;
    char *dir[2];            /* rank folders: problem, benchmark (NULL in build / .vis.db mode) */
};

/* One communication peer of a node. */
struct acmp_peer {
    int32_t rank;
    char *node;              /* the peer's node id (owned) */
    uint8_t type;            /* enum comm_type */
};

/* One loaded (step, rank). */
struct acmp_graph {
    int32_t step, rank;
    struct tree *t[2];               /* problem, benchmark; t[1] NULL in build mode */
    struct cmp_graph *g;             /* compare mode with both trees built */
    struct visdb_graph *vg[2];       /* .vis.db mode: t[i] == vg[i]->t */
    uint8_t *ovf;                    /* per problem node: enum ovf_level (NULL: none known) */
    int32_t *pre;                    /* per problem node: execution (pre-order) position */
    int32_t *bpre;                   /* per benchmark node */
    int32_t *vlink;                  /* .vis.db compare: per problem node the benchmark node, -1 */
    int32_t *vblink;                 /* per benchmark node the problem node, -1 */
    /* communication peers per problem node (computed on demand, all ranks of the step) */
    int peers_done;
    uint32_t *peer0, *npeer;         /* per node: range in peers */
    struct acmp_peer *peers;
    size_t npeers;
    char note[512];                  /* why something is missing, for the panes */
    double load_seconds;
};

struct app_cmp {
    int visdb;                       /* input is a .vis.db */
    int build;                       /* one dump, no benchmark */
    struct acmp_pair *pairs;
    size_t npairs;
    int32_t *steps, *ranks;          /* distinct, ascending */
    int nsteps, nranks;
    struct visdb *vdb;

    struct acmp_graph *cur;          /* shown (owned), NULL before the first load */
    unsigned gen;                    /* +1 each time cur is replaced (panes compare it,
                                        never the old pointer: it is freed) */
    char error[512];                 /* the last load failure ("" none) */

    /* the loader */
    pthread_t th;
    int running;
    atomic_int done;
    int32_t want_step, want_rank;
    struct acmp_graph *next;
    int rc;
    struct pt_error err;
    char *select_after;              /* node to select when the load lands (owned) */

    /* options */
    int fuzzy;
    char *lmap_path, *mc_path;       /* owned copies */
    struct cfile_lmap lmap;
    int have_lmap;
    char mc_report[512];             /* what --match-config did on the last load */

    /* the whole-run summary (compare mode with several pairs): every pair
     * compared once by the scan thread (src/cmp_scan.h), one entry per
     * pair in pairs order; the UI reads entry i once sready[i] is set */
    int summary;                     /* this input has one */
    struct cscan_pair *spairs;
    struct crun_pair *sum;
    atomic_uchar *sready;
    atomic_size_t sdone;             /* entries complete */
    atomic_int scancel, send;        /* stop asked (UI) / the scan returned (scan thread) */
    pthread_t sth;
    int srunning;                    /* started and not joined */
    int sfinished;                   /* joined: every entry is final */
    size_t sseen;                    /* sdone at the last poll */

    /* pairs matched by hand: re-applied when their (step, rank) loads again */
    struct acmp_manual { int32_t step, rank; char *a, *b; } *manual;
    size_t nmanual;

    /* the trend screen's run choice (compare mode) */
    int run;                         /* enum acmp_run */
    struct dataset *bench_ds;        /* loaded with the problem dataset */
    struct cube *diff;               /* built on first use */
    struct pt_error bench_err;
    int bench_rc;
    /* the trend loader: both runs' datasets, started after the first tree */
    pthread_t tth;
    int tstarted, trunning;
    atomic_int tdone, tcancel;
    struct load_opts lopts;
    const char *tpath[2];            /* a->paths */
    struct dataset *pds;             /* the problem's, moved to a->ds */
    int prc;
    struct pt_error perr;
};

/* After the options: decides what the input is and lists the pairs.
 * Compare and .vis.db modes fail (-1, err) when nothing can be shown;
 * in trend mode a dump without construct.json just gets no tree (0, and
 * a->cmp stays NULL). */
int acmp_open(struct app *a, struct pt_error *err);
void acmp_free(struct app *a);

/* The start: compare mode with several pairs starts the whole-run scan
 * (the summary pane shows it; the tree of the first divergence is loaded
 * when it ends); otherwise the first pair's graph starts loading. */
int acmp_start(struct app *a, struct pt_error *err);

/* The whole-run summary: entry i when it is complete, else NULL. */
const struct crun_pair *acmp_summary(const struct app *a, size_t i);
/* The run's first divergence: 1 with *pair (index) and *which (CRUN_ERR /
 * CRUN_WARN) set, 0 when no compared pair diverges, -1 while the scan is
 * still going (or there is no summary). */
int acmp_run_first(const struct app *a, long *pair, int *which);

/* Starts loading (step, rank) in the background; the tree pane shows
 * "loading" meanwhile.  -1 when there is no such pair. */
int acmp_load(struct app *a, int32_t step, int32_t rank, struct pt_error *err);
/* Loads synchronously (start-up, tests of the tree ready time). */
int acmp_load_now(struct app *a, int32_t step, int32_t rank, struct pt_error *err);
/* The event loop calls this: when a load finished, swaps it in and tells
 * the panes (APP_CH_DATA); returns 1 then. */
int acmp_poll(struct app *a);
int acmp_loading(const struct app *a);
/* The trend dataset arrived (trend mode): overflow marks from its records. */
void acmp_data_ready(struct app *a);

/* Node queries on the shown graph (n = problem node). */
int acmp_mark(const struct acmp_graph *G, int n);
double acmp_magnitude(const struct acmp_graph *G, int n);   /* [0,1], -1 none */
int acmp_counterpart(const struct acmp_graph *G, int n);    /* benchmark node, -1 */
int acmp_is_compare(const struct acmp_graph *G);            /* verdicts exist */
int acmp_first_divergence(const struct acmp_graph *G);
int acmp_next_divergent(const struct acmp_graph *G, int n, int dir);

/* Manual match: problem node a with benchmark node b (both unmatched, same
 * kind); remembered for reloads.  Not in .vis.db mode. */
int acmp_manual_match(struct app *a, int na, int nb, struct pt_error *err);
long acmp_save_match(struct app *a, const char *path, struct pt_error *err);

/* Communication peers of problem node n (loads the other ranks' dumps of
 * the step the first time); 0 with *peers / *n set. */
int acmp_peers(struct app *a, int n, const struct acmp_peer **peers, size_t *count, struct pt_error *err);

/* The trend screen's run: swaps a->cube to the problem, benchmark or
 * relative-difference cube. */
int acmp_set_run(struct app *a, int run, struct pt_error *err);
const char *acmp_run_name(int run);

#endif
