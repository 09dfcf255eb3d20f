/* curves_minmax: range minimum and maximum by a pyramid of blocks (see
 * curves_minmax.h). */
#include "model/curves/curves_minmax.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void curves_minmax_free(struct curves_minmax *m) {
    for (int k = 0; k < m->nlev; k++) {
        free(m->lo[k]);
        free(m->hi[k]);
        free(m->bad[k]);
    }
    memset(m, 0, sizeof *m);
}

static int level(struct curves_minmax *m, size_t len) {
    int k = m->nlev;
    m->lo[k] = malloc(len * sizeof(double));
    m->hi[k] = malloc(len * sizeof(double));
    m->bad[k] = malloc(len);
    m->len[k] = len;
    m->nlev++;
    return m->lo[k] && m->hi[k] && m->bad[k] ? 0 : -1;
}

int curves_minmax_begin(struct curves_minmax *m, const double *v, size_t stride, size_t n) {
    memset(m, 0, sizeof *m);
    m->v = v;
    m->stride = stride;
    m->n = n;
    if (n <= CURVES_MINMAX_BLOCK) return 0;
    if (level(m, (n + CURVES_MINMAX_BLOCK - 1) / CURVES_MINMAX_BLOCK) != 0) {
        curves_minmax_free(m);
        m->v = v;
        m->stride = stride;
        m->n = n;
        return -1;
    }
    return 0;
}

int curves_minmax_finish(struct curves_minmax *m) {
    while (m->nlev && m->len[m->nlev - 1] > 1 && m->nlev < CURVES_MINMAX_LEVELS) {
        int k = m->nlev - 1;
        size_t pl = m->len[k], nl = (pl + 1) / 2;
        if (level(m, nl) != 0) goto nomem;
        for (size_t j = 0; j < nl; j++) {
            size_t a = 2 * j, b = 2 * j + 1 < pl ? 2 * j + 1 : 2 * j;
            m->lo[k + 1][j] = fmin(m->lo[k][a], m->lo[k][b]);
            m->hi[k + 1][j] = fmax(m->hi[k][a], m->hi[k][b]);
            m->bad[k + 1][j] = m->bad[k][a] | m->bad[k][b];
        }
    }
    return 0;
nomem:;
    const double *v = m->v;
    size_t stride = m->stride, n = m->n;
    curves_minmax_free(m);
    m->v = v;
    m->stride = stride;
    m->n = n;
    return -1;
}

void curves_minmax_block(struct curves_minmax *m, size_t b, double lo, double hi, int bad) {
    m->lo[0][b] = lo;
    m->hi[0][b] = hi;
    m->bad[0][b] = (uint8_t)bad;
}

int curves_minmax_build(struct curves_minmax *m, const double *v, size_t stride, size_t n) {
    if (curves_minmax_begin(m, v, stride, n) != 0) return -1;
    if (!m->nlev) return 0;
    size_t len = m->len[0];
    for (size_t b = 0; b < len; b++) {
        double lo = INFINITY, hi = -INFINITY;
        uint8_t bad = 0;
        size_t e = (b + 1) * CURVES_MINMAX_BLOCK < n ? (b + 1) * CURVES_MINMAX_BLOCK : n;
        for (size_t i = b * CURVES_MINMAX_BLOCK; i < e; i++) {
            double x = v[i * stride];
            if (!isfinite(x)) { bad = 1; continue; }
            if (x < lo) lo = x;
            if (x > hi) hi = x;
        }
        m->lo[0][b] = lo;
        m->hi[0][b] = hi;
        m->bad[0][b] = bad;
    }
    return curves_minmax_finish(m);
}

static void scan(const struct curves_minmax *m, size_t a, size_t b, double *lo, double *hi, int *bad) {
    for (size_t i = a; i < b; i++) {
        double x = m->v[i * m->stride];
        if (!isfinite(x)) { *bad = 1; continue; }
        if (x < *lo) *lo = x;
        if (x > *hi) *hi = x;
    }
}

int curves_minmax_query(const struct curves_minmax *m, size_t a, size_t b, double *lo, double *hi, int *nonfinite) {
    double l = INFINITY, h = -INFINITY;
    int bad = 0;
    if (b > m->n) b = m->n;
    const size_t B = CURVES_MINMAX_BLOCK;
    if (a >= b) {
    } else if (!m->nlev || b - a <= 2 * B) {
        scan(m, a, b, &l, &h, &bad);
    } else {
        size_t a0 = (a + B - 1) / B, b0 = b / B;   /* the whole blocks [a0, b0) */
        scan(m, a, a0 * B, &l, &h, &bad);
        scan(m, b0 * B, b, &l, &h, &bad);
        for (int k = 0; a0 < b0 && k < m->nlev; k++, a0 >>= 1, b0 >>= 1) {
            if (a0 & 1) {
                l = fmin(l, m->lo[k][a0]), h = fmax(h, m->hi[k][a0]), bad |= m->bad[k][a0];
                a0++;
            }
            if (b0 & 1) {
                b0--;
                l = fmin(l, m->lo[k][b0]), h = fmax(h, m->hi[k][b0]), bad |= m->bad[k][b0];
            }
        }
    }
    if (nonfinite) *nonfinite = bad;
    if (!(l <= h)) return 0;
    *lo = l;
    *hi = h;
    return 1;
}
