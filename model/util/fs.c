/* fs: folder listing and path joining for the readers and the rank-folder scanner. */
#if defined(__linux__)
#define _GNU_SOURCE   /* fallocate, FALLOC_FL_PUNCH_HOLE (fs_discard) */
#include <fcntl.h>
#endif
#include "model/util/fs.h"
#include "model/util/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fs_is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int fs_is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}


char **fs_list_dir(const char *path, int with_hidden, size_t *n) {
    DIR *d = opendir(path);
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d) return NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (!with_hidden && e->d_name[0] == '.') continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 32;
            char **x = realloc(v, cap * sizeof *x);
            if (!x) break;
            v = x;
        }
        if (!(v[*n] = strdup(e->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (!v) v = calloc(1, sizeof *v);
    if (v) qsort(v, *n, sizeof *v, util_cmp_str);
    return v;
}

void fs_free_list(char **v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

char *fs_join(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p) return NULL;
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

int fs_base_is(const char *path, const char *name) {
    const char *b = strrchr(path, '/');
    return !strcmp(b ? b + 1 : path, name);
}

int fs_pread_all(int fd, void *buf, size_t n, off_t at) {
    for (size_t got = 0; got < n;) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, at + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

int fs_pwrite_all(int fd, const void *buf, size_t n, off_t at) {
    for (size_t done = 0; done < n;) {
        ssize_t w = pwrite(fd, (const char *)buf + done, n - done, at + (off_t)done);
        if (w < 0 && errno == EINTR) continue;
        if (w == 0) errno = EIO;
        if (w <= 0) return -1;
        done += (size_t)w;
    }
    return 0;
}

void fs_discard(int fd, unsigned long long at, unsigned long long n) {
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
    /* the range rounded inward to 4096 bytes: a file system block it cuts
     * is zeroed only in these bytes, which are read for the last time */
    const unsigned long long page = 4096;
    unsigned long long lo = (at + page - 1) / page * page, hi = (at + n) / page * page;
    if (fd >= 0 && hi > lo)   /* a failure (no such call on this file system) leaves the bytes as they were */
        (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)lo, (off_t)(hi - lo));
#else
    (void)fd, (void)at, (void)n;
#endif
}
