/* compare: matching, metrics and verdicts of msProbe's graph and table
 * compares (graph-compare.md §3-5).  Values stay typed (struct tval /
 * struct cval) until printed, so the rules can be applied to exactly the
 * values msProbe looks at, and text is only made for output. */
#include "model/compare.h"

#include "model/util/bigmem.h"
#include "model/util/util.h"
#include "model/tensorcmp.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- text ---- */

/* cmp_pyfloat lives in model/pyfloat.c */

/* snprintf("%s") without the format parsing: cells are copied millions of
 * times for one csv. */
static void cpy(char *buf, size_t size, const char *s) {
    if (!size) return;
    size_t n = strlen(s);
    if (n >= size) n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

char *cmp_tval_text(const struct tree *t, const struct tval *v, char *buf, size_t size) {
    switch (v->kind) {
    case TV_NONE: cpy(buf, size, "None"); break;
    case TV_INT:
        if (v->s != TREE_NONE) cpy(buf, size, tree_s(t, v->s));
        else snprintf(buf, size, "%lld", (long long)v->i);
        break;
    case TV_FLOAT: cmp_pyfloat(v->d, buf, size); break;
    case TV_BOOL: snprintf(buf, size, v->i ? "True" : "False"); break;
    case TV_STR: cpy(buf, size, v->s == TREE_NONE ? "" : tree_s(t, v->s)); break;
    }
    return buf;
}

char *cmp_cval_text(const struct cval *c, int graph, char *buf, size_t size) {
    switch (c->kind) {
    case CV_BLANK: cpy(buf, size, ""); break;
    case CV_NUM:
        cmp_pyfloat(c->v, buf, size);
        /* graph compare appends a TAB to cells that read exactly inf/-inf/nan */
        if (graph && !isfinite(c->v)) {
            size_t l = strlen(buf);
            if (l + 1 < size) { buf[l] = '\t'; buf[l + 1] = '\0'; }
        }
        break;
    case CV_INT: snprintf(buf, size, "%lld", (long long)c->i); break;
    case CV_PCT: {
        cmp_pyfloat(c->v, buf, size);
        size_t l = strlen(buf);
        if (l + 1 < size) { buf[l] = '%'; buf[l + 1] = '\0'; }
        break;
    }
    case CV_NA: cpy(buf, size, "N/A"); break;
    case CV_NAN: cpy(buf, size, "Nan"); break;
    case CV_INF: cpy(buf, size, "inf"); break;
    case CV_NINF: cpy(buf, size, "-inf"); break;
    case CV_ZERO: cpy(buf, size, "0"); break;
    case CV_DIFF: cpy(buf, size, "Diff"); break;
    case CV_UNSUP: cpy(buf, size, "unsupported"); break;
    case CV_SHAPE: cpy(buf, size, "shape unmatched"); break;
    }
    return buf;
}

int cmp_cval_fraction(const struct cval *c, double *out) {
    switch (c->kind) {
    case CV_PCT: *out = c->v / 100.0; return 1;
    case CV_NAN: *out = NAN; return 1;
    case CV_INF: *out = INFINITY; return 1;
    case CV_NINF: *out = -INFINITY; return 1;
    case CV_ZERO: *out = 0; return 1;
    default: return 0;
    }
}

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

/* ---- values ---- */

static int tv_isnum(const struct tval *v) { return v->kind == TV_INT || v->kind == TV_FLOAT; }

static const char *tv_str(const struct tree *t, const struct tval *v) {
    return v->kind == TV_STR && v->s != TREE_NONE ? tree_s(t, v->s) : NULL;
}

/* Python ==, for the scalar-parameter rule. */
static int tv_equal(const struct tree *ta, const struct tval *a, const struct tree *tb, const struct tval *b) {
    int an = tv_isnum(a) || a->kind == TV_BOOL, bn = tv_isnum(b) || b->kind == TV_BOOL;
    if (an && bn) {
        if (a->kind != TV_FLOAT && b->kind != TV_FLOAT) return a->i == b->i;
        double x = a->kind == TV_FLOAT ? a->d : (double)a->i, y = b->kind == TV_FLOAT ? b->d : (double)b->i;
        return x == y;
    }
    if (a->kind == TV_NONE || b->kind == TV_NONE) return a->kind == b->kind;
    const char *x = tv_str(ta, a), *y = tv_str(tb, b);
    return x && y && !strcmp(x, y);
}

/* inf/nan as a float or as the text inf, -inf, nan (any case). */
static int tv_infnan(const struct tree *t, const struct tval *v) {
    if (v->kind == TV_FLOAT) return !isfinite(v->d);
    const char *s = tv_str(t, v);
    return s && (!strcasecmp(s, "inf") || !strcasecmp(s, "-inf") || !strcasecmp(s, "nan"));
}

/* ---- §4.2 graph values ---- */

static void graph_stat(const struct tval *n, const struct tval *b, struct cval *diff, struct cval *rel) {
    memset(diff, 0, sizeof *diff);
    memset(rel, 0, sizeof *rel);
    if (!tv_isnum(n) || !tv_isnum(b)) {
        diff->kind = rel->kind = CV_NA;
        return;
    }
    double d, bv = b->kind == TV_INT ? (double)b->i : b->d;
    if (n->kind == TV_INT && b->kind == TV_INT) {
        diff->kind = CV_INT;
        diff->i = n->i - b->i;
        d = (double)diff->i;
    } else {
        d = (n->kind == TV_INT ? (double)n->i : n->d) - bv;
        diff->kind = CV_NUM;
        diff->v = d;
    }
    if (isnan(d)) {
        diff->kind = rel->kind = CV_NAN;
        return;
    }
    if (bv != 0) {
        rel->kind = CV_PCT;
        rel->v = fabs(d / bv * 100.0);
    } else rel->kind = CV_NA;
}

/* ---- §4.3 table values ---- */

static int ci_contains(const char *s, const char *w) {
    size_t wl = strlen(w);
    for (; *s; s++)
        if (!strncasecmp(s, w, wl)) return 1;
    return 0;
}

enum vt { VT_NUM, VT_NAN, VT_INF, VT_NINF, VT_DEVICE, VT_NA, VT_OTHER };

static int parse_num_text(const char *s, double *out) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return 0;
    char *e;
    double v = strtod(s, &e);
    if (e == s) return 0;
    while (isspace((unsigned char)*e)) e++;
    if (*e) return 0;
    /* strtod reads hex and "infinity"; pandas does not */
    for (const char *p = s; p < e; p++)
        if (*p == 'x' || *p == 'X') return 0;
    *out = v;
    return 1;
}

/* Table text of a stat value as pandas sees it (str()); and its class. */
static enum vt table_class(const struct tree *t, const struct tval *v, int na, double *num) {
    if (na) return VT_NA;
    char buf[128];
    switch (v->kind) {
    case TV_FLOAT:
        if (isnan(v->d)) return VT_NAN;
        if (isinf(v->d)) return v->d > 0 ? VT_INF : VT_NINF;
        *num = v->d;
        return VT_NUM;
    case TV_INT: *num = (double)v->i; return VT_NUM;
    case TV_BOOL: return VT_OTHER;
    case TV_NONE: return VT_OTHER;
    case TV_STR: {
        const char *s = tv_str(t, v);
        if (!s) return VT_OTHER;
        snprintf(buf, sizeof buf, "%s", s);
        if (!strcasecmp(buf, "nan")) return VT_NAN;
        if (!strcasecmp(buf, "inf")) return VT_INF;
        if (!strcasecmp(buf, "-inf")) return VT_NINF;
        if (strcasecmp(buf, "true") && strcasecmp(buf, "false") && parse_num_text(buf, num)) {
            if (isnan(*num)) return VT_NAN;
            return isinf(*num) ? (*num > 0 ? VT_INF : VT_NINF) : VT_NUM;
        }
        if (ci_contains(s, "npu") || ci_contains(s, "cpu") || ci_contains(s, "cuda")) return VT_DEVICE;
        if (!strcmp(s, "N/A")) return VT_NA;
        return VT_OTHER;
    }
    }
    return VT_OTHER;
}

/* str() of a stat in the table (NaN as "Nan", as set_summary writes). */
static void table_stat_text(const struct tree *t, const struct tval *v, char *buf, size_t size) {
    if (v->kind == TV_FLOAT && isnan(v->d)) { cpy(buf, size, "Nan"); return; }
    cmp_tval_text(t, v, buf, size);
}

static void table_stat(const struct tree *tn, const struct tval *n, const struct tree *tb, const struct tval *b,
                       int bench_na, struct cval *diff, struct cval *rel) {
    memset(diff, 0, sizeof *diff);
    memset(rel, 0, sizeof *rel);
    /* equal as text (pandas compares str() of both); for two numbers of one
     * kind that is equality of the values (repr is one-to-one), NaN printing
     * as "Nan" on both sides */
    int same;
    if (bench_na) same = 0;
    else if (n->kind == TV_FLOAT && b->kind == TV_FLOAT)
        same = (isnan(n->d) && isnan(b->d)) || (n->d == b->d && signbit(n->d) == signbit(b->d));
    else if (n->kind == TV_INT && b->kind == TV_INT) same = n->i == b->i;
    else if ((n->kind == TV_INT && b->kind == TV_FLOAT) || (n->kind == TV_FLOAT && b->kind == TV_INT)) same = 0;
    else {
        char a[256], c[256];
        table_stat_text(tn, n, a, sizeof a);
        table_stat_text(tb, b, c, sizeof c);
        same = !strcmp(a, c);
    }
    if (same) { diff->kind = rel->kind = CV_ZERO; return; }
    double x = 0, y = 0;
    enum vt p = table_class(tn, n, 0, &x), q = table_class(tb, b, bench_na, &y);
    int k;
    if (p == VT_NA || q == VT_NA) k = CV_NA;
    else if (p == VT_NUM && q == VT_NUM) {
        double d = x - y;
        diff->kind = CV_NUM;
        diff->v = d;
        if (y != 0) { rel->kind = CV_PCT; rel->v = fabs(d / y * 100.0); }
        else rel->kind = CV_INF;
        return;
    } else if (p == VT_DEVICE && q == VT_DEVICE) k = CV_NA;
    else if (p == VT_DEVICE || q == VT_DEVICE || p == VT_OTHER || q == VT_OTHER) k = CV_DIFF;
    else if (p == VT_NAN || q == VT_NAN) k = CV_NAN;
    else if (p == VT_INF) k = CV_INF;        /* inf vs number or -inf */
    else if (p == VT_NINF) k = CV_NINF;      /* -inf vs number or inf */
    else if (q == VT_INF) k = CV_NINF;       /* number vs inf */
    else k = CV_INF;                         /* number vs -inf */
    diff->kind = rel->kind = (uint8_t)k;
}

/* ---- rules (§4.6) ---- */

/* What the rules see of one side of a row. */
struct side {
    const char *name;      /* NULL: no counterpart ("N/A") */
    const char *dtype, *shape, *rg, *md5;   /* NULL = None/empty */
    const struct tval *max, *min;
    const struct tree *t;
};

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

typedef void (*side_fn)(const void *ctx, const struct crow *r, struct side *npu, struct side *bench);

static void apply_rules(struct crow *rows, size_t n, enum cmp_mode mode, side_fn sides, const void *ctx) {
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
            const char *x = a.md5 ? a.md5 : "", *y = b.md5 ? b.md5 : "N/A";
            if (strcmp(x, y)) {
                if (!strcmp(x, "N/A") || !strcmp(x, "Nan") || !strcmp(y, "N/A") || !strcmp(y, "Nan"))
                    bump(r, CL_WARNING, MSG_CRC_WARN);
                else bump(r, CL_ERROR, MSG_CRC_ERR);
            }
            continue;
        }
        /* E1 */
        if (!(b.max && tv_infnan(b.t, b.max)) && !(b.min && tv_infnan(b.t, b.min)) &&
            ((a.max && tv_infnan(a.t, a.max)) || (a.min && tv_infnan(a.t, a.min))))
            bump(r, CL_ERROR, MSG_INFNAN);
    }
    /* E3 (tensor) */
    if (ign == 0 && mode == CMP_TENSOR && has_out && min_over(rows, n, 0, TC_ONE_THOUSANDTH) > 0.9 &&
        min_over(rows, n, 1, TC_ONE_THOUSANDTH) < 0.1)
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
            strstr(b.dtype, "class") && a.shape && !strcmp(a.shape, "[]") && a.max && b.max &&
            !tv_equal(a.t, a.max, b.t, b.max))
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
        double in = min_over(rows, n, 0, TC_COSINE), out = min_over(rows, n, 1, TC_COSINE);
        if (in > 0.9 && in - out > 0.1) bump(&rows[first_out], CL_WARNING, MSG_COS_WARN);
    }
}

/* ---- modes ---- */

int cmp_mode_of(const struct tree *npu, const struct tree *bench, struct pt_error *err) {
    if (strcmp(npu->task, bench->task))
        return pt_errorf(err, "the two dumps have different tasks (problem \"%s\", benchmark \"%s\"): "
                              "compare needs both statistics, both md5 or both tensor dumps", npu->task, bench->task);
    if (npu->md5_mode != bench->md5_mode)
        return pt_errorf(err, "one dump has md5 checksums and the other has not: compare needs the same summary mode");
    if (!strcmp(npu->task, "structure")) return CMP_STRUCTURE;
    if (!strcmp(npu->task, "tensor")) return CMP_TENSOR;
    return npu->md5_mode ? CMP_MD5 : CMP_SUMMARY;
}

/* ---- graph compare ---- */

struct gctx { const struct cmp_graph *g; };

static const char *param_rg(const struct tree *t, const struct tparam *p) {
    if (p->req_grad.kind == TV_BOOL) return p->req_grad.i ? "True" : "False";
    if (p->req_grad.kind == TV_STR) return tree_s(t, p->req_grad.s);
    return NULL;
}

static void graph_sides(const void *ctx, const struct crow *r, struct side *a, struct side *b) {
    const struct cmp_graph *g = ((const struct gctx *)ctx)->g;
    const struct tparam *p = &g->npu->params[r->np];
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->t = g->npu;
    a->name = tree_s(g->npu, p->name);
    a->dtype = tree_s(g->npu, p->dtype);
    a->shape = tree_s(g->npu, p->shape);
    a->rg = param_rg(g->npu, p);
    a->md5 = tree_s(g->npu, p->md5);
    a->max = &p->stat[0];
    a->min = &p->stat[1];
    b->t = g->bench;
    if (r->bp >= 0) {
        const struct tparam *q = &g->bench->params[r->bp];
        b->name = tree_s(g->bench, q->name);
        b->dtype = tree_s(g->bench, q->dtype);
        b->shape = tree_s(g->bench, q->shape);
        b->rg = param_rg(g->bench, q);
        b->md5 = tree_s(g->bench, q->md5);
        b->max = &q->stat[0];
        b->min = &q->stat[1];
    } else {
        /* extra NPU param: the Bench side holds the text "Nan" everywhere */
        b->name = b->dtype = b->shape = b->rg = b->md5 = "Nan";
        b->max = b->min = NULL;
    }
}

static int add_row(struct crow **rows, size_t *n, size_t *cap, const struct crow *r) {
    if (UTIL_PUSH(*rows, *n, *cap) != 0) return -1;
    (*rows)[(*n)++] = *r;
    return 0;
}

/* §4.5: the six metrics of one row from the real tensors, loaded here and
 * freed before returning, so only one pair is in memory at a time.
 * bench_dn is the Bench data_name as msProbe sees it ("-1" no file, "N/A"
 * no Bench param).  A read failure is counted and its first message kept. */
static void tensor_row(const struct cmp_opts *o, const struct tree *tn, const struct tparam *p,
                       const struct tree *tb, const struct tparam *q, const char *bench_dn, struct crow *r,
                       size_t *failed, char *note, size_t notesz) {
    tc_fill(r->metric, CV_UNSUP);
    r->tmsgs = 0;
    const char *dn = tree_s(tn, p->data_name);
    if (!dn || !strcmp(dn, "-1")) { r->tmsgs = 1u << TM_NPU_NOFILE; return; }
    if (!strcmp(bench_dn, "-1")) { r->tmsgs = 1u << TM_BENCH_NOFILE; return; }
    if (!strcmp(bench_dn, "N/A") || !q) { r->tmsgs = 1u << TM_UNMATCHED; return; }
    struct tc_tensor x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    struct pt_error e;
    e.msg[0] = '\0';
    if (o->tensor(o->tensor_ctx, tn, p, &x, &e) != 0 || o->tensor(o->tensor_ctx, tb, q, &y, &e) != 0) {
        r->tmsgs = 1u << TM_READ;
        if (!(*failed)++) snprintf(note, notesz, "%s", e.msg);
    } else r->tmsgs = (uint16_t)tc_compare(&x, &y, r->metric);
    free(x.v);
    free(y.v);
}

/* Rows of a matched pair (§3.4), appended at the end of g->rows. */
static int pair_rows(struct cmp_graph *g, int a, int b) {
    uint32_t na, nb;
    const struct tparam *pa = tree_params(g->npu, a, &na), *pb = tree_params(g->bench, b, &nb);
    uint32_t pa0 = na ? (uint32_t)(pa - g->npu->params) : 0, pb0 = nb ? (uint32_t)(pb - g->bench->params) : 0;
    size_t start = g->nrows;
    uint32_t seen[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < na; i++) {
        const struct tparam *p = &pa[i];
        struct crow r;
        memset(&r, 0, sizeof r);
        r.np = (int32_t)(pa0 + i);
        r.bp = -1;
        r.rec = g->npu->nodes[a].rec;
        r.output = strstr(tree_s(g->npu, p->name), ".output.") != NULL;
        uint32_t k = seen[p->state & 3]++, m = 0;
        for (uint32_t j = 0; j < nb; j++)
            if (pb[j].state == p->state && m++ == k) { r.bp = (int32_t)(pb0 + j); break; }
        if (r.bp >= 0) {
            const struct tparam *q = &g->bench->params[r.bp];
            if (g->mode == CMP_TENSOR) {
                const char *qd = tree_s(g->bench, q->data_name);
                tensor_row(&g->opts, g->npu, p, g->bench, q, qd ? qd : "-1", &r, &g->tensor_failed,
                           g->tensor_err, sizeof g->tensor_err);
            } else
                for (int s = 0; s < 4; s++) graph_stat(&p->stat[s], &q->stat[s], &r.diff[s], &r.rel[s]);
            const char *x = param_rg(g->npu, p), *y = param_rg(g->bench, q);
            r.rg_consistent = (!x && !y) || (x && y && !strcmp(x, y));
        } else {
            r.placeholder = 1;
            /* the Bench side of an extra NPU param has data_name "-1" */
            if (g->mode == CMP_TENSOR)
                tensor_row(&g->opts, g->npu, p, g->bench, NULL, "-1", &r, &g->tensor_failed, g->tensor_err,
                           sizeof g->tensor_err);
            else
                for (int s = 0; s < 4; s++) r.diff[s].kind = r.rel[s].kind = CV_BLANK;
            r.rg_consistent = 0;
        }
        if (add_row(&g->rows, &g->nrows, &g->caprows, &r) != 0) return -1;
    }
    struct gctx ctx = {g};
    apply_rules(g->rows ? g->rows + start : NULL, g->nrows - start, g->mode, graph_sides, &ctx);
    g->n[a].row0 = (uint32_t)start;
    g->n[a].nrows = (uint32_t)(g->nrows - start);
    return 0;
}

static const char *const empty_apis[] = {"empty", "empty_like", "empty_with_format", "new_empty_strided",
                                         "new_empty", "empty_strided", NULL};

int cmp_row_worst(const struct crow *r, enum cmp_mode mode, double *out) {
    if (mode == CMP_MD5 || mode == CMP_STRUCTURE) return 0;
    if (mode == CMP_TENSOR) {
        const struct cval *c = &r->metric[TC_MAXREL];
        if (c->kind == CV_NUM) *out = isnan(c->v) ? INFINITY : c->v;
        else if (c->kind == CV_NAN || c->kind == CV_NA) *out = INFINITY;   /* N/A: inf/nan at different places */
        else return 0;
        return 1;
    }
    int have = 0;
    double w = -INFINITY;
    for (int s = 0; s < 4; s++) {
        double f;
        if (r->rel[s].kind == CV_NAN) f = INFINITY;
        else if (!cmp_cval_fraction(&r->rel[s], &f)) continue;
        if (isnan(f)) f = INFINITY;
        if (!have || f > w) w = f;
        have = 1;
    }
    if (have) *out = w;
    return have;
}

/* Index, magnitude and worst error of node a from its rows. */
static void node_index(struct cmp_graph *g, int a) {
    struct cmp_node *cn = &g->n[a];
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
    g->n[a].bench = b;
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
        if (s && *s >= 0 && g->bmatch[*s] < 0 && g->n[c].bench < 0) {
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
    g->n = calloc(npu->nnodes + 1, sizeof *g->n);
    g->bmatch = malloc((bench->nnodes + 1) * sizeof *g->bmatch);
    int32_t *queue = malloc((npu->nnodes + 1) * sizeof *queue);
    int32_t *pre = preorder(npu);
    if (!g->n || !g->bmatch || !queue || !pre) goto oom;
    for (size_t i = 0; i < npu->nnodes; i++) { g->n[i].bench = -1; g->n[i].index = CL_NONE; g->n[i].pre = pre[i]; }
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
            if (b < 0 || g->bmatch[b] >= 0 || g->n[a].bench >= 0) continue;
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
        node_index(g, a);
        if (npu->nodes[a].kind == TK_APIS) {
            int best = CL_PASS;
            double mag = 0;
            for (int c = npu->nodes[a].first; c >= 0; c = npu->nodes[c].next) {
                if (g->n[c].index > best) best = g->n[c].index;
                if (g->n[c].magnitude > mag) mag = g->n[c].magnitude;
            }
            g->n[a].index = (int8_t)best;
            g->n[a].magnitude = mag;
        }
    }
    for (size_t i = 0; i < npu->norder; i++) {
        if (g->n[npu->order[i]].bench >= 0) g->nmatched++;
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
    free(g->n);
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
    if (g->n[a].bench >= 0) return pt_errorf(err, "%s is already matched", tree_id(g->npu, a));
    if (g->bmatch[b] >= 0) return pt_errorf(err, "%s is already matched", tree_id(g->bench, b));
    if (g->npu->nodes[a].kind != g->bench->nodes[b].kind)
        return pt_errorf(err, "%s and %s are of different kinds (%s, %s): msProbe only matches nodes of one kind",
                         tree_id(g->npu, a), tree_id(g->bench, b), tree_kind_name(g->npu->nodes[a].kind),
                         tree_kind_name(g->bench->nodes[b].kind));
    link(g, a, b);
    g->n[a].manual = 1;
    if (pair_rows(g, a, b) != 0) return pt_errorf(err, "out of memory");
    node_index(g, a);
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
            if (g->n[c].index > best) best = g->n[c].index;
        g->n[a].index = (int8_t)best;
    }
}

int cmp_manual_match(struct cmp_graph *g, int a, int b, int twins, struct pt_error *err) {
    if (match_one(g, a, b, err) != 0) return -1;
    if (twins) {
        char ta[4200], tb[4200];
        twin_of(tree_id(g->npu, a), ta, sizeof ta);
        twin_of(tree_id(g->bench, b), tb, sizeof tb);
        int x = tree_find(g->npu, ta), y = tree_find(g->bench, tb);
        if (x >= 0 && y >= 0 && x != a && g->n[x].bench < 0 && g->bmatch[y] < 0) {
            struct pt_error ignored;
            match_one(g, x, y, &ignored);
        }
    }
    refresh_collections(g);
    return 0;
}

int cmp_unmatch(struct cmp_graph *g, int a, struct pt_error *err) {
    if (a < 0 || (size_t)a >= g->npu->nnodes || g->n[a].bench < 0) return pt_errorf(err, "the node is not matched");
    g->bmatch[g->n[a].bench] = -1;
    g->n[a].bench = -1;
    g->n[a].nrows = 0;   /* its rows stay in the array, unreferenced */
    g->n[a].index = CL_NONE;
    g->n[a].magnitude = g->n[a].worst_rel = -1;
    g->n[a].manual = 0;
    if (g->nmatched) g->nmatched--;
    g->nunmatched_npu++;
    g->nunmatched_bench++;
    refresh_collections(g);
    return 0;
}

/* Ordered by msProbe's node_order (post order, model/tree.h): a module
 * after everything inside it, so the earliest diverging operation comes
 * before the modules that merely carry its difference outwards (see the
 * man page, "first divergence"). */
static int divergent(const struct cmp_graph *g, size_t i) {
    return g->npu->nodes[i].order >= 0 && g->n[i].index >= CL_WARNING && g->npu->nodes[i].kind != TK_APIS;
}

int cmp_first_divergence(const struct cmp_graph *g) {
    for (int lv = CL_ERROR; lv >= CL_WARNING; lv--)
        for (size_t k = 0; k < g->npu->norder; k++) {
            int i = g->npu->order[k];
            if (divergent(g, (size_t)i) && g->n[i].index == lv) return i;
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
    if (g->n[n].bench < 0 && g->npu->nodes[n].kind != TK_APIS) return -1;
    if (g->n[n].index == CL_NONE) return -2;
    return g->n[n].index;
}

/* ---- table compare ---- */

static const char *const head_summary[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "NPU Requires_grad", "Bench Requires_grad", "Max diff", "Min diff", "Mean diff", "L2norm diff",
    "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr", "NPU max", "NPU min", "NPU mean",
    "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Requires_grad Consistent", "Result",
    "Err_message", NULL};
static const char *const head_md5_real[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "NPU Requires_grad", "Bench Requires_grad", "NPU MD5", "BENCH MD5", "Requires_grad Consistent", "Result",
    "Err_message", NULL};

static const char *const head_tensor[] = {
    "NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape", "Bench Tensor Shape",
    "NPU Requires_grad", "Bench Requires_grad", "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
    "One Thousandth Err Ratio", "Five Thousandths Err Ratio", "NPU max", "NPU min", "NPU mean", "NPU l2norm",
    "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Requires_grad Consistent", "Result", "Err_message",
    NULL};

const char *const *cmp_header(enum cmp_mode mode) {
    if (mode == CMP_TENSOR) return head_tensor;
    return mode == CMP_MD5 ? head_md5_real : head_summary;
}

/* A row's join key is its param name, except renumbered backward rows,
 * whose keys are made once into kbuf: no copy per row. */
#define KEY_IS_NAME UINT32_MAX
struct trow { int32_t p; int32_t rec; uint32_t koff; };

struct tside {
    const struct tree *t;
    struct trow *v;
    size_t n, cap;
    char *kbuf;
    size_t klen, kcap;
};

static const char *trow_key(const struct tside *s, const struct trow *r) {
    return r->koff == KEY_IS_NAME ? tree_s(s->t, s->t->params[r->p].name) : s->kbuf + r->koff;
}

static void tside_free(struct tside *s) {
    free(s->v);
    free(s->kbuf);
}

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

static int build_side(const struct tree *t, int renumber, struct tside *s, struct pt_error *err) {
    memset(s, 0, sizeof *s);
    s->t = t;
    struct util_smap bw = {0};
    char key[8192];
    for (size_t r = 0; r < t->nrecs; r++) {
        const char *name = tree_s(t, t->recs[r].name);
        size_t cut;
        int dir = split_entry(name, &cut);
        if (!dir) continue;
        int order = 0;
        if (dir == 2) {
            char opn[4096];
            snprintf(opn, sizeof opn, "%.*s", (int)cut, name);
            int32_t *c = util_smap_slot(&bw, opn, 1);
            if (!c) goto oom;
            order = *c < 0 ? 0 : *c;
            *c = order + 1;
        }
        const struct trec *rc = &t->recs[r];
        for (int st = 0; st < 4; st++)
            for (uint32_t i = 0; i < rc->np; i++) {
                const struct tparam *p = &t->params[rc->p0 + i];
                if (p->state != st) continue;
                const char *pn = tree_s(t, p->name);
                if (dir == 2 && renumber) {
                    /* op_no_number . call_direction(renumbered) . suffix */
                    const char *cd = name + cut + 1;
                    char cdb[256];
                    const char *dot = strchr(cd, '.');
                    size_t h = dot ? (size_t)(dot - cd) : strlen(cd);
                    int head_num = h && strspn(cd, "0123456789") == h;
                    if (head_num) snprintf(cdb, sizeof cdb, "%d%s", order, cd + h);
                    else if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1))
                        snprintf(cdb, sizeof cdb, "%.*s.%d", (int)h, cd, order);
                    else snprintf(cdb, sizeof cdb, "%s", cd);
                    /* suffix: the row name with the entry name removed */
                    size_t nl = strlen(name);
                    const char *suffix = !strncmp(pn, name, nl) ? pn + nl : pn;
                    snprintf(key, sizeof key, "%.*s.%s%s", (int)cut, name, cdb, suffix);
                } else key[0] = '\0';
                if (s->n == s->cap) {
                    size_t nc = s->cap ? s->cap * 2 : 1024;
                    struct trow *nv = realloc(s->v, nc * sizeof *nv);
                    if (!nv) goto oom;
                    s->v = nv;
                    s->cap = nc;
                }
                s->v[s->n].p = (int32_t)(rc->p0 + i);
                s->v[s->n].rec = (int32_t)r;
                s->v[s->n].koff = KEY_IS_NAME;
                if (key[0]) {
                    size_t kl = strlen(key) + 1;
                    if (s->klen + kl > s->kcap) {
                        size_t nc = s->kcap ? s->kcap * 2 : 65536;
                        while (nc < s->klen + kl) nc *= 2;
                        char *nb = nc < KEY_IS_NAME ? realloc(s->kbuf, nc) : NULL;
                        if (!nb) goto oom;
                        s->kbuf = nb;
                        s->kcap = nc;
                    }
                    memcpy(s->kbuf + s->klen, key, kl);
                    s->v[s->n].koff = (uint32_t)s->klen;
                    s->klen += kl;
                }
                s->n++;
            }
    }
    util_smap_free(&bw);
    return 0;
oom:
    util_smap_free(&bw);
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

struct tctx { const struct cmp_table *t; };

static void table_sides(const void *ctx, const struct crow *r, struct side *a, struct side *b) {
    const struct cmp_table *t = ((const struct tctx *)ctx)->t;
    const struct tparam *p = &t->npu->params[r->np];
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->t = t->npu;
    a->name = tree_s(t->npu, p->name);
    a->dtype = p->dtype == TREE_NONE ? "None" : tree_s(t->npu, p->dtype);
    a->shape = p->shape == TREE_NONE ? "None" : tree_s(t->npu, p->shape);
    a->rg = param_rg(t->npu, p);
    if (!a->rg) a->rg = "N/A";
    a->md5 = tree_s(t->npu, p->md5);
    a->max = &p->stat[0];
    a->min = &p->stat[1];
    b->t = t->bench;
    if (r->bp >= 0) {
        const struct tparam *q = &t->bench->params[r->bp];
        b->name = tree_s(t->bench, q->name);
        b->dtype = q->dtype == TREE_NONE ? "None" : tree_s(t->bench, q->dtype);
        b->shape = q->shape == TREE_NONE ? "None" : tree_s(t->bench, q->shape);
        b->rg = param_rg(t->bench, q);
        if (!b->rg) b->rg = "N/A";
        b->md5 = tree_s(t->bench, q->md5);
        b->max = &q->stat[0];
        b->min = &q->stat[1];
    } else {
        b->name = b->dtype = b->shape = b->rg = b->md5 = "N/A";
    }
}

static int table_add(struct cmp_table *t, const struct trow *nr, int32_t bp) {
    struct crow r;
    memset(&r, 0, sizeof r);
    r.np = nr->p;
    r.rec = nr->rec;
    r.bp = bp;
    const struct tparam *p = &t->npu->params[nr->p];
    r.output = strstr(tree_s(t->npu, p->name), ".output.") != NULL;
    const struct tparam *q = bp >= 0 ? &t->bench->params[bp] : NULL;
    if (t->mode == CMP_TENSOR) {
        /* a row without a Bench match has Bench data_name N/A */
        const char *qd = q ? tree_s(t->bench, q->data_name) : "N/A";
        tensor_row(&t->opts, t->npu, p, t->bench, q, qd ? qd : "-1", &r, &t->tensor_failed, t->tensor_err,
                   sizeof t->tensor_err);
    } else
        for (int s = 0; s < 4; s++)
            table_stat(t->npu, &p->stat[s], t->bench, q ? &q->stat[s] : &p->stat[s], q == NULL, &r.diff[s],
                       &r.rel[s]);
    const char *x = param_rg(t->npu, p), *y = q ? param_rg(t->bench, q) : "N/A";
    if (!x) x = "N/A";
    if (!y) y = "N/A";
    r.rg_consistent = !strcmp(x, y);
    return add_row(&t->rows, &t->nrows, &t->caprows, &r);
}

int cmp_table_new(const struct tree *npu, const struct tree *bench, const struct cmp_opts *o,
                  struct cmp_table **out, struct pt_error *err) {
    *out = NULL;
    int mode = cmp_mode_of(npu, bench, err);
    if (mode < 0) return -1;
    struct cmp_table *t = calloc(1, sizeof *t);
    if (!t) return pt_errorf(err, "out of memory");
    t->npu = npu;
    t->bench = bench;
    t->mode = mode == CMP_TENSOR && !(o && o->tensor) ? CMP_SUMMARY : (enum cmp_mode)mode;
    if (o) t->opts = *o;
    t->has_stack = npu->nstacks > 0;
    int fuzzy = o && o->fuzzy;
    struct tside a, b;
    if (build_side(npu, !fuzzy, &a, err) != 0) { free(t); return -1; }
    if (build_side(bench, !fuzzy, &b, err) != 0) { tside_free(&a); free(t); return -1; }
    struct util_smap bk = {.borrow = 1};
    int rc = -1;
    /* one row per problem param: sized once rather than doubled */
    if (a.n && !(t->rows = big_realloc(NULL, a.n * sizeof *t->rows))) goto oom;
    t->caprows = a.n;
    /* a name map (layer mapping) is msProbe's data mapping: it wins over
     * fuzzy matching, joins on the mapped name and skips the dtype gate */
    int mapped = o && o->map;
    if (!fuzzy || mapped) {
        /* mapped names are the benchmark's own row names: they join on
         * those, not on the renumbered backward keys (msProbe joins them
         * with the renumbered keys and so pairs backward rows of different
         * calls whenever the renumbering changed a call count) */
        for (size_t i = 0; i < b.n; i++) {
            const char *bkey = mapped ? tree_s(bench, bench->params[b.v[i].p].name) : trow_key(&b, &b.v[i]);
            int32_t *s = util_smap_slot(&bk, bkey, 1);
            if (!s) goto oom;
            if (*s < 0) *s = (int32_t)i;
        }
        for (size_t i = 0; i < a.n; i++) {
            const char *k = trow_key(&a, &a.v[i]);
            char mk[8400];
            if (mapped) {
                /* the entry map made a row map: the mapped entry's row with
                 * the same suffix (".input.0"); an entry mapped to "N/A"
                 * finds none, an entry not in the map keeps its own name */
                const char *pn = tree_s(npu, npu->params[a.v[i].p].name);
                const char *en = tree_s(npu, npu->recs[a.v[i].rec].name);
                const char *m = o->map(o->map_ctx, en);
                size_t el = strlen(en);
                if (m) {
                    snprintf(mk, sizeof mk, "%s%s", m, strncmp(pn, en, el) ? "" : pn + el);
                    k = mk;
                } else k = pn;
            }
            int32_t *s = util_smap_slot(&bk, k, 0);
            int32_t bp = s && *s >= 0 ? b.v[*s].p : -1;
            if (bp >= 0 && !mapped && !dtype_gate(npu, &npu->params[a.v[i].p], bench, &bench->params[bp])) bp = -1;
            if (table_add(t, &a.v[i], bp) != 0) goto oom;
        }
    } else {
        /* the two-queue walk of msProbe's fuzzy match */
        size_t *nq = malloc((a.n + 1) * sizeof *nq), *bq = malloc((b.n + 1) * sizeof *bq);
        size_t nn = 0, bn = 0;
        char x[4200], y[4200];
        if (!nq || !bq) { free(nq); free(bq); goto oom; }
        size_t maxl = a.n > b.n ? a.n : b.n;
        for (size_t i = 0; i < maxl; i++) {
            if (i < a.n) nq[nn++] = i;
            if (i < b.n) bq[bn++] = i;
            if ((nn > 0) != (bn > 0)) break;
            long hn = -1, hb = -1;
            rename_api(trow_key(&a, &a.v[nq[nn - 1]]), x, sizeof x);
            for (size_t j = 0; j + 1 < bn && hn < 0; j++) {
                rename_api(trow_key(&b, &b.v[bq[j]]), y, sizeof y);
                if (!strcmp(x, y)) { hn = (long)nn - 1; hb = (long)j; }
            }
            if (hn < 0) {
                rename_api(trow_key(&b, &b.v[bq[bn - 1]]), y, sizeof y);
                if (!strcmp(x, y)) { hn = (long)nn - 1; hb = (long)bn - 1; }
            }
            if (hn < 0) {
                rename_api(trow_key(&b, &b.v[bq[bn - 1]]), y, sizeof y);
                for (size_t j = 0; j + 1 < nn && hn < 0; j++) {
                    rename_api(trow_key(&a, &a.v[nq[j]]), x, sizeof x);
                    if (!strcmp(x, y)) { hn = (long)j; hb = (long)bn - 1; }
                }
            }
            if (hn < 0) continue;
            for (long j = 0; j < hn; j++)
                if (table_add(t, &a.v[nq[j]], -1) != 0) { free(nq); free(bq); goto oom; }
            int32_t bp = b.v[bq[hb]].p;
            if (!dtype_gate(npu, &npu->params[a.v[nq[hn]].p], bench, &bench->params[bp])) bp = -1;
            if (table_add(t, &a.v[nq[hn]], bp) != 0) { free(nq); free(bq); goto oom; }
            memmove(nq, nq + hn + 1, (nn - (size_t)hn - 1) * sizeof *nq);
            nn -= (size_t)hn + 1;
            memmove(bq, bq + hb + 1, (bn - (size_t)hb - 1) * sizeof *bq);
            bn -= (size_t)hb + 1;
        }
        for (size_t j = 0; j < nn; j++)
            if (table_add(t, &a.v[nq[j]], -1) != 0) { free(nq); free(bq); goto oom; }
        free(nq);
        free(bq);
    }
    /* verdicts per dump entry */
    struct tctx ctx = {t};
    for (size_t i = 0; i < t->nrows;) {
        size_t j = i;
        while (j < t->nrows && t->rows[j].rec == t->rows[i].rec) j++;
        apply_rules(t->rows + i, j - i, t->mode, table_sides, &ctx);
        i = j;
    }
    for (size_t i = 0; i < t->nrows; i++) t->counts[t->rows[i].level]++;
    rc = 0;
    *out = t;
    goto done;
oom:
    pt_errorf(err, "out of memory");
    cmp_table_free(t);
done:
    util_smap_free(&bk);
    tside_free(&a);
    tside_free(&b);
    return rc;
}

void cmp_table_free(struct cmp_table *t) {
    if (!t) return;
    free(t->rows);
    free(t);
}

/* A JSON string literal of s at buf + o. */
static size_t json_quote(const char *s, char *buf, size_t o, size_t size) {
    if (o + 1 < size) buf[o++] = '"';
    for (; *s && o + 7 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { buf[o++] = '\\'; buf[o++] = (char)c; }
        else if (c < 0x20) o += (size_t)snprintf(buf + o, size - o, "\\u%04x", c);
        else buf[o++] = (char)c;
    }
    if (o + 1 < size) buf[o++] = '"';
    buf[o < size ? o : size - 1] = '\0';
    return o;
}

/* Err_message: the rule messages as a JSON list; in tensor mode the
 * row's tensor message (first) is its first element. */
static void msgs_json(uint16_t msgs, const char *tensor_msg, char *buf, size_t size) {
    if (!msgs && !(tensor_msg && *tensor_msg)) { cpy(buf, size, "[]"); return; }
    size_t o = 0;
    o += (size_t)snprintf(buf + o, size - o, "[");
    int first = 1;
    if (tensor_msg && *tensor_msg) {
        o = json_quote(tensor_msg, buf, o, size);
        first = 0;
    }
    for (int m = 0; m < MSG_COUNT && o < size; m++)
        if (msgs & (1u << m)) {
            o += (size_t)snprintf(buf + o, size - o, "%s\"%s\"", first ? "" : ", ", msg_text[m]);
            first = 0;
        }
    if (o < size) snprintf(buf + o, size - o, "]");
}

/* Python list text of stack lines. */
static void stack_repr(const struct tree *t, int32_t st, char *buf, size_t size) {
    size_t o = 0;
    o += (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < t->stacks[st].n && o + 8 < size; i++) {
        const char *s = tree_s(t, t->lines[t->stacks[st].l0 + i]);
        int dq = strchr(s, '\'') && !strchr(s, '"');
        if (i) { buf[o++] = ','; buf[o++] = ' '; }
        buf[o++] = dq ? '"' : '\'';
        for (; *s && o + 6 < size; s++) {
            if (*s == '\\') { buf[o++] = '\\'; buf[o++] = '\\'; }
            else if (*s == '\n') { buf[o++] = '\\'; buf[o++] = 'n'; }
            else if (*s == '\t') { buf[o++] = '\\'; buf[o++] = 't'; }
            else if (*s == '\'' && !dq) { buf[o++] = '\\'; buf[o++] = '\''; }
            else buf[o++] = *s;
        }
        buf[o++] = dq ? '"' : '\'';
    }
    if (o + 2 <= size) { buf[o++] = ']'; buf[o] = '\0'; }
    else buf[size - 1] = '\0';
}

static void stat_cell(const struct tree *t, const struct tval *v, char *buf, size_t size) {
    if (v->kind == TV_FLOAT && isinf(v->d)) { snprintf(buf, size, v->d > 0 ? " inf" : " -inf"); return; }
    table_stat_text(t, v, buf, size);
}

/* The row's tensor-mode message, msProbe's texts run together. */
static void tensor_msg(const struct tree *tn, const struct tree *tb, const struct crow *r, char *buf, size_t size) {
    size_t o = 0;
    buf[0] = '\0';
    for (int m = 0; m < TM_COUNT && o < size; m++) {
        if (!(r->tmsgs & (1u << m))) continue;
        if (m == TM_READ) {
            const char *a = tree_s(tn, tn->params[r->np].data_name);
            const char *b = r->bp >= 0 ? tree_s(tb, tb->params[r->bp].data_name) : NULL;
            o += (size_t)snprintf(buf + o, size - o, "Dump file: %s or %s not found or read failed.", a ? a : "-1",
                                  b ? b : "-1");
        } else
            o += (size_t)snprintf(buf + o, size - o, "%s", tc_msg_text(m));
    }
}

/* Python's text of the list [npu file, bench file] (Data_name column). */
static void data_name_cell(const struct tree *tn, const struct tree *tb, const struct crow *r, char *buf,
                           size_t size) {
    const char *a = tree_s(tn, tn->params[r->np].data_name);
    const char *b = r->bp >= 0 ? tree_s(tb, tb->params[r->bp].data_name) : "N/A";
    const char *v[2] = {a ? a : "-1", b ? b : "-1"};
    size_t o = 0;
    buf[o++] = '[';
    for (int i = 0; i < 2 && o + 8 < size; i++) {
        const char *s = v[i];
        int dq = strchr(s, '\'') && !strchr(s, '"');
        if (i) { buf[o++] = ','; buf[o++] = ' '; }
        buf[o++] = dq ? '"' : '\'';
        for (; *s && o + 6 < size; s++) {
            if (*s == '\\') { buf[o++] = '\\'; buf[o++] = '\\'; }
            else if (*s == '\'' && !dq) { buf[o++] = '\\'; buf[o++] = '\''; }
            else buf[o++] = *s;
        }
        buf[o++] = dq ? '"' : '\'';
    }
    if (o + 2 <= size) { buf[o++] = ']'; buf[o] = '\0'; }
    else buf[size - 1] = '\0';
}

static char *row_cell(const struct tree *tn, const struct tree *tb, enum cmp_mode mode, int graph,
                      const struct crow *r, int col, char *buf, size_t size) {
    const struct tparam *p = &tn->params[r->np];
    const struct tparam *q = r->bp >= 0 ? &tb->params[r->bp] : NULL;
    const char *na = graph && r->placeholder ? "Nan" : "N/A";
    buf[0] = '\0';
    if (col >= 6 && col <= 7) {
        const struct tparam *x = col == 6 ? p : q;
        const struct tree *t = col == 6 ? tn : tb;
        const char *rg = x ? param_rg(t, x) : na;
        cpy(buf, size, rg ? rg : (graph ? "None" : "N/A"));
        return buf;
    }
    if (col <= 5) {
        const struct tparam *x = col % 2 == 0 ? p : q;
        const struct tree *t = col % 2 == 0 ? tn : tb;
        if (!x) { cpy(buf, size, na); return buf; }
        uint32_t s = col <= 1 ? x->name : col <= 3 ? x->dtype : x->shape;
        cpy(buf, size, s == TREE_NONE ? "None" : tree_s(t, s));
        return buf;
    }
    int tail;   /* index of "Requires_grad Consistent" */
    if (mode == CMP_MD5) {
        tail = 10;
        if (col == 8) { cpy(buf, size, tree_s(tn, p->md5)); return buf; }
        if (col == 9) { cpy(buf, size, q ? tree_s(tb, q->md5) : na); return buf; }
    } else if (mode == CMP_TENSOR) {
        /* six metrics, then the same eight statistics */
        tail = 22;
        if (col >= 8 && col < 14) return cmp_cval_text(&r->metric[col - 8], graph, buf, size);
        if (col >= 14 && col < 18) { stat_cell(tn, &p->stat[col - 14], buf, size); return buf; }
        if (col >= 18 && col < 22) {
            if (!q) cpy(buf, size, na);
            else stat_cell(tb, &q->stat[col - 18], buf, size);
            return buf;
        }
    } else {
        tail = 24;
        if (col >= 8 && col < 12) return cmp_cval_text(&r->diff[col - 8], graph, buf, size);
        if (col >= 12 && col < 16) return cmp_cval_text(&r->rel[col - 12], graph, buf, size);
        if (col >= 16 && col < 20) { stat_cell(tn, &p->stat[col - 16], buf, size); return buf; }
        if (col >= 20 && col < 24) {
            if (!q) cpy(buf, size, na);
            else stat_cell(tb, &q->stat[col - 20], buf, size);
            return buf;
        }
    }
    if (col == tail) cpy(buf, size, r->rg_consistent ? "True" : "False");
    else if (col == tail + 1) cpy(buf, size, cmp_level_name(r->level));
    else if (col == tail + 2) {
        char tm[1024] = "";
        if (mode == CMP_TENSOR) tensor_msg(tn, tb, r, tm, sizeof tm);
        msgs_json(r->msgs, tm, buf, size);
    }
    return buf;
}

static int head_len(enum cmp_mode mode) {
    const char *const *h = cmp_header(mode);
    int n = 0;
    while (h[n]) n++;
    return n;
}

int cmp_table_ncols(const struct cmp_table *t) {
    return head_len(t->mode) + (t->has_stack ? 1 : 0) + (t->mode == CMP_TENSOR ? 1 : 0);
}

const char *cmp_table_colname(const struct cmp_table *t, int col) {
    int n = head_len(t->mode);
    if (col >= 0 && col < n) return cmp_header(t->mode)[col];
    if (col == n && t->has_stack) return "NPU_Stack_Info";
    if (col == n + (t->has_stack ? 1 : 0) && t->mode == CMP_TENSOR) return "Data_name";
    return NULL;
}

char *cmp_table_cell(const struct cmp_table *t, const struct crow *r, int col, char *buf, size_t size) {
    int ncols = head_len(t->mode);
    if (t->mode == CMP_TENSOR && col == ncols + (t->has_stack ? 1 : 0)) {
        data_name_cell(t->npu, t->bench, r, buf, size);
        return buf;
    }
    if (col == ncols && t->has_stack) {
        /* NPU_Stack_Info: on the first row of each entry */
        int first = r == t->rows || r[-1].rec != r->rec;
        const char *name = tree_s(t->npu, t->npu->recs[r->rec].name);
        int32_t st = -1;
        if (first) {
            /* the raw stack.json entry, not the node's borrowed one */
            st = tree_stack_of_id(t->npu, name);
        }
        if (st < 0) cpy(buf, size, "N/A");
        else stack_repr(t->npu, st, buf, size);
        return buf;
    }
    return row_cell(t->npu, t->bench, t->mode, 0, r, col, buf, size);
}

char *cmp_graph_cell(const struct cmp_graph *g, const struct crow *r, int col, char *buf, size_t size) {
    return row_cell(g->npu, g->bench, g->mode, 1, r, col, buf, size);
}
