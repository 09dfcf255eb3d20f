/* watch: inotify or polling of an input tree (see watch.h). */
#define _GNU_SOURCE
#include "src/io/common/watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/util/util.h"

#ifdef __linux__
#include <sys/inotify.h>
#endif

/* An inotify watch: its folder and how deep below it folders are watched. */
struct wdir {
    int wd;
    int depth;
    char *path;
};

struct watch {
    char *root;           /* the folder watched (the file's folder for a file) */
    char *file;           /* a file input: its base name, else NULL */
    int ifd;              /* inotify, or -1: polling */
    struct wdir *dirs;    /* the watches, to find where a new folder is */
    size_t ndirs, capdirs;
    uint64_t sig;         /* the last signature (polling) */
    long long next_ms;    /* polling: when the next signature is due */
    long long cost_ms;    /* what the last signature took */
};

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static uint64_t mix(uint64_t h, const void *p, size_t n) { return util_hash(p, n, h); }

/* Walks dir down to depth: adds inotify watches on folders (add != 0) and
 * folds names, sizes and times into *sig.  A watch the kernel refuses
 * (its limit) turns the watch into polling. */
static void stop_inotify(struct watch *w) {
    close(w->ifd);
    w->ifd = -1;
}

static void walk(struct watch *w, const char *dir, int depth, int add, uint64_t *sig) {
#ifdef __linux__
    if (add && w->ifd >= 0) {
        int wd = inotify_add_watch(w->ifd, dir, IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE |
                                                    IN_ATTRIB | IN_ONLYDIR);
        char *p = wd >= 0 ? strdup(dir) : NULL;
        if (!p || UTIL_PUSH(w->dirs, w->ndirs, w->capdirs) != 0) {
            free(p);
            stop_inotify(w);   /* the kernel's watch limit (or memory): polling from now on */
        } else {
            w->dirs[w->ndirs++] = (struct wdir){wd, depth, p};
        }
    }
#else
    (void)add;
#endif
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
        if (w->file && strncmp(e->d_name, w->file, strlen(w->file))) continue;   /* x.trend.db, x.trend.db-wal */
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, 0) != 0) continue;
        if (sig) {
            int64_t v[3] = {(int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec};
            *sig = mix(*sig, e->d_name, strlen(e->d_name));
            *sig = mix(*sig, v, sizeof v);
        }
        if (S_ISDIR(st.st_mode) && depth > 0 && !w->file) {
            size_t n = strlen(dir) + strlen(e->d_name) + 2;
            char *sub = malloc(n);
            if (!sub) continue;
            snprintf(sub, n, "%s/%s", dir, e->d_name);
            walk(w, sub, depth - 1, add, sig);
            free(sub);
        }
    }
    closedir(d);
}

static uint64_t signature(struct watch *w) {
    uint64_t sig = 1469598103934665603ull;
    long long t0 = now_ms();
    walk(w, w->root, WATCH_DEPTH, 0, &sig);
    w->cost_ms = now_ms() - t0;
    return sig;
}

int watch_open(const char *path, struct watch **out, struct pt_error *err) {
    *out = NULL;
    struct watch *w = calloc(1, sizeof *w);
    if (!w) return pt_errorf(err, "out of memory");
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        const char *slash = strrchr(path, '/');
        w->root = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
        w->file = strdup(slash ? slash + 1 : path);
        if (!w->file) { free(w->root); w->root = NULL; }
    } else {
        w->root = strdup(path);
    }
    if (!w->root) { free(w->file); free(w); return pt_errorf(err, "out of memory"); }
    w->ifd = -1;
#ifdef __linux__
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->ifd >= 0) walk(w, w->root, w->file ? 0 : WATCH_DEPTH, 1, NULL);
#endif
    w->sig = signature(w);
    w->next_ms = now_ms() + 1000;
    *out = w;
    return 0;
}

void watch_close(struct watch *w) {
    if (!w) return;
    if (w->ifd >= 0) close(w->ifd);
    for (size_t i = 0; i < w->ndirs; i++) free(w->dirs[i].path);
    free(w->dirs);
    free(w->root);
    free(w->file);
    free(w);
}

int watch_notifies(const struct watch *w) { return w->ifd >= 0; }

#ifdef __linux__
/* A folder made (or moved in) under a watched one: it and what is already
 * inside it (made before its watch) get watches, down to the depth left. */
static void new_dir(struct watch *w, const struct inotify_event *ev) {
    const struct wdir *parent = NULL;
    for (size_t i = w->ndirs; i-- > 0;)
        if (w->dirs[i].wd == ev->wd) { parent = &w->dirs[i]; break; }
    if (!parent || parent->depth <= 0 || !ev->len) return;
    size_t n = strlen(parent->path) + strlen(ev->name) + 2;
    char *sub = malloc(n);
    if (!sub) return;
    snprintf(sub, n, "%s/%s", parent->path, ev->name);
    walk(w, sub, parent->depth - 1, 1, NULL);
    free(sub);
}
#endif

/* inotify: drains the events; 1 when one concerns the input. */
static int drain(struct watch *w) {
    int hit = 0;
#ifdef __linux__
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n;
    while (w->ifd >= 0 && (n = read(w->ifd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            if (!w->file || (ev->len && !strncmp(ev->name, w->file, strlen(w->file)))) hit = 1;
            /* new folders (a step, a rank) get their watches */
            if (!w->file && (ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)) && w->ifd >= 0) new_dir(w, ev);
            p += sizeof *ev + ev->len;
        }
    }
#else
    (void)w;
#endif
    return hit;
}

int watch_wait(struct watch *w, int timeout_ms, int wake_fd) {
    long long until = now_ms() + timeout_ms;
    for (;;) {
        long long now = now_ms();
        if (now >= until) return 0;
        struct pollfd p[2];
        int np = 0, wake_i = -1, ino_i = -1;
        if (w->ifd >= 0) { p[np] = (struct pollfd){w->ifd, POLLIN, 0}; ino_i = np++; }
        if (wake_fd >= 0) { p[np] = (struct pollfd){wake_fd, POLLIN, 0}; wake_i = np++; }
        long long t = until - now;
        if (w->ifd < 0 && w->next_ms - now < t) t = w->next_ms - now > 0 ? w->next_ms - now : 0;
        int r = poll(p, (nfds_t)np, (int)t);
        if (r < 0) {
            if (errno == EINTR) return -1;
            return 0;
        }
        if (wake_i >= 0 && (p[wake_i].revents & POLLIN)) return 2;
        if (ino_i >= 0 && (p[ino_i].revents & POLLIN)) {
            if (drain(w)) return 1;
            if (w->ifd < 0) w->next_ms = now_ms();   /* the kernel's limit: poll from now on */
            continue;
        }
        if (w->ifd < 0 && now_ms() >= w->next_ms) {
            uint64_t s = signature(w);
            long long gap = w->cost_ms * 10 > 1000 ? w->cost_ms * 10 : 1000;
            w->next_ms = now_ms() + gap;
            if (s != w->sig) {
                w->sig = s;
                return 1;
            }
        }
    }
}
