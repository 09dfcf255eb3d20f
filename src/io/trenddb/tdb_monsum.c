/* tdb_monsum: see tdb_monsum.h. */
#include "src/io/trenddb/tdb_monsum.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/fs.h"
#include "model/util/util.h"

int tdb_monsum_open(struct tdb_monsum *p, struct tdb *t, int ns, const char *const *cols, int64_t max_rank,
                    size_t nwin) {
    if (!(p->run[0] = tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_RUN))) return pt_errorf(t->err, "out of memory");
    if (tdb_summary_open(t, p->run[0]) != 0) return -1;
    if (!tdb_summary_built(p->run[0])) {   /* INSERTs: one summary of every group size, on one thread */
        tdb_summary_free(p->run[0]);
        p->run[0] = NULL;
        if (!(p->all = tdb_summary_new(ns, cols, max_rank))) return pt_errorf(t->err, "out of memory");
        return tdb_summary_open(t, p->all);
    }
    if (!(p->groups[0] = tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_GROUPS)) ||
        (nwin > 1 && (!(p->run[1] = tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_RUN)) ||
                      !(p->groups[1] = tdb_summary_new_part(ns, cols, max_rank, TDB_SUMMARY_GROUPS)))))
        return pt_errorf(t->err, "out of memory");
    if (tdb_summary_open_twin(t, p->groups[0], p->run[0]) != 0) return -1;
    if (!p->run[1]) return 0;
    return tdb_summary_open_twin(t, p->run[1], p->run[0]) != 0 || tdb_summary_open_twin(t, p->groups[1], p->run[0]) != 0
               ? -1
               : 0;
}

int tdb_monsum_finish(struct tdb_monsum *p, struct tdb *t) {
    if (p->all) return tdb_summary_finish(t, p->all);
    struct tdb_summary *parts[4] = {p->run[0], p->groups[0], p->run[1], p->groups[1]};
    return tdb_summary_finish_parts(t, parts, p->run[1] ? 4 : 2);
}

void tdb_monsum_free(struct tdb_monsum *p) {
    tdb_summary_free(p->all);
    tdb_summary_free(p->run[0]);
    tdb_summary_free(p->run[1]);
    tdb_summary_free(p->groups[0]);
    tdb_summary_free(p->groups[1]);
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
        fs_discard(p->fd, o[win], len);   /* each rank's window is read once: its pages for the writes to come */
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

/* Window win of the whole run (part s, fed) into the tree, after window
 * win - 1's (the tree takes rows in key order: the parts' windows come
 * out in any order on two threads).  Waiting here costs little: the
 * windows are taken in order and are much alike, so the one before is
 * done about as soon. */
static int run_out(struct feed *f, struct tdb_summary *s, size_t win) {
    struct tdb_monsum *p = f->p;
    pthread_mutex_lock(&p->mu);
    while (p->treewin != win && !p->failed) pthread_cond_wait(&p->cv, &p->mu);
    int failed = p->failed;
    if (failed) *f->e = p->err0;
    pthread_mutex_unlock(&p->mu);
    if (failed || tdb_summary_window_tree(f->t, s) != 0) return -1;
    pthread_mutex_lock(&p->mu);
    p->treewin++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

/* Windows of every rank into s and also (the groups' part beside it):
 * from, from + 1, ... (shared: the next window no job has taken yet, so
 * that the two pairs of parts share the windows as their threads come
 * free; each part still takes its windows in order, and both parts of a
 * pair are fed from one reading of the spool). */
static int feed_windows(struct feed *f, struct tdb_summary *s, struct tdb_summary *also, size_t from, int shared) {
    struct tdb_monsum *p = f->p;
    for (size_t win = from;; win++) {
        if (shared) {
            pthread_mutex_lock(&p->mu);
            win = p->nextwin++;
            pthread_mutex_unlock(&p->mu);
        }
        if (win >= p->nwin) return 0;
        tdb_summary_at(s, (int64_t)win);
        if (also) tdb_summary_at(also, (int64_t)win);
        if (feed(f, s, also, win, 0, p->nchunk) != 0 || (also && tdb_summary_window(f->t, also) != 0) ||
            (s == p->all ? tdb_summary_window(f->t, s) : run_out(f, s, win)) != 0)
            return -1;
    }
}

/* Window 0 of every rank fed and written out: run[0] and groups[0] are
 * job 2's from now on. */
static void run0_fed(struct tdb_monsum *p) {
    pthread_mutex_lock(&p->mu);
    p->run0 = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

int tdb_monsum_job(struct tdb_monsum *p, size_t k, struct pt_error *e) {
    struct feed f;
    feed_start(&f, p, e);
    int rc = 0;
    if (k == 0) {   /* window 0 of both parts, rank by rank as the writer posts them, then written out */
        tdb_summary_at(p->run[0], 0);
        tdb_summary_at(p->groups[0], 0);
        rc = feed(&f, p->run[0], p->groups[0], 0, 0, p->nchunk) != 0 || tdb_summary_window(f.t, p->groups[0]) != 0 ||
                     run_out(&f, p->run[0], 0) != 0
                 ? -1
                 : 0;
        if (rc == 0) run0_fed(p);
    } else if (k == 1 && p->run[1])   /* the next windows not taken, rank by rank as they are posted */
        rc = feed_windows(&f, p->run[1], p->groups[1], 0, 1);
    else if (k == 2)   /* once job 0 is done with them, its parts take windows too */
        rc = wait_for(p, 0, 1, e) != 0 ? -1 : feed_windows(&f, p->run[0], p->groups[0], 0, 1);
    feed_end(&f);
    if (rc != 0) post_fail(p, e);
    return rc;
}

int tdb_monsum_all(struct tdb_monsum *p, struct pt_error *e) {
    struct feed f;
    feed_start(&f, p, e);
    int rc = feed_windows(&f, p->all, NULL, 0, 0);
    feed_end(&f);
    return rc;
}
