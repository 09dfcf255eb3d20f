/* test_pyfloat: Python's repr of a float, fast path against the printf
 * reference and against texts Python prints. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/compare/compare.h"
#include "tests/pt_test.h"

static void known(void) {
    static const struct { double v; const char *text; } k[] = {
        {0.1, "0.1"}, {0.3, "0.3"}, {0.1 + 0.2, "0.30000000000000004"}, {1.0, "1.0"}, {-2.5, "-2.5"},
        {1e16, "1e+16"}, {9999999999999998.0, "9999999999999998.0"}, {1e-4, "0.0001"}, {1e-5, "1e-05"},
        {0.00012345, "0.00012345"}, {123456789.0, "123456789.0"}, {1.5e300, "1.5e+300"},
        {5e-324, "5e-324"}, {DBL_MAX, "1.7976931348623157e+308"}, {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {0.014298969203197884, "0.014298969203197884"}, {1267.74462890625, "1267.74462890625"},
        {-0.1812744140625, "-0.1812744140625"}, {1.0 / 3, "0.3333333333333333"}, {2.0 / 3, "0.6666666666666666"},
        {100.0, "100.0"}, {1e15, "1000000000000000.0"}, {123.456, "123.456"}, {9.5367431640625e-07, "9.5367431640625e-07"},
        {4.35, "4.35"}, {0.7, "0.7"}, {1e22, "1e+22"}, {1e23, "1e+23"}, {8.41e21, "8.41e+21"},
        {5e-5, "5e-05"}, {2.0, "2.0"}, {1024.0, "1024.0"}, {0.5, "0.5"}, {0x1p-24, "5.960464477539063e-08"}, {9007199254740993.0, "9007199254740992.0"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) CHECK_STR(cmp_pyfloat(k[i].v, buf, sizeof buf), k[i].text);
    CHECK_STR(cmp_pyfloat(-0.0, buf, sizeof buf), "-0.0");
    CHECK_STR(cmp_pyfloat(INFINITY, buf, sizeof buf), "inf");
    CHECK_STR(cmp_pyfloat(NAN, buf, sizeof buf), "nan");
}

/* Deterministic generator: every exponent, random mantissas, plus the
 * awkward ones (powers of two and ten, their neighbours). */
static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int same(double x, long *fast_hits) {
    char a[24], b[24];
    int na, nb, ea, eb;
    *fast_hits += cmp_pyfloat_digits(x, 1, a, &na, &ea);
    cmp_pyfloat_digits(x, 0, b, &nb, &eb);
    if (na == nb && ea == eb && !strcmp(a, b)) return 1;
    /* where the 15/16/17-digit reference is not shortest, the fast answer
     * must still be shorter and read back */
    char t[48];
    snprintf(t, sizeof t, "%c.%se%d", a[0], na > 1 ? a + 1 : "0", ea);
    if (na < nb && strtod(t, NULL) == x) return 1;
    fprintf(stderr, "  %.17g: fast %s e%d, reference %s e%d\n", x, a, ea, b, eb);
    return 0;
}

static void against_reference(void) {
    long n = 0, bad = 0, fast = 0;
    for (int e = -60; e <= 110; e++)
        for (int i = 0; i < 4000; i++) {
            double x = ldexp((double)(next() >> 11) / 9007199254740992.0 + 0.5, e);
            if (x < DBL_MIN) continue;
            n++;
            bad += !same(x, &fast);
            /* short decimals: what statistics often are */
            double y = (double)(next() % 100000) * pow(10, (int)(next() % 30) - 15);
            if (y > 0) { n++; bad += !same(y, &fast); }
        }
    for (int e = -60; e <= 110; e++) {
        double p = ldexp(1.0, e);
        double vs[] = {p, nextafter(p, 0), nextafter(p, INFINITY)};
        for (int i = 0; i < 3; i++) { n++; bad += !same(vs[i], &fast); }
    }
    for (int e = -18; e <= 30; e++) {
        double p = pow(10, e);
        double vs[] = {p, nextafter(p, 0), nextafter(p, INFINITY)};
        for (int i = 0; i < 3; i++) { n++; bad += !same(vs[i], &fast); }
    }
    fprintf(stderr, "  %ld doubles, %ld by the fast path, %ld differ\n", n, fast, bad);
    CHECK_INT(bad, 0);
    CHECK(fast > n * 9 / 10);
}

int main(void) {
    RUN(known);
    RUN(against_reference);
    PT_DONE();
}
