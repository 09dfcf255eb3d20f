/* tdb_sentry: see tdb_sentry.h. */
#include "src/io/trenddb/tdb_sentry.h"

#include <string.h>

size_t tdb_sentry_pack(unsigned char *out, const unsigned char *rec, size_t len, struct tdb_sentry_prev *prev) {
    size_t h = rec[0], blen = len - h;
    unsigned char *o = out;
    if (h == prev->h && memcmp(rec, prev->head, h) == 0)
        *o++ = 0;
    else {
        memcpy(o, rec, h);
        o[h] = (unsigned char)blen;
        o[h + 1] = (unsigned char)(blen >> 8);
        o += h + 2;
        memcpy(prev->head, rec, h);
        prev->h = h;
    }
    memcpy(o, rec + h, blen);
    return (size_t)(o - out) + blen;
}

size_t tdb_sentry_unpack(const unsigned char *b, size_t len, size_t *at, struct tdb_sentry_prev *prev, unsigned char *rec) {
    size_t i = *at, h, blen = prev->blen;
    const unsigned char *hd = NULL;   /* a new header (NULL: the one in rec) */
    if (i >= len) return 0;
    h = b[i];
    if (!h) {
        if (!prev->h) return 0;   /* no entry before in the segment */
        h = prev->h;
        i++;
    } else {
        if (h >= TDB_SENTRY_HEAD || len - i < h + 2) return 0;
        hd = b + i;
        blen = (size_t)b[i + h] | (size_t)b[i + h + 1] << 8;
        if (blen > TDB_SENTRY_BODY) return 0;
        i += h + 2;
    }
    if (len - i < blen) return 0;
    if (hd) {
        memcpy(rec, hd, h);
        prev->h = h;
        prev->blen = blen;
    }
    memcpy(rec + h, b + i, blen);
    *at = i + blen;
    return h + blen;
}
