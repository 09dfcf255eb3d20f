/* curves_minmax: the smallest and largest finite value of any range of a
 * series' values in O(log n), from a pyramid built once in O(n): level 0
 * holds the minimum and maximum of each block of CURVES_MINMAX_BLOCK
 * values (and whether it holds a non-finite one), each level above those
 * of two blocks of the level below.  What the curves pane draws per
 * column of the screen, so a 10 M-point series draws in O(columns): the
 * min/max decimation of a line chart (views/curves.c). */
#ifndef PT_MODEL_CURVES_MINMAX_H
#define PT_MODEL_CURVES_MINMAX_H

#include <stddef.h>
#include <stdint.h>

#define CURVES_MINMAX_BLOCK 64
#define CURVES_MINMAX_LEVELS 48

struct curves_minmax {
    const double *v;          /* the values: v[i * stride] (not owned) */
    size_t stride, n;
    int nlev;
    double *lo[CURVES_MINMAX_LEVELS], *hi[CURVES_MINMAX_LEVELS];   /* owned */
    uint8_t *bad[CURVES_MINMAX_LEVELS];   /* the block holds a NaN or an infinity */
    size_t len[CURVES_MINMAX_LEVELS];
};

/* Builds m over n values v[0], v[stride], ...; 0, or -1 without memory
 * (m then empty: queries scan the values). */
int curves_minmax_build(struct curves_minmax *m, const double *v, size_t stride, size_t n);
void curves_minmax_free(struct curves_minmax *m);

/* curves_minmax_build() in steps, for a caller that computes the blocks
 * of several pyramids in one pass over its data: begin (0, or -1 without
 * memory, m then empty); when m->nlev, curves_minmax_block() for each
 * block b < m->len[0] (the finite minimum and maximum of values
 * [b * CURVES_MINMAX_BLOCK, (b + 1) * CURVES_MINMAX_BLOCK), INFINITY and
 * -INFINITY when none is finite, bad 1 when one is not); then finish
 * (0, or -1 without memory, m then empty). */
int curves_minmax_begin(struct curves_minmax *m, const double *v, size_t stride, size_t n);
void curves_minmax_block(struct curves_minmax *m, size_t b, double lo, double hi, int bad);
int curves_minmax_finish(struct curves_minmax *m);

/* The finite minimum and maximum of values [a, b) into *lo, *hi: 1, or 0
 * when none of them is finite.  *nonfinite (may be NULL): 1 when one of
 * them is NaN or infinite. */
int curves_minmax_query(const struct curves_minmax *m, size_t a, size_t b, double *lo, double *hi, int *nonfinite);

#endif
