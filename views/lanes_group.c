/* lanes_group: the lane view's grouped rows (see lanes_group.h). */
#include "views/lanes_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui.h"

void lanes_grp_drop(struct lanes_grp *g) {
    lanebusy_free(&g->idx);
    lanebusy_free(&g->prev);
    free(g->busy);
    free(g->stamp);
    g->busy = NULL;
    g->stamp = NULL;
    g->busy_nbins = 0;
}

void lanes_grp_free(struct lanes_grp *g) {
    lanegroups_free(&g->g);
    lanes_grp_drop(g);
    free(g->med);
    free(g->worst);
    free(g->wrank);
    free(g->colbuf);
    g->med = g->worst = g->colbuf = NULL;
    g->wrank = NULL;
    g->nbins = g->ncol = 0;
    g->cap = 0;
}

int lanes_grp_make(struct lanes_grp *g, const struct lanes_grp_ctx *c, const int *given, int rows,
                   struct pt_error *err) {
    lanegroups_free(&g->g);   /* the distributions' buffers and the busy shares stay */
    g->nbins = 0;
    int *keys = malloc((size_t)(c->nlanes > 0 ? c->nlanes : 1) * sizeof *keys);
    if (!keys) return pt_errorf(err, "out of memory");
    if (rows < 1) rows = 1;
    int block = (c->nlanes + rows - 1) / rows;
    if (given) memcpy(keys, given, (size_t)c->nlanes * sizeof *keys);
    else if (lanegroup_keys(c->run, c->lanes, c->nlanes, (enum lanegroup_by)g->by, block > 0 ? block : 1, keys) != 0) {
        free(keys);
        return pt_errorf(err, "no pipeline groups: none in the traces (pg_config, group listing)");
    }
    int rc = lanegroup_from_keys(c->lanes, keys, c->nlanes, &g->g, err);
    free(keys);
    if (g->cur >= g->g.ngroups) g->cur = g->g.ngroups ? g->g.ngroups - 1 : 0;
    return rc;
}

const struct lanebusy *lanes_grp_index(struct lanes_grp *g, const struct trace_run *run, int32_t step,
                                       struct pt_error *err) {
    if (g->idx.run == run && g->idx.step == step && run) return &g->idx;
    if (!run) return NULL;
    int had = g->idx.nranks;
    g->busy_ok = 0;
    struct lanebusy t = g->prev;   /* the step shown until now is kept: ( and ) back to it cost no walk */
    g->prev = g->idx;
    g->idx = t;
    if ((g->idx.run != run || g->idx.step != step) && lanebusy_build(&g->idx, run, step, err) != 0) {
        lanes_grp_drop(g);
        return NULL;
    }
    if (!g->stamp || g->idx.nranks != had) {
        free(g->busy);
        free(g->stamp);
        g->busy = NULL;
        g->busy_nbins = 0;
        g->stamp = calloc((size_t)(g->idx.nranks ? g->idx.nranks : 1), sizeof *g->stamp);
        g->gen = 1;
        if (!g->stamp) {
            lanes_grp_drop(g);
            pt_errorf(err, "out of memory");
            return NULL;
        }
    }
    return &g->idx;
}

/* The busy shares of the window's nbins columns: kept while the step,
 * clock and window stay (a regroup, a drill and back reuse them), each
 * rank's row made when a group first needs it. */
static int busy_rows(struct lanes_grp *g, const struct lanes_grp_ctx *c, int nbins, struct pt_error *err) {
    const struct lanebusy *lb = lanes_grp_index(g, c->run, c->step, err);
    if (!lb) return -1;
    if (g->busy && g->busy_ok && g->busy_nbins == nbins && g->busy_align == (int)c->align && g->busy_w0 == c->w0 &&
        g->busy_w1 == c->w1)
        return 0;
    if (g->busy_nbins != nbins || !g->busy) {
        free(g->busy);
        g->busy = malloc((size_t)(lb->nranks ? lb->nranks : 1) * (size_t)nbins * sizeof *g->busy);
        g->busy_nbins = 0;
        if (!g->busy) return pt_errorf(err, "out of memory");
    }
    g->busy_nbins = nbins;
    g->busy_ok = 1;
    g->busy_align = (int)c->align;
    g->busy_w0 = c->w0;
    g->busy_w1 = c->w1;
    if (++g->gen == 0) {   /* wrapped: every row old */
        memset(g->stamp, 0, (size_t)lb->nranks * sizeof *g->stamp);
        g->gen = 1;
    }
    return 0;
}

int lanes_grp_dist(struct lanes_grp *g, const struct lanes_grp_ctx *c, int nbins, struct pt_error *err) {
    size_t n = (size_t)(g->g.ngroups ? g->g.ngroups : 1) * (size_t)nbins;
    g->nbins = 0;
    if (busy_rows(g, c, nbins, err) != 0) return -1;
    if (n > g->cap) {
        free(g->med);
        free(g->worst);
        free(g->wrank);
        g->med = malloc(n * sizeof *g->med);
        g->worst = malloc(n * sizeof *g->worst);
        g->wrank = malloc(n * sizeof *g->wrank);
        g->cap = 0;
        if (!g->med || !g->worst || !g->wrank) return pt_errorf(err, "out of memory");
        g->cap = n;
    }
    int most = 1;
    for (int k = 0; k < g->g.ngroups; k++)
        if (g->g.start[k + 1] - g->g.start[k] > most) most = g->g.start[k + 1] - g->g.start[k];
    if (most > g->ncol) {
        free(g->colbuf);
        g->ncol = 0;
        if (!(g->colbuf = malloc((size_t)most * sizeof *g->colbuf))) return pt_errorf(err, "out of memory");
        g->ncol = most;
    }
    for (int m = 0; m < g->g.start[g->g.ngroups]; m++) {
        int ri = g->g.members[m];
        if (ri < 0 || ri >= g->idx.nranks || g->stamp[ri] == g->gen) continue;
        lanebusy_slices(&g->idx, ri, c->align, c->w0, c->w1, nbins, g->busy + (size_t)ri * (size_t)nbins);
        g->stamp[ri] = g->gen;
    }
    for (int k = 0; k < g->g.ngroups; k++) {
        size_t o = (size_t)k * (size_t)nbins;
        const int *mem = g->g.members + g->g.start[k];
        int cnt = g->g.start[k + 1] - g->g.start[k];
        for (int i = 0; i < cnt; i++)
            if (mem[i] < 0 || mem[i] >= g->idx.nranks) return pt_errorf(err, "lane %d is no rank of the run", mem[i]);
        lanegroup_dist_busy(g->busy, nbins, mem, cnt, g->med + o, g->worst + o, g->wrank + o, g->colbuf);
    }
    g->nbins = nbins;
    return 0;
}

char *lanes_grp_label(const struct lanes_grp *g, const struct trace_run *run, int gi, char *buf, size_t n) {
    if (gi < 0 || gi >= g->g.ngroups) { snprintf(buf, n, "?"); return buf; }
    int a = g->g.start[gi], b = g->g.start[gi + 1], key = g->g.key[gi];
    if (key < 0) snprintf(buf, n, "other (%d)", b - a);
    else if (g->by == LANEGROUP_BLOCK)
        snprintf(buf, n, "ranks %d-%d", (int)run->ranks[g->g.members[a]].rank, (int)run->ranks[g->g.members[b - 1]].rank);
    else snprintf(buf, n, "%s %d (%d)", lanegroup_by_name(g->by), key, b - a);
    return buf;
}

void lanes_grp_row(WINDOW *w, struct ui *u, const struct lanes_grp *g, int gi, int y, int x, int barw, int sel) {
    static const char *const blocks[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char ascii[] = " .,:-=+*#";
    if (gi < 0 || gi >= g->g.ngroups || !g->nbins) return;
    int n = barw < g->nbins ? barw : g->nbins;
    for (int i = 0; i < n; i++) {
        size_t o = (size_t)gi * (size_t)g->nbins + (size_t)i;
        int lv = (int)(g->med[o] * 8.0f + 0.5f);
        lv = lv < 0 ? 0 : lv > 8 ? 8 : lv;
        float wv = g->worst[o];
        ui_role(w, u, wv >= 0.5f ? UI_OK : wv >= 0.25f ? UI_WARN : UI_BAD);
        if (sel && i == g->col) wattron(w, A_REVERSE);
        char s[8];
        if (u->utf8) snprintf(s, sizeof s, "%s", blocks[lv]);
        else s[0] = ascii[lv], s[1] = '\0';
        ui_put(w, y, x + i, 1, s);
        if (sel && i == g->col) wattroff(w, A_REVERSE);
    }
}

int64_t lanes_grp_col_time(const struct lanes_grp_ctx *c, int col, int ncols) {
    if (ncols < 1) return c->w0;
    return c->w0 + (int64_t)((double)(c->w1 - c->w0) * col / ncols);
}

int lanes_grp_status(const struct lanes_grp *g, const struct lanes_grp_ctx *c, int64_t s0, char *buf, size_t size) {
    char lab[64];
    int gi = g->cur;
    if (gi < 0 || gi >= g->g.ngroups || !g->nbins || g->col < 0 || g->col >= g->nbins)
        return snprintf(buf, size, "no group");
    size_t o = (size_t)gi * (size_t)g->nbins + (size_t)g->col;
    int wk = g->wrank[o];
    int32_t wr = wk >= 0 ? c->run->ranks[g->g.members[g->g.start[gi] + wk]].rank : -1;
    int64_t t0 = lanes_grp_col_time(c, g->col, g->nbins) - s0, t1 = lanes_grp_col_time(c, g->col + 1, g->nbins) - s0;
    return snprintf(buf, size, "%s  +%.3f..+%.3f us: busy median %.0f%%  worst %.0f%% (rank %d)",
                    lanes_grp_label(g, c->run, gi, lab, sizeof lab), (double)t0 / 1e3, (double)t1 / 1e3,
                    100.0 * g->med[o], 100.0 * g->worst[o], (int)wr);
}
