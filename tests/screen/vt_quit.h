/* vt_quit.h: the screen tests' way out: q quits with status 0 and leaves the
 * terminal as it found it (the alternate screen left, the cursor shown).
 * Include after pt_test.h and screen/vt.h. */
#ifndef PT_VT_QUIT_H
#define PT_VT_QUIT_H

#include <sys/wait.h>

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

#endif
