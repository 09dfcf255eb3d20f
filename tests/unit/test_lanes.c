/* The lane view's model (model/trace/lanes.c) on hand-built timelines: spans
 * of a step on one clock and aligned per rank, the dominant category per
 * column (ties, idle runs, outside the step), the items the cursor walks,
 * the column of a time, zoom and pan. */
#include "pt_test.h"

#include "model/trace/lanes.h"

/* Rank 0, step 1 [1000, 2000): compute [1000,1300) on stream 7, comm
 * [1200,1500) on stream 20, memory [1600,1700); idle [1500,1600) and
 * [1700,2000).  Rank 1, step 1 [1500, 2100): one compute kernel over all
 * of it; step 2 [2200, 2400): no kernel (a pipeline bubble). */
static struct trace_seg segs0[] = {
    {1000, 300, 0, TRACE_COMPUTE, TRACE_PH_FORWARD, 7},
    {1200, 300, 1, TRACE_COMM, TRACE_PH_PP_COMM, 20},
    {1600, 100, 2, TRACE_MEMORY, TRACE_PH_NONE, 7},
};
static struct trace_seg segs1[] = {
    {1500, 600, 0, TRACE_COMPUTE, TRACE_PH_BACKWARD, 7},
};
static struct trace_step steps0[] = {{.step = 1, .start_ns = 1000, .end_ns = 2000, .first = 0, .nsegs = 3}};
static struct trace_step steps1[] = {{.step = 1, .start_ns = 1500, .end_ns = 2050, .first = 0, .nsegs = 1},
                                     {.step = 2, .start_ns = 2200, .end_ns = 2400, .first = 1, .nsegs = 0}};
static char n0[] = "sm80_gemm", n1[] = "ncclKernel_SendRecv", n2[] = "Memcpy DtoD";
static char *names[] = {n0, n1, n2};
static struct trace_rank ranks[] = {
    {.rank = 0, .steps = steps0, .nsteps = 1, .segs = segs0, .nsegs = 3},
    {.rank = 1, .steps = steps1, .nsteps = 2, .segs = segs1, .nsegs = 1},
};
static const struct trace_run run = {.ranks = ranks, .nranks = 2, .names = names, .nnames = 3};

static void spans(void) {
    int64_t a, b;
    const struct trace_step *st;
    CHECK_INT(lanes_rank_span(&ranks[0], 1, &a, &b, &st), 1);
    CHECK_INT(a, 1000);
    CHECK_INT(b, 2000);
    CHECK(st == &steps0[0]);
    /* the kernel runs past the annotation's end (2050): the span follows it */
    CHECK_INT(lanes_rank_span(&ranks[1], 1, &a, &b, NULL), 1);
    CHECK_INT(b, 2100);
    CHECK_INT(lanes_rank_span(&ranks[0], 2, &a, &b, &st), 0);
    CHECK(st == NULL);
    int lanes[] = {0, 1};
    CHECK_INT(lanes_span(&run, lanes, 2, 1, LANES_GLOBAL, &a, &b), 1);
    CHECK_INT(a, 1000);
    CHECK_INT(b, 2100);
    CHECK_INT(lanes_span(&run, lanes, 2, 1, LANES_STEP, &a, &b), 1);
    CHECK_INT(a, 0);
    CHECK_INT(b, 1000);   /* rank 0's 1000 ns is longer than rank 1's 600 */
    CHECK_INT(lanes_span(&run, lanes, 2, 2, LANES_GLOBAL, &a, &b), 1);   /* only rank 1 has step 2 */
    CHECK_INT(a, 2200);
    CHECK_INT(b, 2400);
    CHECK_INT(lanes_span(&run, lanes, 2, 9, LANES_GLOBAL, &a, &b), 0);
    CHECK_INT(a, 0);
    CHECK_INT(b, 0);
    int bad[] = {5, -1};
    CHECK_INT(lanes_span(&run, bad, 2, 1, LANES_GLOBAL, &a, &b), 0);
}

static void bins(void) {
    uint8_t out[16];
    struct pt_error err;
    /* 100 ns bins over rank 0's step */
    CHECK_INT(lanes_bin(&run, 0, 1, LANES_GLOBAL, 1000, 2000, 10, out, &err), 0);
    const uint8_t want0[10] = {TRACE_COMPUTE, TRACE_COMPUTE, TRACE_COMM, TRACE_COMM, TRACE_COMM,
                               TRACE_IDLE, TRACE_MEMORY, TRACE_IDLE, TRACE_IDLE, TRACE_IDLE};
    for (int i = 0; i < 10; i++) CHECK_INT(out[i], want0[i]);   /* bin 2: a 100/100 tie goes to comm */
    /* rank 1 on the shared clock: before 1500 it is not in its step */
    CHECK_INT(lanes_bin(&run, 1, 1, LANES_GLOBAL, 1000, 2100, 11, out, &err), 0);
    for (int i = 0; i < 11; i++) CHECK_INT(out[i], i < 5 ? LANE_NONE : TRACE_COMPUTE);
    /* aligned: from its own start, and nothing after its 600 ns */
    CHECK_INT(lanes_bin(&run, 1, 1, LANES_STEP, 0, 1000, 10, out, &err), 0);
    for (int i = 0; i < 10; i++) CHECK_INT(out[i], i < 6 ? TRACE_COMPUTE : LANE_NONE);
    /* a step without kernels is one idle run (the bubble) */
    CHECK_INT(lanes_bin(&run, 1, 2, LANES_GLOBAL, 2200, 2400, 4, out, &err), 0);
    for (int i = 0; i < 4; i++) CHECK_INT(out[i], TRACE_IDLE);
    /* one bin: most of the step is compute (300 + 600 of idle 400, comm 300, memory 100) */
    CHECK_INT(lanes_bin(&run, 0, 1, LANES_GLOBAL, 1000, 2000, 1, out, &err), 0);
    CHECK_INT(out[0], TRACE_IDLE);   /* idle 100 + 300 = 400 beats compute 300 and comm 300 */
    /* zoomed into the overlap: comm and compute both run, tie to comm */
    CHECK_INT(lanes_bin(&run, 0, 1, LANES_GLOBAL, 1200, 1300, 3, out, &err), 0);
    for (int i = 0; i < 3; i++) CHECK_INT(out[i], TRACE_COMM);
    /* absent step, absent rank, empty window: all outside */
    memset(out, 7, sizeof out);
    CHECK_INT(lanes_bin(&run, 0, 5, LANES_GLOBAL, 0, 100, 4, out, &err), 0);
    for (int i = 0; i < 4; i++) CHECK_INT(out[i], LANE_NONE);
    CHECK_INT(lanes_bin(&run, 9, 1, LANES_GLOBAL, 0, 100, 4, out, &err), 0);
    CHECK_INT(out[3], LANE_NONE);
    memset(out, 7, sizeof out);
    CHECK_INT(lanes_bin(&run, 0, 1, LANES_GLOBAL, 100, 100, 4, out, &err), 0);
    CHECK_INT(out[0], 7);   /* nothing written */
}

static void items(void) {
    struct lane_items it;
    struct pt_error err;
    CHECK_INT(lanes_items(&run, 0, 1, &it, &err), 0);
    CHECK_INT(it.n, 5);
    CHECK_INT(it.span0, 1000);
    CHECK_INT(it.span1, 2000);
    if (it.n == 5) {
        CHECK_INT(it.v[0].cat, TRACE_COMPUTE);
        CHECK_INT(it.v[1].cat, TRACE_COMM);
        CHECK_STR(names[it.v[1].name], "ncclKernel_SendRecv");
        CHECK_INT(it.v[1].phase, TRACE_PH_PP_COMM);
        CHECK_INT(it.v[1].stream, 20);
        CHECK_INT(it.v[2].cat, TRACE_IDLE);
        CHECK_INT(it.v[2].name, LANE_IDLE_NAME);
        CHECK_INT(it.v[2].start_ns, 1500);
        CHECK_INT(it.v[2].dur_ns, 100);
        CHECK_INT(it.v[3].cat, TRACE_MEMORY);
        CHECK_INT(it.v[4].start_ns, 1700);
        CHECK_INT(it.v[4].dur_ns, 300);
    }
    CHECK_INT(lanes_item_at(&it, 1100), 0);
    CHECK_INT(lanes_item_at(&it, 1250), 1);   /* both run: the latest-starting */
    CHECK_INT(lanes_item_at(&it, 1550), 2);
    CHECK_INT(lanes_item_at(&it, 1650), 3);
    CHECK_INT(lanes_item_at(&it, 1999), 4);
    CHECK_INT(lanes_item_at(&it, 500), 0);    /* before: the first */
    CHECK_INT(lanes_item_at(&it, 5000), 4);   /* after: the last */
    lanes_items_free(&it);
    CHECK_INT(lanes_items(&run, 1, 2, &it, &err), 0);
    CHECK_INT(it.n, 1);
    if (it.n) CHECK_INT(it.v[0].dur_ns, 200);
    lanes_items_free(&it);
    CHECK_INT(lanes_items(&run, 0, 7, &it, &err), 0);
    CHECK_INT(it.n, 0);
    CHECK_INT(lanes_item_at(&it, 0), -1);
    lanes_items_free(&it);
}

static void columns(void) {
    CHECK_INT(lanes_col(0, 0, 100, 10), 0);
    CHECK_INT(lanes_col(9, 0, 100, 10), 0);
    CHECK_INT(lanes_col(10, 0, 100, 10), 1);
    CHECK_INT(lanes_col(99, 0, 100, 10), 9);
    CHECK_INT(lanes_col(100, 0, 100, 10), 10);
    CHECK_INT(lanes_col(-1, 0, 100, 10), -1);
    CHECK_INT(lanes_col(5, 5, 5, 10), 10);
    /* nanoseconds of a long run: no overflow */
    CHECK_INT(lanes_col(INT64_C(1700000000000000000) + 500, INT64_C(1700000000000000000),
                        INT64_C(1700000000000001000), 200), 100);
}

static void zoom_pan(void) {
    int64_t a = 0, b = 1000;
    lanes_zoom(&a, &b, 500, 0.5, 0, 1000, 10);
    CHECK_INT(a, 250);
    CHECK_INT(b, 750);
    /* around a point off centre: it keeps its place (a quarter in) */
    a = 0, b = 1000;
    lanes_zoom(&a, &b, 250, 0.5, 0, 1000, 10);
    CHECK_INT(a, 125);
    CHECK_INT(b, 625);
    /* at the edge */
    a = 0, b = 1000;
    lanes_zoom(&a, &b, 0, 0.5, 0, 1000, 10);
    CHECK_INT(a, 0);
    CHECK_INT(b, 500);
    /* out past the whole: the whole */
    a = 250, b = 750;
    lanes_zoom(&a, &b, 500, 4, 0, 1000, 10);
    CHECK_INT(a, 0);
    CHECK_INT(b, 1000);
    /* never narrower than min_width */
    a = 0, b = 1000;
    for (int i = 0; i < 20; i++) lanes_zoom(&a, &b, 500, 0.5, 0, 1000, 10);
    CHECK_INT(b - a, 10);
    /* a bad factor changes nothing */
    a = 10, b = 20;
    lanes_zoom(&a, &b, 15, NAN, 0, 1000, 1);
    CHECK_INT(a, 10);
    lanes_zoom(&a, &b, 15, -2, 0, 1000, 1);
    CHECK_INT(b, 20);
    /* pan, clamped at both ends */
    a = 250, b = 750;
    lanes_pan(&a, &b, 400, 0, 1000);
    CHECK_INT(a, 500);
    CHECK_INT(b, 1000);
    lanes_pan(&a, &b, -2000, 0, 1000);
    CHECK_INT(a, 0);
    CHECK_INT(b, 500);
}

/* 100 000 kernels with gaps: every bin is compute or idle, the items are
 * kernels and gaps in start order. */
static void many(void) {
    enum { N = 100000 };
    struct trace_seg *s = calloc(N, sizeof *s);
    if (!s) return;
    for (int i = 0; i < N; i++) {
        s[i].start_ns = (int64_t)i * 100;
        s[i].dur_ns = i % 1000 < 500 ? 80 : 20;   /* long kernels, then mostly idle */
        s[i].cat = TRACE_COMPUTE;
    }
    struct trace_step st = {.step = 3, .start_ns = 0, .end_ns = (int64_t)N * 100, .first = 0, .nsegs = N};
    struct trace_rank r = {.rank = 4, .steps = &st, .nsteps = 1, .segs = s, .nsegs = N};
    struct trace_run one = {.ranks = &r, .nranks = 1, .names = names, .nnames = 3};
    uint8_t out[200];
    struct pt_error err;
    CHECK_INT(lanes_bin(&one, 0, 3, LANES_GLOBAL, 0, (int64_t)N * 100, 200, out, &err), 0);
    int c = 0, idle = 0;
    for (int i = 0; i < 200; i++) {
        c += out[i] == TRACE_COMPUTE;
        idle += out[i] == TRACE_IDLE;
    }
    CHECK_INT(c, 100);
    CHECK_INT(idle, 100);
    struct lane_items it;
    CHECK_INT(lanes_items(&one, 0, 3, &it, &err), 0);
    CHECK_INT(it.n, 2 * N);   /* every kernel has a gap after it */
    int sorted = 1;
    for (size_t i = 1; i < it.n; i++) sorted &= it.v[i].start_ns >= it.v[i - 1].start_ns;
    CHECK(sorted);
    lanes_items_free(&it);
    free(s);
}

/* A stage waiting for its first input: the step's kernels start at 1400,
 * the CPU entered it at 900, so [900, 1400) is idle of step 1.  Step 2's
 * CPU start (1450) is before step 1's last kernel ended (1500): it idles
 * from 1500. */
static void cpu_start(void) {
    struct trace_seg s[] = {{1400, 100, 0, TRACE_COMPUTE, 0, 7}, {2000, 100, 0, TRACE_COMPUTE, 0, 7}};
    struct trace_step st[] = {
        {.step = 1, .start_ns = 1400, .end_ns = 2000, .first = 0, .nsegs = 1, .cpu_start_ns = 900, .cpu_end_ns = 1450},
        {.step = 2, .start_ns = 2000, .end_ns = 2100, .first = 1, .nsegs = 1, .cpu_start_ns = 1450, .cpu_end_ns = 2500},
    };
    struct trace_rank r = {.rank = 2, .steps = st, .nsteps = 2, .segs = s, .nsegs = 2};
    struct trace_run one = {.ranks = &r, .nranks = 1, .names = names, .nnames = 3};
    int64_t a, b;
    CHECK_INT(lanes_rank_span(&r, 1, &a, &b, NULL), 1);
    CHECK_INT(a, 900);
    CHECK_INT(b, 2000);
    CHECK_INT(lanes_rank_span(&r, 2, &a, &b, NULL), 1);
    CHECK_INT(a, 1500);
    CHECK_INT(b, 2100);
    struct lane_items it;
    struct pt_error err;
    CHECK_INT(lanes_items(&one, 0, 1, &it, &err), 0);
    CHECK_INT(it.n, 3);   /* idle [900,1400), the kernel, idle [1500,2000) */
    if (it.n == 3) {
        CHECK_INT(it.v[0].cat, TRACE_IDLE);
        CHECK_INT(it.v[0].start_ns, 900);
        CHECK_INT(it.v[0].dur_ns, 500);
    }
    lanes_items_free(&it);
    uint8_t out[11];
    CHECK_INT(lanes_bin(&one, 0, 1, LANES_GLOBAL, 900, 2000, 11, out, &err), 0);
    for (int i = 0; i < 11; i++) CHECK_INT(out[i], i == 5 ? TRACE_COMPUTE : TRACE_IDLE);
}

int main(void) {
    RUN(spans);
    RUN(cpu_start);
    RUN(bins);
    RUN(items);
    RUN(columns);
    RUN(zoom_pan);
    RUN(many);
    PT_DONE();
}
