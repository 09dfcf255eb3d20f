/* pgconfig: the process groups of a profiled run (see pgconfig.h). */
#include "src/io/trace/pgconfig.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/trace/tpatterns.h"
#include "model/util/util.h"
#include "src/io/common/json.h"

#define PGCONFIG_LISTING_MAX ((size_t)64 << 20)
#define PGCONFIG_MAX_GROUPS 1000000

static int same(const struct trace_group *g, int dim, const int32_t *r, int n) {
    return g->dim == dim && g->nranks == n && !memcmp(g->ranks, r, (size_t)n * sizeof *r);
}

int pgconfig_add(struct pgconfig_set *s, int dim, const int32_t *ranks, int n) {
    if (n < 1 || s->n >= PGCONFIG_MAX_GROUPS) return 0;
    for (int i = s->n - 1; i >= 0 && i >= s->n - 4096; i--)   /* the same group comes from each of its ranks, nearby */
        if (same(&s->v[i], dim, ranks, n)) return 0;
    for (int i = 0; i < s->n - 4096; i++)
        if (same(&s->v[i], dim, ranks, n)) return 0;
    if (util_grow((void **)&s->v, &s->cap, (size_t)s->n + 1, sizeof *s->v)) return -1;
    int32_t *c = malloc((size_t)n * sizeof *c);
    if (!c) return -1;
    memcpy(c, ranks, (size_t)n * sizeof *c);
    s->v[s->n++] = (struct trace_group){.dim = (uint8_t)dim, .nranks = n, .ranks = c};
    return 0;
}

void pgconfig_set_free(struct pgconfig_set *s) {
    for (int i = 0; i < s->n; i++) free(s->v[i].ranks);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int cmp_group(const void *a, const void *b) {
    const struct trace_group *x = a, *y = b;
    if (x->dim != y->dim) return (x->dim > y->dim) - (x->dim < y->dim);
    return (x->ranks[0] > y->ranks[0]) - (x->ranks[0] < y->ranks[0]);
}

/* The section a heading line opens: a dimension, 0 another section, -1 not a heading. */
static int heading(const char *s, size_t n) {
    char b[128];
    snprintf(b, sizeof b, "%.*s", (int)(n < 127 ? n : 127), s);
    if (strstr(b, "Group ") == b || strstr(b, "GROUPS") == NULL) return strstr(b, "FULL MODEL") ? 0 : -1;
    if (strstr(b, "(TP)") || strstr(b, "UNIQUE TP")) return TPAT_DIM_TP;
    if (strstr(b, "(PP)") || strstr(b, "UNIQUE PP")) return TPAT_DIM_PP;
    if (strstr(b, "(DP)") || strstr(b, "UNIQUE DP")) return TPAT_DIM_DP;
    if (strstr(b, "(EP)") || strstr(b, "UNIQUE EP") || strstr(b, "EXPERT GROUPS")) return TPAT_DIM_EP;
    return 0;
}

int pgconfig_listing_parse(const char *text, size_t n, const char *path, struct pgconfig_set *s, struct pt_error *err) {
    int dim = 0, added = 0;
    size_t lineno = 0;
    int32_t *r = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && text[j] != '\n') j++;
        const char *p = text + i, *e = text + j;
        i = j + 1;
        lineno++;
        while (p < e && (*p == ' ' || *p == '\t')) p++;
        int h = heading(p, (size_t)(e - p));
        if (h >= 0) { dim = h; continue; }
        /* "[TP |PP |DP |EP |Model ]Group <N>: [r, ...]" */
        const char *g = p;
        if (e - g > 3 && (!memcmp(g, "TP ", 3) || !memcmp(g, "PP ", 3) || !memcmp(g, "DP ", 3) || !memcmp(g, "EP ", 3))) g += 3;
        if (!dim || e - g < 6 || memcmp(g, "Group ", 6)) continue;
        const char *lb = memchr(g, '[', (size_t)(e - g)), *colon = memchr(g, ':', (size_t)(e - g));
        if (!lb || !colon || colon > lb) continue;
        int nr = 0;
        const char *q = lb + 1;
        for (;;) {
            while (q < e && *q == ' ') q++;
            if (q < e && *q == ']') break;
            long v = 0;
            int d = 0;
            while (q < e && *q >= '0' && *q <= '9' && d < 8) v = v * 10 + (*q++ - '0'), d++;
            if (!d) {
                free(r);
                return pt_errorf(err, "%s:%zu: a group line whose ranks are not [r, r, ...]", path, lineno), -2;
            }
            if (util_grow((void **)&r, &cap, (size_t)nr + 1, sizeof *r)) { free(r); return -1; }
            r[nr++] = (int32_t)v;
            while (q < e && *q == ' ') q++;
            if (q < e && *q == ',') q++;
        }
        if (nr > 1) qsort(r, (size_t)nr, sizeof *r, util_cmp_i32);
        if (pgconfig_add(s, dim, r, nr)) { free(r); return -1; }
        added++;
    }
    free(r);
    return added;
}

/* The first unique_parallel_groups*.txt (by name) in dir, or NULL. */
static char *find_listing(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char *best = NULL;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "unique_parallel_groups", 22) || !util_ends_with(de->d_name, ".txt")) continue;
        if (!best || strcmp(de->d_name, best) < 0) {
            free(best);
            best = strdup(de->d_name);
        }
    }
    closedir(d);
    if (!best) return NULL;
    size_t n = strlen(dir) + strlen(best) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, best);
    free(best);
    return p;
}

/* The listing near path: in path (a folder), else its folder; else the parent. */
static char *listing_near(const char *path) {
    struct stat st;
    char *dir = strdup(path);
    if (!dir) return NULL;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char *sl = strrchr(dir, '/');
        if (sl) *sl = '\0';
        else strcpy(dir, ".");
    }
    char *found = find_listing(dir);
    if (!found) {
        size_t n = strlen(dir) + 4;
        char *up = malloc(n);
        if (up) {
            snprintf(up, n, "%s/..", dir);
            found = find_listing(up);
            free(up);
        }
    }
    free(dir);
    return found;
}

static int dim_of_ranks(const struct pgconfig_set *s, const int32_t *r, int n) {
    int dim = TPAT_DIM_NONE;
    for (int i = 0; i < s->n; i++)
        if (s->v[i].nranks == n && !memcmp(s->v[i].ranks, r, (size_t)n * sizeof *r)) {
            if (dim != TPAT_DIM_NONE && dim != s->v[i].dim) return TPAT_DIM_NONE;   /* two dimensions: neither */
            dim = s->v[i].dim;
        }
    return dim;
}

int pgconfig_gather(struct trace_parse_file *const *files, size_t nf, const char *path, struct trace_run *run,
                    struct dataset *ds, struct pt_error *err) {
    struct pgconfig_set s = {0};
    int from_config = 0, from_listing = 0;
    char *listing = listing_near(path);
    for (size_t i = 0; i < nf; i++) {
        const struct trace_parse_file *f = files[i];
        if (f->pg_warn && dataset_warn(ds, "%s", f->pg_warn)) goto oom;
        for (size_t k = 0; k < f->npgs; k++) {
            const struct trace_parse_pg *g = &f->pgs[k];
            if (!g->config || !g->nranks || g->dim == TPAT_DIM_NONE) continue;
            if (pgconfig_add(&s, g->dim, g->ranks, g->nranks)) goto oom;
            from_config = 1;
        }
    }
    if (listing) {
        char *text = NULL;
        size_t len = 0;
        struct pt_error e;
        int n = -2;
        struct pgconfig_set ls = {0};   /* all of the listing or none of it */
        if (json_read_file(listing, PGCONFIG_LISTING_MAX, &text, &len, &e) == 0) n = pgconfig_listing_parse(text, len, listing, &ls, &e);
        free(text);
        for (int i = 0; n > 0 && i < ls.n; i++)
            if (pgconfig_add(&s, ls.v[i].dim, ls.v[i].ranks, ls.v[i].nranks)) n = -1;
        pgconfig_set_free(&ls);
        if (n == -1) goto oom;
        if (n < 0 && dataset_warn(ds, "%s; the group listing is left out", e.msg)) goto oom;
        from_listing = n > 0;
    }
    /* a group without a description: the dimension of the same ranks elsewhere */
    for (size_t i = 0; i < nf; i++)
        for (size_t k = 0; k < files[i]->npgs; k++) {
            struct trace_parse_pg *g = &files[i]->pgs[k];
            if (g->dim == TPAT_DIM_NONE && g->nranks) g->dim = (uint8_t)dim_of_ranks(&s, g->ranks, g->nranks);
        }
    if (s.n > 1) qsort(s.v, (size_t)s.n, sizeof *s.v, cmp_group);
    run->groups = s.v;
    run->ngroups = s.n;
    if (s.n) {
        const char *cfg = "distributedInfo.pg_config";
        size_t n = strlen(cfg) + (listing ? strlen(listing) : 0) + 8;
        if (!(run->groups_from = malloc(n))) { free(listing); return pt_errorf(err, "out of memory"); }
        snprintf(run->groups_from, n, "%s%s%s", from_config ? cfg : "", from_config && from_listing ? " + " : "",
                 from_listing ? listing : "");
    }
    free(listing);
    return 0;
oom:
    free(listing);
    pgconfig_set_free(&s);
    return pt_errorf(err, "out of memory");
}
