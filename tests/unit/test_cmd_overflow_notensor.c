/* test_cmd_overflow_notensor: `probetop overflow` and `info` on inputs that
 * describe no tensor (probetop-rules(7), OVERFLOW LEVELS): msProbe's all-nan
 * placeholder rows of a monitor tree (gen_dump.py --monitor, and the stored
 * tree of tests/data/nonfinite with a planted NaN/Inf), the NULLs of the
 * .trend.db data2db wrote from it, a dump whose statistics are null, and a
 * monitor_v2 row of nan statistics: missing data, not NaN, counted by
 * `info`; the planted cells alone are found.  The rest of the command:
 * test_cmd_overflow.c. */
#include "pt_test.h"
#include "pt_cmd_overflow.h"

/* `probetop info PATH --json` parsed; NULL when it failed. */
static cJSON *info_json(const char *path) {
    char out[4200], errf[4200];
    snprintf(out, sizeof out, "%s/info.json", pt_tmpdir_path);
    snprintf(errf, sizeof errf, "%s/info.err", pt_tmpdir_path);
    const char *argv[] = {"info", path, "--json", NULL};
    if (pt_capture(out, errf, cmd_info_entry.run, 3, argv) != EXIT_OK) return NULL;
    char *text = pt_slurp(out);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    return root;
}

/* tests/data/nonfinite/<rel> of the source tree (tests/data/nonfinite/README.md). */
static const char *nonfinite_data(const char *rel, char *buf, size_t size) {
    const char *src = getenv("PT_SRC");
    snprintf(buf, size, "%s/tests/data/nonfinite/%s", src ? src : ".", rel);
    return buf;
}

/* A monitor tree without a planted NaN (probetop-rules(7), OVERFLOW
 * LEVELS): msProbe's all-nan rows for outputs that are no tensor
 * (linear_qkv.output_1, the None bias) are missing data: no entry, exit
 * 0, and `info` says how many such rows it read. */
static void test_monitor_placeholders(void) {
    const char *sh = pt_shared();
    char gen[4200], dir[4200], cmd[13000];
    if (!sh || !have_python()) SKIP("no test data (PT_SHARED: run through ctest) or no python");
    snprintf(gen, sizeof gen, "%s/tools/gen_dump.py", sh);
    if (access(gen, R_OK) != 0) SKIP("no gen_dump.py");
    snprintf(dir, sizeof dir, "%s/mon_clean", pt_tmpdir_path);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --monitor --out '%s' --steps 3 --ranks 2 --layers 2 >/dev/null",
             getenv("PT_PYTHON"), gen, dir);
    if (system(cmd) != 0) {
        CHECK(!"gen_dump.py failed");
        return;
    }
    char *out;
    CHECK_INT(run_overflow(&out, dir, "--format", "json", NULL), EXIT_OK);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(get_int(get(root, "counts"), "nonfinite"), 0);
        CHECK_INT(cJSON_GetArraySize(get(root, "entries")), 0);
        CHECK(cJSON_IsNull(get(root, "first")));
    }
    cJSON_Delete(root);
    free(out);
    CHECK_INT(run_overflow(&out, dir, NULL), EXIT_OK);
    CHECK_CONTAINS(out, "no NaN or Inf found");
    free(out);
    root = info_json(dir);
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(get_int(root, "notensor_rows"), 246);   /* 41 a step and rank */
        const cJSON *nf = get(root, "nonfinite");
        CHECK_INT(get_int(nf, "actv"), 0);
        CHECK_INT(get_int(nf, "actv_grad"), 0);
    }
    cJSON_Delete(root);
}

/* The stored monitor tree with a planted NaN/Inf (step 1, rank 1): the
 * planted cells only, the first where it was planted, none of the
 * placeholder rows (their nans column is nan too). */
static void test_monitor_planted_placeholders(void) {
    char dir[4200];
    nonfinite_data("monitor", dir, sizeof dir);
    char *out;
    CHECK_INT(run_overflow(&out, dir, "--format", "json", NULL), EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(get_int(get(root, "counts"), "nonfinite"), 44);
        const cJSON *f = get(root, "first");
        CHECK_STR(get_str(f, "name"), "module.module.decoder.layers.0.mlp.linear_fc1.output_0");
        CHECK_STR(get_str(f, "what"), "actv norm=inf, min=-inf, max=inf, mean=nan");
        CHECK_INT(get_int(f, "step"), 1);
        CHECK_INT(get_int(f, "rank"), 1);
        const cJSON *e;
        int n = 0;
        cJSON_ArrayForEach(e, get(root, "entries")) {
            n++;
            CHECK_INT(get_int(e, "step"), 1);
            CHECK_INT(get_int(e, "rank"), 1);
            CHECK(strstr(get_str(e, "what"), "nans=nan") == NULL);
        }
        CHECK_INT(n, 44);
    }
    cJSON_Delete(root);
    free(out);
    root = info_json(dir);
    CHECK(root != NULL);
    if (root) CHECK_INT(get_int(root, "notensor_rows"), 96);
    cJSON_Delete(root);
}

/* The .trend.db msProbe's data2db wrote from that tree: its NULLs in rows
 * that exist are NaN, read with the same triage as the tree -- the same
 * entries (step, rank, position, name, metric), the same first occurrence,
 * the same gate -- and its targets NULL on every step and rank are the
 * tree's placeholders (no tensor). */
static void test_trenddb_msprobe_nulls(void) {
    char dir[4200], db[4200];
    nonfinite_data("monitor", dir, sizeof dir);
    nonfinite_data("msprobe_db/monitor_data.trend.db", db, sizeof db);
    char *a, *b;
    CHECK_INT(run_overflow(&a, dir, "--format", "json", "--limit", "0", NULL), EXIT_FOUND);
    CHECK_INT(run_overflow(&b, db, "--format", "json", "--limit", "0", NULL), EXIT_FOUND);
    cJSON *ra = cJSON_Parse(a), *rb = cJSON_Parse(b);
    CHECK(ra != NULL && rb != NULL);
    if (ra && rb) {
        CHECK_INT(get_int(get(rb, "counts"), "nonfinite"), 44);
        const cJSON *f = get(rb, "first");
        CHECK_STR(get_str(f, "name"), get_str(get(ra, "first"), "name"));
        CHECK_INT(get_int(f, "step"), 1);
        CHECK_INT(get_int(f, "rank"), 1);
        CHECK_INT(get_int(f, "pos"), get_int(get(ra, "first"), "pos"));
        const cJSON *ea = get(ra, "entries"), *eb = get(rb, "entries");
        CHECK_INT(cJSON_GetArraySize(eb), cJSON_GetArraySize(ea));
        for (int i = 0; i < cJSON_GetArraySize(ea) && i < cJSON_GetArraySize(eb); i++) {
            const cJSON *x = cJSON_GetArrayItem(ea, i), *y = cJSON_GetArrayItem(eb, i);
            CHECK_INT(get_int(y, "step"), get_int(x, "step"));
            CHECK_INT(get_int(y, "rank"), get_int(x, "rank"));
            CHECK_INT(get_int(y, "pos"), get_int(x, "pos"));
            CHECK_STR(get_str(y, "name"), get_str(x, "name"));
            /* the metric: msProbe lists a metric's statistics in its own order */
            CHECK(strncmp(get_str(y, "what"), get_str(x, "what"), strcspn(get_str(x, "what"), " ")) == 0);
        }
    }
    cJSON_Delete(ra);
    cJSON_Delete(rb);
    free(a);
    free(b);
    cJSON *ia = info_json(dir), *ib = info_json(db);
    CHECK(ia != NULL && ib != NULL);
    if (ia && ib) {
        CHECK_INT(get_int(ib, "notensor_rows"), 96);
        CHECK_INT(get_int(ib, "notensor_rows"), get_int(ia, "notensor_rows"));
        CHECK_INT(get_int(get(ib, "nonfinite"), "actv"), 44);   /* cells x statistics */
        CHECK_INT(get_int(get(ib, "nonfinite"), "actv_grad"), 132);
        CHECK_INT(get_int(get(ib, "nonfinite"), "actv"), get_int(get(ia, "nonfinite"), "actv"));
        CHECK_INT(get_int(get(ib, "nonfinite"), "actv_grad"), get_int(get(ia, "nonfinite"), "actv_grad"));
    }
    cJSON_Delete(ia);
    cJSON_Delete(ib);
}

/* A dump whose records describe no tensor -- a null output, a float tensor
 * whose Max, Min, Mean and Norm are null (empty) -- holds no NaN: exit 0,
 * and `info` counts the tensor without statistics; the .trend.db data2db
 * writes from two such steps (rows of NULLs) reads the same.  Written from
 * one step only, the database cannot tell the NULL from a NaN: it is
 * reported (probetop-rules(7), OVERFLOW LEVELS), never hidden. */
static void test_dump_no_tensor(void) {
    char dir[4200], one[4200], rank[4300], file[4400], db[4300], db1[4300];
    snprintf(dir, sizeof dir, "%s/dump_none", pt_tmpdir_path);
    snprintf(one, sizeof one, "%s/dump_one", pt_tmpdir_path);
    static const char dump[] =
        "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {\n"
        " \"Functional.linear.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"shape\": [2, 2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.2, \"requires_grad\": false}, null],\n"
        "  \"input_kwargs\": {}, \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [0], "
        "\"Max\": null, \"Min\": null, \"Mean\": null, \"Norm\": null, \"requires_grad\": false}, null]}}}\n";
    char cmd[9000];
    const char *roots[] = {dir, dir, one};
    for (int k = 0; k < 3; k++) {
        snprintf(rank, sizeof rank, "%s/step%d/rank0", roots[k], k == 1);
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", rank);
        CHECK_INT(system(cmd), 0);
        snprintf(file, sizeof file, "%s/dump.json", rank);
        CHECK_INT(pt_write(file, dump), 0);
        snprintf(file, sizeof file, "%s/construct.json", rank);
        CHECK_INT(pt_write(file, "{}"), 0);
    }
    snprintf(db, sizeof db, "%s/db", pt_tmpdir_path);
    snprintf(db1, sizeof db1, "%s/db1", pt_tmpdir_path);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s' >/dev/null 2>&1 && '%s' data2db --data '%s' --db '%s' "
             ">/dev/null 2>&1", getenv("PT_BIN"), dir, db, getenv("PT_BIN"), one, db1);
    int wrote = getenv("PT_BIN") && system(cmd) == 0;
    CHECK(wrote);
    for (int k = 0; k < 1 + wrote; k++) {
        const char *path = k ? db : dir;
        char *out;
        CHECK_INT(run_overflow(&out, path, NULL), EXIT_OK);
        CHECK_CONTAINS(out, "no NaN or Inf found");
        free(out);
        cJSON *root = info_json(path);
        CHECK(root != NULL);
        if (root) {
            CHECK_INT(get_int(root, "notensor_rows"), 2);
            CHECK_INT(get_int(get(root, "nonfinite"), "forward"), 0);
        }
        cJSON_Delete(root);
    }
    if (!wrote) return;
    char *out;
    CHECK_INT(run_overflow(&out, db1, NULL), EXIT_FOUND);
    CHECK_CONTAINS(out, "Functional.linear.output.0");
    free(out);
}

/* A monitor_v2 tree: a row whose every statistic is nan describes no
 * tensor (missing, counted by info); a NaN tensor's row (its nans count a
 * number) is the one entry. */
static void test_monitor_v2_no_tensor(void) {
    char dir[4200], file[4400], cmd[4500];
    snprintf(dir, sizeof dir, "%s/mon_v2/rank_0", pt_tmpdir_path);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    CHECK_INT(system(cmd), 0);
    snprintf(file, sizeof file, "%s/module_step0-0.csv", dir);
    CHECK_INT(pt_write(file, "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\n"
                             "0,0,module.layers.0.mlp.input.0,forward,-1.0,1.0,0.0,4.0,0.0\n"
                             "0,0,module.layers.0.mlp.output.1,forward,nan,nan,nan,nan,nan\n"
                             "0,0,module.layers.0.mlp.output.0,forward,nan,nan,nan,nan,16.0\n"),
              0);
    snprintf(dir, sizeof dir, "%s/mon_v2", pt_tmpdir_path);
    char *out;
    CHECK_INT(run_overflow(&out, dir, "--format", "json", NULL), EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(get_int(get(root, "counts"), "nonfinite"), 1);
        CHECK_STR(get_str(get(root, "first"), "name"), "module.layers.0.mlp.output.0");
    }
    cJSON_Delete(root);
    free(out);
    root = info_json(dir);
    CHECK(root != NULL);
    if (root) CHECK_INT(get_int(root, "notensor_rows"), 1);
    cJSON_Delete(root);
}

int main(void) {
    if (scratch_init() != 0) return 1;
    RUN(test_monitor_placeholders);
    RUN(test_monitor_planted_placeholders);
    RUN(test_trenddb_msprobe_nulls);
    RUN(test_dump_no_tensor);
    RUN(test_monitor_v2_no_tensor);
    PT_DONE();
}
