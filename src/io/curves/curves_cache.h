/* curves_cache: what follow mode keeps of a training-curve input between
 * its loads (load_opts.curves_cache), so a reload reads only what was
 * appended: the points read so far, the reader's own state (a log's parser
 * with its line count), and per file the byte offset of the last whole
 * line or record with the bytes just before it.  A file that shrank, was
 * replaced (another inode) or whose bytes before that offset changed is
 * read again from its start; a half-written last line or record is left
 * after the offset, for the next read.  Owned by the caller (the session),
 * used by one load at a time. */
#ifndef PT_IO_CURVES_CACHE_H
#define PT_IO_CURVES_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "model/curves/curves.h"

#define CURVES_CACHE_TAIL 64   /* bytes before the offset checked on a reload */

struct curves_cache_file {
    char *path;
    dev_t dev;
    ino_t ino;
    uint64_t off;                        /* bytes read: the end of the last whole line / record */
    uint8_t tail[CURVES_CACHE_TAIL];     /* the bytes before off */
    size_t ntail;
};

/* One input (a log, an event file or a folder of them). */
struct curves_cache_entry {
    char *key;                           /* the input's path */
    struct curves *c;                    /* the points read so far (NULL: nothing yet) */
    void *state;                         /* the reader's (freed by state_free) */
    void (*state_free)(void *state);
    struct curves_cache_file *files;
    size_t nfiles, capfiles;
    char **warnings;                     /* said of the parts read so far, said again each load */
    size_t nwarnings, capwarnings;
};

struct curves_cache;

struct curves_cache *curves_cache_new(void);
void curves_cache_free(struct curves_cache *cc);

/* The entry of input key (created empty); NULL without memory. */
struct curves_cache_entry *curves_cache_get(struct curves_cache *cc, const char *key);
/* Forgets what the entry holds (the input is read from its start). */
void curves_cache_reset(struct curves_cache_entry *e);

/* The entry's record of file path (created at offset 0); NULL without memory. */
struct curves_cache_file *curves_cache_file(struct curves_cache_entry *e, const char *path);
/* 1 when the bytes before f->off are still the file's (fd open on it, st
 * its fstat): the same file, not shorter, the same tail; 0 when it must be
 * read from its start. */
int curves_cache_file_same(const struct curves_cache_file *f, int fd, const struct stat *st);
/* Records that the file's bytes up to off are read (the tail read back from fd). */
void curves_cache_file_mark(struct curves_cache_file *f, int fd, const struct stat *st, uint64_t off);
/* Keeps a warning to be said again at the next loads; 0, -1 without memory. */
int curves_cache_warn(struct curves_cache_entry *e, const char *msg);

/* A copy of c (every series and point); NULL without memory. */
struct curves *curves_cache_clone(const struct curves *c);

#endif
