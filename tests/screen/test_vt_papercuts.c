/* test_vt_papercuts: the paper cuts a first user meets (issue 11, "Things
 * a user meets"), each as the user met it: keys typed during a load, a
 * rank that does not load, the help's legend, keys with one meaning, the
 * small ones, and the screen left behind after the terminal grew.  Every
 * wait is followed by a check of what it waited for. */
#include "pt_test.h"
#include "screen/vt.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

__attribute__((unused)) static bool status_has(struct vt *vt, const char *text) {
    return vt_row_has(vt, vt_status_row(vt), text) || (vt->rows >= 12 && vt_row_has(vt, vt->rows - 1, text));
}

static bool status_is(struct vt *vt, const char *text) {
    return !strcmp(vt_row_text(vt, vt_status_row(vt)), text);
}

static void quit(struct vt *vt) {
    vt_send(vt, "q");
    int st = -1;
    CHECK_INT(vt_wait_exit(vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char why[256] = "";
    bool ok = vt_restored(vt, why, sizeof why);
    if (!ok) fprintf(stderr, "   not restored: %s\n", why);
    CHECK(ok);
}

/* A generated problem / benchmark pair (gen_dump.py) of `steps` steps and
 * `ranks` ranks under PT_TMP/name; p and b get the two paths.  0, or -1
 * when python or the generator are missing. */
static int gen_pair(const char *name, int steps, int ranks, char *p, char *b, size_t size) {
    const char *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!py || !py[0] || !s) return -1;
    const char *dir = pt_tmpdir(name);
    if (!dir) return -1;
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "G='--steps %d --ranks %d --layers 2 --hidden 64 --heads 4 --ffn 128 --seq 8 --vocab 64 --quiet'; "
             "'%s' '%s/tools/gen_dump.py' --out '%s/b' $G >/dev/null 2>&1 && "
             "'%s' '%s/tools/gen_dump.py' --out '%s/p' $G --drift 1.5:layers.1.mlp >/dev/null 2>&1",
             steps, ranks, py, s, dir, py, s, dir);
    if (system(cmd) != 0) return -1;
    snprintf(p, size, "%s/p", dir);
    snprintf(b, size, "%s/b", dir);
    return 0;
}

/* 3: `)))jjj` in one write is three steps on and three rows down, and no
 * stale "loading step..." stays behind (7). */
static void test_keys_queued(void) {
    char p[1200], b[1200], row3[2048];
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (gen_pair("keys_queued", 4, 1, p, b, sizeof p) < 0) SKIP("no python or shared tools");
    const char *args[] = {p, b, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 40, args, NULL), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 1, "matched"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 0") && vt_row_has(&vt, 1, "matched"));
    char root[2048];
    snprintf(root, sizeof root, "%s", vt_row_text(&vt, vt_status_row(&vt)));
    /* what three rows down from the root is, on step 0 */
    vt_send(&vt, "jjj");
    VT_WAIT(&vt, !status_is(&vt, root));
    CHECKV(&vt, !status_is(&vt, root));
    snprintf(row3, sizeof row3, "%s", vt_row_text(&vt, vt_status_row(&vt)));
    vt_send(&vt, "g");
    VT_WAIT(&vt, status_is(&vt, root));
    CHECKV(&vt, status_is(&vt, root));
    /* one write: three steps on, three rows down */
    vt_send(&vt, ")))jjj");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 3") && status_is(&vt, row3));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 3") && status_is(&vt, row3));
    /* the load is over: no "loading step 3 rank 0..." left */
    CHECKV(&vt, !vt_has(&vt, "loading"));
    /* one step back: the message goes when the graph is there */
    vt_send(&vt, "(");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 2") && !vt_has(&vt, "loading"));
    CHECKV(&vt, vt_row_has(&vt, 0, "step 2") && !vt_has(&vt, "loading"));
    quit(&vt);
    vt_close(&vt);
}

int main(void) {
    RUN(test_keys_queued);
    PT_DONE();
}
