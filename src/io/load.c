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

int load_opts_add_pattern(struct load_opts *o, const char *spec) {
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || o->npatterns >= LOAD_MAX_PATTERNS) return -1;
    o->patterns[o->npatterns++] = spec;
    return 0;
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
        char whats[sizeof err->msg];
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
