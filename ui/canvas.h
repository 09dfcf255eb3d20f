/* canvas: a dot grid for the line chart, without curses.
 *
 * Three resolutions for one API: braille (2x4 dots per cell, U+2800..),
 * half blocks (1x2 dots per cell, ▀ ▄ █) and ASCII (1x1, one glyph per
 * series).  Each cell remembers the series drawn last into it, which the
 * renderer turns into a colour.  Dot coordinates: x to the right, y down. */
#ifndef PT_UI_CANVAS_H
#define PT_UI_CANVAS_H

#include <stddef.h>
#include <stdint.h>

enum canvas_mode { CANVAS_BRAILLE, CANVAS_HALF, CANVAS_ASCII };

struct canvas {
    enum canvas_mode mode;
    int w, h;            /* cells */
    int dw, dh;          /* dots per cell */
    uint8_t *bits;       /* w*h dot masks */
    int16_t *series;     /* w*h: series of the last dot, -1 none */
};

/* 0 ok, -1 no memory. */
int canvas_init(struct canvas *c, enum canvas_mode mode, int w, int h);
void canvas_free(struct canvas *c);
void canvas_clear(struct canvas *c);
static inline int canvas_xdots(const struct canvas *c) { return c->w * c->dw; }
static inline int canvas_ydots(const struct canvas *c) { return c->h * c->dh; }

void canvas_dot(struct canvas *c, int x, int y, int series);
/* A straight line of dots (Bresenham), endpoints included, clipped to the
 * canvas; coordinates in dots, any finite value (non-finite: nothing). */
void canvas_line(struct canvas *c, double x0, double y0, double x1, double y1, int series);

/* The glyph of cell (cx, cy) as UTF-8 into out[8] ("" for an empty cell)
 * and its series (-1 empty).  ASCII glyphs: "*+ox#@%&" by series. */
int canvas_cell(const struct canvas *c, int cx, int cy, char out[8]);

#endif
