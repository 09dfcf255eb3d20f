/* radix: see radix.h.  Digits of 11 bits, least significant first;
 * the counts of every digit are made in one pass, and a digit that is the
 * same in every key costs no pass. */
#include "model/util/radix.h"

#include <stdlib.h>
#include <string.h>

#define DIGIT_BITS 11
#define DIGITS (1u << DIGIT_BITS)

int radix_bits(uint64_t max) {
    int b = 0;
    while (b < 64 && (max >> b)) b++;
    return b;
}

struct radix_kv *radix_sort_kv(struct radix_kv *a, struct radix_kv *tmp, size_t n, int bits) {
    int passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
    if (n < 2 || passes == 0) return a;
    size_t (*count)[DIGITS] = calloc((size_t)passes, sizeof *count);
    if (!count) return NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = a[i].key;
        for (int p = 0; p < passes; p++) count[p][(k >> (p * DIGIT_BITS)) & (DIGITS - 1)]++;
    }
    struct radix_kv *src = a, *dst = tmp;
    for (int p = 0; p < passes; p++) {
        size_t *c = count[p], sum = 0;
        int one = 0;
        for (unsigned d = 0; d < DIGITS && !one; d++) one = c[d] == n;
        if (one) continue;   /* every key has this digit: the order stands */
        for (unsigned d = 0; d < DIGITS; d++) {
            size_t x = c[d];
            c[d] = sum;
            sum += x;
        }
        int sh = p * DIGIT_BITS;
        for (size_t i = 0; i < n; i++) dst[c[(src[i].key >> sh) & (DIGITS - 1)]++] = src[i];
        struct radix_kv *t = src;
        src = dst;
        dst = t;
    }
    free(count);
    return src;
}
