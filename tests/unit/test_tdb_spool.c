/* tdb_spool (src/io/trenddb/tdb_spool.h): bytes put on a spool come back
 * from its file, byte for byte, whether its writer thread (bgwrite) runs
 * (more than one buffer's worth) or not (a small spool), across flushes
 * that hand over part of a buffer; a write that fails on the thread
 * (/dev/full: ENOSPC; a file opened read-only: EBADF) is told by a later
 * call, with its errno for the message, and the spool stays failed.
 * fs_discard (model/util/fs.h) on a spool's file: the bytes outside the
 * range and in the pages it shares with them read back the same; the
 * whole pages inside it read as zeros (a hole), or the same where the
 * file system has no holes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pt_test.h"

#include "model/util/fs.h"
#include "src/io/trenddb/tdb_spool.h"

/* The i-th byte of what is spooled: no run of it repeats at a buffer's length. */
static unsigned char byte_at(uint64_t i) { return (unsigned char)(i * 2654435761u >> 13 ^ i >> 20); }

/* len bytes from at onto s, alternately put and written in place. */
static int spool_bytes(struct tdb_spool *s, uint64_t at, size_t len, int in_place) {
    unsigned char tmp[4096];
    while (len) {
        size_t n = len < sizeof tmp ? len : sizeof tmp;
        n = n > 37 ? n - (at % 37) : n;   /* odd sizes: a buffer never ends at a piece's end */
        for (size_t k = 0; k < n; k++) tmp[k] = byte_at(at + k);
        if (in_place) {
            void *room = tdb_spool_room(s, n);
            if (!room) return -1;
            memcpy(room, tmp, n);
            tdb_spool_wrote(s, n);
        } else if (tdb_spool_put(s, tmp, n) != 0)
            return -1;
        at += n;
        len -= n;
    }
    return 0;
}

/* The file's first n bytes are byte_at's. */
static int file_is(struct tdb_spool *s, uint64_t n) {
    unsigned char *b = malloc(n ? n : 1);
    int ok = b && fs_pread_all(fileno(s->f), b, n, 0) == 0;
    for (uint64_t i = 0; ok && i < n; i++) ok = b[i] == byte_at(i);
    free(b);
    return ok;
}

static void bytes_back(void) {
    struct tdb_spool s = {0};
    CHECK((s.f = tmpfile()) != NULL);
    if (!s.f) return;
    uint64_t n = 0;
    CHECK_INT(spool_bytes(&s, n, 300000, 1), 0);   /* less than a buffer: no thread */
    n += 300000;
    CHECK_INT(tdb_spool_flush(&s), 0);
    CHECK_INT(s.io.on, 0);
    CHECK(file_is(&s, n));
    CHECK_INT(spool_bytes(&s, n, 3 * TDB_SPOOL_BUF + 12345, 0), 0);   /* the thread from the first full buffer */
    n += 3 * TDB_SPOOL_BUF + 12345;
    CHECK_INT(s.io.on, 1);
    CHECK_INT(tdb_spool_flush(&s), 0);
    CHECK((uint64_t)s.off == n);
    CHECK(file_is(&s, n));
    for (int r = 0; r < 5; r++) {   /* flushes of part of a buffer, as a writer's after each rank */
        CHECK_INT(spool_bytes(&s, n, 700001, r & 1), 0);
        n += 700001;
        CHECK_INT(tdb_spool_flush(&s), 0);
        CHECK(file_is(&s, n));
    }
    struct stat st;
    CHECK_INT(fstat(fileno(s.f), &st), 0);
    CHECK_INT((long long)st.st_size, (long long)n);
    tdb_spool_close(&s);
    CHECK(s.f == NULL && s.b == NULL && s.io.spare == NULL && !s.io.on);
}

/* A spool onto f whose writes fail with errno want. */
static void fails_with(FILE *f, int want) {
    struct tdb_spool s = {0};
    s.f = f;
    int rc = 0;
    for (int i = 0; i < 8 && rc == 0; i++) rc = spool_bytes(&s, 0, TDB_SPOOL_BUF / 2, i & 1);
    if (rc == 0) rc = tdb_spool_flush(&s);
    CHECK_INT(rc, -1);   /* the first buffer was handed over and failed: told by a later call */
    CHECK_INT(s.err, want);
    CHECK(strcmp(tdb_spool_why(&s), strerror(want)) == 0);
    CHECK(tdb_spool_room(&s, TDB_SPOOL_BUF) == NULL);   /* failed for good */
    CHECK_INT(tdb_spool_flush(&s), -1);
    tdb_spool_close(&s);
}

static void write_fails(void) {
    FILE *f = fopen("/dev/full", "r+");
    if (f) fails_with(f, ENOSPC);
    const char *dir = pt_tmpdir("tdb_spool_ro");
    char path[4096];
    snprintf(path, sizeof path, "%s/ro", dir);
    FILE *w = fopen(path, "w");
    CHECK(w != NULL);
    if (w) fclose(w);
    FILE *ro = fopen(path, "r");
    CHECK(ro != NULL);
    if (ro) fails_with(ro, EBADF);
    CHECK(strstr(TDB_SPOOL_FILE, P_tmpdir) != NULL);
}

static void discard_keeps_the_rest(void) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    enum { LEN = 9 * 4096 + 123 };
    static unsigned char b[LEN], back[LEN];
    for (size_t i = 0; i < LEN; i++) b[i] = byte_at(i) | 1;   /* no zero byte: a hole shows */
    CHECK_INT(fs_pwrite_all(fileno(f), b, LEN, 0), 0);
    /* [1000, 1000 + 5 * 4096 + 77): whole pages 4096..20479 inside it */
    fs_discard(fileno(f), 1000, 5 * 4096 + 77);
    fs_discard(fileno(f), 8 * 4096 + 10, 100);   /* no whole page: nothing */
    fs_discard(-1, 0, 4096);                      /* no file: nothing, no failure */
    CHECK_INT(fs_pread_all(fileno(f), back, LEN, 0), 0);
    int bad = 0, zeros = 0;
    for (size_t i = 0; i < LEN; i++) {
        int inside = i >= 4096 && i < 5 * 4096;
        if (inside && !back[i]) zeros++;
        else if (back[i] != b[i]) bad++;
    }
    CHECK_INT(bad, 0);
    CHECK(zeros == 0 || zeros == 4 * 4096);   /* a hole, or none at all */
    fclose(f);
}

int main(void) {
    RUN(bytes_back);
    RUN(write_fails);
    RUN(discard_keeps_the_rest);
    PT_DONE();
}
