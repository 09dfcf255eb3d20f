/* tdb_sort: a stable sort of (key, value) pairs by an integer key of a
 * known width (a least significant digit radix sort): data2db's monitor
 * writer packs each row's trend_data key (step, target id, metric id) into
 * one integer and sorts a rank's rows with it, where a comparison sort
 * cost more than building the rows.  Internal to src/io/trenddb. */
#ifndef PT_TDB_SORT_H
#define PT_TDB_SORT_H

#include <stddef.h>
#include <stdint.h>

struct tdb_kv {
    uint64_t key, val;
};

/* Bits needed for the values 0..max. */
int tdb_sort_bits(uint64_t max);
/* a[0..n), every key below 2^bits (bits <= 64), sorted by key; pairs of
 * one key keep their order.  tmp has room for n pairs; returns the sorted
 * array (a or tmp), NULL without memory. */
struct tdb_kv *tdb_sort_kv(struct tdb_kv *a, struct tdb_kv *tmp, size_t n, int bits);

#endif
