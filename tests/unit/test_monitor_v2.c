/* The monitor_v2 reader (probetop-formats(5), MONITOR V2 CSV TREES): the
 * real fixture's values, labels, micro steps and NaNs; a generated tree
 * with a planted NaN; a tree being written (cut last row, CRLF) and a bad
 * header.  data2db of v2 trees: the .trend.db read back and compared cell
 * by cell with the cube of the same tree (the mapping of v2 scopes onto
 * msProbe's v1 metrics, probetop-formats(5), MONITOR V2 CSV TREES). */
#include <sqlite3.h>
#include <sys/stat.h>

#include "pt_cube.h"
#include "pt_test.h"

#include "model/layout/layout.h"
#include "src/cmd/cmd.h"
#include "src/io/load.h"
#include "src/io/formats.h"
#include "src/io/monitor/read_monitor_v2.h"
#include "src/io/trenddb/write_trenddb.h"

static struct dataset *load(const char *path, int micro, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    lo.micro_step = micro;
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static size_t nonfinite(const struct cube *c, int step, int rank) {
    size_t n = 0;
    for (int m = 0; m < c->nmetrics; m++) n += cube_count_nonfinite(c, m, step, rank);
    return n;
}

/* gen_dump.py --monitor-v2 with args into a fresh folder named tag; the
 * tree's path into path.  -1 (the caller skips) without python
 * or a working generator. */
static int gen_tree(const char *tag, const char *args, char *path, size_t size) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared(), *dir = pt_tmpdir(tag);
    char cmd[4096];
    if (!py || !py[0] || !s || !dir) return -1;
    snprintf(path, size, "%s/t", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --monitor-v2 --out '%s' %s --quiet >/dev/null 2>&1", py, s,
             path, args);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *EMB = "module.module.embedding.word_embeddings.output.0";
static const char *EMBW = "module.module.embedding.word_embeddings.weight";

static void fixture_micro(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!p) SKIP("fixtures absent");
    struct pt_error err;
    struct dataset *ds = load(p, 1, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_STR(formats_name(ds->format), "monitor_v2");
    CHECK_INT(c->nmetrics, 8);
    CHECK(cube_metric_find(c, "module/forward") >= 0);
    CHECK(cube_metric_find(c, "module/backward") >= 0);
    CHECK(cube_metric_find(c, "weight_grad/unreduced") >= 0);
    CHECK(cube_metric_find(c, "optimizer/exp_avg_sq") >= 0);
    CHECK(cube_metric_find(c, "param/param_updated") >= 0);
    CHECK_INT(c->nranks, 2);
    /* 3 steps x micro steps 0..1: the module rows' two calls; weight_grad's
     * micro_step 2 (counted from 1) is micro step 1 */
    CHECK_INT(c->nsteps, 6);
    /* rank_1/module_step1-1.csv line 3: step 1, micro step 0 = axis value 2 */
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "norm", EMB, 0, 2, 1), 75.6707342469008, 1e-4);
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "max", EMB, 0, 2, 1), 0.2265625, 1e-7);
    /* rank_1/weight_grad_step0-0.csv line 2: step 0, micro_step 2 = axis value 1 */
    CHECK_NEAR(pt_cube_value(ds, "weight_grad/unreduced", "norm", EMBW, 0, 1, 1), 0.2889502402716803, 1e-7);
    CHECK(names_label_find(c->names, "layers.1", LABEL_LAYER) != NAMES_NONE);
    CHECK_INT(ds->nwarnings, 0);
    dataset_free(ds);
}

static void fixture_steps(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!p) SKIP("fixtures absent");
    struct pt_error err;
    struct dataset *ds = load(p, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_INT(c->nsteps, 3);
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "norm", EMB, 0, 1, 1), 75.6707342469008, 1e-4);
    /* the module rows of the second micro-batch (call order) are call 1 */
    CHECK(names_find(c->names, EMB, strlen(EMB), 0, 1) != NAMES_NONE);
    /* the planted NaN: 196 rows, 784 cells (4 of min,max,mean,norm each) at step 2 rank 1, none elsewhere */
    CHECK_INT(nonfinite(c, cube_step_find(c, 2), cube_rank_find(c, 1)), 784);
    CHECK_INT(nonfinite(c, -1, -1), 784);
    CHECK(isnan(pt_cube_value(ds, "module/forward", "norm", "module.module.decoder.layers.1.mlp.linear_fc1.output.0", 0, 2, 1)));
    dataset_free(ds);
}

static void generated_nan(void) {
    char cmd[4096];
    if (gen_tree("monitor_v2_gen", "--steps 3 --ranks 2 --layers 2 --nan 1:0:layers.1", cmd, sizeof cmd) != 0)
        SKIP("python, the test data (PT_SHARED) or the generator absent");
    struct pt_error err;
    struct dataset *ds = load(cmd, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_STR(formats_name(ds->format), "monitor_v2");
    CHECK_INT(c->nranks, 2);
    CHECK_INT(c->nsteps, 3);
    CHECK(nonfinite(c, cube_step_find(c, 1), cube_rank_find(c, 0)) > 0);
    CHECK_INT(nonfinite(c, cube_step_find(c, 0), -1), 0);
    CHECK_INT(nonfinite(c, -1, cube_rank_find(c, 1)), 0);
    CHECK(names_label_find(c->names, "layers.1", LABEL_LAYER) != NAMES_NONE);
    dataset_free(ds);
}

static void hostile(void) {
    const char *dir = pt_tmpdir("monitor_v2_hostile");
    if (!dir) SKIP("no temp dir");
    char p[2048], f[2100];
    snprintf(p, sizeof p, "%s/t", dir);
    mkdir(p, 0755);
    snprintf(f, sizeof f, "%s/rank_3", p);
    mkdir(f, 0755);
    /* CRLF, python floats, a row with a bad step, a last row still being written */
    snprintf(f, sizeof f, "%s/rank_3/module_step4-4.csv", p);
    CHECK_INT(pt_write(f, "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\r\n"
                          "0,4,m.layers.0.output.0,forward,-inf,inf,nan,2.5,1.0\r\n"
                          "0,x,m.layers.0.output.0,forward,1,2,3,4,0\r\n"
                          "0,4,m.layers.0.output.0,forward,1.0,2.0,1.5,3.5,0.0\r\n"
                          "0,4,m.layers.1.output.0,forward,1.0,2"), 0);
    struct pt_error err;
    struct dataset *ds = load(p, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    float v = pt_cube_value(ds, "module/forward", "max", "m.layers.0.output.0", 0, 4, 3);
    CHECK(isinf(v) && v > 0);
    CHECK(isnan(pt_cube_value(ds, "module/forward", "mean", "m.layers.0.output.0", 0, 4, 3)));
    CHECK_NEAR(pt_cube_value(ds, "module/forward", "norm", "m.layers.0.output.0", 1, 4, 3), 3.5, 0);
    CHECK(names_find(c->names, "m.layers.1.output.0", 19, 0, 0) == NAMES_NONE);   /* the cut row */
    /* the cut row (an old file: its writer is gone) and the bad step */
    CHECK_INT(ds->nwarnings, 2);
    if (ds->nwarnings == 2) {
        CHECK_CONTAINS(ds->warnings[0], "module_step4-4.csv: line 5: the last row has no line end");
        CHECK_CONTAINS(ds->warnings[1], "module_step4-4.csv: line 3");
    }
    CHECK_INT(ds->npartial, 1);
    dataset_free(ds);
    /* a bad header: a note naming file and line, and the load fails when nothing else is left */
    CHECK_INT(pt_write(f, "vpp_stage,step,name,scope,norm\r\n0,4,a,forward,1\r\n"), 0);
    ds = load(p, 0, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "module_step4-4.csv: line 1: header lacks the module_name column");
    /* --format monitor_v2 is a name the table knows */
    CHECK(formats_find("monitor_v2") != NULL);
}

/* ---- data2db: the database against the cube ---- */

/* The cube metric a database metric (v1 name) came from, holding target t
 * (cc's scopes all become `other`: the one whose cube has the target). */
static int cube_metric_of(const struct cube *c, const char *v1, uint32_t t) {
    for (int m = 0; m < c->nmetrics; m++) {
        const char *w = monitor_v2_v1_metric(c->metrics[m].name);
        if (w && !strcmp(w, v1) && cube_local_target(c, m, t) != UINT32_MAX) return m;
    }
    return -1;
}

/* One database cell against the cube's value v (msProbe's normalisation:
 * NaN is NULL, +-Inf +-1000000001, finite values clamped to +-1e9). */
static int cell_equal(sqlite3_stmt *q, int col, float v) {
    if (sqlite3_column_type(q, col) == SQLITE_NULL) return isnan(v) && !cube_is_missing(v);
    double d = sqlite3_column_double(q, col);
    if (isinf(v)) return d == (v > 0 ? 1000000001.0 : -1000000001.0);
    double e = v > 1e9 ? 1e9 : v < -1e9 ? -1e9 : v;
    return fabs(d - e) <= 1e-6 * fabs(e) + 1e-30;
}

struct db_check { size_t rows, cells, nonfinite, bad; };

/* Every trend_data row of db against ds's cube (loaded with micro the same
 * as the database was written): each value equals the cube's cell, and the
 * cells compared are all the present cells of the cube's metrics that have
 * a v1 metric. */
static void db_vs_cube(const char *db, const struct dataset *ds, int micro, struct db_check *k) {
    const struct cube *c = ds->cube;
    sqlite3 *h;
    sqlite3_stmt *q;
    memset(k, 0, sizeof *k);
    CHECK_INT(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_prepare_v2(h, "SELECT mm.metric_name, m.target_name, m.vpp_stage, m.micro_step, t.* "
                                    "FROM trend_data t JOIN monitoring_targets m ON t.target_id = m.target_id "
                                    "JOIN monitoring_metrics mm ON t.metric_id = mm.metric_id", -1, &q, NULL),
              SQLITE_OK);
    while (sqlite3_step(q) == SQLITE_ROW) {
        const char *v1 = (const char *)sqlite3_column_text(q, 0), *name = (const char *)sqlite3_column_text(q, 1);
        int vpp = sqlite3_column_int(q, 2), call = sqlite3_column_int(q, 3);
        int rank = sqlite3_column_int(q, 4), step = sqlite3_column_int(q, 5);
        uint32_t t = names_find(c->names, name, strlen(name), vpp, call);
        int m = t == NAMES_NONE ? -1 : cube_metric_of(c, v1, t);
        int si = cube_step_find(c, step), ri = cube_rank_find(c, rank);
        k->rows++;
        if (m < 0 || si < 0 || ri < 0 || (micro && call != 0)) {
            if (!k->bad++) fprintf(stderr, "no cube cell for %s %s:%d:%d step %d rank %d\n", v1, name, vpp, call, step, rank);
            continue;
        }
        uint32_t lt = cube_local_target(c, m, t);
        for (int col = 8; col < sqlite3_column_count(q); col++) {
            int s = cube_stat_find(c, m, sqlite3_column_name(q, col));
            float v = s < 0 ? cube_missing() : cube_get(c, m, s, lt, si, ri);
            if (s < 0 || cube_is_missing(v)) {
                if (sqlite3_column_type(q, col) != SQLITE_NULL && !k->bad++)
                    fprintf(stderr, "%s %s step %d rank %d: %s in the database only\n", v1, name, step, rank,
                            sqlite3_column_name(q, col));
                continue;
            }
            k->cells++;
            k->nonfinite += !isfinite(v);
            if (!cell_equal(q, col, v) && !k->bad++)
                fprintf(stderr, "%s %s:%d:%d step %d rank %d %s: db %.17g, cube %.9g\n", v1, name, vpp, call, step,
                        rank, sqlite3_column_name(q, col), sqlite3_column_double(q, col), v);
        }
    }
    sqlite3_finalize(q);
    sqlite3_close(h);
    size_t present = 0;
    for (int m = 0; m < c->nmetrics; m++)
        if (monitor_v2_v1_metric(c->metrics[m].name)) present += cube_count_present(c, m);
    CHECK_INT(k->bad, 0);
    CHECK_INT(k->cells, present);
}

/* data2db of tree (micro steps on or off) into a fresh folder named tag;
 * the database's path into db.  The notes stay in *notes (freed by the caller). */
static int write_db(const char *tree, int micro, const char *tag, char *db, size_t size, struct dataset **notes) {
    const char *out = pt_tmpdir(tag);
    struct load_opts lo;
    struct tdb_result res;
    struct pt_error err;
    load_opts_init(&lo);
    lo.micro_step = micro;
    *notes = calloc(1, sizeof **notes);
    if (!out || !*notes) return -1;
    int rc = formats_find("monitor_v2")->write_trenddb(tree, out, &lo, *notes, &res, &err);
    if (rc != 0) fprintf(stderr, "%s\n", err.msg);
    snprintf(db, size, "%s/monitor_data.trend.db", out);
    return rc;
}

/* One SQL answer (the first column of the first row) as text into buf. */
static const char *sql1(const char *db, const char *sql, char *buf, size_t size) {
    sqlite3 *h;
    sqlite3_stmt *q;
    buf[0] = '\0';
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
            snprintf(buf, size, "%s", (const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    sqlite3_close(h);
    return buf;
}

/* The fixture both ways; the mapping and the step axis of msProbe's viewer. */
static void db_fixture(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!p) SKIP("fixtures absent");
    for (int micro = 0; micro < 2; micro++) {
        char db[4096], buf[512];
        struct dataset *notes, *ds;
        struct pt_error err;
        struct db_check k;
        CHECK_INT(write_db(p, micro, micro ? "db_fixture_micro" : "db_fixture", db, sizeof db, &notes), 0);
        CHECK_INT(notes->nwarnings, 0);
        dataset_free(notes);
        CHECK((ds = load(p, micro, &err)) != NULL);
        if (!ds) return;
        db_vs_cube(db, ds, micro, &k);
        CHECK_INT(k.rows, 2172);          /* every data row of the 24 files */
        CHECK_INT(k.nonfinite, 784);      /* the planted NaN, as fixture_steps counts it */
        CHECK_STR(sql1(db, "SELECT group_concat(metric_name) FROM (SELECT metric_name FROM monitoring_metrics "
                           "ORDER BY metric_id)", buf, sizeof buf),
                  "actv,actv_grad,exp_avg,exp_avg_sq,grad_unreduced,grad_reduced,param_origin,param_updated");
        CHECK_STR(sql1(db, "SELECT actv FROM global_stats", buf, sizeof buf), "norm,min,max,nans,mean");
        /* steps 0..2, or 3 steps x 2 micro steps */
        CHECK_STR(sql1(db, "SELECT min_step || ',' || max_step || ',' || max_rank FROM global_stats", buf, sizeof buf),
                  micro ? "0,5,1" : "0,2,1");
        /* module rows in call order: the second call is micro step 1 (a target of its own without micro steps) */
        CHECK_STR(sql1(db, "SELECT group_concat(micro_step) FROM monitoring_targets WHERE target_name = "
                           "'module.module.embedding.word_embeddings.output.0'", buf, sizeof buf), micro ? "0" : "0,1");
        /* weight_grad's micro_step 2 (from 1) is micro step 1: at step 0 the second micro step */
        CHECK_STR(sql1(db, "SELECT t.step || ':' || m.micro_step FROM trend_data t JOIN monitoring_targets m USING "
                           "(target_id) JOIN monitoring_metrics USING (metric_id) WHERE metric_name = 'grad_reduced' "
                           "AND rank = 1 ORDER BY t.step LIMIT 1", buf, sizeof buf), micro ? "1:0" : "0:1");
        /* the viewer's tags: layers and modules by msProbe's rule */
        CHECK_STR(sql1(db, "SELECT category FROM monitoring_tags WHERE tag_name = 'layers.1' AND metric_id = 1", buf,
                       sizeof buf), "layer");
        dataset_free(ds);
    }
}

/* A generated tree with a planted NaN at step 1 rank 0 in layers.1. */
static void db_generated(void) {
    char cmd[4096], db[4096], buf[64];
    if (gen_tree("monitor_v2_db_gen", "--steps 4 --ranks 3 --layers 2 --micro-batches 2 --nan 1:0:layers.1", cmd,
                 sizeof cmd) != 0)
        SKIP("python, the test data (PT_SHARED) or the generator absent");
    struct dataset *notes, *ds;
    struct pt_error err;
    struct db_check k;
    CHECK_INT(write_db(cmd, 1, "db_gen_out", db, sizeof db, &notes), 0);
    dataset_free(notes);
    CHECK((ds = load(cmd, 1, &err)) != NULL);
    if (!ds) return;
    db_vs_cube(db, ds, 1, &k);
    CHECK(k.nonfinite > 0);
    CHECK_INT(k.nonfinite, nonfinite(ds->cube, -1, -1));
    /* the NaN rows are rank 0's, at the micro steps of step 1 only */
    CHECK_STR(sql1(db, "SELECT group_concat(DISTINCT rank || ':' || step) FROM trend_data WHERE norm IS NULL", buf,
                   sizeof buf), "0:2,0:3");
    dataset_free(ds);
}

/* tree/rank_<rank>/file with text (the folders made as needed).  0, or -1. */
static int put(const char *tree, int rank, const char *file, const char *text) {
    char f[4096];
    mkdir(tree, 0755);
    snprintf(f, sizeof f, "%s/rank_%d", tree, rank);
    mkdir(f, 0755);
    snprintf(f, sizeof f, "%s/rank_%d/%s", tree, rank, file);
    return pt_write(f, text);
}

/* A tree the test writes (without the generator): two calls of a
 * module, +-inf and nan, weight_grad micro steps from 1, a cc file, a scope
 * v1 has no metric for; --mapping applied to the names of both. */
static void db_written(void) {
    const char *dir = pt_tmpdir("monitor_v2_db_written");
    if (!dir) SKIP("no temp dir");
    char p[2048], f[2200], db[4096], buf[512];
    snprintf(p, sizeof p, "%s/t", dir);
    for (int r = 0; r < 2; r++) {
        CHECK_INT(put(p, r, "module_step3-3.csv", "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\r\n"
                      "0,3,m.layers.0.mlp.output.0,forward,-1.5,2.5,0.5,4.0,0.0\r\n"
                      "0,3,m.layers.0.mlp.output.0,forward,-inf,inf,nan,5e12,3.0\r\n"
                      "0,3,m.layers.0.mlp.grad_input.0,backward,-1,1,0,2,0\r\n"
                      "0,3,m.layers.0.mlp.output.0,recompute,1,1,1,1,0\r\n"), 0);
        CHECK_INT(put(p, r, "weight_grad_step3-3.csv", "vpp_stage,step,module_name,scope,micro_step,min,max,mean,norm,nans\r\n"
                      "0,3,m.layers.0.mlp.weight,unreduced,1,-1,1,0,0.25,0\r\n"
                      "0,3,m.layers.0.mlp.weight,unreduced,2,-1,1,0,0.5,0\r\n"
                      "0,3,m.layers.0.mlp.weight,reduced,2,-2,2,0,0.75,0\r\n"), 0);
        CHECK_INT(put(p, r, "cc.csv", "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\r\n"
                      "0,3,m.layers.0.all_reduce.0,comm,0,8,4,16,0\r\n"), 0);
    }
    snprintf(f, sizeof f, "%s/map.json", dir);
    CHECK_INT(pt_write(f, "{\"mlp\": \"ffn\"}"), 0);
    for (int micro = 0; micro < 2; micro++) {
        struct load_opts lo;
        struct tdb_result res;
        struct pt_error err;
        struct dataset *ds = NULL, *notes = calloc(1, sizeof *notes);
        struct db_check k;
        load_opts_init(&lo);
        lo.micro_step = micro;
        lo.mapping = f;
        snprintf(db, sizeof db, "%s/%s", dir, micro ? "out_micro" : "out");
        mkdir(db, 0755);
        int rc = formats_find("monitor_v2")->write_trenddb(p, db, &lo, notes, &res, &err);
        if (rc != 0) fprintf(stderr, "%s\n", err.msg);
        CHECK_INT(rc, 0);
        /* the recompute scope has no v1 metric: said once, not written */
        CHECK_INT(notes->nwarnings, 1);
        if (notes->nwarnings) CHECK_CONTAINS(notes->warnings[0], "module/recompute: no metric of msProbe's trend");
        dataset_free(notes);
        CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
        if (!ds) return;
        /* --mapping renamed the cube's names as the database's */
        CHECK(names_find(ds->cube->names, "m.layers.0.ffn.output.0", 23, 0, micro ? 0 : 1) != NAMES_NONE);
        CHECK(names_find(ds->cube->names, "m.layers.0.mlp.output.0", 23, 0, 0) == NAMES_NONE);
        /* the cube keeps module/recompute; the comparison leaves it out */
        int rm = cube_metric_find(ds->cube, "module/recompute");
        CHECK(rm >= 0);
        size_t recompute = rm >= 0 ? cube_count_present(ds->cube, rm) : 0;
        CHECK_INT(recompute, 2 * 5);
        strcat(db, "/monitor_data.trend.db");
        db_vs_cube(db, ds, micro, &k);
        dataset_free(ds);
        CHECK_INT(k.rows, 2 * 7);   /* per rank: 2 forward calls, 1 backward, 2 + 1 grads, 1 cc */
        CHECK_STR(sql1(db, "SELECT group_concat(metric_name) FROM (SELECT metric_name FROM monitoring_metrics "
                           "ORDER BY metric_id)", buf, sizeof buf), "actv,actv_grad,grad_unreduced,grad_reduced,other");
        CHECK_STR(sql1(db, "SELECT count(*) FROM monitoring_targets WHERE target_name LIKE '%.mlp.%'", buf, sizeof buf),
                  "0");
        CHECK_STR(sql1(db, "SELECT norm || ',' || max || ',' || min || ',' || nans FROM trend_data JOIN "
                           "monitoring_targets USING (target_id) WHERE target_name = 'm.layers.0.ffn.output.0' AND "
                           "rank = 1 AND (step = 1 OR micro_step = 1)", buf, sizeof buf),
                  "1000000000.0,1000000001.0,-1000000001.0,3.0");
        CHECK_STR(sql1(db, "SELECT group_concat(step || ':' || micro_step || '=' || norm) FROM trend_data JOIN "
                           "monitoring_targets USING (target_id) WHERE metric_id = 3 AND rank = 0", buf, sizeof buf),
                  micro ? "0:0=0.25,1:0=0.5" : "3:0=0.25,3:1=0.5");
    }
}

/* data2db --parallel (W=2 L=4 PP=2: rank 1's layers.0 is layers.2) and
 * --shard 1/2 + 2/2 then --merge: the unsharded database's rows. */
static void db_parallel_shard(void) {
    const char *dir = pt_tmpdir("monitor_v2_db_parallel");
    if (!dir) SKIP("no temp dir");
    char p[2048], out[2300], buf[512];
    snprintf(p, sizeof p, "%s/t", dir);
    for (int r = 0; r < 2; r++) {
        CHECK_INT(put(p, r, "param_step0-0.csv", "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\n"
                      "0,0,m.decoder.layers.0.mlp.weight,param_origin,0,1,0.5,1,0\n"
                      "0,0,m.decoder.layers.1.mlp.weight,param_origin,0,1,0.5,2,0\n"), 0);
    }
    struct layout_config cfg;
    struct pt_error err;
    struct layout *lay = NULL;
    CHECK(layout_config_parse(&cfg, "W=2 L=4 PP=2", &err) == 0 && (lay = layout_new(&cfg, &err)) != NULL);
    if (!lay) return;
    struct load_opts lo;
    struct tdb_result res;
    load_opts_init(&lo);
    lo.layout = lay;
    snprintf(out, sizeof out, "%s/out", dir);
    mkdir(out, 0755);
    struct dataset *notes = calloc(1, sizeof *notes);
    CHECK_INT(formats_find("monitor_v2")->write_trenddb(p, out, &lo, notes, &res, &err), 0);
    CHECK_INT(notes->nwarnings, 0);
    dataset_free(notes);
    strcat(out, "/monitor_data.trend.db");
    CHECK_STR(sql1(out, "SELECT group_concat(rank || ':' || target_name || '=' || norm, ' ') FROM (SELECT * FROM "
                        "trend_data JOIN monitoring_targets USING (target_id) ORDER BY rank, target_name)", buf, sizeof buf),
              "0:m.decoder.layers.0.mlp.weight=1.0 0:m.decoder.layers.1.mlp.weight=2.0 "
              "1:m.decoder.layers.2.mlp.weight=1.0 1:m.decoder.layers.3.mlp.weight=2.0");
    /* the same in two shards, merged */
    snprintf(out, sizeof out, "%s/shards", dir);
    mkdir(out, 0755);
    for (int k = 1; k <= 2; k++) {
        lo.shard_k = k;
        lo.shard_n = 2;
        notes = calloc(1, sizeof *notes);
        CHECK_INT(formats_find("monitor_v2")->write_trenddb(p, out, &lo, notes, &res, &err), 0);
        CHECK_INT(res.min_rank, k - 1);
        dataset_free(notes);
    }
    lo.shard_k = lo.shard_n = 0;
    notes = calloc(1, sizeof *notes);
    int rc = trenddb_merge(out, 1, out, &lo, notes, &res, &err);
    if (rc != 0) fprintf(stderr, "%s\n", err.msg);
    CHECK_INT(rc, 0);
    dataset_free(notes);
    strcat(out, "/monitor_data.trend.db");
    CHECK_STR(sql1(out, "SELECT group_concat(rank || ':' || target_name || '=' || norm, ' ') FROM (SELECT * FROM "
                        "trend_data JOIN monitoring_targets USING (target_id) ORDER BY rank, target_name)", buf, sizeof buf),
              "0:m.decoder.layers.0.mlp.weight=1.0 0:m.decoder.layers.1.mlp.weight=2.0 "
              "1:m.decoder.layers.2.mlp.weight=1.0 1:m.decoder.layers.3.mlp.weight=2.0");
    /* a layout the run does not match: a note naming file and line, names kept */
    layout_free(lay);
    CHECK(layout_config_parse(&cfg, "W=2 L=2 PP=2", &err) == 0 && (lay = layout_new(&cfg, &err)) != NULL);
    if (!lay) return;
    lo.layout = lay;
    snprintf(out, sizeof out, "%s/bad", dir);
    mkdir(out, 0755);
    notes = calloc(1, sizeof *notes);
    CHECK_INT(formats_find("monitor_v2")->write_trenddb(p, out, &lo, notes, &res, &err), 0);
    CHECK(notes->nwarnings >= 1);
    if (notes->nwarnings) CHECK_CONTAINS(notes->warnings[0], "param_step0-0.csv: line 3: --parallel: ");
    dataset_free(notes);
    layout_free(lay);
}

/* ---- the headless commands on v2 trees (in-process, as the binary runs them) ---- */

/* cmd's output for argv (stdout and stderr kept apart) into *out and *errs
 * (malloc'd); its exit code. */
static int run_cmd(const struct cmd_entry *cmd, int argc, const char **argv, char **out, char **errs) {
    const char *dir = pt_tmpdir("cmd");
    char o[2048], e[2048];
    snprintf(o, sizeof o, "%s/out.txt", dir ? dir : ".");
    snprintf(e, sizeof e, "%s/err.txt", dir ? dir : ".");
    int rc = pt_capture(o, e, cmd->run, argc, argv);
    *out = pt_slurp(o);
    *errs = pt_slurp(e);
    return rc;
}

/* info --json on the fixture, with and without micro steps: format, step
 * axis with each position's step, metrics, non-finite cells per metric. */
static void cli_info(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!p) SKIP("fixtures absent");
    char *out, *errs;
    const char *argv[] = {"info", p, "--json"};
    CHECK_INT(run_cmd(&cmd_info_entry, 3, argv, &out, &errs), EXIT_OK);
    CHECK_CONTAINS(out, "\"format\": \"monitor_v2\"");
    CHECK_CONTAINS(out, "\"steps\": [0, 1, 2, 3, 4, 5], \"step_origin\": [0, 0, 1, 1, 2, 2]");
    CHECK_CONTAINS(out, "\"metrics\": [\"module/forward\", \"module/backward\", \"optimizer/exp_avg\", "
                        "\"optimizer/exp_avg_sq\", \"param/param_origin\", \"param/param_updated\", "
                        "\"weight_grad/unreduced\", \"weight_grad/reduced\"]");
    /* the planted NaN: 196 rows of 4 NaN statistics, over the metrics */
    CHECK_CONTAINS(out, "\"nonfinite\": {\"module/forward\": 96, \"module/backward\": 448, \"optimizer/exp_avg\": 60, "
                        "\"optimizer/exp_avg_sq\": 60, \"param/param_origin\": 0, \"param/param_updated\": 0, "
                        "\"weight_grad/unreduced\": 60, \"weight_grad/reduced\": 60}");
    CHECK_CONTAINS(out, "\"files_read\": 24");
    CHECK_CONTAINS(out, "\"warnings\": []");
    free(out);
    free(errs);
    const char *argv2[] = {"info", p, "--json", "--micro_step", "false"};
    CHECK_INT(run_cmd(&cmd_info_entry, 5, argv2, &out, &errs), EXIT_OK);
    CHECK_CONTAINS(out, "\"steps\": [0, 1, 2], \"step_origin\": [0, 1, 2]");
    /* each call a target of its own: 2 x 136 module tensors, the 15 weights for
     * param (call 0) and for weight_grad (call 1), 2 x 15 optimizer states */
    CHECK_CONTAINS(out, "\"targets\": 332");
    free(out);
    free(errs);
}

/* overflow: the planted NaN's rows, where they first appear, the gate. */
static void cli_overflow(void) {
    const char *p = pt_fixture("derived/monitor_v2_output");
    if (!p) SKIP("fixtures absent");
    char *out, *errs;
    const char *argv[] = {"overflow", p, "--limit", "0"};
    CHECK_INT(run_cmd(&cmd_overflow_entry, 4, argv, &out, &errs), EXIT_FOUND);
    CHECK_CONTAINS(out, "(monitor_v2)");
    CHECK_CONTAINS(out, "counts: nonfinite 196");
    CHECK_CONTAINS(out, "first occurrence: non-finite at step 2 micro step 0, rank 1");
    CHECK_CONTAINS(out, "  module.module.decoder.layers.1.mlp.linear_fc1.output.0\n  module/forward norm=nan, min=nan, "
                        "max=nan, mean=nan");
    CHECK_CONTAINS(out, "per step:\n  step 2      nonfinite 196\nper rank:\n  rank 1      nonfinite 196");
    /* the gradients of step 2 (micro_step 2 from 1: micro step 1) */
    CHECK_CONTAINS(out, "nonfinite     2     1     1");
    CHECK_CONTAINS(out, "weight_grad/reduced norm=nan");
    free(out);
    free(errs);
}

/* data2db through the command: what it reports, and the database it wrote
 * read back by info (msProbe stores NaN as NULL: the nans counts remain). */
static void cli_data2db(void) {
    const char *p = pt_fixture("derived/monitor_v2_output"), *dir = pt_tmpdir("cli_v2_data2db");
    if (!p || !dir) SKIP("fixtures absent");
    char db[2048], f[2100];
    char *out, *errs;
    snprintf(db, sizeof db, "%s/out", dir);
    const char *argv[] = {"data2db", "--data", p, "--db", db};
    CHECK_INT(run_cmd(&cmd_data2db_entry, 5, argv, &out, &errs), EXIT_OK);
    CHECK_CONTAINS(errs, "monitor_data.trend.db: 181 targets, 2172 rows, steps 0..5, ranks 0..1");
    free(out);
    free(errs);
    snprintf(f, sizeof f, "%s/monitor_data.trend.db", db);
    const char *argv2[] = {"info", f, "--json"};
    CHECK_INT(run_cmd(&cmd_info_entry, 3, argv2, &out, &errs), EXIT_OK);
    CHECK_CONTAINS(out, "\"metrics\": [\"actv\", \"actv_grad\", \"exp_avg\", \"exp_avg_sq\", \"grad_unreduced\", "
                        "\"grad_reduced\", \"param_origin\", \"param_updated\"]");
    CHECK_CONTAINS(out, "\"metric_targets\": {\"actv\": 80, \"actv_grad\": 56, \"exp_avg\": 15");
    free(out);
    free(errs);
    char buf[64];
    CHECK_STR(sql1(f, "SELECT count(*) FROM trend_data WHERE nans > 0", buf, sizeof buf), "196");
    /* --format monitor_v2 forced, without micro steps */
    snprintf(db, sizeof db, "%s/forced", dir);
    const char *argv3[] = {"data2db", "--data", p, "--db", db, "--format", "monitor_v2", "--micro_step", "false"};
    CHECK_INT(run_cmd(&cmd_data2db_entry, 9, argv3, &out, &errs), EXIT_OK);
    CHECK_CONTAINS(errs, "2172 rows, steps 0..2, ranks 0..1");
    free(out);
    free(errs);
}

/* A generated tree with --nan at step 1 rank 0: info and overflow agree on
 * where, and the micro steps of the generator's micro-batches. */
static void cli_generated(void) {
    char cmd[4096];
    if (gen_tree("cli_v2_gen", "--steps 3 --ranks 2 --layers 2 --micro-batches 2 --nan 1:0:layers.1", cmd,
                 sizeof cmd) != 0)
        SKIP("python, the test data (PT_SHARED) or the generator absent");
    char *out, *errs;
    const char *argv[] = {"info", cmd, "--json"};
    CHECK_INT(run_cmd(&cmd_info_entry, 3, argv, &out, &errs), EXIT_OK);
    CHECK_CONTAINS(out, "\"steps\": [0, 1, 2, 3, 4, 5], \"step_origin\": [0, 0, 1, 1, 2, 2]");
    CHECK_CONTAINS(out, "\"param/param_origin\": 0");
    free(out);
    free(errs);
    const char *argv2[] = {"overflow", cmd};
    CHECK_INT(run_cmd(&cmd_overflow_entry, 2, argv2, &out, &errs), EXIT_FOUND);
    CHECK_CONTAINS(out, "first occurrence: non-finite at step 1 micro step 0, rank 0");
    CHECK_CONTAINS(out, "per rank:\n  rank 0 ");
    CHECK(!strstr(out, "rank 1      nonfinite"));
    CHECK(!strstr(out, "step 0      nonfinite"));
    free(out);
    free(errs);
}

/* Two module_names that differ only past 8191 bytes: never one target (a
 * cut name made the second row a micro step of the first, and data2db a
 * new step of it); both rows are refused with a note naming file and line,
 * the short name beside them is read. */
static void long_names(void) {
    const char *dir = pt_tmpdir("monitor_v2_long");
    if (!dir) SKIP("no temp dir");
    char p[2048], f[2100];
    snprintf(p, sizeof p, "%s/t", dir);
    mkdir(p, 0755);
    snprintf(f, sizeof f, "%s/rank_0", p);
    mkdir(f, 0755);
    snprintf(f, sizeof f, "%s/rank_0/module_step4-4.csv", p);
    size_t L = 9000;
    char *text = malloc(2 * L + 400), *stem = malloc(L + 1);
    if (!text || !stem) { free(text); free(stem); SKIP("no memory"); }
    memset(stem, 'x', L);
    stem[L] = '\0';
    snprintf(text, 2 * L + 400, "vpp_stage,step,module_name,scope,norm\n0,4,m.a,forward,1\n0,4,%sa,forward,2\n"
             "0,4,%sb,forward,3\n", stem, stem);
    CHECK_INT(pt_write(f, text), 0);
    struct pt_error err;
    struct dataset *ds = load(p, 1, &err);
    CHECK(ds != NULL);
    if (ds) {
        const struct cube *c = ds->cube;
        CHECK_INT(c->nsteps, 1);
        CHECK_INT(names_count(c->names), 1);
        CHECK(names_find(c->names, stem, 8191, 0, 0) == NAMES_NONE);
        CHECK_NEAR(pt_cube_value(ds, "module/forward", "norm", "m.a", 0, c->steps[0].value, 0), 1, 0);
        CHECK_INT(c->steps[0].origin, 4);
        CHECK_INT(ds->nwarnings, 1);
        if (ds->nwarnings) {
            CHECK_CONTAINS(ds->warnings[0], "module_step4-4.csv: line 3: 2 rows whose module_name has 8191 bytes");
        }
        dataset_free(ds);
    }
    /* names a --mapping lengthens past the limit (2 100 X, each made yyyy):
     * refused the same way */
    char mp[2100];
    snprintf(mp, sizeof mp, "%s/map.json", dir);
    CHECK_INT(pt_write(mp, "{\"X\": \"yyyy\"}"), 0);
    memset(stem, 'X', 2100);
    stem[2100] = '\0';
    snprintf(text, 2 * L + 400, "vpp_stage,step,module_name,scope,norm\n0,4,m.a,forward,1\n0,4,m.%sa,forward,2\n"
             "0,4,m.%sb,forward,3\n", stem, stem);
    CHECK_INT(pt_write(f, text), 0);
    struct load_opts lo;
    load_opts_init(&lo);
    lo.micro_step = 1;
    lo.mapping = mp;
    ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->cube->nsteps, 1);
        CHECK_INT(names_count(ds->cube->names), 1);
        CHECK_INT(ds->nwarnings, 1);
        if (ds->nwarnings) {
            CHECK_CONTAINS(ds->warnings[0], "module_step4-4.csv: line 3: 2 rows whose module_name has 8191 bytes");
        }
        dataset_free(ds);
    }
    memset(stem, 'x', L);
    snprintf(text, 2 * L + 400, "vpp_stage,step,module_name,scope,norm\n0,4,m.a,forward,1\n0,4,%sa,forward,2\n"
             "0,4,%sb,forward,3\n", stem, stem);
    CHECK_INT(pt_write(f, text), 0);
    /* data2db: one target, one step */
    char db[2100], *out, *errs;
    snprintf(db, sizeof db, "%s/db", dir);
    const char *argv[] = {"data2db", "--data", p, "--db", db};
    CHECK_INT(run_cmd(&cmd_data2db_entry, 5, argv, &out, &errs), EXIT_OK);
    CHECK_CONTAINS(errs, "1 targets, 1 rows");
    free(out);
    free(errs);
    free(text);
    free(stem);
}

int main(void) {
    RUN(fixture_micro);
    RUN(fixture_steps);
    RUN(generated_nan);
    RUN(hostile);
    RUN(long_names);
    RUN(db_fixture);
    RUN(db_generated);
    RUN(db_written);
    RUN(db_parallel_shard);
    RUN(cli_info);
    RUN(cli_overflow);
    RUN(cli_data2db);
    RUN(cli_generated);
    PT_DONE();
}
