/* read_construct: construct.json and stack.json into ordered arrays. */
#include "src/io/dump/read_construct.h"
#include "model/util/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json.h"

void construct_free(struct construct *c) {
    util_arena_free(&c->strings);
    free(c->v);
    memset(c, 0, sizeof *c);
}

/* A JSON number as an int32: NaN, Infinity and 1e300 would be undefined
 * behaviour in a plain cast; they saturate (NaN is 0) and are then refused
 * or ignored by the micro step rules like any other odd count. */
static int32_t to_i32(double v) {
    if (v != v) return 0;
    if (v >= 2147483647.0) return INT32_MAX;
    if (v <= -2147483648.0) return INT32_MIN;
    return (int32_t)v;
}

/* A malloc and a free per name and parent (two per node, tens of
 * thousands per construct.json) were a fifth of the first rank's table
 * built before any parse starts; they go in one arena now. */
static int cons_add(struct construct *out, size_t *cap, const char *name, size_t nlen, int kind, const char *parent,
                    size_t plen, int32_t micro) {
    if (UTIL_PUSH(out->v, out->n, *cap) != 0) return -1;
    struct construct_node *nd = &out->v[out->n];
    nd->name = util_arena_strndup(&out->strings, name, nlen);
    nd->parent = kind == CONSTRUCT_NAME ? util_arena_strndup(&out->strings, parent, plen) : NULL;
    nd->parent_kind = (uint8_t)kind;
    nd->micro = micro;
    if (!nd->name || (kind == CONSTRUCT_NAME && !nd->parent)) return -1;
    out->n++;
    return 0;
}

/* The current string of lx: its raw bytes in the buffer when it has no
 * escapes (as json_lex_string would copy them, cut to n - 1 bytes), else
 * decoded into out (size n).  *len its length, -1 on a bad escape: one
 * copy of a name into the construct's strings, not two. */
static const char *cons_lex_str(const struct json_lex *lx, char *out, size_t n, long *len) {
    if (!lx->has_esc) {
        *len = (long)(lx->slen < n - 1 ? lx->slen : n - 1);
        return lx->str;
    }
    *len = json_lex_string(lx, out, n);
    return out;
}

/* construct.json is large for big models (MBs per rank) and read for every
 * rank, so it goes through the pull tokenizer rather than a cJSON tree. */
int construct_parse(const char *path, const char *buf, size_t len, struct construct *out, struct pt_error *err) {
    size_t cap = 0;
    struct json_lex lx;
    char name[4096], parent[4096];
    memset(out, 0, sizeof *out);
    if (err) err->msg[0] = '\0';
    json_lex_init(&lx, buf, len, path, err);
    enum json_tok t = json_lex_next(&lx);
    if (t == JT_ERROR) return -1;
    if (t != JT_OBJ_BEGIN)
        return pt_errorf(err, "%s: expected a JSON object mapping node names to parents", path);
    for (;;) {
        t = json_lex_next(&lx);
        if (t == JT_OBJ_END) break;
        if (t != JT_KEY) goto bad;
        long nl;
        const char *nm = cons_lex_str(&lx, name, sizeof name, &nl), *pa = parent;
        if (nl < 0) goto bad;
        t = json_lex_next(&lx);
        if (t == JT_ERROR) goto bad;
        /* (strcmp's answer: a decoded name ends at its first NUL) */
        if (nm == name ? !strcmp(name, "megatron_micro_step_number")
                       : nl == 26 && !memcmp(nm, "megatron_micro_step_number", 26)) {
            out->megatron = 1;
            out->megatron_micro_steps = t == JT_NUMBER ? to_i32(lx.num) : 0;
            if (json_lex_skip(&lx, t) != 0) goto bad;
            continue;
        }
        int kind = CONSTRUCT_NULL;
        long pl = 0;
        int32_t micro = 0;
        if (t == JT_ARR_BEGIN) {
            /* [parent, micro_step] (Megatron form) */
            int items = 0;
            for (;;) {
                enum json_tok e = json_lex_next(&lx);
                if (e == JT_ARR_END) break;
                if (e == JT_ERROR) goto bad;
                if (items == 0 && e == JT_STRING) {
                    pa = cons_lex_str(&lx, parent, sizeof parent, &pl);
                    kind = pl > 0 ? CONSTRUCT_NAME : CONSTRUCT_EMPTY;
                } else if (items == 1 && e == JT_NUMBER) {
                    micro = to_i32(lx.num);
                } else if (json_lex_skip(&lx, e) != 0) goto bad;
                items++;
            }
            if (items != 2) {
                char esc[256];
                pt_escape(nm, (size_t)nl, esc, sizeof esc);
                construct_free(out);
                return pt_errorf(err, "%s: key \"%s\": a Megatron entry must be [parent, micro_step]", path, esc);
            }
        } else if (t == JT_STRING) {
            pa = cons_lex_str(&lx, parent, sizeof parent, &pl);
            kind = pl > 0 ? CONSTRUCT_NAME : CONSTRUCT_EMPTY;
        } else if (json_lex_skip(&lx, t) != 0) {
            goto bad;
        }
        if (cons_add(out, &cap, nm, (size_t)nl, kind, pa, (size_t)(pl > 0 ? pl : 0), micro) != 0) {
            construct_free(out);
            return pt_errorf(err, "%s: out of memory", path);
        }
    }
    if (json_lex_next(&lx) != JT_END) goto bad;
    return 0;
bad:
    if (err && !err->msg[0]) pt_errorf(err, "%s: malformed construct.json", path);
    construct_free(out);
    return -1;
}

int construct_read(const char *path, struct construct *out, struct pt_error *err) {
    char *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    if (err) err->msg[0] = '\0';
    if (json_read_file(path, (size_t)1 << 32, &buf, &len, err) != 0) return -1;
    int rc = construct_parse(path, buf, len, out, err);
    free(buf);
    return rc;
}

void stack_free(struct stack *s) {
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        for (size_t k = 0; k < s->v[i].nframes; k++) free(s->v[i].frames[k]);
        free(s->v[i].frames);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int add_entry(struct stack *s, size_t *cap, const char *name, const cJSON *frames) {
    if (UTIL_PUSH(s->v, s->n, *cap) != 0) return -1;
    struct stack_entry *e = &s->v[s->n];
    memset(e, 0, sizeof *e);
    if (!(e->name = strdup(name))) return -1;
    size_t nf = cJSON_IsArray(frames) ? (size_t)cJSON_GetArraySize(frames) : 0;
    e->frames = calloc(nf ? nf : 1, sizeof *e->frames);
    if (!e->frames) { free(e->name); return -1; }
    const cJSON *f;
    s->n++;
    if (!nf) return 0;
    cJSON_ArrayForEach(f, frames) {
        if (!cJSON_IsString(f) || !f->valuestring) continue;
        if (!(e->frames[e->nframes] = strdup(f->valuestring))) return -1;
        e->nframes++;
    }
    return 0;
}

int stack_read(const char *path, struct stack *out, struct pt_error *err) {
    cJSON *root;
    size_t cap = 0;
    memset(out, 0, sizeof *out);
    if (json_tree_file(path, &root, err) != 0) return -1;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return pt_errorf(err, "%s: expected a JSON object", path);
    }
    const cJSON *zero = cJSON_GetObjectItemCaseSensitive(root, "0");
    /* msProbe's rule: grouped iff key "0" holds a truthy value */
    out->grouped = zero && !cJSON_IsNull(zero) && !cJSON_IsFalse(zero) &&
                   !(cJSON_IsArray(zero) && cJSON_GetArraySize(zero) == 0);
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        if (!out->grouped) {
            if (it->string && add_entry(out, &cap, it->string, it) != 0) goto oom;
            continue;
        }
        if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2) {
            char esc[128];
            pt_escape(it->string ? it->string : "", it->string ? strlen(it->string) : 0, esc, sizeof esc);
            cJSON_Delete(root);
            stack_free(out);
            return pt_errorf(err, "%s: key \"%s\": a stack group must be [[names], [frames]]", path, esc);
        }
        const cJSON *names = cJSON_GetArrayItem(it, 0), *frames = cJSON_GetArrayItem(it, 1), *nm;
        cJSON_ArrayForEach(nm, names)
            if (cJSON_IsString(nm) && add_entry(out, &cap, nm->valuestring, frames) != 0) goto oom;
    }
    cJSON_Delete(root);
    return 0;
oom:
    cJSON_Delete(root);
    stack_free(out);
    return pt_errorf(err, "%s: out of memory", path);
}

const struct stack_entry *stack_find(const struct stack *s, const char *name) {
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].name, name)) return &s->v[i];
    const char *b = strstr(name, ".backward");
    if (!b) return NULL;
    char fwd[1024];
    size_t pre = (size_t)(b - name);
    if (pre + strlen(b) + 1 > sizeof fwd) return NULL;
    memcpy(fwd, name, pre);
    snprintf(fwd + pre, sizeof fwd - pre, ".forward%s", b + 9);
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].name, fwd)) return &s->v[i];
    return NULL;
}
