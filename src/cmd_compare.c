/* cmd_compare: `probetop compare PROBLEM BENCH`, msProbe's `compare` table
 * (csv, same columns and values) plus the graph compare's verdict and the
 * first divergent node, for every (step, rank) the two dumps share. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/bigmem.h"
#include "model/compare.h"
#include "src/cmd.h"
#include "src/cmp_files.h"
#include "src/json.h"
#include "src/read_graph.h"
#include "src/read_npy.h"

/* ---- csv ---- */

/* A row is assembled in memory and written with one fwrite: per-character
 * stdio calls were a tenth of the command's time on a 66 000-row table. */
struct line { char *b; size_t n, cap; int oom; };

static void line_add(struct line *l, const char *s, size_t n) {
    if (l->n + n + 1 > l->cap) {
        size_t nc = l->cap ? l->cap : 4096;
        while (nc < l->n + n + 1) nc *= 2;
        char *nb = big_realloc(l->b, nc);
        if (!nb) { l->oom = 1; return; }
        l->b = nb;
        l->cap = nc;
    }
    memcpy(l->b + l->n, s, n);
    l->n += n;
}

static void csv_field(struct line *l, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) { line_add(l, s, strlen(s)); return; }
    line_add(l, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        line_add(l, s, (size_t)(q - s) + 1);
        line_add(l, "\"", 1);
    }
    line_add(l, s, strlen(s));
    line_add(l, "\"", 1);
}

/* Two threads make the text of alternate blocks of rows (rows are only
 * read here) and write them in order, taking turns: the tables are tens of
 * MB, and a block's buffer is reused, so no text piles up in memory. */
#define CSV_BLOCK 1024

struct csv_shared {
    const struct cmp_table *t;
    int cols;
    FILE *f;
    size_t nblocks;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t turn;        /* the block to be written next */
    int oom;            /* a writer ran out of memory: everyone stops */
};

struct csv_job {
    struct csv_shared *sh;
    size_t first, step; /* blocks first, first + step, ... */
    struct line l;      /* the header, then one block at a time */
};

static void *csv_blocks(void *arg) {
    struct csv_job *j = arg;
    struct csv_shared *sh = j->sh;
    char *buf = malloc(1 << 16);
    if (!buf) j->l.oom = 1;
    for (size_t b = j->first; b < sh->nblocks; b += j->step) {
        size_t r1 = (b + 1) * CSV_BLOCK < sh->t->nrows ? (b + 1) * CSV_BLOCK : sh->t->nrows;
        for (size_t i = b * CSV_BLOCK; i < r1 && !j->l.oom; i++) {
            for (int c = 0; c < sh->cols; c++) {
                if (c) line_add(&j->l, ",", 1);
                csv_field(&j->l, cmp_table_cell(sh->t, &sh->t->rows[i], c, buf, 1 << 16));
            }
            line_add(&j->l, "\n", 1);
        }
        pthread_mutex_lock(&sh->mu);
        if (j->l.oom) sh->oom = 1;
        while (sh->turn != b && !sh->oom) pthread_cond_wait(&sh->cv, &sh->mu);
        int stop = sh->oom;
        pthread_mutex_unlock(&sh->mu);
        if (stop) break;
        fwrite(j->l.b, 1, j->l.n, sh->f);
        j->l.n = 0;
        pthread_mutex_lock(&sh->mu);
        sh->turn++;
        pthread_cond_broadcast(&sh->cv);
        pthread_mutex_unlock(&sh->mu);
    }
    if (j->l.oom) {
        pthread_mutex_lock(&sh->mu);
        sh->oom = 1;
        pthread_cond_broadcast(&sh->cv);
        pthread_mutex_unlock(&sh->mu);
    }
    free(buf);
    return NULL;
}

static int csv_table(FILE *f, const struct cmp_table *t, int header) {
    const char *const *h = cmp_header(t->mode);
    int n = 0;
    while (h[n]) n++;
    int cols = cmp_table_ncols(t);
    struct csv_shared sh = {.t = t, .cols = cols, .f = f, .nblocks = (t->nrows + CSV_BLOCK - 1) / CSV_BLOCK};
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.cv, NULL);
    struct csv_job j1 = {.sh = &sh, .first = 0, .step = 2}, j2 = {.sh = &sh, .first = 1, .step = 2};
    if (header) {
        for (int c = 0; c < n; c++) {
            if (c) line_add(&j1.l, ",", 1);
            csv_field(&j1.l, h[c]);
        }
        for (int c = n; c < cols; c++) {   /* NPU_Stack_Info, Data_name */
            line_add(&j1.l, ",", 1);
            csv_field(&j1.l, cmp_table_colname(t, c));
        }
        line_add(&j1.l, "\n", 1);
        if (!sh.nblocks && !j1.l.oom) fwrite(j1.l.b, 1, j1.l.n, f);
    }
    pthread_t th;
    int threaded = sh.nblocks > 1 && pthread_create(&th, NULL, csv_blocks, &j2) == 0;
    if (!threaded) j1.step = 1;   /* one thread: every block, in order */
    csv_blocks(&j1);
    if (threaded) pthread_join(th, NULL);
    int oom = sh.oom || j1.l.oom || j2.l.oom;
    free(j1.l.b);
    free(j2.l.b);
    pthread_cond_destroy(&sh.cv);
    pthread_mutex_destroy(&sh.mu);
    return oom ? -1 : 0;
}

/* ---- reading both sides at once ---- */

struct side_job { const char *dir; struct tree *t; struct pt_error err; int rc; int with_stack; };

static void *side_thread(void *arg) {
    struct side_job *j = arg;
    /* the csv's NPU_Stack_Info is the problem side's: no stacks here, unless
     * the layer mapping needs the benchmark's call stacks */
    j->rc = graph_read(j->dir, j->with_stack ? 0 : GRAPH_NO_STACK, &j->t, &j->err);
    return NULL;
}

/* The two dumps are independent, so the benchmark side is read on a second
 * thread while this one reads the problem side. */
static int read_pair(const char *da, const char *db, int bench_stack, struct tree **a, struct tree **b,
                     struct pt_error *err) {
    struct side_job jb = {.dir = db, .with_stack = bench_stack};
    pthread_t th;
    int threaded = pthread_create(&th, NULL, side_thread, &jb) == 0;
    int ra = graph_read(da, 0, a, err);
    if (threaded) pthread_join(th, NULL);
    else side_thread(&jb);
    if (ra == 0 && jb.rc != 0) *err = jb.err;
    if (ra != 0 || jb.rc != 0) {
        tree_free(*a);
        tree_free(jb.t);
        *a = *b = NULL;
        return -1;
    }
    *b = jb.t;
    return 0;
}

struct graph_job {
    struct tree *a, *b;
    const struct cmp_opts *o;
    struct cmp_graph *g;
    struct pt_error err;
    int rc;
};

static void *graph_thread(void *arg) {
    struct graph_job *j = arg;
    j->rc = cmp_graph_new(j->a, j->b, j->o, &j->g, &j->err);
    if (j->rc != 0) j->g = NULL;
    return NULL;
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
        if ((v = opt_value(argc, argv, &i, "-lm", &m, &bad)) || m) { if (v) lm = v; continue; }
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
    if (np != 2) {
        /* name what is missing, as the other commands do */
        fprintf(stderr, "probetop compare: %s missing\nusage: %s\n", np == 0 ? "PROBLEM and BENCH are" : "BENCH is",
                cmd_compare_entry.usage);
        return EXIT_USAGE;
    }
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
    int rc = EXIT_OK, pairs = 0, any_error = 0, lm_warned = 0;
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
        if (read_pair(d[0].v[i].dir, d[1].v[j].dir, lm != NULL, &a, &b, &err) != 0) {
            fprintf(stderr, "probetop compare: %s\n", err.msg);
            rc = EXIT_USAGE;
            goto done;
        }
        pairs++;
        a->step = b->step = d[0].v[i].step;
        a->rank = b->rank = d[0].v[i].rank;
        if (strcmp(a->framework, b->framework) && a->framework[0] && b->framework[0] && !lm) {
            fprintf(stderr, "probetop compare: the problem dump is %s and the benchmark %s: names differ between "
                            "frameworks, give --layer-mapping FILE (a YAML of renames, or auto)\n", a->framework, b->framework);
            tree_free(a);
            tree_free(b);
            rc = EXIT_USAGE;
            goto done;
        }
        /* the layer mapping is computed per pair, from both dumps (§3.3) */
        struct lmap *pm = NULL;
        if (lm) {
            char warn[2048];
            pm = cfile_lmap_build(&map, a, b, warn, sizeof warn);
            if (warn[0] && !lm_warned) fprintf(stderr, "probetop compare: %s\n", warn);
            lm_warned |= warn[0] != '\0';
        }
        struct cmp_opts o = {.fuzzy = fuzzy, .map = pm ? lmap_apply : NULL, .map_ctx = pm};
        const char *tnote = npy_setup_opts(&o, a, b);   /* tensor mode reads .npy files; .pt: statistics */
        if (tnote && pairs == 1) fprintf(stderr, "probetop compare: %s\n", tnote);
        /* The structure first: building only adds nodes, and once both
         * trees are built they are only read, so the graph compare runs on
         * a second thread while this one makes the table and its csv (the
         * name map and the tensor loader keep no state between calls). */
        struct pt_error gerr;
        int built = tree_build(a, &gerr) == 0 && tree_build(b, &gerr) == 0;
        struct graph_job gj = {.a = a, .b = b, .o = &o, .rc = -1};
        pthread_t gth;
        int gthreaded = built && pthread_create(&gth, NULL, graph_thread, &gj) == 0;
        struct cmp_table *t = NULL;
        int trc = cmp_table_new(a, b, &o, &t, &err);
        if (trc == 0 && out && csv_table(out, t, pairs == 1) != 0) trc = pt_errorf(&err, "out of memory writing the csv");
        if (gthreaded) pthread_join(gth, NULL);
        else if (built) graph_thread(&gj);
        if (trc != 0) {
            fprintf(stderr, "probetop compare: %s\n", err.msg);
            cmp_graph_free(gj.g);
            cmp_table_free(t);
            lmap_free(pm);
            tree_free(a);
            tree_free(b);
            rc = EXIT_USAGE;
            goto done;
        }
        if (t->counts[CL_ERROR]) any_error = 1;
        if (t->tensor_failed)
            fprintf(stderr, "probetop compare: step %d rank %d: %zu tensor files could not be read; first: %s\n",
                    a->step, a->rank, t->tensor_failed, t->tensor_err);
        /* the graph: only when both sides have a structure */
        struct cmp_graph *g = gj.g;
        if (built && gj.rc != 0) gerr = gj.err;
        if (g) {
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
                    double w = -1, f;
                    if (cmp_row_worst(&t->rows[k], t->mode, &f) && f > w) w = f;
                    consider(&fd, t->rows[k].level, a->step, a->rank, t->rows[k].rec, nm, w);
                }
            if (!first && !(out == stdout))
                printf("step %d rank %d: %zu rows (pass %zu, warning %zu, error %zu)\n", a->step, a->rank, t->nrows,
                       t->counts[0], t->counts[1], t->counts[2]);
        }
        cmp_graph_free(g);
        cmp_table_free(t);
        lmap_free(pm);
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
                /* 6 significant digits: 50.6024%, not 50.602409638554214% */
                snprintf(w, sizeof w, "%.6g%%", fd.worst * 100);
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
    if (out) {
        /* a failed block write leaves stdio's error flag; fclose alone
         * would only see the last flush */
        int bad_write = ferror(out);
        if (out == stdout) bad_write |= fflush(stdout) != 0;
        else bad_write |= fclose(out) != 0;
        if (bad_write) {
            fprintf(stderr, "probetop compare: %s: write failed (%s)\n", csv, errno ? strerror(errno) : "I/O error");
            rc = EXIT_USAGE;
        }
    }
    cfile_lmap_free(&map);
    graph_dirs_free(&d[0]);
    graph_dirs_free(&d[1]);
    return rc;
}

const struct cmd_entry cmd_compare_entry = {
    .name = "compare",
    .usage = "probetop compare PROBLEM BENCH [--csv FILE|-] [--first] [--fuzzy-match] [--layer-mapping FILE|auto] "
             "[--match-config FILE]",
    .summary = "compare two dumps as msprobe compare does: csv of every tensor, first divergent node",
    .help = "  PROBLEM, BENCH          rank folders, step folders, dump roots or dump.json files\n"
            "  --csv FILE|-            write msprobe's compare table (statistics: 27 columns + NPU_Stack_Info)\n"
            "  --first                 print only the first divergent node: name, level, step, rank,\n"
            "                          worst relative error\n"
            "  --fuzzy-match           match calls by name without call counters (msprobe -fm)\n"
            "  --layer-mapping FILE|auto  msprobe -lm: map problem entries to benchmark entries by\n"
            "                          their module path and call order, renaming attributes per the\n"
            "                          YAML (ClassName: {problem_attr: bench_attr}); auto: no renames.\n"
            "                          Needed when the frameworks differ (also -lm FILE|auto)\n"
            "  --match-config FILE     apply a saved match config (msprobe .vis.config JSON)\n"
            "Exit: 0 nothing at error level, 1 something is, 2 bad input.\n",
    .run = run,
};
