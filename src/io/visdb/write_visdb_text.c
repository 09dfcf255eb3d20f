/* write_visdb_text: the text of a .vis.db's JSON columns as msProbe writes
 * them -- Python's json.dumps (", " and ": " separators, ensure_ascii) of
 * the param objects its format_node_data makes (probetop-formats(5),
 * VIS.DB: input_data and output_data): every value turned into text, text
 * values without single quotes and with None read as null, decimals of
 * more than 6 places cut to 6, a param whose Max is null one
 * {"value": "null"}, and on a matched problem node the compare columns of
 * its row. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"
#include "src/io/visdb/write_visdb_int.h"

void write_visdb_text_add(struct write_visdb_buf *v, const char *s, size_t n) {
    if (v->oom) return;
    if (v->n + n + 1 > v->cap && util_grow((void **)&v->b, &v->cap, v->n + n + 1, 1) != 0) { v->oom = 1; return; }
    memcpy(v->b + v->n, s, n);
    v->n += n;
    v->b[v->n] = '\0';
}

void write_visdb_text_cstr(struct write_visdb_buf *v, const char *s) { write_visdb_text_add(v, s, strlen(s)); }

/* One UTF-8 sequence at s: its code point and length (a bad byte: itself). */
static unsigned utf8_next(const unsigned char *s, int *len) {
    unsigned c = s[0];
    int n = c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (c < 0x80 || n == 1) { *len = 1; return c; }
    unsigned cp = c & (0x3f >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) { *len = 1; return c; }
        cp = cp << 6 | (s[i] & 0x3f);
    }
    *len = n;
    return cp;
}

void write_visdb_text_json(struct write_visdb_buf *v, const char *s) {
    char esc[16];
    const unsigned char *p = (const unsigned char *)s;
    /* the common case, nothing to escape: one copy */
    const unsigned char *e = p;
    while (*e >= 0x20 && *e < 0x80 && *e != '"' && *e != '\\') e++;
    if (!*e) {
        size_t n = (size_t)(e - p);
        if (v->oom) return;
        if (v->n + n + 3 > v->cap && util_grow((void **)&v->b, &v->cap, v->n + n + 3, 1) != 0) { v->oom = 1; return; }
        char *o = v->b + v->n;
        o[0] = '"';
        memcpy(o + 1, s, n);
        o[n + 1] = '"';
        o[n + 2] = '\0';
        v->n += n + 2;
        return;
    }
    write_visdb_text_add(v, "\"", 1);
    while (*p) {
        const unsigned char *q = p;
        while (*q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\') q++;
        if (q > p) write_visdb_text_add(v, (const char *)p, (size_t)(q - p));
        p = q;
        if (!*p) break;
        unsigned c = *p;
        int len = 1;
        switch (c) {
        case '"': write_visdb_text_add(v, "\\\"", 2); break;
        case '\\': write_visdb_text_add(v, "\\\\", 2); break;
        case '\n': write_visdb_text_add(v, "\\n", 2); break;
        case '\r': write_visdb_text_add(v, "\\r", 2); break;
        case '\t': write_visdb_text_add(v, "\\t", 2); break;
        case '\b': write_visdb_text_add(v, "\\b", 2); break;
        case '\f': write_visdb_text_add(v, "\\f", 2); break;
        default:
            if (c < 0x20) { snprintf(esc, sizeof esc, "\\u%04x", c); write_visdb_text_cstr(v, esc); break; }
            c = utf8_next(p, &len);
            if (c >= 0x10000) {
                c -= 0x10000;
                snprintf(esc, sizeof esc, "\\u%04x\\u%04x", 0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
            } else snprintf(esc, sizeof esc, "\\u%04x", c);
            write_visdb_text_cstr(v, esc);
        }
        p += len;
    }
    write_visdb_text_add(v, "\"", 1);
}

/* ---- msProbe's _format_data on one value ---- */

/* A text value: single quotes out, "None" -> "null", a plain decimal of
 * more than 6 places (a percentage too) printed with 6. */
static void str_rules(const char *s, char *out, size_t size) {
    size_t o = 0;
    for (; *s && o + 5 < size; s++) {
        if (*s == '\'') continue;
        if (*s == 'N' && !strncmp(s, "None", 4)) { memcpy(out + o, "null", 4); o += 4; s += 3; continue; }
        out[o++] = *s;
    }
    out[o] = '\0';
    /* ^\d{1,20}\.\d{1,20}%?$ */
    size_t i = 0, a, b;
    while (isdigit((unsigned char)out[i])) i++;
    a = i;
    if (a < 1 || a > 20 || out[i] != '.') return;
    i++;
    while (isdigit((unsigned char)out[i])) i++;
    b = i - a - 1;
    int pct = out[i] == '%';
    if (b < 1 || b > 20 || out[i + (size_t)pct] != '\0' || b <= 6) return;
    out[i] = '\0';
    double x = strtod(out, NULL);
    snprintf(out, size, "%.6f%s", x, pct ? "%" : "");
}

/* "key": "text" (with the text rules when is_str) */
static void kv(struct write_visdb_buf *v, int *first, const char *key, const char *text, int is_str) {
    char ruled[4096];
    if (!*first) write_visdb_text_add(v, ", ", 2);
    *first = 0;
    write_visdb_text_json(v, key);
    write_visdb_text_add(v, ": ", 2);
    if (is_str && strlen(text) < sizeof ruled - 8) {
        str_rules(text, ruled, sizeof ruled);
        text = ruled;
    }
    write_visdb_text_json(v, text);
}

/* A pool string as a text value (None -> "null"). */
static void kv_s(struct write_visdb_buf *v, int *first, const struct tree *t, const char *key, uint32_t s) {
    kv(v, first, key, s == TREE_NONE ? "null" : tree_s(t, s), s != TREE_NONE);
}

/* A statistic: str() of a number or bool; text values by the text rules. */
/* Stat k of p. */
static void stat_text(const struct tree *t, const struct tparam *p, int k, char *buf, size_t size, int *is_str) {
    struct tval x = tree_stat(t, p, k);
    *is_str = x.kind == TV_STR && !x.is_repr;
    if (x.kind == TV_NONE) { snprintf(buf, size, "null"); *is_str = 0; return; }
    cmp_tval_text(t, &x, buf, size);
}

/* The value member: a number stays a number (no rules), text gets them. */
static int numeric(const char *s) {
    if (!*s) return 0;
    char *e;
    (void)strtod(s, &e);
    return *e == '\0' && !isspace((unsigned char)*s);
}

static const char *const stat_names[4] = {"Max", "Min", "Mean", "Norm"};

/* The compare columns msProbe adds to a matched problem param (GraphConst
 * SUMMARY/MD5/REAL_DATA_INDEX_LIST), by column of the compare table. */
static const int cols_summary[] = {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, -1};
static const int cols_md5[] = {11, 10, 12, -1};
static const int cols_tensor[] = {8, 9, 10, 11, 12, 13, 22, 23, 24, -1};

static void compare_cols(struct write_visdb_buf *v, int *first, const struct cmp_graph *g, const struct crow *r) {
    const int *cols = g->mode == CMP_MD5 ? cols_md5 : g->mode == CMP_TENSOR ? cols_tensor : cols_summary;
    const char *const *head = cmp_header(g->mode);
    char buf[8192];
    for (int i = 0; cols[i] >= 0; i++) {
        int c = cols[i];
        const struct cval *cv = NULL;
        if (g->mode == CMP_SUMMARY && c >= 8 && c < 12) cv = &r->diff[c - 8];
        else if (g->mode == CMP_SUMMARY && c >= 12 && c < 16) cv = &r->rel[c - 12];
        else if (g->mode == CMP_TENSOR && c >= 8 && c < 14) cv = &r->metric[c - 8];
        cmp_graph_cell(g, r, c, buf, sizeof buf);
        /* a number (float, int) is printed by str(); everything else is text */
        int is_str = !cv || (cv->kind != CV_NUM && cv->kind != CV_INT);
        if (cv && cv->kind == CV_BLANK) { kv(v, first, head[c], "null", 0); continue; }
        kv(v, first, head[c], buf, is_str);
    }
}

/* One param object. */
static void param_obj(struct write_visdb_buf *v, const struct tree *t, const struct tparam *p,
                      const struct cmp_graph *g, const struct crow *r, enum cmp_mode mode) {
    char buf[4096], mx[4096];
    int is_str, first = 1;
    if (p->is_null) { write_visdb_text_cstr(v, "{\"value\": \"null\"}"); return; }
    stat_text(t, p, 0, mx, sizeof mx, &is_str);
    if (is_str) { str_rules(mx, buf, sizeof buf); snprintf(mx, sizeof mx, "%s", buf); }
    if (!strcmp(mx, "null")) { write_visdb_text_cstr(v, "{\"value\": \"null\"}"); return; }
    const char *type = tree_s(t, p->type);
    int md5 = mode == CMP_MD5;
    write_visdb_text_add(v, "{", 1);
    if (type && !strcmp(type, "torch.ProcessGroup")) {
        /* only type, group_ranks, group_id, data_name are kept */
        kv_s(v, &first, t, "type", p->type);
        stat_text(t, p, 0, buf, sizeof buf, &is_str);
        kv(v, &first, "group_ranks", buf, 0);
        uint32_t gid = tree_comm_gid(t, p);
        if (gid != TREE_NONE) kv_s(v, &first, t, "group_id", gid);
        kv_s(v, &first, t, "data_name", p->data_name);
    } else if (p->value == TREE_NONE || (type && !strcmp(type, "torch.Tensor"))) {
        /* a tensor leaf: its members, then what msProbe adds */
        if (p->type != TREE_NONE) kv_s(v, &first, t, "type", p->type);
        kv_s(v, &first, t, "dtype", p->dtype);
        kv(v, &first, "shape", p->shape == TREE_NONE ? "null" : tree_s(t, p->shape), 0);
        for (int i = 0; i < 4; i++) {
            stat_text(t, p, i, buf, sizeof buf, &is_str);
            kv(v, &first, stat_names[i], buf, is_str);
        }
        kv(v, &first, "requires_grad",
           p->req_grad == TREE_RG_TRUE ? "True" : p->req_grad == TREE_RG_FALSE ? "False" : "null", 0);
        if (md5) kv_s(v, &first, t, "md5", p->md5);
        kv_s(v, &first, t, "data_name", p->data_name);
    } else {
        /* a non-tensor leaf {"type", "value"}: value, then the filled-in fields */
        if (p->type != TREE_NONE) kv_s(v, &first, t, "type", p->type);
        const char *val = tree_s(t, p->value);
        kv(v, &first, "value", val, !numeric(val));
        kv_s(v, &first, t, "data_name", p->data_name);
        kv(v, &first, "requires_grad",
           p->req_grad == TREE_RG_TRUE ? "True" : p->req_grad == TREE_RG_FALSE ? "False" : "null", 0);
        for (int i = 0; i < 4; i++) {
            stat_text(t, p, i, buf, sizeof buf, &is_str);
            kv(v, &first, stat_names[i], buf, is_str);
        }
        kv_s(v, &first, t, "dtype", p->dtype);
        kv(v, &first, "shape", p->shape == TREE_NONE ? "null" : tree_s(t, p->shape), 1);
        if (md5) kv_s(v, &first, t, "md5", p->md5);
    }
    /* a process group keeps its four members only, the compare columns
     * too are dropped (format_node_data runs after the compare) */
    if (g && r && !(type && !strcmp(type, "torch.ProcessGroup"))) compare_cols(v, &first, g, r);
    write_visdb_text_add(v, "}", 1);
}

void write_visdb_text_params(struct write_visdb_buf *v, const struct tree *t, int n, int output,
                             const struct cmp_graph *g, const int32_t *rowof, enum cmp_mode mode) {
    uint32_t np;
    const struct tparam *ps = tree_params(t, n, &np);
    int first = 1;
    struct tree_pn nb = {0};
    write_visdb_text_add(v, "{", 1);
    for (uint32_t i = 0; i < np; i++) {
        const struct tparam *p = &ps[i];
        if (!!p->output_map != !!output) continue;
        const char *name = tree_pname_r(t, t->nodes[n].rec, p, &nb);
        /* a dict key seen again (parameter gradients: list indices are not
         * in the name) keeps its first place and takes the last value */
        const struct tparam *last = p;
        int dup = 0;
        if (p->state == PS_PGRAD) {
            for (uint32_t j = 0; j < i && !dup; j++)
                if (!!ps[j].output_map == !!output && !strcmp(tree_s(t, ps[j].name), tree_s(t, p->name))) dup = 1;
            if (dup) continue;
            for (uint32_t j = i + 1; j < np; j++)
                if (!!ps[j].output_map == !!output && !strcmp(tree_s(t, ps[j].name), tree_s(t, p->name))) last = &ps[j];
        }
        if (!first) write_visdb_text_add(v, ", ", 2);
        first = 0;
        write_visdb_text_json(v, name);
        write_visdb_text_add(v, ": ", 2);
        int32_t row = rowof ? rowof[last - t->params] : -1;
        param_obj(v, t, last, g, row >= 0 ? &g->rows[row] : NULL, mode);
    }
    tree_pn_free(&nb);
    write_visdb_text_add(v, "}", 1);
}
