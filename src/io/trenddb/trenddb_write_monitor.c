/* trenddb_write_monitor: `probetop data2db` on a monitor CSV tree
 * (write_trenddb.h): monitor_data.trend.db, or one shard of it
 * (probetop-formats(5), TREND.DB and MONITOR CSV TREES).  The monitor's
 * own part of the writer: the targets metric by metric in msProbe's
 * order, then the rows rank by rank in key order, summarized on the way;
 * the file and its tables are tdb.c's. */
#include "src/io/trenddb/write_trenddb.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/cube/names.h"
#include "model/util/fs.h"
#include "model/util/pool.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/trenddb/tdb.h"
#include "src/io/trenddb/tdb_monprep.h"
#include "src/io/trenddb/tdb_monsum.h"
#include "src/io/trenddb/tdb_runs.h"
#include "src/io/trenddb/tdb_spool.h"
#include "model/util/radix.h"
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

/* ---- the rows as they are read (monitor_rank_fn) ----
 *
 * Target ids are msProbe's: its importer attempts them metric by metric
 * over the whole tree, so no row's id is known before the last rank is
 * read.  Each rank's rows go, as read, onto a spool (an anonymous
 * temporary file) as records keyed by their target as first seen here;
 * the attempts are noted in the order the rows met them.  After the read
 * the attempts are replayed metric by metric (the ids), and the spool is
 * read back a rank at a time, each rank's rows sorted into trend_data's
 * key order, built in that order and summarized on the way.  Only the rank
 * being read or written is ever in memory, and on more than one thread the
 * next one, read back and sorted beside (tdb_monprep). */

struct sattempt {            /* a target's first row of a metric, in the order rows came */
    uint32_t skey, file;     /* file: its place among the files written */
    uint8_t metric;
};

struct sstep {               /* micro steps: per step as read, its micro steps */
    int32_t step, count;
};

struct mon_stream {
    const struct load_opts *lo;
    const struct trenddb_monitor_src *src;
    struct pt_error *err;
    struct names *skeys;     /* (name, vpp, call) of every row, first seen first */
    struct { uint32_t *skey; int32_t *vpp, *call; size_t n; } memo;   /* pool name -> its last skey */
    uint8_t *known[MONITOR_NMETRICS];   /* per skey: attempted for the metric */
    size_t knowncap[MONITOR_NMETRICS];
    struct sattempt *att;
    size_t natt, capatt;
    struct tdb_spool spool;
    struct schunk *chunk;
    size_t nchunk, capchunk;
    size_t nfiles;           /* files written so far (their metric is msProbe's) */
    int any_step;
    int32_t min_step, max_step;
    struct sstep *steps;     /* micro_step: sorted by step */
    size_t nsteps, capsteps, laststep;
    int32_t max_rank_rows;   /* -1: no row */
    size_t rows;             /* rows spooled */
};

static int ms_oom(struct mon_stream *w) { return pt_errorf(w->err, "out of memory"); }

/* The skey of row r (call: its micro step when those tell targets apart). */
static uint32_t ms_skey(struct mon_stream *w, const struct monitor_data *md, const struct monitor_row *r,
                        int32_t call) {
    if (r->name >= w->memo.n) {
        size_t n = names_count(md->pool);
        if (n <= r->name) n = (size_t)r->name + 1;
        uint32_t *k = realloc(w->memo.skey, n * sizeof *k);
        if (k) w->memo.skey = k;
        int32_t *v = realloc(w->memo.vpp, n * sizeof *v);
        if (v) w->memo.vpp = v;
        int32_t *c = realloc(w->memo.call, n * sizeof *c);
        if (c) w->memo.call = c;
        if (!k || !v || !c) return NAMES_NONE;
        for (size_t i = w->memo.n; i < n; i++) w->memo.skey[i] = NAMES_NONE;
        w->memo.n = n;
    }
    uint32_t k = w->memo.skey[r->name];
    if (k != NAMES_NONE && w->memo.vpp[r->name] == r->vpp && w->memo.call[r->name] == call) return k;
    const char *nm = monitor_name(md, r);
    k = names_intern(w->skeys, nm, strlen(nm), r->vpp, call);
    w->memo.skey[r->name] = k;
    w->memo.vpp[r->name] = r->vpp;
    w->memo.call[r->name] = call;
    return k;
}

/* micro_step: step as read has a micro step micro (its count at least micro + 1). */
static int ms_step(struct mon_stream *w, int32_t step, int32_t micro) {
    size_t i = w->laststep;
    if (!(i < w->nsteps && w->steps[i].step == step)) {
        size_t lo = 0, hi = w->nsteps;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (w->steps[mid].step < step) lo = mid + 1;
            else hi = mid;
        }
        i = lo;
        if (i == w->nsteps || w->steps[i].step != step) {
            if (util_grow((void **)&w->steps, &w->capsteps, w->nsteps + 1, sizeof *w->steps) != 0) return -1;
            memmove(w->steps + i + 1, w->steps + i, (w->nsteps - i) * sizeof *w->steps);
            w->steps[i] = (struct sstep){.step = step, .count = 0};
            w->nsteps++;
        }
        w->laststep = i;
    }
    if (micro + 1 > w->steps[i].count) w->steps[i].count = micro + 1;
    return 0;
}

/* One row of f (its metric m) onto the spool, into chunk ck; col[s]:
 * statistic s's place among a row's values in f->vals (ms_rank). */
static int ms_row(struct mon_stream *w, const struct monitor_data *md, const struct monitor_file *f, size_t k, int m,
                  const uint8_t *col, struct schunk *ck) {
    const struct monitor_row *row = &f->rows[k];
    int micro_step = w->lo->micro_step;
    int32_t call = micro_step ? 0 : row->micro;
    uint32_t skey = ms_skey(w, md, row, call);
    if (skey == NAMES_NONE) return ms_oom(w);
    if (skey >= w->knowncap[m] && util_grow0((void **)&w->known[m], &w->knowncap[m], (size_t)skey + 1, 1) != 0)
        return ms_oom(w);
    if (!w->known[m][skey]) {
        w->known[m][skey] = 1;
        if (util_grow((void **)&w->att, &w->capatt, w->natt + 1, sizeof *w->att) != 0) return ms_oom(w);
        w->att[w->natt++] = (struct sattempt){.skey = skey, .file = (uint32_t)(w->nfiles - 1), .metric = (uint8_t)m};
    }
    if (!micro_step) {
        if (!w->any_step || row->step < w->min_step) w->min_step = row->step;
        if (!w->any_step || row->step > w->max_step) w->max_step = row->step;
        w->any_step = 1;
    } else {
        /* micro_step 2000000000 in one row would lay out two billion steps */
        if (row->micro >= CUBE_MAX_STEPS)
            return pt_errorf(w->err, "%s: micro_step %ld at step %ld: more than the %d steps probetop lays out",
                             f->path, (long)row->micro, (long)row->step, CUBE_MAX_STEPS);
        if (ms_step(w, row->step, row->micro) != 0) return ms_oom(w);
    }
    /* the record written in place on the spool (tdb_monprep.h): the
     * values but the +0.0s as they are walked, then the rest */
    unsigned char *at = tdb_spool_room(&w->spool, SREC_MAX);
    if (!at) return pt_errorf(w->err, "%s: could not spool the rows into " TDB_SPOOL_FILE ": %s", f->path, tdb_spool_why(&w->spool));
    unsigned char *vals = at + SREC_HEAD;
    const double *src = f->vals + k * (size_t)f->nval;
    /* only the statistics the file holds and the row has, each read at its
     * place (col): no walk of the absent ones; has is all of them but the
     * NaNs (rare: taken out as met) */
    uint32_t has = f->valmask & row->present & ((1u << MONITOR_NSTATS_TDB) - 1), zeros = 0;
    unsigned nv = 0;
    for (uint32_t vm = has; vm; vm &= vm - 1) {
        int s = __builtin_ctz(vm);
        double y;
        if (!tdb_normalise(src[col[s]], &y)) {
            has &= ~(1u << s);
            continue;
        }
        tdb_zval_put(vals, &nv, &zeros, s, y);
    }
    struct srec h = {.skey = skey, .step = row->step, .micro = row->micro, .metric = (uint8_t)m, .nv = (uint8_t)nv,
                     .has = (uint16_t)has, .zeros = (uint16_t)zeros};
    size_t len = srec_put(at, &h);
    tdb_spool_wrote(&w->spool, len);
    ck->bytes += len;
    ck->n++;
    w->rows++;
    return 0;
}

/* monitor_rank_fn: a rank folder's files onto the spool. */
static int ms_rank(void *arg, const struct monitor_data *md, size_t first, struct dataset *ds) {
    struct mon_stream *w = arg;
    (void)ds;
    if (w->lo->cancel && atomic_load(w->lo->cancel)) return pt_errorf(w->err, "interrupted");
    if (!w->spool.f && !(w->spool.f = tmpfile())) return pt_errorf(w->err, "no temporary file for the rows");
    for (size_t i = first; i < md->nfiles; i++) {
        const struct monitor_file *f = &md->files[i];
        int m = w->src && w->src->metric_of ? w->src->metric_of(w->src->arg, f->metric)
                                            : (f->metric >= 0 && f->metric < MONITOR_NMETRICS ? f->metric : -1);
        if (m < 0) continue;
        w->nfiles++;
        if (!f->nrows) continue;
        if (!w->nchunk || w->chunk[w->nchunk - 1].rank != f->rank) {
            if (util_grow((void **)&w->chunk, &w->capchunk, w->nchunk + 1, sizeof *w->chunk) != 0) return ms_oom(w);
            w->chunk[w->nchunk++] = (struct schunk){.rank = f->rank, .off = w->spool.off};
        }
        if (f->rank > w->max_rank_rows) w->max_rank_rows = f->rank;
        uint8_t col[MONITOR_NSTATS];   /* per statistic: its place in a row's values (valmask's bits in order) */
        uint8_t nc = 0;
        for (int s = 0; s < MONITOR_NSTATS; s++) col[s] = (f->valmask >> s) & 1 ? nc++ : 0;
        struct schunk *ck = &w->chunk[w->nchunk - 1];   /* no grow of chunk before the next file */
        for (size_t k = 0; k < f->nrows; k++)
            if (ms_row(w, md, f, k, m, col, ck) != 0) return -1;
    }
    return 0;
}

static void ms_free(struct mon_stream *w) {
    names_free(w->skeys);
    free(w->memo.skey);
    free(w->memo.vpp);
    free(w->memo.call);
    for (int m = 0; m < MONITOR_NMETRICS; m++) free(w->known[m]);
    free(w->att);
    tdb_spool_close(&w->spool);
    free(w->chunk);
    free(w->steps);
}

/* The step axis (monitor_steps) from what the rows had. */
static int ms_steps(const struct mon_stream *w, const struct monitor_data *md, struct monitor_steps *s,
                    struct pt_error *err) {
    memset(s, 0, sizeof *s);
    s->micro = w->lo->micro_step;
    if (!s->micro) {
        s->min_step = w->any_step ? w->min_step : 0;
        s->max_step = w->any_step ? w->max_step : 0;
        return 0;
    }
    size_t u = w->nsteps;
    s->orig = malloc((u ? u : 1) * sizeof *s->orig);
    s->count = calloc(u ? u : 1, sizeof *s->count);
    s->offset = calloc(u ? u : 1, sizeof *s->offset);
    if (!s->orig || !s->count || !s->offset) { monitor_steps_free(s); return pt_errorf(err, "out of memory"); }
    s->n = u;
    for (size_t j = 0; j < u; j++) {
        s->orig[j] = w->steps[j].step;
        s->count[j] = w->steps[j].count;
    }
    return monitor_steps_layout(s, md->nfiles ? md->files[0].path : "monitor data", err);
}

/* The attempts, metric by metric in the fixed order, as msProbe's importer
 * makes them: the targets' ids (dbid per skey), each metric's keys in mk;
 * for a shard every attempt also kept in *att (files named by fkey).  0, or
 * -1 with t's error set. */
static int ms_targets(struct tdb *t, const struct mon_stream *w, uint32_t has_rows, const int64_t *fkey,
                      struct idmap *ids, struct mkeys *mk, int64_t *dbid, int shard, struct tdb_shard_attempt **att,
                      size_t *natt, size_t *capatt) {
    sqlite3_stmt *ins_target = NULL;
    int rc = -1;
    if (tdb_prepare_targets(t, &ins_target) != 0) return -1;
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        if (!(has_rows & (1u << m))) continue;
        for (size_t i = 0; i < w->natt; i++) {
            const struct sattempt *a = &w->att[i];
            if (a->metric != m) continue;
            const struct target *tg = names_target(w->skeys, a->skey);
            int ins;
            int64_t key = tdb_attempt(ids, names_str(w->skeys, a->skey), tg->len, tg->vpp, tg->call, ins_target, &ins);
            if (key < 0 || tdb_mkeys_add(&mk[m], (uint32_t)key) != 0) {
                tdb_fail(t, "insert target");
                goto out;
            }
            dbid[a->skey] = ids->dbid[key];
            if (shard) {
                if (util_grow0((void **)att, capatt, *natt + 1, sizeof **att) != 0) {
                    pt_errorf(t->err, "out of memory");
                    goto out;
                }
                (*att)[(*natt)++] = (struct tdb_shard_attempt){.seq = ids->seq, .index = fkey[a->file],
                                                         .target = ids->dbid[key], .metric = m + 1};
            }
        }
    }
    rc = 0;
out:
    sqlite3_finalize(ins_target);
    return rc;
}

/* Writing trend_data from the spool. */
_Static_assert(TDB_MAX_STATS <= BTREE_BULK_IR_MAX, "mon_row_out: a row's columns in one btree_bulk_ir record");
_Static_assert(MONITOR_NMETRICS < 64, "mon_row_out: a metric_id in 6 bits of tdb_summary_pack_head's byte");
struct mon_rows {
    struct tdb *t;
    int colidx[MONITOR_NSTATS];   /* per monitor_stat_names index: its column, -1 none */
    int nc;
    struct btree_bulk *bb;   /* NULL: INSERTs */
    sqlite3_stmt *ins_row;
    struct tdb_summary *summ;
    struct tdb_summary_head shead;   /* what its row's head needs */
    /* the summary's rows, rank by rank in key order, on a spool of their
     * own (as the summary makes them, packed: tdb_summary_pack_head),
     * and per rank where each window of wsteps steps starts in it */
    struct tdb_spool sspool;
    int32_t step0, wsteps;
    size_t nwin;
    uint64_t *woff;          /* per chunk: nwin + 1 offsets */
    uint64_t *wrows;         /* per chunk: nwin row counts (the unpack's room made at once) */
    struct mon_keys keys;    /* how the ranks are read back and sorted */
    struct mon_pipe *pipe;   /* the ranks read back and sorted, into two sets when helped */
    size_t rows;
};

/* One row (the first of its key; rec: its record) into trend_data and the
 * rank's summary, on one walk of its values: the summary's row, and the
 * table's record (btree_bulk_ir_keys, _real: the keys, each column's type,
 * the values of those present, columns ascending as statistics are),
 * which goes straight to the tree; by INSERT (val, present) when there is
 * none. */
static int mon_row_out(struct mon_rows *w, int32_t rank, const struct mrow *r, const char *rec,
                       struct tdb_summary_prev *prev) {
    const unsigned char *p = (const unsigned char *)rec;
    uint32_t rhas = srec_u16(p + 1), rzeros = srec_zeros(p);
    const unsigned char *vals = p + SREC_HEAD;
    uint32_t has = 0, finite = 0;
    /* the summary's row, made on the same walk, packed in place on the
     * spool (tdb_summary_pack_head; e: tdb_summary_val's statistics) */
    double e[5 + TDB_MAX_STATS];
    unsigned char *packed = NULL;
    unsigned nv = 0;
    uint32_t zeros = 0;
    if (w->summ && !(packed = tdb_spool_room(&w->sspool, TDB_SUMMARY_PACKED_MAX)))
        return pt_errorf(w->t->err, "%s: could not spool the rank summary's rows into " TDB_SPOOL_FILE ": %s", w->t->final,
                         tdb_spool_why(&w->sspool));
    int64_t key[4] = {rank, r->step, r->dbid, r->metric};
    /* room for the 8-byte stores past the last value (btree_bulk_put_be) */
    unsigned char out[9 + 9 * (4 + TDB_MAX_STATS)];
    unsigned char *o = btree_bulk_ir_keys(out, 4, key, w->nc);
    unsigned k = 0;   /* the record's values: one per bit of has but its zeros, in order */
    for (uint32_t hm = rhas & ((1u << MONITOR_NSTATS_TDB) - 1); hm; hm &= hm - 1) {
        int st = __builtin_ctz(hm), c = w->colidx[st];
        double v = tdb_zval(vals, rzeros, st, &k);
        if (c < 0) continue;
        o = btree_bulk_ir_real(out, 4, o, c, v);
        if (packed && tdb_summary_val(e, c, v, &has, &finite))
            tdb_zval_put(packed + TDB_SUMMARY_PACK_VALS, &nv, &zeros, c, e[5 + c]);
    }
    if (packed)
        tdb_spool_wrote(&w->sspool, tdb_summary_pack_head(packed, w->shead, prev, r->step, r->dbid, (uint8_t)r->metric, has,
                                                          finite, nv, zeros));
    w->rows++;
    if (w->bb) return tdb_bulk_add(w->t, w->bb, out, (size_t)(o - out));
    /* by INSERT (rare: no tree built beside SQLite): the values walked again
     * into their columns, not kept on the usual path's walk */
    double val[MONITOR_NSTATS];   /* read only where present says */
    uint32_t present = 0;
    k = 0;
    for (uint32_t hm = rhas & ((1u << MONITOR_NSTATS_TDB) - 1); hm; hm &= hm - 1) {
        int st = __builtin_ctz(hm), c = w->colidx[st];
        double v = tdb_zval(vals, rzeros, st, &k);
        if (c < 0) continue;
        val[c] = v;
        present |= 1u << c;
    }
    struct tdb_row row = {.ncols = 4 + w->nc};
    for (int c = 0; c < 4; c++) {
        row.kind[c] = BTREE_BULK_INT;
        row.ival[c] = key[c];
    }
    /* every statistic's slot, those past nc unread: a bound the compiler
     * sees (4 + nc made -O3 warn of a store past kind[], stringop-overflow) */
    for (int c = 0; c < TDB_MAX_STATS; c++) {
        int real = (present >> c) & 1;
        row.kind[4 + c] = real ? BTREE_BULK_REAL : BTREE_BULK_NULL;
        row.dval[4 + c] = real ? val[c] : 0;
    }
    return tdb_row_put(w->t, NULL, w->ins_row, &row, NULL);
}

/* The rows of a rank as they come in key order: the first of each key out,
 * the summary's windows noted on the way. */
struct mon_out {
    struct mon_rows *w;
    int32_t rank;
    uint64_t *woff, *wrows;
    size_t win;
    int any;
    struct mrow prev;
    struct tdb_summary_prev sprev;   /* the summary's row before (packed against it), zeroed at each window */
};

static int mon_out_row(struct mon_out *o, const struct mrow *r, const char *rec) {
    struct mon_rows *w = o->w;
    if (o->any && o->prev.step == r->step && o->prev.dbid == r->dbid && o->prev.metric == r->metric) return 0;
    o->prev = *r;
    o->any = 1;
    if (w->summ)   /* the windows up to this row's start here */
    {
        for (size_t k = (size_t)(((int64_t)r->step - w->step0) / w->wsteps); o->win <= k && o->win < w->nwin; o->win++) {
            o->woff[o->win] = w->sspool.off;
            o->sprev = (struct tdb_summary_prev){0};   /* a window is unpacked on its own (tdb_summary_unpack_rows) */
        }
        o->wrows[o->win - 1]++;   /* the row's window: the last one started */
    }
    return mon_row_out(w, o->rank, r, rec, &o->sprev);
}

static int mon_out_merged(void *arg, const void *key, const void *rec, uint32_t len) {
    struct mrow r;
    (void)len;
    memcpy(&r, key, sizeof r);
    return mon_out_row(arg, &r, rec) != 0 ? 2 : 0;   /* 2: the error is set */
}

/* A rank's records (chunk c, read back and sorted in s) in key order;
 * of two rows of one key the first read wins, as with INSERT OR IGNORE. */
static int mon_rank_out(struct mon_rows *w, struct mon_set *s, const struct schunk *c, uint64_t *woff, uint64_t *wrows) {
    struct mon_out o = {.w = w, .rank = c->rank, .woff = woff, .wrows = wrows};
    if (s->in_runs) {
        int rc = tdb_runs_merge(s->runs, w->keys.budget / 2, mon_out_merged, &o);
        if (rc == -1) return pt_errorf(w->t->err, "could not read the sort's runs back (disk full?)");
        if (rc) return -1;
    } else
        for (size_t i = 0; i < s->n; i++) {
            struct mrow r = mon_set_row(&w->keys, s, &s->sorted[i]);
            if (mon_out_row(&o, &r, s->buf + r.at) != 0) return -1;
        }
    for (; w->summ && o.win <= w->nwin; o.win++) woff[o.win] = w->sspool.off;
    return 0;
}

/* The write phase on two cores (util_pool_for): job 0 puts the ranks'
 * rows into trend_data (mon_rank_out, rank by rank), spooling the
 * summary's rows and posting each rank as it is out; the other jobs make
 * the rank summary from that spool (tdb_monsum).  Indices are taken in
 * order, so job 0 always runs first or beside the others, never behind a
 * job that waits for it; on one thread they run one after the other.
 * The same bytes either way. */
struct mon_par {
    struct mon_rows *w;
    const struct mon_stream *ms;
    const struct tdb *t;
    struct tdb_monsum *sum;
};

/* Job 0: every rank into trend_data, posted one by one, each read back
 * and sorted by whoever came to it first (tdb_monprep: here, or a summary
 * job while it waited for the rank before).  The copy of the tdb has this
 * job's error (the bulk build touches no SQLite statement). */
static int par_rows(struct mon_par *p, struct pt_error *e) {
    struct mon_rows *w = p->w;
    struct tdb tw = *p->t;   /* this job's error; the tdb itself when on the caller's */
    tw.err = e;
    w->t = e == p->t->err ? (struct tdb *)p->t : &tw;
    int rc = 0;
    struct mon_set *s;
    for (size_t i = 0; i < p->ms->nchunk && rc == 0; i++) {
        if (tw.cancel && atomic_load(tw.cancel)) rc = pt_errorf(e, "%s: interrupted", tw.final);
        else if (!(s = mon_pipe_take(w->pipe, i, e)) ||
                 mon_rank_out(w, s, &p->ms->chunk[i], w->woff ? w->woff + i * (w->nwin + 1) : NULL,
                              w->wrows ? w->wrows + i * w->nwin : NULL) != 0)
            rc = -1;
        else if (w->summ && tdb_spool_flush(&w->sspool) != 0)
            rc = pt_errorf(e, "%s: could not spool the rank summary's rows into " TDB_SPOOL_FILE ": %s", tw.final,
                           tdb_spool_why(&w->sspool));
        else {
            mon_pipe_release(w->pipe, i);   /* before the post: a job it wakes may fill rank i + 2 */
            tdb_monsum_post(p->sum, i + 1, NULL);
        }
    }
    w->t = (struct tdb *)p->t;
    if (rc != 0) tdb_monsum_post(p->sum, 0, e);
    return rc;
}

static int par_job(void *ctx, size_t i, struct pt_error *e) {
    struct mon_par *p = ctx;
    return i == 0 ? par_rows(p, e) : tdb_monsum_job(p->sum, i - 1, e);
}

/* Every rank out, and the summary (parts: sum->run and ->groups on the
 * pool, or sum->all fed on this thread after the rows, or none).  0, or
 * -1 with t's error set. */
static int mon_rows_all(struct mon_rows *w, const struct mon_stream *ms, struct tdb_monsum *sum) {
    struct mon_par p = {.w = w, .ms = ms, .t = w->t, .sum = sum};
    int32_t *rank = malloc((ms->nchunk ? ms->nchunk : 1) * sizeof *rank);
    if (!rank) return pt_errorf(w->t->err, "out of memory");
    for (size_t i = 0; i < ms->nchunk; i++) rank[i] = ms->chunk[i].rank;
    sum->t = w->t;
    sum->fd = w->sspool.f ? fileno(w->sspool.f) : -1;
    sum->nc = w->nc;
    sum->nchunk = ms->nchunk;
    sum->nwin = w->nwin;
    sum->rank = rank;
    sum->woff = w->woff;
    sum->wrows = w->wrows;
    tdb_monsum_init(sum);
    /* two sets when a summary job may fill the next rank beside the writer */
    struct mon_pipe pipe;
    int helped = sum->groups[0] && util_pool_threads(2) > 1;
    w->keys.fd = ms->spool.f ? fileno(ms->spool.f) : -1;
    w->keys.final = w->t->final;
    mon_pipe_init(&pipe, &w->keys, ms->chunk, ms->nchunk, helped ? 2 : 1, tdb_monsum_wake, sum);
    w->pipe = &pipe;
    if (helped) {
        sum->help = mon_pipe_help;
        sum->help_arg = &pipe;
    }
    int rc;
    if (sum->groups[0]) rc = util_pool_for(1 + TDB_MONSUM_JOBS, par_job, &p, w->t->err);
    else if ((rc = par_rows(&p, w->t->err)) == 0 && sum->all) rc = tdb_monsum_all(sum, w->t->err);
    mon_pipe_done(&pipe);
    w->pipe = NULL;
    tdb_monsum_done(sum);
    free(rank);
    return rc;
}

/* A rank's spooled records sorted in memory at most (bytes; about 40 a
 * row, packed (tdb_monprep.h), and 32 more for its key and the sort's
 * copy of it): a bigger rank is sorted in runs of this size, merged
 * (tdb_runs).  Per set: with two (tdb_monprep) twice this at most.  40
 * MiB and their keys take the memory 48 MiB of the 54-byte records before
 * the packing did (a monitor row: 39 bytes now), so the bound stays; a
 * rank sorted in memory then is still, unless its rows shrank by less
 * than a sixth (many values, few +0.0). */
#define MON_SORT_BYTES ((size_t)40 << 20)

/* Keys the summary holds at once, about (each some 300 bytes, a few copies:
 * every part's accumulators and rows, four parts on the pool).  Small:
 * that memory is pages touched new, which cost more than the few more
 * reads (one per rank and window) and segments; the table is the same
 * for any window (probetop(1), PROBETOP_SUMMARY_WINDOW) */
#define MON_SUMMARY_WINDOW_KEYS 4096

/* Per skey (n of them) the place of its target id among them all
 * (*trank: the sort's key for the id, in fewer bits), *bits the bits of
 * the places.  0, or -1 without memory. */
static int mon_target_ranks(const int64_t *dbid, size_t n, uint32_t **trank, int *bits) {
    struct radix_kv *a = malloc((n ? n : 1) * sizeof *a), *tmp = malloc((n ? n : 1) * sizeof *tmp), *r;
    int64_t most = 0;
    uint32_t place = 0;
    *trank = malloc((n ? n : 1) * sizeof **trank);
    for (size_t i = 0; a && i < n; i++) {
        a[i] = (struct radix_kv){.key = (uint64_t)dbid[i], .val = i};
        if (dbid[i] > most) most = dbid[i];
    }
    int rc = a && tmp && *trank && (r = radix_sort_kv(a, tmp, n, radix_bits((uint64_t)most))) ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (i && r[i].key != r[i - 1].key) place++;
        (*trank)[r[i].val] = place;
    }
    *bits = radix_bits(place);
    free(a);
    free(tmp);
    return rc;
}

/* The spooled rows into trend_data (nc columns, colidx: the column of each
 * statistic, cols their names), counting them in *rows, and the rank
 * summary.  Ranks ascending: each rank's rows sorted go into the table built
 * in key order (bb; NULL: by INSERTs), its summary made on the way; ranks in
 * any other order go in by INSERTs, the summary from the table after.  0,
 * or -1 with t's error set. */
static int ms_insert_rows(struct tdb *t, struct mon_stream *ms, const struct monitor_steps *st,
                          const int64_t *dbid, const int *metric_id, const int *colidx, const char *const *cols,
                          int nc, struct btree_bulk *bb, size_t *rows) {
    struct mon_rows w = {.t = t, .nc = nc};
    struct tdb_monsum sum = {0};
    uint32_t *trank = NULL;
    int ordered = 1, rc = -1, kbits;
    if (mon_target_ranks(dbid, names_count(ms->skeys), &trank, &kbits) != 0) {
        free(trank);
        return pt_errorf(t->err, "out of memory");
    }
    w.keys = (struct mon_keys){.st = st, .dbid = dbid, .metric_id = metric_id, .trank = trank, .kbits = kbits};
    for (int s = 0; s < MONITOR_NSTATS; s++) w.colidx[s] = -1;
    for (int c = 0; c < nc; c++) w.colidx[colidx[c]] = c;
    const char *sb = getenv("PROBETOP_SORT_BYTES");   /* probetop(1), ENVIRONMENT */
    w.keys.budget = sb && atoll(sb) >= 1024 ? (size_t)atoll(sb) : MON_SORT_BYTES;   /* a record is < 200 bytes */
    for (size_t i = 1; i < ms->nchunk; i++)
        if (ms->chunk[i].rank <= ms->chunk[i - 1].rank) ordered = 0;
    w.bb = ordered ? bb : NULL;
    int prc = w.bb ? 0 : tdb_prepare_trend_insert(t, nc, 1, &w.ins_row);
    if (prc != 0) {
        free(trank);
        return prc > 0 ? tdb_fail(t, "prepare") : -1;
    }
    if (ordered && ms->max_rank_rows + 1 >= SUMMARY_MIN_RANKS) {
        /* windows of steps holding about MON_SUMMARY_WINDOW_KEYS keys of the biggest rank */
        size_t most = 1;
        for (size_t i = 0; i < ms->nchunk; i++)
            if (ms->chunk[i].n > most) most = ms->chunk[i].n;
        const char *env = getenv("PROBETOP_SUMMARY_WINDOW");   /* probetop(1), ENVIRONMENT */
        int64_t keys = env && atoll(env) > 0 ? atoll(env) : MON_SUMMARY_WINDOW_KEYS;
        int64_t nsteps = (int64_t)st->max_step - st->min_step + 1, ws = nsteps;
        if ((int64_t)most > keys) ws = nsteps * keys / (int64_t)most;
        w.step0 = st->min_step;
        w.wsteps = (int32_t)(ws < 1 ? 1 : ws);
        w.nwin = (size_t)((nsteps + w.wsteps - 1) / w.wsteps);
        /* in parts on the pool when built beside SQLite (tdb_monsum) */
        if (tdb_monsum_open(&sum, t, nc, cols, ms->max_rank_rows, w.nwin) != 0) goto out;
        w.summ = sum.all ? sum.all : sum.run[0];
        w.shead = tdb_summary_head(w.summ);
        if (!(w.sspool.f = tmpfile())) { pt_errorf(t->err, "no temporary file for the rank summary"); goto out; }
        if (!(w.woff = calloc(ms->nchunk * (w.nwin + 1) + 1, sizeof *w.woff)) ||
            !(w.wrows = calloc(ms->nchunk * w.nwin + 1, sizeof *w.wrows))) {
            pt_errorf(t->err, "out of memory");
            goto out;
        }
    }
    if (ms->spool.f && tdb_spool_flush(&ms->spool) != 0) {
        pt_errorf(t->err, "%s: could not spool the rows into " TDB_SPOOL_FILE ": %s", t->final, tdb_spool_why(&ms->spool));
        goto out;
    }
    if (mon_rows_all(&w, ms, &sum) != 0) goto out;
    if (w.summ && tdb_monsum_finish(&sum, t) != 0) goto out;
    if (!ordered && tdb_summary_from_table(t) != 0) goto out;
    *rows = w.rows;
    rc = 0;
out:
    sqlite3_finalize(w.ins_row);
    tdb_monsum_free(&sum);
    tdb_spool_close(&w.sspool);
    free(w.woff);
    free(w.wrows);
    free(trank);
    return rc;
}

/* The tables from what the read left: md (the files, without rows), ms
 * (the attempts, the spooled rows).  Returns 0, or -1 with err set. */
static int ms_write(const char *data, struct monitor_data *md, struct mon_stream *ms, const char *outdir,
                    const struct load_opts *lo, struct dataset *ds, struct tdb_result *res, struct pt_error *err) {
    int shard_k = lo->shard_k, shard_n = lo->shard_n, shard = shard_n > 0;
    int64_t *fkey = NULL, *dbid = NULL;
    struct tdb_shard_attempt *att = NULL;
    size_t natt = 0, capatt = 0;
    char dbname[96];
    struct monitor_steps st = {0};
    struct tdb t = {0};
    struct idmap ids = {0};
    struct mkeys mk[MONITOR_NMETRICS];
    struct btree_bulk *bb = NULL;    /* trend_data built in key order beside SQLite (t's) */
    int rc = -1;
    memset(mk, 0, sizeof mk);
    monitor_keep_trenddb(md, data, ds);   /* only what msProbe's data2db imports */
    if (md->nfiles != ms->nfiles)
        return pt_errorf(err, "internal: %zu files read, %zu written", ms->nfiles, md->nfiles);
    if (shard) snprintf(dbname, sizeof dbname, "monitor_data.shard-%d-of-%d.trend.db", shard_k, shard_n);
    else snprintf(dbname, sizeof dbname, "monitor_data.trend.db");
    if (shard && (!md->metric_has_files || !md->statmask))
        /* nothing of msProbe's to write here, but the set needs this shard:
         * the merge says what the whole run lacks */
        return write_empty_monitor_shard(md, outdir, dbname, lo, ds, res, err);
    if (!md->metric_has_files)
        return pt_errorf(err, "%s: no <metric>_<a>-<b>.csv file in the rank folders: no database written%s%s%s", data,
                         ds->nwarnings ? " (first note: " : "", ds->nwarnings ? ds->warnings[0] : "",
                         ds->nwarnings ? ")" : "");
    if (!md->statmask) return pt_errorf(err, "%s: no CSV file has a supported statistic column (norm, min, max, ...)", data);
    if (ms_steps(ms, md, &st, err) != 0) goto out;
    if (!(ids.keys = names_new()) || !(dbid = calloc(names_count(ms->skeys) + 1, sizeof *dbid))) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    if (tdb_open(&t, outdir, dbname, 16384, lo, ds, err) != 0 || tdb_create_fixed(&t) != 0) goto out;
    /* a file's place in the whole run: its rank, then its place among that rank's files */
    if (!(fkey = calloc(md->nfiles ? md->nfiles : 1, sizeof *fkey))) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0, first = 0; i < md->nfiles; i++) {
        if (i && md->files[i].rank != md->files[i - 1].rank) first = i;
        fkey[i] = ((int64_t)md->files[i].rank << 20) | (int64_t)(i - first);
    }
    if (ms_targets(&t, ms, md->metric_has_rows, fkey, &ids, mk, dbid, shard, &att, &natt, &capatt) != 0) goto out;
    if (tdb_finish_sequence(&t, &ids) != 0) goto out;
    const char *present[MONITOR_NMETRICS];
    int metric_id[MONITOR_NMETRICS], np = 0;
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        metric_id[m] = 0;
        if (md->metric_has_rows & (1u << m)) { present[np++] = monitor_metric_names[m]; metric_id[m] = np; }
    }
    if (tdb_insert_metrics(&t, present, np) != 0) goto out;
    uint32_t mstat[MONITOR_NMETRICS] = {0};
    for (size_t i = 0; i < md->nfiles; i++) mstat[md->files[i].metric] |= md->files[i].statmask;
    if (tdb_monitor_global_stats(&t, st.min_step, st.max_step, md->max_rank, md->metric_has_files, mstat) != 0) goto out;
    /* trend_data with the union of the supported columns */
    const char *cols[MONITOR_NSTATS];
    int colidx[MONITOR_NSTATS], nc = 0;
    for (int s = 0; s < MONITOR_NSTATS; s++)
        if (md->statmask & (1u << s)) { colidx[nc] = s; cols[nc++] = monitor_stat_names[s]; }
    if (tdb_create_trend(&t, cols, nc) != 0) goto out;
    for (int m = 0; m < MONITOR_NMETRICS; m++)
        if (metric_id[m] && tdb_write_tags(&t, &ids, mk[m].order, mk[m].count, metric_id[m], LABELS_MONITOR) != 0) goto out;
    if (tdb_bulk_open(&t, &bb) != 0) goto out;
    if (ms_insert_rows(&t, ms, &st, dbid, metric_id, colidx, cols, nc, bb, &res->rows) != 0) goto out;
    if (tdb_bulk_end(&t) != 0) goto out;   /* the trees in the file: SQLite writes again */
    if (shard && write_monitor_shard_tables(&t, shard_k, shard_n, lo->micro_step, md, &st, fkey, att, natt, metric_id) != 0)
        goto out;
    res->targets = names_count(ids.keys);
    res->max_step = st.max_step;
    res->max_rank = md->max_rank;
    res->shard_k = shard_k;
    res->shard_n = shard_n;
    if (shard && md->nfiles) {
        res->min_rank = md->files[0].rank;
        res->max_rank = md->files[md->nfiles - 1].rank;
    }
    snprintf(res->path, sizeof res->path, "%s", t.final);
    if (tdb_commit(&t) != 0) goto out;
    rc = 0;
out:
    if (t.db || t.tmp) tdb_abort(&t);
    names_free(ids.keys);
    free(ids.dbid);
    free(dbid);
    for (int m = 0; m < MONITOR_NMETRICS; m++) tdb_mkeys_free(&mk[m]);
    free(fkey);
    free(att);
    monitor_steps_free(&st);
    return rc;
}

int trenddb_write_monitor_src(const char *data, const struct trenddb_monitor_src *src, const char *outdir,
                              const struct load_opts *lo, struct dataset *ds, struct tdb_result *res,
                              struct pt_error *err) {
    struct mon_stream ms = {.lo = lo, .src = src, .err = err, .max_rank_rows = -1};
    struct monitor_data md;
    memset(res, 0, sizeof *res);
    if (!(ms.skeys = names_new())) return pt_errorf(err, "out of memory");
    int rc = src->read(src->arg, data, lo, ms_rank, &ms, ds, &md, err);
    if (rc == 0) {
        if (src->after) src->after(src->arg, &md, data, ds);
        rc = ms_write(data, &md, &ms, outdir, lo, ds, res, err);
        monitor_free(&md);
    }
    ms_free(&ms);
    return rc;
}

/* A v1 tree, its rows streamed. */
static int v1_read(void *arg, const char *data, const struct load_opts *lo, monitor_rank_fn rank_done, void *rank_arg,
                   struct dataset *ds, struct monitor_data *md, struct pt_error *err) {
    struct mapping map = {0};
    (void)arg;
    if (lo->mapping && mapping_read(lo->mapping, &map, err) != 0) return -1;
    int rc = monitor_read_streamed(data, &map, lo->layout, lo->shard_k, lo->shard_n, rank_done, rank_arg, ds, md, err);
    mapping_free(&map);
    return rc;
}

int trenddb_write_monitor(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                          struct tdb_result *res, struct pt_error *err) {
    static const struct trenddb_monitor_src v1 = {.read = v1_read};
    return trenddb_write_monitor_src(data, &v1, outdir, lo, ds, res, err);
}

int trenddb_write_monitor_shard(const char *data, const char *outdir, const struct load_opts *lo, int shard_k,
                                int shard_n, struct dataset *ds, struct tdb_result *res, struct pt_error *err) {
    struct load_opts o = *lo;
    o.shard_k = shard_k;
    o.shard_n = shard_n;
    return trenddb_write_monitor(data, outdir, &o, ds, res, err);
}
