/* lanes_group: the lane view's grouped rows (probetop(1), LANE VIEW:
 * Groups): at cluster scale one row per group of ranks (pipeline stage,
 * pipeline group or block: model/trace/lanegroup.h), each time slice drawn
 * as the group's median busy share (the glyph's height) and its worst
 * rank's (the colour), a cursor on a group and a time column, and the
 * drill-down into a group.  Apart from lanes.c, which owns the window. */
#ifndef PT_VIEWS_LANES_GROUP_H
#define PT_VIEWS_LANES_GROUP_H

#include "model/trace/lanebusy.h"
#include "model/trace/lanegroup.h"
#include "views/view.h"

struct lanes_grp {
    int by;                  /* enum lanegroup_by; LANEGROUP_OFF: one lane per rank */
    int drilled;             /* the group shown lane by lane, -1 none */
    struct lanegroups g;     /* of the lanes shown before the drill */
    float *med, *worst;      /* ngroups x nbins */
    int *wrank;
    int nbins;
    int cur, top, col;       /* group cursor, first group shown, time column cursor */
    /* kept between frames, so that a key redoes only what it changed: */
    struct lanebusy idx;     /* the step's busy index (idx.run NULL: none) */
    struct lanebusy prev;    /* the step's shown before (its buffers made again for the next one) */
    float *busy;             /* idx.nranks x busy_nbins: each rank's busy share per column */
    unsigned *stamp;         /* [idx.nranks]: a rank's row is made when its stamp is gen */
    unsigned gen;
    int busy_nbins, busy_align, busy_ok;
    int64_t busy_w0, busy_w1;
    size_t cap;              /* of med, worst, wrank */
    float *colbuf;           /* a group's shares of one column (the median's buffer) */
    int ncol;
};

/* What the groups are made of: the lane view's window. */
struct lanes_grp_ctx {
    const struct trace_run *run;
    const int *lanes;
    int nlanes;
    int32_t step;
    enum lanes_align align;
    int64_t w0, w1;
};

/* Groups the lanes by g->by (blocks: as many as fit rows), or by the
 * keys given (one per lane: --parallel's layout); 0, or -1 with the reason
 * in err (no pipeline groups, no memory). */
int lanes_grp_make(struct lanes_grp *g, const struct lanes_grp_ctx *c, const int *given, int rows,
                   struct pt_error *err);
/* The distributions for nbins columns.  0, or -1 (err). */
int lanes_grp_dist(struct lanes_grp *g, const struct lanes_grp_ctx *c, int nbins, struct pt_error *err);
/* The busy index of the step (made when the run or step changed); NULL
 * (err) without memory. */
const struct lanebusy *lanes_grp_index(struct lanes_grp *g, const struct trace_run *run, int32_t step,
                                       struct pt_error *err);
/* Forgets what was kept for the run (it is going away). */
void lanes_grp_drop(struct lanes_grp *g);
/* "stage 2 (256 ranks)", "pipeline 5 (4 ranks)", "ranks 0-31". */
char *lanes_grp_label(const struct lanes_grp *g, const struct trace_run *run, int gi, char *buf, size_t n);
/* Group gi's row: its slices from column 0 at (y, x), the cursor column
 * reversed when sel. */
void lanes_grp_row(WINDOW *w, struct ui *u, const struct lanes_grp *g, int gi, int y, int x, int barw, int sel);
/* The window time of column col's start. */
int64_t lanes_grp_col_time(const struct lanes_grp_ctx *c, int col, int ncols);
/* Status: the group, the column's time and its median and worst (with
 * the rank). */
int lanes_grp_status(const struct lanes_grp *g, const struct lanes_grp_ctx *c, int64_t s0, char *buf, size_t size);
void lanes_grp_free(struct lanes_grp *g);

#endif
