/* tdb_monprep: see tdb_monprep.h. */
#include "src/io/trenddb/tdb_monprep.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/fs.h"
#include "model/util/util.h"

static int cmp_mrow(const struct mrow *x, const struct mrow *y) {
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->dbid != y->dbid) return x->dbid < y->dbid ? -1 : 1;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

int mon_cmp_mrow_key(const void *a, const void *b) {
    struct mrow x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return cmp_mrow(&x, &y);
}

/* The step of a spooled row on the axis (monitor_row_step: with micro
 * steps a search of the steps as read, so the last one's first micro step
 * is kept in s: a file's rows come a step at a time). */
static int32_t row_step(const struct mon_keys *k, struct mon_set *s, const unsigned char *p) {
    int32_t step = srec_step(p);
    if (!k->st->micro) return step;
    if (!s->memo_ok || s->memo_step != step) {
        struct monitor_row r = {.step = step, .micro = 0};
        s->memo_base = monitor_row_step(k->st, &r);
        s->memo_step = step;
        s->memo_ok = 1;
    }
    return s->memo_base + srec_micro(p);
}

/* Pair r of a sort of the records in buf, from the rank's byte pos on. */
static struct mrow row_of(const struct mon_keys *k, const struct mon_set *s, const struct radix_kv *r, uint64_t pos) {
    const unsigned char *p = (const unsigned char *)s->buf + (r->val - pos);
    return (struct mrow){.step = s->kstep0 + (int32_t)(r->key >> s->kshift), .metric = k->metric_id[srec_metric(p)],
                         .dbid = k->dbid[srec_skey(p)], .at = r->val};
}

struct mrow mon_set_row(const struct mon_keys *k, const struct mon_set *s, const struct radix_kv *r) {
    return row_of(k, s, r, 0);
}

/* The records in s->buf[0..len) (those whole: *used bytes; their offsets
 * in the rank from pos), *n of them, in key order: the sort's pairs (the
 * first read first among rows of one key, as INSERT OR IGNORE keeps it).
 * NULL (e set) without memory. */
static const struct radix_kv *sort_part(const struct mon_keys *k, struct mon_set *s, uint64_t len, uint64_t pos,
                                        size_t *n, uint64_t *used, struct pt_error *e) {
    size_t m = 0;
    uint64_t at = 0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    if (util_grow((void **)&s->kv, &s->capkv, 1, sizeof *s->kv) != 0) goto oom;
    for (;;) {   /* the steps first, and their range */
        const unsigned char *p = (const unsigned char *)s->buf + at;
        if (at == len) break;
        size_t rl = srec_len(p[0]);
        if (rl > len - at) break;
        if (util_grow((void **)&s->kv, &s->capkv, m + 1, sizeof *s->kv) != 0) goto oom;
        int32_t step = row_step(k, s, p);
        if (step < lo) lo = step;
        if (step > hi) hi = step;
        s->kv[m++] = (struct radix_kv){.key = (uint32_t)step, .val = pos + at};
        at += rl;
    }
    *n = m;
    *used = at;
    if (m < 2) {
        if (m) s->kv[0].key = 0;
        s->kstep0 = lo;
        s->kshift = 0;
        return s->kv;
    }
    if (util_grow((void **)&s->kvtmp, &s->capkvtmp, m, sizeof *s->kvtmp) != 0) goto oom;
    int low = k->kbits + 4, bits = low + radix_bits((uint64_t)((int64_t)hi - lo));
    int wide = bits > 64, sorted = 1;   /* wide: the step sorted apart, after the rest */
    s->kstep0 = lo;
    s->kshift = wide ? 0 : low;
    for (size_t i = 0; i < m; i++) {
        const unsigned char *p = (const unsigned char *)s->buf + (s->kv[i].val - pos);
        uint64_t step = (uint64_t)((int64_t)(int32_t)(uint32_t)s->kv[i].key - lo);
        s->kv[i].key = (uint64_t)k->trank[srec_skey(p)] << 4 | (uint64_t)k->metric_id[srec_metric(p)];
        if (!wide) s->kv[i].key |= step << low;
        if (i && s->kv[i].key <= s->kv[i - 1].key) sorted = 0;
    }
    if (sorted && !wide) return s->kv;
    struct radix_kv *r = radix_sort_kv(s->kv, s->kvtmp, m, wide ? low : bits);
    if (r && wide) {
        for (size_t i = 0; i < m; i++) {
            r[i].key = (uint64_t)((int64_t)row_step(k, s, (const unsigned char *)s->buf + (r[i].val - pos)) - lo);
        }
        r = radix_sort_kv(r, r == s->kv ? s->kvtmp : s->kv, m, 32);
    }
    if (r) return r;
oom:
    pt_errorf(e, "out of memory");
    return NULL;
}

/* A rank bigger than the budget: its records read a budget at a time, each
 * part sorted into a run (tdb_runs), to be merged by the writer.  0, or -1
 * with e set. */
static int fill_runs(const struct mon_keys *k, struct mon_set *s, const struct schunk *c, struct pt_error *e) {
    if (!s->runs && !(s->runs = tdb_runs_new(sizeof(struct mrow), mon_cmp_mrow_key)))
        return pt_errorf(e, "out of memory or no temporary file for the sort");
    if (util_grow((void **)&s->buf, &s->capbuf, k->budget, 1) != 0) return pt_errorf(e, "out of memory");
    for (uint64_t pos = 0; pos < c->bytes;) {
        size_t want = c->bytes - pos < k->budget ? (size_t)(c->bytes - pos) : k->budget, n;
        if (fs_pread_all(k->fd, s->buf, want, (off_t)(c->off + pos)) != 0)
            return pt_errorf(e, "%s: could not read the spooled rows back", k->final);
        uint64_t at;
        const struct radix_kv *kv = sort_part(k, s, want, pos, &n, &at, e);
        if (!kv) return -1;
        if (!n) return pt_errorf(e, "%s: the spooled rows are damaged", k->final);
        for (size_t i = 0; i < n; i++) {
            const char *rec = s->buf + (kv[i].val - pos);
            struct mrow r = row_of(k, s, &kv[i], pos);
            if (tdb_runs_put(s->runs, &r, rec, (uint32_t)srec_len((unsigned char)rec[0])) != 0)
                return pt_errorf(e, "could not write the sort's runs (disk full?)");
        }
        tdb_runs_cut(s->runs);
        fs_discard(k->fd, c->off + pos, at);   /* read for the last time: its pages for the writes to come */
        pos += at;
    }
    return 0;
}

int mon_set_fill(const struct mon_keys *k, struct mon_set *s, const struct schunk *c, int lean, struct pt_error *e) {
    s->sorted = NULL;
    s->n = 0;
    s->in_runs = c->bytes > k->budget;
    if (s->in_runs) {
        int rc = fill_runs(k, s, c, e);
        if (lean) {   /* the runs hold the rank now: the buffers' memory for the other set */
            free(s->buf);
            free(s->kv);
            free(s->kvtmp);
            s->buf = NULL;
            s->kv = s->kvtmp = NULL;
            s->capbuf = s->capkv = s->capkvtmp = 0;
        }
        return rc;
    }
    if (util_grow((void **)&s->buf, &s->capbuf, c->bytes ? c->bytes : 1, 1) != 0) return pt_errorf(e, "out of memory");
    if (fs_pread_all(k->fd, s->buf, c->bytes, (off_t)c->off) != 0)
        return pt_errorf(e, "%s: could not read the spooled rows back", k->final);
    fs_discard(k->fd, c->off, c->bytes);   /* each rank is read once: its pages for the writes to come */
    uint64_t used;
    s->sorted = sort_part(k, s, c->bytes, 0, &s->n, &used, e);
    return s->sorted ? 0 : -1;
}

void mon_set_free(struct mon_set *s) {
    free(s->buf);
    free(s->kv);
    free(s->kvtmp);
    tdb_runs_free(s->runs);
    memset(s, 0, sizeof *s);
}

void mon_pipe_init(struct mon_pipe *p, const struct mon_keys *k, const struct schunk *chunk, size_t nchunk,
                   int nsets, void (*wake)(void *), void *wake_arg) {
    memset(p, 0, sizeof *p);
    p->wake = wake;
    p->wake_arg = wake_arg;
    p->k = k;
    p->chunk = chunk;
    p->nchunk = nchunk;
    p->nsets = nsets == 2 ? 2 : 1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
}

void mon_pipe_done(struct mon_pipe *p) {
    mon_set_free(&p->set[0]);
    mon_set_free(&p->set[1]);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}

struct mon_set *mon_pipe_take(struct mon_pipe *p, size_t i, struct pt_error *e) {
    struct mon_set *s = &p->set[i % (size_t)p->nsets];
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->ready[i % (size_t)p->nsets] == i + 1) break;
        if (p->failed) {
            *e = p->err0;
            s = NULL;
            break;
        }
        if (p->claimed == i) {   /* no one has taken it: filled here, and the next may be taken */
            p->claimed++;
            pthread_mutex_unlock(&p->mu);
            if (p->wake) p->wake(p->wake_arg);
            return mon_set_fill(p->k, s, &p->chunk[i], p->nsets == 2, e) == 0 ? s : NULL;
        }
        pthread_cond_wait(&p->cv, &p->mu);   /* a helper is filling it */
    }
    pthread_mutex_unlock(&p->mu);
    return s;
}

void mon_pipe_release(struct mon_pipe *p, size_t i) {
    pthread_mutex_lock(&p->mu);
    p->written = i + 1;
    p->ready[i % (size_t)p->nsets] = 0;
    pthread_mutex_unlock(&p->mu);
}

int mon_pipe_help(void *arg, struct pt_error *e) {
    struct mon_pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    size_t j = p->claimed;
    int go = p->nsets == 2 && !p->failed && j < p->nchunk && j < p->written + 2;
    if (go) p->claimed++;
    pthread_mutex_unlock(&p->mu);
    if (!go) return 0;
    int rc = mon_set_fill(p->k, &p->set[j % 2], &p->chunk[j], 1, e);
    pthread_mutex_lock(&p->mu);
    if (rc == 0) p->ready[j % 2] = j + 1;
    else if (!p->failed) {
        p->failed = 1;
        p->err0 = *e;
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return rc == 0 ? 1 : -1;
}
