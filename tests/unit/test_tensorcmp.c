/* test_tensorcmp: the tensor-mode metrics (probetop-rules(7), TENSOR METRICS) on small
 * arrays whose answers were worked out by hand (numpy's float32 and
 * float16 steps reproduced with Python's struct module). */
#include "pt_test.h"
#include "model/compare/tensorcmp.h"

static struct tensorcmp_tensor vec(int dtype, double *v, size_t n) {
    struct tensorcmp_tensor t;
    memset(&t, 0, sizeof t);
    t.v = v;
    t.n = n;
    t.ndim = 1;
    t.shape[0] = n;
    t.dtype = dtype;
    return t;
}

static const char *cell(const struct cval *c) {
    static char buf[8][64];
    static int k;
    return cmp_cval_text(c, 0, buf[k++ & 7], sizeof buf[0]);
}

static void test_identical(void) {
    double a[] = {1, 2, 3}, b[] = {1, 2, 3};
    struct tensorcmp_tensor x = vec(TENSORCMP_F32, a, 3), y = vec(TENSORCMP_F32, b, 3);
    struct cval c[TENSORCMP_NMETRICS];
    CHECK_INT(tensorcmp_compare(&x, &y, c), 0);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_EUCDIST]), "0.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "0.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.0");
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_FIVE_THOUSANDTHS]), "1.0");
}

static void test_values(void) {
    /* float32 pair: [1,2,3,4.1f] vs [1,2,3,4] */
    double a[] = {1, 2, 3, (float)4.1}, b[] = {1, 2, 3, 4};
    struct tensorcmp_tensor x = vec(TENSORCMP_F32, a, 4), y = vec(TENSORCMP_F32, b, 4);
    struct cval c[TENSORCMP_NMETRICS];
    CHECK_INT(tensorcmp_compare(&x, &y, c), 0);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "0.999924");            /* 0.999924264287 > 0.9999: 6 decimals */
    CHECK_NEAR(c[TENSORCMP_EUCDIST].v, 0.09999990463256836, 1e-16);
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "0.099999904633");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.024999976158");       /* float32 relative error */
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "0.75");
    CHECK_STR(cell(&c[TENSORCMP_FIVE_THOUSANDTHS]), "0.75");
    /* float64: [1,0] vs [1,1] */
    double p[] = {1, 0}, q[] = {1, 1};
    x = vec(TENSORCMP_F64, p, 2);
    y = vec(TENSORCMP_F64, q, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 0);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "0.707106781187");       /* 12 decimals, below the threshold */
    CHECK_STR(cell(&c[TENSORCMP_EUCDIST]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "0.5");
    /* [1,2] vs [2,4]: parallel, cosine exactly 1 */
    double r[] = {1, 2}, s[] = {2, 4};
    x = vec(TENSORCMP_F64, r, 2);
    y = vec(TENSORCMP_F64, s, 2);
    tensorcmp_compare(&x, &y, c);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_EUCDIST]), "2.23606797749979");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.5");
    CHECK_STR(cell(&c[TENSORCMP_FIVE_THOUSANDTHS]), "0.0");
    /* 0.99999998725 rounds to 1.0 at 6 decimals */
    double u[] = {1, 2, 3}, w[] = {1, 2, 3.001};
    x = vec(TENSORCMP_F64, u, 3);
    y = vec(TENSORCMP_F64, w, 3);
    tensorcmp_compare(&x, &y, c);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.000333222259");
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "1.0");
}

static void test_cosine_corners(void) {
    struct cval c[TENSORCMP_NMETRICS];
    double z[] = {0, 0}, z2[] = {0, 0}, one[] = {1, 2};
    struct tensorcmp_tensor x = vec(TENSORCMP_F64, z, 2), y = vec(TENSORCMP_F64, z2, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 0);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "1.0");                  /* both all zero */
    y = vec(TENSORCMP_F64, one, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_COS_ALLZERO_NPU);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "Nan");
    x = vec(TENSORCMP_F64, one, 2);
    y = vec(TENSORCMP_F64, z2, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_COS_ALLZERO_BENCH);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "Nan");
    CHECK_STR(tensorcmp_msg_text(TM_COS_ALLZERO_BENCH), "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.");
    /* length 1: no cosine, the rest computed */
    double a[] = {2}, b[] = {1};
    x = vec(TENSORCMP_F64, a, 1);
    y = vec(TENSORCMP_F64, b, 1);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_LEN1);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "unsupported");
    CHECK_STR(cell(&c[TENSORCMP_EUCDIST]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "0.0");
}

static void test_zero_bench(void) {
    /* float32: where the bench is 0, FLT_EPSILON is added to both sides */
    double a[] = {0, (float)1e-7}, b[] = {0, 0};
    struct tensorcmp_tensor x = vec(TENSORCMP_F32, a, 2), y = vec(TENSORCMP_F32, b, 2);
    struct cval c[TENSORCMP_NMETRICS];
    tensorcmp_compare(&x, &y, c);
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.838860750198");
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "0.5");
    /* float64: DBL_EPSILON, so 1e-7 over it is huge */
    double p[] = {0, 1e-7}, q[] = {0, 0};
    x = vec(TENSORCMP_F64, p, 2);
    y = vec(TENSORCMP_F64, q, 2);
    tensorcmp_compare(&x, &y, c);
    CHECK_NEAR(c[TENSORCMP_MAXREL].v, 1e-7 / 2.220446049250313e-16, 1e-3);
}

static void test_threshold_precision(void) {
    /* numpy compares a float32 relative error with float32(0.005), which is
     * just below 0.005: 5/1000 in float32 equals it and does not count */
    double a[] = {1005, 1000}, b[] = {1000, 1000};
    struct tensorcmp_tensor x = vec(TENSORCMP_F32, a, 2), y = vec(TENSORCMP_F32, b, 2);
    struct cval c[TENSORCMP_NMETRICS];
    tensorcmp_compare(&x, &y, c);
    CHECK_STR(cell(&c[TENSORCMP_FIVE_THOUSANDTHS]), "0.5");
    /* in float64 (a float64 side) 0.005 < 0.005 is false as well, but
     * 1004.9999 counts */
    double p[] = {1004.9999, 1000}, q[] = {1000, 1000};
    x = vec(TENSORCMP_F64, p, 2);
    y = vec(TENSORCMP_F64, q, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 0);
    CHECK_STR(cell(&c[TENSORCMP_FIVE_THOUSANDTHS]), "1.0");
    /* mixed float32 / float64: float64 arithmetic and a dtype message */
    x = vec(TENSORCMP_F32, a, 2);
    y = vec(TENSORCMP_F64, b, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_DTYPE);
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.005");
}

static void test_inf_nan(void) {
    struct cval c[TENSORCMP_NMETRICS];
    /* the same positions: read as 0 on both sides */
    double a[] = {INFINITY, 1, NAN}, b[] = {INFINITY, 2, NAN};
    struct tensorcmp_tensor x = vec(TENSORCMP_F64, a, 3), y = vec(TENSORCMP_F64, b, 3);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 0);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_EUCDIST]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.5");
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "0.666666666667");
    CHECK(isinf(a[0]));                                      /* the input is not modified */
    /* different positions: N/A everywhere */
    double p[] = {INFINITY, 1}, q[] = {1, 1};
    x = vec(TENSORCMP_F64, p, 2);
    y = vec(TENSORCMP_F64, q, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_INFNAN);
    for (int i = 0; i < TENSORCMP_NMETRICS; i++) CHECK_STR(cell(&c[i]), "N/A");
    /* inf on one side, nan on the other at the same place: masks differ */
    double r[] = {INFINITY, 1}, s[] = {NAN, 1};
    x = vec(TENSORCMP_F64, r, 2);
    y = vec(TENSORCMP_F64, s, 2);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_INFNAN);
}

static void test_shape_empty(void) {
    struct cval c[TENSORCMP_NMETRICS];
    double a[] = {1, 2}, b[] = {1, 2, 3};
    struct tensorcmp_tensor x = vec(TENSORCMP_F32, a, 2), y = vec(TENSORCMP_F32, b, 3);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_SHAPE);
    for (int i = 0; i < TENSORCMP_NMETRICS; i++) CHECK_STR(cell(&c[i]), "shape unmatched");
    /* same count, other shape */
    double p[6] = {0}, q[6] = {0};
    x = vec(TENSORCMP_F32, p, 6);
    y = vec(TENSORCMP_F32, q, 6);
    x.ndim = y.ndim = 2;
    x.shape[0] = 2; x.shape[1] = 3;
    y.shape[0] = 3; y.shape[1] = 2;
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_SHAPE);
    /* empty */
    x = vec(TENSORCMP_F32, NULL, 0);
    y = vec(TENSORCMP_F32, NULL, 0);
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_EMPTY);
    for (int i = 0; i < TENSORCMP_NMETRICS; i++) CHECK_STR(cell(&c[i]), "unsupported");
}

static void test_zero_d(void) {
    struct cval c[TENSORCMP_NMETRICS];
    double a[] = {3}, b[] = {2};
    struct tensorcmp_tensor x = vec(TENSORCMP_F32, a, 1), y = vec(TENSORCMP_F32, b, 1);
    x.ndim = y.ndim = 0;
    CHECK_INT(tensorcmp_compare(&x, &y, c), 1 << TM_ZERO_D);
    CHECK_STR(cell(&c[TENSORCMP_COSINE]), "unsupported");
    CHECK_STR(cell(&c[TENSORCMP_EUCDIST]), "unsupported");
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "1.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.5");
    CHECK_STR(cell(&c[TENSORCMP_ONE_THOUSANDTH]), "unsupported");
    CHECK_STR(cell(&c[TENSORCMP_FIVE_THOUSANDTHS]), "unsupported");
    /* float16: the difference is rounded to half precision */
    double h1[] = {0.0999755859375}, h2[] = {0.199951171875};
    x.v = h1; y.v = h2;
    x.dtype = y.dtype = TENSORCMP_F16;
    tensorcmp_compare(&x, &y, c);
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "0.099975585938");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "0.5");
    /* int8: numpy wraps 100 - (-100) to -56 */
    double i1[] = {100}, i2[] = {-100};
    x.v = i1; y.v = i2;
    x.dtype = y.dtype = TENSORCMP_I8;
    tensorcmp_compare(&x, &y, c);
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "56.0");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "2.0");
    /* no inf/nan masking for 0-d: nan gives Nan and its messages */
    double n1[] = {NAN}, n2[] = {1};
    x.v = n1; y.v = n2;
    x.dtype = y.dtype = TENSORCMP_F64;
    CHECK_INT(tensorcmp_compare(&x, &y, c), (1 << TM_ZERO_D) | (1 << TM_ABS_NAN) | (1 << TM_REL_NAN));
    CHECK_STR(cell(&c[TENSORCMP_MAXABS]), "Nan");
    CHECK_STR(cell(&c[TENSORCMP_MAXREL]), "Nan");
}

int main(void) {
    RUN(test_identical);
    RUN(test_values);
    RUN(test_cosine_corners);
    RUN(test_zero_bench);
    RUN(test_threshold_precision);
    RUN(test_inf_nan);
    RUN(test_shape_empty);
    RUN(test_zero_d);
    PT_DONE();
}
