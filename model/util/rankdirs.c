/* rankdirs: see rankdirs.h. */
#include "model/util/rankdirs.h"

#include "model/util/fs.h"
#include "model/util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int say(util_rank_note note, void *ctx, const char *path, const char *why, int skipped) {
    return note ? note(ctx, path, why, skipped) : 0;
}

static int add(struct util_rankdirs *d, int32_t step, int32_t rank, char *dir) {
    if (UTIL_PUSH(d->v, d->n, d->cap) != 0) return -1;
    d->v[d->n++] = (struct util_rankdir){step, rank, dir};
    return 0;
}

struct found { long num; char *dir; int proc; };

static int cmp_found(const void *a, const void *b) {
    const struct found *x = a, *y = b;
    if (x->proc != y->proc) return x->proc - y->proc;   /* real ranks first, then procs */
    if (x->num != y->num) return x->num < y->num ? -1 : 1;
    return strcmp(x->dir, y->dir);   /* rank1 and rank01: in name order */
}

/* A rank or proc folder p: 0 usable, else why it is not (into why). */
static int unusable(const char *p, char *why, size_t n) {
    char *dj = fs_join(p, "dump.json");
    struct stat st;
    int rc = 0;
    if (!dj) { snprintf(why, n, "out of memory"); return -1; }
    if (stat(dj, &st) != 0 && errno != ENOENT) {   /* EACCES: the folder is there, not readable */
        snprintf(why, n, "cannot read: %s", strerror(errno));
        rc = 1;
    } else if (!fs_is_file(dj)) {
        snprintf(why, n, "no dump.json");
        rc = 1;
    }
    free(dj);
    return rc;
}

int util_scan_step(const char *sdir, int32_t step, struct util_rankdirs *out, util_rank_note note, void *ctx) {
    size_t n;
    char **names = fs_list_dir(sdir, 1, &n);
    char why[300];
    if (!names) {
        snprintf(why, sizeof why, "cannot list: %s", strerror(errno));
        return say(note, ctx, sdir, why, 0);
    }
    struct found *found = calloc(n ? n : 1, sizeof *found);
    size_t nf = 0;
    int rc = 0;
    long maxrank = -1;
    if (!found) { fs_free_list(names, n); return -1; }
    for (size_t i = 0; i < n && rc == 0; i++) {
        int proc = strncmp(names[i], "proc", 4) == 0;
        if (!proc && strncmp(names[i], "rank", 4) != 0) continue;
        char *p = fs_join(sdir, names[i]);
        if (!p) { rc = -1; break; }
        if (!fs_is_dir(p)) { free(p); continue; }
        long num = util_num_after(names[i], proc ? "proc" : "rank");
        int bad = num < 0 ? 1 : unusable(p, why, sizeof why);
        if (num < 0) snprintf(why, sizeof why, "no rank number in the folder name");
        if (bad) {
            if (bad < 0 || say(note, ctx, p, why, 1) != 0) rc = -1;
            free(p);
            continue;
        }
        found[nf++] = (struct found){num, p, proc};
        if (!proc && num > maxrank) maxrank = num;
    }
    qsort(found, nf, sizeof *found, cmp_found);
    for (size_t i = 0; i < nf; i++) {
        int32_t rank = found[i].proc ? (int32_t)(++maxrank) : (int32_t)found[i].num;
        if (rc == 0 && add(out, step, rank, found[i].dir) == 0) found[i].dir = NULL;
        else rc = -1;
        free(found[i].dir);
    }
    free(found);
    fs_free_list(names, n);
    return rc;
}

struct stepdir { long num; char *path; };

static int cmp_step(const void *a, const void *b) {
    const struct stepdir *x = a, *y = b;
    if (x->num != y->num) return x->num < y->num ? -1 : 1;
    return strcmp(x->path, y->path);
}

int util_scan_root(const char *root, struct util_rankdirs *out, util_rank_note note, void *ctx) {
    size_t n;
    char **names = fs_list_dir(root, 1, &n);
    if (!names) return 0;
    struct stepdir *st = calloc(n ? n : 1, sizeof *st);
    size_t ns = 0;
    int rc = st ? 0 : -1;
    for (size_t i = 0; st && i < n; i++) {
        long num = util_num_after(names[i], "step");
        if (num < 0) continue;
        char *p = fs_join(root, names[i]);
        if (!p || !fs_is_dir(p)) { free(p); continue; }
        st[ns++] = (struct stepdir){num, p};
    }
    if (st) qsort(st, ns, sizeof *st, cmp_step);
    for (size_t i = 0; i < ns; i++) {
        if (rc == 0 && util_scan_step(st[i].path, (int32_t)st[i].num, out, note, ctx) != 0) rc = -1;
        free(st[i].path);
    }
    free(st);
    fs_free_list(names, n);
    return rc ? -1 : (int)ns;
}

void util_rankdirs_free(struct util_rankdirs *d) {
    for (size_t i = 0; i < d->n; i++) free(d->v[i].dir);
    free(d->v);
    memset(d, 0, sizeof *d);
}

long util_rank_in_name(const char *s, size_t n, long limit) {
    for (size_t i = 0; i + 4 < n; i++) {
        if (strncasecmp(s + i, "rank", 4)) continue;
        size_t j = i + 4;
        if (s[j] == '-' || s[j] == '_') j++;
        if (j >= n || !isdigit((unsigned char)s[j])) continue;
        long long v = 0;   /* stops growing once past limit: a longer number is no rank either */
        for (; j < n && isdigit((unsigned char)s[j]) && v < limit; j++) v = v * 10 + (s[j] - '0');
        if (v < limit && (j >= n || !isdigit((unsigned char)s[j]))) return (long)v;
    }
    return -1;
}

long util_profiler_info_rank(const char *dir) {
    size_t n;
    char **names = fs_list_dir(dir, 0, &n);
    long r = -1;
    for (size_t i = 0; names && i < n && r < 0; i++) {
        const char *b = names[i];
        size_t l = strlen(b);
        if (l <= 19 || strncmp(b, "profiler_info_", 14) || strcmp(b + l - 5, ".json")) continue;
        char num[32];
        if (l - 19 >= sizeof num) continue;
        memcpy(num, b + 14, l - 19);
        num[l - 19] = '\0';
        r = util_num_after(num, "");
    }
    if (names) fs_free_list(names, n);
    return r;
}
