/* test_cmd_report: `probetop report` end to end, in process: the sections
 * and their key values equal to what `overflow` and `compare --first` print
 * for the same input (the quick_start step0/step1 pair, the nonfinite
 * monitor tree), the breakdown `trace` prints (a trace fixture), the verdict
 * `curves` gives (tests/data/curves), the exit codes (0 clean, 1 findings, 2 bad input), and
 * --out written whole through a renamed temporary file (none left behind;
 * an unwritable folder is an error). */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "pt_test.h"
#include "src/cmd/cmd.h"

static char out_path[1200], err_path[1200];

static int run_entry(const struct cmd_entry *e, const char **argv) {
    int argc = 0;
    while (argv[argc]) argc++;
    const char *t = getenv("PT_TMP") ? getenv("PT_TMP") : "/tmp/probetop-test";
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%.1200s'", t);
    if (system(cmd) != 0) return -1;
    snprintf(out_path, sizeof out_path, "%s/report.out", t);
    snprintf(err_path, sizeof err_path, "%s/report.err", t);
    return pt_capture(out_path, err_path, e->run, argc, argv);
}

static char *copy(const char *s) {
    char *c = malloc(strlen(s) + 1);
    strcpy(c, s);
    return c;
}

/* The quick_start pair: the first divergence as compare --first gives it. */
static void test_pair(void) {
    const char *a = pt_fixture("examples/quick_start/gpu_dump/step0");
    const char *b = pt_fixture("examples/quick_start/gpu_dump/step1");
    if (!a || !b) SKIP("quick_start fixtures absent");
    char *pa = copy(a), *pb = copy(b);
    const char *c[] = {"compare", pa, pb, "--first", NULL};
    CHECK_INT(run_entry(&cmd_compare_entry, c), 1);
    char *first = pt_slurp(out_path);
    CHECK_CONTAINS(first, "Functional.linear.0.forward\terror\tstep 0\trank 0\tworst relative error 74.3392%\tmicro step 0"
                          "\tin Module.fc.Linear.forward.0");
    const char *r[] = {"report", pa, pb, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r), 1);
    char *o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "## What was read");
    CHECK_CONTAINS(o, "| dump | 1 | 1 | 1 | 0 | 0 | 0 |");
    CHECK_CONTAINS(o, "## NaN/Inf");
    CHECK_CONTAINS(o, "| 0 | 0 | 0 |\n\nNo NaN or Inf found.");
    CHECK_CONTAINS(o, "## First divergence");
    CHECK_CONTAINS(o, "| `Functional.linear.0.forward` | error | 0 | 0 | 0 | 74.3392% | `Module.fc.Linear.forward.0` |");
    CHECK_CONTAINS(o, " --first`");
    CHECK_CONTAINS(o, "Reproduce: `probetop compare ");
    CHECK_CONTAINS(o, "findings (exit 1)");
    free(o);
    free(first);
    /* the run alone: clean */
    const char *r1[] = {"report", pa, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r1), 0);
    o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "clean (exit 0)");
    CHECK(!strstr(o, "## First divergence"));
    free(o);
    free(pa);
    free(pb);
}

/* The monitor tree with NaN/Inf: the first occurrence overflow prints. */
static void test_monitor(void) {
    const char *p = pt_checkout_file("data/nonfinite/monitor");
    if (!p) SKIP("no checkout");
    char *pp = copy(p);
    const char *ov[] = {"overflow", pp, NULL};
    CHECK_INT(run_entry(&cmd_overflow_entry, ov), 1);
    char *t = pt_slurp(out_path);
    CHECK_CONTAINS(t, "counts: nonfinite 44");
    CHECK_CONTAINS(t, "first occurrence: non-finite at step 1 micro step 0, rank 1, position 29\n"
                      "  module.module.decoder.layers.0.mlp.linear_fc1.output_0\n"
                      "  actv norm=inf, min=-inf, max=inf, mean=nan");
    const char *r[] = {"report", pp, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r), 1);
    char *o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "| monitor | 2 | 2 | 8 | 0 | 0 | 0 |");
    CHECK_CONTAINS(o, "| non-finite cells |\n|--:|\n| 44 |");
    CHECK_CONTAINS(o, "| non-finite | 1 | 0 | 1 | 29 | `module.module.decoder.layers.0.mlp.linear_fc1.output_0` | "
                      "actv norm=inf, min=-inf, max=inf, mean=nan |");
    CHECK_CONTAINS(o, "Reproduce: `probetop overflow ");
    CHECK_CONTAINS(o, "findings (exit 1)");
    free(o);
    free(t);
    free(pp);
}

/* A profiler trace: the breakdown and stragglers `trace` prints. */
static void test_trace(void) {
    const char *p = pt_checkout_file("data/traces/hta/nccl_2rank");
    if (!p) SKIP("no checkout");
    char *pp = copy(p);
    const char *t[] = {"trace", pp, NULL};
    CHECK_INT(run_entry(&cmd_trace_entry, t), 0);
    char *o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "   0       435586       338781  77.78        75169  17.26          21636   4.97    14.31     2516");
    CHECK_CONTAINS(o, "4                 0       205606       205606            0     0.00      1");
    free(o);
    const char *r[] = {"report", pp, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r), 0);
    o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "## Trace breakdown");
    CHECK_CONTAINS(o, "| 0 | 435586 | 338781 | 77.78 | 75169 | 17.26 | 21636 | 4.97 | 14.31 | 2516 |");
    CHECK_CONTAINS(o, "| 4 | 0 | 205606 | 205606 | 0 | 0.00 | 1 |");
    CHECK_CONTAINS(o, "Reproduce: `probetop trace ");
    CHECK_CONTAINS(o, "clean (exit 0)");
    free(o);
    free(pp);
}

/* --curves: the verdict and dump_next `curves` gives. */
static void test_curves(void) {
    const char *m = pt_checkout_file("data/nonfinite/monitor");
    const char *c = pt_checkout_file("data/curves/megatron_run.csv");
    if (!m || !c) SKIP("no checkout");
    char *pm = copy(m), *pc = copy(c);
    const char *cv[] = {"curves", pc, NULL};
    CHECK_INT(run_entry(&cmd_curves_entry, cv), 1);
    char *o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "verdict  nan_overflow: non-finite grad norm at step 12");
    CHECK_CONTAINS(o, "dump     the backward of step 12");
    free(o);
    const char *r[] = {"report", pm, "--curves", pc, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r), 1);
    o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "## Training curves");
    CHECK_CONTAINS(o, "| nan_overflow | 12 | non-finite grad norm at step 12");
    CHECK_CONTAINS(o, "Dump next: the backward of step 12.");
    CHECK_CONTAINS(o, "Reproduce: `probetop curves ");
    free(o);
    /* the curves file as RUN: its own verdict */
    const char *r2[] = {"report", pc, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r2), 1);
    o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "| nan_overflow | 12 |");
    free(o);
    /* --curves-bench without --curves; --curves on a path without curves */
    const char *r3[] = {"report", pm, "--curves-bench", pc, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r3), 2);
    const char *r4[] = {"report", pm, "--curves", pm, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r4), 2);
    free(pm);
    free(pc);
}

/* From the line beginning "origin across ranks" to the end of text. */
static const char *chain(const char *text) {
    const char *c = text ? strstr(text, "origin across ranks, step") : NULL;
    return c ? c : "(no chain)";
}

/* A generated 2-rank pipeline run with a NaN born on rank 0 that reaches
 * rank 1 through a recv: the first occurrence, its chain and the first
 * divergence as overflow and compare --first print them. */
static void test_generated_nan_pair(void) {
    const char *dir = pt_tmpdir("report-gen");
    char d[1100], p[1200], b[1200];
    if (!dir) SKIP("no scratch folder");
    snprintf(d, sizeof d, "%s", dir);
    if (pt_gen_pair(d, "--steps 2 --ranks 2 --layers 4 --pp 2", "--nan 1:0:layers.0.mlp", p, b, sizeof p) != 0)
        SKIP("gen_dump.py unavailable");
    const char *ov[] = {"overflow", p, NULL};
    CHECK_INT(run_entry(&cmd_overflow_entry, ov), 1);
    char *t = pt_slurp(out_path);
    CHECK_CONTAINS(t, "first occurrence: critical at step 1 micro step 0, rank 0, position 33 (born here: origin across ranks)\n"
                      "  Functional.linear.2.forward\n");
    const char *cf[] = {"compare", p, b, "--first", NULL};
    CHECK_INT(run_entry(&cmd_compare_entry, cf), 1);
    char *c = pt_slurp(out_path);
    CHECK_CONTAINS(c, "Functional.linear.2.forward\terror\tstep 1\trank 0\tworst relative error inf%\tmicro step 0\t");
    const char *r[] = {"report", p, b, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r), 1);
    char *o = pt_slurp(out_path);
    CHECK_CONTAINS(o, "| critical | 1 | 0 | 0 | 33 | `Functional.linear.2.forward` | out.0 Max=nan |");
    CHECK_CONTAINS(o, "| `Functional.linear.2.forward` | error | 1 | 0 | 0 | inf% | `Module.");
    CHECK_CONTAINS(o, "4 (step, rank) pairs compared");
    CHECK_CONTAINS(o, chain(t));   /* overflow's chain, verbatim */
    CHECK_CONTAINS(o, chain(c));   /* compare --first's */
    CHECK_CONTAINS(o, "-> rank 1");
    free(o);
    free(c);
    free(t);
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* --out: the whole report, no temporary file left; unwritable: exit 2. */
static void test_out(void) {
    const char *p = pt_checkout_file("data/nonfinite/monitor");
    if (!p) SKIP("no checkout");
    char *pp = copy(p);
    const char *dir = pt_tmpdir("report-out");
    char d[1100], f[1200], old[1200];
    snprintf(d, sizeof d, "%s", dir);
    snprintf(f, sizeof f, "%s/ticket.md", d);
    const char *r[] = {"report", pp, "--out", f, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r), 1);
    char *o = pt_slurp(out_path), *w = pt_slurp(f);
    CHECK(o && o[0] == '\0');   /* nothing on stdout */
    CHECK_CONTAINS(w, "# probetop report: ");
    CHECK_CONTAINS(w, "findings (exit 1)");
    CHECK_INT(count_entries(d), 1);
    free(o);
    free(w);
    /* over an existing file: replaced whole */
    CHECK_INT(pt_write(f, "old"), 0);
    CHECK_INT(run_entry(&cmd_report_entry, r), 1);
    w = pt_slurp(f);
    CHECK_CONTAINS(w, "## Verdict");
    free(w);
    CHECK_INT(count_entries(d), 1);
    /* a folder that does not exist, and one that cannot be written */
    snprintf(f, sizeof f, "%s/nowhere/ticket.md", d);
    const char *r2[] = {"report", pp, "--out", f, NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r2), 2);
    char *e = pt_slurp(err_path);
    CHECK_CONTAINS(e, "cannot write");
    free(e);
    snprintf(old, sizeof old, "%s/ro", d);
    CHECK_INT(mkdir(old, 0555), 0);
    snprintf(f, sizeof f, "%s/ticket.md", old);
    const char *r3[] = {"report", pp, "--out", f, NULL};
    if (access(old, W_OK) == 0) {
        fprintf(stderr, "root: the read-only folder is writable, not checked\n");
    } else {
        CHECK_INT(run_entry(&cmd_report_entry, r3), 2);
        CHECK_INT(count_entries(old), 0);
    }
    chmod(old, 0755);
    free(pp);
}

static void test_bad_input(void) {
    const char *r[] = {"report", NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r), 2);
    const char *r2[] = {"report", "/nonexistent/run", NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r2), 2);
    const char *r3[] = {"report", "a", "b", "c", NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r3), 2);
    const char *r4[] = {"report", "a", "--bogus", NULL};
    CHECK_INT(run_entry(&cmd_report_entry, r4), 2);
}

int main(void) {
    RUN(test_pair);
    RUN(test_monitor);
    RUN(test_generated_nan_pair);
    RUN(test_trace);
    RUN(test_curves);
    RUN(test_out);
    RUN(test_bad_input);
    PT_DONE();
}
