/* json_num: json_lex_number_fast (json.h) as a static inline, for the one
 * place where the call costs (parse_dump_elem.c's statistic slots, a
 * number per slot); json_lex.c's json_lex_number_fast is this.  The usual
 * shape of a statistic (Python's repr of a float) is read here, the rest
 * and decfloat's slow cases by json_lex.c out of line.  Inlined where the
 * caller keeps many values in registers it can cost more than the call
 * (parse_dump_elem.c's scalar(): measured so). */
#ifndef PT_JSON_NUM_H
#define PT_JSON_NUM_H

#include <stdint.h>

#include "src/io/common/decfloat.h"
#include "src/io/common/json.h"
#include "src/io/common/json_scan.h"

#if JSON_SWAR   /* (every SSE2 build: little-endian gcc) */
/* 10^k, for digits valued by words */
static const uint64_t json_num_p10[17] = {1,          10,          100,          1000,          10000,          100000,
                                          1000000,    10000000,    100000000,    1000000000,    10000000000,    100000000000,
                                          1000000000000, 10000000000000, 100000000000000, 1000000000000000, 10000000000000000};
#endif

/* The exponent at q (just past its 'e' or 'E'): a sign, then one to three
 * digits; past them, with *x its value, or NULL for any other shape. */
static inline const char *json_num_exp(const char *q, int *x) {
    int neg = *q == '-', v = 0;
    q += *q == '-' || *q == '+';
    unsigned d = (unsigned)(*q - '0');
    if (d > 9) return NULL;
    for (int k = 0; k < 3 && d <= 9; k++) {
        v = v * 10 + (int)d;
        d = (unsigned)(*++q - '0');
    }
    if (d <= 9) return NULL;
    *x = neg ? -v : v;
    return q;
}

#if JSON_HAVE_SSE2
/* The value of the last 16 of the n digits that end at e, a point (j
 * digits before e) skipped; j >= 16: none among them.  Zeros stand for
 * the digits before the n.  The 17 bytes before e are read: the digits
 * are the 16 before e where they follow the point and the 16 before e - 1
 * where they precede it, picked byte by byte, then valued in pairs, fours
 * and eights (SSE2's 16-bit multiplies: every step's sums fit). */
static inline uint64_t json_num_digits16_before(const char *e, unsigned n, unsigned j) {
    /* ramp + k: the bytes from 16 - k on set (k <= 16) */
    static const unsigned char ramp[32] = {0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
                                           0,    0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                           0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(e - 16));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(e - 17));
    __m128i after = _mm_loadu_si128((const __m128i *)(const void *)(ramp + (j < 16 ? j : 16)));
    __m128i keep = _mm_loadu_si128((const __m128i *)(const void *)(ramp + (n < 16 ? n : 16)));
    __m128i x = _mm_or_si128(_mm_and_si128(after, a), _mm_andnot_si128(after, b));
    x = _mm_and_si128(_mm_sub_epi8(x, _mm_set1_epi8('0')), keep);
    x = _mm_add_epi16(_mm_mullo_epi16(_mm_and_si128(x, _mm_set1_epi16(0xff)), _mm_set1_epi16(10)), _mm_srli_epi16(x, 8));
    x = _mm_madd_epi16(x, _mm_set1_epi32(0x00010064));   /* the first pair times 100, plus the second */
    x = _mm_packs_epi32(x, x);
    x = _mm_madd_epi16(x, _mm_set1_epi32(0x00012710));   /* the first four times 10000, plus the second */
    uint64_t u;
    _mm_storel_epi64((__m128i *)(void *)&u, x);
    return (u & 0xffffffffu) * 100000000u + (u >> 32);
}

/* decfloat_to_double, out of line (json_lex.c). */
int json_num_wide(uint64_t w, int q, int neg, double *v);
/* num_scan_fast's shapes, out of line (json_lex.c): the usual shape's path
 * keeps few registers. */
const char *json_num_rest(const char *s, int neg, double *v);

/* The number at s (its digits, after any '-'; neg) in the shape of Python's
 * repr of a float, the dump's statistics: at most 17 digits (more only
 * when they are the zeros after "0.", to 19 after the point), an optional
 * fraction, an exponent of at most three digits.  Its digits found by two
 * 16-byte masks and valued by json_num_digits16_before in one step; the end of it,
 * or NULL to leave it to num_scan_fast (any other shape, the buffer's start
 * within 17 bytes, or decfloat undecided).  w and the power of ten are the
 * ones num_scan_fast gives (leading zeros add nothing to w), so the value
 * and the end are its, and it takes only numbers it takes. */
static inline const char *json_num_window(const struct json_lex *lx, const char *s, int neg, double *v) {
    uint64_t dm = json_scan_digit_mask(s);
    if (dm >= 0x8000) dm |= (uint64_t)json_scan_digit_mask(s + 16) << 16;   /* digits to the block's end: the next block's */
    unsigned i = (unsigned)__builtin_ctzll(~dm), j = 16, n;
    const char *e = s + i;
    int dot = *e == '.';
    if (i - 1 >= 17 || (s[0] == '0' && i > 1)) return NULL;   /* no digit, too many, a zero leading others */
    if (dot) {
        j = (unsigned)__builtin_ctzll(~(dm >> (i + 1)));
        if (j == 0 || i + 1 + j >= 32) return NULL;
        e += 1 + j;
        n = i + j;
    } else
        n = i;
    uint64_t w = 0;
    if (dot && i <= 8 && j <= 8 && (*e | 0x20) != 'e') {   /* "d.ddd", 8 and 8 digits at most: by words */
        w = json_scan_swar_digits_value(json_scan_swar_load(s), (int)i) * json_num_p10[j] +
            json_scan_swar_digits_value(json_scan_swar_load(s + i + 1), (int)j);
        if (decfloat_small(w, -(int)j, neg, v)) return e;
        return json_num_wide(w, -(int)j, neg, v) ? e : NULL;
    }
    if ((size_t)(e - lx->buf) < 17) return NULL;
    if (n > 16) {
        if (s[0] != '0') {
            if (n > 17) return NULL;
            w = (uint64_t)(s[0] - '0') * 10000000000000000ull;
        } else {   /* "0.": the fraction's digits before the last 16 must be zeros */
            if (j > 19) return NULL;
            for (unsigned k = 2; k < j - 14; k++)
                if (s[k] != '0') return NULL;
        }
    }
    w += json_num_digits16_before(e, n, j);
    int q = dot ? -(int)j : 0;
    if ((*e | 0x20) == 'e') {
        int x;
        if (!(e = json_num_exp(e + 1, &x))) return NULL;
        q += x;
    }
    if (w <= ((uint64_t)1 << 53) && decfloat_small(w, q, neg, v)) return e;
    return json_num_wide(w, q, neg, v) ? e : NULL;
}
#endif

/* json_lex_number_fast (json.h), inline. */
static inline const char *json_num_fast(const struct json_lex *lx, const char *p, double *v) {
#if JSON_HAVE_SSE2
    int neg = *p == '-';
    const char *q;
    if (lx->slow_numbers) return NULL;
    if ((q = json_num_window(lx, p + neg, neg, v))) return q;
    return json_num_rest(p + neg, neg, v);
#else
    (void)lx, (void)p, (void)v;
    return NULL;
#endif
}

#endif
