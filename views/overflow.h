/* overflow: what the overflow pane's files share (views/overflow.c, the
 * pane: drawing, keys, the jump; views/overflow_list.c: the list and grid
 * it shows).  Private to them: no other pane includes it. */
#ifndef PT_VIEWS_OVERFLOW_H
#define PT_VIEWS_OVERFLOW_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/cube/search.h"
#include "model/overflow/anomaly.h"
#include "model/overflow/overflow.h"
#include "model/overflow/ovfrows.h"
#include "src/session/session.h"

/* A display line of the list: a heading (a part of the listing and, for
 * the NaN/Inf parts, a step) or a row. */
struct oline {
    int heading;
    uint8_t origin;        /* the origin's row, or its heading */
    uint8_t section;       /* enum ovfrows_section */
    size_t entry;          /* index into the list: the row's record (a group: its earliest) */
    size_t row;            /* index into rows (not headings) */
    int32_t step;          /* headings */
};

struct ovp {
    int built;
    int deferred, drawing;   /* a scan of the cube's cells waits for the pane's next draw */
    /* the cursor's entry before a swap (follow mode), found again once the
     * deferred scan is done */
    int keep;
    struct ovf_entry keep_key;
    char *keep_name;
    size_t keep_off;
    const struct ovf_list *list;
    const struct anomaly_list *anom;   /* the dataset's anomaly reports, or NULL */
    struct ovf_list own;   /* scanned cube cells when the input has no levels */
    int levels;
    size_t counts[4];
    /* filters */
    unsigned show;         /* bit l set: level l shown (levels only) */
    int has_rank, has_step;
    int32_t rank, step;
    /* the list as shown */
    struct ovfrows rows;
    struct oline *lines;
    size_t nlines, nentries;
    size_t cur;            /* index into lines (an entry line) */
    size_t top;            /* first line shown */
    int moved;             /* the user moved the cursor: a new dataset keeps its place */
    long lead;             /* the origin's entry, which the list leads with; -1 none */
    int lead_known;        /* lead asked of the session since the last build */
    int context;           /* a jump landed: show lines below the cursor too */
    int list_y, list_h;    /* where the list was drawn (for the mouse) */
    /* the grid */
    int32_t *gsteps, *granks;
    int ngsteps, ngranks;
    uint8_t *grid;         /* [rank][step]: 0 clean, level + 1 of a NaN/Inf record, | GRID_JUMP, | GRID_ANOMALY */
    int grid_y, grid_x, grid_rows, grid_cols, grid_sper, grid_rper;
    /* `/` over names */
    struct search re;
};

/* a grid cell's bit: one of msProbe's anomaly reports names it */
#define GRID_ANOMALY 0x80
/* a grid cell's bit: a numeric-jump record (msProbe's heuristic, no
 * NaN/Inf) is there; it never colours the cell with a level, which the
 * heuristic would give every cell of a healthy run */
#define GRID_JUMP 0x40
#define GRID_LEVEL 0x3f

/* Frees what the list and grid hold and marks the pane unbuilt. */
void overflow_list_reset(struct ovp *p);
/* Rebuilds the display lines after a filter change, keeping the cursor on
 * the same row (a record, or the group of the same name) when it is still
 * shown, else on the first row; -1 out of memory. */
int overflow_list_relist(struct ovp *p);
/* Builds the list and the grid from a->ds (deferred for inputs without
 * levels until the pane is drawn, p->deferred); -1 with err. */
int overflow_list_build(struct ovp *p, struct session *a, struct pt_error *err);
/* The index of key in a sorted grid axis (p->gsteps, p->granks), -1 none. */
int overflow_list_axis_find(const int32_t *axis, int n, int32_t key);
/* Puts the cursor on a NaN/Inf record (anom 0: entry into the list) or an
 * anomaly report (anom 1: entry into the reports), clearing the filters
 * that hide it. */
void overflow_list_select(struct ovp *p, int anom, size_t entry);

#endif
