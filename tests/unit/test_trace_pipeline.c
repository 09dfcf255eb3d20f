/* The pipeline view's model (model/trace/pipeline.h; probetop(1),
 * PIPELINE VIEW): bands, links and bubbles of one step of a pipeline group
 * on runs of tests/gen_trace.py --schedule 1f1b, whose every time follows
 * from the generator's 1F1B schedule (worked out by hand below; within
 * 0.5 us: the generator skews rank r's clock by r * 0.125 us). */
#include <math.h>

#include "pt_test.h"
#include "pt_trace.h"

#include "model/trace/lanes.h"
#include "model/trace/p2p.h"
#include "model/trace/pipeline.h"

/* Band (stage s, micro m, pass bw) at [a, b) us from stage 0's first forward. */
static void band_is(const struct pipeline *p, int s, int m, int bw, double a, double b) {
    const struct pipe_band *f0 = pipeline_band(p, 0, 0, 0), *x = pipeline_band(p, s, m, bw);
    CHECK(f0 && x);
    if (!f0 || !x) return;
    CHECK_NEAR((x->start_ns - f0->start_ns) / 1000.0, a, 0.5);
    CHECK_NEAR((x->end_ns - f0->start_ns) / 1000.0, b, 0.5);
}

/* pp 2, 2 micro-batches, the last stage (rank 1, the straggler) 1.6 times
 * slower: passes of 240 us on stage 0, 384 us on stage 1; a send takes
 * 1 + 4.25 us to start after its pass and 30 us, the receiver's kernels
 * 4.25 us after it starts, a stage is free 20 us (CPU) after a pass.
 * Stage 0: F0 [0, 240), F1 [260, 500), B0 after stage 1's B0, B1 after
 * stage 1's B1; stage 1: F0 35.25 us after stage 0's, then B0, F1, B1 each
 * 20 us after the last. */
static void test_1f1b_pp2(void) {
    char dir[4096];
    struct dataset *ds = gen_load("pipe2", "--ranks 2 --pp 2 --micro 2 --steps 2 --schedule 1f1b --pg-config --time relative", dir,
                                  sizeof dir);
    if (!ds) return;
    CHECK_INT(lanes_pp_groups(ds->trace), 1);
    int n = 0;
    const int32_t *g = lanes_pp_group(ds->trace, 0, &n);
    CHECK_INT(n, 2);
    struct pipeline p;
    struct pt_error err;
    CHECK_INT(pipeline_build(ds->trace, g, n, 1, &p, &err), 0);
    CHECK_INT(p.nstages, 2);
    CHECK_INT(p.nmicro, 2);
    CHECK_INT(p.stages[0].nbands, 4);
    CHECK_INT(p.stages[1].nbands, 4);
    band_is(&p, 0, 0, 0, 0, 240);
    band_is(&p, 0, 1, 0, 260, 500);
    band_is(&p, 1, 0, 0, 275.25, 659.25);
    band_is(&p, 1, 0, 1, 679.25, 1063.25);
    band_is(&p, 1, 1, 0, 1083.25, 1467.25);
    band_is(&p, 1, 1, 1, 1487.25, 1871.25);
    band_is(&p, 0, 0, 1, 1098.5, 1338.5);
    band_is(&p, 0, 1, 1, 1906.5, 2146.5);
    /* stage 0's order is 1F1B's: F0 F1 B0 B1 */
    CHECK(p.stages[0].bands[1].micro == 1 && !p.stages[0].bands[1].backward);
    CHECK(p.stages[0].bands[2].micro == 0 && p.stages[0].bands[2].backward);
    /* links: F0 0->1, F1 0->1 (stage 1 busy until B0 ends), B0 1->0, B1 1->0 */
    CHECK_INT(p.nlinks, 4);
    CHECK(p.slowest >= 0);
    if (p.slowest >= 0) {
        const struct pipe_link *l = &p.links[p.slowest];
        CHECK_INT(l->micro, 1);
        CHECK_INT(l->backward, 0);
        CHECK_INT(l->from, 0);
        CHECK_INT(l->to, 1);
        CHECK_NEAR((l->end_ns - l->start_ns) / 1000.0, 1083.25 - 500, 0.5);
    }
    for (int i = 0; i < p.nlinks; i++)
        if (i != p.slowest) CHECK_NEAR((p.links[i].end_ns - p.links[i].start_ns) / 1000.0, 35.25, 0.5);
    /* bubbles: stage 0 20, 598.5, 568; stage 1 275.25 (warm-up), 20, 20, 20, 275.25 (cool-down) */
    CHECK_INT(p.nbubbles, 8);
    CHECK(p.widest >= 0);
    if (p.widest >= 0) {
        const struct pipe_gap *w = &p.bubbles[p.widest];
        CHECK_INT(w->stage, 0);
        CHECK_NEAR((w->end_ns - w->start_ns) / 1000.0, 1098.5 - 500, 0.5);
    }
    pipeline_free(&p);
    dataset_free(ds);
}

/* pp 4, 4 micro-batches, no straggler: every stage's passes 240 us, so
 * 1F1B's warm-up leaves stage s waiting s links (275.25 us each) for its
 * first forward, and the last stage never idles between its passes but
 * 20 us. */
static void test_1f1b_pp4(void) {
    char dir[4096];
    struct dataset *ds = gen_load("pipe4", "--ranks 8 --pp 4 --micro 4 --steps 1 --straggler -1 --schedule 1f1b --pg-config --time relative",
                                  dir, sizeof dir);
    if (!ds) return;
    CHECK_INT(lanes_pp_groups(ds->trace), 2);
    int n = 0;
    const int32_t *g = lanes_pp_group(ds->trace, 1, &n);
    CHECK_INT(n, 4);
    if (n == 4) CHECK_INT(g[0], 4);
    struct pipeline p;
    struct pt_error err;
    CHECK_INT(pipeline_build(ds->trace, g, n, 1, &p, &err), 0);
    CHECK_INT(p.nmicro, 4);
    for (int s = 0; s < 4; s++) {
        CHECK_INT(p.stages[s].nbands, 8);
        band_is(&p, s, 0, 0, s * 275.25, s * 275.25 + 240);
    }
    /* the last stage: F0 B0 F1 B1 back to back (20 us apart); F2 waits for
     * stage 2's, which follows its B0: 3 links after the last stage's B0
     * ends (3 * 275.25 + 500), 35.25 + 240 + 20 + 240 + 35.25 later */
    for (int i = 0; i < 4; i++) band_is(&p, 3, i / 2, i % 2, 3 * 275.25 + i * 260, 3 * 275.25 + i * 260 + 240);
    band_is(&p, 3, 2, 0, 3 * 275.25 + 500 + 570.5, 3 * 275.25 + 500 + 570.5 + 240);
    pipeline_free(&p);
    dataset_free(ds);
}

/* The slowest link is link l: from stage a to b, micro-batch m, pass bw,
 * us long. */
static void slowest_is(const struct pipeline *p, int a, int b, int m, int bw, double us) {
    CHECK(p->slowest >= 0);
    if (p->slowest < 0) return;
    const struct pipe_link *l = &p->links[p->slowest];
    CHECK_INT(l->from, a);
    CHECK_INT(l->to, b);
    CHECK_INT(l->micro, m);
    CHECK_INT(l->backward, bw);
    CHECK_NEAR((l->end_ns - l->start_ns) / 1000.0, us, 0.5);
}

/* The reader keeps each send and receive with its peer (the kernel args
 * gen_trace.py --p2p writes as Kineto does): pp 2, 2 micro-batches, 2
 * steps: stage 0 sends F0, F1 and receives B0, B1 each step, stage 1 the
 * other way round; and with them the links are the pairs, with the same
 * figures as test_1f1b_pp2's (the same schedule). */
static void test_p2p_1f1b(void) {
    char dir[4096];
    struct dataset *ds = gen_load("pipe2p", "--ranks 2 --pp 2 --micro 2 --steps 2 --schedule 1f1b --pg-config --p2p --time relative",
                                  dir, sizeof dir);
    if (!ds) return;
    for (int r = 0; r < 2; r++) {
        const struct trace_rank *tr = rank_of(ds, r);
        CHECK(tr != NULL);
        if (!tr) continue;
        CHECK_INT((int)tr->np2p, 8);
        int sends = 0;
        for (size_t i = 0; i < tr->np2p; i++) {
            CHECK_INT(tr->p2p[i].peer, 1 - r);
            CHECK(tr->p2p[i].pg != 0);
            CHECK(i == 0 || tr->p2p[i].start_ns >= tr->p2p[i - 1].start_ns);
            sends += tr->p2p[i].send;
        }
        CHECK_INT(sends, 4);
        /* stage 0: send F0 (its first), stage 1: receive F0 first */
        CHECK_INT(tr->p2p[0].send, r == 0);
    }
    int n = 0;
    const int32_t *g = lanes_pp_group(ds->trace, 0, &n);
    struct pipeline p;
    struct pt_error err;
    CHECK_INT(pipeline_build(ds->trace, g, n, 1, &p, &err), 0);
    CHECK_INT(p.nmicro, 2);
    CHECK_INT(p.nlinks, 4);
    CHECK_INT(p.npaired, 4);
    band_is(&p, 1, 1, 0, 1083.25, 1467.25);
    band_is(&p, 0, 1, 1, 1906.5, 2146.5);
    slowest_is(&p, 0, 1, 1, 0, 1083.25 - 500);
    pipeline_free(&p);
    dataset_free(ds);
}

/* Interleaved 1F1B (gen_trace.py --vpp 2): pp 2, 2 micro-batches, each
 * stage holds chunks 0 and 1 (the model runs stage 0 chunk 0, stage 1
 * chunk 0, stage 0 chunk 1, stage 1 chunk 1), passes 240 us, a link
 * 275.25 us from the sender's start to the receiver's ready.  Megatron's
 * order: stage 0 F(c0,m0) F(c0,m1) F(c1,m0) F(c1,m1) B(c1,m0) B(c1,m1)
 * B(c0,m0) B(c0,m1); stage 1 F(c0,m0) F(c0,m1) F(c1,m0) B(c1,m0) F(c1,m1)
 * B(c1,m1) B(c0,m0) B(c0,m1).  Worked out (CPU starts from stage 0's
 * first; a pass's kernels start 4.25 us after): stage 0 at 0, 260, 550.5,
 * 810.5, 1361, 1881, 2141, 2431.5; stage 1 at 275.25, 535.25, 825.75,
 * 1085.75, 1345.75, 1605.75, 1865.75, 2156.25.  Every hand-over takes
 * 35.25 us but two: F(c1,m1) from stage 0 (ends 1054.75) waits for stage
 * 1's B(c1,m0) (1345.75 - 810.5 - 240 = 295.25 us) and B(c1,m0) from
 * stage 0 waits for stage 1's F(c1,m1), B(c1,m1) (264.75 us).  By
 * micro-batch order each stage would count 4 forwards as micro-batches 0
 * to 3 and link stage 1's F(c1,*) to nothing right. */
static void test_interleaved(void) {
    char dir[4096];
    struct dataset *ds = gen_load("pipevpp", "--ranks 2 --pp 2 --vpp 2 --micro 2 --steps 1 --straggler -1 --schedule 1f1b "
                                  "--pg-config --p2p --time relative", dir, sizeof dir);
    if (!ds) return;
    int n = 0;
    const int32_t *g = lanes_pp_group(ds->trace, 0, &n);
    CHECK_INT(n, 2);
    struct pipeline p;
    struct pt_error err;
    CHECK_INT(pipeline_build(ds->trace, g, n, 1, &p, &err), 0);
    CHECK_INT(p.nmicro, 2);
    CHECK_INT(p.stages[0].nbands, 8);
    CHECK_INT(p.stages[1].nbands, 8);
    static const int m0[8] = {0, 1, 0, 1, 0, 1, 0, 1}, b0[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    static const int m1[8] = {0, 1, 0, 0, 1, 1, 0, 1}, b1[8] = {0, 0, 0, 1, 0, 1, 1, 1};
    static const double t0[8] = {0, 260, 550.5, 810.5, 1361, 1881, 2141, 2431.5};
    static const double t1[8] = {275.25, 535.25, 825.75, 1085.75, 1345.75, 1605.75, 1865.75, 2156.25};
    for (int i = 0; i < 8 && p.stages[0].nbands == 8 && p.stages[1].nbands == 8; i++) {
        const struct pipe_band *x = &p.stages[0].bands[i], *y = &p.stages[1].bands[i], *f = &p.stages[0].bands[0];
        CHECK_INT(x->micro, m0[i]);
        CHECK_INT(x->backward, b0[i]);
        CHECK_INT(y->micro, m1[i]);
        CHECK_INT(y->backward, b1[i]);
        CHECK_NEAR((x->start_ns - f->start_ns) / 1000.0, t0[i], 0.5);
        CHECK_NEAR((y->start_ns - f->start_ns) / 1000.0, t1[i], 0.5);
        CHECK_NEAR((y->end_ns - y->start_ns) / 1000.0, 240, 0.5);
    }
    /* forward: 0->1 (c0), 1->0 (c0 to c1), 0->1 (c1) per micro-batch;
     * backward: 1->0 (c1), 0->1 (c1 to c0), 1->0 (c0) */
    CHECK_INT(p.nlinks, 12);
    CHECK_INT(p.npaired, 12);
    int wrap = 0, slow = 0;
    for (int i = 0; i < p.nlinks; i++) {
        const struct pipe_link *l = &p.links[i];
        double us = (l->end_ns - l->start_ns) / 1000.0;
        wrap += l->from == 1 && l->to == 0 && !l->backward;
        if (us > 36) {
            slow++;
            CHECK(l->from == 0 && l->to == 1);
            CHECK(l->backward ? (l->micro == 0 && fabs(us - 264.75) < 0.5) : (l->micro == 1 && fabs(us - 295.25) < 0.5));
        } else {
            CHECK_NEAR(us, 35.25, 0.5);
        }
    }
    CHECK_INT(wrap, 2);
    CHECK_INT(slow, 2);
    slowest_is(&p, 0, 1, 1, 0, 295.25);
    /* widest bubble: stage 1 idles from B(c1,m1)'s end (1605.75 + 240 +
     * 4.25) to B(c0,m0) (1865.75 + 4.25): 20 us; stage 0 from F(c1,m1)'s
     * end to B(c1,m0): 1361 - 810.5 - 240 = 310.5 us */
    CHECK(p.widest >= 0);
    if (p.widest >= 0) {
        CHECK_INT(p.bubbles[p.widest].stage, 0);
        CHECK_NEAR((p.bubbles[p.widest].end_ns - p.bubbles[p.widest].start_ns) / 1000.0, 310.5, 0.5);
    }
    pipeline_free(&p);
    dataset_free(ds);
}

/* Peers known on some stages only: pp 4, 4 micro-batches, 1F1B with
 * --p2p, then stage 3's sends and receives dropped (as a trace without
 * peer args would have it): the links between stages 2 and 3 fall back to
 * micro-batch order (8: 4 forward, 4 backward), the others stay pairs
 * (16), every micro-batch is still told right (1F1B keeps the order), and
 * micro-batch 0's forward hand-overs take 35.25 us (test_1f1b_pp4). */
static void test_mixed(void) {
    char dir[4096];
    struct dataset *ds = gen_load("pipemix", "--ranks 4 --pp 4 --micro 4 --steps 1 --straggler -1 --schedule 1f1b --pg-config "
                                  "--p2p --time relative", dir, sizeof dir);
    if (!ds) return;
    struct trace_rank *r3 = &ds->trace->ranks[3];
    CHECK(r3->rank == 3 && r3->np2p > 0);
    r3->np2p = 0;
    int n = 0;
    const int32_t *g = lanes_pp_group(ds->trace, 0, &n);
    CHECK_INT(n, 4);
    struct pipeline p;
    struct pt_error err;
    CHECK_INT(pipeline_build(ds->trace, g, n, 1, &p, &err), 0);
    CHECK_INT(p.nmicro, 4);
    CHECK_INT(p.nlinks, 24);
    CHECK_INT(p.npaired, 16);
    for (int i = 0; i < p.nlinks; i++) {
        const struct pipe_link *l = &p.links[i];
        int far = (l->from == 2 && l->to == 3) || (l->from == 3 && l->to == 2);
        CHECK_INT(l->paired, !far);
        if (l->micro == 0 && !l->backward) CHECK_NEAR((l->end_ns - l->start_ns) / 1000.0, 35.25, 0.5);
    }
    for (int s = 0; s < 4; s++)
        for (int m = 0; m < 4; m++) CHECK(pipeline_band(&p, s, m, 0) && pipeline_band(&p, s, m, 1));
    band_is(&p, 3, 2, 0, 3 * 275.25 + 500 + 570.5, 3 * 275.25 + 500 + 570.5 + 240);
    pipeline_free(&p);
    dataset_free(ds);
}

/* p2p_pair's rules on records made by hand (ranks 10, 11, 12): the n-th
 * send of a to b in a group with the n-th receive of b from a in it; a
 * send to a rank not given, a group the peer did not use, and a send with
 * no receive left out; a rank's own sends to two peers counted apart. */
static void test_pair_rules(void) {
    const int32_t ranks[3] = {10, 11, 12};
    const struct trace_p2p r10[] = {
        {100, 5, 7, 11, 1},   /* send 0 to 11 in group 7 */
        {110, 5, 7, 12, 1},   /* send 0 to 12 */
        {120, 5, 7, 11, 1},   /* send 1 to 11 */
        {130, 5, 9, 11, 1},   /* group 9: 11 receives nothing there */
        {140, 5, 7, 99, 1},   /* rank 99 is not given */
        {150, 5, 7, 11, 1},   /* send 2 to 11: no third receive */
    };
    const struct trace_p2p r11[] = {
        {101, 9, 7, 10, 0},   /* receive 0 from 10 */
        {125, 9, 7, 10, 0},   /* receive 1 from 10 */
        {126, 9, 8, 10, 0},   /* group 8: 10 sent nothing there */
    };
    const struct trace_p2p r12[] = {{112, 9, 7, 10, 0}};
    const struct trace_p2p *rec[3] = {r10, r11, r12};
    const size_t nrec[3] = {6, 3, 1};
    struct p2p_pair *v = NULL;
    size_t n = 0;
    CHECK_INT(p2p_pair(ranks, rec, nrec, 3, &v, &n), 0);
    CHECK_INT((int)n, 3);
    if (n == 3) {
        CHECK(v[0].from == 0 && v[0].to == 1 && v[0].send->start_ns == 100 && v[0].recv->start_ns == 101);
        CHECK(v[1].from == 0 && v[1].to == 2 && v[1].send->start_ns == 110 && v[1].recv->start_ns == 112);
        CHECK(v[2].from == 0 && v[2].to == 1 && v[2].send->start_ns == 120 && v[2].recv->start_ns == 125);
    }
    free(v);
}

int main(void) {
    RUN(test_pair_rules);
    RUN(test_1f1b_pp2);
    RUN(test_1f1b_pp4);
    RUN(test_p2p_1f1b);
    RUN(test_interleaved);
    RUN(test_mixed);
    PT_DONE();
}
