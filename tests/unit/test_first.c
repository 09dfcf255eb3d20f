/* One answer to "where did it first go wrong?" (probetop-rules(7), FIRST
 * DIVERGENCE and ORIGIN ACROSS RANKS): on the same generated pairs, the
 * compare headline, `compare --first` (line 1 and the origin block), the
 * run summary (the scan and cmp_origin_first, what the summary pane and `f`
 * show), and `overflow` (text headline, json first) name the same step,
 * micro step, rank and node.
 *
 * The pairs:
 *  - TP 2 x PP 2 x DP 2, a NaN born on rank 5 (Functional.linear.6.forward,
 *    step 2) that reaches rank 1 first through a recv (msProbe's
 *    overflow_check names rank_1 Distributed.recv.0.forward: the receiver);
 *  - an uneven pipeline (3 + 1 layers), the NaN born on rank 0, where rank
 *    1's GPTModel record comes first by position;
 *  - tests/gen_origin.py warn: a 150% relative error that is only a warning
 *    on rank 0, the error born on rank 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include "model/compare/compare_run.h"
#include "pt_test.h"
#include "src/cmd/cmd.h"
#include "src/io/compare/cmp_origin.h"
#include "src/io/compare/cmp_scan.h"

static char gen_origin[4096];

struct answer {
    int step, micro, rank;
    char name[256];
};

static int same(const char *what, const struct answer *got, const struct answer *want) {
    int ok = got->step == want->step && got->micro == want->micro && got->rank == want->rank &&
             !strcmp(got->name, want->name);
    if (!ok)
        fprintf(stderr, "%s: step %d micro %d rank %d %s, want step %d micro %d rank %d %s\n", what, got->step,
                got->micro, got->rank, got->name, want->step, want->micro, want->rank, want->name);
    return ok;
}

/* The line of txt starting with prefix, NULL none. */
static const char *line_at(const char *txt, const char *prefix) {
    for (const char *p = txt; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, prefix, strlen(prefix))) return p;
    return NULL;
}

static int run_cmd(const struct cmd_entry *c, const char *dir, int argc, const char **argv, char **txt) {
    char out[1200], errf[1200];
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    int rc = pt_capture(out, errf, c->run, argc, argv);
    *txt = pt_slurp(out);
    return rc;
}

/* compare's headline, --first's line 1 and its "born on" line. */
static void check_compare(const char *dir, const char *npu, const char *bench, const struct answer *want) {
    char *txt = NULL;
    struct answer a = {0};
    const char *argv[] = {"compare", npu, bench, "--first", NULL};
    run_cmd(&cmd_compare_entry, dir, 4, argv, &txt);
    CHECK(txt && sscanf(txt, "%255[^\t]\t%*[^\t]\tstep %d\trank %d\t%*[^\t]\tmicro step %d", a.name, &a.step, &a.rank,
                        &a.micro) == 4);
    CHECK(same("compare --first line 1", &a, want));
    const char *b = txt ? strstr(txt, "  born on rank ") : NULL;
    memset(&a, 0, sizeof a);
    CHECK(b && sscanf(b, "  born on rank %d micro step %d, position %*u: %255s", &a.rank, &a.micro, a.name) == 3);
    a.step = want->step;   /* the block's step is its heading's */
    CHECK(txt && strstr(txt, "origin across ranks, step ") &&
          atoi(strstr(txt, "origin across ranks, step ") + 26) == want->step);
    CHECK(same("compare --first origin", &a, want));
    free(txt);

    const char *argv2[] = {"compare", npu, bench, NULL};
    run_cmd(&cmd_compare_entry, dir, 3, argv2, &txt);
    const char *h = line_at(txt, "first divergence: ");
    memset(&a, 0, sizeof a);
    CHECK(h && sscanf(h, "first divergence: %255s", a.name) == 1);
    const char *at = h ? strstr(h, ") at step ") : NULL;
    CHECK(at && sscanf(at, ") at step %d, micro step %d, rank %d", &a.step, &a.micro, &a.rank) == 3);
    CHECK(same("compare headline", &a, want));
    free(txt);
}

/* The run summary as the compare screen has it: every pair scanned, then
 * cmp_origin_first (the summary's first-divergence line and `f`). */
static void check_summary(const char *npu, const char *bench, int nsteps, int nranks, int stepdirs,
                          const struct answer *want) {
    size_t n = (size_t)(nsteps * nranks);
    struct cmp_scan_pair *pairs = calloc(n, sizeof *pairs);
    struct compare_run_pair *sum = calloc(n, sizeof *sum);
    char (*dirs)[2][1200] = calloc(n, sizeof *dirs);
    if (!pairs || !sum || !dirs) {
        CHECK(!"out of memory");
        free(pairs), free(sum), free(dirs);
        return;
    }
    for (int s = 0; s < nsteps; s++)
        for (int r = 0; r < nranks; r++) {
            size_t i = (size_t)(s * nranks + r);
            for (int k = 0; k < 2; k++) {
                const char *root = k ? bench : npu;
                if (stepdirs) snprintf(dirs[i][k], sizeof dirs[i][k], "%s/step%d/rank%d", root, s, r);
                else snprintf(dirs[i][k], sizeof dirs[i][k], "%s/rank%d", root, r);
            }
            pairs[i] = (struct cmp_scan_pair){s, r, {dirs[i][0], dirs[i][1]}};
        }
    struct cmp_scan_opts o = {.threads = 2};
    cmp_scan_run(pairs, n, sum, &o);
    struct compare_run_first f;
    struct pt_error err;
    int which;
    long k = cmp_origin_first(pairs, n, sum, 0, 0, NULL, &which, &f, &err);
    CHECK_STR(err.msg, "");
    CHECK(k >= 0 && f.have);
    if (k >= 0 && f.have) {
        struct answer a = {f.at.step, f.at.micro, f.at.rank, ""};
        snprintf(a.name, sizeof a.name, "%s", f.name);
        CHECK(same("summary", &a, want));
        CHECK_INT(sum[k].rank, want->rank);
    }
    compare_run_first_free(&f);
    for (size_t i = 0; i < n; i++) compare_run_pair_clear(&sum[i]);
    free(pairs);
    free(sum);
    free(dirs);
}

/* overflow's text headline and json first. */
static void check_overflow(const char *dir, const char *npu, const struct answer *want) {
    char *txt = NULL;
    struct answer a = {0};
    const char *argv[] = {"overflow", npu, NULL};
    run_cmd(&cmd_overflow_entry, dir, 2, argv, &txt);
    const char *h = line_at(txt, "first occurrence: ");
    CHECK(h && sscanf(h, "first occurrence: %*s at step %d micro step %d, rank %d, position %*u (born here: origin",
                      &a.step, &a.micro, &a.rank) == 3);
    CHECK(h && strchr(h, '\n') && sscanf(strchr(h, '\n') + 1, " %255s", a.name) == 1);
    CHECK(same("overflow headline", &a, want));
    /* the first listed row is the origin too */
    const char *row = line_at(txt, "  level ");
    row = row ? strchr(row, '\n') + 1 : NULL;
    CHECK(row && strstr(row, want->name) && strstr(row, want->name) < strchr(row, '\n'));
    free(txt);
    const char *argv2[] = {"overflow", npu, "--format", "json", NULL};
    run_cmd(&cmd_overflow_entry, dir, 4, argv2, &txt);
    cJSON *root = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "first");
    CHECK(f != NULL && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "first_is_origin")));
    if (f) {
        memset(&a, 0, sizeof a);
        a.step = cJSON_GetObjectItemCaseSensitive(f, "step")->valueint;
        a.micro = cJSON_GetObjectItemCaseSensitive(f, "micro_step")->valueint;
        a.rank = cJSON_GetObjectItemCaseSensitive(f, "rank")->valueint;
        snprintf(a.name, sizeof a.name, "%s", cJSON_GetObjectItemCaseSensitive(f, "name")->valuestring);
        CHECK(same("overflow json first", &a, want));
        const cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "entries"), 0);
        CHECK(e0 && !strcmp(cJSON_GetObjectItemCaseSensitive(e0, "name")->valuestring, want->name));
    }
    cJSON_Delete(root);
    free(txt);
}

static int gen_dump_pair(const char *d, const char *args, const char *nan) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s/bench' %s --quiet && "
             "'%s' '%s/tools/gen_dump.py' --out '%s/npu' %s --nan %s --quiet",
             py, s, d, args, py, s, d, args, nan);
    return system(cmd);
}

#define SMALL "--hidden 64 --heads 4 --ffn 128 --seq 16 --vocab 256"

static void test_tp_pp_dp_recv(void) {
    const char *py = getenv("PT_PYTHON");
    if (!py || !py[0] || !pt_shared()) SKIP("no python or shared tools");
    const char *dir = pt_tmpdir("first_tppp");
    char d[1100], npu[1200], bench[1200];
    snprintf(d, sizeof d, "%s", dir);
    if (gen_dump_pair(d, "--steps 3 --ranks 8 --layers 4 --tp 2 --pp 2 --micro-batches 2 " SMALL,
                      "2:5:Functional.linear.6.") != 0)
        SKIP("gen_dump.py failed");
    snprintf(npu, sizeof npu, "%s/npu", d);
    snprintf(bench, sizeof bench, "%s/bench", d);
    struct answer want = {2, 0, 5, "Functional.linear.6.forward"};
    check_compare(d, npu, bench, &want);
    check_summary(npu, bench, 3, 8, 1, &want);
    check_overflow(d, npu, &want);
}

static void test_uneven_pipeline(void) {
    const char *py = getenv("PT_PYTHON");
    if (!py || !py[0] || !pt_shared()) SKIP("no python or shared tools");
    const char *dir = pt_tmpdir("first_uneven");
    char d[1100], npu[1200], bench[1200];
    snprintf(d, sizeof d, "%s", dir);
    if (gen_dump_pair(d, "--steps 1 --ranks 2 --pp 2 --layers 4 --pp-layers 3,1 " SMALL, "0:0:Functional.linear.10.") != 0)
        SKIP("gen_dump.py failed");
    snprintf(npu, sizeof npu, "%s/npu", d);
    snprintf(bench, sizeof bench, "%s/bench", d);
    struct answer want = {0, 0, 0, "Functional.linear.10.forward"};
    check_compare(d, npu, bench, &want);
    check_summary(npu, bench, 1, 2, 1, &want);
    check_overflow(d, npu, &want);
    /* the first record by position stays, labelled */
    char *txt = NULL;
    const char *argv[] = {"overflow", npu, NULL};
    run_cmd(&cmd_overflow_entry, d, 2, argv, &txt);
    CHECK_CONTAINS(txt, "first record by position: critical at step 0 micro step 0, rank 1, position 51\n"
                        "  Module.module.module.GPTModel.forward.0\n");
    free(txt);
}

static void test_warning_not_born(void) {
    const char *py = getenv("PT_PYTHON");
    if (!py || !py[0]) SKIP("no python");
    const char *dir = pt_tmpdir("first_warn");
    char d[1100], npu[1200], bench[1200], cmd[9000];
    snprintf(d, sizeof d, "%s", dir);
    snprintf(npu, sizeof npu, "%s/npu", d);
    snprintf(bench, sizeof bench, "%s/bench", d);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' --as drift warn && '%s' '%s' --out '%s' --as clean warn", py,
             gen_origin, npu, py, gen_origin, bench);
    if (system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return;
    }
    struct answer want = {0, 0, 1, "Functional.gelu.0.forward"};
    check_compare(d, npu, bench, &want);
    check_summary(npu, bench, 1, 2, 0, &want);
    /* rank 0's warning is no birth: one origin only */
    char *txt = NULL;
    const char *argv[] = {"compare", npu, bench, "--first", NULL};
    run_cmd(&cmd_compare_entry, d, 4, argv, &txt);
    CHECK(txt && !strstr(txt, "born on rank 0"));
    free(txt);
}

int main(void) {
    snprintf(gen_origin, sizeof gen_origin, "%s", __FILE__);
    char *slash = strstr(gen_origin, "/unit/test_first.c");
    if (slash) strcpy(slash, "/gen_origin.py");
    RUN(test_tp_pp_dp_recv);
    RUN(test_uneven_pipeline);
    RUN(test_warning_not_born);
    PT_DONE();
}
