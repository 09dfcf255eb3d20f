/* trenddb_lazy: a .trend.db opened lazily (probetop(1), --mem): the axes
 * from small queries, the values by slices through trend_data's primary
 * key (rank, step, target_id, metric_id), as model/cube/cube_lazy.h asks.
 *
 * Axes, as the full load (read_trenddb.c) makes them (trenddb_axes):
 *   ranks   every rank with rows (a walk over the key: one lookup per
 *           rank), and 0..max_rank of global_stats within them;
 *   steps   each rank's first and last step (two lookups per rank), all
 *           steps of the first rank, and min_step..max_step of
 *           global_stats within them;
 *   targets of a metric: those with rows in it.  From probetop_rank_summary
 *           when data2db wrote it (exact); else the targets msProbe's tags
 *           tie to the metric and those with rows at the first and last
 *           step of up to 64 ranks spread over the run.  A target found by
 *           neither (no label, rows only in middle steps of unsampled
 *           ranks) is not shown; the background fill counts its rows and
 *           the analyzer says so (cube_source_ops.missed).
 *
 * Connections: `db` is the UI thread's (every call but fill_all, under the
 * cube's mutex); fill_all opens its own read-only connection on what db
 * reads (the file, or its private snapshot: src/io/common/sqlite_ro.h).  Both
 * immutable: nothing is written beside the file.  A file read in place
 * that changes (another process writes it) makes every later answer an
 * error: what was read may be torn. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube_lazy.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/sqlite_ro.h"
#include "src/io/trenddb/trenddb_head.h"
#include "src/io/trenddb/trenddb_lazy.h"

#define RANK_SAMPLES 64

struct tsrc {
    char *file;
    sqlite3 *db;
    struct sqlite_ro_src src;  /* what db reads: the file, or a snapshot of it */
    struct trenddb_head *h;
    sqlite3_stmt *q_rank, *q_rankstep, *q_cell, *q_probe;
    uint32_t nnames;
    uint8_t **tclass;          /* per cube metric: names id -> TC_* (UI thread only) */
    uint32_t **ltmap;          /* per cube metric: names id -> local target (UINT32_MAX: none) */
    int64_t *dbid;             /* names id -> database target id */
    size_t outside;            /* rows the fill found off the axes */
    char sum_cond[4096];       /* probetop_rank_summary: "<stat>_min IN (+-inf) OR <stat>_nan > 0 ...", "" without */
    int sum8, sum64;           /* it has groups of 8, of 64 ranks */
    int sum_nan;               /* and NaN counts (an older data2db wrote none) */
    char scols[MAXCOLS][64];   /* its columns */
    int nscols;
};

static void tsrc_free(void *p) {
    struct tsrc *s = p;
    if (!s) return;
    sqlite3_finalize(s->q_rank);
    sqlite3_finalize(s->q_rankstep);
    sqlite3_finalize(s->q_cell);
    sqlite3_finalize(s->q_probe);
    sqlite3_close(s->db);
    sqlite_ro_src_free(&s->src);
    if (s->ltmap && s->h)
        for (int m = 0; m < s->h->nmet; m++) free(s->ltmap[m]);
    if (s->tclass && s->h)
        for (int m = 0; m < s->h->nmet; m++) free(s->tclass[m]);
    free(s->tclass);
    free(s->ltmap);
    free(s->dbid);
    trenddb_head_free(s->h);
    free(s->file);
    free(s);
}

/* Where a row goes: cube metric, local target, step and rank index; 0 when
 * it is off the axes. */
struct place { const struct tmetric *m; uint32_t g, lt; int si, ri; };

static int place_row(const struct tsrc *s, const struct cube *c, sqlite3_stmt *st, struct place *p) {
    p->m = trenddb_metric_of(s->h, sqlite3_column_int64(st, 3));
    size_t ti = trenddb_target_index(s->h, sqlite3_column_int64(st, 2));
    if (!p->m || ti == SIZE_MAX) return 0;
    p->g = s->h->idmap_local[ti];
    p->lt = s->ltmap[p->m->cube][p->g];
    int32_t rank, step;
    if (trenddb_key_of(st, 0, &rank) || trenddb_key_of(st, 1, &step)) return 0;
    p->ri = cube_rank_find(c, rank);
    p->si = cube_step_find(c, step);
    return p->lt != UINT32_MAX && p->ri >= 0 && p->si >= 0;
}

/* The layouts of model/cube/cube_lazy.h's blocks, and the dense cube's. */
enum blay { L_STEP, L_RANK, L_TARGET, L_DENSE };

static size_t cell_at(const struct cube *c, enum blay lay, const struct place *p, int stat) {
    size_t nt = c->metrics[p->m->cube].ntargets;
    switch (lay) {
    case L_STEP: return ((size_t)stat * nt + p->lt) * (size_t)c->nranks + (size_t)p->ri;
    case L_RANK: return ((size_t)stat * nt + p->lt) * (size_t)c->nsteps + (size_t)p->si;
    case L_TARGET: return ((size_t)stat * c->nsteps + (size_t)p->si) * (size_t)c->nranks + (size_t)p->ri;
    case L_DENSE: return cube_index(c, &c->metrics[p->m->cube], stat, p->lt, p->si, p->ri);
    }
    return 0;
}

/* Target classes: is a target whose row here is NULL throughout NULL on
 * every step and rank (no tensor, probetop-rules(7), OVERFLOW LEVELS)? */
enum { TC_UNKNOWN, TC_TENSOR, TC_NONE };

/* 1 when the row st is on has no value for m's statistics (NULL only). */
static int row_all_null(sqlite3_stmt *st, const struct tmetric *m) {
    for (int k = 0; k < m->nstats; k++)
        if (sqlite3_column_type(st, m->statcol[k]) != SQLITE_NULL) return 0;
    return 1;
}

/* The class of target g (names id) in m: one key lookup per (rank, step)
 * until a value shows, remembered.  On the UI thread's connection. */
static int target_class(struct tsrc *s, const struct cube *c, const struct tmetric *m, uint32_t g) {
    uint8_t *tc = &s->tclass[m->cube][g];
    if (*tc != TC_UNKNOWN) return *tc;
    int cls = TC_NONE, step0 = -1, steps2 = 0;
    for (int r = 0; r < c->nranks && cls == TC_NONE; r++)
        for (int st = 0; st < c->nsteps && cls == TC_NONE; st++) {
            int64_t v[4] = {c->ranks[r], c->steps[st].value, s->dbid[g], m->id};
            for (int k = 0; k < 4; k++) sqlite3_bind_int64(s->q_probe, k + 1, v[k]);
            int rc = sqlite3_step(s->q_probe);
            if (rc == SQLITE_ROW ? !row_all_null(s->q_probe, m) : rc != SQLITE_DONE) cls = TC_TENSOR;   /* an error: read as NaN */
            else if (rc == SQLITE_ROW) {
                if (step0 < 0) step0 = st;
                else steps2 |= st != step0;
            }
            sqlite3_reset(s->q_probe);
        }
    /* NULL on one step only cannot be told from a NaN (cube_null_targets_notensor) */
    if (cls == TC_NONE && !steps2) cls = TC_TENSOR;
    return *tc = (uint8_t)cls;
}

/* The values of the row st is on (place p) for its metric's statistics
 * into f: NULL is NaN, unless the target is no tensor at all (classify:
 * ask, on the UI thread; else the dense fill's cube_null_targets_notensor
 * decides).  Returns 1 when some value is NaN or an infinity. */
static int row_values(struct tsrc *s, const struct cube *c, sqlite3_stmt *st, const struct place *p, int classify,
                      float *f) {
    double v[CUBE_MAX_STATS];
    uint32_t present = trenddb_decode_row(st, p->m, v);
    if (classify && row_all_null(st, p->m) && target_class(s, c, p->m, p->g) == TC_NONE) {
        for (int k = 0; k < p->m->nstats; k++) f[k] = cube_notensor();
        return 0;
    }
    int any = 0;
    for (int k = 0; k < p->m->nstats; k++) {
        f[k] = (present >> k) & 1 ? cube_to_f32(v[k]) : cube_missing();
        any |= (present >> k) & 1 && !isfinite(f[k]);
    }
    return any;
}

static int run_rows(struct tsrc *s, sqlite3 *db, const struct cube *c, sqlite3_stmt *st, enum blay lay,
                    float *const *out, atomic_int *cancel, struct pt_error *err) {
    int rc;
    size_t n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (cancel && (++n & 0xffff) == 0 && atomic_load(cancel)) break;
        struct place p;
        if (!place_row(s, c, st, &p)) {
            if (lay == L_DENSE) s->outside++;
            continue;
        }
        float *dst = out[p.m->cube];
        if (!dst) continue;
        float f[CUBE_MAX_STATS];
        row_values(s, c, st, &p, lay != L_DENSE, f);
        for (int k = 0; k < p.m->nstats; k++) dst[cell_at(c, lay, &p, k)] = f[k];
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        pt_errorf(err, "%s: table trend_data: %s", s->file, sqlite3_errmsg(db));
        sqlite3_reset(st);
        return -1;
    }
    sqlite3_reset(st);
    return 0;
}

static int fill_block(void *src, const struct cube *c, enum cube_dim dim, int value, int metric, float *out,
                      struct pt_error *err) {
    struct tsrc *s = src;
    float **outs = calloc((size_t)s->h->nmet, sizeof *outs);   /* only metric's is set */
    int64_t mid = s->h->met[metric].id;
    int rc = 0;
    if (!outs) return pt_errorf(err, "out of memory");
    outs[metric] = out;
    switch (dim) {
    case DIM_RANK:   /* one range of the key */
        sqlite3_bind_int64(s->q_rank, 1, c->ranks[value]);
        sqlite3_bind_int64(s->q_rank, 2, mid);
        rc = run_rows(s, s->db, c, s->q_rank, L_RANK, outs, NULL, err);
        break;
    case DIM_STEP:   /* one range per rank */
        for (int r = 0; rc == 0 && r < c->nranks; r++) {
            sqlite3_bind_int64(s->q_rankstep, 1, c->ranks[r]);
            sqlite3_bind_int64(s->q_rankstep, 2, c->steps[value].value);
            sqlite3_bind_int64(s->q_rankstep, 3, mid);
            rc = run_rows(s, s->db, c, s->q_rankstep, L_STEP, outs, NULL, err);
        }
        break;
    case DIM_TARGET: /* one row per (rank, step) */
        if ((uint32_t)value >= s->nnames) break;
        for (int r = 0; rc == 0 && r < c->nranks; r++)
            for (int st = 0; rc == 0 && st < c->nsteps; st++) {
                sqlite3_bind_int64(s->q_cell, 1, c->ranks[r]);
                sqlite3_bind_int64(s->q_cell, 2, c->steps[st].value);
                sqlite3_bind_int64(s->q_cell, 3, s->dbid[value]);
                sqlite3_bind_int64(s->q_cell, 4, mid);
                rc = run_rows(s, s->db, c, s->q_cell, L_TARGET, outs, NULL, err);
            }
        break;
    }
    free(outs);
    return rc;
}

static int fill_cell(void *src, const struct cube *c, int metric, uint32_t lt, int step, int rank, float *vals,
                     struct pt_error *err) {
    struct tsrc *s = src;
    const struct tmetric *m = NULL;
    for (int i = 0; i < s->h->nmet; i++)
        if (s->h->met[i].cube == metric) m = &s->h->met[i];
    if (!m || lt >= c->metrics[metric].ntargets) return 0;
    uint32_t g = c->metrics[metric].targets[lt];
    sqlite3_bind_int64(s->q_cell, 1, c->ranks[rank]);
    sqlite3_bind_int64(s->q_cell, 2, c->steps[step].value);
    sqlite3_bind_int64(s->q_cell, 3, s->dbid[g]);
    sqlite3_bind_int64(s->q_cell, 4, m->id);
    int rc = sqlite3_step(s->q_cell);
    if (rc == SQLITE_ROW) {
        struct place p = {.m = m, .g = g, .lt = lt, .si = step, .ri = rank};
        row_values(s, c, s->q_cell, &p, 1, vals);
    }
    sqlite3_reset(s->q_cell);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pt_errorf(err, "%s: table trend_data: %s", s->file, sqlite3_errmsg(s->db));
    return 0;
}

static int fill_all(void *src, const struct cube *c, float *const *vals, atomic_int *cancel, struct pt_error *err) {
    struct tsrc *s = src;
    sqlite3 *db;
    sqlite3_stmt *st = NULL;
    if (sqlite_ro_reopen(&s->src, &db, err) != 0) return -1;
    if (sqlite3_prepare_v2(db, "SELECT * FROM trend_data", -1, &st, NULL) != SQLITE_OK) {
        pt_errorf(err, "%s: table trend_data: %s", s->file, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    int rc = run_rows(s, db, c, st, L_DENSE, vals, cancel, err);
    if (rc == 0 && atomic_load(cancel)) rc = pt_errorf(err, "cancelled");
    for (int m = 0; rc == 0 && m < c->nmetrics; m++)   /* targets NULL throughout: no tensor */
        if (vals[m]) cube_null_targets_notensor(c, m, vals[m]);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

/* ---- non-finite cells: msProbe keeps +-Inf as +-(1e9 + 1) and NaN as NULL ---- */

/* fn for the row st is on when it has a non-finite statistic; 1: stop. */
static int emit_row(struct tsrc *s, const struct cube *c, sqlite3_stmt *st, cube_nonfinite_fn fn, void *ctx) {
    struct place p;
    if (!place_row(s, c, st, &p)) return 0;
    float f[CUBE_MAX_STATS];
    return row_values(s, c, st, &p, 1, f) && fn(ctx, p.m->cube, p.lt, p.si, p.ri, f) != 0;
}

static int64_t db_metric_id(const struct tsrc *s, int metric) {
    return metric >= 0 && metric < s->h->nmet ? s->h->met[metric].id : -1;
}

/* Steps st (bound), emitting; 1 stopped, 0 done, -1 error. */
static int emit_all(struct tsrc *s, const struct cube *c, sqlite3_stmt *st, cube_nonfinite_fn fn, void *ctx,
                    struct pt_error *err) {
    int rc, stop = 0;
    while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) stop = emit_row(s, c, st, fn, ctx);
    sqlite3_reset(st);
    if (!stop && rc != SQLITE_DONE) return pt_errorf(err, "%s: table trend_data: %s", s->file, sqlite3_errmsg(s->db));
    return stop;
}

/* With data2db's probetop_rank_summary: the (step, target, metric) keys
 * whose minimum or maximum over all ranks is an infinity or that count a
 * NaN (keys of a target that is no tensor skipped), then which of their
 * groups of 8 ranks (when the table has them), then those ranks' rows: a
 * scan of the summary's all-ranks part (a row per key, not per rank) and a
 * few lookups, instead of a scan of the whole table. */
static int nonfinite_summary(struct tsrc *s, const struct cube *c, int metric, int step, cube_nonfinite_fn fn,
                             void *ctx, struct pt_error *err) {
    char sql[8192];
    sqlite3_stmt *keys = NULL, *grp = NULL;
    int rc = -1;
    size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT step, target_id, metric_id FROM probetop_rank_summary "
                                                 "WHERE group_size = ?1 AND (%s)%s%s", s->sum_cond,
                                step >= 0 ? " AND step = ?2" : "", metric >= 0 ? " AND metric_id = ?3" : "");
    (void)o;
    if (trenddb_prepare(s->db, s->file, sql, &keys, err)) return -1;
    snprintf(sql, sizeof sql, "SELECT 1 FROM probetop_rank_summary WHERE group_size = 8 AND rank_group = ?1 AND "
                              "step = ?2 AND target_id = ?3 AND metric_id = ?4 AND (%s)", s->sum_cond);
    if (trenddb_prepare(s->db, s->file, sql, &grp, err)) goto out;
    sqlite3_bind_int64(keys, 1, 0);
    if (step >= 0) sqlite3_bind_int64(keys, 2, c->steps[step].value);
    if (metric >= 0) sqlite3_bind_int64(keys, 3, db_metric_id(s, metric));
    int krc, stop = 0;
    int64_t ngroups = c->nranks ? ((int64_t)c->ranks[c->nranks - 1] >> 3) + 1 : 0;
    while (!stop && (krc = sqlite3_step(keys)) == SQLITE_ROW) {
        int64_t kst = sqlite3_column_int64(keys, 0), kt = sqlite3_column_int64(keys, 1), km = sqlite3_column_int64(keys, 2);
        /* the NaN count of a target that is no tensor: nothing to find */
        const struct tmetric *tm = trenddb_metric_of(s->h, km);
        size_t ti = trenddb_target_index(s->h, kt);
        if (tm && ti != SIZE_MAX && target_class(s, c, tm, s->h->idmap_local[ti]) == TC_NONE) continue;
        for (int64_t g = 0; !stop && g < (s->sum8 ? ngroups : 1); g++) {
            if (s->sum8) {
                int64_t v[4] = {g, kst, kt, km};
                for (int k = 0; k < 4; k++) sqlite3_bind_int64(grp, k + 1, v[k]);
                int hit = sqlite3_step(grp);
                sqlite3_reset(grp);
                if (hit == SQLITE_DONE) continue;
                if (hit != SQLITE_ROW) { pt_errorf(err, "%s: table probetop_rank_summary: %s", s->file, sqlite3_errmsg(s->db)); goto out; }
            }
            for (int r = 0; !stop && r < c->nranks; r++) {
                if (s->sum8 && (c->ranks[r] >> 3) != g) continue;
                int64_t v[4] = {c->ranks[r], kst, kt, km};
                for (int k = 0; k < 4; k++) sqlite3_bind_int64(s->q_cell, k + 1, v[k]);
                int e = emit_all(s, c, s->q_cell, fn, ctx, err);
                if (e < 0) goto out;
                stop = e;
            }
        }
    }
    if (!stop && krc != SQLITE_DONE) {
        pt_errorf(err, "%s: table probetop_rank_summary: %s", s->file, sqlite3_errmsg(s->db));
        goto out;
    }
    rc = stop;
out:
    sqlite3_finalize(keys);
    sqlite3_finalize(grp);
    return rc;
}

/* Room for one metric's clause over its statistic columns in a condition
 * built below: its id and every column named with a test of 24 bytes. */
static size_t stat_cols_size(const struct tsrc *s, const struct tmetric *m) {
    size_t size = 64;
    for (int k = 0; k < m->nstats; k++) size += strlen(s->h->tcols[m->statcol[k]]) + 24;
    return size;
}

/* The SQL condition of a row with an infinity (ifnull: for NOT, with
 * NULL read as no infinity) or (nulls) of a NULL among its metric's
 * statistics, for metric (-1 all): every statistic column, as many as
 * trend_data has (none left out).  Malloc'd, NULL when out of memory. */
static char *row_cond(const struct tsrc *s, int metric, int nulls, int ifnull) {
    size_t size = 16;
    if (!nulls)
        for (int k = 4; k < s->h->ntc; k++) size += strlen(s->h->tcols[k]) + 64;
    for (int i = 0; nulls && i < s->h->nmet; i++) {
        const struct tmetric *m = &s->h->met[i];
        if (metric >= 0 && m->cube != metric) continue;
        size += stat_cols_size(s, m);
    }
    char *buf = malloc(size);
    if (!buf) return NULL;
    size_t o = (size_t)snprintf(buf, size, "(0");
    if (!nulls)
        for (int k = 4; k < s->h->ntc; k++)
            o += (size_t)snprintf(buf + o, size - o, ifnull ? " OR ifnull(\"%s\", 0) IN (1000000001.0, -1000000001.0)"
                                                            : " OR \"%s\" IN (1000000001.0, -1000000001.0)", s->h->tcols[k]);
    for (int i = 0; nulls && i < s->h->nmet; i++) {
        const struct tmetric *m = &s->h->met[i];
        if (metric >= 0 && m->cube != metric) continue;
        o += (size_t)snprintf(buf + o, size - o, " OR (metric_id = %lld AND (0", (long long)m->id);
        for (int k = 0; k < m->nstats; k++)
            o += (size_t)snprintf(buf + o, size - o, " OR \"%s\" IS NULL", s->h->tcols[m->statcol[k]]);
        o += (size_t)snprintf(buf + o, size - o, "))");
    }
    snprintf(buf + o, size - o, ")");
    return buf;
}

/* The rows of cond (one rank, every rank of one step: a range each; or one scan), emitted. */
static int nonfinite_scan(struct tsrc *s, const struct cube *c, const char *cond, int metric, int step, int rank,
                          cube_nonfinite_fn fn, void *ctx, struct pt_error *err) {
    size_t len = strlen(cond) + 256;
    char *sql = malloc(len);
    if (!sql) return pt_errorf(err, "out of memory");
    snprintf(sql, len, "SELECT * FROM trend_data WHERE %s%s%s%s", cond, rank >= 0 || step >= 0 ? " AND rank = ?1" : "",
             step >= 0 ? " AND step = ?2" : "", metric >= 0 ? " AND metric_id = ?3" : "");
    sqlite3_stmt *st;
    int rc = trenddb_prepare(s->db, s->file, sql, &st, err);
    free(sql);
    if (rc) return -1;
    if (metric >= 0) sqlite3_bind_int64(st, 3, db_metric_id(s, metric));
    if (step >= 0) sqlite3_bind_int64(st, 2, c->steps[step].value);
    int r0 = rank >= 0 ? rank : 0, r1 = rank >= 0 ? rank + 1 : step >= 0 ? c->nranks : 1;
    for (int r = r0; rc == 0 && r < r1; r++) {
        if (rank >= 0 || step >= 0) sqlite3_bind_int64(st, 1, c->ranks[r]);
        rc = emit_all(s, c, st, fn, ctx, err);
    }
    sqlite3_finalize(st);
    return rc;
}

static int nonfinite(void *src, const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn, void *ctx,
                     struct pt_error *err) {
    struct tsrc *s = src;
    int summary = rank < 0 && s->sum_cond[0];
    char *nul = row_cond(s, metric, 1, 0), *inf = row_cond(s, metric, 0, summary), *both = NULL;
    int rc = -1;
    if (!inf || !nul || !(both = malloc(strlen(inf) + strlen(nul) + 32))) { pt_errorf(err, "out of memory"); goto out; }
    if (summary) {
        /* the summary finds the infinities and, with its NaN counts, the
         * NaN; without them (an older data2db) the NaN rows without an
         * infinity are a scan */
        rc = nonfinite_summary(s, c, metric, step, fn, ctx, err);
        if (rc == 0 && !s->sum_nan) {
            sprintf(both, "%s AND NOT %s", nul, inf);
            rc = nonfinite_scan(s, c, both, metric, step, rank, fn, ctx, err);
        }
    } else {
        sprintf(both, "(%s OR %s)", inf, nul);
        rc = nonfinite_scan(s, c, both, metric, step, rank, fn, ctx, err);
    }
out:
    free(inf);
    free(nul);
    free(both);
    return rc < 0 ? -1 : 0;
}

/* What a zoomed-out heat-map cell shows for a group (views/agg.h) from its
 * minimum, maximum and NaN count: NaN if any (no tensor when the target
 * is none), an infinity if any (+Inf first), else the value of larger
 * magnitude. */
static float group_cell(struct tsrc *s, const struct cube *c, const struct tmetric *m, uint32_t g, sqlite3_stmt *st,
                        int cmin, int cmax, int cnan) {
    if (sqlite3_column_int64(st, cnan) > 0) return target_class(s, c, m, g) == TC_NONE ? cube_notensor() : NAN;
    if (sqlite3_column_type(st, cmin) == SQLITE_NULL && sqlite3_column_type(st, cmax) == SQLITE_NULL)
        return cube_missing();
    double x[2];
    for (int k = 0; k < 2; k++) {
        int col = k ? cmax : cmin, other = k ? cmin : cmax;
        x[k] = sqlite3_column_double(st, sqlite3_column_type(st, col) == SQLITE_NULL ? other : col);
        if (x[k] == 1000000001.0) x[k] = INFINITY;
        else if (x[k] == -1000000001.0) x[k] = -INFINITY;
    }
    float lo = cube_to_f32(x[0]), hi = cube_to_f32(x[1]);
    if (hi == INFINITY || lo == INFINITY) return INFINITY;
    if (lo == -INFINITY || hi == -INFINITY) return -INFINITY;
    return fabsf(lo) > fabsf(hi) ? lo : hi;
}

static int scol(const struct tsrc *s, const char *stat, const char *suffix) {
    char want[80];
    snprintf(want, sizeof want, "%s_%s", stat, suffix);
    for (int i = 0; i < s->nscols; i++)
        if (!strcmp(s->scols[i], want)) return i;
    return -1;
}

static int fill_groups(void *src, const struct cube *c, int step, int metric, int group, float *out,
                       struct pt_error *err) {
    struct tsrc *s = src;
    const struct tmetric *m = &s->h->met[metric];
    if (!s->sum_cond[0] || (group == 8 && !s->sum8) || (group == 64 && !s->sum64) || (group != 8 && group != 64)) return 1;
    char sql[4096];
    size_t o = (size_t)snprintf(sql, sizeof sql, "SELECT target_id");
    for (int k = 0; k < m->nstats; k++) {
        const char *name = s->h->tcols[m->statcol[k]];
        /* a summary without NaN counts (an older data2db's) hides NaN: the exact slice */
        if (scol(s, name, "min") < 0 || scol(s, name, "max") < 0 || scol(s, name, "nan") < 0 || o + 200 > sizeof sql)
            return 1;
        o += (size_t)snprintf(sql + o, sizeof sql - o, ", \"%s_min\", \"%s_max\", \"%s_nan\"", name, name, name);
    }
    snprintf(sql + o, sizeof sql - o, " FROM probetop_rank_summary WHERE group_size = ?1 AND rank_group = ?2 AND "
                                      "step = ?3 AND metric_id = ?4");
    sqlite3_stmt *st;
    if (trenddb_prepare(s->db, s->file, sql, &st, err)) return -1;
    size_t nt = c->metrics[metric].ntargets, ng = (size_t)((c->nranks + group - 1) / group);
    int rc = 0;
    for (size_t g = 0; rc == 0 && g < ng; g++) {
        int64_t v[4] = {group, (int64_t)g, c->steps[step].value, m->id};
        for (int k = 0; k < 4; k++) sqlite3_bind_int64(st, k + 1, v[k]);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            size_t ti = trenddb_target_index(s->h, sqlite3_column_int64(st, 0));
            uint32_t lt = ti == SIZE_MAX ? UINT32_MAX : s->ltmap[metric][s->h->idmap_local[ti]];
            if (lt == UINT32_MAX) continue;
            for (int k = 0; k < m->nstats; k++)
                out[((size_t)k * nt + lt) * ng + g] =
                    group_cell(s, c, m, s->h->idmap_local[ti], st, 1 + 3 * k, 2 + 3 * k, 3 + 3 * k);
        }
        rc = rc == SQLITE_DONE ? 0 : pt_errorf(err, "%s: table probetop_rank_summary: %s", s->file, sqlite3_errmsg(s->db));
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

static size_t missed(void *src) { return ((struct tsrc *)src)->outside; }

/* ---- a file another process writes: what was read since it changed may
 * be torn, and is not given (probetop-formats(5), SQLITE INPUTS) ---- */

static int changed(void *src) { return sqlite_ro_changed(&((struct tsrc *)src)->src); }

static int settled(const struct tsrc *s, int rc, struct pt_error *err) {
    if (rc < 0 || !sqlite_ro_changed(&s->src)) return rc;
    return pt_errorf(err, "%s changed while it was read (another process writes it): read it again", s->file);
}

static int fill_block_s(void *src, const struct cube *c, enum cube_dim dim, int value, int metric, float *out,
                        struct pt_error *err) {
    return settled(src, fill_block(src, c, dim, value, metric, out, err), err);
}

static int fill_cell_s(void *src, const struct cube *c, int metric, uint32_t lt, int step, int rank, float *vals,
                       struct pt_error *err) {
    return settled(src, fill_cell(src, c, metric, lt, step, rank, vals, err), err);
}

static int fill_all_s(void *src, const struct cube *c, float *const *vals, atomic_int *cancel, struct pt_error *err) {
    return settled(src, fill_all(src, c, vals, cancel, err), err);
}

static int nonfinite_s(void *src, const struct cube *c, int metric, int step, int rank, cube_nonfinite_fn fn,
                       void *ctx, struct pt_error *err) {
    return settled(src, nonfinite(src, c, metric, step, rank, fn, ctx, err), err);
}

static int fill_groups_s(void *src, const struct cube *c, int step, int metric, int group, float *out,
                         struct pt_error *err) {
    return settled(src, fill_groups(src, c, step, metric, group, out, err), err);
}

/* The rows of targets NULL in every statistic on every step and rank of a
 * metric, on two steps or more (no tensor), rows off the axes apart: one grouped scan, asked by
 * the headless commands (the analyzer classifies the targets it shows). */
static int notensor(void *src, const struct cube *c, size_t *out, struct pt_error *err) {
    struct tsrc *s = src;
    (void)c;
    size_t size = 256;
    for (int i = 0; i < s->h->nmet; i++) {
        size += stat_cols_size(s, &s->h->met[i]);
    }
    char *sql = malloc(size);
    if (!sql) return pt_errorf(err, "out of memory");
    /* has: 1 when the row holds a value for its metric's statistics */
    size_t o = (size_t)snprintf(sql, size, "SELECT total(n) FROM (SELECT count(*) AS n, max(CASE metric_id");
    for (int i = 0; i < s->h->nmet; i++) {
        const struct tmetric *m = &s->h->met[i];
        o += (size_t)snprintf(sql + o, size - o, " WHEN %lld THEN (0", (long long)m->id);
        for (int k = 0; k < m->nstats; k++)
            o += (size_t)snprintf(sql + o, size - o, " OR \"%s\" IS NOT NULL", s->h->tcols[m->statcol[k]]);
        o += (size_t)snprintf(sql + o, size - o, ")");
    }
    snprintf(sql + o, size - o, " ELSE 1 END) AS has, count(DISTINCT step) AS steps FROM trend_data WHERE "
                                "typeof(rank) = 'integer' AND typeof(step) = 'integer' GROUP BY metric_id, target_id) "
                                "WHERE has = 0 AND steps >= 2");
    sqlite3_stmt *st;
    int rc = trenddb_prepare(s->db, s->file, sql, &st, err);
    free(sql);
    if (rc) return -1;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = (size_t)sqlite3_column_double(st, 0);
    else pt_errorf(err, "%s: table trend_data: %s", s->file, sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

static int notensor_s(void *src, const struct cube *c, size_t *out, struct pt_error *err) {
    return settled(src, notensor(src, c, out, err), err);
}

static const struct cube_source_ops trenddb_source = {
    .fill_block = fill_block_s,
    .fill_cell = fill_cell_s,
    .fill_all = fill_all_s,
    .nonfinite = nonfinite_s,
    .fill_groups = fill_groups_s,
    .missed = missed,
    .changed = changed,
    .notensor = notensor_s,
    .free = tsrc_free,
};

/* The count(*) an SQL statement gives into *n; 0, or -1 when it does not read. */
static int trenddb_count(sqlite3 *db, const char *sql, int64_t *n) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Marks (metric, target) pairs a statement yields (columns metric_id, target_id). */
static int mark_pairs(struct tsrc *s, sqlite3_stmt *st, uint8_t **has) {
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const struct tmetric *m = trenddb_metric_of(s->h, sqlite3_column_int64(st, 0));
        size_t ti = trenddb_target_index(s->h, sqlite3_column_int64(st, 1));
        if (m && ti != SIZE_MAX) has[m->cube][s->h->idmap_local[ti]] = 1;
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* has[metric][names id]: the targets with rows in each metric (see the
 * header comment for where they come from). */
static int find_targets(struct tsrc *s, const struct trenddb_ivec *ranks, uint8_t **has, struct pt_error *err) {
    sqlite3_stmt *st = NULL, *first = NULL, *last = NULL;
    int rc = -1;
    if (trenddb_has_table(s->db, "probetop_rank_summary") == 1) {
        if (trenddb_prepare(s->db, s->file, "SELECT DISTINCT metric_id, target_id FROM probetop_rank_summary WHERE group_size = 0",
                 &st, err))
            return -1;
        rc = mark_pairs(s, st, has);
        sqlite3_finalize(st);
        return rc ? pt_errorf(err, "%s: table probetop_rank_summary: %s", s->file, sqlite3_errmsg(s->db)) : 0;
    }
    if (trenddb_has_table(s->db, "monitoring_tags") == 1 && trenddb_has_table(s->db, "tag_target_mapping") == 1) {
        if (trenddb_prepare(s->db, s->file,
                 "SELECT DISTINCT t.metric_id, m.target_id FROM monitoring_tags t JOIN tag_target_mapping m "
                 "ON m.tag_id = t.tag_id",
                 &st, err))
            return -1;
        rc = mark_pairs(s, st, has);
        sqlite3_finalize(st);
        if (rc) return pt_errorf(err, "%s: table monitoring_tags: %s", s->file, sqlite3_errmsg(s->db));
    }
    rc = -1;
    if (trenddb_prepare(s->db, s->file,
             "SELECT DISTINCT metric_id, target_id FROM trend_data WHERE rank = ?1 AND step = "
             "(SELECT step FROM trend_data WHERE rank = ?1 ORDER BY step LIMIT 1)",
             &first, err) ||
        trenddb_prepare(s->db, s->file,
             "SELECT DISTINCT metric_id, target_id FROM trend_data WHERE rank = ?1 AND step = "
             "(SELECT step FROM trend_data WHERE rank = ?1 ORDER BY step DESC LIMIT 1)",
             &last, err))
        goto out;
    size_t every = ranks->count > RANK_SAMPLES ? (ranks->count + RANK_SAMPLES - 1) / RANK_SAMPLES : 1;
    for (size_t i = 0; i < ranks->count; i += every) {
        size_t k = i + every >= ranks->count ? ranks->count - 1 : i;   /* the last rank too */
        sqlite3_bind_int64(first, 1, ranks->vals[k]);
        sqlite3_bind_int64(last, 1, ranks->vals[k]);
        if (mark_pairs(s, first, has) || mark_pairs(s, last, has)) {
            pt_errorf(err, "%s: table trend_data: %s", s->file, sqlite3_errmsg(s->db));
            goto out;
        }
        if (k != i) {
            sqlite3_bind_int64(first, 1, ranks->vals[i]);
            sqlite3_bind_int64(last, 1, ranks->vals[i]);
            if (mark_pairs(s, first, has) || mark_pairs(s, last, has)) {
                pt_errorf(err, "%s: table trend_data: %s", s->file, sqlite3_errmsg(s->db));
                goto out;
            }
        }
    }
    rc = 0;
out:
    sqlite3_finalize(first);
    sqlite3_finalize(last);
    return rc;
}

/* s->sum_cond from the summary table's columns: an infinity in the minimum
 * or maximum of any statistic.  0, or -1 with err set. */
static int summary_cond(struct tsrc *s, struct pt_error *err) {
    char (*cols)[64] = s->scols;
    s->sum_cond[0] = '\0';
    if (trenddb_has_table(s->db, "probetop_rank_summary") != 1) return 0;
    int n = s->nscols = trenddb_table_columns(s->db, "probetop_rank_summary", cols, MAXCOLS);
    if (n < 0) return pt_errorf(err, "%s: table probetop_rank_summary: %s", s->file, sqlite3_errmsg(s->db));
    size_t o = 0;
    s->sum_nan = 1;
    for (int k = 4; k < s->h->ntc; k++) {
        int has_nan = 0;
        for (int i = 0; i < n; i++) {
            char want[3][80];
            snprintf(want[0], sizeof want[0], "%s_min", s->h->tcols[k]);
            snprintf(want[1], sizeof want[1], "%s_max", s->h->tcols[k]);
            snprintf(want[2], sizeof want[2], "%s_nan", s->h->tcols[k]);
            for (int w = 0; w < 3; w++)
                if (!strcmp(cols[i], want[w])) {
                    if (o + 200 >= sizeof s->sum_cond) {   /* too many to ask at once: the scan instead */
                        s->sum_cond[0] = '\0';
                        return 0;
                    }
                    o += (size_t)snprintf(s->sum_cond + o, sizeof s->sum_cond - o,
                                          w < 2 ? "%s\"%s\" IN (1000000001.0, -1000000001.0)" : "%s\"%s\" > 0",
                                          o ? " OR " : "", cols[i]);
                    has_nan |= w == 2;
                }
        }
        s->sum_nan &= has_nan;
    }
    sqlite3_stmt *st;
    for (int k = 0; k < 2; k++) {
        if (trenddb_prepare(s->db, s->file,
                 k ? "SELECT 1 FROM probetop_rank_summary WHERE group_size = 64 LIMIT 1"
                   : "SELECT 1 FROM probetop_rank_summary WHERE group_size = 8 LIMIT 1",
                 &st, err))
            return -1;
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return pt_errorf(err, "%s: table probetop_rank_summary: %s", s->file, sqlite3_errmsg(s->db));
        *(k ? &s->sum64 : &s->sum8) = rc == SQLITE_ROW;
    }
    return 0;
}

/* The cube of the axes, without values. */
static int make_cube(struct tsrc *s, struct names *nm, const struct trenddb_ivec *ranks, const struct trenddb_ivec *steps,
                     uint8_t **has, struct cube **out, struct pt_error *err) {
    const struct trenddb_head *h = s->h;
    struct cube *c = calloc(1, sizeof *c);
    if (!c) { names_free(nm); return pt_errorf(err, "out of memory"); }
    c->names = nm;
    if (ranks->count > CUBE_MAX_RANKS || steps->count > CUBE_MAX_STEPS) {
        cube_free(c);
        return pt_errorf(err, "%zu steps x %zu ranks is more than probetop can lay out", steps->count, ranks->count);
    }
    c->nsteps = (int)steps->count;
    c->nranks = (int)ranks->count;
    c->steps = calloc(steps->count ? steps->count : 1, sizeof *c->steps);
    c->ranks = calloc(ranks->count ? ranks->count : 1, sizeof *c->ranks);
    c->metrics = calloc(h->nmet ? (size_t)h->nmet : 1, sizeof *c->metrics);
    if (!c->steps || !c->ranks || !c->metrics) goto oom;
    for (size_t i = 0; i < steps->count; i++)
        c->steps[i] = (struct cube_step){.value = (int32_t)steps->vals[i], .origin = (int32_t)steps->vals[i], .micro = -1};
    for (size_t i = 0; i < ranks->count; i++) c->ranks[i] = (int32_t)ranks->vals[i];
    for (int i = 0; i < h->nmet; i++) {
        const struct tmetric *tm = &h->met[i];
        struct cube_metric *cm = &c->metrics[c->nmetrics++];
        if (!(cm->name = strdup(tm->name))) goto oom;
        for (int k = 0; k < tm->nstats; k++) {
            if (!(cm->stats[k] = strdup(h->tcols[tm->statcol[k]]))) goto oom;
            cm->nstats = k + 1;
        }
        uint32_t nl = 0;
        for (uint32_t t = 0; t < s->nnames; t++) nl += has[i][t];
        if (!(cm->targets = malloc((nl ? nl : 1) * sizeof *cm->targets))) goto oom;
        nl = 0;
        for (uint32_t t = 0; t < s->nnames; t++) {
            s->ltmap[i][t] = has[i][t] ? nl : UINT32_MAX;
            if (has[i][t]) cm->targets[nl++] = t;
        }
        cm->ntargets = nl;
    }
    *out = c;
    return 0;
oom:
    cube_free(c);
    return pt_errorf(err, "out of memory");
}

/* The source's tables and statements; the axes; the cube. */
static int open_source(struct tsrc *s, struct names *nm, uint64_t budget, struct cube **out, struct pt_error *err) {
    struct trenddb_ivec ranks = {0}, steps = {0};
    uint8_t **has = NULL;
    int rc = -1, nmet = s->h->nmet;
    s->nnames = names_count(nm);
    /* a map of targets per metric: metrics x targets words, within --mem
     * (a small crafted file may name a hundred thousand of each) */
    double maps = (double)nmet * (double)s->nnames * (sizeof **s->ltmap + 1);
    if (maps > (double)cube_lazy_most(budget)) {
        names_free(nm);
        return pt_errorf(err, "%s: %d metrics x %u targets take %.0f MiB to map, over the --mem budget of %.0f MiB",
                         s->file, nmet, s->nnames, maps / 1048576.0, (double)cube_lazy_most(budget) / 1048576.0);
    }
    s->dbid = malloc((s->nnames ? s->nnames : 1) * sizeof *s->dbid);
    s->ltmap = calloc(nmet ? (size_t)nmet : 1, sizeof *s->ltmap);
    s->tclass = calloc(nmet ? (size_t)nmet : 1, sizeof *s->tclass);
    has = calloc(nmet ? (size_t)nmet : 1, sizeof *has);
    if (!s->dbid || !s->ltmap || !s->tclass || !has) goto oom;
    for (size_t i = 0; i < s->h->nids; i++) s->dbid[s->h->idmap_local[i]] = s->h->idmap_db[i];
    for (int m = 0; m < nmet; m++)
        if (!(s->ltmap[m] = malloc((s->nnames ? s->nnames : 1) * sizeof **s->ltmap)) ||
            !(s->tclass[m] = calloc(s->nnames ? s->nnames : 1, 1)) || !(has[m] = calloc(s->nnames ? s->nnames : 1, 1)))
            goto oom;
    if (trenddb_prepare(s->db, s->file, "SELECT * FROM trend_data WHERE rank = ?1 AND metric_id = ?2", &s->q_rank, err) ||
        trenddb_prepare(s->db, s->file, "SELECT * FROM trend_data WHERE rank = ?1 AND step = ?2 AND metric_id = ?3", &s->q_rankstep,
             err) ||
        trenddb_prepare(s->db, s->file,
             "SELECT * FROM trend_data WHERE rank = ?1 AND step = ?2 AND target_id = ?3 AND metric_id = ?4",
             &s->q_cell, err) ||
        trenddb_prepare(s->db, s->file,
             "SELECT * FROM trend_data WHERE rank = ?1 AND step = ?2 AND target_id = ?3 AND metric_id = ?4",
             &s->q_probe, err))
        goto out;
    if (trenddb_axes(s->db, s->file, s->h, &ranks, &steps, err) != 0 || find_targets(s, &ranks, has, err) != 0) goto out;
    if (summary_cond(s, err) != 0) goto out;
    rc = make_cube(s, nm, &ranks, &steps, has, out, err);
    nm = NULL;
    goto out;
oom:
    pt_errorf(err, "out of memory");
out:
    names_free(nm);
    if (has)
        for (int m = 0; m < nmet; m++) free(has[m]);
    free(has);
    free(ranks.vals);
    free(steps.vals);
    return rc;
}

int trenddb_open_lazy(const char *file, sqlite3 *db, struct sqlite_ro_src *src, const struct load_opts *o,
                      struct dataset *ds, struct pt_error *err) {
    struct tsrc *s = calloc(1, sizeof *s);
    struct names *nm = names_new();
    struct cube *c = NULL;
    if (!s || !nm || !(s->h = calloc(1, sizeof *s->h)) || !(s->file = strdup(file))) {
        names_free(nm);
        sqlite3_close(db);
        sqlite_ro_src_free(src);
        tsrc_free(s);
        return pt_errorf(err, "out of memory");
    }
    s->db = db;
    s->src = *src;
    memset(src, 0, sizeof *src);
    if (trenddb_read_head(db, file, NULL, nm, s->h, err) != 0) {
        names_free(nm);
        tsrc_free(s);
        return -1;
    }
    if (open_source(s, nm, o->mem_budget, &c, err) != 0) {
        int again = sqlite_ro_changed(&s->src);   /* a read torn by a writer, not a broken file */
        tsrc_free(s);
        return again ? 1 : -1;
    }
    if (sqlite_ro_changed(&s->src)) {   /* the axes may be torn: read again */
        cube_free(c);
        tsrc_free(s);
        return 1;
    }
    if (cube_lazy_attach(c, &trenddb_source, s, o->mem_budget, err) != 0) {
        cube_free(c);
        return -1;
    }
    /* rows whose rank is text, a blob or out of range (they sort after or
     * before every rank, so two ranges of the key) lie off the axes: said,
     * as the full load says it */
    int64_t off = 0, n;
    for (int k = 0; k < 2; k++)
        if (trenddb_count(db, k ? "SELECT count(*) FROM trend_data WHERE rank > 2147483647"
                                : "SELECT count(*) FROM trend_data WHERE rank < -2147483648", &n) == 0)
            off += n;
    if (off) dataset_warn(ds, "%s: %lld trend_data rows have a rank or step that is not an integer: skipped", file,
                          (long long)off);
    sqlite3_progress_handler(db, 0, NULL, NULL);   /* the load's Ctrl-C is not the cube's */
    ds->cube = c;
    ds->labels = s->h->dumpkind ? LABELS_DUMP : LABELS_MONITOR;
    ds->files_read++;
    return 0;
}
