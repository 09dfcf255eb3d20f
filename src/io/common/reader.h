/* reader: what every reader of the table (src/io/formats.h) does with its
 * files, whatever the format: a file read whole where one that cannot be
 * read is a warning, not a failure; a file still being written in follow
 * mode; the first steps of CSV files for progressive loading.  Below the
 * readers and the loader (src/io/load.c, which runs them), so that no
 * reader calls back up into the code that dispatches to it. */
#ifndef PT_IO_READER_H
#define PT_IO_READER_H

#include <stddef.h>

#include "model/cube/dataset.h"

/* Reads path whole (NUL-terminated, at most max_bytes) for a reader of many
 * files, where one that cannot be read is normal input: warned of (the
 * reason names the file) and skipped.  0 read (*buf the caller's to free),
 * 1 skipped, -1 no memory. */
int reader_read_file(struct dataset *d, const char *path, size_t max_bytes, char **buf, size_t *len);
/* The same into *buf, a buffer of *cap bytes kept from file to file (NULL
 * and 0 at first; the caller's to free, also after a skip), with the status
 * of the file read in *st (the fstat of the open file, st_mode 0 when it
 * could not be opened): the identity of the bytes read, with no stat of its
 * own.  dirfd >= 0: path's folder, open (json_read_stat). */
struct stat;
int reader_read_stat(struct dataset *d, int dirfd, const char *path, size_t max_bytes, char **buf, size_t *cap,
                     size_t *len, struct stat *st);
/* Follow mode: 1 when path changed less than DS_SETTLE_SECONDS ago and
 * d was loaded with load_opts.follow, so what is wrong with it may be a
 * writer still at work; 0 otherwise. */
int reader_young(const struct dataset *d, const char *path);
/* Progressive loading of CSV trees: the first step of a file name
 * `<x>_<a>-<b>.csv` or `<x>_step<a>-<b>.csv` (a), -1 when it has none. */
long reader_csv_first_step(const char *name);
/* Appends to (*v, *n, *cap) the first step of every file of dir that
 * match() accepts (match >= 0), for reader_step_cut.  0, or -1 without
 * memory (*v stays the caller's to free). */
int reader_csv_first_steps(const char *dir, int (*match)(const char *name), long **v, size_t *n, size_t *cap);
/* The largest first step to read for d->max_steps, given the first steps
 * v[0..n) of every file (sorted in place; -1 entries always read);
 * LONG_MAX when every file is to be read, else sets d->more. */
long reader_step_cut(struct dataset *d, long *v, size_t n);

#endif
