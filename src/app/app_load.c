/* app_load: the dataset load in a background thread, so the screen shows
 * progress and Ctrl-C can cancel, and the demo dataset. */
#include <stdlib.h>
#include <string.h>

#include "model/demo.h"
#include "src/app/app_state.h"

static void on_progress(void *ctx, size_t files_done, size_t files_total, uint64_t bytes_done, uint64_t bytes_total) {
    struct app_load *l = ctx;
    atomic_store(&l->files_done, files_done);
    atomic_store(&l->files_total, files_total);
    atomic_store(&l->bytes_done, bytes_done);
    atomic_store(&l->bytes_total, bytes_total);
}

static void *run(void *arg) {
    struct app *a = arg;
    struct app_load *l = &a->load;
    if (a->demo) {
        l->rc = app_demo_dataset(a->demo_ranks, a->demo_targets, &l->ds, &l->err);
    } else {
        struct load_opts o = a->lopts;
        o.progress = on_progress;
        o.progress_ctx = l;
        o.cancel = &l->cancel;
        o.lazy = a->mode == APP_MODE_TREND;   /* a .trend.db opens by slices (--mem) */
        l->rc = dataset_load(a->paths[0], &o, &l->ds, &l->err);
    }
    atomic_store(&l->done, 1);
    return NULL;
}

int app_load_start(struct app *a, struct pt_error *err) {
    struct app_load *l = &a->load;
    atomic_store(&l->done, 0);
    atomic_store(&l->cancel, 0);
    atomic_store(&l->files_done, 0);
    atomic_store(&l->files_total, 0);
    atomic_store(&l->bytes_done, 0);
    atomic_store(&l->bytes_total, 0);
    l->ds = NULL;
    l->rc = -1;
    if (pthread_create(&l->thread, NULL, run, a) != 0) return pt_errorf(err, "cannot start the loading thread");
    l->running = 1;
    return 0;
}

int app_load_finish(struct app *a, struct pt_error *err) {
    struct app_load *l = &a->load;
    if (!l->running) return pt_errorf(err, "nothing is loading");
    pthread_join(l->thread, NULL);
    l->running = 0;
    if (l->rc < 0) {
        if (l->ds) dataset_free(l->ds);
        l->ds = NULL;
        *err = l->err;
        return -1;
    }
    a->ds = l->ds;
    l->ds = NULL;
    return 0;
}

int app_demo_dataset(int ranks, int targets, struct dataset **out, struct pt_error *err) {
    *out = NULL;
    struct dataset *d = calloc(1, sizeof *d);
    if (!d) return pt_errorf(err, "out of memory");
    d->format = ds_format_find("dump");   /* made-up dump data, with the dump label rules */
    d->labels = LABELS_DUMP;
    d->micro_step = 0;
    d->path = strdup("demo");
    d->source = strdup("demo");
    if (!d->path || !d->source) {
        dataset_free(d);
        return pt_errorf(err, "out of memory");
    }
    int rc = ranks > 0 && targets > 0 ? demo_cube_big(ranks, targets, &d->cube, err) : demo_cube(&d->cube, err);
    if (rc < 0) {
        dataset_free(d);
        return -1;
    }
    *out = d;
    return 0;
}
