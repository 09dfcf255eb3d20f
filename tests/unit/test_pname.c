/* test_pname: param names stored as (record, suffix) (model/graph/tree.h,
 * tree_pname): names composed back exactly (record names with dots, very
 * long, odd bytes, a name from a data_name that is not the record's, a
 * name that is the record's own), the suffixes shared between records,
 * the record of a param found, and the params of records cut by the
 * reader's 1 MB window named like the others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph/tree.h"
#include "pt_test.h"
#include "src/io/dump/read_graph.h"

#define T "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, " \
          "\"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}"

static struct tree *read_dir(const char *dir) {
    struct tree *t = NULL;
    struct pt_error err;
    if (graph_read(dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &t, &err) != 0) {
        fprintf(stderr, "graph_read: %s\n", err.msg);
        return NULL;
    }
    return t;
}

/* the name of param k of record name, composed ("" when absent) */
static const char *pname_of(const struct tree *t, const char *rec, uint32_t k, struct tree_pn *nb) {
    int r = tree_find_record(t, rec);
    if (r < 0 || k >= t->recs[r].np) return "";
    const struct tparam *p = &t->params[t->recs[r].p0 + k];
    const char *a = tree_pname(t, p, nb);
    return a ? a : "";
}

static void test_names(void) {
    const char *dir = pt_tmpdir("pname_names");
    char path[1200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    static char longname[6000];
    memset(longname, 'x', sizeof longname - 1);
    memcpy(longname, "Module.", 7);
    memcpy(longname + sizeof longname - 11, ".forward.0", 10);
    fprintf(f, "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n"
               "\"Module.a.b.c.Linear.forward.0\": {\"input_args\": [" T ", [" T ", " T "]], "
               "\"input_kwargs\": {\"k.e.y\": " T "}, \"output\": [" T "], \"parameters\": {\"weight\": " T "}},\n"
               "\"%s\": {\"input_args\": [" T "]},\n"
               "\"Tensor.\\u0001odd\\u00e9.0.forward\": {\"input_args\": [" T "], \"output\": [null]},\n"
               "\"Functional.op.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
               "\"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"data_name\": \"other.name.pt\"}, "
               "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, "
               "\"Mean\": 0.5, \"Norm\": 1.0, \"data_name\": \"\\u0001marked.pt\"}]},\n"
               "\"Module.m.Linear.parameters_grad\": {\"weight\": " T ", \"bias\": " T "},\n"
               "\"Module.n.Linear.parameters_grad\": {\"weight\": [" T ", " T "]}\n"
               "}}\n", longname);
    fclose(f);
    struct tree *t = read_dir(dir);
    CHECK(t != NULL);
    if (!t) return;
    struct tree_pn nb = {0};
    const char *rec = "Module.a.b.c.Linear.forward.0";
    CHECK_STR(pname_of(t, rec, 0, &nb), "Module.a.b.c.Linear.forward.0.input.0");
    CHECK_STR(pname_of(t, rec, 2, &nb), "Module.a.b.c.Linear.forward.0.input.1.1");
    CHECK_STR(pname_of(t, rec, 3, &nb), "Module.a.b.c.Linear.forward.0.input.k.e.y");
    CHECK_STR(pname_of(t, rec, 4, &nb), "Module.a.b.c.Linear.forward.0.output.0");
    CHECK_STR(pname_of(t, rec, 5, &nb), "Module.a.b.c.Linear.forward.0.parameters.weight");
    /* a name longer than the buffer's own room */
    char want[6100];
    snprintf(want, sizeof want, "%s.input.0", longname);
    CHECK_STR(pname_of(t, longname, 0, &nb), want);
    CHECK(nb.b != NULL);
    /* odd bytes in the record's name */
    CHECK_STR(pname_of(t, "Tensor.\001odd\xc3\xa9.0.forward", 0, &nb), "Tensor.\001odd\xc3\xa9.0.forward.input.0");
    CHECK_STR(pname_of(t, "Tensor.\001odd\xc3\xa9.0.forward", 1, &nb), "Tensor.\001odd\xc3\xa9.0.forward.output.0");
    /* names from a data_name: not the record's name + a suffix; one
     * starting with a marker byte */
    CHECK_STR(pname_of(t, "Functional.op.0.forward", 0, &nb), "other.name");
    CHECK_STR(pname_of(t, "Functional.op.0.forward", 1, &nb), "\001marked");
    /* parameter gradients: dict keys in the name, list indices not (the
     * same name twice) */
    CHECK_STR(pname_of(t, "Module.m.Linear.parameters_grad", 1, &nb), "Module.m.Linear.parameters_grad.bias");
    CHECK_STR(pname_of(t, "Module.n.Linear.parameters_grad", 1, &nb), "Module.n.Linear.parameters_grad.weight");
    /* the other readings of a name */
    int r = tree_find_record(t, rec);
    CHECK(r >= 0);
    if (r >= 0) {
        const struct tparam *p = &t->params[t->recs[r].p0 + 3];
        CHECK_INT(tree_param_rec(t, p), r);
        CHECK(tree_pname_eq(t, r, p, "Module.a.b.c.Linear.forward.0.input.k.e.y", 41));
        CHECK(!tree_pname_eq(t, r, p, "Module.a.b.c.Linear.forward.0.input.k.e.z", 41));
        CHECK(!tree_pname_eq(t, r, p, "Module.a.b.c.Linear.forward.0.input.k.e", 40));
        CHECK_STR(tree_pname_after(t, p, rec, strlen(rec)), ".input.k.e.y");
        CHECK_STR(tree_pname_after(t, p, "Module.a.b.c.Linear.forward.0.input.", 36), "k.e.y");
        CHECK(tree_pname_after(t, p, "Module.a.b.c.Linear.forward.1", 29) == NULL);
        CHECK(tree_pname_whole(t, p) == NULL);
        /* a suffix is one pool text for every record that has it */
        int r2 = tree_find_record(t, longname);
        CHECK(r2 >= 0);
        if (r2 >= 0) CHECK_INT(t->params[t->recs[r2].p0].name, t->params[t->recs[r].p0].name);
    }
    int ro = tree_find_record(t, "Functional.op.0.forward");
    if (ro >= 0) {
        const struct tparam *p = &t->params[t->recs[ro].p0];
        CHECK_STR(tree_pname_whole(t, p), "other.name");
        CHECK_STR(tree_pname_whole(t, p + 1), "\001marked");
        CHECK(tree_pname_eq(t, ro, p + 1, "\001marked", 7));
        CHECK_INT(tree_param_rec(t, p + 1), ro);
    }
    tree_pn_free(&nb);
    tree_free(t);
}

/* A tree filled by hand keeps plain names: read as written. */
static void test_plain(void) {
    struct tree *t = tree_new();
    CHECK(t != NULL);
    if (!t) return;
    int r = tree_add_record(t, "A.forward", 9);
    struct tparam *p = tree_add_param(t, r);
    CHECK(p != NULL);
    if (!p) { tree_free(t); return; }
    p->name = tree_str(t, "A.forward.input.0", 17);
    struct tree_pn nb = {0};
    CHECK_STR(tree_pname(t, p, &nb), "A.forward.input.0");
    CHECK_STR(tree_pname_after(t, p, "A.forward", 9), ".input.0");
    CHECK_STR(tree_pname_whole(t, p), "A.forward.input.0");
    CHECK(tree_pname_eq(t, r, p, "A.forward.input.0", 17));
    tree_pn_free(&nb);
    tree_free(t);
}

/* Records cut by the reader's window: every param named
 * like the others, in order. */
static void test_window(void) {
    const char *dir = pt_tmpdir("pname_window");
    char path[1200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    enum { NREC = 6000, NP = 5 };
    fputs("{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {", f);
    for (int r = 0; r < NREC; r++) {
        fprintf(f, "%s\"Module.layers.%d.mlp.Linear.forward.%d\": {\"input_args\": [", r ? ",\n" : "", r, r);
        for (int k = 0; k < NP; k++) fprintf(f, "%s" T, k ? ", " : "");
        fputs("]}", f);
    }
    fputs("}}\n", f);
    long size = ftell(f);
    fclose(f);
    CHECK(size > 4L << 20);   /* more than the window, several times */
    struct tree *t = read_dir(dir);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->nparams, NREC * NP);
    struct tree_pn nb = {0};
    int bad = 0;
    for (size_t i = 0; i < t->nparams && !bad; i++) {
        char want[128];
        snprintf(want, sizeof want, "Module.layers.%zu.mlp.Linear.forward.%zu.input.%zu", i / NP, i / NP, i % NP);
        const char *got = tree_pname(t, &t->params[i], &nb);
        if (!got || strcmp(got, want)) {
            fprintf(stderr, "param %zu: %s, expected %s\n", i, got ? got : "(null)", want);
            bad = 1;
        }
        if (tree_param_rec(t, &t->params[i]) != (int)(i / NP)) bad = 1;
    }
    CHECK(!bad);
    tree_pn_free(&nb);
    tree_free(t);
}

int main(void) {
    RUN(test_names);
    RUN(test_plain);
    RUN(test_window);
    PT_DONE();
}
