/* test_decfloat: numbers read by the JSON tokenizer are the doubles strtod
 * gives, bit for bit (decfloat.h), on millions of random and awkward
 * decimal texts; and the tokenizer's scan variants (portable, SSE2, AVX2)
 * and number paths give the same tokens (tests/lex_diff.h). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/decfloat.h"
#include "src/io/common/json.h"
#include "tests/lex_diff.h"
#include "tests/pt_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A batch of number texts, lexed as one JSON array and compared with strtod. */
struct batch {
    char *text;
    size_t len, cap, n;
    long checked, wrong;
};

static void batch_flush(struct batch *b) {
    if (!b->n) return;
    b->text[b->len] = ']';
    struct pt_error err;
    struct json_lex lx;
    json_lex_init(&lx, b->text, b->len + 1, "numbers", &err);
    enum json_tok t = json_lex_next(&lx);
    CHECK_INT(t, JT_ARR_BEGIN);
    while ((t = json_lex_next(&lx)) == JT_NUMBER) {
        char tmp[512];
        size_t n = (size_t)(lx.pos - lx.tok_start);
        memcpy(tmp, lx.tok_start, n);
        tmp[n] = '\0';
        double want = strtod(tmp, NULL);
        b->checked++;
        if (memcmp(&want, &lx.num, sizeof want)) {
            if (b->wrong++ < 10) fprintf(stderr, "%s: read %.17g, strtod %.17g\n", tmp, lx.num, want);
        }
    }
    if (t != JT_ARR_END) fprintf(stderr, "batch: %s\n", err.msg);
    CHECK_INT(t, JT_ARR_END);
    b->len = 0;
    b->n = 0;
    b->text[b->len++] = '[';
}

static void batch_add(struct batch *b, const char *num) {
    size_t n = strlen(num);
    if (b->len + n + 2 >= b->cap) {
        b->cap = (b->len + n + 2) * 2;
        b->text = realloc(b->text, b->cap);
    }
    if (b->n) b->text[b->len++] = ',';
    memcpy(b->text + b->len, num, n);
    b->len += n;
    if (++b->n == 4096) batch_flush(b);
}

static void batch_init(struct batch *b) {
    memset(b, 0, sizeof *b);
    b->cap = 1 << 16;
    b->text = malloc(b->cap);
    b->text[b->len++] = '[';
}

static void batch_done(struct batch *b, long want_at_least) {
    batch_flush(b);
    fprintf(stderr, "%ld numbers compared with strtod, %ld differ\n", b->checked, b->wrong);
    CHECK_INT(b->wrong, 0);
    CHECK(b->checked >= want_at_least);
    free(b->text);
}

/* Known hard cases: rounding at the ends of the range, ties, long texts. */
static void edges(void) {
    static const char *k[] = {
        "0", "-0", "0.0", "-0.0", "0e999999", "-0e-999999", "1", "-1", "0.1", "0.3", "1e23", "8.41e21",
        "9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995", "18014398509481985",
        "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "2.47032822920623272e-324",
        "4.9e-324", "5e-324", "1e-324", "3e-324", "7.4109846876186982e-324", "2.2250738585072011e-308",
        "2.2250738585072012e-308", "2.2250738585072014e-308", "2.225073858507201136057409796709131975934819546351645648e-308",
        "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1.797693134862315807937e308",
        "1.7976931348623158079372897140530341507993413271003782693617377898044496829276475094664736e308",
        "1e308", "1e309", "-1e309", "1e400", "1e-400", "1e-342", "1e-343", "9999999999999999999e-343", "1e-325",
        "123456789012345678901234567890", "0.000000000000000000000000000000001", "1.00000000000000011102230246251565404",
        "1.00000000000000011102230246251565405", "1.000000000000000111022302462515654042363166809082031250",
        "0.1000000000000000055511151231257827021181583404541015625", "3.0517578125e-05", "7.450580596923828125e-9",
        "1448997445238699", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616",
        "10000000000000000000", "9999999999999999999", "99999999999999999999", "12345678901234567890123e-30",
        "2.630000114440918", "151321.203125", "0.0012345678901234567", "6.02214076e23", "1.602176634e-19",
        "179769313486231570000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "1e-5", "1E5", "1e+5", "-1.5e-10", "0.5e1", "1.0e22", "1.0e23", "4503599627370496.5", "4503599627370497.5",
    };
    struct batch b;
    batch_init(&b);
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) batch_add(&b, k[i]);
    batch_done(&b, (long)(sizeof k / sizeof *k));
}

static double random_double(void) {
    for (;;) {
        uint64_t bits = next();
        double d;
        memcpy(&d, &bits, sizeof d);
        if (isfinite(d)) return d;
    }
}

/* Random doubles printed with 6 to 25 significant digits (17 round-trips,
 * 18 to 25 exercise the dropped digits), subnormals among them. */
static void random_doubles(void) {
    struct batch b;
    char s[96];
    batch_init(&b);
    for (int i = 0; i < 600000; i++) {
        double d = random_double();
        if (i % 8 == 0) {   /* subnormal */
            uint64_t bits = next() & 0x800fffffffffffffull;
            memcpy(&d, &bits, sizeof d);
        }
        static const int digits[] = {17, 16, 15, 6, 18, 19, 20, 25, 12};
        snprintf(s, sizeof s, "%.*g", digits[i % 9], d);
        batch_add(&b, s);
        if (i % 3 == 0) {
            snprintf(s, sizeof s, "%.17e", d);
            batch_add(&b, s);
        }
    }
    batch_done(&b, 800000);
}

/* Random significands of 1 to 22 digits at every power of ten (and past the
 * ends), with and without a decimal point. */
static void random_decimals(void) {
    struct batch b;
    char s[96];
    batch_init(&b);
    for (int i = 0; i < 1200000; i++) {
        int nd = 1 + (int)(next() % 22);
        char dig[32];
        for (int j = 0; j < nd; j++) dig[j] = (char)('0' + next() % 10);
        if (dig[0] == '0') dig[0] = '1';
        dig[nd] = '\0';
        int q = (int)(next() % 700) - 360;
        if (i % 2) {
            int at = 1 + (int)(next() % (unsigned)nd);   /* a point after `at` digits */
            snprintf(s, sizeof s, "%.*s.%se%d", at, dig, at < nd ? dig + at : "0", q);
        } else {
            snprintf(s, sizeof s, "%s%se%d", i % 4 ? "" : "-", dig, q);
        }
        batch_add(&b, s);
    }
    batch_done(&b, 1200000);
}

/* Ties and their neighbours: the exact half-way point between two doubles
 * (long double has room for it), then just above and just below. */
static void halfway(void) {
    if (LDBL_MANT_DIG < 55) SKIP("long double too narrow for half-way points");
    struct batch b;
    char s[512];
    batch_init(&b);
    for (int i = 0; i < 100000; i++) {
        double d = ldexp(1.0 + (double)(next() >> 12) / 4503599627370496.0, (int)(next() % 140) - 70);
        if (i % 10 == 0) d = ldexp((double)(next() >> 12), -1074 - (int)(next() % 3));   /* subnormal */
        long double mid = ((long double)d + (long double)nextafter(d, INFINITY)) / 2;
        int n = snprintf(s, sizeof s, "%.150Le", mid);   /* exact, then zeros */
        char *e = strchr(s, 'e');
        if (n <= 0 || !e) continue;
        char *z = e;
        while (z[-1] == '0') z--;   /* the exact decimal of the tie */
        char ex[16];
        snprintf(ex, sizeof ex, "%s", e);
        snprintf(z, sizeof s - (size_t)(z - s), "%s", ex);
        batch_add(&b, s);
        snprintf(z, sizeof s - (size_t)(z - s), "1%s", ex);   /* just above */
        batch_add(&b, s);
        if (z[-1] > '0' && z[-1] <= '9' && z[-2] != '.') {   /* just below */
            z[-1]--;
            snprintf(z, sizeof s - (size_t)(z - s), "9999%s", ex);
            batch_add(&b, s);
        }
    }
    batch_done(&b, 200000);
}

/* The wide path decides almost everything by itself: every power of ten and
 * 17-digit significands fall back to strtod rarely. */
static void decided(void) {
    long undecided = 0, total = 0, wrong = 0;
    char s[64];
    for (int q = -360; q <= 330; q++)
        for (int i = 0; i < 300; i++) {
            uint64_t w = i == 0 ? 1 : i == 1 ? 9999999999999999999ull : i == 2 ? ((uint64_t)1 << 53) + 1
                       : 10000000000000000ull + next() % 90000000000000000ull;
            if (i == 3) w = 1 + next() % ((uint64_t)1 << 53);   /* the small path's inputs, on the wide path below */
            double v, vw;
            total++;
            if (!decfloat_to_double(w, q, 0, 0, &v)) { undecided++; continue; }
            snprintf(s, sizeof s, "%llue%d", (unsigned long long)w, q);
            double want = strtod(s, NULL);
            if (memcmp(&v, &want, sizeof v) && wrong++ < 10) fprintf(stderr, "%s: %.17g, strtod %.17g\n", s, v, want);
            if (decfloat_wide(w, q, 0, 0, &vw) && memcmp(&vw, &want, sizeof vw) && wrong++ < 10)
                fprintf(stderr, "%s: wide path %.17g, strtod %.17g\n", s, vw, want);
        }
    fprintf(stderr, "%ld of %ld undecided\n", undecided, total);
    CHECK_INT(wrong, 0);
    CHECK(undecided * 1000 < total);
}

/* Inputs where the scans' blocks meet the stops: long strings, escapes and
 * control characters at every offset, deep skips, cut numbers. */
static void scans_agree(void) {
    static const char *base[] = {
        "{\"a\": [1, 2.5, -3e-7, \"x\\\"y\", {\"k\": null}], \"b\": true, \"c\": NaN, \"d\": -Infinity}",
        "[\"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\", \"\\u00e9\\n\", 1e400]",
        "{\"s\": \"tab\there\", \"deep\": [[[[{\"x\": \"]]}}\"}]]]], \"t\": [1, [2, [3]], {\"u\": \"\\\\\"}]}",
        "[1.7976931348623159e308, 0.1000000000000000055511151231257827021181583404541015625, 123456789012345678901234]",
        "{\"open\": [1, 2, {\"x\": \"unterminated",
    };
    int scans[LEXDIFF_SCANS], nscans = lexdiff_scans(scans);
    char buf[600];
    long compared = 0;
    for (size_t i = 0; i < sizeof base / sizeof *base; i++)
        for (int pad = 0; pad < 40; pad++) {   /* shifts every stop through the 16- and 32-byte blocks */
            int n = snprintf(buf, sizeof buf, "%*s%s%*s", pad, "", base[i], pad % 7, "");
            for (int step = 0; step < 3; step++) {
                if (step == 1) for (int j = pad; j < n; j += 13) if (buf[j] == ' ') buf[j] = '\n';
                struct lexdiff_out ref;
                lexdiff_run(buf, (size_t)n, JSON_SCAN_PORTABLE, 1, 0, (unsigned)step, &ref);
                for (int si = 0; si < nscans; si++)
                    for (size_t piece = 0; piece <= 7; piece += 7) {
                        struct lexdiff_out o, r2;
                        int scan = scans[si];
                        lexdiff_run(buf, (size_t)n, scan, 0, piece, (unsigned)step, &o);
                        const struct lexdiff_out *want = &ref;
                        if (piece) { lexdiff_run(buf, (size_t)n, JSON_SCAN_PORTABLE, 1, piece, (unsigned)step, &r2); want = &r2; }
                        long at = lexdiff_cmp(want, &o);
                        if (at >= 0) fprintf(stderr, "scan %d piece %zu: differs at token %ld of \"%s\"\n", scan, piece, at, buf);
                        CHECK(at < 0);
                        compared++;
                        lexdiff_free(&o);
                        if (piece) lexdiff_free(&r2);
                    }
                lexdiff_free(&ref);
            }
        }
    CHECK(compared > 0);
}

/* Every scan against the portable one with strtod numbers on the input
 * cut at every length: whole, and streamed in pieces of 3 bytes. */
static long cuts_agree(const char *buf, size_t n) {
    int scans[LEXDIFF_SCANS], nscans = lexdiff_scans(scans);
    long compared = 0;
    for (size_t len = 0; len <= n; len++)
        for (size_t piece = 0; piece <= 3; piece += 3) {
            struct lexdiff_out ref;
            lexdiff_run(buf, len, JSON_SCAN_PORTABLE, 1, piece, 0, &ref);
            for (int si = 0; si < nscans; si++) {
                int scan = scans[si];
                struct lexdiff_out o;
                lexdiff_run(buf, len, scan, 0, piece, 0, &o);
                long at = lexdiff_cmp(&ref, &o);
                if (at >= 0) fprintf(stderr, "scan %d piece %zu, %zu of %zu bytes: differs at token %ld\n", scan, piece, len, n, at);
                CHECK(at < 0);
                compared++;
                lexdiff_free(&o);
            }
            lexdiff_free(&ref);
        }
    return compared;
}

/* A string whose stop (a quote, an escape, a control byte, or none before
 * invalid UTF-8 and DEL) falls at each offset of the 16- and 32-byte
 * blocks, the input cut at every length. */
static void scans_cut_everywhere(void) {
    static const char *stops[] = {"\\\"", "\\\\", "\\u00e9", "\x1f", "\t", "\x80\xff\xc3", "\x7f\xe2\x82", "\""};
    char buf[160];
    long compared = 0;
    for (size_t k = 0; k < sizeof stops / sizeof *stops; k++)
        for (int at = 0; at < 40; at++) {
            int n = snprintf(buf, sizeof buf, "[\"%.*s%s%.*s\", -12.5e-3, {\"k\": [\"\\\\\"]}, 1]", at,
                             "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH", stops[k], 40 - at,
                             "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH");
            compared += cuts_agree(buf, (size_t)n);
        }
    CHECK(compared > 0);
}

/* PROBETOP_JSON_SCAN's names, and the processor's best as the ceiling. */
static void scan_names(void) {
    CHECK_INT(json_scan_pick(NULL, JSON_SCAN_AVX2), JSON_SCAN_AVX2);
    CHECK_INT(json_scan_pick("", JSON_SCAN_SSE2), JSON_SCAN_SSE2);
    CHECK_INT(json_scan_pick("portable", JSON_SCAN_AVX2), JSON_SCAN_PORTABLE);
    CHECK_INT(json_scan_pick("sse2", JSON_SCAN_AVX2), JSON_SCAN_SSE2);
    CHECK_INT(json_scan_pick("avx2", JSON_SCAN_AVX2), JSON_SCAN_AVX2);
    CHECK_INT(json_scan_pick("avx2", JSON_SCAN_SSE2), JSON_SCAN_SSE2);   /* a processor without AVX2 */
    CHECK_INT(json_scan_pick("sse2", JSON_SCAN_PORTABLE), JSON_SCAN_PORTABLE);
    CHECK_INT(json_scan_pick("AVX512", JSON_SCAN_SSE2), JSON_SCAN_SSE2);   /* unknown: the best */
    CHECK_INT(json_scan_pick("index-sse2", JSON_SCAN_AVX2 | JSON_SCAN_INDEX), JSON_SCAN_SSE2 | JSON_SCAN_INDEX);
    CHECK_INT(json_scan_pick("tokens-avx2", JSON_SCAN_SSE2 | JSON_SCAN_INDEX), JSON_SCAN_SSE2 | JSON_SCAN_TOKENS);
    CHECK_INT(json_scan_pick("avx2", JSON_SCAN_AVX2 | JSON_SCAN_INDEX), JSON_SCAN_AVX2);   /* one pass */
    CHECK_INT(json_scan_pick("index-", JSON_SCAN_SSE2), JSON_SCAN_SSE2);
    int d = json_scan_default();
    CHECK((d & 3) <= json_scan_best() && (d >> 2) <= 2);
    struct json_lex lx;
    struct pt_error err;
    json_lex_init(&lx, "1", 1, "t", &err);
    CHECK_INT(lx.scan, d & 3);
    CHECK_INT(lx.walk, d >> 2);
}

int main(void) {
    RUN(edges);
    RUN(random_doubles);
    RUN(random_decimals);
    RUN(halfway);
    RUN(decided);
    RUN(scans_agree);
    RUN(scans_cut_everywhere);
    RUN(scan_names);
    PT_DONE();
}
