/* sqlite_ro: input databases, opened so that nothing is written beside them
 * (see sqlite_ro.h). */
#include "src/io/sqlite_ro.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The path as a URI path: '?', '#', '%' and odd bytes in a file name would
 * otherwise end the path or be decoded (sqlite's URI rules). */
static char *uri_of(const char *path) {
    static const char hex[] = "0123456789ABCDEF";
    static const char head[] = "file:", tail[] = "?mode=ro&immutable=1";
    size_t l = strlen(path);
    char *out = malloc(sizeof head + 3 * l + sizeof tail);
    if (!out) return NULL;
    size_t o = 0;
    memcpy(out, head, sizeof head - 1);
    o = sizeof head - 1;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/._-~", *p))
            out[o++] = (char)*p;
        else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    memcpy(out + o, tail, sizeof tail);
    return out;
}

int sqlite_ro_open(const char *path, sqlite3 **out, struct pt_error *err) {
    struct stat st;
    *out = NULL;
    if (stat(path, &st) != 0) return pt_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return pt_errorf(err, "%s: not a regular file", path);
    /* A rollback journal beside it: a writer is in the middle of a
     * transaction (or died in one).  An immutable read would see its
     * half-written pages: the file is refused until the journal is gone
     * (follow mode reads it again at the next change). */
    size_t pl = strlen(path);
    char *jn = malloc(pl + sizeof "-journal");
    if (!jn) return pt_errorf(err, "out of memory");
    memcpy(jn, path, pl);
    memcpy(jn + pl, "-journal", sizeof "-journal");
    struct stat js;
    int busy = stat(jn, &js) == 0 && S_ISREG(js.st_mode) && js.st_size > 0;
    free(jn);
    if (busy) return pt_errorf(err, "%s: in the middle of a write transaction (%s-journal is beside it): not read", path, path);
    char *uri = uri_of(path);
    if (!uri) return pt_errorf(err, "out of memory");
    sqlite3 *db = NULL;
    /* immutable: no locks, no -shm/-wal/-journal files, no recovery */
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK || sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
        pt_errorf(err, "%s: not an SQLite database (%s)", path, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -1;
    }
    *out = db;
    return 0;
}
