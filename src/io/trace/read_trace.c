/* read_trace: profiler traces (probetop-formats(5), PROFILER TRACES): one
 * Kineto chrome trace per rank (*.json, *.json.gz, TraceViz's
 * iteration_<N>/rank_<R>_iter_<N>.pt.trace.json) or torch_npu's
 * ASCEND_PROFILER_OUTPUT/trace_view.json, a file or a folder of them.
 *
 * Each file is streamed by trace_parse.c into compact records; here they
 * become the run's per-rank timeline (model/trace/trace.h): ranks resolved
 * (distributedInfo.rank, else rank<N> in the path, else the file order),
 * kernels linked to their CPU launch by correlation id (step, Megatron
 * phase, HTA's window), steps placed on the device timeline, figures
 * computed (probetop-rules(7), PROFILER TRACES), and the cube built. */
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
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/filewalk.h"
#include "src/io/common/reader.h"
#include "src/io/formats.h"
#include "src/io/trace/pgconfig.h"
#include "src/io/trace/trace_parse.h"

#define TRACE_MAX_FILES 100000
#define TRACE_WALK_DEPTH 4
#define TRACE_HEAD 65536
#define TRACE_MIN_SEGS 65536   /* a rank's lane view always holds this many kernels unmerged */

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
    for (int i = 0; i < n; i++)
        if (!buf[i]) buf[i] = ' ';
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

/* ---- assembling a rank ---- */

struct ktmp {
    struct trace_seg seg;
    int32_t step;       /* ProfilerStep it was launched in, INT32_MIN none */
    int32_t hta_ds, hta_de;   /* HTA's rounding of its start and end (trace_parse_kernel), 0 unless its file has ts_frac */
    uint8_t keep;       /* in HTA's window */
    uint8_t hta_kernel; /* in HTA's idle breakdown (trace_parse_kernel) */
    int64_t launch_ns;  /* its CPU launch (HTA's whole us when hta_ds is), IDLE_NO_LAUNCH none */
    int16_t micro;      /* its micro-batch in the step, -1 none (or beyond 32767) */
};

static int cmp_step(const void *a, const void *b) {
    const struct trace_parse_step *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}
static int cmp_anno(const void *a, const void *b) {
    const struct trace_parse_anno *x = a, *y = b;
    if (x->start != y->start) return (x->start > y->start) - (x->start < y->start);
    return (x->end < y->end) - (x->end > y->end);   /* the enclosing one first */
}
/* A CPU ProfilerStep of one of a rank's files, numbered in file order. */
struct step_ref {
    int32_t n;
    size_t seq;
    int64_t start, end;
};
static int cmp_step_ref(const void *a, const void *b) {
    const struct step_ref *x = a, *y = b;
    if (x->n != y->n) return (x->n > y->n) - (x->n < y->n);
    return (x->seq > y->seq) - (x->seq < y->seq);
}
static int cmp_trace_step(const void *a, const void *b) {
    const struct trace_step *x = a, *y = b;
    return (x->cpu_start_ns > y->cpu_start_ns) - (x->cpu_start_ns < y->cpu_start_ns);
}
static int cmp_ktmp(const void *a, const void *b) {
    const struct ktmp *x = a, *y = b;
    if (x->seg.start_ns != y->seg.start_ns) return (x->seg.start_ns > y->seg.start_ns) - (x->seg.start_ns < y->seg.start_ns);
    return (x->seg.stream > y->seg.stream) - (x->seg.stream < y->seg.stream);
}

/* The last of n items sorted by start whose start <= t, or -1. */
#define LAST_AT_OR_BEFORE(arr, n, t, out)                     \
    do {                                                      \
        size_t lo_ = 0, hi_ = (n);                            \
        while (lo_ < hi_) {                                   \
            size_t mid_ = (lo_ + hi_) / 2;                    \
            if ((arr)[mid_].start <= (t)) lo_ = mid_ + 1;     \
            else hi_ = mid_;                                  \
        }                                                     \
        (out) = (long)lo_ - 1;                                \
    } while (0)

/* The CPU step (gpu copies left out) whose span holds t: its number, or INT32_MIN. */
static int32_t step_at(const struct trace_parse_step *s, size_t n, int64_t t) {
    long i;
    LAST_AT_OR_BEFORE(s, n, t, i);
    for (; i >= 0; i--) {   /* gpu copies are interleaved: skip them */
        if (s[i].gpu) continue;
        return t < s[i].end ? s[i].n : INT32_MIN;
    }
    return INT32_MIN;
}

/* The innermost annotation holding t (parent[] links each to the one
 * enclosing it), -1 none. */
static long anno_at(const struct trace_parse_anno *a, const long *parent, size_t n, int64_t t) {
    long i;
    LAST_AT_OR_BEFORE(a, n, t, i);
    while (i >= 0 && a[i].end <= t) i = parent[i];
    return i;
}

/* Micro-batches (probetop-rules(7), PROFILER TRACES: Micro-batches): the
 * k-th forward_step (backward_step) of a step is micro-batch k, unless it
 * nests in one of its kind (one pass seen twice); what nests in a pass
 * takes its micro-batch. */
static void anno_micros(struct trace_parse_anno *a, const long *parent, size_t n, const struct trace_parse_file *f) {
    int32_t step = INT32_MIN, nf = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t st = step_at(f->steps, f->nsteps, a[i].start);
        if (st != step) step = st, nf = nb = 0;
        a[i].micro = parent[i] >= 0 ? a[parent[i]].micro : -1;
        if (a[i].phase != TRACE_PH_FORWARD && a[i].phase != TRACE_PH_BACKWARD) continue;
        long q = parent[i];
        while (q >= 0 && a[q].phase != a[i].phase) q = parent[q];
        if (q < 0) a[i].micro = a[i].phase == TRACE_PH_FORWARD ? nf++ : nb++;
    }
}

/* torch_npu: kernels without a correlation id (v, nv: sorted by stream
 * then start) take the id of the launch flow ending inside them (same
 * stream). */
static void link_flows(struct trace_parse_kernel *v, size_t n, const struct trace_parse_file *f) {
    for (size_t i = 0; i < f->nflows; i++) {
        const struct trace_parse_flow *w = &f->flows[i];
        int64_t st = w->tid < 0 ? 0 : w->tid > 65535 ? 65535 : w->tid;
        int64_t ts = w->ts - f->base_ns;   /* the kernels have no base yet */
        size_t lo = 0, hi = n;   /* the last kernel of the stream starting at or before the flow */
        while (lo < hi) {
            size_t m = (lo + hi) / 2;
            if (v[m].stream < st || (v[m].stream == st && v[m].start <= ts)) lo = m + 1;
            else hi = m;
        }
        if (lo == 0) continue;
        struct trace_parse_kernel *k = &v[lo - 1];
        if (k->stream == st && ts <= k->start + k->dur && k->corr < 0) k->corr = w->id;
    }
}

/* What the assembling of every rank shares: the patterns, which names
 * are EP communication, the kernel sink (probetop trace --kernels). */
struct run_ctx {
    const struct tpatterns *pat;
    struct tpat_md *md;
    uint8_t *ep;             /* by run name index: 0 not asked yet, 1 no, 2 name_ep */
    char **names;            /* the run's names */
    size_t nnames;
    const struct load_opts *o;
    int has_micro;
};

/* One file of a rank and what its rank is assembling. */
struct rfile {
    struct trace_parse_file *f;
    const uint32_t *to;      /* its kernel names in the run's table */
};

struct rank_build {
    struct trace_rank *r;
    int n;                   /* steps */
    int32_t *num;            /* their numbers, ascending */
    int64_t *first, *last;   /* by num: the first start and last end of the kernels launched in it */
    int synth;
    struct trace_spill *k;           /* every kernel of the rank (ktmp), by start */
    int64_t lo, hi;          /* the first start, the last end */
    uint8_t streams[8192];   /* which streams have kernels (a bit each) */
    size_t nstreams;
    int frac;
    size_t capp2p, maxp2p;   /* sends and receives kept: as many as the lane view's segments */
    struct run_ctx *x;
};

/* The annotations' nesting: parent[i] is the one enclosing a[i] (a sorted). */
static long *anno_parents(const struct trace_parse_anno *a, size_t n) {
    long *parent = malloc((n ? n : 1) * sizeof *parent), *stack = malloc((n ? n : 1) * sizeof *stack);
    if (!parent || !stack) { free(parent); free(stack); return NULL; }
    size_t sp = 0;
    for (size_t i = 0; i < n; i++) {
        while (sp && a[stack[sp - 1]].end <= a[i].start) sp--;
        parent[i] = sp ? stack[sp - 1] : -1;
        stack[sp++] = (long)i;
    }
    free(stack);
    return parent;
}

/* One kernel k with its launch l (NULL: none) into the rank. */
static int take_kernel(struct rank_build *b, const struct rfile *rf, const struct trace_parse_kernel *k, const struct trace_parse_launch *l,
                       const long *parent, int multi_step, int64_t last_start, int *has_phase, const char *path,
                       struct pt_error *err) {
    const struct trace_parse_file *f = rf->f;
    int64_t st, end, lts = 0;
    if (__builtin_add_overflow(k->start, f->base_ns, &st) || __builtin_add_overflow(st, k->dur, &end) ||
        (l && __builtin_add_overflow(l->ts, f->base_ns, &lts)))
        return pt_errorf(err, "%s: baseTimeNanoseconds plus the event times is beyond 292 years of nanoseconds", path);
    struct ktmp t;
    memset(&t, 0, sizeof t);
    t.seg = (struct trace_seg){.start_ns = st, .dur_ns = k->dur, .name = rf->to ? rf->to[k->name] : k->name,
                               .cat = k->cat, .phase = TRACE_PH_NONE, .stream = k->stream};
    t.step = step_at(f->steps, f->nsteps, l ? lts : st);
    t.hta_ds = f->ts_frac ? k->hta_ds : 0;
    t.hta_de = f->ts_frac ? k->hta_de : 0;
    t.hta_kernel = k->hta_kernel;
    t.launch_ns = l ? lts : IDLE_NO_LAUNCH;
    if (l && f->ts_frac) t.launch_ns += l->hta_ds;   /* HTA rounds the launch's start up to a whole us too */
    long ai = l && f->nannos ? anno_at(f->annos, parent, f->nannos, lts) : -1;
    t.micro = ai >= 0 && f->annos[ai].micro <= INT16_MAX ? (int16_t)f->annos[ai].micro : -1;
    t.seg.phase = ai >= 0 ? f->annos[ai].phase : TRACE_PH_NONE;
    if (k->cat == TRACE_COMM) {   /* its group, else the pass it is in (probetop-rules(7), PROFILER TRACES: Phases) */
        uint8_t *ep = &b->x->ep[t.seg.name];
        if (!*ep) *ep = 1 + (uint8_t)tpatterns_match(b->x->pat, b->x->md, TPAT_NAME_EP, b->x->names[t.seg.name], strlen(b->x->names[t.seg.name]));
        t.seg.phase = (uint8_t)phases_comm(t.seg.phase, k->pg ? f->pgs[k->pg - 1].dim : TPAT_DIM_NONE, *ep == 2);
    }
    if (k->p2p && k->peer >= 0 && b->r->np2p < b->maxp2p &&   /* a send or receive with its peer, for the pipeline view */
        p2p_push(b->r, &b->capp2p, &(struct trace_p2p){st, k->dur, k->pg ? util_hash_str(f->pgs[k->pg - 1].name) : 0, k->peer, k->p2p == 1}))
        return pt_errorf(err, "out of memory");
    if (t.micro >= 0) b->x->has_micro = 1;
    if (t.seg.phase != TRACE_PH_NONE) *has_phase = 1;
    if (!multi_step) t.keep = 1;
    else if (k->corr >= 0) t.keep = l && f->nsteps && lts < last_start;
    else t.keep = f->nsteps && st < last_start;
    int32_t *hit = b->synth ? b->num : bsearch(&t.step, b->num, (size_t)b->n, sizeof *b->num, util_cmp_i32);
    if (hit) {
        size_t i = (size_t)(hit - b->num);
        if (st < b->first[i]) b->first[i] = st;
        if (end > b->last[i]) b->last[i] = end;
    }
    if (!trace_spill_count(b->k) || st < b->lo) b->lo = st;
    if (!trace_spill_count(b->k) || end > b->hi) b->hi = end;
    if (!(b->streams[k->stream >> 3] & (1u << (k->stream & 7)))) {
        b->streams[k->stream >> 3] |= (uint8_t)(1u << (k->stream & 7));
        b->nstreams++;
    }
    return trace_spill_push(b->k, &t, err);
}

/* One file's kernels, joined to their launches by correlation id (both
 * streams in that order), into the rank; the file's streams are freed. */
static int join_file(struct rank_build *b, struct rfile *rf, int multi_step, int *has_phase, const char *path,
                     struct pt_error *err) {
    struct trace_parse_file *f = rf->f;
    if (f->nsteps > 1) qsort(f->steps, f->nsteps, sizeof *f->steps, cmp_step);   /* (qsort of NULL is undefined, even of 0 items) */
    if (f->nannos > 1) qsort(f->annos, f->nannos, sizeof *f->annos, cmp_anno);
    long *parent = anno_parents(f->annos, f->nannos);
    if (!parent) return pt_errorf(err, "out of memory");
    anno_micros(f->annos, parent, f->nannos, f);
    /* HTA's window: what was launched before the last ProfilerStep began */
    int64_t last_start = INT64_MIN;
    for (size_t i = 0; i < f->nsteps; i++)
        if (f->steps[i].start > last_start) last_start = f->steps[i].start;
    int rc = 0;
    struct trace_parse_kernel *neg = NULL;   /* torch_npu: the kernels a flow links, in memory */
    size_t nneg = 0, capneg = 0, ineg = 0;
    if ((f->kernels && trace_spill_sort(f->kernels, err)) || (f->launches && trace_spill_sort(f->launches, err))) rc = -1;
    const struct trace_parse_kernel *kq = rc || !f->kernels ? NULL : trace_spill_next(f->kernels, err);
    const struct trace_parse_launch *lq = rc || !f->launches ? NULL : trace_spill_next(f->launches, err);
    if (!rc && f->nflows) {   /* those without a correlation id come first, by stream then start */
        for (; kq && kq->corr < 0; kq = trace_spill_next(f->kernels, err)) {
            if (UTIL_PUSH(neg, nneg, capneg)) { rc = pt_errorf(err, "out of memory"); break; }
            neg[nneg++] = *kq;
        }
        link_flows(neg, nneg, f);
        if (nneg > 1) qsort(neg, nneg, sizeof *neg, trace_parse_cmp_kernel_corr);
    }
    while (!rc) {
        const struct trace_parse_kernel *k;
        int from_neg = ineg < nneg && (!kq || trace_parse_cmp_kernel_corr(&neg[ineg], kq) <= 0);
        if (from_neg) k = &neg[ineg++];
        else if (kq) k = kq;
        else break;
        const struct trace_parse_launch *l = NULL;
        if (k->corr >= 0) {
            while (lq && lq->corr < k->corr) lq = trace_spill_next(f->launches, err);
            if (lq && lq->corr == k->corr) l = lq;
        }
        rc = take_kernel(b, rf, k, l, parent, multi_step, last_start, has_phase, path, err);
        if (!from_neg) kq = trace_spill_next(f->kernels, err);
    }
    if (!rc && ((f->kernels && trace_spill_failed(f->kernels)) || (f->launches && trace_spill_failed(f->launches)))) rc = -1;
    free(neg);
    free(parent);
    trace_spill_free(f->kernels);
    trace_spill_free(f->launches);
    f->kernels = f->launches = NULL;
    return rc;
}

/* The steps of a rank from its files' CPU ProfilerStep spans (a step
 * number met twice keeps its first span), their numbers sorted into
 * b->num. */
static int make_steps(struct rank_build *b, struct rfile *files, size_t nf, struct dataset *ds, struct pt_error *err) {
    struct trace_rank *r = b->r;
    size_t ns = 0;
    for (size_t i = 0; i < nf; i++) ns += files[i].f->nsteps;
    if (b->synth) ns = 1;
    r->steps = calloc(ns ? ns : 1, sizeof *r->steps);
    if (!r->steps) return pt_errorf(err, "out of memory");
    int n = 0;
    if (b->synth) {   /* no ProfilerStep anywhere: the whole trace is step 0 */
        r->steps[0] = (struct trace_step){.step = 0};
        n = 1;
    } else {   /* by number then file order: the first of a number met twice is kept */
        struct step_ref *all = malloc((ns ? ns : 1) * sizeof *all);
        if (!all) return pt_errorf(err, "out of memory");
        size_t na = 0;
        for (size_t i = 0; i < nf; i++)
            for (size_t j = 0; j < files[i].f->nsteps; j++) {
                const struct trace_parse_step *s = &files[i].f->steps[j];
                if (!s->gpu) all[na] = (struct step_ref){s->n, na, s->start, s->end}, na++;
            }
        if (na > 1) qsort(all, na, sizeof *all, cmp_step_ref);
        size_t dups = 0;
        for (size_t i = 0; i < na; i++) {
            if (i && all[i].n == all[i - 1].n) { dups++; continue; }
            r->steps[n++] = (struct trace_step){.step = all[i].n, .cpu_start_ns = all[i].start, .cpu_end_ns = all[i].end};
        }
        free(all);
        if (dups) dataset_warn(ds, "%s: rank %d: %zu ProfilerStep#N numbers appear more than once; the first of each is kept", r->file, r->rank, dups);
        if (n > 1) qsort(r->steps, (size_t)n, sizeof *r->steps, cmp_trace_step);
    }
    r->nsteps = b->n = n;
    b->num = malloc((size_t)(n ? n : 1) * sizeof *b->num);
    b->first = malloc((size_t)(n ? n : 1) * sizeof *b->first);
    b->last = malloc((size_t)(n ? n : 1) * sizeof *b->last);
    if (!b->num || !b->first || !b->last) return pt_errorf(err, "out of memory");
    for (int i = 0; i < n; i++) { b->num[i] = r->steps[i].step; b->first[i] = INT64_MAX; b->last[i] = INT64_MIN; }
    qsort(b->num, (size_t)n, sizeof *b->num, util_cmp_i32);
    return 0;
}

/* The steps placed on the device timeline: from the first kernel launched
 * in each to the next one's start (the last: to its last kernel's end). */
static void place_steps(struct rank_build *b) {
    struct trace_rank *r = b->r;
    int n = b->n;
    for (int i = 0; i < n; i++) {
        struct trace_step *st = &r->steps[i];
        int32_t *hit = bsearch(&st->step, b->num, (size_t)n, sizeof *b->num, util_cmp_i32);
        size_t x = (size_t)(hit - b->num);
        int found = b->first[x] != INT64_MAX;
        st->start_ns = found ? b->first[x] : st->cpu_start_ns;
        st->end_ns = found ? b->last[x] : st->cpu_end_ns;
        if (b->synth && found) st->cpu_start_ns = b->first[x], st->cpu_end_ns = b->last[x];
        if (i > 0 && st->start_ns < r->steps[i - 1].start_ns) st->start_ns = r->steps[i - 1].start_ns;
    }
    for (int i = 0; i + 1 < n; i++) r->steps[i].end_ns = r->steps[i + 1].start_ns;
    for (int i = 0; i < n; i++)
        if (r->steps[i].end_ns < r->steps[i].start_ns) r->steps[i].end_ns = r->steps[i].start_ns;
}

/* The lane view's segments when the rank has more kernels than --mem
 * holds for it: per stream, the kernels starting in one slice of q ns (and
 * one step) become one segment from the first start to the last end,
 * named and coloured after the longest of them (probetop-formats(5),
 * PROFILER TRACES: Memory). */
struct lane_slot {
    struct trace_seg g;
    int64_t bucket, end, longest;
};
struct lane_merge {
    int64_t q, lo;
    int32_t *slot_of;        /* by stream: its slot, -1 none (65536) */
    struct lane_slot *slot;  /* the open ones */
    size_t nslot;
    uint16_t *open;          /* the streams with an open slot */
    size_t nopen;
};

static int emit(struct trace_rank *r, size_t *cap, const struct trace_seg *g, struct pt_error *err) {
    if (r->nsegs == *cap && util_grow((void **)&r->segs, cap, r->nsegs + 1, sizeof *r->segs)) return pt_errorf(err, "out of memory");
    r->segs[r->nsegs++] = *g;
    return 0;
}

static int lane_flush(struct lane_merge *m, struct trace_rank *r, size_t *cap, struct pt_error *err) {
    for (size_t i = 0; i < m->nopen; i++) {
        struct lane_slot *s = &m->slot[m->slot_of[m->open[i]]];
        s->g.dur_ns = s->end - s->g.start_ns;
        if (emit(r, cap, &s->g, err)) return -1;
        m->slot_of[m->open[i]] = -1;
    }
    m->nopen = m->nslot = 0;
    return 0;
}

static int lane_add(struct lane_merge *m, const struct trace_seg *g, struct trace_rank *r, size_t *cap, struct pt_error *err) {
    int64_t bucket = (g->start_ns - m->lo) / m->q, end = g->start_ns + g->dur_ns;
    int32_t i = m->slot_of[g->stream];
    if (i >= 0 && m->slot[i].bucket == bucket) {
        struct lane_slot *s = &m->slot[i];
        if (end > s->end) s->end = end;
        if (g->dur_ns > s->longest) {
            s->longest = g->dur_ns;
            s->g.name = g->name, s->g.cat = g->cat, s->g.phase = g->phase;
        }
        return 0;
    }
    if (i >= 0) {   /* the stream's slice is over */
        struct lane_slot *s = &m->slot[i];
        s->g.dur_ns = s->end - s->g.start_ns;
        if (emit(r, cap, &s->g, err)) return -1;
    } else {
        i = (int32_t)m->nslot++;
        m->slot_of[g->stream] = i;
        m->open[m->nopen++] = g->stream;
    }
    m->slot[i] = (struct lane_slot){.g = *g, .bucket = bucket, .end = end, .longest = g->dur_ns};
    return 0;
}

static int cmp_seg(const void *a, const void *b) {
    const struct trace_seg *x = a, *y = b;
    if (x->start_ns != y->start_ns) return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* The rank's kernels in start order: the figures of every step and of
 * HTA's window, and the lane view's segments (every kernel, or merged
 * when more than max_segs). */
static int stream_rank(struct rank_build *b, size_t max_segs, struct pt_error *err) {
    struct trace_rank *r = b->r;
    size_t nk = (size_t)trace_spill_count(b->k), cap = 0;
    struct lane_merge m = {0};
    if (trace_spill_sort(b->k, err)) return -1;
    if (nk > max_segs) {
        double q = ceil((double)(b->hi - b->lo) * (double)b->nstreams / (double)max_segs);
        m.q = q < 1 ? 1 : q > 1e18 ? (int64_t)1e18 : (int64_t)q;
        m.lo = b->lo;
        m.slot_of = malloc(65536 * sizeof *m.slot_of);
        m.slot = malloc(b->nstreams * sizeof *m.slot);
        m.open = malloc(b->nstreams * sizeof *m.open);
        if (!m.slot_of || !m.slot || !m.open) { free(m.slot_of); free(m.slot); free(m.open); return pt_errorf(err, "out of memory"); }
        memset(m.slot_of, 0xff, 65536 * sizeof *m.slot_of);
        r->lane_merge_ns = m.q;
    } else if (nk && !(r->segs = malloc(nk * sizeof *r->segs))) {
        return pt_errorf(err, "out of memory");
    } else {
        cap = nk;
    }
    struct trace_acc step, total;
    struct phases_step ps = {0};
    size_t capmicro = 0;
    trace_acc_init(&step);
    trace_acc_init(&total);
    struct kernels_acc ka;   /* HTA's kernel and idle tables, over the window */
    struct idle_acc ia;
    if (kernels_acc_init(&ka, (const char *const *)b->x->names, b->x->nnames)) {
        free(m.slot_of); free(m.slot); free(m.open);
        return pt_errorf(err, "out of memory");
    }
    if (idle_acc_init(&ia)) {
        kernels_acc_free(&ka);
        free(m.slot_of); free(m.slot); free(m.open);
        return pt_errorf(err, "out of memory");
    }
    int si = 0, rc = 0;
    const struct ktmp *t;
    while ((t = trace_spill_next(b->k, err))) {
        const struct trace_seg *g = &t->seg;
        while (si < b->n && g->start_ns >= r->steps[si].end_ns + (si + 1 == b->n)) {   /* the last keeps a kernel at its very end */
            if (phases_step_flush(&ps, r->steps[si].step, &r->micros, &r->nmicros, &capmicro)) { rc = pt_errorf(err, "out of memory"); break; }
            trace_acc_finish(&step, &r->steps[si++].stats);
            trace_acc_init(&step);
            if (m.q && (rc = lane_flush(&m, r, &cap, err))) break;
        }
        if (rc) break;
        int in_step = si < b->n && g->start_ns >= r->steps[si].start_ns;
        if (in_step) {
            trace_acc_add(&step, g);
            if (phases_step_add(&ps, t->micro, g)) { rc = pt_errorf(err, "out of memory"); break; }
        }
        if (b->x->o->trace_kernel) {   /* probetop trace --kernels: every kernel as it comes */
            struct trace_kernel_row row = {.rank = r->rank, .step = in_step ? r->steps[si].step : 0, .has_step = in_step,
                                           .micro = in_step ? t->micro : -1, .seg = g, .name = b->x->names[g->name]};
            if ((rc = b->x->o->trace_kernel(b->x->o->trace_kernel_ctx, &row, err))) break;
        }
        if (t->keep) {   /* HTA's figures of fractional-us traces: its whole-us starts and ends (trace_parse_file.ts_frac) */
            struct trace_seg h = *g;
            if (b->frac) {   /* a double's rounding is monotone: still in start order */
                h.start_ns = g->start_ns + t->hta_ds;
                h.dur_ns = g->start_ns + g->dur_ns + t->hta_de - h.start_ns;
            }
            trace_acc_add(&total, &h);
            r->nwindow++;
            if (kernels_acc_add(&ka, &h) || (t->hta_kernel && idle_acc_add(&ia, h.stream, h.start_ns, h.start_ns + h.dur_ns, t->launch_ns))) {
                rc = pt_errorf(err, "out of memory");
                break;
            }
        }
        if ((rc = m.q ? lane_add(&m, g, r, &cap, err) : emit(r, &cap, g, err))) break;
    }
    if (!rc && trace_spill_failed(b->k)) rc = -1;
    if (!rc && m.q) rc = lane_flush(&m, r, &cap, err);
    if (!rc && si < b->n && phases_step_flush(&ps, r->steps[si].step, &r->micros, &r->nmicros, &capmicro)) rc = pt_errorf(err, "out of memory");
    phases_step_free(&ps);
    free(m.slot_of);
    free(m.slot);
    free(m.open);
    if (!rc) {
        r->kernels = kernels_acc_finish(&ka);
        r->idle = idle_acc_finish(&ia);
        if (!r->kernels || !r->idle) rc = pt_errorf(err, "out of memory");
    } else {
        kernels_acc_free(&ka);
        idle_acc_free(&ia);
    }
    if (rc) return -1;
    for (; si < b->n; si++) {
        trace_acc_finish(&step, &r->steps[si].stats);
        trace_acc_init(&step);
    }
    trace_acc_finish(&total, &r->total);
    r->nkernels = nk;
    if (m.q && r->nsegs > 1) qsort(r->segs, r->nsegs, sizeof *r->segs, cmp_seg);
    for (int i = 0; i < b->n; i++) {   /* each step's segments: those that start in it */
        struct trace_step *st = &r->steps[i];
        size_t lo = 0, hi = r->nsegs;
        while (lo < hi) { size_t x = (lo + hi) / 2; if (r->segs[x].start_ns < st->start_ns) lo = x + 1; else hi = x; }
        size_t a = lo;
        hi = r->nsegs;
        int64_t end = st->end_ns + (i + 1 == b->n);
        while (lo < hi) { size_t x = (lo + hi) / 2; if (r->segs[x].start_ns < end) lo = x + 1; else hi = x; }
        st->first = a;
        st->nsegs = lo - a;
    }
    return 0;
}

static int build_rank(struct trace_rank *r, struct rfile *files, size_t nf, int multi_step, int synth, int *has_phase,
                      size_t max_segs, struct trace_spill_budget *bud, struct run_ctx *x, struct dataset *ds, struct pt_error *err) {
    struct rank_build *b = calloc(1, sizeof *b);
    if (!b) return pt_errorf(err, "out of memory");
    b->r = r;
    b->x = x;
    b->synth = synth;
    b->maxp2p = max_segs;
    int rc = make_steps(b, files, nf, ds, err);
    if (!rc && !(b->k = trace_spill_new(sizeof(struct ktmp), cmp_ktmp, bud))) rc = pt_errorf(err, "out of memory");
    for (size_t i = 0; !rc && i < nf; i++) {
        b->frac |= files[i].f->ts_frac;
        rc = join_file(b, &files[i], multi_step, has_phase, r->file, err);
    }
    if (!rc) {
        place_steps(b);
        p2p_sort(r);
        rc = stream_rank(b, max_segs, err);
    }
    trace_spill_free(b->k);
    free(b->num);
    free(b->first);
    free(b->last);
    free(b);
    return rc;
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
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(t[i].path, &st) == 0) j.total += (uint64_t)st.st_size;
        t[i].rank = -1;
        t[i].f.budget = bud;
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

static int build_run(struct tfile *t, size_t n, struct trace_parse_names *names, struct trace_spill_budget *bud, uint64_t lane_bytes,
                     struct run_ctx *x, struct dataset *ds, struct trace_run **out, struct pt_error *err) {
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
    struct rfile *files = malloc(n * sizeof *files);
    struct trace_parse_file **fp = malloc(n * sizeof *fp);
    x->names = names->v;
    x->nnames = names->n;
    if (!run->ranks || !files || !fp || !(x->ep = calloc(names->n ? names->n : 1, 1))) {
        free(fp);
        free(files);
        trace_run_free(run);
        return pt_errorf(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++) fp[i] = &t[i].f;
    int grc = pgconfig_gather(fp, n, ds->path, run, ds, err);   /* before the kernels: their groups' dimensions */
    free(fp);
    if (grc) { free(files); trace_run_free(run); return -1; }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        size_t rk = 0;   /* the rank's kernels */
        while (j < n && t[j].rank == t[i].rank) { files[j - i] = (struct rfile){&t[j].f, t[j].to}; rk += t[j].f.nkernels; j++; }
        /* the lane view's share of --mem, by the rank's share of the kernels */
        double share = (double)lane_bytes / sizeof(struct trace_seg) * ((double)rk / (double)nk);
        size_t max_segs = share < TRACE_MIN_SEGS ? TRACE_MIN_SEGS : share > 1e15 ? (size_t)1e15 : (size_t)share;
        struct trace_rank *r = &run->ranks[run->nranks++];
        r->rank = (int32_t)t[i].rank;
        if (!(r->file = strdup(t[i].path))) { free(files); trace_run_free(run); return pt_errorf(err, "out of memory"); }
        if (j - i > 1 && !strstr(t[i].path, "iteration_"))
            dataset_warn(ds, "rank %ld: %zu trace files (%s, ...): their events are taken together", t[i].rank, j - i,
                         t[i].path);
        if (build_rank(r, files, j - i, multi, !any_step, &run->has_phases, max_segs, bud, x, ds, err)) {
            free(files);
            trace_run_free(run);
            return -1;
        }
        if (r->lane_merge_ns)
            dataset_warn(ds, "%s: rank %d: %zu kernels, more than --mem holds for the lane view: it shows them merged into "
                             "%zu segments (per stream, the kernels starting in %.3f us of a step are one); the figures count "
                             "every kernel", r->file, r->rank, r->nkernels, r->nsegs, (double)r->lane_merge_ns / 1000.0);
        if (any_step && !r->nsteps) dataset_warn(ds, "%s: rank %d has no ProfilerStep#N: it has no step in the heat map", r->file, r->rank);
        i = j;
    }
    free(files);
    run->has_micro = x->has_micro;
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
    struct run_ctx x = {.pat = o->trace_patterns, .o = o};
    struct tpatterns *own = NULL;
    if (rc == 0 && !x.pat && !(x.pat = own = tpatterns_new(err))) rc = -1;
    if (rc == 0 && !(x.md = tpatterns_md_new())) rc = pt_errorf(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < fl.n; i++) t[i].f.patterns = x.pat;
    if (rc == 0) rc = parse_all(t, &n, &names, o, &bud, ds, err);
    if (rc == 0) {
        resolve_ranks(t, n, ds);
        rc = build_run(t, n, &names, &bud, mem / 4, &x, ds, &ds->trace, err);
    }
    free(x.ep);
    tpatterns_md_free(x.md);
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
    if (rc == 0) rc = trace_cube_build(ds->trace, o->micro_step, &ds->cube, err);
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
