/* svg: a grid of terminal cells written as an SVG picture, without curses.
 *
 * The layout is the one of the screenshots/ pictures (tests/screen/vt.c,
 * vt_svg): 9x18 px cells of a 15px monospace font, a 12px margin and a
 * window title bar, the default colours #d8dee9 on #1d2129, block glyphs
 * (U+2580..U+259F) drawn as rectangles, runs of ASCII text in one <text>.
 * The grid is filled either from the curses screen (ui/shot.h) or from text
 * a command prints, with its SGR colour escapes (svg_grid_text). */
#ifndef PT_UI_SVG_H
#define PT_UI_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/err.h"

#define SVG_DEFAULT_FG 0xd8dee9u
#define SVG_DEFAULT_BG 0x1d2129u

enum {
    SVG_BOLD = 1, SVG_REVERSE = 2, SVG_UNDERLINE = 4, SVG_ITALIC = 8,
    SVG_FG_DEFAULT = 16, SVG_BG_DEFAULT = 32,
};

/* One cell: a code point (0 = empty, or the second half of a wide glyph),
 * colours as 0xRRGGBB (used unless the *_DEFAULT flag is set), attributes. */
struct svg_cell {
    uint32_t ch;
    uint32_t fg, bg;
    uint8_t flags;
    uint8_t width;             /* 1, or 2 for a wide glyph */
};

struct svg_grid {
    int rows, cols;
    struct svg_cell *cells;    /* rows * cols, row-major */
};

/* A rows x cols grid of empty cells in the default colours; 0 or -1. */
int svg_grid_init(struct svg_grid *g, int rows, int cols);
void svg_grid_free(struct svg_grid *g);
struct svg_cell *svg_grid_at(struct svg_grid *g, int row, int col);

/* A grid from text (UTF-8, lines split at '\n'), its SGR escapes applied:
 * 0, 1, 3, 4, 7, 22, 23, 24, 27, 30..37, 38;5;N, 38;2;R;G;B, 39, 40..47,
 * 48;5;N, 48;2;R;G;B, 49, 90..97, 100..107; other escapes are dropped.
 * As many rows as lines, as many columns as the longest.  0 or -1. */
int svg_grid_text(struct svg_grid *g, const char *text, size_t len);

/* The RGB of an xterm colour index 0..255 (xterm's defaults, which
 * palette.c chose the heat map's colours by). */
uint32_t svg_xterm_rgb(int index);

/* Writes the picture to f. */
void svg_write(FILE *f, const struct svg_grid *g, const char *title);
/* Writes it to path through a temporary file in the same folder, renamed
 * over path when complete: never a half-written file.  0, or -1 with err
 * naming the path. */
int svg_save(const char *path, const struct svg_grid *g, const char *title, struct pt_error *err);

#endif
