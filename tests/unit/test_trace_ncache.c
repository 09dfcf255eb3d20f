/* The trace reader's cache of the last names (src/io/trace/trace_ncache.c):
 * a hit is only ever the value put for the same bytes and length; names
 * with a NUL byte inside are never held; its own copies outlive the
 * caller's buffer; two names of one slot met by turns both stay.  And a
 * whole trace whose 600 kernel names all fall in one slot (same length,
 * same first, middle and last eight bytes), plus
 * names cut by an escaped NUL, each kernel's name checked against the one
 * the file gives its correlation id. */
#include "pt_test.h"
#include "tests/pt_tracefast.h"

#include "src/io/trace/trace_ncache.h"

static void hits_and_misses(void) {
    struct trace_ncache c = {.own = 0};
    const char *a = "aten::add", *b = "aten::adx";
    CHECK(!trace_ncache_get(&c, a, strlen(a)));
    trace_ncache_put(&c, a, strlen(a), 5);
    const int32_t *v = trace_ncache_get(&c, a, strlen(a));
    CHECK(v && *v == 5);
    CHECK(!trace_ncache_get(&c, a, strlen(a) - 1));   /* a prefix */
    CHECK(!trace_ncache_get(&c, b, strlen(b)));       /* same length, other bytes */
    CHECK(!trace_ncache_get(&c, "", 0));
    trace_ncache_put(&c, "ab\0cd", 5, 9);             /* a NUL inside: never held */
    CHECK(!trace_ncache_get(&c, "ab\0cd", 5));
    trace_ncache_free(&c);
    CHECK(!trace_ncache_get(&c, a, strlen(a)));
}

static void own_copies_and_eviction(void) {
    struct trace_ncache c = {.own = 1};
    char buf[64];
    snprintf(buf, sizeof buf, "ProfilerStep_like_name_0001");
    trace_ncache_put(&c, buf, strlen(buf), 1);
    memset(buf, 'x', strlen(buf));                    /* the caller's buffer reused */
    const int32_t *v = trace_ncache_get(&c, "ProfilerStep_like_name_0001", 27);
    CHECK(v && *v == 1);
    CHECK(!trace_ncache_get(&c, buf, 27));
    /* 3000 names in 256 slots: every answer is the name's own value or none */
    int wrong = 0, held = 0;
    for (int i = 0; i < 3000; i++) {
        snprintf(buf, sizeof buf, "name%d", i);
        trace_ncache_put(&c, buf, strlen(buf), i);
    }
    for (int i = 0; i < 3000; i++) {
        snprintf(buf, sizeof buf, "name%d", i);
        v = trace_ncache_get(&c, buf, strlen(buf));
        if (v) held++, wrong += *v != i;
    }
    CHECK_INT(wrong, 0);
    CHECK(held > 0 && held <= TRACE_NCACHE_SLOTS);
    trace_ncache_free(&c);   /* (ASan: no leak of the copies) */
}

#define NK 600
#define REPS 4

/* Kernel i's name: 40 bytes, only bytes 9..11 differ (outside the bytes
 * the slot is made of), so every one takes the same slot. */
static void kname(int i, char *out) { snprintf(out, 41, "void ker_%03d_aaaa_bbbbbbbb_cccccccc_dddddd", i); }

/* Two names of one slot met by turns both stay (the slot's two ways); a
 * third pushes out the one not put last. */
static void two_ways(void) {
    struct trace_ncache c = {.own = 1};
    char a[64], b[64], x[64];
    kname(1, a);
    kname(2, b);
    kname(3, x);
    size_t n = strlen(a);
    CHECK_INT(trace_ncache_slot(a, n), trace_ncache_slot(b, n));
    CHECK_INT(trace_ncache_slot(a, n), trace_ncache_slot(x, n));
    trace_ncache_put(&c, a, n, 1);
    trace_ncache_put(&c, b, n, 2);
    for (int round = 0; round < 3; round++) {
        const int32_t *va = trace_ncache_get(&c, a, n), *vb = trace_ncache_get(&c, b, n);
        CHECK(va && *va == 1);
        CHECK(vb && *vb == 2);
    }
    trace_ncache_put(&c, x, n, 3);
    const int32_t *vx = trace_ncache_get(&c, x, n), *vb = trace_ncache_get(&c, b, n);
    CHECK(vx && *vx == 3);
    CHECK(vb && *vb == 2);
    CHECK(!trace_ncache_get(&c, a, n));
    trace_ncache_free(&c);
}

static void colliding_names_file(void) {
    const char *dir = pt_tmpdir("trace_ncache");
    CHECK(dir != NULL);
    if (!dir) return;
    char path[1200];
    snprintf(path, sizeof path, "%s/t.json", dir);
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (!fp) return;
    fprintf(fp, "{\"traceEvents\": [\n");
    char nm[64];
    int corr = 0;
    for (int r = 0; r < REPS; r++)
        for (int j = 0; j < NK; j++) {
            int i = (j * 7 + r * 13) % NK;   /* a different order each time round */
            kname(i, nm);
            fprintf(fp, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 1, \"tid\": 7, \"ts\": %d, \"dur\": 1, "
                        "\"args\": {\"stream\": 7, \"correlation\": %d}},\n", nm, 1000 + corr, corr);
            corr++;
        }
    /* an escaped NUL cuts a name where the map's keys end: "ab\u0000cd" is "ab" */
    const char *cut[] = {"ab", "ab\\u0000cd", "ab\\u0000xy", "ab", "ab\\u0000cd"};
    for (int j = 0; j < 5; j++, corr++)
        fprintf(fp, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 1, \"tid\": 7, \"ts\": %d, \"dur\": 1, "
                    "\"args\": {\"stream\": 7, \"correlation\": %d}}%s\n", cut[j], 1000 + corr, corr, j < 4 ? "," : "");
    fprintf(fp, "]}\n");
    fclose(fp);
    for (int fast = 0; fast < 2; fast++) {
        struct pt_tf_run r;
        pt_tf_parse(path, 1u << 20, fast, &r);
        CHECK_INT(r.rc, 0);
        CHECK_INT(r.nk, NK * REPS + 5);
        CHECK_INT(r.nm.n, NK + 1);
        int bad = 0;
        for (size_t k = 0; k < r.nk && k < (size_t)NK * REPS; k++) {
            int64_t c = r.k[k].corr;
            kname((int)(((c % NK) * 7 + (c / NK) * 13) % NK), nm);
            bad += r.k[k].corr != (int64_t)k || r.k[k].name >= r.nm.n || strcmp(r.nm.v[r.k[k].name], nm) != 0;
        }
        CHECK_INT(bad, 0);
        for (size_t k = (size_t)NK * REPS; k < r.nk; k++) CHECK_STR(r.nm.v[r.k[k].name], "ab");
        pt_tf_free(&r);
    }
    char why[256] = "";
    CHECK(pt_tracefast_same(path, 1u << 20, why, sizeof why));
}

int main(void) {
    RUN(hits_and_misses);
    RUN(own_copies_and_eviction);
    RUN(two_ways);
    RUN(colliding_names_file);
    PT_DONE();
}
