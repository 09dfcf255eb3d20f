/* The pipeline view's model (model/trace/pipeline.h; probetop(1),
 * PIPELINE VIEW): bands, links and bubbles of one step of a pipeline group
 * on runs of tests/gen_trace.py --schedule 1f1b, whose every time follows
 * from the generator's 1F1B schedule (worked out by hand below; within
 * 0.5 us: the generator skews rank r's clock by r * 0.125 us). */
#include "pt_test.h"
#include "pt_trace.h"

#include "model/trace/lanes.h"
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

int main(void) {
    RUN(test_1f1b_pp2);
    RUN(test_1f1b_pp4);
    PT_DONE();
}
