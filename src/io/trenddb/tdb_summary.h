/* tdb_summary: the rank summary data2db writes beside msProbe's tables
 * (probetop(1), FILES: probetop_rank_summary), made on the way from rows
 * fed rank by rank (the dump and monitor writers) or from trend_data as
 * written.  Internal to src/io/trenddb. */
#ifndef PT_TDB_SUMMARY_H
#define PT_TDB_SUMMARY_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "src/io/trenddb/tdb.h"

/* Fewer ranks: no summary (a heat map shows them all; the table would cost
 * an eighth of the rows for nothing) */
#define SUMMARY_MIN_RANKS 9

struct tdb_summary;

/* A summary of ns statistic columns named cols (kept: they must outlive
 * it), its group sizes as for ranks 0..max_rank; NULL without memory. */
struct tdb_summary *tdb_summary_new(int ns, const char *const *cols, int64_t max_rank);
/* Or only a part of its group sizes, so that two threads can share the
 * work: TDB_SUMMARY_RUN (the whole run) and TDB_SUMMARY_GROUPS (the groups
 * of 8 and 64), each fed every row; the RUN part opened with
 * tdb_summary_open, the GROUPS part with tdb_summary_open_twin, both
 * finished by tdb_summary_finish2: the same table as one summary of all. */
enum { TDB_SUMMARY_ALL, TDB_SUMMARY_RUN, TDB_SUMMARY_GROUPS };
struct tdb_summary *tdb_summary_new_part(int ns, const char *const *cols, int64_t max_rank, int part);
void tdb_summary_free(struct tdb_summary *m);
/* Does m have the group sizes of ranks 0..max_rank? */
int tdb_summary_fits(const struct tdb_summary *m, int64_t max_rank);
/* One row of the rank going in, in key order, one per key: its values as
 * trend_data stores them (stored[s], when bit s of present).  0, or -1
 * without memory. */
int tdb_summary_add(struct tdb_summary *m, int64_t step, int64_t target_id, int64_t metric_id, const double *stored,
                    uint32_t present);
/* tdb_summary_add in two halves, for a row made on one thread and added
 * on another (the monitor writer spools its rows so made, packed by
 * tdb_summary_pack_head; tdb_monsum.c reads them back into a summary,
 * tdb_summary_unpack): tdb_summary_row makes the row into e (5 + ns
 * doubles; any part of the same columns makes the same bytes),
 * tdb_summary_rows gives room for n rows so made at the end of the rank's
 * rows (NULL without memory). */
void tdb_summary_row(const struct tdb_summary *m, double *e, int64_t step, int64_t target_id, int64_t metric_id,
                     const double *stored, uint32_t present);
double *tdb_summary_rows(struct tdb_summary *m, size_t n);
/* tdb_summary_row made value by value, for a writer that walks a row's
 * values anyway (the same bytes): e's statistics zeroed (e + 5, ns of
 * them), tdb_summary_val for each present statistic s of stored value v
 * (each once, has and finite starting at 0), then tdb_summary_row_end.  A
 * statistic enters as n 1, its value as min, max and sum, NaN count 0;
 * absent or NaN (NULL), as n 0 with NaN count 1.  msProbe's stored
 * +-(1e9 + 1) are read as the infinities.  The commonest value is tested
 * first (finite, below msProbe's infinity: a NaN fails it).  1 when the
 * value was kept (a bit of has), 0 for a NaN: a writer packing the kept
 * ones tests this, not has before and after (one test less a value). */
static inline int tdb_summary_val(double *e, int s, double v, uint32_t *has, uint32_t *finite) {
    double a = fabs(v);
    if (a < 1000000001.0) *finite |= 1u << s;
    else if (isnan(v)) return 0;
    else if (a == 1000000001.0) v = v > 0 ? INFINITY : -INFINITY;   /* msProbe's infinities */
    else if (isfinite(v)) *finite |= 1u << s;
    e[5 + s] = v;
    *has |= 1u << s;
    return 1;
}
/* What of m a row's head needs (tdb_summary_head), for a writer to keep. */
struct tdb_summary_head {
    uint32_t tells;   /* the norm and mean columns: finite, no NaN in the tensor */
    uint32_t all;     /* a bit per statistic */
};
struct tdb_summary_head tdb_summary_head(const struct tdb_summary *m);
/* A row so made, packed for a spool (the monitor writer's, read back by
 * tdb_summary_unpack): e's 5 + ns doubles, a third to a half of them
 * zeros and small integers, cost their bytes twice through the page cache
 * (written once, read back by two parts), so only what the row adds to
 * the one before it is kept.  A row is: a byte, nv << 1 | nan (nan 1: e[4]
 * is ~has & all, 0: e[4] is 0), bit 6 has as the row before's, bit 7 the
 * step as the row before's; the metric id (6 bits; bit 7: the zeros
 * differ from the row before's); the nv values of has that are not +0.0
 * (8 bytes each, columns ascending); has (2 bytes) unless bit 6; the
 * zeros (a bit per column of has whose value is +0.0, 2 bytes) if bit 7
 * of the metric's byte; the step's difference from the row before's
 * unless bit 7, and the target id's, each zigzag varint (7 bits a byte,
 * low first).  "The row before" starts as step 0, target 0, has 0, zeros 0
 * at each run of rows the reader reads in one (the writer's
 * tdb_summary_prev zeroed: a rank's window).  Rows in key order mostly
 * take 3 bytes besides their values (16 before), and a monitor's many
 * zeros (its nans column) none.
 * tdb_summary_unpack makes e's bytes again (tdb_summary_row_end's head, 0
 * where has has no bit). */
struct tdb_summary_prev {
    int64_t target;
    int32_t step;
    uint32_t has, zeros;
};
_Static_assert(TDB_MAX_STATS <= 16, "tdb_summary_pack: has in 2 bytes, nv in 5 bits");
#define TDB_SUMMARY_PACK_VALS 2   /* the values' place in a row */
#define TDB_SUMMARY_PACKED_MAX (TDB_SUMMARY_PACK_VALS + TDB_MAX_STATS * sizeof(double) + 2 + 2 + 5 + 10)
/* The writer walks a row's statistics once (tdb_summary_val): each value
 * kept (tdb_summary_val said 1; column c) goes at once to out
 * (TDB_SUMMARY_PACKED_MAX bytes of room) by
 * tdb_zval_put(out + TDB_SUMMARY_PACK_VALS, ...) (*nv
 * the values put, *zeros the columns of +0.0, both 0 at the row's
 * start), then the head, with has and finite as tdb_summary_val made
 * them, *prev the row before's (updated); the row's length. */
static inline unsigned char *tdb_summary_pack_zz(unsigned char *o, int64_t d) {
    uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
    while (z >= 0x80) {
        *o++ = (unsigned char)(z | 0x80);
        z >>= 7;
    }
    *o++ = (unsigned char)z;
    return o;
}
static inline size_t tdb_summary_pack_head(unsigned char *out, struct tdb_summary_head hd, struct tdb_summary_prev *prev,
                                           int32_t step, int64_t target_id, uint8_t metric_id, uint32_t has,
                                           uint32_t finite, unsigned nv, uint32_t zeros) {
    int same_has = has == prev->has, same_step = step == prev->step, new_zeros = zeros != prev->zeros;
    out[0] = (unsigned char)(nv << 1 | !(finite & hd.tells) | same_has << 6 | same_step << 7);
    out[1] = (unsigned char)(metric_id | new_zeros << 7);
    unsigned char *o = out + TDB_SUMMARY_PACK_VALS + (size_t)nv * sizeof(double);
    if (!same_has) {
        uint16_t h = (uint16_t)has;
        memcpy(o, &h, sizeof h);
        o += sizeof h;
    }
    if (new_zeros) {
        uint16_t z = (uint16_t)zeros;
        memcpy(o, &z, sizeof z);
        o += sizeof z;
    }
    if (!same_step) o = tdb_summary_pack_zz(o, (int64_t)step - prev->step);
    o = tdb_summary_pack_zz(o, (int64_t)((uint64_t)target_id - (uint64_t)prev->target));
    *prev = (struct tdb_summary_prev){.target = target_id, .step = step, .has = has, .zeros = zeros};
    return (size_t)(o - out);
}
/* len bytes of n rows packed by tdb_summary_pack_head (m's columns; n:
 * the writer's count of them, so the room is made before one walk of the
 * bytes) added to m as tdb_summary_rows' room filled.  0; -1 without
 * memory, -2 when the bytes are not n whole packed rows of m (m as it
 * was). */
int tdb_summary_unpack(struct tdb_summary *m, const unsigned char *b, size_t len, size_t n);
/* Its walk: those rows made again into e (room for n rows of 5 + ns
 * doubles; statistics hd.all, a bit each).  0, or -1 when the bytes are
 * not n whole rows (checked as they are walked: nothing read past len;
 * e's rows made so far are junk). */
int tdb_summary_unpack_rows(struct tdb_summary_head hd, int ns, const unsigned char *b, size_t len, size_t n, double *e);
static inline void tdb_summary_row_end(struct tdb_summary_head hd, double *e, int64_t step, int64_t target_id,
                                       int64_t metric_id, uint32_t has, uint32_t finite) {
    e[0] = (double)step;
    e[1] = (double)target_id;
    e[2] = (double)metric_id;
    /* a NULL is a NaN of the tensor unless the row's finite norm or mean
     * says it held none */
    e[3] = has;
    e[4] = finite & hd.tells ? 0 : ~has & hd.all;
}
/* The rows added since are every row of rank (ranks ascending).  0, or -1
 * without memory. */
int tdb_summary_rank(struct tdb_summary *m, int64_t rank);
/* The rows added to rows since its last rank (kept there, for rows' own
 * tdb_summary_rank) into m as every row of rank: one reading and one add a
 * row for two parts of the same columns.  0, or -1 without memory. */
int tdb_summary_rank_of(struct tdb_summary *m, const struct tdb_summary *rows, int64_t rank);
/* The table created in t and its statements made. */
int tdb_summary_open(struct tdb *t, struct tdb_summary *m);
/* Is m (opened) built beside SQLite, its rows spooled (else INSERTs)? */
int tdb_summary_built(const struct tdb_summary *m);
/* m (TDB_SUMMARY_GROUPS) beside first (TDB_SUMMARY_RUN, opened, its
 * table built beside SQLite: else -1 with t's error set): m's rows
 * spooled, for tdb_summary_finish2.  Between open and finish, feeding a
 * summary built beside SQLite (tdb_summary_add, _rank, _flush, _window)
 * touches no SQLite statement and only t->err and t->final of t. */
int tdb_summary_open_twin(struct tdb *t, struct tdb_summary *m, const struct tdb_summary *first);
/* The rank groups finished so far into the table. */
int tdb_summary_flush(struct tdb *t, struct tdb_summary *m);
/* A window of steps done (its ranks fed, ascending): every group into
 * the table, the accumulators freed; the next window's ranks start again
 * from the first.  Windows come in step order, each group's keys of a
 * window after the window before's: the summary of a long run in bounded
 * memory.  0, or -1 with t's error set. */
int tdb_summary_window(struct tdb *t, struct tdb_summary *m);
/* tdb_summary_window for a part of the whole run (TDB_SUMMARY_RUN, built
 * beside SQLite, opened or a twin): its rows sort first in the table
 * (group_size 0), so a window's go straight into the tree, not onto the
 * spool to be read back at the finish (at 753 MB of monitor data some 80
 * MB less written and read).  The caller gives the windows in order, one
 * at a time over every part: the tree takes them after the rows of
 * trend_data (its first record ends that tree: tdb_bulk_add), so after
 * the last of those.  0, or -1 with t's error set. */
int tdb_summary_window_tree(struct tdb *t, struct tdb_summary *m);
/* After the last rank: every group into the table, the statements closed. */
int tdb_summary_finish(struct tdb *t, struct tdb_summary *m);
/* The same for m and its twin (NULL: none), into one table. */
int tdb_summary_finish2(struct tdb *t, struct tdb_summary *m, struct tdb_summary *twin);
/* The window whose rows m is fed now (0 unless said): parts built beside
 * SQLite may take windows in any order and share them out (a part the
 * even windows of the whole run, another the odd ones; the groups' part a
 * rank group at a time, every window of it), as long as each part takes
 * each group's windows in order; the spooled rows say their window. */
void tdb_summary_at(struct tdb_summary *m, int64_t win);
/* The same for parts[0] (opened) and its twins parts[1..np), into one
 * table in key order. */
int tdb_summary_finish_parts(struct tdb *t, struct tdb_summary *const *parts, size_t np);
/* The summary of t's trend_data as written (monitor data, a merge, a dump
 * too big to hold), when it has ranks enough: one scan in key order. */
int tdb_summary_from_table(struct tdb *t);

#endif
