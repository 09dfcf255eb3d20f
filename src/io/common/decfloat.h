/* decfloat: decimal numbers to the nearest double without strtod.
 *
 * The JSON tokenizer reads every statistic of a dump.json and every time of
 * a profiler trace as a double; the value must be the one strtod (and
 * Python's float()) gives, bit for bit, since it ends in a .trend.db that is
 * compared with msProbe's (probetop-formats(5), DUMP.JSON).  Two exact
 * paths, each used only where it is provably correctly rounded:
 *
 *  - small: a significand of at most 53 bits times a power of ten of at
 *    most 22 (both exact doubles, one IEEE multiplication or division);
 *  - wide: the significand times a 128-bit approximation of 5^q
 *    (decfloat_pow5.h), with the approximation's error bounded; when that
 *    bound leaves the rounding undecided the caller falls back to strtod.
 */
#ifndef PT_DECFLOAT_H
#define PT_DECFLOAT_H

#include <float.h>
#include <stdint.h>

/* A decimal number in text at [p, e): optional sign, digits with an
 * optional fraction and exponent, or nan / inf / infinity in any case.
 * The end of it (*v the nearest double, as strtod gives), or NULL when
 * there is none at p.  Nothing after it is looked at. */
const char *decfloat_parse(const char *p, const char *e, double *v);

/* The wide path and the rest (decfloat.c); the arguments as below. */
int decfloat_wide(uint64_t w, int q, int neg, int truncated, double *out);

/* The small path alone: 1 with *out when w <= 2^53 and -22 <= q <= 22
 * (both exact doubles: one correctly rounded operation), else 0. */
static inline int decfloat_small(uint64_t w, int q, int neg, double *out) {
#if FLT_EVAL_METHOD == 0 && FLT_RADIX == 2
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (w <= ((uint64_t)1 << 53) && q >= -22 && q <= 22) {
        double v = (double)w;
        v = q < 0 ? v / p10[-q] : v * p10[q];
        *out = neg ? -v : v;
        return 1;
    }
#else
    (void)w, (void)q, (void)neg, (void)out;
#endif
    return 0;
}

/* The double nearest to w * 10^q (ties to even), negated when neg, into
 * *out; returns 1, or 0 when the result cannot be decided without more
 * precision (then *out is unchanged: use strtod).  When more digits were
 * dropped from the significand (truncated: the exact value lies in
 * (w, w+1) * 10^q), the answer is given only when both ends round alike. */
static inline int decfloat_to_double(uint64_t w, int q, int neg, int truncated, double *out) {
    if (!truncated && q < 0 && w > ((uint64_t)1 << 53))
        while (q < 0 && w % 10 == 0) { w /= 10; q++; }   /* 1700000000010000.0: the zeros say nothing */
    if (!truncated && decfloat_small(w, q, neg, out)) return 1;
    return decfloat_wide(w, q, neg, truncated, out);
}

#endif
