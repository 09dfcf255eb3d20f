/* tdb_monsum: see tdb_monsum.h. */
#include "src/io/trenddb/tdb_monsum.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/fs.h"
#include "model/util/util.h"

int tdb_monsum_open(struct tdb_monsum *p, struct tdb *t, int ns, const char *const *cols, int64_t max_rank,
                    size_t nwin) {
    p->gsize = max_rank + 1 > 64 ? 64 : 8;
    if (!(p->run[0] = tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_RUN))) return pt_errorf(t->err, "out of memory");
    if (tdb_summary_open(t, p->run[0]) != 0) return -1;
    if (!tdb_summary_built(p->run[0])) {   /* INSERTs: one summary of every group size, on one thread */
        tdb_summary_free(p->run[0]);
        p->run[0] = NULL;
        if (!(p->all = tdb_summary_new(ns, cols, max_rank))) return pt_errorf(t->err, "out of memory");
        return tdb_summary_open(t, p->all);
    }
    if (!(p->groups = tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_GROUPS)) ||
        (nwin > 1 && !(p->run[1] = tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_RUN))))
        return pt_errorf(t->err, "out of memory");
    if (tdb_summary_open_twin(t, p->groups, p->run[0]) != 0) return -1;
    return p->run[1] ? tdb_summary_open_twin(t, p->run[1], p->run[0]) : 0;
}

int tdb_monsum_finish(struct tdb_monsum *p, struct tdb *t) {
    if (p->all) return tdb_summary_finish(t, p->all);
    struct tdb_summary *parts[3] = {p->run[0], p->groups, p->run[1]};
    return tdb_summary_finish_parts(t, parts, p->run[1] ? 3 : 2);
}

void tdb_monsum_free(struct tdb_monsum *p) {
    tdb_summary_free(p->all);
    tdb_summary_free(p->run[0]);
    tdb_summary_free(p->run[1]);
    tdb_summary_free(p->groups);
}

void tdb_monsum_init(struct tdb_monsum *p) {
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->nextwin = 1;
}

void tdb_monsum_done(struct tdb_monsum *p) {
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}

static void post_fail(struct tdb_monsum *p, const struct pt_error *e) {
    pthread_mutex_lock(&p->mu);
    if (!p->failed) {
        p->failed = 1;
        p->err0 = *e;
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void tdb_monsum_post(struct tdb_monsum *p, size_t posted, const struct pt_error *e) {
    if (e) { post_fail(p, e); return; }
    pthread_mutex_lock(&p->mu);
    p->posted = posted;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void tdb_monsum_wake(void *arg) {
    struct tdb_monsum *p = arg;
    pthread_mutex_lock(&p->mu);
    p->wakes++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Wait until rank i is out (run0: until window 0 of the whole run is fed
 * too), giving p's help meanwhile; -1 (e: the failed job's error, or the
 * help's) when it never will be. */
static int wait_for(struct tdb_monsum *p, size_t i, int run0, struct pt_error *e) {
    int looked = 0;   /* the help had none to give, and nothing was posted or woken since */
    pthread_mutex_lock(&p->mu);
    while (((i < p->nchunk && p->posted <= i) || (run0 && !p->run0)) && !p->failed) {
        if (p->help && !looked) {   /* then the condition again: it may have come meanwhile */
            size_t seen = p->posted, wakes = p->wakes;
            pthread_mutex_unlock(&p->mu);
            int h = p->help(p->help_arg, e);
            pthread_mutex_lock(&p->mu);
            if (h < 0) {
                pthread_mutex_unlock(&p->mu);
                return -1;
            }
            looked = h == 0 && p->posted == seen && p->wakes == wakes;
            continue;
        }
        pthread_cond_wait(&p->cv, &p->mu);
        looked = 0;
    }
    int failed = p->failed;
    if (failed) *e = p->err0;
    pthread_mutex_unlock(&p->mu);
    return failed ? -1 : 0;
}

struct feed {                /* a job's reading */
    struct tdb_monsum *p;
    struct tdb tw, *t;       /* the tdb with this job's error */
    struct pt_error *e;
    unsigned char *buf;      /* a rank's window of packed rows as read */
    size_t cap;
};

static void feed_start(struct feed *f, struct tdb_monsum *p, struct pt_error *e) {
    *f = (struct feed){.p = p, .tw = *p->t, .e = e};
    f->tw.err = e;
    f->t = e == p->t->err ? (struct tdb *)p->t : &f->tw;
}

static void feed_end(struct feed *f) { free(f->buf); }

/* Part s fed window win of ranks [i0, i1), each rank's rows then the rank;
 * part also (NULL: none) the same rows, read and added once, before s.
 * The spooled rows are packed as tdb_summary_pack_head makes them: read into
 * the job's buffer, unpacked into s's room for them (made at once: the
 * writer counted them, wrows). */
static int feed(struct feed *f, struct tdb_summary *s, struct tdb_summary *also, size_t win, size_t i0, size_t i1) {
    struct tdb_monsum *p = f->p;
    for (size_t i = i0; i < i1; i++) {
        if (wait_for(p, i, 0, f->e) != 0) return -1;
        const uint64_t *o = p->woff + i * (p->nwin + 1);
        uint64_t len = o[win + 1] - o[win];
        if (!len) continue;
        if (util_grow((void **)&f->buf, &f->cap, (size_t)len, 1) != 0) return pt_errorf(f->e, "out of memory");
        if (fs_pread_all(p->fd, f->buf, (size_t)len, (off_t)o[win]) != 0)
            return pt_errorf(f->e, "%s: could not read the rank summary's rows back", p->t->final);
        int urc = tdb_summary_unpack(s, f->buf, (size_t)len, (size_t)p->wrows[i * p->nwin + win]);
        if (urc == -1) return pt_errorf(f->e, "out of memory");
        if (urc != 0)
            return pt_errorf(f->e, "%s: internal: the rank summary's rows of rank %ld, window %zu, read back cut", p->t->final,
                             (long)p->rank[i], win);
        if (also && tdb_summary_rank_of(also, s, p->rank[i]) != 0) return pt_errorf(f->e, "out of memory");
        if (also && tdb_summary_flush(f->t, also) != 0) return -1;
        if (tdb_summary_rank(s, p->rank[i]) != 0) return pt_errorf(f->e, "out of memory");
        if (tdb_summary_flush(f->t, s) != 0) return -1;
    }
    return 0;
}

/* Windows of every rank into s: from, from + 1, ... (shared: the next
 * window no job has taken yet, so that the two parts of the whole run
 * share its later windows as their threads come free; each part still
 * takes its windows in order). */
static int feed_windows(struct feed *f, struct tdb_summary *s, size_t from, int shared) {
    struct tdb_monsum *p = f->p;
    for (size_t win = from;; win++) {
        if (shared) {
            pthread_mutex_lock(&p->mu);
            win = p->nextwin++;
            pthread_mutex_unlock(&p->mu);
        }
        if (win >= p->nwin) return 0;
        tdb_summary_at(s, (int64_t)win);
        if (feed(f, s, NULL, win, 0, p->nchunk) != 0 || tdb_summary_window(f->t, s) != 0) return -1;
    }
}

/* Every rank in window 0 of the whole run: run[0] is job 2's from now on. */
static void run0_fed(struct tdb_monsum *p) {
    pthread_mutex_lock(&p->mu);
    p->run0 = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Job 0: the groups' part a group at a time, every window of it, and
 * window 0 of the whole run (run[0]) fed on the way: once the last rank
 * is in it, run[0] is job 2's, which writes that window out (beside the
 * last group's windows, when the writer's thread is free by then). */
static int feed_groups(struct feed *f) {
    struct tdb_monsum *p = f->p;
    tdb_summary_at(p->run[0], 0);
    for (size_t i0 = 0, i1; i0 < p->nchunk; i0 = i1) {
        for (i1 = i0 + 1; i1 < p->nchunk && p->rank[i1] / p->gsize == p->rank[i0] / p->gsize;) i1++;
        for (size_t win = 0; win < p->nwin; win++) {   /* window 0 read once for both parts */
            tdb_summary_at(p->groups, (int64_t)win);
            if (feed(f, p->groups, win ? NULL : p->run[0], win, i0, i1) != 0) return -1;
            if (win == 0 && i1 == p->nchunk) run0_fed(p);
            if (tdb_summary_window(f->t, p->groups) != 0) return -1;
        }
    }
    if (!p->nchunk) run0_fed(p);   /* no rank: run[0] is job 2's all the same */
    return 0;
}

int tdb_monsum_job(struct tdb_monsum *p, size_t k, struct pt_error *e) {
    struct feed f;
    feed_start(&f, p, e);
    int rc = 0;
    if (k == 0) rc = feed_groups(&f);
    else if (k == 1 && p->run[1]) rc = feed_windows(&f, p->run[1], 0, 1);   /* later windows: every rank is out */
    else if (k == 2)   /* window 0 of the whole run out, then later windows too */
        rc = wait_for(p, 0, 1, e) != 0 || tdb_summary_window(f.t, p->run[0]) != 0 ? -1 : feed_windows(&f, p->run[0], 0, 1);
    feed_end(&f);
    if (rc != 0) post_fail(p, e);
    return rc;
}

int tdb_monsum_all(struct tdb_monsum *p, struct pt_error *e) {
    struct feed f;
    feed_start(&f, p, e);
    int rc = feed_windows(&f, p->all, 0, 0);
    feed_end(&f);
    return rc;
}
