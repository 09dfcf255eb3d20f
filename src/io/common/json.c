/* json: msProbe's JSON dialect (bare NaN/Infinity/-Infinity), as a cJSON
 * tree for small files and as a pull tokenizer for dump.json. */
#include "src/io/common/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/common/decfloat.h"
#include "src/io/common/json_scan.h"

/* ---- reading files ---- */

/* Opens path for reading as a regular file of at most max_bytes. */
static int open_regular(const char *path, size_t max_bytes, int *fd_out, struct stat *st, struct pt_error *err) {
    /* O_NONBLOCK so that a FIFO put where a file should be cannot hang open(). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return pt_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return pt_errorf(err, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return pt_errorf(err, "%s: is %s, not a regular file", path,
                         S_ISDIR(st->st_mode) ? "a folder" : S_ISFIFO(st->st_mode) ? "a FIFO" : "a special file");
    }
    if ((uint64_t)st->st_size > max_bytes) {
        close(fd);
        return pt_errorf(err, "%s: %lld bytes, more than the %zu this reader accepts", path,
                         (long long)st->st_size, max_bytes);
    }
    *fd_out = fd;
    return 0;
}

int json_open_regular(const char *path, size_t max_bytes, int *fd, struct stat *st, struct pt_error *err) {
    return open_regular(path, max_bytes, fd, st, err);
}

/* The whole file into a private, NUL-terminated buffer.  A copy and not a
 * mapping: a mapped file that shrinks while it is read (msProbe, cp or
 * rsync still rewriting it) kills the reader with SIGBUS on the next page,
 * while read() just returns less, which is reported here.  A SIGBUS handler
 * jumping out of the tokenizer instead would have to be per thread (dumps
 * are parsed on a pool) and would leave half-built rows behind. */
static int read_into(const char *path, size_t max_bytes, char **buf, size_t *capp, size_t *len, struct pt_error *err) {
    struct stat st;
    int fd = -1;
    *len = 0;
    if (open_regular(path, max_bytes, &fd, &st, err) != 0) return -1;
    size_t cap = *capp, n = 0;
    char *b = *buf;
    if (!b || cap < (size_t)st.st_size + 1) {
        cap = (size_t)st.st_size + 1;
        b = realloc(*buf, cap);
        if (!b) {
            close(fd);
            return pt_errorf(err, "%s: out of memory for %zu bytes", path, cap);
        }
        *buf = b;
        *capp = cap;
    }
    for (;;) {
        if (n + 1 >= cap) {   /* the file grew while we read it */
            if (cap > max_bytes) break;
            char *nb = realloc(b, cap * 2);
            if (!nb) { close(fd); return pt_errorf(err, "%s: out of memory", path); }
            *buf = b = nb;
            *capp = cap *= 2;
        }
        ssize_t r = read(fd, b + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            return pt_errorf(err, "%s: read error: %s", path, strerror(e));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (n < (size_t)st.st_size)
        return pt_errorf(err, "%s: changed while it was read (%lld bytes, then %zu): is it still being written?",
                         path, (long long)st.st_size, n);
    b[n] = '\0';
    *len = n;
    return 0;
}

static int read_whole(const char *path, size_t max_bytes, char **buf, size_t *len, struct pt_error *err) {
    size_t cap = 0;
    *buf = NULL;
    if (read_into(path, max_bytes, buf, &cap, len, err) == 0) return 0;
    free(*buf);
    *buf = NULL;
    *len = 0;
    return -1;
}

int json_read_reuse(const char *path, size_t max_bytes, char **buf, size_t *cap, size_t *len, struct pt_error *err) {
    return read_into(path, max_bytes, buf, cap, len, err);
}

int json_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, struct pt_error *err) {
    return read_whole(path, max_bytes, buf, len, err);
}

int json_map_file(const char *path, size_t max_bytes, const char **buf, size_t *len, struct pt_error *err) {
    char *b;
    if (read_whole(path, max_bytes, &b, len, err) != 0) { *buf = NULL; return -1; }
    if (*len == 0) {   /* as a mapping was: nothing held for an empty file */
        free(b);
        b = NULL;
    }
    *buf = b;
    return 0;
}

void json_unmap_file(const char *buf, size_t len) {
    (void)len;
    free((char *)buf);
}

size_t json_line_of(const char *buf, const char *pos) {
    size_t line = 1;
    for (const char *p = buf; p < pos; p++) {
        p = memchr(p, '\n', (size_t)(pos - p));
        if (!p) break;
        line++;
    }
    return line;
}

/* ---- cJSON trees ---- */

/* Rewrites bare NaN / Infinity / -Infinity (outside strings) as strings.
 * Returns a new buffer (NUL-terminated) or NULL when out of memory. */
static char *dialect_to_strict(const char *text, size_t len, size_t *outlen) {
    size_t extra = 0;
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') in_str = 0;
        } else if (c == '"') in_str = 1;
        else if (c == 'N' || c == 'I') extra += 2;
    }
    char *out = malloc(len + extra + 1);
    if (!out) return NULL;
    size_t o = 0;
    in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_str) {
            out[o++] = c;
            if (c == '\\' && i + 1 < len) out[o++] = text[++i];
            else if (c == '"') in_str = 0;
            continue;
        }
        if (c == '"') { in_str = 1; out[o++] = c; continue; }
        if (c == 'N' && len - i >= 3 && memcmp(text + i, "NaN", 3) == 0) {
            memcpy(out + o, "\"NaN\"", 5); o += 5; i += 2; continue;
        }
        if (c == 'I' && len - i >= 8 && memcmp(text + i, "Infinity", 8) == 0) {
            memcpy(out + o, "\"Infinity\"", 10); o += 10; i += 7; continue;
        }
        if (c == '-' && len - i >= 9 && memcmp(text + i, "-Infinity", 9) == 0) {
            memcpy(out + o, "\"-Infinity\"", 11); o += 11; i += 8; continue;
        }
        out[o++] = c;
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

/* 1 when the text ends inside a string or with a bracket still open: cJSON
 * puts its error on the last byte both for a cut file and for a bad last
 * character, and only this tells the two apart. */
static int json_open_at_end(const char *s, size_t n) {
    long depth = 0;
    int instr = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (instr) {
            if (c == '\\') i++;
            else if (c == '"') instr = 0;
        } else if (c == '"') instr = 1;
        else if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
    }
    return instr || depth > 0;
}

int json_tree_parse(const char *text, size_t len, const char *what, cJSON **out, struct pt_error *err) {
    size_t slen;
    const char *end = NULL;
    *out = NULL;
    if (len == 0) return pt_errorf(err, "%s: empty file, expected a JSON object", what);
    char *strict = dialect_to_strict(text, len, &slen);
    if (!strict) return pt_errorf(err, "%s: out of memory", what);
    cJSON *root = cJSON_ParseWithLengthOpts(strict, slen, &end, 0);
    if (!root) {
        size_t line = end ? json_line_of(strict, end) : 0;
        int atend = end && (size_t)(end - strict) + 1 >= slen && json_open_at_end(strict, slen);
        free(strict);
        if (atend) return pt_errorf(err, "%s: line %zu: JSON ends early (truncated file?)", what, line);
        return pt_errorf(err, "%s: line %zu: not valid JSON here", what, line);
    }
    free(strict);
    *out = root;
    return 0;
}

static int tree_file(const char *path, size_t max_bytes, cJSON **out, struct pt_error *err) {
    char *buf;
    size_t len;
    *out = NULL;
    if (json_read_file(path, max_bytes, &buf, &len, err) != 0) return -1;
    int rc = json_tree_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

int json_tree_file(const char *path, cJSON **out, struct pt_error *err) {
    return tree_file(path, (size_t)1 << 31, out, err);
}

int json_side_file(const char *path, cJSON **out, struct pt_error *err) {
    return tree_file(path, JSON_SIDE_MAX, out, err);
}

/* Python float() of a trimmed string, restricted to what msProbe writes. */
static int parse_float_text(const char *s, double *out) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
    if (n == 0 || n > 64) return 0;
    char tmp[72];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    const char *t = tmp;
    int neg = 0;
    if (*t == '+' || *t == '-') { neg = *t == '-'; t++; }
    if ((*t == 'n' || *t == 'N') && !strcasecmp(t, "nan")) { *out = NAN; return 1; }
    if ((*t == 'i' || *t == 'I') && (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity"))) {
        *out = neg ? -INFINITY : INFINITY;
        return 1;
    }
    /* digits, one dot, exponent: reject hex and other strtod extensions */
    for (const char *p = t; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
            return 0;
    char *e;
    errno = 0;
    double v = strtod(tmp, &e);
    if (e == tmp || *e) return 0;
    *out = v;
    return 1;
}

int json_number(const cJSON *item, double *out) {
    if (!item) return 0;
    if (cJSON_IsNumber(item)) { *out = item->valuedouble; return 1; }
    if (cJSON_IsTrue(item)) { *out = 1.0; return 1; }
    if (cJSON_IsFalse(item)) { *out = 0.0; return 1; }
    if (cJSON_IsString(item) && item->valuestring) return parse_float_text(item->valuestring, out);
    return 0;
}

/* ---- pull tokenizer ---- */

enum { S_VALUE, S_VALUE_OR_END, S_KEY_OR_END, S_KEY, S_AFTER, S_DONE };

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

/* White space comes in short runs (a newline and the indentation): words
 * step over them faster than 16- or 32-byte blocks (bench_lex measured it),
 * so every variant scans them so. */
__attribute__((always_inline)) static inline const char *skip_ws(const struct json_lex *lx, const char *p) {
    if (p < lx->end && !json_scan_is_ws(*p)) return p;   /* most tokens follow none */
    /* the rest mostly one space (after ':' and ',' as Python's json writes) */
    if (lx->end - p >= 2 && *p == ' ' && !json_scan_is_ws(p[1])) return p + 1;
    return json_scan_ws_portable(p, lx->end);
}

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

/* skip_ws from the index: the first byte not white space is the first set
 * bit of the block's mask from p. */
__attribute__((always_inline)) static inline const char *skip_ws_idx(struct json_lex *lx, const char *p) {
    if (p < lx->end && !json_scan_is_ws(*p)) return p;
    for (int i = 0; i < 2 && idx_at(lx, p); i++) {
        uint64_t m = lx->inw >> (p - lx->ib);
        if (m) return p + __builtin_ctzll(m);
        p = lx->ib + 64;
    }
    return json_scan_ws_portable(p, lx->end);
}

#define JSON_MAX_NUMBER 400

/* Digits from p while the significand has fewer than 19 (10^19 < 2^64),
 * every one significant (the caller stepped over leading zeros); *mant and
 * *sig grow.  Eight at a time where the buffer allows. */
static inline const char *take_digits(const char *p, const char *end, uint64_t *mant, int *sig) {
    uint64_t m = *mant;
    int n = *sig;
#if JSON_SWAR
    static const uint64_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    while (end - p >= 8 && n <= 11) {
        uint64_t w = json_scan_swar_load(p);
        int k = json_scan_swar_digit_run(w);
        if (k == 0) goto done;
        m = m * p10[k] + json_scan_swar_digits_value(w, k);
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
#define SKIP_WS(lx, p, idx) ((idx) ? skip_ws_idx((lx), (p)) : skip_ws((lx), (p)))

static enum json_tok lex_value(struct json_lex *lx, const char *p, const int idx) {
    const char *end = lx->end;
    lx->tok_start = p;
    switch (*p) {
    case '{':
    case '[':
        if (lx->depth >= JSON_MAX_DEPTH) return lex_fail(lx, p, "nesting deeper than 512 levels");
        lx->kind[++lx->depth] = *p == '{' ? 1 : 2;
        lx->state = *p == '{' ? S_KEY_OR_END : S_VALUE_OR_END;
        lx->pos = p + 1;
        return lx->tok = *p == '{' ? JT_OBJ_BEGIN : JT_ARR_BEGIN;
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

enum json_tok json_lex_next(struct json_lex *lx) {
    if (__builtin_expect(!lx->more, 1)) return lx->walk == 2 ? lex_next(lx, 1) : lex_next(lx, 0);
    const char *p0 = lx->pos;
    int state0 = lx->state, depth0 = lx->depth, started0 = lx->started;
    enum json_tok t = lx->walk == 2 ? lex_next(lx, 1) : lex_next(lx, 0);
    if (t == JT_MORE) {   /* as before the token: the caller refills and asks again */
        lx->pos = p0;
        lx->state = state0;
        lx->depth = depth0;
        lx->started = started0;
    }
    return t;
}


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

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

long json_lex_string(const struct json_lex *lx, char *out, size_t n) {
    const char *p = lx->str, *e = lx->str + lx->slen;
    size_t o = 0;
    if (n == 0) return -1;
    if (!lx->has_esc) {   /* nothing to decode: the raw bytes, truncated as below */
        o = lx->slen < n - 1 ? lx->slen : n - 1;
        memcpy(out, p, o);
        out[o] = '\0';
        return (long)o;
    }
    while (p < e) {
        char buf[4];
        size_t bl = 1;
        if (*p != '\\') { buf[0] = *p++; }
        else {
            p++;
            switch (*p) {
            case '"': buf[0] = '"'; break;
            case '\\': buf[0] = '\\'; break;
            case '/': buf[0] = '/'; break;
            case 'b': buf[0] = '\b'; break;
            case 'f': buf[0] = '\f'; break;
            case 'n': buf[0] = '\n'; break;
            case 'r': buf[0] = '\r'; break;
            case 't': buf[0] = '\t'; break;
            case 'u': {
                if (e - p < 5) return -1;
                unsigned cp = 0;
                for (int i = 1; i <= 4; i++) {
                    int h = hexval(p[i]);
                    if (h < 0) return -1;
                    cp = cp * 16 + (unsigned)h;
                }
                p += 4;
                if (cp >= 0xd800 && cp <= 0xdbff && e - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                    unsigned lo = 0;
                    int ok = 1;
                    for (int i = 3; i <= 6; i++) {
                        int h = hexval(p[i]);
                        if (h < 0) { ok = 0; break; }
                        lo = lo * 16 + (unsigned)h;
                    }
                    if (ok && lo >= 0xdc00 && lo <= 0xdfff) {
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        p += 6;
                    }
                }
                if (cp < 0x80) buf[0] = (char)cp;
                else if (cp < 0x800) { buf[0] = (char)(0xc0 | (cp >> 6)); buf[1] = (char)(0x80 | (cp & 0x3f)); bl = 2; }
                else if (cp < 0x10000) {
                    buf[0] = (char)(0xe0 | (cp >> 12)); buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                    buf[2] = (char)(0x80 | (cp & 0x3f)); bl = 3;
                } else {
                    buf[0] = (char)(0xf0 | (cp >> 18)); buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
                    buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); buf[3] = (char)(0x80 | (cp & 0x3f)); bl = 4;
                }
                break;
            }
            default: return -1;
            }
            p++;
        }
        if (o + bl < n) { memcpy(out + o, buf, bl); o += bl; }
        else break;
    }
    out[o < n ? o : n - 1] = '\0';
    return (long)o;
}

void json_fput_str(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (; *p; p++) {
        unsigned char c = *p;
        /* a run of printable ASCII needing no escape in one write (a
         * listing of many entries is mostly names: per-byte locked writes
         * were a tenth of `probetop overflow --format json`) */
        const unsigned char *q = p;
        while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\') q++;
        if (q - p > 1) {
            fwrite(p, 1, (size_t)(q - p), f);
            p = q - 1;
            continue;
        }
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
        else if (c < 0x80) fputc(c, f);
        else if (c == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
            /* a C1 control (U+009B starts an escape sequence on terminals
             * that take 8-bit controls): written as its \u escape, the same
             * character to a JSON reader */
            fprintf(f, "\\u%04x", p[1]);
            p++;
        }
        else {
            /* copy a valid UTF-8 sequence (pt_utf8_len: no overlong form, no
             * surrogate, so the output always decodes), escape a stray byte */
            size_t n = pt_utf8_len(p, 4);
            if (n) { fwrite(p, 1, n, f); p += n - 1; }
            else fprintf(f, "\\u%04x", c);
        }
    }
    fputc('"', f);
}
