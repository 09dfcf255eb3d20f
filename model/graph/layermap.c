/* layermap: msProbe's layer mapping (see layermap.h). */
#include "model/graph/layermap.h"

#include "model/util/util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dot-separated names ---- */

struct segs { const char **s; size_t *len; size_t n, cap; };

static int segs_split(struct segs *g, const char *s) {
    g->n = 0;
    for (const char *p = s;;) {
        const char *d = strchr(p, '.');
        if (util_grow2((void **)&g->s, sizeof *g->s, (void **)&g->len, sizeof *g->len, &g->cap, g->n + 1) != 0)
            return -1;
        g->s[g->n] = p;
        g->len[g->n] = d ? (size_t)(d - p) : strlen(p);
        g->n++;
        if (!d) return 0;
        p = d + 1;
    }
}

static void segs_free(struct segs *g) { free(g->s); free(g->len); }

static int seg_is(const struct segs *g, size_t i, const char *w) {
    return g->len[i] == strlen(w) && !strncmp(g->s[i], w, g->len[i]);
}

static char *seg_dup(const struct segs *g, size_t i) { return strndup(g->s[i], g->len[i]); }

/* The segments [a, b) joined by dots, appended to a growing string. */
struct str { char *b; size_t n, cap; };

static int str_add(struct str *s, const char *p, size_t n) {
    if (s->n + n + 1 > s->cap) {
        size_t nc = s->cap ? s->cap : 128;
        while (nc < s->n + n + 1) nc *= 2;
        char *nb = realloc(s->b, nc);
        if (!nb) return -1;
        s->b = nb;
        s->cap = nc;
    }
    memcpy(s->b + s->n, p, n);
    s->n += n;
    s->b[s->n] = '\0';
    return 0;
}

static int str_join(struct str *s, const struct segs *g, size_t a, size_t b) {
    for (size_t i = a; i < b; i++)
        if ((i > a && str_add(s, ".", 1) != 0) || str_add(s, g->s[i], g->len[i]) != 0) return -1;
    return 0;
}

/* ---- one dump entry (msProbe's DumpDataItem) ---- */

struct item {
    const char *name;    /* in the tree's pool */
    char *type;          /* class (modules), API name, or the class owning a parameter gradient */
    char *state;         /* forward / backward / parameters_grad (the direction field) */
    char *full;          /* the scope: layer path [. frame function] . attribute or API name */
    int32_t node;        /* trie node */
};

static int frame_files(const char *file) {
    static const char *const frame[] = {"site-packages/torch", "package/torch", "site-packages/mindspore",
                                        "package/mindspore"};
    for (size_t i = 0; i < sizeof frame / sizeof *frame; i++)
        if (strstr(file, frame[i])) return 1;
    return 0;
}

/* The framework function an API was called from: the last framework frame
 * of the stack's first run of framework frames after the API wrapper
 * ("Template") and before the module's forward/construct, as its function
 * name; "" when there is none.  Stack lines read "File F, line N, in FUNC,
 * \n code". */
static void frame_scope(const struct tree *t, int stack, int mindspore, char *out, size_t size) {
    out[0] = '\0';
    const uint32_t *lines = t->lines + t->stacks[stack].l0;
    uint32_t n = t->stacks[stack].n;
    long start = -1, end = n;
    for (uint32_t i = 0; i < n; i++) {
        const char *l = tree_s(t, lines[i]);
        if (strstr(l, "Template")) start = i;
        else if (start >= 0 && (mindspore ? strstr(l, "construct") != NULL
                                          : (strstr(l, "in forward,") || strstr(l, "in backward,")))) {
            end = i;
            break;
        }
    }
    const char *frame = NULL;
    for (long i = start + 1; i < end; i++) {
        const char *l = tree_s(t, lines[i]);
        const char *c = strchr(l, ',');
        size_t fl = c ? (size_t)(c - l) : strlen(l);
        char file[4096];
        snprintf(file, sizeof file, "%.*s", (int)(fl < sizeof file ? fl : sizeof file - 1), l);
        if (!frame_files(file)) break;
        frame = l;
    }
    if (!frame) return;
    /* fields split at commas: 0 the file, 2 "in FUNC" */
    const char *c1 = strchr(frame, ',');
    const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (!c2) return;
    char file[4096];
    size_t fl = (size_t)(c1 - frame);
    snprintf(file, sizeof file, "%.*s", (int)(fl < sizeof file ? fl : sizeof file - 1), frame);
    if (strstr(file, "msprobe") || strstr(file, "MindSpeed")) return;
    const char *c3 = strchr(c2 + 1, ',');
    size_t funcl = c3 ? (size_t)(c3 - c2 - 1) : strlen(c2 + 1);
    char func[1024];
    snprintf(func, sizeof func, "%.*s", (int)(funcl < sizeof func ? funcl : sizeof func - 1), c2 + 1);
    if (strstr(func, "construct") || strstr(func, "__call__")) return;
    /* the second whitespace-separated word */
    const char *p = func;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    while (*p && !(*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p) return;
    const char *e = p;
    while (*e && !(*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r')) e++;
    snprintf(out, size, "%.*s", (int)(e - p), p);
}

/* msProbe picks the stack markers by framework; a dump without one names
 * it by its tensor types. */
static int is_mindspore(const struct tree *t) {
    if (!strcmp(t->framework, "mindspore")) return 1;
    if (!strcmp(t->framework, "pytorch")) return 0;
    for (size_t i = 0; i < t->nparams; i++) {
        const char *ty = tree_s(t, t->params[i].type);
        if (!ty) continue;
        if (!strncmp(ty, "mindspore", 9)) return 1;
        if (!strncmp(ty, "torch", 5)) return 0;
    }
    return 0;
}

static int is_layer(const struct segs *g) { return seg_is(g, 0, "Cell") || seg_is(g, 0, "Module"); }

/* Name, layer scope, stack scope and full scope of one entry. */
static int item_set(struct item *it, const struct tree *t, const char *name, const char *parent, int mindspore,
                    struct segs *g, struct segs *pg, struct pt_error *err) {
    char esc[512];
    it->name = name;
    if (segs_split(g, name) != 0) return pt_errorf(err, "out of memory");
    if (g->n < 4)
        return pt_errorf(err, "layer mapping: dump entry %s has fewer than four dot-separated fields",
                         pt_escape(name, strlen(name), esc, sizeof esc));
    char *api_name;
    int pgrad = seg_is(g, g->n - 1, "parameters_grad"), layer = !pgrad && is_layer(g);
    if (pgrad) {
        api_name = seg_dup(g, g->n - 3);
        it->type = seg_dup(g, g->n - 2);
        it->state = strdup("parameters_grad");
    } else {
        it->type = seg_dup(g, g->n - 3);
        api_name = layer ? seg_dup(g, g->n - 4) : seg_dup(g, g->n - 3);
        it->state = seg_dup(g, layer ? g->n - 2 : g->n - 1);
    }
    if (!api_name || !it->type || !it->state) { free(api_name); return pt_errorf(err, "out of memory"); }
    struct str s = {0};
    int rc = 0;
    /* the layer scope: the path without class, direction and call count */
    if (layer) {
        /* the entry's own path, its attribute name dropped */
        if (g->n - 4 > 0) rc = str_join(&s, g, 0, g->n - 4);
        else rc = str_add(&s, "", 0);
    } else if (pgrad) {
        rc = str_join(&s, g, 0, g->n - 3);
        if (!rc && g->n == 3) rc = str_add(&s, "", 0);
    } else if (parent && *parent) {
        /* the parent module's path (its class, direction and count dropped) */
        if (segs_split(pg, parent) != 0) rc = -1;
        else rc = pg->n > 3 ? str_join(&s, pg, 0, pg->n - 3) : str_add(&s, "", 0);
    } else rc = str_add(&s, "TopLayer", 8);
    if (rc) { free(api_name); free(s.b); return pt_errorf(err, "out of memory"); }
    if (parent && strchr(parent, '.')) {
        if (segs_split(pg, parent) != 0) { free(api_name); free(s.b); return pt_errorf(err, "out of memory"); }
        if (pg->n < 4) {
            free(api_name);
            free(s.b);
            return pt_errorf(err, "layer mapping: the construct.json parent %s of %s has fewer than four "
                                  "dot-separated fields", pt_escape(parent, strlen(parent), esc, sizeof esc), name);
        }
    }
    /* the framework function, for APIs (not Primitive/Jit records) */
    char frame[1024] = "";
    if (!layer && !seg_is(g, 0, "Primitive") && !seg_is(g, 0, "Jit")) {
        int st = tree_stack_of_id(t, name);
        if (st >= 0 && t->stacks[st].n) frame_scope(t, st, mindspore, frame, sizeof frame);
    }
    if ((frame[0] && (str_add(&s, ".", 1) || str_add(&s, frame, strlen(frame)))) || str_add(&s, ".", 1) ||
        str_add(&s, api_name, strlen(api_name))) {
        free(api_name);
        free(s.b);
        return pt_errorf(err, "out of memory");
    }
    free(api_name);
    it->full = s.b;
    return 0;
}

static void items_free(struct item *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(v[i].type);
        free(v[i].state);
        free(v[i].full);
    }
    free(v);
}

/* ---- postprocess passes (msProbe's postprocess_pass) ---- */

/* Backward entries carry no stack: they take the scope of their forward twin
 * ("backward" -> "forward" in the last two fields). */
static int backward_pass(struct item *v, size_t n, const struct util_smap *byname, struct segs *g) {
    struct str s = {0};
    for (size_t i = 0; i < n; i++) {
        if (segs_split(g, v[i].name) != 0) { free(s.b); return -1; }
        size_t k = g->n >= 2 ? g->n - 2 : 0;
        int hit = 0;
        for (size_t j = k; j < g->n; j++) hit |= seg_is(g, j, "backward");
        if (!hit) continue;
        s.n = 0;
        if (k && str_join(&s, g, 0, k) != 0) { free(s.b); return -1; }
        for (size_t j = k; j < g->n; j++) {
            if (j && str_add(&s, ".", 1) != 0) { free(s.b); return -1; }
            /* every "backward" inside the field becomes "forward" */
            const char *p = g->s[j], *e = p + g->len[j];
            while (p < e) {
                if ((size_t)(e - p) >= 8 && !strncmp(p, "backward", 8)) {
                    if (str_add(&s, "forward", 7) != 0) { free(s.b); return -1; }
                    p += 8;
                } else if (str_add(&s, p++, 1) != 0) { free(s.b); return -1; }
            }
        }
        if (!s.b) continue;
        int32_t *f = util_smap_slot((struct util_smap *)byname, s.b, 0);
        if (!f || *f < 0) continue;
        char *full = strdup(v[*f].full);
        if (!full) { free(s.b); return -1; }
        free(v[i].full);
        v[i].full = full;
    }
    free(s.b);
    return 0;
}

/* The number at the end of the field that follows "prefix." at the start of
 * scope: the last run of digits in it.  Returns 1 with *num set, 0 when the
 * scope does not start so or the field has no digits; *field_end is where
 * the field ends (when it was found at all, also without digits). */
static int next_item_number(const char *scope, const char *prefix, long long *num, const char **field_end) {
    size_t pl = strlen(prefix);
    *field_end = NULL;
    if (strncmp(scope, prefix, pl) || scope[pl] != '.') return 0;
    const char *f = scope + pl + 1, *p = f;
    /* at least one non-space character, then up to the next dot or the end */
    if (!*p || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') return 0;
    p++;
    while (*p && *p != '.') {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') return 0;
        p++;
    }
    *field_end = p;
    const char *d = NULL, *de = NULL;
    for (const char *q = f; q < p; q++) {
        if (*q >= '0' && *q <= '9') {
            const char *r = q;
            while (r < p && *r >= '0' && *r <= '9') r++;
            d = q;
            de = r;
            q = r - 1;
        }
    }
    if (!d) return 0;
    long long x = 0;
    for (const char *q = d; q < de; q++) x = x * 10 + (*q - '0');
    *num = x;
    return 1;
}

/* Pipeline-parallel MindSpore numbers a ParallelTransformer's layers
 * globally, PyTorch locally: the index after "<transformer scope>.layers."
 * is made relative to the smallest one seen. */
static int renumber_pass(struct item *v, size_t n) {
    struct util_smap seen = {0};
    char **prefix = NULL;
    double *minv = NULL;
    size_t np = 0;
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i].type, "ParallelTransformer")) continue;
        size_t l = strlen(v[i].full);
        char *p = malloc(l + 8);
        if (!p) goto out;
        snprintf(p, l + 8, "%s.layers", v[i].full);
        int32_t *s = util_smap_slot(&seen, p, 1);
        if (!s) { free(p); goto out; }
        if (*s >= 0) { free(p); continue; }
        *s = (int32_t)np;
        char **npv = realloc(prefix, (np + 1) * sizeof *npv);
        if (!npv) { free(p); goto out; }
        prefix = npv;
        double *nm = realloc(minv, (np + 1) * sizeof *nm);
        if (!nm) { free(p); goto out; }
        minv = nm;
        prefix[np] = p;
        minv[np] = INFINITY;
        np++;
    }
    for (size_t k = 0; k < np; k++)
        for (size_t i = 0; i < n; i++) {
            long long x;
            const char *fe;
            if (next_item_number(v[i].full, prefix[k], &x, &fe) && (double)x < minv[k]) minv[k] = (double)x;
        }
    for (size_t k = 0; k < np; k++)
        for (size_t i = 0; i < n; i++) {
            long long x;
            const char *fe;
            int has = next_item_number(v[i].full, prefix[k], &x, &fe);
            if (!fe) continue;   /* not under this prefix */
            char idx[48];
            if (has && isinf(minv[k])) continue;           /* cannot happen: x itself bounds the minimum */
            if (!has && !isinf(minv[k])) continue;         /* inf - min: left alone */
            /* msProbe computes inf - inf = nan here and writes it */
            if (!has) snprintf(idx, sizeof idx, "nan");
            else snprintf(idx, sizeof idx, "%lld", x - (long long)minv[k]);
            size_t pl = strlen(prefix[k]);
            struct str s = {0};
            if (str_add(&s, prefix[k], pl) || str_add(&s, ".", 1) || str_add(&s, idx, strlen(idx)) ||
                str_add(&s, fe, strlen(fe))) {
                free(s.b);
                goto out;
            }
            free(v[i].full);
            v[i].full = s.b;
        }
    rc = 0;
out:
    for (size_t k = 0; k < np; k++) free(prefix[k]);
    free(prefix);
    free(minv);
    util_smap_free(&seen);
    return rc;
}

/* ---- the trie of scopes ---- */

struct tnode2 { const char *type; char *seg; };
struct ivec { int32_t *v; size_t n, cap; };

struct trie {
    struct tnode2 *n;
    size_t nn, cap;
    struct util_smap child;   /* "<node>\x1f<segment>" -> node */
    struct util_smap slot;    /* "<node>\x1f<state>" -> list */
    struct ivec *lists;
    size_t nlists, caplists;
};

static int trie_init(struct trie *t) {
    memset(t, 0, sizeof *t);
    if (!(t->n = malloc(16 * sizeof *t->n))) return -1;
    t->cap = 16;
    t->n[0].seg = strdup("TopLayer");
    t->n[0].type = t->n[0].seg;
    t->nn = 1;
    return t->n[0].seg ? 0 : -1;
}

static void trie_free(struct trie *t) {
    for (size_t i = 0; i < t->nn; i++) free(t->n[i].seg);
    free(t->n);
    for (size_t i = 0; i < t->nlists; i++) free(t->lists[i].v);
    free(t->lists);
    util_smap_free(&t->child);
    util_smap_free(&t->slot);
}

static char *pair_key(int32_t node, const char *s, size_t len, char *buf, size_t size) {
    snprintf(buf, size, "%d\x1f%.*s", (int)node, (int)len, s);
    return buf;
}

/* Child seg of node; with create it is made when missing.  -1: none / no memory. */
static int32_t trie_child(struct trie *t, int32_t node, const char *seg, size_t len, int create) {
    char kb[4200];
    int32_t *c = util_smap_slot(&t->child, pair_key(node, seg, len, kb, sizeof kb), create);
    if (!c) return -1;
    if (*c >= 0 || !create) return *c;
    if (t->nn == t->cap) {
        struct tnode2 *nv = realloc(t->n, t->cap * 2 * sizeof *nv);
        if (!nv) return -1;
        t->n = nv;
        t->cap *= 2;
    }
    char *s = strndup(seg, len);
    if (!s) return -1;
    t->n[t->nn].seg = s;
    t->n[t->nn].type = s;
    *c = (int32_t)t->nn++;
    return *c;
}

static struct ivec *trie_list(struct trie *t, int32_t node, const char *state, int create) {
    char kb[4200];
    int32_t *l = util_smap_slot(&t->slot, pair_key(node, state, strlen(state), kb, sizeof kb), create);
    if (!l) return NULL;
    if (*l < 0) {
        if (!create) return NULL;
        if (UTIL_PUSH(t->lists, t->nlists, t->caplists) != 0) return NULL;
        memset(&t->lists[t->nlists], 0, sizeof t->lists[t->nlists]);
        *l = (int32_t)t->nlists++;
    }
    return &t->lists[*l];
}

/* Inserts every item under its scope (the first segment is the top layer). */
static int trie_insert(struct trie *t, struct item *v, size_t n, struct segs *g) {
    for (size_t i = 0; i < n; i++) {
        if (segs_split(g, v[i].full) != 0) return -1;
        int32_t node = 0;
        for (size_t k = 1; k < g->n; k++)
            if ((node = trie_child(t, node, g->s[k], g->len[k], 1)) < 0) return -1;
        struct ivec *l = trie_list(t, node, v[i].state, 1);
        if (!l) return -1;
        if (UTIL_PUSH(l->v, l->n, l->cap) != 0) return -1;
        l->v[l->n++] = (int32_t)i;
        t->n[node].type = v[i].type;
        v[i].node = node;
    }
    return 0;
}

/* ---- one side ---- */

struct side {
    const struct tree *t;
    struct item *v;
    size_t n;
    struct trie trie;
};

static void side_free(struct side *s) {
    items_free(s->v, s->n);
    trie_free(&s->trie);
}

static int side_build(struct side *s, const struct tree *t, struct pt_error *err) {
    memset(s, 0, sizeof *s);
    s->t = t;
    if (trie_init(&s->trie) != 0) return pt_errorf(err, "out of memory");
    /* msProbe gives no entry a scope when stack.json or construct.json is
     * empty or missing: the map is then empty (every id is looked up as is) */
    if (!t->nstacks || !t->ncons || !t->nrecs) return 0;
    struct util_smap parent = {0}, byname = {0};
    struct segs g = {0}, pg = {0};
    int rc = -1;
    for (size_t i = 0; i < t->ncons; i++) {
        int32_t *p = util_smap_slot(&parent, tree_s(t, t->cons[i].child), 1);
        if (!p) goto oom;
        *p = (int32_t)i;
    }
    if (!(s->v = calloc(t->nrecs, sizeof *s->v))) goto oom;
    int ms = is_mindspore(t);
    for (size_t r = 0; r < t->nrecs; r++) {
        const char *name = tree_s(t, t->recs[r].name);
        int32_t *p = util_smap_slot(&parent, name, 0);
        const char *par = p && *p >= 0 ? tree_s(t, t->cons[*p].parent) : NULL;
        s->n = r + 1;
        if (item_set(&s->v[r], t, name, par, ms, &g, &pg, err) != 0) goto out;
        int32_t *b = util_smap_slot(&byname, name, 1);
        if (!b) goto oom;
        *b = (int32_t)r;
    }
    if (backward_pass(s->v, s->n, &byname, &g) != 0 || renumber_pass(s->v, s->n) != 0 ||
        trie_insert(&s->trie, s->v, s->n, &g) != 0)
        goto oom;
    rc = 0;
    goto out;
oom:
    pt_errorf(err, "out of memory");
out:
    util_smap_free(&parent);
    util_smap_free(&byname);
    segs_free(&g);
    segs_free(&pg);
    return rc;
}

/* ---- rules ---- */

struct prule { const char *from, *to; int nseg; size_t ord; };
struct rgroup { struct prule *v; size_t n; };

struct rules {
    struct util_smap groups;   /* "<class>\x1f<first segment>" -> group */
    struct rgroup *g;
    size_t ng;
    struct util_smap classes;  /* class -> first rule index */
};

static void rules_free(struct rules *r) {
    for (size_t i = 0; i < r->ng; i++) free(r->g[i].v);
    free(r->g);
    util_smap_free(&r->groups);
    util_smap_free(&r->classes);
}

static int nseg_of(const char *s) {
    int n = 1;
    for (; *s; s++) n += *s == '.';
    return n;
}

static int cmp_prule(const void *a, const void *b) {
    const struct prule *x = a, *y = b;
    if (x->nseg != y->nseg) return y->nseg - x->nseg;        /* longer paths first */
    return x->ord < y->ord ? -1 : x->ord > y->ord;            /* then as written */
}

static const char *rule_class(const struct layermap_rule *r, int has_cell) {
    if (!strcmp(r->cls, "Cell")) return "TopLayer";
    if (has_cell && !strcmp(r->cls, "TopLayer")) return NULL;   /* msProbe: a "Cell" block replaces it */
    return r->cls;
}

static int rules_prepare(struct rules *R, const struct layermap_rule *rules, size_t n) {
    memset(R, 0, sizeof *R);
    int has_cell = 0;
    for (size_t i = 0; i < n; i++) has_cell |= !strcmp(rules[i].cls, "Cell");
    char kb[4200];
    for (size_t i = 0; i < n; i++) {
        const char *cls = rule_class(&rules[i], has_cell);
        if (!cls) continue;
        int32_t *c = util_smap_slot(&R->classes, cls, 1);
        if (!c) return -1;
        if (*c < 0) *c = (int32_t)i;
        const char *dot = strchr(rules[i].from, '.');
        size_t pl = dot ? (size_t)(dot - rules[i].from) : strlen(rules[i].from);
        snprintf(kb, sizeof kb, "%s\x1f%.*s", cls, (int)pl, rules[i].from);
        int32_t *gi = util_smap_slot(&R->groups, kb, 1);
        if (!gi) return -1;
        if (*gi < 0) {
            struct rgroup *ng = realloc(R->g, (R->ng + 1) * sizeof *ng);
            if (!ng) return -1;
            R->g = ng;
            memset(&R->g[R->ng], 0, sizeof R->g[R->ng]);
            *gi = (int32_t)R->ng++;
        }
        struct rgroup *G = &R->g[*gi];
        size_t k;
        for (k = 0; k < G->n; k++)
            if (!strcmp(G->v[k].from, rules[i].from)) break;
        if (k < G->n) {   /* the same path again: the later target wins, the place stays */
            G->v[k].to = rules[i].to;
            continue;
        }
        struct prule *nv = realloc(G->v, (G->n + 1) * sizeof *nv);
        if (!nv) return -1;
        G->v = nv;
        G->v[G->n++] = (struct prule){rules[i].from, rules[i].to, nseg_of(rules[i].from), i};
    }
    for (size_t i = 0; i < R->ng; i++) qsort(R->g[i].v, R->g[i].n, sizeof *R->g[i].v, cmp_prule);
    return 0;
}

/* ---- the map ---- */

struct layermap {
    struct util_smap idx;     /* problem entry -> index into bench */
    char **bench;         /* benchmark entry, NULL for none */
    size_t n, found;
    size_t *unused;
    size_t nunused;
};

/* msProbe's convert_scope: the renamed scope of item it and its position
 * among the items of its state at its own scope. */
static int convert(const struct side *S, const struct item *it, const struct rules *R, struct segs *g,
                   struct str *out, size_t *index) {
    out->n = 0;
    if (str_add(out, "TopLayer", 8) != 0 || segs_split(g, it->full) != 0) return -1;
    int32_t cur = 0;
    size_t idx = 0;
    char kb[4200];
    while (idx + 1 < g->n) {
        const char *type = S->trie.n[cur].type;
        snprintf(kb, sizeof kb, "%s\x1f%.*s", type, (int)g->len[idx + 1], g->s[idx + 1]);
        int32_t *gi = util_smap_slot((struct util_smap *)&R->groups, kb, 0);
        size_t step = 1;
        int done = 0;
        if (gi && *gi >= 0) {
            const struct rgroup *G = &R->g[*gi];
            for (size_t k = 0; k < G->n && !done; k++) {
                size_t lv = (size_t)G->v[k].nseg;
                if (idx + 1 + lv > g->n) continue;
                struct str j = {0};
                if (str_join(&j, g, idx + 1, idx + 1 + lv) != 0) { free(j.b); return -1; }
                if (!strcmp(j.b, G->v[k].from)) {
                    if (str_add(out, ".", 1) || str_add(out, G->v[k].to, strlen(G->v[k].to))) { free(j.b); return -1; }
                    step = lv;
                    done = 1;
                }
                free(j.b);
            }
        }
        if (!done && (str_add(out, ".", 1) || str_add(out, g->s[idx + 1], g->len[idx + 1]))) return -1;
        for (size_t k = 0; k < step; k++) {
            cur = trie_child((struct trie *)&S->trie, cur, g->s[idx + 1], g->len[idx + 1], 0);
            idx++;
            if (cur < 0) return -1;   /* cannot happen: the walk follows the item's own path */
        }
    }
    const struct ivec *l = trie_list((struct trie *)&S->trie, cur, it->state, 0);
    *index = SIZE_MAX;
    for (size_t k = 0; l && k < l->n; k++)
        if (!strcmp(S->v[l->v[k]].name, it->name)) *index = k;
    return 0;
}

/* msProbe's query_data: the index-th item of state at scope in the trie. */
static const struct item *query(const struct side *S, const char *scope, const char *state, size_t index,
                                struct segs *g) {
    if (segs_split(g, scope) != 0) return NULL;
    int32_t cur = 0;
    for (size_t k = 1; k < g->n && cur >= 0; k++) cur = trie_child((struct trie *)&S->trie, cur, g->s[k], g->len[k], 0);
    if (cur < 0 || index == SIZE_MAX) return NULL;
    const struct ivec *l = trie_list((struct trie *)&S->trie, cur, state, 0);
    if (!l || index >= l->n) return NULL;
    return &S->v[l->v[index]];
}

void layermap_free(struct layermap *m) {
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) free(m->bench[i]);
    free(m->bench);
    free(m->unused);
    util_smap_free(&m->idx);
    free(m);
}

int layermap_build(const struct tree *npu, const struct tree *bench, const struct layermap_rule *rules, size_t nrules,
                   struct layermap **out, struct pt_error *err) {
    *out = NULL;
    struct layermap *m = calloc(1, sizeof *m);
    if (!m) return pt_errorf(err, "out of memory");
    struct side A, B;
    struct rules R;
    struct segs g = {0};
    struct str sc = {0};
    int rc = -1, built_a = 0, built_b = 0, have_r = 0;
    if (side_build(&A, npu, err) != 0) { side_free(&A); goto fail; }
    built_a = 1;
    if (side_build(&B, bench, err) != 0) { side_free(&B); goto fail; }
    built_b = 1;
    have_r = 1;
    if (rules_prepare(&R, rules, nrules) != 0) goto oom;
    if (A.n && !(m->bench = calloc(A.n, sizeof *m->bench))) goto oom;
    for (size_t i = 0; i < A.n; i++) {
        size_t index;
        if (convert(&A, &A.v[i], &R, &g, &sc, &index) != 0) goto oom;
        const struct item *b = query(&B, sc.b, A.v[i].state, index, &g);
        int32_t *s = util_smap_slot(&m->idx, A.v[i].name, 1);
        if (!s) goto oom;
        if (*s < 0) {
            *s = (int32_t)m->n++;
        } else {
            free(m->bench[*s]);
            m->bench[*s] = NULL;
        }
        if (b && !(m->bench[*s] = strdup(b->name))) goto oom;
    }
    for (size_t i = 0; i < m->n; i++) m->found += m->bench[i] != NULL;
    /* classes no problem scope has: their renames never apply */
    struct util_smap types = {0};
    for (size_t i = 0; i < A.trie.nn; i++)
        if (!util_smap_slot(&types, A.trie.n[i].type, 1)) { util_smap_free(&types); goto oom; }
    int has_cell = 0;
    for (size_t i = 0; i < nrules; i++) has_cell |= !strcmp(rules[i].cls, "Cell");
    for (size_t i = 0; i < nrules; i++) {
        const char *cls = rule_class(&rules[i], has_cell);
        if (!cls || util_smap_slot(&types, cls, 0)) continue;
        size_t *nu = realloc(m->unused, (m->nunused + 1) * sizeof *nu);
        if (!nu) { util_smap_free(&types); goto oom; }
        m->unused = nu;
        m->unused[m->nunused++] = i;
    }
    util_smap_free(&types);
    rc = 0;
    *out = m;
    m = NULL;
    goto done;
oom:
    pt_errorf(err, "out of memory");
fail:
done:
    if (have_r) rules_free(&R);
    if (built_a) side_free(&A);
    if (built_b) side_free(&B);
    segs_free(&g);
    free(sc.b);
    layermap_free(m);
    return rc;
}

const char *layermap_get(const struct layermap *m, const char *npu_id) {
    int32_t *s = util_smap_slot((struct util_smap *)&m->idx, npu_id, 0);
    if (!s || *s < 0) return NULL;
    return m->bench[*s] ? m->bench[*s] : LAYERMAP_NONE;
}

const char *layermap_apply(void *ctx, const char *npu_id) { return layermap_get(ctx, npu_id); }

size_t layermap_count(const struct layermap *m) { return m->n; }
size_t layermap_found(const struct layermap *m) { return m->found; }

size_t layermap_unused(const struct layermap *m, const size_t **rule_index) {
    *rule_index = m->unused;
    return m->nunused;
}
