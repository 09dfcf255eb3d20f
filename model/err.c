/* err: error formatting and byte escaping for messages. */
#include "model/err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pt_errorf(struct pt_error *e, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

size_t pt_utf8_len(const unsigned char *s, size_t len) {
    unsigned char c = s[0];
    size_t n;
    unsigned cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    if (n > len) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return n;
}

/* One unit of p (a byte, or a valid UTF-8 sequence) as pt_escape writes
 * it, into tmp (8 bytes, *tl of them); controls_only keeps backslashes and
 * tab, newline and CR as they are.  Returns the bytes of p it took. */
static size_t escape_unit(const unsigned char *p, size_t len, int controls_only, char *tmp, size_t *tl) {
    unsigned char c = p[0];
    size_t u = pt_utf8_len(p, len);
    if (controls_only && (c == '\n' || c == '\t' || c == '\r' || c == '\\')) { tmp[0] = (char)c; *tl = 1; return 1; }
    if (c == '\n') { memcpy(tmp, "\\n", 2); *tl = 2; return 1; }
    if (c == '\t') { memcpy(tmp, "\\t", 2); *tl = 2; return 1; }
    if (c == '\r') { memcpy(tmp, "\\r", 2); *tl = 2; return 1; }
    if (c == '\\') { memcpy(tmp, "\\\\", 2); *tl = 2; return 1; }
    if (c < 0x20 || c == 0x7f || u == 0) {
        snprintf(tmp, 8, "\\x%02x", c);
        *tl = 4;
        return 1;
    }
    if (u == 2 && c == 0xc2 && p[1] < 0xa0) {
        /* U+0080..U+009F, the C1 controls: U+009B starts an escape
         * sequence on terminals that take 8-bit controls */
        snprintf(tmp, 8, "\\u%04x", p[1]);
        *tl = 6;
        return 2;
    }
    memcpy(tmp, p, u);
    *tl = u;
    return u;
}

char *pt_escape(const char *s, size_t len, char *out, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    if (n == 0) return out;
    for (size_t i = 0; i < len;) {
        char tmp[8];
        size_t tl, adv = escape_unit(p + i, len - i, 0, tmp, &tl);
        if (o + tl + 1 > n) break;
        memcpy(out + o, tmp, tl);
        o += tl;
        i += adv;
    }
    out[o] = '\0';
    return out;
}

const char *pt_unctrl(const char *s, char **owned) {
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), i = 0, o = 0;
    char tmp[8];
    size_t tl;
    *owned = NULL;
    /* printable ASCII first, eight bytes at a time while none is below
     * 0x20 or above 0x7e (csv tables of tens of MB), then a byte at a time */
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    while (i + 8 <= len) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        if ((((x - ones * 0x20) & ~x) | ((x + ones) | x)) & high) break;
        i += 8;
    }
    while (i < len && ((p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
    while (i < len && escape_unit(p + i, len - i, 1, tmp, &tl) == tl && !memcmp(tmp, p + i, tl)) i += tl;
    if (i == len) return s;
    char *out = malloc(len * 6 + 1);   /* a byte is at most 6: \u009b for 2 */
    if (!out) return NULL;
    memcpy(out, s, i);
    o = i;
    while (i < len) {
        i += escape_unit(p + i, len - i, 1, tmp, &tl);
        memcpy(out + o, tmp, tl);
        o += tl;
    }
    out[o] = '\0';
    *owned = out;
    return out;
}
