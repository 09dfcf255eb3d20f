/* json: the dialect (bare NaN/Infinity), errors with line numbers, limits. */
#include "pt_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* read() calls this process made so far (/proc/self/io's syscr), less
 * the ones this count itself takes; -1 where there is no such file. */
static long reads_so_far(void) {
    char b[512];
    int fd = open("/proc/self/io", O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    if (n <= 0) return -1;
    b[n] = '\0';
    const char *p = strstr(b, "syscr:");
    return p ? strtol(p + 6, NULL, 10) : -1;
}

/* Whole files read: exact bytes whatever the buffer kept from the last
 * file (larger, smaller, none), the file's status with json_read_stat, an
 * empty file, a /proc file whose size says 0 (read on past the size until
 * the end), the refusals; and one read() a file, not a second, empty one
 * to find its end (the monitor and dump readers read thousands). */
static void files(void) {
    const char *dir = pt_tmpdir("json_files");
    CHECK(dir != NULL);
    if (!dir) return;
    char big[1024], small[1024], empty[1024];
    snprintf(big, sizeof big, "%s/big.csv", dir);
    snprintf(small, sizeof small, "%s/small.csv", dir);
    snprintf(empty, sizeof empty, "%s/empty.csv", dir);
    char *text = malloc(200001);
    CHECK(text != NULL);
    if (!text) return;
    for (int i = 0; i < 200000; i++) text[i] = (char)('a' + i % 26);
    text[200000] = '\0';
    CHECK_INT(pt_write(big, text), 0);
    CHECK_INT(pt_write(small, "name,max\nx,1\n"), 0);
    CHECK_INT(pt_write(empty, ""), 0);
    struct pt_error err;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    struct stat st;
    const char *order[] = {small, big, small, empty, big, big};
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        long r0 = reads_so_far();
        long r1 = reads_so_far();
        CHECK_INT(json_read_stat(-1, order[k], 1 << 20, &buf, &cap, &len, &st, &err), 0);
        long r2 = reads_so_far();
        const char *want = order[k] == big ? text : order[k] == small ? "name,max\nx,1\n" : "";
        CHECK_INT((long)len, (long)strlen(want));
        CHECK(memcmp(buf, want, len) == 0 && buf[len] == '\0');
        CHECK(S_ISREG(st.st_mode) && (size_t)st.st_size == len);
        CHECK(cap >= len + 1);
        /* an empty file's one read says the end at once, as any other's */
        if (r0 >= 0) CHECK_INT(r2 - r1 - (r1 - r0), 1);
    }
    /* a fresh buffer per file: the same one read, and no doubling of it */
    free(buf);
    buf = NULL;
    cap = 0;
    CHECK_INT(json_read_reuse(big, 1 << 20, &buf, &cap, &len, &err), 0);
    CHECK_INT((long)len, 200000);
    CHECK(cap < 2 * len);
    free(buf);
    CHECK_INT(json_read_file(big, 1 << 20, &buf, &len, &err), 0);
    CHECK_INT((long)len, 200000);
    CHECK(memcmp(buf, text, len) == 0);
    free(buf);
    /* st_size 0 but bytes to read: read on to the end */
    buf = NULL;
    cap = 0;
    CHECK_INT(json_read_stat(-1, "/proc/self/status", 1 << 20, &buf, &cap, &len, &st, &err), 0);
    CHECK(len > 100 && strstr(buf, "Name:") == buf && strlen(buf) == len && buf[len - 1] == '\n');
    /* refusals: over the limit, a folder, no file (st_mode 0) */
    CHECK_INT(json_read_stat(-1, big, 1000, &buf, &cap, &len, &st, &err), -1);
    CHECK(strstr(err.msg, "more than the 1000") != NULL && S_ISREG(st.st_mode));
    CHECK_INT(json_read_stat(-1, dir, 1000, &buf, &cap, &len, &st, &err), -1);
    CHECK(strstr(err.msg, "a folder") != NULL && S_ISDIR(st.st_mode));
    char gone[1100];
    snprintf(gone, sizeof gone, "%s/gone.csv", dir);
    CHECK_INT(json_read_stat(-1, gone, 1000, &buf, &cap, &len, &st, &err), -1);
    CHECK_INT((int)st.st_mode, 0);
    /* opened in their folder (openat): the same bytes and status, the
     * same refusals, and messages that name the whole path */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    struct stat st2;
    CHECK_INT(json_read_stat(dfd, big, 1 << 20, &buf, &cap, &len, &st2, &err), 0);
    CHECK(len == 200000 && memcmp(buf, text, len) == 0 && buf[len] == '\0');
    CHECK_INT(stat(big, &st), 0);
    CHECK(st2.st_ino == st.st_ino && st2.st_dev == st.st_dev);
    CHECK_INT(json_read_stat(dfd, small, 1 << 20, &buf, &cap, &len, &st2, &err), 0);
    CHECK(len == 13 && memcmp(buf, "name,max\nx,1\n", 14) == 0);
    CHECK_INT(json_read_stat(dfd, big, 1000, &buf, &cap, &len, &st2, &err), -1);
    CHECK(strstr(err.msg, big) == err.msg && strstr(err.msg, "more than the 1000") != NULL);
    CHECK_INT(json_read_stat(dfd, gone, 1000, &buf, &cap, &len, &st2, &err), -1);
    CHECK(strstr(err.msg, gone) == err.msg && strstr(err.msg, "cannot open") != NULL);
    CHECK_INT((int)st2.st_mode, 0);
    char fifo[1100];
    snprintf(fifo, sizeof fifo, "%s/fifo.csv", dir);
    unlink(fifo);
    if (mkfifo(fifo, 0600) == 0) {   /* O_NONBLOCK as before: no hang on a FIFO */
        CHECK_INT(json_read_stat(dfd, fifo, 1000, &buf, &cap, &len, &st2, &err), -1);
        CHECK(strstr(err.msg, "a FIFO") != NULL);
        unlink(fifo);
    }
    char link[1100];   /* a symbolic link to a file is followed, as open(path) does */
    snprintf(link, sizeof link, "%s/link.csv", dir);
    unlink(link);
    if (symlink("small.csv", link) == 0) {
        CHECK_INT(json_read_stat(dfd, link, 1 << 20, &buf, &cap, &len, &st2, &err), 0);
        CHECK_INT((long)len, 13);
        unlink(link);
    }
    if (dfd >= 0) close(dfd);
    free(buf);
    free(text);
}

int main(void) {
    RUN(dialect);
    RUN(errors);
    RUN(strings);
    RUN(writers);
    RUN(writers_runs);
    RUN(files);
    PT_DONE();
}
