/* sqlite_ro: the one way an input SQLite file (.trend.db, .vis.db) is
 * opened, so that nothing is ever created or changed beside it
 * (probetop-formats(5), SQLITE INPUTS):
 *
 *   a finished file      read in place, read-only and immutable (no locks,
 *                        no -shm/-wal/-journal, no recovery);
 *   a -wal beside it     (a WAL-mode database whose last transactions are
 *                        not yet in the file; msProbe writes its .vis.db so)
 *                        read from a private snapshot: the database and its
 *                        -wal copied into a private temporary folder, the
 *                        log's committed transactions folded in there;
 *   a -journal beside it (a writer in the middle of a transaction) waited
 *                        for a moment, then refused: its pages may be
 *                        half-written.
 *
 * A file read in place may still be written by another process during the
 * read (a second data2db, an rsync): sqlite_ro_changed() tells, from its
 * size, time, inode and SQLite's change counter, and a reader then reads
 * again from a snapshot, whose copy is taken only while the file stays
 * unchanged. */
#ifndef PT_SQLITE_RO_H
#define PT_SQLITE_RO_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <sqlite3.h>

#include "model/err.h"

/* What identifies one state of a file. */
struct sqlite_ro_stamp {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint32_t counter;          /* SQLite's file change counter (header bytes 24..27) */
    int journal;               /* a non-empty -journal beside it */
};

/* An open input: where its connections read. */
struct sqlite_ro_src {
    char *path;                /* the input itself, or the snapshot's copy */
    char *dir;                 /* the snapshot's private folder, or NULL (read in place) */
    int wal;                   /* a -wal was beside the input: read through the snapshot */
    struct sqlite_ro_stamp stamp;   /* the input when it was opened (in place) */
    char *input;               /* the input's path, as given */
};

/* Opens path (any bytes in its name) read-only and checks that it reads as
 * an SQLite database; a snapshot when a -wal is beside it, or when
 * snapshot is set.  0 with *db and *src set (close db with sqlite3_close,
 * then sqlite_ro_src_free), or -1 with err naming the file and the reason. */
int sqlite_ro_open_src(const char *path, int snapshot, sqlite3 **db, struct sqlite_ro_src *src,
                       struct pt_error *err);
/* Another connection on what src reads (the same snapshot). */
int sqlite_ro_reopen(const struct sqlite_ro_src *src, sqlite3 **db, struct pt_error *err);
/* Removes the snapshot (its open connections keep reading it). */
void sqlite_ro_src_free(struct sqlite_ro_src *src);
/* 1 when an input read in place changed since it was opened (what was
 * read since may be torn), else 0 (a snapshot never changes). */
int sqlite_ro_changed(const struct sqlite_ro_src *src);

/* sqlite_ro_open_src without a handle to keep: the snapshot, if any, goes
 * at once (the connection keeps its open file).  0 with *db set (close
 * with sqlite3_close), or -1 with err. */
int sqlite_ro_open(const char *path, sqlite3 **db, struct pt_error *err);

#endif
