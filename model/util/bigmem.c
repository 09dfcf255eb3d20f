/* bigmem: see bigmem.h. */
#include "model/util/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define BIGMEM_MIN ((size_t)4 << 20)
#define BIGMEM_HUGE ((size_t)2 << 20)   /* x86-64's huge page */

void *bigmem_realloc(void *p, size_t n) {
    void *q = NULL;
    /* a new block starts on a huge page, so that its first 2 MiB are one
     * too (malloc's start 16 bytes into their mapping); no memory for that:
     * as realloc */
    if (!p && n >= BIGMEM_MIN && posix_memalign(&q, BIGMEM_HUGE, n) != 0) q = NULL;
    if (!q) q = realloc(p, n);
#ifdef MADV_HUGEPAGE
    if (q && n >= BIGMEM_MIN) {
        /* only whole pages inside the block; the kernel backs the 2 MiB
         * aligned parts with huge pages, the rest as before */
        uintptr_t b = ((uintptr_t)q + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)q + n) & ~(uintptr_t)4095;
        if (e > b) (void)madvise((void *)b, e - b, MADV_HUGEPAGE);   /* advice only: failure changes nothing */
    }
#endif
    return q;
}
