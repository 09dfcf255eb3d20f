/* pyfloat: Python's repr() of a float, the text msProbe writes for every
 * statistic, difference and relative error (probetop-rules(7), STATISTICS METRICS: Graph values).
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

#include "model/compare/compare.h"

typedef unsigned __int128 u128;

static int bits128(u128 v) {
    uint64_t hi = (uint64_t)(v >> 64), lo = (uint64_t)v;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* 5^0 .. 5^54 as (high, low) 64-bit halves. */
static const uint64_t pow5[55][2] = {
    {0x0000000000000000ull, 0x0000000000000001ull},
    {0x0000000000000000ull, 0x0000000000000005ull},
    {0x0000000000000000ull, 0x0000000000000019ull},
    {0x0000000000000000ull, 0x000000000000007dull},
    {0x0000000000000000ull, 0x0000000000000271ull},
    {0x0000000000000000ull, 0x0000000000000c35ull},
    {0x0000000000000000ull, 0x0000000000003d09ull},
    {0x0000000000000000ull, 0x000000000001312dull},
    {0x0000000000000000ull, 0x000000000005f5e1ull},
    {0x0000000000000000ull, 0x00000000001dcd65ull},
    {0x0000000000000000ull, 0x00000000009502f9ull},
    {0x0000000000000000ull, 0x0000000002e90eddull},
    {0x0000000000000000ull, 0x000000000e8d4a51ull},
    {0x0000000000000000ull, 0x0000000048c27395ull},
    {0x0000000000000000ull, 0x000000016bcc41e9ull},
    {0x0000000000000000ull, 0x000000071afd498dull},
    {0x0000000000000000ull, 0x0000002386f26fc1ull},
    {0x0000000000000000ull, 0x000000b1a2bc2ec5ull},
    {0x0000000000000000ull, 0x000003782dace9d9ull},
    {0x0000000000000000ull, 0x00001158e460913dull},
    {0x0000000000000000ull, 0x000056bc75e2d631ull},
    {0x0000000000000000ull, 0x0001b1ae4d6e2ef5ull},
    {0x0000000000000000ull, 0x000878678326eac9ull},
    {0x0000000000000000ull, 0x002a5a058fc295edull},
    {0x0000000000000000ull, 0x00d3c21bcecceda1ull},
    {0x0000000000000000ull, 0x0422ca8b0a00a425ull},
    {0x0000000000000000ull, 0x14adf4b7320334b9ull},
    {0x0000000000000000ull, 0x6765c793fa10079dull},
    {0x0000000000000002ull, 0x04fce5e3e2502611ull},
    {0x000000000000000aull, 0x18f07d736b90be55ull},
    {0x0000000000000032ull, 0x7cb2734119d3b7a9ull},
    {0x00000000000000fcull, 0x6f7c40458122964dull},
    {0x00000000000004eeull, 0x2d6d415b85acef81ull},
    {0x00000000000018a6ull, 0xe32246c99c60ad85ull},
    {0x0000000000007b42ull, 0x6fab61f00de36399ull},
    {0x000000000002684cull, 0x2e58e9b04570f1fdull},
    {0x00000000000c097cull, 0xe7bc90715b34b9f1ull},
    {0x00000000003c2f70ull, 0x86aed236c807a1b5ull},
    {0x00000000012ced32ull, 0xa16a1b11e8262889ull},
    {0x0000000005e0a1fdull, 0x2712875988becaadull},
    {0x000000001d6329f1ull, 0xc35ca4bfabb9f561ull},
    {0x0000000092efd1b8ull, 0xd0cf37be5aa1cae5ull},
    {0x00000002deaf189cull, 0x140c16b7c528f679ull},
    {0x0000000e596b7b0cull, 0x643c7196d9ccd05dull},
    {0x00000047bf19673dull, 0xf52e37f2410011d1ull},
    {0x00000166bb7f0435ull, 0xc9e717bb45005915ull},
    {0x00000701a97b150cull, 0xf18376a85901bd69ull},
    {0x000023084f676940ull, 0xb7915149bd08b30dull},
    {0x0000af298d050e43ull, 0x95d69670b12b7f41ull},
    {0x00036bcfc1194751ull, 0xed30f03375d97c45ull},
    {0x00111b0ec57e6499ull, 0xa1f4b1014d3f6d59ull},
    {0x00558749db77f700ull, 0x29c77506823d22bdull},
    {0x01aba4714957d300ull, 0xd0e549208b31adb1ull},
    {0x085a36366eb71f04ull, 0x147a6da2b7f86475ull},
    {0x29c30f1029939b14ull, 0x6664242d97d9f649ull},
};

/* floor(M * 2^E * 10^q) and whether it is exact; 0 when out of range.
 * Inlined: fast_digits calls it three or four times with the same q, so
 * the power of five and its size are looked up once. */
__attribute__((always_inline)) static inline int scale(uint64_t M, int E, int q, uint64_t *fl, int *exact) {
    int aq = q < 0 ? -q : q;
    if (aq > 54) return 0;
    u128 p5 = (u128)pow5[aq][0] << 64 | pow5[aq][1];
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

/* "00" .. "99": a digit pair at 2 * its value. */
static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/* Shortest digits of x > 0 (finite, normal): digits without trailing
 * zeros and the decimal exponent of the first; 0 when out of range. */
static int fast_digits(double x, char *digits, int *nd, int *dexp) {
    if (x < DBL_MIN) return 0;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
    int e = (int)((bits >> 52) & 0x7ff) - 1075;   /* x = m * 2^e, m in [2^52, 2^53) */
    /* decimal exponent from the binary one (78913 / 2^18 ~ log10 2); it may
     * be one too small, which the check on N below corrects */
    int k = ((e + 52) * 78913) >> 18;
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
        /* a multiple of 10^j inside means one of 10^(j-1) too, so digits
         * go one at a time while the interval still holds a multiple of
         * the next power: floor(hi / 10^j) > floor((lo - 1) / 10^j).  The
         * divisions are by the constant 10 (a multiplication), and N loses
         * its digits alongside: the last one removed and whether all
         * before it were zero say where N's fraction of 10^j lies against
         * one half, without a division by 10^j. */
        uint64_t hq = hi, lq = lo - 1, c = N;
        unsigned last = 0;
        int j = 0, zeros = 1;
        while (hq / 10 > lq / 10) {
            zeros &= last == 0;
            last = (unsigned)(c % 10);
            hq /= 10;
            lq /= 10;
            c /= 10;
            j++;
        }
        if (j == 0) {
            /* N + f to the nearest integer: floor(2 x 10^q) is 2N + 1
             * when f >= 1/2, and exact when f is exactly 1/2 */
            uint64_t T;
            int xt;
            if (!scale(2 * m, e, q, &T, &xt)) return 0;
            if ((T & 1) && (!xt || (N & 1))) c = N + 1;
        } else if (last > 5 || (last == 5 && (!zeros || !xN || (c & 1)))) {
            c++;   /* above one half, or exactly half and c odd */
        }
        if (c <= lq) c = lq + 1;   /* the smallest multiple inside */
        if (c > hq) c = hq;        /* the largest */
        /* c without its trailing zeros, written two digits at a time from
         * its end; it has 17 - j digits, or 18 - j when rounding carried */
        int n = 17 - j;
        if (c >= pow10u[n]) n++;
        *dexp = k + (n + j - 17);
        while (c >= 10 && c % 10 == 0) { c /= 10; n--; }
        *nd = n;
        digits[n] = '\0';
        for (; c >= 100; c /= 100, n -= 2) memcpy(digits + n - 2, two_digits + 2 * (c % 100), 2);
        if (c >= 10) memcpy(digits + n - 2, two_digits + 2 * c, 2);
        else digits[n - 1] = (char)('0' + c);
        return 1;
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
