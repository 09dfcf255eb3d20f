/* trace_shard: `probetop trace --shard K/N -o DIR` and `--merge DIR`
 * (probetop(1), TRACE; probetop-formats(5), TRACE SHARDS).  A task takes
 * the K-th of N contiguous blocks of the folder's trace files (in name
 * order, as data2db --shard takes a block of ranks) and writes its
 * run without its kernels (src/io/trace/shard_json.h: breakdown, cube, tables, lanes downsampled)
 * to DIR/trace.shard-K-of-N.json (a temporary name, then renamed); the
 * merge reads shards as the shard reader does and prints the run or writes
 * it as one shard file. */
#ifndef PT_CMD_TRACE_SHARD_H
#define PT_CMD_TRACE_SHARD_H

#include <stddef.h>

#include "model/cube/dataset.h"
#include "src/io/trace/shard_json.h"

/* A folder of links to the shard's trace files, made in outdir:
 * its path in indir (cap bytes); *nfiles the files linked, *total in the
 * folder.  0, or -1 with a message on stderr. */
int trace_shard_inputs(const char *path, int k, int n, const char *outdir, char *indir, size_t cap,
                       size_t *nfiles, size_t *total, char hash[17]);
/* Removes that folder and its links. */
void trace_shard_inputs_free(const char *indir);
/* The ranks' files named under src (the folder given) instead of the
 * links' folder indir, for the shard file.  0, or -1 out of memory. */
int trace_shard_files(struct trace_run *run, const char *indir, const char *src);
/* The shard file's name in outdir (cap bytes), and its temporary name. */
void trace_shard_name(const char *outdir, int k, int n, char *out, size_t cap);
/* Writes ds's run as the shard file name (a temporary name, then
 * renamed).  0, or -1 with a message on stderr. */
int trace_shard_write(const char *name, const struct dataset *ds, const struct shard_json_info *info);
/* --merge: the shards of paths[0..n) (folders of shards, shard files) as
 * one run in *res (its warnings said on stderr); with out, written to the
 * shard file out instead (*res NULL).  0, or -1 with a message. */
int trace_shard_merge(char *const *paths, int n, const char *out, struct dataset **res);

#endif
