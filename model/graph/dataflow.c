/* dataflow: producers and consumers of the tensors of one dump by
 * checksum or statistics (model/graph/dataflow.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/graph/dataflow.h"
#include "model/util/util.h"

#define NONE UINT32_MAX

struct slot {                /* one key of the hash table */
    uint64_t h;
    uint32_t rep;            /* a param holding the key, NONE = empty slot */
    uint32_t api, mod;       /* latest API / module output with the key, NONE */
    uint32_t napi, nmod;     /* how many so far */
};

struct dataflow {
    size_t nparams;
    int32_t *rec;            /* per param: its record */
    uint32_t *prod;          /* per input: the producing output, NONE */
    uint32_t *nequal;        /* per input: candidates with the key */
    uint8_t *method;         /* per input */
    uint32_t *alias;         /* per module output: the API output it repeats, NONE */
    uint32_t *c0;            /* consumers of output p: cons[c0[p] .. c0[p+1]) */
    uint32_t *cons;
};

static int is_input(const struct tparam *q) { return q->state == PS_INPUT; }
static int is_output(const struct tparam *q) { return q->state == PS_OUTPUT || q->state == PS_PGRAD; }

/* The method of a param's key, DATAFLOW_NONE when it has none. */
static int key_method(const struct tree *t, const struct tparam *q) {
    if (q->is_null || q->dtype == TREE_NONE || q->shape == TREE_NONE) return DATAFLOW_NONE;
    /* an int or float argument flattened with a dtype of its own is no tensor */
    const char *ty = tree_s(t, q->type);
    if (ty && !strstr(ty, "Tensor") && !strstr(ty, "ndarray")) return DATAFLOW_NONE;
    if (q->has_md5 && q->md5 != TREE_NONE) return DATAFLOW_CHECKSUM;
    for (int s = 0; s < 4; s++)
        if (tree_stat(t, q, s).kind != TV_NONE) return DATAFLOW_STATS;
    return DATAFLOW_NONE;
}

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL + (h >> 29); }

static uint64_t tval_hash(const struct tree *t, const struct tval *v) {
    switch (v->kind) {
    case TV_FLOAT: {
        double x = v->real;
        if (isnan(x)) return 0x7ff8000000000001ULL;
        if (x == 0) x = 0;   /* -0 == 0 */
        uint64_t b;
        memcpy(&b, &x, sizeof b);
        return b;
    }
    case TV_INT: case TV_BOOL: return (uint64_t)v->integer * 0x9e3779b97f4a7c15ULL + v->kind;
    case TV_STR: return util_hash_str(tree_s(t, v->text) ? tree_s(t, v->text) : "");
    default: return 7;
    }
}

static int tval_eq(const struct tree *t, const struct tval *a, const struct tval *b) {
    if (a->kind != b->kind) return 0;
    switch (a->kind) {
    case TV_FLOAT: return (isnan(a->real) && isnan(b->real)) || a->real == b->real;
    case TV_INT: case TV_BOOL: return a->integer == b->integer;
    case TV_STR: return a->text == b->text || !strcmp(tree_s(t, a->text), tree_s(t, b->text));
    default: return 1;
    }
}

static int str_eq(const struct tree *t, uint32_t a, uint32_t b) {
    return a == b || (a != TREE_NONE && b != TREE_NONE && !strcmp(tree_s(t, a), tree_s(t, b)));
}

/* splitmix64's finalizer: the table takes the low bits, and the values of
 * bfloat16 statistics differ only in the high bits of their doubles */
static uint64_t avalanche(uint64_t h) {
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

static uint64_t key_hash(const struct tree *t, const struct tparam *q, int m) {
    uint64_t h = mix(util_hash_str(tree_s(t, q->dtype)), util_hash_str(tree_s(t, q->shape)));
    h = mix(h, (uint64_t)m);
    if (m == DATAFLOW_CHECKSUM) return avalanche(mix(h, util_hash_str(tree_s(t, q->md5))));
    for (int s = 0; s < 4; s++) {
        struct tval v = tree_stat(t, q, s);
        h = avalanche(mix(h, tval_hash(t, &v)));
    }
    return h;
}

static int key_eq(const struct tree *t, const struct tparam *a, const struct tparam *b, int m) {
    if (key_method(t, b) != m || !str_eq(t, a->dtype, b->dtype) || !str_eq(t, a->shape, b->shape)) return 0;
    if (m == DATAFLOW_CHECKSUM) return str_eq(t, a->md5, b->md5);
    for (int s = 0; s < 4; s++) {
        struct tval x = tree_stat(t, a, s), y = tree_stat(t, b, s);
        if (!tval_eq(t, &x, &y)) return 0;
    }
    return 1;
}

/* The slot of param p's key (empty when the key is new). */
static struct slot *find(struct slot *tab, size_t mask, const struct tree *t, uint32_t p, uint64_t h, int m) {
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct slot *s = &tab[i];
        if (s->rep == NONE) return s;
        if (s->h == h && key_eq(t, &t->params[p], &t->params[s->rep], m)) return s;
    }
}

static int rec_is_module(const struct tree *t, size_t r) {
    const char *n = tree_s(t, t->recs[r].name);
    return n && (!strncmp(n, "Module.", 7) || !strncmp(n, "Cell.", 5));
}

void dataflow_free(struct dataflow *d) {
    if (!d) return;
    free(d->rec);
    free(d->prod);
    free(d->nequal);
    free(d->method);
    free(d->alias);
    free(d->c0);
    free(d->cons);
    free(d);
}

/* Consumers: the inverse of prod, counted then filled (dump order). */
static int build_consumers(struct dataflow *d) {
    size_t n = d->nparams, total = 0;
    d->c0 = calloc(n + 1, sizeof *d->c0);
    if (!d->c0) return -1;
    for (size_t p = 0; p < n; p++)
        if (d->prod[p] != NONE) d->c0[d->prod[p] + 1]++, total++;
    for (size_t p = 0; p < n; p++) d->c0[p + 1] += d->c0[p];
    d->cons = malloc((total ? total : 1) * sizeof *d->cons);
    uint32_t *fill = malloc((n ? n : 1) * sizeof *fill);
    if (!d->cons || !fill) { free(fill); return -1; }
    memcpy(fill, d->c0, n * sizeof *fill);
    for (size_t p = 0; p < n; p++)
        if (d->prod[p] != NONE) d->cons[fill[d->prod[p]]++] = (uint32_t)p;
    free(fill);
    return 0;
}

/* When a module record's inputs are read: at its first inner record (a
 * module is entered before the ops inside it run, though msProbe writes
 * its record after them).  start[r] = that record; at[]/at0[] list, per
 * record, the modules that start there (CSR).  Without a built tree
 * (no post order) every record starts at itself. */
static int module_starts(const struct tree *t, int32_t **startp, uint32_t **at0p, uint32_t **atp) {
    size_t nr = t->nrecs ? t->nrecs : 1, nn = t->nnodes ? t->nnodes : 1;
    int32_t *start = malloc(nr * sizeof *start), *mn = malloc(nn * sizeof *mn);
    uint32_t *at0 = calloc(nr + 1, sizeof *at0), *at = malloc(nr * sizeof *at);
    if (!start || !mn || !at0 || !at) {
        free(start), free(mn), free(at0), free(at);
        return -1;
    }
    for (size_t r = 0; r < t->nrecs; r++) start[r] = (int32_t)r;
    for (size_t n = 0; n < t->nnodes; n++) mn[n] = t->nodes[n].rec >= 0 ? t->nodes[n].rec : INT32_MAX;
    for (size_t i = 0; i < t->norder; i++) {   /* post order: children first */
        int n = t->order[i], par = t->nodes[n].parent;
        if (par >= 0 && mn[n] < mn[par]) mn[par] = mn[n];
    }
    for (size_t n = 0; n < t->nnodes; n++) {
        int32_t r = t->nodes[n].rec;
        if (r >= 0 && t->nodes[n].kind == TK_MODULE && mn[n] < r) start[r] = mn[n];
    }
    free(mn);
    for (size_t r = 0; r < t->nrecs; r++)
        if (start[r] != (int32_t)r) at0[start[r] + 1]++;
    for (size_t r = 0; r < t->nrecs; r++) at0[r + 1] += at0[r];
    uint32_t *fill = malloc(nr * sizeof *fill);
    if (!fill) {
        free(start), free(at0), free(at);
        return -1;
    }
    memcpy(fill, at0, t->nrecs * sizeof *fill);
    for (size_t r = 0; r < t->nrecs; r++)
        if (start[r] != (int32_t)r) at[fill[start[r]]++] = (uint32_t)r;
    free(fill);
    *startp = start, *at0p = at0, *atp = at;
    return 0;
}

/* Looks up the producers of record r's inputs. */
static void resolve_inputs(const struct tree *t, struct dataflow *d, struct slot *tab, size_t cap, size_t r) {
    const struct trec *rc = &t->recs[r];
    for (uint32_t k = 0; k < rc->np; k++) {
        uint32_t p = rc->p0 + k;
        int m = is_input(&t->params[p]) ? key_method(t, &t->params[p]) : DATAFLOW_NONE;
        if (!m) continue;
        struct slot *s = find(tab, cap - 1, t, p, key_hash(t, &t->params[p], m), m);
        if (s->rep == NONE) continue;
        int api = s->api != NONE;
        d->prod[p] = api ? s->api : s->mod;
        d->nequal[p] = api ? s->napi : s->nmod;
        d->method[p] = (uint8_t)m;
    }
}

int dataflow_build(const struct tree *t, struct dataflow **out, struct pt_error *err) {
    *out = NULL;
    size_t n = t->nparams, nout = 0;
    struct dataflow *d = calloc(1, sizeof *d);
    if (!d) return pt_errorf(err, "out of memory");
    d->nparams = n;
    size_t m1 = n ? n : 1;
    d->rec = malloc(m1 * sizeof *d->rec);
    d->prod = malloc(m1 * sizeof *d->prod);
    d->nequal = calloc(m1, sizeof *d->nequal);
    d->method = calloc(m1, 1);
    d->alias = malloc(m1 * sizeof *d->alias);
    if (!d->rec || !d->prod || !d->nequal || !d->method || !d->alias) goto oom;
    for (size_t p = 0; p < n; p++) {
        d->rec[p] = -1;
        d->prod[p] = d->alias[p] = NONE;
        if (is_output(&t->params[p])) nout++;
    }
    size_t cap = 16;
    while (cap < 2 * nout + 2) cap <<= 1;
    struct slot *tab = malloc(cap * sizeof *tab);
    if (!tab) goto oom;
    for (size_t i = 0; i < cap; i++) tab[i].rep = NONE;
    int32_t *start;
    uint32_t *at0, *at;
    if (module_starts(t, &start, &at0, &at) != 0) {
        free(tab);
        goto oom;
    }
    for (size_t r = 0; r < t->nrecs; r++) {
        const struct trec *rc = &t->recs[r];
        int mod = rec_is_module(t, r);
        for (uint32_t k = 0; k < rc->np; k++) d->rec[rc->p0 + k] = (int32_t)r;
        /* inputs first (an op is not its own producer), those of the
         * modules entered here before */
        for (uint32_t k = at0[r]; k < at0[r + 1]; k++) resolve_inputs(t, d, tab, cap, at[k]);
        if (start[r] == (int32_t)r) resolve_inputs(t, d, tab, cap, r);
        for (uint32_t k = 0; k < rc->np; k++) {
            uint32_t p = rc->p0 + k;
            int m = is_output(&t->params[p]) ? key_method(t, &t->params[p]) : DATAFLOW_NONE;
            if (!m) continue;
            uint64_t h = key_hash(t, &t->params[p], m);
            struct slot *s = find(tab, cap - 1, t, p, h, m);
            if (s->rep == NONE) *s = (struct slot){h, p, NONE, NONE, 0, 0};
            if (mod) {
                d->alias[p] = s->api;
                s->mod = p;
                s->nmod++;
            } else {
                s->api = p;
                s->napi++;
            }
        }
    }
    free(tab);
    free(start), free(at0), free(at);
    if (build_consumers(d) != 0) goto oom;
    *out = d;
    return 0;
oom:
    dataflow_free(d);
    return pt_errorf(err, "out of memory (data-flow index of %zu params)", n);
}

int32_t dataflow_rec_of(const struct dataflow *d, uint32_t p) { return p < d->nparams ? d->rec[p] : -1; }

int dataflow_producer(const struct dataflow *d, uint32_t p, struct dataflow_link *l) {
    if (p >= d->nparams || d->prod[p] == NONE) return 0;
    l->param = d->prod[p];
    l->rec = d->rec[l->param];
    l->method = d->method[p];
    l->nequal = d->nequal[p];
    return 1;
}

uint32_t dataflow_consumers(const struct dataflow *d, uint32_t p, const uint32_t **ins) {
    *ins = NULL;
    if (p >= d->nparams) return 0;
    if (d->c0[p + 1] == d->c0[p] && d->alias[p] != NONE) p = d->alias[p];
    *ins = d->cons + d->c0[p];
    return d->c0[p + 1] - d->c0[p];
}

const char *dataflow_method_name(int method) {
    return method == DATAFLOW_CHECKSUM ? "checksum" : method == DATAFLOW_STATS ? "statistics" : "";
}
