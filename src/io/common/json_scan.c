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
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (!strcmp(name, names[i])) return i < best ? i : best;
    return best;
}

/* Read once (tokenizers start on several threads): -1 until then. */
static _Atomic int scan_default = -1;

int json_scan_default(void) {
    int s = atomic_load_explicit(&scan_default, memory_order_relaxed);
    if (s < 0) {
        s = json_scan_pick(getenv("PROBETOP_JSON_SCAN"), json_scan_best());
        atomic_store_explicit(&scan_default, s, memory_order_relaxed);
    }
    return s;
}
