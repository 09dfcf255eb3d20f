/* trace_snap: the event beginnings and templates of trace_fast.c
 * (struct trace_fast_snap): finding the one an event begins with, setting
 * what it set, and remembering a beginning and the rest of an event (its
 * template) as they are read.  Reading an event's rest by its template is
 * trace_fast.c's (tpl_apply), beside the value readers it uses. */
#ifndef PT_TRACE_SNAP_H
#define PT_TRACE_SNAP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "src/io/trace/trace_fast.h"

/* What a template's value is: a time read by time_fixed, or a plain
 * integer (read_value and val_int) kept in a field or stepped over. */
enum { TK_TS, TK_DUR, TK_SKIP, TK_PID, TK_TID, TK_STREAM, TK_CORR, TK_PEER, TK_RANK };

/* A template being recorded while an event is read member by member: each
 * value's kind and the bytes from the end of the one before (from the
 * first member's quote) to its start; bad when a value is of another
 * kind or the template would not fit. */
struct tpl_rec {
    const char *last;   /* where the bytes before the next value begin */
    int n, bad;
    size_t used;
    unsigned char kind[TRACE_FAST_TPL];
    const char *from[TRACE_FAST_TPL];
    size_t len[TRACE_FAST_TPL];
};

/* The field a template's integer of that kind (not TK_SKIP or a time) sets. */
static inline int64_t *tk_field(struct trace_fast_ev *e, int kind) {
    switch (kind) {
    case TK_PID: return &e->pid;
    case TK_TID: return &e->tid;
    case TK_STREAM: return &e->stream;
    case TK_CORR: return &e->corr;
    case TK_PEER: return &e->peer;
    default: return &e->prank;
    }
}

/* The value [v0, v1) of that kind read (r NULL: nothing recorded). */
void tpl_note(struct tpl_rec *r, const char *v0, const char *v1, int kind);
/* The event being recorded has a value or a member no template holds (r NULL: nothing recorded). */
static inline void tpl_bad(struct tpl_rec *r) {
    if (r) r->bad = 1;
}
/* rec's template, the event's '}' at close, kept as sn's when it fits. */
void tpl_keep(struct trace_fast_snap *sn, const struct tpl_rec *rec, const char *close);

/* ---- event beginnings (struct trace_fast_snap) ----
 *
 * What a member sets depends only on its bytes and the bytes of the ", "
 * and the quote after it (every scan stops inside them), so an event that
 * begins with the bytes of one read before sets what that one set in
 * them: ph, cat, name (its place), pid and tid, the keys seen; the rest of
 * the event is read from there. */

/* The snapshot whose bytes begin the event at p (its first member's
 * quote), or NULL: first the two that came, the last times, after the
 * two snapshots the last two events began with (trace_fast_ev.snap_pred:
 * a trace's events come in runs of a few shapes, a launch, its kernel,
 * an annotation, so the two before mostly tell the next), then the
 * others from the last one's place, each by 8 bytes of its name before
 * the whole (events differ mostly in their names).  Any one that matches
 * sets the same (the bytes are the same), so which is tried first changes
 * nothing else. */
static inline int snap_is(const struct trace_fast_snap *sn, const char *p, const char *end) {
    if (!sn->len || (size_t)(end - p) <= sn->len) return 0;
    if (sn->len >= 8 + sn->probe && memcmp(p + sn->probe, sn->b + sn->probe, 8)) return 0;
    return !memcmp(p, sn->b, sn->len);
}
static inline struct trace_fast_snap *snap_find(struct trace_fast_ev *e, const char *p, const char *end) {
    unsigned char *g = e->snap_pred[e->snap_prev % TRACE_FAST_NSNAP][e->snap_hit % TRACE_FAST_NSNAP];
    unsigned a = g[0] % TRACE_FAST_NSNAP, b = g[1] % TRACE_FAST_NSNAP, i = a;
    if (!snap_is(&e->snap[a], p, end)) {
        if (b != a && snap_is(&e->snap[b], p, end)) {
            i = b;
        } else {
            unsigned j = 0;
            for (; j < TRACE_FAST_NSNAP; j++) {
                i = (e->snap_hit + j) % TRACE_FAST_NSNAP;
                if (i != a && i != b && snap_is(&e->snap[i], p, end)) break;
            }
            if (j == TRACE_FAST_NSNAP) return NULL;
        }
        g[1] = (unsigned char)a;   /* the latest first, the one before second */
        g[0] = (unsigned char)i;
    }
    e->snap_prev = e->snap_hit;
    e->snap_hit = i;
    e->snap[i].used = ++e->snap_clock;
    return &e->snap[i];
}

/* The event at p set as the snapshot's was; past its bytes (at the next key's quote). */
static inline const char *snap_apply(struct trace_fast_ev *e, const struct trace_fast_snap *sn, const char *p, unsigned *seen, int *at) {
    e->ph = sn->ph;
    e->cat = sn->cat;
    if (sn->name_off != UINT_MAX) {
        e->namep = p + sn->name_off;
        e->namelen = sn->namelen;
        e->snap_name = (int)e->snap_hit;   /* sn's index (snap_find's) */
    }
    e->pid = sn->pid;
    e->tid = sn->tid;
    *seen = sn->seen;
    *at = sn->at;
    return p + sn->len - 1;
}

/* The event just read from start, whose members before the quote at cut
 * were ph, cat, name, pid or tid (at of them, keys seen), remembered. */
void snap_keep(struct trace_fast_ev *e, const char *start, const char *cut, unsigned seen, int at);

#endif
