/* The origin rank across communication (model/overflow/origin.h), one test per rule,
 * on dumps tests/gen_origin.py writes, and on a gen_dump.py pipeline (when
 * the generator runs).  Expected values are msProbe's overflow_check
 * answers on the same files (msprobe overflow_check -i DIR -o OUT, the
 * anomaly_analyze_*.json op_name per rank), except where probetop parts
 * from it on purpose (man/probetop.1, "Origin across ranks"): there msProbe
 * names the op that received the NaN, which is our first hop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include "model/compare/compare.h"
#include "model/overflow/origin.h"
#include "model/overflow/origin_int.h"
#include "pt_test.h"
#include "src/cmd/cmd.h"
#include "src/io/dump/ovf_origin.h"
#include "src/io/dump/read_graph.h"

static char gen_path[4096];

static int have_python(void) {
    const char *py = getenv("PT_PYTHON");
    return py && py[0] && access(py, X_OK) == 0;
}

/* One loaded step: trees and flags of ranks 0..n-1. */
struct step {
    struct tree *t[8];
    uint8_t *f[8];
    struct origin_rank r[8];
    size_t n;
    struct origin_result res;
};

static void step_free(struct step *s) {
    for (size_t i = 0; i < s->n; i++) {
        tree_free(s->t[i]);
        free(s->f[i]);
    }
    origin_result_free(&s->res);
    memset(s, 0, sizeof *s);
}

/* Loads every rankN folder of dir and runs the rules; 0 ok. */
static int load_step(const char *dir, enum origin_rules rules, struct step *s) {
    memset(s, 0, sizeof *s);
    struct pt_error err = {{0}};
    for (int r = 0; r < 8; r++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/rank%d", dir, r);
        if (access(p, F_OK) != 0) break;
        if (graph_read(p, GRAPH_NO_STACK, &s->t[r], &err) != 0) {
            fprintf(stderr, "%s\n", err.msg);
            return -1;
        }
        s->t[r]->rank = r;
        s->f[r] = malloc(s->t[r]->nrecs + 1);
        origin_flags_nonfinite(s->t[r], s->f[r]);
        s->r[r] = (struct origin_rank){s->t[r], s->f[r]};
        s->n++;
    }
    if (origin_find(s->r, s->n, rules, &s->res, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static const char *rec(const struct step *s, int rank, int32_t r) {
    return rank >= 0 && r >= 0 ? tree_s(s->t[rank], s->t[rank]->recs[r].name) : "";
}

/* Generates a scenario and loads it; 0 ok, -1 skip/fail reported. */
static int scenario(const char *name, struct step *s) {
    const char *dir = pt_tmpdir(name);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' %s", getenv("PT_PYTHON"), gen_path, dir, name);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return -1;
    }
    if (load_step(dir, ORIGIN_OVERFLOW, s) != 0) {
        CHECK(!"load failed");
        return -1;
    }
    return 0;
}

/* The one origin, by rank and name. */
static void check_origin(const struct step *s, enum origin_phase phase, int rank, const char *name) {
    CHECK_INT(s->res.phase, phase);
    CHECK_INT(s->res.nhits, 1);
    if (s->res.nhits < 1) return;
    CHECK_INT(s->res.hits[0].rank, rank);
    CHECK_STR(rec(s, s->res.hits[0].rank, s->res.hits[0].rec), name);
}

/* The hop reaching rank `to`: 1 found (with from / names checked). */
static void check_hop(const struct step *s, int to, const char *to_name, int from, const char *from_name) {
    for (size_t i = 0; i < s->res.nhops; i++) {
        const struct origin_hop *h = &s->res.hops[i];
        if (h->to != to) continue;
        CHECK_STR(rec(s, h->to, h->to_rec), to_name);
        CHECK_INT(h->from, from);
        CHECK_STR(rec(s, h->from, h->from_rec), from_name);
        return;
    }
    CHECK(!"no hop to that rank");
}

#define NEED_PYTHON() do { if (!have_python()) SKIP("PT_PYTHON not set"); } while (0)

/* Rule: a compute op with normal inputs and an anomalous output starts it
 * (not the ops after it, whose inputs are already NaN); before any
 * communication each rank's first such op.  msProbe: rank_1
 * Functional.gelu.0.forward. */
static void test_compute_born(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("compute", &s) != 0) return;
    check_origin(&s, ORIGIN_BEFORE_COMM, 1, "Functional.gelu.0.forward");
    CHECK_INT(s.res.hits[0].rec, 2);
    CHECK_INT(s.res.nhops, 1);
    check_hop(&s, 0, "Distributed.all_reduce.0.forward", 1, "Distributed.all_reduce.0.forward");
    step_free(&s);
}

/* Rule: send/recv order the source before the destination, and the
 * receiver sees the NaN at an earlier position (3) of its own dump than the
 * birth on the sender (11).  msProbe names rank_1 Distributed.recv.1.forward
 * (the receiving op: its inputs were clean); probetop the birth on rank 0,
 * with that recv as the first hop. */
static void test_p2p_source_first(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("p2p", &s) != 0) return;
    check_origin(&s, ORIGIN_DURING_COMM, 0, "Functional.gelu.0.forward");
    CHECK_INT(s.res.hits[0].rec, 11);
    CHECK_INT(s.res.nhops, 1);
    check_hop(&s, 1, "Distributed.recv.1.forward", 0, "Distributed.send.1.forward");
    if (s.res.nhops) CHECK_INT(s.res.hops[0].to_rec, 3);
    step_free(&s);
}

/* Rule: a collective is simultaneous across its group; the rank whose
 * all_reduce had the NaN in its input fed it.  msProbe: rank_2
 * Functional.gelu.0.forward. */
static void test_allreduce_group(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("allreduce", &s) != 0) return;
    check_origin(&s, ORIGIN_DURING_COMM, 2, "Functional.gelu.0.forward");
    CHECK_INT(s.res.nhops, 3);
    check_hop(&s, 0, "Distributed.all_reduce.1.forward", 2, "Distributed.all_reduce.1.forward");
    check_hop(&s, 3, "Distributed.all_reduce.1.forward", 2, "Distributed.all_reduce.1.forward");
    step_free(&s);
}

/* Rule: broadcast goes from its root (a positional int) to the others.
 * msProbe: a receiving rank's Distributed.broadcast.0.forward (which one
 * depends on Python's set order: rank_3 here); probetop the root's birth. */
static void test_broadcast_root(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("broadcast", &s) != 0) return;
    check_origin(&s, ORIGIN_DURING_COMM, 2, "Functional.gelu.0.forward");
    CHECK_INT(s.res.nhops, 3);
    check_hop(&s, 3, "Distributed.broadcast.0.forward", 2, "Distributed.broadcast.0.forward");
    check_hop(&s, 0, "Distributed.broadcast.0.forward", 2, "Distributed.broadcast.0.forward");
    step_free(&s);
}

/* Rule: scatter goes from its src (kwarg) to the others.  msProbe: rank_0
 * Distributed.scatter.0.forward (a receiver); probetop rank 1's birth. */
static void test_scatter_src(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("scatter", &s) != 0) return;
    check_origin(&s, ORIGIN_DURING_COMM, 1, "Functional.gelu.0.forward");
    CHECK_INT(s.res.nhops, 2);
    check_hop(&s, 0, "Distributed.scatter.0.forward", 1, "Distributed.scatter.0.forward");
    check_hop(&s, 2, "Distributed.scatter.0.forward", 1, "Distributed.scatter.0.forward");
    step_free(&s);
}

/* Rule: gather goes from the members to its dst (kwarg).  msProbe: rank_2
 * Functional.gelu.0.forward. */
static void test_gather_dst(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("gather", &s) != 0) return;
    check_origin(&s, ORIGIN_DURING_COMM, 2, "Functional.gelu.0.forward");
    CHECK_INT(s.res.nhops, 1);
    check_hop(&s, 0, "Distributed.gather.0.forward", 2, "Distributed.gather.0.forward");
    step_free(&s);
}

/* Rule: a communication op with clean inputs everywhere in its group and
 * an anomalous output is born there; the earliest by position since the
 * previous communication op.  msProbe: rank_0
 * Distributed.all_reduce.1.forward. */
static void test_comm_born(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("commborn", &s) != 0) return;
    check_origin(&s, ORIGIN_DURING_COMM, 0, "Distributed.all_reduce.1.forward");
    CHECK_INT(s.res.hits[0].sub_layer, 2);
    CHECK_INT(s.res.nhops, 3);
    step_free(&s);
}

/* Rule: failing all that, each rank's first born op after its last
 * communication op.  msProbe: rank_1 Functional.gelu.0.forward. */
static void test_after_comm(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("after", &s) != 0) return;
    check_origin(&s, ORIGIN_AFTER_COMM, 1, "Functional.gelu.0.forward");
    CHECK_INT(s.res.nhops, 0);
    step_free(&s);
}

/* The bench topology at 8 ranks (gen_origin.py --ranks 8): tensor-parallel
 * pairs chained by send/recv, a broadcast from rank 0 first; the NaN born
 * on rank 4 reaches its partner 5 through an all_reduce and ranks 6 and 7
 * through recv.  msProbe's overflow_check names rank_7
 * Distributed.recv.0.forward (a receiver). */
static void test_ring(void) {
    NEED_PYTHON();
    const char *dir = pt_tmpdir("ring8");
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' --ranks 8", getenv("PT_PYTHON"), gen_path, dir);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return;
    }
    struct step s;
    if (load_step(dir, ORIGIN_OVERFLOW, &s) != 0) {
        CHECK(!"load failed");
        return;
    }
    check_origin(&s, ORIGIN_DURING_COMM, 4, "Functional.gelu.0.forward");
    CHECK_INT(s.res.nhops, 3);
    check_hop(&s, 5, "Distributed.all_reduce.3.forward", 4, "Distributed.all_reduce.3.forward");
    check_hop(&s, 6, "Distributed.recv.0.forward", 4, "Distributed.send.0.forward");
    check_hop(&s, 7, "Distributed.recv.0.forward", 5, "Distributed.send.0.forward");
    /* in spreading order: 5 before 7, which got it from 5 */
    if (s.res.nhops == 3) CHECK_INT(s.res.hops[0].to, 5);
    /* the rank order for the whole-run first divergence: origin, chain, rest */
    int order[8];
    origin_rank_order(&s.res, s.n, order);
    static const int want[8] = {4, 5, 6, 7, 0, 1, 2, 3};
    for (int i = 0; i < 8; i++) CHECK_INT(order[i], want[i]);
    step_free(&s);
}

/* The one step search (src/io/dump/ovf_origin.h) both the NaN/Inf triage
 * and the compare's first divergence run: ranks read through a callback,
 * kept slim, the rules, the nodes named.  Under either rule set it answers
 * what origin_find answers on the whole trees; a rank the callback leaves
 * out is left out (the others keep their names); a read that fails stops
 * it with the callback's message. */
struct step_dirs { const char *dir; int leave_out, fail; };

static int read_rank_dir(void *ctx, size_t i, struct tree **tree, uint8_t **flags, struct pt_error *e) {
    const struct step_dirs *d = ctx;
    if ((int)i == d->leave_out) { *tree = NULL; return 0; }
    if ((int)i == d->fail) return pt_errorf(e, "rank%zu: cannot be read", i);
    char p[4200];
    snprintf(p, sizeof p, "%s/rank%zu", d->dir, i);
    if (graph_read(p, GRAPH_NO_STACK, tree, e) != 0) return -1;
    (*tree)->rank = (int32_t)i;
    (*tree)->step = 0;
    if (!(*flags = malloc((*tree)->nrecs + 1))) return pt_errorf(e, "out of memory");
    origin_flags_nonfinite(*tree, *flags);
    return 0;
}

static void test_one_step_search(void) {
    NEED_PYTHON();
    const char *dir = pt_tmpdir("ring8step");
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' --ranks 8", getenv("PT_PYTHON"), gen_path, dir);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return;
    }
    struct pt_error err = {{0}};
    for (int rules = ORIGIN_OVERFLOW; rules <= ORIGIN_DIVERGENCE; rules++) {
        struct step s;
        if (load_step(dir, (enum origin_rules)rules, &s) != 0) {
            CHECK(!"load failed");
            return;
        }
        struct step_dirs d = {dir, -1, -1};
        struct ovf_origin_report rep = {0};
        CHECK_INT(ovf_origin_step(&rep, 0, 8, (enum origin_rules)rules, read_rank_dir, &d, NULL, &err), 0);
        CHECK_INT(rep.n, 1);
        if (rep.n == 1 && s.res.nhits == 1) {
            CHECK_INT(rep.v[0].phase, s.res.phase);
            CHECK_INT(rep.v[0].norigins, 1);
            CHECK_INT(rep.v[0].origins[0].rank, s.res.hits[0].rank);
            CHECK_INT(rep.v[0].origins[0].pos, s.res.hits[0].rec);
            CHECK_STR(rep.v[0].origins[0].name, rec(&s, s.res.hits[0].rank, s.res.hits[0].rec));
            CHECK_INT(rep.v[0].nchain, s.res.nhops);
            for (size_t i = 0; i < rep.v[0].nchain && i < s.res.nhops; i++) {
                const struct origin_hop *h = &s.res.hops[i];
                CHECK_INT(rep.v[0].chain[i].to.rank, h->to);
                CHECK_STR(rep.v[0].chain[i].to.name, rec(&s, h->to, h->to_rec));
                CHECK_INT(rep.v[0].chain[i].has_from, h->from >= 0);
                if (h->from >= 0) CHECK_STR(rep.v[0].chain[i].from.name, rec(&s, h->from, h->from_rec));
            }
        } else CHECK(!"no origin");
        ovf_origin_report_free(&rep);
        step_free(&s);
    }
    /* rank 0, clean, left out: the same origin, named on its own rank */
    struct step_dirs d = {dir, 0, -1};
    struct ovf_origin_report rep = {0};
    CHECK_INT(ovf_origin_step(&rep, 0, 8, ORIGIN_OVERFLOW, read_rank_dir, &d, NULL, &err), 0);
    CHECK_INT(rep.n, 1);
    if (rep.n == 1 && rep.v[0].norigins == 1) {
        CHECK_INT(rep.v[0].origins[0].rank, 4);
        CHECK_STR(rep.v[0].origins[0].name, "Functional.gelu.0.forward");
    } else CHECK(!"no origin without rank 0");
    ovf_origin_report_free(&rep);
    /* a read that fails stops the search with its message */
    d = (struct step_dirs){dir, -1, 3};
    CHECK_INT(ovf_origin_step(&rep, 0, 8, ORIGIN_OVERFLOW, read_rank_dir, &d, NULL, &err), -1);
    CHECK_CONTAINS(err.msg, "rank3: cannot be read");
    CHECK_INT(rep.n, 0);
    ovf_origin_report_free(&rep);
}

/* gen_dump.py --pp 4: a NaN planted on stage 1 (rank 1) in both
 * micro-batches reaches stages 2 and 3 through recv, at position 0 of their
 * dumps, and stage 0 through the gradient.  The origin is rank 1's first
 * micro-batch birth; msProbe names rank_2 Distributed.recv.0.forward (the
 * recv that received it; which rank depends on the folder listing order). */
static void test_gen_dump_pipeline(void) {
    NEED_PYTHON();
    const char *sh = pt_shared();
    if (!sh) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *dir = pt_tmpdir("pp4");
    char cmd[9000], step[1100];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 1 --ranks 4 --pp 4 --layers 4 --hidden 8 --heads 2 "
             "--ffn 16 --seq 4 --vocab 32 --micro-batches 2 --nan 0:1:layers.0.self_attention --quiet",
             getenv("PT_PYTHON"), sh, dir);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_dump.py failed");
        return;
    }
    snprintf(step, sizeof step, "%s/step0", dir);
    struct step s;
    if (load_step(step, ORIGIN_OVERFLOW, &s) != 0) {
        CHECK(!"load failed");
        return;
    }
    check_origin(&s, ORIGIN_DURING_COMM, 1, "Functional.linear.0.forward");
    CHECK_INT(s.res.hits[0].rec, 8);
    CHECK_INT(s.res.nhops, 3);
    check_hop(&s, 2, "Distributed.recv.0.forward", 1, "Distributed.send.0.forward");
    check_hop(&s, 3, "Distributed.recv.0.forward", 2, "Distributed.send.0.forward");
    check_hop(&s, 0, "Distributed.recv.0.forward", 1, "Distributed.send.1.forward");
    for (size_t i = 0; i < s.res.nhops; i++)
        if (s.res.hops[i].to == 2) CHECK(s.res.hops[i].to_rec < s.res.hits[0].rec);
    step_free(&s);
}

/* gen_dump.py --tp 2 over 8 ranks, 5 micro-batches: a NaN planted in
 * layers.4.mlp of rank 5 in every micro-batch; all_reduce ops in the TP
 * pairs, forward and backward, the backward ones reusing the forward call
 * numbers.  msProbe's overflow_check: rank_5 Functional.linear.18.forward
 * (micro step 0) -- but only because of the order the file system listed
 * the rank folders in; with them in rank order its numbering of layers
 * puts rank 5's Module...TransformerBlock.forward.2 (micro step 2) first.
 * probetop's layers keep each rank's order: linear.18, whatever the
 * listing. */
static void test_gen_dump_tp(void) {
    NEED_PYTHON();
    const char *sh = pt_shared();
    if (!sh) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *dir = pt_tmpdir("tp8");
    char cmd[9000], step[1100];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 1 --ranks 8 --tp 2 --layers 8 --hidden 8 --heads 2 "
             "--ffn 16 --seq 4 --vocab 32 --micro-batches 5 --nan 0:5:layers.4.mlp --quiet",
             getenv("PT_PYTHON"), sh, dir);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_dump.py failed");
        return;
    }
    snprintf(step, sizeof step, "%s/step0", dir);
    struct step s;
    if (load_step(step, ORIGIN_OVERFLOW, &s) != 0) {
        CHECK(!"load failed");
        return;
    }
    check_origin(&s, ORIGIN_DURING_COMM, 5, "Functional.linear.18.forward");
    CHECK_INT(s.res.hits[0].rec, 171);
    /* gen_dump.py does not spread NaNs through all_reduce: no other rank */
    CHECK_INT(s.res.nhops, 0);
    step_free(&s);
}

/* Divergence (compare): a problem run whose "bad" tensors have 4x the
 * statistics of its benchmark's; each rank's table compare gives the flags
 * (relative error above 50%).  msProbe compare -da on the same files:
 * allreduce rank_2 Functional.gelu.0.forward, commborn rank_0
 * Distributed.all_reduce.1.forward (agreeing); p2p rank_1
 * Distributed.recv.1.forward, broadcast rank_0, rank_1 and rank_3
 * Distributed.broadcast.0.forward (the receiving ops, which probetop
 * counts as propagated). */
static int div_scenario(const char *name, struct origin_result *res, struct step *s) {
    const char *dir = pt_tmpdir(name);
    char cmd[9000], d[1100];
    if (!dir) return -1;
    snprintf(d, sizeof d, "%s", dir);
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s/%s' --as %s %s", getenv("PT_PYTHON"), gen_path, d,
                 k ? "clean" : "drift", k ? "clean" : "drift", name);
        if (system(cmd) != 0) {
            CHECK(!"gen_origin.py failed");
            return -1;
        }
    }
    char p[1200];
    snprintf(p, sizeof p, "%s/drift", d);
    if (load_step(p, ORIGIN_OVERFLOW, s) != 0) return -1;   /* the trees; flags redone below */
    struct pt_error err;
    for (size_t i = 0; i < s->n; i++) {
        struct tree *b;
        struct cmp_table *t;
        snprintf(p, sizeof p, "%s/clean/rank%zu", d, i);
        struct cmp_opts o = {0};
        if (graph_read(p, GRAPH_NO_STACK, &b, &err) != 0) return -1;
        if (cmp_table_new(s->t[i], b, &o, &t, &err) != 0) {
            tree_free(b);
            return -1;
        }
        origin_flags_divergence(s->t[i], t->rows, t->nrows, t->mode, CL_WARNING, s->f[i]);
        cmp_table_free(t);
        tree_free(b);
    }
    return origin_find(s->r, s->n, ORIGIN_DIVERGENCE, res, &err);
}

static void test_divergence_rules(void) {
    NEED_PYTHON();
    static const struct { const char *sc; int rank; const char *name; } want[] = {
        {"allreduce", 2, "Functional.gelu.0.forward"},
        {"commborn", 0, "Distributed.all_reduce.1.forward"},
        {"p2p", 0, "Functional.gelu.0.forward"},
        {"broadcast", 2, "Functional.gelu.0.forward"},
        {"after", 1, "Functional.gelu.0.forward"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        struct step s;
        struct origin_result res = {0};
        if (div_scenario(want[k].sc, &res, &s) != 0) {
            CHECK(!"divergence scenario failed");
            step_free(&s);
            continue;
        }
        CHECK_INT(res.nhits, 1);
        if (res.nhits) {
            CHECK_INT(res.hits[0].rank, want[k].rank);
            CHECK_STR(rec(&s, res.hits[0].rank, res.hits[0].rec), want[k].name);
        }
        origin_result_free(&res);
        /* nothing diverges: no origin */
        for (size_t i = 0; i < s.n; i++) memset(s.f[i], 0, s.t[i]->nrecs);
        struct pt_error err;
        CHECK_INT(origin_find(s.r, s.n, ORIGIN_DIVERGENCE, &res, &err), 0);
        CHECK_INT(res.phase, ORIGIN_NONE);
        origin_result_free(&res);
        step_free(&s);
    }
}

/* A rank whose dump.json is broken: the triage skips it with a warning,
 * the origin search leaves it out (and says so), the command still
 * answers. */
static void test_cmd_bad_rank(void) {
    NEED_PYTHON();
    const char *dir = pt_tmpdir("cmd_badrank");
    char cmd[9000], d[1100], p[1200], out[1200], errf[1200];
    if (!dir) return;
    snprintf(d, sizeof d, "%s", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' allreduce", getenv("PT_PYTHON"), gen_path, d);
    if (system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return;
    }
    snprintf(p, sizeof p, "%s/rank3/dump.json", d);
    CHECK_INT(pt_write(p, "{\"data\": {\"x\": ["), 0);
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(errf, sizeof errf, "%s/err.txt", d);
    const char *argv[] = {"overflow", d, NULL};
    CHECK_INT(pt_capture(out, errf, cmd_overflow_entry.run, 2, argv), EXIT_FOUND);
    char *txt = pt_slurp(out), *e = pt_slurp(errf);
    CHECK_CONTAINS(txt, "  born on rank 2, position 4: Functional.gelu.0.forward\n");
    CHECK(txt && !strstr(txt, "-> rank 3"));
    CHECK_CONTAINS(e, "origin across ranks: step 0: 1 rank(s) left out: ");
    CHECK_CONTAINS(e, "rank3/dump.json");
    free(txt);
    free(e);
}

/* `probetop compare --first` orders the ranks of the first divergence's
 * step by the origin rules and prints the origin under it: the all_reduce
 * scenario, drifted against its clean twin, is born on rank 2 and reaches
 * ranks 0, 1, 3 (by rank number, rank 0's all_reduce would come first). */
static void test_cmd_compare_first(void) {
    NEED_PYTHON();
    const char *dir = pt_tmpdir("cmp_allreduce");
    char cmd[9000], d[1100], npu[1200], bench[1200], out[1200], errf[1200];
    if (!dir) return;
    snprintf(d, sizeof d, "%s", dir);
    snprintf(npu, sizeof npu, "%s/drift", d);
    snprintf(bench, sizeof bench, "%s/clean", d);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' --as drift allreduce && '%s' '%s' --out '%s' --as clean allreduce",
             getenv("PT_PYTHON"), gen_path, npu, getenv("PT_PYTHON"), gen_path, bench);
    if (system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return;
    }
    snprintf(out, sizeof out, "%s/out.txt", d);
    snprintf(errf, sizeof errf, "%s/err.txt", d);
    const char *argv[] = {"compare", npu, bench, "--first", NULL};
    CHECK_INT(pt_capture(out, errf, cmd_compare_entry.run, 4, argv), EXIT_FOUND);
    char *txt = pt_slurp(out);
    /* the headline is the origin rank's first divergence, not rank 0's
     * all_reduce that received it */
    CHECK(txt && !strncmp(txt, "Functional.gelu.0.forward\terror\tstep 0\trank 2\t", 44));
    CHECK_CONTAINS(txt, "origin across ranks, step 0 (between communication ops):\n"
                        "  born on rank 2 micro step 0, position 4: Functional.gelu.0.forward\n");
    CHECK_CONTAINS(txt, "  -> rank 3, position 6: Distributed.all_reduce.1.forward\n"
                        "       received from rank 2, position 6: Distributed.all_reduce.1.forward\n");
    free(txt);
    /* identical runs: no divergence, no origin */
    const char *argv2[] = {"compare", bench, bench, "--first", NULL};
    CHECK_INT(pt_capture(out, errf, cmd_compare_entry.run, 4, argv2), EXIT_OK);
    txt = pt_slurp(out);
    CHECK(txt && !strstr(txt, "origin across ranks"));
    free(txt);
}

/* The flag test: Max/Min of top-level tensors only. */
static void test_flags(void) {
    NEED_PYTHON();
    struct step s;
    if (scenario("compute", &s) != 0) return;
    CHECK_INT(s.f[1][1], 0);
    CHECK_INT(s.f[1][2], ORIGIN_OUT);
    CHECK_INT(s.f[1][3], ORIGIN_IN | ORIGIN_OUT);
    CHECK(origin_is_comm("Distributed.all_reduce.0.forward"));
    CHECK(origin_is_comm("Distributed.reduce_scatter_tensor.3.forward"));
    CHECK(!origin_is_comm("Distributed.barrier.0.forward"));
    CHECK(!origin_is_comm("Distributed.send"));
    CHECK(!origin_is_comm("Functional.send.0.forward"));
    step_free(&s);
}

/* `probetop overflow --format json` carries the origin and the chain; text
 * names them. */
static void test_cmd_json(void) {
    NEED_PYTHON();
    const char *dir = pt_tmpdir("cmd_p2p");
    char cmd[9000], out[1200], errf[1200];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' p2p", getenv("PT_PYTHON"), gen_path, dir);
    if (!dir || system(cmd) != 0) {
        CHECK(!"gen_origin.py failed");
        return;
    }
    char d[1100];
    snprintf(d, sizeof d, "%s", dir);
    snprintf(out, sizeof out, "%s/out.json", d);
    snprintf(errf, sizeof errf, "%s/err.txt", d);
    const char *argv[] = {"overflow", d, "--format", "json", NULL};
    CHECK_INT(pt_capture(out, errf, cmd_overflow_entry.run, 4, argv), EXIT_FOUND);
    char *txt = pt_slurp(out);
    cJSON *root = txt ? cJSON_Parse(txt) : NULL;
    CHECK(root != NULL);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "origin");
    CHECK_INT(cJSON_GetArraySize(o), 1);
    const cJSON *st = cJSON_GetArrayItem(o, 0);
    const cJSON *og = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "origins"), 0);
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(og, "rank")->valueint, 0);
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(og, "pos")->valueint, 11);
    CHECK_STR(cJSON_GetObjectItemCaseSensitive(og, "name")->valuestring, "Functional.gelu.0.forward");
    const cJSON *hop = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(st, "chain"), 0);
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(hop, "from"), *to = cJSON_GetObjectItemCaseSensitive(hop, "to");
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(from, "rank")->valueint, 0);
    CHECK_STR(cJSON_GetObjectItemCaseSensitive(from, "name")->valuestring, "Distributed.send.1.forward");
    CHECK_INT(cJSON_GetObjectItemCaseSensitive(to, "rank")->valueint, 1);
    CHECK_STR(cJSON_GetObjectItemCaseSensitive(to, "name")->valuestring, "Distributed.recv.1.forward");
    cJSON_Delete(root);
    free(txt);
    const char *argv2[] = {"overflow", d, NULL};
    CHECK_INT(pt_capture(out, errf, cmd_overflow_entry.run, 2, argv2), EXIT_FOUND);
    txt = pt_slurp(out);
    CHECK_CONTAINS(txt, "origin across ranks, step 0");
    CHECK_CONTAINS(txt, "born on rank 0, position 11: Functional.gelu.0.forward");
    CHECK_CONTAINS(txt, "-> rank 1, position 3: Distributed.recv.1.forward");
    free(txt);
}

/* The names the rules step over (msProbe: "Torch.empty" or "Torch.fill"
 * anywhere in the name; the divergence rules also Tensor.__setitem__),
 * and born only with clean inputs and an anomalous output. */
static void test_skipped_names(void) {
    static const struct { const char *name; int ovf, div; } v[] = {
        {"Torch.empty.0.forward", 1, 1}, {"Torch.empty_like.3.forward", 1, 1}, {"Torch.fill_.0.forward", 1, 1},
        {"Module.a.Torch.fill.1.backward", 1, 1}, {"Torch.Torch.fill.0", 1, 1}, {"Torch.Torch.x", 0, 0},
        {"Torch.emp.0.forward", 0, 0}, {"Torch.full.0.forward", 0, 0}, {"Torch.", 0, 0}, {"", 0, 0},
        {"torch.empty.0.forward", 0, 0}, {"Tensor.__setitem__.0.forward", 0, 1}, {"Torch.fil", 0, 0}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        CHECK_INT(origin_skipped(v[i].name, ORIGIN_OVERFLOW), v[i].ovf);
        CHECK_INT(origin_skipped(v[i].name, ORIGIN_DIVERGENCE), v[i].div);
        CHECK_INT(origin_born(v[i].name, ORIGIN_OUT, ORIGIN_OVERFLOW), !v[i].ovf);
        CHECK_INT(origin_born(v[i].name, ORIGIN_OUT | ORIGIN_IN, ORIGIN_OVERFLOW), 0);
        CHECK_INT(origin_born(v[i].name, 0, ORIGIN_DIVERGENCE), 0);
    }
    /* communication ops: the overflow rules take "Distributed." names, the
     * divergence rules MindSpore's too */
    static const struct { const char *name; int ovf, div; } c[] = {
        {"Distributed.send.0.forward", 1, 1}, {"Distributed.all_reduce.3.backward", 1, 1},
        {"Distributed.barrier.0.forward", 0, 0}, {"Distributed.send.0", 0, 0},
        {"MintDistributed.recv.1.forward", 0, 1}, {"communication.comm_func.broadcast.0.forward", 0, 1},
        {"Functional.send.0.forward", 0, 0}, {"distributed.send.0.forward", 0, 0}, {"", 0, 0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CHECK_INT(origin_comm(c[i].name, ORIGIN_OVERFLOW), c[i].ovf);
        CHECK_INT(origin_comm(c[i].name, ORIGIN_DIVERGENCE), c[i].div);
    }
}

int main(void) {
    snprintf(gen_path, sizeof gen_path, "%s", __FILE__);
    char *slash = strstr(gen_path, "/unit/test_origin.c");
    if (slash) strcpy(slash, "/gen_origin.py");
    RUN(test_flags);
    RUN(test_skipped_names);
    RUN(test_compute_born);
    RUN(test_p2p_source_first);
    RUN(test_allreduce_group);
    RUN(test_broadcast_root);
    RUN(test_scatter_src);
    RUN(test_gather_dst);
    RUN(test_comm_born);
    RUN(test_after_comm);
    RUN(test_ring);
    RUN(test_one_step_search);
    RUN(test_gen_dump_pipeline);
    RUN(test_gen_dump_tp);
    RUN(test_divergence_rules);
    RUN(test_cmd_json);
    RUN(test_cmd_bad_rank);
    RUN(test_cmd_compare_first);
    PT_DONE();
}
