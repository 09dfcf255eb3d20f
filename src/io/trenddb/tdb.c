/* tdb: one .trend.db being written (tdb.h): its temporary file and commit,
 * msProbe's tables, the replay of msProbe's target ids, the tags, a
 * shard's own tables, and the one insert loop every table of the writers
 * goes through.  The three writers (dump, monitor, merge) build on it, so
 * that a table is written one way whichever of them writes it. */
#include "src/io/trenddb/tdb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/util/radix.h"
#include "model/util/util.h"
#include "src/io/load.h"

/* ---- the file ---- */

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

int tdb_fail(struct tdb *t, const char *what) {
    char why[512];
    return pt_errorf(t->err, "%s: %s: %s", t->final, what, sql_reason(t->db, why, sizeof why));
}

int tdb_exec(struct tdb *t, const char *sql) {
    if (t->cancel && atomic_load(t->cancel)) return pt_errorf(t->err, "%s: interrupted", t->final);
    if (((t->bulk[0] && btree_bulk_started(t->bulk[0])) || (t->bulk[1] && btree_bulk_started(t->bulk[1]))) &&
        tdb_bulk_end(t) != 0)
        return -1;   /* SQLite writes after the tree being written */
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

int tdb_open(struct tdb *t, const char *outdir, const char *name, int cache_kib, const struct load_opts *lo,
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

void tdb_abort(struct tdb *t) {
    if (t->db) sqlite3_close(t->db);
    for (int i = 0; i < 2; i++) btree_bulk_free(t->bulk[i]);
    if (t->tmp) unlink(t->tmp);
    free(t->final);
    free(t->tmp);
    memset(t, 0, sizeof *t);
}

int tdb_commit(struct tdb *t) {
    if (tdb_bulk_end(t) != 0 || tdb_exec(t, "COMMIT") != 0) { tdb_abort(t); return -1; }
    /* back to msProbe's defaults so the file reads like theirs */
    if (tdb_exec(t, "PRAGMA journal_mode=DELETE") != 0) { tdb_abort(t); return -1; }
    if (sqlite3_close(t->db) != SQLITE_OK) { tdb_fail(t, "close"); tdb_abort(t); return -1; }
    t->db = NULL;
    for (int i = 0; i < 2; i++) btree_bulk_free(t->bulk[i]);
    memset(t->bulk, 0, sizeof t->bulk);
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

int tdb_create_fixed(struct tdb *t) {
    if (tdb_exec(t, SQL_TARGETS) || tdb_exec(t, SQL_METRICS) || tdb_exec(t, SQL_TAGS) || tdb_exec(t, SQL_MAPPING))
        return -1;
    return 0;
}

int tdb_create_trend(struct tdb *t, const char *const *stats, int n) {
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

static void bind_name(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    sqlite3_bind_text(st, at, ((const char *const *)ctx)[i], -1, SQLITE_STATIC);
}

int tdb_insert_metrics(struct tdb *t, const char *const *names, int n) {
    return tdb_insert_all(t, "INSERT OR IGNORE INTO monitoring_metrics (metric_name)", 1, (size_t)n, bind_name, names,
                          "insert metric");
}

/* ---- target ids ---- */

/* With a tree to be written the targets are held (tdb_bulk_end): SQLite
 * writes nothing to the file while the tree's pages go in. */
int tdb_prepare_targets(struct tdb *t, sqlite3_stmt **ins) {
    char sql[256];
    if (t->bulk[0] && !t->held) {
        if (tdb_exec(t, "PRAGMA temp_store=MEMORY; CREATE TEMP TABLE probetop_held_targets (target_id INTEGER PRIMARY "
                        "KEY, target_name TEXT, vpp_stage INTEGER, micro_step INTEGER)") != 0)
            return -1;
        t->held = 1;
    }
    snprintf(sql, sizeof sql, "INSERT INTO %s (target_id, target_name, vpp_stage, micro_step)",
             t->held ? "temp.probetop_held_targets" : "monitoring_targets");
    int rc = tdb_prepare_insert(t, sql, 4, 1, ins);
    return rc > 0 ? tdb_fail(t, "prepare") : rc;
}

int tdb_insert_target(sqlite3_stmt *ins, int64_t id, const char *name, size_t len, int32_t vpp, int32_t call) {
    sqlite3_bind_int64(ins, 1, id);
    sqlite3_bind_text(ins, 2, name, (int)len, SQLITE_TRANSIENT);
    sqlite3_bind_int(ins, 3, vpp);
    sqlite3_bind_int(ins, 4, call);
    int rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    return rc;
}

/* One INSERT OR IGNORE attempt: returns the key's index in keys, or -1. */
int64_t tdb_attempt(struct idmap *m, const char *name, size_t len, int32_t vpp, int32_t call, sqlite3_stmt *ins,
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
    if (tdb_insert_target(ins, m->seq, name, len, vpp, call) != SQLITE_DONE) return -1;
    *inserted = 1;
    return k;
}

int tdb_finish_sequence(struct tdb *t, const struct idmap *m) {
    if (!m->attempted) return 0;
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE sqlite_sequence SET seq = %lld WHERE name = 'monitoring_targets'", (long long)m->seq);
    return tdb_exec(t, sql);
}


int tdb_mkeys_add(struct mkeys *mk, uint32_t key) {
    if (util_grow0((void **)&mk->known, &mk->knowncap, (size_t)key + 1, 1) != 0) return -1;
    if (mk->known[key]) return 0;
    mk->known[key] = 1;
    if (util_grow0((void **)&mk->order, &mk->cap, mk->count + 1, sizeof *mk->order) != 0) return -1;
    mk->order[mk->count++] = key;
    return 0;
}

void tdb_mkeys_free(struct mkeys *mk) {
    free(mk->known);
    free(mk->order);
    memset(mk, 0, sizeof *mk);
}

/* ---- tags ---- */

struct tagctx {
    sqlite3_stmt *ins_tag;
    sqlite3 *db;
    struct names *seen;      /* (text, vpp = category) labels of this metric */
    int64_t *tagid;          /* per seen label */
    size_t cap;
    int64_t target;
    int64_t *links;          /* (tag id, target id) pairs, in the order emitted */
    size_t nlinks, caplinks;
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
    if (util_grow((void **)&c->links, &c->caplinks, 2 * c->nlinks + 2, sizeof *c->links) != 0) { c->failed = 1; return; }
    c->links[2 * c->nlinks] = c->tagid[k];
    c->links[2 * c->nlinks++ + 1] = c->target;
}

static void bind_link(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    const int64_t *l = (const int64_t *)ctx + 2 * i;
    sqlite3_bind_int64(st, at, l[0]);
    sqlite3_bind_int64(st, at + 1, l[1]);
}

#define TAG_LINKS_PER_INSERT 64   /* 128 variables (the old default limit: 999); a longer statement costs more to prepare than it saves */

/* n links (pairs at l) into tag_target_mapping by INSERT OR IGNORE. */
static int links_insert(struct tdb *t, const int64_t *l, size_t n) {
    static const char into[] = "INSERT OR IGNORE INTO tag_target_mapping (tag_id, target_id)";
    sqlite3_stmt *one = NULL, *many = NULL;
    int rc = 0;
    if (n) {
        int p1 = tdb_prepare_insert(t, into, 2, 1, &one);
        int pn = n >= TAG_LINKS_PER_INSERT ? tdb_prepare_insert(t, into, 2, TAG_LINKS_PER_INSERT, &many) : 0;
        if (p1 || pn < 0) rc = p1 > 0 ? tdb_fail(t, "prepare tags") : -1;   /* many failing: one at a time */
        else rc = tdb_insert(t, one, many, TAG_LINKS_PER_INSERT, 2, n, bind_link, l, "insert tags", NULL);
    }
    sqlite3_finalize(one);
    sqlite3_finalize(many);
    return rc;
}

/* Labels of every key of a metric.  Tag ids are not reproducible in msProbe
 * either (set order); rows and links are.  The links go in after the tags,
 * in the order they were emitted (the same rows and rowids as one INSERT a
 * link), TAG_LINKS_PER_INSERT to a statement: a statement per link was
 * most of the cost of the tags. */
int tdb_write_tags(struct tdb *t, const struct idmap *m, const uint32_t *keys, size_t n, int metric_id,
                      enum label_rules rules) {
    return tdb_write_tags_keep(t, m, keys, n, metric_id, rules, NULL);
}

int tdb_write_tags_keep(struct tdb *t, const struct idmap *m, const uint32_t *keys, size_t n, int metric_id,
                        enum label_rules rules, struct tdb_links *keep) {
    struct tagctx c = {.metric_id = metric_id, .db = t->db};
    if (keep) {   /* the links go on after keep's */
        c.links = keep->v;
        c.nlinks = keep->n;
        c.caplinks = keep->cap;
    }
    if (!(c.seen = names_new())) return pt_errorf(t->err, "out of memory");
    if (sqlite3_prepare_v2(t->db, "INSERT INTO monitoring_tags (tag_name, category, metric_id) VALUES (?,?,?)", -1,
                           &c.ins_tag, NULL)) {
        names_free(c.seen);
        return tdb_fail(t, "prepare tags");
    }
    for (size_t i = 0; i < n && !c.failed; i++) {
        const struct target *tg = names_target(m->keys, keys[i]);
        c.target = m->dbid[keys[i]];
        labels_derive(names_str(m->keys, keys[i]), tg->len, rules, tag_emit, &c);
    }
    sqlite3_finalize(c.ins_tag);
    names_free(c.seen);
    free(c.tagid);
    int rc = c.failed ? tdb_fail(t, "insert tags") : 0;
    if (keep) {
        keep->v = c.links;
        keep->n = c.nlinks;
        keep->cap = c.caplinks;
        return rc;
    }
    if (rc == 0) rc = links_insert(t, c.links, c.nlinks);
    free(c.links);
    return rc;
}

int tdb_dump_global_stats(struct tdb *t, int32_t max_rank, int32_t min_step, int32_t max_step) {
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


/* A monitor database's global_stats: the steps, the largest rank, and per
 * metric that had files the statistics its files had (probetop-formats(5), TREND.DB order). */
int tdb_monitor_global_stats(struct tdb *t, int32_t min_step, int32_t max_step, int32_t max_rank, uint32_t has_files,
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

/* ---- trend_data built beside SQLite (btree_bulk.h) ---- */

/* The page size of t's database when the bulk builder can write its
 * tables (a plain layout: no auto-vacuum), else 0 (INSERTs then). */
int64_t tdb_ask(struct tdb *t, const char *sql, int64_t none) {
    sqlite3_stmt *st = NULL;
    int64_t v = none;
    if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int tdb_bulk_page_size(struct tdb *t) {
    int64_t ps = tdb_ask(t, "PRAGMA page_size", 0), vac = tdb_ask(t, "PRAGMA auto_vacuum", -1);
    return vac != 0 || ps < 512 ? 0 : (int)ps;
}

/* The root page of table in t's schema, 0 when there is none. */
int64_t tdb_root_page(struct tdb *t, const char *table) {
    sqlite3_stmt *st = NULL;
    int64_t root = 0;
    if (sqlite3_prepare_v2(t->db, "SELECT rootpage FROM sqlite_master WHERE name = ?", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        root = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return root;
}

/* A tree of table for t (slot i), when the file is the plain kind. */
static int bulk_new(struct tdb *t, int i, const char *table, struct btree_bulk **bb) {
    int ps = tdb_bulk_page_size(t);
    struct pt_error e;
    *bb = NULL;
    if (!ps) return 0;
    if (t->bulk[i]) return pt_errorf(t->err, "internal: %s built twice", table);
    if (!(t->bulk_root[i] = tdb_root_page(t, table))) return tdb_fail(t, "find the bulk-built table");
    if (btree_bulk_open(&t->bulk[i], ps, &e) != 0) return pt_errorf(t->err, "%s", e.msg);
    *bb = t->bulk[i];
    return 0;
}

int tdb_bulk_open(struct tdb *t, struct btree_bulk **bb) { return bulk_new(t, 0, "trend_data", bb); }

int tdb_bulk_more(struct tdb *t, const char *table, struct btree_bulk **bb) { return bulk_new(t, 1, table, bb); }

int tdb_bulk_end(struct tdb *t) {
    int ended = 0;
    for (int i = 0; i < 2; i++) {
        if (!t->bulk[i] || !btree_bulk_started(t->bulk[i])) continue;
        if (btree_bulk_finish(t->bulk[i], t->err) != 0) return -1;
        ended = 1;
    }
    /* the connection reads the pages again (the header's change counter
     * moved on), holds the file alone again, and writes after the tree */
    if (ended && tdb_exec(t, "PRAGMA locking_mode=EXCLUSIVE; BEGIN") != 0) return -1;
    if (t->held) {   /* the targets held (tdb_prepare_targets): the same rows, in id order */
        int64_t any = tdb_ask(t, "SELECT EXISTS (SELECT 1 FROM temp.probetop_held_targets)", -1);
        if (any < 0) return tdb_fail(t, "read the held targets");
        /* none: no INSERT (an empty one would still put monitoring_targets into sqlite_sequence) */
        if (any && tdb_exec(t, "INSERT INTO main.monitoring_targets SELECT * FROM temp.probetop_held_targets ORDER BY 1; "
                               "DELETE FROM temp.probetop_held_targets") != 0)
            return -1;
    }
    return 0;
}

/* bb's pages from here on straight into the file: the other tree
 * finished, what SQLite has committed (its pages in the file, the page
 * count in the header), its lock given up (it writes nothing until
 * tdb_bulk_end; locking_mode=EXCLUSIVE would keep its pages cached past
 * the tree), the file opened for the tree. */
static int bulk_begin(struct tdb *t, struct btree_bulk *bb) {
    int i = bb == t->bulk[1];
    if (tdb_bulk_end(t) != 0 || tdb_exec(t, "PRAGMA locking_mode=NORMAL; COMMIT") != 0) return -1;
    return tdb_tree_start(t, bb, t->bulk_root[i]);
}

int tdb_bulk_add(struct tdb *t, struct btree_bulk *bb, const unsigned char *rec, size_t len) {
    if (!btree_bulk_started(bb) && bulk_begin(t, bb) != 0) return -1;
    if (btree_bulk_add(bb, rec, len) != 0)
        return pt_errorf(t->err, "%s: could not write the table's pages (disk full?)", t->final);
    return 0;
}

/* ---- tag_target_mapping built beside SQLite ---- */

/* The largest tag (c 0) or target id (c 1) of n links; -1 when one is below 0. */
static int64_t links_max(const int64_t *l, size_t n, int c) {
    int64_t max = 0;
    for (size_t i = 0; i < n; i++) {
        if (l[2 * i + c] < 0) return -1;
        if (l[2 * i + c] > max) max = l[2 * i + c];
    }
    return max;
}

/* One tree of t's file written from fd's end: opened, started on root. */
int tdb_tree_start(struct tdb *t, struct btree_bulk *bb, int64_t root) {
    int fd = open(t->tmp, O_RDWR | O_CLOEXEC);
    if (fd < 0) return pt_errorf(t->err, "%s: cannot open: %s", t->tmp, strerror(errno));
    return btree_bulk_start(bb, fd, t->tmp, root, t->err);
}

int tdb_two_trees(struct tdb *t, int ps, int64_t troot, int64_t iroot, tdb_tree_rows_fn *add, const void *ctx) {
    if (tdb_bulk_end(t) != 0 || tdb_exec(t, "PRAGMA locking_mode=NORMAL; COMMIT") != 0) return -1;
    for (int index = 0; index < 2; index++) {
        struct btree_bulk *bb = NULL;
        struct pt_error e;
        if ((index ? btree_bulk_open(&bb, ps, &e) : btree_bulk_open_intkey(&bb, ps, &e)) != 0)
            return pt_errorf(t->err, "%s", e.msg);
        int rc = tdb_tree_start(t, bb, index ? iroot : troot);
        if (rc == 0 && add(bb, index, ctx) != 0)
            rc = pt_errorf(t->err, "%s: could not write the table's pages (disk full?)", t->final);
        if (rc == 0) rc = btree_bulk_finish(bb, t->err);
        btree_bulk_free(bb);
        if (rc) return -1;
    }
    return tdb_exec(t, "PRAGMA locking_mode=EXCLUSIVE; BEGIN");
}

/* The links' rows for tdb_two_trees: n links l as (tag, target) pairs,
 * rowid[i] link i's rowid (0: a repeat, no row), ix the links in key
 * order. */
struct links_rows {
    const int64_t *l, *rowid;
    const struct radix_kv *ix;
    size_t n;
};

/* The table's rows (rowid: tag, target) in rowid order, or the index's
 * records (tag, target, rowid) in key order. */
static int links_rows(struct btree_bulk *bb, int index, const void *ctx) {
    const struct links_rows *lr = ctx;
    /* in locals: lr's fields would be read again after every add (it may change them, for all the compiler knows) */
    const int64_t *l = lr->l, *rowid = lr->rowid;
    const struct radix_kv *ix = lr->ix;
    size_t n = lr->n;
    static const uint8_t kind[3] = {BTREE_BULK_INT, BTREE_BULK_INT, BTREE_BULK_INT};
    unsigned char rec[40];
    int64_t iv[3];
    double dv[3] = {0};
    for (size_t i = 0; !index && i < n; i++) {   /* (a loop each: no test of index a row) */
        if (!rowid[i]) continue;
        iv[0] = l[2 * i];
        iv[1] = l[2 * i + 1];
        if (btree_bulk_add_row(bb, rowid[i], rec, btree_bulk_record(rec, 2, iv, dv, kind)) != 0) return -1;
    }
    for (size_t i = 0; index && i < n; i++) {
        size_t at = ix[i].val;
        if (!(iv[2] = rowid[at])) continue;
        iv[0] = l[2 * at];
        iv[1] = l[2 * at + 1];
        if (btree_bulk_add(bb, rec, btree_bulk_record(rec, 3, iv, dv, kind)) != 0) return -1;
    }
    return 0;
}

/* The rows as INSERT OR IGNORE would make them: a link already made
 * (same tag and target; the table's PRIMARY KEY) is skipped and takes no
 * rowid, the others get 1, 2, ... in the order emitted.  The table's
 * B-tree gets (rowid: tag, target) in rowid order, its PRIMARY KEY's
 * index (sqlite_autoindex_tag_target_mapping_1) the records (tag, target,
 * rowid) in key order: both what SQLite itself would hold, page layout
 * aside (the SQLite file format, "B-tree Pages"). */
static int links_bulk(struct tdb *t, int ps, const int64_t *l, size_t n, int tbits, int bits) {
    int64_t troot = tdb_root_page(t, "tag_target_mapping");
    int64_t iroot = tdb_root_page(t, "sqlite_autoindex_tag_target_mapping_1");
    if (!troot || !iroot) return tdb_fail(t, "find tag_target_mapping");
    struct radix_kv *kv = malloc(2 * n * sizeof *kv), *ix = NULL;
    int64_t *rowid = malloc(n * sizeof *rowid);
    int rc = -1;
    if (!kv || !rowid) { pt_errorf(t->err, "out of memory"); goto out; }
    /* the key (tag, target) as one integer; a stable sort keeps a key's links in the order emitted */
    for (size_t i = 0; i < n; i++) kv[i] = (struct radix_kv){(uint64_t)l[2 * i] << tbits | (uint64_t)l[2 * i + 1], i};
    if (!(ix = radix_sort_kv(kv, kv + n, n, bits))) { pt_errorf(t->err, "out of memory"); goto out; }
    for (size_t i = 0; i < n; i++)   /* 0: a repeat, no row */
        rowid[ix[i].val] = i && ix[i].key == ix[i - 1].key ? 0 : 1;
    int64_t next = 1;
    for (size_t i = 0; i < n; i++)
        if (rowid[i]) rowid[i] = next++;
    struct links_rows lr = {l, rowid, ix, n};
    rc = tdb_two_trees(t, ps, troot, iroot, links_rows, &lr);
out:
    free(kv);
    free(rowid);
    return rc;
}

int tdb_write_links(struct tdb *t, struct tdb_links *keep) {
    int ps = keep->n ? tdb_bulk_page_size(t) : 0;
    int64_t mtag = ps ? links_max(keep->v, keep->n, 0) : -1, mtarget = ps ? links_max(keep->v, keep->n, 1) : -1;
    /* ids that do not make one 64-bit key together (never seen): INSERTs */
    int tbits = mtarget >= 0 ? radix_bits((uint64_t)mtarget) : 64;
    int bits = mtag >= 0 && mtarget >= 0 ? tbits + radix_bits((uint64_t)mtag) : 65;
    int rc = bits <= 64 ? links_bulk(t, ps, keep->v, keep->n, tbits, bits) : links_insert(t, keep->v, keep->n);
    free(keep->v);
    memset(keep, 0, sizeof *keep);
    return rc;
}

/* ---- rows into a table ---- */

int tdb_prepare_insert(struct tdb *t, const char *into, int nparam, int nrows, sqlite3_stmt **st) {
    *st = NULL;
    char *sql = malloc(strlen(into) + 16 + (size_t)nrows * ((size_t)nparam * 2 + 3));
    if (!sql) return pt_errorf(t->err, "out of memory");
    size_t o = (size_t)sprintf(sql, "%s VALUES ", into);
    for (int r = 0; r < nrows; r++) {
        o += (size_t)sprintf(sql + o, "%s(?", r ? "," : "");
        for (int c = 1; c < nparam; c++) o += (size_t)sprintf(sql + o, ",?");
        o += (size_t)sprintf(sql + o, ")");
    }
    int rc = sqlite3_prepare_v2(t->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : 1;
    if (rc) {
        sqlite3_finalize(*st);
        *st = NULL;
    }
    free(sql);
    return rc;
}

int tdb_insert(struct tdb *t, sqlite3_stmt *one, sqlite3_stmt *many, int per, int nparam, size_t n, tdb_bind_fn *bind,
               const void *ctx, const char *what, size_t *changes) {
    size_t i = 0;
    for (; many && n - i >= (size_t)per; i += (size_t)per) {
        for (int r = 0; r < per; r++) bind(many, 1 + r * nparam, i + (size_t)r, ctx);
        int rc = sqlite3_step(many);
        sqlite3_reset(many);
        if (rc != SQLITE_DONE) return tdb_fail(t, what);
        if (changes) *changes += (size_t)sqlite3_changes(t->db);
    }
    for (; i < n; i++) {
        bind(one, 1, i, ctx);
        int rc = sqlite3_step(one);
        sqlite3_reset(one);
        if (rc != SQLITE_DONE) return tdb_fail(t, what);
        if (changes) *changes += (size_t)sqlite3_changes(t->db);
    }
    return 0;
}

int tdb_insert_all(struct tdb *t, const char *into, int nparam, size_t n, tdb_bind_fn *bind, const void *ctx,
                   const char *what) {
    sqlite3_stmt *st;
    int rc = tdb_prepare_insert(t, into, nparam, 1, &st);
    if (rc) return rc > 0 ? tdb_fail(t, "prepare") : -1;
    rc = tdb_insert(t, st, NULL, 0, nparam, n, bind, ctx, what, NULL);
    sqlite3_finalize(st);
    return rc;
}

int tdb_prepare_trend_insert(struct tdb *t, int nstats, int nrows, sqlite3_stmt **st) {
    return tdb_prepare_insert(t, "INSERT OR IGNORE INTO trend_data", 4 + nstats, nrows, st);
}

static void bind_row(sqlite3_stmt *st, int at, const struct tdb_row *r) {
    for (int c = 0; c < r->ncols; c++)
        if (r->kind[c] == BTREE_BULK_INT) sqlite3_bind_int64(st, at + c, r->ival[c]);
        else if (r->kind[c] == BTREE_BULK_REAL) sqlite3_bind_double(st, at + c, r->dval[c]);
        else sqlite3_bind_null(st, at + c);
}

static void bind_one_row(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    (void)i;
    bind_row(st, at, ctx);
}

int tdb_row_put(struct tdb *t, struct btree_bulk *bb, sqlite3_stmt *ins, const struct tdb_row *r, size_t *changes) {
    if (!bb) return tdb_insert(t, ins, NULL, 0, r->ncols, 1, bind_one_row, r, "insert trend rows", changes);
    unsigned char rec[9 + 9 * (4 + TDB_MAX_STATS)];
    size_t len = btree_bulk_record(rec, r->ncols, r->ival, r->dval, r->kind);
    if (tdb_bulk_add(t, bb, rec, len) != 0) return -1;
    if (changes) (*changes)++;
    return 0;
}

int tdb_prow_cmp(const struct tdb_prow *x, const struct tdb_prow *y) {
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->dbid != y->dbid) return x->dbid < y->dbid ? -1 : 1;
    return (x->metric > y->metric) - (x->metric < y->metric);
}

void tdb_prow_row(int32_t rank, const struct tdb_prow *p, int raw, struct tdb_row *out) {
    out->ncols = 8;
    out->ival[0] = rank;
    out->ival[1] = p->step;
    out->ival[2] = p->dbid;
    out->ival[3] = p->metric + 1;
    for (int c = 0; c < 4; c++) out->kind[c] = BTREE_BULK_INT;
    for (int s = 0; s < 4; s++) {
        double v = p->vals[s];
        int has = ((p->present >> s) & 1) && (raw || tdb_normalise(p->vals[s], &v));
        out->kind[4 + s] = has ? BTREE_BULK_REAL : BTREE_BULK_NULL;
        out->dval[4 + s] = has ? v : 0;
    }
}

struct prows {
    int32_t rank;
    const struct tdb_prow *v;
    int raw;
};

static void bind_prow(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    const struct prows *p = ctx;
    struct tdb_row r;
    tdb_prow_row(p->rank, &p->v[i], p->raw, &r);
    bind_row(st, at, &r);
}

int tdb_insert_prows(struct tdb *t, sqlite3_stmt *one, sqlite3_stmt *many, int32_t rank, const struct tdb_prow *rows,
                     size_t n, int raw, size_t *changes) {
    struct prows p = {rank, rows, raw};
    return tdb_insert(t, one, many, TDB_ROWS_PER_INSERT, 8, n, bind_prow, &p, "insert trend rows", changes);
}

/* ---- a shard's own tables ---- */

int tdb_shard_create(struct tdb *t) {
    if (tdb_exec(t, "CREATE TABLE probetop_shard (kind TEXT NOT NULL, k INTEGER NOT NULL, n INTEGER NOT NULL, "
                    "micro_step INTEGER NOT NULL, any_rank INTEGER NOT NULL, max_rank INTEGER, min_step INTEGER, "
                    "max_step INTEGER, rank_folders INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_files (file INTEGER PRIMARY KEY, step_group INTEGER NOT NULL, "
                    "rank INTEGER NOT NULL, micro_steps INTEGER NOT NULL, base_step INTEGER NOT NULL)") != 0 ||
        tdb_exec(t, "CREATE TABLE probetop_shard_attempts (seq INTEGER PRIMARY KEY, file INTEGER NOT NULL, "
                    "target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL)") != 0)
        return -1;
    return 0;
}

static void bind_shard_file(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    const struct tdb_shard_file *f = (const struct tdb_shard_file *)ctx + i;
    sqlite3_bind_int64(st, at, f->index);
    sqlite3_bind_int64(st, at + 1, f->group);
    sqlite3_bind_int(st, at + 2, f->rank);
    sqlite3_bind_int(st, at + 3, f->micro);
    sqlite3_bind_int(st, at + 4, f->base);
}

int tdb_shard_files(struct tdb *t, const struct tdb_shard_head *h, const struct tdb_shard_file *f, size_t n) {
    char sql[512];
    snprintf(sql, sizeof sql, "INSERT INTO probetop_shard VALUES ('%s', %d, %d, %d, %d, %d, %d, %d, %lld)", h->kind,
             h->shard_k, h->shard_n, h->micro, h->any, (int)h->max_rank, (int)h->min_step, (int)h->max_step, (long long)h->folders);
    if (tdb_exec(t, sql) != 0) return -1;
    return tdb_insert_all(t, "INSERT INTO probetop_shard_files", 5, n, bind_shard_file, f, "insert shard file");
}

static void bind_attempt(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    const struct tdb_shard_attempt *a = (const struct tdb_shard_attempt *)ctx + i;
    sqlite3_bind_int64(st, at, a->seq);
    sqlite3_bind_int64(st, at + 1, a->index);
    sqlite3_bind_int64(st, at + 2, a->target);
    sqlite3_bind_int(st, at + 3, a->metric);
}

int tdb_shard_attempts(struct tdb *t, const struct tdb_shard_attempt *a, size_t n) {
    return tdb_insert_all(t, "INSERT INTO probetop_shard_attempts", 4, n, bind_attempt, a, "insert shard attempt");
}
