/* cmp_files: layer-mapping YAML and match-config JSON (see cmp_files.h). */
#include "src/io/compare/cmp_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json.h"

/* ---- layer mapping ---- */

/* The YAML subset msProbe's layer-mapping files use: a top-level mapping of
 * class names, each holding a mapping of attribute path -> attribute path,
 * in block style ("Class:" then indented "a: b" lines) or flow style
 * ("Class: {a: b, c: d}").  Comments, blank lines, quotes and "---" are
 * accepted; anything else is an error naming the line. */

struct yparse {
    const char *path;
    int line;
    struct cmp_files_lmap *m;
    char *cls;           /* current block class (owned), NULL before the first */
    int cls_line;        /* where it was written */
    int entry_indent;    /* indentation of the current class's entries, -1 unset */
};

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Strips a comment ('#' at the start or after a blank, outside quotes). */
static void strip_comment(char *s) {
    char q = 0;
    for (char *p = s; *p; p++) {
        if (q) { if (*p == q) q = 0; continue; }
        if (*p == '\'' || *p == '"') q = *p;
        else if (*p == '#' && (p == s || is_blank(p[-1]))) { *p = '\0'; return; }
    }
}

static char *trim(char *s) {
    while (is_blank(*s)) s++;
    char *e = s + strlen(s);
    while (e > s && is_blank(e[-1])) *--e = '\0';
    return s;
}

/* A scalar: quotes removed.  NULL when a quote is not closed. */
static char *unquote(char *s) {
    s = trim(s);
    if (*s == '\'' || *s == '"') {
        size_t l = strlen(s);
        if (l < 2 || s[l - 1] != *s) return NULL;
        s[l - 1] = '\0';
        return s + 1;
    }
    return s;
}

/* Splits "key: value" at the colon that ends the key (outside quotes, and
 * followed by a blank or the end, as YAML wants).  NULL: no such colon. */
static char *key_colon(char *s, int loose) {
    char q = 0;
    for (char *p = s; *p; p++) {
        if (q) { if (*p == q) q = 0; continue; }
        if ((*p == '\'' || *p == '"') && p == s) q = *p;
        else if (*p == ':' && (loose || !p[1] || is_blank(p[1]))) return p;
    }
    return NULL;
}

static int add_rule(struct yparse *y, const char *from, const char *to, struct pt_error *err) {
    struct cmp_files_lmap *m = y->m;
    struct layermap_rule *nv = realloc(m->rules, (m->n + 1) * sizeof *nv);
    if (!nv) return pt_errorf(err, "out of memory");
    m->rules = nv;
    char *c = strdup(y->cls), *f = strdup(from), *t = strdup(to);
    if (!c || !f || !t) {
        free(c);
        free(f);
        free(t);
        return pt_errorf(err, "out of memory");
    }
    m->rules[m->n++] = (struct layermap_rule){c, f, t, y->line, y->cls_line};
    return 0;
}

static void free_rule(struct layermap_rule *r) {
    free((char *)r->cls);
    free((char *)r->from);
    free((char *)r->to);
}

/* A class heading: a repeated class replaces the earlier one (as a YAML
 * loader keeps the last value of a repeated key). */
static int start_class(struct yparse *y, const char *cls, struct pt_error *err) {
    struct cmp_files_lmap *m = y->m;
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (!strcmp(m->rules[i].cls, cls)) free_rule(&m->rules[i]);
        else m->rules[k++] = m->rules[i];
    }
    m->n = k;
    free(y->cls);
    if (!(y->cls = strdup(cls))) return pt_errorf(err, "out of memory");
    y->cls_line = y->line;
    y->entry_indent = -1;
    return 0;
}

static int bad(const struct yparse *y, struct pt_error *err, const char *what, const char *text) {
    char esc[300];
    return pt_errorf(err, "%s: line %d: %s%s%s%s", y->path, y->line, what, text ? " (" : "",
                     text ? pt_escape(text, strlen(text), esc, sizeof esc) : "", text ? ")" : "");
}

/* One "from: to" pair (in a block line, or inside braces where "a:b" is a
 * pair too: loose). */
static int pair(struct yparse *y, char *text, int loose, struct pt_error *err) {
    char *c = key_colon(text, loose);
    if (!c && (*text == '\'' || *text == '"') && !strchr(text + 1, *text))
        return bad(y, err, "a quote is not closed", NULL);
    if (!c) return bad(y, err, "expected \"problem_attribute: benchmark_attribute\"", trim(text));
    *c = '\0';
    char *k = unquote(text), *v = unquote(c + 1);
    if (!k || !v) return bad(y, err, "a quote is not closed", NULL);
    if (!*k) return bad(y, err, "an empty attribute path before the colon", NULL);
    if (!*v) return bad(y, err, "expected the benchmark attribute path after the colon (a layer mapping nests "
                                "only class -> attribute: attribute)", k);
    if (*v == '{' || *v == '[' || (*v == '-' && v[1] == ' '))
        return bad(y, err, "the benchmark side must be an attribute path, not a collection", v);
    return add_rule(y, k, v, err);
}

static int flow(struct yparse *y, char *v, struct pt_error *err) {
    size_t l = strlen(v);
    if (v[l - 1] != '}') return bad(y, err, "a flow mapping must end with } on the same line", v);
    v[l - 1] = '\0';
    char *p = v + 1;
    while (*trim(p)) {
        char *comma = p, q = 0;
        for (; *comma; comma++) {
            if (q) { if (*comma == q) q = 0; continue; }
            if (*comma == '\'' || *comma == '"') q = *comma;
            else if (*comma == ',') break;
        }
        int last = !*comma;
        *comma = '\0';
        if (*trim(p) && pair(y, trim(p), 1, err) != 0) return -1;
        if (last) break;
        p = comma + 1;
    }
    return 0;
}

int cmp_files_lmap_load(struct cmp_files_lmap *m, const char *path, struct pt_error *err) {
    memset(m, 0, sizeof *m);
    if (!strcmp(path, CMP_FILES_LMAP_AUTO)) return 0;
    /* the readers' checked read: a FIFO, a device or a file over
     * JSON_SIDE_MAX is refused, never waited on or read without end */
    char *buf;
    size_t len;
    if (json_read_file(path, JSON_SIDE_MAX, &buf, &len, err) != 0) return -1;
    if (!(m->path = strdup(path))) { free(buf); return pt_errorf(err, "out of memory"); }
    struct yparse y = {.path = path, .m = m, .entry_indent = -1};
    int rc = 0;
    for (char *line = buf, *next; rc == 0 && line < buf + len; line = next) {
        char *eol = memchr(line, '\n', (size_t)(buf + len - line));
        next = eol ? eol + 1 : buf + len;
        if (eol) *eol = '\0';
        y.line++;
        if (strlen(line) > 65536) { rc = bad(&y, err, "line too long", NULL); break; }
        strip_comment(line);
        size_t ind = 0;
        while (line[ind] == ' ') ind++;
        if (line[ind] == '\t') { rc = bad(&y, err, "a tab in the indentation (YAML indents with spaces)", NULL); break; }
        char *s = trim(line);
        if (!*s || !strcmp(s, "---") || !strcmp(s, "...")) continue;
        if (s[0] == '-' && (s[1] == ' ' || !s[1])) {
            rc = bad(&y, err, "a list item: a layer mapping is a mapping of class names", NULL);
            break;
        }
        if (ind == 0) {
            char *c = key_colon(s, 0);
            if (!c) {
                rc = bad(&y, err, y.cls ? "expected \"ClassName:\" or an indented \"attribute: attribute\""
                                        : "not a mapping: expected \"ClassName:\" (a layer mapping maps class "
                                          "names to attribute renames)", s);
                break;
            }
            *c = '\0';
            char *k = unquote(s), *v = unquote(c + 1);
            if (!k || !v) { rc = bad(&y, err, "a quote is not closed", NULL); break; }
            if (!*k) { rc = bad(&y, err, "an empty class name", NULL); break; }
            if ((rc = start_class(&y, k, err)) != 0) break;
            if (!*v || !strcmp(v, "{}")) continue;
            if (*v == '{') { rc = flow(&y, v, err); continue; }
            char msg[200];
            snprintf(msg, sizeof msg, "class %.100s: expected its renames (attribute: attribute) below it, found a "
                                      "value", k);
            rc = bad(&y, err, msg, v);
            break;
        }
        if (!y.cls) { rc = bad(&y, err, "an indented rename before any \"ClassName:\" line", s); break; }
        if (y.entry_indent < 0) y.entry_indent = (int)ind;
        else if ((int)ind != y.entry_indent) {
            rc = bad(&y, err, "uneven indentation: a layer mapping nests only class -> attribute: attribute", s);
            break;
        }
        rc = pair(&y, s, 0, err);
    }
    free(buf);
    free(y.cls);
    if (rc != 0) cmp_files_lmap_free(m);
    return rc;
}

void cmp_files_lmap_free(struct cmp_files_lmap *m) {
    for (size_t i = 0; i < m->n; i++) free_rule(&m->rules[i]);
    free(m->rules);
    free(m->path);
    memset(m, 0, sizeof *m);
}

struct layermap *cmp_files_lmap_build(const struct cmp_files_lmap *m, const struct tree *npu, const struct tree *bench,
                              char *warn, size_t wsize) {
    struct layermap *map = NULL;
    struct pt_error e;
    size_t o = 0;
    if (wsize) warn[0] = '\0';
    if (layermap_build(npu, bench, m->rules, m->n, &map, &e) != 0) {
        snprintf(warn, wsize, "layer mapping not used: %s", e.msg);
        return NULL;
    }
    const size_t *u;
    size_t nu = layermap_unused(map, &u);
    for (size_t i = 0; i < nu && o + 1 < wsize; i++) {
        const struct layermap_rule *r = &m->rules[u[i]];
        /* one line per class */
        int seen = 0;
        for (size_t j = 0; j < i; j++) seen |= !strcmp(m->rules[u[j]].cls, r->cls);
        if (seen) continue;
        char esc[300];
        int n = snprintf(warn + o, wsize - o, "%s%s:%d: class %s is not a class of the problem dump: its renames "
                         "are not used", o ? "\n" : "", m->path ? m->path : CMP_FILES_LMAP_AUTO, r->cls_line,
                         pt_escape(r->cls, strlen(r->cls), esc, sizeof esc));
        if (n < 0) break;
        o += (size_t)n < wsize - o ? (size_t)n : wsize - o - 1;
    }
    return map;
}

/* ---- match config ---- */

static void note_bad(struct cmp_files_report *rep, const char *fmt, const char *name, const char *side) {
    rep->failed++;
    if (rep->first_bad[0]) return;
    char esc[200];
    snprintf(rep->first_bad, sizeof rep->first_bad, fmt, pt_escape(name, strlen(name), esc, sizeof esc), side);
}

int cmp_files_match_apply(struct cmp_graph *g, const char *path, struct cmp_files_report *rep, struct pt_error *err) {
    memset(rep, 0, sizeof *rep);
    cJSON *root;
    if (json_side_file(path, &root, err) != 0) return -1;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return pt_errorf(err, "%s: expected a JSON object {problem node: benchmark node}", path);
    }
    for (cJSON *e = root->child; e; e = e->next) {
        if (!cJSON_IsString(e)) {
            note_bad(rep, "%s%s: the value is not a node name", e->string ? e->string : "?", "");
            continue;
        }
        int a = tree_find(g->npu, e->string), b = tree_find(g->bench, e->valuestring);
        if (a < 0 || b < 0) {
            /* saved configs list the benchmark -> problem direction too */
            int ra = tree_find(g->npu, e->valuestring), rb = tree_find(g->bench, e->string);
            if (ra >= 0 && rb >= 0) continue;
            if (a < 0) note_bad(rep, "%s is not a node of the %s graph", e->string, "problem");
            else note_bad(rep, "%s is not a node of the %s graph", e->valuestring, "benchmark");
            continue;
        }
        if (g->nodes[a].bench == b) {
            rep->ok++;
            continue;
        }
        struct pt_error e2;
        if (g->nodes[a].bench >= 0) cmp_unmatch(g, a, &e2);
        if (g->bmatch[b] >= 0) cmp_unmatch(g, g->bmatch[b], &e2);
        if (cmp_manual_match(g, a, b, 0, &e2) != 0) note_bad(rep, "%s: cannot be matched%s", e->string, "");
        else rep->ok++;
    }
    cJSON_Delete(root);
    return 0;
}

long cmp_files_match_save(const struct cmp_graph *g, const char *path, struct pt_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return pt_errorf(err, "%s: %s", path, strerror(errno));
    long n = 0;
    fputc('{', f);
    for (size_t i = 0; i < g->npu->nnodes; i++) {
        if (!g->nodes[i].manual || g->nodes[i].bench < 0) continue;
        const char *a = tree_id(g->npu, (int)i), *b = tree_id(g->bench, g->nodes[i].bench);
        fputs(n ? ",\n " : "\n ", f);
        json_fput_str(f, a);
        fputs(": ", f);
        json_fput_str(f, b);
        fputs(",\n ", f);
        json_fput_str(f, b);
        fputs(": ", f);
        json_fput_str(f, a);
        n++;
    }
    fputs(n ? "\n}\n" : "}\n", f);
    if (fclose(f) != 0) return pt_errorf(err, "%s: write failed", path);
    return n;
}
