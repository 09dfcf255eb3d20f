/* microstep: root resolution through construct.json and per-micro-step
 * renumbering of call indices, exactly as msProbe's data2db. */
#include "src/io/dump/microstep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/radix.h"
#include "model/util/util.h"
#include "src/io/common/json_scan.h"

/* A map from construct key to its construct index, for M and R lookups. */
struct kmap {
    uint32_t *slot;   /* index + 1 */
    size_t cap;
    size_t *len;      /* name length per construct index */
    uint64_t *hv;     /* the name's microstep_hash per construct index put (kmap_put) */
};

/* Eight bytes per multiply: construct keys are long ("Module.module.module.
 * language_model.encoder.layers.17.mlp.forward.0"), and hashing them byte by
 * byte was a visible part of every rank's parse. */
uint64_t microstep_hash(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

static int kmap_init(struct kmap *m, const struct construct *c) {
    m->cap = 16;
    while (m->cap < c->n * 2 + 1) m->cap *= 2;
    m->slot = calloc(m->cap, sizeof *m->slot);
    m->len = malloc((c->n ? c->n : 1) * sizeof *m->len);
    m->hv = malloc((c->n ? c->n : 1) * sizeof *m->hv);
    if (!m->slot || !m->len || !m->hv) return -1;
    for (size_t i = 0; i < c->n; i++) m->len[i] = strlen(c->v[i].name);
    return 0;
}

/* Later duplicates replace the value but the dict keeps the first position,
 * as a Python dict does: the slot keeps pointing at the first index, and
 * the caller stores values per first index. */
static uint32_t kmap_get(const struct kmap *m, const struct construct *c, const char *k, size_t n) {
    for (size_t i = microstep_hash(k, n) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        uint32_t v = m->slot[i];
        if (!v) return UINT32_MAX;
        if (m->len[v - 1] == n && !memcmp(c->v[v - 1].name, k, n)) return v - 1;
    }
}

/* (the hash kept in hv for the micro step table's own: the same keys) */
static uint32_t kmap_put(struct kmap *m, const struct construct *c, uint32_t idx) {
    const char *k = c->v[idx].name;
    size_t n = m->len[idx];
    m->hv[idx] = microstep_hash(k, n);
    for (size_t i = m->hv[idx] & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        uint32_t v = m->slot[i];
        if (!v) { m->slot[i] = idx + 1; return idx; }
        if (m->len[v - 1] == n && !memcmp(c->v[v - 1].name, k, n)) return v - 1;
    }
}

enum { MV_ABSENT, MV_ROOT, MV_NONE, MV_PARENT };

#define NOT_PUT (UINT32_MAX - 1)   /* a node whose key microstep_build did not put in the kmap */

struct mval {
    uint8_t kind;
    int32_t root;          /* MV_ROOT */
    uint32_t parent;       /* MV_PARENT: construct index whose parent string is the value */
};

/* Replaces every ".backward" and ".parameters_grad" by ".forward" in s
 * (n bytes, no NUL among them, one after them). */
static size_t to_forward(const char *s, size_t n, char *out, size_t size) {
    const char *e = s + n;
    size_t o = 0;
    while (s < e && o + 9 < size) {
        /* the bytes up to the next dot at once (as many as fit), then the dot's word */
        const char *d = memchr(s, '.', (size_t)(e - s));
        size_t run = (size_t)((d ? d : e) - s), room = size - 9 - o;
        if (run > room) run = room;
        memcpy(out + o, s, run);
        o += run;
        s += run;
        if (*s != '.' || o + 9 >= size) continue;
        if (s[1] == 'b' && !strncmp(s, ".backward", 9)) { memcpy(out + o, ".forward", 8); o += 8; s += 9; }
        else if (s[1] == 'p' && !strncmp(s, ".parameters_grad", 16)) { memcpy(out + o, ".forward", 8); o += 8; s += 16; }
        else out[o++] = *s++;
    }
    out[o] = '\0';
    return o;
}

/* Whether s (n bytes, no NUL among them, one after them) holds ".backward"
 * or ".parameters_grad" (strstr's answer for either): sixteen bytes at a
 * time, a dot followed by 'b' or 'p' looked at closer (two strstr calls a
 * name were a third of resolve). */
static int has_fw_word(const char *s, size_t n) {
    size_t i = 0;
#if JSON_HAVE_SSE2
    const __m128i dot = _mm_set1_epi8('.'), b = _mm_set1_epi8('b'), p = _mm_set1_epi8('p');
    for (; i + 17 <= n + 1; i += 16) {   /* bytes i .. i + 16 (the NUL at most) */
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(v0, dot), _mm_or_si128(_mm_cmpeq_epi8(v1, b), _mm_cmpeq_epi8(v1, p))));
        for (; m; m &= m - 1) {
            size_t at = i + (size_t)__builtin_ctz(m), left = n - at;
            if ((left >= 9 && !memcmp(s + at, ".backward", 9)) || (left >= 16 && !memcmp(s + at, ".parameters_grad", 16)))
                return 1;
        }
    }
#endif
    for (; i < n; i++) {
        size_t left = n - i;
        if (s[i] == '.' && ((left >= 9 && !memcmp(s + i, ".backward", 9)) ||
                            (left >= 16 && !memcmp(s + i, ".parameters_grad", 16))))
            return 1;
    }
    return 0;
}

/* root(): -1 unresolved or none, else the micro id; known: node's index
 * in km when the caller has it (kmap_put's answer), else NOT_PUT.  memo caches the answer
 * per construct index reached by the first hop (-2 = not known yet), so
 * the walk up a deep tree is done once per node, not once per descendant. */
static int32_t resolve(const struct construct *c, const struct kmap *km, const struct mval *mv, int32_t *memo,
                       const char *node, uint32_t known) {
    char buf[4096];
    uint32_t path[256];
    int np = 0;
    int32_t result = -1;
    for (int depth = 0; depth < 100000; depth++) {
        /* most names hold neither word: to_forward would copy them as they are */
        size_t n = depth == 0 && known != NOT_PUT ? km->len[known] : strlen(node);   /* (known: the same name) */
        const char *fw = node;
        if (n + 10 > sizeof buf || has_fw_word(node, n)) {
            n = to_forward(node, n, buf, sizeof buf);
            fw = buf;
        }
        uint32_t idx = depth == 0 && fw == node && known != NOT_PUT ? known : kmap_get(km, c, fw, n);
        if (idx == UINT32_MAX) break;
        if (memo[idx] != -2) { result = memo[idx]; break; }
        if (np < 256) path[np++] = idx;
        const struct mval *v = &mv[idx];
        if (v->kind == MV_ROOT) { result = v->root; break; }
        if (v->kind != MV_PARENT) break;
        const struct construct_node *p = &c->v[v->parent];
        node = p->parent_kind == CONSTRUCT_NAME ? p->parent : "";
    }
    for (int i = 0; i < np; i++) memo[path[i]] = result;
    return result;
}

struct rk {
    int32_t micro;
    char *prefix;
    long long number;
    uint32_t idx;     /* index into R */
    int family;       /* 'A', 'B', 'C' */
    uint32_t group;   /* (micro, prefix) as a number (rk_groups) */
    uint32_t cut;     /* 'A': the key's bytes before its last dot; 'B': before its number (names are cut at 4095 bytes) */
    uint32_t rest;    /* 'B': where its last dot is */
};

static int cmp_rk(const void *a, const void *b) {
    const struct rk *x = a, *y = b;
    if (x->micro != y->micro) return x->micro < y->micro ? -1 : 1;
    int s = strcmp(x->prefix, y->prefix);
    if (s) return s;
    if (x->number != y->number) return x->number < y->number ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Each rk's group: the same number for the same (micro, prefix), in the
 * order first met.  0, or -1 out of memory. */
static int rk_groups(struct rk *rks, size_t n, uint32_t *ngroups) {
    size_t cap = 16;
    while (cap < n * 2 + 1) cap *= 2;
    uint32_t *slot = calloc(cap, sizeof *slot);   /* rk index + 1 of a group's first */
    if (!slot) return -1;
    *ngroups = 0;
    for (size_t i = 0; i < n; i++) {
        struct rk *r = &rks[i];
        size_t h = (microstep_hash(r->prefix, strlen(r->prefix)) ^ (uint64_t)(uint32_t)r->micro * 0x9e3779b97f4a7c15ull) &
                   (cap - 1);
        for (;; h = (h + 1) & (cap - 1)) {
            if (!slot[h]) {
                slot[h] = (uint32_t)i + 1;
                r->group = (*ngroups)++;
                break;
            }
            const struct rk *o = &rks[slot[h] - 1];
            if (o->micro == r->micro && !strcmp(o->prefix, r->prefix)) {
                r->group = o->group;
                break;
            }
        }
    }
    free(slot);
    return 0;
}

/* The order in which each (micro, prefix) group's keys are numbered: by
 * number, then by place in R (a group's order is all the renumbering
 * reads; the order of the groups themselves does not matter).  ord gets
 * rk indices; a stable radix sort on (group, number), qsort on cmp_rk when
 * they do not pack into 64 bits.  0, or -1 out of memory. */
static int rk_order(struct rk *rks, size_t n, uint32_t *ord) {
    uint32_t ng;
    long long maxnum = 0;
    for (size_t i = 0; i < n; i++)
        if (rks[i].number > maxnum) maxnum = rks[i].number;   /* >= 0: digits only */
    int nb = radix_bits((uint64_t)maxnum);
    if (rk_groups(rks, n, &ng) != 0) return -1;
    if (nb + radix_bits(ng) > 64) {
        qsort(rks, n, sizeof *rks, cmp_rk);
        for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
        return 0;
    }
    struct radix_kv *kv = malloc(2 * (n ? n : 1) * sizeof *kv), *sorted;
    if (!kv) return -1;
    for (size_t i = 0; i < n; i++) kv[i] = (struct radix_kv){(uint64_t)rks[i].group << nb | (uint64_t)rks[i].number, i};
    if (!(sorted = radix_sort_kv(kv, kv + n, n, nb + radix_bits(ng)))) { free(kv); return -1; }
    for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)sorted[i].val;
    free(kv);
    return 0;
}

static int is_digits(const char *s, size_t n) {
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

static long long parse_ll(const char *s, size_t n) {
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (v > 100000000000000000LL) return v;   /* absurd counters saturate */
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

void microstep_free(struct microstep *ms) {
    util_arena_free(&ms->keys);
    free(ms->v);
    free(ms->hash);
    memset(ms, 0, sizeof *ms);
}

/* The lookup by original key (eh: each entry's microstep_hash, as the
 * kmap found it); an entry whose key an earlier one has is marked
 * (later_dup).  0, or -1 out of memory. */
static int hash_build(struct microstep *ms, const uint64_t *eh) {
    ms->hcap = 16;
    while (ms->hcap < ms->n * 2 + 1) ms->hcap *= 2;
    ms->hash = calloc(ms->hcap, sizeof *ms->hash);
    if (!ms->hash) return -1;
    for (size_t i = 0; i < ms->n; i++) {
        struct microstep_entry *e = &ms->v[i];
        size_t h = eh[i] & (ms->hcap - 1);
        for (; ms->hash[h]; h = (h + 1) & (ms->hcap - 1)) {
            const struct microstep_entry *o = &ms->v[ms->hash[h] - 1];
            if (o->keylen == e->keylen && !memcmp(o->key, e->key, e->keylen)) e->later_dup = 1;
        }
        ms->hash[h] = (uint32_t)i + 1;
    }
    return 0;
}

/* Each entry's family, number and prefix (into pfx, room enough: each
 * key's length and two bytes). */
static void rk_fill(const struct microstep *ms, struct rk *rks, char *pfx) {
    size_t at = 0;
    for (size_t i = 0; i < ms->n; i++) {
        const char *k = ms->v[i].key;
        size_t len = ms->v[i].keylen;
        const char *last = strrchr(k, '.');
        struct rk *r = &rks[i];
        r->micro = ms->v[i].micro;
        r->idx = (uint32_t)i;
        const char *lp = last ? last + 1 : k;
        size_t ll = len - (size_t)(lp - k);
        if (is_digits(lp, ll)) {
            r->family = 'A';
            r->number = parse_ll(lp, ll);
            size_t pl = last ? (size_t)(last - k) : 0;
            r->cut = (uint32_t)pl;
            r->prefix = pfx + at;
            memcpy(r->prefix, k, pl);
            r->prefix[pl] = '\0';
            at += pl + 1;
        } else if (last) {
            const char *p2 = last;   /* find the second-to-last part */
            while (p2 > k && p2[-1] != '.') p2--;
            size_t l2 = (size_t)(last - p2);
            if (is_digits(p2, l2)) {
                r->family = 'B';
                r->number = parse_ll(p2, l2);
                size_t pre = p2 > k ? (size_t)(p2 - 1 - k) : 0;
                r->cut = (uint32_t)(p2 - k);
                r->rest = (uint32_t)(last - k);
                r->prefix = pfx + at;
                memcpy(r->prefix, k, pre);
                r->prefix[pre] = '.';
                memcpy(r->prefix + pre + 1, lp, ll + 1);
                at += pre + ll + 2;
            } else {
                r->family = 'C';
                r->prefix = memcpy(pfx + at, k, len + 1);
                at += len + 1;
            }
        } else {
            r->family = 'C';
            r->prefix = memcpy(pfx + at, k, len + 1);
            at += len + 1;
        }
    }
}

int microstep_build(const struct construct *c, struct microstep *ms, struct pt_error *err) {
    struct kmap km = {0};
    struct mval *mv = NULL;
    int32_t *memo = NULL;
    uint32_t *first = NULL;   /* per node put in km: the first node of its name (kmap_put's answer), else NOT_PUT */
    uint64_t *eh = NULL;      /* per entry of ms->v: its key's hash */
    struct rk *rks = NULL;
    uint32_t *ord = NULL;
    char *pfx = NULL;   /* rks' prefixes */
    memset(ms, 0, sizeof *ms);
    ms->count = 1;
    if (kmap_init(&km, c) != 0 || !(mv = calloc(c->n ? c->n : 1, sizeof *mv)) ||
        !(memo = malloc((c->n ? c->n : 1) * sizeof *memo)) || !(first = malloc((c->n ? c->n : 1) * sizeof *first)))
        goto oom;
    for (size_t i = 0; i < c->n; i++) {
        memo[i] = -2;
        first[i] = NOT_PUT;
    }
    int32_t m = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct construct_node *nd = &c->v[i];
        uint32_t idx;
        if (nd->parent_kind == CONSTRUCT_NULL) {
            if (strstr(nd->name, ".backward")) {
                idx = first[i] = kmap_put(&km, c, (uint32_t)i);
                mv[idx] = (struct mval){.kind = MV_NONE};
            } else if (!strncmp(nd->name, "Module", 6) || !strncmp(nd->name, "Cell", 4) ||
                       !strncmp(nd->name, "optimizer", 9)) {
                idx = first[i] = kmap_put(&km, c, (uint32_t)i);
                mv[idx] = (struct mval){.kind = MV_ROOT, .root = m++};
            }
        } else {
            idx = first[i] = kmap_put(&km, c, (uint32_t)i);
            mv[idx] = (struct mval){.kind = MV_PARENT, .parent = (uint32_t)i};
        }
    }
    ms->v = calloc(c->n ? c->n : 1, sizeof *ms->v);
    eh = malloc((c->n ? c->n : 1) * sizeof *eh);
    if (!ms->v || !eh) goto oom;
    int32_t maxid = -1;
    for (size_t i = 0; i < c->n; i++) {
        int32_t r = resolve(c, &km, mv, memo, c->v[i].name, first[i]);
        if (r < 0) continue;
        /* R is a dict too: a repeated key keeps its first place (a node put
         * knows it from kmap_put; the map is whole now, as it was then for
         * the name's first) */
        uint32_t f = first[i] != NOT_PUT ? first[i] : kmap_get(&km, c, c->v[i].name, km.len[i]);
        if (f != UINT32_MAX && f != i) continue;
        eh[ms->n] = first[i] != NOT_PUT ? km.hv[i] : microstep_hash(c->v[i].name, km.len[i]);
        ms->v[ms->n++] = (struct microstep_entry){.key = c->v[i].name, .keylen = km.len[i], .micro = r};
        if (r > maxid) maxid = r;
    }
    ms->count = maxid >= 0 ? maxid + 1 : 1;
    /* renumber call indices per (micro step, prefix) */
    rks = calloc(ms->n ? ms->n : 1, sizeof *rks);
    if (!rks) goto oom;
    /* the prefixes in one block: each at most its key and two bytes */
    size_t room = 1;
    for (size_t i = 0; i < ms->n; i++) room += ms->v[i].keylen + 2;
    if (!(pfx = malloc(room))) goto oom;
    rk_fill(ms, rks, pfx);
    if (!(ord = malloc((ms->n ? ms->n : 1) * sizeof *ord)) || rk_order(rks, ms->n, ord) != 0) goto oom;
    long long idx = 0;
    for (size_t i = 0; i < ms->n; i++) {
        struct rk *r = &rks[ord[i]];
        if (i == 0 || r->group != rks[ord[i - 1]].group) idx = 0;
        struct microstep_entry *e = &ms->v[r->idx];
        const char *k = e->key;
        size_t len = e->keylen;
        char num[32];
        size_t nl = util_put_uint(num, 0, (size_t)idx);   /* idx >= 0 */
        num[nl] = '\0';
        if (r->family == 'A') {
            size_t pre = r->cut;
            e->newkey = util_arena_alloc(&ms->keys, pre + nl + 2);
            if (e->newkey) {
                memcpy(e->newkey, k, pre);
                e->newkey[pre] = '.';
                memcpy(e->newkey + pre + 1, num, nl + 1);
            }
        } else if (r->family == 'B') {
            const char *last = k + r->rest;
            size_t pre = r->cut, tail = len - r->rest;
            e->newkey = util_arena_alloc(&ms->keys, pre + nl + tail + 1);
            if (e->newkey) {
                memcpy(e->newkey, k, pre);
                memcpy(e->newkey + pre, num, nl);
                memcpy(e->newkey + pre + nl, last, tail + 1);
            }
        } else {
            e->newkey = util_arena_strndup(&ms->keys, k, len);
        }
        if (!e->newkey) goto oom;
        idx++;
    }
    free(pfx);
    free(rks);
    free(ord);
    rks = NULL;
    ord = NULL;
    pfx = NULL;
    if (hash_build(ms, eh) != 0) goto oom;
    free(eh);
    free(km.hv);
    free(km.slot);
    free(km.len);
    free(mv);
    free(memo);
    free(first);
    return 0;
oom:
    free(eh);
    free(km.hv);
    free(pfx);
    free(rks);
    free(ord);
    free(km.slot);
    free(km.len);
    free(mv);
    free(memo);
    free(first);
    microstep_free(ms);
    return pt_errorf(err, "out of memory computing micro steps");
}

const struct microstep_entry *microstep_find(const struct microstep *ms, const char *key, size_t len) {
    if (!ms->hcap) return NULL;
    for (size_t h = microstep_hash(key, len) & (ms->hcap - 1);; h = (h + 1) & (ms->hcap - 1)) {
        uint32_t v = ms->hash[h];
        if (!v) return NULL;
        const struct microstep_entry *e = &ms->v[v - 1];
        if (e->keylen == len && !memcmp(e->key, key, len)) return e;
    }
}

/* The next record's likely entry: its key and new key fetched while this
 * record is read (they lie elsewhere in memory, each a cache miss when
 * looked at cold). */
static void prefetch_next(const struct microstep *ms, size_t cur) {
    if (cur < ms->n) {
        __builtin_prefetch(ms->v[cur].key);
        __builtin_prefetch(ms->v[cur].newkey);
    }
}

const struct microstep_entry *microstep_find_near(const struct microstep *ms, const char *key, size_t len, size_t *cur) {
    if (*cur < ms->n) {
        const struct microstep_entry *e = &ms->v[*cur];
        if (e->keylen == len && !e->later_dup && !memcmp(e->key, key, len)) {
            prefetch_next(ms, ++*cur);
            return e;
        }
    }
    const struct microstep_entry *e = microstep_find(ms, key, len);
    if (e) prefetch_next(ms, *cur = (size_t)(e - ms->v) + 1);
    return e;
}
