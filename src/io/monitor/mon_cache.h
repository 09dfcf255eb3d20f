/* mon_cache: the parsed CSV files of a monitor tree (v1 and monitor_v2),
 * kept between loads so that a reload parses only the files that changed
 * (probetop(1), FOLLOW MODE: a 415 MB tree reloads in about a second
 * instead of five).  It owns every parsed file ("part": its rows, their
 * values, the notes its parse gave) and the one pool of target names
 * their rows point into; a struct monitor_data only views them.
 *
 * A part is reused while its file's identity is unchanged: device, inode,
 * size, modification and change times.  A file modified within the last
 * second is not kept (it could change again within its timestamp's tick,
 * unseen), nor one whose parse left something pending (still being
 * written), nor one beyond the memory budget.  What shapes a parse besides the bytes
 * (--mapping's pairs, follow mode) is the stamp of mon_cache_begin: a new
 * stamp drops every part.
 *
 * The parts are kept in a pstore (src/io/common/pstore.h), keyed by path.  One
 * load at a time uses a cache (the app's loading thread); parts read
 * during a load stay valid until the next mon_cache_begin or the free. */
#ifndef PT_MON_CACHE_H
#define PT_MON_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "src/io/monitor/read_monitor.h"

struct dataset;
struct names;

/* One CSV's parse. */
struct mon_cache_part {
    char *path;
    struct monitor_file *files;       /* owned, rows and values; v1: at most one, v2: one per scope */
    size_t nfiles;
    char **metric_names;          /* monitor_v2: "slug/scope" of files[i], one a file (owned);
                                     NULL: files[i].metric is a monitor_metric_names index */
    char **notes;                 /* the warnings the read and parse gave, in order */
    size_t nnotes;
    int skipped;                  /* the file was not loaded (its notes say why) */
    int partial;                  /* loaded but for a cut last row (its notes say where) */
};

/* Parses one file's bytes (buf, len bytes, NUL-terminated; the caller's:
 * its fields are split in place, and it is read into again for the next
 * file) into part, names into names->pool through
 * mon_csv_intern (mon_csv.h; names may come from the thread's last file);
 * notes, skips and pending files go to ds.  -1 only without memory. */
struct mon_csv_names;
typedef int (*mon_cache_parse_fn)(char *buf, size_t len, const char *path, void *ctx, struct mon_csv_names *names,
                                 struct dataset *ds, struct mon_cache_part *part);

/* budget: the bytes kept parts may take; a part beyond it is parsed again
 * at each load. */
struct mon_cache *mon_cache_new(uint64_t budget);
void mon_cache_free(struct mon_cache *c);
/* The target names every part's rows point into. */
struct names *mon_cache_pool(struct mon_cache *c);

/* Starts a load: frees the parts the last one read without keeping them,
 * and every part when stamp differs from the last load's.  -1 without
 * memory. */
int mon_cache_begin(struct mon_cache *c, const char *stamp);
/* The part of path: the kept one when the file is unchanged, else read
 * (at most max_bytes) and parsed now.  Either way its notes are replayed
 * into ds (warnings, skipped) and its bytes counted in ds->bytes_read.
 * 0 with *out (valid until the next mon_cache_begin), -1 without memory. */
int mon_cache_read(struct mon_cache *c, const char *path, size_t max_bytes, mon_cache_parse_fn parse, void *ctx,
                  struct dataset *ds, const struct mon_cache_part **out);
/* The parts of paths[0..n) into out[0..n), as n calls of mon_cache_read
 * in that order give them (notes into ds in that order), the files that
 * must be parsed parsed on threads threads (0: as mon_cache_read_each), each with
 * names of its own (a pool per thread for all its files), then put into the cache's pool.  ctxs: parse's
 * context of each file, ctx_size bytes apart (each used by one thread).
 * -1 without memory. */
int mon_cache_read_many(struct mon_cache *c, const char *const *paths, size_t n, size_t max_bytes,
                       mon_cache_parse_fn parse, void *ctxs, size_t ctx_size, int threads, struct dataset *ds,
                       const struct mon_cache_part **out);
/* What mon_cache_read_each hands over: file i's part (paths[i]; valid
 * until the next mon_cache_begin), on the caller's thread, in the files'
 * order.  0, or -1: the read stops. */
typedef int (*mon_cache_each_fn)(void *arg, size_t i, const struct mon_cache_part *part, struct dataset *ds);
/* mon_cache_read_many's read, each part handed to each (arg) as soon as it
 * and every file before it are read: the threads parse the next files
 * meanwhile (at most a few dozen ahead), threads in all (0: the cores,
 * or PROBETOP_THREADS, model/util/pool.h).  What ds gets, and in what
 * order, is the same on any number of threads.  dirfds (NULL: none): per
 * file its folder, open (the file opened by openat there: json_read_stat;
 * the caller's to close after).  -1 without memory or when each said so. */
int mon_cache_read_each(struct mon_cache *c, const char *const *paths, const int *dirfds, size_t n, size_t max_bytes,
                        mon_cache_parse_fn parse, void *ctxs, size_t ctx_size, int threads, mon_cache_each_fn each,
                        void *arg, struct dataset *ds);
/* A part of bytes that come from no file (tests, fuzzing; buf malloc'd:
 * taken over and freed): parsed into the cache, never kept past the next
 * mon_cache_begin.  -1 without memory. */
int mon_cache_parse_bytes(struct mon_cache *c, char *buf, size_t len, const char *path, mon_cache_parse_fn parse,
                         void *ctx, struct dataset *ds, const struct mon_cache_part **out);
/* The rows and values of the parts this load read without keeping them
 * freed (their files stay, rows NULL): a streamed read (read_monitor.h,
 * monitor_rank_fn) is done with them. */
void mon_cache_shed(struct mon_cache *c);
/* Ends a load: with whole (the load read every file of the tree), parts
 * of files it did not read are dropped (files gone, or out of a shard). */
void mon_cache_end(struct mon_cache *c, int whole);

/* What the last loads did, for tests and the benchmark. */
struct mon_cache_stats {
    size_t kept;                  /* parts reused */
    size_t parsed;                /* files parsed */
    size_t parts;                 /* parts held now */
    uint64_t bytes;               /* their memory */
};
struct mon_cache_stats mon_cache_stats(const struct mon_cache *c);

/* A part's file with rows, growing: a row appended with room for its
 * values (vals of the file's nval); the row's fields are the caller's to
 * set.  NULL without memory. */
struct monitor_row *mon_cache_add_row(struct monitor_file *f, double **vals);
/* Room for n rows in f at once (a parse that can tell how many rows its
 * bytes hold: no copy at each doubling).  0, or -1 without memory. */
int mon_cache_reserve_rows(struct monitor_file *f, size_t n);
/* A new file in part (metric, rank, the header's columns); NULL without
 * memory.  (A monitor_v2 part grows metric_names along with it.) */
struct monitor_file *mon_cache_add_file(struct mon_cache_part *part, int metric, int32_t rank, uint32_t statmask);

#endif
