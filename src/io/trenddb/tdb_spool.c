/* tdb_spool: see tdb_spool.h. */
#include "src/io/trenddb/tdb_spool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/fs.h"

/* The buffer's bytes (they start at off - n in the file) written by the
 * spool's thread, or here when it has none (bgwrite_put).  full: the
 * buffer has no room left (the thread starts at the first such: a flush
 * of a small spool starts none).  0, or -1 with s->err set. */
static int spool_write(struct tdb_spool *s, int full) {
    if (s->err) return -1;   /* the file lacks bytes: nothing after them is of use */
    char *next = bgwrite_put(&s->io, fileno(s->f), s->b, s->n, (off_t)(s->off - s->n), full ? TDB_SPOOL_BUF : 0);
    if (!next) {
        s->err = errno ? errno : EIO;
        return -1;
    }
    s->b = next;
    s->n = 0;
    return 0;
}

int tdb_spool_flush(struct tdb_spool *s) {
    if (s->n && spool_write(s, 0) != 0) return -1;
    if (s->err) return -1;
    if (bgwrite_wait(&s->io) != 0) {
        s->err = errno;
        return -1;
    }
    return 0;
}

void *tdb_spool_make_room(struct tdb_spool *s, size_t len) {
    if (!s->b && !(s->b = malloc(TDB_SPOOL_BUF))) return NULL;
    if (s->n + len > TDB_SPOOL_BUF && spool_write(s, 1) != 0) return NULL;
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
    bgwrite_stop(&s->io);
    if (s->f) fclose(s->f);
    free(s->b);
    memset(s, 0, sizeof *s);
}

const char *tdb_spool_why(const struct tdb_spool *s) { return s->err ? strerror(s->err) : "out of memory"; }
