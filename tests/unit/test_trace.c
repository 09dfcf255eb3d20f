/* Profiler traces (probetop-formats(5), PROFILER TRACES; probetop-rules(7),
 * PROFILER TRACES): HolisticTraceAnalysis's figures on the three real
 * fixtures (expected values from HTA run on them), generated traces
 * (tests/gen_trace.py: gz and plain, every rank source, relative and
 * absolute time, TraceViz's layout, a planted straggler, Megatron phases),
 * the streaming tokenizer, torch_npu's layout and flows, and the `trace`
 * command's output.  Hostile traces and the memory bound:
 * test_trace_hostile.c. */
#include "pt_cube.h"
#include "pt_test.h"
#include "pt_trace.h"

#include "model/trace/trace_cube.h"
#include "src/io/common/json.h"
#include "src/io/trace/trace_parse.h"

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

static void gen_straggler(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("straggler", "--ranks 8 --steps 4 --straggler 5 --slow 1.5", p, sizeof p);
    if (!ds) return;
    CHECK_INT(ds->trace->nranks, 8);
    CHECK_INT(whole_steps(ds), 4);
    CHECK_INT(ds->cube->nsteps, 4 * 3);   /* each step, then its 2 micro-batches */
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
    CHECK(pt_cube_at(ds, "time", "us", TRACE_TGT_EXPOSED, "2", 0) > pt_cube_at(ds, "time", "us", TRACE_TGT_EXPOSED, "2", 5) + 100);
    CHECK_INT(ds->nwarnings, 0);
    dataset_free(ds);
}

/* load_opts.trace_axes_only (probetop trace): the run is the same as a full
 * load's, its cube only the axes: the 8 ranks, the 4 steps (no micro-batch
 * rows, which the full cube has: 4 x 3) and no cell. */
static void gen_axes_only(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *full = gen_load("axes", "--ranks 8 --steps 4 --micro 2", p, sizeof p);
    if (!full) return;
    struct load_opts lo;
    load_opts_init(&lo);
    lo.trace_axes_only = 1;
    struct dataset *ds = NULL;
    struct pt_error err;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (!ds) { dataset_free(full); return; }
    CHECK_INT(full->cube->nsteps, 4 * 3);
    CHECK_INT(ds->cube->nsteps, 4);
    for (int i = 0; i < ds->cube->nsteps && i < 4; i++) CHECK_INT(ds->cube->steps[i].value, i + 1);
    CHECK_INT(ds->cube->nranks, 8);
    for (int i = 0; i < ds->cube->nranks && i < 8; i++) CHECK_INT(ds->cube->ranks[i], i);
    CHECK_INT(ds->cube->nmetrics, 1);
    if (ds->cube->nmetrics == 1) {
        CHECK_STR(ds->cube->metrics[0].name, "time");
        CHECK_INT(ds->cube->metrics[0].ntargets, 0);
    }
    CHECK(full->cube->metrics[0].ntargets >= 6);
    CHECK(names_label_find(ds->cube->names, "compute", LABEL_MODULE) != NAMES_NONE);
    int64_t a[32], b[32];
    totals(full, a, 8);
    totals(ds, b, 8);
    CHECK(!memcmp(a, b, sizeof a));
    CHECK(a[2] > 0);
    CHECK_INT(ds->trace->nranks, 8);
    for (int i = 0; i < 8 && i < ds->trace->nranks; i++) {
        CHECK_INT(ds->trace->ranks[i].nkernels, full->trace->ranks[i].nkernels);
        CHECK_INT(ds->trace->ranks[i].nmicros, full->trace->ranks[i].nmicros);
    }
    CHECK_INT(ds->nwarnings, full->nwarnings);
    dataset_free(ds);
    /* load_opts.summary (info sets it for every format) keeps a trace's whole cube */
    load_opts_init(&lo);
    lo.summary = 1;
    ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->cube->nsteps, 4 * 3);
        CHECK_INT(ds->cube->metrics[0].ntargets, full->cube->metrics[0].ntargets);
        dataset_free(ds);
    }
    dataset_free(full);
}

static void gen_phases(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("phases", "--ranks 2 --steps 3 --micro 3", p, sizeof p);
    if (!ds) return;
    CHECK(ds->trace->has_phases);
    /* 3 micro batches x 6 kernels per forward_step */
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "forward.compute", "2", 1), 18, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "backward.compute", "2", 1), 18, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "pp_comm.communication", "2", 1), 6, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "dp_grad.communication", "2", 1), 1, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "optimizer.compute", "2", 1), 1, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "optimizer.memory", "2", 1), 1, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "forward.compute", "2", 1), 3 * 6 * 40.0 * 1.6, 0.01);   /* rank 1 is slow */
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "forward.compute", "2", 0), 3 * 6 * 40.0, 0.01);
    /* micro-batch 1 of step 2 (micro steps "2.0" .. "2.2"): its own forward */
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "forward.compute", "2.1", 1), 6, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "forward.compute", "2.1", 0), 6 * 40.0, 0.01);
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
        CHECK_INT(whole_steps(ds), 3);
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

/* Every figure of x and y the same. */
static int same_stats(const struct trace_stats *x, const struct trace_stats *y) {
    int same = x->kernel_ns == y->kernel_ns && x->idle_ns == y->idle_ns && x->non_compute_ns == y->non_compute_ns &&
               x->overlap_ns == y->overlap_ns && x->nkernels == y->nkernels;
    for (int c = 0; c < TRACE_NCATS; c++) same &= x->cat_ns[c] == y->cat_ns[c] && x->count[c] == y->count[c];
    for (int p = 0; p < TRACE_NPHASES; p++) {
        same &= x->phase_overlap_ns[p] == y->phase_overlap_ns[p] && x->phase_span_ns[p] == y->phase_span_ns[p];
        for (int c = 0; c < TRACE_NCATS; c++) same &= x->phase_ns[p][c] == y->phase_ns[p][c] && x->phase_count[p][c] == y->phase_count[p][c];
    }
    return same;
}

/* trace_acc_add2 (a step's and its micro-batch's figures in one call) and
 * trace_acc_add3 (and the window's, on HTA's times) are trace_acc_add on
 * each: a step's kernels of every category and phase, overlapping, in
 * gaps, the micro-batches taking some of them each, the window most. */
static void acc_add2(void) {
    struct trace_acc step, micro[3], one, part[3], win, win1;
    trace_acc_init(&step), trace_acc_init(&one), trace_acc_init(&win), trace_acc_init(&win1);
    for (int m = 0; m < 3; m++) trace_acc_init(&micro[m]), trace_acc_init(&part[m]);
    uint32_t x = 12345;
    int64_t t = 1000;
    for (int i = 0; i < 500; i++) {
        x = x * 1103515245u + 12345u;
        struct trace_seg g = {.start_ns = t, .dur_ns = (int64_t)(x >> 8) % 700, .cat = (uint8_t)((x >> 20) % TRACE_NCATS),
                              .phase = (uint8_t)((x >> 24) % (TRACE_NPHASES + 1)), .stream = (uint16_t)(x % 3)};
        t += (int64_t)(x >> 4) % 400;
        int m = (int)((x >> 16) % 3);
        struct trace_seg h = g;   /* HTA's whole us */
        h.start_ns = (g.start_ns + 999) / 1000 * 1000;
        h.dur_ns = (g.start_ns + g.dur_ns) / 1000 * 1000 - h.start_ns;
        if (x & 0x100) {
            trace_acc_add3(&step, &micro[m], &g, &win, &h);
            trace_acc_add(&win1, &h);
        } else {
            trace_acc_add2(&step, &micro[m], &g);
        }
        trace_acc_add(&one, &g);
        trace_acc_add(&part[m], &g);
    }
    struct trace_stats wa, wb;
    trace_acc_finish(&win, &wa);
    trace_acc_finish(&win1, &wb);
    CHECK(same_stats(&wa, &wb));
    CHECK(wa.nkernels > 150 && wa.nkernels < 350);
    struct trace_stats a, b;
    trace_acc_finish(&step, &a);
    trace_acc_finish(&one, &b);
    CHECK(same_stats(&a, &b));
    CHECK_INT(a.nkernels, 500);
    CHECK(a.idle_ns > 0 && a.overlap_ns > 0);   /* gaps and overlaps met */
    for (int m = 0; m < 3; m++) {
        trace_acc_finish(&micro[m], &a);
        trace_acc_finish(&part[m], &b);
        CHECK(same_stats(&a, &b));
        CHECK(a.nkernels > 100);
    }
}

static int write_file(const char *path, const char *text, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(text, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
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
    RUN(fixture_sampled_2rank);
    RUN(fixture_nccl_2rank);
    RUN(fixture_rank3_of_8);
    RUN(fixture_ns_resolution);
    RUN(ns_double_rounding);
    RUN(gen_straggler);
    RUN(gen_axes_only);
    RUN(gen_phases);
    RUN(gen_encodings);
    RUN(gen_streamed);
    RUN(lex_streaming);
    RUN(us_to_ns);
    RUN(classify);
    RUN(stats_by_hand);
    RUN(acc_add2);
    RUN(ascend_trace_view);
    RUN(ascend_flows);
    RUN(cli_formats);
    RUN(cli_no_comm);
    RUN(detect);
    PT_DONE();
}
