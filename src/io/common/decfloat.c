/* decfloat: decimal to double, correctly rounded (see decfloat.h).
 *
 * The wide path: with w normalised to wn = w * 2^l (top bit set) and
 * 5^q = F * 2^e (F in [2^127, 2^128), the table's T next to F), the exact
 * value is wn * F * 2^(e + q - l).  z = wn * T is a 192-bit integer in
 * [2^190, 2^192) and differs from R = wn * F by less than wn < 2^64: not at
 * all for 0 <= q <= 55 (T = F), from below for q > 55 (T < F), from above
 * for q < 0 (T > F).  The rounding to 53 bits (fewer for subnormals) only
 * changes at multiples of 2^137 of R (half-way points and powers of two
 * are such multiples at every shift used here), so when no multiple of
 * 2^137 lies between z and R, z rounds as R does; otherwise the answer is
 * left to strtod. */
#include "src/io/common/decfloat.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/decfloat_pow5.h"

#define INF_BITS 0x7ff0000000000000ull

/* The 128-bit product a * b as hi:lo. */
static inline void mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
#ifdef __SIZEOF_INT128__
    __extension__ unsigned __int128 p = (unsigned __int128)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
#else
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* w * 10^q when it is a binary fraction: 5^-q divides w (-27 <= q < 0),
 * the value is w / 5^-q (< 2^62, converted correctly rounded) times 2^q
 * (exact).  These values sit on the rounding boundaries the wide path
 * cannot tell apart (1700000000010010.5, a time in microseconds). */
static int dyadic(uint64_t w, int q, uint64_t *bits) {
    static const uint64_t pow5[28] = {
        1ull, 5ull, 25ull, 125ull, 625ull, 3125ull, 15625ull, 78125ull, 390625ull, 1953125ull, 9765625ull,
        48828125ull, 244140625ull, 1220703125ull, 6103515625ull, 30517578125ull, 152587890625ull,
        762939453125ull, 3814697265625ull, 19073486328125ull, 95367431640625ull, 476837158203125ull,
        2384185791015625ull, 11920928955078125ull, 59604644775390625ull, 298023223876953125ull,
        1490116119384765625ull, 7450580596923828125ull};
    if (q >= 0 || q < -27 || w % pow5[-q]) return 0;
    double v = (double)(int64_t)(w / pow5[-q]);
    v *= 1.0 / (double)((uint64_t)1 << -q);
    memcpy(bits, &v, sizeof *bits);
    return 1;
}

/* The bits of the double nearest w * 10^q (w > 0); 0 when undecided. */
static int wide(uint64_t w, int q, uint64_t *bits) {
    if (q < DECFLOAT_QMIN) { *bits = 0; return 1; }          /* w < 2^64: below half the smallest subnormal */
    if (q > DECFLOAT_QMAX) { *bits = INF_BITS; return 1; }   /* w >= 1: beyond DBL_MAX */
    int l = __builtin_clzll(w);
    uint64_t wn = w << l;
    const uint64_t *t = decfloat_pow5[q - DECFLOAT_QMIN];
    uint64_t ah, al, bh, bl;
    mul64(wn, t[0], &ah, &al);
    mul64(wn, t[1], &bh, &bl);
    uint64_t z0 = bl, z1 = al + bh, z2 = ah + (z1 < al);
    int exact = q >= 0 && q <= 55;
    if (!exact && (q < 0 ? (z2 & 0x1ff) == 0 && z1 == 0 : (z2 & 0x1ff) == 0x1ff && z1 == UINT64_MAX))
        return dyadic(w, q, bits);   /* a multiple of 2^137 within 2^64 of z, on R's side */
    int b = z2 >> 63 ? 192 : 191;                           /* bit length of z (and of R) */
    int e = b - 1 + decfloat_pow5_exp[q - DECFLOAT_QMIN] + q - l;   /* value in [1, 2) * 2^e */
    int sh = b - 53 + (e < -1022 ? -1022 - e : 0);          /* bits of z below the result's last */
    int hb = sh - 1 - 128;                                  /* the half bit, in z2 (>= 9) */
    if (hb >= 64) { *bits = 0; return 1; }                  /* under half the smallest subnormal */
    uint64_t m = hb == 63 ? 0 : z2 >> (hb + 1);
    uint64_t half = (z2 >> hb) & 1;
    uint64_t rest = exact ? ((z2 & (((uint64_t)1 << hb) - 1)) | z1 | z0) != 0 : 1;   /* R != z: never a tie */
    m += half & (rest | (m & 1));
    if (e < -1022) { *bits = m; return 1; }                 /* subnormal; 2^52 is the smallest normal */
    if (e > 1023) { *bits = INF_BITS; return 1; }
    uint64_t r = ((uint64_t)(e + 1022) << 52) + m;          /* m holds the implicit bit (and a carry) */
    *bits = r > INF_BITS ? INF_BITS : r;
    return 1;
}

int decfloat_wide(uint64_t w, int q, int neg, int truncated, double *out) {
    uint64_t bits;
    if (w == 0) bits = 0;
    else if (!wide(w, q, &bits)) return 0;
    else if (truncated) {   /* the value lies between w and w + 1 (10^19 still fits) */
        uint64_t up;
        if (!wide(w + 1, q, &up) || up != bits) return 0;
    }
    if (neg) bits |= (uint64_t)1 << 63;
    memcpy(out, &bits, sizeof *out);
    return 1;
}

/* ---- text ---- */

static int df_digit(char c) { return c >= '0' && c <= '9'; }
static int df_lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int df_word_at(const char *p, const char *e, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(e - p) < n) return 0;
    for (size_t i = 0; i < n; i++)
        if (df_lower(p[i]) != w[i]) return 0;
    return 1;
}

const char *decfloat_parse(const char *p, const char *e, double *v) {
    const char *s = p;
    int neg = 0;
    if (p < e && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p < e && (df_lower(*p) == 'n' || df_lower(*p) == 'i')) {
        if (df_word_at(p, e, "nan")) { *v = neg ? -NAN : NAN; return p + 3; }
        if (df_word_at(p, e, "infinity")) { *v = neg ? -INFINITY : INFINITY; return p + 8; }
        if (df_word_at(p, e, "inf")) { *v = neg ? -INFINITY : INFINITY; return p + 3; }
        return NULL;
    }
    uint64_t w = 0;
    int nd = 0, q = 0, trunc = 0, any = 0;
    for (; p < e && df_digit(*p); p++) {
        any = 1;
        if (nd < 19) { w = w * 10 + (uint64_t)(*p - '0'); nd += w != 0; }
        else { q++; trunc |= *p != '0'; }
    }
    if (p < e && *p == '.') {
        for (p++; p < e && df_digit(*p); p++) {
            any = 1;
            if (nd < 19) { w = w * 10 + (uint64_t)(*p - '0'); nd += w != 0; q--; }
            else trunc |= *p != '0';
        }
    }
    if (!any) return NULL;
    if (p < e && df_lower(*p) == 'e') {
        const char *x = p + 1;
        int eneg = 0;
        if (x < e && (*x == '+' || *x == '-')) eneg = *x++ == '-';
        if (x < e && df_digit(*x)) {
            int ex = 0;
            for (; x < e && df_digit(*x); x++)
                if (ex < 100000) ex = ex * 10 + (*x - '0');
            q += eneg ? -ex : ex;
            p = x;
        }
    }
    if (w == 0) { *v = neg ? -0.0 : 0.0; return p; }
    if (q >= -340 && q <= 320 && decfloat_to_double(w, q, neg, trunc, v)) return p;
    char tmp[512];   /* the rare undecided or extreme one */
    size_t n = (size_t)(p - s);
    if (n >= sizeof tmp) return NULL;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    *v = strtod(tmp, NULL);
    return p;
}
