/* compare_int: what the compare files share among themselves and nobody
 * else sees.  model/compare/compare.h is the public header; this one joins
 * compare.c (values, metrics), compare_rules.c (verdicts), compare_match.c
 * (graph matching), compare_table.c (table join) and compare_cells.c (text).
 * Calls go one way: compare.c <- compare_rules.c <- compare_cells.c. */
#ifndef PT_COMPARE_INT_H
#define PT_COMPARE_INT_H

#include "model/compare/compare.h"
#include "model/util/util.h"

/* ---- values (compare.c) ---- */

static inline int tv_isnum(const struct tval *v) { return v->kind == TV_INT || v->kind == TV_FLOAT; }

static inline const char *tv_str(const struct tree *t, const struct tval *v) {
    return v->kind == TV_STR && v->text != TREE_NONE ? tree_s(t, v->text) : NULL;
}

/* strlen-bounded copy of s into buf (always terminated when size > 0) */
void cmp_cpy(char *buf, size_t size, const char *s);

/* the graph and table differences of one statistic (probetop-rules(7), STATISTICS METRICS) */
void cmp_graph_stat(const struct tval *n, const struct tval *b, struct cval *diff, struct cval *rel);
void cmp_table_stat(const struct tree *tn, const struct tval *n, const struct tree *tb, const struct tval *b,
                    int bench_na, struct cval *diff, struct cval *rel);
void cmp_table_stat_text(const struct tree *t, const struct tval *v, char *buf, size_t size);

/* requires_grad text of a param, NULL for none */
const char *cmp_param_rg(const struct tree *t, const struct tparam *p);
int cmp_add_row(struct crow **rows, size_t *n, size_t *cap, const struct crow *r);
void cmp_tensor_row(const struct cmp_opts *o, const struct tree *tn, const struct tparam *p,
                    const struct tree *tb, const struct tparam *q, const char *bench_dn, struct crow *r,
                    size_t *failed, char *note, size_t notesz);

/* ---- rules (compare_rules.c) ---- */

/* What the rules see of one side of a row. */
struct side {
    const char *name;      /* NULL: no counterpart ("N/A") */
    const char *dtype, *shape, *rg, *md5;   /* NULL = None/empty */
    struct tval max, min;  /* its Max and Min (tree_stat), when stats */
    int stats;             /* 0: no param (max, min unset) */
    const struct tree *tree;
};
typedef void (*side_fn)(const void *ctx, const struct crow *r, struct side *npu, struct side *bench);

/* The verdicts of one node's (graph) or dump entry's (table) rows. */
void cmp_apply_rules(struct crow *rows, size_t n, enum cmp_mode mode, side_fn sides, const void *ctx);
/* Index, magnitude and worst error of node a from its rows. */
void cmp_node_index(struct cmp_graph *g, int a);

#endif
