/* origin_pair: the communication ops of each rank of a step, their pairing
 * across ranks and their layers, for the origin search (man/probetop.1,
 * "Origin across ranks").  The pairing here is not model/graph/comm.c's:
 * that one pairs ops the way the graph compare keys them ("{api}rank{peer}_{n}"),
 * while the overflow check pairs, for each communication op of a rank, the
 * first not yet paired op of the target API on each peer rank whose
 * direction is the opposite one and whose own peers name this rank. */
#include "model/overflow/origin_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A plain short number at s (a rank: at most 9 digits), by hand, as the
 * rules read one for every op's param and every member of every group:
 * its value, *end past it; *end is s when there is none, or when a tenth
 * digit follows (then strtol's reading is wanted). */
static int32_t short_digits(const char *s, const char **end) {
    const char *e = s;
    int32_t v = 0;
    while (e - s < 9 && (unsigned)(*e - '0') <= 9) v = v * 10 + (*e++ - '0');
    *end = (unsigned)(*e - '0') <= 9 ? s : e;
    return v;
}

static int32_t text_int(const char *s) {
    if (!s) return NO_RANK;
    /* no number at all (None, a name): strtol would read nothing */
    if ((unsigned)(*s - '0') > 9 && *s != '-' && *s != '+' && !isspace((unsigned char)*s)) return NO_RANK;
    const char *k;
    int32_t v0 = short_digits(s, &k);
    if (k != s && !*k) return v0;
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
    const char *suf = origin_io_suffix(t, id, il, p, &out);
    const char *ty = tree_s(t, p->type);
    return suf && !out && is_digits(suf) && ty && !strcmp(ty, "int");
}

/* What the pairing reads of an op's inputs, found in one walk over its
 * params (a walk per key was most of the search's instructions): the
 * first input param of each key, and where the positional int arguments
 * lie. */
enum { KW_SRC, KW_SRC_GROUP, KW_DST, KW_DST_GROUP, KW_GROUP, KW_N };
static const char *const kw_names[KW_N] = {"src", "src_group", "dst", "dst_group", "group"};
struct opargs {
    const struct tparam *kw[KW_N];   /* NULL: absent */
    uint32_t pos0;                   /* the first positional int argument (np: none) */
};

static void op_args(const struct tree *t, size_t r, struct opargs *a) {
    const char *id = origin_rec_name(t, r);
    size_t il = strlen(id);
    const struct tparam *p = origin_rec_params(t, r);
    uint32_t np = t->recs[r].np;
    memset(a->kw, 0, sizeof a->kw);
    a->pos0 = np;
    for (uint32_t i = 0; i < np; i++) {
        int out;
        const char *suf = origin_io_suffix(t, id, il, &p[i], &out);
        if (!suf || out) continue;
        if (is_digits(suf)) {
            const char *ty = tree_s(t, p[i].type);
            if (a->pos0 == np && ty && !strcmp(ty, "int")) a->pos0 = i;
            continue;
        }
        for (int k = 0; k < KW_N; k++)
            if (!a->kw[k] && !strcmp(suf, kw_names[k])) {
                a->kw[k] = &p[i];
                break;
            }
    }
}

static const char *const directed[][2] = {
    {"send", "d"}, {"recv", "s"}, {"isend", "d"}, {"irecv", "s"}, {"broadcast", "s"},
    {"scatter", "s"}, {"gather", "d"}, {"send_object_list", "d"}, {"recv_object_list", "s"},
};

static int directed_kind(const char *api, size_t len) {   /* T_SRC / T_DST, -1 undirected */
    for (size_t i = 0; i < sizeof directed / sizeof directed[0]; i++)
        if (directed[i][0][0] == api[0] && strlen(directed[i][0]) == len && !strncmp(directed[i][0], api, len))
            return directed[i][1][0] == 's' ? T_SRC : T_DST;
    return -1;
}

/* The target API of a p2p op (send <-> recv ...), else the API itself. */
static void target_api(const struct cnode *c, const char **api, size_t *len) {
    static const char *const pairs[][2] = {{"send", "recv"}, {"recv", "send"}, {"isend", "irecv"},
                                           {"irecv", "isend"}, {"send_object_list", "recv_object_list"},
                                           {"recv_object_list", "send_object_list"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i][0][0] == c->api[0] && strlen(pairs[i][0]) == c->api_len && !strncmp(pairs[i][0], c->api, c->api_len)) {
            *api = pairs[i][1];
            *len = strlen(pairs[i][1]);
            return;
        }
    *api = c->api;
    *len = c->api_len;
}

/* A present and non-null kwarg among keys k1, k2 (in order): its value in *v. */
static int kwarg_value(const struct tree *t, const struct opargs *a, int k1, int k2, int *present, int32_t *v) {
    const struct tparam *p = a->kw[k1];
    if (!p || p->is_null) {
        const struct tparam *q = a->kw[k2];
        if (p && !q) { *present = 1; return 0; }   /* k1 present but None */
        p = q;
    }
    *present = p != NULL;
    if (!p || p->is_null) return 0;
    *v = param_value(t, p);
    return 1;
}

/* Direction of the op on its rank, as the overflow check resolves it. */
static uint8_t resolve_type(const struct tree *t, size_t r, const struct opargs *a, const struct cnode *c) {
    int present;
    int32_t v;
    if (kwarg_value(t, a, KW_SRC, KW_SRC_GROUP, &present, &v)) return v == t->rank ? T_SRC : T_DST;
    if (kwarg_value(t, a, KW_DST, KW_DST_GROUP, &present, &v)) return v == t->rank ? T_DST : T_SRC;
    int k = directed_kind(c->api, c->api_len);
    if (k >= 0 && a->pos0 < t->recs[r].np) {
        v = param_value(t, &origin_rec_params(t, r)[a->pos0]);
        return v == t->rank ? (uint8_t)k : (uint8_t)(k == T_SRC ? T_DST : T_SRC);
    }
    return T_LINK;
}

static int push_rank(int32_t **v, size_t *n, size_t *cap, int32_t x) {
    if (UTIL_PUSH(*v, *n, *cap) != 0) return -1;
    (*v)[(*n)++] = x;
    return 0;
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
        /* ", 12": strtol's reading by hand (each rank reads the group of
         * every rank once: a thousand ranks, a million numbers) */
        const char *d = p, *e;
        while (*d == ' ') d++;
        long k = short_digits(d, &e);
        if (e == d && *d == ',') {   /* strtol reads nothing from p to the comma: past it */
            p = d + 1;
            continue;
        }
        if (e == d) {   /* none here, a sign or a long number: strtol's */
            char *f;
            k = strtol(p, &f, 10);
            e = f;
        }
        if (e == p) { p++; continue; }
        if (push_rank(&v, &n, &cap, (int32_t)k) != 0) { free(v); return -1; }
        p = e;
    }
    if (UTIL_PUSH(s->gsets, s->ngsets, s->capg) != 0) { free(v); return -1; }
    s->gsets[s->ngsets] = (struct gset){v, util_sort_unique_i32(v, n), gt};
    *slot = (int32_t)s->ngsets;
    return (int32_t)s->ngsets++;
}

/* The peer ranks an op names: dst (or dst_group), src (or src_group), else
 * every positional int argument; plus the ranks of its group. */
static int resolve_conn(struct st *s, const struct tree *t, size_t r, const struct opargs *a, struct cnode *c) {
    int32_t *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    /* the first of the two keys present decides, even when it is None */
    static const int keys[2][2] = {{KW_DST, KW_DST_GROUP}, {KW_SRC, KW_SRC_GROUP}};
    for (int k = 0; k < 2; k++) {
        const struct tparam *p = a->kw[keys[k][0]];
        if (!p) p = a->kw[keys[k][1]];
        if (p && !p->is_null) rc |= push_rank(&v, &n, &cap, param_value(t, p));
    }
    if (n == 0 && a->pos0 < t->recs[r].np) {
        const char *id = origin_rec_name(t, r);
        size_t il = strlen(id);
        const struct tparam *p = origin_rec_params(t, r);
        for (uint32_t i = a->pos0; i < t->recs[r].np; i++)
            if (pos_int_arg(t, id, il, &p[i])) rc |= push_rank(&v, &n, &cap, param_value(t, &p[i]));
    }
    const struct tparam *g = a->kw[KW_GROUP];
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
            c->gs = gi;
            return 0;
        }
        for (size_t i = 0; i < G->n && rc == 0; i++) rc |= push_rank(&v, &n, &cap, G->v[i]);
        if (rc) { free(v); return -1; }
    }
    c->conn = v;
    c->nconn = util_sort_unique_i32(v, n);
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

/* One rank's communication ops (from its first one on) with the candidate
 * compute ops before each, and the candidates after the last. */
int origin_build_rank(struct st *s, int rk) {
    const struct tree *t = s->R[rk].tree;
    const uint8_t *fl = s->R[rk].flags;
    struct rankinfo *ri = &s->ri[rk];
    ri->n0 = ri->n1 = s->nn;
    if (ri->first_comm < 0) return 0;
    int32_t sub = 0;
    size_t c0 = s->nc;
    for (size_t r = (size_t)ri->first_comm; r < t->nrecs; r++) {
        const char *name = origin_rec_name(t, r);
        if (origin_comm(name, s->rules)) {
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
            c->anomaly = origin_born(name, fl[r], s->rules);
            c->directed = directed_kind(c->api, c->api_len) >= 0;
            struct opargs oa;
            op_args(t, r, &oa);
            c->type = resolve_type(t, r, &oa, c);
            c->c0 = c0;
            c->nc = s->nc - c0;
            s->nn++;
            if (resolve_conn(s, t, r, &oa, c) != 0) return -1;
            c0 = s->nc;
            sub = 0;
        } else if (!origin_skipped(name, s->rules)) {
            /* (origin_born, its name's test passed) */
            if (!(fl[r] & ORIGIN_IN) && (fl[r] & ORIGIN_OUT) && add_cand(s, rk, (int32_t)r, sub) != 0) return -1;
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
        s->nodes[i].key = *slot;
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
    if (s->rix) {
        int64_t k = (int64_t)rank - s->rlo;
        return k >= 0 && (uint64_t)k < s->rspan ? s->rix[k] - 1 : -1;
    }
    size_t lo = 0, hi = s->nr;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s->R[m].tree->rank < rank) lo = m + 1;
        else hi = m;
    }
    return lo < s->nr && s->R[lo].tree->rank == rank ? (int)lo : -1;
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
    int32_t rank = s->R[rk].tree->rank;
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
    /* an op that pairs with its own API and direction (the collectives):
     * its own key, no lookup */
    const struct pkey *p = api == c->api && want == c->type ? &s->keys[c->key] : find_key(s, api, alen, want);
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
        if (g->rk <= rk || (c->nconn && !conn_has(c, s->R[g->rk].tree->rank))) continue;
        if (pair_in(s, rk, cur, g) != 0) return -1;
    }
    return 0;
}

/* ---- layers ---- */

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
        size_t a = origin_uf_find(uf, (size_t)s->edges[e].a), b = origin_uf_find(uf, (size_t)s->edges[e].b);
        if (a != b) uf[a < b ? b : a] = a < b ? a : b;   /* the root is the group's first node */
    }
    /* root_deps[g]: members of group g whose predecessor's group is not done */
    for (size_t i = 0; i < nn; i++) {
        glayer[i] = 0;
        if (i > s->ri[s->nodes[i].rk].n0 && origin_uf_find(uf, i - 1) != origin_uf_find(uf, i))
            root_deps[origin_uf_find(uf, i)]++;
    }
    /* members per group: members[g0[g] .. g0[g]+gn[g]) */
    size_t *g0 = calloc(nn + 1, sizeof *g0), *mem = malloc(nn * sizeof *mem);
    if (!g0 || !mem) { free(g0); free(mem); goto out; }
    for (size_t i = 0; i < nn; i++) g0[origin_uf_find(uf, i) + 1]++;
    for (size_t i = 0; i < nn; i++) g0[i + 1] += g0[i];
    size_t *fill = malloc(nn * sizeof *fill);
    if (!fill) { free(g0); free(mem); goto out; }
    for (size_t i = 0; i < nn; i++) fill[i] = g0[i];
    for (size_t i = 0; i < nn; i++) mem[fill[origin_uf_find(uf, i)]++] = i;
    free(fill);
    size_t ns = 0, left = 0, scan = 0;
    for (size_t i = 0; i < nn; i++)
        if (origin_uf_find(uf, i) == i) {
            left++;
            if (root_deps[i] == 0) stack[ns++] = i;
        }
    while (left) {
        size_t g;
        if (ns) g = stack[--ns];
        else {
            while (scan < nn && done[origin_uf_find(uf, scan)]) scan++;
            g = origin_uf_find(uf, scan);   /* a cycle: the group of the earliest op left */
        }
        if (done[g]) continue;
        done[g] = 1;
        left--;
        int32_t L = 0;
        for (size_t k = g0[g]; k < g0[g + 1]; k++) {
            size_t m = mem[k];
            if (m > s->ri[s->nodes[m].rk].n0 && origin_uf_find(uf, m - 1) != g) {
                int32_t p = glayer[origin_uf_find(uf, m - 1)] + 1;
                if (p > L) L = p;
            }
        }
        glayer[g] = L;
        for (size_t k = g0[g]; k < g0[g + 1]; k++) {
            size_t m = mem[k] + 1;   /* the next op on the member's rank */
            if (m >= nn || s->nodes[m].rk != s->nodes[mem[k]].rk) continue;
            size_t h = origin_uf_find(uf, m);
            if (h != g && !done[h] && root_deps[h] && --root_deps[h] == 0) stack[ns++] = h;
        }
    }
    for (size_t i = 0; i < nn; i++) s->nodes[i].layer = glayer[origin_uf_find(uf, i)];
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

/* The table rank_index reads (the ranks, ascending in R, most often 0..n-1):
 * when their span is not much more than their count; else it searches. */
static void rank_table(struct st *s) {
    s->rix = NULL;
    if (!s->nr) return;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < s->nr; i++) {
        int32_t r = s->R[i].tree->rank;
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    size_t span = (size_t)((int64_t)hi - lo) + 1;
    if (span > 4 * s->nr + 4096 || !(s->rix = calloc(span, sizeof *s->rix))) return;
    s->rlo = lo;
    s->rspan = span;
    for (size_t i = 0; i < s->nr; i++)   /* the first of a rank given twice, as the search finds */
        if (!s->rix[s->R[i].tree->rank - lo]) s->rix[s->R[i].tree->rank - lo] = (int32_t)i + 1;
}

/* Pairs every communication op with its peers' and numbers the layers. */
int origin_pair_ops(struct st *s) {
    if (build_index(s) != 0) return -1;
    rank_table(s);
    int rc = 0;
    for (size_t r = 0; r + 1 < s->nr && rc == 0; r++)
        for (size_t i = s->ri[r].n0; i < s->ri[r].n1 && rc == 0; i++) rc = connect_node(s, (int)r, i);
    free(s->rix);
    s->rix = NULL;
    return rc != 0 ? -1 : number_layers(s);
}

size_t origin_uf_find(size_t *p, size_t x) {
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

/* ---- what the pairing reads of an op (tests) ---- */

static int view_add(char **b, size_t *n, size_t *cap, const char *s) {
    size_t l = strlen(s);
    if (util_grow((void **)b, cap, *n + l + 1, 1) != 0) return -1;
    memcpy(*b + *n, s, l + 1);
    *n += l;
    return 0;
}

char *origin_op_view(const struct tree *t, size_t r) {
    char *b = NULL, line[96];
    size_t n = 0, cap = 0;
    struct opargs oa;
    op_args(t, r, &oa);
    int rc = view_add(&b, &n, &cap, "");
    for (size_t k = 0; k < KW_N && rc == 0; k++) {
        const struct tparam *p = oa.kw[k];
        if (!p) snprintf(line, sizeof line, "%s absent\n", kw_names[k]);
        else if (p->is_null) snprintf(line, sizeof line, "%s None\n", kw_names[k]);
        else snprintf(line, sizeof line, "%s %ld ", kw_names[k], (long)param_value(t, p));
        rc = view_add(&b, &n, &cap, line);
        if (!p || p->is_null || rc) continue;
        const char *gt = k == KW_GROUP && p->md5 != TREE_NONE ? tree_s(t, p->md5) : NULL;
        rc = view_add(&b, &n, &cap, gt && *gt == '[' ? gt : "-");
        if (!rc) rc = view_add(&b, &n, &cap, "\n");
    }
    const char *id = origin_rec_name(t, r);
    size_t il = strlen(id);
    const struct tparam *p = origin_rec_params(t, r);
    for (uint32_t i = 0; i < t->recs[r].np && rc == 0; i++)
        if (pos_int_arg(t, id, il, &p[i])) {
            snprintf(line, sizeof line, "arg %s %ld\n", tree_pname_after(t, &p[i], id, il), (long)param_value(t, &p[i]));
            rc = view_add(&b, &n, &cap, line);
        }
    if (rc) {
        free(b);
        return NULL;
    }
    return b;
}
