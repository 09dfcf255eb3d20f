/* shelf: see shelf.h. */
#include "model/util/shelf.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/bigmem.h"

#define SHELF_CUT_MIN 4096   /* a cut gives back whole pages, else it is not worth a realloc */

int util_shelf_init(struct util_shelf *sh, int slots, unsigned flags, uint64_t max) {
    memset(sh, 0, sizeof *sh);
    if (slots < 1) slots = 1;
    if (!(sh->v = malloc((size_t)slots * sizeof *sh->v))) return -1;
    sh->slots = slots;
    sh->flags = flags;
    sh->max = max;
    if ((flags & UTIL_SHELF_LOCK) && pthread_mutex_init(&sh->mu, NULL)) {
        free(sh->v);
        sh->v = NULL;
        return -1;
    }
    return 0;
}

void util_shelf_free(struct util_shelf *sh) {
    if (!sh->v) return;
    for (int i = 0; i < sh->n; i++) free(sh->v[i].p);
    free(sh->v);
    if (sh->flags & UTIL_SHELF_LOCK) pthread_mutex_destroy(&sh->mu);
    memset(sh, 0, sizeof *sh);
}

static void lock(struct util_shelf *sh) {
    if (sh->flags & UTIL_SHELF_LOCK) pthread_mutex_lock(&sh->mu);
}
static void unlock(struct util_shelf *sh) {
    if (sh->flags & UTIL_SHELF_LOCK) pthread_mutex_unlock(&sh->mu);
}

/* v[i] taken off (the lock held): its buffer, *bytes its size. */
static void *pop(struct util_shelf *sh, int i, size_t *bytes) {
    void *p = sh->v[i].p;
    *bytes = sh->v[i].bytes;
    sh->held -= *bytes;
    sh->v[i] = sh->v[--sh->n];
    return p;
}

void *util_shelf_get(struct util_shelf *sh, size_t bytes, size_t *got) {
    void *p = NULL;
    if (sh) {
        lock(sh);
        int pick = -1;
        for (int i = 0; i < sh->n; i++)
            if (sh->v[i].bytes >= bytes && sh->v[i].bytes - bytes <= bytes / 2 &&
                (pick < 0 || sh->v[i].bytes < sh->v[pick].bytes))
                pick = i;
        if (pick >= 0) p = pop(sh, pick, got);
        unlock(sh);
        if (p && (sh->flags & UTIL_SHELF_CUT) && *got - bytes >= SHELF_CUT_MIN) {   /* realloc: in place */
            void *q = realloc(p, bytes ? bytes : 1);
            if (q) p = q, *got = bytes;
        }
        if (p) return p;
    }
    size_t want = sh && (sh->flags & UTIL_SHELF_SLACK) ? bytes + bytes / 8 + 1 : bytes;
    p = bigmem_realloc(NULL, want ? want : 1);
    *got = p ? want : 0;
    return p;
}

void *util_shelf_take(struct util_shelf *sh, size_t bytes, size_t *got) {
    void *p = NULL;
    *got = 0;
    if (!sh) return NULL;
    lock(sh);
    int pick = -1;
    for (int i = 0; i < sh->n; i++) {   /* the smallest that holds bytes, else the largest */
        int fits = sh->v[i].bytes >= bytes, pfits = pick >= 0 && sh->v[pick].bytes >= bytes;
        if (pick < 0 || (fits && (!pfits || sh->v[i].bytes < sh->v[pick].bytes)) ||
            (!fits && !pfits && sh->v[i].bytes > sh->v[pick].bytes))
            pick = i;
    }
    if (pick >= 0) p = pop(sh, pick, got);
    unlock(sh);
    return p;
}

void util_shelf_put(struct util_shelf *sh, void *p, size_t bytes) {
    if (!p) return;
    if (!sh || bytes > sh->max) { free(p); return; }   /* (max is set once, at init) */
    void *out[16];   /* the smaller ones it takes the place of, freed outside the lock */
    int nout = 0;
    lock(sh);
    /* while full or past max, the smallest goes if smaller than this one */
    while (sh->n && nout < 16 && (sh->n == sh->slots || bytes > sh->max - sh->held)) {
        int at = 0;
        for (int i = 1; i < sh->n; i++)
            if (sh->v[i].bytes < sh->v[at].bytes) at = i;
        if (sh->v[at].bytes >= bytes) break;
        size_t gone;
        out[nout++] = pop(sh, at, &gone);
    }
    if (sh->n < sh->slots && bytes <= sh->max - sh->held) {
        sh->v[sh->n++] = (struct util_shelf_buf){p, bytes};
        sh->held += bytes;
        p = NULL;
    }
    unlock(sh);
    for (int i = 0; i < nout; i++) free(out[i]);
    free(p);
}
