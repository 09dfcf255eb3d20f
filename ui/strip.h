/* strip: one row of classified bins drawn as coloured cells, for bars
 * over time (the lane view).  A class is a small number the caller
 * defines, with a colour and a one-column ASCII mark; the strip knows
 * nothing of what the classes mean.
 *
 * Three renderings: half blocks (colour and UTF-8: two bins per cell, "▌"
 * in the left bin's colour on the right bin's, a blank on the colour when
 * both agree), marks on colour (one bin per cell, the class's mark on its
 * colour), and marks alone (no colour).  A class below 0 or without a
 * colour is blank; at most 16 classes.  The cells [hi0, hi1) are drawn reversed and bold (a
 * cursor), readable without colour. */
#ifndef PT_UI_STRIP_H
#define PT_UI_STRIP_H

#include <curses.h>
#include <stdint.h>

#include "ui/palette.h"

struct ui;

struct strip_class {
    struct rgb rgb;
    char mark;           /* ' ' for a blank class */
    int blank;           /* no colour: drawn as the terminal's background */
};

/* Whether strips on this terminal use half blocks when asked (colour and UTF-8). */
int strip_half_ok(const struct ui *u);

/* Draws ncells cells at (y, x) of w from bins (2 * ncells of them when
 * half, else ncells), clipped to the window. */
void strip_draw(WINDOW *w, struct ui *u, int y, int x, int ncells, const uint8_t *bins, int half,
                const struct strip_class *classes, int nclasses, int hi0, int hi1);

#endif
