/* The monitor's L2 "interpretable feature" CSVs in a v1 monitor tree
 * (probetop-formats(5), MONITOR CSV TREES): read as metrics after the nine
 * of msProbe's data2db, in their fixed order, with their statistics; left
 * out of a .trend.db as msProbe's data2db leaves them out.
 *
 * The tree is written here from the documented format (msProbe's monitor
 * user guide, "l2可解释特征监测", and its CSV writer): per rank folder
 * `<hook>_<a>-<b>.csv` with the header `vpp_stage,name,step[,micro_step],<stats>`,
 * micro_step for attention_hook and moe_router_logit_hook only; names are
 * the module's with `.attention`, `.linear` or `.moe_router` appended; a
 * NaN is written `nan`. */
#include <sqlite3.h>
#include <sys/stat.h>

#include "pt_cube.h"
#include "pt_test.h"

#include "src/cmd/cmd.h"
#include "src/io/load.h"
#include "src/io/formats.h"
#include "src/io/trenddb/write_trenddb.h"

static const char *ATTN = "layers.0.self_attention.core_attention.flash_attention.attention";
static const char *LIN = "layers.0.self_attention.linear_qkv.linear";
static const char *ROUTER = "layers.0.mlp.router.gate.moe_router";

static const char ACTV[] = "vpp_stage,name,step,micro_step,norm,min,max,nans,mean\n"
                           "0,layers.0.mlp.output,0,0,1.5,-1,1,0,0.1\n"
                           "0,layers.0.mlp.output,0,1,2.5,-1,1,0,0.2\n"
                           "0,layers.0.mlp.output,1,0,3.5,-1,1,0,0.3\n";

static const struct { const char *file, *text; } L2[] = {
    {"attention_hook_0-1.csv", "vpp_stage,name,step,micro_step,entropy,softmax_max\n"
                               "0,layers.0.self_attention.core_attention.flash_attention.attention,0,0,2.25,0.5\n"
                               "0,layers.0.self_attention.core_attention.flash_attention.attention,0,1,2.5,0.625\n"
                               "0,layers.0.self_attention.core_attention.flash_attention.attention,1,0,nan,0.75\n"},
    {"linear_hook_0-1.csv", "vpp_stage,name,step,sr,kernel_norm\n"
                            "0,layers.0.self_attention.linear_qkv.linear,0,3.125,12.5\n"
                            "0,layers.0.self_attention.linear_qkv.linear,1,3.25,13.0\n"},
    {"moe_router_weight_hook_0-1.csv", "vpp_stage,name,step,router_weight_similarity\n"
                                       "0,layers.0.mlp.router.gate.moe_router,0,0.125\n"
                                       "0,layers.0.mlp.router.gate.moe_router,1,0.25\n"},
    {"moe_router_logit_hook_0-1.csv", "vpp_stage,name,step,micro_step,per_token_expert_entropy\n"
                                      "0,layers.0.mlp.router.gate.moe_router,0,0,1.75\n"
                                      "0,layers.0.mlp.router.gate.moe_router,0,1,inf\n"
                                      "0,layers.0.mlp.router.gate.moe_router,1,0,1.5\n"},
};

/* A two-rank tree under dir/name; with l2 the four L2 files beside actv. */
static const char *write_tree(const char *dir, const char *name, int l2, char *p, size_t size) {
    char f[4096];
    snprintf(p, size, "%s/%s", dir, name);
    mkdir(p, 0755);
    for (int r = 0; r < 2; r++) {
        char rd[2048];
        snprintf(rd, sizeof rd, "%s/Dec03_21-34-40-rank%d-ab%d", p, r, r);
        mkdir(rd, 0755);
        snprintf(f, sizeof f, "%s/actv_0-1.csv", rd);
        if (pt_write(f, ACTV) != 0) return NULL;
        for (size_t i = 0; l2 && i < sizeof L2 / sizeof *L2; i++) {
            snprintf(f, sizeof f, "%s/%s", rd, L2[i].file);
            if (pt_write(f, L2[i].text) != 0) return NULL;
        }
    }
    return p;
}

static struct dataset *load(const char *path, int micro) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    struct pt_error err;
    load_opts_init(&lo);
    lo.micro_step = micro;
    if (load_dataset(path, &lo, &ds, &err) != 0) fprintf(stderr, "%s\n", err.msg);
    return ds;
}

static char *stats_of(const struct cube *c, int m, char *buf, size_t size) {
    size_t o = 0;
    buf[0] = '\0';
    for (int s = 0; s < c->metrics[m].nstats && o < size; s++)
        o += (size_t)snprintf(buf + o, size - o, "%s%s", s ? "," : "", c->metrics[m].stats[s]);
    return buf;
}

/* Metrics in their fixed order, their statistics, values, micro steps as
 * calls, labels and non-finite counts, steps without micro steps. */
static void l2_values(void) {
    const char *dir = pt_tmpdir("monitor_l2_values");
    char p[2048], buf[256];
    if (!dir || !write_tree(dir, "t", 1, p, sizeof p)) SKIP("no temp dir");
    struct dataset *ds = load(p, 0);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_STR(formats_name(ds->format), "monitor");
    CHECK_INT(c->nmetrics, 5);
    static const char *const order[] = {"actv", "attention_hook", "linear_hook", "moe_router_weight_hook",
                                        "moe_router_logit_hook"};
    static const char *const stats[] = {"norm,min,max,nans,mean", "entropy,softmax_max", "sr,kernel_norm",
                                        "router_weight_similarity", "per_token_expert_entropy"};
    for (int m = 0; m < 5 && m < c->nmetrics; m++) {
        CHECK_STR(c->metrics[m].name, order[m]);
        CHECK_STR(stats_of(c, m, buf, sizeof buf), stats[m]);
    }
    CHECK_INT(c->nsteps, 2);
    CHECK_NEAR(pt_cube_value(ds, "attention_hook", "entropy", ATTN, 0, 0, 1), 2.25, 0);
    CHECK_NEAR(pt_cube_value(ds, "attention_hook", "softmax_max", ATTN, 1, 0, 0), 0.625, 0);   /* micro step 1: call 1 */
    CHECK(isnan(pt_cube_value(ds, "attention_hook", "entropy", ATTN, 0, 1, 1)));
    CHECK_NEAR(pt_cube_value(ds, "linear_hook", "sr", LIN, 0, 1, 0), 3.25, 0);
    CHECK_NEAR(pt_cube_value(ds, "linear_hook", "kernel_norm", LIN, 0, 0, 1), 12.5, 0);
    CHECK_NEAR(pt_cube_value(ds, "moe_router_weight_hook", "router_weight_similarity", ROUTER, 0, 1, 1), 0.25, 0);
    float inf = pt_cube_value(ds, "moe_router_logit_hook", "per_token_expert_entropy", ROUTER, 1, 0, 0);
    CHECK(isinf(inf) && inf > 0);
    CHECK_NEAR(pt_cube_value(ds, "moe_router_logit_hook", "per_token_expert_entropy", ROUTER, 0, 1, 1), 1.5, 0);
    /* one name in two metrics is one target of each */
    CHECK(cube_local_target(c, 3, names_find(c->names, ROUTER, strlen(ROUTER), 0, 0)) != UINT32_MAX);
    CHECK(cube_local_target(c, 4, names_find(c->names, ROUTER, strlen(ROUTER), 0, 0)) != UINT32_MAX);
    /* labels by the monitor rules */
    CHECK(names_label_find(c->names, "layers.0", LABEL_LAYER) != NAMES_NONE);
    CHECK(names_label_find(c->names, "moe_router", LABEL_MODULE) != NAMES_NONE);
    CHECK(names_label_find(c->names, "linear_qkv", LABEL_MODULE) != NAMES_NONE);
    /* the nan (attention, step 1) and the inf (router logits, step 0) on both ranks */
    CHECK_INT(cube_count_nonfinite(c, 1, -1, -1), 2);
    CHECK_INT(cube_count_nonfinite(c, 4, cube_step_find(c, 0), -1), 2);
    CHECK_INT(cube_count_nonfinite(c, 0, -1, -1) + cube_count_nonfinite(c, 2, -1, -1) +
              cube_count_nonfinite(c, 3, -1, -1), 0);
    CHECK_INT(ds->nwarnings, 0);
    CHECK_INT(ds->files_read, 10);
    dataset_free(ds);
}

/* Micro steps on: step 0 holds two (attention and router logits write one
 * row per micro-batch), step 1 one; files without micro_step land on their
 * step's first. */
static void l2_micro(void) {
    const char *dir = pt_tmpdir("monitor_l2_micro");
    char p[2048];
    if (!dir || !write_tree(dir, "t", 1, p, sizeof p)) SKIP("no temp dir");
    struct dataset *ds = load(p, 1);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->cube->nsteps, 3);
    CHECK_NEAR(pt_cube_value(ds, "attention_hook", "softmax_max", ATTN, 0, 1, 0), 0.625, 0);
    CHECK_NEAR(pt_cube_value(ds, "attention_hook", "softmax_max", ATTN, 0, 2, 0), 0.75, 0);
    CHECK_NEAR(pt_cube_value(ds, "linear_hook", "sr", LIN, 0, 2, 1), 3.25, 0);
    CHECK(cube_is_missing(pt_cube_value(ds, "linear_hook", "sr", LIN, 0, 1, 1)));   /* no row at micro step 1 */
    CHECK_NEAR(pt_cube_value(ds, "moe_router_logit_hook", "per_token_expert_entropy", ROUTER, 0, 2, 0), 1.5, 0);
    dataset_free(ds);
}

/* sql's rows, one per line, columns tab-separated, into buf. */
static char *dump_sql(const char *db, const char *sql, char *buf, size_t size) {
    sqlite3 *h;
    sqlite3_stmt *q;
    size_t o = 0;
    buf[0] = '\0';
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW && o < size)
            for (int i = 0; i < sqlite3_column_count(q) && o < size; i++) {
                const unsigned char *t = sqlite3_column_text(q, i);
                o += (size_t)snprintf(buf + o, size - o, "%s%s", t ? (const char *)t : "NULL",
                                      i + 1 < sqlite3_column_count(q) ? "\t" : "\n");
            }
        sqlite3_finalize(q);
    }
    sqlite3_close(h);
    return buf;
}

static int write_db(const char *tree, const char *out, struct dataset *notes, struct pt_error *err) {
    struct load_opts lo;
    struct tdb_result res;
    load_opts_init(&lo);
    mkdir(out, 0755);
    return formats_find("monitor")->write_trenddb(tree, out, &lo, notes, &res, err);
}

/* data2db: msProbe's data2db imports no L2 file (their names are no metric
 * of its trend database): the database equals that of the tree without
 * them, and a note says what was left out. */
static void l2_data2db(void) {
    const char *dir = pt_tmpdir("monitor_l2_db");
    char p[2048], q[2048], out[2300], ref[2300];
    if (!dir || !write_tree(dir, "t", 1, p, sizeof p) || !write_tree(dir, "plain", 0, q, sizeof q))
        SKIP("no temp dir");
    struct pt_error err;
    struct dataset *notes = calloc(1, sizeof *notes);
    snprintf(out, sizeof out, "%s/out", dir);
    CHECK_INT(write_db(p, out, notes, &err), 0);
    CHECK_INT(notes->nwarnings, 1);
    if (notes->nwarnings) CHECK_CONTAINS(notes->warnings[0], "8 L2 feature files (attention_hook, linear_hook");
    dataset_free(notes);
    notes = calloc(1, sizeof *notes);
    snprintf(ref, sizeof ref, "%s/ref", dir);
    CHECK_INT(write_db(q, ref, notes, &err), 0);
    CHECK_INT(notes->nwarnings, 0);
    dataset_free(notes);
    strcat(out, "/monitor_data.trend.db");
    strcat(ref, "/monitor_data.trend.db");
    static const char *const sql[] = {
        "SELECT * FROM global_stats", "SELECT * FROM monitoring_metrics", "SELECT * FROM monitoring_targets",
        "SELECT * FROM trend_data ORDER BY rank, step, target_id, metric_id",
        "SELECT tag_name, category, metric_id FROM monitoring_tags ORDER BY tag_name",
        "SELECT group_concat(name) FROM pragma_table_info('trend_data')"};
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        static char a[8192], b[8192];
        CHECK_STR(dump_sql(out, sql[i], a, sizeof a), dump_sql(ref, sql[i], b, sizeof b));
    }
    char buf[256];
    CHECK_STR(dump_sql(out, "SELECT group_concat(name) FROM pragma_table_info('trend_data')", buf, sizeof buf),
              "rank,step,target_id,metric_id,norm,min,max,nans,mean\n");
}

/* A tree of L2 files only: probetop opens it; data2db, like msProbe's,
 * finds no file to import. */
static void l2_only(void) {
    const char *dir = pt_tmpdir("monitor_l2_only");
    char p[2048], f[4096], out[2300];
    if (!dir || !write_tree(dir, "t", 1, p, sizeof p)) SKIP("no temp dir");
    for (int r = 0; r < 2; r++) {
        snprintf(f, sizeof f, "%s/Dec03_21-34-40-rank%d-ab%d/actv_0-1.csv", p, r, r);
        CHECK_INT(unlink(f), 0);
    }
    struct dataset *ds = load(p, 0);
    CHECK(ds != NULL);
    if (ds) CHECK_INT(ds->cube->nmetrics, 4);
    dataset_free(ds);
    struct pt_error err;
    struct dataset *notes = calloc(1, sizeof *notes);
    snprintf(out, sizeof out, "%s/out", dir);
    CHECK_INT(write_db(p, out, notes, &err), -1);
    CHECK_CONTAINS(err.msg, "no <metric>_<a>-<b>.csv file in the rank folders: no database written");
    dataset_free(notes);
    snprintf(f, sizeof f, "%s/monitor_data.trend.db", out);
    CHECK(access(f, F_OK) != 0);
}

/* info and overflow name the L2 metrics, their statistics and their
 * non-finite cells (info's columns widen to the longest metric name). */
static void l2_commands(void) {
    const char *dir = pt_tmpdir("monitor_l2_cmd");
    char p[2048], o[2100], e[2100];
    if (!dir || !write_tree(dir, "t", 1, p, sizeof p)) SKIP("no temp dir");
    snprintf(o, sizeof o, "%s/out.txt", dir);
    snprintf(e, sizeof e, "%s/err.txt", dir);
    const char *argv[] = {"info", p};
    CHECK_INT(pt_capture(o, e, cmd_info_entry.run, 2, argv), EXIT_OK);
    char *out = pt_slurp(o);
    CHECK_CONTAINS(out, "\n  actv                        1 targets  stats norm,min,max,nans,mean  non-finite 0\n");
    CHECK_CONTAINS(out, "\n  moe_router_weight_hook      1 targets  stats router_weight_similarity  non-finite 0\n");
    CHECK_CONTAINS(out, "\n  moe_router_logit_hook       1 targets  stats per_token_expert_entropy  non-finite 2\n");
    free(out);
    const char *argv3[] = {"overflow", p};
    CHECK_INT(pt_capture(o, e, cmd_overflow_entry.run, 2, argv3), EXIT_FOUND);
    out = pt_slurp(o);
    CHECK_CONTAINS(out, "counts: nonfinite 4");
    CHECK_CONTAINS(out, "first occurrence: non-finite at step 0 micro step 1, rank 0");
    CHECK_CONTAINS(out, "moe_router_logit_hook per_token_expert_entropy=inf");
    CHECK_CONTAINS(out, "attention_hook entropy=nan");
    free(out);
}

int main(void) {
    RUN(l2_values);
    RUN(l2_micro);
    RUN(l2_data2db);
    RUN(l2_only);
    RUN(l2_commands);
    PT_DONE();
}
