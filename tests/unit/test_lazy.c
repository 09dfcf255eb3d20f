/* A .trend.db opened lazily (probetop(1), --mem) answers every slice,
 * series, cell and non-finite count as the fully loaded cube does, cell by
 * cell: by slices only (a tiny budget) and after the background fill (a
 * large one); on msProbe's fixture databases and on generated ones, with
 * and without data2db's probetop_rank_summary. */
#include <string.h>
#include <time.h>

#include "model/cube/cube_lazy.h"
#include "model/overflow/overflow.h"
#include "pt_test.h"
#include "pt_trenddb_gen.h"
#include "src/io/load.h"
#include "src/io/trenddb/write_trenddb.h"
#include "views/agg.h"

static struct dataset *load(const char *path, int lazy, uint64_t budget) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    struct pt_error err;
    load_opts_init(&lo);
    lo.lazy = lazy;
    lo.mem_budget = budget;
    if (load_dataset(path, &lo, &ds, &err) != 0) fprintf(stderr, "load %s: %s\n", path, err.msg);
    return ds;
}

static int same_bits(float a, float b) { return !memcmp(&a, &b, sizeof a); }

/* Every slice of every metric, statistic and dimension, cell by cell. */
static void same_slices(const struct cube *f, const struct cube *l) {
    int bad = 0;
    for (int m = 0; m < f->nmetrics; m++)
        for (int st = 0; st < f->metrics[m].nstats; st++)
            for (int d = DIM_STEP; d <= DIM_TARGET; d++) {
                int n = d == DIM_STEP ? f->nsteps : d == DIM_RANK ? f->nranks : (int)f->metrics[m].ntargets;
                for (int v = 0; v < n; v++) {
                    struct cube_slice a, b;
                    int ra = cube_slice(f, m, st, (enum cube_dim)d, v, &a), rb = cube_slice(l, m, st, (enum cube_dim)d, v, &b);
                    if (ra != rb || a.nx != b.nx || a.ny != b.ny) { bad++; continue; }
                    for (int y = 0; y < a.ny; y++)
                        for (int x = 0; x < a.nx; x++)
                            if (!same_bits(cube_slice_at(&a, x, y), cube_slice_at(&b, x, y)) && bad++ < 5)
                                fprintf(stderr, "metric %d stat %d dim %d value %d cell (%d, %d): %g vs %g\n", m, st, d, v,
                                        x, y, cube_slice_at(&a, x, y), cube_slice_at(&b, x, y));
                    /* a series through the slice's last cell, and that cell alone */
                    struct cube_series sa, sb;
                    int x = a.nx - 1, y = a.ny - 1;
                    if (x < 0 || y < 0) continue;
                    ra = cube_series(f, m, st, (enum cube_dim)d, v, x, y, &sa);
                    rb = cube_series(l, m, st, (enum cube_dim)d, v, x, y, &sb);
                    if (ra != rb || (ra == 0 && sa.n != sb.n)) { bad++; continue; }
                    for (int i = 0; ra == 0 && i < sa.n; i++)
                        if (!same_bits(sa.base[i * sa.stride], sb.base[i * sb.stride]) && bad++ < 5)
                            fprintf(stderr, "series metric %d stat %d dim %d value %d (%d, %d) point %d: %g vs %g\n", m,
                                    st, d, v, x, y, i, sa.base[i * sa.stride], sb.base[i * sb.stride]);
                }
            }
    CHECK_INT(bad, 0);
}

static void same_cells_and_counts(const struct cube *f, const struct cube *l) {
    int bad = 0;
    for (int m = 0; m < f->nmetrics; m++) {
        CHECK_INT(cube_count_nonfinite(l, m, -1, -1), cube_count_nonfinite(f, m, -1, -1));
        CHECK_INT(cube_count_nonfinite(l, m, f->nsteps - 1, -1), cube_count_nonfinite(f, m, f->nsteps - 1, -1));
        CHECK_INT(cube_count_nonfinite(l, m, -1, f->nranks - 1), cube_count_nonfinite(f, m, -1, f->nranks - 1));
        CHECK_INT(cube_count_present(l, m), cube_count_present(f, m));
        const struct cube_metric *cm = &f->metrics[m];
        /* cells by cube_get, strided so that most miss the cache */
        for (uint32_t lt = 0; lt < cm->ntargets; lt += 7)
            for (int s = 0; s < f->nsteps; s += 3)
                for (int r = 0; r < f->nranks; r += 5)
                    for (int st = 0; st < cm->nstats; st++)
                        bad += !same_bits(cube_get(f, m, st, lt, s, r), cube_get(l, m, st, lt, s, r));
    }
    CHECK_INT(bad, 0);
    struct ovf_list a = {0}, b = {0};
    struct pt_error err;
    CHECK_INT(ovf_scan_cube(f, &a, &err), 0);
    CHECK_INT(ovf_scan_cube(l, &b, &err), 0);
    CHECK_INT(b.n, a.n);
    fprintf(stderr, "%zu non-finite cells\n", a.n);
    for (size_t i = 0; i < a.n && i < b.n; i++) {
        CHECK_INT(b.v[i].step, a.v[i].step);
        CHECK_INT(b.v[i].rank, a.v[i].rank);
        CHECK_STR(b.v[i].what, a.v[i].what);
    }
    ovf_list_free(&a);
    ovf_list_free(&b);
}

static void same_axes(const struct cube *f, const struct cube *l) {
    CHECK_INT(l->nsteps, f->nsteps);
    CHECK_INT(l->nranks, f->nranks);
    CHECK_INT(l->nmetrics, f->nmetrics);
    if (l->nsteps != f->nsteps || l->nranks != f->nranks || l->nmetrics != f->nmetrics) return;
    for (int s = 0; s < f->nsteps; s++) CHECK_INT(l->steps[s].value, f->steps[s].value);
    for (int r = 0; r < f->nranks; r++) CHECK_INT(l->ranks[r], f->ranks[r]);
    for (int m = 0; m < f->nmetrics; m++) {
        CHECK_STR(l->metrics[m].name, f->metrics[m].name);
        CHECK_INT(l->metrics[m].nstats, f->metrics[m].nstats);
        CHECK_INT(l->metrics[m].ntargets, f->metrics[m].ntargets);
        if (l->metrics[m].ntargets != f->metrics[m].ntargets) continue;
        for (uint32_t t = 0; t < f->metrics[m].ntargets; t++)
            CHECK_STR(names_str(l->names, l->metrics[m].targets[t]), names_str(f->names, f->metrics[m].targets[t]));
    }
}

static void wait_filled(struct cube *c) {
    for (int i = 0; i < 30000 && cube_is_lazy(c); i++) {
        char msg[300];
        if (cube_lazy_poll(c, msg, sizeof msg) && msg[0]) fprintf(stderr, "%s\n", msg);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* path lazily with a tiny budget (slices only) and a large one (filled in
 * the background), against the full load. */
static void check_db(const char *path) {
    struct dataset *full = load(path, 0, 0), *tiny = load(path, 1, 1), *big = load(path, 1, (uint64_t)1 << 32);
    CHECK(full && tiny && big);
    if (full && tiny && big) {
        int over = cube_dense_bytes(tiny->cube) > 1;   /* an empty cube fits any budget */
        CHECK(cube_is_lazy(tiny->cube) || !over);
        CHECK_INT(tiny->labels, full->labels);
        same_axes(full->cube, tiny->cube);
        if (!pt_fail) {
            same_slices(full->cube, tiny->cube);
            same_cells_and_counts(full->cube, tiny->cube);
            if (over) {
                CHECK(cube_is_lazy(tiny->cube));   /* never filled: over the budget */
                struct pt_error err;
                CHECK(cube_materialize(tiny->cube, &err) != 0);
                CHECK_CONTAINS(err.msg, "--mem");
            }
        }
        struct cube_slice first;   /* the fill starts after a first slice */
        cube_slice(big->cube, 0, 0, DIM_STEP, 0, &first);
        wait_filled(big->cube);
        CHECK(!cube_is_lazy(big->cube));
        same_axes(full->cube, big->cube);
        if (!pt_fail) {
            same_slices(full->cube, big->cube);
            same_cells_and_counts(full->cube, big->cube);
        }
    }
    dataset_free(full);
    dataset_free(tiny);
    dataset_free(big);
}

static void fixture_dbs(void) {
    static const char *const dbs[] = {
        "derived/gpu_dump.micro_step_true/dump_data.trend.db",
        "derived/gpu_dump.micro_step_false/dump_data.trend.db",
        "derived/input_format_correct.micro_step_true/dump_data.trend.db",
        "derived/synthetic_monitor.micro_step_true/monitor_data.trend.db",
        "derived/synthetic_monitor.micro_step_false/monitor_data.trend.db",
    };
    const char *o = pt_outputs("gpu_dump.dump_data.trend.db");
    if (!o) SKIP("fixtures absent");
    fprintf(stderr, "%s\n", o);
    check_db(o);
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
        const char *p = pt_fixture(dbs[i]);
        if (!p) continue;
        fprintf(stderr, "%s\n", p);
        check_db(p);
    }
}

/* gen_dump.py --monitor with ranks ranks, written by data2db (with the
 * rank summary table from 9 ranks on) into dir/db. */
static int gen_monitor_db(const char *name, int ranks, char *db, size_t n) {
    const char *t = pt_tmpdir(name), *py = getenv("PT_PYTHON");
    char cmd[4096], in[1200], out[1200];
    if (!t || !pt_shared()) return -1;
    snprintf(in, sizeof in, "%s/mon", t);
    snprintf(out, sizeof out, "%s/db", t);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --monitor --steps 4 --ranks %d --layers 2 --hidden 32 --heads 2 "
             "--ffn 64 --seq 8 --vocab 50 --nan 2:1:mlp:mixed --nan 3:%d:attention:inf --quiet >/dev/null 2>&1 && mkdir -p '%s'",
             py && *py ? py : "python3", pt_shared(), in, ranks, ranks - 1, out);
    if (system(cmd) != 0) return -1;
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    int rc = ds ? trenddb_write_monitor(in, out, &lo, ds, &res, &err) : -1;
    if (rc != 0) fprintf(stderr, "data2db: %s\n", ds ? err.msg : "out of memory");
    dataset_free(ds);
    snprintf(db, n, "%s/monitor_data.trend.db", out);
    return rc;
}

/* Zoomed out by 8 ranks, a fresh lazy open answers from the groups of 8 of
 * probetop_rank_summary (xshift 3), and each zoomed cell equals the
 * aggregate of the 8 ranks' exact values (up to a tie of equal magnitudes
 * and opposite signs); once the exact slice is cached, it is used. */
static void check_zoomed(const char *path, int want_groups) {
    struct dataset *full = load(path, 0, 0), *lazy = load(path, 1, 1);
    CHECK(full && lazy);
    int bad = 0, grouped = 0;
    for (int m = 0; full && lazy && m < full->cube->nmetrics; m++)
        for (int st = 0; st < full->cube->metrics[m].nstats; st++)
            for (int v = 0; v < full->cube->nsteps; v++) {
                struct cube_slice a, z;
                if (cube_slice(full->cube, m, st, DIM_STEP, v, &a) != 0 ||
                    cube_slice_zoomed(lazy->cube, m, st, DIM_STEP, v, 8, &z) != 0) {
                    bad++;
                    continue;
                }
                grouped += z.xshift == 3;
                for (int y = 0; y < a.ny; y++)
                    for (int x = 0; x < a.nx; x += 8) {
                        float e = agg_block(&a, x, x + 8, y, y + 1, NULL, NULL), g = agg_block(&z, x, x + 8, y, y + 1, NULL, NULL);
                        if (!same_bits(e, g) && !(fabsf(e) == fabsf(g) && isfinite(e)) && bad++ < 5)
                            fprintf(stderr, "zoomed metric %d stat %d step %d target %d ranks %d..: %g vs %g\n", m, st, v,
                                    y, x, e, g);
                    }
            }
    CHECK_INT(bad, 0);
    if (want_groups) CHECK(grouped > 0);
    else CHECK_INT(grouped, 0);
    if (full && lazy && full->cube->nmetrics) {
        struct cube_slice e, z;
        CHECK_INT(cube_slice(lazy->cube, 0, 0, DIM_STEP, 0, &e), 0);
        CHECK_INT(cube_slice_zoomed(lazy->cube, 0, 0, DIM_STEP, 0, 8, &z), 0);
        CHECK_INT(z.xshift, 0);   /* the exact slice is there: no need of the groups */
    }
    dataset_free(full);
    dataset_free(lazy);
}

static void generated_db(void) {
    char db[1300];
    if (gen_monitor_db("lazy_gen4", 4, db, sizeof db) != 0) SKIP("the test data (PT_SHARED) or python3 absent");
    check_db(db);
    check_zoomed(db, 0);   /* no summary under 9 ranks: the exact slice */
}

static void generated_db_summary(void) {
    char db[1300];
    if (gen_monitor_db("lazy_gen12", 12, db, sizeof db) != 0) SKIP("the test data (PT_SHARED) or python3 absent");
    check_db(db);
    check_zoomed(db, 1);
}

/* A rank summary an older data2db wrote, without NaN counts: the NaN of
 * the run are found by a scan and zoomed-out cells come from the exact
 * slices, which show them. */
static void generated_db_old_summary(void) {
    char db[1300];
    if (gen_monitor_db("lazy_gen12_old", 12, db, sizeof db) != 0) SKIP("the test data (PT_SHARED) or python3 absent");
    sqlite3 *h;
    CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
    static const char *const stats[] = {"norm", "min", "max", "zeros", "nans", "mean"};
    for (size_t i = 0; i < sizeof stats / sizeof *stats; i++) {
        char sql[200];
        snprintf(sql, sizeof sql, "ALTER TABLE probetop_rank_summary DROP COLUMN %s_nan", stats[i]);
        CHECK_INT(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    sqlite3_close(h);
    check_db(db);
    check_zoomed(db, 0);
}

/* A target with neither a tag nor rows at a rank's first or last step is
 * off the lazy axes: the background load counts its rows and says so. */
static void missed_target(void) {
    const char *t = pt_tmpdir("lazy_missed");
    char db[1200];
    snprintf(db, sizeof db, "%s/monitor_data.trend.db", t ? t : "/tmp");
    CHECK(t && pt_gen_trenddb(db, 16, 6, 20) == 0);
    sqlite3 *h;
    CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
    CHECK_INT(sqlite3_exec(h, "INSERT INTO monitoring_targets (target_name, vpp_stage, micro_step) VALUES ('hidden', 0, 0);"
                              "INSERT INTO trend_data VALUES (2, 2, 21, 1, 1.5, 0.0, 1.0, 0.0)", NULL, NULL, NULL),
              SQLITE_OK);
    sqlite3_close(h);
    struct dataset *full = load(db, 0, 0), *lazy = load(db, 1, (uint64_t)1 << 30);
    CHECK(full && lazy);
    if (full && lazy) {
        CHECK_INT(full->cube->metrics[0].ntargets, 21);
        CHECK_INT(lazy->cube->metrics[0].ntargets, 20);
        struct cube_slice s;
        CHECK_INT(cube_slice(lazy->cube, 0, 0, DIM_STEP, 0, &s), 0);
        char msg[300] = "";
        for (int i = 0; i < 30000 && cube_is_lazy(lazy->cube); i++) {
            cube_lazy_poll(lazy->cube, msg, sizeof msg);
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        CHECK(!cube_is_lazy(lazy->cube));
        CHECK_CONTAINS(msg, "1 row of targets the first look at the file did not find");
    }
    dataset_free(full);
    dataset_free(lazy);
}

/* A cell's value by target name, step value and rank. */
static float cell(const struct cube *c, const char *metric, const char *stat, const char *target, int step, int rank) {
    int m = cube_metric_find(c, metric), st = cube_stat_find(c, m, stat);
    uint32_t t = names_find(c->names, target, strlen(target), 0, 0);
    uint32_t lt = t == NAMES_NONE ? UINT32_MAX : cube_local_target(c, m, t);
    int si = cube_step_find(c, step), ri = cube_rank_find(c, rank);
    if (m < 0 || st < 0 || lt == UINT32_MAX || si < 0 || ri < 0) return 0;   /* a finite value fails the checks */
    return cube_get(c, m, st, lt, si, ri);
}

/* The .trend.db msProbe wrote from a monitor tree with placeholders and a
 * planted NaN/Inf (tests/data/nonfinite): lazily (slices, cells, the
 * background fill) as fully loaded, its NULLs in rows that exist NaN, its
 * targets NULL on every step and rank no tensor, its nonfinite count that
 * of the tree (probetop-formats(5), TREND.DB). */
static void nonfinite_db(void) {
    char db[4200];
    const char *src = getenv("PT_SRC");
    snprintf(db, sizeof db, "%s/tests/data/nonfinite/msprobe_db/monitor_data.trend.db", src ? src : ".");
    check_db(db);
    struct dataset *full = load(db, 0, 0), *tiny = load(db, 1, 1);
    CHECK(full && tiny);
    for (int k = 0; full && tiny && k < 2; k++) {
        const struct cube *c = k ? tiny->cube : full->cube;
        float nan = cell(c, "actv", "mean", "module.module.decoder.layers.0.mlp.linear_fc1.output_0", 1, 1);
        CHECK(isnan(nan) && !cube_is_missing(nan));   /* NULL in its row: NaN */
        CHECK(isinf(cell(c, "actv", "max", "module.module.decoder.layers.0.mlp.linear_fc1.output_0", 1, 1)));
        float none = cell(c, "actv", "norm", "module.module.decoder.layers.0.self_attention.linear_qkv.output_1", 0, 0);
        CHECK(cube_is_notensor(none));   /* NULL everywhere: no tensor */
        float bmin = cell(c, "actv", "min", "module.module.decoder.layers.0.self_attention.core_attention.input_3", 0, 0);
        CHECK(cube_is_missing(bmin) && !cube_is_notensor(bmin));   /* a bool's False, NULL beside a finite norm */
        CHECK_INT(cube_count_nonfinite(c, cube_metric_find(c, "actv"), -1, -1), 44);
        CHECK_INT(cube_count_nonfinite(c, cube_metric_find(c, "actv_grad"), -1, -1), 132);
    }
    CHECK_INT(full ? full->notensor_rows : 0, 96);
    dataset_free(full);
    dataset_free(tiny);
}

int main(void) {
    RUN(fixture_dbs);
    RUN(generated_db);
    RUN(generated_db_summary);
    RUN(generated_db_old_summary);
    RUN(missed_target);
    RUN(nonfinite_db);
    PT_DONE();
}
