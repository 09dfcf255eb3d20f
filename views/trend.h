/* trend: what the heat map and the line chart share (what one asks of the
 * other is its offer in struct session_offers, src/session/session.h). */
#ifndef PT_VIEWS_TREND_H
#define PT_VIEWS_TREND_H

#include "views/view.h"

/* Axis names as msProbe shows them: "Step", "Rank", "Module Name". */
static inline const char *trend_dim_name(enum cube_dim d) {
    return d == DIM_STEP ? "step" : d == DIM_RANK ? "rank" : "module";
}

#endif
