/* trace_pieces: a trace file's text a piece at a time for the tokenizer
 * (see trace_parse_ctx.h: tp_refill), read into the parse's buffer or, for
 * a plain file mapped under its lease (trace_src.h), a window on the
 * mapping. */
#include "src/io/trace/trace_parse_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "src/io/common/json_scan.h"

/* The lease on a mapped file broke: someone opens it to write it, and
 * waits (trace_src.h).  The window's text is copied to the buffer, the
 * mapping let go, and the rest read as the file is then. */
static int leave_map(struct ctx *c) {
    size_t n = (size_t)(c->lx.end - c->lx.buf);
    if (!c->buf && !(c->buf = malloc(c->cap + 1))) return pt_errorf(c->err, "%s: out of memory", c->path);
    memcpy(c->buf, c->lx.buf, n);
    uint64_t at = (uint64_t)(c->lx.end - c->src.map);
    c->lx.pos = c->buf + (c->lx.pos - c->lx.buf);
    c->lx.end = c->buf + n;
    c->lx.buf = c->buf;
    return trace_src_unmap(&c->src, at, c->path, c->err);
}

/* The next piece: read into the buffer after the bytes of the token cut by
 * its end, or, mapped, the window moved on by as many bytes as a read would
 * give (the same pieces, so the same tokens and messages). */
int tp_refill(struct ctx *c) {
    if (c->cancel && atomic_load(c->cancel)) return pt_errorf(c->err, "cancelled");
    size_t off = (size_t)(c->lx.pos - c->lx.buf), keep = (size_t)(c->lx.end - c->lx.pos);
    if (keep > c->cap / 2) {   /* one value fills the buffer: grow it, up to the limit */
        if (c->cap >= c->max) {
            const char *b = c->lx.buf;   /* the value itself, past the white space before it */
            size_t at = (size_t)(json_scan_ws(b + off, b + off + keep) - b);
            return pt_errorf(c->err,
                             "%s: byte %llu: a single JSON value longer than %zu MiB (one huge string?): not a "
                             "profiler trace, or a damaged one",
                             c->path, (unsigned long long)(c->lx.off0 + at), c->max >> 20);
        }
        size_t nc = c->cap * 2 > c->max ? c->max : c->cap * 2;
        if (c->buf) {   /* (mapped: none yet) */
            char *nb = realloc(c->buf, nc + 1);
            if (!nb) return pt_errorf(c->err, "%s: out of memory", c->path);
            if (c->lx.buf == c->buf) c->lx.buf = nb, c->lx.pos = nb + off, c->lx.end = nb + off + keep;
            c->buf = nb;
        }
        c->cap = nc;
    }
    if (c->src.map && !trace_src_held(&c->src) && leave_map(c)) return -1;
    if (c->src.map) {
        size_t at = (size_t)(c->lx.pos - c->src.map), end = (size_t)(c->lx.end - c->src.map);
        size_t got = c->src.size - end < c->cap - keep ? (size_t)(c->src.size - end) : c->cap - keep;
        if (got == 0) c->eof = 1;
        trace_src_window(&c->src, at, end + got);
        json_lex_refill(&c->lx, c->lx.pos, keep + got, !c->eof);
        return 0;
    }
    memmove(c->buf, c->lx.pos, keep);
    c->lx.off0 += off;   /* the bytes consumed so far */
    c->lx.buf = c->lx.pos = c->buf;
    long got = trace_src_read(&c->src, c->buf + keep, c->cap - keep, c->path, c->err);
    if (got < 0) return -1;
    if (got == 0) c->eof = 1;
    json_lex_refill(&c->lx, c->buf, keep + (size_t)got, !c->eof);
    return 0;
}
