/* A load asked to stop stops, for the rows of the reader table that walk
 * files of their own (src/io/formats.h: o->cancel is honoured in long
 * loops): the monitor trees v1 and monitor_v2 (one walk for both), the
 * anomaly reports opened alone, the Ascend step tables per rank and the
 * cluster file.  The flag is set before the load begins, as when `q` is
 * pressed at once: the load fails with "cancelled".  The same input loads
 * without the flag, so it is the flag that stopped it. */
#include "pt_test.h"
#include "pt_anomaly.h"

#include <stdatomic.h>

#include "src/io/load.h"

#define MON1_DIR "Nov14_22-13-20-rank%d-d85ad257"
#define MON1_CSV "vpp_stage,name,step,micro_step,norm,min,max,mean\n0,layers.0.mlp,%d,0,1.5,0,2,1\n"
#define MON2_CSV "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\n0,%d,m.layers.0.mlp.output.0,forward,-1,2,0.5,4,0\n"

/* Loads path as format twice: cancelled (fails, "cancelled"), then not
 * (loads). */
static void check_cancel(const char *path, const char *format) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    struct pt_error err = {0};
    atomic_int cancel;
    load_opts_init(&lo);
    lo.format = formats_find(format);
    CHECK(lo.format != NULL);
    lo.cancel = &cancel;
    atomic_init(&cancel, 1);
    CHECK_INT(load_dataset(path, &lo, &ds, &err), -1);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "cancelled");
    dataset_free(ds);
    ds = NULL;
    atomic_store(&cancel, 0);
    CHECK_INT(load_dataset(path, &lo, &ds, &err), 0);
    if (!ds) fprintf(stderr, "%s: %s\n", format, err.msg);
    CHECK(ds != NULL && ds->cube != NULL);
    dataset_free(ds);
}

/* A v1 tree: rank folders 0..nranks-1, one actv file each (steps 0 and 1). */
static int mon1_tree(const char *root, int nranks) {
    char p[2048], text[512];
    if (mkdir(root, 0755) != 0 && errno != EEXIST) return -1;
    for (int r = 0; r < nranks; r++)
        for (int s = 0; s < 2; s++) {
            snprintf(p, sizeof p, "%s/" MON1_DIR, root, r);
            if (mkdir(p, 0755) != 0 && errno != EEXIST) return -1;
            snprintf(p, sizeof p, "%s/" MON1_DIR "/actv_%d-%d.csv", root, r, s, s);
            snprintf(text, sizeof text, MON1_CSV, s);
            if (pt_write(p, text) != 0) return -1;
        }
    return 0;
}

static void monitor_v1(void) {
    const char *t = pt_tmpdir("cancel_rows_mon1");
    if (!t) SKIP("no scratch folder");
    char root[1100];
    snprintf(root, sizeof root, "%s/mon", t);
    CHECK_INT(mon1_tree(root, 2), 0);
    check_cancel(root, "monitor");
}

static void monitor_v2(void) {
    const char *t = pt_tmpdir("cancel_rows_mon2");
    if (!t) SKIP("no scratch folder");
    char root[1100], p[2048], text[512];
    snprintf(root, sizeof root, "%s/mon", t);
    mkdir(root, 0755);
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/rank_%d", root, r);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/rank_%d/module_step3-3.csv", root, r);
        snprintf(text, sizeof text, MON2_CSV, 3);
        CHECK_INT(pt_write(p, text), 0);
    }
    check_cancel(root, "monitor_v2");
}

/* The reports alone, no tree around them: the row reads them itself. */
static void anomaly_alone(void) {
    const char *t = pt_tmpdir("cancel_rows_anom");
    if (!t) SKIP("no scratch folder");
    char dir[1100], p[2048];
    snprintf(dir, sizeof dir, "%s/anomaly_detected", t);
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/rank%d", dir, r);
        CHECK_INT(pt_anom_mkdirs(p), 0);
        snprintf(p, sizeof p, "%s/rank%d/anomaly.json", dir, r);
        CHECK_INT(pt_anom_file(p, "{\"a\": {\"rank\": 0, \"step\": 1, \"tag_name\": \"0:layers.0.mlp.output:0/rank0/actv\"}}"),
                  0);
    }
    check_cancel(dir, "anomaly");
}

/* The hand-made Ascend fixture (tests/ascend/README.md). */
static const char *ascend(const char *rel) {
    static char buf[4096];
    const char *src = getenv("PT_SRC");
    snprintf(buf, sizeof buf, "%s/tests/ascend/pp2%s", src ? src : ".", rel);
    return buf;
}

static void ascend_step(void) { check_cancel(ascend(""), "ascend_step"); }

static void ascend_cluster(void) { check_cancel(ascend("/cluster_analysis_output"), "ascend_cluster"); }

int main(void) {
    RUN(monitor_v1);
    RUN(monitor_v2);
    RUN(anomaly_alone);
    RUN(ascend_step);
    RUN(ascend_cluster);
    PT_DONE();
}
