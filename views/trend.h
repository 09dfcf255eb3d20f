/* trend: what the heat map and the line chart ask of each other. */
#ifndef PT_VIEWS_TREND_H
#define PT_VIEWS_TREND_H

#include "views/view.h"

/* Adds the selected cell's trend along the remaining dimension as a line
 * (msProbe: clicking a cell); a line already shown is not added twice.
 * 0 ok (message set), -1 with a message when there is no line chart. */
int linechart_add_selected(struct app *a);
/* Removes every line. */
void linechart_clear(struct app *a);

/* Axis names as msProbe shows them: "Step", "Rank", "Module Name". */
static inline const char *trend_dim_name(enum cube_dim d) {
    return d == DIM_STEP ? "step" : d == DIM_RANK ? "rank" : "module";
}

#endif
