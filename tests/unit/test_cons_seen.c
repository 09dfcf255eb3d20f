/* construct.json read once for data2db (src/io/dump/parse_dump_cons.c): a
 * file the foresight read is known by its identity (device, inode, size,
 * modification time), and the parse of its rank folder takes the cached
 * micro step table without reading it again; a file whose identity changed
 * is read again.  Shown with a file rewritten in place to other bytes of the
 * same size: kept modification time, the table of the first bytes; another
 * time, the table of the new ones. */
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
    ms = cons_cache_get(c, cpath, why, sizeof why, &rbuf, &rcap);
    CHECK(ms != NULL);
    if (ms) CHECK_INT(ms->count, 3);
    CHECK(rbuf != NULL);
    free(rbuf);
    cons_cache_free(c);
}

int main(void) {
    RUN(test_known_file);
    PT_DONE();
}
