/* test_tree_rg: a param's requires_grad kept as one byte (model/graph/tree.h,
 * tree_rg_get / tree_rg_set): bools and absent values in the byte, every
 * other value (a number, a str, a list's text) whole in the tree's side
 * table, found again by param index whatever the order it was set in and
 * after the params array moved; a param copied into another tree reads as
 * absent.  And the reader: a dump.json's requires_grad values as
 * json.load gives them.  The communication ops' group id and P2POp op in
 * their side table (tree_comm_*): read from a dump, replaced, and carried
 * into the origin search's slim copy of a tree (origin_slim). */
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

static void test_read(void) {
    const char *dir = pt_tmpdir("tree_rg_read");
    char path[1200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n"
               "\"Functional.a.0.forward\": {\"input_args\": [" T(", \"requires_grad\": true") ", "
               T(", \"requires_grad\": false") ", " T(", \"requires_grad\": null") ", " T("") ", "
               T(", \"requires_grad\": \"yes\"") ", " T(", \"requires_grad\": 7") ", "
               T(", \"requires_grad\": [1, 2]") "], \"output\": [" T(", \"requires_grad\": 1.5") "]}\n"
               "}}\n");
    fclose(f);
    struct tree *t = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &t, &err), 0);
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
        /* the statistics beside it, read through the packed struct tval */
        CHECK(t->params[7].stat[0].kind == TV_FLOAT && t->params[7].stat[0].real == 1.0);
        CHECK(t->params[7].stat[2].real == 0.5);
    }
    tree_free(t);
}

static void test_comm(void) {
    const char *dir = pt_tmpdir("tree_rg_comm");
    char path[1200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n"
               "\"Functional.a.0.forward\": {\"input_args\": [" T("") "]},\n"
               "\"Distributed.all_reduce.0.forward\": {\"input_args\": [" T("") "], \"input_kwargs\": {\"group\": "
               "{\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1], \"group_id\": \"g7\"}}},\n"
               "\"Distributed.batch_isend_irecv.0.forward\": {\"input_args\": [[{\"class_type\": \"torch.distributed.P2POp\", "
               "\"op\": \"isend\", \"peer\": 1, \"tensor\": " T("") ", \"group_id\": \"p9\"}]]}\n"
               "}}\n");
    fclose(f);
    struct tree *t = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &t, &err), 0);
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

int main(void) {
    RUN(test_side_table);
    RUN(test_read);
    RUN(test_comm);
    PT_DONE();
}
