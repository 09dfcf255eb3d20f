/* btree_bulk: a WITHOUT ROWID table built from records in key order
 * straight into a database SQLite wrote reads back, through SQLite, row for
 * row as written, passes PRAGMA integrity_check and answers key lookups,
 * for small pages (a deep tree) and big ones, for every integer width and
 * for NULLs; with no record the table stays SQLite's empty one; records
 * placed straight into the leaf (btree_bulk_place) make the same bytes. */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_bulkdb.h"
#include "pt_test.h"

#include "src/io/trenddb/btree_bulk.h"

/* Row i of the test table t(a, b, x, y) in key order (a, b): a runs
 * through every integer width of the record format, b is negative too. */
static void row_of(long i, int64_t *a, int64_t *b, double *x, int *xnull, double *y) {
    static const int64_t as[] = {-((int64_t)1 << 50), -140737488355329LL, -3000000000LL, -8388609, -40000, -129,
                                 -1, 0, 1, 127, 40000, 8388609, 3000000000LL, 140737488355329LL};
    long k = i / 1000;
    *a = k < 14 ? as[k] : ((int64_t)1 << 50) + k;
    *b = (i % 1000) * 3 - 1500;
    *x = (double)i * 0.37 - 1e6;
    *xnull = i % 11 == 0;
    *y = i % 2 ? 1e300 / (double)(i + 1) : -0.5;
}

/* Row i's record (row_of's values, x NULL when xnull) into rec: its length. */
static size_t row_record(long i, unsigned char rec[64]) {
    int64_t iv[4] = {0};
    double dv[4] = {0}, y;
    int xnull;
    row_of(i, &iv[0], &iv[1], &dv[2], &xnull, &y);
    dv[3] = y;
    uint8_t kind[4] = {BTREE_BULK_INT, BTREE_BULK_INT, xnull ? BTREE_BULK_NULL : BTREE_BULK_REAL, BTREE_BULK_REAL};
    return btree_bulk_record(rec, 4, iv, dv, kind);
}

static const char *make_db(const char *dir, const char *name, int page_size, int64_t *root) {
    return pt_bulk_db(dir, name, page_size,
                      "CREATE TABLE t (a INTEGER NOT NULL, b INTEGER NOT NULL, x REAL, y REAL, "
                      "PRIMARY KEY (a, b)) WITHOUT ROWID",
                      "t", root);
}

/* b's pages into the database at path, its top into root. */
static int start(struct btree_bulk *b, const char *path, int64_t root, struct pt_error *err) {
    int fd = open(path, O_RDWR);
    return fd < 0 ? -1 : btree_bulk_start(b, fd, path, root, err);
}

static void one_size(int page_size, long n) {
    const char *dir = pt_tmpdir("btree_bulk");
    char name[64];
    int64_t root;
    snprintf(name, sizeof name, "t%d.db", page_size);
    const char *path = make_db(dir, name, page_size, &root);
    CHECK(path != NULL && root > 1);
    if (!path) return;
    struct btree_bulk *b;
    struct pt_error err;
    CHECK_INT(btree_bulk_open(&b, page_size, &err), 0);
    CHECK_INT(start(b, path, root, &err), 0);
    for (long i = 0; i < n; i++) {
        unsigned char rec[64];
        CHECK_INT(btree_bulk_add(b, rec, row_record(i, rec)), 0);
    }
    CHECK_INT(btree_bulk_finish(b, &err), 0);
    btree_bulk_free(b);
    sqlite3 *db;
    CHECK_INT(pt_sqlite_ro(path, &db), 0);
    sqlite3_stmt *st;
    CHECK_INT(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK(!strcmp((const char *)sqlite3_column_text(st, 0), "ok"));
    sqlite3_finalize(st);
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT a, b, x, y FROM t ORDER BY a, b", -1, &st, NULL), SQLITE_OK);
    long i = 0, bad = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t a, bb;
        double x, y;
        int xnull;
        row_of(i++, &a, &bb, &x, &xnull, &y);
        if (sqlite3_column_int64(st, 0) != a || sqlite3_column_int64(st, 1) != bb ||
            (sqlite3_column_type(st, 2) == SQLITE_NULL) != xnull || (!xnull && sqlite3_column_double(st, 2) != x) ||
            sqlite3_column_double(st, 3) != y)
            bad++;
    }
    sqlite3_finalize(st);
    CHECK_INT(i, n);
    CHECK_INT(bad, 0);
    /* lookups by key descend the interior pages */
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT x FROM t WHERE a = ? AND b = ?", -1, &st, NULL), SQLITE_OK);
    long found = 0;
    for (long k = 1; k < n; k += n / 97 + 1) {
        int64_t a, bb;
        double x, y;
        int xnull;
        row_of(k, &a, &bb, &x, &xnull, &y);
        sqlite3_bind_int64(st, 1, a);
        sqlite3_bind_int64(st, 2, bb);
        if (sqlite3_step(st) == SQLITE_ROW) found++;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    CHECK_INT(found, (n - 2) / (n / 97 + 1) + 1);
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM other", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_INT(sqlite3_column_int(st, 0), 2);   /* the rest of the file untouched */
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void small_pages(void) { one_size(512, 60000); }
static void default_pages(void) { one_size(4096, 200000); }
static void big_pages(void) { one_size(65536, 50000); }

static void no_rows(void) {
    const char *dir = pt_tmpdir("btree_bulk_empty");
    int64_t root;
    const char *path = make_db(dir, "e.db", 4096, &root);
    CHECK(path != NULL);
    if (!path) return;
    struct btree_bulk *b;
    struct pt_error err;
    CHECK_INT(btree_bulk_open(&b, 4096, &err), 0);
    CHECK_INT(btree_bulk_finish(b, &err), 0);
    btree_bulk_free(b);
    sqlite3 *db;
    sqlite3_stmt *st;
    CHECK_INT(pt_sqlite_ro(path, &db), 0);
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    CHECK_INT(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* A file that is not the one expected (its root page holds rows already)
 * is refused and left as it was. */
static void refuses_odd_file(void) {
    const char *dir = pt_tmpdir("btree_bulk_odd");
    char sql[200];
    int64_t root;
    const char *path = make_db(dir, "o.db", 4096, &root);
    CHECK(path != NULL);
    if (!path) return;
    sqlite3 *db;
    CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
    snprintf(sql, sizeof sql, "INSERT INTO t VALUES (1, 2, 3.0, 4.0)");
    CHECK_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    struct stat before, after;
    CHECK_INT(stat(path, &before), 0);
    struct btree_bulk *b;
    struct pt_error err;
    CHECK_INT(btree_bulk_open(&b, 4096, &err), 0);
    CHECK_INT(start(b, path, root, &err), -1);
    CHECK(strstr(err.msg, "root page") != NULL);
    int64_t iv[2] = {5, 6};
    double dv[2] = {0};
    uint8_t kind[2] = {BTREE_BULK_INT, BTREE_BULK_INT};
    unsigned char rec[32];
    size_t len = btree_bulk_record(rec, 2, iv, dv, kind);
    CHECK_INT(btree_bulk_add(b, rec, len), -1);   /* not started: no page goes anywhere */
    CHECK_INT(btree_bulk_finish(b, &err), 0);
    btree_bulk_free(b);
    CHECK_INT(stat(path, &after), 0);
    CHECK_INT((long long)after.st_size, (long long)before.st_size);
}

/* A write that fails (the file opened read-only: every pwrite refused)
 * past the first 1 MB of pages, those the writing thread takes: the tree
 * stops taking rows and btree_bulk_finish says the pages could not be
 * written, naming the file; nothing reached the file. */
static void write_fails(void) {
    const char *dir = pt_tmpdir("btree_bulk_wfail");
    int64_t root;
    const char *path = make_db(dir, "w.db", 4096, &root);
    CHECK(path != NULL);
    if (!path) return;
    struct stat before, after;
    CHECK_INT(stat(path, &before), 0);
    struct btree_bulk *b;
    struct pt_error err;
    CHECK_INT(btree_bulk_open(&b, 4096, &err), 0);
    int fd = open(path, O_RDONLY);
    CHECK_INT(btree_bulk_start(b, fd, path, root, &err), 0);
    long added = 0;
    for (long i = 0; i < 400000; i++, added++) {
        unsigned char rec[64];
        if (btree_bulk_add(b, rec, row_record(i, rec)) != 0) break;
    }
    CHECK(added < 400000);   /* refused once a batch before came back failed */
    CHECK_INT(btree_bulk_finish(b, &err), -1);
    CHECK(strstr(err.msg, "could not write the table's pages") != NULL);
    CHECK(strstr(err.msg, "w.db") != NULL);
    btree_bulk_free(b);
    CHECK_INT(stat(path, &after), 0);
    CHECK_INT((long long)after.st_size, (long long)before.st_size);
}

/* Pages written across the lock-byte page (the page holding byte 2^30,
 * never used by SQLite): the database is made to end 10 pages before it
 * (its page count set in the header, the file grown sparse to match, those
 * pages never read), so the tree's pages go in as runs of consecutive
 * places broken there.  Every row reads back through SQLite, and the lock
 * page stays a hole of zeros. */
static void across_lock_page(void) {
    const char *dir = pt_tmpdir("btree_bulk_lock");
    int64_t root;
    const int ps = 512;
    const char *path = make_db(dir, "l.db", ps, &root);
    CHECK(path != NULL && root > 1);
    if (!path) return;
    uint32_t lockpage = (uint32_t)(((uint64_t)1 << 30) / ps) + 1, n = lockpage - 10;
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    if (fd < 0) return;
    unsigned char cnt[4] = {(unsigned char)(n >> 24), (unsigned char)(n >> 16), (unsigned char)(n >> 8), (unsigned char)n};
    CHECK_INT((int)pwrite(fd, cnt, 4, 28), 4);
    CHECK_INT(ftruncate(fd, (off_t)n * ps), 0);
    close(fd);
    struct btree_bulk *b;
    struct pt_error err;
    CHECK_INT(btree_bulk_open(&b, ps, &err), 0);
    CHECK_INT(start(b, path, root, &err), 0);
    long rows = 20000;
    for (long i = 0; i < rows; i++) {
        int64_t iv[4] = {0};
        double dv[4] = {0};
        int xnull;
        row_of(i, &iv[0], &iv[1], &dv[2], &xnull, &dv[3]);
        uint8_t kind[4] = {BTREE_BULK_INT, BTREE_BULK_INT, xnull ? BTREE_BULK_NULL : BTREE_BULK_REAL, BTREE_BULK_REAL};
        unsigned char rec[64];
        size_t len = btree_bulk_record(rec, 4, iv, dv, kind);
        if (btree_bulk_add(b, rec, len) != 0) { CHECK(0); break; }
    }
    CHECK_INT(btree_bulk_finish(b, &err), 0);
    btree_bulk_free(b);
    unsigned char pg[512], zero[512] = {0};
    fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && pread(fd, pg, sizeof pg, (off_t)(lockpage - 1) * ps) == (ssize_t)sizeof pg);
    CHECK(memcmp(pg, zero, sizeof pg) == 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size > (off_t)lockpage * ps);   /* pages after it too */
    close(fd);
    sqlite3 *db;
    sqlite3_stmt *st2;
    CHECK_INT(pt_sqlite_ro(path, &db), 0);
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT a, b, x, y FROM t ORDER BY a, b", -1, &st2, NULL), SQLITE_OK);
    long got = 0, bad = 0;
    for (; sqlite3_step(st2) == SQLITE_ROW; got++) {
        int64_t a, bb;
        double x, y;
        int xnull;
        row_of(got, &a, &bb, &x, &xnull, &y);
        if (sqlite3_column_int64(st2, 0) != a || sqlite3_column_int64(st2, 1) != bb ||
            (sqlite3_column_type(st2, 2) == SQLITE_NULL) != xnull || (!xnull && sqlite3_column_double(st2, 2) != x) ||
            sqlite3_column_double(st2, 3) != y)
            bad++;
    }
    sqlite3_finalize(st2);
    sqlite3_close(db);
    CHECK_INT(got, rows);
    CHECK_INT(bad, 0);
}

/* SQLite keeps a REAL column's whole numbers as integers: -0.0 given to
 * it reads back as 0.0 (so it is in msProbe's .trend.db).  A record built
 * here holds 0.0 for it too, byte for byte. */
static void negative_zero(void) {
    int64_t iv[2] = {0};
    double neg[2] = {-0.0, 1.5}, pos[2] = {0.0, 1.5};
    uint8_t kind[2] = {BTREE_BULK_REAL, BTREE_BULK_REAL};
    unsigned char a[32], b[32];
    size_t la = btree_bulk_record(a, 2, iv, neg, kind), lb = btree_bulk_record(b, 2, iv, pos, kind);
    CHECK_INT((long long)la, (long long)lb);
    CHECK(memcmp(a, b, la) == 0);
}

/* The record the plain way (SQLite's file format, serial types 0-7): a
 * byte at a time, the smallest integer width. */
static size_t plain_record(unsigned char *out, int ncols, const int64_t *iv, const double *dv, const uint8_t *kind) {
    size_t nb = 1 + (size_t)ncols;
    out[0] = (unsigned char)(1 + ncols);
    for (int c = 0; c < ncols; c++) {
        uint64_t u;
        int bytes, t;
        if (kind[c] == BTREE_BULK_NULL) { out[1 + c] = 0; continue; }
        if (kind[c] == BTREE_BULK_REAL) {
            double d = dv[c] == 0 ? 0.0 : dv[c];
            memcpy(&u, &d, 8);
            bytes = 8, t = 7;
        } else {
            int64_t v = iv[c];
            u = (uint64_t)v;
            if (v >= -128 && v <= 127) bytes = 1, t = 1;
            else if (v >= -32768 && v <= 32767) bytes = 2, t = 2;
            else if (v >= -8388608 && v <= 8388607) bytes = 3, t = 3;
            else if (v >= INT32_MIN && v <= INT32_MAX) bytes = 4, t = 4;
            else if (v >= -((int64_t)1 << 47) && v < ((int64_t)1 << 47)) bytes = 6, t = 5;
            else bytes = 8, t = 6;
        }
        for (int i = bytes - 1; i >= 0; i--) out[nb++] = (unsigned char)(u >> (8 * i));
        out[1 + c] = (unsigned char)t;
    }
    return nb;
}

/* btree_bulk_record (whole-word stores) against plain_record on every
 * integer width's edges, NULLs, -0.0 and doubles, columns in many orders;
 * nothing written past the 9 + 9 * ncols bytes it may use. */
static void record_bytes(void) {
    static const int64_t edge[] = {0, 1, -1, 127, 128, -128, -129, 32767, 32768, -32768, -32769, 8388607, 8388608,
                                   -8388608, -8388609, INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN,
                                   (int64_t)INT32_MIN - 1, ((int64_t)1 << 47) - 1, (int64_t)1 << 47,
                                   -((int64_t)1 << 47), -((int64_t)1 << 47) - 1, INT64_MAX, INT64_MIN};
    static const double dbl[] = {0.0, -0.0, 1.5, -2.25e-300, 1e300, 0.006866};
    enum { NE = sizeof edge / sizeof edge[0], ND = sizeof dbl / sizeof dbl[0], MAXC = 24 };
    unsigned char got[9 + 9 * MAXC + 16], want[9 + 9 * MAXC];
    unsigned seed = 12345;
    int bad = 0;
    for (int round = 0; round < 4000; round++) {
        int64_t iv[MAXC];
        double dv[MAXC];
        uint8_t kind[MAXC];
        int ncols = 1 + (int)(seed % MAXC);
        for (int c = 0; c < ncols; c++) {
            seed = seed * 1103515245u + 12345u;
            kind[c] = (uint8_t)((seed >> 16) % 3);
            iv[c] = edge[(seed >> 8) % NE];
            dv[c] = dbl[(seed >> 20) % ND];
        }
        memset(got, 0xa5, sizeof got);
        size_t lg = btree_bulk_record(got, ncols, iv, dv, kind), lw = plain_record(want, ncols, iv, dv, kind);
        size_t room = 9 + 9 * (size_t)ncols;
        int over = 0;
        for (size_t i = room; i < sizeof got; i++) over |= got[i] != 0xa5;
        if (lg != lw || memcmp(got, want, lw) != 0 || over) bad++;
    }
    CHECK_INT(bad, 0);
}

/* A record made as mon_row_out makes trend_data's (btree_bulk_ir_keys,
 * then btree_bulk_ir_real for each present column, ascending) against
 * plain_record of the same row with a kind per column: every integer
 * width's edges, -0.0, every mask, 0..8 ints and 0..16 doubles; nothing
 * written past the room btree_bulk.h asks for. */
static void ir_record_bytes(void) {
    static const int64_t edge[] = {0, 1, -1, 127, 128, -128, -129, 32767, 32768, -32768, -32769, 8388608,
                                   -8388609, (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1, (int64_t)1 << 47,
                                   -((int64_t)1 << 47) - 1, INT64_MAX, INT64_MIN};
    static const double dbl[] = {0.0, -0.0, 1.5, -2.25e-300, 1e300, 1000000001.0, -1e9};
    enum { NE = sizeof edge / sizeof edge[0], ND = sizeof dbl / sizeof dbl[0], MAXI = 8, MAXR = 16 };
    unsigned char got[9 + 9 * (MAXI + MAXR) + 16], want[9 + 9 * (MAXI + MAXR)];
    unsigned seed = 4242;
    int bad = 0;
    for (int round = 0; round < 4000; round++) {
        int64_t iv[MAXI + MAXR] = {0};
        double dv[MAXR], pdv[MAXI + MAXR] = {0};
        uint8_t kind[MAXI + MAXR];
        seed = seed * 1103515245u + 12345u;
        int nint = (int)((seed >> 8) % (MAXI + 1)), nreal = (int)((seed >> 16) % (MAXR + 1));
        seed = seed * 1103515245u + 12345u;
        uint32_t present = seed ^ (seed << 7);
        for (int c = 0; c < nint; c++) {
            seed = seed * 1103515245u + 12345u;
            iv[c] = edge[(seed >> 8) % NE];
            kind[c] = BTREE_BULK_INT;
        }
        for (int c = 0; c < nreal; c++) {
            seed = seed * 1103515245u + 12345u;
            dv[c] = dbl[(seed >> 12) % ND];
            kind[nint + c] = (present >> c) & 1 ? BTREE_BULK_REAL : BTREE_BULK_NULL;
            pdv[nint + c] = dv[c];
        }
        memset(got, 0xa5, sizeof got);
        unsigned char *o = btree_bulk_ir_keys(got, nint, iv, nreal);
        for (int c = 0; c < nreal; c++)
            if ((present >> c) & 1) o = btree_bulk_ir_real(got, nint, o, c, dv[c]);
        size_t lg = (size_t)(o - got), lw = plain_record(want, nint + nreal, iv, pdv, kind);
        size_t room = 9 + 9 * (size_t)(nint + nreal), nulls = 1 + (size_t)nint + BTREE_BULK_IR_MAX;
        int over = 0;
        for (size_t i = room > nulls ? room : nulls; i < sizeof got; i++) over |= got[i] != 0xa5;
        if (lg != lw || memcmp(got, want, lw) != 0 || over) bad++;
    }
    CHECK_INT(bad, 0);
}

/* The file of n rows (row_record) built by btree_bulk_add, or (place) by
 * btree_bulk_place where the open leaf has room and btree_bulk_add where
 * not, as data2db's dump writer does; its size in *len, the bytes the
 * caller's.  Also: place takes nothing before the start and after the end. */
static char *built(const char *dir, const char *name, int ps, long n, int place, long *placed, long *len) {
    int64_t root;
    const char *path = make_db(dir, name, ps, &root);
    struct btree_bulk *b;
    struct pt_error err;
    *placed = 0;
    if (!path || btree_bulk_open(&b, ps, &err) != 0) return NULL;
    CHECK(btree_bulk_place(b, 20) == NULL);   /* not started */
    CHECK_INT(start(b, path, root, &err), 0);
    for (long i = 0; i < n; i++) {
        unsigned char rec[64], *at;
        size_t rl = row_record(i, rec);
        if (place && (at = btree_bulk_place(b, rl)) != NULL) {
            memcpy(at, rec, rl);
            (*placed)++;
        } else
            CHECK_INT(btree_bulk_add(b, rec, rl), 0);
    }
    CHECK_INT(btree_bulk_finish(b, &err), 0);
    CHECK(btree_bulk_place(b, 20) == NULL);   /* finished */
    btree_bulk_free(b);
    struct stat st;
    *len = stat(path, &st) == 0 ? (long)st.st_size : -1;
    return pt_slurp(path);
}

/* Records placed straight into the leaf make the file byte for byte as
 * records added: a deep tree of small pages (interior pages full many
 * times over) and the default page size; and the file reads back right. */
static void place_same_bytes(void) {
    static const int sizes[] = {512, 4096, 16384};
    for (int k = 0; k < 3; k++) {
        const char *dir = pt_tmpdir("btree_bulk_place");
        char na[32], np[32];
        long la, lp, pa, pp, n = sizes[k] == 512 ? 30000 : 120000;
        snprintf(na, sizeof na, "add%d.db", sizes[k]);
        snprintf(np, sizeof np, "place%d.db", sizes[k]);
        char *a = built(dir, na, sizes[k], n, 0, &pa, &la), *p = built(dir, np, sizes[k], n, 1, &pp, &lp);
        CHECK(a != NULL && p != NULL);
        CHECK_INT(pa, 0);
        CHECK(pp > n * 9 / 10);   /* most rows placed: a leaf closes only every few dozen rows */
        CHECK(la > 0 && la == lp);
        CHECK(a && p && la == lp && memcmp(a, p, (size_t)la) == 0);
        free(a);
        free(p);
    }
}

int main(void) {
    RUN(small_pages);
    RUN(default_pages);
    RUN(big_pages);
    RUN(no_rows);
    RUN(refuses_odd_file);
    RUN(write_fails);
    RUN(across_lock_page);
    RUN(negative_zero);
    RUN(record_bytes);
    RUN(ir_record_bytes);
    RUN(place_same_bytes);
    PT_DONE();
}
