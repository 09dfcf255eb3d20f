/* pt_test.h: the whole unit-test framework, a header of macros.
 *
 * A test file defines static void functions and lists them in main() with
 * RUN(fn).  Failures are counted, not fatal, so one run shows every broken
 * assertion.  A test that needs ../shared calls pt_shared() and returns
 * through SKIP when it is absent; main() then exits 77, which ctest reports
 * as skipped.  The closing line is "N passed, N failed". */
#ifndef PT_TEST_H
#define PT_TEST_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
#define RUN(fn) do { fprintf(stderr, "-- %s\n", #fn); fn(); } while (0)
#define PT_DONE() do { printf("%d passed, %d failed, %d skipped\n", pt_pass, pt_fail, pt_skip); \
    return pt_fail ? 1 : (pt_pass == 0 && pt_skip ? 77 : 0); } while (0)

/* ../shared (PT_SHARED from ctest), or NULL when it is not beside the project. */
static inline const char *pt_shared(void) {
    const char *s = getenv("PT_SHARED");
    struct stat st;
    if (!s || stat(s, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return s;
}

/* Path under ../shared/fixtures/msprobe, or NULL when absent. */
static inline const char *pt_fixture(const char *rel) {
    static char buf[4][4096];
    static int k;
    const char *s = pt_shared();
    struct stat st;
    if (!s) return NULL;
    char *b = buf[k++ & 3];
    snprintf(b, 4096, "%s/fixtures/msprobe/%s", s, rel);
    return stat(b, &st) == 0 ? b : NULL;
}

/* A fresh scratch directory for this test binary, under PT_TMP (or /tmp). */
static inline const char *pt_tmpdir(const char *name) {
    static char buf[4096];
    const char *base = getenv("PT_TMP");
    char cmd[4400];
    if (!base) base = "/tmp/probetop-test";
    snprintf(buf, sizeof buf, "%s/%s", base, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", buf, buf);
    if (system(cmd) != 0) return NULL;
    return buf;
}

/* Write a whole file; returns 0 on success. */
static inline int pt_write(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

#endif
