/* test_vt_nav: the shared navigation keys (ui/nav.h) mean the same in two
 * panes: Ctrl-D scrolls half a page and Ctrl-U back, in the help screen
 * (where Ctrl-D paged before) and in the layout pane (where it half-paged).
 *
 * The pane's scroll is read off the screen: after a move of d rows, row y
 * shows what row y + d showed before.  The page is measured the same way
 * (PgDn after Ctrl-D), so no pane height is written here.  Every wait is
 * followed by an assertion of its condition. */
#include "pt_test.h"
#include "screen/vt.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)
#define WAIT_CHECK(vt, cond) do { VT_WAIT(vt, cond); CHECKV(vt, cond); } while (0)

enum { ROWS = 24, COLS = 80 };
struct shot { char row[ROWS][512]; };

static void take(struct vt *vt, struct shot *s) {
    for (int y = 0; y < ROWS; y++) snprintf(s->row[y], sizeof s->row[y], "%s", vt_row_text(vt, y));
}

static int same_screen(struct vt *vt, const struct shot *s) {
    for (int y = 0; y < ROWS; y++)
        if (strcmp(vt_row_text(vt, y), s->row[y])) return 0;
    return 1;
}

/* The scroll d > 0 with b.row[y] == a.row[y + d] for every y of the body
 * [lo, hi) that has a row below it in a; -1 when no d fits (needs at least
 * two rows of overlap, and the rows compared must not all be blank). */
static int scrolled_by(const struct shot *a, const struct shot *b, int lo, int hi) {
    for (int d = 1; d <= hi - lo - 2; d++) {
        int ok = 1, text = 0;
        for (int y = lo; y + d < hi && ok; y++) {
            ok = !strcmp(b->row[y], a->row[y + d]);
            text += b->row[y][0] != '\0';
        }
        if (ok && text >= 2) return d;
    }
    return -1;
}

/* Ctrl-D, Ctrl-U, PgDn: the half and the page of one pane. */
static void half_page(struct vt *vt, int lo, int hi, const char *pane) {
    struct shot s0, s1, p;
    take(vt, &s0);
    vt_send(vt, "<C-d>");
    WAIT_CHECK(vt, !same_screen(vt, &s0));
    take(vt, &s1);
    int half = scrolled_by(&s0, &s1, lo, hi);
    vt_send(vt, "<C-u>");
    WAIT_CHECK(vt, same_screen(vt, &s0));             /* back where it was */
    vt_send(vt, "<PgDn>");
    WAIT_CHECK(vt, !same_screen(vt, &s0) && !same_screen(vt, &s1));
    take(vt, &p);
    int rest = scrolled_by(&s1, &p, lo, hi);   /* the page beyond the half */
    if (rest < 0) vt_dump(vt, stderr);
    int page = half + rest;
    fprintf(stderr, "%s: Ctrl-D %d rows, PgDn %d rows\n", pane, half, page);
    CHECK(half > 1 && rest > 0);
    CHECK_INT(half, page / 2);                        /* half a page, as nav_delta says */
}

static void test_half_page_two_panes(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    /* 128 TP groups: the layout pane scrolls at 80x24 */
    const char *args[] = {"--demo=trend", "--parallel", "W=1024 L=96 TP=8 PP=8 V=1", NULL};
    CHECK_INT(vt_spawn_app(&vt, COLS, ROWS, args, NULL), 0);
    WAIT_CHECK(&vt, vt_has(&vt, "Heat map"));

    /* the layout pane: its body is the rows between the header and the legend */
    vt_send(&vt, "<F5>");
    WAIT_CHECK(&vt, vt_has(&vt, "Group0: Rank0-7 "));
    int head = -1, legend = -1;
    CHECKV(&vt, vt_find(&vt, "TP Group", &head, NULL) && vt_find(&vt, "Model Copies:", &legend, NULL));
    half_page(&vt, head + 1, legend, "layout");

    /* the help screen: its text scrolls between the title (rows 0-1) and the
     * status lines (the last two) */
    vt_send(&vt, "?");
    WAIT_CHECK(&vt, vt_has(&vt, "Everywhere"));
    WAIT_CHECK(&vt, vt_row_has(&vt, 2, "Everywhere"));
    half_page(&vt, 2, ROWS - 2, "help");

    vt_send(&vt, "q");
    WAIT_CHECK(&vt, !vt_has(&vt, "Everywhere"));
    vt_send(&vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    vt_close(&vt);
}

int main(void) {
    RUN(test_half_page_two_panes);
    PT_DONE();
}
