/* trace_cube: the run's per-(step, rank) breakdown into a cube (see
 * trace_cube.h). */
#include "model/trace/trace_cube.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/names.h"

/* One cell: union time, share of the step's kernel time, count. */
static int add(struct cube_builder *b, uint32_t tgt, int32_t step, int32_t rank, int64_t ns, int64_t kernel_ns,
               uint32_t count, int has_count) {
    double v[3] = {(double)ns / 1000.0, kernel_ns > 0 ? 100.0 * (double)ns / (double)kernel_ns : 0.0, (double)count};
    return cube_builder_add(b, 0, tgt, step, rank, v, has_count ? 7u : 3u);
}

/* Every target's cell of one (step row, rank) from the figures x. */
static int add_cells(struct cube_builder *b, const uint32_t *fixed, uint32_t phase_tgt[][TRACE_IDLE], int32_t value, int32_t rank,
                     const struct trace_stats *x) {
    int64_t k = x->kernel_ns;
    int bad = 0;
    for (int c = 0; c < TRACE_NCATS; c++) bad |= add(b, fixed[c], value, rank, x->cat_ns[c], k, x->count[c], 1);
    bad |= add(b, fixed[4], value, rank, x->overlap_ns, k, 0, 0);
    bad |= add(b, fixed[5], value, rank, x->cat_ns[TRACE_COMM] - x->overlap_ns, k, 0, 0);
    for (int p = 1; p < TRACE_NPHASES; p++)
        for (int c = 0; c < TRACE_IDLE; c++)
            if (phase_tgt[p][c] != NAMES_NONE)
                bad |= add(b, phase_tgt[p][c], value, rank, x->phase_ns[p][c], k, x->phase_count[p][c], 1);
    return bad;
}

/* A step row of the micro-batch axis: (step, micro), micro -1 the whole step. */
struct row { int32_t step, micro; };
static int cmp_row(const void *a, const void *b) {
    const struct row *x = a, *y = b;
    if (x->step != y->step) return (x->step > y->step) - (x->step < y->step);
    return (x->micro > y->micro) - (x->micro < y->micro);
}

/* The rows: each step, then its micro-batches; *n distinct. */
static struct row *micro_rows(const struct trace_run *run, size_t *n) {
    size_t k = 0;
    for (int r = 0; r < run->nranks; r++) k += (size_t)run->ranks[r].nsteps + run->ranks[r].nmicros;
    struct row *v = malloc((k ? k : 1) * sizeof *v);
    if (!v) return NULL;
    k = 0;
    for (int r = 0; r < run->nranks; r++) {
        for (int s = 0; s < run->ranks[r].nsteps; s++) v[k++] = (struct row){run->ranks[r].steps[s].step, -1};
        for (size_t m = 0; m < run->ranks[r].nmicros; m++)
            if (run->ranks[r].micros[m].micro >= 0) v[k++] = (struct row){run->ranks[r].micros[m].step, run->ranks[r].micros[m].micro};
    }
    if (k > 1) qsort(v, k, sizeof *v, cmp_row);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || cmp_row(&v[i], &v[u - 1])) v[u++] = v[i];
    *n = u;
    return v;
}

/* The step axis value of (step, micro) in rows (sorted, distinct), -1
 * absent; the row after the one found last (*hint, -1 none) is tried
 * first: a rank's micro-batches come in row order. */
static int32_t row_value(const struct row *v, size_t n, int32_t step, int32_t micro, long *hint) {
    struct row key = {step, micro};
    size_t h = (size_t)(*hint + 1);
    if (*hint >= -1 && h < n && v[h].step == step && v[h].micro == micro) {
        *hint = (long)h;
        return (int32_t)h;
    }
    const struct row *hit = bsearch(&key, v, n, sizeof *v, cmp_row);
    if (hit) *hint = (long)(hit - v);
    return hit ? (int32_t)(hit - v) : -1;
}

/* The cube, or with cells 0 only its axes (trace_cube_build_axes). */
static int build(const struct trace_run *run, int micro, int cells, struct cube **out, struct pt_error *err) {
    static const char *const stats[] = {"us", "pct", "count"};
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) {
        if (!nm) return pt_errorf(err, "out of memory");
        return pt_errorf(err, "out of memory");
    }
    int rc = -1;
    struct row *rows = NULL;
    size_t nrows = 0;
    uint32_t fixed[6];
    const char *fixed_names[6] = {"compute", "communication", "memory", "idle", TRACE_TGT_OVERLAPPED, TRACE_TGT_EXPOSED};
    uint32_t phase_tgt[TRACE_NPHASES][TRACE_IDLE];
    if (cube_builder_metric(b, "time", 3, stats) != 0) { pt_errorf(err, "out of memory"); goto out; }
    for (int i = 0; i < 6; i++)
        if ((fixed[i] = names_intern(nm, fixed_names[i], strlen(fixed_names[i]), 0, 0)) == NAMES_NONE) {
            pt_errorf(err, "out of memory");
            goto out;
        }
    /* phase targets, in phase then category order, only those some step has */
    for (int p = 0; p < TRACE_NPHASES; p++)
        for (int c = 0; c < TRACE_IDLE; c++) {
            phase_tgt[p][c] = NAMES_NONE;
            if (p == TRACE_PH_NONE) continue;
            int any = 0;
            for (int r = 0; r < run->nranks && !any; r++)
                for (int s = 0; s < run->ranks[r].nsteps && !any; s++) any = run->ranks[r].steps[s].stats.phase_count[p][c] > 0;
            if (!any) continue;
            char name[64];
            int l = snprintf(name, sizeof name, "%s.%s", trace_phase_name(p), trace_cat_name(c));
            if ((phase_tgt[p][c] = names_intern(nm, name, (size_t)l, 0, 0)) == NAMES_NONE) {
                pt_errorf(err, "out of memory");
                goto out;
            }
        }
    /* micro steps: each step's row ("12"), then its micro-batches' ("12.0", "12.1", ...) */
    if (cells && micro && run->has_micro) {
        if (!(rows = micro_rows(run, &nrows))) { pt_errorf(err, "out of memory"); goto out; }
        for (size_t i = 0; i < nrows; i++)
            if (cube_builder_step(b, (int32_t)i, rows[i].step, rows[i].micro) != 0) { pt_errorf(err, "out of memory"); goto out; }
    }
    for (int r = 0; r < run->nranks; r++) {
        const struct trace_rank *tr = &run->ranks[r];
        if (cube_builder_rank(b, tr->rank) != 0) { pt_errorf(err, "out of memory"); goto out; }
        long hint = -1;   /* (row_value) */
        for (int s = 0; s < tr->nsteps; s++) {
            const struct trace_step *st = &tr->steps[s];
            int32_t value = rows ? row_value(rows, nrows, st->step, -1, &hint) : st->step;
            if (!rows && cube_builder_step(b, value, value, -1) != 0) { pt_errorf(err, "out of memory"); goto out; }
            if (cells && add_cells(b, fixed, phase_tgt, value, tr->rank, &st->stats)) { pt_errorf(err, "out of memory"); goto out; }
        }
        for (size_t m = 0; rows && m < tr->nmicros; m++) {
            const struct trace_micro *mb = &tr->micros[m];
            if (mb->micro < 0) continue;
            if (add_cells(b, fixed, phase_tgt, row_value(rows, nrows, mb->step, mb->micro, &hint), tr->rank, &mb->stats)) {
                pt_errorf(err, "out of memory");
                goto out;
            }
        }
    }
    rc = cube_builder_finish(b, out, err);
out:
    free(rows);
    cube_builder_free(b);
    return rc;
}

int trace_cube_build(const struct trace_run *run, int micro, struct cube **out, struct pt_error *err) {
    return build(run, micro, 1, out, err);
}

int trace_cube_build_axes(const struct trace_run *run, struct cube **out, struct pt_error *err) {
    return build(run, 0, 0, out, err);
}
