/* test_util_shelf: the buffer shelf of model/util/shelf.h (the dump
 * reader's rows and names, the dump writer's per-file arrays, the trace
 * reader's streams): which buffer comes back, what is kept and freed, the
 * byte bound, the cut and the slack. */
#include "pt_test.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/shelf.h"

/* A buffer of n bytes, its first byte `tag` (to know it again). */
static void *buf(size_t n, char tag) {
    char *p = malloc(n);
    if (p) p[0] = tag;
    return p;
}

/* get: the smallest that holds the request and is not half as large again. */
static void test_get_rule(void) {
    struct util_shelf sh;
    CHECK_INT(util_shelf_init(&sh, 8, 0, UINT64_MAX), 0);
    util_shelf_put(&sh, buf(1000, 'a'), 1000);
    util_shelf_put(&sh, buf(1400, 'b'), 1400);
    util_shelf_put(&sh, buf(3000, 'c'), 3000);
    CHECK_INT(sh.n, 3);
    CHECK(sh.held == 5400);
    size_t got;
    char *p = util_shelf_get(&sh, 1000, &got);   /* a (1000) and b (1400) hold it: the smaller */
    CHECK(p && p[0] == 'a');
    CHECK_INT(got, 1000);
    free(p);
    p = util_shelf_get(&sh, 900, &got);   /* b: 1400 - 900 = 500 > 450, half as large again: new */
    CHECK(p && got == 900);
    CHECK_INT(sh.n, 2);
    free(p);
    p = util_shelf_get(&sh, 1000, &got);   /* b within half again (400 <= 500) */
    CHECK(p && p[0] == 'b' && got == 1400);
    free(p);
    p = util_shelf_get(&sh, 4000, &got);   /* none holds it: new, exactly asked (no slack) */
    CHECK(p && got == 4000);
    free(p);
    CHECK_INT(sh.n, 1);
    CHECK(sh.held == 3000);
    p = util_shelf_get(NULL, 10, &got);   /* no shelf: new */
    CHECK(p && got == 10);
    util_shelf_put(NULL, p, got);   /* no shelf: freed (the leak check would say) */
    util_shelf_put(&sh, NULL, 99);   /* nothing */
    CHECK_INT(sh.n, 1);
    util_shelf_free(&sh);
    CHECK(sh.v == NULL && sh.n == 0);
    util_shelf_free(&sh);   /* twice: nothing */
}

/* put: full, the smallest gives way to a larger one; a buffer no larger
 * than every kept one is freed. */
static void test_put_keeps_largest(void) {
    struct util_shelf sh;
    CHECK_INT(util_shelf_init(&sh, 3, 0, UINT64_MAX), 0);
    util_shelf_put(&sh, buf(200, 'a'), 200);
    util_shelf_put(&sh, buf(100, 'b'), 100);
    util_shelf_put(&sh, buf(300, 'c'), 300);
    util_shelf_put(&sh, buf(100, 'd'), 100);   /* full, no smaller: freed */
    CHECK_INT(sh.n, 3);
    CHECK(sh.held == 600);
    util_shelf_put(&sh, buf(250, 'e'), 250);   /* b (100) goes */
    CHECK_INT(sh.n, 3);
    CHECK(sh.held == 750);
    int seen[128] = {0};
    for (int i = 0; i < sh.n; i++) seen[(unsigned char)((char *)sh.v[i].p)[0]]++;
    CHECK(seen['a'] && seen['c'] && seen['e'] && !seen['b'] && !seen['d']);
    util_shelf_free(&sh);
}

/* the byte bound: smaller ones make room for a larger one, one past the
 * bound alone is freed. */
static void test_bound(void) {
    struct util_shelf sh;
    CHECK_INT(util_shelf_init(&sh, 8, 0, 1000), 0);
    util_shelf_put(&sh, buf(400, 'a'), 400);
    util_shelf_put(&sh, buf(500, 'b'), 500);
    CHECK_INT(sh.n, 2);
    util_shelf_put(&sh, buf(300, 'c'), 300);   /* 1200 > 1000, both kept larger: freed */
    CHECK_INT(sh.n, 2);
    util_shelf_put(&sh, buf(900, 'd'), 900);   /* a then b give way */
    CHECK(sh.n == 1 && sh.held == 900 && ((char *)sh.v[0].p)[0] == 'd');
    util_shelf_put(&sh, buf(1001, 'e'), 1001);   /* past the bound: freed */
    CHECK(sh.n == 1 && sh.held == 900);
    util_shelf_free(&sh);
}

/* take: the smallest that holds the request, else the largest (SIZE_MAX:
 * the largest); never cut, never new. */
static void test_take(void) {
    struct util_shelf sh;
    size_t got;
    CHECK_INT(util_shelf_init(&sh, 8, UTIL_SHELF_CUT, UINT64_MAX), 0);
    CHECK(util_shelf_take(&sh, 10, &got) == NULL && got == 0);
    CHECK(util_shelf_take(NULL, 10, &got) == NULL && got == 0);
    util_shelf_put(&sh, buf(100, 'a'), 100);
    util_shelf_put(&sh, buf(10000, 'b'), 10000);
    util_shelf_put(&sh, buf(500, 'c'), 500);
    char *p = util_shelf_take(&sh, 10, &got);   /* all hold 10: the smallest, far larger or not */
    CHECK(p && p[0] == 'a' && got == 100);
    free(p);
    p = util_shelf_take(&sh, 20000, &got);   /* none holds it: the largest, uncut */
    CHECK(p && p[0] == 'b' && got == 10000);
    util_shelf_put(&sh, p, got);
    p = util_shelf_take(&sh, SIZE_MAX, &got);
    CHECK(p && p[0] == 'b' && got == 10000);
    free(p);
    util_shelf_free(&sh);
}

/* UTIL_SHELF_CUT: a buffer with 4 KiB or more beyond the request comes
 * back cut to it; UTIL_SHELF_SLACK: a new one is an eighth larger. */
static void test_cut_and_slack(void) {
    struct util_shelf sh;
    size_t got;
    CHECK_INT(util_shelf_init(&sh, 8, UTIL_SHELF_CUT, UINT64_MAX), 0);
    util_shelf_put(&sh, buf(20000, 'a'), 20000);
    char *p = util_shelf_get(&sh, 17000, &got);   /* 3000 over: kept whole */
    CHECK(p && p[0] == 'a' && got == 20000);
    util_shelf_put(&sh, p, got);
    p = util_shelf_get(&sh, 15905, &got);   /* 4095 over: whole still */
    CHECK(p && got == 20000);
    util_shelf_put(&sh, p, got);
    p = util_shelf_get(&sh, 14000, &got);   /* 6000 over: cut */
    CHECK(p && p[0] == 'a' && got == 14000);
    free(p);
    CHECK(sh.n == 0 && sh.held == 0);
    util_shelf_free(&sh);
    CHECK_INT(util_shelf_init(&sh, 8, UTIL_SHELF_SLACK, UINT64_MAX), 0);
    p = util_shelf_get(&sh, 8000, &got);
    CHECK(p && got == 8000 + 1000 + 1);
    util_shelf_put(&sh, p, got);
    p = util_shelf_get(&sh, 8500, &got);   /* the next file's, a few rows more: the same buffer */
    CHECK(p && got == 9001);
    free(p);
    p = util_shelf_get(&sh, 0, &got);   /* 0 bytes: a buffer all the same */
    CHECK(p != NULL);
    free(p);
    util_shelf_free(&sh);
}

struct churn {
    struct util_shelf *sh;
    int seed;
};

static void *churn(void *arg) {
    struct churn *c = arg;
    unsigned r = (unsigned)c->seed;
    for (int i = 0; i < 2000; i++) {
        r = r * 1103515245u + 12345u;
        size_t n = 64 + (r >> 8) % 4096, got;
        char *p = util_shelf_get(c->sh, n, &got);
        if (!p) return (void *)1;
        memset(p, 1, n);
        util_shelf_put(c->sh, p, got);
    }
    return NULL;
}

/* UTIL_SHELF_LOCK: threads taking and giving at once keep it whole
 * (ThreadSanitizer's build says the rest). */
static void test_locked(void) {
    struct util_shelf sh;
    CHECK_INT(util_shelf_init(&sh, 4, UTIL_SHELF_LOCK | UTIL_SHELF_CUT, 16384), 0);
    pthread_t th[3];
    struct churn c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = (struct churn){&sh, i + 1};
        CHECK_INT(pthread_create(&th[i], NULL, churn, &c[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        CHECK(rv == NULL);
    }
    uint64_t sum = 0;
    for (int i = 0; i < sh.n; i++) sum += sh.v[i].bytes;
    CHECK(sh.n <= 4 && sum == sh.held && sh.held <= 16384);
    util_shelf_free(&sh);
}

int main(void) {
    RUN(test_get_rule);
    RUN(test_put_keeps_largest);
    RUN(test_bound);
    RUN(test_take);
    RUN(test_cut_and_slack);
    RUN(test_locked);
    PT_DONE();
}
