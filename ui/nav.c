/* nav: the shared navigation key set (see ui/nav.h). */
#include "ui/nav.h"

#include "ui/keys.h"

int nav_of_key(int code) {
    switch (code) {
    case KEYS_UP: return NAV_UP;
    case KEYS_DOWN: return NAV_DOWN;
    case KEYS_PGUP: return NAV_PGUP;
    case KEYS_PGDN: return NAV_PGDN;
    case KEYS_CTRL('u'): return NAV_HALFUP;
    case KEYS_CTRL('d'): return NAV_HALFDN;
    case 'g': case KEYS_HOME: return NAV_TOP;
    case 'G': case KEYS_END: return NAV_BOTTOM;
    default: return NAV_NONE;
    }
}

long nav_delta(int move, long page) {
    if (page < 1) page = 1;
    long half = page / 2 ? page / 2 : 1;
    switch (move) {
    case NAV_UP: return -1;
    case NAV_DOWN: return 1;
    case NAV_PGUP: return -page;
    case NAV_PGDN: return page;
    case NAV_HALFUP: return -half;
    case NAV_HALFDN: return half;
    default: return 0;
    }
}

long nav_target(int move, long cur, long n, long page) {
    if (n <= 0) return 0;
    long to = move == NAV_TOP ? 0 : move == NAV_BOTTOM ? n - 1 : cur + nav_delta(move, page);
    if (to >= n) to = n - 1;
    if (to < 0) to = 0;
    return to;
}

int nav_move_of(const int *actions, int action) {
    if (action <= 0) return NAV_NONE;
    for (int m = NAV_NONE + 1; m < NAV_COUNT; m++)
        if (actions[m] == action) return m;
    return NAV_NONE;
}

const char *nav_help(int move) {
    static const char *const help[NAV_COUNT] = {
        [NAV_UP] = "up", [NAV_DOWN] = "down", [NAV_PGUP] = "page up", [NAV_PGDN] = "page down",
        [NAV_HALFUP] = "half a page up", [NAV_HALFDN] = "half a page down", [NAV_TOP] = "top",
        [NAV_BOTTOM] = "bottom",
    };
    return move > NAV_NONE && move < NAV_COUNT ? help[move] : "";
}
