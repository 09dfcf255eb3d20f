/* read_shard: the reader of trace shard files (probetop-formats(5), TRACE
 * SHARDS): a folder of trace.shard-K-of-N.json, or one shard file, opens
 * as one run (its row formats_row_trace_shard).  The merge of `probetop
 * trace --merge` reads through it too. */
#ifndef PT_READ_SHARD_H
#define PT_READ_SHARD_H

#include <stdatomic.h>

#include "model/cube/dataset.h"
#include "model/err.h"
#include "src/io/formats.h"

/* The shard files' run of each of paths[0..n) (folders of shards or shard
 * files) joined into ds->trace (ds->cube not built: load does that).
 * Missing, damaged or doubled shards and ranks are warnings in ds; 0, or -1
 * with err (nothing readable, shards of two runs, another format version;
 * "cancelled" when *cancel is set, cancel NULL: never). */
int read_shard_paths(char *const *paths, int n, atomic_int *cancel, struct dataset *ds, struct pt_error *err);

#endif
