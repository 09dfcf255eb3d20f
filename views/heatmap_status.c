/* heatmap_status: the heat map's status text (heatmap_status.h). */
#include <stdio.h>
#include <string.h>

#include "model/overflow/anomaly.h"
#include "views/agg.h"
#include "src/session/trendpair.h"
#include "views/heatmap_status.h"
#include "views/trend.h"
#include "views/view.h"

void heatmap_status(struct view *v, struct session *a, char *buf, size_t size) {
    (void)v;
    if (!a->cube || a->cube->nmetrics == 0) { snprintf(buf, size, "no data"); return; }
    if (a->sel_target == NAMES_NONE) { snprintf(buf, size, "no target passes the filter"); return; }
    uint32_t lt = cube_local_target(a->cube, a->metric, a->sel_target);
    float val = lt == UINT32_MAX ? cube_missing() : cube_get(a->cube, a->metric, a->stat, lt, a->sel_step, a->sel_rank);
    char vs[32], rk[160], name[1024], labels[512];
    agg_fmt_value(val, vs, sizeof vs);
    session_rank_both(a, a->sel_rank, rk, sizeof rk);
    session_target_label(a, a->sel_rank, a->sel_target, name, sizeof name);
    const uint32_t *ids;
    uint32_t nids;
    size_t len = 0;
    labels[0] = '\0';
    names_target_labels(a->cube->names, a->sel_target, &ids, &nids);
    for (uint32_t i = 0; i < nids && len + 2 < sizeof labels; i++) {
        char esc[256];
        const char *t = names_label_text(a->cube->names, ids[i]);
        pt_escape(t, strlen(t), esc, sizeof esc);
        int n = snprintf(labels + len, sizeof labels - len, "%s%s", i ? " " : "", esc);
        if (n < 0 || (size_t)n >= sizeof labels - len) break;
        len += (size_t)n;
    }
    char extra[128] = "";
    if (a->hooks.cell) {
        char hb[120];
        if (a->hooks.cell(a->hooks.ctx, a->cube->steps[a->sel_step].value, a->cube->ranks[a->sel_rank], a->sel_target,
                          hb, sizeof hb))
            snprintf(extra, sizeof extra, "  %s", hb);
    }
    long an = a->ds ? anomaly_at(&a->ds->anomalies, a->metric, a->sel_step, a->sel_rank, a->sel_target) : -1;
    if (an >= 0) {   /* the cell's first msProbe anomaly report */
        const struct anomaly *e = &a->ds->anomalies.v[an];
        snprintf(extra, sizeof extra, "  anomaly: %s %s (%s)", anomaly_rule_name((enum anomaly_rule)e->rule),
                 e->op[0] ? e->op : "-", anomaly_stage_name(e->stage));
    }
    char pr[200];   /* two runs of trend data: both runs' values of the cell */
    if (trendpair_cell_text(a, pr, sizeof pr)[0] && !extra[0]) snprintf(extra, sizeof extra, "  %s", pr);
    char st[40];
    snprintf(buf, size, "step %s  rank %s  %s/%s = %s%s%s%s\n%s", cube_step_text(a->cube, a->sel_step, st, sizeof st), rk,
             a->cube->metrics[a->metric].name, a->cube->metrics[a->metric].stats[a->stat],
             cube_is_notensor(val) ? "(no tensor)" : cube_is_missing(val) ? "(no data)" : vs, extra,
             nids ? "  labels: " : "", labels, name);
}
