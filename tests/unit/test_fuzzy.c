/* test_fuzzy: msProbe's own unit tests of fuzzy matching (-fm), ported to
 * our compare (model/compare/compare*.c) through its public API.
 *
 * Sources (msProbe, repository Ascend/msprobe, folder test/msprobe_test/):
 *  - core_ut/compare/test_acc_compare.py, class TestMatch: test_rename_api,
 *    test_check_op_item, test_process_fuzzy_match, test_match_op_both_last_
 *    element, test_match_op_only_npu_last_element, test_match_op_only_bench_
 *    last_element, test_put_unmatched_in_table, test_gen_dtype_condition;
 *    class TestUtilsMethods: test_check_op_item_fuzzy.  These drive the
 *    table's two-queue walk (Match.process_fuzzy_match / match_op /
 *    check_op_item / rename_api); ours is the fuzzy branch of
 *    cmp_table_new, so each case is a pair of small dumps whose flattened
 *    rows are the rows of the Python test.
 *  - visualization_ut/compare/test_graph_comparator.py:
 *    test_compare_nodes_fuzzy (GraphComparator._compare_nodes_fuzzy with
 *    Graph.fuzzy_match mocked).  Ours is the fuzzy branch of cmp_graph_new.
 * Cases that cannot apply are named where they would be, with the reason.
 * The graph cases after the ported one check the rest of
 * _compare_nodes_fuzzy / _recount_api_node as msProbe's current source
 * does it (no msProbe test covers them); test_layermap.c has the key
 * rules (non-overlapping ".N." removal, "_rankN"). */
#include <sys/stat.h>

#include "model/compare/compare.h"
#include "pt_test.h"
#include "src/io/dump/read_graph.h"

/* ---- small dumps ---- */

/* A statistics tensor; the stats do not matter to matching. */
#define TEN(dtype, shape)                                                                                    \
    "{\"type\":\"torch.Tensor\",\"dtype\":\"" dtype "\",\"shape\":" shape ",\"Max\":1.0,\"Min\":0.0,"         \
    "\"Mean\":0.5,\"Norm\":1.0,\"requires_grad\":false}"
#define F32 TEN("torch.float32", "[1,2]")
/* A dump entry with the given input_args and output lists. */
#define ENTRY(name, ins, outs) "\"" name "\":{\"input_args\":[" ins "],\"input_kwargs\":{},\"output\":[" outs "]}"

/* Writes dir/sub/dump.json (with data, the text inside "data": {}) and, when
 * construct is not NULL, construct.json and an empty stack.json; reads it
 * back.  NULL on any failure (reported). */
static struct tree *dump(const char *dir, const char *sub, const char *data, const char *construct) {
    char d[1200], p[1300];
    snprintf(d, sizeof d, "%s/%s", dir, sub);
    if (mkdir(d, 0755) != 0) { fprintf(stderr, "mkdir %s failed\n", d); return NULL; }
    size_t n = strlen(data) + 200;
    char *text = malloc(n);
    if (!text) return NULL;
    snprintf(text, n, "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\","
                      "\"dump_data_dir\":null,\"data\":{%s}}", data);
    snprintf(p, sizeof p, "%s/dump.json", d);
    int rc = pt_write(p, text);
    free(text);
    if (rc == 0 && construct) {
        snprintf(p, sizeof p, "%s/construct.json", d);
        rc = pt_write(p, construct);
        snprintf(p, sizeof p, "%s/stack.json", d);
        if (rc == 0) rc = pt_write(p, "{}");
    }
    if (rc != 0) { fprintf(stderr, "cannot write %s\n", p); return NULL; }
    struct tree *t;
    struct pt_error err;
    if (graph_read(d, construct ? GRAPH_BUILD : 0, &t, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    return t;
}

/* ---- table (msprobe compare -fm) ---- */

/* One expected table row: the NPU row name and its Bench row name (NULL:
 * unmatched, the Bench half "N/A"). */
struct want { const char *npu, *bench; };

static struct cmp_table *fuzzy_table(const struct tree *npu, const struct tree *bench) {
    struct cmp_opts o = {.fuzzy = 1};
    struct cmp_table *t = NULL;
    struct pt_error err;
    if (cmp_table_new(npu, bench, &o, &t, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    return t;
}

/* The table has exactly these rows, in this order. */
static void check_rows(const struct cmp_table *t, const struct want *w, size_t n) {
    CHECK_INT((int)t->nrows, (int)n);
    for (size_t i = 0; i < n && i < t->nrows; i++) {
        const struct crow *r = &t->rows[i];
        char buf[512];
        CHECK_STR(cmp_table_cell(t, r, 0, buf, sizeof buf), w[i].npu);
        CHECK_STR(cmp_table_cell(t, r, 1, buf, sizeof buf), w[i].bench ? w[i].bench : "N/A");
        CHECK_INT(r->bp >= 0, w[i].bench != NULL);
    }
}

static void table_case(const char *name, const char *npu_data, const char *bench_data, const struct want *w,
                       size_t n) {
    const char *dir = pt_tmpdir(name);
    CHECK(dir != NULL);
    if (!dir) return;
    struct tree *a = dump(dir, "npu", npu_data, NULL), *b = dump(dir, "bench", bench_data, NULL);
    CHECK(a && b);
    struct cmp_table *t = a && b ? fuzzy_table(a, b) : NULL;
    CHECK(t != NULL);
    if (t) check_rows(t, w, n);
    cmp_table_free(t);
    tree_free(a);
    tree_free(b);
}

/* TestMatch.test_process_fuzzy_match: NPU rows conv2d.3, amax.1; Bench
 * conv2d.0, amax.0; each pairs with its namesake whatever the call count. */
static void test_process_fuzzy_match(void) {
    static const struct want w[] = {
        {"Functional.conv2d.3.forward.input.0", "Functional.conv2d.0.forward.input.0"},
        {"Functional.amax.1.forward.input.0", "Functional.amax.0.forward.input.0"},
    };
    table_case("fuzzy_process",
               ENTRY("Functional.conv2d.3.forward", TEN("float32", "[1,2]"), "") ","
               ENTRY("Functional.amax.1.forward", TEN("float32", "[1,2]"), ""),
               ENTRY("Functional.conv2d.0.forward", TEN("float32", "[1,2]"), "") ","
               ENTRY("Functional.amax.0.forward", TEN("float32", "[1,2]"), ""),
               w, 2);
}

/* TestMatch.test_check_op_item and TestUtilsMethods.test_check_op_item_fuzzy:
 * "Functional.linear.0.forward.input.0" and "...linear.1.forward.input.0"
 * (conv2d.0 / conv2d.1 in the second) are one name once the call count is
 * dropped. */
static void test_check_op_item(void) {
    static const struct want w1[] = {{"Functional.linear.0.forward.input.0", "Functional.linear.1.forward.input.0"}};
    table_case("fuzzy_check_linear", ENTRY("Functional.linear.0.forward", F32, ""),
               ENTRY("Functional.linear.1.forward", F32, ""), w1, 1);
    static const struct want w2[] = {{"Functional.conv2d.0.forward.input.0", "Functional.conv2d.1.forward.input.0"}};
    table_case("fuzzy_check_conv", ENTRY("Functional.conv2d.0.forward", TEN("torch.float32", "[1,1,28,28]"), ""),
               ENTRY("Functional.conv2d.1.forward", TEN("torch.float32", "[1,1,28,28]"), ""), w2, 1);
}

/* TestMatch.test_rename_api.  Its three assertions are assertTrue(result,
 * expected), which pass whatever rename_api returns, and the "expected"
 * texts ("Functional.linear.input.0" for both the forward and the backward
 * name) are not what msProbe's current rename_api returns: it keeps the
 * direction ("Functional.linear.0.forward.input.0" ->
 * "Functional.linear.forward.input.0", ".0.backward." ->
 * "Functional.linear.backward.input.0"; probetop-rules(7), MATCHING: Table matching).  Ported
 * with the values the function really returns:
 *  1. forward rows of two calls pair;
 *  2. a backward row does not pair with the forward row of the same call
 *     (it would if the direction were dropped, as the test's text says and
 *     as the older rename_api of Ascend-mstt's test_rename_api did:
 *     "Distributed.broadcast.0.forward.input.0" ->
 *     "Distributed.broadcast.input.0" -- removed from msProbe);
 *  3. "Functional.linear.0.x.input.0" (no direction) is returned unchanged
 *     by rename_api, but such an entry never becomes a table row
 *     (ParseData.gen_data_df skips entries without forward / backward /
 *     parameters_grad in their last two segments), so here it only must not
 *     disturb the walk. */
static void test_rename_api(void) {
    static const struct want w1[] = {
        {"Functional.linear.0.forward.input.0", "Functional.linear.5.forward.input.0"},
        {"Functional.linear.0.forward.output.0", "Functional.linear.5.forward.output.0"},
    };
    table_case("fuzzy_rename_fw", ENTRY("Functional.linear.0.forward", F32, F32),
               ENTRY("Functional.linear.5.forward", F32, F32), w1, 2);
    /* backward problem rows, forward benchmark rows: nothing pairs */
    static const struct want w2[] = {
        {"Functional.linear.0.backward.input.0", NULL},
    };
    table_case("fuzzy_rename_bw", ENTRY("Functional.linear.0.backward", F32, ""),
               ENTRY("Functional.linear.0.forward", F32, ""), w2, 1);
    /* ...while two backward calls do */
    static const struct want w3[] = {
        {"Functional.linear.0.backward.input.0", "Functional.linear.3.backward.input.0"},
    };
    table_case("fuzzy_rename_bw2", ENTRY("Functional.linear.0.backward", F32, ""),
               ENTRY("Functional.linear.3.backward", F32, ""), w3, 1);
    static const struct want w4[] = {
        {"Functional.linear.0.forward.input.0", "Functional.linear.1.forward.input.0"},
    };
    table_case("fuzzy_rename_x", ENTRY("Functional.linear.0.x", F32, "") "," ENTRY("Functional.linear.0.forward", F32, ""),
               ENTRY("Functional.linear.1.forward", F32, ""), w4, 1);
}

/* TestMatch.test_match_op_*: match_op on given queues.  Our walk is not
 * callable on a queue, so each case is the dump whose walk reaches that
 * queue state:
 *  - both_last_element: queues [conv2d.0.in.0] / [conv2d.1.in.0] -> (0, 0):
 *    the first step of a walk;
 *  - only_npu_last_element: [conv2d.0.in.0] / [conv2d.1.in.0, x] -> (0, 0),
 *    the last NPU row against an earlier Bench row: reached with NPU
 *    [Torch.a, conv2d.0] and Bench [conv2d.1, Torch.b] (step 0 finds
 *    nothing, step 1 pairs conv2d with the earlier Bench row and leaves
 *    Torch.a unmatched);
 *  - only_bench_last_element: [conv2d.0.in.0, conv2d.0.in.1] /
 *    [conv2d.1.in.0] -> (0, 0), an earlier NPU row against the last Bench
 *    row: reached with NPU [conv2d.0 in.0, in.1] and Bench [Torch.b,
 *    conv2d.1 in.0] (in.1 is tried first against both Bench rows, then in.0
 *    pairs with the last; in.1 is left over, unmatched). */
static void test_match_op(void) {
    static const struct want both[] = {
        {"Functional.conv2d.0.forward.input.0", "Functional.conv2d.1.forward.input.0"},
    };
    table_case("fuzzy_op_both", ENTRY("Functional.conv2d.0.forward", F32, ""),
               ENTRY("Functional.conv2d.1.forward", F32, ""), both, 1);
    static const struct want npu_last[] = {
        {"Torch.a.0.forward.input.0", NULL},
        {"Functional.conv2d.0.forward.input.0", "Functional.conv2d.1.forward.input.0"},
    };
    table_case("fuzzy_op_npu_last",
               ENTRY("Torch.a.0.forward", F32, "") "," ENTRY("Functional.conv2d.0.forward", F32, ""),
               ENTRY("Functional.conv2d.1.forward", F32, "") "," ENTRY("Torch.b.0.forward", F32, ""), npu_last, 2);
    static const struct want bench_last[] = {
        {"Functional.conv2d.0.forward.input.0", "Functional.conv2d.1.forward.input.0"},
        {"Functional.conv2d.0.forward.input.1", NULL},
    };
    table_case("fuzzy_op_bench_last", ENTRY("Functional.conv2d.0.forward", F32 "," F32, ""),
               ENTRY("Torch.b.0.forward", F32, "") "," ENTRY("Functional.conv2d.1.forward", F32, ""), bench_last, 2);
}

/* TestMatch.test_put_unmatched_in_table: an NPU row without a partner has
 * every Bench column "N/A".  (test_put_matched_in_table only concatenates
 * pandas rows: nothing of ours corresponds.) */
static void test_put_unmatched(void) {
    const char *dir = pt_tmpdir("fuzzy_unmatched");
    struct tree *a = dump(dir, "npu", ENTRY("Torch.op.0.forward", F32, ""), NULL),
                *b = dump(dir, "bench", ENTRY("Torch.other.0.forward", F32, ""), NULL);
    struct cmp_table *t = a && b ? fuzzy_table(a, b) : NULL;
    CHECK(t != NULL);
    if (t && t->nrows == 1) {
        char buf[256];
        const char *const *h = cmp_header(t->mode);
        for (int c = 0; h[c]; c++) {
            if (strncmp(h[c], "Bench ", 6)) continue;
            CHECK_STR(cmp_table_cell(t, &t->rows[0], c, buf, sizeof buf), "N/A");
        }
        CHECK_STR(cmp_table_cell(t, &t->rows[0], 0, buf, sizeof buf), "Torch.op.0.forward.input.0");
    } else CHECK_INT(t ? (int)t->nrows : -1, 1);
    cmp_table_free(t);
    tree_free(a);
    tree_free(b);
}

/* TestMatch.test_gen_dtype_condition: after the fuzzy walk the dtype gate
 * still applies: Float16/Float32 and torch.float32/torch.bfloat16 pass
 * (same group), torch.float32/torch.int64 does not and the Bench half is
 * reset to N/A although the names paired.  (Its data_mapping half is the
 * -dm path, not fuzzy; test_process_cross_frame_dtype needs MindSpore vs
 * PyTorch dtypes, which our compare refuses without a layer mapping.) */
static void test_dtype_gate(void) {
    static const struct want w[] = {
        {"Torch.a.0.forward.input.0", "Torch.a.4.forward.input.0"},
        {"Torch.b.0.forward.input.0", "Torch.b.4.forward.input.0"},
        {"Torch.c.0.forward.input.0", NULL},
    };
    table_case("fuzzy_dtype",
               ENTRY("Torch.a.0.forward", TEN("Float16", "[2]"), "") ","
               ENTRY("Torch.b.0.forward", TEN("torch.float32", "[2]"), "") ","
               ENTRY("Torch.c.0.forward", TEN("torch.float32", "[2]"), ""),
               ENTRY("Torch.a.4.forward", TEN("Float32", "[2]"), "") ","
               ENTRY("Torch.b.4.forward", TEN("torch.bfloat16", "[2]"), "") ","
               ENTRY("Torch.c.4.forward", TEN("torch.int64", "[2]"), ""),
               w, 3);
}

/* Not a msProbe test: process_fuzzy_match's loop ends as soon as exactly
 * one queue is empty after a push, so once the Bench rows are used up only
 * the NPU row pushed at that step is kept (unmatched); the NPU rows after
 * it never reach the table.  probetop-rules(7), MATCHING: Table matching ("stop when exactly one
 * queue is empty"). */
static void test_walk_stops(void) {
    static const struct want w[] = {
        {"Torch.a.0.forward.input.0", "Torch.a.9.forward.input.0"},
        {"Torch.b.0.forward.input.0", NULL},
    };
    table_case("fuzzy_stops",
               ENTRY("Torch.a.0.forward", F32, "") "," ENTRY("Torch.b.0.forward", F32, "") ","
               ENTRY("Torch.c.0.forward", F32, ""),
               ENTRY("Torch.a.9.forward", F32, ""), w, 2);
}

/* Not portable: core_ut/compare tests of the old per-op matcher
 * (Ascend-mstt's test_match_op with fuzzy_match=False/True over op dicts,
 * check_op / fuzzy_check_op, which also required equal input/output
 * structs): msProbe replaced it with the row-wise walk above. */

/* ---- graph (graph_visualize -fm) ---- */

static struct cmp_graph *fuzzy_graph(const struct tree *npu, const struct tree *bench) {
    struct cmp_opts o = {.fuzzy = 1};
    struct cmp_graph *g = NULL;
    struct pt_error err;
    if (cmp_graph_new(npu, bench, &o, &g, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    return g;
}

/* The Bench partner of NPU node id, "" when unmatched, "?" when no such
 * node. */
static const char *partner(const struct cmp_graph *g, const char *id) {
    int n = tree_find(g->npu, id);
    if (n < 0) return "?";
    int b = g->nodes[n].bench;
    return b < 0 ? "" : tree_id(g->bench, b);
}

/* The NPU partner of Bench node id, the same way. */
static const char *bpartner(const struct cmp_graph *g, const char *id) {
    int b = tree_find(g->bench, id);
    if (b < 0) return "?";
    int n = g->bmatch[b];
    return n < 0 ? "" : tree_id(g->npu, n);
}

struct gcase {
    struct tree *a, *b;
    struct cmp_graph *g;
};

static int graph_case(struct gcase *c, const char *name, const char *npu_data, const char *npu_cons,
                      const char *bench_data, const char *bench_cons) {
    memset(c, 0, sizeof *c);
    const char *dir = pt_tmpdir(name);
    if (!dir) return -1;
    c->a = dump(dir, "npu", npu_data, npu_cons);
    c->b = dump(dir, "bench", bench_data, bench_cons);
    if (c->a && c->b) c->g = fuzzy_graph(c->a, c->b);
    CHECK(c->g != NULL);
    return c->g ? 0 : -1;
}

static void graph_done(struct gcase *c) {
    cmp_graph_free(c->g);
    tree_free(c->a);
    tree_free(c->b);
}

#define MOD_IO ENTRY("Module.m.M.forward.0", F32, F32)

/* test_graph_comparator.test_compare_nodes_fuzzy: a module holding API
 * Tensor.a, its counterpart holding Tensor.b; the two APIs do not share a
 * key ("Tensor.a.0" recounts as "Tensor.a.01", "Tensor.b.0" as
 * "Tensor.b.01"), so the Bench API keeps an empty link.  The Python test
 * mocks Graph.fuzzy_match to pair the modules (Module.a.0 with Module.b.0)
 * whatever their ids, and its NPU-API link ['Module.b.0', 'Module.b.0'] is
 * the mock's one list appended to twice; neither is msProbe behaviour.  Here
 * the modules share their id (fuzzy_match is given the Bench node of the
 * NPU node's id) and then differ, as the mock's ids did. */
static void test_compare_nodes_fuzzy(void) {
    struct gcase c;
    if (graph_case(&c, "fuzzy_graph_mock", MOD_IO "," ENTRY("Tensor.a.0.forward", F32, F32),
                   "{\"Module.m.M.forward.0\": null, \"Tensor.a.0.forward\": \"Module.m.M.forward.0\"}",
                   MOD_IO "," ENTRY("Tensor.b.0.forward", F32, F32),
                   "{\"Module.m.M.forward.0\": null, \"Tensor.b.0.forward\": \"Module.m.M.forward.0\"}") == 0) {
        CHECK_STR(partner(c.g, "Module.m.M.forward.0"), "Module.m.M.forward.0");
        CHECK_STR(partner(c.g, "Tensor.a.0.forward"), "");
        CHECK_STR(bpartner(c.g, "Tensor.b.0.forward"), "");
        CHECK_INT((int)c.g->nunmatched_npu, 1);
        CHECK_INT((int)c.g->nunmatched_bench, 1);
    }
    graph_done(&c);
    /* modules of different ids: no module match, so no API pairing either */
    if (graph_case(&c, "fuzzy_graph_ids", ENTRY("Module.a.M.forward.0", F32, F32) "," ENTRY("Tensor.a.0.forward", F32, F32),
                   "{\"Module.a.M.forward.0\": null, \"Tensor.a.0.forward\": \"Module.a.M.forward.0\"}",
                   ENTRY("Module.b.M.forward.0", F32, F32) "," ENTRY("Tensor.a.1.forward", F32, F32),
                   "{\"Module.b.M.forward.0\": null, \"Tensor.a.1.forward\": \"Module.b.M.forward.0\"}") == 0) {
        CHECK_STR(partner(c.g, "DefaultModel"), "DefaultModel");
        CHECK_STR(partner(c.g, "Module.a.M.forward.0"), "");
        CHECK_STR(partner(c.g, "Tensor.a.0.forward"), "");
        CHECK_INT((int)c.g->nmatched, 1);
    }
    graph_done(&c);
}

/* _recount_api_node as msProbe's current GraphComparator has it: inside a
 * matched module the APIs pair by name without call count, in their order
 * of call among the module's APIs of that name; other names interleave
 * freely; an API is never looked up by id, so the same id under a module
 * of another name stays unmatched.  The shapes of the pair are not
 * checked: older msProbe versions had Graph.fuzzy_match(check_shape) with
 * BaseNode.fuzzy_eq / compare_data_fuzzy (equal input and output shapes
 * required), current BaseNode has no fuzzy_eq and compares nodes by id
 * only; probetop-rules(7), MATCHING: Graph matching has no shape condition either.  The pair's
 * rows then carry the shape difference to the verdict (probetop-rules(7), VERDICTS). */
static void test_recount(void) {
    struct gcase c;
    const char *npu = MOD_IO "," ENTRY("Torch.matmul.3.forward", F32, F32) "," ENTRY("Tensor.add.5.forward", F32, F32)
        "," ENTRY("Torch.matmul.4.forward", F32, TEN("torch.float32", "[9,9]")) ","
        ENTRY("Module.x.X.forward.0", F32, F32) "," ENTRY("Torch.relu.0.forward", F32, F32);
    const char *npu_cons = "{\"Module.m.M.forward.0\": null, \"Torch.matmul.3.forward\": \"Module.m.M.forward.0\", "
                           "\"Tensor.add.5.forward\": \"Module.m.M.forward.0\", "
                           "\"Torch.matmul.4.forward\": \"Module.m.M.forward.0\", "
                           "\"Module.x.X.forward.0\": null, \"Torch.relu.0.forward\": \"Module.x.X.forward.0\"}";
    const char *bench = MOD_IO "," ENTRY("Torch.matmul.0.forward", F32, F32) "," ENTRY("Torch.matmul.1.forward", F32, F32)
        "," ENTRY("Tensor.add.0.forward", F32, F32) "," ENTRY("Module.y.Y.forward.0", F32, F32) ","
        ENTRY("Torch.relu.0.forward", F32, F32);
    const char *bench_cons = "{\"Module.m.M.forward.0\": null, \"Torch.matmul.0.forward\": \"Module.m.M.forward.0\", "
                             "\"Torch.matmul.1.forward\": \"Module.m.M.forward.0\", "
                             "\"Tensor.add.0.forward\": \"Module.m.M.forward.0\", "
                             "\"Module.y.Y.forward.0\": null, \"Torch.relu.0.forward\": \"Module.y.Y.forward.0\"}";
    if (graph_case(&c, "fuzzy_recount", npu, npu_cons, bench, bench_cons) == 0) {
        CHECK_STR(partner(c.g, "Torch.matmul.3.forward"), "Torch.matmul.0.forward");
        CHECK_STR(partner(c.g, "Torch.matmul.4.forward"), "Torch.matmul.1.forward");
        CHECK_STR(partner(c.g, "Tensor.add.5.forward"), "Tensor.add.0.forward");
        CHECK_STR(partner(c.g, "Torch.relu.0.forward"), "");
        CHECK_STR(bpartner(c.g, "Torch.relu.0.forward"), "");
        /* the [9,9] output against [1,2]: paired, and an error */
        int m4 = tree_find(c.a, "Torch.matmul.4.forward");
        CHECK(m4 >= 0 && c.g->nodes[m4].index == CL_ERROR);
        int m3 = tree_find(c.a, "Torch.matmul.3.forward");
        CHECK(m3 >= 0 && c.g->nodes[m3].index == CL_PASS);
    }
    graph_done(&c);
}

/* Collections between modules are not APIs: matched by id, then their APIs
 * by key like a module's; a lone API between modules stays under the root,
 * which is matched by id too, and pairs by key among the root's APIs. */
static void test_collections(void) {
    struct gcase c;
    const char *npu = ENTRY("Tensor.to.3.forward", F32, F32) "," ENTRY("Tensor.to.4.forward", F32, F32) ","
        ENTRY("Module.fc.Linear.forward.0", F32, F32) "," ENTRY("Functional.linear.7.forward", F32, F32) ","
        ENTRY("Torch.relu.2.forward", F32, F32) "," ENTRY("Module.fc.Linear.forward.1", F32, F32);
    const char *npu_cons = "{\"Tensor.to.3.forward\": null, \"Tensor.to.4.forward\": null, "
                           "\"Module.fc.Linear.forward.0\": null, "
                           "\"Functional.linear.7.forward\": \"Module.fc.Linear.forward.0\", "
                           "\"Torch.relu.2.forward\": null, \"Module.fc.Linear.forward.1\": null}";
    const char *bench = ENTRY("Tensor.to.0.forward", F32, F32) "," ENTRY("Tensor.to.1.forward", F32, F32) ","
        ENTRY("Module.fc.Linear.forward.0", F32, F32) "," ENTRY("Functional.linear.0.forward", F32, F32) ","
        ENTRY("Torch.relu.0.forward", F32, F32) "," ENTRY("Module.fc.Linear.forward.1", F32, F32);
    const char *bench_cons = "{\"Tensor.to.0.forward\": null, \"Tensor.to.1.forward\": null, "
                             "\"Module.fc.Linear.forward.0\": null, "
                             "\"Functional.linear.0.forward\": \"Module.fc.Linear.forward.0\", "
                             "\"Torch.relu.0.forward\": null, \"Module.fc.Linear.forward.1\": null}";
    if (graph_case(&c, "fuzzy_apis", npu, npu_cons, bench, bench_cons) == 0) {
        CHECK_STR(partner(c.g, "Apis_Between_Modules.0"), "Apis_Between_Modules.0");
        CHECK_STR(partner(c.g, "Tensor.to.3.forward"), "Tensor.to.0.forward");
        CHECK_STR(partner(c.g, "Tensor.to.4.forward"), "Tensor.to.1.forward");
        CHECK_STR(partner(c.g, "Functional.linear.7.forward"), "Functional.linear.0.forward");
        int relu = tree_find(c.a, "Torch.relu.2.forward");
        CHECK(relu >= 0 && c.a->nodes[relu].parent == c.a->root);
        CHECK_STR(partner(c.g, "Torch.relu.2.forward"), "Torch.relu.0.forward");
        CHECK_INT((int)c.g->nunmatched_npu, 0);
        CHECK_INT((int)c.g->nunmatched_bench, 0);
    }
    graph_done(&c);
}

int main(void) {
    RUN(test_process_fuzzy_match);
    RUN(test_check_op_item);
    RUN(test_rename_api);
    RUN(test_match_op);
    RUN(test_put_unmatched);
    RUN(test_dtype_gate);
    RUN(test_walk_stops);
    RUN(test_compare_nodes_fuzzy);
    RUN(test_recount);
    RUN(test_collections);
    PT_DONE();
}
