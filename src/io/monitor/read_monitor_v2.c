/* read_monitor_v2: msProbe monitor_v2 CSV trees (probetop-formats(5),
 * MONITOR V2 CSV TREES): `rank_<R>/<slug>[_step<a>-<b>].csv`, one metric
 * per slug and scope (`module/forward`), the step axis of the v1 monitor
 * reader (monitor_steps), its label rules.  Files are appended to while
 * training runs: a last row without its line end is not read yet. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/cube/names.h"
#include "model/util/fs.h"
#include "model/util/util.h"
#include "src/io/common/decfloat.h"
#include "src/io/load.h"
#include "src/io/common/reader.h"
#include "src/io/formats.h"
#include "src/io/common/json.h"
#include "src/io/monitor/mon_cache.h"
#include "src/io/monitor/mon_csv.h"
#include "src/io/monitor/read_anomaly.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/monitor/read_monitor_v2.h"
#include "src/io/trenddb/write_trenddb.h"

#define V2_MAX_FIELDS 64
#define V2_MAX_BYTES ((size_t)4 << 30)

static const char *const v2_slugs[] = {"module", "weight_grad", "optimizer", "param", "cc"};
#define V2_NSLUGS (sizeof v2_slugs / sizeof *v2_slugs)

/* `rank_<digits>`: 1 with the rank. */
static int match_rankdir(const char *name, long *rank) {
    if (strncmp(name, "rank_", 5) || !isdigit((unsigned char)name[5])) return 0;
    char *e;
    errno = 0;
    long r = strtol(name + 5, &e, 10);
    if (*e || errno || r > INT32_MAX) return 0;
    *rank = r;
    return 1;
}

/* `<slug>.csv` or `<slug>_step<a>-<b>.csv`: the slug's index, or -1. */
static int match_csv(const char *name) {
    for (size_t s = 0; s < V2_NSLUGS; s++) {
        size_t l = strlen(v2_slugs[s]);
        if (strncmp(name, v2_slugs[s], l)) continue;
        const char *p = name + l;
        if (!strcmp(p, ".csv")) return (int)s;
        if (strncmp(p, "_step", 5)) continue;   /* "param" must not take "param_x" */
        p += 5;
        if (!isdigit((unsigned char)*p)) continue;
        while (isdigit((unsigned char)*p)) p++;
        if (*p++ != '-' || !isdigit((unsigned char)*p)) continue;
        while (isdigit((unsigned char)*p)) p++;
        if (!strcmp(p, ".csv")) return (int)s;
    }
    return -1;
}

static int detect_monitor_v2(const char *path, const struct stat *st) {
    if (!S_ISDIR(st->st_mode)) return 0;
    size_t n;
    char **names = fs_list_dir(path, 0, &n);
    int found = 0;
    for (size_t i = 0; names && i < n && !found; i++) {
        long r;
        if (!match_rankdir(names[i], &r)) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        size_t nf;
        char **files = fs_list_dir(p, 0, &nf);
        for (size_t k = 0; files && k < nf && !found; k++) found = match_csv(files[k]) >= 0;
        if (files) fs_free_list(files, nf);
    }
    if (names) fs_free_list(names, n);
    return found ? 100 : 0;
}

/* Splits line (n bytes, a NUL at n, no line end; the writer never
 * quotes) at commas in place, up to its first NUL (mon_csv.h), the
 * lengths of the first max fields in len.  Returns the number of fields. */
static int split(char *line, size_t n, char **f, size_t *len, int max) {
    return mon_csv_split(line, n, f, len, max, mon_csv_best());
}

/* Python's float text (n bytes): digits, "nan", "inf", "-inf" (strtod
 * reads them all). */
static int float_field(const char *s, size_t n, double *out) {
    char *e;
    if (!*s) return 0;
    if (mon_csv_number_z(s, n, out)) return 1;   /* most cells: the fast exact path (mon_csv.h; the split NUL-terminated s) */
    const char *d = s + (*s == '-');
    if (*d >= '0' && *d <= '9') {   /* a plain decimal number all the same, read exactly (decfloat.h) */
        if (decfloat_parse(s, s + n, out) == s + n) return 1;
    }
    *out = strtod(s, &e);
    return *e == '\0';
}

/* The metric of a part's file, "slug/scope": its index in mt, added when
 * new; -1 when mt is full (with a note naming the file). */
static int metric_in(struct monitor_v2_metrics *mt, const char *name, const char *path, struct dataset *ds) {
    for (int i = 0; i < mt->n; i++)
        if (!strcmp(mt->name[i], name)) return i;
    if (mt->n == MONITOR_V2_MAX_METRICS) {
        dataset_warn(ds, "%s: more than %d slug/scope metrics: %s is not read", path, MONITOR_V2_MAX_METRICS, name);
        return -1;
    }
    snprintf(mt->name[mt->n], sizeof mt->name[mt->n], "%s", name);
    return mt->n++;
}

/* The file of part for "slug/scope" (a part holds one a scope): found or
 * added.  NULL without memory. */
static struct monitor_file *file_for(struct mon_cache_part *part, const char *metric, int32_t rank, uint32_t statmask) {
    for (size_t i = 0; i < part->nfiles; i++)
        if (!strcmp(part->metric_names[i], metric)) return &part->files[i];
    char **mn = realloc(part->metric_names, (part->nfiles + 1) * sizeof *mn);
    if (!mn) return NULL;
    part->metric_names = mn;
    if (!(mn[part->nfiles] = strdup(metric))) return NULL;
    struct monitor_file *f = mon_cache_add_file(part, (int)part->nfiles, rank, statmask);
    if (!f) free(mn[part->nfiles]);
    return f;
}

/* What a file is read as: its slug and rank, --mapping, --parallel's
 * layout (data2db). */
struct v2_ctx {
    int slug;
    int32_t rank;
    const struct mapping *map;
    const struct layout *layout;
    size_t rename_bad;   /* --parallel failures (the first is a note) */
    size_t long_names;   /* rows of the file whose module_name is too long, */
    size_t long_line;    /* the first's line */
    struct mon_csv_names *names;   /* the parse's (v2_parse: its thread's, mon_cache.h) */
    struct mon_csv_counts *counts; /* the file's call order by ids (read_row) */
    const char *last_scope;        /* the previous row's scope (in the parse's buffer; NULL: none), */
    size_t last_sl, last_file;     /* its length and its file in part */
};

/* A module_name of this many bytes or more, as written or once --mapping
 * and --parallel have renamed it (monitor_rename cuts at the buffer), is
 * refused, never cut: cut, two names differing past the cut would become
 * one target (probetop-formats(5)). */
#define V2_NAME_MAX 8191

struct v2_cols {
    int vpp, step, name, scope, micro, stat[MONITOR_NSTATS];
    uint32_t statmask;
    int ncols;                      /* the header's fields */
    int ns, scol[MONITOR_NSTATS];   /* the statistics of statmask in order (vals'): their columns, */
    uint32_t sbit[MONITOR_NSTATS];  /* and bits */
};

/* The header line: 0, or -1 with a note naming what is missing. */
static int read_header(char *line, size_t linelen, struct v2_cols *c, const char *path, struct dataset *ds) {
    char *f[V2_MAX_FIELDS];
    size_t fl[V2_MAX_FIELDS];
    int n = split(line, linelen, f, fl, V2_MAX_FIELDS);
    c->ncols = n;
    c->vpp = c->step = c->name = c->scope = c->micro = -1;
    c->statmask = 0;
    for (int s = 0; s < MONITOR_NSTATS; s++) c->stat[s] = -1;
    for (int i = 0; i < n && i < V2_MAX_FIELDS; i++) {
        if (!strcmp(f[i], "vpp_stage")) c->vpp = i;
        else if (!strcmp(f[i], "step")) c->step = i;
        else if (!strcmp(f[i], "module_name")) c->name = i;
        else if (!strcmp(f[i], "scope")) c->scope = i;
        else if (!strcmp(f[i], "micro_step")) c->micro = i;
        else
            for (int s = 0; s < MONITOR_NSTATS; s++)
                if (!strcmp(f[i], monitor_stat_names[s])) { c->stat[s] = i; c->statmask |= 1u << s; }
    }
    c->ns = 0;
    for (int s = 0; s < MONITOR_NSTATS; s++)
        if (c->statmask & (1u << s)) c->scol[c->ns] = c->stat[s], c->sbit[c->ns++] = 1u << s;
    const char *miss = c->vpp < 0 ? "vpp_stage" : c->step < 0 ? "step" : c->name < 0 ? "module_name"
                     : c->scope < 0 ? "scope" : NULL;
    if (miss) {
        dataset_warn(ds, "%s: line 1: header lacks the %s column (expected vpp_stage,step,module_name,scope,...)",
                     path, miss);
        return -1;
    }
    return 0;
}

/* A file without a micro_step column writes one set of rows per
 * micro-batch in call order: the k-th row of a name, scope, vpp and step
 * is micro step k.  seen counts them (per file).  -1 out of memory. */
static int call_order_micro(struct util_smap *seen, const char *scope, size_t sl, const char *nm, size_t nl,
                            int32_t vpp, int32_t step, int32_t *micro) {
    /* "scope\x1fvpp\x1fstep\x1fname", whole: the scope is under 128 bytes
     * and the name under V2_NAME_MAX (v2_row), so two rows never share a
     * key by being cut */
    char key[V2_NAME_MAX + 192];
    size_t k = sl;
    memcpy(key, scope, k);
    key[k++] = '\x1f';
    k = util_put_int(key, k, vpp);
    key[k++] = '\x1f';
    k = util_put_int(key, k, step);
    key[k++] = '\x1f';
    memcpy(key + k, nm, nl);
    key[k + nl] = '\0';
    int32_t *v = util_smap_slot(seen, key, 1);
    if (!v) return -1;
    *micro = ++*v;
    return 0;
}

/* A data row's cells, read by the plain path (read_row) or the fast one
 * (fast_row): name and scope need not be NUL-terminated. */
struct v2_cells {
    int32_t vpp, step, micro;   /* micro: the column's, when the header has one */
    const char *name, *scope;
    size_t nl, sl;
};

/* The row of cells into part (line: its number, for notes): *r and *v
 * (its c->ns values, for the caller to fill) and the file's valmask, or 0 a bad row, 2 a name
 * too long (counted in cx), -1 out of memory. */
static int v2_row(const struct v2_cells *k, const struct v2_cols *c, const char *path, size_t lineno,
                  struct v2_ctx *cx, struct dataset *ds, struct mon_cache_part *part, struct util_smap *seen,
                  struct monitor_row **r, double **v, uint32_t *valmask) {
    if (!k->nl || !k->sl) return 0;
    int32_t vpp = k->vpp, step = k->step, micro = 0;
    /* v2 counts a micro_step column from 1 (weight_grad: the micro-batch,
     * or the number of them for a step's accumulated gradient); micro steps
     * here count from 0, as v1's and the call order's do */
    if (c->micro >= 0 && k->micro < 1) return 0;
    if (c->micro >= 0) micro = k->micro - 1;
    char metric[128];   /* "slug/scope" */
    /* most rows have the scope of the row before: its file, without
     * making and looking up "slug/scope" again */
    int same = cx->last_scope && cx->last_sl == k->sl && !memcmp(cx->last_scope, k->scope, k->sl);
    if (!same) {
        size_t sl = strlen(v2_slugs[cx->slug]);
        if (sl + 1 + k->sl >= sizeof metric) return 0;
        memcpy(metric, v2_slugs[cx->slug], sl);
        metric[sl] = '/';
        memcpy(metric + sl + 1, k->scope, k->sl);
        metric[sl + 1 + k->sl] = '\0';
    }
    char name[V2_NAME_MAX + 1];
    size_t nl = k->nl;
    if (nl >= V2_NAME_MAX) {   /* cut, it would become another name: said by v2_parse */
        if (!cx->long_names++) cx->long_line = lineno;
        return 2;
    }
    /* without --mapping and --parallel the name as written is the one
     * interned: it is interned where it lies, and the call order is
     * counted by the ids of name and scope (cx->counts) instead of by
     * their text */
    int renames = cx->layout || (cx->map && cx->map->n);
    if (c->micro < 0 && renames && call_order_micro(seen, k->scope, k->sl, k->name, nl, vpp, step, &micro) != 0)
        return -1;
    const char *nm = k->name;
    if (renames) {
        memcpy(name, k->name, nl);
        name[nl] = '\0';
        struct pt_error le;
        if (monitor_rename(cx->map, cx->layout, cx->rank, vpp, name, sizeof name, &nl, &le) != 0 && !cx->rename_bad++)
            dataset_warn(ds, "%s: line %zu: --parallel: %s (kept as written)", path, lineno, le.msg);
        if (nl >= V2_NAME_MAX) {   /* the renamed name reached the end of the buffer: maybe cut */
            if (!cx->long_names++) cx->long_line = lineno;
            return 2;
        }
        nm = name;
    }
    struct monitor_file *mf = same ? &part->files[cx->last_file] : file_for(part, metric, cx->rank, c->statmask);
    if (!same && mf) cx->last_scope = k->scope, cx->last_sl = k->sl, cx->last_file = (size_t)(mf - part->files);
    uint32_t id = mon_csv_intern(cx->names, cx->names->pool, nm, nl);
    if (!mf || id == NAMES_NONE) return -1;
    if (c->micro < 0 && !renames) {
        int32_t *kc = mon_csv_count(cx->counts, (uint64_t)(mf - part->files) << 32 | id,
                                    (uint64_t)(uint32_t)vpp << 32 | (uint32_t)step);
        if (!kc) return -1;
        micro = ++*kc;
    }
    struct monitor_row *row = mon_cache_add_row(mf, v);
    if (!row) return -1;
    *row = (struct monitor_row){.name = id, .vpp = vpp, .step = step, .micro = micro};
    *r = row;
    *valmask = mf->valmask;
    return 1;
}

/* One data row into part by the plain path: split at its commas.  As
 * v2_row. */
static int read_row(char *line, size_t linelen, const struct v2_cols *c, const char *path, size_t lineno,
                    struct v2_ctx *cx, struct dataset *ds, struct mon_cache_part *part, struct util_smap *seen) {
    char *f[V2_MAX_FIELDS];
    size_t fl[V2_MAX_FIELDS];
    int n = split(line, linelen, f, fl, V2_MAX_FIELDS);
    int need = c->vpp > c->step ? c->vpp : c->step;
    if (c->name > need) need = c->name;
    if (c->scope > need) need = c->scope;
    if (c->micro > need) need = c->micro;
    if (n <= need || n > V2_MAX_FIELDS) return 0;
    struct v2_cells k = {.name = f[c->name], .nl = fl[c->name], .scope = f[c->scope], .sl = fl[c->scope]};
    if (!monitor_int_cell_n(f[c->vpp], fl[c->vpp], &k.vpp) || !monitor_int_cell_n(f[c->step], fl[c->step], &k.step) ||
        (c->micro >= 0 && !monitor_int_cell_n(f[c->micro], fl[c->micro], &k.micro)))
        return 0;
    struct monitor_row *r;
    double *v;
    uint32_t vm;
    int rc = v2_row(&k, c, path, lineno, cx, ds, part, seen, &r, &v, &vm);
    if (rc != 1) return rc;
    const double *v0 = v;
    for (int s = 0; s < c->ns; s++, v++) {
        *v = 0;
        if (c->scol[s] < n && float_field(f[c->scol[s]], fl[c->scol[s]], v)) r->present |= c->sbit[s];
    }
    monitor_row_mark_notensor(r, vm, v0, 1);   /* v2 has no shape or dtype column */
    return 1;
}

/* One data row into part by the fast path (mon_csv_fast_v2: every cell
 * plain, read where the scan stands): 3 when the row is not one for it
 * (sc->p left at its start, the plain path's), else as v2_row with sc->p
 * past its line end. */
static int fast_row(struct mon_csv *sc, const uint8_t *kind, struct mon_csv_cell *cell, const struct v2_cols *c,
                    const char *path, size_t lineno, struct v2_ctx *cx, struct dataset *ds,
                    struct mon_cache_part *part, struct util_smap *seen) {
    if (!mon_csv_fast_v2(sc, kind, c->ncols, cell)) return 3;
    struct v2_cells k = {.vpp = cell[c->vpp].i, .step = cell[c->step].i, .micro = c->micro >= 0 ? cell[c->micro].i : 0,
                         .name = cell[c->name].s, .nl = cell[c->name].n, .scope = cell[c->scope].s,
                         .sl = cell[c->scope].n};
    struct monitor_row *r;
    double *v;
    uint32_t vm;
    int rc = v2_row(&k, c, path, lineno, cx, ds, part, seen, &r, &v, &vm);
    if (rc != 1) return rc;
    for (int s = 0; s < c->ns; s++) {   /* an empty cell: 0 and absent (float_field's) */
        const struct mon_csv_cell *x = &cell[c->scol[s]];
        int empty = isnan(x->d) && !x->n;   /* cell.n is set for NAN only (mon_csv.h) */
        v[s] = empty ? 0 : x->d;
        if (!empty) r->present |= c->sbit[s];
    }
    monitor_row_mark_notensor(r, vm, v, 1);
    return 1;
}

/* One CSV's bytes (buf, taken over and freed) into part
 * (mon_cache_parse_fn).  Bad rows and files are notes; -1 only without
 * memory. */
static int v2_parse(char *buf, size_t len, const char *path, void *vctx, struct mon_csv_names *names, struct dataset *ds,
                    struct mon_cache_part *part) {
    struct v2_ctx *cx = vctx;
    char *p = buf, *end = buf + len;
    char *nl = memchr(p, '\n', len);
    struct v2_cols c;
    /* the fast path takes a file without NUL bytes (a line's first ends
     * it for split, not for mon_csv_fast) */
    int fast = !memchr(buf, '\0', len);
    if (!nl) {   /* no whole header yet: a file just created */
        int rc = reader_young(ds, path) ? dataset_pending(ds, path, "no whole header line yet (being written?)") : 0;
        return rc;
    }
    *nl = '\0';
    if (nl > p && nl[-1] == '\r') nl[-1] = '\0';
    if (read_header(p, (size_t)(nl - p), &c, path, ds) != 0) {
        return dataset_skip(ds, path) < 0 ? -1 : 0;
    }
    size_t line = 1, bad = 0, first_bad = 0;
    struct util_smap seen = {0};
    int rc = 0;
    cx->rename_bad = cx->long_names = 0;
    struct mon_csv_counts counts = {0};
    cx->names = names;
    cx->counts = &counts;
    cx->last_scope = NULL;
    uint8_t kind[V2_MAX_FIELDS];
    struct mon_csv_cell cells[V2_MAX_FIELDS];
    struct mon_csv sc;
    fast = fast && c.ncols <= V2_MAX_FIELDS;
    if (fast) {
        memset(kind, MON_CSV_TEXT, sizeof kind);
        kind[c.vpp] = kind[c.step] = MON_CSV_INT;
        if (c.micro >= 0) kind[c.micro] = MON_CSV_INT;
        for (int s = 0; s < c.ns; s++) kind[c.scol[s]] = MON_CSV_NUM;
        mon_csv_init(&sc, buf, len, mon_csv_best());
    }
    for (p = nl + 1; p < end && rc >= 0; p = nl + 1) {
        line++;
        if (fast) {   /* most rows: every cell plain, read in one pass */
            sc.p = p;
            rc = fast_row(&sc, kind, cells, &c, path, line, cx, ds, part, &seen);
            if (rc != 3) {
                nl = sc.p - 1;
                if (rc == 0 && !bad++) first_bad = line;
                continue;
            }
            rc = 0;
        }
        if (!(nl = memchr(p, '\n', (size_t)(end - p)))) {   /* being written: read at the next change */
            if (reader_young(ds, path)) {
                if (dataset_pending(ds, path, "last row without its line end (being written?)") != 0) rc = -1;
            } else if (dataset_warn(ds, "%s: line %zu: the last row has no line end (the file was cut short); it is "
                                        "left out", path, line) != 0 || dataset_partial(ds, path) != 0) {
                rc = -1;   /* the writer is gone: the row was cut (probetop(1), EXIT STATUS) */
            }
            break;
        }
        *nl = '\0';
        if (nl > p && nl[-1] == '\r') nl[-1] = '\0';
        if (!*p) continue;
        rc = read_row(p, (size_t)(nl - p), &c, path, line, cx, ds, part, &seen);
        if (rc == 0 && !bad++) first_bad = line;
    }
    if (bad)
        dataset_warn(ds, "%s: line %zu: %zu row%s without an integer vpp_stage/step, a micro_step from 1, a "
                     "module_name and a scope skipped", path, first_bad, bad, bad > 1 ? "s" : "");
    if (cx->long_names)
        dataset_warn(ds, "%s: line %zu: %zu row%s whose module_name has %d bytes or more (as written or renamed) "
                     "skipped (cut, it would be taken for another name)", path, cx->long_line, cx->long_names, cx->long_names > 1 ? "s" : "",
                     V2_NAME_MAX);
    util_smap_free(&seen);
    mon_csv_counts_free(&counts);
    cx->names = NULL;
    cx->counts = NULL;
    return rc < 0 ? -1 : 0;
}

/* part's files into md, their metrics numbered in mt.  -1 without memory. */
static int add_part(struct monitor_data *md, struct monitor_v2_metrics *mt, const struct mon_cache_part *part, struct dataset *ds) {
    int *mo = malloc((part->nfiles ? part->nfiles : 1) * sizeof *mo);
    if (!mo) return -1;
    for (size_t i = 0; i < part->nfiles; i++) mo[i] = metric_in(mt, part->metric_names[i], part->path, ds);
    int rc = monitor_add_part(md, part, mo);
    free(mo);
    return rc;
}

int monitor_v2_parse_csv(char *buf, size_t len, const char *path, int slug, int32_t rank, const struct mapping *map,
                         struct monitor_v2_metrics *mt, struct dataset *ds, struct monitor_data *md) {
    struct v2_ctx cx = {.slug = slug, .rank = rank, .map = map};
    const struct mon_cache_part *part;
    if (slug < 0 || slug >= (int)V2_NSLUGS) {
        free(buf);
        return 0;
    }
    if (monitor_use_cache(md, NULL) != 0) {
        free(buf);
        return -1;
    }
    if (mon_cache_parse_bytes(md->own, buf, len, path, v2_parse, &cx, ds, &part) != 0) return -1;
    return add_part(md, mt, part, ds);
}

static int cmp_rank(const void *a, const void *b) {
    long x = ((const struct monitor_rankdir *)a)->rank, y = ((const struct monitor_rankdir *)b)->rank;
    return (x > y) - (x < y);
}

/* Every rank_<R> folder, ranks ascending. */
static int v2_ranks(const char *path, struct dataset *ds, struct monitor_rankdir **out, size_t *nout,
                    struct pt_error *err) {
    (void)ds;
    size_t n, nr = 0;
    char **names = fs_list_dir(path, 0, &n);
    if (!names) return pt_errorf(err, "%s: cannot list: %s", path, strerror(errno));
    struct monitor_rankdir *rk = calloc(n ? n : 1, sizeof *rk);
    int rc = rk ? 0 : pt_errorf(err, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++) {
        long r;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        if (!match_rankdir(names[i], &r) || !fs_is_dir(p)) continue;
        rk[nr].rank = r;
        if (!(rk[nr++].dir = strdup(p))) rc = pt_errorf(err, "out of memory");
    }
    fs_free_list(names, n);
    if (rc == 0 && nr == 0) rc = pt_errorf(err, "%s: no monitor_v2 rank folder (rank_<R>) here", path);
    if (rc != 0) {
        for (size_t i = 0; i < nr; i++) free(rk[i].dir);
        free(rk);
        return -1;
    }
    qsort(rk, nr, sizeof *rk, cmp_rank);
    *out = rk;
    *nout = nr;
    return 0;
}

static void v2_set_ctx(void *cx, int slot, int32_t rank, const struct monitor_read *r) {
    *(struct v2_ctx *)cx = (struct v2_ctx){.slug = slot, .rank = rank, .map = r->map, .layout = r->layout};
}

static int v2_add_part(struct monitor_data *md, const struct mon_cache_part *part, const struct monitor_read *r,
                       struct dataset *ds) {
    return add_part(md, r->arg, part, ds);
}

/* A monitor_v2 tree for monitor_read_tree; with a shard, the
 * shard_k-th of shard_n blocks of ranks (as the v1 reader's shard). */
static const struct monitor_tree v2_tree = {
    .format = "monitor_v2",
    .list_ranks = v2_ranks,
    .match_csv = match_csv,
    .parse = v2_parse,
    .max_bytes = V2_MAX_BYTES,
    .ctx_size = sizeof(struct v2_ctx),
    .set_ctx = v2_set_ctx,
    .add_part = v2_add_part,
};

/* md's rows into a cube builder: one metric per slug/scope, its ops in
 * the fixed column order. */
static int fill_cube(const struct monitor_data *md, const struct monitor_v2_metrics *mt, const struct monitor_steps *st,
                     int micro_axis, struct cube_builder *b, struct monitor_summary *sum, struct dataset *ds,
                     struct pt_error *err) {
    int cmetric[MONITOR_V2_MAX_METRICS], stat_idx[MONITOR_V2_MAX_METRICS][MONITOR_NSTATS];
    for (int m = 0; m < mt->n; m++) {
        cmetric[m] = -1;
        if (!(md->metric_has_rows & (1u << m))) continue;
        uint32_t mask = 0;
        for (size_t i = 0; i < md->nfiles; i++)
            if (md->files[i].metric == m) mask |= md->files[i].statmask;
        const char *stats[MONITOR_NSTATS];
        int ns = 0;
        for (int s = 0; s < MONITOR_NSTATS; s++) {
            stat_idx[m][s] = mask & (1u << s) ? ns : -1;
            if (mask & (1u << s)) stats[ns++] = monitor_stat_names[s];
        }
        if ((cmetric[m] = cube_builder_metric(b, mt->name[m], ns, stats)) < 0) return pt_errorf(err, "out of memory");
    }
    if (micro_axis)
        for (size_t j = 0; j < st->n; j++)
            for (int32_t k = 0; k < st->count[j]; k++)
                if (cube_builder_step(b, st->offset[j] + k, st->orig[j], k) != 0) return pt_errorf(err, "out of memory");
    if (sum)   /* info: the summary cube, finished (no cell) */
        return monitor_summary_cube(sum, md, cmetric, &stat_idx[0][0], b, ds, err);
    return monitor_to_cube(md, cmetric, &stat_idx[0][0], st, micro_axis, b) != 0 ? pt_errorf(err, "out of memory") : 0;
}

/* The tree under path into md (metrics in mt), --mapping and (data2db)
 * --parallel applied to the names.  0, or -1 with err. */
static int read_all(const char *path, const struct load_opts *o, struct monitor_v2_metrics *mt, struct dataset *ds,
                    struct monitor_summary *sum, struct monitor_data *md, struct pt_error *err) {
    struct mapping map = {0};
    memset(md, 0, sizeof *md);
    if (o->mapping && mapping_read(o->mapping, &map, err) != 0) return -1;
    struct monitor_read r = {.map = &map, .layout = o->layout, .shard_k = o->shard_k, .shard_n = o->shard_n,
                             .cancel = o->cancel, .cache = o->mon_cache, .arg = mt,
                             .rank_done = sum ? monitor_summary_rank : NULL, .rank_arg = sum, .whole_ranks = sum != NULL};
    int rc = monitor_read_tree(path, &v2_tree, &r, ds, md, err);
    mapping_free(&map);
    return rc;
}
static int load_monitor_v2(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct monitor_data md;
    struct monitor_v2_metrics *mt = calloc(1, sizeof *mt);
    struct monitor_steps st;
    /* info: summed up while the rows stream, a rank at a time (no cache to keep them in) */
    struct monitor_summary *sum = o->summary && !o->mon_cache ? monitor_summary_new(o->micro_step, err) : NULL;
    if (!mt || (o->summary && !o->mon_cache && !sum)) {
        free(mt);
        monitor_summary_free(sum);
        return pt_errorf(err, "out of memory");
    }
    int rc = read_all(path, o, mt, ds, sum, &md, err);
    if (rc == 0 && !md.metric_has_rows)
        rc = pt_errorf(err, "%s: no usable row in any rank_<R>/<slug>_step<a>-<b>.csv file%s%s%s", path,
                       ds->nwarnings ? " (first note: " : "", ds->nwarnings ? ds->warnings[0] : "",
                       ds->nwarnings ? ")" : "");
    if (rc == 0 && (sum ? monitor_summary_steps(sum, &md, &st, err) : monitor_steps(&md, o->micro_step, &st, err)) == 0) {
        struct names *nm = sum ? monitor_summary_names(sum) : names_new();
        struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
        if (!b) rc = pt_errorf(err, "out of memory");
        if (rc == 0) rc = fill_cube(&md, mt, &st, o->micro_step, b, sum, ds, err);
        ds->notensor_rows = st.notensor;
        if (rc == 0 && !sum) rc = cube_builder_finish(b, &ds->cube, err);
        if (rc == 0) rc = anomaly_attach(path, ds, err);   /* its anomaly_detected/, if any */
        if (b) cube_builder_free(b);
        monitor_steps_free(&st);
    } else if (rc == 0) {
        rc = -1;
    }
    monitor_free(&md);
    monitor_summary_free(sum);
    free(mt);
    return rc;
}

/* ---- data2db: v2 scopes onto msProbe's v1 monitor metrics ----
 * (probetop-formats(5), MONITOR V2 CSV TREES: In a .trend.db) */

static const struct { const char *v2, *v1; } v2_to_v1[] = {
    {"module/forward", "actv"},
    {"module/backward", "actv_grad"},
    {"optimizer/exp_avg", "exp_avg"},
    {"optimizer/exp_avg_sq", "exp_avg_sq"},
    {"weight_grad/unreduced", "grad_unreduced"},
    {"weight_grad/reduced", "grad_reduced"},
    {"param/param_origin", "param_origin"},
    {"param/param_updated", "param_updated"},
};

/* The v1 metric (index into monitor_metric_names) of a v2 "slug/scope": every
 * scope of cc is `other`; -1 for a scope v1 has no metric for. */
static int v1_metric(const char *v2) {
    if (!strncmp(v2, "cc/", 3)) return MONITOR_NMETRICS - 1;
    for (size_t i = 0; i < sizeof v2_to_v1 / sizeof *v2_to_v1; i++)
        if (!strcmp(v2, v2_to_v1[i].v2))
            for (int m = 0; m < MONITOR_NMETRICS; m++)
                if (!strcmp(monitor_metric_names[m], v2_to_v1[i].v1)) return m;
    return -1;
}

const char *monitor_v2_v1_metric(const char *v2) {
    int m = v1_metric(v2);
    return m < 0 ? NULL : monitor_metric_names[m];
}

/* md's metrics renumbered from mt's onto v1's; files of a scope without a
 * v1 metric dropped with a note.  Two v2 metrics never share a v1 one
 * except cc's scopes (all `other`), whose rows are then one metric. */
static void to_v1(struct monitor_data *md, const struct monitor_v2_metrics *mt, const char *data, struct dataset *ds) {
    size_t o = 0;
    uint32_t dropped = 0;
    md->metric_has_files = md->metric_has_rows = 0;
    for (size_t i = 0; i < md->nfiles; i++) {
        struct monitor_file *f = &md->files[i];
        int m = v1_metric(mt->name[f->metric]);
        if (m < 0) {
            if (!(dropped & (1u << f->metric)))
                dataset_warn(ds, "%s: %s: no metric of msProbe's trend database for this scope; its rows are not "
                             "written (first: %s)", data, mt->name[f->metric], f->path);
            dropped |= 1u << f->metric;
            continue;
        }
        f->metric = m;
        md->metric_has_files |= 1u << m;
        if (f->nrows) md->metric_has_rows |= 1u << m;
        md->files[o++] = *f;
    }
    md->nfiles = o;
}

/* data2db: the tree read with its rows streamed to the writer (arg: the
 * tree's metrics, filled as files come). */
static int v2_read_streamed(void *arg, const char *data, const struct load_opts *lo, monitor_rank_fn rank_done,
                            void *rank_arg, struct dataset *ds, struct monitor_data *md, struct pt_error *err) {
    struct mapping map = {0};
    memset(md, 0, sizeof *md);
    if (lo->mapping && mapping_read(lo->mapping, &map, err) != 0) return -1;
    struct monitor_read r = {.map = &map, .layout = lo->layout, .shard_k = lo->shard_k, .shard_n = lo->shard_n,
                             .cancel = lo->cancel, .arg = arg, .rank_done = rank_done, .rank_arg = rank_arg};
    int rc = monitor_read_tree(data, &v2_tree, &r, ds, md, err);
    mapping_free(&map);
    return rc;
}

static int v2_metric_of(void *arg, int metric) {
    const struct monitor_v2_metrics *mt = arg;
    return v1_metric(mt->name[metric]);
}

static void v2_after(void *arg, struct monitor_data *md, const char *data, struct dataset *ds) { to_v1(md, arg, data, ds); }

static int write_trenddb_v2(const char *data, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                            struct tdb_result *res, struct pt_error *err) {
    struct monitor_v2_metrics *mt = calloc(1, sizeof *mt);
    memset(res, 0, sizeof *res);
    if (!mt) return pt_errorf(err, "out of memory");
    struct trenddb_monitor_src src = {.read = v2_read_streamed, .metric_of = v2_metric_of, .after = v2_after, .arg = mt};
    int rc = trenddb_write_monitor_src(data, &src, outdir, lo, ds, res, err);
    free(mt);
    return rc;
}

const struct formats_row formats_row_monitor_v2 = {
    .name = "monitor_v2",
    .what = "monitor_v2 folder (rank_<R>/ with CSV files)",
    .detect = detect_monitor_v2,
    .load = load_monitor_v2,
    .write_trenddb = write_trenddb_v2,
    .labels = LABELS_MONITOR,
};
