/* json_scan: the pull tokenizer's byte scans (json.c), one per kind of
 * stop, each in three variants that must find the same byte:
 *
 *  - portable: bytes, and eight at a time (SWAR) on little-endian machines;
 *  - SSE2: sixteen at a time (every x86-64 has it, so it is inlined);
 *  - AVX2: thirty-two at a time, compiled for AVX2 alone and used only when
 *    the processor has it (json_scan_best()).
 *
 * The tokenizer picks the variant once per input (json_lex.scan); the
 * tests (test_decfloat, test_json_fast) and the fuzz harness fuzz_lexdiff lex the same bytes
 * with each and compare.  Every scan takes [p, end) with p possibly past
 * end (then it returns p) and returns the first stop, or end.  White space
 * has one scan for every variant, json_scan_ws, by bytes and a newline's
 * indentation at once: its runs are shorter than a block (the SSE2 and AVX2
 * variants' fast path in json_lex.c guesses a newline's indentation, and
 * lexes short keys, strings and numbers itself).  The readers
 * that read values where they lie (parse_dump_elem.c, trace_fast.c,
 * origin_light.c) share json_scan_ws and json_scan_str_end.  Skipping uses block masks: every stop
 * of 64 bytes at once, then the stops one by one, with no new scan per stop. */
#ifndef PT_JSON_SCAN_H
#define PT_JSON_SCAN_H

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__) && defined(__GNUC__)
#define JSON_HAVE_SSE2 1
#include <emmintrin.h>
#else
#define JSON_HAVE_SSE2 0
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
#define JSON_SWAR 1
#define SWAR_ONES 0x0101010101010101ull
#define SWAR_HIGH 0x8080808080808080ull
static inline uint64_t json_scan_swar_load(const char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}
/* high bit set in each byte of w equal to c (exact for the lowest such byte,
 * which is the only one the callers use) */
static inline uint64_t json_scan_swar_eq(uint64_t w, unsigned char c) {
    uint64_t x = w ^ (SWAR_ONES * c);
    return (x - SWAR_ONES) & ~x & SWAR_HIGH;
}
/* How many of the 8 bytes of w, from the first, are ASCII digits: a digit
 * has high nibble 3, and so does it plus 6 ('9' + 6 = 0x3f); a carry out of
 * a byte only comes from a non-digit, so never spoils a byte before it. */
static inline int json_scan_swar_digit_run(uint64_t w) {
    uint64_t t = (w & 0xf0f0f0f0f0f0f0f0ull) | (((w + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4);
    uint64_t x = t ^ 0x3333333333333333ull;
    return x ? __builtin_ctzll(x) >> 3 : 8;
}
/* The value of the first k (1..8) digits of w: the digits moved to the top
 * bytes (zeros before them), then pairs, quads and the eight combined. */
__attribute__((always_inline)) static inline uint64_t json_scan_swar_digits_value(uint64_t w, int k) {
    uint64_t v = (w - 0x3030303030303030ull) << (8 * (8 - k));
    v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffull;
    v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffull;
    return (v * 10000 + (v >> 32)) & 0xffffffffull;
}
#else
#define JSON_SWAR 0
#endif

#if JSON_HAVE_SSE2
/* The 16 bytes at p: bit i set when byte i is an ASCII digit (a byte whose
 * distance from '0', unsigned, is at most 9); a run of them from p is
 * __builtin_ctz(~mask) long (16 at most). */
static inline unsigned json_scan_digit_mask(const char *p) {
    __m128i d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8('0'));
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d));
}
#endif

/* ' ', '\n', '\t', '\r': one comparison and one bit test */
static inline int json_scan_is_ws(char c) {
    unsigned char u = (unsigned char)c;
    return u <= ' ' && ((1ull << u) & ((1ull << ' ') | (1ull << '\n') | (1ull << '\t') | (1ull << '\r')));
}

/* ---- portable ---- */

/* Past JSON white space: the first byte that is none (a control byte
 * included), or end; every reader's one skipper.  Mostly none, or one
 * space (after ':' and ',' as Python's json writes), or a newline and its
 * indentation: 16 spaces a compare with SSE2, else 8 a word. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline const char *json_scan_ws(const char *p, const char *end) {
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c > ' ') return p;
#if JSON_HAVE_SSE2
        if (c == '\n' && end - p > 16) {
            unsigned x = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)), _mm_set1_epi8(' '))) & 0xffffu;
            p += 1 + (x ? (unsigned)__builtin_ctz(x) : 16u);
            continue;
        }
#elif JSON_SWAR
        if (c == '\n') {
            for (p++; end - p >= 8; p += 8) {
                uint64_t x = json_scan_swar_load(p) ^ (SWAR_ONES * ' ');
                if (x) { p += __builtin_ctzll(x) >> 3; break; }
            }
            continue;
        }
#endif
        if (!json_scan_is_ws((char)c)) return p;
        p++;
    }
    return p;
}

/* Inside a string: the closing quote, a backslash or a control character. */
static inline const char *json_scan_str_portable(const char *p, const char *end) {
#if JSON_SWAR
    while (end - p >= 8) {
        uint64_t w = json_scan_swar_load(p);
        /* bytes < 0x20: the same borrow trick against 0x20 */
        uint64_t m = json_scan_swar_eq(w, '"') | json_scan_swar_eq(w, '\\') | ((w - SWAR_ONES * 0x20) & ~w & SWAR_HIGH);
        if (m) return p + (__builtin_ctzll(m) >> 3);
        p += 8;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) p++;
    return p;
}

/* Skipping a value: a quote or a bracket. */
static inline const char *json_scan_skip_portable(const char *p, const char *end) {
    while (p < end && *p != '"' && *p != '{' && *p != '}' && *p != '[' && *p != ']') p++;
    return p;
}

/* Skipping a string: the closing quote or a backslash. */
static inline const char *json_scan_skipstr_portable(const char *p, const char *end) {
    while (p < end && *p != '"' && *p != '\\') p++;
    return p;
}

/* Skipping a value, a block at a time: bit i of the mask is set where
 * byte i of [p, p + n) (n <= 64) is a quote, a backslash or a bracket. */
static inline uint64_t json_scan_skip_mask_portable(const char *p, size_t n) {
    uint64_t m = 0;
    size_t i = 0;
#if JSON_SWAR
    for (; i + 8 <= n; i += 8) {   /* by words: exact equality per byte, high bits gathered */
        uint64_t w = json_scan_swar_load(p + i), b = w | (SWAR_ONES * 0x20), x = 0;
        const uint64_t lo = SWAR_ONES * 0x7f;
        uint64_t e;
        e = w ^ (SWAR_ONES * '"'); x |= ~(((e & lo) + lo) | e);
        e = w ^ (SWAR_ONES * '\\'); x |= ~(((e & lo) + lo) | e);
        e = b ^ (SWAR_ONES * '{'); x |= ~(((e & lo) + lo) | e);   /* '[' ']' as '{' '}' (only they map there) */
        e = b ^ (SWAR_ONES * '}'); x |= ~(((e & lo) + lo) | e);
        m |= (((x & SWAR_HIGH) >> 7) * 0x0102040810204080ull >> 56) << i;
    }
#endif
    for (; i < n; i++) {
        char c = p[i];
        if (c == '"' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']') m |= (uint64_t)1 << i;
    }
    return m;
}

/* ---- the structural index (the two-pass walk, json_lex.walk) ----
 * First pass: the classes of 64 bytes at once, as bit masks (bit i for byte
 * i): quotes and backslashes, then for the token walk (skip = 0) bytes not
 * white space and control bytes (< 0x20), for skipping (skip = 1) brackets
 * (the others are left 0).  Then which bytes are escaped (json_blk_escaped) and, for
 * skipping, which are inside strings (json_blk_prefix_xor of the quotes not
 * escaped).  Second pass: the tokenizer walks the masks (json.c). */
struct json_blk { uint64_t nw, quote, bs, ctl, brk; };

static inline void json_blk_portable(const char *p, struct json_blk *b, int skip) {
    uint64_t nw = 0, q = 0, bs = 0, ctl = 0, brk = 0;
    for (int i = 0; i < 64; i++) {
        unsigned char c = (unsigned char)p[i], o = c | 0x20;   /* '[' ']' as '{' '}' (only they map there) */
        uint64_t bit = (uint64_t)1 << i;
        if (!json_scan_is_ws((char)c)) nw |= bit;
        if (c == '"') q |= bit;
        if (c == '\\') bs |= bit;
        if (c < 0x20) ctl |= bit;
        if (o == '{' || o == '}') brk |= bit;
    }
    b->quote = q; b->bs = bs;
    if (skip) { b->nw = b->ctl = 0; b->brk = brk; }
    else { b->nw = nw; b->ctl = ctl; b->brk = 0; }
}

/* The escaped bytes of a block: each byte after a backslash that is not
 * itself escaped, as the tokenizer reads strings (a run of backslashes
 * escapes every second byte).  *carry (0 or 1): byte 0 is escaped (the
 * previous block ended in an escaping backslash); on return the same for
 * the next block.  Backslashes are rare: one step per backslash. */
static inline uint64_t json_blk_escaped(uint64_t bs, unsigned *carry) {
    uint64_t esc = *carry & 1;
    unsigned out = 0;
    bs &= ~esc;
    while (bs) {
        int i = __builtin_ctzll(bs);
        if (i == 63) { out = 1; break; }
        esc |= (uint64_t)2 << i;
        bs &= ~((uint64_t)3 << i);   /* the escaped byte escapes nothing */
    }
    *carry = out;
    return esc;
}

/* Bit i = the parity of bits 0..i of x: with x the quotes not escaped, the
 * bytes inside strings (the opening quote in, the closing one out). */
static inline uint64_t json_blk_prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* ---- SSE2 ---- */
#if JSON_HAVE_SSE2
/* The 16-bit mask of stops in the 16 bytes at p, per kind. */
static inline unsigned json_scan_sse2_str_stops(const char *p) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p), c1f = _mm_set1_epi8(0x1f);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                             _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f));   /* v <= 0x1f */
    return (unsigned)_mm_movemask_epi8(m);
}
static inline unsigned json_scan_sse2_skip_stops(const char *p) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i b = _mm_or_si128(v, _mm_set1_epi8(0x20));   /* '[' ']' as '{' '}' (only they map there) */
    __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                             _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('{')), _mm_cmpeq_epi8(b, _mm_set1_epi8('}'))));
    return (unsigned)_mm_movemask_epi8(m);
}
/* json_scan_skip_mask_portable of 64 bytes */
static inline uint64_t json_scan_skip_mask_sse2(const char *p) {
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i b = _mm_or_si128(v, _mm_set1_epi8(0x20));   /* '[' ']' as '{' '}' (only they map there) */
        __m128i s = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                                 _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('{')), _mm_cmpeq_epi8(b, _mm_set1_epi8('}'))));
        m |= (uint64_t)(unsigned)_mm_movemask_epi8(s) << (16 * i);
    }
    return m;
}
static inline unsigned json_scan_sse2_skipstr_stops(const char *p) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    return (unsigned)_mm_movemask_epi8(m);
}
#define JSON_SSE2_SCAN(name, stops, tail)                                                  \
    static inline const char *name(const char *p, const char *end) {                      \
        while (end - p >= 16) {                                                            \
            unsigned m = stops(p);                                                         \
            if (m) return p + __builtin_ctz(m);                                            \
            p += 16;                                                                       \
        }                                                                                  \
        return tail(p, end);                                                               \
    }
JSON_SSE2_SCAN(json_scan_str_sse2, json_scan_sse2_str_stops, json_scan_str_portable)
JSON_SSE2_SCAN(json_scan_skip_sse2, json_scan_sse2_skip_stops, json_scan_skip_portable)
JSON_SSE2_SCAN(json_scan_skipstr_sse2, json_scan_sse2_skipstr_stops, json_scan_skipstr_portable)
#undef JSON_SSE2_SCAN

/* json_blk_portable, sixteen bytes at a time */
static inline void json_blk_sse2(const char *p, struct json_blk *b, int skip) {
    uint64_t nw = 0, q = 0, bs = 0, ctl = 0, brk = 0;
    const __m128i c1f = _mm_set1_epi8(0x1f);
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        int sh = 16 * i;
        q |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))) << sh;
        bs |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))) << sh;
        if (skip) {
            __m128i o = _mm_or_si128(v, _mm_set1_epi8(0x20));
            brk |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(o, _mm_set1_epi8('{')), _mm_cmpeq_epi8(o, _mm_set1_epi8('}')))) << sh;
        } else {
            __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))));
            nw |= (uint64_t)(~(unsigned)_mm_movemask_epi8(ws) & 0xffffu) << sh;
            ctl |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f)) << sh;
        }
    }
    b->nw = nw; b->quote = q; b->bs = bs; b->ctl = ctl; b->brk = brk;
}

/* ---- AVX2 (json_scan.c) ---- */
const char *json_scan_str_avx2(const char *p, const char *end);
const char *json_scan_skip_avx2(const char *p, const char *end);
const char *json_scan_skipstr_avx2(const char *p, const char *end);
uint64_t json_scan_skip_mask_avx2(const char *p);
void json_blk_avx2(const char *p, struct json_blk *b);       /* skip = 0 */
void json_blk_skip_avx2(const char *p, struct json_blk *b);  /* skip = 1 */
#endif

/* ---- a string's end, for the readers that read strings where they lie ---- */

/* From after a string's opening quote: its closing quote, or NULL at a
 * control byte or when the string is cut (end comes first, or a backslash
 * is its last byte).  *esc is set to 1 when a backslash was met; each
 * escape is stepped over whole (the byte after a backslash, a quote or a
 * backslash too, never ends the string).  A reader that takes no escape
 * gives up on *esc. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline const char *json_scan_str_end(const char *p, const char *end, int *esc) {
#if JSON_HAVE_SSE2
    /* most strings (keys, categories, short names) end within 16 bytes: one block inline */
    if (end - p >= 16) {
        unsigned m = json_scan_sse2_str_stops(p);
        if (!m) p += 16;
        else if (*(p += __builtin_ctz(m)) == '"') return p;
    }
#endif
    for (;;) {
#if JSON_HAVE_SSE2
        p = json_scan_str_sse2(p, end);
#else
        p = json_scan_str_portable(p, end);
#endif
        if (p >= end) return NULL;
        if (*p == '"') return p;
        if (*p != '\\' || end - p < 2) return NULL;
        *esc = 1;
        p += 2;
    }
}

#endif
