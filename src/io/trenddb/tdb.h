/* tdb: one .trend.db being written by `probetop data2db` (write_trenddb.h),
 * and what its three writers share -- the dump writer
 * (trenddb_write_dump.c), the monitor writer (trenddb_write_monitor.c) and
 * the merge of shards (trenddb_merge.c): the file under its temporary name
 * and its commit, msProbe's tables, the replay of msProbe's target ids,
 * the tags, the tables a shard carries, and the one way rows go into a
 * table (probetop-formats(5), TREND.DB; probetop(1), FILES).  Internal to
 * src/io/trenddb. */
#ifndef PT_TDB_H
#define PT_TDB_H

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "model/cube/dataset.h"
#include "model/cube/names.h"
#include "model/err.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/trenddb/btree_bulk.h"

struct tdb {
    sqlite3 *db;
    char *final, *tmp;
    struct pt_error *err;
    atomic_int *cancel;      /* set by a signal: stop, remove the temporary file */
    /* tables built beside SQLite (btree_bulk.h), t's own: trend_data, the
     * rank summary; each written into the file in turn (tdb_bulk_add) */
    struct btree_bulk *bulk[2];
    int64_t bulk_root[2];    /* their root pages */
    int held;                /* targets held in a TEMP table until the trees are in (tdb_prepare_targets) */
};

/* outdir/name, written as outdir/name.tmp.PID (temporary files of killed
 * runs removed) in one transaction; cache_kib: SQLite's page cache.  0, or
 * -1 with err (t is then tdb_abort's). */
int tdb_open(struct tdb *t, const char *outdir, const char *name, int cache_kib, const struct load_opts *lo,
             struct dataset *ds, struct pt_error *err);
/* The temporary file removed, t emptied. */
void tdb_abort(struct tdb *t);
/* Commit (the bulk-built tables finished: tdb_bulk_end), the file renamed into place.
 * 0, or -1 with t's error set (aborted). */
int tdb_commit(struct tdb *t);
/* t's error: "<file>: what: <SQLite's reason>"; returns -1. */
int tdb_fail(struct tdb *t, const char *what);
/* sql run (stops when t->cancel is set); 0, or -1 with t's error set. */
int tdb_exec(struct tdb *t, const char *sql);

/* msProbe's tables: monitoring_targets, _metrics, _tags, tag_target_mapping. */
int tdb_create_fixed(struct tdb *t);
/* trend_data with the statistic columns stats[0..n). */
int tdb_create_trend(struct tdb *t, const char *const *stats, int n);
int tdb_insert_metrics(struct tdb *t, const char *const *names, int n);
/* global_stats of a dump database, and of a monitor one (per metric that
 * had files: the statistics its files had, mstat). */
int tdb_dump_global_stats(struct tdb *t, int32_t max_rank, int32_t min_step, int32_t max_step);
int tdb_monitor_global_stats(struct tdb *t, int32_t min_step, int32_t max_step, int32_t max_rank, uint32_t has_files,
                             const uint32_t *mstat);
/* msProbe's value normalisation (probetop-formats(5), TREND.DB): 0 for
 * NULL, else 1 with the value to store in *out.  Inline: every statistic
 * of every row goes through it. */
static inline int tdb_normalise(double v, double *out) {
    if (fabs(v) <= 1e9) {   /* the usual value, as it is: one test (false for NaN) */
        *out = v;
        return 1;
    }
    if (isnan(v)) return 0;
    if (isinf(v)) {
        *out = v > 0 ? 1000000001.0 : -1000000001.0;
        return 1;
    }
    *out = v > 1e9 ? 1e9 : v < -1e9 ? -1e9 : v;
    return 1;
}

/* The +0.0 rule of the monitor writer's spools (tdb_monprep.h's records,
 * tdb_summary_pack_head's rows; probetop(1), data2db: every byte spooled
 * is written and read back through fresh page-cache pages): a +0.0, a
 * monitor's commonest value (its nans column), is a bit of *zeros (bit:
 * its statistic's), not 8 bytes; any other value, a -0.0 too (its sign
 * bit), the next of vals' values (*nv of them so far).  One rule for
 * both spools' writers (ms_row, mon_row_out), read back by tdb_zval
 * (mon_row_out: a record's every statistic in turn; the summary's
 * unpack walks only the stored ones, has but the zeros). */
static inline void tdb_zval_put(unsigned char *vals, unsigned *nv, uint32_t *zeros, int bit, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (!bits) *zeros |= 1u << bit;
    else memcpy(vals + (size_t)(*nv)++ * sizeof v, &v, sizeof v);
}
/* Statistic bit's value of values so put (zeros: their +0.0s), *k the
 * values read before it (advanced past it when it was stored). */
static inline double tdb_zval(const unsigned char *vals, uint32_t zeros, int bit, unsigned *k) {
    double v = 0.0;   /* +0.0, not stored */
    if (!((zeros >> bit) & 1)) memcpy(&v, vals + (size_t)(*k)++ * sizeof v, sizeof v);
    return v;
}

/* trend_data built beside SQLite (btree_bulk.h) when the file is the plain
 * kind it knows how to grow (*bb, t's own); else (*bb NULL, 0) the rows go
 * in by INSERTs.  Then targets (tdb_prepare_targets) are held in memory
 * until the tree is in. */
int tdb_bulk_open(struct tdb *t, struct btree_bulk **bb);
/* The same for a second table (the rank summary), built after trend_data. */
int tdb_bulk_more(struct tdb *t, const char *table, struct btree_bulk **bb);
/* One record into bb (in key order).  The first one commits what SQLite
 * has and ends the other tree (tdb_bulk_end); from then on the pages go
 * straight into the file after SQLite's, and SQLite must write nothing
 * (reading is fine) until tdb_bulk_end.  0, or -1 with t's error set. */
int tdb_bulk_add(struct tdb *t, struct btree_bulk *bb, const unsigned char *rec, size_t len);
/* The tree being written finished (its top in the table's root page, the
 * page count in the header) and SQLite back on the file, the held targets
 * in: SQLite may write again.  tdb_commit does it too.  0, or -1 with t's
 * error set. */
int tdb_bulk_end(struct tdb *t);

/* The bulk builder's helpers (tdb.c): the page size it can write with
 * (0: none, INSERTs), a table's or index's root page (0: none), and bb
 * started on root from the file's end. */
int tdb_bulk_page_size(struct tdb *t);
/* The first column of sql's first row as an integer; none when SQLite
 * gives no row or fails. */
int64_t tdb_ask(struct tdb *t, const char *sql, int64_t none);
int64_t tdb_root_page(struct tdb *t, const char *table);
int tdb_tree_start(struct tdb *t, struct btree_bulk *bb, int64_t root);
/* The rows of tree `index` (0: the rowid table, 1: its index) into bb,
 * in the tree's key order (a loop of the caller's: no call a row).  0, or
 * -1 when a page could not be written. */
typedef int tdb_tree_rows_fn(struct btree_bulk *bb, int index, const void *ctx);
/* A rowid table (root troot) and its index (root iroot) built beside
 * SQLite by add: SQLite's work so far committed and its lock given up
 * (tdb_bulk_end first), each tree opened on page size ps, started from the
 * file's end, filled and finished, then the lock taken back (the
 * connection reads the pages again and holds the file alone).  0, or -1
 * with t's error set. */
int tdb_two_trees(struct tdb *t, int ps, int64_t troot, int64_t iroot, tdb_tree_rows_fn *add, const void *ctx);

/* A target as monitoring_targets keeps it (vpp_stage 0). */
struct tdb_target_row {
    int64_t id;
    const char *name;
    size_t len;
    int32_t micro;
};
/* v[0..n) (ids ascending) as monitoring_targets' rows, built bottom-up
 * with its UNIQUE index beside SQLite when the table is empty and the file
 * the plain kind (tdb_targets.c), its sqlite_sequence row made: 0; 1 when
 * not done that way (the caller INSERTs them); -1 with t's error set. */
int tdb_targets_bulk(struct tdb *t, const struct tdb_target_row *v, size_t n);

/* ---- rows into a table: one way for every table the writers fill ---- */

/* into ("INSERT ... INTO table") with nrows rows of nparam parameters per
 * statement into *st.  0; 1 when SQLite refuses it (*st NULL: an old
 * SQLite with a low parameter limit; the caller decides); -1 with t's
 * error set when out of memory. */
int tdb_prepare_insert(struct tdb *t, const char *into, int nparam, int nrows, sqlite3_stmt **st);
/* The parameters of row i from at (1-based). */
typedef void tdb_bind_fn(sqlite3_stmt *st, int at, size_t i, const void *ctx);
/* Rows 0..n through many (per rows a statement; NULL: none) as far as
 * they fill it, the rest through one; *changes (NULL: not counted) gains
 * the rows SQLite added (an ignored duplicate is none).  Many rows per
 * statement: one statement keeps its cursor on the last page, where an
 * append needs no descent from the root.  0, or -1 with t's error set
 * ("<file>: what: ..."). */
int tdb_insert(struct tdb *t, sqlite3_stmt *one, sqlite3_stmt *many, int per, int nparam, size_t n, tdb_bind_fn *bind,
               const void *ctx, const char *what, size_t *changes);

/* The same for a table filled at once: a statement of one row made
 * (into, nparam), rows 0..n through it, then closed. */
int tdb_insert_all(struct tdb *t, const char *into, int nparam, size_t n, tdb_bind_fn *bind, const void *ctx,
                   const char *what);

#define TDB_ROWS_PER_INSERT 128   /* trend_data rows per statement */
#define TDB_MAX_STATS MONITOR_NSTATS   /* statistic columns of trend_data at most (a dump has 4) */

/* A trend_data row as the table stores it: (rank, step, target_id,
 * metric_id) then the statistics, each NULL or REAL (btree_bulk's kinds). */
struct tdb_row {
    int ncols;               /* 4 + statistic columns */
    int64_t ival[4 + TDB_MAX_STATS];
    double dval[4 + TDB_MAX_STATS];
    uint8_t kind[4 + TDB_MAX_STATS];
};
/* "INSERT OR IGNORE INTO trend_data" of nrows rows of nstats statistics. */
int tdb_prepare_trend_insert(struct tdb *t, int nstats, int nrows, sqlite3_stmt **st);
/* One row into trend_data: appended to bb (rows in key order), else
 * through ins; *changes as tdb_insert.  0, or -1 with t's error set. */
int tdb_row_put(struct tdb *t, struct btree_bulk *bb, sqlite3_stmt *ins, const struct tdb_row *r, size_t *changes);

/* A finished trend_data row of the dump kind (the four statistics of
 * dump_stat_names): a rank's rows for its summary, a merge's. */
struct tdb_prow {
    int64_t dbid;
    int32_t step;
    uint8_t metric, present;   /* metric: its index (metric_id - 1); present: bit per statistic */
    double vals[4];
};
/* Key order: (step, target id, metric). */
int tdb_prow_cmp(const struct tdb_prow *x, const struct tdb_prow *y);
/* The row of rank as stored: raw, vals are already as stored (a merge
 * copies a shard's), else normalised. */
void tdb_prow_row(int32_t rank, const struct tdb_prow *p, int raw, struct tdb_row *out);
/* rows[0..n) of rank through ins (one row) and many (TDB_ROWS_PER_INSERT
 * rows, may be NULL); *changes as tdb_insert. */
int tdb_insert_prows(struct tdb *t, sqlite3_stmt *one, sqlite3_stmt *many, int32_t rank, const struct tdb_prow *rows,
                     size_t n, int raw, size_t *changes);

/* ---- target ids: msProbe's, from a replay of its INSERT OR IGNORE attempts ----
 *
 * Target ids must equal msProbe's, and msProbe's ids depend on the exact
 * sequence of INSERT OR IGNORE attempts (an ignored insert still burns an
 * AUTOINCREMENT id).  Rather than replaying the attempts through SQLite the
 * writers replay them in memory and insert each target once with its id,
 * then set sqlite_sequence to the burnt high-water mark. */

struct idmap {
    struct names *keys;      /* every key an insert was attempted for, in first-attempt order */
    int64_t *dbid;           /* per key: its target_id */
    size_t cap;
    int64_t seq;             /* AUTOINCREMENT high-water mark */
    int attempted;
};

/* The statement tdb_insert_target runs. */
int tdb_prepare_targets(struct tdb *t, sqlite3_stmt **ins);
/* One target with its id into monitoring_targets through ins; SQLite's
 * result (SQLITE_DONE). */
int tdb_insert_target(sqlite3_stmt *ins, int64_t id, const char *name, size_t len, int32_t vpp, int32_t call);
/* One INSERT OR IGNORE attempt: returns the key's index in m->keys, or -1. */
int64_t tdb_attempt(struct idmap *m, const char *name, size_t len, int32_t vpp, int32_t call, sqlite3_stmt *ins,
                    int *inserted);
/* sqlite_sequence set to m's high-water mark. */
int tdb_finish_sequence(struct tdb *t, const struct idmap *m);

/* Per metric: which replayed keys it knows, and all of them in first-seen order. */
struct mkeys {
    uint8_t *known;          /* per idmap key */
    size_t knowncap;
    uint32_t *order;
    size_t count, cap;
};
int tdb_mkeys_add(struct mkeys *mk, uint32_t key);   /* 0, -1 without memory */
/* Inline: the dump writer asks it for every row (dump_replay), where the
 * call cost more than the test (callgrind). */
static inline int tdb_mkeys_has(const struct mkeys *mk, uint32_t key) {
    return key != NAMES_NONE && key < mk->knowncap && mk->known[key];
}
void tdb_mkeys_free(struct mkeys *mk);

/* Labels of every key of a metric into monitoring_tags and
 * tag_target_mapping (probetop-rules(7), LABELS). */
int tdb_write_tags(struct tdb *t, const struct idmap *m, const uint32_t *keys, size_t n, int metric_id,
                   enum label_rules rules);

/* (tag id, target id) pairs, in the order emitted; v's owner. */
struct tdb_links {
    int64_t *v;
    size_t n, cap;   /* pairs */
};
/* tdb_write_tags with the links kept in keep (appended), not inserted:
 * tdb_write_links then writes every metric's at once. */
int tdb_write_tags_keep(struct tdb *t, const struct idmap *m, const uint32_t *keys, size_t n, int metric_id,
                        enum label_rules rules, struct tdb_links *keep);
/* keep's links into the empty tag_target_mapping, the rows and rowids of
 * one INSERT OR IGNORE a link in order, its two B-trees built beside
 * SQLite (btree_bulk.h) when the file is the plain kind; keep freed.  0,
 * or -1 with t's error set. */
int tdb_write_links(struct tdb *t, struct tdb_links *keep);

/* ---- a shard's own tables (probetop(1), FILES), for the merge ---- */

struct tdb_shard_head {
    const char *kind;        /* "dump", "monitor" */
    int shard_k, shard_n;    /* shard K of N */
    int micro, any;          /* --micro_step; has a rank of its own */
    int32_t max_rank, min_step, max_step;
    int64_t folders;         /* rank folders of the whole run */
};
struct tdb_shard_file {      /* a file a shard read */
    int64_t index, group;
    int32_t rank, micro, base;   /* micro steps (0: no rows), step of its micro step 0 */
};
struct tdb_shard_attempt {   /* a target id attempt, in order */
    int64_t seq, index, target;   /* index: its file's */
    int metric;
};
/* probetop_shard, probetop_shard_files, probetop_shard_attempts. */
int tdb_shard_create(struct tdb *t);
/* The head row and the files. */
int tdb_shard_files(struct tdb *t, const struct tdb_shard_head *h, const struct tdb_shard_file *f, size_t n);
int tdb_shard_attempts(struct tdb *t, const struct tdb_shard_attempt *a, size_t n);

#endif
