/* curves: the series store and the roles of series names (see curves.h). */
#include "model/curves/curves.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

struct curves *curves_new(void) {
    struct curves *c = calloc(1, sizeof *c);
    if (c) c->last_step = -1;
    return c;
}

void curves_free(struct curves *c) {
    if (!c) return;
    for (size_t i = 0; i < c->nseries; i++) {
        free(c->series[i].name);
        free(c->series[i].pts);
    }
    free(c->series);
    free(c);
}

const struct curves_series *curves_find(const struct curves *c, const char *name) {
    for (size_t i = 0; i < c->nseries; i++)
        if (!strcmp(c->series[i].name, name)) return &c->series[i];
    return NULL;
}

const struct curves_series *curves_find_role(const struct curves *c, enum curves_role role) {
    for (size_t i = 0; i < c->nseries; i++)
        if (c->series[i].role == role) return &c->series[i];
    return NULL;
}

struct curves_series *curves_series(struct curves *c, const char *name) {
    struct curves_series *s = (struct curves_series *)curves_find(c, name);
    if (s) return s;
    if (UTIL_PUSH(c->series, c->nseries, c->cap) != 0) return NULL;
    char *copy = strdup(name);
    if (!copy) return NULL;
    s = &c->series[c->nseries++];
    memset(s, 0, sizeof *s);
    s->name = copy;
    s->role = curves_role_of(name);
    return s;
}

int curves_push(struct curves_series *s, int64_t step, double value) {
    if (UTIL_PUSH(s->pts, s->n, s->cap) != 0) return -1;
    s->pts[s->n++] = (struct curves_point){step, value};
    return 0;
}

/* By step, then by the order read (the index kept in a parallel array
 * would cost memory: a stable merge sort keeps the order instead). */
static void merge_sort(struct curves_point *v, struct curves_point *tmp, size_t n) {
    if (n < 2) return;
    size_t h = n / 2;
    merge_sort(v, tmp, h);
    merge_sort(v + h, tmp, n - h);
    if (v[h - 1].step <= v[h].step) return;   /* already in order: a log's usual case */
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = v[j].step < v[i].step ? v[j++] : v[i++];
    while (i < h) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

int curves_finish(struct curves *c) {
    c->first_step = 0;
    c->last_step = -1;
    int any = 0;
    for (size_t i = 0; i < c->nseries; i++) {
        struct curves_series *s = &c->series[i];
        /* the usual series is read in order: the sort, its buffer and the
         * pass that drops repeated steps only when needed */
        int unsorted = 0, repeated = 0;
        for (size_t r = 1; r < s->n && !unsorted; r++) {
            unsorted = s->pts[r].step < s->pts[r - 1].step;
            repeated |= s->pts[r].step == s->pts[r - 1].step;
        }
        if (unsorted) {
            struct curves_point *tmp = malloc(s->n * sizeof *tmp);
            if (!tmp) return -1;
            merge_sort(s->pts, tmp, s->n);
            free(tmp);
        }
        if (unsorted || repeated) {
            size_t w = 0;   /* a step given again keeps its last value */
            for (size_t r = 0; r < s->n; r++) {
                if (w && s->pts[w - 1].step == s->pts[r].step) s->pts[w - 1] = s->pts[r];
                else s->pts[w++] = s->pts[r];
            }
            s->n = w;
        }
        if (!s->n) continue;
        if (!any || s->pts[0].step < c->first_step) c->first_step = s->pts[0].step;
        if (!any || s->pts[s->n - 1].step > c->last_step) c->last_step = s->pts[s->n - 1].step;
        any = 1;
    }
    return 0;
}

int curves_value_at(const struct curves_series *s, int64_t step, double *v) {
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->pts[mid].step < step) lo = mid + 1;
        else hi = mid;
    }
    if (lo >= s->n || s->pts[lo].step != step) return 0;
    *v = s->pts[lo].value;
    return 1;
}

/* The name lower-cased without ' ', '-', '_' and '/' ("actor/pg_loss" ->
 * "actorpgloss"), cut at size - 1. */
static void squash(const char *name, char *out, size_t size) {
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < size; p++)
        if (*p != ' ' && *p != '-' && *p != '_' && *p != '/') out[n++] = (char)tolower((unsigned char)*p);
    out[n] = '\0';
}

static int has(const char *s, const char *part) { return strstr(s, part) != NULL; }

enum curves_role curves_role_of(const char *name) {
    char s[256];
    squash(name, s, sizeof s);
    /* the specific before the general: "loss scale" is no loss, "number of
     * nan iterations" no loss either */
    if (has(s, "lossscale")) return CURVES_LOSS_SCALE;
    if (has(s, "naniteration")) return CURVES_NAN_ITERS;
    if (has(s, "skippediteration") || !strcmp(s, "skipped")) return CURVES_SKIPPED;
    if (has(s, "gradnorm") || has(s, "globalnorm") || has(s, "gradientnorm")) return CURVES_GRAD_NORM;
    if (has(s, "logpdiff") || has(s, "probsdiff") || has(s, "probdiff")) return CURVES_LOGP_DIFF;
    /* verl logs a KL term beside its reward and loss, and before them:
     * actor/kl_loss, actor/reward_kl_penalty are neither */
    if (has(s, "kl") && (has(s, "loss") || has(s, "reward") || has(s, "penalty"))) return CURVES_OTHER;
    if (has(s, "reward") || (has(s, "critic") && has(s, "score"))) return CURVES_REWARD;
    if (has(s, "learningrate") || !strcmp(s, "lr") || (strlen(s) > 2 && !strcmp(s + strlen(s) - 2, "lr") &&
                                                         (has(name, "/lr") || has(name, "_lr") || has(name, "-lr"))))
        return CURVES_LR;
    if (has(s, "throughput") || has(s, "tokenspersec") || has(s, "tokenssec") || has(s, "samplespersec") || has(s, "tflops") ||
        has(s, "elapsedtimeperiteration") || has(s, "iterationtime") || has(s, "steptime"))
        return CURVES_THROUGHPUT;
    if (has(s, "loss")) return CURVES_LOSS;
    return CURVES_OTHER;
}

const char *curves_role_name(enum curves_role role) {
    static const char *const names[CURVES_NROLES] = {"other", "loss", "grad_norm", "loss_scale", "lr",
                                                     "throughput", "skipped", "nan_iterations", "logp_diff",
                                                     "reward"};
    return (unsigned)role < CURVES_NROLES ? names[role] : "other";
}
