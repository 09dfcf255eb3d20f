/* The JSON tokenizer's structural index (json_scan.h, the two-pass walks of
 * json.c): the masks of each variant against a byte-by-byte reading, the
 * escapes and the in-string parity against a sequential reading, and the
 * tokens of the two-pass walks against the one-pass portable tokenizer on
 * inputs whose strings, escapes and backslash runs cross the 64-byte
 * blocks at every offset, cut at every length. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json.h"
#include "src/io/common/json_scan.h"
#include "tests/lex_diff.h"
#include "tests/pt_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The masks of 64 bytes read one byte at a time. */
static void blk_reference(const unsigned char *p, struct json_blk *b, int skip) {
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 64; i++) {
        uint64_t bit = (uint64_t)1 << i;
        unsigned char c = p[i];
        if (c == '"') b->quote |= bit;
        if (c == '\\') b->bs |= bit;
        if (skip) {
            if (c == '{' || c == '}' || c == '[' || c == ']') b->brk |= bit;
        } else {
            if (!(c == ' ' || c == '\n' || c == '\t' || c == '\r')) b->nw |= bit;
            if (c < 0x20) b->ctl |= bit;
        }
    }
}

static int blk_same(const struct json_blk *a, const struct json_blk *b) {
    return a->nw == b->nw && a->quote == b->quote && a->bs == b->bs && a->ctl == b->ctl && a->brk == b->brk;
}

/* Every variant's masks on random bytes and on JSON-ish bytes. */
static void masks_agree(void) {
    static const char alphabet[] = " \n\t\r\"\\{}[]:,0a\x01\x1f\x20\x7f\x80\xff[{";
    unsigned char buf[64];
    for (int round = 0; round < 20000; round++) {
        for (int i = 0; i < 64; i++)
            buf[i] = round & 1 ? (unsigned char)next_rand() : (unsigned char)alphabet[next_rand() % (sizeof alphabet - 1)];
        for (int skip = 0; skip <= 1; skip++) {
            struct json_blk want, got;
            blk_reference(buf, &want, skip);
            json_blk_portable((const char *)buf, &got, skip);
            CHECK(blk_same(&want, &got));
#if JSON_HAVE_SSE2
            json_blk_sse2((const char *)buf, &got, skip);
            CHECK(blk_same(&want, &got));
            if (json_scan_best() == JSON_SCAN_AVX2) {
                if (skip) json_blk_skip_avx2((const char *)buf, &got);
                else json_blk_avx2((const char *)buf, &got);
                CHECK(blk_same(&want, &got));
            }
#endif
        }
    }
}

/* Escapes and strings over a run of blocks read one byte at a time, as the
 * tokenizer reads a string: a backslash escapes the next byte, quotes not
 * escaped open and close strings. */
static void escapes_and_strings(void) {
    enum { NB = 4 };
    static const char alphabet[] = "\\\\\\\"\"a{]";
    char buf[64 * NB];
    long checked = 0;
    for (int round = 0; round < 20000; round++) {
        int dense = round % 3;   /* 0: mostly backslashes, runs across the boundaries */
        for (int i = 0; i < 64 * NB; i++)
            buf[i] = dense == 0 ? (next_rand() % 8 ? '\\' : '"') : alphabet[next_rand() % (sizeof alphabet - 1)];
        uint64_t want_esc[NB] = {0}, want_in[NB] = {0};
        int esc = 0, in = 0;
        for (int i = 0; i < 64 * NB; i++) {
            uint64_t bit = (uint64_t)1 << (i % 64);
            if (esc) { want_esc[i / 64] |= bit; esc = 0; }
            else if (buf[i] == '\\') esc = 1;
            else if (buf[i] == '"') in = !in;
            if (in) want_in[i / 64] |= bit;   /* the opening quote in, the closing one out */
        }
        unsigned carry = 0;
        uint64_t inside = 0;
        for (int k = 0; k < NB; k++) {
            struct json_blk b;
            json_blk_portable(buf + 64 * k, &b, 1);
            uint64_t e = json_blk_escaped(b.bs, &carry);
            uint64_t s = json_blk_prefix_xor(b.quote & ~e) ^ inside;
            inside = 0 - (s >> 63);
            CHECK(e == want_esc[k]);
            CHECK(s == want_in[k]);
            checked++;
        }
    }
    CHECK(checked > 0);
}

/* The two-pass walks and the one-pass variants against the portable
 * tokenizer with strtod numbers, whole and streamed in pieces, skipping
 * every container or none. */
static long walks_agree(const char *buf, size_t n) {
    int scans[LEXDIFF_SCANS], nscans = lexdiff_scans(scans);
    long compared = 0;
    for (unsigned skip = 0; skip <= 1; skip++)
        for (size_t piece = 0; piece <= 5; piece += 5) {
            struct lexdiff_out ref;
            lexdiff_run(buf, n, JSON_SCAN_PORTABLE, 1, piece, skip, &ref);
            for (int i = 0; i < nscans; i++) {
                struct lexdiff_out o;
                lexdiff_run(buf, n, scans[i], 0, piece, skip, &o);
                long at = lexdiff_cmp(&ref, &o);
                if (at >= 0)
                    fprintf(stderr, "scan %d piece %zu skip %u, %zu bytes: differs at record %ld: %.*s\n", scans[i], piece,
                            skip, n, at, (int)n, buf);
                CHECK(at < 0);
                compared++;
                lexdiff_free(&o);
            }
            lexdiff_free(&ref);
        }
    return compared;
}

/* Strings with an escaped quote, a backslash run (even and odd), a control
 * byte, or brackets inside, whose interesting byte falls at every offset
 * around the 64- and 128-byte marks from where the walk starts its blocks;
 * each input also cut at every length near those marks. */
static void blocks_cut_everywhere(void) {
    static const char *mid[] = {"\\\"", "\\\\\\\\\"x", "\\\\\\\\\\\"", "\x1f", "\\\x01", "]}\\\\", "\\u00e9\\n",
                                "\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"", "\"]\\\\"};
    char buf[512];
    long compared = 0;
    for (size_t k = 0; k < sizeof mid / sizeof *mid; k++)
        for (int at = 40; at < 140; at++) {
            char fill[200];
            memset(fill, 'a', sizeof fill);
            int n = snprintf(buf, sizeof buf, "{\"k\": [1, {\"s\": \"%.*s%s%.*s\"}, [\"x\\\\\", \"]\"]], \"t\": %.*s\"e\\\"q\"}", at,
                             fill, mid[k], 150 - at, fill, at % 9 + 1, "          ");
            /* whole, and cut at every length around the block marks */
            compared += walks_agree(buf, (size_t)n);
            for (int cut = 60; cut < 70 && cut < n; cut++) compared += walks_agree(buf, (size_t)cut);
            for (int cut = 124; cut < 134 && cut < n; cut++) compared += walks_agree(buf, (size_t)cut);
            for (int cut = at + 2; cut < at + 12 && cut < n; cut++) compared += walks_agree(buf, (size_t)cut);
        }
    CHECK(compared > 0);
}

/* A backslash outside strings (bad JSON the skip does not check): the
 * index would read it as an escape, the one-pass skip as a byte; the walk
 * must hand over and agree, wherever it falls. */
static void backslash_outside_strings(void) {
    char buf[400];
    long compared = 0;
    for (int at = 0; at < 140; at++) {
        int n = snprintf(buf, sizeof buf, "[[%*s\\\"], \"x\"], [1, \\\"]\"]\"]], 2]", at, "");
        compared += walks_agree(buf, (size_t)n);
        n = snprintf(buf, sizeof buf, "{\"a\": [%*s1\\], \"b\": \"%*s\\\\\"}", at, "", at % 70, "");
        compared += walks_agree(buf, (size_t)n);
    }
    CHECK(compared > 0);
}

/* Long values of many blocks: deep nesting in a skip, long strings. */
static void long_values(void) {
    static char buf[20000];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"deep\": ");
    for (int i = 0; i < 600; i++) buf[n++] = '[';
    for (int i = 0; i < 600; i++) buf[n++] = ']';
    n += (size_t)snprintf(buf + n, sizeof buf - n, ", \"ok\": [");
    for (int i = 0; i < 100; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s{\"k%d\": [\"%0*d\\\\\", %d.5e-3]}", i ? ", " : "", i, i * 3 % 150 + 1, i, i);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "]}");
    CHECK(walks_agree(buf, n) > 0);
    /* the deep part alone is fine below 512 levels */
    n = 0;
    for (int i = 0; i < 500; i++) buf[n++] = '[';
    n += (size_t)snprintf(buf + n, sizeof buf - n, "\"%0200d\"", 7);
    for (int i = 0; i < 500; i++) buf[n++] = ']';
    CHECK(walks_agree(buf, n) > 0);
}

int main(void) {
    RUN(masks_agree);
    RUN(escapes_and_strings);
    RUN(blocks_cut_everywhere);
    RUN(backslash_outside_strings);
    RUN(long_values);
    PT_DONE();
}
