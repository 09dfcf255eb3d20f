/* trace_fast: one event object read from its bytes (trace_fast.h).
 *
 * What the tokenizer path (trace_parse.c: parse_event, parse_args) does
 * with each key, and what the tokenizer accepts, is repeated here exactly
 * for the shapes profilers write; every other shape gives up (returns 0)
 * before anything is kept, and the caller reads the object again with the
 * tokenizer, which then gives its own answer or its own message. */
#include "src/io/trace/trace_fast.h"
#include "src/io/trace/trace_snap.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace/trace.h"
#include "src/io/common/decfloat.h"
#include "src/io/common/json_scan.h"

#define FAST_MAX_NUMBER 300    /* longer numbers (the tokenizer allows 400) go to the tokenizer */
#define FAST_MAX_DEPTH 64      /* nesting of a skipped value (the tokenizer allows 512 in all) */
#define FAST_MAX_TIME_STR 40   /* a time as a string: longer ones go to the tokenizer (it reads 63 bytes) */

void trace_fast_ev_reset(struct trace_fast_ev *e) {
    e->ph = 0;
    e->cat = TRACE_FAST_CAT_OTHER;
    e->name[0] = '\0';
    e->namelen = 0;
    e->namep = e->name;
    e->has_ts = e->has_dur = e->bad_time = 0;
    e->pid = e->tid = e->stream = e->corr = -1;
    e->has_id = 0;
    e->snap_name = -1;
    e->task = 0;
    e->task_cat = -1;
    e->argname[0] = '\0';
    e->pgname[0] = e->pgdesc[0] = e->pgranks[0] = '\0';
    e->p2p = 0;
    e->peer = e->prank = -1;
}

const char *trace_fast_ev_name(struct trace_fast_ev *e) {
    if (e->namep != e->name) {
        memcpy(e->name, e->namep, e->namelen);
        e->name[e->namelen] = '\0';
        e->namep = e->name;
    }
    return e->name;
}

#define IS(s, n, lit) ((n) == sizeof(lit) - 1 && !memcmp((s), (lit), sizeof(lit) - 1))

int trace_fast_cat(const char *s, size_t n) {
    return IS(s, n, "Trace") ? TRACE_FAST_CAT_TRACE : IS(s, n, "gpu_user_annotation") ? TRACE_FAST_CAT_GPU_ANNO
         : IS(s, n, "async_npu") ? TRACE_FAST_CAT_NPU_FLOW
         : IS(s, n, "kernel") || IS(s, n, "Kernel") || IS(s, n, "gpu_memcpy") || IS(s, n, "Memcpy") || IS(s, n, "gpu_memset") ||
                   IS(s, n, "Memset") || IS(s, n, "mtia_ccp_events")
             ? TRACE_FAST_CAT_KERNEL
             : TRACE_FAST_CAT_OTHER;
}

int trace_fast_task_cat(const char *s, size_t n) {
    if (n >= 4 && (!memcmp(s, "HCCL", 4) || !memcmp(s, "COMM", 4))) return TRACE_COMM;
    if (n >= 6 && (!memcmp(s, "MEMCPY", 6) || !memcmp(s, "MEMSET", 6))) return TRACE_MEMORY;
    return -1;
}

int trace_fast_int64(const char *s, size_t n, int64_t *out) {
    int64_t v = 0;
    size_t i = 0;
    int neg = n && s[0] == '-';
    if (neg) i++;
    if (i >= n) return -1;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - 9) / 10) return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

/* ---- bytes ---- */

#define FAST_INLINE __attribute__((always_inline)) static inline

/* Three bytes as the low bytes of a little-endian word, and a word's load. */
#define FAST_BYTES3(a, b, c) ((uint32_t)(unsigned char)(a) | (uint32_t)(unsigned char)(b) << 8 | (uint32_t)(unsigned char)(c) << 16)
FAST_INLINE uint32_t load32(const char *p) {
    uint32_t w;
    memcpy(&w, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap32(w);
#endif
    return w;
}

/* n bytes at a and b alike (n >= 1): words compared, the last one
 * overlapping (most keys are 4 to 25 bytes: memcmp's call costs more). */
FAST_INLINE int eqn(const char *a, const char *b, size_t n) {
    if (n >= 8) {
        uint64_t x, y;
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y) return 0;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) return load32(a) == load32(b) && load32(a + n - 4) == load32(b + n - 4);
    return !memcmp(a, b, n);
}
#define EQ(k, lit) eqn((k), (lit), sizeof(lit) - 1)   /* k holds that many bytes */

/* A nested object or array at p, as the tokenizer's skip steps over it
 * (brackets matched, strings whole, nothing else checked): past its end,
 * or NULL. */
static const char *skip_nested(const char *p, const char *end) {
    char stack[FAST_MAX_DEPTH];
    int d = 0;
    stack[d++] = *p++;
    for (;;) {
#if JSON_HAVE_SSE2
        p = json_scan_skip_sse2(p, end);
#else
        p = json_scan_skip_portable(p, end);
#endif
        if (p >= end) return NULL;
        char ch = *p++;
        if (ch == '"') {
            for (;;) {
#if JSON_HAVE_SSE2
                p = json_scan_skipstr_sse2(p, end);
#else
                p = json_scan_skipstr_portable(p, end);
#endif
                if (p >= end) return NULL;
                if (*p == '"') { p++; break; }
                if (end - p < 2) return NULL;
                p += 2;
            }
        } else if (ch == '{' || ch == '[') {
            if (d == FAST_MAX_DEPTH) return NULL;
            stack[d++] = ch;
        } else {
            if ((ch == '}') != (stack[d - 1] == '{')) return NULL;
            if (--d == 0) return p;
        }
    }
}

/* ---- numbers ---- */

struct num {
    int neg, nint, nfrac, ipbad, wide, exp;
    int64_t ip;              /* the integer part as trace_parse_us_to_ns reads it (ipbad: beyond its range) */
    uint64_t mant;           /* the significant digits (wide: more than 19) */
    int f3, rnd;             /* the first three decimals (scaled to three), the fourth >= 5 */
};

/* The digits from p, counted (the count returned), the first 19 of them
 * valued in *v; past them in *q.  Eight at a time where the buffer allows. */
FAST_INLINE int digits(const char *p, const char *end, uint64_t *v, const char **q) {
    const char *s = p;
    uint64_t x = 0;
#if JSON_SWAR
    static const uint64_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    while (end - p >= 8 && p - s <= 11) {
        uint64_t w = json_scan_swar_load(p);
        int k = json_scan_swar_digit_run(w);
        if (k) x = x * p10[k] + json_scan_swar_digits_value(w, k);
        p += k;
        if (k < 8) goto valued;
    }
#endif
    while (p < end && (unsigned)(*p - '0') <= 9 && p - s < 19) x = x * 10 + (uint64_t)(*p++ - '0');
#if JSON_SWAR
valued:
#endif
    while (p < end && (unsigned)(*p - '0') <= 9) p++;
    *v = x;
    *q = p;
    return (int)(p - s);
}

/* A number at [p, end): JSON's grammar (json = 1: no leading zeros, an
 * exponent allowed) or a time string's (json = 0: "-?digits(.digits)?").
 * Past it, or NULL (not one, too long, or leading zeros in a string). */
FAST_INLINE const char *scan_number(const char *p, const char *end, int json, struct num *n) {
    const char *s = p;
    n->neg = n->exp = n->rnd = n->nfrac = n->f3 = 0;
    if (p < end && *p == '-') { n->neg = 1; p++; }
    if (p >= end || (unsigned)(*p - '0') > 9) return NULL;
    if (*p == '0' && end - p > 1 && (unsigned)(p[1] - '0') <= 9) return NULL;   /* 01: the tokenizer's error in JSON */
    uint64_t iv, fv = 0;
    int ni = digits(p, end, &iv, &p);
    /* trace_parse_us_to_ns refuses a digit when the value before it is
     * over its bound; the value only grows, so the last digit decides */
    n->nint = ni;
    n->ipbad = ni > 18 || iv / 10 > (uint64_t)((INT64_MAX / 1000 - 9) / 10);
    n->ip = (int64_t)iv;
    int wide = ni > 19;
    uint64_t mant = iv;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || (unsigned)(*p - '0') > 9) return NULL;
        const char *f = p;
        int nf = digits(p, end, &fv, &p);
        n->nfrac = nf;
        n->f3 = (f[0] - '0') * 100 + (nf > 1 ? f[1] - '0' : 0) * 10 + (nf > 2 ? f[2] - '0' : 0);
        n->rnd = nf > 3 && f[3] >= '5';
        if (!iv) {
            mant = fv;   /* 0.000123: the zeros only scale */
            wide = nf > 19;
        } else if (ni + nf > 19) {
            wide = 1;
        } else {
            static const uint64_t p10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                             100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
                                             10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
                                             100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
            mant = iv * p10[nf] + fv;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        if (!json) return NULL;
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || (unsigned)(*p - '0') > 9) return NULL;
        while (p < end && (unsigned)(*p - '0') <= 9) p++;
        n->exp = 1;
    }
    if (p - s > FAST_MAX_NUMBER) return NULL;
    n->mant = mant;
    n->wide = wide;
    return p;
}

/* The nearest double of a number without exponent of at most 19
 * significant digits: 0, or -1 (the tokenizer reads it). */
static int num_double(const struct num *n, const char *s, size_t len, double *out) {
    if (n->wide || n->exp) return -1;
    if (n->nfrac <= 3 && n->f3 % 125 == 0 && n->nint <= 16 && n->ip <= (int64_t)1 << 53) {
        /* I.F with F eighths (.0, .5, .25, .750: times of us mostly): I + F
         * (a double up to 2^53) in one sum, which is exact (then the nearest double is the
         * number) when the sum less I gives F back */
        double i = (double)n->ip, f = (double)(n->f3 / 125) * 0.125, d = i + f;
        if (d - i == f) {
            *out = n->neg ? -d : d;
            return 0;
        }
    }
    if (decfloat_to_double(n->mant, -n->nfrac, n->neg, 0, out)) return 0;
    char tmp[64];
    if (len >= sizeof tmp) return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    *out = strtod(tmp, NULL);
    return 0;
}

#if JSON_SWAR
/* The value of the first k digits of w (1 <= k <= 8): one or two (device,
 * stream, a duration's whole part, one-digit fractions) by hand, more by
 * json_scan_swar_digits_value. */
FAST_INLINE uint64_t digits_val(uint64_t w, int k) {
    if (k <= 2) return k == 1 ? (w & 0xf) : (w & 0xf) * 10 + (w >> 8 & 0xf);
    return json_scan_swar_digits_value(w, k);
}
#endif

/* A time in the shape profilers write it ("ts": 1700000000123.456, "dur":
 * 3.5): 1 to 16 digits (no leading zero), then nothing or '.' and 1 to 3
 * digits, then neither a digit nor 'e' or 'E', with 25 bytes left to load
 * from.  Read straight to the exact ns (at most three decimals: no rounding)
 * and its nearest double as num_double makes it; *frac: written with a
 * fraction.  Past it, or NULL for every other shape, which read_value and
 * val_time then read as before (a sign, more digits, an exponent, a value
 * past trace_parse_us_to_ns's range).  e's hi_w and hi_v: the first 8
 * digits of the last time of 9 or more and their value (epoch times share
 * them from event to event). */
#if JSON_SWAR
#define TIME_SUM_MIN 1024   /* time_fixed: from here a fraction's double sums exactly rounded */

FAST_INLINE const char *time_fixed(const char *p, const char *end, int64_t *ns, double *d, int *frac, struct trace_fast_ev *e) {
    static const uint64_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (end - p < 25) return NULL;
    uint64_t w = json_scan_swar_load(p), ip;
#if JSON_HAVE_SSE2
    unsigned m = json_scan_digit_mask(p);   /* the integer part's digits and a short fraction's, at once */
    int ni = __builtin_ctz(~m);
#else
    int ni = json_scan_swar_digit_run(w);
#endif
    if (ni < 8) {
        if (!ni) return NULL;
        ip = digits_val(w, ni);
    } else {
        uint64_t w2 = json_scan_swar_load(p + 8);
#if JSON_HAVE_SSE2
        int k = ni - 8;
#else
        int k = json_scan_swar_digit_run(w2);
        ni = 8 + k;
#endif
        if (w != e->hi_w) {   /* (hi_w is 0 before the first: never 8 digits) */
            e->hi_w = w;
            e->hi_v = json_scan_swar_digits_value(w, 8);
        }
        ip = e->hi_v * p10[k] + (k ? digits_val(w2, k) : 0);
        if ((unsigned)(p[ni] - '0') <= 9) return NULL;   /* 17 digits or more */
    }
    if ((*p == '0' && ni > 1) || ip / 10 > (uint64_t)((INT64_MAX / 1000 - 9) / 10)) return NULL;   /* as scan_number: 01; ipbad */
    const char *q = p + ni;
    uint64_t fv = 0;
    int nf = 0;
    if (*q == '.') {
        uint64_t wf = json_scan_swar_load(q + 1);
#if JSON_HAVE_SSE2
        if (ni <= 11) nf = __builtin_ctz(~(m >> (ni + 1)));   /* its 4 bytes in the 16 */
        else
#endif
            nf = json_scan_swar_digit_run(wf);
        if (nf < 1 || nf > 3) return NULL;
        fv = digits_val(wf, nf);
        q += 1 + nf;
    }
    if ((*q | 0x20) == 'e') return NULL;
    uint32_t f3 = (uint32_t)fv * (uint32_t)p10[3 - nf];   /* 0 to 999 */
    /* f3 / 125 when 125 divides f3, else above UINT32_MAX / 125 (0x26e978d5
     * is 1/125 modulo 2^32): num_double's test and quotient without the
     * division gcc left here (an idiv, the costliest instruction of an
     * event in perf annotate) */
    uint32_t eighths = f3 * 0x26e978d5u;
    if (eighths <= UINT32_MAX / 125 && ip <= (uint64_t)1 << 53) {   /* num_double's eighths: one exact sum when the double holds it */
        double i = (double)ip, f = (double)eighths * 0.125, s = i + f;
        if (s - i == f) *d = s;
        else if (!decfloat_to_double(ip * p10[nf] + fv, -nf, 0, 0, d)) return NULL;
    } else if (ip >= TIME_SUM_MIN && ip < (uint64_t)1 << 53) {
        /* ip + f3/1000 is no multiple of 1/8, so never a double nor half-way
         * between two: with 2^E <= ip its distance to the nearest half-way
         * point (odd multiples of 2^(E-53)) is at least 2^(E-53)/1000, more
         * than twice the error of the double f3/1000.0 (2^-54 at most) when
         * ip >= 1024; so rounding ip + that double once (exact ip) gives the
         * double nearest the decimal, as decfloat does (test_trace_fast,
         * times_sum: every fraction near the bound, 2^53 and epoch us). */
        *d = (double)ip + (double)f3 / 1000.0;
    } else if (!decfloat_to_double(ip * p10[nf] + fv, -nf, 0, 0, d)) {
        return NULL;
    }
    *ns = (int64_t)ip * 1000 + f3;
    *frac = nf > 0;
    return q;
}

/* A "ts" (ts set) or "dur" value of the usual shape into e (time_fixed),
 * by the event reader and by a template alike; NULL for any other shape. */
FAST_INLINE const char *time_member(const char *p, const char *end, struct trace_fast_ev *e, int ts, int *frac) {
    int64_t ns;
    double d;
    int f;
    const char *q = time_fixed(p, end, &ns, &d, &f, e);
    if (!q) return NULL;
    if (ts) {
        e->ts = ns;
        e->ts_d = d;
        e->has_ts = 1;
        *frac = f;
    } else {
        e->dur = ns;
        e->dur_d = d;
        e->has_dur = 1;
    }
    return q;
}
#endif

/* ---- values ---- */

/* A value's number fields are read only when it is a number (gcc cannot see it). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

enum { V_STRING, V_NUMBER, V_LITERAL, V_NESTED };

struct val {
    int kind, esc;
    const char *s;           /* V_STRING: the raw bytes between the quotes; V_NUMBER: the text */
    size_t n;
    struct num num;          /* V_NUMBER */
};

#if JSON_SWAR
/* A plain integer at p (pid, tid, ids): 1 to 15 digits, no leading 0 but
 * "0" itself, then no '.', 'e' or 'E': past it with *x, or NULL (for every
 * other shape scan_number reads it). */
FAST_INLINE const char *int_fixed(const char *p, const char *end, uint64_t *x) {
    if (end - p < 8) return NULL;
    uint64_t w = json_scan_swar_load(p);
    int k = json_scan_swar_digit_run(w);
    if (k >= 1 && k < 8) {
        *x = digits_val(w, k);
    } else if (k == 8 && end - p >= 16) {   /* 8 to 15 (correlation and External id often have 8) */
        static const uint64_t p10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
        uint64_t w2 = json_scan_swar_load(p + 8);
        int k2 = json_scan_swar_digit_run(w2);
        if (k2 == 8) return NULL;
        *x = json_scan_swar_digits_value(w, 8) * p10[k2] + (k2 ? digits_val(w2, k2) : 0);
        k += k2;
    } else {
        return NULL;
    }
    return (*p != '0' || k == 1) && p[k] != '.' && (p[k] | 0x20) != 'e' ? p + k : NULL;
}
#endif

/* The value at p (not white space): past it, or NULL. */
FAST_INLINE const char *read_value(const char *p, const char *end, struct val *v) {
    v->s = p;
    v->n = 0;
    v->esc = 0;
    switch (*p) {
    case '"': {
        v->kind = V_STRING;
        v->esc = 0;
        v->s = p + 1;
        const char *q = json_scan_str_end(p + 1, end, &v->esc);
        if (!q) return NULL;
        v->n = (size_t)(q - v->s);
        return q + 1;
    }
    case '{':
    case '[':
        v->kind = V_NESTED;
        return skip_nested(p, end);
    case 't': v->kind = V_LITERAL; return end - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
    case 'f': v->kind = V_LITERAL; return end - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
    case 'n': v->kind = V_LITERAL; return end - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
    case 'N': v->kind = V_LITERAL; return end - p >= 3 && !memcmp(p, "NaN", 3) ? p + 3 : NULL;
    case 'I': v->kind = V_LITERAL; return end - p >= 8 && !memcmp(p, "Infinity", 8) ? p + 8 : NULL;
    default: {
        if (*p == '-' && end - p >= 9 && !memcmp(p, "-Infinity", 9)) { v->kind = V_LITERAL; return p + 9; }
        v->kind = V_NUMBER;
        v->s = p;
#if JSON_SWAR
        uint64_t x;
        const char *q0 = int_fixed(p, end, &x);
        if (q0) {
            int k = (int)(q0 - p);
            v->num = (struct num){.nint = k, .ip = (int64_t)x, .mant = x};   /* as scan_number sets it (ipbad: never below 16 digits) */
            v->n = (size_t)k;
            return q0;
        }
#endif
        const char *q = scan_number(p, end, 1, &v->num);
        if (q) v->n = (size_t)(q - p);
        return q;
    }
    }
}

/* value_int of trace_parse.c: 1 with *out, 0 when it is none (a string, a
 * literal, NaN), -1 when only the tokenizer knows (a fraction, an exponent,
 * more than 15 digits). */
FAST_INLINE int val_int(const struct val *v, int64_t *out) {
    if (v->kind != V_NUMBER) return 0;
    if (v->num.nfrac || v->num.exp || v->num.nint > 15) return -1;
    *out = v->num.neg ? -v->num.ip : v->num.ip;
    return 1;
}

/* value_ns and value_double of trace_parse.c for "ts" and "dur": 1 with
 * *ns and *d, 0 when it is no time (bad_time), -1 when only the tokenizer
 * knows; *frac: written with a fraction. */
static int val_time(const struct val *v, int64_t *ns, double *d, int *frac) {
    struct num sn;
    const struct num *n = &v->num;
    if (v->kind == V_LITERAL) return 0;   /* true, null, NaN, Infinity: no time */
    if (v->kind == V_STRING) {
        if (v->n > FAST_MAX_TIME_STR || scan_number(v->s, v->s + v->n, 0, &sn) != v->s + v->n) return -1;
        n = &sn;
    } else if (v->kind != V_NUMBER || n->exp) {
        return -1;
    }
    if (n->ipbad) return 0;
    if (num_double(n, v->s, v->n, d)) return -1;
    int64_t t = n->ip * 1000 + n->f3 + n->rnd;
    *ns = n->neg ? -t : t;
    *frac = n->nfrac > 0;
    return 1;
}

/* A string copied as copy_string of trace_parse.c does (cut to cap - 1);
 * -1 with an escape (decoded only by the tokenizer). */
FAST_INLINE long val_copy(const struct val *v, char *out, size_t cap) {
    if (v->esc) return -1;
    size_t n = v->n < cap - 1 ? v->n : cap - 1;
    memcpy(out, v->s, n);
    out[n] = '\0';
    return (long)n;
}

/* ---- keys ---- */

enum { K_NONE, K_PH, K_CAT, K_NAME, K_TS, K_DUR, K_PID, K_TID, K_ARGS, K_ID };
enum { A_NONE, A_STREAM, A_CORR, A_NAME, A_TASK, A_PGNAME, A_PGDESC, A_PGRANKS, A_COLL, A_PEER, A_RANK };

FAST_INLINE int event_key(const char *k, size_t n) {
    switch (n) {
    case 2:
        if (k[0] == 'p' && k[1] == 'h') return K_PH;
        if (k[0] == 't' && k[1] == 's') return K_TS;
        if (k[0] == 'i' && k[1] == 'd') return K_ID;
        return K_NONE;
    case 3:
        if (!memcmp(k, "cat", 3)) return K_CAT;
        if (!memcmp(k, "dur", 3)) return K_DUR;
        if (!memcmp(k, "pid", 3)) return K_PID;
        if (!memcmp(k, "tid", 3)) return K_TID;
        return K_NONE;
    case 4:
        if (!memcmp(k, "name", 4)) return K_NAME;
        if (!memcmp(k, "args", 4)) return K_ARGS;
        return K_NONE;
    default: return K_NONE;
    }
}

FAST_INLINE int args_key(const char *k, size_t n) {
    switch (n) {
    case 4: return EQ(k, "name") ? A_NAME : EQ(k, "Rank") ? A_RANK : A_NONE;
    case 6: return EQ(k, "stream") ? A_STREAM : A_NONE;
    case 8: return EQ(k, "Src Rank") || EQ(k, "Dst Rank") ? A_PEER : A_NONE;
    case 9: return EQ(k, "Task Type") ? A_TASK : A_NONE;
    case 11: return EQ(k, "correlation") ? A_CORR : A_NONE;
    case 15: return EQ(k, "Collective name") ? A_COLL : A_NONE;
    case 18: return EQ(k, "Process Group Name") ? A_PGNAME : A_NONE;
    case 19: return EQ(k, "Process Group Ranks") ? A_PGRANKS : A_NONE;
    case 25: return EQ(k, "Process Group Description") ? A_PGDESC : A_NONE;
    default: return A_NONE;
    }
}

/* A key at p ('"'), its ':' and the white space after: the value's first
 * byte, or NULL (an escape in the key, no ':', the end). */
FAST_INLINE const char *read_key(const char *p, const char *end, const char **k, size_t *kn) {
    if (p >= end || *p != '"') return NULL;
    int esc = 0;
    const char *q = json_scan_str_end(p + 1, end, &esc);
    if (!q || esc) return NULL;
    *k = p + 1;
    *kn = (size_t)(q - *k);
    if (end - q >= 4) {   /* "key": value, in one load (white space is <= ' ') */
        uint32_t w = load32(q);
        if ((w & 0xffffffu) == FAST_BYTES3('"', ':', ' ') && (w >> 24) > ' ') return q + 3;
    }
    q = json_scan_ws(q + 1, end);
    if (q >= end || *q != ':') return NULL;
    q = json_scan_ws(q + 1, end);
    return q < end ? q : NULL;
}

/* After a member's value: the next key's quote (*last = 0) or the closing
 * '}' (*last = 1), or NULL. */
FAST_INLINE const char *after_value(const char *p, const char *end, int *last) {
    if (end - p >= 4 && (load32(p) & 0xffffffu) == FAST_BYTES3(',', ' ', '"')) { *last = 0; return p + 2; }   /* , "key" */
    p = json_scan_ws(p, end);
    if (p >= end) return NULL;
    if (*p == '}') { *last = 1; return p; }
    if (*p != ',') return NULL;
    *last = 0;
    p = json_scan_ws(p + 1, end);
    return p < end && *p == '"' ? p : NULL;
}

/* The key at p when its bytes are those expected (pr): the value's first
 * byte (not white space, as read_key's fast form), *id set; else NULL. */
FAST_INLINE const char *pred_key(const struct trace_fast_pred *pr, const char *p, const char *end, int *id) {
    size_t n = pr->len;
    if (!n || end - p <= 16 || (unsigned char)p[n] <= ' ') return NULL;
#if JSON_HAVE_SSE2
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                                                            _mm_loadu_si128((const __m128i *)(const void *)pr->b)));
    unsigned want = (1u << n) - 1;
    if ((m & want) != want) return NULL;
#else
    if (memcmp(p, pr->b, n)) return NULL;
#endif
    *id = pr->id;
    return p + n;
}

/* The key at p, read (read_key) when not the one expected (pr), which it
 * then becomes when it is '"key": ' in 16 bytes; kf maps it to its id
 * (event_key, args_key).  The value's first byte, or NULL. */
FAST_INLINE const char *member_key(struct trace_fast_pred *pr, const char *p, const char *end, int (*kf)(const char *, size_t), int *id) {
    const char *q = pred_key(pr, p, end, id), *k;
    size_t kn;
    if (q) return q;
    if (!(q = read_key(p, end, &k, &kn))) return NULL;
    *id = kf(k, kn);
    size_t n = (size_t)(q - p);
    if (n == kn + 4 && n <= 16 && q[-2] == ':' && q[-1] == ' ' && end - p > 16) {
        pr->len = (unsigned char)n;
        pr->id = (unsigned char)*id;
        memcpy(pr->b, p, 16);   /* (a fixed size: two moves, not a call; the bytes past n are never compared) */
    } else {
        pr->len = 0;
    }
    return q;
}

static int args_key_of(const char *k, size_t n) { return args_key(k, n); }
static int event_key_of(const char *k, size_t n) { return event_key(k, n); }

/* ---- members (what they set, and the template they record: trace_snap.h) ---- */

/* One member of args (parse_args of trace_parse.c), the at-th: past its value, or NULL. */
static const char *args_member(const char *p, const char *end, struct trace_fast_ev *e, unsigned *seen, int at,
                               struct tpl_rec *rec) {
    struct val v;
    int which;
    if (!(p = member_key(&e->parg[at < TRACE_FAST_NPRED ? at : TRACE_FAST_NPRED - 1], p, end, args_key_of, &which))) return NULL;
    if (which) {
        if (*seen & (1u << which)) return NULL;   /* a duplicate: the tokenizer's order of effects */
        *seen |= 1u << which;
    }
    const char *v0 = p;
    if (!(p = read_value(p, end, &v))) return NULL;
    int64_t x;
    int r;
    switch (which) {
    case A_STREAM: case A_CORR: case A_PEER: case A_RANK:
        if ((r = val_int(&v, &x)) < 0) return NULL;
        if (r) {
            int tk = which == A_STREAM ? TK_STREAM : which == A_CORR ? TK_CORR : which == A_PEER ? TK_PEER : TK_RANK;
            *tk_field(e, tk) = x;
            tpl_note(rec, v0, p, tk);
        } else {
            tpl_bad(rec);
        }
        return p;
    case A_NONE:
        if (v.kind == V_NUMBER) tpl_note(rec, v0, p, TK_SKIP);
        else tpl_bad(rec);
        return p;
    case A_NAME:
        if (v.kind == V_STRING && val_copy(&v, e->argname, sizeof e->argname) < 0) return NULL;
        break;
    case A_TASK:
        if (v.kind == V_STRING) { e->task = 1; e->task_cat = trace_fast_task_cat(v.s, v.n); }
        break;
    case A_PGNAME:
        if (v.kind == V_STRING && val_copy(&v, e->pgname, sizeof e->pgname) < 0) return NULL;
        break;
    case A_PGDESC:
        if (v.kind == V_STRING && val_copy(&v, e->pgdesc, sizeof e->pgdesc) < 0) return NULL;
        break;
    case A_PGRANKS:
        if (v.kind == V_STRING && v.n < sizeof e->pgranks && val_copy(&v, e->pgranks, sizeof e->pgranks) < 0) return NULL;
        break;
    case A_COLL:
        if (v.kind == V_STRING) e->p2p = v.esc ? 0 : IS(v.s, v.n, "send") ? 1 : IS(v.s, v.n, "recv") ? 2 : 0;
        break;
    default: break;
    }
    tpl_bad(rec);
    return p;
}

/* args' object at p ('{'): past its '}', or NULL.  A call of its own, its
 * members read inline in it (inlined into the event's reader instead, with
 * its member a call, the Kineto fixture rank3_of_8 took 2 % more). */
__attribute__((noinline)) static const char *read_args(const char *p, const char *end, struct trace_fast_ev *e, struct tpl_rec *rec) {
    unsigned seen = 0;
    int last = 0;
    p = json_scan_ws(p + 1, end);
    if (p >= end) return NULL;
    if (*p == '}') return p + 1;
    for (int at = 0;; at++) {
        if (!(p = args_member(p, end, e, &seen, at, rec)) || !(p = after_value(p, end, &last))) return NULL;
        if (last) return p + 1;
    }
}

/* One member of the event (parse_event of trace_parse.c), the at-th: past its value, or NULL. */
static const char *event_member(const char *p, const char *end, struct trace_fast_ev *e, unsigned *seen, int *frac, int at,
                                int *keyp, struct tpl_rec *rec) {
    struct val v;
    int key;
    if (!(p = member_key(&e->pev[at < TRACE_FAST_NPRED ? at : TRACE_FAST_NPRED - 1], p, end, event_key_of, &key))) return NULL;
    *keyp = key;
    if (key) {
        if (*seen & (1u << key)) return NULL;
        *seen |= 1u << key;
    }
    if (key == K_ARGS && *p == '{') return read_args(p, end, e, rec);
    const char *v0 = p;
#if JSON_SWAR
    if (key == K_TS || key == K_DUR) {   /* the usual shape straight to ns; any other read below */
        const char *q = time_member(p, end, e, key == K_TS, frac);
        if (q) {
            tpl_note(rec, v0, q, key == K_TS ? TK_TS : TK_DUR);
            return q;
        }
    }
#endif
    if (!(p = read_value(p, end, &v))) return NULL;
    if (v.kind == V_NESTED) {   /* not the scalar expected: stepped over */
        tpl_bad(rec);
        return p;
    }
    int r;
    switch (key) {
    case K_PH:
        if (v.kind == V_STRING && v.n) e->ph = v.s[0];
        break;
    case K_CAT:
        if (v.kind == V_STRING) e->cat = v.esc ? TRACE_FAST_CAT_OTHER : trace_fast_cat(v.s, v.n);
        break;
    case K_NAME:
        if (v.kind == V_STRING) {   /* kept where it is: most names are only looked up (trace_fast_ev_name copies it) */
            if (v.esc) return NULL;
            e->namep = v.s;
            e->namelen = v.n < sizeof e->name - 1 ? v.n : sizeof e->name - 1;   /* cut as val_copy cuts it */
        }
        break;
    case K_TS:
        if ((r = val_time(&v, &e->ts, &e->ts_d, frac)) < 0) return NULL;
        if (r) e->has_ts = 1;
        else e->bad_time = 1, *frac = 0;
        break;
    case K_DUR: {
        int f;
        if ((r = val_time(&v, &e->dur, &e->dur_d, &f)) < 0) return NULL;
        if (r) e->has_dur = 1;
        else e->bad_time = 1;
        break;
    }
    case K_PID:
    case K_TID: {
        int64_t x;
        if ((r = val_int(&v, &x)) < 0) return NULL;
        if (key == K_PID) e->pid = r ? x : -2;
        else e->tid = r ? x : -1;
        if (r) tpl_note(rec, v0, p, key == K_PID ? TK_PID : TK_TID);
        else tpl_bad(rec);
        return p;
    }
    case K_ID:
        if (v.kind == V_STRING || (v.kind == V_NUMBER)) e->has_id = !trace_fast_int64(v.s, v.n, &e->id);
        break;
    default:
        if (v.kind == V_NUMBER) {
            tpl_note(rec, v0, p, TK_SKIP);
            return p;
        }
        break;
    }
    tpl_bad(rec);
    return p;
}

/* ---- the rest of an event read by its template (trace_snap.h) ---- */

/* lit's n bytes at p (inside the buffer). */
FAST_INLINE int tpl_lit(const char *p, const char *lit, size_t n) {
    if (n >= 4) return eqn(p, lit, n);
    for (size_t i = 0; i < n; i++)
        if (p[i] != lit[i]) return 0;
    return 1;
}

/* The rest of the event at p (the quote snap_apply left it at) read by
 * sn's template: past it, at the event's '}', or NULL when its bytes or a
 * value differ (e then half set: the caller reads it again).  Each value
 * is read by the function the member's path reads it with, and the bytes
 * between are those of keys, ", " and '{' read before, so it sets what
 * event_member would. */
#if JSON_SWAR
static const char *tpl_apply(struct trace_fast_ev *e, const struct trace_fast_snap *sn, const char *p, const char *end, int *frac) {
    /* sn lies in e: its members copied out first, so that the stores into
     * e's fields do not make the compiler read them again each value */
    const char *restrict lit = sn->tb;
    const unsigned char *restrict tlit = sn->tlit, *restrict tkind = sn->tkind;
    unsigned nt = sn->nt;
    for (unsigned i = 0; i < nt; i++) {
        size_t n = tlit[i];
        if ((size_t)(end - p) <= n || !tpl_lit(p, lit, n)) return NULL;
        p += n;
        lit += n;
        int kind = tkind[i];
        if (kind == TK_TS || kind == TK_DUR) {
            const char *q = time_member(p, end, e, kind == TK_TS, frac);
            if (!q) return NULL;
            p = q;
            continue;
        }
        int64_t x;
        uint64_t ux;
        const char *q = int_fixed(p, end, &ux);   /* read_value's usual shape, which val_int gives as it is */
        if (q) {
            p = q;
            x = (int64_t)ux;
        } else {
            struct val v;
            if (!(p = read_value(p, end, &v)) || v.kind != V_NUMBER || (kind != TK_SKIP && val_int(&v, &x) != 1)) return NULL;
        }
        if (kind != TK_SKIP) *tk_field(e, kind) = x;
    }
    size_t n = sn->tend;
    if ((size_t)(end - p) < n || !tpl_lit(p, lit, n)) return NULL;
    return p + n - 1;
}
#endif


static int snap_key(int key) { return key == K_PH || key == K_CAT || key == K_NAME || key == K_PID || key == K_TID; }

int trace_fast_event(const char *p, const char *end, struct trace_fast_ev *e, const char **close, int *ts_frac) {
    unsigned seen = 0, cut_seen = 0;
    int last = 0, frac = 0;
    trace_fast_ev_reset(e);
    p = json_scan_ws(p, end);
    if (p >= end) return 0;
    if (*p != '}') {
        if (*p != '"') return 0;
        int at = 0, cut_at = 0, key;
        const char *start = p, *cut = NULL;
        struct trace_fast_snap *sn = snap_find(e, p, end);
        struct tpl_rec rec, *recp = NULL;   /* (not zeroed: 300 bytes an event; tpl_note sets an entry before it is read) */
        if (sn) {
            p = snap_apply(e, sn, p, &seen, &at);
#if JSON_SWAR
            if (sn->tend) {   /* the usual: the rest as the template has it */
                const char *q = tpl_apply(e, sn, p, end, &frac);
                if (q) {
                    *close = q;
                    *ts_frac = frac;
                    return 1;
                }
                trace_fast_ev_reset(e);   /* half set: read again member by member */
                frac = 0;
                p = snap_apply(e, sn, start, &seen, &at);
            }
#endif
            rec.last = p;
            rec.n = rec.bad = 0;
            rec.used = 0;
            recp = &rec;
        }
        int open = !sn;   /* the members so far could begin a snapshot */
        do {
            if (!(p = event_member(p, end, e, &seen, &frac, at++, &key, recp)) || !(p = after_value(p, end, &last))) return 0;
            if (open && !last && snap_key(key) && p - start < TRACE_FAST_SNAP) {
                cut = p;
                cut_seen = seen;
                cut_at = at;
            } else {
                open = 0;
                if (snap_key(key)) cut = NULL;   /* set after the cut: the event's values are not its beginning's */
            }
        } while (!last);
        if (cut) snap_keep(e, start, cut, cut_seen, cut_at);
        if (recp) tpl_keep(sn, recp, p);
    }
    *close = p;
    *ts_frac = frac;
    return 1;
}
