/* test_tree_rg: a param's requires_grad kept as one byte (model/graph/tree.h,
 * tree_rg_get / tree_rg_set): bools and absent values in the byte, every
 * other value (a number, a str, a list's text) whole in the tree's side
 * table, found again by param index whatever the order it was set in and
 * after the params array moved; a param copied into another tree reads as
 * absent.  And the reader: a dump.json's requires_grad values as
 * json.load gives them.  The communication ops' group id and P2POp op in
 * their side table (tree_comm_*): read from a dump, replaced, and carried
 * into the origin search's slim copy of a tree (origin_slim).  The four
 * stats kept as doubles with a kind code each, an int's text in a side
 * table (tree_stat / tree_stat_set): every kind read back whole, in any
 * order, replaced, after the params moved, and in the slim copy's pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph/tree.h"
#include "model/overflow/origin.h"
#include "pt_test.h"
#include "src/io/dump/read_graph.h"

static struct tval tv(int kind, int64_t i, double d, uint32_t text) {
    struct tval v;
    memset(&v, 0, sizeof v);
    v.kind = (uint8_t)kind;
    if (kind == TV_FLOAT) v.real = d;
    else v.integer = i;
    v.text = text;
    return v;
}

static void test_side_table(void) {
    struct tree *t = tree_new();
    CHECK(t != NULL);
    if (!t) return;
    CHECK(sizeof(struct tparam) <= 96);
    int r = tree_add_record(t, "A.forward", 9);
    uint32_t yes = tree_str(t, "yes", 3), seven = tree_str(t, "7", 1);
    enum { N = 3000 };
    for (int i = 0; i < N; i++) {
        struct tparam *p = tree_add_param(t, r);
        CHECK(p != NULL);
        if (!p) break;
        struct tval v = i % 7 == 0 ? tv(TV_INT, 7, 0, seven) : i % 7 == 1 ? tv(TV_STR, 0, 0, yes)
                        : i % 7 == 2 ? tv(TV_FLOAT, 0, 1.5, TREE_NONE) : i % 7 == 3 ? tv(TV_BOOL, 1, 0, TREE_NONE)
                        : i % 7 == 4 ? tv(TV_BOOL, 0, 0, TREE_NONE) : tv(TV_NONE, 0, 0, TREE_NONE);
        /* every 5th value is set later, out of order */
        if (i % 5 != 4) CHECK_INT(tree_rg_set(t, p, &v), 0);
    }
    for (int i = N - 1; i >= 0; i--)
        if (i % 5 == 4) {
            struct tval v = i % 7 == 0 ? tv(TV_INT, 7, 0, seven) : i % 7 == 1 ? tv(TV_STR, 0, 0, yes)
                            : i % 7 == 2 ? tv(TV_FLOAT, 0, 1.5, TREE_NONE) : i % 7 == 3 ? tv(TV_BOOL, 1, 0, TREE_NONE)
                            : i % 7 == 4 ? tv(TV_BOOL, 0, 0, TREE_NONE) : tv(TV_NONE, 0, 0, TREE_NONE);
            CHECK_INT(tree_rg_set(t, &t->params[i], &v), 0);
        }
    /* set again: the entry replaced, not doubled */
    struct tval again = tv(TV_INT, 7, 0, seven);
    CHECK_INT(tree_rg_set(t, &t->params[0], &again), 0);
    CHECK_INT(t->nrgx, (N + 6) / 7 + (N + 5) / 7 + (N + 4) / 7);
    tree_fit(t);   /* the params move */
    int bad = 0;
    for (int i = 0; i < N; i++) {
        const struct tparam *p = &t->params[i];
        struct tval v = tree_rg_get(t, p);
        int k = i % 7;
        if (k == 0) bad += v.kind != TV_INT || v.integer != 7 || strcmp(tree_s(t, v.text), "7") || p->req_grad != TREE_RG_OTHER;
        else if (k == 1) bad += v.kind != TV_STR || strcmp(tree_s(t, v.text), "yes") || p->req_grad != TREE_RG_OTHER;
        else if (k == 2) bad += v.kind != TV_FLOAT || v.real != 1.5 || p->req_grad != TREE_RG_OTHER;
        else if (k == 3) bad += v.kind != TV_BOOL || v.integer != 1 || p->req_grad != TREE_RG_TRUE;
        else if (k == 4) bad += v.kind != TV_BOOL || v.integer != 0 || p->req_grad != TREE_RG_FALSE;
        else bad += v.kind != TV_NONE || p->req_grad != TREE_RG_NONE;
        if (bad == 1) {
            fprintf(stderr, "param %d: kind %d\n", i, v.kind);
            bad++;
        }
    }
    CHECK_INT(bad, 0);
    /* a copy outside t's params has no entry: absent, never another's */
    struct tparam c = t->params[1];
    CHECK_INT(c.req_grad, TREE_RG_OTHER);
    CHECK_INT(tree_rg_get(t, &c).kind, TV_NONE);
    tree_free(t);
}

#define T(rg) "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, " \
              "\"Mean\": 0.5, \"Norm\": 1.0" rg "}"

/* A tree read from a dump.json holding text, in a folder of its own
 * (name); NULL (a failed check) when it does not read. */
static struct tree *read_dump(const char *name, const char *text) {
    const char *dir = pt_tmpdir(name);
    char path[1200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    CHECK_INT(pt_write(path, text), 0);
    struct tree *t = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &t, &err), 0);
    return t;
}

static void test_read(void) {
    struct tree *t = read_dump("tree_rg_read", "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n"
               "\"Functional.a.0.forward\": {\"input_args\": [" T(", \"requires_grad\": true") ", "
               T(", \"requires_grad\": false") ", " T(", \"requires_grad\": null") ", " T("") ", "
               T(", \"requires_grad\": \"yes\"") ", " T(", \"requires_grad\": 7") ", "
               T(", \"requires_grad\": [1, 2]") "], \"output\": [" T(", \"requires_grad\": 1.5") "]}\n"
               "}}\n");
    if (!t) return;
    CHECK_INT(t->nparams, 8);
    if (t->nparams == 8) {
        static const int kinds[8] = {TV_BOOL, TV_BOOL, TV_NONE, TV_NONE, TV_STR, TV_INT, TV_STR, TV_FLOAT};
        static const int bytes[8] = {TREE_RG_TRUE, TREE_RG_FALSE, TREE_RG_NONE, TREE_RG_NONE,
                                     TREE_RG_OTHER, TREE_RG_OTHER, TREE_RG_OTHER, TREE_RG_OTHER};
        for (int i = 0; i < 8; i++) {
            CHECK_INT(tree_rg_get(t, &t->params[i]).kind, kinds[i]);
            CHECK_INT(t->params[i].req_grad, bytes[i]);
        }
        CHECK_INT(tree_rg_get(t, &t->params[0]).integer, 1);
        CHECK_INT(tree_rg_get(t, &t->params[1]).integer, 0);
        struct tval s = tree_rg_get(t, &t->params[4]), n = tree_rg_get(t, &t->params[5]);
        struct tval l = tree_rg_get(t, &t->params[6]), d = tree_rg_get(t, &t->params[7]);
        CHECK_STR(tree_s(t, s.text), "yes");
        CHECK_INT(s.is_repr, 0);
        CHECK_INT(n.integer, 7);
        CHECK_STR(tree_s(t, n.text), "7");
        CHECK_STR(tree_s(t, l.text), "[1, 2]");
        CHECK_INT(l.is_repr, 1);
        CHECK(d.real == 1.5);
        /* the statistics beside it */
        CHECK(tree_stat(t, &t->params[7], 0).kind == TV_FLOAT && tree_stat(t, &t->params[7], 0).real == 1.0);
        CHECK(tree_stat(t, &t->params[7], 2).real == 0.5);
    }
    tree_free(t);
}

static void test_comm(void) {
    struct tree *t = read_dump("tree_rg_comm", "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n"
               "\"Functional.a.0.forward\": {\"input_args\": [" T("") "]},\n"
               "\"Distributed.all_reduce.0.forward\": {\"input_args\": [" T("") "], \"input_kwargs\": {\"group\": "
               "{\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1], \"group_id\": \"g7\"}}},\n"
               "\"Distributed.batch_isend_irecv.0.forward\": {\"input_args\": [[{\"class_type\": \"torch.distributed.P2POp\", "
               "\"op\": \"isend\", \"peer\": 1, \"tensor\": " T("") ", \"group_id\": \"p9\"}]]}\n"
               "}}\n");
    if (!t) return;
    int ncomm = 0, ng = -1, np = -1;
    for (size_t i = 0; i < t->nparams; i++) {
        const struct tparam *p = &t->params[i];
        ncomm += p->comm;
        uint32_t g = tree_comm_gid(t, p), o = tree_comm_p2p(t, p);
        if (g != TREE_NONE && !strcmp(tree_s(t, g), "g7")) ng = (int)i;
        if (o != TREE_NONE && !strcmp(tree_s(t, o), "isend")) {
            np = (int)i;
            CHECK_STR(tree_s(t, g), "p9");
        }
        if (!p->comm) CHECK(g == TREE_NONE && o == TREE_NONE);
    }
    CHECK_INT(ncomm, 2);
    CHECK(ng >= 0 && np >= 0);
    CHECK_INT(t->ncommx, 2);
    /* the slim copy keeps them, in its own pool */
    struct tree *n = origin_slim(t, ORIGIN_OVERFLOW);
    CHECK(n != NULL);
    int found = 0;
    for (size_t i = 0; n && i < n->nparams; i++) {
        uint32_t g = tree_comm_gid(n, &n->params[i]), o = tree_comm_p2p(n, &n->params[i]);
        if (g != TREE_NONE && !strcmp(tree_s(n, g), "g7") && o == TREE_NONE) found |= 1;
        if (g != TREE_NONE && !strcmp(tree_s(n, g), "p9") && o != TREE_NONE && !strcmp(tree_s(n, o), "isend")) found |= 2;
    }
    CHECK_INT(found, 3);
    tree_free(n);
    /* replaced, then cleared */
    if (ng >= 0) {
        uint32_t x = tree_str(t, "g8", 2);
        CHECK_INT(tree_comm_set(t, (size_t)ng, x, TREE_NONE), 0);
        CHECK_STR(tree_s(t, tree_comm_gid(t, &t->params[ng])), "g8");
        CHECK_INT(t->ncommx, 2);
        CHECK_INT(tree_comm_set(t, 0, TREE_NONE, TREE_NONE), 0);
        CHECK_INT(t->params[0].comm, 0);
        CHECK_INT(t->ncommx, 2);
    }
    tree_free(t);
}

/* stat k of param i, as set below */
static struct tval stat_of(int i, int k, uint32_t seven, uint32_t yes, uint32_t list) {
    switch ((i + k) % 6) {
    case 0: return tv(TV_INT, 7 + k, 0, seven);
    case 1: return tv(TV_STR, 0, 0, yes);
    case 2: { struct tval v = tv(TV_STR, 0, 0, list); v.is_repr = 1; return v; }
    case 3: return tv(TV_FLOAT, 0, -0.25 * i, 0);
    case 4: return tv(TV_BOOL, k & 1, 0, 0);
    default: return tv(TV_NONE, 0, 0, 0);
    }
}

static int same_tval(const struct tree *a, struct tval x, const struct tree *b, struct tval y) {
    if (x.kind != y.kind || x.is_repr != y.is_repr) return 0;
    if (x.kind == TV_FLOAT) return x.real == y.real;
    if (x.kind == TV_BOOL) return x.integer == y.integer;
    if (x.kind == TV_INT && x.integer != y.integer) return 0;
    if (x.kind == TV_INT || x.kind == TV_STR) return !strcmp(tree_s(a, x.text), tree_s(b, y.text));
    return 1;
}

static void test_stats(void) {
    CHECK(sizeof(struct tparam) <= 64);
    struct tree *t = tree_new();
    CHECK(t != NULL);
    if (!t) return;
    int r = tree_add_record(t, "Functional.a.0.forward", 22);
    uint32_t seven = tree_str(t, "7", 1), yes = tree_str(t, "yes", 3), list = tree_str(t, "[1, 2]", 6);
    enum { N = 500 };
    for (int i = 0; i < N; i++) {
        struct tparam *p = tree_add_param(t, r);
        CHECK(p != NULL);
        if (!p) break;
        /* Norm first, then Max..Mean; every third param's stats set later */
        for (int k = 3; i % 3 && k >= 0; k = k == 3 ? 0 : k + 1 < 3 ? k + 1 : -1) {
            struct tval v = stat_of(i, k, seven, yes, list);
            CHECK_INT(tree_stat_set(t, (size_t)i, k, &v), 0);
        }
    }
    for (int i = N - 1; i >= 0; i--)
        for (int k = 0; k < 4 && i % 3 == 0; k++) {
            struct tval v = stat_of(i, k, seven, yes, list);
            CHECK_INT(tree_stat_set(t, (size_t)i, k, &v), 0);
        }
    /* an int replaced by a float and back: its text found again */
    struct tval f = tv(TV_FLOAT, 0, 2.5, 0), in = stat_of(0, 0, seven, yes, list);
    CHECK_INT(tree_stat_set(t, 0, 0, &f), 0);
    CHECK_INT(tree_stat(t, &t->params[0], 0).kind, TV_FLOAT);
    CHECK_INT(tree_stat_set(t, 0, 0, &in), 0);
    CHECK_INT(tree_stat_set(t, (size_t)t->capparams, 0, &in), -1);
    tree_fit(t);   /* the params move */
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 4; k++)
            if (!same_tval(t, tree_stat(t, &t->params[i], k), t, stat_of(i, k, seven, yes, list)) && !bad++)
                fprintf(stderr, "param %d stat %d: kind %d\n", i, k, tree_stat(t, &t->params[i], k).kind);
    CHECK_INT(bad, 0);
    /* a copy outside t's params: an int without its text, the rest whole */
    struct tparam c = t->params[0];
    CHECK_INT(tree_stat(t, &c, 0).kind, TV_INT);
    CHECK_INT(tree_stat(t, &c, 0).integer, 7);
    CHECK_INT(tree_stat(t, &c, 0).text, TREE_NONE);
    CHECK(same_tval(t, tree_stat(t, &c, 1), t, stat_of(0, 1, seven, yes, list)));
    tree_free(t);
}

/* origin_slim carries the stats, an int's text and a str's into its own pool. */
static void test_stats_slim(void) {
    struct tree *t = read_dump("tree_rg_stats", "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n"
               "\"Distributed.all_reduce.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
               "\"torch.float32\", \"shape\": [2], \"Max\": 12345678901234, \"Min\": \"nan\", \"Mean\": true, "
               "\"Norm\": [1, 2]}, {\"type\": \"int\", \"value\": 3}]}\n"
               "}}\n");
    if (!t) return;
    CHECK_INT(t->nparams, 2);
    struct tree *n = origin_slim(t, ORIGIN_OVERFLOW);
    CHECK(n != NULL);
    if (n && t->nparams == 2 && n->nparams == 2) {
        struct tval mx = tree_stat(n, &n->params[0], 0);
        CHECK_INT(mx.kind, TV_INT);
        CHECK(mx.integer == 12345678901234);
        CHECK_STR(tree_s(n, mx.text), "12345678901234");
        CHECK_STR(tree_s(n, tree_stat(n, &n->params[0], 1).text), "nan");
        CHECK_INT(tree_stat(n, &n->params[0], 2).kind, TV_BOOL);
        CHECK_INT(tree_stat(n, &n->params[0], 3).is_repr, 1);
        CHECK_STR(tree_s(n, tree_stat(n, &n->params[0], 3).text), "[1, 2]");
        for (int k = 0; k < 4; k++) {
            CHECK(same_tval(t, tree_stat(t, &t->params[0], k), n, tree_stat(n, &n->params[0], k)));
            CHECK_INT(tree_stat(n, &n->params[1], k).kind, TV_INT);   /* the int value in all four */
            CHECK_STR(tree_s(n, tree_stat(n, &n->params[1], k).text), "3");
        }
    }
    tree_free(n);
    tree_free(t);
}

int main(void) {
    RUN(test_side_table);
    RUN(test_stats);
    RUN(test_stats_slim);
    RUN(test_read);
    RUN(test_comm);
    PT_DONE();
}
