/* test_util_pool: the parallel for of model/util/pool.h (the origin
 * searches read rank folders with it). */
#include "pt_test.h"

#include <stdatomic.h>

#include "model/util/pool.h"

struct ctx { int *hit; atomic_int calls; size_t fail_at; };

static int job(void *vc, size_t i, struct pt_error *e) {
    struct ctx *c = vc;
    atomic_fetch_add(&c->calls, 1);
    if (i == c->fail_at) return pt_errorf(e, "job %zu failed", i);
    c->hit[i]++;
    return 0;
}

static void test_every_index_once(void) {
    int hit[1000] = {0};
    struct ctx c = {.hit = hit, .fail_at = (size_t)-1};
    atomic_init(&c.calls, 0);
    struct pt_error err = {{0}};
    CHECK_INT(util_pool_for(1000, job, &c, &err), 0);
    int once = 1;
    for (int i = 0; i < 1000; i++) once &= hit[i] == 1;
    CHECK_INT(once, 1);
    CHECK_INT(atomic_load(&c.calls), 1000);
    /* nothing to do */
    CHECK_INT(util_pool_for(0, job, &c, &err), 0);
    CHECK_INT(atomic_load(&c.calls), 1000);
}

static void test_first_failure(void) {
    int hit[200] = {0};
    struct ctx c = {.hit = hit, .fail_at = 0};
    atomic_init(&c.calls, 0);
    struct pt_error err = {{0}};
    CHECK_INT(util_pool_for(200, job, &c, &err), -1);
    CHECK_STR(err.msg, "job 0 failed");
    /* the others stop taking jobs: at most one more each in flight */
    CHECK(atomic_load(&c.calls) <= 200);
    CHECK_INT(hit[0], 0);
}

int main(void) {
    RUN(test_every_index_once);
    RUN(test_first_failure);
    PT_DONE();
}
