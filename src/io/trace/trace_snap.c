/* trace_snap: remembering event beginnings and their templates as they
 * are read (trace_snap.h).  Finding and applying them is the header's (inline: once an event). */
#include "src/io/trace/trace_snap.h"

#include <limits.h>
#include <string.h>

/* The value [v0, v1) of that kind read (r NULL: nothing recorded). */
void tpl_note(struct tpl_rec *r, const char *v0, const char *v1, int kind) {
    if (!r || r->bad) return;
    size_t n = (size_t)(v0 - r->last);
    if (r->n == TRACE_FAST_TPL || n > UCHAR_MAX || r->used + n > TRACE_FAST_TPL_BYTES) {
        r->bad = 1;
        return;
    }
    r->from[r->n] = r->last;
    r->len[r->n] = n;
    r->kind[r->n++] = (unsigned char)kind;
    r->used += n;
    r->last = v1;
}

/* rec's template, the event's '}' at close, kept as sn's when it fits. */
void tpl_keep(struct trace_fast_snap *sn, const struct tpl_rec *rec, const char *close) {
    size_t n = (size_t)(close + 1 - rec->last);
    if (rec->bad || n > UCHAR_MAX || rec->used + n > TRACE_FAST_TPL_BYTES) return;
    char *b = sn->tb;
    for (int i = 0; i < rec->n; i++) {
        memcpy(b, rec->from[i], rec->len[i]);
        b += rec->len[i];
        sn->tlit[i] = (unsigned char)rec->len[i];
        sn->tkind[i] = rec->kind[i];
    }
    memcpy(b, rec->last, n);
    sn->nt = (unsigned char)rec->n;
    sn->tend = (unsigned char)n;
}

/* The event just read from start, whose members before the quote at cut
 * were ph, cat, name, pid or tid (at of them, keys seen), remembered. */
void snap_keep(struct trace_fast_ev *e, const char *start, const char *cut, unsigned seen, int at) {
    struct trace_fast_snap *sn = &e->snap[0];   /* the least recently begun with (one never used first) */
    for (unsigned i = 1; i < TRACE_FAST_NSNAP; i++)
        if (e->snap[i].used < sn->used) sn = &e->snap[i];
    sn->used = ++e->snap_clock;
    sn->gen = ++e->snap_kept;
    sn->len = (unsigned)(cut - start + 1);
    memcpy(sn->b, start, sn->len);
    sn->ph = e->ph;
    sn->cat = e->cat;
    sn->name_off = e->namep != e->name ? (unsigned)(e->namep - start) : UINT_MAX;
    sn->probe = sn->name_off != UINT_MAX && sn->name_off + 8 <= sn->len ? sn->name_off : 0;
    sn->namelen = e->namelen;
    sn->pid = e->pid;
    sn->tid = e->tid;
    sn->seen = seen;
    sn->at = at;
    sn->nt = sn->tend = 0;   /* its rest: from the next event that begins so */
}
