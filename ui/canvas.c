/* canvas: braille / half-block / ASCII dot grid. */
#include "ui/canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int canvas_init(struct canvas *c, enum canvas_mode mode, int w, int h) {
    memset(c, 0, sizeof *c);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    c->mode = mode;
    c->w = w;
    c->h = h;
    c->dw = mode == CANVAS_BRAILLE ? 2 : 1;
    c->dh = mode == CANVAS_BRAILLE ? 4 : mode == CANVAS_HALF ? 2 : 1;
    c->bits = calloc((size_t)w * h, 1);
    c->series = malloc((size_t)w * h * sizeof *c->series);
    if (!c->bits || !c->series) { canvas_free(c); return -1; }
    canvas_clear(c);
    return 0;
}

void canvas_free(struct canvas *c) {
    free(c->bits);
    free(c->series);
    c->bits = NULL;
    c->series = NULL;
}

void canvas_clear(struct canvas *c) {
    memset(c->bits, 0, (size_t)c->w * c->h);
    for (size_t i = 0; i < (size_t)c->w * c->h; i++) c->series[i] = -1;
}

/* Braille dot numbering: column 0 rows 0-2 = dots 1-3, column 1 rows 0-2 =
 * dots 4-6, row 3 = dots 7 and 8. */
static const uint8_t braille_bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};

void canvas_dot(struct canvas *c, int x, int y, int series) {
    if (x < 0 || y < 0 || x >= canvas_xdots(c) || y >= canvas_ydots(c)) return;
    int cx = x / c->dw, cy = y / c->dh;
    size_t i = (size_t)cy * c->w + cx;
    uint8_t bit;
    if (c->mode == CANVAS_BRAILLE) bit = braille_bit[y % 4][x % 2];
    else if (c->mode == CANVAS_HALF) bit = (uint8_t)(1u << (y % 2));
    else bit = 1;
    c->bits[i] |= bit;
    c->series[i] = (int16_t)series;
}

/* Liang-Barsky: clips the segment to [0, xmax] x [0, ymax]; 0 when outside. */
static int clip(double *x0, double *y0, double *x1, double *y1, double xmax, double ymax) {
    double t0 = 0, t1 = 1, dx = *x1 - *x0, dy = *y1 - *y0;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {*x0, xmax - *x0, *y0, ymax - *y0};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0) return 0;
            continue;
        }
        double r = q[i] / p[i];
        if (p[i] < 0) { if (r > t1) return 0; if (r > t0) t0 = r; }
        else { if (r < t0) return 0; if (r < t1) t1 = r; }
    }
    double ax = *x0 + t0 * dx, ay = *y0 + t0 * dy, bx = *x0 + t1 * dx, by = *y0 + t1 * dy;
    *x0 = ax; *y0 = ay; *x1 = bx; *y1 = by;
    return 1;
}

void canvas_line(struct canvas *c, double fx0, double fy0, double fx1, double fy1, int series) {
    int x0, y0, x1, y1;
    if (!isfinite(fx0) || !isfinite(fy0) || !isfinite(fx1) || !isfinite(fy1)) return;
    if (!clip(&fx0, &fy0, &fx1, &fy1, canvas_xdots(c) - 1, canvas_ydots(c) - 1)) return;
    x0 = (int)(fx0 + 0.5); y0 = (int)(fy0 + 0.5); x1 = (int)(fx1 + 0.5); y1 = (int)(fy1 + 0.5);
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int e = dx + dy;
    for (;;) {
        canvas_dot(c, x0, y0, series);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * e;
        if (e2 >= dy) { e += dy; x0 += sx; }
        if (e2 <= dx) { e += dx; y0 += sy; }
    }
}

int canvas_cell(const struct canvas *c, int cx, int cy, char out[8]) {
    out[0] = '\0';
    if (cx < 0 || cy < 0 || cx >= c->w || cy >= c->h) return -1;
    size_t i = (size_t)cy * c->w + cx;
    uint8_t b = c->bits[i];
    if (!b) return -1;
    if (c->mode == CANVAS_BRAILLE) {
        unsigned cp = 0x2800u + b;
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        out[3] = '\0';
    } else if (c->mode == CANVAS_HALF) {
        const char *g = b == 3 ? "\xe2\x96\x88" : b == 1 ? "\xe2\x96\x80" : "\xe2\x96\x84";
        strcpy(out, g);
    } else {
        static const char glyphs[] = "*+ox#@%&";
        int s = c->series[i];
        out[0] = glyphs[(s < 0 ? 0 : s) % 8];
        out[1] = '\0';
    }
    return c->series[i];
}
