/* graphs: the graph side of the session -- what the tree, detail and
 * summary panes show, for the three ways in:
 *   - compare mode, `probetop PROBLEM BENCH`: the (step, rank) pairs both
 *     dumps have, each read (the two sides in two threads), built and
 *     compared (model/compare/compare.h) in the background when it is chosen;
 *   - build mode, `probetop DUMP` with construct.json: the problem tree
 *     alone (structure and overflow marks, no verdicts);
 *   - `probetop FILE.vis.db`: the graphs msProbe stored, read-only.
 *
 * Owns (src/session/graphs.c) the pair list, the one loaded (step, rank)
 * graph (struct graphs_loaded: both trees, the compare, the overflow marks,
 * the peers of communication nodes), the loader thread, the options
 * (--fuzzy-match, --layer-mapping, --match-config), the pairs matched by
 * hand this session (re-applied when a (step, rank) is loaded again), the
 * whole-run summary of compare mode over several pairs (every pair
 * compared once, src/io/compare/cmp_scan.h), and the run choice of the
 * trend screen (problem, benchmark, relative difference) with the cubes it
 * needs.  Panes read the shown graph (a->graphs->cur, compared by
 * a->graphs->gen), the pair lists and the summary entries, and ask the node
 * queries below.  Reader types appear only as pointers the panes never
 * follow.
 *
 * Threads: the loader thread builds a new struct graphs_loaded and touches
 * nothing else; the UI thread swaps it in (graphs_poll).  The scan thread
 * writes summary entry i and then sets sready[i]; the UI reads an entry
 * only once it is set. */
#ifndef PT_SESSION_GRAPHS_H
#define PT_SESSION_GRAPHS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/graph/comm.h"
#include "model/graph/dataflow.h"
#include "src/session/flow.h"
#include "model/compare/compare.h"
#include "model/compare/compare_run.h"
#include "model/cube/dataset.h"
#include "model/err.h"
#include "model/graph/tree.h"
#include "model/graph/visparam.h"

struct session;
struct cmp_files_lmap;      /* src/io/compare/cmp_files.h */
struct cmp_scan_pair;      /* src/io/compare/cmp_scan.h */
struct visdb;           /* src/io/visdb/read_visdb.h */
struct visdb_graph;

/* A node's mark in the tree (visible without colour). */
enum graphs_mark {
    AM_NONE = 0,      /* build mode: no verdict */
    AM_PASS, AM_WARN, AM_ERROR,
    AM_UNMATCHED,
    AM_NODATA         /* matched, nothing compared (white in msProbe) */
};

enum graphs_run { RUN_PROBLEM = 0, RUN_BENCH, RUN_DIFF };

struct graphs_pair {
    int32_t step, rank;
    char *dir[2];            /* rank folders: problem, benchmark (NULL in build / .vis.db mode) */
};

/* One communication peer of a node. */
struct graphs_peer {
    int32_t rank;
    char *node;              /* the peer's node id (owned) */
    uint8_t type;            /* enum comm_type */
};

/* One loaded (step, rank). */
struct graphs_loaded {
    int32_t step, rank;
    struct tree *t[2];               /* problem, benchmark; t[1] NULL in build mode */
    struct cmp_graph *g;             /* compare mode with both trees built */
    struct visdb_graph *vg[2];       /* .vis.db mode: t[i] == vg[i]->tree */
    const struct vis_params *vin[2], *vout[2];   /* .vis.db mode: vg[i]->in / ->out, per node
                                                    (what the detail pane draws), else NULL */
    uint8_t *ovf;                    /* per problem node: enum ovf_level (NULL: none known) */
    int32_t *pre;                    /* per problem node: execution (pre-order) position */
    int32_t *bpre;                   /* per benchmark node */
    int32_t *vlink;                  /* .vis.db compare: per problem node the benchmark node, -1 */
    int32_t *vblink;                 /* per benchmark node the problem node, -1 */
    /* communication peers per problem node (computed on demand, all ranks of the step) */
    int peers_done;
    uint32_t *peer0, *npeer;         /* per node: range in peers */
    struct graphs_peer *peers;
    size_t npeers;
    char note[512];                  /* why something is missing, for the panes */
    double load_seconds;
    struct dataflow *df;             /* producers / consumers of t[0], built on first use (src/session/flow.c) */
};

struct graphs {
    int visdb;                       /* input is a .vis.db */
    int build;                       /* one dump, no benchmark */
    struct graphs_pair *pairs;
    size_t npairs;
    size_t nalone;                   /* compare: (step, rank)s in one dump only, not compared */
    int32_t *steps, *ranks;          /* distinct, ascending */
    int nsteps, nranks;
    struct visdb *vdb;

    struct graphs_loaded *cur;          /* shown (owned), NULL before the first load */
    unsigned gen;                    /* +1 each time cur is replaced (panes compare it,
                                        never the old pointer: it is freed) */
    char error[512];                 /* the last load failure ("" none) */

    /* the loader */
    pthread_t th;
    int running;
    atomic_int done;
    int32_t want_step, want_rank;
    struct graphs_loaded *next;
    int rc;
    struct pt_error err;
    char *select_after;              /* node to select when the load lands (owned) */
    struct flow_walk walk;           /* the data-flow walk of the tree and detail panes (src/session/flow.c) */

    /* options */
    int fuzzy;
    char *lmap_path, *mc_path;       /* owned copies */
    struct cmp_files_lmap *lmap;         /* owned (src/io/compare/cmp_files.h) */
    int have_lmap;
    char mc_report[512];             /* what --match-config did on the last load */

    /* the whole-run summary (compare mode with several pairs): every pair
     * compared once by the scan thread (src/io/compare/cmp_scan.h), one entry per
     * pair in pairs order; the UI reads entry i once sready[i] is set */
    int summary;                     /* this input has one */
    struct cmp_scan_pair *spairs;
    struct compare_run_pair *sum;
    atomic_uchar *sready;
    atomic_size_t sdone;             /* entries complete */
    atomic_int scancel, send;        /* stop asked (UI) / the scan returned (scan thread) */
    pthread_t sth;
    int srunning;                    /* started and not joined */
    int sfinished;                   /* joined: every entry is final */
    /* the run's first divergence with the ranks of its step ordered by the
     * origin rules (src/io/compare/cmp_origin.h), set by the scan thread before
     * send: the pair index (-1 none), its level, and why the origin search
     * failed (empty when it did not) */
    long shead;
    int swhich;
    struct compare_run_first sfirst;        /* the node itself (owned) */
    char sorigin_err[256];
    size_t sseen;                    /* sdone at the last poll */

    /* pairs matched by hand: re-applied when their (step, rank) loads again */
    struct graphs_manual { int32_t step, rank; char *a, *b; } *manual;
    size_t nmanual;

    /* the trend screen's run choice (compare mode) */
    int run;                         /* enum graphs_run */
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

/* The whole-run summary: entry i when it is complete, else NULL. */
const struct compare_run_pair *graphs_summary(const struct session *a, size_t i);
/* The pair index of (step, rank), -1 none. */
long graphs_pair_index(const struct session *a, int32_t step, int32_t rank);
/* The run's first divergence: 1 with *pair (index) and *which (COMPARE_RUN_ERR /
 * COMPARE_RUN_WARN) set, 0 when no compared pair diverges, -1 while the scan is
 * still going (or there is no summary). */
int graphs_run_first(const struct session *a, long *pair, int *which);
/* The run's first divergence itself (the node where it was born, as
 * `compare --first` names it); NULL while graphs_run_first() is not 1. */
const struct compare_run_first *graphs_run_first_node(const struct session *a);
/* Starts loading (step, rank) in the background; the tree pane shows
 * "loading" meanwhile.  -1 when there is no such pair. */
int graphs_load(struct session *a, int32_t step, int32_t rank, struct pt_error *err);
int graphs_loading(const struct session *a);

/* Node queries on the shown graph (n = problem node). */
int graphs_mark(const struct graphs_loaded *G, int n);
double graphs_magnitude(const struct graphs_loaded *G, int n);   /* [0,1], -1 none */
int graphs_counterpart(const struct graphs_loaded *G, int n);    /* benchmark node, -1 */
int graphs_is_compare(const struct graphs_loaded *G);            /* verdicts exist */
int graphs_first_divergence(const struct graphs_loaded *G);
/* Node n is an operator the md5 determinism rule names (inputs equal,
 * outputs differ: probetop-rules(7), FIRST DIVERGENCE: Determinism). */
int graphs_nondeterministic(const struct graphs_loaded *G, int n);
int graphs_next_divergent(const struct graphs_loaded *G, int n, int dir);

/* Manual match: problem node a with benchmark node b (both unmatched, same
 * kind); remembered for reloads.  Not in .vis.db mode. */
int graphs_manual_match(struct session *a, int na, int nb, struct pt_error *err);
long graphs_save_match(struct session *a, const char *path, struct pt_error *err);

/* Communication peers of problem node n (loads the other ranks' dumps of
 * the step the first time); 0 with *peers / *n set. */
int graphs_peers(struct session *a, int n, const struct graphs_peer **peers, size_t *count, struct pt_error *err);

/* What the shell calls. */

/* After the options: decides what the input is and lists the pairs.
 * Compare and .vis.db modes fail (-1, err) when nothing can be shown;
 * in trend mode a dump without construct.json just gets no tree (0, and
 * a->graphs stays NULL). */
int graphs_open(struct session *a, struct pt_error *err);
void graphs_free(struct session *a);

/* The start: compare mode with several pairs starts the whole-run scan
 * (the summary pane shows it; the tree of the first divergence is loaded
 * when it ends); otherwise the first pair's graph starts loading. */
int graphs_start(struct session *a, struct pt_error *err);

/* Loads synchronously (start-up, tests of the tree ready time). */
int graphs_load_now(struct session *a, int32_t step, int32_t rank, struct pt_error *err);
/* The event loop calls this: when a load finished, swaps it in and tells
 * the panes (SESSION_CH_GRAPH); returns 1 then. */
int graphs_poll(struct session *a);
/* The trend dataset arrived (trend mode): overflow marks from its records. */
void graphs_data_ready(struct session *a);

/* The trend screen's run: swaps a->cube to the problem, benchmark or
 * relative-difference cube. */
int graphs_set_run(struct session *a, int run, struct pt_error *err);
const char *graphs_run_name(int run);

#endif
