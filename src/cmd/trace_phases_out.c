/* trace_phases_out: the phases table and the process groups of `probetop
 * trace` (see trace_phases_out.h). */
#include "src/cmd/trace_phases_out.h"

#include <stdio.h>
#include <stdlib.h>

#include "model/trace/tpatterns.h"
#include "src/io/common/json.h"

/* One (step, micro, rank) of the table. */
struct prow {
    int32_t step, micro, rank;
    const struct trace_stats *s;
};

static int cmp_prow(const void *a, const void *b) {
    const struct prow *x = a, *y = b;
    if (x->step != y->step) return (x->step > y->step) - (x->step < y->step);
    if (x->micro != y->micro) return (x->micro > y->micro) - (x->micro < y->micro);
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Every rank's micro-batches, and the steps that have none (as micro -1),
 * in (step, micro, rank) order; NULL out of memory. */
static struct prow *rows_of(const struct trace_run *run, size_t *n) {
    size_t k = 0;
    *n = 0;
    if (!run->has_phases && !run->has_micro) return malloc(1);
    for (int r = 0; r < run->nranks; r++) k += run->ranks[r].nmicros + (size_t)run->ranks[r].nsteps;
    struct prow *v = malloc((k ? k : 1) * sizeof *v);
    if (!v) return NULL;
    k = 0;
    for (int r = 0; r < run->nranks; r++) {
        const struct trace_rank *tr = &run->ranks[r];
        size_t m = 0;
        for (int s = 0; s < tr->nsteps; s++) {
            const struct trace_step *st = &tr->steps[s];
            int any = 0;
            for (; m < tr->nmicros && tr->micros[m].step == st->step; m++, any = 1)
                v[k++] = (struct prow){st->step, tr->micros[m].micro, tr->rank, &tr->micros[m].stats};
            if (!any && st->stats.nkernels) v[k++] = (struct prow){st->step, -1, tr->rank, &st->stats};
        }
    }
    if (k > 1) qsort(v, k, sizeof *v, cmp_prow);
    *n = k;
    return v;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

enum fmt { F_JSON, F_CSV, F_TEXT };

/* Phase p's row (p < 0: "all") of one (step, micro, rank). */
static void row(enum fmt f, const struct prow *r, int p, int *first) {
    const struct trace_stats *s = r->s;
    int64_t cat[TRACE_IDLE], ov;
    uint32_t kern = 0;
    for (int c = 0; c < TRACE_IDLE; c++) {
        cat[c] = p < 0 ? s->cat_ns[c] : s->phase_ns[p][c];
        kern += p < 0 ? s->count[c] : s->phase_count[p][c];
    }
    ov = p < 0 ? s->overlap_ns : s->phase_overlap_ns[p];
    const char *name = p < 0 ? "all" : trace_phase_name(p);
    char micro[16], span[32];
    if (f == F_JSON) {
        snprintf(micro, sizeof micro, r->micro < 0 ? "null" : "%d", r->micro);
        snprintf(span, sizeof span, "%.3f", us(p < 0 ? s->kernel_ns : s->phase_span_ns[p]));
        printf("%s\n  {\"step\": %d, \"micro\": %s, \"rank\": %d, \"phase\": \"%s\", \"compute_us\": %.3f, "
               "\"communication_us\": %.3f, \"memory_us\": %.3f, \"overlap_us\": %.3f, \"span_us\": %s, \"kernels\": %u}",
               *first ? "" : ",", r->step, micro, r->rank, name, us(cat[TRACE_COMPUTE]), us(cat[TRACE_COMM]),
               us(cat[TRACE_MEMORY]), us(ov), span, kern);
    } else if (f == F_CSV) {
        snprintf(micro, sizeof micro, r->micro < 0 ? "" : "%d", r->micro);
        snprintf(span, sizeof span, "%.3f", us(p < 0 ? s->kernel_ns : s->phase_span_ns[p]));
        printf("%d,%s,%d,%s,%.3f,%.3f,%.3f,%.3f,%s,%u\n", r->step, micro, r->rank, name, us(cat[TRACE_COMPUTE]),
               us(cat[TRACE_COMM]), us(cat[TRACE_MEMORY]), us(ov), span, kern);
    } else {
        snprintf(micro, sizeof micro, r->micro < 0 ? "-" : "%d", r->micro);
        snprintf(span, sizeof span, "%.0f", us(p < 0 ? s->kernel_ns : s->phase_span_ns[p]));
        printf("%-11d %5s %5d %-10s %12.0f %12.0f %10.0f %12.0f %12s %8u\n", r->step, micro, r->rank, name,
               us(cat[TRACE_COMPUTE]), us(cat[TRACE_COMM]), us(cat[TRACE_MEMORY]), us(ov), span, kern);
    }
    *first = 0;
}

static int table(const struct trace_run *run, enum fmt f) {
    size_t n;
    struct prow *v = rows_of(run, &n);
    if (!v) return -1;
    int first = 1;
    if (f == F_CSV) printf("step,micro,rank,phase,compute_us,communication_us,memory_us,overlap_us,span_us,kernels\n");
    if (f == F_TEXT)
        printf("step        micro  rank phase        compute_us      comm_us  memory_us   overlap_us      span_us  kernels\n");
    for (size_t i = 0; i < n; i++) {
        row(f, &v[i], -1, &first);
        for (int p = 0; p < TRACE_NPHASES; p++) {
            uint32_t k = 0;
            for (int c = 0; c < TRACE_IDLE; c++) k += v[i].s->phase_count[p][c];
            if (k) row(f, &v[i], p, &first);
        }
    }
    free(v);
    return 0;
}

int trace_phases_out_json(const struct trace_run *run) {
    printf(",\n \"phases\": [");
    if (table(run, F_JSON)) return -1;
    printf("],\n \"groups\": [");
    for (int i = 0; i < run->ngroups; i++) {
        const struct trace_group *g = &run->groups[i];
        printf("%s\n  {\"dim\": \"%s\", \"ranks\": [", i ? "," : "", tpatterns_dim_name(g->dim));
        for (int k = 0; k < g->nranks; k++) printf("%s%d", k ? ", " : "", g->ranks[k]);
        printf("]}");
    }
    printf("],\n \"groups_from\": ");
    if (run->groups_from) json_fput_str(stdout, run->groups_from);
    else printf("null");
    return 0;
}

int trace_phases_out_csv(const struct trace_run *run) { return table(run, F_CSV); }
int trace_phases_out_text(const struct trace_run *run) { return table(run, F_TEXT); }
