/* pt_trenddb_gen.h: a synthetic msProbe monitor .trend.db of R ranks x S
 * steps x T targets x 4 metrics rows, for tests and the benchmark: msProbe's
 * schema and column order (as its monitor databases have them), the
 * global_stats row, layer tags, and trend_data inserted in key order by one
 * recursive-CTE statement.  One planted +Inf (msProbe's 1e9 + 1) at rank 1,
 * step 2, target 3 of every metric.  Written to PATH.tmp, renamed when
 * complete; never into the repository (callers use the build folder). */
#ifndef PT_TRENDDB_GEN_H
#define PT_TRENDDB_GEN_H

#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

static const char pt_gen_sql[] =
    "PRAGMA journal_mode = OFF;\n"
    "PRAGMA synchronous = OFF;\n"
    "PRAGMA cache_size = -262144;\n"
    "CREATE TABLE monitoring_targets (\n"
    "            target_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "            target_name TEXT NOT NULL,\n"
    "            vpp_stage INTEGER NOT NULL,\n"
    "            micro_step INTEGER NOT NULL DEFAULT 0,\n"
    "            UNIQUE(target_name, vpp_stage, micro_step)\n"
    "        );\n"
    "CREATE TABLE monitoring_metrics (\n"
    "            metric_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "            metric_name TEXT UNIQUE NOT NULL\n"
    "        );\n"
    "CREATE TABLE monitoring_tags (\n"
    "            tag_id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
    "            tag_name TEXT NOT NULL,\n"
    "            category TEXT NOT NULL,\n"
    "            metric_id INTEGER NOT NULL,\n"
    "            UNIQUE(tag_name, category, metric_id),\n"
    "            FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)\n"
    "        );\n"
    "CREATE TABLE tag_target_mapping (\n"
    "            tag_id INTEGER NOT NULL,\n"
    "            target_id INTEGER NOT NULL,\n"
    "            PRIMARY KEY (tag_id, target_id),\n"
    "            FOREIGN KEY (tag_id) REFERENCES monitoring_tags(tag_id),\n"
    "            FOREIGN KEY (target_id) REFERENCES monitoring_target(target_id)\n"
    "        );\n"
    "CREATE TABLE global_stats (\n"
    "            min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0, grad_reduced TEXT DEFAULT NULL, param_origin TEXT DEFAULT NULL, actv_grad TEXT DEFAULT NULL, actv TEXT DEFAULT NULL\n"
    "        );\n"
    "CREATE TABLE trend_data (\n"
    "            rank INTEGER NOT NULL,\n"
    "            step INTEGER NOT NULL,\n"
    "            target_id INTEGER NOT NULL,\n"
    "            metric_id INTEGER NOT NULL,\n"
    "            norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL, nans REAL DEFAULT NULL,\n"
    "            PRIMARY KEY (rank, step, target_id, metric_id),\n"
    "            FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id),\n"
    "            FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)\n"
    "        ) WITHOUT ROWID;\n"
    "INSERT INTO monitoring_metrics (metric_name) VALUES ('actv'), ('actv_grad'), ('grad_reduced'), ('param_origin');\n"
    "INSERT INTO global_stats VALUES (0, %d, %d, 'nans,min,norm,max', 'nans,min,norm,max', 'nans,min,norm,max', 'nans,min,norm,max');\n"
    "WITH RECURSIVE t(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM t WHERE x < %d)\n"
    "INSERT INTO monitoring_targets (target_name, vpp_stage, micro_step)\n"
    "    SELECT 'module.decoder.layers.' || (x / 8) || '.' || (CASE x %% 8 WHEN 0 THEN 'input_layernorm' WHEN 1 THEN 'self_attention.linear_qkv'\n"
    "        WHEN 2 THEN 'self_attention.core_attention' WHEN 3 THEN 'self_attention.linear_proj' WHEN 4 THEN 'pre_mlp_layernorm'\n"
    "        WHEN 5 THEN 'mlp.linear_fc1' WHEN 6 THEN 'mlp.linear_fc2' ELSE 'mlp' END), 0, 0 FROM t;\n"
    "INSERT INTO monitoring_tags (tag_name, category, metric_id)\n"
    "    SELECT 'layers.' || ((x.target_id - 1) / 8), 'layer', m.metric_id FROM monitoring_targets x, monitoring_metrics m\n"
    "    WHERE (x.target_id - 1) %% 8 = 0;\n"
    "INSERT INTO tag_target_mapping SELECT g.tag_id, x.target_id FROM monitoring_tags g, monitoring_targets x\n"
    "    WHERE g.tag_name = 'layers.' || ((x.target_id - 1) / 8);\n"
    "WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM r WHERE x < %d),\n"
    "               s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s WHERE x < %d),\n"
    "               t(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM t WHERE x < %d),\n"
    "               m(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM m WHERE x < 4)\n"
    "INSERT INTO trend_data\n"
    "    SELECT r.x, s.x, t.x, m.x,\n"
    "           CASE WHEN r.x = 1 AND s.x = 2 AND t.x = 3 THEN 1000000001.0\n"
    "                ELSE 1.0 + t.x * 0.01 + s.x * 0.001 + r.x * 0.0001 + m.x + (abs(random()) %% 1000) * 1e-6 END,\n"
    "           -0.5 - (abs(random()) %% 1000) * 1e-4, 0.5 + (abs(random()) %% 1000) * 1e-4, 0.0\n"
    "    FROM r, s, t, m;\n";

/* 0, or -1 with a message on stderr. */
static inline int pt_gen_trenddb(const char *path, int ranks, int steps, int targets) {
    char tmp[4200];
    char *sql = malloc(sizeof pt_gen_sql + 64);
    if (!sql) return -1;
    snprintf(sql, sizeof pt_gen_sql + 64, pt_gen_sql, steps - 1, ranks - 1, targets - 1, ranks - 1, steps - 1, targets);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    remove(tmp);
    sqlite3 *db;
    char *msg = NULL;
    int rc = sqlite3_open(tmp, &db);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) fprintf(stderr, "pt_gen_trenddb %s: %s\n", tmp, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    sqlite3_close(db);
    free(sql);
    if (rc == SQLITE_OK && rename(tmp, path) != 0) rc = SQLITE_ERROR;
    if (rc != SQLITE_OK) remove(tmp);
    return rc == SQLITE_OK ? 0 : -1;
}

#endif
