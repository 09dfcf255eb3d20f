/* msProbe's monitor anomaly reports (probetop-formats(5), MONITOR ANOMALY
 * REPORTS; probetop-rules(7), FIRST ANOMALY ORDER): the order, the parts of
 * a tag, the reader on trees the test writes (tests/pt_anomaly.h), the
 * cells the entries land on, opening the reports alone, and bad files. */
#include "pt_test.h"
#include "pt_anomaly.h"

#include "model/overflow/anomaly.h"
#include "model/overflow/overflow.h"
#include "model/overflow/ovfrows.h"
#include "src/io/load.h"
#include "src/io/monitor/read_anomaly.h"
#include "src/cmd/cmd.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdarg.h>

static struct anomaly mk(int32_t step, int32_t micro, const char *tag, int32_t vpp, int32_t pp, int32_t call, int32_t rank) {
    return (struct anomaly){.rank = rank, .step = step, .micro_step = micro, .pp_stage = pp, .vpp_stage = vpp,
                            .call_id = call, .tag_name = (char *)tag, .message = "", .group_mates = "[0, 1]"};
}

/* The calls of l in list order, for one assertion per test. */
static const char *calls(const struct anomaly_list *l) {
    static char buf[512];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < l->n && o < sizeof buf - 16; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", i ? "," : "", l->v[i].call_id);
    return buf;
}

/* The expected orders below are what msProbe's GradAnomalyData sorts the
 * same entries into (sorted() of its dataclass, checked once by hand). */
static void order_stage_then_pp(void) {
    struct anomaly_list l = {0};
    /* pushed out of order; calls name them */
    struct anomaly v[] = {
        mk(1, 0, "0:a/rank0/exp_avg", 0, 0, 1, 0),      /* optimizer */
        mk(1, 0, "0:a/rank0/actv_grad", 0, 0, 2, 0),    /* backward pp 0 */
        mk(1, 0, "0:a/rank1/actv_grad", 0, 1, 3, 1),    /* backward pp 1: before pp 0 */
        mk(1, 0, "0:a:0/rank1/actv", 0, 1, 4, 1),       /* forward pp 1 */
        mk(1, 0, "0:a:0/rank0/actv", 0, 0, 5, 0),       /* forward pp 0: first of the forward */
        mk(1, 0, "0:a/rank0/cc_thing", 0, 0, 6, 0),     /* no stage: before the forward */
        mk(0, 0, "0:a/rank0/exp_avg_sq", 0, 0, 7, 0),   /* step 0: first of all */
        mk(1, 1, "0:a:1/rank0/actv", 0, 0, 8, 0),       /* micro step 1: after micro step 0's */
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) CHECK_INT(anomaly_push(&l, &v[i], NULL), 0);
    anomaly_sort(&l);
    CHECK_STR(calls(&l), "7,6,5,4,3,2,1,8");
    anomaly_list_free(&l);
}

static void order_vpp_backward_descending(void) {
    struct anomaly_list l = {0};
    /* (vpp, pp): forward ascending, every other stage descending, vpp before pp */
    struct anomaly v[] = {
        mk(2, 0, "0:x/rank0/pre_grad", 0, 0, 1, 0), mk(2, 0, "1:x/rank1/pre_grad", 1, 0, 2, 1),
        mk(2, 0, "0:x/rank2/pre_grad", 0, 1, 3, 2), mk(2, 0, "1:x/rank3/pre_grad", 1, 1, 4, 3),
        mk(2, 0, "0:x:0/rank0/actv", 0, 0, 5, 0),   mk(2, 0, "1:x:0/rank1/actv", 1, 0, 6, 1),
        mk(2, 0, "0:x:0/rank2/actv", 0, 1, 7, 2),   mk(2, 0, "1:x:0/rank3/actv", 1, 1, 8, 3),
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) CHECK_INT(anomaly_push(&l, &v[i], NULL), 0);
    anomaly_sort(&l);
    /* forward (0,0) (0,1) (1,0) (1,1); backward (1,1) (1,0) (0,1) (0,0) */
    CHECK_STR(calls(&l), "5,7,6,8,4,2,3,1");
    anomaly_list_free(&l);
}

static void order_call_then_rank(void) {
    struct anomaly_list l = {0};
    struct anomaly v[] = {
        mk(0, 0, "0:b/rank1/post_grad", 0, 0, 9, 1), mk(0, 0, "0:b/rank0/post_grad", 0, 0, 9, 0),
        mk(0, 0, "0:b/rank0/post_grad", 0, 0, -1, 2),
    };
    for (size_t i = 0; i < 3; i++) CHECK_INT(anomaly_push(&l, &v[i], NULL), 0);
    anomaly_sort(&l);
    CHECK_INT(l.v[0].rank, 2);   /* call id -1 (unknown) first */
    CHECK_INT(l.v[1].rank, 0);   /* same call: rank ascending */
    CHECK_INT(l.v[2].rank, 1);
    anomaly_list_free(&l);
}

static void tag_parts_and_message(void) {
    char name[256];
    int32_t micro;
    const char *key;
    CHECK_INT(anomaly_tag_parts("0:layers.0.mlp.output:1/rank0/actv", name, sizeof name, &micro, &key), 0);
    CHECK_STR(name, "layers.0.mlp.output");
    CHECK_INT(micro, 1);
    CHECK_STR(key, "actv");
    CHECK_INT(anomaly_tag_parts("1:1.post_attention_norm.weight/rank3/pre_grad", name, sizeof name, &micro, &key), 0);
    CHECK_STR(name, "1.post_attention_norm.weight");
    CHECK_INT(micro, -1);
    CHECK_STR(key, "pre_grad");
    CHECK_INT(anomaly_tag_parts("no slash here", name, sizeof name, &micro, &key), -1);
    CHECK_INT(anomaly_tag_parts("a/b:c", name, sizeof name, &micro, &key), -1);
    CHECK_INT(anomaly_stage_of("0:x/rank0/acc_grad"), ANOM_STAGE_BACKWARD);
    CHECK_INT(anomaly_stage_of("0:x/rank0/param_origin"), ANOM_STAGE_OTHER);
    CHECK_INT(anomaly_stage_of("0:x:0/rank0/actv"), ANOM_STAGE_FORWARD);
    CHECK_INT(anomaly_rule_of("Rule AnomalyNan reports anomaly signal in ('t', 'min') at step 3"), ANOM_RULE_NAN);
    CHECK_INT(anomaly_rule_of("Rule AnomalyTurbulence reports"), ANOM_RULE_TURBULENCE);
    CHECK_INT(anomaly_rule_of("something else"), ANOM_RULE_OTHER);
    struct anomaly_list l = {0};
    struct anomaly a = mk(3, 0, "t", 0, 0, 0, 0);
    a.message = "Rule AnomalyNan reports anomaly signal in ('0:x/rank0/actv', 'min') at step 3, current value nan.";
    CHECK_INT(anomaly_push(&l, &a, NULL), 0);
    CHECK_STR(l.v[0].op, "min");
    CHECK_INT(anomaly_gate_level(&l.v[0]), OVF_CRITICAL);
    anomaly_list_free(&l);
}

static int only_rank1(const struct anomaly *a, void *ctx) {
    (void)ctx;
    return a->rank == 1;
}

/* The overflow listing's rows: the reports first, in the list's order,
 * before the NaN/Inf rows; a filter applies to them. */
static void rows_first(void) {
    struct anomaly_list l = {0};
    struct ovf_list ov = {0};
    struct ovfrows rows = {0};
    for (int i = 0; i < PT_ANOM_N; i++) {
        const struct pt_anom *f = &pt_anoms[i];
        struct anomaly a = mk(f->step, f->micro_step, f->tag, f->vpp_stage, f->pp_stage, f->call_id, f->rank);
        a.message = f->rule[7] == 'N' ? "Rule AnomalyNan reports" : "Rule AnomalyTurbulence reports";
        CHECK_INT(anomaly_push(&l, &a, NULL), 0);
    }
    anomaly_sort(&l);
    struct ovf_entry e = {.step = 1, .micro = 0, .rank = 0, .level = OVF_NONE, .name = "x", .what = "actv norm=nan"};
    CHECK_INT(ovf_list_add(&ov, &e), 0);
    CHECK_INT(ovfrows_build(&ov, NULL, NULL, &rows, NULL), 0);
    CHECK_INT(ovfrows_add_anomalies(&rows, &l, NULL, NULL, NULL), 0);
    CHECK_INT(rows.n, PT_ANOM_N + 1);
    CHECK_INT(rows.records, 1);   /* the reports are not records */
    for (int i = 0; i < PT_ANOM_N && (size_t)i < rows.n; i++) {
        CHECK_INT(rows.v[i].section, OVFROWS_ANOMALY);
        CHECK_STR(l.v[rows.v[i].entry].tag_name, pt_anoms[PT_ANOM_ORDER[i]].tag);
    }
    CHECK_INT(rows.v[1].level, OVF_CRITICAL);   /* the AnomalyNan */
    CHECK_INT(rows.v[0].level, OVF_HIGH);
    CHECK_INT(rows.v[PT_ANOM_N].section, OVFROWS_NONFINITE);
    CHECK_INT(ovfrows_build(&ov, NULL, NULL, &rows, NULL), 0);
    CHECK_INT(ovfrows_add_anomalies(&rows, &l, only_rank1, NULL, NULL), 0);
    CHECK_INT(rows.n, 3 + 1);
    ovfrows_free(&rows);
    ovf_list_free(&ov);
    anomaly_list_free(&l);
}

static struct dataset *load(const char *path, int micro) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    load_opts_init(&lo);
    lo.micro_step = micro;
    if (load_dataset(path, &lo, &ds, &err) != 0) fprintf(stderr, "load %s: %s\n", path, err.msg);
    return ds;
}

/* The list is the fixture's, in msProbe's order. */
static void check_order(const struct anomaly_list *l) {
    CHECK_INT(l->n, PT_ANOM_N);
    for (size_t i = 0; i < l->n && i < PT_ANOM_N; i++) {
        const struct pt_anom *want = &pt_anoms[PT_ANOM_ORDER[i]];
        CHECK_STR(l->v[i].tag_name, want->tag);
        CHECK_INT(l->v[i].call_id, want->call_id);
        CHECK_STR(l->v[i].op, want->op);
    }
}

/* Entry i of the list lands on (metric, step origin, micro, rank, target name). */
static void check_cell(const struct dataset *ds, size_t i, const char *metric, int step, int micro, int rank,
                       const char *target, const char *stat) {
    const struct cube *c = ds->cube;
    const struct anomaly *a = &ds->anomalies.v[i];
    CHECK(a->metric >= 0);
    if (a->metric < 0) return;
    CHECK_STR(c->metrics[a->metric].name, metric);
    CHECK_INT(c->steps[a->step_idx].origin, step);
    CHECK_INT(c->steps[a->step_idx].micro, micro);
    CHECK_INT(c->ranks[a->rank_idx], rank);
    CHECK_STR(names_str(c->names, a->target), target);
    CHECK(a->stat >= 0);
    if (a->stat >= 0) CHECK_STR(c->metrics[a->metric].stats[a->stat], stat);
    CHECK_INT(anomaly_at(&ds->anomalies, a->metric, a->step_idx, a->rank_idx, a->target), (long)i);
}

static void reader_v1_tree(void) {
    const char *dir = pt_tmpdir("anom_v1");
    CHECK(dir && pt_anom_v1(dir) == 0);
    struct dataset *ds = load(dir, 1);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_STR(formats_name(ds->format), "monitor");
    CHECK_INT(ds->nwarnings, 0);
    check_order(&ds->anomalies);
    CHECK_INT(ds->anomalies.nfiles, 2);
    CHECK_INT(ds->anomalies.placed, PT_ANOM_N);
    CHECK_STR(ds->anomalies.v[0].group_mates, "[0, 1]");
    check_cell(ds, 0, "grad_reduced", 0, 0, 1, "layers.1.mlp.weight", "norm");
    check_cell(ds, 1, "actv", 1, 0, 0, "layers.0.mlp.output", "norm");
    check_cell(ds, 2, "actv", 1, 1, 1, "layers.1.mlp.output", "max");
    check_cell(ds, 3, "actv_grad", 1, 1, 1, "layers.1.mlp.output", "norm");
    /* the NaN the AnomalyNan entry names is in its cell */
    const struct anomaly *a = &ds->anomalies.v[1];
    uint32_t lt = cube_local_target(ds->cube, a->metric, a->target);
    CHECK(isnan(cube_get(ds->cube, a->metric, a->stat, lt, a->step_idx, a->rank_idx)));
    CHECK_INT(anomaly_at(&ds->anomalies, a->metric, a->step_idx, 1 - a->rank_idx, a->target), -1);
    dataset_free(ds);
}

/* Reports over finite data: the cube has no non-finite cell (the overflow
 * pane's F then goes to the first report, as A always does: the list's
 * first entry, step 0 rank 1's post_grad). */
static void reports_without_nan(void) {
    const char *dir = pt_tmpdir("anom_v1_finite");
    CHECK(dir && pt_anom_v1_nan(dir, 0) == 0);
    struct dataset *ds = load(dir, 1);
    CHECK(ds != NULL);
    if (!ds) return;
    check_order(&ds->anomalies);
    struct ovf_list own = {0};
    CHECK_INT(ovf_scan_cube(ds->cube, &own, NULL), 0);
    CHECK_INT(own.n, 0);
    CHECK_INT(ovf_first(&own), -1);
    if (ds->anomalies.n) {
        CHECK_INT(ds->anomalies.v[0].step, 0);
        CHECK_INT(ds->anomalies.v[0].rank, 1);
    }
    ovf_list_free(&own);
    dataset_free(ds);
}

static void reader_v1_steps_mode(void) {
    const char *dir = pt_tmpdir("anom_v1s");
    CHECK(dir && pt_anom_v1(dir) == 0);
    struct dataset *ds = load(dir, 0);
    CHECK(ds != NULL);
    if (!ds) return;
    check_order(&ds->anomalies);
    /* without micro steps on the axis the micro step is the target's call */
    const struct anomaly *a = &ds->anomalies.v[2];
    CHECK(a->metric >= 0);
    if (a->metric >= 0) {
        CHECK_INT(names_target(ds->cube->names, a->target)->call, 1);
        CHECK_INT(ds->cube->steps[a->step_idx].value, 1);
    }
    dataset_free(ds);
}

static void reader_v2_tree(void) {
    const char *dir = pt_tmpdir("anom_v2");
    CHECK(dir && pt_anom_v2(dir) == 0);
    struct dataset *ds = load(dir, 1);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_STR(formats_name(ds->format), "monitor_v2");
    check_order(&ds->anomalies);
    CHECK_INT(ds->anomalies.placed, PT_ANOM_N);
    check_cell(ds, 0, "weight_grad/reduced", 0, 0, 1, "layers.1.mlp.weight", "norm");
    check_cell(ds, 1, "module/forward", 1, 0, 0, "layers.0.mlp.output.0", "norm");
    check_cell(ds, 3, "module/backward", 1, 1, 1, "layers.1.mlp.grad_output.0", "norm");
    dataset_free(ds);
}

static void opened_alone(void) {
    const char *dir = pt_tmpdir("anom_alone");
    char p[2048];
    CHECK(dir && pt_anom_v1(dir) == 0 && pt_anom_reports(dir, 3) == 0);
    /* the folder: the tree around it, the rank files' list */
    snprintf(p, sizeof p, "%s/anomaly_detected", dir);
    struct dataset *ds = load(p, 1);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_STR(formats_name(ds->format), "anomaly");
        CHECK(cube_metric_find(ds->cube, "actv") >= 0);
        check_order(&ds->anomalies);
        CHECK_INT(ds->anomalies.analyse, 0);
        CHECK_INT(ds->files_read, 6 + 2);   /* the CSVs and the two reports, each once */
        dataset_free(ds);
    }
    /* the analyser's top 3 */
    snprintf(p, sizeof p, "%s/anomaly_detected/anomaly_analyse.json", dir);
    ds = load(p, 1);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->anomalies.n, 3);
        CHECK_INT(ds->anomalies.analyse, 1);
        CHECK_INT(ds->anomalies.placed, 3);
        for (int i = 0; i < 3 && (size_t)i < ds->anomalies.n; i++)
            CHECK_STR(ds->anomalies.v[i].tag_name, pt_anoms[PT_ANOM_ORDER[i]].tag);
        dataset_free(ds);
    }
    /* one rank's file */
    snprintf(p, sizeof p, "%s/anomaly_detected/rank1/anomaly.json", dir);
    ds = load(p, 1);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->anomalies.n, 3);
        CHECK_INT(ds->anomalies.placed, 3);
        CHECK_INT(ds->files_read, 6 + 1);
        dataset_free(ds);
    }
}

static void no_tree_around(void) {
    const char *dir = pt_tmpdir("anom_lone");
    char p[2048];
    CHECK(dir && pt_anom_reports(dir, 2) == 0);
    snprintf(p, sizeof p, "%s/anomaly_detected/anomaly_analyse.json", dir);
    struct dataset *ds = load(p, 1);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->anomalies.n, 2);
    CHECK_INT(ds->anomalies.placed, 0);
    CHECK_INT(ds->cube->nmetrics, 0);
    CHECK(ds->nwarnings >= 1);
    if (ds->nwarnings) CHECK_CONTAINS(ds->warnings[0], "no monitor tree");
    dataset_free(ds);
}

static void truncated_and_odd(void) {
    const char *dir = pt_tmpdir("anom_bad");
    char p[2048];
    CHECK(dir && pt_anom_v1(dir) == 0);
    /* rank1's file cut in the middle of its second entry: the first stands */
    snprintf(p, sizeof p, "%s/anomaly_detected/rank1/anomaly.json", dir);
    CHECK(pt_anom_file(p, "{\"a\": {\"rank\": 1, \"step\": 5, \"tag_name\": \"0:x/rank1/actv_grad\"},\n"
                          " \"k\": {\n  \"rank\": 1,\n  \"step\": ") == 0);
    /* rank0's: one good entry (a member twice: the last counts, as in
     * Python), then odd ones */
    snprintf(p, sizeof p, "%s/anomaly_detected/rank0/anomaly.json", dir);
    CHECK(pt_anom_file(p, "{\"good\": {\"rank\": 0, \"step\": 1, \"step\": 2, \"tag_name\": \"0:layers.0.mlp.output:0/rank0/actv\"},\n"
                          " \"extra\": {\"rank\": 0, \"colour\": 1},\n"
                          " \"badstep\": {\"rank\": 0, \"step\": \"two\"},\n"
                          " \"badtag\": {\"tag_name\": 7},\n"
                          " \"list\": [1, 2],\n"
                          " \"defaults\": {\"group_mates\": []},\n"
                          " \"mates\": {\"group_mates\": [0,\n  \"x\"]}}") == 0);
    struct dataset *ds = load(dir, 1);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK(cube_metric_find(ds->cube, "actv") >= 0);   /* the monitor data still loads */
    CHECK_INT(ds->anomalies.n, 4);                    /* "defaults", "mates", "good", "a" */
    int trunc = 0, unknown = 0, notint = 0, notstr = 0, notobj = 0;
    for (size_t i = 0; i < ds->nwarnings; i++) {
        const char *w = ds->warnings[i];
        if (strstr(w, "rank1/anomaly.json: line 4: JSON ends early") && strstr(w, "the entries before it are shown"))
            trunc = 1;
        if (strstr(w, "rank0/anomaly.json: entry \"extra\": unknown key \"colour\"")) unknown = 1;
        if (strstr(w, "entry \"badstep\": step is not an integer")) notint = 1;
        if (strstr(w, "entry \"badtag\": tag_name is not a string")) notstr = 1;
        if (strstr(w, "entry \"list\": not a JSON object")) notobj = 1;
    }
    CHECK(trunc);
    CHECK(unknown);
    CHECK(notint);
    CHECK(notstr);
    CHECK(notobj);
    if (!trunc) for (size_t i = 0; i < ds->nwarnings; i++) fprintf(stderr, "warning: %s\n", ds->warnings[i]);
    if (ds->anomalies.n == 4) {
        /* msProbe's defaults: step 0 sorts first; then read order */
        CHECK_INT(ds->anomalies.v[0].step, 0);
        CHECK_STR(ds->anomalies.v[0].group_mates, "[]");   /* once a heap overflow (fuzz regress/anomaly) */
        CHECK_STR(ds->anomalies.v[1].group_mates, "[0, \"x\"]");
        CHECK_INT(ds->anomalies.v[2].step, 2);
        CHECK_INT(ds->anomalies.v[3].step, 5);
    }
    dataset_free(ds);
}

/* `probetop overflow ARGS...` in process: its exit code, its stdout in *out. */
static int overflow(char **out, ...) {
    const char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, out);
    argv[argc++] = "overflow";
    for (const char *a; argc < 15 && (a = va_arg(ap, const char *)) != NULL;) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    const char *dir = pt_tmpdir("anom_stdout");
    char path[2048], errf[2048];
    snprintf(path, sizeof path, "%s/out.txt", dir ? dir : "/tmp");
    snprintf(errf, sizeof errf, "%s/err.txt", dir ? dir : "/tmp");
    int rc = pt_capture(path, errf, cmd_overflow_entry.run, argc, argv);
    *out = pt_slurp(path);
    return rc;
}

/* The headless listing: msProbe's order in text, csv and json; how the
 * reports count in the gate (AnomalyNan critical, the other rules high). */
static void cmd_overflow_lists(void) {
    const char *dir = pt_tmpdir("anom_cmd");
    char root[1024];
    CHECK(dir != NULL);
    if (!dir) return;
    snprintf(root, sizeof root, "%s", dir);
    CHECK(pt_anom_v2(root) == 0);
    char *out;
    CHECK_INT(overflow(&out, root, "--format", "json", NULL), 1);
    cJSON *j = cJSON_Parse(out);
    CHECK(j != NULL);
    const cJSON *arr = cJSON_GetObjectItem(j, "anomalies");
    CHECK_INT(cJSON_GetArraySize(arr), PT_ANOM_N);
    for (int i = 0; i < PT_ANOM_N && i < cJSON_GetArraySize(arr); i++) {
        const cJSON *a = cJSON_GetArrayItem(arr, i);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(a, "tag_name")), pt_anoms[PT_ANOM_ORDER[i]].tag);
        CHECK(cJSON_IsObject(cJSON_GetObjectItem(a, "cell")));
    }
    const cJSON *c1 = cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 1), "cell");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c1, "metric")), "module/forward");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c1, "target")), "layers.0.mlp.output.0");
    CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 1), "rule")), "AnomalyNan");
    CHECK_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "anomalies")->valueint, PT_ANOM_N);
    cJSON_Delete(j);
    free(out);
    /* text: the reports in order, before the non-finite cells */
    CHECK_INT(overflow(&out, root, NULL), 1);
    const char *prev = out;
    for (int i = 0; i < PT_ANOM_N && prev; i++) {
        const char *at = strstr(prev, pt_anoms[PT_ANOM_ORDER[i]].tag);
        CHECK(at != NULL);
        prev = at ? at + 1 : NULL;
    }
    CHECK_CONTAINS(out, "msProbe anomaly reports: 5, first-anomaly order");
    free(out);
    /* csv: kind "anomaly" rows first */
    CHECK_INT(overflow(&out, root, "--format", "csv", NULL), 1);
    CHECK_CONTAINS(out, "\nhigh,0,0,1,5,0:layers.1.mlp.weight/rank1/post_grad,");
    CHECK_CONTAINS(out, ",anomaly,1,1,1\ncritical,1,0,0,3,0:layers.0.mlp.output:0/rank0/actv,");
    free(out);
    /* the gate on the reports alone (no cells): the top 1 is a turbulence */
    char lone[1200], lp[2048];
    snprintf(lone, sizeof lone, "%s/lone", root);
    CHECK(pt_anom_reports(lone, 1) == 0);
    snprintf(lp, sizeof lp, "%s/anomaly_detected/anomaly_analyse.json", lone);
    CHECK_INT(overflow(&out, lp, NULL), 0);
    free(out);
    CHECK_INT(overflow(&out, lp, "--fail-on", "high", NULL), 1);
    free(out);
    CHECK(pt_anom_reports(lone, 2) == 0);   /* now with the AnomalyNan */
    CHECK_INT(overflow(&out, lp, NULL), 1);
    free(out);
}

int main(void) {
    RUN(order_stage_then_pp);
    RUN(order_vpp_backward_descending);
    RUN(order_call_then_rank);
    RUN(tag_parts_and_message);
    RUN(rows_first);
    RUN(reader_v1_tree);
    RUN(reader_v1_steps_mode);
    RUN(reports_without_nan);
    RUN(reader_v2_tree);
    RUN(opened_alone);
    RUN(no_tree_around);
    RUN(truncated_and_odd);
    RUN(cmd_overflow_lists);
    PT_DONE();
}
