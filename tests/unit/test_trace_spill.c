/* The trace reader's sorted streams (src/io/trace/trace_spill.c): records
 * come back in the comparator's order with ties in push order (what
 * glibc's stable qsort gave before), whichever way the buffer is sorted:
 * already in order (no sort), by merging its lanes (each stream's records
 * in order), by the radix sort of the stream's keys, by
 * qsort when the keys refuse, and through the temporary file's runs when
 * the budget is small.  The reference is a sort by (key, stream, push
 * number) of the same records.  Every other stream is read through
 * trace_spill_rd (the records in place when in memory). */
#include "pt_test.h"

#include <stdlib.h>
#include <string.h>

#include "src/io/trace/trace_spill.h"

struct rec {
    int64_t t;
    uint16_t s;
    uint32_t seq;            /* push number: not compared by the stream */
};

static int cmp_rec(const void *a, const void *b) {
    const struct rec *x = a, *y = b;
    if (x->t != y->t) return (x->t > y->t) - (x->t < y->t);
    return (x->s > y->s) - (x->s < y->s);
}
static int cmp_ref(const void *a, const void *b) {
    int c = cmp_rec(a, b);
    if (c) return c;
    const struct rec *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* As trace_build.c's ktmp keys: the time less the smallest, then the stream. */
static int nkeys_called;
static int rec_keys(const void *recs, size_t n, size_t rec, uint64_t *out) {
    const struct rec *v = recs;
    nkeys_called++;
    if (rec != sizeof *v || !n) return -1;
    int64_t lo = v[0].t, hi = lo;
    for (size_t i = 1; i < n; i++) {
        if (v[i].t < lo) lo = v[i].t;
        if (v[i].t > hi) hi = v[i].t;
    }
    if ((uint64_t)hi - (uint64_t)lo >= (uint64_t)1 << 48) return -1;
    for (size_t i = 0; i < n; i++) out[i] = ((uint64_t)v[i].t - (uint64_t)lo) << 16 | v[i].s;
    return 0;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* What a stream's budget saw (through_room). */
struct seen {
    uint64_t held, spilled;   /* held after the last push; bytes spilled */
};

/* When set, every stream takes its buffer from this shelf and gives it
 * back (trace_spill_take, trace_spill_free_to; its sorts' arrays too). */
static struct util_shelf *test_shelf;

/* The records v[0..n) through a stream, pushed or written into
 * trace_spill_slot by turns (keyed: 0 no keys, 1 keys, 2 keys
 * whose low 16 bits are the lane; budget cap bytes; room: trace_spill_room
 * before the first push, 0 none; *seen set when not NULL):
 * the number of places where the order differs from the reference. */
static size_t through_room(const struct rec *v, size_t n, int keyed, uint64_t cap, uint64_t room, int *spilled, struct seen *seen) {
    struct trace_spill_budget bud = {.cap = cap};
    struct trace_spill *s = trace_spill_new(sizeof *v, cmp_rec, &bud);
    CHECK(s != NULL);
    if (!s) return n;
    if (keyed) trace_spill_keys(s, rec_keys);
    if (keyed == 2) trace_spill_lanes(s, 16);
    if (test_shelf) trace_spill_take(s, test_shelf, room);
    if (room) trace_spill_room(s, room);
    struct pt_error err;
    for (size_t i = 0; i < n; i++) {   /* every other record written into trace_spill_slot's place */
        struct rec *d = i % 2 ? trace_spill_slot(s, &err) : NULL;
        if (d) *d = v[i];
        if (i % 2 ? !d : trace_spill_push(s, &v[i], &err) != 0) { CHECK(!"push"); trace_spill_free(s); return n; }
    }
    if (seen) seen->held = atomic_load(&bud.held);
    if (trace_spill_park(s, &err) || trace_spill_sort(s, &err)) { CHECK(!"sort"); trace_spill_free(s); return n; }
    struct rec *ref = malloc((n ? n : 1) * sizeof *ref);
    memcpy(ref, v, n * sizeof *v);
    qsort(ref, n, sizeof *ref, cmp_ref);
    size_t bad = 0, got = 0;
    const struct rec *r;
    static int by_rd;   /* every other stream read through trace_spill_rd (in place when in memory) */
    struct trace_spill_rd rd;
    if ((by_rd ^= 1)) trace_spill_rd_init(&rd, s);
    while ((r = by_rd ? trace_spill_rd_next(&rd, &err) : trace_spill_next(s, &err)) != NULL) {
        if (got >= n || memcmp(r, &ref[got], sizeof *r) != 0) bad++;
        got++;
    }
    CHECK(!trace_spill_failed(s));
    bad += got > n ? got - n : n - got;
    *spilled = atomic_load(&bud.spilled) > 0;
    if (seen) seen->spilled = atomic_load(&bud.spilled);
    free(ref);
    if (test_shelf) trace_spill_free_to(s, test_shelf);
    else trace_spill_free(s);
    return bad;
}

static size_t through_stream(const struct rec *v, size_t n, int keyed, uint64_t cap, int *spilled) {
    return through_room(v, n, keyed, cap, 0, spilled, NULL);
}

enum { SHAPE_RANDOM_TIES, SHAPE_SORTED, SHAPE_SORTED_TIES, SHAPE_REVERSE, SHAPE_STREAMS, SHAPE_NEGATIVE, SHAPE_WIDE,
       SHAPE_LANES_TIES, SHAPE_LANES_16, SHAPE_LANES_17, SHAPE_LANE_BACK, NSHAPES };

static void fill(struct rec *v, size_t n, int shape) {
    for (size_t i = 0; i < n; i++) {
        uint64_t x = next_rand();
        switch (shape) {
        case SHAPE_RANDOM_TIES: v[i] = (struct rec){(int64_t)(x % 50), (uint16_t)(x >> 32) % 3, (uint32_t)i}; break;
        case SHAPE_SORTED: v[i] = (struct rec){(int64_t)i * 7, 1, (uint32_t)i}; break;
        case SHAPE_SORTED_TIES: v[i] = (struct rec){(int64_t)(i / 3), 2, (uint32_t)i}; break;
        case SHAPE_REVERSE: v[i] = (struct rec){(int64_t)(n - i), (uint16_t)(i % 2), (uint32_t)i}; break;
        case SHAPE_STREAMS:   /* two streams each in order, interleaved (kernels in correlation order) */
            v[i] = (struct rec){1700000000000000000ll + (int64_t)(i / 2) * 1000 + (i % 2 ? 500 + (int64_t)(x % 900) : 0),
                                (uint16_t)(i % 2 ? 65535 : 7), (uint32_t)i};
            break;
        case SHAPE_NEGATIVE: v[i] = (struct rec){(int64_t)(x % 2000000) - 1000000, (uint16_t)(x >> 40), (uint32_t)i}; break;
        case SHAPE_WIDE:   /* times 2^48 ns apart or more: the keys refuse, qsort sorts */
            v[i] = (struct rec){(int64_t)(x % 4) * ((int64_t)1 << 50) - ((int64_t)1 << 51), (uint16_t)(x >> 50) % 2, (uint32_t)i};
            break;
        case SHAPE_LANES_TIES:   /* 5 streams met in random turns, each in order with ties (merged lanes) */
            v[i] = (struct rec){(int64_t)(i / 4), (uint16_t)(x % 5 * 1000), (uint32_t)i};
            break;
        case SHAPE_LANES_16:   /* 16 streams each in order, overlapping: the most lanes merged */
        case SHAPE_LANES_17:   /* 17: one lane too many, the radix sort */
            v[i] = (struct rec){(int64_t)i * 10 + (int64_t)(i % (shape == SHAPE_LANES_16 ? 16 : 17)) * 1000,
                                (uint16_t)(i % (shape == SHAPE_LANES_16 ? 16 : 17)), (uint32_t)i};
            break;
        case SHAPE_LANE_BACK:   /* 3 streams in order but for one record that goes back */
            v[i] = (struct rec){(int64_t)i - (i == n / 2 ? 5 : 0), (uint16_t)(i % 3), (uint32_t)i};
            break;
        }
    }
}

static void orders(void) {
    const size_t sizes[] = {1, 2, 3, 17, 1000, 40000};
    for (int shape = 0; shape < NSHAPES; shape++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            size_t n = sizes[z];
            struct rec *v = malloc(n * sizeof *v);
            fill(v, n, shape);
            for (int keyed = 0; keyed < 3; keyed++) {
                int sp;
                size_t bad = through_stream(v, n, keyed, UINT64_MAX, &sp);
                if (bad) fprintf(stderr, "shape %d n %zu keyed %d: %zu records out of place\n", shape, n, keyed, bad);
                CHECK_INT(bad, 0);
                CHECK(!sp);
            }
            free(v);
        }
}

/* Past the budget: sorted runs in the temporary file, merged (ties: the
 * earlier run first), each run sorted by the keys. */
static void spilled_runs(void) {
    size_t n = 300000;
    struct rec *v = malloc(n * sizeof *v);
    for (int shape = 0; shape < NSHAPES; shape++) {
        fill(v, n, shape);
        for (int keyed = 1; keyed < 3; keyed++) {
            nkeys_called = 0;
            int sp = 0;
            size_t bad = through_stream(v, n, keyed, (uint64_t)2 << 20, &sp);
            if (bad) fprintf(stderr, "spilled shape %d keyed %d: %zu records out of place\n", shape, keyed, bad);
            CHECK_INT(bad, 0);
            CHECK(sp);
            if (shape == SHAPE_RANDOM_TIES || shape == SHAPE_REVERSE) CHECK(nkeys_called > 1);   /* every run by the keys */
        }
    }
    free(v);
}

/* Room made ahead (trace_spill_room, fewer, as many or more records than
 * come): the same order, and the budget counts and spills as without it. */
static void room_ahead(void) {
    size_t n = 100000;
    struct rec *v = malloc(n * sizeof *v);
    const uint64_t caps[] = {UINT64_MAX, (uint64_t)2 << 20, (uint64_t)600 << 10};
    const uint64_t rooms[] = {1, 50000, 100000, 400000};
    const int shapes[] = {SHAPE_RANDOM_TIES, SHAPE_SORTED, SHAPE_LANES_16};
    for (size_t h = 0; h < sizeof shapes / sizeof *shapes; h++) {
        int shape = shapes[h];
        fill(v, n, shape);
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++) {
            struct seen none, with;
            int sp;
            CHECK_INT(through_room(v, n, 1, caps[c], 0, &sp, &none), 0);
            for (size_t r = 0; r < sizeof rooms / sizeof *rooms; r++) {
                size_t bad = through_room(v, n, 1, caps[c], rooms[r], &sp, &with);
                if (bad) fprintf(stderr, "room %llu shape %d cap %zu: %zu records out of place\n", (unsigned long long)rooms[r], shape, c, bad);
                CHECK_INT(bad, 0);
                CHECK(with.held == none.held);
                CHECK(with.spilled == none.spilled);
            }
        }
    }
    free(v);
}

/* Streams one after another through a shelf (as the trace reader's rank
 * builds): the same order, budget and spills as without it, whatever the
 * buffer left by the one before (larger, smaller: grown; none); a buffer
 * given back is the next one's; a full shelf keeps its largest. */
static void shelf(void) {
    size_t n = 100000;
    struct rec *v = malloc(n * sizeof *v);
    struct util_shelf sh;
    struct pt_error err;
    CHECK_INT(util_shelf_init(&sh, TRACE_SPILL_SHELF, UTIL_SHELF_LOCK | UTIL_SHELF_CUT, UINT64_MAX), 0);
    const uint64_t caps[] = {UINT64_MAX, (uint64_t)2 << 20, (uint64_t)600 << 10};
    const uint64_t rooms[] = {0, 1000, 50000, 100000, 400000};
    const int shapes[] = {SHAPE_RANDOM_TIES, SHAPE_SORTED, SHAPE_LANES_16, SHAPE_LANES_17};
    for (size_t h = 0; h < sizeof shapes / sizeof *shapes; h++) {
        fill(v, n, shapes[h]);
        for (size_t c = 0; c < sizeof caps / sizeof *caps; c++)
            for (size_t r = 0; r < sizeof rooms / sizeof *rooms; r++)
                for (int keyed = 0; keyed < 3; keyed++) {
                    struct seen none, with;
                    int sp, sp2;
                    test_shelf = NULL;
                    CHECK_INT(through_room(v, n, keyed, caps[c], rooms[r], &sp, &none), 0);
                    test_shelf = &sh;
                    size_t bad = through_room(v, n, keyed, caps[c], rooms[r], &sp2, &with);
                    test_shelf = NULL;
                    if (bad) fprintf(stderr, "shelf: shape %d cap %zu room %zu keyed %d: %zu out of place\n", shapes[h], c, r, keyed, bad);
                    CHECK_INT(bad, 0);
                    CHECK(with.held == none.held);
                    CHECK(with.spilled == none.spilled);
                    CHECK(sp == sp2);
                    CHECK(sh.n <= TRACE_SPILL_SHELF);   /* (none when the buffer went to the file) */
                }
    }
    util_shelf_free(&sh);
    /* a buffer given back is taken again; one far larger than asked is not */
    CHECK_INT(util_shelf_init(&sh, TRACE_SPILL_SHELF, UTIL_SHELF_LOCK | UTIL_SHELF_CUT, UINT64_MAX), 0);
    struct trace_spill_budget bud = {.cap = UINT64_MAX};
    struct trace_spill *s = trace_spill_new(sizeof *v, cmp_rec, &bud);
    trace_spill_take(s, &sh, 1000);   /* nothing on the shelf: nothing taken */
    CHECK(trace_spill_push(s, &v[0], &err) == 0);
    const void *first = ((struct trace_spill_head *)(void *)s)->buf;
    trace_spill_free_to(s, &sh);
    CHECK_INT(sh.n, 1);
    s = trace_spill_new(sizeof *v, cmp_rec, &bud);
    trace_spill_take(s, &sh, 10);   /* smaller than the buffer: taken */
    CHECK(((struct trace_spill_head *)(void *)s)->buf == first);
    CHECK_INT(sh.n, 0);
    trace_spill_free_to(s, &sh);
    size_t got;
    void *p = util_shelf_get(&sh, 8, &got);   /* the 1024 records' buffer, far larger: not taken */
    CHECK(p != NULL && p != first);
    free(p);
    CHECK_INT(sh.n, 1);
    size_t bytes = sh.v[0].bytes;
    p = util_shelf_get(&sh, bytes - bytes / 4, &got);   /* within half as large again: taken (cut to size: it may move) */
    CHECK(p != NULL);
    CHECK_INT(sh.n, 0);
    CHECK(sh.held == 0);
    memset(p, 1, bytes - bytes / 4);
    free(p);
    for (int i = 0; i < TRACE_SPILL_SHELF + 3; i++) {   /* sizes 1..11 kB: the 8 largest kept */
        s = trace_spill_new(1024, cmp_rec, &bud);
        trace_spill_room(s, (uint64_t)i + 1);
        trace_spill_free_to(s, &sh);
    }
    CHECK_INT(sh.n, TRACE_SPILL_SHELF);
    for (int i = 0; i < sh.n; i++) CHECK(sh.v[i].bytes > 3 * 1024);
    util_shelf_free(&sh);
    CHECK_INT(util_shelf_init(&sh, TRACE_SPILL_SHELF, UTIL_SHELF_LOCK | UTIL_SHELF_CUT, 10 * 1024), 0);   /* within 10 kB: 4 kB and 5 kB, then 9 kB alone */
    const int kb[] = {4, 5, 3, 9, 11};
    const int n_after[] = {1, 2, 2, 1, 1};
    for (int i = 0; i < 5; i++) {
        s = trace_spill_new(1024, cmp_rec, &bud);
        trace_spill_room(s, (uint64_t)kb[i]);
        trace_spill_free_to(s, &sh);
        CHECK_INT(sh.n, n_after[i]);
        CHECK(sh.held <= 10 * 1024);
    }
    CHECK(sh.n == 1 && sh.v[0].bytes == 9 * 1024);   /* 11 kB is past max: freed */
    util_shelf_free(&sh);
    CHECK(atomic_load(&bud.held) == 0);
    free(v);
}

int main(void) {
    RUN(orders);
    RUN(spilled_runs);
    RUN(room_ahead);
    RUN(shelf);
    PT_DONE();
}
