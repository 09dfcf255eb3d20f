/* test_vt_origin: the overflow pane names the origin rank
 * (probetop-rules(7), ORIGIN ACROSS RANKS) once the background search has found it: on a wide terminal
 * the status line ends with "origin: step S rank R #P NAME, N other
 * ranks reached"; at 80 columns, where it would push the entry and the key
 * hints off the line, it is left out.  The data: tests/gen_origin.py's p2p
 * scenario (a NaN born on rank 0, received by rank 1 through send/recv). */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>
#include <unistd.h>

static char gen_path[4096];

static int make_data(char *dir, size_t size) {
    const char *py = getenv("PT_PYTHON");
    const char *d = pt_tmpdir("vt_origin");
    if (!py || !*py || !d) return -1;
    snprintf(dir, size, "%s/p2p", d);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --out '%s' p2p", py, gen_path, dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void run_at(const char *dir, int cols, int shown) {
    struct vt vt;
    const char *args[] = {dir, NULL};
    CHECK_INT(vt_spawn_app(&vt, cols, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    vt_send(&vt, "<F3>");
    const char *want = "origin: step 0 rank 0 #11 Functional.gelu.0.forward, 1 other rank reached";
    int r = vt_status_row(&vt);
    if (shown) {
        VT_WAIT(&vt, vt_row_has(&vt, r, want));
        bool ok = vt_row_has(&vt, r, want) && vt_row_has(&vt, r, " step 0 rank ");   /* the entry stays first */
        CHECK(ok);
        if (!ok) vt_dump(&vt, stderr);
    } else {
        /* the entry's own status; then, once the search has found the
         * origin (the pane heads its list with it: probetop-rules(7),
         * ORIGIN ACROSS RANKS), still no origin on the line */
        VT_WAIT(&vt, vt_row_has(&vt, r, " step 0 rank "));
        CHECK(vt_row_has(&vt, r, " step 0 rank "));
        VT_WAIT(&vt, vt_has(&vt, "origin, where the NaN/Inf was born"));
        CHECK(vt_has(&vt, "origin, where the NaN/Inf was born"));
        vt_send(&vt, "j");
        vt_settle(&vt);
        CHECK(vt_row_has(&vt, r, " step 0 rank ") && !vt_has(&vt, "origin:"));
    }
    pt_vt_quit(&vt);
}

static void test_origin_status(void) {
    char dir[1200];
    if (make_data(dir, sizeof dir) != 0) SKIP("PT_PYTHON absent or gen_origin.py failed");
    run_at(dir, 200, 1);
    run_at(dir, 80, 0);
}

int main(void) {
    snprintf(gen_path, sizeof gen_path, "%s", __FILE__);
    char *slash = strstr(gen_path, "/screen/test_vt_origin.c");
    if (slash) strcpy(slash, "/gen_origin.py");
    RUN(test_origin_status);
    PT_DONE();
}
