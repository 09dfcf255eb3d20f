/* trenddb_head: what of a .trend.db is read before its rows, for both ways
 * of reading it -- the full load (read_trenddb.c) and the lazy open
 * (trenddb_lazy.c, probetop(1) --mem): the schema check, global_stats, the
 * metrics and targets, the axes, and how a trend_data row decodes
 * (probetop-formats(5), TREND.DB).  Both readers call it and it calls
 * neither, so the two readers stay apart. */
#include "src/io/trenddb/trenddb_head.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

int trenddb_has_table(sqlite3 *db, const char *name) {
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) found = 1;
    else if (rc != SQLITE_DONE) found = -1;
    sqlite3_finalize(st);
    return found;
}

/* Columns of a table (PRAGMA table_info), as names. */
int trenddb_table_columns(sqlite3 *db, const char *table, char cols[][64], int max) {
    char sql[128];
    sqlite3_stmt *st;
    int n = 0;
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == max) break;
        const unsigned char *c = sqlite3_column_text(st, 1);
        snprintf(cols[n++], 64, "%s", c ? (const char *)c : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? n : -1;
}

static int is_identifier(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

/* The four tables are there and trend_data's columns are rank, step,
 * target_id, metric_id, <statistics>; the column names of trend_data and
 * global_stats into tcols and gcols.  0, or -1 with err set. */
static int check_schema(sqlite3 *db, const char *file, char tcols[][64], int *ntc_out, char gcols[][64], int *ngc_out,
                        struct pt_error *err) {
    static const char *const need[] = {"monitoring_metrics", "monitoring_targets", "trend_data", "global_stats"};
    for (size_t i = 0; i < 4; i++) {
        int h = trenddb_has_table(db, need[i]);
        if (h < 0) {
            pt_errorf(err, "%s: not a readable SQLite database (%s)", file, sqlite3_errmsg(db));
            return -1;
        }
        if (!h) {
            pt_errorf(err, "%s: not an msProbe .trend.db: table %s is missing", file, need[i]);
            return -1;
        }
    }
    int ntc = *ntc_out = trenddb_table_columns(db, "trend_data", tcols, MAXCOLS);
    int ngc = *ngc_out = trenddb_table_columns(db, "global_stats", gcols, MAXCOLS);
    if (ntc < 0 || ngc < 0) {
        pt_errorf(err, "%s: the columns of table %s do not read (%s)", file, ntc < 0 ? "trend_data" : "global_stats",
                  sqlite3_errmsg(db));
        return -1;
    }
    if (ntc < 5 || strcmp(tcols[0], "rank") || strcmp(tcols[1], "step") || strcmp(tcols[2], "target_id") ||
        strcmp(tcols[3], "metric_id")) {
        pt_errorf(err, "%s: table trend_data: expected columns rank, step, target_id, metric_id, <statistics>", file);
        return -1;
    }
    return 0;
}

/* The metrics of monitoring_metrics into *met (allocated, every row) and the
 * builder, each with its statistic columns: those global_stats lists for
 * it that trend_data has, else every statistic column.  *dumpkind is set
 * when the metrics are a dump's (forward, backward).  0, or -1 with err
 * set. */
static int read_metrics(sqlite3 *db, const char *file, struct cube_builder *b, char tcols[][64], int ntc,
                        char gcols[][64], int ngc, char gstat[][512], struct tmetric **met, int *nmet, int *dumpkind,
                        struct pt_error *err) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT metric_id, metric_name FROM monitoring_metrics ORDER BY metric_id", -1, &st, NULL) != SQLITE_OK) {
        pt_errorf(err, "%s: table monitoring_metrics: %s", file, sqlite3_errmsg(db));
        return -1;
    }
    int src;
    size_t cap = 0, n = (size_t)*nmet;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        if (UTIL_PUSH(*met, n, cap) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        struct tmetric *m = &(*met)[*nmet];
        memset(m, 0, sizeof *m);
        m->id = sqlite3_column_int64(st, 0);
        const unsigned char *name = sqlite3_column_text(st, 1);
        snprintf(m->name, sizeof m->name, "%s", name ? (const char *)name : "?");
        if (!strcmp(m->name, "forward") || !strcmp(m->name, "backward")) *dumpkind = 1;
        /* statistics: the global_stats column named like the metric, checked
         * against trend_data's real columns; else every statistic column */
        const char *list = NULL;
        for (int c = 0; c < ngc; c++)
            if (!strcmp(gcols[c], m->name) && gstat[c][0]) list = gstat[c];
        const char *stats[CUBE_MAX_STATS];
        char buf[512];
        if (list) {
            snprintf(buf, sizeof buf, "%s", list);
            for (char *tok = strtok(buf, ","); tok && m->nstats < CUBE_MAX_STATS; tok = strtok(NULL, ","))
                for (int c = 4; c < ntc; c++)
                    if (!strcmp(tcols[c], tok) && is_identifier(tok)) { m->statcol[m->nstats] = c; stats[m->nstats++] = tcols[c]; }
        }
        if (!m->nstats)
            for (int c = 4; c < ntc && m->nstats < CUBE_MAX_STATS; c++) { m->statcol[m->nstats] = c; stats[m->nstats++] = tcols[c]; }
        for (int k = 0; k < m->nstats; k++)
            if (!strcmp(stats[k], "norm") || !strcmp(stats[k], "mean")) m->tells_finite |= 1u << k;
        m->cube = b ? cube_builder_metric(b, m->name, m->nstats, stats) : *nmet;
        if (m->cube < 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        n = (size_t)++*nmet;
    }
    sqlite3_finalize(st);
    /* a page of the table that does not read ends the loop early: the
     * metrics after it would be missing without a word */
    if (src != SQLITE_DONE)
        return pt_errorf(err, "%s: table monitoring_metrics, row %d: %s", file, *nmet + 1, sqlite3_errmsg(db));
    return 0;
}

uint32_t trenddb_decode_row(sqlite3_stmt *st, const struct tmetric *m, double *v) {
    uint32_t present = 0, null = 0;
    int finite = 0;
    for (int s = 0; s < m->nstats; s++) {
        int c = m->statcol[s];
        present |= 1u << s;
        /* msProbe stores NaN as NULL in a row that exists (a value it has
         * not has no row): probetop-formats(5), TREND.DB */
        if (sqlite3_column_type(st, c) == SQLITE_NULL) { v[s] = NAN; null |= 1u << s; continue; }
        double x = sqlite3_column_double(st, c);
        /* msProbe stores +-Inf as +-(1e9 + 1): give the infinities back */
        if (x == 1000000001.0) x = INFINITY;
        else if (x == -1000000001.0) x = -INFINITY;
        v[s] = x;
        finite |= (m->tells_finite >> s) & 1 && isfinite(x);
    }
    /* a NaN element makes the norm and the mean NaN, an infinity makes the
     * norm infinite: with either finite, a NULL is no NaN of the tensor */
    return finite ? present & ~null : present;
}

int trenddb_read_head(sqlite3 *db, const char *file, struct cube_builder *b, struct names *tn, struct trenddb_head *h,
                      struct pt_error *err) {
    sqlite3_stmt *st = NULL;
    memset(h, 0, sizeof *h);
    if (check_schema(db, file, h->tcols, &h->ntc, h->gcols, &h->ngc, err) != 0) return -1;
    /* ranges and per-metric statistics: the last global_stats row */
    if (sqlite3_prepare_v2(db, "SELECT * FROM global_stats ORDER BY ROWID DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return pt_errorf(err, "%s: table global_stats: %s", file, sqlite3_errmsg(db));
    int src = sqlite3_step(st);
    if (src == SQLITE_ROW)
        for (int c = 0; c < h->ngc; c++) {
            if (!strcmp(h->gcols[c], "max_rank")) h->max_rank = sqlite3_column_int64(st, c);
            else if (!strcmp(h->gcols[c], "min_step")) h->min_step = sqlite3_column_int64(st, c);
            else if (!strcmp(h->gcols[c], "max_step")) h->max_step = sqlite3_column_int64(st, c);
            else if (sqlite3_column_type(st, c) == SQLITE_TEXT)
                snprintf(h->gstat[c], sizeof h->gstat[c], "%s", (const char *)sqlite3_column_text(st, c));
        }
    sqlite3_finalize(st);
    st = NULL;
    if (src != SQLITE_ROW && src != SQLITE_DONE)
        return pt_errorf(err, "%s: table global_stats: %s", file, sqlite3_errmsg(db));
    if (read_metrics(db, file, b, h->tcols, h->ntc, h->gcols, h->ngc, h->gstat, &h->met, &h->nmet, &h->dumpkind,
                             err) != 0)
        return -1;
    /* targets in target_id order, so ascending id is msProbe's order */
    if (sqlite3_prepare_v2(db, "SELECT target_id, target_name, vpp_stage, micro_step FROM monitoring_targets ORDER BY target_id",
                           -1, &st, NULL) != SQLITE_OK)
        return pt_errorf(err, "%s: table monitoring_targets: %s", file, sqlite3_errmsg(db));
    size_t cap = 0;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 1);
        int len = sqlite3_column_bytes(st, 1);
        uint32_t id = names_intern(tn, name ? (const char *)name : "", name ? (size_t)len : 0,
                                   sqlite3_column_int(st, 2), sqlite3_column_int(st, 3));
        if (h->nids == cap) {
            cap = cap ? cap * 2 : 1024;
            int64_t *a = realloc(h->idmap_db, cap * sizeof *a);
            uint32_t *l = a ? realloc(h->idmap_local, cap * sizeof *l) : NULL;
            if (a) h->idmap_db = a;
            if (l) h->idmap_local = l;
            if (!a || !l) { sqlite3_finalize(st); return pt_errorf(err, "out of memory"); }
        }
        if (id == NAMES_NONE) { sqlite3_finalize(st); return pt_errorf(err, "out of memory"); }
        h->idmap_db[h->nids] = sqlite3_column_int64(st, 0);
        h->idmap_local[h->nids++] = id;
    }
    sqlite3_finalize(st);
    /* a page that does not read ends the walk: the targets after it would
     * be missing, and their rows "name an unknown target" */
    if (src != SQLITE_DONE)
        return pt_errorf(err, "%s: table monitoring_targets, row %zu: %s", file, h->nids + 1, sqlite3_errmsg(db));
    return 0;
}

void trenddb_head_free(struct trenddb_head *h) {
    if (!h) return;
    free(h->idmap_db);
    free(h->idmap_local);
    free(h->met);
    free(h);
}

size_t trenddb_target_index(const struct trenddb_head *h, int64_t tid) {
    size_t lo = 0, hi = h->nids;   /* target ids ascend */
    while (lo < hi) {
        size_t mi = (lo + hi) / 2;
        if (h->idmap_db[mi] < tid) lo = mi + 1; else hi = mi;
    }
    return lo < h->nids && h->idmap_db[lo] == tid ? lo : SIZE_MAX;
}

/* ---- the axes ---- */

int trenddb_ivec_push(struct trenddb_ivec *a, int64_t x) {
    if (UTIL_PUSH(a->vals, a->count, a->cap) != 0) return -1;
    a->vals[a->count++] = x;
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void trenddb_ivec_uniq(struct trenddb_ivec *a) {
    size_t k = 0;
    if (a->count) qsort(a->vals, a->count, sizeof *a->vals, cmp_i64);
    for (size_t i = 0; i < a->count; i++)
        if (!k || a->vals[k - 1] != a->vals[i]) a->vals[k++] = a->vals[i];
    a->count = k;
}

/* One int64 from a statement with up to two bound values; 1 row, 0 none, -1 error. */
static int one_int(sqlite3_stmt *st, int64_t a, int64_t b, int64_t *out) {
    sqlite3_bind_int64(st, 1, a);
    if (sqlite3_bind_parameter_count(st) > 1) sqlite3_bind_int64(st, 2, b);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *out = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int trenddb_prepare(sqlite3 *db, const char *file, const char *sql, sqlite3_stmt **st, struct pt_error *err) {
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK) return 0;
    *st = NULL;
    return pt_errorf(err, "%s: %s", file, sqlite3_errmsg(db));
}

/* The integers a key column may hold: int32 (the cube's axes), and only
 * integer values -- text, a blob or 1.5 in the rank column is no rank (a
 * walk that read it as 0 would find it again and again). */
#define KEY_OK(col) col " >= -2147483648 AND " col " <= 2147483647 AND " col " = CAST(" col " AS INTEGER)"

int trenddb_key_of(sqlite3_stmt *st, int col, int32_t *out) {
    int t = sqlite3_column_type(st, col);
    double d = t == SQLITE_FLOAT ? sqlite3_column_double(st, col) : 0;
    if (t == SQLITE_FLOAT ? !(d >= INT32_MIN && d <= INT32_MAX && d == (double)(int64_t)d) : t != SQLITE_INTEGER)
        return -1;
    int64_t v = sqlite3_column_int64(st, col);
    if (v < INT32_MIN || v > INT32_MAX) return -1;
    *out = (int32_t)v;
    return 0;
}

/* Adds lo..hi to a, when they are at most max values. */
static int push_range(struct trenddb_ivec *a, int64_t lo, int64_t hi, int64_t max) {
    if (hi < lo || hi - lo >= max) return 0;
    for (int64_t x = lo; x <= hi; x++)
        if (trenddb_ivec_push(a, x)) return -1;
    return 0;
}

int trenddb_axes(sqlite3 *db, const char *file, const struct trenddb_head *h, struct trenddb_ivec *ranks,
                 struct trenddb_ivec *steps, struct pt_error *err) {
    sqlite3_stmt *nr = NULL, *first = NULL, *last = NULL, *nstep = NULL;
    int rc = -1;
    if (trenddb_prepare(db, file, "SELECT rank FROM trend_data WHERE rank > ?1 AND " KEY_OK("rank") " ORDER BY rank LIMIT 1", &nr,
             err) ||
        trenddb_prepare(db, file, "SELECT step FROM trend_data WHERE rank = ?1 AND " KEY_OK("step") " ORDER BY step LIMIT 1", &first,
             err) ||
        trenddb_prepare(db, file, "SELECT step FROM trend_data WHERE rank = ?1 AND " KEY_OK("step") " ORDER BY step DESC LIMIT 1",
             &last, err) ||
        trenddb_prepare(db, file,
             "SELECT step FROM trend_data WHERE rank = ?1 AND step > ?2 AND " KEY_OK("step") " ORDER BY step LIMIT 1",
             &nstep, err))
        goto out;
    int64_t r = (int64_t)INT32_MIN - 1, x, slo = INT64_MAX, shi = INT64_MIN;
    int g = 0;
    /* the ranks with rows, each one lookup; each rank's first and last
     * step; every step of the first rank */
    while (g >= 0 && (g = one_int(nr, r, 0, &r)) == 1) {
        if (ranks->count >= CUBE_MAX_RANKS) {
            pt_errorf(err, "%s: more than %d ranks with rows: more than probetop can lay out", file, CUBE_MAX_RANKS);
            goto out;
        }
        if (trenddb_ivec_push(ranks, r)) goto oom;
        for (int k = 0; k < 2 && g >= 0; k++)
            if ((g = one_int(k ? last : first, r, 0, &x)) == 1) {
                if (trenddb_ivec_push(steps, x)) goto oom;
                slo = x < slo ? x : slo;
                shi = x > shi ? x : shi;
            }
        if (g >= 0 && ranks->count == 1) {
            int64_t st = INT64_MIN;
            for (size_t k = 0; k <= CUBE_MAX_STEPS && (g = one_int(nstep, r, st, &st)) == 1; k++)
                if (trenddb_ivec_push(steps, st)) goto oom;
        }
    }
    if (g < 0) { pt_errorf(err, "%s: table trend_data: %s", file, sqlite3_errmsg(db)); goto out; }
    /* msProbe offers every rank 0..max_rank and every step min_step..max_step
     * of global_stats (probetop-formats(5), TREND.DB): taken within the
     * ranks and steps rows have, never from global_stats alone, where a
     * crafted row would lay out a million steps for nothing */
    if (ranks->count) {
        int64_t rlo = ranks->vals[0] > 0 ? ranks->vals[0] : 0, rhi = ranks->vals[ranks->count - 1];
        if (push_range(ranks, rlo, h->max_rank < rhi ? h->max_rank : rhi, CUBE_MAX_RANKS)) goto oom;
        if (push_range(steps, h->min_step > slo ? h->min_step : slo, h->max_step < shi ? h->max_step : shi,
                       CUBE_MAX_STEPS))
            goto oom;
    }
    trenddb_ivec_uniq(ranks);
    trenddb_ivec_uniq(steps);
    if (steps->count > CUBE_MAX_STEPS) {
        pt_errorf(err, "%s: %zu steps with rows: more than probetop can lay out", file, steps->count);
        goto out;
    }
    rc = 0;
    goto out;
oom:
    pt_errorf(err, "out of memory");
out:
    sqlite3_finalize(nr);
    sqlite3_finalize(first);
    sqlite3_finalize(last);
    sqlite3_finalize(nstep);
    return rc;
}
