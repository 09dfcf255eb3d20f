/* test_util_rankdirs: the one rank-folder scanner (model/util/rankdirs.h):
 * its numbering rule, its notes, and that `info` (the dump reader) and
 * `compare` (the graph reader) give one folder the same number. */
#include "pt_test.h"

#include "model/util/rankdirs.h"
#include "src/io/load.h"
#include "src/io/dump/read_graph.h"

#define TEN "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"Max\":1.0,\"Min\":0.0," \
            "\"Mean\":0.5,\"Norm\":1.0,\"requires_grad\":false}"

/* root/step<S>/<folder>/dump.json with one record (no dump.json when empty) */
static int write_folder(const char *root, int step, const char *folder, int with_dump) {
    char d[1400], p[1500];
    mkdir(root, 0755);
    snprintf(d, sizeof d, "%s/step%d", root, step);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/step%d/%s", root, step, folder);
    mkdir(d, 0755);
    if (!with_dump) return 0;
    snprintf(p, sizeof p, "%s/dump.json", d);
    return pt_write(p, "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\",\"data\":{"
                       "\"Module.fc.Linear.forward.0\":{\"input_args\":[" TEN "],\"output\":[" TEN "]}}}");
}

struct notes { int n, skipped; char last[512]; };

static int note(void *ctx, const char *path, const char *why, int skipped) {
    struct notes *ns = ctx;
    ns->n++;
    ns->skipped += skipped;
    snprintf(ns->last, sizeof ns->last, "%s: %s", path, why);
    return 0;
}

static const char *base(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void test_rule(void) {
    const char *root = pt_tmpdir("rankdirs_rule");
    CHECK_INT(write_folder(root, 2, "rank3", 1), 0);
    CHECK_INT(write_folder(root, 2, "rank0", 1), 0);
    CHECK_INT(write_folder(root, 2, "proc900", 1), 0);
    CHECK_INT(write_folder(root, 2, "proc77", 1), 0);
    CHECK_INT(write_folder(root, 2, "rank5", 0), 0);        /* no dump.json */
    CHECK_INT(write_folder(root, 2, "rankX", 1), 0);        /* no number */
    CHECK_INT(write_folder(root, 2, "other", 1), 0);        /* not a rank folder: not a note either */
    CHECK_INT(write_folder(root, 10, "proc5", 1), 0);       /* alone in its step: rank 0 */
    struct util_rankdirs d = {0};
    struct notes ns = {0};
    CHECK_INT(util_scan_root(root, &d, note, &ns), 2);
    CHECK_INT(d.n, 5);
    if (d.n == 5) {
        /* step 2: real ranks by number, then procs by pid after the largest rank */
        CHECK_INT(d.v[0].step, 2); CHECK_INT(d.v[0].rank, 0); CHECK_STR(base(d.v[0].dir), "rank0");
        CHECK_INT(d.v[1].step, 2); CHECK_INT(d.v[1].rank, 3); CHECK_STR(base(d.v[1].dir), "rank3");
        CHECK_INT(d.v[2].step, 2); CHECK_INT(d.v[2].rank, 4); CHECK_STR(base(d.v[2].dir), "proc77");
        CHECK_INT(d.v[3].step, 2); CHECK_INT(d.v[3].rank, 5); CHECK_STR(base(d.v[3].dir), "proc900");
        /* step 10 after step 2 (numbers, not names) */
        CHECK_INT(d.v[4].step, 10); CHECK_INT(d.v[4].rank, 0); CHECK_STR(base(d.v[4].dir), "proc5");
    }
    CHECK_INT(ns.n, 2);
    CHECK_INT(ns.skipped, 2);
    util_rankdirs_free(&d);
    CHECK_INT(d.n, 0);
    /* without a note callback: the same folders */
    CHECK_INT(util_scan_root(root, &d, NULL, NULL), 2);
    CHECK_INT(d.n, 5);
    util_rankdirs_free(&d);
}

static void test_notes(void) {
    const char *root = pt_tmpdir("rankdirs_notes");
    char step[1200];
    CHECK_INT(write_folder(root, 0, "rank1", 0), 0);
    snprintf(step, sizeof step, "%s/step0", root);
    struct util_rankdirs d = {0};
    struct notes ns = {0};
    CHECK_INT(util_scan_step(step, 0, &d, note, &ns), 0);
    CHECK_INT(d.n, 0);
    CHECK_INT(ns.n, 1);
    CHECK_CONTAINS(ns.last, "step0/rank1: no dump.json");
    /* a step folder that cannot be listed: noted, not skipped, not an error */
    memset(&ns, 0, sizeof ns);
    CHECK_INT(util_scan_step("/nonexistent/step0", 0, &d, note, &ns), 0);
    CHECK_INT(ns.n, 1);
    CHECK_INT(ns.skipped, 0);
    CHECK_CONTAINS(ns.last, "/nonexistent/step0: cannot list");
    /* no root: no steps */
    CHECK_INT(util_scan_root("/nonexistent", &d, note, &ns), 0);
    util_rankdirs_free(&d);    /* compare on nothing but skipped folders names the first */
    struct graph_dirs g;
    struct pt_error err;
    CHECK_INT(graph_scan(step, &g, &err), -1);
    CHECK_CONTAINS(err.msg, "no dump found: 1 rank folder(s) skipped, the first ");
    CHECK_CONTAINS(err.msg, "step0/rank1: no dump.json");
}

/* A procN folder beside rank3: `info` and `compare` once numbered it
 * differently (rank 4, rank 0); one scanner gives rank 4 to both. */
static void test_proc_beside_rank_info_and_compare(void) {
    const char *root = pt_tmpdir("rankdirs_proc");
    CHECK_INT(write_folder(root, 0, "rank3", 1), 0);
    CHECK_INT(write_folder(root, 0, "proc2016", 1), 0);
    char step[1200];
    snprintf(step, sizeof step, "%s/step0", root);
    const char *paths[] = {root, step};
    for (int k = 0; k < 2; k++) {
        struct load_opts lo;
        load_opts_init(&lo);
        struct dataset *ds = NULL;
        struct pt_error err;
        CHECK_INT(load_dataset(paths[k], &lo, &ds, &err), 0);
        if (!ds) { fprintf(stderr, "%s\n", err.msg); continue; }
        struct graph_dirs g;
        CHECK_INT(graph_scan(paths[k], &g, &err), 0);
        CHECK_INT(ds->nrankdirs, 2);
        CHECK_INT(g.n, 2);
        for (size_t i = 0; i < ds->nrankdirs && i < g.n; i++) {
            CHECK_STR(base(ds->rankdirs[i].dir), base(g.v[i].dir));
            CHECK_INT(ds->rankdirs[i].rank, g.v[i].rank);
            CHECK_INT(ds->rankdirs[i].step, g.v[i].step);
        }
        if (g.n == 2) {
            CHECK_STR(base(g.v[1].dir), "proc2016");
            CHECK_INT(g.v[1].rank, 4);
        }
        /* the cube `info` reports has ranks 3 and 4 */
        CHECK_INT(ds->cube->nranks, 2);
        if (ds->cube->nranks == 2) {
            CHECK_INT(ds->cube->ranks[0], 3);
            CHECK_INT(ds->cube->ranks[1], 4);
        }
        graph_dirs_free(&g);
        dataset_free(ds);
    }
}

/* the rank a profiler's file or folder names: the one rule both the trace and
 * the step-table readers use */
static void test_rank_in_name(void) {
    const char *s = "job_Rank-12_ascend_pt";
    CHECK_INT(util_rank_in_name(s, strlen(s), 1000000), 12);
    s = "rank_3.json";
    CHECK_INT(util_rank_in_name(s, strlen(s), 1000000), 3);
    s = "ranks_ascend_pt";   /* no digits after rank */
    CHECK_INT(util_rank_in_name(s, strlen(s), 1000000), -1);
    s = "rank99999999999_rank4";   /* too large: the next one counts */
    CHECK_INT(util_rank_in_name(s, strlen(s), (long)INT32_MAX + 1), 4);
    s = "rank1000000";
    CHECK_INT(util_rank_in_name(s, strlen(s), 1000000), -1);
    CHECK_INT(util_rank_in_name(s, strlen(s), 1000001), 1000000);
    s = "rank7";   /* only the first n bytes */
    CHECK_INT(util_rank_in_name(s, 4, 100), -1);

    const char *root = pt_tmpdir("rankdirs_profinfo");
    CHECK_INT(util_profiler_info_rank(root), -1);
    char p[1400];
    snprintf(p, sizeof p, "%s/profiler_info_.json", root);   /* no number: passed over */
    CHECK_INT(pt_write(p, "{}"), 0);
    snprintf(p, sizeof p, "%s/profiler_info_5.json", root);
    CHECK_INT(pt_write(p, "{}"), 0);
    CHECK_INT(util_profiler_info_rank(root), 5);
    CHECK_INT(util_profiler_info_rank("/nonexistent/x"), -1);
}

int main(void) {
    RUN(test_rule);
    RUN(test_notes);
    RUN(test_proc_beside_rank_info_and_compare);
    RUN(test_rank_in_name);
    PT_DONE();
}
