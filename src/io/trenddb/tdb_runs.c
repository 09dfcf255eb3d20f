/* tdb_runs: see tdb_runs.h.  The runs lie one after the other on one
 * temporary file, each record as its key, its length (4 bytes) and its
 * payload; the merge keeps a window of each run in memory and a heap of
 * the runs by their next key. */
#include "src/io/trenddb/tdb_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "model/util/util.h"

#define RUNS_WRITE_BUF ((size_t)1 << 20)
#define RUNS_REC_MAX 4096   /* a payload's bytes at most */

struct run {
    uint64_t off, end;       /* on the file */
};

struct tdb_runs {
    size_t ks;
    int (*cmp)(const void *, const void *);
    FILE *f;
    char *wbuf;
    uint64_t put;            /* bytes put on the file */
    struct run *run;
    size_t nrun, caprun;
};

struct tdb_runs *tdb_runs_new(size_t keysize, int (*cmp)(const void *, const void *)) {
    if (keysize > 64) return NULL;
    struct tdb_runs *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->ks = keysize;
    r->cmp = cmp;
    if (!(r->f = tmpfile()) || !(r->wbuf = malloc(RUNS_WRITE_BUF)) || setvbuf(r->f, r->wbuf, _IOFBF, RUNS_WRITE_BUF) != 0) {
        tdb_runs_free(r);
        return NULL;
    }
    return r;
}

void tdb_runs_free(struct tdb_runs *r) {
    if (!r) return;
    if (r->f) fclose(r->f);
    free(r->wbuf);
    free(r->run);
    free(r);
}

int tdb_runs_put(struct tdb_runs *r, const void *key, const void *rec, uint32_t len) {
    if (len > RUNS_REC_MAX) return -1;
    if (!r->nrun || r->run[r->nrun - 1].end != UINT64_MAX) {   /* a new run starts */
        if (util_grow((void **)&r->run, &r->caprun, r->nrun + 1, sizeof *r->run) != 0) return -1;
        r->run[r->nrun++] = (struct run){.off = r->put, .end = UINT64_MAX};
    }
    if (fwrite(key, 1, r->ks, r->f) != r->ks || fwrite(&len, sizeof len, 1, r->f) != 1 ||
        (len && fwrite(rec, 1, len, r->f) != len))
        return -1;
    r->put += r->ks + sizeof len + len;
    return 0;
}

int tdb_runs_cut(struct tdb_runs *r) {
    if (r->nrun && r->run[r->nrun - 1].end == UINT64_MAX) r->run[r->nrun - 1].end = r->put;
    return 0;
}

/* A run's window in the merge. */
struct cur {
    char *b;
    size_t lo, hi, cap;
    uint64_t off, end;       /* next byte to read, the run's end */
};

/* At least one whole record at c->lo (1), the run done (0), or -1. */
static int cur_fill(const struct tdb_runs *r, struct cur *c) {
    size_t head = r->ks + sizeof(uint32_t);
    for (;;) {
        size_t have = c->hi - c->lo;
        if (have >= head) {
            uint32_t len;
            memcpy(&len, c->b + c->lo + r->ks, sizeof len);
            if (len > RUNS_REC_MAX) return -1;
            if (have >= head + len) return 1;
        }
        if (c->off >= c->end) return have ? -1 : 0;   /* a record cut short */
        memmove(c->b, c->b + c->lo, have);
        c->lo = 0;
        c->hi = have;
        size_t want = c->cap - have;
        if ((uint64_t)want > c->end - c->off) want = (size_t)(c->end - c->off);
        ssize_t got = pread(fileno(r->f), c->b + c->hi, want, (off_t)c->off);
        if (got <= 0) return -1;
        c->hi += (size_t)got;
        c->off += (uint64_t)got;
    }
}

static int heap_less(const struct tdb_runs *r, const struct cur *cs, size_t a, size_t b) {
    return r->cmp(cs[a].b + cs[a].lo, cs[b].b + cs[b].lo) < 0;
}

static void heap_down(const struct tdb_runs *r, const struct cur *cs, size_t *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && heap_less(r, cs, h[l], h[m])) m = l;
        if (l + 1 < n && heap_less(r, cs, h[l + 1], h[m])) m = l + 1;
        if (m == i) return;
        size_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

int tdb_runs_merge(struct tdb_runs *r, size_t mem,
                   int (*fn)(void *arg, const void *key, const void *rec, uint32_t len), void *arg) {
    tdb_runs_cut(r);
    int rc = -1;
    size_t n = r->nrun, nh = 0;
    struct cur *cs = calloc(n ? n : 1, sizeof *cs);
    size_t *h = malloc((n ? n : 1) * sizeof *h);
    size_t each = n ? mem / n : mem, min = 4 * (r->ks + sizeof(uint32_t) + RUNS_REC_MAX);
    if (each < min) each = min;
    if (!cs || !h || fflush(r->f) != 0) goto out;
    for (size_t i = 0; i < n; i++) {
        cs[i] = (struct cur){.b = malloc(each), .cap = each, .off = r->run[i].off, .end = r->run[i].end};
        if (!cs[i].b) goto out;
        int f = cur_fill(r, &cs[i]);
        if (f < 0) goto out;
        if (f) h[nh++] = i;
    }
    for (size_t i = nh / 2; i-- > 0;) heap_down(r, cs, h, nh, i);
    while (nh) {
        struct cur *c = &cs[h[0]];
        uint32_t len;
        memcpy(&len, c->b + c->lo + r->ks, sizeof len);
        int e = fn(arg, c->b + c->lo, c->b + c->lo + r->ks + sizeof len, len);
        if (e) { rc = e; goto out; }
        c->lo += r->ks + sizeof len + len;
        int f = cur_fill(r, c);
        if (f < 0) goto out;
        if (!f) h[0] = h[--nh];
        heap_down(r, cs, h, nh, 0);
    }
    rc = 0;
out:
    for (size_t i = 0; cs && i < n; i++) free(cs[i].b);
    free(cs);
    free(h);
    /* the runs are gone: the file starts again (written over) */
    r->nrun = 0;
    r->put = 0;
    if (fseeko(r->f, 0, SEEK_SET) != 0 && rc == 0) rc = -1;
    return rc;
}
