/* dump_stream: see dump_stream.h. */
#include "src/io/dump/dump_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/common/json.h"

int dump_stream_open(struct dump_stream *s, const char *path, size_t max_bytes, struct pt_error *err) {
    struct stat st;
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->path = path;
    int fd;
    if (json_open_regular(path, max_bytes, &fd, &st, err) != 0) return -1;
    s->len = (size_t)st.st_size;
    /* malloc, not calloc: a large block comes from mmap untouched, and the
     * tokenizer reads no byte past filled */
    if (!(s->buf = malloc(s->len + 1))) {
        close(fd);
        return pt_errorf(err, "%s: out of memory for %zu bytes", path, s->len + 1);
    }
    s->fd = fd;
    if (s->len == 0) return dump_stream_fill(s, 0, err);
    return 0;
}

int dump_stream_fill(struct dump_stream *s, size_t upto, struct pt_error *err) {
    if (upto > s->len) upto = s->len;
    while (s->fd >= 0 && s->filled < upto) {
        ssize_t r = read(s->fd, s->buf + s->filled, upto - s->filled);
        if (r < 0) {
            if (errno == EINTR) continue;
            return pt_errorf(err, "%s: read error: %s", s->path, strerror(errno));
        }
        if (r == 0)
            return pt_errorf(err, "%s: changed while it was read (%zu bytes, then %zu): is it still being written?",
                             s->path, s->len, s->filled);
        s->filled += (size_t)r;
    }
    if (s->fd >= 0 && s->filled == s->len) {
        char extra;
        ssize_t r;
        while ((r = read(s->fd, &extra, 1)) < 0 && errno == EINTR) {}
        close(s->fd);
        s->fd = -1;
        s->buf[s->len] = '\0';
        if (r > 0)
            return pt_errorf(err, "%s: changed while it was read (it grew past %zu bytes): is it still being written?",
                             s->path, s->len);
    }
    return 0;
}

void dump_stream_close(struct dump_stream *s) {
    if (s->fd >= 0) close(s->fd);
    free(s->buf);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}
