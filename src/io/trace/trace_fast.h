/* trace_fast: the trace reader's fast path for one event object
 * (trace_parse.c).  A profiler trace is millions of small flat objects
 * ({"ph": "X", "cat": "kernel", "name": ..., "pid": ..., "tid": ...,
 * "ts": ..., "dur": ..., "args": {...}}); the pull tokenizer makes a
 * token of every key and value.  This reads the object's bytes directly:
 * keys dispatched on their length and bytes, "ts"/"dur" to nanoseconds
 * and to the nearest double in one digit loop, the integers in another,
 * "name" and "cat" taken in place, values nobody reads stepped over by
 * their brackets (args' lists of shapes).  An event that begins with the
 * bytes of one read before (struct trace_fast_snap) takes what those set,
 * and one whose rest has that one's keys, separators and kinds of value
 * (its template) reads only its numbers.
 *
 * It is an answer or nothing: for anything it is not sure of (an escape in
 * a string it would decode, a duplicate key, a number with an exponent or
 * beyond 19 digits, a string time with spaces, bytes the tokenizer would
 * refuse, the object running past the buffer) it gives up without a
 * side effect and the caller parses the same bytes with the tokenizer.
 * When it answers, the event is the one the tokenizer path gives, field by
 * field (tests/fuzz/fuzz_tracefast.c compares them on every input). */
#ifndef PT_TRACE_FAST_H
#define PT_TRACE_FAST_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_FAST_NAME 2048   /* longest kernel name kept (longer ones are cut) */

#define TRACE_FAST_NPRED 16   /* members of an event (and of its args) whose key is predicted */

/* A key expected at a member's place: its bytes from the opening quote to
 * the space after ':' ("ts": ), len 0 none, and what it is. */
struct trace_fast_pred {
    unsigned char len, id;
    char b[16];
};

#define TRACE_FAST_NSNAP 16    /* event beginnings remembered */
#define TRACE_FAST_SNAP 160    /* their longest */
#define TRACE_FAST_TPL 12      /* values of an event's rest remembered with its beginning */
#define TRACE_FAST_TPL_BYTES 160   /* the bytes between them */

/* The beginning of an event read before, up to the quote of its first
 * member that is not "ph", "cat", "name", "pid" or "tid", and what those
 * members set: an event that begins with the same bytes sets the same. */
struct trace_fast_snap {
    unsigned len;            /* bytes in b, the quote included; 0 none */
    char b[TRACE_FAST_SNAP];
    char ph;
    int cat;
    unsigned name_off;       /* the name's offset in b, UINT_MAX none */
    unsigned probe;          /* 8 bytes of b (from the name's, else from 0) compared first, when len >= 8 + probe */
    size_t namelen;
    int64_t pid, tid;
    unsigned seen;           /* the members' keys */
    int at;                  /* their count */
    unsigned used;           /* when an event last began so (trace_fast_ev.snap_clock): the least recent is replaced
                                (after 2^32 events the count wraps: only which one is replaced changes) */
    uint64_t gen;            /* the keep that made it (trace_fast_ev.snap_kept, from 1): what its name gave
                                holds while gen is the same (trace_parse.c: tp_memo) */
    /* The rest of an event that began with b, as one read before it had it
     * (tend 0: none): its values' kinds (the numbers read straight: times
     * in the usual shape, plain integers) and the bytes between them (keys,
     * ", ", args' '{'), tlit[i] of them in tb before the i-th value and
     * tend after the last one up to the event's '}'.  An event whose bytes
     * there are those, and whose values read as those kinds, sets what the
     * members read one by one would set (trace_fast.c: tpl_apply). */
    unsigned char nt, tend;
    unsigned char tkind[TRACE_FAST_TPL], tlit[TRACE_FAST_TPL];
    char tb[TRACE_FAST_TPL_BYTES];
};

enum { TRACE_FAST_CAT_OTHER, TRACE_FAST_CAT_TRACE, TRACE_FAST_CAT_GPU_ANNO, TRACE_FAST_CAT_NPU_FLOW, TRACE_FAST_CAT_KERNEL };

/* One event as the trace reader reads it (trace_parse.c fills it either way). */
struct trace_fast_ev {
    char ph;
    int cat;                 /* TRACE_FAST_CAT_* */
    char name[TRACE_FAST_NAME];
    size_t namelen;
    const char *namep;       /* the name's namelen bytes: name, or (trace_fast_event) the bytes read, not
                                copied nor ended by a NUL, valid while the input is; trace_fast_ev_name
                                copies them into name */
    int has_ts, has_dur, bad_time;
    int64_t ts, dur, pid, tid, stream, corr, id;
    double ts_d, dur_d;      /* ts and dur as the nearest doubles of us (as HTA reads them) */
    int has_id;
    int snap_name;           /* the snapshot (index in snap) the event began with, when its name is in
                                that one's bytes: the name of every event that began with it since its gen;
                                -1 none */
    int task;                /* args has "Task Type" (torch_npu device task) */
    int task_cat;            /* its category, -1 unknown */
    char argname[64];        /* args.name (metadata events) */
    char pgname[64], pgdesc[96];   /* args "Process Group Name", "Process Group Description" */
    char pgranks[4096];            /* args "Process Group Ranks" ("[0, 1]"; longer ones are not read) */
    uint8_t p2p;                   /* args "Collective name": 1 "send", 2 "recv", 0 else */
    int64_t peer, prank;           /* args "Dst Rank" (send) or "Src Rank" (recv); "Rank"; -1 without */
    /* Kept from event to event (not reset; zeroed with the struct before
     * the first): each member's key as the event before had it, by place,
     * in the event and in its args.  A member whose bytes are those is
     * that key (no quote or backslash inside: the scan would end there
     * too); others are read and become the new expectation. */
    struct trace_fast_pred pev[TRACE_FAST_NPRED], parg[TRACE_FAST_NPRED];
    /* Kept too: the beginnings of the last events (struct trace_fast_snap),
     * the events' count for their use stamps, the ones the last event and
     * the one before it began with, and for each two in a row the two that
     * came after them the last times (tried first: trace_snap.h). */
    struct trace_fast_snap snap[TRACE_FAST_NSNAP];
    unsigned snap_clock, snap_hit, snap_prev;
    uint64_t snap_kept;      /* snapshots kept so far (their gens) */
    unsigned char snap_pred[TRACE_FAST_NSNAP][TRACE_FAST_NSNAP][2];
    /* Kept too: the first 8 digits of the last time of 9 digits or more, as
     * loaded (0 none), and their value. */
    uint64_t hi_w, hi_v;
};

/* The fields of an event before its first key (what an empty object gives). */
void trace_fast_ev_reset(struct trace_fast_ev *e);
/* The event's name as a string: namep's bytes copied into name (cut as
 * the tokenizer path cuts it), which namep then is. */
const char *trace_fast_ev_name(struct trace_fast_ev *e);

/* The category of a "cat" string's raw bytes (no escapes). */
int trace_fast_cat(const char *s, size_t n);
/* The category of a torch_npu "Task Type" (enum trace_cat), -1 unknown. */
int trace_fast_task_cat(const char *s, size_t n);
/* A JSON integer or numeric string (raw text) as int64: 0, or -1 unless
 * plain digits (a leading '-' allowed) in range. */
int trace_fast_int64(const char *s, size_t n, int64_t *out);

/* The event object whose '{' came just before p, from the bytes [p, end):
 * 1 with *e filled, *close at its '}' and *ts_frac set when a valid "ts"
 * had a fraction; 0 when the tokenizer must read it (*e undefined, nothing
 * else touched but e's key predictions).  e is zeroed before its first event. */
int trace_fast_event(const char *p, const char *end, struct trace_fast_ev *e, const char **close, int *ts_frac);

#endif
