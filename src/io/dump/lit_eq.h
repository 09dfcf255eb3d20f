/* lit_eq: bytes compared with a literal kept padded, a block of 16 at a
 * time, for the dump reader's skeletons (parse_dump_elem.c's tensor
 * objects, rec_skel.h's record pieces): most literals are short, and a
 * call to memcmp costs more than the compare. */
#ifndef PT_LIT_EQ_H
#define PT_LIT_EQ_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "src/io/common/json_scan.h"

/* lit_eq's tail for a literal of n bytes: the mask of its last 1 to 16
 * bytes in their 16-byte block (0: none) */
static inline uint16_t lit_tail(size_t n) { return n ? (uint16_t)((1u << ((n - 1) % 16 + 1)) - 1) : 0; }

#if JSON_HAVE_SSE2
/* n bytes at p equal to l's, 16 readable past the last (both; l padded
 * alike); tail: lit_tail(n).  32 bytes a step, the two blocks' results
 * joined before the one test; the last block tested by its mask alone, so
 * that a literal of 16 bytes or fewer (most: ",\n     \"Max\": ") costs one
 * compare and no loop. */
static inline int lit_eq(const char *p, const char *l, size_t n, unsigned tail) {
#define LD(x) _mm_loadu_si128((const __m128i *)(const void *)(x))
    for (; n > 32; n -= 32, p += 32, l += 32)
        if (_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(LD(p), LD(l)), _mm_cmpeq_epi8(LD(p + 16), LD(l + 16)))) !=
            0xffff)
            return 0;
    if (n > 16) {
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(LD(p), LD(l))) != 0xffff) return 0;
        p += 16, l += 16;
    }
    return ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(LD(p), LD(l))) & tail) == tail;
#undef LD
}
#else
static inline int lit_eq(const char *p, const char *l, size_t n, unsigned tail) {
    (void)tail;
    return !memcmp(p, l, n);
}
#endif

#endif
