/* pool: a parallel for over n independent jobs (one rank folder each), on
 * the calling thread and up to three more (one fewer than the cores).  Each
 * thread takes the next index; the first failure stops the others taking
 * more.  PROBETOP_THREADS=N (1 to 4) sets the number of threads in all,
 * whatever the cores. */
#ifndef PT_UTIL_POOL_H
#define PT_UTIL_POOL_H

#include <stddef.h>

#include "model/err.h"

/* fn(ctx, i, e) for every i < n (in no fixed order; fn must only touch
 * what index i owns, or lock).  0, or -1 with the first failure's e in err. */
int util_pool_for(size_t n, int (*fn)(void *ctx, size_t i, struct pt_error *e), void *ctx, struct pt_error *err);
/* The threads in all (the calling one included) for a parallel job of at
 * most max threads: the cores, or PROBETOP_THREADS, at most max (1 at
 * least).  util_pool_for runs on util_pool_threads(4); a caller that runs
 * its own threads takes its count here, on the same terms. */
int util_pool_threads(int max);

#endif
