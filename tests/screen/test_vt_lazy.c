/* test_vt_lazy: a big-ish .trend.db (64 ranks x 12 steps x 200 targets x 4
 * metrics, generated here) opened lazily (probetop(1), --mem): the heat map
 * comes up, keys move the cursor and change the step and statistic, and the
 * planted +Inf shows in the status line; with --mem 0 (slices only) and
 * with the default budget (filled in the background).  No timing asserts. */
#include "pt_test.h"
#include "pt_trenddb_gen.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *db_path(void) {
    static char path[1200];
    if (path[0]) return path;
    const char *t = pt_tmpdir("lazy_db");
    if (!t) return NULL;
    snprintf(path, sizeof path, "%s/monitor_data.trend.db", t);
    if (pt_gen_trenddb(path, 64, 12, 200) != 0) { path[0] = 0; return NULL; }
    return path;
}

static bool status_has(struct vt *vt, const char *text) {
    return strstr(vt_row_text(vt, vt->rows - 2), text) != NULL;
}

static void browse(const char *mem) {
    const char *db = db_path();
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!db) SKIP("could not generate the database");
    const char *args[] = {"--mem", mem, db, NULL};
    struct vt vt;
    if (vt_spawn_app(&vt, 120, 40, args, NULL) < 0) SKIP("spawn failed");
    VT_WAIT(&vt, strstr(vt_screen_text(&vt), "Heat map") != NULL);
    VT_WAIT(&vt, status_has(&vt, "step 0  rank 0  actv/nans"));
    vt_send(&vt, "l");
    VT_WAIT(&vt, status_has(&vt, "step 0  rank 1  actv/nans"));
    vt_send(&vt, "]]");
    VT_WAIT(&vt, status_has(&vt, "step 2  rank 1  actv/nans"));
    vt_send(&vt, "ss");
    VT_WAIT(&vt, status_has(&vt, "actv/norm"));
    vt_send(&vt, "jj");   /* down to the third target: the planted +Inf */
    VT_WAIT(&vt, status_has(&vt, "= +Inf"));
    CHECKV(&vt, strstr(vt_screen_text(&vt), "core_attention") != NULL);
    vt_send(&vt, "j");
    VT_WAIT(&vt, !status_has(&vt, "= +Inf"));
    vt_send(&vt, "q");
    int st = -1;
    CHECKV(&vt, vt_wait_exit(&vt, 10000, &st) == 0);
    CHECK_INT(st, 0);
    vt_close(&vt);
}

static void slices_only(void) { browse("0"); }

/* 128 ranks written by data2db (gen_dump.py, a +Inf planted at step 1,
 * rank 77): zoomed out 8 ranks to a cell, the heat map reads the groups of
 * probetop_rank_summary and the +Inf shows in its group's cell. */
static void zoomed_summary(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("lazy_zoom"), *py = getenv("PT_PYTHON");
    if (!t || !pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    char cmd[4096], db[1200];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s/mon' --monitor --steps 3 --ranks 128 --layers 2 --hidden 32 "
             "--heads 2 --ffn 64 --seq 8 --vocab 50 --nan 1:77:mlp:inf --quiet >/dev/null 2>&1 && "
             "'%s' data2db --data '%s/mon' --db '%s/db' >/dev/null 2>&1",
             py && *py ? py : "python3", pt_shared(), t, vt_bin(), t, t);
    if (system(cmd) != 0) SKIP("gen_dump.py or data2db failed");
    snprintf(db, sizeof db, "%s/db/monitor_data.trend.db", t);
    const char *args[] = {"--mem", "0", db, NULL};
    struct vt vt;
    if (vt_spawn_app(&vt, 40, 30, args, NULL) < 0) SKIP("spawn failed");
    VT_WAIT(&vt, strstr(vt_screen_text(&vt), "Heat map") != NULL);
    vt_send(&vt, "]");
    VT_WAIT(&vt, status_has(&vt, "step 1"));
    vt_send(&vt, "zzz");
    VT_WAIT(&vt, strstr(vt_screen_text(&vt), "zoom 8x") != NULL);
    int plus = 0;   /* the +Inf glyph in a heat-map cell (the legend's row excluded) */
    for (int y = 3; y < vt.rows - 2; y++) {
        const char *row = vt_row_text(&vt, y);
        if (strstr(row, "+Inf")) break;
        plus += strchr(row, '+') != NULL;
    }
    CHECKV(&vt, plus > 0);
    vt_send(&vt, "q");
    int st = -1;
    CHECKV(&vt, vt_wait_exit(&vt, 10000, &st) == 0);
    vt_close(&vt);
}

/* A size that is not one: a usage error naming it, exit 2, no screen. */
static void bad_mem(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = {"--mem", "12Q", "x.trend.db", NULL};
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 100, 24, args, NULL), 0);
    int st = -1;
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    CHECKV(&vt, vt_find(&vt, "--mem wants a size", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "12Q", NULL, NULL));
    vt_close(&vt);
}
static void filled(void) { browse("1G"); }

int main(void) {
    RUN(slices_only);
    RUN(filled);
    RUN(bad_mem);
    RUN(zoomed_summary);
    PT_DONE();
}
