/* heatmap_copy: what `y` copies from the heat map (see heatmap_copy.h). */
#include "views/heatmap_copy.h"

#include <stdio.h>

#include "views/agg.h"

/* y: "TARGET  step S  rank R  metric/stat = value" (the name unescaped). */
int heatmap_copy(struct view *v, struct session *a, char *buf, size_t size) {
    (void)v;
    if (!a->cube || a->cube->nmetrics == 0 || a->sel_target == NAMES_NONE) return 0;
    uint32_t lt = cube_local_target(a->cube, a->metric, a->sel_target);
    float val = lt == UINT32_MAX ? cube_missing() : cube_get(a->cube, a->metric, a->stat, lt, a->sel_step, a->sel_rank);
    char name[1024], vs[32], st[40];
    int32_t r = a->cube->ranks[a->sel_rank];
    if (!a->hooks.target || !a->hooks.target(a->hooks.ctx, r, a->sel_target, name, sizeof name))
        names_display(a->cube->names, a->sel_target, name, sizeof name);
    snprintf(buf, size, "%s  step %s  rank %d  %s/%s = %s", name, cube_step_text(a->cube, a->sel_step, st, sizeof st), (int)r,
             a->cube->metrics[a->metric].name, a->cube->metrics[a->metric].stats[a->stat],
             cube_is_missing(val) ? "-" : agg_fmt_value(val, vs, sizeof vs));
    return 1;
}
