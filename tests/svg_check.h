/* svg_check: a small XML well-formedness checker for the SVG pictures the
 * tests read (ui/svg.c writes them): one root element, every tag closed in
 * order, attributes quoted and not repeated, only the five predefined
 * entities and numeric references, valid UTF-8 without control
 * characters.  Also collects the text content and the fill colours, so a
 * test can ask whether a word or a colour is in the picture. */
#ifndef PT_SVG_CHECK_H
#define PT_SVG_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct svg_check {
    char why[256];        /* the first error, "" when well-formed */
    char *text;           /* all character data, entities decoded, one '\n' per element */
    size_t text_len, text_cap;
    char fills[4096][8];  /* distinct fill="#rrggbb" values */
    int nfills;
    int elements;
};

static inline void svgc_put(struct svg_check *c, const char *s, size_t n) {
    if (c->text_len + n + 1 > c->text_cap) {
        size_t cap = (c->text_len + n + 1) * 2;
        char *t = realloc(c->text, cap);
        if (!t) return;
        c->text = t;
        c->text_cap = cap;
    }
    memcpy(c->text + c->text_len, s, n);
    c->text_len += n;
    c->text[c->text_len] = '\0';
}

static inline int svgc_fail(struct svg_check *c, size_t at, const char *what) {
    if (!c->why[0]) snprintf(c->why, sizeof c->why, "byte %zu: %s", at, what);
    return -1;
}

static inline int svgc_name_ch(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' ||
           ch == '_' || ch == ':' || ch == '.';
}

/* Character data or an attribute value from s[i] to the stop byte. */
static inline int svgc_chars(struct svg_check *c, const char *s, size_t n, size_t *i, char stop, int keep) {
    while (*i < n && s[*i] != stop) {
        unsigned char u = (unsigned char)s[*i];
        if (stop != '<' && u == '<') return svgc_fail(c, *i, "'<' in an attribute value");
        if (u == '&') {
            const char *e = memchr(s + *i, ';', n - *i);
            if (!e || e - (s + *i) > 10) return svgc_fail(c, *i, "'&' without an entity");
            size_t len = (size_t)(e - (s + *i)) + 1;
            const char *rep = NULL;
            if (!strncmp(s + *i, "&amp;", len)) rep = "&";
            else if (!strncmp(s + *i, "&lt;", len)) rep = "<";
            else if (!strncmp(s + *i, "&gt;", len)) rep = ">";
            else if (!strncmp(s + *i, "&quot;", len)) rep = "\"";
            else if (!strncmp(s + *i, "&apos;", len)) rep = "'";
            else if (s[*i + 1] == '#') rep = "?";
            else return svgc_fail(c, *i, "an unknown entity");
            if (keep) svgc_put(c, rep, strlen(rep));
            *i += len;
            continue;
        }
        if (u < 0x20 && u != '\n' && u != '\t' && u != '\r') return svgc_fail(c, *i, "a control character");
        size_t len = u < 0x80 ? 1 : (u & 0xe0) == 0xc0 ? 2 : (u & 0xf0) == 0xe0 ? 3 : (u & 0xf8) == 0xf0 ? 4 : 0;
        if (!len || *i + len > n) return svgc_fail(c, *i, "invalid UTF-8");
        for (size_t k = 1; k < len; k++)
            if (((unsigned char)s[*i + k] & 0xc0) != 0x80) return svgc_fail(c, *i, "invalid UTF-8");
        if (keep) svgc_put(c, s + *i, len);
        *i += len;
    }
    return 0;
}

/* 0 when s[0..n) is well-formed. */
static inline int svg_check(struct svg_check *c, const char *s, size_t n) {
    memset(c, 0, sizeof *c);
    char stack[64][32];
    int depth = 0, roots = 0;
    size_t i = 0;
    while (i < n) {
        if (s[i] != '<') {
            if (depth == 0) {
                if (s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r') return svgc_fail(c, i, "text outside the root");
                i++;
                continue;
            }
            if (svgc_chars(c, s, n, &i, '<', 1) != 0) return -1;
            continue;
        }
        i++;
        if (i < n && s[i] == '/') {
            i++;
            size_t b = i;
            while (i < n && svgc_name_ch(s[i])) i++;
            if (depth == 0 || i - b != strlen(stack[depth - 1]) || strncmp(s + b, stack[depth - 1], i - b))
                return svgc_fail(c, b, "a closing tag that does not match");
            depth--;
            while (i < n && s[i] == ' ') i++;
            if (i >= n || s[i] != '>') return svgc_fail(c, i, "'>' expected");
            i++;
            svgc_put(c, "\n", 1);
            continue;
        }
        size_t b = i;
        while (i < n && svgc_name_ch(s[i])) i++;
        if (i == b || i - b >= 32) return svgc_fail(c, b, "a bad element name");
        if (depth == 0 && roots++) return svgc_fail(c, b, "a second root element");
        if (depth >= 64) return svgc_fail(c, b, "too deep");
        memcpy(stack[depth], s + b, i - b);
        stack[depth][i - b] = '\0';
        c->elements++;
        char seen[32][32];
        int nseen = 0;
        for (;;) {
            while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t')) i++;
            if (i >= n) return svgc_fail(c, i, "end inside a tag");
            if (s[i] == '>') { i++; depth++; break; }
            if (s[i] == '/' && i + 1 < n && s[i + 1] == '>') { i += 2; break; }
            size_t a = i;
            while (i < n && svgc_name_ch(s[i])) i++;
            if (i == a || i - a >= 32) return svgc_fail(c, a, "a bad attribute name");
            for (int k = 0; k < nseen; k++)
                if (strlen(seen[k]) == i - a && !strncmp(seen[k], s + a, i - a)) return svgc_fail(c, a, "a repeated attribute");
            if (nseen < 32) { memcpy(seen[nseen], s + a, i - a); seen[nseen++][i - a] = '\0'; }
            if (i + 1 >= n || s[i] != '=' || (s[i + 1] != '"' && s[i + 1] != '\'')) return svgc_fail(c, i, "=\"value\" expected");
            char q = s[i + 1];
            i += 2;
            size_t v = i;
            if (svgc_chars(c, s, n, &i, q, 0) != 0) return -1;
            if (i >= n) return svgc_fail(c, v, "an unterminated value");
            if (i - a > 0 && !strncmp(s + a, "fill=", 5) && i - v == 7 && s[v] == '#' && c->nfills < 4096) {
                int dup = 0;
                for (int k = 0; k < c->nfills && !dup; k++) dup = !strncmp(c->fills[k], s + v, 7);
                if (!dup) { memcpy(c->fills[c->nfills], s + v, 7); c->fills[c->nfills++][7] = '\0'; }
            }
            i++;
        }
    }
    if (depth) return svgc_fail(c, n, "unclosed elements at the end");
    if (!roots) return svgc_fail(c, n, "no root element");
    if (!c->text) svgc_put(c, "", 0);
    return 0;
}

static inline int svg_check_has_fill(const struct svg_check *c, const char *hex) {
    for (int k = 0; k < c->nfills; k++)
        if (!strcmp(c->fills[k], hex)) return 1;
    return 0;
}

static inline void svg_check_free(struct svg_check *c) {
    free(c->text);
    c->text = NULL;
}

#endif
