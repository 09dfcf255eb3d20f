/* json: the dialect (bare NaN/Infinity), errors with line numbers, limits. */
#include "pt_test.h"

#include "src/io/common/json.h"

static int lex_all(const char *text, struct pt_error *err, double *nums, int *nn) {
    struct json_lex lx;
    json_lex_init(&lx, text, strlen(text), "t.json", err);
    *nn = 0;
    for (;;) {
        enum json_tok t = json_lex_next(&lx);
        if (t == JT_ERROR) return -1;
        if (t == JT_END) return 0;
        if (t == JT_NUMBER && *nn < 64) nums[(*nn)++] = lx.num;
    }
}

static void dialect(void) {
    double v[64];
    int n;
    struct pt_error err;
    CHECK_INT(lex_all("{\"a\": [NaN, Infinity, -Infinity, 1.5e3, -0.0, 0.4993983507156372, 12345678901234567890]}", &err, v, &n), 0);
    CHECK_INT(n, 7);
    CHECK(isnan(v[0]));
    CHECK(isinf(v[1]) && v[1] > 0);
    CHECK(isinf(v[2]) && v[2] < 0);
    CHECK_NEAR(v[3], 1500, 0);
    CHECK(v[4] == 0 && signbit(v[4]));
    CHECK(v[5] == 0.4993983507156372);
    CHECK(v[6] == 12345678901234567890.0);
    cJSON *t;
    const char *doc = "{\"Max\": NaN, \"Min\": -Infinity, \"s\": \"NaN in a string\"}";
    CHECK_INT(json_tree_parse(doc, strlen(doc), "x", &t, &err), 0);
    double d;
    CHECK(json_number(cJSON_GetObjectItem(t, "Max"), &d) && isnan(d));
    CHECK(json_number(cJSON_GetObjectItem(t, "Min"), &d) && isinf(d) && d < 0);
    CHECK_STR(cJSON_GetObjectItem(t, "s")->valuestring, "NaN in a string");
    cJSON_Delete(t);
}

static void errors(void) {
    double v[64];
    int n;
    struct pt_error err;
    CHECK_INT(lex_all("{\n\"a\": [1, 2,\n", &err, v, &n), -1);
    CHECK_CONTAINS(err.msg, "t.json: line 3");
    CHECK_CONTAINS(err.msg, "truncated");
    CHECK_INT(lex_all("{\"a\" 1}", &err, v, &n), -1);
    CHECK_CONTAINS(err.msg, "expected ':'");
    CHECK_INT(lex_all("", &err, v, &n), -1);
    CHECK_CONTAINS(err.msg, "empty file");
    CHECK_INT(lex_all("[1] x", &err, v, &n), -1);
    CHECK_CONTAINS(err.msg, "after the JSON value");
    CHECK_INT(lex_all("{\"a\": nan}", &err, v, &n), -1);
    CHECK_INT(lex_all("{\"a\": \"x\ny\"}", &err, v, &n), -1);
    CHECK_CONTAINS(err.msg, "control character");
    /* deep nesting stops at the limit instead of the stack */
    char *deep = malloc(200001);
    memset(deep, '[', 200000);
    deep[200000] = '\0';
    CHECK_INT(lex_all(deep, &err, v, &n), -1);
    CHECK_CONTAINS(err.msg, "nesting deeper");
    /* a huge number string fails fast */
    memset(deep, '1', 200000);
    CHECK_INT(lex_all(deep, &err, v, &n), -1);
    CHECK_CONTAINS(err.msg, "number too long");
    free(deep);
}

static void strings(void) {
    struct json_lex lx;
    struct pt_error err;
    const char *text = "{\"a\\u00e9\\n\\ud83d\\ude00\": 1}";
    json_lex_init(&lx, text, strlen(text), "t", &err);
    CHECK_INT(json_lex_next(&lx), JT_OBJ_BEGIN);
    CHECK_INT(json_lex_next(&lx), JT_KEY);
    char out[64];
    CHECK_INT(json_lex_string(&lx, out, sizeof out), 8);
    CHECK_STR(out, "a\xc3\xa9\n\xf0\x9f\x98\x80");
    CHECK_INT(json_lex_next(&lx), JT_NUMBER);
    CHECK_INT(json_lex_next(&lx), JT_OBJ_END);
    CHECK_INT(json_lex_next(&lx), JT_END);
    /* a bad escape (the tokens leave escapes to the decoding): -1, and
     * what came before it, terminated (parse_dump's header strings keep it) */
    static const char *const bad[] = {"{\"stat\\sx\": 1}", "{\"stat\\u00zz\": 1}", "{\"stat\\u00\": 1}"};
    for (int i = 0; i < 3; i++) {
        json_lex_init(&lx, bad[i], strlen(bad[i]), "t", &err);
        CHECK_INT(json_lex_next(&lx), JT_OBJ_BEGIN);
        CHECK_INT(json_lex_next(&lx), JT_KEY);
        memset(out, 'Z', sizeof out - 1);
        out[sizeof out - 1] = '\0';
        CHECK_INT(json_lex_string(&lx, out, sizeof out), -1);
        CHECK_STR(out, "stat");
    }
    char esc[64];
    CHECK_STR(pt_escape("a\x1b[2J\xff", 6, esc, sizeof esc), "a\\x1b[2J\\xff");
}

/* The writers of user text: json_fput_str escapes every control (C1 too)
 * and writes no byte a JSON reader cannot decode (a surrogate, an overlong
 * form); pt_unctrl (csv) escapes controls only, keeping what csv quotes. */
static void writers(void) {
    char buf[256] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f != NULL);
    if (!f) return;
    json_fput_str(f, "a\x1b]0;t\x07\xc2\x9b" "1m\xed\xa0\x80\xc0\xaf\xc3\xa9\n");
    fclose(f);
    CHECK_STR(buf, "\"a\\u001b]0;t\\u0007\\u009b1m\\u00ed\\u00a0\\u0080\\u00c0\\u00af\xc3\xa9\\n\"");
    char *own;
    const char *t = pt_unctrl("plain, \"quoted\"\tand\\back\n", &own);
    CHECK(own == NULL);
    CHECK_STR(t, "plain, \"quoted\"\tand\\back\n");
    t = pt_unctrl("a\x1b[2J\xc2\x9b\x9b\xc3\xa9,\\", &own);
    CHECK(own != NULL);
    CHECK_STR(t, "a\\x1b[2J\\u009b\\x9b\xc3\xa9,\\");
    free(own);
}

/* The writers take plain runs eight bytes (pt_unctrl) or a run (json_fput_str)
 * at a time: a byte to escape at any offset of a long text comes out as it
 * does alone (the byte-wise path, checked by writers above), the plain text
 * around it unchanged. */
static void writers_runs(void) {
    static const char *const specials[] = {"\x1b", "\x7f", "\x9b", "\xc3\xa9", "\t", "\n", "\r", "\"", "\\", "\x01",
                                           "\xc2\x9b"};
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        char *own1, *own2;
        const char *alone = pt_unctrl(specials[k], &own1);
        char jalone[64] = "";
        FILE *f = fmemopen(jalone, sizeof jalone - 1, "w");
        json_fput_str(f, specials[k]);
        fclose(f);
        for (int off = 0; off < 26; off++) {
            char in[128], want[256], jwant[256], got[256] = "";
            snprintf(in, sizeof in, "%.*s%s%s", off, "abcdefghijklmnopqrstuvwxyz", specials[k], "-tail-0123456789");
            snprintf(want, sizeof want, "%.*s%s%s", off, "abcdefghijklmnopqrstuvwxyz", alone, "-tail-0123456789");
            /* jalone is "\"<escaped>\"": its inside between the text's runs */
            snprintf(jwant, sizeof jwant, "\"%.*s%.*s%s\"", off, "abcdefghijklmnopqrstuvwxyz", (int)strlen(jalone) - 2,
                     jalone + 1, "-tail-0123456789");
            const char *t = pt_unctrl(in, &own2);
            CHECK_STR(t, want);
            free(own2);
            f = fmemopen(got, sizeof got - 1, "w");
            json_fput_str(f, in);
            fclose(f);
            CHECK_STR(got, jwant);
        }
        free(own1);
    }
}

int main(void) {
    RUN(dialect);
    RUN(errors);
    RUN(strings);
    RUN(writers);
    RUN(writers_runs);
    PT_DONE();
}
