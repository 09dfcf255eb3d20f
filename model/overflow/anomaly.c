/* anomaly: the list of msProbe's monitor anomaly reports, its order and the
 * cells it names (see anomaly.h; the rules are probetop-rules(7), FIRST
 * ANOMALY ORDER). */
#include "model/overflow/anomaly.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/cube/names.h"
#include "model/overflow/overflow.h"
#include "model/util/util.h"

void anomaly_list_free(struct anomaly_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].tag_name);
        free(l->v[i].message);
        free(l->v[i].group_mates);
        free(l->v[i].op);
    }
    free(l->v);
    for (size_t i = 0; i < l->nfiles; i++) free(l->files[i]);
    free(l->files);
    free(l->cells);
    memset(l, 0, sizeof *l);
}

long anomaly_add_file(struct anomaly_list *l, const char *path) {
    char *d = strdup(path);
    if (!d || UTIL_PUSH(l->files, l->nfiles, l->files_cap) != 0) {
        free(d);
        return -1;
    }
    l->files[l->nfiles] = d;
    return (long)l->nfiles++;
}

/* The key of a tag: its last `/` part. */
static const char *tag_key(const char *tag) {
    const char *s = strrchr(tag, '/');
    return s ? s + 1 : tag;
}

enum anomaly_stage anomaly_stage_of(const char *tag_name) {
    static const struct { const char *key; enum anomaly_stage st; } stages[] = {
        {"actv", ANOM_STAGE_FORWARD},      {"actv_grad", ANOM_STAGE_BACKWARD}, {"pre_grad", ANOM_STAGE_BACKWARD},
        {"post_grad", ANOM_STAGE_BACKWARD}, {"acc_grad", ANOM_STAGE_BACKWARD},  {"exp_avg", ANOM_STAGE_OPTIMIZER},
        {"exp_avg_sq", ANOM_STAGE_OPTIMIZER},
    };
    if (!tag_name) return ANOM_STAGE_OTHER;
    const char *k = tag_key(tag_name);
    for (size_t i = 0; i < sizeof stages / sizeof *stages; i++)
        if (!strcmp(k, stages[i].key)) return stages[i].st;
    return ANOM_STAGE_OTHER;
}

enum anomaly_rule anomaly_rule_of(const char *message) {
    if (!message) return ANOM_RULE_OTHER;
    if (!strncmp(message, "Rule AnomalyNan ", 16)) return ANOM_RULE_NAN;
    if (!strncmp(message, "Rule AnomalyTurbulence ", 23)) return ANOM_RULE_TURBULENCE;
    return ANOM_RULE_OTHER;
}

const char *anomaly_rule_name(enum anomaly_rule r) {
    return r == ANOM_RULE_NAN ? "AnomalyNan" : r == ANOM_RULE_TURBULENCE ? "AnomalyTurbulence" : "other";
}

const char *anomaly_stage_name(int stage) {
    switch (stage) {
    case ANOM_STAGE_FORWARD: return "forward";
    case ANOM_STAGE_BACKWARD: return "backward";
    case ANOM_STAGE_OPTIMIZER: return "optimizer";
    default: return "other";
    }
}

/* The statistic of msProbe's message "... in ('<tag>', '<op>') at step ...". */
static char *op_of(const char *message) {
    const char *p = message ? strstr(message, "', '") : NULL;
    if (!p) return strdup("");
    p += 4;
    const char *e = strchr(p, '\'');
    size_t n = e ? (size_t)(e - p) : 0;
    if (n > 64) n = 0;   /* not a statistic's name */
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

int anomaly_push(struct anomaly_list *l, const struct anomaly *a, struct pt_error *err) {
    if (UTIL_PUSH(l->v, l->n, l->cap) != 0) return pt_errorf(err, "anomaly reports: out of memory");
    struct anomaly *d = &l->v[l->n];
    *d = *a;
    d->tag_name = strdup(a->tag_name ? a->tag_name : "");
    d->message = strdup(a->message ? a->message : "");
    d->group_mates = strdup(a->group_mates ? a->group_mates : "");
    d->op = op_of(a->message);
    if (!d->tag_name || !d->message || !d->group_mates || !d->op) {
        free(d->tag_name);
        free(d->message);
        free(d->group_mates);
        free(d->op);
        return pt_errorf(err, "anomaly reports: out of memory");
    }
    d->stage = (int8_t)anomaly_stage_of(d->tag_name);
    d->rule = (uint8_t)anomaly_rule_of(d->message);
    d->seq = (uint32_t)l->n;
    d->metric = d->stat = d->step_idx = d->rank_idx = -1;
    d->target = NAMES_NONE;
    l->n++;
    return 0;
}

#define CMP(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* probetop-rules(7), FIRST ANOMALY ORDER: step, micro step, stage, then
 * (vpp, pp) ascending in the forward stage and descending in every other
 * (a backward pass runs the pipeline from its last stage), then call id. */
int anomaly_cmp(const struct anomaly *a, const struct anomaly *b) {
    CMP(a->step, b->step);
    CMP(a->micro_step, b->micro_step);
    CMP(a->stage, b->stage);
    if (a->stage == ANOM_STAGE_FORWARD) {
        CMP(a->vpp_stage, b->vpp_stage);
        CMP(a->pp_stage, b->pp_stage);
    } else {
        CMP(b->vpp_stage, a->vpp_stage);
        CMP(b->pp_stage, a->pp_stage);
    }
    CMP(a->call_id, b->call_id);
    CMP(a->rank, b->rank);
    CMP(a->seq, b->seq);
    return 0;
}

static int cmp_entries(const void *pa, const void *pb) { return anomaly_cmp(pa, pb); }

void anomaly_sort(struct anomaly_list *l) {
    if (l->n > 1) qsort(l->v, l->n, sizeof *l->v, cmp_entries);
    free(l->cells);   /* indexes into the old order */
    l->cells = NULL;
    l->placed = 0;
}

int anomaly_tag_parts(const char *tag, char *name, size_t n, int32_t *micro, const char **key) {
    const char *slash = strchr(tag, '/');
    const char *colon = strchr(tag, ':');
    if (!slash || !colon || colon > slash || n == 0) return -1;
    const char *nm = colon + 1;
    /* the name ends at the slash, or at a ":<digits>" just before it */
    const char *end = slash;
    *micro = -1;
    const char *c2 = nm;
    const char *last = NULL;
    for (; c2 < slash; c2++)
        if (*c2 == ':') last = c2;
    if (last && last + 1 < slash && strspn(last + 1, "0123456789") == (size_t)(slash - last - 1) && slash - last - 1 < 9) {
        *micro = (int32_t)atol(last + 1);
        end = last;
    }
    size_t len = (size_t)(end - nm);
    if (len >= n) return -1;
    memcpy(name, nm, len);
    name[len] = '\0';
    *key = tag_key(tag);
    return 0;
}

/* ---- cells ---- */

/* The metric names a tag key is written under: v1 monitor metric names,
 * then monitor_v2 slug/scope names (probetop-formats(5), MONITOR ANOMALY
 * REPORTS). */
static void metric_names(const char *key, const char **v1, const char **v2) {
    static const struct { const char *key, *v1, *v2; } map[] = {
        {"actv", "actv", "module/forward"},
        {"actv_grad", "actv_grad", "module/backward"},
        {"pre_grad", "grad_unreduced", "weight_grad/unreduced"},
        {"acc_grad", "grad_unreduced", "weight_grad/unreduced"},
        {"post_grad", "grad_reduced", "weight_grad/reduced"},
        {"exp_avg", "exp_avg", "optimizer/exp_avg"},
        {"exp_avg_sq", "exp_avg_sq", "optimizer/exp_avg_sq"},
        {"param_origin", "param_origin", "param/param_origin"},
        {"param_updated", "param_updated", "param/param_updated"},
    };
    *v1 = "other";
    *v2 = "cc/comm";
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(key, map[i].key)) {
            *v1 = map[i].v1;
            *v2 = map[i].v2;
            return;
        }
}

/* The monitor_v2 spelling of a v1 module tensor name: "<m>.input" or
 * "<m>.input_<i>" (v1) is "<m>.input.<i>" in v2, "<m>.grad_input.<i>" in
 * the backward scope.  0, or -1 when name has no such ending. */
static int v2_name(const char *name, int backward, char *out, size_t n) {
    static const char *const io[] = {".input", ".output"};
    for (int k = 0; k < 2; k++) {
        const char *p = strstr(name, io[k]);
        const char *last = NULL;
        while (p) {
            last = p;
            p = strstr(p + 1, io[k]);
        }
        if (!last) continue;
        const char *tail = last + strlen(io[k]);
        long idx = 0;
        if (*tail == '_' && tail[1] && strspn(tail + 1, "0123456789") == strlen(tail + 1) && strlen(tail + 1) < 9)
            idx = atol(tail + 1);
        else if (*tail)
            continue;
        int w = snprintf(out, n, "%.*s.%s%s.%ld", (int)(last - name), name, backward ? "grad_" : "", io[k] + 1, idx);
        return w > 0 && (size_t)w < n ? 0 : -1;
    }
    return -1;
}

/* The cube step of (step, micro): in micro-step mode the exact micro step,
 * else the step's first; otherwise the step itself. */
static int step_of(const struct cube *c, int32_t step, int32_t micro) {
    int first = -1;
    for (int i = 0; i < c->nsteps; i++) {
        if (c->steps[i].origin != step) continue;
        if (c->steps[i].micro < 0 || c->steps[i].micro == micro) return i;
        if (first < 0) first = i;
    }
    return first >= 0 ? first : cube_step_find(c, step);
}

static void place_one(struct anomaly *a, const struct cube *c) {
    char name[4096], alt[4200];
    int32_t micro;
    const char *key;
    a->metric = a->stat = a->step_idx = a->rank_idx = -1;
    a->target = NAMES_NONE;
    if (anomaly_tag_parts(a->tag_name, name, sizeof name, &micro, &key) != 0) return;
    int32_t m = micro >= 0 ? micro : a->micro_step;
    int micro_axis = 0;
    for (int i = 0; i < c->nsteps && !micro_axis; i++) micro_axis = c->steps[i].micro >= 0;
    int32_t call = micro_axis ? 0 : m;
    const char *v1, *v2;
    metric_names(key, &v1, &v2);
    int metric = cube_metric_find(c, v1);
    uint32_t t = metric >= 0 ? names_find(c->names, name, strlen(name), a->vpp_stage, call) : NAMES_NONE;
    if (t == NAMES_NONE && (metric = cube_metric_find(c, v2)) >= 0) {
        t = names_find(c->names, name, strlen(name), a->vpp_stage, call);
        if (t == NAMES_NONE && v2_name(name, !strcmp(key, "actv_grad"), alt, sizeof alt) == 0)
            t = names_find(c->names, alt, strlen(alt), a->vpp_stage, call);
    }
    if (t == NAMES_NONE || cube_local_target(c, metric, t) == UINT32_MAX) return;
    int s = step_of(c, a->step, m), r = cube_rank_find(c, a->rank);
    if (s < 0 || r < 0) return;
    a->metric = metric;
    a->target = t;
    a->step_idx = s;
    a->rank_idx = r;
    a->stat = a->op[0] ? cube_stat_find(c, metric, a->op) : -1;
}

/* Cell order for the index: metric, target, step, rank, then list order. */
static int cmp_cell(const struct anomaly_cell *x, const struct anomaly_cell *y) {
    CMP(x->metric, y->metric);
    CMP(x->target, y->target);
    CMP(x->step_idx, y->step_idx);
    CMP(x->rank_idx, y->rank_idx);
    return 0;
}

static int cmp_cells(const void *pa, const void *pb) {
    const struct anomaly_cell *a = pa, *b = pb;
    int c = cmp_cell(a, b);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

int anomaly_place(struct anomaly_list *l, const struct cube *c, struct pt_error *err) {
    free(l->cells);
    l->cells = NULL;
    l->placed = 0;
    if (!c || !l->n) return 0;
    l->cells = malloc(l->n * sizeof *l->cells);
    if (!l->cells) return pt_errorf(err, "anomaly reports: out of memory");
    for (size_t i = 0; i < l->n; i++) {
        struct anomaly *a = &l->v[i];
        place_one(a, c);
        if (a->metric >= 0)
            l->cells[l->placed++] = (struct anomaly_cell){a->metric, a->step_idx, a->rank_idx, a->target, i};
    }
    qsort(l->cells, l->placed, sizeof *l->cells, cmp_cells);
    return 0;
}

long anomaly_at(const struct anomaly_list *l, int metric, int step_idx, int rank_idx, uint32_t target) {
    if (!l || !l->placed) return -1;
    struct anomaly_cell key = {metric, step_idx, rank_idx, target, 0};
    size_t lo = 0, hi = l->placed;
    while (lo < hi) {   /* the first index whose cell is not below key */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_cell(&l->cells[mid], &key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < l->placed && cmp_cell(&l->cells[lo], &key) == 0 ? (long)l->cells[lo].idx : -1;
}

int anomaly_gate_level(const struct anomaly *a) { return a->rule == ANOM_RULE_NAN ? OVF_CRITICAL : OVF_HIGH; }
