/* tree: what the tree pane's files share (views/tree.c, the pane:
 * drawing, keys, commands, its offers; views/tree_rows.c: the rows and
 * lists it shows).  Private to them: no other pane includes it. */
#ifndef PT_VIEWS_TREE_H
#define PT_VIEWS_TREE_H

#include <curses.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cube/search.h"
#include "model/graph/tree.h"
#include "src/session/graphs.h"
#include "src/session/session.h"

enum { L_TREE = 0, L_UNMATCHED, L_PRECISION, L_PICK };

/* A row of a list: a node of one side, or a heading (side < 0). */
struct lrow {
    int8_t side;          /* 0 problem, 1 benchmark, -1 heading */
    int32_t node;
    char head[96];
};

struct tp {
    struct session *session; /* whose offers it filled (cleared by tree_free_pane) */
    const struct graphs_loaded *G;   /* what rows were built for (valid while gen matches) */
    unsigned gen;                 /* a->graphs->gen when G was adopted */
    uint8_t *open;                /* per problem node */
    int32_t *rows;                /* visible nodes */
    size_t nrows, cap;
    int sel;                      /* selected node, -1 */
    size_t top;
    int body_h;
    struct search re;
    /* lists */
    int list;
    struct lrow *lrows;
    size_t nl, lcur, ltop;
    unsigned pmask;               /* precision list: bit AM_PASS.. AM_UNMATCHED */
    int pick_npu;                 /* manual match: the marked problem node, -1 */
    int confirm_bench;            /* waiting for y: the benchmark node, -1 */
};

static inline const struct tree *T(const struct tp *p) { return p->G ? p->G->t[0] : NULL; }

static inline int have_tree(const struct tp *p) { return p->G && p->G->t[0] && p->G->pre; }

/* Visible nodes in display (pre-) order: a node's children show when it
 * is open. */
void tree_rows_rebuild(struct tp *p);
/* The row of node n, -1 when it is not shown. */
long tree_rows_row_of(const struct tp *p, int n);
/* Selects node n, opening its ancestors so it shows. */
void tree_rows_select(struct tp *p, int n);
/* Opens (1) or closes (0) node n and everything below it. */
void tree_rows_set_subtree(struct tp *p, int n, int open);
/* The pane's graph changed (load, rank, step): new expand state, the
 * selection kept by id when the new graph has it. */
void tree_rows_adopt(struct tp *p, struct session *a);
/* Nodes of tree t in execution order: pre[] sorted (owned by the caller;
 * NULL out of memory). */
int32_t *tree_rows_exec_order(const struct tree *t, const int32_t *pre);
/* Benchmark node b has a problem counterpart. */
int tree_rows_bench_matched(const struct graphs_loaded *G, int b);
/* Shows list `which` (L_UNMATCHED, L_PRECISION, L_PICK) in the tree's place. */
void tree_rows_open_list(struct tp *p, struct session *a, int which);

/* views/tree_flow.c: the data-flow walk's breadcrumb (src/session/flow.h) on row 1 of w when
 * the tree shows and a hop was made (w NULL: only asks): rows it takes. */
int tree_flow_breadcrumb(const struct tp *p, const struct session *a, WINDOW *w, int width);
/* < (dir 0), > (dir 1) and Backspace (dir -1) on the node selected; dir -2
 * clears the walk (Esc). */
void tree_flow_key(struct tp *p, struct session *a, int dir);

#endif
