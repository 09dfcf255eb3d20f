/* tdb_spool: see tdb_spool.h. */
#include "src/io/trenddb/tdb_spool.h"

#include <stdlib.h>
#include <string.h>

int tdb_spool_flush(struct tdb_spool *s) {
    if (s->n && fwrite(s->b, 1, s->n, s->f) != s->n) return -1;
    s->n = 0;
    return fflush(s->f) != 0 ? -1 : 0;
}

void *tdb_spool_make_room(struct tdb_spool *s, size_t len) {
    if (!s->b && !(s->b = malloc(TDB_SPOOL_BUF))) return NULL;
    if (s->n + len > TDB_SPOOL_BUF) {
        if (fwrite(s->b, 1, s->n, s->f) != s->n) return NULL;
        s->n = 0;
    }
    return s->b + s->n;
}

int tdb_spool_put(struct tdb_spool *s, const void *p, size_t len) {
    void *at = tdb_spool_room(s, len);
    if (!at) return -1;
    memcpy(at, p, len);
    tdb_spool_wrote(s, len);
    return 0;
}

void tdb_spool_close(struct tdb_spool *s) {
    if (s->f) fclose(s->f);
    free(s->b);
    memset(s, 0, sizeof *s);
}
