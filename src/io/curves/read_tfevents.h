/* read_tfevents: TensorBoard event files (events.out.tfevents.*: a file,
 * a run's folder of them, or a root with one sub-folder per run) as a
 * run's training curves (probetop-formats(5), TRAINING CURVES:
 * TensorBoard event files).  The row formats_row_tfevents of the reader
 * table; tfevents_read_buf is the part that reads one file's bytes, for the
 * fuzz harness and the tests. */
#ifndef PT_IO_READ_TFEVENTS_H
#define PT_IO_READ_TFEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/curves/curves.h"
#include "model/err.h"

struct tfevents_ctx;

/* What a load keeps across its files: the series met, by tag. */
struct tfevents_ctx *tfevents_ctx_new(struct curves *c);
void tfevents_ctx_free(struct tfevents_ctx *x);

/* Reads the records of one file's bytes buf[0..len) into the curves,
 * series named prefix + tag (prefix "" or "sub/run/").  Bad records are
 * warnings on ds naming path and their byte offset; a cut last record is
 * pending (ds->follow and young) or partial.  Returns the scalars read
 * (0 with *not_tfrecord set, nothing warned, when the file's first header
 * does not check: it is no TFRecord file), or -1 without memory or when
 * the load was cancelled (err). */
long tfevents_read_buf(struct tfevents_ctx *x, const uint8_t *buf, size_t len, const char *path, const char *prefix,
                       struct dataset *ds, int *not_tfrecord, struct pt_error *err);
/* The same from byte start on (follow mode: the records appended since
 * the last read); *end (may be NULL): the end of the last whole record
 * read, where the next read starts; *nwarn_whole (may be NULL):
 * ds->nwarnings before the warnings of a cut last record (those are of
 * bytes read again next time). */
long tfevents_read_from(struct tfevents_ctx *x, const uint8_t *buf, size_t len, size_t start, const char *path,
                        const char *prefix, struct dataset *ds, int *not_tfrecord, size_t *end, size_t *nwarn_whole,
                        struct pt_error *err);

#endif
