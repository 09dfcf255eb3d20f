/* pyfloat: Python's repr() of a float, the text msProbe writes for every
 * statistic, difference and relative error (graph-compare.md §4.2).
 *
 * repr is the shortest decimal that reads back as the same double, and the
 * nearest such decimal when several have that length.  printf cannot say
 * "shortest", and trying 15, 16 and 17 digits with a strtod after each was
 * half the time of a `probetop compare --csv`.  So the digits come from
 * exact integer arithmetic instead: the double's rounding interval
 * [x - ulp/2, x + ulp/2] is scaled by a power of ten to 17-digit units in
 * 128-bit integers, and the fewest digits whose multiple falls inside the
 * interval win.  Doubles whose scaling would not fit in 128 bits (below
 * about 1e-15 or above 1e30), and subnormals, take the printf path, which
 * stays as the reference the fast path is tested against. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"

typedef unsigned __int128 u128;

static int bits128(u128 v) {
    uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* floor(M * 2^E * 10^q) and whether it is exact; 0 when out of range. */
static int scale(uint64_t M, int E, int q, uint64_t *fl, int *exact) {
    u128 p5 = 1;
    int aq = q < 0 ? -q : q;
    if (aq > 54) return 0;
    for (int i = 0; i < aq; i++) p5 *= 5;
    if (q >= 0) {
        /* M * 5^q * 2^(E+q) */
        if (bits128((u128)M) + bits128(p5) > 127) return 0;
        u128 n = (u128)M * p5;
        int s = E + q;
        if (s >= 0) {
            if (bits128(n) + s > 64) return 0;
            *fl = (uint64_t)(n << s);
            *exact = 1;
        } else {
            if (-s >= 128) { *fl = 0; *exact = n == 0; return 1; }
            u128 f = n >> -s;
            if (f >> 64) return 0;
            *fl = (uint64_t)f;
            *exact = (f << -s) == n;
        }
    } else {
        /* M * 2^(E+q) / 5^-q */
        int s = E + q;
        u128 num = M, den = p5;
        if (s >= 0) {
            if (bits128(num) + s > 127) return 0;
            num <<= s;
        } else {
            if (bits128(den) - s > 127) return 0;
            den <<= -s;
        }
        u128 f = num / den;
        if (f >> 64) return 0;
        *fl = (uint64_t)f;
        *exact = f * den == num;
    }
    return 1;
}

static const uint64_t pow10u[] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                  100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                  1000000000000ull, 10000000000000ull, 100000000000000ull,
                                  1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                  1000000000000000000ull};

/* Shortest digits of x > 0 (finite, normal): digits without trailing
 * zeros and the decimal exponent of the first; 0 when out of range. */
static int fast_digits(double x, char *digits, int *nd, int *dexp) {
    int e2;
    double fr = frexp(x, &e2);   /* x = fr * 2^e2, fr in [0.5, 1) */
    if (x < DBL_MIN) return 0;
    uint64_t m = (uint64_t)ldexp(fr, 53);
    int e = e2 - 53;              /* x = m * 2^e, m in [2^52, 2^53) */
    int k = (int)floor(log10(x));
    /* log10 may be off by one near powers of ten: fix k so that
     * 10^k <= x < 10^(k+1), checked exactly below through the scaled N */
    for (int tries = 0; tries < 3; tries++) {
        int q = 16 - k;
        uint64_t N, L, H;
        int xN, xL, xH;
        int pow2 = m == (1ull << 52);
        if (!scale(4 * m, e - 2, q, &N, &xN)) return 0;
        if (N < pow10u[16]) { k--; continue; }
        if (N >= pow10u[17]) { k++; continue; }
        if (!scale(4 * m - (pow2 ? 1 : 2), e - 2, q, &L, &xL)) return 0;
        if (!scale(4 * m + 2, e - 2, q, &H, &xH)) return 0;
        /* the interval's boundaries belong to x only when m is even
         * (round half to even on reading back) */
        int even = (m & 1) == 0;
        uint64_t lo = xL && even ? L : L + 1;        /* smallest integer inside */
        uint64_t hi = xH && !even ? H - 1 : H;       /* largest integer inside */
        for (int j = 17; j >= 0; j--) {
            uint64_t u = pow10u[j];
            uint64_t c_lo = (lo + u - 1) / u;
            if (c_lo * u > hi) continue;
            /* nearest multiple of u to the exact x: N + fraction */
            uint64_t c = N / u, r = N % u, half = u / 2;
            if (j == 0) {
                /* N + f to the nearest integer: floor(2 x 10^q) is 2N + 1
                 * when f >= 1/2, and exact when f is exactly 1/2 */
                uint64_t T;
                int xt;
                if (!scale(2 * m, e, q, &T, &xt)) return 0;
                c = N;
                if ((T & 1) && (!xt || (N & 1))) c = N + 1;
            } else if (r > half || (r == half && (!xN || (c & 1)))) c++;
            if (c * u < lo) c = c_lo;
            if (c * u > hi) c = hi / u;
            uint64_t v = c * u;
            /* digits of v: 17 digits, or 18 when rounding carried to 10^17 */
            char tmp[24];
            int n = 0;
            for (uint64_t t = v; t; t /= 10) tmp[n++] = (char)('0' + t % 10);
            *dexp = k + (n - 17);
            int first = n - 1, last = 0;
            while (last < first && tmp[last] == '0') last++;
            *nd = 0;
            for (int i = first; i >= last; i--) digits[(*nd)++] = tmp[i];
            digits[*nd] = '\0';
            return 1;
        }
        return 0;
    }
    return 0;
}

/* The reference: correctly rounded 15, 16, 17 digits, the first that reads
 * back (any decimal of <= 15 significant digits survives a round trip of a
 * normal double; subnormals have fewer bits, so they try from one digit). */
static void slow_digits(double x, char *digits, int *nd, int *dexp) {
    char tmp[40];
    for (int prec = x < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, x);
        if (strtod(tmp, NULL) == x) break;
    }
    const char *p = tmp;
    *nd = 0;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p)) digits[(*nd)++] = *p;
    *dexp = atoi(p + 1);
    while (*nd > 1 && digits[*nd - 1] == '0') (*nd)--;
    digits[*nd] = '\0';
}

int cmp_pyfloat_digits(double x, int fast, char *digits, int *nd, int *dexp) {
    if (!(fast && fast_digits(x, digits, nd, dexp))) {
        slow_digits(x, digits, nd, dexp);
        return 0;
    }
    return 1;
}

char *cmp_pyfloat(double v, char *buf, size_t size) {
    if (isnan(v)) { snprintf(buf, size, "nan"); return buf; }
    if (isinf(v)) { snprintf(buf, size, v < 0 ? "-inf" : "inf"); return buf; }
    if (v == 0) { snprintf(buf, size, signbit(v) ? "-0.0" : "0.0"); return buf; }
    char digits[24];
    int nd, exp;
    cmp_pyfloat_digits(fabs(v), 1, digits, &nd, &exp);
    char out[64];
    int o = 0;
    if (v < 0) out[o++] = '-';
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -exp - 1; i++) out[o++] = '0';
            for (int i = 0; i < nd; i++) out[o++] = digits[i];
        } else {
            for (int i = 0; i <= exp; i++) out[o++] = i < nd ? digits[i] : '0';
            out[o++] = '.';
            if (nd > exp + 1)
                for (int i = exp + 1; i < nd; i++) out[o++] = digits[i];
            else out[o++] = '0';
        }
    } else {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++) out[o++] = digits[i];
        }
        int ae = exp < 0 ? -exp : exp;
        out[o++] = 'e';
        out[o++] = exp < 0 ? '-' : '+';
        if (ae >= 100) out[o++] = (char)('0' + ae / 100);
        out[o++] = (char)('0' + ae / 10 % 10);
        out[o++] = (char)('0' + ae % 10);
    }
    out[o] = '\0';
    if (size) {
        size_t n = (size_t)o < size - 1 ? (size_t)o : size - 1;
        memcpy(buf, out, n);
        buf[n] = '\0';
    }
    return buf;
}
