/* test_vt_demo: `probetop --demo` as a newcomer meets it, at 80x24 and
 * 200x60: the problem/benchmark dump pair (src/io/demo/demo_files.h) opens
 * on the run summary (F7); `f` goes to the first divergence, the NaN born on
 * rank 2 at step 2 in Functional.linear.6.forward; F6 shows its tree and
 * detail; F3 the overflow pane with the origin across ranks; F2 the heat
 * map; F9 the training curves of both runs; F8 the trace's lanes; F5 the
 * Megatron layout the demo sets; and the private folder is gone after q. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *const demo_args[] = {"--demo", NULL};

/* The probetop-demo-* folders under dir. */
static int demo_dirs(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) n += !strncmp(e->d_name, "probetop-demo-", 14);
    closedir(d);
    return n;
}

static void tour_at(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *tmp = pt_tmpdir("tmpdir");
    char env_tmp[1100];
    CHECK(tmp != NULL);
    if (!tmp) return;
    snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmp);
    const char *const env[] = {env_tmp, NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, cols, rows, demo_args, env), 0);
    /* two runs of several (step, rank) pairs: the run summary first (F7) */
    VT_WAIT(&vt, vt_row_has(&vt, 0, "whole run") && vt_has(&vt, "first error: step 2 rank 2 Functional.linear.6.forward"));
    CHECKV(&vt, vt_has(&vt, "4 steps x 8 ranks: 32 pairs"));
    /* the private folder: one, under $TMPDIR */
    CHECK_INT(demo_dirs(tmp), 1);

    /* f: the first divergence's tree, the node selected, its detail beside */
    vt_send(&vt, "f");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 2 · rank 2") && vt_has(&vt, "Detail"));
    int r = pt_vt_tree_row(&vt, "linear.6.forward");
    CHECKV(&vt, r >= 2 && strstr(vt_row_text(&vt, r), "\xe2\x96\xb6"));   /* ▶ the cursor */
    CHECKV(&vt, vt_row_has(&vt, vt.rows - 1, "first divergence: Functional.linear.6.forward"));
    CHECKV(&vt, vt_has(&vt, "benchmark: Functional.linear.6.fo"));
    /* F7 back to the summary, F6 the tree again */
    vt_send(&vt, "<F7>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "whole run"));
    vt_send(&vt, "<F6>");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 2 · rank 2") && pt_vt_tree_row(&vt, "linear.6.forward") >= 2);

    /* F3: the overflow pane, the origin across ranks first: rank 2's linear */
    vt_send(&vt, "<F3>");
    VT_WAIT(&vt, vt_has(&vt, "step 2: origin, where the NaN/Inf was born"));
    int o;
    CHECKV(&vt, vt_find(&vt, "step 2: origin", &o, NULL) && vt_row_has(&vt, o + 1, "Functional.linear.6.forward") &&
                    vt_row_has(&vt, o + 1, "    2 "));
    /* msProbe's anomaly reports listed first, in its first-anomaly order */
    CHECKV(&vt, vt_has(&vt, "msProbe anomaly reports") && vt_has(&vt, "AnomalyTurbule"));

    /* F2: the heat map of the problem run's dump */
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, 0, "forward/norm"));
    CHECKV(&vt, vt_has(&vt, "Line chart"));

    /* F9: the training curves of both runs, drifting apart from step 2 */
    vt_send(&vt, "<F9>");
    VT_WAIT(&vt, vt_has(&vt, "Curves") && vt_has(&vt, "long_term_drift"));
    /* the legend names the runs by role: their logs are both train.log in
     * a problem/ and a bench/ folder (it read "problem dump / bench dump") */
    CHECKV(&vt, vt_has(&vt, "problem = ") && vt_has(&vt, "benchmark = "));
    CHECKV(&vt, !vt_has(&vt, "problem dump") && !vt_has(&vt, "bench dump"));
    vt_send(&vt, "f");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "step 2 "));

    /* F8: the profiler trace's lanes, one a rank */
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_has(&vt, "Lanes") && vt_has(&vt, "8 lanes"));

    /* F5: the Megatron layout the demo sets (--parallel W=8 L=4 TP=2 PP=2) */
    vt_send(&vt, "<F5>");
    VT_WAIT(&vt, vt_has(&vt, "Total Layers: 4") && vt_has(&vt, "TP=2"));

    pt_vt_quit(&vt);
    /* q removed the folder and everything in it */
    CHECK_INT(demo_dirs(tmp), 0);
}

/* The README's pictures of the demo (120x40): the run summary it opens
 * on, and the tree after `f`. */
static void test_shots(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *tmp = pt_tmpdir("shots");
    char env_tmp[1100];
    CHECK(tmp != NULL);
    if (!tmp) return;
    snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmp);
    const char *const env[] = {env_tmp, "PROBETOP_KEYBAR", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 120, 40, demo_args, env), 0);
    VT_WAIT(&vt, vt_row_has(&vt, 0, "whole run") && vt_has(&vt, "first error: step 2 rank 2"));
    vt_settle(&vt);
    CHECK(vt_shot(&vt, "demo-summary", "probetop --demo: the run summary, the first divergence marked * at step 2 rank 2") >= 0);
    vt_send(&vt, "f");
    VT_WAIT(&vt, vt_row_has(&vt, 0, "step 2 · rank 2") && pt_vt_tree_row(&vt, "linear.6.forward") >= 2);
    vt_settle(&vt);
    CHECK(vt_shot(&vt, "demo-tree", "probetop --demo: f, the NaN born in rank 2's mlp.linear_fc1, its detail beside") >= 0);
    pt_vt_quit(&vt);
}

/* SIGTERM (a closed SSH session sends SIGHUP, a scheduler SIGTERM) ends
 * the program with 128 + the signal, and the private folder goes too. */
static void test_sigterm_cleans(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *tmp = pt_tmpdir("sigterm");
    char env_tmp[1100];
    CHECK(tmp != NULL);
    if (!tmp) return;
    snprintf(env_tmp, sizeof env_tmp, "TMPDIR=%s", tmp);
    const char *const env[] = {env_tmp, NULL};
    int sigs[2] = {SIGTERM, SIGHUP};
    for (int i = 0; i < 2; i++) {
        struct vt vt;
        CHECK_INT(vt_spawn_app(&vt, 80, 24, demo_args, env), 0);
        VT_WAIT(&vt, vt_row_has(&vt, 0, "whole run"));
        CHECK_INT(demo_dirs(tmp), 1);
        kill(vt.pid, sigs[i]);
        int st = -1;
        CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 128 + sigs[i]);
        vt_close(&vt);
        CHECK_INT(demo_dirs(tmp), 0);
    }
}

static void test_tour_80x24(void) { tour_at(80, 24); }
static void test_tour_200x60(void) { tour_at(200, 60); }

int main(void) {
    RUN(test_tour_80x24);
    RUN(test_tour_200x60);
    RUN(test_shots);
    RUN(test_sigterm_cleans);
    PT_DONE();
}
