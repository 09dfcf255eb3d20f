/* read_stack: stack.json into a struct tree with the pull tokenizer, one
 * entry at a time (not the whole file as a cJSON tree, which was about
 * three times the file at the peak of a compare).
 *
 * The same meaning as the cJSON tree it replaces:
 *  - grouped form when the first top-level key "0" has a value that is not
 *    null, false or []: each value [ids, lines, ...] is one stack (values
 *    that are not arrays of at least two items give an empty stack); the
 *    string items of ids and lines (arrays, or objects' member values) are
 *    its names and lines;
 *  - otherwise per-name form: key -> list of lines, one stack per key (a
 *    value that is not an array: no lines);
 *  - other items are skipped; the bare NaN / Infinity / -Infinity count as
 *    the strings "NaN", "Infinity", "-Infinity" (json_tree_parse's
 *    rewrite); a string is cut at a decoded NUL (C strings); bytes after
 *    the top-level object are not read. */
#include "src/io/dump/read_stack.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"
#include "src/io/common/json.h"

struct sbuf {
    char *s;
    size_t n, cap;
};

static int sbuf_reserve(struct sbuf *b, size_t more) { return util_grow((void **)&b->s, &b->cap, b->n + more, 1); }

/* The current token as the string cJSON would have held (appended to b at
 * b->n, NUL-terminated, b->n unchanged): 1 and its length, 0 when it is no
 * string, -1 out of memory. */
static int tok_text(struct json_lex *lx, enum json_tok tok, struct sbuf *b, const char **s, size_t *len) {
    if (tok == JT_NUMBER) {
        const char *p = lx->tok_start;
        const char *lit = *p == 'N' ? "NaN" : *p == 'I' ? "Infinity" : p[0] == '-' && p[1] == 'I' ? "-Infinity" : NULL;
        if (!lit) return 0;
        *s = lit;
        *len = strlen(lit);
        return 1;
    }
    if (tok != JT_STRING && tok != JT_KEY) return 0;
    if (sbuf_reserve(b, lx->slen + 1) != 0) return -1;
    char *o = b->s + b->n;
    if (!lx->has_esc) {
        memcpy(o, lx->str, lx->slen);
        o[lx->slen] = '\0';
    } else if (json_lex_string(lx, o, lx->slen + 1) < 0) {
        o[0] = '\0';
    }
    *s = o;
    *len = strlen(o);
    return 1;
}

/* The first top-level "0" (as cJSON_GetObjectItemCaseSensitive finds it):
 * 1 when its value makes the file grouped.  Errors are left to the reading
 * pass, which meets them at the same place. */
static int is_grouped(const char *buf, size_t len, const char *path) {
    struct pt_error lerr;
    struct json_lex lx;
    json_lex_init(&lx, buf, len, path, &lerr);
    if (json_lex_next(&lx) != JT_OBJ_BEGIN) return 0;
    for (;;) {
        if (json_lex_next(&lx) != JT_KEY) return 0;
        char k[2];
        int zero = lx.has_esc ? lx.slen <= 6 && json_lex_string(&lx, k, sizeof k) == 1 && k[0] == '0'
                              : lx.slen == 1 && lx.str[0] == '0';
        enum json_tok tok = json_lex_next(&lx);
        if (tok == JT_ERROR) return 0;
        if (zero) return tok != JT_NULL && tok != JT_FALSE && !(tok == JT_ARR_BEGIN && json_lex_next(&lx) == JT_ARR_END);
        if (json_lex_skip(&lx, tok) != 0) return 0;
    }
}

/* The string items of the value starting at tok (an array, or an object's
 * member values; nothing for other values), each to fn: 0, -1 bad JSON,
 * -2 out of memory. */
typedef int (*item_fn)(void *ctx, const char *s, size_t len);
static int each_string(struct json_lex *lx, enum json_tok tok, struct sbuf *b, item_fn fn, void *ctx) {
    if (tok != JT_ARR_BEGIN && tok != JT_OBJ_BEGIN) return json_lex_skip(lx, tok) != 0 ? -1 : 0;
    enum json_tok close = tok == JT_ARR_BEGIN ? JT_ARR_END : JT_OBJ_END;
    for (;;) {
        tok = json_lex_next(lx);
        if (tok == close) return 0;
        if (tok == JT_KEY) tok = json_lex_next(lx);
        if (tok == JT_ERROR) return -1;
        const char *s;
        size_t len;
        int r = tok_text(lx, tok, b, &s, &len);
        if (r < 0) return -2;
        if (r == 0 && json_lex_skip(lx, tok) != 0) return -1;
        if (r > 0 && fn(ctx, s, len) != 0) return -2;
    }
}

struct line_ctx {
    struct tree *t;
    int st;
};

static int add_line(void *ctx, const char *s, size_t len) {
    struct line_ctx *c = ctx;
    return tree_stack_line(c->t, c->st, s, len);
}

/* An id kept until the entry is known to have lines (two items). */
static int keep_id(void *ctx, const char *s, size_t len) {
    struct sbuf *ids = ctx;
    if (sbuf_reserve(ids, len + 1) != 0) return -1;
    memcpy(ids->s + ids->n, s, len + 1);
    ids->n += len + 1;
    return 0;
}

/* One grouped entry, its value's first token tok: 0, -1, -2 as each_string. */
static int grouped_entry(struct tree *t, int st, struct json_lex *lx, enum json_tok tok, struct sbuf *b,
                         struct sbuf *ids) {
    if (tok != JT_ARR_BEGIN) return json_lex_skip(lx, tok) != 0 ? -1 : 0;
    ids->n = 0;
    if ((tok = json_lex_next(lx)) == JT_ARR_END) return 0;
    int r;
    if (tok == JT_ERROR || (r = each_string(lx, tok, b, keep_id, ids)) == -1) return -1;
    if (r) return r;
    if ((tok = json_lex_next(lx)) == JT_ARR_END) return 0;
    struct line_ctx lc = {t, st};
    if (tok == JT_ERROR || (r = each_string(lx, tok, b, add_line, &lc)) == -1) return -1;
    if (r) return r;
    while ((tok = json_lex_next(lx)) != JT_ARR_END)
        if (tok == JT_ERROR || json_lex_skip(lx, tok) != 0) return -1;
    for (size_t at = 0; at < ids->n;) {
        size_t len = strlen(ids->s + at);
        if (tree_stack_assign(t, ids->s + at, len, st) != 0) return -2;
        at += len + 1;
    }
    return 0;
}

/* One per-name entry: its lines (an array's strings), then the key. */
static int flat_entry(struct tree *t, int st, struct json_lex *lx, enum json_tok tok, struct sbuf *b,
                      const char *key, size_t klen) {
    struct line_ctx lc = {t, st};
    int r = tok == JT_ARR_BEGIN ? each_string(lx, tok, b, add_line, &lc) : json_lex_skip(lx, tok) != 0 ? -1 : 0;
    if (r) return r;
    return tree_stack_assign(t, key, klen, st) != 0 ? -2 : 0;
}

int read_stack_file(struct tree *t, const char *path, struct pt_error *err) {
    const char *buf;
    size_t len;
    if (json_map_file(path, (size_t)1 << 31, &buf, &len, err) != 0) return -1;
    if (!len) {
        json_unmap_file(buf, len);
        return pt_errorf(err, "%s: empty file, expected a JSON object", path);
    }
    int grouped = is_grouped(buf, len, path);
    struct json_lex lx;
    json_lex_init(&lx, buf, len, path, err);
    struct sbuf key = {0}, b = {0}, ids = {0};
    int r = 0;
    enum json_tok tok = json_lex_next(&lx);
    if (tok != JT_OBJ_BEGIN) {
        if (tok != JT_ERROR && json_lex_skip(&lx, tok) == 0) pt_errorf(err, "%s: expected an object", path);
        r = -1;
    }
    while (r == 0 && (tok = json_lex_next(&lx)) != JT_OBJ_END) {
        const char *k;
        size_t kl;
        int kr = tok == JT_KEY ? tok_text(&lx, tok, &key, &k, &kl) : 0;
        if (kr <= 0) { r = kr < 0 ? -2 : -1; break; }
        int st = tree_new_stack(t);
        if ((tok = json_lex_next(&lx)) == JT_ERROR) { r = -1; break; }
        if (st < 0) { r = -2; break; }
        r = grouped ? grouped_entry(t, st, &lx, tok, &b, &ids) : flat_entry(t, st, &lx, tok, &b, k, kl);
    }
    free(key.s);
    free(b.s);
    free(ids.s);
    json_unmap_file(buf, len);
    if (r == -2) return pt_errorf(err, "%s: out of memory", path);
    return r;
}
