/* write_trenddb: msProbe-compatible .trend.db files (trend-db.md §2-6).
 *
 * Target ids must equal msProbe's, and msProbe's ids depend on the exact
 * sequence of INSERT OR IGNORE attempts (an ignored insert still burns an
 * AUTOINCREMENT id).  Rather than replaying the attempts through SQLite we
 * replay them in memory and insert each target once with its id, then set
 * sqlite_sequence to the burnt high-water mark.  The file is written under a
 * temporary name beside the target and renamed into place when complete. */
#define _GNU_SOURCE   /* qsort_r */
#include "src/io/write_trenddb.h"

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

#include "model/names.h"
#include "model/util/util.h"
#include "src/io/read_dump.h"
#include "src/io/read_monitor.h"

/* ---- SQLite plumbing ---- */

struct tdb {
    sqlite3 *db;
    char *final, *tmp;
    struct pt_error *err;
    atomic_int *cancel;      /* set by a signal: stop, remove the temporary file */
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

/* msProbe's value normalisation (trend-db.md §3); returns 0 for NULL. */
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

/* ---- dump ---- */

struct pending {             /* a row of the current file; name points into the file's arena */
    const char *name;
    int64_t dbid;            /* once resolved */
    uint32_t len;
    uint32_t key;            /* index in ids.keys, NAMES_NONE until the target exists */
    int32_t call;
    int32_t rank, step;
    uint8_t metric, present;
    double v[4];
};

struct fresh {               /* a key new to a metric since the last flush */
    const char *name;
    uint32_t len;
    int32_t call;
    uint8_t metric;
};

/* A finished trend_data row, kept until every file is read.  The table's
 * key is (rank, step, target, metric) but files come step by step: fed in
 * that order SQLite inserts at one place per rank, each a descent from the
 * root, three times the work of appending.  So rows wait in memory per rank
 * and go in at the end in key order (the page cache they replace held the
 * same bytes). */
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

struct dump_writer {
    struct tdb t;
    struct idmap ids;
    struct mkeys mk[DM_N];
    int metric_order[DM_N], nmetric_order;
    struct pending *rows;    /* this file's rows, in arrival order */
    size_t nrows, caprows;
    size_t resolved;         /* rows[0..resolved) have their dbid */
    uint32_t *order;         /* rows by primary key */
    size_t caporder;
    struct fresh *fresh;
    size_t nfresh, capfresh;
    struct names *fresh_set; /* (name, vpp = metric, call) of fresh, for dedupe */
    struct rankrows *ranks;
    size_t nranks, capranks;
    size_t held;             /* rows waiting in ranks[] */
    sqlite3_stmt *ins_target, *ins_row, *ins_rows;   /* one row, ROWS_PER_INSERT rows */
    int32_t max_rank;
    struct pt_error *err;
};

#define ROWS_PER_INSERT 128
/* Rows waiting for the end at most (48 bytes each, ~200 MB, the page
 * cache's old budget): beyond it they go in, in key order, and the wait
 * starts again, so memory stays bounded however big the dump. */
#define HOLD_MAX ((size_t)4 << 20)

static int dump_insert_rows(struct dump_writer *w);

static int cmp_pending(const void *a, const void *b, void *ctx) {
    const struct pending *rows = ctx;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    const struct pending *x = &rows[ia], *y = &rows[ib];
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->dbid != y->dbid) return x->dbid < y->dbid ? -1 : 1;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

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
 * last flush get their ids (metric by metric), and the waiting rows learn
 * theirs. */
static int dump_flush(struct dump_writer *w) {
    struct tdb *t = &w->t;
    for (int m = 0; m < DM_N; m++)
        for (size_t i = 0; i < w->nfresh; i++) {
            const struct fresh *fr = &w->fresh[i];
            if (fr->metric != m) continue;
            int ins;
            int64_t k = attempt(&w->ids, fr->name, fr->len, 0, fr->call, w->ins_target, &ins);
            if (k < 0) return tdb_fail(t, "insert target");
            if (mk_know(&w->mk[m], (uint32_t)k) != 0) return pt_errorf(w->err, "out of memory");
        }
    if (w->nfresh) {
        w->nfresh = 0;
        names_free(w->fresh_set);
        if (!(w->fresh_set = names_new())) return pt_errorf(w->err, "out of memory");
    }
    for (size_t i = w->resolved; i < w->nrows; i++) {
        struct pending *r = &w->rows[i];
        if (r->key == NAMES_NONE) {
            r->key = names_find(w->ids.keys, r->name, r->len, 0, r->call);
            if (r->key == NAMES_NONE) return pt_errorf(w->err, "internal: target of a waiting row was never inserted");
        }
        r->dbid = w->ids.dbid[r->key];
    }
    w->resolved = w->nrows;
    return 0;
}

static void bind_prow(sqlite3_stmt *s, int at, int32_t rank, const struct prow *r) {
    sqlite3_bind_int(s, at + 1, rank);
    sqlite3_bind_int(s, at + 2, r->step);
    sqlite3_bind_int64(s, at + 3, r->dbid);
    sqlite3_bind_int(s, at + 4, r->metric + 1);
    for (int c = 0; c < 4; c++) {
        double v;
        if (((r->present >> c) & 1) && normalise(r->v[c], &v)) sqlite3_bind_double(s, at + 5 + c, v);
        else sqlite3_bind_null(s, at + 5 + c);
    }
}

static struct rankrows *rank_bucket(struct dump_writer *w, int32_t rank) {
    for (size_t i = w->nranks; i-- > 0;)
        if (w->ranks[i].rank == rank) return &w->ranks[i];
    if (util_grow0((void **)&w->ranks, &w->capranks, w->nranks + 1, sizeof *w->ranks) != 0) return NULL;
    struct rankrows *b = &w->ranks[w->nranks++];
    memset(b, 0, sizeof *b);
    b->rank = rank;
    return b;
}

/* End of a file: its rows, sorted by key (stable: of two rows with one key
 * the first still wins), join their rank's rows. */
static int dump_file_done(struct dump_writer *w, int32_t rank) {
    if (!w->nrows) return 0;
    struct rankrows *b = rank_bucket(w, rank);
    if (!b || util_grow0((void **)&w->order, &w->caporder, w->nrows, sizeof *w->order) != 0 ||
        util_grow((void **)&b->v, &b->cap, b->n + w->nrows, sizeof *b->v) != 0)
        return pt_errorf(w->err, "out of memory");
    for (size_t i = 0; i < w->nrows; i++) w->order[i] = (uint32_t)i;
    qsort_r(w->order, w->nrows, sizeof *w->order, cmp_pending, w->rows);
    for (size_t o = 0; o < w->nrows; o++) {
        const struct pending *r = &w->rows[w->order[o]];
        struct prow *d = &b->v[b->n++];
        d->dbid = r->dbid;
        d->step = r->step;
        d->metric = r->metric;
        d->present = r->present;
        memcpy(d->v, r->v, sizeof d->v);
    }
    w->held += w->nrows;
    w->nrows = w->resolved = 0;
    return w->held >= HOLD_MAX ? dump_insert_rows(w) : 0;
}

static int cmp_rank(const void *a, const void *b) {
    const struct rankrows *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Every waiting row, in key order. */
static int dump_insert_rows(struct dump_writer *w) {
    struct tdb *t = &w->t;
    if (w->nranks) qsort(w->ranks, w->nranks, sizeof *w->ranks, cmp_rank);
    for (size_t k = 0; k < w->nranks; k++) {
        struct rankrows *b = &w->ranks[k];
        /* files of one rank come in step order, so their sorted runs usually
         * follow each other; when not (steps of a MindSpore graph/ and
         * pynative/ pair), one stable sort of the whole rank */
        size_t i = 1;
        while (i < b->n && cmp_prow_key(&b->v[i - 1], &b->v[i]) <= 0) i++;
        if (i < b->n) {
            struct prow *sorted = malloc(b->n * sizeof *sorted);
            if (!sorted || util_grow0((void **)&w->order, &w->caporder, b->n, sizeof *w->order) != 0) {
                free(sorted);
                return pt_errorf(w->err, "out of memory");
            }
            for (size_t j = 0; j < b->n; j++) w->order[j] = (uint32_t)j;
            qsort_r(w->order, b->n, sizeof *w->order, cmp_prow, b->v);
            for (size_t j = 0; j < b->n; j++) sorted[j] = b->v[w->order[j]];
            free(b->v);
            b->v = sorted;
            b->cap = b->n;
        }
        /* many rows per statement: one statement keeps its cursor on the
         * last page, where an append needs no descent from the root */
        size_t j = 0;
        for (; w->ins_rows && b->n - j >= ROWS_PER_INSERT; j += ROWS_PER_INSERT) {
            for (int q = 0; q < ROWS_PER_INSERT; q++) bind_prow(w->ins_rows, q * 8, b->rank, &b->v[j + (size_t)q]);
            int rc = sqlite3_step(w->ins_rows);
            sqlite3_reset(w->ins_rows);
            if (rc != SQLITE_DONE) return tdb_fail(t, "insert trend rows");
        }
        for (; j < b->n; j++) {
            bind_prow(w->ins_row, 0, b->rank, &b->v[j]);
            int rc = sqlite3_step(w->ins_row);
            sqlite3_reset(w->ins_row);
            if (rc != SQLITE_DONE) return tdb_fail(t, "insert trend row");
        }
        free(b->v);
        b->v = NULL;
        b->n = b->cap = 0;
    }
    w->held = 0;
    return 0;
}

static int dump_writer_file(void *vctx, const struct dump_file *f, int32_t step_base) {
    struct dump_writer *w = vctx;
    if (f->rank > w->max_rank) w->max_rank = f->rank;
    size_t i = 0;
    while (i < f->nrows) {
        uint32_t entry = f->rows[i].entry;
        for (; i < f->nrows && f->rows[i].entry == entry; i++) {
            const struct trow *r = &f->rows[i];
            const char *name = f->arena + r->name;
            if (util_grow0((void **)&w->rows, &w->caprows, w->nrows + 1, sizeof *w->rows) != 0)
                return pt_errorf(w->err, "out of memory");
            uint32_t key = names_find(w->ids.keys, name, r->len, 0, r->call);
            w->rows[w->nrows++] = (struct pending){.name = name, .len = r->len, .call = r->call, .rank = f->rank,
                                                   .step = step_base + r->micro, .metric = r->metric,
                                                   .present = r->present, .key = key};
            memcpy(w->rows[w->nrows - 1].v, r->v, sizeof r->v);
            int seen = 0;
            for (int m = 0; m < w->nmetric_order; m++)
                if (w->metric_order[m] == r->metric) seen = 1;
            if (!seen) w->metric_order[w->nmetric_order++] = r->metric;
            if (mk_knows(&w->mk[r->metric], key)) continue;
            uint32_t before = names_count(w->fresh_set);
            uint32_t fk = names_intern(w->fresh_set, name, r->len, r->metric, r->call);
            if (fk == NAMES_NONE) return pt_errorf(w->err, "out of memory");
            if (fk < before) continue;   /* already new in this batch */
            if (util_grow0((void **)&w->fresh, &w->capfresh, w->nfresh + 1, sizeof *w->fresh) != 0)
                return pt_errorf(w->err, "out of memory");
            w->fresh[w->nfresh++] = (struct fresh){.name = name, .len = r->len, .call = r->call, .metric = r->metric};
        }
        /* after each record: flush on a positive multiple of 5000 waiting rows */
        size_t waiting = w->nrows - w->resolved;
        if (waiting && waiting % 5000 == 0 && dump_flush(w) != 0) return -1;
    }
    /* and at the end of every file */
    if (dump_flush(w) != 0 || dump_file_done(w, f->rank) != 0) return -1;
    return 0;
}

int trenddb_write_dump(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                       struct tdb_result *res, struct pt_error *err) {
    struct dump_writer w = {.err = err};
    struct mapping map = {0};
    struct dump_summary sum;
    int rc = -1;
    memset(res, 0, sizeof *res);
    if (lo->mapping && mapping_read(lo->mapping, &map, err) != 0) return -1;
    if (!(w.ids.keys = names_new()) || !(w.fresh_set = names_new())) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    if (tdb_open(&w.t, outdir, "dump_data.trend.db", 16384, lo, ds, err) != 0) goto out;
    if (create_fixed(&w.t) != 0) goto out;
    if (create_trend(&w.t, dump_stat_names, 4) != 0) goto out;
    if (insert_metrics(&w.t, dump_metric_names, DM_N) != 0) goto out;
    if (sqlite3_prepare_v2(w.t.db, "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step) VALUES (?,?,?,?)",
                           -1, &w.ins_target, NULL) ||
        sqlite3_prepare_v2(w.t.db, "INSERT OR IGNORE INTO trend_data VALUES (?,?,?,?,?,?,?,?)", -1, &w.ins_row, NULL)) {
        tdb_fail(&w.t, "prepare");
        goto out;
    }
    {
        char *sql = malloc(64 + ROWS_PER_INSERT * 18);
        if (!sql) { pt_errorf(err, "out of memory"); goto out; }
        size_t o = (size_t)sprintf(sql, "INSERT OR IGNORE INTO trend_data VALUES ");
        for (int q = 0; q < ROWS_PER_INSERT; q++) o += (size_t)sprintf(sql + o, "%s(?,?,?,?,?,?,?,?)", q ? "," : "");
        /* an old SQLite with a low variable limit: one row at a time */
        if (sqlite3_prepare_v2(w.t.db, sql, -1, &w.ins_rows, NULL) != SQLITE_OK) w.ins_rows = NULL;
        free(sql);
    }
    struct dump_opts dopt = {.micro_step = lo->micro_step, .mapping = &map, .want_rows = 1,
                             .layout = lo->layout};
    if (dump_read(data, lo, &dopt, ds, dump_writer_file, &w, &sum, err) != 0) goto out;
    if (!sum.any_rank) { pt_errorf(err, "%s: no usable rank folder: no database written", data); goto out; }
    if (dump_insert_rows(&w) != 0) goto out;
    if (finish_sequence(&w.t, &w.ids) != 0) goto out;
    char sql[1024];
    if (tdb_exec(&w.t, "CREATE TABLE IF NOT EXISTS global_stats (\n"
                       "            max_rank INTEGER DEFAULT 0, min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, "
                       "forward TEXT DEFAULT NULL, backward TEXT DEFAULT NULL, recompute TEXT DEFAULT NULL, "
                       "parameters_grad TEXT DEFAULT NULL\n"
                       "        )") != 0)
        goto out;
    snprintf(sql, sizeof sql,
             "INSERT INTO global_stats VALUES (%d, %d, %d, 'norm,max,min,mean', 'norm,max,min,mean', "
             "'norm,max,min,mean', 'norm,max,min,mean')",
             (int)sum.max_rank, (int)sum.min_step, (int)sum.max_step);
    if (tdb_exec(&w.t, sql) != 0) goto out;
    for (int i = 0; i < w.nmetric_order; i++) {
        int m = w.metric_order[i];
        if (write_tags(&w.t, &w.ids, w.mk[m].order, w.mk[m].n, m + 1, LABELS_DUMP) != 0) goto out;
    }
    sqlite3_finalize(w.ins_target);
    sqlite3_finalize(w.ins_row);
    sqlite3_finalize(w.ins_rows);
    w.ins_target = w.ins_row = w.ins_rows = NULL;
    res->targets = names_count(w.ids.keys);
    res->max_step = sum.max_step;
    res->max_rank = sum.max_rank;
    {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(w.t.db, "SELECT count(*) FROM trend_data", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            res->rows = (size_t)sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    snprintf(res->path, sizeof res->path, "%s", w.t.final);
    if (tdb_commit(&w.t) != 0) goto out;
    rc = 0;
out:
    sqlite3_finalize(w.ins_target);
    sqlite3_finalize(w.ins_row);
    sqlite3_finalize(w.ins_rows);
    if (w.t.db || w.t.tmp) tdb_abort(&w.t);
    names_free(w.ids.keys);
    names_free(w.fresh_set);
    free(w.ids.dbid);
    for (int m = 0; m < DM_N; m++) mk_free(&w.mk[m]);
    free(w.rows);
    free(w.order);
    free(w.fresh);
    for (size_t i = 0; i < w.nranks; i++) free(w.ranks[i].v);
    free(w.ranks);
    mapping_free(&map);
    return rc;
}

/* ---- monitor (trend-db.md §6.5) ---- */

int trenddb_write_monitor(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                          struct tdb_result *res, struct pt_error *err) {
    struct mapping map = {0};
    struct monitor_data md;
    struct mon_steps st = {0};
    struct tdb t = {0};
    struct idmap ids = {0};
    struct mkeys mk[MON_NMETRICS];
    sqlite3_stmt *ins_target = NULL, *ins_row = NULL;
    int rc = -1;
    memset(mk, 0, sizeof mk);
    memset(res, 0, sizeof *res);
    if (lo->mapping && mapping_read(lo->mapping, &map, err) != 0) return -1;
    int r = monitor_read(data, &map, lo->layout, ds, &md, err);
    mapping_free(&map);
    if (r != 0) return -1;
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
    if (tdb_open(&t, outdir, "monitor_data.trend.db", 262144, lo, ds, err) != 0 || create_fixed(&t) != 0) goto out;
    if (sqlite3_prepare_v2(t.db, "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step) VALUES (?,?,?,?)",
                           -1, &ins_target, NULL)) {
        tdb_fail(&t, "prepare");
        goto out;
    }
    /* targets, metric by metric in the fixed order */
    for (int m = 0; m < MON_NMETRICS; m++) {
        if (!(md.metric_has_rows & (1u << m))) continue;
        struct names *seen = names_new();
        if (!seen) { pt_errorf(err, "out of memory"); goto out; }
        for (size_t i = 0; i < md.nfiles; i++) {
            const struct mon_file *f = &md.files[i];
            if (f->metric != m) continue;
            for (size_t k = 0; k < f->nrows; k++) {
                const char *nm = md.arena + f->rows[k].name;
                size_t len = strlen(nm);
                int32_t call = lo->micro_step ? 0 : f->rows[k].micro;
                uint32_t before = names_count(seen);
                if (names_intern(seen, nm, len, f->rows[k].vpp, call) < before) continue;
                int ins;
                int64_t key = attempt(&ids, nm, len, f->rows[k].vpp, call, ins_target, &ins);
                if (key < 0 || mk_know(&mk[m], (uint32_t)key) != 0) {
                    names_free(seen);
                    tdb_fail(&t, "insert target");
                    goto out;
                }
            }
        }
        names_free(seen);
    }
    if (finish_sequence(&t, &ids) != 0) goto out;
    const char *present[MON_NMETRICS];
    int metric_id[MON_NMETRICS], np = 0;
    for (int m = 0; m < MON_NMETRICS; m++) {
        metric_id[m] = 0;
        if (md.metric_has_rows & (1u << m)) { present[np++] = mon_metric_names[m]; metric_id[m] = np; }
    }
    if (insert_metrics(&t, present, np) != 0) goto out;
    /* global_stats */
    char sql[8192], vals[4096];
    size_t o = (size_t)snprintf(sql, sizeof sql,
                                "CREATE TABLE IF NOT EXISTS global_stats (\n"
                                "            min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0");
    size_t vo = (size_t)snprintf(vals, sizeof vals, "INSERT INTO global_stats VALUES (%d, %d, %d", (int)st.min_step,
                                 (int)st.max_step, (int)md.max_rank);
    for (int m = 0; m < MON_NMETRICS; m++) {
        if (!(md.metric_has_files & (1u << m))) continue;
        uint32_t mask = 0;
        for (size_t i = 0; i < md.nfiles; i++)
            if (md.files[i].metric == m) mask |= md.files[i].statmask;
        o += (size_t)snprintf(sql + o, sizeof sql - o, ", %s TEXT DEFAULT NULL", mon_metric_names[m]);
        vo += (size_t)snprintf(vals + vo, sizeof vals - vo, ", '");
        int first = 1;
        for (int s = 0; s < MON_NSTATS; s++)
            if (mask & (1u << s)) {
                vo += (size_t)snprintf(vals + vo, sizeof vals - vo, "%s%s", first ? "" : ",", mon_stat_names[s]);
                first = 0;
            }
        vo += (size_t)snprintf(vals + vo, sizeof vals - vo, "'");
    }
    snprintf(sql + o, sizeof sql - o, "\n        )");
    snprintf(vals + vo, sizeof vals - vo, ")");
    if (tdb_exec(&t, sql) != 0 || tdb_exec(&t, vals) != 0) goto out;
    /* trend_data with the union of the supported columns */
    const char *cols[MON_NSTATS];
    int colidx[MON_NSTATS], nc = 0;
    for (int s = 0; s < MON_NSTATS; s++)
        if (md.statmask & (1u << s)) { colidx[nc] = s; cols[nc++] = mon_stat_names[s]; }
    if (create_trend(&t, cols, nc) != 0) goto out;
    for (int m = 0; m < MON_NMETRICS; m++)
        if (metric_id[m] && write_tags(&t, &ids, mk[m].order, mk[m].n, metric_id[m], LABELS_MONITOR) != 0) goto out;
    o = (size_t)snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO trend_data VALUES (?,?,?,?");
    for (int i = 0; i < nc; i++) o += (size_t)snprintf(sql + o, sizeof sql - o, ",?");
    snprintf(sql + o, sizeof sql - o, ")");
    if (sqlite3_prepare_v2(t.db, sql, -1, &ins_row, NULL)) { tdb_fail(&t, "prepare"); goto out; }
    for (size_t i = 0; i < md.nfiles; i++) {
        const struct mon_file *f = &md.files[i];
        if (!metric_id[f->metric]) continue;
        for (size_t k = 0; k < f->nrows; k++) {
            const struct mon_row *row = &f->rows[k];
            const char *nm = md.arena + row->name;
            uint32_t key = names_find(ids.keys, nm, strlen(nm), row->vpp, lo->micro_step ? 0 : row->micro);
            if (key == NAMES_NONE) continue;
            sqlite3_bind_int(ins_row, 1, f->rank);
            sqlite3_bind_int(ins_row, 2, monitor_row_step(&st, row));
            sqlite3_bind_int64(ins_row, 3, ids.dbid[key]);
            sqlite3_bind_int(ins_row, 4, metric_id[f->metric]);
            for (int c = 0; c < nc; c++) {
                double v;
                int s = colidx[c];
                if (((row->present >> s) & 1) && normalise(row->v[s], &v)) sqlite3_bind_double(ins_row, 5 + c, v);
                else sqlite3_bind_null(ins_row, 5 + c);
            }
            int src = sqlite3_step(ins_row);
            sqlite3_reset(ins_row);
            if (src != SQLITE_DONE) { tdb_fail(&t, "insert trend row"); goto out; }
            res->rows++;
        }
    }
    sqlite3_finalize(ins_row);
    sqlite3_finalize(ins_target);
    ins_row = ins_target = NULL;
    res->targets = names_count(ids.keys);
    res->max_step = st.max_step;
    res->max_rank = md.max_rank;
    snprintf(res->path, sizeof res->path, "%s", t.final);
    if (tdb_commit(&t) != 0) goto out;
    rc = 0;
out:
    sqlite3_finalize(ins_row);
    sqlite3_finalize(ins_target);
    if (t.db || t.tmp) tdb_abort(&t);
    names_free(ids.keys);
    free(ids.dbid);
    for (int m = 0; m < MON_NMETRICS; m++) mk_free(&mk[m]);
    monitor_steps_free(&st);
    monitor_free(&md);
    return rc;
}
