/* phases: a communication kernel's phase and the micro-batches' figures
 * (see phases.h). */
#include "model/trace/phases.h"

#include <stdlib.h>
#include <string.h>

#include "model/trace/tpatterns.h"
#include "model/util/util.h"

int phases_comm(int anno_phase, int dim, int ep_name) {
    switch (dim) {
    case TPAT_DIM_TP: return TRACE_PH_TP_COMM;
    case TPAT_DIM_EP: return TRACE_PH_EP_COMM;
    case TPAT_DIM_CP: return TRACE_PH_CP_COMM;
    case TPAT_DIM_PP: return TRACE_PH_PP_COMM;
    case TPAT_DIM_DP: return anno_phase == TRACE_PH_DP_PARAM ? TRACE_PH_DP_PARAM : TRACE_PH_DP_COMM;
    default: break;
    }
    if (anno_phase == TRACE_PH_FORWARD || anno_phase == TRACE_PH_BACKWARD || anno_phase == TRACE_PH_RECOMPUTE)
        return ep_name ? TRACE_PH_EP_COMM : TRACE_PH_TP_COMM;
    return anno_phase;
}

struct trace_acc *phases_step_acc(struct phases_step *p, int micro) {
    size_t i = micro < 0 ? 0 : (size_t)micro + 1;
    if (i >= p->n) {
        if (util_grow((void **)&p->acc, &p->cap, i + 1, sizeof *p->acc)) return NULL;
        for (size_t k = p->n; k <= i; k++) trace_acc_init(&p->acc[k]);
        p->n = i + 1;
    }
    if (i) p->any = 1;
    return &p->acc[i];
}

int phases_step_flush(struct phases_step *p, int32_t step, struct trace_micro **v, size_t *n, size_t *cap) {
    int rc = 0;
    for (size_t i = 0; p->any && i < p->n && !rc; i++) {
        if (!p->acc[i].out.nkernels) continue;
        if (util_grow((void **)v, cap, *n + 1, sizeof **v)) { rc = -1; break; }
        struct trace_micro *m = &(*v)[(*n)++];
        m->step = step;
        m->micro = (int32_t)i - 1;
        trace_acc_finish(&p->acc[i], &m->stats);
    }
    p->n = 0;
    p->any = 0;
    return rc;
}

void phases_step_free(struct phases_step *p) {
    free(p->acc);
    memset(p, 0, sizeof *p);
}
