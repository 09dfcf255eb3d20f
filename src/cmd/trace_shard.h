/* trace_shard: `probetop trace --shard K/N -o DIR` and `--merge DIR`
 * (probetop(1), TRACE; probetop-formats(5), TRACE SHARDS).  A task takes
 * the K-th of N contiguous blocks of the folder's trace files (in name
 * order, as data2db --shard takes a block of ranks) and writes its
 * `trace --format json --per-step --top 0` figures, with its clock origin,
 * to DIR/trace.shard-K-of-N.json (a temporary name, then renamed); the
 * merge joins a complete set into the JSON of the unsharded run. */
#ifndef PT_CMD_TRACE_SHARD_H
#define PT_CMD_TRACE_SHARD_H

#include <stddef.h>

/* A folder of links to the shard's trace files, made in outdir:
 * its path in indir (cap bytes); *nfiles the files linked, *total in the
 * folder.  0, or -1 with a message on stderr. */
int trace_shard_inputs(const char *path, int k, int n, const char *outdir, char *indir, size_t cap,
                       size_t *nfiles, size_t *total);
/* Removes that folder and its links. */
void trace_shard_inputs_free(const char *indir);
/* The shard file's name in outdir (cap bytes), and its temporary name. */
void trace_shard_name(const char *outdir, int k, int n, char *out, size_t cap);
/* Joins the complete set of shards in dir and prints the JSON of the
 * unsharded run (top: kernels per rank before `others`, 0 all).  0, or -1
 * with a message on stderr. */
int trace_shard_merge(const char *dir, size_t top);

#endif
