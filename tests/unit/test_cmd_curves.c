/* test_cmd_curves: `probetop curves` end to end, in process, on the CSV /
 * JSONL fixtures (tests/data/curves) and on generated pairs: the text, the
 * JSON (parsed and checked field by field), the CSV, the exit codes (0
 * aligned, 1 misaligned or more NaN/spike steps, 2 bad input), --threshold
 * and --window, and --dump against a dump root's rank folders. */
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "pt_test.h"
#include "src/cmd/cmd.h"

static char out_path[1200], err_path[1200];

static int run_cmd(const char **argv) {
    int argc = 0;
    while (argv[argc]) argc++;
    const char *t = getenv("PT_TMP") ? getenv("PT_TMP") : "/tmp/probetop-test";
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%.1200s'", t);   /* a fresh build tree has none of its parents yet */
    if (system(cmd) != 0) return -1;
    snprintf(out_path, sizeof out_path, "%s/curves.out", t);
    snprintf(err_path, sizeof err_path, "%s/curves.err", t);
    return pt_capture(out_path, err_path, cmd_curves_entry.run, argc, argv);
}

static cJSON *json_out(void) {
    char *s = pt_slurp(out_path);
    cJSON *j = s ? cJSON_Parse(s) : NULL;
    if (!j) fprintf(stderr, "not JSON:\n%s\n", s ? s : "(none)");
    free(s);
    return j;
}

static const char *fixture(const char *name) {
    static char buf[2][4096];
    static int k;
    const char *p = pt_checkout_file(name);
    if (!p) return NULL;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s", p);
    return buf[k];
}

/* A run of n steps as CSV: loss 8 exp(-s/60) + 2 times f(s), grad norm 1.5. */
static void write_run(const char *path, int n, double (*f)(int)) {
    FILE *o = fopen(path, "w");
    fprintf(o, "step,lm loss,grad norm\n");
    for (int s = 0; s < n; s++) fprintf(o, "%d,%.9g,%.9g\n", s, (8 * exp(-s / 60.0) + 2) * (f ? f(s) : 1), 1.5);
    fclose(o);
}

static double drift(int s) { return 1 + (s > 40 ? 0.0004 * (s - 40) : 0); }
static double off(int s) { (void)s; return 1.05; }

static double num(const cJSON *o, const char *k) {
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(i) ? i->valuedouble : -12345;
}
static const char *str(const cJSON *o, const char *k) {
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(i) ? i->valuestring : "(not a string)";
}

static void test_one_run_text(void) {
    const char *p = fixture("data/curves/megatron_run.csv");
    if (!p) SKIP("no checkout");
    const char *argv[] = {"curves", p, NULL};
    CHECK_INT(run_cmd(argv), 1);
    char *o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "verdict  nan_overflow: non-finite grad norm at step 12");
    CHECK_CONTAINS(o, "lm loss spike at 15");
    CHECK_CONTAINS(o, "dump     the backward of step 12");
    CHECK_CONTAINS(o, "came first: grad_norm");
    free(o);
}

static void test_aligned_json(void) {
    const char *p = fixture("data/curves/megatron_run.csv");
    if (!p) SKIP("no checkout");
    const char *argv[] = {"curves", p, p, "--format", "json", NULL};
    CHECK_INT(run_cmd(argv), 0);
    cJSON *j = json_out();
    CHECK(j != NULL);
    if (!j) return;
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "first_misaligned")));
    CHECK_STR(str(j, "verdict"), "aligned");
    CHECK_NEAR(num(j, "threshold"), 0.01, 0);
    CHECK_NEAR(num(j, "window"), 3, 0);
    const cJSON *pr = cJSON_GetObjectItem(j, "problem");
    CHECK_STR(str(pr, "format"), "curve_table");
    const cJSON *series = cJSON_GetObjectItem(pr, "series");
    CHECK_INT(cJSON_GetArraySize(series), 4);
    CHECK_STR(str(cJSON_GetArrayItem(series, 0), "name"), "lm loss");
    CHECK_STR(str(cJSON_GetArrayItem(series, 0), "role"), "loss");
    CHECK_NEAR(num(cJSON_GetArrayItem(series, 0), "points"), 19, 0);
    const cJSON *sp = cJSON_GetObjectItem(pr, "spikes");
    CHECK_INT(cJSON_GetArraySize(sp), 1);
    CHECK_NEAR(num(cJSON_GetArrayItem(sp, 0), "step"), 15, 0);
    CHECK_STR(str(cJSON_GetArrayItem(sp, 0), "kind"), "spike");
    const cJSON *nf = cJSON_GetObjectItem(pr, "nonfinite");
    CHECK_INT(cJSON_GetArraySize(nf), 1);
    CHECK_STR(str(cJSON_GetArrayItem(nf, 0), "series"), "grad norm");
    CHECK_STR(str(cJSON_GetArrayItem(nf, 0), "value"), "nan");
    CHECK_NEAR(num(pr, "nan_iterations"), 1, 0);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(pr, "skipped")));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(pr, "loss_scale_drops")), 1);
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(j, "bench")));
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "dump_next")), 0);
    CHECK_NEAR(num(cJSON_GetObjectItem(j, "error_growth"), "common_steps"), 19, 0);
    cJSON_Delete(j);
}

static void test_drift_json(void) {
    const char *t = pt_tmpdir("drift");
    char p[1200], b[1200];
    snprintf(p, sizeof p, "%s/p.csv", t);
    snprintf(b, sizeof b, "%s/b.csv", t);
    write_run(p, 120, drift);
    write_run(b, 120, NULL);
    const char *argv[] = {"curves", p, b, "--format=json", NULL};
    CHECK_INT(run_cmd(argv), 1);
    cJSON *j = json_out();
    if (!j) { CHECK(0); return; }
    const cJSON *fm = cJSON_GetObjectItem(j, "first_misaligned");
    CHECK_STR(str(fm, "series"), "lm loss");
    CHECK_NEAR(num(fm, "step"), 66, 0);   /* 0.0004 x 26 = 1.04 % */
    CHECK_NEAR(num(fm, "rel_err"), 0.0104, 1e-6);
    CHECK_STR(str(j, "verdict"), "long_term_drift");
    const cJSON *g = cJSON_GetObjectItem(j, "error_growth");
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(g, "from_start")));
    CHECK_NEAR(num(g, "last"), 0.0004 * 79, 1e-6);
    const cJSON *d = cJSON_GetObjectItem(j, "dump_next");
    CHECK_INT(cJSON_GetArraySize(d), 2);
    CHECK_NEAR(num(cJSON_GetArrayItem(d, 0), "step"), 66, 0);
    cJSON_Delete(j);
    /* --threshold 5: aligned (0.0004 x 79 = 3.2 % at most) */
    const char *a2[] = {"curves", p, b, "--threshold", "5%", "--format", "json", NULL};
    CHECK_INT(run_cmd(a2), 0);
    /* --threshold 1.9 --window 1: from step 88 (0.0004 x 48 = 1.92 %) */
    const char *a3[] = {"curves", p, b, "--threshold", "1.9", "--window", "1", "--format", "json", NULL};
    CHECK_INT(run_cmd(a3), 1);
    j = json_out();
    if (!j) { CHECK(0); return; }
    CHECK_NEAR(num(cJSON_GetObjectItem(j, "first_misaligned"), "step"), 88, 0);
    CHECK_NEAR(num(j, "threshold"), 0.019, 1e-12);
    CHECK_NEAR(num(j, "window"), 1, 0);
    cJSON_Delete(j);
}

/* JSONL runs, misaligned from step 0; and --dump against a dump root */
static void test_from_start_dump(void) {
    const char *t = pt_tmpdir("start");
    char p[1200], b[1200], dump[1200], f[1400];
    snprintf(p, sizeof p, "%s/p.csv", t);
    snprintf(b, sizeof b, "%s/b.jsonl", t);
    write_run(p, 30, off);
    FILE *o = fopen(b, "w");
    for (int s = 0; s < 30; s++) fprintf(o, "{\"step\": %d, \"loss\": %.9g}\n", s, 8 * exp(-s / 60.0) + 2);
    fclose(o);
    snprintf(dump, sizeof dump, "%s/dump", t);
    for (int r = 0; r < 2; r++) {
        snprintf(f, sizeof f, "mkdir -p '%s/step0/rank%d' '%s/step5/rank0'", dump, r, dump);
        CHECK_INT(system(f), 0);
        snprintf(f, sizeof f, "%s/step0/rank%d/dump.json", dump, r);
        pt_write(f, "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {}}");
    }
    snprintf(f, sizeof f, "%s/step5/rank0/dump.json", dump);
    pt_write(f, "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {}}");
    const char *argv[] = {"curves", p, b, "--format", "json", "--dump", dump, NULL};
    CHECK_INT(run_cmd(argv), 1);
    cJSON *j = json_out();
    if (!j) { CHECK(0); return; }
    CHECK_STR(str(j, "verdict"), "misaligned_from_start");
    CHECK_NEAR(num(cJSON_GetObjectItem(j, "first_misaligned"), "step"), 0, 0);
    CHECK_NEAR(num(cJSON_GetObjectItem(j, "first_misaligned"), "rel_err"), 0.05, 1e-6);
    CHECK_STR(str(cJSON_GetObjectItem(j, "first_misaligned"), "bench_series"), "loss");
    CHECK_STR(str(j, "dump_root"), dump);
    const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "dump_next"), 0);
    CHECK_NEAR(num(d, "step"), 0, 0);
    CHECK_STR(str(d, "pass"), "forward");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(d, "in_dump")));
    CHECK_NEAR(num(d, "rank_dirs"), 2, 0);
    CHECK_STR(str(cJSON_GetObjectItem(j, "bench"), "format"), "curve_table");
    cJSON_Delete(j);
    /* text says it too; a folder with no step folder is refused */
    const char *a2[] = {"curves", p, b, "--dump", dump, NULL};
    CHECK_INT(run_cmd(a2), 1);
    char *s = pt_slurp(out_path);
    CHECK_CONTAINS(s, "first misaligned step: 0");
    CHECK_CONTAINS(s, "(2 rank folders)");
    free(s);
    const char *a3[] = {"curves", p, b, "--dump", t, NULL};
    CHECK_INT(run_cmd(a3), 2);
    s = pt_slurp(err_path);
    CHECK_CONTAINS(s, "not a dump root");
    free(s);
    /* csv */
    const char *a4[] = {"curves", p, b, "--format", "csv", NULL};
    CHECK_INT(run_cmd(a4), 1);
    s = pt_slurp(out_path);
    CHECK_CONTAINS(s, "kind,run,series,step,value,detail\nfirst_misaligned,problem,\"lm loss\",0,0.05");
    CHECK_CONTAINS(s, "dump_next,,,0,forward,");
    free(s);
}

static void test_bad_input(void) {
    const char *t = pt_tmpdir("bad");
    char p[1200], nope[1200];
    snprintf(p, sizeof p, "%s/p.csv", t);
    snprintf(nope, sizeof nope, "%s/nope.csv", t);
    write_run(p, 10, NULL);
    const char *a1[] = {"curves", nope, NULL};
    CHECK_INT(run_cmd(a1), 2);
    const char *a2[] = {"curves", p, "--format", "xml", NULL};
    CHECK_INT(run_cmd(a2), 2);
    const char *a3[] = {"curves", p, p, p, NULL};
    CHECK_INT(run_cmd(a3), 2);
    char *s = pt_slurp(err_path);
    CHECK_CONTAINS(s, "one too many");
    free(s);
    const char *a4[] = {"curves", p, "--window", "0", NULL};
    CHECK_INT(run_cmd(a4), 2);
    const char *a5[] = {"curves", p, "--threshold", "-1", NULL};
    CHECK_INT(run_cmd(a5), 2);
    const char *a6[] = {"curves", p, "--bogus", NULL};
    CHECK_INT(run_cmd(a6), 2);
    const char *a7[] = {"curves", NULL};
    CHECK_INT(run_cmd(a7), 2);
    /* a dump is no training curves */
    const char *d = fixture("data/msprobe/examples/quick_start/gpu_dump");
    if (d) {
        const char *a8[] = {"curves", d, NULL};
        CHECK_INT(run_cmd(a8), 2);
        s = pt_slurp(err_path);
        CHECK_CONTAINS(s, "not training curves");
        free(s);
    }
    /* an empty file: 2, naming it */
    char e[1200];
    snprintf(e, sizeof e, "%s/empty.csv", t);
    pt_write(e, "");
    const char *a9[] = {"curves", p, e, NULL};
    CHECK_INT(run_cmd(a9), 2);
    s = pt_slurp(err_path);
    CHECK_CONTAINS(s, "empty.csv");
    free(s);
    /* a series named with control bytes: none reaches the output, in any format */
    char h[1200];
    snprintf(h, sizeof h, "%s/ctl.csv", t);
    pt_write(h, "step,lo\x1b]0;x\x07ss,grad\x9bnorm\n1,2,inf\n2,2,1\n");
    const char *fm[] = {"text", "csv", "json"};
    for (int k = 0; k < 3; k++) {
        const char *a11[] = {"curves", h, "--format", fm[k], NULL};
        CHECK_INT(run_cmd(a11), 1);   /* the inf */
        s = pt_slurp(out_path);
        CHECK(s && !strchr(s, '\x1b') && !strchr(s, '\x07') && !strstr(s, "\x9b"));
        free(s);
    }
    /* a clean run alone: 0 */
    const char *a10[] = {"curves", p, NULL};
    CHECK_INT(run_cmd(a10), 0);
    s = pt_slurp(out_path);
    CHECK_CONTAINS(s, "verdict  clean");
    free(s);
}

int main(void) {
    RUN(test_one_run_text);
    RUN(test_aligned_json);
    RUN(test_drift_json);
    RUN(test_from_start_dump);
    RUN(test_bad_input);
    PT_DONE();
}
