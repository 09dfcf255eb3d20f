/* cube: layout, missing vs non-finite, slices, series, ranges, counts. */
#include "pt_test.h"

#include <float.h>

#include "model/cube/cube.h"

static struct cube *small(void) {
    struct names *n = names_new();
    struct cube_builder *b = cube_builder_new(n);
    const char *st[] = {"norm", "max"};
    int m0 = cube_builder_metric(b, "forward", 2, st);
    int m1 = cube_builder_metric(b, "backward", 2, st);
    uint32_t t[3];
    t[0] = names_intern(n, "a", 1, 0, 0);
    t[1] = names_intern(n, "b", 1, 0, 0);
    t[2] = names_intern(n, "c", 1, 0, 0);
    /* steps 10, 20, 30; ranks 0, 3 */
    for (int s = 0; s < 3; s++)
        for (int r = 0; r < 2; r++)
            for (int k = 0; k < 2; k++) {
                double v[2] = {100.0 * k + 10 * s + r, -(100.0 * k + 10 * s + r)};
                cube_builder_add(b, m0, t[k], 10 * (s + 1), r * 3, v, 3);
            }
    double nanv[2] = {NAN, INFINITY};
    cube_builder_add(b, m1, t[2], 20, 3, nanv, 3);
    double first[2] = {1, 2}, second[2] = {5, 6};
    cube_builder_add(b, m1, t[1], 10, 0, first, 1);    /* only norm present */
    cube_builder_add(b, m1, t[1], 10, 0, second, 3);   /* duplicate: first wins */
    double huge[2] = {1e300, -1e300};
    cube_builder_add(b, m1, t[0], 30, 0, huge, 3);
    struct cube *c;
    struct pt_error err;
    CHECK_INT(cube_builder_finish(b, &c, &err), 0);
    cube_builder_free(b);
    return c;
}

static void layout(void) {
    struct cube *c = small();
    CHECK_INT(c->nsteps, 3);
    CHECK_INT(c->steps[1].value, 20);
    CHECK_INT(c->nranks, 2);
    CHECK_INT(c->ranks[1], 3);
    CHECK_INT(c->metrics[0].ntargets, 2);
    CHECK_INT(c->metrics[1].ntargets, 3);
    CHECK_INT(cube_metric_find(c, "backward"), 1);
    CHECK_INT(cube_stat_find(c, 0, "max"), 1);
    CHECK_INT(cube_step_find(c, 30), 2);
    CHECK_INT(cube_rank_find(c, 3), 1);
    CHECK_NEAR(cube_get(c, 0, 0, 1, 2, 1), 121, 0);
    CHECK_NEAR(cube_get(c, 0, 1, 1, 2, 1), -121, 0);
    /* missing is distinct from NaN */
    float miss = cube_get(c, 1, 0, 2, 0, 0), nanv = cube_get(c, 1, 0, 2, 1, 1), inf = cube_get(c, 1, 1, 2, 1, 1);
    CHECK(cube_is_missing(miss));
    CHECK(isnan(nanv) && !cube_is_missing(nanv));
    CHECK(isinf(inf) && inf > 0);
    /* first row wins, absent statistic stays missing */
    CHECK_NEAR(cube_get(c, 1, 0, 1, 0, 0), 1, 0);
    CHECK(cube_is_missing(cube_get(c, 1, 1, 1, 0, 0)));
    /* beyond float32: saturated, not infinite */
    CHECK_NEAR(cube_get(c, 1, 0, 0, 2, 0), FLT_MAX, 0);
    CHECK_NEAR(cube_get(c, 1, 1, 0, 2, 0), -FLT_MAX, 0);
    cube_free(c);
}

static void slices(void) {
    struct cube *c = small();
    struct cube_slice s;
    CHECK_INT(cube_slice(c, 0, 0, DIM_STEP, 1, &s), 0);   /* step 20: x = rank, y = target */
    CHECK_INT(s.nx, 2);
    CHECK_INT(s.ny, 2);
    CHECK_NEAR(cube_slice_at(&s, 1, 1), 111, 0);
    CHECK_INT(cube_slice(c, 0, 0, DIM_RANK, 0, &s), 0);   /* rank 0: x = step */
    CHECK_INT(s.nx, 3);
    CHECK_NEAR(cube_slice_at(&s, 2, 0), 20, 0);
    CHECK_INT(cube_slice(c, 0, 0, DIM_TARGET, 1, &s), 0); /* target b: x = step, y = rank */
    CHECK_INT(s.ny, 2);
    CHECK_NEAR(cube_slice_at(&s, 1, 1), 111, 0);
    double lo, hi;
    CHECK_INT(cube_slice_range(&s, &lo, &hi), 6);
    CHECK_NEAR(lo, 100, 0);
    CHECK_NEAR(hi, 121, 0);
    CHECK(cube_slice(c, 0, 0, DIM_STEP, 9, &s) != 0);
    struct cube_series se;
    CHECK_INT(cube_series(c, 0, 0, DIM_STEP, 0, 1, 1, &se), 0);   /* rank 3, target b over steps */
    CHECK_INT(se.n, 3);
    CHECK_NEAR(se.base[2 * se.stride], 121, 0);
    CHECK_INT(cube_series(c, 0, 0, DIM_RANK, 0, 2, 0, &se), 0);   /* step 30, target a over ranks */
    CHECK_NEAR(se.base[se.stride], 21, 0);
    CHECK_INT(cube_series(c, 0, 0, DIM_TARGET, 0, 0, 1, &se), 0); /* step 10, rank 3 over targets */
    CHECK_INT(se.n, 2);
    CHECK_NEAR(se.base[se.stride], 101, 0);
    CHECK_INT(cube_count_nonfinite(c, 1, -1, -1), 2);
    CHECK_INT(cube_count_nonfinite(c, 1, 1, -1), 2);
    CHECK_INT(cube_count_nonfinite(c, 1, 0, -1), 0);
    CHECK_INT(cube_count_present(c, 0), 24);
    cube_free(c);
}

int main(void) {
    RUN(layout);
    RUN(slices);
    PT_DONE();
}
