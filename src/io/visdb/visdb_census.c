/* visdb_census: whole-database counts of a .vis.db (see visdb_census.h). */
#include "src/io/visdb/visdb_census.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "model/overflow/overflow.h"

static int level_of(const char *s) {
    if (!s) return OVF_NONE;
    if (!strcmp(s, "critical")) return OVF_CRITICAL;
    if (!strcmp(s, "high")) return OVF_HIGH;
    if (!strcmp(s, "medium")) return OVF_MEDIUM;
    return OVF_NONE;
}

static int side_of(const char *s) { return s && !strcmp(s, "Bench") ? 1 : 0; }

int visdb_census(struct visdb *v, struct visdb_census *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    const char *sql = "SELECT step, rank, data_source, count(*), "
                      "sum(matched_node_link IS NOT NULL AND matched_node_link NOT IN ('', '[]')), "
                      "sum(overflow_level = 'medium'), sum(overflow_level = 'high'), sum(overflow_level = 'critical') "
                      "FROM tb_nodes GROUP BY step, rank, data_source ORDER BY step, rank";
    if (sqlite3_prepare_v2(v->db, sql, -1, &st, NULL) != SQLITE_OK)
        return pt_errorf(err, "%s: cannot count the nodes (%s)", v->path, sqlite3_errmsg(v->db));
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int32_t step = sqlite3_column_int(st, 0), rank = sqlite3_column_int(st, 1);
        if (!out->n || out->graphs[out->n - 1].step != step || out->graphs[out->n - 1].rank != rank) {
            if (out->n == cap) {
                size_t nc = cap ? cap * 2 : 16;
                struct visdb_census_graph *g = realloc(out->graphs, nc * sizeof *g);
                if (!g) { sqlite3_finalize(st); visdb_census_free(out); return pt_errorf(err, "out of memory"); }
                out->graphs = g;
                cap = nc;
            }
            memset(&out->graphs[out->n], 0, sizeof out->graphs[out->n]);
            out->graphs[out->n].step = step;
            out->graphs[out->n].rank = rank;
            out->n++;
        }
        struct visdb_census_graph *g = &out->graphs[out->n - 1];
        int s = side_of((const char *)sqlite3_column_text(st, 2));
        g->nodes[s] += (size_t)sqlite3_column_int64(st, 3);
        g->matched[s] += (size_t)sqlite3_column_int64(st, 4);
        for (int l = OVF_MEDIUM; l <= OVF_CRITICAL; l++) g->ovf[s][l] += (size_t)sqlite3_column_int64(st, 4 + l);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        visdb_census_free(out);
        return pt_errorf(err, "%s: cannot count the nodes (%s)", v->path, sqlite3_errmsg(v->db));
    }
    return 0;
}

void visdb_census_free(struct visdb_census *c) {
    free(c->graphs);
    c->graphs = NULL;
    c->n = 0;
}

int visdb_flagged(struct visdb *v, int min_level, struct visdb_flagged **out, size_t *n, struct pt_error *err) {
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    const char *sql = "SELECT step, rank, data_source, overflow_level, node_order, node_name FROM tb_nodes "
                      "WHERE overflow_level IN ('medium', 'high', 'critical') "
                      "ORDER BY step, rank, data_source = 'Bench', node_order";
    if (sqlite3_prepare_v2(v->db, sql, -1, &st, NULL) != SQLITE_OK)
        return pt_errorf(err, "%s: cannot read the overflow levels (%s)", v->path, sqlite3_errmsg(v->db));
    size_t cap = 0;
    int rc;
    struct visdb_flagged *f = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int level = level_of((const char *)sqlite3_column_text(st, 3));
        if (level < min_level) continue;
        if (*n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            struct visdb_flagged *g = realloc(f, nc * sizeof *g);
            if (!g) goto oom;
            f = g;
            cap = nc;
        }
        const char *name = (const char *)sqlite3_column_text(st, 5);
        struct visdb_flagged *e = &f[*n];
        e->step = sqlite3_column_int(st, 0);
        e->rank = sqlite3_column_int(st, 1);
        e->side = side_of((const char *)sqlite3_column_text(st, 2));
        e->level = level;
        e->order = (long)sqlite3_column_int64(st, 4);
        e->name = strdup(name ? name : "");
        if (!e->name) goto oom;
        (*n)++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        visdb_flagged_free(f, *n);
        *n = 0;
        return pt_errorf(err, "%s: cannot read the overflow levels (%s)", v->path, sqlite3_errmsg(v->db));
    }
    *out = f;
    return 0;
oom:
    sqlite3_finalize(st);
    visdb_flagged_free(f, *n);
    *n = 0;
    return pt_errorf(err, "out of memory");
}

void visdb_flagged_free(struct visdb_flagged *f, size_t n) {
    for (size_t i = 0; i < n; i++) free(f[i].name);
    free(f);
}
