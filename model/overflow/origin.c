/* origin: msProbe's origin rules across ranks (man/probetop.1, "Origin
 * across ranks").  The pairing here is not model/commlinks': commlinks
 * pairs ops the way the graph compare keys them ("{api}rank{peer}_{n}"),
 * while the overflow check pairs, for each communication op of a rank, the
 * first not yet paired op of the target API on each peer rank whose
 * direction is the opposite one and whose own peers name this rank. */
#include "model/overflow/origin.h"
#include "model/util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/compare.h"

enum { T_SRC = 0, T_DST = 1, T_LINK = 2 };
enum { E_LINK = 0, E_DST = 1 };   /* E_DST: a is the source, b the destination */

#define NO_RANK INT32_MIN          /* a peer value that names no rank */

struct cnode {
    int rk;                        /* rank index */
    int32_t rec;
    int32_t layer, sub_layer;
    uint8_t type, bad, anomaly, pruned, directed;
    const char *api; size_t api_len;
    const char *cnt; size_t cnt_len;
    int32_t *conn; size_t nconn;   /* peer ranks named by the op (ascending, unique) */
    int own_conn;                  /* conn is the op's own, else its group's (gsets) */
    size_t c0, nc;                 /* its candidate compute ops in cands[] */
};

struct cand { int rk; int32_t rec, sub_layer; };
struct gset { int32_t *v; size_t n; };   /* a group's ranks, ascending, unique */
struct edge { int a, b; uint8_t kind; };

/* Pairing's index: one key per (API, direction), holding segments
 * [s0, s1); one segment per rank of that key, holding byk[s, e). */
struct pkey { const char *api; size_t alen; uint8_t type; size_t s0, s1; };
struct pseg { int rk; size_t s, e; size_t cur; int owner; };   /* cur: next op not yet paired by rank owner-1 */

struct rankinfo {
    size_t n0, n1;                 /* comm nodes [n0, n1) */
    size_t a0, na;                 /* candidates after the last comm op */
    int32_t first_comm;            /* record of the first comm op, -1 none */
};

struct st {
    const struct origin_rank *R;
    size_t nr;
    enum origin_rules rules;
    struct cnode *nodes; size_t nn, capn;
    struct cand *cands; size_t nc, capc;
    struct edge *edges; size_t ne, cape;
    struct rankinfo *ri;
    size_t *byk;                   /* comm nodes by (api, type), then (rank, position) */
    int32_t *ktab; size_t kcap;    /* (api, type) -> keys[], open addressing */
    struct util_smap groups;       /* group text (the trees') -> gsets[] */
    struct gset *gsets; size_t ngsets, capg;
    struct pkey *keys; size_t nkeys;
    struct pseg *segs; size_t nsegs;
    size_t *adj0, *adj;            /* the chain's edges per node (build_chain) */
    int oom;
};

/* ---- names and params ---- */

static const char *const comm_words[] = {"send", "recv", "broadcast", "reduce", "gather", "scatter",
                                         "all_to_all", NULL};

/* As origin_is_comm; the divergence rules (msProbe's compare -da) also
 * take MindSpore's communication APIs, and test the prefixes without the
 * dot. */
static int is_comm(const char *name, enum origin_rules rules) {
    if (!name) return 0;
    if (rules == ORIGIN_DIVERGENCE) {
        if (strncmp(name, "Distributed", 11) && strncmp(name, "MintDistributed", 15) &&
            strncmp(name, "communication.comm_func", 23))
            return 0;
    } else if (strncmp(name, "Distributed.", 12) != 0) return 0;
    int dots = 0;
    for (const char *p = name; *p; p++) dots += *p == '.';
    if (dots < 3) return 0;   /* Distributed.<api>.<n>.<direction> */
    for (const char *const *w = comm_words; *w; w++)
        if (strstr(name, *w)) return 1;
    return 0;
}

int origin_is_comm(const char *name) { return is_comm(name, ORIGIN_OVERFLOW); }

static int is_ignored(const char *name, enum origin_rules rules) {
    return strstr(name, "Torch.empty") || strstr(name, "Torch.fill") ||
           (rules == ORIGIN_DIVERGENCE && strstr(name, "Tensor.__setitem__"));
}

static const char *rec_name(const struct tree *t, size_t r) {
    const char *s = tree_s(t, t->recs[r].name);
    return s ? s : "";
}

/* The part of a param name after "<record>.input." or "<record>.output."
 * (*out set to 1 for outputs), NULL when it is neither. */
static const char *io_suffix(const struct tree *t, const char *id, size_t il, const struct tparam *p, int *out) {
    const char *n = tree_s(t, p->name);
    if (!n || strncmp(n, id, il) != 0) return NULL;
    n += il;
    if (!strncmp(n, ".input.", 7)) { *out = 0; return n + 7; }
    if (!strncmp(n, ".output.", 8)) { *out = 1; return n + 8; }
    return NULL;
}

static int text_nonfinite(const char *s) {
    char b[8];
    size_t n = strlen(s);
    if (n && s[n - 1] == '\t') n--;
    if (n == 0 || n > 4) return 0;
    for (size_t i = 0; i < n; i++) b[i] = (char)tolower((unsigned char)s[i]);
    b[n] = '\0';
    return !strcmp(b, "nan") || !strcmp(b, "inf") || !strcmp(b, "-inf");
}

static int tval_nonfinite(const struct tree *t, const struct tval *v) {
    if (v->kind == TV_FLOAT) return !isfinite(v->d);
    if (v->kind == TV_STR && !v->is_repr) {
        const char *s = tree_s(t, v->s);
        return s && text_nonfinite(s);
    }
    return 0;
}

/* A tensor-like item: its Max/Min came from the dump (a dtype of its own,
 * not the type name and not a Python class standing for a plain value). */
static int has_stats(const struct tree *t, const struct tparam *p) {
    if (p->is_null || p->dtype == TREE_NONE) return 0;
    const char *d = tree_s(t, p->dtype), *ty = tree_s(t, p->type);
    if (!d || !strncmp(d, "<class '", 8)) return 0;
    return !(ty && !strcmp(d, ty));
}

void origin_flags_nonfinite(const struct tree *t, uint8_t *flags) {
    for (size_t r = 0; r < t->nrecs; r++) {
        const char *id = rec_name(t, r);
        size_t il = strlen(id);
        uint8_t f = 0;
        const struct tparam *p = t->params + t->recs[r].p0;
        for (uint32_t i = 0; i < t->recs[r].np; i++) {
            int out;
            const char *suf = io_suffix(t, id, il, &p[i], &out);
            if (!suf || strchr(suf, '.') || !has_stats(t, &p[i])) continue;   /* top level only */
            if (tval_nonfinite(t, &p[i].stat[0]) || tval_nonfinite(t, &p[i].stat[1]))
                f |= out ? ORIGIN_OUT : ORIGIN_IN;
        }
        flags[r] = f;
    }
}

void origin_flags_divergence(const struct tree *npu, const struct crow *rows, size_t nrows, int mode, int level,
                             uint8_t *flags) {
    memset(flags, 0, npu->nrecs);
    int32_t cur = -1;
    int outs = 0, fa = 0;
    for (size_t i = 0; i < nrows; i++) {
        const struct crow *w = &rows[i];
        if (w->rec < 0 || (size_t)w->rec >= npu->nrecs) continue;
        if (w->rec != cur) {
            cur = w->rec;
            outs = 0;
            const char *n = rec_name(npu, (size_t)cur);
            const char *a = strchr(n, '.');
            fa = a && !strncmp(a + 1, "npu_fusion_attention.", 21);
        }
        int idx = w->output ? outs++ : -1;
        if (w->output && fa && (idx == 4 || idx == 5)) continue;
        /* outputs: the verdict, at the level of the run's first divergence
         * (probetop-rules(7), FIRST DIVERGENCE), so the search sees what the
         * headline sees, never a warning the headline passed over; inputs:
         * the tensor differs, whatever the verdict (msProbe judges outputs) */
        if (w->output ? w->level >= level : cmp_row_differs(w, (enum cmp_mode)mode))
            flags[cur] |= w->output ? ORIGIN_OUT : ORIGIN_IN;
    }
}

/* The input param "<record>.input.<key>", NULL none. */
static const struct tparam *kwarg(const struct tree *t, size_t r, const char *key) {
    const char *id = rec_name(t, r);
    size_t il = strlen(id);
    const struct tparam *p = t->params + t->recs[r].p0;
    for (uint32_t i = 0; i < t->recs[r].np; i++) {
        int out;
        const char *suf = io_suffix(t, id, il, &p[i], &out);
        if (suf && !out && !strcmp(suf, key)) return &p[i];
    }
    return NULL;
}

static int32_t text_int(const char *s) {
    if (!s) return NO_RANK;
    char *e;
    long v = strtol(s, &e, 10);
    return e != s && !*e && v >= INT32_MIN + 1 && v <= INT32_MAX ? (int32_t)v : NO_RANK;
}

static int32_t param_value(const struct tree *t, const struct tparam *p) {
    return p->value == TREE_NONE ? NO_RANK : text_int(tree_s(t, p->value));
}

static int is_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* Is p a top-level positional int argument of record id? */
static int pos_int_arg(const struct tree *t, const char *id, size_t il, const struct tparam *p) {
    int out;
    const char *suf = io_suffix(t, id, il, p, &out);
    const char *ty = tree_s(t, p->type);
    return suf && !out && is_digits(suf) && ty && !strcmp(ty, "int");
}

/* The value of the first top-level positional int argument; found = 0 none. */
static int32_t first_int_arg(const struct tree *t, size_t r, int *found) {
    const char *id = rec_name(t, r);
    size_t il = strlen(id);
    const struct tparam *p = t->params + t->recs[r].p0;
    for (uint32_t i = 0; i < t->recs[r].np; i++) {
        if (pos_int_arg(t, id, il, &p[i])) {
            *found = 1;
            return param_value(t, &p[i]);
        }
    }
    *found = 0;
    return NO_RANK;
}

static const char *const directed[][2] = {
    {"send", "d"}, {"recv", "s"}, {"isend", "d"}, {"irecv", "s"}, {"broadcast", "s"},
    {"scatter", "s"}, {"gather", "d"}, {"send_object_list", "d"}, {"recv_object_list", "s"},
};

static int directed_kind(const char *api, size_t len) {   /* T_SRC / T_DST, -1 undirected */
    for (size_t i = 0; i < sizeof directed / sizeof directed[0]; i++)
        if (strlen(directed[i][0]) == len && !strncmp(directed[i][0], api, len))
            return directed[i][1][0] == 's' ? T_SRC : T_DST;
    return -1;
}

/* The target API of a p2p op (send <-> recv ...), else the API itself. */
static void target_api(const struct cnode *c, const char **api, size_t *len) {
    static const char *const pairs[][2] = {{"send", "recv"}, {"recv", "send"}, {"isend", "irecv"},
                                           {"irecv", "isend"}, {"send_object_list", "recv_object_list"},
                                           {"recv_object_list", "send_object_list"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (strlen(pairs[i][0]) == c->api_len && !strncmp(pairs[i][0], c->api, c->api_len)) {
            *api = pairs[i][1];
            *len = strlen(pairs[i][1]);
            return;
        }
    *api = c->api;
    *len = c->api_len;
}

/* A present and non-null kwarg among keys (in order): its value in *v. */
static int kwarg_value(const struct tree *t, size_t r, const char *k1, const char *k2, int *present, int32_t *v) {
    const struct tparam *p = kwarg(t, r, k1);
    if (!p || p->is_null) {
        const struct tparam *q = kwarg(t, r, k2);
        if (p && !q) { *present = 1; return 0; }   /* k1 present but None */
        p = q;
    }
    *present = p != NULL;
    if (!p || p->is_null) return 0;
    *v = param_value(t, p);
    return 1;
}

/* Direction of the op on its rank, as the overflow check resolves it. */
static uint8_t resolve_type(const struct tree *t, size_t r, const struct cnode *c) {
    int present;
    int32_t v;
    if (kwarg_value(t, r, "src", "src_group", &present, &v)) return v == t->rank ? T_SRC : T_DST;
    if (kwarg_value(t, r, "dst", "dst_group", &present, &v)) return v == t->rank ? T_DST : T_SRC;
    int k = directed_kind(c->api, c->api_len), found;
    if (k >= 0) {
        v = first_int_arg(t, r, &found);
        if (found) return v == t->rank ? (uint8_t)k : (uint8_t)(k == T_SRC ? T_DST : T_SRC);
    }
    return T_LINK;
}

static int push_rank(int32_t **v, size_t *n, size_t *cap, int32_t x) {
    if (UTIL_PUSH(*v, *n, *cap) != 0) return -1;
    (*v)[(*n)++] = x;
    return 0;
}

/* Sorts v[0..n) and drops repeats; the count left. */
static size_t sort_unique(int32_t *v, size_t n) {
    /* a group's ranks usually come ascending: then no sort */
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++) sorted = v[i - 1] <= v[i];
    if (!sorted) qsort(v, n, sizeof *v, util_cmp_i32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || v[u - 1] != v[i]) v[u++] = v[i];
    return u;
}

/* The ranks of a group's text "[0, 1, 2]", read once per distinct text: a
 * group of every rank, named by an op on every rank, is read once, not once
 * a rank, and its ranks are kept once.  Its index in s->gsets, -1 out of
 * memory. */
static int32_t group_set(struct st *s, const char *gt) {
    int32_t *slot = util_smap_slot(&s->groups, gt, 1);
    if (!slot) return -1;
    if (*slot >= 0) return *slot;
    int32_t *v = NULL;
    size_t n = 0, cap = 0;
    for (const char *p = gt + 1; *p && *p != ']';) {
        char *e;
        long k = strtol(p, &e, 10);
        if (e == p) { p++; continue; }
        if (push_rank(&v, &n, &cap, (int32_t)k) != 0) { free(v); return -1; }
        p = e;
    }
    if (UTIL_PUSH(s->gsets, s->ngsets, s->capg) != 0) { free(v); return -1; }
    s->gsets[s->ngsets] = (struct gset){v, sort_unique(v, n)};
    *slot = (int32_t)s->ngsets;
    return (int32_t)s->ngsets++;
}

/* The peer ranks an op names: dst (or dst_group), src (or src_group), else
 * every positional int argument; plus the ranks of its group. */
static int resolve_conn(struct st *s, const struct tree *t, size_t r, struct cnode *c) {
    int32_t *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    /* the first of the two keys present decides, even when it is None */
    static const char *const keys[2][2] = {{"dst", "dst_group"}, {"src", "src_group"}};
    for (int k = 0; k < 2; k++) {
        const struct tparam *p = kwarg(t, r, keys[k][0]);
        if (!p) p = kwarg(t, r, keys[k][1]);
        if (p && !p->is_null) rc |= push_rank(&v, &n, &cap, param_value(t, p));
    }
    if (n == 0) {
        const char *id = rec_name(t, r);
        size_t il = strlen(id);
        const struct tparam *p = t->params + t->recs[r].p0;
        for (uint32_t i = 0; i < t->recs[r].np; i++)
            if (pos_int_arg(t, id, il, &p[i])) rc |= push_rank(&v, &n, &cap, param_value(t, &p[i]));
    }
    const struct tparam *g = kwarg(t, r, "group");
    const char *gt = g && !g->is_null && g->md5 != TREE_NONE ? tree_s(t, g->md5) : NULL;
    if (rc) { free(v); return -1; }
    if (gt && *gt == '[') {   /* group_ranks as Python text: "[0, 1, 2]" */
        int32_t gi = group_set(s, gt);
        if (gi < 0) { free(v); return -1; }
        const struct gset *G = &s->gsets[gi];
        size_t in = 0;
        for (size_t i = 0; i < n; i++)
            in += G->n && bsearch(&v[i], G->v, G->n, sizeof *v, util_cmp_i32) != NULL;
        if (in == n) {   /* the group's own ranks: shared */
            free(v);
            c->conn = G->v;
            c->nconn = G->n;
            return 0;
        }
        for (size_t i = 0; i < G->n && rc == 0; i++) rc |= push_rank(&v, &n, &cap, G->v[i]);
        if (rc) { free(v); return -1; }
    }
    c->conn = v;
    c->nconn = sort_unique(v, n);
    c->own_conn = 1;
    return 0;
}

static int conn_has(const struct cnode *c, int32_t rank) {
    return c->nconn && bsearch(&rank, c->conn, c->nconn, sizeof rank, util_cmp_i32) != NULL;
}

/* ---- building ---- */

static int add_cand(struct st *s, int rk, int32_t rec, int32_t sub) {
    if (UTIL_PUSH(s->cands, s->nc, s->capc) != 0) return -1;
    s->cands[s->nc++] = (struct cand){rk, rec, sub};
    return 0;
}

static int add_edge(struct st *s, int a, int b, int kind) {
    if (UTIL_PUSH(s->edges, s->ne, s->cape) != 0) return -1;
    s->edges[s->ne++] = (struct edge){a, b, (uint8_t)kind};
    return 0;
}

/* Born (probetop-rules(7), ORIGIN ACROSS RANKS): clean inputs, anomalous
 * outputs -- one definition for NaN/Inf and for divergence; a record whose
 * inputs already diverge passes the divergence on, it does not make it. */
static int candidate(const struct st *s, const char *name, uint8_t f) {
    if (is_ignored(name, s->rules)) return 0;
    return !(f & ORIGIN_IN) && (f & ORIGIN_OUT);
}

/* One rank's communication ops (from its first one on) with the candidate
 * compute ops before each, and the candidates after the last. */
static int build_rank(struct st *s, int rk) {
    const struct tree *t = s->R[rk].t;
    const uint8_t *fl = s->R[rk].flags;
    struct rankinfo *ri = &s->ri[rk];
    ri->n0 = ri->n1 = s->nn;
    if (ri->first_comm < 0) return 0;
    int32_t sub = 0;
    size_t c0 = s->nc;
    for (size_t r = (size_t)ri->first_comm; r < t->nrecs; r++) {
        const char *name = rec_name(t, r);
        if (is_comm(name, s->rules)) {
            if (UTIL_PUSH(s->nodes, s->nn, s->capn) != 0) return -1;
            struct cnode *c = &s->nodes[s->nn];
            memset(c, 0, sizeof *c);
            c->rk = rk;
            c->rec = (int32_t)r;
            c->layer = (int32_t)(s->nn - ri->n0);
            c->sub_layer = sub;
            c->api = strchr(name, '.') + 1;   /* <prefix>.<api>.<n>.<direction> */
            const char *d = strchr(c->api, '.');
            c->api_len = (size_t)(d - c->api);
            c->cnt = d + 1;
            d = strchr(c->cnt, '.');
            c->cnt_len = (size_t)(d - c->cnt);
            c->bad = fl[r];
            c->anomaly = candidate(s, name, fl[r]);
            c->directed = directed_kind(c->api, c->api_len) >= 0;
            c->type = resolve_type(t, r, c);
            c->c0 = c0;
            c->nc = s->nc - c0;
            s->nn++;
            if (resolve_conn(s, t, r, c) != 0) return -1;
            c0 = s->nc;
            sub = 0;
        } else if (!is_ignored(name, s->rules)) {
            if (candidate(s, name, fl[r]) && add_cand(s, rk, (int32_t)r, sub) != 0) return -1;
            sub++;
        }
    }
    ri->n1 = s->nn;
    ri->a0 = c0;
    ri->na = s->nc - c0;
    return 0;
}

/* The communication ops indexed for pairing: by (API, direction), then by
 * rank, each rank's ops in dump order -- built once, so that pairing an op
 * looks up only the ops it can pair with instead of comparing names over
 * every op of every peer rank.  (msProbe's overflow check keys the ops by
 * API and call number, so that a backward op hides the forward op with the
 * same number, which then pairs with nothing; its compare -da scans them
 * all, as here.) */
static int key_is(const struct pkey *p, const char *api, size_t alen, uint8_t type) {
    return p->alen == alen && p->type == type && !strncmp(p->api, api, alen);
}

/* The slot of (api, type) in the key table: its key, or the empty slot
 * where it goes. */
static int32_t *key_slot(const struct st *s, const char *api, size_t alen, uint8_t type) {
    size_t i = util_hash(api, alen, type) & (s->kcap - 1);
    while (s->ktab[i] >= 0 && !key_is(&s->keys[s->ktab[i]], api, alen, type)) i = (i + 1) & (s->kcap - 1);
    return &s->ktab[i];
}

/* Keys by hashing, the ops of each key by a counting sort: the nodes are in
 * (rank, position) order already, so each key's run comes out in it too. */
static int build_index(struct st *s) {
    int rc = -1;
    size_t capk = 0, caps = 0;
    for (s->kcap = 16; s->kcap < 2 * s->nn; s->kcap *= 2) {}
    s->ktab = malloc(s->kcap * sizeof *s->ktab);
    int32_t *kid = malloc((s->nn ? s->nn : 1) * sizeof *kid);
    size_t *off = NULL;
    s->byk = malloc((s->nn ? s->nn : 1) * sizeof *s->byk);
    if (!s->ktab || !kid || !s->byk) goto out;
    for (size_t i = 0; i < s->kcap; i++) s->ktab[i] = -1;
    for (size_t i = 0; i < s->nn; i++) {
        const struct cnode *c = &s->nodes[i];
        int32_t *slot = key_slot(s, c->api, c->api_len, c->type);
        if (*slot < 0) {
            if (UTIL_PUSH(s->keys, s->nkeys, capk) != 0) goto out;
            s->keys[s->nkeys] = (struct pkey){c->api, c->api_len, c->type, 0, 0};
            *slot = (int32_t)s->nkeys++;
        }
        kid[i] = *slot;
    }
    if (!(off = calloc(s->nkeys + 1, sizeof *off))) goto out;
    for (size_t i = 0; i < s->nn; i++) off[kid[i] + 1]++;
    for (size_t k = 0; k < s->nkeys; k++) off[k + 1] += off[k];
    for (size_t i = 0; i < s->nn; i++) s->byk[off[kid[i]]++] = i;   /* off[k]: now the end of key k */
    size_t b = 0;
    for (size_t k = 0; k < s->nkeys; k++) {
        s->keys[k].s0 = s->nsegs;
        for (size_t i = b; i < off[k]; i++) {
            int rk = s->nodes[s->byk[i]].rk;
            if (i == b || rk != s->segs[s->nsegs - 1].rk) {
                if (UTIL_PUSH(s->segs, s->nsegs, caps) != 0) goto out;
                s->segs[s->nsegs++] = (struct pseg){rk, i, i, i, 0};
            }
            s->segs[s->nsegs - 1].e = i + 1;
        }
        s->keys[k].s1 = s->nsegs;
        b = off[k];
    }
    rc = 0;
out:
    free(kid);
    free(off);
    return rc;
}

/* The key of (api, type), NULL when no op has it. */
static const struct pkey *find_key(const struct st *s, const char *api, size_t alen, uint8_t type) {
    int32_t k = *key_slot(s, api, alen, type);
    return k < 0 ? NULL : &s->keys[k];
}

/* The segment of rank index rk in key p, NULL none. */
static struct pseg *find_seg(struct st *s, const struct pkey *p, int rk) {
    size_t lo = p->s0, hi = p->s1;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s->segs[m].rk < rk) lo = m + 1;
        else hi = m;
    }
    return lo < p->s1 && s->segs[lo].rk == rk ? &s->segs[lo] : NULL;
}

static int rank_index(const struct st *s, int32_t rank) {
    size_t lo = 0, hi = s->nr;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s->R[m].t->rank < rank) lo = m + 1;
        else hi = m;
    }
    return lo < s->nr && s->R[lo].t->rank == rank ? (int)lo : -1;
}

/* Pairs cur (on rank index rk) with the first op of its peer rank's
 * segment g that it may pair with and that no earlier op of rank rk took.
 * Such takes go in the segment's order, so a cursor per segment (reset for
 * each rank that pairs) stands for "not yet paired"; an op that finds none
 * leaves none for the later ops of rank rk either. */
static int pair_in(struct st *s, int rk, size_t cur, struct pseg *g) {
    if (g->owner != rk + 1) {
        g->owner = rk + 1;
        g->cur = g->s;
    }
    int32_t rank = s->R[rk].t->rank;
    for (size_t k = g->cur; k < g->e; k++) {
        size_t si = s->byk[k];
        const struct cnode *o = &s->nodes[si];
        if (!((o->nconn == 0 && !o->directed) || conn_has(o, rank))) continue;
        g->cur = k + 1;
        if (o->type == T_DST) return add_edge(s, (int)cur, (int)si, E_DST);
        if (o->type == T_SRC) return add_edge(s, (int)si, (int)cur, E_DST);
        return add_edge(s, (int)cur, (int)si, E_LINK);
    }
    g->cur = g->e;
    return 0;
}

/* Pairs cur (on rank index rk, every rank <= rk already searched) with its
 * first fitting op on each of its peer ranks, in ascending rank: the ranks
 * it names that hold ops of the target API and direction (walking the
 * shorter of the two lists), or all of those when it names none. */
static int connect_node(struct st *s, int rk, size_t cur) {
    const struct cnode *c = &s->nodes[cur];
    const char *api;
    size_t alen;
    target_api(c, &api, &alen);
    uint8_t want = c->type == T_SRC ? T_DST : c->type == T_DST ? T_SRC : T_LINK;
    const struct pkey *p = find_key(s, api, alen, want);
    if (!p) return 0;
    if (c->nconn && c->nconn < p->s1 - p->s0) {
        for (size_t pi = 0; pi < c->nconn; pi++) {
            int prk = rank_index(s, c->conn[pi]);
            if (prk < 0 || prk <= rk) continue;
            struct pseg *g = find_seg(s, p, prk);
            if (g && pair_in(s, rk, cur, g) != 0) return -1;
        }
        return 0;
    }
    for (size_t k = p->s0; k < p->s1; k++) {
        struct pseg *g = &s->segs[k];
        if (g->rk <= rk || (c->nconn && !conn_has(c, s->R[g->rk].t->rank))) continue;
        if (pair_in(s, rk, cur, g) != 0) return -1;
    }
    return 0;
}

/* ---- layers ---- */

static size_t uf_find(size_t *p, size_t x);

/* Layers as logical time: paired ops (a group, through every pairing edge)
 * share one layer, one more than the latest layer of the op before any of
 * its members on that member's rank; a rank's first op has layer 0.  So a
 * rank's ops keep their order and an op after a communication comes after
 * everything that communication waited for.  (msProbe gives a paired op
 * the layer of the op that paired it, which can move a late op to layer 0
 * and makes its answer depend on the order the rank folders are listed
 * in.)  Groups are taken in dependency order; should pairing have crossed
 * (a cycle), the group holding the earliest remaining op goes next. */
static int number_layers(struct st *s) {
    size_t nn = s->nn;
    int rc = -1;
    size_t *uf = malloc(nn * sizeof *uf), *root_deps = calloc(nn, sizeof *root_deps);
    int32_t *glayer = malloc(nn * sizeof *glayer);
    uint8_t *done = calloc(nn, 1);
    size_t *stack = malloc(nn * sizeof *stack);
    if (!uf || !root_deps || !glayer || !done || !stack) goto out;
    for (size_t i = 0; i < nn; i++) uf[i] = i;
    for (size_t e = 0; e < s->ne; e++) {
        size_t a = uf_find(uf, (size_t)s->edges[e].a), b = uf_find(uf, (size_t)s->edges[e].b);
        if (a != b) uf[a < b ? b : a] = a < b ? a : b;   /* the root is the group's first node */
    }
    /* root_deps[g]: members of group g whose predecessor's group is not done */
    for (size_t i = 0; i < nn; i++) {
        glayer[i] = 0;
        if (i > s->ri[s->nodes[i].rk].n0 && uf_find(uf, i - 1) != uf_find(uf, i)) root_deps[uf_find(uf, i)]++;
    }
    /* members per group: members[g0[g] .. g0[g]+gn[g]) */
    size_t *g0 = calloc(nn + 1, sizeof *g0), *mem = malloc(nn * sizeof *mem);
    if (!g0 || !mem) { free(g0); free(mem); goto out; }
    for (size_t i = 0; i < nn; i++) g0[uf_find(uf, i) + 1]++;
    for (size_t i = 0; i < nn; i++) g0[i + 1] += g0[i];
    size_t *fill = malloc(nn * sizeof *fill);
    if (!fill) { free(g0); free(mem); goto out; }
    for (size_t i = 0; i < nn; i++) fill[i] = g0[i];
    for (size_t i = 0; i < nn; i++) mem[fill[uf_find(uf, i)]++] = i;
    free(fill);
    size_t ns = 0, left = 0, scan = 0;
    for (size_t i = 0; i < nn; i++)
        if (uf_find(uf, i) == i) {
            left++;
            if (root_deps[i] == 0) stack[ns++] = i;
        }
    while (left) {
        size_t g;
        if (ns) g = stack[--ns];
        else {
            while (scan < nn && done[uf_find(uf, scan)]) scan++;
            g = uf_find(uf, scan);   /* a cycle: the group of the earliest op left */
        }
        if (done[g]) continue;
        done[g] = 1;
        left--;
        int32_t L = 0;
        for (size_t k = g0[g]; k < g0[g + 1]; k++) {
            size_t m = mem[k];
            if (m > s->ri[s->nodes[m].rk].n0 && uf_find(uf, m - 1) != g) {
                int32_t p = glayer[uf_find(uf, m - 1)] + 1;
                if (p > L) L = p;
            }
        }
        glayer[g] = L;
        for (size_t k = g0[g]; k < g0[g + 1]; k++) {
            size_t m = mem[k] + 1;   /* the next op on the member's rank */
            if (m >= nn || s->nodes[m].rk != s->nodes[mem[k]].rk) continue;
            size_t h = uf_find(uf, m);
            if (h != g && !done[h] && root_deps[h] && --root_deps[h] == 0) stack[ns++] = h;
        }
    }
    for (size_t i = 0; i < nn; i++) s->nodes[i].layer = glayer[uf_find(uf, i)];
    /* A group taken out of a cycle got its layer before some of its
     * members' predecessors had theirs (a backward collective that names no
     * group pairs with every rank, and so can cross a pipeline's send and
     * recv): such a member goes after its predecessor on its own rank, so a
     * rank's ops still keep their order.  Without a cycle this changes
     * nothing. */
    for (size_t i = 1; i < nn; i++)
        if (s->nodes[i].rk == s->nodes[i - 1].rk && s->nodes[i].layer <= s->nodes[i - 1].layer)
            s->nodes[i].layer = s->nodes[i - 1].layer + 1;
    free(g0);
    free(mem);
    rc = 0;
out:
    free(uf);
    free(root_deps);
    free(glayer);
    free(done);
    free(stack);
    return rc;
}

/* ---- searching ---- */

static size_t uf_find(size_t *p, size_t x) {
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

static int push_hit(struct origin_result *out, size_t *cap, int rk, int32_t rec, int32_t layer, int32_t sub) {
    if (UTIL_PUSH(out->hits, out->nhits, *cap) != 0) return -1;
    out->hits[out->nhits++] = (struct origin_hit){rk, rec, layer, sub};
    return 0;
}

struct qent { size_t node; int32_t layer; size_t pos; };

static int by_layer(const void *a, const void *b) {
    const struct qent *x = a, *y = b;
    if (x->layer != y->layer) return (x->layer > y->layer) - (x->layer < y->layer);
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Walks the groups of paired ops in layer order (see the header). */
static int search_groups(struct st *s, struct origin_result *out) {
    int rc = -1;
    size_t nn = s->nn, hcap = 0;
    size_t *uf = malloc((nn ? nn : 1) * sizeof *uf);
    uint8_t *seen = calloc(nn ? nn : 1, 1);
    struct qent *q = malloc((nn ? nn : 1) * sizeof *q);
    size_t *qpos = calloc(s->nr ? s->nr : 1, sizeof *qpos), *qend = calloc(s->nr ? s->nr : 1, sizeof *qend);
    size_t *groups = malloc((s->nr ? s->nr : 1) * sizeof *groups);
    /* each group's members, ascending: mem[g0[g] .. g0[g + 1]); gmark[g]:
     * the round that opened group g */
    size_t *g0 = calloc(nn + 1, sizeof *g0), *mem = malloc((nn ? nn : 1) * sizeof *mem);
    size_t *gmark = calloc(nn ? nn : 1, sizeof *gmark), round = 0;
    if (!uf || !seen || !q || !qpos || !qend || !groups || !g0 || !mem || !gmark) goto out;
    for (size_t i = 0; i < nn; i++) uf[i] = i;
    for (size_t e = 0; e < s->ne; e++) {
        const struct edge *E = &s->edges[e];
        if (s->nodes[E->a].pruned || s->nodes[E->b].pruned) continue;
        size_t a = uf_find(uf, (size_t)E->a), b = uf_find(uf, (size_t)E->b);
        if (a != b) uf[a] = b;
    }
    for (size_t i = 0; i < nn; i++)
        if (!s->nodes[i].pruned) g0[uf_find(uf, i) + 1]++;
    for (size_t i = 0; i < nn; i++) g0[i + 1] += g0[i];
    for (size_t i = 0; i < nn; i++)   /* gmark counts the members placed, until the rounds use it */
        if (!s->nodes[i].pruned) {
            size_t g = uf_find(uf, i);
            mem[g0[g] + gmark[g]++] = i;
        }
    memset(gmark, 0, (nn ? nn : 1) * sizeof *gmark);
    size_t nq = 0;
    for (size_t r = 0; r < s->nr; r++) {
        size_t q0 = nq;
        for (size_t i = s->ri[r].n0; i < s->ri[r].n1; i++)
            if (!s->nodes[i].pruned) q[nq++] = (struct qent){i, s->nodes[i].layer, i};
        qsort(q + q0, nq - q0, sizeof *q, by_layer);
        qpos[r] = q0;
        qend[r] = nq;
    }
    for (;;) {
        int any = 0;
        for (size_t r = 0; r < s->nr; r++) any |= qpos[r] < qend[r];
        if (!any) break;
        size_t ng = 0;
        round++;
        for (size_t r = 0; r < s->nr; r++) {
            size_t node = SIZE_MAX;
            while (qpos[r] < qend[r]) {
                size_t x = q[qpos[r]++].node;
                if (!seen[x]) { node = x; break; }
            }
            if (node == SIZE_MAX) continue;
            size_t g = uf_find(uf, node);
            int known = gmark[g] == round;
            gmark[g] = round;
            /* every rank's next op opens its group (msProbe's overflow
             * check opens only the first rank's and drops the other ranks'
             * ops of the round, which makes its answer depend on the order
             * the file system lists the rank folders in) */
            if (!known) groups[ng++] = g;
        }
        size_t h0 = out->nhits;
        for (size_t k = 0; k < ng; k++) {
            /* compute ops first, then communication ops, each in rank order */
            size_t m0 = g0[groups[k]], m1 = g0[groups[k] + 1];
            for (size_t m = m0; m < m1; m++) {
                size_t i = mem[m];
                const struct cnode *c = &s->nodes[i];
                seen[i] = 1;
                /* overflow_check takes the births before an op that sends
                 * the anomaly on; compare -da every birth before the op */
                int feeds = s->rules == ORIGIN_DIVERGENCE || ((c->type == T_SRC || c->type == T_LINK) && (c->bad & ORIGIN_IN));
                if (!feeds) continue;
                for (size_t j = 0; j < c->nc; j++) {
                    const struct cand *cd = &s->cands[c->c0 + j];
                    if (push_hit(out, &hcap, cd->rk, cd->rec, c->layer, cd->sub_layer) != 0) goto out;
                }
            }
            /* an op whose output is anomalous while a source or collective
             * partner of its group had the anomaly in its inputs received
             * it: propagated, not born (here probetop parts from msProbe,
             * which also counts such an op, see man/probetop.1) */
            int fed = 0;
            for (size_t m = m0; m < m1 && !fed; m++) {
                const struct cnode *c = &s->nodes[mem[m]];
                fed = (c->type == T_SRC || c->type == T_LINK) && (c->bad & ORIGIN_IN);
            }
            for (size_t m = m0; m < m1 && !fed; m++) {
                const struct cnode *c = &s->nodes[mem[m]];
                if (!c->anomaly) continue;
                if (push_hit(out, &hcap, c->rk, c->rec, c->layer, c->sub_layer) != 0) goto out;
            }
        }
        if (out->nhits > h0) {
            /* the least (layer, sub_layer), ties to the lowest rank */
            size_t best = h0;
            for (size_t i = h0 + 1; i < out->nhits; i++) {
                const struct origin_hit *a = &out->hits[i], *b = &out->hits[best];
                if (a->layer != b->layer ? a->layer < b->layer
                    : a->sub_layer != b->sub_layer ? a->sub_layer < b->sub_layer : a->rank < b->rank)
                    best = i;
            }
            out->hits[0] = out->hits[best];
            out->nhits = 1;
            out->phase = ORIGIN_DURING_COMM;
            break;
        }
    }
    rc = 0;
out:
    free(uf);
    free(seen);
    free(q);
    free(qpos);
    free(qend);
    free(groups);
    free(g0);
    free(mem);
    free(gmark);
    return rc;
}

/* ---- the chain ---- */

static int push_hop(struct origin_result *out, size_t *cap, struct origin_hop h) {
    if (UTIL_PUSH(out->hops, out->nhops, *cap) != 0) return -1;
    out->hops[out->nhops++] = h;
    return 0;
}

/* The node holding record rec of rank rk, SIZE_MAX none. */
static size_t node_of(const struct st *s, int rk, int32_t rec) {
    const struct rankinfo *ri = &s->ri[rk];
    size_t lo = ri->n0, hi = ri->n1;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s->nodes[m].rec < rec) lo = m + 1;
        else hi = m;
    }
    return lo < ri->n1 && s->nodes[lo].rec == rec ? lo : SIZE_MAX;
}

/* The peer op that fed node n (its source, or a collective partner) with
 * an anomaly, preferring ranks in `infected`; SIZE_MAX none. */
static size_t feeding_peer(const struct st *s, size_t n, const uint8_t *infected, int need_infected) {
    size_t best = SIZE_MAX;
    for (size_t k = s->adj0[n]; k < s->adj0[n + 1]; k++) {
        const struct edge *E = &s->edges[s->adj[k]];
        size_t p;
        if (E->kind == E_DST) {
            if ((size_t)E->b != n) continue;   /* a destination does not feed its source */
            p = (size_t)E->a;
        } else if ((size_t)E->a == n) p = (size_t)E->b;
        else if ((size_t)E->b == n) p = (size_t)E->a;
        else continue;
        const struct cnode *c = &s->nodes[p];
        if (!c->bad) continue;
        if (need_infected && !infected[c->rk]) continue;
        /* the peer that had it in its inputs (the one that sent it), else
         * the lowest rank */
        if (best == SIZE_MAX || ((c->bad & ORIGIN_IN) && !(s->nodes[best].bad & ORIGIN_IN)) ||
            (!(c->bad & ORIGIN_IN) == !(s->nodes[best].bad & ORIGIN_IN) && c->rk < s->nodes[best].rk))
            best = p;
    }
    return best;
}

static int build_chain(struct st *s, struct origin_result *out) {
    size_t nr = s->nr, cap = 0;
    uint8_t *infected = calloc(nr ? nr : 1, 1);
    int32_t *entry = malloc((nr ? nr : 1) * sizeof *entry);
    /* each node's edges, in edge order: adj[adj0[n] .. adj0[n + 1]) */
    s->adj0 = calloc(s->nn + 1, sizeof *s->adj0);
    s->adj = malloc((s->ne ? 2 * s->ne : 1) * sizeof *s->adj);
    if (!infected || !entry || !s->adj0 || !s->adj) { free(infected); free(entry); return -1; }
    for (size_t e = 0; e < s->ne; e++) {
        s->adj0[s->edges[e].a + 1]++;
        s->adj0[s->edges[e].b + 1]++;
    }
    for (size_t i = 0; i < s->nn; i++) s->adj0[i + 1] += s->adj0[i];
    for (size_t e = 0; e < s->ne; e++) {   /* adj0[n] runs to its end, then steps back */
        s->adj[s->adj0[s->edges[e].a]++] = e;
        s->adj[s->adj0[s->edges[e].b]++] = e;
    }
    for (size_t i = s->nn; i > 0; i--) s->adj0[i] = s->adj0[i - 1];
    s->adj0[0] = 0;
    uint8_t mask = ORIGIN_IN | ORIGIN_OUT;
    for (size_t r = 0; r < nr; r++) {
        entry[r] = -1;
        const struct tree *t = s->R[r].t;
        for (size_t i = 0; i < t->nrecs && entry[r] < 0; i++)
            if ((s->R[r].flags[i] & mask) && !is_ignored(rec_name(t, i), s->rules)) entry[r] = (int32_t)i;
    }
    for (size_t h = 0; h < out->nhits; h++) infected[out->hits[h].rank] = 1;
    int rc = 0;
    for (;;) {
        /* every rank reached from an already affected one, until none is */
        int changed = 1;
        while (changed && rc == 0) {
            changed = 0;
            for (size_t r = 0; r < nr && rc == 0; r++) {
                if (infected[r] || entry[r] < 0) continue;
                size_t n = node_of(s, (int)r, entry[r]);
                size_t p = n == SIZE_MAX ? SIZE_MAX : feeding_peer(s, n, infected, 1);
                if (p == SIZE_MAX) continue;
                rc = push_hop(out, &cap, (struct origin_hop){s->nodes[p].rk, (int)r, s->nodes[p].rec, entry[r]});
                infected[r] = changed = 1;
            }
        }
        /* then the first rank left: fed by a peer not yet placed, or born there */
        size_t r = 0;
        while (r < nr && (infected[r] || entry[r] < 0)) r++;
        if (rc != 0 || r == nr) break;
        size_t n = node_of(s, (int)r, entry[r]);
        size_t p = n == SIZE_MAX ? SIZE_MAX : feeding_peer(s, n, infected, 0);
        struct origin_hop hop = {-1, (int)r, -1, entry[r]};
        if (p != SIZE_MAX) {
            hop.from = s->nodes[p].rk;
            hop.from_rec = s->nodes[p].rec;
        }
        rc = push_hop(out, &cap, hop);
        infected[r] = 1;
    }
    free(infected);
    free(entry);
    return rc;
}

/* ---- keeping less ---- */

static int slim_str(const struct tree *t, struct tree *n, uint32_t *off) {
    if (*off == TREE_NONE) return 0;
    const char *x = tree_s(t, *off);
    *off = tree_str(n, x, strlen(x));
    return *off == TREE_NONE ? -1 : 0;
}

struct tree *origin_slim(const struct tree *t, enum origin_rules rules) {
    struct tree *n = tree_new();
    if (!n) return NULL;
    size_t np = 0, capr = 0, capp = 0;
    if (util_grow((void **)&n->recs, &capr, t->nrecs ? t->nrecs : 1, sizeof *n->recs) != 0) goto oom;
    for (size_t r = 0; r < t->nrecs; r++) {
        const char *name = rec_name(t, r);
        struct trec *o = &n->recs[r];
        *o = (struct trec){.name = tree_str(n, name, strlen(name)), .p0 = (uint32_t)np, .np = 0, .node = -1,
                           .ovf = t->recs[r].ovf};
        if (o->name == TREE_NONE) goto oom;
        n->nrecs++;
        if (!is_comm(name, rules)) continue;
        for (uint32_t i = 0; i < t->recs[r].np; i++) {
            if (UTIL_PUSH(n->params, np, capp) != 0) goto oom;
            struct tparam *q = &n->params[np];
            *q = t->params[t->recs[r].p0 + i];
            uint32_t *offs[] = {&q->name, &q->type, &q->dtype, &q->shape, &q->data_name, &q->md5,
                                &q->value, &q->group_id, &q->p2p_op};
            for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++)
                if (slim_str(t, n, offs[k]) != 0) goto oom;
            for (int k = 0; k < 4; k++)
                if (q->stat[k].kind == TV_STR && slim_str(t, n, &q->stat[k].s) != 0) goto oom;
            np++;
            o->np++;
        }
    }
    n->nparams = np;
    n->capparams = capp;
    n->caprecs = capr;
    n->step = t->step;
    n->rank = t->rank;
    if (t->path && !(n->path = strdup(t->path))) goto oom;
    return n;
oom:
    n->nparams = np;
    tree_free(n);
    return NULL;
}

/* ---- entry point ---- */

int origin_find(const struct origin_rank *ranks, size_t n, enum origin_rules rules, struct origin_result *out,
                struct pt_error *err) {
    memset(out, 0, sizeof *out);
    struct st s = {.R = ranks, .nr = n, .rules = rules, .groups = {.borrow = 1}};
    size_t hcap = 0;
    int rc = -1;
    s.ri = calloc(n ? n : 1, sizeof *s.ri);
    if (!s.ri) goto oom;
    /* before any communication: each rank's first candidate */
    for (size_t r = 0; r < n; r++) {
        const struct tree *t = ranks[r].t;
        s.ri[r].first_comm = -1;
        for (size_t i = 0; i < t->nrecs; i++) {
            const char *name = rec_name(t, i);
            if (is_comm(name, rules)) {
                s.ri[r].first_comm = (int32_t)i;
                break;
            }
            if (candidate(&s, name, ranks[r].flags[i])) {
                if (push_hit(out, &hcap, (int)r, (int32_t)i, -1, 0) != 0) goto oom;
                /* its communication ops still make the chain */
                for (size_t k = i + 1; k < t->nrecs && s.ri[r].first_comm < 0; k++)
                    if (is_comm(rec_name(t, k), rules)) s.ri[r].first_comm = (int32_t)k;
                break;
            }
        }
    }
    if (out->nhits) out->phase = ORIGIN_BEFORE_COMM;
    for (size_t r = 0; r < n; r++)
        if (build_rank(&s, (int)r) != 0) goto oom;
    /* pairing also serves the chain, so it runs whatever the phase */
    if (s.nn) {
        if (build_index(&s) != 0) goto oom;
        for (size_t r = 0; r + 1 < n; r++) {
            struct rankinfo *ri = &s.ri[r];
            for (size_t i = ri->n0; i < ri->n1; i++) {
                if (connect_node(&s, (int)r, i) != 0) goto oom;
            }
        }
        if (number_layers(&s) != 0) goto oom;
        for (size_t i = 0; i < s.nn; i++) {
            struct cnode *c = &s.nodes[i];
            if (!c->bad && c->nc == 0) c->pruned = 1;
        }
        if (!out->nhits && search_groups(&s, out) != 0) goto oom;
    }
    if (!out->nhits) {
        for (size_t r = 0; r < n; r++)
            if (s.ri[r].na) {
                const struct cand *c = &s.cands[s.ri[r].a0];
                int32_t layer = (int32_t)(s.ri[r].n1 - s.ri[r].n0);
                if (push_hit(out, &hcap, c->rk, c->rec, layer, c->sub_layer) != 0) goto oom;
            }
        if (out->nhits) out->phase = ORIGIN_AFTER_COMM;
    }
    if (out->nhits && build_chain(&s, out) != 0) goto oom;
    rc = 0;
    goto done;
oom:
    origin_result_free(out);
    pt_errorf(err, "out of memory while looking for the origin rank");
done:
    for (size_t i = 0; i < s.nn; i++)
        if (s.nodes[i].own_conn) free(s.nodes[i].conn);
    for (size_t i = 0; i < s.ngsets; i++) free(s.gsets[i].v);
    free(s.gsets);
    util_smap_free(&s.groups);
    free(s.byk);
    free(s.ktab);
    free(s.adj0);
    free(s.adj);
    free(s.keys);
    free(s.segs);
    free(s.nodes);
    free(s.cands);
    free(s.edges);
    free(s.ri);
    return rc;
}

void origin_rank_order(const struct origin_result *r, size_t n, int *order) {
    size_t k = 0;
    /* a rank goes in at its first mention */
    for (size_t i = 0; i < r->nhits + r->nhops + n; i++) {
        int x = i < r->nhits ? r->hits[i].rank : i < r->nhits + r->nhops ? r->hops[i - r->nhits].to
                                                                        : (int)(i - r->nhits - r->nhops);
        if (x < 0 || (size_t)x >= n) continue;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++) seen = order[j] == x;
        if (!seen) order[k++] = x;
    }
}

void origin_result_free(struct origin_result *r) {
    free(r->hits);
    free(r->hops);
    memset(r, 0, sizeof *r);
}

const char *origin_phase_name(enum origin_phase p) {
    switch (p) {
    case ORIGIN_BEFORE_COMM: return "before any communication";
    case ORIGIN_DURING_COMM: return "between communication ops";
    case ORIGIN_AFTER_COMM: return "after the last communication op";
    default: return "none";
    }
}
