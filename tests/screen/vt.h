/* vt: the screen-test harness.  Runs the real probetop binary in a
 * pseudo-terminal and feeds everything it writes through libvterm, so tests
 * read the screen a user would see: text per row, each cell's glyph and
 * colours (resolved to RGB), the cursor and the terminal modes the program
 * left behind.  Keys go in by name and are encoded by libvterm according to
 * the modes the program asked for (application cursor keys, SGR mouse), as a
 * real xterm would.
 *
 * Tests never sleep to "let the program catch up": every wait polls the pty
 * with a deadline for a condition (text shown, screen changed, output quiet,
 * child exited).  Deadlines are generous and scaled by PT_TIMEOUT_SCALE so a
 * sanitizer build only costs time when something is actually wrong.
 *
 * One struct vt owns the child, the pty master and the emulator; vt_close()
 * releases all three (killing the child if it is still running). */
#ifndef PT_VT_H
#define PT_VT_H

#include <stdbool.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct VTerm;
struct VTermScreen;

#define VT_ROWBUF 8        /* vt_row_text() results stay valid for 8 calls */
#define VT_MODES 24        /* DEC private modes remembered from the stream */

/* One screen cell.  Colours are 0xRRGGBB after palette lookup; *_default
 * says the program left the terminal's default colour there. */
struct vt_cell {
    char glyph[32];        /* UTF-8 of the cell ("" for an empty cell) */
    uint32_t ch;           /* first code point, 0 when empty */
    int width;             /* 1, or 2 for a wide glyph */
    uint32_t fg, bg;
    bool fg_default, bg_default;
    bool bold, reverse, underline, italic;
};

struct vt {
    struct VTerm *term;
    struct VTermScreen *screen;
    int fd;                /* pty master, non-blocking; -1 when closed */
    pid_t pid;             /* child, 0 once reaped */
    int status;            /* wait status once reaped */
    int cols, rows;
    int min_cols, min_rows;   /* the smallest size since spawn (what survived of the shell screen) */
    bool eof;              /* the slave side closed (child gone) */

    /* Output accounting, for the benchmark.  vt_mark() starts a window. */
    uint64_t bytes_total;
    uint64_t bytes_mark;   /* bytes since the last vt_mark() */
    double t_mark;         /* monotonic seconds at vt_mark() */
    double t_first;        /* first byte after the mark, 0 if none yet */
    double t_last;         /* latest byte received */

    /* Terminal properties, as libvterm tracked them. */
    bool altscreen, cursor_visible;
    int mouse_mode;        /* VTERM_PROP_MOUSE_* */
    char title[128];

    /* DEC private modes seen in the raw stream (CSI ? N h / l), so the
     * restore check also covers modes libvterm does not report (keypad
     * transmit 1, bracketed paste 2004, SGR mouse 1006). */
    struct { int mode; bool on; } modes[VT_MODES];
    int nmodes;
    int esc_state;         /* raw-stream scanner state across reads */
    char esc_buf[64];
    int esc_len;

    /* Bytes libvterm wants sent to the program (keys, query answers),
     * queued so they are written outside libvterm's callbacks. */
    char *out;
    size_t out_len, out_cap;

    int timeout_ms;        /* default deadline for waits, scaled */
    bool broken;           /* a VT_WAIT failed: later VT_WAITs do not wait */
    char rowbuf[VT_ROWBUF][2048];
    int rowbuf_next;
    char *textbuf;         /* vt_screen_text() result, owned */
};

/* Path of the binary under test (PT_BIN), or NULL when unset/not executable;
 * tests SKIP then. */
const char *vt_bin(void);

/* Starts argv (argv[0] a path) in a cols×rows pty with TERM=xterm-256color,
 * LANG=C.UTF-8, PROBETOP_KEYBAR=off (the bottom key bar hidden: the
 * screens the tests know; env "PROBETOP_KEYBAR" shows it), and COLORTERM,
 * NO_COLOR, LC_ALL, LC_CTYPE removed.
 * env: NULL or a NULL-terminated list of "NAME=VALUE" (set) or "NAME"
 * (unset) applied after that.  Before the child starts, the emulator's
 * normal screen shows the line "$ probetop-vt-shell" so vt_restored() can
 * check the program gave it back.  Returns 0, or -1 with a message on
 * stderr. */
int vt_spawn(struct vt *vt, int cols, int rows, char *const argv[], const char *const env[]);

/* vt_spawn() of the binary under test: argv = PT_BIN followed by args
 * (NULL-terminated, may be NULL).  -1 when PT_BIN is unset or the spawn
 * failed; tests check vt_bin() first and SKIP. */
int vt_spawn_app(struct vt *vt, int cols, int rows, const char *const args[], const char *const env[]);

/* Kills the child if still running, closes the pty, frees the emulator. */
void vt_close(struct vt *vt);

/* Sends keys.  Plain characters go as typed (UTF-8 allowed); a name in
 * angle brackets is a key: <Enter> <Tab> <S-Tab> <BS> <Esc> <Up> <Down>
 * <Left> <Right> <Home> <End> <PgUp> <PgDn> <Ins> <Del> <F1>..<F12>
 * <C-x> (control + letter) <M-x> (alt + char) <lt> (a literal '<'),
 * and mouse events at a 0-based screen cell: <click:ROW,COL>
 * <dclick:ROW,COL> <rclick:ROW,COL> <wheelup:ROW,COL> <wheeldown:ROW,COL>,
 * and the halves of a drag, <press:ROW,COL> <release:ROW,COL>.
 * Mouse events are encoded by libvterm in the mode the program enabled
 * (SGR 1006 with ncurses' xterm-256color); with mouse reporting off they
 * send nothing, as a real terminal would.  Returns 0, or -1 on an unknown
 * key name or a write error. */
int vt_send(struct vt *vt, const char *keys);

/* Writes raw bytes to the program, no interpretation. */
int vt_send_raw(struct vt *vt, const void *buf, size_t len);

/* Reads what the program wrote for up to timeout_ms (0: only what is
 * already there).  Returns the number of bytes read, -1 on error. */
long vt_pump(struct vt *vt, int timeout_ms);

/* Polls until the screen contains text (anywhere), up to timeout_ms
 * (<= 0: the default deadline), on a settled screen.  Returns 0 when found, -1 on timeout or
 * when the child is gone without showing it. */
int vt_wait_text(struct vt *vt, const char *text, int timeout_ms);

/* Polls until text is no longer on screen.  0 / -1 as above. */
int vt_wait_gone(struct vt *vt, const char *text, int timeout_ms);

/* Polls until row's text differs from before (a copy the caller made);
 * row < 0 compares the whole screen text.  0 / -1 as above. */
int vt_wait_change(struct vt *vt, int row, const char *before, int timeout_ms);

/* Polls until pred(vt, arg) is true.  0 / -1 as above. */
int vt_wait_until(struct vt *vt, bool (*pred)(struct vt *, void *), void *arg, int timeout_ms);

/* Pumps output until cond (any C expression, re-evaluated after each
 * read) holds on a settled screen.  When the default deadline passes or
 * the child is gone first, the wait FAILS: vt_wait_failed() prints
 * "file:line: VT_WAIT(cond) ..." with the screen, counts a failure in
 * pt_test.h's tally (include it before this header) and marks vt broken,
 * so the test's later waits on it return at once instead of each running
 * to its deadline.  A test that wants to know whether something appears,
 * without failing, uses vt_wait_until() and reads its result. */
#define VT_WAIT(vt, cond) do { \
        double vt_deadline_ = vt_now() + (vt)->timeout_ms / 1000.0; \
        for (;;) { \
            if ((cond) && vt_settle(vt) == 0 && (cond)) break; \
            if ((vt)->broken || vt_now() >= vt_deadline_ || vt_pump((vt), 50) < 0) { \
                if (!(cond) && vt_wait_failed((vt), __FILE__, __LINE__, #cond)) VT_FAIL_(); \
                break; \
            } \
        } \
    } while (0)

/* Reports a VT_WAIT that ended without its condition: prints where and
 * why (deadline passed, or the program exited and with what status) and
 * the screen to stderr, and sets vt->broken.  Returns true for the first
 * failure on this vt (the one to count), false for the waits after it. */
bool vt_wait_failed(struct vt *vt, const char *file, int line, const char *cond);

#ifdef PT_TEST_H
#define VT_FAIL_() (pt_fail++)
#else
#define VT_FAIL_() ((void)0)     /* benchmarks: the dump on stderr says it */
#endif

/* A frame arrives as one burst of writes, which may be read in pieces: a
 * condition seen half-way through a frame is confirmed only after the
 * output has paused for VT_SETTLE_MS.  Every wait below does this. */
#define VT_SETTLE_MS 20
int vt_settle(struct vt *vt);

/* Reads until the program has written nothing for quiet_ms, up to the
 * default deadline.  0 when quiet, -1 if it never went quiet. */
int vt_wait_idle(struct vt *vt, int quiet_ms);

/* Waits for the child to exit (reading its output meanwhile so it cannot
 * block on a full pty) and stores the wait status.  0, or -1 on timeout. */
int vt_wait_exit(struct vt *vt, int timeout_ms, int *status);

/* The text of a row (UTF-8, trailing blanks removed; wide glyphs once).
 * The result is owned by vt and stays valid for VT_ROWBUF calls. */
const char *vt_row_text(struct vt *vt, int row);

/* The whole screen, rows joined by '\n'.  Owned by vt, valid until the
 * next call. */
const char *vt_screen_text(struct vt *vt);

/* Finds text on screen, scanning rows top-down.  Stores the row and the
 * cell column of the first match (either pointer may be NULL).  Returns
 * true when found. */
bool vt_find(struct vt *vt, const char *text, int *row, int *col);

/* Cell column of the first match of text in one row, -1 when absent. */
int vt_col_of(struct vt *vt, int row, const char *text);

/* Like vt_find, starting at row from_row. */
bool vt_find_from(struct vt *vt, const char *text, int from_row, int *row, int *col);

/* A hash of rows [r0, r1): glyphs, colours and attributes of every cell
 * as a viewer sees them (a blank is a blank, whatever its ink), so a test
 * can tell "the picture changed" without knowing the picture. */
uint64_t vt_hash_rows(struct vt *vt, int r0, int r1);

/* One cell; returns 0, or -1 when (row, col) is off screen. */
int vt_cell(struct vt *vt, int row, int col, struct vt_cell *cell);

/* The colour a viewer sees for a cell's glyph / background: fg and bg
 * swapped when reverse video is on. */
uint32_t vt_cell_ink(const struct vt_cell *c);
uint32_t vt_cell_paper(const struct vt_cell *c);

/* Whether rgb is one of the 256 indexed colours of the emulator's
 * palette (a truecolor program may pick any other). */
bool vt_in_palette(struct vt *vt, uint32_t rgb);

/* Cursor position. */
void vt_cursor(struct vt *vt, int *row, int *col);

/* Changes the window size: the emulator, then the pty (the kernel sends
 * SIGWINCH to the program).  Returns 0 or -1. */
int vt_resize(struct vt *vt, int cols, int rows);

/* Starts a measurement window: zeroes bytes_mark, t_first. */
void vt_mark(struct vt *vt);

/* Monotonic clock in seconds. */
double vt_now(void);

/* The last state a DEC private mode was set to in the stream: 1 set,
 * 0 reset, -1 never mentioned. */
int vt_mode(const struct vt *vt, int mode);

/* True when the terminal is as the program found it: normal screen back
 * (showing the pre-spawn line, or what of it survived the narrowest
 * resize), cursor visible, mouse reporting, keypad
 * transmit and bracketed paste off, pen back to default attributes.
 * When false, why (if non-NULL) says what was left behind. */
bool vt_restored(struct vt *vt, char *why, size_t whylen);

/* Prints the screen with row numbers, cursor and modes (for failures). */
void vt_dump(struct vt *vt, FILE *f);

/* Writes an SVG picture of the screen: a dark window with title, one rect
 * per run of background colour, text runs in their colours, block
 * elements drawn as rectangles so half-block heat maps stay crisp.
 * Returns 0, or -1 with a message on stderr. */
int vt_svg(struct vt *vt, const char *path, const char *title);

/* Writes $PT_SHOTS/NAME.svg (build/tests/screenshots under ctest, the
 * checkout's screenshots/ for the screenshots target) with vt_svg().
 * Returns 0, 1 when PT_SHOTS is unset (a run outside ctest writes
 * nothing), -1 on a write error. */
int vt_shot(struct vt *vt, const char *name, const char *title);

/* The theme's default colours (what "terminal default" looks like in the
 * emulator and in SVGs). */
#define VT_DEFAULT_FG 0xd8dee9u
#define VT_DEFAULT_BG 0x1d2129u

/* Small questions every screen test asks. */
static inline bool vt_row_has(struct vt *vt, int row, const char *text) {
    return row >= 0 && row < vt->rows && strstr(vt_row_text(vt, row), text) != NULL;
}
static inline bool vt_has(struct vt *vt, const char *text) { return strstr(vt_screen_text(vt), text) != NULL; }
/* The status line: the last row but one, the last on screens under 12 rows. */
static inline int vt_status_row(struct vt *vt) { return vt->rows >= 12 ? vt->rows - 2 : vt->rows - 1; }

#endif
