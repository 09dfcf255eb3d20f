/* pt_bulkdb.h: the scratch database of the B-tree builder tests
 * (test_btree_bulk, test_btree_bulk_rowid): dir/name made anew with
 * page_size, a table `other` holding a row written before the table under
 * test (create, its CREATE TABLE) and one after, so that the builder's
 * pages must leave both alone; the table's root page into *root.  The
 * path (one static buffer), or NULL when SQLite cannot open it. */
#ifndef PT_BULKDB_H
#define PT_BULKDB_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static inline const char *pt_bulk_db(const char *dir, const char *name, int page_size, const char *create,
                                     const char *table, int64_t *root) {
    static char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    sqlite3 *db;
    char sql[512];
    *root = 0;
    if (sqlite3_open(path, &db) != SQLITE_OK) return NULL;
    snprintf(sql, sizeof sql, "PRAGMA page_size=%d; PRAGMA journal_mode=OFF", page_size);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    snprintf(sql, sizeof sql, "CREATE TABLE other (k TEXT); INSERT INTO other VALUES ('before'); %s; "
             "INSERT INTO other VALUES ('after')", create);
    sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE name = ?", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        *root = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
    sqlite3_close(db);
    return path;
}

#endif
