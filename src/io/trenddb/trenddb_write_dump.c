/* trenddb_write_dump: `probetop data2db` on a dump (write_trenddb.h):
 * dump_data.trend.db, or one shard of it, written while the dump is read
 * (probetop-formats(5), TREND.DB; probetop-rules(7), LABELS; probetop-rules(7),
 * TREND TARGETS).  The dump's own part of the writer: the order files come
 * in, msProbe's batches of target id attempts replayed over them, and the
 * rows of each file in key order; the file and its tables are tdb.c's. */
#define _GNU_SOURCE   /* qsort_r */
#include "src/io/trenddb/write_trenddb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/names.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/dump/read_dump.h"
#include "src/io/trenddb/tdb.h"
#include "model/util/radix.h"
#include "model/util/shelf.h"
#include "src/io/trenddb/tdb_summary.h"

/* Files come rank by rank (dump_opts.rank_major), each rank's in step
 * order: their rows, sorted by key, go in as each file comes, appended to
 * the table (its key is (rank, step, target, metric)) while the next files
 * parse.  Target ids are msProbe's: the replay of its INSERT OR IGNORE
 * attempts runs over the files in the list's order (step, then rank), as
 * far as the files read so far allow; a row's id is final once its target
 * had its first attempt, and a file waits (with every later one) until all
 * of its rows have theirs. */

struct rankrows {           /* the rank going in */
    int32_t rank;
    struct tdb_prow *rows;
    size_t count, cap;
};

struct rfile {               /* a file's rows as the id replay needs them */
    uint32_t *key;           /* per row: its target (ids.keys) */
    uint32_t *entry;         /* per row: its record (msProbe flushes between records) */
    uint8_t *metric;
    size_t kcap, ecap, mcap;   /* their sizes in bytes (spare_take) */
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
    size_t vcap, ocap;       /* v's and order's sizes in bytes (spare_take) */
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

struct dump_writer {
    struct tdb t;
    /* Buffers of files gone in, kept for the next files: a file's arrays (a
     * few MB: 61 bytes a row) taken fresh from malloc and freed after it went
     * in were, as often as not, new pages to fault in (glibc hands the top of
     * its heap back and maps big blocks anew): dump_writer_file's first
     * touches were a quarter of data2db's page faults on a dump.  The next
     * file of a run is mostly of the same size: a new buffer is made an
     * eighth larger (UTIL_SHELF_SLACK); the 8 largest kept, no bound. */
    struct util_shelf spare;
    struct idmap ids;        /* keys: every target of a row read; dbid 0 until its first attempt */
    struct mkeys mk[DM_N];
    int metric_order[DM_N], nmetric_order;
    unsigned metric_seen;    /* bit m: m in metric_order (a row's test, not a walk of it) */
    uint32_t *stamp[DM_N];   /* per key: the last batch it was fresh in, for this metric */
    size_t stampcap[DM_N];
    uint32_t batch;
    struct { uint32_t key; uint8_t metric; } *fresh;   /* keys new to a metric since the last flush */
    size_t nfresh, capfresh;
    uint32_t *held;          /* keys given ids while SQLite may not write (the tdb holds targets), in id order */
    size_t nheld, capheld;
    struct rfile *rf;        /* per place in the list */
    size_t caprf, replayed;  /* rf[0..replayed) are replayed */
    struct qfile *q;         /* files waiting for ids, in arrival order */
    size_t nq, capq;
    struct rankrows cur;     /* the rank going in, for its summary */
    struct tdb_summary *summ;   /* NULL: no summary made on the way */
    int summ_off;            /* the rank summary comes from the table at the end */
    int32_t max_rank_rows;   /* the last rank with rows (-1: none) */
    int rank_major;          /* files come rank by rank (else in the list's order) */
    sqlite3_stmt *ins_target, *ins_row, *ins_rows;   /* one row, TDB_ROWS_PER_INSERT rows */
    struct radix_kv *sortkey;  /* scratch of insert_file: keys, and as many for the sort */
    size_t capsortkey;
    struct lastfile last;
    struct btree_bulk *bb;   /* trend_data built in key order beside SQLite (t's; NULL: INSERTs) */
    int64_t lastkey[4];      /* bb: the last row's (rank, step, target, metric) */
    int haslast;
    int bb_refused;          /* bb: a row not after the one before (read again with INSERTs) */
    struct pt_error *err;
    struct dataset *ds;
    /* --shard: what the merge needs to replay the unsharded run (see
     * probetop(1), FILES: the files read, every target id attempt) */
    int shard;
    size_t cur_index;        /* the file being replayed: its place in the whole list */
    struct tdb_shard_file *sfiles;
    size_t nsfiles, capsfiles;
    struct tdb_shard_attempt *satt;
    size_t nsatt, capsatt;
    size_t rows_in;          /* rows inserted (duplicates ignored) */
};

/* A buffer of at least `bytes` (*cap its size) off the spares' shelf
 * (util_shelf_get's rule), or p (of cap bytes; NULL: none) given back to
 * it.  NULL when out of memory.  The size comes back through a local: cap
 * itself handed to the shelf would make the caller's struct escape (its
 * fields reloaded in dump_writer_file's row loop: 1 M instructions more
 * at 134 MB, callgrind). */
static void *spare_take(struct dump_writer *w, size_t bytes, size_t *cap) {
    size_t got;
    void *p = util_shelf_get(&w->spare, bytes, &got);
    *cap = got;
    return p;
}
static void spare_give(struct dump_writer *w, void *p, size_t cap) { util_shelf_put(&w->spare, p, cap); }

static int cmp_prow(const void *a, const void *b, void *ctx) {
    const struct tdb_prow *v = ctx;
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    int c = tdb_prow_cmp(&v[ia], &v[ib]);
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
                if (t->held) {   /* inserted after the tree (dump_held_targets) */
                    if (util_grow((void **)&w->held, &w->capheld, w->nheld + 1, sizeof *w->held) != 0)
                        return pt_errorf(w->err, "out of memory");
                    w->held[w->nheld++] = k;
                } else if (tdb_insert_target(w->ins_target, w->ids.seq, names_str(w->ids.keys, k), tg->len, 0,
                                             tg->call) != SQLITE_DONE)
                    return tdb_fail(t, "insert target");
            }
            if (tdb_mkeys_add(&w->mk[m], k) != 0) return pt_errorf(w->err, "out of memory");
            if (w->shard) {
                if (util_grow0((void **)&w->satt, &w->capsatt, w->nsatt + 1, sizeof *w->satt) != 0)
                    return pt_errorf(w->err, "out of memory");
                w->satt[w->nsatt++] = (struct tdb_shard_attempt){.seq = w->ids.seq, .index = (int64_t)w->cur_index,
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
    size_t i = 0, since = 0, nkeys = names_count(w->ids.keys);
    for (int m = 0; m < DM_N; m++)   /* room for every key so far, the file's among them */
        if (util_grow0((void **)&w->stamp[m], &w->stampcap[m], nkeys, sizeof *w->stamp[m]) != 0)
            return pt_errorf(w->err, "out of memory");
    while (i < s->n) {
        uint32_t entry = s->entry[i];
        for (; i < s->n && s->entry[i] == entry; i++) {
            uint32_t k = s->key[i];
            int m = s->metric[i];
            since++;
            if (!(w->metric_seen >> m & 1)) {
                w->metric_seen |= 1u << m;
                w->metric_order[w->nmetric_order++] = m;
            }
            if (tdb_mkeys_has(&w->mk[m], k)) continue;
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
        spare_give(w, s->key, s->kcap);
        spare_give(w, s->entry, s->ecap);
        spare_give(w, s->metric, s->mcap);
        s->key = s->entry = NULL;
        s->metric = NULL;
        w->replayed++;
    }
    return 0;
}

/* The rank that went in: into the summary (its rows sorted: files of one
 * rank mostly come in key order, a MindSpore graph/ and pynative/ pair not;
 * of two rows of one key INSERT OR IGNORE kept the first). */
static int summarize_rank(struct dump_writer *w) {
    struct rankrows *b = &w->cur;
    if (!w->summ || !b->count) { b->count = 0; return 0; }
    size_t i = 1;
    while (i < b->count && tdb_prow_cmp(&b->rows[i - 1], &b->rows[i]) <= 0) i++;
    if (i < b->count) {
        struct tdb_prow *sorted = malloc(b->count * sizeof *sorted);
        uint32_t *order = malloc(b->count * sizeof *order);
        if (!sorted || !order) {
            free(sorted);
            free(order);
            return pt_errorf(w->err, "out of memory");
        }
        for (size_t j = 0; j < b->count; j++) order[j] = (uint32_t)j;
        qsort_r(order, b->count, sizeof *order, cmp_prow, b->rows);
        for (size_t j = 0; j < b->count; j++) sorted[j] = b->rows[order[j]];
        free(order);
        free(b->rows);
        b->rows = sorted;
        b->cap = b->count;
    }
    for (size_t j = 0; j < b->count; j++) {
        const struct tdb_prow *p = &b->rows[j];
        if (j && tdb_prow_cmp(&b->rows[j - 1], p) == 0) continue;
        double stored[4];
        uint32_t present = 0;
        for (int s = 0; s < 4; s++)
            if (((p->present >> s) & 1) && tdb_normalise(p->vals[s], &stored[s])) present |= 1u << s;
        if (tdb_summary_add(w->summ, p->step, p->dbid, p->metric + 1, stored, present) != 0)
            return pt_errorf(w->err, "out of memory");
    }
    b->count = 0;
    if (tdb_summary_rank(w->summ, b->rank) != 0) return pt_errorf(w->err, "out of memory");
    return 0;
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
 * bits), id (40), metric (3); the row's place rides beside it. */
static int sort_file(struct dump_writer *w, const struct qfile *qf, uint32_t *order) {
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < qf->n; i++) {
        if (qf->v[i].step < lo) lo = qf->v[i].step;
        if (qf->v[i].step > hi) hi = qf->v[i].step;
    }
    if (util_grow((void **)&w->sortkey, &w->capsortkey, qf->n * 2, sizeof *w->sortkey) != 0) return -1;
    int packed = (int64_t)hi - lo < ((int64_t)1 << 21) && w->ids.seq < ((int64_t)1 << 40);
    struct radix_kv *k = w->sortkey;
    const struct radix_kv *sorted = k;
    uint64_t max = 0;
    for (size_t i = 0; i < qf->n; i++) {
        const struct qrow *r = &qf->v[i];
        k[i].key = packed ? ((uint64_t)(r->step - lo) << 43) | ((uint64_t)w->ids.dbid[r->key] << 3) | r->metric : 0;
        k[i].val = i;
        if (k[i].key > max) max = k[i].key;
    }
    size_t i = 1;
    while (packed && i < qf->n && k[i - 1].key <= k[i].key) i++;
    /* a stable radix sort of the keys: ties keep the file's order, as the
     * comparison of (key, place) did */
    if (packed && i < qf->n && !(sorted = radix_sort_kv(k, k + qf->n, qf->n, radix_bits(max)))) return -1;
    for (i = 0; i < qf->n; i++) order[i] = (uint32_t)sorted[i].val;
    struct qsort_ctx c = {qf->v, w->ids.dbid};
    if (!packed) qsort_r(order, qf->n, sizeof *order, cmp_qrow, &c);
    return 0;
}

/* A queued row as a kept row (struct tdb_prow) of target id dbid: for the
 * rank's summary, or for the INSERTs. */
static void prow_of(struct tdb_prow *p, int64_t dbid, const struct qrow *r) {
    *p = (struct tdb_prow){.dbid = dbid, .step = r->step, .metric = r->metric, .present = r->present};
    memcpy(p->vals, r->v, sizeof r->v);
}

/* A dump row's record as trend_data stores it (tdb_prow_row's columns,
 * normalised), into rec (room for 9 + 9 * 8 bytes); its length.  Written
 * as the values are met (btree_bulk_ir_keys, _real, as the monitor's rows):
 * no kind and value arrays filled first and walked again, which made the
 * record a tenth of the writer's thread at 34 MB (callgrind). */
static size_t dump_record(unsigned char *rec, int32_t rank, int32_t step, int64_t dbid, const struct qrow *r) {
    int64_t key[4] = {rank, step, dbid, r->metric + 1};
    unsigned char *o = btree_bulk_ir_keys(rec, 4, key, 4);
    for (unsigned pm = r->present & 15u; pm; pm &= pm - 1) {
        int s = __builtin_ctz(pm);
        double v;
        if (tdb_normalise(r->v[s], &v)) o = btree_bulk_ir_real(rec, 4, o, s, v);
    }
    return (size_t)(o - rec);
}

/* The same record as dump_record, put straight into trend_data's open
 * leaf (btree_bulk_place): its length reckoned first (the keys' widths,
 * the statistics stored), then each value written once at its place, not
 * made on the stack and copied in behind a call of tdb_bulk_add and
 * btree_bulk_add (at 134 MB those were 124 instructions of a row's 490,
 * callgrind).  A key wider than a byte is one 8-byte store
 * (btree_bulk_put_be) whose bytes past it the next values overwrite: a
 * row with no statistic stored (only the metric id's byte after the
 * target id, the store would reach into the cell before) and the row that
 * does not fit the leaf go the way before.  t0 and b0: rank's serial type
 * and width (btree_bulk_int_type), the same for every row of a file and
 * reckoned once for it (three instructions in a hundred of a row's here).
 * 0, or -1 with err. */
static int dump_put(struct dump_writer *w, int32_t rank, int t0, int b0, int32_t step, int64_t dbid, const struct qrow *r) {
    /* straight-line, column by column: as loops over arrays of four (the
     * keys, their widths, the values) gcc -O2 kept them on the stack and
     * the row cost more than the copy it saves (callgrind) */
    static const unsigned char real_types[16][4] = {
        {0, 0, 0, 0}, {7, 0, 0, 0}, {0, 7, 0, 0}, {7, 7, 0, 0}, {0, 0, 7, 0}, {7, 0, 7, 0}, {0, 7, 7, 0}, {7, 7, 7, 0},
        {0, 0, 0, 7}, {7, 0, 0, 7}, {0, 7, 0, 7}, {7, 7, 0, 7}, {0, 0, 7, 7}, {7, 0, 7, 7}, {0, 7, 7, 7}, {7, 7, 7, 7}};
    int b1, b2;
    int t1 = btree_bulk_int_type(step, &b1), t2 = btree_bulk_int_type(dbid, &b2);
    _Static_assert(DM_N < 127, "a metric id is one byte, serial type 1");
    /* the header (its size and 8 serial types), the keys (the metric id's
     * one byte), 8 bytes a value */
    size_t len = 9 + (size_t)(b0 + b1 + b2) + 1;
    double v0 = 0, v1 = 0, v2 = 0, v3 = 0;
    unsigned pm = r->present, got = 0;
    if ((pm & 1) && tdb_normalise(r->v[0], &v0)) got |= 1, len += 8;
    if ((pm & 2) && tdb_normalise(r->v[1], &v1)) got |= 2, len += 8;
    if ((pm & 4) && tdb_normalise(r->v[2], &v2)) got |= 4, len += 8;
    if ((pm & 8) && tdb_normalise(r->v[3], &v3)) got |= 8, len += 8;
    unsigned char *o = got && r->metric < DM_N ? btree_bulk_place(w->bb, len) : NULL;
    if (!o) {
        unsigned char rec[9 + 9 * 8];
        return tdb_bulk_add(&w->t, w->bb, rec, dump_record(rec, rank, step, dbid, r));
    }
    o[0] = 9;
    o[1] = (unsigned char)t0;
    o[2] = (unsigned char)t1;
    o[3] = (unsigned char)t2;
    o[4] = 1;
    memcpy(o + 5, real_types[got], 4);
    unsigned char *p = o + 9;   /* a one-byte key (the commonest) as a byte store */
    if (b0 == 1) *p = (unsigned char)rank;
    else btree_bulk_put_be(p, (uint64_t)(int64_t)rank, b0);
    p += b0;
    if (b1 == 1) *p = (unsigned char)step;
    else btree_bulk_put_be(p, (uint64_t)(int64_t)step, b1);
    p += b1;
    if (b2 == 1) *p = (unsigned char)dbid;
    else btree_bulk_put_be(p, (uint64_t)dbid, b2);
    p += b2;
    *p++ = (unsigned char)(r->metric + 1);
    if (got & 1) btree_bulk_put_real(p, v0), p += 8;
    if (got & 2) btree_bulk_put_real(p, v1), p += 8;
    if (got & 4) btree_bulk_put_real(p, v2), p += 8;
    if (got & 8) btree_bulk_put_real(p, v3);
    return 0;
}

static void bind_held(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    const struct dump_writer *w = ctx;
    uint32_t k = w->held[i];
    const struct target *tg = names_target(w->ids.keys, k);
    sqlite3_bind_int64(st, at, w->ids.dbid[k]);
    sqlite3_bind_text(st, at + 1, names_str(w->ids.keys, k), (int)tg->len, SQLITE_STATIC);
    sqlite3_bind_int(st, at + 2, 0);
    sqlite3_bind_int(st, at + 3, tg->call);
}

/* The targets given ids while SQLite may not write (the tdb holds them: a
 * trend_data tree to come or going in), into monitoring_targets where
 * SQLite writes (before the tree's first record, after its end): the same
 * rows, in the same (id) order and at the same moments as tdb_bulk_end's
 * INSERT ... SELECT of the held TEMP table, TDB_ROWS_PER_INSERT to a
 * statement, without the TEMP table's inserts first (two SQLite inserts a
 * target, both on the writer's thread).  0, or -1 with err. */
static int dump_held_targets(struct dump_writer *w) {
    static const char into[] = "INSERT INTO monitoring_targets (target_id, target_name, vpp_stage, micro_step)";
    sqlite3_stmt *one = NULL, *many = NULL;
    if (!w->nheld) return 0;
    /* into the empty table (the first time): its trees built bottom-up */
    struct tdb_target_row *v = malloc(w->nheld * sizeof *v);
    if (!v) return pt_errorf(w->err, "out of memory");
    for (size_t i = 0; i < w->nheld; i++) {
        uint32_t k = w->held[i];
        const struct target *tg = names_target(w->ids.keys, k);
        v[i] = (struct tdb_target_row){.id = w->ids.dbid[k], .name = names_str(w->ids.keys, k), .len = tg->len,
                                       .micro = tg->call};
    }
    int rc = tdb_targets_bulk(&w->t, v, w->nheld);
    free(v);
    if (rc <= 0) {
        if (rc == 0) w->nheld = 0;
        return rc;
    }
    rc = tdb_prepare_insert(&w->t, into, 4, 1, &one);
    if (rc) return rc > 0 ? tdb_fail(&w->t, "prepare") : -1;
    if (w->nheld >= TDB_ROWS_PER_INSERT && tdb_prepare_insert(&w->t, into, 4, TDB_ROWS_PER_INSERT, &many) < 0) {
        sqlite3_finalize(one);
        return -1;
    }   /* > 0 (an old SQLite's low variable limit): one row at a time */
    rc = tdb_insert(&w->t, one, many, TDB_ROWS_PER_INSERT, 4, w->nheld, bind_held, w, "insert target", NULL);
    sqlite3_finalize(one);
    sqlite3_finalize(many);
    if (rc == 0) w->nheld = 0;
    return rc;
}

/* A file's rows (in key order: order) straight from the queue into the
 * bulk-built table, each record built once: each after the one before (the
 * same key again: INSERT OR IGNORE kept the first); keep (the rank's
 * summary, else NULL) gets every row. */
static int bulk_file(struct dump_writer *w, const struct qfile *qf, const uint32_t *order, struct tdb_prow *keep) {
    int64_t *last = w->lastkey;
    if (w->haslast && qf->rank != last[0]) {   /* a rank after the one before, never before it */
        if (qf->rank < last[0]) {
            w->bb_refused = 1;
            return pt_errorf(w->err, "rows out of key order");
        }
        w->haslast = 0;
    }
    /* the targets held so far go in while SQLite still writes: the tree's
     * first record hands the file over (where tdb_bulk_end put the held
     * TEMP table's rows, the same pages) */
    if (qf->n && w->nheld && !btree_bulk_started(w->bb) && dump_held_targets(w) != 0) return -1;
    int b0, t0 = btree_bulk_int_type(qf->rank, &b0);   /* the file's rank: every row's first key */
    for (size_t i = 0; i < qf->n; i++) {
        const struct qrow *r = &qf->v[order[i]];
        int64_t dbid = w->ids.dbid[r->key];
        if (keep) prow_of(&keep[i], dbid, r);
        if (w->haslast) {
            int c = r->step != last[1] ? (r->step > last[1] ? 1 : -1)
                    : dbid != last[2]   ? (dbid > last[2] ? 1 : -1)
                                        : (r->metric + 1 > last[3]) - (r->metric + 1 < last[3]);
            if (c == 0) continue;
            if (c < 0) {
                w->bb_refused = 1;
                return pt_errorf(w->err, "rows out of key order");
            }
        }
        last[0] = qf->rank;
        last[1] = r->step;
        last[2] = dbid;
        last[3] = r->metric + 1;
        w->haslast = 1;
        if (dump_put(w, qf->rank, t0, b0, r->step, dbid, r) != 0) return -1;
        w->rows_in++;
    }
    return 0;
}

/* A file whose rows all have their ids: in they go, in key order. */
static int insert_file(struct dump_writer *w, const struct qfile *qf) {
    struct tdb *t = &w->t;
    if (w->cur.count && w->cur.rank != qf->rank && summarize_rank(w) != 0) return -1;
    w->cur.rank = qf->rank;
    int rows_kept = w->summ || !w->bb;   /* as tdb_prows: for the summary, or for the INSERTs */
    size_t ocap = 0;
    uint32_t *order = qf->order ? qf->order : spare_take(w, qf->n * sizeof *order, &ocap);
    if (!order ||
        (rows_kept && util_grow((void **)&w->cur.rows, &w->cur.cap, w->cur.count + qf->n, sizeof *w->cur.rows) != 0) ||
        (!qf->order && sort_file(w, qf, order) != 0)) {
        if (order != qf->order) spare_give(w, order, ocap);
        return pt_errorf(w->err, "out of memory");
    }
    if (!qf->order && qf->gen == w->last.gen && w->last.n == qf->n) {   /* for the next file shaped like it */
        memcpy(w->last.order, order, qf->n * sizeof *order);
        w->last.order_ok = 1;
    }
    struct tdb_prow *rows = rows_kept ? w->cur.rows + w->cur.count : NULL;
    int rc;
    if (w->bb) rc = bulk_file(w, qf, order, rows);
    else {
        for (size_t i = 0; i < qf->n; i++) prow_of(&rows[i], w->ids.dbid[qf->v[order[i]].key], &qf->v[order[i]]);
        rc = tdb_insert_prows(t, w->ins_row, w->ins_rows, qf->rank, rows, qf->n, 0, &w->rows_in);
    }
    if (order != qf->order) spare_give(w, order, ocap);
    if (w->summ) w->cur.count += qf->n;   /* kept for the rank's summary */
    return rc;
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
        spare_give(w, w->q[done].v, w->q[done].vcap);
        spare_give(w, w->q[done].order, w->q[done].ocap);
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
        else if (!(w->summ = tdb_summary_new(4, dump_stat_names, mr))) return pt_errorf(w->err, "out of memory");
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
        w->sfiles[w->nsfiles++] = (struct tdb_shard_file){.index = (int64_t)f->index, .group = f->group, .rank = f->rank,
                                                      .micro = f->contributes ? f->micro_count : 0, .base = step_base};
    }
    size_t n = f->ok ? f->nrows : 0;
    struct qfile qf = {.rank = f->rank, .n = n};
    if (n) {
        s->key = spare_take(w, n * sizeof *s->key, &s->kcap);
        s->entry = spare_take(w, n * sizeof *s->entry, &s->ecap);
        s->metric = spare_take(w, n, &s->mcap);
        qf.v = spare_take(w, n * sizeof *qf.v, &qf.vcap);
        if (!s->key || !s->entry || !s->metric || !qf.v ||
            util_grow0((void **)&w->q, &w->capq, w->nq + 1, sizeof *w->q) != 0) {
            spare_give(w, qf.v, qf.vcap);
            return pt_errorf(w->err, "out of memory");
        }
    }
    int like = n && last_like(&w->last, f);
    if (like) {
        memcpy(s->key, w->last.key, n * sizeof *s->key);
        if (w->last.order_ok && !(qf.order = spare_take(w, n * sizeof *qf.order, &qf.ocap))) {
            spare_give(w, qf.v, qf.vcap);
            return pt_errorf(w->err, "out of memory");
        }
        if (qf.order) memcpy(qf.order, w->last.order, n * sizeof *qf.order);
    }
    for (size_t i = 0; i < n; i++) {
        const struct dump_tensor_row *r = &f->rows[i];
        uint32_t k = like ? s->key[i] : names_intern(w->ids.keys, f->arena + r->name, r->len, 0, r->call);
        if (k == NAMES_NONE) {
            spare_give(w, qf.v, qf.vcap);
            spare_give(w, qf.order, qf.ocap);
            return pt_errorf(w->err, "out of memory");
        }
        s->key[i] = k;
        s->entry[i] = r->entry;
        s->metric[i] = r->metric;
        qf.v[i] = (struct qrow){.key = k, .i = (uint32_t)i, .step = step_base + r->micro, .metric = r->metric,
                                .present = r->present};
        memcpy(qf.v[i].v, r->v, sizeof r->v);
    }
    /* an id (0: none yet) for every target so far */
    if (n && !like && (util_grow0((void **)&w->ids.dbid, &w->ids.cap, names_count(w->ids.keys), sizeof *w->ids.dbid) != 0 ||
                       last_keep(&w->last, f, s->key) != 0)) {
        spare_give(w, qf.v, qf.vcap);
        spare_give(w, qf.order, qf.ocap);
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
    struct tdb_shard_head h = {.kind = "dump", .shard_k = k, .shard_n = n, .micro = micro, .any = sum->any_rank,
                               .max_rank = sum->max_rank, .min_step = sum->min_step, .max_step = sum->max_step,
                               .folders = sum->folders_all};
    if (tdb_shard_create(&w->t) != 0 || tdb_shard_files(&w->t, &h, w->sfiles, w->nsfiles) != 0) return -1;
    return tdb_shard_attempts(&w->t, w->satt, w->nsatt);
}

int trenddb_write_dump(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                       struct tdb_result *res, struct pt_error *err) {
    return trenddb_write_dump_shard(data, outdir, lo, lo->shard_k, lo->shard_n, ds, res, err);
}

/* The rank summary of what went in: made on the way (ranks in order, the
 * group sizes foreseen right), else from the table (trend_data is in the
 * file by now, bulk-built or not). */
static int dump_rank_summary(struct dump_writer *w) {
    int32_t max_rank = w->max_rank_rows;
    if (max_rank < SUMMARY_MIN_RANKS - 1) return 0;
    if (w->summ && tdb_summary_fits(w->summ, max_rank)) {
        if (summarize_rank(w) != 0) return -1;
        return tdb_summary_open(&w->t, w->summ) == 0 && tdb_summary_finish(&w->t, w->summ) == 0 ? 0 : -1;
    }
    return tdb_summary_from_table(&w->t);
}

static void dump_writer_free(struct dump_writer *w) {
    sqlite3_finalize(w->ins_target);
    sqlite3_finalize(w->ins_row);
    sqlite3_finalize(w->ins_rows);
    if (w->t.db || w->t.tmp) tdb_abort(&w->t);
    names_free(w->ids.keys);
    free(w->ids.dbid);
    for (int m = 0; m < DM_N; m++) {
        tdb_mkeys_free(&w->mk[m]);
        free(w->stamp[m]);
    }
    free(w->fresh);
    free(w->held);
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
    util_shelf_free(&w->spare);
    free(w->cur.rows);
    free(w->sortkey);
    free(w->last.arena);
    free(w->last.shape);
    free(w->last.key);
    free(w->last.order);
    free(w->sfiles);
    free(w->satt);
    tdb_summary_free(w->summ);
    memset(w, 0, sizeof *w);
}

/* The statements the writer keeps: trend_data's INSERTs only without the
 * bulk-built tree (insert_file's one user; a tree that refused a row is
 * written again from the start without it).  Preparing the 128-row one
 * was 2 M instructions before the first file was read (callgrind). */
static int dump_prepare(struct dump_writer *w) {
    int rc;
    if (tdb_prepare_targets(&w->t, &w->ins_target) != 0) return -1;
    if (w->bb) return 0;
    if ((rc = tdb_prepare_trend_insert(&w->t, 4, 1, &w->ins_row)) != 0) return rc > 0 ? tdb_fail(&w->t, "prepare") : -1;
    /* an old SQLite with a low variable limit (NULL): one row at a time */
    return tdb_prepare_trend_insert(&w->t, 4, TDB_ROWS_PER_INSERT, &w->ins_rows) < 0 ? -1 : 0;
}

/* Everything after the last file: the waiting rows, the ids' high-water
 * mark, global_stats, tags, the rank summary, a shard's tables; then the
 * result and the commit.  0, or -1 with err. */
static int dump_finish(struct dump_writer *w, const struct dump_summary *sum, const struct load_opts *lo, int shard_k,
                       int shard_n, const struct dataset *rds, struct tdb_result *res) {
    if (dump_replay(w) != 0 || dump_drain(w) != 0) return -1;
    if (w->nq) return pt_errorf(w->err, "internal: rows of %zu files never had their target ids", w->nq);
    if (tdb_bulk_end(&w->t) != 0 || dump_held_targets(w) != 0) return -1;   /* trend_data in: SQLite writes again */
    if (tdb_finish_sequence(&w->t, &w->ids) != 0) return -1;
    if (tdb_dump_global_stats(&w->t, sum->max_rank, sum->min_step, sum->max_step) != 0) return -1;
    /* every metric's tags, then all their links at once (tdb_write_links) */
    struct tdb_links links = {0};
    for (int i = 0; i < w->nmetric_order; i++) {
        int m = w->metric_order[i];
        if (tdb_write_tags_keep(&w->t, &w->ids, w->mk[m].order, w->mk[m].count, m + 1, LABELS_DUMP, &links) != 0) {
            free(links.v);
            return -1;
        }
    }
    if (tdb_write_links(&w->t, &links) != 0) return -1;
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
    return tdb_commit(&w->t);
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
    if (util_shelf_init(&w.spare, 8, UTIL_SHELF_SLACK, UINT64_MAX) != 0) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    if (!(w.ids.keys = names_new())) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    if (w.shard) snprintf(dbname, sizeof dbname, "dump_data.shard-%d-of-%d.trend.db", shard_k, shard_n);
    else snprintf(dbname, sizeof dbname, "dump_data.trend.db");
    if (tdb_open(&w.t, outdir, dbname, 16384, lo, ds, err) != 0 || tdb_create_fixed(&w.t) != 0 ||
        tdb_create_trend(&w.t, dump_stat_names, 4) != 0 || tdb_insert_metrics(&w.t, dump_metric_names, DM_N) != 0 ||
        (bulk && tdb_bulk_open(&w.t, &w.bb) != 0) || dump_prepare(&w) != 0)
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
    if (dump_finish(&w, &sum, lo, shard_k, shard_n, rds, res) != 0) goto out;
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
