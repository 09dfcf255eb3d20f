/* agg: what a cube value shows as, without curses -- its text, and what a
 * zoomed-out heat-map cell shows.  (A view's job, not ui/'s: it knows the
 * model's missing-value mark.)
 *
 * Text: "" for missing (cube_is_missing), NaN, +Inf, -Inf, else %.6g.
 *
 *
 * A cell covering several values shows the one of largest magnitude (sign
 * kept, so colours stay on the same scale), unless any covered value is
 * non-finite: then NaN if any is NaN, else +Inf / -Inf (+Inf first), so a
 * single NaN never disappears when zooming out.  Missing values are
 * skipped; a cell covering only missing values is missing, "no tensor"
 * (CUBE_NOTENSOR) when one of them was. */
#ifndef PT_VIEWS_AGG_H
#define PT_VIEWS_AGG_H

#include "model/cube/cube.h"

struct agg {
    int present, nan, pinf, ninf, notensor;
    float best;
};

static inline void agg_init(struct agg *g) {
    g->present = g->nan = g->pinf = g->ninf = g->notensor = 0;
    g->best = 0;
}
void agg_add(struct agg *g, float v);
float agg_result(const struct agg *g);

/* Aggregates slice cells x in [x0, x1), y in [y0, y1); ys (if not NULL)
 * maps a y index to the slice row (the filtered target list). */
float agg_block(const struct cube_slice *s, int x0, int x1, int y0, int y1, const uint32_t *xs, const uint32_t *ys);

/* The zoom making n cells fit in room: the smallest power of two. */
int agg_zoom_fit(int n, int room);

/* The text of one value (see above); returns buf. */
char *agg_fmt_value(float v, char *buf, size_t size);
/* A heat-map cell of `width` columns showing its value (text_fmt_fit,
 * right-aligned): a blank after it keeps neighbours apart, or the cursor's
 * brackets around it ("[24.27]"); blank for a missing value. */
char *agg_fmt_cell(float v, int width, int cursor, char *buf, size_t size);

#endif
