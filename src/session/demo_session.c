/* demo_session: the demo's files in a private folder, opened as a problem
 * and benchmark pair (see demo_session.h). */
#include "src/session/demo_session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/overflow/anomaly.h"
#include "src/io/demo/demo_files.h"
#include "src/io/load.h"
#include "src/io/monitor/read_anomaly.h"
#include "src/session/session.h"

struct demo_session {
    char dir[4096];
    struct demo_files files;   /* paths only once written (the data freed) */
};

const char *demo_session_dir(const struct session *a) { return a->demo_files ? a->demo_files->dir : NULL; }

static char *joined(const char *dir, const char *rel) {
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, rel);
    return p;
}

/* Loads dir/rel with a's options, nothing cached, no progress. */
static int load_part(const struct session *a, const char *dir, const char *rel, struct dataset **out, struct pt_error *err) {
    struct load_opts o = a->lopts;
    o.progress = NULL;
    o.progress_ctx = NULL;
    o.cancel = NULL;
    o.mon_cache = NULL;
    o.dump_cache = NULL;
    o.lazy = 0;
    o.follow = 0;
    o.max_steps = o.max_files = 0;
    o.format = NULL;
    char *p = joined(dir, rel);
    if (!p) return pt_errorf(err, "out of memory");
    int rc = load_dataset(p, &o, out, err);
    free(p);
    return rc;
}

/* The problem run's dump with the trace, the curves and the anomaly
 * reports joined to it; the benchmark's curves into a->bench_ds. */
static int load_problem(struct session *a, const char *dir, struct pt_error *err) {
    struct dataset *ds = NULL, *part = NULL;
    if (load_part(a, dir, DEMO_FILES_PROBLEM, &ds, err) != 0) return -1;
    if (load_part(a, dir, DEMO_FILES_TRACE, &part, err) != 0) goto fail;
    ds->trace = part->trace;   /* the lanes pane reads it */
    part->trace = NULL;
    dataset_free(part);
    part = NULL;
    if (load_part(a, dir, DEMO_FILES_PROBLEM_LOG, &part, err) != 0) goto fail;
    ds->curves = part->curves;   /* the curves pane: the problem run's */
    part->curves = NULL;
    dataset_free(part);
    part = NULL;
    if (load_part(a, dir, DEMO_FILES_BENCH_LOG, &part, err) != 0) goto fail;
    char *rep = joined(dir, DEMO_FILES_MONITOR "/anomaly_detected");
    if (!rep) {
        pt_errorf(err, "out of memory");
        goto fail;
    }
    int rc = anomaly_read_path(rep, &ds->anomalies, ds, err);
    free(rep);
    if (rc != 0) goto fail;
    anomaly_sort(&ds->anomalies);
    if (anomaly_place(&ds->anomalies, ds->cube, err) != 0) goto fail;
    dataset_free(a->bench_ds);
    a->bench_ds = part;
    a->ds = ds;
    return 0;
fail:
    dataset_free(part);
    dataset_free(ds);
    return -1;
}

int demo_session_open(struct session *a, struct pt_error *err) {
    struct demo_session *d = calloc(1, sizeof *d);
    if (!d) return pt_errorf(err, "out of memory");
    if (demo_files_make(&d->files, err) != 0) {
        free(d);
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    if (snprintf(d->dir, sizeof d->dir, "%s/probetop-demo-XXXXXX", tmp) >= (int)sizeof d->dir) {
        demo_files_free(&d->files);
        free(d);
        return pt_errorf(err, "demo: $TMPDIR is too long");
    }
    if (!mkdtemp(d->dir)) {
        int e = errno;
        demo_files_free(&d->files);
        free(d);
        return pt_errorf(err, "demo: cannot make a folder under %s: %s", tmp, strerror(e));
    }
    a->demo_files = d;
    if (demo_files_write(&d->files, d->dir, err) != 0) goto fail;
    for (size_t i = 0; i < d->files.n; i++) {   /* only the names are needed from here on */
        free(d->files.v[i].data);
        d->files.v[i].data = NULL;
    }
    if (!(a->paths[0] = joined(d->dir, DEMO_FILES_PROBLEM)) || !(a->paths[1] = joined(d->dir, DEMO_FILES_BENCH))) {
        pt_errorf(err, "out of memory");
        goto fail;
    }
    a->npaths = 2;
    a->mode = SESSION_MODE_COMPARE;
    if (!a->parallel_arg) {
        char spec[80];
        snprintf(spec, sizeof spec, "W=%d L=%d TP=%d PP=%d", DEMO_FILES_RANKS, DEMO_FILES_LAYERS, DEMO_FILES_TP, DEMO_FILES_PP);
        if (!(a->parallel_arg = strdup(spec))) {
            pt_errorf(err, "out of memory");
            goto fail;
        }
    }
    if (load_problem(a, d->dir, err) != 0) goto fail;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        free(a->paths[i]);
        a->paths[i] = NULL;
    }
    a->npaths = 0;
    demo_session_close(a);
    return -1;
}

void demo_session_close(struct session *a) {
    struct demo_session *d = a->demo_files;
    if (!d) return;
    demo_files_remove(&d->files, d->dir);
    rmdir(d->dir);
    demo_files_free(&d->files);
    free(d);
    a->demo_files = NULL;
}
