/* tdb_monsum: the rank summary of data2db on a monitor tree, made on the
 * pool beside trend_data (trenddb_write_monitor.c).  The writer's job puts
 * the ranks' rows into trend_data one rank after the other and spools each
 * row for the summary (as the summary makes it, packed:
 * tdb_summary_pack_head), noting per rank where each window of steps
 * starts, and posts each rank as it is out; the summary's jobs here read
 * them back, a window of every rank at a time, rank by rank as they are
 * posted (so beside the writer), and feed two parts from each reading
 * (tdb_summary_new_part: the whole run's and the groups of 8 and 64's,
 * whose segments say their group and window): the spool is read once.
 * Window 0 goes to the first pair on the way (job 0); the later windows
 * are shared between the two pairs on both threads, each taking the next
 * window as its thread comes free (job 1 at once, job 2 once the writer
 * is done).  Each part is fed each group's windows in order; the rows'
 * windows put them in key order at the end (tdb_summary_finish_parts),
 * but for the whole run's, which sort first: each window of them goes
 * into the tree as it is done, in window order (tdb_summary_window_tree;
 * the last rank, and so trend_data's last row, is out before any window
 * is done).
 * A job that waits for the writer first does the help it is given (the
 * writer's next rank read back and sorted, tdb_monprep).  Internal to
 * src/io/trenddb. */
#ifndef PT_TDB_MONSUM_H
#define PT_TDB_MONSUM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "src/io/trenddb/tdb.h"
#include "src/io/trenddb/tdb_summary.h"

struct tdb_monsum {
    const struct tdb *t;     /* the writer's (jobs use copies with their own error) */
    int fd;                  /* the summary's spool */
    int nc;                  /* statistic columns */
    size_t nchunk, nwin;     /* ranks with rows (ascending), windows */
    const int32_t *rank;     /* per rank with rows: its rank */
    const uint64_t *woff;    /* per rank with rows: nwin + 1 offsets on the spool */
    const uint64_t *wrows;   /* per rank with rows: nwin row counts (the rows between those offsets) */
    /* the parts: all (NULL but all: one summary fed on one thread, by
     * INSERTs), or two pairs, run[k] and groups[k], each pair fed from one
     * reading: run[0] (opened) and groups[0] window 0 and later ones,
     * run[1] and groups[1] later windows (NULL with one window) */
    struct tdb_summary *all, *run[2], *groups[2];
    /* work a job may do while it waits for the writer (the next rank
     * read back and sorted, tdb_monprep): 1 some done, 0 none, -1 with e
     * set; NULL none */
    int (*help)(void *arg, struct pt_error *e);
    void *help_arg;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t posted;           /* ranks out, their rows on the spool */
    size_t wakes;            /* tdb_monsum_wake's calls */
    int run0;                /* window 0 of the first pair fed every rank and written out (job 0) */
    size_t nextwin;          /* the whole run's next window no part has taken (from 1) */
    size_t treewin;          /* the whole run's next window to go into the tree (tdb_summary_window_tree) */
    int failed;              /* a job failed: err0 says why */
    struct pt_error err0;
};

/* The parts for ns statistic columns cols and ranks up to max_rank, in
 * nwin windows: the table created in t; built beside SQLite: run[0],
 * run[1] (more than one window) and groups, else all (INSERTs).  0, or -1
 * with t's error set. */
int tdb_monsum_open(struct tdb_monsum *p, struct tdb *t, int ns, const char *const *cols, int64_t max_rank,
                    size_t nwin);
/* After the jobs: every part into the table. */
int tdb_monsum_finish(struct tdb_monsum *p, struct tdb *t);
void tdb_monsum_free(struct tdb_monsum *p);
/* p's lock made (the fields above set by the caller); destroyed by _done. */
void tdb_monsum_init(struct tdb_monsum *p);
void tdb_monsum_done(struct tdb_monsum *p);
/* The writer: ranks [0, posted) are out (e NULL), or it failed (e). */
void tdb_monsum_post(struct tdb_monsum *p, size_t posted, const struct pt_error *e);
/* The waiting jobs woken to look for help to give (arg: p). */
void tdb_monsum_wake(void *arg);
/* Summary job k of TDB_MONSUM_JOBS (the writer's job runs before them or
 * beside, never behind one: indices in order), e its error. */
#define TDB_MONSUM_JOBS 3
int tdb_monsum_job(struct tdb_monsum *p, size_t k, struct pt_error *e);
/* The summary fed all in one (p->all), on the caller's thread after the
 * writer: every window of every rank. */
int tdb_monsum_all(struct tdb_monsum *p, struct pt_error *e);

#endif
