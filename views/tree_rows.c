/* tree_rows: what the tree pane (views/tree.c) shows in its body: the
 * visible rows of the problem tree (its expand state, the selection kept
 * by node id when another graph is adopted) and the lists that take the
 * tree's place on demand (unmatched nodes, the precision filter, the
 * benchmark pick list of a manual match).  Apart from the drawing and the
 * keys because it follows the graph, not the screen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"
#include "src/session/graphs.h"
#include "views/tree.h"

static int push_row(struct tp *p, int32_t n) {
    if (UTIL_PUSH(p->rows, p->nrows, p->cap) != 0) return -1;
    p->rows[p->nrows++] = n;
    return 0;
}

/* Visible nodes in display (pre-) order: a node's children show when it
 * is open.  Iterative: trees can be deep. */
void tree_rows_rebuild(struct tp *p) {
    p->nrows = 0;
    const struct tree *t = T(p);
    if (!have_tree(p)) return;
    int n = t->root;
    while (n >= 0) {
        if (push_row(p, n) != 0) return;
        if (p->open[n] && t->nodes[n].first >= 0) {
            n = t->nodes[n].first;
            continue;
        }
        while (n >= 0 && t->nodes[n].next < 0) n = t->nodes[n].parent;
        if (n >= 0) n = t->nodes[n].next;
    }
}

long tree_rows_row_of(const struct tp *p, int n) {
    for (size_t i = 0; i < p->nrows; i++)
        if (p->rows[i] == n) return (long)i;
    return -1;
}

/* Selects node n, opening its ancestors so it shows. */
void tree_rows_select(struct tp *p, int n) {
    const struct tree *t = T(p);
    if (!t || n < 0 || (size_t)n >= t->nnodes) return;
    for (int a = t->nodes[n].parent; a >= 0; a = t->nodes[a].parent) p->open[a] = 1;
    tree_rows_rebuild(p);
    p->sel = n;
    long r = tree_rows_row_of(p, n);
    /* centre it when it is off the page */
    if (r >= 0 && ((size_t)r < p->top || (size_t)r >= p->top + (size_t)(p->body_h > 0 ? p->body_h : 1)))
        p->top = (size_t)r > (size_t)(p->body_h / 2) ? (size_t)r - (size_t)(p->body_h / 2) : 0;
}

void tree_rows_set_subtree(struct tp *p, int n, int open) {
    const struct tree *t = T(p);
    /* every descendant of n (and n): walk the subtree without recursion */
    int c = n;
    while (c >= 0) {
        if (t->nodes[c].first >= 0) p->open[c] = (uint8_t)open;
        if (t->nodes[c].first >= 0) {
            c = t->nodes[c].first;
            continue;
        }
        while (c >= 0 && c != n && t->nodes[c].next < 0) c = t->nodes[c].parent;
        if (c < 0 || c == n) break;
        c = t->nodes[c].next;
    }
    if (n == t->root && !open) p->open[n] = 1;   /* the root stays open */
    tree_rows_rebuild(p);
}

/* The pane's graph changed (load, rank, step): new expand state, the
 * selection kept by id when the new graph has it. */
void tree_rows_adopt(struct tp *p, struct session *a) {
    const struct graphs_loaded *G = a->graphs ? a->graphs->cur : NULL;
    unsigned gen = a->graphs ? a->graphs->gen : 0;
    if (G == p->G && gen == p->gen) return;
    /* the old graph is already freed: only forget it */
    free(p->open);
    p->open = NULL;
    p->G = G;
    p->gen = gen;
    p->nrows = 0;
    p->sel = -1;
    p->top = 0;
    p->list = L_TREE;
    p->pick_npu = p->confirm_bench = -1;
    if (!have_tree(p)) return;
    const struct tree *t = T(p);
    p->open = calloc(t->nnodes ? t->nnodes : 1, 1);
    if (!p->open) {
        p->G = NULL;
        return;
    }
    p->open[t->root] = 1;
    tree_rows_rebuild(p);
    p->sel = t->root;
    const char *want = a->graphs->select_after;
    int n = want ? tree_find(t, want) : -1;
    if (n >= 0) tree_rows_select(p, n);
    free(a->graphs->select_after);
    a->graphs->select_after = NULL;
}

/* ---- lists ---- */

static int push_l(struct tp *p, int side, int32_t node, const char *head) {
    struct lrow *r = realloc(p->lrows, (p->nl + 1) * sizeof *r);
    if (!r) return -1;
    p->lrows = r;
    r += p->nl++;
    r->side = (int8_t)side;
    r->node = node;
    snprintf(r->head, sizeof r->head, "%s", head ? head : "");
    return 0;
}

/* Nodes of tree t in execution order: pre[] sorted. */
int32_t *tree_rows_exec_order(const struct tree *t, const int32_t *pre) {
    int32_t *v = malloc((t->nnodes ? t->nnodes : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < t->nnodes; i++) v[i] = -1;
    for (size_t i = 0; i < t->nnodes; i++)
        if (pre[i] >= 0 && (size_t)pre[i] < t->nnodes) v[pre[i]] = (int32_t)i;
    return v;
}

int tree_rows_bench_matched(const struct graphs_loaded *G, int b) {
    if (G->g) return G->g->bmatch[b] >= 0;
    if (G->vblink) return G->vblink[b] >= 0;
    return 0;
}

/* Whether two node ids are the same name but for their call numbers
 * ("Functional.linear.5.forward" and "Functional.linear.7.forward"): the
 * dotted parts agree, or are both all digits. */
static int same_but_numbers(const char *x, const char *y) {
    while (*x || *y) {
        size_t nx = strcspn(x, "."), ny = strcspn(y, ".");
        int dx = nx && strspn(x, "0123456789") >= nx, dy = ny && strspn(y, "0123456789") >= ny;
        if (!(dx && dy) && (nx != ny || strncmp(x, y, nx))) return 0;
        x += nx;
        y += ny;
        if (*x != *y) return 0;
        if (*x) { x++; y++; }
    }
    return 1;
}

void tree_rows_open_list(struct tp *p, struct session *a, int which) {
    const struct graphs_loaded *G = p->G;
    p->nl = p->lcur = p->ltop = 0;
    p->list = which;
    const struct tree *t0 = G->t[0], *t1 = G->t[1];
    int32_t *o0 = tree_rows_exec_order(t0, G->pre), *o1 = t1 && G->bpre ? tree_rows_exec_order(t1, G->bpre) : NULL;
    char head[96];
    if (!o0 || (t1 && G->bpre && !o1)) {
        session_err(a, "out of memory");
        p->list = L_TREE;
        goto out;
    }
    if (which == L_UNMATCHED || which == L_PICK) {
        int kind = which == L_PICK ? t0->nodes[p->pick_npu].kind : -1;
        size_t c0 = 0, c1 = 0;
        for (size_t i = 0; i < t0->nnodes; i++)
            if (o0[i] >= 0 && graphs_mark(G, o0[i]) == AM_UNMATCHED) c0++;
        for (size_t i = 0; t1 && o1 && i < t1->nnodes; i++)
            if (o1[i] >= 0 && !tree_rows_bench_matched(G, o1[i]) && o1[i] != t1->root && (kind < 0 || t1->nodes[o1[i]].kind == kind))
                c1++;
        if (which == L_UNMATCHED) {
            snprintf(head, sizeof head, "unmatched problem nodes: %zu", c0);
            push_l(p, -1, -1, head);
            for (size_t i = 0; i < t0->nnodes; i++)
                if (o0[i] >= 0 && graphs_mark(G, o0[i]) == AM_UNMATCHED) push_l(p, 0, o0[i], NULL);
        }
        snprintf(head, sizeof head, which == L_PICK ? "pick the benchmark node (%zu unmatched of this kind)"
                                                    : "unmatched benchmark nodes: %zu", c1);
        push_l(p, -1, -1, head);
        for (size_t i = 0; t1 && o1 && i < t1->nnodes; i++)
            if (o1[i] >= 0 && !tree_rows_bench_matched(G, o1[i]) && o1[i] != t1->root && (kind < 0 || t1->nodes[o1[i]].kind == kind))
                push_l(p, 1, o1[i], NULL);
        if (which == L_PICK) {
            /* start on the benchmark node with the same id, else the first
             * of the same name but its call numbers, else the first */
            const char *id = tree_id(t0, p->pick_npu);
            int same = tree_find(t1, id);
            size_t named = 0;
            for (size_t i = 0; i < p->nl; i++)
                if (p->lrows[i].side == 1 && (p->lcur == 0 || p->lrows[i].node == same)) {
                    p->lcur = i;
                    if (p->lrows[i].node == same) break;
                }
            for (size_t i = 0; same < 0 && i < p->nl && !named; i++)
                if (p->lrows[i].side == 1 && same_but_numbers(id, tree_id(t1, p->lrows[i].node))) named = i;
            if (named) p->lcur = named;
        }
    } else {
        size_t cnt[6] = {0};
        for (size_t i = 0; i < t0->nnodes; i++) {
            int n = o0[i];
            if (n < 0 || t0->nodes[n].first >= 0) continue;
            cnt[graphs_mark(G, n)]++;
        }
        snprintf(head, sizeof head, "leaves: [%s]1 pass %zu  [%s]2 warning %zu  [%s]3 error %zu  [%s]4 unmatched %zu",
                 p->pmask & (1u << AM_PASS) ? "x" : " ", cnt[AM_PASS], p->pmask & (1u << AM_WARN) ? "x" : " ",
                 cnt[AM_WARN], p->pmask & (1u << AM_ERROR) ? "x" : " ", cnt[AM_ERROR],
                 p->pmask & (1u << AM_UNMATCHED) ? "x" : " ", cnt[AM_UNMATCHED]);
        push_l(p, -1, -1, head);
        for (size_t i = 0; i < t0->nnodes; i++) {
            int n = o0[i];
            if (n < 0 || t0->nodes[n].first >= 0) continue;
            if (p->pmask & (1u << graphs_mark(G, n))) push_l(p, 0, n, NULL);
        }
    }
    if (p->lcur == 0 && p->nl > 1) p->lcur = 1;
out:
    free(o0);
    free(o1);
}
