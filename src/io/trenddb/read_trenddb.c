/* read_trenddb: reads a .trend.db without writing a byte (SQLite read-only,
 * no journal created), checking the schema before trusting any column. */
#include "src/io/trenddb/read_trenddb.h"
#include "model/util/util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "src/io/load.h"
#include "src/io/common/sqlite_ro.h"
#include "src/io/trenddb/write_trenddb.h"
#include "src/io/trenddb/trenddb_int.h"


static int list_dbs(const char *dir, char ***out, size_t *n) {
    DIR *d = opendir(dir);
    *out = NULL;
    *n = 0;
    if (!d) return -1;
    struct dirent *e;
    size_t cap = 0;
    while ((e = readdir(d))) {
        if (!util_ends_with(e->d_name, ".trend.db")) continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            char **x = realloc(*out, cap * sizeof *x);
            if (!x) break;
            *out = x;
        }
        if (!((*out)[*n] = strdup(e->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(*out, *n, sizeof **out, util_cmp_str);
    return 0;
}

int trenddb_detect_dir(const char *path) {
    char **v;
    size_t n;
    if (list_dbs(path, &v, &n) != 0) return 0;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    return n > 0;
}

int trenddb_has_table(sqlite3 *db, const char *name) {
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) found = 1;
    else if (rc != SQLITE_DONE) found = -1;
    sqlite3_finalize(st);
    return found;
}

/* Columns of a table (PRAGMA table_info), as names. */
int trenddb_table_columns(sqlite3 *db, const char *table, char cols[][64], int max) {
    char sql[128];
    sqlite3_stmt *st;
    int n = 0;
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == max) break;
        const unsigned char *c = sqlite3_column_text(st, 1);
        snprintf(cols[n++], 64, "%s", c ? (const char *)c : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? n : -1;
}

static int is_identifier(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

/* The four tables are there and trend_data's columns are rank, step,
 * target_id, metric_id, <statistics>; the column names of trend_data and
 * global_stats into tcols and gcols.  0, or -1 with err set. */
int trenddb_check_schema(sqlite3 *db, const char *file, char tcols[][64], int *ntc_out, char gcols[][64], int *ngc_out,
                        struct pt_error *err) {
    static const char *const need[] = {"monitoring_metrics", "monitoring_targets", "trend_data", "global_stats"};
    for (size_t i = 0; i < 4; i++) {
        int h = trenddb_has_table(db, need[i]);
        if (h < 0) {
            pt_errorf(err, "%s: not a readable SQLite database (%s)", file, sqlite3_errmsg(db));
            return -1;
        }
        if (!h) {
            pt_errorf(err, "%s: not an msProbe .trend.db: table %s is missing", file, need[i]);
            return -1;
        }
    }
    int ntc = *ntc_out = trenddb_table_columns(db, "trend_data", tcols, MAXCOLS);
    int ngc = *ngc_out = trenddb_table_columns(db, "global_stats", gcols, MAXCOLS);
    if (ntc < 0 || ngc < 0) {
        pt_errorf(err, "%s: the columns of table %s do not read (%s)", file, ntc < 0 ? "trend_data" : "global_stats",
                  sqlite3_errmsg(db));
        return -1;
    }
    if (ntc < 5 || strcmp(tcols[0], "rank") || strcmp(tcols[1], "step") || strcmp(tcols[2], "target_id") ||
        strcmp(tcols[3], "metric_id")) {
        pt_errorf(err, "%s: table trend_data: expected columns rank, step, target_id, metric_id, <statistics>", file);
        return -1;
    }
    return 0;
}

/* The metrics of monitoring_metrics into *met (allocated, every row) and the
 * builder, each with its statistic columns: those global_stats lists for
 * it that trend_data has, else every statistic column.  *dumpkind is set
 * when the metrics are a dump's (forward, backward).  0, or -1 with err
 * set. */
int trenddb_read_metrics(sqlite3 *db, const char *file, struct cube_builder *b, char tcols[][64], int ntc,
                        char gcols[][64], int ngc, char gstat[][512], struct tmetric **met, int *nmet, int *dumpkind,
                        struct pt_error *err) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT metric_id, metric_name FROM monitoring_metrics ORDER BY metric_id", -1, &st, NULL) != SQLITE_OK) {
        pt_errorf(err, "%s: table monitoring_metrics: %s", file, sqlite3_errmsg(db));
        return -1;
    }
    int src;
    size_t cap = 0, n = (size_t)*nmet;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (UTIL_PUSH(*met, n, cap) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        struct tmetric *m = &(*met)[*nmet];
        memset(m, 0, sizeof *m);
        m->id = sqlite3_column_int64(st, 0);
        const unsigned char *name = sqlite3_column_text(st, 1);
        snprintf(m->name, sizeof m->name, "%s", name ? (const char *)name : "?");
        if (!strcmp(m->name, "forward") || !strcmp(m->name, "backward")) *dumpkind = 1;
        /* statistics: the global_stats column named like the metric, checked
         * against trend_data's real columns; else every statistic column */
        const char *list = NULL;
        for (int c = 0; c < ngc; c++)
            if (!strcmp(gcols[c], m->name) && gstat[c][0]) list = gstat[c];
        const char *stats[CUBE_MAX_STATS];
        char buf[512];
        if (list) {
            snprintf(buf, sizeof buf, "%s", list);
            for (char *tok = strtok(buf, ","); tok && m->nstats < CUBE_MAX_STATS; tok = strtok(NULL, ","))
                for (int c = 4; c < ntc; c++)
                    if (!strcmp(tcols[c], tok) && is_identifier(tok)) { m->statcol[m->nstats] = c; stats[m->nstats++] = tcols[c]; }
        }
        if (!m->nstats)
            for (int c = 4; c < ntc && m->nstats < CUBE_MAX_STATS; c++) { m->statcol[m->nstats] = c; stats[m->nstats++] = tcols[c]; }
        for (int k = 0; k < m->nstats; k++)
            if (!strcmp(stats[k], "norm") || !strcmp(stats[k], "mean")) m->tells_finite |= 1u << k;
        m->cube = b ? cube_builder_metric(b, m->name, m->nstats, stats) : *nmet;
        if (m->cube < 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        n = (size_t)++*nmet;
    }
    sqlite3_finalize(st);
    /* a page of the table that does not read ends the loop early: the
     * metrics after it would be missing without a word */
    if (src != SQLITE_DONE)
        return pt_errorf(err, "%s: table monitoring_metrics, row %d: %s", file, *nmet + 1, sqlite3_errmsg(db));
    return 0;
}

uint32_t trenddb_decode_row(sqlite3_stmt *st, const struct tmetric *m, double *v) {
    uint32_t present = 0, null = 0;
    int finite = 0;
    for (int s = 0; s < m->nstats; s++) {
        int c = m->statcol[s];
        present |= 1u << s;
        /* msProbe stores NaN as NULL in a row that exists (a value it has
         * not has no row): probetop-formats(5), TREND.DB */
        if (sqlite3_column_type(st, c) == SQLITE_NULL) { v[s] = NAN; null |= 1u << s; continue; }
        double x = sqlite3_column_double(st, c);
        /* msProbe stores +-Inf as +-(1e9 + 1): give the infinities back */
        if (x == 1000000001.0) x = INFINITY;
        else if (x == -1000000001.0) x = -INFINITY;
        v[s] = x;
        finite |= (m->tells_finite >> s) & 1 && isfinite(x);
    }
    /* a NaN element makes the norm and the mean NaN, an infinity makes the
     * norm infinite: with either finite, a NULL is no NaN of the tensor */
    return finite ? present & ~null : present;
}

/* trend_data's rows into the builder (+-(1e9 + 1) back to +-Inf, NULL to
 * NaN); *bad counts rows naming an unknown target or metric, *off those whose
 * rank or step is no integer (off the axes, as the lazy open leaves them).
 * 0, or -1 with err set. */
static int read_rows(sqlite3 *db, const char *file, struct cube_builder *b, const struct trenddb_head *h,
                     size_t *bad_out, size_t *off_out, struct pt_error *err) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT * FROM trend_data", -1, &st, NULL) != SQLITE_OK) {
        pt_errorf(err, "%s: table trend_data: %s", file, sqlite3_errmsg(db));
        return -1;
    }
    size_t row = 0, bad = 0, off = 0;
    int rc = -1;
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        row++;
        int32_t rank, step;
        if (trenddb_key_of(st, 0, &rank) || trenddb_key_of(st, 1, &step)) { off++; continue; }
        int64_t tid = sqlite3_column_int64(st, 2), mid = sqlite3_column_int64(st, 3);
        const struct tmetric *m = trenddb_metric_of(h, mid);
        size_t ti = trenddb_target_index(h, tid);
        if (!m || ti == SIZE_MAX) { bad++; continue; }
        double v[CUBE_MAX_STATS];
        uint32_t present = trenddb_decode_row(st, m, v);
        if (cube_builder_add(b, m->cube, h->idmap_local[ti], step, rank, v, present) != 0) {
            pt_errorf(err, "out of memory");
            goto done;
        }
    }
    if (src != SQLITE_DONE) {
        pt_errorf(err, "%s: table trend_data, row %zu: %s", file, row + 1, sqlite3_errmsg(db));
        goto done;
    }
    rc = 0;
done:
    *bad_out = bad;
    *off_out = off;
    sqlite3_finalize(st);
    return rc;
}

int trenddb_read_head(sqlite3 *db, const char *file, struct cube_builder *b, struct names *tn, struct trenddb_head *h,
                      struct pt_error *err) {
    sqlite3_stmt *st = NULL;
    memset(h, 0, sizeof *h);
    if (trenddb_check_schema(db, file, h->tcols, &h->ntc, h->gcols, &h->ngc, err) != 0) return -1;
    /* ranges and per-metric statistics: the last global_stats row */
    if (sqlite3_prepare_v2(db, "SELECT * FROM global_stats ORDER BY ROWID DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return pt_errorf(err, "%s: table global_stats: %s", file, sqlite3_errmsg(db));
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        for (int c = 0; c < h->ngc; c++) {
            if (!strcmp(h->gcols[c], "max_rank")) h->max_rank = sqlite3_column_int64(st, c);
            else if (!strcmp(h->gcols[c], "min_step")) h->min_step = sqlite3_column_int64(st, c);
            else if (!strcmp(h->gcols[c], "max_step")) h->max_step = sqlite3_column_int64(st, c);
            else if (sqlite3_column_type(st, c) == SQLITE_TEXT)
                snprintf(h->gstat[c], sizeof h->gstat[c], "%s", (const char *)sqlite3_column_text(st, c));
        }
    sqlite3_finalize(st);
    st = NULL;
    if (src != SQLITE_ROW && src != SQLITE_DONE)
        return pt_errorf(err, "%s: table global_stats: %s", file, sqlite3_errmsg(db));
    if (trenddb_read_metrics(db, file, b, h->tcols, h->ntc, h->gcols, h->ngc, h->gstat, &h->met, &h->nmet, &h->dumpkind,
                             err) != 0)
        return -1;
    /* targets in target_id order, so ascending id is msProbe's order */
    if (sqlite3_prepare_v2(db, "SELECT target_id, target_name, vpp_stage, micro_step FROM monitoring_targets ORDER BY target_id",
                           -1, &st, NULL) != SQLITE_OK)
        return pt_errorf(err, "%s: table monitoring_targets: %s", file, sqlite3_errmsg(db));
    size_t cap = 0;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 1);
        int len = sqlite3_column_bytes(st, 1);
        uint32_t id = names_intern(tn, name ? (const char *)name : "", name ? (size_t)len : 0,
                                   sqlite3_column_int(st, 2), sqlite3_column_int(st, 3));
        if (h->nids == cap) {
            cap = cap ? cap * 2 : 1024;
            int64_t *a = realloc(h->idmap_db, cap * sizeof *a);
            uint32_t *l = a ? realloc(h->idmap_local, cap * sizeof *l) : NULL;
            if (a) h->idmap_db = a;
            if (l) h->idmap_local = l;
            if (!a || !l) { sqlite3_finalize(st); return pt_errorf(err, "out of memory"); }
        }
        if (id == NAMES_NONE) { sqlite3_finalize(st); return pt_errorf(err, "out of memory"); }
        h->idmap_db[h->nids] = sqlite3_column_int64(st, 0);
        h->idmap_local[h->nids++] = id;
    }
    sqlite3_finalize(st);
    /* a page that does not read ends the walk: the targets after it would
     * be missing, and their rows "name an unknown target" */
    if (src != SQLITE_DONE)
        return pt_errorf(err, "%s: table monitoring_targets, row %zu: %s", file, h->nids + 1, sqlite3_errmsg(db));
    return 0;
}

void trenddb_head_free(struct trenddb_head *h) {
    if (!h) return;
    free(h->idmap_db);
    free(h->idmap_local);
    free(h->met);
    free(h);
}

size_t trenddb_target_index(const struct trenddb_head *h, int64_t tid) {
    size_t lo = 0, hi = h->nids;   /* target ids ascend */
    while (lo < hi) {
        size_t mi = (lo + hi) / 2;
        if (h->idmap_db[mi] < tid) lo = mi + 1; else hi = mi;
    }
    return lo < h->nids && h->idmap_db[lo] == tid ? lo : SIZE_MAX;
}

/* file: the name messages give; db: open on it (closed here). */
static int load_db(const char *file, sqlite3 *db, uint64_t budget, struct dataset *ds, struct pt_error *err) {
    struct trenddb_ivec ranks = {0}, steps = {0};
    struct names *nm = NULL;
    struct cube_builder *b = NULL;
    struct trenddb_head *h = calloc(1, sizeof *h);
    int rc = -1;
    if (!h) { pt_errorf(err, "out of memory"); goto out; }
    if (!(nm = names_new()) || !(b = cube_builder_new(nm))) { nm = NULL; pt_errorf(err, "out of memory"); goto out; }
    nm = NULL;
    if (trenddb_read_head(db, file, b, cube_builder_names(b), h, err) != 0) goto out;
    /* the axes the lazy open has (one walk for both ways in) */
    if (trenddb_axes(db, file, h, &ranks, &steps, err) != 0) goto out;
    for (size_t i = 0; i < ranks.n; i++)
        if (cube_builder_rank(b, (int32_t)ranks.v[i]) != 0) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < steps.n; i++)
        if (cube_builder_step(b, (int32_t)steps.v[i], (int32_t)steps.v[i], -1) != 0) { pt_errorf(err, "out of memory"); goto out; }
    size_t bad = 0, off = 0;
    if (read_rows(db, file, b, h, &bad, &off, err) != 0) goto out;
    if (bad) dataset_warn(ds, "%s: %zu trend_data rows name an unknown target or metric: skipped", file, bad);
    if (off) dataset_warn(ds, "%s: %zu trend_data rows have a rank or step that is not an integer: skipped", file, off);
    /* the dense cube within --mem, counted before it is allocated */
    cube_builder_budget(b, budget);
    if (cube_builder_finish(b, &ds->cube, err) != 0) goto out;
    for (int m = 0; m < ds->cube->nmetrics; m++)   /* targets NULL throughout: no tensor */
        ds->notensor_rows += cube_null_targets_notensor(ds->cube, m, ds->cube->metrics[m].vals);
    /* either kind of database: its metrics say which label rules its names follow */
    ds->labels = h->dumpkind ? LABELS_DUMP : LABELS_MONITOR;
    ds->files_read++;
    rc = 0;
out:
    free(ranks.v);
    free(steps.v);
    sqlite3_close(db);
    cube_builder_free(b);
    names_free(nm);
    trenddb_head_free(h);
    return rc;
}

/* Ctrl-C or q while a database loads (probetop(1)): a query under way
 * stops within a few thousand of SQLite's steps, whatever it walks. */
static int on_progress(void *cancel) { return atomic_load((atomic_int *)cancel) != 0; }

/* The load of db (consumed, and src with it when given: db reads the
 * file), stoppable by o->cancel.  0, 1 when the file changed while it was
 * read (read it again), or -1 with err. */
static int load_any(const char *file, sqlite3 *db, struct sqlite_ro_src *src, const struct load_opts *o,
                    struct dataset *ds, struct pt_error *err) {
    if (o->cancel) sqlite3_progress_handler(db, 4096, on_progress, o->cancel);
    int rc;
    if (src && o->lazy) {
        rc = trenddb_open_lazy(file, db, src, o, ds, err);
    } else {
        rc = load_db(file, db, o->mem_budget, ds, err);
        if (src && sqlite_ro_changed(src)) {   /* torn by a writer, whatever it gave */
            cube_free(ds->cube);
            ds->cube = NULL;
            rc = 1;
        }
        sqlite_ro_src_free(src);
    }
    if (rc != 0 && o->cancel && atomic_load(o->cancel)) return pt_errorf(err, "cancelled");
    return rc;
}

/* file read in place, and again from a private snapshot when another
 * process changed it meanwhile (probetop-formats(5), SQLITE INPUTS). */
static int load_file(const char *file, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    for (int copy = o->snapshot; copy < 2; copy++) {
        sqlite3 *db;
        struct sqlite_ro_src src;
        if (sqlite_ro_open_src(file, copy, &db, &src, err) != 0) return -1;
        if (src.wal)
            dataset_warn(ds, "%s: its last transactions are in %s-wal: read with them, from a private copy of both",
                         file, file);
        int rc = load_any(file, db, &src, o, ds, err);
        if (rc <= 0) return rc;
    }
    return pt_errorf(err, "%s changed while it was read, also from its snapshot", file);
}

static int is_shard(const char *name) {
    return !strncmp(name, "dump_data.shard-", 16) || !strncmp(name, "monitor_data.shard-", 19);
}

int trenddb_load(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct stat st;
    char file[4096];
    if (stat(path, &st) != 0) return pt_errorf(err, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        if (list_dbs(path, &ds->dbfiles, &ds->ndbfiles) != 0 || ds->ndbfiles == 0)
            return pt_errorf(err, "%s: no *.trend.db file in this folder", path);
        /* shards of data2db --shard: one run, joined in a private temporary
         * database; never read while a set is incomplete or half-written */
        int plain = 0;
        for (size_t i = 0; i < ds->ndbfiles; i++) plain |= !is_shard(ds->dbfiles[i]);
        int dumps = trenddb_shards_present(path, 0), monitors = trenddb_shards_present(path, 1);
        if ((dumps || monitors) && !o->db_name && !plain) {   /* dump shards first, as data2db writes */
            sqlite3 *db;
            if (trenddb_merge_temp(path, !dumps, &db, err) != 0) return -1;
            snprintf(file, sizeof file, "%s/%s_data.shard-*.trend.db", path, dumps ? "dump" : "monitor");
            free(ds->source);
            ds->source = strdup(file);
            ds->micro_step = -1;
            return load_any(file, db, NULL, o, ds, err);
        }
        const char *pick = ds->dbfiles[0];
        for (size_t i = ds->ndbfiles; i-- > 0;)   /* a shard alone only by name (--db) */
            if (!is_shard(ds->dbfiles[i])) pick = ds->dbfiles[i];
        if (o->db_name) {
            pick = NULL;
            for (size_t i = 0; i < ds->ndbfiles; i++)
                if (!strcmp(ds->dbfiles[i], o->db_name)) pick = ds->dbfiles[i];
            if (!pick) return pt_errorf(err, "%s: no %s here (--db); found %s", path, o->db_name, ds->dbfiles[0]);
        }
        snprintf(file, sizeof file, "%s/%s", path, pick);
    } else {
        snprintf(file, sizeof file, "%s", path);
    }
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) return pt_errorf(err, "%s: not a regular file", file);
    if (st.st_size == 0) return pt_errorf(err, "%s: empty file, not an SQLite database", file);
    free(ds->source);
    ds->source = strdup(file);
    ds->micro_step = -1;   /* the database decided */
    return load_file(file, o, ds, err);
}

/* ---- the reader table's row (formats.h) ---- */

static int has_sqlite_magic(const char *path) {
    FILE *f = fopen(path, "rb");
    char buf[16] = {0};
    if (!f) return 0;
    size_t n = fread(buf, 1, 16, f);
    fclose(f);
    return n == 16 && !memcmp(buf, "SQLite format 3", 16);
}

/* A file named *.db or starting as SQLite files do; a folder of *.trend.db
 * files (a dump or monitor folder beside them wins: the rows before). */
static int detect_trenddb(const char *path, const struct stat *st) {
    if (S_ISREG(st->st_mode)) return util_ends_with(path, ".db") || has_sqlite_magic(path) ? 100 : 0;
    return trenddb_detect_dir(path) ? 100 : 0;
}

const struct formats_row formats_row_trenddb = {
    .name = "trenddb",
    .what = ".trend.db",
    .detect = detect_trenddb,
    .load = trenddb_load,
    .labels = LABELS_DUMP,   /* refined by the database's metrics */
};
