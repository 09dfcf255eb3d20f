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

int util_pool_threads(int max) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cores < 2 ? 1 : cores > max ? max : (int)cores;
    const char *env = getenv("PROBETOP_THREADS");   /* the threads in all (tests: outputs the same on any number) */
    long want = env && *env ? strtol(env, NULL, 10) : 0;
    if (want >= 1) nt = want > max ? max : (int)want;
    return nt < 1 ? 1 : nt;
}

int util_pool_for(size_t n, int (*fn)(void *ctx, size_t i, struct pt_error *e), void *ctx, struct pt_error *err) {
    struct pool p = {.n = n, .fn = fn, .ctx = ctx};
    atomic_init(&p.next, 0);
    atomic_init(&p.failed, 0);
    pthread_mutex_init(&p.mu, NULL);
    size_t nt = (size_t)util_pool_threads(EXTRA_MAX + 1) - 1, started = 0;
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
