/* tdb_summary: the rank summary (tdb_summary.h; probetop(1), FILES:
 * probetop_rank_summary), apart from the writers that feed it: the dump
 * and monitor writers give it each rank's rows as they go in, the merge
 * and the writers' slower ways let it scan trend_data.  One accumulator,
 * one way a row enters it, whichever feeds it.
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

#define _GNU_SOURCE   /* qsort_r */
#include "src/io/trenddb/tdb_summary.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/fs.h"
#include "model/util/util.h"
#include "src/io/trenddb/tdb_sentry.h"
#include "src/io/trenddb/tdb_spool.h"

#define SUM_SIZES 3
#define SUM_PER_STAT 5       /* n, min, max, sum, NaN */
/* A summary record's longest: its header and 6 + 4 * statistics columns of
 * at most 9 bytes each (summ_record); tdb_sentry's reader rejects longer. */
#define SUMM_REC_MAX (9 + 9 * (6 + 4 * (MONITOR_NSTATS + 8)))

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

/* A rank's rows (cur) are kept short, [step, target, metric, has, nan,
 * then per stat its value], bit s of has: the value is there (not NULL or
 * NaN), of nan: a NULL counted as a NaN; an accumulator's entry is made of
 * one (row_entry) or gets one combined in (row_combine) with the same
 * arithmetic as combining the entry row_entry would make.
 *
 * A statistic no rank has yet (n 0) holds min +inf, max -inf and sum -0.0,
 * never read as such (summ_record, summ_bind: n 0 is three NULLs): the
 * first value then combines as any other and gives the same doubles as
 * taking it whole did (v < +inf or v is +inf, v > -inf or v is -inf,
 * -0.0 + v is v for every v, a -0.0 included), so stat_combine tests
 * nothing, no branch a statistic. */
#define ROW_STRIDE(ns) (5 + (size_t)(ns))

static void row_entry(double *o, const double *y, int ns) {
    uint32_t has = (uint32_t)y[3], nan = (uint32_t)y[4];
    o[0] = y[0];
    o[1] = y[1];
    o[2] = y[2];
    o[3] = 1;
    for (int s = 0; s < ns; s++) {
        double *os = o + 4 + SUM_PER_STAT * s, v = y[5 + s];
        int h = (has >> s) & 1;
        os[0] = h;
        os[1] = h ? v : INFINITY;
        os[2] = h ? v : -INFINITY;
        os[3] = h ? v : -0.0;
        os[4] = (nan >> s) & 1;
    }
}

/* One statistic's value v (no NaN: has says it is there) combined into
 * its [n, min, max, sum]: the compares as selects (minsd, maxsd), the
 * same value kept on a tie as the tests before did. */
static inline void stat_combine(double *os, double v) {
    double mn = os[1], mx = os[2];
    os[0] += 1;
    os[1] = v < mn ? v : mn;
    os[2] = v > mx ? v : mx;
    os[3] += v;
}

/* Only the statistics with a bit in has or nan are touched (ctz over the
 * bits): the others' n, min, max, sum and NaN count stay, as adding 0 to a
 * NaN count left them. */
static void row_combine(double *o, const double *y, int ns) {
    uint32_t keep = ns >= 32 ? ~0u : (1u << ns) - 1, has = (uint32_t)y[3] & keep, nan = (uint32_t)y[4] & keep;
    o[3] += 1;
    for (; nan; nan &= nan - 1) o[4 + SUM_PER_STAT * __builtin_ctz(nan) + 4] += 1;
    if (has == keep) {   /* every statistic there (most rows): walked in order, no ctz a bit */
        for (int s = 0; s < ns; s++) stat_combine(o + 4 + SUM_PER_STAT * s, y[5 + s]);
        return;
    }
    for (; has; has &= has - 1) {
        int s = __builtin_ctz(has);
        stat_combine(o + 4 + SUM_PER_STAT * s, y[5 + s]);
    }
}

/* The rows b (sorted by key) merged into the accumulator a (sorted by
 * key), in a's own memory: a row of a key a holds combines into its entry,
 * the others make new entries.  Every key of b in a already (ranks of one
 * run mostly hold the same targets): combined in place, in one walk; else,
 * from the first key a lacks, a grown to the merged count and the rest
 * merged from the tails down, so that no second buffer is needed (each
 * slot written is at or above the next of a's still to be read).  0, or
 * -1 without memory (a's keys before b's first new one combined already:
 * the summary is given up). */
static int sacc_merge_in(struct sacc *a, const struct sacc *b, int ns) {
    size_t stride = 4 + SUM_PER_STAT * (size_t)ns, bstride = ROW_STRIDE(ns), i = 0, j = 0;
    /* b's keys in a combined in place, in one walk, up to the first key a
     * lacks (b's keys are unique: a rank's rows, the first of each key) */
    double *av = a->v;   /* a's array and count, b's, as locals: row_combine's stores alias none of them */
    const double *bv = b->v;
    size_t an = a->n, bn = b->n;
    for (; j < bn; j++, i++) {
        const double *y = bv + j * bstride, *x = i < an ? av + i * stride : NULL;
        /* the commonest: a's next key is y's (a rank holds the keys of the
         * one before), told by three equal compares, no sacc_cmp walk */
        if (x && x[0] == y[0] && x[1] == y[1] && x[2] == y[2]) {
            row_combine(av + i * stride, y, ns);
            continue;
        }
        int c = 1;
        while (i < an && (c = sacc_cmp(av + i * stride, y)) < 0) i++;
        if (c) break;
        row_combine(av + i * stride, y, ns);
    }
    if (j == b->n) return 0;
    /* the rest of b merged with a's entries from i on (those before i are
     * all before b[j]): their merged count first */
    size_t k = a->n, i0 = i, j0 = j;
    for (; j < b->n; j++) {
        const double *y = b->v + j * bstride;
        int c = 1;
        while (i < a->n && (c = sacc_cmp(a->v + i * stride, y)) < 0) i++;
        if (c == 0) i++;
        else k++;
    }
    if (sacc_grow(a, k, stride) != 0) return -1;
    size_t ia = a->n, jb = b->n, o = k;   /* one past the next to read / write */
    while (jb > j0) {
        const double *y = b->v + (jb - 1) * bstride;
        double *w = a->v + --o * stride;
        int c = ia > i0 ? sacc_cmp(a->v + (ia - 1) * stride, y) : -1;
        if (c < 0) { row_entry(w, y, ns); jb--; continue; }
        const double *x = a->v + --ia * stride;
        if (w != x) memcpy(w, x, stride * sizeof *w);
        if (c == 0) {
            row_combine(w, y, ns);
            jb--;
        }
    }
    a->n = k;
    return 0;
}

/* The summarizer: fed the rows of one rank at a time (cur), ranks
 * ascending; finished groups go to out as [size, group, entry], and from
 * there into the table. */
struct tdb_summary {
    int ns, nsizes, sizes[SUM_SIZES];
    unsigned levels;         /* bit l: group size sizes[l] summarized here (tdb_summary_new_part) */
    int64_t group[SUM_SIZES];
    int64_t max_rank;        /* the one foreseen: the group sizes depend on it */
    struct sacc acc[SUM_SIZES], cur, out;
    const char *const *cols; /* the statistic columns' names */
    uint32_t tells;          /* the norm and mean columns: finite, no NaN in the tensor */
    sqlite3_stmt *ins[2];    /* one row, SUMMARY_ROWS_PER_INSERT rows (NULL: none) */
    /* the table built beside SQLite (NULL: INSERTs): the rows of each
     * group size spooled as records, packed (tdb_sentry), as their groups finish (sizes 8 and 64
     * finish in key order, the whole run's last, and it sorts first), the
     * spools into the tree after the last rank, in key order */
    struct btree_bulk *bb;
    struct tdb_spool spool;  /* the records, in segments (spool.f NULL: none) */
    struct sseg { int l; int64_t group, win; uint64_t off, len; size_t at; } *seg;   /* l: place in sizes[] */
    size_t nseg, capseg;
    int64_t win;             /* the window being fed (tdb_summary_at): its rows' segments say it */
    struct tdb_sentry_prev sprev;   /* the last segment's entry before (tdb_sentry_pack) */
    int spool_bad;           /* a write to the spool failed */
};

struct tdb_summary *tdb_summary_new(int ns, const char *const *cols, int64_t max_rank) {
    return tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_ALL);
}

struct tdb_summary *tdb_summary_new_part(int ns, const char *const *cols, int64_t max_rank, int part) {
    struct tdb_summary *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->ns = ns;
    m->cols = cols;
    m->max_rank = max_rank;
    if (max_rank + 1 > 8) m->sizes[m->nsizes++] = 8;
    if (max_rank + 1 > 64) m->sizes[m->nsizes++] = 64;
    m->sizes[m->nsizes++] = 0;
    /* the whole run is the last place in sizes[] */
    m->levels = part == TDB_SUMMARY_RUN ? 1u << (m->nsizes - 1)
                : part == TDB_SUMMARY_GROUPS ? (1u << (m->nsizes - 1)) - 1
                                             : (1u << m->nsizes) - 1;
    for (int l = 0; l < SUM_SIZES; l++) m->group[l] = -1;
    for (int c = 0; c < ns; c++)
        if (!strcmp(cols[c], "norm") || !strcmp(cols[c], "mean")) m->tells |= 1u << c;
    return m;
}

void tdb_summary_free(struct tdb_summary *m) {
    if (!m) return;
    for (int l = 0; l < SUM_SIZES; l++) free(m->acc[l].v);
    free(m->cur.v);
    free(m->out.v);
    sqlite3_finalize(m->ins[0]);
    sqlite3_finalize(m->ins[1]);
    tdb_spool_close(&m->spool);
    free(m->seg);
    free(m);
}

int tdb_summary_fits(const struct tdb_summary *m, int64_t max_rank) {
    int64_t a = m->max_rank + 1, b = max_rank + 1;
    return (a > 8) == (b > 8) && (a > 64) == (b > 64);
}

static int summ_spool_entry(struct tdb_summary *m, int l, int64_t g, const double *a);

/* acc[l]'s entries (group group[l] of size sizes[l]) out: straight onto
 * the spool once it is open and out is empty (each entry written once),
 * else into out as [size, group, entry]; acc[l] emptied, its memory kept. */
static int summ_emit(struct tdb_summary *m, int l) {
    size_t stride = 4 + SUM_PER_STAT * (size_t)m->ns, ostride = stride + 2;
    const struct sacc *a = &m->acc[l];
    if (m->spool.f && !m->out.n) {
        for (size_t i = 0; i < a->n; i++)
            if (summ_spool_entry(m, l, m->group[l], a->v + i * stride) != 0) return -1;
        m->acc[l].n = 0;
        return 0;
    }
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

/* cur holds every row of rank (sorted by key): into every group size */
static int summ_rank_rows(struct tdb_summary *m, const struct sacc *cur, int64_t rank) {
    for (int l = 0; l < m->nsizes; l++) {
        if (!((m->levels >> l) & 1)) continue;
        int64_t g = m->sizes[l] ? rank / m->sizes[l] : 0;
        if (g != m->group[l] && m->acc[l].n && summ_emit(m, l) != 0) return -1;
        m->group[l] = g;
        if (sacc_merge_in(&m->acc[l], cur, m->ns) != 0) return -1;
    }
    return 0;
}

int tdb_summary_rank(struct tdb_summary *m, int64_t rank) {
    if (summ_rank_rows(m, &m->cur, rank) != 0) return -1;
    m->cur.n = 0;
    return 0;
}

int tdb_summary_rank_of(struct tdb_summary *m, const struct tdb_summary *rows, int64_t rank) {
    if (rows->ns != m->ns) return -1;
    return summ_rank_rows(m, &rows->cur, rank);
}

static int summ_finish(struct tdb_summary *m) {
    for (int l = 0; l < m->nsizes; l++)
        if (m->acc[l].n && summ_emit(m, l) != 0) return -1;
    return 0;
}

int tdb_summary_window(struct tdb *t, struct tdb_summary *m) {
    if (summ_finish(m) != 0) return pt_errorf(t->err, "out of memory");
    /* the accumulators (empty) keep their memory for the next window:
     * no fresh pages to fault in and zero a window */
    for (int l = 0; l < SUM_SIZES; l++) m->group[l] = -1;
    return tdb_summary_flush(t, m);
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

/* One entry of out into the statement's parameters from at (1-based). */
static void bind_entry(sqlite3_stmt *st, int at, size_t i, const void *ctx) {
    const struct tdb_summary *m = ctx;
    summ_bind(st, at, m->out.v + i * (6 + SUM_PER_STAT * (size_t)m->ns), m->ns);
}

/* A REAL of a record at *w (past it), its serial type returned: NULL for
 * a NaN, msProbe's +-(1e9 + 1) for an infinity (bind_summary_value's
 * rule), else the value.  A finite value, the commonest, is told by one
 * test. */
static inline unsigned char summ_real(unsigned char **w, double v) {
    if (!(fabs(v) < INFINITY)) {   /* a NaN or an infinity */
        if (isnan(v)) return 0;
        v = v > 0 ? 1000000001.0 : -1000000001.0;
    }
    btree_bulk_put_real(*w, v);
    *w += 8;
    return 7;
}

/* An entry of out as the table's record (what summ_bind binds), each
 * value encoded as it is made (btree_bulk_put_int/_real: the bytes
 * btree_bulk_record makes of the same row).  A statistic no rank has is
 * three NULLs at once, a tested n a statistic, not a value. */
static size_t summ_record(unsigned char *rec, int size, int64_t group, const double *e, int ns) {
    int ncols = 6 + 4 * ns;
    unsigned char *types = rec + 1, *w = rec + 1 + ncols;
    int64_t head[6] = {size, group, (int64_t)e[0], (int64_t)e[1], (int64_t)e[2], (int64_t)e[3]};
    for (int c = 0; c < 6; c++) types[c] = btree_bulk_put_int(&w, head[c]);
    for (int s = 0; s < ns; s++) {
        const double *es = e + 4 + SUM_PER_STAT * s;
        unsigned char *ty = types + 6 + 4 * s;
        if (es[0]) {   /* min, max, mean */
            ty[0] = summ_real(&w, es[1]);
            ty[1] = summ_real(&w, es[2]);
            ty[2] = summ_real(&w, es[3] / es[0]);
        } else
            ty[0] = ty[1] = ty[2] = 0;
        ty[3] = btree_bulk_put_int(&w, (int64_t)es[4]);
    }
    rec[0] = (unsigned char)(1 + ncols);   /* header size: itself and one byte per type (all < 128) */
    return (size_t)(w - rec);
}

/* One entry (an accumulator's: [step, target, metric, ranks, stats]) of
 * group g of size sizes[l] as a record packed onto the spool
 * (tdb_sentry_pack): a segment per run of one group (of one group size),
 * each group's entries in key order (a window's after the window
 * before's).  -1 without memory for the
 * segments; a failed put (the spool's buffer or a write) is told by the
 * next tdb_summary_flush. */
static int summ_spool_entry(struct tdb_summary *m, int l, int64_t g, const double *e) {
    if (!m->nseg || m->seg[m->nseg - 1].l != l || m->seg[m->nseg - 1].group != g || m->seg[m->nseg - 1].win != m->win) {
        if (util_grow((void **)&m->seg, &m->capseg, m->nseg + 1, sizeof *m->seg) != 0) return -1;
        m->seg[m->nseg] = (struct sseg){.l = l, .group = g, .win = m->win, .off = m->spool.off, .at = m->nseg};
        m->nseg++;
        m->sprev.h = 0;   /* the reader starts each segment so */
    }
    unsigned char rec[SUMM_REC_MAX];
    size_t rlen = summ_record(rec, m->sizes[l], g, e, m->ns);
    unsigned char *at = tdb_spool_room(&m->spool, TDB_SENTRY_MAX(rlen));
    if (!at) {
        m->spool_bad = 1;
        return 0;
    }
    size_t len = tdb_sentry_pack(at, rec, rlen, &m->sprev);
    tdb_spool_wrote(&m->spool, len);
    m->seg[m->nseg - 1].len += len;
    return 0;
}

/* out's entries onto the spool, out emptied. */
static int summ_spool(struct tdb *t, struct tdb_summary *m) {
    size_t stride = 6 + SUM_PER_STAT * (size_t)m->ns;
    for (size_t i = 0; i < m->out.n; i++) {
        const double *e = m->out.v + i * stride;
        int l = 0;
        while (l < m->nsizes - 1 && m->sizes[l] != (int)e[0]) l++;
        if (summ_spool_entry(m, l, (int64_t)e[1], e + 2) != 0) return pt_errorf(t->err, "out of memory");
    }
    m->out.n = 0;
    if (m->spool_bad)
        return pt_errorf(t->err, "%s: could not spool the rank summary into " TDB_SPOOL_FILE ": %s", t->final,
                         tdb_spool_why(&m->spool));
    return 0;
}

/* A segment of one of the parts being unspooled together. */
struct pseg {
    const struct sseg *s;
    size_t part;
};

/* Key order of segments: group size 0 (the last place in sizes[]), then 8,
 * then 64; groups ascending; windows ascending; the part, then the order
 * they were spooled in. */
static int cmp_seg(const void *a, const void *b, void *ctx) {
    const struct pseg *px = a, *py = b;
    const struct sseg *x = px->s, *y = py->s;
    int n = *(const int *)ctx;
    int kx = x->l == n - 1 ? 0 : x->l + 1, ky = y->l == n - 1 ? 0 : y->l + 1;
    if (kx != ky) return kx < ky ? -1 : 1;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->win != y->win) return x->win < y->win ? -1 : 1;
    if (px->part != py->part) return px->part < py->part ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The parts' spools into the tree bb, their segments merged in key order:
 * each segment read back TDB_SPOOL_BUF bytes at a time (one pread, not two
 * freads a record), its records unpacked from the buffer (tdb_sentry_unpack). */
static int summ_unspool(struct tdb *t, struct tdb_summary *const *parts, size_t np, struct btree_bulk *bb) {
    size_t total = 0, k = 0;
    unsigned char rec[TDB_SENTRY_HEAD + TDB_SENTRY_BODY];
    for (size_t p = 0; p < np; p++) total += parts[p]->nseg;
    struct pseg *sg = malloc((total ? total : 1) * sizeof *sg);
    unsigned char *buf = malloc(TDB_SPOOL_BUF);
    if (!sg || !buf) {
        free(sg);
        free(buf);
        return pt_errorf(t->err, "out of memory");
    }
    for (size_t p = 0; p < np; p++) {
        for (size_t i = 0; i < parts[p]->nseg; i++) sg[k++] = (struct pseg){.s = &parts[p]->seg[i], .part = p};
        if (tdb_spool_flush(&parts[p]->spool) != 0) {
            pt_errorf(t->err, "%s: could not spool the rank summary into " TDB_SPOOL_FILE ": %s", t->final,
                      tdb_spool_why(&parts[p]->spool));
            free(sg);
            free(buf);
            return -1;
        }
    }
    qsort_r(sg, total, sizeof *sg, cmp_seg, &parts[0]->nsizes);
    for (k = 0; k < total; k++) {
        const struct tdb_summary *pm = parts[sg[k].part];
        const struct sseg *sk = sg[k].s;
        struct tdb_sentry_prev prev = {.h = 0};   /* as the writer's at the segment's start */
        for (uint64_t done = 0; done < sk->len;) {
            uint64_t left = sk->len - done;
            size_t want = left < TDB_SPOOL_BUF ? (size_t)left : TDB_SPOOL_BUF, at = 0;
            if (fs_pread_all(fileno(pm->spool.f), buf, want, (off_t)(sk->off + done)) != 0) goto fail;
            /* the whole entries in buf, each made into its record */
            size_t rlen;
            while (at < want && (rlen = tdb_sentry_unpack(buf, want, &at, &prev, rec)) != 0)
                if (tdb_bulk_add(t, bb, rec, rlen) != 0) {
                    free(sg);
                    free(buf);
                    return -1;
                }
            if (!at) goto fail;   /* not one whole entry in a full buffer: damaged */
            /* read for the last time (the rest of a cut entry is read again
             * from done + at): its pages for the table's pages to come */
            fs_discard(fileno(pm->spool.f), sk->off + done, at);
            done += at;
        }
    }
    free(sg);
    free(buf);
    return 0;
fail:
    free(sg);
    free(buf);
    return pt_errorf(t->err, "%s: could not read the rank summary's spool back", t->final);
}

int tdb_summary_open(struct tdb *t, struct tdb_summary *m) {
    char sql[4096];
    int ns = m->ns;
    size_t o = (size_t)snprintf(sql, sizeof sql,
                                "CREATE TABLE probetop_rank_summary (group_size INTEGER NOT NULL, rank_group INTEGER NOT NULL, "
                                "step INTEGER NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, "
                                "ranks INTEGER NOT NULL");
    for (int s = 0; s < ns; s++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, ", %s_min REAL, %s_max REAL, %s_mean REAL, %s_nan INTEGER",
                              m->cols[s], m->cols[s], m->cols[s], m->cols[s]);
    snprintf(sql + o, sizeof sql - o, ", PRIMARY KEY (group_size, rank_group, step, target_id, metric_id)) WITHOUT ROWID");
    if (tdb_exec(t, sql) != 0) return -1;
    if (tdb_bulk_more(t, "probetop_rank_summary", &m->bb) != 0) return -1;
    if (m->bb && !(m->spool.f = tmpfile())) m->bb = NULL;   /* no spool to be had: INSERTs (the tree never starts) */
    if (m->bb) return 0;
    int rc = tdb_prepare_insert(t, "INSERT INTO probetop_rank_summary", 6 + 4 * ns, 1, &m->ins[0]);
    if (rc) return rc > 0 ? tdb_fail(t, "prepare rank summary") : -1;
    /* an old SQLite with few parameters (NULL): one row at a time */
    rc = tdb_prepare_insert(t, "INSERT INTO probetop_rank_summary", 6 + 4 * ns, SUMMARY_ROWS_PER_INSERT, &m->ins[1]);
    return rc < 0 ? -1 : 0;
}

/* out's rows into the table (many per statement), then out is empty: the
 * finished rank groups go in as they finish, not all held to the end. */
int tdb_summary_flush(struct tdb *t, struct tdb_summary *m) {
    if (m->spool.f) return summ_spool(t, m);
    int rc = tdb_insert(t, m->ins[0], m->ins[1], SUMMARY_ROWS_PER_INSERT, 6 + 4 * m->ns, m->out.n, bind_entry, m,
                        "insert rank summary", NULL);
    m->out.n = 0;
    return rc;
}

int tdb_summary_built(const struct tdb_summary *m) { return m->spool.f != NULL; }

int tdb_summary_open_twin(struct tdb *t, struct tdb_summary *m, const struct tdb_summary *first) {
    if (!first->bb) return pt_errorf(t->err, "internal: a rank summary's twin without the tree");
    if (!(m->spool.f = tmpfile())) return pt_errorf(t->err, "no temporary file for the rank summary");
    m->bb = first->bb;   /* for tdb_summary_window_tree; first's (t's) alone at the finish */
    return 0;
}

int tdb_summary_window_tree(struct tdb *t, struct tdb_summary *m) {
    size_t stride = 4 + SUM_PER_STAT * (size_t)m->ns;
    unsigned char rec[SUMM_REC_MAX];
    /* the whole run's group alone: its rows are the table's first (group_size 0) */
    if (!m->bb || m->out.n || m->levels != 1u << (m->nsizes - 1))
        return pt_errorf(t->err, "internal: a rank summary's window into the tree not the whole run's");
    for (int l = 0; l < m->nsizes; l++) {
        struct sacc *a = &m->acc[l];
        for (size_t i = 0; i < a->n; i++)
            if (tdb_bulk_add(t, m->bb, rec, summ_record(rec, m->sizes[l], m->group[l], a->v + i * stride, m->ns)) != 0)
                return -1;
        a->n = 0;   /* its memory kept for the next window, as tdb_summary_window does */
        m->group[l] = -1;
    }
    return 0;
}

int tdb_summary_finish(struct tdb *t, struct tdb_summary *m) { return tdb_summary_finish2(t, m, NULL); }

int tdb_summary_finish2(struct tdb *t, struct tdb_summary *m, struct tdb_summary *twin) {
    struct tdb_summary *parts[2] = {m, twin};
    return tdb_summary_finish_parts(t, parts, twin ? 2 : 1);
}

void tdb_summary_at(struct tdb_summary *m, int64_t win) { m->win = win; }

int tdb_summary_finish_parts(struct tdb *t, struct tdb_summary *const *parts, size_t np) {
    struct tdb_summary *m = parts[0];
    int rc = 0;
    for (size_t p = 0; p < np; p++)
        if (summ_finish(parts[p]) != 0) return pt_errorf(t->err, "out of memory");
    for (size_t p = 0; p < np && rc == 0; p++) rc = tdb_summary_flush(t, parts[p]);
    if (rc == 0 && m->bb) {
        /* every part's segments in key order: the whole run's first */
        rc = summ_unspool(t, parts, np, m->bb);
        m->bb = NULL;   /* t's: in the file at the commit, or gone with it */
    }
    sqlite3_finalize(m->ins[0]);
    sqlite3_finalize(m->ins[1]);
    m->ins[0] = m->ins[1] = NULL;
    return rc;
}

double *tdb_summary_rows(struct tdb_summary *m, size_t n) {
    size_t stride = ROW_STRIDE(m->ns);
    if (m->cur.n + n > m->cur.cap && sacc_grow(&m->cur, m->cur.n + n, stride) != 0) return NULL;
    double *e = m->cur.v + m->cur.n * stride;
    m->cur.n += n;
    return e;
}

struct tdb_summary_head tdb_summary_head(const struct tdb_summary *m) {
    return (struct tdb_summary_head){.tells = m->tells, .all = m->ns < 32 ? (1u << m->ns) - 1 : ~0u};
}

/* As tdb_summary_row_end and tdb_summary_val made them: the same doubles.
 * The values are has's, nv of them: a row whose two disagree (not the
 * writer's) reads no further than its nv. */
/* A zigzag varint of b at *at (< len) into *d: 0, or -1 when cut or
 * longer than 64 bits. */
static inline int unpack_zz(const unsigned char *b, size_t len, size_t *at, int64_t *d) {
    if (*at < len && b[*at] < 0x80) {   /* the common difference: one byte */
        unsigned c = b[(*at)++];
        *d = (int64_t)(c >> 1) ^ -(int64_t)(c & 1);
        return 0;
    }
    uint64_t z = 0;
    for (int sh = 0; sh < 64; sh += 7) {
        if (*at >= len) return -1;
        unsigned char c = b[(*at)++];
        z |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) {
            *d = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
            return 0;
        }
    }
    return -1;
}

int tdb_summary_unpack_rows(struct tdb_summary_head hd, int ns, const unsigned char *b, size_t len, size_t n, double *e) {
    struct tdb_summary_prev prev = {0};   /* as the writer's at the run's start */
    size_t at = 0;
    for (size_t k = 0; k < n; k++, e += ROW_STRIDE(ns)) {
        if (len - at < TDB_SUMMARY_PACK_VALS) return -1;
        unsigned flags = b[at], nv = flags >> 1 & 31, mbyte = b[at + 1];
        uint8_t metric_id = (uint8_t)(mbyte & 0x3f);
        const unsigned char *v = b + at + TDB_SUMMARY_PACK_VALS;
        if (nv > TDB_MAX_STATS || len - at - TDB_SUMMARY_PACK_VALS < (size_t)nv * sizeof(double)) return -1;
        at += TDB_SUMMARY_PACK_VALS + (size_t)nv * sizeof(double);
        if (!(flags & 0x40)) {
            uint16_t h;
            if (len - at < sizeof h) return -1;
            memcpy(&h, b + at, sizeof h);
            at += sizeof h;
            prev.has = h;
        }
        if (mbyte & 0x80) {
            uint16_t z;
            if (len - at < sizeof z) return -1;
            memcpy(&z, b + at, sizeof z);
            at += sizeof z;
            prev.zeros = z;
        }
        int64_t d = 0;
        if (!(flags & 0x80)) {
            if (unpack_zz(b, len, &at, &d) != 0 || d + prev.step < INT32_MIN || d + prev.step > INT32_MAX) return -1;
            prev.step = (int32_t)(prev.step + d);
        }
        if (unpack_zz(b, len, &at, &d) != 0) return -1;
        prev.target = (int64_t)((uint64_t)prev.target + (uint64_t)d);
        uint32_t has = prev.has, zeros = prev.zeros;
        if ((has & ~hd.all) || (zeros & ~has)) return -1;
        e[0] = (double)prev.step;
        e[1] = (double)prev.target;
        e[2] = (double)metric_id;
        e[3] = has;
        e[4] = flags & 1 ? ~has & hd.all : 0;
        if (has == hd.all && !zeros && nv == (unsigned)ns) {   /* every statistic, in column order */
            memcpy(e + 5, v, (size_t)ns * sizeof(double));
            continue;
        }
        /* the values are has's bits but the zeros (tdb_zval_put's rule),
         * one pass over the statistics, each e set once (0 where none is
         * stored): tdb_zval at each bit of has cost some 30 instructions a
         * row more, a memset then a walk of the bits some 15 */
        unsigned c = 0;
        uint32_t hm = has & ~zeros;
        for (int s = 0; s < ns; s++) {
            double x = 0;
            if ((hm >> s) & 1 && c < nv) memcpy(&x, v + (size_t)c++ * sizeof(double), sizeof x);
            e[5 + s] = x;
        }
    }
    return at == len ? 0 : -1;
}

/* The room made first (the writer counted the rows), taken back when the
 * bytes are not the rows said. */
int tdb_summary_unpack(struct tdb_summary *m, const unsigned char *b, size_t len, size_t n) {
    if (!n) return len ? -2 : 0;
    double *e = tdb_summary_rows(m, n);
    if (!e) return -1;
    if (tdb_summary_unpack_rows(tdb_summary_head(m), m->ns, b, len, n, e) != 0) {
        m->cur.n -= n;
        return -2;
    }
    return 0;
}

/* One pass, no call a statistic (this runs for every row of every
 * summary the dump writer and --merge make). */
void tdb_summary_row(const struct tdb_summary *m, double *e, int64_t step, int64_t target_id, int64_t metric_id,
                     const double *stored, uint32_t present) {
    struct tdb_summary_head hd = tdb_summary_head(m);
    uint32_t has = 0, finite = 0;
    for (int s = 0; s < m->ns; s++) e[5 + s] = 0;
    for (uint32_t pm = present & hd.all; pm; pm &= pm - 1) {   /* only the present statistics */
        int s = __builtin_ctz(pm);
        tdb_summary_val(e, s, stored[s], &has, &finite);
    }
    tdb_summary_row_end(hd, e, step, target_id, metric_id, has, finite);
}

int tdb_summary_add(struct tdb_summary *m, int64_t step, int64_t target_id, int64_t metric_id, const double *stored,
                    uint32_t present) {
    double *e = tdb_summary_rows(m, 1);
    if (!e) return -1;
    tdb_summary_row(m, e, step, target_id, metric_id, stored, present);
    return 0;
}

int tdb_summary_from_table(struct tdb *t) {
    char cols[MONITOR_NSTATS + 8][64];
    _Static_assert(1 + 6 + 4 * (MONITOR_NSTATS + 8) < TDB_SENTRY_HEAD && SUMM_REC_MAX <= TDB_SENTRY_BODY,
                   "summ_record's records packed by tdb_sentry");
    const char *names[MONITOR_NSTATS + 8];
    int ncols = 0, rc = -1;
    sqlite3_stmt *st = NULL;
    struct tdb_summary *m = NULL;
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
    for (int c = 0; c < ns; c++) names[c] = cols[4 + c];
    if (!(m = tdb_summary_new(ns, names, max_rank))) return pt_errorf(t->err, "out of memory");
    if (sqlite3_prepare_v2(t->db, "SELECT * FROM trend_data", -1, &st, NULL) != SQLITE_OK) {
        tdb_fail(t, "prepare rank summary");
        goto out;
    }
    int64_t rank = -1;
    int src;
    for (;;) {
        src = sqlite3_step(st);
        int64_t r = src == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
        if ((src != SQLITE_ROW || r != rank) && m->cur.n && tdb_summary_rank(m, rank) != 0) {
            pt_errorf(t->err, "out of memory");
            goto out;
        }
        if (src != SQLITE_ROW) break;
        rank = r;
        double v[MONITOR_NSTATS + 8];
        uint32_t present = 0;
        for (int s = 0; s < ns; s++) {
            v[s] = sqlite3_column_double(st, 4 + s);
            if (sqlite3_column_type(st, 4 + s) != SQLITE_NULL) present |= 1u << s;
        }
        if (tdb_summary_add(m, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), v,
                            present) != 0) {
            pt_errorf(t->err, "out of memory");
            goto out;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if (src != SQLITE_DONE) { tdb_fail(t, "read trend_data for the rank summary"); goto out; }
    rc = tdb_summary_open(t, m) == 0 && tdb_summary_finish(t, m) == 0 ? 0 : -1;
out:
    sqlite3_finalize(st);
    tdb_summary_free(m);
    return rc;
}
