/* read_steptrace: the step time tables of Ascend profiles
 * (probetop-formats(5), ASCEND STEP TIME CSV): torch_npu's per-rank
 * ASCEND_PROFILER_OUTPUT/step_trace_time.csv and msprof-analyze's
 * cluster_step_trace_time.csv, into the cube as metric `time`, statistics
 * `us` and `pct`, the targets named as for profiler traces where the
 * meaning is the same (compute, exposed_communication, overlapped,
 * communication, idle) plus bubble, stage, preparing and
 * communication_excl_receive.  Two rows of the reader table
 * (ascend_step, ascend_cluster) sharing one parser. */
#ifndef PT_READ_STEPTRACE_H
#define PT_READ_STEPTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"

/* The value columns, in cube target order. */
enum st_col {
    ST_COMPUTE,      /* Computing */
    ST_EXPOSED,      /* Communication(Not Overlapped) */
    ST_OVERLAP,      /* Overlapped */
    ST_COMM,         /* Communication */
    ST_FREE,         /* Free */
    ST_STAGE,        /* Stage */
    ST_BUBBLE,       /* Bubble */
    ST_EXCL,         /* Communication(Not Overlapped and Exclude Receive) */
    ST_PREP,         /* Preparing */
    ST_NCOLS
};
extern const char *const st_col_names[ST_NCOLS];   /* the CSV headers */
extern const char *const st_target_names[ST_NCOLS];  /* the cube targets */

struct st_row {
    int32_t step, rank;
    uint32_t present;          /* bit per enum st_col */
    double v[ST_NCOLS];        /* microseconds */
};

struct st_rows {
    struct st_row *v;
    size_t n, cap;
};

/* One file's bytes (buf: len bytes, NUL-terminated, modified in place)
 * appended to rows.  cluster: the file is a cluster_step_trace_time.csv
 * (ranks from its Type/Index columns; rank is ignored); otherwise every
 * row is of rank.  path names the file in notes.  A bad header or bad rows
 * are notes in ds (dataset_warn), the rows read kept: returns the number of
 * rows added, or -1 without memory.  The file-free entry tests/fuzz feeds. */
long steptrace_parse(char *buf, size_t len, const char *path, int cluster, int32_t rank, struct dataset *ds,
                     struct st_rows *rows);
void steptrace_rows_free(struct st_rows *rows);

/* The rank a torch_npu profiling folder (the one holding
 * ASCEND_PROFILER_OUTPUT) names: its profiler_info_<R>.json, else
 * `rank[-_]?<R>` in its name; -1 when neither says. */
long steptrace_folder_rank(const char *dir);

#endif
