/* tdb_spool: bytes put aside while data2db reads and read back when it
 * writes (trenddb_write_monitor.c: the rows of every rank as read, and the
 * rank summary's rows for tdb_monsum.c; tdb_summary.c, for dumps and
 * monitor trees: the summary's finished records until they go into their
 * tree).  Written through a buffer of its own: rows are a few dozen bytes,
 * and an fwrite each cost more than the row's parse.  A full buffer is
 * handed to a writer thread of the spool's own (bgwrite, started at the
 * first full buffer: a spool of less than TDB_SPOOL_BUF starts none) and
 * the other one filled meanwhile, so the page cache's copy of the bytes
 * is not on the caller's thread (on a big monitor tree the main thread's,
 * the read's critical path).  Read back by pread on fileno(f) once
 * tdb_spool_flush has returned.  Internal to src/io/trenddb. */
#ifndef PT_TDB_SPOOL_H
#define PT_TDB_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/util/bgwrite.h"

#define TDB_SPOOL_BUF ((size_t)1 << 20)

struct tdb_spool {
    FILE *f;                 /* the temporary file (the caller's tmpfile()), written by pwrite only */
    char *b;                 /* the buffer being filled, TDB_SPOOL_BUF bytes */
    size_t n;                /* bytes in b not yet written */
    uint64_t off;            /* bytes put so far */
    struct bgwrite io;       /* the writer thread (io.on: it runs) and the other buffer */
    int err;                 /* a write failed (this call's or an earlier's): its errno; for the message */
};

/* len bytes of p onto the spool.  0, or -1 without memory (err 0) or when
 * the file could not be written (err its errno; a write handed to the
 * thread is told by a later call). */
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
/* Every byte put so far in the file (the thread's last write waited
 * for): 0, or -1 (err as tdb_spool_put's). */
int tdb_spool_flush(struct tdb_spool *s);
/* Why a call failed, for its message (which names the file by
 * TDB_SPOOL_FILE: tmpfile() makes it there, unlinked): the write's error,
 * or "out of memory". */
const char *tdb_spool_why(const struct tdb_spool *s);
#define TDB_SPOOL_FILE "a temporary file in " P_tmpdir
/* The thread stopped, the file closed, the buffers freed; s empty again. */
void tdb_spool_close(struct tdb_spool *s);

#endif
