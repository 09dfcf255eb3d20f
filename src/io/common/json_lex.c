/* json_lex: the pull tokenizer of msProbe's JSON dialect (json.h): tokens
 * one at a time from a buffer, values skipped whole. */
#include "src/io/common/json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/decfloat.h"
#include "src/io/common/json_num.h"
#include "src/io/common/json_scan.h"

/* ---- pull tokenizer ---- */

enum { S_VALUE, S_VALUE_OR_END, S_KEY_OR_END, S_KEY, S_AFTER, S_DONE, S_FAILED };

void json_lex_init(struct json_lex *lx, const char *buf, size_t len, const char *what, struct pt_error *err) {
    memset(lx, 0, sizeof *lx);
    lx->buf = lx->pos = buf;
    lx->end = buf ? buf + len : buf;   /* an empty file may come as NULL */
    lx->what = what;
    lx->err = err;
    lx->state = S_VALUE;
    int d = json_scan_default();
    lx->scan = (uint8_t)(d & 3);
    lx->walk = (uint8_t)(d >> 2);
}

int json_lex_enter(struct json_lex *lx, const uint8_t *kinds, int depth) {
    if (depth < 1 || depth > JSON_MAX_DEPTH || kinds[depth - 1] != 2) return -1;
    for (int i = 0; i < depth; i++) {
        if (kinds[i] != 1 && kinds[i] != 2) return -1;
        lx->kind[i + 1] = kinds[i];
    }
    lx->depth = depth;
    lx->started = 1;
    lx->state = S_VALUE;
    return 0;
}

/* Streaming: a failure within a token's reach of the buffer's end may be a
 * token cut by the buffer, not bad input. */
#define JSON_MORE_REACH 16

void json_lex_refill(struct json_lex *lx, const char *buf, size_t len, int more) {
    lx->off0 += (uint64_t)(lx->pos - lx->buf);
    lx->buf = lx->pos = buf;
    lx->end = buf + len;
    lx->more = more;
    lx->streaming = 1;
    lx->ib = NULL;   /* the index was of the old buffer */
}

static enum json_tok lex_fail(struct json_lex *lx, const char *at, const char *msg) {
    if (lx->more && (at >= lx->end || lx->end - at < JSON_MORE_REACH)) return lx->tok = JT_MORE;
    if (lx->streaming) {
        if (at >= lx->end)
            pt_errorf(lx->err, "%s: JSON ends early after byte %llu (truncated file?): %s", lx->what,
                      (unsigned long long)(lx->off0 + (uint64_t)(lx->end - lx->buf)), msg);
        else
            pt_errorf(lx->err, "%s: byte %llu: %s", lx->what, (unsigned long long)(lx->off0 + (uint64_t)(at - lx->buf)), msg);
    } else if (at >= lx->end)
        pt_errorf(lx->err, "%s: line %zu: JSON ends early (truncated file?): %s", lx->what,
                  json_line_of(lx->buf, lx->end), msg);
    else
        pt_errorf(lx->err, "%s: line %zu, byte %zu: %s", lx->what, json_line_of(lx->buf, at),
                  (size_t)(at - lx->buf), msg);
    lx->tok = JT_ERROR;
    lx->failed = 1;
    lx->state = S_FAILED;   /* (the fast path's one test of the state) */
    return JT_ERROR;
}

/* The scan variant of the tokenizer (json_scan.h): the same stop found
 * with bytes, words, 16 or 32 bytes at a time.  dump.json is indented with
 * runs of spaces and made of short strings, and looking at many bytes per
 * step instead of one is most of the tokenizer's speed. */
#if JSON_HAVE_SSE2
#define SCAN(lx, kind, p, end)                                                                  \
    ((lx)->scan == JSON_SCAN_AVX2 ? json_scan_##kind##_avx2((p), (end))                          \
     : (lx)->scan == JSON_SCAN_SSE2 ? json_scan_##kind##_sse2((p), (end)) : json_scan_##kind##_portable((p), (end)))
#else
#define SCAN(lx, kind, p, end) json_scan_##kind##_portable((p), (end))
#endif

/* ---- the two-pass walk: the index of 64 bytes, then the tokens ---- */

/* The first pass over the 64 bytes at p in the tokenizer's scan variant:
 * for the token walk (skip = 0) or for skipping (1). */
static inline void blk_classify(const struct json_lex *lx, const char *p, struct json_blk *b, const int skip) {
#if JSON_HAVE_SSE2
    if (lx->scan == JSON_SCAN_AVX2) {
        if (skip) json_blk_skip_avx2(p, b);
        else json_blk_avx2(p, b);
        return;
    }
    if (lx->scan == JSON_SCAN_SSE2) { json_blk_sse2(p, b, skip); return; }
#endif
    json_blk_portable(p, b, skip);
}

/* The index of the 64 bytes at p; carry: p is escaped.  p must follow no
 * escaping backslash but the one carry says: every place the walk starts a
 * block is such (between tokens, after an opening quote, or the next block
 * of a string with its carry). */
static inline void idx_fill(struct json_lex *lx, const char *p, unsigned carry) {
    struct json_blk b;
    blk_classify(lx, p, &b, 0);
    uint64_t esc = (b.bs | carry) ? json_blk_escaped(b.bs, &carry) : 0;
    lx->ib = p;
    lx->inw = b.nw;
    lx->iq = b.quote & ~esc;
    lx->ibs = b.bs;
    lx->ictl = b.ctl & ~esc;
    lx->icarry = carry;
}

/* 1 when the index holds p (made at p when it did not), 0 when fewer than
 * 64 bytes are left from p (then the walk from each token goes on). */
static inline int idx_at(struct json_lex *lx, const char *p) {
    if (lx->ib && (uintptr_t)p - (uintptr_t)lx->ib < 64) return 1;   /* (an empty input comes as NULL) */
    if (lx->end - p < 64) return 0;
    idx_fill(lx, p, 0);
    return 1;
}

/* json_scan_ws from the index: the first byte not white space is the first set
 * bit of the block's mask from p. */
__attribute__((always_inline)) static inline const char *skip_ws_idx(struct json_lex *lx, const char *p) {
    if (p < lx->end && !json_scan_is_ws(*p)) return p;
    for (int i = 0; i < 2 && idx_at(lx, p); i++) {
        uint64_t m = lx->inw >> (p - lx->ib);
        if (m) return p + __builtin_ctzll(m);
        p = lx->ib + 64;
    }
    return json_scan_ws(p, lx->end);
}

#define JSON_MAX_NUMBER 400

/* Digits from p while the significand has fewer than 19 (10^19 < 2^64),
 * every one significant (the caller stepped over leading zeros); *mant and
 * *sig grow.  Eight at a time where the buffer allows. */
static inline const char *take_digits(const char *p, const char *end, uint64_t *mant, int *sig) {
    uint64_t m = *mant;
    int n = *sig;
#if JSON_SWAR
    while (end - p >= 8 && n <= 11) {
        uint64_t w = json_scan_swar_load(p);
        int k = json_scan_swar_digit_run(w);
        if (k == 0) goto done;
        m = m * json_num_p10[k] + json_scan_swar_digits_value(w, k);
        n += k;
        p += k;
        if (k < 8) goto done;
    }
#endif
    while (p < end && (unsigned)(*p - '0') < 10 && n < 19) {
        m = m * 10 + (uint64_t)(*p - '0');
        n++;
        p++;
    }
#if JSON_SWAR
done:
#endif
    *mant = m;
    *sig = n;
    return p;
}

/* The digits past the 19th: counted, and whether one was not zero. */
static inline const char *drop_digits(const char *p, const char *end, int *count, int *nonzero) {
    const char *s = p;
    while (p < end && (unsigned)(*p - '0') < 10) {
        *nonzero |= *p != '0';
        p++;
    }
    *count = (int)(p - s);
    return p;
}

/* Scans a JSON number at p.  Correctly rounded, the value strtod gives
 * (decfloat.h; strtod itself when that cannot decide, with the C locale's
 * decimal point, whatever the program's). */
static enum json_tok lex_number(struct json_lex *lx, const char *p) {
    const char *start = p, *end = lx->end;
    int neg = 0, sig = 0, exp = 0, exp_neg = 0, trunc = 0, n = 0;
    uint64_t mant = 0;
    long e10 = 0;
    if (*p == '-') { neg = 1; p++; }
    if (p >= end || *p < '0' || *p > '9') return lex_fail(lx, start, "expected a number");
    if (*p == '0') p++;   /* a leading zero stands alone */
    else {
        p = take_digits(p, end, &mant, &sig);
        p = drop_digits(p, end, &n, &trunc);
        e10 += n;   /* integer digits past the 19th */
        if (p - start > JSON_MAX_NUMBER) return lex_fail(lx, start, "number too long");
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9') return lex_fail(lx, p, "expected a digit after '.'");
        const char *f = p;
        if (!mant)
            while (p < end && *p == '0') p++;   /* 0.000123: the zeros only scale */
        p = take_digits(p, end, &mant, &sig);
        e10 -= p - f;
        p = drop_digits(p, end, &n, &trunc);
        if (p - start > JSON_MAX_NUMBER) return lex_fail(lx, start, "number too long");
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) { exp_neg = *p == '-'; p++; }
        if (p >= end || *p < '0' || *p > '9') return lex_fail(lx, p, "expected a digit in the exponent");
        while (p < end && *p >= '0' && *p <= '9') {
            if (exp < 100000) exp = exp * 10 + (*p - '0');
            p++;
        }
        if (p - start > JSON_MAX_NUMBER) return lex_fail(lx, start, "number too long");
    }
    if (lx->more && p >= end) return lx->tok = JT_MORE;   /* the number may go on in the next piece */
    e10 += exp_neg ? -exp : exp;
    double v;
    if (lx->slow_numbers || !decfloat_to_double(mant, (int)e10, neg, trunc, &v)) {
        char tmp[JSON_MAX_NUMBER + 2];
        size_t len = (size_t)(p - start);
        memcpy(tmp, start, len);
        tmp[len] = '\0';
        v = strtod(tmp, NULL);   /* JSON numbers only use '.', which strtod reads in the C locale */
    }
    lx->num = v;
    lx->tok_start = start;
    lx->pos = p;
    return lx->tok = JT_NUMBER;
}

/* Strings are mostly short (keys, dtypes): sixteen bytes by words first, the
 * variant's wide scan only for the rest of a longer one (kernel names). */
static inline const char *scan_str(const struct json_lex *lx, const char *p, const char *end) {
#if JSON_SWAR
    for (int i = 0; i < 2 && end - p >= 8; i++) {
        uint64_t w = json_scan_swar_load(p);
        uint64_t m = json_scan_swar_eq(w, '"') | json_scan_swar_eq(w, '\\') | ((w - SWAR_ONES * 0x20) & ~w & SWAR_HIGH);
        if (m) return p + (__builtin_ctzll(m) >> 3);
        p += 8;
    }
#endif
    return SCAN(lx, str, p, end);
}

static enum json_tok lex_string(struct json_lex *lx, const char *p, enum json_tok kind) {
    const char *start = ++p, *end = lx->end;
    int esc = 0;
    for (;;) {
        p = scan_str(lx, p, end);
        if (p >= end) return lex_fail(lx, p, "unterminated string");
        if (*p == '"') break;
        if (*p == '\\') {
            esc = 1;
            if (p + 1 >= end) return lex_fail(lx, end, "unterminated string");
            p += 2;
            continue;
        }
        return lex_fail(lx, p, "control character inside a string");
    }
    lx->str = start;
    lx->slen = (size_t)(p - start);
    lx->has_esc = esc;
    lx->tok_start = start - 1;
    lx->pos = p + 1;
    return lx->tok = kind;
}

/* lex_string from the index: the closing quote is the next quote not
 * escaped; a control byte not escaped before it, or a string running to
 * within 64 bytes of the end, is left to lex_string (its message, or
 * JT_MORE when streaming). */
static enum json_tok lex_string_idx(struct json_lex *lx, const char *p, enum json_tok kind) {
    const char *s = p + 1, *q = s;
    uint64_t esc = 0;
    if (!idx_at(lx, s)) return lex_string(lx, p, kind);
    for (;;) {
        unsigned off = (unsigned)(q - lx->ib);
        uint64_t qm = lx->iq >> off, cm = lx->ictl >> off, bm = lx->ibs >> off;
        if (qm) {
            uint64_t before = (qm & (0 - qm)) - 1;   /* the bytes before the closing quote */
            if (cm & before) return lex_string(lx, p, kind);
            esc |= bm & before;
            q += __builtin_ctzll(qm);
            break;
        }
        if (cm) return lex_string(lx, p, kind);
        esc |= bm;
        q = lx->ib + 64;
        if (lx->end - q < 64) return lex_string(lx, p, kind);
        idx_fill(lx, q, lx->icarry);
    }
    lx->str = s;
    lx->slen = (size_t)(q - s);
    lx->has_esc = esc != 0;
    lx->tok_start = p;
    lx->pos = q + 1;
    return lx->tok = kind;
}

#define LEX_STRING(lx, p, kind, idx) ((idx) ? lex_string_idx((lx), (p), (kind)) : lex_string((lx), (p), (kind)))
#define SKIP_WS(lx, p, idx) ((idx) ? skip_ws_idx((lx), (p)) : json_scan_ws((p), (lx)->end))

/* The object or array opening at p (c, its byte: '{' or '['; below
 * JSON_MAX_DEPTH): its token, with the state that follows it. */
static inline enum json_tok lex_open(struct json_lex *lx, const char *p, char c) {
    lx->kind[++lx->depth] = c == '{' ? 1 : 2;
    lx->state = c == '{' ? S_KEY_OR_END : S_VALUE_OR_END;
    lx->started = 1;
    lx->tok_start = p;
    lx->pos = p + 1;
    return lx->tok = c == '{' ? JT_OBJ_BEGIN : JT_ARR_BEGIN;
}

static enum json_tok lex_value(struct json_lex *lx, const char *p, const int idx) {
    const char *end = lx->end;
    lx->tok_start = p;
    switch (*p) {
    case '{':
    case '[':
        if (lx->depth >= JSON_MAX_DEPTH) return lex_fail(lx, p, "nesting deeper than 512 levels");
        return lex_open(lx, p, *p);
    case '"':
        lx->state = S_AFTER;
        return LEX_STRING(lx, p, JT_STRING, idx);
    case 't':
        if (end - p >= 4 && !memcmp(p, "true", 4)) { lx->pos = p + 4; lx->state = S_AFTER; return lx->tok = JT_TRUE; }
        break;
    case 'f':
        if (end - p >= 5 && !memcmp(p, "false", 5)) { lx->pos = p + 5; lx->state = S_AFTER; return lx->tok = JT_FALSE; }
        break;
    case 'n':
        if (end - p >= 4 && !memcmp(p, "null", 4)) { lx->pos = p + 4; lx->state = S_AFTER; return lx->tok = JT_NULL; }
        break;
    case 'N':
        if (end - p >= 3 && !memcmp(p, "NaN", 3)) {
            lx->pos = p + 3; lx->num = NAN; lx->state = S_AFTER; return lx->tok = JT_NUMBER;
        }
        break;
    case 'I':
        if (end - p >= 8 && !memcmp(p, "Infinity", 8)) {
            lx->pos = p + 8; lx->num = INFINITY; lx->state = S_AFTER; return lx->tok = JT_NUMBER;
        }
        break;
    case '-':
        if (end - p >= 9 && !memcmp(p, "-Infinity", 9)) {
            lx->pos = p + 9; lx->num = -INFINITY; lx->state = S_AFTER; return lx->tok = JT_NUMBER;
        }
        lx->state = S_AFTER;
        return lex_number(lx, p);
    default:
        if (*p >= '0' && *p <= '9') { lx->state = S_AFTER; return lex_number(lx, p); }
        break;
    }
    return lex_fail(lx, p, "expected a JSON value");
}

static enum json_tok lex_close(struct json_lex *lx, const char *p) {
    int kind = lx->kind[lx->depth];
    if ((*p == '}' && kind != 1) || (*p == ']' && kind != 2))
        return lex_fail(lx, p, kind == 1 ? "expected '}'" : "expected ']'");
    lx->depth--;
    lx->pos = p + 1;
    lx->state = lx->depth ? S_AFTER : S_DONE;
    return lx->tok = *p == '}' ? JT_OBJ_END : JT_ARR_END;
}

/* The next token (a loop rather than a call per comma, so that it inlines
 * into json_lex_next: one call per token). */
__attribute__((always_inline)) static inline enum json_tok lex_next(struct json_lex *lx, const int idx) {
    if (lx->failed) return JT_ERROR;
again:;
    const char *p = SKIP_WS(lx, lx->pos, idx);
    switch (lx->state) {
    case S_DONE:
        if (p < lx->end) return lex_fail(lx, p, "unexpected text after the JSON value");
        lx->pos = p;
        return lx->tok = JT_END;
    case S_VALUE:
        if (p >= lx->end)
            return lx->depth == 0 && !lx->started ? lex_fail(lx, p, "empty file, expected a JSON value")
                                                  : lex_fail(lx, p, "expected a value");
        lx->started = 1;
        return lex_value(lx, p, idx);
    case S_VALUE_OR_END:
        if (p < lx->end && *p == ']') return lex_close(lx, p);
        if (p >= lx->end) return lex_fail(lx, p, "expected a value or ']'");
        return lex_value(lx, p, idx);
    case S_KEY_OR_END:
        if (p < lx->end && *p == '}') return lex_close(lx, p);
        /* fall through */
    case S_KEY:
        if (p >= lx->end || *p != '"') return lex_fail(lx, p, "expected a quoted object key");
        enum json_tok kt = LEX_STRING(lx, p, JT_KEY, idx);
        if (kt != JT_KEY) return kt;
        p = SKIP_WS(lx, lx->pos, idx);
        if (p >= lx->end || *p != ':') return lex_fail(lx, p, "expected ':' after an object key");
        lx->pos = p + 1;
        lx->state = S_VALUE;
        return JT_KEY;
    case S_AFTER:
        if (p >= lx->end) return lex_fail(lx, p, lx->kind[lx->depth] == 1 ? "expected ',' or '}'" : "expected ',' or ']'");
        if (*p == ',') {
            lx->pos = p + 1;
            lx->state = lx->kind[lx->depth] == 1 ? S_KEY : S_VALUE;
            goto again;
        }
        if (*p == '}' || *p == ']') return lex_close(lx, p);
        return lex_fail(lx, p, lx->kind[lx->depth] == 1 ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    return lex_fail(lx, p, "internal tokenizer state");
}

/* ---- the fast path: the SSE2 and AVX2 variants' one-pass walk ----
 * The common tokens of a dump.json or a trace (white space of a newline
 * and its indentation, keys and strings without escapes, numbers of at
 * most 19 digits, brackets, literals, commas) with no bounds check but one
 * per token: each call starts with FAST_ROOM bytes left, more than the
 * bytes any step below reads, and a step that may go further (a long
 * string, a long run of white space) checks again.  Any byte it does not
 * expect (an escape, a bad token, a long number, the end near) leaves the
 * token to lex_next from the last token boundary, so that every message,
 * position and JT_MORE is lex_next's; the tokens, offsets and values are
 * the same (tests/lex_diff.h compares them, fuzz_lexdiff and
 * test_json_fast). */
#if JSON_HAVE_SSE2
#define FAST_ROOM 160

/* lex_next of the one-pass walk, out of line, and the fast path's rarer
 * ends: every call from the fast path is its last step (a jump), so that
 * it keeps no registers across calls. */
__attribute__((noinline)) static enum json_tok lex_general(struct json_lex *lx) { return lex_next(lx, 0); }

/* Past the white space at p (34 bytes readable): none, one space, a
 * newline and up to 31 spaces; NULL for any other run (lex_next's).  After
 * a newline, *guess spaces are tried first: the address then follows from
 * p alone and the check of the bytes is a branch, so that the next token's
 * reads need not wait for the compare (in a dump the lines of one depth
 * have one indentation); *guess learns the run when it was wrong. */
__attribute__((always_inline)) static inline const char *ws_fast(const char *p, uint8_t *guess) {
    if ((unsigned char)*p > ' ') return p;
    if (*p == ' ') {
        p++;
        if ((unsigned char)*p > ' ') return p;
    }
    if (*p != '\n') return NULL;
    unsigned g = *guess & 15;
    __m128i sp = _mm_set1_epi8(' ');
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1)), sp));
    if (((m ^ ((1u << g) - 1)) & ((2u << g) - 1)) == 0 && (unsigned char)p[1 + g] > ' ') return p + 1 + g;
    unsigned n = 0;
    for (int i = 0; i < 2; i++) {
        unsigned x = ~m & 0xffffu;
        if (x) {
            n += (unsigned)__builtin_ctz(x);
            p += 1 + n;
            if ((unsigned char)*p <= ' ') return NULL;
            *guess = (uint8_t)(n < 16 ? n : 0);
            return p;
        }
        n += 16;
        m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 1 + n)), sp));
    }
    return NULL;
}

/* The rest of a string (key: a key and its ':') at p whose first 16 bytes
 * hold no stop: the variant's wide scan. */
__attribute__((noinline)) static enum json_tok fast_str_long(struct json_lex *lx, const char *p, enum json_tok kind) {
    const char *q = lx->scan == JSON_SCAN_AVX2 ? json_scan_str_avx2(p + 17, lx->end) : json_scan_str_sse2(p + 17, lx->end);
    if (q >= lx->end || *q != '"' || (kind == JT_KEY && (lx->end - q < 2 || q[1] != ':'))) return lex_general(lx);
    lx->str = p + 1;
    lx->slen = (size_t)(q - p - 1);
    lx->has_esc = 0;
    lx->tok_start = p;
    lx->pos = q + 1 + (kind == JT_KEY);
    lx->state = kind == JT_KEY ? S_VALUE : S_AFTER;
    lx->started = 1;
    return lx->tok = kind;
}

/* The number at start..p, w * 10^q, when decfloat's small path does not
 * take it. */
__attribute__((noinline)) static enum json_tok fast_num_wide(struct json_lex *lx, const char *start, const char *p, uint64_t w,
                                                             int q, int neg) {
    double v;
    if (!decfloat_to_double(w, q, neg, 0, &v)) return lex_general(lx);
    lx->num = v;
    lx->tok_start = start;
    lx->pos = p;
    lx->state = S_AFTER;
    lx->started = 1;
    return lx->tok = JT_NUMBER;
}

/* Digits from p into *m (*nd of them so far), while they fit in 19: the
 * end of them, or NULL past 19.  The run of up to 16 digits is found with
 * one compare of 16 bytes, and valued by words (a dump's statistics have
 * 10 to 19 digits, which by words alone took two to three rounds).  At
 * most 32 bytes read. */
__attribute__((always_inline)) static inline const char *digits_fast(const char *p, uint64_t *m, int *nd) {
    for (;;) {
        unsigned dig = json_scan_digit_mask(p);
        int k = __builtin_ctz(~dig);   /* 16 when all are digits (bit 16 of ~dig is set) */
        if (k == 0) return p;
        if (*nd + k > 19) return NULL;
        uint64_t w = json_scan_swar_load(p), v;
        if (k <= 8) v = json_scan_swar_digits_value(w, k);
        else v = json_scan_swar_digits_value(w, 8) * json_num_p10[k - 8] + json_scan_swar_digits_value(json_scan_swar_load(p + 8), k - 8);
        *m = *m * json_num_p10[k] + v;   /* below 10^19: no overflow */
        *nd += k;
        p += k;
        if (k < 16) return p;
    }
}

/* The number whose digits start at p (after its '-'): its significand w
 * and power of ten *e10 with at most 19 digits and an exponent of at most
 * three, in one pass (at most 64 bytes read); the end of it, or NULL for
 * anything else (lex_number's).  The significand and the power of ten are
 * lex_number's (all digits kept when there are 19 at most), so the value
 * is the same. */
__attribute__((always_inline)) static inline const char *num_scan_fast(const char *q, uint64_t *w, int *e10) {
    int nd = 0;
    *e10 = 0;
    if ((unsigned)(*q - '0') > 9) return NULL;
    if (*q == '0') q++;   /* a leading zero stands alone */
    else if (!(q = digits_fast(q, w, &nd))) return NULL;
    if (*q == '.') {
        const char *f = ++q;
        if (!(q = digits_fast(q, w, &nd)) || q == f) return NULL;
        *e10 = (int)(f - q);
    }
    if ((*q | 0x20) == 'e') {
        int x;
        if (!(q = json_num_exp(q + 1, &x))) return NULL;
        *e10 += x;
    }
    return q;
}

/* The closing quote of a string at p (no escape nor control byte in its
 * first 16 bytes: stops m, not 0) tried at the length *guess first: the
 * address then follows from p alone and the check is a branch, so that
 * the next token's reads need not wait for the scan (a dump's keys and
 * dtypes repeat in one order); *guess learns the length when it was wrong. */
__attribute__((always_inline)) static inline const char *str_end_fast(const char *p, unsigned m, uint8_t *guess) {
    unsigned g = *guess & 15;
    if ((m & ((2u << g) - 1)) == (1u << g)) return p + 1 + g;
    unsigned n = (unsigned)__builtin_ctz(m);
    *guess = (uint8_t)n;
    return p + 1 + n;
}

/* The guess table's index of the key at p (its first two bytes). */
#define KEY_HASH(p) ((uint8_t)(((unsigned char)(p)[1] ^ ((unsigned char)(p)[2] << 1)) & 63))

/* The key whose quotes are at p and q, its ':' just after: the token,
 * the value next (inside an object: lx->started already set). */
static inline enum json_tok key_tok(struct json_lex *lx, const char *p, const char *q) {
    lx->str = p + 1;
    lx->slen = (size_t)(q - p - 1);
    lx->has_esc = 0;
    lx->tok_start = p;
    lx->pos = q + 2;
    lx->state = S_VALUE;
    return lx->tok = JT_KEY;
}

/* The states and bytes in the order a dump.json's records bring them
 * (a value after its key, then a comma and a key). */
__attribute__((always_inline)) static inline enum json_tok lex_fast(struct json_lex *lx) {
    const char *p = lx->pos, *q;
    int st = lx->state;
    if (lx->end - p < FAST_ROOM) goto general;
    if (st == S_VALUE) goto value;
    if (st == S_AFTER) {
        if (!(p = ws_fast(p, &lx->indent[1][lx->depth & 31]))) goto general;
        if (*p == ',') {
            lx->pos = ++p;   /* as lex_next after a comma */
            if (lx->kind[lx->depth] == 1) {
                lx->state = S_KEY;
                goto key;
            }
            lx->state = S_VALUE;
            goto value;
        }
        if (*p == '}' || *p == ']') return lex_close(lx, p);
        goto general;
    }
    if (st == S_KEY_OR_END) {
        if (!(p = ws_fast(p, &lx->indent[0][lx->depth & 31]))) goto general;
        if (*p == '}') return lex_close(lx, p);
        goto key_at;
    }
    if (st == S_VALUE_OR_END) {
        if (!(p = ws_fast(p, &lx->indent[0][lx->depth & 31]))) goto general;
        if (*p == ']') return lex_close(lx, p);
        goto value_at;
    }
    if (st != S_KEY) goto general;
key:
    if (!(p = ws_fast(p, &lx->indent[0][lx->depth & 31]))) goto general;
key_at:
    if (*p != '"') goto general;
    {
        unsigned m = json_scan_sse2_str_stops(p + 1);
        if (!m) return fast_str_long(lx, p, JT_KEY);
        q = str_end_fast(p, m, &lx->slen_guess[0][lx->khash]);
        lx->khash = KEY_HASH(p);
    }
    if (*q != '"' || q[1] != ':') goto general;
    return key_tok(lx, p, q);
value:
    if (!(p = ws_fast(p, &lx->indent[0][lx->depth & 31]))) goto general;
value_at:;
    char c = *p;
    if (c == '"') {
        unsigned m = json_scan_sse2_str_stops(p + 1);
        if (!m) return fast_str_long(lx, p, JT_STRING);
        q = str_end_fast(p, m, &lx->slen_guess[1][lx->khash]);
        if (*q != '"') goto general;
        lx->str = p + 1;
        lx->slen = (size_t)(q - p - 1);
        lx->has_esc = 0;
        lx->pos = q + 1;
        lx->tok = JT_STRING;
    } else if ((unsigned)(c - '0') <= 9 || c == '-') {
        /* at most 19 digits and an exponent of at most three, in one pass
         * (at most 64 bytes read); the significand and the power of ten
         * are lex_number's (all digits kept when there are 19 at most),
         * so the value is the same */
        int neg = c == '-', e10 = 0;
        uint64_t w = 0;
        const char *s = p;
        if (lx->slow_numbers || !(q = num_scan_fast(p + neg, &w, &e10))) goto general;
        /* decfloat_to_double's own order: the small path when it takes w
         * as it is (trailing zeros only matter above 2^53) */
        if (w > ((uint64_t)1 << 53) || !decfloat_small(w, e10, neg, &lx->num)) return fast_num_wide(lx, s, q, w, e10, neg);
        lx->pos = q;
        lx->tok = JT_NUMBER;
    } else if ((c | 0x20) == '{') {   /* '{' or '[' (only they map there) */
        if (lx->depth >= JSON_MAX_DEPTH) goto general;
        return lex_open(lx, p, c);
    } else if (c == 't' && !memcmp(p, "true", 4)) {
        lx->pos = p + 4;
        lx->tok = JT_TRUE;
    } else if (c == 'f' && !memcmp(p, "false", 5)) {
        lx->pos = p + 5;
        lx->tok = JT_FALSE;
    } else if (c == 'n' && !memcmp(p, "null", 4)) {
        lx->pos = p + 4;
        lx->tok = JT_NULL;
    } else
        goto general;
    lx->started = 1;
    lx->tok_start = p;
    lx->state = S_AFTER;
    return lx->tok;
general:
    return lex_general(lx);
}
#endif


/* The next token by the scan's walk: the fast path (SSE2 and AVX2, one
 * pass), lex_next from the index (walk 2), or lex_next. */
__attribute__((always_inline)) static inline enum json_tok lex_walk(struct json_lex *lx) {
#if JSON_HAVE_SSE2
    if (lx->scan != JSON_SCAN_PORTABLE && lx->walk != 2) return lex_fast(lx);
#endif
    return lx->walk == 2 ? lex_next(lx, 1) : lex_next(lx, 0);
}

/* json_lex_next but for the fast path of a whole buffer. */
__attribute__((noinline)) static enum json_tok lex_other(struct json_lex *lx) {
    if (!lx->more) return lx->walk == 2 ? lex_next(lx, 1) : lex_next(lx, 0);
    const char *p0 = lx->pos;
    int state0 = lx->state, depth0 = lx->depth, started0 = lx->started;
    enum json_tok t = lex_walk(lx);
    if (t == JT_MORE) {   /* as before the token: the caller refills and asks again */
        lx->pos = p0;
        lx->state = state0;
        lx->depth = depth0;
        lx->started = started0;
    }
    return t;
}

enum json_tok json_lex_next(struct json_lex *lx) {
#if JSON_HAVE_SSE2
    if (__builtin_expect(!lx->more && lx->scan != JSON_SCAN_PORTABLE && lx->walk != 2, 1)) return lex_fast(lx);
#endif
    return lex_other(lx);
}

/* json_lex_number_fast (json.h): lex_fast's numbers, for readers that read
 * values from their bytes: the usual shape by json_num_window (json_num.h),
 * the rest as lex_fast reads them. */
#if JSON_HAVE_SSE2
/* decfloat_to_double, out of line. */
__attribute__((noinline)) int json_num_wide(uint64_t w, int q, int neg, double *v) {
    return decfloat_to_double(w, q, neg, 0, v);
}

/* json_num.h: num_scan_fast's shapes */
__attribute__((noinline)) const char *json_num_rest(const char *s, int neg, double *v) {
    int e10;
    uint64_t w = 0;
    const char *q;
    if (!(q = num_scan_fast(s, &w, &e10))) return NULL;
    if (w > ((uint64_t)1 << 53) || !decfloat_small(w, e10, neg, v))
        if (!decfloat_to_double(w, e10, neg, 0, v)) return NULL;
    return q;
}
#endif

const char *json_lex_number_fast(const struct json_lex *lx, const char *p, double *v) { return json_num_fast(lx, p, v); }

void json_lex_close_at(struct json_lex *lx, const char *p) { lex_close(lx, p); }

int json_lex_open_at(struct json_lex *lx, const char *p) {
    if (lx->depth >= JSON_MAX_DEPTH) return -1;
    lex_open(lx, p, *p);
    return 0;
}

enum json_tok json_lex_next_item(struct json_lex *lx) {
#if JSON_HAVE_SSE2
    const char *p = lx->pos;
    int st = lx->state;
    /* lex_fast's terms (the scan and walk it serves), in an array */
    if (lx->more || lx->failed || lx->scan == JSON_SCAN_PORTABLE || lx->walk == 2 || lx->end - p <= 64 ||
        lx->kind[lx->depth] != 2 || (st != S_AFTER && st != S_VALUE_OR_END))
        return json_lex_next(lx);
    const char *lim = lx->end - 64;
    if ((p = json_scan_ws(p, lim)) >= lim) return json_lex_next(lx);
    if (*p == ']') return lex_close(lx, p);
    if (st == S_AFTER) {
        if (*p != ',' || (p = json_scan_ws(p + 1, lim)) >= lim) return json_lex_next(lx);
    }
    if (*p != '{' || lx->depth >= JSON_MAX_DEPTH) return json_lex_next(lx);
    return lex_open(lx, p, '{');
#else
    return json_lex_next(lx);
#endif
}

/* json_lex_key_open and json_lex_member (json.h): the next member's key,
 * its '{' too when it opens an object; any: a key whose value is not an
 * object (the key token alone) and the object's '}' as well. */
__attribute__((always_inline)) static inline enum json_tok lex_member(struct json_lex *lx, size_t maxlen, int any) {
#if JSON_HAVE_SSE2
    const char *p = lx->pos, *q, *end = lx->end;
    int st = lx->state;
    /* lex_fast's terms (the scan and walk it serves) and its white space
     * guesses; room for the ',' and the key's bytes read 16 at a time */
    if (lx->more || lx->failed || lx->scan == JSON_SCAN_PORTABLE || lx->walk == 2 ||
        (st != S_AFTER && st != S_KEY_OR_END) || lx->kind[lx->depth] != 1 || lx->depth >= JSON_MAX_DEPTH ||
        (size_t)(end - p) <= maxlen + FAST_ROOM)
        return JT_ERROR;
    /* the first member straight after the '{' (the dump's keyword inputs,
     * where every object has a few), the next ones after their comma; the
     * white space before a key is guessed as after a comma, one indent */
    if (st == S_AFTER) {
        if (!(p = ws_fast(p, &lx->indent[1][lx->depth & 31]))) return JT_ERROR;
        if (*p == '}' && any) return lex_close(lx, p);
        if (*p != ',') return JT_ERROR;
        p++;
    }
    if (!(p = ws_fast(p, &lx->indent[0][lx->depth & 31]))) return JT_ERROR;
    if (*p == '}' && any && st == S_KEY_OR_END) return lex_close(lx, p);
    if (*p != '"') return JT_ERROR;
    /* the key's bytes up to its quote, at most maxlen of them */
    unsigned m;
    for (q = p + 1; !(m = json_scan_sse2_str_stops(q)); q += 16)
        if ((size_t)(q - p) > maxlen) return JT_ERROR;
    q += __builtin_ctz(m);
    if ((size_t)(q - p - 1) > maxlen || *q != '"' || q[1] != ':') return JT_ERROR;
    const char *v = q + 2;
    if (*v != '{' && (!(v = ws_fast(v, &lx->indent[0][lx->depth & 31])) || *v != '{')) {
        if (!any) return JT_ERROR;
        return key_tok(lx, p, q);   /* the key as lex_fast gives it: its value next */
    }
    lx->str = p + 1;
    lx->slen = (size_t)(q - p - 1);
    lx->has_esc = 0;
    return lex_open(lx, v, '{');
#else
    (void)lx;
    (void)maxlen;
    (void)any;
    return JT_ERROR;
#endif
}

int json_lex_key_open(struct json_lex *lx, size_t maxlen) { return lex_member(lx, maxlen, 0) == JT_OBJ_BEGIN; }

enum json_tok json_lex_member(struct json_lex *lx, size_t maxlen) { return lex_member(lx, maxlen, 1); }

/* Skipping is most of the work on a dump.json (shapes, integer lists,
 * values no reader wants), so it scans bytes instead of tokens: brackets
 * are matched and nesting is limited, strings are stepped over whole;
 * scalars inside are not checked, as nobody reads them. */
/* -1 with the message; 1 (depth restored) when streaming near the buffer's end. */
static int skip_fail(struct json_lex *lx, const char *at, int depth0, const char *msg) {
    if (lex_fail(lx, at, msg) != JT_MORE) return -1;
    lx->depth = depth0;
    return 1;
}

/* The quotes, backslashes and brackets of the 64 bytes at p (n of them
 * left before the end): the scan variant's block mask, or the bytes'. */
static inline uint64_t skip_mask(const struct json_lex *lx, const char *p, size_t n) {
#if JSON_HAVE_SSE2
    if (n >= 64 && lx->scan == JSON_SCAN_AVX2) return json_scan_skip_mask_avx2(p);
    if (n >= 64 && lx->scan == JSON_SCAN_SSE2) return json_scan_skip_mask_sse2(p);
#else
    (void)lx;
#endif
    return json_scan_skip_mask_portable(p, n < 64 ? n : 64);
}

/* One stop of a skip (a bit of the block mask at q).  0 to go on, 1 when the
 * value ended (lx->pos past it), -1/2 (skip_fail's -1/1 shifted) on failure. */
static inline int skip_stop(struct json_lex *lx, const char *q, int base, int depth0, int *in_str, const char **esc_end) {
    char c = *q;
    if (q < *esc_end) return 0;   /* the byte after a backslash */
    if (*in_str) {
        if (c == '"') *in_str = 0;
        else if (c == '\\') *esc_end = q + 2;
        return 0;   /* brackets inside strings are text */
    }
    if (c == '"') { *in_str = 1; return 0; }
    if (c == '{' || c == '[') {
        if (lx->depth >= JSON_MAX_DEPTH) return skip_fail(lx, q, depth0, "nesting deeper than 512 levels") < 0 ? -1 : 2;
        lx->kind[++lx->depth] = c == '{' ? 1 : 2;
    } else if (c == '}' || c == ']') {
        if ((c == '}') != (lx->kind[lx->depth] == 1))
            return skip_fail(lx, q, depth0, lx->kind[lx->depth] == 1 ? "expected '}'" : "expected ']'") < 0 ? -1 : 2;
        if (--lx->depth == base) {
            lx->pos = q + 1;
            lx->state = lx->depth ? S_AFTER : S_DONE;
            lx->tok = c == '}' ? JT_OBJ_END : JT_ARR_END;
            return 1;
        }
    }
    return 0;   /* a backslash outside strings: not checked here */
}

int json_lex_skip(struct json_lex *lx, enum json_tok first) {
    if (first != JT_OBJ_BEGIN && first != JT_ARR_BEGIN) return first == JT_ERROR ? -1 : 0;
    const char *p = lx->pos, *end = lx->end, *esc_end = p;
    int base = lx->depth - 1, depth0 = lx->depth, in_str = 0;
    if (lx->walk) {
        /* Two passes per block: the index (strings by the prefix parity
         * of the quotes not escaped), then only the brackets outside
         * strings.  The walk below treats a backslash outside strings
         * as a byte like another, the index as an escape: from a block
         * with one, the walk below takes over (both agree before it). */
        unsigned carry = 0;
        uint64_t inside = 0;   /* all ones: the block starts inside a string */
        for (; end - p >= 64; p += 64) {
            struct json_blk b;
            unsigned c0 = carry;
            blk_classify(lx, p, &b, 1);
            uint64_t esc = (b.bs | carry) ? json_blk_escaped(b.bs, &carry) : 0;
            uint64_t in = json_blk_prefix_xor(b.quote & ~esc) ^ inside;
            if (b.bs & ~in) { carry = c0; break; }
            for (uint64_t m = b.brk & ~in; m; m &= m - 1) {
                int r = skip_stop(lx, p + __builtin_ctzll(m), base, depth0, &in_str, &esc_end);
                if (r == 1) return 0;
                if (r) return r < 0 ? -1 : 1;
            }
            inside = 0 - (in >> 63);
        }
        in_str = inside != 0;
        esc_end = p + carry;
    }
    for (; p < end; p += 64) {
        size_t n = (size_t)(end - p);
        for (uint64_t m = skip_mask(lx, p, n); m; m &= m - 1) {
            int r = skip_stop(lx, p + __builtin_ctzll(m), base, depth0, &in_str, &esc_end);
            if (r == 1) return 0;
            if (r) return r < 0 ? -1 : 1;
        }
    }
    if (lx->more) { lx->depth = depth0; return 1; }   /* goes on in the next piece: scanned again from the start */
    if (in_str) {
        lex_fail(lx, esc_end > end ? esc_end : end, "unterminated string");
        return -1;
    }
    lex_fail(lx, end, "unterminated object or array");
    return -1;
}
