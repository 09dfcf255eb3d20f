/* test_util_core: the utility layer of model/util/util.h, one function per
 * helper: the one string hash, growable arrays, the string arena, the
 * string -> int map, the comparators and the string helpers. */
#include "pt_test.h"

#include <stdint.h>
#include <stdio.h>

#include "model/util/util.h"

static void test_hash(void) {
    /* FNV-1a 64 with the final h ^ (h >> 29) mix: fixed values, so a table
     * built by one module is probed the same way by another */
    CHECK(util_hash("", 0, 0) == 0xcbf29ce2dbb6c401ull);
    CHECK(util_hash("a", 1, 0) == 0xaf63dc49fd1f0ee8ull);
    CHECK(util_hash_str("foobar") == 0x85944175db9b6c67ull);
    CHECK(util_hash("foobar", 6, 0) == util_hash_str("foobar"));
    CHECK(util_hash("foobar", 3, 0) == util_hash_str("foo"));   /* length, not the NUL, ends the key */
    CHECK(util_hash("foo", 3, 1) != util_hash("foo", 3, 0));      /* the seed takes part */
}

static void test_hash_fast(void) {
    /* values from a Python transcription of the rounds (little-endian
     * words); a longer key crosses the 8-byte rounds and a tail */
    const union { uint32_t u; unsigned char c[4]; } e = {1};
    if (e.c[0] == 1) {
        CHECK(util_hash_fast("", 0, 0) == 0x9353dfc8a195f3e2ull);
        CHECK(util_hash_fast("a", 1, 0) == 0x601eda85091822aeull);
        CHECK(util_hash_fast("foobar", 6, 0) == 0xdce5b97064c44f75ull);
        CHECK(util_hash_fast("Module.layer.0.weight", 21, 7) == 0xb44e75b567dc27c3ull);
    }
    CHECK(util_hash_fast("a\0", 2, 0) != util_hash_fast("a", 1, 0));         /* the length takes part */
    CHECK(util_hash_fast("foobar", 3, 0) == util_hash_fast("foo", 3, 0));     /* bytes past len unread */
    CHECK(util_hash_fast("foo", 3, 1) != util_hash_fast("foo", 3, 0));
    /* the low bits a power-of-two table uses: 4096 keys differing in one
     * character spread over 1024 slots with no slot above 16 */
    static unsigned short slot[1024];
    char k[32];
    for (int i = 0; i < 4096; i++) {
        int n = snprintf(k, sizeof k, "layers.%d.mlp.weight", i);
        slot[util_hash_fast(k, (size_t)n, 0) & 1023]++;
    }
    int worst = 0;
    for (int i = 0; i < 1024; i++) worst = slot[i] > worst ? slot[i] : worst;
    CHECK(worst <= 16);
}

static void test_grow(void) {
    int32_t *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        CHECK_INT(UTIL_PUSH(v, n, cap), 0);
        v[n++] = i;
    }
    CHECK_INT(n, 1000);
    CHECK(cap >= 1000 && cap < 2048);
    long sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    CHECK_INT(sum, 999 * 1000 / 2);
    /* room already there: nothing moves */
    int32_t *before = v;
    CHECK_INT(util_grow((void **)&v, &cap, 10, sizeof *v), 0);
    CHECK(v == before);
    free(v);
    /* util_grow0 clears what it adds */
    unsigned char *z = NULL;
    size_t zcap = 0;
    CHECK_INT(util_grow0((void **)&z, &zcap, 5, 1), 0);
    CHECK_INT(zcap, 16);
    memset(z, 0xff, zcap);
    CHECK_INT(util_grow0((void **)&z, &zcap, 100, 1), 0);
    CHECK_INT(zcap, 128);
    int clear = 1;
    for (size_t i = 16; i < zcap; i++) clear &= z[i] == 0;
    CHECK_INT(clear, 1);
    CHECK_INT(z[15], 0xff);
    free(z);
    /* a size that overflows is refused, the array untouched */
    char *c = NULL;
    size_t ccap = 0;
    CHECK_INT(util_grow((void **)&c, &ccap, SIZE_MAX / 2 + 2, 4), -1);
    CHECK(c == NULL);
    CHECK_INT(ccap, 0);
}

static void test_strpool(void) {
    char *buf = NULL;
    size_t len = 0, cap = 0;
    uint32_t a, b, c;
    CHECK_INT(util_strpool_put(&buf, &len, &cap, "layer1", 6, &a), 0);
    CHECK_INT(util_strpool_put(&buf, &len, &cap, "Linear.forward.0xyz", 14, &b), 0);   /* n bytes only */
    CHECK_INT(a, 0);
    CHECK_INT(b, 7);
    /* a string larger than the first block moves the buffer; offsets stay */
    char big[40000];
    memset(big, 'x', sizeof big);
    CHECK_INT(util_strpool_put(&buf, &len, &cap, big, sizeof big, &c), 0);
    CHECK_INT(c, 22);
    CHECK_STR(buf + a, "layer1");
    CHECK_STR(buf + b, "Linear.forward");
    CHECK_INT(strlen(buf + c), sizeof big);
    CHECK_INT(len, 22 + sizeof big + 1);
    free(buf);
}

static void test_smap(void) {
    struct util_smap m = {0};
    CHECK(util_smap_slot(&m, "absent", 0) == NULL);   /* an empty map answers too */
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "module.%d", i);
        int32_t *v = util_smap_slot(&m, key, 1);
        CHECK(v != NULL);
        if (!v) break;
        if (*v != -1) CHECK_INT(*v, -1);   /* new keys start at -1 */
        *v = i * 2;
    }
    CHECK_INT(m.n, 5000);
    int ok = 1;
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "module.%d", i);
        int32_t *v = util_smap_slot(&m, key, 0);
        ok &= v && *v == i * 2;
    }
    CHECK_INT(ok, 1);
    CHECK(util_smap_slot(&m, "module.5000", 0) == NULL);
    /* an existing key is found, not added again */
    CHECK_INT(*util_smap_slot(&m, "module.7", 1), 14);
    CHECK_INT(m.n, 5000);
    util_smap_free(&m);
    CHECK_INT(m.n, 0);
    /* borrowed keys: the map keeps the caller's pointers */
    struct util_smap b = {.borrow = 1};
    const char *k1 = "left", *k2 = "right";
    *util_smap_slot(&b, k1, 1) = 1;
    *util_smap_slot(&b, k2, 1) = 2;
    CHECK_INT(*util_smap_slot(&b, "right", 0), 2);
    int same = 0;
    for (size_t i = 0; i < b.cap; i++) same += b.keys[i] == k1 || b.keys[i] == k2;
    CHECK_INT(same, 2);
    util_smap_free(&b);
    CHECK_INT(b.borrow, 1);   /* still borrowing when used again */
}

static void test_cmp(void) {
    int32_t v[] = {5, -3, INT32_MAX, 0, INT32_MIN, 5};
    qsort(v, 6, sizeof *v, util_cmp_i32);
    int32_t want[] = {INT32_MIN, -3, 0, 5, 5, INT32_MAX};   /* no overflow at the ends */
    CHECK_INT(memcmp(v, want, sizeof v), 0);
    const char *s[] = {"rank10", "rank2", "proc7", "rank1"};
    qsort(s, 4, sizeof *s, util_cmp_str);
    CHECK_STR(s[0], "proc7");
    CHECK_STR(s[1], "rank1");
    CHECK_STR(s[2], "rank10");
    CHECK_STR(s[3], "rank2");
}

static void test_strings(void) {
    CHECK_INT(util_ends_with("run.trend.db", ".trend.db"), 1);
    CHECK_INT(util_ends_with("trend.db", ".trend.db"), 0);
    CHECK_INT(util_ends_with("", ""), 1);
    CHECK_INT(util_ends_with("x.npy", ""), 1);
    CHECK_INT(util_ends_with_n("layer.forward.0", 13, ".forward"), 1);   /* only the first n bytes count */
    CHECK_INT(util_ends_with_n("layer.forward.0", 15, ".forward"), 0);
    CHECK_INT(util_ends_with_n("ab", 2, "xab"), 0);
    CHECK_INT(util_num_after("step12", "step"), 12);
    CHECK_INT(util_num_after("rank0", "rank"), 0);
    CHECK_INT(util_num_after("rank", "rank"), -1);       /* no number */
    CHECK_INT(util_num_after("rank1a", "rank"), -1);
    CHECK_INT(util_num_after("rank-1", "rank"), -1);
    CHECK_INT(util_num_after("proc3", "rank"), -1);
    CHECK_INT(util_num_after("rank2147483647", "rank"), 2147483647);
    CHECK_INT(util_num_after("rank99999999999", "rank"), -1);   /* beyond int */
}

/* util_put_uint / util_put_int against printf, at the ends of the range. */
static void test_put_int(void) {
    static const long long v[] = {0, 1, -1, 9, 10, -10, 2147483647LL, -2147483648LL, 9223372036854775807LL,
                                  -9223372036854775807LL - 1};
    char buf[64], want[64];
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        size_t n = util_put_int(buf, 2, v[i]);
        buf[n] = 0;
        snprintf(want, sizeof want, "%lld", v[i]);
        CHECK_STR(buf + 2, want);
    }
    size_t n = util_put_uint(buf, 0, 18446744073709551615ULL);
    buf[n] = 0;
    CHECK_STR(buf, "18446744073709551615");
}

/* util_ascii_run against a byte at a time, on random bytes biased to the
 * edges (0x1f, 0x20, 0x7e, 0x7f, the two stop bytes, NUL, high bytes), at
 * every length and offset around the 8-byte blocks. */
static void test_ascii_run(void) {
    static const unsigned char pick[] = {0x00, 0x1f, 0x20, 0x21, 0x22, 0x2c, 0x5c, 0x7e, 0x7f, 0x80, 0xc3, 0xff, 'a', '0'};
    unsigned seed = 7;
    char buf[64];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 40);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned x = seed >> 16;
            buf[i] = x % 4 ? (char)('A' + x % 26) : (char)pick[x % sizeof pick];
        }
        const char stops[][2] = {{',', '"'}, {'"', '\\'}};
        for (int k = 0; k < 2; k++) {
            size_t want = 0;
            while (want < n && (unsigned char)buf[want] >= 0x20 && (unsigned char)buf[want] <= 0x7e &&
                   buf[want] != stops[k][0] && buf[want] != stops[k][1])
                want++;
            size_t got = util_ascii_run(buf, n, stops[k][0], stops[k][1]);
            if (got != want) {
                CHECK_INT(got, want);
                return;
            }
        }
    }
    CHECK_INT(util_ascii_run("plain text, then", 16, ',', '"'), 10);
    CHECK_INT(util_ascii_run("", 0, ',', '"'), 0);
}

/* util_find: memmem's answers on short texts. */
static void test_find(void) {
    static const char *const t[] = {"", "p", "parameters_grad", "x.parameters_grad", "xparameters_gra",
                                    "ppparameters_grad.1", "Module.layer.parameters_grad.weight", "aaa"};
    static const char *const w[] = {"parameters_grad", "p", "aa", "grad", "x"};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        for (size_t k = 0; k < sizeof w / sizeof w[0]; k++) {
            size_t n = strlen(t[i]), wl = strlen(w[k]);
            const char *want = NULL;
            for (size_t j = 0; j + wl <= n && !want; j++)
                if (!memcmp(t[i] + j, w[k], wl)) want = t[i] + j;
            CHECK(util_find(t[i], n, w[k], wl) == want);
        }
    CHECK(util_find("abc", 2, "c", 1) == NULL);   /* n bounds the search */
}

int main(void) {
    RUN(test_hash);
    RUN(test_hash_fast);
    RUN(test_grow);
    RUN(test_strpool);
    RUN(test_smap);
    RUN(test_cmp);
    RUN(test_strings);
    RUN(test_put_int);
    RUN(test_ascii_run);
    RUN(test_find);
    PT_DONE();
}
