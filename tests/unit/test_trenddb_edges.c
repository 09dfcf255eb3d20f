/* Hostile and live .trend.db files (probetop-formats(5), TREND.DB and
 * SQLITE INPUTS): crafted axes that would lay out gigabytes, a WAL database
 * whose last transactions are only in its -wal, a database another process
 * writes while it is read, pages that do not read, more than 32 metrics,
 * text in the rank column.  Each database is generated here; the crafted
 * ones are also in tests/fuzz/seeds/db/. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include <sqlite3.h>

#include "model/cube/cube_lazy.h"
#include "pt_test.h"
#include "src/io/load.h"

static char out[1 << 20];

static const char *bin(void) { return getenv("PT_BIN"); }

static int run(const char *cmdline) {
    FILE *p = popen(cmdline, "r");
    size_t k = 0;
    if (!p) return -1;
    while (k + 1 < sizeof out) {
        size_t r = fread(out + k, 1, sizeof out - 1 - k, p);
        if (r == 0) break;
        k += r;
    }
    out[k] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* msProbe's tables (the columns probetop reads), with R ranks x S steps x T
 * targets of metric 1 (norm 1.0), global_stats as given. */
static const char schema[] =
    "CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL,"
    " vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0, UNIQUE(target_name, vpp_stage, micro_step));"
    "CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL);"
    "CREATE TABLE global_stats (max_rank INTEGER DEFAULT 0, min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0);"
    "CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL,"
    " metric_id INTEGER NOT NULL, norm REAL DEFAULT NULL, max REAL DEFAULT NULL,"
    " PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID;";

static sqlite3 *make_db(const char *path, int targets, int max_rank, int min_step, int max_step) {
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    char p[4200], sql[1024];
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", path, side[i]);
        unlink(p);
    }
    sqlite3 *db = NULL;
    CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
    CHECK_INT(sqlite3_exec(db, schema, NULL, NULL, NULL), SQLITE_OK);
    snprintf(sql, sizeof sql,
             "INSERT INTO monitoring_metrics (metric_name) VALUES ('forward');"
             "INSERT INTO global_stats VALUES (%d, %d, %d);"
             "WITH RECURSIVE t(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM t WHERE x < %d)"
             " INSERT INTO monitoring_targets (target_name, vpp_stage) SELECT"
             " 'module.decoder.layers.' || x || '.self_attention.linear_qkv.forward', 0 FROM t;",
             max_rank, min_step, max_step, targets - 1);
    CHECK_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    return db;
}

static void exec(sqlite3 *db, const char *sql) {
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) fprintf(stderr, "%s: %s\n", sql, msg ? msg : "?");
    sqlite3_free(msg);
    CHECK_INT(rc, SQLITE_OK);
}

static struct dataset *load(const char *path, int lazy, uint64_t budget, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    lo.lazy = lazy;
    lo.mem_budget = budget;
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static int has_warning(const struct dataset *ds, const char *what) {
    for (size_t i = 0; i < ds->nwarnings; i++)
        if (strstr(ds->warnings[i], what)) return 1;
    return 0;
}

/* A global_stats that claims 100 000 ranks and a million steps; the rows
 * have one rank and two steps.  The axes are the rows', both ways in; a
 * database whose rows do span that much opens by queries within --mem, and
 * a dense layout of it is refused before it is allocated. */
static void crafted_axes(void) {
    const char *d = pt_tmpdir("axes");
    char p[1200], q[1200], cmd[4096];
    snprintf(p, sizeof p, "%s/claims.trend.db", d);
    sqlite3 *db = make_db(p, 656, 99999, 0, 999999);
    exec(db, "WITH RECURSIVE t(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM t WHERE x < 656)"
             " INSERT INTO trend_data SELECT 0, s.x, t.x, 1, 1.0, 2.0 FROM t, (SELECT 0 AS x UNION SELECT 1) s;");
    sqlite3_close(db);
    struct pt_error err;
    for (int lazy = 0; lazy < 2; lazy++) {
        struct dataset *ds = load(p, lazy, 64 << 20, &err);
        CHECK(ds != NULL);
        if (!ds) continue;
        CHECK_INT(ds->cube->nranks, 1);
        CHECK_INT(ds->cube->nsteps, 2);
        CHECK_INT(ds->cube->metrics[0].ntargets, 656);
        dataset_free(ds);
    }
    snprintf(q, sizeof q, "%s/spans.trend.db", d);
    db = make_db(q, 656, 99999, 0, 999999);
    exec(db, "WITH RECURSIVE t(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM t WHERE x < 656)"
             " INSERT INTO trend_data SELECT 0, 0, t.x, 1, 1.0, 2.0 FROM t;"
             "INSERT INTO trend_data VALUES (99999, 999999, 1, 1, 1000000001.0, 2.0);");
    sqlite3_close(db);
    struct dataset *ds = load(q, 0, 64 << 20, &err);
    CHECK(ds == NULL);
    if (!ds) CHECK_CONTAINS(err.msg, "over the --mem budget");
    dataset_free(ds);
    ds = load(q, 1, 64 << 20, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->cube->nranks, 100000);
        CHECK_INT(ds->cube->nsteps, 1000000);
        CHECK_INT(cube_count_nonfinite(ds->cube, 0, -1, -1), 1);
        struct cube_slice sl;
        CHECK_INT(cube_slice(ds->cube, 0, 0, DIM_RANK, 0, &sl), -1);   /* 2.5 GB: over the budget */
        char msg[300];
        CHECK_INT(cube_lazy_poll(ds->cube, msg, sizeof msg), 1);
        CHECK_CONTAINS(msg, "over the --mem budget");
        dataset_free(ds);
    }
    /* the commands: peak memory within --mem (64 MiB) plus a margin of
     * 128 MiB for the program (a dense layout of global_stats' axes asked
     * for gigabytes) */
    if (!bin()) SKIP("PT_BIN not set");
    int timed = access("/usr/bin/time", X_OK) == 0;
    for (int k = 0; k < 2; k++) {
        char peak[1300];
        snprintf(peak, sizeof peak, "%s/peak", d);
        snprintf(cmd, sizeof cmd, "%s%s%s '%s' %s '%s' --mem 64M 2>&1", timed ? "/usr/bin/time -f %M -o '" : "",
                 timed ? peak : "", timed ? "'" : "", bin(), k ? "overflow" : "info", k ? q : p);
        CHECK_INT(run(cmd), k ? 1 : 0);
        CHECK_CONTAINS(out, k ? "nonfinite 1" : "steps       2 (0..1)");
        char *t = timed ? pt_slurp(peak) : NULL;
        long kb = 0;   /* the last line ("Command exited with ..." may come first) */
        for (char *line = t ? strtok(t, "\n") : NULL; line; line = strtok(NULL, "\n")) kb = atol(line);
        if (timed) fprintf(stderr, "%s: peak %ld KB\n", k ? "overflow" : "info", kb);
        if (timed) CHECK(kb > 0 && kb < (64 + 128) * 1024L);
        free(t);
    }
}

/* Committed rows only in the -wal.  They are read (from a private
 * snapshot), the -wal is named, and nothing beside the input changes: also
 * for a user who cannot write in its folder. */
static void wal_committed(void) {
    const char *d = pt_tmpdir("wal");
    char p[1200], cmd[4096], before[4096], after[4096];
    snprintf(p, sizeof p, "%s/live.trend.db", d);
    sqlite3 *db = make_db(p, 4, 0, 0, 2);
    exec(db, "PRAGMA journal_mode=WAL;"
             "INSERT INTO trend_data SELECT 0, s, target_id, 1, 1.0, 2.0 FROM monitoring_targets,"
             " (SELECT 0 AS s UNION SELECT 1);"
             "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint=0;"
             "INSERT INTO trend_data VALUES (0, 2, 1, 1, 1000000001.0, 2.0);");
    /* the writer stays (its -wal stays): what a reader meets while training runs */
    struct pt_error err;
    struct dataset *ds = load(p, 1, 64 << 20, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->cube->nsteps, 3);
        CHECK_INT(cube_count_nonfinite(ds->cube, 0, -1, -1), 1);
        CHECK(has_warning(ds, "-wal"));
        dataset_free(ds);
    }
    ds = load(p, 0, 64 << 20, &err);
    CHECK(ds != NULL);
    if (ds) CHECK_INT(cube_count_nonfinite(ds->cube, 0, -1, -1), 1);
    dataset_free(ds);
    if (!bin()) { sqlite3_close(db); SKIP("PT_BIN not set"); }
    snprintf(cmd, sizeof cmd, "cd '%s' && ls -la --time-style=+%%s.%%N && md5sum live.trend.db*", d);
    run(cmd);
    snprintf(before, sizeof before, "%s", out);
    snprintf(cmd, sizeof cmd, "'%s' overflow '%s' 2>&1", bin(), p);
    CHECK_INT(run(cmd), 1);
    CHECK_CONTAINS(out, "nonfinite 1");
    CHECK_CONTAINS(out, "live.trend.db-wal");
    /* as a user who may not write in the folder (root writes anywhere) */
    if (getuid() == 0 && system("command -v runuser >/dev/null") == 0) {
        snprintf(cmd, sizeof cmd, "chmod 755 '%s' && chmod 644 '%s'* && runuser -u nobody -- '%s' overflow '%s' 2>&1",
                 d, p, bin(), p);
        int rc = run(cmd);
        if (strstr(out, "Permission denied") && !strstr(out, "snapshot")) fprintf(stderr, "nobody cannot reach %s: not run\n", p);
        else {
            CHECK_INT(rc, 1);
            CHECK_CONTAINS(out, "nonfinite 1");
        }
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && ls -la --time-style=+%%s.%%N && md5sum live.trend.db*", d);
    run(cmd);
    snprintf(after, sizeof after, "%s", out);
    CHECK_STR(after, before);
    sqlite3_close(db);
}

/* Another process rewrites the database again and again (every
 * transaction sets all norms to +Inf or all to 1.0, and adds or removes a
 * step, so the tree's pages move).  Every read succeeds and sees one
 * transaction's state: no "malformed", no mix of both values. */
static void writer_process(void) {
    const char *d = pt_tmpdir("writer");
    char p[1200], cmd[4096];
    snprintf(p, sizeof p, "%s/busy.trend.db", d);
    sqlite3 *db = make_db(p, 64, 7, 0, 3);
    exec(db, "INSERT INTO trend_data SELECT r.x, s.x, t.target_id, 1, 1.0, 2.0 FROM monitoring_targets t,"
             " (SELECT 0 AS x UNION SELECT 1 UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5"
             " UNION SELECT 6 UNION SELECT 7) r, (SELECT 0 AS x UNION SELECT 1 UNION SELECT 2 UNION SELECT 3) s;");
    sqlite3_close(db);
    const long cells = 64L * 8 * 4;
    pid_t parent = getpid(), w = fork();
    if (w == 0) {   /* the writer: rollback journal, as data2db and msProbe write */
        sqlite3 *x = NULL;
        if (sqlite3_open(p, &x) != SQLITE_OK) _exit(1);
        sqlite3_busy_timeout(x, 1000);
        /* never outlives the test (a test that dies leaves no writer behind) */
        for (long k = 0; k < 6000 && getppid() == parent; k++) {
            char sql[512];
            snprintf(sql, sizeof sql,
                     "BEGIN; UPDATE trend_data SET norm = %s; %s; COMMIT;", k % 2 ? "1000000001.0" : "1.0",
                     k % 2 ? "DELETE FROM trend_data WHERE step = 4"
                           : "INSERT INTO trend_data SELECT rank, 4, target_id, 1, 1.0, 2.0 FROM trend_data WHERE step = 0");
            if (sqlite3_exec(x, sql, NULL, NULL, NULL) != SQLITE_OK) sqlite3_exec(x, "ROLLBACK", NULL, NULL, NULL);
            struct timespec pause = {0, 10000000L};   /* a training step's work between two writes */
            nanosleep(&pause, NULL);
        }
        _exit(0);
    }
    CHECK(w > 0);
    int bad = 0, reads = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        struct pt_error err;
        for (int lazy = 0; lazy < 2; lazy++) {
            struct dataset *ds = load(p, lazy, 64 << 20, &err);
            reads++;
            if (!ds) { if (bad++ < 3) fprintf(stderr, "read %d: %s\n", reads, err.msg); continue; }
            /* a lazy cube: every non-finite cell by one query, as info and overflow count them */
            size_t n = cube_count_nonfinite(ds->cube, 0, -1, -1);
            int changed = cube_lazy_changed(ds->cube);
            if (!changed && n != 0 && (long)n != cells) {
                if (bad++ < 3) fprintf(stderr, "read %d: %zu of %ld cells +Inf: a torn read\n", reads, n, cells);
            }
            dataset_free(ds);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
    } while (t1.tv_sec - t0.tv_sec < 4);
    /* the commands too: every count 0 or all, never an error */
    for (int i = 0; bin() && i < 20; i++) {
        snprintf(cmd, sizeof cmd, "'%s' info --json '%s' 2>&1", bin(), p);
        int rc = run(cmd);
        char want0[64], want1[64];
        snprintf(want0, sizeof want0, "\"nonfinite\": {\"forward\": 0}");
        snprintf(want1, sizeof want1, "\"nonfinite\": {\"forward\": %ld}", cells);
        if (rc != 0 || (!strstr(out, want0) && !strstr(out, want1))) {
            if (bad++ < 6) fprintf(stderr, "info %d (exit %d): %.300s\n", i, rc, out);
        }
    }
    kill(w, SIGKILL);
    waitpid(w, NULL, 0);
    fprintf(stderr, "%d reads while written\n", reads);
    CHECK(reads > 10);
    CHECK_INT(bad, 0);
}

/* Zeroes page `page` (1-based) of path. */
static void zero_page(const char *path, long page, long size) {
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (!f) return;
    char *z = calloc(1, (size_t)size);
    fseek(f, (page - 1) * size, SEEK_SET);
    fwrite(z, 1, (size_t)size, f);
    fclose(f);
    free(z);
}

/* A leaf page of table's b-tree that is neither its first nor its last. */
static long middle_leaf(sqlite3 *db, const char *table) {
    char sql[256];
    sqlite3_stmt *st;
    long page = -1;
    snprintf(sql, sizeof sql, "SELECT pageno FROM dbstat WHERE name = '%s' AND pagetype = 'leaf' ORDER BY path", table);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    long v[64];
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW && n < 64) v[n++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (n >= 3) page = v[n / 2];
    return page;
}

/* A zeroed page in monitoring_targets or monitoring_metrics is an
 * error naming the table, not a load of a sixth of the targets; more than
 * 32 metrics are all read (an Inf in the 35th is found). */
static void partial_loads(void) {
    const char *d = pt_tmpdir("pages");
    char p[1200], cmd[4096];
    static const char *const tables[] = {"monitoring_targets", "monitoring_metrics"};
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s.trend.db", d, tables[k]);
        sqlite3 *db = make_db(p, 656, 0, 0, 1);
        exec(db, "WITH RECURSIVE m(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM m WHERE x < 300)"
                 " INSERT INTO monitoring_metrics (metric_name) SELECT 'metric_with_a_long_name_' || x ||"
                 " '_to_fill_pages_of_the_table' FROM m;"
                 "INSERT INTO trend_data SELECT 0, s, target_id, 1, 1.0, 2.0 FROM monitoring_targets,"
                 " (SELECT 0 AS s UNION SELECT 1);");
        long page = middle_leaf(db, tables[k]);
        sqlite3_close(db);
        CHECK(page > 0);
        if (page <= 0) continue;
        zero_page(p, page, 4096);
        for (int lazy = 0; lazy < 2; lazy++) {
            struct pt_error err;
            struct dataset *ds = load(p, lazy, 64 << 20, &err);
            CHECK(ds == NULL);
            if (!ds) CHECK_CONTAINS(err.msg, tables[k]);
            dataset_free(ds);
        }
        if (!bin()) continue;
        snprintf(cmd, sizeof cmd, "'%s' info '%s' 2>&1", bin(), p);
        CHECK_INT(run(cmd), 2);
        CHECK_CONTAINS(out, tables[k]);
    }
    snprintf(p, sizeof p, "%s/metrics40.trend.db", d);
    sqlite3 *db = make_db(p, 4, 0, 0, 1);
    exec(db, "WITH RECURSIVE m(x) AS (SELECT 2 UNION ALL SELECT x + 1 FROM m WHERE x < 40)"
             " INSERT INTO monitoring_metrics (metric_name) SELECT 'm' || x FROM m;"
             "INSERT INTO trend_data SELECT 0, s, t.target_id, m.metric_id,"
             " CASE WHEN m.metric_id = 35 AND s = 1 AND t.target_id = 2 THEN 1000000001.0 ELSE 1.0 END, 2.0"
             " FROM monitoring_targets t, monitoring_metrics m, (SELECT 0 AS s UNION SELECT 1);");
    sqlite3_close(db);
    struct pt_error err;
    for (int lazy = 0; lazy < 2; lazy++) {
        struct dataset *ds = load(p, lazy, 64 << 20, &err);
        CHECK(ds != NULL);
        if (!ds) continue;
        CHECK_INT(ds->cube->nmetrics, 40);
        if (ds->cube->nmetrics == 40) {
            CHECK_STR(ds->cube->metrics[34].name, "m35");
            CHECK_INT(cube_count_nonfinite(ds->cube, 34, -1, -1), 1);
        }
        dataset_free(ds);
    }
    if (!bin()) SKIP("PT_BIN not set");
    snprintf(cmd, sizeof cmd, "'%s' overflow '%s' 2>&1", bin(), p);
    CHECK_INT(run(cmd), 1);
    CHECK_CONTAINS(out, "m35 norm=inf");
}

/* Text in the rank column.  Its rows are off the axes (said),
 * the lazy open and the full load show the same steps and ranks, in well
 * under a second; the analyzer without a terminal says so before reading. */
static void text_rank(void) {
    const char *d = pt_tmpdir("textrank");
    char p[1200], cmd[4096];
    snprintf(p, sizeof p, "%s/text.trend.db", d);
    sqlite3 *db = make_db(p, 8, 3, 0, 3);
    exec(db, "WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r WHERE x < 3)"
             " INSERT INTO trend_data SELECT r.x, s.x, t.target_id, 1, 1.0, 2.0 FROM monitoring_targets t, r,"
             " r AS s;"
             "WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r WHERE x < 3)"
             " INSERT INTO trend_data SELECT 'r' || r.x, s.x, t.target_id, 1, 1.0, 2.0 FROM monitoring_targets t, r,"
             " r AS s;"
             "INSERT INTO trend_data VALUES (1.5, 0, 1, 1, 1.0, 2.0), (0, 2.5, 1, 1, 1.0, 2.0);");
    sqlite3_close(db);
    struct pt_error err;
    struct timespec t0, t1;
    for (int lazy = 0; lazy < 2; lazy++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        struct dataset *ds = load(p, lazy, 64 << 20, &err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CHECK(ds != NULL);
        if (!ds) continue;
        CHECK((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 1.0);
        CHECK_INT(ds->cube->nranks, 4);
        CHECK_INT(ds->cube->nsteps, 4);
        CHECK_INT(ds->cube->ranks[3], 3);
        CHECK_INT(ds->cube->steps[3].value, 3);
        CHECK(has_warning(ds, "not an integer"));
        dataset_free(ds);
    }
    if (!bin()) SKIP("PT_BIN not set");
    snprintf(p, sizeof p, "%s/broken.trend.db", d);
    pt_write(p, "SQLite format 3");
    snprintf(cmd, sizeof cmd, "'%s' '%s' </dev/null 2>&1", bin(), p);
    CHECK_INT(run(cmd), 2);
    CHECK_CONTAINS(out, "needs a terminal");
    snprintf(cmd, sizeof cmd, "'%s' '%s/absent.trend.db' </dev/null 2>&1", bin(), d);
    CHECK_INT(run(cmd), 2);
    CHECK_CONTAINS(out, "No such file");
}

/* The q key or Ctrl-C while a database loads (the load's cancel flag)
 * stops its queries, lazy or whole, at once. */
static void cancel_load(void) {
    const char *d = pt_tmpdir("cancel");
    char p[1200];
    snprintf(p, sizeof p, "%s/slow.trend.db", d);
    sqlite3 *db = make_db(p, 64, 15, 0, 7);
    exec(db, "WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r WHERE x < 15)"
             " INSERT INTO trend_data SELECT r.x, s.x, t.target_id, 1, 1.0, 2.0 FROM monitoring_targets t, r,"
             " (SELECT x FROM r WHERE x < 8) s;");
    sqlite3_close(db);
    atomic_int cancel;
    atomic_init(&cancel, 1);
    for (int lazy = 0; lazy < 2; lazy++) {
        struct load_opts lo;
        struct dataset *ds = NULL;
        struct pt_error err;
        load_opts_init(&lo);
        lo.lazy = lazy;
        lo.cancel = &cancel;
        CHECK_INT(load_dataset(p, &lo, &ds, &err), -1);
        if (!ds) CHECK_CONTAINS(err.msg, "cancelled");
        dataset_free(ds);
    }
}

int main(void) {
    RUN(crafted_axes);
    RUN(wal_committed);
    RUN(writer_process);
    RUN(partial_loads);
    RUN(text_rank);
    RUN(cancel_load);
    PT_DONE();
}
