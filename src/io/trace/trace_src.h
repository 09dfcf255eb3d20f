/* trace_src: a trace file's text, plain or gzip'ed (concatenated members
 * as one stream), read a piece at a time (trace_parse.c's input). */
#ifndef PT_TRACE_SRC_H
#define PT_TRACE_SRC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include "model/err.h"

struct trace_src {
    FILE *f;
    int gz, zinit, zeof, zend;
    z_stream z;
    unsigned char *zin;
    uint64_t raw;          /* bytes read from the file */
    uint64_t size;         /* the file's length when opened */
};

/* path opened (gzip when it begins with gzip's magic bytes): 0, or -1 with err naming it. */
int trace_src_open(struct trace_src *s, const char *path, struct pt_error *err);
void trace_src_close(struct trace_src *s);
/* Up to cap bytes of text into out; 0 at the end; -1 with err. */
long trace_src_read(struct trace_src *s, char *out, size_t cap, const char *path, struct pt_error *err);

#endif
