/* monitor_names: the metric and statistic names of a monitor tree (the
 * fixed ids msProbe's data2db gives them), in a file of their own: the
 * reader (read_monitor.c) and the .trend.db writer (src/io/trenddb/) both
 * use them, and the reader calls the writer for data2db, so the names
 * live below both. */
#include "src/io/monitor/read_monitor.h"

const char *const monitor_metric_names[MONITOR_NMETRICS_ALL] = {
    "actv", "actv_grad", "exp_avg", "exp_avg_sq", "grad_unreduced", "grad_reduced",
    "param_origin", "param_updated", "other",
    /* L2 interpretable features (probetop-formats(5), MONITOR CSV TREES) */
    "attention_hook", "linear_hook", "moe_router_weight_hook", "moe_router_logit_hook"};
const char *const monitor_stat_names[MONITOR_NSTATS] = {
    "norm", "min", "max", "zeros", "nans", "mean", "entropy", "softmax_max", "sr",
    "kernel_norm", "std_x", "jacobian", "proxy", "token_similarity",
    "router_weight_similarity", "per_token_expert_entropy"};
