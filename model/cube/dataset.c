/* dataset: the plain-data operations on what a load fills (the notes a
 * reader appends, the free), beside the type, so that readers, panes and
 * commands share them without the loader (src/io/load.h). */
#include "model/cube/dataset.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

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

int dataset_partial(struct dataset *d, const char *path) { return push_str(&d->partial, &d->npartial, path); }

int dataset_pending(struct dataset *d, const char *path, const char *why) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s: %s", path, why);
    return push_str(&d->pending, &d->npending, buf);
}

void dataset_free(struct dataset *d) {
    if (!d) return;
    cube_free(d->cube);
    trace_run_free(d->trace);
    curves_free(d->curves);
    ovf_list_free(&d->ovf);
    anomaly_list_free(&d->anomalies);
    for (size_t i = 0; i < d->nrankdirs; i++) {
        free(d->rankdirs[i].dir);
        origin_cap_free(d->rankdirs[i].ocap);
    }
    free(d->rankdirs);
    for (size_t i = 0; i < d->ndbfiles; i++) free(d->dbfiles[i]);
    free(d->dbfiles);
    for (size_t i = 0; i < d->nskipped; i++) free(d->skipped[i]);
    free(d->skipped);
    for (size_t i = 0; i < d->npartial; i++) free(d->partial[i]);
    free(d->partial);
    for (size_t i = 0; i < d->nwarnings; i++) free(d->warnings[i]);
    free(d->warnings);
    for (size_t i = 0; i < d->npending; i++) free(d->pending[i]);
    free(d->pending);
    free(d->warnidx);
    free(d->nonfinite);
    free(d->framework);
    free(d->level);
    free(d->task);
    free(d->path);
    free(d->source);
    free(d);
}
