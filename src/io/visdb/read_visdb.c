/* read_visdb: msProbe .vis.db files, read-only.  The tree is rebuilt top
 * down from each row's sub_nodes list (msProbe's child order); rows that no
 * list reaches are left out, as the browser never shows them either. */
#include "src/io/visdb/read_visdb.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json.h"
#include "src/io/common/sqlite_ro.h"

static int has_table(sqlite3 *db, const char *name) {
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

static int has_columns(sqlite3 *db, const char *table, const char *const *cols, const char **missing) {
    for (; *cols; cols++) {
        char q[256];
        snprintf(q, sizeof q, "SELECT %s FROM %s LIMIT 0", *cols, table);  /* bare: a quoted unknown name would read as a string */
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) { *missing = *cols; return 0; }
        sqlite3_finalize(st);
    }
    return 1;
}

static int int_list(const char *json, int32_t **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!json) return 0;
    cJSON *a;
    if (json_tree_parse(json, strlen(json), "rank_list", &a, NULL) != 0) return -1;
    int k = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    if (k > 0) {
        *out = malloc((size_t)k * sizeof **out);
        if (!*out) { cJSON_Delete(a); return -1; }
        for (cJSON *e = a->child; e; e = e->next)
            if (cJSON_IsNumber(e)) (*out)[(*n)++] = (int32_t)e->valuedouble;
    }
    cJSON_Delete(a);
    return 0;
}

int visdb_open(const char *path, struct visdb **out, struct pt_error *err) {
    *out = NULL;
    sqlite3 *db = NULL;
    /* msProbe writes its .vis.db in WAL mode: see sqlite_ro.h */
    if (sqlite_ro_open(path, &db, err) != 0) return -1;
    if (!has_table(db, "tb_nodes") || !has_table(db, "tb_config")) {
        const char *what = has_table(db, "trend_data") || has_table(db, "monitoring_targets")
                               ? "it is a trend database (.trend.db): open it as one"
                               : "it has no tb_nodes/tb_config tables";
        pt_errorf(err, "%s: not a graph database msProbe's graph_visualize writes (.vis.db): %s", path, what);
        sqlite3_close(db);
        return -1;
    }
    static const char *const node_cols[] = {"node_name", "node_order", "node_type", "up_node", "sub_nodes",
                                            "precision_index", "overflow_level", "micro_step_id",
                                            "matched_node_link", "stack_id", "input_data", "output_data",
                                            "data_source", "step", "rank", NULL};
    static const char *const cfg_cols[] = {"graph_type", "task", "micro_steps", "overflow_check", "rank_list",
                                           "step_list", NULL};
    const char *missing = NULL;
    if (!has_columns(db, "tb_nodes", node_cols, &missing) || !has_columns(db, "tb_config", cfg_cols, &missing)) {
        pt_errorf(err, "%s: a .vis.db of another schema: column %s is missing (made by another msProbe version?)",
                  path, missing);
        sqlite3_close(db);
        return -1;
    }
    struct visdb *v = calloc(1, sizeof *v);
    if (!v) { sqlite3_close(db); return pt_errorf(err, "out of memory"); }
    v->db = db;
    v->path = strdup(path);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT graph_type, task, micro_steps, overflow_check, rank_list, step_list "
                               "FROM tb_config LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
        int rc = sqlite3_step(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
            pt_errorf(err, "%s: table tb_config: %s", path, sqlite3_errmsg(db));
            sqlite3_finalize(st);
            visdb_close(v);
            return -1;
        }
        if (rc == SQLITE_ROW) {
            const char *gt = (const char *)sqlite3_column_text(st, 0);
            v->compare = gt && !strcmp(gt, "compare");
            const char *task = (const char *)sqlite3_column_text(st, 1);
            snprintf(v->task, sizeof v->task, "%s", task ? task : "");
            v->micro_steps = sqlite3_column_int(st, 2);
            v->overflow_check = sqlite3_column_int(st, 3);
            if (int_list((const char *)sqlite3_column_text(st, 4), &v->ranks, &v->nranks) != 0 ||
                int_list((const char *)sqlite3_column_text(st, 5), &v->steps, &v->nsteps) != 0) {
                sqlite3_finalize(st);
                visdb_close(v);
                return pt_errorf(err, "%s: tb_config rank_list/step_list are not JSON lists of numbers", path);
            }
        }
        sqlite3_finalize(st);
    }
    if (!v->nranks || !v->nsteps) {
        visdb_close(v);
        return pt_errorf(err, "%s: tb_config is empty: the graph was never finished", path);
    }
    *out = v;
    return 0;
}

void visdb_close(struct visdb *v) {
    if (!v) return;
    sqlite3_close(v->db);
    free(v->path);
    free(v->ranks);
    free(v->steps);
    free(v);
}

struct vrow {
    char *name, *up, *sub, *link, *ovf, *in, *out, *stack;
    int type, micro;
    double index;
};

static char *dup_col(sqlite3_stmt *st, int i) {
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? strdup((const char *)s) : NULL;
}

static int cmp_rowname(const void *a, const void *b) {
    return strcmp((*(const struct vrow *const *)a)->name, (*(const struct vrow *const *)b)->name);
}

static struct vrow *find_row(struct vrow **sorted, size_t n, const char *name) {
    struct vrow key = {.name = (char *)name}, *kp = &key;
    struct vrow **r = bsearch(&kp, sorted, n, sizeof *sorted, cmp_rowname);
    return r ? *r : NULL;
}

/* The last string of a JSON array ("[..., \"X\"]"), or NULL for []. */
static char *last_of_link(const char *link) {
    if (!link) return NULL;
    cJSON *a;
    if (json_tree_parse(link, strlen(link), "matched_node_link", &a, NULL) != 0) return NULL;
    char *r = NULL;
    int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
    if (n > 0) {
        cJSON *l = cJSON_GetArrayItem(a, n - 1);
        if (cJSON_IsString(l)) r = strdup(l->valuestring);
    }
    cJSON_Delete(a);
    return r;
}

/* The keys of the diff and relative error of Max, Min, Mean, Norm. */
static const char *const diff_keys[VIS_NSTATS] = {"Max diff", "Min diff", "Mean diff", "L2norm diff"};
static const char *const relerr_keys[VIS_NSTATS] = {"MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"};

/* A string member copied (NULL when absent or not a string); sets *oom. */
static char *str_member(const cJSON *o, const char *k, int *oom) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!cJSON_IsString(v)) return NULL;
    char *s = strdup(v->valuestring);
    if (!s) *oom = 1;
    return s;
}

/* Decodes one node's input_data / output_data text (a JSON object: param
 * name -> its fields) into *out.  NULL, "" or null is no rows; any other
 * text that is not a JSON object keeps a message naming the file, the
 * node and the column in out->error (the graph still loads).  -1 only
 * when memory runs out. */
static int decode_params(const char *text, const char *path, const char *node, const char *col,
                         struct vis_params *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    if (!text || !text[0]) return 0;
    char what[512];
    snprintf(what, sizeof what, "%s: node %s: %s", path, node, col);
    cJSON *o = NULL;
    struct pt_error je;
    if (json_tree_parse(text, strlen(text), what, &o, &je) != 0) {
        out->error = strdup(je.msg);
        return out->error ? 0 : pt_errorf(err, "out of memory");
    }
    int oom = 0;
    if (cJSON_IsNull(o)) {
        cJSON_Delete(o);
        return 0;
    }
    if (!cJSON_IsObject(o)) {
        char m[1024];
        snprintf(m, sizeof m, "%s: not a JSON object", what);
        out->error = strdup(m);
        cJSON_Delete(o);
        return out->error ? 0 : pt_errorf(err, "out of memory");
    }
    int n = cJSON_GetArraySize(o);
    out->p = calloc(n > 0 ? (size_t)n : 1, sizeof *out->p);
    if (!out->p) oom = 1;
    for (const cJSON *q = oom ? NULL : o->child; q; q = q->next) {
        struct vis_param *r = &out->p[out->n++];
        r->name = strdup(q->string ? q->string : "");
        if (!r->name) oom = 1;
        r->result = str_member(q, "Result", &oom);
        for (int k = 0; k < VF_N; k++) r->field[k] = str_member(q, vis_field_names[k], &oom);
        for (int k = 0; k < VIS_NSTATS; k++) {
            r->diff[k] = str_member(q, diff_keys[k], &oom);
            r->relerr[k] = str_member(q, relerr_keys[k], &oom);
        }
        r->err_message = str_member(q, "Err_message", &oom);
    }
    cJSON_Delete(o);
    if (oom) {
        vis_params_free(out);
        return pt_errorf(err, "out of memory");
    }
    return 0;
}

int visdb_load(struct visdb *v, int32_t step, int32_t rank, const char *source, struct visdb_graph **out,
               struct pt_error *err) {
    *out = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(v->db,
                           "SELECT n.node_name, n.node_type, n.up_node, n.sub_nodes, n.precision_index, "
                           "n.overflow_level, n.micro_step_id, n.matched_node_link, n.input_data, n.output_data, "
                           "s.stack_info FROM tb_nodes n LEFT JOIN tb_stack s ON s.id = n.stack_id "
                           "WHERE n.step = ?1 AND n.rank = ?2 AND n.data_source = ?3 ORDER BY n.node_order",
                           -1, &st, NULL) != SQLITE_OK)
        return pt_errorf(err, "%s: %s", v->path, sqlite3_errmsg(v->db));
    sqlite3_bind_int(st, 1, step);
    sqlite3_bind_int(st, 2, rank);
    sqlite3_bind_text(st, 3, source, -1, SQLITE_STATIC);
    struct vrow *rows = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            struct vrow *nr = realloc(rows, cap * sizeof *nr);
            if (!nr) { rc = SQLITE_NOMEM; break; }
            rows = nr;
        }
        struct vrow *r = &rows[n++];
        memset(r, 0, sizeof *r);
        r->name = dup_col(st, 0);
        const char *ty = (const char *)sqlite3_column_text(st, 1);
        r->type = ty ? atoi(ty) : 0;
        r->up = dup_col(st, 2);
        r->sub = dup_col(st, 3);
        r->index = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
        r->ovf = dup_col(st, 5);
        r->micro = sqlite3_column_int(st, 6);
        r->link = dup_col(st, 7);
        r->in = dup_col(st, 8);
        r->out = dup_col(st, 9);
        r->stack = dup_col(st, 10);
        if (!r->name) r->name = strdup("");
    }
    /* a page that does not read ends the walk: the graph would lack the
     * nodes after it without a word */
    if (rc != SQLITE_DONE)
        pt_errorf(err, "%s: table tb_nodes, step %d rank %d, node %zu: %s", v->path, step, rank, n + 1,
                  rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(v->db));
    sqlite3_finalize(st);
    int ret = -1;
    struct visdb_graph *g = NULL;
    struct vrow **sorted = NULL, **queue = NULL;
    if (rc != SQLITE_DONE) goto out;
    if (n == 0) {
        pt_errorf(err, "%s: no %s graph for step %d rank %d", v->path, source, step, rank);
        goto out;
    }
    sorted = malloc(n * sizeof *sorted);
    queue = malloc(n * sizeof *queue);
    g = calloc(1, sizeof *g);
    if (!sorted || !queue || !g) { pt_errorf(err, "out of memory"); goto out; }
    for (size_t i = 0; i < n; i++) sorted[i] = &rows[i];
    qsort(sorted, n, sizeof *sorted, cmp_rowname);
    g->tree = tree_new();
    g->index = malloc(n * sizeof *g->index);
    g->link = calloc(n, sizeof *g->link);
    g->overflow = calloc(n, sizeof *g->overflow);
    g->in = calloc(n, sizeof *g->in);
    g->out = calloc(n, sizeof *g->out);
    if (!g->tree || !g->index || !g->link || !g->overflow || !g->in || !g->out) { pt_errorf(err, "out of memory"); goto out; }
    g->tree->megatron = 1;   /* keep every node's stored micro step */
    g->tree->step = step;
    g->tree->rank = rank;
    g->tree->path = strdup(v->path);
    struct vrow *root = NULL;
    for (size_t i = 0; i < n && !root; i++)
        if (!rows[i].up || !rows[i].up[0]) root = &rows[i];
    if (!root) { pt_errorf(err, "%s: the %s graph of step %d rank %d has no root row", v->path, source, step, rank); goto out; }
    size_t qh = 0, qt = 0;
    queue[qt++] = root;
    int32_t *parent_of = malloc(n * sizeof *parent_of);
    if (!parent_of) { pt_errorf(err, "out of memory"); goto out; }
    parent_of[0] = -1;
    while (qh < qt) {
        struct vrow *r = queue[qh];
        int node = tree_add_node(g->tree, r->name, r->type, parent_of[qh]);
        qh++;
        if (node < 0) continue;   /* a repeated name: msProbe ids are unique */
        g->index[node] = r->index;
        g->link[node] = last_of_link(r->link);
        g->overflow[node] = r->ovf; r->ovf = NULL;
        if (decode_params(r->in, v->path, r->name, "input_data", &g->in[node], err) != 0 ||
            decode_params(r->out, v->path, r->name, "output_data", &g->out[node], err) != 0) {
            free(parent_of);
            goto out;
        }
        g->tree->nodes[node].micro = r->micro;
        if (r->stack) {
            cJSON *a;
            if (json_tree_parse(r->stack, strlen(r->stack), "stack_info", &a, NULL) == 0) {
                int s = tree_new_stack(g->tree);
                for (cJSON *l = cJSON_IsArray(a) ? a->child : NULL; s >= 0 && l; l = l->next)
                    if (cJSON_IsString(l)) tree_stack_line(g->tree, s, l->valuestring, strlen(l->valuestring));
                g->tree->nodes[node].stack = s;
                cJSON_Delete(a);
            }
        }
        if (!r->sub || !r->sub[0]) continue;
        cJSON *kids;
        if (json_tree_parse(r->sub, strlen(r->sub), "sub_nodes", &kids, NULL) != 0) continue;
        for (cJSON *k = cJSON_IsArray(kids) ? kids->child : NULL; k && qt < n; k = k->next) {
            if (!cJSON_IsString(k)) continue;
            struct vrow *c = find_row(sorted, n, k->valuestring);
            if (!c || c == r) continue;
            parent_of[qt] = node;
            queue[qt++] = c;
        }
        cJSON_Delete(kids);
    }
    free(parent_of);
    if (tree_finish(g->tree, err) != 0) goto out;
    *out = g;
    g = NULL;
    ret = 0;
out:
    for (size_t i = 0; i < n; i++) {
        free(rows[i].name); free(rows[i].up); free(rows[i].sub); free(rows[i].link);
        free(rows[i].ovf); free(rows[i].in); free(rows[i].out); free(rows[i].stack);
    }
    free(rows);
    free(sorted);
    free(queue);
    visdb_graph_free(g);
    return ret;
}

void visdb_graph_free(struct visdb_graph *g) {
    if (!g) return;
    size_t n = g->tree ? g->tree->nnodes : 0;
    for (size_t i = 0; i < n; i++) {
        if (g->link) free(g->link[i]);
        if (g->overflow) free(g->overflow[i]);
        if (g->in) vis_params_free(&g->in[i]);
        if (g->out) vis_params_free(&g->out[i]);
    }
    free(g->index);
    free(g->link);
    free(g->overflow);
    free(g->in);
    free(g->out);
    tree_free(g->tree);
    free(g);
}
