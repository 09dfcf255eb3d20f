/* tree: building one msProbe graph from dump records, construct.json pairs
 * and stacks, by the rules of probetop-rules(7), GRAPH BUILDING (msProbe's GraphBuilder).
 * Everything is iterative: a hostile construct.json with a million-deep
 * chain or a parent cycle must not blow the C stack or loop. */
#include "model/graph/tree.h"

#include "model/util/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- string -> index map (open addressing over pool offsets) ---- */

struct smap_slot { uint32_t key, len, hash; int32_t val; };
struct smap {
    const struct tree *t;
    struct smap_slot *slots;
    size_t cap, n;   /* cap is a power of two */
};

static uint32_t hash_str(const char *s, size_t len) {
    uint32_t h = (uint32_t)util_hash_fast(s, len, 0);   /* in memory, never walked in slot order */
    return h ? h : 1;   /* 0 marks an empty slot */
}

static struct smap *smap_new(const struct tree *t) {
    struct smap *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->t = t;
    m->cap = 64;
    m->slots = calloc(m->cap, sizeof *m->slots);
    if (!m->slots) { free(m); return NULL; }
    return m;
}

static void smap_free(struct smap *m) {
    if (!m) return;
    free(m->slots);
    free(m);
}

static struct smap_slot *smap_slot(const struct smap *m, const char *s, size_t len, uint32_t h) {
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct smap_slot *sl = &m->slots[i];
        if (!sl->hash) return sl;
        if (sl->hash == h && sl->len == len && memcmp(m->t->pool + sl->key, s, len) == 0) return sl;
    }
}

static int32_t smap_get(const struct smap *m, const char *s, size_t len) {
    if (!m) return -1;
    struct smap_slot *sl = smap_slot(m, s, len, hash_str(s, len));
    return sl->hash ? sl->val : -1;
}

/* Room for n keys at most half full: the slots moved to a table of the
 * power of two that holds them.  0, or -1 out of memory. */
static int smap_reserve(struct smap *m, size_t n) {
    size_t nc = m->cap;
    while ((n + 1) * 2 > nc) nc *= 2;
    if (nc == m->cap) return 0;
    struct smap_slot *ns = calloc(nc, sizeof *ns), *old = m->slots;
    if (!ns) return -1;
    size_t oc = m->cap;
    m->slots = ns;
    m->cap = nc;
    for (size_t i = 0; i < oc; i++)
        if (old[i].hash) {
            size_t mask = nc - 1, j = old[i].hash & mask;
            while (ns[j].hash) j = (j + 1) & mask;
            ns[j] = old[i];
        }
    free(old);
    return 0;
}

/* Sets key (a pool offset of len bytes) to val, replacing an old value
 * when replace is set. */
static int smap_put(struct smap *m, uint32_t key, size_t len, int32_t val, int replace) {
    if ((m->n + 1) * 2 > m->cap && smap_reserve(m, m->n + 1) != 0) return -1;
    const char *s = m->t->pool + key;
    uint32_t h = hash_str(s, len);
    struct smap_slot *sl = smap_slot(m, s, len, h);
    if (sl->hash) {
        if (replace) sl->val = val;
        return 0;
    }
    sl->hash = h;
    sl->key = key;
    sl->len = (uint32_t)len;
    sl->val = val;
    m->n++;
    return 0;
}

/* ---- the tree object ---- */

struct tree *tree_new(void) {
    struct tree *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->root = -1;
    t->nmicro = 1;
    t->pytorch = 1;
    t->node_map = smap_new(t);
    t->rec_map = smap_new(t);
    t->stack_map = smap_new(t);
    t->cons_map = smap_new(t);
    if (!t->node_map || !t->rec_map || !t->stack_map || !t->cons_map) { tree_free(t); return NULL; }
    return t;
}

void tree_free(struct tree *t) {
    if (!t) return;
    free(t->pool);
    free(t->recs);
    free(t->params);
    free(t->nodes);
    free(t->stacks);
    free(t->lines);
    free(t->cons);
    free(t->order);
    free(t->rgx);
    free(t->commx);
    free(t->stx);
    smap_free(t->node_map);
    smap_free(t->rec_map);
    smap_free(t->stack_map);
    smap_free(t->cons_map);
    free(t->path);
    free(t);
}

uint32_t tree_str(struct tree *t, const char *s, size_t len) {
    if (t->plen + len + 1 >= UINT32_MAX) return TREE_NONE;
    if (util_grow((void **)&t->pool, &t->pcap, t->plen + len + 1, 1) != 0) return TREE_NONE;
    uint32_t off = (uint32_t)t->plen;
    if (len) memcpy(t->pool + off, s, len);
    t->pool[off + len] = '\0';
    t->plen += len + 1;
    return off;
}

/* A name (record, construct.json key or parent, stack id, node id): the
 * pool's copy when the text is already a key of one of the maps, else a new
 * copy.  construct.json repeats each parent once per child and names
 * every record again; stored once, a large dump's pool is a fifth smaller. */
static uint32_t name_str(struct tree *t, const char *s, size_t len) {
    uint32_t h = hash_str(s, len);
    const struct smap *maps[3] = {t->rec_map, t->cons_map, t->node_map};
    for (int i = 0; i < 3; i++) {
        if (!maps[i] || !maps[i]->n) continue;
        const struct smap_slot *sl = smap_slot(maps[i], s, len, h);
        if (sl->hash) return sl->key;
    }
    return tree_str(t, s, len);
}

int tree_reserve(struct tree *t, size_t nrecs, size_t nparams, size_t pool_bytes) {
    if (util_grow((void **)&t->recs, &t->caprecs, nrecs, sizeof *t->recs) != 0 ||
        util_grow((void **)&t->params, &t->capparams, nparams, sizeof *t->params) != 0 ||
        util_grow((void **)&t->pool, &t->pcap, pool_bytes, 1) != 0)
        return -1;
    return 0;
}

int tree_add_record(struct tree *t, const char *name, size_t len) {
    if (!t->rec_map) return -1;   /* tree_forget_records has run */
    if (UTIL_PUSH(t->recs, t->nrecs, t->caprecs) != 0) return -1;
    uint32_t off = tree_str(t, name, len);
    if (off == TREE_NONE) return -1;
    struct trec *r = &t->recs[t->nrecs];
    memset(r, 0, sizeof *r);
    r->name = off;
    r->p0 = (uint32_t)t->nparams;
    r->node = -1;
    /* json.load keeps the last of duplicate keys: so do we */
    if (!t->recs_unmapped && smap_put(t->rec_map, off, len, (int32_t)t->nrecs, 1) != 0) return -1;
    return (int)t->nrecs++;
}

struct tparam *tree_add_param(struct tree *t, int rec) {
    if (rec < 0 || (size_t)rec != t->nrecs - 1) return NULL;
    if (UTIL_PUSH(t->params, t->nparams, t->capparams) != 0) return NULL;
    struct tparam *p = &t->params[t->nparams++];
    memset(p, 0, sizeof *p);
    p->type = p->dtype = p->shape = p->data_name = p->md5 = p->value = TREE_NONE;
    t->recs[rec].np++;
    return p;
}

int tree_add_construct(struct tree *t, const char *child, size_t clen, const char *parent, size_t plen,
                       int32_t micro) {
    if (!t->cons_map) return -1;   /* tree_build() has run: its map is gone */
    if (UTIL_PUSH(t->cons, t->ncons, t->capcons) != 0) return -1;
    uint32_t c = name_str(t, child, clen);
    uint32_t p = parent && plen ? name_str(t, parent, plen) : TREE_NONE;
    if (c == TREE_NONE || (parent && plen && p == TREE_NONE)) return -1;
    int32_t old = smap_get(t->cons_map, child, clen);
    if (old >= 0) {   /* a repeated key: json.load keeps the first position, the last value */
        t->cons[old].parent = p;
        t->cons[old].micro = micro;
        return 0;
    }
    t->cons[t->ncons] = (struct tcons){c, p, micro};
    if (smap_put(t->cons_map, c, clen, (int32_t)t->ncons, 1) != 0) return -1;
    t->ncons++;
    return 0;
}

int tree_new_stack(struct tree *t) {
    if (UTIL_PUSH(t->stacks, t->nstacks, t->capstacks) != 0) return -1;
    t->stacks[t->nstacks] = (struct tstack){(uint32_t)t->nlines, 0};
    return (int)t->nstacks++;
}

int tree_stack_line(struct tree *t, int stack, const char *s, size_t len) {
    if (stack < 0 || (size_t)stack != t->nstacks - 1) return -1;
    if (UTIL_PUSH(t->lines, t->nlines, t->caplines) != 0) return -1;
    uint32_t off = tree_str(t, s, len);
    if (off == TREE_NONE) return -1;
    t->lines[t->nlines++] = off;
    t->stacks[stack].n++;
    return 0;
}

int tree_stack_assign(struct tree *t, const char *id, size_t len, int stack) {
    uint32_t off = name_str(t, id, len);
    if (off == TREE_NONE) return -1;
    return smap_put(t->stack_map, off, len, stack, 1);
}

int tree_find(const struct tree *t, const char *id) { return smap_get(t->node_map, id, strlen(id)); }
int tree_find_record(const struct tree *t, const char *name) { return smap_get(t->rec_map, name, strlen(name)); }

int tree_stack_of_id(const struct tree *t, const char *id) { return smap_get(t->stack_map, id, strlen(id)); }

uint32_t tree_stack_lines(const struct tree *t, int n, const uint32_t **lines) {
    int s = t->nodes[n].stack;
    if (s < 0) { *lines = NULL; return 0; }
    *lines = t->lines + t->stacks[s].l0;
    return t->stacks[s].n;
}

/* ---- ids ---- */

/* msProbe tests ^(Module.|Cell.|optimizer|clip_grad|DefaultModel) then the
 * API prefixes, with '.' matching any one character. */
static int prefix_any(const char *id, const char *word) {
    size_t n = strlen(word);
    if (strncmp(id, word, n) != 0) return 0;
    return id[n] != '\0';
}

enum tree_kind tree_kind_of(const char *id) {
    if (prefix_any(id, "Module") || prefix_any(id, "Cell") || !strncmp(id, "optimizer", 9) ||
        !strncmp(id, "clip_grad", 9) || !strncmp(id, "DefaultModel", 12))
        return TK_MODULE;
    static const char *const apis[] = {"Tensor", "Torch", "Functional", "NPU", "VF", "Distributed", "Aten",
                                       "Mint", "Primitive", "Jit", "MintFunctional", "MindSpeed"};
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
        if (prefix_any(id, apis[i])) return TK_API;
    return TK_MODULE;
}

const char *tree_kind_name(int kind) {
    switch (kind) {
    case TK_MODULE: return "module";
    case TK_API: return "api";
    case TK_APIS: return "apis";
    case TK_FUSED: return "fused";
    }
    return "?";
}

static int all_digits(const char *s, size_t n) {
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

/* Does id end with ".<word>.<digits>"?  Returns the offset of the '.' before
 * word, or -1. */
static long ends_word_num(const char *id, size_t len, const char *word) {
    size_t e = len;
    while (e > 0 && isdigit((unsigned char)id[e - 1])) e--;
    if (e == len || e == 0 || id[e - 1] != '.') return -1;
    size_t wl = strlen(word);
    if (e - 1 < wl + 1) return -1;
    size_t ws = e - 1 - wl;
    if (memcmp(id + ws, word, wl) != 0 || id[ws - 1] != '.') return -1;
    return (long)(ws - 1);
}

/* Writes id with its trailing ".from.N" replaced by ".to.N" (from/to
 * "forward"/"backward"), or an unchanged copy; returns the length. */
static size_t swap_tail(const char *id, const char *from, const char *to, char *out, size_t size) {
    size_t len = strlen(id);
    long at = ends_word_num(id, len, from);
    if (at < 0) {
        snprintf(out, size, "%s", id);
        return strlen(out);
    }
    snprintf(out, size, "%.*s.%s%s", (int)at, id, to, id + at + 1 + strlen(from));
    return strlen(out);
}

/* Replaces every occurrence of from by to. */
static void replace_all(const char *s, const char *from, const char *to, char *out, size_t size) {
    size_t fl = strlen(from), tl = strlen(to), o = 0;
    while (*s && o + 1 < size) {
        if (!strncmp(s, from, fl)) {
            for (size_t i = 0; i < tl && o + 1 < size; i++) out[o++] = to[i];
            s += fl;
        } else out[o++] = *s++;
    }
    out[o] = '\0';
}

static int count_segments(const char *s) {
    int n = 1;
    for (; *s; s++) n += *s == '.';
    return n;
}

/* Length of s without its last k dot-segments (whole text when it has
 * no more than k segments: Python's '.'.join(split[:-k]) is then ""). */
static size_t drop_segments(const char *s, int k) {
    size_t len = strlen(s);
    size_t e = len;
    for (int i = 0; i < k; i++) {
        while (e > 0 && s[e - 1] != '.') e--;
        if (e == 0) return 0;
        e--;
    }
    return e;
}

/* ---- building ---- */

static int32_t cons_parent(const struct tree *t, const char *id, int *found) {
    int32_t c = smap_get(t->cons_map, id, strlen(id));
    *found = c >= 0;
    return c >= 0 ? (int32_t)t->cons[c].parent : (int32_t)TREE_NONE;
}

static int is_cons_key(const struct tree *t, const char *id) { return smap_get(t->cons_map, id, strlen(id)) >= 0; }

/* probetop-rules(7), GRAPH BUILDING: Parents: the parent to use for child, or NULL for the root.  buf holds a
 * computed id. */
static const char *fix_parent(const struct tree *t, const char *child, const char *parent, char *buf, size_t size) {
    size_t clen = strlen(child);
    int found;
    char tmp[4096];
    if (!parent) {
        if (ends_word_num(child, clen, "backward") >= 0) {
            swap_tail(child, "backward", "forward", tmp, sizeof tmp);
            int32_t fp = cons_parent(t, tmp, &found);
            if (fp != (int32_t)TREE_NONE) {
                swap_tail(t->pool + fp, "forward", "backward", buf, size);
                if (is_cons_key(t, buf)) return buf;
            }
        }
        if (clen > 9 && !strcmp(child + clen - 9, ".backward")) {
            replace_all(child, "backward", "forward", tmp, sizeof tmp);
            int32_t fp = cons_parent(t, tmp, &found);
            if (fp != (int32_t)TREE_NONE) {
                replace_all(t->pool + fp, "forward", "backward", buf, size);
                if (is_cons_key(t, buf)) return buf;
            }
        }
        return NULL;
    }
    if (ends_word_num(child, clen, "backward") >= 0 && count_segments(child) >= 5 && count_segments(parent) >= 4) {
        size_t a = drop_segments(child, 4), b = drop_segments(parent, 3);
        if (a != b || memcmp(child, parent, a) != 0) {
            swap_tail(child, "backward", "forward", tmp, sizeof tmp);
            int32_t fp = cons_parent(t, tmp, &found);
            if (found) {
                if (fp == (int32_t)TREE_NONE) return NULL;
                swap_tail(t->pool + fp, "forward", "backward", buf, size);
                if (is_cons_key(t, buf)) return buf;
            }
        }
    }
    return parent;
}

static int new_node(struct tree *t, uint32_t id_off, enum tree_kind kind) {
    if (UTIL_PUSH(t->nodes, t->nnodes, t->capnodes) != 0) return -1;
    const char *id = t->pool + id_off;
    int n = (int)t->nnodes;
    struct tnode *nd = &t->nodes[n];
    memset(nd, 0, sizeof *nd);
    nd->id = id_off;
    nd->kind = (uint8_t)kind;
    nd->parent = nd->first = nd->last = nd->next = -1;
    nd->stack = -1;
    nd->order = -1;
    nd->rec = smap_get(t->rec_map, id, strlen(id));
    if (smap_put(t->node_map, id_off, strlen(id), n, 0) != 0) return -1;
    t->nnodes++;
    if (nd->rec >= 0) t->recs[nd->rec].node = n;
    return n;
}

static const char no_forward_stack[] =
    "This backward node cannot find the forward node and cannot retrieve stack information.";

static int get_or_create(struct tree *t, const char *id) {
    size_t len = strlen(id);
    int32_t n = smap_get(t->node_map, id, len);
    if (n >= 0) return n;
    uint32_t off = name_str(t, id, len);
    if (off == TREE_NONE) return -1;
    n = new_node(t, off, tree_kind_of(t->pool + off));
    if (n < 0) return -1;
    id = t->pool + t->nodes[n].id;   /* the pool may have moved */
    int32_t st = smap_get(t->stack_map, id, len);
    if ((st < 0 || t->stacks[st].n == 0) &&
        (ends_word_num(id, len, "backward") >= 0 || (len > 9 && !strcmp(id + len - 9, ".backward")))) {
        /* backward nodes borrow the stack of their forward twin (call 0 for modules) */
        char fw[4096];
        long at = ends_word_num(id, len, "backward");
        if (at >= 0) snprintf(fw, sizeof fw, "%.*s.forward.0", (int)at, id);
        else replace_all(id, "backward", "forward", fw, sizeof fw);
        int32_t f = smap_get(t->node_map, fw, strlen(fw));
        if (f >= 0) st = t->nodes[f].stack;
        else {
            st = tree_new_stack(t);
            if (st < 0 || tree_stack_line(t, st, no_forward_stack, sizeof no_forward_stack - 1) != 0) return -1;
        }
    }
    t->nodes[n].stack = st;
    if (t->megatron) {
        int32_t c = smap_get(t->cons_map, t->pool + t->nodes[n].id, len);
        t->nodes[n].micro = c >= 0 ? t->cons[c].micro : 0;
    }
    return n;
}

int tree_is_ancestor(const struct tree *t, int a, int n) {
    for (size_t guard = 0; n >= 0 && guard <= t->nnodes; guard++) {
        if (n == a) return 1;
        n = t->nodes[n].parent;
    }
    return 0;
}

static void append_child(struct tree *t, int p, int c) {
    struct tnode *pn = &t->nodes[p], *cn = &t->nodes[c];
    cn->parent = p;
    cn->next = -1;
    cn->attached = 1;
    if (pn->last >= 0) t->nodes[pn->last].next = c;
    else pn->first = c;
    pn->last = c;
    pn->nchildren++;
}

/* msProbe's add_upnode: first parent wins; never a cycle. */
static void attach(struct tree *t, int c, int p) {
    if (c == p || t->nodes[c].attached || c == t->root) return;
    if (tree_is_ancestor(t, c, p)) return;
    append_child(t, p, c);
}

/* Rebuilds p's child list from an array. */
static void set_children(struct tree *t, int p, const int32_t *kids, size_t n) {
    struct tnode *pn = &t->nodes[p];
    pn->first = pn->last = -1;
    pn->nchildren = 0;
    for (size_t i = 0; i < n; i++) append_child(t, p, kids[i]);
}

/* Children of p as an array (caller frees); NULL with *n = 0 when none or
 * out of memory (*oom set). */
static int32_t *children_of(const struct tree *t, int p, size_t *n, int *oom) {
    *n = 0;
    *oom = 0;
    if (t->nodes[p].nchildren == 0) return NULL;
    int32_t *v = malloc(t->nodes[p].nchildren * sizeof *v);
    if (!v) { *oom = 1; return NULL; }
    for (int c = t->nodes[p].first; c >= 0; c = t->nodes[c].next) v[(*n)++] = c;
    return v;
}

/* Copies s into buf, cut to size - 1 bytes. */
static void copy_id(char *buf, size_t size, const char *s) {
    size_t n = strlen(s);
    if (n >= size) n = size - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

static int init_nodes(struct tree *t) {
    uint32_t root_id = tree_str(t, "DefaultModel", 12);
    if (root_id == TREE_NONE) return -1;
    t->root = new_node(t, root_id, TK_MODULE);
    if (t->root < 0) return -1;
    t->nodes[t->root].attached = 1;
    char buf[4096];
    for (size_t i = 0; i < t->ncons; i++) {
        /* copy: the pool moves while nodes are created (memcpy, not
         * snprintf: this loop runs once per construct.json entry) */
        char child[4096], parent_copy[4096];
        copy_id(child, sizeof child, t->pool + t->cons[i].child);
        const char *parent = NULL;
        if (t->cons[i].parent != TREE_NONE) {
            copy_id(parent_copy, sizeof parent_copy, t->pool + t->cons[i].parent);
            parent = parent_copy;
        }
        parent = fix_parent(t, child, parent, buf, sizeof buf);
        int p = t->root;
        if (parent && *parent) {
            p = get_or_create(t, parent);
            if (p < 0) return -1;
        }
        int c = get_or_create(t, child);
        if (c < 0) return -1;
        attach(t, c, p);
    }
    return 0;
}

/* ---- recompute (probetop-rules(7), GRAPH BUILDING: Recompute and API collections) ---- */

/* Parses "File <path>, line N, in <func>, \n src" as msProbe does. */
static int parse_frame(const char *line, char *file, size_t fs, char *func, size_t fns) {
    char s[4096];
    replace_all(line, "File ", "", s, sizeof s);
    char *b = s, *e = s + strlen(s);
    while (*b && isspace((unsigned char)*b)) b++;
    while (e > b && isspace((unsigned char)e[-1])) e--;
    *e = '\0';
    char *in = strstr(b, ", in ");
    if (!in) return -1;
    char *ln = strstr(b, ", line ");
    size_t flen = ln ? (size_t)(ln - b) : strlen(b);
    while (flen && isspace((unsigned char)b[flen - 1])) flen--;
    const char *fb = b;
    while (flen && isspace((unsigned char)*fb)) { fb++; flen--; }
    snprintf(file, fs, "%.*s", (int)flen, fb);
    const char *f = in + 5;
    const char *comma = strchr(f, ',');
    size_t l = comma ? (size_t)(comma - f) : strlen(f);
    while (l && isspace((unsigned char)*f)) { f++; l--; }
    while (l && isspace((unsigned char)f[l - 1])) l--;
    snprintf(func, fns, "%.*s", (int)l, f);
    return 0;
}

static int recompute_by_stack(const struct tree *t, int32_t st) {
    if (st < 0 || t->stacks[st].n == 0) return 0;
    uint32_t n = t->stacks[st].n;
    char (*files)[512] = malloc(n * sizeof *files);
    char (*funcs)[128] = malloc(n * sizeof *funcs);
    int found = 0;
    if (!files || !funcs) goto out;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (parse_frame(t->pool + t->lines[t->stacks[st].l0 + i], files[k], 512, funcs[k], 128) == 0) k++;
    for (uint32_t i = 0; i < k && !found; i++)
        if (!strcmp(funcs[i], "recompute_fn") && util_ends_with(files[i], "torch/utils/checkpoint.py"))
            found = 1;
    for (uint32_t i = 0; i < k && !found; i++) {
        if (!(!strcmp(funcs[i], "backward") ||
              (!strcmp(funcs[i], "checkpoint_function_backward") && strstr(files[i], "megatron"))))
            continue;
        for (uint32_t j = i + 1; j <= i + 2 && j < k; j++)
            if (util_ends_with(files[j], "torch/autograd/function.py")) found = 1;
    }
out:
    free(files);
    free(funcs);
    return found;
}

static int recompute_id_shape(const char *id) {
    int n = count_segments(id);
    char seg[4][256];
    const char *p = id;
    for (int i = 0; i < 4; i++) {
        const char *d = strchr(p, '.');
        size_t l = d ? (size_t)(d - p) : strlen(p);
        snprintf(seg[i], sizeof seg[i], "%.*s", (int)(l < 255 ? l : 255), p);
        if (!d) { for (int j = i + 1; j < 4; j++) seg[j][0] = '\0'; break; }
        p = d + 1;
    }
    if (n > 7) return 1;
    if (n == 7 && !(all_digits(seg[1], strlen(seg[1])) && all_digits(seg[3], strlen(seg[3])))) return 1;
    if (n == 6 && !all_digits(seg[1], strlen(seg[1]))) return 1;
    return 0;
}

/* Swaps segment -2 between forward and backward. */
static void twin_id(const char *id, char *out, size_t size) {
    size_t e1 = drop_segments(id, 1), e2 = drop_segments(id, 2);
    if (e1 == 0) { snprintf(out, size, "%s", id); return; }
    const char *seg = id + (e2 ? e2 + 1 : 0);
    size_t sl = e1 - (size_t)(seg - id);
    const char *sw = (sl == 7 && !strncmp(seg, "forward", 7)) ? "backward" : "forward";
    snprintf(out, size, "%.*s%s%s", (int)(seg - id), id, sw, id + e1);
}

static int handle_recompute(struct tree *t) {
    size_t nk;
    int oom;
    int32_t *kids = children_of(t, t->root, &nk, &oom);
    if (oom) return -1;
    if (!nk) return 0;
    int rc = -1;
    int32_t *rnode = malloc(nk * sizeof *rnode), *ridx = malloc(nk * sizeof *ridx);
    char *twin_mark = calloc(t->nnodes, 1), *is_kid = calloc(t->nnodes, 1);
    char *del = calloc(nk, 1);
    size_t nr = 0;
    if (!rnode || !ridx || !twin_mark || !is_kid || !del) goto out;
    for (size_t i = 0; i < nk; i++) is_kid[kids[i]] = 1;
    for (size_t i = 0; i < nk; i++) {
        int n = kids[i];
        const char *id = tree_id(t, n);
        if (tree_kind_of(id) != TK_MODULE) continue;
        if (t->pytorch) {
            char fw[4096];
            swap_tail(id, "backward", "forward", fw, sizeof fw);
            if (!recompute_by_stack(t, smap_get(t->stack_map, fw, strlen(fw)))) continue;
        }
        if (twin_mark[n]) { rnode[nr] = n; ridx[nr++] = (int32_t)i; continue; }
        if (!recompute_id_shape(id)) continue;
        char tw[4096];
        twin_id(id, tw, sizeof tw);
        int32_t tn = smap_get(t->node_map, tw, strlen(tw));
        if (tn >= 0 && is_kid[tn]) {
            rnode[nr] = n; ridx[nr++] = (int32_t)i;
            twin_mark[tn] = 1;
        }
    }
    if (!nr) { rc = 0; goto out; }
    /* forward modules below the first level (before any move), per recompute
     * prefix, in creation order; forward and backward recompute nodes use
     * separate copies */
    char *cand = calloc(t->nnodes, 1);
    if (!cand) goto out;
    for (size_t n = 0; n < t->nnodes; n++) {
        int par = t->nodes[n].parent;
        cand[n] = par >= 0 && par != t->root;
    }
    char *used_f = calloc(t->nnodes, 1), *used_b = calloc(t->nnodes, 1);
    if (!used_f || !used_b) { free(used_f); free(used_b); free(cand); goto out; }
    for (size_t r = 0; r < nr; r++) {
        const char *rid = tree_id(t, rnode[r]);
        size_t plen = drop_segments(rid, 2);
        int forward = ends_word_num(rid, strlen(rid), "forward") >= 0;
        char *used = forward ? used_f : used_b;
        int pick = -1;
        for (size_t n = 0; n < t->nnodes && pick < 0; n++) {
            const char *id = tree_id(t, (int)n);
            size_t len = strlen(id);
            long at = ends_word_num(id, len, "forward");
            if (at < 0 || tree_kind_of(id) != TK_MODULE) continue;
            if (!cand[n]) continue;
            if ((size_t)at != plen || memcmp(id, rid, plen) != 0) continue;
            if (used[n]) continue;
            used[n] = 1;
            pick = (int)n;
        }
        if (pick < 0) continue;
        char np[4096];
        swap_tail(tree_id(t, t->nodes[pick].parent), "forward", "backward", np, sizeof np);
        int32_t newp = smap_get(t->node_map, np, strlen(np));
        if (newp < 0) continue;
        if (tree_is_ancestor(t, rnode[r], newp)) continue;
        t->nodes[rnode[r]].parent = -1;   /* detached from the root list below */
        append_child(t, newp, rnode[r]);
        del[ridx[r]] = 1;
    }
    free(used_f);
    free(used_b);
    free(cand);
    size_t k = 0;
    for (size_t i = 0; i < nk; i++)
        if (!del[i]) kids[k++] = kids[i];
    /* the moved nodes keep their new parent; rebuild the root's list */
    {
        struct tnode *rn = &t->nodes[t->root];
        rn->first = rn->last = -1;
        rn->nchildren = 0;
        for (size_t i = 0; i < k; i++) append_child(t, t->root, kids[i]);
    }
    rc = 0;
out:
    free(kids);
    free(rnode);
    free(ridx);
    free(twin_mark);
    free(is_kid);
    free(del);
    return rc;
}

/* ---- API collections (probetop-rules(7), GRAPH BUILDING: Recompute and API collections) ---- */

static int collect_apis(struct tree *t) {
    size_t nk;
    int oom;
    int32_t *kids = children_of(t, t->root, &nk, &oom);
    if (oom) return -1;
    int32_t *out = malloc((nk + 1) * sizeof *out);
    if (!out) { free(kids); return -1; }
    size_t no = 0;
    for (size_t i = 0; i < nk;) {
        if (t->nodes[kids[i]].kind != TK_API) { out[no++] = kids[i++]; continue; }
        size_t j = i;
        while (j < nk && t->nodes[kids[j]].kind == TK_API) j++;
        if (j - i < 2) { out[no++] = kids[i++]; continue; }
        char id[64];
        snprintf(id, sizeof id, "Apis_Between_Modules.%d", t->napis++);
        uint32_t off = tree_str(t, id, strlen(id));
        int c = off == TREE_NONE ? -1 : new_node(t, off, TK_APIS);
        if (c < 0) { free(kids); free(out); return -1; }
        t->nodes[c].micro = t->nodes[kids[i]].micro;
        set_children(t, c, kids + i, j - i);
        t->nodes[c].attached = 1;
        out[no++] = c;
        i = j;
    }
    set_children(t, t->root, out, no);
    free(kids);
    free(out);
    return 0;
}

/* ---- parameter-gradient nodes (probetop-rules(7), GRAPH BUILDING: Recompute and API collections) ---- */

static int add_pgrads(struct tree *t) {
    /* prefixes in first-seen order, each with its records */
    size_t nr = t->nrecs;
    int32_t *pref_rec = malloc((nr + 1) * sizeof *pref_rec);   /* first record of each prefix */
    int32_t *next_same = malloc((nr + 1) * sizeof *next_same); /* chain of records per prefix */
    int32_t *last_of = malloc((nr + 1) * sizeof *last_of);
    size_t *plens = malloc((nr + 1) * sizeof *plens);
    long *maxn = malloc((nr + 1) * sizeof *maxn);
    struct smap *pm = smap_new(t);
    int rc = -1;
    size_t np = 0;
    if (!pref_rec || !next_same || !last_of || !plens || !maxn || !pm) goto out;
    for (size_t r = 0; r < nr; r++) {
        next_same[r] = -1;
        const char *name = t->pool + t->recs[r].name;
        size_t len = strlen(name);
        if (smap_get(t->node_map, name, len) >= 0) continue;
        /* \.parameters_grad(\.\d+)?$ */
        size_t e = len;
        while (e > 0 && isdigit((unsigned char)name[e - 1])) e--;
        size_t base = len;
        if (e < len && e > 0 && name[e - 1] == '.') base = e - 1;
        static const char pg[] = ".parameters_grad";
        size_t pl = sizeof pg - 1;
        if (base < pl || memcmp(name + base - pl, pg, pl) != 0) {
            if (len >= pl && !memcmp(name + len - pl, pg, pl)) base = len;
            else continue;
        }
        size_t prefix_len = base - pl;
        int32_t k = smap_get(pm, name, prefix_len);
        if (k < 0) {
            if (smap_put(pm, t->recs[r].name, prefix_len, (int32_t)np, 0) != 0) goto out;
            pref_rec[np] = (int32_t)r;
            last_of[np] = (int32_t)r;
            plens[np] = prefix_len;
            maxn[np] = 0;
            np++;
        } else {
            next_same[last_of[k]] = (int32_t)r;
            last_of[k] = (int32_t)r;
        }
    }
    if (!np) { rc = 0; goto out; }
    for (size_t n = 0; n < t->nnodes; n++) {
        const char *id = tree_id(t, (int)n);
        size_t len = strlen(id);
        long at = ends_word_num(id, len, "backward");
        if (at < 0) continue;
        int32_t k = smap_get(pm, id, (size_t)at);
        if (k < 0) continue;
        long num = strtol(id + at + 10, NULL, 10);
        if (num > maxn[k]) maxn[k] = num;
    }
    for (size_t k = 0; k < np; k++) {
        char bid[4096];
        snprintf(bid, sizeof bid, "%.*s.backward.%ld", (int)plens[k], t->pool + t->recs[pref_rec[k]].name, maxn[k]);
        int32_t b = smap_get(t->node_map, bid, strlen(bid));
        if (b < 0) continue;
        for (int32_t r = pref_rec[k]; r >= 0; r = next_same[r]) {
            int c = new_node(t, t->recs[r].name, TK_MODULE);
            if (c < 0) goto out;
            append_child(t, b, c);
        }
    }
    rc = 0;
out:
    free(pref_rec);
    free(next_same);
    free(last_of);
    free(plens);
    free(maxn);
    smap_free(pm);
    return rc;
}

/* ---- micro steps and order (probetop-rules(7), GRAPH BUILDING: Micro steps and order) ---- */

static void micro_steps(struct tree *t) {
    if (t->megatron) {
        t->nmicro = t->megatron_steps + 1 > 1 ? t->megatron_steps + 1 : 1;
        return;
    }
    int s = 0, b = 0;
    for (int c = t->nodes[t->root].first; c >= 0; c = t->nodes[c].next) {
        const char *id = tree_id(t, c);
        if (tree_kind_of(id) == TK_MODULE && t->nodes[c].kind == TK_MODULE) {
            if (strstr(id, ".forward.")) {
                if (b) { s++; b = 0; }
            } else b = 1;
        }
        t->nodes[c].micro = s;
    }
    t->nmicro = s + 1;
}

/* Post-order walk; in non-Megatron mode descendants take their top-level
 * ancestor's micro step on the way down. */
static int number_nodes(struct tree *t) {
    free(t->order);
    t->order = malloc((t->nnodes + 1) * sizeof *t->order);
    if (!t->order) return -1;
    t->norder = 0;
    for (size_t i = 0; i < t->nnodes; i++) t->nodes[i].order = -1;
    int n = t->root;
    /* iterative post-order: descend to first children, emit, move to next sibling or parent */
    while (n >= 0) {
        while (t->nodes[n].first >= 0) {
            int c = t->nodes[n].first;
            if (!t->megatron && n != t->root) t->nodes[c].micro = t->nodes[n].micro;
            n = c;
        }
        for (;;) {
            t->nodes[n].order = (int32_t)t->norder;
            t->order[t->norder++] = n;
            if (n == t->root) return 0;
            int nx = t->nodes[n].next;
            if (nx >= 0) {
                int p = t->nodes[n].parent;
                if (!t->megatron && p != t->root && p >= 0) t->nodes[nx].micro = t->nodes[p].micro;
                n = nx;
                break;
            }
            n = t->nodes[n].parent;
            if (n < 0) return 0;
        }
    }
    return 0;
}

int tree_build(struct tree *t, struct pt_error *err) {
    if (t->ncons == 0)
        return pt_errorf(err, "%s: construct.json is empty, so the dump has no model structure "
                              "(level L1 dumps have none; dump with level L0 or mix for the graph)",
                         t->path ? t->path : "dump");
    /* the nodes and their map sized once for about what construct.json
     * makes (one node an entry, a few more for API collections): grown by
     * doubling, the old array and table beside the new were the peak of a
     * small compare (about 300 kB at the 8.5 MB pair) */
    size_t guess = t->ncons + t->ncons / 8 + 64;
    if (util_grow((void **)&t->nodes, &t->capnodes, guess, sizeof *t->nodes) != 0 ||
        smap_reserve(t->node_map, guess) != 0 || init_nodes(t) != 0 || handle_recompute(t) != 0 ||
        collect_apis(t) != 0 || add_pgrads(t) != 0)
        return pt_errorf(err, "%s: out of memory while building the graph", t->path ? t->path : "dump");
    micro_steps(t);
    if (number_nodes(t) != 0) return pt_errorf(err, "out of memory");
    t->nodes[t->root].micro = 0;
    /* construct.json's map is read only while building (t->cons stays for
     * the layer mapping): a large dump's is a few MB */
    smap_free(t->cons_map);
    t->cons_map = NULL;
    return 0;
}

void tree_forget_records(struct tree *t) {
    smap_free(t->rec_map);
    t->rec_map = NULL;
}

void tree_unmap_records(struct tree *t) { t->recs_unmapped = 1; }

int tree_add_node(struct tree *t, const char *id, int kind, int parent) {
    size_t len = strlen(id);
    if (smap_get(t->node_map, id, len) >= 0) return -1;
    uint32_t off = tree_str(t, id, len);
    if (off == TREE_NONE) return -1;
    int n = new_node(t, off, (enum tree_kind)kind);
    if (n < 0) return -1;
    if (parent < 0) {
        t->root = n;
        t->nodes[n].attached = 1;
    } else if (parent < n) attach(t, n, parent);
    return n;
}

int tree_finish(struct tree *t, struct pt_error *err) {
    if (t->root < 0) return pt_errorf(err, "the graph has no root node");
    if (number_nodes(t) != 0) return pt_errorf(err, "out of memory");
    return 0;
}

int tree_depth(const struct tree *t, int n) {
    int d = 0;
    for (size_t guard = 0; n >= 0 && t->nodes[n].parent >= 0 && guard <= t->nnodes; guard++) {
        d++;
        n = t->nodes[n].parent;
    }
    return d;
}

char *tree_label(const struct tree *t, int n, char *buf, size_t size) {
    const char *id = tree_id(t, n);
    int p = t->nodes[n].parent;
    if (p < 0 || p == t->root) {
        snprintf(buf, size, "%s", id);
        return buf;
    }
    int k = t->nodes[n].kind == TK_MODULE ? 4 : 2;
    size_t e = drop_segments(id, k);   /* start of the last k segments - 1 */
    /* the k-th segment from the end: is it a number? then one more */
    const char *start = e ? id + e + 1 : id;
    const char *d = strchr(start, '.');
    size_t sl = d ? (size_t)(d - start) : strlen(start);
    if (e && all_digits(start, sl)) {
        size_t e2 = drop_segments(id, k + 1);
        start = e2 ? id + e2 + 1 : id;
    }
    snprintf(buf, size, "%s", start);
    return buf;
}

int tree_enclosing_module(const struct tree *t, int n) {
    if (n < 0 || (size_t)n >= t->nnodes) return -1;
    int a = t->nodes[n].parent;
    for (size_t guard = 0; a >= 0 && a != t->root && guard <= t->nnodes; guard++, a = t->nodes[a].parent)
        if (t->nodes[a].kind == TK_MODULE) return a;
    return -1;
}
