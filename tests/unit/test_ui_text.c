/* Labels and numbers: target shortening, fitting, tick formats, zoom
 * aggregation. */
#include <math.h>

#include "pt_test.h"
#include "views/agg.h"
#include "ui/text.h"

#define QKV "Module.module.module.decoder.layers.3.self_attention.linear_qkv.ColumnParallelLinear.output.0"

static void short_targets(void) {
    char b[256];
    CHECK_STR(text_short_target("Functional.linear.input.0", 40, 1, b, sizeof b), "Functional.linear.input.0");
    CHECK_STR(text_short_target(QKV, 200, 1, b, sizeof b), QKV);
    /* a tail exactly one cell wider than the room must still be cut, not glued to the layer */
    CHECK_STR(text_short_target("Module.module.module.decoder.layers.5.self_attention.linear_proj.RowParallelLinear.output.0",
                                33, 1, b, sizeof b), "L5\xe2\x80\xa6lf_attention.linear_proj.out0");
    /* Wrappers dropped, layers.3 -> L3, output.0 -> out0. */
    CHECK_STR(text_short_target(QKV, 70, 1, b, sizeof b), "decoder.L3.self_attention.linear_qkv.ColumnParallelLinear.out0");
    /* Then class names. */
    CHECK_STR(text_short_target(QKV, 41, 1, b, sizeof b), "decoder.L3.self_attention.linear_qkv.out0");
    /* Then what precedes the layer. */
    CHECK_STR(text_short_target(QKV, 33, 1, b, sizeof b), "L3.self_attention.linear_qkv.out0");
    /* Then the middle, keeping the layer and the tail. */
    CHECK_STR(text_short_target(QKV, 20, 1, b, sizeof b), "L3\xe2\x80\xa6" "linear_qkv.out0");
    CHECK_INT(text_width(text_short_target(QKV, 20, 1, b, sizeof b)), 18);   /* whole tokens */
    CHECK_STR(text_short_target(QKV, 20, 0, b, sizeof b), "L3~linear_qkv.out0");
    CHECK_STR(text_short_target(QKV, 14, 0, b, sizeof b), "L3~ar_qkv.out0");
    /* Call suffixes still abbreviate. */
    CHECK_STR(text_short_target("Functional.linear.output.0#22", 26, 1, b, sizeof b), "Functional.linear.out0#22");
    /* Every width is honoured. */
    for (int w = 1; w < 60; w++) CHECK(text_width(text_short_target(QKV, w, 1, b, sizeof b)) <= w);
}

static void fitting(void) {
    char b[64];
    CHECK_STR(text_fit("abcdefgh", 5, TEXT_CUT_RIGHT, 0, b, sizeof b), "abcd~");
    CHECK_STR(text_fit("abcdefgh", 5, TEXT_CUT_LEFT, 0, b, sizeof b), "~efgh");
    CHECK_STR(text_fit("abcdefgh", 5, TEXT_CUT_MIDDLE, 0, b, sizeof b), "ab~gh");
    CHECK_STR(text_fit("abc", 5, TEXT_CUT_MIDDLE, 1, b, sizeof b), "abc");
    CHECK_STR(text_fit("\xc3\xa9t\xc3\xa9s", 3, TEXT_CUT_RIGHT, 1, b, sizeof b), "\xc3\xa9t\xe2\x80\xa6");
    CHECK_INT(text_width("\xe2\x96\x80x"), 2);
    CHECK_INT((int)text_prefix("\xc3\xa9tx", 2), 3);
}

static void ticks(void) {
    char b[64];
    CHECK_STR(text_fmt_tick(0, b, sizeof b), "0");
    CHECK_STR(text_fmt_tick(150000, b, sizeof b), "1.5e5");
    CHECK_STR(text_fmt_tick(2e-7, b, sizeof b), "2e-7");
    CHECK_STR(text_fmt_tick(-1234567, b, sizeof b), "-1.234567e6");
    CHECK_STR(text_fmt_tick(0.25, b, sizeof b), "0.25");
    CHECK_STR(text_fmt_tick(9999, b, sizeof b), "9999");
    CHECK_STR(text_fmt_tick(1e4, b, sizeof b), "1e4");
    CHECK_STR(text_fmt_tick(0.0001, b, sizeof b), "0.0001");
    CHECK_STR(agg_fmt_value(NAN, b, sizeof b), "NaN");
    CHECK_STR(agg_fmt_value(-INFINITY, b, sizeof b), "-Inf");
    CHECK_STR(agg_fmt_value(cube_missing(), b, sizeof b), "");
    CHECK_STR(agg_fmt_value(1.5f, b, sizeof b), "1.5");
    CHECK_STR(text_fmt_compact(36.957546234, 7, b, sizeof b), "36.9575");
    CHECK_STR(text_fmt_compact(123456789, 7, b, sizeof b), "1.235e8");
}

/* A number in N columns: rounded to the width, never cut in the middle
 * (the detail pane showed "-0\u2026125" and "0.\u202678%" at 80 columns). */
static void number_fit(void) {
    char b[64];
    CHECK_STR(text_fmt_fit(-0.000122125, 8, NULL, b, sizeof b), "-1.22e-4");
    CHECK_STR(text_fmt_fit(-0.000122125, 7, NULL, b, sizeof b), "-1.2e-4");
    CHECK_STR(text_fmt_fit(-0.000122125, 6, NULL, b, sizeof b), "-1e-4");
    CHECK_STR(text_fmt_fit(-0.000122125, 12, NULL, b, sizeof b), "-0.000122125");
    CHECK_STR(text_fmt_fit(0.0007812, 7, "%", b, sizeof b), "7.8e-4%");
    CHECK_STR(text_fmt_fit(0.0007812, 9, "%", b, sizeof b), "7.812e-4%");
    CHECK_STR(text_fmt_fit(0.0007812, 10, "%", b, sizeof b), "0.0007812%");
    CHECK_STR(text_fmt_fit(74.33921, 8, "%", b, sizeof b), "74.3392%");
    CHECK_STR(text_fmt_fit(24.2739, 5, NULL, b, sizeof b), "24.27");
    CHECK_STR(text_fmt_fit(1.5e7, 5, NULL, b, sizeof b), "1.5e7");
    CHECK_STR(text_fmt_fit(12345, 5, NULL, b, sizeof b), "12345");
    CHECK_STR(text_fmt_fit(123456, 5, NULL, b, sizeof b), "1.2e5");
    CHECK_STR(text_fmt_fit(0, 1, NULL, b, sizeof b), "0");
    CHECK_STR(text_fmt_fit(-1e-30, 5, NULL, b, sizeof b), "#####");
    CHECK_STR(text_fmt_fit(NAN, 5, "%", b, sizeof b), "NaN");
    CHECK_STR(text_fmt_fit(-INFINITY, 4, NULL, b, sizeof b), "-Inf");
    /* every result fits and has no ellipsis, at every width */
    const double vs[] = {-0.000122125, 3.14159265, -98765.4321, 1e-38, 6.02e23, 0.5, -7};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++)
        for (int w = 1; w <= 14; w++) {
            text_fmt_fit(vs[i], w, NULL, b, sizeof b);
            CHECK(text_width(b) <= w);
            CHECK(!strstr(b, "\xe2\x80\xa6") && !strchr(b, '~'));
            if (b[0] != '#') CHECK(fabs(strtod(b, NULL) - vs[i]) <= fabs(vs[i]) * 0.5);
        }
}

/* OSC 52's payload (y copies): RFC 4648 base64, padded. */
static void base64(void) {
    char b[64];
    CHECK_STR(text_base64("", 0, b, sizeof b), "");
    CHECK_STR(text_base64("f", 1, b, sizeof b), "Zg==");
    CHECK_STR(text_base64("fo", 2, b, sizeof b), "Zm8=");
    CHECK_STR(text_base64("foo", 3, b, sizeof b), "Zm9v");
    CHECK_STR(text_base64("foobar", 6, b, sizeof b), "Zm9vYmFy");
    CHECK_STR(text_base64("\xff\xfe\x01", 3, b, sizeof b), "//4B");
    CHECK_STR(text_base64("foobar", 6, b, 7), "Zm9v");   /* stops at the last whole group */
}

static void aggregation(void) {
    struct agg g;
    agg_init(&g);
    CHECK(cube_is_missing(agg_result(&g)));
    agg_add(&g, cube_missing());
    CHECK(cube_is_missing(agg_result(&g)));
    agg_add(&g, 2);
    agg_add(&g, -5);
    agg_add(&g, 4);
    CHECK_NEAR(agg_result(&g), -5, 0);        /* the largest magnitude, sign kept */
    agg_add(&g, -INFINITY);
    CHECK(isinf(agg_result(&g)) && agg_result(&g) < 0);
    agg_add(&g, INFINITY);
    CHECK(isinf(agg_result(&g)) && agg_result(&g) > 0);
    agg_add(&g, NAN);
    CHECK(isnan(agg_result(&g)) && !cube_is_missing(agg_result(&g)));

    /* A 4x3 slice, x-major strides like the cube's. */
    float v[12];
    for (int i = 0; i < 12; i++) v[i] = (float)i;
    v[7] = NAN;
    struct cube_slice s = {v, 3, 1, 4, 3, DIM_STEP, 0};   /* cell (x, y) = v[x*3 + y] */
    CHECK_NEAR(agg_block(&s, 0, 2, 0, 3, NULL, NULL), 5, 0);
    CHECK(isnan(agg_block(&s, 2, 4, 0, 3, NULL, NULL)));      /* v[7] = (2, 1) */
    const uint32_t ys[2] = {2, 0};
    CHECK_NEAR(agg_block(&s, 3, 4, 0, 1, NULL, ys), 11, 0);   /* row 0 maps to slice y 2 */
    CHECK_NEAR(agg_block(&s, 0, 9, 1, 2, NULL, ys), 9, 0);    /* x clipped to the slice */
    const uint32_t xs[4] = {3, 2, 1, 0};                         /* ranks shown in reverse (:group) */
    CHECK_NEAR(agg_block(&s, 0, 1, 1, 2, xs, ys), 9, 0);      /* display x 0 = slice x 3, y 0 */
    CHECK_NEAR(agg_block(&s, 3, 4, 0, 1, xs, NULL), 0, 0);    /* display x 3 = slice x 0 */
}

int main(void) {
    RUN(short_targets);
    RUN(fitting);
    RUN(ticks);
    RUN(number_fit);
    RUN(base64);
    RUN(aggregation);
    PT_DONE();
}
