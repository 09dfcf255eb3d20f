/* sqlite_ro: input databases, opened so that nothing is written beside them,
 * in place or from a private snapshot (see sqlite_ro.h). */
#include "src/io/common/sqlite_ro.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a writer is waited for, in steps of 5 ms (a writer's pause
 * between two transactions may be short): a -journal beside the input
 * (2 s), a file that changes while it is copied (5 s of pauses, and at
 * most COPY_TRIES copies: each is of the whole file). */
#define JOURNAL_STEPS 400
#define WAIT_STEPS 1000
#define COPY_TRIES 8
#define WAIT_NS 5000000L

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

/* path + suffix, malloc'd. */
static char *with_suffix(const char *path, const char *suffix) {
    size_t pl = strlen(path), sl = strlen(suffix);
    char *s = malloc(pl + sl + 1);
    if (!s) return NULL;
    memcpy(s, path, pl);
    memcpy(s + pl, suffix, sl + 1);
    return s;
}

/* A file beside path (path + suffix) that is regular and not empty. */
static int beside(const char *path, const char *suffix) {
    char *p = with_suffix(path, suffix);
    struct stat st;
    int yes = p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
    free(p);
    return yes;
}

/* The stamp of path; -1 with errno when it cannot be read. */
static int stamp_of(const char *path, struct sqlite_ro_stamp *s) {
    struct stat st;
    unsigned char h[28] = {0};
    memset(s, 0, sizeof *s);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    if (fstat(fd, &st) != 0) { close(fd); return -1; }
    ssize_t n = pread(fd, h, sizeof h, 0);
    close(fd);
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->size = st.st_size;
    s->mtime = st.st_mtim;
    if (n == (ssize_t)sizeof h) s->counter = (uint32_t)h[24] << 24 | (uint32_t)h[25] << 16 | (uint32_t)h[26] << 8 | h[27];
    s->journal = beside(path, "-journal");
    return 0;
}

static int same_stamp(const struct sqlite_ro_stamp *a, const struct sqlite_ro_stamp *b) {
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec && a->counter == b->counter && !a->journal && !b->journal;
}

static void nap(void) {
    struct timespec ts = {0, WAIT_NS};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Copies src to dst (created 0600).  0, or -1 with errno. */
static int copy_file(const char *src, const char *dst) {
    int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
    char buf[1 << 16];
    if (in < 0) return -1;
    if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) goto done;
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) goto done;
        if (n == 0) break;
        for (ssize_t o = 0; o < n;) {
            ssize_t w = write(out, buf + o, (size_t)(n - o));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) goto done;
            o += w;
        }
    }
    rc = 0;
done:;
    int e = errno;
    close(in);
    if (out >= 0 && close(out) != 0 && rc == 0) { rc = -1; e = errno; }
    errno = e;
    return rc;
}

/* Removes the snapshot's files and folder. */
static void remove_snapshot(struct sqlite_ro_src *s) {
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    if (!s->dir) return;
    for (int i = 0; i < 4; i++) {
        char *p = with_suffix(s->path, side[i]);
        if (p) unlink(p);
        free(p);
    }
    rmdir(s->dir);
    free(s->dir);
    s->dir = NULL;
}

/* The -wal's committed transactions into the copy, which then reads as a
 * plain database (in the private folder, where SQLite may write). */
static int fold_wal(const char *path, struct pt_error *err, const char *input) {
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) pt_errorf(err, "%s: its -wal does not read (%s)", input, db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* A copy of path (and its -wal) in a private folder, taken while the
 * database stays unchanged (a -wal may grow meanwhile: SQLite reads only
 * its complete transactions).  0, or -1 with err. */
static int take_snapshot(const char *path, struct sqlite_ro_src *s, struct pt_error *err) {
    const char *tmp = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/probetop-snapshot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl)) return pt_errorf(err, "%s: cannot make a private folder for its snapshot in %s: %s", path,
                                         tmp && *tmp ? tmp : "/tmp", strerror(errno));
    if (!(s->dir = strdup(tmpl)) || !(s->path = with_suffix(tmpl, "/snapshot.db"))) {
        rmdir(tmpl);
        free(s->dir);
        s->dir = NULL;
        return pt_errorf(err, "out of memory");
    }
    char *wal = with_suffix(path, "-wal"), *cwal = with_suffix(s->path, "-wal");
    int rc = -1;
    if (!wal || !cwal) { pt_errorf(err, "out of memory"); goto out; }
    for (int k = 0, copies = 0; k < WAIT_STEPS && copies < COPY_TRIES; k++) {
        struct sqlite_ro_stamp a, b;
        unlink(s->path);
        unlink(cwal);
        if (stamp_of(path, &a) != 0) { pt_errorf(err, "%s: cannot open: %s", path, strerror(errno)); goto out; }
        if (a.journal) { nap(); continue; }
        s->wal = beside(path, "-wal");
        copies++;
        if (copy_file(path, s->path) != 0 || (s->wal && copy_file(wal, cwal) != 0 && errno != ENOENT)) {
            pt_errorf(err, "%s: cannot copy it to a private snapshot in %s: %s", path, s->dir, strerror(errno));
            goto out;
        }
        if (stamp_of(path, &b) == 0 && same_stamp(&a, &b)) { rc = 0; goto out; }
        nap();
    }
    pt_errorf(err, "%s: kept changing while it was copied (another process writes it): not read", path);
out:
    free(wal);
    free(cwal);
    if (rc == 0 && s->wal) rc = fold_wal(s->path, err, path);
    if (rc != 0) remove_snapshot(s);
    return rc;
}

/* An immutable read-only connection on path, checked to read as SQLite. */
static int open_immutable(const char *path, const char *input, sqlite3 **out, struct pt_error *err) {
    char *uri = uri_of(path);
    sqlite3 *db = NULL;
    *out = NULL;
    if (!uri) return pt_errorf(err, "out of memory");
    /* immutable: no locks, no -shm/-wal/-journal files, no recovery */
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc != SQLITE_OK || sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
        pt_errorf(err, "%s: not an SQLite database (%s)", input, db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -1;
    }
    *out = db;
    return 0;
}

int sqlite_ro_open_src(const char *path, int snapshot, sqlite3 **out, struct sqlite_ro_src *s, struct pt_error *err) {
    struct stat st;
    *out = NULL;
    memset(s, 0, sizeof *s);
    if (stat(path, &st) != 0) return pt_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return pt_errorf(err, "%s: not a regular file", path);
    if (!(s->input = strdup(path))) return pt_errorf(err, "out of memory");
    /* A rollback journal beside it: a writer is in the middle of a
     * transaction (or died in one), and an immutable read would see its
     * half-written pages: waited for, then refused. */
    int busy = 1;
    for (int k = 0; k < JOURNAL_STEPS && (busy = beside(path, "-journal")); k++) nap();
    if (busy) {
        sqlite_ro_src_free(s);
        return pt_errorf(err, "%s: in the middle of a write transaction (%s-journal is beside it): not read", path, path);
    }
    if (snapshot || beside(path, "-wal")) {
        if (take_snapshot(path, s, err) != 0) { sqlite_ro_src_free(s); return -1; }
    } else {
        if (!(s->path = strdup(path))) { sqlite_ro_src_free(s); return pt_errorf(err, "out of memory"); }
        if (stamp_of(path, &s->stamp) != 0) {
            pt_errorf(err, "%s: cannot open: %s", path, strerror(errno));
            sqlite_ro_src_free(s);
            return -1;
        }
    }
    if (open_immutable(s->path, path, out, err) != 0) { sqlite_ro_src_free(s); return -1; }
    return 0;
}

int sqlite_ro_reopen(const struct sqlite_ro_src *s, sqlite3 **db, struct pt_error *err) {
    return open_immutable(s->path, s->input, db, err);
}

void sqlite_ro_src_free(struct sqlite_ro_src *s) {
    if (!s) return;
    remove_snapshot(s);
    free(s->path);
    free(s->input);
    memset(s, 0, sizeof *s);
}

int sqlite_ro_changed(const struct sqlite_ro_src *s) {
    struct sqlite_ro_stamp now;
    if (s->dir || !s->input) return 0;
    return stamp_of(s->input, &now) != 0 || !same_stamp(&s->stamp, &now);
}

int sqlite_ro_open(const char *path, sqlite3 **db, struct pt_error *err) {
    struct sqlite_ro_src s;
    if (sqlite_ro_open_src(path, 0, db, &s, err) != 0) return -1;
    sqlite_ro_src_free(&s);   /* the connection has its file open */
    return 0;
}
