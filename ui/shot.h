/* shot: the curses screen as a picture.  Reads every cell of the screen
 * as the terminal shows it (curscr: glyph, colour pair, attributes),
 * turns the pair's colour numbers back into RGB the way ui_color chose
 * them (truecolor, 256, 16 or 8 colours, or none), and hands the grid to
 * ui/svg.h. */
#ifndef PT_UI_SHOT_H
#define PT_UI_SHOT_H

#include "model/err.h"
#include "ui/svg.h"

struct ui;

/* The screen as cells (ui started); 0 or -1. */
int shot_grid(const struct ui *u, struct svg_grid *g);
/* The screen written to path as SVG (svg_save); 0, or -1 with err. */
int shot_save(const struct ui *u, const char *path, const char *title, struct pt_error *err);

#endif
