/* tshard: what a trace shard file (probetop-formats(5), TRACE SHARDS)
 * keeps of a run without its kernels, and the join of the runs of several
 * shards into one.
 *
 * The lanes downsampled: each rank's span of each step (lanes_rank_span)
 * cut into TSHARD_SLICES equal slices, and per slice the share of it (per
 * mille) that kernels of each category (compute, communication, memory)
 * cover, kernels on several streams counted once.  Read back, a slice's
 * share becomes one segment per category from the slice's start, so the
 * lane view draws and walks them as it draws kernels (its status line says
 * the lanes are downsampled). */
#ifndef PT_MODEL_TSHARD_H
#define PT_MODEL_TSHARD_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/trace/trace.h"

/* 64 slices x 3 categories a (rank, step): about 800 bytes of JSON. */
#define TSHARD_SLICES 64
#define TSHARD_CATS 3   /* compute, communication, memory (enum trace_cat order) */

/* The downsampled lane of step index si of rank r: its span in *t0, *t1
 * and out[slice * TSHARD_CATS + cat] per mille (0..1000), nslices slices. */
void tshard_lanes(const struct trace_rank *r, int si, int nslices, int64_t *t0, int64_t *t1, uint16_t *out);

/* The downsampled lanes back into r->segs (replaced): per step s, span
 * t0[s]..t1[s] and shares[s * nslices * TSHARD_CATS ...]; the segments are
 * named name0 + cat, stream cat; each step's first/nsegs set.  0, or -1. */
int tshard_segs(struct trace_rank *r, const int64_t *t0, const int64_t *t1, const uint16_t *shares, int nslices,
                uint32_t name0, struct pt_error *err);

/* Called for each rank found in two parts: part is the later one, whose
 * copy is dropped (the first kept). */
typedef void (*tshard_dup_fn)(void *ctx, int part, int first_part, int32_t rank);

/* The runs parts[0..n) (consumed: freed, even on failure) joined into
 * *out: ranks ascending, every time on the earliest part's clock origin,
 * names one of each in the parts' order (shards given in their files'
 * order number the names as the unsharded run does, which orders the kernel
 * tables' ties), process groups one of each.  0, or -1 with err. */
int tshard_join(struct trace_run **parts, int n, struct trace_run **out, tshard_dup_fn dup, void *ctx,
                struct pt_error *err);

#endif
