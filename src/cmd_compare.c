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
#include "src/cmp_files.h"
#include "src/json.h"
#include "src/read_graph.h"

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
    struct cfile_lmap map;
    memset(&map, 0, sizeof map);
    int rc = EXIT_OK, pairs = 0, any_error = 0;
    FILE *out = NULL;
    if (lm && cfile_lmap_load(&map, lm, &err) != 0) {
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
        struct cmp_opts o = {.fuzzy = fuzzy, .map = lm ? cfile_lmap_apply : NULL, .map_ctx = &map};
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
                struct cfile_report rep;
                if (cfile_match_apply(g, mc, &rep, &err) != 0) {
                    fprintf(stderr, "probetop compare: %s\n", err.msg);
                    rc = EXIT_USAGE;
                } else {
                    fprintf(stderr, "probetop compare: match config: %zu pairs applied, %zu failed%s%s\n", rep.ok,
                            rep.failed, rep.first_bad[0] ? "; first: " : "", rep.first_bad);
                }
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
    cfile_lmap_free(&map);
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
