/* idle: HolisticTraceAnalysis's idle time breakdown of a rank, per device
 * stream (probetop-rules(7), PROFILER TRACES: Idle time): each gap between
 * two kernels in a row on a stream is host wait when the CPU launched the
 * second one only after the first had ended, else kernel wait when it is
 * shorter than IDLE_KERNEL_WAIT_NS (the cost of launching back-to-back
 * kernels), else other (the stream waits on something else: an event, a
 * collective).  HTA's get_idle_time_breakdown.
 *
 * Built one kernel at a time in ascending start order, as the trace reader
 * streams a rank's kernels: only the last end of each stream is held. */
#ifndef PT_MODEL_IDLE_H
#define PT_MODEL_IDLE_H

#include <stddef.h>
#include <stdint.h>

/* HTA's default consecutive_kernel_delay: 30 (its documentation says ns,
 * but it compares the gaps in the trace's microseconds): 30 us. */
#define IDLE_KERNEL_WAIT_NS 30000

/* The sentinel of a kernel without a CPU launch (never host wait). */
#define IDLE_NO_LAUNCH INT64_MIN

struct idle_stream {
    uint16_t stream;
    int64_t host_ns, kernel_ns, other_ns;   /* sums of gaps (a negative gap, kernels overlapping on the stream, counts as HTA counts it) */
    int64_t last_end;                       /* the previous kernel's end (while building) */
    uint64_t kernels;
};

struct idle_table {
    struct idle_stream *v;   /* ascending stream */
    size_t n;
};
void idle_table_free(struct idle_table *t);

struct idle_acc {
    int32_t *slot_of;        /* by stream: index in out->v, -1 none yet */
    size_t cap;
    struct idle_table *out;
};
/* 0, or -1 out of memory. */
int idle_acc_init(struct idle_acc *a);
void idle_acc_free(struct idle_acc *a);
/* One kernel on stream from start to end, launched at launch (or
 * IDLE_NO_LAUNCH), in ascending start order.  0, or -1 out of memory. */
int idle_acc_add(struct idle_acc *a, uint16_t stream, int64_t start, int64_t end, int64_t launch);
/* The table (the caller's, idle_table_free), the accumulator freed; NULL
 * out of memory. */
struct idle_table *idle_acc_finish(struct idle_acc *a);

#endif
