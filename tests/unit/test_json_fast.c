/* The JSON tokenizer's fast path (json_lex.c: the SSE2 and AVX2 variants'
 * one-pass walk) against the portable tokenizer with every number through
 * strtod (tests/lex_diff.h: kinds, offsets, string flags, number bits,
 * skips, the final message): dump-like records whose keys, strings, white
 * space and numbers put their stops at every offset around the 16- and
 * 32-byte marks, numbers of every shape the fast path takes or leaves
 * (digit counts around 19, exponents around three digits, leading zeros,
 * bad ones), each input whole, streamed in pieces larger than the fast
 * path's room, and cut at every length near its end (the buffer's end
 * falling inside or just after each token). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json.h"
#include "tests/lex_diff.h"
#include "tests/pt_test.h"

static long failures_shown;

/* Every scan (lexdiff_scans), numbers by decfloat and by strtod, whole and
 * in pieces of 200 and 333 bytes, skipping no container or every second
 * one: the same transcript as the reference. */
static long agree(const char *buf, size_t n) {
    int scans[LEXDIFF_SCANS], nscans = lexdiff_scans(scans);
    static const size_t pieces[] = {0, 200, 333};
    long compared = 0;
    for (unsigned skip = 0; skip <= 2; skip += 2)
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            struct lexdiff_out ref;
            lexdiff_run(buf, n, JSON_SCAN_PORTABLE, 1, pieces[k], skip, &ref);
            for (int i = 0; i < nscans; i++)
                for (int slow = 0; slow <= 1; slow++) {
                    struct lexdiff_out o;
                    lexdiff_run(buf, n, scans[i], slow, pieces[k], skip, &o);
                    long at = lexdiff_cmp(&ref, &o);
                    if (at >= 0 && failures_shown++ < 5)
                        fprintf(stderr, "scan %d slow %d piece %zu skip %u, %zu bytes: differs at record %ld (%s | %s): %.*s\n",
                                scans[i], slow, pieces[k], skip, n, at, ref.msg, o.msg, (int)(n < 400 ? n : 400), buf);
                    CHECK(at < 0);
                    compared++;
                    lexdiff_free(&o);
                }
            lexdiff_free(&ref);
        }
    return compared;
}

/* buf whole, and cut at every length of its last `tail` bytes. */
static long agree_cut(const char *buf, size_t n, size_t tail) {
    long c = agree(buf, n);
    for (size_t cut = n > tail ? n - tail : 0; cut < n; cut++) c += agree(buf, cut);
    return c;
}

/* A record as msProbe indents it (one space a level), its first byte at
 * `lead` spaces of indentation, with `tok` as the value of "Max" and a
 * key of `klen` bytes; 200 bytes of room on either side so that the fast
 * path takes it, then the end near (tail). */
static size_t record(char *buf, size_t cap, int lead, int klen, const char *tok) {
    char key[64];
    memset(key, 'k', sizeof key);
    return (size_t)snprintf(buf, cap,
                            "{\"pad\": \"%0180d\",\n \"data\": {\n%*s\"%.*s\": {\n%*s \"type\": \"torch.Tensor\",\n%*s "
                            "\"shape\": [\n%*s  1,\n%*s  4096\n%*s ],\n%*s \"Max\": %s,\n%*s \"Min\": -1.5e-07,\n%*s "
                            "\"requires_grad\": false,\n%*s \"x\": null, \"y\": true, \"z\": {}, \"w\": []\n%*s}}, \"tail\": \"%0180d\"}",
                            7, lead, "", klen, key, lead, "", lead, "", lead, "", lead, "", lead, "", lead, "", tok, lead, "",
                            lead, "", lead, "", lead, "", 9);
}

/* Keys and indentation of every length around 16 and 32 bytes. */
static void keys_and_indents(void) {
    char buf[2048];
    long c = 0;
    for (int lead = 0; lead < 40; lead++)
        for (int klen = 0; klen < 40; klen += lead % 3 + 1) {
            size_t n = record(buf, sizeof buf, lead, klen, "3.25");
            c += agree(buf, n);
        }
    size_t n = record(buf, sizeof buf, 33, 17, "0.015625");
    c += agree_cut(buf, n, n - 190);   /* the end falling in every token */
    CHECK(c > 0);
}

/* Strings (values) with a quote, a backslash or a control byte at every
 * offset from the opening quote, and long ones. */
static void strings_every_offset(void) {
    static const char *stop[] = {"\\\"", "\\\\", "\\u00e9", "\x01", "\x1f", "\\n", "\"", "\x7f", "\xc3\xa9"};
    char tok[200], buf[2048];
    long c = 0;
    for (size_t s = 0; s < sizeof stop / sizeof *stop; s++)
        for (int at = 0; at < 70; at++) {
            snprintf(tok, sizeof tok, "\"%.*s%s%.*s\"", at, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
                     stop[s], 70 - at, "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ");
            size_t n = record(buf, sizeof buf, at % 20, at % 37, tok);
            c += agree(buf, n);
        }
    CHECK(c > 0);
}

/* Numbers the fast path takes (at most 19 digits, an exponent of at most
 * three) and the ones it leaves to lex_number, good and bad. */
static void numbers_every_shape(void) {
    static const char *fixed[] = {
        "0", "-0", "-0.0", "0.0", "01", "-01.5", "00", "1.", "-", "-.5", ".5", "1e", "1e+", "1e-", "1E5", "1e+05", "1e0999",
        "1e1000", "1e-400", "2e308", "1.7976931348623157e308", "4.9406564584124654e-324", "2.2250738585072014e-308",
        "9007199254740992", "9007199254740993", "9007199254740993.0", "1700000000010010.5", "1700000000010000.0",
        "18446744073709551615", "18446744073709551616", "9999999999999999999", "99999999999999999999",
        "0.1", "0.30000000000000004", "123456789012345678.9", "1234567890123456789.5", "0.0000000000000000001",
        "0.00000000000000000001", "-Infinity", "-Inf", "NaN", "Infinity", "-1.2345678901234567e-05", "1e-22", "1e22",
        "1e23", "5e-324", "1.5x", "1.5e3.2", "12e", "3.14e-", "-e5", "1-2", "1.2.3", "7e00001", "7e0001", "7e001"};
    char buf[2048];
    long c = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        size_t n = record(buf, sizeof buf, (int)i % 19, (int)i % 23, fixed[i]);
        c += agree(buf, n);
    }
    /* every count of integer and fraction digits, with and without an exponent */
    uint64_t rng = 0x2545f4914f6cdd1dull;
    for (int id = 0; id <= 22; id++)
        for (int fd = 0; fd <= 22; fd++)
            for (int ex = 0; ex <= 4; ex++) {
                char tok[80];
                size_t k = 0;
                if ((id + fd + ex) % 3 == 0) tok[k++] = '-';
                for (int d = 0; d < id; d++) {
                    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                    tok[k++] = (char)('0' + (d == 0 ? 1 + (rng >> 33) % 9 : (rng >> 33) % 10));
                }
                if (!id) tok[k++] = '0';
                if (fd) {
                    tok[k++] = '.';
                    for (int d = 0; d < fd; d++) {
                        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                        tok[k++] = (char)('0' + (d < fd / 3 ? 0 : (rng >> 33) % 10));
                    }
                }
                if (ex) {
                    tok[k++] = ex % 2 ? 'e' : 'E';
                    if (ex > 1) tok[k++] = ex % 2 ? '-' : '+';
                    for (int d = 0; d < ex; d++) tok[k++] = (char)('0' + (d + id) % 3);
                }
                tok[k] = '\0';
                size_t n = record(buf, sizeof buf, (id + fd) % 17, (fd * 3 + ex) % 35, tok);
                c += agree(buf, n);
            }
    CHECK(c > 0);
}

/* Digit runs (json_lex.c digits_fast: up to 16 digits in one compare)
 * of every length from 1 to 40 in the integer part and in the fraction,
 * each ended by a byte next to the digits ('/' and ':' around them, bytes
 * whose distance from '0' wraps, white space, a comma, an exponent, a
 * second point) at every offset around the 16- and 32-byte marks. */
static void digit_runs_and_neighbours(void) {
    static const char after[] = {'/', ':', ',', ' ', '\n', 'e', 'E', '.', '-', (char)0x80, (char)0xb9, (char)0xff, 0x1f};
    char tok[128], buf[2048];
    long c = 0;
    for (int run = 1; run <= 40; run++)
        for (size_t a = 0; a < sizeof after; a++)
            for (int frac = 0; frac <= 1; frac++) {
                size_t k = 0;
                if (run % 2) tok[k++] = '-';
                if (frac) { tok[k++] = '0'; tok[k++] = '.'; }
                for (int d = 0; d < run; d++) tok[k++] = (char)('0' + (d == 0 && !frac ? 1 + run % 9 : (d * 7 + run) % 10));
                tok[k++] = after[a];
                if (after[a] == 'e' || after[a] == 'E') tok[k++] = '7';
                tok[k] = '\0';
                size_t n = record(buf, sizeof buf, (run + (int)a) % 19, run % 23, tok);
                c += agree(buf, n);
            }
    CHECK(c > 0);
}

/* White space the fast path leaves to lex_next (tabs, CR LF, runs past 31
 * spaces, space before a colon or a comma), brackets and literals cut
 * short, bad bytes where a token is expected, nesting to the limit. */
static void other_runs_and_bad_bytes(void) {
    static const char *frag[] = {
        "{\"a\"\t:\t1,\r\n \"b\" : [ 1 , 2 ]}", "{\"a\": 1\n                                          , \"b\": 2}",
        "{\"a\":\n\n\n 1}", "[tru]", "[fals]", "[nul]", "{\"a\" 1}", "{\"a\": }", "{,}", "[1,]", "{\"a\": 1,}", "[1 2]",
        "{\"a\": 1]", "[1}", "{\"a\": \"b\"\"c\"}", "{\"a\": [\x01]}", "{\"\\u0041\": 1}", "{\"a\":1,\"b\":[true,false,null]}",
        "[\"x\"]garbage", "{\"a\": -}", "{\"a\": 1}  {\"b\": 2}", "[NaN, Infinity, -Infinity, -Inf]",
        "{\"k\": \"a\\\\\"}", "{\"k\\\\\": 1}", "{\"k\": \"v\", \"\": \"\"}", "{\"a\x01:b\": 1}", "{\"a\\:\": 1}", "{\"a\\\":\": 1}", "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]",
        /* indentation as guessed, then other runs at the same depth */
        "{\"a\": 1,\n  \"b\": 2,\n  \t\"c\": 3,\n  \n  \"d\": 4,\n \"e\": 5,\n   \"f\": 6,\n  \r\"g\": 7,\n  \"h\": [\n   1,\n   2\n  \n  ]}",
        "[\n  1,\n  2,\n:,3]", "{\n  \"a\": 1,\n  \"b\": 2,\n.x\"c\": 3}", "[\n [\n  1\n ],\n [\n  2\n x]]"};
    char buf[4096];
    long c = 0;
    for (size_t i = 0; i < sizeof frag / sizeof *frag; i++)
        for (int lead = 0; lead < 36; lead += 7) {
            int n = snprintf(buf, sizeof buf, "{\"pad\": \"%0200d\",%*s\"v\": %s, \"tail\": \"%0200d\"}", 3, lead, "", frag[i], 4);
            c += agree(buf, (size_t)n);   /* room after it: the fast path */
            n = snprintf(buf, sizeof buf, "{\"pad\": \"%0200d\",%*s\"v\": %s}", 3, lead, "", frag[i]);
            c += agree_cut(buf, (size_t)n, 40);   /* the end near */
        }
    /* nesting at the limit (512) and past it, with room around */
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"pad\": \"%0200d\", \"deep\": ", 1);
    for (int i = 0; i < 513; i++) buf[n++] = i % 2 ? '{' : '[';
    c += agree(buf, n);
    n = 0;
    for (int i = 0; i < 511; i++) buf[n++] = '[';
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"k\": [1, 2]}");
    for (int i = 0; i < 511; i++) buf[n++] = ']';
    c += agree_cut(buf, n, 30);
    CHECK(c > 0);
}

/* A longer dump-like text: every record shape above after the other, so
 * that the fast path runs for thousands of tokens, then its end. */
static void long_dump_text(void) {
    static char buf[1 << 16];
    size_t n = (size_t)snprintf(buf, sizeof buf, "{\n \"task\": \"statistics\",\n \"data\": {");
    for (int r = 0; r < 120 && n + 600 < sizeof buf; r++)
        n += (size_t)snprintf(buf + n, sizeof buf - n,
                              "%s\n  \"Module.layer%d.forward.%d\": {\n   \"input_args\": [\n    {\n     \"type\": \"torch.Tensor\",\n"
                              "     \"dtype\": \"torch.bfloat16\",\n     \"shape\": [\n      %d,\n      4096\n     ],\n"
                              "     \"Max\": %d.%0*d,\n     \"Min\": -%d.%de-%02d,\n     \"Mean\": %de%d,\n     \"Norm\": %s,\n"
                              "     \"requires_grad\": %s,\n     \"data_name\": \"a\\\"b%d\"\n    }\n   ]\n  }",
                              r ? "," : "", r, r * 7, r + 1, r, r % 17 + 1, r * 31 % 1000, r % 9 + 1, r * 13, r % 40,
                              r % 10, r % 4, r % 5 ? "12.5" : "NaN", r % 2 ? "true" : "false", r);
    n += (size_t)snprintf(buf + n, sizeof buf - n, "\n }\n}\n");
    CHECK(agree_cut(buf, n, 24) > 0);   /* the closing brackets (the shorter ends are other_runs_and_bad_bytes') */
}

/* The guessed lengths of keys and string values (the fast path learns
 * them per key before): records that train the guess, then a key and a
 * value of every length around it, with an escape, a control byte or a
 * quote just before, at and after the guessed end, then the trained
 * records again, and the end of the buffer in each. */
static void guessed_lengths(void) {
    static const char *val[] = {"torch.bfloat16", "torch.bfloat1", "torch.bfloat16x", "torch.bfloat1\\\\", "torch.bfloat\\\"6",
                                "torch.bfloat16\\u0041", "torch.bfloat1\x01", "torch.bfloat16\x01", "", "t", "torch.bfloat16abc",
                                "torch.bfloat\"6", "torch.bfloat1\\"};
    static const char *key[] = {"dtype", "dtyp", "dtypex", "dtyp\\\\", "dty\\\"e", "", "d", "dtype\x02", "dtyp\x02",
                                "dtypedtypedtyped", "dtypedtypedtype", "dty\"e", "dtyp\\"};
    static char buf[1 << 14];
    long c = 0;
    for (size_t v = 0; v < sizeof val / sizeof *val; v++)
        for (size_t k = 0; k < sizeof key / sizeof *key; k++) {
            size_t n = (size_t)snprintf(buf, sizeof buf, "{\"pad\": \"%0180d\",\n \"data\": [", 7);
            for (int r = 0; r < 12; r++) {
                int odd = r == 10;
                n += (size_t)snprintf(buf + n, sizeof buf - n,
                                      "%s\n  {\n   \"type\": \"torch.Tensor\",\n   \"%s\": \"%s\",\n   \"Max\": %d.5,\n"
                                      "   \"Min\": -1.25,\n   \"requires_grad\": false\n  }",
                                      r ? "," : "", odd ? key[k] : "dtype", odd ? val[v] : "torch.bfloat16", r);
            }
            n += (size_t)snprintf(buf + n, sizeof buf - n, "\n ]\n}\n");
            /* cut at every length for one key per value (and one value
             * per key): (v + k) % 13 pairs each of the 13 with one of the
             * other; whole for the rest (a quarter cut took 300 s under
             * ASan on a loaded 2-core machine) */
            c += (v + k) % 13 == 0 ? agree_cut(buf, n, 420) : agree(buf, n);
        }
    CHECK(c > 0);
}

/* Item lists as the dump parser reads them (json_lex_next_item): objects,
 * empty ones, the list's close after white space of every length, other
 * items between (numbers, strings, lists, null), a missing comma, a comma
 * before the close, an empty list; whole and with the end falling in
 * every token. */
static void item_lists(void) {
    static const char *const lists[] = {
        "[{}, {\"a\": 1},\n    {\"b\": [1, 2]}\n   ]", "[\n {}\n]", "[]", "[ ]", "[{}, 1, \"s\", [2], null, {}]",
        "[{} {}]", "[{}, ]", "[, {}]", "[{},\n\n\t {}]", "[[{}], {\"x\": {}}]", "[{},{},{},{},{},{},{},{}]", "[{\"a\": [{}]}]"};
    char buf[4096];
    long c = 0;
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        for (int ws = 0; ws < 40; ws += 3) {
            size_t n = (size_t)snprintf(buf, sizeof buf, "{\"pad\": \"%0180d\", \"l\": %s%*s, \"m\": [%s], \"tail\": \"%0180d\"}",
                                        7, lists[i], ws, "", lists[i], 9);
            c += agree(buf, n);
        }
    size_t n = (size_t)snprintf(buf, sizeof buf, "{\"pad\": \"%0180d\", \"l\": %s}", 7, lists[0]);
    c += agree_cut(buf, n, n - 190);
    CHECK(c > 0);
}

/* A dump's records and keyword inputs as parse_data and parse_kwargs read
 * them (json_lex_key_open, keys of at most LEXDIFF_KEY_MAX bytes there):
 * the first member after the '{' and the next ones, keys of every length
 * around it, white space before and after the comma and the ':', white space between
 * the key and its ':', an escape, a control byte or a quote cut short in
 * the key, a value that is not an object, a missing ':' or comma; whole
 * and with the end falling in every token. */
static void record_keys(void) {
    static const char *const seps[] = {", ", ",\n  ", " ,\t", ",", "\n\n,\r\n "};
    static const char *const colons[] = {": ", ":", ":\n\t ", " : ", ""};
    static const char *const odd[] = {"", "\\\"", "\\u00e9", "\x01", "\x7f", "\xc3\xa9"};
    static const char *const vals[] = {"{}", "{\"a\": [1]}", "[1]", "3", "\"s\"", "null"};
    char buf[4096], key[64];
    long c = 0;
    for (int klen = 0; klen < 24; klen++)
        for (size_t s = 0; s < sizeof seps / sizeof *seps; s++)
            for (size_t k = 0; k < sizeof colons / sizeof *colons; k++)
                for (size_t o = 0; o < sizeof odd / sizeof *odd; o++) {
                    if (o && (k || s)) continue;
                    int at = klen / 2;
                    snprintf(key, sizeof key, "%.*s%s%.*s", at, "kkkkkkkkkkkkkkkkkkkkkkkk", odd[o], klen - at,
                             "mmmmmmmmmmmmmmmmmmmmmmmm");
                    for (size_t v = 0; v < sizeof vals / sizeof *vals; v += (k || s || o) ? 5 : 1) {
                        size_t n = (size_t)snprintf(buf, sizeof buf,
                                                    "{\"pad\": \"%0180d\", \"data\": {\"a\": {}%s\"%s\"%s%s%s\"b\": {}}, "
                                                    "\"tail\": \"%0180d\"}",
                                                    7, seps[s], key, colons[k], vals[v], seps[(s + 1) % 5], 9);
                        c += agree(buf, n);
                    }
                }
    /* the first member, straight after the '{' (the keyword inputs): the
     * same keys, white space (none, a space, lines) before it, the values */
    static const char *const opens[] = {"", " ", "\n  ", "\n\n \t", "\r\n", "\n                   "};
    for (int klen = 0; klen < 24; klen++)
        for (size_t s = 0; s < sizeof opens / sizeof *opens; s++)
            for (size_t k = 0; k < sizeof colons / sizeof *colons; k++)
                for (size_t o = 0; o < sizeof odd / sizeof *odd; o++) {
                    if (o && k) continue;
                    int at = klen / 2;
                    snprintf(key, sizeof key, "%.*s%s%.*s", at, "kkkkkkkkkkkkkkkkkkkkkkkk", odd[o], klen - at,
                             "mmmmmmmmmmmmmmmmmmmmmmmm");
                    for (size_t v = 0; v < sizeof vals / sizeof *vals; v += (k || o) ? 5 : 1) {
                        size_t n = (size_t)snprintf(buf, sizeof buf,
                                                    "{\"pad\": \"%0180d\", \"data\": {%s\"%s\"%s%s%s\"b\": {}}, "
                                                    "\"tail\": \"%0180d\"}",
                                                    7, opens[s], key, colons[k], vals[v], seps[s % 5], 9);
                        c += agree(buf, n);
                    }
                }
    size_t n = (size_t)snprintf(buf, sizeof buf, "{\"pad\": \"%0180d\", \"data\": {\"a\": {}, \"kkk\": {\"x\": 1},\n \"m\":{}} }", 7);
    c += agree_cut(buf, n, n - 190);
    CHECK(c > 0);
}

/* json_lex_number_fast (the dump's tensor objects read from their bytes)
 * against the tokenizer with strtod on the same bytes: where it reads a
 * number, the same end and the same bits.  Every count of integer and
 * fraction digits to 17 (its shortcut takes 8 and 8, 14 in all), leading
 * zeros, signs, and each byte after the digits (an exponent, a point, a
 * comma, a bracket, white space, a letter, the digits' neighbours '/'
 * and ':'). */
static long number_fast_pad(const char *tok, const char *after, int pad) {
    char buf[512];
    int n = snprintf(buf, sizeof buf, "[%*s%s%s, 1]%200s", pad, "", tok, after, "");
    struct json_lex lx, fx;
    struct pt_error err, ferr;
    json_lex_init(&lx, buf, (size_t)n, "t", &err);
    lx.scan = JSON_SCAN_PORTABLE;
    lx.slow_numbers = 1;
    json_lex_init(&fx, buf, (size_t)n, "t", &ferr);
    if (json_lex_next(&lx) != JT_ARR_BEGIN) return 0;
    enum json_tok t = json_lex_next(&lx);
    double v = 0;
    const char *q = json_lex_number_fast(&fx, buf + 1 + pad, &v);
    if (!q) return 0;
    int same = t == JT_NUMBER && q == lx.pos && !memcmp(&v, &lx.num, sizeof v);
    /* a number the tokenizer refuses (a leading zero): the fast read stops
     * where the tokens would have, at a byte no member can follow */
    if (t != JT_NUMBER) same = (unsigned)(*q - '0') <= 9;
    if (!same && failures_shown++ < 5)
        fprintf(stderr, "json_lex_number_fast(\"%s%s\"): %.17g ending at %d, tokens %.17g ending at %d (tok %d)\n", tok,
                after, v, (int)(q - buf), lx.num, (int)(lx.pos - buf), (int)t);
    CHECK(same);
    return 1;
}

/* (the number right after the buffer's first byte: num_window leaves
 * those within 17 bytes of it to num_scan_fast) */
static long number_fast_one(const char *tok, const char *after) {
    return number_fast_pad(tok, after, 0) + number_fast_pad(tok, after, 20);
}

static void number_fast_shapes(void) {
    static const char *const after[] = {"", "e5", "E-3", ".5", "/", ":", " ", "]", "x", "0e1"};
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    long c = 0;
    for (int neg = 0; neg <= 1; neg++)
        for (int id = 0; id <= 17; id++)
            for (int fd = 0; fd <= 17; fd++)
                for (int lead0 = 0; lead0 <= 1; lead0++)
                    for (size_t a = 0; a < sizeof after / sizeof *after; a++) {
                        char tok[64];
                        size_t k = 0;
                        if (neg) tok[k++] = '-';
                        for (int d = 0; d < id; d++) {
                            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                            tok[k++] = (char)('0' + (d == 0 && !lead0 ? 1 + (rng >> 33) % 9 : (rng >> 33) % 10));
                        }
                        if (!id) tok[k++] = '0';
                        if (fd) tok[k++] = '.';
                        for (int d = 0; d < fd; d++) {
                            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                            tok[k++] = (char)('0' + (rng >> 33) % 10);
                        }
                        tok[k] = '\0';
                        c += number_fast_one(tok, after[a]);
                    }
    printf("  %ld numbers read fast\n", c);
    CHECK(c > 8000);
}

/* The statistics' shapes (num_window: Python's reprs of floats, 15 to 17
 * digits, exponents) and the edges of rounding against strtod: where
 * json_lex_number_fast reads a number, the same end and bits as the
 * tokens with strtod (number_fast_pad); the shapes it must read, it
 * reads. */
static int fast_reads(const char *tok) {
    char buf[256];
    int n = snprintf(buf, sizeof buf, "[%20s%s, 1]%200s", "", tok, "");
    struct json_lex fx;
    struct pt_error err;
    json_lex_init(&fx, buf, (size_t)n, "t", &err);
    double v;
    const char *q = json_lex_number_fast(&fx, buf + 21, &v);
    if (!q) return 0;
    char *e;
    double r = strtod(tok, &e);
    int same = q == buf + 21 + (e - tok) && !memcmp(&v, &r, sizeof v);
    if (!same && failures_shown++ < 5) fprintf(stderr, "json_lex_number_fast(\"%s\"): %.17g, strtod %.17g\n", tok, v, r);
    CHECK(same);
    return 1;
}

static void number_fast_edges(void) {
    static const char *const must[] = {
        /* 15, 16 and 17 digits as Python prints them */
        "0.123456789012345", "0.1234567890123456", "0.12345678901234567", "1.2345678901234567", "12345678901234567",
        "1234567890123456.7", "123456789012345.67", "-0.00061798095703125", "0.0133056640625", "-2.551823854446411e-07",
        "8.344650268554688e-06", "1.0000000000000002", "0.30000000000000004", "9007199254740993", "9007199254740992.0",
        "18014398509481985", "-9.999999999999999e+22", "1.7976931348623157e+308", "-1.7976931348623157e308",
        /* half-way and around it (ties to even) */
        "9007199254740993.0", "9007199254740995", "18014398509481986", "18014398509481990", "2.0000000000000004",
        "4.35e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "5e-324", "2.2250738585072011e-308",
        "2.2250738585072014e-308", "2.225073858507201e-308", "4.9406564584124654e-324", "1e-320", "1.5e-323",
        /* zeros, signs, exponents */
        "0", "-0", "0.0", "-0.0", "-0e0", "0e-999", "1e0", "1E+2", "1e-05", "-1e-005", "1.5e300", "1e308", "1e309",
        "-1e999", "1e-400", "0.0000000000001234567", "-0.000000000000000012", "123", "-45.25"};
    long c = 0;
    for (size_t i = 0; i < sizeof must / sizeof *must; i++) {
        c += number_fast_one(must[i], "");
        c += number_fast_one(must[i], ",");
        int r = fast_reads(must[i]);
        if (!r && failures_shown++ < 5) fprintf(stderr, "json_lex_number_fast(\"%s\") left it\n", must[i]);
        CHECK(r);
    }
    /* neither numbers nor read: the tokens' (NaN, Infinity are scalar()'s) */
    static const char *const not_read[] = {"-", "-Infinity", "-nan", "nan", "inf", "-inf", "1.", "1.e5", "1e", "1e+",
                                           "1e1234", "01", "00.5", "12345678901234567890", "-.5",
                                           "0.00000000000000000012345", "0.1000000000000000055511151231257827" /* past 19: the tokens' */};
    for (size_t i = 0; i < sizeof not_read / sizeof *not_read; i++) {
        char buf[256];
        int n = snprintf(buf, sizeof buf, "[%20s%s, 1]%200s", "", not_read[i], "");
        struct json_lex fx;
        struct pt_error err;
        json_lex_init(&fx, buf, (size_t)n, "t", &err);
        double v;
        const char *q = json_lex_number_fast(&fx, buf + 21, &v);
        /* "01", "00.5": the zero alone, as the tokens read it */
        int ok = !q || (not_read[i][0] == '0' && q == buf + 22);
        if (!ok && failures_shown++ < 5) fprintf(stderr, "json_lex_number_fast(\"%s\") read it\n", not_read[i]);
        CHECK(ok);
        c += number_fast_one(not_read[i], "");
    }
    /* random doubles in every print width, plain and with exponents */
    uint64_t rng = 0x2545f4914f6cdd1dull;
    for (int k = 0; k < 40000; k++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        uint64_t bits = rng;
        if (k % 4 == 0) bits &= 0x800fffffffffffffull;   /* subnormals */
        else if (k % 4 == 1) bits = (bits & 0x800fffffffffffffull) | (uint64_t)(1023 - 30 + (int)(rng >> 58)) << 52;
        double d;
        memcpy(&d, &bits, sizeof d);
        if (d != d || d - d != 0) continue;
        char tok[64];
        snprintf(tok, sizeof tok, k % 3 == 0 ? "%.17g" : k % 3 == 1 ? "%.16g" : "%.15g", d);
        c += fast_reads(tok);
        if (fabs(d) > 1e-7 && fabs(d) < 1e16) {
            snprintf(tok, sizeof tok, "%.*f", 16 - (int)floor(log10(fabs(d)) + 1) > 0 ? 16 - (int)floor(log10(fabs(d)) + 1) : 0, d);
            c += fast_reads(tok);
        }
    }
    printf("  %ld numbers read fast\n", c);
    CHECK(c > 40000);
}

int main(void) {
    RUN(keys_and_indents);
    RUN(strings_every_offset);
    RUN(numbers_every_shape);
    RUN(digit_runs_and_neighbours);
    RUN(other_runs_and_bad_bytes);
    RUN(long_dump_text);
    RUN(guessed_lengths);
    RUN(item_lists);
    RUN(record_keys);
    RUN(number_fast_shapes);
    RUN(number_fast_edges);
    PT_DONE();
}
