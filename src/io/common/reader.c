/* reader: see reader.h. */
#include "src/io/common/reader.h"

#include "model/util/fs.h"
#include "model/util/util.h"
#include "src/io/common/json.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int reader_read_file(struct dataset *d, const char *path, size_t max_bytes, char **buf, size_t *len) {
    size_t cap = 0;
    *buf = NULL;
    int rc = reader_read_stat(d, -1, path, max_bytes, buf, &cap, len, NULL);
    if (rc != 0) {
        free(*buf);
        *buf = NULL;
    }
    return rc;
}

int reader_read_stat(struct dataset *d, int dirfd, const char *path, size_t max_bytes, char **buf, size_t *cap,
                     size_t *len, struct stat *st) {
    struct pt_error e;
    if (json_read_stat(dirfd, path, max_bytes, buf, cap, len, st, &e) == 0) return 0;
    if (dataset_warn(d, "%s", e.msg) != 0 || dataset_skip(d, path) != 0) return -1;
    return 1;
}

int reader_young(const struct dataset *d, const char *path) {
    struct stat st;
    if (!d->follow || stat(path, &st) != 0) return 0;
    time_t now = time(NULL);
    return now - st.st_mtime < DS_SETTLE_SECONDS;
}

long reader_csv_first_step(const char *name) {
    const char *us = strrchr(name, '_');
    if (!us) return -1;
    const char *p = us + 1;
    if (!strncmp(p, "step", 4)) p += 4;
    if (*p < '0' || *p > '9') return -1;
    long a = 0;
    while (*p >= '0' && *p <= '9' && a < 100000000L) a = a * 10 + (*p++ - '0');
    return *p == '-' ? a : -1;
}

int reader_csv_first_steps(const char *dir, int (*match)(const char *name), long **v, size_t *n, size_t *cap) {
    size_t nfs;
    char **files = fs_list_dir(dir, 0, &nfs);
    int rc = 0;
    for (size_t k = 0; files && k < nfs && rc == 0; k++) {
        if (match(files[k]) < 0) continue;
        if (UTIL_PUSH(*v, *n, *cap) != 0) rc = -1;
        else (*v)[(*n)++] = reader_csv_first_step(files[k]);
    }
    if (files) fs_free_list(files, nfs);
    return rc;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

long reader_step_cut(struct dataset *d, long *v, size_t n) {
    if (d->max_steps <= 0) return LONG_MAX;
    qsort(v, n, sizeof *v, cmp_long);
    size_t distinct = 0;
    long cut = LONG_MAX;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < 0 || (i && v[i] == v[i - 1])) continue;
        if (distinct++ == (size_t)d->max_steps) cut = v[i] - 1;
    }
    if (cut != LONG_MAX) d->more = distinct - (size_t)d->max_steps;
    return cut;
}
