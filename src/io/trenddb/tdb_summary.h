/* tdb_summary: the rank summary data2db writes beside msProbe's tables
 * (probetop(1), FILES: probetop_rank_summary), made on the way from rows
 * fed rank by rank (the dump and monitor writers) or from trend_data as
 * written.  Internal to src/io/trenddb. */
#ifndef PT_TDB_SUMMARY_H
#define PT_TDB_SUMMARY_H

#include <stdint.h>

#include "src/io/trenddb/tdb.h"

/* Fewer ranks: no summary (a heat map shows them all; the table would cost
 * an eighth of the rows for nothing) */
#define SUMMARY_MIN_RANKS 9

struct tdb_summary;

/* A summary of ns statistic columns named cols (kept: they must outlive
 * it), its group sizes as for ranks 0..max_rank; NULL without memory. */
struct tdb_summary *tdb_summary_new(int ns, const char *const *cols, int64_t max_rank);
void tdb_summary_free(struct tdb_summary *m);
/* Does m have the group sizes of ranks 0..max_rank? */
int tdb_summary_fits(const struct tdb_summary *m, int64_t max_rank);
/* One row of the rank going in, in key order, one per key: its values as
 * trend_data stores them (stored[s], when bit s of present).  0, or -1
 * without memory. */
int tdb_summary_add(struct tdb_summary *m, int64_t step, int64_t target_id, int64_t metric_id, const double *stored,
                    uint32_t present);
/* The rows added since are every row of rank (ranks ascending).  0, or -1
 * without memory. */
int tdb_summary_rank(struct tdb_summary *m, int64_t rank);
/* The table created in t and its statements made. */
int tdb_summary_open(struct tdb *t, struct tdb_summary *m);
/* The rank groups finished so far into the table. */
int tdb_summary_flush(struct tdb *t, struct tdb_summary *m);
/* A window of steps done (its ranks fed, ascending): every group into
 * the table, the accumulators freed; the next window's ranks start again
 * from the first.  Windows come in step order, each group's keys of a
 * window after the window before's: the summary of a long run in bounded
 * memory.  0, or -1 with t's error set. */
int tdb_summary_window(struct tdb *t, struct tdb_summary *m);
/* After the last rank: every group into the table, the statements closed. */
int tdb_summary_finish(struct tdb *t, struct tdb_summary *m);
/* The summary of t's trend_data as written (monitor data, a merge, a dump
 * too big to hold), when it has ranks enough: one scan in key order. */
int tdb_summary_from_table(struct tdb *t);

#endif
