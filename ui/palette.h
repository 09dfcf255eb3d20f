/* palette: the heat-map colours, without curses.
 *
 * Gradient mode: msProbe's ten stops from blue (small) to red (large)
 * (probetop-rules(7), HEAT MAP SCALE, ColorBrewer RdYlBu reversed, a perceptually ordered
 * diverging ramp), interpolated linearly and quantised to at most
 * PALETTE_MAX_STEPS steps so a frame uses few colour pairs.  Segmented mode:
 * the 3-sigma bands of probetop-rules(7), HEAT MAP SCALE.  Plus the mapping of an RGB colour to the
 * nearest colour a 256/16/8-colour terminal has, and the shade glyphs used
 * when there is no colour at all. */
#ifndef PT_UI_PALETTE_H
#define PT_UI_PALETTE_H

#include <stddef.h>
#include <stdint.h>

#define PALETTE_MAX_STEPS 64
#define PALETTE_MAX_BANDS 7

struct rgb { uint8_t r, g, b; };

/* The ramp at t in [0, 1] (clamped; NaN -> 0). */
struct rgb palette_ramp(double t);
/* Which of nsteps (1..PALETTE_MAX_STEPS) equal steps t falls in: 0..nsteps-1. */
int palette_quantise(double t, int nsteps);
/* The colour of step i of nsteps (the ramp at the step's centre, with the
 * first and last steps at the ends of the ramp). */
struct rgb palette_step_color(int i, int nsteps);
/* How many gradient steps suit a terminal with ncolors colours. */
int palette_steps_for(int ncolors);

/* Where v lies in [lo, hi] as t in [0, 1]; log scale maps through
 * sign(v)*log10(1+|v|) so it works across zero.  lo == hi -> 0.5. */
double palette_position(double v, double lo, double hi, int logscale);

/* 3-sigma bands. */
struct palette_bands {
    int n;
    double upper[PALETTE_MAX_BANDS];     /* segment i is (upper[i-1], upper[i]]; last is +inf */
    struct rgb color[PALETTE_MAX_BANDS];
};
/* Mean and population standard deviation of the finite values of
 * vals[0..n) (NaN, +-Inf skipped); returns how many counted. */
size_t palette_mean_sd(const float *vals, size_t n, double *mean, double *sd);
void palette_bands_make(double mean, double sd, struct palette_bands *b);
/* Index of the first band whose upper bound is >= v. */
int palette_band_of(const struct palette_bands *b, double v);
/* "< a", "a ~ b", "> a" with numbers in palette_fmt_exp2 form. */
void palette_band_label(const struct palette_bands *b, int i, char *buf, size_t size);
/* JavaScript toExponential(2): "1.23e+4", "-5.00e-7", "0.00e+0". */
void palette_fmt_exp2(double v, char *buf, size_t size);

/* Nearest terminal colour. */
int palette_xterm256(struct rgb c);      /* 16..255 (cube and grey ramp) */
int palette_ansi16(struct rgb c);        /* 0..15 */
int palette_ansi8(struct rgb c);         /* 0..7 */
/* The RGB value of an xterm colour index (0..255), xterm's defaults. */
struct rgb palette_xterm_rgb(int index);

/* The gradient on a 16- or 8-colour terminal: nearest-colour mapping
 * would fold the ramp into two or three colours, so these are hand-picked
 * ANSI ramps (blue, cyan, white, yellow, red): step i of
 * palette_steps_for(ncolors) -> ANSI index. */
int palette_ansi_ramp(int i, int ncolors);

/* A shade for colourless terminals, from light to dense, for level i of n:
 * ASCII ".:-=+*#%@" or UTF-8 "░▒▓█".  Returns a NUL-terminated glyph. */
const char *palette_shade(int i, int n, int utf8);

#endif
