/* comm: probetop-rules(7), ORIGIN ACROSS RANKS: Communication links pairing of communication nodes across ranks. */
#include "model/graph/comm.h"
#include "model/util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fam { F_P2P, F_ROOTED, F_ALL };

struct capi {
    const char *api, *counter, *suffix;
    uint8_t type, fam;
};

static const struct capi apis[] = {
    {"send", "recv", "dst", COMM_SEND, F_P2P},
    {"isend", "irecv", "dst", COMM_SEND, F_P2P},
    {"recv", "send", "src", COMM_RECEIVE, F_P2P},
    {"irecv", "isend", "src", COMM_RECEIVE, F_P2P},
    {"broadcast", "broadcast", "1", COMM_SEND, F_ROOTED},
    {"scatter", "scatter", "src", COMM_SEND, F_ROOTED},
    {"gather", "gather", "dst", COMM_RECEIVE, F_ROOTED},
    {"reduce", "reduce", "1", COMM_RECEIVE, F_ROOTED},
};

struct centry {
    char key[192];
    int tree;
    int32_t rec;
    int32_t val;          /* the peer rank of a send/recv (source or destination), -1 none */
    uint8_t type, fam;
    char counter_key[192];   /* p2p: the partner's key */
};

const char *comm_type_name(int type) {
    return type == COMM_SEND ? "send" : type == COMM_RECEIVE ? "receive" : "send_receive";
}

void comm_links_free(struct comm_links *l) {
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* Links go in as found; the repeats are removed at the end (dedupe), not
 * looked for at every add: a run of 8 ranks has tens of thousands. */
static int add(struct comm_links *l, int ft, int32_t fr, int tt, int32_t tr, int type) {
    if (UTIL_PUSH(l->v, l->n, l->cap) != 0) return -1;
    l->v[l->n++] = (struct comm_link){ft, fr, tt, tr, (uint8_t)type};
    return 0;
}

/* The param named "{rec}.input.{suffix}" of a record, NULL none. */
static const struct tparam *input_param(const struct tree *t, int rec, const char *suffix) {
    const char *id = tree_s(t, t->recs[rec].name);
    size_t il = strlen(id);
    const struct tparam *p = t->params + t->recs[rec].p0;
    for (uint32_t i = 0; i < t->recs[rec].np; i++) {
        const char *n = tree_pname_after(t, &p[i], id, il);
        if (n && !strncmp(n, ".input.", 7) && !strcmp(n + 7, suffix)) return &p[i];
    }
    return NULL;
}

static int32_t param_int(const struct tree *t, const struct tparam *p) {
    if (!p) return -1;
    const char *v = tree_s(t, p->value);
    if (!v) {
        struct tval mx = tree_stat(t, p, 0);
        if (mx.kind == TV_INT) return (int32_t)mx.integer;
        return -1;
    }
    char *e;
    long n = strtol(v, &e, 10);
    return e != v && !*e ? (int32_t)n : -1;
}

/* A link with its position, sorted by (from, to), then position. */
struct dd { struct comm_link l; size_t at; };
static int by_link(const void *a, const void *b) {
    const struct dd *p = a, *q = b;
    const struct comm_link *x = &p->l, *y = &q->l;
    if (x->from_tree != y->from_tree) return x->from_tree < y->from_tree ? -1 : 1;
    if (x->from_rec != y->from_rec) return x->from_rec < y->from_rec ? -1 : 1;
    if (x->to_tree != y->to_tree) return x->to_tree < y->to_tree ? -1 : 1;
    if (x->to_rec != y->to_rec) return x->to_rec < y->to_rec ? -1 : 1;
    return (p->at > q->at) - (p->at < q->at);
}

/* Keeps the first of each (from, to) link, in the order they were found. */
static int dedupe(struct comm_links *l) {
    if (l->n < 2) return 0;
    struct dd *v = malloc(l->n * sizeof *v);
    unsigned char *drop = calloc(l->n, 1);
    if (!v || !drop) { free(v); free(drop); return -1; }
    for (size_t i = 0; i < l->n; i++) v[i] = (struct dd){l->v[i], i};
    qsort(v, l->n, sizeof *v, by_link);
    for (size_t i = 1; i < l->n; i++)
        if (!by_link(&(struct dd){v[i - 1].l, 0}, &(struct dd){v[i].l, 0})) drop[v[i].at] = 1;
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (!drop[i]) l->v[k++] = l->v[i];
    l->n = k;
    free(v);
    free(drop);
    return 0;
}

static int by_key(const void *a, const void *b) {
    const struct centry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->tree > y->tree) - (x->tree < y->tree);
}

int comm_links_build(const struct tree *const *trees, size_t ntrees, struct comm_links *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    struct centry *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t ti = 0; ti < ntrees; ti++) {
        const struct tree *t = trees[ti];
        size_t first = n;
        for (size_t r = 0; r < t->nrecs; r++) {
            const char *id = tree_s(t, t->recs[r].name);
            if (strncmp(id, "Distributed.", 12) != 0) continue;
            const char *a0 = id + 12, *dot = strchr(a0, '.');
            char api[64];
            snprintf(api, sizeof api, "%.*s", (int)(dot ? dot - a0 : (long)strlen(a0)), a0);
            if (!strcmp(api, "batch_isend_irecv")) continue;
            const struct capi *c = NULL;
            for (size_t k = 0; k < sizeof apis / sizeof apis[0]; k++)
                if (!strcmp(apis[k].api, api)) c = &apis[k];
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                struct centry *nv = realloc(v, cap * sizeof *nv);
                if (!nv) { free(v); return pt_errorf(err, "out of memory"); }
                v = nv;
            }
            struct centry *e = &v[n];
            memset(e, 0, sizeof *e);
            e->tree = (int)ti;
            e->rec = (int32_t)r;
            e->fam = c ? c->fam : F_ALL;
            e->type = c ? c->type : COMM_SEND_RECEIVE;
            e->val = c ? param_int(t, input_param(t, (int)r, c->suffix)) : -1;
            if (e->fam == F_P2P) {
                if (e->val < 0) continue;   /* no peer: no link */
                snprintf(e->key, sizeof e->key, "%srank%d", api, (int)e->val);
                snprintf(e->counter_key, sizeof e->counter_key, "%srank%d", c->counter, (int)t->rank);
            } else {
                const struct tparam *g = input_param(t, (int)r, "group");
                const char *gid = g ? tree_s(t, tree_comm_gid(t, g)) : NULL;
                snprintf(e->key, sizeof e->key, "%s%s", gid ? gid : "", api);
            }
            n++;
        }
        /* "_n": the occurrence of the key in this rank, in dump order
         * (\x01 stands for '_' so a name holding '_' cannot collide) */
        for (size_t i = n; i-- > first;) {
            int occ = 1;
            for (size_t j = first; j < i; j++)
                if (!strcmp(v[j].key, v[i].key)) occ++;
            size_t kl = strlen(v[i].key), cl = strlen(v[i].counter_key);
            snprintf(v[i].key + kl, sizeof v[i].key - kl, "\x01%d", occ);
            if (cl) snprintf(v[i].counter_key + cl, sizeof v[i].counter_key - cl, "\x01%d", occ);
        }
    }
    qsort(v, n, sizeof *v, by_key);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct centry *e = &v[i];
        const struct tree *me = trees[e->tree];
        if (e->fam == F_P2P) {
            for (size_t j = 0; j < n; j++) {
                const struct centry *p = &v[j];
                if (p->fam != F_P2P || trees[p->tree]->rank != e->val || strcmp(p->key, e->counter_key)) continue;
                if (p->val != me->rank) continue;
                rc = add(out, e->tree, e->rec, p->tree, p->rec, e->type);
                break;
            }
            continue;
        }
        /* the run of equal keys around i */
        size_t lo = i, hi = i;
        while (lo > 0 && !strcmp(v[lo - 1].key, e->key)) lo--;
        while (hi + 1 < n && !strcmp(v[hi + 1].key, e->key)) hi++;
        for (size_t j = lo; j <= hi && rc == 0; j++) {
            const struct centry *p = &v[j];
            if (p->tree == e->tree) continue;
            if (e->fam == F_ALL) rc = add(out, e->tree, e->rec, p->tree, p->rec, COMM_SEND_RECEIVE);
            else if (e->val == me->rank) {
                rc = add(out, e->tree, e->rec, p->tree, p->rec, e->type);
                if (!rc) rc = add(out, p->tree, p->rec, e->tree, e->rec, e->type == COMM_SEND ? COMM_RECEIVE : COMM_SEND);
            }
        }
    }
    free(v);
    if (rc == 0) rc = dedupe(out);
    if (rc != 0) {
        comm_links_free(out);
        return pt_errorf(err, "out of memory");
    }
    return 0;
}
