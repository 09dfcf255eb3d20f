/* term: curses start/stop, restore paths, colours, styles, glyphs. */
#include "ui/ui.h"
#include "ui/text.h"

#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <term.h>
#include <unistd.h>

volatile sig_atomic_t ui_signal;

/* Process-wide, because a fatal signal handler can reach nothing else: the
 * bytes that put the terminal back (leave the alternate screen, show the
 * cursor, plain attributes, mouse reporting off, keypad off), computed at
 * start, and the one struct ui that is running (for atexit). */
static char restore_seq[512];
static size_t restore_len;
static struct ui *active_ui;

static void on_signal(int sig) { ui_signal = sig; }

/* SIGWINCH: ncurses merges the signals of a quick shrink-and-grow and, seeing
 * the same size, neither reports KEY_RESIZE nor repaints, while the terminal
 * has lost what it showed.  So every SIGWINCH also sets our flag (after
 * ncurses' own handler has run) and the next key read forces a repaint. */
volatile sig_atomic_t ui_winch;
static struct sigaction curses_winch;

static void on_winch(int sig) {
    ui_winch = 1;
    if (curses_winch.sa_flags & SA_SIGINFO) {
        if (curses_winch.sa_sigaction) curses_winch.sa_sigaction(sig, NULL, NULL);
    } else if (curses_winch.sa_handler != SIG_DFL && curses_winch.sa_handler != SIG_IGN && curses_winch.sa_handler) {
        curses_winch.sa_handler(sig);
    }
}

static void on_fatal(int sig) {
    if (restore_len) {
        ssize_t w = write(STDOUT_FILENO, restore_seq, restore_len);
        (void)w;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void at_exit(void) {
    if (active_ui) ui_stop(active_ui);
}

static void add_cap(const char *name) {
    char *s = tigetstr((char *)name);
    if (!s || s == (char *)-1) return;
    size_t n = strlen(s);
    /* Drop the padding "$<..>" parts terminfo may carry. */
    for (size_t i = 0; i < n && restore_len + 1 < sizeof restore_seq; i++) {
        if (s[i] == '$' && i + 1 < n && s[i + 1] == '<') {
            while (i < n && s[i] != '>') i++;
            continue;
        }
        restore_seq[restore_len++] = s[i];
    }
}

static void add_raw(const char *s) {
    size_t n = strlen(s);
    if (restore_len + n < sizeof restore_seq) {
        memcpy(restore_seq + restore_len, s, n);
        restore_len += n;
    }
}

int ui_pick_colors(const char *no_color, const char *colorterm, int terminfo_colors) {
    /* no-color.org: present and not empty. */
    if (no_color && no_color[0]) return 0;
    if (terminfo_colors >= 0x1000000)
        return colorterm && (!strcasecmp(colorterm, "truecolor") || !strcasecmp(colorterm, "24bit")) ? 0x1000000 : 256;
    if (terminfo_colors >= 256) return 256;
    if (terminfo_colors >= 16) return 16;
    if (terminfo_colors >= 8) return 8;
    return 0;
}

int ui_codeset_utf8(const char *codeset) {
    return codeset && (!strcasecmp(codeset, "UTF-8") || !strcasecmp(codeset, "utf8"));
}

static int wants_truecolor(void) {
    const char *ct = getenv("COLORTERM"), *nc = getenv("NO_COLOR");
    if (nc && nc[0]) return 0;
    return ct && (!strcasecmp(ct, "truecolor") || !strcasecmp(ct, "24bit"));
}

static const char *const series_rgb_hex[UI_NSERIES] = {
    "ffd700", "00d7ff", "ff5fd7", "87ff5f", "ff8700", "5f87ff", "ffffff", "d7afff",
};
static const int series_ansi[UI_NSERIES] = {3, 6, 5, 2, 1, 4, 7, 3};

static struct rgb hex(const char *h) {
    unsigned long v = strtoul(h, NULL, 16);
    return (struct rgb){(uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
}

int ui_color(const struct ui *u, struct rgb c) {
    if (u->ncolors == 0) return -1;
    if (u->truecolor) return (c.r << 16) | (c.g << 8) | c.b;
    if (u->ncolors >= 256) return palette_xterm256(c);
    if (u->ncolors >= 16) return palette_ansi16(c);
    return palette_ansi8(c);
}

int ui_pair(struct ui *u, int fg, int bg) {
    if (u->ncolors == 0 || (fg < 0 && bg < 0)) return 0;
    uint64_t key = ((uint64_t)(uint32_t)(fg + 1) << 32) | (uint32_t)(bg + 1);
    size_t cap = sizeof u->pairs / sizeof u->pairs[0];
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 40) % cap;
    for (size_t k = 0; k < cap; k++) {
        struct ui_pairslot *s = &u->pairs[(h + k) % cap];
        if (s->pair && s->key == key) return s->pair;
        if (!s->pair) {
            /* Out of pairs: the default colours (the picture degrades,
             * nothing breaks). */
            if (u->next_pair >= COLOR_PAIRS || (size_t)u->next_pair >= cap) return 0;
            if (init_extended_pair(u->next_pair, fg, bg) == ERR) return 0;
            s->key = key;
            s->pair = u->next_pair++;
            return s->pair;
        }
    }
    return 0;
}

void ui_style(WINDOW *w, attr_t attrs, int pair) {
    wattr_set(w, attrs, 0, &pair);
}

void ui_role(WINDOW *w, const struct ui *u, int role) {
    if (role < 0 || role >= UI_NROLES) role = UI_NORMAL;
    int pair = u->role_pair[role];
    wattr_set(w, u->role_attr[role], 0, &pair);
}

static void set_role(struct ui *u, int role, attr_t attrs, int fg, int bg, attr_t mono) {
    if (u->ncolors == 0) {
        u->role_attr[role] = mono;
        u->role_pair[role] = 0;
    } else {
        u->role_attr[role] = attrs;
        u->role_pair[role] = ui_pair(u, fg, bg);
    }
}

static int ansi(const struct ui *u, int idx, const char *rgbhex) {
    if (u->truecolor) return ui_color(u, hex(rgbhex));
    if (u->ncolors < 16 && idx >= 8) idx -= 8;
    return idx;
}

static void make_roles(struct ui *u) {
    set_role(u, UI_NORMAL, A_NORMAL, -1, -1, A_NORMAL);
    set_role(u, UI_BAR, A_NORMAL, ansi(u, 0, "000000"), ansi(u, 6, "5fafaf"), A_REVERSE);
    set_role(u, UI_BAR_HI, A_BOLD, ansi(u, 0, "000000"), ansi(u, 6, "5fafaf"), A_REVERSE | A_BOLD);
    set_role(u, UI_TITLE, A_BOLD, -1, -1, A_BOLD);
    set_role(u, UI_TITLE_FOCUS, A_BOLD, ansi(u, 0, "000000"), ansi(u, 3, "d7af00"), A_REVERSE | A_BOLD);
    set_role(u, UI_HINT, A_NORMAL, ansi(u, 6, "5fafaf"), -1, A_NORMAL);
    set_role(u, UI_KEY, A_BOLD, -1, -1, A_BOLD);
    set_role(u, UI_MSG, A_BOLD, ansi(u, 2, "5faf5f"), -1, A_BOLD);
    set_role(u, UI_ERROR, A_BOLD, ansi(u, 9, "ff5f5f"), -1, A_BOLD | A_UNDERLINE);
    set_role(u, UI_AXIS, A_NORMAL, -1, -1, A_NORMAL);
    set_role(u, UI_AXIS_SEL, A_REVERSE | A_BOLD, -1, -1, A_REVERSE | A_BOLD);
    set_role(u, UI_NAN, A_BOLD, ansi(u, 15, "ffffff"), ansi(u, 5, "af00d7"), A_REVERSE | A_BOLD);
    set_role(u, UI_PINF, A_BOLD, ansi(u, 0, "000000"), ansi(u, 10, "5fff00"), A_REVERSE | A_BOLD);
    set_role(u, UI_NINF, A_BOLD, ansi(u, 0, "000000"), ansi(u, 14, "00ffff"), A_REVERSE | A_BOLD);
    set_role(u, UI_MATCH, A_BOLD | A_UNDERLINE, ansi(u, 3, "d7af00"), -1, A_BOLD | A_UNDERLINE);
    set_role(u, UI_PROMPT, A_BOLD, -1, -1, A_BOLD);
    set_role(u, UI_DIM, A_NORMAL, ansi(u, 8, "808080"), -1, A_DIM);
    set_role(u, UI_OK, A_NORMAL, ansi(u, 2, "5faf5f"), -1, A_NORMAL);
    set_role(u, UI_WARN, A_BOLD, ansi(u, 3, "d7af00"), -1, A_BOLD);
    set_role(u, UI_BAD, A_BOLD, ansi(u, 1, "d70000"), -1, A_BOLD | A_UNDERLINE);
    /* black on orange: apart from NaN (magenta), +Inf (green), -Inf (cyan) and the gradient */
    set_role(u, UI_ANOMALY, A_BOLD, ansi(u, 0, "000000"),
             u->ncolors >= 256 && !u->truecolor ? palette_xterm256(hex("ff8700")) : ansi(u, 11, "ff8700"),
             A_REVERSE | A_BOLD | A_UNDERLINE);
    for (int i = 0; i < UI_NSERIES; i++) {
        int fg = u->truecolor ? ui_color(u, hex(series_rgb_hex[i]))
               : u->ncolors >= 256 ? palette_xterm256(hex(series_rgb_hex[i]))
               : series_ansi[i];
        set_role(u, UI_SERIES0 + i, A_NORMAL, fg, -1, A_NORMAL);
    }
}

/* Tries a direct-colour description of the same family ("xterm" ->
 * "xterm-direct") for truecolor; NULL when there is none. */
static SCREEN *try_direct(void) {
    const char *term = getenv("TERM");
    char name[128];
    if (!term || !term[0] || strstr(term, "direct")) return NULL;
    size_t n = strcspn(term, "-");
    snprintf(name, sizeof name, "%.*s-direct", (int)n, term);
    /* setupterm reports failure without printing or exiting. */
    int e = 0;
    if (setupterm(name, STDOUT_FILENO, &e) != OK) return NULL;
    int colors = tigetnum("colors");
    del_curterm(cur_term);
    if (colors < 0x1000000) return NULL;
    return newterm(name, stdout, stdin);
}

int ui_can_start(struct pt_error *err) {
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return pt_errorf(err, "the analyzer needs a terminal (stdin and stdout must be a tty)");
    const char *term = getenv("TERM");
    if (!term || !term[0] || !strcmp(term, "dumb"))
        return pt_errorf(err, "TERM is %s: the analyzer needs a terminal that can move the cursor",
                         term && term[0] ? term : "not set");
    return 0;
}

/* The off-screen screen of ui_opts.rows (see there). */
static int start_headless(struct ui *u, const struct ui_opts *o, struct pt_error *err) {
    if (o->rows < 2 || o->cols < 10 || o->rows > 1000 || o->cols > 1000)
        return pt_errorf(err, "a screen of %dx%d: 10x2 to 1000x1000 cells", o->cols, o->rows);
    u->null_out = fopen("/dev/null", "w");
    u->null_in = fopen("/dev/null", "r");
    if (!u->null_out || !u->null_in) goto fail;
    u->scr = newterm("xterm-256color", u->null_out, u->null_in);
    if (!u->scr) goto fail;
    set_term(u->scr);
    u->headless = u->started = 1;
    resize_term(o->rows, o->cols);
    cbreak();
    noecho();
    nonl();
    curs_set(0);
    leaveok(stdscr, TRUE);
    int tcolors = 0;
    if (has_colors() && start_color() == OK) {
        use_default_colors();
        tcolors = COLORS;
    }
    u->ncolors = ui_pick_colors(getenv("NO_COLOR"), NULL, tcolors);
    u->truecolor = 0;
    u->steps = palette_steps_for(u->ncolors);
    u->next_pair = 1;
    make_roles(u);
    return 0;
fail:
    if (u->null_out) fclose(u->null_out);
    if (u->null_in) fclose(u->null_in);
    u->null_out = u->null_in = NULL;
    return pt_errorf(err, "cannot start an off-screen xterm-256color screen (is its terminfo entry installed?)");
}

int ui_start(struct ui *u, const struct ui_opts *o, struct pt_error *err) {
    memset(u, 0, sizeof *u);
    setlocale(LC_ALL, "");
    u->utf8 = !o->ascii && ui_codeset_utf8(nl_langinfo(CODESET));
    if (o->rows > 0) return start_headless(u, o, err);
    if (ui_can_start(err) < 0) return -1;
    const char *term = getenv("TERM");
    /* Esc must not wait a second to be told apart from an escape sequence. */
    if (!getenv("ESCDELAY")) set_escdelay(25);
    u->scr = NULL;
    if (wants_truecolor()) u->scr = try_direct();
    if (!u->scr) u->scr = newterm(NULL, stdout, stdin);
    if (!u->scr) return pt_errorf(err, "cannot start the terminal '%s' (is its terminfo entry installed?)", term);
    set_term(u->scr);
    u->started = 1;
    active_ui = u;

    restore_len = 0;
    add_raw("\033[?1006l\033[?1000l\033[?1002l");
    add_cap("rmkx");
    add_cap("sgr0");
    add_cap("cnorm");
    add_cap("rmcup");

    cbreak();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    curs_set(0);
    leaveok(stdscr, TRUE);

    int tcolors = 0;
    if (has_colors() && start_color() == OK) {
        use_default_colors();
        tcolors = COLORS;
    }
    u->ncolors = ui_pick_colors(getenv("NO_COLOR"), getenv("COLORTERM"), tcolors);
    u->truecolor = u->ncolors >= 0x1000000;
    u->steps = palette_steps_for(u->ncolors);
    u->next_pair = 1;
    make_roles(u);

    if (!o->no_mouse) {
        mousemask(BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
        mouseinterval(0);   /* clicks are made from press and release in ui_getkey */
        u->mouse = 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    struct sigaction wa;
    memset(&wa, 0, sizeof wa);
    wa.sa_handler = on_winch;
    sigemptyset(&wa.sa_mask);
    wa.sa_flags = SA_RESTART;
    sigaction(SIGWINCH, &wa, &curses_winch);
    sa.sa_handler = on_fatal;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    sigaction(SIGFPE, &sa, NULL);
    sigaction(SIGILL, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    static int registered;
    if (!registered) { atexit(at_exit); registered = 1; }
    return 0;
}

void ui_stop(struct ui *u) {
    if (!u || !u->started) return;
    u->started = 0;
    if (u->headless) {
        endwin();
        delscreen(u->scr);
        u->scr = NULL;
        fclose(u->null_out);
        fclose(u->null_in);
        u->null_out = u->null_in = NULL;
        return;
    }
    if (u->mouse) mousemask(0, NULL);
    curs_set(1);
    /* tmux, when the window grew while the alternate screen was up, carries
     * one of its rows onto the normal screen on the way out, unless the
     * alternate screen is blank and the cursor at its top.  So leave it
     * like that first; endwin() then moves to the bottom and leaves again,
     * which with xterm's ?1049 (DECRC on the normal screen) only restores
     * the cursor saved on entry.  Other rmcup strings (a clear, ?47) would
     * not be harmless twice: those terminals keep endwin()'s one. */
    char *rmcup = tigetstr((char *)"rmcup");
    if (rmcup && rmcup != (char *)-1 && strstr(rmcup, "\033[?1049l")) {
        wclear(stdscr);
        leaveok(stdscr, FALSE);
        wmove(stdscr, 0, 0);
        wrefresh(stdscr);
        putp(rmcup);
        fflush(stdout);
    }
    endwin();
    delscreen(u->scr);
    u->scr = NULL;
    restore_len = 0;
    if (active_ui == u) active_ui = NULL;
    sigaction(SIGWINCH, &curses_winch, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}

int ui_clipboard(struct ui *u, const char *text) {
    size_t n = strlen(text);
    if (!u->started || !u->scr || u->headless || n > UI_CLIPBOARD_MAX) return -1;
    char *b = malloc(4 * ((n + 2) / 3) + 1);
    if (!b) return -1;
    text_base64(text, n, b, 4 * ((n + 2) / 3) + 1);
    /* after curses' own output, so it cannot split one of its sequences */
    fflush(stdout);
    printf("\033]52;c;%s\a", b);
    fflush(stdout);
    free(b);
    return 0;
}

const char *ui_glyph_focus(const struct ui *u) { return u->utf8 ? "\xe2\x96\xb6" : ">"; }
const char *ui_glyph_vline(const struct ui *u) { return u->utf8 ? "\xe2\x94\x82" : "|"; }
const char *ui_glyph_hline(const struct ui *u) { return u->utf8 ? "\xe2\x94\x80" : "-"; }
const char *ui_glyph_sep(const struct ui *u) { return u->utf8 ? " \xc2\xb7 " : " | "; }

int ui_put(WINDOW *w, int y, int x, int width, const char *s) {
    /* Never reach past the right edge: curses would wrap to the next line. */
    int room = getmaxx(w) - x;
    if (width > room) width = room;
    if (width <= 0 || !s || y < 0 || y >= getmaxy(w) || x < 0) return 0;
    int cols = 0;
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (p[i] && cols < width) {
        i++;
        while ((p[i] & 0xc0) == 0x80) i++;
        cols++;
    }
    if (i) mvwaddnstr(w, y, x, s, (int)i);
    return cols;
}

void ui_fill(WINDOW *w, int y, int x, int width) {
    static const char spaces[] = "                                                                ";
    int room = getmaxx(w) - x;
    if (width > room) width = room;
    if (width <= 0 || y < 0 || y >= getmaxy(w) || x < 0) return;
    wmove(w, y, x);
    while (width > 0) {
        int n = width < 64 ? width : 64;
        waddnstr(w, spaces, n);
        width -= n;
    }
}
