/* mon_cache: parsed monitor CSV files kept between loads (mon_cache.h),
 * in a pstore (pstore.h) keyed by path.  A scratch dataset catches what a
 * parse says (warnings, skips, pending files), so that a kept part can say
 * it again on every load that uses it, as a fresh parse would. */
#include "src/io/monitor/mon_cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/cube/names.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/reader.h"
#include "src/io/common/pstore.h"

struct mon_cache {
    struct names *pool;
    struct pstore *store;         /* path -> struct mon_cache_part * */
    struct mon_cache_part **tmp;        /* parts of this load not kept */
    size_t ntmp, captmp, nshed;         /* tmp[0..nshed): rows freed (mon_cache_shed) */
    struct mon_cache_stats st;
    uint32_t *guess;              /* the last file's rename table (mc_rename) */
    uint32_t nguess;
};

static void part_free(struct mon_cache_part *p) {
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

struct mon_cache *mon_cache_new(uint64_t budget) {
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
    c->ntmp = c->nshed = 0;
}

void mon_cache_free(struct mon_cache *c) {
    if (!c) return;
    drop_tmp(c);
    pstore_free(c->store);
    free(c->tmp);
    free(c->guess);
    names_free(c->pool);
    free(c);
}

struct names *mon_cache_pool(struct mon_cache *c) { return c->pool; }

struct mon_cache_stats mon_cache_stats(const struct mon_cache *c) {
    struct mon_cache_stats s = c->st;
    s.parts = pstore_count(c->store);
    s.bytes = pstore_bytes(c->store);
    return s;
}

int mon_cache_begin(struct mon_cache *c, const char *stamp) {
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
static int replay(const struct mon_cache_part *p, struct dataset *ds) {
    for (size_t i = 0; i < p->nnotes; i++)
        if (dataset_warn(ds, "%s", p->notes[i]) != 0) return -1;
    if (p->skipped && dataset_skip(ds, p->path) != 0) return -1;
    if (p->partial && dataset_partial(ds, p->path) != 0) return -1;
    return 0;
}

static int push_tmp(struct mon_cache *c, struct mon_cache_part *p) {
    if (UTIL_PUSH(c->tmp, c->ntmp, c->captmp) != 0) return -1;
    c->tmp[c->ntmp++] = p;
    return 0;
}

/* A part's buffers cut to what they hold (they grew by doubling); what
 * it takes in memory, about. */
static uint64_t trim(struct mon_cache_part *p) {
    uint64_t n = sizeof *p + strlen(p->path) + 1;
    for (size_t i = 0; i < p->nfiles; i++) {
        struct monitor_file *f = &p->files[i];
        if (f->nrows && f->nrows < f->cap) {
            struct monitor_row *r = realloc(f->rows, f->nrows * sizeof *r);
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

/* One file being read: the parse (any thread) fills p and sd, its names
 * in pool, its own; the rest (the cache, ds) is the caller's thread's. */
struct mc_job {
    const char *path;
    void *ctx;
    struct stat st;
    int have_st;
    uint64_t sig;
    const struct mon_cache_part *kept;
    struct mon_cache_part *p;
    struct dataset *sd;
    struct names *pool;      /* NULL: c's pool (one file, on the caller's thread) */
    size_t len;              /* bytes read */
    int rc;
};

/* Reads and parses j's file (j->kept NULL). */
static void mc_parse(struct mc_job *j, size_t max_bytes, mon_cache_parse_fn parse, const struct dataset *ds,
                     struct names *pool) {
    j->p = calloc(1, sizeof *j->p);
    j->sd = calloc(1, sizeof *j->sd);
    j->rc = j->p && j->sd && (j->p->path = strdup(j->path)) ? 0 : -1;
    if (j->sd) {
        j->sd->follow = ds->follow;
        j->sd->max_steps = ds->max_steps;
    }
    char *buf = NULL;
    size_t len = 0;
    int got = j->rc == 0 ? reader_read_file(j->sd, j->path, max_bytes, &buf, &len) : -1;
    if (got < 0) j->rc = -1;
    if (got == 0) {
        j->len = len;
        j->rc = parse(buf, len, j->path, j->ctx, pool, j->sd, j->p);
    }
}

/* The rows' names from j's own pool into c's: each name once, then every
 * row through the table. */
static int mc_rename(struct mon_cache *c, struct mc_job *j) {
    uint32_t n = names_count(j->pool);
    uint32_t *to = malloc((n ? n : 1) * sizeof *to);
    if (!to) return -1;
    uint32_t have = names_count(c->pool);
    for (uint32_t i = 0; i < n; i++) {
        const struct target *t = names_target(j->pool, i);
        const char *s = names_str(j->pool, i);
        /* a metric's files one step each list the same names in the same
         * order: the last file's id, when its target is this one, is the
         * id names_intern would give (one per target), without a hash */
        uint32_t g = i < c->nguess ? c->guess[i] : NAMES_NONE;
        if (g < have) {
            const struct target *u = names_target(c->pool, g);
            if (u->len == t->len && u->vpp == t->vpp && u->call == t->call && !memcmp(names_str(c->pool, g), s, t->len)) {
                to[i] = g;
                continue;
            }
        }
        to[i] = names_intern(c->pool, s, t->len, t->vpp, t->call);
        if (to[i] == NAMES_NONE) { free(to); return -1; }
        have = names_count(c->pool);
    }
    for (size_t f = 0; f < j->p->nfiles; f++)
        for (size_t k = 0; k < j->p->files[f].nrows; k++) j->p->files[f].rows[k].name = to[j->p->files[f].rows[k].name];
    free(c->guess);
    c->guess = to;
    c->nguess = n;
    return 0;
}

/* What j's parse said becomes its part's, the part is kept or held for
 * this load, *out it; as mon_cache_read.  -1 without memory. */
static int mc_finish(struct mon_cache *c, struct mc_job *j, struct dataset *ds, const struct mon_cache_part **out) {
    struct mon_cache_part *p = j->p;
    struct dataset *sd = j->sd;
    int rc = j->rc;
    ds->bytes_read += j->len;
    if (rc == 0 && j->pool && mc_rename(c, j) != 0) rc = -1;
    c->st.parsed++;
    /* what the parse said is the part's, to say again each time it is used */
    if (rc == 0) {
        p->notes = sd->warnings;
        p->nnotes = sd->nwarnings;
        sd->warnings = NULL;
        sd->nwarnings = 0;
        p->skipped = sd->nskipped > 0;
        p->partial = sd->npartial > 0;
        size_t plen = strlen(j->path);
        for (size_t i = 0; i < sd->npending && rc == 0; i++) {
            const char *why = sd->pending[i];
            if (!strncmp(why, j->path, plen) && !strncmp(why + plen, ": ", 2)) why += plen + 2;
            rc = dataset_pending(ds, j->path, why);
        }
    }
    /* a file written within the last second may change again within its
     * modification time's tick, unseen: read again next time, as one
     * being written */
    int keepable = rc == 0 && j->have_st && !sd->npending && time(NULL) - j->st.st_mtim.tv_sec > 1;
    if (sd) dataset_free(sd);
    j->sd = NULL;
    j->p = NULL;
    if (rc == 0) rc = replay(p, ds);
    /* not kept (over the budget, being written): for this load only */
    if (rc == 0 && !(keepable && pstore_keep(c->store, j->path, j->sig, p, trim(p)))) rc = push_tmp(c, p);
    if (rc != 0) {
        if (p) part_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

/* The kept part of j's file, when it is unchanged. */
static void mc_lookup(struct mon_cache *c, struct mc_job *j) {
    j->have_st = stat(j->path, &j->st) == 0;
    j->sig = j->have_st ? sig_of(&j->st) : 0;
    j->kept = j->have_st ? pstore_find(c->store, j->path, j->sig) : NULL;
}

static int mc_use_kept(struct mon_cache *c, struct mc_job *j, struct dataset *ds, const struct mon_cache_part **out) {
    c->st.kept++;
    ds->bytes_read += (uint64_t)j->st.st_size;
    *out = j->kept;
    return replay(j->kept, ds);
}

int mon_cache_read(struct mon_cache *c, const char *path, size_t max_bytes, mon_cache_parse_fn parse, void *ctx,
                  struct dataset *ds, const struct mon_cache_part **out) {
    struct mc_job j = {.path = path, .ctx = ctx};
    mc_lookup(c, &j);
    if (j.kept) return mc_use_kept(c, &j, ds, out);
    mc_parse(&j, max_bytes, parse, ds, c->pool);
    return mc_finish(c, &j, ds, out);
}

struct mc_many {
    struct mc_job *jobs;
    size_t n, max_bytes;
    mon_cache_parse_fn parse;
    const struct dataset *ds;
    atomic_size_t next;      /* the next job to take */
};

static void *mc_worker(void *arg) {
    struct mc_many *m = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&m->next, 1);
        if (i >= m->n) return NULL;
        struct mc_job *j = &m->jobs[i];
        if (j->kept) continue;
        if (!(j->pool = names_new())) { j->rc = -1; continue; }
        mc_parse(j, m->max_bytes, m->parse, m->ds, j->pool);
    }
}

int mon_cache_read_many(struct mon_cache *c, const char *const *paths, size_t n, size_t max_bytes,
                       mon_cache_parse_fn parse, void *ctxs, size_t ctx_size, int threads, struct dataset *ds,
                       const struct mon_cache_part **out) {
    struct mc_many m = {.n = n, .max_bytes = max_bytes, .parse = parse, .ds = ds};
    int rc = 0;
    if (!n) return 0;
    if (!(m.jobs = calloc(n, sizeof *m.jobs))) return -1;
    size_t todo = 0;
    for (size_t i = 0; i < n; i++) {
        m.jobs[i].path = paths[i];
        m.jobs[i].ctx = (char *)ctxs + i * ctx_size;
        mc_lookup(c, &m.jobs[i]);
        todo += !m.jobs[i].kept;
    }
    if (threads <= 0) threads = util_ncores(64);
    if ((size_t)threads > todo) threads = todo ? (int)todo : 1;
    if (threads > 64) threads = 64;
    /* a batch of files at a time: each parse holds its bytes and names
     * until this thread took them over */
    struct mc_job *all = m.jobs;
    size_t batch = (size_t)threads * 8;
    for (size_t base = 0; base < n; base += batch) {
        m.jobs = all + base;
        m.n = n - base < batch ? n - base : batch;
        atomic_store(&m.next, 0);
        pthread_t tids[64];
        int nt = 0;
        for (int t = 1; rc == 0 && t < threads; t++)
            if (pthread_create(&tids[nt], NULL, mc_worker, &m) == 0) nt++;
        if (rc == 0) mc_worker(&m);   /* this thread parses too */
        for (int t = 0; t < nt; t++) pthread_join(tids[t], NULL);
        /* in the files' order, on this thread: notes, names, the cache */
        for (size_t i = 0; i < m.n; i++) {
            struct mc_job *j = &m.jobs[i];
            if (rc == 0) rc = j->kept ? mc_use_kept(c, j, ds, &out[base + i]) : mc_finish(c, j, ds, &out[base + i]);
            else if (!j->kept) {
                if (j->p) part_free(j->p);
                if (j->sd) dataset_free(j->sd);
            }
            names_free(j->pool);
        }
    }
    m.jobs = all;
    free(m.jobs);
    return rc;
}

int mon_cache_parse_bytes(struct mon_cache *c, char *buf, size_t len, const char *path, mon_cache_parse_fn parse,
                         void *ctx, struct dataset *ds, const struct mon_cache_part **out) {
    struct mon_cache_part *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(path)) || push_tmp(c, p) != 0) {
        if (p) free(p->path);
        free(p);
        free(buf);
        return -1;
    }
    *out = p;
    return parse(buf, len, path, ctx, c->pool, ds, p);
}

void mon_cache_shed(struct mon_cache *c) {
    for (size_t i = c->nshed; i < c->ntmp; i++)
        for (size_t k = 0; k < c->tmp[i]->nfiles; k++) {
            struct monitor_file *f = &c->tmp[i]->files[k];
            free(f->rows);
            free(f->vals);
            f->rows = NULL;
            f->vals = NULL;
            f->cap = 0;
        }
    c->nshed = c->ntmp;
}

void mon_cache_end(struct mon_cache *c, int whole) { pstore_end(c->store, whole); }

struct monitor_file *mon_cache_add_file(struct mon_cache_part *part, int metric, int32_t rank, uint32_t statmask) {
    struct monitor_file *nf = realloc(part->files, (part->nfiles + 1) * sizeof *nf);
    if (!nf) return NULL;
    part->files = nf;
    struct monitor_file *f = &part->files[part->nfiles++];
    memset(f, 0, sizeof *f);
    f->path = part->path;
    f->metric = metric;
    f->rank = rank;
    f->statmask = f->valmask = statmask;
    f->nval = __builtin_popcount(statmask);
    return f;
}

struct monitor_row *mon_cache_add_row(struct monitor_file *f, double **vals) {
    if (f->nrows == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 64;
        struct monitor_row *r = realloc(f->rows, cap * sizeof *r);
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
