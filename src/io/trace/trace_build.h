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

#include "model/cube/dataset.h"
#include "model/err.h"
#include "model/trace/tpatterns.h"
#include "model/trace/trace.h"
#include "src/io/trace/trace_parse.h"
#include "src/io/trace/trace_spill.h"

struct load_opts;

/* What the assembling of every rank shares: the patterns, which names
 * are EP communication, the kernel sink (probetop trace --kernels). */
struct trace_build_ctx {
    const struct tpatterns *pat;
    struct tpat_md *md;
    uint8_t *ep;             /* by run name index: 0 not asked yet, 1 no, 2 name_ep */
    char **names;            /* the run's names */
    size_t nnames;
    const struct load_opts *o;
    int has_micro;
};

/* One file of a rank and what its rank is assembling. */
struct trace_build_file {
    struct trace_parse_file *f;
    const uint32_t *to;      /* its kernel names in the run's table */
};
/* Rank r from its nf files (in their order): multi_step is whether HTA's
 * window applies (the run has two steps or more), synth that no file has a
 * ProfilerStep (the whole trace is step 0); *has_phase is set when a
 * kernel has a phase; the lane view keeps at most max_segs segments (more
 * kernels: merged); the kernels being sorted share bud.  Each file's
 * kernel and launch streams are freed.  0, or -1 with err. */
int trace_build_rank(struct trace_rank *r, struct trace_build_file *files, size_t nf, int multi_step, int synth, int *has_phase,
                     size_t max_segs, struct trace_spill_budget *bud, struct trace_build_ctx *x, struct dataset *ds,
                     struct pt_error *err);

#endif
