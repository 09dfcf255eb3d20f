/* tdb_targets: monitoring_targets and its UNIQUE(target_name, vpp_stage,
 * micro_step) index built bottom-up beside SQLite (btree_bulk.h) from
 * targets in id order, where INSERTs cost a statement step, a descent of
 * the index by name and its page splits (probetop-formats(5), TREND.DB):
 * the dump writer's held targets were 38 M instructions of its thread at
 * 134 MB, 7.6 k a target (callgrind).  The table's B-tree gets (rowid:
 * NULL for the rowid alias, name, 0, micro), the index the records (name,
 * 0, micro, rowid) in BINARY order: what SQLite itself would hold, page
 * layout aside (the SQLite file format, "B-tree Pages", "Record Format"),
 * and sqlite_sequence the row AUTOINCREMENT would have made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/trenddb/tdb.h"

/* BINARY order of (name, vpp_stage 0, micro), then the rowid. */
static int cmp_index(const void *a, const void *b) {
    const struct tdb_target_row *x = a, *y = b;
    int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    if (x->micro != y->micro) return x->micro < y->micro ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Can the rows go in this way: ids ascending, every record in its page
 * without overflow (a table leaf keeps ps - 35 bytes of a row; an index
 * page (ps - 12) * 64 / 255 - 23; btree_bulk_add 900), the keys unique
 * (sorted: s)? */
static int fits(const struct tdb_target_row *v, const struct tdb_target_row *s, size_t n, int ps) {
    size_t most = (size_t)(ps - 12) * 64 / 255 - 23;
    if (most > 900) most = 900;
    for (size_t i = 0; i < n; i++) {
        if (v[i].len + 40 > most || (i && v[i].id <= v[i - 1].id)) return 0;
        if (i && s[i].len == s[i - 1].len && s[i].micro == s[i - 1].micro && !memcmp(s[i].name, s[i - 1].name, s[i].len))
            return 0;   /* UNIQUE: SQLite's INSERT says what happens */
    }
    return 1;
}

/* The two trees' rows (tdb_two_trees): the table's from v (id order),
 * the index's from s (key order), n of each. */
struct target_rows {
    const struct tdb_target_row *v, *s;
    size_t n;
};

/* The rows into the tree: the table's (v: rowid, then NULL for the rowid
 * alias, name, 0, micro) or the index's (s: name, 0, micro, rowid). */
static int add_rows(struct btree_bulk *bb, int index, const void *ctx) {
    static const uint8_t kind[2][4] = {{BTREE_BULK_NULL, BTREE_BULK_TEXT, BTREE_BULK_INT, BTREE_BULK_INT},
                                       {BTREE_BULK_TEXT, BTREE_BULK_INT, BTREE_BULK_INT, BTREE_BULK_INT}};
    const struct target_rows *tr = ctx;
    const struct tdb_target_row *rows = index ? tr->s : tr->v;   /* (a local: not read again after each add) */
    size_t n = tr->n;
    unsigned char rec[9 + 9 * 4 + 1024];
    for (size_t i = 0; i < n; i++) {
        const struct tdb_target_row *r = &rows[i];
        int64_t tv[4] = {0, (int64_t)r->len, 0, r->micro}, iv[4] = {(int64_t)r->len, 0, r->micro, r->id};
        const char *tt[4] = {NULL, r->name, NULL, NULL}, *it[4] = {r->name, NULL, NULL, NULL};
        if (index ? btree_bulk_add(bb, rec, btree_bulk_record_text(rec, 4, iv, it, kind[1]))
                  : btree_bulk_add_row(bb, r->id, rec, btree_bulk_record_text(rec, 4, tv, tt, kind[0])))
            return -1;
    }
    return 0;
}

int tdb_targets_bulk(struct tdb *t, const struct tdb_target_row *v, size_t n) {
    int ps = n ? tdb_bulk_page_size(t) : 0;
    int64_t troot = ps ? tdb_root_page(t, "monitoring_targets") : 0;
    int64_t iroot = troot ? tdb_root_page(t, "sqlite_autoindex_monitoring_targets_1") : 0;
    if (!iroot) return 1;
    /* an empty table, never given a row (its sequence not begun) */
    int64_t any = tdb_ask(t, "SELECT EXISTS (SELECT 1 FROM monitoring_targets)", -1);
    int64_t seq =
        any == 0 ? tdb_ask(t, "SELECT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'monitoring_targets')", -1)
                 : any;
    if (any < 0 || seq < 0) return tdb_fail(t, "read monitoring_targets");
    if (any || seq) return 1;
    struct tdb_target_row *s = malloc(n * sizeof *s);
    if (!s) return pt_errorf(t->err, "out of memory");
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_index);
    struct target_rows tr = {v, s, n};
    int rc = fits(v, s, n, ps) ? tdb_two_trees(t, ps, troot, iroot, add_rows, &tr) : 1;
    free(s);
    if (rc) return rc;
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT INTO sqlite_sequence (name, seq) VALUES ('monitoring_targets', %lld)",
             (long long)v[n - 1].id);
    return tdb_exec(t, sql);
}
