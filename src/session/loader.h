/* loader: the dataset load in a background thread (src/session/loader.c),
 * so the screen shows progress and Ctrl-C can cancel; folders
 * progressively (the first steps first, swapped in as they come); reloads
 * of follow mode and ^R; the demo dataset. */
#ifndef PT_SESSION_LOADER_H
#define PT_SESSION_LOADER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/err.h"

struct session;

/* The background load (trend mode): the loader thread writes the counters,
 * the UI thread polls them and shows the progress line. */
struct loader {
    pthread_t thread;
    int running;               /* thread started and not joined */
    atomic_int done;           /* set by the thread when load_dataset returned */
    atomic_int cancel;         /* set by the UI on Ctrl-C */
    atomic_size_t files_done, files_total;
    atomic_uint_least64_t bytes_done, bytes_total;
    int rc;                    /* load_dataset's result (valid when done) */
    struct dataset *ds;        /* its output (moved to a->ds) */
    struct pt_error err;
    /* Progressive loading: the thread loads the first step, then more
     * (load_opts.max_steps growing), and leaves each dataset but the
     * last here for the UI to swap in (under mu). */
    pthread_mutex_t mu;
    struct dataset *partial;   /* owned until the UI takes it */
    int progressive;           /* this load publishes partial datasets */
    int reload;                /* a reload of data already shown (follow mode, ^R) */
    struct load_opts opts;     /* the session's options as the load started (the thread's copy) */
};

int loader_start(struct session *a, struct pt_error *err);    /* background load */
int loader_finish(struct session *a, struct pt_error *err);   /* join; moves the dataset in */
/* Frees what loads keep between them (the monitor, dump and curves
 * caches); after the load thread is joined. */
void loader_caches_free(struct session *a);
/* The made-up data of --demo (--demo=RxT: ranks x targets). */
int loader_demo(int ranks, int targets, struct dataset **out, struct pt_error *err);

/* The load thread's results, LOADER_* bits: FIRST, the first data is in
 * a->ds (the caller readies the panes); SWAPPED, newer data replaced what
 * was shown; DONE, the thread ended; FAILED, with err. */
enum { LOADER_FIRST = 1, LOADER_SWAPPED = 2, LOADER_DONE = 4, LOADER_FAILED = 8 };
int loader_poll(struct session *a, struct pt_error *err);
/* Starts a reload of the input (follow mode, ^R, :reload); -1 with err. */
int loader_reload(struct session *a, struct pt_error *err);

/* PROBLEM BENCH of training curves (a log, event files, a CSV/JSONL: the
 * reader rows that fill ds->curves) rather than two dumps: 1 when the rows
 * detected for both paths are curve rows (the curves pane then shows both
 * runs in trend mode), 0 otherwise. */
int loader_curves_pair(const struct session *a);
/* PROBLEM BENCH of training curves (loader_curves_pair) in compare mode:
 * trend mode on the problem run, paths[1] loaded as a->bench_ds (at once:
 * a curve input is small).  Two runs of trend data likewise, with their
 * pair (src/session/trendpair.h).  LOG DUMPDIR (a curve input and a dump
 * root of its run): trend mode on LOG, DUMPDIR its a->curves_dump
 * (paths[1] kept, npaths 1).  0 (nothing done for other inputs), or -1
 * with err (also when the benchmark holds no curves). */
int loader_bench(struct session *a, struct pt_error *err);
/* Frees what loader_bench loaded (a->bench_ds, the pair). */
void loader_bench_free(struct session *a);
/* --patterns FILE: the trace patterns file read (src/io/trace/tpatterns_file.h)
 * into a->trace_patterns, which every load of the session then classifies
 * kernels and annotations with (a->lopts).  0 (also without the option),
 * or -1 with err ("FILE:LINE: ..." for a bad line): before any load. */
int loader_patterns(struct session *a, struct pt_error *err);
/* Frees them; after the load thread is joined. */
void loader_patterns_free(struct session *a);

#endif
