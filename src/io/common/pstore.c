/* pstore: parses kept between loads (pstore.h). */
#include "src/io/common/pstore.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

struct pentry {
    char *key;
    uint64_t sig, bytes;
    unsigned gen;                 /* the last load that used it */
    void *payload;
};

struct pstore {
    struct pentry *e;
    size_t n, cap;
    struct util_smap index;       /* key -> index into e, -1: dropped */
    char *stamp;
    unsigned gen;
    uint64_t budget, bytes;
    pstore_free_fn free_fn;
};

struct pstore *pstore_new(uint64_t budget, pstore_free_fn free_fn) {
    struct pstore *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->budget = budget;
    s->free_fn = free_fn;
    return s;
}

static void drop_all(struct pstore *s) {
    for (size_t i = 0; i < s->n; i++) {
        s->free_fn(s->e[i].payload);
        free(s->e[i].key);
    }
    s->n = 0;
    s->bytes = 0;
    util_smap_free(&s->index);
}

void pstore_free(struct pstore *s) {
    if (!s) return;
    drop_all(s);
    free(s->e);
    free(s->stamp);
    free(s);
}

size_t pstore_count(const struct pstore *s) { return s->n; }
uint64_t pstore_bytes(const struct pstore *s) { return s->bytes; }

int pstore_begin(struct pstore *s, const char *stamp) {
    s->gen++;
    if (s->stamp && !strcmp(s->stamp, stamp)) return 0;
    drop_all(s);
    free(s->stamp);
    return (s->stamp = strdup(stamp)) ? 1 : -1;
}

void *pstore_find(struct pstore *s, const char *key, uint64_t sig) {
    int32_t *slot = util_smap_slot(&s->index, key, 0);
    if (!slot || *slot < 0 || s->e[*slot].sig != sig) return NULL;
    s->e[*slot].gen = s->gen;
    return s->e[*slot].payload;
}

/* Drops the entry at i (the last one takes its place). */
static void drop_at(struct pstore *s, size_t i) {
    int32_t *slot = util_smap_slot(&s->index, s->e[i].key, 0);
    if (slot) *slot = -1;
    s->bytes -= s->e[i].bytes;
    s->free_fn(s->e[i].payload);
    free(s->e[i].key);
    s->e[i] = s->e[--s->n];
    if (i < s->n && (slot = util_smap_slot(&s->index, s->e[i].key, 0))) *slot = (int32_t)i;
}

int pstore_keep(struct pstore *s, const char *key, uint64_t sig, void *payload, uint64_t bytes) {
    int32_t *slot = util_smap_slot(&s->index, key, 0);
    if (slot && *slot >= 0) drop_at(s, (size_t)*slot);   /* what key had is stale */
    if (s->bytes + bytes > s->budget) return 0;
    char *k = strdup(key);
    if (!k || UTIL_PUSH(s->e, s->n, s->cap) != 0 || !(slot = util_smap_slot(&s->index, key, 1))) {
        free(k);
        return 0;
    }
    *slot = (int32_t)s->n;
    s->e[s->n++] = (struct pentry){.key = k, .sig = sig, .bytes = bytes, .gen = s->gen, .payload = payload};
    s->bytes += bytes;
    return 1;
}

void pstore_end(struct pstore *s, int whole) {
    if (!whole) return;
    /* backwards: the last entry, moved into a dropped one's place, was seen */
    for (size_t i = s->n; i-- > 0;)
        if (s->e[i].gen != s->gen) drop_at(s, i);
}
