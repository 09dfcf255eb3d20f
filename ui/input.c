/* input: curses keys and mouse events -> ui/keys.h codes. */
#include "ui/keys.h"
#include "ui/ui.h"

#include <errno.h>
#include <time.h>
#include <wchar.h>

static int map_key(int k) {
    switch (k) {
    case KEY_UP: return KEYS_UP;
    case KEY_DOWN: return KEYS_DOWN;
    case KEY_LEFT: return KEYS_LEFT;
    case KEY_RIGHT: return KEYS_RIGHT;
    case KEY_PPAGE: return KEYS_PGUP;
    case KEY_NPAGE: return KEYS_PGDN;
    case KEY_HOME: case KEY_A1: return KEYS_HOME;
    case KEY_END: case KEY_C1: case KEY_LL: return KEYS_END;
    case KEY_IC: return KEYS_INSERT;
    case KEY_DC: return KEYS_DELETE;
    case KEY_BTAB: return KEYS_BTAB;
    case KEY_SR: return KEYS_SUP;
    case KEY_SF: return KEYS_SDOWN;
    case KEY_SLEFT: return KEYS_SLEFT;
    case KEY_SRIGHT: return KEYS_SRIGHT;
    case KEY_ENTER: return KEYS_ENTER;
    case KEY_BACKSPACE: return KEYS_BACKSPACE;
    case KEY_RESIZE: return KEYS_RESIZE;
    case KEY_MOUSE: return KEYS_MOUSE;
    default: break;
    }
    if (k >= KEY_F(1) && k <= KEY_F(12)) return KEYS_F1 + (k - KEY_F(1));
    return KEYS_NONE;
}

int ui_getkey(struct ui *u, WINDOW *w, int timeout_ms, int *my, int *mx, int *mbutton) {
    wint_t ch;
    if (!w) w = stdscr;
    wtimeout(w, timeout_ms);
    int r = wget_wch(w, &ch);
    if (ui_winch) {
        /* whatever ncurses concluded, the terminal may have dropped its
         * contents: lay out again and repaint every cell */
        ui_winch = 0;
        clearok(curscr, TRUE);
        if (r == OK && ch != 0) unget_wch(ch);
        else if (r == KEY_CODE_YES && ch != KEY_RESIZE) ungetch((int)ch);
        return KEYS_RESIZE;
    }
    if (r == ERR) return KEYS_NONE;
    if (r == KEY_CODE_YES) {
        int k = map_key((int)ch);
        if (k == KEYS_MOUSE) {
            MEVENT ev;
            if (getmouse(&ev) != OK) return KEYS_NONE;
            *my = ev.y;
            *mx = ev.x;
            if (ev.bstate & BUTTON4_PRESSED) *mbutton = 4;
            else if (ev.bstate & BUTTON5_PRESSED) *mbutton = 5;
            else if (ev.bstate & BUTTON1_PRESSED) {
                u->pressed = 1;
                u->press_y = ev.y;
                u->press_x = ev.x;
                return KEYS_NONE;
            } else if (ev.bstate & BUTTON1_RELEASED) {
                /* a release without its press (ncurses drops the press
                 * when both come in one read) is a click where it is */
                int moved = u->pressed && (ev.y != u->press_y || ev.x != u->press_x);
                u->pressed = 0;
                if (moved) { *mbutton = 8; return k; }
                /* up where it went down: a click; a second one on the same
                 * cell soon after, a double click */
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                double t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
                int dbl = u->click_t > 0 && t - u->click_t < 0.4 && ev.y == u->click_y && ev.x == u->click_x;
                *mbutton = dbl ? 2 : 1;
                u->click_t = dbl ? 0 : t;
                u->click_y = ev.y;
                u->click_x = ev.x;
            } else return KEYS_NONE;
        }
        return k;
    }
    if (ch == '\n' || ch == '\r') return KEYS_ENTER;
    if (ch == 0x08) return KEYS_BACKSPACE;
    return (int)ch;
}
