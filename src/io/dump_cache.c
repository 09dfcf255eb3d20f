/* dump_cache: parsed rank folders kept between loads (dump_cache.h). */
#include "src/io/dump_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "model/util/util.h"
#include "src/io/read_dump.h"

struct dentry {
    char *dir;
    uint64_t sig;
    uint64_t bytes;
    unsigned gen;                 /* the last load that used it */
    struct dump_file f;
};

struct dump_cache {
    struct dentry **e;
    size_t n, cap;
    struct util_smap index;       /* dir -> index into e */
    char *stamp;
    unsigned gen;
    uint64_t budget, bytes;
    struct dcache_stats st;
};

struct dump_cache *dcache_new(uint64_t budget) {
    struct dump_cache *c = calloc(1, sizeof *c);
    if (c) c->budget = budget;
    return c;
}

static void entry_free(struct dentry *e) {
    dump_file_free(&e->f);
    free(e->dir);
    free(e);
}

static void drop_all(struct dump_cache *c) {
    for (size_t i = 0; i < c->n; i++) entry_free(c->e[i]);
    c->n = 0;
    c->bytes = 0;
    util_smap_free(&c->index);
}

void dcache_free(struct dump_cache *c) {
    if (!c) return;
    drop_all(c);
    free(c->e);
    free(c->stamp);
    free(c);
}

struct dcache_stats dcache_stats(const struct dump_cache *c) {
    struct dcache_stats s = c->st;
    s.parts = c->n;
    s.bytes = c->bytes;
    return s;
}

int dcache_begin(struct dump_cache *c, const char *stamp) {
    c->gen++;
    if (c->stamp && !strcmp(c->stamp, stamp)) return 0;
    drop_all(c);
    free(c->stamp);
    return (c->stamp = strdup(stamp)) ? 0 : -1;
}

/* The identity of dir's files: dump.json, construct.json, stack.json, and
 * the step and rank the folder has in this load (its overflow records name
 * them). */
static uint64_t sig_of(const char *dir, int32_t step, int32_t rank) {
    static const char *const names[] = {"dump.json", "construct.json", "stack.json"};
    int32_t sr[2] = {step, rank};
    uint64_t h = util_hash(sr, sizeof sr, 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (stat(p, &st) != 0) {
            h = util_hash("absent", 6, h);
            continue;
        }
        int64_t v[8] = {(int64_t)st.st_dev, (int64_t)st.st_ino, (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec,
                        (int64_t)st.st_mtim.tv_nsec, (int64_t)st.st_ctim.tv_sec, (int64_t)st.st_ctim.tv_nsec,
                        (int64_t)i};
        h = util_hash(v, sizeof v, h);
    }
    return h;
}

const struct dump_file *dcache_find(struct dump_cache *c, const char *dir, int32_t step, int32_t rank, uint64_t *sig) {
    *sig = sig_of(dir, step, rank);
    int32_t *slot = util_smap_slot(&c->index, dir, 0);
    if (slot && *slot >= 0 && c->e[*slot]->sig == *sig) {
        c->e[*slot]->gen = c->gen;
        c->st.kept++;
        return &c->e[*slot]->f;
    }
    c->st.parsed++;
    return NULL;
}

/* What a parse holds in memory, about. */
static uint64_t size_of(const struct dump_file *f) {
    uint64_t n = sizeof *f + f->nrows * sizeof *f->rows + f->alen + f->ovf.n * sizeof *f->ovf.v;
    for (size_t i = 0; i < f->ovf.n; i++)
        n += (f->ovf.v[i].name ? strlen(f->ovf.v[i].name) + 1 : 0) + (f->ovf.v[i].what ? strlen(f->ovf.v[i].what) + 1 : 0);
    return n;
}

/* Drops the entry at i (the last one takes its place). */
static void drop_at(struct dump_cache *c, size_t i) {
    c->bytes -= c->e[i]->bytes;
    int32_t *slot = util_smap_slot(&c->index, c->e[i]->dir, 0);
    if (slot) *slot = -1;
    entry_free(c->e[i]);
    c->e[i] = c->e[--c->n];
    if (i < c->n && (slot = util_smap_slot(&c->index, c->e[i]->dir, 0))) *slot = (int32_t)i;
}

int dcache_keep(struct dump_cache *c, const char *dir, uint64_t sig, struct dump_file *f) {
    if (!f->ok) return 0;
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/dump.json", dir);
    if (stat(p, &st) != 0 || time(NULL) - st.st_mtim.tv_sec <= 1) return 0;
    int32_t *slot = util_smap_slot(&c->index, dir, 0);
    if (slot && *slot >= 0) drop_at(c, (size_t)*slot);   /* the folder changed: its old parse goes */
    /* exact sizes: the parse's buffers grew by doubling */
    if (f->nrows && f->nrows < f->caprows) {
        struct trow *r = realloc(f->rows, f->nrows * sizeof *r);
        if (r) { f->rows = r; f->caprows = f->nrows; }
    }
    if (f->alen && f->alen < f->acap) {
        char *a = realloc(f->arena, f->alen);
        if (a) { f->arena = a; f->acap = f->alen; }
    }
    uint64_t bytes = size_of(f);
    if (c->bytes + bytes > c->budget) return 0;
    struct dentry *e = calloc(1, sizeof *e);
    if (!e || !(e->dir = strdup(dir)) || UTIL_PUSH(c->e, c->n, c->cap) != 0 ||
        !(slot = util_smap_slot(&c->index, dir, 1))) {
        if (e) free(e->dir);
        free(e);
        return 0;
    }
    e->sig = sig;
    e->bytes = bytes;
    e->gen = c->gen;
    e->f = *f;
    memset(f, 0, sizeof *f);
    *slot = (int32_t)c->n;
    c->e[c->n++] = e;
    c->bytes += bytes;
    return 1;
}

void dcache_end(struct dump_cache *c, int whole) {
    if (!whole) return;
    for (size_t i = c->n; i-- > 0;)
        if (c->e[i]->gen != c->gen) drop_at(c, i);
}
