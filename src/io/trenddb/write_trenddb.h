/* write_trenddb: `probetop data2db`'s writer of msProbe-compatible
 * dump_data.trend.db and monitor_data.trend.db files. */
#ifndef PT_WRITE_TRENDDB_H
#define PT_WRITE_TRENDDB_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/err.h"

struct tdb_result {
    char path[4096];     /* the file written */
    size_t targets, rows;
    int32_t max_step, max_rank;
    int32_t min_rank;    /* a shard: its first rank (0 otherwise) */
    int shard_k, shard_n;   /* a shard: which (0 otherwise) */
    int empty;           /* a shard with no rank of its own */
};

/* Reads the dump under data and writes outdir/dump_data.trend.db (replacing
 * it only when the new one is complete).  Warnings and skipped files go to
 * ds.  -1 with err when nothing could be written. */
int trenddb_write_dump(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                       struct tdb_result *res, struct pt_error *err);
/* data2db --shard K/N (1 <= K <= N): the same for the K-th of N blocks of
 * ranks, into outdir/dump_data.shard-K-of-N.trend.db, with the tables the
 * merge needs (probetop(1), FILES).  shard_n 0: trenddb_write_dump. */
int trenddb_write_dump_shard(const char *data, const char *outdir, const struct load_opts *lo, int shard_k,
                             int shard_n, struct dataset *ds, struct tdb_result *res, struct pt_error *err);
/* The same for monitor CSV trees -> outdir/monitor_data.trend.db. */
int trenddb_write_monitor(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                          struct tdb_result *res, struct pt_error *err);
/* --shard K/N of a monitor tree -> outdir/monitor_data.shard-K-of-N.trend.db */
int trenddb_write_monitor_shard(const char *data, const char *outdir, const struct load_opts *lo, int shard_k,
                                int shard_n, struct dataset *ds, struct tdb_result *res, struct pt_error *err);

/* data2db --merge: the complete set of <kind>_data.shard-K-of-N.trend.db in
 * dir (kind: dump, or monitor when monitor is set) into
 * outdir/<kind>_data.trend.db, the file an unsharded run writes.  Refuses
 * (-1 with err) an incomplete set, a half-written shard (its temporary file
 * is there), shards of different dumps and shards whose ranks overlap. */
int trenddb_merge(const char *dir, int monitor, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                  struct tdb_result *res, struct pt_error *err);
/* The same into a private temporary database (deleted on close), for
 * reading a folder of shards as one run. */
struct sqlite3;
int trenddb_merge_temp(const char *dir, int monitor, struct sqlite3 **db, struct pt_error *err);
/* Does dir hold a <kind>_data.shard-* file (or its temporary file)? */
int trenddb_shards_present(const char *dir, int monitor);

/* The monitor writer over any reader whose rows map onto msProbe's monitor
 * metrics (monitor_metric_names), as a monitor_v2 tree's do: read reads
 * the tree at data into md, handing each rank folder's rows to rank_done
 * (read_monitor.h, monitor_rank_fn) as they are parsed, so that no more
 * than a rank is ever held; metric_of gives the msProbe metric of a file's
 * metric (-1: not written; NULL: the file's own, when one of msProbe's);
 * after (NULL: none) renumbers md's files onto those metrics, saying what
 * it drops into ds.  data names the input in messages. */
struct monitor_data;
struct trenddb_monitor_src {
    int (*read)(void *arg, const char *data, const struct load_opts *lo,
                int (*rank_done)(void *, const struct monitor_data *, size_t, struct dataset *), void *rank_arg,
                struct dataset *ds, struct monitor_data *md, struct pt_error *err);
    int (*metric_of)(void *arg, int metric);
    void (*after)(void *arg, struct monitor_data *md, const char *data, struct dataset *ds);
    void *arg;
};
int trenddb_write_monitor_src(const char *data, const struct trenddb_monitor_src *src, const char *outdir,
                              const struct load_opts *lo, struct dataset *ds, struct tdb_result *res,
                              struct pt_error *err);

#endif
