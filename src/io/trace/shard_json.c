/* shard_json: the trace shard file, written and parsed (see shard_json.h). */
#include "src/io/trace/shard_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "model/trace/tshard.h"
#include "src/io/common/json.h"

void shard_json_hash(char *const *v, size_t n, char out[17]) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        for (const char *s = v[i]; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
        h = (h ^ 0xffu) * 1099511628211ull;   /* a separator no name holds */
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

/* ---- writing ---- */

static void put_stats(FILE *f, const struct trace_stats *s) {
    fprintf(f, "[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%zu", s->kernel_ns, s->idle_ns, s->non_compute_ns,
            s->overlap_ns, s->nkernels);
    for (int c = 0; c < TRACE_NCATS; c++) fprintf(f, ",%" PRId64, s->cat_ns[c]);
    for (int c = 0; c < TRACE_NCATS; c++) fprintf(f, ",%" PRIu32, s->count[c]);
    fputs(",[", f);
    int first = 1;
    for (int p = 0; p < TRACE_NPHASES; p++) {
        int any = s->phase_overlap_ns[p] || s->phase_span_ns[p];
        for (int c = 0; c < TRACE_NCATS; c++) any |= s->phase_ns[p][c] || s->phase_count[p][c];
        if (!any) continue;
        fprintf(f, "%s[%d", first ? "" : ",", p);
        for (int c = 0; c < TRACE_NCATS; c++) fprintf(f, ",%" PRId64, s->phase_ns[p][c]);
        for (int c = 0; c < TRACE_NCATS; c++) fprintf(f, ",%" PRIu32, s->phase_count[p][c]);
        fprintf(f, ",%" PRId64 ",%" PRId64 "]", s->phase_overlap_ns[p], s->phase_span_ns[p]);
        first = 0;
    }
    fputs("]]", f);
}

static void put_rank(FILE *f, const struct trace_rank *r, uint16_t *q) {
    fprintf(f, "{\"rank\": %d, \"file\": ", r->rank);
    json_fput_str(f, r->file ? r->file : "");
    fprintf(f, ", \"nkernels\": %zu, \"nwindow\": %zu,\n   \"total\": ", r->nkernels, r->nwindow);
    put_stats(f, &r->total);
    fputs(",\n   \"steps\": [", f);
    for (int s = 0; s < r->nsteps; s++) {
        const struct trace_step *st = &r->steps[s];
        fprintf(f, "%s\n    [%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", s ? "," : "", st->step, st->start_ns,
                st->end_ns, st->cpu_start_ns, st->cpu_end_ns);
        put_stats(f, &st->stats);
        fputs("]", f);
    }
    fputs("],\n   \"micros\": [", f);
    for (size_t m = 0; m < r->nmicros; m++) {
        fprintf(f, "%s\n    [%d,%d,", m ? "," : "", r->micros[m].step, r->micros[m].micro);
        put_stats(f, &r->micros[m].stats);
        fputs("]", f);
    }
    fputs("],\n   \"mask_ns\": [", f);
    for (int m = 0; m < KERNELS_NMASKS; m++) fprintf(f, "%s%" PRId64, m ? "," : "", r->kernels ? r->kernels->mask_ns[m] : 0);
    fputs("],\n   \"kernels\": [", f);
    for (size_t i = 0; r->kernels && i < r->kernels->nk; i++) {
        const struct kernels_stat *k = &r->kernels->k[i];
        fprintf(f, "%s[%" PRIu32 ",%d,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", i ? "," : "", k->name, k->type,
                k->count, k->sum_ns, k->max_ns, k->min_ns);
    }
    fputs("],\n   \"idle\": [", f);
    for (size_t i = 0; r->idle && i < r->idle->n; i++) {
        const struct idle_stream *s = &r->idle->v[i];
        fprintf(f, "%s[%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 "]", i ? "," : "", s->stream, s->host_ns,
                s->kernel_ns, s->other_ns, s->kernels);
    }
    fputs("],\n   \"lanes\": [", f);
    for (int s = 0; s < r->nsteps; s++) {
        int64_t t0, t1;
        tshard_lanes(r, s, TSHARD_SLICES, &t0, &t1, q);
        fprintf(f, "%s\n    [%" PRId64 ",%" PRId64, s ? "," : "", t0, t1);
        for (int i = 0; i < TSHARD_SLICES * TSHARD_CATS; i++) fprintf(f, ",%u", q[i]);
        fputs("]", f);
    }
    fputs("]}", f);
}

int shard_json_write(FILE *f, const struct trace_run *run, const struct shard_json_info *info, char *const *w, size_t nw) {
    uint16_t *q = malloc(TSHARD_SLICES * TSHARD_CATS * sizeof *q);
    if (!q) return -1;
    fprintf(f, "{\"format\": \"%s\", \"version\": %d, \"shard\": %d, \"shards\": %d, \"files\": %ld, \"files_hash\": \"%s\",\n",
            SHARD_JSON_FORMAT, SHARD_JSON_VERSION, info->k, info->n, info->files, info->hash);
    fprintf(f, " \"origin_ns\": \"%" PRId64 "\", \"slices\": %d, \"has_phases\": %d, \"has_micro\": %d, \"groups_from\": ",
            run->origin_ns, TSHARD_SLICES, run->has_phases ? 1 : 0, run->has_micro ? 1 : 0);
    if (run->groups_from) json_fput_str(f, run->groups_from);
    else fputs("null", f);
    fputs(",\n \"groups\": [", f);
    for (int g = 0; g < run->ngroups; g++) {
        fprintf(f, "%s[%d", g ? "," : "", run->groups[g].dim);
        for (int i = 0; i < run->groups[g].nranks; i++) fprintf(f, ",%d", run->groups[g].ranks[i]);
        fputs("]", f);
    }
    fputs("],\n \"warnings\": [", f);
    for (size_t i = 0; i < nw; i++) {
        fputs(i ? ", " : "", f);
        json_fput_str(f, w[i]);
    }
    fputs("],\n \"names\": [", f);
    for (size_t i = 0; i < run->nnames; i++) {
        fputs(i ? (i % 8 ? ", " : ",\n  ") : "", f);
        json_fput_str(f, run->names[i]);
    }
    fputs("],\n \"ranks\": [", f);
    for (int r = 0; r < run->nranks; r++) {
        fputs(r ? ",\n  " : "\n  ", f);
        put_rank(f, &run->ranks[r], q);
    }
    fputs("]}\n", f);
    free(q);
    return ferror(f) ? -1 : 0;
}

/* ---- parsing ---- */

struct px {
    const char *what;
    struct pt_error *err;
    char place[96];
};

static int bad(struct px *x, const char *why) {
    return pt_errorf(x->err, "%s: %s: %s (a damaged or foreign shard file)", x->what, x->place[0] ? x->place : "top level", why);
}

/* An integer-valued number within +-2^53 (a JSON number of the file). */
static int i64_of(const cJSON *o, int64_t lo, int64_t hi, int64_t *out) {
    if (!cJSON_IsNumber(o)) return -1;
    double v = o->valuedouble;
    if (!isfinite(v) || v != floor(v) || v < (double)lo || v > (double)hi || fabs(v) > 9007199254740992.0) return -1;
    *out = (int64_t)v;
    return 0;
}

#define NS_MAX ((int64_t)1 << 53)

static int get_int(struct px *x, const cJSON *obj, const char *key, int64_t lo, int64_t hi, int64_t *out) {
    if (i64_of(cJSON_GetObjectItemCaseSensitive(obj, key), lo, hi, out) == 0) return 0;
    char why[96];
    snprintf(why, sizeof why, "\"%s\" is missing or not a whole number in range", key);
    return bad(x, why);
}

/* Array a's items as integers into v[0..n) (exactly n of them, the rest
 * of a from item n on in *rest). */
static int ints(struct px *x, const cJSON *a, int64_t *v, int n, const cJSON **rest, int64_t lo, int64_t hi) {
    if (!cJSON_IsArray(a)) return bad(x, "expected an array");
    const cJSON *it = a->child;
    for (int i = 0; i < n; i++, it = it->next)
        if (!it || i64_of(it, lo, hi, &v[i])) return bad(x, "expected whole numbers in range");
    if (rest) *rest = it;
    else if (it) return bad(x, "too many numbers");
    return 0;
}

static int get_stats(struct px *x, const cJSON *a, struct trace_stats *s) {
    int64_t v[13];
    const cJSON *ph = NULL;
    memset(s, 0, sizeof *s);
    if (ints(x, a, v, 13, &ph, -NS_MAX, NS_MAX)) return -1;
    s->kernel_ns = v[0], s->idle_ns = v[1], s->non_compute_ns = v[2], s->overlap_ns = v[3];
    if (v[4] < 0) return bad(x, "a negative kernel count");
    s->nkernels = (size_t)v[4];
    for (int c = 0; c < TRACE_NCATS; c++) {
        s->cat_ns[c] = v[5 + c];
        if (v[9 + c] < 0 || v[9 + c] > UINT32_MAX) return bad(x, "a kernel count out of range");
        s->count[c] = (uint32_t)v[9 + c];
    }
    if (!ph || !cJSON_IsArray(ph) || ph->next) return bad(x, "expected the phases' array last");
    for (const cJSON *p = ph->child; p; p = p->next) {
        int64_t w[11];
        if (ints(x, p, w, 11, NULL, -NS_MAX, NS_MAX)) return -1;
        if (w[0] < 0 || w[0] >= TRACE_NPHASES) return bad(x, "an unknown phase");
        int k = (int)w[0];
        for (int c = 0; c < TRACE_NCATS; c++) {
            s->phase_ns[k][c] = w[1 + c];
            if (w[5 + c] < 0 || w[5 + c] > UINT32_MAX) return bad(x, "a kernel count out of range");
            s->phase_count[k][c] = (uint32_t)w[5 + c];
        }
        s->phase_overlap_ns[k] = w[9];
        s->phase_span_ns[k] = w[10];
    }
    return 0;
}

static int get_tables(struct px *x, const cJSON *ro, struct trace_rank *r, size_t nnames) {
    int64_t v[KERNELS_NMASKS];
    if (!(r->kernels = calloc(1, sizeof *r->kernels)) || !(r->idle = calloc(1, sizeof *r->idle)))
        return pt_errorf(x->err, "out of memory");
    snprintf(x->place + strlen(x->place), 16, ".mask_ns");
    if (ints(x, cJSON_GetObjectItemCaseSensitive(ro, "mask_ns"), v, KERNELS_NMASKS, NULL, -NS_MAX, NS_MAX)) return -1;
    memcpy(r->kernels->mask_ns, v, sizeof v);
    *strrchr(x->place, '.') = '\0';
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(ro, "kernels"), *id = cJSON_GetObjectItemCaseSensitive(ro, "idle");
    if (!cJSON_IsArray(k) || !cJSON_IsArray(id)) return bad(x, "\"kernels\" or \"idle\" is missing");
    size_t nk = (size_t)cJSON_GetArraySize(k), ni = (size_t)cJSON_GetArraySize(id);
    if (!(r->kernels->k = calloc(nk ? nk : 1, sizeof *r->kernels->k)) || !(r->idle->v = calloc(ni ? ni : 1, sizeof *r->idle->v)))
        return pt_errorf(x->err, "out of memory");
    for (const cJSON *e = k->child; e; e = e->next) {
        int64_t w[6];
        if (ints(x, e, w, 6, NULL, -NS_MAX, NS_MAX)) return -1;
        if (w[0] < 0 || (size_t)w[0] >= nnames || w[1] < 0 || w[1] >= KERNELS_NTYPES || w[2] < 0)
            return bad(x, "a kernel row names no kernel, or no type");
        r->kernels->k[r->kernels->nk++] =
            (struct kernels_stat){(uint32_t)w[0], (uint8_t)w[1], (uint64_t)w[2], w[3], w[4], w[5]};
    }
    for (const cJSON *e = id->child; e; e = e->next) {
        int64_t w[5];
        if (ints(x, e, w, 5, NULL, -NS_MAX, NS_MAX)) return -1;
        if (w[0] < 0 || w[0] > 65535 || w[4] < 0) return bad(x, "an idle row's stream is out of range");
        r->idle->v[r->idle->n++] = (struct idle_stream){.stream = (uint16_t)w[0], .host_ns = w[1], .kernel_ns = w[2],
                                                        .other_ns = w[3], .kernels = (uint64_t)w[4]};
    }
    return 0;
}

/* The steps, micro-batches and downsampled lanes of rank object ro. */
static int get_steps(struct px *x, const cJSON *ro, struct trace_rank *r, int slices, uint32_t name0) {
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(ro, "steps"), *mi = cJSON_GetObjectItemCaseSensitive(ro, "micros"),
                *la = cJSON_GetObjectItemCaseSensitive(ro, "lanes");
    if (!cJSON_IsArray(st) || !cJSON_IsArray(mi) || !cJSON_IsArray(la)) return bad(x, "\"steps\", \"micros\" or \"lanes\" is missing");
    int ns = cJSON_GetArraySize(st), nm = cJSON_GetArraySize(mi);
    if (cJSON_GetArraySize(la) != ns) return bad(x, "\"lanes\" has not one row per step");
    size_t nq = (size_t)slices * TSHARD_CATS;
    int64_t *t = malloc(2 * (size_t)(ns ? ns : 1) * sizeof *t), *row = malloc((nq + 2) * sizeof *row);
    uint16_t *q = malloc((ns ? (size_t)ns : 1) * nq * sizeof *q);
    r->steps = calloc(ns ? (size_t)ns : 1, sizeof *r->steps);
    r->micros = calloc(nm ? (size_t)nm : 1, sizeof *r->micros);
    int rc = -1;
    size_t at = strlen(x->place);
    if (!t || !row || !q || !r->steps || !r->micros) { pt_errorf(x->err, "out of memory"); goto out; }
    int i = 0;
    for (const cJSON *e = st->child; e; e = e->next, i++) {
        int64_t v[6];
        const cJSON *rest = NULL;
        snprintf(x->place + at, sizeof x->place - at, ".steps[%d]", i);
        if (ints(x, e, v, 5, &rest, -NS_MAX, NS_MAX)) goto out;
        if (v[0] < INT32_MIN || v[0] > INT32_MAX || !rest || rest->next) { bad(x, "expected step, 4 times, figures"); goto out; }
        if (i && (v[1] < r->steps[i - 1].start_ns)) { bad(x, "the steps are not in ascending start"); goto out; }
        struct trace_step *s = &r->steps[i];
        s->step = (int32_t)v[0], s->start_ns = v[1], s->end_ns = v[2], s->cpu_start_ns = v[3], s->cpu_end_ns = v[4];
        if (get_stats(x, rest, &s->stats)) goto out;
        r->nsteps = i + 1;
    }
    i = 0;
    for (const cJSON *e = mi->child; e; e = e->next, i++) {
        int64_t v[2];
        const cJSON *rest = NULL;
        snprintf(x->place + at, sizeof x->place - at, ".micros[%d]", i);
        if (ints(x, e, v, 2, &rest, -1, INT32_MAX)) goto out;
        if (!rest || rest->next) { bad(x, "expected step, micro, figures"); goto out; }
        r->micros[i].step = (int32_t)v[0], r->micros[i].micro = (int32_t)v[1];
        if (get_stats(x, rest, &r->micros[i].stats)) goto out;
        r->nmicros = (size_t)i + 1;
    }
    i = 0;
    for (const cJSON *e = la->child; e; e = e->next, i++) {
        snprintf(x->place + at, sizeof x->place - at, ".lanes[%d]", i);
        if (ints(x, e, row, (int)nq + 2, NULL, -NS_MAX, NS_MAX)) goto out;
        t[2 * i] = row[0], t[2 * i + 1] = row[1];
        for (size_t j = 0; j < nq; j++) {
            if (row[2 + j] < 0 || row[2 + j] > 1000) { bad(x, "a slice's share is not 0..1000 per mille"); goto out; }
            q[(size_t)i * nq + j] = (uint16_t)row[2 + j];
        }
        if (t[2 * i + 1] - t[2 * i] < 0) { bad(x, "a lane ends before it starts"); goto out; }
    }
    x->place[at] = '\0';
    {   /* tshard_segs wants the spans apart */
        int64_t *t0 = malloc((size_t)(ns ? ns : 1) * sizeof *t0), *t1 = malloc((size_t)(ns ? ns : 1) * sizeof *t1);
        if (!t0 || !t1) { free(t0); free(t1); pt_errorf(x->err, "out of memory"); goto out; }
        for (int s = 0; s < ns; s++) t0[s] = t[2 * s], t1[s] = t[2 * s + 1];
        rc = tshard_segs(r, t0, t1, q, slices, name0, x->err);
        free(t0);
        free(t1);
    }
out:
    free(t);
    free(row);
    free(q);
    return rc;
}

static int get_rank(struct px *x, const cJSON *ro, struct trace_rank *r, int slices, size_t nnames) {
    int64_t v;
    if (!cJSON_IsObject(ro)) return bad(x, "expected a rank object");
    if (get_int(x, ro, "rank", 0, INT32_MAX, &v)) return -1;
    r->rank = (int32_t)v;
    const char *file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ro, "file"));
    if (!(r->file = strdup(file ? file : ""))) return pt_errorf(x->err, "out of memory");
    if (get_int(x, ro, "nkernels", 0, NS_MAX, &v)) return -1;
    r->nkernels = (size_t)v;
    if (get_int(x, ro, "nwindow", 0, NS_MAX, &v)) return -1;
    r->nwindow = (size_t)v;
    size_t at = strlen(x->place);
    snprintf(x->place + at, sizeof x->place - at, ".total");
    if (get_stats(x, cJSON_GetObjectItemCaseSensitive(ro, "total"), &r->total)) return -1;
    x->place[at] = '\0';
    if (get_tables(x, ro, r, nnames)) return -1;
    return get_steps(x, ro, r, slices, (uint32_t)nnames);
}

/* The header: format, version, place in the set. */
static int get_head(struct px *x, const cJSON *root, struct shard_json_info *info, int *slices) {
    int64_t v;
    const char *fmt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "format"));
    if (!fmt || strcmp(fmt, SHARD_JSON_FORMAT)) {
        if (cJSON_GetObjectItemCaseSensitive(root, "origin_ns"))
            return pt_errorf(x->err, "%s: a trace shard of format 1 (an older probetop: no cube and lanes): "
                                     "write the shards again with this probetop", x->what) - 1;
        return pt_errorf(x->err, "%s: not a trace shard file (no \"format\": \"%s\")", x->what, SHARD_JSON_FORMAT);
    }
    if (get_int(x, root, "version", 0, INT32_MAX, &v)) return -1;
    if (v != SHARD_JSON_VERSION)
        return pt_errorf(x->err, "%s: trace shard format version %lld; this probetop reads version %d only%s", x->what,
                         (long long)v, SHARD_JSON_VERSION, v > SHARD_JSON_VERSION ? " (a newer probetop wrote it)" : "") - 1;
    if (get_int(x, root, "shards", 1, 1000000, &v)) return -1;
    info->n = (int)v;
    if (get_int(x, root, "shard", 1, info->n, &v)) return -1;
    info->k = (int)v;
    if (get_int(x, root, "files", 0, INT32_MAX, &v)) return -1;
    info->files = (long)v;
    const char *h = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "files_hash"));
    snprintf(info->hash, sizeof info->hash, "%s", h ? h : "");
    if (get_int(x, root, "slices", 1, 4096, &v)) return -1;
    *slices = (int)v;
    return 0;
}

static int get_groups(struct px *x, const cJSON *root, struct trace_run *run) {
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "groups");
    if (!cJSON_IsArray(g)) return bad(x, "\"groups\" is missing");
    int n = cJSON_GetArraySize(g);
    if (!(run->groups = calloc(n ? (size_t)n : 1, sizeof *run->groups))) return pt_errorf(x->err, "out of memory");
    for (const cJSON *e = g->child; e; e = e->next) {
        snprintf(x->place, sizeof x->place, "groups[%d]", run->ngroups);
        int m = cJSON_GetArraySize(e);
        if (!cJSON_IsArray(e) || m < 1) return bad(x, "expected [dim, ranks...]");
        struct trace_group *gr = &run->groups[run->ngroups++];
        int64_t *v = malloc((size_t)m * sizeof *v);
        if (!v || !(gr->ranks = malloc((size_t)m * sizeof *gr->ranks))) { free(v); return pt_errorf(x->err, "out of memory"); }
        if (ints(x, e, v, m, NULL, 0, INT32_MAX) || v[0] > 255) {
            free(v);
            return x->err->msg[0] ? -1 : bad(x, "a dimension out of range");
        }
        gr->dim = (uint8_t)v[0];
        for (int i = 1; i < m; i++) gr->ranks[gr->nranks++] = (int32_t)v[i];
        free(v);
    }
    x->place[0] = '\0';
    const char *from = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "groups_from"));
    if (from && !(run->groups_from = strdup(from))) return pt_errorf(x->err, "out of memory");
    return 0;
}

static int get_names(struct px *x, const cJSON *root, struct trace_run *run) {
    static const char *const synth[TSHARD_CATS] = {"compute (downsampled)", "communication (downsampled)", "memory (downsampled)"};
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "names");
    if (!cJSON_IsArray(a)) return bad(x, "\"names\" is missing");
    size_t n = (size_t)cJSON_GetArraySize(a);
    if (!(run->names = calloc(n + TSHARD_CATS, sizeof *run->names))) return pt_errorf(x->err, "out of memory");
    for (const cJSON *e = a->child; e; e = e->next) {
        if (!cJSON_IsString(e)) {
            snprintf(x->place, sizeof x->place, "names[%zu]", run->nnames);
            return bad(x, "a kernel name is not a string");
        }
        if (!(run->names[run->nnames] = strdup(e->valuestring))) return pt_errorf(x->err, "out of memory");
        run->nnames++;
    }
    for (int c = 0; c < TSHARD_CATS; c++)
        if (!(run->names[run->nnames++] = strdup(synth[c]))) return pt_errorf(x->err, "out of memory");
    return 0;
}

static int cmp_rank(const void *a, const void *b) {
    const struct trace_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int shard_json_parse(const char *text, size_t len, const char *what, struct trace_run **out, struct shard_json_info *info,
                     void (*warn)(void *ctx, const char *msg), void *ctx, struct pt_error *err) {
    struct px x = {.what = what, .err = err};
    cJSON *root = NULL;
    struct trace_run *run = NULL;
    int slices = 0;
    err->msg[0] = '\0';
    if (json_tree_parse(text, len, what, &root, err)) return -1;
    int rc = -1;
    if (!cJSON_IsObject(root)) { pt_errorf(err, "%s: not a trace shard file (not a JSON object)", what); goto out; }
    int h = get_head(&x, root, info, &slices);
    if (h) {
        rc = h;
        goto out;
    }
    if (!(run = calloc(1, sizeof *run))) { pt_errorf(err, "out of memory"); goto out; }
    run->lane_slices = slices;
    {   /* the trace clock's origin: a decimal string (past 2^53: a JSON number would round it) */
        const char *o = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "origin_ns"));
        char *end = NULL;
        errno = 0;
        long long v0 = o ? strtoll(o, &end, 10) : 0;
        if (!o || !*o || *end || errno) { bad(&x, "\"origin_ns\" is not a decimal string of nanoseconds"); goto out; }
        run->origin_ns = (int64_t)v0;
    }
    int64_t v;
    if (get_int(&x, root, "has_phases", 0, 1, &v)) goto out;
    run->has_phases = (int)v;
    if (get_int(&x, root, "has_micro", 0, 1, &v)) goto out;
    run->has_micro = (int)v;
    if (get_groups(&x, root, run) || get_names(&x, root, run)) goto out;
    const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(root, "ranks");
    if (!cJSON_IsArray(ranks)) { bad(&x, "\"ranks\" is missing"); goto out; }
    int nr = cJSON_GetArraySize(ranks);
    if (!(run->ranks = calloc(nr ? (size_t)nr : 1, sizeof *run->ranks))) { pt_errorf(err, "out of memory"); goto out; }
    for (const cJSON *e = ranks->child; e; e = e->next) {
        snprintf(x.place, sizeof x.place, "ranks[%d]", run->nranks);
        struct trace_rank *r = &run->ranks[run->nranks++];
        if (get_rank(&x, e, r, slices, run->nnames - TSHARD_CATS)) goto out;
        for (int i = 0; i + 1 < run->nranks; i++)
            if (run->ranks[i].rank == r->rank) { bad(&x, "this rank is in the file twice"); goto out; }
    }
    if (run->nranks > 1) qsort(run->ranks, (size_t)run->nranks, sizeof *run->ranks, cmp_rank);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(root, "warnings");
    for (const cJSON *e = cJSON_IsArray(w) ? w->child : NULL; e && warn; e = e->next)
        if (cJSON_IsString(e)) warn(ctx, e->valuestring);
    *out = run;
    run = NULL;
    rc = 0;
out:
    cJSON_Delete(root);
    trace_run_free(run);
    return rc;
}
