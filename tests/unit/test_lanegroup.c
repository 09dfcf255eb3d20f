/* The lane view at cluster scale (model/trace/lanegroup.c, range.c) on a
 * hand-built timeline: groups by key and by the run's pipeline groups, the
 * busy share per slice, a group's median and worst per slice, and a time
 * range's aggregates per category and phase (figures worked out by hand
 * below). */
#include "pt_test.h"
#include "pt_trace.h"

#include <stdlib.h>
#include <string.h>

#include "model/trace/lanebusy.h"
#include "model/trace/lanegroup.h"
#include "model/trace/range.h"
#include "model/trace/tpatterns.h"

/* Rank 0, step 1 [1000, 2000): compute [1000,1300) forward, comm
 * [1200,1500) pp_comm, memory [1600,1700).  Rank 1, step 1: compute
 * [1500,2100) backward (its span ends at the kernel's end, 2100). */
static struct trace_seg segs0[] = {
    {1000, 300, 0, TRACE_COMPUTE, TRACE_PH_FORWARD, 7},
    {1200, 300, 1, TRACE_COMM, TRACE_PH_PP_COMM, 20},
    {1600, 100, 2, TRACE_MEMORY, TRACE_PH_NONE, 7},
};
static struct trace_seg segs1[] = {
    {1500, 600, 0, TRACE_COMPUTE, TRACE_PH_BACKWARD, 7},
};
static struct trace_step steps0[] = {{.step = 1, .start_ns = 1000, .end_ns = 2000, .first = 0, .nsegs = 3}};
static struct trace_step steps1[] = {{.step = 1, .start_ns = 1500, .end_ns = 2050, .first = 0, .nsegs = 1}};
static char n0[] = "sm80_gemm", n1[] = "ncclKernel_SendRecv", n2[] = "Memcpy DtoD";
static char *names[] = {n0, n1, n2};
static struct trace_rank ranks[] = {
    {.rank = 0, .steps = steps0, .nsteps = 1, .segs = segs0, .nsegs = 3},
    {.rank = 1, .steps = steps1, .nsteps = 1, .segs = segs1, .nsegs = 1},
    {.rank = 2, .steps = steps0, .nsteps = 1, .segs = segs0, .nsegs = 3},
    {.rank = 3, .steps = steps1, .nsteps = 1, .segs = segs1, .nsegs = 1},
};
/* pipeline groups {0, 2} and {1, 3}, and a tensor group */
static int32_t pg0[] = {0, 2}, pg1[] = {1, 3}, tg[] = {0, 1};
static struct trace_group groups[] = {
    {TPAT_DIM_TP, 2, tg}, {TPAT_DIM_PP, 2, pg0}, {TPAT_DIM_PP, 2, pg1},
};
static const struct trace_run run = {.ranks = ranks, .nranks = 4, .names = names, .nnames = 3,
                                     .groups = groups, .ngroups = 3};

static void by_keys(void) {
    struct pt_error err;
    struct lanegroups g;
    int lanes[] = {10, 11, 12, 13, 14}, keys[] = {1, -1, 0, 1, 0};
    CHECK_INT(lanegroup_from_keys(lanes, keys, 5, &g, &err), 0);
    CHECK_INT(g.ngroups, 3);
    CHECK_INT(g.key[0], 0);
    CHECK_INT(g.key[1], 1);
    CHECK_INT(g.key[2], -1);
    int want_start[] = {0, 2, 4, 5}, want_m[] = {12, 14, 10, 13, 11};
    for (int i = 0; i < 4; i++) CHECK_INT(g.start[i], want_start[i]);
    for (int i = 0; i < 5; i++) CHECK_INT(g.members[i], want_m[i]);
    lanegroups_free(&g);
}

static void by_pipeline(void) {
    int lanes[] = {0, 1, 2, 3}, keys[4];
    CHECK_INT(lanegroup_keys(&run, lanes, 4, LANEGROUP_STAGE, 0, keys), 0);
    CHECK_INT(keys[0], 0);
    CHECK_INT(keys[1], 0);
    CHECK_INT(keys[2], 1);
    CHECK_INT(keys[3], 1);
    CHECK_INT(lanegroup_keys(&run, lanes, 4, LANEGROUP_PIPELINE, 0, keys), 0);
    CHECK_INT(keys[0], 0);
    CHECK_INT(keys[1], 1);
    CHECK_INT(keys[2], 0);
    CHECK_INT(keys[3], 1);
    CHECK_INT(lanegroup_keys(&run, lanes, 4, LANEGROUP_BLOCK, 3, keys), 0);
    CHECK_INT(keys[2], 0);
    CHECK_INT(keys[3], 1);
    struct trace_run bare = run;
    bare.ngroups = 1;   /* only the tensor group: no pipeline */
    CHECK_INT(lanegroup_keys(&bare, lanes, 4, LANEGROUP_STAGE, 0, keys), -1);
    CHECK_STR(lanegroup_by_name(LANEGROUP_STAGE), "stage");
}

static void busy_and_dist(void) {
    struct pt_error err;
    float b[4];
    /* window [1000, 2000) in 4 slices of 250 ns */
    CHECK_INT(lanegroup_busy(&run, 0, 1, LANES_GLOBAL, 1000, 2000, 4, b, &err), 0);
    CHECK_NEAR(b[0], 1.0, 1e-6);
    CHECK_NEAR(b[1], 1.0, 1e-6);
    CHECK_NEAR(b[2], 0.4, 1e-6);   /* memory [1600,1700) */
    CHECK_NEAR(b[3], 0.0, 1e-6);
    CHECK_INT(lanegroup_busy(&run, 1, 1, LANES_GLOBAL, 1000, 2000, 4, b, &err), 0);
    CHECK_NEAR(b[0], 0.0, 1e-6);
    CHECK_NEAR(b[2], 1.0, 1e-6);
    /* each rank from its step start: rank 1 busy all its 600 ns */
    CHECK_INT(lanegroup_busy(&run, 1, 1, LANES_STEP, 0, 1000, 4, b, &err), 0);
    CHECK_NEAR(b[0], 1.0, 1e-6);
    CHECK_NEAR(b[2], 0.4, 1e-6);
    float med[4], worst[4];
    int wr[4], m[] = {0, 1, 2};
    CHECK_INT(lanegroup_dist(&run, m, 2, 1, LANES_GLOBAL, 1000, 2000, 4, med, worst, wr, &err), 0);
    CHECK_NEAR(med[0], 0.5, 1e-6);
    CHECK_NEAR(med[2], 0.7, 1e-6);
    CHECK_NEAR(worst[0], 0.0, 1e-6);
    CHECK_INT(wr[0], 1);
    CHECK_NEAR(worst[2], 0.4, 1e-6);
    CHECK_INT(wr[2], 0);
    CHECK_INT(wr[3], 0);   /* both 0: the lower lane */
    /* three members: the middle one */
    CHECK_INT(lanegroup_dist(&run, m, 3, 1, LANES_GLOBAL, 1000, 2000, 4, med, worst, wr, &err), 0);
    CHECK_NEAR(med[0], 1.0, 1e-6);
    CHECK_NEAR(med[2], 0.4, 1e-6);
    CHECK_NEAR(med[3], 0.0, 1e-6);
}

/* The step's busy index gives lanegroup_busy's shares (checked by hand
 * above) without the kernels: every rank, both clocks, windows that cut
 * intervals, reach past the span or hold none of it. */
static void index_equals_walk(const struct trace_run *r, int32_t step) {
    struct lanebusy lb;
    struct pt_error err;
    memset(&lb, 0, sizeof lb);
    CHECK_INT(lanebusy_build(&lb, r, step, &err), 0);
    CHECK_INT(lb.nranks, r->nranks);
    for (int ri = 0; ri < r->nranks; ri++) {
        int64_t s0, s1, i0, i1;
        int has = lanes_rank_span(&r->ranks[ri], step, &s0, &s1, NULL);
        CHECK_INT(lanebusy_rank_span(&lb, ri, &i0, &i1), has);
        if (has) {
            CHECK_INT(i0, s0);
            CHECK_INT(i1, s1);
        }
        int64_t len = has ? s1 - s0 : 1000;
        for (int align = 0; align < 2; align++)
            for (int wi = 0; wi < 6; wi++) {
                int64_t base = align == LANES_STEP || !has ? 0 : s0;
                int64_t t0 = base + (wi - 1) * len / 4, t1 = t0 + len / (1 + wi % 3) + 7;
                int nb = 1 + wi * 17;
                float want[200], got[200];
                CHECK_INT(lanegroup_busy(r, ri, step, (enum lanes_align)align, t0, t1, nb, want, &err), 0);
                lanebusy_slices(&lb, ri, (enum lanes_align)align, t0, t1, nb, got);
                for (int i = 0; i < nb; i++) CHECK_NEAR(got[i], want[i], 1e-4);
            }
    }
    int lanes[64], n = r->nranks < 64 ? r->nranks : 64;
    for (int i = 0; i < n; i++) lanes[i] = i;
    int64_t a0, a1, b0, b1;
    for (int align = 0; align < 2; align++) {
        CHECK_INT(lanebusy_span(&lb, lanes, n, (enum lanes_align)align, &a0, &a1),
                  lanes_span(r, lanes, n, step, (enum lanes_align)align, &b0, &b1));
        CHECK_INT(a0, b0);
        CHECK_INT(a1, b1);
    }
    /* a range's figures with the spans from the index: range_of's */
    for (int align = 0; align < 2; align++) {
        struct range_agg w, g;
        lanes_span(r, lanes, n, step, (enum lanes_align)align, &b0, &b1);
        int64_t t0 = b0 + (b1 - b0) / 8, t1 = t0 + (b1 - b0) / 2;
        range_of(r, lanes, n, step, (enum lanes_align)align, t0, t1, &w);
        range_of_index(&lb, lanes, n, (enum lanes_align)align, t0, t1, &g);
        CHECK(memcmp(&w, &g, sizeof w) == 0);
        CHECK_INT(g.nranks, w.nranks);
    }
    lanebusy_free(&lb);
}

static void busy_index(void) {
    index_equals_walk(&run, 1);
    index_equals_walk(&run, 7);   /* no rank has it */
    /* the distribution from rows made already: lanegroup_dist's figures */
    float rows[3][4], med[4], worst[4], col[3];
    int wr[4], pick[] = {2, 0, 1};
    struct pt_error err;
    for (int k = 0; k < 3; k++) CHECK_INT(lanegroup_busy(&run, k, 1, LANES_GLOBAL, 1000, 2000, 4, rows[k], &err), 0);
    lanegroup_dist_busy(&rows[0][0], 4, pick, 2, med, worst, wr, col);   /* ranks 2 and 0: both busy alike */
    CHECK_NEAR(med[2], 0.4, 1e-6);
    CHECK_INT(wr[3], 0);
    lanegroup_dist_busy(&rows[0][0], 4, NULL, 3, med, worst, wr, col);
    CHECK_NEAR(med[0], 1.0, 1e-6);
    CHECK_NEAR(med[2], 0.4, 1e-6);
    CHECK_NEAR(worst[0], 0.0, 1e-6);
    CHECK_INT(wr[0], 1);
}

static void range(void) {
    struct range_agg r;
    int lanes[] = {0, 1};
    range_of(&run, lanes, 2, 1, LANES_GLOBAL, 1250, 1650, &r);
    /* rank 0 [1250,1650): compute 50, comm 250, memory 50, busy 300, idle 100;
     * rank 1 [1500,1650): compute 150 */
    CHECK_INT(r.nranks, 2);
    CHECK_INT(r.span_ns, 550);
    CHECK_INT(r.cat_ns[TRACE_COMPUTE], 200);
    CHECK_INT(r.cat_ns[TRACE_COMM], 250);
    CHECK_INT(r.cat_ns[TRACE_MEMORY], 50);
    CHECK_INT(r.cat_ns[TRACE_IDLE], 100);
    CHECK_INT(r.overlap_ns, 50);
    CHECK_INT(r.phase_ns[TRACE_PH_FORWARD][TRACE_COMPUTE], 50);
    CHECK_INT(r.phase_ns[TRACE_PH_BACKWARD][TRACE_COMPUTE], 150);
    CHECK_INT(r.phase_ns[TRACE_PH_PP_COMM][TRACE_COMM], 250);
    CHECK_INT(r.phase_ns[TRACE_PH_NONE][TRACE_MEMORY], 50);
    CHECK_INT(r.nkernels, 4);
    /* from each rank's step start: [0, 200) */
    range_of(&run, lanes, 2, 1, LANES_STEP, 0, 200, &r);
    CHECK_INT(r.span_ns, 400);
    CHECK_INT(r.cat_ns[TRACE_COMPUTE], 400);
    CHECK_INT(r.cat_ns[TRACE_COMM], 0);
    CHECK_INT(r.cat_ns[TRACE_IDLE], 0);
    /* past rank 0's span: only rank 1's tail */
    range_of(&run, lanes, 2, 1, LANES_GLOBAL, 2050, 3000, &r);
    CHECK_INT(r.nranks, 1);
    CHECK_INT(r.span_ns, 50);
    CHECK_INT(r.cat_ns[TRACE_COMPUTE], 50);
    /* a gap with no kernel: all idle */
    range_of(&run, lanes, 1, 1, LANES_GLOBAL, 1750, 1900, &r);
    CHECK_INT(r.cat_ns[TRACE_IDLE], 150);
    CHECK_INT(r.nkernels, 0);
    range_of(&run, lanes, 2, 7, LANES_GLOBAL, 0, 5000, &r);
    CHECK_INT(r.nranks, 0);
}

/* 64 ranks of gen_trace.py in 16 pipelines of 4 consecutive ranks (pg_config):
 * 4 stage groups of 16 (rank r at stage r % 4), 16 pipeline groups of 4
 * (r / 4); a range over the whole step holds every kernel of the step, so
 * its unions are the sum of the ranks' step figures, and its idle the
 * spans less the kernels' union. */
static void generated(void) {
    char path[512];
    struct dataset *ds = gen_load("lanegroup64", "--ranks 64 --pp 4 --pg-config --steps 2 --micro 2", path, sizeof path);
    if (!ds) return;
    const struct trace_run *r = ds->trace;
    CHECK_INT(r->nranks, 64);
    int lanes[64], keys[64];
    for (int i = 0; i < 64; i++) lanes[i] = i;
    struct lanegroups g;
    struct pt_error err;
    CHECK_INT(lanegroup_keys(r, lanes, 64, LANEGROUP_STAGE, 0, keys), 0);
    CHECK_INT(lanegroup_from_keys(lanes, keys, 64, &g, &err), 0);
    CHECK_INT(g.ngroups, 4);
    for (int k = 0; k < 4; k++) {
        CHECK_INT(g.start[k + 1] - g.start[k], 16);
        for (int m = g.start[k]; m < g.start[k + 1]; m++) CHECK_INT(r->ranks[g.members[m]].rank % 4, k);
    }
    lanegroups_free(&g);
    CHECK_INT(lanegroup_keys(r, lanes, 64, LANEGROUP_PIPELINE, 0, keys), 0);
    CHECK_INT(lanegroup_from_keys(lanes, keys, 64, &g, &err), 0);
    CHECK_INT(g.ngroups, 16);
    CHECK_INT(r->ranks[g.members[g.start[5]]].rank, 20);
    lanegroups_free(&g);
    int32_t step = r->ranks[0].steps[0].step;
    struct range_agg a;
    range_of(r, lanes, 64, step, LANES_GLOBAL, INT64_MIN / 4, INT64_MAX / 4, &a);
    int64_t want[TRACE_NCATS] = {0}, span = 0, idle = 0;
    size_t nk = 0;
    for (int i = 0; i < 64; i++) {
        const struct trace_step *st;
        int64_t s0, s1;
        CHECK(lanes_rank_span(&r->ranks[i], step, &s0, &s1, &st));
        if (!st) continue;
        for (int c = 0; c < TRACE_IDLE; c++) want[c] += st->stats.cat_ns[c];
        span += s1 - s0;
        idle += (s1 - s0) - (st->stats.kernel_ns - st->stats.idle_ns);
        nk += st->stats.nkernels;
    }
    CHECK_INT(a.nranks, 64);
    CHECK_INT(a.span_ns, span);
    CHECK_INT(a.nkernels, nk);
    for (int c = 0; c < TRACE_IDLE; c++) CHECK_INT(a.cat_ns[c], want[c]);
    CHECK_INT(a.cat_ns[TRACE_IDLE], idle);
    CHECK(a.cat_ns[TRACE_COMM] > 0 && a.phase_ns[TRACE_PH_FORWARD][TRACE_COMPUTE] > 0);
    index_equals_walk(r, step);
    index_equals_walk(r, r->ranks[0].steps[r->ranks[0].nsteps - 1].step);
    dataset_free(ds);
}

int main(void) {
    RUN(by_keys);
    RUN(by_pipeline);
    RUN(busy_and_dist);
    RUN(busy_index);
    RUN(range);
    RUN(generated);
    PT_DONE();
}
