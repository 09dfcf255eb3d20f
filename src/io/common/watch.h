/* watch: tells when an input (a dump root, a monitor tree, a .trend.db)
 * changes on disk, for follow mode (probetop(1), FOLLOW MODE).
 *
 * Linux's inotify where the kernel has it, on the path's folder and its
 * sub-folders down to WATCH_DEPTH (step and rank folders), watches added
 * as folders appear; otherwise, or past the kernel's watch limit, polling:
 * a signature of names, sizes and modification times of the same tree,
 * taken at most every second and never more often than ten times the
 * time one takes (a huge tree costs at most a tenth of a core).
 * Nothing is ever written; the watch only reads listings and stats. */
#ifndef PT_WATCH_H
#define PT_WATCH_H

#include "model/err.h"

#define WATCH_DEPTH 3

struct watch;

/* 0, or -1 with err (out of memory). */
int watch_open(const char *path, struct watch **out, struct pt_error *err);
void watch_close(struct watch *w);
/* Waits up to timeout_ms for a change.  1: the input changed since the
 * last call; 0: not in time; 2: wake_fd (>= 0) became readable; -1: a
 * signal interrupted the wait.  No busy loop: it sleeps in poll(2). */
int watch_wait(struct watch *w, int timeout_ms, int wake_fd);
/* 1 when the kernel notifies (inotify), 0 when polling. */
int watch_notifies(const struct watch *w);

#endif
