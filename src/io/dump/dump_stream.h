/* dump_stream: dump.json read a window at a time into one buffer of the
 * file's size, for a reader that walks it once from the start (the graph
 * reader, src/io/dump/read_graph.c).  Only the window ahead of the reader
 * is ever filled: the pages of the buffer beyond it are address space, not
 * memory, and the reader gives back the pages behind it (madvise), so a
 * large dump and the tree made from it are not both whole in memory.
 *
 * The tokenizer is given [buf, buf + filled) as its input: it never looks
 * past filled, and a token or value cut there fails as it would at the end
 * of a file; the reader then reads further (a window twice as long from
 * that value on) and parses the value again from where it started. */
#ifndef PT_DUMP_STREAM_H
#define PT_DUMP_STREAM_H

#include <stddef.h>

#include "model/err.h"

struct dump_stream {
    int fd;               /* -1 once the whole file is in */
    char *buf;            /* len + 1 bytes (NUL after the file once filled) */
    size_t len;           /* the file's size when opened */
    size_t filled;        /* bytes read so far, from the start */
    const char *path;
};

/* Opens path (a regular file of at most max_bytes): the buffer, nothing
 * read yet.  0, or -1 with a message. */
int dump_stream_open(struct dump_stream *s, const char *path, size_t max_bytes, struct pt_error *err);
/* Reads on until filled >= upto (or the end of the file): 0, or -1 with a
 * message (a read error, or the file shorter or longer than when it was
 * opened: it is still being written). */
int dump_stream_fill(struct dump_stream *s, size_t upto, struct pt_error *err);
/* 1 when the whole file is in the buffer. */
static inline int dump_stream_whole(const struct dump_stream *s) { return s->filled == s->len; }
void dump_stream_close(struct dump_stream *s);

#endif
