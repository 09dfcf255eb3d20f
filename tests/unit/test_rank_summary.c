/* data2db's probetop_rank_summary table (probetop(1), FILES): for every
 * group size, every (group, step, target, metric) and every statistic, the
 * rank count, min, max and mean equal SQLite's own aggregates over
 * trend_data; the database still opens, with the table and without it. */
#include <sqlite3.h>

#include "pt_test.h"

#include <math.h>

#include "src/io/load.h"
#include "src/io/trenddb/tdb.h"
#include "src/io/trenddb/tdb_summary.h"
#include "src/io/trenddb/write_trenddb.h"

static const char *const stats[] = {"norm", "max", "min", "mean"};

static long long one_value(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Rows of the summary of group size g that differ from the aggregate. */
static long long mismatches(sqlite3 *db, int g, const char *s) {
    char sql[2048], grp[64];
    if (g) snprintf(grp, sizeof grp, "rank / %d", g);
    else snprintf(grp, sizeof grp, "0");
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM (SELECT %s AS rg, step, target_id, metric_id, count(*) AS c, min(%s) AS mn, "
             "max(%s) AS mx, avg(%s) AS av FROM trend_data GROUP BY 1, 2, 3, 4) a "
             "LEFT JOIN probetop_rank_summary b ON b.group_size = %d AND b.rank_group = a.rg AND b.step = a.step "
             "AND b.target_id = a.target_id AND b.metric_id = a.metric_id "
             "WHERE b.ranks IS NOT a.c OR b.%s_min IS NOT a.mn OR b.%s_max IS NOT a.mx OR "
             "(a.av IS NULL) != (b.%s_mean IS NULL) OR abs(a.av - b.%s_mean) > 1e-9 * abs(a.av)",
             grp, s, s, s, g, s, s, s, s);
    return one_value(db, sql);
}

static void check_db(const char *file, int ranks) {
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(file, &db), 0);
    int sizes[] = {8, 64, 0};
    long long total = 0;
    for (int i = 0; i < 3; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM probetop_rank_summary WHERE group_size = %d", sizes[i]);
        long long n = one_value(db, sql);
        total += n;
        if (sizes[i] && sizes[i] >= ranks) { CHECK_INT(n, 0); continue; }   /* one group: the all-ranks row says it */
        CHECK(n > 0);
        for (int s = 0; s < 4; s++) CHECK_INT(mismatches(db, sizes[i], stats[s]), 0);
    }
    CHECK_INT(one_value(db, "SELECT count(*) FROM probetop_rank_summary"), total);
    sqlite3_close(db);
}

static void generated(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("rank_summary");
    char dump[1100], out[1100], cmd[4096], file[1200];
    snprintf(dump, sizeof dump, "%s/dump", t);
    snprintf(out, sizeof out, "%s/out", t);
    const char *py = getenv("PT_PYTHON");
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 2 --ranks 12 --layers 2 --micro-batches 2 --tp 2 "
             "--nan 1:9:mlp --quiet >/dev/null 2>&1",
             py && *py ? py : "python3", pt_shared(), dump);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    mkdir(out, 0777);
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    CHECK_INT(trenddb_write_dump(dump, out, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    snprintf(file, sizeof file, "%s/dump_data.trend.db", out);
    check_db(file, 12);   /* made beside the inserts, from the rows in memory */
    /* made by a scan of trend_data: the merge of three shards */
    char shards[1100], merged[1100], mfile[1200];
    snprintf(shards, sizeof shards, "%s/shards", t);
    snprintf(merged, sizeof merged, "%s/merged", t);
    mkdir(shards, 0777);
    mkdir(merged, 0777);
    for (int k = 1; k <= 3; k++) {
        ds = calloc(1, sizeof *ds);
        CHECK_INT(trenddb_write_dump_shard(dump, shards, &lo, k, 3, ds, &res, &err), 0);
        dataset_free(ds);
    }
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_merge(shards, 0, merged, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    snprintf(mfile, sizeof mfile, "%s/dump_data.trend.db", merged);
    check_db(mfile, 12);
    /* the reader: with the table, and without it (msProbe's files) */
    struct dataset *a = NULL, *b = NULL;
    CHECK_INT(load_dataset(file, &lo, &a, &err), 0);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/plain.trend.db' && sqlite3 '%s/plain.trend.db' 'DROP TABLE probetop_rank_summary'",
             file, t, t);
    if (system(cmd) == 0) {
        char plain[1200];
        snprintf(plain, sizeof plain, "%s/plain.trend.db", t);
        CHECK_INT(load_dataset(plain, &lo, &b, &err), 0);
        if (a && b) {
            CHECK_INT(a->cube->nranks, b->cube->nranks);
            CHECK_INT(a->cube->nsteps, b->cube->nsteps);
        }
    }
    dataset_free(a);
    dataset_free(b);
}

/* The accumulators' values exactly (tdb_summary.c: a statistic no rank has
 * yet holds +inf, -inf and -0.0 for min, max and sum, and the first value
 * combines into those): a statistic absent from the first ranks, present
 * in later ones (a first value of 0 would show in min or max); msProbe's
 * stored infinities first and later; one absent from every rank of a
 * group; a rank alone in its group of 8. */
static double real_of(sqlite3 *db, const char *sql, int *null) {
    sqlite3_stmt *st;
    double v = -12345;
    *null = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return v;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *null = sqlite3_column_type(st, 0) == SQLITE_NULL;
        v = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

static void check_real(sqlite3 *db, int g, int group, int target, const char *col, int null, double want) {
    char sql[512];
    int isnull;
    snprintf(sql, sizeof sql,
             "SELECT %s FROM probetop_rank_summary WHERE group_size = %d AND rank_group = %d AND step = 1 AND "
             "target_id = %d AND metric_id = 1", col, g, group, target);
    double v = real_of(db, sql, &isnull);
    CHECK_INT(isnull, null);
    if (!null && v != want) {
        fprintf(stderr, "%s: %.17g, not %.17g\n", sql, v, want);
        CHECK(v == want);
    }
}

static void combine_values(void) {
    const char *dir = pt_tmpdir("rank_summary_combine");
    struct tdb t;
    struct load_opts lo;
    struct pt_error err;
    struct dataset *ds = calloc(1, sizeof *ds);
    memset(&t, 0, sizeof t);
    load_opts_init(&lo);
    CHECK_INT(tdb_open(&t, dir, "c.trend.db", 2048, &lo, ds, &err), 0);
    CHECK_INT(tdb_create_fixed(&t), 0);
    CHECK_INT(tdb_create_trend(&t, stats, 4), 0);   /* norm, max, min, mean */
    /* target 1: norm only in ranks 3 and 6; max +inf in rank 0, then
     * finite; min none; mean -inf in rank 2, +inf in rank 7, else -0.0.
     * target 2: every value in rank 0, none in ranks 1..7, rank 8 alone. */
    static const char *const rows[] = {
        "0, 1, 1, 1, NULL, 1000000001.0, NULL, -0.0",  "1, 1, 1, 1, NULL, 4.0, NULL, -0.0",
        "2, 1, 1, 1, NULL, 5.0, NULL, -1000000001.0",  "3, 1, 1, 1, 2.5, 3.0, NULL, -0.0",
        "4, 1, 1, 1, NULL, -7.0, -2.0, -0.0",          "5, 1, 1, 1, NULL, 6.0, NULL, -0.0",
        "6, 1, 1, 1, 1.0, 2.0, NULL, -0.0",           "7, 1, 1, 1, NULL, 1.0, NULL, 1000000001.0",
        "8, 1, 1, 1, NULL, NULL, NULL, NULL",          "0, 1, 2, 1, 0.5, 0.25, -0.75, 1.5",
        "1, 1, 2, 1, NULL, NULL, NULL, NULL",          "8, 1, 2, 1, 9.0, NULL, -3.0, NULL",
    };
    char sql[256];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        snprintf(sql, sizeof sql, "INSERT INTO trend_data VALUES (%s)", rows[i]);
        CHECK_INT(tdb_exec(&t, sql), 0);
    }
    CHECK_INT(tdb_summary_from_table(&t), 0);
    CHECK_INT(tdb_commit(&t), 0);
    dataset_free(ds);
    char file[1200];
    snprintf(file, sizeof file, "%s/c.trend.db", dir);
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(file, &db), 0);
    for (int g = 0; g <= 8; g += 8) {   /* ranks 0..7: the whole run's values but for rank 8 */
        check_real(db, g, 0, 1, "norm_min", 0, 1.0);
        check_real(db, g, 0, 1, "norm_max", 0, 2.5);
        check_real(db, g, 0, 1, "norm_mean", 0, 1.75);
        check_real(db, g, 0, 1, "max_min", 0, -7.0);
        check_real(db, g, 0, 1, "max_max", 0, 1000000001.0);
        check_real(db, g, 0, 1, "max_mean", 0, 1000000001.0);
        check_real(db, g, 0, 1, "min_min", 0, -2.0);
        check_real(db, g, 0, 1, "min_max", 0, -2.0);
        check_real(db, g, 0, 1, "min_mean", 0, -2.0);
        check_real(db, g, 0, 1, "mean_min", 0, -1000000001.0);
        check_real(db, g, 0, 1, "mean_max", 0, 1000000001.0);
        check_real(db, g, 0, 1, "mean_mean", 1, 0);   /* both infinities: NULL */
        check_real(db, g, 0, 1, "ranks", 0, g ? 8 : 9);
    }
    check_real(db, 8, 1, 1, "norm_min", 1, 0);   /* rank 8 alone, every value NULL */
    check_real(db, 8, 1, 1, "max_mean", 1, 0);
    check_real(db, 8, 1, 1, "ranks", 0, 1);
    check_real(db, 0, 0, 2, "norm_min", 0, 0.5);   /* target 2: rank 0's values, then rank 8's */
    check_real(db, 0, 0, 2, "norm_max", 0, 9.0);
    check_real(db, 0, 0, 2, "norm_mean", 0, 4.75);
    check_real(db, 0, 0, 2, "max_mean", 0, 0.25);
    check_real(db, 0, 0, 2, "min_min", 0, -3.0);
    check_real(db, 0, 0, 2, "min_max", 0, -0.75);
    check_real(db, 0, 0, 2, "min_mean", 0, -1.875);
    check_real(db, 0, 0, 2, "mean_mean", 0, 1.5);
    check_real(db, 8, 1, 2, "min_mean", 0, -3.0);
    check_real(db, 8, 1, 2, "max_min", 1, 0);
    check_real(db, 8, 0, 2, "ranks", 0, 2);
    sqlite3_close(db);
}

/* monitor data: its own statistic columns */
static void monitor(void) {
    const char *in = pt_fixture("derived/synthetic_monitor_output");
    if (!in) SKIP("fixture absent");
    const char *t = pt_tmpdir("rank_summary_mon");
    char file[1200];
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    CHECK_INT(trenddb_write_monitor(in, t, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    snprintf(file, sizeof file, "%s/monitor_data.trend.db", t);
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(file, &db), 0);
    if (one_value(db, "SELECT max(rank) FROM trend_data") < 8) {   /* a few ranks: no summary */
        CHECK_INT(one_value(db, "SELECT count(*) FROM sqlite_master WHERE name = 'probetop_rank_summary'"), 0);
        sqlite3_close(db);
        return;
    }
    long long all = one_value(db, "SELECT count(*) FROM probetop_rank_summary WHERE group_size = 0");
    long long keys = one_value(db, "SELECT count(*) FROM (SELECT DISTINCT step, target_id, metric_id FROM trend_data)");
    CHECK(all > 0);
    CHECK_INT(all, keys);
    CHECK_INT(mismatches(db, 0, "norm"), 0);
    sqlite3_close(db);
}

/* 8 ranks: every rank is on screen anyway; no table */
static void few_ranks(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("rank_summary_few");
    char dump[1100], cmd[4096], file[1200];
    snprintf(dump, sizeof dump, "%s/dump", t);
    const char *py = getenv("PT_PYTHON");
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 1 --ranks 8 --layers 1 --quiet >/dev/null 2>&1",
             py && *py ? py : "python3", pt_shared(), dump);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    CHECK_INT(trenddb_write_dump(dump, t, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    snprintf(file, sizeof file, "%s/dump_data.trend.db", t);
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(file, &db), 0);
    CHECK_INT(one_value(db, "SELECT max(rank) FROM trend_data"), 7);
    CHECK_INT(one_value(db, "SELECT count(*) FROM sqlite_master WHERE name = 'probetop_rank_summary'"), 0);
    sqlite3_close(db);
}

int main(void) {
    RUN(generated);
    RUN(few_ranks);
    RUN(monitor);
    RUN(combine_values);
    PT_DONE();
}
