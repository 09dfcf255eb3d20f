/* load: the one entry point the app and the commands load data through;
 * which reader runs is the reader table's business (formats.c). */
#include "src/io/load.h"

#include "model/util/fs.h"
#include "model/util/util.h"
#include "src/io/common/json.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


void load_opts_init(struct load_opts *o) {
    memset(o, 0, sizeof *o);
    o->micro_step = 1;
    o->mem_budget = util_default_mem();
}

int load_read_file(struct dataset *d, const char *path, size_t max_bytes, char **buf, size_t *len) {
    struct pt_error e;
    if (json_read_file(path, max_bytes, buf, len, &e) == 0) return 0;
    if (dataset_warn(d, "%s", e.msg) != 0 || dataset_skip(d, path) != 0) return -1;
    return 1;
}

int load_young(const struct dataset *d, const char *path) {
    struct stat st;
    if (!d->follow || stat(path, &st) != 0) return 0;
    time_t now = time(NULL);
    return now - st.st_mtime < DS_SETTLE_SECONDS;
}

long load_csv_first_step(const char *name) {
    const char *us = strrchr(name, '_');
    if (!us) return -1;
    const char *p = us + 1;
    if (!strncmp(p, "step", 4)) p += 4;
    if (*p < '0' || *p > '9') return -1;
    long a = 0;
    while (*p >= '0' && *p <= '9' && a < 100000000L) a = a * 10 + (*p++ - '0');
    return *p == '-' ? a : -1;
}

int load_csv_first_steps(const char *dir, int (*match)(const char *name), long **v, size_t *n, size_t *cap) {
    size_t nfs;
    char **files = fs_list_dir(dir, 0, &nfs);
    int rc = 0;
    for (size_t k = 0; files && k < nfs && rc == 0; k++) {
        if (match(files[k]) < 0) continue;
        if (UTIL_PUSH(*v, *n, *cap) != 0) rc = -1;
        else (*v)[(*n)++] = load_csv_first_step(files[k]);
    }
    if (files) fs_free_list(files, nfs);
    return rc;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

long load_step_cut(struct dataset *d, long *v, size_t n) {
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

int load_dataset(const char *path, const struct load_opts *o, struct dataset **out, struct pt_error *err) {
    struct timespec t0, t1;
    struct stat st;
    *out = NULL;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (stat(path, &st) != 0) return pt_errorf(err, "%s: %s", path, strerror(errno));   /* the system's words, as everywhere */
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return pt_errorf(err, "%s: not a file or folder (a FIFO or device?)", path);
    struct dataset *ds = calloc(1, sizeof *ds);
    if (!ds || !(ds->path = strdup(path))) { free(ds); return pt_errorf(err, "out of memory"); }
    ds->micro_step = o->micro_step;
    ds->follow = o->follow;
    ds->max_steps = o->max_steps;
    const struct formats_row *f = o->format ? o->format : formats_detect(path);
    int rc;
    if (f) {
        ds->labels = f->labels;
        rc = f->load(path, o, ds, err);
        /* the labels, by the rules the row (or its reader) chose: one place for every format */
        if (rc == 0 && names_build_labels(ds->cube->names, ds->labels) != 0) rc = pt_errorf(err, "out of memory");
    } else {
        char whats[512];
        rc = pt_errorf(err, "%s: no msProbe data found: expected %s", path, formats_whats(whats, sizeof whats, 0, 1));
    }
    ds->format = f;
    if (rc == 0 && !ds->source) ds->source = strdup(path);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ds->load_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (rc != 0) { dataset_free(ds); return -1; }
    *out = ds;
    return 0;
}
