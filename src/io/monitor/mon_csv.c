/* mon_csv: in-place record splitting and the fast exact number path of the
 * monitor CSV readers (mon_csv.h). */
#include "src/io/monitor/mon_csv.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/names.h"

#include "src/io/common/decfloat.h"

#if defined(__x86_64__) && defined(__SSE2__) && defined(__GNUC__)
#define MON_CSV_HAVE_SSE2 1
#include <emmintrin.h>
#else
#define MON_CSV_HAVE_SSE2 0
#endif

int mon_csv_best(void) { return MON_CSV_HAVE_SSE2 ? MON_CSV_SSE2 : MON_CSV_PORTABLE; }

static int is_stop(char c) { return c == ',' || c == '\n' || c == '\r' || c == '"'; }

/* Bit i set when b[i] (i < 64) ends or quotes a field. */
static uint64_t stops_portable(const char *b) {
    uint64_t m = 0;
    for (int i = 0; i < 64; i++) m |= (uint64_t)is_stop(b[i]) << i;
    return m;
}

#if MON_CSV_HAVE_SSE2
/* Bit i set when b[i] (i < 16) is a stop. */
static inline unsigned stops16(const char *b) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)b);
    __m128i e = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
                             _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(x, _mm_set1_epi8('"'))));
    return (unsigned)_mm_movemask_epi8(e);
}

/* The four 16-byte blocks written out (no loop to count). */
static inline uint64_t stops_sse2(const char *b) {
    return (uint64_t)stops16(b) | (uint64_t)stops16(b + 16) << 16 | (uint64_t)stops16(b + 32) << 32 |
           (uint64_t)stops16(b + 48) << 48;
}
#endif

/* The stops of the 64 bytes at base (fewer before end: the rest is none). */
static inline uint64_t load_block(const struct mon_csv *sc, const char *base) {
    if (__builtin_expect(sc->end - base < 64, 0)) {
        char tail[64];
        memset(tail, 0, sizeof tail);
        memcpy(tail, base, (size_t)(sc->end - base));
#if MON_CSV_HAVE_SSE2
        if (sc->scan == MON_CSV_SSE2) return stops_sse2(tail);
#endif
        return stops_portable(tail);
    }
#if MON_CSV_HAVE_SSE2
    if (sc->scan == MON_CSV_SSE2) return stops_sse2(base);
#endif
    return stops_portable(base);
}

/* The first stop at or after p, or end, from the next blocks (p is past
 * the block's stops, or outside it). */
static char *next_stop_load(struct mon_csv *sc, char *p) {
    if (p < sc->base || p >= sc->base + 64) {
        if (p >= sc->end) return sc->end;
        sc->base = p;
        sc->mask = load_block(sc, p);
        if (sc->mask) return p + __builtin_ctzll(sc->mask);
    }
    for (;;) {
        p = (char *)sc->base + 64;
        if (p >= sc->end) return sc->end;
        sc->base = p;
        sc->mask = load_block(sc, p);
        if (sc->mask) return p + __builtin_ctzll(sc->mask);
    }
}

/* The first stop at or after p, or end: most from the block at hand. */
static inline char *next_stop(struct mon_csv *sc, char *p) {
    size_t o = (size_t)(p - sc->base);
    if (o < 64) {
        uint64_t m = sc->mask & (~0ull << o);
        if (m) return (char *)sc->base + __builtin_ctzll(m);
    }
    return next_stop_load(sc, p);
}

void mon_csv_init(struct mon_csv *sc, char *buf, size_t len, int scan) {
    sc->p = buf;
    sc->end = buf + len;
    sc->base = buf + len;   /* no block yet: every p < end is outside it */
    sc->mask = 0;
    sc->scan = scan;
}

int mon_csv_record(struct mon_csv *sc, char **f, size_t *fl, int maxf) {
    char *p = sc->p, *end = sc->end;
    int nf = 0;
    {   /* most records: unquoted fields, each ended by the next stop, taken
         * straight from the block's mask (m: the stops from p on, in a
         * register; sc->base and sc->mask as next_stop keeps them).  A
         * field that starts with or holds a '"', or runs to the end, is
         * left to the general loop below, from its start. */
        const char *base = sc->base;
        size_t o = (size_t)(p - base);
        uint64_t m = o < 64 ? sc->mask & (~0ull << o) : 0;
        for (;;) {   /* p at end: no stop from it on (q = end); a field opening with '"': q = p */
            char *q;
            if (m) {
                q = (char *)base + __builtin_ctzll(m);
            } else {
                q = next_stop_load(sc, p);
                if (q >= end) break;
                base = sc->base;
                m = sc->mask & (~0ull << (q - base));
            }
            char c = *q;
            if (c == '"') break;
            m &= m - 1;
            if (nf < maxf) {
                f[nf] = p;
                fl[nf] = (size_t)(q - p);
            }
            *q = '\0';
            nf++;
            p = q + 1;
            if (c == ',') continue;
            if (c == '\r' && p < end && *p == '\n') p++;   /* "\r\n" (a lone '\r' ends it too) */
            sc->p = p;
            return nf;
        }
    }
    for (;;) {
        char *start = p, *w = p, *q;
        char term;
        if (p < end && *p == '"') {   /* the quoted part: stops other than '"' are its text */
            char *seg = ++p;
            for (;;) {
                q = next_stop(sc, p);
                if (q >= end) return -1;
                if (*q != '"') { p = q + 1; continue; }
                if (w == start && (q + 1 >= end || q[1] == ',' || q[1] == '\n' || q[1] == '\r')) {
                    /* the whole field quoted, no "" in it (a shape "[1, 4096]"):
                     * its text where it lies, NUL-terminated over the closing quote */
                    term = q + 1 < end ? q[1] : '\0';
                    if (nf < maxf) {
                        f[nf] = seg;
                        fl[nf] = (size_t)(q - seg);
                    }
                    *q = '\0';
                    nf++;
                    p = q + 1;
                    goto ended;
                }
                memmove(w, seg, (size_t)(q - seg));
                w += q - seg;
                if (q + 1 < end && q[1] == '"') {
                    *w++ = '"';
                    p = seg = q + 2;
                    continue;
                }
                p = q + 1;
                break;
            }
        }
        char *seg = p;   /* the unquoted run: to ',', '\n' or '\r' (a '"' in it is text) */
        for (;;) {
            q = next_stop(sc, p);
            if (q < end && *q == '"') { p = q + 1; continue; }
            break;
        }
        term = q < end ? *q : '\0';
        if (w != seg) memmove(w, seg, (size_t)(q - seg));
        w += q - seg;
        if (nf < maxf) {
            f[nf] = start;
            fl[nf] = (size_t)(w - start);
        }
        *w = '\0';   /* at most at q: its byte is in term */
        nf++;
        p = q;
    ended:   /* p at the field's end (term's byte) */
        if (term == ',') { p++; continue; }
        if (term == '\r') {   /* "\r\n" or a lone '\r' (q + 1 is not written yet) */
            p++;
            if (p < end && *p == '\n') p++;
        } else if (term == '\n') p++;
        break;
    }
    sc->p = p;
    return nf;
}

/* The field of line ending at i (a ',' or the end) from *start. */
static inline void split_field(char *line, size_t *start, size_t i, char **f, size_t *len, int max, int *nf) {
    if (*nf < max) {
        f[*nf] = line + *start;
        len[*nf] = i - *start;
    }
    ++*nf;
    *start = i + 1;
}

int mon_csv_split(char *line, size_t n, char **f, size_t *len, int max, int scan) {
    size_t start = 0, o = 0;
    int nf = 0;
    (void)scan;
#if MON_CSV_HAVE_SSE2
    if (scan == MON_CSV_SSE2) {
        const __m128i comma = _mm_set1_epi8(','), zero = _mm_setzero_si128();
        for (; o <= n; o += 16) {
            char tail[16];
            const char *b = line + o;
            if (n + 1 - o < 16) {   /* the last bytes, up to the NUL at n: the rest none */
                memset(tail, 0, sizeof tail);
                memcpy(tail, b, n + 1 - o);
                b = tail;
            }
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)b);
            unsigned c = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, comma));
            unsigned z = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, zero));
            if (z) c &= (z & -z) - 1;   /* the commas before the first NUL */
            for (; c; c &= c - 1) {
                size_t i = o + (size_t)__builtin_ctz(c);
                line[i] = '\0';
                split_field(line, &start, i, f, len, max, &nf);
            }
            if (z) {
                split_field(line, &start, o + (size_t)__builtin_ctz(z), f, len, max, &nf);
                return nf;
            }
        }
    }
#endif
    for (size_t i = o;; i++) {   /* o: 0 (SSE2 always returns above) */
        if (line[i] == ',') {
            line[i] = '\0';
            split_field(line, &start, i, f, len, max, &nf);
        } else if (!line[i]) {
            split_field(line, &start, i, f, len, max, &nf);
            return nf;
        }
    }
}

/* The decimal digits starting at p, 8 bytes at a time (SWAR): with at
 * least 8 bytes before e, how many of the first 8 are digits (k) and
 * their value into *val; -1 when fewer than 8 bytes remain (the byte loop
 * reads them).  A byte is no digit when adding 0x46 or taking 0x30 from
 * it sets its top bit; a carry or borrow only reaches the bytes after the
 * first such byte, which are dropped. */
static inline int digits8(const char *p, const char *e, uint64_t *val) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (e - p < 8) return -1;
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t bad = ((x + 0x4646464646464646ull) | (x - 0x3030303030303030ull)) & 0x8080808080808080ull;
    int k = bad ? __builtin_ctzll(bad) >> 3 : 8;
    if (!k) { *val = 0; return 0; }
    if (k < 8) x <<= 8 * (8 - k);   /* the digits to the top: the bytes after them out, zeros (leading) in */
    x = (x & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    x = (x & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    *val = (x & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
    return k;
#else
    (void)p, (void)e, (void)val;
    return -1;
#endif
}

static const uint64_t pow10_8[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* mon_csv_number; swar: a long fraction's digits 8 at a time (digits8),
 * the rest byte by byte (w the same modulo 2^64 either way: it has
 * wrapped only past 19 digits, which go to the general path); z: s[n] is
 * a NUL (the splitter's), which ends every run of digits, zeros, sign or
 * exponent by itself, so the loops test no bound (IN: before the end). */
#define IN(p) (z || (p) < e)
/* endp: the number ends where its bytes do (*endp: there) instead of at
 * s + n (z only: n then bounds no more than digits8's reads). */
__attribute__((always_inline)) static inline int number(const char *s, size_t n, double *v, int swar, int z,
                                                        const char **endp) {
    const char *p = s, *e = s + n;
    int neg = 0;
    if (IN(p) && *p == '-') neg = 1, p++;
    if (!IN(p) || (unsigned)(*p - '0') > 9) return 0;   /* a digit first, as the callers' general path wants */
    uint64_t w = 0, d8;
    ptrdiff_t nd, q = 0;   /* the digits' and the exponent's counts from pointers, after each loop: */
    int k;                 /* a loop step is then a digit's value only (v1's cells are short numbers) */
    while (IN(p) && *p == '0') p++;   /* leading zeros say nothing */
    const char *d0 = p;
    for (; IN(p) && (unsigned)(*p - '0') <= 9; p++) w = w * 10 + (uint64_t)(*p - '0');
    nd = p - d0;
    if (IN(p) && *p == '.') {
        d0 = ++p;
        if (!w)
            while (IN(p) && *p == '0') p++;
        q = d0 - p;
        while (swar && (k = digits8(p, e, &d8)) > 0) {
            w = w * pow10_8[k] + d8, p += k, nd += k, q -= k;
            if (k < 8) break;
        }
        d0 = p;
        for (; IN(p) && (unsigned)(*p - '0') <= 9; p++) w = w * 10 + (uint64_t)(*p - '0');
        nd += p - d0;
        q -= p - d0;
    }
    if (nd > 19) return 0;   /* truncated: the general path (w has wrapped) */
    if (IN(p) && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0, ex = 0, k = 0;
        if (IN(p) && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        for (; IN(p) && (unsigned)(*p - '0') <= 9 && k < 5; p++, k++) ex = ex * 10 + (*p - '0');
        if (!k || k == 5) return 0;   /* "1e" is no number here; a long exponent is the general path's */
        q += eneg ? -ex : ex;
    }
    if (endp) *endp = p;
    else if (p != e) return 0;
    if (!w) {
        *v = neg ? -0.0 : 0.0;
        return 1;
    }
    return q >= -340 && q <= 320 && decfloat_to_double(w, (int)q, neg, 0, v);
}
#undef IN

/* Python's repr of a double (monitor_v2's cells: "221.2851248439928"),
 * out of line: the short numbers of v1 ("0.006866") keep their tight
 * byte loop. */
__attribute__((noinline)) static int number_long(const char *s, size_t n, double *v) { return number(s, n, v, 1, 0, NULL); }

int mon_csv_number(const char *s, size_t n, double *v) { return n >= 12 ? number_long(s, n, v) : number(s, n, v, 0, 0, NULL); }

__attribute__((noinline)) static int number_long_z(const char *s, size_t n, double *v) { return number(s, n, v, 1, 1, NULL); }

int mon_csv_number_z(const char *s, size_t n, double *v) {
    if (s[n]) return mon_csv_number(s, n, v);   /* no NUL after it: the bounded loops */
    return n >= 12 ? number_long_z(s, n, v) : number(s, n, v, 0, 1, NULL);
}

/* The first stop at or after p, or end, for mon_csv_fast: 16 bytes at a
 * time from p (SSE2), as a text cell is short and the numbers between
 * need no scan (next_stop's 64-byte blocks would cover them); sc's block
 * is left as it was. */
static inline char *fast_stop(const struct mon_csv *sc, char *p) {
#if MON_CSV_HAVE_SSE2
    if (sc->scan == MON_CSV_SSE2)
        for (; sc->end - p >= 16; p += 16) {
            unsigned m = stops16(p);
            if (m) return p + __builtin_ctz(m);
        }
#endif
    while (p < sc->end && !is_stop(*p)) p++;
    return p;
}

/* The first '"' at or after p, or end (a quoted cell's end: its other
 * stops are its text). */
static inline char *fast_quote(const struct mon_csv *sc, char *p) {
#if MON_CSV_HAVE_SSE2
    if (sc->scan == MON_CSV_SSE2)
        for (; sc->end - p >= 16; p += 16) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')));
            if (m) return p + __builtin_ctz(m);
        }
#endif
    while (p < sc->end && *p != '"') p++;
    return p;
}

/* mon_csv_fast and mon_csv_fast_v2: v2 reads numbers' fractions 8
 * digits at a time, refuses quoted cells and sets a NAN cell's n. */
__attribute__((always_inline)) static inline int fast_record(struct mon_csv *sc, const uint8_t *kind, int ncols,
                                                             struct mon_csv_cell *cell, int v2) {
    char *p = sc->p;
    for (int c = 0; c < ncols; c++) {
        char *q;
        struct mon_csv_cell *o = &cell[c];
        unsigned k = kind[c];
        if (k == MON_CSV_NUM) {   /* the splitter's cell ends at the number's end (no stop in one) */
            const char *e;
            if (!v2 && sc->end - p >= 4 && !memcmp(p, "0.0,", 4)) {   /* a fifth of v1's cells: number()'s +0.0, one compare */
                o->d = 0.0;
                q = p + 3;
            } else if (!v2 && *p == '-' && sc->end - p >= 5 && !memcmp(p + 1, "0.0,", 4)) {   /* a mean's "-0.0": number()'s -0.0 */
                o->d = -0.0;
                q = p + 4;
            } else if (number(p, (size_t)(sc->end - p), &o->d, v2, 1, &e)) {
                if (e - p > 64) return 0;
                q = (char *)e;
            } else if (p[0] == 'n' && p[1] == 'a' && p[2] == 'n') {   /* stat_cell's commonest NA tokens: NaN */
                o->d = NAN;
                if (v2) o->n = 3;
                q = p + 3;
            } else if ((unsigned)(p[*p == '-'] - '0') <= 9) {   /* a long or undecided number: decfloat_parse, as the plain path's */
                q = fast_stop(sc, p);
                if (q - p > 64 || decfloat_parse(p, q, &o->d) != q) return 0;
            } else {
                o->d = NAN;
                if (v2) o->n = 0;
                q = p;   /* empty, or no number: then no ',' or line end at q */
            }
        } else if (k == MON_CSV_INT) {   /* monitor_int_cell_n's own case: 1 to 9 digits */
            uint32_t v = 0;   /* every digit read (the NUL at end stops them), their count tested after */
            for (q = p; (unsigned)(*q - '0') <= 9; q++) v = v * 10 + (uint32_t)(*q - '0');
            if (q == p || q - p > 9) return 0;   /* none, or a tenth digit */
            o->i = (int32_t)v;
        } else if (*p == '"') {   /* whole quoted, no "" (a following '"' is no ',' below) */
            if (v2) return 0;
            q = fast_quote(sc, p + 1);
            if (q >= sc->end) return 0;
            o->s = p + 1;
            o->n = (size_t)(q - p - 1);
            q++;
        } else {
            q = fast_stop(sc, p);
            if (q >= sc->end || *q == '"') return 0;
            o->s = p;
            o->n = (size_t)(q - p);
        }
        if (*q != ',') {   /* the record's end, or another byte (at end: its NUL) */
            if (c + 1 < ncols) return 0;
            q += *q == '\r' && q[1] == '\n';   /* "\r\n": q < end, so q[1] is at most the NUL at end */
            if (*q != '\n') return 0;
            sc->p = q + 1;
            return 1;
        }
        p = q + 1;
    }
    return 0;   /* a field more */
}

int mon_csv_fast(struct mon_csv *sc, const uint8_t *kind, int ncols, struct mon_csv_cell *cell) {
    return fast_record(sc, kind, ncols, cell, 0);
}

int mon_csv_fast_v2(struct mon_csv *sc, const uint8_t *kind, int ncols, struct mon_csv_cell *cell) {
    return fast_record(sc, kind, ncols, cell, 1);
}

uint32_t mon_csv_intern(struct mon_csv_names *c, struct names *pool, const char *s, size_t n) {
    uint32_t id = NAMES_NONE;
    if (c->prev < c->cap && c->next[c->prev] != NAMES_NONE) {
        uint32_t g = c->next[c->prev];
        const struct target *t = names_target(pool, g);
        if (t->len == n && !t->vpp && !t->call && !memcmp(names_str(pool, g), s, n)) id = g;
    }
    if (id == NAMES_NONE && (id = names_intern(pool, s, n, 0, 0)) == NAMES_NONE) return NAMES_NONE;
    if (id >= c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap <= id) cap *= 2;
        uint32_t *nx = realloc(c->next, cap * sizeof *nx);
        if (!nx) return NAMES_NONE;
        for (size_t i = c->cap; i < cap; i++) nx[i] = NAMES_NONE;
        c->next = nx;
        c->cap = cap;
    }
    if (c->prev < c->cap) c->next[c->prev] = id;
    c->prev = id;
    return id;
}

void mon_csv_names_free(struct mon_csv_names *c) {
    free(c->next);
    c->next = NULL;
    c->cap = 0;
    c->prev = NAMES_NONE;
}

static size_t count_slot(const struct mon_csv_counts *c, uint64_t a, uint64_t b) {
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 31;
    size_t i = (size_t)h & (c->cap - 1);
    while (c->keys[2 * i] != UINT64_MAX && (c->keys[2 * i] != a || c->keys[2 * i + 1] != b)) i = (i + 1) & (c->cap - 1);
    return i;
}

int32_t *mon_csv_count(struct mon_csv_counts *c, uint64_t a, uint64_t b) {
    if (2 * (c->n + 1) > c->cap) {   /* at most half full */
        struct mon_csv_counts g = {.cap = c->cap ? 2 * c->cap : 256};
        g.keys = malloc(2 * g.cap * sizeof *g.keys);
        g.vals = malloc(g.cap * sizeof *g.vals);
        if (!g.keys || !g.vals) {
            free(g.keys);
            free(g.vals);
            return NULL;
        }
        memset(g.keys, 0xff, 2 * g.cap * sizeof *g.keys);
        for (size_t i = 0; i < c->cap; i++) {
            if (c->keys[2 * i] == UINT64_MAX) continue;
            size_t j = count_slot(&g, c->keys[2 * i], c->keys[2 * i + 1]);
            g.keys[2 * j] = c->keys[2 * i];
            g.keys[2 * j + 1] = c->keys[2 * i + 1];
            g.vals[j] = c->vals[i];
        }
        g.n = c->n;
        mon_csv_counts_free(c);
        *c = g;
    }
    size_t i = count_slot(c, a, b);
    if (c->keys[2 * i] == UINT64_MAX) {
        c->keys[2 * i] = a;
        c->keys[2 * i + 1] = b;
        c->vals[i] = -1;
        c->n++;
    }
    return &c->vals[i];
}

void mon_csv_counts_free(struct mon_csv_counts *c) {
    free(c->keys);
    free(c->vals);
    memset(c, 0, sizeof *c);
}
