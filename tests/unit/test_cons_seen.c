/* construct.json read once for data2db (src/io/dump/parse_dump_cons.c): a
 * file the foresight read is known by its identity (device, inode, size,
 * modification time), and the parse of its rank folder takes the cached
 * micro step table without reading it again; a file whose identity changed
 * is read again.  Shown with a file rewritten in place to other bytes of the
 * same size: kept modification time, the table of the first bytes; another
 * time, the table of the new ones.  Mapped or read, the same tables. */
#include "pt_test.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "src/io/dump/microstep.h"
#include "src/io/dump/read_dump.h"

/* two micro steps, then three in as many bytes */
#define CONS_A "{\"Module.a.0\": null, \"Module.b.0\": null, \"Q.forward.0\": \"Module.a.0\"}"
#define CONS_B "{\"Module.a.0\": null, \"Module.b.0\": null, \"Module.c.0\": null         }"

static void test_known_file(void) {
    const char *dir = pt_tmpdir("cons_seen");
    CHECK(dir != NULL);
    if (!dir) return;
    char cpath[1200], why[1200] = "";
    snprintf(cpath, sizeof cpath, "%s/construct.json", dir);
    CHECK_INT(strlen(CONS_A), strlen(CONS_B));
    CHECK_INT(pt_write(cpath, CONS_A), 0);
    struct cons_cache *c = cons_cache_new();
    CHECK(c != NULL);
    if (!c) return;
    struct dump_opts o = {.micro_step = 1, .cons_cache = c};
    int na = dump_foresee_micro(dir, &o);
    CHECK_INT(na, 2);
    struct stat st;
    CHECK_INT(stat(cpath, &st), 0);
    CHECK_INT(pt_write(cpath, CONS_B), 0);   /* same inode and size, other count */
    struct timespec keep[2] = {st.st_atim, st.st_mtim};
    CHECK_INT(utimensat(AT_FDCWD, cpath, keep, 0), 0);
    CHECK_INT(dump_foresee_micro(dir, &o), na);   /* known: not read */
    char *rbuf = NULL;
    size_t rcap = 0;
    const struct microstep *ms = cons_cache_get(c, cpath, why, sizeof why, &rbuf, &rcap);
    CHECK(ms != NULL);
    if (ms) CHECK_INT(ms->count, na);
    CHECK(rbuf == NULL);   /* the parse read nothing */

    struct timespec later[2] = {st.st_atim, {st.st_mtim.tv_sec + 10, st.st_mtim.tv_nsec}};
    CHECK_INT(utimensat(AT_FDCWD, cpath, later, 0), 0);
    ms = cons_cache_get(c, cpath, why, sizeof why, &rbuf, &rcap);   /* read again (mapped, or into rbuf) */
    CHECK(ms != NULL);
    if (ms) CHECK_INT(ms->count, 3);
    free(rbuf);
    cons_cache_free(c);
}

/* The parse reads construct.json mapped under a read lease, else (the
 * lease refused: here the file is held open for writing) into the caller's
 * buffer: the same tables either way; and a file the parse read first is
 * known to the foresight by its identity (not read again). */
static void test_mapped_or_read(void) {
    const char *dir = pt_tmpdir("cons_map");
    CHECK(dir != NULL);
    if (!dir) return;
    char a[1200], b[1200], why[1200] = "";
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    CHECK_INT(mkdir(a, 0755), 0);
    CHECK_INT(mkdir(b, 0755), 0);
    snprintf(a, sizeof a, "%s/a/construct.json", dir);
    snprintf(b, sizeof b, "%s/b/construct.json", dir);
    CHECK_INT(pt_write(a, CONS_A), 0);
    CHECK_INT(pt_write(b, CONS_B), 0);
    struct cons_cache *c = cons_cache_new();
    CHECK(c != NULL);
    if (!c) return;
    char *rbuf = NULL;
    size_t rcap = 0;
    int wfd = open(b, O_WRONLY);   /* no read lease while it is open to be written */
    CHECK(wfd >= 0);
    const struct microstep *mb = cons_cache_get(c, b, why, sizeof why, &rbuf, &rcap);
    CHECK(mb != NULL);
    if (mb) CHECK_INT(mb->count, 3);
    CHECK(rbuf != NULL);   /* read, not mapped */
    if (wfd >= 0) close(wfd);
    const struct microstep *ma = cons_cache_get(c, a, why, sizeof why, &rbuf, &rcap);
    CHECK(ma != NULL);
    if (ma) CHECK_INT(ma->count, 2);
    CHECK(ma != mb);
    /* rewritten to B's bytes, same size and modification time: the
     * foresight still knows the file the parse read (its count, 2) */
    struct stat st;
    CHECK_INT(stat(a, &st), 0);
    CHECK_INT(pt_write(a, CONS_B), 0);
    struct timespec keep[2] = {st.st_atim, st.st_mtim};
    CHECK_INT(utimensat(AT_FDCWD, a, keep, 0), 0);
    snprintf(a, sizeof a, "%s/a", dir);
    struct dump_opts o = {.micro_step = 1, .cons_cache = c};
    CHECK_INT(dump_foresee_micro(a, &o), 2);
    snprintf(b, sizeof b, "%s/b", dir);
    CHECK_INT(dump_foresee_micro(b, &o), 3);
    free(rbuf);
    cons_cache_free(c);
}

/* A construct.json of k roots (k micro steps) into folder sub of dir. */
static int write_roots(const char *dir, const char *sub, int k) {
    char path[1200], text[2048];
    size_t at = 0;
    at += (size_t)snprintf(text + at, sizeof text - at, "{");
    for (int i = 0; i < k; i++) at += (size_t)snprintf(text + at, sizeof text - at, "%s\"Module.m%d.0\": null", i ? ", " : "", i);
    snprintf(text + at, sizeof text - at, "}");
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (mkdir(path, 0755) != 0) return -1;
    snprintf(path, sizeof path, "%s/%s/construct.json", dir, sub);
    return pt_write(path, text);
}

/* More distinct contents than the cache keeps tables of: the first ones
 * from the cache's tables, the rest from the counts (their hash); a second
 * file of the same bytes (another inode) gets the same count either way. */
static void test_many_contents(void) {
    const char *dir = pt_tmpdir("cons_many");
    CHECK(dir != NULL);
    if (!dir) return;
    struct cons_cache *c = cons_cache_new();
    CHECK(c != NULL);
    if (!c) return;
    struct dump_opts o = {.micro_step = 1, .cons_cache = c};
    char sub[1200], sub2[64];
    for (int round = 0; round < 2; round++)
        for (int k = 1; k <= 12; k++) {
            snprintf(sub2, sizeof sub2, "r%d_%d", round, k);
            CHECK_INT(write_roots(dir, sub2, k), 0);
            snprintf(sub, sizeof sub, "%s/%s", dir, sub2);
            CHECK_INT(dump_foresee_micro(sub, &o), k);
            CHECK_INT(dump_foresee_micro(sub, &o), k);   /* known by its identity */
        }
    char cpath[1300], why[1300] = "";
    char *rbuf = NULL;
    size_t rcap = 0;
    for (int k = 1; k <= 12; k++) {   /* a parse: the table of the first 8, the file alone after */
        snprintf(cpath, sizeof cpath, "%s/r1_%d/construct.json", dir, k);
        const struct microstep *ms = cons_cache_get(c, cpath, why, sizeof why, &rbuf, &rcap);
        CHECK(k <= 8 ? ms != NULL : ms == NULL);
        if (ms) CHECK_INT(ms->count, k);
    }
    free(rbuf);
    cons_cache_free(c);
}

int main(void) {
    RUN(test_known_file);
    RUN(test_many_contents);
    RUN(test_mapped_or_read);
    PT_DONE();
}
