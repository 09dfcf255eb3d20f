/* util: see util.h. */
#include "model/util/util.h"

#include "model/util/bigmem.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- hashing ---- */

uint64_t util_hash(const void *s, size_t len, uint64_t seed) {
    const unsigned char *p = s;
    uint64_t h = 14695981039346656037ull ^ seed;   /* FNV-1a offset basis */
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

uint64_t util_hash_str(const char *s) { return util_hash(s, strlen(s), 0); }

/* Eight bytes a round (xxHash64's round and murmur3's final mix); the tail
 * loaded into one zero-padded word with the length folded in, so "a" and
 * "a\0" differ. */
static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t util_hash_fast(const void *s, size_t len, uint64_t seed) {
    const unsigned char *p = s;
    uint64_t h = seed ^ 0x27d4eb2f165667c5ull ^ ((uint64_t)len * 0x9e3779b97f4a7c15ull);
    uint64_t w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = rotl64(h ^ rotl64(w * 0xc2b2ae3d27d4eb4full, 31) * 0x9e3779b185ebca87ull, 27) * 0x9e3779b185ebca87ull +
            0x85ebca77c2b2ae63ull;
    }
    if (len) {
        w = 0;
        memcpy(&w, p, len);
        h ^= rotl64(w * 0xc2b2ae3d27d4eb4full, 31) * 0x9e3779b185ebca87ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* ---- growable arrays ---- */

/* util_grow and util_grow0 (util.h) when need > *cap; util_grow2 */
int util_grow_to(void **p, size_t *cap, size_t need, size_t elem, int zero) {
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem) return -1;
    void *x = bigmem_realloc(*p, nc * elem);
    if (!x) return -1;
    if (zero) memset((char *)x + *cap * elem, 0, (nc - *cap) * elem);
    *p = x;
    *cap = nc;
    return 0;
}


int util_grow2(void **a, size_t ea, void **b, size_t eb, size_t *cap, size_t need) {
    size_t ca = *cap, cb = *cap;
    /* a grown and b not: *a is only larger than *cap says, which is safe */
    if (util_grow_to(a, &ca, need, ea, 0) != 0 || util_grow_to(b, &cb, need, eb, 0) != 0) return -1;
    *cap = ca;
    return 0;
}

/* ---- string arena ---- */

int util_strpool_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n, uint32_t *off) {
    if (*len + n + 1 > UINT32_MAX) return -1;
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap * 2 : (size_t)1 << 14;
        while (nc < *len + n + 1) nc *= 2;
        char *a = realloc(*buf, nc);
        if (!a) return -1;
        *buf = a;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    (*buf)[*len + n] = '\0';
    *off = (uint32_t)*len;
    *len += n + 1;
    return 0;
}

/* ---- string -> int32 map ---- */

static uint32_t smap_hash(const char *s) {
    uint32_t h = (uint32_t)util_hash_fast(s, strlen(s), 0);   /* never walked in slot order */
    return h ? h : 1;   /* 0 marks an empty slot */
}

int32_t *util_smap_slot(struct util_smap *m, const char *key, int create) {
    if (create && (m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        char **nk = calloc(nc, sizeof *nk);
        int32_t *nv = calloc(nc, sizeof *nv);
        uint32_t *nh = calloc(nc, sizeof *nh);
        if (!nk || !nv || !nh) { free(nk); free(nv); free(nh); return NULL; }
        for (size_t i = 0; i < m->cap; i++)
            if (m->hashes[i]) {
                size_t j = m->hashes[i] & (nc - 1);
                while (nh[j]) j = (j + 1) & (nc - 1);
                nk[j] = m->keys[i]; nv[j] = m->vals[i]; nh[j] = m->hashes[i];
            }
        free(m->keys); free(m->vals); free(m->hashes);
        m->keys = nk; m->vals = nv; m->hashes = nh; m->cap = nc;
    }
    if (!m->cap) return NULL;
    uint32_t h = smap_hash(key);
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->hashes[i]) {
            if (!create) return NULL;
            m->keys[i] = m->borrow ? (char *)key : strdup(key);
            if (!m->keys[i]) return NULL;
            m->hashes[i] = h;
            m->vals[i] = -1;
            m->n++;
            return &m->vals[i];
        }
        if (m->hashes[i] == h && !strcmp(m->keys[i], key)) return &m->vals[i];
    }
}

void util_smap_free(struct util_smap *m) {
    if (!m->borrow)
        for (size_t i = 0; i < m->cap; i++) free(m->keys[i]);
    free(m->keys); free(m->vals); free(m->hashes);
    int borrow = m->borrow;
    memset(m, 0, sizeof *m);
    m->borrow = borrow;
}

/* ---- comparators ---- */

int util_cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int util_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

size_t util_sort_unique_i32(int32_t *v, size_t n) {
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++) sorted = v[i - 1] <= v[i];
    if (!sorted) qsort(v, n, sizeof *v, util_cmp_i32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || v[u - 1] != v[i]) v[u++] = v[i];
    return u;
}

/* ---- strings ---- */

int util_ends_with_n(const char *s, size_t n, const char *suf) {
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

int util_ends_with(const char *s, const char *suf) { return util_ends_with_n(s, strlen(s), suf); }

void util_put_text(char *buf, size_t size, size_t *len, const char *s, size_t n) {
    if (*len + n >= size) n = *len + 1 < size ? size - 1 - *len : 0;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

const char *util_find(const char *s, size_t n, const char *w, size_t wl) {
    if (!wl) return s;
    for (const char *p = s, *e = s + n; (size_t)(e - p) >= wl && (p = memchr(p, w[0], (size_t)(e - p) - wl + 1)); p++)
        if (!memcmp(p, w, wl)) return p;
    return NULL;
}

size_t util_ascii_run(const char *s, size_t n, char a, char b) {
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    const uint64_t ma = ones * (unsigned char)a, mb = ones * (unsigned char)b;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, xa, xb;
        memcpy(&x, s + i, 8);
        xa = x ^ ma;
        xb = x ^ mb;
        /* a byte below 0x20, above 0x7e, or equal to a or b sets its top bit
         * (a borrow may set later bytes' too: the byte loop finds the first) */
        if ((((x - ones * 0x20) & ~x) | ((x + ones) | x) | ((xa - ones) & ~xa) | ((xb - ones) & ~xb)) & high) break;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c > 0x7e || s[i] == a || s[i] == b) break;
    }
    return i;
}

size_t util_put_uint(char *buf, size_t o, unsigned long long v) {
    if (v < 10) {   /* most: a dump row's item index (add_row, once per row) */
        buf[o] = (char)('0' + v);
        return o + 1;
    }
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) buf[o++] = tmp[--n];
    return o;
}

size_t util_put_int(char *buf, size_t o, long long v) {
    if (v < 0) buf[o++] = '-';
    return util_put_uint(buf, o, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

long util_num_after(const char *name, const char *prefix) {
    size_t l = strlen(prefix);
    if (strncmp(name, prefix, l) != 0) return -1;
    const char *p = name + l;
    if (!*p) return -1;
    long v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > INT_MAX / 10) return -1;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* --mem SIZE: bytes, or with a K, M, G or T suffix (powers of 1024; a
 * trailing B or iB allowed). */
int util_parse_size(const char *v, uint64_t *out) {
    char *e;
    errno = 0;
    double x = strtod(v, &e);
    if (e == v || errno || !(x >= 0) || x > 1e18) return -1;
    const char *units = "KMGT";
    const char *u = *e ? strchr(units, toupper((unsigned char)*e)) : NULL;
    if (*e && !u) return -1;
    if (u) {
        for (const char *k = units; k <= u; k++) x *= 1024;
        e++;
        if (*e == 'i') e++;
        if (*e == 'B' || *e == 'b') e++;
    }
    if (*e || x > 1.8e19) return -1;
    *out = (uint64_t)x;
    return 0;
}

/* The default --mem: a quarter of the machine's memory, at most 1 GiB, so
 * that browsing stays small beside the rest of the machine's work. */
uint64_t util_default_mem(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    uint64_t cap = (uint64_t)1 << 30;
    if (pages <= 0 || size <= 0) return cap / 4;
    uint64_t q = (uint64_t)pages * (uint64_t)size / 4;
    return q < cap ? q : cap;
}

int util_ncores(int max) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > max ? max : (int)n;
}
