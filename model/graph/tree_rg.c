/* tree_rg: a param's rare fields in side tables, by param index: its
 * requires_grad as one byte, with the values that are no bool beside; a
 * communication op's group id and op; the texts of its int stats; see
 * tree.h. */
#include "model/graph/tree.h"

#include "model/util/util.h"

#include <stddef.h>
#include <string.h>

/* The entry of param index i in a side table (rgx or commx: n entries of
 * size bytes, in param order, each starting with its param), or NULL. */
static const void *side_find(const void *tab, size_t n, size_t size, uint32_t i) {
    const char *b = tab;
    size_t lo = 0, hi = n;
    uint32_t k;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        memcpy(&k, b + mid * size, sizeof k);
        if (k < i) lo = mid + 1;
        else hi = mid;
    }
    if (lo == n) return NULL;
    memcpy(&k, b + lo * size, sizeof k);
    return k == i ? b + lo * size : NULL;
}
_Static_assert(offsetof(struct tree_rgx, param) == 0 && offsetof(struct tree_commx, param) == 0 &&
                   offsetof(struct tree_stx, param) == 0,
               "side_find reads a side table's param first");

struct tval tree_rg_get(const struct tree *t, const struct tparam *p) {
    struct tval v;
    memset(&v, 0, sizeof v);
    v.kind = TV_NONE;
    if (p->req_grad == TREE_RG_FALSE || p->req_grad == TREE_RG_TRUE) {
        v.kind = TV_BOOL;
        v.integer = p->req_grad == TREE_RG_TRUE;
    } else if (p->req_grad == TREE_RG_OTHER && t->nparams && p >= t->params && p < t->params + t->nparams) {
        const struct tree_rgx *x = side_find(t->rgx, t->nrgx, sizeof *t->rgx, (uint32_t)(p - t->params));
        if (x) v = x->v;
    }
    return v;
}

int tree_rg_set(struct tree *t, struct tparam *p, const struct tval *v) {
    if (v->kind == TV_NONE) {
        p->req_grad = TREE_RG_NONE;
        return 0;
    }
    if (v->kind == TV_BOOL) {
        p->req_grad = v->integer ? TREE_RG_TRUE : TREE_RG_FALSE;
        return 0;
    }
    if (!t->nparams || p < t->params || p >= t->params + t->nparams) return -1;
    uint32_t i = (uint32_t)(p - t->params);
    /* params are filled in order: an entry goes at the end, else in its place */
    size_t at = t->nrgx;
    while (at && t->rgx[at - 1].param > i) at--;
    if (at && t->rgx[at - 1].param == i) {
        t->rgx[at - 1].v = *v;
        p->req_grad = TREE_RG_OTHER;
        return 0;
    }
    if (UTIL_PUSH(t->rgx, t->nrgx, t->caprgx) != 0) return -1;
    memmove(t->rgx + at + 1, t->rgx + at, (t->nrgx - at) * sizeof *t->rgx);
    t->rgx[at].param = i;
    t->rgx[at].v = *v;
    t->nrgx++;
    p->req_grad = TREE_RG_OTHER;
    return 0;
}

static const struct tree_commx *commx_find(const struct tree *t, const struct tparam *p) {
    if (!p->comm || !t->nparams || p < t->params || p >= t->params + t->nparams) return NULL;
    return side_find(t->commx, t->ncommx, sizeof *t->commx, (uint32_t)(p - t->params));
}

uint32_t tree_comm_gid(const struct tree *t, const struct tparam *p) {
    const struct tree_commx *x = commx_find(t, p);
    return x ? x->group_id : TREE_NONE;
}

uint32_t tree_comm_p2p(const struct tree *t, const struct tparam *p) {
    const struct tree_commx *x = commx_find(t, p);
    return x ? x->p2p_op : TREE_NONE;
}

int tree_comm_set(struct tree *t, size_t i, uint32_t group_id, uint32_t p2p_op) {
    if (i >= t->capparams || i >= UINT32_MAX) return -1;
    /* params are filled in order: an entry goes at the end, else in its place */
    size_t at = t->ncommx;
    while (at && t->commx[at - 1].param > i) at--;
    if (!(at && t->commx[at - 1].param == i)) {
        if (group_id == TREE_NONE && p2p_op == TREE_NONE) {
            t->params[i].comm = 0;
            return 0;
        }
        if (UTIL_PUSH(t->commx, t->ncommx, t->capcommx) != 0) return -1;
        memmove(t->commx + at + 1, t->commx + at, (t->ncommx - at) * sizeof *t->commx);
        t->ncommx++;
        at++;
    }
    t->commx[at - 1] = (struct tree_commx){(uint32_t)i, group_id, p2p_op};
    t->params[i].comm = 1;
    return 0;
}

uint32_t tree_stat_itext(const struct tree *t, const struct tparam *p, int k) {
    if (!t->nparams || p < t->params || p >= t->params + t->nparams) return TREE_NONE;
    const struct tree_stx *x = side_find(t->stx, t->nstx, sizeof *t->stx, (uint32_t)(p - t->params));
    return x ? x->text[k] : TREE_NONE;
}

int tree_stat_set(struct tree *t, size_t i, int k, const struct tval *v) {
    if (i >= t->capparams || i >= UINT32_MAX || k < 0 || k > 3) return -1;
    struct tparam *p = &t->params[i];
    int sk = SK_NONE;
    union tstat u = {.integer = 0};
    switch (v->kind) {
    case TV_FLOAT: sk = SK_FLOAT; u.real = v->real; break;
    case TV_BOOL: sk = SK_BOOL; u.integer = v->integer; break;
    case TV_STR: sk = v->is_repr ? SK_REPR : SK_STR; u.text = v->text; break;
    case TV_INT: sk = SK_INT; u.integer = v->integer; break;
    default: break;
    }
    /* params are filled in order: an entry goes at the end, else in its place */
    size_t at = t->nstx;
    while (at && t->stx[at - 1].param > i) at--;
    int has = at && t->stx[at - 1].param == i;
    if (sk == SK_INT && !has) {
        if (UTIL_PUSH(t->stx, t->nstx, t->capstx) != 0) return -1;
        memmove(t->stx + at + 1, t->stx + at, (t->nstx - at) * sizeof *t->stx);
        t->stx[at] = (struct tree_stx){(uint32_t)i, {TREE_NONE, TREE_NONE, TREE_NONE, TREE_NONE}};
        t->nstx++;
        at++;
        has = 1;
    }
    if (has) t->stx[at - 1].text[k] = sk == SK_INT ? v->text : TREE_NONE;
    p->sv[k] = u;
    p->skind = (uint16_t)((p->skind & ~(15u << (4 * k))) | ((unsigned)sk << (4 * k)));
    return 0;
}

/* a few hundred thousand params per tree: the struct stays at 64 bytes */
_Static_assert(sizeof(struct tparam) <= 64, "struct tparam grew past 64 bytes");
