/* visparam: decoded .vis.db compare rows (see visparam.h). */
#include "model/graph/visparam.h"

#include <stdlib.h>
#include <string.h>

const char *const vis_field_names[VF_N] = {"dtype", "shape", "Max", "Min", "Mean", "Norm", "md5", "requires_grad", "value"};

void vis_params_free(struct vis_params *v) {
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) {
        struct vis_param *q = &v->p[i];
        free(q->name);
        free(q->result);
        for (int k = 0; k < VF_N; k++) free(q->field[k]);
        for (int k = 0; k < VIS_NSTATS; k++) free(q->diff[k]), free(q->relerr[k]);
        free(q->err_message);
    }
    free(v->p);
    free(v->error);
    memset(v, 0, sizeof *v);
}
