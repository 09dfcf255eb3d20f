/* Palette: ramp ends, quantisation, 3-sigma bands and their labels,
 * terminal colour mapping, capability decisions. */
#include <math.h>

#include "pt_test.h"
#include "ui/palette.h"
#include "ui/ui.h"

static void ramp_ends(void) {
    struct rgb a = palette_ramp(0), b = palette_ramp(1), m = palette_ramp(4.0 / 9.0);
    CHECK_INT(a.r, 0x45); CHECK_INT(a.g, 0x75); CHECK_INT(a.b, 0xb4);
    CHECK_INT(b.r, 0xa5); CHECK_INT(b.g, 0x00); CHECK_INT(b.b, 0x26);
    CHECK_INT(m.r, 0xff); CHECK_INT(m.g, 0xff); CHECK_INT(m.b, 0xbf);   /* stop 5 exactly */
    struct rgb lo = palette_ramp(-3), hi = palette_ramp(7), nn = palette_ramp(NAN);
    CHECK_INT(lo.r, a.r); CHECK_INT(hi.b, b.b); CHECK_INT(nn.g, a.g);
    /* Half way between stops 1 and 2 (#4575b4, #74add1). */
    struct rgb h = palette_ramp(0.5 / 9.0);
    CHECK_INT(h.r, 0x5d); CHECK_INT(h.g, 0x91); CHECK_INT(h.b, 0xc3);
}

static void quantise(void) {
    CHECK_INT(palette_quantise(0, 64), 0);
    CHECK_INT(palette_quantise(1, 64), 63);
    CHECK_INT(palette_quantise(0.5, 64), 32);
    CHECK_INT(palette_quantise(0.999, 64), 63);
    CHECK_INT(palette_quantise(1.0 / 64 - 1e-9, 64), 0);
    CHECK_INT(palette_quantise(1.0 / 64, 64), 1);
    CHECK_INT(palette_quantise(0.7, 500), (int)(0.7 * 64));   /* capped at 64 steps */
    CHECK_INT(palette_quantise(NAN, 10), 0);
    CHECK_INT(palette_steps_for(0x1000000), 64);
    CHECK_INT(palette_steps_for(256), 64);
    CHECK_INT(palette_steps_for(16), 10);
    CHECK_INT(palette_steps_for(8), 5);
    /* Step colours run from the first stop to the last. */
    struct rgb s0 = palette_step_color(0, 64), s63 = palette_step_color(63, 64);
    CHECK_INT(s0.b, 0xb4);
    CHECK_INT(s63.r, 0xa5);
    CHECK_NEAR(palette_position(5, 0, 10, 0), 0.5, 1e-12);
    CHECK_NEAR(palette_position(-5, 0, 10, 0), 0, 0);
    CHECK_NEAR(palette_position(3, 3, 3, 0), 0.5, 0);
    /* log: 9 sits at log10(10) / log10(100) = half way from 0 to 99. */
    CHECK_NEAR(palette_position(9, 0, 99, 1), 0.5, 1e-12);
}

static void bands(void) {
    struct palette_bands b;
    palette_bands_make(10, 2, &b);
    CHECK_INT(b.n, 7);
    CHECK_NEAR(b.upper[0], 4, 1e-12);
    CHECK_NEAR(b.upper[2], 8, 1e-12);
    CHECK_NEAR(b.upper[3], 12, 1e-12);
    CHECK_NEAR(b.upper[5], 16, 1e-12);
    CHECK(isinf(b.upper[6]));
    CHECK_INT(b.color[0].r, 0x31); CHECK_INT(b.color[6].r, 0xd7);
    CHECK_INT(palette_band_of(&b, 4), 0);       /* upper bound included */
    CHECK_INT(palette_band_of(&b, 4.0001), 1);
    CHECK_INT(palette_band_of(&b, 10), 3);
    CHECK_INT(palette_band_of(&b, 1e30), 6);
    char buf[64];
    palette_band_label(&b, 0, buf, sizeof buf); CHECK_STR(buf, "< 4.00e+0");
    palette_band_label(&b, 3, buf, sizeof buf); CHECK_STR(buf, "8.00e+0 ~ 1.20e+1");
    palette_band_label(&b, 6, buf, sizeof buf); CHECK_STR(buf, "> 1.60e+1");
    /* sigma 0: two segments, below and above the mean. */
    palette_bands_make(5, 0, &b);
    CHECK_INT(b.n, 2);
    CHECK_INT(b.color[0].b, 0x95);
    CHECK_INT(b.color[1].r, 0xd7);
    CHECK_INT(palette_band_of(&b, 5), 0);
    CHECK_INT(palette_band_of(&b, 5.5), 1);
    const float v[] = {1, 2, 3, 4, NAN, INFINITY, -INFINITY};
    double mean, sd;
    CHECK_INT(palette_mean_sd(v, 7, &mean, &sd), 4);
    CHECK_NEAR(mean, 2.5, 1e-12);
    CHECK_NEAR(sd, sqrt(1.25), 1e-12);
}

static void exponent_form(void) {
    char b[32];
    palette_fmt_exp2(12345, b, sizeof b); CHECK_STR(b, "1.23e+4");
    palette_fmt_exp2(-0.0000005, b, sizeof b); CHECK_STR(b, "-5.00e-7");
    palette_fmt_exp2(0, b, sizeof b); CHECK_STR(b, "0.00e+0");
    palette_fmt_exp2(1e100, b, sizeof b); CHECK_STR(b, "1.00e+100");
    palette_fmt_exp2(9.999, b, sizeof b); CHECK_STR(b, "1.00e+1");
}

static void terminal_colors(void) {
    CHECK_INT(palette_xterm256((struct rgb){255, 0, 0}), 196);
    CHECK_INT(palette_xterm256((struct rgb){0, 0, 0}), 16);
    CHECK_INT(palette_xterm256((struct rgb){128, 128, 128}), 244);
    CHECK_INT(palette_xterm256((struct rgb){0xa5, 0x00, 0x26}), 124);
    struct rgb c = palette_xterm_rgb(21);
    CHECK_INT(c.r, 0); CHECK_INT(c.g, 0); CHECK_INT(c.b, 255);
    CHECK_INT(palette_ansi8((struct rgb){250, 10, 10}), 1);
    CHECK_INT(palette_ansi16((struct rgb){250, 250, 250}), 15);
    CHECK_INT(palette_ansi_ramp(0, 16), 4);
    CHECK_INT(palette_ansi_ramp(9, 16), 1);
    CHECK_INT(palette_ansi_ramp(4, 8), 1);
    CHECK_STR(palette_shade(0, 5, 0), ".");
    CHECK_STR(palette_shade(4, 5, 0), "@");
    CHECK_STR(palette_shade(4, 5, 1), "\xe2\x96\x88");
}

static void capability(void) {
    CHECK_INT(ui_pick_colors("1", "truecolor", 256), 0);
    CHECK_INT(ui_pick_colors("", NULL, 256), 256);             /* empty NO_COLOR is unset */
    CHECK_INT(ui_pick_colors(NULL, "truecolor", 0x1000000), 0x1000000);
    CHECK_INT(ui_pick_colors(NULL, NULL, 0x1000000), 256);     /* direct colour needs COLORTERM */
    CHECK_INT(ui_pick_colors(NULL, "truecolor", 256), 256);
    CHECK_INT(ui_pick_colors(NULL, NULL, 16), 16);
    CHECK_INT(ui_pick_colors(NULL, NULL, 8), 8);
    CHECK_INT(ui_pick_colors(NULL, NULL, 2), 0);
    CHECK(ui_codeset_utf8("UTF-8"));
    CHECK(ui_codeset_utf8("utf8"));
    CHECK(!ui_codeset_utf8("ANSI_X3.4-1968"));
    CHECK(!ui_codeset_utf8(NULL));
}

int main(void) {
    RUN(ramp_ends);
    RUN(quantise);
    RUN(bands);
    RUN(exponent_form);
    RUN(terminal_colors);
    RUN(capability);
    PT_DONE();
}
