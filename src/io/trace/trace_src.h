/* trace_src: a trace file's text, plain or gzip'ed (concatenated members
 * as one stream), read a piece at a time (trace_parse.c's input); a plain
 * file is mapped instead, under a read lease (probetop-formats(5), PROFILER
 * TRACES: Memory). */
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
    /* Mapped (plain files): the file's bytes, then zeros to a page past its
     * end; NULL: read.  The lease keeps anyone from writing or cutting the
     * file while it is mapped: a writer's open waits until it is let go. */
    const char *map;
    size_t maplen;         /* the mapping's length */
    size_t kept;           /* the mapping's bytes before this are given back (trace_src_window) */
    size_t mapped;         /* and those before this are mapped in already (trace_src_window) */
    size_t page;
};


/* path opened (gzip when it begins with gzip's magic bytes): 0, or -1 with err naming it. */
int trace_src_open(struct trace_src *s, const char *path, struct pt_error *err);
void trace_src_close(struct trace_src *s);
/* Up to cap bytes of text into out; 0 at the end; -1 with err.  Not while mapped. */
long trace_src_read(struct trace_src *s, char *out, size_t cap, const char *path, struct pt_error *err);
/* Mapped: whether the lease still holds (else someone opens the file to
 * write it and waits: trace_src_unmap, and read the rest). */
int trace_src_held(const struct trace_src *s);
/* Mapped: the text from byte from to byte to is the one being read (the
 * bytes read so far: to); the pages before from are given back. */
void trace_src_window(struct trace_src *s, size_t from, size_t to);
/* Mapped: unmapped and the lease let go, the file to be read on from byte
 * at (trace_src_read).  0, or -1 with err. */
int trace_src_unmap(struct trace_src *s, uint64_t at, const char *path, struct pt_error *err);

#endif
