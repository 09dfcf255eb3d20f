/* write_trenddb: msProbe-compatible .trend.db files (probetop-formats(5), TREND.DB; probetop-rules(7), LABELS; probetop-rules(7), TREND TARGETS; probetop-formats(5), MONITOR CSV TREES).
 *
 * Target ids must equal msProbe's, and msProbe's ids depend on the exact
 * sequence of INSERT OR IGNORE attempts (an ignored insert still burns an
 * AUTOINCREMENT id).  Rather than replaying the attempts through SQLite we
 * replay them in memory and insert each target once with its id, then set
 * sqlite_sequence to the burnt high-water mark.  The file is written under a
 * temporary name beside the target and renamed into place when complete. */
#define _GNU_SOURCE   /* qsort_r */
#include "src/io/trenddb/write_trenddb.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "model/cube/names.h"
#include "model/util/util.h"
#include "src/io/trenddb/btree_bulk.h"
#include "src/io/load.h"
#include "src/io/dump/read_dump.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/common/sqlite_ro.h"

/* ---- SQLite plumbing ---- */

struct tdb {
    sqlite3 *db;
    char *final, *tmp;
    struct pt_error *err;
    atomic_int *cancel;      /* set by a signal: stop, remove the temporary file */
    struct bb *bulk;         /* a table's rows built beside SQLite (btree_bulk.h), spliced in at the commit */
    int64_t bulk_root;       /* that table's root page */
};

/* SQLite's message, with the system's reason when there is one ("disk I/O
 * error" alone does not say the disk is full or the file too large). */
static const char *sql_reason(sqlite3 *db, char *buf, size_t n) {
    if (!db) return "cannot open";
    if (sqlite3_errcode(db) == SQLITE_INTERRUPT) return "interrupted";
    int e = sqlite3_system_errno(db), code = sqlite3_errcode(db) & 0xff;
    if (e && (code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN))
        snprintf(buf, n, "%s (%s)", sqlite3_errmsg(db), strerror(e));
    else if (code == SQLITE_IOERR && sqlite3_extended_errcode(db) == SQLITE_IOERR_WRITE)
        snprintf(buf, n, "%s while writing (disk full, or over a file size limit?)", sqlite3_errmsg(db));
    else
        snprintf(buf, n, "%s", sqlite3_errmsg(db));
    return buf;
}

static int tdb_fail(struct tdb *t, const char *what) {
    char why[512];
    return pt_errorf(t->err, "%s: %s: %s", t->final, what, sql_reason(t->db, why, sizeof why));
}

static int tdb_exec(struct tdb *t, const char *sql) {
    if (t->cancel && atomic_load(t->cancel)) return pt_errorf(t->err, "%s: interrupted", t->final);
    if (sqlite3_exec(t->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        char why[512];
        return pt_errorf(t->err, "%s: %s", t->final, sql_reason(t->db, why, sizeof why));
    }
    return 0;
}

/* Temporary files NAME.tmp.PID of runs that were killed (SIGKILL, a power
 * cut: no chance to clean up) are removed when their process is gone. */
static void remove_stale(const char *outdir, const char *name, struct dataset *ds) {
    DIR *d = opendir(outdir);
    if (!d) return;
    size_t nl = strlen(name);
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *pid = e->d_name + nl + 5;
        if (strncmp(e->d_name, name, nl) || strncmp(e->d_name + nl, ".tmp.", 5) || !*pid ||
            strspn(pid, "0123456789") != strlen(pid) || strlen(pid) > 9)
            continue;
        long p = atol(pid);
        if (p <= 0 || p == (long)getpid() || kill((pid_t)p, 0) == 0 || errno != ESRCH) continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", outdir, e->d_name);
        if (unlink(path) == 0)
            dataset_warn(ds, "%s: removed, the temporary file of an interrupted run (process %ld is gone)", path, p);
    }
    closedir(d);
}

/* SQLite asks this now and then during long statements: non-zero stops them. */
static int tdb_progress(void *cancel) { return atomic_load((atomic_int *)cancel) != 0; }

static int tdb_open(struct tdb *t, const char *outdir, const char *name, int cache_kib, const struct load_opts *lo,
                    struct dataset *ds, struct pt_error *err) {
    memset(t, 0, sizeof *t);
    t->err = err;
    t->cancel = lo->cancel;
    remove_stale(outdir, name, ds);
    size_t l = strlen(outdir) + strlen(name) + 2;
    t->final = malloc(l);
    t->tmp = malloc(l + 16);
    if (!t->final || !t->tmp) return pt_errorf(err, "out of memory");
    snprintf(t->final, l, "%s/%s", outdir, name);
    snprintf(t->tmp, l + 16, "%s.tmp.%ld", t->final, (long)getpid());
    unlink(t->tmp);
    if (sqlite3_open_v2(t->tmp, &t->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        /* the folder, not our temporary name, is what the user can fix */
        int e = access(outdir, W_OK | X_OK) != 0 ? errno : t->db ? sqlite3_system_errno(t->db) : 0;
        int rc = pt_errorf(err, "%s: cannot create %s there: %s", outdir, name,
                           e ? strerror(e) : t->db ? sqlite3_errmsg(t->db) : "out of memory");
        sqlite3_close(t->db);
        t->db = NULL;
        return rc;
    }
    if (lo->cancel) sqlite3_progress_handler(t->db, 20000, tdb_progress, lo->cancel);
    /* the temporary file is ours alone until the rename; no journal needed.
     * cache_kib: a big page cache when trend_data (a WITHOUT ROWID B-tree)
     * is filled out of key order, a small one when it is appended to */
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
                              "PRAGMA cache_size=-%d; BEGIN", cache_kib);
    if (tdb_exec(t, sql) != 0) return -1;
    return 0;
}

static void tdb_abort(struct tdb *t) {
    if (t->db) sqlite3_close(t->db);
    if (t->tmp) unlink(t->tmp);
    free(t->final);
    free(t->tmp);
    memset(t, 0, sizeof *t);
}

static int tdb_commit(struct tdb *t) {
    if (tdb_exec(t, "COMMIT") != 0) { tdb_abort(t); return -1; }
    /* back to msProbe's defaults so the file reads like theirs */
    if (tdb_exec(t, "PRAGMA journal_mode=DELETE") != 0) { tdb_abort(t); return -1; }
    if (sqlite3_close(t->db) != SQLITE_OK) { tdb_fail(t, "close"); tdb_abort(t); return -1; }
    t->db = NULL;
    if (t->bulk && bb_splice(t->bulk, t->tmp, t->bulk_root, t->err) != 0) {
        tdb_abort(t);
        return -1;
    }
    if (rename(t->tmp, t->final) != 0) {
        pt_errorf(t->err, "%s: cannot move the finished database into place", t->final);
        tdb_abort(t);
        return -1;
    }
    free(t->final);
    free(t->tmp);
    memset(t, 0, sizeof *t);
    return 0;
}

static int write_rank_summary(struct tdb *t);
static int bulk_attach(struct tdb *t, struct bb *bb);
/* Fewer ranks: no summary (a heat map shows them all; the table would cost
 * an eighth of the rows for nothing) */
#define SUMMARY_MIN_RANKS 9
struct summ_job;
struct rankrows;
static struct summ_job *summ_job_new(int32_t max_rank);
static void summ_job_rank(struct summ_job *j, const struct rankrows *b);
static int summ_job_write(struct tdb *t, struct summ_job *j);
static void summ_job_free(struct summ_job *j);
static int summ_job_fits(const struct summ_job *j, int32_t max_rank);

static const char SQL_TARGETS[] =
    "CREATE TABLE IF NOT EXISTS monitoring_targets (\n"
    "            target_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "            target_name TEXT NOT NULL,\n"
    "            vpp_stage INTEGER NOT NULL,\n"
    "            micro_step INTEGER NOT NULL DEFAULT 0,\n"
    "            UNIQUE(target_name, vpp_stage, micro_step)\n"
    "        )";
static const char SQL_METRICS[] =
    "CREATE TABLE IF NOT EXISTS monitoring_metrics (\n"
    "            metric_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "            metric_name TEXT UNIQUE NOT NULL\n"
    "        )";
static const char SQL_TAGS[] =
    "CREATE TABLE IF NOT EXISTS monitoring_tags (\n"
    "            tag_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "            tag_name TEXT NOT NULL,\n"
    "            category TEXT NOT NULL,\n"
    "            metric_id INTEGER NOT NULL,\n"
    "            UNIQUE(tag_name, category, metric_id),\n"
    "            FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)\n"
    "        )";
static const char SQL_MAPPING[] =
    "CREATE TABLE IF NOT EXISTS tag_target_mapping (\n"
    "            tag_id INTEGER NOT NULL,\n"
    "            target_id INTEGER NOT NULL,\n"
    "            PRIMARY KEY (tag_id, target_id),\n"
    "            FOREIGN KEY (tag_id) REFERENCES monitoring_tags(tag_id),\n"
    "            FOREIGN KEY (target_id) REFERENCES monitoring_target(target_id)\n"
    "        )";

static int create_fixed(struct tdb *t) {
    if (tdb_exec(t, SQL_TARGETS) || tdb_exec(t, SQL_METRICS) || tdb_exec(t, SQL_TAGS) || tdb_exec(t, SQL_MAPPING))
        return -1;
    return 0;
}

static int create_trend(struct tdb *t, const char *const *stats, int n) {
    char sql[4096];
    size_t o = (size_t)snprintf(sql, sizeof sql,
                                "CREATE TABLE IF NOT EXISTS trend_data (\n"
                                "            rank INTEGER NOT NULL,\n"
                                "            step INTEGER NOT NULL,\n"
                                "            target_id INTEGER NOT NULL,\n"
                                "            metric_id INTEGER NOT NULL,\n"
                                "            ");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, "%s%s REAL DEFAULT NULL", i ? ", " : "", stats[i]);
    snprintf(sql + o, sizeof sql - o,
             ",\n"
             "            PRIMARY KEY (rank, step, target_id, metric_id),\n"
             "            FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id),\n"
             "            FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)\n"
             "        ) WITHOUT ROWID");
    return tdb_exec(t, sql);
}

/* msProbe's value normalisation (probetop-formats(5), TREND.DB); returns 0 for NULL. */
static int normalise(double v, double *out) {
    if (isnan(v)) return 0;
    if (isinf(v)) { *out = v > 0 ? 1000000001.0 : -1000000001.0; return 1; }
    if (v > 1e9) v = 1e9;
    if (v < -1e9) v = -1e9;
    *out = v;
    return 1;
}

static int insert_metrics(struct tdb *t, const char *const *names, int n) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(t->db, "INSERT OR IGNORE INTO monitoring_metrics (metric_name) VALUES (?)", -1, &st, NULL))
        return tdb_fail(t, "prepare");
    for (int i = 0; i < n; i++) {
        sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) { sqlite3_finalize(st); return tdb_fail(t, "insert metric"); }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return 0;
}

/* ---- the id replay ---- */

struct idmap {
    struct names *keys;      /* every key an insert was attempted for, in first-attempt order */
    int64_t *dbid;           /* per key: its target_id */
    size_t cap;
    int64_t seq;             /* AUTOINCREMENT high-water mark */
    int attempted;
};

/* One INSERT OR IGNORE attempt: returns the key's index in keys, or -1. */
static int64_t attempt(struct idmap *m, const char *name, size_t len, int32_t vpp, int32_t call, sqlite3_stmt *ins,
                       int *inserted) {
    uint32_t before = names_count(m->keys);
    uint32_t k = names_intern(m->keys, name, len, vpp, call);
    if (k == NAMES_NONE) return -1;
    m->attempted = 1;
    m->seq++;   /* burnt whether or not the row is new */
    *inserted = 0;
    if (k < before) return k;
    if (k >= m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        while (cap <= k) cap *= 2;
        int64_t *d = realloc(m->dbid, cap * sizeof *d);
        if (!d) return -1;
        m->dbid = d;
        m->cap = cap;
    }
    m->dbid[k] = m->seq;
    sqlite3_bind_int64(ins, 1, m->seq);
    sqlite3_bind_text(ins, 2, name, (int)len, SQLITE_TRANSIENT);
    sqlite3_bind_int(ins, 3, vpp);
    sqlite3_bind_int(ins, 4, call);
    int rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (rc != SQLITE_DONE) return -1;
    *inserted = 1;
    return k;
}

static int finish_sequence(struct tdb *t, const struct idmap *m) {
    if (!m->attempted) return 0;
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE sqlite_sequence SET seq = %lld WHERE name = 'monitoring_targets'", (long long)m->seq);
    return tdb_exec(t, sql);
}

/* Per metric: which replayed keys it knows, and all of them in first-seen order. */
struct mkeys {
    uint8_t *known;          /* per idmap key */
    size_t knowncap;
    uint32_t *order;
    size_t n, cap;
};

static int mk_know(struct mkeys *mk, uint32_t key) {
    if (util_grow0((void **)&mk->known, &mk->knowncap, (size_t)key + 1, 1) != 0) return -1;
    if (mk->known[key]) return 0;
    mk->known[key] = 1;
    if (util_grow0((void **)&mk->order, &mk->cap, mk->n + 1, sizeof *mk->order) != 0) return -1;
    mk->order[mk->n++] = key;
    return 0;
}

static int mk_knows(const struct mkeys *mk, uint32_t key) {
    return key != NAMES_NONE && key < mk->knowncap && mk->known[key];
}

static void mk_free(struct mkeys *mk) {
    free(mk->known);
    free(mk->order);
    memset(mk, 0, sizeof *mk);
}

/* ---- tags ---- */

struct tagctx {
    sqlite3_stmt *ins_tag, *ins_map;
    sqlite3 *db;
    struct names *seen;      /* (text, vpp = category) labels of this metric */
    int64_t *tagid;          /* per seen label */
    size_t cap;
    int64_t target;
    int metric_id;
    int failed;
};

static void tag_emit(void *vctx, int cat, const char *text, size_t len) {
    struct tagctx *c = vctx;
    if (c->failed) return;
    uint32_t before = names_count(c->seen);
    uint32_t k = names_intern(c->seen, text, len, cat, 0);
    if (k == NAMES_NONE) { c->failed = 1; return; }
    if (k >= before) {
        /* each distinct label once per metric, as msProbe inserts a set:
         * an ignored duplicate insert would burn a tag id */
        if (k >= c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 256;
            int64_t *x = realloc(c->tagid, cap * sizeof *x);
            if (!x) { c->failed = 1; return; }
            c->tagid = x;
            c->cap = cap;
        }
        sqlite3_bind_text(c->ins_tag, 1, text, (int)len, SQLITE_TRANSIENT);
        sqlite3_bind_text(c->ins_tag, 2, label_cat_name(cat), -1, SQLITE_STATIC);
        sqlite3_bind_int(c->ins_tag, 3, c->metric_id);
        if (sqlite3_step(c->ins_tag) != SQLITE_DONE) c->failed = 1;
        sqlite3_reset(c->ins_tag);
        c->tagid[k] = sqlite3_last_insert_rowid(c->db);
    }
    sqlite3_bind_int64(c->ins_map, 1, c->tagid[k]);
    sqlite3_bind_int64(c->ins_map, 2, c->target);
    if (sqlite3_step(c->ins_map) != SQLITE_DONE) c->failed = 1;
    sqlite3_reset(c->ins_map);
}

/* Labels of every key of a metric.  Tag ids are not reproducible in msProbe
 * either (set order); rows and links are. */
static int write_tags(struct tdb *t, const struct idmap *m, const uint32_t *keys, size_t n, int metric_id,
                      enum label_rules rules) {
    struct tagctx c = {.metric_id = metric_id, .db = t->db};
    if (!(c.seen = names_new())) return pt_errorf(t->err, "out of memory");
    if (sqlite3_prepare_v2(t->db, "INSERT INTO monitoring_tags (tag_name, category, metric_id) VALUES (?,?,?)", -1,
                           &c.ins_tag, NULL) ||
        sqlite3_prepare_v2(t->db, "INSERT OR IGNORE INTO tag_target_mapping (tag_id, target_id) VALUES (?,?)", -1,
                           &c.ins_map, NULL)) {
        sqlite3_finalize(c.ins_tag);
        sqlite3_finalize(c.ins_map);
        names_free(c.seen);
        return tdb_fail(t, "prepare tags");
    }
    for (size_t i = 0; i < n && !c.failed; i++) {
        const struct target *tg = names_target(m->keys, keys[i]);
        c.target = m->dbid[keys[i]];
        labels_derive(names_str(m->keys, keys[i]), tg->len, rules, tag_emit, &c);
    }
    sqlite3_finalize(c.ins_tag);
    sqlite3_finalize(c.ins_map);
    names_free(c.seen);
    free(c.tagid);
    return c.failed ? tdb_fail(t, "insert tags") : 0;
}

/* ---- dump ----
 *
 * Files come rank by rank (dump_opts.rank_major), each rank's in step
 * order: their rows, sorted by key, go in as each file comes, appended to
 * the table (its key is (rank, step, target, metric)) while the next files
 * parse.  Target ids are msProbe's: the replay of its INSERT OR IGNORE
 * attempts runs over the files in the list's order (step, then rank), as
 * far as the files read so far allow; a row's id is final once its target
 * had its first attempt, and a file waits (with every later one) until all
 * of its rows have theirs. */

/* A finished trend_data row (rows of a rank, for its summary; a merge's). */
struct prow {
    int64_t dbid;
    int32_t step;
    uint8_t metric, present;
    double v[4];
};

struct rankrows {
    int32_t rank;
    struct prow *v;
    size_t n, cap;
};

struct rfile {               /* a file's rows as the id replay needs them */
    uint32_t *key;           /* per row: its target (ids.keys) */
    uint32_t *entry;         /* per row: its record (msProbe flushes between records) */
    uint8_t *metric;
    size_t n;
    size_t index;            /* place in the whole list (a shard's attempts) */
    int ready;               /* handed over (a skipped file: with no rows) */
};

struct qrow {                /* a row waiting to go in */
    uint32_t key, i;         /* target; place in its file (of two rows of one key the first wins) */
    int32_t step;
    uint8_t metric, present;
    double v[4];
};

struct qfile {
    int32_t rank;
    struct qrow *v;
    size_t n;
    uint32_t *order;         /* its rows in key order when known from the file before, else NULL */
    uint64_t gen;            /* the file it was (lastfile.gen) */
};

struct shape {               /* what of a row decides its target and its place in key order */
    uint32_t name, len, entry;
    int32_t call, micro;
    uint8_t metric;
};

/* The file before: the next file of a rank is mostly shaped like it (the
 * same records in the same order, a step later), and then its targets and
 * its key order are the same: no lookup, no sort. */
struct lastfile {
    char *arena;
    size_t alen, acap;
    struct shape *shape;
    uint32_t *key, *order;   /* order: valid when order_ok */
    size_t n, cap;
    int order_ok;
    uint64_t gen;
};

struct shard_file {         /* a file a shard read */
    int64_t index, group;
    int32_t rank, micro, base;   /* micro steps (0: no rows), step of its micro step 0 */
};

struct shard_attempt {       /* a target id attempt, in order */
    int64_t seq, index, target;
    int metric;
};

struct dump_writer {
    struct tdb t;
    struct idmap ids;        /* keys: every target of a row read; dbid 0 until its first attempt */
    struct mkeys mk[DM_N];
    int metric_order[DM_N], nmetric_order;
    uint32_t *stamp[DM_N];   /* per key: the last batch it was fresh in, for this metric */
    size_t stampcap[DM_N];
    uint32_t batch;
    struct { uint32_t key; uint8_t metric; } *fresh;   /* keys new to a metric since the last flush */
    size_t nfresh, capfresh;
    struct rfile *rf;        /* per place in the list */
    size_t caprf, replayed;  /* rf[0..replayed) are replayed */
    struct qfile *q;         /* files waiting for ids, in arrival order */
    size_t nq, capq;
    struct rankrows cur;     /* the rank going in, for its summary */
    struct summ_job *summ;   /* NULL: no summary made on the way */
    int summ_off;            /* the rank summary comes from the table at the end */
    int32_t max_rank_rows;   /* the last rank with rows (-1: none) */
    int rank_major;          /* files come rank by rank (else in the list's order) */
    sqlite3_stmt *ins_target, *ins_row, *ins_rows;   /* one row, ROWS_PER_INSERT rows */
    uint64_t *sortkey;       /* scratch of insert_file */
    size_t capsortkey;
    struct lastfile last;
    struct bb *bb;           /* trend_data built in key order beside SQLite (NULL: INSERTs) */
    int64_t lastkey[4];      /* bb: the last row's (rank, step, target, metric) */
    int haslast;
    int bb_refused;          /* bb: a row not after the one before (read again with INSERTs) */
    struct pt_error *err;
    struct dataset *ds;
    /* --shard: what the merge needs to replay the unsharded run (see
     * probetop(1), FILES: the files read, every target id attempt) */
    int shard;
    size_t cur_index;        /* the file being replayed: its place in the whole list */
    struct shard_file *sfiles;
    size_t nsfiles, capsfiles;
    struct shard_attempt *satt;
    size_t nsatt, capsatt;
    size_t rows_in;          /* rows inserted (duplicates ignored) */
};

#define ROWS_PER_INSERT 128

static int cmp_prow_key(const struct prow *x, const struct prow *y) {
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->dbid != y->dbid) return x->dbid < y->dbid ? -1 : 1;
    return (x->metric > y->metric) - (x->metric < y->metric);
}

static int cmp_prow(const void *a, const void *b, void *ctx) {
    const struct prow *v = ctx;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    int c = cmp_prow_key(&v[ia], &v[ib]);
    return c ? c : (ia < ib ? -1 : ia > ib);
}

/* The batch boundary of msProbe's importer: the targets first seen since the
 * last flush get their ids (metric by metric). */
static int dump_flush(struct dump_writer *w) {
    struct tdb *t = &w->t;
    for (int m = 0; m < DM_N; m++)
        for (size_t i = 0; i < w->nfresh; i++) {
            if (w->fresh[i].metric != m) continue;
            uint32_t k = w->fresh[i].key;
            w->ids.attempted = 1;
            w->ids.seq++;   /* burnt whether or not the row is new */
            if (!w->ids.dbid[k]) {
                const struct target *tg = names_target(w->ids.keys, k);
                w->ids.dbid[k] = w->ids.seq;
                sqlite3_bind_int64(w->ins_target, 1, w->ids.seq);
                sqlite3_bind_text(w->ins_target, 2, names_str(w->ids.keys, k), (int)tg->len, SQLITE_STATIC);
                sqlite3_bind_int(w->ins_target, 3, 0);
                sqlite3_bind_int(w->ins_target, 4, tg->call);
                int rc = sqlite3_step(w->ins_target);
                sqlite3_reset(w->ins_target);
                if (rc != SQLITE_DONE) return tdb_fail(t, "insert target");
            }
            if (mk_know(&w->mk[m], k) != 0) return pt_errorf(w->err, "out of memory");
            if (w->shard) {
                if (util_grow0((void **)&w->satt, &w->capsatt, w->nsatt + 1, sizeof *w->satt) != 0)
                    return pt_errorf(w->err, "out of memory");
                w->satt[w->nsatt++] = (struct shard_attempt){.seq = w->ids.seq, .index = (int64_t)w->cur_index,
                                                             .target = w->ids.dbid[k], .metric = m + 1};
            }
        }
    w->nfresh = 0;
    w->batch++;
    return 0;
}

/* msProbe's attempts for one file, in its row order. */
static int replay_file(struct dump_writer *w, const struct rfile *s) {
    w->cur_index = s->index;
    size_t i = 0, since = 0;
    while (i < s->n) {
        uint32_t entry = s->entry[i];
        for (; i < s->n && s->entry[i] == entry; i++) {
            uint32_t k = s->key[i];
            int m = s->metric[i];
            since++;
            int seen = 0;
            for (int o = 0; o < w->nmetric_order; o++)
                if (w->metric_order[o] == m) seen = 1;
            if (!seen) w->metric_order[w->nmetric_order++] = m;
            if (mk_knows(&w->mk[m], k)) continue;
            if (util_grow0((void **)&w->stamp[m], &w->stampcap[m], (size_t)k + 1, sizeof *w->stamp[m]) != 0)
                return pt_errorf(w->err, "out of memory");
            if (w->stamp[m][k] == w->batch) continue;   /* already new in this batch */
            w->stamp[m][k] = w->batch;
            if (util_grow0((void **)&w->fresh, &w->capfresh, w->nfresh + 1, sizeof *w->fresh) != 0)
                return pt_errorf(w->err, "out of memory");
            w->fresh[w->nfresh].key = k;
            w->fresh[w->nfresh++].metric = (uint8_t)m;
        }
        /* after each record: flush on a positive multiple of 5000 waiting rows */
        if (since && since % 5000 == 0) {
            if (dump_flush(w) != 0) return -1;
            since = 0;
        }
    }
    return dump_flush(w);   /* and at the end of every file */
}

/* Replays every file handed over whose turn has come. */
static int dump_replay(struct dump_writer *w) {
    while (w->replayed < w->caprf && w->rf[w->replayed].ready) {
        struct rfile *s = &w->rf[w->replayed];
        if (replay_file(w, s) != 0) return -1;
        free(s->key);
        free(s->entry);
        free(s->metric);
        s->key = s->entry = NULL;
        s->metric = NULL;
        w->replayed++;
    }
    return 0;
}

static int dump_global_stats(struct tdb *t, int32_t max_rank, int32_t min_step, int32_t max_step) {
    char sql[1024];
    if (tdb_exec(t, "CREATE TABLE IF NOT EXISTS global_stats (\n"
                    "            max_rank INTEGER DEFAULT 0, min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, "
                    "forward TEXT DEFAULT NULL, backward TEXT DEFAULT NULL, recompute TEXT DEFAULT NULL, "
                    "parameters_grad TEXT DEFAULT NULL\n"
                    "        )") != 0)
        return -1;
    snprintf(sql, sizeof sql,
             "INSERT INTO global_stats VALUES (%d, %d, %d, 'norm,max,min,mean', 'norm,max,min,mean', "
             "'norm,max,min,mean', 'norm,max,min,mean')",
             (int)max_rank, (int)min_step, (int)max_step);
    return tdb_exec(t, sql);
}

/* raw: the values are already as stored (a merge copies a shard's) */
static void bind_prow(sqlite3_stmt *s, int at, int32_t rank, const struct prow *r, int raw) {
    sqlite3_bind_int(s, at + 1, rank);
    sqlite3_bind_int(s, at + 2, r->step);
    sqlite3_bind_int64(s, at + 3, r->dbid);
    sqlite3_bind_int(s, at + 4, r->metric + 1);
    for (int c = 0; c < 4; c++) {
        double v = r->v[c];
        if (((r->present >> c) & 1) && (raw || normalise(r->v[c], &v))) sqlite3_bind_double(s, at + 5 + c, v);
        else sqlite3_bind_null(s, at + 5 + c);
    }
}

/* The rank that went in: into the summary (its rows sorted: files of one
 * rank mostly come in key order, a MindSpore graph/ and pynative/ pair not). */
static int summarize_rank(struct dump_writer *w) {
    struct rankrows *b = &w->cur;
    if (!w->summ || !b->n) { b->n = 0; return 0; }
    size_t i = 1;
    while (i < b->n && cmp_prow_key(&b->v[i - 1], &b->v[i]) <= 0) i++;
    if (i < b->n) {
        struct prow *sorted = malloc(b->n * sizeof *sorted);
        uint32_t *order = malloc(b->n * sizeof *order);
        if (!sorted || !order) {
            free(sorted);
            free(order);
            return pt_errorf(w->err, "out of memory");
        }
        for (size_t j = 0; j < b->n; j++) order[j] = (uint32_t)j;
        qsort_r(order, b->n, sizeof *order, cmp_prow, b->v);
        for (size_t j = 0; j < b->n; j++) sorted[j] = b->v[order[j]];
        free(order);
        free(b->v);
        b->v = sorted;
        b->cap = b->n;
    }
    summ_job_rank(w->summ, b);
    b->n = 0;
    return 0;
}

static int cmp_u64_pair(const void *a, const void *b) {
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

struct qsort_ctx {
    const struct qrow *v;
    const int64_t *dbid;
};

static int cmp_qrow(const void *a, const void *b, void *ctx) {
    const struct qsort_ctx *c = ctx;
    const struct qrow *x = &c->v[*(const uint32_t *)a], *y = &c->v[*(const uint32_t *)b];
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    int64_t dx = c->dbid[x->key], dy = c->dbid[y->key];
    if (dx != dy) return dx < dy ? -1 : 1;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* One waiting file's rows, in key order: (step, target id, metric), ties
 * in file order.  A 64-bit key sorts them: step - the file's first (21
 * bits), id (40), metric (3); the row's place rides in the low half of a
 * second word. */
static int sort_file(struct dump_writer *w, const struct qfile *qf, uint32_t *order) {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < qf->n; i++) {
        if (qf->v[i].step < lo) lo = qf->v[i].step;
        if (qf->v[i].step > hi) hi = qf->v[i].step;
    }
    if (util_grow((void **)&w->sortkey, &w->capsortkey, qf->n * 2, sizeof *w->sortkey) != 0) return -1;
    int packed = (int64_t)hi - lo < ((int64_t)1 << 21) && w->ids.seq < ((int64_t)1 << 40);
    uint64_t *k = w->sortkey;
    for (size_t i = 0; i < qf->n; i++) {
        const struct qrow *r = &qf->v[i];
        k[2 * i] = packed ? ((uint64_t)(r->step - lo) << 43) | ((uint64_t)w->ids.dbid[r->key] << 3) | r->metric : 0;
        k[2 * i + 1] = i;
    }
    size_t i = 1;
    while (packed && i < qf->n && k[2 * (i - 1)] <= k[2 * i]) i++;
    if (packed && i < qf->n) qsort(k, qf->n, 2 * sizeof *k, cmp_u64_pair);
    for (i = 0; i < qf->n; i++) order[i] = (uint32_t)k[2 * i + 1];
    struct qsort_ctx c = {qf->v, w->ids.dbid};
    if (!packed) qsort_r(order, qf->n, sizeof *order, cmp_qrow, &c);
    return 0;
}

/* Rows of a file in key order, into the bulk-built table: each after the
 * one before (the same key again: INSERT OR IGNORE kept the first). */
static int bulk_rows(struct dump_writer *w, int32_t rank, const struct prow *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const struct prow *r = &rows[i];
        int64_t k[4] = {rank, r->step, r->dbid, r->metric + 1};
        int c = 0;
        for (int j = 0; j < 4 && !c && w->haslast; j++) c = (k[j] > w->lastkey[j]) - (k[j] < w->lastkey[j]);
        if (w->haslast && c == 0) continue;
        if (w->haslast && c < 0) {
            w->bb_refused = 1;
            return pt_errorf(w->err, "rows out of key order");
        }
        memcpy(w->lastkey, k, sizeof k);
        w->haslast = 1;
        int64_t iv[8] = {k[0], k[1], k[2], k[3]};
        double dv[8];
        uint8_t kind[8] = {BB_INT, BB_INT, BB_INT, BB_INT};
        for (int s = 0; s < 4; s++) {
            double v;
            kind[4 + s] = ((r->present >> s) & 1) && normalise(r->v[s], &v) ? BB_REAL : BB_NULL;
            if (kind[4 + s] == BB_REAL) dv[4 + s] = v;
        }
        unsigned char rec[128];
        size_t len = bb_record(rec, 8, iv, dv, kind);
        if (bb_add(w->bb, rec, len) != 0) return pt_errorf(w->err, "%s: could not write the rows' pages (disk full?)", w->t.final);
        w->rows_in++;
    }
    return 0;
}

/* A file whose rows all have their ids: in they go, in key order. */
static int insert_file(struct dump_writer *w, const struct qfile *qf) {
    struct tdb *t = &w->t;
    if (w->cur.n && w->cur.rank != qf->rank && summarize_rank(w) != 0) return -1;
    w->cur.rank = qf->rank;
    uint32_t *order = qf->order ? qf->order : malloc((qf->n ? qf->n : 1) * sizeof *order);
    if (!order || util_grow((void **)&w->cur.v, &w->cur.cap, w->cur.n + qf->n, sizeof *w->cur.v) != 0 ||
        (!qf->order && sort_file(w, qf, order) != 0)) {
        if (order != qf->order) free(order);
        return pt_errorf(w->err, "out of memory");
    }
    if (!qf->order && qf->gen == w->last.gen && w->last.n == qf->n) {   /* for the next file shaped like it */
        memcpy(w->last.order, order, qf->n * sizeof *order);
        w->last.order_ok = 1;
    }
    struct prow *rows = w->cur.v + w->cur.n;
    for (size_t i = 0; i < qf->n; i++) {
        const struct qrow *r = &qf->v[order[i]];
        rows[i] = (struct prow){.dbid = w->ids.dbid[r->key], .step = r->step, .metric = r->metric,
                                .present = r->present};
        memcpy(rows[i].v, r->v, sizeof r->v);
    }
    if (order != qf->order) free(order);
    if (w->summ) w->cur.n += qf->n;   /* kept for the rank's summary */
    if (w->bb) return bulk_rows(w, qf->rank, rows, qf->n);
    /* many rows per statement: one statement keeps its cursor on the
     * last page, where an append needs no descent from the root */
    size_t j = 0;
    for (; w->ins_rows && qf->n - j >= ROWS_PER_INSERT; j += ROWS_PER_INSERT) {
        for (int q = 0; q < ROWS_PER_INSERT; q++) bind_prow(w->ins_rows, q * 8, qf->rank, &rows[j + (size_t)q], 0);
        int src = sqlite3_step(w->ins_rows);
        sqlite3_reset(w->ins_rows);
        if (src != SQLITE_DONE) return tdb_fail(t, "insert trend rows");
        w->rows_in += (size_t)sqlite3_changes(t->db);   /* an ignored duplicate is no row */
    }
    for (; j < qf->n; j++) {
        bind_prow(w->ins_row, 0, qf->rank, &rows[j], 0);
        int src = sqlite3_step(w->ins_row);
        sqlite3_reset(w->ins_row);
        if (src != SQLITE_DONE) return tdb_fail(t, "insert trend row");
        w->rows_in += (size_t)sqlite3_changes(t->db);
    }
    return 0;
}

/* Inserts the waiting files, in order, up to the first with a row whose
 * target has no id yet. */
static int dump_drain(struct dump_writer *w) {
    size_t done = 0;
    for (; done < w->nq; done++) {
        const struct qfile *qf = &w->q[done];
        size_t i = 0;
        while (i < qf->n && w->ids.dbid[qf->v[i].key]) i++;
        if (i < qf->n) break;
        if (insert_file(w, qf) != 0) return -1;
        free(w->q[done].v);
        free(w->q[done].order);
    }
    if (done) memmove(w->q, w->q + done, (w->nq - done) * sizeof *w->q);
    w->nq -= done;
    return 0;
}

static struct shape shape_of(const struct dump_tensor_row *r) {
    struct shape x;
    x.name = r->name;
    x.len = r->len;
    x.entry = r->entry;
    x.call = r->call;
    x.micro = r->micro;
    x.metric = r->metric;
    return x;
}

/* Is f shaped like the file before (same names, records, metrics, micro
 * steps, row by row)? */
static int last_like(const struct lastfile *l, const struct dump_file *f) {
    if (!l->gen || l->n != f->nrows || l->alen != f->alen || memcmp(l->arena, f->arena, f->alen)) return 0;
    for (size_t i = 0; i < f->nrows; i++) {
        const struct dump_tensor_row *r = &f->rows[i];
        const struct shape *x = &l->shape[i];
        if (r->name != x->name || r->len != x->len || r->entry != x->entry || r->call != x->call ||
            r->micro != x->micro || r->metric != x->metric)
            return 0;
    }
    return 1;
}

/* f (its rows' targets: key) becomes the file before. */
static int last_keep(struct lastfile *l, const struct dump_file *f, const uint32_t *key) {
    size_t n = f->nrows;
    if (util_grow((void **)&l->arena, &l->acap, f->alen ? f->alen : 1, 1) != 0) return -1;
    if (n > l->cap) {
        struct shape *sh = realloc(l->shape, n * sizeof *sh);
        if (sh) l->shape = sh;
        uint32_t *k = realloc(l->key, n * sizeof *k);
        if (k) l->key = k;
        uint32_t *o = realloc(l->order, n * sizeof *o);
        if (o) l->order = o;
        if (!sh || !k || !o) return -1;
        l->cap = n;
    }
    memcpy(l->arena, f->arena, f->alen);
    l->alen = f->alen;
    for (size_t i = 0; i < n; i++) l->shape[i] = shape_of(&f->rows[i]);
    memcpy(l->key, key, n * sizeof *key);
    l->n = n;
    l->order_ok = 0;
    l->gen++;
    return 0;
}

/* A file handed over (dump_read, rank_major: a skipped one too, without
 * rows): its targets interned, its rows queued, then as much replay and
 * insert as the files so far allow. */
static int dump_writer_file(void *vctx, const struct dump_file *f, int32_t step_base) {
    struct dump_writer *w = vctx;
    if (!w->summ && !w->summ_off) {   /* the first file: is there a summary to make? */
        int32_t mr = -1;
        for (size_t i = 0; i < w->ds->nrankdirs; i++)
            if (w->ds->rankdirs[i].rank > mr) mr = w->ds->rankdirs[i].rank;
        if (mr < SUMMARY_MIN_RANKS - 1) w->summ_off = 1;
        else if (!(w->summ = summ_job_new(mr))) return pt_errorf(w->err, "out of memory");
    }
    if (util_grow0((void **)&w->rf, &w->caprf, f->seq + 1, sizeof *w->rf) != 0) return pt_errorf(w->err, "out of memory");
    /* in the list's order a skipped file is not handed over: those before
     * this one will never come */
    for (size_t i = w->replayed; !w->rank_major && i < f->seq; i++) w->rf[i].ready = 1;
    struct rfile *s = &w->rf[f->seq];
    s->index = f->index;
    if (f->ok && w->shard) {
        if (util_grow0((void **)&w->sfiles, &w->capsfiles, w->nsfiles + 1, sizeof *w->sfiles) != 0)
            return pt_errorf(w->err, "out of memory");
        w->sfiles[w->nsfiles++] = (struct shard_file){.index = (int64_t)f->index, .group = f->group, .rank = f->rank,
                                                      .micro = f->contributes ? f->micro_count : 0, .base = step_base};
    }
    size_t n = f->ok ? f->nrows : 0;
    struct qfile qf = {.rank = f->rank, .n = n};
    if (n) {
        s->key = malloc(n * sizeof *s->key);
        s->entry = malloc(n * sizeof *s->entry);
        s->metric = malloc(n);
        qf.v = malloc(n * sizeof *qf.v);
        if (!s->key || !s->entry || !s->metric || !qf.v ||
            util_grow0((void **)&w->q, &w->capq, w->nq + 1, sizeof *w->q) != 0) {
            free(qf.v);
            return pt_errorf(w->err, "out of memory");
        }
    }
    int like = n && last_like(&w->last, f);
    if (like) {
        memcpy(s->key, w->last.key, n * sizeof *s->key);
        if (w->last.order_ok && !(qf.order = malloc(n * sizeof *qf.order))) {
            free(qf.v);
            return pt_errorf(w->err, "out of memory");
        }
        if (qf.order) memcpy(qf.order, w->last.order, n * sizeof *qf.order);
    }
    for (size_t i = 0; i < n; i++) {
        const struct dump_tensor_row *r = &f->rows[i];
        uint32_t k = like ? s->key[i] : names_intern(w->ids.keys, f->arena + r->name, r->len, 0, r->call);
        if (k == NAMES_NONE || util_grow0((void **)&w->ids.dbid, &w->ids.cap, (size_t)k + 1, sizeof *w->ids.dbid) != 0) {
            free(qf.v);
            free(qf.order);
            return pt_errorf(w->err, "out of memory");
        }
        s->key[i] = k;
        s->entry[i] = r->entry;
        s->metric[i] = r->metric;
        qf.v[i] = (struct qrow){.key = k, .i = (uint32_t)i, .step = step_base + r->micro, .metric = r->metric,
                                .present = r->present};
        memcpy(qf.v[i].v, r->v, sizeof r->v);
    }
    if (n && !like && last_keep(&w->last, f, s->key) != 0) {
        free(qf.v);
        return pt_errorf(w->err, "out of memory");
    }
    qf.gen = w->last.gen;
    s->n = n;
    s->ready = 1;
    if (n) {
        w->q[w->nq++] = qf;
        if (f->rank > w->max_rank_rows) w->max_rank_rows = f->rank;
    }
    if (dump_replay(w) != 0) return -1;
    return dump_drain(w);
}

/* The tables a shard carries beside msProbe's, for the merge. */
static int write_shard_tables(struct dump_writer *w, int k, int n, int micro, const struct dump_summary *sum) {
    struct tdb *t = &w->t;
    char sql[512];
    if (tdb_exec(t, "CREATE TABLE probetop_shard (kind TEXT NOT NULL, k INTEGER NOT NULL, n INTEGER NOT NULL, "
                    "micro_step INTEGER NOT NULL, any_rank INTEGER NOT NULL, max_rank INTEGER, min_step INTEGER, "
                    "max_step INTEGER, rank_folders INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_files (file INTEGER PRIMARY KEY, step_group INTEGER NOT NULL, "
                    "rank INTEGER NOT NULL, micro_steps INTEGER NOT NULL, base_step INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_attempts (seq INTEGER PRIMARY KEY, file INTEGER NOT NULL, "
                    "target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL)") != 0)
        return -1;
    snprintf(sql, sizeof sql, "INSERT INTO probetop_shard VALUES ('dump', %d, %d, %d, %d, %d, %d, %d, %lld)", k, n,
             micro, sum->any_rank, (int)sum->max_rank, (int)sum->min_step, (int)sum->max_step,
             (long long)sum->folders_all);
    if (tdb_exec(t, sql) != 0) return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO probetop_shard_files VALUES (?,?,?,?,?)", -1, &st, NULL))
        return tdb_fail(t, "prepare");
    for (size_t i = 0; i < w->nsfiles; i++) {
        const struct shard_file *f = &w->sfiles[i];
        sqlite3_bind_int64(st, 1, f->index);
        sqlite3_bind_int64(st, 2, f->group);
        sqlite3_bind_int(st, 3, f->rank);
        sqlite3_bind_int(st, 4, f->micro);
        sqlite3_bind_int(st, 5, f->base);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) { sqlite3_finalize(st); return tdb_fail(t, "insert shard file"); }
    }
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(t->db, "INSERT INTO probetop_shard_attempts VALUES (?,?,?,?)", -1, &st, NULL))
        return tdb_fail(t, "prepare");
    for (size_t i = 0; i < w->nsatt; i++) {
        const struct shard_attempt *a = &w->satt[i];
        sqlite3_bind_int64(st, 1, a->seq);
        sqlite3_bind_int64(st, 2, a->index);
        sqlite3_bind_int64(st, 3, a->target);
        sqlite3_bind_int(st, 4, a->metric);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) { sqlite3_finalize(st); return tdb_fail(t, "insert shard attempt"); }
    }
    sqlite3_finalize(st);
    return 0;
}

int trenddb_write_dump(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                       struct tdb_result *res, struct pt_error *err) {
    return trenddb_write_dump_shard(data, outdir, lo, lo->shard_k, lo->shard_n, ds, res, err);
}

/* The rank summary of what went in: made on the way (ranks in order, the
 * group sizes foreseen right), else from the table. */
static int dump_rank_summary(struct dump_writer *w) {
    int32_t max_rank = w->max_rank_rows;
    if (max_rank < SUMMARY_MIN_RANKS - 1) return 0;
    if (w->summ && summ_job_fits(w->summ, max_rank)) {
        if (summarize_rank(w) != 0) return -1;
        return summ_job_write(&w->t, w->summ);
    }
    return write_rank_summary(&w->t);
}

static void dump_writer_free(struct dump_writer *w) {
    sqlite3_finalize(w->ins_target);
    sqlite3_finalize(w->ins_row);
    sqlite3_finalize(w->ins_rows);
    if (w->t.db || w->t.tmp) tdb_abort(&w->t);
    names_free(w->ids.keys);
    free(w->ids.dbid);
    for (int m = 0; m < DM_N; m++) {
        mk_free(&w->mk[m]);
        free(w->stamp[m]);
    }
    free(w->fresh);
    for (size_t i = 0; i < w->caprf; i++) {
        free(w->rf[i].key);
        free(w->rf[i].entry);
        free(w->rf[i].metric);
    }
    free(w->rf);
    for (size_t i = 0; i < w->nq; i++) {
        free(w->q[i].v);
        free(w->q[i].order);
    }
    free(w->q);
    free(w->cur.v);
    free(w->sortkey);
    free(w->last.arena);
    free(w->last.shape);
    free(w->last.key);
    free(w->last.order);
    free(w->sfiles);
    free(w->satt);
    summ_job_free(w->summ);
    bb_free(w->bb);
    memset(w, 0, sizeof *w);
}

/* The statements the writer keeps. */
static int dump_prepare(struct dump_writer *w) {
    if (sqlite3_prepare_v2(w->t.db, "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step) VALUES (?,?,?,?)",
                           -1, &w->ins_target, NULL) ||
        sqlite3_prepare_v2(w->t.db, "INSERT OR IGNORE INTO trend_data VALUES (?,?,?,?,?,?,?,?)", -1, &w->ins_row, NULL))
        return tdb_fail(&w->t, "prepare");
    char *sql = malloc(64 + ROWS_PER_INSERT * 18);
    if (!sql) return pt_errorf(w->err, "out of memory");
    size_t o = (size_t)sprintf(sql, "INSERT OR IGNORE INTO trend_data VALUES ");
    for (int q = 0; q < ROWS_PER_INSERT; q++) o += (size_t)sprintf(sql + o, "%s(?,?,?,?,?,?,?,?)", q ? "," : "");
    /* an old SQLite with a low variable limit: one row at a time */
    if (sqlite3_prepare_v2(w->t.db, sql, -1, &w->ins_rows, NULL) != SQLITE_OK) w->ins_rows = NULL;
    free(sql);
    return 0;
}

/* Everything after the last file: the waiting rows, the ids' high-water
 * mark, global_stats, tags, the rank summary, a shard's tables; then the
 * result and the commit.  0, or -1 with err. */
static int dump_finish(struct dump_writer *w, const struct dump_summary *sum, const struct load_opts *lo, int shard_k,
                       int shard_n, const struct dataset *rds, struct tdb_result *res) {
    if (dump_replay(w) != 0 || dump_drain(w) != 0) return -1;
    if (w->nq) return pt_errorf(w->err, "internal: rows of %zu files never had their target ids", w->nq);
    if (w->bb && w->max_rank_rows >= SUMMARY_MIN_RANKS - 1 && !(w->summ && summ_job_fits(w->summ, w->max_rank_rows)))
        return -2;   /* the rank summary would have to scan a table not yet in the file */
    if (finish_sequence(&w->t, &w->ids) != 0) return -1;
    if (dump_global_stats(&w->t, sum->max_rank, sum->min_step, sum->max_step) != 0) return -1;
    for (int i = 0; i < w->nmetric_order; i++) {
        int m = w->metric_order[i];
        if (write_tags(&w->t, &w->ids, w->mk[m].order, w->mk[m].n, m + 1, LABELS_DUMP) != 0) return -1;
    }
    if (dump_rank_summary(w) != 0) return -1;
    if (w->shard && write_shard_tables(w, shard_k, shard_n, lo->micro_step, sum) != 0) return -1;
    sqlite3_finalize(w->ins_target);
    sqlite3_finalize(w->ins_row);
    sqlite3_finalize(w->ins_rows);
    w->ins_target = w->ins_row = w->ins_rows = NULL;
    res->targets = names_count(w->ids.keys);
    res->max_step = sum->max_step;
    res->max_rank = sum->max_rank;
    if (w->shard) {
        res->shard_k = shard_k;
        res->shard_n = shard_n;
        res->empty = !sum->any_rank;
        res->min_rank = INT32_MAX;
        for (size_t i = 0; i < rds->nrankdirs; i++)
            if (rds->rankdirs[i].rank < res->min_rank) res->min_rank = rds->rankdirs[i].rank;
        if (res->min_rank == INT32_MAX) res->min_rank = 0;
    }
    res->rows = w->rows_in;
    snprintf(res->path, sizeof res->path, "%s", w->t.final);
    if (w->bb && bulk_attach(&w->t, w->bb) != 0) return -1;
    return tdb_commit(&w->t);
}

/* trend_data built beside SQLite (btree_bulk.h) when the file is the plain
 * kind it knows how to grow (*bb); else (*bb NULL, 0) the rows go in by
 * INSERTs. */
static int bulk_open(struct tdb *t, const char *outdir, const char *dbname, struct dataset *ds, struct bb **bb) {
    sqlite3_stmt *st = NULL;
    int ps = 0, vac = -1;
    *bb = NULL;
    if (sqlite3_prepare_v2(t->db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        ps = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (sqlite3_prepare_v2(t->db, "PRAGMA auto_vacuum", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        vac = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (vac != 0 || ps < 512) return 0;
    char name[160], *scratch = malloc(strlen(t->final) + 40);
    struct pt_error e;
    if (!scratch) return pt_errorf(t->err, "out of memory");
    snprintf(name, sizeof name, "%s.rows", dbname);
    remove_stale(outdir, name, ds);
    sprintf(scratch, "%s.rows.tmp.%ld", t->final, (long)getpid());
    int rc = bb_open(bb, scratch, ps, &e);
    free(scratch);
    if (rc != 0) *bb = NULL;   /* no scratch file to be had: INSERTs */
    return 0;
}

static int dump_bulk_open(struct dump_writer *w, const char *outdir, const char *dbname, struct dataset *ds) {
    return bulk_open(&w->t, outdir, dbname, ds, &w->bb);
}

/* bb (the rows of trend_data) goes into t's file at the commit, under the
 * table's root page. */
static int bulk_attach(struct tdb *t, struct bb *bb) {
    sqlite3_stmt *st = NULL;
    t->bulk = bb;
    t->bulk_root = 0;
    if (sqlite3_prepare_v2(t->db, "SELECT rootpage FROM sqlite_master WHERE name = 'trend_data'", -1, &st, NULL) ==
            SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        t->bulk_root = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return t->bulk_root ? 0 : tdb_fail(t, "find trend_data");
}

/* One try: rank_major (the fast way) may find its foreseen step numbers
 * wrong at the end (*again 1: nothing written, read again in the list's
 * order); bulk (trend_data built beside SQLite) may meet rows out of key
 * order (*again 2: read again with INSERTs).  The notes of the read go to
 * rds, the rest to ds. */
static int write_dump_try(const char *data, const char *outdir, const struct load_opts *lo, int shard_k, int shard_n,
                          const struct mapping *map, int rank_major, int bulk, struct dataset *ds,
                          struct dataset *rds, struct tdb_result *res, int *again, struct pt_error *err) {
    struct dump_writer w = {.err = err, .shard = shard_n > 0, .ds = rds, .batch = 1, .max_rank_rows = -1,
                            .summ_off = !rank_major, .rank_major = rank_major};
    char dbname[96];
    struct dump_summary sum;
    int rc = -1;
    *again = 0;
    memset(res, 0, sizeof *res);
    if (!(w.ids.keys = names_new())) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    if (w.shard) snprintf(dbname, sizeof dbname, "dump_data.shard-%d-of-%d.trend.db", shard_k, shard_n);
    else snprintf(dbname, sizeof dbname, "dump_data.trend.db");
    if (tdb_open(&w.t, outdir, dbname, 16384, lo, ds, err) != 0 || create_fixed(&w.t) != 0 ||
        create_trend(&w.t, dump_stat_names, 4) != 0 || insert_metrics(&w.t, dump_metric_names, DM_N) != 0 ||
        dump_prepare(&w) != 0 || (bulk && dump_bulk_open(&w, outdir, dbname, ds) != 0))
        goto out;
    struct dump_opts dopt = {.micro_step = lo->micro_step, .mapping = map, .want_rows = 1, .layout = lo->layout,
                             .shard_k = shard_k, .shard_n = shard_n, .rank_major = rank_major};
    if (dump_read(data, lo, &dopt, rds, dump_writer_file, &w, &sum, err) != 0) {
        if (w.bb_refused) *again = 2;
        goto out;
    }
    if (sum.foresight_failed) {
        *again = 1;
        goto out;
    }
    /* a shard of no rank (more tasks than ranks) is written all the same:
     * the set of shards is complete only with it */
    if (!sum.any_rank && !w.shard) { pt_errorf(err, "%s: no usable rank folder: no database written", data); goto out; }
    int frc = dump_finish(&w, &sum, lo, shard_k, shard_n, rds, res);
    if (frc == -2) *again = 2;
    if (frc != 0) goto out;
    rc = 0;
out:
    dump_writer_free(&w);
    return rc;
}

/* What a read left in from (notes, skipped files, rank folders, overflow
 * records, header) moved into ds. */
static void ds_take_read(struct dataset *ds, struct dataset *from) {
    for (size_t i = 0; i < from->nwarnings; i++) dataset_warn(ds, "%s", from->warnings[i]);
    for (size_t i = 0; i < from->nskipped; i++) dataset_skip(ds, from->skipped[i]);
    if (!ds->rankdirs) {
        ds->rankdirs = from->rankdirs;
        ds->nrankdirs = from->nrankdirs;
        from->rankdirs = NULL;
        from->nrankdirs = 0;
    }
    if (!ds->ovf.n) {
        struct ovf_list t = ds->ovf;
        ds->ovf = from->ovf;
        from->ovf = t;
    }
    if (!ds->framework) { ds->framework = from->framework; from->framework = NULL; }
    if (!ds->level) { ds->level = from->level; from->level = NULL; }
    if (!ds->task) { ds->task = from->task; from->task = NULL; }
    ds->files_read += from->files_read;
    ds->bytes_read += from->bytes_read;
}

int trenddb_write_dump_shard(const char *data, const char *outdir, const struct load_opts *lo, int shard_k,
                             int shard_n, struct dataset *ds, struct tdb_result *res, struct pt_error *err) {
    struct mapping map = {0};
    int again = 0, rc = -1;
    if (lo->mapping && mapping_read(lo->mapping, &map, err) != 0) return -1;
    /* rank by rank with trend_data built in key order first; a try that
     * proved wrong is read again the slower way, its notes never said */
    for (int rank_major = 1, bulk = 1;;) {
        struct dataset *rds = calloc(1, sizeof *rds);
        if (!rds) {
            rc = pt_errorf(err, "out of memory");
            break;
        }
        rc = write_dump_try(data, outdir, lo, shard_k, shard_n, &map, rank_major, bulk, ds, rds, res, &again, err);
        if (!again) ds_take_read(ds, rds);
        dataset_free(rds);
        if (!again) break;
        bulk = 0;
        if (again == 1) rank_major = 0;
    }
    mapping_free(&map);
    return rc;
}

/* ---- monitor (probetop-formats(5), TREND.DB) ---- */

/* A monitor database's global_stats: the steps, the largest rank, and per
 * metric that had files the statistics its files had (probetop-formats(5), TREND.DB order). */
static int monitor_global_stats(struct tdb *t, int32_t min_step, int32_t max_step, int32_t max_rank, uint32_t has_files,
                                const uint32_t *mstat) {
    char sql[8192], vals[4096];
    size_t o = (size_t)snprintf(sql, sizeof sql,
                                "CREATE TABLE IF NOT EXISTS global_stats (\n"
                                "            min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0");
    size_t vo = (size_t)snprintf(vals, sizeof vals, "INSERT INTO global_stats VALUES (%d, %d, %d", (int)min_step,
                                 (int)max_step, (int)max_rank);
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        if (!(has_files & (1u << m))) continue;
        o += (size_t)snprintf(sql + o, sizeof sql - o, ", %s TEXT DEFAULT NULL", monitor_metric_names[m]);
        vo += (size_t)snprintf(vals + vo, sizeof vals - vo, ", '");
        int first = 1;
        for (int s = 0; s < MONITOR_NSTATS; s++)
            if (mstat[m] & (1u << s)) {
                vo += (size_t)snprintf(vals + vo, sizeof vals - vo, "%s%s", first ? "" : ",", monitor_stat_names[s]);
                first = 0;
            }
        vo += (size_t)snprintf(vals + vo, sizeof vals - vo, "'");
    }
    snprintf(sql + o, sizeof sql - o, "\n        )");
    snprintf(vals + vo, sizeof vals - vo, ")");
    return tdb_exec(t, sql) != 0 || tdb_exec(t, vals) != 0 ? -1 : 0;
}

/* A monitor shard's own tables (see probetop(1), FILES): the dump's, with a
 * file named by (rank << 20 | place among its rank's files), plus per metric
 * its id here and what its files had, and the micro steps per step. */
struct mon_attempt {
    int64_t seq, file, target;
    int metric;
};

static int write_monitor_shard_tables(struct tdb *t, int k, int n, int micro, const struct monitor_data *md,
                                      const struct monitor_steps *st, const int64_t *fkey, const struct mon_attempt *att,
                                      size_t natt, const int *metric_id) {
    char sql[512];
    int any = md->nfiles > 0;
    if (tdb_exec(t, "CREATE TABLE probetop_shard (kind TEXT NOT NULL, k INTEGER NOT NULL, n INTEGER NOT NULL, "
                    "micro_step INTEGER NOT NULL, any_rank INTEGER NOT NULL, max_rank INTEGER, min_step INTEGER, "
                    "max_step INTEGER, rank_folders INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_files (file INTEGER PRIMARY KEY, step_group INTEGER NOT NULL, "
                    "rank INTEGER NOT NULL, micro_steps INTEGER NOT NULL, base_step INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_attempts (seq INTEGER PRIMARY KEY, file INTEGER NOT NULL, "
                    "target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_metrics (metric TEXT PRIMARY KEY, metric_id INTEGER NOT NULL, "
                    "has_files INTEGER NOT NULL, has_rows INTEGER NOT NULL, statistics INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_steps (step INTEGER PRIMARY KEY, micro_steps INTEGER NOT NULL, "
                    "base_step INTEGER NOT NULL)") != 0)
        return -1;
    snprintf(sql, sizeof sql, "INSERT INTO probetop_shard VALUES ('monitor', %d, %d, %d, %d, %d, %d, %d, %lld)", k, n,
             micro, any, (int)md->max_rank, st ? (int)st->min_step : 0, st ? (int)st->max_step : 0,
             (long long)md->folders_all);
    if (tdb_exec(t, sql) != 0) return -1;
    for (size_t i = 0; i < md->nfiles; i++) {
        snprintf(sql, sizeof sql, "INSERT INTO probetop_shard_files VALUES (%lld, 0, %d, 0, 0)", (long long)fkey[i],
                 (int)md->files[i].rank);
        if (tdb_exec(t, sql) != 0) return -1;
    }
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        uint32_t mask = 0;
        for (size_t i = 0; i < md->nfiles; i++)
            if (md->files[i].metric == m) mask |= md->files[i].statmask;
        snprintf(sql, sizeof sql, "INSERT INTO probetop_shard_metrics VALUES ('%s', %d, %d, %d, %u)", monitor_metric_names[m],
                 metric_id ? metric_id[m] : 0, !!(md->metric_has_files & (1u << m)), !!(md->metric_has_rows & (1u << m)),
                 mask);
        if (tdb_exec(t, sql) != 0) return -1;
    }
    for (size_t j = 0; st && st->micro && j < st->n; j++) {
        snprintf(sql, sizeof sql, "INSERT INTO probetop_shard_steps VALUES (%d, %d, %d)", (int)st->orig[j],
                 (int)st->count[j], (int)st->offset[j]);
        if (tdb_exec(t, sql) != 0) return -1;
    }
    sqlite3_stmt *ins;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO probetop_shard_attempts VALUES (?,?,?,?)", -1, &ins, NULL))
        return tdb_fail(t, "prepare");
    for (size_t i = 0; i < natt; i++) {
        sqlite3_bind_int64(ins, 1, att[i].seq);
        sqlite3_bind_int64(ins, 2, att[i].file);
        sqlite3_bind_int64(ins, 3, att[i].target);
        sqlite3_bind_int(ins, 4, att[i].metric);
        int rc = sqlite3_step(ins);
        sqlite3_reset(ins);
        if (rc != SQLITE_DONE) { sqlite3_finalize(ins); return tdb_fail(t, "insert shard attempt"); }
    }
    sqlite3_finalize(ins);
    return 0;
}

int trenddb_write_monitor(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                          struct tdb_result *res, struct pt_error *err) {
    struct mapping map = {0};
    struct monitor_data md;
    memset(res, 0, sizeof *res);
    if (lo->mapping && mapping_read(lo->mapping, &map, err) != 0) return -1;
    int r = monitor_read_shard(data, &map, lo->layout, lo->shard_k, lo->shard_n, ds, &md, err);
    mapping_free(&map);
    if (r != 0) return -1;
    return trenddb_write_monitor_data(data, &md, outdir, lo, ds, res, err);
}

int trenddb_write_monitor_shard(const char *data, const char *outdir, const struct load_opts *lo, int shard_k,
                                int shard_n, struct dataset *ds, struct tdb_result *res, struct pt_error *err) {
    struct load_opts o = *lo;
    o.shard_k = shard_k;
    o.shard_n = shard_n;
    return trenddb_write_monitor(data, outdir, &o, ds, res, err);
}

/* A shard with nothing of msProbe's in it (no CSV file or no supported
 * statistic): only the fixed tables and the shard's own, so the set is
 * complete.  Returns tdb_commit's result, or -1 with err set; md stays the
 * caller's. */
static int write_empty_monitor_shard(const struct monitor_data *md, const char *outdir, const char *dbname,
                                     const struct load_opts *lo, struct dataset *ds, struct tdb_result *res,
                                     struct pt_error *err) {
    struct tdb t = {0};
    if (tdb_open(&t, outdir, dbname, 2048, lo, ds, err) != 0 || create_fixed(&t) != 0 ||
        write_monitor_shard_tables(&t, lo->shard_k, lo->shard_n, lo->micro_step, md, NULL, NULL, NULL, 0, NULL) != 0) {
        if (t.db || t.tmp) tdb_abort(&t);
        return -1;
    }
    snprintf(res->path, sizeof res->path, "%s", t.final);
    res->shard_k = lo->shard_k;
    res->shard_n = lo->shard_n;
    res->empty = 1;
    return tdb_commit(&t);
}

/* Per name of md's pool: the key last found for it and the (vpp, call) it
 * was found with.  Rows of one name mostly share those: one lookup per
 * name, not per row. */
struct pmemo {
    uint32_t *key;
    int32_t *vpp, *call;
};

static int pmemo_init(struct pmemo *m, const struct monitor_data *md) {
    size_t n = names_count(md->pool);
    m->key = malloc((n ? n : 1) * sizeof *m->key);
    m->vpp = malloc((n ? n : 1) * sizeof *m->vpp);
    m->call = malloc((n ? n : 1) * sizeof *m->call);
    if (!m->key || !m->vpp || !m->call) return -1;
    for (size_t i = 0; i < n; i++) m->key[i] = NAMES_NONE;
    return 0;
}

static void pmemo_free(struct pmemo *m) {
    free(m->key);
    free(m->vpp);
    free(m->call);
    memset(m, 0, sizeof *m);
}

/* Is row's (name, vpp, call) the one memorised? */
static int pmemo_hit(const struct pmemo *m, const struct monitor_row *r, int32_t call) {
    return m->key[r->name] != NAMES_NONE && m->vpp[r->name] == r->vpp && m->call[r->name] == call;
}

static void pmemo_set(struct pmemo *m, const struct monitor_row *r, int32_t call, uint32_t key) {
    m->key[r->name] = key;
    m->vpp[r->name] = r->vpp;
    m->call[r->name] = call;
}

/* Inserts md's targets into t, metric by metric in the fixed order, each
 * known per metric in mk; for a shard every attempt is also kept in *att
 * (files named by fkey).  0, or -1 with t's error set. */
static int monitor_targets(struct tdb *t, const struct monitor_data *md, int micro_step, int shard, const int64_t *fkey,
                           struct idmap *ids, struct mkeys *mk, struct mon_attempt **att, size_t *natt,
                           size_t *capatt) {
    sqlite3_stmt *ins_target = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step) VALUES (?,?,?,?)",
                           -1, &ins_target, NULL))
        return tdb_fail(t, "prepare");
    struct pmemo memo = {0};   /* seen for this metric already */
    if (pmemo_init(&memo, md) != 0) { pt_errorf(t->err, "out of memory"); goto out; }   /* out frees it */
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        if (!(md->metric_has_rows & (1u << m))) continue;
        struct names *seen = names_new();
        if (!seen) { pt_errorf(t->err, "out of memory"); goto out; }
        memset(memo.key, 0xff, names_count(md->pool) * sizeof *memo.key);
        for (size_t i = 0; i < md->nfiles; i++) {
            const struct monitor_file *f = &md->files[i];
            if (f->metric != m) continue;
            for (size_t k = 0; k < f->nrows; k++) {
                int32_t call = micro_step ? 0 : f->rows[k].micro;
                if (pmemo_hit(&memo, &f->rows[k], call)) continue;
                const char *nm = monitor_name(md, &f->rows[k]);
                size_t len = strlen(nm);
                uint32_t before = names_count(seen);
                uint32_t sid = names_intern(seen, nm, len, f->rows[k].vpp, call);
                pmemo_set(&memo, &f->rows[k], call, sid);
                if (sid < before) continue;
                int ins;
                int64_t key = attempt(ids, nm, len, f->rows[k].vpp, call, ins_target, &ins);
                if (key < 0 || mk_know(&mk[m], (uint32_t)key) != 0) {
                    names_free(seen);
                    tdb_fail(t, "insert target");
                    goto out;
                }
                if (shard) {
                    if (util_grow0((void **)att, capatt, *natt + 1, sizeof **att) != 0) {
                        names_free(seen);
                        pt_errorf(t->err, "out of memory");
                        goto out;
                    }
                    (*att)[(*natt)++] = (struct mon_attempt){.seq = ids->seq, .file = fkey[i],
                                                             .target = ids->dbid[key], .metric = m + 1};
                }
            }
        }
        names_free(seen);
    }
    rc = 0;
out:
    sqlite3_finalize(ins_target);
    pmemo_free(&memo);
    return rc;
}

static int monitor_insert_rows(struct tdb *t, const struct monitor_data *md, const struct monitor_steps *st,
                               const struct idmap *ids, const int *metric_id, const int *colidx, const char *const *cols,
                               int nc, int micro_step, struct bb *bb, size_t *rows);

int trenddb_write_monitor_data(const char *data, struct monitor_data *mdp, const char *outdir,
                               const struct load_opts *lo, struct dataset *ds, struct tdb_result *res,
                               struct pt_error *err) {
    struct monitor_data md = *mdp;   /* taken over: freed here */
    int shard_k = lo->shard_k, shard_n = lo->shard_n, shard = shard_n > 0;
    int64_t *fkey = NULL;
    struct mon_attempt *att = NULL;
    size_t natt = 0, capatt = 0;
    char dbname[96];
    struct monitor_steps st = {0};
    struct tdb t = {0};
    struct idmap ids = {0};
    struct mkeys mk[MONITOR_NMETRICS];
    struct bb *bb = NULL;    /* trend_data built in key order beside SQLite */
    int rc = -1;
    memset(mk, 0, sizeof mk);
    memset(res, 0, sizeof *res);
    memset(mdp, 0, sizeof *mdp);
    monitor_keep_trenddb(&md, data, ds);   /* only what msProbe's data2db imports */
    if (shard) snprintf(dbname, sizeof dbname, "monitor_data.shard-%d-of-%d.trend.db", shard_k, shard_n);
    else snprintf(dbname, sizeof dbname, "monitor_data.trend.db");
    if (shard && (!md.metric_has_files || !md.statmask)) {
        /* nothing of msProbe's to write here, but the set needs this shard:
         * the merge says what the whole run lacks */
        rc = write_empty_monitor_shard(&md, outdir, dbname, lo, ds, res, err);
        monitor_free(&md);
        return rc;
    }
    if (!md.metric_has_files) {
        monitor_free(&md);
        return pt_errorf(err, "%s: no <metric>_<a>-<b>.csv file in the rank folders: no database written%s%s%s", data,
                         ds->nwarnings ? " (first note: " : "", ds->nwarnings ? ds->warnings[0] : "",
                         ds->nwarnings ? ")" : "");
    }
    if (!md.statmask) {
        monitor_free(&md);
        return pt_errorf(err, "%s: no CSV file has a supported statistic column (norm, min, max, ...)", data);
    }
    if (monitor_steps(&md, lo->micro_step, &st, err) != 0) goto out;
    if (!(ids.keys = names_new())) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    if (tdb_open(&t, outdir, dbname, 262144, lo, ds, err) != 0 || create_fixed(&t) != 0) goto out;
    /* a file's place in the whole run: its rank, then its place among that rank's files */
    if (!(fkey = calloc(md.nfiles ? md.nfiles : 1, sizeof *fkey))) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0, first = 0; i < md.nfiles; i++) {
        if (i && md.files[i].rank != md.files[i - 1].rank) first = i;
        fkey[i] = ((int64_t)md.files[i].rank << 20) | (int64_t)(i - first);
    }
    if (monitor_targets(&t, &md, lo->micro_step, shard, fkey, &ids, mk, &att, &natt, &capatt) != 0) goto out;
    if (finish_sequence(&t, &ids) != 0) goto out;
    const char *present[MONITOR_NMETRICS];
    int metric_id[MONITOR_NMETRICS], np = 0;
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        metric_id[m] = 0;
        if (md.metric_has_rows & (1u << m)) { present[np++] = monitor_metric_names[m]; metric_id[m] = np; }
    }
    if (insert_metrics(&t, present, np) != 0) goto out;
    uint32_t mstat[MONITOR_NMETRICS] = {0};
    for (size_t i = 0; i < md.nfiles; i++) mstat[md.files[i].metric] |= md.files[i].statmask;
    if (monitor_global_stats(&t, st.min_step, st.max_step, md.max_rank, md.metric_has_files, mstat) != 0) goto out;
    /* trend_data with the union of the supported columns */
    const char *cols[MONITOR_NSTATS];
    int colidx[MONITOR_NSTATS], nc = 0;
    for (int s = 0; s < MONITOR_NSTATS; s++)
        if (md.statmask & (1u << s)) { colidx[nc] = s; cols[nc++] = monitor_stat_names[s]; }
    if (create_trend(&t, cols, nc) != 0) goto out;
    for (int m = 0; m < MONITOR_NMETRICS; m++)
        if (metric_id[m] && write_tags(&t, &ids, mk[m].order, mk[m].n, metric_id[m], LABELS_MONITOR) != 0) goto out;
    if (bulk_open(&t, outdir, dbname, ds, &bb) != 0) goto out;
    if (monitor_insert_rows(&t, &md, &st, &ids, metric_id, colidx, cols, nc, lo->micro_step, bb, &res->rows) != 0)
        goto out;
    if (shard && write_monitor_shard_tables(&t, shard_k, shard_n, lo->micro_step, &md, &st, fkey, att, natt, metric_id) != 0)
        goto out;
    res->targets = names_count(ids.keys);
    res->max_step = st.max_step;
    res->max_rank = md.max_rank;
    res->shard_k = shard_k;
    res->shard_n = shard_n;
    if (shard && md.nfiles) {
        res->min_rank = md.files[0].rank;
        res->max_rank = md.files[md.nfiles - 1].rank;
    }
    snprintf(res->path, sizeof res->path, "%s", t.final);
    if (bb && bulk_attach(&t, bb) != 0) goto out;
    if (tdb_commit(&t) != 0) goto out;
    rc = 0;
out:
    if (t.db || t.tmp) tdb_abort(&t);
    bb_free(bb);
    names_free(ids.keys);
    free(ids.dbid);
    for (int m = 0; m < MONITOR_NMETRICS; m++) mk_free(&mk[m]);
    free(fkey);
    free(att);
    monitor_steps_free(&st);
    monitor_free(&md);
    return rc;
}

/* ---- --merge: a set of dump shards into one database ----
 *
 * A shard keeps msProbe's tables for its own ranks plus, in probetop_shard*
 * tables, the files it read (place in the whole list, step group, micro
 * steps, local step of micro step 0) and every target id attempt it made, in
 * order.  The unsharded run's attempts are the shards' attempts in file
 * order, less those for a (target, metric) an earlier file of another shard
 * already brought in: replaying them gives the single run's target ids and
 * AUTOINCREMENT mark; the step groups give its micro step numbering. */

struct mshard {
    char *path;
    int k;
    sqlite3 *db;
    int any;
    /* monitor: per metric its id here and what its files had; micro steps */
    int mid[MONITOR_NMETRICS];
    uint32_t has_files, has_rows, mstat[MONITOR_NMETRICS];
    int32_t *sorig, *scount, *sbase;
    size_t nsteps;
    int64_t max_rank, min_step, max_step;
    struct names *tn;        /* its targets, in target_id order */
    int64_t *ltid, *gid;     /* per target: its id, the merged id */
    size_t nt, capt;
};

struct mfile {
    int64_t index, group;
    int32_t rank, micro, base, gbase;
    int shard;
};

struct matt {
    int64_t index, seq;
    int shard, metric;
    uint32_t lkey;
};

struct mset {
    struct mshard *v;
    int n;
    int monitor;             /* monitor_data shards, else dump_data */
    int micro;
    int64_t folders;         /* rank folders of the whole dump, as every shard saw them */
    struct mfile *files;
    size_t nfiles, capfiles;
    struct matt *att;
    size_t natt, capatt;
};

static void mset_free(struct mset *s) {
    for (int i = 0; i < s->n; i++) {
        free(s->v[i].path);
        if (s->v[i].db) sqlite3_close(s->v[i].db);
        names_free(s->v[i].tn);
        free(s->v[i].ltid);
        free(s->v[i].gid);
        free(s->v[i].sorig);
        free(s->v[i].scount);
        free(s->v[i].sbase);
    }
    free(s->v);
    free(s->files);
    free(s->att);
    memset(s, 0, sizeof *s);
}

static const char *shard_prefix(int monitor) { return monitor ? "monitor_data.shard-" : "dump_data.shard-"; }

/* name is <kind>_data.shard-K-of-N.trend.db exactly: 1, K and N set */
static int shard_name(const char *name, int monitor, int *k, int *n) {
    const char *prefix = shard_prefix(monitor);
    size_t pl = strlen(prefix);
    int pos = 0;
    char again[128];
    if (strncmp(name, prefix, pl) || sscanf(name + pl, "%d-of-%d.trend.db%n", k, n, &pos) != 2 || !pos ||
        name[pl + (size_t)pos] || *k < 1 || *k > *n)
        return 0;
    snprintf(again, sizeof again, "%s%d-of-%d.trend.db", prefix, *k, *n);
    return !strcmp(again, name);   /* no "+1" or "01" */
}

int trenddb_shards_present(const char *dir, int monitor) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int found = 0;
    const char *prefix = shard_prefix(monitor);
    while ((e = readdir(d)) && !found) found = !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return found;
}

static int cmp_mshard(const void *a, const void *b) {
    const struct mshard *x = a, *y = b;
    return (x->k > y->k) - (x->k < y->k);
}

/* Finds the shards of dir: all of one set, complete, none half-written. */
static int mset_list(struct mset *s, const char *dir, struct pt_error *err) {
    const char *prefix = shard_prefix(s->monitor);
    DIR *d = opendir(dir);
    if (!d) return pt_errorf(err, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    int n = 0, cap = 0, rc = 0;
    char first[256] = "";
    while ((e = readdir(d)) && rc == 0) {
        int k, nn;
        if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
        if (strstr(e->d_name, ".trend.db.tmp.")) {
            rc = pt_errorf(err, "%s/%s: a half-written shard (the temporary file of a data2db --shard task that is "
                                "still running or was killed): not read; run that task again, or remove the file",
                           dir, e->d_name);
            break;
        }
        if (!shard_name(e->d_name, s->monitor, &k, &nn)) continue;
        if (n && nn != s->v[0].k) {   /* v[0].k holds N until sorted */
            rc = pt_errorf(err, "%s: %s and %s belong to different sets of shards (of %d and of %d tasks)", dir, first,
                           e->d_name, s->v[0].k, nn);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            struct mshard *x = realloc(s->v, (size_t)cap * sizeof *x);
            if (!x) { rc = pt_errorf(err, "out of memory"); break; }
            s->v = x;
        }
        if (!n) snprintf(first, sizeof first, "%s", e->d_name);
        memset(&s->v[n], 0, sizeof s->v[n]);
        s->v[n].k = nn;
        s->v[n].path = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!s->v[n].path) { rc = pt_errorf(err, "out of memory"); break; }
        sprintf(s->v[n].path, "%s/%s", dir, e->d_name);
        s->n = ++n;
    }
    closedir(d);
    if (rc) return rc;
    if (!n) return pt_errorf(err, "%s: no %sK-of-N.trend.db file here", dir, prefix);
    int total = s->v[0].k;
    for (int i = 0; i < n; i++) {   /* now the K of each, from its name */
        int nn;
        const char *base = strrchr(s->v[i].path, '/') + 1;
        shard_name(base, s->monitor, &s->v[i].k, &nn);
    }
    qsort(s->v, (size_t)n, sizeof *s->v, cmp_mshard);
    if (n != total) {
        int missing = 1;
        for (int i = 0; i < n && s->v[i].k == missing; i++) missing++;
        return pt_errorf(err, "%s: incomplete set of shards: %d of %d present, %s%d-of-%d.trend.db "
                              "missing (a task failed or has not finished?)",
                         dir, n, total, prefix, missing, total);
    }
    return 0;
}

static int lkey_of(const struct mshard *sh, int64_t tid, uint32_t *key) {
    size_t lo = 0, hi = sh->nt;
    while (lo < hi) {
        size_t mi = (lo + hi) / 2;
        if (sh->ltid[mi] < tid) lo = mi + 1; else hi = mi;
    }
    if (lo >= sh->nt || sh->ltid[lo] != tid) return -1;
    *key = (uint32_t)lo;
    return 0;
}

static int shard_bad(struct pt_error *err, const struct mshard *sh, const char *what, sqlite3 *db) {
    return pt_errorf(err, "%s: not a complete probetop shard (%s%s%s)", sh->path, what, db ? ": " : "",
                     db ? sqlite3_errmsg(db) : "");
}

/* A monitor shard's metrics and micro steps.  (Each walk over a shard's
 * table ends at SQLITE_DONE or is an error: a page that does not read
 * would otherwise end it early, without a word.) */
static int mset_read_monitor(struct mshard *sh, struct pt_error *err) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sh->db, "SELECT metric, metric_id, has_files, has_rows, statistics FROM probetop_shard_metrics",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_metrics", sh->db);
    int lrc;
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 0);
        int m = 0;
        while (m < MONITOR_NMETRICS && (!name || strcmp((const char *)name, monitor_metric_names[m]))) m++;
        if (m == MONITOR_NMETRICS) { sqlite3_finalize(st); return shard_bad(err, sh, "an unknown metric", NULL); }
        sh->mid[m] = sqlite3_column_int(st, 1);
        if (sqlite3_column_int(st, 2)) sh->has_files |= 1u << m;
        if (sqlite3_column_int(st, 3)) sh->has_rows |= 1u << m;
        sh->mstat[m] = (uint32_t)sqlite3_column_int64(st, 4);
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_metrics", sh->db);
    if (sqlite3_prepare_v2(sh->db, "SELECT step, micro_steps, base_step FROM probetop_shard_steps ORDER BY base_step",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_steps", sh->db);
    size_t cap = 0;
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sh->nsteps == cap) {
            cap = cap ? cap * 2 : 64;
            int32_t *a = realloc(sh->sorig, cap * sizeof *a), *b = a ? realloc(sh->scount, cap * sizeof *b) : NULL,
                    *c = b ? realloc(sh->sbase, cap * sizeof *c) : NULL;
            if (a) sh->sorig = a;
            if (b) sh->scount = b;
            if (c) sh->sbase = c;
            if (!a || !b || !c) { sqlite3_finalize(st); return pt_errorf(err, "out of memory"); }
        }
        sh->sorig[sh->nsteps] = sqlite3_column_int(st, 0);
        sh->scount[sh->nsteps] = sqlite3_column_int(st, 1);
        sh->sbase[sh->nsteps++] = sqlite3_column_int(st, 2);
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_steps", sh->db);
    return 0;
}

/* Reads one shard's own tables. */
static int mset_read(struct mset *s, int i, struct pt_error *err) {
    struct mshard *sh = &s->v[i];
    sqlite3_stmt *st = NULL;
    if (sqlite_ro_open(sh->path, &sh->db, err) != 0) return -1;
    if (sqlite3_prepare_v2(sh->db, "SELECT kind, k, n, micro_step, any_rank, max_rank, min_step, max_step, rank_folders "
                                   "FROM probetop_shard", -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard", sh->db);
    if (sqlite3_step(st) != SQLITE_ROW) { sqlite3_finalize(st); return shard_bad(err, sh, "probetop_shard is empty", NULL); }
    const unsigned char *kind = sqlite3_column_text(st, 0);
    int k = sqlite3_column_int(st, 1), n = sqlite3_column_int(st, 2), micro = sqlite3_column_int(st, 3);
    sh->any = sqlite3_column_int(st, 4);
    sh->max_rank = sqlite3_column_int64(st, 5);
    sh->min_step = sqlite3_column_int64(st, 6);
    sh->max_step = sqlite3_column_int64(st, 7);
    int64_t folders = sqlite3_column_int64(st, 8);
    int ok = kind && !strcmp((const char *)kind, s->monitor ? "monitor" : "dump");
    sqlite3_finalize(st);
    if (!ok) return shard_bad(err, sh, s->monitor ? "not a monitor shard" : "not a dump shard", NULL);
    if (s->monitor && mset_read_monitor(sh, err) != 0) return -1;
    if (k != sh->k || n != s->n)
        return pt_errorf(err, "%s: the file says it is shard %d of %d: renamed?", sh->path, k, n);
    if (i == 0) {
        s->micro = micro;
        s->folders = folders;
    } else if (micro != s->micro) {
        return pt_errorf(err, "%s and %s: written with different --micro_step", s->v[0].path, sh->path);
    } else if (folders != s->folders) {
        return pt_errorf(err, "%s and %s: not shards of one dump (%lld and %lld rank folders found)", s->v[0].path,
                         sh->path, (long long)s->folders, (long long)folders);
    }
    /* files */
    if (sqlite3_prepare_v2(sh->db, "SELECT file, step_group, rank, micro_steps, base_step FROM probetop_shard_files",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_files", sh->db);
    int lrc;
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        if (util_grow0((void **)&s->files, &s->capfiles, s->nfiles + 1, sizeof *s->files) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        s->files[s->nfiles++] = (struct mfile){.index = sqlite3_column_int64(st, 0), .group = sqlite3_column_int64(st, 1),
                                               .rank = sqlite3_column_int(st, 2), .micro = sqlite3_column_int(st, 3),
                                               .base = sqlite3_column_int(st, 4), .shard = i};
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_files", sh->db);
    /* targets */
    if (!(sh->tn = names_new())) return pt_errorf(err, "out of memory");
    if (sqlite3_prepare_v2(sh->db, "SELECT target_id, target_name, vpp_stage, micro_step FROM monitoring_targets "
                                   "ORDER BY target_id", -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table monitoring_targets", sh->db);
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        uint32_t key = names_intern(sh->tn, name ? (const char *)name : "", name ? len : 0, sqlite3_column_int(st, 2),
                                    sqlite3_column_int(st, 3));
        if (key == NAMES_NONE || util_grow0((void **)&sh->ltid, &sh->capt, sh->nt + 1, sizeof *sh->ltid) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        if (key != sh->nt) { sqlite3_finalize(st); return shard_bad(err, sh, "a target twice", NULL); }
        sh->ltid[sh->nt++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table monitoring_targets", sh->db);
    if (!(sh->gid = calloc(sh->nt ? sh->nt : 1, sizeof *sh->gid))) return pt_errorf(err, "out of memory");
    /* attempts */
    if (sqlite3_prepare_v2(sh->db, "SELECT seq, file, target_id, metric_id FROM probetop_shard_attempts ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_attempts", sh->db);
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        struct matt a = {.seq = sqlite3_column_int64(st, 0), .index = sqlite3_column_int64(st, 1), .shard = i,
                         .metric = sqlite3_column_int(st, 3)};
        if (lkey_of(sh, sqlite3_column_int64(st, 2), &a.lkey) != 0 || a.metric < 1 ||
            a.metric > (s->monitor ? MONITOR_NMETRICS : DM_N)) {
            sqlite3_finalize(st);
            return shard_bad(err, sh, "an attempt names an unknown target or metric", NULL);
        }
        if (util_grow0((void **)&s->att, &s->capatt, s->natt + 1, sizeof *s->att) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        s->att[s->natt++] = a;
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_attempts", sh->db);
    return 0;
}

static int cmp_mfile_rank(const void *a, const void *b) {
    const struct mfile *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->shard > y->shard) - (x->shard < y->shard);
}

static int cmp_mfile_index(const void *a, const void *b) {
    const struct mfile *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int cmp_mfile_lookup(const void *a, const void *b) {   /* shard, rank, base */
    const struct mfile *x = a, *y = b;
    if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    return (x->micro > y->micro) - (x->micro < y->micro);   /* a file without rows first: never found */
}

static int cmp_matt(const void *a, const void *b) {
    const struct matt *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_prow_plain(const void *a, const void *b) { return cmp_prow_key(a, b); }

/* Ranks of two shards overlap: name both. */
static int mset_check(struct mset *s, struct pt_error *err) {
    if (s->nfiles) qsort(s->files, s->nfiles, sizeof *s->files, cmp_mfile_rank);
    for (size_t i = 1; i < s->nfiles; i++)
        if (s->files[i].rank == s->files[i - 1].rank && s->files[i].shard != s->files[i - 1].shard)
            return pt_errorf(err, "%s and %s both hold rank %d: the shards of one run hold disjoint ranks "
                                  "(written from different data, or with a different --shard count?)",
                             s->v[s->files[i - 1].shard].path, s->v[s->files[i].shard].path, (int)s->files[i].rank);
    if (s->nfiles) qsort(s->files, s->nfiles, sizeof *s->files, cmp_mfile_index);
    for (size_t i = 1; i < s->nfiles; i++)
        if (s->files[i].index == s->files[i - 1].index)
            return pt_errorf(err, "%s and %s both hold rank folder number %lld: not shards of one run",
                             s->v[s->files[i - 1].shard].path, s->v[s->files[i].shard].path,
                             (long long)s->files[i].index);
    return 0;
}

static int bucket_insert(struct tdb *t, sqlite3_stmt *ins_rows, sqlite3_stmt *ins_row, int32_t rank, struct prow *v,
                         size_t n) {
    /* a shard's order usually survives the new ids: sort only when not */
    size_t k = 1;
    while (k < n && cmp_prow_key(&v[k - 1], &v[k]) < 0) k++;
    if (k < n) qsort(v, n, sizeof *v, cmp_prow_plain);
    size_t j = 0;
    for (; ins_rows && n - j >= ROWS_PER_INSERT; j += ROWS_PER_INSERT) {
        for (int q = 0; q < ROWS_PER_INSERT; q++) bind_prow(ins_rows, q * 8, rank, &v[j + (size_t)q], 1);
        int rc = sqlite3_step(ins_rows);
        sqlite3_reset(ins_rows);
        if (rc != SQLITE_DONE) return tdb_fail(t, "insert trend rows");
    }
    for (; j < n; j++) {
        bind_prow(ins_row, 0, rank, &v[j], 1);
        int rc = sqlite3_step(ins_row);
        sqlite3_reset(ins_row);
        if (rc != SQLITE_DONE) return tdb_fail(t, "insert trend row");
    }
    return 0;
}

/* One shard's trend_data, ids and steps made the merged run's. */
static int merge_rows(struct tdb *t, struct mset *s, int i, sqlite3_stmt *ins_rows, sqlite3_stmt *ins_row,
                      size_t *rows) {
    struct mshard *sh = &s->v[i];
    sqlite3_stmt *st;
    struct prow *v = NULL;
    size_t n = 0, cap = 0;
    int32_t rank = 0;
    int rc = 0;
    /* this shard's files with rows, by (rank, base), for the step of a row */
    size_t f0 = 0, f1;
    while (f0 < s->nfiles && s->files[f0].shard < i) f0++;
    for (f1 = f0; f1 < s->nfiles && s->files[f1].shard == i; f1++) {}
    if (sqlite3_prepare_v2(sh->db, "SELECT rank, step, target_id, metric_id, norm, max, min, mean FROM trend_data",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(t->err, sh, "table trend_data", sh->db);
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int32_t r = sqlite3_column_int(st, 0), lstep = sqlite3_column_int(st, 1);
        int metric = sqlite3_column_int(st, 3);
        uint32_t key;
        if (n && r != rank) {
            if ((rc = bucket_insert(t, ins_rows, ins_row, rank, v, n)) != 0) break;
            n = 0;
        }
        rank = r;
        if (lkey_of(sh, sqlite3_column_int64(st, 2), &key) != 0 || metric < 1 || metric > DM_N) {
            rc = shard_bad(t->err, sh, "a trend_data row names an unknown target or metric", NULL);
            break;
        }
        /* the file of this row: this rank's last with base <= lstep */
        const struct mfile *f = NULL;
        size_t lo = f0, hi = f1;
        while (lo < hi) {
            size_t mi = (lo + hi) / 2;
            const struct mfile *x = &s->files[mi];
            if (x->rank < r || (x->rank == r && x->base <= lstep)) lo = mi + 1; else hi = mi;
        }
        if (lo > f0 && s->files[lo - 1].rank == r) f = &s->files[lo - 1];
        if (!f) { rc = shard_bad(t->err, sh, "a trend_data row of no file read", NULL); break; }
        if (util_grow((void **)&v, &cap, n + 1, sizeof *v) != 0) { rc = pt_errorf(t->err, "out of memory"); break; }
        struct prow *p = &v[n++];
        p->dbid = sh->gid[key];
        p->step = s->micro ? f->gbase + (lstep - f->base) : lstep;
        p->metric = (uint8_t)(metric - 1);
        p->present = 0;
        for (int c = 0; c < 4; c++) {
            p->v[c] = 0;
            if (sqlite3_column_type(st, 4 + c) != SQLITE_NULL) {
                p->v[c] = sqlite3_column_double(st, 4 + c);
                p->present |= (uint8_t)(1u << c);
            }
        }
        (*rows)++;
    }
    if (rc == 0 && src != SQLITE_DONE && src != SQLITE_ROW) rc = shard_bad(t->err, sh, "reading trend_data", sh->db);
    if (rc == 0 && n) rc = bucket_insert(t, ins_rows, ins_row, rank, v, n);
    sqlite3_finalize(st);
    free(v);
    return rc;
}

/* Gives every shard's targets their merged ids (sh->gid) from the replay
 * in ids.  0, or -1 with err set when a target had no attempt. */
static int map_shard_targets(struct mset *s, const struct idmap *ids, struct pt_error *err) {
    for (int i = 0; i < s->n; i++) {
        struct mshard *sh = &s->v[i];
        for (size_t k = 0; k < sh->nt; k++) {
            const struct target *tg = names_target(sh->tn, (uint32_t)k);
            uint32_t gk = names_find(ids->keys, names_str(sh->tn, (uint32_t)k), tg->len, tg->vpp, tg->call);
            if (gk == NAMES_NONE) return shard_bad(err, sh, "a target of no attempt", NULL);
            sh->gid[k] = ids->dbid[gk];
        }
    }
    return 0;
}

/* The merged database into t (open, in a transaction). */
/* summaries 0: for reading only (the reader does not use them) */
static int merge_into(struct tdb *t, struct mset *s, struct tdb_result *res, int summaries) {
    struct pt_error *err = t->err;
    struct idmap ids = {0};
    struct mkeys mk[DM_N];
    int order[DM_N], norder = 0, rc = -1;
    sqlite3_stmt *ins_target = NULL, *ins_row = NULL, *ins_rows = NULL;
    memset(mk, 0, sizeof mk);
    for (int i = 0; i < s->n; i++)
        if (mset_read(s, i, err) != 0) return -1;
    if (mset_check(s, err) != 0) return -1;
    /* the unsharded run's step of micro step 0 for every file */
    int64_t start = 0, cur = INT64_MIN;
    int32_t maxm = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        struct mfile *f = &s->files[i];
        if (f->group != cur) {
            if (cur != INT64_MIN) start += maxm;
            cur = f->group;
            maxm = 0;
        }
        f->gbase = (int32_t)start;
        if (f->micro > maxm) maxm = f->micro;
    }
    if (cur != INT64_MIN) start += maxm;
    int any = 0;
    int64_t max_rank = 0, min_step = INT64_MAX, max_step = INT64_MIN;
    for (int i = 0; i < s->n; i++) {
        if (!s->v[i].any) continue;
        any = 1;
        if (s->v[i].max_rank > max_rank) max_rank = s->v[i].max_rank;
        if (s->v[i].min_step < min_step) min_step = s->v[i].min_step;
        if (s->v[i].max_step > max_step) max_step = s->v[i].max_step;
    }
    if (!any) return pt_errorf(err, "%s: no shard holds a rank folder: nothing to merge", t->final);
    if (s->micro) { min_step = 0; max_step = start - 1; }
    if (!(ids.keys = names_new())) return pt_errorf(err, "out of memory");
    if (create_fixed(t) != 0 || create_trend(t, dump_stat_names, 4) != 0 ||
        insert_metrics(t, dump_metric_names, DM_N) != 0)
        goto out;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step) VALUES (?,?,?,?)",
                           -1, &ins_target, NULL) ||
        sqlite3_prepare_v2(t->db, "INSERT OR IGNORE INTO trend_data VALUES (?,?,?,?,?,?,?,?)", -1, &ins_row, NULL)) {
        tdb_fail(t, "prepare");
        goto out;
    }
    {
        char *sql = malloc(64 + ROWS_PER_INSERT * 18);
        if (!sql) { pt_errorf(err, "out of memory"); goto out; }
        size_t o = (size_t)sprintf(sql, "INSERT OR IGNORE INTO trend_data VALUES ");
        for (int q = 0; q < ROWS_PER_INSERT; q++) o += (size_t)sprintf(sql + o, "%s(?,?,?,?,?,?,?,?)", q ? "," : "");
        if (sqlite3_prepare_v2(t->db, sql, -1, &ins_rows, NULL) != SQLITE_OK) ins_rows = NULL;
        free(sql);
    }
    /* the replay */
    if (s->natt) qsort(s->att, s->natt, sizeof *s->att, cmp_matt);
    for (size_t i = 0; i < s->natt; i++) {
        const struct matt *a = &s->att[i];
        const struct names *tn = s->v[a->shard].tn;
        const struct target *tg = names_target(tn, a->lkey);
        const char *name = names_str(tn, a->lkey);
        int m = a->metric - 1, ins;
        uint32_t gk = names_find(ids.keys, name, tg->len, tg->vpp, tg->call);
        if (gk != NAMES_NONE && mk_knows(&mk[m], gk)) continue;
        int64_t k = attempt(&ids, name, tg->len, tg->vpp, tg->call, ins_target, &ins);
        if (k < 0) { tdb_fail(t, "insert target"); goto out; }
        if (mk_know(&mk[m], (uint32_t)k) != 0) { pt_errorf(err, "out of memory"); goto out; }
        int seen = 0;
        for (int q = 0; q < norder; q++) seen |= order[q] == m;
        if (!seen) order[norder++] = m;
    }
    if (finish_sequence(t, &ids) != 0 || map_shard_targets(s, &ids, err) != 0) goto out;
    if (dump_global_stats(t, (int32_t)max_rank, (int32_t)min_step, (int32_t)max_step) != 0) goto out;
    if (s->nfiles) qsort(s->files, s->nfiles, sizeof *s->files, cmp_mfile_lookup);
    res->rows = 0;
    for (int i = 0; i < s->n; i++)
        if (merge_rows(t, s, i, ins_rows, ins_row, &res->rows) != 0) goto out;
    for (int q = 0; q < norder; q++)
        if (write_tags(t, &ids, mk[order[q]].order, mk[order[q]].n, order[q] + 1, LABELS_DUMP) != 0) goto out;
    if (summaries && write_rank_summary(t) != 0) goto out;
    res->targets = names_count(ids.keys);
    res->max_rank = (int32_t)max_rank;
    res->max_step = (int32_t)max_step;
    rc = 0;
out:
    sqlite3_finalize(ins_target);
    sqlite3_finalize(ins_row);
    sqlite3_finalize(ins_rows);
    names_free(ids.keys);
    free(ids.dbid);
    for (int m = 0; m < DM_N; m++) mk_free(&mk[m]);
    return rc;
}

static int cmp_matt_monitor(const void *a, const void *b) {   /* metric by metric, then file order */
    const struct matt *x = a, *y = b;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    return cmp_matt(a, b);
}

static int cmp_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int has_table_rw(sqlite3 *db, const char *name) {
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* What the monitor shards hold together: the metrics with files and with
 * rows, the statistics (all, and per metric with files), the largest rank
 * and, without --micro_step, the steps of the shards with rows. */
struct mon_totals {
    uint32_t has_files, has_rows, statmask, mstat[MONITOR_NMETRICS];
    int64_t max_rank, min_step, max_step;
};

/* Sums up the shards of s into *tot.  Returns nothing. */
static void mon_totals_of(const struct mset *s, struct mon_totals *tot) {
    int steps_seen = 0;
    memset(tot, 0, sizeof *tot);
    for (int i = 0; i < s->n; i++) {
        const struct mshard *sh = &s->v[i];
        tot->has_files |= sh->has_files;
        tot->has_rows |= sh->has_rows;
        for (int m = 0; m < MONITOR_NMETRICS; m++) {
            if (sh->has_files & (1u << m)) tot->mstat[m] |= sh->mstat[m];
            tot->statmask |= sh->mstat[m];
        }
        if (sh->max_rank > tot->max_rank) tot->max_rank = sh->max_rank;
        if (!s->micro && sh->has_rows) {
            if (!steps_seen || sh->min_step < tot->min_step) tot->min_step = sh->min_step;
            if (!steps_seen || sh->max_step > tot->max_step) tot->max_step = sh->max_step;
            steps_seen = 1;
        }
    }
}

/* The merged run's micro steps: per original step (orig, ascending) the
 * most micro steps any shard saw (count) and its first merged step (off). */
struct mon_gsteps {
    int32_t *orig, *count, *off;
    size_t n;
};

/* Fills *g from the shards' step tables; *total: the merged micro steps.
 * 0, or -1 with err set (out of memory; g is the caller's to free). */
static int mon_gsteps_of(const struct mset *s, struct mon_gsteps *g, int64_t *total, struct pt_error *err) {
    size_t all = 0;
    for (int i = 0; i < s->n; i++) all += s->v[i].nsteps;
    g->orig = malloc((all ? all : 1) * sizeof *g->orig);
    g->count = calloc(all ? all : 1, sizeof *g->count);
    g->off = calloc(all ? all : 1, sizeof *g->off);
    if (!g->orig || !g->count || !g->off) return pt_errorf(err, "out of memory");
    for (int i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->v[i].nsteps; j++) g->orig[g->n++] = s->v[i].sorig[j];
    if (g->n) qsort(g->orig, g->n, sizeof *g->orig, cmp_int32);
    size_t u = 0;
    for (size_t j = 0; j < g->n; j++)
        if (!u || g->orig[u - 1] != g->orig[j]) g->orig[u++] = g->orig[j];
    g->n = u;
    for (int i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->v[i].nsteps; j++) {
            int32_t *pos = bsearch(&s->v[i].sorig[j], g->orig, g->n, sizeof *g->orig, cmp_int32);
            if (pos && s->v[i].scount[j] > g->count[pos - g->orig]) g->count[pos - g->orig] = s->v[i].scount[j];
        }
    int64_t off = 0;
    for (size_t j = 0; j < g->n; j++) {
        g->off[j] = (int32_t)off;
        off += g->count[j];
    }
    *total = off;
    return 0;
}

/* Replays the monitor shards' attempts, metric by metric then in file
 * order, into t's monitoring_targets (ids, mk per metric), sets the
 * AUTOINCREMENT mark and maps the shards' targets.  0, or -1 with t's
 * error set. */
static int replay_monitor_attempts(struct tdb *t, struct mset *s, struct idmap *ids, struct mkeys *mk) {
    sqlite3_stmt *ins_target = NULL;
    if (sqlite3_prepare_v2(t->db, "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step) VALUES (?,?,?,?)",
                           -1, &ins_target, NULL))
        return tdb_fail(t, "prepare");
    if (s->natt) qsort(s->att, s->natt, sizeof *s->att, cmp_matt_monitor);
    for (size_t i = 0; i < s->natt; i++) {
        const struct matt *a = &s->att[i];
        const struct names *tn = s->v[a->shard].tn;
        const struct target *tg = names_target(tn, a->lkey);
        const char *name = names_str(tn, a->lkey);
        int m = a->metric - 1, ins;
        uint32_t gk = names_find(ids->keys, name, tg->len, tg->vpp, tg->call);
        if (gk != NAMES_NONE && mk_knows(&mk[m], gk)) continue;
        int64_t k = attempt(ids, name, tg->len, tg->vpp, tg->call, ins_target, &ins);
        if (k < 0) { tdb_fail(t, "insert target"); sqlite3_finalize(ins_target); return -1; }
        if (mk_know(&mk[m], (uint32_t)k) != 0) { sqlite3_finalize(ins_target); return pt_errorf(t->err, "out of memory"); }
    }
    sqlite3_finalize(ins_target);
    if (finish_sequence(t, ids) != 0) return -1;
    return map_shard_targets(s, ids, t->err);
}

/* Copies shard i's trend_data into t through ins_row: merged target ids,
 * metric ids (metric_id), statistic columns (colof, nc of them) and, with
 * --micro_step, merged steps (g); *rows counts the rows added.  0, or -1
 * with t's error set. */
static int merge_monitor_rows(struct tdb *t, const struct mset *s, int i, sqlite3_stmt *ins_row, const int *metric_id,
                              const int *colof, int nc, const struct mon_gsteps *g, size_t *rows) {
    struct pt_error *err = t->err;
    const struct mshard *sh = &s->v[i];
    sqlite3_stmt *sel = NULL;
    int rc = -1;
    if (!has_table_rw(sh->db, "trend_data")) return 0;   /* a shard of no usable file */
    char tcols[MONITOR_NSTATS + 8][64];
    int ntc = 0, map[MONITOR_NSTATS + 8];
    if (sqlite3_prepare_v2(sh->db, "PRAGMA table_info(trend_data)", -1, &sel, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table trend_data", sh->db);
    while (sqlite3_step(sel) == SQLITE_ROW && ntc < MONITOR_NSTATS + 8) {
        const unsigned char *c = sqlite3_column_text(sel, 1);
        snprintf(tcols[ntc++], sizeof tcols[0], "%s", c ? (const char *)c : "");
    }
    sqlite3_finalize(sel);
    sel = NULL;
    for (int c = 4; c < ntc; c++) {
        map[c] = -1;
        for (int st = 0; st < MONITOR_NSTATS; st++)
            if (!strcmp(tcols[c], monitor_stat_names[st])) map[c] = colof[st];
        if (map[c] < 0) return shard_bad(err, sh, "an unknown statistic column", NULL);
    }
    if (sqlite3_prepare_v2(sh->db, "SELECT * FROM trend_data", -1, &sel, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table trend_data", sh->db);
    int src;
    while ((src = sqlite3_step(sel)) == SQLITE_ROW) {
        int32_t lstep = sqlite3_column_int(sel, 1), gstep = lstep;
        int lm = sqlite3_column_int(sel, 3), m = 0;
        uint32_t key;
        while (m < MONITOR_NMETRICS && sh->mid[m] != lm) m++;
        if (m == MONITOR_NMETRICS || !metric_id[m] || lkey_of(sh, sqlite3_column_int64(sel, 2), &key) != 0) {
            shard_bad(err, sh, "a trend_data row names an unknown target or metric", NULL);
            goto out;
        }
        if (s->micro) {
            size_t lo = 0, hi = sh->nsteps;   /* the last step whose base <= lstep */
            while (lo < hi) {
                size_t mi = (lo + hi) / 2;
                if (sh->sbase[mi] <= lstep) lo = mi + 1; else hi = mi;
            }
            int32_t *pos = lo ? bsearch(&sh->sorig[lo - 1], g->orig, g->n, sizeof *g->orig, cmp_int32) : NULL;
            if (!pos) { shard_bad(err, sh, "a trend_data row of no step", NULL); goto out; }
            gstep = g->off[pos - g->orig] + (lstep - sh->sbase[lo - 1]);
        }
        sqlite3_bind_int(ins_row, 1, sqlite3_column_int(sel, 0));
        sqlite3_bind_int(ins_row, 2, gstep);
        sqlite3_bind_int64(ins_row, 3, sh->gid[key]);
        sqlite3_bind_int(ins_row, 4, metric_id[m]);
        for (int c = 0; c < nc; c++) sqlite3_bind_null(ins_row, 5 + c);
        for (int c = 4; c < ntc; c++)
            if (sqlite3_column_type(sel, c) != SQLITE_NULL)
                sqlite3_bind_double(ins_row, 5 + map[c], sqlite3_column_double(sel, c));
        int irc = sqlite3_step(ins_row);
        sqlite3_reset(ins_row);
        if (irc != SQLITE_DONE) { tdb_fail(t, "insert trend row"); goto out; }
        *rows += (size_t)sqlite3_changes(t->db);
    }
    if (src != SQLITE_DONE) { shard_bad(err, sh, "reading trend_data", sh->db); goto out; }
    rc = 0;
out:
    sqlite3_finalize(sel);
    return rc;
}

/* The monitor run from its shards, as trenddb_write_monitor writes it. */
static int merge_into_monitor(struct tdb *t, struct mset *s, struct tdb_result *res, int summaries) {
    struct pt_error *err = t->err;
    struct idmap ids = {0};
    struct mkeys mk[MONITOR_NMETRICS];
    int rc = -1;
    sqlite3_stmt *ins_row = NULL;
    struct mon_gsteps g = {0};
    struct mon_totals tot;
    memset(mk, 0, sizeof mk);
    for (int i = 0; i < s->n; i++)
        if (mset_read(s, i, err) != 0) return -1;
    if (mset_check(s, err) != 0) return -1;
    mon_totals_of(s, &tot);
    if (!tot.has_files)
        return pt_errorf(err, "%s: no <metric>_<a>-<b>.csv file in the rank folders of any shard: no database written",
                         t->final);
    if (!tot.statmask) return pt_errorf(err, "%s: no CSV file has a supported statistic column (norm, min, max, ...)", t->final);
    if (s->micro) {   /* the micro steps of every step: the most any shard saw */
        int64_t total = 0;
        if (mon_gsteps_of(s, &g, &total, err) != 0) goto out;
        tot.min_step = 0;
        tot.max_step = total - 1;
    }
    if (!(ids.keys = names_new())) { pt_errorf(err, "out of memory"); goto out; }
    if (create_fixed(t) != 0) goto out;
    if (replay_monitor_attempts(t, s, &ids, mk) != 0) goto out;
    const char *present[MONITOR_NMETRICS];
    int metric_id[MONITOR_NMETRICS], np = 0;
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        metric_id[m] = 0;
        if (tot.has_rows & (1u << m)) { present[np++] = monitor_metric_names[m]; metric_id[m] = np; }
    }
    if (insert_metrics(t, present, np) != 0) goto out;
    if (monitor_global_stats(t, (int32_t)tot.min_step, (int32_t)tot.max_step, (int32_t)tot.max_rank, tot.has_files,
                             tot.mstat) != 0)
        goto out;
    const char *cols[MONITOR_NSTATS];
    int colof[MONITOR_NSTATS], nc = 0;   /* per statistic: its trend_data column, or -1 */
    for (int st = 0; st < MONITOR_NSTATS; st++) {
        colof[st] = -1;
        if (tot.statmask & (1u << st)) { colof[st] = nc; cols[nc++] = monitor_stat_names[st]; }
    }
    if (create_trend(t, cols, nc) != 0) goto out;
    for (int m = 0; m < MONITOR_NMETRICS; m++)
        if (metric_id[m] && write_tags(t, &ids, mk[m].order, mk[m].n, metric_id[m], LABELS_MONITOR) != 0) goto out;
    {
        char sql[512];
        size_t o = (size_t)snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO trend_data VALUES (?,?,?,?");
        for (int i = 0; i < nc; i++) o += (size_t)snprintf(sql + o, sizeof sql - o, ",?");
        snprintf(sql + o, sizeof sql - o, ")");
        if (sqlite3_prepare_v2(t->db, sql, -1, &ins_row, NULL)) { tdb_fail(t, "prepare"); goto out; }
    }
    res->rows = 0;
    for (int i = 0; i < s->n; i++)
        if (merge_monitor_rows(t, s, i, ins_row, metric_id, colof, nc, &g, &res->rows) != 0) goto out;
    if (summaries && write_rank_summary(t) != 0) goto out;
    res->targets = names_count(ids.keys);
    res->max_rank = (int32_t)tot.max_rank;
    res->max_step = (int32_t)tot.max_step;
    rc = 0;
out:
    sqlite3_finalize(ins_row);
    names_free(ids.keys);
    free(ids.dbid);
    for (int m = 0; m < MONITOR_NMETRICS; m++) mk_free(&mk[m]);
    free(g.orig);
    free(g.count);
    free(g.off);
    return rc;
}

int trenddb_merge(const char *dir, int monitor, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                  struct tdb_result *res, struct pt_error *err) {
    struct mset s = {.monitor = monitor};
    struct tdb t;
    memset(res, 0, sizeof *res);
    if (mset_list(&s, dir, err) != 0) { mset_free(&s); return -1; }
    if (tdb_open(&t, outdir, monitor ? "monitor_data.trend.db" : "dump_data.trend.db", monitor ? 262144 : 16384, lo, ds,
                 err) != 0) {
        tdb_abort(&t);
        mset_free(&s);
        return -1;
    }
    int rc = monitor ? merge_into_monitor(&t, &s, res, 1) : merge_into(&t, &s, res, 1);
    mset_free(&s);
    if (rc == 0) {
        snprintf(res->path, sizeof res->path, "%s", t.final);
        rc = tdb_commit(&t);   /* aborts itself on failure */
    } else {
        tdb_abort(&t);
    }
    return rc;
}

int trenddb_merge_temp(const char *dir, int monitor, sqlite3 **out, struct pt_error *err) {
    struct mset s = {.monitor = monitor};
    struct tdb t = {.err = err};
    struct tdb_result res;
    *out = NULL;
    if (mset_list(&s, dir, err) != 0) { mset_free(&s); return -1; }
    if (!(t.final = strdup(dir))) { mset_free(&s); return pt_errorf(err, "out of memory"); }
    /* "": a private database SQLite keeps in the temporary folder and
     * deletes on close: nothing is written beside the shards */
    int rc = -1;
    if (sqlite3_open_v2("", &t.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        pt_errorf(err, "%s: cannot open a temporary database to join the shards in", dir);
    else if (tdb_exec(&t, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; BEGIN") == 0 &&
             (monitor ? merge_into_monitor(&t, &s, &res, 0) : merge_into(&t, &s, &res, 0)) == 0 &&
             tdb_exec(&t, "COMMIT") == 0)
        rc = 0;
    mset_free(&s);
    free(t.final);
    if (rc != 0) {
        sqlite3_close(t.db);
        return -1;
    }
    *out = t.db;
    return 0;
}

/* ---- rank summaries (probetop(1), FILES: probetop_rank_summary) ----
 *
 * Per (step, target, metric) and per statistic column of trend_data: the
 * number of ranks with a row and the min, max and mean over the ranks of
 * each group of 8 and of 64 ranks (rank / size; only sizes below the rank
 * count) and over all ranks (group_size 0); only for runs with ranks
 * beyond SUMMARY_MIN_RANKS - 1.  Built from the rows in memory (a dump) or in one scan of
 * trend_data in key order: each rank's rows, already sorted by (step,
 * target, metric), are merged into one sorted accumulator per group size,
 * which is written out when the rank group changes.  msProbe's +-(1e9 + 1)
 * stand for infinities: a mean over an infinity is that infinity, over
 * both NULL.  Per statistic also the ranks whose value is NULL as a NaN
 * (not in a row whose finite norm or mean says its tensor held none:
 * probetop-formats(5), TREND.DB), which minimum and maximum skip. */

#define SUM_SIZES 3
#define SUM_PER_STAT 5       /* n, min, max, sum, NaN */

struct sacc {                /* a run of entries, each `stride` doubles */
    double *v;               /* [step, target, metric, ranks, then per stat: n, min, max, sum, nan] */
    size_t n, cap;
};

static int sacc_grow(struct sacc *a, size_t need, size_t stride) {
    if (need <= a->cap) return 0;
    size_t nc = a->cap ? a->cap * 2 : 4096;
    while (nc < need) nc *= 2;
    double *x = realloc(a->v, nc * stride * sizeof *x);
    if (!x) return -1;
    a->v = x;
    a->cap = nc;
    return 0;
}

static int sacc_cmp(const double *x, const double *y) {
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}

static void sacc_combine(double *o, const double *y, int ns) {
    o[3] += y[3];
    for (int s = 0; s < ns; s++) {
        double *os = o + 4 + SUM_PER_STAT * s;
        const double *ys = y + 4 + SUM_PER_STAT * s;
        os[4] += ys[4];
        if (!ys[0]) continue;
        if (!os[0]) { memcpy(os, ys, 4 * sizeof *os); continue; }
        os[0] += ys[0];
        if (ys[1] < os[1]) os[1] = ys[1];
        if (ys[2] > os[2]) os[2] = ys[2];
        os[3] += ys[3];
    }
}

/* Every key of b is in a already (ranks of one run mostly hold the same
 * targets): b combined into a in place, 1; else 0, a untouched. */
static int sacc_into(struct sacc *a, const struct sacc *b, int ns) {
    size_t stride = 4 + SUM_PER_STAT * (size_t)ns, i = 0;
    for (size_t j = 0; j < b->n; j++, i++) {
        const double *y = b->v + j * stride;
        while (i < a->n && sacc_cmp(a->v + i * stride, y) < 0) i++;
        if (i >= a->n || sacc_cmp(a->v + i * stride, y) != 0) return 0;
    }
    i = 0;
    for (size_t j = 0; j < b->n; j++, i++) {
        const double *y = b->v + j * stride;
        while (sacc_cmp(a->v + i * stride, y) < 0) i++;
        sacc_combine(a->v + i * stride, y, ns);
    }
    return 1;
}

/* out = a merged with b (both sorted by key); entries of one key combine. */
static int sacc_merge(const struct sacc *a, const struct sacc *b, struct sacc *out, int ns) {
    size_t stride = 4 + SUM_PER_STAT * (size_t)ns, i = 0, j = 0;
    out->n = 0;
    if (sacc_grow(out, a->n + b->n, stride) != 0) return -1;
    while (i < a->n || j < b->n) {
        const double *x = i < a->n ? a->v + i * stride : NULL, *y = j < b->n ? b->v + j * stride : NULL;
        double *o = out->v + out->n++ * stride;
        int c = !x ? 1 : !y ? -1 : sacc_cmp(x, y);
        if (c < 0) { memcpy(o, x, stride * sizeof *o); i++; continue; }
        if (c > 0) { memcpy(o, y, stride * sizeof *o); j++; continue; }
        memcpy(o, x, stride * sizeof *o);
        sacc_combine(o, y, ns);
        i++;
        j++;
    }
    return 0;
}

/* The summarizer: fed the rows of one rank at a time (cur), ranks
 * ascending; finished groups go to out as [size, group, entry]. */
struct summ {
    int ns, nsizes, sizes[SUM_SIZES];
    int64_t group[SUM_SIZES];
    struct sacc acc[SUM_SIZES], tmp, cur, out;
};

static void summ_init(struct summ *m, int ns, int64_t max_rank) {
    memset(m, 0, sizeof *m);
    m->ns = ns;
    if (max_rank + 1 > 8) m->sizes[m->nsizes++] = 8;
    if (max_rank + 1 > 64) m->sizes[m->nsizes++] = 64;
    m->sizes[m->nsizes++] = 0;
    for (int l = 0; l < SUM_SIZES; l++) m->group[l] = -1;
}

static void summ_free(struct summ *m) {
    for (int l = 0; l < SUM_SIZES; l++) free(m->acc[l].v);
    free(m->tmp.v);
    free(m->cur.v);
    free(m->out.v);
    memset(m, 0, sizeof *m);
}

static int summ_emit(struct summ *m, int l) {
    size_t stride = 4 + SUM_PER_STAT * (size_t)m->ns, ostride = stride + 2;
    const struct sacc *a = &m->acc[l];
    if (sacc_grow(&m->out, m->out.n + a->n, ostride) != 0) return -1;
    for (size_t i = 0; i < a->n; i++) {
        double *o = m->out.v + m->out.n++ * ostride;
        o[0] = m->sizes[l];
        o[1] = (double)m->group[l];
        memcpy(o + 2, a->v + i * stride, stride * sizeof *o);
    }
    m->acc[l].n = 0;
    return 0;
}

/* m->cur holds every row of rank (sorted by key): into every group size */
static int summ_rank(struct summ *m, int64_t rank) {
    for (int l = 0; l < m->nsizes; l++) {
        int64_t g = m->sizes[l] ? rank / m->sizes[l] : 0;
        if (g != m->group[l] && m->acc[l].n && summ_emit(m, l) != 0) return -1;
        m->group[l] = g;
        if (sacc_into(&m->acc[l], &m->cur, m->ns)) continue;
        if (sacc_merge(&m->acc[l], &m->cur, &m->tmp, m->ns) != 0) return -1;
        struct sacc sw = m->acc[l];
        m->acc[l] = m->tmp;
        m->tmp = sw;
    }
    m->cur.n = 0;
    return 0;
}

static int summ_finish(struct summ *m) {
    for (int l = 0; l < m->nsizes; l++)
        if (m->acc[l].n && summ_emit(m, l) != 0) return -1;
    return 0;
}

static void bind_summary_value(sqlite3_stmt *st, int at, double v) {
    if (isnan(v)) sqlite3_bind_null(st, at);
    else if (isinf(v)) sqlite3_bind_double(st, at, v > 0 ? 1000000001.0 : -1000000001.0);
    else sqlite3_bind_double(st, at, v);
}

#define SUMMARY_ROWS_PER_INSERT 32

/* One entry of out into the statement's parameters from at (1-based). */
static void summ_bind(sqlite3_stmt *ins, int at, const double *e, int ns) {
    for (int c = 0; c < 6; c++) sqlite3_bind_int64(ins, at + c, (int64_t)e[c]);
    for (int s = 0; s < ns; s++) {
        const double *es = e + 6 + SUM_PER_STAT * s;
        int p = at + 6 + 4 * s;
        sqlite3_bind_int64(ins, p + 3, (int64_t)es[4]);
        if (!es[0]) {
            sqlite3_bind_null(ins, p);
            sqlite3_bind_null(ins, p + 1);
            sqlite3_bind_null(ins, p + 2);
            continue;
        }
        bind_summary_value(ins, p, es[1]);
        bind_summary_value(ins, p + 1, es[2]);
        bind_summary_value(ins, p + 2, es[3] / es[0]);
    }
}

/* The table, and its statements in ins: one row, SUMMARY_ROWS_PER_INSERT
 * rows (NULL with an old SQLite of few parameters).  cols: the statistic
 * column names. */
static int summ_open(struct tdb *t, int ns, const char *const *cols, sqlite3_stmt *ins[2]) {
    char sql[4096];
    int rc = 0;
    ins[0] = ins[1] = NULL;
    size_t o = (size_t)snprintf(sql, sizeof sql,
                                "CREATE TABLE probetop_rank_summary (group_size INTEGER NOT NULL, rank_group INTEGER NOT NULL, "
                                "step INTEGER NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, "
                                "ranks INTEGER NOT NULL");
    for (int s = 0; s < ns; s++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, ", %s_min REAL, %s_max REAL, %s_mean REAL, %s_nan INTEGER", cols[s],
                              cols[s], cols[s], cols[s]);
    snprintf(sql + o, sizeof sql - o, ", PRIMARY KEY (group_size, rank_group, step, target_id, metric_id)) WITHOUT ROWID");
    if (tdb_exec(t, sql) != 0) return -1;
    int per[2] = {1, SUMMARY_ROWS_PER_INSERT}, nparam = 6 + 4 * ns;
    char *q = malloc((size_t)SUMMARY_ROWS_PER_INSERT * (size_t)nparam * 2 + 128);
    if (!q) return pt_errorf(t->err, "out of memory");
    for (int k = 0; k < 2; k++) {
        o = (size_t)sprintf(q, "INSERT INTO probetop_rank_summary VALUES ");
        for (int r = 0; r < per[k]; r++) {
            o += (size_t)sprintf(q + o, "%s(?", r ? "," : "");
            for (int c = 1; c < nparam; c++) o += (size_t)sprintf(q + o, ",?");
            o += (size_t)sprintf(q + o, ")");
        }
        if (sqlite3_prepare_v2(t->db, q, -1, &ins[k], NULL) != SQLITE_OK) {
            if (k == 0) rc = tdb_fail(t, "prepare rank summary");
            ins[k] = NULL;   /* an old SQLite with few parameters: one row at a time */
        }
    }
    free(q);
    return rc;
}

/* out's rows into the table (many per statement), then out is empty: the
 * finished rank groups go in as they finish, not all held to the end. */
static int summ_flush(struct tdb *t, struct summ *m, sqlite3_stmt *ins[2]) {
    int ns = m->ns, rc = 0, nparam = 6 + 4 * ns;
    size_t ostride = 6 + SUM_PER_STAT * (size_t)ns, i = 0;
    for (; rc == 0 && ins[1] && m->out.n - i >= SUMMARY_ROWS_PER_INSERT; i += SUMMARY_ROWS_PER_INSERT) {
        for (int r = 0; r < SUMMARY_ROWS_PER_INSERT; r++)
            summ_bind(ins[1], 1 + r * nparam, m->out.v + (i + (size_t)r) * ostride, ns);
        int src = sqlite3_step(ins[1]);
        sqlite3_reset(ins[1]);
        if (src != SQLITE_DONE) rc = tdb_fail(t, "insert rank summary");
    }
    for (; rc == 0 && i < m->out.n; i++) {
        summ_bind(ins[0], 1, m->out.v + i * ostride, ns);
        int src = sqlite3_step(ins[0]);
        sqlite3_reset(ins[0]);
        if (src != SQLITE_DONE) rc = tdb_fail(t, "insert rank summary");
    }
    m->out.n = 0;
    return rc;
}

/* The table, with out's rows. */
static int summ_write(struct tdb *t, struct summ *m, const char *const *cols) {
    sqlite3_stmt *ins[2];
    int rc = summ_open(t, m->ns, cols, ins);
    if (rc == 0) rc = summ_flush(t, m, ins);
    sqlite3_finalize(ins[0]);
    sqlite3_finalize(ins[1]);
    return rc;
}

/* One row value as the summary takes it: NULL (0) for absent or NaN; the
 * stored value, with msProbe's +-(1e9 + 1) read as the infinities. */
static int summ_value(int present, double stored, double *out) {
    if (!present || isnan(stored)) return 0;
    *out = stored == 1000000001.0 ? INFINITY : stored == -1000000001.0 ? -INFINITY : stored;
    return 1;
}

/* nan: the value is NULL as a NaN (not as a value msProbe could not store) */
static void summ_set(double *es, int has, double v, int nan) {
    es[0] = has;
    es[1] = es[2] = es[3] = has ? v : 0;
    es[4] = nan;
}

/* The summary from trend_data as written (monitor data, a merge, a dump
 * too big to hold): one scan in key order. */
static int write_rank_summary(struct tdb *t) {
    char cols[MONITOR_NSTATS + 8][64];
    int ncols = 0, rc = -1;
    sqlite3_stmt *st = NULL;
    struct summ m;
    if (sqlite3_prepare_v2(t->db, "PRAGMA table_info(trend_data)", -1, &st, NULL) != SQLITE_OK) return tdb_fail(t, "summary");
    while (sqlite3_step(st) == SQLITE_ROW && ncols < (int)(sizeof cols / sizeof cols[0])) {
        const unsigned char *c = sqlite3_column_text(st, 1);
        snprintf(cols[ncols++], sizeof cols[0], "%s", c ? (const char *)c : "");
    }
    sqlite3_finalize(st);
    st = NULL;
    int ns = ncols - 4;
    if (ns < 1) return 0;
    int64_t max_rank = -1;
    if (sqlite3_prepare_v2(t->db, "SELECT max(rank) FROM trend_data", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        max_rank = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (max_rank + 1 < SUMMARY_MIN_RANKS) return 0;
    summ_init(&m, ns, max_rank);
    if (sqlite3_prepare_v2(t->db, "SELECT * FROM trend_data", -1, &st, NULL) != SQLITE_OK) {
        tdb_fail(t, "prepare rank summary");
        goto out;
    }
    size_t stride = 4 + SUM_PER_STAT * (size_t)ns;
    uint32_t tells = 0;   /* the norm and mean columns: finite, no NaN in the tensor */
    for (int c = 0; c < ns; c++)
        if (!strcmp(cols[4 + c], "norm") || !strcmp(cols[4 + c], "mean")) tells |= 1u << c;
    int64_t rank = -1;
    int src;
    for (;;) {
        src = sqlite3_step(st);
        int64_t r = src == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        if ((src != SQLITE_ROW || r != rank) && m.cur.n && summ_rank(&m, rank) != 0) {
            pt_errorf(t->err, "out of memory");
            goto out;
        }
        if (src != SQLITE_ROW) break;
        rank = r;
        if (sacc_grow(&m.cur, m.cur.n + 1, stride) != 0) { pt_errorf(t->err, "out of memory"); goto out; }
        double *e = m.cur.v + m.cur.n++ * stride;
        e[0] = (double)sqlite3_column_int64(st, 1);
        e[1] = (double)sqlite3_column_int64(st, 2);
        e[2] = (double)sqlite3_column_int64(st, 3);
        e[3] = 1;
        int finite = 0;
        for (int s = 0; s < ns; s++) {
            double v = 0;
            int has = summ_value(sqlite3_column_type(st, 4 + s) != SQLITE_NULL, sqlite3_column_double(st, 4 + s), &v);
            summ_set(e + 4 + SUM_PER_STAT * s, has, v, !has);
            finite |= has && ((tells >> s) & 1) && isfinite(v);
        }
        for (int s = 0; finite && s < ns; s++) e[4 + SUM_PER_STAT * s + 4] = 0;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (src != SQLITE_DONE) { tdb_fail(t, "read trend_data for the rank summary"); goto out; }
    if (summ_finish(&m) != 0) { pt_errorf(t->err, "out of memory"); goto out; }
    const char *names[MONITOR_NSTATS + 8];
    for (int c = 0; c < ns; c++) names[c] = cols[4 + c];
    rc = summ_write(t, &m, names);
out:
    sqlite3_finalize(st);
    summ_free(&m);
    return rc;
}

/* The dump writer's rows, rank by rank as they go in (ranks ascending, each
 * rank's rows sorted by key): summarized on the way. */
struct summ_job {
    struct summ m;
    int32_t max_rank;        /* the one foreseen: the group sizes depend on it */
    int failed;
};

static void summ_job_rank(struct summ_job *j, const struct rankrows *b) {
    size_t stride = 4 + SUM_PER_STAT * (size_t)j->m.ns;
    if (j->failed || !b->n) return;
    if (sacc_grow(&j->m.cur, b->n, stride) != 0) { j->failed = 1; return; }
    j->m.cur.n = 0;
    for (size_t i = 0; i < b->n; i++) {
        const struct prow *r = &b->v[i];
        if (i && cmp_prow_key(&b->v[i - 1], r) == 0) continue;   /* INSERT OR IGNORE kept the first */
        double *e = j->m.cur.v + j->m.cur.n++ * stride;
        e[0] = r->step;
        e[1] = (double)r->dbid;
        e[2] = r->metric + 1;
        e[3] = 1;
        int finite = 0;
        for (int s = 0; s < 4; s++) {
            double v = 0, stored;
            int has = ((r->present >> s) & 1) && normalise(r->v[s], &stored) && summ_value(1, stored, &v);
            summ_set(e + 4 + SUM_PER_STAT * s, has, v, !has);
            finite |= has && (s == 0 || s == 3) && isfinite(v);   /* norm, mean of dump_stat_names */
        }
        for (int s = 0; finite && s < 4; s++) e[4 + SUM_PER_STAT * s + 4] = 0;
    }
    if (summ_rank(&j->m, b->rank) != 0) j->failed = 1;
}

static int summ_job_write(struct tdb *t, struct summ_job *j) {
    if (j->failed || summ_finish(&j->m) != 0) return pt_errorf(t->err, "out of memory");
    return summ_write(t, &j->m, dump_stat_names);
}

static void summ_job_free(struct summ_job *j) {
    if (!j) return;
    summ_free(&j->m);
    free(j);
}

/* Group sizes as for ranks 0..max_rank */
static struct summ_job *summ_job_new(int32_t max_rank) {
    struct summ_job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    summ_init(&j->m, 4, max_rank);
    j->max_rank = max_rank;
    return j;
}

/* Are ranks 0..max_rank summarized in the group sizes j was made for? */
static int summ_job_fits(const struct summ_job *j, int32_t max_rank) {
    int64_t a = (int64_t)j->max_rank + 1, b = (int64_t)max_rank + 1;
    return (a > 8) == (b > 8) && (a > 64) == (b > 64);
}

/* A row of the rank going in (the monitor writer): its key, and where its
 * values are (file, row: also the order INSERT OR IGNORE met them in). */
struct mrow {
    int32_t step, metric;    /* metric: its metric_id */
    int64_t dbid;
    uint32_t file, row;
};

static int cmp_mrow(const void *a, const void *b) {
    const struct mrow *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->dbid != y->dbid) return x->dbid < y->dbid ? -1 : 1;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The monitor writer's rows, rank by rank: sorted into trend_data's key
 * order, built beside SQLite (bb) or inserted, and summarized on the way
 * (summ NULL: no summary, or one made from the table at the end). */
struct mon_rows {
    struct tdb *t;
    const struct monitor_data *md;
    const struct monitor_steps *st;
    const struct idmap *ids;
    const int *metric_id, *colidx;
    int nc, micro_step;
    struct bb *bb;           /* NULL: INSERTs */
    sqlite3_stmt *ins_row;
    struct summ *summ;
    sqlite3_stmt *ins_summ[2];
    uint32_t tells;          /* the norm and mean columns: finite, no NaN in the tensor */
    struct mrow *v;
    size_t n, cap, rows;
    struct pmemo memo;       /* pool name -> key in ids */
};

/* One row (the first of its key) into trend_data and the rank's summary. */
static int mon_row_out(struct mon_rows *w, int32_t rank, const struct mrow *r) {
    const struct monitor_file *f = &w->md->files[r->file];
    const struct monitor_row *row = &f->rows[r->row];
    int64_t iv[4 + MONITOR_NSTATS] = {rank, r->step, r->dbid, r->metric};
    double dv[4 + MONITOR_NSTATS];
    uint8_t kind[4 + MONITOR_NSTATS] = {BB_INT, BB_INT, BB_INT, BB_INT};
    double *e = NULL;
    size_t stride = w->summ ? 4 + SUM_PER_STAT * (size_t)w->nc : 0;
    if (w->summ) {
        if (sacc_grow(&w->summ->cur, w->summ->cur.n + 1, stride) != 0) return pt_errorf(w->t->err, "out of memory");
        e = w->summ->cur.v + w->summ->cur.n++ * stride;
        e[0] = r->step;
        e[1] = (double)r->dbid;
        e[2] = r->metric;
        e[3] = 1;
    }
    int finite = 0;
    for (int c = 0; c < w->nc; c++) {
        int s = w->colidx[c];
        double v;
        int has = ((row->present >> s) & 1) && normalise(monitor_value(f, r->row, s), &v);
        kind[4 + c] = has ? BB_REAL : BB_NULL;
        dv[4 + c] = has ? v : 0;
        if (e) {
            double sv = 0;
            int hs = has && summ_value(1, v, &sv);
            summ_set(e + 4 + SUM_PER_STAT * c, hs, sv, !hs);
            finite |= hs && ((w->tells >> c) & 1) && isfinite(sv);
        }
    }
    for (int c = 0; e && finite && c < w->nc; c++) e[4 + SUM_PER_STAT * c + 4] = 0;
    w->rows++;
    if (w->bb) {
        unsigned char rec[9 + 9 * (4 + MONITOR_NSTATS)];
        size_t len = bb_record(rec, 4 + w->nc, iv, dv, kind);
        if (bb_add(w->bb, rec, len) != 0)
            return pt_errorf(w->t->err, "%s: could not write the rows' pages (disk full?)", w->t->final);
        return 0;
    }
    for (int c = 0; c < 4; c++) sqlite3_bind_int64(w->ins_row, 1 + c, iv[c]);
    for (int c = 0; c < w->nc; c++)
        if (kind[4 + c] == BB_REAL) sqlite3_bind_double(w->ins_row, 5 + c, dv[4 + c]);
        else sqlite3_bind_null(w->ins_row, 5 + c);
    int src = sqlite3_step(w->ins_row);
    sqlite3_reset(w->ins_row);
    return src == SQLITE_DONE ? 0 : tdb_fail(w->t, "insert trend row");
}

/* The rows of files [a, b) (all of one rank) in key order; of two rows of
 * one key the first read wins, as with INSERT OR IGNORE. */
static int mon_rank_out(struct mon_rows *w, size_t a, size_t b) {
    const struct monitor_data *md = w->md;
    int32_t rank = md->files[a].rank;
    w->n = 0;
    for (size_t i = a; i < b; i++) {
        const struct monitor_file *f = &md->files[i];
        int mid = w->metric_id[f->metric];
        if (!mid) continue;
        if (util_grow0((void **)&w->v, &w->cap, w->n + f->nrows, sizeof *w->v) != 0)
            return pt_errorf(w->t->err, "out of memory");
        for (size_t k = 0; k < f->nrows; k++) {
            const struct monitor_row *row = &f->rows[k];
            int32_t call = w->micro_step ? 0 : row->micro;
            uint32_t key;
            if (pmemo_hit(&w->memo, row, call)) key = w->memo.key[row->name];
            else {
                const char *nm = monitor_name(md, row);
                key = names_find(w->ids->keys, nm, strlen(nm), row->vpp, call);
                if (key != NAMES_NONE) pmemo_set(&w->memo, row, call, key);
            }
            if (key == NAMES_NONE) continue;
            w->v[w->n++] = (struct mrow){.step = monitor_row_step(w->st, row), .metric = mid,
                                         .dbid = w->ids->dbid[key], .file = (uint32_t)i, .row = (uint32_t)k};
        }
    }
    qsort(w->v, w->n, sizeof *w->v, cmp_mrow);
    for (size_t i = 0; i < w->n; i++) {
        const struct mrow *r = &w->v[i], *p = i ? &w->v[i - 1] : NULL;
        if (p && p->step == r->step && p->dbid == r->dbid && p->metric == r->metric) continue;
        if (mon_row_out(w, rank, r) != 0) return -1;
    }
    if (w->summ && w->summ->cur.n) {
        if (summ_rank(w->summ, rank) != 0) return pt_errorf(w->t->err, "out of memory");
        if (summ_flush(w->t, w->summ, w->ins_summ) != 0) return -1;
    }
    return 0;
}

/* md's rows into trend_data (nc columns, colidx: the statistic of each,
 * cols their names), at their steps of st, counting them in *rows, and the
 * rank summary.  Files come rank by rank, ranks ascending: each rank's rows
 * are sorted and go into the table built in key order (bb; NULL: by
 * INSERTs), its summary made on the way; files in any other order go in by
 * INSERTs, the summary from the table after.  0, or -1 with t's error set. */
static int monitor_insert_rows(struct tdb *t, const struct monitor_data *md, const struct monitor_steps *st,
                               const struct idmap *ids, const int *metric_id, const int *colidx, const char *const *cols,
                               int nc, int micro_step, struct bb *bb, size_t *rows) {
    struct mon_rows w = {.t = t, .md = md, .st = st, .ids = ids, .metric_id = metric_id, .colidx = colidx, .nc = nc,
                         .micro_step = micro_step};
    struct summ summ;
    int ordered = 1, rc = -1;
    int32_t max_rank = -1;
    for (size_t i = 0; i < md->nfiles; i++) {
        if (i && md->files[i].rank < md->files[i - 1].rank) ordered = 0;
        if (metric_id[md->files[i].metric] && md->files[i].nrows && md->files[i].rank > max_rank)
            max_rank = md->files[i].rank;
    }
    w.bb = ordered ? bb : NULL;
    memset(&summ, 0, sizeof summ);
    if (pmemo_init(&w.memo, md) != 0) { pmemo_free(&w.memo); return pt_errorf(t->err, "out of memory"); }
    char sql[512];
    size_t o = (size_t)snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO trend_data VALUES (?,?,?,?");
    for (int i = 0; i < nc; i++) o += (size_t)snprintf(sql + o, sizeof sql - o, ",?");
    snprintf(sql + o, sizeof sql - o, ")");
    if (!w.bb && sqlite3_prepare_v2(t->db, sql, -1, &w.ins_row, NULL)) {
        pmemo_free(&w.memo);
        return tdb_fail(t, "prepare");
    }
    if (ordered && max_rank + 1 >= SUMMARY_MIN_RANKS) {
        summ_init(&summ, nc, max_rank);
        w.summ = &summ;
        for (int c = 0; c < nc; c++)
            if (!strcmp(cols[c], "norm") || !strcmp(cols[c], "mean")) w.tells |= 1u << c;
        if (summ_open(t, nc, cols, w.ins_summ) != 0) goto out;
    }
    for (size_t a = 0, b; a < md->nfiles; a = b) {
        for (b = a + 1; b < md->nfiles && md->files[b].rank == md->files[a].rank; b++) {}
        if (t->cancel && atomic_load(t->cancel)) { pt_errorf(t->err, "%s: interrupted", t->final); goto out; }
        if (mon_rank_out(&w, a, b) != 0) goto out;
    }
    if (w.summ && summ_finish(w.summ) != 0) { pt_errorf(t->err, "out of memory"); goto out; }
    if (w.summ && summ_flush(t, w.summ, w.ins_summ) != 0) goto out;
    if (!ordered && write_rank_summary(t) != 0) goto out;
    *rows = w.rows;
    rc = 0;
out:
    sqlite3_finalize(w.ins_row);
    sqlite3_finalize(w.ins_summ[0]);
    sqlite3_finalize(w.ins_summ[1]);
    summ_free(&summ);
    pmemo_free(&w.memo);
    free(w.v);
    return rc;
}
