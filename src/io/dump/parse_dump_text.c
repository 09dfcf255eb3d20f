/* parse_dump_text: the bytes of a dump's files (dump.json, construct.json)
 * for their parse (read_dump.h): mapped under a read lease where the
 * kernel grants one, else read into a buffer the caller keeps from file to
 * file, made ready for the file's size first. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/common/json.h"
#include "src/io/common/lease_map.h"
#include "src/io/dump/read_dump.h"
#include "model/util/bigmem.h"

void parse_dump_cons_fit(const char *path, char **buf, size_t *cap) {
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size < 0 || (size_t)st.st_size + 1 < *cap) return;
    size_t want = ((size_t)st.st_size + 2 + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
    char *b = bigmem_realloc(*buf, want);
    if (!b) return;
    *buf = b;
    *cap = want;
}

/* The text of a dump's file (dump.json, construct.json) into *buf (*len
 * bytes, NULL when empty): mapped under a read lease (lease_map.h; *fd and
 * *maplen to let it go, parse_dump_text_done), which saves the copy of
 * every byte and the fresh pages of a buffer to copy into, else read into
 * *rbuf (*fd -1), fitted first (parse_dump_cons_fit).  0, or -1 with err
 * set (naming the file, as a read would).
 * Only files up to DUMP_MAP_MAX are mapped: the kernel breaks a lease whose
 * holder keeps a writer waiting longer than its lease-break time (45 s by
 * default), and a file cut after that would take pages from under the
 * parse (SIGBUS).  The trace reader asks after every piece whether its
 * lease still holds; a dump's parse is not made in pieces, so instead it is
 * kept far inside that time: 256 MiB parse in well under a second. */
#define DUMP_MAP_MAX ((uint64_t)256 << 20)
int parse_dump_text(const char *path, size_t max_bytes, char **rbuf, size_t *rcap, const char **buf, size_t *len,
                    int *fd, size_t *maplen, struct pt_error *err) {
    struct stat st;
    *buf = NULL;
    *len = 0;
    *fd = -1;
    if (json_open_regular(path, max_bytes, fd, &st, err) != 0) return -1;
    if ((uint64_t)st.st_size <= DUMP_MAP_MAX && (*buf = lease_map(*fd, (uint64_t)st.st_size, maplen))) {
        *len = (size_t)st.st_size;
#ifdef MADV_POPULATE_READ
        (void)madvise((void *)*buf, *len, MADV_POPULATE_READ);
#endif
        return 0;
    }
    close(*fd);
    *fd = -1;
    parse_dump_cons_fit(path, rbuf, rcap);
    if (json_read_reuse(path, max_bytes, rbuf, rcap, len, err) != 0) return -1;
    *buf = *len ? *rbuf : NULL;
    return 0;
}

void parse_dump_text_done(const char *buf, int fd, size_t maplen) {
    if (fd < 0) return;   /* read into the caller's buffer: nothing to let go */
    munmap((void *)buf, maplen);   /* the mapping, then the lease (with the descriptor) */
    close(fd);
}
