/* read_log: text training logs (probetop-formats(5), TRAINING CURVES,
 * Text training logs) -- Megatron-LM, MindSpeed, MindFormers, verl, and
 * what the user's patterns (--pattern NAME=REGEX, the patterns file)
 * take -- into the run's curves (ds->curves) and their cube.
 *
 * The file is read in chunks of whole lines (a 1 GB log is never in
 * memory at once) by log_parse.c.  A last line without its line end is
 * pending in follow mode while the file is young (its writer is at
 * work), else a cut end: warned of, left out, the file partial.  In
 * follow mode (load_opts.curves_cache) a reload parses only the lines
 * appended since the last one (curves_cache.h): the parser, its counts and
 * the points are kept, the offset of the last whole line too. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/curves/curves.h"
#include "model/curves/curves_cube.h"
#include "src/io/common/reader.h"
#include "src/io/curves/curves_cache.h"
#include "src/io/curves/log_parse.h"
#include "src/io/formats.h"
#include "src/io/load.h"

#define LOG_HEAD 65536            /* detection reads this much of the file */
#define LOG_CHUNK (8u << 20)      /* and a load this much at a time */
#define LOG_MAX_LINE (1u << 20)   /* a longer "line" is cut into pieces of this size */

/* ---- the patterns file ---- */

/* $XDG_CONFIG_HOME/probetop/patterns, else ~/.config/probetop/patterns
 * (probetop-formats(5)); $PROBETOP_PATTERNS names another file (tests,
 * or "" for none).  0 when there is none to read. */
static int patterns_path(char *out, size_t size) {
    const char *env = getenv("PROBETOP_PATTERNS");
    if (env) return *env && snprintf(out, size, "%s", env) < (int)size;
    const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;
    if (x && *x) n = snprintf(out, size, "%s/probetop/patterns", x);
    else if (home && *home) n = snprintf(out, size, "%s/.config/probetop/patterns", home);
    else return 0;
    return n > 0 && (size_t)n < size;
}

/* Adds the patterns file's NAME=REGEX lines ('#' comments and blank lines
 * left out) as weak patterns.  An absent file is none; strict: a bad line
 * is an error naming the file and line, else it is left out. */
static int read_patterns_file(struct log_parse *lp, int strict, struct pt_error *err) {
    char path[4096];
    if (!patterns_path(path, sizeof path)) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[8192];
    int rc = 0;
    for (unsigned no = 1; rc == 0 && fgets(line, sizeof line, f); no++) {
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        const char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        char origin[4200];
        snprintf(origin, sizeof origin, "%s:%u", path, no);
        struct pt_error e;
        if (log_parse_add_user(lp, s, origin, 1, &e) != 0 && strict) rc = pt_errorf(err, "%s", e.msg);
    }
    fclose(f);
    return rc;
}

/* The parser with the built-in patterns, the command line's, then the
 * patterns file's (o NULL: detection, where a bad pattern is left out). */
static struct log_parse *make_parser(const struct load_opts *o, struct pt_error *err) {
    struct log_parse *lp = log_parse_new(err);
    if (!lp) return NULL;
    for (int i = 0; o && i < o->npatterns; i++)
        if (log_parse_add_user(lp, o->patterns[i], "--pattern", 0, err) != 0) { log_parse_free(lp); return NULL; }
    if (read_patterns_file(lp, o != NULL, err) != 0) { log_parse_free(lp); return NULL; }
    return lp;
}

/* ---- detection ---- */

static int detect_log(const char *path, const struct stat *st) {
    if (!S_ISREG(st->st_mode) || st->st_size == 0) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char *buf = malloc(LOG_HEAD);
    ssize_t n = buf ? read(fd, buf, LOG_HEAD) : -1;
    close(fd);
    if (n <= 0 || memchr(buf, '\0', (size_t)n)) { free(buf); return 0; }   /* binary: an event file, a database */
    size_t len = (size_t)n;
    if ((off_t)len == st->st_size && buf[len - 1] != '\n' && len < LOG_HEAD) {
        /* a small file whose last line has no line end: that line counts too */
        char *b2 = realloc(buf, len + 1);
        if (!b2) { free(buf); return 0; }
        buf = b2;
        buf[len++] = '\n';
    }
    struct log_parse *lp = make_parser(NULL, NULL);
    size_t lines = 0, matched = lp ? log_parse_count(lp, buf, len, &lines) : 0;
    log_parse_free(lp);
    free(buf);
    /* some lines of a known shape: two, or the only one there is */
    return matched >= 2 || (matched == 1 && lines == 1) ? 90 : 0;
}

/* ---- load ---- */

static int cancelled(const struct load_opts *o) { return o->cancel && atomic_load(o->cancel); }

/* The state follow mode keeps of a log between loads (curves_cache). */
struct log_state {
    struct log_parse *lp;
    struct log_parse_stats st;
};

static void log_state_free(void *p) {
    struct log_state *s = p;
    if (s) log_parse_free(s->lp);
    free(s);
}

/* The file's lines through lp into c; the cut or pending end dealt with.
 * cf (follow mode): the lines from cf->off on, which is moved past the
 * last whole line read; *restart when the file is no longer what was read
 * up to cf->off (the caller starts afresh). */
static int read_lines(const char *path, const struct load_opts *o, struct dataset *ds, struct log_parse *lp,
                      struct curves *c, struct log_parse_stats *st, struct curves_cache_file *cf, int *restart,
                      struct pt_error *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pt_errorf(err, "%s: %s", path, strerror(errno));
    struct stat sb;
    int sb_ok = fstat(fd, &sb) == 0;
    uint64_t total = sb_ok ? (uint64_t)sb.st_size : 0, done = 0, start = 0;
    if (cf) {
        if (!sb_ok || !curves_cache_file_same(cf, fd, &sb)) {
            close(fd);
            *restart = 1;
            return 0;
        }
        start = cf->off;
        if (start && lseek(fd, (off_t)start, SEEK_SET) != (off_t)start) {
            close(fd);
            return pt_errorf(err, "%s: byte %llu: %s", path, (unsigned long long)start, strerror(errno));
        }
        total = total > start ? total - start : 0;
    }
    char *buf = malloc(LOG_CHUNK);
    if (!buf) { close(fd); return pt_errorf(err, "out of memory"); }
    size_t have = 0;   /* bytes of a line carried over from the previous chunk */
    int rc = 0;
    for (;;) {
        if (cancelled(o)) { rc = pt_errorf(err, "cancelled"); break; }
        ssize_t n = read(fd, buf + have, LOG_CHUNK - have);
        if (n < 0) {
            if (errno == EINTR) continue;
            rc = pt_errorf(err, "%s: byte %llu: %s", path, (unsigned long long)done, strerror(errno));
            break;
        }
        if (n == 0) break;
        have += (size_t)n;
        done += (uint64_t)n;
        /* the whole lines; a chunk without any line end is one overlong line, cut */
        size_t whole = have;
        while (whole && buf[whole - 1] != '\n') whole--;
        if (!whole && have == LOG_CHUNK) whole = LOG_MAX_LINE;
        if (whole && log_parse_lines(lp, buf, whole, c, st) != 0) { rc = pt_errorf(err, "out of memory"); break; }
        memmove(buf, buf + whole, have - whole);
        have -= whole;
        if (o->progress) o->progress(o->progress_ctx, 0, 1, done, total > done ? total : done);
    }
    if (rc == 0 && cf && sb_ok) curves_cache_file_mark(cf, fd, &sb, start + done - have);
    close(fd);
    ds->bytes_read += done;
    if (rc == 0 && have) {
        uint64_t line = st->lines + 1;
        if (reader_young(ds, path)) {
            /* follow mode: its writer is at work; the line is read at the next change */
            if (dataset_pending(ds, path, "last line without its line end (being written?)") != 0) rc = pt_errorf(err, "out of memory");
        } else if (dataset_warn(ds, "%s: line %llu: the last line has no line end (the file was cut short); it is left out",
                                path, (unsigned long long)line) != 0 ||
                   dataset_partial(ds, path) != 0) {
            rc = pt_errorf(err, "out of memory");
        }
    }
    free(buf);
    return rc;
}

/* The log's lines into e (follow mode): those appended since the last
 * load, or all when the file is another one now; 0 or -1 (e reset). */
static int read_cached(const char *path, const struct load_opts *o, struct dataset *ds, struct curves_cache_entry *e,
                       struct pt_error *err) {
    for (int round = 0; round < 2; round++) {
        if (!e->state) {
            curves_cache_reset(e);
            struct log_state *s = calloc(1, sizeof *s);
            if (!s || !(e->c = curves_new())) { free(s); return pt_errorf(err, "out of memory"); }
            e->state = s;
            e->state_free = log_state_free;
            if (!(s->lp = make_parser(o, err))) { curves_cache_reset(e); return -1; }
        }
        struct log_state *s = e->state;
        struct curves_cache_file *cf = curves_cache_file(e, path);
        int restart = 0;
        if (!cf) { curves_cache_reset(e); return pt_errorf(err, "out of memory"); }
        if (read_lines(path, o, ds, s->lp, e->c, &s->st, cf, &restart, err) != 0) { curves_cache_reset(e); return -1; }
        if (!restart) return 0;
        curves_cache_reset(e);   /* truncated or replaced: from its start */
    }
    return pt_errorf(err, "%s: changed while it was read", path);
}

static int load_log(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    if (cancelled(o)) return pt_errorf(err, "cancelled");
    struct curves_cache_entry *e = o->follow && o->curves_cache ? curves_cache_get(o->curves_cache, path) : NULL;
    if (o->follow && o->curves_cache && !e) return pt_errorf(err, "out of memory");
    struct log_parse *lp = NULL;
    struct curves *c = NULL;
    struct log_parse_stats st0, *pst = &st0;
    memset(&st0, 0, sizeof st0);
    int rc = 0;
    if (e) {
        /* the points so far stay in the cache; the dataset gets a copy */
        if (read_cached(path, o, ds, e, err) != 0) return -1;
        struct log_state *s = e->state;
        lp = s->lp;
        pst = &s->st;
        if (log_parse_finish(lp, e->c) != 0 || !(c = curves_cache_clone(e->c))) {
            curves_cache_reset(e);
            return pt_errorf(err, "out of memory");
        }
    } else {
        if (!(lp = make_parser(o, err))) return -1;
        c = curves_new();
        rc = c ? read_lines(path, o, ds, lp, c, pst, NULL, NULL, err) : pt_errorf(err, "out of memory");
        if (rc == 0 && log_parse_finish(lp, c) != 0) rc = pt_errorf(err, "out of memory");
    }
    const struct log_parse_stats *stp = pst;
    if (rc == 0 && !stp->matched && !ds->npending) {
        rc = stp->lines ? pt_errorf(err, "%s: none of its %llu lines is a training-log line (Megatron-LM/MindSpeed `iteration N/ M | ...`, "
                                       "MindFormers `step:[ N/ M], ...`, verl `step:N - key:value ...`%s)",
                                  path, (unsigned long long)stp->lines, log_parse_nuser(lp) ? ", or a --pattern" : "; add --pattern NAME=REGEX")
                      : pt_errorf(err, "%s: empty file, expected a training log", path);
    }
    if (rc == 0 && stp->near_miss &&
        dataset_warn(ds, "%s: line %llu: %llu line(s) look like training-log lines but do not parse; left out", path,
                     (unsigned long long)stp->first_near_miss, (unsigned long long)stp->near_miss) != 0)
        rc = pt_errorf(err, "out of memory");
    if (rc == 0 && stp->match_errors &&
        dataset_warn(ds, "%s: a --pattern hit PCRE2's limits on %llu line(s) (catastrophic backtracking?); those lines are left out",
                     path, (unsigned long long)stp->match_errors) != 0)
        rc = pt_errorf(err, "out of memory");
    size_t dropped = 0;
    if (rc == 0 && curves_cube_build(c, &ds->cube, &dropped, err) != 0) rc = -1;
    if (rc == 0 && dropped && dataset_warn(ds, "%s: %zu point(s) are left out of the heat map and line chart (steps beyond 32 bits, or of a run "
                                              "longer than %d steps every k-th step kept); the curves keep them", path, dropped, CUBE_MAX_STEPS) != 0)
        rc = pt_errorf(err, "out of memory");
    if (!e) log_parse_free(lp);
    if (rc != 0) { curves_free(c); return -1; }
    curves_free(ds->curves);
    ds->curves = c;
    ds->files_read = 1;
    return 0;
}

const struct formats_row formats_row_log = {
    .name = "log",
    .what = "text training log (Megatron-LM, MindSpeed, MindFormers, verl)",
    .detect = detect_log,
    .load = load_log,
    .write_trenddb = NULL,
    .labels = LABELS_MONITOR,
};
