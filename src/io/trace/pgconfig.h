/* pgconfig: the process groups of a profiled run (probetop-formats(5),
 * PROFILER TRACES: Process groups): each rank's distributedInfo.pg_config
 * (Kineto writes the groups a rank belongs to, with their description and
 * ranks) and Megatron's group listing (unique_parallel_groups*.txt, as
 * Megatron-TraceViz's patch writes it, in the traces' folder or its
 * parent), joined into the run's groups by dimension (tensor, pipeline,
 * data, expert, context parallel); a group a kernel names that no
 * description places takes the dimension of the listed group with the same
 * ranks. */
#ifndef PT_IO_TRACE_PGCONFIG_H
#define PT_IO_TRACE_PGCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/err.h"
#include "model/trace/trace.h"
#include "src/io/trace/trace_parse.h"

/* Groups by (dimension, ranks), each once. */
struct pgconfig_set {
    struct trace_group *v;
    int n;
    size_t cap;
};
/* 0, or -1 out of memory (ranks ascending; copied). */
int pgconfig_add(struct pgconfig_set *s, int dim, const int32_t *ranks, int n);
void pgconfig_set_free(struct pgconfig_set *s);

/* Megatron's group listing (text): sections "TENSOR PARALLEL (TP) GROUPS",
 * "PIPELINE PARALLEL (PP) GROUPS", "DATA PARALLEL (DP) GROUPS", "EXPERT
 * PARALLEL (EP) GROUPS" (or "UNIQUE TP GROUPS", ...), each of lines
 * "Group <N>: [r, r, ...]".  Returns the groups added, -1 out of memory, -2
 * with err ("PATH:LINE: ...") on a group line that does not parse. */
int pgconfig_listing_parse(const char *text, size_t n, const char *path, struct pgconfig_set *s, struct pt_error *err);

/* The run's groups from the files' pg_config and the listing near path
 * into run->groups (run->groups_from says where); each file's groups
 * without a dimension take one by their ranks; a malformed pg_config or
 * listing is a warning in ds.  0, or -1 out of memory. */
int pgconfig_gather(struct trace_parse_file *const *files, size_t nf, const char *path, struct trace_run *run,
                    struct dataset *ds, struct pt_error *err);

#endif
