/* test_vt_exits: the binary in a terminal outside the happy path: --help and
 * --version print and exit without touching the screen modes, an unreadable
 * PATH says why and exits 2 with the terminal as it was, and Ctrl-C and
 * SIGTERM in the running TUI restore the terminal (a user is never left
 * with a terminal in curses modes, whatever ends the program). */
#include "pt_test.h"
#include "screen/vt.h"

#include <signal.h>
#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static void restored(struct vt *vt) {
    char why[512];
    bool ok = vt_restored(vt, why, sizeof why);
    CHECK(ok);
    if (!ok) fprintf(stderr, "left behind: %s\n", why);
}

static void test_help(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--help", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 50, args, NULL), 0);
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECKV(&vt, vt_find(&vt, "usage: probetop", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "--demo=trend", NULL, NULL));
    CHECK_INT(vt_mode(&vt, 1049), -1);        /* never went full-screen */
    restored(&vt);
    vt_close(&vt);

    const char *v[] = { "--version", NULL };
    CHECK_INT(vt_spawn_app(&vt, 80, 10, v, NULL), 0);
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECKV(&vt, vt_find(&vt, "probetop ", NULL, NULL));
    restored(&vt);
    vt_close(&vt);
}

static void test_bad_path(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "/nonexistent/probetop-test-dir", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 24, args, NULL), 0);
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    /* The message names the path and is on the normal screen, readable
     * after the program is gone. */
    CHECKV(&vt, vt_find(&vt, "/nonexistent/probetop-test-dir", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "probetop:", NULL, NULL));
    restored(&vt);
    vt_close(&vt);
}

static void test_dumb_terminal(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", NULL }, *env[] = { "TERM=dumb", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, env), 0);
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    CHECKV(&vt, vt_find(&vt, "TERM", NULL, NULL));
    restored(&vt);
    vt_close(&vt);
}

/* The TUI up, then ended by keys or a signal: the terminal comes back. */
static void ended_by(const char *keys, int sig, int want_status) {
    const char *args[] = { "--demo=trend", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    CHECK(vt.altscreen && vt.mouse_mode != 0);
    /* Mid-way through a command, with the prompt open. */
    vt_send(&vt, ":ste");
    VT_WAIT(&vt, vt_find(&vt, ":ste", NULL, NULL));
    if (keys) vt_send(&vt, keys);
    if (sig) kill(vt.pid, sig);
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st));
    if (WIFEXITED(st)) CHECK_INT(WEXITSTATUS(st), want_status);
    restored(&vt);
    vt_close(&vt);
}

static void test_ctrl_c(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    ended_by("<C-c>", 0, 128 + SIGINT);
}

static void test_sigterm(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    ended_by(NULL, SIGTERM, 128 + SIGTERM);
}

static void test_sighup(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    ended_by(NULL, SIGHUP, 128 + SIGHUP);
}

static void test_colon_q(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    ended_by("<BS><BS><BS>q<Enter>", 0, 0);
}

int main(void) {
    RUN(test_help);
    RUN(test_bad_path);
    RUN(test_dumb_terminal);
    RUN(test_ctrl_c);
    RUN(test_sigterm);
    RUN(test_sighup);
    RUN(test_colon_q);
    PT_DONE();
}
