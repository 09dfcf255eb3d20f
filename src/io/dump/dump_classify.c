/* dump_classify: a record name's metric and stripped name (dump_classify.h). */
#define _GNU_SOURCE   /* memrchr */
#include "src/io/dump/dump_classify.h"

#include <string.h>

#include "src/io/common/json_scan.h"
#include "src/io/dump/read_dump.h"
#include "model/util/util.h"

/* memmem for a pattern that starts with '.' (pl >= 2): a record name has a
 * few dots, and glibc's memmem costs more to set up than this costs to run.
 * Sixteen places at a time, where a dot is followed by the pattern's
 * second byte, then the last few bytes one by one. */
static const char *find_dotted(const char *s, size_t n, const char *pat, size_t pl) {
    if (n < pl) return NULL;
    const char *p = s, *last = s + n - pl;
#if JSON_HAVE_SSE2
    const __m128i dot = _mm_set1_epi8('.'), second = _mm_set1_epi8(pat[1]);
    for (; p + 17 <= s + n && p <= last; p += 16) {   /* the blocks at p and p + 1 lie inside s */
        __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), dot);
        __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)), second);
        for (unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(a, b)); m; m &= m - 1) {
            const char *c = p + __builtin_ctz(m);
            if (c > last) return NULL;
            if (!memcmp(c, pat, pl)) return c;
        }
    }
#endif
    for (; p <= last; p++)
        if (*p == '.' && p[1] == pat[1] && !memcmp(p, pat, pl)) return p;
    return NULL;
}

/* (the two passes, non-overlapping, left to right: find_dotted, not a
 * compare at every byte) */
size_t dump_strip_word(char *s, size_t n, const char *w) {
    char pat[32];
    size_t wl = strlen(w);   /* the callers' words are short literals */
    if (wl > sizeof pat - 3) wl = sizeof pat - 3;
    pat[0] = '.';
    memcpy(pat + 1, w, wl);
    pat[wl + 1] = '.';
    pat[wl + 2] = '\0';
    size_t l2 = wl + 1, l1 = l2 + 1;   /* not snprintf: this runs for every record */
    for (int pass = 0; pass < 2; pass++) {
        size_t pl = pass ? l2 : l1, o = 0;
        const char *p = s, *end = s + n, *hit;
        while ((hit = find_dotted(p, (size_t)(end - p), pat, pl))) {
            memmove(s + o, p, (size_t)(hit - p));
            o += (size_t)(hit - p);
            if (!pass) s[o++] = '.';
            p = hit + pl;
        }
        memmove(s + o, p, (size_t)(end - p));
        n = o + (size_t)(end - p);
    }
    s[n] = '\0';
    return n;
}

/* The first ".<w>" of s (pat: ".<w>", pl its length) when some ".<w>" is
 * followed by a dot or ends s (the test ".<w>." or endswith ".<w>" made),
 * else NULL; *more: a second ".<w>" exists.  ".<w>" holds one dot, at its
 * start, so its places never overlap and one walk finds them all. */
static const char *find_word(const char *s, size_t n, const char *pat, size_t pl, int *more) {
    const char *end = s + n, *first = find_dotted(s, n, pat, pl), *qual = NULL;
    int count = 0;
    for (const char *h = first; h && !(qual && count >= 2); h = find_dotted(h + pl, (size_t)(end - h - pl), pat, pl)) {
        count++;
        if (!qual && (h + pl == end || h[pl] == '.')) qual = h;
    }
    *more = count >= 2;
    return qual ? first : NULL;
}

/* dump_strip_word's answer for s whose one ".<w>" (pl bytes) is at h: a dot
 * after it makes the first pass's ".<w>." -> "." (the dot kept cannot start
 * a new ".<w>": that needs a second one after it), else the second pass
 * removes it.  Half the walks of the two passes, which ran for every record
 * (a twentieth of a worker's parse at 34 MB, callgrind). */
static size_t strip_one(char *s, size_t n, char *h, size_t pl) {
    char *end = s + n;
    if (h + pl < end && h[pl] == '.') {
        memmove(h + 1, h + pl + 1, (size_t)(end - h - pl - 1));
    } else {
        memmove(h, h + pl, (size_t)(end - h - pl));
    }
    n -= pl;
    s[n] = '\0';
    return n;
}

/* One word's test and strip: the metric, or -1 when w's test fails. */
static int strip_metric(char *k, size_t *n, const char *pat, size_t pl, const char *w, int metric) {
    int more;
    const char *h = find_word(k, *n, pat, pl, &more);
    if (!h) return -1;
    *n = more ? dump_strip_word(k, *n, w) : strip_one(k, *n, k + (h - k), pl);
    return metric;
}

int dump_classify(char *k, size_t *n) {
    int m;
    if ((m = strip_metric(k, n, ".forward", 8, "forward", DM_FORWARD)) >= 0) return m;
    if ((m = strip_metric(k, n, ".backward", 9, "backward", DM_BACKWARD)) >= 0) return m;
    if (util_ends_with_n(k, *n, "parameters_grad")) {
        /* remove every ".parameters_grad" */
        size_t o = 0;
        for (size_t i = 0; i < *n;) {
            if (i + 16 <= *n && !memcmp(k + i, ".parameters_grad", 16)) i += 16;
            else k[o++] = k[i++];
        }
        k[o] = '\0';
        *n = o;
        return DM_PARAMS_GRAD;
    }
    /* >= 3 parts and the second-to-last is exactly parameters_grad */
    char *last = memrchr(k, '.', *n);
    if (last && last > k) {
        char *p2 = memrchr(k, '.', (size_t)(last - k));
        const char *seg = p2 ? p2 + 1 : k;
        if (p2 && (size_t)(last - seg) == 15 && !memcmp(seg, "parameters_grad", 15)) {
            *p2 = '\0';
            *n = (size_t)(p2 - k);
            return DM_PARAMS_GRAD;
        }
    }
    return -1;
}

