/* read_shard: a folder of trace shard files, or one, as one run (see
 * read_shard.h and shard_json.h). */
#include "src/io/trace/read_shard.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/trace/trace_cube.h"
#include "model/trace/tshard.h"
#include "model/util/util.h"
#include "src/io/common/json.h"
#include "src/io/load.h"
#include "src/io/trace/shard_json.h"

#define SHARD_MAX_BYTES ((size_t)1 << 31)

/* "trace.shard-K-of-N.json": 1 (K, N set), 2 the same with a tail (a
 * half-written one: ".tmp.PID"), 0 not a shard's name. */
static int shard_name(const char *name, int *k, int *n) {
    int len = 0;
    if (sscanf(name, "trace.shard-%d-of-%d.json%n", k, n, &len) != 2 || len == 0) return 0;
    return name[len] ? 2 : 1;
}

static const char *base_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* A shard file by its head: the format's name in the first bytes. */
static int head_is_shard(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[257];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, "\"" SHARD_JSON_FORMAT "\"") != NULL;
}

static int detect_shard(const char *path, const struct stat *st) {
    int k, n;
    if (S_ISREG(st->st_mode))
        return shard_name(base_of(path), &k, &n) == 1 || (util_ends_with(path, ".json") && head_is_shard(path)) ? 100 : 0;
    DIR *d = opendir(path);
    if (!d) return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) found = shard_name(e->d_name, &k, &n) == 1;
    closedir(d);
    return found ? 100 : 0;
}

/* One shard read. */
struct part {
    char *path;
    struct shard_json_info info;
    struct trace_run *run;
};

struct set {
    struct part *v;
    size_t n, cap;
    struct dataset *ds;
    atomic_int *cancel;   /* load_opts.cancel (NULL: none) */
};

static void warn_cb(void *ctx, const char *msg) { dataset_warn(ctx, "%s", msg); }

/* Reads the shard file path into the set; a damaged one is a warning.
 * 0, or -1 with err (another format version, out of memory). */
static int read_one(struct set *s, const char *path, struct pt_error *err) {
    if (s->cancel && atomic_load(s->cancel)) return pt_errorf(err, "cancelled");
    char *text = NULL;
    size_t len = 0;
    struct pt_error e;
    struct part p = {0};
    if (json_read_file(path, SHARD_MAX_BYTES, &text, &len, &e)) {
        dataset_warn(s->ds, "%s (left out)", e.msg);
        dataset_skip(s->ds, path);
        return 0;
    }
    s->ds->bytes_read += len;
    int rc = shard_json_parse(text, len, path, &p.run, &p.info, warn_cb, s->ds, &e);
    free(text);
    if (rc == -2) return pt_errorf(err, "%s", e.msg);
    if (rc) {
        if (!strcmp(e.msg, "out of memory")) return pt_errorf(err, "%s", e.msg);
        dataset_warn(s->ds, "%s (left out)", e.msg);
        dataset_skip(s->ds, path);
        return 0;
    }
    if (UTIL_PUSH(s->v, s->n, s->cap) || !(p.path = strdup(path))) {
        trace_run_free(p.run);
        return pt_errorf(err, "out of memory");
    }
    s->v[s->n++] = p;
    s->ds->files_read++;
    return 0;
}

/* Shards in their place in the set: their files' name order. */
static int cmp_part(const void *a, const void *b) {
    const struct part *x = a, *y = b;
    return (x->info.k > y->info.k) - (x->info.k < y->info.k);
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The shard files of folder dir, in name order; half-written ones are warnings. */
static int read_dir(struct set *s, const char *dir, struct pt_error *err) {
    DIR *d = opendir(dir);
    if (!d) return pt_errorf(err, "%s: %s", dir, strerror(errno));
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int rc = 0, k, m;
    while (rc == 0 && (e = readdir(d))) {
        int w = shard_name(e->d_name, &k, &m);
        if (w == 2) {
            dataset_warn(s->ds, "%s/%s is a half-written shard (its task was killed or is still running): left out; "
                                "run that task again", dir, e->d_name);
            continue;
        }
        if (w != 1) continue;
        if (UTIL_PUSH(v, n, cap) || !(v[n] = strdup(e->d_name))) rc = pt_errorf(err, "out of memory");
        else n++;
    }
    closedir(d);
    if (n > 1) qsort(v, n, sizeof *v, cmp_name);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", dir, v[i]);
        rc = read_one(s, p, err);
    }
    if (rc == 0 && n == 0) rc = pt_errorf(err, "%s: no trace.shard-K-of-N.json file", dir);
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    return rc;
}

/* Shards of one run: the same N and the same trace files (their hash).
 * A merged file (1 of 1) joins with anything. */
static int check_set(const struct set *s, struct pt_error *err) {
    const struct part *a = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const struct part *b = &s->v[i];
        if (b->info.n == 1) continue;
        if (!a) { a = b; continue; }
        if (a->info.n != b->info.n || a->info.files != b->info.files || strcmp(a->info.hash, b->info.hash))
            return pt_errorf(err, "%s (shard %d of %d, over %ld trace files) and %s (shard %d of %d, over %ld trace files) "
                                  "are shards of two runs: put each run's shards in a folder of their own",
                             b->path, b->info.k, b->info.n, b->info.files, a->path, a->info.k, a->info.n, a->info.files);
        for (size_t j = 0; j < i; j++)
            if (s->v[j].info.n == b->info.n && s->v[j].info.k == b->info.k)
                return pt_errorf(err, "%s and %s are both shard %d of %d", s->v[j].path, b->path, b->info.k, b->info.n);
    }
    return 0;
}

/* The ranks 0..files-1 not in run, as "3-5, 9" into buf; 0 when none. */
static size_t missing_ranks(const struct trace_run *run, long files, char *buf, size_t cap) {
    size_t len = 0, nmiss = 0;
    int r = 0;
    buf[0] = '\0';
    for (long i = 0; i < files; i++) {
        while (r < run->nranks && run->ranks[r].rank < i) r++;
        if (r < run->nranks && run->ranks[r].rank == i) continue;
        long j = i;
        while (j + 1 < files && !(r < run->nranks && run->ranks[r].rank == j + 1)) j++;
        nmiss += (size_t)(j - i + 1);
        if (len < cap)
            len += (size_t)snprintf(buf + len, cap - len, j > i ? "%s%ld-%ld" : "%s%ld", len ? ", " : "", i, j);
        i = j;
    }
    return nmiss;
}

/* Which shards of the set are not there, and the ranks they had. */
static void warn_missing(const struct set *s, const struct trace_run *run) {
    const struct part *a = NULL;
    for (size_t i = 0; i < s->n && !a; i++)
        if (s->v[i].info.n > 1) a = &s->v[i];
    if (!a) return;
    int nmiss = 0;
    for (int k = 1; k <= a->info.n; k++) {
        int have = 0;
        for (size_t i = 0; i < s->n && !have; i++) have = s->v[i].info.n == a->info.n && s->v[i].info.k == k;
        if (have) continue;
        long lo = (long)((long long)a->info.files * (k - 1) / a->info.n), hi = (long)((long long)a->info.files * k / a->info.n);
        dataset_warn(s->ds, "shard %d of %d is missing or unreadable (trace.shard-%d-of-%d.json: the run's trace files %ld..%ld of %ld)",
                     k, a->info.n, k, a->info.n, lo + 1, hi, a->info.files);
        nmiss++;
    }
    char buf[512];
    if (nmiss && missing_ranks(run, a->info.files, buf, sizeof buf))
        dataset_warn(s->ds, "ranks missing (of 0..%ld, one trace file a rank): %s; the run is shown without them",
                     a->info.files - 1, buf);
}

struct dupctx { const struct set *s; };

static void on_dup(void *ctx, int part, int first, int32_t rank) {
    const struct set *s = ((struct dupctx *)ctx)->s;
    dataset_warn(s->ds, "%s: rank %d is also in %s: the copy in %s is kept", s->v[part].path, rank, s->v[first].path,
                 s->v[first].path);
}

int read_shard_paths(char *const *paths, int n, atomic_int *cancel, struct dataset *ds, struct pt_error *err) {
    struct set s = {.ds = ds, .cancel = cancel};
    int rc = 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) != 0) rc = pt_errorf(err, "%s: %s", paths[i], strerror(errno));
        else if (S_ISDIR(st.st_mode)) rc = read_dir(&s, paths[i], err);
        else rc = read_one(&s, paths[i], err);
    }
    if (rc == 0 && s.n == 0)
        rc = pt_errorf(err, "%s: no readable trace shard file%s%s", paths[0], ds->nwarnings ? ": " : "",
                       ds->nwarnings ? ds->warnings[0] : "");
    if (rc == 0) rc = check_set(&s, err);
    if (rc == 0 && s.n > 1) qsort(s.v, s.n, sizeof *s.v, cmp_part);
    struct trace_run **runs = rc == 0 ? malloc(s.n * sizeof *runs) : NULL;
    if (rc == 0 && !runs) rc = pt_errorf(err, "out of memory");
    if (rc == 0) {
        struct dupctx c = {&s};
        for (size_t i = 0; i < s.n; i++) runs[i] = s.v[i].run, s.v[i].run = NULL;
        rc = tshard_join(runs, (int)s.n, &ds->trace, on_dup, &c, err);
        if (rc == 0) warn_missing(&s, ds->trace);
    }
    free(runs);
    for (size_t i = 0; i < s.n; i++) {
        free(s.v[i].path);
        trace_run_free(s.v[i].run);
    }
    free(s.v);
    return rc;
}

static int load_shard(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    char *p = (char *)path;
    ds->micro_step = 0;   /* as a trace: steps, not micro steps (the cube's rows say) */
    if (read_shard_paths(&p, 1, o->cancel, ds, err)) return -1;
    return o->trace_axes_only ? trace_cube_build_axes(ds->trace, &ds->cube, err) : trace_cube_build(ds->trace, o->micro_step, &ds->cube, err);
}

const struct formats_row formats_row_trace_shard = {
    .name = "trace_shard",
    .what = "folder of trace shards (trace.shard-K-of-N.json, from probetop trace --shard)",
    .detect = detect_shard,
    .load = load_shard,
    .write_trenddb = NULL,
    .labels = LABELS_MONITOR,   /* as traces: "forward.compute" */
};
