/* trace: the per-rank kernel timeline of a profiled run (profiler traces:
 * PyTorch/Kineto chrome traces, torch_npu's trace_view.json).
 *
 * Plain data that the trace reader (src/io/trace/read_trace.c) fills and the
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

struct kernels_table;
struct idle_table;

/* Kernel categories.  TRACE_IDLE names gaps (no segment has it). */
enum trace_cat { TRACE_COMPUTE, TRACE_COMM, TRACE_MEMORY, TRACE_IDLE, TRACE_NCATS };

/* Megatron phases of a kernel (probetop-rules(7), PROFILER TRACES: Phases):
 * from the CPU annotation enclosing its launch and, for communication, its
 * process group (model/trace/tpatterns.h). */
enum trace_phase {
    TRACE_PH_NONE,        /* no annotation (or none of the known ones) */
    TRACE_PH_FORWARD,     /* forward_step */
    TRACE_PH_BACKWARD,    /* backward_step */
    TRACE_PH_PP_COMM,     /* send_/recv_forward, send_/recv_backward; the pipeline group */
    TRACE_PH_DP_COMM,     /* "dp_grad": start/finish_grad_sync, finalize_model_grads; a data-parallel group */
    TRACE_PH_OPTIMIZER,   /* optimizer */
    TRACE_PH_RECOMPUTE,   /* activation recomputation inside a backward pass */
    TRACE_PH_DP_PARAM,    /* start/finish_param_sync (distributed optimizer) */
    TRACE_PH_TP_COMM,     /* tensor-parallel communication (forward/backward) */
    TRACE_PH_EP_COMM,     /* expert-parallel communication */
    TRACE_PH_CP_COMM,     /* context-parallel communication */
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

/* HTA's breakdown of a set of kernels (probetop-rules(7), PROFILER TRACES:
 * Temporal breakdown).  "Union" is the time at least one kernel of the set
 * runs, overlapping kernels (streams) counted once. */
struct trace_stats {
    int64_t kernel_ns;            /* the span: last kernel end - first kernel start */
    int64_t idle_ns;              /* kernel_ns - union of all kernels */
    int64_t cat_ns[TRACE_NCATS];  /* union per category; [TRACE_IDLE] = idle_ns */
    int64_t non_compute_ns;       /* kernel_ns - compute - idle */
    int64_t overlap_ns;           /* compute and communication at once */
    int64_t phase_ns[TRACE_NPHASES][TRACE_NCATS];   /* union per phase and category */
    int64_t phase_overlap_ns[TRACE_NPHASES];        /* the phase's compute and communication at once */
    int64_t phase_span_ns[TRACE_NPHASES];           /* its last kernel's end less its first kernel's start */
    uint32_t count[TRACE_NCATS];  /* kernels per category; [TRACE_IDLE] = idle gaps */
    uint32_t phase_count[TRACE_NPHASES][TRACE_NCATS];
    size_t nkernels;
};

/* One ProfilerStep#N of a rank. */
struct trace_step {
    int32_t step;                 /* N */
    int64_t start_ns, end_ns;     /* the step on the device: from the first kernel launched
                                     in the step to the next step's start (the last step: to
                                     the end of its last kernel); the CPU annotation's span
                                     when no kernel is linked to its launch */
    size_t first, nsegs;          /* into the rank's segs (sorted by start): the kernels
                                     that start inside [start_ns, end_ns) */
    int64_t cpu_start_ns, cpu_end_ns;   /* the ProfilerStep#N annotation itself */
    struct trace_stats stats;     /* of segs[first .. first + nsegs) */
};

/* A pipeline send or receive of a rank: a communication kernel whose args
 * name it ("Collective name" send or recv) and its peer ("Dst Rank", "Src
 * Rank", or "Rank" in its group): what the pipeline view pairs its links
 * by (model/trace/p2p.h). */
struct trace_p2p {
    int64_t start_ns, dur_ns;     /* as its kernel's */
    uint64_t pg;                  /* util_hash_str of its process group's name, 0 none */
    int32_t peer;                 /* the peer's global rank */
    uint8_t send;                 /* 1 send, 0 receive */
};

struct trace_rank {
    int32_t rank;
    char *file;                   /* the trace file it came from (owned) */
    struct trace_step *steps;     /* ascending start (owned) */
    int nsteps;
    struct trace_seg *segs;       /* ascending start_ns, ties by stream (owned): the kernels,
                                     merged when lane_merge_ns (the figures are exact either way) */
    size_t nsegs;
    struct trace_stats total;     /* the rank's figures over HTA's window: the kernels
                                     launched before the last ProfilerStep starts (all of
                                     them when the run has fewer than two steps) */
    size_t nwindow;               /* kernels in that window */
    size_t nkernels;              /* every kernel of the rank */
    int64_t lane_merge_ns;        /* 0: segs holds every kernel; else more kernels than --mem
                                     holds for the lane view: per stream, those starting in one
                                     slice of this many ns of a step are one segment */
    struct kernels_table *kernels;   /* HTA's kernel tables over the window (model/trace/kernels.h; owned) */
    struct idle_table *idle;         /* HTA's idle breakdown per stream over the window (model/trace/idle.h; owned) */
    struct trace_micro *micros;   /* by step (as steps[]) then micro (-1 first): the
                                     micro-batches' figures, where the run has them (owned) */
    size_t nmicros;
    struct trace_p2p *p2p;        /* its sends and receives with a peer, ascending start (owned) */
    size_t np2p;
};

/* A micro-batch of a step on a rank (probetop-rules(7), PROFILER TRACES:
 * Micro-batches): micro k holds the kernels launched in the k-th
 * forward_step and k-th backward_step of the step (and what nests in them:
 * recomputation, TP/EP communication); micro -1 the step's other kernels
 * (pipeline sends and receives, gradient and parameter sync, optimizer). */
struct trace_micro {
    int32_t step, micro;
    struct trace_stats stats;     /* kernel_ns is the span from its first kernel's start to its last's end */
};

/* A process group of the run (distributedInfo.pg_config, Megatron's group
 * listing) with a parallel dimension (enum tpat_dim). */
struct trace_group {
    uint8_t dim;
    int nranks;
    int32_t *ranks;               /* ascending (owned) */
};

struct trace_run {
    struct trace_rank *ranks;     /* ascending rank (owned) */
    int nranks;
    char **names;                 /* kernel names, each owned */
    size_t nnames;
    int has_phases;               /* some kernel has a phase (Megatron annotations) */
    int has_micro;                /* some step has a micro-batch (forward_step/backward_step) */
    struct trace_group *groups;   /* the process groups found, by dimension then first rank (owned) */
    int ngroups;
    char *groups_from;            /* where they came from: "pg_config", a listing's path, ... (owned) */
    int64_t origin_ns;            /* the trace clock's time all others are relative to (a shard's, for the merge) */
    int lane_slices;              /* 0: segs are the kernels; else the run came from trace shard files and
                                     segs are their downsampled lanes, this many slices a step (tshard.h) */
};

/* One kernel as the trace reader assembles it (load_opts.trace_kernel):
 * the trace's own clock (baseTimeNanoseconds added), before the run's
 * times are made relative to its first event. */
struct trace_kernel_row {
    int32_t rank, step, micro;    /* micro -1: in no micro-batch */
    int has_step;                 /* 0: starts in no step */
    const struct trace_seg *seg;
    const char *name;
};

/* Frees everything run owns, and run itself (NULL is fine). */
void trace_run_free(struct trace_run *run);

/* The distinct step numbers of every rank of run, ascending: *steps
 * (freed first, then owned by the caller; never NULL on success) and
 * *n.  0, or -1 when out of memory (*steps NULL, *n 0). */
int trace_run_steps(const struct trace_run *run, int32_t **steps, int *n);

/* The union of intervals fed in ascending start order (HTA's merge: a new
 * interval begins when a start is past every end so far).  The times are
 * held offset by 2^63, as unsigned numbers (the same order): the zeroed
 * union is then an empty interval at the earliest time, which the first
 * interval (any time above INT64_MIN) follows as a new group, and its
 * total is 0 without a test. */
struct iv_union {
    uint64_t start, end, sum;
    uint32_t groups;
};
/* The breakdown built one kernel at a time, in ascending start order (a
 * trace's kernels stream through it: trace_spill.h). */
struct trace_acc {
    struct iv_union all, cat[TRACE_NCATS], cc;
    int64_t first, last;
    uint32_t ph_seen;         /* bit p: phase p has a kernel (its members below set) */
    struct trace_stats out;   /* the counts so far */
    /* per phase, from here on: set by its first kernel (trace_acc_init
     * leaves them as they were) */
    struct iv_union ph[TRACE_NPHASES][TRACE_NCATS], phcc[TRACE_NPHASES];
    int64_t ph_first[TRACE_NPHASES], ph_last[TRACE_NPHASES];
};
void trace_acc_init(struct trace_acc *a);
void trace_acc_add(struct trace_acc *a, const struct trace_seg *g);
/* trace_acc_add(a, g) and trace_acc_add(b, g) in one call (a step's and
 * its micro-batch's figures: each kernel goes to both), the kernel's
 * times, category and phase taken once; a and b distinct. */
void trace_acc_add2(struct trace_acc *restrict a, struct trace_acc *restrict b, const struct trace_seg *g);
/* trace_acc_add2(a, b, g) and trace_acc_add(w, h) in one call (with HTA's
 * window's figures too: h is g on HTA's whole-us times, its category and
 * phase g's); a, b and w distinct. */
void trace_acc_add3(struct trace_acc *restrict a, struct trace_acc *restrict b, const struct trace_seg *g, struct trace_acc *restrict w,
                    const struct trace_seg *h);
void trace_acc_finish(const struct trace_acc *a, struct trace_stats *out);

/* The breakdown of n kernels sorted by start (those with keep[i] set, or
 * all when keep is NULL) into *out. */
void trace_stats_of(const struct trace_seg *segs, size_t n, const uint8_t *keep, struct trace_stats *out);
/* Communication hidden under computation, in % of the communication time
 * (HTA's comm/comp overlap); NaN when there is no communication. */
double trace_overlap_pct(const struct trace_stats *s);

/* The category of a device kernel by its name (probetop-rules(7), PROFILER
 * TRACES: Kernel categories), HTA's rules: TRACE_COMM, TRACE_MEMORY (also
 * for what HTA calls "other": synchronisation and DMA events) or
 * TRACE_COMPUTE. */
int trace_classify(const char *name, size_t len);
/* The Megatron phase of a CPU annotation by its name, TRACE_PH_NONE if none
 * (the default patterns of tpatterns.h, without a patterns file). */
int trace_phase_of(const char *name, size_t len);

/* A rank's work in a step: its kernel time less the communication no
 * computation hides (mostly waiting for the other ranks). */
int64_t trace_work_ns(const struct trace_stats *s);

/* The straggler of a step: the rank with the most work. */
struct trace_straggler {
    int32_t step;
    int32_t rank;
    int64_t work, median;   /* its work, and the median rank's */
    int nranks;             /* ranks with kernels in the step */
};
/* One per step number of any rank, ascending; *out is malloc'd (free it).
 * 0, or -1 out of memory. */
int trace_stragglers(const struct trace_run *run, struct trace_straggler **out, size_t *nout);

/* "compute", "communication", "memory", "idle" ("?" out of range): the
 * cube's target names. */
const char *trace_cat_name(int cat);
/* "none", "forward", "backward", "pp_comm", "dp_grad", "optimizer",
 * "recompute", "dp_param", "tp_comm", "ep_comm", "cp_comm" ("?" out of
 * range): the cube's target prefixes. */
const char *trace_phase_name(int phase);

#endif
