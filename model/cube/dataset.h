/* dataset (types): what a path loads into, whatever its format -- the cube
 * plus what the panes and `info` need beside it (the dump records flagged
 * by the overflow rules, the per-(step, rank) folders, the files read and
 * skipped, the warnings) -- and what a load is asked to do.
 *
 * Plain data: the readers (src/io/) fill it, src/io/load.h loads it, the
 * panes and commands read it; the notes a reader appends and the free are
 * here (model/cube/dataset.c).  Here so that readers' headers and views
 * need no reader header to name it. */
#ifndef PT_MODEL_DATASET_H
#define PT_MODEL_DATASET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/overflow/anomaly.h"
#include "model/cube/cube.h"
#include "model/layout/layout.h"
#include "model/cube/names.h"
#include "model/overflow/origin_cap.h"
#include "model/overflow/overflow.h"
#include "model/trace/trace.h"
#include "model/curves/curves.h"

#define LOAD_MAX_PATTERNS 32   /* --pattern options of one command */

/* One row of the reader table (src/io/formats.h): the model only points at it. */
struct formats_row;
struct mon_cache;
struct curves_cache;       /* src/io/curves/curves_cache.h */
struct dump_cache;

/* Progress: called from the loading thread with what is done of the total. */
typedef void (*ds_progress_fn)(void *ctx, size_t files_done, size_t files_total,
                               uint64_t bytes_done, uint64_t bytes_total);

struct tpatterns;
struct trace_kernel_row;

struct load_opts {
    const struct formats_row *format;   /* forced (--format), or NULL: detect */
    int micro_step;               /* 1 (msProbe's default) or 0 */
    const char *mapping;          /* --mapping FILE, or NULL */
    const char *db_name;          /* --db NAME inside a folder of .trend.db files */
    const struct layout *layout;  /* data2db --parallel: write `layers.<i>` as global layer
                                     indices (probetop-rules(7), MEGATRON LAYOUT: Layer names); NULL = as dumped */
    int threads;                  /* 0 = one per core */
    ds_progress_fn progress;
    void *progress_ctx;
    atomic_int *cancel;           /* set non-zero to stop; load fails with "cancelled" */
    int shard_k, shard_n;         /* data2db --shard K/N (1-based); shard_n 0: the whole run */
    int lazy;                     /* a .trend.db answers by slices (model/cube/cube_lazy.h) */
    int snapshot;                 /* a .trend.db is read from a private copy (src/io/common/sqlite_ro.h):
                                     it changed while it was read in place */
    uint64_t mem_budget;          /* lazy: bytes the whole cube may take to be filled in memory */
    /* Progressive loading (the app): read only the first max_steps step
     * groups (dump step folders, monitor CSV files by their first step);
     * the reader sets ds->more when it left some out.  0 = everything. */
    int max_steps;
    int max_files;                /* and at most this many rank folders of a dump (0 = any) */
    int overflow_only;            /* dumps: the cube gets the steps and ranks but no rows (the
                                     overflow command reads only the overflow records and the
                                     origin search, never the cube's cells) */
    int summary;                  /* monitor trees (info): the cube gets its axes, metrics and each
                                     metric's targets but no cells (vals NULL), ds->nonfinite what
                                     info counts of them */
    int trace_axes_only;          /* traces (probetop trace, whose tables come from ds->trace): the
                                     cube's axes only, no cell (model/trace/trace_cube.h) */
    int origin_keep;              /* dumps: keep each rank's record names and value offsets
                                     (ds_rankdir.ocap), so that the origin search does not
                                     read the files whole again (src/io/dump/ovf_origin.h) */
    /* Follow mode: the input may still be written.  A file changed less
     * than DS_SETTLE_SECONDS ago that does not parse yet, or a CSV's last
     * row without its line end, is "pending" (ds->pending), not a warning. */
    int follow;
    /* Monitor trees: the parsed CSV files kept between loads (owned by
     * the caller; src/io/monitor/mon_cache.h), so that a reload parses only what
     * changed.  NULL: each load parses everything. */
    struct mon_cache *mon_cache;
    /* Dumps: the parsed rank folders kept between loads, within a memory
     * budget (src/io/dump/dump_cache.h); NULL: each load parses everything. */
    struct dump_cache *dump_cache;
    /* Training curves in follow mode: the points and reader state kept
     * between loads (src/io/curves/curves_cache.h), so that a reload reads
     * only what was appended.  NULL: each load reads everything. */
    struct curves_cache *curves_cache;
    /* Text training logs: --pattern NAME=REGEX, in the order given (not
     * owned; before the patterns file's: probetop-formats(5), TRAINING
     * CURVES).  load_opts_add_pattern() appends. */
    const char *patterns[LOAD_MAX_PATTERNS];
    int npatterns;
    /* Profiler traces: the classification patterns (model/trace/tpatterns.h;
     * NULL: the defaults), and a sink for every kernel as the reader
     * assembles it (probetop trace --kernels; NULL: none), which may fail
     * the load with err. */
    const struct tpatterns *trace_patterns;
    int (*trace_kernel)(void *ctx, const struct trace_kernel_row *k, struct pt_error *err);
    void *trace_kernel_ctx;
};

/* How long a broken file must stay unchanged before follow mode reports
 * it (probetop(1), FOLLOW MODE). */
#define DS_SETTLE_SECONDS 10

/* One rank directory of a dump. */
struct ds_rankdir {
    int32_t step;
    int32_t rank;                 /* after proc renumbering */
    char *dir;                    /* the stepN/rankN folder */
    int has_construct, has_stack;
    struct origin_cap *ocap;      /* what the load kept of its records for the origin
                                     search (load_opts.origin_keep), or NULL */
};

struct dataset {
    const struct formats_row *format;   /* the row that loaded it */
    enum label_rules labels;      /* how labels derive from its names: the row's, or what
                                     the reader found (a .trend.db of either kind) */
    char *path;
    char *source;                 /* the file actually opened (trend.db), or path */
    int micro_step;
    struct cube *cube;            /* owned */
    struct ovf_list ovf;          /* dump only, sorted */
    struct anomaly_list anomalies;   /* monitor only: msProbe's anomaly reports, in its
                                        first-anomaly order, placed on the cube */
    int ovf_levels;               /* 1 when levels are known (dumps) */
    struct ds_rankdir *rankdirs;  /* dump only */
    size_t nrankdirs;
    char **dbfiles;               /* trenddb folder: every *.trend.db, sorted */
    size_t ndbfiles;
    struct trace_run *trace;      /* owned; profiler traces only (model/trace/trace.h) */
    struct curves *curves;        /* owned; training curves only (model/curves/curves.h) */
    char *framework, *level, *task;   /* dump.json header of the first file (may be NULL) */
    size_t files_read;
    char **skipped;  size_t nskipped;   /* paths not loaded */
    char **partial;  size_t npartial;   /* paths loaded but for a cut end (a CSV's last
                                           row without its line end, the writer gone) */
    char **warnings; size_t nwarnings;  /* one line each */
    size_t *warnidx; size_t warnidx_cap;  /* hash table of warnings (index + 1), for dedup (private) */
    uint64_t bytes_read;
    size_t notensor_rows;         /* rows that describe no tensor (monitor placeholders, a .trend.db's
                                     all-NULL targets): missing data, not NaN (probetop-rules(7),
                                     OVERFLOW LEVELS) */
    size_t *nonfinite;            /* load_opts.summary: each metric's non-finite cells, counted by
                                     the reader (the cube has no cells); else NULL */
    double load_seconds;
    int follow;                   /* load_opts.follow and .max_steps, for readers that get */
    int max_steps;                /* only the dataset (set by load_dataset) */
    size_t more;                  /* loaded with max_steps / max_files: how many steps (monitor
                                     trees) or rank folders (dumps) were left out, 0 none */
    char **pending;  size_t npending;   /* "path: why": still being written (follow mode) */
};

void dataset_free(struct dataset *d);
/* Appends a warning / skipped path (copied). 0 ok, -1 no memory. */
int dataset_warn(struct dataset *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int dataset_skip(struct dataset *d, const char *path);
/* Notes a file read but for its cut end (copied); the reader warns with
 * the place.  A gate cannot pass on it (probetop(1), EXIT STATUS). */
int dataset_partial(struct dataset *d, const char *path);
/* Notes a file still being written ("path: why", copied). 0 ok, -1 no memory. */
int dataset_pending(struct dataset *d, const char *path, const char *why);

#endif
