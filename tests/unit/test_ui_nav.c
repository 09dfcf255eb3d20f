/* The shared navigation key set (ui/nav.h): the key -> move mapping, the
 * arithmetic of each move, and that every pane binds the set with the same
 * meaning (C-u/C-d half a page, PgUp/PgDn a page) in its key table. */
#include "pt_test.h"
#include "src/app/app_state.h"
#include "ui/keys.h"
#include "ui/nav.h"

static void mapping(void) {
    CHECK_INT(nav_of_key(KEYS_UP), NAV_UP);
    CHECK_INT(nav_of_key(KEYS_DOWN), NAV_DOWN);
    CHECK_INT(nav_of_key(KEYS_PGUP), NAV_PGUP);
    CHECK_INT(nav_of_key(KEYS_PGDN), NAV_PGDN);
    CHECK_INT(nav_of_key(KEYS_CTRL('u')), NAV_HALFUP);
    CHECK_INT(nav_of_key(KEYS_CTRL('d')), NAV_HALFDN);
    CHECK_INT(nav_of_key('g'), NAV_TOP);
    CHECK_INT(nav_of_key(KEYS_HOME), NAV_TOP);
    CHECK_INT(nav_of_key('G'), NAV_BOTTOM);
    CHECK_INT(nav_of_key(KEYS_END), NAV_BOTTOM);
    /* pane keys of their own are not part of the set */
    CHECK_INT(nav_of_key('j'), NAV_NONE);
    CHECK_INT(nav_of_key(' '), NAV_NONE);
    CHECK_INT(nav_of_key(0), NAV_NONE);
    CHECK_STR(nav_help(NAV_HALFDN), "half a page down");
    CHECK_STR(nav_help(NAV_NONE), "");
}

static void arithmetic(void) {
    CHECK_INT(nav_delta(NAV_DOWN, 20), 1);
    CHECK_INT(nav_delta(NAV_UP, 20), -1);
    CHECK_INT(nav_delta(NAV_PGDN, 20), 20);
    CHECK_INT(nav_delta(NAV_PGUP, 20), -20);
    CHECK_INT(nav_delta(NAV_HALFDN, 20), 10);
    CHECK_INT(nav_delta(NAV_HALFUP, 21), -10);
    CHECK_INT(nav_delta(NAV_HALFDN, 1), 1);      /* at least one row */
    CHECK_INT(nav_delta(NAV_PGDN, 0), 1);        /* a page is at least one row */
    CHECK_INT(nav_delta(NAV_TOP, 20), 0);
    CHECK_INT(nav_target(NAV_HALFDN, 5, 100, 20), 15);
    CHECK_INT(nav_target(NAV_HALFDN, 95, 100, 20), 99);   /* clamped at the end */
    CHECK_INT(nav_target(NAV_HALFUP, 3, 100, 20), 0);
    CHECK_INT(nav_target(NAV_BOTTOM, 3, 100, 20), 99);
    CHECK_INT(nav_target(NAV_TOP, 50, 100, 20), 0);
    CHECK_INT(nav_target(NAV_DOWN, 0, 0, 20), 0);         /* an empty list */
    const int acts[NAV_COUNT] = {[NAV_UP] = 7, [NAV_HALFDN] = 3};
    CHECK_INT(nav_move_of(acts, 3), NAV_HALFDN);
    CHECK_INT(nav_move_of(acts, 7), NAV_UP);
    CHECK_INT(nav_move_of(acts, 5), NAV_NONE);
    CHECK_INT(nav_move_of(acts, 0), NAV_NONE);
}

/* Every pane with a list binds all ten keys; wherever a key of the set is
 * bound, its help says the same kind of move.  The line chart has no list
 * to page: Up/Down pick a legend entry and g/G, Home/End the ends of x;
 * nor have the curves (Up/Down pick a series). */
static void panes_agree(void) {
    static const int set[] = {KEYS_UP, KEYS_DOWN, KEYS_PGUP, KEYS_PGDN, KEYS_CTRL('u'), KEYS_CTRL('d'), 'g', 'G', KEYS_HOME, KEYS_END};
    int checked = 0;
    for (int p = 0; p < app_npanes; p++) {
        const struct view_ops *o = app_panes[p].ops;
        if (!o->nkeys) continue;
        int list = strcmp(o->name, "linechart") != 0 && strcmp(o->name, "curves") != 0;
        for (size_t k = 0; k < sizeof set / sizeof set[0]; k++) {
            const struct keys_row *r = keys_find(o->keys, o->nkeys, set[k]);
            if (!r) {
                if (list) { fprintf(stderr, "pane %s: key %d of the navigation set unbound\n", o->name, set[k]); CHECK(0); }
                continue;
            }
            int mv = nav_of_key(set[k]);
            if (mv == NAV_PGUP || mv == NAV_PGDN || mv == NAV_HALFUP || mv == NAV_HALFDN) {
                if (!r->help || !strstr(r->help, nav_help(mv))) {
                    fprintf(stderr, "pane %s: key %d says \"%s\", not \"%s\"\n", o->name, set[k],
                            r->help ? r->help : "", nav_help(mv));
                    CHECK(0);
                }
                /* half a page is never a page: C-d is not PgDn's action */
                if (mv == NAV_HALFDN) CHECK(r->action != keys_find(o->keys, o->nkeys, KEYS_PGDN)->action);
                if (mv == NAV_HALFUP) CHECK(r->action != keys_find(o->keys, o->nkeys, KEYS_PGUP)->action);
            }
            checked++;
        }
    }
    CHECK(checked >= 80);   /* the panes were found */
}

int main(void) {
    RUN(mapping);
    RUN(arithmetic);
    RUN(panes_agree);
    PT_DONE();
}
