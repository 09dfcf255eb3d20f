/* dump_cache: parsed rank folders kept between loads (dump_cache.h). */
#include "src/io/dump/dump_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "model/util/util.h"
#include "src/io/common/pstore.h"
#include "src/io/dump/read_dump.h"

struct dump_cache {
    struct pstore *store;         /* dir -> struct dump_file * */
    struct dump_cache_stats st;
};

static void file_free(void *payload) {
    dump_file_free(payload);
    free(payload);
}

struct dump_cache *dump_cache_new(uint64_t budget) {
    struct dump_cache *c = calloc(1, sizeof *c);
    if (c && !(c->store = pstore_new(budget, file_free))) {
        free(c);
        return NULL;
    }
    return c;
}

void dump_cache_free(struct dump_cache *c) {
    if (!c) return;
    pstore_free(c->store);
    free(c);
}

struct dump_cache_stats dump_cache_stats(const struct dump_cache *c) {
    struct dump_cache_stats s = c->st;
    s.parts = pstore_count(c->store);
    s.bytes = pstore_bytes(c->store);
    return s;
}

int dump_cache_begin(struct dump_cache *c, const char *stamp) { return pstore_begin(c->store, stamp) < 0 ? -1 : 0; }

/* The identity of dir's files: dump.json, construct.json, stack.json, and
 * the step and rank the folder has in this load (its overflow records name
 * them). */
static uint64_t sig_of(const char *dir, int32_t step, int32_t rank) {
    static const char *const names[] = {"dump.json", "construct.json", "stack.json"};
    int32_t sr[2] = {step, rank};
    uint64_t h = util_hash(sr, sizeof sr, 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[4200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (stat(p, &st) != 0) {
            h = util_hash("absent", 6, h);
            continue;
        }
        int64_t v[8] = {(int64_t)st.st_dev, (int64_t)st.st_ino, (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec,
                        (int64_t)st.st_mtim.tv_nsec, (int64_t)st.st_ctim.tv_sec, (int64_t)st.st_ctim.tv_nsec,
                        (int64_t)i};
        h = util_hash(v, sizeof v, h);
    }
    return h;
}

const struct dump_file *dump_cache_find(struct dump_cache *c, const char *dir, int32_t step, int32_t rank, uint64_t *sig) {
    *sig = sig_of(dir, step, rank);
    const struct dump_file *f = pstore_find(c->store, dir, *sig);
    if (f) c->st.kept++;
    else c->st.parsed++;
    return f;
}

/* What a parse holds in memory, about. */
static uint64_t size_of(const struct dump_file *f) {
    uint64_t n = sizeof *f + f->nrows * sizeof *f->rows + f->alen + f->ovf.n * sizeof *f->ovf.v;
    for (size_t i = 0; i < f->ovf.n; i++)
        n += (f->ovf.v[i].name ? strlen(f->ovf.v[i].name) + 1 : 0) + (f->ovf.v[i].what ? strlen(f->ovf.v[i].what) + 1 : 0);
    return n;
}

int dump_cache_keep(struct dump_cache *c, const char *dir, uint64_t sig, struct dump_file *f) {
    if (!f->ok) return 0;
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/dump.json", dir);
    if (stat(p, &st) != 0 || time(NULL) - st.st_mtim.tv_sec <= 1) return 0;
    /* exact sizes: the parse's buffers grew by doubling */
    if (f->nrows && f->nrows < f->caprows) {
        struct dump_tensor_row *r = realloc(f->rows, f->nrows * sizeof *r);
        if (r) { f->rows = r; f->caprows = f->nrows; }
    }
    if (f->alen && f->alen < f->acap) {
        char *a = realloc(f->arena, f->alen);
        if (a) { f->arena = a; f->acap = f->alen; }
    }
    struct dump_file *k = malloc(sizeof *k);
    if (!k) return 0;
    *k = *f;
    if (!pstore_keep(c->store, dir, sig, k, size_of(k))) {   /* over the budget: f stays the caller's */
        free(k);
        return 0;
    }
    memset(f, 0, sizeof *f);
    return 1;
}

void dump_cache_end(struct dump_cache *c, int whole) { pstore_end(c->store, whole); }
