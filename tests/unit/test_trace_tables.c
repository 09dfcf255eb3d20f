/* HTA's other first tables of a profiler trace (probetop-rules(7), PROFILER
 * TRACES: Kernel types, Top kernels, Idle time): the model's sweep, fold and
 * idle classification on hand-made kernels (expected values worked out by
 * hand below), HTA's answers on its sampled_2rank trace (HTA run here:
 * tests/oracle/hta_tables.py; every fixture is checked in full by the
 * oracle.traces.tables_* tests), the same tables when the kernels go through
 * the temporary file, and the command's csv/json/text output. */
#include "pt_test.h"
#include "pt_trace.h"

#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "src/io/common/json.h"

/* comp [0,10) comm [5,20) memcpy [15,25) sync (other) [0,100) comp [30,40) comp [30,32):
 * computation alone [0,5) and [30,40): 15; with communication [5,10): 5;
 * communication alone [10,15): 5; communication with memory [15,20): 5;
 * memory alone [20,25): 5.  The sync kernel is in neither table. */
static void sweep_by_hand(void) {
    const char *names[] = {"gemm", "ncclKernel_AllReduce", "Memcpy DtoH (Device -> Pinned)", "cudaStreamSynchronize"};
    struct trace_seg s[] = {
        {.start_ns = 0, .dur_ns = 10, .name = 0, .cat = TRACE_COMPUTE},
        {.start_ns = 0, .dur_ns = 100, .name = 3, .cat = TRACE_MEMORY},
        {.start_ns = 5, .dur_ns = 15, .name = 1, .cat = TRACE_COMM},
        {.start_ns = 15, .dur_ns = 10, .name = 2, .cat = TRACE_MEMORY},
        {.start_ns = 30, .dur_ns = 10, .name = 0, .cat = TRACE_COMPUTE},
        {.start_ns = 30, .dur_ns = 2, .name = 0, .cat = TRACE_COMPUTE},
    };
    struct kernels_acc a;
    CHECK_INT(kernels_acc_init(&a, names, 4), 0);
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) CHECK_INT(kernels_acc_add(&a, &s[i]), 0);
    struct kernels_table *t = kernels_acc_finish(&a);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->mask_ns[1], 15);
    CHECK_INT(t->mask_ns[3], 5);
    CHECK_INT(t->mask_ns[2], 5);
    CHECK_INT(t->mask_ns[6], 5);
    CHECK_INT(t->mask_ns[4], 5);
    CHECK_INT(t->mask_ns[5] + t->mask_ns[7], 0);
    char buf[96];
    CHECK_STR(kernels_mask_name(3, buf, sizeof buf), "COMPUTATION overlapping COMMUNICATION");
    CHECK_STR(kernels_mask_name(7, buf, sizeof buf), "COMPUTATION overlapping COMMUNICATION overlapping MEMORY");
    CHECK_INT(kernels_type_of("cudaStreamSynchronize", TRACE_MEMORY), KERNELS_OTHER);
    /* per name, by total: gemm 22 (3 kernels), nccl 15, memcpy 10; no sync */
    CHECK_INT(t->nk, 3);
    CHECK_INT(t->k[0].name, 0);
    CHECK_INT(t->k[0].count, 3);
    CHECK_INT(t->k[0].sum_ns, 22);
    CHECK_INT(t->k[0].max_ns, 10);
    CHECK_INT(t->k[0].min_ns, 2);
    CHECK_INT(t->k[0].type, KERNELS_COMPUTATION);
    CHECK_INT(t->k[1].type, KERNELS_COMMUNICATION);
    CHECK_INT(t->k[2].type, KERNELS_MEMORY);
    /* --top 1: the other two as one row, max and min over their kernels */
    struct kernels_stat o;
    CHECK_INT(kernels_top(t, 1, &o), 1);
    CHECK_INT(o.count, 2);
    CHECK_INT(o.sum_ns, 25);
    CHECK_INT(o.max_ns, 15);
    CHECK_INT(o.min_ns, 10);
    CHECK_INT(kernels_top(t, 0, &o), 3);
    CHECK_INT(o.count, 0);
    kernels_table_free(t);
}

/* stream 7: [0,10) then [12,20) launched at 11, after the first ended: host
 * wait 2; [25,30) launched at 0: a 5 ns gap, kernel wait; [100000,100010):
 * a 99 970 ns gap, other; [100020,100030) without a launch: kernel wait 10.
 * stream 9: one kernel, no gap. */
static void idle_by_hand(void) {
    struct idle_acc a;
    CHECK_INT(idle_acc_init(&a), 0);
    CHECK_INT(idle_acc_add(&a, 9, 0, 50, -5), 0);
    CHECK_INT(idle_acc_add(&a, 7, 0, 10, -5), 0);
    CHECK_INT(idle_acc_add(&a, 7, 12, 20, 11), 0);
    CHECK_INT(idle_acc_add(&a, 7, 25, 30, 0), 0);
    CHECK_INT(idle_acc_add(&a, 7, 100000, 100010, 0), 0);
    CHECK_INT(idle_acc_add(&a, 7, 100020, 100030, IDLE_NO_LAUNCH), 0);
    struct idle_table *t = idle_acc_finish(&a);
    CHECK(t != NULL);
    if (!t) return;
    CHECK_INT(t->n, 2);
    CHECK_INT(t->v[0].stream, 7);
    CHECK_INT(t->v[0].host_ns, 2);
    CHECK_INT(t->v[0].kernel_ns, 15);
    CHECK_INT(t->v[0].other_ns, 99970);
    CHECK_INT(t->v[1].stream, 9);
    CHECK_INT(t->v[1].host_ns + t->v[1].kernel_ns + t->v[1].other_ns, 0);
    idle_table_free(t);
}

static const struct kernels_stat *stat_named(const struct dataset *ds, const struct trace_rank *r, const char *prefix) {
    for (size_t i = 0; r->kernels && i < r->kernels->nk; i++)
        if (!strncmp(ds->trace->names[r->kernels->k[i].name], prefix, strlen(prefix))) return &r->kernels->k[i];
    return NULL;
}

static const struct idle_stream *stream_of(const struct trace_rank *r, unsigned s) {
    for (size_t i = 0; r->idle && i < r->idle->n; i++)
        if (r->idle->v[i].stream == s) return &r->idle->v[i];
    return NULL;
}

/* HTA on sampled_2rank (hta_tables.py): kernel types over both ranks,
 * rank 0's NCCL kernel, rank 0's idle breakdown of stream 7. */
static void check_sampled(const struct dataset *ds) {
    int64_t m[KERNELS_NMASKS];
    kernels_run_masks(ds->trace, m);
    CHECK_NEAR(m[1] / 1000.0, 185023, 1);
    CHECK_NEAR(m[2] / 1000.0, 305584, 1);
    CHECK_NEAR(m[3] / 1000.0, 56747, 1);
    CHECK_NEAR(m[4] / 1000.0, 2288, 1);
    CHECK_NEAR(m[6] / 1000.0, 1011, 1);
    CHECK_NEAR(m[5] / 1000.0, 18, 1);
    CHECK_NEAR(m[7] / 1000.0, 12, 1);
    const struct trace_rank *r0 = rank_of(ds, 0);
    CHECK(r0 != NULL);
    if (!r0) return;
    const struct kernels_stat *k = stat_named(ds, r0, "ncclKernel_SendRecv");
    CHECK(k != NULL);
    if (k) {
        CHECK_INT(k->count, 5);
        CHECK_NEAR(k->sum_ns / 1000.0, 195327, 1);
        CHECK_NEAR(k->max_ns / 1000.0, 62783, 1);
        CHECK_NEAR(k->min_ns / 1000.0, 11727, 1);
    }
    const struct idle_stream *s = stream_of(r0, 7);
    CHECK(s != NULL);
    if (s) {
        CHECK_NEAR(s->host_ns / 1000.0, 213825, 1);
        CHECK_NEAR(s->kernel_ns / 1000.0, 1985, 1);
        CHECK_NEAR(s->other_ns / 1000.0, 261740, 1);
    }
}

static struct dataset *load_with(const char *path, uint64_t mem) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    struct pt_error err;
    load_opts_init(&lo);
    lo.format = formats_find("trace");
    lo.mem_budget = mem;
    if (load_dataset(path, &lo, &ds, &err) != 0) fprintf(stderr, "%s\n", err.msg);
    return ds;
}

/* HTA's numbers on sampled_2rank. */
static void fixture_sampled(void) {
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("fixtures absent");
    struct dataset *a = load_with(p, 0);
    CHECK(a != NULL);
    if (a) check_sampled(a);
    dataset_free(a);
}

/* The same tables when --mem sends the kernels through the temporary file
 * (tests/gen_trace.py --bomb: 200 000 sub-us kernels, out of order). */
static void spilled_equal(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("tables_bomb");
    char dir[1100];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(dir, sizeof dir, "%s/run", d);
    if (gen(dir, "--ranks 1 --steps 4 --bomb 200000") != 0) { CHECK(!"gen_trace.py failed"); return; }
    struct dataset *a = load_with(dir, (uint64_t)1 << 30), *b = load_with(dir, (uint64_t)8 << 20);
    CHECK(a != NULL && b != NULL);
    if (a && b) {
        const struct trace_rank *x = &a->trace->ranks[0], *y = &b->trace->ranks[0];
        CHECK(y->lane_merge_ns > 0);   /* it did go through the file */
        CHECK(x->kernels->nk == 4);   /* the four names */
        CHECK(!memcmp(x->kernels->mask_ns, y->kernels->mask_ns, sizeof x->kernels->mask_ns));
        CHECK_INT(x->kernels->nk, y->kernels->nk);
        for (size_t i = 0; i < x->kernels->nk && i < y->kernels->nk; i++) {   /* field by field: padding differs */
            const struct kernels_stat *u = &x->kernels->k[i], *w = &y->kernels->k[i];
            CHECK_STR(a->trace->names[u->name], b->trace->names[w->name]);
            CHECK_INT(u->type, w->type);
            CHECK_INT(u->count, w->count);
            CHECK_INT(u->sum_ns, w->sum_ns);
            CHECK_INT(u->max_ns, w->max_ns);
            CHECK_INT(u->min_ns, w->min_ns);
        }
        CHECK_INT(x->idle->n, y->idle->n);
        CHECK(x->idle->n > 0);
        for (size_t i = 0; i < x->idle->n && i < y->idle->n; i++) {
            const struct idle_stream *u = &x->idle->v[i], *w = &y->idle->v[i];
            CHECK_INT(u->stream, w->stream);
            CHECK_INT(u->host_ns, w->host_ns);
            CHECK_INT(u->kernel_ns, w->kernel_ns);
            CHECK_INT(u->other_ns, w->other_ns);
            CHECK_INT(u->kernels, w->kernels);
        }
    }
    dataset_free(a);
    dataset_free(b);
}

static char *run_trace(const char *args) {
    const char *bin = getenv("PT_BIN");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' trace %s 2>/dev/null", bin, args);
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap);
    while (buf && n + 1 < cap && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) n += got;
    int rc = pclose(f);
    if (buf) buf[n] = '\0';
    if (rc != 0) { free(buf); return NULL; }
    return buf;
}

static void cli_tables(void) {
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("fixtures absent");
    if (!getenv("PT_BIN")) SKIP("PT_BIN unset");
    char args[2048];
    snprintf(args, sizeof args, "'%s' --format csv --table kernel_types", p);
    char *out = run_trace(args);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "type,us,pct\nCOMMUNICATION,305584.000,55.");
        CHECK_CONTAINS(out, "\nCOMPUTATION overlapping COMMUNICATION,56747.000,");
        free(out);
    }
    snprintf(args, sizeof args, "'%s' --format csv --table top_kernels --top 1", p);
    out = run_trace(args);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "rank,name,type,count,sum_us,max_us,min_us,mean_us\n0,\"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, "
                            "unsigned long, ncclWork*)\",COMMUNICATION,5,195327.000,62783.000,11727.000,39065.400\n0,others,,");
        free(out);
    }
    snprintf(args, sizeof args, "'%s' --format csv --table idle", p);
    out = run_trace(args);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "rank,stream,host_wait_us,kernel_wait_us,other_us\n0,7,213825.000,1985.000,261740.000\n");
        free(out);
    }
    snprintf(args, sizeof args, "'%s' --format json --top 3", p);
    out = run_trace(args);
    CHECK(out != NULL);
    if (out) {
        cJSON *j = cJSON_Parse(out);
        CHECK(j != NULL);
        cJSON *kt = cJSON_GetObjectItem(j, "kernel_types"), *tk = cJSON_GetObjectItem(j, "top_kernels"),
              *id = cJSON_GetObjectItem(j, "idle");
        CHECK_INT(cJSON_GetArraySize(kt), 7);
        CHECK_INT(cJSON_GetArraySize(tk), 8);   /* 3 + others per rank */
        CHECK_INT(cJSON_GetArraySize(id), 10);
        cJSON *o = cJSON_GetArrayItem(tk, 3);
        CHECK_STR(cJSON_GetObjectItem(o, "name")->valuestring, "others");
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(o, "type")));
        cJSON_Delete(j);
        free(out);
    }
    out = run_trace(p);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "COMPUTATION overlapping COMMUNICATION                             56747   10.30");
        CHECK_CONTAINS(out, "   0      7        213825           1985       261740");
        free(out);
    }
    snprintf(args, sizeof args, "'%s' --table nope", p);
    CHECK(run_trace(args) == NULL);
}

/* `probetop trace` on Ascend step time tables: the hand-made fixture
 * tests/ascend/pp2 (its README gives each value's formula): rank 2 computes
 * 82 100 + 82 200 + 82 300 us, is free 9 000 + 40 000.5 + 9 000 us (the planted
 * slow step 2), its bubble is 3 x 3 000 us and its stage time
 * 99 100 + 130 200.5 + 99 300 us; rank 1's file has no Preparing column (null);
 * step 2's straggler is rank 2 with computing + free = 122 200.5 us against a
 * median of (90 700 + 91 700) / 2 = 91 200 us.  The cluster table of
 * msprof-analyze gives the same rank sums. */
static void ascend_steps(void) {
    if (!getenv("PT_BIN")) SKIP("PT_BIN unset");
    const char *src = getenv("PT_SRC");
    char args[4400];
    const char *where[] = {"", "/cluster_analysis_output/cluster_step_trace_time.csv"};
    for (int w = 0; w < 2; w++) {
        snprintf(args, sizeof args, "'%s/tests/ascend/pp2%s' --format json --per-step", src ? src : ".", where[w]);
        char *out = run_trace(args);
        CHECK(out != NULL);
        if (!out) continue;
        cJSON *j = cJSON_Parse(out);
        CHECK(j != NULL);
        cJSON *ranks = cJSON_GetObjectItem(j, "ranks"), *g = cJSON_GetObjectItem(j, "stragglers");
        CHECK_INT(cJSON_GetArraySize(ranks), 4);
        CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "steps")), 12);
        cJSON *r2 = cJSON_GetArrayItem(ranks, 2), *r1 = cJSON_GetArrayItem(ranks, 1);
        CHECK_INT(cJSON_GetObjectItem(r2, "rank")->valueint, 2);
        CHECK_NEAR(cJSON_GetObjectItem(r2, "compute_us")->valuedouble, 246600, 0.01);
        CHECK_NEAR(cJSON_GetObjectItem(r2, "idle_us")->valuedouble, 58000.5, 0.01);
        CHECK_NEAR(cJSON_GetObjectItem(r2, "bubble_us")->valuedouble, 9000, 0.01);
        CHECK_NEAR(cJSON_GetObjectItem(r2, "stage_us")->valuedouble, 328600.5, 0.01);
        if (w == 0) CHECK(cJSON_IsNull(cJSON_GetObjectItem(r1, "preparing_us")));
        CHECK_INT(cJSON_GetArraySize(g), 3);
        cJSON *s2 = cJSON_GetArrayItem(g, 1);
        CHECK_INT(cJSON_GetObjectItem(s2, "step")->valueint, 2);
        CHECK_INT(cJSON_GetObjectItem(s2, "rank")->valueint, 2);
        CHECK_NEAR(cJSON_GetObjectItem(s2, "work_us")->valuedouble, 122200.5, 0.01);
        CHECK_NEAR(cJSON_GetObjectItem(s2, "median_us")->valuedouble, 91200, 0.01);
        cJSON_Delete(j);
        free(out);
    }
    snprintf(args, sizeof args, "'%s/tests/ascend/pp2' --format csv", src ? src : ".");
    char *out = run_trace(args);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "step,rank,compute_us,exposed_communication_us,overlapped_us,communication_us,idle_us,");
        CHECK_CONTAINS(out, "\n,2,246600.000,33000.000,15000.000,48000.000,58000.500,328600.500,9000.000,");
        free(out);
    }
}

int main(void) {
    RUN(sweep_by_hand);
    RUN(idle_by_hand);
    RUN(fixture_sampled);
    RUN(spilled_equal);
    RUN(cli_tables);
    RUN(ascend_steps);
    PT_DONE();
}
