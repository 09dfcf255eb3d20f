/* compare_rules: the verdict rules E1..E7, W1, W2 and the CRC rules of
 * msProbe's compare, as probetop-rules(7) defines them by these ids, and
 * the precision index of a node built from its rows' verdicts.  Every rule
 * that turns a row into pass / warning / error is in this file, and only
 * here (cmp_apply_rules; its comments name each rule by its id). */
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


const char *cmp_level_name(int level) {
    return level == CL_ERROR ? "error" : level == CL_WARNING ? "warning" : "pass";
}

static const char *const msg_text[MSG_COUNT] = {
    "error: There is nan/inf/-inf in the maximum or minimum value of NPU.",
    "error: The NormRelativeErr of output is greater than 0.5.",
    "error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.",
    "error: The Required_Grad of NPU and Bench are inconsistent",
    "error: The scalar parameters of NPU and Bench are inconsistent.",
    "error: The dtype of NPU and Bench are inconsistent.",
    "error: The shape of NPU and Bench are inconsistent.",
    "warning: The norm relative error of output is 10 times that of input.",
    "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1",
    "error: The CRC-32 value of NPU differs from that of the bench.",
    "warning: The parameter of NPU does not match the bench.",
};
const char *cmp_msg_text(int msg) { return msg >= 0 && msg < MSG_COUNT ? msg_text[msg] : ""; }

/* ---- values the rules look at ---- */

/* Python ==, for the scalar-parameter rule. */
static int tv_equal(const struct tree *ta, const struct tval *a, const struct tree *tb, const struct tval *b) {
    int an = tv_isnum(a) || a->kind == TV_BOOL, bn = tv_isnum(b) || b->kind == TV_BOOL;
    if (an && bn) {
        if (a->kind != TV_FLOAT && b->kind != TV_FLOAT) return a->integer == b->integer;
        double x = a->kind == TV_FLOAT ? a->real : (double)a->integer, y = b->kind == TV_FLOAT ? b->real : (double)b->integer;
        return x == y;
    }
    if (a->kind == TV_NONE || b->kind == TV_NONE) return a->kind == b->kind;
    const char *x = tv_str(ta, a), *y = tv_str(tb, b);
    return x && y && !strcmp(x, y);
}

/* inf/nan as a float or as the text inf, -inf, nan (any case). */
static int tv_infnan(const struct tree *t, const struct tval *v) {
    if (v->kind == TV_FLOAT) return !isfinite(v->real);
    const char *s = tv_str(t, v);
    return s && (!strcasecmp(s, "inf") || !strcasecmp(s, "-inf") || !strcasecmp(s, "nan"));
}

/* ---- rules (probetop-rules(7), VERDICTS) ---- */

/* (struct side is in model/compare/compare_int.h) */

static const char *const all_ignore[] = {"empty", "empty_like", "numpy", "to", "__setitem__", "empty_with_format",
                                         "new_empty_strided", "new_empty", "empty_strided", NULL};
static const char *const input_ignore[] = {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single",
                                           "batch_isend_irecv", NULL};

static int segment1_in(const char *name, const char *const *list) {
    const char *a = strchr(name, '.');
    if (!a) return 0;
    a++;
    const char *b = strchr(a, '.');
    size_t l = b ? (size_t)(b - a) : strlen(a);
    for (; *list; list++)
        if (strlen(*list) == l && !strncmp(a, *list, l)) return 1;
    return 0;
}

static double pct(const struct cval *c) {
    switch (c->kind) {
    case CV_PCT: return c->v / 100.0;
    case CV_NUM: return c->v / 100.0;
    case CV_INT: return (double)c->i / 100.0;
    case CV_INF: return INFINITY;
    case CV_NINF: return -INFINITY;
    case CV_NAN: return NAN;
    default: return 0;
    }
}

/* maxOver: from 0.0, only "...%" texts count. */
static double max_over(const struct crow *rows, size_t n, int outputs) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].output != outputs || rows[i].rel[3].kind != CV_PCT) continue;
        double v = rows[i].rel[3].v / 100.0;
        if (v > m) m = v;   /* Python max(): NaN never wins against a number here */
    }
    return m;
}

/* minOver for a tensor metric column: from 1.0, only numbers count (the
 * texts unsupported, shape unmatched, N/A and Nan are skipped). */
static double min_over(const struct crow *rows, size_t n, int outputs, int col) {
    double m = 1.0;
    for (size_t i = 0; i < n; i++) {
        const struct cval *c = &rows[i].metric[col];
        if (rows[i].output != outputs || c->kind != CV_NUM) continue;
        if (c->v < m) m = c->v;
    }
    return m;
}

static void bump(struct crow *r, int level, int msg) {
    if (level > r->level) r->level = (uint8_t)level;
    r->msgs |= (uint16_t)(1u << msg);
}

void cmp_apply_rules(struct crow *rows, size_t n, enum cmp_mode mode, side_fn sides, const void *ctx) {
    for (size_t i = 0; i < n; i++) { rows[i].level = CL_PASS; rows[i].msgs = 0; }
    if (!n || mode == CMP_STRUCTURE) return;
    /* ignore class from the first input row */
    int ign = 0;   /* 0 none, 1 input-ignore, 2 all-ignore */
    int has_out = 0;
    size_t first_out = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].output && !has_out) { has_out = 1; first_out = i; }
    for (size_t i = 0; i < n; i++)
        if (!rows[i].output) {
            struct side a, b;
            sides(ctx, &rows[i], &a, &b);
            if (segment1_in(a.name, all_ignore)) ign = 2;
            else if (segment1_in(a.name, input_ignore)) ign = 1;
            break;
        }
    if (ign == 2) return;
    for (size_t i = 0; i < n; i++) {
        struct crow *r = &rows[i];
        if (ign == 1 && !r->output) continue;
        struct side a, b;
        sides(ctx, r, &a, &b);
        if (mode == CMP_MD5) {
            /* no checksum (a null item) is None, unequal to any text */
            const char *x = a.md5 ? a.md5 : "None", *y = b.md5 ? b.md5 : "None";
            if (strcmp(x, y)) {
                if (!*x || !*y || !strcmp(x, "N/A") || !strcmp(x, "Nan") || !strcmp(y, "N/A") || !strcmp(y, "Nan"))
                    bump(r, CL_WARNING, MSG_CRC_WARN);
                else bump(r, CL_ERROR, MSG_CRC_ERR);
            }
            continue;
        }
        /* E1 */
        if (!(b.stats && (tv_infnan(b.tree, &b.max) || tv_infnan(b.tree, &b.min))) && a.stats &&
            (tv_infnan(a.tree, &a.max) || tv_infnan(a.tree, &a.min)))
            bump(r, CL_ERROR, MSG_INFNAN);
    }
    /* E3 (tensor) */
    if (ign == 0 && mode == CMP_TENSOR && has_out && min_over(rows, n, 0, TENSORCMP_ONE_THOUSANDTH) > 0.9 &&
        min_over(rows, n, 1, TENSORCMP_ONE_THOUSANDTH) < 0.1)
        bump(&rows[first_out], CL_ERROR, MSG_RATIO_ERR);
    /* E2 */
    if (ign == 0 && mode == CMP_SUMMARY && fabs(max_over(rows, n, 0)) < 0.1)
        for (size_t i = 0; i < n; i++)
            if (rows[i].output && fabs(pct(&rows[i].rel[3])) > 0.5) bump(&rows[i], CL_ERROR, MSG_NORM_ERR);
    if (mode == CMP_MD5) return;
    for (size_t i = 0; i < n; i++) {
        struct crow *r = &rows[i];
        if (ign == 1 && !r->output) continue;
        struct side a, b;
        sides(ctx, r, &a, &b);
        int bench_ok = b.name && *b.name && strcmp(b.name, "N/A");
        if (!bench_ok) continue;
        /* E4 */
        if (a.rg && *a.rg && b.rg && *b.rg && strcmp(a.rg, b.rg)) bump(r, CL_ERROR, MSG_REQGRAD);
        /* E5 (input rows, not with input-ignore) */
        if (ign == 0 && !r->output && a.dtype && b.dtype && *a.dtype && *b.dtype && strstr(a.dtype, "class") &&
            strstr(b.dtype, "class") && a.shape && !strcmp(a.shape, "[]") && a.stats && b.stats &&
            !tv_equal(a.tree, &a.max, b.tree, &b.max))
            bump(r, CL_ERROR, MSG_SCALAR);
        /* E6 */
        if (strcmp(a.name, "N/A") && !strstr(b.name, "qkv") && !strstr(b.name, "gate_up") && a.dtype && b.dtype &&
            *a.dtype && *b.dtype && strcmp(a.dtype, b.dtype))
            bump(r, CL_ERROR, MSG_DTYPE);
        /* E7 */
        if (a.shape && b.shape && strcmp(a.shape, b.shape)) bump(r, CL_ERROR, MSG_SHAPE);
    }
    /* W1 */
    if (ign == 0 && mode == CMP_SUMMARY && has_out) {
        double in = fabs(max_over(rows, n, 0)), out = fabs(max_over(rows, n, 1));
        if ((in == 0 && out > 0.1) || (in != 0 && out / in > 10)) bump(&rows[first_out], CL_WARNING, MSG_NORM_WARN);
    }
    /* W2 (tensor) */
    if (ign == 0 && mode == CMP_TENSOR && has_out) {
        double in = min_over(rows, n, 0, TENSORCMP_COSINE), out = min_over(rows, n, 1, TENSORCMP_COSINE);
        if (in > 0.9 && in - out > 0.1) bump(&rows[first_out], CL_WARNING, MSG_COS_WARN);
    }
}

static const char *const empty_apis[] = {"empty", "empty_like", "empty_with_format", "new_empty_strided",
                                         "new_empty", "empty_strided", NULL};

/* Index, magnitude and worst error of node a from its rows. */
void cmp_node_index(struct cmp_graph *g, int a) {
    struct cmp_node *cn = &g->nodes[a];
    cn->index = CL_NONE;
    cn->magnitude = -1;
    cn->worst_rel = -1;
    if (cn->bench < 0) return;
    const char *id = tree_id(g->npu, a);
    if (segment1_in(id, empty_apis)) {
        cn->index = g->mode == CMP_MD5 ? CL_ERROR : CL_PASS;
    } else if (cn->nrows) {
        int lv = CL_PASS;
        for (uint32_t i = 0; i < cn->nrows; i++)
            if (g->rows[cn->row0 + i].level > lv) lv = g->rows[cn->row0 + i].level;
        cn->index = (int8_t)lv;
    }
    if (cn->index == CL_NONE) return;
    double mag = -1, worst = -1;
    for (uint32_t i = 0; i < cn->nrows; i++) {
        const struct crow *r = &g->rows[cn->row0 + i];
        double f;
        if (!cmp_row_worst(r, g->mode, &f)) continue;
        if (f > worst) worst = f;
        if (r->output) {
            double m = f > 1 ? 1 : f;
            if (m > mag) mag = m;
        }
    }
    cn->worst_rel = worst;
    cn->magnitude = mag >= 0 ? mag : (cn->index == CL_ERROR ? 1.0 : cn->index == CL_WARNING ? 0.5 : 0.0);
}
