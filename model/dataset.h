/* dataset (types): what a path loads into, whatever its format -- the cube
 * plus what the panes and `info` need beside it (the dump records flagged
 * by the overflow rules, the per-(step, rank) folders, the files read and
 * skipped, the warnings) -- and what a load is asked to do.
 *
 * Plain data: the readers (src/io/) fill it, src/io/dataset.h loads and
 * frees it, the panes and commands read it.  Here so that readers' headers
 * and views need no reader header to name it. */
#ifndef PT_MODEL_DATASET_H
#define PT_MODEL_DATASET_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cube.h"
#include "model/layout.h"
#include "model/overflow.h"

enum ds_format { DS_AUTO, DS_DUMP, DS_MONITOR, DS_TRENDDB };

/* Progress: called from the loading thread with what is done of the total. */
typedef void (*ds_progress_fn)(void *ctx, size_t files_done, size_t files_total,
                               uint64_t bytes_done, uint64_t bytes_total);

struct load_opts {
    enum ds_format format;
    int micro_step;               /* 1 (msProbe's default) or 0 */
    const char *mapping;          /* --mapping FILE, or NULL */
    const char *db_name;          /* --db NAME inside a folder of .trend.db files */
    const struct layout *layout;  /* data2db --parallel: write `layers.<i>` as global layer
                                     indices (megatron-parallel.md §7); NULL = as dumped */
    int threads;                  /* 0 = one per core */
    ds_progress_fn progress;
    void *progress_ctx;
    atomic_int *cancel;           /* set non-zero to stop; load fails with "cancelled" */
};

/* One rank directory of a dump. */
struct ds_rankdir {
    int32_t step;
    int32_t rank;                 /* after proc renumbering */
    char *dir;                    /* the stepN/rankN folder */
    int has_construct, has_stack;
};

struct dataset {
    enum ds_format format;
    char *path;
    char *source;                 /* the file actually opened (trend.db), or path */
    int micro_step;
    struct cube *cube;            /* owned */
    struct ovf_list ovf;          /* dump only, sorted */
    int ovf_levels;               /* 1 when levels are known (dumps) */
    struct ds_rankdir *rankdirs;  /* dump only */
    size_t nrankdirs;
    char **dbfiles;               /* trenddb folder: every *.trend.db, sorted */
    size_t ndbfiles;
    char *framework, *level, *task;   /* dump.json header of the first file (may be NULL) */
    size_t files_read;
    char **skipped;  size_t nskipped;   /* paths not loaded */
    char **warnings; size_t nwarnings;  /* one line each */
    size_t *warnidx; size_t warnidx_cap;  /* hash table of warnings (index + 1), for dedup (private) */
    uint64_t bytes_read;
    double load_seconds;
};

#endif
