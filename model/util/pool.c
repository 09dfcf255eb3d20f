/* pool: see pool.h. */
#include "model/util/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define EXTRA_MAX 3

struct pool {
    size_t n;
    int (*fn)(void *ctx, size_t i, struct pt_error *e);
    void *ctx;
    atomic_size_t next;
    atomic_int failed;
    struct pt_error err;     /* the first failure's */
    pthread_mutex_t mu;
};

static void *worker(void *arg) {
    struct pool *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || atomic_load(&p->failed)) break;
        struct pt_error e = {{0}};
        if (p->fn(p->ctx, i, &e) != 0) {
            pthread_mutex_lock(&p->mu);
            if (!atomic_exchange(&p->failed, 1)) p->err = e;
            pthread_mutex_unlock(&p->mu);
            break;
        }
    }
    return NULL;
}

int util_pool_for(size_t n, int (*fn)(void *ctx, size_t i, struct pt_error *e), void *ctx, struct pt_error *err) {
    struct pool p = {.n = n, .fn = fn, .ctx = ctx};
    atomic_init(&p.next, 0);
    atomic_init(&p.failed, 0);
    pthread_mutex_init(&p.mu, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = cores < 2 ? 0 : cores > EXTRA_MAX + 1 ? EXTRA_MAX : (size_t)cores - 1, started = 0;
    const char *env = getenv("PROBETOP_THREADS");   /* the threads in all, 1 to 4 (tests: outputs the same on any number) */
    long want = env && *env ? strtol(env, NULL, 10) : 0;
    if (want >= 1) nt = want > EXTRA_MAX + 1 ? EXTRA_MAX : (size_t)want - 1;
    if (nt > n) nt = n;
    pthread_t th[EXTRA_MAX];
    for (; started < nt; started++)
        if (pthread_create(&th[started], NULL, worker, &p) != 0) break;   /* fewer threads: still done */
    worker(&p);
    for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p.mu);
    if (atomic_load(&p.failed)) {
        if (err) *err = p.err;
        return -1;
    }
    return 0;
}
