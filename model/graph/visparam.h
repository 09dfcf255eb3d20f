/* visparam: the compare rows msProbe stores with each node of a .vis.db
 * (its input_data / output_data columns), as the reader decoded them once
 * at load (src/io/visdb/read_visdb.c), for the detail pane to draw.
 *
 * Every value is msProbe's stored text, shown as stored; a value absent
 * (or not a string) is NULL.  A column that could not be decoded keeps no
 * rows and says why in `error`, so the pane shows the message instead of
 * silently showing nothing. */
#ifndef PT_VISPARAM_H
#define PT_VISPARAM_H

#include <stddef.h>

/* The per-side fields, in the detail pane's order; vis_field_names[] are
 * msProbe's keys and the pane's labels at once. */
enum vis_field { VF_DTYPE, VF_SHAPE, VF_MAX, VF_MIN, VF_MEAN, VF_NORM, VF_MD5, VF_REQUIRES_GRAD, VF_VALUE, VF_N };
extern const char *const vis_field_names[VF_N];

/* The four statistics that carry a difference and a relative error
 * (VF_MAX + i). */
enum { VIS_NSTATS = 4 };

struct vis_param {
    char *name;                      /* "Module.x.forward.0.input.0" */
    char *result;                    /* "Result" (pass / warning / error ...) */
    char *field[VF_N];
    char *diff[VIS_NSTATS];          /* "Max diff" ... "L2norm diff" */
    char *relerr[VIS_NSTATS];        /* "MaxRelativeErr" ... "NormRelativeErr" */
    char *err_message;               /* "Err_message" */
};

/* One column of one node. */
struct vis_params {
    struct vis_param *p;             /* owned, n of them, in stored order */
    size_t n;
    char *error;                     /* owned; NULL = decoded (or empty) */
};

void vis_params_free(struct vis_params *v);

#endif
