/* test_curve_table: the CSV / JSONL reader of training curves
 * (src/io/curves/read_curve_table.c, probetop-formats(5), TRAINING CURVES)
 * on the fixtures tests/data/curves/ and on generated files: values, NaN
 * kept, roles, TensorBoard's CSV download, detection against the other
 * CSV readers, and hostile input (truncated, empty, another format, odd
 * bytes, bad rows), whose messages name the file and the line. */
#include "pt_test.h"

#include <math.h>

#include "model/curves/curves.h"
#include "src/io/load.h"
#include "src/io/formats.h"

static struct dataset *load(const char *path, int forced, struct pt_error *err) {
    struct load_opts lo;
    load_opts_init(&lo);
    if (forced) lo.format = formats_find("curve_table");
    struct dataset *ds = NULL;
    err->msg[0] = '\0';
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

/* every warning joined */
static const char *said(const struct dataset *ds) {
    static char buf[8192];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; ds && i < ds->nwarnings && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n", ds->warnings[i]);
    return buf;
}

static void test_fixtures(void) {
    const char *p = pt_checkout_file("data/curves/megatron_run.csv");
    if (!p) SKIP("no checkout");
    char path[4096];
    snprintf(path, sizeof path, "%s", p);
    CHECK_STR(formats_name(formats_detect(path)), "curve_table");
    struct pt_error err;
    struct dataset *ds = load(path, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    const struct curves *c = ds->curves;
    CHECK_INT(c->nseries, 4);
    const struct curves_series *l = curves_find_role(c, CURVES_LOSS);
    CHECK(l && !strcmp(l->name, "lm loss"));
    CHECK_INT(l ? l->n : 0, 19);   /* step 12 has no loss (Megatron leaves a NaN loss out) */
    double v;
    CHECK_INT(curves_value_at(curves_find_role(c, CURVES_GRAD_NORM), 12, &v), 1);
    CHECK(isnan(v));
    CHECK_INT(curves_value_at(curves_find_role(c, CURVES_NAN_ITERS), 12, &v), 1);
    CHECK_NEAR(v, 1, 0);
    CHECK(curves_find_role(c, CURVES_LOSS_SCALE) != NULL);
    CHECK_INT(c->first_step, 1);
    CHECK_INT(c->last_step, 20);
    CHECK_INT(ds->nwarnings, 0);
    CHECK(ds->cube != NULL);
    dataset_free(ds);

    snprintf(path, sizeof path, "%s", pt_checkout_file("data/curves/verl_run.jsonl"));
    CHECK_STR(formats_name(formats_detect(path)), "curve_table");
    ds = load(path, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    c = ds->curves;
    CHECK_INT(c->nseries, 4);
    CHECK_STR(curves_find_role(c, CURVES_LOSS)->name, "actor/pg_loss");
    CHECK_STR(curves_find_role(c, CURVES_REWARD)->name, "critic/score/mean");
    CHECK_INT(curves_value_at(curves_find_role(c, CURVES_LOGP_DIFF), 9, &v), 1);
    CHECK(isnan(v));   /* Python's bare NaN */
    CHECK_INT(curves_value_at(curves_find_role(c, CURVES_LOSS), 3, &v), 1);
    CHECK_NEAR(v, -0.03, 1e-12);
    dataset_free(ds);
}

/* The other CSV readers keep their files: a monitor CSV (names in its
 * rows), the step time CSV, msProbe's compare table are no curve table. */
static void test_detection(void) {
    const char *d = pt_checkout_file("data");
    if (!d) SKIP("no checkout");
    char path[4096];
    snprintf(path, sizeof path, "%s/nonfinite/monitor/Nov14_22-13-20-rank1-af5de2c1/actv_grad_0-0.csv", d);
    CHECK(strcmp(formats_name(formats_detect(path)), "curve_table") != 0);
    snprintf(path, sizeof path, "%s/msprobe-outputs/gpu_dump_step0_vs_step1.compare_result.csv", d);
    CHECK(strcmp(formats_name(formats_detect(path)), "curve_table") != 0);
    const char *a = pt_checkout_file("ascend/pp2/node0_4102_20250312101500456_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    if (a) CHECK_STR(formats_name(formats_detect(a)), "ascend_step");
    const char *t = pt_tmpdir("detect");
    snprintf(path, sizeof path, "%s/run.json", t);
    pt_write(path, "{\"step\": 3, \"loss\": 2.5}\n");
    CHECK_STR(formats_name(formats_detect(path)), "curve_table");
    snprintf(path, sizeof path, "%s/other.json", t);
    pt_write(path, "{\"data\": {}}\n");
    CHECK(formats_detect(path) == NULL || strcmp(formats_name(formats_detect(path)), "curve_table") != 0);
}

static void test_tensorboard_csv(void) {
    const char *t = pt_tmpdir("tb");
    char path[2048];
    snprintf(path, sizeof path, "%s/run-lm loss.csv", t);
    pt_write(path, "Wall time,Step,Value\n1700000000.5,10,3.25\n1700000001.5,20,3.0\n");
    struct pt_error err;
    struct dataset *ds = load(path, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->curves->nseries, 1);
    CHECK_STR(ds->curves->series[0].name, "run-lm loss");
    CHECK_INT(ds->curves->series[0].role, CURVES_LOSS);
    CHECK_INT(ds->curves->series[0].n, 2);
    dataset_free(ds);
}

/* Many columns: the series array grows while the header is read, so the
 * columns must not keep pointers into it (the fuzzer's first find). */
static void test_many_columns(void) {
    const char *t = pt_tmpdir("wide");
    char path[2048], text[8192];
    snprintf(path, sizeof path, "%s/wide.csv", t);
    size_t n = (size_t)snprintf(text, sizeof text, "step");
    for (int c = 0; c < 40; c++) n += (size_t)snprintf(text + n, sizeof text - n, ",s%d", c);
    for (int r = 1; r <= 3; r++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "\n%d", r);
        for (int c = 0; c < 40; c++) n += (size_t)snprintf(text + n, sizeof text - n, ",%d", r * 100 + c);
    }
    snprintf(text + n, sizeof text - n, "\n");
    pt_write(path, text);
    struct pt_error err;
    struct dataset *ds = load(path, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->curves->nseries, 40);
    const struct curves_series *s39 = curves_find(ds->curves, "s39");
    double v = 0;
    CHECK(s39 != NULL && curves_value_at(s39, 3, &v) == 1);
    CHECK(v == 339);
    dataset_free(ds);
}

static void test_bad_rows(void) {
    const char *t = pt_tmpdir("bad");
    char path[2048];
    snprintf(path, sizeof path, "%s/bad.csv", t);
    pt_write(path, "step,loss,grad norm\n1,2.5,1.0\n2,abc,1.0\n3,2.4\n1.5,2,2\n4,2.3,inf\r\n5,2.2,");
    struct pt_error err;
    struct dataset *ds = load(path, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    char want[2200];
    snprintf(want, sizeof want, "%s:3: 'abc' in column loss is no number", path);
    CHECK_CONTAINS(said(ds), want);
    snprintf(want, sizeof want, "%s:4: 2 fields, the header has 3", path);
    CHECK_CONTAINS(said(ds), want);
    snprintf(want, sizeof want, "%s:5: step '1.5' is no whole number", path);
    CHECK_CONTAINS(said(ds), want);
    snprintf(want, sizeof want, "%s:7: the last line has no end of line", path);
    CHECK_CONTAINS(said(ds), want);
    const struct curves_series *l = curves_find(ds->curves, "loss"), *g = curves_find(ds->curves, "grad norm");
    CHECK_INT(l->n, 3);   /* steps 1, 4, 5 */
    CHECK_INT(g->n, 3);   /* 1, 2, 4: step 5's grad norm is empty */
    double v;
    CHECK_INT(curves_value_at(g, 4, &v), 1);
    CHECK(isinf(v));
    dataset_free(ds);

    snprintf(path, sizeof path, "%s/bad.jsonl", t);
    pt_write(path, "{\"step\": 1, \"loss\": 2.5}\n[1]\n{\"loss\": 3}\n{\"step\": 2, \"loss\": \n");
    ds = load(path, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    snprintf(want, sizeof want, "%s:2: not a JSON object", path);
    CHECK_CONTAINS(said(ds), want);
    snprintf(want, sizeof want, "%s:3: no step key", path);
    CHECK_CONTAINS(said(ds), want);
    snprintf(want, sizeof want, "%s:4: not a JSON object", path);
    CHECK_CONTAINS(said(ds), want);
    dataset_free(ds);
}

/* empty, a header alone, no step column, another format forced, odd
 * bytes: an error naming the file */
/* A table over 4 MB is read by two threads (the second half by a second
 * one, stopping at its first row that needs the slow path): the points
 * come out in row order (a step given in both halves keeps the later
 * value), a bad row and a quoted row of the second half are read as in
 * one pass, the warning naming its true line, and the values are the
 * ones strtod gives. */
static void test_big_two_halves(void) {
    const char *dir = pt_tmpdir("big");
    char path[1200];
    snprintf(path, sizeof path, "%s/big.csv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    const int n = 400000, badline = 300002, quoted = 350000;
    fprintf(f, "step,lm loss,grad norm\n");   /* line 1 */
    for (int i = 1; i <= n; i++) {           /* row i: line i + 1 */
        if (i + 1 == badline) fprintf(f, "%d,oops,1.5\n", i);
        else if (i == quoted) fprintf(f, "%d,\"%.17g\",%d.25\n", i, 0.1 * i, i % 7);
        else if (i == n) fprintf(f, "7,%.17g,%d.25\n", 0.1 * i, i % 7);   /* step 7 again, last */
        else fprintf(f, "%d,%.17g,%d.25\n", i, 0.1 * i, i % 7);
    }
    CHECK_INT(fclose(f), 0);
    struct pt_error err;
    struct dataset *ds = load(path, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct curves_series *l = curves_find(ds->curves, "lm loss"), *g = curves_find(ds->curves, "grad norm");
    CHECK(l && g);
    if (l && g) {
        CHECK_INT(l->n, n - 2);   /* the bad cell and the step given twice */
        CHECK_INT(g->n, n - 1);
        double v = 0;
        CHECK(curves_value_at(l, 7, &v) && v == strtod("40000", NULL));   /* 0.1 * 400000, the later row */
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", 0.1 * 123457);
        CHECK(curves_value_at(l, 123457, &v) && v == strtod(buf, NULL));
        snprintf(buf, sizeof buf, "%.17g", 0.1 * quoted);
        CHECK(curves_value_at(l, quoted, &v) && v == strtod(buf, NULL));
        CHECK(curves_value_at(g, badline - 1, &v) && v == 1.5);
        CHECK(!curves_value_at(l, badline - 1, &v));
        CHECK(curves_value_at(g, n - 1, &v) && v == (double)((n - 1) % 7) + 0.25);
    }
    char want[64];
    snprintf(want, sizeof want, "big.csv:%d: 'oops' in column lm loss", badline);
    CHECK_CONTAINS(said(ds), want);
    CHECK_INT(ds->nwarnings, 1);   /* that row alone */
    dataset_free(ds);
}

static void test_hostile(void) {
    const char *t = pt_tmpdir("hostile");
    struct { const char *name, *text; size_t len; const char *want; } cases[] = {
        {"empty.csv", "", 0, "empty file"},
        {"header.csv", "step,loss\n", 10, "no value read"},
        {"nostep.csv", "epoch,loss\n1,2\n", 15, "no step column"},
        {"dump.json", "{\"task\": \"statistics\", \"data\": {}}\n", 36, "no step key"},
        {"odd.csv", "step,lo\0ss\n\x01\x02\xff,\x80\n", 18, "no value read"},
        {"cut.jsonl", "{\"step\": 1, \"lo", 15, "not a JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", t, cases[i].name);
        FILE *f = fopen(path, "wb");
        fwrite(cases[i].text, 1, cases[i].len, f);
        fclose(f);
        struct pt_error err;
        struct dataset *ds = load(path, 1, &err);
        char all[9000];
        snprintf(all, sizeof all, "%s\n%s", err.msg, said(ds));
        CHECK_CONTAINS(all, path);
        CHECK_CONTAINS(all, cases[i].want);
        dataset_free(ds);
    }
}

int main(void) {
    RUN(test_fixtures);
    RUN(test_detection);
    RUN(test_tensorboard_csv);
    RUN(test_bad_rows);
    RUN(test_many_columns);
    RUN(test_hostile);
    RUN(test_big_two_halves);
    PT_DONE();
}
