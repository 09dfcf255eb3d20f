/* The readers' shared scans (src/io/common/json_scan.h), against byte-at-a-
 * time references written from JSON's rules: json_scan_str_end (a
 * string's closing quote from after its opening one, NULL at a control
 * byte or a cut, every escape stepped over whole, *esc set at a backslash)
 * with each stop at every offset around the 16-, 32- and 64-byte marks,
 * runs of backslashes before a quote (\\" ends the string, \\\" does not),
 * strings cut at every length; json_scan_ws on runs of white space of
 * every length, newlines and indentation included, cut anywhere; then both
 * on many strings made of the bytes that matter. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json_scan.h"
#include "tests/pt_test.h"

#define BUF 256

/* JSON's string rule a byte at a time: a quote ends it, a byte < 0x20
 * cannot be in it, a backslash takes the byte after it (a cut when there
 * is none). */
static const char *ref_str_end(const char *p, const char *end, int *esc) {
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p;
        if (c < 0x20) return NULL;
        if (c == '\\') {
            if (end - p < 2) return NULL;
            *esc = 1;
            p += 2;
            continue;
        }
        p++;
    }
    return NULL;
}

static const char *ref_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) p++;
    return p;
}

static long shown;

/* json_scan_str_end on [b, b + n) as the reference and as expected (the
 * closing quote's offset, -1 for NULL; the escape flag). */
static void str_case(const char *src, size_t n, long want, int want_esc) {
    int esc = 0, resc = 0;
    char *b = malloc(n ? n : 1);   /* exactly n bytes: AddressSanitizer sees a read past the end */
    if (!b) abort();
    memcpy(b, src, n);
    const char *q = json_scan_str_end(b, b + n, &esc), *r = ref_str_end(b, b + n, &resc);
    long got = q ? (long)(q - b) : -1, ref = r ? (long)(r - b) : -1;
    free(b);
    if (got == want && ref == want && esc == want_esc && resc == want_esc) {
        pt_pass++;
        return;
    }
    pt_fail++;
    if (shown++ < 10)
        fprintf(stderr, "str_end of \"%.*s\" (%zu bytes): %ld esc %d, reference %ld esc %d, expected %ld esc %d\n", (int)n, src, n,
                got, esc, ref, resc, want, want_esc);
}

/* The buffer starts at 1..3 bytes past an aligned address: its loads are
 * unaligned as a reader's are. */
static char *at_shift(char *store, int shift) { return store + 1 + shift; }

/* Plain strings of every length 0..100 (the closing quote at every offset),
 * then each escape (\" \\ \n \/ \u0022) placed at every offset 0..80, the
 * escape's bytes themselves straddling each block's edge. */
static void escapes_at_block_edges(void) {
    static char store[BUF + 8];
    static const char *const escs[] = {"\\\"", "\\\\", "\\n", "\\/", "\\u0022"};
    for (int shift = 0; shift < 3; shift++) {
        char *b = at_shift(store, shift);
        for (size_t len = 0; len <= 100; len++) {
            memset(b, 'a', BUF - 8);
            b[len] = '"';
            str_case(b, BUF - 8, (long)len, 0);
            str_case(b, len + 1, (long)len, 0);   /* the quote the last byte */
        }
        for (size_t e = 0; e < sizeof escs / sizeof *escs; e++)
            for (size_t at = 0; at <= 80; at++) {
                size_t el = strlen(escs[e]);
                for (size_t after = 0; after <= 34; after += 1 + (after > 3) * 5) {
                    memset(b, 'x', BUF - 8);
                    memcpy(b + at, escs[e], el);
                    size_t close = at + el + after;
                    b[close] = '"';
                    str_case(b, BUF - 8, (long)close, 1);
                }
            }
    }
}

/* k backslashes then a quote, at every offset: an even run escapes itself
 * and the quote closes the string; an odd one escapes the quote, and the
 * string ends at the next quote. */
static void backslash_runs(void) {
    static char store[BUF + 8];
    char *b = at_shift(store, 0);
    for (size_t at = 0; at <= 70; at++)
        for (size_t k = 1; k <= 6; k++) {
            memset(b, 'y', BUF - 8);
            memset(b + at, '\\', k);
            b[at + k] = '"';
            b[at + k + 3] = '"';
            str_case(b, BUF - 8, (long)(k % 2 ? at + k + 3 : at + k), 1);
        }
    /* by hand: "a\\" ends after the pair, "a\\\"b" has the quote inside */
    memcpy(b, "a\\\\\"zz", 7);
    str_case(b, 7, 3, 1);
    memcpy(b, "a\\\\\\\"b\"", 8);
    str_case(b, 8, 6, 1);
}

/* A string cut at every length: no closing quote in [b, b + n) is NULL,
 * also when the last byte is a backslash whose escaped byte is past the
 * end, or a backslash and the quote it escapes. */
static void cut_strings(void) {
    static char store[BUF + 8];
    char *b = at_shift(store, 1);
    for (size_t n = 0; n <= 100; n++) {
        memset(b, 'c', BUF - 8);
        b[n] = '"';   /* right past the end */
        str_case(b, n, -1, 0);
        if (n >= 1) {
            b[n - 1] = '\\';   /* a backslash the last byte */
            str_case(b, n, -1, 0);
            str_case(b, n + 1, -1, 1);   /* it escapes the quote, nothing after */
            str_case(b, n + 2, -1, 1);   /* ...nor a closing quote after it */
        }
    }
}

/* A control byte (< 0x20) at every offset ends the scan with NULL, also
 * right after an escape; one inside an escape is the escape's. */
static void control_bytes(void) {
    static char store[BUF + 8];
    char *b = at_shift(store, 2);
    for (size_t at = 0; at <= 80; at++) {
        memset(b, 'd', BUF - 8);
        b[at] = (char)(at % 32);
        b[at + 5] = '"';
        str_case(b, BUF - 8, -1, 0);
        if (at >= 2) {
            b[at - 2] = '\\';
            b[at - 1] = 'n';
            str_case(b, BUF - 8, -1, 1);
            b[at - 1] = '\\';
            b[at - 2] = 'd';
            str_case(b, BUF - 8, (long)at + 5, 1);   /* "\<control>": stepped over with its backslash */
        }
    }
}

/* White space: none, one space, a newline and 0..70 spaces of
 * indentation, tabs and carriage returns, each run followed by a token or
 * cut at every length. */
static void ws_runs(void) {
    static char store[BUF + 8];
    char *b = at_shift(store, 0);
    static const char *const heads[] = {"", " ", "\n", "\r\n", "\t", " \n", "\n\t"};
    for (size_t h = 0; h < sizeof heads / sizeof *heads; h++)
        for (size_t ind = 0; ind <= 70; ind++) {
            size_t hl = strlen(heads[h]), run = hl + ind;
            memcpy(b, heads[h], hl);
            memset(b + hl, ' ', ind);
            b[run] = '"';
            memset(b + run + 1, 'e', 8);
            for (size_t n = 0; n <= run + 2; n++) {
                char *c = malloc(n ? n : 1);   /* exactly n bytes, as str_case's */
                if (!c) abort();
                memcpy(c, b, n);
                const char *q = json_scan_ws(c, c + n), *r = ref_ws(c, c + n);
                long want = (long)(n < run ? n : run), got = (long)(q - c);
                int ok = q == c + want && q == r;
                free(c);
                if (ok) pt_pass++;
                else {
                    pt_fail++;
                    if (shown++ < 10) fprintf(stderr, "ws: head %zu indent %zu cut %zu: %ld, expected %ld\n", h, ind, n, got, want);
                }
            }
        }
    /* p past end is returned as it is */
    CHECK(json_scan_ws(b + 5, b + 3) == b + 5);
    int esc = 0;
    CHECK(json_scan_str_end(b + 5, b + 3, &esc) == NULL && esc == 0);
}

/* Strings of the bytes that matter (a quote, a backslash, a control byte,
 * white space, high bytes, letters), each length up to 90: the same stop
 * and flag as the reference; and white space the same. */
static void many_against_reference(void) {
    static const char alpha[] = {'"', '\\', '\\', '\n', ' ', ' ', '\t', 0x1f, 0x7f, (char)0xff, 'a', 'b', 'c', 'd', 'e', 'f'};
    static char store[BUF + 8];
    uint64_t s = 0x9e3779b97f4a7c15ull;
    long bad = 0;
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        char *b = at_shift(store, (int)(s >> 62) % 3);
        size_t n = (size_t)(s >> 40) % 91;
        uint64_t r = s;
        int rare = (int)(s >> 33) % 4;   /* how often the bytes that stop appear */
        for (size_t j = 0; j < n; j++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            unsigned k = (unsigned)(r >> 59);
            b[j] = (int)(r >> 50) % 8 < rare + 4 ? alpha[10 + k % 6] : alpha[k % 16];
        }
        int e1 = 0, e2 = 0;
        const char *q = json_scan_str_end(b, b + n, &e1), *q2 = ref_str_end(b, b + n, &e2);
        if (q != q2 || e1 != e2 || json_scan_ws(b, b + n) != ref_ws(b, b + n)) bad++;
    }
    CHECK_INT(bad, 0);
}

int main(void) {
    RUN(escapes_at_block_edges);
    RUN(backslash_runs);
    RUN(cut_strings);
    RUN(control_bytes);
    RUN(ws_runs);
    RUN(many_against_reference);
    PT_DONE();
}
