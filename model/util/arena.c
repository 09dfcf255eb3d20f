/* arena: see arena.h. */
#include "model/util/arena.h"

#include "model/util/util.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 20)

void *util_arena_alloc(struct util_arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (a->used + n > a->cap) {
        if (a->chunk) {
            if (UTIL_PUSH(a->old, a->nold, a->capold) != 0) return NULL;
            a->old[a->nold++] = a->chunk;
        }
        size_t cap = n > CHUNK ? n : CHUNK;
        a->chunk = malloc(cap);
        if (!a->chunk) { a->cap = a->used = 0; return NULL; }
        a->cap = cap;
        a->used = 0;
    }
    void *p = a->chunk + a->used;
    a->used += n;
    return p;
}

char *util_arena_strndup(struct util_arena *a, const char *s, size_t n) {
    char *d = util_arena_alloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

void util_arena_reset(struct util_arena *a) {
    for (size_t i = 0; i < a->nold; i++) free(a->old[i]);
    a->nold = 0;
    a->used = 0;
}

void util_arena_free(struct util_arena *a) {
    util_arena_reset(a);
    free(a->old);
    free(a->chunk);
    memset(a, 0, sizeof *a);
}
