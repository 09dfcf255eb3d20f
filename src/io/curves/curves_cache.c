/* curves_cache: what follow mode keeps of a curve input between its loads
 * (see curves_cache.h). */
#include "src/io/curves/curves_cache.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/util/util.h"

#define CURVES_CACHE_MAX 4   /* inputs kept (follow mode follows one) */

struct curves_cache {
    struct curves_cache_entry e[CURVES_CACHE_MAX];
    size_t n, next;          /* next: the entry given up when all are used */
};

struct curves_cache *curves_cache_new(void) { return calloc(1, sizeof(struct curves_cache)); }

void curves_cache_reset(struct curves_cache_entry *e) {
    curves_free(e->c);
    e->c = NULL;
    if (e->state_free) e->state_free(e->state);
    e->state = NULL;
    e->state_free = NULL;
    for (size_t i = 0; i < e->nfiles; i++) free(e->files[i].path);
    free(e->files);
    e->files = NULL;
    e->nfiles = e->capfiles = 0;
    for (size_t i = 0; i < e->nwarnings; i++) free(e->warnings[i]);
    free(e->warnings);
    e->warnings = NULL;
    e->nwarnings = e->capwarnings = 0;
}

void curves_cache_free(struct curves_cache *cc) {
    if (!cc) return;
    for (size_t i = 0; i < cc->n; i++) {
        curves_cache_reset(&cc->e[i]);
        free(cc->e[i].key);
    }
    free(cc);
}

struct curves_cache_entry *curves_cache_get(struct curves_cache *cc, const char *key) {
    for (size_t i = 0; i < cc->n; i++)
        if (!strcmp(cc->e[i].key, key)) return &cc->e[i];
    char *k = strdup(key);
    if (!k) return NULL;
    struct curves_cache_entry *e;
    if (cc->n < CURVES_CACHE_MAX) e = &cc->e[cc->n++];
    else {
        e = &cc->e[cc->next];
        cc->next = (cc->next + 1) % CURVES_CACHE_MAX;
        curves_cache_reset(e);
        free(e->key);
    }
    memset(e, 0, sizeof *e);
    e->key = k;
    return e;
}

struct curves_cache_file *curves_cache_file(struct curves_cache_entry *e, const char *path) {
    for (size_t i = 0; i < e->nfiles; i++)
        if (!strcmp(e->files[i].path, path)) return &e->files[i];
    if (UTIL_PUSH(e->files, e->nfiles, e->capfiles) != 0) return NULL;
    struct curves_cache_file *f = &e->files[e->nfiles];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(path))) return NULL;
    e->nfiles++;
    return f;
}

/* The ntail bytes before off (fewer at the file's start). */
static size_t read_tail(int fd, uint64_t off, uint8_t *buf) {
    size_t n = off < CURVES_CACHE_TAIL ? (size_t)off : CURVES_CACHE_TAIL;
    ssize_t r = n ? pread(fd, buf, n, (off_t)(off - n)) : 0;
    return r == (ssize_t)n ? n : (size_t)-1;
}

int curves_cache_file_same(const struct curves_cache_file *f, int fd, const struct stat *st) {
    if (!f->off) return 1;   /* nothing read: nothing to lose */
    if (st->st_dev != f->dev || st->st_ino != f->ino || (uint64_t)st->st_size < f->off) return 0;
    uint8_t t[CURVES_CACHE_TAIL];
    size_t n = read_tail(fd, f->off, t);
    return n == f->ntail && !memcmp(t, f->tail, n);
}

void curves_cache_file_mark(struct curves_cache_file *f, int fd, const struct stat *st, uint64_t off) {
    f->dev = st->st_dev;
    f->ino = st->st_ino;
    size_t n = read_tail(fd, off, f->tail);
    if (n == (size_t)-1) off = n = 0;   /* unreadable: read it again next time */
    f->off = off;
    f->ntail = n;
}

int curves_cache_warn(struct curves_cache_entry *e, const char *msg) {
    if (UTIL_PUSH(e->warnings, e->nwarnings, e->capwarnings) != 0) return -1;
    if (!(e->warnings[e->nwarnings] = strdup(msg))) return -1;
    e->nwarnings++;
    return 0;
}

struct curves *curves_cache_clone(const struct curves *c) {
    struct curves *o = curves_new();
    if (!o) return NULL;
    if (c->nseries && !(o->series = calloc(c->nseries, sizeof *o->series))) { curves_free(o); return NULL; }
    o->cap = c->nseries;
    for (size_t i = 0; i < c->nseries; i++) {
        const struct curves_series *s = &c->series[i];
        struct curves_series *d = &o->series[i];
        o->nseries = i + 1;
        d->role = s->role;
        d->name = strdup(s->name);
        d->pts = s->n ? malloc(s->n * sizeof *d->pts) : NULL;
        if (!d->name || (s->n && !d->pts)) { curves_free(o); return NULL; }
        if (s->n) memcpy(d->pts, s->pts, s->n * sizeof *d->pts);
        d->n = d->cap = s->n;
    }
    o->first_step = c->first_step;
    o->last_step = c->last_step;
    return o;
}
