/* tree_fit: see tree.h. */
#include "model/graph/tree.h"

#include <stdlib.h>

/* The array at *p of *cap elements cut to n (kept as it is when n is 0 or
 * the smaller block cannot be had). */
static void fit(void **p, size_t *cap, size_t n, size_t elem) {
    if (!*p || !n || n >= *cap) return;
    void *q = realloc(*p, n * elem);
    if (!q) return;
    *p = q;
    *cap = n;
}

void tree_fit_params(struct tree *t) {
    fit((void **)&t->recs, &t->caprecs, t->nrecs, sizeof *t->recs);
    fit((void **)&t->params, &t->capparams, t->nparams, sizeof *t->params);
}

void tree_fit(struct tree *t) {
    tree_fit_params(t);
    /* with a little room: tree_build adds a few names (DefaultModel, the
     * API collections), and a pool cut to the byte would double for them,
     * its old copy left behind as free heap beside the new */
    fit((void **)&t->pool, &t->pcap, t->plen + t->plen / 32 + 4096, 1);
}
