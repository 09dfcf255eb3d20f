/* curves_cube: a run's series into a cube (see curves_cube.h). */
#include "model/curves/curves_cube.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/names.h"

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int in_range(int64_t step) { return step >= 0 && step <= INT32_MAX; }

/* The distinct steps of every series in the cube's range, sorted: each
 * series (sorted, finished) merged into the union in turn, linear when
 * the series share their steps, as a run's do.  NULL without memory. */
static int64_t *all_steps(const struct curves *c, size_t *n) {
    size_t total = 0, k = 0;
    for (size_t i = 0; i < c->nseries; i++) total += c->series[i].n;
    int64_t *v = malloc((total ? total : 1) * sizeof *v), *tmp = malloc((total ? total : 1) * sizeof *tmp);
    if (!v || !tmp) {
        free(v);
        free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < c->nseries; i++) {
        const struct curves_series *s = &c->series[i];
        size_t a = 0, j = 0, w = 0;
        /* a series with the steps of the union so far (a run's usual
         * case): nothing to merge */
        while (a < k && a < s->n && s->pts[a].step == v[a]) a++;
        if (i && a == k && a == s->n) continue;
        a = 0;
        while (a < k || j < s->n) {
            if (j < s->n && !in_range(s->pts[j].step)) { j++; continue; }
            int64_t x = a < k && (j >= s->n || v[a] <= s->pts[j].step) ? v[a] : s->pts[j].step;
            if (a < k && v[a] == x) a++;
            if (j < s->n && s->pts[j].step == x) j++;
            tmp[w++] = x;
        }
        int64_t *t = v;
        v = tmp;
        tmp = t;
        k = w;
    }
    free(tmp);
    *n = k;
    return v;
}

/* Whether step is in the cube: every stride-th of the distinct steps. */
static int kept(const int64_t *steps, size_t n, size_t stride, int64_t step) {
    if (stride <= 1) return 1;
    const int64_t *at = bsearch(&step, steps, n, sizeof *steps, cmp_i64);
    return at && (size_t)(at - steps) % stride == 0;
}

int curves_cube_build(const struct curves *c, struct cube **out, size_t *dropped, struct pt_error *err) {
    static const char *const stats[] = {"value"};
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    size_t nsteps = 0;
    int64_t *steps = b ? all_steps(c, &nsteps) : NULL;
    if (!steps) {
        cube_builder_free(b);
        return pt_errorf(err, "out of memory");
    }
    size_t stride = nsteps > CUBE_MAX_STEPS ? (nsteps + CUBE_MAX_STEPS - 1) / CUBE_MAX_STEPS : 1;
    size_t left_out = 0, *cur = NULL;
    uint32_t *tgt = NULL;
    int rc = -1;
    if (cube_builder_metric(b, "curve", 1, stats) != 0 || cube_builder_rank(b, 0) != 0) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    size_t total = 0, added = 0;
    tgt = malloc((c->nseries ? c->nseries : 1) * sizeof *tgt);
    cur = calloc(c->nseries ? c->nseries : 1, sizeof *cur);
    if (!tgt || !cur) {
        pt_errorf(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < c->nseries; i++) {
        total += c->series[i].n;
        tgt[i] = names_intern(nm, c->series[i].name, strlen(c->series[i].name), 0, 0);
        if (tgt[i] == NAMES_NONE) {
            pt_errorf(err, "out of memory");
            goto out;
        }
    }
    /* no cube_builder_step: a step's origin is itself, with no micro
     * step, by default (declared per point, a run of more than
     * CUBE_MAX_STEPS points in all was refused) */
    if (c->nseries <= 64) {
        /* step by step across the series, so that the builder meets each
         * step in one run of rows and sorts the distinct steps, not one
         * per point (a 1 GB log: 3 M steps, 30 M points) */
        for (size_t k = 0; k < nsteps; k++) {
            if (stride > 1 && k % stride) continue;
            for (size_t i = 0; i < c->nseries; i++) {
                const struct curves_series *s = &c->series[i];
                while (cur[i] < s->n && s->pts[cur[i]].step < steps[k]) cur[i]++;
                if (cur[i] >= s->n || s->pts[cur[i]].step != steps[k]) continue;
                double v = s->pts[cur[i]++].value;
                if (cube_builder_add(b, 0, tgt[i], (int32_t)steps[k], 0, &v, 1u) != 0) {
                    pt_errorf(err, "out of memory");
                    goto out;
                }
                added++;
            }
        }
    } else {
        for (size_t i = 0; i < c->nseries; i++) {
            const struct curves_series *s = &c->series[i];
            for (size_t k = 0; k < s->n; k++) {
                int64_t step = s->pts[k].step;
                if (!in_range(step) || !kept(steps, nsteps, stride, step)) continue;
                double v = s->pts[k].value;
                if (cube_builder_add(b, 0, tgt[i], (int32_t)step, 0, &v, 1u) != 0) {
                    pt_errorf(err, "out of memory");
                    goto out;
                }
                added++;
            }
        }
    }
    left_out = total - added;
    rc = cube_builder_finish(b, out, err);
out:
    free(tgt);
    free(cur);
    free(steps);
    cube_builder_free(b);
    if (dropped) *dropped = left_out;
    return rc;
}
