/* read_curve_table: a training run's curves exported as a table
 * (probetop-formats(5), TRAINING CURVES: CSV and JSONL exports): a CSV
 * file with a step column and one column per series (TensorBoard's own
 * CSV download, "Wall time,Step,Value", is one series named after the
 * file), or JSON Lines, one object per logged step with a step key and a
 * key per series.  Fills ds->curves and lays it out as the cube
 * (model/curves/curves_cube.h).  Bad rows are warnings naming file and
 * line; a file with no step column, or no row read, an error. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/curves/curves.h"
#include "model/curves/curves_cube.h"
#include "model/util/util.h"
#include "src/io/common/decfloat.h"
#include "src/io/common/json.h"
#include "src/io/curves/read_curve_table.h"
#include "src/io/formats.h"
#include "src/io/load.h"

#define CT_MAX_BYTES ((size_t)8 << 30)
#define CT_HEAD 4096
#define CT_MAX_COLS 4096
#define CT_WARN_MAX 20   /* bad rows warned of one by one; the rest counted */

/* ---- names ---- */

static int ieq(const char *a, size_t n, const char *b) { return strlen(b) == n && !strncasecmp(a, b, n); }

static int is_step_name(const char *s, size_t n) {
    return ieq(s, n, "step") || ieq(s, n, "steps") || ieq(s, n, "iteration") || ieq(s, n, "iter") ||
           ieq(s, n, "global_step") || ieq(s, n, "_step") || ieq(s, n, "train/global_step");
}

/* Columns that are no series: clocks. */
static int is_time_name(const char *s, size_t n) {
    return ieq(s, n, "wall time") || ieq(s, n, "wall_time") || ieq(s, n, "walltime") || ieq(s, n, "timestamp") ||
           ieq(s, n, "_timestamp") || ieq(s, n, "_runtime") || ieq(s, n, "time");
}

static const char *base_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int is_jsonl_name(const char *b) { return util_ends_with(b, ".jsonl") || util_ends_with(b, ".ndjson"); }

/* ---- CSV cells ---- */

/* The next cell of line [*p, end) into out (quotes undone, spaces around
 * trimmed), *p past its comma; 0 at the end of the line. */
static int next_cell(const char **p, const char *end, char *out, size_t size, int *more) {
    const char *s = *p;
    size_t n = 0;
    if (!*more) return 0;
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    if (s < end && *s == '"') {
        for (s++; s < end; s++) {
            if (*s == '"' && s + 1 < end && s[1] == '"') s++;
            else if (*s == '"') { s++; break; }
            if (n + 1 < size) out[n++] = *s;
        }
        while (s < end && *s != ',') s++;
    } else {
        while (s < end && *s != ',') {
            if (n + 1 < size) out[n++] = *s;
            s++;
        }
        while (n && (out[n - 1] == ' ' || out[n - 1] == '\t' || out[n - 1] == '\r')) n--;
    }
    out[n] = '\0';
    *more = s < end;   /* a comma: one more cell, empty or not */
    *p = s < end ? s + 1 : s;
    return 1;
}

/* A cell as a value: a number, or nan / inf / -inf / infinity in any case
 * (kept: they are findings).  1 a value, 0 empty (no point), -1 not a number. */
static int cell_value(const char *c, double *v) {
    if (!*c) return 0;
    char *e;
    errno = 0;
    *v = strtod(c, &e);
    if (e == c) return -1;
    while (*e == ' ' || *e == '\t') e++;
    return *e ? -1 : 1;
}

static int cell_step(const char *c, int64_t *step) {
    double v;
    if (cell_value(c, &v) != 1 || !isfinite(v) || v != floor(v) || fabs(v) > 9e15) return -1;
    *step = (int64_t)v;
    return 0;
}

/* ---- detection ---- */

/* The first line's cells: the step column's index, or -1. */
static int header_step_col(const char *line, const char *end, int *ncols) {
    char cell[256];
    int more = 1, k = 0, step = -1;
    for (const char *p = line; next_cell(&p, end, cell, sizeof cell, &more); k++)
        if (step < 0 && is_step_name(cell, strlen(cell))) step = k;
    *ncols = k;
    return step;
}

/* A CSV head: a header with a step column, and a first row of numbers
 * (empty cells and clock columns aside).  A monitor CSV (names in its
 * rows) or msProbe's compare table (no step column) is not one. */
static int csv_head_ok(const char *buf, size_t n) {
    const char *end = memchr(buf, '\n', n);
    if (!end) return 0;
    int ncols, sc = header_step_col(buf, end, &ncols);
    if (sc < 0 || ncols < 2) return 0;
    const char *row = end + 1, *rend = memchr(row, '\n', n - (size_t)(row - buf));
    if (!rend) rend = buf + n;
    if (row >= rend) return 0;
    char cell[256], hcell[256];
    int more = 1, hmore = 1, k = 0, numbers = 0;
    const char *h = buf;
    for (const char *p = row; next_cell(&p, rend, cell, sizeof cell, &more); k++) {
        if (!next_cell(&h, end, hcell, sizeof hcell, &hmore)) return 0;
        double v;
        if (is_time_name(hcell, strlen(hcell))) continue;
        int r = cell_value(cell, &v);
        if (r < 0) return 0;
        numbers += r;
    }
    return k == ncols && numbers >= 2;
}

/* A JSONL head: the first line an object with a numeric step key. */
static int jsonl_head_ok(const char *buf, size_t n, const char *path) {
    const char *end = memchr(buf, '\n', n);
    size_t len = end ? (size_t)(end - buf) : n;
    const char *s = buf;
    while (len && isspace((unsigned char)*s)) s++, len--;
    if (!len || *s != '{') return 0;
    cJSON *o = NULL;
    struct pt_error e;
    if (json_tree_parse(s, len, path, &o, &e) != 0) return 0;
    int ok = 0;
    for (cJSON *it = o ? o->child : NULL; it && !ok; it = it->next) {
        double v;
        ok = it->string && is_step_name(it->string, strlen(it->string)) && json_number(it, &v) && isfinite(v);
    }
    cJSON_Delete(o);
    return ok;
}

static int detect_curve_table(const char *path, const struct stat *st) {
    if (!S_ISREG(st->st_mode)) return 0;
    const char *b = base_of(path);
    int csv = util_ends_with(b, ".csv"), jsonl = is_jsonl_name(b) || util_ends_with(b, ".json");
    if (!csv && !jsonl) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char buf[CT_HEAD + 1];
    size_t n = fread(buf, 1, CT_HEAD, f);
    fclose(f);
    buf[n] = '\0';
    if (csv) return csv_head_ok(buf, n) ? 60 : 0;
    return jsonl_head_ok(buf, n, path) ? (is_jsonl_name(b) ? 100 : 60) : 0;
}

/* ---- loading ---- */

struct ct {
    const char *path;
    struct dataset *ds;
    struct curves *c;
    size_t bad;       /* rows not read */
    size_t points;
    char first_bad[700];   /* the first bad row's message, for the error when nothing was read */
};

static int bad_row(struct ct *t, size_t line, const char *fmt, const char *a, const char *b) {
    if (++t->bad > CT_WARN_MAX) return 0;
    char msg[600];
    snprintf(msg, sizeof msg, fmt, a, b);
    if (t->bad == 1) snprintf(t->first_bad, sizeof t->first_bad, "; line %zu: %s", line, msg);
    return dataset_warn(t->ds, "%s:%zu: %s", t->path, line, msg);
}

static int cancelled(const struct load_opts *o) { return o->cancel && atomic_load(o->cancel); }

/* The series of the CSV's columns, as indexes into t->c->series (-1 for
 * the step and clock columns): a pointer would not survive the array
 * growing for the next column.  TensorBoard's "Wall time,Step,Value": the
 * series takes the file's name. */
static int csv_columns(struct ct *t, const char *line, const char *end, long *cols, int *ncols,
                       int *step_col, struct pt_error *err) {
    char cell[512];
    int more = 1, k = 0, values = 0;
    *step_col = header_step_col(line, end, ncols);
    if (*step_col < 0)
        return pt_errorf(err, "%s:1: no step column (a CSV of curves has a column step, iteration or global_step)",
                         t->path);
    if (*ncols > CT_MAX_COLS) return pt_errorf(err, "%s:1: %d columns, more than %d", t->path, *ncols, CT_MAX_COLS);
    for (const char *p = line; next_cell(&p, end, cell, sizeof cell, &more); k++)
        values += k != *step_col && !is_time_name(cell, strlen(cell)) && !!strcasecmp(cell, "value");
    more = 1, k = 0;
    for (const char *p = line; next_cell(&p, end, cell, sizeof cell, &more); k++) {
        cols[k] = -1;
        if (k == *step_col || is_time_name(cell, strlen(cell))) continue;
        char name[512];
        snprintf(name, sizeof name, "%s", cell);
        if (!strcasecmp(cell, "value") && !values) {   /* TensorBoard's download: the file names it */
            snprintf(name, sizeof name, "%s", base_of(t->path));
            name[strlen(name) - 4] = '\0';   /* ".csv" */
        }
        if (!name[0]) snprintf(name, sizeof name, "column %d", k + 1);
        const struct curves_series *sr = curves_series(t->c, name);
        if (!sr) return pt_errorf(err, "out of memory");
        cols[k] = (long)(sr - t->c->series);
    }
    return 0;
}

static int csv_row(struct ct *t, const char *line, const char *end, size_t lineno, const long *cols,
                   int ncols, int step_col) {
    char cell[256];
    int more = 1, k = 0;
    for (const char *p = line; next_cell(&p, end, cell, sizeof cell, &more);) k++;
    if (k != ncols) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%d", k);
        snprintf(b, sizeof b, "%d", ncols);
        return bad_row(t, lineno, "%s fields, the header has %s: row left out", a, b);
    }
    more = 1, k = 0;
    int64_t step = 0;
    for (const char *p = line; next_cell(&p, end, cell, sizeof cell, &more); k++)
        if (k == step_col && cell_step(cell, &step) != 0)
            return bad_row(t, lineno, "step '%s' is no whole number: row left out%s", cell, "");
    more = 1, k = 0;
    for (const char *p = line; next_cell(&p, end, cell, sizeof cell, &more); k++) {
        double v;
        if (cols[k] < 0) continue;
        struct curves_series *sr = &t->c->series[cols[k]];
        int r = cell_value(cell, &v);
        if (r < 0) {
            if (bad_row(t, lineno, "'%s' in column %s is no number: left out", cell, sr->name) != 0) return -1;
            continue;
        }
        if (r == 1) {
            if (curves_push(sr, step, v) != 0) return -1;
            t->points++;
        }
    }
    return 0;
}

/* ---- the fast path: rows without quotes, read in one pass ---- */

/* A cell [p, e) as a value, blanks around it aside: 1 a value, 0 empty,
 * -1 not a number this path reads (the slow path then says what it is). */
static int fast_value(const char *p, const char *e, double *v) {
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    if (p == e) return 0;
    return decfloat_parse(p, e, v) == e ? 1 : -1;
}

/* The step cell: plain digits at once, else a whole number in any notation. */
static int fast_step(const char *p, const char *e, int64_t *step) {
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    if (p < e && e - p <= 15) {
        int64_t n = 0;
        const char *q = p;
        while (q < e && *q >= '0' && *q <= '9') n = n * 10 + (*q++ - '0');
        if (q == e) { *step = n; return 0; }
    }
    double v;
    if (p == e || decfloat_parse(p, e, &v) != e || !isfinite(v) || v != floor(v) || fabs(v) > 9e15) return -1;
    *step = (int64_t)v;
    return 0;
}

/* A row of unquoted cells in one pass: 1 read (its points pushed), 0 when
 * it needs the slow path (quotes, another count of cells, a step or cell
 * that does not read: csv_row words it), -1 without memory.  vals, got:
 * room for ncols. */
static int csv_row_fast(struct ct *t, const char *line, const char *end, const long *cols, int ncols, int step_col,
                        double *vals, signed char *got) {
    if (memchr(line, '"', (size_t)(end - line))) return 0;
    int64_t step = 0;
    int k = 0;
    for (const char *p = line;; k++) {
        const char *c = memchr(p, ',', (size_t)(end - p)), *ce = c ? c : end;
        if (k >= ncols) return 0;
        if (k == step_col) {
            if (fast_step(p, ce, &step) != 0) return 0;
        } else if (cols[k] >= 0 && (got[k] = (signed char)fast_value(p, ce, &vals[k])) < 0) {
            return 0;
        }
        if (!c) break;
        p = c + 1;
    }
    if (k + 1 != ncols) return 0;
    for (k = 0; k < ncols; k++) {
        if (k == step_col || cols[k] < 0 || !got[k]) continue;
        struct curves_series *sr = &t->c->series[cols[k]];
        if (sr->n < sr->cap) sr->pts[sr->n++] = (struct curves_point){step, vals[k]};   /* the room load_csv made */
        else if (curves_push(sr, step, vals[k]) != 0) return -1;
        t->points++;
    }
    return 1;
}

/* The rows of [p, end), the first one line lineno: one pass each
 * (csv_row_fast), the slow path for the rest, or (fast_only: a second
 * thread's half) stopping at the first row that needs it (*stop, else
 * end).  *lines: the lines gone through.  0, or -1 (err). */
struct ct_rows {
    struct ct *t;
    const char *p, *end, *stop;
    size_t lineno, lines;
    const long *cols;
    int ncols, step_col, fast_only, rc;
    double *vals;
    signed char *got;
    const struct load_opts *o;
    struct pt_error err;
};

static int csv_rows(struct ct_rows *r) {
    const char *p = r->p;
    size_t lineno = r->lineno;
    r->stop = r->end;
    r->rc = 0;
    for (; p < r->end; lineno++) {
        const char *e = memchr(p, '\n', (size_t)(r->end - p));
        if (!e) e = r->end;
        int fast = 1;
        if ((lineno & 0xffff) == 0 && cancelled(r->o)) { r->rc = pt_errorf(&r->err, "cancelled"); break; }
        if (e > p && !(e - p == 1 && *p == '\r')) {
            fast = csv_row_fast(r->t, p, e, r->cols, r->ncols, r->step_col, r->vals, r->got);
            if (!fast && r->fast_only) { r->stop = p; break; }
            if (fast < 0 || (!fast && csv_row(r->t, p, e, lineno + 1, r->cols, r->ncols, r->step_col) != 0)) {
                r->rc = pt_errorf(&r->err, "out of memory");
                break;
            }
        }
        p = e + 1;
    }
    r->lines = lineno - r->lineno;
    return r->rc;
}

static void *csv_rows_thread(void *arg) {
    csv_rows(arg);
    return NULL;
}

#define CT_SPLIT_BYTES ((size_t)4 << 20)   /* a bigger table is read by two threads */

static int make_room_one(struct curves_series *sr, size_t n) {
    if (n <= sr->cap) return 0;
    struct curves_point *np = realloc(sr->pts, n * sizeof *np);
    if (!np) return -1;
    sr->pts = np;
    sr->cap = n;
    return 0;
}

/* Room for rows points in each series of c (no growth, no copy). */
static int make_room(struct curves *c, size_t rows) {
    for (size_t i = 0; i < c->nseries; i++)
        if (make_room_one(&c->series[i], rows) != 0) return -1;
    return 0;
}

static int load_csv(struct ct *t, const char *buf, size_t len, const struct load_opts *o, struct pt_error *err) {
    const char *end = memchr(buf, '\n', len);
    if (!end) end = buf + len;
    int ncols, step_col;
    int ncols_max = 1;
    for (const char *p = buf; p < end; p++) ncols_max += *p == ',';
    if (ncols_max > CT_MAX_COLS) ncols_max = CT_MAX_COLS + 1;
    size_t nc = (size_t)ncols_max + 1;
    long *cols = calloc(nc, sizeof *cols);
    double *vals = malloc(2 * nc * sizeof *vals);
    signed char *got = malloc(2 * nc);
    struct ct t2 = {.path = t->path, .ds = t->ds, .c = NULL};
    if (!cols || !vals || !got) { free(cols); free(vals); free(got); return pt_errorf(err, "out of memory"); }
    int rc = csv_columns(t, buf, end, cols, &ncols, &step_col, err);
    const char *body = end < buf + len ? end + 1 : end, *stop = buf + len;
    /* a big table: the second half read by a second thread, into series of
     * its own appended after the first half's (so the order of the rows stays) */
    const char *mid = NULL;
    if (rc == 0 && len - (size_t)(body - buf) >= CT_SPLIT_BYTES && util_ncores(2) > 1) {
        mid = memchr(body + (len - (size_t)(body - buf)) / 2, '\n', (size_t)(buf + len - body) / 2);
        if (mid) mid++;
        if (mid && !(t2.c = curves_new())) rc = pt_errorf(err, "out of memory");
        for (size_t i = 0; rc == 0 && t2.c && i < t->c->nseries; i++)
            if (!curves_series(t2.c, t->c->series[i].name)) rc = pt_errorf(err, "out of memory");
    }
    /* a point a row in each series: their room made once */
    size_t rows1 = 0, rows2 = 0;
    for (const char *p = end; p && p < buf + len; p = memchr(p + 1, '\n', (size_t)(buf + len - p - 1))) {
        if (mid && p >= mid) rows2++;
        else rows1++;
    }
    if (rc == 0 && (make_room(t->c, rows1 + (mid ? 0 : rows2)) != 0 || (t2.c && make_room(t2.c, rows2 + 1) != 0)))
        rc = pt_errorf(err, "out of memory");
    struct ct_rows r1 = {.t = t, .p = body, .end = mid && t2.c ? mid : buf + len, .lineno = 1, .cols = cols, .ncols = ncols,
                         .step_col = step_col, .vals = vals, .got = got, .o = o};
    struct ct_rows r2 = {.t = &t2, .p = mid, .end = buf + len, .cols = cols, .ncols = ncols, .step_col = step_col,
                         .fast_only = 1, .vals = vals + nc, .got = got + nc, .o = o};
    pthread_t th;
    int threaded = rc == 0 && t2.c && pthread_create(&th, NULL, csv_rows_thread, &r2) == 0;
    if (rc == 0 && t2.c && !threaded) r1.end = buf + len;   /* no thread: all here */
    if (rc == 0 && csv_rows(&r1) != 0) { *err = r1.err; rc = -1; }
    if (threaded) {
        pthread_join(th, NULL);
        if (rc == 0 && r2.rc != 0) { *err = r2.err; rc = -1; }
        /* the second half's points after the first's, then the rows it left
         * (the first that needs the slow path on) read here */
        for (size_t i = 0; rc == 0 && i < t->c->nseries; i++) {
            struct curves_series *a = &t->c->series[i], *b = &t2.c->series[i];
            if (!b->n) continue;
            if (make_room_one(a, a->n + b->n) != 0) { rc = pt_errorf(err, "out of memory"); break; }
            memcpy(a->pts + a->n, b->pts, b->n * sizeof *b->pts);
            a->n += b->n;
        }
        t->points += t2.points;
        stop = r2.stop;
        if (rc == 0 && stop < buf + len) {
            struct ct_rows r3 = r1;
            r3.p = stop;
            r3.end = buf + len;
            r3.lineno = r1.lineno + r1.lines + r2.lines;
            if (csv_rows(&r3) != 0) { *err = r3.err; rc = -1; }
        }
    }
    curves_free(t2.c);
    free(cols);
    free(vals);
    free(got);
    return rc;
}

static int jsonl_line(struct ct *t, const char *s, size_t n, size_t lineno) {
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    if (!n) return 0;
    char what[600];
    snprintf(what, sizeof what, "%s:%zu", t->path, lineno);
    cJSON *obj = NULL;
    struct pt_error e;
    if (json_tree_parse(s, n, what, &obj, &e) != 0 || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        return bad_row(t, lineno, "not a JSON object%s%s: line left out", "", "");
    }
    int64_t step = 0;
    int have = 0;
    for (cJSON *it = obj->child; it && !have; it = it->next) {
        double v;
        if (it->string && is_step_name(it->string, strlen(it->string)) && json_number(it, &v) && isfinite(v) &&
            v == floor(v) && fabs(v) <= 9e15)
            step = (int64_t)v, have = 1;
    }
    int rc = 0;
    if (!have) rc = bad_row(t, lineno, "no step key (step, iteration or global_step)%s%s: line left out", "", "");
    for (cJSON *it = obj->child; have && it && rc == 0; it = it->next) {
        double v;
        if (!it->string || is_step_name(it->string, strlen(it->string)) ||
            is_time_name(it->string, strlen(it->string)) || cJSON_IsBool(it) || !json_number(it, &v))
            continue;
        struct curves_series *sr = curves_series(t->c, it->string);
        if (!sr || curves_push(sr, step, v) != 0) rc = -1;
        t->points++;
    }
    cJSON_Delete(obj);
    return rc;
}

static int load_jsonl(struct ct *t, const char *buf, size_t len, const struct load_opts *o, struct pt_error *err) {
    size_t lineno = 1;
    for (const char *p = buf; p < buf + len; lineno++) {
        const char *e = memchr(p, '\n', (size_t)(buf + len - p));
        if (!e) e = buf + len;
        if ((lineno & 0xffff) == 0 && cancelled(o)) return pt_errorf(err, "cancelled");
        if (jsonl_line(t, p, (size_t)(e - p), lineno) != 0) return pt_errorf(err, "out of memory");
        p = e + 1;
    }
    return 0;
}

static int finish(struct ct *t, const char *buf, size_t len, struct pt_error *err) {
    struct dataset *ds = t->ds;
    if (t->bad > CT_WARN_MAX && dataset_warn(ds, "%s: %zu more rows left out", t->path, t->bad - CT_WARN_MAX))
        return pt_errorf(err, "out of memory");
    if (len && buf[len - 1] != '\n') {
        size_t lines = 1;
        for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
        if (dataset_warn(ds, "%s:%zu: the last line has no end of line: the file may be cut short", t->path, lines))
            return pt_errorf(err, "out of memory");
    }
    if (!t->points)
        return pt_errorf(err, "%s: no value read (a step column or key and one per series expected)%s", t->path,
                         t->first_bad);
    if (curves_finish(t->c) != 0) return pt_errorf(err, "out of memory");
    size_t dropped = 0;
    if (curves_cube_build(t->c, &ds->cube, &dropped, err) != 0) return -1;
    if (dropped && dataset_warn(ds, "%s: %zu points are in the curves, not the cube (steps below 0 or over "
                                "2^31, or between the 1000000 steps the cube keeps)",
                                t->path, dropped))
        return pt_errorf(err, "out of memory");
    return 0;
}

int curve_table_parse(const char *buf, size_t len, const char *path, const struct load_opts *o, struct dataset *ds,
                      struct pt_error *err) {
    struct ct t = {.path = path, .ds = ds, .c = curves_new()};
    int rc;
    if (!t.c) rc = pt_errorf(err, "out of memory");
    else if (!len) rc = pt_errorf(err, "%s: empty file", path);
    else {
        const char *s = buf;
        while (s < buf + len && isspace((unsigned char)*s)) s++;
        int jsonl = s < buf + len && *s == '{';
        rc = jsonl ? load_jsonl(&t, buf, len, o, err) : load_csv(&t, buf, len, o, err);
        if (rc == 0) rc = finish(&t, buf, len, err);
    }
    if (rc != 0) {
        curves_free(t.c);
        return -1;
    }
    curves_free(ds->curves);
    ds->curves = t.c;
    return 0;
}

/* The file mapped (no copy of a 1 GB export): the bytes after its end up
 * to the page's end read as zeros, so the parse meets a '\0' there as in
 * a buffer read; a size that fills its last page, an empty or a too big
 * file is left to json_read_file.  The mapping, or NULL. */
static char *map_table(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    long page = sysconf(_SC_PAGESIZE);
    void *m = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= CT_MAX_BYTES &&
        page > 0 && st.st_size % page != 0) {
        m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (m != MAP_FAILED) {
            madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
            *len = (size_t)st.st_size;
        }
    }
    close(fd);
    return m == MAP_FAILED ? NULL : m;
}

static int load_curve_table(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    if (cancelled(o)) return pt_errorf(err, "cancelled");
    char *buf = NULL;
    size_t len = 0;
    char *mapped = map_table(path, &len);
    if (mapped) buf = mapped;
    else if (json_read_file(path, CT_MAX_BYTES, &buf, &len, err) != 0) return -1;
    ds->files_read = 1;
    ds->bytes_read += len;
    ds->micro_step = 0;   /* training steps, no micro steps */
    int rc = curve_table_parse(buf, len, path, o, ds, err);
    if (mapped) munmap(mapped, len);
    else free(buf);
    return rc;
}

const struct formats_row formats_row_curve_table = {
    .name = "curve_table",
    .what = "table of training curves (CSV or JSONL with a step column)",
    .detect = detect_curve_table,
    .load = load_curve_table,
    .labels = LABELS_MONITOR,
};
