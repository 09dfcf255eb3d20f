/* load: what a path loads into, whatever its format.
 *
 * load_dataset() detects the format through the reader table (formats.h)
 * or takes the forced one, runs that row's reader (dump directories in
 * parallel, one thread per core), derives the labels by the rules the row
 * set in ds->labels, and returns
 * the cube plus what the panes and `info` need beside it: the dump records
 * flagged by the overflow rules, the per-(step, rank) construct/stack
 * files, the files read and skipped and the warnings.  The input path is
 * only ever read.  The types (struct dataset, struct load_opts) and the
 * plain-data operations on them (notes, free) are model/cube/dataset.h:
 * readers fill them, panes read them; here is what a load and its readers
 * do with files. */
#ifndef PT_LOAD_H
#define PT_LOAD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/err.h"
#include "src/io/formats.h"

/* Defaults: micro steps on, mem_budget the default --mem (a quarter of the
 * machine's memory, at most 1 GiB). */
void load_opts_init(struct load_opts *o);

int load_dataset(const char *path, const struct load_opts *o, struct dataset **out, struct pt_error *err);
/* Reads path whole (NUL-terminated, at most max_bytes) for a reader of many
 * files, where one that cannot be read is normal input: warned of (the
 * reason names the file) and skipped.  0 read (*buf the caller's to free),
 * 1 skipped, -1 no memory. */
int load_read_file(struct dataset *d, const char *path, size_t max_bytes, char **buf, size_t *len);
/* Follow mode: 1 when path changed less than DS_SETTLE_SECONDS ago and
 * d was loaded with load_opts.follow, so what is wrong with it may be a
 * writer still at work; 0 otherwise. */
int load_young(const struct dataset *d, const char *path);
/* Progressive loading of CSV trees: the first step of a file name
 * `<x>_<a>-<b>.csv` or `<x>_step<a>-<b>.csv` (a), -1 when it has none. */
long load_csv_first_step(const char *name);
/* Appends to (*v, *n, *cap) the first step of every file of dir that
 * match() accepts (match >= 0), for load_step_cut.  0, or -1 without
 * memory (*v stays the caller's to free). */
int load_csv_first_steps(const char *dir, int (*match)(const char *name), long **v, size_t *n, size_t *cap);
/* The largest first step to read for d->max_steps, given the first steps
 * v[0..n) of every file (sorted in place; -1 entries always read);
 * LONG_MAX when every file is to be read, else sets d->more. */
long load_step_cut(struct dataset *d, long *v, size_t n);

#endif
