/* The monitor writer's spooled rows (tdb_monprep.h: srec_put, read by
 * srec_get and the accessors): a record read back is the record put,
 * field by field, at the length the packing promises (9 bytes and the
 * values for a target under 2^20 and a step within 24 signed bits; a tail
 * of 2 with zeros, 4 with a micro step, 4 in the long form), at the edges
 * of the short form and past them; the values (those not +0.0) 9 bytes
 * in, untouched. */
#include <stdint.h>
#include <string.h>

#include "pt_test.h"

#include "src/io/trenddb/tdb_monprep.h"

/* h put (nv values of 8 bytes, each byte its place) and read back: the
 * same fields, the record tail bytes past the values, the values. */
static void round_trip(struct srec h, size_t tail, unsigned nv) {
    unsigned char buf[SREC_MAX + 8];
    memset(buf, 0xa5, sizeof buf);
    h.nv = (uint8_t)nv;
    for (size_t i = 0; i < nv * 8; i++) buf[SREC_HEAD + i] = (unsigned char)i;
    size_t len = srec_put(buf, &h), want = SREC_HEAD + nv * 8 + tail;
    CHECK_INT((long)len, (long)want);
    CHECK(len <= SREC_MAX);
    CHECK(buf[len] == 0xa5);   /* nothing put past the record */
    CHECK_INT((long)srec_len(buf[0]), (long)want);
    struct srec g;
    CHECK_INT((long)srec_get(buf, &g), (long)want);
    CHECK_INT((long)g.nv, (long)nv);
    CHECK(g.skey == h.skey && srec_skey(buf) == h.skey);
    CHECK_INT(g.step, h.step);
    CHECK_INT(srec_step(buf), h.step);
    CHECK_INT(g.micro, h.micro);
    CHECK_INT(g.metric, h.metric);
    CHECK_INT(g.has, h.has);
    CHECK_INT(g.zeros, h.zeros);
    int same = 1;
    for (size_t i = 0; i < nv * 8; i++) same &= buf[SREC_HEAD + i] == (unsigned char)i;
    CHECK(same);
}

static void short_heads(void) {
    round_trip((struct srec){.skey = 0, .step = 0, .metric = 0, .has = 0}, 0, 0);
    round_trip((struct srec){.skey = 184, .step = 319, .metric = 8, .has = 0x3fff}, 0, 14);
    round_trip((struct srec){.skey = (1u << 20) - 1, .step = (1 << 23) - 1, .metric = 15, .has = 5}, 0, 2);
    round_trip((struct srec){.skey = 7, .step = -(1 << 23), .metric = 1, .has = 1}, 0, 1);
    round_trip((struct srec){.skey = 7, .step = -1, .metric = 15, .has = 0x2001}, 0, 2);
    round_trip((struct srec){.skey = 7, .step = -1, .metric = 8, .has = 0x3fff, .zeros = 0x3fff}, 2, 0);
}

static void longer_heads(void) {
    /* the nans column and a min of 0 as zeros: not stored */
    round_trip((struct srec){.skey = 9, .step = 4, .metric = 2, .has = 0x1f, .zeros = 0x12}, 2, 3);
    round_trip((struct srec){.skey = 9, .step = 4, .metric = 2, .has = 0x3, .zeros = 0x3}, 2, 0);
    /* past 24 bits: the long form */
    round_trip((struct srec){.skey = 1u << 20, .step = 0, .metric = 7, .has = 1}, 4, 1);
    round_trip((struct srec){.skey = UINT32_MAX, .step = INT32_MIN, .has = 1}, 4, 1);
    round_trip((struct srec){.skey = 3, .step = 1 << 23, .has = 1}, 4, 1);
    round_trip((struct srec){.skey = 3, .step = -(1 << 23) - 1, .has = 1}, 4, 1);
    round_trip((struct srec){.skey = 3, .step = INT32_MAX, .has = 1}, 4, 1);
    /* a micro step, any sign; and everything at once */
    round_trip((struct srec){.skey = 3, .step = 5, .micro = 2, .has = 1}, 4, 1);
    round_trip((struct srec){.skey = 3, .step = 5, .micro = -1, .has = 1, .zeros = 0}, 4, 1);
    round_trip((struct srec){.skey = UINT32_MAX, .step = -5, .micro = INT32_MAX, .metric = 8, .has = 0x3fff,
                             .zeros = 0x2000},
               10, 13);
    round_trip((struct srec){.skey = 3, .step = -7, .micro = 1, .metric = 1, .has = 0x3, .zeros = 0x2}, 6, 1);
}

int main(void) {
    RUN(short_heads);
    RUN(longer_heads);
    PT_DONE();
}
