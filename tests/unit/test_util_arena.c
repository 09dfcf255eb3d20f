/* test_util_arena: the bump arena of model/util/arena.h (the JSON value
 * trees of the dump reader live in it). */
#include "pt_test.h"

#include <stdint.h>
#include <string.h>

#include "model/util/arena.h"

static void test_alloc_aligned(void) {
    struct util_arena a = {0};
    char *p = util_arena_alloc(&a, 3), *q = util_arena_alloc(&a, 1);
    CHECK(p && q);
    CHECK_INT((uintptr_t)p % 16, 0);
    CHECK_INT((uintptr_t)q % 16, 0);
    CHECK_INT(q - p, 16);   /* one chunk, blocks rounded up to 16 bytes */
    memcpy(p, "ab", 3);
    memset(q, 'z', 1);
    CHECK_STR(p, "ab");
    util_arena_free(&a);
    CHECK(a.chunk == NULL);
}

static void test_big_and_many(void) {
    struct util_arena a = {0};
    /* larger than a chunk: a block of its own */
    char *big = util_arena_alloc(&a, (size_t)3 << 20);
    CHECK(big != NULL);
    if (big) memset(big, 1, (size_t)3 << 20);
    /* many chunks: earlier blocks stay valid */
    char *first = util_arena_alloc(&a, 100);
    CHECK(first != NULL);
    if (first) strcpy(first, "kept");
    for (int i = 0; i < 5000; i++) CHECK(util_arena_alloc(&a, 1000) != NULL);
    CHECK_STR(first, "kept");
    CHECK(a.nold >= 4);
    util_arena_free(&a);
}

static void test_reset_reuses(void) {
    struct util_arena a = {0};
    for (int i = 0; i < 3000; i++) util_arena_alloc(&a, 1000);
    char *chunk = a.chunk;
    util_arena_reset(&a);
    CHECK_INT(a.nold, 0);
    CHECK_INT(a.used, 0);
    CHECK(a.chunk == chunk);   /* the current chunk is kept for the next record */
    char *p = util_arena_alloc(&a, 10);
    CHECK(p == chunk);
    util_arena_free(&a);
}

/* n bytes copied and a NUL after them, whatever follows in the source
 * (a token's bytes in a larger buffer); 0 bytes: the empty string. */
static void test_strndup(void) {
    struct util_arena a = {0};
    const char *src = "Module.layers.0.forward\"rest";
    char *p = util_arena_strndup(&a, src, 23), *e = util_arena_strndup(&a, src, 0);
    CHECK(p && e);
    if (p && e) {
        CHECK_STR(p, "Module.layers.0.forward");
        CHECK_INT((long)strlen(p), 23);
        CHECK_STR(e, "");
    }
    util_arena_free(&a);
}

int main(void) {
    RUN(test_alloc_aligned);
    RUN(test_big_and_many);
    RUN(test_reset_reuses);
    RUN(test_strndup);
    PT_DONE();
}
