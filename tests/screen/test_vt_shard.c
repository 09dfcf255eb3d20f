/* test_vt_shard: a folder of trace shard files (probetop-formats(5), TRACE
 * SHARDS) opened in the TUI through the real binary, at 80x24 and 200x60:
 * the heat map over the shards' cube is the unsharded trace folder's heat
 * map cell for cell (the screens' rows equal but for the path), and the
 * lane view opens on the downsampled lanes, every rank a lane, its status
 * line saying the lanes are downsampled; at 128 ranks the lanes grouped,
 * saying it too. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

/* The traces of name and their shards 1/2, 2/2 beside them: the folder of
 * shards (static), NULL when python or the binary is absent. */
static const char *make(const char *name, char *traces, size_t cap) {
    static char sh[1400];
    const char *dir = pt_gen_traces(name, "--ranks 8 --pp 2 --micro 2 --tp 2 --pg-config --steps 3");
    if (!dir || !vt_bin()) return NULL;
    snprintf(traces, cap, "%s", dir);
    snprintf(sh, sizeof sh, "%s/../shards", dir);
    for (int k = 1; k <= 2; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "'%s' trace '%s' --shard %d/2 -o '%s' 2>/dev/null", vt_bin(), dir, k, sh);
        if (system(cmd) != 0) return NULL;
    }
    return sh;
}

/* The heat map's rows (below the toolbar, above the status line) that do
 * not name the path, hashed. */
static uint64_t heat_rows(struct vt *vt, const char *path) {
    uint64_t h = 1469598103934665603ull;
    const char *base = strrchr(path, '/');
    for (int r = 1; r < vt_status_row(vt); r++) {
        const char *t = vt_row_text(vt, r);
        if (strstr(t, base + 1) || strstr(t, "traces") || strstr(t, "shards")) continue;
        for (; *t; t++) h = (h ^ (unsigned char)*t) * 1099511628211ull;
    }
    return h;
}

static void shard_screen(int cols, int rows) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    char traces[1300], name[32];
    snprintf(name, sizeof name, "vt_shard_%d", cols);
    const char *sh = make(name, traces, sizeof traces);
    if (!sh) SKIP("python absent");
    struct vt a, b;
    const char *args_a[] = {traces, NULL}, *args_b[] = {sh, NULL};
    CHECK_INT(vt_spawn_app(&a, cols, rows, args_a, NULL), 0);
    VT_WAIT(&a, vt_find(&a, "Heat map", NULL, NULL));
    vt_settle(&a);
    CHECK_INT(vt_spawn_app(&b, cols, rows, args_b, NULL), 0);
    VT_WAIT(&b, vt_find(&b, "Heat map", NULL, NULL));
    vt_settle(&b);
    /* the same cube: the same heat map, step by step of the first target */
    CHECKV(&b, vt_find(&b, "compute", NULL, NULL));
    uint64_t ha = heat_rows(&a, traces), hb = heat_rows(&b, sh);
    CHECK(ha == hb);
    if (ha != hb) {
        vt_dump(&a, stderr);
        vt_dump(&b, stderr);
    }
    pt_vt_quit(&a);
    /* the lane view: every rank a lane, the lanes downsampled */
    vt_send(&b, "<F8>");
    VT_WAIT(&b, vt_find(&b, "8 lanes: all ranks", NULL, NULL));
    VT_WAIT(&b, vt_find(&b, "lanes downsampled", NULL, NULL));
    int busy = 0;
    for (int r = 2; r < vt_status_row(&b); r++) {
        const char *t = vt_row_text(&b, r);
        busy += strstr(t, "\u2588") != NULL || strstr(t, "#") != NULL;
    }
    CHECKV(&b, busy >= 1);
    pt_vt_quit(&b);
}

/* 128 ranks in 2 shards: the lanes grouped (blocks of ranks), the status
 * line saying the lanes are downsampled there too. */
static void shard_grouped_80x24(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    const char *dir = pt_gen_traces("vt_shard_g", "--ranks 128 --pp 4 --steps 2");
    if (!dir) SKIP("python absent");
    char sh[1400], cmd[4096];
    snprintf(sh, sizeof sh, "%s/../shards", dir);
    for (int k = 1; k <= 2; k++) {
        snprintf(cmd, sizeof cmd, "'%s' trace '%s' --shard %d/2 -o '%s' 2>/dev/null", vt_bin(), dir, k, sh);
        CHECK(system(cmd) == 0);
    }
    struct vt vt;
    const char *args[] = {sh, NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "128 lanes: all ranks", NULL, NULL));
    VT_WAIT(&vt, vt_find(&vt, "ranks 0-", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "lanes downsampled", NULL, NULL));
    pt_vt_quit(&vt);
}

static void shard_80x24(void) { shard_screen(80, 24); }
static void shard_200x60(void) { shard_screen(200, 60); }

int main(void) {
    RUN(shard_80x24);
    RUN(shard_200x60);
    RUN(shard_grouped_80x24);
    PT_DONE();
}
