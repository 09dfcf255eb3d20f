/* follow: follow mode (--follow, :follow on|off, ^R by hand).  A
 * thread waits on the input's watch (src/io/common/watch.h: inotify, or polling)
 * and raises a flag; the main loop, which wakes at least every 250 ms to
 * read keys, starts a reload when the flag is up and no load runs, and
 * swaps the result in keeping the user's place (swap.c).  A file that
 * was still being written (ds->pending) is read again at the next change,
 * or once DS_SETTLE_SECONDS after the last one, when it is reported if it
 * is still broken. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "src/session/follow.h"
#include "src/session/loader.h"
#include "src/session/session.h"
#include "src/io/common/watch.h"

struct follow {
    struct watch *w;
    pthread_t thread;
    int wake[2];                  /* the main loop writes here to stop the thread */
    atomic_llong changed_ms;      /* set by the thread: when it saw a change (0: none since taken) */
    long long dirty_ms;           /* when an unread change was first seen (0: none) */
    long long change_ms;          /* the last change seen */
    int settled;                  /* the reload after the settle time was done */
};

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *run(void *arg) {
    struct follow *f = arg;
    for (;;) {
        int r = watch_wait(f->w, 60000, f->wake[0]);
        if (r == 2) return NULL;
        long long zero = 0;
        /* the first change of a burst: the pause before the reload counts from it */
        if (r == 1) atomic_compare_exchange_strong(&f->changed_ms, &zero, now_ms());
    }
}

int follow_on(struct session *a, struct pt_error *err) {
    if (a->follow) return 0;
    if (a->demo || a->mode != SESSION_MODE_TREND || !a->paths[0])
        return pt_errorf(err, "follow mode follows one PATH (a dump, a monitor tree or a .trend.db)");
    struct follow *f = calloc(1, sizeof *f);
    if (!f) return pt_errorf(err, "out of memory");
    if (watch_open(a->paths[0], &f->w, err) != 0) { free(f); return -1; }
    if (pipe(f->wake) != 0) {
        watch_close(f->w);
        free(f);
        return pt_errorf(err, "cannot make a pipe for the watcher");
    }
    atomic_init(&f->changed_ms, 0);
    if (pthread_create(&f->thread, NULL, run, f) != 0) {
        close(f->wake[0]);
        close(f->wake[1]);
        watch_close(f->w);
        free(f);
        return pt_errorf(err, "cannot start the watcher thread");
    }
    a->follow = f;
    a->lopts.follow = 1;
    f->change_ms = now_ms();
    f->settled = 1;
    /* what changed since the data on screen was read is read now */
    f->dirty_ms = a->ds ? now_ms() : 0;
    return 0;
}

void follow_off(struct session *a) {
    struct follow *f = a->follow;
    if (!f) return;
    if (write(f->wake[1], "x", 1) != 1) {}   /* the thread leaves at once */
    pthread_join(f->thread, NULL);
    close(f->wake[0]);
    close(f->wake[1]);
    watch_close(f->w);
    free(f);
    a->follow = NULL;
    a->lopts.follow = 0;
}

int follow_tick(struct session *a) {
    struct follow *f = a->follow;
    if (!f) return 0;
    long long now = now_ms();
    long long seen = atomic_exchange(&f->changed_ms, 0);
    if (seen) {
        if (!f->dirty_ms) f->dirty_ms = seen;
        f->change_ms = now;
        f->settled = 0;
    }
    if (a->load.running) return 0;
    struct pt_error err;
    /* a short pause lets a burst of writes land in one reload */
    if (f->dirty_ms && now - f->dirty_ms >= 200) {
        f->dirty_ms = 0;
        /* no data yet (follow mode started on a folder still empty): a
         * first load, progressive as at start */
        if ((a->ds ? loader_reload(a, &err) : loader_start(a, &err)) != 0) session_err(a, "reload: %s", err.msg);
        return 1;
    }
    /* quiet for the settle time: what is still broken is broken */
    if (a->ds && !f->settled && now - f->change_ms >= DS_SETTLE_SECONDS * 1000LL + 500) {
        f->settled = 1;
        if (a->ds->npending && loader_reload(a, &err) != 0) session_err(a, "reload: %s", err.msg);
        return 1;
    }
    return 0;
}

const char *follow_text(const struct session *a, char *buf, size_t size) {
    buf[0] = '\0';
    if (!a->follow) return buf;
    if (!a->grew_at) {
        snprintf(buf, size, "live");
        return buf;
    }
    time_t t = (time_t)a->grew_at;
    struct tm tm;
    localtime_r(&t, &tm);
    snprintf(buf, size, "live, grew %02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}
