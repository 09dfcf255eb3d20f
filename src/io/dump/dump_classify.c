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

/* Of one word (".forward" or ".backward", pl bytes with its dot) in a
 * name: how many times it occurs, the first place, and whether one of
 * them is followed by a dot or ends the name (the test ".<w>." or
 * endswith ".<w>" made).  The word holds one dot, at its start, so each
 * place starts at a dot of the name and places never overlap. */
struct word_hits {
    const char *first;
    int count, qual;
};

/* The dot at d (end: the name's end) as a place of ".forward" (w[0]) or
 * ".backward" (w[1]). */
static inline void dot_at(const char *d, const char *end, struct word_hits *w) {
    size_t left = (size_t)(end - d);
    struct word_hits *h;
    size_t pl;
    if (left >= 8 && d[1] == 'f' && !memcmp(d + 2, "orward", 6)) h = &w[0], pl = 8;
    else if (left >= 9 && d[1] == 'b' && !memcmp(d + 2, "ackward", 7)) h = &w[1], pl = 9;
    else return;
    if (!h->count++) h->first = d;
    if (left == pl || d[pl] == '.') h->qual = 1;
}

/* Both words' places in one walk over the name's dots, sixteen bytes at a
 * time, a dot looked at only when an 'f' or a 'b' follows it (the last
 * bytes by the sixteen that end the name, those already seen masked off:
 * nothing read past the name): the two find_word walks a
 * record ran before, and the second again for a backward record, cost
 * twice this (callgrind, data2db at 134 MB). */
static void find_words(const char *s, size_t n, struct word_hits w[2]) {
    const char *p = s, *end = s + n;
    w[0] = w[1] = (struct word_hits){NULL, 0, 0};
#if JSON_HAVE_SSE2
    const __m128i dot = _mm_set1_epi8('.'), f = _mm_set1_epi8('f'), b = _mm_set1_epi8('b');
    for (; p + 17 <= end; p += 16) {   /* the blocks at p and p + 1 lie inside s: dots before an 'f' or a 'b' */
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
        __m128i c = _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), dot),
                                  _mm_or_si128(_mm_cmpeq_epi8(x, f), _mm_cmpeq_epi8(x, b)));
        for (unsigned m = (unsigned)_mm_movemask_epi8(c); m; m &= m - 1) dot_at(p + __builtin_ctz(m), end, w);
    }
    if (p < end && n >= 16) {
        const char *q = end - 16;
        unsigned skip = (unsigned)(p - q);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)q), dot));
        for (m = m >> skip << skip; m; m &= m - 1) dot_at(q + __builtin_ctz(m), end, w);
        p = end;
    }
#endif
    for (; p < end; p++)
        if (*p == '.') dot_at(p, end, w);
}

/* One word's strip when its test holds (w), as dump_strip_word makes it:
 * the metric, or -1 when the test fails. */
static int strip_metric(char *k, size_t *n, const struct word_hits *w, size_t pl, const char *word, int metric) {
    if (!w->qual) return -1;
    *n = w->count >= 2 ? dump_strip_word(k, *n, word) : strip_one(k, *n, k + (w->first - k), pl);
    return metric;
}

int dump_classify(char *k, size_t *n) {
    int m;
    struct word_hits w[2];
    find_words(k, *n, w);
    if ((m = strip_metric(k, n, &w[0], 8, "forward", DM_FORWARD)) >= 0) return m;
    if ((m = strip_metric(k, n, &w[1], 9, "backward", DM_BACKWARD)) >= 0) return m;
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

