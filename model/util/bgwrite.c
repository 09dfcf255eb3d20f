/* bgwrite: see bgwrite.h. */
#include "model/util/bgwrite.h"

#include <errno.h>
#include <stdlib.h>

#include "model/util/fs.h"

/* The thread: each batch handed over written at its place; after a
 * failure the batches are let go unwritten (the caller is told, at its
 * next call, and stops). */
static void *bgw_main(void *arg) {
    struct bgwrite *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->buf && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
        if (!w->buf) break;
        const void *buf = w->buf;
        size_t n = w->n;
        off_t at = w->at;
        int failed = w->err != 0;
        pthread_mutex_unlock(&w->mu);
        int rc = failed ? 0 : fs_pwrite_all(w->fd, buf, n, at);
        int e = errno;
        pthread_mutex_lock(&w->mu);
        if (rc != 0) w->err = e ? e : EIO;
        w->buf = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int bgwrite_start(struct bgwrite *w, int fd) {
    w->on = 0;
    w->fd = fd;
    w->buf = NULL;
    w->quit = w->err = 0;
    if (pthread_mutex_init(&w->mu, NULL) != 0) return -1;
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    if (pthread_create(&w->th, NULL, bgw_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    w->on = 1;
    return 0;
}

int bgwrite_wait(struct bgwrite *w) {
    if (!w->on) return 0;
    pthread_mutex_lock(&w->mu);
    while (w->buf) pthread_cond_wait(&w->cv, &w->mu);
    int e = w->err;
    pthread_mutex_unlock(&w->mu);
    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

int bgwrite_post(struct bgwrite *w, const void *buf, size_t n, off_t at) {
    if (bgwrite_wait(w) != 0) return -1;
    pthread_mutex_lock(&w->mu);
    w->buf = buf;
    w->n = n;
    w->at = at;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return 0;
}

void *bgwrite_put(struct bgwrite *w, int fd, void *buf, size_t n, off_t at, size_t start_cap) {
    if (!w->tried && start_cap) {
        w->tried = 1;
        if ((w->spare = malloc(start_cap)) && bgwrite_start(w, fd) != 0) {
            free(w->spare);
            w->spare = NULL;
        }
    }
    if (!w->on) {
        if (w->err) {   /* failed before: nothing after it is of use */
            errno = w->err;
            return NULL;
        }
        if (fs_pwrite_all(fd, buf, n, at) != 0) {
            w->err = errno ? errno : EIO;
            return NULL;
        }
        return buf;
    }
    if (bgwrite_post(w, buf, n, at) != 0) return NULL;
    void *next = w->spare;
    w->spare = buf;
    return next;
}

void bgwrite_stop(struct bgwrite *w) {
    if (!w->on) {
        free(w->spare);   /* (none when no thread was had) */
        w->spare = NULL;
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    w->on = 0;
    free(w->spare);   /* after the join: it may be the buffer the thread wrote last */
    w->spare = NULL;
}
