/* The rank summary's group records as they wait on the spool (tdb_sentry):
 * packed against the entry before and unpacked, a record is the same
 * bytes: a header of its own (the first of a segment, one that changes,
 * one that comes back), the entry before's (one byte), the longest record
 * within TDB_SENTRY_MAX; bytes cut anywhere or not the writer's are
 * refused, with nothing read past them and the reader's place, its entry
 * before and the header it holds as they were. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt_test.h"

#include "src/io/trenddb/tdb_sentry.h"

#define NE 6
#define RMAX (TDB_SENTRY_HEAD + TDB_SENTRY_BODY)
static unsigned char recs[NE][RMAX];
static size_t rlens[NE];

/* A record of h header bytes (its size first, then types t) and a body of
 * blen bytes from seed (zeros too). */
static size_t rec(unsigned char *r, size_t h, unsigned char t, size_t blen, unsigned seed) {
    r[0] = (unsigned char)h;
    for (size_t c = 1; c < h; c++) r[c] = t;
    for (size_t i = 0; i < blen; i++) r[h + i] = (unsigned char)(i % 9 == 0 ? 0 : seed * 31 + i * 7);
    return h + blen;
}

static void make(void) {
    rlens[0] = rec(recs[0], 31, 7, 150, 1);
    rlens[1] = rec(recs[1], 31, 7, 150, 2);    /* the header before's */
    rlens[2] = rec(recs[2], 31, 1, 30, 3);     /* a header of its own */
    rlens[3] = rec(recs[3], 31, 7, 150, 4);    /* the first's again: of its own too */
    rlens[4] = rec(recs[4], 31, 7, 150, 5);
    rlens[5] = rec(recs[5], 5, 0, 0, 6);       /* no body */
}

static void round_trip(void) {
    make();
    unsigned char buf[NE * TDB_SENTRY_MAX(RMAX)];
    size_t len = 0, lens[NE];
    struct tdb_sentry_prev prev = {.h = 0};
    for (int i = 0; i < NE; i++) {
        lens[i] = tdb_sentry_pack(buf + len, recs[i], rlens[i], &prev);
        CHECK(lens[i] <= TDB_SENTRY_MAX(rlens[i]));
        len += lens[i];
    }
    CHECK_INT(lens[0], 31 + 2 + 150);
    CHECK_INT(lens[1], 1 + 150);
    CHECK_INT(lens[2], 31 + 2 + 30);
    CHECK_INT(lens[3], 31 + 2 + 150);
    CHECK_INT(lens[4], 1 + 150);
    CHECK_INT(lens[5], 5 + 2);
    unsigned char got[RMAX];
    size_t at = 0;
    prev = (struct tdb_sentry_prev){.h = 0};
    memset(got, 0xa5, sizeof got);
    for (int i = 0; i < NE; i++) {
        CHECK_INT(tdb_sentry_unpack(buf, len, &at, &prev, got), rlens[i]);
        CHECK(memcmp(got, recs[i], rlens[i]) == 0);
    }
    CHECK_INT(at, len);
    CHECK_INT(tdb_sentry_unpack(buf, len, &at, &prev, got), 0);   /* at the end: none */
    CHECK_INT(at, len);
    /* every cut of every entry, in a buffer of its exact size: refused,
     * the place, the entry before and the header held kept */
    size_t start = 0;
    struct tdb_sentry_prev p0 = {.h = 0};
    unsigned char held[RMAX];
    memset(held, 0x5a, sizeof held);
    for (int i = 0; i < NE; i++) {
        for (size_t l = start; l < start + lens[i]; l++) {
            unsigned char *exact = malloc(l ? l : 1), r[RMAX];
            if (!exact) break;
            memcpy(exact, buf, l);
            memcpy(r, held, sizeof r);
            size_t a = start;
            struct tdb_sentry_prev p = p0;
            CHECK_INT(tdb_sentry_unpack(exact, l, &a, &p, r), 0);
            CHECK(a == start && !memcmp(&p, &p0, sizeof p) && !memcmp(r, held, p0.h));
            free(exact);
        }
        CHECK_INT(tdb_sentry_unpack(buf, len, &start, &p0, held), rlens[i]);
    }
}

/* Not the writer's: the entry before's header at a segment's start, a
 * header of TDB_SENTRY_HEAD bytes, a body longer than TDB_SENTRY_BODY;
 * and bytes at random read no further than their end. */
static void refused(void) {
    unsigned char r[RMAX];
    struct tdb_sentry_prev p = {.h = 0};
    size_t at = 0;
    unsigned char same[] = {0, 1, 2, 3};
    CHECK_INT(tdb_sentry_unpack(same, sizeof same, &at, &p, r), 0);
    unsigned char big[TDB_SENTRY_HEAD + 4] = {TDB_SENTRY_HEAD};
    CHECK_INT(tdb_sentry_unpack(big, sizeof big, &at, &p, r), 0);
    unsigned char lng[3 + 2 + TDB_SENTRY_BODY + 1] = {3, 7, 7, (TDB_SENTRY_BODY + 1) & 255, (TDB_SENTRY_BODY + 1) >> 8};
    CHECK_INT(tdb_sentry_unpack(lng, sizeof lng, &at, &p, r), 0);
    lng[3] = TDB_SENTRY_BODY & 255;
    lng[4] = TDB_SENTRY_BODY >> 8;   /* the longest body: whole */
    CHECK_INT(tdb_sentry_unpack(lng, sizeof lng, &at, &p, r), 3 + TDB_SENTRY_BODY);
    CHECK_INT(at, 3 + 2 + TDB_SENTRY_BODY);
    CHECK_INT(p.h, 3);
    srand(46);
    for (int k = 0; k < 2000; k++) {
        size_t n = 1 + (size_t)rand() % 300;
        unsigned char *b = malloc(n);
        if (!b) break;
        for (size_t i = 0; i < n; i++) b[i] = (unsigned char)rand();
        if (k & 1) b[0] = (unsigned char)(rand() % 8);   /* short headers: bodies that fit */
        struct tdb_sentry_prev q = {.h = 0};
        size_t a = 0, rl;
        while ((rl = tdb_sentry_unpack(b, n, &a, &q, r)) != 0) CHECK(a <= n && rl <= RMAX);
        CHECK(a <= n);
        free(b);
    }
}

/* The longest record of the largest header packs within its most. */
static void longest(void) {
    static unsigned char r[RMAX], out[TDB_SENTRY_MAX(RMAX - 1)], got[RMAX];
    size_t len = rec(r, TDB_SENTRY_HEAD - 1, 6, TDB_SENTRY_BODY, 9);
    struct tdb_sentry_prev p = {.h = 0};
    size_t n = tdb_sentry_pack(out, r, len, &p);
    CHECK_INT(n, TDB_SENTRY_MAX(len));
    p = (struct tdb_sentry_prev){.h = 0};
    size_t at = 0;
    CHECK_INT(tdb_sentry_unpack(out, n, &at, &p, got), len);
    CHECK(!memcmp(got, r, len));
}

int main(void) {
    RUN(round_trip);
    RUN(refused);
    RUN(longest);
    PT_DONE();
}
