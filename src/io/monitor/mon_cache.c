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
#include "model/util/pool.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/reader.h"
#include "src/io/common/pstore.h"
#include "src/io/monitor/mon_csv.h"

struct mon_cache {
    struct names *pool;
    struct pstore *store;         /* path -> struct mon_cache_part * */
    struct mon_cache_part **tmp;        /* parts of this load not kept */
    size_t ntmp, captmp, nshed;         /* tmp[0..nshed): rows freed (mon_cache_shed) */
    struct mon_cache_stats st;
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

/* A parser thread's names: a pool and mon_csv_intern's predictions that
 * live across all the files it parses (a tree's files repeat the same
 * names in the same order: after its first file, a thread finds nearly
 * every row's name by the prediction, without a hash); gid (the caller's
 * thread's only): the pool's ids in the cache's, for the ids the files
 * handed over so far brought (the first ngid). */
struct mc_dict {
    struct mon_csv_names nm;
    uint32_t *gid;
    size_t ngid, capgid;
    char *rbuf;              /* the thread's files read into this, one after the other (not a malloc each) */
    size_t rcap;
};

/* One file being read: the parse (any thread) fills p and sd, its names
 * in dict's pool; the rest (the cache, ds) is the caller's thread's. */
struct mc_job {
    const char *path;
    int dirfd;               /* path's folder, open (-1: path opened whole) */
    void *ctx;
    struct stat st;
    int have_st;
    int st_by_read;          /* st (have_st, sig) from the read's fstat, not a stat first */
    uint64_t sig;
    const struct mon_cache_part *kept;
    struct mon_cache_part *p;
    struct dataset *sd;
    struct mc_dict *dict;    /* NULL: c's pool (one file, on the caller's thread) */
    uint32_t first, nnew;    /* the names this file brought to dict's pool: ids [first, first + nnew), */
    struct target *newt;     /* copied (the thread goes on interning): name is an offset in newstr */
    char *newstr;
    size_t len;              /* bytes read */
    int rc;
};

/* j's file into *buf (*cap bytes, grown as needed; reader_read_stat: 0,
 * 1 a note and skipped, -1 without memory); in a fresh cache
 * (j->st_by_read) its identity is the fstat of the file read, no stat of
 * its own. */
static int mc_read(struct mc_job *j, size_t max_bytes, char **buf, size_t *cap, size_t *len) {
    struct stat st;
    int rc = reader_read_stat(j->sd, j->dirfd, j->path, max_bytes, buf, cap, len, &st);
    if (j->st_by_read && st.st_mode) {
        j->st = st;
        j->have_st = 1;
        j->sig = sig_of(&st);
    }
    return rc;
}

/* A read buffer past this is freed after its file: one big file does not
 * keep its size for the small ones after it. */
#define MC_KEEP_BUF ((size_t)4 << 20)

/* Reads and parses j's file (j->kept NULL), read into *rbuf (*rcap bytes,
 * kept for the next file unless past MC_KEEP_BUF). */
static void mc_parse(struct mc_job *j, size_t max_bytes, mon_cache_parse_fn parse, const struct dataset *ds,
                     struct mon_csv_names *names, char **rbuf, size_t *rcap) {
    j->p = calloc(1, sizeof *j->p);
    j->sd = calloc(1, sizeof *j->sd);
    j->rc = j->p && j->sd && (j->p->path = strdup(j->path)) ? 0 : -1;
    if (j->sd) {
        j->sd->follow = ds->follow;
        j->sd->max_steps = ds->max_steps;
    }
    size_t len = 0;
    int got = j->rc == 0 ? mc_read(j, max_bytes, rbuf, rcap, &len) : -1;
    if (got < 0) j->rc = -1;
    if (got == 0) {
        j->len = len;
        j->rc = parse(*rbuf, len, j->path, j->ctx, names, j->sd, j->p);
    }
    if (*rcap > MC_KEEP_BUF) {
        free(*rbuf);
        *rbuf = NULL;
        *rcap = 0;
    }
}

/* The names j's file brought to its thread's pool (j->dict), copied for
 * the caller's thread: the pool grows on while the thread parses on.  0,
 * or -1 without memory. */
static int mc_copy_new(struct mc_job *j) {
    const struct names *pool = j->dict->nm.pool;
    j->nnew = names_count(pool) - j->first;
    if (!j->nnew) return 0;
    size_t bytes = 0;
    for (uint32_t i = 0; i < j->nnew; i++) bytes += names_target(pool, j->first + i)->len + 1;
    j->newt = malloc(j->nnew * sizeof *j->newt);
    j->newstr = malloc(bytes);
    if (!j->newt || !j->newstr) return -1;
    size_t off = 0;
    for (uint32_t i = 0; i < j->nnew; i++) {
        j->newt[i] = *names_target(pool, j->first + i);
        memcpy(j->newstr + off, names_str(pool, j->first + i), j->newt[i].len + 1);
        j->newt[i].name = (uint32_t)off;
        off += j->newt[i].len + 1;
    }
    return 0;
}

static void mc_job_names_free(struct mc_job *j) {
    free(j->newt);
    free(j->newstr);
    j->newt = NULL;
    j->newstr = NULL;
}

/* The rows' names from j's thread's pool into c's: the names j's file
 * brought (in the order it first used them, which is the order they get
 * in c's pool, as each file's own pool gave them) interned once, then
 * every row through the thread's table.  The thread's earlier files were
 * handed over before (files go to a thread, and are handed over, in their
 * order), so every other id of j is in the table. */
static int mc_rename(struct mon_cache *c, struct mc_job *j) {
    struct mc_dict *d = j->dict;
    size_t need = (size_t)j->first + j->nnew;
    if (d->ngid != j->first) return -1;   /* cannot be: files handed over out of their thread's order */
    if (need > d->capgid) {
        size_t cap = d->capgid ? d->capgid : 256;
        while (cap < need) cap *= 2;
        uint32_t *g = realloc(d->gid, cap * sizeof *g);
        if (!g) return -1;
        d->gid = g;
        d->capgid = cap;
    }
    for (uint32_t i = 0; i < j->nnew; i++) {
        const struct target *t = &j->newt[i];
        uint32_t g = names_intern(c->pool, j->newstr + t->name, t->len, t->vpp, t->call);
        if (g == NAMES_NONE) return -1;
        d->gid[j->first + i] = g;
    }
    d->ngid = need;
    mc_job_names_free(j);
    const uint32_t *to = d->gid;
    for (size_t f = 0; f < j->p->nfiles; f++) {
        struct monitor_row *r = j->p->files[f].rows;
        for (size_t k = 0, n = j->p->files[f].nrows; k < n; k++) r[k].name = to[r[k].name];
    }
    return 0;
}

/* What j's parse said becomes its part's, the part is kept or held for
 * this load, *out it; as mon_cache_read.  -1 without memory. */
static int mc_finish(struct mon_cache *c, struct mc_job *j, struct dataset *ds, const struct mon_cache_part **out) {
    struct mon_cache_part *p = j->p;
    struct dataset *sd = j->sd;
    int rc = j->rc;
    ds->bytes_read += j->len;
    if (rc == 0 && j->dict && mc_rename(c, j) != 0) rc = -1;
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
    struct mc_job j = {.path = path, .dirfd = -1, .ctx = ctx};
    mc_lookup(c, &j);
    if (j.kept) return mc_use_kept(c, &j, ds, out);
    struct mon_csv_names nm = MON_CSV_NAMES_INIT;
    nm.pool = c->pool;
    char *buf = NULL;
    size_t cap = 0;
    mc_parse(&j, max_bytes, parse, ds, &nm, &buf, &cap);
    free(buf);
    mon_csv_names_free(&nm);
    return mc_finish(c, &j, ds, out);
}

/* A pipeline over n files: parser threads take the files in order, as
 * far as the lookups went and at most MC_AHEAD files ahead of the caller's
 * thread, which looks every file up, then takes them over in order (one
 * nobody took yet it parses itself), so that what it says and the names'
 * ids come in the files' order whatever the threads. */
#define MC_AHEAD 32
struct mc_many {
    struct mc_job *jobs;
    unsigned char *state;    /* per job: 0 free, 1 being parsed, 2 parsed */
    size_t n, max_bytes;
    mon_cache_parse_fn parse;
    const struct dataset *ds;
    pthread_mutex_t mu;
    pthread_cond_t cvw;      /* parsers wait here: for lookups, room ahead, the end */
    pthread_cond_t cvc;      /* the caller waits here: for the job it is at */
    size_t looked;           /* jobs [0, looked) looked up */
    size_t next;             /* the next job to take */
    size_t taken;            /* jobs [0, taken) taken over by the caller */
    size_t cwait;            /* the caller waits for job cwait - 1 (0: it does not) */
    int wwait;               /* parsers waiting */
    int stop;
    int fresh;               /* the cache held no part: nothing to look up, each file parsed */
    struct mc_dict *dicts;   /* a thread's names: [0] the caller's, [k] the k-th parser's */
};

/* A parser thread: its names. */
struct mc_thread {
    struct mc_many *m;
    struct mc_dict *d;
};

/* Parses job i (taken, not kept) with the names of its thread (d); in a
 * fresh cache, its identity is the read's (mc_read), not mc_lookup's. */
static void mc_parse_own(struct mc_many *m, size_t i, struct mc_dict *d) {
    struct mc_job *j = &m->jobs[i];
    j->st_by_read = m->fresh;
    if (!d->nm.pool && !(d->nm.pool = names_new())) { j->rc = -1; return; }
    j->dict = d;
    j->first = names_count(d->nm.pool);
    mc_parse(j, m->max_bytes, m->parse, m->ds, &d->nm, &d->rbuf, &d->rcap);
    if (j->rc == 0 && mc_copy_new(j) != 0) j->rc = -1;
    /* its buffers cut here, in this thread's malloc arena: on the
     * caller's thread each realloc waited for the arena's lock */
    if (j->rc == 0 && j->p) trim(j->p);
}

/* Parses job i with the lock released (held on entry and on return),
 * marking it taken (1) then done (2) for the caller's wait. */
static void mc_take(struct mc_many *m, size_t i, struct mc_dict *d) {
    m->state[i] = 1;
    pthread_mutex_unlock(&m->mu);
    mc_parse_own(m, i, d);
    pthread_mutex_lock(&m->mu);
    m->state[i] = 2;
}

/* A parser: takes the next job while it may.  Once MC_AHEAD ahead, it
 * waits until the caller is half of that behind (not woken at each file). */
static void *mc_worker(void *arg) {
    struct mc_many *m = ((struct mc_thread *)arg)->m;
    struct mc_dict *d = ((struct mc_thread *)arg)->d;
    pthread_mutex_lock(&m->mu);
    for (;;) {
        int waited = 0;
        while (!m->stop && m->next < m->n &&
               (m->next >= m->looked || m->next + (waited ? MC_AHEAD / 2 : 0) >= m->taken + MC_AHEAD)) {
            waited = 1;
            m->wwait++;
            pthread_cond_wait(&m->cvw, &m->mu);
            m->wwait--;
        }
        if (m->stop || m->next >= m->n) break;
        size_t i = m->next++;
        if (m->jobs[i].kept) continue;
        mc_take(m, i, d);
        if (m->cwait == i + 1) pthread_cond_signal(&m->cvc);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

/* Job i, parsed or kept, for the caller: parsed here when no thread took
 * it; while a thread parses it, the caller parses the next free job
 * within reach rather than wait (it waits only when there is none). */
static void mc_wait(struct mc_many *m, size_t i) {
    pthread_mutex_lock(&m->mu);
    for (;;) {
        size_t k;
        if (i >= m->next) {   /* taken in order: none took it yet */
            k = i;
        } else if (m->state[i] != 1) {
            break;
        } else if (m->next < m->n && m->next < m->looked && m->next < m->taken + MC_AHEAD) {
            k = m->next;
        } else {
            m->cwait = i + 1;
            pthread_cond_wait(&m->cvc, &m->mu);
            m->cwait = 0;
            continue;
        }
        m->next = k + 1;
        if (m->jobs[k].kept) continue;
        mc_take(m, k, &m->dicts[0]);
    }
    pthread_mutex_unlock(&m->mu);
}

/* The caller's progress: lookups done (looked non-NULL), jobs taken over,
 * or the end; the parsers woken when they may go on. */
static void mc_publish(struct mc_many *m, size_t *looked, size_t taken, int stop) {
    pthread_mutex_lock(&m->mu);
    if (looked) m->looked = *looked;
    m->taken = taken;
    m->stop |= stop;
    if (m->wwait && (looked || stop || m->next + MC_AHEAD / 2 < taken + MC_AHEAD)) pthread_cond_broadcast(&m->cvw);
    pthread_mutex_unlock(&m->mu);
}

int mon_cache_read_each(struct mon_cache *c, const char *const *paths, const int *dirfds, size_t n, size_t max_bytes,
                        mon_cache_parse_fn parse, void *ctxs, size_t ctx_size, int threads, mon_cache_each_fn each,
                        void *arg, struct dataset *ds) {
    struct mc_many m = {.n = n, .max_bytes = max_bytes, .parse = parse, .ds = ds};
    int rc = 0;
    if (!n) return 0;
    m.jobs = calloc(n, sizeof *m.jobs);
    m.state = calloc(n, 1);
    if (!m.jobs || !m.state) {
        free(m.jobs);
        free(m.state);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        m.jobs[i].path = paths[i];
        m.jobs[i].dirfd = dirfds ? dirfds[i] : -1;
        m.jobs[i].ctx = (char *)ctxs + i * ctx_size;
    }
    if (threads <= 0) threads = util_pool_threads(64);
    if ((size_t)threads > n) threads = (int)n;
    if (threads > 64) threads = 64;
    struct mc_thread thr[64];
    if (!(m.dicts = calloc((size_t)threads, sizeof *m.dicts))) {
        free(m.jobs);
        free(m.state);
        return -1;
    }
    for (int t = 0; t < threads; t++) {
        m.dicts[t].nm = (struct mon_csv_names)MON_CSV_NAMES_INIT;
        thr[t] = (struct mc_thread){&m, &m.dicts[t]};
    }
    m.fresh = pstore_count(c->store) == 0;
    pthread_mutex_init(&m.mu, NULL);
    pthread_cond_init(&m.cvw, NULL);
    pthread_cond_init(&m.cvc, NULL);
    pthread_t tids[64];
    int nt = 0;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tids[nt], NULL, mc_worker, &thr[nt + 1]) == 0) nt++;
    /* the lookups first (the parsers start behind them), a few at a time;
     * none in a cache that holds no part (a one-time read, a first load):
     * each file's stat is its parser's */
    if (m.fresh) mc_publish(&m, &n, 0, 0);
    for (size_t i = 0; i < n && !m.fresh; i++) {
        mc_lookup(c, &m.jobs[i]);
        if (nt && ((i + 1) % 16 == 0 || i + 1 == n)) {
            size_t l = i + 1;
            mc_publish(&m, &l, 0, 0);
        }
    }
    /* in the files' order, on this thread: notes, names, the cache */
    size_t i = 0;
    for (; i < n && rc == 0; i++) {
        struct mc_job *j = &m.jobs[i];
        const struct mon_cache_part *p = NULL;
        mc_wait(&m, i);
        rc = j->kept ? mc_use_kept(c, j, ds, &p) : mc_finish(c, j, ds, &p);
        mc_job_names_free(j);
        if (rc == 0 && each) rc = each(arg, i, p, ds);
        if (nt) mc_publish(&m, NULL, i + 1, rc != 0);
    }
    if (nt) mc_publish(&m, NULL, i, 1);
    for (int t = 0; t < nt; t++) pthread_join(tids[t], NULL);
    for (; i < n; i++) {   /* after a failure: what the threads parsed ahead */
        struct mc_job *j = &m.jobs[i];
        if (j->p) part_free(j->p);
        if (j->sd) dataset_free(j->sd);
        mc_job_names_free(j);
    }
    for (int t = 0; t < threads; t++) {
        names_free(m.dicts[t].nm.pool);
        mon_csv_names_free(&m.dicts[t].nm);
        free(m.dicts[t].gid);
        free(m.dicts[t].rbuf);
    }
    free(m.dicts);
    pthread_cond_destroy(&m.cvw);
    pthread_cond_destroy(&m.cvc);
    pthread_mutex_destroy(&m.mu);
    free(m.state);
    free(m.jobs);
    return rc;
}

struct mc_out { const struct mon_cache_part **out; };

static int mc_store(void *arg, size_t i, const struct mon_cache_part *p, struct dataset *ds) {
    (void)ds;
    ((struct mc_out *)arg)->out[i] = p;
    return 0;
}

int mon_cache_read_many(struct mon_cache *c, const char *const *paths, size_t n, size_t max_bytes,
                       mon_cache_parse_fn parse, void *ctxs, size_t ctx_size, int threads, struct dataset *ds,
                       const struct mon_cache_part **out) {
    struct mc_out o = {out};
    return mon_cache_read_each(c, paths, NULL, n, max_bytes, parse, ctxs, ctx_size, threads, mc_store, &o, ds);
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
    struct mon_csv_names nm = MON_CSV_NAMES_INIT;
    nm.pool = c->pool;
    int rc = parse(buf, len, path, ctx, &nm, ds, p);
    free(buf);
    mon_csv_names_free(&nm);
    return rc;
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

/* f's rows and values at least n rows long (they are cut to size when
 * the part is kept: trim).  0, or -1 without memory (f as it was). */
static int grow_rows(struct monitor_file *f, size_t cap) {
    struct monitor_row *r = realloc(f->rows, cap * sizeof *r);
    if (!r) return -1;
    f->rows = r;
    size_t nv = cap * (size_t)f->nval;
    double *v = realloc(f->vals, (nv ? nv : 1) * sizeof *v);
    if (!v) return -1;
    f->vals = v;
    f->cap = cap;
    return 0;
}

int mon_cache_reserve_rows(struct monitor_file *f, size_t n) {
    return n <= f->cap ? 0 : grow_rows(f, n);
}

struct monitor_row *mon_cache_add_row(struct monitor_file *f, double **vals) {
    if (f->nrows == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 64;
        if (grow_rows(f, cap) != 0) return NULL;
    }
    *vals = f->vals + f->nrows * (size_t)f->nval;
    return &f->rows[f->nrows++];
}
