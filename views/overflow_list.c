/* overflow_list: the overflow pane's list and grid (views/overflow.c is
 * the pane): built from the dataset's flagged records (or, for inputs
 * without levels, a scan of the cube's cells), filtered by level, rank and
 * step into display lines under headings, with the step x rank grid's
 * axes and cells.  Kept apart from the drawing and the keys because it is
 * the part that follows the data (a reload, a swap of follow mode) rather
 * than the screen. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/anomaly.h"
#include "model/cube/cube.h"
#include "model/util/util.h"
#include "model/overflow/overflow.h"
#include "model/overflow/ovfrows.h"
#include "views/overflow.h"

/* Sorted distinct values of vals[0..n) in place; returns the new count. */
static int uniq_i32(int32_t *vals, size_t n) {
    qsort(vals, n, sizeof *vals, util_cmp_i32);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || vals[k - 1] != vals[i]) vals[k++] = vals[i];
    return (int)k;
}

int overflow_list_axis_find(const int32_t *v, int n, int32_t key) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo] == key ? lo : -1;
}

void overflow_list_reset(struct ovp *p) {
    p->lead = -1;
    p->lead_known = 0;
    ovf_list_free(&p->own);
    ovfrows_free(&p->rows);
    free(p->lines);
    free(p->gsteps);
    free(p->granks);
    free(p->grid);
    p->lines = NULL;
    p->gsteps = p->granks = NULL;
    p->grid = NULL;
    p->nlines = p->nentries = p->cur = p->top = 0;
    p->ngsteps = p->ngranks = 0;
    p->list = NULL;
    p->built = 0;
    memset(p->counts, 0, sizeof p->counts);
}

static int anomaly_shown(const struct anomaly *e, void *ctx) {
    const struct ovp *p = ctx;
    return (!p->has_rank || e->rank == p->rank) && (!p->has_step || e->step == p->step);
}

static int entry_shown(const struct ovf_entry *e, void *ctx) {
    const struct ovp *p = ctx;
    if (p->levels && !(p->show & (1u << e->level))) return 0;
    if (p->has_rank && e->rank != p->rank) return 0;
    if (p->has_step && e->step != p->step) return 0;
    return 1;
}

/* Rebuilds the display lines after a filter change, keeping the cursor on
 * the same row (a record, or the group of the same name) when it is still
 * shown, else on the first row. */
int overflow_list_relist(struct ovp *p) {
    size_t keep = SIZE_MAX;
    int keep_section = -1;
    const char *keep_name = NULL;
    if (p->nlines && p->cur < p->nlines && !p->lines[p->cur].heading) {
        keep = p->lines[p->cur].entry;
        keep_section = p->lines[p->cur].section;
        if (keep_section == OVFROWS_JUMP) keep_name = p->list->v[keep].name;
    }
    const struct ovf_list *l = p->list;
    if (ovfrows_build(l, entry_shown, p, &p->rows, NULL) != 0) return -1;
    if (ovfrows_add_anomalies(&p->rows, p->anom, anomaly_shown, p, NULL) != 0) return -1;
    if (p->lead >= 0 && entry_shown(&l->v[p->lead], p)) ovfrows_lead(&p->rows, (size_t)p->lead);
    size_t cap = p->rows.n * 2 + 1;
    struct oline *lines = realloc(p->lines, cap * sizeof *lines);
    if (!lines) return -1;
    p->lines = lines;
    p->nlines = p->nentries = 0;
    p->cur = 0;
    int have = 0, section = -1;
    int32_t last = 0;
    size_t cur = SIZE_MAX;
    for (size_t i = 0; i < p->rows.n; i++) {
        const struct ovfrows_row *w = &p->rows.v[i];
        int anom = w->section == OVFROWS_ANOMALY;
        const struct ovf_entry *e = anom ? NULL : &l->v[w->entry];
        int32_t step = anom ? w->step_min : e->step;
        /* a heading per part, and per step inside the NaN/Inf parts */
        int after_origin = i > 0 && p->rows.v[i - 1].origin;
        if (!have || w->section != section || (w->section < OVFROWS_JUMP && step != last) || w->origin || after_origin) {
            lines[p->nlines++] = (struct oline){ .heading = 1, .origin = w->origin, .section = w->section, .step = step };
            last = step;
            section = w->section;
            have = 1;
        }
        if (keep_section == OVFROWS_JUMP ? w->section == OVFROWS_JUMP && !strcmp(e->name, keep_name)
                                     : w->section == keep_section && w->entry == keep)
            cur = p->nlines;
        lines[p->nlines++] = (struct oline){ .origin = w->origin, .section = w->section, .entry = w->entry, .row = i,
                                             .step = step };
        p->nentries += w->count;
    }
    if (cur == SIZE_MAX) cur = p->nlines ? 1 : 0;   /* line 0 is a heading */
    if (cur >= p->nlines) cur = p->nlines ? p->nlines - 1 : 0;
    p->cur = cur;
    return 0;
}

int overflow_list_build(struct ovp *p, struct session *a, struct pt_error *err) {
    overflow_list_reset(p);
    if (!a->ds) return 0;
    p->levels = a->ds->ovf_levels;
    p->anom = a->ds->anomalies.n ? &a->ds->anomalies : NULL;
    /* Inputs without levels: the list is a scan of every cell (of the whole
     * table of a lazy .trend.db, probetop(1), --mem; millions of NaN cells
     * in a monitor tree), so it waits until the pane is drawn rather than
     * hold back the first heat map, or each reload of follow mode. */
    p->deferred = !p->levels && !p->drawing;
    if (p->deferred) return 0;
    if (p->levels) {
        p->list = &a->ds->ovf;
    } else {
        if (a->cube && ovf_scan_cube(a->cube, &p->own, err) != 0) return -1;
        p->list = &p->own;
    }
    const struct ovf_list *l = p->list;
    for (size_t i = 0; i < l->n; i++) p->counts[l->v[i].level <= OVF_CRITICAL ? l->v[i].level : 0]++;

    /* Grid axes: every step directory and rank of the data, flagged or not,
     * so a clean rank shows as a clean row. */
    const struct cube *c = a->cube;
    size_t na = p->anom ? p->anom->n : 0;
    size_t ns = l->n + na + (c ? (size_t)c->nsteps : 0), nr = l->n + na + (c ? (size_t)c->nranks : 0);
    for (size_t i = 0; i < a->ds->nrankdirs; i++) ns++, nr++;
    p->gsteps = malloc((ns ? ns : 1) * sizeof *p->gsteps);
    p->granks = malloc((nr ? nr : 1) * sizeof *p->granks);
    if (!p->gsteps || !p->granks) return pt_errorf(err, "overflow pane: out of memory");
    size_t k = 0, m = 0;
    for (size_t i = 0; i < l->n; i++) p->gsteps[k++] = l->v[i].step, p->granks[m++] = l->v[i].rank;
    for (size_t i = 0; i < na; i++) p->gsteps[k++] = p->anom->v[i].step, p->granks[m++] = p->anom->v[i].rank;
    for (int i = 0; c && i < c->nsteps; i++) p->gsteps[k++] = c->steps[i].origin;
    for (int i = 0; c && i < c->nranks; i++) p->granks[m++] = c->ranks[i];
    for (size_t i = 0; i < a->ds->nrankdirs; i++)
        p->gsteps[k++] = a->ds->rankdirs[i].step, p->granks[m++] = a->ds->rankdirs[i].rank;
    p->ngsteps = uniq_i32(p->gsteps, k);
    p->ngranks = uniq_i32(p->granks, m);
    p->grid = calloc((size_t)(p->ngsteps ? p->ngsteps : 1) * (size_t)(p->ngranks ? p->ngranks : 1), 1);
    if (!p->grid) return pt_errorf(err, "overflow pane: out of memory");
    for (size_t i = 0; i < l->n; i++) {
        int s = overflow_list_axis_find(p->gsteps, p->ngsteps, l->v[i].step), r = overflow_list_axis_find(p->granks, p->ngranks, l->v[i].rank);
        uint8_t *g = &p->grid[(size_t)r * (size_t)p->ngsteps + (size_t)s];
        uint8_t lv = (uint8_t)(l->v[i].level + 1);
        if (l->v[i].jump) *g |= GRID_JUMP;
        else if (lv > (*g & GRID_LEVEL)) *g = (uint8_t)((*g & ~GRID_LEVEL) | lv);
    }
    for (size_t i = 0; i < na; i++) {   /* the step and rank each report names */
        int s = overflow_list_axis_find(p->gsteps, p->ngsteps, p->anom->v[i].step), r = overflow_list_axis_find(p->granks, p->ngranks, p->anom->v[i].rank);
        p->grid[(size_t)r * (size_t)p->ngsteps + (size_t)s] |= GRID_ANOMALY;
    }
    if (overflow_list_relist(p) != 0) return pt_errorf(err, "overflow pane: out of memory");
    p->built = 1;
    return 0;
}

/* Puts the cursor on a NaN/Inf record (anom 0: entry into the list) or an
 * anomaly report (anom 1: entry into the reports), clearing the filters
 * that hide it. */
void overflow_list_select(struct ovp *p, int anom, size_t entry) {
    const struct ovf_entry *e = anom ? NULL : &p->list->v[entry];
    if (anom ? !anomaly_shown(&p->anom->v[entry], p) : !entry_shown(e, p)) {
        p->has_rank = p->has_step = 0;
        if (e && p->levels) p->show |= 1u << e->level;
        overflow_list_relist(p);
    }
    for (size_t i = 0; i < p->nlines; i++)
        if (!p->lines[i].heading && (anom ? p->lines[i].section == OVFROWS_ANOMALY : p->lines[i].section < OVFROWS_JUMP) &&
            p->lines[i].entry == entry) {
            p->cur = i;
            if (i > 0 && p->lines[i - 1].heading && p->top == i) p->top = i - 1;
            return;
        }
}
