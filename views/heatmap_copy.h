/* heatmap_copy: the heat map's answer to `y` (view_ops.copy): the selected
 * cell as "TARGET  step S  rank R  metric/stat = value", the target's name
 * as the files spell it (unescaped: it goes to the clipboard base64-coded).
 * Apart from heatmap.c, which is at the size limit. */
#ifndef PT_VIEWS_HEATMAP_COPY_H
#define PT_VIEWS_HEATMAP_COPY_H

#include "views/view.h"

int heatmap_copy(struct view *v, struct session *a, char *buf, size_t size);

#endif
