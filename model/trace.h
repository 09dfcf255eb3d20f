/* trace: the per-rank kernel timeline of a profiled run (profiler traces:
 * PyTorch/Kineto chrome traces, torch_npu's trace_view.json).
 *
 * Plain data that the trace reader (src/io/read_trace.c) fills and the
 * views and `probetop trace` read.  One rank = its device kernels (GPU or
 * NPU), each classified into a category (computation, communication,
 * memory: probetop-rules(7), PROFILER TRACES) and, where Megatron CPU
 * annotations are present, a phase (forward, backward, pipeline or data-
 * parallel communication, optimizer).  Idle time is never stored: it is
 * every gap between kernels (on every stream) inside a step.
 *
 * Times are nanoseconds from one origin shared by every rank of the run
 * (the traces' own clock: absolute, or relative to baseTimeNanoseconds),
 * so ranks line up on one axis. */
#ifndef PT_MODEL_TRACE_H
#define PT_MODEL_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* Kernel categories.  TRACE_IDLE names gaps (no segment has it). */
enum trace_cat { TRACE_COMPUTE, TRACE_COMM, TRACE_MEMORY, TRACE_IDLE, TRACE_NCATS };

/* Megatron phases of a kernel, from the CPU annotation enclosing its launch. */
enum trace_phase {
    TRACE_PH_NONE,        /* no annotation (or none of the known ones) */
    TRACE_PH_FORWARD,     /* forward_step */
    TRACE_PH_BACKWARD,    /* backward_step */
    TRACE_PH_PP_COMM,     /* send_/recv_forward, send_/recv_backward */
    TRACE_PH_DP_COMM,     /* start_grad_sync, finish_grad_sync */
    TRACE_PH_OPTIMIZER,   /* optimizer */
    TRACE_NPHASES
};

/* One device kernel (or memcpy/memset). */
struct trace_seg {
    int64_t start_ns, dur_ns;
    uint32_t name;        /* index in run->names */
    uint8_t cat;          /* enum trace_cat (never TRACE_IDLE) */
    uint8_t phase;        /* enum trace_phase */
    uint16_t stream;      /* the device stream (Kineto tid), clamped to 65535 */
};

/* One ProfilerStep#N of a rank. */
struct trace_step {
    int32_t step;                 /* N */
    int64_t start_ns, end_ns;     /* the CPU annotation's span */
    size_t first, nsegs;          /* into the rank's segs (sorted by start): the kernels
                                     that start inside [start_ns, end_ns) */
};

struct trace_rank {
    int32_t rank;
    char *file;                   /* the trace file it came from (owned) */
    struct trace_step *steps;     /* ascending start (owned) */
    int nsteps;
    struct trace_seg *segs;       /* ascending start_ns, ties by stream (owned) */
    size_t nsegs;
};

struct trace_run {
    struct trace_rank *ranks;     /* ascending rank (owned) */
    int nranks;
    char **names;                 /* kernel names, each owned */
    size_t nnames;
};

/* Frees everything run owns, and run itself (NULL is fine). */
void trace_run_free(struct trace_run *run);

/* "compute", "communication", "memory", "idle" ("?" out of range): the
 * cube's target names. */
const char *trace_cat_name(int cat);
/* "none", "forward", "backward", "pp_comm", "dp_comm", "optimizer" ("?"
 * out of range): the cube's target prefixes. */
const char *trace_phase_name(int phase);

#endif
