/* tdb_targets_bulk: monitoring_targets and its UNIQUE index built
 * bottom-up read back through SQLite row for row (ids, names, micro
 * steps), pass PRAGMA integrity_check (the index holds every row, in
 * order), answer lookups by (name, vpp_stage, micro_step), leave the
 * sequence at the last id and take SQLite's INSERTs after (a duplicate
 * refused by the index); a table with rows already, keys twice and a name
 * too long for an index page are left to the caller's INSERTs (1). */
#include <sqlite3.h>

#include "pt_test.h"

#include "src/io/load.h"
#include "src/io/trenddb/tdb.h"

enum { N = 3000 };

/* Target i: names in no order (their id order is not the index's), a few
 * sharing a name with another micro step; ids 2, 4, 6, ... */
static void target_of(int i, char *name, size_t cap, struct tdb_target_row *r) {
    snprintf(name, cap, "Module.layers.%d.mlp.%s.forward.%d", (i * 7919) % 1000, i % 3 ? "dense" : "act",
             i % 5 == 0 ? 0 : i);
    *r = (struct tdb_target_row){.id = 2 * (int64_t)(i + 1), .name = name, .len = strlen(name), .micro = i % 5 == 0 ? i : 0};
}

/* PRAGMA integrity_check on db says ok. */
static void check_ok(sqlite3 *db) {
    sqlite3_stmt *st;
    CHECK_INT(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
}

/* A new database of t's kind in dir, its fixed tables made. */
static int open_db(struct tdb *t, const char *dir, struct load_opts *lo, struct dataset *ds, struct pt_error *err) {
    memset(t, 0, sizeof *t);
    load_opts_init(lo);
    if (!ds) return -1;
    if (tdb_open(t, dir, "t.trend.db", 16384, lo, ds, err) != 0) return -1;
    return tdb_create_fixed(t);
}

static void built_reads_back(void) {
    const char *dir = pt_tmpdir("tdb_targets");
    static char names[N][64];
    static struct tdb_target_row v[N];
    for (int i = 0; i < N; i++) target_of(i, names[i], sizeof names[i], &v[i]);
    struct tdb t;
    struct load_opts lo;
    struct dataset *ds = calloc(1, sizeof *ds);
    struct pt_error err;
    CHECK_INT(open_db(&t, dir, &lo, ds, &err), 0);
    CHECK_INT(tdb_targets_bulk(&t, v, N), 0);
    CHECK_INT(tdb_targets_bulk(&t, v, 1), 1);   /* rows there now: INSERTs */
    CHECK_INT(tdb_commit(&t), 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/t.trend.db", dir);
    sqlite3 *db;
    sqlite3_stmt *st;
    CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
    check_ok(db);
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT target_id, target_name, vpp_stage, micro_step FROM monitoring_targets "
                                     "ORDER BY target_id", -1, &st, NULL), SQLITE_OK);
    int i = 0, bad = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; i++)
        if (i >= N || sqlite3_column_int64(st, 0) != v[i].id || strcmp((const char *)sqlite3_column_text(st, 1), v[i].name) ||
            sqlite3_column_int(st, 2) != 0 || sqlite3_column_int(st, 3) != v[i].micro)
            bad++;
    sqlite3_finalize(st);
    CHECK_INT(i, N);
    CHECK_INT(bad, 0);
    /* lookups through the index: each key finds its one row */
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT target_id FROM monitoring_targets INDEXED BY "
                                     "sqlite_autoindex_monitoring_targets_1 WHERE target_name = ? AND vpp_stage = 0 "
                                     "AND micro_step = ?", -1, &st, NULL), SQLITE_OK);
    int found = 0;
    for (i = 0; i < N; i++) {
        sqlite3_bind_text(st, 1, v[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, v[i].micro);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == v[i].id && sqlite3_step(st) == SQLITE_DONE)
            found++;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    CHECK_INT(found, N);
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT seq FROM sqlite_sequence WHERE name = 'monitoring_targets'", -1, &st, NULL),
              SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_INT(sqlite3_column_int64(st, 0), 2 * N);
    sqlite3_finalize(st);
    /* SQLite goes on from there: a new name takes the next id, a key twice is refused */
    CHECK_INT(sqlite3_exec(db, "INSERT INTO monitoring_targets (target_name, vpp_stage, micro_step) VALUES ('new', 0, 0)",
                           NULL, NULL, NULL), SQLITE_OK);
    CHECK_INT((int)sqlite3_last_insert_rowid(db), 2 * N + 1);
    char sql[200];
    snprintf(sql, sizeof sql, "INSERT INTO monitoring_targets (target_name, vpp_stage, micro_step) VALUES ('%s', 0, %d)",
             v[17].name, v[17].micro);
    CHECK_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_CONSTRAINT);
    check_ok(db);
    sqlite3_close(db);
    dataset_free(ds);
}

/* Keys twice, a name longer than an index page keeps, ids not ascending:
 * 1, nothing written (the table still empty for the INSERTs). */
static void refused(void) {
    static char longname[5000];
    memset(longname, 'x', sizeof longname - 1);
    struct tdb_target_row twice[2] = {{1, "a.b", 3, 0}, {2, "a.b", 3, 0}};
    struct tdb_target_row lng[2] = {{1, "a.b", 3, 0}, {2, longname, sizeof longname - 1, 0}};
    struct tdb_target_row down[2] = {{5, "a.b", 3, 0}, {4, "a.c", 3, 0}};
    const struct tdb_target_row *cases[3] = {twice, lng, down};
    for (int c = 0; c < 3; c++) {
        const char *dir = pt_tmpdir(c == 0 ? "tdb_targets_twice" : c == 1 ? "tdb_targets_long" : "tdb_targets_down");
        struct tdb t;
        struct load_opts lo;
        struct dataset *ds = calloc(1, sizeof *ds);
        struct pt_error err;
        CHECK_INT(open_db(&t, dir, &lo, ds, &err), 0);
        CHECK_INT(tdb_targets_bulk(&t, cases[c], 2), 1);
        sqlite3_stmt *st;
        CHECK_INT(sqlite3_prepare_v2(t.db, "SELECT count(*) FROM monitoring_targets", -1, &st, NULL), SQLITE_OK);
        CHECK_INT(sqlite3_step(st), SQLITE_ROW);
        CHECK_INT(sqlite3_column_int(st, 0), 0);
        sqlite3_finalize(st);
        tdb_abort(&t);
        dataset_free(ds);
    }
}

int main(void) {
    RUN(built_reads_back);
    RUN(refused);
    PT_DONE();
}
