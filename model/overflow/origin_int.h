/* origin_int: what the origin files share among themselves and nobody
 * else sees.  model/overflow/origin.h is the public header (the rules in
 * full); this one joins origin_flags.c (which records are anomalous, which
 * are communication ops, what a rank keeps), origin_pair.c (each rank's
 * communication ops, their pairing across ranks and their layers) and
 * origin.c (the search over the paired groups, the chain, the entry
 * point), with origin_ranks.c (each rank's part, on the pool's threads).
 * Calls go one way: origin.c -> origin_ranks.c -> origin_pair.c ->
 * origin_flags.c. */
#ifndef PT_ORIGIN_INT_H
#define PT_ORIGIN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/overflow/origin.h"
#include "model/util/util.h"

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
    int32_t gs;                    /* !own_conn: that group's index in gsets */
    size_t c0, nc;                 /* its candidate compute ops in cands[] */
    int32_t key;                   /* its own (API, direction) in the pairing's keys */
};

struct cand { int rk; int32_t rec, sub_layer; };
struct gset { int32_t *v; size_t n; const char *text; };   /* a group's ranks, ascending, unique; its text */
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
    int32_t *rix, rlo; size_t rspan; /* rank - rlo -> rank index + 1 (origin_pair_ops' pairing; NULL: search) */
    int oom;
};

/* A record's name, "" when it has none. */
static inline const char *origin_rec_name(const struct tree *t, size_t r) {
    const char *s = tree_s(t, t->recs[r].name);
    return s ? s : "";
}

/* Record r's params (NULL when it has none: a tree of light ops may hold
 * no param at all). */
static inline const struct tparam *origin_rec_params(const struct tree *t, size_t r) {
    return t->recs[r].np ? t->params + t->recs[r].p0 : NULL;
}

/* ---- origin_flags.c ---- */

/* origin_is_comm() under either rule set. */
int origin_comm(const char *name, enum origin_rules rules);
/* Records the rules step over (Torch.empty, Torch.fill; for divergence
 * also Tensor.__setitem__). */
int origin_skipped(const char *name, enum origin_rules rules);
/* A record born anomalous: clean inputs, anomalous outputs (flags f). */
int origin_born(const char *name, uint8_t f, enum origin_rules rules);
/* The part of a param name after "<record>.input." or "<record>.output."
 * (*out set to 1 for outputs), NULL when it is neither. */
const char *origin_io_suffix(const struct tree *t, const char *id, size_t il, const struct tparam *p, int *out);

/* ---- origin_pair.c ---- */

/* One rank's communication ops (from its first one on) with the candidate
 * compute ops before each, and the candidates after the last; 0, -1 out of
 * memory. */
int origin_build_rank(struct st *s, int rk);
/* Pairs the ops of every rank with their peers' and gives each its layer;
 * 0, -1 out of memory. */
int origin_pair_ops(struct st *s);
/* The root of x in a union-find forest p (paths halved on the way). */
size_t origin_uf_find(size_t *p, size_t x);

/* ---- origin_ranks.c ---- */

/* Every rank's own part of the search, the ranks on the pool's threads
 * (model/util/pool.h), joined in rank order, so that s comes out as
 * origin_build_rank over the ranks in order makes it: s->ri[r].first_comm,
 * and born[r], the record born anomalous before rank r's first
 * communication op (-1 none), then its ops and candidates (s->nodes,
 * s->cands, s->gsets).  0, -1 out of memory. */
int origin_build_ranks(struct st *s, int32_t *born);

#endif
