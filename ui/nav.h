/* nav: the one navigation key set every pane shares.
 *
 * Up/Down move one row, PgUp/PgDn a page, C-u/C-d half a page, g/Home to
 * the top and G/End to the bottom, in every pane (a pane may add its own
 * keys, such as j/k or Space, but never gives these another meaning).  A
 * pane's key function turns the key into a move with nav_of_key() and the
 * move into its new row with nav_target(); the pane's key table lists the
 * keys with nav_help()'s words, so the help and the man page say the same. */
#ifndef PT_UI_NAV_H
#define PT_UI_NAV_H

enum nav_move { NAV_NONE = 0, NAV_UP, NAV_DOWN, NAV_PGUP, NAV_PGDN, NAV_HALFUP, NAV_HALFDN, NAV_TOP, NAV_BOTTOM,
                NAV_COUNT };

/* The move of a key code (ui/keys.h); NAV_NONE for any other key. */
int nav_of_key(int code);

/* Rows a move goes by on a page of `page` rows (page < 1 counts as 1):
 * -1/+1, -page/+page, half a page (at least 1); 0 for top, bottom, none. */
long nav_delta(int move, long page);

/* The row after `move` from row cur in a list of n rows, clamped to
 * [0, n - 1] (0 for an empty list). */
long nav_target(int move, long cur, long n, long page);

/* A pane names the moves with its own action ids in a table actions[NAV_COUNT]
 * (0 where it has none); this is the move of one of those ids, NAV_NONE for
 * any other, so j/k, Space or the mouse reach the same arithmetic. */
int nav_move_of(const int *actions, int action);

/* The help text of a move: "page down", "half a page down", "top"... */
const char *nav_help(int move);

#endif
