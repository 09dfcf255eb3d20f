/* mon_cache: parsed monitor CSV files kept between loads (mon_cache.h),
 * in a pstore (pstore.h) keyed by path.  A scratch dataset catches what a
 * parse says (warnings, skips, pending files), so that a kept part can say
 * it again on every load that uses it, as a fresh parse would. */
#include "src/io/mon_cache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "model/names.h"
#include "model/util/util.h"
#include "src/io/dataset.h"
#include "src/io/pstore.h"

struct mon_cache {
    struct names *pool;
    struct pstore *store;         /* path -> struct mon_part * */
    struct mon_part **tmp;        /* parts of this load not kept */
    size_t ntmp, captmp;
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
    free(p);
}

static void part_free_v(void *p) { part_free(p); }

struct mon_cache *moncache_new(uint64_t budget) {
    struct mon_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->pool = names_new();
    c->store = pstore_new(budget, part_free_v);
    if (!c->pool || !c->store) {
        names_free(c->pool);
        pstore_free(c->store);
        free(c);
        return NULL;
    }
    return c;
}

static void drop_tmp(struct mon_cache *c) {
    for (size_t i = 0; i < c->ntmp; i++) part_free(c->tmp[i]);
    c->ntmp = 0;
}

void moncache_free(struct mon_cache *c) {
    if (!c) return;
    drop_tmp(c);
    pstore_free(c->store);
    free(c->tmp);
    names_free(c->pool);
    free(c);
}

struct names *moncache_pool(struct mon_cache *c) { return c->pool; }

struct moncache_stats moncache_stats(const struct mon_cache *c) {
    struct moncache_stats s = c->st;
    s.parts = pstore_count(c->store);
    s.bytes = pstore_bytes(c->store);
    return s;
}

int moncache_begin(struct mon_cache *c, const char *stamp) {
    drop_tmp(c);
    int r = pstore_begin(c->store, stamp);
    if (r <= 0) return r;
    /* a new stamp dropped every part: the names they used go too */
    struct names *pool = names_new();
    if (!pool) return -1;
    names_free(c->pool);
    c->pool = pool;
    return 0;
}

/* A file's identity: its inode, size, modification and change times. */
static uint64_t sig_of(const struct stat *st) {
    int64_t v[7] = {(int64_t)st->st_dev, (int64_t)st->st_ino, (int64_t)st->st_size, (int64_t)st->st_mtim.tv_sec,
                    (int64_t)st->st_mtim.tv_nsec, (int64_t)st->st_ctim.tv_sec, (int64_t)st->st_ctim.tv_nsec};
    return util_hash(v, sizeof v, 0x5bd1e995u);
}

/* Says a part's notes into ds, as its parse did. */
static int replay(const struct mon_part *p, struct dataset *ds) {
    for (size_t i = 0; i < p->nnotes; i++)
        if (dataset_warn(ds, "%s", p->notes[i]) != 0) return -1;
    if (p->skipped && dataset_skip(ds, p->path) != 0) return -1;
    if (p->partial && dataset_partial(ds, p->path) != 0) return -1;
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

int moncache_read(struct mon_cache *c, const char *path, size_t max_bytes, moncache_parse_fn parse, void *ctx,
                  struct dataset *ds, const struct mon_part **out) {
    struct stat st;
    int have_st = stat(path, &st) == 0;
    uint64_t sig = have_st ? sig_of(&st) : 0;
    const struct mon_part *kept = have_st ? pstore_find(c->store, path, sig) : NULL;
    if (kept) {
        c->st.kept++;
        ds->bytes_read += (uint64_t)st.st_size;
        *out = kept;
        return replay(kept, ds);
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
        p->partial = sd->npartial > 0;
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
    /* not kept (over the budget, being written): for this load only */
    if (rc == 0 && !(keepable && pstore_keep(c->store, path, sig, p, trim(p)))) rc = push_tmp(c, p);
    if (rc != 0) {
        if (p) part_free(p);
        return -1;
    }
    *out = p;
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

void moncache_end(struct mon_cache *c, int whole) { pstore_end(c->store, whole); }

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
