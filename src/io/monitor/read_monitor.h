/* read_monitor: msProbe monitor CSV trees (probetop-formats(5),
 * MONITOR CSV TREES) into memory, then into the cube or a .trend.db. */
#ifndef PT_READ_MONITOR_H
#define PT_READ_MONITOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/err.h"
#include "src/io/common/mapping.h"

/* The metrics: first the MONITOR_NMETRICS of msProbe's data2db (the ids of a
 * monitor .trend.db, fixed order), then the L2 feature files
 * (`attention_hook`, ...; probetop-formats(5), MONITOR CSV TREES), which
 * msProbe's data2db does not import.  The statistics likewise: the
 * MONITOR_NSTATS_TDB columns a .trend.db can hold, then the L2-only ones. */
#define MONITOR_NMETRICS 9
#define MONITOR_NMETRICS_ALL 13
#define MONITOR_NSTATS_TDB 14
#define MONITOR_NSTATS 16
extern const char *const monitor_metric_names[MONITOR_NMETRICS_ALL];  /* fixed id order */
extern const char *const monitor_stat_names[MONITOR_NSTATS];          /* column order */

struct monitor_row {
    uint32_t name;        /* id in the names pool of the data (md->pool; after --mapping) */
    int32_t vpp, step, micro;
    uint32_t present;     /* bit per monitor_stat_names index, and MONITOR_ROW_NOTENSOR */
};
/* In monitor_row.present: the row describes no tensor -- every statistic
 * (and shape and dtype, when the header has them) is NaN or empty, as
 * msProbe's monitor writes a non-tensor output such as a None bias
 * (probetop-rules(7), OVERFLOW LEVELS).  Its statistics stay as read (NaN),
 * so a .trend.db gets msProbe's row of NULLs; the cube gets no-tensor
 * cells. */
#define MONITOR_ROW_NOTENSOR (1u << 31)
/* Sets MONITOR_ROW_NOTENSOR on r when its statistics (vals: those of valmask,
 * in monitor_stat_names order; r->present says which were read) hold no
 * number and shape_dtype_na says its
 * shape and dtype cells are NaN or empty (1 too without such columns). */
void monitor_row_mark_notensor(struct monitor_row *r, uint32_t valmask, const double *vals, int shape_dtype_na);

/* One CSV's rows of one metric (a monitor_v2 file has one per scope).  The
 * values of a row are nval doubles in vals, for the columns of valmask in
 * monitor_stat_names order: only what the header has (a row of 16 doubles was
 * most of the memory of a big tree). */
struct monitor_file {
    const char *path;     /* its part's (src/io/monitor/mon_cache.h) */
    int metric;           /* index into monitor_metric_names (monitor_v2: its own list) */
    int32_t rank;
    uint32_t statmask;    /* supported columns in the header (monitor_keep_trenddb may narrow it) */
    uint32_t valmask;     /* the columns vals holds, fixed by the parse */
    int nval;
    struct monitor_row *rows;
    double *vals;
    size_t nrows, cap;
};

/* Statistic s (a monitor_stat_names index in valmask) of row r of f. */
static inline double monitor_value(const struct monitor_file *f, size_t r, int s) {
    return f->vals[r * (size_t)f->nval + (size_t)__builtin_popcount(f->valmask & ((1u << s) - 1u))];
}

struct mon_cache;
struct mon_cache_part;
struct mon_csv_names;
struct names;

/* A tree's files as read: views of the parsed files a cache holds (their
 * rows, values and names are the cache's). */
struct monitor_data {
    struct monitor_file *files;   /* processing order: ranks ascending, files by name */
    size_t nfiles, capfiles;
    struct names *pool;       /* the rows' names: the cache's */
    struct mon_cache *own;    /* the cache, when the reader made one (no cache given): freed with md */
    uint32_t metric_has_files;   /* bit per metric: importable files (even header-only) */
    uint32_t metric_has_rows;    /* bit per metric: at least one valid row */
    uint32_t statmask;           /* union of columns of all usable files */
    int32_t max_rank;     /* of every rank folder, a shard's or not */
    int nranks;
    size_t folders_all;   /* rank folders found, before a shard kept its part */
};

/* A row's name. */
const char *monitor_name(const struct monitor_data *md, const struct monitor_row *r);
/* Adds part's files to md as views; metric_of (NULL: the files' own
 * metric ids) gives each file's metric by its index in the part.  -1
 * without memory. */
int monitor_add_part(struct monitor_data *md, const struct mon_cache_part *part, const int *metric_of);
/* md's cache: c, or (c NULL) one md makes and owns.  -1 without memory. */
int monitor_use_cache(struct monitor_data *md, struct mon_cache *c);

int monitor_detect(const char *path);

/* One rank folder of a tree (v1 or monitor_v2). */
struct monitor_rankdir {
    long rank;
    char *dir;            /* owned */
};

/* data2db's rows as they are read (monitor_read.rank_done): the files just
 * read, at most MONITOR_STREAM_FILES of one rank folder (ranks ascending,
 * files by name, as md->files), are md->files[first..md->nfiles), with
 * their rows; after the call their rows and values are freed (rows NULL,
 * nrows kept).  0, or -1 (the callee's own error set): the read stops. */
#define MONITOR_STREAM_FILES 32
typedef int (*monitor_rank_fn)(void *arg, const struct monitor_data *md, size_t first, struct dataset *ds);

/* One read of a tree. */
struct monitor_read {
    const struct mapping *map;      /* --mapping's pairs (none: empty, never NULL) */
    const struct layout *layout;    /* data2db --parallel: global layer numbers; NULL none */
    int shard_k, shard_n;           /* data2db --shard K/N (see monitor_read_shard); shard_n 0: all */
    atomic_int *cancel;             /* load_opts.cancel (NULL: none): looked at before each rank folder */
    struct mon_cache *cache;        /* src/io/monitor/mon_cache.h; NULL: one of md's own */
    void *arg;                      /* the version's own (monitor_v2: its metrics) */
    monitor_rank_fn rank_done;      /* NULL: every row stays in md; else rows streamed (cache NULL) */
    void *rank_arg;
    int whole_ranks;                /* rank_done gets each rank's files at once (all its folders),
                                       not MONITOR_STREAM_FILES at a time */
};

/* What sets a version of the tree (v1, monitor_v2) apart; the walk of
 * its rank folders and files is monitor_read_tree's, the same for both. */
struct monitor_tree {
    const char *format;             /* the cache's stamp (monitor_cache_stamp) */
    /* The rank folders under path, ranks ascending, into *rd (the array
     * and its dirs handed over).  0, or -1 with err (none is an error). */
    int (*list_ranks)(const char *path, struct dataset *ds, struct monitor_rankdir **rd, size_t *nr,
                      struct pt_error *err);
    /* A file name's slot (v1: its metric, monitor_v2: its slug), or -1:
     * not one of the tree's CSV files. */
    int (*match_csv)(const char *name);
    /* The file's parse (a mon_cache_parse_fn, mon_cache.h), at most
     * max_bytes read; its context ctx_size bytes, set by set_ctx for the
     * file's slot and rank. */
    int (*parse)(char *buf, size_t len, const char *path, void *ctx, struct mon_csv_names *names, struct dataset *ds,
                 struct mon_cache_part *part);
    size_t max_bytes;
    size_t ctx_size;
    void (*set_ctx)(void *ctx, int slot, int32_t rank, const struct monitor_read *r);
    /* Adds a parsed file to md.  -1 without memory. */
    int (*add_part)(struct monitor_data *md, const struct mon_cache_part *part, const struct monitor_read *r,
                    struct dataset *ds);
};

/* Reads every usable CSV of the tree at path into md, as t says, through
 * r->cache: the files unchanged since the cache read them are not parsed
 * again.  Skipped files and rows go to ds warnings/skipped.  0, or -1 with
 * err ("cancelled" when r->cancel was set). */
int monitor_read_tree(const char *path, const struct monitor_tree *t, const struct monitor_read *r,
                      struct dataset *ds, struct monitor_data *md, struct pt_error *err);
/* A v1 tree (no cache, no cancel). */
int monitor_read(const char *path, const struct mapping *map, const struct layout *layout, struct dataset *ds,
                 struct monitor_data *md, struct pt_error *err);
/* The cache's stamp (mon_cache.h, mon_cache_begin) for a read of format's
 * files with map, layout and follow mode. */
#define MONITOR_STAMP_SIZE 128
void monitor_cache_stamp(const char *format, const struct mapping *map, const struct layout *layout, int follow,
                         char buf[MONITOR_STAMP_SIZE]);
/* data2db --shard K/N: only the rank folders of the K-th (1-based) of N
 * contiguous blocks of ranks (none: 0 with no file); shard_n 0: all. */
int monitor_read_shard(const char *path, const struct mapping *map, const struct layout *layout, int shard_k,
                       int shard_n, struct dataset *ds, struct monitor_data *md, struct pt_error *err);
/* A v1 tree read with its rows streamed, rank folder by rank folder, to
 * rank_done (see monitor_rank_fn); md keeps the files without rows. */
int monitor_read_streamed(const char *path, const struct mapping *map, const struct layout *layout, int shard_k,
                          int shard_n, monitor_rank_fn rank_done, void *rank_arg, struct dataset *ds,
                          struct monitor_data *md, struct pt_error *err);
void monitor_free(struct monitor_data *md);
/* Drops from md what msProbe's data2db does not import (the L2 feature
 * files, statistics beyond MONITOR_NSTATS_TDB), with a note in ds naming data
 * when there was any.  The bits of md are recomputed. */
void monitor_keep_trenddb(struct monitor_data *md, const char *data, struct dataset *ds);
/* A target name as written (nul-terminated in name, *len bytes, size the
 * buffer) with --mapping's replacements then --parallel's global layer
 * numbers (layout NULL: none) applied in place, as data2db does.  0, or -1
 * when the layout cannot rename it (le says why; the name is kept as
 * mapped). */
int monitor_rename(const struct mapping *map, const struct layout *layout, int32_t rank, int32_t vpp, char *name,
                   size_t size, size_t *len, struct pt_error *le);
/* One CSV's bytes (buf, len bytes and a NUL after them, malloc'd; taken
 * over and freed, as read_csv hands it on; its fields are split in place,
 * mon_csv.h) into md, as metric/rank; path names it in messages.
 * Bad rows and bad files are warnings in ds, never a failure: -1 only when
 * memory runs out.  The file-free entry that tests/fuzz feeds directly. */
int monitor_parse_csv(char *buf, size_t len, const char *path, int metric, int32_t rank, const struct mapping *map,
                      const struct layout *layout, struct dataset *ds, struct monitor_data *md);
/* The step axis of probetop-formats(5), MONITOR CSV TREES: fills step values per row via cb. */
struct monitor_steps {
    int micro;
    int32_t *orig;        /* sorted original steps present (micro mode) */
    int32_t *offset;      /* offset per orig step */
    int32_t *count;
    size_t n;
    int32_t min_step, max_step;
    size_t notensor;      /* rows that describe no tensor (MONITOR_ROW_NOTENSOR), monitor_steps' count */
};
/* -1 with err set without memory or when the micro steps are more than
 * CUBE_MAX_STEPS (checked before the step tables are allocated). */
int monitor_steps(const struct monitor_data *md, int micro, struct monitor_steps *s, struct pt_error *err);
/* One file's part of the step axis (monitor_steps works them out per
 * file on the pool's threads, then merges them in the files' order, which
 * gives the one pass over every row): its step range, rows of no tensor,
 * and (micro) its first micro step over CUBE_MAX_STEPS or its distinct
 * steps, sorted, each with 1 + its highest micro step. */
struct monitor_steps_file {
    int32_t min, max;
    int any;
    size_t notensor;
    int bad;                  /* a micro step over the limit: bad_micro at bad_step, the first */
    int32_t bad_step, bad_micro;
    int32_t *step, *count;
    size_t n;
};
/* f's part (sf overwritten).  0, or -1 without memory. */
int monitor_steps_file(const struct monitor_file *f, int micro, struct monitor_steps_file *sf);
/* The parts of md's files (sf[i] of md->files[i]; their rows may be gone)
 * into s, as monitor_steps.  0, or -1 with err. */
int monitor_steps_merge(const struct monitor_data *md, const struct monitor_steps_file *sf, int micro,
                        struct monitor_steps *s, struct pt_error *err);
/* Frees n parts and the array. */
void monitor_steps_file_free(struct monitor_steps_file *sf, size_t n);
/* The offsets of s (orig[] and count[] set, n of them) and its step range;
 * a layout over CUBE_MAX_STEPS frees s and fails naming path.  0 or -1. */
int monitor_steps_layout(struct monitor_steps *s, const char *path, struct pt_error *err);
/* A step, micro step or vpp cell: an int32 written as an integer or as a
 * float with no fraction, leading blanks allowed.  1, or 0 not one. */
int monitor_int_cell(const char *s, int32_t *out);
/* The same of a cell n bytes long (a NUL at s[n]): a plain run of at most
 * 9 digits read here, inline (the commonest cell of every row), anything
 * else by monitor_int_cell. */
static inline int monitor_int_cell_n(const char *s, size_t n, int32_t *out) {
    if (n - 1 < 9) {   /* 1 to 9 bytes */
        int32_t v = 0;
        size_t i = 0;
        for (; i < n && (unsigned)(s[i] - '0') <= 9; i++) v = v * 10 + (s[i] - '0');
        if (i == n) {
            *out = v;
            return 1;
        }
    }
    return monitor_int_cell(s, out);
}
int32_t monitor_row_step(const struct monitor_steps *s, const struct monitor_row *r);

/* Rows into cube targets: each pool name is interned into the cube's
 * names once (for vpp 0 and call 0, the usual case), not once a row. */
struct monitor_targets {
    uint32_t *memo;       /* pool id -> target, NAMES_NONE: not yet */
    size_t n;
    int frozen;           /* every row's target is in: looked up only (names_find), on any thread */
};
/* The target of row r (call: its micro step when they are targets, else 0);
 * NAMES_NONE without memory. */
uint32_t monitor_target(struct monitor_targets *t, struct names *nm, const struct monitor_data *md,
                        const struct monitor_row *r, int32_t call);
void monitor_targets_free(struct monitor_targets *t);
struct cube_builder;
/* f's rows into b as its metric (stat_idx: the cube's statistic of each
 * monitor_stat_names column, -1 none), at their steps of st; micro_axis: micro
 * steps are steps (else they tell targets apart).  -1 without memory. */
int monitor_file_to_cube(const struct monitor_data *md, const struct monitor_file *f, int metric, const int *stat_idx,
                         const struct monitor_steps *st, int micro_axis, struct monitor_targets *tg, struct cube_builder *b);
/* Every file of md whose metric m has a cube metric (metric_of[m] >= 0)
 * into b (src/io/monitor/monitor_cube.c): stat_idx holds MONITOR_NSTATS
 * entries a metric (as monitor_file_to_cube's); the metrics are filled on
 * the pool's threads, the same builder rows on any number.  -1 without
 * memory. */
int monitor_to_cube(const struct monitor_data *md, const int *metric_of, const int *stat_idx,
                    const struct monitor_steps *st, int micro_axis, struct cube_builder *b);
/* info (load_opts.summary; src/io/monitor/monitor_summary.c): what
 * monitor_to_cube then cube_builder_finish would give info, without a
 * cell, worked out while the rows stream (monitor_summary_rank as
 * monitor_read.rank_done with whole_ranks, its arg the summary): the step
 * axis' parts, the targets numbered in the files' order, each metric's
 * targets and its non-finite cells (the first row of a cell wins, as in
 * the cube: a cell's rows are all of one rank).  micro: micro steps are
 * steps (else they tell targets apart). */
struct monitor_summary;
struct dataset;
/* err: where monitor_summary_rank says why it stopped the read (the read's). */
struct monitor_summary *monitor_summary_new(int micro, struct pt_error *err);
void monitor_summary_free(struct monitor_summary *s);
int monitor_summary_rank(void *arg, const struct monitor_data *md, size_t first, struct dataset *ds);
/* The step axis of every file handed over (md: the read's), as monitor_steps. */
int monitor_summary_steps(const struct monitor_summary *s, const struct monitor_data *md, struct monitor_steps *st,
                          struct pt_error *err);
/* The targets' names, handed over to the caller (a cube builder's). */
struct names *monitor_summary_names(struct monitor_summary *s);
/* b (whose names are monitor_summary_names', metrics and micro steps
 * declared as for monitor_to_cube) finished into ds->cube, whose metrics
 * have their targets and no values (vals NULL); ds->nonfinite each
 * metric's non-finite cells.  0, or -1 with err. */
int monitor_summary_cube(struct monitor_summary *s, const struct monitor_data *md, const int *metric_of,
                         const int *stat_idx, struct cube_builder *b, struct dataset *ds, struct pt_error *err);
void monitor_steps_free(struct monitor_steps *s);

int monitor_load(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err);

#endif
