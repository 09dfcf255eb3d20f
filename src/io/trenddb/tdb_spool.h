/* tdb_spool: bytes put aside while data2db reads and read back when it
 * writes (trenddb_write_monitor.c: the rows of every rank as read, and the
 * rank summary's rows for tdb_monsum.c; tdb_summary.c, for dumps and
 * monitor trees: the summary's finished records until they go into their
 * tree).  Written through a buffer of its own: rows are a few dozen bytes,
 * and an fwrite each cost more than the row's parse.  Internal to
 * src/io/trenddb. */
#ifndef PT_TDB_SPOOL_H
#define PT_TDB_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TDB_SPOOL_BUF ((size_t)1 << 20)

struct tdb_spool {
    FILE *f;                 /* the temporary file (the caller's tmpfile()) */
    char *b;                 /* the buffer, TDB_SPOOL_BUF bytes */
    size_t n;                /* bytes in b not yet written */
    uint64_t off;            /* bytes put so far */
};

/* len bytes of p onto the spool.  0, or -1 without memory or when the
 * file could not be written. */
int tdb_spool_put(struct tdb_spool *s, const void *p, size_t len);
/* Room for up to len (<= TDB_SPOOL_BUF) bytes at the spool's end, to be
 * written in place and then put by tdb_spool_wrote (the bytes tdb_spool_put
 * would put, without a copy); NULL without memory or when the file could
 * not be written.  The out-of-line part: tdb_spool_make_room. */
void *tdb_spool_make_room(struct tdb_spool *s, size_t len);
static inline void *tdb_spool_room(struct tdb_spool *s, size_t len) {
    return s->b && s->n + len <= TDB_SPOOL_BUF ? s->b + s->n : tdb_spool_make_room(s, len);
}
/* The first len bytes of the room just given put onto the spool. */
static inline void tdb_spool_wrote(struct tdb_spool *s, size_t len) {
    s->n += len;
    s->off += len;
}
/* Every byte put so far onto the file.  0, or -1. */
int tdb_spool_flush(struct tdb_spool *s);
/* The file closed, the buffer freed; s empty again. */
void tdb_spool_close(struct tdb_spool *s);

#endif
