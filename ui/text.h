/* text: display width, fitting and number formats for labels, without
 * curses.  Widths count code points (every glyph the app prints is one
 * column wide; hostile names are escaped with pt_escape first). */
#ifndef PT_UI_TEXT_H
#define PT_UI_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Columns of a UTF-8 string (code points; invalid bytes count one each). */
int text_width(const char *s);
/* Byte length of the first `cols` columns of s. */
size_t text_prefix(const char *s, int cols);

enum text_cut { TEXT_CUT_RIGHT, TEXT_CUT_LEFT, TEXT_CUT_MIDDLE };
/* Copies s into buf so it takes at most `width` columns, marking a cut with
 * an ellipsis ("…", or "~" when !utf8) at the end, the start or the middle. */
char *text_fit(const char *s, int width, enum text_cut cut, int utf8, char *buf, size_t size);

/* A target name for an axis label in at most `width` columns, keeping what
 * tells rows apart: wrapper words (Module, Cell, module, model...) and class
 * names go first, "layers.3" becomes "L3", input/output become in/out, and
 * what still does not fit is cut from the left behind the layer number. */
char *text_short_target(const char *name, int width, int utf8, char *buf, size_t size);

/* msProbe's y tick labels (probetop-rules(7), HEAT MAP SCALE): 0 -> "0"; |v| < 1e-4 or
 * |v| >= 1e4 -> exponent form with up to 6 decimals, trailing zeros and the
 * '+' removed ("1.5e5", "2e-7"); else fixed with up to 10 decimals,
 * trailing zeros removed. */
char *text_fmt_tick(double v, char *buf, size_t size);
/* A number in at most `width` columns, followed by `unit` (NULL or "", or
 * "%"): the most significant digits that fit (up to 8), in fixed form or
 * exponent form with the exponent compacted ("-1.22e-4", "1.5e7"),
 * whichever fits first (fixed when both do); a whole number that fits is
 * shown whole; NaN, +Inf, -Inf as such.  Digits are never cut out of the
 * middle: when no form fits (under 5 columns for some values) the result
 * is '#' across the width.  Every pane's "number in N columns". */
char *text_fmt_fit(double v, int width, const char *unit, char *buf, size_t size);
/* text_fmt_fit without a unit. */
char *text_fmt_compact(double v, int width, char *buf, size_t size);

/* A duration of ns nanoseconds as the trace panes print it: "1.250 s",
 * "3.400 ms", "12.000 us", or whole "850 ns" below a microsecond. */
char *text_fmt_ns(int64_t ns, char *buf, size_t size);

/* Base64 (RFC 4648, padded) of n bytes; out needs 4 * ((n + 2) / 3) + 1
 * bytes, or the text stops at the last whole group that fits. */
char *text_base64(const void *in, size_t n, char *out, size_t size);

#endif
