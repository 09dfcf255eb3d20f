/* trace_ncache: the last names looked up (trace_ncache.h). */
#include "src/io/trace/trace_ncache.h"

#include <stdlib.h>
#include <string.h>

void trace_ncache_put(struct trace_ncache *c, const char *s, size_t n, int32_t v) {
    if (memchr(s, '\0', n)) return;   /* the map knows it by its part before the NUL */
    size_t i = trace_ncache_slot(s, n);
    struct trace_ncache_ent *e = &c->e[i], *side = &c->e[i ^ 1];
    const char *k = s;
    if (c->own) {
        char *d = malloc(n + 1);
        if (!d) return;
        memcpy(d, s, n);
        d[n] = '\0';
        free((char *)side->s);
        k = d;
    }
    *side = *e;   /* the slot's name beside it, the one there pushed out */
    e->s = k;
    e->n = n;
    e->v = v;
}

void trace_ncache_free(struct trace_ncache *c) {
    if (c->own)
        for (size_t i = 0; i < TRACE_NCACHE_SLOTS; i++) free((char *)c->e[i].s);
    memset(c->e, 0, sizeof c->e);
}
