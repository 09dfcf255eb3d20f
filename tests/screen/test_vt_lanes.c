/* test_vt_lanes: the lane view (F8, probetop(1), LANE VIEW) driven through
 * the real binary: data without a timeline (Ascend step time tables) get
 * one line and no crash. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

static const char *src_path(const char *rel) {
    static char buf[4096];
    const char *s = getenv("PT_SRC");
    snprintf(buf, sizeof buf, "%s/%s", s ? s : ".", rel);
    return buf;
}

static void no_timeline(void) {
    if (!vt_bin()) SKIP("PT_BIN unset");
    struct vt vt;
    const char *args[] = {src_path("tests/ascend/pp2"), NULL};
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_find(&vt, "Heat map", NULL, NULL));
    vt_send(&vt, "<F8>");
    VT_WAIT(&vt, vt_find(&vt, "No timeline in this data", NULL, NULL));
    CHECKV(&vt, vt_find(&vt, "the lane view needs profiler traces", NULL, NULL));
    /* the pane's keys do nothing harmful without a timeline */
    vt_send(&vt, "jkhlZz,.()apbr");
    vt_send(&vt, "<click:5,40>");
    VT_WAIT(&vt, vt_find(&vt, "No timeline in this data", NULL, NULL));
    /* the step table itself is in the heat map */
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_find(&vt, "exposed_communication", NULL, NULL));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(no_timeline);
    PT_DONE();
}
