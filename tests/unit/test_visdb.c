/* test_visdb: msProbe's .vis.db read-only (probetop-formats(5), VIS.DB): the real
 * compare database of the quick_start pair, a file name with odd bytes,
 * and databases of other kinds, each refused with a message naming the
 * file, none of them written to. */
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/visdb/read_visdb.h"
#include "tests/pt_test.h"

static int copy_file(const char *from, const char *to, long limit) {
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    int rc = a && b ? 0 : -1;
    char buf[65536];
    size_t n;
    long done = 0;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, a)) > 0) {
        if (limit >= 0 && done + (long)n > limit) n = (size_t)(limit - done);
        if (fwrite(buf, 1, n, b) != n) rc = -1;
        done += (long)n;
        if (limit >= 0 && done >= limit) break;
    }
    if (a) fclose(a);
    if (b && fclose(b) != 0) rc = -1;
    return rc;
}

static int sql(const char *path, const char *text) {
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return -1;
    int rc = sqlite3_exec(db, text, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    sqlite3_close(db);
    return rc;
}

static long long count(const char *path, const char *q) {
    sqlite3 *db;
    sqlite3_stmt *st;
    long long n = -1;
    if (pt_sqlite_ro(path, &db) != SQLITE_OK) return -1;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* Opening must leave the file as it was and its side files (-wal, -shm,
 * -journal) as they were: compared before and after, since someone else may
 * have the fixture open while the test runs. */
struct fsnap { off_t size; struct timespec mtime; };
struct snap { struct fsnap f[4]; };
static const char *const sfx[] = {"", "-wal", "-shm", "-journal"};
static struct snap snap_of(const char *p) {
    struct snap s;
    for (int i = 0; i < 4; i++) {
        char q[4200];
        struct stat st;
        snprintf(q, sizeof q, "%s%s", p, sfx[i]);
        s.f[i] = (struct fsnap){-1, {0, 0}};
        if (stat(q, &st) == 0) s.f[i] = (struct fsnap){st.st_size, st.st_mtim};
    }
    return s;
}
static void check_untouched(const char *p, struct snap before) {
    struct snap now = snap_of(p);
    for (int i = 0; i < 4; i++) {
        CHECK_INT(now.f[i].size, before.f[i].size);
        CHECK(now.f[i].mtime.tv_sec == before.f[i].mtime.tv_sec && now.f[i].mtime.tv_nsec == before.f[i].mtime.tv_nsec);
        if (now.f[i].size != before.f[i].size) fprintf(stderr, "%s%s changed\n", p, sfx[i]);
    }
}

static void test_fixture(void) {
    const char *db = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    if (!db) SKIP("msprobe-outputs fixtures absent");
    struct snap before = snap_of(db);
    struct visdb *v;
    struct pt_error err;
    CHECK_INT(visdb_open(db, &v, &err), 0);
    if (!v) return;
    CHECK_INT(v->compare, 1);
    CHECK_STR(v->task, "summary");
    CHECK_INT(v->nranks, 1);
    CHECK_INT(v->nsteps, 1);
    struct visdb_graph *g;
    CHECK_INT(visdb_load(v, v->steps[0], v->ranks[0], "NPU", &g, &err), 0);
    if (g) {
        CHECK_INT(g->tree->nnodes, count(db, "SELECT count(*) FROM tb_nodes WHERE data_source = 'NPU'"));
        /* every stored counterpart, and no more */
        long long linked = 0;
        for (size_t i = 0; i < g->tree->nnodes; i++) linked += g->link[i] != NULL;
        CHECK_INT(linked, count(db, "SELECT count(*) FROM tb_nodes WHERE data_source = 'NPU' "
                                    "AND matched_node_link != '[]' AND matched_node_link != ''"));
        visdb_graph_free(g);
    }
    CHECK_INT(visdb_load(v, v->steps[0], v->ranks[0], "Bench", &g, &err), 0);
    if (g) {
        CHECK_INT(g->tree->nnodes, count(db, "SELECT count(*) FROM tb_nodes WHERE data_source = 'Bench'"));
        visdb_graph_free(g);
    }
    /* a step the db does not hold */
    CHECK(visdb_load(v, 7, 0, "NPU", &g, &err) != 0 || (g && g->tree->nnodes == 0));
    if (g) visdb_graph_free(g);
    visdb_close(v);
    check_untouched(db, before);
}

/* '#', '?', '%' and a space in the name: sqlite reads the open as a URI. */
static void test_odd_name(void) {
    const char *db = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    if (!db) SKIP("msprobe-outputs fixtures absent");
    const char *dir = pt_tmpdir("visdb_odd");
    char p[4200];
    snprintf(p, sizeof p, "%s/run #1?x=%%41 \xe2\x80\x94.vis.db", dir);
    CHECK_INT(copy_file(db, p, -1), 0);
    struct visdb *v;
    struct pt_error err;
    CHECK_INT(visdb_open(p, &v, &err), 0);
    if (v) {
        CHECK_INT(v->compare, 1);
        visdb_close(v);
    }
}

static void expect_refused(const char *p, const char *words) {
    struct snap before = snap_of(p);
    struct visdb *v = NULL;
    struct pt_error err;
    CHECK(visdb_open(p, &v, &err) != 0);
    CHECK(v == NULL);
    CHECK_CONTAINS(err.msg, p);
    CHECK_CONTAINS(err.msg, words);
    check_untouched(p, before);
}

static void test_other_kinds(void) {
    const char *dir = pt_tmpdir("visdb_refused");
    char p[4200];

    snprintf(p, sizeof p, "%s/trend.vis.db", dir);
    CHECK_INT(sql(p, "CREATE TABLE monitoring_targets(target_id INTEGER PRIMARY KEY, target_name TEXT);"
                     "CREATE TABLE trend_data(id INTEGER);"), 0);
    expect_refused(p, "trend database");

    snprintf(p, sizeof p, "%s/other.vis.db", dir);
    CHECK_INT(sql(p, "CREATE TABLE foo(a);"), 0);
    expect_refused(p, "no tb_nodes/tb_config");

    snprintf(p, sizeof p, "%s/oldschema.vis.db", dir);
    CHECK_INT(sql(p, "CREATE TABLE tb_nodes(id INTEGER PRIMARY KEY, node_name TEXT, node_order INTEGER);"
                     "CREATE TABLE tb_config(id INTEGER PRIMARY KEY, graph_type TEXT);"), 0);
    expect_refused(p, "another schema");

    snprintf(p, sizeof p, "%s/text.vis.db", dir);
    CHECK_INT(pt_write(p, "this is not a database\n"), 0);
    expect_refused(p, "not an SQLite database");

    snprintf(p, sizeof p, "%s/empty.vis.db", dir);
    CHECK_INT(pt_write(p, ""), 0);
    {
        /* an empty file is a valid empty database to sqlite: no tables */
        expect_refused(p, "no tb_nodes/tb_config");
    }

    const char *db = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    if (db) {
        /* the real schema, tb_config emptied */
        snprintf(p, sizeof p, "%s/unfinished.vis.db", dir);
        CHECK_INT(copy_file(db, p, -1), 0);
        CHECK_INT(sql(p, "DELETE FROM tb_config;"), 0);
        expect_refused(p, "never finished");
        /* cut in half: refused at open or at load, never a crash */
        snprintf(p, sizeof p, "%s/cut.vis.db", dir);
        struct stat st;
        CHECK_INT(stat(db, &st), 0);
        CHECK_INT(copy_file(db, p, (long)st.st_size / 2), 0);
        struct visdb *v = NULL;
        struct pt_error err;
        if (visdb_open(p, &v, &err) == 0) {
            struct visdb_graph *g = NULL;
            int rc = visdb_load(v, v->steps[0], v->ranks[0], "NPU", &g, &err);
            if (rc != 0) CHECK_CONTAINS(err.msg, p);
            else CHECK(g != NULL);
            visdb_graph_free(g);
            visdb_close(v);
        } else CHECK_CONTAINS(err.msg, p);
    }
}

/* The compare rows of a node are decoded once by the reader; a column that
 * is not a JSON object keeps a message naming the file, node and column
 * (shown by the detail pane), and the graph still loads. */
static void test_bad_params(void) {
    const char *db = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    if (!db) SKIP("msprobe-outputs fixtures absent");
    const char *dir = pt_tmpdir("visdb_params");
    char p[4096];
    snprintf(p, sizeof p, "%s/params.vis.db", dir);
    CHECK_INT(copy_file(db, p, -1), 0);
    CHECK_INT(sql(p, "UPDATE tb_nodes SET input_data = '{\"x\": ', output_data = '[1]' "
                     "WHERE node_name = 'Functional.linear.0.forward' AND data_source = 'NPU';"), 0);
    struct visdb *v = NULL;
    struct visdb_graph *g = NULL;
    struct pt_error err;
    if (visdb_open(p, &v, &err) != 0) { CHECK(!"opens the copy"); return; }
    CHECK_INT(visdb_load(v, 0, 0, "NPU", &g, &err), 0);
    int n = g ? tree_find(g->tree, "Functional.linear.0.forward") : -1;
    CHECK(n >= 0);
    if (n >= 0) {
        CHECK(g->in[n].error != NULL);
        CHECK_INT((int)g->in[n].n, 0);
        if (g->in[n].error) {
            CHECK_CONTAINS(g->in[n].error, p);
            CHECK_CONTAINS(g->in[n].error, "Functional.linear.0.forward");
            CHECK_CONTAINS(g->in[n].error, "input_data");
        }
        CHECK(g->out[n].error != NULL);
        if (g->out[n].error) CHECK_CONTAINS(g->out[n].error, "output_data: not a JSON object");
        /* the other nodes keep their rows */
        int m = tree_find(g->tree, "Functional.relu.0.forward");
        if (m >= 0) CHECK(g->in[m].error == NULL);
    }
    visdb_graph_free(g);
    visdb_close(v);
}

int main(void) {
    RUN(test_fixture);
    RUN(test_bad_params);
    RUN(test_odd_name);
    RUN(test_other_kinds);
    PT_DONE();
}
