/* trace: freeing the per-rank kernel timeline and naming its categories
 * and phases (model/trace.h). */
#include "model/trace.h"

#include <stdlib.h>

void trace_run_free(struct trace_run *run) {
    if (!run) return;
    for (int i = 0; i < run->nranks; i++) {
        free(run->ranks[i].file);
        free(run->ranks[i].steps);
        free(run->ranks[i].segs);
    }
    free(run->ranks);
    for (size_t i = 0; i < run->nnames; i++) free(run->names[i]);
    free(run->names);
    free(run);
}

const char *trace_cat_name(int cat) {
    static const char *const n[TRACE_NCATS] = {"compute", "communication", "memory", "idle"};
    return cat >= 0 && cat < TRACE_NCATS ? n[cat] : "?";
}

const char *trace_phase_name(int phase) {
    static const char *const n[TRACE_NPHASES] = {"none", "forward", "backward", "pp_comm", "dp_comm", "optimizer"};
    return phase >= 0 && phase < TRACE_NPHASES ? n[phase] : "?";
}
