/* lanes_group: the lane view's grouped rows (see lanes_group.h). */
#include "views/lanes_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui.h"

void lanes_grp_free(struct lanes_grp *g) {
    lanegroups_free(&g->g);
    free(g->med);
    free(g->worst);
    free(g->wrank);
    g->med = g->worst = NULL;
    g->wrank = NULL;
    g->nbins = 0;
}

int lanes_grp_make(struct lanes_grp *g, const struct lanes_grp_ctx *c, const int *given, int rows,
                   struct pt_error *err) {
    lanes_grp_free(g);
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

int lanes_grp_dist(struct lanes_grp *g, const struct lanes_grp_ctx *c, int nbins, struct pt_error *err) {
    size_t n = (size_t)(g->g.ngroups ? g->g.ngroups : 1) * (size_t)nbins;
    free(g->med);
    free(g->worst);
    free(g->wrank);
    g->med = malloc(n * sizeof *g->med);
    g->worst = malloc(n * sizeof *g->worst);
    g->wrank = malloc(n * sizeof *g->wrank);
    g->nbins = 0;
    if (!g->med || !g->worst || !g->wrank) return pt_errorf(err, "out of memory");
    for (int k = 0; k < g->g.ngroups; k++) {
        size_t o = (size_t)k * (size_t)nbins;
        if (lanegroup_dist(c->run, g->g.members + g->g.start[k], g->g.start[k + 1] - g->g.start[k], c->step, c->align,
                           c->w0, c->w1, nbins, g->med + o, g->worst + o, g->wrank + o, err) != 0)
            return -1;
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
