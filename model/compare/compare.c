/* compare: the values and metrics of msProbe's graph and table compares
 * (probetop-rules(7), STATISTICS METRICS).  Values stay typed (struct tval / struct
 * cval) until printed, so the rules (model/compare/compare_rules.c) see exactly the
 * values msProbe looks at; the cells' text is made only for output
 * (model/compare/compare_cells.c).  Matching lives in model/compare/compare_match.c (graph)
 * and model/compare/compare_table.c (table).
 *
 * This file is the bottom of the compare files: the rules and the cells
 * call it, it calls neither.  So the two pieces of value text the metrics
 * themselves need live here: a value's Python str() (the table compare
 * tests equality on it) and a relative error as a fraction (what makes a
 * row differ). */
#include "model/compare/compare.h"
#include "model/compare/compare_int.h"

#include "model/util/bigmem.h"
#include "model/util/util.h"
#include "model/compare/tensorcmp.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* ---- text ---- */

/* cmp_pyfloat lives in model/compare/pyfloat.c */

/* snprintf("%s") without the format parsing: cells are copied millions of
 * times for one csv. */
void cmp_cpy(char *buf, size_t size, const char *s) {
    if (!size) return;
    size_t n = strlen(s);
    if (n >= size) n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

/* Python str() of a value: the text the table compare's equality sees
 * (probetop-rules(7), STATISTICS METRICS: Table values) and the cells print. */
char *cmp_tval_text(const struct tree *t, const struct tval *v, char *buf, size_t size) {
    switch (v->kind) {
    case TV_NONE: cmp_cpy(buf, size, "None"); break;
    case TV_INT:
        if (v->text != TREE_NONE) cmp_cpy(buf, size, tree_s(t, v->text));
        else snprintf(buf, size, "%lld", (long long)v->integer);
        break;
    case TV_FLOAT: cmp_pyfloat(v->real, buf, size); break;
    case TV_BOOL: snprintf(buf, size, v->integer ? "True" : "False"); break;
    case TV_STR: cmp_cpy(buf, size, v->text == TREE_NONE ? "" : tree_s(t, v->text)); break;
    }
    return buf;
}

/* ---- graph values (probetop-rules(7), STATISTICS METRICS: Graph values) ---- */

void cmp_graph_stat(const struct tval *n, const struct tval *b, struct cval *diff, struct cval *rel) {
    memset(diff, 0, sizeof *diff);
    memset(rel, 0, sizeof *rel);
    if (!tv_isnum(n) || !tv_isnum(b)) {
        diff->kind = rel->kind = CV_NA;
        return;
    }
    double d, bv = b->kind == TV_INT ? (double)b->integer : b->real;
    if (n->kind == TV_INT && b->kind == TV_INT) {
        diff->kind = CV_INT;
        diff->i = n->integer - b->integer;
        d = (double)diff->i;
    } else {
        d = (n->kind == TV_INT ? (double)n->integer : n->real) - bv;
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

/* ---- table values (probetop-rules(7), STATISTICS METRICS: Table values) ---- */

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
        if (isnan(v->real)) return VT_NAN;
        if (isinf(v->real)) return v->real > 0 ? VT_INF : VT_NINF;
        *num = v->real;
        return VT_NUM;
    case TV_INT: *num = (double)v->integer; return VT_NUM;
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
void cmp_table_stat_text(const struct tree *t, const struct tval *v, char *buf, size_t size) {
    if (v->kind == TV_FLOAT && isnan(v->real)) { cmp_cpy(buf, size, "Nan"); return; }
    cmp_tval_text(t, v, buf, size);
}

void cmp_table_stat(const struct tree *tn, const struct tval *n, const struct tree *tb, const struct tval *b,
                       int bench_na, struct cval *diff, struct cval *rel) {
    memset(diff, 0, sizeof *diff);
    memset(rel, 0, sizeof *rel);
    /* equal as text (pandas compares str() of both); for two numbers of one
     * kind that is equality of the values (repr is one-to-one), NaN printing
     * as "Nan" on both sides */
    int same;
    if (bench_na) same = 0;
    else if (n->kind == TV_FLOAT && b->kind == TV_FLOAT)
        same = (isnan(n->real) && isnan(b->real)) || (n->real == b->real && signbit(n->real) == signbit(b->real));
    else if (n->kind == TV_INT && b->kind == TV_INT) same = n->integer == b->integer;
    else if ((n->kind == TV_INT && b->kind == TV_FLOAT) || (n->kind == TV_FLOAT && b->kind == TV_INT)) same = 0;
    else {
        char a[256], c[256];
        cmp_table_stat_text(tn, n, a, sizeof a);
        cmp_table_stat_text(tb, b, c, sizeof c);
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

/* ---- rows ---- */

const char *cmp_param_rg(const struct tree *t, const struct tparam *p) {
    if (p->req_grad == TREE_RG_TRUE) return "True";
    if (p->req_grad == TREE_RG_FALSE) return "False";
    if (p->req_grad != TREE_RG_OTHER) return NULL;
    struct tval v = tree_rg_get(t, p);
    return v.kind == TV_STR ? tree_s(t, v.text) : NULL;
}

/* the row's flag word holds every message bit */
_Static_assert(MSG_COUNT <= 11 && TM_COUNT <= 16 && CL_ERROR < 4, "struct crow bit-fields too narrow");

int cmp_add_row(struct crow **rows, size_t *n, size_t *cap, const struct crow *r) {
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 1024;
        struct crow *nr = bigmem_realloc(*rows, nc * sizeof *nr);
        if (!nr) return -1;
        *rows = nr;
        *cap = nc;
    }
    (*rows)[(*n)++] = *r;
    return 0;
}

/* probetop-rules(7), TENSOR METRICS: the six metrics of one row from the real tensors, loaded here and
 * freed before returning, so only one pair is in memory at a time.
 * bench_dn is the Bench data_name as msProbe sees it ("-1" no file, "N/A"
 * no Bench param).  A read failure is counted and its first message kept. */
void cmp_tensor_row(const struct cmp_opts *o, const struct tree *tn, const struct tparam *p,
                       const struct tree *tb, const struct tparam *q, const char *bench_dn, struct crow *r,
                       size_t *failed, char *note, size_t notesz) {
    tensorcmp_fill(r->metric, CV_UNSUP);
    r->tmsgs = 0;
    const char *dn = tree_s(tn, p->data_name);
    if (!dn || !strcmp(dn, "-1")) { r->tmsgs = 1u << TM_NPU_NOFILE; return; }
    if (!strcmp(bench_dn, "-1")) { r->tmsgs = 1u << TM_BENCH_NOFILE; return; }
    if (!strcmp(bench_dn, "N/A") || !q) { r->tmsgs = 1u << TM_UNMATCHED; return; }
    struct tensorcmp_tensor x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    struct pt_error e;
    e.msg[0] = '\0';
    if (o->tensor(o->tensor_ctx, tn, p, &x, &e) != 0 || o->tensor(o->tensor_ctx, tb, q, &y, &e) != 0) {
        r->tmsgs = 1u << TM_READ;
        if (!(*failed)++) snprintf(note, notesz, "%s", e.msg);
    } else r->tmsgs = (uint16_t)tensorcmp_compare(&x, &y, r->metric);
    free(x.v);
    free(y.v);
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

int cmp_row_differs(const struct crow *r, enum cmp_mode mode) {
    double w;
    return r->level == CL_ERROR || (cmp_row_worst(r, mode, &w) && w > 0.5);
}

int cmp_row_worst(const struct crow *r, enum cmp_mode mode, double *out) {
    if (mode == CMP_MD5 || mode == CMP_STRUCTURE) return 0;
    if (mode == CMP_TENSOR) {
        const struct cval *c = &r->metric[TENSORCMP_MAXREL];
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
