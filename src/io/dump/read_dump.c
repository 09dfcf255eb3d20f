/* read_dump: finds the rank folders of a dump (any layout of
 * probetop-formats(5), DUMP FOLDERS) and parses them on a small thread pool, handing the
 * results to a callback strictly in step and rank order. */
#include "src/io/dump/read_dump.h"
#include "src/io/dump/dump_cache.h"

#include "model/util/fs.h"
#include "model/util/rankdirs.h"
#include "model/util/shelf.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/reader.h"
#include "model/util/fs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


static const char *base_name(const char *p, char *buf, size_t n) {
    size_t l = strlen(p);
    while (l > 1 && p[l - 1] == '/') l--;
    size_t s = l;
    while (s > 0 && p[s - 1] != '/') s--;
    snprintf(buf, n, "%.*s", (int)(l - s), p + s);
    return buf;
}

void dump_path_numbers(const char *dir, int32_t *step, int32_t *rank) {
    char bn[256];
    *step = *rank = 0;
    char *rp = realpath(dir, NULL);
    if (!rp) return;
    long r = util_num_after(base_name(rp, bn, sizeof bn), "rank");
    if (r >= 0) *rank = (int32_t)r;
    char *slash = strrchr(rp, '/');
    if (slash && slash != rp) {
        *slash = '\0';
        long s = util_num_after(base_name(rp, bn, sizeof bn), "step");
        if (s >= 0) *step = (int32_t)s;
    }
    free(rp);
}

/* ---- the list of rank folders ---- */

struct rdlist {
    struct ds_rankdir *v;
    size_t n, cap;
};

static int rd_add(struct rdlist *l, int32_t step, int32_t rank, const char *dir) {
    if (UTIL_PUSH(l->v, l->n, l->cap) != 0) return -1;
    struct ds_rankdir *r = &l->v[l->n];
    memset(r, 0, sizeof *r);
    r->step = step;
    r->rank = rank;
    if (!(r->dir = strdup(dir))) return -1;
    char *c = fs_join(dir, "construct.json"), *s = fs_join(dir, "stack.json");
    r->has_construct = c && fs_is_file(c);
    r->has_stack = s && fs_is_file(s);
    free(c);
    free(s);
    l->n++;
    return 0;
}

/* The scanner's notes become the dataset's warnings and skipped folders. */
static int note_ds(void *ctx, const char *path, const char *why, int skipped) {
    struct dataset *ds = ctx;
    /* follow mode: a rank folder just made, its dump.json not there yet */
    if (skipped && reader_young(ds, path)) return dataset_pending(ds, path, why);
    if (dataset_warn(ds, "%s: %s%s", path, why, skipped ? ": skipped" : "") != 0) return -1;
    return skipped ? dataset_skip(ds, path) : 0;
}

/* Appends the rank folders the one scanner (model/util/rankdirs.h) found. */
static void rd_take(struct rdlist *l, struct util_rankdirs *u) {
    for (size_t i = 0; i < u->n; i++)
        if (rd_add(l, u->v[i].step, u->v[i].rank, u->v[i].dir) != 0) break;   /* out of memory: stop listing */
    util_rankdirs_free(u);
}

static int scan_step(const char *sdir, int32_t step, struct rdlist *l, struct dataset *ds) {
    struct util_rankdirs u = {0};
    int rc = util_scan_step(sdir, step, &u, note_ds, ds);
    rd_take(l, &u);
    return rc;
}

static int scan_root(const char *root, struct rdlist *l, struct dataset *ds, int *steps_found) {
    struct util_rankdirs u = {0};
    int ns = util_scan_root(root, &u, note_ds, ds);
    if (ns > 0) *steps_found += ns;
    rd_take(l, &u);
    return ns < 0 ? -1 : 0;
}

/* Which kind of dump path is this: 'R' root (step dirs), 'M' MindSpore
 * graph/pynative root, 'S' step folder, 'K' rank folder, 'F' dump.json, 0 none. */
static int dump_kind(const char *path) {
    if (fs_is_file(path)) return util_ends_with(path, ".json") ? 'F' : 0;
    if (!fs_is_dir(path)) return 0;
    size_t n;
    char **names = fs_list_dir(path, 1, &n);
    int kind = 0;
    if (!names) return 0;
    for (size_t i = 0; i < n && !kind; i++) {
        char *p = fs_join(path, names[i]);
        if (!p) continue;
        if (util_num_after(names[i], "step") >= 0 && fs_is_dir(p)) kind = 'R';
        free(p);
    }
    for (size_t i = 0; i < n && !kind; i++)
        if (!strcmp(names[i], "graph") || !strcmp(names[i], "pynative")) {
            char *p = fs_join(path, names[i]);
            if (p && dump_kind(p) == 'R') kind = 'M';
            free(p);
        }
    for (size_t i = 0; i < n && !kind; i++) {
        if (strncmp(names[i], "rank", 4) && strncmp(names[i], "proc", 4)) continue;
        char *p = fs_join(path, names[i]);
        char *dj = p ? fs_join(p, "dump.json") : NULL;
        if (dj && fs_is_file(dj)) kind = 'S';
        free(dj);
        free(p);
    }
    for (size_t i = 0; i < n && !kind; i++)
        if (!strcmp(names[i], "dump.json")) kind = 'K';
    fs_free_list(names, n);
    return kind;
}

int dump_detect(const char *path) { return dump_kind(path) != 0; }

/* ---- notes said once ---- */

/* The same note for many rank folders (construct.json missing in 100 000 of
 * them) is said once, with a count and the first folder.  A few distinct
 * notes are gathered; more than that are said as they come. */
#define NOTES_MAX 16
struct notes {
    struct { char *text, *first; size_t count; } v[NOTES_MAX];
    int n;
};

/* 0 when gathered, -1 when the caller should say it now. */
static int notes_add(struct notes *ns, const char *text, const char *dir) {
    for (int i = 0; i < ns->n; i++)
        if (!strcmp(ns->v[i].text, text)) { ns->v[i].count++; return 0; }
    if (ns->n == NOTES_MAX) return -1;
    char *t = strdup(text), *f = strdup(dir);
    if (!t || !f) { free(t); free(f); return -1; }
    ns->v[ns->n].text = t;
    ns->v[ns->n].first = f;
    ns->v[ns->n].count = 1;
    ns->n++;
    return 0;
}

static void notes_flush(struct notes *ns, struct dataset *ds) {
    for (int i = 0; i < ns->n; i++) {
        if (ns->v[i].count == 1) dataset_warn(ds, "%s: %s", ns->v[i].first, ns->v[i].text);
        else
            dataset_warn(ds, "%s and %zu other rank folders: %s", ns->v[i].first, ns->v[i].count - 1, ns->v[i].text);
        free(ns->v[i].text);
        free(ns->v[i].first);
    }
    ns->n = 0;
}

/* ---- the pool ---- */

struct pool {
    /* Row and name buffers of parsed files, handed back by the merge for
     * the next file (util_shelf, under mu; the largest taken: the parse
     * grows what is too small): reusing them saves a page fault per 4 KiB
     * written, about a quarter of the parse time. */
    struct util_shelf rows, arenas;
    const struct ds_rankdir *rd;
    const size_t *ord;          /* rank_major: the folder parsed i-th (NULL: rd's order) */
    size_t n;
    const struct dump_opts *opt;
    struct dump_file *res;      /* n results */
    uint8_t *done;
    size_t next, merged, window;
    atomic_int *cancel;
    const struct dump_file **hit;   /* kept parses (dump_cache.h) by rd index: not parsed again */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void *worker(void *arg) {
    struct pool *p = arg;
    struct dump_scratch sc = {0};   /* the same buffer and skeletons for every file */
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->next < p->n && p->next >= p->merged + p->window && !(p->cancel && atomic_load(p->cancel)))
            pthread_cond_wait(&p->cv, &p->mu);
        size_t i = p->next;
        if (i >= p->n || (p->cancel && atomic_load(p->cancel))) {
            pthread_cond_broadcast(&p->cv);   /* the merge may be waiting for a file no one will parse */
            pthread_mutex_unlock(&p->mu);
            dump_scratch_free(&sc);
            return NULL;
        }
        p->next++;
        if (p->hit && p->hit[p->ord ? p->ord[i] : i]) {   /* kept from an earlier load */
            p->done[i] = 1;
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        struct dump_file *f = &p->res[i];
        size_t bytes;
        if ((f->rows = util_shelf_take(&p->rows, SIZE_MAX, &bytes))) f->caprows = bytes / sizeof *f->rows;
        f->arena = util_shelf_take(&p->arenas, SIZE_MAX, &f->acap);
        pthread_mutex_unlock(&p->mu);
        size_t j = p->ord ? p->ord[i] : i;
        f->step = p->rd[j].step;
        f->rank = p->rd[j].rank;
        f->seq = j;
        char *dj = fs_join(p->rd[j].dir, "dump.json");
        if (dj) parse_dump_file_buf(p->rd[j].dir, dj, p->opt, f, &sc);
        else pt_errorf(&f->error, "out of memory");
        free(dj);
        pthread_mutex_lock(&p->mu);
        p->done[i] = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* data2db --shard K/N: the distinct ranks, ascending, cut into N contiguous
 * blocks of (nearly) equal size; the K-th block's folders stay, in order.
 * Every task lists the same folders, so the blocks are disjoint and cover
 * every rank without the tasks talking to each other. */
static int shard_filter(struct rdlist *l, size_t *gidx, int32_t *grp, int k, int n) {
    int32_t *ranks = malloc((l->n ? l->n : 1) * sizeof *ranks);
    if (!ranks) return -1;
    for (size_t i = 0; i < l->n; i++) ranks[i] = l->v[i].rank;
    qsort(ranks, l->n, sizeof *ranks, cmp_i32);
    size_t nr = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!nr || ranks[nr - 1] != ranks[i]) ranks[nr++] = ranks[i];
    size_t o = 0;
    for (size_t i = 0; i < l->n; i++) {
        int32_t *pos = bsearch(&l->v[i].rank, ranks, nr, sizeof *ranks, cmp_i32);
        size_t block = (size_t)(pos - ranks) * (size_t)n / nr;
        if (block != (size_t)(k - 1)) {
            free(l->v[i].dir);
            continue;
        }
        l->v[o] = l->v[i];
        gidx[o] = gidx[i];
        grp[o] = grp[i];
        o++;
    }
    l->n = o;
    free(ranks);
    return 0;
}

/* Lists the rank folders `path` holds (any dump kind) into l, counting step
 * folders in *steps_found and setting *path_step for a step/rank folder or
 * dump.json opened alone.  0, or -1 with err set when path is no dump. */
static int collect_rank_dirs(const char *path, struct rdlist *l, struct dataset *ds, int *steps_found,
                             int32_t *path_step, struct pt_error *err) {
    char bn[256];
    switch (dump_kind(path)) {
    case 'R':
        scan_root(path, l, ds, steps_found);
        break;
    case 'M': {
        char *g = fs_join(path, "graph"), *py = fs_join(path, "pynative");
        if (g && dump_kind(g) == 'R') scan_root(g, l, ds, steps_found);
        if (py && dump_kind(py) == 'R') scan_root(py, l, ds, steps_found);
        free(g);
        free(py);
        break;
    }
    case 'S': {
        char *rp = realpath(path, NULL);   /* "step3/." and "step3/" are step 3 too */
        long s = util_num_after(base_name(rp ? rp : path, bn, sizeof bn), "step");
        free(rp);
        *steps_found = 1;
        scan_step(path, (int32_t)(s < 0 ? 0 : s), l, ds);
        *path_step = (int32_t)(s < 0 ? 0 : s);
        break;
    }
    case 'K': {
        /* a lone rank folder: rank from its name, step from its parent's */
        int32_t s, r;
        dump_path_numbers(path, &s, &r);
        rd_add(l, s, r, path);
        *path_step = s;
        break;
    }
    case 'F': {
        /* a lone dump.json: its folder is the rank folder */
        char *dir = strdup(path);
        if (!dir) return pt_errorf(err, "out of memory");
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0'; else strcpy(dir, ".");
        int32_t s, r;
        dump_path_numbers(dir, &s, &r);
        rd_add(l, s, r, dir);
        *path_step = s;
        free(dir);
        break;
    }
    default:
        return pt_errorf(err, "%s: not a dump: no step*/rank*/dump.json, step folder, rank folder or dump.json here", path);
    }
    return 0;
}

/* Numbers the whole list (*gidx: position, *grp: step group) and, for
 * --shard K/N, keeps this shard's part of l, gidx and grp.  0, or -1 with
 * err set (out of memory; the caller frees nothing of gidx/grp then). */
static int number_and_shard(struct rdlist *l, const struct dump_opts *o, size_t **gidx, int32_t **grp,
                            struct pt_error *err) {
    *gidx = malloc(l->n * sizeof **gidx);
    *grp = malloc(l->n * sizeof **grp);
    if (!*gidx || !*grp) goto oom;
    for (size_t i = 0; i < l->n; i++) {
        (*gidx)[i] = i;
        (*grp)[i] = i == 0 ? 0 : (*grp)[i - 1] + (l->v[i].step != l->v[i - 1].step);
    }
    if (o->shard_n > 0 && shard_filter(l, *gidx, *grp, o->shard_k, o->shard_n) != 0) goto oom;
    return 0;
oom:
    free(*gidx);
    free(*grp);
    *gidx = NULL;
    *grp = NULL;
    return pt_errorf(err, "out of memory");
}

/* Progressive loading: keeps the rank folders of the first max step
 * groups (grp ascending along l), at most max_files of them (0: no limit
 * on either), dropping the rest and setting ds->more. */
static void keep_first_steps(struct rdlist *l, const int32_t *grp, int max, int max_files, struct dataset *ds) {
    size_t keep = 0;
    while (keep < l->n && (max <= 0 || grp[keep] - grp[0] < max) && (max_files <= 0 || keep < (size_t)max_files)) keep++;
    if (keep == l->n) return;
    size_t l_all = l->n;
    for (size_t i = keep; i < l->n; i++) free(l->v[i].dir);
    l->n = keep;
    ds->nrankdirs = keep;
    ds->more = l_all - keep;
}

/* as many as --process_num allows (probetop(1), data2db: 128): the ids
 * had room for 64, and 128 threads over as many folders wrote past them */
#define POOL_MAX_THREADS 128

/* The reader threads for n folders: the user's count or one per core, no
 * more than folders or POOL_MAX_THREADS. */
static int pool_threads(const struct load_opts *lo, size_t n) {
    int threads = lo->threads > 0 ? lo->threads : util_ncores(64);
    if ((size_t)threads > n) threads = (int)n;
    return threads > POOL_MAX_THREADS ? POOL_MAX_THREADS : threads;
}

/* Sets up the pool over l and starts parsing: the lone dump.json `path`
 * right here, else on up to `threads` workers (their ids in tids, count in
 * *nt).  0, or -1 with err set (out of memory, nothing left to free). */
static int pool_start(struct pool *p, const struct rdlist *l, int lone, const char *path, int threads,
                      pthread_t *tids, int *nt, struct pt_error *err) {
    p->window = (size_t)threads * 2;
    p->res = calloc(l->n, sizeof *p->res);
    p->done = calloc(l->n, 1);
    /* no more spares than files in flight (the window), and 130 at most */
    int slots = p->window < 130 ? (int)p->window : 130;
    int rc = !p->res || !p->done ? pt_errorf(err, "out of memory") : 0;
    if (rc == 0 && (util_shelf_init(&p->rows, slots, 0, UINT64_MAX) != 0 ||
                    util_shelf_init(&p->arenas, slots, 0, UINT64_MAX) != 0))
        rc = pt_errorf(err, "out of memory");
    if (rc) {
        util_shelf_free(&p->rows);
        free(p->res);
        free(p->done);
        return -1;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    *nt = 0;
    if (lone) {
        p->res[0].step = l->v[0].step;
        p->res[0].rank = l->v[0].rank;
        parse_dump_file(l->v[0].dir, path, p->opt, &p->res[0]);
        p->done[0] = 1;
        p->next = 1;
    } else {
        /* the first file's construct.json is built here, once, into the cache:
         * started at once, each worker (and the foresight) built their own */
        size_t first = p->ord ? p->ord[0] : 0;
        if (l->n > 1 && (!p->hit || !p->hit[first])) dump_foresee_micro(l->v[first].dir, p->opt);
        for (int i = 0; i < threads; i++)
            if (pthread_create(&tids[*nt], NULL, worker, p) == 0) (*nt)++;
        if (*nt == 0) worker(p);   /* no threads to be had: do it here */
    }
    return 0;
}

/* The size of every dump.json of rd (n folders). */
static uint64_t total_bytes_of(const struct ds_rankdir *rd, size_t n) {
    uint64_t bytes_total = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char *dj = fs_join(rd[i].dir, "dump.json");
        if (dj && stat(dj, &st) == 0) bytes_total += (uint64_t)st.st_size;
        free(dj);
    }
    return bytes_total;
}

/* The size of every dump.json to read (the lone file's own for `lone`):
 * the progress bar's whole. */
static uint64_t total_bytes(const struct rdlist *l, int lone, const char *path) {
    uint64_t bytes_total = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct stat st;
        char *dj = fs_join(l->v[i].dir, "dump.json");
        if (dj && stat(lone ? path : dj, &st) == 0) bytes_total += (uint64_t)st.st_size;
        free(dj);
    }
    return bytes_total;
}

/* Waits for file i of the pool to be parsed; 1 when the load was cancelled
 * first, else 0. */
static int wait_file(struct pool *p, size_t i, const struct load_opts *lo) {
    pthread_mutex_lock(&p->mu);
    while (!p->done[i] && !(lo->cancel && atomic_load(lo->cancel))) {
        if (!lo->cancel) { pthread_cond_wait(&p->cv, &p->mu); continue; }
        /* a signal handler sets cancel without a broadcast: look again now and then */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100000000L;
        if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&p->cv, &p->mu, &until);
    }
    int cancelled = !p->done[i] || (lo->cancel && atomic_load(lo->cancel));
    pthread_mutex_unlock(&p->mu);
    return cancelled;
}

/* What one parsed file brings: its warnings, its records (through fn, at
 * step `step`), its overflow entries (moved out of f when it is not kept
 * for a later load: take) and the summary's ranges.  0, or -1 with err
 * set. */
static int merge_file(struct dataset *ds, const struct dump_opts *o, struct dump_file *f, int take, dump_file_fn fn,
                      void *ctx, int32_t step, struct notes *notes, int32_t *step_max_micro,
                      struct dump_summary *sum, struct pt_error *err) {
    int rc = 0;
    /* a skipped file's own error says it all: its construct.json note
     * would only hide it */
    if (f->warning && f->ok && notes_add(notes, f->warning, f->dir) != 0) dataset_warn(ds, "%s: %s", f->dir, f->warning);
    if (f->long_names)
        dataset_warn(ds, "%s: line %zu: %zu record%s with a name over %d bytes skipped (longer than msProbe's names)",
                     f->path, f->long_name_line, f->long_names, f->long_names == 1 ? "" : "s", DUMP_NAME_MAX - 1);
    if (!f->ok && reader_young(ds, f->path)) {
        /* follow mode: a dump.json being written does not parse yet */
        if (dataset_pending(ds, f->path, "does not parse yet (being written?)") != 0) rc = pt_errorf(err, "out of memory");
    } else if (!f->ok) {
        dataset_warn(ds, "%s", f->error.msg);
        dataset_skip(ds, f->path);
    } else {
        ds->files_read++;
        sum->files_ok++;
        if (!ds->framework && f->framework) ds->framework = strdup(f->framework);
        if (!ds->level && f->level) ds->level = strdup(f->level);
        if (!ds->task && f->task) ds->task = strdup(f->task);
        if (take) {
            if (ovf_list_take(&ds->ovf, &f->ovf) != 0) rc = pt_errorf(err, "out of memory");
        } else {
            for (size_t k = 0; k < f->ovf.n && rc == 0; k++)
                if (ovf_list_add(&ds->ovf, &f->ovf.v[k]) != 0) rc = pt_errorf(err, "out of memory");
        }
        if (f->contributes && f->micro_count > *step_max_micro) *step_max_micro = f->micro_count;
        if (rc == 0) {
            err->msg[0] = '\0';   /* the callback says why it failed (disk full, ...) */
            if (fn(ctx, f, step) != 0) {
                rc = -1;
                if (!err->msg[0]) pt_errorf(err, "%s: could not store the data read (out of memory?)", f->path);
            }
        }
    }
    if (f->ok) sum->any_rank = 1;   /* every dump.json broken: nothing to write */
    if (f->rank > sum->max_rank) sum->max_rank = f->rank;
    if (!o->micro_step) {
        if (f->step < sum->min_step) sum->min_step = f->step;
        if (f->step > sum->max_step) sum->max_step = f->step;
    }
    return rc;
}

/* Hands file i's buffers back to the pool as spares, frees the rest and
 * opens the window for the next parse.  Returns nothing. */
static void release_file(struct pool *p, size_t i) {
    struct dump_file *f = &p->res[i];
    pthread_mutex_lock(&p->mu);
    util_shelf_put(&p->rows, f->rows, f->caprows * sizeof *f->rows);
    util_shelf_put(&p->arenas, f->arena, f->acap);
    f->rows = NULL;
    f->arena = NULL;
    pthread_mutex_unlock(&p->mu);
    dump_file_free(f);
    pthread_mutex_lock(&p->mu);
    p->merged = i + 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Stops the pool (at once when `stop`, the merge having failed), joins its
 * nt threads and frees what it holds.  Returns nothing. */
static void pool_finish(struct pool *p, int stop, pthread_t *tids, int nt) {
    if (stop) {   /* let the workers see the end and leave */
        pthread_mutex_lock(&p->mu);
        p->next = p->n;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    for (int i = 0; i < nt; i++) pthread_join(tids[i], NULL);
    for (size_t i = 0; i < p->n; i++) dump_file_free(&p->res[i]);
    util_shelf_free(&p->rows);
    util_shelf_free(&p->arenas);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->res);
    free(p->done);
}

/* ---- rank-major hand-over ----
 *
 * A .trend.db's rows are keyed (rank, step, ...): handed over rank by rank
 * they can be written as they come, while the next files parse.  A file's
 * micro step numbers depend on the micro step counts of every earlier step
 * of every rank, known only once those files are read: they are foreseen
 * from construct.json (a sound dump.json gives its construct's count) and
 * checked at the end; dump_summary.foresight_failed says when a broken or
 * empty dump.json proved them wrong.  The notes are said in the list's
 * order, as without rank_major. */

struct kept {                /* what a file's notes need, kept until all are read */
    char *path, *dir, *warning, *error, *framework, *level, *task;
    int ok;
    size_t long_names, long_name_line;
};

static void kept_take(struct kept *k, struct dump_file *f) {
    k->path = f->path;
    k->dir = f->dir;
    k->warning = f->warning;
    k->framework = f->framework;
    k->level = f->level;
    k->task = f->task;
    f->path = f->dir = f->warning = f->framework = f->level = f->task = NULL;
    k->ok = f->ok;
    k->error = f->ok ? NULL : strdup(f->error.msg);
    k->long_names = f->long_names;
    k->long_name_line = f->long_name_line;
}

static void kept_free(struct kept *k) {
    free(k->path);
    free(k->dir);
    free(k->warning);
    free(k->error);
    free(k->framework);
    free(k->level);
    free(k->task);
}

/* merge_file's notes, from what was kept of the file. */
static void kept_notes(struct dataset *ds, struct kept *k, struct notes *notes) {
    if (k->warning && k->ok && notes_add(notes, k->warning, k->dir ? k->dir : "?") != 0)
        dataset_warn(ds, "%s: %s", k->dir ? k->dir : "?", k->warning);
    if (k->long_names)
        dataset_warn(ds, "%s: line %zu: %zu record%s with a name over %d bytes skipped (longer than msProbe's names)",
                     k->path ? k->path : "?", k->long_name_line, k->long_names, k->long_names == 1 ? "" : "s",
                     DUMP_NAME_MAX - 1);
    if (!k->ok) {
        dataset_warn(ds, "%s", k->error ? k->error : "out of memory");
        if (k->path) dataset_skip(ds, k->path);
        return;
    }
    ds->files_read++;
    if (!ds->framework && k->framework) { ds->framework = k->framework; k->framework = NULL; }
    if (!ds->level && k->level) { ds->level = k->level; k->level = NULL; }
    if (!ds->task && k->task) { ds->task = k->task; k->task = NULL; }
}

static const int32_t *cmp_ord_rank;   /* qsort has no context: set just around the sort */

static int cmp_ord(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int32_t rx = cmp_ord_rank[x], ry = cmp_ord_rank[y];
    if (rx != ry) return rx < ry ? -1 : 1;
    return (x > y) - (x < y);
}

struct rmajor {
    size_t *ord;             /* the list's positions, rank by rank */
    size_t *lg;              /* per position: its step group's place among this list's groups */
    size_t ngroups;
    int32_t *foreseen, *actual;   /* per group: the largest micro step count */
    int32_t *start;          /* per group: the step of its micro step 0, as foreseen */
    struct kept *kept;
};

static void rmajor_free(struct rmajor *r) {
    free(r->ord);
    free(r->lg);
    free(r->foreseen);
    free(r->actual);
    free(r->start);
    free(r->kept);
    memset(r, 0, sizeof *r);
}

/* The order of l's folders (grp: their step groups). */
static int rmajor_plan(struct rmajor *r, const struct rdlist *l, const int32_t *grp) {
    size_t n = l->n;
    int32_t *rank = malloc(n * sizeof *rank);
    r->ord = malloc(n * sizeof *r->ord);
    r->lg = malloc(n * sizeof *r->lg);
    r->kept = calloc(n, sizeof *r->kept);
    if (!rank || !r->ord || !r->lg || !r->kept) { free(rank); return -1; }
    for (size_t j = 0; j < n; j++) {
        rank[j] = l->v[j].rank;
        r->ord[j] = j;
        r->lg[j] = j == 0 ? 0 : r->lg[j - 1] + (grp[j] != grp[j - 1]);
    }
    cmp_ord_rank = rank;
    qsort(r->ord, n, sizeof *r->ord, cmp_ord);
    cmp_ord_rank = NULL;
    free(rank);
    r->ngroups = r->lg[n - 1] + 1;
    r->foreseen = calloc(r->ngroups, sizeof *r->foreseen);
    r->actual = calloc(r->ngroups, sizeof *r->actual);
    r->start = calloc(r->ngroups, sizeof *r->start);
    return !r->foreseen || !r->actual || !r->start ? -1 : 0;
}

/* The foreseen step of micro step 0 of every group (done while the first
 * files parse: it reads only construct.json, mostly from the cache). */
static void rmajor_foresee(struct rmajor *r, const struct ds_rankdir *rd, size_t n, const struct dump_opts *o,
                           int32_t start) {
    for (size_t j = 0; j < n; j++) {
        int32_t m = o->micro_step ? dump_foresee_micro(rd[j].dir, o) : 1;
        if (m > r->foreseen[r->lg[j]]) r->foreseen[r->lg[j]] = m;
    }
    for (size_t g = 0; g < r->ngroups; g++) {
        r->start[g] = start;
        start += r->foreseen[g];
    }
}

/* Hands every file of the pool over in rank order (r->ord), then says the
 * notes in the list's order and checks the foresight.  0, or -1 with err. */
static int merge_rank_major(struct pool *p, struct rmajor *r, const size_t *gidx, const int32_t *grp,
                            const struct load_opts *lo, const struct dump_opts *o, struct dataset *ds,
                            dump_file_fn fn, void *ctx, int32_t start, struct dump_summary *sum,
                            struct pt_error *err) {
    struct notes notes = {0};
    rmajor_foresee(r, p->rd, p->n, o, start);
    uint64_t bytes_total = total_bytes_of(p->rd, p->n), bytes_done = 0;
    int rc = 0;
    for (size_t k = 0; k < p->n && rc == 0; k++) {
        if (wait_file(p, k, lo)) { rc = pt_errorf(err, "cancelled"); break; }
        struct dump_file *f = &p->res[k];
        size_t j = f->seq;
        f->index = gidx[j];
        f->group = grp[j];
        bytes_done += f->bytes;
        ds->bytes_read += f->bytes;
        if (f->ok) {
            sum->files_ok++;
            sum->any_rank = 1;
            if (ovf_list_take(&ds->ovf, &f->ovf) != 0) rc = pt_errorf(err, "out of memory");   /* (never kept) */
            if (f->contributes && f->micro_count > r->actual[r->lg[j]]) r->actual[r->lg[j]] = f->micro_count;
        }
        if (rc == 0) {   /* a skipped file too: the callback learns it will not come */
            err->msg[0] = '\0';
            if (fn(ctx, f, o->micro_step ? r->start[r->lg[j]] : f->step) != 0) {
                rc = -1;
                if (!err->msg[0]) pt_errorf(err, "%s: could not store the data read (out of memory?)", f->path);
            }
        }
        if (f->rank > sum->max_rank) sum->max_rank = f->rank;
        if (!o->micro_step) {
            if (f->step < sum->min_step) sum->min_step = f->step;
            if (f->step > sum->max_step) sum->max_step = f->step;
        }
        kept_take(&r->kept[j], f);
        release_file(p, k);
        if (lo->progress) lo->progress(lo->progress_ctx, k + 1, p->n, bytes_done, bytes_total);
    }
    for (size_t j = 0; j < p->n; j++) {
        if (rc == 0) kept_notes(ds, &r->kept[j], &notes);
        kept_free(&r->kept[j]);
    }
    notes_flush(&notes, ds);
    for (size_t g = 0; g < r->ngroups; g++) {
        if (r->actual[g] != r->foreseen[g]) sum->foresight_failed = 1;
        start += r->actual[g];
    }
    if (o->micro_step) {
        sum->min_step = 0;
        sum->max_step = start - 1;
    }
    return rc;
}

int dump_read(const char *path, const struct load_opts *lo, const struct dump_opts *o,
              struct dataset *ds, dump_file_fn fn, void *ctx, struct dump_summary *sum, struct pt_error *err) {
    struct rdlist l = {0};
    int steps_found = 0;
    int32_t path_step = 0;   /* the step a step/rank folder or dump.json opened alone has in its path */
    memset(sum, 0, sizeof *sum);
    if (collect_rank_dirs(path, &l, ds, &steps_found, &path_step, err) != 0) return -1;
    /* the lone-file case parses that very file, whatever its name */
    int lone = dump_kind(path) == 'F';
    ds->rankdirs = l.v;
    ds->nrankdirs = l.n;
    if (l.n == 0)
        return pt_errorf(err, "%s: %s", path,
                         steps_found ? "step folders found, but no rank or proc folder with a dump.json in them"
                                     : "no rank folder with a dump.json found");

    /* positions and step groups in the whole list, before a shard keeps its part */
    size_t *gidx;
    int32_t *grp;
    sum->folders_all = l.n;
    int shard_rc = number_and_shard(&l, o, &gidx, &grp, err);
    ds->rankdirs = l.v;
    ds->nrankdirs = l.n;
    if (shard_rc != 0) return -1;
    if (lo->max_steps > 0 || lo->max_files > 0) keep_first_steps(&l, grp, lo->max_steps, lo->max_files, ds);
    if (l.n == 0) {   /* a shard with no rank of its own */
        free(gidx);
        free(grp);
        sum->min_step = sum->max_step = 0;
        return 0;
    }

    struct notes notes = {0};
    struct dump_opts oc = *o;   /* with the construct.json cache of this read */
    oc.cons_cache = cons_cache_new();   /* NULL (out of memory): every file its own */
    struct pool p = {.rd = l.v, .n = l.n, .opt = &oc, .cancel = lo->cancel};
    struct rmajor rm = {0};
    int32_t start = o->path_numbers ? path_step : 0;
    if (o->rank_major && !lone && l.n > 1) {
        if (rmajor_plan(&rm, &l, grp) != 0) {
            rmajor_free(&rm);
            cons_cache_free(oc.cons_cache);
            free(gidx);
            free(grp);
            return pt_errorf(err, "out of memory");
        }
        p.ord = rm.ord;
    }
    /* follow mode: folders unchanged since the last load are not parsed again */
    struct dump_cache *dc = !lone && !p.ord ? lo->dump_cache : NULL;
    const struct dump_file **hit = NULL;
    uint64_t *sig = NULL;
    if (dc) {
        char stamp[160];
        snprintf(stamp, sizeof stamp, "dump micro %d map %zu %016llx layout %p path %d rows %d", o->micro_step,
                 o->mapping ? o->mapping->n : 0, (unsigned long long)mapping_hash(o->mapping), (const void *)o->layout,
                 o->path_numbers, o->want_rows);
        hit = calloc(l.n, sizeof *hit);
        sig = calloc(l.n, sizeof *sig);
        if (!hit || !sig || dump_cache_begin(dc, stamp) != 0) {   /* no memory: every folder parsed */
            free(hit);
            free(sig);
            hit = NULL;
            sig = NULL;
            dc = NULL;
        }
        for (size_t i = 0; dc && i < l.n; i++) hit[i] = dump_cache_find(dc, l.v[i].dir, l.v[i].step, l.v[i].rank, &sig[i]);
        p.hit = hit;
    }
    pthread_t tids[POOL_MAX_THREADS];
    int threads = pool_threads(lo, l.n);
    int nt = 0;
    if (pool_start(&p, &l, lone, path, threads, tids, &nt, err) != 0) {
        free(hit);
        free(sig);
        rmajor_free(&rm);
        cons_cache_free(oc.cons_cache);
        free(gidx);
        free(grp);
        return -1;
    }

    int rc = 0;
    int32_t cur_group = INT32_MIN, step_max_micro = 0;
    int have_step = 0;
    sum->min_step = INT32_MAX;
    sum->max_step = INT32_MIN;
    if (p.ord) {
        rc = merge_rank_major(&p, &rm, gidx, grp, lo, &oc, ds, fn, ctx, start, sum, err);
        if (sum->min_step == INT32_MAX) sum->min_step = sum->max_step = 0;
        pool_finish(&p, rc != 0, tids, nt);
        rmajor_free(&rm);
        cons_cache_free(oc.cons_cache);
        free(gidx);
        free(grp);
        if (rc == 0 && ovf_list_sort(&ds->ovf) != 0) rc = pt_errorf(err, "out of memory");
        return rc;
    }
    uint64_t bytes_total = total_bytes(&l, lone, path), bytes_done = 0;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        if (wait_file(&p, i, lo)) { rc = pt_errorf(err, "cancelled"); break; }
        struct dump_file *f = &p.res[i], kept;
        if (hit && hit[i]) {   /* as the worker would have set it */
            kept = *hit[i];
            kept.step = l.v[i].step;
            kept.rank = l.v[i].rank;
            kept.seq = i;
            f = &kept;
        }
        f->index = gidx[i];
        f->group = grp[i];
        /* a new step starts where the whole list changes step: a shard's
         * steps then line up with the unsharded run's */
        if (f->group != cur_group) {
            if (have_step) start += step_max_micro;
            cur_group = f->group;
            step_max_micro = 0;
            have_step = 1;
        }
        bytes_done += f->bytes;
        ds->bytes_read += f->bytes;
        if (merge_file(ds, o, f, !dc, fn, ctx, o->micro_step ? start : f->step, &notes, &step_max_micro, sum, err) != 0)
            rc = -1;
        if (f->ocap) {   /* the rank folder keeps it for the origin search (never the cache) */
            l.v[i].ocap = f->ocap;
            f->ocap = NULL;
        }
        if (dc && !hit[i] && rc == 0) dump_cache_keep(dc, l.v[i].dir, sig[i], f);   /* takes f's buffers, or not */
        release_file(&p, i);
        if (lo->progress) lo->progress(lo->progress_ctx, i + 1, l.n, bytes_done, bytes_total);
    }
    notes_flush(&notes, ds);
    if (have_step) start += step_max_micro;
    if (o->micro_step) {
        sum->min_step = 0;
        sum->max_step = start - 1;
    }
    if (sum->min_step == INT32_MAX) sum->min_step = sum->max_step = 0;
    pool_finish(&p, rc != 0, tids, nt);
    /* every folder read: the parses of folders gone go */
    if (dc) dump_cache_end(dc, rc == 0 && lo->max_steps <= 0 && lo->max_files <= 0 && o->shard_n == 0);
    free(hit);
    free(sig);
    cons_cache_free(oc.cons_cache);
    free(gidx);
    free(grp);
    if (rc == 0 && ovf_list_sort(&ds->ovf) != 0) rc = pt_errorf(err, "out of memory");
    return rc;
}
