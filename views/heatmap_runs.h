/* heatmap_runs: the heat map's keys for two runs of trend data
 * (src/session/trendpair.h): `f`, the first step x target where the runs
 * part, and `:threshold P`.  Apart from heatmap.c, which is at the size
 * limit. */
#ifndef PT_VIEWS_HEATMAP_RUNS_H
#define PT_VIEWS_HEATMAP_RUNS_H

#include "views/view.h"

/* `f`: selects the first parting cell and says it (or why not). */
void heatmap_runs_first(struct session *a);
/* `:threshold P`: the relative difference above which a cell parts, in percent. */
int heatmap_runs_cmd_threshold(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err);

#endif
