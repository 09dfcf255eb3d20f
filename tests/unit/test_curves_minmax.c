/* test_curves_minmax: the pyramid of block minima and maxima the curves
 * pane decimates with (model/curves/curves_minmax.c) against a plain scan
 * of the same values, on ranges of every kind (inside a block, across
 * blocks and levels, the whole, empty), with NaNs and infinities (not
 * finite: left out of min/max, flagged), a series of one value, all NaN,
 * and values read with a stride (a curves_point's value). */
#include "pt_test.h"

#include <math.h>
#include <stdlib.h>

#include "model/curves/curves.h"
#include "model/curves/curves_minmax.h"

static int brute(const double *v, size_t stride, size_t a, size_t b, double *lo, double *hi, int *bad) {
    double l = INFINITY, h = -INFINITY;
    *bad = 0;
    for (size_t i = a; i < b; i++) {
        double x = v[i * stride];
        if (!isfinite(x)) { *bad = 1; continue; }
        if (x < l) l = x;
        if (x > h) h = x;
    }
    if (!(l <= h)) return 0;
    *lo = l;
    *hi = h;
    return 1;
}

static unsigned long long rng = 88172645463325252ull;
static unsigned long long next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void against_brute(const double *v, size_t stride, size_t n, int queries) {
    struct curves_minmax m;
    CHECK_INT(curves_minmax_build(&m, v, stride, n), 0);
    int wrong = 0;
    for (int q = 0; q < queries; q++) {
        size_t a = n ? next() % (n + 1) : 0, b = n ? next() % (n + 1) : 0;
        if (q == 0) a = 0, b = n;
        if (a > b) { size_t t = a; a = b; b = t; }
        double l1 = 0, h1 = 0, l2 = 0, h2 = 0;
        int f1, f2, r1 = curves_minmax_query(&m, a, b, &l1, &h1, &f1), r2 = brute(v, stride, a, b, &l2, &h2, &f2);
        if (r1 != r2 || f1 != f2 || (r1 && (l1 != l2 || h1 != h2))) wrong++;
    }
    CHECK_INT(wrong, 0);
    curves_minmax_free(&m);
}

static void test_random(void) {
    size_t n = 100003;
    double *v = malloc(n * sizeof *v);
    CHECK(v != NULL);
    if (!v) return;
    for (size_t i = 0; i < n; i++) {
        unsigned long long r = next();
        v[i] = (double)(r % 1000000) / 1000.0 - 500;
        if (r % 997 == 0) v[i] = NAN;
        if (r % 1999 == 0) v[i] = (r & 1) ? INFINITY : -INFINITY;
    }
    against_brute(v, 1, n, 20000);
    for (size_t len = 0; len < 300; len += 7) against_brute(v, 1, len, 500);   /* below, at and over a block */
    free(v);
}

static void test_edges(void) {
    double one = 2.5, nan3[3] = {NAN, NAN, NAN};
    struct curves_minmax m;
    double lo = 0, hi = 0;
    int bad = 0;
    CHECK_INT(curves_minmax_build(&m, &one, 1, 1), 0);
    CHECK_INT(curves_minmax_query(&m, 0, 1, &lo, &hi, &bad), 1);
    CHECK(lo == 2.5 && hi == 2.5 && !bad);
    CHECK_INT(curves_minmax_query(&m, 1, 1, &lo, &hi, &bad), 0);   /* empty */
    curves_minmax_free(&m);
    CHECK_INT(curves_minmax_build(&m, nan3, 1, 3), 0);
    CHECK_INT(curves_minmax_query(&m, 0, 3, &lo, &hi, &bad), 0);
    CHECK_INT(bad, 1);
    curves_minmax_free(&m);
    /* all NaN over many blocks */
    size_t n = 5000;
    double *v = malloc(n * sizeof *v);
    if (!v) return;
    for (size_t i = 0; i < n; i++) v[i] = NAN;
    v[4321] = -7;
    against_brute(v, 1, n, 2000);
    CHECK_INT(curves_minmax_build(&m, v, 1, n), 0);
    CHECK_INT(curves_minmax_query(&m, 0, n, &lo, &hi, &bad), 1);
    CHECK(lo == -7 && hi == -7 && bad);
    curves_minmax_free(&m);
    free(v);
}

/* The values of a series' points (stride 2 doubles). */
static void test_points(void) {
    struct curves *c = curves_new();
    struct curves_series *s = c ? curves_series(c, "lm loss") : NULL;
    CHECK(s != NULL);
    if (!s) { curves_free(c); return; }
    for (int i = 0; i < 20000; i++) curves_push(s, i, sin(i * 0.01) * 3 + (i == 777 ? NAN : 0));
    against_brute(&s->pts[0].value, sizeof s->pts[0] / sizeof(double), s->n, 5000);
    curves_free(c);
}

int main(void) {
    RUN(test_random);
    RUN(test_edges);
    RUN(test_points);
    PT_DONE();
}
