/* read_monitor: msProbe monitor CSV trees (probetop-formats(5),
 * MONITOR CSV TREES) into memory, then into the cube or a .trend.db. */
#ifndef PT_READ_MONITOR_H
#define PT_READ_MONITOR_H

#include <stddef.h>
#include <stdint.h>

#include "model/dataset.h"
#include "model/err.h"
#include "src/io/read_dump.h"   /* struct mapping */

/* The metrics: first the MON_NMETRICS of msProbe's data2db (the ids of a
 * monitor .trend.db, fixed order), then the L2 feature files
 * (`attention_hook`, ...; probetop-formats(5), MONITOR CSV TREES), which
 * msProbe's data2db does not import.  The statistics likewise: the
 * MON_NSTATS_TDB columns a .trend.db can hold, then the L2-only ones. */
#define MON_NMETRICS 9
#define MON_NMETRICS_ALL 13
#define MON_NSTATS_TDB 14
#define MON_NSTATS 16
extern const char *const mon_metric_names[MON_NMETRICS_ALL];  /* fixed id order */
extern const char *const mon_stat_names[MON_NSTATS];          /* column order */

struct mon_row {
    uint32_t name;        /* arena offset (after --mapping) */
    int32_t vpp, step, micro;
    uint32_t present;     /* bit per mon_stat_names index */
    double v[MON_NSTATS];
};

struct mon_file {
    char *path;
    int metric;           /* index into mon_metric_names (monitor_v2: its own list) */
    int32_t rank;
    uint32_t statmask;    /* supported columns in the header */
    struct mon_row *rows;
    size_t nrows, cap;
};

struct monitor_data {
    struct mon_file *files;   /* processing order: ranks ascending, files by name */
    size_t nfiles;
    char *arena;
    size_t alen, acap;
    uint32_t metric_has_files;   /* bit per metric: importable files (even header-only) */
    uint32_t metric_has_rows;    /* bit per metric: at least one valid row */
    uint32_t statmask;           /* union of columns of all usable files */
    int32_t max_rank;     /* of every rank folder, a shard's or not */
    int nranks;
    size_t folders_all;   /* rank folders found, before a shard kept its part */
};

int monitor_detect(const char *path);
/* Reads every usable CSV; skipped files and rows go to ds warnings/skipped. */
int monitor_read(const char *path, const struct mapping *map, const struct layout *layout, struct dataset *ds,
                 struct monitor_data *md, struct pt_error *err);
/* data2db --shard K/N: only the rank folders of the K-th (1-based) of N
 * contiguous blocks of ranks (none: 0 with no file); shard_n 0: all. */
int monitor_read_shard(const char *path, const struct mapping *map, const struct layout *layout, int shard_k,
                       int shard_n, struct dataset *ds, struct monitor_data *md, struct pt_error *err);
void monitor_free(struct monitor_data *md);
/* Drops from md what msProbe's data2db does not import (the L2 feature
 * files, statistics beyond MON_NSTATS_TDB), with a note in ds naming data
 * when there was any.  The bits of md are recomputed. */
void monitor_keep_trenddb(struct monitor_data *md, const char *data, struct dataset *ds);
/* A target name as written (nul-terminated in name, *len bytes, size the
 * buffer) with --mapping's replacements then --parallel's global layer
 * numbers (layout NULL: none) applied in place, as data2db does.  0, or -1
 * when the layout cannot rename it (le says why; the name is kept as
 * mapped). */
int monitor_rename(const struct mapping *map, const struct layout *layout, int32_t rank, int32_t vpp, char *name,
                   size_t size, size_t *len, struct pt_error *le);
/* One CSV's bytes (buf, len bytes, malloc'd; taken over and freed, as
 * read_csv hands it on) into md, as metric/rank; path names it in messages.
 * Bad rows and bad files are warnings in ds, never a failure: -1 only when
 * memory runs out.  The file-free entry that tests/fuzz feeds directly. */
int monitor_parse_csv(char *buf, size_t len, const char *path, int metric, int32_t rank, const struct mapping *map,
                      const struct layout *layout, struct dataset *ds, struct monitor_data *md);
/* The step axis of probetop-formats(5), MONITOR CSV TREES: fills step values per row via cb. */
struct mon_steps {
    int micro;
    int32_t *orig;        /* sorted original steps present (micro mode) */
    int32_t *offset;      /* offset per orig step */
    int32_t *count;
    size_t n;
    int32_t min_step, max_step;
};
/* -1 with err set without memory or when the micro steps are more than
 * CUBE_MAX_STEPS (checked before the step tables are allocated). */
int monitor_steps(const struct monitor_data *md, int micro, struct mon_steps *s, struct pt_error *err);
int32_t monitor_row_step(const struct mon_steps *s, const struct mon_row *r);
void monitor_steps_free(struct mon_steps *s);

int monitor_load(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err);

#endif
