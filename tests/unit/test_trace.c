/* Profiler traces (probetop-formats(5), PROFILER TRACES; probetop-rules(7),
 * PROFILER TRACES): HolisticTraceAnalysis's figures on the three real
 * fixtures (expected values from HTA run on them), generated traces
 * (tests/gen_trace.py: gz and plain, every rank source, relative and
 * absolute time, TraceViz's layout, a planted straggler, Megatron phases),
 * the streaming tokenizer, and hostile traces. */
#include "pt_cube.h"
#include "pt_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include <zlib.h>

#include "model/trace/trace.h"
#include "model/trace/trace_cube.h"
#include "src/io/load.h"
#include "src/io/formats.h"
#include "src/io/common/json.h"
#include "src/io/trace/trace_parse.h"

static char gen_path[4096];

static struct dataset *load(const char *path, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    lo.format = formats_find("trace");
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static const struct trace_rank *rank_of(const struct dataset *ds, int32_t r) {
    for (int i = 0; ds->trace && i < ds->trace->nranks; i++)
        if (ds->trace->ranks[i].rank == r) return &ds->trace->ranks[i];
    return NULL;
}

/* HTA's rank figures in us (its get_temporal_breakdown and
 * get_comm_comp_overlap), to 1 us and 0.01 %. */
static void check_hta(const struct trace_rank *r, double idle, double compute, double non_compute, double kernel,
                      double overlap) {
    CHECK(r != NULL);
    if (!r) return;
    CHECK_NEAR(r->total.idle_ns / 1000.0, idle, 1.0);
    CHECK_NEAR(r->total.cat_ns[TRACE_COMPUTE] / 1000.0, compute, 1.0);
    CHECK_NEAR(r->total.non_compute_ns / 1000.0, non_compute, 1.0);
    CHECK_NEAR(r->total.kernel_ns / 1000.0, kernel, 1.0);
    CHECK_NEAR(trace_overlap_pct(&r->total), overlap, 0.005);
}

static void fixture_sampled_2rank(void) {
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("fixtures absent");
    struct pt_error err;
    struct dataset *ds = load(p, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_STR(formats_name(ds->format), "trace");
    CHECK_INT(ds->trace->nranks, 2);
    check_hta(rank_of(ds, 0), 321378, 106252, 172428, 600058, 11.81);
    check_hta(rank_of(ds, 1), 328671, 135548, 136455, 600674, 20.05);
    const struct trace_rank *r0 = rank_of(ds, 0);
    CHECK_INT(r0->nsteps, 2);
    CHECK_INT(r0->steps[0].step, 551);
    CHECK_INT(r0->steps[1].step, 552);
    CHECK_INT(r0->nwindow, 602);   /* the kernels launched before ProfilerStep#552 */
    CHECK_INT(r0->total.count[TRACE_COMM], 5);
    /* the cube: step 551 rank 0 is the whole HTA window here */
    CHECK_NEAR(pt_cube_value(ds, "time", "us", "idle", 0, 551, 0), 321378, 1);
    CHECK_NEAR(pt_cube_value(ds, "time", "pct", "compute", 0, 551, 0), 17.707, 0.01);
    CHECK_NEAR(pt_cube_value(ds, "time", "count", "communication", 0, 551, 0), 5, 0);
    CHECK(pt_cube_value(ds, "time", "us", TRACE_TGT_EXPOSED, 0, 552, 1) > 0);
    CHECK(names_label_find(ds->cube->names, "compute", LABEL_MODULE) != NAMES_NONE);
    struct trace_straggler *g;
    size_t ng;
    CHECK_INT(trace_stragglers(ds->trace, &g, &ng), 0);
    CHECK_INT(ng, 2);
    CHECK_INT(g[0].step, 551);
    CHECK_INT(g[0].rank, 1);
    free(g);
    dataset_free(ds);
}

static void fixture_nccl_2rank(void) {
    const char *p = pt_shared_file("traces", "hta/nccl_2rank");
    if (!p) SKIP("fixtures absent");
    struct pt_error err;
    struct dataset *ds = load(p, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->trace->nranks, 1);
    /* ns-resolution times relative to baseTimeNanoseconds (which comes
     * after traceEvents): HTA rounds them to whole us, and so do the totals */
    check_hta(rank_of(ds, 0), 338781, 75169, 21636, 435586, 14.31);
    CHECK_INT(rank_of(ds, 0)->nsteps, 3);
    dataset_free(ds);
}

static void fixture_rank3_of_8(void) {
    const char *p = pt_shared_file("traces", "hta/rank3_of_8");
    if (!p) SKIP("fixtures absent");
    struct pt_error err;
    struct dataset *ds = load(p, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->trace->nranks, 1);
    check_hta(rank_of(ds, 3), 62119, 234760, 86525, 383404, 47.03);   /* rank from distributedInfo */
    CHECK_INT(rank_of(ds, 3)->nsteps, 6);
    dataset_free(ds);
}

/* HTA's own nanosecond-resolution trace (tests/data/traces/hta-ns, trimmed
 * to what its breakdown reads): HTA reads the times as doubles of us (a
 * quarter of a us at epoch times between 2^50 and 2^51 us), rounds starts up and ends down; its
 * figures, not those of the exact times (idle 11307, compute 371264,
 * non-compute 2063). */
static void fixture_ns_resolution(void) {
    char p[4096];
    const char *src = getenv("PT_SRC");
    snprintf(p, sizeof p, "%s/tests/data/traces/hta-ns", src ? src : ".");
    struct pt_error err;
    struct dataset *ds = load(p, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->trace->nranks, 1);
    const struct trace_rank *r = rank_of(ds, 0);
    check_hta(r, 10113, 372150, 2371, 384634, NAN);
    CHECK_INT(r->nsteps, 5);
    CHECK_INT(r->nwindow, 4876);
    /* the steps keep the exact nanoseconds */
    CHECK_INT(r->steps[1].stats.nkernels, 1219);
    CHECK_NEAR(r->steps[1].stats.kernel_ns / 1000.0, 95736, 1.0);
    dataset_free(ds);
}

/* One kernel at ts 1712195495505582.988 us, dur 4.928 us: exactly it is
 * 583..587 in whole us, but as doubles the start is ...583.0 and the end
 * ...588.0, so HTA's kernel time is 5 us. */
static void ns_double_rounding(void) {
    const char *dir = pt_tmpdir("nsround");
    char f[1200];
    CHECK(dir != NULL);
    if (!dir) return;
    snprintf(f, sizeof f, "%s/rank_0.json", dir);
    CHECK_INT(pt_write(f, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": ["
                          "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
                          "\"ts\": 1712195495505582.988, \"dur\": 4.928, \"args\": {\"stream\": 7}}]}"), 0);
    struct pt_error err;
    struct dataset *ds = load(dir, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    const struct trace_rank *r = rank_of(ds, 0);
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->total.kernel_ns, 5000);
        CHECK_INT(r->segs[0].dur_ns, 4928);   /* the lanes and steps: exact */
    }
    dataset_free(ds);
}

/* ---- generated traces ---- */

static int gen(const char *dir, const char *args) {
    const char *py = getenv("PT_PYTHON");
    char cmd[9000];
    if (!py || !*py) return -1;
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' %s", py, gen_path, dir, args);
    return system(cmd) == 0 ? 0 : -1;
}

/* dir/<name> generated with args and loaded; NULL (checked) on failure. */
static struct dataset *gen_load(const char *name, const char *args, char *path, size_t n) {
    const char *dir = pt_tmpdir(name);
    if (!dir || gen(dir, args) != 0) {
        CHECK(!"gen_trace.py failed");
        return NULL;
    }
    snprintf(path, n, "%s", dir);
    struct pt_error err;
    struct dataset *ds = load(dir, &err);
    if (!ds) fprintf(stderr, "%s\n", err.msg);
    CHECK(ds != NULL);
    return ds;
}

static void gen_straggler(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("straggler", "--ranks 8 --steps 4 --straggler 5 --slow 1.5", p, sizeof p);
    if (!ds) return;
    CHECK_INT(ds->trace->nranks, 8);
    CHECK_INT(ds->cube->nsteps, 4);
    struct trace_straggler *g;
    size_t ng;
    CHECK_INT(trace_stragglers(ds->trace, &g, &ng), 0);
    CHECK_INT(ng, 4);
    for (size_t i = 0; i < ng; i++) {
        CHECK_INT(g[i].rank, 5);
        CHECK_INT(g[i].nranks, 8);
        CHECK(g[i].work > g[i].median * 1.3);
    }
    free(g);
    /* the others wait in the all-reduce: more exposed communication than the straggler */
    CHECK(pt_cube_value(ds, "time", "us", TRACE_TGT_EXPOSED, 0, 2, 0) >
          pt_cube_value(ds, "time", "us", TRACE_TGT_EXPOSED, 0, 2, 5) + 100);
    CHECK_INT(ds->nwarnings, 0);
    dataset_free(ds);
}

static void gen_phases(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("phases", "--ranks 2 --steps 3 --micro 3", p, sizeof p);
    if (!ds) return;
    CHECK(ds->trace->has_phases);
    /* 3 micro batches x 6 kernels per forward_step */
    CHECK_NEAR(pt_cube_value(ds, "time", "count", "forward.compute", 0, 2, 1), 18, 0);
    CHECK_NEAR(pt_cube_value(ds, "time", "count", "backward.compute", 0, 2, 1), 18, 0);
    CHECK_NEAR(pt_cube_value(ds, "time", "count", "pp_comm.communication", 0, 2, 1), 6, 0);
    CHECK_NEAR(pt_cube_value(ds, "time", "count", "dp_comm.communication", 0, 2, 1), 1, 0);
    CHECK_NEAR(pt_cube_value(ds, "time", "count", "optimizer.compute", 0, 2, 1), 1, 0);
    CHECK_NEAR(pt_cube_value(ds, "time", "count", "optimizer.memory", 0, 2, 1), 1, 0);
    CHECK_NEAR(pt_cube_value(ds, "time", "us", "forward.compute", 0, 2, 1), 3 * 6 * 40.0 * 1.6, 0.01);   /* rank 1 is slow */
    CHECK_NEAR(pt_cube_value(ds, "time", "us", "forward.compute", 0, 2, 0), 3 * 6 * 40.0, 0.01);
    CHECK(names_label_find(ds->cube->names, "forward", LABEL_MODULE) != NAMES_NONE);
    /* steps on the device: contiguous, each holding its kernels */
    const struct trace_rank *r = rank_of(ds, 0);
    CHECK_INT(r->nsteps, 3);
    for (int s = 0; s + 1 < r->nsteps; s++) CHECK_INT(r->steps[s].end_ns, r->steps[s + 1].start_ns);
    size_t total = 0;
    for (int s = 0; s < r->nsteps; s++) total += r->steps[s].nsegs;
    CHECK_INT(total, r->nsegs);
    dataset_free(ds);
}

/* Figures of every rank, for comparing encodings of the same run. */
static void totals(const struct dataset *ds, int64_t *v, int n) {
    for (int i = 0; i < n; i++) {
        const struct trace_rank *r = rank_of(ds, i);
        v[i * 4] = r ? r->total.idle_ns : -1;
        v[i * 4 + 1] = r ? r->total.cat_ns[TRACE_COMPUTE] : -1;
        v[i * 4 + 2] = r ? r->total.kernel_ns : -1;
        v[i * 4 + 3] = r ? r->total.overlap_ns : -1;
    }
}

static void gen_encodings(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    static const struct { const char *name, *args; int warn_order; } v[] = {
        {"plain_first_abs", "--ranks 3 --rank-source first --time absolute", 0},
        {"gz_last_rel", "--ranks 3 --gz --rank-source last --time relative", 0},
        {"plain_name_rel", "--ranks 3 --rank-source name --time relative", 0},
        {"gz_absent_abs", "--ranks 3 --gz --rank-source absent --time absolute", 1},
        {"traceviz_name", "--ranks 3 --layout traceviz --rank-source name", 0},
    };
    int64_t base[12], got[12];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char p[1100];
        struct dataset *ds = gen_load(v[i].name, v[i].args, p, sizeof p);
        if (!ds) continue;
        fprintf(stderr, "   %s\n", v[i].name);
        CHECK_INT(ds->trace->nranks, 3);
        CHECK_INT(ds->cube->nsteps, 3);
        totals(ds, i ? got : base, 3);
        if (i)
            for (int k = 0; k < 12; k++) CHECK_INT(got[k], base[k]);
        int warned = 0;
        for (size_t w = 0; w < ds->nwarnings; w++) warned |= strstr(ds->warnings[w], "from the file order") != NULL;
        CHECK_INT(warned, v[i].warn_order);
        dataset_free(ds);
    }
}

/* Pieces of 4 MB: a padded trace crosses many piece boundaries mid-token. */
static void gen_streamed(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    int64_t a[8], b[8];
    struct dataset *ds = gen_load("small", "--ranks 2 --gz", p, sizeof p);
    if (!ds) return;
    totals(ds, a, 2);
    dataset_free(ds);
    ds = gen_load("padded", "--ranks 2 --gz --pad-mb 9", p, sizeof p);
    if (!ds) return;
    CHECK(ds->bytes_read > 0);
    totals(ds, b, 2);
    for (int k = 0; k < 8; k++) CHECK_INT(b[k], a[k]);
    dataset_free(ds);
}

/* ---- the streaming tokenizer ---- */

/* Tokens of text fed one byte at a time equal the whole-buffer tokens. */
static void lex_streaming(void) {
    const char *text = "{\"a\": [1.5, -2e3, \"x\\\"y\", true, false, null, {\"b\": NaN}], \"c\": 12345678901234, "
                       "\"skip\": {\"d\": [1, 2, \"]}\"]}, \"e\": \"end\"}  ";
    size_t len = strlen(text);
    struct pt_error e1, e2;
    struct json_lex whole, part;
    enum json_tok want[64];
    double nums[64];
    int n = 0;
    json_lex_init(&whole, text, len, "t", &e1);
    for (enum json_tok t; (t = json_lex_next(&whole)) != JT_END && t != JT_ERROR && n < 64;) {
        nums[n] = t == JT_NUMBER ? whole.num : 0;
        want[n++] = t;
    }
    char buf[256];
    size_t have = 0, fed = 0;
    json_lex_init(&part, buf, 0, "t", &e2);
    part.more = 1;
    part.streaming = 1;
    int k = 0, ok = 1;
    for (;;) {
        enum json_tok t = json_lex_next(&part);
        if (t == JT_MORE) {   /* refill with one more byte */
            size_t keep = (size_t)(part.end - part.pos);
            memmove(buf, part.pos, keep);
            part.off0 += (uint64_t)(part.pos - part.buf);
            part.buf = part.pos = buf;
            if (fed < len) buf[keep++] = text[fed++];
            have = keep;
            json_lex_refill(&part, buf, have, fed < len);
            continue;
        }
        if (t == JT_END || t == JT_ERROR) { ok &= t == JT_END; break; }
        ok &= k < n && t == want[k] && (t != JT_NUMBER || nums[k] == part.num || (isnan(nums[k]) && isnan(part.num)));
        k++;
    }
    CHECK(ok);
    CHECK_INT(k, n);
    /* truncated input: the message gives the byte */
    json_lex_init(&part, "{\"a\": [1, 2", 11, "cut.json", &e2);
    part.streaming = 1;
    enum json_tok t;
    while ((t = json_lex_next(&part)) != JT_ERROR && t != JT_END) {}
    CHECK_CONTAINS(e2.msg, "cut.json: JSON ends early after byte 11");
}

static void us_to_ns(void) {
    int64_t v;
    CHECK_INT(trace_parse_us_to_ns("1682725898236567", 16, &v), 0);
    CHECK_INT(v, 1682725898236567000LL);
    CHECK_INT(trace_parse_us_to_ns("4458676522690.655", 17, &v), 0);
    CHECK_INT(v, 4458676522690655LL);
    CHECK_INT(trace_parse_us_to_ns("10.5", 4, &v), 0);
    CHECK_INT(v, 10500);
    CHECK_INT(trace_parse_us_to_ns("1.23456", 7, &v), 0);
    CHECK_INT(v, 1235);
    CHECK_INT(trace_parse_us_to_ns("-3.25", 5, &v), 0);
    CHECK_INT(v, -3250);
    CHECK_INT(trace_parse_us_to_ns("1.5e3", 5, &v), 0);
    CHECK_INT(v, 1500000);
    CHECK_INT(trace_parse_us_to_ns("abc", 3, &v), -1);
    CHECK_INT(trace_parse_us_to_ns("99999999999999999999", 20, &v), -1);
}

static void classify(void) {
#define C(s) trace_classify(s, strlen(s))
    CHECK_INT(C("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), TRACE_COMM);
    CHECK_INT(C("ncclDevKernel_Broadcast_RING_LL"), TRACE_COMM);
    CHECK_INT(C("void foo<ncclKernel>"), TRACE_COMM);
    CHECK_INT(C("hcom_allReduce__520_0_1"), TRACE_COMM);
    CHECK_INT(C("Memcpy DtoD (Device -> Device)"), TRACE_MEMORY);
    CHECK_INT(C("Memset (Device)"), TRACE_MEMORY);
    CHECK_INT(C("ampere_sgemm_128x64_tn"), TRACE_COMPUTE);
    CHECK_INT(C("void at::native::vectorized_elementwise_kernel<4>"), TRACE_COMPUTE);
    CHECK_INT(C("Stream Sync"), TRACE_MEMORY);   /* HTA's "other" */
#undef C
#define P(s) trace_phase_of(s, strlen(s))
    CHECK_INT(P("forward_step"), TRACE_PH_FORWARD);
    CHECK_INT(P("megatron/core/pipeline_parallel/schedules.py(210): backward_step"), TRACE_PH_BACKWARD);
    CHECK_INT(P("send_forward_recv_backward"), TRACE_PH_PP_COMM);
    CHECK_INT(P("finish_grad_sync"), TRACE_PH_DP_COMM);
    CHECK_INT(P("Optimizer.step#AdamW.step"), TRACE_PH_OPTIMIZER);
    CHECK_INT(P("aten::add"), TRACE_PH_NONE);
#undef P
}

/* HTA's merge and overlap on a hand-made timeline. */
static void stats_by_hand(void) {
    struct trace_seg s[] = {
        {.start_ns = 0, .dur_ns = 100, .cat = TRACE_COMPUTE},
        {.start_ns = 50, .dur_ns = 100, .cat = TRACE_COMM},
        {.start_ns = 200, .dur_ns = 50, .cat = TRACE_MEMORY},
        {.start_ns = 300, .dur_ns = 100, .cat = TRACE_COMPUTE, .phase = TRACE_PH_FORWARD},
    };
    struct trace_stats x;
    trace_stats_of(s, 4, NULL, &x);
    CHECK_INT(x.kernel_ns, 400);
    CHECK_INT(x.idle_ns, 400 - 150 - 50 - 100);
    CHECK_INT(x.cat_ns[TRACE_COMPUTE], 200);
    CHECK_INT(x.cat_ns[TRACE_COMM], 100);
    CHECK_INT(x.overlap_ns, 50);
    CHECK_NEAR(trace_overlap_pct(&x), 50.0, 1e-9);
    CHECK_INT(x.non_compute_ns, 400 - 200 - 100);
    CHECK_INT(x.count[TRACE_IDLE], 2);
    CHECK_INT(x.phase_ns[TRACE_PH_FORWARD][TRACE_COMPUTE], 100);
    uint8_t keep[] = {1, 0, 0, 0};
    trace_stats_of(s, 4, keep, &x);
    CHECK_INT(x.kernel_ns, 100);
    CHECK(isnan(trace_overlap_pct(&x)));
}

/* ---- hostile traces ---- */

static int write_file(const char *path, const char *text, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(text, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

static void hostile_truncated_gz(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100], f[1200], cut[1300];
    const char *dir = pt_tmpdir("trunc");
    if (!dir || gen(dir, "--ranks 1 --gz --pad-mb 1") != 0) { CHECK(!"gen failed"); return; }
    snprintf(p, sizeof p, "%s", dir);
    snprintf(f, sizeof f, "%s/rank_0.json.gz", p);
    snprintf(cut, sizeof cut, "%s/cut.json.gz", p);
    struct stat st;
    CHECK_INT(stat(f, &st), 0);
    char cmd[4000];
    snprintf(cmd, sizeof cmd, "head -c %lld '%s' > '%s' && rm '%s'", (long long)st.st_size / 2, f, cut, f);
    CHECK_INT(system(cmd), 0);
    struct pt_error err;
    struct dataset *ds = load(cut, &err);
    CHECK(ds == NULL);
    if (ds) dataset_free(ds);
    CHECK_CONTAINS(err.msg, "cut.json.gz");
    CHECK_CONTAINS(err.msg, "ends early");
}

/* Cuts path to half its size. */
static void cut_half(const char *path) {
    struct stat st;
    CHECK_INT(stat(path, &st), 0);
    CHECK_INT(truncate(path, st.st_size / 2), 0);
}

/* A run of 4 ranks whose rank 3 file is cut in the middle (plain and
 * gzip'd): the other 3 load, with the figures of the 3 files alone, and
 * a warning and a skip name the cut one.  Every file cut: the load fails
 * with the first one's message.  In follow mode a young cut file is being
 * written (pending), not a warning. */
static void hostile_truncated_rank(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    static const char *const kinds[2][2] = {{"--ranks 4", "rank_3.json"}, {"--ranks 4 --gz", "rank_3.json.gz"}};
    for (int g = 0; g < 2; g++) {
        char whole[1100], three[1200], bad[1300], cmd[4000];
        const char *dir = pt_tmpdir(g ? "trunc_rank_gz" : "trunc_rank");
        if (!dir || gen(dir, kinds[g][0]) != 0) { CHECK(!"gen failed"); return; }
        snprintf(whole, sizeof whole, "%s", dir);
        snprintf(three, sizeof three, "%s.three", whole);
        snprintf(bad, sizeof bad, "%s/%s", whole, kinds[g][1]);
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s' && rm '%s/%s'", three, whole, three, three, kinds[g][1]);
        CHECK_INT(system(cmd), 0);
        cut_half(bad);
        struct utimbuf old = {time(NULL) - 3600, time(NULL) - 3600};
        CHECK_INT(utime(bad, &old), 0);
        struct pt_error err;
        struct dataset *ds = load(whole, &err), *ref = load(three, &err);
        CHECK(ds && ref);
        if (ds && ref) {
            CHECK_INT(ds->trace->nranks, 3);
            CHECK(rank_of(ds, 3) == NULL);
            CHECK_INT(ds->nskipped, 1);
            if (ds->nskipped) CHECK_STR(ds->skipped[0], bad);
            int named = 0;
            for (size_t i = 0; i < ds->nwarnings; i++) named |= strstr(ds->warnings[i], kinds[g][1]) != NULL;
            CHECK(named);
            int64_t a[12], b[12];
            totals(ds, a, 3);
            totals(ref, b, 3);
            for (int k = 0; k < 12; k++) CHECK_INT(a[k], b[k]);
            CHECK_INT(ds->cube->nsteps, ref->cube->nsteps);
        }
        dataset_free(ds);
        dataset_free(ref);

        /* being written: pending in follow mode while young */
        struct load_opts lo;
        load_opts_init(&lo);
        lo.format = formats_find("trace");
        lo.follow = 1;
        struct utimbuf now = {time(NULL), time(NULL)};
        CHECK_INT(utime(bad, &now), 0);
        ds = NULL;
        CHECK_INT(load_dataset(whole, &lo, &ds, &err), 0);
        if (ds) {
            CHECK_INT(ds->npending, 1);
            CHECK_INT(ds->nskipped, 0);
            CHECK_INT(ds->trace->nranks, 3);
        }
        dataset_free(ds);

        /* every file cut: the first one's message */
        for (int r = 0; r < 3; r++) {
            char p[1400];
            snprintf(p, sizeof p, "%s/rank_%d.json%s", whole, r, g ? ".gz" : "");
            cut_half(p);
        }
        ds = load(whole, &err);
        CHECK(ds == NULL);
        dataset_free(ds);
        CHECK_CONTAINS(err.msg, g ? "rank_0.json.gz" : "rank_0.json");
    }
}

static void hostile_no_kernels(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    const char *dir = pt_tmpdir("nokernels");
    if (!dir || gen(dir, "--ranks 2 --no-kernels") != 0) { CHECK(!"gen failed"); return; }
    snprintf(p, sizeof p, "%s", dir);
    struct pt_error err;
    struct dataset *ds = load(p, &err);
    CHECK(ds == NULL);
    if (ds) dataset_free(ds);
    CHECK_CONTAINS(err.msg, "no device kernels in 2 trace files");
}

static void hostile_no_steps(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("nosteps", "--ranks 2 --no-steps", p, sizeof p);
    if (!ds) return;
    CHECK_INT(ds->cube->nsteps, 1);
    CHECK_INT(ds->cube->steps[0].value, 0);
    CHECK(ds->nwarnings >= 1);
    if (ds->nwarnings) CHECK_CONTAINS(ds->warnings[0], "no ProfilerStep#N");
    /* without steps HTA keeps every kernel */
    CHECK_INT(rank_of(ds, 0)->nwindow, rank_of(ds, 0)->nsegs);
    dataset_free(ds);
}

static void hostile_events(void) {
    const char *dir = pt_tmpdir("events");
    if (!dir) { CHECK(!"tmpdir"); return; }
    char p[1200];
    struct pt_error err;
    struct dataset *ds;
    /* negative durations are skipped and said */
    snprintf(p, sizeof p, "%s/neg.json", dir);
    const char *neg = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\", \"ts\": 10, \"dur\": -5, \"args\": {\"stream\": 7, \"correlation\": 1}},"
                      "{\"ph\": \"X\", \"name\": \"k2\", \"ts\": \"20.5\", \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 2}}]}";
    CHECK_INT(write_file(p, neg, strlen(neg)), 0);
    ds = load(p, &err);
    CHECK(ds != NULL);
    if (ds) {
        int said = 0;
        for (size_t i = 0; i < ds->nwarnings; i++) said |= strstr(ds->warnings[i], "1 events with a negative duration") != NULL;
        CHECK(said);
        CHECK_INT(ds->trace->ranks[0].nsegs, 1);
        dataset_free(ds);
    }
    /* a container where a scalar belongs is stepped over, the event kept */
    snprintf(p, sizeof p, "%s/odd.json", dir);
    const char *odd = "{\"traceEvents\": [{\"ph\": \"X\", \"tid\": {\"a\": [1, {\"b\": 2}]}, \"name\": [\"x\"], \"ts\": 1, "
                      "\"dur\": 2, \"args\": {\"stream\": {\"s\": 1}, \"correlation\": 3}}, "
                      "{\"ph\": \"X\", \"name\": \"gemm\", \"ts\": 5, \"dur\": 2, \"args\": {\"stream\": 7}}]}";
    CHECK_INT(write_file(p, odd, strlen(odd)), 0);
    ds = load(p, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->trace->ranks[0].nsegs, 1);
        dataset_free(ds);
    }
    /* not JSON at all; JSON but no traceEvents; trailing junk */
    static const struct { const char *text, *msg; } bad[] = {
        {"hello", "expected a JSON value"},
        {"{\"schemaVersion\": 1, \"x\": []}", "no \"traceEvents\" list"},
        {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"args\": {\"stream\": 1}}]} junk", "unexpected text"},
        {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"args\": {\"stream\": 1}}", "ends early"},
        {"42", "not a profiler trace"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(p, sizeof p, "%s/bad%zu.json", dir, i);
        CHECK_INT(write_file(p, bad[i].text, strlen(bad[i].text)), 0);
        ds = load(p, &err);
        CHECK(ds == NULL);
        if (ds) dataset_free(ds);
        CHECK_CONTAINS(err.msg, bad[i].msg);
        char base[64];
        snprintf(base, sizeof base, "bad%zu.json", i);
        CHECK_CONTAINS(err.msg, base);
    }
}

/* One string longer than the value limit: refused with the byte, after
 * reading no more than the limit (the limit is 256 MiB in use; 1 MiB here,
 * so the test writes 3 MB, not 2 GB). */
static void hostile_huge_string(void) {
    const char *dir = pt_tmpdir("huge");
    if (!dir) { CHECK(!"tmpdir"); return; }
    char p[1200];
    snprintf(p, sizeof p, "%s/huge.json.gz", dir);
    gzFile g = gzopen(p, "wb");
    CHECK(g != NULL);
    if (!g) return;
    gzputs(g, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"");
    char chunk[4096];
    memset(chunk, 'a', sizeof chunk);
    for (int i = 0; i < 768; i++) gzwrite(g, chunk, sizeof chunk);
    gzputs(g, "\", \"ts\": 1, \"dur\": 1}]}");
    gzclose(g);
    struct trace_parse_names nm;
    struct trace_parse_file f;
    memset(&nm, 0, sizeof nm);
    memset(&f, 0, sizeof f);
    struct pt_error err;
    CHECK_INT(trace_parse(p, &nm, (size_t)1 << 20, NULL, &f, &err), -1);
    CHECK_CONTAINS(err.msg, "huge.json.gz: byte 37: a single JSON value longer than 1 MiB");
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
    /* under the limit the same shape reads */
    memset(&f, 0, sizeof f);
    CHECK_INT(trace_parse(p, &nm, (size_t)8 << 20, NULL, &f, &err), 0);
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
}

/* torch_npu's layout and dialect (no real file is at hand: built from the
 * documented shape): a bare list of events, ts as strings, the device in the
 * process named "Ascend Hardware" (declared after its events here), HCCL as
 * hcom_* names and Task Types, the rank from profiler_info_<R>.json. */
static void ascend_trace_view(void) {
    const char *dir = pt_tmpdir("ascend");
    if (!dir) { CHECK(!"tmpdir"); return; }
    char d[1200], p[1300];
    snprintf(d, sizeof d, "%s/node1_123_20250101_ascend_pt", dir);
    snprintf(p, sizeof p, "mkdir -p '%s/ASCEND_PROFILER_OUTPUT' '%s/FRAMEWORK'", d, d);
    CHECK_INT(system(p), 0);
    snprintf(p, sizeof p, "%s/profiler_info_3.json", d);
    CHECK_INT(write_file(p, "{}", 2), 0);
    snprintf(p, sizeof p, "%s/FRAMEWORK/other.json", d);   /* never searched */
    CHECK_INT(write_file(p, "[{\"ph\": \"X\", \"ts\": 1}]", 22), 0);
    const char *ev =
        "[{\"ph\": \"X\", \"name\": \"ProfilerStep#6\", \"pid\": 1, \"tid\": 1, \"ts\": \"1000.000\", \"dur\": 1000},\n"
        " {\"ph\": \"X\", \"name\": \"aclnnMatmul_MatMulV2\", \"pid\": 2, \"tid\": 10, \"ts\": \"1010.500\", \"dur\": 100.25, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"
        " {\"ph\": \"X\", \"name\": \"hcom_allReduce__520_0_1\", \"pid\": 2, \"tid\": 11, \"ts\": \"1050\", \"dur\": \"100\"},\n"
        " {\"ph\": \"X\", \"name\": \"Memcpy\", \"pid\": 2, \"tid\": 10, \"ts\": \"1200\", \"dur\": 10, \"args\": {\"Task Type\": \"MEMCPY_ASYNC\"}},\n"
        " {\"ph\": \"X\", \"name\": \"ProfilerStep#7\", \"pid\": 1, \"tid\": 1, \"ts\": \"2000.000\", \"dur\": 1000},\n"
        " {\"ph\": \"X\", \"name\": \"aclnnAdd\", \"pid\": 2, \"tid\": 10, \"ts\": \"2010\", \"dur\": 50, \"args\": {\"Task Type\": \"AI_VECTOR_CORE\"}},\n"
        " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 2, \"tid\": 0, \"args\": {\"name\": \"Ascend Hardware\"}},\n"
        " {\"ph\": \"X\", \"name\": \"hcom_broadcast_1\", \"pid\": 2, \"tid\": 11, \"ts\": \"2100\", \"dur\": 20}]";
    snprintf(p, sizeof p, "%s/ASCEND_PROFILER_OUTPUT/trace_view.json", d);
    CHECK_INT(write_file(p, ev, strlen(ev)), 0);
    struct pt_error err;
    struct dataset *ds = load(dir, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->files_read, 1);
    const struct trace_rank *r = rank_of(ds, 3);
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->nsegs, 5);   /* hcom_broadcast_1 after the process is named counts too */
        CHECK_INT(r->nsteps, 2);
        const struct trace_stats *x = &r->steps[0].stats;
        CHECK_INT(x->count[TRACE_COMPUTE], 1);
        CHECK_INT(x->count[TRACE_COMM], 1);
        CHECK_INT(x->count[TRACE_MEMORY], 1);
        CHECK_INT(x->cat_ns[TRACE_COMPUTE], 100250);
        CHECK_INT(x->overlap_ns, 1010500 + 100250 - 1050000);
        CHECK_INT(r->steps[1].stats.count[TRACE_COMM], 1);
        /* HTA's window without correlation ids: kernels starting before the last step */
        CHECK_INT(r->nwindow, 3);
    }
    dataset_free(ds);
}

/* The command's output of one run (stdout), or NULL. */
static char *run_cmd(const char *args) {
    const char *bin = getenv("PT_BIN");
    if (!bin) return NULL;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' trace %s 2>/dev/null", bin, args);
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; }
            else buf = nb;
        }
    }
    pclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

static void cli_formats(void) {
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("fixtures absent");
    if (!getenv("PT_BIN")) SKIP("PT_BIN unset");
    char args[2048];
    snprintf(args, sizeof args, "'%s' --format json --per-step", p);
    char *out = run_cmd(args);
    CHECK(out != NULL);
    if (out) {
        cJSON *j = cJSON_Parse(out);
        CHECK(j != NULL);
        cJSON *ranks = cJSON_GetObjectItem(j, "ranks"), *steps = cJSON_GetObjectItem(j, "steps");
        CHECK_INT(cJSON_GetArraySize(ranks), 2);
        CHECK_INT(cJSON_GetArraySize(steps), 4);
        cJSON *r0 = cJSON_GetArrayItem(ranks, 0);
        CHECK_INT(cJSON_GetObjectItem(r0, "rank")->valueint, 0);
        CHECK_NEAR(cJSON_GetObjectItem(r0, "idle_us")->valuedouble, 321378, 1);
        CHECK_NEAR(cJSON_GetObjectItem(r0, "compute_us")->valuedouble, 106252, 1);
        CHECK_NEAR(cJSON_GetObjectItem(r0, "non_compute_us")->valuedouble, 172428, 1);
        CHECK_NEAR(cJSON_GetObjectItem(r0, "kernel_us")->valuedouble, 600058, 1);
        CHECK_NEAR(cJSON_GetObjectItem(r0, "overlap_pct")->valuedouble, 11.81, 0.005);
        /* step-major: (551, 0), (551, 1), (552, 0), (552, 1) */
        CHECK_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(steps, 1), "step")->valueint, 551);
        CHECK_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(steps, 1), "rank")->valueint, 1);
        CHECK_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(steps, 2), "step")->valueint, 552);
        CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "stragglers")), 2);
        cJSON_Delete(j);
        free(out);
    }
    snprintf(args, sizeof args, "'%s' --format csv", p);
    out = run_cmd(args);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "step,rank,kernel_us,idle_us,idle_pct,compute_us,compute_pct,non_compute_us,non_compute_pct,"
                            "communication_us,memory_us,overlap_pct,kernels\n,0,600058.000,321378.000,");
        free(out);
    }
    out = run_cmd(p);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "   0       600058       321378  53.56       106252  17.71         172428  28.74    11.81      602");
        CHECK_CONTAINS(out, "551               1");   /* the straggler of step 551 */
        free(out);
    }
}

/* The load of dir as nobody when root (a folder of mode 0 does not stop
 * root), in a child: 0 when it loads 2 ranks with a warning naming the
 * folder locked and that folder skipped; 1 when the load fails; 2 when the
 * uid cannot be dropped. */
static int load_as_other(const char *dir, const char *locked) {
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
        struct pt_error err;
        struct dataset *ds = load(dir, &err);
        if (!ds) { fprintf(stderr, "%s\n", err.msg); _exit(1); }
        int warned = 0, skipped = 0;
        for (size_t i = 0; i < ds->nwarnings; i++) warned |= strstr(ds->warnings[i], locked) && strstr(ds->warnings[i], "cannot list");
        for (size_t i = 0; i < ds->nskipped; i++) skipped |= !strcmp(ds->skipped[i], locked);
        int ok = ds->trace && ds->trace->nranks == 2 && warned && skipped;
        dataset_free(ds);
        _exit(ok ? 0 : 3);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return 4;
    return WEXITSTATUS(st);
}

/* The exit status of `probetop ARGS dir` run as nobody when root, its
 * stderr into errf; -1 when it cannot run. */
static int cli_as_other(const char *cmd, const char *dir, const char *errf) {
    const char *bin = getenv("PT_BIN");
    pid_t pid = fork();
    if (pid < 0 || !bin) return -1;
    if (pid == 0) {
        int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 2) < 0 || dup2(nul, 1) < 0) _exit(120);
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(121);
        execl(bin, "probetop", cmd, dir, (char *)NULL);
        _exit(122);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

/* Two readable ranks and a sub-folder that cannot be listed: the folder is
 * left out with a warning, as the dump and monitor readers do; `trace` and
 * `info` exit 0. */
static void unreadable_subfolder(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("unreadable");
    char dir[1100], locked[1200], errf[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(dir, sizeof dir, "%s/run", d);
    snprintf(locked, sizeof locked, "%s/run/zz_locked", d);
    snprintf(errf, sizeof errf, "%s/stderr", d);
    if (gen(dir, "--ranks 2") != 0 || gen(locked, "--ranks 1") != 0) { CHECK(!"gen_trace.py failed"); return; }
    CHECK_INT(chmod(d, 0755), 0);
    CHECK_INT(chmod(locked, 0), 0);
    if (geteuid() != 0) {   /* not root: mode 0 is enough, unless some capability opens it anyway */
        DIR *x = opendir(locked);
        if (x) { closedir(x); chmod(locked, 0755); SKIP("a folder of mode 0 still opens"); }
    }
    int rc = load_as_other(dir, locked);
    if (rc == 2) { chmod(locked, 0755); SKIP("cannot run as another user"); }
    CHECK_INT(rc, 0);
    if (getenv("PT_BIN")) {
        CHECK_INT(cli_as_other("trace", dir, errf), 0);
        char *e = pt_slurp(errf);
        CHECK(e != NULL);
        if (e) { CHECK_CONTAINS(e, "zz_locked: cannot list: Permission denied: skipped"); free(e); }
        CHECK_INT(cli_as_other("info", dir, errf), 0);
    }
    chmod(locked, 0755);   /* the next run's rm -rf */
}

/* `probetop trace --per-step --format csv --mem MEM dir`: its stdout into
 * out, its peak resident memory (KiB) into *kib; the exit status or -1. */
static int trace_child(const char *dir, const char *mem, const char *out, long *kib) {
    const char *bin = getenv("PT_BIN");
    pid_t pid = bin ? fork() : -1;
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 1) < 0 || dup2(nul, 2) < 0) _exit(120);
        execl(bin, "probetop", "trace", dir, "--per-step", "--format", "csv", "--mem", mem, (char *)NULL);
        _exit(121);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st)) return -1;
    *kib = ru.ru_maxrss;
    return WEXITSTATUS(st);
}

/* Under ASan the peak memory is the sanitizer's, not the reader's. */
#if defined(__SANITIZE_ADDRESS__)
#define PT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_SANITIZED 1
#endif
#endif
#ifndef PT_SANITIZED
#define PT_SANITIZED 0
#endif

static struct dataset *load_mem(const char *path, uint64_t mem, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    lo.format = formats_find("trace");
    lo.mem_budget = mem;
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

/* A gzip bomb (tests/gen_trace.py --bomb: 400 000 sub-us kernels and their
 * launches, out of order, 8 MB of gzip): with --mem 8M the kernels go
 * through a temporary file and the lane view merges them, the per-step
 * figures, HTA's window and the cube equal those of an unbounded load, and
 * the process stays within --mem and the fixed part (piece buffers of 4 MiB
 * per parsing thread, the program). */
static void bomb_bounded(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("bomb");
    char dir[1100], o1[1200], o2[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(dir, sizeof dir, "%s/run", d);
    if (gen(dir, "--ranks 1 --steps 4 --bomb 400000 --gz") != 0) { CHECK(!"gen_trace.py failed"); return; }
    /* the command first: a child's peak memory counts its parent's at the fork */
    if (getenv("PT_BIN")) {
        long kb_big = 0, kb_small = 0;
        snprintf(o1, sizeof o1, "%s/big.csv", d);
        snprintf(o2, sizeof o2, "%s/small.csv", d);
        CHECK_INT(trace_child(dir, "1G", o1, &kb_big), 0);
        CHECK_INT(trace_child(dir, "8M", o2, &kb_small), 0);
        char *x = pt_slurp(o1), *y = pt_slurp(o2);
        CHECK(x && y && strlen(x) > 500);
        if (x && y) CHECK_STR(y, x);   /* every (step, rank) row, the same */
        free(x);
        free(y);
        fprintf(stderr, "bomb: peak RSS %ld KiB unbounded, %ld KiB with --mem 8M\n", kb_big, kb_small);
#if !PT_SANITIZED
        CHECK(kb_small <= (8 + 24) * 1024);
        CHECK(kb_big > kb_small + 8 * 1024);
#endif
    }
    struct pt_error err;
    struct dataset *big = load_mem(dir, (uint64_t)1 << 30, &err), *small = load_mem(dir, (uint64_t)8 << 20, &err);
    CHECK(big != NULL && small != NULL);
    if (big && small) {
        const struct trace_rank *a = &big->trace->ranks[0], *b = &small->trace->ranks[0];
        CHECK_INT(a->nkernels, 400000);
        CHECK_INT(b->nkernels, 400000);
        CHECK_INT(a->lane_merge_ns, 0);
        CHECK_INT(a->nsegs, 400000);
        CHECK(b->lane_merge_ns > 0);
        CHECK(b->nsegs < 400000 / 2);                       /* 2 MiB of segments: about 87 000 */
        CHECK_INT(b->nsteps, 4);
        CHECK_INT(a->nsteps, b->nsteps);
        for (int i = 0; i < a->nsteps && i < b->nsteps; i++) {
            CHECK_INT(b->steps[i].stats.nkernels, 100000);
            CHECK(!memcmp(&a->steps[i].stats, &b->steps[i].stats, sizeof a->steps[i].stats));
            CHECK_INT(a->steps[i].start_ns, b->steps[i].start_ns);
            CHECK_INT(a->steps[i].end_ns, b->steps[i].end_ns);
        }
        CHECK(!memcmp(&a->total, &b->total, sizeof a->total));
        CHECK_INT(a->nwindow, b->nwindow);
        CHECK_NEAR(pt_cube_value(small, "time", "us", "idle", 0, 2, 0), pt_cube_value(big, "time", "us", "idle", 0, 2, 0), 0);
        int said = 0;
        for (size_t i = 0; i < small->nwarnings; i++)
            said += strstr(small->warnings[i], "more than --mem holds for the lane view") != NULL ||
                    strstr(small->warnings[i], "went through a temporary file") != NULL;
        CHECK_INT(said, 2);
        /* the lane view's segments cover what the kernels cover */
        CHECK_INT(b->segs[0].start_ns, a->segs[0].start_ns);
    }
    dataset_free(big);
    dataset_free(small);
}

/* A trace of ever new kernel names: past a quarter of --mem the names are
 * lumped under one, said in a warning; the figures still count them. */
static void names_beyond_mem(void) {
    const char *d = pt_tmpdir("names");
    char f[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(f, sizeof f, "%s/rank_0.json", d);
    FILE *o = fopen(f, "w");
    CHECK(o != NULL);
    if (!o) return;
    fputs("{\"traceEvents\": [", o);
    for (int i = 0; i < 20000; i++)
        fprintf(o, "%s{\"ph\": \"X\", \"name\": \"kernel_with_a_name_of_its_own_%06d\", \"ts\": %d, \"dur\": 1, "
                   "\"args\": {\"stream\": 7}}", i ? ",\n" : "", i, 2 * i);
    fputs("]}\n", o);
    fclose(o);
    struct pt_error err;
    struct dataset *ds = load_mem(d, (uint64_t)1 << 20, &err);   /* 256 KiB of names: some 3 000 */
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK(ds->trace->nnames > 1000 && ds->trace->nnames < 10000);
    CHECK_INT(ds->trace->ranks[0].total.nkernels, 20000);
    CHECK_INT(ds->trace->ranks[0].total.kernel_ns, 39999000);
    int said = 0;
    for (size_t i = 0; i < ds->nwarnings; i++) said += strstr(ds->warnings[i], "names beyond what --mem holds") != NULL;
    CHECK_INT(said, 1);
    CHECK_STR(ds->trace->names[ds->trace->ranks[0].segs[19999].name], TRACE_PARSE_LUMPED);
    dataset_free(ds);
}

/* A rank without communication: overlap_pct is null. */
static void cli_no_comm(void) {
    if (!getenv("PT_BIN")) SKIP("PT_BIN unset");
    const char *dir = pt_tmpdir("nocomm");
    char p[1200], args[1400];
    snprintf(p, sizeof p, "%s/t.json", dir ? dir : "/tmp");
    const char *t = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"gemm\", \"ts\": 10, \"dur\": 5, \"args\": {\"stream\": 7}}]}";
    CHECK_INT(write_file(p, t, strlen(t)), 0);
    snprintf(args, sizeof args, "'%s' --format json", p);
    char *out = run_cmd(args);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "\"overlap_pct\": null");
        free(out);
    }
}

/* torch_npu's launch flows (cat async_npu, ph s on the host, ph f inside the
 * device task): a task that runs late still belongs to the step and the
 * Megatron phase of its launch. */
static void ascend_flows(void) {
    const char *dir = pt_tmpdir("ascendflow");
    if (!dir) { CHECK(!"tmpdir"); return; }
    char p[1300];
    snprintf(p, sizeof p, "%s/trace_view.json", dir);
    const char *ev =
        "[{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 2, \"tid\": 0, \"args\": {\"name\": \"Ascend Hardware\"}},\n"
        " {\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": \"1000\", \"dur\": 1000},\n"
        " {\"ph\": \"X\", \"name\": \"forward_step\", \"pid\": 1, \"tid\": 1, \"ts\": \"1100\", \"dur\": 100},\n"
        " {\"ph\": \"s\", \"cat\": \"async_npu\", \"name\": \"async_npu\", \"id\": \"77\", \"pid\": 1, \"tid\": 5, \"ts\": \"1150\"},\n"
        " {\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"pid\": 1, \"tid\": 1, \"ts\": \"2000\", \"dur\": 1000},\n"
        " {\"ph\": \"X\", \"name\": \"aclnnMatmul\", \"pid\": 2, \"tid\": 10, \"ts\": \"2100\", \"dur\": 300},\n"
        " {\"ph\": \"f\", \"cat\": \"async_npu\", \"name\": \"async_npu\", \"id\": \"77\", \"pid\": 2, \"tid\": 10, \"ts\": \"2100\", \"bp\": \"e\"},\n"
        " {\"ph\": \"X\", \"name\": \"aclnnAdd\", \"pid\": 2, \"tid\": 10, \"ts\": \"2500\", \"dur\": 50}]";
    CHECK_INT(write_file(p, ev, strlen(ev)), 0);
    struct pt_error err;
    struct dataset *ds = load(p, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    const struct trace_rank *r = rank_of(ds, 0);
    CHECK(r != NULL && r->nsteps == 2);
    if (r && r->nsteps == 2) {
        /* the matmul was launched in step 1: step 1 starts with it on the device */
        CHECK_INT(r->steps[0].stats.nkernels, 1);
        CHECK_INT(r->steps[1].start_ns - r->steps[0].start_ns, 400000);   /* the unlinked add, by its start, opens step 2 */
        CHECK_INT(r->steps[1].stats.nkernels, 1);
        CHECK_INT(r->steps[0].stats.phase_count[TRACE_PH_FORWARD][TRACE_COMPUTE], 1);
        CHECK(ds->trace->has_phases);
        /* HTA's window: the linked matmul by its launch (before step 2), the add by its start (after) */
        CHECK_INT(r->nwindow, 1);
    }
    dataset_free(ds);
}

static void detect(void) {
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("fixtures absent");
    CHECK_STR(formats_name(formats_detect(p)), "trace");
    CHECK_STR(formats_name(formats_detect(pt_shared_file("traces", "hta/rank3_of_8/control.json.gz"))), "trace");
    CHECK_STR(formats_name(formats_detect(pt_shared_file("traces", "hta"))), "trace");
}

int main(void) {
    snprintf(gen_path, sizeof gen_path, "%s", __FILE__);
    char *slash = strstr(gen_path, "/unit/test_trace.c");
    if (slash) snprintf(slash, sizeof gen_path - (size_t)(slash - gen_path), "/gen_trace.py");
    RUN(fixture_sampled_2rank);
    RUN(fixture_nccl_2rank);
    RUN(fixture_rank3_of_8);
    RUN(fixture_ns_resolution);
    RUN(ns_double_rounding);
    RUN(gen_straggler);
    RUN(gen_phases);
    RUN(gen_encodings);
    RUN(gen_streamed);
    RUN(lex_streaming);
    RUN(us_to_ns);
    RUN(classify);
    RUN(stats_by_hand);
    RUN(hostile_truncated_gz);
    RUN(hostile_truncated_rank);
    RUN(hostile_no_kernels);
    RUN(hostile_no_steps);
    RUN(hostile_events);
    RUN(hostile_huge_string);
    RUN(ascend_trace_view);
    RUN(ascend_flows);
    RUN(cli_formats);
    RUN(cli_no_comm);
    RUN(unreadable_subfolder);
    RUN(bomb_bounded);
    RUN(names_beyond_mem);
    RUN(detect);
    PT_DONE();
}
