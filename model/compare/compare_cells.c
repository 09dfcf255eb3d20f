/* compare_cells: the text of compare values and table cells, as msProbe
 * prints them (Python float text, "N/A", "Nan", "12.5%", the Err_message
 * JSON list, stack and Data_name lists), and the column headers. */
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


char *cmp_cval_text(const struct cval *c, int graph, char *buf, size_t size) {
    switch (c->kind) {
    case CV_BLANK: cmp_cpy(buf, size, ""); break;
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
    case CV_NA: cmp_cpy(buf, size, "N/A"); break;
    case CV_NAN: cmp_cpy(buf, size, "Nan"); break;
    case CV_INF: cmp_cpy(buf, size, "inf"); break;
    case CV_NINF: cmp_cpy(buf, size, "-inf"); break;
    case CV_ZERO: cmp_cpy(buf, size, "0"); break;
    case CV_DIFF: cmp_cpy(buf, size, "Diff"); break;
    case CV_UNSUP: cmp_cpy(buf, size, "unsupported"); break;
    case CV_SHAPE: cmp_cpy(buf, size, "shape unmatched"); break;
    }
    return buf;
}

/* ---- table columns ---- */

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
    if (!msgs && !(tensor_msg && *tensor_msg)) { cmp_cpy(buf, size, "[]"); return; }
    size_t o = 0;
    o += (size_t)snprintf(buf + o, size - o, "[");
    int first = 1;
    if (tensor_msg && *tensor_msg) {
        o = json_quote(tensor_msg, buf, o, size);
        first = 0;
    }
    for (int m = 0; m < MSG_COUNT && o < size; m++)
        if (msgs & (1u << m)) {
            o += (size_t)snprintf(buf + o, size - o, "%s\"%s\"", first ? "" : ", ", cmp_msg_text(m));
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
            /* a run needing no escape in one copy (stack lines are long) */
            size_t run = strcspn(s, dq ? "\\\n\t" : "\\\n\t'");
            if (run > 1) {
                if (run > size - 6 - o) run = size - 6 - o;   /* as many as the byte loop would take */
                memcpy(buf + o, s, run);
                o += run;
                s += run - 1;
                continue;
            }
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

/* Stat k of p. */
static void stat_cell(const struct tree *t, const struct tparam *p, int k, char *buf, size_t size) {
    struct tval v = tree_stat(t, p, k);
    if (v.kind == TV_FLOAT && isinf(v.real)) { snprintf(buf, size, v.real > 0 ? " inf" : " -inf"); return; }
    cmp_table_stat_text(t, &v, buf, size);
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
            o += (size_t)snprintf(buf + o, size - o, "%s", tensorcmp_msg_text(m));
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
        const char *rg = x ? cmp_param_rg(t, x) : na;
        cmp_cpy(buf, size, rg ? rg : (graph ? "None" : "N/A"));
        return buf;
    }
    if (col <= 5) {
        const struct tparam *x = col % 2 == 0 ? p : q;
        const struct tree *t = col % 2 == 0 ? tn : tb;
        if (!x) { cmp_cpy(buf, size, na); return buf; }
        if (col <= 1) {
            struct tree_pn nb = {0};
            const char *nm = tree_pname_r(t, col == 0 ? r->rec : r->brec, x, &nb);
            cmp_cpy(buf, size, nm ? nm : "None");
            tree_pn_free(&nb);
            return buf;
        }
        uint32_t s = col <= 3 ? x->dtype : x->shape;
        cmp_cpy(buf, size, s == TREE_NONE ? "None" : tree_s(t, s));
        return buf;
    }
    int tail;   /* index of "Requires_grad Consistent" */
    if (mode == CMP_MD5) {
        tail = 10;
        /* a null item (a JSON null in an output list) has no checksum:
         * None in a graph, N/A in msProbe's table (probetop-rules(7), MD5 METRICS) */
        const char *none = graph ? "None" : "N/A";
        if (col == 8) { cmp_cpy(buf, size, p->md5 == TREE_NONE ? none : tree_s(tn, p->md5)); return buf; }
        if (col == 9) {
            cmp_cpy(buf, size, !q ? na : q->md5 == TREE_NONE ? none : tree_s(tb, q->md5));
            return buf;
        }
    } else if (mode == CMP_TENSOR) {
        /* six metrics, then the same eight statistics */
        tail = 22;
        if (col >= 8 && col < 14) return cmp_cval_text(&r->metric[col - 8], graph, buf, size);
        if (col >= 14 && col < 18) { stat_cell(tn, p, col - 14, buf, size); return buf; }
        if (col >= 18 && col < 22) {
            if (!q) cmp_cpy(buf, size, na);
            else stat_cell(tb, q, col - 18, buf, size);
            return buf;
        }
    } else {
        tail = 24;
        if (col >= 8 && col < 12) return cmp_cval_text(&r->diff[col - 8], graph, buf, size);
        if (col >= 12 && col < 16) return cmp_cval_text(&r->rel[col - 12], graph, buf, size);
        if (col >= 16 && col < 20) { stat_cell(tn, p, col - 16, buf, size); return buf; }
        if (col >= 20 && col < 24) {
            if (!q) cmp_cpy(buf, size, na);
            else stat_cell(tb, q, col - 20, buf, size);
            return buf;
        }
    }
    if (col == tail) cmp_cpy(buf, size, r->rg_consistent ? "True" : "False");
    else if (col == tail + 1) cmp_cpy(buf, size, cmp_level_name(r->level));
    else if (col == tail + 2) {
        char tm[1024] = "";
        if (mode == CMP_TENSOR) tensor_msg(tn, tb, r, tm, sizeof tm);
        msgs_json(r->msgs, tm, buf, size);
    }
    return buf;
}

/* Columns of each header, counted once (a csv asks for every cell). */
#define HEAD_N(h) ((int)(sizeof h / sizeof h[0]) - 1)
static int head_len(enum cmp_mode mode) {
    if (mode == CMP_TENSOR) return HEAD_N(head_tensor);
    return mode == CMP_MD5 ? HEAD_N(head_md5_real) : HEAD_N(head_summary);
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
        if (st < 0) cmp_cpy(buf, size, "N/A");
        else stack_repr(t->npu, st, buf, size);
        return buf;
    }
    return row_cell(t->npu, t->bench, t->mode, 0, r, col, buf, size);
}

char *cmp_graph_cell(const struct cmp_graph *g, const struct crow *r, int col, char *buf, size_t size) {
    return row_cell(g->npu, g->bench, g->mode, 1, r, col, buf, size);
}
