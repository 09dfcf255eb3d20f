/* read_monitor: rank folders `<MonDD_HH-MM-SS>-rank<R>-<uuid>` holding
 * `<metric>_<a>-<b>.csv` files, read with the semantics of msProbe's
 * pandas-based importer. */
#include "src/io/monitor/read_monitor.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "model/layout/layout.h"
#include "model/cube/names.h"
#include "model/util/fs.h"
#include "model/util/pool.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/reader.h"
#include "src/io/common/decfloat.h"
#include "src/io/common/json.h"
#include "src/io/monitor/mon_cache.h"
#include "src/io/monitor/mon_csv.h"
#include "src/io/monitor/read_anomaly.h"

#define CSV_MAX_BYTES ((size_t)4 << 30)


/* `MonDD_HH-MM-SS` */
static int is_timestamp(const char *s, size_t n) {
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (n != 14) return 0;
    int okm = 0;
    for (int i = 0; i < 12; i++)
        if (!strncmp(s, mon[i], 3)) okm = 1;
    if (!okm) return 0;
    const char *f = "MMMdd_dd-dd-dd";
    for (int i = 3; i < 14; i++) {
        if (f[i] == 'd' && !isdigit((unsigned char)s[i])) return 0;
        if (f[i] != 'd' && s[i] != f[i]) return 0;
    }
    return 1;
}

/* The folder pattern `([\w-]{0,20})-rank(\d{1,5})-` at the start of name.
 * Returns 1 with the rank, 0 no match, -1 a match whose prefix is no
 * timestamp. */
static int match_rankdir(const char *name, long *rank) {
    /* the regex is greedy on [\w-]{0,20}: try the longest prefix first */
    size_t n = strlen(name);
    for (size_t plen = n < 20 ? n : 20;; plen--) {
        int ok = 1;
        for (size_t i = 0; i < plen; i++)
            if (!(isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-')) { ok = 0; break; }
        if (ok && !strncmp(name + plen, "-rank", 5)) {
            const char *d = name + plen + 5;
            size_t nd = 0;
            while (nd < 5 && isdigit((unsigned char)d[nd])) nd++;
            /* \d{1,5} then '-': backtracking may use fewer digits, but a
             * shorter run can only be followed by a digit, not '-' */
            if (nd >= 1 && d[nd] == '-') {
                *rank = strtol(d, NULL, 10);
                return is_timestamp(name, plen) ? 1 : -1;
            }
        }
        if (plen == 0) break;
    }
    return 0;
}

/* `<metric>_<digits>-<digits>.csv` at the start, metric = parts but the last. */
static int match_csv(const char *name) {
    const char *us = strrchr(name, '_');
    if (!us) return -1;
    size_t ml = (size_t)(us - name);
    for (int m = 0; m < MONITOR_NMETRICS_ALL; m++) {
        if (strlen(monitor_metric_names[m]) != ml || strncmp(name, monitor_metric_names[m], ml)) continue;
        const char *p = us + 1;
        if (!isdigit((unsigned char)*p)) return -1;
        while (isdigit((unsigned char)*p)) p++;
        if (*p++ != '-' || !isdigit((unsigned char)*p)) return -1;
        while (isdigit((unsigned char)*p)) p++;
        return strncmp(p, ".csv", 4) ? -1 : m;
    }
    return -1;
}




int monitor_detect(const char *path) {
    size_t n;
    char **names = fs_list_dir(path, 0, &n);
    int found = 0;
    if (!names) return 0;
    for (size_t i = 0; i < n && !found; i++) {
        long r;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        if (match_rankdir(names[i], &r) != 0 && fs_is_dir(p)) found = 1;
    }
    fs_free_list(names, n);
    return found;
}

const char *monitor_name(const struct monitor_data *md, const struct monitor_row *r) { return names_str(md->pool, r->name); }

int monitor_add_part(struct monitor_data *md, const struct mon_cache_part *part, const int *metric_of) {
    for (size_t i = 0; i < part->nfiles; i++) {
        int m = metric_of ? metric_of[i] : part->files[i].metric;
        if (m < 0) continue;
        if (UTIL_PUSH(md->files, md->nfiles, md->capfiles) != 0) return -1;
        struct monitor_file *f = &md->files[md->nfiles++];
        *f = part->files[i];
        f->metric = m;
        md->statmask |= f->statmask;
        md->metric_has_files |= 1u << m;
        if (f->nrows) md->metric_has_rows |= 1u << m;
    }
    return 0;
}

/* ---- CSV ---- */

static int is_na(const char *s) {
    /* most cells are numbers: of those, only "1.#IND" and "1.#QNAN" (and
     * their minus) are NA tokens */
    const char *d = s[0] == '-' ? s + 1 : s;
    if ((*d >= '0' && *d <= '9') || *d == '.') {
        if (d[0] != '1' || d[1] != '.' || d[2] != '#') return 0;
    }
    switch (*s) {   /* what the tokens below start with: anything else (a shape, a dtype) is none */
    case '\0': case 'n': case 'N': case '-': case '<': case '#': case '1': break;
    default: return 0;
    }
    if (s[0] == 'n' && s[1] == 'a' && s[2] == 'n' && !s[3]) return 1;   /* the commonest (pandas' NaN) */
    static const char *const na[] = {"", "nan", "-nan", "NaN", "-NaN", "null", "NULL", "NA", "N/A", "n/a", "<NA>",
                                     "#NA", "#N/A", "#N/A N/A", "1.#IND", "-1.#IND", "1.#QNAN", "-1.#QNAN", "None"};
    for (size_t i = 0; i < sizeof na / sizeof na[0]; i++)
        if (!strcmp(s, na[i])) return 1;
    return 0;
}

/* A statistic cell (n bytes, NUL-terminated): 1 with a value (NaN for NA tokens), 0 for NULL. */
__attribute__((always_inline)) static inline int stat_cell(const char *s, size_t n, double *v) {
    /* most cells: a plain decimal number, read exactly (mon_csv.h, decfloat.h) */
    if (n <= 64 && mon_csv_number_z(s, n, v)) return 1;
    if (!n || (n == 3 && s[0] == 'n' && s[1] == 'a' && s[2] == 'n')) {   /* the commonest NA tokens (is_na) */
        *v = NAN;
        return 1;
    }
    const char *d = s + (*s == '-');
    if (*d >= '0' && *d <= '9' && !(d[0] == '1' && d[1] == '.' && d[2] == '#')) {
        if (n <= 64 && decfloat_parse(s, s + n, v) == s + n) return 1;
    }
    if (is_na(s)) { *v = NAN; return 1; }
    cJSON tmp = {.type = cJSON_String, .valuestring = (char *)s};
    if (json_number(&tmp, v)) return 1;
    return 0;
}

/* v1 and monitor_v2 alike (read_monitor.h). */
int monitor_int_cell(const char *s, int32_t *out) {
    char *e;
    while (*s == ' ') s++;
    {   /* most cells: a few digits */
        const char *p = s + (*s == '-');
        int32_t v = 0;
        int nd = 0;
        while (nd < 9 && *p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0'), nd++;
        if (nd && !*p) { *out = *s == '-' ? -v : v; return 1; }
    }
    /* "2" and "2.0" alike: pandas turns an int column into floats when a
     * cell is empty; every int32 is exact as a double */
    errno = 0;
    double d = strtod(s, &e);
    if (e == s || *e || errno || !isfinite(d) || d != floor(d) || d < INT32_MIN || d > INT32_MAX) return 0;
    *out = (int32_t)d;
    return 1;
}


/* What v1_parse reads a file as. */
struct v1_ctx {
    int metric;
    int32_t rank;
    const struct mapping *map;
    const struct layout *layout;
};

#define MAX_FIELDS 256
#define V1_FAST_MAX 64   /* the columns a header may have for v1_parse's fast path */

/* is_na of a cell n bytes long, not NUL-terminated (the longest NA token
 * has 8 bytes). */
static int is_na_n(const char *s, size_t n) {
    if (n > 8) return 0;
    char t[9];
    memcpy(t, s, n);
    t[n] = '\0';
    return is_na(t);
}

/* The cells' kinds of v1_parse's fast path: the integer columns (step
 * and micro_step when there, < 0 if not), the statistics' scol[0, ns),
 * the rest text. */
static void v1_kinds(uint8_t *kind, int vpp, int step, int micro, const int *scol, int ns) {
    memset(kind, MON_CSV_TEXT, V1_FAST_MAX);
    kind[vpp] = MON_CSV_INT;
    if (step >= 0) kind[step] = MON_CSV_INT;
    if (micro >= 0) kind[micro] = MON_CSV_INT;
    for (int k = 0; k < ns; k++) kind[scol[k]] = MON_CSV_NUM;
}

/* The rows of one v1 file as v1_parse adds them. */
struct v1_rows {
    const struct v1_ctx *cx;
    struct mon_csv_names *names;
    struct monitor_file *f;
    struct dataset *ds;
    const char *path;
    size_t line, rename_bad;
    int renames;
    char name[8192];
};

/* A row of name nm (nl bytes; NULL or empty: "nan") into w->f: *r (its
 * keys set, no value yet) and *v its values' room.  0, or -1 without memory. */
static int v1_row(struct v1_rows *w, int32_t vpp, int32_t step, int32_t micro, const char *nm, size_t nl,
                  struct monitor_row **r, double **v) {
    if (!nm || !nl || !*nm) nm = "nan", nl = 3;
    if (nl >= sizeof w->name) nl = sizeof w->name - 1;   /* cut, as the rename buffer holds it */
    if (w->renames) {   /* else the name is interned where it lies */
        memcpy(w->name, nm, nl);
        w->name[nl] = '\0';
        struct pt_error le;
        if (monitor_rename(w->cx->map, w->cx->layout, w->cx->rank, vpp, w->name, sizeof w->name, &nl, &le) != 0 &&
            !w->rename_bad++)
            dataset_warn(w->ds, "%s: line %zu: --parallel: %s (kept as written)", w->path, w->line, le.msg);
        nm = w->name;
    }
    uint32_t id = mon_csv_intern(w->names, w->names->pool, nm, nl);
    *r = mon_cache_add_row(w->f, v);
    if (id == NAMES_NONE || !*r) return -1;
    **r = (struct monitor_row){.name = id, .vpp = vpp, .step = step, .micro = micro};
    return 0;
}

/* One CSV's bytes into part (mon_cache_parse_fn). */
static int v1_parse(char *buf, size_t len, const char *path, void *vctx, struct mon_csv_names *names, struct dataset *ds,
                    struct mon_cache_part *part) {
    const struct v1_ctx *cx = vctx;
    int metric = cx->metric;
    int32_t rank = cx->rank;
    if ((!len || buf[len - 1] != '\n') && reader_young(ds, path)) {
        /* follow mode: the last row has no line end yet, its writer is at
         * work: read up to the last whole line, the rest at the next change */
        if (dataset_pending(ds, path, "last row without its line end (being written?)") != 0) return -1;
        while (len && buf[len - 1] != '\n') len--;
        if (!len) return 0;
    } else if (len && buf[len - 1] != '\n' && memchr(buf, '\n', len)) {
        /* the writer is gone and the last row has no line end: it was cut
         * (its last number may be cut too), so it is left out and the
         * file is partial (probetop(1), EXIT STATUS) */
        size_t whole = len, line = 1;
        while (buf[whole - 1] != '\n') whole--;
        for (size_t i = 0; i < whole; i++) line += buf[i] == '\n';
        if (dataset_warn(ds, "%s: line %zu: the last row has no line end (the file was cut short); it is left out",
                         path, line) != 0 || dataset_partial(ds, path) != 0) return -1;
        len = whole;
    }
    /* the fields are split in place (mon_csv.h): buf[len] is the NUL the
     * readers put after the bytes */
    struct mon_csv sc;
    mon_csv_init(&sc, buf, len, mon_csv_best());
    char *fields[MAX_FIELDS];
    size_t flen[MAX_FIELDS];
    int nf = mon_csv_record(&sc, fields, flen, MAX_FIELDS);
    if (len == 0 || nf <= 0) {
        dataset_warn(ds, "%s: empty file, expected a header line", path);
        dataset_skip(ds, path);
        return 0;
    }
    int col_vpp = -1, col_name = -1, col_step = -1, col_micro = -1, col_shape = -1, col_dtype = -1, col_stat[MONITOR_NSTATS];
    uint32_t statmask = 0;
    for (int s = 0; s < MONITOR_NSTATS; s++) col_stat[s] = -1;
    /* (the first bytes compared before the call: a header a file, thousands of files) */
#define HEQ(h, name) ((h)[0] == (name)[0] && !strcmp((h), (name)))
    for (int i = 0; i < nf && i < MAX_FIELDS; i++) {
        const char *h = fields[i];
        if (HEQ(h, "vpp_stage")) col_vpp = i;
        else if (HEQ(h, "name")) col_name = i;
        else if (HEQ(h, "step")) col_step = i;
        else if (HEQ(h, "micro_step")) col_micro = i;
        else if (HEQ(h, "shape")) col_shape = i;
        else if (HEQ(h, "dtype")) col_dtype = i;
        else
            for (int s = 0; s < MONITOR_NSTATS; s++)
                if (HEQ(h, monitor_stat_names[s])) { col_stat[s] = i; statmask |= 1u << s; }
    }
#undef HEQ
    if (col_vpp < 0 || col_name < 0) {
        dataset_warn(ds, "%s: line 1: header lacks the %s column", path, col_vpp < 0 ? "vpp_stage" : "name");
        dataset_skip(ds, path);
        return 0;
    }
    struct monitor_file *f = mon_cache_add_file(part, metric, rank, statmask);
    if (!f) return -1;
    {   /* the rows the bytes hold, about (the rest over the first row's
         * length, a quarter more): one allocation, not a copy at each doubling */
        size_t rest = (size_t)(sc.end - sc.p);
        const char *eol = memchr(sc.p, '\n', rest);
        size_t row = eol ? (size_t)(eol - sc.p) + 1 : 0;
        if (row >= 16 && rest / row > 64 && mon_cache_reserve_rows(f, rest / row + rest / row / 4 + 8) != 0) {
            return -1;
        }
    }
    /* the header's statistics in monitor_stat_names order (vals' order):
     * their columns and bits, looked at by each row without the others */
    int scol[MONITOR_NSTATS], ns = 0;
    uint32_t sbit[MONITOR_NSTATS];
    for (int s = 0; s < MONITOR_NSTATS; s++)
        if (col_stat[s] >= 0) scol[ns] = col_stat[s], sbit[ns++] = 1u << s;
    size_t line = 1, bad = 0, first_bad = 0;
    struct v1_rows rw;   /* set field by field: its name buffer is scratch, not cleared a file */
    rw.cx = cx, rw.names = names, rw.f = f, rw.ds = ds, rw.path = path, rw.line = 0, rw.rename_bad = 0;
    rw.renames = cx->layout || (cx->map && cx->map->n);
    /* the fast path's cells (mon_csv_fast), for a header of at most V1_FAST_MAX columns */
    uint8_t kind[V1_FAST_MAX];
    struct mon_csv_cell cells[V1_FAST_MAX];
    int fast = nf <= V1_FAST_MAX;
    if (fast) v1_kinds(kind, col_vpp, col_step, col_micro, scol, ns);
    while (sc.p < sc.end) {
        line++;
        if (*sc.p == '\n') { sc.p++; continue; }
        rw.line = line;
        char *row = sc.p;
        if (fast && mon_csv_fast(&sc, kind, nf, cells)) {   /* most rows: every cell plain, read in one pass */
            struct monitor_row *r;
            double *v;
            const struct mon_csv_cell *cn = &cells[col_name];
            if (v1_row(&rw, cells[col_vpp].i, col_step >= 0 ? cells[col_step].i : 0,
                       col_micro >= 0 ? cells[col_micro].i : 0, cn->s, cn->n, &r, &v) != 0) return -1;
            for (int k = 0; k < ns; k++) v[k] = cells[scol[k]].d;
            r->present |= statmask;
            if ((col_shape < 0 || is_na_n(cells[col_shape].s, cells[col_shape].n)) &&
                (col_dtype < 0 || is_na_n(cells[col_dtype].s, cells[col_dtype].n)))   /* else a tensor's row */
                monitor_row_mark_notensor(r, f->valmask, v, 1);
            continue;
        }
        sc.p = row;   /* the plain path: the record split into NUL-terminated fields */
        int n = mon_csv_record(&sc, fields, flen, MAX_FIELDS);
        if (n < 0) {
            dataset_warn(ds, "%s: line %zu: unterminated quoted field; the rest of the file is skipped", path, line);
            break;
        }
#define FIELD(c) ((c) >= 0 && (c) < n && (c) < MAX_FIELDS ? fields[c] : NULL)
        int32_t vpp, step = 0, micro = 0;
        const char *fv = FIELD(col_vpp), *fs = FIELD(col_step), *fm = FIELD(col_micro);
        if (!fv || !monitor_int_cell_n(fv, flen[col_vpp], &vpp) ||
            (col_step >= 0 && (!fs || !monitor_int_cell_n(fs, flen[col_step], &step))) ||
            (col_micro >= 0 && (!fm || !monitor_int_cell_n(fm, flen[col_micro], &micro)))) {
            if (!bad++) first_bad = line;
            continue;
        }
        const char *nm = FIELD(col_name);
        struct monitor_row *r;
        double *v;
        if (v1_row(&rw, vpp, step, micro, nm, nm ? flen[col_name] : 0, &r, &v) != 0) return -1;
        const double *v0 = v;
        for (int k = 0; k < ns; k++, v++) {
            const char *c = FIELD(scol[k]);
            *v = 0;
            if (c && stat_cell(c, flen[scol[k]], v)) r->present |= sbit[k];
        }
        const char *fsh = FIELD(col_shape), *fdt = FIELD(col_dtype);
        monitor_row_mark_notensor(r, f->valmask, v0, (!fsh || is_na(fsh)) && (!fdt || is_na(fdt)));
#undef FIELD
    }
    if (bad)
        dataset_warn(ds, "%s: line %zu: %zu row%s without an integer vpp_stage/step/micro_step skipped", path,
                     first_bad, bad, bad > 1 ? "s" : "");
    return 0;
}

int monitor_parse_csv(char *buf, size_t len, const char *path, int metric, int32_t rank, const struct mapping *map,
                      const struct layout *layout, struct dataset *ds, struct monitor_data *md) {
    struct v1_ctx cx = {.metric = metric, .rank = rank, .map = map, .layout = layout};
    const struct mon_cache_part *part;
    if (monitor_use_cache(md, NULL) != 0) {
        free(buf);
        return -1;
    }
    if (mon_cache_parse_bytes(md->own, buf, len, path, v1_parse, &cx, ds, &part) != 0) return -1;
    return monitor_add_part(md, part, NULL);
}

int monitor_rename(const struct mapping *map, const struct layout *layout, int32_t rank, int32_t vpp, char *name,
                   size_t size, size_t *len, struct pt_error *le) {
    size_t nl = *len;
    for (size_t k = 0; map && k < map->n; k++) {
        /* plain substring replacement, all occurrences, pair by pair */
        char out[8192];
        size_t o = 0, fl = strlen(map->from[k]), tl = strlen(map->to[k]), cap = size < sizeof out ? size : sizeof out;
        const char *s = name;
        while (*s && o + 1 < cap) {
            if (fl && !strncmp(s, map->from[k], fl) && o + tl < cap) { memcpy(out + o, map->to[k], tl); o += tl; s += fl; }
            else out[o++] = *s++;
        }
        out[o] = '\0';
        memcpy(name, out, o + 1);
        nl = o;
    }
    *len = nl;
    if (!layout) return 0;
    char renamed[8192 + 8];
    int r = layout_rename(layout, rank, layout_target_chunk(name, nl, vpp), name, nl, renamed, sizeof renamed, le);
    if (r < 0) return -1;
    if (r == 1) {
        nl = strlen(renamed);
        if (nl >= size) nl = size - 1;
        memcpy(name, renamed, nl);
        name[nl] = '\0';
        *len = nl;
    }
    return 0;
}

void monitor_keep_trenddb(struct monitor_data *md, const char *data, struct dataset *ds) {
    size_t o = 0, l2 = 0;
    md->metric_has_files = md->metric_has_rows = md->statmask = 0;
    for (size_t i = 0; i < md->nfiles; i++) {
        struct monitor_file *f = &md->files[i];
        if (f->metric < 0 || f->metric >= MONITOR_NMETRICS) {
            l2++;
            continue;
        }
        /* the other columns' values stay in the rows, unread */
        f->statmask &= (1u << MONITOR_NSTATS_TDB) - 1;
        md->metric_has_files |= 1u << f->metric;
        if (f->nrows) md->metric_has_rows |= 1u << f->metric;
        md->statmask |= f->statmask;
        md->files[o++] = *f;
    }
    md->nfiles = o;
    if (l2)
        dataset_warn(ds, "%s: %zu L2 feature file%s (attention_hook, linear_hook, moe_router_*_hook) not written: "
                     "msProbe's trend database has no metric for them (probetop reads them)", data, l2,
                     l2 > 1 ? "s" : "");
}

/* ---- the tree walk, one for v1 and monitor_v2 ---- */

/* The rank folders of a v1 tree, ranks ascending; a folder of the pattern
 * without a timestamp is an error, the same rank twice a note (the later
 * listed wins, as in msProbe). */
static int v1_ranks(const char *path, struct dataset *ds, struct monitor_rankdir **out, size_t *nout,
                    struct pt_error *err) {
    size_t n;
    char **names = fs_list_dir(path, 0, &n);
    if (!names) return pt_errorf(err, "%s: cannot list: %s", path, strerror(errno));
    struct monitor_rankdir *rd = calloc(n ? n : 1, sizeof *rd);
    size_t nr = 0;
    int rc = rd ? 0 : pt_errorf(err, "out of memory");
    for (size_t i = 0; i < n && rc == 0; i++) {
        long r;
        int m = match_rankdir(names[i], &r);
        if (m == 0) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        if (m < 0) {
            rc = pt_errorf(err, "%s: folder name does not start with a MonDD_HH-MM-SS timestamp", p);
            break;
        }
        if (!fs_is_dir(p)) continue;
        size_t k;
        for (k = 0; k < nr && rd[k].rank != r; k++) {}
        if (k < nr) {
            dataset_warn(ds, "%s: rank %ld appears twice; using %s", path, r, names[i]);
            dataset_skip(ds, rd[k].dir);
            free(rd[k].dir);
        } else nr++;
        rd[k].rank = r;
        if (!(rd[k].dir = strdup(p))) rc = pt_errorf(err, "out of memory");
    }
    fs_free_list(names, n);
    if (rc == 0 && nr == 0) rc = pt_errorf(err, "%s: no monitor rank folder (<MonDD_HH-MM-SS>-rank<R>-<id>) here", path);
    if (rc != 0) {
        for (size_t k = 0; rd && k < nr; k++) free(rd[k].dir);
        free(rd);
        return -1;
    }
    /* ranks ascending (stable: the order of the listing among equals) */
    for (size_t i = 1; i < nr; i++)
        for (size_t j = i; j > 0 && rd[j - 1].rank > rd[j].rank; j--) {
            struct monitor_rankdir t = rd[j];
            rd[j] = rd[j - 1];
            rd[j - 1] = t;
        }
    *out = rd;
    *nout = nr;
    return 0;
}

static void v1_set_ctx(void *cx, int slot, int32_t rank, const struct monitor_read *r) {
    *(struct v1_ctx *)cx = (struct v1_ctx){.metric = slot, .rank = rank, .map = r->map, .layout = r->layout};
}

static int v1_add_part(struct monitor_data *md, const struct mon_cache_part *part, const struct monitor_read *r,
                       struct dataset *ds) {
    (void)r;
    (void)ds;
    return monitor_add_part(md, part, NULL);
}

static const struct monitor_tree v1_tree = {
    .format = "monitor",
    .list_ranks = v1_ranks,
    .match_csv = match_csv,
    .parse = v1_parse,
    .max_bytes = CSV_MAX_BYTES,
    .ctx_size = sizeof(struct v1_ctx),
    .set_ctx = v1_set_ctx,
    .add_part = v1_add_part,
};

int monitor_read(const char *path, const struct mapping *map, const struct layout *layout, struct dataset *ds,
                 struct monitor_data *md, struct pt_error *err) {
    struct monitor_read r = {.map = map, .layout = layout};
    return monitor_read_tree(path, &v1_tree, &r, ds, md, err);
}

int monitor_read_shard(const char *path, const struct mapping *map, const struct layout *layout, int shard_k,
                       int shard_n, struct dataset *ds, struct monitor_data *md, struct pt_error *err) {
    struct monitor_read r = {.map = map, .layout = layout, .shard_k = shard_k, .shard_n = shard_n};
    return monitor_read_tree(path, &v1_tree, &r, ds, md, err);
}

int monitor_read_streamed(const char *path, const struct mapping *map, const struct layout *layout, int shard_k,
                          int shard_n, monitor_rank_fn rank_done, void *rank_arg, struct dataset *ds,
                          struct monitor_data *md, struct pt_error *err) {
    struct monitor_read r = {.map = map, .layout = layout, .shard_k = shard_k, .shard_n = shard_n,
                             .rank_done = rank_done, .rank_arg = rank_arg};
    return monitor_read_tree(path, &v1_tree, &r, ds, md, err);
}

void monitor_row_mark_notensor(struct monitor_row *r, uint32_t valmask, const double *vals, int shape_dtype_na) {
    if (!valmask || !shape_dtype_na) return;
    int k = 0;   /* vals[k]: valmask's k-th column */
    for (uint32_t vm = valmask & ((1u << MONITOR_NSTATS) - 1); vm; vm &= vm - 1, k++)
        if ((r->present >> __builtin_ctz(vm) & 1) && !isnan(vals[k])) return;   /* a number: a tensor */
    r->present |= MONITOR_ROW_NOTENSOR;
}

/* ---- into the cube ---- */

int monitor_load(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct mapping map = {0};
    struct monitor_data md;
    struct monitor_steps st;
    if (o->mapping && mapping_read(o->mapping, &map, err) != 0) return -1;
    /* info: summed up while the rows stream, a rank at a time (no cache to keep them in) */
    struct monitor_summary *sum = o->summary && !o->mon_cache ? monitor_summary_new(o->micro_step, err) : NULL;
    if (o->summary && !o->mon_cache && !sum) { mapping_free(&map); return pt_errorf(err, "out of memory"); }
    struct monitor_read r = {.map = &map, .layout = o->layout, .cancel = o->cancel, .cache = o->mon_cache,
                             .rank_done = sum ? monitor_summary_rank : NULL, .rank_arg = sum, .whole_ranks = sum != NULL};
    int rc = monitor_read_tree(path, &v1_tree, &r, ds, &md, err);
    mapping_free(&map);
    if (rc != 0) { monitor_summary_free(sum); return -1; }
    if (!md.metric_has_rows) {
        monitor_free(&md);
        monitor_summary_free(sum);
        return pt_errorf(err, "%s: no usable row in any <metric>_<a>-<b>.csv file%s%s%s", path,
                         ds->nwarnings ? " (first note: " : "", ds->nwarnings ? ds->warnings[0] : "", ds->nwarnings ? ")" : "");
    }
    if ((sum ? monitor_summary_steps(sum, &md, &st, err) : monitor_steps(&md, o->micro_step, &st, err)) != 0) {
        monitor_free(&md);
        monitor_summary_free(sum);
        return -1;
    }
    struct names *nm = sum ? monitor_summary_names(sum) : names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) { monitor_steps_free(&st); monitor_free(&md); monitor_summary_free(sum); return pt_errorf(err, "out of memory"); }
    int metric_of[MONITOR_NMETRICS_ALL], stat_idx[MONITOR_NMETRICS_ALL][MONITOR_NSTATS];
    for (int m = 0; m < MONITOR_NMETRICS_ALL; m++) {
        metric_of[m] = -1;
        if (!(md.metric_has_rows & (1u << m))) continue;
        /* the metric's statistics: columns its files had, in the fixed order */
        uint32_t mask = 0;
        for (size_t i = 0; i < md.nfiles; i++)
            if (md.files[i].metric == m) mask |= md.files[i].statmask;
        const char *stats[MONITOR_NSTATS];
        int ns = 0;
        for (int s = 0; s < MONITOR_NSTATS; s++) {
            stat_idx[m][s] = mask & (1u << s) ? ns : -1;
            if (mask & (1u << s)) stats[ns++] = monitor_stat_names[s];
        }
        metric_of[m] = cube_builder_metric(b, monitor_metric_names[m], ns, stats);
    }
    if (o->micro_step)
        for (size_t j = 0; j < st.n; j++)
            for (int32_t k = 0; k < st.count[j] && rc == 0; k++)
                if (cube_builder_step(b, st.offset[j] + k, st.orig[j], k) != 0) rc = pt_errorf(err, "out of memory");
    if (rc == 0 && sum) {   /* info: no cell */
        rc = monitor_summary_cube(sum, &md, metric_of, &stat_idx[0][0], b, ds, err);
    } else {
        if (rc == 0 && monitor_to_cube(&md, metric_of, &stat_idx[0][0], &st, o->micro_step, b) != 0)
            rc = pt_errorf(err, "out of memory");
        if (rc == 0) rc = cube_builder_finish(b, &ds->cube, err);
    }
    ds->notensor_rows = st.notensor;
    if (rc == 0) rc = anomaly_attach(path, ds, err);   /* its anomaly_detected/, if any */
    cube_builder_free(b);
    monitor_steps_free(&st);
    monitor_free(&md);
    monitor_summary_free(sum);
    return rc;
}

/* ---- the reader table's row (formats.h) ---- */
