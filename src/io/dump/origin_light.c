/* origin_light: communication ops held light for the origin search
 * (origin_light.h).  The scan walks the record's bytes the load's own
 * tokenizer has just accepted; it stops at the first thing it cannot say
 * for sure (the op is then kept whole), so its reading of the rest never
 * has to be lenient. */
#include "src/io/dump/origin_light.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"
#include "src/io/common/json_scan.h"

#define NO_RANK INT32_MIN     /* as origin_pair.c's: a value that names no rank */
#define MAX_ITEMS 64          /* more top-level inputs the rules read: odd */
#define VALUE_TEXT 64         /* a string value this long or longer: odd */

struct sc {
    const char *p, *e, *b0;
    const uint32_t *vet;      /* origin_light_scan's: values to step over */
    size_t nvet, vi;
    struct origin_cap *c;
    uint32_t rec;
    size_t i0;                /* the record's first item */
    uint8_t sec[MAX_ITEMS];   /* each item's section: 0 input_args, 1 input_kwargs, 2 input */
    int oom;
};

/* ',', ':', white space (one bit test below 0x40), ']' or '}' */
static inline int is_delim(char ch) {
    unsigned char u = (unsigned char)ch;
    const uint64_t low = (1ull << ',') | (1ull << ':') | (1ull << ' ') | (1ull << '\n') | (1ull << '\t') | (1ull << '\r');
    return u < 64 ? (int)((low >> u) & 1) : u == ']' || u == '}';
}

/* The shared scan of json_scan.h (as trace_fast.c's skip_nested): to the
 * next quote or bracket. */
static inline const char *to_stop(const char *p, const char *e) {
#if JSON_HAVE_SSE2
    return json_scan_skip_sse2(p, e);
#else
    return json_scan_skip_portable(p, e);
#endif
}

static inline int at(struct sc *s, char ch) {
    s->p = json_scan_ws(s->p, s->e);
    return s->p < s->e && *s->p == ch;
}

/* At a value the load vouches for (origin_light_scan's vet): past it, 1. */
static int vetted(struct sc *s) {
    if (s->vi >= s->nvet) return 0;
    at(s, ' ');
    uint64_t off = (uint64_t)(s->p - s->b0);
    while (s->vi < s->nvet && s->vet[2 * s->vi] < off) s->vi++;
    if (s->vi == s->nvet || s->vet[2 * s->vi] != off) return 0;
    s->p = s->b0 + s->vet[2 * s->vi + 1];
    s->vi++;
    return 1;
}

/* Steps over ch (after white space); -1 when it is not there. */
static int expect(struct sc *s, char ch) {
    if (!at(s, ch)) return -1;
    s->p++;
    return 0;
}

/* A string, p at its '"': its raw text; -1 malformed or escaped (a key or
 * value read with escapes could be another one). */
__attribute__((always_inline)) static inline int str(struct sc *s, const char **b, size_t *n) {
    if (!at(s, '"')) return -1;
    int esc = 0;
    const char *q = s->p + 1, *r = json_scan_str_end(q, s->e, &esc);
    if (!r || esc) return -1;
    *b = q;
    *n = (size_t)(r - q);
    s->p = r + 1;
    return 0;
}

/* A literal (number, true, false, null): its bytes. */
static int literal(struct sc *s, const char **b, size_t *n) {
    at(s, ' ');
    *b = s->p;
    while (s->p < s->e && !is_delim(*s->p)) s->p++;
    *n = (size_t)(s->p - *b);
    return *n ? 0 : -1;
}

/* Names that rename an item (data_name) or read it otherwise (a P2POp's
 * class_type), wherever they are. */
static int renames(const char *b, size_t n) {
    return (n == 9 && !memcmp(b, "data_name", 9)) || (n == 10 && !memcmp(b, "class_type", 10));
}

/* Steps over one value; -1 at an escaped string or a name that renames. */
static int skip(struct sc *s) {
    at(s, ' ');
    if (s->p >= s->e) return -1;
    if (*s->p != '{' && *s->p != '[' && *s->p != '"') {
        const char *b;
        size_t n;
        return literal(s, &b, &n);
    }
    int depth = 0;
    do {
        /* to the next byte that matters: a quote or a bracket */
        s->p = to_stop(s->p, s->e);
        if (s->p >= s->e) return -1;
        char ch = *s->p;
        if (ch == '"') {
            const char *b;
            size_t n;
            if (str(s, &b, &n) != 0 || renames(b, n)) return -1;
            continue;
        }
        if (ch == '{' || ch == '[') depth++;
        else if (ch == '}' || ch == ']') depth--;
        s->p++;
    } while (depth > 0 && s->p < s->e);
    return depth == 0 ? 0 : -1;
}

/* origin_pair.c's text_int: the whole text as a decimal int32 (strtol's
 * reading), else NO_RANK; -1 when the text is too long to copy. */
static int text_rank(const char *b, size_t n, int32_t *v) {
    char tmp[VALUE_TEXT];
    if (n >= sizeof tmp) return -1;
    memcpy(tmp, b, n);
    tmp[n] = '\0';
    char *e;
    long x = strtol(tmp, &e, 10);
    *v = e != tmp && !*e && x >= INT32_MIN + 1 && x <= INT32_MAX ? (int32_t)x : NO_RANK;
    return 0;
}

/* A value member as the rank its Python text reads as (read_graph.c's
 * pool_itext, then text_int): a string is its text, an int literal
 * itself, anything else never an int. */
static int value_rank(struct sc *s, int32_t *v) {
    const char *b;
    size_t n;
    *v = NO_RANK;
    if (at(s, '"')) return str(s, &b, &n) != 0 ? -1 : text_rank(b, n, v);
    if (at(s, '{') || at(s, '[')) return skip(s);
    if (literal(s, &b, &n) != 0) return -1;
    for (size_t i = 0; i < n; i++)
        if (b[i] != '-' && (b[i] < '0' || b[i] > '9')) return 0;   /* a float, true, null: not an int */
    return text_rank(b, n, v);
}

/* An int written as Python writes it back (no leading zero, no -0), in
 * int32: a rank of group_ranks, whose text is read back by strtol. */
static int canon_int(const char *b, size_t n, int32_t *v) {
    size_t i = n && b[0] == '-';
    if (i == n || n - i > 10 || (b[i] == '0' && n - i > 1)) return 0;
    long long x = 0;
    for (size_t k = i; k < n; k++) {
        if (b[k] < '0' || b[k] > '9') return 0;
        x = x * 10 + (b[k] - '0');
    }
    if (i) x = -x;
    if (x < INT32_MIN || x > INT32_MAX || (i && x == 0)) return 0;
    *v = (int32_t)x;
    return 1;
}

/* group_ranks as a list of plain ints, p at '[': into c->ints. */
static int ranks(struct sc *s, uint32_t *ng) {
    s->p++;
    *ng = 0;
    if (at(s, ']')) { s->p++; return 0; }
    for (;;) {
        const char *b;
        size_t n;
        int32_t v;
        if (literal(s, &b, &n) != 0 || !canon_int(b, n, &v)) return -1;
        struct origin_cap *c = s->c;
        if (UTIL_PUSH(c->ints, c->nints, c->capints) != 0) { s->oom = 1; return -1; }
        c->ints[c->nints++] = v;
        (*ng)++;
        if (at(s, ',')) { s->p++; continue; }
        return expect(s, ']');
    }
}

/* Whether a dtype member counts as one (read_graph.c's has_dtype): not
 * null, false, "", [] or {}; a number (0 would not) is odd. */
static int dtype_has(struct sc *s, int *has) {
    const char *b;
    size_t n;
    if (at(s, '"')) {
        if (str(s, &b, &n) != 0) return -1;
        *has = n > 0;
        return 0;
    }
    if (at(s, '[') || at(s, '{')) {
        const char *q = s->p + 1;
        q = json_scan_ws(q, s->e);
        *has = !(q < s->e && (*q == ']' || *q == '}'));
        return skip(s);
    }
    if (literal(s, &b, &n) != 0) return -1;
    if (n == 4 && !memcmp(b, "true", 4)) *has = 1;
    else if ((n == 4 && !memcmp(b, "null", 4)) || (n == 5 && !memcmp(b, "false", 5))) *has = 0;
    else return -1;
    return 0;
}

static int push(struct sc *s, int sec, int key, uint32_t index, int32_t value, int is_null, int has_group,
                size_t g0, uint32_t ng) {
    struct origin_cap *c = s->c;
    if (c->nitems - s->i0 >= MAX_ITEMS) return -1;
    if (UTIL_PUSH(c->items, c->nitems, c->capitems) != 0) { s->oom = 1; return -1; }
    s->sec[c->nitems - s->i0] = (uint8_t)sec;
    c->items[c->nitems++] = (struct origin_cap_item){s->rec, index, value, (uint32_t)g0, ng, (uint8_t)key,
                                                     (uint8_t)is_null, (uint8_t)has_group};
    return 0;
}

/* The members of an item object (p after '{') the whole read looks at. */
struct leaf {
    const char *type; size_t tlen;
    int typed, has_dtype, md5, list;   /* type a string, dtype counts, md5 given, group_ranks a list */
    int32_t value;
    uint32_t ng;
};

static int leaf_members(struct sc *s, struct leaf *l) {
    unsigned seen = 0;
    if (at(s, '}')) { s->p++; return 0; }
    for (;;) {
        const char *k;
        size_t kn;
        if (str(s, &k, &kn) != 0 || renames(k, kn) || expect(s, ':') != 0) return -1;
        /* type, value, dtype, md5, group_ranks: bits 1, 2, 4, 8, 16 (by
         * length first: a tensor's eight members are read here) */
        unsigned bit = 0;
        switch (kn) {
        case 3: bit = !memcmp(k, "md5", 3) ? 8 : 0; break;
        case 4: bit = !memcmp(k, "type", 4) ? 1 : 0; break;
        case 5: bit = !memcmp(k, "value", 5) ? 2 : !memcmp(k, "dtype", 5) ? 4 : 0; break;
        case 11: bit = !memcmp(k, "group_ranks", 11) ? 16 : 0; break;
        default: break;
        }
        if (seen & bit) return -1;   /* Python keeps the last */
        seen |= bit;
        int rc;
        if (bit == 1 && at(s, '"')) rc = str(s, &l->type, &l->tlen), l->typed = 1;
        else if (bit == 2) rc = value_rank(s, &l->value);
        else if (bit == 4) rc = dtype_has(s, &l->has_dtype);
        else if (bit == 16 && at(s, '[')) rc = ranks(s, &l->ng), l->list = 1;
        else if (bit == 16 && at(s, '"')) rc = -1;   /* its text would be the string's */
        else rc = skip(s), l->md5 |= bit == 8;
        if (rc != 0) return -1;
        if (at(s, ',')) { s->p++; continue; }
        return expect(s, '}');
    }
}

/* One top-level input, p at its value: key the name the rules read it by
 * (ORIGIN_KEY_*, -1 none), index its position or digits. */
static int item(struct sc *s, int sec, int key, uint32_t index) {
    const char *b;
    size_t n;
    if (!at(s, '{')) {
        if (at(s, '[') || at(s, '"')) return skip(s);   /* its items nest deeper; a plain value makes none */
        if (literal(s, &b, &n) != 0) return -1;
        int null = n == 4 && !memcmp(b, "null", 4);
        return null && key >= 0 && key != ORIGIN_KEY_POS ? push(s, sec, key, 0, NO_RANK, 1, 0, 0, 0) : 0;
    }
    s->p++;
    size_t g0 = s->c->nints;
    struct leaf l = {.value = NO_RANK};
    if (leaf_members(s, &l) != 0) return -1;
    int has_group = key == ORIGIN_KEY_GROUP && l.typed && l.tlen == 18 && !memcmp(l.type, "torch.ProcessGroup", 18) &&
                    !l.has_dtype && l.list;
    if (key == ORIGIN_KEY_GROUP && l.typed && l.md5) return -1;   /* the group's text would be its md5 */
    if (!has_group) s->c->nints = g0;
    /* an object without a string type is walked as nested names */
    if (!l.typed || key < 0 || (key == ORIGIN_KEY_POS && !(l.tlen == 3 && !memcmp(l.type, "int", 3)))) return 0;
    return push(s, sec, key, index, l.value, 0, has_group, g0, has_group ? l.ng : 0);
}

/* input_args or input: a list of positional items. */
static int list(struct sc *s, int sec) {
    if (at(s, '{')) return -1;   /* its keys would name the items */
    if (!at(s, '[')) return skip(s);
    s->p++;
    if (at(s, ']')) { s->p++; return 0; }
    for (uint32_t i = 0;; i++) {
        if (!vetted(s) && item(s, sec, ORIGIN_KEY_POS, i) != 0) return -1;
        if (at(s, ',')) { s->p++; continue; }
        return expect(s, ']');
    }
}

static int key_of(const char *k, size_t n, uint32_t *index) {
    static const char *const names[] = {"src", "src_group", "dst", "dst_group", "group"};
    for (int i = 0; i < 5; i++)
        if (n == strlen(names[i]) && !memcmp(k, names[i], n)) return i;
    size_t d = 0;
    while (d < n && k[d] >= '0' && k[d] <= '9') d++;
    if (!n || d < n) return -1;
    if (n > 9 || (k[0] == '0' && n > 1)) return -2;   /* digits that would not read back the same */
    *index = (uint32_t)strtoul(k, NULL, 10);
    return ORIGIN_KEY_POS;
}

/* input_kwargs: an object of named items. */
static int kwargs(struct sc *s) {
    if (at(s, '[')) return -1;   /* its positions would name the items */
    if (!at(s, '{')) return skip(s);
    s->p++;
    const char *seen[MAX_ITEMS];
    size_t seenl[MAX_ITEMS], ns = 0;
    if (at(s, '}')) { s->p++; return 0; }
    for (;;) {
        const char *k;
        size_t kn;
        uint32_t index = 0;
        if (str(s, &k, &kn) != 0 || expect(s, ':') != 0 || ns == MAX_ITEMS) return -1;
        for (size_t i = 0; i < ns; i++)
            if (seenl[i] == kn && !memcmp(seen[i], k, kn)) return -1;   /* Python keeps the last */
        seen[ns] = k;
        seenl[ns++] = kn;
        int key = key_of(k, kn, &index);
        if (key == -2 || item(s, 1, key, index) != 0) return -1;
        if (at(s, ',')) { s->p++; continue; }
        return expect(s, '}');
    }
}

static int record(struct sc *s) {
    if (expect(s, '{') != 0) return -1;
    unsigned seen = 0;
    if (at(s, '}')) { s->p++; return 0; }
    for (;;) {
        const char *k;
        size_t kn;
        if (str(s, &k, &kn) != 0 || renames(k, kn) || expect(s, ':') != 0) return -1;
        int sec = kn == 10 && !memcmp(k, "input_args", 10) ? 0 : kn == 12 && !memcmp(k, "input_kwargs", 12) ? 1
                : kn == 5 && !memcmp(k, "input", 5) ? 2 : -1;
        if (sec >= 0 && (seen & (1u << sec))) return -1;
        if (sec >= 0) seen |= 1u << sec;
        if ((sec == 1 ? kwargs(s) : sec >= 0 ? list(s, sec) : vetted(s) ? 0 : skip(s)) != 0) return -1;
        if (at(s, ',')) { s->p++; continue; }
        return expect(s, '}');
    }
}

int origin_light_scan(struct origin_cap *c, uint32_t rec, const char *b, size_t n, const uint32_t *vet, size_t nvet) {
    struct sc s = {.p = b, .e = b + n, .b0 = b, .vet = vet, .nvet = nvet, .c = c, .rec = rec, .i0 = c->nitems};
    size_t n0 = c->nints;
    if (record(&s) != 0 || (at(&s, ' '), s.p != s.e)) {
        c->nitems = s.i0;
        c->nints = n0;
        return s.oom ? -1 : 0;
    }
    /* the whole read's order: input_args, input_kwargs, input (stable) */
    struct origin_cap_item *v = c->nitems > s.i0 ? c->items + s.i0 : NULL;
    for (size_t i = 1; v && i < c->nitems - s.i0; i++)
        for (size_t j = i; j > 0 && s.sec[j - 1] > s.sec[j]; j--) {
            struct origin_cap_item t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
            uint8_t u = s.sec[j];
            s.sec[j] = s.sec[j - 1];
            s.sec[j - 1] = u;
        }
    return 1;
}

int origin_light_add(struct origin_cap *c, const char *name, size_t nlen, uint64_t v0, uint64_t vlen, uint8_t flags,
                     int reread, const char *bytes, const uint32_t *vet, size_t nvet) {
    /* a parameters_grad record is flattened otherwise */
    if (bytes && !reread && vlen <= UINT32_MAX && !util_find(name, nlen, "parameters_grad", 15)) {
        int rc = origin_light_scan(c, (uint32_t)c->n, bytes, (size_t)vlen, vet, nvet);
        if (rc < 0) return -1;
        if (rc == 1) return origin_cap_add_light(c, name, nlen, v0, vlen, flags);
    }
    return origin_cap_add(c, name, nlen, v0, vlen, flags, reread, bytes);
}

/* ---- at the search ---- */

/* "[a, b, c]", as read_graph.c's Python text of the list. */
static int group_text(struct tree *t, const int32_t *v, size_t n, uint32_t *off) {
    char *buf = malloc(n * 13 + 3);   /* ", " and 11 bytes an int32 */
    if (!buf) return -1;
    size_t o = 0;
    buf[o++] = '[';
    for (size_t i = 0; i < n; i++) {   /* (a broadcast's group is every rank: no printf) */
        if (i) buf[o++] = ',', buf[o++] = ' ';
        o = util_put_int(buf, o, v[i]);
    }
    buf[o++] = ']';
    *off = tree_str(t, buf, o);
    free(buf);
    return *off == TREE_NONE ? -1 : 0;
}

int origin_light_params(const struct origin_cap *c, size_t r, struct origin_light_cur *cur, struct tree *t, int rec) {
    static const char *const names[] = {"src", "src_group", "dst", "dst_group", "group"};
    while (cur->item < c->nitems && c->items[cur->item].rec < r) cur->item++;
    size_t nl = c->v[r].nlen;
    /* buf[0] is room for the marker byte of the name's stored form
     * (tree_pname_mark, as the whole read's names are stored) */
    char *buf = malloc(nl + 33), *name = buf + 1;
    if (!buf) return -1;
    buf[0] = 0;
    memcpy(name, origin_cap_name(c, r), nl);
    memcpy(name + nl, ".input.", 7);
    int rc = 0;
    for (; cur->item < c->nitems && c->items[cur->item].rec == r && rc == 0; cur->item++) {
        const struct origin_cap_item *it = &c->items[cur->item];
        struct tparam *p = tree_add_param(t, rec);
        if (!p) { rc = -1; break; }
        p->state = PS_INPUT;
        p->is_null = it->is_null;
        /* by hand, not snprintf: this runs for every param of every light op */
        size_t len = nl + 7, skip;
        if (it->key == ORIGIN_KEY_POS) len = util_put_uint(name, len, (unsigned)it->index);
        else {
            size_t kl = strlen(names[it->key]);
            memcpy(name + len, names[it->key], kl);
            len += kl;
        }
        name[len] = '\0';
        char mark = tree_pname_mark(t, rec, name, len, &skip);
        if (!mark) p->name = tree_str(t, name, len);
        else {
            char *at = skip ? name + skip - 1 : buf;   /* the marker goes just before the stored part */
            char keep = *at;   /* a byte of the record's name, put back for the next param */
            *at = mark;
            p->name = tree_str(t, at, len - skip + 1);
            if (skip) *at = keep;
        }
        if (it->key == ORIGIN_KEY_POS) p->type = tree_str(t, "int", 3);
        if (it->value != NO_RANK) {
            char v[16];
            p->value = tree_str(t, v, util_put_int(v, 0, (int)it->value));
        }
        if (it->has_group) {
            /* an op's group is most often the one before it: its text once */
            const int32_t *g = it->ng ? c->ints + it->g0 : NULL;   /* an empty group may have no ints at all */
            if (!(g && cur->g && cur->ng == it->ng && !memcmp(cur->g, g, it->ng * sizeof *g)) &&
                group_text(t, g, it->ng, &cur->md5) != 0)
                rc = -1;
            cur->g = g;
            cur->ng = it->ng;
            p->md5 = cur->md5;
        }
        if (p->name == TREE_NONE || (it->key == ORIGIN_KEY_POS && p->type == TREE_NONE) ||
            (it->value != NO_RANK && p->value == TREE_NONE))
            rc = -1;
    }
    free(buf);
    return rc;
}
