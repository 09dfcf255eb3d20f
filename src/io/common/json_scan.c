/* json_scan: the AVX2 variants of the tokenizer's scans (json_scan.h) and
 * the choice of variant.  Only these functions are compiled for AVX2: the
 * program as a whole still runs on any x86-64. */
#include "src/io/common/json_scan.h"

#include "src/io/common/json.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if JSON_HAVE_SSE2
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline unsigned avx2_cmp(__m256i v, char c) {
    return (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)));
}

AVX2 const char *json_scan_str_avx2(const char *p, const char *end) {
    const __m256i c1f = _mm256_set1_epi8(0x1f);
    while (end - p >= 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        unsigned ctl = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v, c1f), c1f));
        unsigned m = avx2_cmp(v, '"') | avx2_cmp(v, '\\') | ctl;
        if (m) return p + __builtin_ctz(m);
        p += 32;
    }
    return json_scan_str_sse2(p, end);
}

AVX2 const char *json_scan_skip_avx2(const char *p, const char *end) {
    while (end - p >= 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        __m256i b = _mm256_or_si256(v, _mm256_set1_epi8(0x20));   /* '[' ']' as '{' '}' */
        unsigned m = avx2_cmp(v, '"') | avx2_cmp(b, '{') | avx2_cmp(b, '}');
        if (m) return p + __builtin_ctz(m);
        p += 32;
    }
    return json_scan_skip_sse2(p, end);
}

AVX2 const char *json_scan_skipstr_avx2(const char *p, const char *end) {
    while (end - p >= 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
        unsigned m = avx2_cmp(v, '"') | avx2_cmp(v, '\\');
        if (m) return p + __builtin_ctz(m);
        p += 32;
    }
    return json_scan_skipstr_sse2(p, end);
}
AVX2 uint64_t json_scan_skip_mask_avx2(const char *p) {
    uint64_t m = 0;
    for (int i = 0; i < 2; i++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * i));
        __m256i b = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        m |= (uint64_t)(avx2_cmp(v, '"') | avx2_cmp(v, '\\') | avx2_cmp(b, '{') | avx2_cmp(b, '}')) << (32 * i);
    }
    return m;
}
/* json_blk_portable (json_scan.h) for the token walk, thirty-two bytes at a
 * time; white space by one table look-up (its four bytes have distinct low
 * nibbles: ' ' 0, '\t' 9, '\n' a, '\r' d; a byte with the high bit set
 * looks up 0). */
AVX2 void json_blk_avx2(const char *p, struct json_blk *b) {
    const __m256i c1f = _mm256_set1_epi8(0x1f);
    const __m256i wst = _mm256_setr_epi8(' ', 0, 0, 0, 0, 0, 0, 0, 0, '\t', '\n', 0, 0, '\r', 0, 0,
                                         ' ', 0, 0, 0, 0, 0, 0, 0, 0, '\t', '\n', 0, 0, '\r', 0, 0);
    uint64_t r[4] = {0, 0, 0, 0};
    for (int i = 0; i < 2; i++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * i));
        int sh = 32 * i;
        r[0] |= (uint64_t)(unsigned)~_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(wst, v), v)) << sh;
        r[1] |= (uint64_t)avx2_cmp(v, '"') << sh;
        r[2] |= (uint64_t)avx2_cmp(v, '\\') << sh;
        r[3] |= (uint64_t)(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(v, c1f), c1f)) << sh;
    }
    b->nw = r[0]; b->quote = r[1]; b->bs = r[2]; b->ctl = r[3]; b->brk = 0;
}

/* the same for skipping: quotes, backslashes, brackets */
AVX2 void json_blk_skip_avx2(const char *p, struct json_blk *b) {
    uint64_t q = 0, bs = 0, brk = 0;
    for (int i = 0; i < 2; i++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * i));
        __m256i o = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
        int sh = 32 * i;
        q |= (uint64_t)avx2_cmp(v, '"') << sh;
        bs |= (uint64_t)avx2_cmp(v, '\\') << sh;
        brk |= (uint64_t)(avx2_cmp(o, '{') | avx2_cmp(o, '}')) << sh;
    }
    b->nw = b->ctl = 0; b->quote = q; b->bs = bs; b->brk = brk;
}
#endif

int json_scan_best(void) {
#if JSON_HAVE_SSE2
    return __builtin_cpu_supports("avx2") ? JSON_SCAN_AVX2 : JSON_SCAN_SSE2;
#else
    return JSON_SCAN_PORTABLE;
#endif
}

int json_scan_pick(const char *name, int best) {
    static const char *const names[] = {"portable", "sse2", "avx2"};
    if (!name || !*name) return best;
    int walk = 0, top = best & 3;
    if (!strncmp(name, "index-", 6)) { walk = JSON_SCAN_INDEX; name += 6; }
    else if (!strncmp(name, "tokens-", 7)) { walk = JSON_SCAN_TOKENS; name += 7; }
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (!strcmp(name, names[i])) return (i < top ? i : top) | walk;
    return best;
}

/* Read once (tokenizers start on several threads): -1 until then. */
static _Atomic int scan_default = -1;

int json_scan_default(void) {
    int s = atomic_load_explicit(&scan_default, memory_order_relaxed);
    if (s < 0) {
        int best = json_scan_best();
        /* two-pass skipping is faster with SSE2 or AVX2 (bench_lex), one
         * pass from each token is faster for tokens (the index costs more
         * than the scans it saves there), and with the portable scan */
        s = json_scan_pick(getenv("PROBETOP_JSON_SCAN"), best == JSON_SCAN_PORTABLE ? best : best | JSON_SCAN_INDEX);
        atomic_store_explicit(&scan_default, s, memory_order_relaxed);
    }
    return s;
}
