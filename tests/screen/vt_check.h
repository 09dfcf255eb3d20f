/* vt_check.h: checks the screen tests share.  Include after pt_test.h and
 * screen/vt.h. */
#ifndef PT_VT_CHECK_H
#define PT_VT_CHECK_H

#include <sys/wait.h>

/* The way out: q quits with status 0 and leaves the terminal as it found
 * it (the alternate screen left, the cursor shown); closes vt. */
static inline void pt_vt_quit(struct vt *vt) {
    vt_send(vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char why[512];
    bool ok = vt_restored(vt, why, sizeof why);
    CHECK(ok);
    if (!ok) fprintf(stderr, "q left behind: %s\n", why);
    vt_close(vt);
}

/* The tree row (left of the detail pane's rule) showing text, -1 none. */
static inline int pt_vt_tree_row(struct vt *vt, const char *text) {
    for (int r = 2; r < vt_status_row(vt); r++) {
        const char *t = vt_row_text(vt, r);
        const char *hit = strstr(t, text), *rule = strstr(t, "\xe2\x94\x82");
        if (hit && (!rule || hit < rule)) return r;
    }
    return -1;
}

/* Cells whose foreground or background is not the terminal's default. */
static inline int pt_vt_coloured_cells(struct vt *vt) {
    int coloured = 0;
    for (int r = 0; r < vt->rows; r++)
        for (int c = 0; c < vt->cols; c++) {
            struct vt_cell x;
            vt_cell(vt, r, c, &x);
            if (!x.fg_default || !x.bg_default) coloured++;
        }
    return coloured;
}

#endif
