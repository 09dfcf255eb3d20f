/* tdb_runs: records sorted in bounded memory (an external merge sort).
 * The caller sorts what fits in memory, hands it over as one run (each
 * record a fixed-size key and a payload), and after the last run takes
 * every record back in key order, merged from the runs on a temporary
 * file.  data2db's monitor writer uses it for a rank whose rows do not fit
 * its sort budget, so its memory stays the same however many steps a rank
 * has.  Internal to src/io/trenddb. */
#ifndef PT_TDB_RUNS_H
#define PT_TDB_RUNS_H

#include <stddef.h>
#include <stdint.h>

struct tdb_runs;

/* Keys of keysize bytes (at most 64), ordered by cmp (no two equal: a
 * tie-breaker belongs in the key; cmp and the merge's fn get them
 * unaligned: memcpy them out).  NULL without memory or temporary file. */
struct tdb_runs *tdb_runs_new(size_t keysize, int (*cmp)(const void *, const void *));
void tdb_runs_free(struct tdb_runs *r);
/* One record of the current run (records of a run come in key order). */
int tdb_runs_put(struct tdb_runs *r, const void *key, const void *rec, uint32_t len);
/* The current run ends (a run without records is none). */
int tdb_runs_cut(struct tdb_runs *r);
/* Every record of every run, in key order, through fn (its record valid
 * during the call), reading the runs in buffers of about mem bytes in all;
 * then the runs are gone (r takes new ones).  0; -1 when the file could
 * not be written or read or without memory; fn's own non-zero result. */
int tdb_runs_merge(struct tdb_runs *r, size_t mem,
                   int (*fn)(void *arg, const void *key, const void *rec, uint32_t len), void *arg);

#endif
