/* trace_parse_ctx: the state of one trace file's parse (trace_parse.c),
 * shared with trace_split.c, which parses a big file's second half on a
 * second thread and merges it into the first's.  Private to the two. */
#ifndef PT_TRACE_PARSE_CTX_H
#define PT_TRACE_PARSE_CTX_H

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "model/trace/tpatterns.h"
#include "src/io/common/json.h"
#include "src/io/trace/trace_fast.h"
#include "src/io/trace/trace_ncache.h"
#include "src/io/trace/trace_parse.h"
#include "src/io/trace/trace_src.h"

struct trace_split;
struct tp_pkeys;
struct ctx;

/* The split's steps (trace_split.c), called by trace_parse.c through these
 * (the split's file calls trace_parse.c's, not the other way). */
struct tp_hooks {
    void (*start)(struct ctx *c);   /* the parse split when it can be (trace_split.c) */
    void (*end)(struct ctx *c);     /* the second half let go, if not yet */
    int (*meet)(struct ctx *c);     /* the first half at the second's first event: 1 merged, 0 not, -1 */
    int (*pkey)(struct ctx *c, const char *name, const char *desc, const char *ranks, uint8_t *out);
};

struct ctx {
    struct json_lex lx;
    struct trace_src src;
    char *buf;
    size_t cap, max;
    int eof;
    const char *path;
    struct pt_error *err;
    atomic_int *cancel;
    struct trace_parse_names *names;
    struct trace_parse_file *f;
    int64_t *hw_pids;        /* processes named "Ascend Hardware" (torch_npu) */
    size_t nhw, caphw;
    /* Processes with host events so far: a process named "Ascend Hardware"
     * after some of its events needs a second pass (late). */
    int64_t host_pids[64];
    size_t nhost;
    int host_full, late;
    const struct tpatterns *pat;   /* f->patterns, or own's defaults */
    struct tpatterns *own;
    struct tpat_md *md;
    struct util_smap anno_cache;   /* CPU event name -> phase (up to TRACE_PARSE_ANNO_CACHE names) */
    struct trace_ncache kcache, acache;   /* the last kernel names (-> index) and CPU event names (-> phase) */
    /* kcache's and acache's answers for the name of the events that began
     * with snapshot i (trace_fast_ev.snap_name), while its gen is gen (0:
     * none): an event that began so has those bytes as its name, so the
     * cache's hash and compare are not made again (trace_parse.c: memo_get).
     * Zeroed with each pass's event reader (tp_parse_events). */
    struct tp_memo { uint64_t gen; int32_t v; } kmemo[TRACE_FAST_NSNAP], amemo[TRACE_FAST_NSNAP];
    int fast;                      /* events read by trace_fast where it can (PROBETOP_TRACE_FAST=0: never) */
    /* Parsed on two threads (trace_split.h): the first half meets the
     * second at the event that starts at byte split_off (UINT64_MAX: none);
     * the second half keeps its communication kernels' process groups as
     * keys (pkeys) for the merge to look up as one pass would. */
    uint64_t split_off;
    struct trace_split *split;
    int half2;                     /* this is the second half */
    int saw_base, saw_dist;        /* baseTimeNanoseconds, distributedInfo read */
    struct tp_pkeys *pkeys;        /* (owned by trace_split.c) */
    const struct tp_hooks *hooks;  /* NULL: one pass */
};

/* A peer's index in its group ("Rank"), kept in trace_parse_kernel.peer
 * as -2 - prank until the merge looks it up (-1: none). */
static inline int32_t tp_prank(int64_t prank) { return prank >= 0 && prank < 1000000 ? (int32_t)(-2 - prank) : -1; }

/* trace_parse.c's steps, for trace_split.c. */
/* The events of a list from the tokenizer's place: 0 at its ']', 2 when
 * the first half met the second (the meet hook merged it: the file is
 * done), -1 with err. */
int tp_parse_events(struct ctx *c);
/* The top object's members after a list, to its '}' and the end of the
 * input: 0, or -1 with err. */
int tp_top_rest(struct ctx *c);
/* The process group of (name, desc) in the file's table as one pass finds
 * it (1 + index, 0 none), its ranks from ranks (the event's "Process Group
 * Ranks") when it has none yet. */
int tp_pg_lookup(struct ctx *c, const char *name, const char *desc, const char *ranks, uint8_t *out);   /* (trace_pgcfg.c) */
/* Makes the stream *s (see new_stream). */
int tp_new_stream(struct ctx *c, struct trace_spill **s, size_t rec, int (*cmp)(const void *, const void *));
/* The next piece of input (0, or -1 with err; trace_pieces.c). */
int tp_refill(struct ctx *c);
/* The next token, refilled across pieces (JT_ERROR when a refill fails). */
static inline enum json_tok tp_next(struct ctx *c) {
    for (;;) {
        enum json_tok t = json_lex_next(&c->lx);
        if (t != JT_MORE) return t;
        if (tp_refill(c)) return JT_ERROR;
    }
}

/* The value that starts with first skipped, refilled across pieces (as json_lex_skip). */
static inline int tp_skip(struct ctx *c, enum json_tok first) {
    for (;;) {
        int r = json_lex_skip(&c->lx, first);
        if (r != 1) return r;
        if (tp_refill(c)) return -1;
    }
}

/* The current number as a whole number (0), or -1 when it is none. */
static inline int tp_value_int(const struct json_lex *lx, enum json_tok t, int64_t *out) {
    if (t != JT_NUMBER || !isfinite(lx->num) || lx->num != floor(lx->num) || fabs(lx->num) > 9e15) return -1;
    *out = (int64_t)lx->num;
    return 0;
}

/* The current string into out (cut to cap - 1 bytes): its length. */
static inline size_t tp_copy_string(const struct json_lex *lx, char *out, size_t cap) {
    if (!lx->has_esc) {
        size_t n = lx->slen < cap - 1 ? lx->slen : cap - 1;
        memcpy(out, lx->str, n);
        out[n] = '\0';
        return n;
    }
    long n = json_lex_string(lx, out, cap);
    if (n < 0) { out[0] = '\0'; return 0; }
    return (size_t)n < cap - 1 ? (size_t)n : cap - 1;
}
/* distributedInfo's members (its '{' read) into the file's rank and
 * process groups (trace_pgcfg.c): 0, or -1 with err. */
int tp_parse_dist_info(struct ctx *c);
/* A ctx for f (its patterns, budget): 0, or -1 with err; tp_ctx_free undoes it. */
struct ctx *tp_ctx_new(const char *path, struct trace_parse_names *names, size_t max_value, atomic_int *cancel,
                       struct trace_parse_file *f, struct pt_error *err);
void tp_ctx_free(struct ctx *c);
/* The file parsed (one pass, two halves through c->hooks, or again for
 * torch_npu's late device processes), its groups resolved and time base
 * added: trace_parse's work after its ctx is made.  0, or -1 with err. */
int tp_parse_file(struct ctx *c);

#endif
