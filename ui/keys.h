/* keys: key codes and the key-table machinery, without curses.
 *
 * Input (ui/input.c) turns curses key codes into these: a printable key is
 * its Unicode code point, a control key is its ASCII control code
 * (UK_CTRL('u') == 0x15), everything else a UK_* value above Unicode.  So
 * key tables, the help text and the man page are plain data that unit tests
 * can check without a terminal. */
#ifndef PT_UI_KEYS_H
#define PT_UI_KEYS_H

#include <stddef.h>
#include <stdio.h>

#define UK_CTRL(c) ((c) & 0x1f)
#define UK_ENTER   0x0d
#define UK_TAB     0x09
#define UK_ESC     0x1b
#define UK_BACKSPACE 0x7f

enum {
    UK_BASE = 0x110000,
    UK_UP, UK_DOWN, UK_LEFT, UK_RIGHT,
    UK_PGUP, UK_PGDN, UK_HOME, UK_END,
    UK_INSERT, UK_DELETE, UK_BTAB,
    UK_SUP, UK_SDOWN, UK_SLEFT, UK_SRIGHT,   /* shifted arrows */
    UK_F1, UK_F2, UK_F3, UK_F4, UK_F5, UK_F6, UK_F7, UK_F8, UK_F9, UK_F10,
    UK_F11, UK_F12,
    UK_MOUSE,       /* a mouse event is pending (ui_input_mouse) */
    UK_RESIZE,      /* the terminal was resized */
    UK_NONE         /* nothing (timeout) */
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
