/* trace_src: a trace file's text, a piece at a time (trace_src.h). */

#define _GNU_SOURCE   /* F_SETLEASE, F_SETSIG */
#include "src/io/trace/trace_src.h"

#include "src/io/common/lease_map.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACE_SRC_ZIN ((size_t)256 << 10)    /* compressed bytes per read */

/* A plain file mapped under a read lease (lease_map.h): the file is read
 * where it is refused (a trace still being written is read as it grows). */
static void map_plain(struct trace_src *s) {
    long page = sysconf(_SC_PAGESIZE);
    size_t len;
    const char *m = page > 0 ? lease_map(fileno(s->f), s->size, &len) : NULL;
    if (!m) return;
    s->map = m;
    s->maplen = len;
    s->page = (size_t)page;
}

int trace_src_held(const struct trace_src *s) { return lease_map_held(fileno(s->f)); }

void trace_src_window(struct trace_src *s, size_t from, size_t to) {
    size_t lo = from / s->page * s->page;
    if (lo > s->kept) {   /* read: given back, so that the file's pages do not pile up in the process */
        munmap((void *)(s->map + s->kept), lo - s->kept);
        s->kept = lo;
    }
#ifdef MADV_POPULATE_READ
    /* The first half of the window's new pages mapped in by one call, not
     * by a fault per 16 pages as the scan first touches them (a fault is
     * costly under paravirtualised paging: a fifth of a 1 GB folder's page
     * faults were these); the rest fault in as before.  Half, so that the
     * file's pages mapped at once stay as many as before: the whole window
     * only at its end, when the scan has touched it all (all of it at once
     * raised the median peak RSS of a 62 MB folder by 1 MB).  They are
     * given back as before; advice only: on failure they fault in. */
    size_t hi = from + (to - from) / 2;
    if (hi > s->maplen) hi = s->maplen;
    size_t at = s->mapped > s->kept ? s->mapped : s->kept;
    if (hi > at) {
        (void)madvise((void *)(s->map + at), hi - at, MADV_POPULATE_READ);
        s->mapped = (hi + s->page - 1) / s->page * s->page;
    }
#endif
    s->raw = to;
}

int trace_src_unmap(struct trace_src *s, uint64_t at, const char *path, struct pt_error *err) {
    munmap((void *)(s->map + s->kept), s->maplen - s->kept);
    s->map = NULL;
    int rc = fseeko(s->f, (off_t)at, SEEK_SET) != 0 ? pt_errorf(err, "%s: %s", path, strerror(errno)) : 0;
    fcntl(fileno(s->f), F_SETLEASE, F_UNLCK);
    return rc;
}

int trace_src_open(struct trace_src *s, const char *path, struct pt_error *err) {
    memset(s, 0, sizeof *s);
    s->f = fopen(path, "rb");
    if (!s->f) return pt_errorf(err, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(s->f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(s->f);
        s->f = NULL;
        return pt_errorf(err, "%s: not a regular file", path);
    }
    s->size = (uint64_t)st.st_size;
    unsigned char magic[2];
    size_t got = fread(magic, 1, 2, s->f);
    rewind(s->f);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        s->gz = 1;
        s->zin = malloc(TRACE_SRC_ZIN);
        if (!s->zin || inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
            free(s->zin);
            fclose(s->f);
            s->f = NULL;
            return pt_errorf(err, "%s: out of memory (gzip)", path);
        }
        s->zinit = 1;
    } else {
        map_plain(s);
    }
    return 0;
}

void trace_src_close(struct trace_src *s) {
    if (s->map) munmap((void *)(s->map + s->kept), s->maplen - s->kept);   /* (the lease goes with the file) */
    if (s->zinit) inflateEnd(&s->z);
    free(s->zin);
    if (s->f) fclose(s->f);
    memset(s, 0, sizeof *s);
}

/* The next compressed bytes into zin (none left: zeof).  0, or -1 with err. */
static int zin_fill(struct trace_src *s, const char *path, struct pt_error *err) {
    size_t got = fread(s->zin, 1, TRACE_SRC_ZIN, s->f);
    if (got == 0 && ferror(s->f)) return pt_errorf(err, "%s: %s", path, strerror(errno));
    if (got == 0) s->zeof = 1;
    s->raw += got;
    s->z.next_in = s->zin;
    s->z.avail_in = (uInt)got;
    return 0;
}

long trace_src_read(struct trace_src *s, char *out, size_t cap, const char *path, struct pt_error *err) {
    if (!s->gz) {
        size_t got = fread(out, 1, cap, s->f);
        if (got == 0 && ferror(s->f)) return pt_errorf(err, "%s: %s", path, strerror(errno));
        s->raw += got;
        return (long)got;
    }
    if (s->zend) return 0;
    s->z.next_out = (unsigned char *)out;
    s->z.avail_out = (uInt)(cap > UINT_MAX ? UINT_MAX : cap);
    while (s->z.avail_out == (uInt)(cap > UINT_MAX ? UINT_MAX : cap)) {   /* until some text came out */
        if (s->z.avail_in == 0 && !s->zeof && zin_fill(s, path, err) != 0) return -1;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            /* concatenated gzip members are one stream (gzip -c a b) */
            if (s->z.avail_in == 0 && !s->zeof && zin_fill(s, path, err) != 0) return -1;
            if (s->z.avail_in == 0) { s->zend = 1; break; }
            inflateReset(&s->z);
            continue;
        }
        if (rc == Z_BUF_ERROR && s->z.avail_in == 0 && s->zeof)
            return pt_errorf(err, "%s: the gzip data ends early after %llu compressed bytes (truncated file?)", path,
                             (unsigned long long)s->raw);
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return pt_errorf(err, "%s: compressed byte %llu: not valid gzip data (%s)", path,
                             (unsigned long long)(s->raw - s->z.avail_in), s->z.msg ? s->z.msg : "inflate failed");
    }
    return (long)((cap > UINT_MAX ? UINT_MAX : cap) - s->z.avail_out);
}
