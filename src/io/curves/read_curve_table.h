/* read_curve_table: the reader row of training curves exported as CSV or
 * JSONL (probetop-formats(5), TRAINING CURVES).  The row itself is
 * formats_row_curve_table (src/io/formats.c lists it); this header gives the
 * part that reads a file's bytes, for the fuzz harness. */
#ifndef PT_READ_CURVE_TABLE_H
#define PT_READ_CURVE_TABLE_H

#include <stddef.h>

#include "model/cube/dataset.h"
#include "model/err.h"

/* Parses buf (len bytes, NUL-terminated; path names it in messages) into
 * ds->curves (finished) and ds->cube; bad rows are warnings in ds.  0, or
 * -1 with err (no value read, no step column, cancelled, out of memory). */
int curve_table_parse(const char *buf, size_t len, const char *path, const struct load_opts *o, struct dataset *ds,
                      struct pt_error *err);

#endif
