/* test_dump_stream: the graph reader's dump.json read a window at a time
 * (src/io/dump/dump_stream.c) and construct.json one entry at a time:
 * records cut by the window, a record larger than the window, errors
 * inside it, the memory a large dump costs while it is read and the
 * reservation given back after it, and
 * construct.json's megatron_micro_step_number wherever it stands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph/tree.h"
#include "pt_test.h"
#include "src/io/dump/read_graph.h"

/* a param name composed for a check (names here are short: no heap) */
static struct tree_pn tnb;

#define ITEM "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2, 2], \"Max\": %d.5, " \
             "\"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}"

/* kB of a /proc/self/status line ("VmRSS:"), -1 when absent */
static long status_kb(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char l[256];
    long v = -1;
    if (!f) return -1;
    while (fgets(l, sizeof l, f))
        if (!strncmp(l, key, strlen(key))) v = atol(l + strlen(key));
    fclose(f);
    return v;
}

/* Records around one of NBIG inputs (more than the 4 MB window): every
 * record read, the big one whole; with broken set, a stray comma inside the
 * big record is said with its line and byte, as when the file was read
 * whole. */
static void test_window_cut(void) {
    const char *dir = pt_tmpdir("dump_stream_cut");
    char p[1200];
    snprintf(p, sizeof p, "%s/dump.json", dir);
    enum { NSMALL = 20000, NBIG = 40000 };
    for (int broken = 0; broken < 2; broken++) {
        FILE *f = fopen(p, "w");
        CHECK(f != NULL);
        if (!f) return;
        long line = 1, bad_at = -1;
        fputs("{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n", f);
        line++;
        for (int i = 0; i < 2 * NSMALL; i++) {
            if (i == NSMALL) {   /* the big record, one input a line */
                fputs("\"Functional.cat.0.forward\": {\"input_args\": [\n", f);
                line++;
                for (int k = 0; k < NBIG; k++) {
                    fprintf(f, ITEM, k);
                    if (broken && k == NBIG - 5) {
                        fputs(", ", f);
                        bad_at = ftell(f);
                        fputs(",", f);
                    }
                    fputs(k + 1 < NBIG ? ",\n" : "\n", f);
                    if (bad_at < 0) line++;
                }
                fputs("]},\n", f);
            }
            fprintf(f, "\"Functional.op.%d.forward\": {\"input_args\": [" ITEM "]}", i, i);
            fputs(i + 1 < 2 * NSMALL ? ",\n" : "\n", f);
            if (bad_at < 0) line++;
        }
        fputs("}}\n", f);
        CHECK(ftell(f) > 12L << 20);
        fclose(f);
        struct tree *t = NULL;
        struct pt_error err;
        int rc = graph_read(dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &t, &err);
        if (broken) {
            CHECK_INT(rc, -1);
            char want[128];
            snprintf(want, sizeof want, "dump.json: line %ld, byte %ld: ", line, bad_at);
            CHECK_CONTAINS(err.msg, want);
            continue;
        }
        CHECK_INT(rc, 0);
        if (!t) return;
        CHECK_INT(t->nrecs, 2 * NSMALL + 1);
        CHECK_INT(t->nparams, 2 * NSMALL + NBIG);
        /* the reservation made from the file's size is given back once read
         * (tree_fit: the pool keeps a thirty-second of room for tree_build) */
        CHECK_INT(t->capparams, t->nparams);
        CHECK_INT(t->caprecs, t->nrecs);
        CHECK(t->pcap >= t->plen && t->pcap <= t->plen + t->plen / 32 + 4096);
        int r = tree_find_record(t, "Functional.cat.0.forward");
        CHECK(r >= 0);
        if (r >= 0) {
            CHECK_INT(t->recs[r].np, NBIG);
            const struct tparam *q = &t->params[t->recs[r].p0 + NBIG - 1];
            struct tree_pn nb = {0};
            CHECK_STR(tree_pname(t, q, &nb), "Functional.cat.0.forward.input.39999");
            tree_pn_free(&nb);
            CHECK(tree_stat(t, q, 0).kind == TV_FLOAT && tree_stat(t, q, 0).real == NBIG - 1 + 0.5);
        }
        const struct tparam *z = &t->params[t->nparams - 1];
        CHECK_STR(tree_pname(t, z, &tnb), "Functional.op.39999.forward.input.0");
        CHECK(tree_stat(t, z, 0).kind == TV_FLOAT && tree_stat(t, z, 0).real == 2 * NSMALL - 1 + 0.5);
        tree_free(t);
    }
}

/* A 48 MB dump.json (msProbe indents it: mostly white space) whose tree
 * is small: reading it costs the window and the tree, not the file. */
static void test_memory(void) {
    const char *dir = pt_tmpdir("dump_stream_mem");
    char p[1200];
    snprintf(p, sizeof p, "%s/dump.json", dir);
    enum { NREC = 24000, PAD = 2000 };
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    char *pad = malloc(PAD + 1);
    if (!pad) { fclose(f); return; }
    memset(pad, ' ', PAD);
    pad[PAD] = '\0';
    fputs("{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {\n", f);
    for (int i = 0; i < NREC; i++)
        fprintf(f, "\"Functional.op.%d.forward\": {\n%s\"input_args\": [" ITEM "]}%s", i, pad, i, i + 1 < NREC ? ",\n" : "\n");
    fputs("}}\n", f);
    long size = ftell(f);
    fclose(f);
    free(pad);
    CHECK(size > 45L << 20);
    /* the peak from here on: "5" resets VmHWM to the present size */
    FILE *c = fopen("/proc/self/clear_refs", "w");
    int reset = c && fputs("5", c) >= 0;
    if (c && fclose(c) != 0) reset = 0;
    long rss0 = status_kb("VmRSS:");
    struct tree *t = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &t, &err), 0);
    long hwm = status_kb("VmHWM:");
    if (t) CHECK_INT(t->nparams, NREC);
    tree_free(t);
    if (!reset || rss0 < 0 || hwm < 0) SKIP("no /proc/self/clear_refs: the peak cannot be measured");
    if (PT_ASAN) SKIP("under AddressSanitizer the peak is the sanitizer's (freed memory held in quarantine)");
    long grew = hwm - rss0;
    fprintf(stderr, "dump.json of %ld kB: peak grew by %ld kB while it was read\n", size / 1024, grew);
    CHECK(grew < (size / 1024) / 2);   /* whole, it was more than the file */
}

static struct tree *read_cons(const char *text, struct pt_error *err) {
    const char *dir = pt_tmpdir("dump_stream_cons");
    char p[1200];
    snprintf(p, sizeof p, "%s/dump.json", dir);
    pt_write(p, "{\"task\": \"statistics\", \"level\": \"mix\", \"data\": {}}");
    snprintf(p, sizeof p, "%s/construct.json", dir);
    pt_write(p, text);
    struct tree *t = NULL;
    if (graph_read(dir, GRAPH_NO_STACK, &t, err) != 0) return NULL;
    return t;
}

/* "child parent micro" of construct entry i */
static const char *cons_at(const struct tree *t, size_t i, char *buf, size_t n) {
    if (i >= t->ncons) return "(none)";
    const char *par = tree_s(t, t->cons[i].parent);
    snprintf(buf, n, "%s %s %d", tree_s(t, t->cons[i].child), par ? par : "null", (int)t->cons[i].micro);
    return buf;
}

/* megatron_micro_step_number after the entries it governs, twice (the
 * last one counts, as json.load keeps it; the first stays an entry of its
 * own), a bad Megatron entry said only when the file is valid JSON. */
static void test_construct(void) {
    struct pt_error err;
    char b[256];
    struct tree *t = read_cons("{\"A\": [\"P\", 2], \"B\": \"P\", \"megatron_micro_step_number\": 3}", &err);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->megatron, 1);
        CHECK_INT(t->megatron_steps, 3);
        CHECK_INT(t->ncons, 2);
        CHECK_STR(cons_at(t, 0, b, sizeof b), "A P 2");
        CHECK_STR(cons_at(t, 1, b, sizeof b), "B P 0");
        tree_free(t);
    }
    t = read_cons("{\"megatron_micro_step_number\": 5, \"A\": [\"P\", 1], \"megatron_micro_step_number\": 7}", &err);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->megatron_steps, 7);
        CHECK_INT(t->ncons, 2);
        CHECK_STR(cons_at(t, 0, b, sizeof b), "megatron_micro_step_number null 0");
        CHECK_STR(cons_at(t, 1, b, sizeof b), "A P 1");
        tree_free(t);
    }
    t = read_cons("{\"A\": [\"P\", 1], \"B\": null}", &err);   /* no Megatron: a list is no parent */
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->megatron, 0);
        CHECK_STR(cons_at(t, 0, b, sizeof b), "A null 0");
        CHECK_STR(cons_at(t, 1, b, sizeof b), "B null 0");
        tree_free(t);
    }
    CHECK(read_cons("{\"A\": [\"P\"], \"megatron_micro_step_number\": 2}", &err) == NULL);
    CHECK_CONTAINS(err.msg, "\"A\": a Megatron entry must be [parent, micro_step]");
    CHECK(read_cons("{\"A\": [\"P\"], \"megatron_micro_step_number\": 2, \"B\": nul}", &err) == NULL);
    CHECK_CONTAINS(err.msg, "construct.json: line 1");
}

int main(void) {
    RUN(test_window_cut);
    RUN(test_memory);
    RUN(test_construct);
    PT_DONE();
}
