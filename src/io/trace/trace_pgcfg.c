/* trace_pgcfg: a trace file's process groups (see trace_parse_ctx.h): the
 * groups communication kernels name in their args, and the groups of
 * distributedInfo.pg_config (probetop-formats(5), PROFILER TRACES: Process
 * groups), into the file's table (trace_parse_file.pgs). */
#include "src/io/trace/trace_parse_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

#define TRACE_PARSE_MAX_PGS 255                 /* process groups per file (a kernel holds 1 + the index in a byte) */
#define TRACE_PARSE_MAX_PG_RANKS 1000000        /* ranks of one process group */
#define TRACE_PARSE_MAX_RANK 1000000            /* a rank number beyond any run */

static int ranks_of_string(const char *s, size_t n, int32_t **v, int *nv, size_t *cap);

/* The process group of a communication kernel's args (name, description)
 * in the file's table: 1 + its index, 0 when it has none or the table is
 * full. */
static int pg_of(struct ctx *c, const char *name, const char *desc, uint8_t *out) {
    struct trace_parse_file *f = c->f;
    *out = 0;
    if (!*name && !*desc) return 0;
    for (size_t i = 0; i < f->npgs; i++)
        if (!strcmp(f->pgs[i].name, name) && (!*desc || !strcmp(f->pgs[i].desc, desc) || !*f->pgs[i].desc)) {
            if (*desc && !*f->pgs[i].desc) {
                char *d = strdup(desc);
                if (!d) return pt_errorf(c->err, "out of memory");
                free(f->pgs[i].desc);
                f->pgs[i].desc = d;
            }
            *out = (uint8_t)(i + 1);
            return 0;
        }
    if (f->npgs >= TRACE_PARSE_MAX_PGS) return 0;
    if (UTIL_PUSH(f->pgs, f->npgs, f->cappgs)) return pt_errorf(c->err, "out of memory");
    struct trace_parse_pg *g = &f->pgs[f->npgs];
    memset(g, 0, sizeof *g);
    if (!(g->name = strdup(name)) || !(g->desc = strdup(desc))) {
        free(g->name);
        free(g->desc);
        return pt_errorf(c->err, "out of memory");
    }
    *out = (uint8_t)++f->npgs;
    return 0;
}

int tp_pg_lookup(struct ctx *c, const char *name, const char *desc, const char *ranks, uint8_t *out) {
    struct trace_parse_file *f = c->f;
    if (pg_of(c, name, desc, out)) return -1;
    if (*out && !f->pgs[*out - 1].nranks && ranks[0]) {   /* its ranks, for a group no description places */
        struct trace_parse_pg *g = &f->pgs[*out - 1];
        size_t cap = 0;
        int rr = ranks_of_string(ranks, strlen(ranks), &g->ranks, &g->nranks, &cap);
        if (rr < 0) return pt_errorf(c->err, "out of memory");
        if (rr > 0) { free(g->ranks); g->ranks = NULL; g->nranks = 0; }   /* not "[r, ...]": no ranks */
        if (g->nranks > 1) qsort(g->ranks, (size_t)g->nranks, sizeof *g->ranks, util_cmp_i32);
    }
    return 0;
}

/* ---- distributedInfo.pg_config (probetop-formats(5), PROFILER TRACES:
 * Process groups): a list of {pg_name, pg_desc, ranks, ...}, or an
 * object of them by name ---- */

static void pg_warn(struct ctx *c, const char *what) {
    if (c->f->pg_warn) return;
    char buf[400];
    snprintf(buf, sizeof buf, "%s: byte %llu: distributedInfo.pg_config: %s; its process groups are left out", c->path,
             (unsigned long long)(c->lx.off0 + (uint64_t)(c->lx.tok_start - c->lx.buf)), what);
    c->f->pg_warn = strdup(buf);   /* without memory: no warning */
}

static int push_rank(int32_t **v, int *n, size_t *cap, int64_t r) {
    if (*n >= TRACE_PARSE_MAX_PG_RANKS) return 1;
    if (util_grow((void **)v, cap, (size_t)*n + 1, sizeof **v)) return -1;
    (*v)[(*n)++] = (int32_t)r;
    return 0;
}

/* "[0, 1, 2]" (PyTorch writes the ranks as a string in some versions): 0,
 * 1 malformed, -1 out of memory. */
static int ranks_of_string(const char *s, size_t n, int32_t **v, int *nv, size_t *cap) {
    size_t i = 0;
    while (i < n && s[i] == ' ') i++;
    if (i >= n || s[i++] != '[') return 1;
    for (;;) {
        while (i < n && s[i] == ' ') i++;
        if (i < n && s[i] == ']') return 0;
        int64_t r = 0;
        size_t d = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && d < 8) r = r * 10 + (s[i++] - '0'), d++;
        if (!d || r >= TRACE_PARSE_MAX_RANK) return 1;
        int rc = push_rank(v, nv, cap, r);
        if (rc) return rc;
        while (i < n && s[i] == ' ') i++;
        if (i < n && s[i] == ',') i++;
        else if (!(i < n && s[i] == ']')) return 1;
    }
}

static int cmp_i32(const void *a, const void *b) { return util_cmp_i32(a, b); }

/* One group's object (its '{' read) into the file's groups. */
static int parse_pg_entry(struct ctx *c, const char *key_name) {
    struct json_lex *lx = &c->lx;
    char name[64], desc[96];
    snprintf(name, sizeof name, "%s", key_name);
    desc[0] = '\0';
    int32_t *ranks = NULL;
    int nr = 0, bad = 0, rc = 0;
    size_t cap = 0;
    for (;;) {
        enum json_tok t = tp_next(c);
        if (t == JT_OBJ_END) break;
        if (t != JT_KEY) { rc = -1; break; }
        int key = JSON_IS(lx, "pg_name") ? 1 : JSON_IS(lx, "pg_desc") ? 2 : JSON_IS(lx, "ranks") ? 3 : 0;
        if ((t = tp_next(c)) == JT_ERROR) { rc = -1; break; }
        if (key == 1 && (t == JT_STRING || t == JT_NUMBER)) {
            if (t == JT_STRING) tp_copy_string(lx, name, sizeof name);
            else snprintf(name, sizeof name, "%.*s", (int)(lx->pos - lx->tok_start < 60 ? lx->pos - lx->tok_start : 60), lx->tok_start);
        } else if (key == 2 && t == JT_STRING) {
            tp_copy_string(lx, desc, sizeof desc);
        } else if (key == 3 && t == JT_ARR_BEGIN) {
            for (;;) {
                int64_t v;
                if ((t = tp_next(c)) == JT_ARR_END) break;
                if (t == JT_ERROR) { rc = -1; break; }
                if (t == JT_NUMBER && !tp_value_int(lx, t, &v) && v >= 0 && v < TRACE_PARSE_MAX_RANK) {
                    int pr = push_rank(&ranks, &nr, &cap, v);
                    if (pr < 0) { rc = pt_errorf(c->err, "out of memory"); break; }
                    bad |= pr;
                } else {
                    bad = 1;
                    if (tp_skip(c, t)) { rc = -1; break; }
                }
            }
            if (rc) break;
        } else if (key == 3 && t == JT_STRING) {
            char *tmp = malloc(lx->slen + 1);
            if (!tmp) { rc = pt_errorf(c->err, "out of memory"); break; }
            size_t n = tp_copy_string(lx, tmp, lx->slen + 1);
            int pr = ranks_of_string(tmp, n, &ranks, &nr, &cap);
            free(tmp);
            if (pr < 0) { rc = pt_errorf(c->err, "out of memory"); break; }
            bad |= pr;
        } else {
            if (key && t != JT_NULL) bad = 1;   /* a field of the wrong type */
            if (tp_skip(c, t)) { rc = -1; break; }
        }
    }
    if (!rc && (bad || !*name)) {
        pg_warn(c, bad ? "a group whose pg_name, pg_desc or ranks is not what PyTorch writes" : "a group without pg_name");
        bad = 1;
    }
    if (rc || bad) { free(ranks); return rc; }
    if (nr > 1) qsort(ranks, (size_t)nr, sizeof *ranks, cmp_i32);
    uint8_t at;
    if (pg_of(c, name, desc, &at)) { free(ranks); return -1; }
    if (!at) { free(ranks); return 0; }   /* the table is full */
    struct trace_parse_pg *g = &c->f->pgs[at - 1];
    free(g->ranks);
    g->ranks = ranks;
    g->nranks = nr;
    g->config = 1;
    return 0;
}

static int parse_pg_config(struct ctx *c, enum json_tok t) {
    if (t == JT_ARR_BEGIN) {
        for (;;) {
            if ((t = tp_next(c)) == JT_ARR_END) return 0;
            if (t == JT_ERROR) return -1;
            if (t == JT_OBJ_BEGIN) {
                if (parse_pg_entry(c, "")) return -1;
            } else {
                pg_warn(c, "an entry that is not an object");
                if (tp_skip(c, t)) return -1;
            }
        }
    }
    if (t == JT_OBJ_BEGIN) {   /* {"<name>": {...}, ...} */
        for (;;) {
            if ((t = tp_next(c)) == JT_OBJ_END) return 0;
            if (t != JT_KEY) return -1;
            char key[64];
            tp_copy_string(&c->lx, key, sizeof key);
            if ((t = tp_next(c)) == JT_ERROR) return -1;
            if (t == JT_OBJ_BEGIN) {
                if (parse_pg_entry(c, key)) return -1;
            } else {
                pg_warn(c, "an entry that is not an object");
                if (tp_skip(c, t)) return -1;
            }
        }
    }
    if (t != JT_NULL) pg_warn(c, "neither a list nor an object");
    return tp_skip(c, t);
}

int tp_parse_dist_info(struct ctx *c) {
    for (;;) {
        enum json_tok t = tp_next(c);
        if (t == JT_OBJ_END) return 0;
        if (t != JT_KEY) return -1;
        int key = JSON_IS(&c->lx, "rank") ? 1 : JSON_IS(&c->lx, "pg_config") ? 2 : 0;
        t = tp_next(c);
        if (t == JT_ERROR) return -1;
        int64_t v;
        if (key == 1 && !tp_value_int(&c->lx, t, &v) && v >= 0 && v < 1000000) c->f->rank = (int32_t)v;
        else if (key == 2) { if (parse_pg_config(c, t)) return -1; }
        else if (tp_skip(c, t)) return -1;
    }
}
