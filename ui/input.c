/* input: curses keys and mouse events -> ui/keys.h codes. */
#include "ui/keys.h"
#include "ui/ui.h"

#include <errno.h>
#include <wchar.h>

static int map_key(int k) {
    switch (k) {
    case KEY_UP: return UK_UP;
    case KEY_DOWN: return UK_DOWN;
    case KEY_LEFT: return UK_LEFT;
    case KEY_RIGHT: return UK_RIGHT;
    case KEY_PPAGE: return UK_PGUP;
    case KEY_NPAGE: return UK_PGDN;
    case KEY_HOME: case KEY_A1: return UK_HOME;
    case KEY_END: case KEY_C1: case KEY_LL: return UK_END;
    case KEY_IC: return UK_INSERT;
    case KEY_DC: return UK_DELETE;
    case KEY_BTAB: return UK_BTAB;
    case KEY_SR: return UK_SUP;
    case KEY_SF: return UK_SDOWN;
    case KEY_SLEFT: return UK_SLEFT;
    case KEY_SRIGHT: return UK_SRIGHT;
    case KEY_ENTER: return UK_ENTER;
    case KEY_BACKSPACE: return UK_BACKSPACE;
    case KEY_RESIZE: return UK_RESIZE;
    case KEY_MOUSE: return UK_MOUSE;
    default: break;
    }
    if (k >= KEY_F(1) && k <= KEY_F(12)) return UK_F1 + (k - KEY_F(1));
    return UK_NONE;
}

int ui_getkey(struct ui *u, WINDOW *w, int timeout_ms, int *my, int *mx, int *mbutton) {
    wint_t ch;
    (void)u;
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
        return UK_RESIZE;
    }
    if (r == ERR) return UK_NONE;
    if (r == KEY_CODE_YES) {
        int k = map_key((int)ch);
        if (k == UK_MOUSE) {
            MEVENT ev;
            if (getmouse(&ev) != OK) return UK_NONE;
            *my = ev.y;
            *mx = ev.x;
            if (ev.bstate & BUTTON1_DOUBLE_CLICKED) *mbutton = 2;
            else if (ev.bstate & BUTTON1_CLICKED) *mbutton = 1;
            else if (ev.bstate & BUTTON4_PRESSED) *mbutton = 4;
            else if (ev.bstate & BUTTON5_PRESSED) *mbutton = 5;
            else return UK_NONE;
        }
        return k;
    }
    if (ch == '\n' || ch == '\r') return UK_ENTER;
    if (ch == 0x08) return UK_BACKSPACE;
    return (int)ch;
}
