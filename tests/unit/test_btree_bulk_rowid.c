/* btree_bulk's rowid tables (btree_bulk_open_intkey): random increasing
 * rowids and random rows, written straight into a database SQLite wrote,
 * for sizes whose tree is one page, two levels and three levels (checked
 * on the pages themselves), pass PRAGMA integrity_check, read back through
 * SQLite row for row in rowid order, answer lookups by rowid, and leave
 * the file's other table as it was; the table's next INSERT takes the
 * rowid after the last one, as SQLite's own table would. */
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "pt_bulkdb.h"
#include "pt_test.h"

#include "src/io/trenddb/btree_bulk.h"

struct row {
    int64_t rowid, a;
    double x;
    int xnull;
};

static unsigned next_rand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* n rows of increasing rowids: small steps, big jumps, every varint width. */
static struct row *make_rows(long n, unsigned seed) {
    struct row *r = malloc((size_t)(n ? n : 1) * sizeof *r);
    int64_t id = 1 + next_rand(&seed) % 3;
    for (long i = 0; r && i < n; i++) {
        unsigned u = next_rand(&seed);
        id += u % 50 == 0 ? (int64_t)(1 + u % 7) << (7 * (1 + u % 7)) : 1 + u % 4;
        r[i].rowid = id;
        r[i].a = (int64_t)next_rand(&seed) - (1 << 23) + (i % 5 == 0 ? (int64_t)1 << 40 : 0);
        r[i].x = (double)next_rand(&seed) / 7.0;
        r[i].xnull = next_rand(&seed) % 9 == 0;
    }
    return r;
}

static const char *make_db(const char *dir, const char *name, int page_size, int64_t *root) {
    return pt_bulk_db(dir, name, page_size, "CREATE TABLE r (a INTEGER NOT NULL, x REAL)", "r", root);
}

/* The levels of the tree at root: rightmost children down to a leaf. */
static int levels(const char *path, int ps, int64_t root) {
    int fd = open(path, O_RDONLY), lv = 0;
    unsigned char *pg = malloc((size_t)ps);
    int64_t p = root;
    while (fd >= 0 && pg && lv < 10 && pread(fd, pg, (size_t)ps, (off_t)(p - 1) * ps) == ps) {
        lv++;
        if (pg[0] == 0x0d) break;
        if (pg[0] != 0x05) { lv = -1; break; }
        p = (int64_t)pg[8] << 24 | pg[9] << 16 | pg[10] << 8 | pg[11];
    }
    if (fd >= 0) close(fd);
    free(pg);
    return lv;
}

static void one_table(int ps, long n, int want_levels, unsigned seed) {
    const char *dir = pt_tmpdir("btree_bulk_rowid");
    char name[64];
    int64_t root;
    snprintf(name, sizeof name, "r%d_%ld.db", ps, n);
    const char *path = make_db(dir, name, ps, &root);
    struct row *rows = make_rows(n, seed);
    CHECK(path != NULL && root > 1 && rows != NULL);
    if (!path || !rows) { free(rows); return; }
    struct btree_bulk *b;
    struct pt_error err;
    CHECK_INT(btree_bulk_open_intkey(&b, ps, &err), 0);
    int fd = open(path, O_RDWR);
    CHECK_INT(btree_bulk_start(b, fd, path, root, &err), 0);
    long failed = 0;
    for (long i = 0; i < n; i++) {
        int64_t iv[2] = {rows[i].a, 0};
        double dv[2] = {0, rows[i].x};
        uint8_t kind[2] = {BTREE_BULK_INT, rows[i].xnull ? BTREE_BULK_NULL : BTREE_BULK_REAL};
        unsigned char rec[40];
        failed += btree_bulk_add_row(b, rows[i].rowid, rec, btree_bulk_record(rec, 2, iv, dv, kind)) != 0;
    }
    CHECK_INT(failed, 0);
    if (n) {   /* a rowid not above the last, or an index record, is refused */
        unsigned char rec[8] = {2, 1, 5};
        CHECK_INT(btree_bulk_add_row(b, rows[n - 1].rowid, rec, 3), -1);
        CHECK_INT(btree_bulk_add(b, rec, 3), -1);
    }
    CHECK_INT(btree_bulk_finish(b, &err), 0);
    btree_bulk_free(b);
    CHECK_INT(levels(path, ps, root), want_levels);
    sqlite3 *db;
    sqlite3_stmt *st;
    CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
    CHECK_INT(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT rowid, a, x FROM r", -1, &st, NULL), SQLITE_OK);
    long i = 0, bad = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; i++) {
        if (i >= n) continue;
        const struct row *w = &rows[i];
        if (sqlite3_column_int64(st, 0) != w->rowid || sqlite3_column_int64(st, 1) != w->a ||
            (sqlite3_column_type(st, 2) == SQLITE_NULL) != w->xnull || (!w->xnull && sqlite3_column_double(st, 2) != w->x))
            bad++;
    }
    sqlite3_finalize(st);
    CHECK_INT(i, n);
    CHECK_INT(bad, 0);
    /* lookups by rowid descend the interior pages; a rowid between two is none */
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT a FROM r WHERE rowid = ?", -1, &st, NULL), SQLITE_OK);
    long found = 0, stray = 0, asked = 0;
    for (long k = 0; k < n; k += n / 61 + 1) {
        sqlite3_bind_int64(st, 1, rows[k].rowid);
        found += sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == rows[k].a;
        sqlite3_reset(st);
        asked++;
        if (k + 1 < n && rows[k + 1].rowid > rows[k].rowid + 1) {
            sqlite3_bind_int64(st, 1, rows[k].rowid + 1);
            stray += sqlite3_step(st) == SQLITE_ROW;
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    CHECK_INT(found, asked);
    CHECK_INT(stray, 0);
    CHECK_INT(sqlite3_exec(db, "INSERT INTO r (a) VALUES (7)", NULL, NULL, NULL), SQLITE_OK);
    CHECK(sqlite3_last_insert_rowid(db) == (n ? rows[n - 1].rowid + 1 : 1));
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT group_concat(k) FROM other", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "before,after");   /* the rest of the file untouched */
    sqlite3_finalize(st);
    CHECK_INT(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_STR((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(rows);
}

/* 512-byte pages hold about 22 rows a leaf, 35 dividers an interior page. */
static void one_page(void) {
    one_table(512, 1, 1, 1);
    one_table(512, 17, 1, 2);
}
static void two_levels(void) {
    one_table(512, 60, 2, 3);
    one_table(512, 700, 2, 4);
}
static void three_levels(void) {
    one_table(512, 3000, 3, 5);
    one_table(512, 20000, 3, 6);
}
static void bigger_pages(void) {
    one_table(4096, 120000, 3, 7);
    one_table(65536, 20000, 2, 8);
}

/* Started, no row: the root stays an empty leaf. */
static void no_rows(void) { one_table(4096, 0, 1, 9); }

/* An index tree's root (or a rowid table's root refused by an index tree). */
static void refuses_other_kind(void) {
    const char *dir = pt_tmpdir("btree_bulk_rowid_kind");
    int64_t root;
    const char *path = make_db(dir, "k.db", 4096, &root);
    CHECK(path != NULL);
    if (!path) return;
    struct btree_bulk *b;
    struct pt_error err;
    CHECK_INT(btree_bulk_open(&b, 4096, &err), 0);
    CHECK_INT(btree_bulk_start(b, open(path, O_RDWR), path, root, &err), -1);
    CHECK(strstr(err.msg, "root page") != NULL);
    btree_bulk_free(b);
}

int main(void) {
    RUN(one_page);
    RUN(two_levels);
    RUN(three_levels);
    RUN(bigger_pages);
    RUN(no_rows);
    RUN(refuses_other_kind);
    PT_DONE();
}
