/* read_construct: construct.json and stack.json into ordered arrays. */
#include "src/read_construct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/json.h"

void construct_free(struct construct *c) {
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].parent);
    }
    free(c->v);
    memset(c, 0, sizeof *c);
}

int construct_read(const char *path, struct construct *out, struct pt_error *err) {
    cJSON *root;
    memset(out, 0, sizeof *out);
    if (json_tree_file(path, &root, err) != 0) return -1;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return pt_errorf(err, "%s: expected a JSON object mapping node names to parents", path);
    }
    size_t n = (size_t)cJSON_GetArraySize(root);
    out->v = calloc(n ? n : 1, sizeof *out->v);
    if (!out->v) { cJSON_Delete(root); return pt_errorf(err, "%s: out of memory", path); }
    const cJSON *mm = cJSON_GetObjectItemCaseSensitive(root, "megatron_micro_step_number");
    if (mm) {
        double d;
        out->megatron = 1;
        out->megatron_micro_steps = json_number(mm, &d) ? (long)d : 0;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        const char *key = it->string;
        if (!key || (out->megatron && !strcmp(key, "megatron_micro_step_number"))) continue;
        struct cons_node *nd = &out->v[out->n];
        const cJSON *parent = it;
        nd->micro = 0;
        if (out->megatron && cJSON_IsArray(it)) {
            if (cJSON_GetArraySize(it) != 2) {
                char esc[256];
                pt_escape(key, strlen(key), esc, sizeof esc);
                cJSON_Delete(root);
                construct_free(out);
                return pt_errorf(err, "%s: key \"%s\": a Megatron entry must be [parent, micro_step]", path, esc);
            }
            parent = cJSON_GetArrayItem(it, 0);
            double d;
            if (json_number(cJSON_GetArrayItem(it, 1), &d)) nd->micro = (int32_t)d;
        }
        if (!(nd->name = strdup(key))) goto oom;
        if (cJSON_IsString(parent) && parent->valuestring) {
            if (parent->valuestring[0] == '\0') nd->parent_kind = CONS_EMPTY;
            else {
                nd->parent_kind = CONS_NAME;
                if (!(nd->parent = strdup(parent->valuestring))) { free(nd->name); goto oom; }
            }
        } else {
            nd->parent_kind = CONS_NULL;   /* null, and anything else that names no parent */
        }
        out->n++;
    }
    cJSON_Delete(root);
    return 0;
oom:
    cJSON_Delete(root);
    construct_free(out);
    return pt_errorf(err, "%s: out of memory", path);
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
    if (s->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct stack_entry *v = realloc(s->v, nc * sizeof *v);
        if (!v) return -1;
        s->v = v;
        *cap = nc;
    }
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
