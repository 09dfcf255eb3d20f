/* trace_build: one rank of a profiler trace assembled from its parsed
 * files (trace_parse.h) into the run's per-rank timeline
 * (model/trace/trace.h): kernels joined to their CPU launch by correlation
 * id (step, Megatron phase, micro-batch, HTA's window), steps placed on the
 * device timeline, the figures of every step and of HTA's window, the
 * kernel and idle tables, the sends and receives, and the lane view's
 * segments (merged beyond --mem).  read_trace.c finds, parses and orders
 * the files and calls this once per rank. */
#ifndef PT_IO_TRACE_BUILD_H
#define PT_IO_TRACE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/trace/tpatterns.h"
#include "model/trace/trace.h"
#include "src/io/trace/trace_parse.h"
#include "src/io/trace/trace_spill.h"

struct load_opts;

/* What the assembling of every rank shares, read only (ranks are built on
 * several threads at once): the patterns, the run's names, the kernel sink
 * (probetop trace --kernels; when set, the ranks are built one after
 * another, in order, for its rows' order). */
struct trace_build_ctx {
    const struct tpatterns *pat;
    char **names;            /* the run's names */
    size_t nnames;
    const struct load_opts *o;
    int spare;               /* a thread to spare for each rank's build (one rank on two threads): its window's figures summed on it */
    struct util_shelf *shelf;   /* the kernels' buffers of ranks built, for the next (thread-safe; NULL: none) */
};

/* What a rank's build found that the run takes: said after the build, in
 * rank order, so the warnings come out in the same order on any number of
 * threads. */
struct trace_build_out {
    int has_phase;           /* a kernel has a phase */
    int has_micro;           /* a kernel has a micro-batch */
    size_t dup_steps;        /* ProfilerStep#N numbers met more than once (the first kept) */
};

/* One file of a rank and what its rank is assembling. */
struct trace_build_file {
    struct trace_parse_file *f;
    const uint32_t *to;      /* its kernel names in the run's table */
};
/* Rank r from its nf files (in their order): multi_step is whether HTA's
 * window applies (the run has two steps or more), synth that no file has a
 * ProfilerStep (the whole trace is step 0); the lane view keeps at most
 * max_segs segments (more kernels: merged); the kernels being sorted share
 * bud (thread-safe).  Touches only r, its files and *out: ranks may be
 * built in parallel.  Each file's kernel and launch streams are freed.
 * 0, or -1 with err. */
int trace_build_rank(struct trace_rank *r, struct trace_build_file *files, size_t nf, int multi_step, int synth,
                     size_t max_segs, struct trace_spill_budget *bud, const struct trace_build_ctx *x,
                     struct trace_build_out *out, struct pt_error *err);

#endif
