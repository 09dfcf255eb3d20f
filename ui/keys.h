/* keys: key codes and the key-table machinery, without curses.
 *
 * Input (ui/input.c) turns curses key codes into these: a printable key is
 * its Unicode code point, a control key is its ASCII control code
 * (KEYS_CTRL('u') == 0x15), everything else a KEYS_* value above Unicode.  So
 * key tables, the help text and the man page are plain data that unit tests
 * can check without a terminal. */
#ifndef PT_UI_KEYS_H
#define PT_UI_KEYS_H

#include <stddef.h>
#include <stdio.h>

#define KEYS_CTRL(c) ((c) & 0x1f)
#define KEYS_ENTER   0x0d
#define KEYS_TAB     0x09
#define KEYS_ESC     0x1b
#define KEYS_BACKSPACE 0x7f

enum {
    KEYS_BASE = 0x110000,
    KEYS_UP, KEYS_DOWN, KEYS_LEFT, KEYS_RIGHT,
    KEYS_PGUP, KEYS_PGDN, KEYS_HOME, KEYS_END,
    KEYS_INSERT, KEYS_DELETE, KEYS_BTAB,
    KEYS_SUP, KEYS_SDOWN, KEYS_SLEFT, KEYS_SRIGHT,   /* shifted arrows */
    KEYS_F1, KEYS_F2, KEYS_F3, KEYS_F4, KEYS_F5, KEYS_F6, KEYS_F7, KEYS_F8, KEYS_F9, KEYS_F10,
    KEYS_F11, KEYS_F12,
    KEYS_MOUSE,       /* a mouse event is pending (ui_input_mouse) */
    KEYS_RESIZE,      /* the terminal was resized */
    KEYS_NONE         /* nothing (timeout) */
};

/* "Down", "C-u", "Enter", "g", "F2"...; buf must hold 16 bytes. */
const char *keys_name(int code, char *buf, size_t size);

/* A row of a key table, generic over the pane's tables (views/view.h uses
 * the same layout as struct view_key). */
struct keys_row {
    int code;
    const char *name;
    int action;
    const char *help;
};

/* First row of rows[0..n) whose code is `code`; NULL when none. */
const struct keys_row *keys_find(const struct keys_row *rows, size_t n, int code);

/* Groups the rows of one table for display: calls emit once per distinct
 * (action, help) with the names of all its keys joined by ", ", in table
 * order; rows with help == NULL are skipped. */
typedef void (*keys_emit_fn)(void *ctx, const char *keys, const char *help);
void keys_group(const struct keys_row *rows, size_t n, keys_emit_fn emit, void *ctx);

/* Escapes text for roff (backslashes, leading dots and quotes, hyphens). */
void keys_roff(FILE *f, const char *text);

#endif
