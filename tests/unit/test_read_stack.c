/* test_read_stack: stack.json through the pull tokenizer
 * (src/io/dump/read_stack.c) with the meaning the cJSON tree had: the
 * grouped form (found by the first key "0"), the per-name form, odd items
 * skipped, bare NaN as a string, duplicates (the last id wins), bytes after
 * the object ignored, and bad files refused with the file and the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph/tree.h"
#include "pt_test.h"
#include "src/io/dump/read_stack.h"

/* The tree's stacks as text: "stack: line|line; ..." then " ids: id=stack ...". */
static void show(const struct tree *t, const char *const *ids, char *out, size_t n) {
    size_t o = 0;
    out[0] = '\0';
    for (size_t s = 0; s < t->nstacks && o < n; s++) {
        o += (size_t)snprintf(out + o, n - o, "%zu:", s);
        for (uint32_t i = 0; i < t->stacks[s].n && o < n; i++)
            o += (size_t)snprintf(out + o, n - o, "%s%s", i ? "|" : "", tree_s(t, t->lines[t->stacks[s].l0 + i]));
        if (o < n) o += (size_t)snprintf(out + o, n - o, "; ");
    }
    for (; *ids && o < n; ids++) o += (size_t)snprintf(out + o, n - o, "%s=%d ", *ids, tree_stack_of_id(t, *ids));
}

/* Reads text as a stack.json: the return code, the stacks shown, the message. */
static int run(const char *text, const char *const *ids, char *out, size_t n, struct pt_error *err) {
    const char *dir = pt_tmpdir("read_stack");
    char p[4200];
    snprintf(p, sizeof p, "%s/stack.json", dir);
    pt_write(p, text);
    struct tree *t = tree_new();
    if (!t) return -9;
    err->msg[0] = '\0';
    int rc = read_stack_file(t, p, err);
    show(t, ids, out, n);
    tree_free(t);
    return rc;
}

static void test_grouped(void) {
    static const char *const ids[] = {"A", "B", "C", "D", "E", "F", "0", NULL};
    char out[2048];
    struct pt_error err;
    /* "0" first; entry 1 an object of ids and lines; 2 too short; 3 not an
     * array; 4 with a third item and odd items (numbers, null, a nested
     * list, bare NaN); 5 reassigns A (the last wins); an escaped line */
    CHECK_INT(run("{\"0\": [[\"A\", \"B\"], [\"f1\", \"f2\"]],\n"
                  " \"1\": [{\"x\": \"C\", \"y\": 3}, {\"k\": \"g1\"}],\n"
                  " \"2\": [[\"D\"]],\n"
                  " \"3\": \"E\",\n"
                  " \"4\": [[\"F\", 7, null, [\"Z\"]], [NaN, \"h\\u0041\\n\", 1.5, {\"q\": \"r\"}, -Infinity], [\"extra\"]],\n"
                  " \"5\": [[\"A\"], []]} trailing bytes",
                  ids, out, sizeof out, &err),
              0);
    CHECK_STR(out, "0:f1|f2; 1:g1; 2:; 3:; 4:NaN|hA\n|-Infinity; 5:; A=5 B=0 C=1 D=-1 E=-1 F=4 0=-1 ");
    /* "0" decides even when not first, and an escaped "\u0030" is "0" */
    CHECK_INT(run("{\"a\": [[\"A\"], [\"l\"]], \"\\u0030\": true}", ids, out, sizeof out, &err), 0);
    CHECK_STR(out, "0:l; 1:; A=0 B=-1 C=-1 D=-1 E=-1 F=-1 0=-1 ");
    /* the first "0" decides, not a later duplicate: per-name here, where
     * the second "0" (a list of lists) has no lines and names stack 2 */
    CHECK_INT(run("{\"0\": [], \"B\": [\"l\"], \"0\": [[\"A\"], [\"m\"]]}", ids, out, sizeof out, &err), 0);
    CHECK_STR(out, "0:; 1:l; 2:; A=-1 B=1 C=-1 D=-1 E=-1 F=-1 0=2 ");
}

static void test_flat(void) {
    static const char *const ids[] = {"A", "B", "C", "0", NULL};
    char out[2048];
    struct pt_error err;
    /* per-name: lists of lines; a value that is no list has no lines but
     * is named; "0": null or false keeps the per-name form */
    CHECK_INT(run("{\"A\": [\"a1\", 2, \"a2\", {\"x\": \"no\"}], \"B\": {\"x\": \"no\"}, \"0\": null,"
                  " \"C\": [Infinity]}",
                  ids, out, sizeof out, &err),
              0);
    CHECK_STR(out, "0:a1|a2; 1:; 2:; 3:Infinity; A=0 B=1 C=3 0=2 ");
    CHECK_INT(run("{\"0\": false, \"A\": [\"x\"]}", ids, out, sizeof out, &err), 0);
    CHECK_STR(out, "0:; 1:x; A=1 B=-1 C=-1 0=0 ");
    CHECK_INT(run("{}", ids, out, sizeof out, &err), 0);
    CHECK_STR(out, "A=-1 B=-1 C=-1 0=-1 ");
}

static void test_bad(void) {
    static const char *const ids[] = {NULL};
    char out[256];
    struct pt_error err;
    CHECK_INT(run("{\"0\": [[\"A\"], [\"f1\", \"f2\"]], \"1\": [[\"B\"], [\"g", ids, out, sizeof out, &err), -1);
    CHECK(strstr(err.msg, "stack.json") != NULL);
    CHECK(strstr(err.msg, "line 1") != NULL);
    CHECK_INT(run("{\"A\": [\"x\"],\n \"B\": [\"y\"] \"C\": []}", ids, out, sizeof out, &err), -1);
    CHECK(strstr(err.msg, "stack.json") != NULL && strstr(err.msg, "line 2") != NULL);
    CHECK_INT(run("[[\"A\"], [\"x\"]]", ids, out, sizeof out, &err), -1);
    CHECK(strstr(err.msg, "stack.json: expected an object") != NULL);
    CHECK_INT(run("", ids, out, sizeof out, &err), -1);
    CHECK(strstr(err.msg, "stack.json: empty file") != NULL);
}

int main(void) {
    RUN(test_grouped);
    RUN(test_flat);
    RUN(test_bad);
    PT_DONE();
}
