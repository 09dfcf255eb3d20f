/* trace_parse: one profiler trace file (Kineto chrome trace, plain or
 * gzip'ed; torch_npu trace_view.json) streamed through the pull tokenizer
 * into the compact records the trace reader assembles (read_trace.c):
 * device kernels, CPU launches (correlation -> time), ProfilerStep spans,
 * Megatron annotations, the rank and the time base.  Never holds the whole
 * file; never holds events it does not need. */
#ifndef PT_TRACE_PARSE_H
#define PT_TRACE_PARSE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/util/util.h"
#include "src/io/trace/trace_spill.h"

struct tpatterns;

struct trace_parse_kernel {
    int64_t start, dur;      /* ns, before the time base is added */
    int64_t corr;            /* args.correlation, -1 without */
    int32_t hta_ds, hta_de;  /* HTA's whole-us start and end less the exact ones, ns (see ts_frac) */
    uint32_t name;           /* index in the shared name table */
    uint16_t stream;
    uint8_t cat;             /* enum trace_cat */
    uint8_t hta_kernel;      /* cat kernel, gpu_memcpy, gpu_memset (HTA's kernels of the idle breakdown), or a torch_npu task */
    uint8_t pg;              /* communication: 1 + its process group in the file's pgs, 0 none */
    uint8_t p2p;             /* args "Collective name": 1 send, 2 recv, 0 neither */
    int32_t peer;            /* a send's or receive's peer (global rank), -1 unknown */
};
struct trace_parse_launch { int64_t corr, ts; int32_t hta_ds; /* HTA's whole-us start less ts, ns (see ts_frac) */ };
struct trace_parse_step { int32_t n; int64_t start, end; uint8_t gpu; /* a gpu_user_annotation copy */ };
struct trace_parse_anno { int64_t start, end; int32_t micro; uint8_t phase; };   /* micro: set by the trace reader */
/* A process group: from a kernel's "Process Group Name/Description" args
 * or distributedInfo.pg_config (config set: its ranks are known). */
struct trace_parse_pg {
    char *name, *desc;       /* owned; "" when absent */
    int32_t *ranks;          /* ascending (owned) */
    int nranks;
    uint8_t dim;             /* enum tpat_dim, from desc */
    uint8_t config;
};
/* The device end of a torch_npu launch flow (async_npu, ph "f"): on the
 * device stream tid, at ts inside the task it binds to. */
struct trace_parse_flow { int64_t id, ts, tid; };

/* Kernel names shared by every file of a run. */
struct trace_parse_names {
    struct util_smap map;    /* name -> index */
    char **v;
    uint8_t *cat;            /* by index: the name's category (enum trace_cat) */
    size_t n, cap, capcat;
    size_t bytes;            /* of the names held */
};
void trace_parse_names_free(struct trace_parse_names *nm);

struct trace_parse_file {
    int32_t rank;            /* distributedInfo.rank, -1 if absent */
    int64_t base_ns;         /* baseTimeNanoseconds, 0 if absent (already added to the steps, annotations
                                and flows; the kernels and launches get it when read back) */
    /* Kernels and launches, unsorted, in streams within the budget
     * (trace_spill.h); NULL when there is none. */
    struct trace_spill *kernels; size_t nkernels;
    struct trace_spill *launches; size_t nlaunches;
    struct trace_spill_budget *budget;   /* the load's (set by the caller, kept by trace_parse_file_free), or NULL: unbounded */
    struct trace_spill_budget own;       /* the unbounded one */
    const struct tpatterns *patterns;    /* set by the caller (kept by trace_parse_file_free), or NULL: the defaults */
    uint64_t split_min;      /* set by the caller: a plain file of at least this many bytes is parsed on
                                two threads (trace_split.h; the same records); 0: one */
    int split_merged;        /* it was: the two halves' records merged */
    struct trace_parse_pg *pgs; size_t npgs, cappgs;   /* at most 255 */
    char *pg_warn;           /* why distributedInfo.pg_config was left out, or NULL (owned) */
    struct trace_parse_step *steps; size_t nsteps, capsteps;
    struct trace_parse_anno *annos; size_t nannos, capannos;
    struct trace_parse_flow *flows; size_t nflows, capflows;
    uint64_t bytes;          /* bytes of the file read (compressed size for .gz) */
    size_t nneg;             /* events with a negative duration, skipped */
    size_t nbadts;           /* device events whose ts/dur was not a number (or beyond 73 years), skipped */
    size_t nlumped;          /* kernels whose name was new when the names held a quarter of the
                                budget: named TRACE_PARSE_LUMPED instead */
    int ts_frac;             /* some ts is written with a fraction: HTA then reads every time as a
                                double of us and rounds the start up and the end (start + dur, a
                                double sum) down to whole us: hta_ds, hta_de hold the effect */
};
void trace_parse_file_free(struct trace_parse_file *f);   /* all but f->budget and f->patterns */
/* Kernels ordered by correlation id (those without one first, by stream
 * then start), launches by correlation id: how the trace reader joins them. */
int trace_parse_cmp_kernel_corr(const void *a, const void *b);
int trace_parse_cmp_launch(const void *a, const void *b);

#define TRACE_PARSE_LUMPED "(one of the kernel names beyond --mem)"

/* Largest single JSON value (token, or skipped object) held at once. */
#define TRACE_PARSE_MAX_VALUE ((size_t)256 << 20)

/* Parses path (gzip when it starts with the gzip magic) into *f (zeroed by
 * the caller, budget set or NULL).  max_value: TRACE_PARSE_MAX_VALUE, or less in tests.  0, or -1 with
 * err naming the file and the byte. */
int trace_parse(const char *path, struct trace_parse_names *names, size_t max_value, atomic_int *cancel, struct trace_parse_file *f,
                  struct pt_error *err);

/* A time in microseconds (JSON number or numeric string, e.g. "1699529623106750.250")
 * as integer nanoseconds, exactly for up to three decimals.  0, or -1 when
 * it is no number or out of range. */
int trace_parse_us_to_ns(const char *s, size_t n, int64_t *out);

#endif
