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

struct srec {                /* a row on the spool, then nv doubles: its statistics of has */
    uint32_t skey;           /* its target: id in the writer's skeys */
    int32_t step, micro;     /* as read */
    uint8_t metric;          /* monitor_metric_names index */
    uint8_t nv;
    uint16_t has;            /* bit per monitor_stat_names index: a value, normalised */
};

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
