/* test_util_bigmem: model/util/bigmem.h, realloc for the big arrays: a new
 * block of 4 MiB or more starts on a 2 MiB boundary (a huge page from its
 * first byte), and it grows, shrinks and frees as malloc's memory does. */
#include "pt_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/bigmem.h"

#define MIB ((size_t)1 << 20)

static int filled(const unsigned char *p, size_t n, unsigned char v) {
    for (size_t i = 0; i < n; i += 4093)
        if (p[i] != v) return 0;
    return p[n - 1] == v;
}

static void test_new_big_aligned(void) {
    unsigned char *p = bigmem_realloc(NULL, 5 * MIB);
    CHECK(p != NULL);
    if (!p) return;
    CHECK_INT((uintptr_t)p % (2 * MIB), 0);
    memset(p, 0x5a, 5 * MIB);
    /* grown: the bytes kept */
    unsigned char *q = bigmem_realloc(p, 9 * MIB);
    CHECK(q != NULL);
    if (!q) { free(p); return; }
    CHECK(filled(q, 5 * MIB, 0x5a));
    memset(q + 5 * MIB, 0xa5, 4 * MIB);
    /* cut: the bytes kept */
    unsigned char *r = bigmem_realloc(q, 3 * MIB);
    CHECK(r != NULL);
    if (!r) { free(q); return; }
    CHECK(filled(r, 3 * MIB, 0x5a));
    free(r);
}

static void test_small_as_realloc(void) {
    /* under 4 MiB: plain realloc, no alignment asked */
    char *p = bigmem_realloc(NULL, 100);
    CHECK(p != NULL);
    if (!p) return;
    memcpy(p, "probetop", 9);
    char *q = bigmem_realloc(p, 6 * MIB);   /* grown past 4 MiB: the bytes kept */
    CHECK(q != NULL);
    if (!q) { free(p); return; }
    CHECK(!strcmp(q, "probetop"));
    free(q);
}

int main(void) {
    RUN(test_new_big_aligned);
    RUN(test_small_as_realloc);
    PT_DONE();
}
