/* tdb_monprep: data2db's monitor rows of a rank read back from the spool
 * and sorted into trend_data's key order (trenddb_write_monitor.c), in one
 * of two buffer sets: while the writer builds one rank's pages from its
 * set, a summary job that would otherwise wait (tdb_monsum's help) reads
 * back and sorts the next rank into the other.  Whoever comes first to a
 * rank makes it ready, so the work goes to the thread that is free and
 * the bytes are the same on any number of threads.  Internal to
 * src/io/trenddb. */
#ifndef PT_TDB_MONPREP_H
#define PT_TDB_MONPREP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/util/radix.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/trenddb/tdb_runs.h"

/* A row on the spool, packed: written once and read back once (twice
 * when its rank is sorted in runs) through the page cache, whose fresh
 * pages cost on every host (probetop(1), data2db), so its 16 bytes of
 * head take mostly 9 and a +0.0 (a monitor row's nans column, a min of 0:
 * 1.4 a row) 2 bytes for all, not 8 each.  A record is 9 bytes: a byte
 * (nv, the values stored, 4 bits; SREC_ZEROS, SREC_MICRO, SREC_LONG: what
 * the tail holds), has (2 bytes), the target's skey (its low 20 bits)
 * with the metric in the top 4 bits of 3 bytes, the step's low 24 bits
 * (3 bytes); then the nv values of has that are not +0.0, columns
 * ascending (8 bytes each); then the tail: the zeros (a bit per column of
 * has whose value is +0.0; 2 bytes) if SREC_ZEROS, the micro step (4
 * bytes) if SREC_MICRO, the skey's high 12 bits and the step's high 8
 * (4 bytes; else the skey is below 2^20 and the step within 24 signed
 * bits) if SREC_LONG.  Every field at a fixed place or one the first
 * byte says, so each of the three readers a row reads only its own
 * (the accessors below), the values always 9 bytes in; integers
 * little-endian, whatever the host. */
struct srec {                /* a record's fields, as srec_get reads them */
    uint32_t skey;           /* its target: id in the writer's skeys */
    int32_t step, micro;     /* as read */
    uint8_t metric;          /* monitor_metric_names index */
    uint8_t nv;              /* values stored */
    uint16_t has;            /* bit per monitor_stat_names index: a value, normalised */
    uint16_t zeros;          /* those of has that are +0.0 (not stored) */
};
enum { SREC_NV = 0x0f, SREC_ZEROS = 0x10, SREC_MICRO = 0x20, SREC_LONG = 0x40 };
#define SREC_HEAD 9          /* the bytes before the values */
#define SREC_MAX (SREC_HEAD + MONITOR_NSTATS_TDB * 8 + 2 + 4 + 4)
_Static_assert(MONITOR_NMETRICS <= 16, "srec: a metric in 4 bits");
_Static_assert(MONITOR_NSTATS_TDB <= 15, "srec: nv in 4 bits");
/* Bytes as integers (the shifts make one load of them where the host
 * allows it, the same bytes on any host). */
static inline uint32_t srec_u16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t srec_u24(const unsigned char *p) { return srec_u16(p) | (uint32_t)p[2] << 16; }
static inline uint32_t srec_u32(const unsigned char *p) { return srec_u24(p) | (uint32_t)p[3] << 24; }
/* Where the tail starts, from the first byte f. */
static inline size_t srec_tail(unsigned f) { return SREC_HEAD + (f & SREC_NV) * sizeof(double); }
/* The record's length, from its first byte: 2, 4 and 4 bytes of tail
 * for the three flags (bits 4, 5, 6). */
static inline size_t srec_len(unsigned f) {
    return srec_tail(f) + ((f >> 3 & 2) | (f >> 3 & 4)) + (f >> 4 & 4);
}
static inline uint32_t srec_zeros(const unsigned char *p) {
    return p[0] & SREC_ZEROS ? srec_u16(p + srec_tail(p[0])) : 0;
}
static inline int32_t srec_micro(const unsigned char *p) {
    return p[0] & SREC_MICRO ? (int32_t)srec_u32(p + srec_tail(p[0]) + (p[0] & SREC_ZEROS ? 2 : 0)) : 0;
}
/* The long form's 4 bytes (the last of the record). */
static inline uint32_t srec_ext(const unsigned char *p) { return srec_u32(p + srec_len(p[0]) - 4); }
/* The fields of the first 9 bytes are read 4 bytes at a time (all inside
 * them: one load each where the host allows it). */
static inline int32_t srec_step(const unsigned char *p) {
    uint32_t lo = srec_u32(p + 5) >> 8;
    if (p[0] & SREC_LONG) return (int32_t)(lo | (srec_ext(p) >> 12 & 0xff) << 24);
    return (int32_t)(lo ^ 0x800000u) - 0x800000;   /* sign extended */
}
static inline uint32_t srec_skey(const unsigned char *p) {
    uint32_t lo = srec_u32(p + 3) & 0xfffff;
    return p[0] & SREC_LONG ? lo | (srec_ext(p) & 0xfff) << 20 : lo;
}
static inline unsigned srec_metric(const unsigned char *p) { return p[5] >> 4; }
/* Every field of the record at p into h; the record's length. */
static inline size_t srec_get(const unsigned char *p, struct srec *h) {
    *h = (struct srec){.skey = srec_skey(p), .step = srec_step(p), .micro = srec_micro(p),
                       .metric = (uint8_t)srec_metric(p), .nv = (uint8_t)(p[0] & SREC_NV),
                       .has = (uint16_t)srec_u16(p + 1), .zeros = (uint16_t)srec_zeros(p)};
    return srec_len(p[0]);
}
static inline void srec_put16(unsigned char *q, uint32_t v) {
    q[0] = (unsigned char)v;
    q[1] = (unsigned char)(v >> 8);
}
static inline void srec_put32(unsigned char *q, uint32_t v) {
    srec_put16(q, v);
    q[2] = (unsigned char)(v >> 16);
    q[3] = (unsigned char)(v >> 24);
}
/* The record of a row put at p (SREC_MAX bytes of room), its h.nv values
 * already at p + SREC_HEAD (the writer puts them there as it walks
 * them): the rest of h; the record's length.  The first 8 bytes made as
 * one integer and stored as one where the host allows it. */
static inline size_t srec_put(unsigned char *p, const struct srec *h) {
    uint32_t step = (uint32_t)h->step;
    int lng = ((h->skey >> 20) | ((step + 0x800000u) >> 24)) != 0;
    unsigned f = h->nv | (h->zeros ? SREC_ZEROS : 0) | (h->micro ? SREC_MICRO : 0) | (lng ? SREC_LONG : 0);
    uint64_t w = f | (uint64_t)h->has << 8 | (uint64_t)((h->skey & 0xfffff) | (uint32_t)h->metric << 20) << 24 |
                 (uint64_t)(step & 0xffff) << 48;
    srec_put32(p, (uint32_t)w);
    srec_put32(p + 4, (uint32_t)(w >> 32));
    p[8] = (unsigned char)(step >> 16);
    unsigned char *q = p + srec_tail(f);
    if (h->zeros) {
        srec_put16(q, h->zeros);
        q += 2;
    }
    if (h->micro) {
        srec_put32(q, (uint32_t)h->micro);
        q += 4;
    }
    if (lng) {
        srec_put32(q, h->skey >> 20 | (step >> 24) << 12);
        q += 4;
    }
    return (size_t)(q - p);
}

struct schunk {              /* a rank's records on the spool */
    int32_t rank;
    uint64_t off, bytes;
    size_t n;
};

/* A row of the rank going in: its key, and where its record is (its
 * place on the spool: also the order INSERT OR IGNORE met them in). */
struct mrow {
    int32_t step, metric;    /* metric: its metric_id */
    int64_t dbid;
    uint64_t at;             /* offset of its record in the rank's bytes */
};

/* What every set is sorted by (the writer's, read only while the sets fill). */
struct mon_keys {
    const struct monitor_steps *st;
    const int64_t *dbid;     /* per skey */
    const int *metric_id;
    /* keys packed for the sort (radix_sort_kv): (step - kstep0) << kshift
     * | trank[skey] << 4 | metric id; val: the record's offset */
    const uint32_t *trank;   /* per skey: its target id's place among them */
    int kbits;               /* bits of the target places */
    size_t budget;           /* a rank's records sorted in memory at most (bytes); more: in runs */
    int fd;                  /* the rows' spool (flushed) */
    const char *final;       /* the .db, for messages */
};

/* One rank ready to go in: in memory (sorted: n pairs in key order, val
 * the record's offset in buf) or, bigger than the budget, in runs. */
struct mon_set {
    char *buf;
    size_t capbuf;
    struct radix_kv *kv, *kvtmp;
    size_t capkv, capkvtmp;
    struct tdb_runs *runs;
    int32_t kstep0;
    int kshift;
    int32_t memo_step, memo_base;   /* the last step as read and its first micro step */
    int memo_ok;
    const struct radix_kv *sorted;
    size_t n;
    int in_runs;             /* the rank is in runs (merge them, budget / 2 of memory) */
};

/* Rank c read back into s and sorted.  lean: in runs, its buffers freed
 * once the runs are written (two sets: their memory stays what one set
 * in runs and one merging took).  0, or -1 with e set. */
int mon_set_fill(const struct mon_keys *k, struct mon_set *s, const struct schunk *c, int lean, struct pt_error *e);
/* Pair r of s's sort (in memory) as its row. */
struct mrow mon_set_row(const struct mon_keys *k, const struct mon_set *s, const struct radix_kv *r);
void mon_set_free(struct mon_set *s);
/* mrow keys as tdb_runs has them (unaligned). */
int mon_cmp_mrow_key(const void *a, const void *b);

/* The two sets and who fills which rank: rank i in set i % nsets, filled
 * by the first to claim it: the writer when it comes to it, or a waiting
 * job (mon_pipe_help) once rank i - 2 is out (its set free). */
struct mon_pipe {
    const struct mon_keys *k;
    const struct schunk *chunk;
    size_t nchunk;
    int nsets;               /* 1: the writer fills every rank itself (no help) */
    struct mon_set set[2];
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t claimed, written; /* ranks [0, claimed) taken to be filled, [0, written) out */
    size_t ready[2];         /* per set: 1 + the rank filled in it, 0 none */
    void (*wake)(void *);    /* the helpers woken: the writer has taken a rank, the next may be filled */
    void *wake_arg;
    int failed;              /* a helper's fill failed: err0 says why */
    struct pt_error err0;
};

void mon_pipe_init(struct mon_pipe *p, const struct mon_keys *k, const struct schunk *chunk, size_t nchunk,
                   int nsets, void (*wake)(void *), void *wake_arg);
/* Both sets freed. */
void mon_pipe_done(struct mon_pipe *p);
/* The writer: rank i's set, filled (by the writer itself when no one has
 * taken it).  NULL with e set. */
struct mon_set *mon_pipe_take(struct mon_pipe *p, size_t i, struct pt_error *e);
/* The writer: rank i is out, its set free for rank i + 2. */
void mon_pipe_release(struct mon_pipe *p, size_t i);
/* tdb_monsum's help (arg: the pipe): the next rank filled when its set is
 * free.  1 one filled, 0 none to fill, -1 with e set. */
int mon_pipe_help(void *arg, struct pt_error *e);

#endif
