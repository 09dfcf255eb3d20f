/* test_papercuts: the headless paper cuts a first user meets: `info` and `overflow` describe a msProbe .vis.db instead of
 * refusing it, `compare` with one argument names what is missing, and the
 * worst relative error is printed with 6 significant digits. */
#include "pt_test.h"
#include "src/cmd/cmd.h"

#include <ctype.h>
#include <dirent.h>
#include <sqlite3.h>

/* A print of a folder's entry names that does not depend on readdir's
 * order (a sum of per-name hashes): enough to see a file appear beside the
 * fixtures. */
static unsigned long folder_print(const char *dir) {
    DIR *d = opendir(dir);
    unsigned long sum = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        unsigned long h = 1469598103934665603ul;
        for (const char *p = e->d_name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ul;
        sum += h;
    }
    closedir(d);
    return sum;
}

static int run_cmd(const struct cmd_entry *c, int argc, const char **argv, char **out, char **err) {
    const char *dir = pt_tmpdir("papercuts_cmd");
    char o[1200], e[1200];
    snprintf(o, sizeof o, "%s/out", dir);
    snprintf(e, sizeof e, "%s/err", dir);
    int rc = pt_capture(o, e, c->run, argc, argv);
    *out = pt_slurp(o);
    *err = pt_slurp(e);
    return rc;
}

static void test_info_visdb(void) {
    const char *cmp = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db"), *bld = pt_outputs("gpu_dump_step0.build.vis.db");
    if (!cmp || !bld) SKIP("fixtures absent");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fixtures/msprobe-outputs", pt_shared());
    unsigned long before = folder_print(dir);
    char *out, *err;
    const char *a1[] = {"info", cmp};
    CHECK_INT(run_cmd(&cmd_info_entry, 2, a1, &out, &err), EXIT_OK);
    CHECK_CONTAINS(out, "format      vis.db (msProbe graph, compare, task summary)");
    CHECK_CONTAINS(out, "graphs      1");
    CHECK_CONTAINS(out, "steps       1 (0..0)");
    CHECK_CONTAINS(out, "ranks       1 (0..0)");
    /* msProbe's counts of the pair (the TUI's "matched 709 unmatched 220/58") */
    CHECK_CONTAINS(out, "nodes       929 problem, 767 benchmark");
    CHECK_CONTAINS(out, "matched     709 (unmatched 220 problem / 58 benchmark)");
    CHECK_CONTAINS(out, "overflow    0 critical, 0 high, 0 medium");
    CHECK(err && !err[0]);
    free(out);
    free(err);
    const char *a2[] = {"info", bld, "--json"};
    CHECK_INT(run_cmd(&cmd_info_entry, 3, a2, &out, &err), EXIT_OK);
    CHECK_CONTAINS(out, "\"graph_type\": \"build\"");
    CHECK_CONTAINS(out, "\"nodes\": {\"problem\": 929}");
    CHECK_CONTAINS(out, "\"overflow\": null");
    free(out);
    free(err);
    const char *a3[] = {"info", bld};
    CHECK_INT(run_cmd(&cmd_info_entry, 2, a3, &out, &err), EXIT_OK);
    CHECK_CONTAINS(out, "overflow    not checked");
    free(out);
    free(err);
    /* read through the immutable opener: nothing appeared beside them */
    CHECK_INT(folder_print(dir), before);
}

/* A copy of the compare fixture with levels planted on two nodes. */
static const char *planted(void) {
    static char path[1200];
    const char *src = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db");
    const char *dir = pt_tmpdir("papercuts_visdb");
    if (!src || !dir) return NULL;
    snprintf(path, sizeof path, "%s/planted.vis.db", dir);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, path);
    if (system(cmd) != 0) return NULL;
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return NULL;
    int rc = sqlite3_exec(db,
                          "UPDATE tb_nodes SET overflow_level = 'critical' WHERE data_source = 'NPU' AND "
                          "node_name = 'Module.fc.Linear.forward.0';"
                          "UPDATE tb_nodes SET overflow_level = 'medium' WHERE data_source = 'NPU' AND "
                          "node_name = 'Module.conv1.Conv2d.forward.0';",
                          NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK ? path : NULL;
}

static void test_overflow_visdb(void) {
    const char *cmp = pt_outputs("gpu_dump_step0_vs_step1.compare_oc.vis.db"), *bld = pt_outputs("gpu_dump_step0.build.vis.db");
    if (!cmp || !bld) SKIP("fixtures absent");
    char *out, *err;
    const char *a1[] = {"overflow", cmp};
    CHECK_INT(run_cmd(&cmd_overflow_entry, 2, a1, &out, &err), EXIT_OK);
    CHECK_CONTAINS(out, "counts: critical 0, high 0, medium 0");
    CHECK_CONTAINS(out, "no node flagged");
    free(out);
    free(err);
    /* built without -oc: no levels, so the gate cannot know (exit 3)
     * unless partial input is accepted */
    const char *a2[] = {"overflow", bld, "--format", "json"};
    CHECK_INT(run_cmd(&cmd_overflow_entry, 4, a2, &out, &err), EXIT_INCOMPLETE);
    CHECK_CONTAINS(out, "\"checked\": false, \"partial_ok\": false");
    CHECK_CONTAINS(err, "gpu_dump_step0.build.vis.db: the graph was built without msProbe's overflow check (-oc)");
    free(out);
    free(err);
    const char *a2b[] = {"overflow", bld, "--partial-ok"};
    CHECK_INT(run_cmd(&cmd_overflow_entry, 3, a2b, &out, &err), EXIT_OK);
    CHECK_CONTAINS(out, "levels: not stored");
    CHECK_CONTAINS(err, "accepted by --partial-ok");
    free(out);
    free(err);
    const char *p = planted();
    CHECK(p != NULL);
    if (!p) return;
    const char *a3[] = {"overflow", p};
    CHECK_INT(run_cmd(&cmd_overflow_entry, 2, a3, &out, &err), EXIT_FOUND);
    CHECK_CONTAINS(out, "counts: critical 1, high 0, medium 1");
    /* execution order: the conv comes before the fc */
    CHECK_CONTAINS(out, "first occurrence: medium at step 0, rank 0, problem side\n  Module.conv1.Conv2d.forward.0");
    CHECK_CONTAINS(out, "critical      0     0 problem   Module.fc.Linear.forward.0");
    free(out);
    free(err);
    const char *a4[] = {"overflow", p, "--level", "critical", "--format", "csv"};
    CHECK_INT(run_cmd(&cmd_overflow_entry, 6, a4, &out, &err), EXIT_FOUND);
    CHECK_CONTAINS(out, "level,step,rank,side,order,name\ncritical,0,0,problem,");
    CHECK(out && !strstr(out, "medium"));
    free(out);
    free(err);
}

static void test_compare_one_arg(void) {
    char *out, *err;
    const char *a1[] = {"compare", "somewhere"};
    CHECK_INT(run_cmd(&cmd_compare_entry, 2, a1, &out, &err), EXIT_USAGE);
    CHECK_CONTAINS(err, "probetop compare: BENCH is missing");
    CHECK_CONTAINS(err, "usage: probetop compare PROBLEM BENCH");
    free(out);
    free(err);
    const char *a2[] = {"compare"};
    CHECK_INT(run_cmd(&cmd_compare_entry, 1, a2, &out, &err), EXIT_USAGE);
    CHECK_CONTAINS(err, "PROBLEM and BENCH are missing");
    free(out);
    free(err);
}

static void test_first_digits(void) {
    const char *a = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016");
    const char *b = pt_fixture("examples/quick_start/gpu_dump/step1/proc2016");
    if (!a || !b) SKIP("fixtures absent");
    char *out, *err;
    const char *argv[] = {"compare", a, b, "--first"};
    CHECK_INT(run_cmd(&cmd_compare_entry, 4, argv, &out, &err), EXIT_FOUND);
    const char *w = out ? strstr(out, "worst relative error ") : NULL;
    CHECK(w != NULL);
    if (w) {
        int digits = 0;
        for (w += 21; *w && *w != '%' && *w != 'e'; w++) digits += isdigit((unsigned char)*w) != 0;
        CHECK(digits >= 1 && digits <= 6);
        CHECK_INT(*w, '%');
    }
    free(out);
    free(err);
}

int main(void) {
    RUN(test_info_visdb);
    RUN(test_overflow_visdb);
    RUN(test_compare_one_arg);
    RUN(test_first_digits);
    PT_DONE();
}
