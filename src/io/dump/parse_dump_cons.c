/* parse_dump_cons: construct.json read once per distinct content for the
 * parses of a dump (read_dump.h, cons_cache): the rank folders of a run
 * mostly hold byte-identical copies (MBs each), and the micro step table
 * built from one serves them all; the foresight of micro step counts
 * (dump_foresee_micro) fills the same cache.  The bytes are mapped
 * (parse_dump_text; probetop-formats(5), DUMP.JSON), not read: the copy
 * of 2 MB a rank folder into a fresh buffer, for bytes mostly only
 * compared with the cache's, was 6 % of data2db's time on a dump. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/common/json.h"
#include "src/io/dump/microstep.h"
#include "src/io/dump/read_construct.h"
#include "src/io/dump/read_dump.h"
#include "model/util/util.h"

#define CONS_CACHE_MAX 8   /* distinct contents kept (pipeline stages of a run); more: parsed per file */

struct cons_entry {
    char *bytes;             /* the file's content */
    size_t len;
    struct construct cons;
    struct microstep ms;     /* points into cons */
};

struct cons_count {          /* a content's micro step count, for dump_foresee_micro */
    uint64_t hash;
    size_t len;
    int count;
};

/* A construct.json file already read, known by its identity (device, inode,
 * size, modification time to the nanosecond, as make and git know a file
 * unchanged): the foresight reads every rank's file before the parses do, and
 * a parse that finds its file here takes the table without reading the bytes
 * again (2 MB a rank folder, a quarter of what data2db read). */
struct cons_seen {
    uint64_t dev, ino, size;
    int64_t sec, nsec;
    int count;               /* its micro step count */
    int entry;               /* its table in v[], or -1 (the cache was full) */
};

struct cons_cache {
    pthread_mutex_t mu;
    struct cons_entry v[CONS_CACHE_MAX];
    int n;
    struct cons_count *counts;   /* every content foreseen, however many (a few bytes each) */
    size_t ncounts, capcounts;
    struct cons_seen *seen;      /* every file read whole and unchanged meanwhile */
    size_t nseen, capseen;
};

struct cons_cache *cons_cache_new(void) {
    struct cons_cache *c = calloc(1, sizeof *c);
    if (c) pthread_mutex_init(&c->mu, NULL);
    return c;
}

void cons_cache_free(struct cons_cache *c) {
    if (!c) return;
    for (int i = 0; i < c->n; i++) {
        microstep_free(&c->v[i].ms);
        construct_free(&c->v[i].cons);
        free(c->v[i].bytes);
    }
    pthread_mutex_destroy(&c->mu);
    free(c->counts);
    free(c->seen);
    free(c);
}

/* The cache's entry of bytes b (len), or -1. */
static int cons_cache_find(struct cons_cache *c, const char *b, size_t len, int *full) {
    int slot = -1;
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < c->n && slot < 0; i++)
        if (c->v[i].len == len && !memcmp(c->v[i].bytes, b, len)) slot = i;
    *full = c->n >= CONS_CACHE_MAX;
    pthread_mutex_unlock(&c->mu);
    return slot;   /* entries never move or change once in */
}

/* Built entry e into the cache (it takes e): the entry kept, or -1 when
 * the cache filled meanwhile (the caller reads the file alone). */
static int cons_cache_put(struct cons_cache *c, struct cons_entry *e) {
    pthread_mutex_lock(&c->mu);
    int slot = -1;
    for (int i = 0; i < c->n && slot < 0; i++)   /* another thread may have put the same meanwhile */
        if (c->v[i].len == e->len && !memcmp(c->v[i].bytes, e->bytes, e->len)) slot = i;
    int mine = slot < 0 && c->n < CONS_CACHE_MAX;
    if (mine) {
        slot = c->n++;
        c->v[slot] = *e;
    }
    pthread_mutex_unlock(&c->mu);
    if (mine) return slot;
    /* ours is not kept: the twin in the cache serves */
    microstep_free(&e->ms);
    construct_free(&e->cons);
    free(e->bytes);
    return slot;
}

/* The identity of the file at path into *k (count and entry unset); -1 when
 * stat fails. */
static int seen_key(const char *path, struct cons_seen *k) {
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    *k = (struct cons_seen){(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                            (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec, 1, -1};
    return 0;
}

static int seen_same(const struct cons_seen *a, const struct cons_seen *b) {
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->sec == b->sec && a->nsec == b->nsec;
}

/* The record of file k read before, or 0 (*out untouched). */
static int seen_find(struct cons_cache *c, const struct cons_seen *k, struct cons_seen *out) {
    int got = 0;
    pthread_mutex_lock(&c->mu);
    for (size_t i = c->nseen; i-- > 0 && !got;)
        if (seen_same(&c->seen[i], k)) {
            *out = c->seen[i];
            got = 1;
        }
    pthread_mutex_unlock(&c->mu);
    return got;
}

/* File k (identity taken before its read) was read whole (len bytes), of
 * micro step count n, its table the cache's entry `entry` (-1: none): kept
 * when the file is still the same after the read (a file rewritten
 * meanwhile is read again by the parse).  Out of memory: not kept. */
static void seen_add(struct cons_cache *c, const char *path, struct cons_seen k, int entry, size_t len, int n) {
    struct cons_seen after;
    if (seen_key(path, &after) != 0 || !seen_same(&k, &after) || k.size != len) return;
    k.count = n;
    k.entry = entry;
    pthread_mutex_lock(&c->mu);
    if (util_grow((void **)&c->seen, &c->capseen, c->nseen + 1, sizeof *c->seen) == 0) c->seen[c->nseen++] = k;
    pthread_mutex_unlock(&c->mu);
}

#define CONS_MAX_BYTES ((size_t)1 << 32)

/* The table of construct.json bytes b (len, read whole from cpath): the
 * cache's, else built and put in the cache (with a copy of the bytes: they
 * are a mapping or the caller's buffer); the file recorded as seen (k, when
 * known) so that the foresight does not read it again.  NULL as
 * cons_cache_get says. */
static const struct microstep *cons_of_bytes(struct cons_cache *c, const char *cpath, const struct cons_seen *k,
                                             const char *b, size_t len, char *why, size_t nwhy) {
    struct pt_error cerr;
    struct cons_entry e;
    memset(&e, 0, sizeof e);
    int full = 0;
    int slot = cons_cache_find(c, b, len, &full);
    if (slot < 0 && full) return NULL;   /* a run of many distinct models?: the caller reads it alone */
    if (slot < 0) {
        cerr.msg[0] = '\0';
        if (construct_parse(cpath, b, len, &e.cons, &cerr) != 0) {
            snprintf(why, nwhy, "%s (micro steps unknown)", cerr.msg);
            return NULL;
        }
        if (microstep_build(&e.cons, &e.ms, &cerr) != 0) {
            snprintf(why, nwhy, "%s", cerr.msg);
            construct_free(&e.cons);
            return NULL;
        }
        if (!(e.bytes = malloc(len ? len : 1))) {   /* out of memory: the caller reads it alone */
            microstep_free(&e.ms);
            construct_free(&e.cons);
            return NULL;
        }
        memcpy(e.bytes, b, len);   /* the cache keeps its own copy */
        e.len = len;
        if ((slot = cons_cache_put(c, &e)) < 0) return NULL;
    }
    if (k) seen_add(c, cpath, *k, slot, len, c->v[slot].ms.count);
    return &c->v[slot].ms;
}

const struct microstep *cons_cache_get(struct cons_cache *c, const char *cpath, char *why, size_t nwhy, char **rbuf,
                                       size_t *rcap) {
    struct pt_error cerr;
    struct cons_seen k, was;
    int known = seen_key(cpath, &k) == 0;
    if (known && seen_find(c, &k, &was) && was.entry >= 0) return &c->v[was.entry].ms;
    const char *b;
    size_t len, maplen;
    int fd;
    cerr.msg[0] = '\0';
    if (parse_dump_text(cpath, CONS_MAX_BYTES, rbuf, rcap, &b, &len, &fd, &maplen, &cerr) != 0) {
        snprintf(why, nwhy, "%s (micro steps unknown)", cerr.msg);
        return NULL;
    }
    const struct microstep *ms = cons_of_bytes(c, cpath, known ? &k : NULL, b ? b : "", len, why, nwhy);
    parse_dump_text_done(b, fd, maplen);
    return ms;
}

/* The count of construct.json bytes b (len), built alone when no parse had
 * it yet, the table then kept by the cache with a copy of the bytes (they
 * are a mapping or a buffer of the caller's); *entry the cache's entry of
 * the bytes, or -1.  1 when it cannot be read as the parse would not
 * either.  The cache is looked at first (a memcmp of the bytes): the hash
 * of the whole file, twice the cost, only for the counts of contents the
 * cache does not hold (a full cache, or out of memory). */
static int foresee_bytes(struct cons_cache *c, const char *cpath, const char *b, size_t len, int *entry) {
    int n = -1, full;
    if ((*entry = cons_cache_find(c, b, len, &full)) >= 0) return c->v[*entry].ms.count;
    uint64_t h = 0;
    pthread_mutex_lock(&c->mu);
    int hashed = c->ncounts > 0;
    pthread_mutex_unlock(&c->mu);
    if (hashed) {   /* a collision is caught: the foresight is checked against the files */
        h = microstep_hash(b, len);
        pthread_mutex_lock(&c->mu);
        for (size_t i = 0; i < c->ncounts && n < 0; i++)
            if (c->counts[i].hash == h && c->counts[i].len == len) n = c->counts[i].count;
        pthread_mutex_unlock(&c->mu);
        if (n >= 0) return n;
    }
    /* built here, it goes into the cache for the parses (dump_read foresees a first file alone) */
    struct cons_entry ce = {.len = len};
    struct pt_error e;
    n = 1;
    int given = 0;   /* ce handed to the cache (kept, or a twin kept meanwhile, or dropped) */
    if (construct_parse(cpath, b, len, &ce.cons, &e) == 0 && microstep_build(&ce.cons, &ce.ms, &e) == 0) {
        n = ce.ms.count;
        if (!full && (ce.bytes = malloc(len ? len : 1))) {   /* cons_cache_put takes ce, the copy with it */
            memcpy(ce.bytes, b, len);
            *entry = cons_cache_put(c, &ce);
            ce = (struct cons_entry){0};
            given = 1;
        }
    }
    microstep_free(&ce.ms);
    construct_free(&ce.cons);
    /* in the cache for good: no count needed; an entry the cache, filled
     * meanwhile, did not keep: the count is not kept either */
    if (*entry >= 0 || given) return n;
    if (!hashed) h = microstep_hash(b, len);
    pthread_mutex_lock(&c->mu);
    if (util_grow((void **)&c->counts, &c->capcounts, c->ncounts + 1, sizeof *c->counts) == 0)
        c->counts[c->ncounts++] = (struct cons_count){h, len, n};
    pthread_mutex_unlock(&c->mu);
    return n;
}

int dump_foresee_micro(const char *dir, const struct dump_opts *o) {
    char cpath[4096];
    if (!o->micro_step && !o->cons_cache) return 1;   /* else it fills the cache all the same */
    snprintf(cpath, sizeof cpath, "%s/construct.json", dir);
    if (access(cpath, F_OK) != 0) return 1;
    char *rb = NULL;   /* the bytes when not mapped */
    size_t rcap = 0, len = 0, maplen = 0;
    const char *b;
    int fd;
    struct pt_error e;
    struct cons_seen k, was;
    int known = o->cons_cache && seen_key(cpath, &k) == 0;
    if (known && seen_find(o->cons_cache, &k, &was)) return o->micro_step ? was.count : 1;
    if (parse_dump_text(cpath, CONS_MAX_BYTES, &rb, &rcap, &b, &len, &fd, &maplen, &e) != 0) {
        free(rb);
        return 1;
    }
    const char *t = b ? b : "";
    int n = 1;
    if (o->cons_cache) {
        int entry;
        n = foresee_bytes(o->cons_cache, cpath, t, len, &entry);
        if (known) seen_add(o->cons_cache, cpath, k, entry, len, n);
    } else {
        struct construct cons = {0};
        struct microstep m = {0};
        if (construct_parse(cpath, t, len, &cons, &e) == 0 && microstep_build(&cons, &m, &e) == 0) n = m.count;
        microstep_free(&m);
        construct_free(&cons);
    }
    parse_dump_text_done(b, fd, maplen);
    free(rb);
    return o->micro_step ? n : 1;
}
