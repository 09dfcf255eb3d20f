/* The rank summary's rows as the monitor writer spools them
 * (tdb_zval_put, tdb_summary_pack_head; read back by tdb_summary_unpack): unpacked, a row is
 * the same doubles tdb_summary_row makes of the same values: present,
 * absent, NaN, msProbe's stored infinities, a target id past 32 bits, a
 * step going back (each row packed against the one before); and
 * bytes that are not the whole rows the writer counted are refused, with
 * nothing read past them. */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "pt_test.h"

#include "src/io/trenddb/tdb_summary.h"

#define NS 3

struct prow {
    int32_t step;
    int64_t target;
    uint8_t metric;
    double stored[NS];
    uint32_t present;
};

static const struct prow rows[] = {
    {0, 1, 1, {1.5, -2.0, 3.25}, 7},                       /* every statistic */
    {3, 7, 2, {0.0, 0.0, 4.0}, 4},                         /* only the last */
    {3, 8, 9, {NAN, 1.0, 2.0}, 7},                         /* a NaN norm */
    {5, 9, 3, {1000000001.0, -1000000001.0, 1e300}, 7},    /* msProbe's infinities, a finite big one */
    {7, (int64_t)1 << 40, 4, {0.5, NAN, -0.0}, 5},         /* a wide target id, a NaN absent from present */
    {-2, 2, 1, {0, 0, 0}, 0},                              /* nothing */
    {9, 3, 2, {NAN, NAN, NAN}, 7},                         /* all NaN */
    {11, 4, 5, {INFINITY, 2.0, -INFINITY}, 3},             /* infinities as read */
    {11, 6, 5, {0.0, -0.0, 0.0}, 7},                       /* zeros: +0.0 not stored, -0.0 a value */
    {11, 7, 5, {0.0, 3.0, 0.0}, 7},                        /* the same zeros as the row before */
};
#define NROWS (sizeof rows / sizeof rows[0])

/* The row as the writer makes it (mon_row_out): tdb_summary_val a
 * statistic at a time, each value kept packed at once, then the head. */
static size_t pack(const struct tdb_summary *m, const struct prow *r, unsigned char *out, struct tdb_summary_prev *prev) {
    double e[5 + NS];
    uint32_t has = 0, finite = 0, zeros = 0;
    unsigned nv = 0;
    for (int s = 0; s < NS; s++)
        if (((r->present >> s) & 1) && tdb_summary_val(e, s, r->stored[s], &has, &finite))
            tdb_zval_put(out + TDB_SUMMARY_PACK_VALS, &nv, &zeros, s, e[5 + s]);
    return tdb_summary_pack_head(out, tdb_summary_head(m), prev, r->step, r->target, r->metric, has, finite, nv, zeros);
}

static void same_rows(const char *const *cols) {
    struct tdb_summary *m = tdb_summary_new(NS, cols, 15);
    CHECK(m != NULL);
    if (!m) return;
    unsigned char buf[NROWS * TDB_SUMMARY_PACKED_MAX];
    size_t len = 0, lens[NROWS];
    struct tdb_summary_prev prev = {0};
    for (size_t i = 0; i < NROWS; i++) {
        size_t n = pack(m, &rows[i], buf + len, &prev);
        CHECK(n <= TDB_SUMMARY_PACKED_MAX);
        lens[i] = n;
        len += n;
    }
    /* the step of the row before (the NaN norm not among the values): no varint for it */
    CHECK_INT((long long)lens[2], 2 + 2 * 8 + 2 + 1);
    CHECK_INT((long long)lens[1], 2 + 1 * 8 + 2 + 1 + 1);   /* has and step new: 2 bytes and a varint more */
    struct tdb_summary_head hd = tdb_summary_head(m);
    double got[NROWS][5 + NS], want[NROWS][5 + NS];
    memset(got, 0xa5, sizeof got);
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, buf, len, NROWS, &got[0][0]), 0);
    for (size_t i = 0; i < NROWS; i++) {
        tdb_summary_row(m, want[i], rows[i].step, rows[i].target, rows[i].metric, rows[i].stored, rows[i].present);
        CHECK(memcmp(got[i], want[i], sizeof want[i]) == 0);
    }
    /* a few values checked outright: the wide target, an infinity, a NaN's count */
    CHECK(got[4][1] == (double)((int64_t)1 << 40));
    CHECK(isinf(got[3][5]) && got[3][5] > 0 && isinf(got[3][6]) && got[3][6] < 0);
    CHECK_INT((long long)got[2][3], 6);   /* has: the NaN norm not there */
    CHECK(got[5][0] == -2.0);
    /* cut bytes, a count that is not the bytes', and a statistic past the
     * columns: not the rows said (the walk stops at the bytes' end: with
     * ASan a read past them fails the test) */
    double *room = malloc((NROWS + 1) * sizeof got[0]);
    CHECK(room != NULL);
    if (!room) return;
    for (size_t l = 0; l < len; l++) {   /* every cut, in a buffer of its exact size */
        unsigned char *exact = malloc(l ? l : 1);
        if (!exact) break;
        memcpy(exact, buf, l);
        CHECK_INT(tdb_summary_unpack_rows(hd, NS, exact, l, NROWS, room), -1);
        free(exact);
    }
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, buf, len, NROWS - 1, room), -1);   /* bytes left over */
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, buf, len, NROWS + 1, room), -1);   /* rows short */
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, buf, 0, 0, room), 0);
    free(room);
    CHECK_INT(tdb_summary_unpack(m, buf, 0, 0), 0);
    CHECK_INT(tdb_summary_unpack(m, buf, len, 0), -2);
    CHECK_INT(tdb_summary_unpack(m, buf, len - 8, NROWS), -2);
    /* the zeros: only -0.0 stored, the zeros' 2 bytes; then the same zeros, none */
    CHECK_INT((long long)lens[NROWS - 2], 2 + 8 + 2 + 2 + 1);
    CHECK_INT((long long)lens[NROWS - 1], 2 + 8 + 1);
    CHECK(signbit(got[NROWS - 2][6]) && got[NROWS - 2][6] == 0 && !signbit(got[NROWS - 2][5]));
    /* a zero of a column has lacks: refused */
    unsigned char zbad[2 + 2 + 1] = {1 << 6 | 1 << 7, 1 | 0x80, 2, 0, 0};
    double zrow[5 + NS];
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, zbad, sizeof zbad, 1, zrow), -1);
    /* a statistic past the columns: refused */
    unsigned char bad[2 + 8 + 2 + 1 + 1] = {1 << 1, 1};
    uint16_t hbad = 1u << NS;
    memcpy(bad + 2 + 8, &hbad, 2);
    double row[5 + NS];
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, bad, sizeof bad, 1, row), -1);
    CHECK_INT(tdb_summary_unpack(m, bad, sizeof bad, 1), -2);
    /* a head saying more values than has (not the writer's): read no further than nv */
    unsigned char odd[2 + 16 + 2 + 1 + 1] = {2 << 1, 1};
    double one = 1.0, two = 2.0;
    uint16_t h1 = 1;
    memcpy(odd + 2, &one, 8);
    memcpy(odd + 10, &two, 8);
    memcpy(odd + 18, &h1, 2);
    odd[20] = 6;   /* step 3 */
    odd[21] = 1;   /* target -1 */
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, odd, sizeof odd, 1, row), 0);
    CHECK(row[5] == 1.0 && row[6] == 0 && row[7] == 0 && row[0] == 3.0 && row[1] == -1.0);
    /* a varint longer than 64 bits: refused */
    unsigned char longv[2 + 12] = {1 << 6 | 1 << 7, 1};
    memset(longv + 2, 0xff, 11);
    longv[13] = 1;
    CHECK_INT(tdb_summary_unpack_rows(hd, NS, longv, sizeof longv, 1, row), -1);
    CHECK_INT(tdb_summary_unpack(m, buf, len, NROWS), 0);
    tdb_summary_free(m);
}

/* With the columns that tell a NaN row (norm, mean) and without. */
static void telling(void) {
    static const char *const cols[NS] = {"norm", "max", "mean"};
    same_rows(cols);
}

static void not_telling(void) {
    static const char *const cols[NS] = {"min", "max", "zeros"};
    same_rows(cols);
}

/* The +0.0 rule both spools share (tdb_zval_put, read back by tdb_zval):
 * a +0.0 a bit of zeros and no bytes, a -0.0, NaN or any other value
 * stored, in order, each read back with its bits. */
static void zero_rule(void) {
    const double in[6] = {0.0, -0.0, 3.5, 0.0, NAN, -1e9};
    unsigned char vals[6 * 8];
    unsigned nv = 0, k = 0;
    uint32_t zeros = 0;
    for (int b = 0; b < 6; b++) tdb_zval_put(vals, &nv, &zeros, b + 2, in[b]);   /* bits 2..7 */
    CHECK_INT(nv, 4);
    CHECK_INT(zeros, 1u << 2 | 1u << 5);
    for (int b = 0; b < 6; b++) {
        double v = tdb_zval(vals, zeros, b + 2, &k);
        CHECK(!memcmp(&v, &in[b], sizeof v));
    }
    CHECK_INT(k, 4);
}

int main(void) {
    RUN(telling);
    RUN(not_telling);
    RUN(zero_rule);
    PT_DONE();
}
