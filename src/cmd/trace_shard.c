/* trace_shard: the shards of `probetop trace` and their merge (see
 * trace_shard.h).  What merges and how: ranks, steps, idle rows, phases and
 * top kernels are per rank, so a shard's rows are the unsharded run's rows
 * (steps' times moved from the shard's clock origin to the earliest one);
 * kernel types are sums over ranks (their percentages recomputed from the
 * sums); stragglers are recomputed from the steps' work (kernel time less
 * exposed communication, as model/trace/trace.c does); top kernels are
 * written whole (--top 0) and folded into `others` at the merge. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/util/util.h"
#include "src/cmd/cmd.h"
#include "src/cmd/trace_shard.h"
#include "src/io/common/json.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_trace_name(const char *n) {
    return n[0] != '.' && (util_ends_with(n, ".json") || util_ends_with(n, ".json.gz"));
}

int trace_shard_inputs(const char *path, int k, int n, const char *outdir, char *indir, size_t cap, size_t *nfiles,
                       size_t *total) {
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "probetop trace: --shard: %s: %s (a folder of trace files, one per rank)\n", CMD_ESC(path), strerror(errno));
        return -1;
    }
    char **v = NULL;
    size_t m = 0, vc = 0;
    struct dirent *e;
    int bad = 0;
    while (!bad && (e = readdir(d))) {
        if (!is_trace_name(e->d_name)) continue;
        if (m == vc) {
            vc = vc ? 2 * vc : 64;
            char **nv = realloc(v, vc * sizeof *v);
            if (!nv) { bad = 1; break; }
            v = nv;
        }
        if (!(v[m] = strdup(e->d_name))) bad = 1;
        else m++;
    }
    closedir(d);
    if (!bad && m > 1) qsort(v, m, sizeof *v, cmp_str);
    size_t lo = (size_t)((unsigned long long)m * (unsigned)(k - 1) / (unsigned)n);
    size_t hi = (size_t)((unsigned long long)m * (unsigned)k / (unsigned)n);
    char real[PATH_MAX];
    if (!bad && mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "probetop trace: -o %s: %s\n", CMD_ESC(outdir), strerror(errno));
        bad = 2;
    }
    if (!bad && !realpath(path, real)) bad = 1;
    snprintf(indir, cap, "%s/.trace.shard-%d-of-%d.in.%ld", outdir, k, n, (long)getpid());
    if (!bad && mkdir(indir, 0777) != 0) {
        fprintf(stderr, "probetop trace: %s: %s\n", CMD_ESC(indir), strerror(errno));
        bad = 2;
    }
    for (size_t i = lo; !bad && i < hi; i++) {
        char from[PATH_MAX + 256], to[PATH_MAX + 256];
        snprintf(from, sizeof from, "%s/%s", real, v[i]);
        snprintf(to, sizeof to, "%s/%s", indir, v[i]);
        if (symlink(from, to) != 0) {
            fprintf(stderr, "probetop trace: %s: %s\n", CMD_ESC(to), strerror(errno));
            bad = 2;
        }
    }
    for (size_t i = 0; i < m; i++) free(v[i]);
    free(v);
    if (bad == 1) fprintf(stderr, "probetop trace: --shard: %s: %s\n", CMD_ESC(path), strerror(errno ? errno : ENOMEM));
    if (bad) {
        trace_shard_inputs_free(indir);
        return -1;
    }
    *nfiles = hi - lo;
    *total = m;
    return 0;
}

void trace_shard_inputs_free(const char *indir) {
    DIR *d = opendir(indir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[PATH_MAX + 256];
        snprintf(p, sizeof p, "%s/%s", indir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(indir);
}

void trace_shard_name(const char *outdir, int k, int n, char *out, size_t cap) {
    snprintf(out, cap, "%s/trace.shard-%d-of-%d.json", outdir, k, n);
}

/* ---- the merge ---- */

static int64_t ns_of(const cJSON *o, const char *key) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? (int64_t)llround(x->valuedouble * 1000.0) : 0;
}

static double num_of(const cJSON *o, const char *key) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* Moves every item of the array key of src to the array of dst. */
static void take_all(cJSON *dst, cJSON *src, const char *key) {
    cJSON *a = cJSON_GetObjectItemCaseSensitive(src, key), *to = cJSON_GetObjectItemCaseSensitive(dst, key);
    if (!cJSON_IsArray(a) || !cJSON_IsArray(to)) return;
    while (a->child) cJSON_AddItemToArray(to, cJSON_DetachItemViaPointer(a, a->child));
}

/* Sorts an array's items (a stable merge by a key function over items). */
typedef int (*item_cmp)(const cJSON *, const cJSON *);

static int sort_array(cJSON *a, item_cmp cmp) {
    size_t n = (size_t)cJSON_GetArraySize(a), i = 0;
    if (n < 2) return 0;
    cJSON **v = malloc(n * sizeof *v), **w = malloc(n * sizeof *w);
    if (!v || !w) { free(v); free(w); return -1; }
    for (cJSON *x = a->child; x; x = x->next) v[i++] = x;
    for (size_t width = 1; width < n; width *= 2) {   /* bottom-up merge sort: stable */
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t p = lo, q = mid, o = lo;
            while (p < mid && q < hi) w[o++] = cmp(v[q], v[p]) < 0 ? v[q++] : v[p++];
            while (p < mid) w[o++] = v[p++];
            while (q < hi) w[o++] = v[q++];
        }
        cJSON **t = v; v = w; w = t;
    }
    a->child = v[0];
    for (i = 0; i < n; i++) {
        v[i]->prev = i ? v[i - 1] : v[n - 1];   /* cJSON: the first item's prev is the last */
        v[i]->next = i + 1 < n ? v[i + 1] : NULL;
    }
    free(v);
    free(w);
    return 0;
}

static int cmp_num(double a, double b) { return (a > b) - (a < b); }
static int by_rank(const cJSON *a, const cJSON *b) { return cmp_num(num_of(a, "rank"), num_of(b, "rank")); }
static int by_step_rank(const cJSON *a, const cJSON *b) {
    int c = cmp_num(num_of(a, "step"), num_of(b, "step"));
    return c ? c : by_rank(a, b);
}
static double micro_key(const cJSON *a) {
    double m = num_of(a, "micro");
    return isnan(m) ? -1.0 : m;   /* null (outside any micro-batch) first */
}
static int by_phase_row(const cJSON *a, const cJSON *b) {
    int c = cmp_num(num_of(a, "step"), num_of(b, "step"));
    if (!c) c = cmp_num(micro_key(a), micro_key(b));
    return c ? c : by_rank(a, b);
}

/* Groups by dimension (the order of model/trace/tpatterns.c), then first rank. */
static int dim_index(const cJSON *g) {
    static const char *const dims[] = {"tp", "pp", "dp", "ep", "cp"};
    const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(g, "dim"));
    for (int i = 0; d && i < 5; i++)
        if (!strcmp(d, dims[i])) return i;
    return 5;
}
static int by_group(const cJSON *a, const cJSON *b) {
    int c = dim_index(a) - dim_index(b);
    if (c) return c;
    const cJSON *ra = cJSON_GetObjectItemCaseSensitive(a, "ranks"), *rb = cJSON_GetObjectItemCaseSensitive(b, "ranks");
    double x = ra && cJSON_IsNumber(ra->child) ? ra->child->valuedouble : 0, y = rb && cJSON_IsNumber(rb->child) ? rb->child->valuedouble : 0;
    return cmp_num(x, y);
}

struct work { double step; int64_t work; int rank; };

static int cmp_work(const void *a, const void *b) {
    const struct work *x = a, *y = b;
    if (x->step != y->step) return (x->step > y->step) - (x->step < y->step);
    if (x->work != y->work) return (x->work > y->work) - (x->work < y->work);
    return (x->rank < y->rank) - (x->rank > y->rank);
}

/* Stragglers from the steps, as trace_stragglers() makes them. */
static int stragglers(cJSON *out, const cJSON *steps) {
    size_t n = (size_t)cJSON_GetArraySize(steps), k = 0;
    struct work *w = malloc((n ? n : 1) * sizeof *w);
    cJSON *g = cJSON_AddArrayToObject(out, "stragglers");
    if (!w || !g) { free(w); return -1; }
    for (const cJSON *s = steps->child; s; s = s->next) {
        if (num_of(s, "kernels") <= 0) continue;
        int64_t work = ns_of(s, "kernel_us") - (ns_of(s, "communication_us") - ns_of(s, "overlapped_us"));
        w[k++] = (struct work){num_of(s, "step"), work, (int)num_of(s, "rank")};
    }
    if (k > 1) qsort(w, k, sizeof *w, cmp_work);
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && w[j].step == w[i].step) j++;
        size_t m = j - i;
        int64_t med = m % 2 ? w[i + m / 2].work : (w[i + m / 2 - 1].work + w[i + m / 2].work) / 2;
        cJSON *o = cJSON_CreateObject();
        if (!o) { free(w); return -1; }
        cJSON_AddItemToArray(g, o);
        cJSON_AddNumberToObject(o, "step", w[i].step);
        cJSON_AddNumberToObject(o, "rank", w[j - 1].rank);
        cJSON_AddNumberToObject(o, "work_us", (double)w[j - 1].work / 1000.0);
        cJSON_AddNumberToObject(o, "median_us", (double)med / 1000.0);
        cJSON_AddNumberToObject(o, "behind_us", (double)(w[j - 1].work - med) / 1000.0);
        cJSON_AddNumberToObject(o, "behind_pct", med > 0 ? 100.0 * (double)(w[j - 1].work - med) / (double)med : 0.0);
        cJSON_AddNumberToObject(o, "ranks", (double)m);
        i = j;
    }
    free(w);
    return 0;
}

/* Kernel types: the sums of the shards' times, by descending time. */
static int kernel_types(cJSON *out, cJSON **shards, int n) {
    struct { const char *type; int64_t ns; } t[64];
    int nt = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(shards[i], "kernel_types");
        for (const cJSON *x = a ? a->child : NULL; x; x = x->next) {
            const char *ty = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "type"));
            if (!ty) continue;
            int j = 0;
            while (j < nt && strcmp(t[j].type, ty)) j++;
            if (j == nt) {
                if (nt == 64) continue;
                t[nt].type = ty, t[nt].ns = 0, nt++;
            }
            t[j].ns += ns_of(x, "us");
        }
    }
    for (int i = 1; i < nt; i++)   /* insertion sort by descending time */
        for (int j = i; j > 0 && t[j].ns > t[j - 1].ns; j--) {
            __typeof__(t[0]) s = t[j]; t[j] = t[j - 1]; t[j - 1] = s;
        }
    int64_t tot = 0;
    for (int i = 0; i < nt; i++) tot += t[i].ns;
    cJSON *a = cJSON_AddArrayToObject(out, "kernel_types");
    if (!a) return -1;
    for (int i = 0; i < nt; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o) return -1;
        cJSON_AddItemToArray(a, o);
        cJSON_AddStringToObject(o, "type", t[i].type);
        cJSON_AddNumberToObject(o, "us", (double)t[i].ns / 1000.0);
        cJSON_AddNumberToObject(o, "pct", tot ? 100.0 * (double)t[i].ns / (double)tot : 0.0);
    }
    return 0;
}

/* Top kernels: each rank's first `top` rows (the shard wrote all, by
 * descending time), the rest folded into one `others` row. */
static int top_kernels(cJSON *out, cJSON *all, size_t top) {
    cJSON *a = cJSON_AddArrayToObject(out, "top_kernels");
    if (!a) return -1;
    while (all->child) {
        cJSON *x = cJSON_DetachItemViaPointer(all, all->child);
        double rank = num_of(x, "rank");
        size_t seen = 0;
        int64_t sum = 0, mx = INT64_MIN, mn = INT64_MAX;
        double count = 0;
        for (;;) {
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "name"));
            int others = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(x, "type")) && name && !strcmp(name, "others");
            if (!others && (top == 0 || seen < top)) {
                cJSON_AddItemToArray(a, x);
                seen++;
            } else {
                count += num_of(x, "count");
                sum += ns_of(x, "sum_us");
                if (ns_of(x, "max_us") > mx) mx = ns_of(x, "max_us");
                if (ns_of(x, "min_us") < mn) mn = ns_of(x, "min_us");
                cJSON_Delete(x);
            }
            if (!all->child || num_of(all->child, "rank") != rank) break;
            x = cJSON_DetachItemViaPointer(all, all->child);
        }
        if (count > 0) {
            cJSON *o = cJSON_CreateObject();
            if (!o) return -1;
            cJSON_AddItemToArray(a, o);
            cJSON_AddNumberToObject(o, "rank", rank);
            cJSON_AddStringToObject(o, "name", "others");
            cJSON_AddNullToObject(o, "type");
            cJSON_AddNumberToObject(o, "count", count);
            cJSON_AddNumberToObject(o, "sum_us", (double)sum / 1000.0);
            cJSON_AddNumberToObject(o, "max_us", (double)mx / 1000.0);
            cJSON_AddNumberToObject(o, "min_us", (double)mn / 1000.0);
            cJSON_AddNumberToObject(o, "mean_us", (double)sum / 1000.0 / count);
        }
    }
    return 0;
}

/* The shard files of dir: a complete set 1..N of one N, no temporary file. */
static int read_set(const char *dir, cJSON ***out, int *nout) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "probetop trace: --merge %s: %s\n", CMD_ESC(dir), strerror(errno));
        return -1;
    }
    int n = 0, bad = 0;
    cJSON **v = NULL;
    struct dirent *e;
    while (!bad && (e = readdir(d))) {
        int k, m, len = 0;
        if (sscanf(e->d_name, "trace.shard-%d-of-%d.json%n", &k, &m, &len) != 2) continue;
        if (e->d_name[len] != '\0') {
            fprintf(stderr, "probetop trace: --merge: %s/%s is a half-written shard (its task was killed): "
                            "run that task again\n", CMD_ESC(dir), CMD_ESC(e->d_name));
            bad = 1;
            break;
        }
        if (m < 1 || m > 1000000 || k < 1 || k > m || (n && m != n)) {
            fprintf(stderr, "probetop trace: --merge: %s/%s does not belong to a set of %d\n", CMD_ESC(dir), CMD_ESC(e->d_name), n);
            bad = 1;
            break;
        }
        if (!n) {
            n = m;
            if (!(v = calloc((size_t)n, sizeof *v))) { bad = 1; break; }
        }
        char p[PATH_MAX + 256], *text = NULL;
        size_t tl = 0;
        struct pt_error err;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (json_read_file(p, (size_t)1 << 31, &text, &tl, &err)) {
            fprintf(stderr, "probetop trace: --merge: %s\n", err.msg);
            bad = 1;
            break;
        }
        cJSON_Delete(v[k - 1]);
        v[k - 1] = cJSON_ParseWithLength(text, tl);
        free(text);
        if (!cJSON_IsObject(v[k - 1]) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v[k - 1], "origin_ns"))) {
            fprintf(stderr, "probetop trace: --merge: %s is not a trace shard\n", CMD_ESC(p));
            bad = 1;
        }
    }
    closedir(d);
    for (int i = 0; !bad && i < n; i++)
        if (!v[i]) {
            fprintf(stderr, "probetop trace: --merge: %s lacks trace.shard-%d-of-%d.json\n", CMD_ESC(dir), i + 1, n);
            bad = 1;
        }
    if (!bad && !n) {
        fprintf(stderr, "probetop trace: --merge: no trace.shard-K-of-N.json file in %s\n", CMD_ESC(dir));
        bad = 1;
    }
    if (bad) {
        for (int i = 0; v && i < n; i++) cJSON_Delete(v[i]);
        free(v);
        return -1;
    }
    *out = v;
    *nout = n;
    return 0;
}

int trace_shard_merge(const char *dir, size_t top) {
    cJSON **sh;
    int n;
    if (read_set(dir, &sh, &n)) return -1;
    cJSON *out = cJSON_CreateObject(), *tops = cJSON_CreateArray();
    int rc = -1;
    if (!out || !tops) goto done;
    cJSON_AddStringToObject(out, "path", dir);
    cJSON_AddArrayToObject(out, "ranks");
    cJSON_AddArrayToObject(out, "steps");
    double origin = INFINITY;
    for (int i = 0; i < n; i++) {
        double o = num_of(sh[i], "origin_ns");
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sh[i], "ranks")) > 0 && o < origin) origin = o;
    }
    for (int i = 0; i < n; i++) {   /* the steps' times on the earliest shard's origin (whole microseconds) */
        double shift = (num_of(sh[i], "origin_ns") - origin) / 1000.0;
        cJSON *st = cJSON_GetObjectItemCaseSensitive(sh[i], "steps");
        for (cJSON *s = st ? st->child : NULL; s && isfinite(shift); s = s->next) {
            cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "start_us"), num_of(s, "start_us") + shift);
            cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(s, "end_us"), num_of(s, "end_us") + shift);
        }
        take_all(out, sh[i], "ranks");
        take_all(out, sh[i], "steps");
        cJSON *t = cJSON_GetObjectItemCaseSensitive(sh[i], "top_kernels");
        while (t && t->child) cJSON_AddItemToArray(tops, cJSON_DetachItemViaPointer(t, t->child));
    }
    cJSON *ranks = cJSON_GetObjectItemCaseSensitive(out, "ranks"), *steps = cJSON_GetObjectItemCaseSensitive(out, "steps");
    if (sort_array(ranks, by_rank) || sort_array(steps, by_step_rank) || sort_array(tops, by_rank)) goto done;
    if (stragglers(out, steps) || kernel_types(out, sh, n) || top_kernels(out, tops, top)) goto done;
    cJSON_AddArrayToObject(out, "idle");
    cJSON_AddArrayToObject(out, "phases");
    for (int i = 0; i < n; i++) {
        take_all(out, sh[i], "idle");
        take_all(out, sh[i], "phases");
    }
    if (sort_array(cJSON_GetObjectItemCaseSensitive(out, "idle"), by_rank) ||
        sort_array(cJSON_GetObjectItemCaseSensitive(out, "phases"), by_phase_row))
        goto done;
    /* the process groups: each rank's trace lists the groups it is in, so
     * the union of the shards' (one of each), by dimension then first rank */
    cJSON *groups = cJSON_AddArrayToObject(out, "groups");
    cJSON *from = NULL;
    if (!groups) goto done;
    for (int i = 0; i < n; i++) {
        cJSON *g = cJSON_GetObjectItemCaseSensitive(sh[i], "groups");
        while (g && g->child) {
            cJSON *x = cJSON_DetachItemViaPointer(g, g->child), *y;
            for (y = groups->child; y && !cJSON_Compare(x, y, 1); y = y->next) {}
            if (y) cJSON_Delete(x);
            else cJSON_AddItemToArray(groups, x);
        }
        cJSON *f = cJSON_GetObjectItemCaseSensitive(sh[i], "groups_from");
        if (!from && cJSON_IsString(f)) from = cJSON_DetachItemViaPointer(sh[i], f);
    }
    if (sort_array(groups, by_group)) goto done;
    cJSON_AddItemToObject(out, "groups_from", from ? from : cJSON_CreateNull());
    cJSON_AddArrayToObject(out, "warnings");
    for (int i = 0; i < n; i++) take_all(out, sh[i], "warnings");
    char *s = cJSON_Print(out);
    if (!s) goto done;
    printf("%s\n", s);
    free(s);
    rc = 0;
done:
    if (rc) fprintf(stderr, "probetop trace: --merge: out of memory\n");
    cJSON_Delete(out);
    cJSON_Delete(tops);
    for (int i = 0; i < n; i++) cJSON_Delete(sh[i]);
    free(sh);
    return rc;
}
