/* graph_jv: a tiny JSON value tree for the graph reader (graph_jv.h). */
#include "src/io/dump/graph_jv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

void graph_jv_free(struct jparse *jp) {
    util_arena_free(&jp->ar);
    free(jp->items);
    free(jp->keys);
    free(jp->klens);
}

const char *graph_jv_text(struct jparse *jp, size_t *len) {
    struct json_lex *lx = &jp->lx;
    if (!lx->has_esc) {
        *len = lx->slen;
        char *s = util_arena_strndup(&jp->ar, lx->str, lx->slen);
        if (!s) jp->oom = 1;
        return s;
    }
    char *s = util_arena_alloc(&jp->ar, lx->slen + 1);
    if (!s) { jp->oom = 1; return NULL; }
    long n = json_lex_string(lx, s, lx->slen + 1);
    if (n < 0) n = 0;
    *len = (size_t)n;
    return s;
}

static int push_item(struct jparse *jp, const struct jv *v) {
    if (UTIL_PUSH(jp->items, jp->nitems, jp->capitems) != 0) return -1;
    jp->items[jp->nitems++] = *v;
    return 0;
}

static int push_key(struct jparse *jp, const char *k, size_t len) {
    if (util_grow2((void **)&jp->keys, sizeof *jp->keys, (void **)&jp->klens, sizeof *jp->klens, &jp->capkeys,
                   jp->nkeys + 1) != 0)
        return -1;
    jp->keys[jp->nkeys] = k;
    jp->klens[jp->nkeys++] = len;
    return 0;
}

int graph_jv_parse(struct jparse *jp, enum json_tok tok, struct jv *v) {
    struct json_lex *lx = &jp->lx;
    memset(v, 0, sizeof *v);
    switch (tok) {
    case JT_NULL: v->t = J_NULL; return 0;
    case JT_TRUE: v->t = J_TRUE; return 0;
    case JT_FALSE: v->t = J_FALSE; return 0;
    case JT_NUMBER: {
        v->t = J_NUM;
        v->d = lx->num;
        const char *b = lx->tok_start, *e = lx->pos;
        v->s = b;
        v->slen = (size_t)(e - b);
        int isint = isfinite(lx->num);
        for (const char *p = b; p < e && isint; p++)
            if (*p == '.' || *p == 'e' || *p == 'E') isint = 0;
        if (isint && fabs(lx->num) < 9.2e18) { v->is_int = 1; v->i = (int64_t)lx->num;
            /* exact for |v| < 2^63 when the literal has <= 18 digits */
            if (v->slen <= 19) { char tmp[24]; memcpy(tmp, b, v->slen); tmp[v->slen] = 0; v->i = strtoll(tmp, NULL, 10); }
        } else if (isint) v->is_int = 0;
        return 0;
    }
    case JT_STRING:
        v->t = J_STR;
        v->s = graph_jv_text(jp, &v->slen);
        return v->s ? 0 : -1;
    case JT_ARR_BEGIN:
    case JT_OBJ_BEGIN: {
        int obj = tok == JT_OBJ_BEGIN;
        size_t base = jp->nitems, kbase = jp->nkeys;
        v->t = obj ? J_OBJ : J_ARR;
        for (;;) {
            enum json_tok t = json_lex_next(lx);
            if (t == JT_ERROR) return -1;
            if (t == JT_ARR_END || t == JT_OBJ_END) break;
            if (obj) {
                size_t kl;
                const char *k = graph_jv_text(jp, &kl);
                if (!k || push_key(jp, k, kl) != 0) { jp->oom = 1; return -1; }
                t = json_lex_next(lx);
                if (t == JT_ERROR) return -1;
            }
            struct jv item;
            if (graph_jv_parse(jp, t, &item) != 0) return -1;
            if (push_item(jp, &item) != 0) { jp->oom = 1; return -1; }
        }
        size_t n = jp->nitems - base;
        v->n = (uint32_t)n;
        if (n) {
            v->kids = util_arena_alloc(&jp->ar, n * sizeof *v->kids);
            if (!v->kids) { jp->oom = 1; return -1; }
            memcpy(v->kids, jp->items + base, n * sizeof *v->kids);
            if (obj) {
                v->keys = util_arena_alloc(&jp->ar, n * sizeof *v->keys);
                v->klens = util_arena_alloc(&jp->ar, n * sizeof *v->klens);
                if (!v->keys || !v->klens) { jp->oom = 1; return -1; }
                memcpy(v->keys, jp->keys + kbase, n * sizeof *v->keys);
                memcpy(v->klens, jp->klens + kbase, n * sizeof *v->klens);
            }
        }
        jp->nitems = base;
        jp->nkeys = kbase;
        return 0;
    }
    default:
        return -1;
    }
}

const struct jv *graph_jv_get(const struct jv *o, const char *key) {
    if (!o || o->t != J_OBJ) return NULL;
    size_t kl = strlen(key);
    /* json.load keeps the last duplicate */
    for (uint32_t i = o->n; i-- > 0;)
        if (o->klens[i] == kl && !memcmp(o->keys[i], key, kl)) return &o->kids[i];
    return NULL;
}
