/* radix: a stable sort of (key, value) pairs by an integer key of a known
 * width (a least significant digit radix sort), where a comparison sort
 * costs more than making the data: data2db's writers pack each row's
 * trend_data key (step, target id, metric id) into one integer and sort a
 * rank's or a file's rows with it; the trace reader sorts kernels and
 * launches by one key (the value is then the record's place). */
#ifndef PT_UTIL_RADIX_H
#define PT_UTIL_RADIX_H

#include <stddef.h>
#include <stdint.h>

struct radix_kv {
    uint64_t key, val;
};

/* Bits needed for the values 0..max. */
int radix_bits(uint64_t max);
/* a[0..n), every key below 2^bits (bits <= 64), sorted by key; pairs of
 * one key keep their order.  tmp has room for n pairs; returns the sorted
 * array (a or tmp), NULL without memory. */
struct radix_kv *radix_sort_kv(struct radix_kv *a, struct radix_kv *tmp, size_t n, int bits);

#endif
