/* text: widths, fitting, target-name shortening, number formats. */
#include "ui/text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_cont(unsigned char c) { return (c & 0xc0) == 0x80; }

int text_width(const char *s) {
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!is_cont(*p)) w++;
    return w;
}

size_t text_prefix(const char *s, int cols) {
    const unsigned char *p = (const unsigned char *)s;
    int w = 0;
    size_t i = 0;
    while (p[i]) {
        if (!is_cont(p[i])) {
            if (w == cols) break;
            w++;
        }
        i++;
    }
    return i;
}

/* Byte offset where the last `cols` columns of s start. */
static size_t suffix_start(const char *s, int cols) {
    int total = text_width(s);
    if (cols >= total) return 0;
    return text_prefix(s, total - cols);
}

char *text_fit(const char *s, int width, enum text_cut cut, int utf8, char *buf, size_t size) {
    const char *ell = utf8 ? "\xe2\x80\xa6" : "~";
    size_t ell_len = strlen(ell);
    if (size == 0) return buf;
    buf[0] = '\0';
    if (width <= 0) return buf;
    int w = text_width(s);
    if (w <= width) {
        snprintf(buf, size, "%s", s);
        return buf;
    }
    if (width == 1) {
        snprintf(buf, size, "%s", ell);
        return buf;
    }
    int keep = width - 1;
    if (cut == TEXT_CUT_RIGHT) {
        size_t n = text_prefix(s, keep);
        snprintf(buf, size, "%.*s%s", (int)n, s, ell);
    } else if (cut == TEXT_CUT_LEFT) {
        snprintf(buf, size, "%s%s", ell, s + suffix_start(s, keep));
    } else {
        int head = keep / 2, tail = keep - head;
        size_t n = text_prefix(s, head);
        snprintf(buf, size, "%.*s%s%s", (int)n, s, ell, s + suffix_start(s, tail));
    }
    (void)ell_len;
    return buf;
}

/* --- target names --- */

#define MAXTOK 64

struct toks {
    int n;
    char t[MAXTOK][64];
    int layer[MAXTOK];     /* 1: an "L3" token made from layers.3 */
};

/* "0", or "0#3" / "0@1" (names_display's call and vpp suffixes). */
static int numeric_display(const char *s) {
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
    return *s == '\0' || *s == '#' || *s == '@';
}

static void tok_split(const char *name, struct toks *t) {
    t->n = 0;
    const char *p = name;
    while (*p && t->n < MAXTOK) {
        const char *q = strchr(p, '.');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len >= sizeof t->t[0]) len = sizeof t->t[0] - 1;
        memcpy(t->t[t->n], p, len);
        t->t[t->n][len] = '\0';
        t->layer[t->n] = 0;
        t->n++;
        if (!q) break;
        p = q + 1;
    }
}

static void tok_del(struct toks *t, int i) {
    memmove(t->t[i], t->t[i + 1], (size_t)(t->n - i - 1) * sizeof t->t[0]);
    memmove(&t->layer[i], &t->layer[i + 1], (size_t)(t->n - i - 1) * sizeof t->layer[0]);
    t->n--;
}

static void tok_join(const struct toks *t, int from, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    for (int i = from; i < t->n; i++) {
        int w = snprintf(buf + len, size - len, "%s%s", i > from ? "." : "", t->t[i]);
        if (w < 0 || (size_t)w >= size - len) break;
        len += (size_t)w;
    }
}

static int fits(const char *s, int width) { return text_width(s) <= width; }

char *text_short_target(const char *name, int width, int utf8, char *buf, size_t size) {
    struct toks t;
    char cand[1024];
    if (size == 0) return buf;
    if (fits(name, width) || width < 4) return text_fit(name, width, TEXT_CUT_RIGHT, utf8, buf, size);

    tok_split(name, &t);
    /* 1. Wrapper words that every target of a model repeats. */
    for (int i = 0; i < t.n && t.n > 1;) {
        const char *s = t.t[i];
        if (!strcmp(s, "Module") || !strcmp(s, "Cell") || !strcmp(s, "module") || !strcmp(s, "model") ||
            !strcmp(s, "language_model") || !strcmp(s, "network_with_loss"))
            tok_del(&t, i);
        else
            i++;
    }
    /* 2. input.0 -> in0, output.1 -> out1, layers.3 -> L3. */
    for (int i = 0; i + 1 < t.n; i++) {
        const char *s = t.t[i];
        if (!numeric_display(t.t[i + 1])) continue;
        const char *abbr = NULL;
        int layer = 0;
        if (!strcmp(s, "input")) abbr = "in";
        else if (!strcmp(s, "output")) abbr = "out";
        else if (!strcmp(s, "layers") || !strcmp(s, "layer") || !strcmp(s, "blocks") ||
                 !strcmp(s, "block") || !strcmp(s, "h")) { abbr = "L"; layer = 1; }
        if (!abbr) continue;
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%s%.40s", abbr, t.t[i + 1]);
        snprintf(t.t[i], sizeof t.t[i], "%s", tmp);
        t.layer[i] = layer;
        tok_del(&t, i + 1);
    }
    tok_join(&t, 0, cand, sizeof cand);
    if (fits(cand, width)) return text_fit(cand, width, TEXT_CUT_RIGHT, utf8, buf, size);

    /* 3. Class names (ColumnParallelLinear) and API kinds (Functional, Tensor):
     *    tokens starting with a capital, as long as something else remains. */
    for (int i = 0; i < t.n && t.n > 2;) {
        if (isupper((unsigned char)t.t[i][0]) && !t.layer[i] && strcmp(t.t[i], "L")) tok_del(&t, i);
        else i++;
    }
    tok_join(&t, 0, cand, sizeof cand);
    if (fits(cand, width)) return text_fit(cand, width, TEXT_CUT_RIGHT, utf8, buf, size);

    /* 4. What comes before the first layer (decoder, encoder). */
    int first_layer = -1;
    for (int i = 0; i < t.n; i++)
        if (t.layer[i]) { first_layer = i; break; }
    if (first_layer > 0) {
        while (first_layer-- > 0) tok_del(&t, 0);
        tok_join(&t, 0, cand, sizeof cand);
        if (fits(cand, width)) return text_fit(cand, width, TEXT_CUT_RIGHT, utf8, buf, size);
    }

    /* 5. Keep the layer, cut the middle: "L3…linear_qkv.out0". */
    if (t.n > 1 && t.layer[0]) {
        char tail[1024], head[80];
        snprintf(head, sizeof head, "%s", t.t[0]);
        int hw = text_width(head) + 1;   /* + ellipsis */
        if (width - hw >= 3) {
            int room = width - hw;
            /* Whole tokens from the end while they fit, when that keeps
             * most of the room; else cut inside a token. */
            int from = t.n;
            while (from > 1) {
                tok_join(&t, from - 1, tail, sizeof tail);
                if (text_width(tail) > room) break;
                from--;
            }
            tok_join(&t, from, tail, sizeof tail);
            if (from < t.n && 3 * text_width(tail) >= 2 * room) {
                snprintf(buf, size, "%s%s%s", head, utf8 ? "\xe2\x80\xa6" : "~", tail);
                return buf;
            }
            tok_join(&t, 1, tail, sizeof tail);
            char cut[1024];
            /* room + 1 leaves the ellipsis its cell; a tail of exactly that
             * width would come back uncut and lose the dot after head */
            int fitw = text_width(tail) <= room + 1 ? room : room + 1;
            text_fit(tail, fitw, TEXT_CUT_LEFT, utf8, cut, sizeof cut);
            /* text_fit put an ellipsis first: head + that. */
            snprintf(buf, size, "%s%s", head, cut);
            return buf;
        }
    }
    return text_fit(cand, width, TEXT_CUT_LEFT, utf8, buf, size);
}

/* --- numbers --- */

static void strip_zeros(char *mant) {
    char *dot = strchr(mant, '.');
    if (!dot) return;
    char *end = mant + strlen(mant);
    while (end > dot + 1 && end[-1] == '0') *--end = '\0';
    if (end == dot + 1) *dot = '\0';
}

char *text_fmt_tick(double v, char *buf, size_t size) {
    char tmp[96];
    if (v == 0) { snprintf(buf, size, "0"); return buf; }
    if (isnan(v)) { snprintf(buf, size, "NaN"); return buf; }
    if (isinf(v)) { snprintf(buf, size, v > 0 ? "+Inf" : "-Inf"); return buf; }
    double a = fabs(v);
    if (a < 1e-4 || a >= 1e4) {
        snprintf(tmp, sizeof tmp, "%.6e", v);
        char *e = strchr(tmp, 'e');
        char exp[16];
        int ex = e ? atoi(e + 1) : 0;
        if (e) *e = '\0';
        strip_zeros(tmp);
        snprintf(exp, sizeof exp, "e%d", ex);
        snprintf(buf, size, "%s%s", tmp, exp);
    } else {
        snprintf(tmp, sizeof tmp, "%.10f", v);
        strip_zeros(tmp);
        snprintf(buf, size, "%s", tmp);
    }
    return buf;
}

/* "1.5e+07" -> "1.5e7", "1.20e-05" -> "1.2e-5": no '+', no leading zeros
 * in the exponent, no trailing zeros in the mantissa. */
static void compact_exp(char *s) {
    char *e = strchr(s, 'e');
    if (!e) return;
    char ex[16];
    const char *d = e + 1;
    int neg = *d == '-';
    if (*d == '+' || *d == '-') d++;
    while (*d == '0' && d[1]) d++;
    snprintf(ex, sizeof ex, "e%s%s", neg ? "-" : "", d);
    *e = '\0';
    strip_zeros(s);
    size_t n = strlen(s);
    memmove(s + n, ex, strlen(ex) + 1);
}

char *text_fmt_fit(double v, int width, const char *unit, char *buf, size_t size) {
    char a[64], b[64];
    if (!unit) unit = "";
    int room = width - text_width(unit);
    if (isnan(v) || isinf(v)) {
        snprintf(a, sizeof a, "%s", isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
        unit = "";
        room = width;
    } else if (v == floor(v) && fabs(v) < 1e15 && snprintf(a, sizeof a, "%.0f", v) <= room) {
        /* a whole number that fits is shown whole */
    } else {
        /* the most significant digits that fit, fixed or exponent form,
         * whichever fits first (fixed when both do) */
        a[0] = '\0';
        for (int p = 8; p >= 1; p--) {
            snprintf(a, sizeof a, "%.*g", p, v);
            compact_exp(a);
            if ((int)strlen(a) <= room) break;
            snprintf(b, sizeof b, "%.*e", p - 1, v);
            compact_exp(b);
            if ((int)strlen(b) <= room) { memcpy(a, b, sizeof a); break; }
        }
    }
    if ((int)strlen(a) > room) {
        /* no form fits: '#' across the room, as a spreadsheet does,
         * never a number with digits cut out */
        int n = width < (int)size - 1 ? width : (int)size - 1;
        if (n < 0) n = 0;
        memset(buf, '#', (size_t)n);
        buf[n] = '\0';
        return buf;
    }
    snprintf(buf, size, "%s%s", a, unit);
    return buf;
}

char *text_fmt_compact(double v, int width, char *buf, size_t size) {
    return text_fmt_fit(v, width, "", buf, size);
}

char *text_fmt_ns(int64_t ns, char *buf, size_t size) {
    double v = (double)ns, m = v < 0 ? -v : v;
    if (m >= 1e9) snprintf(buf, size, "%.3f s", v / 1e9);
    else if (m >= 1e6) snprintf(buf, size, "%.3f ms", v / 1e6);
    else if (m >= 1e3) snprintf(buf, size, "%.3f us", v / 1e3);
    else snprintf(buf, size, "%lld ns", (long long)ns);
    return buf;
}

char *text_base64(const void *in, size_t n, char *out, size_t size) {
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = in;
    size_t o = 0;
    if (!size) return out;
    for (size_t i = 0; i < n && o + 4 < size; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[o++] = al[v >> 18 & 63];
        out[o++] = al[v >> 12 & 63];
        out[o++] = i + 1 < n ? al[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? al[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}
