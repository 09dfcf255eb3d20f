/* trace_split (src/io/trace/trace_split.h): a big plain trace file parsed
 * on two threads gives the records one pass gives, field by field; the
 * halves are merged only when the first half's tokenizer meets the guessed
 * boundary as an event of the list (never one inside a string or an
 * object), and a second half that fails leaves the message to the one
 * pass (probetop-formats(5), PROFILER TRACES: Memory). */
#include "pt_test.h"
#include "pt_trace.h"
#include "pt_tracefast.h"

#include "src/io/trace/trace_parse.h"
#include "src/io/trace/trace_split.h"
#include "src/io/trace/trace_src.h"

static int mappable(const char *path) {
    struct trace_src s;
    struct pt_error err;
    if (trace_src_open(&s, path, &err)) return 0;
    int m = s.map != NULL;
    trace_src_close(&s);
    return m;
}

static void put(const char *path, const char *text) {
    FILE *o = fopen(path, "wb");
    CHECK(o != NULL);
    if (!o) return;
    fputs(text, o);
    fclose(o);
}

static int parse(const char *path, uint64_t split_min, struct trace_parse_file *f, struct trace_parse_names *nm, struct pt_error *err) {
    memset(f, 0, sizeof *f);
    memset(nm, 0, sizeof *nm);
    f->split_min = split_min;
    return trace_parse(path, nm, TRACE_PARSE_MAX_VALUE, NULL, f, err);
}

/* path parsed in one pass and split: the same records, or the same
 * message (tests/pt_tracefast.h); merged: whether the split must have
 * merged (-1: either). */
static void one_vs_split(const char *path, int merged) {
    char why[512];
    int m = -1;
    int same = pt_tracesplit_same(path, TRACE_PARSE_MAX_VALUE, &m, why, sizeof why);
    CHECK(same);
    if (!same) fprintf(stderr, "%s: %s\n", path, why);
    if (merged >= 0 && mappable(path)) CHECK_INT(m, merged);
    CHECK(pt_tracesplit_same(path, 4096, &m, why, sizeof why));
}

#define KERNEL(ts, corr, name) "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, \"tid\": 7, \"ts\": " #ts \
    ", \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": " #corr "}}"
#define LAUNCH(ts, corr) "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": 1, \"ts\": " \
    #ts ", \"dur\": 2, \"args\": {\"correlation\": " #corr "}}"

/* 0, 1 and 2 events; a list of torch_npu's form (no object around it). */
static void small_lists(void) {
    const char *d = pt_tmpdir("split_small");
    char p[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(p, sizeof p, "%s/t.json", d);
    put(p, "{\"traceEvents\": []}\n");
    one_vs_split(p, 0);
    put(p, "{\"traceEvents\": [" KERNEL(10, 1, "k") "]}\n");
    one_vs_split(p, 0);
    /* two events, the first the longer: the middle is in it, the boundary after it */
    put(p, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a_kernel_with_a_long_name_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7, "
           "\"correlation\": 1}},\n  " KERNEL(20, 2, "k") "], \"baseTimeNanoseconds\": 5000}\n");
    one_vs_split(p, 1);
    put(p, "[" LAUNCH(1, 1) ",\n" LAUNCH(2, 2) ",\n" KERNEL(3, 1, "k1") ",\n" KERNEL(9, 2, "k2") "]\n");
    one_vs_split(p, 1);
}

/* The boundary's '}' at the very middle byte; and one inside a string
 * that holds "}, {" (the first half never meets it: not merged), and
 * inside an object's list of objects. */
static void boundaries(void) {
    const char *d = pt_tmpdir("split_bound");
    char p[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(p, sizeof p, "%s/t.json", d);
    char buf[4096], name[512];
    int found = 0;
    /* the second event's name padded until the first's '}' is byte n/2 */
    for (size_t pad = 1; pad < 400; pad++) {
        memset(name, 'k', pad);
        name[pad] = '\0';
        snprintf(buf, sizeof buf, "{\"traceEvents\": [" KERNEL(10, 1, "k") ", {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", "
                 "\"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 2}}]}", name);
        size_t n = strlen(buf), close = (size_t)(strstr(buf, "}}") - buf) + 1;
        if (close != n / 2) continue;
        put(p, buf);
        CHECK_INT(trace_split_guess(buf, n, n / 2, 1 << 20), (long long)(close + 3));
        one_vs_split(p, 1);
        found = 1;
        break;
    }
    CHECK(found);
    /* a string full of "}, {" and "},\n{" across the middle */
    size_t cap = 200000, len = 0;
    char *t = malloc(cap);
    CHECK(t != NULL);
    if (!t) return;
    len += (size_t)snprintf(t + len, cap - len, "{\"traceEvents\": [" LAUNCH(1, 1) ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"odd");
    for (int i = 0; i < 3000; i++) len += (size_t)snprintf(t + len, cap - len, i & 1 ? "}, {" : "},\\n{\\\"ph\\\": \\\"X\\\"");
    len += (size_t)snprintf(t + len, cap - len, "\", \"pid\": 0, \"tid\": 1, \"ts\": 3, \"dur\": 1}, " KERNEL(4, 1, "k") "]}\n");
    put(p, t);
    one_vs_split(p, 0);
    /* a list of objects in an event's args across the middle */
    len = (size_t)snprintf(t, cap, "{\"traceEvents\": [" LAUNCH(1, 1) ", {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"n\", \"pid\": 0, "
                                    "\"tid\": 1, \"ts\": 3, \"dur\": 1, \"args\": {\"l\": [");
    for (int i = 0; i < 3000; i++) len += (size_t)snprintf(t + len, cap - len, "%s{\"a\": %d}", i ? ",\n" : "", i);
    snprintf(t + len, cap - len, "]}}, " KERNEL(4, 1, "k") "]}\n");
    put(p, t);
    one_vs_split(p, 0);
    free(t);
}

/* Process groups met in the first half and used in the second: a
 * send's peer through the group's ranks ("Rank"), a description given
 * late; a file cut in its second half: the one pass's message. */
static void groups_and_cut(void) {
    const char *d = pt_tmpdir("split_pg");
    char p[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(p, sizeof p, "%s/t.json", d);
#define NCCL(ts, corr, args) "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv\", \"pid\": 0, \"tid\": 7, \"ts\": " \
    #ts ", \"dur\": 5, \"args\": {\"stream\": 9, \"correlation\": " #corr ", " args "}}"
    size_t cap = 400000, len = 0;
    char *t = malloc(cap);
    CHECK(t != NULL);
    if (!t) return;
    len += (size_t)snprintf(t + len, cap - len, "{\"traceEvents\": [\n" NCCL(1, 1, "\"Process Group Name\": \"3\", \"Process Group Ranks\": \"[0, 4, 8]\", \"Collective name\": \"send\", \"Rank\": 2"));
    for (int i = 0; i < 800; i++)
        len += (size_t)snprintf(t + len, cap - len, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5, "
                                                   "\"args\": {\"stream\": 7, \"correlation\": %d}}", i % 13, 100 + i, 10 + i);
    len += (size_t)snprintf(t + len, cap - len, ",\n" NCCL(5000, 2, "\"Process Group Name\": \"3\", \"Collective name\": \"recv\", \"Rank\": 1"));
    len += (size_t)snprintf(t + len, cap - len, ",\n" NCCL(5010, 3, "\"Process Group Name\": \"3\", \"Process Group Description\": \"PIPELINE_MODEL_PARALLEL_GROUP\", \"Collective name\": \"send\", \"Rank\": 0"));
    len += (size_t)snprintf(t + len, cap - len, ",\n" NCCL(5020, 4, "\"Process Group Name\": \"5\", \"Collective name\": \"send\", \"Rank\": 0"));
    len += (size_t)snprintf(t + len, cap - len, ",\n" NCCL(5030, 5, "\"Process Group Name\": \"5\", \"Process Group Ranks\": \"[1, 3]\", \"Collective name\": \"recv\", \"Rank\": 1"));
    len += (size_t)snprintf(t + len, cap - len, ",\n" NCCL(5040, 6, "\"Process Group Name\": \"5\", \"Collective name\": \"recv\", \"Rank\": 1"));
    for (int i = 0; i < 200; i++)
        len += (size_t)snprintf(t + len, cap - len, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"late%d\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": 5, "
                                                   "\"args\": {\"stream\": 7, \"correlation\": %d}}", i % 7, 6000 + i, 2000 + i);
    len += (size_t)snprintf(t + len, cap - len, "\n]}\n");
    put(p, t);
    one_vs_split(p, 1);
    struct trace_parse_file f;
    struct trace_parse_names nm;
    struct pt_error err;
    CHECK_INT(parse(p, 1, &f, &nm, &err), 0);
    CHECK_INT(f.npgs, 2);
    if (f.npgs == 2) CHECK_STR(f.pgs[0].desc, "PIPELINE_MODEL_PARALLEL_GROUP");
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
    /* cut in the second half: "ends early" at the file's last byte, as one pass says */
    size_t cut = len * 3 / 4;
    t[cut] = '\0';
    put(p, t);
    one_vs_split(p, -1);
    CHECK(parse(p, 1, &f, &nm, &err) != 0);
    char want[64];
    snprintf(want, sizeof want, "after byte %zu", cut);
    CHECK(strstr(err.msg, "ends early") && strstr(err.msg, want));
    if (!strstr(err.msg, want)) fprintf(stderr, "%s\n", err.msg);
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
    free(t);
}

/* Generated runs: pipeline sends and receives, TP and EP groups, phases. */
static void generated(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("split_gen");
    char p[1200];
    if (!d || gen(d, "--ranks 4 --pp 2 --tp 2 --steps 3 --micro 4 --p2p --pg-args full --recompute") != 0) { CHECK(!"gen failed"); return; }
    for (int r = 0; r < 4; r++) {
        snprintf(p, sizeof p, "%s/rank_%d.json", d, r);
        one_vs_split(p, 1);
    }
}

int main(void) {
    RUN(small_lists);
    RUN(boundaries);
    RUN(groups_and_cut);
    RUN(generated);
    PT_DONE();
}
