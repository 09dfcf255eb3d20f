/* trace_spill: a sorted stream of records within a memory budget (see
 * trace_spill.h). */
#include "src/io/trace/trace_spill.h"

#include "model/util/bigmem.h"
#include "model/util/radix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define TRACE_SPILL_FIRST 1024                   /* records of the first buffer */
#define TRACE_SPILL_MIN_CHUNK ((size_t)1 << 20)  /* a buffer spills only from this size on */
#define TRACE_SPILL_READ ((size_t)64 << 10)      /* bytes read at once per run while merging, at most */

struct run {
    off_t off;          /* where its next unread record is in the file */
    uint64_t left;      /* records not yet read from the file */
    char *buf;          /* read ahead */
    size_t n, pos;      /* records in buf, the current one */
};

struct trace_spill {
    struct trace_spill_head h;   /* buf, rec, n, cap, vcap, count: first, for the inline slot (trace_spill.h) */
    size_t per;         /* records read at once per run while merging */
    int (*cmp)(const void *, const void *);
    int (*keys)(const void *, size_t, size_t, uint64_t *);   /* NULL: qsort only */
    uint64_t lane_mask;  /* a key's lane bits (trace_spill_lanes), 0 none */
    struct trace_spill_budget *b;
    uint32_t *order;    /* in memory, sorted by keys: the records' places in order (held), NULL: buf's order */
    uint64_t held;      /* bytes of buf and the read buffers counted in b->held */
    FILE *f;            /* the runs, one after the other */
    struct run *runs;
    size_t nruns, capruns;
    size_t *heap, nheap;
    size_t next;        /* in memory: the next record to read */
    int sorted, failed;
    struct util_shelf *shelf;   /* where its buffers come from and go back to (trace_spill_shelve), NULL: malloc */
};

/* A sort's temporary array from s's shelf (util_shelf_get; NULL: new),
 * and back to it (NULL: freed). */
static void *tmp_get(struct trace_spill *s, size_t bytes) {
    size_t got;
    return util_shelf_get(s->shelf, bytes, &got);
}
static void tmp_put(struct trace_spill *s, void *p, size_t bytes) { util_shelf_put(s->shelf, p, bytes); }

static void hold(struct trace_spill *s, int64_t bytes) {
    if (bytes >= 0) atomic_fetch_add(&s->b->held, (unsigned long long)bytes);
    else atomic_fetch_sub(&s->b->held, (unsigned long long)-bytes);
    s->held += (uint64_t)bytes;
}

struct trace_spill *trace_spill_new(size_t rec, int (*cmp)(const void *, const void *), struct trace_spill_budget *b) {
    struct trace_spill *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->h.rec = rec;
    s->cmp = cmp;
    s->b = b;
    return s;
}

void trace_spill_keys(struct trace_spill *s, int (*keys)(const void *recs, size_t n, size_t rec, uint64_t *out)) { s->keys = keys; }
void trace_spill_lanes(struct trace_spill *s, int bits) { s->lane_mask = bits > 0 && bits < 64 ? ((uint64_t)1 << bits) - 1 : 0; }

void trace_spill_free(struct trace_spill *s) {
    if (!s) return;
    for (size_t i = 0; i < s->nruns; i++) free(s->runs[i].buf);
    free(s->runs);
    free(s->heap);
    free(s->h.buf);
    tmp_put(s, s->order, s->h.n * sizeof *s->order);
    if (s->f) fclose(s->f);
    if (s->held) hold(s, -(int64_t)s->held);
    free(s);
}

/* An unlinked temporary file in $TMPDIR (else /tmp). */
static FILE *temp_file(struct pt_error *err) {
    const char *d = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/probetop-trace-XXXXXX", d && *d ? d : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) { pt_errorf(err, "%s: cannot make a temporary file for the kernels beyond --mem: %s", path, strerror(errno)); return NULL; }
    unlink(path);
    FILE *f = fdopen(fd, "w+b");
    if (!f) { close(fd); pt_errorf(err, "temporary file: %s", strerror(errno)); }
    return f;
}

/* The lanes a buffer is merged from at most (trace_spill_lanes). */
#define LANES_MAX 16

/* The slot of lane l among the *nl of lane[] (cur: the last record's),
 * added when new; -1 when that would pass LANES_MAX. */
static int lane_slot(uint64_t *lane, int *nl, int cur, uint64_t l) {
    if (*nl && lane[cur] == l) return cur;
    for (int j = 0; j < *nl; j++)
        if (lane[j] == l) return j;
    if (*nl == LANES_MAX) return -1;
    lane[*nl] = l;
    return (*nl)++;
}

/* The places of the n keys k in key order into ord, when the keys of each
 * lane (their bits under mask: trace_spill_lanes) already come in order
 * and there are at most LANES_MAX lanes: each record's lane noted in ord,
 * each lane's places gathered in tmp, then the lanes merged: the lane with
 * the smallest next key gives its records while they are below the next
 * key of any other (kernels come in runs on one stream).  Keys of two lanes
 * differ and a lane's equal keys keep their order: the stable order.  0,
 * or -1 (not so: ord holds nothing of use). */
static int lane_merge(const uint64_t *k, size_t n, uint64_t mask, uint32_t *ord, uint32_t *tmp) {
    uint64_t lane[LANES_MAX], last[LANES_MAX];
    size_t cnt[LANES_MAX] = {0}, at[LANES_MAX], end[LANES_MAX];
    int nl = 0, cur = 0;
    for (size_t i = 0; i < n; i++) {
        int j = lane_slot(lane, &nl, cur, k[i] & mask);
        if (j < 0 || (cnt[j] && k[i] < last[j])) return -1;
        last[j] = k[i];
        cnt[j]++;
        cur = j;
        ord[i] = (uint32_t)j;
    }
    size_t o = 0;
    for (int j = 0; j < nl; j++) {
        at[j] = o;
        o += cnt[j];
        end[j] = o;
    }
    for (size_t i = 0; i < n; i++) tmp[at[ord[i]]++] = (uint32_t)i;
    for (int j = 0; j < nl; j++) at[j] = end[j] - cnt[j];   /* back to the lane's first; every lane has one at least */
    o = 0;
    while (nl > 1) {
        int m = 0;
        uint64_t h = k[tmp[at[0]]], h2 = UINT64_MAX;   /* the smallest next key (lane m) and the next smallest */
        for (int j = 1; j < nl; j++) {
            uint64_t x = k[tmp[at[j]]];
            if (x < h) h2 = h, h = x, m = j;
            else if (x < h2) h2 = x;
        }
        do ord[o++] = tmp[at[m]++];
        while (at[m] < end[m] && k[tmp[at[m]]] < h2);
        if (at[m] == end[m]) {   /* the lane is done: the last takes its slot */
            nl--;
            at[m] = at[nl];
            end[m] = end[nl];
        }
    }
    while (nl && at[0] < end[0]) ord[o++] = tmp[at[0]++];
    return 0;
}

/* The buffer's order as its records' places (s->order, held), from the
 * stream's keys: merged lanes (lane_merge) or a stable radix sort.  0, or
 * -1 (keys refused, too many records, no memory: nothing changed). */
static int order_by_keys(struct trace_spill *s) {
    size_t n = s->h.n;
    if (n > UINT32_MAX) return -1;
    uint64_t *k = tmp_get(s, n * sizeof *k);
    uint32_t *ord = tmp_get(s, n * sizeof *ord);
    struct radix_kv *a = NULL;
    int rc = -1;
    if (!k || !ord || s->keys(s->h.buf, n, s->h.rec, k)) goto out;
    uint32_t *tmp = s->lane_mask ? tmp_get(s, n * sizeof *tmp) : NULL;
    int merged = tmp && !lane_merge(k, n, s->lane_mask, ord, tmp);
    tmp_put(s, tmp, n * sizeof *tmp);
    if (!merged) {
        if (!(a = tmp_get(s, 2 * n * sizeof *a))) goto out;
        uint64_t most = 0;
        for (size_t i = 0; i < n; i++) {
            a[i] = (struct radix_kv){k[i], i};
            most |= k[i];
        }
        struct radix_kv *r = radix_sort_kv(a, a + n, n, radix_bits(most));
        if (!r) goto out;
        for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)r[i].val;
    }
    s->order = ord;
    ord = NULL;
    hold(s, (int64_t)(n * sizeof *s->order));
    rc = 0;
out:
    tmp_put(s, k, n * sizeof *k);
    tmp_put(s, ord, n * sizeof *ord);
    tmp_put(s, a, 2 * n * sizeof *a);
    return rc;
}

/* The records moved to the places s->order gives (for a run written to
 * the file or the array asked for): each cycle of the permutation followed
 * once, a place done marked by order[j] = j; the order freed. */
static int apply_order(struct trace_spill *s) {
    if (!s->order) return 0;
    char *v = s->h.buf, *tmp = malloc(s->h.rec);
    uint32_t *r = s->order;
    size_t rec = s->h.rec;
    if (!tmp) return -1;
    for (size_t j = 0; j < s->h.n; j++) {
        if (r[j] == j) continue;
        memcpy(tmp, v + j * rec, rec);
        size_t at = j;
        for (;;) {
            size_t from = r[at];
            r[at] = (uint32_t)at;
            if (from == j) {
                memcpy(v + at * rec, tmp, rec);
                break;
            }
            memcpy(v + at * rec, v + from * rec, rec);
            at = from;
        }
    }
    free(tmp);
    tmp_put(s, s->order, s->h.n * sizeof *s->order);
    s->order = NULL;
    hold(s, -(int64_t)(s->h.n * sizeof(uint32_t)));
    return 0;
}

/* The buffer in the comparator's order: when every record is strictly
 * before the next (traces mostly write kernels and launches in order) it
 * already is, and qsort is skipped: with no ties the order is the one qsort
 * gives, whatever its algorithm; else the stream's keys give the order
 * (s->order, the records left where they are), or qsort as before. */
static void sort_buf(struct trace_spill *s) {
    size_t i = 1;
    while (i < s->h.n && s->cmp(s->h.buf + (i - 1) * s->h.rec, s->h.buf + i * s->h.rec) < 0) i++;
    if (i < s->h.n && (!s->keys || order_by_keys(s))) qsort(s->h.buf, s->h.n, s->h.rec, s->cmp);
}

/* The buffer, sorted, as one more run at the end of the file. */
static int spill(struct trace_spill *s, struct pt_error *err) {
    if (!s->h.n) return 0;
    if (!s->f && !(s->f = temp_file(err))) return -1;
    sort_buf(s);
    if (apply_order(s)) return pt_errorf(err, "out of memory");
    if (s->nruns == s->capruns) {
        size_t nc = s->capruns ? s->capruns * 2 : 16;
        struct run *r = realloc(s->runs, nc * sizeof *r);
        if (!r) return pt_errorf(err, "out of memory");
        s->runs = r;
        s->capruns = nc;
    }
    if (fseeko(s->f, 0, SEEK_END) != 0) return pt_errorf(err, "temporary file: %s", strerror(errno));
    off_t off = ftello(s->f);
    if (off < 0 || fwrite(s->h.buf, s->h.rec, s->h.n, s->f) != s->h.n || fflush(s->f) != 0)
        return pt_errorf(err, "temporary file for the kernels beyond --mem: %s", strerror(errno));
    s->runs[s->nruns++] = (struct run){.off = off, .left = s->h.n};
    atomic_fetch_add(&s->b->spilled, (unsigned long long)(s->h.n * s->h.rec));
    s->h.n = 0;
    return 0;
}

/* trace_spill_slot's way when the room is full: more counted in the budget
 * (or the buffer spilled), the buffer grown. */
void *trace_spill_slot_grow(struct trace_spill *s, struct pt_error *err) {
    if (s->h.n == s->h.vcap) {
        size_t nc = s->h.vcap ? s->h.vcap * 2 : TRACE_SPILL_FIRST;
        uint64_t more = (uint64_t)(nc - s->h.vcap) * s->h.rec;
        int over = atomic_load(&s->b->held) + more > s->b->cap && s->h.vcap * s->h.rec >= TRACE_SPILL_MIN_CHUNK;
        if (over) {
            if (spill(s, err)) return NULL;
        } else {
            s->h.vcap = nc;
            hold(s, (int64_t)more);
        }
    }
    if (s->h.n == s->h.cap) {   /* the room made ahead is full (or there was none) */
        char *nb = bigmem_realloc(s->h.buf, s->h.vcap * s->h.rec);
        if (!nb) {
            pt_errorf(err, "out of memory");
            return NULL;
        }
        s->h.buf = nb;
        s->h.cap = s->h.vcap;
    }
    s->h.count++;
    return s->h.buf + s->h.n++ * s->h.rec;
}

uint64_t trace_spill_vcap_for(uint64_t n) {
    uint64_t v = 0;
    while (v < n) v = v ? v * 2 : TRACE_SPILL_FIRST;   /* as trace_spill_slot_grow doubles it */
    return v;
}

int trace_spill_push(struct trace_spill *s, const void *rec, struct pt_error *err) {
    void *d = trace_spill_slot(s, err);
    if (!d) return -1;
    memcpy(d, rec, s->h.rec);
    return 0;
}

int trace_spill_reserve(struct trace_spill *s, uint64_t n, struct pt_error *err) {
    if (s->f || s->sorted || n <= s->h.vcap || n > SIZE_MAX / s->h.rec) return 0;
    uint64_t more = (n - s->h.vcap) * s->h.rec;
    if (atomic_load(&s->b->held) + more > s->b->cap) return 0;
    if (n > s->h.cap) {
        char *nb = bigmem_realloc(s->h.buf, (size_t)n * s->h.rec);
        if (!nb) return pt_errorf(err, "out of memory");
        s->h.buf = nb;
        s->h.cap = (size_t)n;
    }
    s->h.vcap = (size_t)n;
    hold(s, (int64_t)more);
    return 0;
}

void trace_spill_room(struct trace_spill *s, uint64_t n) {
    if (s->f || s->sorted || n <= s->h.cap || n > SIZE_MAX / s->h.rec) return;
    char *nb = bigmem_realloc(s->h.buf, (size_t)n * s->h.rec);
    if (!nb) return;
    s->h.buf = nb;
    s->h.cap = (size_t)n;
}

static const void *run_head(const struct trace_spill *s, size_t r) { return s->runs[r].buf + s->runs[r].pos * s->h.rec; }

static int heap_less(const struct trace_spill *s, size_t a, size_t b) {
    int c = s->cmp(run_head(s, a), run_head(s, b));
    return c < 0 || (c == 0 && a < b);   /* ties: the earlier run first, as pushed */
}

static void sift_down(struct trace_spill *s, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < s->nheap && heap_less(s, s->heap[l], s->heap[m])) m = l;
        if (l + 1 < s->nheap && heap_less(s, s->heap[l + 1], s->heap[m])) m = l + 1;
        if (m == i) return;
        size_t t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

/* Reads the next records of run r; 0 (none left: n = 0), -1 error. */
static int run_fill(struct trace_spill *s, size_t r, struct pt_error *err) {
    struct run *u = &s->runs[r];
    size_t want = s->per;
    if (want > u->left) want = (size_t)u->left;
    u->pos = 0;
    u->n = 0;
    if (!want) return 0;
    if (fseeko(s->f, u->off, SEEK_SET) != 0 || fread(u->buf, s->h.rec, want, s->f) != want) {
        s->failed = 1;
        return pt_errorf(err, "temporary file of the kernels beyond --mem: cannot read it back");
    }
    u->off += (off_t)(want * s->h.rec);
    u->left -= want;
    u->n = want;
    return 0;
}

int trace_spill_sort(struct trace_spill *s, struct pt_error *err) {
    s->sorted = 1;
    if (!s->f) {
        if (s->h.n > 1) sort_buf(s);
        return 0;
    }
    if (spill(s, err)) return -1;
    free(s->h.buf);
    s->h.buf = NULL;
    s->h.cap = s->h.vcap = 0;
    hold(s, -(int64_t)s->held);
    /* the read buffers of all runs within an eighth of the budget (64 KiB each at most) */
    uint64_t room = s->b->cap / 8 / s->nruns;
    size_t per = (size_t)((room < TRACE_SPILL_READ ? room : TRACE_SPILL_READ) / s->h.rec);
    s->per = per = per ? per : 1;
    if (!(s->heap = malloc(s->nruns * sizeof *s->heap))) return pt_errorf(err, "out of memory");
    for (size_t r = 0; r < s->nruns; r++) {
        if (!(s->runs[r].buf = malloc(per * s->h.rec))) return pt_errorf(err, "out of memory");
        hold(s, (int64_t)(per * s->h.rec));
        if (run_fill(s, r, err)) return -1;
        if (s->runs[r].n) s->heap[s->nheap++] = r;
    }
    for (size_t i = s->nheap / 2; i-- > 0;) sift_down(s, i);
    return 0;
}

const void *trace_spill_next(struct trace_spill *s, struct pt_error *err) {
    if (!s->f) {
        if (s->next >= s->h.n) return NULL;
        size_t i = s->order ? s->order[s->next] : s->next;
        s->next++;
        return s->h.buf + s->h.rec * i;
    }
    if (!s->nheap) return NULL;
    size_t r = s->heap[0];
    struct run *u = &s->runs[r];
    /* the record is copied out of the run's buffer before that is refilled */
    if (!s->h.buf && !(s->h.buf = malloc(s->h.rec))) { s->failed = 1; pt_errorf(err, "out of memory"); return NULL; }
    memcpy(s->h.buf, run_head(s, r), s->h.rec);
    if (++u->pos == u->n) {
        if (run_fill(s, r, err)) return NULL;
        if (!u->n) s->heap[0] = s->heap[--s->nheap];
    }
    if (s->nheap) sift_down(s, 0);
    return s->h.buf;
}

int trace_spill_park(struct trace_spill *s, struct pt_error *err) {
    if (!s->f && s->h.n && s->h.cap > s->h.n) {   /* room made ahead and not taken is given back */
        char *nb = realloc(s->h.buf, s->h.n * s->h.rec);
        if (nb) s->h.buf = nb, s->h.cap = s->h.n;
    }
    if (s->f || atomic_load(&s->b->held) <= s->b->cap) return 0;
    if (spill(s, err)) return -1;
    free(s->h.buf);
    s->h.buf = NULL;
    s->h.cap = s->h.vcap = 0;
    hold(s, -(int64_t)s->held);
    return 0;
}

void trace_spill_rd_init(struct trace_spill_rd *r, struct trace_spill *s) {
    *r = (struct trace_spill_rd){.s = s};
    if (s->f || !s->h.buf) return;
    r->v = s->h.buf;
    r->order = s->order;
    r->i = s->next;
    r->n = s->h.n;
    r->rec = s->h.rec;
}

int trace_spill_failed(const struct trace_spill *s) { return s->failed; }
void *trace_spill_array(struct trace_spill *s) { return s->f || apply_order(s) ? NULL : s->h.buf; }

/* ---- the shelf (trace_spill.h) ---- */

void trace_spill_shelve(struct trace_spill *s, struct util_shelf *sh) { s->shelf = sh; }

void trace_spill_take(struct trace_spill *s, struct util_shelf *sh, uint64_t n) {
    s->shelf = sh;
    if (!sh || s->h.buf || s->f || s->sorted || !n || n > SIZE_MAX / s->h.rec) return;
    size_t want = (size_t)n * s->h.rec, bytes;
    char *buf = util_shelf_take(sh, want, &bytes);
    if (!buf) return;
    if (bytes < want) {
        char *nb = bigmem_realloc(buf, want);
        if (!nb) { free(buf); return; }   /* (no memory: as without the shelf) */
        buf = nb;
        bytes = want;
    }
    s->h.buf = buf;
    s->h.cap = bytes / s->h.rec;
}

void trace_spill_free_to(struct trace_spill *s, struct util_shelf *sh) {
    if (!s) return;
    if (sh && s->h.buf && s->h.cap) {   /* (spilled: buf is one record, the merge's, cap 0: freed with s) */
        util_shelf_put(sh, s->h.buf, s->h.cap * s->h.rec);
        s->h.buf = NULL;
        s->h.cap = 0;
    }
    trace_spill_free(s);
}
