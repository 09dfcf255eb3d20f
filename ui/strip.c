/* strip: a row of classified bins as coloured cells (see strip.h). */
#include "ui/strip.h"

#include "ui/ui.h"

int strip_half_ok(const struct ui *u) { return u->utf8 && u->ncolors > 0; }

static const struct strip_class *class_of(const struct strip_class *classes, int nclasses, int k) {
    return k >= 0 && k < nclasses && !classes[k].blank ? &classes[k] : NULL;
}

#define STRIP_MAX_CLASSES 16

/* The terminal colours of the classes, looked up once per strip (the
 * nearest-colour search is too slow for every cell). */
struct strip_colors {
    const struct strip_class *base;
    int color[STRIP_MAX_CLASSES];
    int black, white;
};

/* The terminal colour of a class (-1 for blank). */
static int color_of(const struct strip_colors *sc, const struct strip_class *c) {
    return c ? sc->color[c - sc->base] : -1;
}

/* Black or white, whichever reads on the class's colour. */
static int ink_on(const struct strip_colors *sc, const struct strip_class *c) {
    int light = c && (c->rgb.r * 299 + c->rgb.g * 587 + c->rgb.b * 114) / 1000 > 128;
    return light || !c ? sc->black : sc->white;
}

void strip_draw(WINDOW *w, struct ui *u, int y, int x, int ncells, const uint8_t *bins, int half,
                const struct strip_class *classes, int nclasses, int hi0, int hi1) {
    half = half && strip_half_ok(u);
    if (nclasses > STRIP_MAX_CLASSES) nclasses = STRIP_MAX_CLASSES;
    struct strip_colors sc = {classes, {0}, -1, -1};
    for (int k = 0; k < nclasses && u->ncolors; k++) sc.color[k] = classes[k].blank ? -1 : ui_color(u, classes[k].rgb);
    sc.black = ui_color(u, (struct rgb){0, 0, 0});
    sc.white = ui_color(u, (struct rgb){255, 255, 255});
    int room = getmaxx(w) - x;
    if (ncells > room) ncells = room;
    if (y < 0 || y >= getmaxy(w) || x < 0) return;
    for (int i = 0; i < ncells; i++) {
        int cur = i >= hi0 && i < hi1;
        const struct strip_class *l = class_of(classes, nclasses, bins[half ? 2 * i : i]);
        const struct strip_class *r = half ? class_of(classes, nclasses, bins[2 * i + 1]) : l;
        char g[8] = " ";
        if (u->ncolors == 0) {
            /* marks alone: the cursor reversed */
            g[0] = l ? l->mark : ' ';
            ui_style(w, cur ? A_REVERSE | A_BOLD : A_NORMAL, 0);
        } else if (half && l != r) {
            /* the left bin's colour on the right bin's: "▌" */
            int fg = color_of(&sc, l ? l : r), bg = l ? color_of(&sc, r) : -1;
            snprintf(g, sizeof g, l ? "\xe2\x96\x8c" : "\xe2\x96\x90");   /* "▌", or "▐" on a blank left */
            ui_style(w, cur ? A_REVERSE | A_BOLD : A_NORMAL, ui_pair(u, fg, bg));
        } else if (half) {
            /* one class over the cell; the cursor marks it with a dot */
            if (cur) snprintf(g, sizeof g, "\xe2\x80\xa2");   /* "•" */
            ui_style(w, cur ? A_BOLD : A_NORMAL, ui_pair(u, cur ? ink_on(&sc, l) : -1, color_of(&sc, l)));
        } else {
            g[0] = l ? l->mark : ' ';
            ui_style(w, cur ? A_REVERSE | A_BOLD : A_NORMAL, ui_pair(u, l ? ink_on(&sc, l) : -1, color_of(&sc, l)));
        }
        mvwaddstr(w, y, x + i, g);
    }
    ui_style(w, A_NORMAL, 0);
}
