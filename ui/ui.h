/* ui: the terminal.  Start and restore (on every exit path: q, Ctrl-C,
 * SIGTERM, SIGHUP, a fatal signal, exit()), colour capability, styles,
 * glyphs, and key/mouse input turned into ui/keys.h codes.
 *
 * Colours: NO_COLOR set (any value) -> none, attributes only; truecolor
 * only when COLORTERM says truecolor/24bit AND the terminal description
 * can express it (a *-direct terminfo entry; otherwise the 256-colour
 * palette is used); else as many as terminfo says (256, 16, 8).  The
 * terminal's own default background is kept (use_default_colors).
 *
 * Glyphs: UTF-8 when the locale's codeset is UTF-8 and --ascii was not
 * given; otherwise everything drawn is plain ASCII. */
#ifndef PT_UI_UI_H
#define PT_UI_UI_H

#include <curses.h>
#include <signal.h>
#include <stdint.h>

#include "model/err.h"
#include "ui/palette.h"

enum ui_role {
    UI_NORMAL, UI_BAR, UI_BAR_HI, UI_TITLE, UI_TITLE_FOCUS, UI_HINT, UI_KEY, UI_MSG, UI_ERROR,
    UI_AXIS, UI_AXIS_SEL, UI_NAN, UI_PINF, UI_NINF, UI_MATCH, UI_PROMPT, UI_DIM,
    UI_OK, UI_WARN, UI_BAD,
    UI_ANOMALY,                /* a mark on what msProbe's monitor reported (its anomaly reports) */
    UI_SERIES0, UI_SERIES_LAST = UI_SERIES0 + 7,
    UI_NROLES
};
#define UI_NSERIES 8

struct ui_pairslot { uint64_t key; int pair; };

struct ui {
    int utf8;                  /* UTF-8 glyphs allowed */
    int ncolors;               /* 0 none, 8, 16, 256, 0x1000000 */
    int truecolor;
    int steps;                 /* gradient steps (palette_steps_for) */
    int mouse;
    int started;
    /* button 1: where it went down, and the last click (for double
     * clicks); clicks are made here, not by ncurses, so that a drag is
     * told from a click by where the button comes up, not by timing */
    int press_y, press_x, pressed;
    int click_y, click_x;
    double click_t;
    SCREEN *scr;
    int headless;              /* drawn off-screen (ui_opts.rows): no terminal touched */
    FILE *null_out, *null_in;  /* headless: /dev/null as the terminal's ends */
    int next_pair;
    struct ui_pairslot pairs[4096];  /* open addressing (fg, bg) -> pair */
    attr_t role_attr[UI_NROLES];
    int role_pair[UI_NROLES];
};

struct ui_opts {
    int ascii;                 /* --ascii */
    int no_mouse;
    /* > 0: headless (probetop snapshot): an off-screen rows x cols screen
     * of an xterm-256color, drawn by curses as on a terminal (curscr is
     * what ui/shot.h reads) with its output sent to /dev/null; no tty, no
     * signal handlers, no mouse, 256 colours (none with NO_COLOR). */
    int rows, cols;
};

/* Starts curses on the terminal; 0 ok, -1 (err) when there is no usable
 * terminal.  Installs the restore handlers. */
int ui_start(struct ui *u, const struct ui_opts *o, struct pt_error *err);
/* What ui_start checks first (a tty on stdin and stdout, a TERM that moves
 * the cursor), without touching the terminal: 0, or -1 with err. */
int ui_can_start(struct pt_error *err);
/* Restores the terminal (idempotent). */
void ui_stop(struct ui *u);

/* The capability decision, pure (for tests): from the environment values
 * and terminfo's colour count; returns 0, 8, 16, 256 or 0x1000000. */
int ui_pick_colors(const char *no_color, const char *colorterm, int terminfo_colors);
/* Whether the locale codeset (nl_langinfo(CODESET)) means UTF-8. */
int ui_codeset_utf8(const char *codeset);

/* Terminal colour number for an RGB colour (-1 = default). */
int ui_color(const struct ui *u, struct rgb c);
/* The colour pair for (fg, bg) terminal colours (-1 default), cached. */
int ui_pair(struct ui *u, int fg, int bg);
/* Sets the window's drawing attributes. */
void ui_style(WINDOW *w, attr_t attrs, int pair);
void ui_role(WINDOW *w, const struct ui *u, int role);
/* The series colour for line i as a role. */
static inline int ui_series_role(int i) { return UI_SERIES0 + (i % UI_NSERIES); }

/* Glyphs (UTF-8 or ASCII). */
const char *ui_glyph_focus(const struct ui *u);     /* "▶" / ">" */
const char *ui_glyph_vline(const struct ui *u);     /* "│" / "|" */
const char *ui_glyph_hline(const struct ui *u);     /* "─" / "-" */
const char *ui_glyph_sep(const struct ui *u);       /* " · " / " | " */

/* Puts text on the terminal's clipboard: OSC 52 (ESC ] 52 ; c ; base64
 * BEL), which xterm, kitty, iTerm2, WezTerm, foot and tmux (set-clipboard)
 * honour, over SSH too and whatever the mouse mode.  The caller gives the
 * text (ui knows nothing of what it is).  0, or -1 when the terminal is not
 * started or the text is over UI_CLIPBOARD_MAX bytes. */
#define UI_CLIPBOARD_MAX 65536
int ui_clipboard(struct ui *u, const char *text);

/* Writes s at (y, x) clipped to `width` columns. Returns columns written. */
int ui_put(WINDOW *w, int y, int x, int width, const char *s);
/* Fills `width` columns at (y, x) with spaces in the current style. */
void ui_fill(WINDOW *w, int y, int x, int width);

/* The process-wide signal flag: the last SIGINT/SIGTERM/SIGHUP seen
 * (0 none).  The event loop polls and clears it. */
extern volatile sig_atomic_t ui_signal;
extern volatile sig_atomic_t ui_winch;   /* a SIGWINCH arrived (ui_getkey turns it into KEYS_RESIZE) */

/* Input from window w (keypad on; curses refreshes w first if it changed,
 * so give the toolbar, never an undrawn window): one key as a ui/keys.h
 * code, waiting at most timeout_ms (-1:
 * forever); KEYS_NONE on timeout or signal.  For KEYS_MOUSE, *my, *mx are the
 * screen position and *mbutton 1 click, 2 double click, 4 wheel up,
 * 5 wheel down, 8 drag (button 1 down at u->press_y, u->press_x and up at
 * *my, *mx). */
int ui_getkey(struct ui *u, WINDOW *w, int timeout_ms, int *my, int *mx, int *mbutton);

#endif
