/* phases: the Megatron phase of a communication kernel and the figures of
 * each micro-batch of a step (probetop-rules(7), PROFILER TRACES: Phases,
 * Micro-batches).
 *
 * A kernel's phase starts as the phase of the innermost known CPU
 * annotation around its launch (model/trace/tpatterns.h).  A communication
 * kernel then takes its process group's dimension where it has one (TP,
 * EP, CP, PP, DP: a DP kernel inside start/finish_param_sync is dp_param,
 * else dp_grad); without one, inside a forward, backward or recompute pass
 * it is EP when its name says so (name_ep), else TP; elsewhere it keeps the
 * annotation's phase. */
#ifndef PT_TRACE_PHASES_H
#define PT_TRACE_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "model/trace/trace.h"

/* anno_phase: enum trace_phase of the annotation; dim: enum tpat_dim of
 * the kernel's group; ep_name: its name matches name_ep. */
int phases_comm(int anno_phase, int dim, int ep_name);

/* The kernels of one step of a rank by micro-batch (-1: outside any),
 * added in start order; flushed into the rank's trace_micro list. */
struct phases_step {
    struct trace_acc *acc;    /* [micro + 1] */
    size_t n, cap;
    int any;                  /* some kernel of the step is in a micro-batch */
};
/* The figures a kernel of micro-batch micro is added to (the caller adds
 * it, with the step's: trace_acc_add2), or NULL out of memory. */
struct trace_acc *phases_step_acc(struct phases_step *p, int micro);
/* Appends the step's micro-batches (micro -1 first, then ascending; none
 * when no kernel of the step is in a micro-batch) to *v and starts a new
 * step.  0, or -1 out of memory. */
int phases_step_flush(struct phases_step *p, int32_t step, struct trace_micro **v, size_t *n, size_t *cap);
void phases_step_free(struct phases_step *p);

#endif
