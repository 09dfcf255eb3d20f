/* kernels: HolisticTraceAnalysis's kernel tables of a rank
 * (probetop-rules(7), PROFILER TRACES: Kernel types, Top kernels): the time each combination of
 * kernel types runs (computation alone, communication alone, computation
 * overlapping communication, ...: HTA's get_gpu_kernel_breakdown first table)
 * and, per kernel name, its count and total, longest, shortest and mean
 * duration (its second table).
 *
 * Built one kernel at a time in ascending start order, as the trace reader
 * streams a rank's kernels (src/io/trace/read_trace.c): nothing is held per
 * kernel, only per name. */
#ifndef PT_MODEL_KERNELS_H
#define PT_MODEL_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "model/trace/trace.h"

/* HTA's kernel types.  KERNELS_OTHER (synchronisation, event waits) is in
 * neither table, as in HTA. */
enum kernels_type { KERNELS_COMPUTATION, KERNELS_COMMUNICATION, KERNELS_MEMORY, KERNELS_OTHER, KERNELS_NTYPES };

/* The sets of the three tabled types, a bit each (1 << type): mask_ns[m] is
 * the time exactly the types of m run. */
#define KERNELS_NMASKS 8

/* One kernel name of a rank. */
struct kernels_stat {
    uint32_t name;       /* index in run->names */
    uint8_t type;        /* enum kernels_type */
    uint64_t count;
    int64_t sum_ns, max_ns, min_ns;
};

struct kernels_table {
    int64_t mask_ns[KERNELS_NMASKS];   /* [0]: unused (no tabled kernel runs) */
    struct kernels_stat *k;            /* by descending sum_ns, ties by name index */
    size_t nk;
};
void kernels_table_free(struct kernels_table *t);

struct kernels_acc {
    int64_t cursor, end[3];   /* the sweep: settled up to cursor; type i's merged interval runs to end[i] */
    int started;
    uint32_t *slot;           /* by name: 1 + index in out->k, 0 none yet */
    uint8_t *type;            /* by name: its type + 1, 0 not known yet */
    const char *const *names;
    size_t nnames, cap;
    struct kernels_table *out;
};
/* names: the run's kernel names (nnames of them).  0, or -1 out of memory. */
int kernels_acc_init(struct kernels_acc *a, const char *const *names, size_t nnames);
/* One kernel, in ascending start order.  0, or -1 out of memory. */
int kernels_acc_add(struct kernels_acc *a, const struct trace_seg *g);
/* The table (owned by the caller, kernels_table_free), the accumulator
 * freed; NULL out of memory. */
struct kernels_table *kernels_acc_finish(struct kernels_acc *a);
void kernels_acc_free(struct kernels_acc *a);

/* HTA's type of a kernel named name whose category (trace_classify, or the
 * torch_npu task's) is cat. */
int kernels_type_of(const char *name, int cat);
/* "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER" (HTA's names). */
const char *kernels_type_name(int type);
/* HTA's name of a set of types: "COMPUTATION overlapping COMMUNICATION"...
 * into buf. */
const char *kernels_mask_name(int mask, char *buf, size_t cap);

/* The first k rows of t (all when k is 0 or beyond nk): their number; the
 * rest folded into *others (name UINT32_MAX, type KERNELS_OTHER; count 0
 * when nothing is left), its max and min over every folded kernel. */
size_t kernels_top(const struct kernels_table *t, size_t k, struct kernels_stat *others);
/* The run's first table: mask_ns summed over the ranks into out. */
void kernels_run_masks(const struct trace_run *run, int64_t out[KERNELS_NMASKS]);

#endif
