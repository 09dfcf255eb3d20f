/* pt_test.h: the whole unit-test framework, a header of macros.
 *
 * A test file defines static void functions and lists them in main() with
 * RUN(fn), one per line (tests/CMakeLists.txt reads those lines).  Failures
 * are counted, not fatal, so one run shows every broken assertion.  The
 * data a test reads is in the checkout: tests/data (pt_fixture, pt_outputs,
 * pt_shared_file) and the generators tests/gen_dump.py, tests/trenddb_canon.py
 * (pt_tool); a test returns through SKIP only when what it needs is outside
 * the checkout (a program, or running as root defeats it).
 *
 * ctest runs each function as a test of its own (unit.test_x.fn), with
 * PT_RUN=fn: RUN() then calls only that function, so a skipped function is
 * one skipped test in ctest's summary rather than hidden among passes.
 * Without PT_RUN every function runs.  The exit code is 1 when a check
 * failed, else 77 (ctest's "skipped") when a function skipped, else 0; the
 * closing line is "N passed, N failed, N skipped". */
#ifndef PT_TEST_H
#define PT_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 in a build under AddressSanitizer (gcc or clang): peak memory there is
 * the sanitizer's (its quarantine keeps what was freed), not the program's,
 * so memory checks skip. */
#if defined(__SANITIZE_ADDRESS__)
#define PT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_ASAN 1
#endif
#endif
#ifndef PT_ASAN
#define PT_ASAN 0
#endif

static int pt_pass, pt_fail, pt_skip;

#define CHECK(cond) do { if (cond) pt_pass++; else { pt_fail++; \
    fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_INT(a, b) do { long long pt_a = (long long)(a), pt_b = (long long)(b); \
    if (pt_a == pt_b) pt_pass++; else { pt_fail++; \
    fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, \
            #a, pt_a, #b, pt_b); } } while (0)
#define CHECK_STR(a, b) do { const char *pt_a = (a), *pt_b = (b); \
    if (pt_a && pt_b && strcmp(pt_a, pt_b) == 0) pt_pass++; else { pt_fail++; \
    fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, \
            #a, pt_a ? pt_a : "(null)", pt_b ? pt_b : "(null)"); } } while (0)
#define CHECK_NEAR(a, b, tol) do { double pt_a = (a), pt_b = (b); \
    if (fabs(pt_a - pt_b) <= (tol) || (isnan(pt_a) && isnan(pt_b)) || pt_a == pt_b) pt_pass++; \
    else { pt_fail++; fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g\n", \
            __FILE__, __LINE__, #a, pt_a, pt_b); } } while (0)
#define CHECK_CONTAINS(hay, needle) do { const char *pt_h = (hay), *pt_n = (needle); \
    if (pt_h && strstr(pt_h, pt_n)) pt_pass++; else { pt_fail++; \
    fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
            pt_h ? pt_h : "(null)", pt_n); } } while (0)
#define SKIP(why) do { pt_skip++; fprintf(stderr, "skipped %s: %s\n", __func__, why); return; } while (0)
static int pt_ran;
#define RUN(fn) do { const char *pt_only = getenv("PT_RUN"); \
    if (!pt_only || !*pt_only || strcmp(pt_only, #fn) == 0) { \
        pt_ran++; fprintf(stderr, "-- %s\n", #fn); fn(); } } while (0)
#define PT_DONE() do { const char *pt_only = getenv("PT_RUN"); \
    if (pt_only && *pt_only && pt_ran == 0) { \
        fprintf(stderr, "%s: no test function %s (PT_RUN)\n", __FILE__, pt_only); return 1; } \
    printf("%d passed, %d failed, %d skipped\n", pt_pass, pt_fail, pt_skip); \
    return pt_fail ? 1 : pt_skip ? 77 : 0; } while (0)

/* The tests' data in one folder, laid out as fixtures/<sub>/<rel> (the
 * checkout's tests/data) and tools/<name> (tests/gen_dump.py,
 * tests/trenddb_canon.py): PT_SHARED, which tests/CMakeLists.txt makes in the
 * build tree out of links into the checkout.  For tests that join those
 * paths themselves; NULL when PT_SHARED is not set (run outside ctest). */
static inline const char *pt_shared(void) {
    const char *s = getenv("PT_SHARED");
    struct stat st;
    if (!s || stat(s, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return s;
}

/* Path <checkout>/tests/<rel> (PT_SRC from ctest), or NULL when absent
 * (four buffers in turn, so that a call may hold a few). */
static inline const char *pt_checkout_file(const char *rel) {
    static char buf[4][4096];
    static int k;
    const char *s = getenv("PT_SRC");
    struct stat st;
    if (!s || !s[0]) return NULL;
    char *b = buf[k++ & 3];
    snprintf(b, 4096, "%s/tests/%s", s, rel);
    return stat(b, &st) == 0 ? b : NULL;
}

/* Path tests/data/<sub>/<rel> (tests/data/README.md says where each file
 * comes from), or NULL when absent. */
static inline const char *pt_shared_file(const char *sub, const char *rel) {
    char r[4096];
    snprintf(r, sizeof r, "data/%s/%s", sub, rel);
    return pt_checkout_file(r);
}

/* Path under tests/data/msprobe (msProbe's sample dumps and what was
 * derived from them), or NULL when absent. */
static inline const char *pt_fixture(const char *rel) { return pt_shared_file("msprobe", rel); }

/* Path under tests/data/msprobe-outputs (what msProbe made of the
 * dumps), or NULL when absent. */
static inline const char *pt_outputs(const char *name) { return pt_shared_file("msprobe-outputs", name); }

/* Path of one of the checkout's test generators, tests/<name>
 * (gen_dump.py, trenddb_canon.py), or NULL when absent. */
static inline const char *pt_tool(const char *name) { return pt_checkout_file(name); }

/* Two cells of msProbe's compare table: equal as text, or as numbers
 * (a trailing % on both) within 1e-6 relative or 1e-12 of scale (the table
 * re-parses numbers through text, so the last digits may differ). */
static inline int pt_same_cell(const char *a, const char *b, double scale) {
    if (!strcmp(a, b)) return 1;
    char *e1, *e2;
    double x = strtod(a, &e1), y = strtod(b, &e2);
    int pa = *e1 == '%', pb = *e2 == '%';
    if (e1 == a || e2 == b || pa != pb || (*e1 && !pa) || (*e2 && !pb)) return 0;
    return fabs(x - y) <= 1e-6 * fmax(fabs(x), fabs(y)) || fabs(x - y) <= 1e-12 * scale;
}

/* A fresh scratch directory for this test binary, under PT_TMP (or /tmp). */
static inline const char *pt_tmpdir(const char *name) {
    /* bounded so that callers may join file names to it without
     * -Wformat-truncation doubting their buffers */
    static char buf[1024];
    const char *base = getenv("PT_TMP");
    char cmd[2200];
    if (!base) base = "/tmp/probetop-test";
    snprintf(buf, sizeof buf, "%.900s/%.100s", base, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    if (system(cmd) != 0) return NULL;
    return buf;
}

/* tests/gen_trace.py's traces made with args into <pt_tmpdir(name)>/traces:
 * that folder, or NULL when Python or the generator is absent or it fails. */
static inline const char *pt_gen_traces(const char *name, const char *args) {
    static char dir[1200];
    const char *py = getenv("PT_PYTHON"), *g = pt_tool("gen_trace.py"), *tmp;
    if (!py || !py[0] || !g || !(tmp = pt_tmpdir(name))) return NULL;
    snprintf(dir, sizeof dir, "%s/traces", tmp);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' %s", py, g, dir, args);
    return system(cmd) == 0 ? dir : NULL;
}

/* A generated problem/benchmark pair (tests/gen_dump.py with the
 * arguments gen; the problem also with problem_extra: --drift, --nan...)
 * in dir/p and dir/b, whose paths land in p and b (n bytes each).  0, or -1
 * when Python is absent or the generator failed (skip). */
static inline int pt_gen_pair(const char *dir, const char *gen, const char *problem_extra, char *p, char *b,
                              size_t n) {
    const char *py = getenv("PT_PYTHON"), *g = pt_tool("gen_dump.py");
    char cmd[8192];
    if (!py || !py[0] || !g) return -1;
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s/b' %s >/dev/null 2>&1 && "
             "'%s' '%s' --out '%s/p' %s %s >/dev/null 2>&1",
             py, g, dir, gen, py, g, dir, gen, problem_extra);
    if (system(cmd) != 0) return -1;
    snprintf(p, n, "%s/p", dir);
    snprintf(b, n, "%s/b", dir);
    return 0;
}

/* Write a whole file; returns 0 on success. */
static inline int pt_write(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

/* A rank folder dir/step0/rank0 made with text as its dump.json; 0 on success. */
static inline int pt_write_rank0(const char *dir, const char *text) {
    char p[4300], cmd[4400];
    snprintf(p, sizeof p, "%s/step0/rank0", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    if (system(cmd) != 0) return -1;
    snprintf(p, sizeof p, "%s/step0/rank0/dump.json", dir);
    return pt_write(p, text);
}

/* A whole file as a NUL-terminated string the caller frees; NULL when it
 * cannot be read. */
static inline char *pt_slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!b) { fclose(f); return NULL; }
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    return b;
}

/* Runs a command's entry point in-process with stdout and stderr sent to
 * the files out and errf; returns its exit code. */
static inline int pt_capture(const char *out, const char *errf, int (*run)(int, char **), int argc,
                             const char **argv) {
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fo, 1);
    dup2(fe, 2);
    int rc = run(argc, (char **)argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    close(fo);
    close(fe);
    return rc;
}

/* One csv record at *p into fields (quotes undone, in place; at most max);
 * advances *p past it and returns the number of fields, 0 at the end. */
static inline int pt_csv_record(char **p, char **fields, int max) {
    int n = 0;
    char *s = *p, *o;
    if (!*s) return 0;
    for (;;) {
        o = s;
        fields[n] = o;
        if (*s == '"') {
            s++;
            for (;;) {
                if (*s == '"' && s[1] == '"') { *o++ = '"'; s += 2; }
                else if (*s == '"') { s++; break; }
                else if (!*s) break;
                else *o++ = *s++;
            }
        } else
            while (*s && *s != ',' && *s != '\n') *o++ = *s++;
        char c = *s;
        *o = '\0';
        if (n < max - 1) n++;
        if (c == ',') { s++; continue; }
        if (c == '\n') s++;
        break;
    }
    *p = s;
    return n;
}

#ifdef SQLITE_VERSION
/* Opens a fixture database for reading without writing anything beside it:
 * msProbe's .vis.db files are in WAL mode, where even a read-only open
 * creates -shm/-wal files beside the file (in tests/data). */
static inline int pt_sqlite_ro(const char *path, sqlite3 **db) {
    char uri[8400];
    size_t o = snprintf(uri, sizeof uri, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < sizeof uri; p++)
        o += (size_t)snprintf(uri + o, sizeof uri - o, strchr("?#%& ", *p) || *p >= 0x80 ? "%%%02X" : "%c", *p);
    snprintf(uri + o, sizeof uri - o, "?immutable=1");
    return sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
}
#endif

#endif
