/* read_trenddb: the reader table's row for .trend.db files and folders of
 * them (a set of shards joined first): reads a database without writing a
 * byte (SQLite read-only, no journal created), whole into the cube, or
 * hands it to the lazy open (trenddb_lazy.c).  What both ways read before
 * the rows -- the schema, checked before any column is trusted, and the
 * head -- is trenddb_head.c's. */
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
#include "src/io/trenddb/trenddb_head.h"
#include "src/io/trenddb/trenddb_lazy.h"


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
    for (size_t i = 0; i < ranks.count; i++)
        if (cube_builder_rank(b, (int32_t)ranks.vals[i]) != 0) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < steps.count; i++)
        if (cube_builder_step(b, (int32_t)steps.vals[i], (int32_t)steps.vals[i], -1) != 0) { pt_errorf(err, "out of memory"); goto out; }
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
    free(ranks.vals);
    free(steps.vals);
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
    /* cancelled also when the file was small enough to be read before
     * SQLite's first progress call: the caller asked for no data */
    if (o->cancel && atomic_load(o->cancel)) return pt_errorf(err, "cancelled");
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
