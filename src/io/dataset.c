/* dataset: format detection and the one entry point the app and the
 * commands load data through. */
#include "src/io/dataset.h"

#include "model/util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/io/read_dump.h"
#include "src/io/read_monitor.h"
#include "src/io/read_trenddb.h"

void load_opts_init(struct load_opts *o) {
    memset(o, 0, sizeof *o);
    o->format = DS_AUTO;
    o->micro_step = 1;
}

const char *ds_format_name(enum ds_format f) {
    switch (f) {
    case DS_DUMP: return "dump";
    case DS_MONITOR: return "monitor";
    case DS_TRENDDB: return "trenddb";
    default: return "auto";
    }
}

int ds_format_parse(const char *s, enum ds_format *out) {
    if (!strcmp(s, "auto")) *out = DS_AUTO;
    else if (!strcmp(s, "dump")) *out = DS_DUMP;
    else if (!strcmp(s, "monitor")) *out = DS_MONITOR;
    else if (!strcmp(s, "trenddb")) *out = DS_TRENDDB;
    else return -1;
    return 0;
}

static int push_str(char ***v, size_t *n, const char *s) {
    char **x = realloc(*v, (*n + 1) * sizeof *x);
    if (!x) return -1;
    *v = x;
    if (!(x[*n] = strdup(s))) return -1;
    (*n)++;
    return 0;
}

int dataset_warn(struct dataset *d, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* the same note for every rank folder says nothing new after the first;
     * looked up in a hash table, as 100 000 broken files give 100 000 notes */
    if (d->nwarnings * 2 >= d->warnidx_cap) {
        size_t cap = d->warnidx_cap ? d->warnidx_cap * 2 : 64;
        size_t *t = calloc(cap, sizeof *t);
        if (!t) return -1;
        for (size_t i = 0; i < d->nwarnings; i++) {
            size_t h = (size_t)util_hash_str(d->warnings[i]) & (cap - 1);
            while (t[h]) h = (h + 1) & (cap - 1);
            t[h] = i + 1;
        }
        free(d->warnidx);
        d->warnidx = t;
        d->warnidx_cap = cap;
    }
    size_t h = (size_t)util_hash_str(buf) & (d->warnidx_cap - 1);
    for (; d->warnidx[h]; h = (h + 1) & (d->warnidx_cap - 1))
        if (!strcmp(d->warnings[d->warnidx[h] - 1], buf)) return 0;
    if (push_str(&d->warnings, &d->nwarnings, buf) != 0) return -1;
    d->warnidx[h] = d->nwarnings;
    return 0;
}

int dataset_skip(struct dataset *d, const char *path) { return push_str(&d->skipped, &d->nskipped, path); }

void dataset_free(struct dataset *d) {
    if (!d) return;
    cube_free(d->cube);
    ovf_list_free(&d->ovf);
    for (size_t i = 0; i < d->nrankdirs; i++) free(d->rankdirs[i].dir);
    free(d->rankdirs);
    for (size_t i = 0; i < d->ndbfiles; i++) free(d->dbfiles[i]);
    free(d->dbfiles);
    for (size_t i = 0; i < d->nskipped; i++) free(d->skipped[i]);
    free(d->skipped);
    for (size_t i = 0; i < d->nwarnings; i++) free(d->warnings[i]);
    free(d->warnings);
    free(d->warnidx);
    free(d->framework);
    free(d->level);
    free(d->task);
    free(d->path);
    free(d->source);
    free(d);
}

/* ---- dump -> cube ---- */

struct dump_to_cube {
    struct cube_builder *b;
    int metric[DM_N];
    int32_t last_step_base, last_origin;
};

static int dump_cube_file(void *vctx, const struct dump_file *f, int32_t step_base) {
    struct dump_to_cube *c = vctx;
    struct names *nm = cube_builder_names(c->b);
    if (cube_builder_rank(c->b, f->rank) != 0) return -1;
    for (int k = 0; k < f->micro_count; k++)
        if (cube_builder_step(c->b, step_base + k, f->step, f->micro_count > 1 || k ? k : 0) != 0) return -1;
    for (size_t i = 0; i < f->nrows; i++) {
        const struct trow *r = &f->rows[i];
        uint32_t t = names_intern(nm, f->arena + r->name, r->len, 0, r->call);
        if (t == NAMES_NONE) return -1;
        if (cube_builder_add(c->b, c->metric[r->metric], t, step_base + r->micro, f->rank, r->v, r->present) != 0)
            return -1;
    }
    return 0;
}

static int load_dump(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct mapping map = {0};
    if (o->mapping && mapping_read(o->mapping, &map, err) != 0) return -1;
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) { mapping_free(&map); return pt_errorf(err, "out of memory"); }
    struct dump_to_cube ctx = {.b = b};
    for (int m = 0; m < DM_N; m++) ctx.metric[m] = cube_builder_metric(b, dump_metric_names[m], 4, dump_stat_names);
    struct dump_opts dopt = {.micro_step = o->micro_step, .mapping = &map, .want_rows = 1,
                             .layout = o->layout, .path_numbers = 1};
    struct dump_summary sum;
    int rc = dump_read(path, o, &dopt, ds, dump_cube_file, &ctx, &sum, err);
    mapping_free(&map);
    if (rc == 0 && sum.files_ok == 0)
        rc = pt_errorf(err, "%s: no dump.json could be read (%zu skipped; first: %s)", path, ds->nskipped,
                       ds->nwarnings ? ds->warnings[0] : "?");
    if (rc == 0) {
        if (!ds->micro_step) ds->micro_step = 0;
        rc = cube_builder_finish(b, &ds->cube, err);
    }
    cube_builder_free(b);
    if (rc == 0 && names_build_labels(ds->cube->names, LABELS_DUMP) != 0) rc = pt_errorf(err, "out of memory");
    ds->ovf_levels = 1;
    return rc;
}

/* ---- detection ---- */

static int has_sqlite_magic(const char *path) {
    FILE *f = fopen(path, "rb");
    char buf[16] = {0};
    if (!f) return 0;
    size_t n = fread(buf, 1, 16, f);
    fclose(f);
    return n == 16 && !memcmp(buf, "SQLite format 3", 16);
}

static enum ds_format detect(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return DS_AUTO;
    if (S_ISREG(st.st_mode)) {
        size_t l = strlen(path);
        if ((l > 3 && !strcmp(path + l - 3, ".db")) || has_sqlite_magic(path)) return DS_TRENDDB;
        return DS_DUMP;
    }
    if (!S_ISDIR(st.st_mode)) return DS_AUTO;
    if (dump_detect(path)) return DS_DUMP;
    if (monitor_detect(path)) return DS_MONITOR;
    if (trenddb_detect_dir(path)) return DS_TRENDDB;
    return DS_AUTO;
}

int dataset_load(const char *path, const struct load_opts *o, struct dataset **out, struct pt_error *err) {
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
    enum ds_format f = o->format == DS_AUTO ? detect(path) : o->format;
    int rc;
    switch (f) {
    case DS_DUMP: rc = load_dump(path, o, ds, err); break;
    case DS_MONITOR: rc = monitor_load(path, o, ds, err); break;
    case DS_TRENDDB: rc = trenddb_load(path, o, ds, err); break;
    default:
        rc = pt_errorf(err, "%s: no msProbe data found: expected a dump (step*/rank*/dump.json), "
                            "a monitor folder (*-rank*-*/ with CSV files) or a .trend.db",
                       path);
    }
    ds->format = f;
    if (rc == 0 && !ds->source) ds->source = strdup(path);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ds->load_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (rc != 0) { dataset_free(ds); return -1; }
    *out = ds;
    return 0;
}
