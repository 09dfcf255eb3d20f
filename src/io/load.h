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
 * readers fill them, panes read them; what every reader does with its
 * files is src/io/common/reader.h. */
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

/* --pattern NAME=REGEX (spec not copied: argv's): 0, or -1 when it has no
 * "NAME=" or there are LOAD_MAX_PATTERNS already.  The regex is compiled
 * by the reader, which names a bad one with its offset. */
int load_opts_add_pattern(struct load_opts *o, const char *spec);

int load_dataset(const char *path, const struct load_opts *o, struct dataset **out, struct pt_error *err);
#endif
