/* origin_cap: the first read's capture of a rank's records for the origin
 * search (origin_cap.h). */
#include "model/overflow/origin_cap.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

struct origin_cap *origin_cap_new(const char *path, uint64_t size, int64_t mtime_s, int64_t mtime_ns) {
    struct origin_cap *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (!(c->path = strdup(path))) {
        free(c);
        return NULL;
    }
    c->size = size;
    c->mtime_s = mtime_s;
    c->mtime_ns = mtime_ns;
    return c;
}

int origin_cap_add(struct origin_cap *c, const char *name, size_t nlen, uint64_t v0, uint64_t vlen, uint8_t flags,
                   int reread, const char *bytes) {
    if (vlen > UINT32_MAX || nlen > UINT32_MAX || c->nnames + nlen + 1 > UINT32_MAX) {
        c->bad = 1;   /* beyond what a record holds: the search reads the file whole */
        return 0;
    }
    if (UTIL_PUSH(c->v, c->n, c->cap) != 0 ||
        util_grow((void **)&c->names, &c->capnames, c->nnames + nlen + 1, 1) != 0 ||
        (bytes && util_grow((void **)&c->vals, &c->capvals, c->nvals + vlen, 1) != 0))
        return -1;
    c->v[c->n++] = (struct origin_cap_rec){bytes ? c->nvals : v0, (uint32_t)vlen, (uint32_t)c->nnames, (uint32_t)nlen,
                                           flags, (uint8_t)!!reread, (uint8_t)(bytes != NULL), 0};
    memcpy(c->names + c->nnames, name, nlen);
    c->names[c->nnames + nlen] = '\0';
    c->nnames += nlen + 1;
    if (bytes) {
        memcpy(c->vals + c->nvals, bytes, vlen);
        c->nvals += vlen;
    }
    return 0;
}

int origin_cap_add_light(struct origin_cap *c, const char *name, size_t nlen, uint64_t v0, uint64_t vlen,
                         uint8_t flags) {
    size_t n = c->n;
    if (origin_cap_add(c, name, nlen, v0, vlen, flags, 0, NULL) != 0) return -1;
    if (c->n > n) c->v[n].light = 1;   /* (not when the capture is of no use already) */
    return 0;
}

void origin_cap_free(struct origin_cap *c) {
    if (!c) return;
    free(c->path);
    free(c->v);
    free(c->names);
    free(c->vals);
    free(c->items);
    free(c->ints);
    free(c);
}
