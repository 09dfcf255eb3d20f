/* cmp_files: layer-mapping YAML and match-config JSON (see cmp_files.h). */
#include "src/cmp_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/json.h"

/* ---- layer mapping ---- */

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) *--e = '\0';
    if (*s == '\'' || *s == '"') {
        size_t l = strlen(s);
        if (l >= 2 && s[l - 1] == *s) {
            s[l - 1] = '\0';
            s++;
        }
    }
    return s;
}

int cfile_lmap_load(struct cfile_lmap *m, const char *path, struct pt_error *err) {
    FILE *f = fopen(path, "r");
    if (!f) return pt_errorf(err, "%s: %s", path, strerror(errno));
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *h = strchr(line, '#');
        if (h) *h = '\0';
        if (!*trim(line)) continue;
        int indented = line[0] == ' ' || line[0] == '\t';
        char *colon = strchr(line, ':');
        if (!colon) {
            fclose(f);
            return pt_errorf(err, "%s: line %d: expected \"name: value\"", path, lineno);
        }
        *colon = '\0';
        char *k = trim(line), *v = trim(colon + 1);
        if (!indented || !*v) continue;   /* a class heading */
        void *nf = realloc(m->from, (m->n + 1) * sizeof *m->from);
        if (!nf) { fclose(f); return pt_errorf(err, "out of memory"); }
        m->from = nf;
        void *nt = realloc(m->to, (m->n + 1) * sizeof *m->to);
        if (!nt) { fclose(f); return pt_errorf(err, "out of memory"); }
        m->to = nt;
        snprintf(m->from[m->n], 256, "%s", k);
        snprintf(m->to[m->n], 256, "%s", v);
        m->n++;
    }
    fclose(f);
    return 0;
}

void cfile_lmap_free(struct cfile_lmap *m) {
    free(m->from);
    free(m->to);
    m->from = m->to = NULL;
    m->n = 0;
}

const char *cfile_lmap_apply(void *ctx, const char *id) {
    struct cfile_lmap *m = ctx;
    char a[8192], b[8192];
    snprintf(a, sizeof a, "%s", id);
    if (m->cell_to_module && !strncmp(a, "Cell.", 5)) {
        snprintf(b, sizeof b, "Module.%s", a + 5);
        snprintf(a, sizeof a, "%s", b);
    }
    for (size_t i = 0; i < m->n; i++) {
        char pat[300], rep[300];
        snprintf(pat, sizeof pat, ".%s.", m->from[i]);
        snprintf(rep, sizeof rep, ".%s.", m->to[i]);
        char *at = strstr(a, pat);
        if (!at) continue;
        snprintf(b, sizeof b, "%.*s%s%s", (int)(at - a), a, rep, at + strlen(pat));
        snprintf(a, sizeof a, "%s", b);
    }
    snprintf(m->buf, sizeof m->buf, "%s", a);
    return m->buf;
}

/* ---- match config ---- */

static void note_bad(struct cfile_report *rep, const char *fmt, const char *name, const char *side) {
    rep->failed++;
    if (rep->first_bad[0]) return;
    char esc[200];
    snprintf(rep->first_bad, sizeof rep->first_bad, fmt, pt_escape(name, strlen(name), esc, sizeof esc), side);
}

int cfile_match_apply(struct cmp_graph *g, const char *path, struct cfile_report *rep, struct pt_error *err) {
    memset(rep, 0, sizeof *rep);
    cJSON *root;
    if (json_tree_file(path, &root, err) != 0) return -1;
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
        if (g->n[a].bench == b) {
            rep->ok++;
            continue;
        }
        struct pt_error e2;
        if (g->n[a].bench >= 0) cmp_unmatch(g, a, &e2);
        if (g->bmatch[b] >= 0) cmp_unmatch(g, g->bmatch[b], &e2);
        if (cmp_manual_match(g, a, b, 0, &e2) != 0) note_bad(rep, "%s: cannot be matched%s", e->string, "");
        else rep->ok++;
    }
    cJSON_Delete(root);
    return 0;
}

long cfile_match_save(const struct cmp_graph *g, const char *path, struct pt_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return pt_errorf(err, "%s: %s", path, strerror(errno));
    long n = 0;
    fputc('{', f);
    for (size_t i = 0; i < g->npu->nnodes; i++) {
        if (!g->n[i].manual || g->n[i].bench < 0) continue;
        const char *a = tree_id(g->npu, (int)i), *b = tree_id(g->bench, g->n[i].bench);
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
