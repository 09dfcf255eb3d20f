/* The data-flow links (model/graph/dataflow.h, src/session/flow.h): the
 * producer of an input and the consumers of an output, by statistics or
 * checksum within one dump and across ranks through send/recv, and the
 * walk with its breadcrumb.
 *
 * Expected links were read by hand from the dump.json files: the
 * generators' (tests/gen_dump.py writes a tensor passed from one op to the
 * next with identical statistics) and msProbe's own quick_start GPU dump
 * in tests/data (its records quoted at each check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/graph/comm.h"
#include "model/graph/dataflow.h"
#include "pt_test.h"
#include "src/io/dump/read_graph.h"
#include "src/session/flow.h"
#include "src/session/graphs.h"
#include "src/session/session.h"

static int have_python(void) {
    const char *py = getenv("PT_PYTHON");
    return py && py[0] && access(py, X_OK) == 0;
}

/* One rank folder, its tree built as the tree pane has it. */
static struct tree *load(const char *dir) {
    struct tree *t = NULL;
    struct pt_error err = {{0}};
    if (graph_read(dir, GRAPH_BUILD | GRAPH_NO_STACK, &t, &err) != 0) {
        fprintf(stderr, "%s: %s\n", dir, err.msg);
        return NULL;
    }
    return t;
}

/* The param `slot` ("input.0") of record `rec`, UINT32_MAX when absent. */
static uint32_t param_of(const struct tree *t, const char *rec, const char *slot) {
    int r = tree_find_record(t, rec);
    if (r < 0) return UINT32_MAX;
    char want[1024];
    snprintf(want, sizeof want, "%s.%s", rec, slot);
    for (uint32_t k = 0; k < t->recs[r].np; k++)
        if (tree_pname_eq(t, r, &t->params[t->recs[r].p0 + k], want, strlen(want))) return t->recs[r].p0 + k;
    return UINT32_MAX;
}

/* The producer of rec's input `slot`: "RECORD SLOT METHOD", or "none". */
static const char *producer(const struct tree *t, const struct dataflow *d, const char *rec, const char *slot,
                            char *buf, size_t size) {
    struct dataflow_link l;
    uint32_t p = param_of(t, rec, slot);
    if (p == UINT32_MAX || !dataflow_producer(d, p, &l)) return snprintf(buf, size, "none"), buf;
    struct tree_pn nb = {0};
    const char *rn = tree_s(t, t->recs[l.rec].name), *pn = tree_pname(t, &t->params[l.param], &nb);
    snprintf(buf, size, "%s %s %s", rn, pn + strlen(rn) + 1, dataflow_method_name(l.method));
    tree_pn_free(&nb);
    return buf;
}

/* Is consumer rec's `slot` among the consumers of output `out` of `prod`? */
static int consumes(const struct tree *t, const struct dataflow *d, const char *prod, const char *out, const char *rec,
                    const char *slot) {
    const uint32_t *ins;
    uint32_t n = dataflow_consumers(d, param_of(t, prod, out), &ins), want = param_of(t, rec, slot);
    for (uint32_t i = 0; i < n; i++)
        if (ins[i] == want) return 1;
    return 0;
}

/* msProbe's quick_start ResNet-50 dump (tests/data): links read off its
 * dump.json.  Record 0 Functional.conv2d.0.forward outputs float32
 * [32,64,112,112] Max 0.8485141396522522 Norm 954.3693237304688, which is
 * the input of record 3 Functional.batch_norm.0.forward (record 1, the
 * module Module.conv1.Conv2d.forward.0, repeats it: an API is preferred);
 * batch_norm.0's output (Max 6.006131172180176, Norm 5065.47900390625) is
 * relu.0's input; max_pool2d.0's output (Norm 3993.422607421875) is the
 * input of conv2d.1 and, 19 records later, of the downsample conv2d.4;
 * Tensor.__iadd__.0 adds batch_norm.3's output (Norm 5068.390625) and
 * batch_norm.4's (Norm 5068.3974609375). */
static void test_real_gpu_dump(void) {
    struct tree *t = load(pt_fixture("examples/quick_start/gpu_dump/step0/proc2016"));
    CHECK(t != NULL);
    if (!t) return;
    struct dataflow *d = NULL;
    struct pt_error err = {{0}};
    CHECK_INT(dataflow_build(t, &d, &err), 0);
    char b[512];
    CHECK_STR(producer(t, d, "Functional.batch_norm.0.forward", "input.0", b, sizeof b),
              "Functional.conv2d.0.forward output.0 statistics");
    CHECK_STR(producer(t, d, "Functional.relu.0.forward", "input.0", b, sizeof b),
              "Functional.batch_norm.0.forward output.0 statistics");
    CHECK_STR(producer(t, d, "Functional.conv2d.1.forward", "input.0", b, sizeof b),
              "Functional.max_pool2d.0.forward output.0 statistics");
    CHECK_STR(producer(t, d, "Functional.conv2d.4.forward", "input.0", b, sizeof b),
              "Functional.max_pool2d.0.forward output.0 statistics");
    CHECK_STR(producer(t, d, "Tensor.__iadd__.0.forward", "input.0", b, sizeof b),
              "Functional.batch_norm.3.forward output.0 statistics");
    CHECK_STR(producer(t, d, "Tensor.__iadd__.0.forward", "input.1", b, sizeof b),
              "Functional.batch_norm.4.forward output.0 statistics");
    /* a module's input: its first op's producer too */
    CHECK_STR(producer(t, d, "Module.layer1.0.downsample.Sequential.forward.0", "input.0", b, sizeof b),
              "Functional.max_pool2d.0.forward output.0 statistics");
    /* the network's input comes from no op of the dump */
    CHECK_STR(producer(t, d, "Functional.conv2d.0.forward", "input.0", b, sizeof b), "none");
    /* consumers: max_pool2d.0's output feeds both branches of the block */
    CHECK(consumes(t, d, "Functional.max_pool2d.0.forward", "output.0", "Functional.conv2d.1.forward", "input.0"));
    CHECK(consumes(t, d, "Functional.max_pool2d.0.forward", "output.0", "Functional.conv2d.4.forward", "input.0"));
    CHECK(!consumes(t, d, "Functional.max_pool2d.0.forward", "output.0", "Functional.relu.0.forward", "input.0"));
    /* a module's output has its last op's consumers */
    CHECK(consumes(t, d, "Module.maxpool.MaxPool2d.forward.0", "output.0", "Functional.conv2d.1.forward", "input.0"));
    dataflow_free(d);
    tree_free(t);
}

/* A dump written here: equal statistics, different checksums. */
static void test_checksum(void) {
    char dir[] = "/tmp/pt_dataflow_XXXXXX";
    if (!mkdtemp(dir)) { CHECK(!"mkdtemp"); return; }
    char p[256];
#define TS(md5) "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"Max\":1.0,\"Min\":0.0," \
                "\"Mean\":0.5,\"Norm\":1.0,\"requires_grad\":false,\"md5\":\"" md5 "\"}"
    const char *dump = "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\",\"dump_data_dir\":null,\"data\":{"
        "\"Functional.relu.0.forward\":{\"input_args\":[" TS("00000001") "],\"input_kwargs\":{},\"output\":[" TS("0000000a") "]},"
        "\"Functional.relu.1.forward\":{\"input_args\":[" TS("00000002") "],\"input_kwargs\":{},\"output\":[" TS("0000000b") "]},"
        "\"Functional.linear.0.forward\":{\"input_args\":[" TS("0000000a") "],\"input_kwargs\":{},\"output\":[" TS("0000000c") "]}"
        "}}";
    const char *cons = "{\"Functional.relu.0.forward\":null,\"Functional.relu.1.forward\":null,\"Functional.linear.0.forward\":null}";
    snprintf(p, sizeof p, "%s/dump.json", dir);
    FILE *f = fopen(p, "w");
    if (f) fputs(dump, f), fclose(f);
    snprintf(p, sizeof p, "%s/construct.json", dir);
    f = fopen(p, "w");
    if (f) fputs(cons, f), fclose(f);
    struct tree *t = load(dir);
    CHECK(t != NULL);
    if (t) {
        struct dataflow *d = NULL;
        struct pt_error err = {{0}};
        CHECK_INT(dataflow_build(t, &d, &err), 0);
        char b[512];
        /* by statistics relu.1 (the latest) would be taken; the checksum says relu.0 */
        CHECK_STR(producer(t, d, "Functional.linear.0.forward", "input.0", b, sizeof b),
                  "Functional.relu.0.forward output.0 checksum");
        CHECK_STR(producer(t, d, "Functional.relu.1.forward", "input.0", b, sizeof b), "none");
        dataflow_free(d);
        tree_free(t);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* A generated pipeline (2 stages, NaN born on rank 0 in layers.0.mlp's
 * linear_fc1): gen_dump.py's NaN, made by Functional.linear.2.forward,
 * is consumed by Torch.chunk.0.forward (the SwiGLU split); rank 0 sends
 * the stage's output with Distributed.send.0.forward and rank 1's
 * Distributed.recv.0.forward gets it. */
static char gdir[4096];

static int gen_pipeline(void) {
    if (gdir[0]) return 0;
    char tmpl[] = "/tmp/pt_dataflow_pp_XXXXXX";
    if (!mkdtemp(tmpl)) return -1;
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s' --out %s --steps 1 --ranks 2 --pp 2 --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 16 "
             "--vocab 100 --nan 0:0:layers.0.mlp --quiet",
             getenv("PT_PYTHON"), pt_tool("gen_dump.py"), tmpl);
    if (system(cmd) != 0) return -1;
    snprintf(gdir, sizeof gdir, "%s", tmpl);
    return 0;
}

static void test_generated_nan(void) {
    if (!have_python()) SKIP("no python");
    CHECK_INT(gen_pipeline(), 0);
    char p[4200];
    snprintf(p, sizeof p, "%s/step0/rank0", gdir);
    struct tree *t = load(p);
    CHECK(t != NULL);
    if (!t) return;
    struct dataflow *d = NULL;
    struct pt_error err = {{0}};
    CHECK_INT(dataflow_build(t, &d, &err), 0);
    char b[512];
    CHECK_STR(producer(t, d, "Torch.chunk.0.forward", "input.0", b, sizeof b),
              "Functional.linear.2.forward output.0 statistics");
    CHECK(consumes(t, d, "Functional.linear.2.forward", "output.0", "Torch.chunk.0.forward", "input.0"));
    /* the clean input of the born op: the pre-MLP norm's output */
    CHECK_STR(producer(t, d, "Functional.linear.2.forward", "input.0", b, sizeof b),
              "NPU.npu_rms_norm.1.forward output.0 statistics");
    dataflow_free(d);
    tree_free(t);
    /* rank 1: the received NaN (record 0, Distributed.recv.0.forward) is the
     * input of record 6, NPU.npu_rms_norm.0.forward, whose NaN output has
     * the same statistics; the module around it (written after it) is
     * entered before it, so its input is the recv's output too, not the
     * output of the op inside it */
    snprintf(p, sizeof p, "%s/step0/rank1", gdir);
    t = load(p);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(dataflow_build(t, &d, &err), 0);
    CHECK_STR(producer(t, d, "NPU.npu_rms_norm.0.forward", "input.0", b, sizeof b),
              "Distributed.recv.0.forward output.0 statistics");
    CHECK_STR(producer(t, d, "Module.module.module.decoder.layers.0.input_layernorm.RMSNorm.forward.0", "input.0", b,
                       sizeof b),
              "Distributed.recv.0.forward output.0 statistics");
    dataflow_free(d);
    tree_free(t);
}

/* The session's walk over the same pipeline: from rank 1's recv upstream
 * to rank 0's send (the send/recv pair), from there to the op that made
 * the tensor it sent; Backspace back; the breadcrumb says each hop's
 * method.  The tree pane's goto is a stand-in that records the target. */
struct went { int32_t step, rank; char id[512]; int calls; };

static int fake_goto(void *pane, struct session *a, int32_t step, int32_t rank, const char *name, struct pt_error *err) {
    struct went *w = pane;
    w->step = step, w->rank = rank, w->calls++;
    snprintf(w->id, sizeof w->id, "%s", name);
    if (a->graphs->cur->rank != rank) return graphs_load_now(a, step, rank, err);
    return 0;
}

static void test_walk_across_ranks(void) {
    if (!have_python()) SKIP("no python");
    CHECK_INT(gen_pipeline(), 0);
    struct session a;
    memset(&a, 0, sizeof a);
    char p[4200];
    snprintf(p, sizeof p, "%s/step0", gdir);
    a.paths[0] = p;
    a.npaths = 1;
    a.mode = SESSION_MODE_TREND;
    struct pt_error err = {{0}};
    CHECK_INT(graphs_open(&a, &err), 0);
    if (!a.graphs) return;
    CHECK_INT(graphs_load_now(&a, 0, 1, &err), 0);
    struct went w = {0};
    a.offers.tree_pane = &w;
    a.offers.tree_goto = fake_goto;
    const struct tree *t = a.graphs->cur->t[0];
    int recv = tree_find(t, "Distributed.recv.0.forward");
    CHECK(recv >= 0);
    struct flow_link l;
    /* upstream of the recv: the peer that sent, by the send/recv pair */
    CHECK_INT(flow_pick(&a, recv, 0, &l, &err), 1);
    CHECK_INT(l.how, FLOW_COMM);
    CHECK_INT(l.rank, 0);
    CHECK_STR(l.id, "Distributed.send.0.forward");
    CHECK_INT(flow_follow(&a, recv, &l, &err), 0);
    CHECK_INT(w.rank, 0);
    CHECK_STR(w.id, "Distributed.send.0.forward");
    CHECK_CONTAINS(a.msg, "sender on rank 0: Distributed.send.0.forward");
    /* now on rank 0: the send's NaN input, made by the layer's last op */
    CHECK_INT(a.graphs->cur->rank, 0);
    t = a.graphs->cur->t[0];
    int send = tree_find(t, "Distributed.send.0.forward");
    CHECK(send >= 0);
    CHECK_INT(flow_pick(&a, send, 0, &l, &err), 1);
    CHECK_INT(l.how, FLOW_STATS);
    CHECK_STR(l.id, "Tensor.__add__.1.forward");
    CHECK_STR(l.slot, "output.0");
    CHECK_INT(flow_follow(&a, send, &l, &err), 0);
    char bc[1024];
    CHECK_STR(flow_breadcrumb(&a, 1, bc, sizeof bc),
              "r1:recv.0.forward <-p2p r0:send.0.forward <-stats __add__.1.forward");
    /* downstream of the send: the recv on rank 1 */
    CHECK_INT(flow_pick(&a, send, 1, &l, &err), 1);
    CHECK_INT(l.how, FLOW_COMM);
    CHECK_INT(l.rank, 1);
    CHECK_STR(l.id, "Distributed.recv.0.forward");
    /* back twice: to the send, then the recv; a third is refused */
    CHECK_INT(flow_back(&a, &err), 0);
    CHECK_STR(w.id, "Distributed.send.0.forward");
    CHECK_INT(flow_back(&a, &err), 0);
    CHECK_STR(w.id, "Distributed.recv.0.forward");
    CHECK_INT(w.rank, 1);
    CHECK_INT(flow_back(&a, &err), -1);
    CHECK_CONTAINS(err.msg, "start of the walk");
    CHECK_STR(flow_breadcrumb(&a, 1, bc, sizeof bc), "");
    graphs_free(&a);
}

/* Tensor parallel (2 ranks, NaN made on rank 0 in layers.0.mlp): rank 0's
 * Distributed.all_reduce.2.forward (record 45) gets its NaN input from its
 * own Functional.linear.3.forward (record 44); `<` follows that, not the
 * collective's member on rank 1, which the links also hold (both ways). */
static void test_collective(void) {
    if (!have_python()) SKIP("no python");
    char tmpl[] = "/tmp/pt_dataflow_tp_XXXXXX";
    if (!mkdtemp(tmpl)) { CHECK(!"mkdtemp"); return; }
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s' --out %s --steps 1 --ranks 2 --tp 2 --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 16 "
             "--vocab 100 --nan 0:0:layers.0.mlp --quiet",
             getenv("PT_PYTHON"), pt_tool("gen_dump.py"), tmpl);
    CHECK(system(cmd) == 0);
    struct session a;
    memset(&a, 0, sizeof a);
    char p[4200];
    snprintf(p, sizeof p, "%s/step0", tmpl);
    a.paths[0] = p;
    a.npaths = 1;
    a.mode = SESSION_MODE_TREND;
    struct pt_error err = {{0}};
    CHECK_INT(graphs_open(&a, &err), 0);
    if (a.graphs && graphs_load_now(&a, 0, 0, &err) == 0) {
        int n = tree_find(a.graphs->cur->t[0], "Distributed.all_reduce.2.forward");
        CHECK(n >= 0);
        struct flow_link l, ls[16];
        CHECK_INT(flow_pick(&a, n, 0, &l, &err), 1);
        CHECK_INT(l.how, FLOW_STATS);
        CHECK_STR(l.id, "Functional.linear.3.forward");
        long k = flow_links(&a, n, ls, 16, &err);
        int peer_up = 0, peer_down = 0;
        for (long i = 0; i < k && i < 16; i++)
            if (ls[i].how == FLOW_COMM && ls[i].rank == 1 && !strcmp(ls[i].id, "Distributed.all_reduce.2.forward"))
                ls[i].down ? peer_down++ : peer_up++;
        CHECK_INT(peer_up, 1);
        CHECK_INT(peer_down, 1);
    } else CHECK(!"load");
    graphs_free(&a);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
    CHECK(system(cmd) == 0);
}

/* The index's build time on the largest dump in the fixtures, or on the
 * rank folder PT_DATAFLOW_DIR names (printed for the report; bounded
 * loosely so a quadratic build fails). */
static void test_build_time(void) {
    const char *dir = getenv("PT_DATAFLOW_DIR");
    struct tree *t = load(dir && dir[0] ? dir : pt_fixture("examples/quick_start/gpu_dump/step1/proc2016"));
    CHECK(t != NULL);
    if (!t) return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct dataflow *d = NULL;
    struct pt_error err = {{0}};
    int rc = 0;
    for (int i = 0; i < 20 && !rc; i++) {
        dataflow_free(d);
        rc = dataflow_build(t, &d, &err);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = ((double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6) / 20;
    CHECK_INT(rc, 0);
    fprintf(stderr, "dataflow index: %zu records, %zu params: %.3f ms\n", t->nrecs, t->nparams, ms);
    CHECK(ms < 50 || (dir && dir[0]));
    dataflow_free(d);
    tree_free(t);
}

int main(void) {
    RUN(test_real_gpu_dump);
    RUN(test_checksum);
    RUN(test_generated_nan);
    RUN(test_walk_across_ranks);
    RUN(test_collective);
    RUN(test_build_time);
    if (gdir[0]) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", gdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", gdir);
    }
    PT_DONE();
}
