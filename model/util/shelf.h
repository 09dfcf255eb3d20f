/* shelf: buffers done with, kept for the next of about the same size.  On
 * this kind of machine a fresh page costs a fault and a zeroing (and
 * glibc hands big freed blocks back to the kernel), so a reader or writer
 * that makes the same arrays file after file (the dump reader's rows and
 * names, the dump writer's per-file arrays, the trace reader's kernels,
 * sort keys and lane segments, rank after rank) takes the buffers of the
 * one before, their pages touched already.
 *
 * The rule (util_shelf_get): the smallest buffer that holds the request
 * and is not half as large again (a far larger one is left for a larger
 * need: taken for a small array it would be held whole), else a new one.
 * util_shelf_put keeps the largest: when the slots are full, or the bytes
 * kept would pass the bound, the smallest ones make room if smaller, else
 * the buffer given is freed.
 *
 * The shelf owns the buffers on it; a buffer taken is the caller's (free()
 * frees it, or util_shelf_put gives it back).  Buffers are bigmem_realloc's
 * (plain malloc memory).  With UTIL_SHELF_LOCK it is thread-safe; else the
 * caller locks, or keeps it to one thread.  A buffer taken aliases
 * nothing the caller holds (it was given up whole), so get and take are
 * declared malloc-like, as malloc is to the compiler. */
#ifndef PT_UTIL_SHELF_H
#define PT_UTIL_SHELF_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum {
    UTIL_SHELF_LOCK = 1,    /* a mutex of its own around every call */
    UTIL_SHELF_CUT = 2,     /* util_shelf_get cuts a buffer taken to the size asked (4 KiB more and over
                             * given back, realloc in place): what it had beyond stays resident else */
    UTIL_SHELF_SLACK = 4,   /* a new buffer is an eighth larger than asked (the next file's arrays may
                             * have a few more rows, and take it) */
};

struct util_shelf_buf {
    void *p;
    size_t bytes;
};

struct util_shelf {
    struct util_shelf_buf *v;   /* the buffers kept, in no order */
    int n, slots;               /* v[0..n), room for slots */
    unsigned flags;
    uint64_t held, max;         /* the bytes of v, at most max */
    pthread_mutex_t mu;         /* UTIL_SHELF_LOCK */
};

/* An empty shelf of `slots` buffers (1 at least), at most max bytes in
 * all (UINT64_MAX: no bound), flags UTIL_SHELF_*.  0, or -1 (no memory,
 * no mutex: the caller says which file it was for); util_shelf_free is
 * safe after either. */
int util_shelf_init(struct util_shelf *sh, int slots, unsigned flags, uint64_t max);
/* Frees the buffers on it and what it holds itself. */
void util_shelf_free(struct util_shelf *sh);
/* A buffer of at least bytes (0: 1 byte is made), by the rule above, *got
 * its size (with UTIL_SHELF_CUT, bytes when cut or new); sh NULL: a new
 * one.  NULL: no memory. */
void *util_shelf_get(struct util_shelf *sh, size_t bytes, size_t *got) __attribute__((malloc));
/* Whatever is there, for a caller that grows it itself: the smallest of
 * at least bytes, else the largest (bytes SIZE_MAX: the largest).  NULL
 * (*got 0) when the shelf is empty or sh NULL; never cut, never new. */
void *util_shelf_take(struct util_shelf *sh, size_t bytes, size_t *got) __attribute__((malloc));
/* p (bytes its size, or less: it is only offered for that much) kept, or
 * freed as the rule says; sh NULL: freed.  p NULL: nothing. */
void util_shelf_put(struct util_shelf *sh, void *p, size_t bytes);

#endif
