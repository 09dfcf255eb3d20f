/* bgwrite: a thread that writes the buffers handed to it (each at its
 * offset of one file) while the caller fills the next: double buffering,
 * the caller's two buffers swapped at each hand-over.  The pwrite's copy
 * into the page cache (a third to a half of data2db's samples on a big
 * tree) then runs on the other core.  A write that failed is told by the
 * next bgwrite_post or bgwrite_wait (its errno), for the caller to name
 * its file; it stays failed.  Used by btree_bulk (the table's pages) and
 * tdb_spool (data2db's spooled rows), through bgwrite_put, which also
 * starts the thread and holds the caller's second buffer. */
#ifndef PT_UTIL_BGWRITE_H
#define PT_UTIL_BGWRITE_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

struct bgwrite {
    pthread_t th;
    int on;                  /* th runs */
    int fd;                  /* the file */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const void *buf;         /* the batch being written (NULL: none), n bytes at at */
    size_t n;
    off_t at;
    int quit;                /* th to end */
    int err;                 /* a write failed: its errno */
    int tried;               /* bgwrite_put tried to start th */
    void *spare;             /* the caller's other buffer (bgwrite_put's; the thread's while it writes it) */
};

/* The caller's full or partial buffer buf (n bytes, for offset at of fd)
 * written: handed to the thread, which is started at the first call with
 * start_cap (a buffer with no room left: a file of less than one buffer
 * starts none), a second buffer of start_cap bytes made for the caller
 * then; or, with no thread (none started yet, or no memory or thread for
 * one), written here.  The buffer to fill next: buf's other half when the
 * thread took buf, else buf itself; NULL with errno when this write or a
 * handed-over one before failed (w failed for good).  w zeroed before its
 * first use; bgwrite_stop frees the second buffer, the caller its own. */
void *bgwrite_put(struct bgwrite *w, int fd, void *buf, size_t n, off_t at, size_t start_cap);

/* The thread started on fd: 0, or -1 (no thread: w->on 0, the caller
 * writes on its own thread, the same bytes). */
int bgwrite_start(struct bgwrite *w, int fd);
/* The batch handed over last written (or none, or no thread): 0, or -1
 * with errno the failed write's. */
int bgwrite_wait(struct bgwrite *w);
/* n bytes of buf to be written at offset at, after the batch before (w
 * on): buf is the thread's until the next _post or _wait returns.  0, or
 * -1 with errno when a write before failed (buf not handed over). */
int bgwrite_post(struct bgwrite *w, const void *buf, size_t n, off_t at);
/* The thread told to end, and joined (its last batch written; a failure
 * is told by a _wait before this); w off; bgwrite_put's second buffer
 * freed.  Nothing more when never started. */
void bgwrite_stop(struct bgwrite *w);

#endif
