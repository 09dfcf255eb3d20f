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
enum steptrace_col {
    STEPTRACE_COMPUTE,      /* Computing */
    STEPTRACE_EXPOSED,      /* Communication(Not Overlapped) */
    STEPTRACE_OVERLAP,      /* Overlapped */
    STEPTRACE_COMM,         /* Communication */
    STEPTRACE_FREE,         /* Free */
    STEPTRACE_STAGE,        /* Stage */
    STEPTRACE_BUBBLE,       /* Bubble */
    STEPTRACE_EXCL,         /* Communication(Not Overlapped and Exclude Receive) */
    STEPTRACE_PREP,         /* Preparing */
    STEPTRACE_NCOLS
};
extern const char *const steptrace_col_names[STEPTRACE_NCOLS];   /* the CSV headers */
extern const char *const steptrace_target_names[STEPTRACE_NCOLS];  /* the cube targets */

struct steptrace_row {
    int32_t step, rank;
    uint32_t present;          /* bit per enum steptrace_col */
    double v[STEPTRACE_NCOLS];        /* microseconds */
};

struct steptrace_rows {
    struct steptrace_row *v;
    size_t n, cap;
};

/* One file's bytes (buf: len bytes, NUL-terminated, modified in place)
 * appended to rows.  cluster: the file is a cluster_step_trace_time.csv
 * (ranks from its Type/Index columns; rank is ignored); otherwise every
 * row is of rank.  path names the file in notes.  A bad header or bad rows
 * are notes in ds (dataset_warn), the rows read kept: returns the number of
 * rows added, or -1 without memory.  The file-free entry tests/fuzz feeds. */
long steptrace_parse(char *buf, size_t len, const char *path, int cluster, int32_t rank, struct dataset *ds,
                     struct steptrace_rows *rows);
void steptrace_rows_free(struct steptrace_rows *rows);

/* The rank a torch_npu profiling folder (the one holding
 * ASCEND_PROFILER_OUTPUT) names: its profiler_info_<R>.json, else
 * `rank[-_]?<R>` in its name; -1 when neither says. */
long steptrace_folder_rank(const char *dir);

#endif
