/* trenddb_write_monitor: `probetop data2db` on a monitor CSV tree
 * (write_trenddb.h): monitor_data.trend.db, or one shard of it
 * (probetop-formats(5), TREND.DB and MONITOR CSV TREES).  The monitor's
 * own part of the writer: the targets metric by metric in msProbe's
 * order, then the rows rank by rank in key order, summarized on the way;
 * the file and its tables are tdb.c's. */
#include "src/io/trenddb/write_trenddb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/names.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/trenddb/tdb.h"
#include "src/io/trenddb/tdb_summary.h"

/* A monitor shard's own tables (see probetop(1), FILES): the dump's, with a
 * file named by fkey (rank << 20 | place among its rank's files), plus per
 * metric its id here and what its files had, and the micro steps per step. */
static int write_monitor_shard_tables(struct tdb *t, int k, int n, int micro, const struct monitor_data *md,
                                      const struct monitor_steps *st, const int64_t *fkey,
                                      const struct tdb_shard_attempt *att, size_t natt, const int *metric_id) {
    char sql[512];
    struct tdb_shard_head h = {.kind = "monitor", .shard_k = k, .shard_n = n, .micro = micro, .any = md->nfiles > 0,
                               .max_rank = md->max_rank, .min_step = st ? st->min_step : 0,
                               .max_step = st ? st->max_step : 0, .folders = md->folders_all};
    struct tdb_shard_file *files = calloc(md->nfiles ? md->nfiles : 1, sizeof *files);
    if (!files) return pt_errorf(t->err, "out of memory");
    for (size_t i = 0; i < md->nfiles; i++) files[i] = (struct tdb_shard_file){.index = fkey[i], .rank = md->files[i].rank};
    int rc = tdb_shard_create(t) != 0 ||
                     tdb_exec(t, "CREATE TABLE probetop_shard_metrics (metric TEXT PRIMARY KEY, metric_id INTEGER NOT NULL, "
                                 "has_files INTEGER NOT NULL, has_rows INTEGER NOT NULL, statistics INTEGER NOT NULL)") != 0 ||
                     tdb_exec(t, "CREATE TABLE probetop_shard_steps (step INTEGER PRIMARY KEY, micro_steps INTEGER NOT NULL, "
                                 "base_step INTEGER NOT NULL)") != 0 ||
                     tdb_shard_files(t, &h, files, md->nfiles) != 0
                 ? -1
                 : 0;
    free(files);
    if (rc != 0) return -1;
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
    return tdb_shard_attempts(t, att, natt);
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
    if (tdb_open(&t, outdir, dbname, 2048, lo, ds, err) != 0 || tdb_create_fixed(&t) != 0 ||
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
                           struct idmap *ids, struct mkeys *mk, struct tdb_shard_attempt **att, size_t *natt,
                           size_t *capatt) {
    sqlite3_stmt *ins_target = NULL;
    int rc = -1;
    if (tdb_prepare_targets(t, &ins_target) != 0) return -1;
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
                int64_t key = tdb_attempt(ids, nm, len, f->rows[k].vpp, call, ins_target, &ins);
                if (key < 0 || tdb_mkeys_add(&mk[m], (uint32_t)key) != 0) {
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
                    (*att)[(*natt)++] = (struct tdb_shard_attempt){.seq = ids->seq, .index = fkey[i],
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
                               int nc, int micro_step, struct btree_bulk *bb, size_t *rows);

int trenddb_write_monitor_data(const char *data, struct monitor_data *mdp, const char *outdir,
                               const struct load_opts *lo, struct dataset *ds, struct tdb_result *res,
                               struct pt_error *err) {
    struct monitor_data md = *mdp;   /* taken over: freed here */
    int shard_k = lo->shard_k, shard_n = lo->shard_n, shard = shard_n > 0;
    int64_t *fkey = NULL;
    struct tdb_shard_attempt *att = NULL;
    size_t natt = 0, capatt = 0;
    char dbname[96];
    struct monitor_steps st = {0};
    struct tdb t = {0};
    struct idmap ids = {0};
    struct mkeys mk[MONITOR_NMETRICS];
    struct btree_bulk *bb = NULL;    /* trend_data built in key order beside SQLite */
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
    if (tdb_open(&t, outdir, dbname, 262144, lo, ds, err) != 0 || tdb_create_fixed(&t) != 0) goto out;
    /* a file's place in the whole run: its rank, then its place among that rank's files */
    if (!(fkey = calloc(md.nfiles ? md.nfiles : 1, sizeof *fkey))) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0, first = 0; i < md.nfiles; i++) {
        if (i && md.files[i].rank != md.files[i - 1].rank) first = i;
        fkey[i] = ((int64_t)md.files[i].rank << 20) | (int64_t)(i - first);
    }
    if (monitor_targets(&t, &md, lo->micro_step, shard, fkey, &ids, mk, &att, &natt, &capatt) != 0) goto out;
    if (tdb_finish_sequence(&t, &ids) != 0) goto out;
    const char *present[MONITOR_NMETRICS];
    int metric_id[MONITOR_NMETRICS], np = 0;
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        metric_id[m] = 0;
        if (md.metric_has_rows & (1u << m)) { present[np++] = monitor_metric_names[m]; metric_id[m] = np; }
    }
    if (tdb_insert_metrics(&t, present, np) != 0) goto out;
    uint32_t mstat[MONITOR_NMETRICS] = {0};
    for (size_t i = 0; i < md.nfiles; i++) mstat[md.files[i].metric] |= md.files[i].statmask;
    if (tdb_monitor_global_stats(&t, st.min_step, st.max_step, md.max_rank, md.metric_has_files, mstat) != 0) goto out;
    /* trend_data with the union of the supported columns */
    const char *cols[MONITOR_NSTATS];
    int colidx[MONITOR_NSTATS], nc = 0;
    for (int s = 0; s < MONITOR_NSTATS; s++)
        if (md.statmask & (1u << s)) { colidx[nc] = s; cols[nc++] = monitor_stat_names[s]; }
    if (tdb_create_trend(&t, cols, nc) != 0) goto out;
    for (int m = 0; m < MONITOR_NMETRICS; m++)
        if (metric_id[m] && tdb_write_tags(&t, &ids, mk[m].order, mk[m].count, metric_id[m], LABELS_MONITOR) != 0) goto out;
    if (tdb_bulk_open(&t, outdir, dbname, ds, &bb) != 0) goto out;
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
    if (bb && tdb_bulk_attach(&t, bb) != 0) goto out;
    if (tdb_commit(&t) != 0) goto out;
    rc = 0;
out:
    if (t.db || t.tmp) tdb_abort(&t);
    btree_bulk_free(bb);
    names_free(ids.keys);
    free(ids.dbid);
    for (int m = 0; m < MONITOR_NMETRICS; m++) tdb_mkeys_free(&mk[m]);
    free(fkey);
    free(att);
    monitor_steps_free(&st);
    monitor_free(&md);
    return rc;
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
    struct btree_bulk *bb;   /* NULL: INSERTs */
    sqlite3_stmt *ins_row;
    struct tdb_summary *summ;
    struct mrow *v;
    size_t n, cap, rows;
    struct pmemo memo;       /* pool name -> key in ids */
};

/* One row (the first of its key) into trend_data and the rank's summary. */
static int mon_row_out(struct mon_rows *w, int32_t rank, const struct mrow *r) {
    const struct monitor_file *f = &w->md->files[r->file];
    const struct monitor_row *row = &f->rows[r->row];
    struct tdb_row out = {.ncols = 4 + w->nc, .ival = {rank, r->step, r->dbid, r->metric}};
    uint32_t present = 0;
    for (int c = 0; c < 4; c++) out.kind[c] = BTREE_BULK_INT;
    for (int c = 0; c < w->nc; c++) {
        int s = w->colidx[c];
        double v;
        int has = ((row->present >> s) & 1) && tdb_normalise(monitor_value(f, r->row, s), &v);
        out.kind[4 + c] = has ? BTREE_BULK_REAL : BTREE_BULK_NULL;
        out.dval[4 + c] = has ? v : 0;
        present |= (uint32_t)has << c;
    }
    if (w->summ && tdb_summary_add(w->summ, r->step, r->dbid, r->metric, out.dval + 4, present) != 0)
        return pt_errorf(w->t->err, "out of memory");
    w->rows++;
    return tdb_row_put(w->t, w->bb, w->ins_row, &out, NULL);
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
    if (w->summ && w->n) {   /* a rank with rows: into the summary */
        if (tdb_summary_rank(w->summ, rank) != 0) return pt_errorf(w->t->err, "out of memory");
        if (tdb_summary_flush(w->t, w->summ) != 0) return -1;
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
                               int nc, int micro_step, struct btree_bulk *bb, size_t *rows) {
    struct mon_rows w = {.t = t, .md = md, .st = st, .ids = ids, .metric_id = metric_id, .colidx = colidx, .nc = nc,
                         .micro_step = micro_step};
    int ordered = 1, rc = -1;
    int32_t max_rank = -1;
    for (size_t i = 0; i < md->nfiles; i++) {
        if (i && md->files[i].rank < md->files[i - 1].rank) ordered = 0;
        if (metric_id[md->files[i].metric] && md->files[i].nrows && md->files[i].rank > max_rank)
            max_rank = md->files[i].rank;
    }
    w.bb = ordered ? bb : NULL;
    if (pmemo_init(&w.memo, md) != 0) { pmemo_free(&w.memo); return pt_errorf(t->err, "out of memory"); }
    int prc = w.bb ? 0 : tdb_prepare_trend_insert(t, nc, 1, &w.ins_row);
    if (prc != 0) {
        pmemo_free(&w.memo);
        return prc > 0 ? tdb_fail(t, "prepare") : -1;
    }
    if (ordered && max_rank + 1 >= SUMMARY_MIN_RANKS) {
        if (!(w.summ = tdb_summary_new(nc, cols, max_rank))) { pt_errorf(t->err, "out of memory"); goto out; }
        if (tdb_summary_open(t, w.summ) != 0) goto out;
    }
    for (size_t a = 0, b; a < md->nfiles; a = b) {
        for (b = a + 1; b < md->nfiles && md->files[b].rank == md->files[a].rank; b++) {}
        if (t->cancel && atomic_load(t->cancel)) { pt_errorf(t->err, "%s: interrupted", t->final); goto out; }
        if (mon_rank_out(&w, a, b) != 0) goto out;
    }
    if (w.summ && tdb_summary_finish(t, w.summ) != 0) goto out;
    if (!ordered && tdb_summary_from_table(t) != 0) goto out;
    *rows = w.rows;
    rc = 0;
out:
    sqlite3_finalize(w.ins_row);
    tdb_summary_free(w.summ);
    pmemo_free(&w.memo);
    free(w.v);
    return rc;
}
