/* trenddb_head: what of a .trend.db is read before its rows, shared by the
 * full load (read_trenddb.c) and the lazy open (trenddb_lazy.c,
 * probetop(1) --mem): the schema check, the head (global_stats, metrics,
 * targets), the axes and the decoding of a trend_data row.  Both readers
 * use it; neither calls the other's code through it. */
#ifndef PT_TRENDDB_HEAD_H
#define PT_TRENDDB_HEAD_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/cube/cube.h"
#include "model/cube/dataset.h"
#include "model/err.h"
#include "model/cube/names.h"
#include "src/io/common/sqlite_ro.h"

/* Columns of a table read at most: SQLite's default limit (SQLITE_MAX_COLUMN),
 * so that no column of a valid database is left out (global_stats has one
 * per metric). */
#define MAXCOLS 2000

struct tmetric {
    int64_t id;
    char name[64];
    int cube;                 /* cube metric index */
    int nstats;
    int statcol[CUBE_MAX_STATS];   /* trend_data column index per stat */
    uint32_t tells_finite;    /* bits of the stats norm and mean: finite, no element was NaN or Inf */
};

/* A database's schema, global_stats row, metrics and targets. */
struct trenddb_head {
    char tcols[MAXCOLS][64], gcols[MAXCOLS][64];   /* trend_data's and global_stats' columns */
    int ntc, ngc;
    char gstat[MAXCOLS][512];
    int64_t max_rank, min_step, max_step;
    struct tmetric *met;      /* every row of monitoring_metrics, in metric_id order */
    int nmet, dumpkind;
    int64_t *idmap_db;        /* target ids, ascending */
    uint32_t *idmap_local;    /* their names ids */
    size_t nids;
};

int trenddb_has_table(sqlite3 *db, const char *name);
/* The column names of a table (PRAGMA table_info), at most max; -1 on error
 * (a page that does not read, or more than max columns). */
int trenddb_table_columns(sqlite3 *db, const char *table, char cols[][64], int max);
/* Reads h (the caller's, allocated); targets are interned into tn; b may be
 * NULL (the metrics are then numbered in table order).  0, or -1 with err. */
int trenddb_read_head(sqlite3 *db, const char *file, struct cube_builder *b, struct names *tn, struct trenddb_head *h,
                      struct pt_error *err);
void trenddb_head_free(struct trenddb_head *h);
/* Index into idmap_* of a database target id, SIZE_MAX when unknown. */
size_t trenddb_target_index(const struct trenddb_head *h, int64_t tid);
static inline const struct tmetric *trenddb_metric_of(const struct trenddb_head *h, int64_t mid) {
    for (int i = 0; i < h->nmet; i++)
        if (h->met[i].id == mid) return &h->met[i];
    return NULL;
}
/* The statistics of a trend_data row (SELECT *) for metric m into v;
 * returns the bit set of those present (probetop-formats(5), TREND.DB):
 * +-(1e9 + 1) reads as +-Inf and NULL as NaN, except in a row
 * whose norm or mean is finite -- its tensor held no NaN or Inf, so a NULL
 * there is a value msProbe could not store (the True/False minimum of a
 * bool tensor): not present. */
uint32_t trenddb_decode_row(sqlite3_stmt *st, const struct tmetric *m, double *v);

/* A growing array of int64 (trenddb_ivec_push: 0, -1 without memory). */
struct trenddb_ivec {
    int64_t *vals;
    size_t count, cap;
};
int trenddb_ivec_push(struct trenddb_ivec *a, int64_t x);
void trenddb_ivec_uniq(struct trenddb_ivec *a);   /* sorted, distinct */

/* The rank or step in column col of a row: 0 with *out set when it is an
 * integer in the cube's range, else -1 (the row lies off the axes). */
int trenddb_key_of(sqlite3_stmt *st, int col, int32_t *out);

/* The axes of a database, as the full load and the lazy open both lay them
 * out (sorted, distinct; the caller frees ->v): the ranks and steps of the
 * rows, by walks over trend_data's key, and global_stats' ranges within
 * them (probetop-formats(5), TREND.DB).  0, or -1 with err. */
int trenddb_axes(sqlite3 *db, const char *file, const struct trenddb_head *h, struct trenddb_ivec *ranks,
                 struct trenddb_ivec *steps, struct pt_error *err);

/* trenddb_prepare: sql prepared on db into *st; 0, or -1 with err naming
 * file (*st NULL). */
int trenddb_prepare(sqlite3 *db, const char *file, const char *sql, sqlite3_stmt **st, struct pt_error *err);

#endif
