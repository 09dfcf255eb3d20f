/* read_steptrace: Ascend step time tables (probetop-formats(5), ASCEND STEP
 * TIME CSV) into the cube.  torch_npu writes one step_trace_time.csv per
 * rank under <worker>_<timestamp>_ascend_pt/ASCEND_PROFILER_OUTPUT/, the
 * rank named by a profiler_info_<R>.json beside that folder;
 * msprof-analyze's cluster analysis gathers them into one
 * cluster_step_trace_time.csv (Type rank|stage, Index).  Both are read by
 * the header's names, never by column position (torch_npu versions add
 * Device_id and Preparing), and both fill the same targets. */
#include "src/io/ascend/read_steptrace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/util/fs.h"
#include "model/util/rankdirs.h"
#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/common/reader.h"
#include "src/io/formats.h"
#include "src/io/common/json.h"

#define STEPTRACE_MAX_BYTES ((size_t)1 << 30)   /* 10 000 ranks x 1000 steps is ~1 GB of cluster csv */
#define STEPTRACE_MAX_FIELDS 64
#define STEPTRACE_FILE "step_trace_time.csv"
#define STEPTRACE_CLUSTER_FILE "cluster_step_trace_time.csv"
#define STEPTRACE_OUTPUT_DIR "ASCEND_PROFILER_OUTPUT"
#define STEPTRACE_CLUSTER_DIR "cluster_analysis_output"

const char *const steptrace_col_names[STEPTRACE_NCOLS] = {
    "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free", "Stage", "Bubble",
    "Communication(Not Overlapped and Exclude Receive)", "Preparing",
};
const char *const steptrace_target_names[STEPTRACE_NCOLS] = {
    "compute", "exposed_communication", "overlapped", "communication", "idle", "stage", "bubble",
    "communication_excl_receive", "preparing",
};
/* What msprof-analyze itself needs of a file; the others are optional
 * (older torch_npu versions lack Preparing, for one). */
#define STEPTRACE_REQUIRED ((1u << STEPTRACE_COMPUTE) | (1u << STEPTRACE_EXPOSED) | (1u << STEPTRACE_FREE))

void steptrace_rows_free(struct steptrace_rows *rows) {
    free(rows->v);
    memset(rows, 0, sizeof *rows);
}

/* Splits line (NUL-terminated, no line end) into fields in place: commas
 * separate, a field in double quotes may hold commas and "" for a quote
 * (Python's csv module quotes the cluster file's "(0, 1)" stage indexes).
 * Surrounding blanks are dropped.  Returns the number of fields (may
 * exceed max; only max are stored). */
static int split_csv(char *line, char **f, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        char *out = p, *start = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p) break;                       /* unterminated: the rest is the field */
                if (*p == '"' && p[1] == '"') { *out++ = '"'; p += 2; continue; }
                if (*p == '"') { p++; break; }
                *out++ = *p++;
            }
            while (*p && *p != ',') p++;              /* text after the closing quote: dropped */
        } else {
            while (*p && *p != ',') *out++ = *p++;
            while (out > start && (out[-1] == ' ' || out[-1] == '\t')) out--;
        }
        int more = *p == ',';
        *out = '\0';
        if (n < max) f[n] = start;
        n++;
        if (!more) break;
        p++;
    }
    return n;
}

/* "12" or "12.0": 1 with the value. */
static int int_field(const char *s, long *out) {
    char *e;
    errno = 0;
    double d = strtod(s, &e);
    if (e == s || *e || errno || !isfinite(d) || d != floor(d) || d < INT32_MIN || d > INT32_MAX) return 0;
    *out = (long)d;
    return 1;
}

/* A time: 1 with the value, 0 when the cell is empty or N/A (no value),
 * -1 when it is no number. */
static int time_field(const char *s, double *out) {
    if (!*s || !strcmp(s, "N/A") || !strcmp(s, "NA") || !strcmp(s, "nan")) return 0;
    char *e;
    *out = strtod(s, &e);
    return e != s && !*e ? 1 : -1;
}

struct steptrace_cols {
    int step, type, index;
    int col[STEPTRACE_NCOLS];
    uint32_t have;
    int need;   /* the highest column index a row must reach */
};

/* The header line into c: 0, or -1 with a note naming the missing column. */
static int read_header(char *line, int cluster, struct steptrace_cols *c, const char *path, struct dataset *ds) {
    char *f[STEPTRACE_MAX_FIELDS];
    if (!strncmp(line, "\xef\xbb\xbf", 3)) line += 3;   /* a BOM, as Excel saves it */
    int n = split_csv(line, f, STEPTRACE_MAX_FIELDS);
    c->step = c->type = c->index = -1;
    c->have = 0;
    for (int k = 0; k < STEPTRACE_NCOLS; k++) c->col[k] = -1;
    for (int i = 0; i < n && i < STEPTRACE_MAX_FIELDS; i++) {
        if (!strcmp(f[i], "Step")) c->step = i;
        else if (!strcmp(f[i], "Type")) c->type = i;
        else if (!strcmp(f[i], "Index")) c->index = i;
        else
            for (int k = 0; k < STEPTRACE_NCOLS; k++)
                if (c->col[k] < 0 && !strcmp(f[i], steptrace_col_names[k])) { c->col[k] = i; c->have |= 1u << k; }
    }
    const char *miss = c->step < 0 ? "Step" : cluster && c->type < 0 ? "Type" : cluster && c->index < 0 ? "Index" : NULL;
    for (int k = 0; !miss && k < STEPTRACE_NCOLS; k++)
        if ((STEPTRACE_REQUIRED & (1u << k)) && c->col[k] < 0) miss = steptrace_col_names[k];
    if (miss) {
        dataset_warn(ds, "%s: line 1: the header has no %s column (expected %sComputing, "
                     "Communication(Not Overlapped), Free and the other step time columns)",
                     path, miss, cluster ? "Step, Type, Index, " : "Step, ");
        return -1;
    }
    c->need = c->step > c->type ? c->step : c->type;
    if (c->index > c->need) c->need = c->index;
    for (int k = 0; k < STEPTRACE_NCOLS; k++)
        if (c->col[k] > c->need) c->need = c->col[k];
    return 0;
}

/* Why rows were skipped, for the one note per file. */
enum steptrace_bad { BAD_NONE, BAD_SHORT, BAD_STEP, BAD_TYPE, BAD_VALUE, BAD_NBAD };
static const char *const bad_why[BAD_NBAD] = {
    "", "fewer fields than the header (cut short?)", "a Step that is no integer",
    "a Type other than rank or stage, or an Index that is no rank", "a time that is no number",
};

/* One data row into rows.  BAD_NONE (row added or a stage row passed
 * over), the reason it was skipped, or -1 without memory. */
static int read_row(char *line, const struct steptrace_cols *c, int cluster, int32_t rank, int *nostep, struct steptrace_rows *rows) {
    char *f[STEPTRACE_MAX_FIELDS];
    int n = split_csv(line, f, STEPTRACE_MAX_FIELDS);
    if (n <= c->need || n > STEPTRACE_MAX_FIELDS) return BAD_SHORT;
    long step = 0, r = rank;
    if (!*f[c->step]) *nostep = 1;   /* profiled without a schedule: no step number */
    else if (!int_field(f[c->step], &step)) return BAD_STEP;
    if (cluster) {
        if (!strcmp(f[c->type], "stage")) return BAD_NONE;   /* a stage's maxima: derived, not a rank */
        if (strcmp(f[c->type], "rank") || !int_field(f[c->index], &r) || r < 0) return BAD_TYPE;
    }
    struct steptrace_row row;
    memset(&row, 0, sizeof row);
    row.step = (int32_t)step;
    row.rank = (int32_t)r;
    for (int k = 0; k < STEPTRACE_NCOLS; k++) {
        if (c->col[k] < 0) continue;
        int got = time_field(f[c->col[k]], &row.v[k]);
        if (got < 0) return BAD_VALUE;
        if (got) row.present |= 1u << k;
    }
    if (util_grow((void **)&rows->v, &rows->cap, rows->n + 1, sizeof *rows->v) != 0) return -1;
    rows->v[rows->n++] = row;
    return BAD_NONE;
}

long steptrace_parse(char *buf, size_t len, const char *path, int cluster, int32_t rank, struct dataset *ds,
                     struct steptrace_rows *rows) {
    char *p = buf, *end = buf + len;
    size_t before = rows->n, line = 0, nbad = 0, first_bad = 0;
    int why = BAD_NONE, nostep = 0, header = 0;
    struct steptrace_cols c;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *e = nl ? nl : end;   /* a last line without its end: written whole, so read it */
        *e = '\0';
        if (e > p && e[-1] == '\r') e[-1] = '\0';
        line++;
        if (*p) {
            if (!header) {
                if (read_header(p, cluster, &c, path, ds) != 0) return 0;
                header = 1;
            } else {
                int rc = read_row(p, &c, cluster, rank, &nostep, rows);
                if (rc < 0) return -1;
                if (rc != BAD_NONE && !nbad++) { first_bad = line; why = rc; }
            }
        }
        p = e + 1;
    }
    if (!header) dataset_warn(ds, "%s: empty: no header line", path);
    if (nbad)
        dataset_warn(ds, "%s: line %zu: %zu row%s skipped (the first has %s)", path, first_bad, nbad,
                     nbad > 1 ? "s" : "", bad_why[why]);
    if (nostep)
        dataset_warn(ds, "%s: rows without a Step number (profiled without a schedule) are step 0", path);
    return (long)(rows->n - before);
}

/* ---- where the files are ---- */

long steptrace_folder_rank(const char *dir) {
    long r = util_profiler_info_rank(dir);
    if (r >= 0) return r;
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    return util_rank_in_name(base, strlen(base), (long)INT32_MAX + 1);
}

/* One rank's file and the profiling folder that names its rank. */
struct steptrace_src {
    char *csv, *dir;
    long rank;
};

struct steptrace_srcs {
    struct steptrace_src *v;
    size_t n, cap;
};

static void srcs_free(struct steptrace_srcs *s) {
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].csv);
        free(s->v[i].dir);
    }
    free(s->v);
}

static int srcs_add(struct steptrace_srcs *s, const char *csv, const char *dir) {
    if (util_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v) != 0) return -1;
    struct steptrace_src *x = &s->v[s->n];
    x->csv = strdup(csv);
    x->dir = strdup(dir);
    if (!x->csv || !x->dir) {
        free(x->csv);
        free(x->dir);
        return -1;
    }
    s->n++;
    return 0;
}

static const char *base_name(const char *p) {
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* The folder of path ("." when none), into out. */
static void parent_of(const char *path, char *out, size_t n) {
    snprintf(out, n, "%s", path);
    char *b = strrchr(out, '/');
    while (b && b > out && b[1] == '\0') {   /* "dir/" */
        *b = '\0';
        b = strrchr(out, '/');
    }
    if (!b) snprintf(out, n, ".");
    else if (b == out) out[1] = '\0';
    else *b = '\0';
}

/* The profiling folder of an ASCEND_PROFILER_OUTPUT folder (its parent),
 * or the folder itself when it has another name. */
static void profiling_dir_of(const char *outdir, char *out, size_t n) {
    if (!strcmp(base_name(outdir), STEPTRACE_OUTPUT_DIR)) parent_of(outdir, out, n);
    else snprintf(out, n, "%s", outdir);
}

/* dir/ASCEND_PROFILER_OUTPUT/step_trace_time.csv into out: 1 when it is a file. */
static int has_output(const char *dir, char *out, size_t n) {
    snprintf(out, n, "%s/%s/%s", dir, STEPTRACE_OUTPUT_DIR, STEPTRACE_FILE);
    return fs_is_file(out);
}

/* Every step_trace_time.csv path stands for: the file itself, one output
 * or profiling folder, or the profiling folders inside a collection. */
static int find_sources(const char *path, struct steptrace_srcs *s, struct pt_error *err) {
    char csv[4096], dir[4096];
    if (fs_is_file(path)) {
        parent_of(path, csv, sizeof csv);
        profiling_dir_of(csv, dir, sizeof dir);
        return srcs_add(s, path, dir) ? pt_errorf(err, "out of memory") : 0;
    }
    snprintf(csv, sizeof csv, "%s/%s", path, STEPTRACE_FILE);
    if (fs_is_file(csv)) {
        profiling_dir_of(path, dir, sizeof dir);
        return srcs_add(s, csv, dir) ? pt_errorf(err, "out of memory") : 0;
    }
    if (has_output(path, csv, sizeof csv)) return srcs_add(s, csv, path) ? pt_errorf(err, "out of memory") : 0;
    size_t n;
    char **names = fs_list_dir(path, 0, &n);
    if (!names) return pt_errorf(err, "%s: cannot list: %s", path, strerror(errno));
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(dir, sizeof dir, "%s/%s", path, names[i]);
        if (fs_is_dir(dir) && has_output(dir, csv, sizeof csv) && srcs_add(s, csv, dir) != 0)
            rc = pt_errorf(err, "out of memory");
    }
    fs_free_list(names, n);
    if (rc == 0 && s->n == 0)
        rc = pt_errorf(err, "%s: no %s/%s here, nor in the folders inside", path, STEPTRACE_OUTPUT_DIR, STEPTRACE_FILE);
    return rc;
}

static int cmp_src(const void *a, const void *b) {
    const struct steptrace_src *x = a, *y = b;
    if (x->rank != y->rank) return (x->rank > y->rank) - (x->rank < y->rank);
    return strcmp(x->dir, y->dir);
}

/* Ranks for every source: named ones first; the others numbered on after
 * the highest, in folder order, said once.  A rank profiled twice keeps
 * its last folder by name (the newest: <worker>_<timestamp>_ascend_pt), as
 * msprof-analyze does; the other is skipped with a note. */
static int assign_ranks(const char *path, struct steptrace_srcs *s, struct dataset *ds) {
    long next = 0;
    size_t unnamed = 0;
    for (size_t i = 0; i < s->n; i++) {
        s->v[i].rank = steptrace_folder_rank(s->v[i].dir);
        if (s->v[i].rank >= next) next = s->v[i].rank + 1;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].rank < 0) {
            s->v[i].rank = next++;
            unnamed++;
        }
    if (unnamed && s->n > 1)
        dataset_warn(ds, "%s: %zu profiling folder%s name%s no rank (no profiler_info_<R>.json, no rank<R> in the "
                     "name): numbered from %ld in folder order", path, unnamed, unnamed > 1 ? "s" : "",
                     unnamed > 1 ? "" : "s", next - (long)unnamed);
    qsort(s->v, s->n, sizeof *s->v, cmp_src);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (i + 1 < s->n && s->v[i + 1].rank == s->v[i].rank) {
            if (dataset_warn(ds, "%s: rank %ld profiled again in %s: the later folder is read", s->v[i].dir,
                             s->v[i].rank, s->v[i + 1].dir) != 0 || dataset_skip(ds, s->v[i].csv) != 0)
                return -1;
            free(s->v[i].csv);
            free(s->v[i].dir);
            continue;
        }
        s->v[k++] = s->v[i];
    }
    s->n = k;
    return 0;
}

/* One file into rows: read errors are notes (the file skipped), -1 only without memory. */
static int read_one(const char *csv, int cluster, int32_t rank, struct dataset *ds, struct steptrace_rows *rows) {
    char *buf;
    size_t len;
    int rd = reader_read_file(ds, csv, STEPTRACE_MAX_BYTES, &buf, &len);
    if (rd != 0) return rd < 0 ? -1 : 0;
    long got = steptrace_parse(buf, len, csv, cluster, rank, ds, rows);
    free(buf);
    if (got < 0) return -1;
    ds->files_read++;
    ds->bytes_read += len;
    if (got == 0 && dataset_skip(ds, csv) != 0) return -1;
    return 0;
}

/* The rows into ds->cube: metric time, statistics us and pct (of the step
 * time Computing + Communication(Not Overlapped) + Free, which is how
 * msprof-analyze adds a step up). */
static int fill_cube(const struct steptrace_rows *rows, struct dataset *ds, struct pt_error *err) {
    static const char *const stats[] = {"us", "pct"};
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    int rc = b ? 0 : pt_errorf(err, "out of memory");
    int m = rc == 0 ? cube_builder_metric(b, "time", 2, stats) : -1;
    if (rc == 0 && m < 0) rc = pt_errorf(err, "out of memory");
    uint32_t t[STEPTRACE_NCOLS];
    for (int k = 0; rc == 0 && k < STEPTRACE_NCOLS; k++)
        if ((t[k] = names_intern(nm, steptrace_target_names[k], strlen(steptrace_target_names[k]), 0, 0)) == NAMES_NONE)
            rc = pt_errorf(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < rows->n; i++) {
        const struct steptrace_row *r = &rows->v[i];
        double total = r->v[STEPTRACE_COMPUTE] + r->v[STEPTRACE_EXPOSED] + r->v[STEPTRACE_FREE];
        int whole = (r->present & STEPTRACE_REQUIRED) == STEPTRACE_REQUIRED && isfinite(total) && total > 0;
        for (int k = 0; rc == 0 && k < STEPTRACE_NCOLS; k++) {
            if (!(r->present & (1u << k))) continue;
            double v[2] = {r->v[k], whole ? r->v[k] / total * 100.0 : 0};
            if (cube_builder_add(b, m, t[k], r->step, r->rank, v, whole ? 3u : 1u) != 0)
                rc = pt_errorf(err, "out of memory");
        }
    }
    if (rc == 0) rc = cube_builder_finish(b, &ds->cube, err);
    cube_builder_free(b);   /* it owns nm, also when it could not be made */
    return rc;
}

/* "no usable row" with the first note, which says why. */
static int no_rows(const char *path, const char *what, struct dataset *ds, struct pt_error *err) {
    return pt_errorf(err, "%s: no usable row in %s%s%s%s", path, what, ds->nwarnings ? " (first note: " : "",
                     ds->nwarnings ? ds->warnings[0] : "", ds->nwarnings ? ")" : "");
}

static int load_step(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct steptrace_srcs s = {0};
    struct steptrace_rows rows = {0};
    ds->micro_step = 0;   /* a step table has no micro steps */
    int rc = find_sources(path, &s, err);
    if (rc == 0 && assign_ranks(path, &s, ds) != 0) rc = pt_errorf(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < s.n; i++) {
        if (o->cancel && *o->cancel) rc = pt_errorf(err, "cancelled");
        else if (read_one(s.v[i].csv, 0, (int32_t)s.v[i].rank, ds, &rows) != 0) rc = pt_errorf(err, "out of memory");
    }
    if (rc == 0 && rows.n == 0) rc = no_rows(path, "any " STEPTRACE_FILE, ds, err);
    if (rc == 0) rc = fill_cube(&rows, ds, err);
    steptrace_rows_free(&rows);
    srcs_free(&s);
    return rc;
}

/* The cluster file path stands for: itself, or the one in the folder (or
 * in its cluster_analysis_output/), into out.  1 found, 0 not. */
static int cluster_file(const char *path, char *out, size_t n) {
    if (fs_is_file(path)) {
        snprintf(out, n, "%s", path);
        return 1;
    }
    snprintf(out, n, "%s/%s", path, STEPTRACE_CLUSTER_FILE);
    if (fs_is_file(out)) return 1;
    snprintf(out, n, "%s/%s/%s", path, STEPTRACE_CLUSTER_DIR, STEPTRACE_CLUSTER_FILE);
    return fs_is_file(out);
}

static int load_cluster(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    if (o->cancel && *o->cancel) return pt_errorf(err, "cancelled");
    char csv[4096];
    struct steptrace_rows rows = {0};
    ds->micro_step = 0;
    if (!cluster_file(path, csv, sizeof csv))
        return pt_errorf(err, "%s: no %s here, nor in %s/", path, STEPTRACE_CLUSTER_FILE, STEPTRACE_CLUSTER_DIR);
    if (strcmp(csv, path) && !(ds->source = strdup(csv))) return pt_errorf(err, "out of memory");
    int rc = read_one(csv, 1, 0, ds, &rows) != 0 ? pt_errorf(err, "out of memory") : 0;
    if (rc == 0 && rows.n == 0) rc = no_rows(csv, "it (rank rows: Type rank, Index the rank)", ds, err);
    if (rc == 0) rc = fill_cube(&rows, ds, err);
    steptrace_rows_free(&rows);
    return rc;
}

/* Folders score 90, not 100: a profiling folder that also holds a
 * profiler trace (trace_view.json) is better read as that timeline. */
static int detect_step(const char *path, const struct stat *st) {
    char csv[4096];
    if (S_ISREG(st->st_mode)) return !strcmp(base_name(path), STEPTRACE_FILE) ? 100 : 0;
    snprintf(csv, sizeof csv, "%s/%s", path, STEPTRACE_FILE);
    if (fs_is_file(csv) || has_output(path, csv, sizeof csv)) return 90;
    size_t n;
    char **names = fs_list_dir(path, 0, &n);
    int found = 0;
    for (size_t i = 0; names && i < n && !found; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", path, names[i]);
        found = fs_is_dir(dir) && has_output(dir, csv, sizeof csv);
    }
    if (names) fs_free_list(names, n);
    return found ? 90 : 0;
}

/* A collection root holding both the profiling folders and msprof-analyze's
 * output opens as the per-rank files (the source; --format ascend_cluster
 * picks the cluster file). */
static int detect_cluster(const char *path, const struct stat *st) {
    char csv[4096];
    if (S_ISREG(st->st_mode)) return !strcmp(base_name(path), STEPTRACE_CLUSTER_FILE) ? 100 : 0;
    snprintf(csv, sizeof csv, "%s/%s", path, STEPTRACE_CLUSTER_FILE);
    if (fs_is_file(csv)) return 100;
    snprintf(csv, sizeof csv, "%s/%s/%s", path, STEPTRACE_CLUSTER_DIR, STEPTRACE_CLUSTER_FILE);
    return fs_is_file(csv) ? 80 : 0;
}

const struct formats_row formats_row_ascend_step = {
    .name = "ascend_step",
    .what = "torch_npu profile (ASCEND_PROFILER_OUTPUT/step_trace_time.csv)",
    .detect = detect_step,
    .load = load_step,
    .labels = LABELS_MONITOR,
};

const struct formats_row formats_row_ascend_cluster = {
    .name = "ascend_cluster",
    .what = "msprof-analyze cluster_step_trace_time.csv",
    .detect = detect_cluster,
    .load = load_cluster,
    .labels = LABELS_MONITOR,
};
