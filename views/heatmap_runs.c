/* heatmap_runs: `f` and `:threshold` for two runs of trend data (heatmap_runs.h). */
#include "views/heatmap_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/session/trendpair.h"

void heatmap_runs_first(struct session *a) {
    struct pt_error err;
    if (!trendpair_on(a)) {
        session_msg(a, "f: the first place two runs part needs two runs of trend data (probetop PROBLEM BENCH)");
        return;
    }
    if (trendpair_first(a, &err) < 0) session_err(a, "%s", err.msg);
}

int heatmap_runs_cmd_threshold(struct view *v, struct session *a, int argc, char **argv, struct pt_error *err) {
    (void)v;
    if (argc != 2) return pt_errorf(err, "usage: :threshold P (percent: 1 or 1%% for |p-b|/|b| above 1 %%)");
    char *e;
    double p = strtod(argv[1], &e);
    if (e == argv[1] || (*e && strcmp(e, "%")) || !isfinite(p) || p <= 0 || p >= 1e6)
        return pt_errorf(err, ":threshold wants a percentage above 0 (1 or 1%% for 1 %%), not '%s'", argv[1]);
    if (trendpair_set_threshold(a, p / 100, err) != 0) return -1;
    session_msg(a, "a cell parts above |p-b|/|b| %g%% (f goes to the first)", p);
    return 0;
}
