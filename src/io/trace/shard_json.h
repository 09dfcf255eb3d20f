/* shard_json: the trace shard file (probetop-formats(5), TRACE SHARDS),
 * written by `probetop trace --shard K/N -o DIR` (and by `--merge ... -o
 * FILE`) and read back by the shard reader (read_shard.c).
 *
 * Version 2: what the analyzer needs of the shard's ranks without their
 * kernels: per rank its breakdown over HTA's window, per step and per
 * micro-batch the breakdown the cube's targets come from (every category,
 * phase.category, overlap, counts, in integer nanoseconds), HTA's kernel
 * and idle tables, and the lanes downsampled (model/trace/tshard.h); the
 * run's process groups, kernel names and warnings; the shard's place in its
 * set (K of N, the trace files of the whole folder and a hash of their
 * names, so that shards of two runs are told apart). */
#ifndef PT_SHARD_JSON_H
#define PT_SHARD_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/err.h"
#include "model/trace/trace.h"

#define SHARD_JSON_FORMAT "probetop-trace-shard"
#define SHARD_JSON_VERSION 2

struct shard_json_info {
    int k, n;             /* shard K of N (1 of 1: a merged file) */
    long files;           /* trace files in the whole folder (0: unknown) */
    char hash[17];        /* of their names (hex; "" unknown): one run's shards share it */
};

/* The FNV-1a hash of the names v[0..n) (in that order) as 16 hex digits. */
void shard_json_hash(char *const *v, size_t n, char out[17]);

/* Writes run (with warnings w[0..nw)) as a shard file to f.  0, or -1
 * (f's error). */
int shard_json_write(FILE *f, const struct trace_run *run, const struct shard_json_info *info, char *const *w, size_t nw);

/* Parses a shard file's text (what names it in messages) into *out
 * (the caller's, trace_run_free), its place into *info and its warnings
 * through warn (ctx).  0, or -1 with err naming what and the place; -2
 * when the file is a shard of another format version (this probetop
 * cannot read it: not damage). */
int shard_json_parse(const char *text, size_t len, const char *what, struct trace_run **out, struct shard_json_info *info,
                     void (*warn)(void *ctx, const char *msg), void *ctx, struct pt_error *err);

#endif
