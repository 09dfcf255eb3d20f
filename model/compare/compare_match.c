/* compare_match: the graph compare's matching (probetop-rules(7)):
 * problem nodes to benchmark nodes (exact, fuzzy, name map, manual), the
 * rows of every matched pair, and the first-divergence queries. */
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


/* ---- graph compare ---- */

struct gctx { const struct cmp_graph *g; struct tree_pn *na, *nb; };   /* names composed in na, nb */

static void graph_sides(const void *ctx, const struct crow *r, struct side *a, struct side *b) {
    const struct gctx *c = ctx;
    const struct cmp_graph *g = c->g;
    const struct tparam *p = &g->npu->params[r->np];
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->tree = g->npu;
    a->name = tree_pname_r(g->npu, r->rec, p, c->na);
    a->dtype = tree_s(g->npu, p->dtype);
    a->shape = tree_s(g->npu, p->shape);
    a->rg = cmp_param_rg(g->npu, p);
    a->md5 = tree_s(g->npu, p->md5);
    a->max = tree_stat(g->npu, p, 0);
    a->min = tree_stat(g->npu, p, 1);
    a->stats = 1;
    b->tree = g->bench;
    if (r->bp >= 0) {
        const struct tparam *q = &g->bench->params[r->bp];
        b->name = tree_pname_r(g->bench, r->brec, q, c->nb);
        b->dtype = tree_s(g->bench, q->dtype);
        b->shape = tree_s(g->bench, q->shape);
        b->rg = cmp_param_rg(g->bench, q);
        b->md5 = tree_s(g->bench, q->md5);
        b->max = tree_stat(g->bench, q, 0);
        b->min = tree_stat(g->bench, q, 1);
        b->stats = 1;
    } else {
        /* extra NPU param: the Bench side holds the text "Nan" everywhere */
        b->name = b->dtype = b->shape = b->rg = b->md5 = "Nan";
    }
}

/* Rows of a matched pair (probetop-rules(7), MATCHING: Graph matching), appended at the end of g->rows. */
static int pair_rows(struct cmp_graph *g, int a, int b) {
    uint32_t na, nb;
    const struct tparam *pa = tree_params(g->npu, a, &na), *pb = tree_params(g->bench, b, &nb);
    uint32_t pa0 = na ? (uint32_t)(pa - g->npu->params) : 0, pb0 = nb ? (uint32_t)(pb - g->bench->params) : 0;
    size_t start = g->nrows;
    uint32_t seen[4] = {0, 0, 0, 0};
    struct tree_pn nbuf = {0};
    for (uint32_t i = 0; i < na; i++) {
        const struct tparam *p = &pa[i];
        struct crow r;
        memset(&r, 0, sizeof r);
        r.np = (int32_t)(pa0 + i);
        r.bp = -1;
        r.brec = -1;
        r.rec = g->npu->nodes[a].rec;
        const char *pn = tree_pname_r(g->npu, r.rec, p, &nbuf);
        r.output = pn && strstr(pn, ".output.") != NULL;
        uint32_t k = seen[p->state & 3]++, m = 0;
        for (uint32_t j = 0; j < nb; j++)
            if (pb[j].state == p->state && m++ == k) {
                r.bp = (int32_t)(pb0 + j);
                r.brec = g->bench->nodes[b].rec;
                break;
            }
        if (r.bp >= 0) {
            const struct tparam *q = &g->bench->params[r.bp];
            if (g->mode == CMP_TENSOR) {
                const char *qd = tree_s(g->bench, q->data_name);
                cmp_tensor_row(&g->opts, g->npu, p, g->bench, q, qd ? qd : "-1", &r, &g->tensor_failed,
                           g->tensor_err, sizeof g->tensor_err);
            } else
                for (int s = 0; s < 4; s++) {
                    struct tval x = tree_stat(g->npu, p, s), y = tree_stat(g->bench, q, s);
                    cmp_graph_stat(&x, &y, &r.diff[s], &r.rel[s]);
                }
            const char *x = cmp_param_rg(g->npu, p), *y = cmp_param_rg(g->bench, q);
            r.rg_consistent = (!x && !y) || (x && y && !strcmp(x, y));
        } else {
            r.placeholder = 1;
            /* the Bench side of an extra NPU param has data_name "-1" */
            if (g->mode == CMP_TENSOR)
                cmp_tensor_row(&g->opts, g->npu, p, g->bench, NULL, "-1", &r, &g->tensor_failed, g->tensor_err,
                           sizeof g->tensor_err);
            else
                for (int s = 0; s < 4; s++) r.diff[s].kind = r.rel[s].kind = CV_BLANK;
            r.rg_consistent = 0;
        }
        if (cmp_add_row(&g->rows, &g->nrows, &g->caprows, &r) != 0) {
            tree_pn_free(&nbuf);
            return -1;
        }
    }
    struct tree_pn nb2 = {0};
    struct gctx ctx = {g, &nbuf, &nb2};
    cmp_apply_rules(g->rows ? g->rows + start : NULL, g->nrows - start, g->mode, graph_sides, &ctx);
    tree_pn_free(&nbuf);
    tree_pn_free(&nb2);
    g->nodes[a].row0 = (uint32_t)start;
    g->nodes[a].nrows = (uint32_t)(g->nrows - start);
    if (g->opts.summary_only) {   /* judged now, then the rows' memory goes to the next node */
        cmp_node_index(g, a);
        g->nodes[a].nondet = g->nrows > start && cmp_rows_nondeterministic(g->rows + start, g->nrows - start);
        g->nrows = start;
        g->nodes[a].row0 = g->nodes[a].nrows = 0;
    }
    return 0;
}

static int ancestors_equal(const struct tree *x, int a, const struct tree *y, int b) {
    a = x->nodes[a].parent;
    b = y->nodes[b].parent;
    while (a >= 0 && b >= 0) {
        if (strcmp(tree_id(x, a), tree_id(y, b))) return 0;
        a = x->nodes[a].parent;
        b = y->nodes[b].parent;
    }
    return a < 0 && b < 0;
}

static void link(struct cmp_graph *g, int a, int b) {
    g->nodes[a].bench = b;
    g->bmatch[b] = a;
}

/* Fuzzy key of an API child, as msProbe's _recount_api_node makes it:
 * every ".<digits>." becomes "." (Python's re.sub: left to right, matches do
 * not overlap, so "a.1.2.b" gives "a.2.b"), then every "_rank<digits>" of
 * the result is dropped. */
static void fuzzy_key(const char *id, char *out, size_t size) {
    char tmp[8192];
    size_t o = 0;
    for (const char *p = id; *p && o + 1 < sizeof tmp;) {
        if (*p == '.' && isdigit((unsigned char)p[1])) {
            const char *q = p + 1;
            while (isdigit((unsigned char)*q)) q++;
            if (*q == '.') {
                tmp[o++] = '.';
                p = q + 1;   /* the closing dot is used up */
                continue;
            }
        }
        tmp[o++] = *p++;
    }
    tmp[o] = '\0';
    o = 0;
    for (const char *p = tmp; *p && o + 1 < size;) {
        if (!strncmp(p, "_rank", 5) && isdigit((unsigned char)p[5])) {
            p += 5;
            while (isdigit((unsigned char)*p)) p++;
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = '\0';
}

static int fuzzy_children(struct cmp_graph *g, int a, int b) {
    struct util_smap occ = {0}, keys = {0};
    char k[4200], kk[4300];
    int rc = 0;
    /* Bench API children by key+occurrence */
    for (int c = g->bench->nodes[b].first; c >= 0; c = g->bench->nodes[c].next) {
        if (g->bench->nodes[c].kind != TK_API) continue;
        fuzzy_key(tree_id(g->bench, c), k, sizeof k);
        int32_t *o = util_smap_slot(&occ, k, 1);
        if (!o) { rc = -1; goto out; }
        *o = *o < 0 ? 1 : *o + 1;
        snprintf(kk, sizeof kk, "%s%d", k, *o);
        int32_t *s = util_smap_slot(&keys, kk, 1);
        if (!s) { rc = -1; goto out; }
        if (*s < 0) *s = c;
    }
    util_smap_free(&occ);
    for (int c = g->npu->nodes[a].first; c >= 0; c = g->npu->nodes[c].next) {
        if (g->npu->nodes[c].kind != TK_API) continue;
        fuzzy_key(tree_id(g->npu, c), k, sizeof k);
        int32_t *o = util_smap_slot(&occ, k, 1);
        if (!o) { rc = -1; goto out; }
        *o = *o < 0 ? 1 : *o + 1;
        snprintf(kk, sizeof kk, "%s%d", k, *o);
        int32_t *s = util_smap_slot(&keys, kk, 0);
        if (s && *s >= 0 && g->bmatch[*s] < 0 && g->nodes[c].bench < 0) {
            link(g, c, *s);
            if (pair_rows(g, c, *s) != 0) { rc = -1; goto out; }
        }
    }
out:
    util_smap_free(&occ);
    util_smap_free(&keys);
    return rc;
}

static int32_t *preorder(const struct tree *t) {
    int32_t *pos = malloc((t->nnodes + 1) * sizeof *pos);
    if (!pos) return NULL;
    for (size_t i = 0; i < t->nnodes; i++) pos[i] = -1;
    int32_t k = 0;
    int n = t->root;
    while (n >= 0) {
        pos[n] = k++;
        if (t->nodes[n].first >= 0) { n = t->nodes[n].first; continue; }
        while (n >= 0 && t->nodes[n].next < 0) n = t->nodes[n].parent;
        if (n >= 0) n = t->nodes[n].next;
    }
    return pos;
}

int cmp_graph_new(const struct tree *npu, const struct tree *bench, const struct cmp_opts *o,
                  struct cmp_graph **out, struct pt_error *err) {
    *out = NULL;
    int mode = cmp_mode_of(npu, bench, err);
    if (mode < 0) return -1;
    if (npu->root < 0 || bench->root < 0) return pt_errorf(err, "compare needs both graphs built");
    struct cmp_graph *g = calloc(1, sizeof *g);
    if (!g) return pt_errorf(err, "out of memory");
    g->npu = npu;
    g->bench = bench;
    /* without a tensor loader (or with .pt files) a tensor dump is compared on its statistics */
    g->mode = mode == CMP_TENSOR && !(o && o->tensor) ? CMP_SUMMARY : (enum cmp_mode)mode;
    if (o) g->opts = *o;
    /* kept for re-reading tensors after manual matches; the name map is
     * only for the matching below, and its owner may free it after */
    g->opts.map = NULL;
    g->opts.map_ctx = NULL;
    g->nodes = calloc(npu->nnodes + 1, sizeof *g->nodes);
    g->bmatch = malloc((bench->nnodes + 1) * sizeof *g->bmatch);
    int32_t *queue = malloc((npu->nnodes + 1) * sizeof *queue);
    int32_t *pre = preorder(npu);
    if (!g->nodes || !g->bmatch || !queue || !pre) goto oom;
    for (size_t i = 0; i < npu->nnodes; i++) { g->nodes[i].bench = -1; g->nodes[i].index = CL_NONE; g->nodes[i].pre = pre[i]; }
    for (size_t i = 0; i < bench->nnodes; i++) g->bmatch[i] = -1;
    size_t qh = 0, qt = 0;
    queue[qt++] = npu->root;
    while (qh < qt) {
        int a = queue[qh++];
        for (int c = npu->nodes[a].first; c >= 0; c = npu->nodes[c].next) queue[qt++] = c;
        const char *id = tree_id(npu, a);
        if (o && o->fuzzy) {
            if (npu->nodes[a].kind == TK_API) continue;
            int b = tree_find(bench, id);
            if (b < 0 || g->bmatch[b] >= 0 || g->nodes[a].bench >= 0) continue;
            link(g, a, b);
            if (pair_rows(g, a, b) != 0 || fuzzy_children(g, a, b) != 0) goto oom;
            continue;
        }
        const char *bid = id;
        if (o && o->map) {
            const char *m = o->map(o->map_ctx, id);
            if (m) bid = m;
        }
        int b = tree_find(bench, bid);
        if (b < 0 || g->bmatch[b] >= 0) continue;
        if (!(o && o->map) && !ancestors_equal(npu, a, bench, b)) continue;
        link(g, a, b);
        if (pair_rows(g, a, b) != 0) goto oom;
    }
    free(queue);
    queue = NULL;
    /* indices: leaves first (post order), so collections see their children */
    for (size_t i = 0; i < npu->norder; i++) {
        int a = npu->order[i];
        if (!g->opts.summary_only || g->nodes[a].bench < 0) cmp_node_index(g, a);   /* (else done by pair_rows) */
        if (npu->nodes[a].kind == TK_APIS) {
            int best = CL_PASS;
            double mag = 0;
            for (int c = npu->nodes[a].first; c >= 0; c = npu->nodes[c].next) {
                if (g->nodes[c].index > best) best = g->nodes[c].index;
                if (g->nodes[c].magnitude > mag) mag = g->nodes[c].magnitude;
            }
            g->nodes[a].index = (int8_t)best;
            g->nodes[a].magnitude = mag;
        }
    }
    for (size_t i = 0; i < npu->norder; i++) {
        if (g->nodes[npu->order[i]].bench >= 0) g->nmatched++;
        else g->nunmatched_npu++;
    }
    for (size_t i = 0; i < bench->norder; i++)
        if (g->bmatch[bench->order[i]] < 0) g->nunmatched_bench++;
    free(pre);
    *out = g;
    return 0;
oom:
    free(queue);
    free(pre);
    cmp_graph_free(g);
    return pt_errorf(err, "out of memory while comparing");
}

void cmp_graph_free(struct cmp_graph *g) {
    if (!g) return;
    free(g->nodes);
    free(g->bmatch);
    free(g->rows);
    free(g);
}

static void twin_of(const char *id, char *out, size_t size) {
    size_t o = 0;
    for (const char *p = id; *p && o + 9 < size;) {
        if (!strncmp(p, "forward", 7)) { memcpy(out + o, "backward", 8); o += 8; p += 7; }
        else if (!strncmp(p, "backward", 8)) { memcpy(out + o, "forward", 7); o += 7; p += 8; }
        else out[o++] = *p++;
    }
    out[o] = '\0';
}

static int match_one(struct cmp_graph *g, int a, int b, struct pt_error *err) {
    if (a < 0 || (size_t)a >= g->npu->nnodes || b < 0 || (size_t)b >= g->bench->nnodes)
        return pt_errorf(err, "no such node");
    if (g->nodes[a].bench >= 0) return pt_errorf(err, "%s is already matched", tree_id(g->npu, a));
    if (g->bmatch[b] >= 0) return pt_errorf(err, "%s is already matched", tree_id(g->bench, b));
    if (g->npu->nodes[a].kind != g->bench->nodes[b].kind)
        return pt_errorf(err, "%s and %s are of different kinds (%s, %s): msProbe only matches nodes of one kind",
                         tree_id(g->npu, a), tree_id(g->bench, b), tree_kind_name(g->npu->nodes[a].kind),
                         tree_kind_name(g->bench->nodes[b].kind));
    link(g, a, b);
    g->nodes[a].manual = 1;
    if (pair_rows(g, a, b) != 0) return pt_errorf(err, "out of memory");
    cmp_node_index(g, a);
    g->nmatched++;
    if (g->nunmatched_npu) g->nunmatched_npu--;
    if (g->nunmatched_bench) g->nunmatched_bench--;
    return 0;
}

static void refresh_collections(struct cmp_graph *g) {
    for (size_t i = 0; i < g->npu->norder; i++) {
        int a = g->npu->order[i];
        if (g->npu->nodes[a].kind != TK_APIS) continue;
        int best = CL_PASS;
        for (int c = g->npu->nodes[a].first; c >= 0; c = g->npu->nodes[c].next)
            if (g->nodes[c].index > best) best = g->nodes[c].index;
        g->nodes[a].index = (int8_t)best;
    }
}

int cmp_manual_match(struct cmp_graph *g, int a, int b, int twins, struct pt_error *err) {
    if (match_one(g, a, b, err) != 0) return -1;
    if (twins) {
        char ta[4200], tb[4200];
        twin_of(tree_id(g->npu, a), ta, sizeof ta);
        twin_of(tree_id(g->bench, b), tb, sizeof tb);
        int x = tree_find(g->npu, ta), y = tree_find(g->bench, tb);
        if (x >= 0 && y >= 0 && x != a && g->nodes[x].bench < 0 && g->bmatch[y] < 0) {
            struct pt_error ignored;
            match_one(g, x, y, &ignored);
        }
    }
    refresh_collections(g);
    return 0;
}

int cmp_unmatch(struct cmp_graph *g, int a, struct pt_error *err) {
    if (a < 0 || (size_t)a >= g->npu->nnodes || g->nodes[a].bench < 0) return pt_errorf(err, "the node is not matched");
    g->bmatch[g->nodes[a].bench] = -1;
    g->nodes[a].bench = -1;
    g->nodes[a].nrows = 0;   /* its rows stay in the array, unreferenced */
    g->nodes[a].index = CL_NONE;
    g->nodes[a].magnitude = g->nodes[a].worst_rel = -1;
    g->nodes[a].manual = 0;
    if (g->nmatched) g->nmatched--;
    g->nunmatched_npu++;
    g->nunmatched_bench++;
    refresh_collections(g);
    return 0;
}

/* Ordered by msProbe's node_order (post order, model/graph/tree.h): a module
 * after everything inside it, so the earliest diverging operation comes
 * before the modules that merely carry its difference outwards (see the
 * man page, "first divergence"). */
static int divergent(const struct cmp_graph *g, size_t i) {
    return g->npu->nodes[i].order >= 0 && g->nodes[i].index >= CL_WARNING && g->npu->nodes[i].kind != TK_APIS;
}

int cmp_rows_nondeterministic(const struct crow *rows, size_t n) {
    int out_differs = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].output && rows[i].level != CL_PASS) return 0;
        if (rows[i].output && rows[i].level == CL_ERROR) out_differs = 1;
    }
    return out_differs;
}

int cmp_node_nondeterministic(const struct cmp_graph *g, int n) {
    if (g->mode != CMP_MD5 || g->nodes[n].bench < 0 || g->npu->nodes[n].order < 0) return 0;
    int k = g->npu->nodes[n].kind;
    if (k != TK_API && k != TK_FUSED) return 0;
    if (g->opts.summary_only) return g->nodes[n].nondet;
    if (!g->nodes[n].nrows) return 0;   /* no rows (g->rows may be NULL): nothing differs */
    return cmp_rows_nondeterministic(g->rows + g->nodes[n].row0, g->nodes[n].nrows);
}

int cmp_first_divergence(const struct cmp_graph *g) {
    if (g->mode == CMP_MD5)
        for (size_t k = 0; k < g->npu->norder; k++)
            if (cmp_node_nondeterministic(g, g->npu->order[k])) return g->npu->order[k];
    for (int lv = CL_ERROR; lv >= CL_WARNING; lv--)
        for (size_t k = 0; k < g->npu->norder; k++) {
            int i = g->npu->order[k];
            if (divergent(g, (size_t)i) && g->nodes[i].index == lv) return i;
        }
    return -1;
}

int cmp_next_divergent(const struct cmp_graph *g, int n, int dir) {
    const struct tree *t = g->npu;
    long k = n >= 0 && t->nodes[n].order >= 0 ? t->nodes[n].order : (dir > 0 ? -1 : (long)t->norder);
    for (k += dir; k >= 0 && (size_t)k < t->norder; k += dir)
        if (divergent(g, (size_t)t->order[k])) return t->order[k];
    return -1;
}

int cmp_node_level(const struct cmp_graph *g, int n) {
    if (g->nodes[n].bench < 0 && g->npu->nodes[n].kind != TK_APIS) return -1;
    if (g->nodes[n].index == CL_NONE) return -2;
    return g->nodes[n].index;
}
