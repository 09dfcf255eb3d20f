/* read_trace: profiler traces (probetop-formats(5), PROFILER TRACES): one
 * Kineto chrome trace per rank (*.json, *.json.gz, TraceViz's
 * iteration_<N>/rank_<R>_iter_<N>.pt.trace.json) or torch_npu's
 * ASCEND_PROFILER_OUTPUT/trace_view.json, a file or a folder of them.
 *
 * Each file is streamed by trace_parse.c into compact records; here they
 * become the run's per-rank timeline (model/trace/trace.h): ranks resolved
 * (distributedInfo.rank, else rank<N> in the path, else the file order),
 * each rank assembled by trace_build.c (kernels linked to their CPU launch,
 * steps placed, figures computed: probetop-rules(7), PROFILER TRACES), the
 * times rebased, and the cube built. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "model/trace/p2p.h"
#include "model/trace/phases.h"
#include "model/trace/tpatterns.h"
#include "model/trace/trace.h"
#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "model/trace/trace_cube.h"
#include "model/util/fs.h"
#include "model/util/pool.h"
#include "model/util/rankdirs.h"
#include "model/util/shelf.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/filewalk.h"
#include "src/io/common/reader.h"
#include "src/io/formats.h"
#include "src/io/trace/pgconfig.h"
#include "src/io/trace/trace_build.h"
#include "src/io/trace/trace_parse.h"

#define TRACE_MAX_FILES 100000
#define TRACE_WALK_DEPTH 4
#define TRACE_HEAD 65536
#define TRACE_MIN_SEGS 65536
#ifndef TRACE_SPLIT_MIN
#define TRACE_SPLIT_MIN ((uint64_t)8 << 20)   /* a file parsed on two threads from this size */
#endif   /* a rank's lane view always holds this many kernels unmerged */

/* ---- which files are traces ---- */

static int strong_name(const char *base) {
    return util_ends_with(base, ".pt.trace.json") || util_ends_with(base, ".pt.trace.json.gz") ||
           !strcmp(base, "trace_view.json") || !strcmp(base, "trace_view.json.gz");
}
static int json_name(const char *base) { return util_ends_with(base, ".json") || util_ends_with(base, ".json.gz"); }

/* The first bytes of a file (inflated when gzip'ed) look like a chrome trace. */
static int head_is_trace(const char *path) {
    gzFile g = gzopen(path, "rb");
    if (!g) return 0;
    char *buf = malloc(TRACE_HEAD + 1);
    int n = buf ? gzread(g, buf, TRACE_HEAD) : -1;
    gzclose(g);
    if (n <= 0) { free(buf); return 0; }
    buf[n] = '\0';
    for (char *z = buf; (z = memchr(z, '\0', (size_t)(buf + n - z))); z++) *z = ' ';   /* (strstr stops at one) */
    const char *p = buf;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    int yes = (*p == '{' && (strstr(p, "\"traceEvents\"") || strstr(p, "\"schemaVersion\"") || strstr(p, "\"distributedInfo\""))) ||
              (*p == '[' && strstr(p, "\"ph\"") && strstr(p, "\"ts\""));
    free(buf);
    return yes;
}

static const char *base_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int is_trace_file(const char *path) {
    const char *b = base_of(path);
    if (strong_name(b)) return 1;
    return json_name(b) && head_is_trace(path);
}

/* Folders a trace never lives in: hidden ones, and the raw halves of an
 * Ascend profile (PROF_*: msprof's own timelines would count twice). */
static int skip_dir(const char *name) { return name[0] == '.' || !strncmp(name, "PROF_", 5) || !strcmp(name, "FRAMEWORK"); }

/* A file of the walk: a trace by its name, else a .json[.gz] whose head
 * looks like one (the head read costs detection's budget); a .json that is
 * not a trace is -1, noted as skipped at the root of a load. */
static int accept_trace(const char *name, const char *path, const struct stat *st, int *budget) {
    (void)st;
    if (!json_name(name)) return 0;
    if (strong_name(name)) return 1;
    if (budget && --*budget < 0) return -1;
    return head_is_trace(path) ? 1 : -1;
}

static const struct filewalk trace_walk = {
    .max_depth = TRACE_WALK_DEPTH, .max_files = TRACE_MAX_FILES, .what = "trace files",
    .skip_dir = skip_dir, .accept = accept_trace,
};

static int detect_trace(const char *path, const struct stat *st) {
    if (S_ISREG(st->st_mode)) return is_trace_file(path) ? 100 : 0;
    struct filewalk_list fl = {0};
    int budget = 32;
    filewalk_run(&trace_walk, path, &fl, NULL, &budget, NULL);
    int found = fl.n > 0;
    filewalk_list_free(&fl);
    return found ? 100 : 0;
}

/* ---- ranks from paths ---- */

/* torch_npu writes profiler_info_<R>.json beside ASCEND_PROFILER_OUTPUT. */
static long ascend_info_rank(const char *path) {
    const char *out = strstr(path, "/ASCEND_PROFILER_OUTPUT/");
    if (!out) return -1;
    char *dir = strndup(path, (size_t)(out - path));
    if (!dir) return -1;
    long r = util_profiler_info_rank(dir);
    free(dir);
    return r;
}

/* The rank a path names: its file name, else its folders from the nearest. */
static long rank_of_path(const char *path) {
    const char *b = base_of(path);
    long r = util_rank_in_name(b, strlen(b), CUBE_MAX_RANKS);
    if (r >= 0) return r;
    if ((r = ascend_info_rank(path)) >= 0) return r;
    const char *end = b > path ? b - 1 : path;
    while (end > path) {
        const char *s = end;
        while (s > path && s[-1] != '/') s--;
        if ((r = util_rank_in_name(s, (size_t)(end - s), CUBE_MAX_RANKS)) >= 0) return r;
        end = s > path ? s - 1 : path;
    }
    return -1;
}

/* ---- the run ---- */

struct tfile {
    char *path;
    long rank;
    int rank_src;   /* 0 distributedInfo, 1 path, 2 file order */
    struct trace_parse_file f;
    struct trace_parse_names names;   /* its kernel names while it is parsed */
    uint32_t *to;            /* then: its name indices in the run's table */
    int bad;                 /* did not parse: err says why */
    struct pt_error err;
};

static int cmp_tfile(const void *a, const void *b) {
    const struct tfile *x = a, *y = b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return strcmp(x->path, y->path);
}

/* Every time relative to the run's first event (on a whole microsecond, as
 * the rank totals were rounded on the original clock). */
static int rebase(struct trace_run *run, const char *path, struct pt_error *err) {
    int64_t o = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < run->nranks; i++) {
        const struct trace_rank *r = &run->ranks[i];
        for (size_t q = 0; q < r->nsegs; q++) {
            if (r->segs[q].start_ns < o) o = r->segs[q].start_ns;
            if (r->segs[q].start_ns + r->segs[q].dur_ns > hi) hi = r->segs[q].start_ns + r->segs[q].dur_ns;
        }
        for (int s = 0; s < r->nsteps; s++) {
            const struct trace_step *st = &r->steps[s];
            int64_t lo = st->cpu_start_ns < st->start_ns ? st->cpu_start_ns : st->start_ns;
            int64_t h = st->cpu_end_ns > st->end_ns ? st->cpu_end_ns : st->end_ns;
            if (lo < o) o = lo;
            if (h > hi) hi = h;
        }
    }
    if (o == INT64_MAX) return 0;
    o = o / 1000 * 1000 - (o % 1000 < 0 ? 1000 : 0);
    run->origin_ns = o;
    int64_t span;
    if (__builtin_sub_overflow(hi, o, &span))
        return pt_errorf(err, "%s: the trace files' times are more than 292 years apart (mixed clocks?)", path);
    for (int i = 0; i < run->nranks; i++) {
        struct trace_rank *r = &run->ranks[i];
        for (size_t q = 0; q < r->nsegs; q++) r->segs[q].start_ns -= o;
        for (size_t q = 0; q < r->np2p; q++) r->p2p[q].start_ns -= o;
        for (int s = 0; s < r->nsteps; s++) {
            r->steps[s].start_ns -= o;
            r->steps[s].end_ns -= o;
            r->steps[s].cpu_start_ns -= o;
            r->steps[s].cpu_end_ns -= o;
        }
    }
    return 0;
}

static int collect(const char *path, struct filewalk_list *fl, struct dataset *ds, struct pt_error *err) {
    struct stat st;
    if (stat(path, &st) != 0) return pt_errorf(err, "%s: %s", path, strerror(errno));
    if (S_ISREG(st.st_mode)) {
        if (UTIL_PUSH(fl->v, fl->n, fl->cap) || !(fl->v[fl->n] = strdup(path))) return pt_errorf(err, "out of memory");
        fl->n++;
        return 0;
    }
    if (filewalk_run(&trace_walk, path, fl, ds, NULL, err)) return -1;
    if (!fl->n)
        return pt_errorf(err, "%s: no profiler trace in this folder (*.json or *.json.gz with traceEvents, "
                              "*.pt.trace.json, ASCEND_PROFILER_OUTPUT/trace_view.json)", path);
    qsort(fl->v, fl->n, sizeof *fl->v, util_cmp_str);
    return 0;
}

static void warn_file(struct dataset *ds, const struct tfile *t) {
    if (t->f.nneg) dataset_warn(ds, "%s: %zu events with a negative duration skipped", t->path, t->f.nneg);
    if (t->f.nlumped)
        dataset_warn(ds, "%s: %zu kernels with names beyond what --mem holds of names are named \"%s\"", t->path,
                     t->f.nlumped, TRACE_PARSE_LUMPED);
    if (t->f.nbadts) dataset_warn(ds, "%s: %zu device events whose ts or dur is not a number skipped", t->path, t->f.nbadts);
    if (!t->f.nkernels) dataset_warn(ds, "%s: no device kernels (a CPU-only trace?)", t->path);
}

/* Ranks for files that name none: the file order, after the known ones. */
static void resolve_ranks(struct tfile *t, size_t n, struct dataset *ds) {
    long next = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].f.rank >= 0) t[i].rank = t[i].f.rank, t[i].rank_src = 0;
        else if ((t[i].rank = rank_of_path(t[i].path)) >= 0) t[i].rank_src = 1;
        if (t[i].rank >= next) next = t[i].rank + 1;
    }
    for (size_t i = 0; i < n; i++)
        if (t[i].rank < 0) {   /* a lone file without a rank is rank 0, silently */
            t[i].rank = n == 1 ? 0 : next++;
            t[i].rank_src = 2;
            if (n > 1)
                dataset_warn(ds, "%s: no rank (no distributedInfo.rank, no rank<N> in its path): taken as rank %ld from the file order",
                             t[i].path, t[i].rank);
        }
}

/* Two threads or more for each of n jobs (files or ranks): a big file's
 * parse takes two (trace_split.h), a rank's build sums its window on a
 * second (trace_build_ctx.spare). */
static int thread_to_spare(size_t n) { return 2 * n <= (size_t)util_pool_threads(4); }

struct parse_job {
    struct tfile *t;
    size_t n;
    const struct load_opts *o;
    pthread_mutex_t mu;       /* done, bytes, the progress callback */
    size_t done;
    uint64_t bytes, total;
};

/* One file, with its own name table (merged afterwards): files parse in parallel. */
static int parse_one(void *ctx, size_t i, struct pt_error *e) {
    struct parse_job *j = ctx;
    struct tfile *t = &j->t[i];
    if (trace_parse(t->path, &t->names, TRACE_PARSE_MAX_VALUE, j->o->cancel, &t->f, &t->err)) {
        /* a file that does not parse is that rank's problem, not the run's
         * (parse_all says so); a cancel ends the load */
        if (j->o->cancel && atomic_load(j->o->cancel)) return pt_errorf(e, "cancelled");
        t->bad = 1;
        trace_parse_file_free(&t->f);
        memset(&t->f, 0, sizeof t->f);
        trace_parse_names_free(&t->names);
    }
    pthread_mutex_lock(&j->mu);
    j->done++;
    j->bytes += t->f.bytes;
    if (j->o->progress) j->o->progress(j->o->progress_ctx, j->done, j->n, j->bytes, j->total);
    pthread_mutex_unlock(&j->mu);
    return 0;
}

/* Every file's kernel names into the run's table (t[i].to maps them). */
static int merge_names(struct tfile *t, size_t n, struct trace_parse_names *names, struct pt_error *err) {
    names->map.borrow = 1;
    for (size_t i = 0; i < n; i++) {
        struct trace_parse_names *local = &t[i].names;
        uint32_t *to = malloc((local->n ? local->n : 1) * sizeof *to);
        if (!to) return pt_errorf(err, "out of memory");
        for (size_t q = 0; q < local->n; q++) {
            int32_t *slot = util_smap_slot(&names->map, local->v[q], 0);
            if (!slot) {   /* new: the run's table takes the file's copy */
                if (UTIL_PUSH(names->v, names->n, names->cap) ||
                    !(slot = util_smap_slot(&names->map, local->v[q], 1))) {
                    free(to);
                    return pt_errorf(err, "out of memory");
                }
                names->v[names->n] = local->v[q];
                local->v[q] = NULL;
                *slot = (int32_t)names->n++;
            }
            to[q] = (uint32_t)*slot;
        }
        t[i].to = to;   /* the kernels are renumbered as they are read back */
        trace_parse_names_free(local);
    }
    return 0;
}

/* Parses the n files of t.  A file that does not parse is left out of t
 * (*n counts those left) with a warning naming it and the place, or, in
 * follow mode while it is young, as pending; only when none parses does
 * the load fail, with the first one's message. */
static int parse_all(struct tfile *t, size_t *np, struct trace_parse_names *names, const struct load_opts *o,
                     struct trace_spill_budget *bud, struct dataset *ds, struct pt_error *err) {
    size_t n = *np;
    struct parse_job j = {.t = t, .n = n, .o = o};
    /* a thread per file; with two threads or more for each, a big file
     * takes two (trace_split.h) */
    uint64_t split = thread_to_spare(n) ? TRACE_SPLIT_MIN : 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(t[i].path, &st) == 0) j.total += (uint64_t)st.st_size;
        t[i].rank = -1;
        t[i].f.budget = bud;
        t[i].f.split_min = split;
    }
    pthread_mutex_init(&j.mu, NULL);
    int rc = util_pool_for(n, parse_one, &j, err);
    pthread_mutex_destroy(&j.mu);
    if (rc) return -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!t[i].bad) {
            k++;
            continue;
        }
        int r = reader_young(ds, t[i].path) ? dataset_pending(ds, t[i].path, "does not parse yet (being written?)")
                                               : dataset_warn(ds, "%s", t[i].err.msg) | dataset_skip(ds, t[i].path);
        if (r != 0) return pt_errorf(err, "out of memory");
    }
    if (k == 0) {   /* none parsed: the first one's message */
        *err = t[0].err;
        return -1;
    }
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (!t[i].bad) t[k++] = t[i];
    memset(t + k, 0, (n - k) * sizeof *t);   /* moved down: the tail holds nothing to free */
    *np = n = k;
    for (size_t i = 0; i < n; i++) {
        ds->files_read++;
        ds->bytes_read += t[i].f.bytes;
        warn_file(ds, &t[i]);
    }
    return merge_names(t, n, names, err);
}

/* One rank to build: its files, and what its build found. */
struct rank_job {
    struct trace_rank *r;
    struct trace_build_file *files;
    size_t nf, max_segs;
    struct trace_build_out out;
    int rc;
    struct pt_error err;
};

struct build_job {
    struct rank_job *rj;
    int multi, synth;
    struct trace_spill_budget *bud;
    const struct trace_build_ctx *x;
};

/* Rank i (util_pool_for): it touches only its own rank_job. */
static int build_one(void *ctx, size_t i, struct pt_error *e) {
    struct build_job *j = ctx;
    struct rank_job *q = &j->rj[i];
    q->rc = trace_build_rank(q->r, q->files, q->nf, j->multi, j->synth, q->max_segs, j->bud, j->x, &q->out, &q->err);
    if (q->rc && e) *e = q->err;
    return q->rc;
}

static int build_run(struct tfile *t, size_t n, struct trace_parse_names *names, struct trace_spill_budget *bud, uint64_t lane_bytes,
                     struct trace_build_ctx *x, struct dataset *ds, struct trace_run **out, struct pt_error *err) {
    /* HTA filters on its window only when the run has two steps or more */
    int32_t first_step = INT32_MIN;
    int multi = 0, any_step = 0;
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) {
        nk += t[i].f.nkernels;
        for (size_t j = 0; j < t[i].f.nsteps; j++) {
            any_step = 1;
            if (first_step == INT32_MIN) first_step = t[i].f.steps[j].n;
            else if (t[i].f.steps[j].n != first_step) multi = 1;
        }
    }
    if (!nk)
        return pt_errorf(err, "%s: no device kernels in %zu trace file%s (a CPU-only profile?): nothing to break down",
                         ds->path, n, n == 1 ? "" : "s");
    if (!any_step) dataset_warn(ds, "%s: no ProfilerStep#N annotation: each rank's whole trace is step 0", ds->path);
    qsort(t, n, sizeof *t, cmp_tfile);
    struct trace_run *run = calloc(1, sizeof *run);
    if (!run) return pt_errorf(err, "out of memory");
    size_t nr = 0;
    for (size_t i = 0; i < n; i++) nr += i == 0 || t[i].rank != t[i - 1].rank;
    run->ranks = calloc(nr, sizeof *run->ranks);
    struct trace_build_file *files = malloc(n * sizeof *files);
    struct trace_parse_file **fp = malloc(n * sizeof *fp);
    x->names = names->v;
    x->nnames = names->n;
    if (!run->ranks || !files || !fp) {
        free(fp);
        free(files);
        trace_run_free(run);
        return pt_errorf(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) fp[i] = &t[i].f;
    int grc = pgconfig_gather(fp, n, ds->path, run, ds, err);   /* before the kernels: their groups' dimensions */
    free(fp);
    if (grc) { free(files); trace_run_free(run); return -1; }
    struct rank_job *rj = calloc(nr, sizeof *rj);
    if (!rj) { free(files); trace_run_free(run); return pt_errorf(err, "out of memory"); }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        size_t rk = 0;   /* the rank's kernels */
        while (j < n && t[j].rank == t[i].rank) { files[j] = (struct trace_build_file){&t[j].f, t[j].to}; rk += t[j].f.nkernels; j++; }
        /* the lane view's share of --mem, by the rank's share of the kernels */
        double share = (double)lane_bytes / sizeof(struct trace_seg) * ((double)rk / (double)nk);
        struct rank_job *q = &rj[run->nranks];
        *q = (struct rank_job){.files = files + i, .nf = j - i, .r = &run->ranks[run->nranks++]};
        q->max_segs = share < TRACE_MIN_SEGS ? TRACE_MIN_SEGS : share > 1e15 ? (size_t)1e15 : (size_t)share;
        q->r->rank = (int32_t)t[i].rank;
        if (!(q->r->file = strdup(t[i].path))) { free(rj); free(files); trace_run_free(run); return pt_errorf(err, "out of memory"); }
        i = j;
    }
    /* the ranks are built in parallel, but one after another when every
     * kernel goes to the --kernels sink (its rows in rank order) */
    x->spare = thread_to_spare(nr);
    struct build_job bj = {.rj = rj, .multi = multi, .synth = !any_step, .bud = bud, .x = x};
    size_t failed = nr;
    /* a rank's buffers to the next built (trace_spill.h), a sixteenth of
     * --mem at most (probetop-formats(5), PROFILER TRACES: Memory) */
    struct util_shelf shelf;
    if (util_shelf_init(&shelf, TRACE_SPILL_SHELF, UTIL_SHELF_LOCK | UTIL_SHELF_CUT, bud->cap / 8)) { free(rj); free(files); trace_run_free(run); return pt_errorf(err, "%s: out of memory (the buffer shelf)", ds->path); }
    x->shelf = &shelf;
    if (x->o->trace_kernel) {
        for (size_t i = 0; i < nr && build_one(&bj, i, NULL) == 0; i++) {}
    } else {
        struct pt_error perr;
        util_pool_for(nr, build_one, &bj, &perr);
    }
    x->shelf = NULL;
    util_shelf_free(&shelf);
    for (size_t i = 0; i < nr && failed == nr; i++)   /* the first rank that failed, as one after another would stop */
        if (rj[i].rc) failed = i;
    for (size_t i = 0; i < nr && i <= failed; i++) {   /* the warnings in rank order, as when built one after another */
        struct trace_rank *r = rj[i].r;
        if (rj[i].nf > 1 && !strstr(r->file, "iteration_"))
            dataset_warn(ds, "rank %d: %zu trace files (%s, ...): their events are taken together", r->rank, rj[i].nf, r->file);
        if (rj[i].out.dup_steps)
            dataset_warn(ds, "%s: rank %d: %zu ProfilerStep#N numbers appear more than once; the first of each is kept", r->file,
                         r->rank, rj[i].out.dup_steps);
        if (i == failed) break;
        if (r->lane_merge_ns)
            dataset_warn(ds, "%s: rank %d: %zu kernels, more than --mem holds for the lane view: it shows them merged into "
                             "%zu segments (per stream, the kernels starting in %.3f us of a step are one); the figures count "
                             "every kernel", r->file, r->rank, r->nkernels, r->nsegs, (double)r->lane_merge_ns / 1000.0);
        if (any_step && !r->nsteps) dataset_warn(ds, "%s: rank %d has no ProfilerStep#N: it has no step in the heat map", r->file, r->rank);
        run->has_phases |= rj[i].out.has_phase;
        run->has_micro |= rj[i].out.has_micro;
    }
    if (failed < nr) *err = rj[failed].err;
    free(rj);
    free(files);
    if (failed < nr) {
        trace_run_free(run);
        return -1;
    }
    if (rebase(run, ds->path, err)) {
        trace_run_free(run);
        return -1;
    }
    run->names = names->v;   /* the run takes the name table */
    run->nnames = names->n;
    names->v = NULL;
    names->n = names->cap = 0;
    *out = run;
    return 0;
}

static int load_trace(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct filewalk_list fl = {0};
    struct trace_parse_names names;
    memset(&names, 0, sizeof names);
    struct tfile *t = NULL;
    ds->micro_step = 0;   /* a trace has steps, not micro steps */
    /* --mem: half for the kernels and launches being sorted (the rest goes
     * to a temporary file), a quarter for the lane view's segments
     * (probetop-formats(5), PROFILER TRACES: Memory) */
    uint64_t mem = o->mem_budget ? o->mem_budget : util_default_mem();
    struct trace_spill_budget bud = {.cap = mem / 2};
    int rc = collect(path, &fl, ds, err);
    size_t n = fl.n;   /* the files that parsed */
    if (rc == 0 && !(t = calloc(fl.n, sizeof *t))) rc = pt_errorf(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < fl.n; i++) t[i].path = fl.v[i];
    struct trace_build_ctx x = {.pat = o->trace_patterns, .o = o};
    struct tpatterns *own = NULL;
    if (rc == 0 && !x.pat && !(x.pat = own = tpatterns_new(err))) rc = -1;
    for (size_t i = 0; rc == 0 && i < fl.n; i++) t[i].f.patterns = x.pat;
    if (rc == 0) rc = parse_all(t, &n, &names, o, &bud, ds, err);
    if (rc == 0) {
        resolve_ranks(t, n, ds);
        rc = build_run(t, n, &names, &bud, mem / 4, &x, ds, &ds->trace, err);
    }
    tpatterns_free(own);
    uint64_t spilled = atomic_load(&bud.spilled);
    if (rc == 0 && spilled)
        dataset_warn(ds, "%s: the kernels are more than --mem (%.0f MiB) holds while they are sorted: %.0f MiB went "
                         "through a temporary file", path, (double)mem / 1048576.0, (double)spilled / 1048576.0);
    for (size_t i = 0; t && i < fl.n; i++) {
        trace_parse_file_free(&t[i].f);
        trace_parse_names_free(&t[i].names);
        free(t[i].to);
    }
    free(t);
    filewalk_list_free(&fl);
    trace_parse_names_free(&names);
    if (rc == 0) rc = o->trace_axes_only ? trace_cube_build_axes(ds->trace, &ds->cube, err) : trace_cube_build(ds->trace, o->micro_step, &ds->cube, err);
    return rc;
}

const struct formats_row formats_row_trace = {
    .name = "trace",
    .what = "profiler trace (Kineto *.json[.gz], torch_npu trace_view.json)",
    .detect = detect_trace,
    .load = load_trace,
    .write_trenddb = NULL,
    .labels = LABELS_MONITOR,   /* "forward.compute": labels forward, compute */
};
