/* palette: ramp, quantisation, 3-sigma bands, terminal colour mapping. */
#include "ui/palette.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* probetop-rules(7), HEAT MAP SCALE, blue = small, red = large. */
static const struct rgb ramp_stops[10] = {
    {0x45, 0x75, 0xb4}, {0x74, 0xad, 0xd1}, {0xab, 0xd9, 0xe9}, {0xe0, 0xf3, 0xf8},
    {0xff, 0xff, 0xbf}, {0xfe, 0xe0, 0x90}, {0xfd, 0xae, 0x61}, {0xf4, 0x6d, 0x43},
    {0xd7, 0x30, 0x27}, {0xa5, 0x00, 0x26},
};

struct rgb palette_ramp(double t) {
    if (!(t > 0)) t = 0;          /* also NaN */
    if (t > 1) t = 1;
    double p = t * 9.0;
    int i = (int)p;
    if (i >= 9) return ramp_stops[9];
    double f = p - i;
    struct rgb a = ramp_stops[i], b = ramp_stops[i + 1], c;
    c.r = (uint8_t)lround(a.r + (b.r - a.r) * f);
    c.g = (uint8_t)lround(a.g + (b.g - a.g) * f);
    c.b = (uint8_t)lround(a.b + (b.b - a.b) * f);
    return c;
}

int palette_quantise(double t, int nsteps) {
    if (nsteps < 1) nsteps = 1;
    if (nsteps > PALETTE_MAX_STEPS) nsteps = PALETTE_MAX_STEPS;
    if (!(t > 0)) return 0;
    if (t >= 1) return nsteps - 1;
    int i = (int)(t * nsteps);
    return i >= nsteps ? nsteps - 1 : i;
}

struct rgb palette_step_color(int i, int nsteps) {
    if (nsteps <= 1) return palette_ramp(0.5);
    if (i < 0) i = 0;
    if (i >= nsteps) i = nsteps - 1;
    return palette_ramp((double)i / (nsteps - 1));
}

int palette_steps_for(int ncolors) {
    if (ncolors >= 256) return PALETTE_MAX_STEPS;
    if (ncolors >= 16) return 10;
    if (ncolors >= 8) return 5;
    return 8;   /* no colour: shades */
}

static double signed_log(double v) {
    return v < 0 ? -log10(1 - v) : log10(1 + v);
}

double palette_position(double v, double lo, double hi, int logscale) {
    if (logscale) { v = signed_log(v); lo = signed_log(lo); hi = signed_log(hi); }
    if (!(hi > lo)) return 0.5;
    double t = (v - lo) / (hi - lo);
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    return t;
}

size_t palette_mean_sd(const float *vals, size_t n, double *mean, double *sd) {
    /* Two passes in double: population sd as msProbe computes it. */
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(vals[i])) { sum += vals[i]; k++; }
    if (k == 0) { *mean = 0; *sd = 0; return 0; }
    double m = sum / (double)k, ss = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(vals[i])) { double d = vals[i] - m; ss += d * d; }
    *mean = m;
    *sd = sqrt(ss / (double)k);
    return k;
}

static const struct rgb band_colors[PALETTE_MAX_BANDS] = {
    {0x31, 0x36, 0x95}, {0x45, 0x75, 0xb4}, {0x74, 0xad, 0xd1}, {0xff, 0xff, 0xbf},
    {0xfd, 0xae, 0x61}, {0xf4, 0x6d, 0x43}, {0xd7, 0x30, 0x27},
};

void palette_bands_make(double mean, double sd, struct palette_bands *b) {
    const double thr[PALETTE_MAX_BANDS] = {
        mean - 3 * sd, mean - 2 * sd, mean - sd, mean + sd, mean + 2 * sd, mean + 3 * sd, INFINITY,
    };
    double prev = -INFINITY;
    b->n = 0;
    for (int i = 0; i < PALETTE_MAX_BANDS; i++) {
        if (!(thr[i] > prev)) continue;
        b->upper[b->n] = thr[i];
        b->color[b->n] = band_colors[i];
        b->n++;
        prev = thr[i];
    }
}

int palette_band_of(const struct palette_bands *b, double v) {
    for (int i = 0; i < b->n; i++)
        if (b->upper[i] >= v) return i;
    return b->n - 1;
}

void palette_fmt_exp2(double v, char *buf, size_t size) {
    char tmp[64];
    if (isnan(v)) { snprintf(buf, size, "NaN"); return; }
    if (isinf(v)) { snprintf(buf, size, v > 0 ? "Infinity" : "-Infinity"); return; }
    snprintf(tmp, sizeof tmp, "%.2e", v);
    /* "1.23e+04" -> "1.23e+4": drop the exponent's leading zeros. */
    char *e = strchr(tmp, 'e');
    if (e && (e[1] == '+' || e[1] == '-')) {
        char *d = e + 2;
        char *s = d;
        while (s[0] == '0' && s[1]) s++;
        memmove(d, s, strlen(s) + 1);
    }
    snprintf(buf, size, "%s", tmp);
}

void palette_band_label(const struct palette_bands *b, int i, char *buf, size_t size) {
    char x[32], y[32];
    if (b->n <= 0 || i < 0 || i >= b->n) { snprintf(buf, size, "?"); return; }
    if (b->n == 1) { snprintf(buf, size, "all"); return; }
    if (i == 0) {
        palette_fmt_exp2(b->upper[0], x, sizeof x);
        snprintf(buf, size, "< %s", x);
    } else if (i == b->n - 1) {
        palette_fmt_exp2(b->upper[i - 1], x, sizeof x);
        snprintf(buf, size, "> %s", x);
    } else {
        palette_fmt_exp2(b->upper[i - 1], x, sizeof x);
        palette_fmt_exp2(b->upper[i], y, sizeof y);
        snprintf(buf, size, "%s ~ %s", x, y);
    }
}

static const struct rgb ansi_rgb[16] = {
    {0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205},
    {0, 205, 205}, {229, 229, 229}, {127, 127, 127}, {255, 0, 0}, {0, 255, 0},
    {255, 255, 0}, {92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
};

struct rgb palette_xterm_rgb(int index) {
    if (index < 0) index = 0;
    if (index < 16) return ansi_rgb[index];
    if (index < 232) {
        static const uint8_t lv[6] = {0, 95, 135, 175, 215, 255};
        int i = index - 16;
        struct rgb c = {lv[i / 36], lv[(i / 6) % 6], lv[i % 6]};
        return c;
    }
    if (index > 255) index = 255;
    uint8_t g = (uint8_t)(8 + 10 * (index - 232));
    struct rgb c = {g, g, g};
    return c;
}

static long dist2(struct rgb a, struct rgb b) {
    /* Weighted (the eye is most sensitive to green) to pick perceptually
     * closer neighbours than plain Euclidean distance. */
    long dr = a.r - b.r, dg = a.g - b.g, db = a.b - b.b;
    return 2 * dr * dr + 4 * dg * dg + 3 * db * db;
}

int palette_xterm256(struct rgb c) {
    int best = 16;
    long bd = -1;
    for (int i = 16; i < 256; i++) {
        long d = dist2(c, palette_xterm_rgb(i));
        if (bd < 0 || d < bd) { bd = d; best = i; }
    }
    return best;
}

static int nearest_ansi(struct rgb c, int n) {
    int best = 0;
    long bd = -1;
    for (int i = 0; i < n; i++) {
        long d = dist2(c, ansi_rgb[i]);
        if (bd < 0 || d < bd) { bd = d; best = i; }
    }
    return best;
}
int palette_ansi16(struct rgb c) { return nearest_ansi(c, 16); }
int palette_ansi8(struct rgb c) { return nearest_ansi(c, 8); }

int palette_ansi_ramp(int i, int ncolors) {
    static const int r16[10] = {4, 12, 6, 14, 7, 15, 11, 3, 9, 1};
    static const int r8[5] = {4, 6, 7, 3, 1};
    const int *r = ncolors >= 16 ? r16 : r8;
    int n = ncolors >= 16 ? 10 : 5;
    if (i < 0) i = 0;
    if (i >= n) i = n - 1;
    return r[i];
}

const char *palette_shade(int i, int n, int utf8) {
    static const char *const ascii[] = {".", ":", "-", "=", "+", "*", "#", "%", "@"};
    static const char *const uni[] = {"\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93", "\xe2\x96\x88"};
    const char *const *tab = utf8 ? uni : ascii;
    int m = utf8 ? 4 : 9;
    if (n < 1) n = 1;
    if (i < 0) i = 0;
    if (i >= n) i = n - 1;
    int k = n == 1 ? m - 1 : (int)((long)i * (m - 1) / (n - 1));
    return tab[k];
}
