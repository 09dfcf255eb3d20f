/* heatmap_status: the heat map's status text (view_ops.status): the
 * selected cell's step, rank, metric/statistic and value, its labels, the
 * hooks' and msProbe anomaly reports' word on it, and the target's name.
 * Apart from heatmap.c, which is at the size limit. */
#ifndef PT_VIEWS_HEATMAP_STATUS_H
#define PT_VIEWS_HEATMAP_STATUS_H

#include <stddef.h>

#include "views/view.h"

void heatmap_status(struct view *v, struct session *a, char *buf, size_t size);

#endif
