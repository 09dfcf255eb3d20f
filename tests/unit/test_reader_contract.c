/* The reader table's contract (src/io/formats.h), checked on every row of
 * formats_rows[] in turn: the rows are iterated, never listed here, so a new
 * reader is held to it the day its row is added.  For each row:
 *   - its sample: the smallest input the row wins detection on and loads
 *     (the row forced), among the checkout's fixtures (tests/data,
 *     tests/ascend) and a monitor tree with anomaly reports that
 *     tests/pt_anomaly.h writes; a row with none fails, naming itself;
 *   - no load writes beside its input (the listing of its folder, sizes
 *     and mtimes, before and after);
 *   - with the cancel flag set, the load stops with "cancelled";
 *   - hostile copies in the row's own file names and shape, every file cut
 *     in the middle of a line, or its bytes replaced by noise: the load
 *     ends (no crash: the sanitizer build runs this too) with an error or
 *     a warning naming the file, and writes nothing beside the copy. */
#include "pt_test.h"
#include "pt_anomaly.h"
#include "pt_curves_log.h"

#include <ftw.h>
#include <stdatomic.h>
#include <stdint.h>

#include "src/io/load.h"
#include "src/io/formats.h"


/* ---- the samples ---- */

struct cand {
    size_t row;
    long long bytes;
    char *path;
};

static struct cand *cands;
static size_t ncands, cands_cap;
static long long walk_bytes;

static int add_bytes(const char *p, const struct stat *st, int flag, struct FTW *f) {
    (void)p, (void)f;
    if (flag == FTW_F) walk_bytes += st->st_size;
    return 0;
}

static long long tree_bytes(const char *path) {
    walk_bytes = 0;
    if (nftw(path, add_bytes, 16, FTW_PHYS) != 0) return -1;
    return walk_bytes;
}

/* Every path under a root is a candidate sample of the row that wins its
 * detection. */
static int consider(const char *p, const struct stat *st, int flag, struct FTW *f) {
    (void)st, (void)f;
    if (flag != FTW_F && flag != FTW_D) return 0;
    const struct formats_row *row = formats_detect(p);
    for (size_t i = 0; row && i < formats_nrows; i++) {
        if (formats_rows[i] != row) continue;
        if (ncands == cands_cap) {
            cands_cap = cands_cap ? cands_cap * 2 : 64;
            struct cand *n = realloc(cands, cands_cap * sizeof *n);
            if (!n) return 1;
            cands = n;
        }
        cands[ncands++] = (struct cand){.row = i, .bytes = tree_bytes(p), .path = strdup(p)};
    }
    return 0;
}

static int by_size(const void *a, const void *b) {
    const struct cand *x = a, *y = b;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* The candidates from the checkout's fixtures and a monitor tree with
 * anomaly reports (a v2 tree: the v1 reader is the monitor row's), the
 * smallest first.  0, or -1 (skip) without the checkout. */
static int find_candidates(void) {
    const char *data = pt_checkout_file("data"), *ascend = pt_checkout_file("ascend");
    const char *anom = pt_tmpdir("contract_anomaly");
    if (!data || !anom) return -1;
    char tree[1200];
    snprintf(tree, sizeof tree, "%s/v2", anom);
    if (pt_anom_v2(tree) != 0) return -1;
    snprintf(tree, sizeof tree, "%s/train.log", anom);   /* the log row's: a generated Megatron log */
    if (pt_log_megatron(tree, 35) != 0) return -1;
    const char *roots[] = {data, ascend, anom};
    for (size_t r = 0; r < sizeof roots / sizeof *roots; r++)
        if (roots[r] && nftw(roots[r], consider, 16, FTW_PHYS) != 0) return -1;
    qsort(cands, ncands, sizeof *cands, by_size);
    return 0;
}

/* ---- what a load leaves beside its input ---- */

static char *listing;
static size_t listing_len, listing_cap;

static int list_one(const char *p, const struct stat *st, int flag, struct FTW *f) {
    (void)flag, (void)f;
    char line[4400];
    int l = snprintf(line, sizeof line, "%s %lld %lld.%09ld\n", p, (long long)st->st_size,
                     (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
    if (l < 0) return 0;
    if (listing_len + (size_t)l + 1 > listing_cap) {
        size_t cap = (listing_cap + (size_t)l + 1) * 2;
        char *n = realloc(listing, cap);
        if (!n) return 1;
        listing = n;
        listing_cap = cap;
    }
    memcpy(listing + listing_len, line, (size_t)l + 1);
    listing_len += (size_t)l;
    return 0;
}

/* Every path under the folder holding path (path itself when a folder),
 * with its size and mtime: the caller frees it. */
static char *snapshot(const char *path) {
    char dir[4096];
    struct stat st;
    snprintf(dir, sizeof dir, "%s", path);
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
    }
    listing = calloc(1, 1);
    listing_len = 0;
    listing_cap = 1;
    nftw(dir, list_one, 16, FTW_PHYS);
    char *s = listing;
    listing = NULL;
    return s;
}

/* ---- loads ---- */

struct outcome {
    int rc;
    struct pt_error err;
    char said[4096];   /* the error, else the warnings, skipped and cut-short paths */
};

static void load_as(const struct formats_row *row, const char *path, int cancelled, struct outcome *out) {
    struct load_opts lo;
    load_opts_init(&lo);
    lo.format = row;
    atomic_int cancel;
    atomic_init(&cancel, cancelled);
    lo.cancel = &cancel;
    struct dataset *ds = NULL;
    out->err.msg[0] = '\0';
    out->rc = load_dataset(path, &lo, &ds, &out->err);
    size_t n = (size_t)snprintf(out->said, sizeof out->said, "%s", out->rc ? out->err.msg : "");
    for (int k = 0; ds && k < 3; k++) {
        char **v = k == 0 ? ds->warnings : k == 1 ? ds->skipped : ds->partial;
        size_t nv = k == 0 ? ds->nwarnings : k == 1 ? ds->nskipped : ds->npartial;
        for (size_t i = 0; i < nv && n < sizeof out->said; i++)
            n += (size_t)snprintf(out->said + n, sizeof out->said - n, "%s%s", n ? "\n" : "", v[i]);
    }
    dataset_free(ds);
}

/* Each regular file under root cut in the middle of a line (noise 0), or
 * its first 4 KiB (at most) replaced by bytes of no format (noise 1). */
static int hostile_noise;
static int spoil(const char *p, const struct stat *st, int flag, struct FTW *f) {
    (void)f;
    if (flag != FTW_F) return 0;
    char *buf = pt_slurp(p);
    if (!buf) return 1;
    size_t len = (size_t)st->st_size, keep;
    if (hostile_noise) {
        keep = len < 4096 ? len : 4096;
        uint32_t x = 2463534242u ^ (uint32_t)len;
        for (size_t i = 0; i < keep; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            buf[i] = (char)(x >> 24);
        }
        if (keep == 0) buf[keep++] = '\x01';
    } else {
        keep = len / 2;
        while (keep > 0 && keep < len && (buf[keep - 1] == '\n' || buf[keep] == '\n')) keep--;
    }
    FILE *o = fopen(p, "wb");
    if (!o) { free(buf); return 1; }
    size_t w = fwrite(buf, 1, keep, o);
    free(buf);
    return fclose(o) != 0 || w != keep;
}

static void hostile(const struct formats_row *row, const char *sample, int noise) {
    const char *how = noise ? "noise" : "cut";
    char dir[1200], copy[1400], cmd[6000];
    snprintf(dir, sizeof dir, "%s/%s.%s", pt_tmpdir("contract_hostile"), row->name, how);
    const char *base = strrchr(sample, '/');
    snprintf(copy, sizeof copy, "%s/%s", dir, base ? base + 1 : sample);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -R '%s' '%s'", dir, sample, copy);
    CHECK_INT(system(cmd), 0);
    hostile_noise = noise;
    CHECK_INT(nftw(copy, spoil, 16, FTW_PHYS), 0);
    char *before = snapshot(copy);
    struct outcome o;
    load_as(row, copy, 0, &o);
    /* the message names a file of the copy: its path starts with dir */
    int named = strstr(o.said, dir) != NULL;
    CHECK(named);
    if (!named)
        fprintf(stderr, "row %s, %s copy %s: load returned %d and said nothing naming it:\n%s\n", row->name, how,
                copy, o.rc, o.said[0] ? o.said : "(nothing)");
    char *after = snapshot(copy);
    CHECK_STR(after, before);
    free(before);
    free(after);
}

static void test_every_row(void) {
    if (find_candidates() != 0) SKIP("no checkout (PT_SRC) or no scratch folder");
    CHECK(formats_nrows > 0);
    for (size_t i = 0; i < formats_nrows; i++) {
        const struct formats_row *row = formats_rows[i];
        /* the sample: the smallest candidate that loads (detection may
         * claim a file the reader then refuses: a dump's stack.json) */
        const char *sample = NULL;
        struct outcome o;
        for (size_t k = 0; k < ncands && !sample; k++) {
            if (cands[k].row != i) continue;
            char *before = snapshot(cands[k].path);
            load_as(row, cands[k].path, 0, &o);
            char *after = snapshot(cands[k].path);
            CHECK_STR(after, before);   /* nothing written beside it */
            free(before);
            free(after);
            if (o.rc == 0) sample = cands[k].path;
        }
        CHECK(sample != NULL);
        if (!sample) {
            fprintf(stderr, "row %s: no input among the fixtures detects as it and loads: add one to tests/data\n",
                    row->name);
            continue;
        }
        fprintf(stderr, "row %s: sample %s\n", row->name, sample);

        /* the cancel flag set: it stops with "cancelled", writing nothing */
        char *before = snapshot(sample);
        load_as(row, sample, 1, &o);
        int stopped = o.rc == -1 && strstr(o.err.msg, "cancelled") != NULL;
        CHECK(stopped);
        if (!stopped)
            fprintf(stderr, "row %s: cancel flag set, load returned %d: %s\n", row->name, o.rc,
                    o.rc ? o.err.msg : "(the data)");
        char *after = snapshot(sample);
        CHECK_STR(after, before);
        free(after);
        free(before);

        hostile(row, sample, 0);
        hostile(row, sample, 1);
    }
    for (size_t k = 0; k < ncands; k++) free(cands[k].path);
    free(cands);
}

int main(void) {
    RUN(test_every_row);
    PT_DONE();
}
