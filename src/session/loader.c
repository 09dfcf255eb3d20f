/* loader: the dataset load in a background thread, so the screen shows
 * progress and Ctrl-C can cancel; folders progressively (the first steps
 * first, swapped in as they come); reloads of follow mode; the demo dataset. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/cube/demo.h"
#include "src/io/formats.h"
#include "src/io/load.h"
#include "src/session/loader.h"
#include "src/session/session.h"
#include "src/session/swap.h"
#include "src/session/trendpair.h"
#include "src/io/curves/curves_cache.h"
#include "src/io/dump/dump_cache.h"
#include "src/io/monitor/mon_cache.h"
#include "src/io/trace/tpatterns_file.h"

static void on_progress(void *ctx, size_t files_done, size_t files_total, uint64_t bytes_done, uint64_t bytes_total) {
    struct loader *l = ctx;
    atomic_store(&l->files_done, files_done);
    atomic_store(&l->files_total, files_total);
    atomic_store(&l->bytes_done, bytes_done);
    atomic_store(&l->bytes_total, bytes_total);
}

/* Hands a partial dataset to the UI thread, replacing one it has not
 * taken yet (it would only be swapped out at once). */
static void publish(struct loader *l, struct dataset *d) {
    pthread_mutex_lock(&l->mu);
    struct dataset *old = l->partial;
    l->partial = d;
    pthread_mutex_unlock(&l->mu);
    dataset_free(old);
}

/* Progressive loading: the first step (of a dump, its first rank folder:
 * one step of a big dump is already over 100 MB), then 8 times as many
 * steps and folders each round until the reader left nothing out.
 * Reading the first ones again each round costs at most 1/7 of the whole,
 * and the first heat map no longer waits for the last file.  A round that
 * fails (the first files all broken...) gives way to the whole load, which
 * says why. */
static int load_rounds(struct session *a, struct load_opts *o, struct dataset **out, struct pt_error *err) {
    struct loader *l = &a->load;
    /* a round is read only while it is at most an eighth of the whole (the
     * rounds then sum to at most a seventh); the whole comes next */
    for (size_t n = 1; n <= 1000000; n *= 8) {
        o->max_steps = o->max_files = (int)n;
        struct dataset *d;
        if (load_dataset(a->paths[0], o, &d, err) != 0) {
            if (atomic_load(&l->cancel)) return -1;
            break;
        }
        if (!d->more) { *out = d; return 0; }
        size_t whole = n + d->more;
        publish(l, d);
        if (n * 8 * 8 > whole) break;
    }
    o->max_steps = o->max_files = 0;
    return load_dataset(a->paths[0], o, out, err);
}

static void *run(void *arg) {
    struct session *a = arg;
    struct loader *l = &a->load;
    if (a->demo) {
        l->rc = loader_demo(a->demo_ranks, a->demo_targets, &l->ds, &l->err);
    } else {
        struct load_opts o = l->opts;
        o.progress = on_progress;
        o.progress_ctx = l;
        o.cancel = &l->cancel;
        o.lazy = a->mode == SESSION_MODE_TREND;   /* a .trend.db opens by slices (--mem) */
        if (l->progressive) l->rc = load_rounds(a, &o, &l->ds, &l->err);
        else l->rc = load_dataset(a->paths[0], &o, &l->ds, &l->err);
    }
    atomic_store(&l->done, 1);
    return NULL;
}

static int start(struct session *a, int progressive, int reload, struct pt_error *err) {
    struct loader *l = &a->load;
    if (l->running) return pt_errorf(err, "a load is under way");
    atomic_store(&l->done, 0);
    atomic_store(&l->cancel, 0);
    atomic_store(&l->files_done, 0);
    atomic_store(&l->files_total, 0);
    atomic_store(&l->bytes_done, 0);
    atomic_store(&l->bytes_total, 0);
    l->ds = NULL;
    l->partial = NULL;
    l->rc = -1;
    l->progressive = progressive;
    l->reload = reload;
    l->opts = a->lopts;
    /* one input, loaded again and again (rounds, reloads): what did not
     * change is not parsed again (only this thread uses the cache) */
    if (a->mode == SESSION_MODE_TREND && !a->demo) {
        if (!a->mon_cache && !(a->mon_cache = mon_cache_new(a->lopts.mem_budget))) return pt_errorf(err, "out of memory");
        /* a dump's parses within the --mem budget */
        if (!a->dump_cache && !(a->dump_cache = dump_cache_new(a->lopts.mem_budget))) return pt_errorf(err, "out of memory");
        /* a training log or event files being written: only what was appended */
        if (!a->curves_cache && !(a->curves_cache = curves_cache_new())) return pt_errorf(err, "out of memory");
    }
    l->opts.mon_cache = a->mode == SESSION_MODE_TREND ? a->mon_cache : NULL;
    l->opts.dump_cache = a->mode == SESSION_MODE_TREND ? a->dump_cache : NULL;
    l->opts.curves_cache = a->mode == SESSION_MODE_TREND ? a->curves_cache : NULL;
    /* a dump's origin search (origin_search.c) runs on what this load
     * gives: the load keeps each rank's records for it, so that the search
     * does not read every dump.json whole again (a rank folder the cache
     * gives has none and is read whole) */
    l->opts.origin_keep = a->mode == SESSION_MODE_TREND && !a->demo;
    pthread_mutex_init(&l->mu, NULL);
    if (pthread_create(&l->thread, NULL, run, a) != 0) {
        pthread_mutex_destroy(&l->mu);
        return pt_errorf(err, "cannot start the loading thread");
    }
    l->running = 1;
    return 0;
}

/* Folders load progressively (the first step's heat map at once); a
 * single file (.trend.db, dump.json) has no steps to read first. */
int loader_start(struct session *a, struct pt_error *err) { return start(a, !a->demo, 0, err); }

int loader_reload(struct session *a, struct pt_error *err) {
    if (a->demo) return pt_errorf(err, "the demo data does not change");
    if (a->mode != SESSION_MODE_TREND || !a->ds) return pt_errorf(err, "nothing to reload here");
    return start(a, 0, 1, err);
}

int loader_finish(struct session *a, struct pt_error *err) {
    struct loader *l = &a->load;
    if (!l->running) return pt_errorf(err, "nothing is loading");
    pthread_join(l->thread, NULL);
    l->running = 0;
    dataset_free(l->partial);   /* the whole one supersedes it */
    l->partial = NULL;
    pthread_mutex_destroy(&l->mu);
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

/* Cells holding data: what "the data grew" compares (rows appended to a
 * monitor CSV add cells without adding steps). */
static size_t present(const struct cube *c) {
    size_t n = 0;
    for (int m = 0; m < c->nmetrics; m++) n += cube_count_present(c, m);
    return n;
}

/* Installs d: the first data (the caller readies the panes) or a swap. */
static int install(struct session *a, struct dataset *d, struct pt_error *err) {
    if (!a->ds) {
        a->ds = d;
        return LOADER_FIRST;
    }
    const struct cube *oc = a->ds->cube;
    /* growth of the data, not the later rounds of a progressive load */
    int grew = a->load.reload && oc && d->cube && present(d->cube) > present(oc);
    if (swap_dataset(a, d, err) != 0) return LOADER_FAILED;
    if (grew) a->grew_at = (long long)time(NULL);
    return LOADER_SWAPPED;
}

int loader_poll(struct session *a, struct pt_error *err) {
    struct loader *l = &a->load;
    if (!l->running) return 0;
    int ev = 0;
    pthread_mutex_lock(&l->mu);
    struct dataset *d = l->partial;
    l->partial = NULL;
    pthread_mutex_unlock(&l->mu);
    if (d) ev |= install(a, d, err);
    if (!atomic_load(&l->done)) return ev;
    pthread_join(l->thread, NULL);
    l->running = 0;
    pthread_mutex_destroy(&l->mu);
    dataset_free(l->partial);
    l->partial = NULL;
    ev |= LOADER_DONE;
    if (l->rc < 0) {
        dataset_free(l->ds);
        l->ds = NULL;
        *err = l->err;
        return ev | LOADER_FAILED;
    }
    d = l->ds;
    l->ds = NULL;
    return ev | install(a, d, err);
}

void loader_caches_free(struct session *a) {
    mon_cache_free(a->mon_cache);
    a->mon_cache = NULL;
    dump_cache_free(a->dump_cache);
    a->dump_cache = NULL;
    curves_cache_free(a->curves_cache);
    a->curves_cache = NULL;
}

int loader_demo(int ranks, int targets, struct dataset **out, struct pt_error *err) {
    *out = NULL;
    struct dataset *d = calloc(1, sizeof *d);
    if (!d) return pt_errorf(err, "out of memory");
    d->format = formats_find("dump");   /* made-up dump data, with the dump label rules */
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

/* --- PROBLEM BENCH of training curves --- */

static int curves_row(const char *path) {
    const struct formats_row *f = formats_detect(path);
    return f && (!strcmp(f->name, "log") || !strcmp(f->name, "tfevents") || !strcmp(f->name, "curve_table"));
}

int loader_curves_pair(const struct session *a) {
    return a->npaths == 2 && !a->lopts.format && curves_row(a->paths[0]) && curves_row(a->paths[1]);
}

/* `probetop LOG DUMPDIR`: one curve input and a dump root of its run. */
static int curves_and_dump(const struct session *a) {
    if (a->npaths != 2 || a->lopts.format || !curves_row(a->paths[0])) return 0;
    const struct formats_row *f = formats_detect(a->paths[1]);
    return f && !strcmp(f->name, "dump");
}

int loader_bench(struct session *a, struct pt_error *err) {
    if (a->mode == SESSION_MODE_COMPARE && curves_and_dump(a)) {
        /* the curves of one run, the dump root attached (the step to dump opens there) */
        a->mode = SESSION_MODE_TREND;
        a->curves_dump = a->paths[1];
        a->npaths = 1;
        return 0;
    }
    if (a->mode == SESSION_MODE_COMPARE && !loader_curves_pair(a)) return trendpair_open(a, err);   /* two runs of trend data? */
    if (a->mode != SESSION_MODE_COMPARE) return 0;
    a->mode = SESSION_MODE_TREND;
    struct load_opts o = a->lopts;
    o.mon_cache = NULL;
    o.dump_cache = NULL;
    o.curves_cache = NULL;
    struct dataset *d = NULL;
    if (load_dataset(a->paths[1], &o, &d, err) != 0) return -1;
    if (!d->curves) {
        dataset_free(d);
        return pt_errorf(err, "%s holds no training curves", a->paths[1]);
    }
    if (a->bench_ds) dataset_free(a->bench_ds);
    a->bench_ds = d;
    return 0;
}

void loader_bench_free(struct session *a) {
    trendpair_free(a);
    dataset_free(a->bench_ds);
    a->bench_ds = NULL;
}

int loader_patterns(struct session *a, struct pt_error *err) {
    if (!a->trace_patterns_file) return 0;
    tpatterns_free(a->trace_patterns);
    a->lopts.trace_patterns = a->trace_patterns = tpatterns_file_read(a->trace_patterns_file, err);
    return a->trace_patterns ? 0 : -1;
}

void loader_patterns_free(struct session *a) {
    tpatterns_free(a->trace_patterns);
    a->trace_patterns = NULL;
    a->lopts.trace_patterns = NULL;
}
