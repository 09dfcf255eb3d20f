/* test_vt_snapshot: `probetop snapshot --demo --svg FILE` (the analyzer
 * drawn headless, no terminal) at 80x24 and 200x60: the picture parses
 * (tests/svg_check.h), is byte for byte the stored one
 * (tests/data/snapshot/), and holds the very text a terminal shows for
 * `probetop --demo` at that size once the run is compared (libvterm's
 * screen written by vt_svg, read back by the same parser); options that
 * cannot work are usage errors and leave no file. */
#include "pt_test.h"
#include "screen/vt.h"
#include "svg_check.h"

#include <sys/wait.h>
#include <unistd.h>

static const char *const demo_args[] = { "--demo", NULL };
static const char *const keybar_env[] = { "PROBETOP_KEYBAR", NULL };

/* The snapshot command line, as the terminal test runs the program:
 * C.UTF-8, the key bar shown, colours of the 256-colour screen. */
static int snapshot(const char *size, const char *extra, const char *path) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "env -u LC_ALL -u LC_CTYPE -u NO_COLOR -u PROBETOP_KEYBAR LANG=C.UTF-8 '%s' snapshot --demo"
             " --size %s %s --svg '%s' </dev/null >/dev/null 2>&1", vt_bin(), size, extra, path);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int load(const char *path, struct svg_check *c) {
    char *s = pt_slurp(path);
    memset(c, 0, sizeof *c);
    if (!s) { fprintf(stderr, "   no file %s\n", path); return -1; }
    int rc = svg_check(c, s, strlen(s));
    if (rc) fprintf(stderr, "   %s not well-formed: %s\n", path, c->why);
    free(s);
    return rc;
}

static void one_size(int cols, int rows) {
    if (!vt_bin() || !getenv("PT_SRC")) SKIP("PT_BIN or PT_SRC not set");
    const char *dir = pt_tmpdir("vt_snapshot");
    if (!dir) SKIP("no temporary folder");
    char size[32], path[1200], want[1200], seen[1200];
    snprintf(size, sizeof size, "%dx%d", cols, rows);
    snprintf(path, sizeof path, "%s/demo_%s.svg", dir, size);
    snprintf(want, sizeof want, "%s/tests/data/snapshot/demo_%s.svg", getenv("PT_SRC"), size);
    snprintf(seen, sizeof seen, "%s/terminal_%s.svg", dir, size);
    unlink(path);
    CHECK_INT(snapshot(size, "", path), 0);
    struct svg_check c, t;
    CHECK_INT(load(path, &c), 0);
    char *got = pt_slurp(path), *stored = pt_slurp(want);
    CHECK(got && stored);
    if (got && stored) CHECK_STR(got, stored);
    free(got);
    free(stored);
    /* the terminal's screen of the same program at the same size */
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, demo_args, keybar_env), 0);
    VT_WAIT(&vt, vt_find(&vt, "first error:", NULL, NULL));
    vt_wait_idle(&vt, 300);
    CHECK_INT(vt_svg(&vt, seen, "probetop"), 0);
    CHECK_INT(load(seen, &t), 0);
    if (c.text && t.text) CHECK_STR(c.text, t.text);
    CHECK(c.text && strstr(c.text, "first error:"));
    svg_check_free(&c);
    svg_check_free(&t);
    vt_send(&vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    vt_close(&vt);
}

static void snapshot_80x24(void) { one_size(80, 24); }
static void snapshot_200x60(void) { one_size(200, 60); }

/* Refused before anything is drawn, no file written. */
static void snapshot_usage(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *dir = pt_tmpdir("vt_snapshot_usage");
    if (!dir) SKIP("no temporary folder");
    char path[1200];
    snprintf(path, sizeof path, "%s/x.svg", dir);
    CHECK_INT(snapshot("80x24", "--view nosuchpane", path), 2);
    CHECK(access(path, F_OK) != 0);
    CHECK_INT(snapshot("80x24", "--keys q", path), 2);
    CHECK(access(path, F_OK) != 0);
    CHECK_INT(snapshot("80x24", "--keys '<Nope>'", path), 2);
    CHECK_INT(snapshot("5x5", "", path), 2);
    CHECK(access(path, F_OK) != 0);
    /* a pane and keys: the tree of the first divergence (f) */
    CHECK_INT(snapshot("100x30", "--view summary --keys f", path), 0);
    struct svg_check c;
    CHECK_INT(load(path, &c), 0);
    CHECK(c.text && strstr(c.text, "Functional.linear.6.forward"));
    svg_check_free(&c);
}

int main(void) {
    RUN(snapshot_80x24);
    RUN(snapshot_200x60);
    RUN(snapshot_usage);
    PT_DONE();
}
