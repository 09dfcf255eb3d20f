/* graph: the graph side of the app as the panes see it (the tree, detail
 * and summary panes), and what the tree and detail panes share.
 *
 * The app's graph object (struct app_cmp, a->cmp) is owned and driven by
 * src/app/app_compare.c (see app_compare.h there for the modes, the
 * loader threads and the whole-run scan); panes read the shown graph
 * (a->cmp->cur, compared by a->cmp->gen), the pair lists and the summary
 * entries, and ask the node queries below.  Reader types appear only as
 * pointers the panes never follow. */
#ifndef PT_VIEWS_GRAPH_H
#define PT_VIEWS_GRAPH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/graph/comm.h"
#include "model/compare/compare.h"
#include "model/compare/compare_run.h"
#include "model/cube/dataset.h"
#include "model/err.h"
#include "model/graph/tree.h"
#include "model/graph/visparam.h"

struct app;
struct cmp_files_lmap;      /* src/io/compare/cmp_files.h */
struct cmp_scan_pair;      /* src/io/compare/cmp_scan.h */
struct visdb;           /* src/io/visdb/read_visdb.h */
struct visdb_graph;

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
    struct cmp_files_lmap *lmap;         /* owned (src/io/compare/cmp_files.h) */
    int have_lmap;
    char mc_report[512];             /* what --match-config did on the last load */

    /* the whole-run summary (compare mode with several pairs): every pair
     * compared once by the scan thread (src/cmp_scan.h), one entry per
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

/* The whole-run summary: entry i when it is complete, else NULL. */
const struct compare_run_pair *acmp_summary(const struct app *a, size_t i);
/* The pair index of (step, rank), -1 none. */
long acmp_pair_index(const struct app *a, int32_t step, int32_t rank);
/* The run's first divergence: 1 with *pair (index) and *which (COMPARE_RUN_ERR /
 * COMPARE_RUN_WARN) set, 0 when no compared pair diverges, -1 while the scan is
 * still going (or there is no summary). */
int acmp_run_first(const struct app *a, long *pair, int *which);
/* The run's first divergence itself (the node where it was born, as
 * `compare --first` names it); NULL while acmp_run_first() is not 1. */
const struct compare_run_first *acmp_run_first_node(const struct app *a);
/* Starts loading (step, rank) in the background; the tree pane shows
 * "loading" meanwhile.  -1 when there is no such pair. */
int acmp_load(struct app *a, int32_t step, int32_t rank, struct pt_error *err);
int acmp_loading(const struct app *a);

/* Node queries on the shown graph (n = problem node). */
int acmp_mark(const struct acmp_graph *G, int n);
double acmp_magnitude(const struct acmp_graph *G, int n);   /* [0,1], -1 none */
int acmp_counterpart(const struct acmp_graph *G, int n);    /* benchmark node, -1 */
int acmp_is_compare(const struct acmp_graph *G);            /* verdicts exist */
int acmp_first_divergence(const struct acmp_graph *G);
/* Node n is an operator the md5 determinism rule names (inputs equal,
 * outputs differ: probetop-rules(7), FIRST DIVERGENCE: Determinism). */
int acmp_nondeterministic(const struct acmp_graph *G, int n);
int acmp_next_divergent(const struct acmp_graph *G, int n, int dir);

/* Manual match: problem node a with benchmark node b (both unmatched, same
 * kind); remembered for reloads.  Not in .vis.db mode. */
int acmp_manual_match(struct app *a, int na, int nb, struct pt_error *err);
long acmp_save_match(struct app *a, const char *path, struct pt_error *err);

/* Communication peers of problem node n (loads the other ranks' dumps of
 * the step the first time); 0 with *peers / *n set. */
int acmp_peers(struct app *a, int n, const struct acmp_peer **peers, size_t *count, struct pt_error *err);

/* The node the tree pane has selected (or the node of its list row), -1
 * none; *side = 0 problem, 1 benchmark. */
int tree_selected(struct app *a, int *side);

/* Shows node name of the graph of (step, rank) in the tree screen, loading
 * that graph first when another one is shown (the node is selected when the
 * load completes).  0 ok, -1 with a message. */
int tree_goto(struct app *a, int32_t step, int32_t rank, const char *name, struct pt_error *err);

#endif
