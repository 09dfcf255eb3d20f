/* compare_table: the table compare's join (`msprobe compare`,
 * probetop-rules(7)): one row per flattened tensor of the problem dump
 * in dump order, joined by name (exact, renumbered backward, fuzzy or
 * mapped), each dump entry's rows judged by model/compare/compare_rules.c. */
#include "model/compare/compare.h"
#include "model/compare/compare_int.h"

#include "model/util/bigmem.h"
#include "model/compare/tensorcmp.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* ---- table compare ---- */

/* A row's join key is its param name, except renumbered backward rows,
 * whose keys are composed again from the call's new number when read
 * (koff): kept as text, they were a few hundred kB a side beside the
 * trees at the csv's peak. */
#define KEY_IS_NAME UINT32_MAX
struct join_row { int32_t p; int32_t rec; uint32_t koff; /* KEY_IS_NAME, or the renumbered call's order */ };

struct tside {
    const struct tree *t;
    struct join_row *v;
    size_t n, cap;
};

static int split_entry(const char *name, size_t *cut);

static void key_add_int(char *buf, size_t size, size_t *len, int v) {
    char d[24];
    util_put_text(buf, size, len, d, util_put_int(d, 0, v));   /* not snprintf: once a key read */
}

/* The renumbered key of param p of backward entry rec (call number order)
 * into key (size bytes): op_no_number . call_direction(renumbered) .
 * suffix.  pn: the param's name.  0, or -1 when rec is not a backward
 * entry.  (Composed by hand, as snprintf would cut it: it runs again for
 * each read of the key.) */
static int renum_key(const struct tree *t, int rec, const char *pn, int order, char *key, size_t size) {
    const char *name = tree_s(t, t->recs[rec].name);
    size_t cut;
    if (split_entry(name, &cut) != 2) return -1;
    const char *cd = name + cut + 1;
    char cdb[256];
    size_t cl = 0, kl = 0;
    cdb[0] = '\0';
    const char *dot = strchr(cd, '.');
    size_t h = dot ? (size_t)(dot - cd) : strlen(cd);
    int head_num = h && strspn(cd, "0123456789") == h;
    if (head_num) {
        key_add_int(cdb, sizeof cdb, &cl, order);
        util_put_text(cdb, sizeof cdb, &cl, cd + h, strlen(cd + h));
    } else if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1)) {
        util_put_text(cdb, sizeof cdb, &cl, cd, h);
        util_put_text(cdb, sizeof cdb, &cl, ".", 1);
        key_add_int(cdb, sizeof cdb, &cl, order);
    } else util_put_text(cdb, sizeof cdb, &cl, cd, strlen(cd));
    /* suffix: the row name with the entry name removed */
    size_t nl = strlen(name);
    const char *suffix = !strncmp(pn, name, nl) ? pn + nl : pn;
    key[0] = '\0';
    util_put_text(key, size, &kl, name, cut);
    util_put_text(key, size, &kl, ".", 1);
    util_put_text(key, size, &kl, cdb, cl);
    util_put_text(key, size, &kl, suffix, strlen(suffix));
    return 0;
}

#define KEY_MAX 8192

/* (a name or key is composed in nb) */
static const char *join_key(const struct tside *s, const struct join_row *r, struct tree_pn *nb) {
    const char *pn = tree_pname_r(s->t, r->rec, &s->t->params[r->p], nb);
    if (!pn || r->koff == KEY_IS_NAME) return pn;
    char key[KEY_MAX];
    if (renum_key(s->t, r->rec, pn, (int)r->koff, key, sizeof key) != 0) return NULL;
    size_t kl = strlen(key) + 1;
    char *o = tree_pn_room(nb, kl);
    return o ? memcpy(o, key, kl) : NULL;
}

static void tside_free(struct tside *s) { free(s->v); }

/* op_no_number / call_direction split of an entry name (msProbe's
 * split_data_name_components); returns the direction: 0 none (skip),
 * 1 forward, 2 backward, 3 parameters_grad.  *cut = length of op_no_number. */
static int split_entry(const char *name, size_t *cut) {
    size_t len = strlen(name);
    const char *l1 = strrchr(name, '.');
    const char *last = l1 ? l1 + 1 : name;
    const char *second = "";
    size_t slen = 0;
    size_t e2 = 0;   /* start of second-last segment */
    if (l1) {
        const char *b = l1;
        while (b > name && b[-1] != '.') b--;
        second = b;
        slen = (size_t)(l1 - b);
        e2 = (size_t)(b - name);
    }
    int nseg = 1;
    for (const char *p = name; *p; p++) nseg += *p == '.';
    if (!strcmp(last, "parameters_grad") || (slen == 15 && !strncmp(second, "parameters_grad", 15))) {
        *cut = l1 ? (size_t)(l1 - name) : 0;
        return nseg > 1 ? 3 : 0;
    }
    for (int d = 1; d <= 2; d++) {
        const char *w = d == 1 ? "forward" : "backward";
        size_t wl = strlen(w);
        if (!strcmp(last, w) || (slen == wl && !strncmp(second, w, wl))) {
            if (nseg <= 2) return 0;
            *cut = e2 ? e2 - 1 : 0;
            (void)len;
            return d;
        }
    }
    return 0;
}

/* A record's place in the join: SKIP (not a forward, backward or
 * parameters_grad entry: no rows), NOT_BW (rows keyed by their names), or
 * a backward entry's order among the calls of its op_no_number (0, 1, ...:
 * the number its renumbered keys take). */
#define ORD_SKIP (-1)
#define ORD_NOT_BW (-2)

/* Every record's place (ord[nrecs], the caller's to free) and the rows
 * they make (*nrows).  0, or -1 out of memory. */
static int side_orders(const struct tree *t, int32_t **ord, size_t *nrows) {
    *nrows = 0;
    *ord = malloc((t->nrecs ? t->nrecs : 1) * sizeof **ord);
    if (!*ord) return -1;
    struct util_smap bw = {0};
    for (size_t r = 0; r < t->nrecs; r++) {
        const char *name = tree_s(t, t->recs[r].name);
        size_t cut;
        int dir = split_entry(name, &cut);
        (*ord)[r] = dir ? ORD_NOT_BW : ORD_SKIP;
        if (!dir) continue;
        *nrows += t->recs[r].np;
        if (dir != 2) continue;
        char opn[4096];
        snprintf(opn, sizeof opn, "%.*s", (int)cut, name);
        int32_t *c = util_smap_slot(&bw, opn, 1);
        if (!c) {
            util_smap_free(&bw);
            free(*ord);
            *ord = NULL;
            return -1;
        }
        int32_t order = *c < 0 ? 0 : *c;
        (*ord)[r] = order;
        *c = order + 1;
    }
    util_smap_free(&bw);
    return 0;
}

/* Appends record r's rows to s (ordr: its place, not ORD_SKIP), params by
 * state (inputs, outputs, ...) as msProbe lists them; with renumber, a
 * backward row's name is composed in nb to see whether its key differs.
 * 0, or -1 out of memory. */
static int side_rec_rows(struct tside *s, size_t r, int32_t ordr, int renumber, struct tree_pn *nb) {
    const struct tree *t = s->t;
    const struct trec *rc = &t->recs[r];
    char key[KEY_MAX];
    for (int st = 0; st < 4; st++)
        for (uint32_t i = 0; i < rc->np; i++) {
            const struct tparam *p = &t->params[rc->p0 + i];
            if (p->state != st) continue;
            uint32_t koff = KEY_IS_NAME;
            if (ordr >= 0 && renumber) {   /* most backward calls keep their number: then the key is the name */
                const char *pn = tree_pname_r(t, (int)r, p, nb);
                if (!pn) return -1;
                if (renum_key(t, (int)r, pn, ordr, key, sizeof key) == 0 && strcmp(key, pn)) koff = (uint32_t)ordr;
            }
            if (s->n == s->cap) {
                size_t nc = s->cap ? s->cap * 2 : 64;
                struct join_row *nv = realloc(s->v, nc * sizeof *nv);
                if (!nv) return -1;
                s->v = nv;
                s->cap = nc;
            }
            s->v[s->n].p = (int32_t)(rc->p0 + i);
            s->v[s->n].rec = (int32_t)r;
            s->v[s->n].koff = koff;
            s->n++;
        }
    return 0;
}

/* Every row of tree t, in dump order, into s, keyed by their names (the
 * fuzzy join's sides). */
static int build_side(const struct tree *t, struct tside *s, struct pt_error *err) {
    memset(s, 0, sizeof *s);
    s->t = t;
    int32_t *ord = NULL;
    size_t nrows = 0;
    struct tree_pn nb = {0};
    if (side_orders(t, &ord, &nrows) != 0) goto oom;
    /* sized once: no doubling's spare half while the join lives */
    if (nrows && !(s->v = malloc(nrows * sizeof *s->v))) goto oom;
    s->cap = nrows;
    for (size_t r = 0; r < t->nrecs; r++)
        if (ord[r] != ORD_SKIP && side_rec_rows(s, r, ord[r], 0, &nb) != 0) goto oom;
    free(ord);
    tree_pn_free(&nb);
    return 0;
oom:
    free(ord);
    tree_pn_free(&nb);
    tside_free(s);
    memset(s, 0, sizeof *s);
    return pt_errorf(err, "out of memory");
}

static int float_group(const char *d) {
    if (!d) return 0;
    if (!strcmp(d, "Float16") || !strcmp(d, "Float32") || !strcmp(d, "BFloat16")) return 1;
    if (!strcmp(d, "torch.float16") || !strcmp(d, "torch.float32") || !strcmp(d, "torch.bfloat16")) return 2;
    return 0;
}

static int dtype_gate(const struct tree *a, const struct tparam *p, const struct tree *b, const struct tparam *q) {
    const char *x = tree_s(a, p->dtype), *y = tree_s(b, q->dtype);
    if (!x) x = "None";
    if (!y) y = "None";
    if (!strcmp(x, y)) return 1;
    int gx = float_group(x), gy = float_group(y);
    return gx && gx == gy;
}

/* msProbe's rename_api for fuzzy table matching. */
static void rename_api(const char *name, char *out, size_t size) {
    if (!name) name = "";   /* (a name that could not be composed: out of memory) */
    const char *proc = strstr(name, "forward") ? "forward" : strstr(name, "backward") ? "backward" : NULL;
    if (!proc) { snprintf(out, size, "%s", name); return; }
    const char *at = strstr(name, proc);
    size_t pl = strlen(proc);
    const char *rest = at + pl;
    const char *next = strstr(rest, proc);
    size_t restlen = next ? (size_t)(next - rest) : strlen(rest);
    /* left part rsplit('.', 2)[0] */
    size_t left = (size_t)(at - name);
    int dots = 0;
    size_t cut = left;
    for (size_t i = left; i-- > 0;) {
        if (name[i] == '.') {
            dots++;
            cut = i;
            if (dots == 2) break;
        }
    }
    if (dots < 2) cut = dots == 1 ? cut : left;
    snprintf(out, size, "%.*s.%s%.*s", (int)cut, name, proc, (int)restlen, rest);
}

struct tctx { const struct cmp_table *t; struct tree_pn *na, *nb; };   /* names composed in na, nb */

static void table_sides(const void *ctx, const struct crow *r, struct side *a, struct side *b) {
    const struct tctx *c = ctx;
    const struct cmp_table *t = c->t;
    const struct tparam *p = &t->npu->params[r->np];
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->tree = t->npu;
    a->name = tree_pname_r(t->npu, r->rec, p, c->na);
    a->dtype = p->dtype == TREE_NONE ? "None" : tree_s(t->npu, p->dtype);
    a->shape = p->shape == TREE_NONE ? "None" : tree_s(t->npu, p->shape);
    a->rg = cmp_param_rg(t->npu, p);
    if (!a->rg) a->rg = "N/A";
    a->md5 = p->md5 == TREE_NONE ? "N/A" : tree_s(t->npu, p->md5);
    a->max = tree_stat(t->npu, p, 0);
    a->min = tree_stat(t->npu, p, 1);
    a->stats = 1;
    b->tree = t->bench;
    if (r->bp >= 0) {
        const struct tparam *q = &t->bench->params[r->bp];
        b->name = tree_pname_r(t->bench, r->brec, q, c->nb);
        b->dtype = q->dtype == TREE_NONE ? "None" : tree_s(t->bench, q->dtype);
        b->shape = q->shape == TREE_NONE ? "None" : tree_s(t->bench, q->shape);
        b->rg = cmp_param_rg(t->bench, q);
        if (!b->rg) b->rg = "N/A";
        b->md5 = q->md5 == TREE_NONE ? "N/A" : tree_s(t->bench, q->md5);
        b->max = tree_stat(t->bench, q, 0);
        b->min = tree_stat(t->bench, q, 1);
        b->stats = 1;
    } else {
        b->name = b->dtype = b->shape = b->rg = b->md5 = "N/A";
    }
}

static int table_add(struct cmp_table *t, const struct join_row *nr, int32_t bp, int32_t brec) {
    struct crow r;
    memset(&r, 0, sizeof r);
    r.np = nr->p;
    r.rec = nr->rec;
    r.bp = bp;
    r.brec = bp >= 0 ? brec : -1;
    const struct tparam *p = &t->npu->params[nr->p];
    struct tree_pn nb = {0};
    const char *pn = tree_pname_r(t->npu, nr->rec, p, &nb);
    r.output = pn && strstr(pn, ".output.") != NULL;
    tree_pn_free(&nb);
    const struct tparam *q = bp >= 0 ? &t->bench->params[bp] : NULL;
    if (t->mode == CMP_TENSOR) {
        /* a row without a Bench match has Bench data_name N/A */
        const char *qd = q ? tree_s(t->bench, q->data_name) : "N/A";
        cmp_tensor_row(&t->opts, t->npu, p, t->bench, q, qd ? qd : "-1", &r, &t->tensor_failed, t->tensor_err,
                   sizeof t->tensor_err);
    } else
        for (int s = 0; s < 4; s++) {
            struct tval x = tree_stat(t->npu, p, s), y = q ? tree_stat(t->bench, q, s) : x;
            cmp_table_stat(t->npu, &x, t->bench, &y, q == NULL, &r.diff[s], &r.rel[s]);
        }
    const char *x = cmp_param_rg(t->npu, p), *y = q ? cmp_param_rg(t->bench, q) : "N/A";
    if (!x) x = "N/A";
    if (!y) y = "N/A";
    r.rg_consistent = !strcmp(x, y);
    return cmp_add_row(&t->rows, &t->nrows, &t->caprows, &r);
}

/* The join's state between blocks of rows (cmp_table_open / _next). */
struct bkmap {            /* benchmark join key -> its first row's param, sized once */
    uint32_t *h;          /* hash, 0 empty */
    int32_t *row;         /* the param; its key is composed again when read */
    size_t cap;           /* a power of two, at least 1.5 times the rows */
};

/* The exact and mapped joins walk the problem side a record at a time (a
 * holds that record's rows, aord every record's place) and keep of the
 * benchmark only its key map and every record's place (bord): at the
 * 8.5 MB pair, rows kept whole for both sides were 390 kB at the csv's
 * peak.  The fuzzy join's walk reaches anywhere ahead: it keeps both
 * sides' rows whole (a and b). */
struct cmp_tjoin {
    struct tside a, b;
    struct bkmap bk;
    struct tree_pn ka, kb;   /* a problem row's and a benchmark row's key composed */
    int32_t *aord, *bord; /* exact: each record's place (side_orders) */
    size_t arec;          /* exact: the problem record read next */
    size_t next;          /* the row of a the next block starts at */
    size_t an;            /* the problem side's rows in all */
    int fuzzy, mapped, done;
};

/* The join key of benchmark param p of record *rec (in the key map; *rec
 * < 0: found here).  Mapped names are the benchmark's own row names: they
 * join on those, not on the renumbered backward keys.  (A backward row's
 * key is composed again even when it equals its name: the same text.) */
static const char *bk_key(struct cmp_tjoin *j, int32_t p, int *recp) {
    const struct tree *t = j->b.t;
    if (*recp < 0) *recp = tree_param_rec(t, &t->params[p]);
    int rec = *recp;
    if (rec < 0) return NULL;
    struct join_row r = {p, rec, !j->mapped && j->bord[rec] >= 0 ? (uint32_t)j->bord[rec] : KEY_IS_NAME};
    return join_key(&j->b, &r, &j->kb);
}

static uint32_t bk_hash(const char *k) {
    uint32_t h = (uint32_t)util_hash_str(k);
    return h ? h : 1;
}

/* The param of key k (*rec its record), or -1 with *at the empty slot it
 * would take and *h the key's hash. */
static int32_t bk_find(struct cmp_tjoin *j, const char *k, size_t *at, uint32_t *hp, int *rec) {
    if (!j->bk.cap) return -1;
    uint32_t h = bk_hash(k);
    *hp = h;
    size_t mask = j->bk.cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        if (!j->bk.h[i]) {
            *at = i;
            return -1;
        }
        if (j->bk.h[i] != h) continue;
        *rec = -1;
        const char *c = bk_key(j, j->bk.row[i], rec);
        if (c && !strcmp(c, k)) return j->bk.row[i];
    }
}

static void tjoin_free(struct cmp_tjoin *j) {
    if (!j) return;
    free(j->bk.h);
    free(j->bk.row);
    tree_pn_free(&j->ka);
    tree_pn_free(&j->kb);
    tside_free(&j->a);
    tside_free(&j->b);
    free(j->aord);
    free(j->bord);
    free(j);
}

/* The benchmark's key map: each key's first row (in dump order) wins.
 * (msProbe joins mapped names with the renumbered keys and so pairs
 * backward rows of different calls whenever the renumbering changed a
 * call count; here they join on the benchmark's own row names.)  0, or
 * -1 out of memory. */
static int bk_build(struct cmp_tjoin *j) {
    size_t nb = 0;
    if (side_orders(j->b.t, &j->bord, &nb) != 0) return -1;
    /* at most two thirds full: linear probing stays short, and at the
     * 8.5 MB pair (16 306 benchmark rows) the map is 256 kB, not the
     * 512 kB a half-full bound gave, at the csv's peak */
    size_t cap = 64;
    while (cap < nb + nb / 2) cap *= 2;
    j->bk.h = calloc(cap, sizeof *j->bk.h);
    j->bk.row = malloc(cap * sizeof *j->bk.row);
    j->bk.cap = cap;
    if (!j->bk.h || !j->bk.row) return -1;
    struct tside *b = &j->b;   /* one record's rows at a time */
    for (size_t r = 0; r < b->t->nrecs; r++) {
        if (j->bord[r] == ORD_SKIP) continue;
        b->n = 0;
        if (side_rec_rows(b, r, j->bord[r], 0, &j->kb) != 0) return -1;   /* keys: bk_key */
        for (size_t i = 0; i < b->n; i++) {
            size_t at = 0;
            uint32_t h = 0;
            /* the key is copied: bk_find composes the rows it meets in kb */
            int rec = (int)r, brec;
            const char *k = bk_key(j, b->v[i].p, &rec);
            if (!k || util_grow((void **)&j->ka.b, &j->ka.cap, strlen(k) + 1, 1) != 0) return -1;
            memcpy(j->ka.b, k, strlen(k) + 1);
            if (bk_find(j, j->ka.b, &at, &h, &brec) < 0) {
                j->bk.h[at] = h;
                j->bk.row[at] = b->v[i].p;
            }
        }
    }
    tside_free(b);
    b->v = NULL;
    b->n = b->cap = 0;
    return 0;
}

int cmp_table_open(const struct tree *npu, const struct tree *bench, const struct cmp_opts *o,
                   struct cmp_table **out, struct pt_error *err) {
    *out = NULL;
    int mode = cmp_mode_of(npu, bench, err);
    if (mode < 0) return -1;
    struct cmp_table *t = calloc(1, sizeof *t);
    struct cmp_tjoin *j = calloc(1, sizeof *j);
    if (!t || !j) {
        free(t);
        free(j);
        return pt_errorf(err, "out of memory");
    }
    t->join = j;
    t->npu = npu;
    t->bench = bench;
    t->mode = mode == CMP_TENSOR && !(o && o->tensor) ? CMP_SUMMARY : (enum cmp_mode)mode;
    if (o) t->opts = *o;
    /* msProbe's compare adds the column whenever the problem side has a
     * stack.json, an empty one included (its rows then say N/A) */
    t->has_stack = npu->nstacks > 0 || npu->stack_file;
    j->fuzzy = o && o->fuzzy;
    /* a name map (layer mapping) is msProbe's data mapping: it wins over
     * fuzzy matching, joins on the mapped name and skips the dtype gate */
    j->mapped = o && o->map;
    if (j->fuzzy && !j->mapped) {
        if (build_side(npu, &j->a, err) != 0 || build_side(bench, &j->b, err) != 0) {
            cmp_table_free(t);
            return -1;
        }
        j->an = j->a.n;
    } else {
        j->a.t = npu;
        j->b.t = bench;
        if (side_orders(npu, &j->aord, &j->an) != 0 || bk_build(j) != 0) {
            cmp_table_free(t);
            return pt_errorf(err, "out of memory");
        }
    }
    *out = t;
    return 0;
}

/* The next problem record's rows with any into j->a (none left: j->a.n
 * is 0).  0, or -1 out of memory. */
static int next_arec(struct cmp_tjoin *j) {
    const struct tree *npu = j->a.t;
    j->a.n = j->next = 0;
    while (j->arec < npu->nrecs && !j->a.n) {
        size_t r = j->arec++;
        if (j->aord[r] != ORD_SKIP && side_rec_rows(&j->a, r, j->aord[r], !j->fuzzy, &j->ka) != 0) return -1;
    }
    return 0;
}

/* The exact (or mapped) join of the problem rows from j->next on, whole
 * dump entries, until at least want rows were added. */
static int join_exact(struct cmp_table *t, size_t want) {
    struct cmp_tjoin *j = t->join;
    const struct tree *npu = t->npu, *bench = t->bench;
    const struct cmp_opts *o = &t->opts;
    size_t added = 0;
    for (;; j->next++) {
        if (j->next == j->a.n) {   /* a record's rows joined: a block may end here */
            if (added >= want) return 0;
            if (next_arec(j) != 0) return -1;
            if (!j->a.n) break;
        }
        size_t i = j->next;
        const char *k = join_key(&j->a, &j->a.v[i], &j->ka);
        if (!k) return -1;
        char mk[8400];
        if (j->mapped) {
            /* the entry map made a row map: the mapped entry's row with
             * the same suffix (".input.0"); an entry mapped to "N/A"
             * finds none, an entry not in the map keeps its own name */
            const char *pn = tree_pname_r(npu, j->a.v[i].rec, &npu->params[j->a.v[i].p], &j->ka);
            if (!pn) return -1;
            const char *en = tree_s(npu, npu->recs[j->a.v[i].rec].name);
            const char *m = o->map(o->map_ctx, en);
            size_t el = strlen(en);
            if (m) {
                snprintf(mk, sizeof mk, "%s%s", m, strncmp(pn, en, el) ? "" : pn + el);
                k = mk;
            } else k = pn;
        }
        size_t at = 0;
        uint32_t h = 0;
        int brec = -1;
        int32_t bp = bk_find(j, k, &at, &h, &brec);
        if (bp >= 0 && !j->mapped && !dtype_gate(npu, &npu->params[j->a.v[i].p], bench, &bench->params[bp]))
            bp = -1;
        if (table_add(t, &j->a.v[i], bp, brec) != 0) return -1;
        added++;
    }
    j->done = 1;
    return 0;
}

/* The two-queue walk of msProbe's fuzzy match: the whole table at once
 * (a row's partner can lie anywhere ahead). */
static int join_fuzzy(struct cmp_table *t) {
    struct cmp_tjoin *j = t->join;
    const struct tside *a = &j->a, *b = &j->b;
    const struct tree *npu = t->npu, *bench = t->bench;
    size_t *nq = malloc((a->n + 1) * sizeof *nq), *bq = malloc((b->n + 1) * sizeof *bq);
    size_t nn = 0, bn = 0;
    char x[4200], y[4200];
    int rc = -1;
    if (!nq || !bq) goto out;
    size_t maxl = a->n > b->n ? a->n : b->n;
    for (size_t i = 0; i < maxl; i++) {
        if (i < a->n) nq[nn++] = i;
        if (i < b->n) bq[bn++] = i;
        if ((nn > 0) != (bn > 0)) break;
        long hn = -1, hb = -1;
        rename_api(join_key(a, &a->v[nq[nn - 1]], &j->ka), x, sizeof x);
        for (size_t k = 0; k + 1 < bn && hn < 0; k++) {
            rename_api(join_key(b, &b->v[bq[k]], &j->ka), y, sizeof y);
            if (!strcmp(x, y)) { hn = (long)nn - 1; hb = (long)k; }
        }
        if (hn < 0) {
            rename_api(join_key(b, &b->v[bq[bn - 1]], &j->ka), y, sizeof y);
            if (!strcmp(x, y)) { hn = (long)nn - 1; hb = (long)bn - 1; }
        }
        if (hn < 0) {
            rename_api(join_key(b, &b->v[bq[bn - 1]], &j->ka), y, sizeof y);
            for (size_t k = 0; k + 1 < nn && hn < 0; k++) {
                rename_api(join_key(a, &a->v[nq[k]], &j->ka), x, sizeof x);
                if (!strcmp(x, y)) { hn = (long)k; hb = (long)bn - 1; }
            }
        }
        if (hn < 0) continue;
        for (long k = 0; k < hn; k++)
            if (table_add(t, &a->v[nq[k]], -1, -1) != 0) goto out;
        int32_t bp = b->v[bq[hb]].p;
        if (!dtype_gate(npu, &npu->params[a->v[nq[hn]].p], bench, &bench->params[bp])) bp = -1;
        if (table_add(t, &a->v[nq[hn]], bp, b->v[bq[hb]].rec) != 0) goto out;
        memmove(nq, nq + hn + 1, (nn - (size_t)hn - 1) * sizeof *nq);
        nn -= (size_t)hn + 1;
        memmove(bq, bq + hb + 1, (bn - (size_t)hb - 1) * sizeof *bq);
        bn -= (size_t)hb + 1;
    }
    for (size_t k = 0; k < nn; k++)
        if (table_add(t, &a->v[nq[k]], -1, -1) != 0) goto out;
    rc = 0;
    j->done = 1;
out:
    free(nq);
    free(bq);
    return rc;
}

/* Joins the next rows after the ones t->rows holds (keep: after them,
 * else in their place), judges them per dump entry and counts them. */
static long join_more(struct cmp_table *t, size_t want, int keep, struct pt_error *err) {
    struct cmp_tjoin *j = t->join;
    if (!j || j->done) {
        if (!keep) t->nrows = 0;
        return 0;
    }
    if (!keep) t->nrows = 0;
    size_t start = t->nrows;
    int rc = j->fuzzy && !j->mapped ? join_fuzzy(t) : join_exact(t, want);
    if (rc != 0) return pt_errorf(err, "out of memory");
    /* verdicts per dump entry: a block holds whole entries */
    struct tree_pn na = {0}, nb = {0};
    struct tctx ctx = {t, &na, &nb};
    for (size_t i = start; i < t->nrows;) {
        size_t k = i;
        while (k < t->nrows && t->rows[k].rec == t->rows[i].rec) k++;
        cmp_apply_rules(t->rows + i, k - i, t->mode, table_sides, &ctx);
        i = k;
    }
    tree_pn_free(&na);
    tree_pn_free(&nb);
    for (size_t i = start; i < t->nrows; i++) t->counts[t->rows[i].level]++;
    t->nall += t->nrows - start;
    /* the last rows made: the join's sides and key map (about 40 bytes a
     * row) go now, not with the table, so that the graph compare still
     * running and the report take that memory (the rows point at none) */
    if (j->done) {
        tjoin_free(j);
        t->join = NULL;
    }
    return (long)(t->nrows - start);
}

long cmp_table_next(struct cmp_table *t, size_t want, struct pt_error *err) {
    if (!t->caprows && t->join && t->join->an) {
        /* one block's rows, reused for every block (grown only by an entry
         * with more params than the block) */
        size_t cap = want < t->join->an ? want + 64 : t->join->an;
        if (!(t->rows = bigmem_realloc(NULL, cap * sizeof *t->rows))) return pt_errorf(err, "out of memory");
        t->caprows = cap;
    }
    return join_more(t, want ? want : 1, 0, err);
}

int cmp_table_new(const struct tree *npu, const struct tree *bench, const struct cmp_opts *o,
                  struct cmp_table **out, struct pt_error *err) {
    struct cmp_table *t;
    if (cmp_table_open(npu, bench, o, &t, err) != 0) return -1;
    /* one row per problem param: sized once rather than doubled */
    if (t->join->an && !(t->rows = bigmem_realloc(NULL, t->join->an * sizeof *t->rows))) {
        cmp_table_free(t);
        return pt_errorf(err, "out of memory");
    }
    t->caprows = t->join->an;
    if (join_more(t, SIZE_MAX, 1, err) < 0) {
        cmp_table_free(t);
        return -1;
    }
    tjoin_free(t->join);
    t->join = NULL;
    *out = t;
    return 0;
}

void cmp_table_free(struct cmp_table *t) {
    if (!t) return;
    tjoin_free(t->join);
    free(t->rows);
    free(t);
}
