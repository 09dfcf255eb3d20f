/* tree_pname: param names stored as (record, suffix); see tree.h. */
#include "model/graph/tree.h"

#include <stdlib.h>
#include <string.h>

void tree_pn_free(struct tree_pn *nb) {
    free(nb->b);
    nb->b = NULL;
    nb->cap = 0;
}

char *tree_pn_room(struct tree_pn *nb, size_t n) {
    if (!nb->b && n <= sizeof nb->small) return nb->small;
    if (n > nb->cap) {
        size_t nc = nb->cap ? nb->cap : 256;
        while (nc < n) nc *= 2;
        char *b = realloc(nb->b, nc);
        if (!b) return NULL;
        nb->b = b;
        nb->cap = nc;
    }
    return nb->b;
}

int tree_param_rec(const struct tree *t, const struct tparam *p) {
    if (!t->nparams || p < t->params || p >= t->params + t->nparams) return -1;
    uint32_t i = (uint32_t)(p - t->params);
    /* the last record whose params start at or before i: records are added
     * in order with their params right after them, so p0 never decreases */
    size_t lo = 0, hi = t->nrecs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->recs[mid].p0 <= i) lo = mid + 1;
        else hi = mid;
    }
    if (!lo) return -1;
    const struct trec *r = &t->recs[lo - 1];
    return i - r->p0 < r->np ? (int)(lo - 1) : -1;
}

const char *tree_pname_r(const struct tree *t, int rec, const struct tparam *p, struct tree_pn *nb) {
    const char *s = tree_s(t, p->name);
    if (!s) return NULL;
    if (*s == TREE_PN_OWN) return s + 1;
    if (*s != TREE_PN_SFX) return s;
    if (rec < 0 || (size_t)rec >= t->nrecs) return NULL;
    const char *rn = tree_s(t, t->recs[rec].name);
    size_t rl = strlen(rn), sl = strlen(s + 1);
    char *o = tree_pn_room(nb, rl + sl + 1);
    if (!o) return NULL;
    memcpy(o, rn, rl);
    memcpy(o + rl, s + 1, sl + 1);
    return o;
}

const char *tree_pname(const struct tree *t, const struct tparam *p, struct tree_pn *nb) {
    const char *s = tree_s(t, p->name);
    if (s && *s == TREE_PN_SFX) return tree_pname_r(t, tree_param_rec(t, p), p, nb);
    return tree_pname_r(t, -1, p, nb);
}

int tree_pname_eq(const struct tree *t, int rec, const struct tparam *p, const char *x, size_t len) {
    const char *s = tree_s(t, p->name);
    if (!s) return 0;
    if (*s == TREE_PN_SFX) {
        if (rec < 0 || (size_t)rec >= t->nrecs) return 0;
        const char *rn = tree_s(t, t->recs[rec].name);
        size_t rl = strlen(rn);
        s++;
        if (len < rl || memcmp(x, rn, rl) != 0) return 0;
        x += rl;
        len -= rl;
    } else if (*s == TREE_PN_OWN) s++;
    return strlen(s) == len && memcmp(s, x, len) == 0;
}

char tree_pname_mark(const struct tree *t, int rec, const char *full, size_t len, size_t *skip) {
    *skip = 0;
    if (rec >= 0 && (size_t)rec < t->nrecs) {
        const char *rn = tree_s(t, t->recs[rec].name);
        size_t rl = strlen(rn);
        if (len >= rl && !memcmp(full, rn, rl)) {
            *skip = rl;
            return TREE_PN_SFX;
        }
    }
    return len && (full[0] == TREE_PN_SFX || full[0] == TREE_PN_OWN) ? TREE_PN_OWN : 0;
}

const char *tree_pname_after(const struct tree *t, const struct tparam *p, const char *id, size_t il) {
    const char *s = tree_s(t, p->name);
    if (!s) return NULL;
    if (*s == TREE_PN_SFX) {
        int r = tree_param_rec(t, p);
        if (r < 0) return NULL;
        const char *rn = tree_s(t, t->recs[r].name);
        size_t rl = strlen(rn);
        if (il < rl || memcmp(rn, id, rl) != 0) return NULL;
        s++;
        size_t k = il - rl;
        return strncmp(s, id + rl, k) ? NULL : s + k;
    }
    if (*s == TREE_PN_OWN) s++;
    return strncmp(s, id, il) ? NULL : s + il;
}

const char *tree_pname_whole(const struct tree *t, const struct tparam *p) {
    const char *s = tree_s(t, p->name);
    if (!s || *s == TREE_PN_SFX) return NULL;
    return *s == TREE_PN_OWN ? s + 1 : s;
}
