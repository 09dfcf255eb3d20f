/* log_parse: training-log lines into curves (see log_parse.h). */
#define _GNU_SOURCE   /* memmem, memrchr */
#include "src/io/curves/log_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/search.h"   /* PCRE2, and the project's match limits */
#include "model/util/util.h"
#include "src/io/common/decfloat.h"

#define MAX_NAMES 4096     /* distinct series names a log may bring */
#define MAX_NAME_LEN 200
#define MAX_FIELDS 64      /* fields of a line the positional cache keeps */
#define MAX_STEP 1000000000000000000LL

/* The heads of the built-in shapes, each matched anchored at its literal. */
static const char *const head_re[3] = {
    [LOG_MEGATRON] = "iteration\\s+(\\d{1,18})\\s*/\\s*\\d*\\s*\\|",
    [LOG_MINDFORMERS] = "step:\\s*\\[\\s*(\\d{1,18})\\s*/\\s*(\\d{1,18})\\s*\\]",
    [LOG_VERL] = "step:(\\d{1,18})(?:\\s+-\\s|\\s*$)",
};

struct user_pat {
    char *name;
    pcre2_code *code;
    uint32_t g_step, g_value;
    long series;       /* index in the curves, -1 before the first point */
};

struct lname {         /* a series name met on built-in lines */
    char *s;
    size_t len;
    long series;       /* index in the curves; -1: a user pattern owns the name (skipped) */
    int mega_loss;     /* a loss Megatron prints (its absence is a NaN) */
};

struct log_parse {
    pcre2_code *head[3];
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    struct user_pat user[LOG_PARSE_MAX_USER];
    size_t nuser;
    struct lname *names;
    size_t nnames, capnames;
    uint32_t cache[3][MAX_FIELDS];   /* names index + 1 of a shape's field at a position */
    int64_t *mega_steps;             /* the steps of Megatron lines */
    size_t nmega, capmega;
    uint64_t lineno;
};

static int set_limits(struct log_parse *lp) {
    lp->mctx = pcre2_match_context_create(NULL);
    lp->md = pcre2_match_data_create(16, NULL);
    if (!lp->mctx || !lp->md) return -1;
    pcre2_set_match_limit(lp->mctx, SEARCH_MATCH_LIMIT);
    pcre2_set_depth_limit(lp->mctx, SEARCH_DEPTH_LIMIT);
    pcre2_set_heap_limit(lp->mctx, SEARCH_HEAP_LIMIT);
    return 0;
}

struct log_parse *log_parse_new(struct pt_error *err) {
    struct log_parse *lp = calloc(1, sizeof *lp);
    if (!lp || set_limits(lp) != 0) {
        log_parse_free(lp);
        pt_errorf(err, "out of memory");
        return NULL;
    }
    for (int i = 0; i < 3; i++) {
        int ec;
        PCRE2_SIZE off;
        lp->head[i] = pcre2_compile((PCRE2_SPTR)head_re[i], PCRE2_ZERO_TERMINATED, 0, &ec, &off, NULL);
        if (!lp->head[i]) {   /* a bug, not input: the patterns are fixed */
            log_parse_free(lp);
            pt_errorf(err, "built-in log pattern %d does not compile (error %d at offset %zu)", i, ec, (size_t)off);
            return NULL;
        }
        pcre2_jit_compile(lp->head[i], PCRE2_JIT_COMPLETE);   /* faster when the library has JIT; fine without */
    }
    return lp;
}

void log_parse_free(struct log_parse *lp) {
    if (!lp) return;
    for (int i = 0; i < 3; i++) pcre2_code_free(lp->head[i]);
    for (size_t i = 0; i < lp->nuser; i++) {
        free(lp->user[i].name);
        pcre2_code_free(lp->user[i].code);
    }
    for (size_t i = 0; i < lp->nnames; i++) free(lp->names[i].s);
    free(lp->names);
    free(lp->mega_steps);
    pcre2_match_data_free(lp->md);
    pcre2_match_context_free(lp->mctx);
    free(lp);
}

size_t log_parse_nuser(const struct log_parse *lp) { return lp->nuser; }

int log_parse_add_user(struct log_parse *lp, const char *spec, const char *origin, int weak, struct pt_error *err) {
    const char *eq = strchr(spec, '=');
    char esc[256];
    if (!eq || eq == spec)
        return pt_errorf(err, "%s '%s': expected NAME=REGEX (a series name, '=', a regex with the groups (?<step>...) and (?<value>...))",
                         origin, pt_escape(spec, strlen(spec), esc, sizeof esc));
    size_t nlen = (size_t)(eq - spec);
    if (nlen > MAX_NAME_LEN) return pt_errorf(err, "%s: the name of a pattern is longer than %d bytes", origin, MAX_NAME_LEN);
    pt_escape(spec, nlen, esc, sizeof esc);
    for (size_t i = 0; i < lp->nuser; i++)
        if (strlen(lp->user[i].name) == nlen && !memcmp(lp->user[i].name, spec, nlen)) {
            if (weak) return 0;   /* the command line's pattern of that name wins */
            return pt_errorf(err, "%s '%s': the pattern is given twice", origin, esc);
        }
    if (lp->nuser == LOG_PARSE_MAX_USER) return pt_errorf(err, "%s '%s': more than %d patterns", origin, esc, LOG_PARSE_MAX_USER);
    int ec;
    PCRE2_SIZE off;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)(eq + 1), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &off, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(ec, msg, sizeof msg) < 0) strcpy((char *)msg, "unknown error");
        return pt_errorf(err, "%s '%s': regex error at offset %zu: %s", origin, esc, (size_t)off, (const char *)msg);
    }
    int gs = pcre2_substring_number_from_name(code, (PCRE2_SPTR) "step");
    int gv = pcre2_substring_number_from_name(code, (PCRE2_SPTR) "value");
    if (gs <= 0 || gv <= 0) {
        pcre2_code_free(code);
        return pt_errorf(err, "%s '%s': the regex has no group named %s: write (?<step>\\d+) and (?<value>\\S+)", origin, esc,
                         gs <= 0 ? "step" : "value");
    }
    char *name = strndup(spec, nlen);
    if (!name) {
        pcre2_code_free(code);
        return pt_errorf(err, "out of memory");
    }
    pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
    lp->user[lp->nuser++] = (struct user_pat){name, code, (uint32_t)gs, (uint32_t)gv, -1};
    return 0;
}

/* ---- numbers ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
static int lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int word_at(const char *p, const char *e, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(e - p) < n) return 0;
    for (size_t i = 0; i < n; i++)
        if (lower(p[i]) != w[i]) return 0;
    return 1;
}

/* A decimal number (or nan, inf, infinity, any case, signed) at p: the
 * end of it with *v, or NULL (decfloat.h). */
static const char *parse_num(const char *p, const char *e, double *v) { return decfloat_parse(p, e, v); }

/* The value of a field: a number with an optional unit ("1234ms",
 * "12.3T", "45 %"), a one-element list "[1.23]", or True/False (1, 0). */
static int field_value(const char *p, const char *e, double *v) {
    while (p < e && is_space(*p)) p++;
    while (e > p && is_space(e[-1])) e--;
    if (p < e && *p == '[') {
        if (e[-1] != ']') return 0;
        p++, e--;
        while (p < e && is_space(*p)) p++;
        while (e > p && is_space(e[-1])) e--;
    }
    if (p == e) return 0;
    if (e - p == 4 && word_at(p, e, "true")) { *v = 1; return 1; }
    if (e - p == 5 && word_at(p, e, "false")) { *v = 0; return 1; }
    const char *q = parse_num(p, e, v);
    if (!q) return 0;
    for (; q < e; q++) {   /* a unit: letters, '%', '/' */
        char c = *q;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '%' || c == '/' || is_space(c))) return 0;
    }
    return 1;
}

static int parse_step(const char *p, const char *e, int64_t *out) {
    while (p < e && is_space(*p)) p++;
    int neg = 0;
    if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
    if (p == e || !is_digit(*p)) return 0;
    int64_t s = 0;
    for (; p < e && is_digit(*p); p++) {
        if (s > (MAX_STEP - (*p - '0')) / 10) return 0;   /* beyond any run (and before an overflow) */
        s = s * 10 + (*p - '0');
    }
    while (p < e && is_space(*p)) p++;
    if (p != e) return 0;
    *out = neg ? -s : s;
    return 1;
}

/* ---- series by name ---- */

/* The names-table index of a field name, through the positional cache
 * (a logger prints its fields in the same order every line); -1 when the
 * table is full or without memory (*oom set). */
static long name_index(struct log_parse *lp, struct curves *c, int shape, size_t pos, const char *s, size_t len, int *oom) {
    if (pos < MAX_FIELDS) {
        uint32_t k = lp->cache[shape][pos];
        if (k && lp->names[k - 1].len == len && !memcmp(lp->names[k - 1].s, s, len)) return (long)k - 1;
    }
    size_t i;
    for (i = 0; i < lp->nnames; i++)
        if (lp->names[i].len == len && !memcmp(lp->names[i].s, s, len)) break;
    if (i == lp->nnames) {
        if (lp->nnames >= MAX_NAMES) return -1;
        for (size_t k = 0; k < len; k++)
            if ((unsigned char)s[k] < 0x20 || s[k] == 0x7f) return -1;   /* a NUL or a control byte: no name of a logger's */
        if (UTIL_PUSH(lp->names, lp->nnames, lp->capnames)) { *oom = 1; return -1; }
        char *copy = strndup(s, len);
        if (!copy) { *oom = 1; return -1; }
        long series = -1;
        int user = 0;
        for (size_t u = 0; u < lp->nuser; u++) user |= !strcmp(lp->user[u].name, copy);
        if (!user) {
            struct curves_series *cs = curves_series(c, copy);
            if (!cs) { free(copy); *oom = 1; return -1; }
            series = (long)(cs - c->series);
        }
        lp->names[lp->nnames++] = (struct lname){copy, len, series, 0};
    }
    if (pos < MAX_FIELDS) lp->cache[shape][pos] = (uint32_t)i + 1;
    return (long)i;
}

/* One `name: value` field (name [ns, ne), value [vs, ve)). 1 a point, 0
 * none, -1 no memory. */
static int take_field(struct log_parse *lp, struct curves *c, int shape, size_t pos, const char *ns, const char *ne,
                      const char *vs, const char *ve, int64_t step) {
    while (ns < ne && is_space(*ns)) ns++;
    while (ne > ns && is_space(ne[-1])) ne--;
    if (ns == ne || ne - ns > MAX_NAME_LEN) return 0;
    double v;
    if (!field_value(vs, ve, &v)) return 0;
    int oom = 0;
    long k = name_index(lp, c, shape, pos, ns, (size_t)(ne - ns), &oom);
    if (k < 0) return oom ? -1 : 0;
    struct lname *n = &lp->names[k];
    if (n->series < 0) return 0;
    struct curves_series *cs = &c->series[n->series];
    if (shape == LOG_MEGATRON && cs->role == CURVES_LOSS) n->mega_loss = 1;
    return curves_push(cs, step, v) ? -1 : 1;
}

/* The fields of [p, e) split at sep (a ',' at bracket depth 0 only;
 * spaced: a sep between blanks, verl's " - "), each `name: value` (the
 * last ':'). */
static int split_fields(struct log_parse *lp, struct curves *c, int shape, const char *p, const char *e, char sep,
                        int spaced, int64_t step, uint64_t *points) {
    size_t pos = 0;
    while (p < e) {
        const char *f = p, *x = p;
        if (sep != ',') {   /* '|', " - ": no bracket holds one (memchr: the hot loop of a Megatron log) */
            for (;;) {
                x = memchr(x, sep, (size_t)(e - x));
                if (!x) { x = e; break; }
                if (!spaced || (x > f && is_space(x[-1]) && x + 1 < e && is_space(x[1]))) break;
                x++;
            }
        } else {
            int depth = 0;
            for (; x < e; x++) {
                if (*x == '[' || *x == '(') depth++;
                else if ((*x == ']' || *x == ')') && depth > 0) depth--;
                else if (*x == sep && depth == 0) break;
            }
        }
        const char *colon = memrchr(f, ':', (size_t)(x - f));
        if (colon) {
            int r = take_field(lp, c, shape, pos, f, colon, colon + 1, x, step);
            if (r < 0) return -1;
            *points += (uint64_t)r;
        }
        pos++;
        p = x < e ? x + 1 : e;
    }
    return 0;
}

/* ---- lines ---- */

static int word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '/' || c == '.';
}

/* The head regex of shape matched at off of the line [p, e): 1 with the
 * ovector, 0 no. */
static int head_at(struct log_parse *lp, int shape, const char *p, const char *e, size_t off, PCRE2_SIZE **ov) {
    int rc = pcre2_match(lp->head[shape], (PCRE2_SPTR)p, (size_t)(e - p), off, PCRE2_ANCHORED | PCRE2_NO_UTF_CHECK, lp->md,
                         lp->mctx);
    if (rc <= 0) return 0;
    *ov = pcre2_get_ovector_pointer(lp->md);
    return 1;
}

/* Megatron / MindSpeed: `iteration N/ M | name: value | ...`.  1 taken,
 * 0 not this shape, -1 no memory. */
static int line_megatron(struct log_parse *lp, struct curves *c, const char *p, const char *e, uint64_t *points) {
    const char *h = p;
    while ((h = memmem(h, (size_t)(e - h), "iteration", 9))) {
        PCRE2_SIZE *ov;
        if ((h == p || !word_char(h[-1])) && head_at(lp, LOG_MEGATRON, p, e, (size_t)(h - p), &ov)) {
            int64_t step;
            if (!parse_step(p + ov[2], p + ov[3], &step)) return 0;
            if (UTIL_PUSH(lp->mega_steps, lp->nmega, lp->capmega)) return -1;
            lp->mega_steps[lp->nmega++] = step;
            if (split_fields(lp, c, LOG_MEGATRON, p + ov[1], e, '|', 0, step, points) != 0) return -1;
            return 1;
        }
        h += 9;
    }
    return 0;
}

/* MindFormers `[Epoch:[ e/ E], ]step:[ N/ M], name: value, ...` and verl
 * `step:N - key:value - ...`. */
static int line_step(struct log_parse *lp, struct curves *c, const char *p, const char *e, uint64_t *points, int *shape) {
    const char *h = p;
    while ((h = memmem(h, (size_t)(e - h), "step:", 5))) {
        if (h > p && word_char(h[-1])) { h += 5; continue; }
        const char *a = h + 5;
        while (a < e && is_space(*a)) a++;
        PCRE2_SIZE *ov;
        int64_t step, total;
        if (a < e && *a == '[' && head_at(lp, LOG_MINDFORMERS, p, e, (size_t)(h - p), &ov)) {
            if (!parse_step(p + ov[2], p + ov[3], &step) || !parse_step(p + ov[4], p + ov[5], &total)) return 0;
            const char *ep = memmem(p, (size_t)(h - p), "Epoch:", 6);
            if (ep) {   /* the step counts within the epoch: (e-1) * M + N */
                const char *x = ep + 6;
                while (x < h && is_space(*x)) x++;
                if (x < h && *x == '[') {
                    x++;
                    const char *d = x;
                    while (x < h && (is_digit(*x) || is_space(*x))) x++;
                    int64_t epoch;
                    if (x < h && *x == '/' && parse_step(d, x, &epoch) && epoch >= 1 && total > 0 &&
                        epoch - 1 <= (MAX_STEP - step) / total)
                        step += (epoch - 1) * total;
                }
            }
            const char *f = p + ov[1];
            while (f < e && (is_space(*f) || *f == ',')) f++;
            const char *fe = e;
            while (fe > f && (is_space(fe[-1]) || fe[-1] == '}')) fe--;
            *shape = LOG_MINDFORMERS;
            return split_fields(lp, c, LOG_MINDFORMERS, f, fe, ',', 0, step, points) ? -1 : 1;
        }
        if (a == h + 5 && a < e && is_digit(*a) && head_at(lp, LOG_VERL, p, e, (size_t)(h - p), &ov)) {
            if (!parse_step(p + ov[2], p + ov[3], &step)) return 0;
            *shape = LOG_VERL;
            return split_fields(lp, c, LOG_VERL, p + ov[1], e, '-', 1, step, points) ? -1 : 1;
        }
        h += 5;
    }
    return 0;
}

/* The user's patterns on the line: how many took a point, -1 no memory. */
static int line_user(struct log_parse *lp, struct curves *c, const char *p, const char *e, struct log_parse_stats *st) {
    int took = 0;
    for (size_t i = 0; i < lp->nuser; i++) {
        struct user_pat *u = &lp->user[i];
        int rc = pcre2_match(u->code, (PCRE2_SPTR)p, (size_t)(e - p), 0, 0, lp->md, lp->mctx);
        if (rc < 0) {
            if (rc != PCRE2_ERROR_NOMATCH && st) st->match_errors++;
            continue;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(lp->md);
        uint32_t np = pcre2_get_ovector_count(lp->md);
        if (u->g_step >= np || u->g_value >= np || ov[2 * u->g_step] == PCRE2_UNSET || ov[2 * u->g_value] == PCRE2_UNSET)
            continue;
        int64_t step;
        double v;
        const char *vs = p + ov[2 * u->g_value], *ve = p + ov[2 * u->g_value + 1];
        while (vs < ve && is_space(*vs)) vs++;
        if (!parse_step(p + ov[2 * u->g_step], p + ov[2 * u->g_step + 1], &step) || !parse_num(vs, ve, &v)) continue;
        if (u->series < 0) {
            struct curves_series *cs = curves_series(c, u->name);
            if (!cs) return -1;
            u->series = (long)(cs - c->series);
        }
        if (curves_push(&c->series[u->series], step, v)) return -1;
        took++;
    }
    return took;
}

/* A line no built-in shape took that starts like one -- `iteration <digit>`
 * with a '|' in the line, `step:[`, `step:<digit>` with a " - " -- is a
 * damaged line rather than a banner ("saving checkpoint at iteration 100",
 * "step:3 done"). */
static int near_miss(const char *p, const char *e) {
    size_t n = (size_t)(e - p);
    const char *h = memmem(p, n, "iteration", 9);
    if (h && memchr(p, '|', n)) {
        const char *a = h + 9;
        while (a < e && is_space(*a)) a++;
        if (a > h + 9 && a < e && is_digit(*a)) return 1;
    }
    for (h = p; (h = memmem(h, (size_t)(e - h), "step:", 5)); h += 5) {
        if (h > p && word_char(h[-1])) continue;
        const char *a = h + 5;
        while (a < e && is_space(*a)) a++;
        if (a < e && (*a == '[' || (is_digit(*a) && memmem(a, (size_t)(e - a), " - ", 3)))) return 1;
    }
    return 0;
}

/* One line [p, e) (no line end). */
static int one_line(struct log_parse *lp, struct curves *c, const char *p, const char *e, struct log_parse_stats *st) {
    uint64_t points = 0;
    int shape = LOG_MEGATRON;
    int r = line_megatron(lp, c, p, e, &points);
    if (r == 0) r = line_step(lp, c, p, e, &points, &shape);
    if (r < 0) return -1;
    int near = r == 0 && near_miss(p, e);
    int u = lp->nuser ? line_user(lp, c, p, e, st) : 0;
    if (u < 0) return -1;
    if (st) {
        st->lines++;
        st->points += points + (uint64_t)u;
        if (r > 0 && points) st->by_shape[shape]++;
        if (u > 0) st->by_shape[LOG_USER]++;
        if ((r > 0 && points) || u > 0) st->matched++;
        else if (near) {
            if (!st->near_miss) st->first_near_miss = lp->lineno;
            st->near_miss++;
        }
    }
    return (r > 0 && points) || u > 0;
}

int log_parse_lines(struct log_parse *lp, const char *buf, size_t len, struct curves *c, struct log_parse_stats *st) {
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (e > p && e[-1] == '\r') e--;
        lp->lineno++;
        if (one_line(lp, c, p, e, st) < 0) return -1;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int log_parse_finish(struct log_parse *lp, struct curves *c) {
    if (curves_finish(c) != 0) return -1;
    int any = 0;
    for (size_t i = 0; i < lp->nnames; i++) any |= lp->names[i].mega_loss;
    if (!any || !lp->nmega) return 0;
    if (lp->nmega > 1) qsort(lp->mega_steps, lp->nmega, sizeof *lp->mega_steps, cmp_i64);
    int added = 0;
    for (size_t i = 0; i < lp->nnames; i++) {
        if (!lp->names[i].mega_loss || lp->names[i].series < 0) continue;
        struct curves_series *s = &c->series[lp->names[i].series];
        size_t n0 = s->n, j = 0;   /* both sorted: one merge over the finished points */
        for (size_t k = 0; k < lp->nmega; k++) {
            int64_t step = lp->mega_steps[k];
            if (k && step == lp->mega_steps[k - 1]) continue;
            while (j < n0 && s->pts[j].step < step) j++;
            if (j < n0 && s->pts[j].step == step) continue;
            if (curves_push(s, step, NAN) != 0) return -1;
            added = 1;
        }
    }
    return added ? curves_finish(c) : 0;
}

size_t log_parse_count(struct log_parse *lp, const char *buf, size_t len, size_t *lines) {
    struct curves *c = curves_new();
    struct log_parse_stats st;
    memset(&st, 0, sizeof st);
    if (!c) return 0;
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;   /* whole lines only */
        const char *e = nl;
        if (e > p && e[-1] == '\r') e--;
        lp->lineno++;
        if (one_line(lp, c, p, e, &st) < 0) break;
        p = nl + 1;
    }
    curves_free(c);
    /* the names table points into c's series: start afresh */
    for (size_t i = 0; i < lp->nnames; i++) free(lp->names[i].s);
    lp->nnames = 0;
    memset(lp->cache, 0, sizeof lp->cache);
    for (size_t i = 0; i < lp->nuser; i++) lp->user[i].series = -1;
    lp->nmega = 0;
    lp->lineno = 0;
    *lines = (size_t)st.lines;
    return (size_t)st.matched;
}
