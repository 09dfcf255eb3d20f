/* parse_dump_elem: a record's tensor objects read from their bytes
 * (parse_dump_elem.h).  A tensor object of a dump.json is a handful of
 * short members ("type", "dtype", "shape", "Max", "Min", "Mean", "Norm",
 * "requires_grad") on lines of their own; read token by token it costs a
 * call, a state dispatch and a store of the token per key and per value,
 * most of a dump's parse.  Here a member is read in one step: the key
 * compared where it lies, the value read by its first byte.  Anything
 * else (an escape, a nested object, a string as a statistic, a long
 * number, the buffer's end near) leaves the whole object to the tokens,
 * from its '{', so that every message, value and flag is theirs; the
 * results are the same (tests/pt_dumpfast.h compares them, in
 * test_dump_fast and fuzz_dumpfast). */
#include "src/io/dump/parse_dump_elem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json_num.h"
#include "src/io/common/json_scan.h"
#include "src/io/dump/lit_eq.h"

static int tensor_type_usable(const char *t, size_t n) {
    return (n == 12 && !memcmp(t, "torch.Tensor", 12)) || (n == 16 && !memcmp(t, "mindspore.Tensor", 16)) ||
           (n == 16 && !memcmp(t, "mindtorch.Tensor", 16));
}

static int dtype_usable(const char *d, size_t n) {
    switch (n) {
    case 7: return !memcmp(d, "Float16", 7) || !memcmp(d, "Float32", 7);
    case 8: return !memcmp(d, "BFloat16", 8);
    case 13: return !memcmp(d, "torch.float16", 13) || !memcmp(d, "torch.float32", 13);
    case 14: return !memcmp(d, "torch.bfloat16", 14);
    default: return 0;
    }
}

void parse_dump_elem_finish(struct elem *e, const char *type, size_t tl, const char *dtype, size_t dl, double norm,
                            int norm_num, int type_str, int dtype_str, int mm_nonfinite) {
    e->o.is_torch_tensor = tl == 12 && !memcmp(type, "torch.Tensor", 12);
    if (e->o.is_torch_tensor && norm_num && !isnan(norm)) {
        e->o.has_norm = 1;
        e->o.norm = norm;
    }
    e->usable = tensor_type_usable(type, tl) && dtype_usable(dtype, dl);
    /* origin_flags_nonfinite: a leaf (a string type) whose Max or Min came
     * from the dump (a dtype of its own, not the type and not a class) */
    e->nonfinite = mm_nonfinite && type_str && dtype_str && !(dl >= 8 && !memcmp(dtype, "<class '", 8)) &&
                   !(dl == tl && !memcmp(dtype, type, dl));
}

int parse_dump_elem_on(void) {
    const char *v = getenv("PROBETOP_DUMP_FAST");
    return !(v && !strcmp(v, "0"));
}

#if JSON_HAVE_SSE2
/* Bytes that must stay readable past the start of a member: its key, the
 * white space around it and a number's 64 (json_lex_number_fast). */
#define ROOM 192

/* A number starts at p: a digit, or a '-' not of "-Infinity" (the lexer's
 * own token, read by the general path). */
static inline int num_at(const char *p) { return (unsigned)(*p - '0') <= 9 || (*p == '-' && p[1] != 'I'); }

/* A literal or number value at p: its end and *tok (JT_NUMBER with *v, or
 * JT_TRUE, JT_FALSE, JT_NULL); NULL for anything else. */
static inline const char *scalar(const struct json_lex *lx, const char *p, enum json_tok *tok, double *v) {
    *tok = JT_NUMBER;
    if (num_at(p)) return json_lex_number_fast(lx, p, v);   /* most */
    switch (*p) {
    case 't': *tok = JT_TRUE; return memcmp(p, "true", 4) ? NULL : p + 4;
    case 'f': *tok = JT_FALSE; return memcmp(p, "false", 5) ? NULL : p + 5;
    case 'n': *tok = JT_NULL; return memcmp(p, "null", 4) ? NULL : p + 4;
    case 'N': *tok = JT_NUMBER; *v = NAN; return memcmp(p, "NaN", 3) ? NULL : p + 3;
    case 'I': *tok = JT_NUMBER; *v = INFINITY; return memcmp(p, "Infinity", 8) ? NULL : p + 8;
    case '-':
        if (!memcmp(p, "-Infinity", 9)) { *tok = JT_NUMBER; *v = -INFINITY; return p + 9; }
        /* fall through */
    default:
        *tok = JT_NUMBER;
        return (unsigned)(*p - '0') <= 9 || *p == '-' ? json_lex_number_fast(lx, p, v) : NULL;
    }
}

/* The members' keys parse_elem tells apart. */
enum { K_OTHER = -1, K_NORM, K_MAX, K_MIN, K_MEAN, K_TYPE = 10, K_DTYPE, K_NAMING };

static inline int key_of(const char *k, size_t n) {
    switch (n) {
    case 3: return !memcmp(k, "Max", 3) ? K_MAX : !memcmp(k, "Min", 3) ? K_MIN : K_OTHER;
    case 4: return !memcmp(k, "type", 4) ? K_TYPE : !memcmp(k, "Norm", 4) ? K_NORM : !memcmp(k, "Mean", 4) ? K_MEAN : K_OTHER;
    case 5: return !memcmp(k, "dtype", 5) ? K_DTYPE : K_OTHER;
    case 9: return !memcmp(k, "data_name", 9) ? K_NAMING : K_OTHER;
    case 10: return !memcmp(k, "class_type", 10) ? K_NAMING : K_OTHER;
    default: return K_OTHER;
    }
}

/* The member key at p (its opening quote, with at least 16 bytes readable)
 * when it is one of a tensor object's usual keys written plainly, its
 * closing quote followed by ':': its kind (key_of's), with *colon at the
 * ':'.  Else K_NAMING + 1 (unknown here: the key is read by its bytes).
 * The result is the one json_scan_str_end and key_of give, as neither
 * the quote nor the colon can be inside a plain key. */
#define K_UNSURE (K_NAMING + 1)
static inline int key_word(const char *p, const char **colon) {
    /* memcmp of a constant length: the compiler compares words, on any byte order */
#define KEY_IS(lit) (!memcmp(p, lit, sizeof lit - 1) && (*colon = p + sizeof lit - 2))
    switch (p[1]) {
    case 't': if (KEY_IS("\"type\":")) return K_TYPE; break;
    case 'd': if (KEY_IS("\"dtype\":")) return K_DTYPE; break;
    case 's': if (KEY_IS("\"shape\":")) return K_OTHER; break;
    case 'M':
        if (KEY_IS("\"Max\":")) return K_MAX;
        if (KEY_IS("\"Min\":")) return K_MIN;
        if (KEY_IS("\"Mean\":")) return K_MEAN;
        break;
    case 'N': if (KEY_IS("\"Norm\":")) return K_NORM; break;
    case 'r': if (KEY_IS("\"requires_grad\":")) return K_OTHER; break;
    default: break;
    }
#undef KEY_IS
    return K_UNSURE;
}

/* What the members read so far make of the object: parse_elem's locals. */
struct fe {
    struct elem *e;
    const char *type, *dtype;   /* in the buffer, cut as parse_elem's buffers cut them */
    size_t tl, dl;
    double norm;
    int norm_num, type_str, dtype_str, mm_nonfinite;
    unsigned seen;
    uint8_t rr, other;             /* other: a key not among a tensor's usual ones */
};

static inline void fe_start(struct fe *f, struct elem *e) {
    memset(e, 0, sizeof *e);
    e->o.norm = NAN;
    *f = (struct fe){.e = e, .type = "", .dtype = "", .norm = NAN};
}

/* A member of kind which is met (before its value is read). */
static inline void fe_member(struct fe *f, int which) {
    unsigned bit = which == K_TYPE ? 1 : which == K_DTYPE ? 2 : which == K_MAX ? 4 : which == K_MIN ? 8 : 0;
    if (f->seen & bit) f->rr = 1;   /* Python keeps the last, this pass every one */
    f->seen |= bit;
}

/* Its value, a string s[0, n) without escapes: 0 when the tokens must read it. */
static inline int fe_string(struct fe *f, int which, const char *s, size_t n) {
    if (which >= K_TYPE) {
        /* parse_elem's buffers: 64 bytes for the type, 40 for the dtype */
        size_t cp = which == K_TYPE ? 64 : 40;
        if (n > cp - 1) n = cp - 1;   /* json_lex_string's cut */
        if (n >= cp - 1) f->rr = 1;   /* cut: compared whole there */
        if (which == K_TYPE) f->type = s, f->tl = n, f->type_str = 1;
        else f->dtype = s, f->dl = n, f->dtype_str = n > 0;   /* an empty dtype is none there */
        return 1;
    }
    return which == K_OTHER;   /* a statistic as a string: the tokens' */
}

/* Its value, a literal or number t (v). */
static inline void fe_scalar(struct fe *f, int which, enum json_tok t, double v) {
    struct elem *e = f->e;
    if (which >= K_TYPE) {
        if (which == K_DTYPE && t != JT_NULL) f->rr = 1;   /* a dtype not a string */
    } else if (which != K_OTHER && t != JT_NULL) {   /* parse_stat */
        int stat_nonfinite = t == JT_NUMBER && !isfinite(v);
        e->v[which] = t == JT_NUMBER ? v : t == JT_TRUE;
        if ((which == K_MAX || which == K_MIN) && stat_nonfinite) f->mm_nonfinite = 1;
        e->present |= (uint8_t)(1u << which);
        if (which == K_NORM) f->norm_num = t == JT_NUMBER;
        else if (stat_nonfinite && !e->o.anomalous) {
            static const char *const sn[4] = {"Norm", "Max", "Min", "Mean"};
            e->o.anomalous = e->o.plain_anomalous = 1;
            ovf_what(e->o.what, sizeof e->o.what, sn[which], v);
        }
    } else if (which == K_NORM)
        f->norm_num = 0;
    if (which == K_NORM) f->norm = e->v[0];
}

static inline void fe_finish(struct fe *f) {
    struct elem *e = f->e;
    parse_dump_elem_finish(e, f->type, f->tl, f->dtype, f->dl, f->norm, f->norm_num, f->type_str, f->dtype_str,
                           f->mm_nonfinite);
    e->fast = 1;
    e->plain = !f->other && f->type_str && !(f->tl == 3 && !memcmp(f->type, "int", 3));
}

/* ---- skeletons (struct elem_tmpl, parse_dump_elem.h) ----
 * A skeleton is an object's bytes less its values: a literal (white space,
 * commas, keys, colons, a string's opening quote, an array's '[') before
 * each value, then the last one up to the '}'.  An object whose bytes
 * match it literal by literal, each value read as its slot says, gives
 * what the member loop gives: the loop would have read the same keys and
 * the same white space, and every value goes through the same fe_ calls.
 * Any mismatch drops what was read and the loop starts over. */
enum { V_STR, V_ARR, V_SCALAR, V_STAT };   /* V_STAT: a scalar at a statistic */
#define LIT_MAX 112   /* so that a literal and the value after it stay within ROOM */

/* The number at p (a statistic's slot, 32 bytes readable) read as
 * json_num_fast reads it, or taken from c's entry when its bytes are the
 * same up to the byte that ended it then: json_num_fast's result (the
 * value and the end) depends on those bytes alone, as it stops at the
 * first byte that is not part of the number and looks no further when
 * that byte is white space or ',', '}', ']'.  Only such ends are kept. */
static inline const char *num_cached(const struct json_lex *lx, struct elem_num *c, const char *p, double *v) {
    uint64_t lo, hi;
    memcpy(&lo, p, 8);
    memcpy(&hi, p + 8, 8);
    struct elem_num *x = &c[((lo * 0x9e3779b97f4a7c15ull) ^ (hi * 0xc2b2ae3d27d4eb4full)) >> (64 - ELEM_NUM_BITS)];
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, _mm_loadu_si128((const __m128i *)(const void *)x->t))) |
                 (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_loadu_si128((const __m128i *)(const void *)(x->t + 16)))) << 16;
    if (x->n && !(~m & (uint32_t)(((uint64_t)1 << x->n) - 1))) {
        *v = x->v;
        return p + x->n - 1;
    }
    const char *q = json_num_fast(lx, p, v);
    if (q && q - p < 32) {
        unsigned char z = (unsigned char)*q;
        if (z <= ' ' || z == ',' || z == '}' || z == ']') {
            _mm_storeu_si128((__m128i *)(void *)x->t, a);
            _mm_storeu_si128((__m128i *)(void *)(x->t + 16), b);
            x->v = *v;
            x->n = (uint8_t)(q - p + 1);
        }
    }
    return q;
}

/* The object at p (just past its '{') read by skeleton k: its '}', or NULL
 * (f then holds a partial read when *dirty); nc: the parse's numbers read
 * before (elem_tmpl's num). */
static const char *tmpl_read(const struct json_lex *lx, const struct elem_tmpl_one *k, struct fe *f, const char *p,
                             const char *end, int *dirty, struct elem_num *nc) {
    const char *lim = end - ROOM, *q;
    int esc = 0;
    for (unsigned i = 0;; i++) {
        const struct elem_tmpl_slot *s = &k->s[i];
        if (p >= lim || !lit_eq(p, k->lit + s->off, s->len, s->tail)) return NULL;
        p += s->len;
        *dirty = 1;
        if (i == k->n) {
            f->rr |= k->dup;
            f->other = k->other;
            /* the type and dtype the literals held (fe_string's, uncut) */
            if (k->has & 1) f->type = k->lit + k->type_off, f->tl = k->tl, f->type_str = 1;
            if (k->has & 2) f->dtype = k->lit + k->dtype_off, f->dl = k->dl, f->dtype_str = k->dl > 0;
            return p - 1;
        }
        switch (s->kind) {
        case V_STR:
            if (!(q = json_scan_str_end(p, end, &esc)) || esc || q >= lim || !fe_string(f, s->which, p, (size_t)(q - p)))
                return NULL;
            p = q + 1;
            break;
        case V_ARR:
            q = json_scan_skip_sse2(p, end);
            if (q >= lim || *q != ']') return NULL;
            p = q + 1;
            break;
        case V_STAT:   /* a finite number (json_num.h, inline here): fe_scalar's stores without its tests */
            if (num_at(p)) {
                double v;
                if (!(q = num_cached(lx, nc, p, &v))) return NULL;
                if (isfinite(v)) {
                    f->e->v[s->which] = v;
                    f->e->present |= (uint8_t)(1u << s->which);
                    if (s->which == K_NORM) f->norm_num = 1, f->norm = v;
                } else
                    fe_scalar(f, s->which, JT_NUMBER, v);
                p = q;
                break;
            }
            /* fall through */
        default: {
            enum json_tok t;
            double v = 0;
            if (!(q = scalar(lx, p, &t, &v))) return NULL;
            fe_scalar(f, s->which, t, v);
            p = q;
        }
        }
    }
}

/* A skeleton holding both the type and the dtype: fe_finish's results
 * that depend on them alone, worked out once (tmpl_learn). */
enum { FIN_TORCH = 1, FIN_USABLE = 2, FIN_NONFINITE = 4, FIN_PLAIN = 8 };

static void tmpl_fin(struct elem_tmpl_one *k) {
    struct elem e;
    struct fe f;
    fe_start(&f, &e);
    f.type = k->lit + k->type_off, f.tl = k->tl, f.type_str = 1;
    f.dtype = k->lit + k->dtype_off, f.dl = k->dl, f.dtype_str = k->dl > 0;
    f.other = k->other;
    f.mm_nonfinite = 1;
    fe_finish(&f);
    k->fin = (uint8_t)((e.o.is_torch_tensor ? FIN_TORCH : 0) | (e.usable ? FIN_USABLE : 0) |
                       (e.nonfinite ? FIN_NONFINITE : 0) | (e.plain ? FIN_PLAIN : 0));
}

/* fe_finish for an object read by k, which holds both */
static inline void tmpl_finish(const struct elem_tmpl_one *k, struct fe *f) {
    struct elem *e = f->e;
    e->o.is_torch_tensor = k->fin & FIN_TORCH;
    if ((k->fin & FIN_TORCH) && f->norm_num && !isnan(f->norm)) {
        e->o.has_norm = 1;
        e->o.norm = f->norm;
    }
    e->usable = !!(k->fin & FIN_USABLE);
    e->nonfinite = f->mm_nonfinite && (k->fin & FIN_NONFINITE);
    e->fast = 1;
    e->plain = !!(k->fin & FIN_PLAIN);
}

/* The members' places as the loop read them, to learn a skeleton from. */
struct seen_at {
    unsigned n;
    int ok;                        /* no key the skeleton cannot say (data_name, class_type) */
    int other;                     /* a key not among a tensor's usual ones */
    const char *v0[ELEM_TMPL_SLOTS], *v1[ELEM_TMPL_SLOTS];   /* a value's slot: from, to */
    uint8_t kind[ELEM_TMPL_SLOTS];
    int8_t which[ELEM_TMPL_SLOTS];
};

/* Value i of a as part of the literals (fold): a type or dtype string
 * fe_string takes uncut, or true, false or null at a key fe_scalar does
 * nothing with (requires_grad). */
static int tmpl_folds(const struct seen_at *a, unsigned i) {
    if (a->kind[i] == V_SCALAR) return a->which[i] == K_OTHER && (*a->v0[i] == 't' || *a->v0[i] == 'f' || *a->v0[i] == 'n');
    size_t n = (size_t)(a->v1[i] - 1 - a->v0[i]);
    return a->kind[i] == V_STR && ((a->which[i] == K_TYPE && n < 63) || (a->which[i] == K_DTYPE && n < 39));
}

/* k's literals and slots from a (its type and dtype strings folded into
 * the literals when fold): 0 when a literal is too long. */
static int tmpl_lits(struct elem_tmpl_one *k, const struct seen_at *a, const char *p0, const char *close, int fold) {
    size_t off = 0, lo = 0;   /* lo: where the literal being made starts in lit */
    const char *prev = p0, *from = p0;
    unsigned n = 0;
    k->has = 0;
    for (unsigned i = 0; i <= a->n; i++) {
        if (i < a->n && fold && tmpl_folds(a, i)) {
            if (a->kind[i] == V_SCALAR) continue;
            uint16_t at = (uint16_t)(lo + (size_t)(a->v0[i] - from));
            uint8_t len = (uint8_t)(a->v1[i] - 1 - a->v0[i]);
            if (a->which[i] == K_TYPE) k->type_off = at, k->tl = len, k->has |= 1;
            else k->dtype_off = at, k->dl = len, k->has |= 2;
            continue;
        }
        const char *to = i < a->n ? a->v0[i] : close + 1;
        size_t len = (size_t)(to - prev);
        if ((size_t)(to - from) > LIT_MAX || lo + (size_t)(to - from) > sizeof k->lit - 16) return 0;
        memcpy(k->lit + off, prev, len);
        off += len;
        k->s[n].off = (uint16_t)lo;
        k->s[n].len = (uint8_t)(to - from);
        k->s[n].tail = lit_tail((size_t)(to - from));
        if (i < a->n) {
            k->s[n].kind = a->kind[i] == V_SCALAR && a->which[i] >= K_NORM && a->which[i] <= K_MEAN ? V_STAT : a->kind[i];
            k->s[n].which = a->which[i];
            prev = from = a->v1[i];
            lo = off;
        }
        n++;
    }
    memset(k->lit + off, 0, 16);
    k->n = (uint8_t)(n - 1);
    return 1;
}

/* Learns the object [p0, close] (close at its '}') into the skeleton
 * least recently used (or one not made yet). */
static void tmpl_learn(struct elem_tmpl *t, const struct seen_at *a, const char *p0, const char *close) {
    if (!a->ok || !a->n) return;
    unsigned old = 0;
    for (unsigned j = 1; j < ELEM_TMPL_N; j++)
        if (!t->k[j].live ? t->k[old].live : t->k[old].live && t->k[j].used < t->k[old].used) old = j;
    struct elem_tmpl_one *k = &t->k[old];
    /* the keys are the skeleton's: whether one is given twice is its own (fe_member) */
    struct fe f = {.seen = 0};
    for (unsigned i = 0; i < a->n; i++) fe_member(&f, a->which[i]);
    k->dup = f.rr;
    /* a type or dtype given twice: read in order, as the loop reads them */
    if (!tmpl_lits(k, a, p0, close, !k->dup) && (k->dup || !tmpl_lits(k, a, p0, close, 0))) {
        k->live = 0;   /* too long a literal: none */
        return;
    }
    k->other = (uint8_t)a->other;
    if (k->has == 3) tmpl_fin(k);
    k->live = 1;
    k->used = ++t->clock;
    t->hit = (uint8_t)old;
}

/* ---- objects read before (struct elem_memo, parse_dump_elem.h) ----
 * An object whose bytes, from past its '{' to the first '}' after it, are
 * those of one read before (whose '}' was the first too) makes the same
 * elem and the same *reread: the paths above read those bytes and nothing
 * else, but for cap, which counts only at a data_name or class_type (such
 * objects are not kept: seen_at's ok), and the numbers come out the same
 * by any path (json_num.h).  Off with slow_numbers (tests compare strtod
 * against the rest). */

/* 32 bytes at a and b the same (memo_same's step: lit_eq, lit_eq.h, would
 * do, with the slots padded, but its 16-byte step and tail mask cost 8 M
 * instructions more at 134 MB, callgrind; an object is 32 bytes or more,
 * so its last 32 compared over what the loop did need no mask) */
static inline int eq32(const char *a, const char *b) {
#define LD(x) _mm_loadu_si128((const __m128i *)(const void *)(x))
    return _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(LD(a), LD(b)), _mm_cmpeq_epi8(LD(a + 16), LD(b + 16)))) == 0xffff;
}

/* The slot of the object past whose '{' p is, with *c at its first '}':
 * NULL when it is not to be kept (no '}' within ELEM_MEMO_MAX bytes and
 * before lim, fewer than 32 bytes, slow_numbers). */
static inline struct elem_memo *memo_slot(struct elem_tmpl *tm, const struct json_lex *lx, const char *p,
                                          const char *lim, const char **c) {
    if (lx->slow_numbers) return NULL;
    size_t room = (size_t)(lim - p);
    const char *stop = p + (room < ELEM_MEMO_MAX ? room : ELEM_MEMO_MAX), *q = p;
    const __m128i close = _mm_set1_epi8('}');
    for (;; q += 64) {   /* 64 bytes a step (an object is some 250), one test for the four blocks */
        if (q >= stop) return NULL;
        __m128i a = _mm_cmpeq_epi8(LD(q), close), b = _mm_cmpeq_epi8(LD(q + 16), close);
        __m128i x = _mm_cmpeq_epi8(LD(q + 32), close), y = _mm_cmpeq_epi8(LD(q + 48), close);
        if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(x, y)))) {
            uint64_t m = (uint64_t)(unsigned)_mm_movemask_epi8(a) | (uint64_t)(unsigned)_mm_movemask_epi8(b) << 16 |
                         (uint64_t)(unsigned)_mm_movemask_epi8(x) << 32 | (uint64_t)(unsigned)_mm_movemask_epi8(y) << 48;
            q += __builtin_ctzll(m);
            break;
        }
    }
    size_t len = (size_t)(q + 1 - p);
    if (q >= stop || len < 32) return NULL;
    uint64_t w[4];
    memcpy(w, q + 1 - 32, 32);
    uint64_t h = (w[0] * 0x9e3779b97f4a7c15ull) ^ (w[1] * 0xc2b2ae3d27d4eb4full) ^ (w[2] * 0x165667b19e3779f9ull) ^
                 ((w[3] + len) * 0xd6e8feb86659fd93ull);
    *c = q;
    return &tm->memo[h >> (64 - ELEM_MEMO_BITS)];
}

/* m holds the object [p, c] (32 bytes at least) */
static inline int memo_same(const struct elem_memo *m, const char *p, const char *c) {
    size_t len = (size_t)(c + 1 - p);
    if (m->len != len) return 0;
    for (size_t i = 0; i + 32 < len; i += 32)
        if (!eq32(p + i, m->t + i)) return 0;
    return eq32(p + len - 32, m->t + len - 32);   /* the last 32, over what the loop compared */
#undef LD
}

static inline void memo_keep(struct elem_memo *m, const char *p, const char *c, const struct elem *e, uint8_t rr) {
    m->len = (uint16_t)(c + 1 - p);
    memcpy(m->t, p, m->len);
    m->rr = rr;
    m->e = *e;
}

int parse_dump_elem_fast(struct json_lex *lx, int cap, struct elem *e, uint8_t *reread, struct elem_tmpl *tm) {
    const char *p = lx->pos, *end = lx->end, *lim = end - ROOM;
    if (lx->more || lx->failed || lx->depth + 2 >= JSON_MAX_DEPTH || end - p < ROOM) return 0;
    const char *c = NULL;
    struct elem_memo *m = tm ? memo_slot(tm, lx, p, lim, &c) : NULL;
    if (m && memo_same(m, p, c)) {
        *e = m->e;
        json_lex_close_at(lx, c);
        *reread |= m->rr;
        return 1;
    }
    struct fe f;
    int dirty = 0;
    fe_start(&f, e);
    if (tm)   /* the one that matched last first, then the others */
        for (unsigned j = 0; j < ELEM_TMPL_N; j++) {
            unsigned x = j ? j - (j <= tm->hit) : tm->hit;
            struct elem_tmpl_one *k = &tm->k[x];
            if (!k->live) continue;
            if (dirty) fe_start(&f, e), dirty = 0;
            const char *close = tmpl_read(lx, k, &f, p, end, &dirty, tm->num);
            if (!close) continue;
            tm->hit = (uint8_t)x;
            k->used = ++tm->clock;
            if (k->has == 3) tmpl_finish(k, &f);
            else fe_finish(&f);
            if (m && close == c) memo_keep(m, p, c, e, f.rr);
            json_lex_close_at(lx, close);
            *reread |= f.rr;
            return 1;
        }
    if (dirty) fe_start(&f, e);
    const char *p0 = p;
    struct seen_at at;
    at.n = 0;
    at.ok = tm != NULL;
    at.other = 0;
    int esc = 0;   /* an escape in a key or a string: the tokens' */
    if ((p = json_scan_ws(p, lim)) >= lim) return 0;
    if (*p != '}')
        for (;;) {
            if (p >= lim || *p != '"') return 0;
            const char *q;
            int which = key_word(p, &q);
            if (which == K_UNSURE) {
                const char *k = p + 1;
                q = json_scan_str_end(k, end, &esc);
                if (!q || esc || q >= lim || q[1] != ':') return 0;
                which = key_of(k, (size_t)(q - k));
                q++;
                f.other = 1;
            }
            if (which == K_NAMING) {
                if (cap) f.rr = 1;   /* data_name names the item, a P2POp is read otherwise */
                which = K_OTHER;
                at.ok = 0;
            }
            if ((p = json_scan_ws(q + 1, lim)) >= lim) return 0;
            char c = *p;
            if (c == '{') return 0;   /* a P2POp's tensor: the tokens' */
            fe_member(&f, which);
            unsigned i = at.n < ELEM_TMPL_SLOTS ? at.n++ : (at.ok = 0);
            at.which[i] = (int8_t)which;
            at.v0[i] = p;
            if (c == '"') {
                const char *s = p + 1;
                if (!(q = json_scan_str_end(s, end, &esc)) || esc || q >= lim || !fe_string(&f, which, s, (size_t)(q - s)))
                    return 0;
                at.kind[i] = V_STR, at.v0[i] = s, at.v1[i] = q + 1;
                p = q + 1;
            } else if (c == '[') {
                if (which != K_OTHER) return 0;
                /* skipped as json_lex_skip does: brackets matched, scalars unchecked */
                q = json_scan_skip_sse2(p + 1, end);
                if (q >= lim || *q != ']') return 0;
                at.kind[i] = V_ARR, at.v0[i] = p + 1, at.v1[i] = q + 1;
                p = q + 1;
            } else {
                enum json_tok t;
                double v = 0;
                if (!(q = scalar(lx, p, &t, &v))) return 0;
                fe_scalar(&f, which, t, v);
                at.kind[i] = V_SCALAR, at.v1[i] = q;
                p = q;
            }
            if ((p = json_scan_ws(p, lim)) >= lim) return 0;
            if (*p == '}') break;
            if (*p != ',' || (p = json_scan_ws(p + 1, lim)) >= lim) return 0;
        }
    fe_finish(&f);
    at.other = f.other;
    if (tm) tmpl_learn(tm, &at, p0, p);
    if (m && at.ok && p == c) memo_keep(m, p0, c, e, f.rr);
    json_lex_close_at(lx, p);
    *reread |= f.rr;
    return 1;
}
#else
int parse_dump_elem_fast(struct json_lex *lx, int cap, struct elem *e, uint8_t *reread, struct elem_tmpl *tm) {
    (void)lx, (void)cap, (void)e, (void)reread, (void)tm;
    return 0;
}
#endif
