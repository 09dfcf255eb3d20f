/* arena: a bump allocator in 1 MiB chunks for many small blocks that die
 * together (a parsed JSON document).  Blocks are 16-byte aligned; there is no
 * per-block free. */
#ifndef PT_UTIL_ARENA_H
#define PT_UTIL_ARENA_H

#include <stddef.h>

struct util_arena {      /* zero-initialise */
    char *chunk;
    size_t used, cap;
    char **old;  size_t nold, capold;
};

void *util_arena_alloc(struct util_arena *a, size_t n);   /* NULL out of memory */
/* n bytes of s and a NUL after them, in the arena; NULL out of memory. */
char *util_arena_strndup(struct util_arena *a, const char *s, size_t n);
void util_arena_reset(struct util_arena *a);   /* frees all but the current chunk, which is reused */
void util_arena_free(struct util_arena *a);

#endif
