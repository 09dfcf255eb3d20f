/* err: error formatting and byte escaping for messages. */
#include "model/err.h"

#include <stdarg.h>
#include <stdio.h>
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

/* Length of the valid UTF-8 sequence at s (at most len bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t len) {
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

char *pt_escape(const char *s, size_t len, char *out, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    if (n == 0) return out;
    for (size_t i = 0; i < len;) {
        char tmp[8];
        size_t tl, adv;
        unsigned char c = p[i];
        size_t u = utf8_len(p + i, len - i);
        if (c == '\n') { memcpy(tmp, "\\n", 2); tl = 2; adv = 1; }
        else if (c == '\t') { memcpy(tmp, "\\t", 2); tl = 2; adv = 1; }
        else if (c == '\r') { memcpy(tmp, "\\r", 2); tl = 2; adv = 1; }
        else if (c == '\\') { memcpy(tmp, "\\\\", 2); tl = 2; adv = 1; }
        else if (c < 0x20 || c == 0x7f || u == 0) {
            snprintf(tmp, sizeof tmp, "\\x%02x", c);
            tl = 4; adv = 1;
        } else if (u == 2 && c == 0xc2 && p[i + 1] < 0xa0) {
            /* U+0080..U+009F, the C1 controls: U+009B starts an escape
             * sequence on terminals that take 8-bit controls */
            snprintf(tmp, sizeof tmp, "\\u%04x", p[i + 1]);
            tl = 6; adv = 2;
        } else {
            memcpy(tmp, p + i, u); tl = u; adv = u;
        }
        if (o + tl + 1 > n) break;
        memcpy(out + o, tmp, tl);
        o += tl;
        i += adv;
    }
    out[o] = '\0';
    return out;
}
