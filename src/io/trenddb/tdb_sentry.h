/* tdb_sentry: a finished entry's record of the rank summary's groups of 8
 * and 64 (tdb_summary.c's summ_record) packed for the spool it waits on
 * until the finish puts it into the tree in key order (probetop(1),
 * FILES: probetop_rank_summary).  A record and its 4-byte length were
 * some 190 bytes a row at six statistics, 31 of them the record's header
 * (its size byte and a serial type a column), which is the entry
 * before's for 7 entries in 10; packed, such a header is one byte, and the
 * body's length goes with a header that is not.  Written and read with a
 * compare and a copy, some 75 instructions an entry more than the
 * record and its length were: leaving the 8-byte words of zeros out as
 * well saved 7 MB more of 145 at 189 MB of monitor data for 116 M more
 * instructions, a loss.  Internal to src/io/trenddb. */
#ifndef PT_TDB_SENTRY_H
#define PT_TDB_SENTRY_H

#include <stddef.h>

/* An entry is: a byte, 0 when the record's header is the entry before's
 * (and so its body's length), else the header's size h (< 128: its first
 * byte) and then the header's other h - 1 bytes and the body's length, 2
 * bytes low first; then the body.  "The entry before" starts as none at
 * each segment (a run the reader reads in one). */
#define TDB_SENTRY_HEAD 128   /* a header's most bytes, and more than its size byte says */
#define TDB_SENTRY_BODY 1024  /* a body's most bytes */
struct tdb_sentry_prev {
    size_t h, blen;                          /* the entry before's header size (0: none) and body length */
    unsigned char head[TDB_SENTRY_HEAD];     /* the entry before's header (the writer's) */
};
/* The most bytes a record of len bytes packs into. */
#define TDB_SENTRY_MAX(len) ((len) + 2)
/* The record rec of len bytes (its header, rec[0] bytes, < TDB_SENTRY_HEAD,
 * its body <= TDB_SENTRY_BODY) packed into out (TDB_SENTRY_MAX(len) bytes
 * of room), *prev the entry before's (updated; .h 0 at a segment's
 * start): its length. */
size_t tdb_sentry_pack(unsigned char *out, const unsigned char *rec, size_t len, struct tdb_sentry_prev *prev);
/* The entry of b at *at made again into its record at rec
 * (TDB_SENTRY_HEAD + TDB_SENTRY_BODY bytes; the header left there by the
 * call before in the segment kept when the entry says so), *at past it
 * and *prev updated (.h 0 at a segment's start): the record's length, or
 * 0 when the bytes there are not a whole entry (*at at len, cut by len,
 * or not the writer's: *at, *prev and the header in rec as they were;
 * nothing read past len). */
size_t tdb_sentry_unpack(const unsigned char *b, size_t len, size_t *at, struct tdb_sentry_prev *prev, unsigned char *rec);

#endif
