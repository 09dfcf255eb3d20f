/* trace_spill: a sorted stream of fixed-size records held within a memory
 * budget (probetop-formats(5), PROFILER TRACES: Memory).  Records are
 * pushed in any order and read back in the comparator's order (ties in
 * push order); while the budget allows they stay in memory (one sort: none
 * when already in order, a merge of its lanes when each is, a radix sort
 * of the stream's keys, else qsort), past it they go in sorted
 * runs to an unlinked temporary file ($TMPDIR, else /tmp; never beside the
 * input) and come back through a k-way merge.  The trace reader keeps its
 * kernels and launches in these, so a trace of any number of kernels opens
 * in bounded memory with the figures exact. */
#ifndef PT_TRACE_SPILL_H
#define PT_TRACE_SPILL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/util/shelf.h"

/* The memory shared by every stream of a load: bytes held in memory by
 * all of them together, and the cap; also what went to disk. */
struct trace_spill_budget {
    atomic_ullong held;
    uint64_t cap;
    atomic_ullong spilled;     /* bytes written to temporary files */
};

struct trace_spill;

/* The first members of every stream, seen here for the inline
 * trace_spill_slot and trace_spill_count (the rest is trace_spill.c's). */
struct trace_spill_head {
    char *buf;
    size_t rec;
    size_t n, cap;      /* records in buf, its size in records */
    size_t vcap;        /* the size the budget counts (held): doubled as records come, as if buf were
                           (room made ahead by trace_spill_room is counted only when records take it) */
    uint64_t count;
};

/* A stream of records of size rec ordered by cmp.  NULL: out of memory. */
struct trace_spill *trace_spill_new(size_t rec, int (*cmp)(const void *, const void *), struct trace_spill_budget *b);
void trace_spill_free(struct trace_spill *s);
/* The records' order as one unsigned 64-bit key each: keys(recs, n, rec,
 * out) sets out[i] for the n records (it may look at them all first, e.g.
 * for the smallest time) and returns 0 when key order is cmp's order
 * exactly (a < b in keys iff cmp < 0, equal iff cmp == 0), else -1.  A
 * stream given keys sorts its buffers by a stable radix sort of the keys
 * instead of qsort (glibc's is a stable merge sort: the same order, ties
 * kept in push order); when keys says -1 or memory is short, qsort. */
void trace_spill_keys(struct trace_spill *s, int (*keys)(const void *recs, size_t n, size_t rec, uint64_t *out));
/* The keys' low bits (bits of them, 1..63) name a record's lane (for the
 * kernels: the device stream), and a lane's records mostly come pushed in
 * key order: when they all do (and there are 16 lanes at most) a buffer is
 * sorted by merging its lanes instead of the radix sort. */
void trace_spill_lanes(struct trace_spill *s, int bits);
/* Room for n records at once, when the budget has it (else the buffer
 * grows as records come, spilling past the budget as always): no copies
 * of a growing buffer when the count is known.  0, or -1 with err (out of
 * memory). */
int trace_spill_reserve(struct trace_spill *s, uint64_t n, struct pt_error *err);
/* Room for about n records, made ahead of them without counting it in the
 * budget (a guess, e.g. from a file's length): records taken into it are
 * counted as trace_spill_push always counts them, so what spills is as
 * without it; trace_spill_park gives back what was not taken.  Without
 * memory it changes nothing. */
void trace_spill_room(struct trace_spill *s, uint64_t n);
/* The records a stream's budget counts (trace_spill_head.vcap) once it
 * holds n, none spilled: what n pushes from empty make it. */
uint64_t trace_spill_vcap_for(uint64_t n);
/* Appends one record.  0, or -1 with err (out of memory, the temporary
 * file could not be written). */
int trace_spill_push(struct trace_spill *s, const void *rec, struct pt_error *err);
/* As trace_spill_push, the record written by the caller: where the next
 * one goes (rec bytes, to be filled before any other call on s), or NULL
 * with err.  A caller that knows the record's type copies it there in
 * fixed-size moves, not a memcpy call of the stream's size. */
void *trace_spill_slot_grow(struct trace_spill *s, struct pt_error *err);
static inline void *trace_spill_slot(struct trace_spill *s, struct pt_error *err) {
    struct trace_spill_head *h = (struct trace_spill_head *)(void *)s;
    if (h->n < h->cap && h->n < h->vcap) {   /* room made and counted: no call */
        h->count++;
        return h->buf + h->n++ * h->rec;
    }
    return trace_spill_slot_grow(s, err);
}
/* The input is complete for now (a file parsed): the room made ahead and
 * not taken is given back (trace_spill_room), and when the load holds more
 * than its budget, the records go to the temporary file as one run.  0, or
 * -1 with err. */
int trace_spill_park(struct trace_spill *s, struct pt_error *err);
/* Ends the input and starts reading in order.  0, or -1 with err. */
int trace_spill_sort(struct trace_spill *s, struct pt_error *err);
/* The next record in order (valid until the next call), NULL at the end
 * or on a read error (trace_spill_failed then says so, with err set). */
const void *trace_spill_next(struct trace_spill *s, struct pt_error *err);
/* A reader of a stream after trace_spill_sort, instead of
 * trace_spill_next (not both): in memory it walks the records where they
 * are, inline, with no call per record; spilled it asks trace_spill_next. */
struct trace_spill_rd {
    struct trace_spill *s;
    const char *v;           /* in memory: the records; NULL: trace_spill_next */
    const uint32_t *order;   /* their places in order, NULL: as they are */
    size_t i, n, rec;
};
void trace_spill_rd_init(struct trace_spill_rd *r, struct trace_spill *s);
static inline const void *trace_spill_rd_next(struct trace_spill_rd *r, struct pt_error *err) {
    if (!r->v) return trace_spill_next(r->s, err);
    if (r->i >= r->n) return NULL;
    size_t at = r->order ? r->order[r->i] : r->i;
    r->i++;
    return r->v + r->rec * at;
}
int trace_spill_failed(const struct trace_spill *s);
static inline uint64_t trace_spill_count(const struct trace_spill *s) { return ((const struct trace_spill_head *)(const void *)s)->count; }
/* Sorted in memory (not spilled): the records as one array of
 * trace_spill_count(s), after trace_spill_sort (the records are moved to
 * their order then); NULL when spilled or out of memory. */
void *trace_spill_array(struct trace_spill *s);

/* The trace reader's rank builds, one after another on each pool thread,
 * give the buffers of streams done with (and of their sorts' arrays) to a
 * shelf (model/util/shelf.h) for the next stream or sort to take.  Their
 * pages are touched already, so the next rank's kernels, sort keys and
 * lane segments are written without the kernel faulting fresh zeroed
 * pages in (clear_page was a sixth of the cpu-clock samples of a 1 GB
 * folder of 8 ranks).  RSS does not grow: a buffer is taken for what would
 * have been allocated anew, and one far larger than asked is left; the
 * reader's shelf (TRACE_SPILL_SHELF slots, UTIL_SHELF_LOCK | UTIL_SHELF_CUT)
 * keeps the largest within a sixteenth of --mem, beside the budget.  Any
 * record size. */
#define TRACE_SPILL_SHELF 8
/* sh NULL, in each call below: no shelf (malloc and free, as without one).
 * A new stream (nothing pushed) takes a buffer from the shelf as room made
 * ahead (trace_spill_room: not counted in the budget until records take
 * it): the smallest of at least n records, else the largest, grown to n
 * (realloc: its touched pages kept).  Nothing on the shelf, or no memory
 * to grow: nothing changes. */
void trace_spill_take(struct trace_spill *s, struct util_shelf *sh, uint64_t n);
/* The temporary arrays of s's sorts (their keys and order) taken from sh
 * and given back to it (trace_spill_take does so too). */
void trace_spill_shelve(struct trace_spill *s, struct util_shelf *sh);
/* As trace_spill_free, its buffer put on the shelf (when full or past its
 * max, in place of the smallest ones if larger; a buffer left out is
 * freed). */
void trace_spill_free_to(struct trace_spill *s, struct util_shelf *sh);

#endif
