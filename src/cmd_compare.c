/* cmd_compare: `probetop compare PROBLEM BENCH`, msProbe's `compare` table
 * (csv, same columns and values) plus the graph compare's verdict and the
 * first divergent node, for every (step, rank) the two dumps share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/compare.h"
#include "src/cmd.h"
#include "src/json.h"
#include "src/read_graph.h"

/* ---- layer mapping: "ClassName:\n  npu_attr: bench_attr" (YAML subset) ---- */

struct lmap {
    char (*from)[256], (*to)[256];
    size_t n;
    int cell_to_module;     /* MindSpore problem vs PyTorch benchmark */
    char buf[8192];
};

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) *--e = '\0';
    if (*s == '\'' || *s == '"') {
        size_t l = strlen(s);
        if (l >= 2 && s[l - 1] == *s) { s[l - 1] = '\0'; s++; }
    }
    return s;
}

static int lmap_load(struct lmap *m, const char *path, struct pt_error *err) {
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
        if (!colon) { fclose(f); return pt_errorf(err, "%s: line %d: expected \"name: value\"", path, lineno); }
        *colon = '\0';
        char *k = trim(line), *v = trim(colon + 1);
        if (!indented || !*v) continue;   /* a class heading */
        void *nf = realloc(m->from, (m->n + 1) * sizeof *m->from), *nt;
        if (!nf) { fclose(f); return pt_errorf(err, "out of memory"); }
        m->from = nf;
        nt = realloc(m->to, (m->n + 1) * sizeof *m->to);
        if (!nt) { fclose(f); return pt_errorf(err, "out of memory"); }
        m->to = nt;
        snprintf(m->from[m->n], 256, "%s", k);
        snprintf(m->to[m->n], 256, "%s", v);
        m->n++;
    }
    fclose(f);
    return 0;
}

/* Renames attribute segments of an id (".from." -> ".to."). */
static const char *lmap_apply(void *ctx, const char *id) {
    struct lmap *m = ctx;
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

/* ---- csv ---- */

static void csv_field(FILE *f, const char *s) {
    int q = strpbrk(s, ",\"\r\n") != NULL;
    if (!q) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_table(FILE *f, const struct cmp_table *t, int header) {
    const char *const *h = cmp_header(t->mode);
    int n = 0;
    while (h[n]) n++;
    int cols = n + (t->has_stack ? 1 : 0);
    if (header) {
        for (int c = 0; c < n; c++) { if (c) fputc(',', f); csv_field(f, h[c]); }
        if (t->has_stack) fputs(",NPU_Stack_Info", f);
        fputc('\n', f);
    }
    static char buf[1 << 16];
    for (size_t i = 0; i < t->nrows; i++) {
        for (int c = 0; c < cols; c++) {
            if (c) fputc(',', f);
            csv_field(f, cmp_table_cell(t, &t->rows[i], c, buf, sizeof buf));
        }
        fputc('\n', f);
    }
}

/* ---- match config (msProbe's .vis.config: {name: counterpart}) ---- */

static int apply_match_config(struct cmp_graph *g, const char *path, size_t *ok, size_t *bad, struct pt_error *err) {
    cJSON *root;
    if (json_tree_file(path, &root, err) != 0) return -1;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return pt_errorf(err, "%s: expected a JSON object {problem node: benchmark node}", path);
    }
    for (cJSON *e = root->child; e; e = e->next) {
        if (!cJSON_IsString(e)) { (*bad)++; continue; }
        int a = tree_find(g->npu, e->string), b = tree_find(g->bench, e->valuestring);
        if (a < 0 || b < 0) {
            /* saved configs list the benchmark -> problem direction too */
            int ra = tree_find(g->npu, e->valuestring), rb = tree_find(g->bench, e->string);
            if (ra >= 0 && rb >= 0 && g->n[ra].bench == rb) continue;
            char x[512];
            fprintf(stderr, "probetop: %s: %s is not a node of the %s graph; skipped\n", path,
                    pt_escape(a < 0 ? e->string : e->valuestring, strlen(a < 0 ? e->string : e->valuestring), x, sizeof x),
                    a < 0 ? "problem" : "benchmark");
            (*bad)++;
            continue;
        }
        if (g->n[a].bench == b) { (*ok)++; continue; }
        struct pt_error e2;
        if (g->n[a].bench >= 0) cmp_unmatch(g, a, &e2);
        if (g->bmatch[b] >= 0) cmp_unmatch(g, g->bmatch[b], &e2);
        if (cmp_manual_match(g, a, b, 0, &e2) != 0) {
            fprintf(stderr, "probetop: %s: %s\n", path, e2.msg);
            (*bad)++;
        } else (*ok)++;
    }
    cJSON_Delete(root);
    return 0;
}

/* ---- the command ---- */

struct first {
    int have;
    int level;
    int32_t step, rank, pre;
    char name[1024];
    double worst;
};

static void consider(struct first *f, int level, int32_t step, int32_t rank, int32_t pre, const char *name, double worst) {
    if (f->have) {
        if (level < f->level) return;
        if (level == f->level && (step > f->step || (step == f->step && (pre > f->pre || (pre == f->pre && rank > f->rank)))))
            return;
    }
    f->have = 1;
    f->level = level;
    f->step = step;
    f->rank = rank;
    f->pre = pre;
    f->worst = worst;
    snprintf(f->name, sizeof f->name, "%s", name);
}

static int run(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL}, *csv = NULL, *lm = NULL, *mc = NULL;
    int first = 0, fuzzy = 0, np = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        int m = 0;
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--csv", &m, &bad)) || m) { if (v) csv = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--layer-mapping", &m, &bad)) || m) { if (v) lm = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--match-config", &m, &bad)) || m) { if (v) mc = v; continue; }
        if (!strcmp(argv[i], "--first")) { first = 1; continue; }
        if (!strcmp(argv[i], "--fuzzy-match") || !strcmp(argv[i], "-fm")) { fuzzy = 1; continue; }
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "probetop compare: unknown option %s (see probetop help compare)\n", argv[i]);
            return EXIT_USAGE;
        }
        if (np >= 2) { fprintf(stderr, "probetop compare: give two dumps, PROBLEM and BENCH\n"); return EXIT_USAGE; }
        paths[np++] = argv[i];
    }
    if (bad) return EXIT_USAGE;
    if (np != 2) { fprintf(stderr, "usage: %s\n", cmd_compare_entry.usage); return EXIT_USAGE; }
    struct pt_error err;
    struct graph_dirs d[2];
    if (graph_scan(paths[0], &d[0], &err) != 0) { fprintf(stderr, "probetop compare: %s\n", err.msg); return EXIT_USAGE; }
    if (graph_scan(paths[1], &d[1], &err) != 0) {
        fprintf(stderr, "probetop compare: %s\n", err.msg);
        graph_dirs_free(&d[0]);
        return EXIT_USAGE;
    }
    struct lmap map;
    memset(&map, 0, sizeof map);
    int rc = EXIT_OK, pairs = 0, any_error = 0;
    FILE *out = NULL;
    if (lm && lmap_load(&map, lm, &err) != 0) {
        fprintf(stderr, "probetop compare: %s\n", err.msg);
        rc = EXIT_USAGE;
        goto done;
    }
    if (csv) {
        out = strcmp(csv, "-") ? fopen(csv, "w") : stdout;
        if (!out) {
            fprintf(stderr, "probetop compare: %s: %s\n", csv, strerror(errno));
            rc = EXIT_USAGE;
            goto done;
        }
    }
    struct first fd = {0};
    for (size_t i = 0; i < d[0].n; i++) {
        size_t j;
        for (j = 0; j < d[1].n; j++)
            if (d[1].v[j].step == d[0].v[i].step && d[1].v[j].rank == d[0].v[i].rank) break;
        if (j == d[1].n) continue;
        struct tree *a = NULL, *b = NULL;
        if (graph_read(d[0].v[i].dir, 0, &a, &err) != 0 || graph_read(d[1].v[j].dir, 0, &b, &err) != 0) {
            fprintf(stderr, "probetop compare: %s\n", err.msg);
            tree_free(a);
            rc = EXIT_USAGE;
            goto done;
        }
        pairs++;
        a->step = b->step = d[0].v[i].step;
        a->rank = b->rank = d[0].v[i].rank;
        if (strcmp(a->framework, b->framework) && a->framework[0] && b->framework[0] && !lm) {
            fprintf(stderr, "probetop compare: the problem dump is %s and the benchmark %s: names differ between "
                            "frameworks, give --layer-mapping FILE\n", a->framework, b->framework);
            tree_free(a);
            tree_free(b);
            rc = EXIT_USAGE;
            goto done;
        }
        map.cell_to_module = !strcmp(a->framework, "mindspore") && strcmp(b->framework, "mindspore");
        struct cmp_opts o = {.fuzzy = fuzzy, .map = lm ? lmap_apply : NULL, .map_ctx = &map};
        struct cmp_table *t = NULL;
        if (cmp_table_new(a, b, &o, &t, &err) != 0) {
            fprintf(stderr, "probetop compare: %s\n", err.msg);
            tree_free(a);
            tree_free(b);
            rc = EXIT_USAGE;
            goto done;
        }
        if (out) csv_table(out, t, pairs == 1);
        if (t->counts[CL_ERROR]) any_error = 1;
        /* the graph: only when both sides have a structure */
        struct cmp_graph *g = NULL;
        struct pt_error gerr;
        int built = tree_build(a, &gerr) == 0 && tree_build(b, &gerr) == 0;
        if (built && cmp_graph_new(a, b, &o, &g, &gerr) == 0) {
            if (mc) {
                size_t ok = 0, nbad = 0;
                if (apply_match_config(g, mc, &ok, &nbad, &err) != 0) {
                    fprintf(stderr, "probetop compare: %s\n", err.msg);
                    rc = EXIT_USAGE;
                } else fprintf(stderr, "probetop compare: match config: %zu pairs applied, %zu failed\n", ok, nbad);
            }
            for (size_t k = 0; k < a->nnodes; k++) {
                if (g->n[k].index == CL_ERROR && a->nodes[k].kind != TK_APIS) any_error = 1;
                if (g->n[k].index >= CL_WARNING && a->nodes[k].kind != TK_APIS && g->n[k].pre >= 0)
                    consider(&fd, g->n[k].index, a->step, a->rank, g->n[k].pre, tree_id(a, (int)k), g->n[k].worst_rel);
            }
            if (!first && !(out == stdout))
                printf("step %d rank %d: %zu rows (pass %zu, warning %zu, error %zu); nodes matched %zu, "
                       "unmatched %zu problem / %zu benchmark\n", a->step, a->rank, t->nrows, t->counts[0],
                       t->counts[1], t->counts[2], g->nmatched, g->nunmatched_npu, g->nunmatched_bench);
        } else {
            if (!built) fprintf(stderr, "probetop compare: step %d rank %d: %s; the table compare still runs\n",
                                a->step, a->rank, gerr.msg);
            else fprintf(stderr, "probetop compare: %s\n", gerr.msg);
            /* no tree: the first divergent row in dump order */
            for (size_t k = 0; k < t->nrows; k++)
                if (t->rows[k].level >= CL_WARNING) {
                    const char *nm = tree_s(a, a->recs[t->rows[k].rec].name);
                    double w = -1;
                    for (int s = 0; s < 4; s++) {
                        double f;
                        if (cmp_cval_fraction(&t->rows[k].rel[s], &f) && (f > w || f != f)) w = f != f ? 1.0 / 0.0 : f;
                    }
                    consider(&fd, t->rows[k].level, a->step, a->rank, t->rows[k].rec, nm, w);
                }
            if (!first && !(out == stdout))
                printf("step %d rank %d: %zu rows (pass %zu, warning %zu, error %zu)\n", a->step, a->rank, t->nrows,
                       t->counts[0], t->counts[1], t->counts[2]);
        }
        cmp_graph_free(g);
        cmp_table_free(t);
        tree_free(a);
        tree_free(b);
    }
    if (!pairs) {
        fprintf(stderr, "probetop compare: %s and %s share no (step, rank): nothing to compare\n", paths[0], paths[1]);
        rc = EXIT_USAGE;
        goto done;
    }
    if (first) {
        if (!fd.have) printf("no divergence: every compared node passes\n");
        else {
            char w[64];
            if (fd.worst < 0) snprintf(w, sizeof w, "-");
            else {
                char f[40];
                snprintf(w, sizeof w, "%s%%", cmp_pyfloat(fd.worst * 100, f, sizeof f));
            }
            char esc[2048];
            printf("%s\t%s\tstep %d\trank %d\tworst relative error %s\n",
                   pt_escape(fd.name, strlen(fd.name), esc, sizeof esc), cmp_level_name(fd.level), fd.step, fd.rank, w);
        }
    } else if (fd.have && !(out == stdout)) {
        printf("first divergence: %s (%s) at step %d rank %d\n", fd.name, cmp_level_name(fd.level), fd.step, fd.rank);
    }
    if (rc == EXIT_OK && any_error) rc = EXIT_FOUND;
done:
    if (out && out != stdout && fclose(out) != 0) {
        fprintf(stderr, "probetop compare: %s: write failed\n", csv);
        rc = EXIT_USAGE;
    } else if (out == stdout) fflush(stdout);
    free(map.from);
    free(map.to);
    graph_dirs_free(&d[0]);
    graph_dirs_free(&d[1]);
    return rc;
}

const struct cmd_entry cmd_compare_entry = {
    .name = "compare",
    .usage = "probetop compare PROBLEM BENCH [--csv FILE|-] [--first] [--fuzzy-match] [--layer-mapping FILE] "
             "[--match-config FILE]",
    .summary = "compare two dumps as msprobe compare does: csv of every tensor, first divergent node",
    .help = "  PROBLEM, BENCH          rank folders, step folders, dump roots or dump.json files\n"
            "  --csv FILE|-            write msprobe's compare table (statistics: 27 columns + NPU_Stack_Info)\n"
            "  --first                 print only the first divergent node: name, level, step, rank,\n"
            "                          worst relative error\n"
            "  --fuzzy-match           match calls by name without call counters (msprobe -fm)\n"
            "  --layer-mapping FILE    YAML of attribute renames (ClassName: {problem: benchmark});\n"
            "                          needed when the frameworks differ\n"
            "  --match-config FILE     apply a saved match config (msprobe .vis.config JSON)\n"
            "Exit: 0 nothing at error level, 1 something is, 2 bad input.\n",
    .run = run,
};
