/* shot: the curses screen as a picture (see shot.h). */
#include "ui/shot.h"

#include <curses.h>
#include <wchar.h>

#include "ui/ui.h"

/* A terminal colour number (-1 = default) as RGB, *dflt set for -1. */
static uint32_t color_rgb(const struct ui *u, int n, int *dflt) {
    *dflt = n < 0;
    if (n < 0) return 0;
    if (u->truecolor) return (uint32_t)n & 0xffffffu;
    return svg_xterm_rgb(n > 255 ? 255 : n);
}

/* The alternate character set, as --ascii draws nothing with it but a
 * terminal description might: the line-drawing letters as Unicode. */
static uint32_t acs_glyph(uint32_t ch) {
    switch (ch) {
    case 'q': return 0x2500;
    case 'x': return 0x2502;
    case 'l': return 0x250c;
    case 'k': return 0x2510;
    case 'm': return 0x2514;
    case 'j': return 0x2518;
    case 't': return 0x251c;
    case 'u': return 0x2524;
    case 'v': return 0x2534;
    case 'w': return 0x252c;
    case 'n': return 0x253c;
    case 'a': return 0x2592;
    case '~': return 0x00b7;
    case '`': return 0x25c6;
    default: return ch;
    }
}

int shot_grid(const struct ui *u, struct svg_grid *g) {
    WINDOW *w = curscr;
    if (!w) return -1;
    int rows = getmaxy(w), cols = getmaxx(w);
    if (svg_grid_init(g, rows, cols) != 0) return -1;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            struct svg_cell *cell = svg_grid_at(g, r, c);
            cchar_t cc;
            if (mvwin_wch(w, r, c, &cc) == ERR) continue;
            wchar_t wch[CCHARW_MAX + 1];
            attr_t attrs = 0;
            short spair = 0;
            int pair = 0;
            if (getcchar(&cc, wch, &attrs, &spair, &pair) == ERR) continue;
            uint32_t ch = wch[0] ? (uint32_t)wch[0] : ' ';
            if (attrs & A_ALTCHARSET) ch = acs_glyph(ch);
            int wd = wcwidth((wchar_t)ch);
            cell->ch = ch;
            cell->width = wd == 2 ? 2 : 1;
            cell->flags = 0;
            if (attrs & A_BOLD) cell->flags |= SVG_BOLD;
            if (attrs & A_REVERSE) cell->flags |= SVG_REVERSE;
            if (attrs & A_UNDERLINE) cell->flags |= SVG_UNDERLINE;
            if (attrs & A_ITALIC) cell->flags |= SVG_ITALIC;
            int fg = -1, bg = -1, d;
            if (pair > 0 && u->ncolors > 0) extended_pair_content(pair, &fg, &bg);
            cell->fg = color_rgb(u, fg, &d);
            if (d) { cell->fg = SVG_DEFAULT_FG; cell->flags |= SVG_FG_DEFAULT; }
            cell->bg = color_rgb(u, bg, &d);
            if (d) { cell->bg = SVG_DEFAULT_BG; cell->flags |= SVG_BG_DEFAULT; }
            if (wd == 2 && c + 1 < cols) {
                /* The wide glyph's second column: covered, same paper. */
                struct svg_cell *next = svg_grid_at(g, r, c + 1);
                *next = *cell;
                next->ch = 0;
                c++;
            }
        }
    }
    return 0;
}

int shot_save(const struct ui *u, const char *path, const char *title, struct pt_error *err) {
    struct svg_grid g;
    if (shot_grid(u, &g) != 0) return pt_errorf(err, "cannot write %s: the screen could not be read", path);
    int rc = svg_save(path, &g, title, err);
    svg_grid_free(&g);
    return rc;
}
