/* mon_cache: parsed monitor CSV files kept between loads (mon_cache.h).
 * A scratch dataset catches what a parse says (warnings, skips, pending
 * files), so that a kept part can say it again on every load that uses it,
 * as a fresh parse would. */
#include "src/io/mon_cache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "model/names.h"
#include "model/util/util.h"
#include "src/io/dataset.h"

struct entry {
    struct mon_part part;
    uint64_t bytes;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    unsigned gen;                 /* the last load that used it */
};

struct mon_cache {
    struct names *pool;
    struct entry **e;             /* kept parts */
    size_t n, cap;
    struct util_smap index;       /* path -> index into e */
    struct mon_part **tmp;        /* parts of this load not kept */
    size_t ntmp, captmp;
    char *stamp;
    unsigned gen;
    uint64_t budget, bytes;       /* what kept parts may take, and take */
    struct moncache_stats st;
};

static void part_free(struct mon_part *p) {
    for (size_t i = 0; i < p->nfiles; i++) {
        free(p->files[i].rows);
        free(p->files[i].vals);
        if (p->metric_names) free(p->metric_names[i]);
    }
    free(p->files);
    free(p->metric_names);
    for (size_t i = 0; i < p->nnotes; i++) free(p->notes[i]);
    free(p->notes);
    free(p->path);
    memset(p, 0, sizeof *p);
}

struct mon_cache *moncache_new(uint64_t budget) {
    struct mon_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->budget = budget;
    if (!(c->pool = names_new())) {
        free(c);
        return NULL;
    }
    return c;
}

static void drop_tmp(struct mon_cache *c) {
    for (size_t i = 0; i < c->ntmp; i++) {
        part_free(c->tmp[i]);
        free(c->tmp[i]);
    }
    c->ntmp = 0;
}

static void drop_all(struct mon_cache *c) {
    for (size_t i = 0; i < c->n; i++) {
        part_free(&c->e[i]->part);
        free(c->e[i]);
    }
    c->n = 0;
    c->bytes = 0;
    util_smap_free(&c->index);
}

void moncache_free(struct mon_cache *c) {
    if (!c) return;
    drop_tmp(c);
    drop_all(c);
    free(c->e);
    free(c->tmp);
    free(c->stamp);
    names_free(c->pool);
    free(c);
}

struct names *moncache_pool(struct mon_cache *c) { return c->pool; }

struct moncache_stats moncache_stats(const struct mon_cache *c) {
    struct moncache_stats s = c->st;
    s.parts = c->n;
    s.bytes = c->bytes;
    return s;
}

int moncache_begin(struct mon_cache *c, const char *stamp) {
    drop_tmp(c);
    c->gen++;
    if (c->stamp && !strcmp(c->stamp, stamp)) return 0;
    /* what the parts were parsed with changed: none of them holds */
    drop_all(c);
    struct names *pool = names_new();
    char *s = strdup(stamp);
    if (!pool || !s) {
        names_free(pool);
        free(s);
        return -1;
    }
    names_free(c->pool);
    c->pool = pool;
    free(c->stamp);
    c->stamp = s;
    return 0;
}

static int same_file(const struct entry *e, const struct stat *st) {
    return e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
           e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           e->ctime.tv_sec == st->st_ctim.tv_sec && e->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* Says a part's notes into ds, as its parse did. */
static int replay(const struct mon_part *p, struct dataset *ds) {
    for (size_t i = 0; i < p->nnotes; i++)
        if (dataset_warn(ds, "%s", p->notes[i]) != 0) return -1;
    if (p->skipped && dataset_skip(ds, p->path) != 0) return -1;
    return 0;
}

static int push_tmp(struct mon_cache *c, struct mon_part *p) {
    if (UTIL_PUSH(c->tmp, c->ntmp, c->captmp) != 0) return -1;
    c->tmp[c->ntmp++] = p;
    return 0;
}

/* A part's buffers cut to what they hold (they grew by doubling); what
 * it takes in memory, about. */
static uint64_t trim(struct mon_part *p) {
    uint64_t n = sizeof *p + strlen(p->path) + 1;
    for (size_t i = 0; i < p->nfiles; i++) {
        struct mon_file *f = &p->files[i];
        if (f->nrows && f->nrows < f->cap) {
            struct mon_row *r = realloc(f->rows, f->nrows * sizeof *r);
            double *v = f->nval ? realloc(f->vals, f->nrows * (size_t)f->nval * sizeof *v) : f->vals;
            if (r) f->rows = r;
            if (v) f->vals = v;
            if (r && v) f->cap = f->nrows;
        }
        n += sizeof *f + f->cap * (sizeof *f->rows + (size_t)f->nval * sizeof *f->vals);
    }
    for (size_t i = 0; i < p->nnotes; i++) n += strlen(p->notes[i]) + 1;
    return n;
}

/* Keeps p (the parse of a file of identity st) in place of what path had:
 * the kept part (p itself is freed); NULL when it does not fit the budget
 * (p is the caller's still, the old part gone) or without memory. */
static const struct mon_part *keep(struct mon_cache *c, struct mon_part *p, const struct stat *st) {
    int32_t *slot = util_smap_slot(&c->index, p->path, 1);
    if (!slot) return NULL;
    struct entry *e;
    uint64_t bytes = trim(p);
    if (*slot >= 0) {
        e = c->e[*slot];
        part_free(&e->part);
        c->bytes -= e->bytes;
        e->bytes = 0;
        if (c->bytes + bytes > c->budget) {   /* the file changed and no longer fits: its entry stays empty */
            e->gen = 0;
            e->size = -1;
            return NULL;
        }
    } else {
        if (c->bytes + bytes > c->budget) return NULL;
        if (UTIL_PUSH(c->e, c->n, c->cap) != 0 || !(e = calloc(1, sizeof *e))) return NULL;
        *slot = (int32_t)c->n;
        c->e[c->n++] = e;
    }
    e->part = *p;
    free(p);
    e->bytes = bytes;
    c->bytes += bytes;
    e->dev = st->st_dev;
    e->ino = st->st_ino;
    e->size = st->st_size;
    e->mtime = st->st_mtim;
    e->ctime = st->st_ctim;
    e->gen = c->gen;
    return &e->part;
}

int moncache_read(struct mon_cache *c, const char *path, size_t max_bytes, moncache_parse_fn parse, void *ctx,
                  struct dataset *ds, const struct mon_part **out) {
    struct stat st;
    int have_st = stat(path, &st) == 0;
    int32_t *slot = have_st ? util_smap_slot(&c->index, path, 0) : NULL;
    if (slot && *slot >= 0 && same_file(c->e[*slot], &st)) {
        struct entry *e = c->e[*slot];
        e->gen = c->gen;
        c->st.kept++;
        ds->bytes_read += (uint64_t)st.st_size;
        *out = &e->part;
        return replay(&e->part, ds);
    }
    struct mon_part *p = calloc(1, sizeof *p);
    struct dataset *sd = calloc(1, sizeof *sd);
    int rc = p && sd && (p->path = strdup(path)) ? 0 : -1;
    if (sd) {
        sd->follow = ds->follow;
        sd->max_steps = ds->max_steps;
    }
    char *buf = NULL;
    size_t len = 0;
    int got = rc == 0 ? dataset_read_file(sd, path, max_bytes, &buf, &len) : -1;
    if (got < 0) rc = -1;
    if (got == 0) {
        ds->bytes_read += len;
        rc = parse(buf, len, path, ctx, c->pool, sd, p);
    }
    c->st.parsed++;
    /* what the parse said is the part's, to say again each time it is used */
    if (rc == 0) {
        p->notes = sd->warnings;
        p->nnotes = sd->nwarnings;
        sd->warnings = NULL;
        sd->nwarnings = 0;
        p->skipped = sd->nskipped > 0;
        size_t plen = strlen(path);
        for (size_t i = 0; i < sd->npending && rc == 0; i++) {
            const char *why = sd->pending[i];
            if (!strncmp(why, path, plen) && !strncmp(why + plen, ": ", 2)) why += plen + 2;
            rc = dataset_pending(ds, path, why);
        }
    }
    /* a file written within the last second may change again within its
     * modification time's tick, unseen: read again next time, as one
     * being written */
    int keepable = rc == 0 && have_st && !sd->npending && time(NULL) - st.st_mtim.tv_sec > 1;
    dataset_free(sd);
    if (rc == 0) rc = replay(p, ds);
    const struct mon_part *kept = rc == 0 && keepable ? keep(c, p, &st) : NULL;
    if (rc == 0 && !kept) rc = push_tmp(c, p);   /* not kept (or over the budget): for this load only */
    if (rc != 0) {
        if (p) part_free(p);
        free(p);
        return -1;
    }
    *out = kept ? kept : p;
    return 0;
}

int moncache_parse_bytes(struct mon_cache *c, char *buf, size_t len, const char *path, moncache_parse_fn parse,
                         void *ctx, struct dataset *ds, const struct mon_part **out) {
    struct mon_part *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path)) || push_tmp(c, p) != 0) {
        if (p) free(p->path);
        free(p);
        free(buf);
        return -1;
    }
    *out = p;
    return parse(buf, len, path, ctx, c->pool, ds, p);
}

void moncache_end(struct mon_cache *c, int whole) {
    if (!whole) return;
    size_t o = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->e[i]->gen == c->gen) {
            c->e[o++] = c->e[i];
            continue;
        }
        c->bytes -= c->e[i]->bytes;
        part_free(&c->e[i]->part);
        free(c->e[i]);
    }
    if (o == c->n) return;
    c->n = o;
    /* the index again, for what is left (an allocation failure only leaves
     * parts unfound: they are parsed again) */
    util_smap_free(&c->index);
    for (size_t i = 0; i < c->n; i++) {
        int32_t *slot = util_smap_slot(&c->index, c->e[i]->part.path, 1);
        if (slot) *slot = (int32_t)i;
    }
}

struct mon_file *mon_part_add_file(struct mon_part *part, int metric, int32_t rank, uint32_t statmask) {
    struct mon_file *nf = realloc(part->files, (part->nfiles + 1) * sizeof *nf);
    if (!nf) return NULL;
    part->files = nf;
    struct mon_file *f = &part->files[part->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = part->path;
    f->metric = metric;
    f->rank = rank;
    f->statmask = f->valmask = statmask;
    f->nval = __builtin_popcount(statmask);
    return f;
}

struct mon_row *mon_file_add_row(struct mon_file *f, double **vals) {
    if (f->nrows == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 64;
        struct mon_row *r = realloc(f->rows, cap * sizeof *r);
        if (!r) return NULL;
        f->rows = r;
        size_t nv = cap * (size_t)f->nval;
        double *v = realloc(f->vals, (nv ? nv : 1) * sizeof *v);
        if (!v) return NULL;
        f->vals = v;
        f->cap = cap;
    }
    *vals = f->vals + f->nrows * (size_t)f->nval;
    return &f->rows[f->nrows++];
}
