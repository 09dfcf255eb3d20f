/* trace_range_out: a time range's aggregates in `probetop trace` (see trace_range_out.h). */
#include "src/cmd/trace_range_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/trace/range.h"

static double us(int64_t ns) { return (double)ns / 1000.0; }
static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0; }

int trace_range_out(const struct trace_run *run, int fmt, int has_step, int32_t step, double from_us, double to_us) {
    int found = 0;
    for (int r = 0; r < run->nranks; r++)
        for (int s = 0; s < run->ranks[r].nsteps; s++) {
            int32_t n = run->ranks[r].steps[s].step;
            if (has_step ? n == step : (!found || n < step)) step = n, found = 1;
        }
    if (!found) {
        if (has_step) fprintf(stderr, "probetop trace: no rank has step %d\n", (int)step);
        else fprintf(stderr, "probetop trace: no ProfilerStep in these traces: --from/--to need a step\n");
        return -1;
    }
    int *lanes = malloc(((size_t)run->nranks + 1) * sizeof *lanes);
    if (!lanes) { fprintf(stderr, "probetop: out of memory\n"); return -1; }
    for (int r = 0; r < run->nranks; r++) lanes[r] = r;
    int64_t s0, s1;
    lanes_span(run, lanes, run->nranks, step, LANES_GLOBAL, &s0, &s1);
    int64_t t0 = s0 + (int64_t)llround(from_us * 1000.0), t1 = s0 + (int64_t)llround(to_us * 1000.0);
    struct range_agg a;
    range_of(run, lanes, run->nranks, step, LANES_GLOBAL, t0, t1, &a);
    free(lanes);
    if (fmt == 1) {
        printf("step,from_us,to_us,phase,category,us,pct\n");
        for (int c = 0; c < TRACE_NCATS; c++)
            printf("%d,%.3f,%.3f,all,%s,%.3f,%.2f\n", (int)step, from_us, to_us, trace_cat_name(c), us(a.cat_ns[c]),
                   pct(a.cat_ns[c], a.span_ns));
        printf("%d,%.3f,%.3f,all,overlap,%.3f,%.2f\n", (int)step, from_us, to_us, us(a.overlap_ns),
               pct(a.overlap_ns, a.span_ns));
        for (int p = 0; p < TRACE_NPHASES; p++)
            for (int c = 0; c < TRACE_IDLE; c++)
                if (a.phase_ns[p][c])
                    printf("%d,%.3f,%.3f,%s,%s,%.3f,%.2f\n", (int)step, from_us, to_us, trace_phase_name(p),
                           trace_cat_name(c), us(a.phase_ns[p][c]), pct(a.phase_ns[p][c], a.span_ns));
        return 0;
    }
    if (fmt == 2) {
        printf("{\"range\": {\"step\": %d, \"from_us\": %.3f, \"to_us\": %.3f, \"ranks\": %d, \"rank_us\": %.3f, "
               "\"kernels\": %zu, \"overlap_us\": %.3f, \"categories\": {",
               (int)step, from_us, to_us, a.nranks, us(a.span_ns), a.nkernels, us(a.overlap_ns));
        for (int c = 0; c < TRACE_NCATS; c++)
            printf("%s\"%s\": %.3f", c ? ", " : "", trace_cat_name(c), us(a.cat_ns[c]));
        printf("}, \"phases\": [");
        int first = 1;
        for (int p = 0; p < TRACE_NPHASES; p++)
            for (int c = 0; c < TRACE_IDLE; c++)
                if (a.phase_ns[p][c]) {
                    printf("%s\n  {\"phase\": \"%s\", \"category\": \"%s\", \"us\": %.3f}", first ? "" : ",",
                           trace_phase_name(p), trace_cat_name(c), us(a.phase_ns[p][c]));
                    first = 0;
                }
        printf("]}}\n");
        return 0;
    }
    printf("range of step %d: +%.3f .. +%.3f us from the step's start (one clock), %d rank%s, %.3f rank-us, "
           "%zu kernel%s\n",
           (int)step, from_us, to_us, a.nranks, a.nranks == 1 ? "" : "s", us(a.span_ns), a.nkernels,
           a.nkernels == 1 ? "" : "s");
    printf("category            rank_us    pct\n");
    for (int c = 0; c < TRACE_NCATS; c++)
        printf("%-14s %12.3f %6.2f\n", trace_cat_name(c), us(a.cat_ns[c]), pct(a.cat_ns[c], a.span_ns));
    printf("%-14s %12.3f %6.2f\n", "overlap", us(a.overlap_ns), pct(a.overlap_ns, a.span_ns));
    printf("\nphase       category            rank_us    pct\n");
    for (int p = 0; p < TRACE_NPHASES; p++)
        for (int c = 0; c < TRACE_IDLE; c++)
            if (a.phase_ns[p][c])
                printf("%-11s %-14s %12.3f %6.2f\n", trace_phase_name(p), trace_cat_name(c), us(a.phase_ns[p][c]),
                       pct(a.phase_ns[p][c], a.span_ns));
    return 0;
}
