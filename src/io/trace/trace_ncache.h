/* trace_ncache: the last names the trace reader looked up (trace_parse.c:
 * kernel names to their index, CPU event names to their phase), found by
 * their length and bytes, before the string map (which hashes the whole
 * name, and strlen's and strcmp's it).  Two ways: a name is held in its
 * slot or the one beside it (slot ^ 1); a name put takes its slot and moves
 * the one there beside it, so two names met by turns that share a slot
 * (the generated traces' backward_step and send_forward) both stay; a name
 * pushed out is simply looked up in the map again.
 *
 * It holds only answers the map gave, for names without a NUL byte inside
 * (a hit is a name whose bytes and length are the entry's), so a hit is
 * always the map's answer. */
#ifndef PT_TRACE_NCACHE_H
#define PT_TRACE_NCACHE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_NCACHE_SLOTS 256

struct trace_ncache_ent {
    const char *s;           /* the name (own: a copy of the cache's) */
    size_t n;
    int32_t v;
};

/* Zero-initialise; own set: the entries' names are the cache's copies
 * (freed by trace_ncache_free), else the caller's, kept alive meanwhile. */
struct trace_ncache {
    struct trace_ncache_ent e[TRACE_NCACHE_SLOTS];
    int own;
};

/* Holds v for the name s of n bytes (nothing when s has a NUL byte within
 * n, or when a copy cannot be made). */
void trace_ncache_put(struct trace_ncache *c, const char *s, size_t n, int32_t v);
void trace_ncache_free(struct trace_ncache *c);

/* The slot of a name: its length, first, middle and last eight bytes. */
static inline size_t trace_ncache_slot(const char *s, size_t n) {
    uint64_t a = 0, b = 0, m = 0;
    if (n >= 8) {
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        if (n >= 24) __builtin_memcpy(&m, s + n / 2 - 4, 8);
    } else {
        __builtin_memcpy(&a, s, n);
    }
    uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full) ^ (m * 0x165667b19e3779f9ull) ^ n;
    h ^= h >> 29;
    return (size_t)((h * 0xff51afd7ed558ccdull) >> 56) & (TRACE_NCACHE_SLOTS - 1);
}

/* The value of the name [s, s + n), or NULL when it is not held. */
static inline const int32_t *trace_ncache_get(const struct trace_ncache *c, const char *s, size_t n) {
    size_t i = trace_ncache_slot(s, n);
    const struct trace_ncache_ent *e = &c->e[i];
    if (e->s && e->n == n && !__builtin_memcmp(e->s, s, n)) return &e->v;
    e = &c->e[i ^ 1];
    return e->s && e->n == n && !__builtin_memcmp(e->s, s, n) ? &e->v : NULL;
}

#endif
