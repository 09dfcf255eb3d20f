/* err: the one error type.  A function that can fail returns int (0 ok,
 * -1 failed) and fills a caller-owned struct pt_error with a message fit for
 * the user: the file, the place (line, byte, key, row, table), what was
 * expected.  main prints it and picks the exit code. */
#ifndef PT_ERR_H
#define PT_ERR_H

#include <stddef.h>

struct pt_error {
    char msg[1024];
};

/* Formats into e (if not NULL) and returns -1, so "return pt_errorf(...)"
 * reads naturally. */
int pt_errorf(struct pt_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copies s into out (size n) with control bytes, backslashes, quotes and
 * invalid UTF-8 shown as escapes (\n, \x1b, \\), so a hostile name can be
 * printed on a terminal.  Returns out. */
char *pt_escape(const char *s, size_t len, char *out, size_t n);

/* Length of the valid UTF-8 sequence at s (at most len bytes; it stops at
 * a NUL), 0 when invalid (overlong, a surrogate, past U+10FFFF). */
size_t pt_utf8_len(const unsigned char *s, size_t len);

/* s for a csv field, whose quoting keeps commas, quotes and line ends: only
 * what a terminal acts on (control bytes but tab, newline and CR; C1
 * controls; invalid UTF-8) escaped as pt_escape does.  Returns s itself
 * when there is none (*owned NULL), else a copy also put in *owned for the
 * caller to free; NULL without memory. */
const char *pt_unctrl(const char *s, char **owned);

#endif
