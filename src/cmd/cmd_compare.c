/* cmd_compare: `probetop compare PROBLEM BENCH`, msProbe's `compare` table
 * (csv, same columns and values) plus the graph compare's verdict and the
 * first divergent node, for every (step, rank) the two dumps share. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/util/util.h"
#include "model/compare/compare.h"
#include "model/compare/compare_run.h"
#include "src/cmd/cmd.h"
#include "src/cmd/cmd_compare_runs.h"
#include "src/cmd/cmd_compare_visdb.h"
#include "src/cmd/compare_answer.h"
#include "src/io/compare/cmp_files.h"
#include "src/io/compare/cmp_origin.h"
#include "src/io/compare/cmp_scan.h"
#include "src/io/common/json.h"
#include "src/io/dump/read_graph.h"
#include "src/io/dump/read_npy.h"
#include "src/io/visdb/write_visdb.h"

/* ---- csv ---- */

/* A row is assembled in memory and written with one fwrite: per-character
 * stdio calls were a tenth of the command's time on a 66 000-row table. */
struct line { char *b; size_t n, cap; int oom; };

static void line_add(struct line *l, const char *s, size_t n) {
    /* the capacity asked first: a call a field otherwise */
    if (l->n + n + 1 > l->cap && util_grow((void **)&l->b, &l->cap, l->n + n + 1, 1) != 0) { l->oom = 1; return; }
    memcpy(l->b + l->n, s, n);
    l->n += n;
}

/* A field, after a comma when comma is set. */
static void csv_field(struct line *l, const char *s, int comma) {
    size_t n = strlen(s);
    if (util_ascii_run(s, n, ',', '"') == n) {   /* as it is: most of the table, with its comma in one copy */
        if (l->n + n + 2 > l->cap && util_grow((void **)&l->b, &l->cap, l->n + n + 2, 1) != 0) { l->oom = 1; return; }
        l->b[l->n] = ',';
        l->n += comma != 0;
        memcpy(l->b + l->n, s, n);
        l->n += n;
        return;
    }
    if (comma) line_add(l, ",", 1);
    char *own;
    if (!(s = pt_unctrl(s, &own))) { l->oom = 1; return; }   /* no control byte reaches a terminal */
    if (!strpbrk(s, ",\"\r\n")) { line_add(l, s, strlen(s)); free(own); return; }
    line_add(l, "\"", 1);
    const char *t = s;
    for (const char *q; (q = strchr(t, '"')); t = q + 1) {
        line_add(l, t, (size_t)(q - t) + 1);
        line_add(l, "\"", 1);
    }
    line_add(l, t, strlen(t));
    line_add(l, "\"", 1);
    free(own);
}

/* Two threads make the text of alternate blocks of rows (rows are only
 * read here) and write them in order, taking turns: the tables are tens of
 * MB, and a block's buffer is reused, so no text piles up in memory.  A
 * row is about 800 bytes with its stack column, up to 3 kB with a long
 * stack, so a block's text is 13-50 kB: two of them are what the csv holds
 * in memory (at 64 rows a block the buffers doubled to 128-256 kB each,
 * 300 kB of the 8.5 MB pair's peak). */
#define CSV_BLOCK 16
/* rows of the table made at a time (cmp_table_next), written, then reused
 * (512 rows of 92 bytes; each is one csv_table call, one thread made) */
#define CMP_BLOCK_ROWS (32 * CSV_BLOCK)
#define CSV_CELL (1 << 16)

/* The writers' buffers (a block's text and a cell's), kept for the whole
 * run: made again for every block of rows, they were a few MB of freed
 * heap that stayed resident beside the trees. */
struct csv_mem {
    struct line l[2];
    char *cell[2];
};

static void csv_mem_free(struct csv_mem *m) {
    for (int i = 0; i < 2; i++) {
        free(m->l[i].b);
        free(m->cell[i]);
    }
    memset(m, 0, sizeof *m);
}

struct csv_shared {
    const struct cmp_table *t;
    int cols;
    const char *lead;   /* "S,R," before every row (several pairs in one csv), or NULL */
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
    char *buf;          /* a cell's text (CSV_CELL bytes) */
};

static void *csv_blocks(void *arg) {
    struct csv_job *j = arg;
    struct csv_shared *sh = j->sh;
    char *buf = j->buf;
    if (!buf) j->l.oom = 1;
    for (size_t b = j->first; b < sh->nblocks; b += j->step) {
        size_t r1 = (b + 1) * CSV_BLOCK < sh->t->nrows ? (b + 1) * CSV_BLOCK : sh->t->nrows;
        for (size_t i = b * CSV_BLOCK; i < r1 && !j->l.oom; i++) {
            if (sh->lead) line_add(&j->l, sh->lead, strlen(sh->lead));
            for (int c = 0; c < sh->cols; c++)
                csv_field(&j->l, cmp_table_cell(sh->t, &sh->t->rows[i], c, buf, CSV_CELL), c);
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
    return NULL;
}

/* Writes the table's rows (after its header when header is set).  With
 * lead set ("3,5,"), every row starts with it and the header with
 * "Step,Rank,": one csv holding several (step, rank) pairs.  m: the
 * buffers, kept between calls. */
static int csv_table(FILE *f, const struct cmp_table *t, int header, const char *lead, struct csv_mem *m) {
    const char *const *h = cmp_header(t->mode);
    int n = 0;
    while (h[n]) n++;
    int cols = cmp_table_ncols(t);
    struct csv_shared sh = {.t = t, .cols = cols, .f = f, .lead = lead,
                            .nblocks = (t->nrows + CSV_BLOCK - 1) / CSV_BLOCK};
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.cv, NULL);
    for (int i = 0; i < 2; i++)
        if (!m->cell[i]) m->cell[i] = malloc(CSV_CELL);
    struct csv_job j1 = {.sh = &sh, .first = 0, .step = 2, .l = m->l[0], .buf = m->cell[0]},
                   j2 = {.sh = &sh, .first = 1, .step = 2, .l = m->l[1], .buf = m->cell[1]};
    j1.l.n = j2.l.n = 0;
    if (header) {
        if (lead) line_add(&j1.l, "Step,Rank,", 10);
        for (int c = 0; c < n; c++) csv_field(&j1.l, h[c], c);
        for (int c = n; c < cols; c++) csv_field(&j1.l, cmp_table_colname(t, c), 1);   /* NPU_Stack_Info, Data_name */
        line_add(&j1.l, "\n", 1);
        if (!sh.nblocks && !j1.l.oom) fwrite(j1.l.b, 1, j1.l.n, f);
    }
    pthread_t th;
    int threaded = sh.nblocks > 1 && pthread_create(&th, NULL, csv_blocks, &j2) == 0;
    if (!threaded) j1.step = 1;   /* one thread: every block, in order */
    csv_blocks(&j1);
    if (threaded) pthread_join(th, NULL);
    int oom = sh.oom || j1.l.oom || j2.l.oom;
    j1.l.oom = j2.l.oom = 0;
    m->l[0] = j1.l;
    m->l[1] = j2.l;
    pthread_cond_destroy(&sh.cv);
    pthread_mutex_destroy(&sh.mu);
    return oom ? -1 : 0;
}

/* ---- reading both sides at once ---- */

struct side_job {
    const char *dir;
    struct tree *t;
    struct pt_error err;
    int rc;
    int build;                /* also tree_build the tree read: brc, berr */
    int brc;
    struct pt_error berr;
};

static void *side_thread(void *arg) {
    struct side_job *j = arg;
    /* with its stacks: the tree build's recompute rule and the layer
     * mapping read them */
    j->rc = graph_read(j->dir, 0, &j->t, &j->err);
    if (j->rc == 0 && j->build) j->brc = tree_build(j->t, &j->berr);
    return NULL;
}


/* The two dumps are independent, so the benchmark side is read on a second
 * thread while this one reads the problem side, whatever the pair's size:
 * at the 8.5 MB pair the reads were 351 M of the main thread's 741 M
 * instructions one after the other (callgrind), for 0.3 MB more peak RSS
 * when side by side.  build: the benchmark tree
 * is built there too (*brc, berr: tree_build's answer), off the main
 * thread, where the problem tree is built next: with --vis-db the time to
 * the first rows is what the database thread waits for. */
static int read_pair(const char *da, const char *db, struct tree **a, struct tree **b, int build, int *brc,
                     struct pt_error *berr, struct pt_error *err) {
    struct side_job jb = {.dir = db, .build = build, .brc = -1};
    pthread_t th;
#ifdef __GLIBC__
    /* the second thread allocates from the main arena too: an arena of its
     * own kept ~12 MB of the 126 MB pair's reading that no trim gave back */
    mallopt(M_ARENA_MAX, 1);
    /* and blocks of 256 kB and more are mappings of their own, given back
     * when freed: left to glibc, the threshold rises to the size of the
     * first dump.json buffer freed (MBs), and stack.json's and
     * construct.json's buffers then stay as resident holes in the heap
     * at the pair's peak (-150 kB at the 8.5 MB pair) */
    mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
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
    if (build) {
        *brc = jb.brc;
        if (jb.brc != 0) *berr = jb.berr;
    }
#ifdef __GLIBC__
    malloc_trim(0);
#endif
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

/* ---- output files ---- */

/* A csv being written: to a temporary file beside the final one, renamed
 * into place only when complete, so an interrupted or failed write never
 * leaves a half-written table under the final name.  Standard output and
 * existing non-regular files (/dev/null, a pipe) are written directly. */
struct outf {
    FILE *f;
    char *final, *tmp;   /* tmp NULL: written directly */
    int is_stdout;
};

static int outf_open(struct outf *o, const char *path, struct pt_error *err) {
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) {
        o->f = stdout;
        o->is_stdout = 1;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) return pt_errorf(err, "%s is a folder (--out DIR writes one csv per pair)", path);
        o->f = fopen(path, "w");
        if (!o->f) return pt_errorf(err, "%s: %s", path, strerror(errno));
        return 0;
    }
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    o->final = strdup(path);
    o->tmp = malloc(strlen(path) + 32);
    if (!o->final || !o->tmp) {
        free(o->final);
        free(o->tmp);
        return pt_errorf(err, "out of memory");
    }
    snprintf(o->tmp, strlen(path) + 32, "%.*s.%s.tmpXXXXXX", (int)dl, path, path + dl);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        pt_errorf(err, "%s: cannot create: %s", path, strerror(e));
        free(o->final);
        free(o->tmp);
        o->final = o->tmp = NULL;
        return -1;
    }
    /* mkstemp makes 0600: the table gets the mode a plain fopen would give */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        free(o->final);
        free(o->tmp);
        o->final = o->tmp = NULL;
        return pt_errorf(err, "%s: %s", path, strerror(errno));
    }
    return 0;
}

/* Finishes the file: with ok set, flushes it and moves it into place
 * (-1 with err when any write failed); otherwise removes the temporary. */
static int outf_close(struct outf *o, int ok, struct pt_error *err) {
    if (!o->f) return 0;
    const char *name = o->final ? o->final : "the csv";
    /* a failed block write leaves stdio's error flag; fclose alone would
     * only see the last flush */
    int bad = ferror(o->f);
    int e = errno;
    if (o->is_stdout) bad |= fflush(stdout) != 0;
    else bad |= fclose(o->f) != 0;
    if (bad && !e) e = errno;
    o->f = NULL;
    int rc = 0;
    if (ok && bad) rc = pt_errorf(err, "%s: write failed (%s)", o->is_stdout ? "standard output" : name,
                                  e ? strerror(e) : "I/O error");
    if (o->tmp) {
        if (ok && !bad && rename(o->tmp, o->final) != 0)
            rc = pt_errorf(err, "%s: cannot move the finished csv into place: %s", o->final, strerror(errno));
        if (!ok || bad || rc) unlink(o->tmp);
    }
    free(o->final);
    free(o->tmp);
    o->final = o->tmp = NULL;
    return rc;
}

/* --out DIR: the folder, made when it does not exist (its parent must). */
static int out_dir(const char *dir, struct pt_error *err) {
    struct stat st;
    if (stat(dir, &st) == 0) return S_ISDIR(st.st_mode) ? 0 : pt_errorf(err, "--out %s: not a folder", dir);
    if (mkdir(dir, 0777) != 0) return pt_errorf(err, "--out %s: cannot create the folder: %s", dir, strerror(errno));
    return 0;
}

/* ---- the command ---- */

/* The whole-run first divergence f at level which (COMPARE_RUN_ERR, COMPARE_RUN_WARN;
 * f NULL or empty: none), printed for --first (tabbed) or as the closing
 * headline. */
static void print_first(const struct compare_run_first *f, int which, int tabbed) {
    if (!f || !f->have) {
        if (tabbed) printf("no divergence: every compared node passes\n");
        return;
    }
    const char *level = cmp_level_name(which == COMPARE_RUN_ERR ? CL_ERROR : CL_WARNING);
    if (!tabbed) {
        char where[4200];
        printf("%s: %s (%s) at step %d, micro step %d, rank %d\n",
               f->det ? "first nondeterministic operator (inputs equal, outputs differ)" : "first divergence",
               CMD_ESC(compare_run_where(f, where, sizeof where)), level, (int)f->at.step, (int)f->at.micro, (int)f->at.rank);
        return;
    }
    char w[64];
    if (f->worst < 0) snprintf(w, sizeof w, "-");
    else snprintf(w, sizeof w, "%.6g%%", f->worst * 100);   /* 50.6024%, not 50.602409638554214% */
    char esc[2048], esc2[2048];
    printf("%s\t%s\tstep %d\trank %d\tworst relative error %s\tmicro step %d\tin %s\n",
           pt_escape(f->name, strlen(f->name), esc, sizeof esc), level, (int)f->at.step, (int)f->at.rank, w,
           (int)f->at.micro, f->in ? pt_escape(f->in, strlen(f->in), esc2, sizeof esc2) : "-");
    /* md5 dumps: the determinism rule of probetop-rules(7), FIRST DIVERGENCE */
    if (f->det) printf("determinism: the first operator whose inputs' checksums equal the benchmark's and whose "
                       "outputs' differ\n");
}

/* The run's first divergence (cmp_origin_first(), probetop-rules(7),
 * FIRST DIVERGENCE): the headline, or with --first (tabbed) line 1 and the
 * origin with its chain under it.  With a layer mapping (the table compare
 * the origin rules read matches by name) ranks go in number order. */
static void print_first_origin(const struct cmp_scan_pair *pairs, size_t n, const struct compare_run_pair *sum, int fuzzy,
                               int lm, int tabbed) {
    int which;
    struct ovf_origin_report o = {0};
    struct compare_run_first f;
    struct pt_error err;
    long k = cmp_origin_first(pairs, n, sum, fuzzy, lm, tabbed && !lm ? &o : NULL, &which, &f, &err);
    if (err.msg[0]) fprintf(stderr, "probetop compare: origin across ranks: %s\n", CMD_ESC(err.msg));
    print_first(k < 0 ? NULL : &f, which, tabbed);
    if (tabbed && !lm && !err.msg[0]) ovf_origin_print_text(stdout, &o);   /* lm: no search ran */
    compare_run_first_free(&f);
    ovf_origin_report_free(&o);
}

/* The exit code once every pair was tried (compare_answer_exit), and how
 * many pairs were left out on stderr. */
static int pairs_exit(size_t n, size_t nunread, int found, int partial_ok) {
    if (!nunread || nunread == n) return compare_answer_exit(n, nunread, found, partial_ok);
    fprintf(stderr, "probetop compare: %zu of %zu (step, rank) pairs could not be compared%s\n", nunread, n,
            found ? "" : partial_ok ? " (accepted by --partial-ok)" : ": the answer covers the others only "
                                                                      "(exit 3; --partial-ok accepts it)");
    return compare_answer_exit(n, nunread, found, partial_ok);
}

/* --first alone: every pair summarized on all cores (cmp_scan.h), no table. */
static int run_first(const struct cmp_scan_pair *pairs, size_t n, struct compare_run_pair *sum, int fuzzy,
                     const struct cmp_files_lmap *map, const char *mc, int partial_ok) {
    struct cmp_scan_opts so = {.fuzzy = fuzzy, .lmap = map, .match_config = mc, .threads = util_ncores(4)};
    struct compare_answer ans;
    compare_answer_scan(&ans, pairs, n, sum, &so, "probetop compare");
    int rc = pairs_exit(n, ans.failed, ans.found, partial_ok);
    if (rc == EXIT_USAGE) return rc;
    print_first_origin(pairs, n, sum, fuzzy, map != NULL, 1);
    return rc;
}

/* What the command line of `compare` asked for. */
struct copts {
    const char *paths[2], *csv, *lm, *mc, *odir, *vis;
    int first, fuzzy, partial_ok, overflow;
};

/* Reads the options and the two dumps; EXIT_OK, else the exit status. */
static int parse_args(int argc, char **argv, struct copts *c) {
    memset(c, 0, sizeof *c);
    int np = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        int m = 0;
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--csv", &m, &bad)) || m) { if (v) c->csv = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--out", &m, &bad)) || m) { if (v) c->odir = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--layer-mapping", &m, &bad)) || m) { if (v) c->lm = v; continue; }
        if ((v = opt_value(argc, argv, &i, "-lm", &m, &bad)) || m) { if (v) c->lm = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--match-config", &m, &bad)) || m) { if (v) c->mc = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--vis-db", &m, &bad)) || m) { if (v) c->vis = v; continue; }
        if (!strcmp(argv[i], "--overflow") || !strcmp(argv[i], "-oc")) { c->overflow = 1; continue; }
        if (!strcmp(argv[i], "--first")) { c->first = 1; continue; }
        if (!strcmp(argv[i], "--partial-ok")) { c->partial_ok = 1; continue; }
        if (!strcmp(argv[i], "--fuzzy-match") || !strcmp(argv[i], "-fm")) { c->fuzzy = 1; continue; }
        if (cmd_operand(&cmd_compare_entry, argv[i], c->paths, &np) != 0) return EXIT_USAGE;
    }
    if (bad) return EXIT_USAGE;
    if (c->overflow && !c->vis) {
        fprintf(stderr, "probetop compare: --overflow goes with --vis-db FILE (the levels are stored in it)\n");
        return EXIT_USAGE;
    }
    if (np == 1 && c->vis) return EXIT_OK;   /* a build: one run into a .vis.db */
    return cmd_operands_done(&cmd_compare_entry, np);
}

/* The state of one run over the pairs. */
struct crun {
    const struct copts *c;
    struct cmp_files_lmap map;
    struct outf out;
    struct write_visdb *vis;   /* --vis-db */
    struct csv_mem csv;        /* the csv writers' buffers */
    struct compare_run_pair *sum;   /* one per pair */
    size_t npairs;
    int multi_step, quiet, lm_warned, any_error;
    size_t nunread;          /* pairs whose dumps could not be read (left out) */
    int rc;
};

/* One pair's table as its own csv in --out, named as msProbe names a
 * directory compare's: opened before the table is made, written a block
 * at a time beside the --csv file. */
static int pair_csv_open(const struct crun *r, const struct cmp_scan_pair *pp, struct outf *po, struct pt_error *err) {
    char name[4200];
    if (r->multi_step)
        snprintf(name, sizeof name, "%s/compare_result_rank%d_step%d.csv", r->c->odir, (int)pp->rank, (int)pp->step);
    else snprintf(name, sizeof name, "%s/compare_result_rank%d.csv", r->c->odir, (int)pp->rank);
    return outf_open(po, name, err);
}

/* The graph of a pair into its summary and the counts line: applies the
 * match config; 0, or -1 out of memory. */
static int report_graph(struct crun *r, size_t k, const struct tree *a, const struct cmp_table *t,
                        struct cmp_graph *g) {
    struct pt_error err;
    if (r->c->mc) {
        struct cmp_files_report rep;
        if (cmp_files_match_apply(g, r->c->mc, &rep, &err) != 0) {
            fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
            r->rc = EXIT_USAGE;
        } else {
            fprintf(stderr, "probetop compare: match config: %zu pairs applied, %zu failed%s%s\n", rep.ok,
                    rep.failed, rep.first_bad[0] ? "; first: " : "", CMD_ESC(rep.first_bad));
        }
    }
    int sumrc = compare_run_pair_from_graph(&r->sum[k], g);
    if (r->sum[k].nerror) r->any_error = 1;
    if (!r->quiet)
        printf("step %d rank %d: %zu rows (pass %zu, warning %zu, error %zu); nodes matched %zu, "
               "unmatched %zu problem / %zu benchmark\n", a->step, a->rank, t->nall, t->counts[0],
               t->counts[1], t->counts[2], g->nmatched, g->nunmatched_npu, g->nunmatched_bench);
    return sumrc;
}

/* Pair k: read, table (and csv), graph on a second thread, summary.
 * 0, or -1 when the run stops (r->rc says why). */
static int compare_pair(struct crun *r, const struct cmp_scan_pair *pp, size_t k) {
    const struct copts *c = r->c;
    struct pt_error err;
    struct tree *a = NULL, *b = NULL;
    /* the benchmark tree built on the reading thread; not with a layer
     * mapping, which reads both trees as read */
    int bbuilt = -1;
    struct pt_error gerr, berr;
    if (read_pair(pp->dir[0], pp->dir[1], &a, &b, !c->lm, &bbuilt, &berr, &err) != 0) {
        /* the other pairs are still compared; the exit says the answer is partial */
        fprintf(stderr, "probetop compare: step %d rank %d: %s; this pair is left out\n", (int)pp->step,
                (int)pp->rank, CMD_ESC(err.msg));
        r->nunread++;
        return 0;
    }
    a->step = b->step = pp->step;
    a->rank = b->rank = pp->rank;
    if (strcmp(a->framework, b->framework) && a->framework[0] && b->framework[0] && !c->lm) {
        fprintf(stderr, "probetop compare: the problem dump is %s and the benchmark %s: names differ between "
                        "frameworks, give --layer-mapping FILE (a YAML of renames, or auto)\n", CMD_ESC(a->framework),
                CMD_ESC(b->framework));
        tree_free(a);
        tree_free(b);
        r->rc = EXIT_USAGE;
        return -1;
    }
    /* the layer mapping is computed per pair, from both dumps (probetop-rules(7), MATCHING: Graph matching) */
    struct layermap *pm = NULL;
    if (c->lm) {
        char warn[2048];
        pm = cmp_files_lmap_build(&r->map, a, b, warn, sizeof warn);
        if (warn[0] && !r->lm_warned) fprintf(stderr, "probetop compare: %s\n", CMD_ESC(warn));
        r->lm_warned |= warn[0] != '\0';
    }
    struct cmp_opts o = {.fuzzy = c->fuzzy, .map = pm ? layermap_apply : NULL, .map_ctx = pm,
                         .summary_only = !r->vis && !c->mc};   /* only the summary reads the graph */
    const char *tnote = npy_setup_opts(&o, a, b);   /* tensor mode reads .npy files; .pt: statistics */
    if (tnote && k == 0) fprintf(stderr, "probetop compare: %s\n", CMD_ESC(tnote));
    /* The structure first: building only adds nodes, and once both
     * trees are built they are only read, so the graph compare runs on
     * a second thread while this one makes the table and its csv (the
     * name map and the tensor loader keep no state between calls): the
     * csv's second writer waits while this thread joins the next rows,
     * and the graph fills that core (52 M instructions off this thread
     * at the 8.5 MB pair, for up to 1 MB more peak RSS at the 32 MB one). */
    int built = tree_build(a, &gerr) == 0;
    if (built && c->lm) built = tree_build(b, &gerr) == 0;   /* the mapping read b unbuilt: built here */
    else if (built && bbuilt != 0) {   /* built on the reading thread, and that failed */
        gerr = berr;
        built = 0;
    }
    if (built) {   /* built: no record is looked up by name again; the table and csv reuse the maps' memory */
        tree_forget_records(a);
        tree_forget_records(b);
    }
    struct graph_job gj = {.a = a, .b = b, .o = &o, .rc = -1};
    pthread_t gth;
    int gthreaded = built && pthread_create(&gth, NULL, graph_thread, &gj) == 0;
    /* The table is made and written a block at a time, each block's rows
     * in the same memory: a large pair's table is never whole in memory
     * (its csv is larger than both dumps). */
    struct cmp_table *t = NULL;
    struct outf po = {0};
    struct compare_run_pair tsum = {.step = pp->step, .rank = pp->rank};
    compare_run_pair_clear(&tsum);
    int trc = cmp_table_open(a, b, &o, &t, &err);
    if (trc == 0 && c->odir) trc = pair_csv_open(r, pp, &po, &err);
    char lead[64];
    snprintf(lead, sizeof lead, "%d,%d,", (int)pp->step, (int)pp->rank);
    for (int first = 1; trc == 0; first = 0) {
        long got = cmp_table_next(t, CMP_BLOCK_ROWS, &err);
        if (got < 0) { trc = -1; break; }
        if (got == 0 && !first) break;
        if ((r->out.f && csv_table(r->out.f, t, first && k == 0, r->npairs > 1 ? lead : NULL, &r->csv) != 0) ||
            (po.f && csv_table(po.f, t, first, NULL, &r->csv) != 0))
            trc = pt_errorf(&err, "out of memory writing the csv");
        /* no structure: the first divergent row in dump order */
        else if (compare_run_pair_add_table(&tsum, t) != 0) trc = pt_errorf(&err, "out of memory");
    }
    if (po.f && outf_close(&po, trc == 0, &err) != 0) trc = -1;
    if (gthreaded) pthread_join(gth, NULL);
    else if (built) graph_thread(&gj);
    if (trc != 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        cmp_graph_free(gj.g);
        cmp_table_free(t);
        compare_run_pair_clear(&tsum);
        layermap_free(pm);
        tree_free(a);
        tree_free(b);
        r->rc = EXIT_USAGE;
        return -1;
    }
    if (t->counts[CL_ERROR]) r->any_error = 1;
    if (t->tensor_failed)
        fprintf(stderr, "probetop compare: step %d rank %d: %zu tensor files could not be read; first: %s\n",
                a->step, a->rank, t->tensor_failed, CMD_ESC(t->tensor_err));
    /* the graph: only when both sides have a structure */
    struct cmp_graph *g = gj.g;
    if (built && gj.rc != 0) gerr = gj.err;
    int sumrc = 0;
    if (g) sumrc = report_graph(r, k, a, t, g);
    else {
        if (!built) fprintf(stderr, "probetop compare: step %d rank %d: %s; the table compare still runs\n",
                            a->step, a->rank, CMD_ESC(gerr.msg));
        else fprintf(stderr, "probetop compare: %s\n", CMD_ESC(gerr.msg));
        if (r->vis) {   /* --vis-db needs the graphs */
            fprintf(stderr, "probetop compare: --vis-db needs the model structure of both runs: no database written\n");
            r->rc = EXIT_USAGE;
        }
        /* no tree: the first divergent row in dump order */
        compare_run_pair_clear(&r->sum[k]);
        r->sum[k] = tsum;
        tsum = (struct compare_run_pair){0};
        if (!r->quiet)
            printf("step %d rank %d: %zu rows (pass %zu, warning %zu, error %zu)\n", a->step, a->rank, t->nall,
                   t->counts[0], t->counts[1], t->counts[2]);
    }
    int vrc = g && r->vis && sumrc == 0 ? write_visdb_compare(r->vis, g, &err) : 0;
    if (vrc != 0) fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
    cmp_graph_free(g);
    cmp_table_free(t);
    compare_run_pair_clear(&tsum);
    layermap_free(pm);
    tree_free(a);
    tree_free(b);
    if (vrc != 0 || (r->vis && r->rc == EXIT_USAGE)) { r->rc = EXIT_USAGE; return -1; }
#ifdef __GLIBC__
    /* the pair's threads (the benchmark's reader, the graph compare) each
     * keep what they freed in a malloc arena of their own, and the next
     * pair's threads may be given other arenas: returned here, a run of
     * many pairs holds one pair's memory, not a few */
    if (r->npairs > 1) malloc_trim(0);
#endif
    if (sumrc != 0) {
        fprintf(stderr, "probetop compare: out of memory\n");
        r->rc = EXIT_USAGE;
        return -1;
    }
    return 0;
}

/* The (step, rank) pairs both dumps have, in the problem's order; how many
 * (0: none, said), -1 out of memory. */
static long pair_up(const struct graph_dirs d[2], const struct copts *c, struct cmp_scan_pair *pairs, int *multi_step) {
    size_t npairs = 0, nalone[2] = {0, 0};
    unsigned char *used = calloc(d[1].n + 1, 1);
    if (!used) return -1;
    for (size_t i = 0; i < d[0].n; i++) {
        long j = graph_pair(&d[0], &d[1], i);   /* run/step0 against run/step1 pairs by rank */
        if (j < 0) {
            /* present on the problem side only: said below, not skipped silently */
            if (nalone[0]++ < 4)
                fprintf(stderr, "probetop compare: step %d rank %d: in %s only, not compared\n", (int)d[0].v[i].step,
                        (int)d[0].v[i].rank, CMD_ESC(c->paths[0]));
            continue;
        }
        used[j] = 1;
        pairs[npairs++] = (struct cmp_scan_pair){d[0].v[i].step, d[0].v[i].rank, {d[0].v[i].dir, d[1].v[j].dir}};
        if (npairs > 1 && pairs[npairs - 1].step != pairs[0].step) *multi_step = 1;
    }
    for (size_t j = 0; j < d[1].n; j++)
        if (!used[j] && nalone[1]++ < 4)
            fprintf(stderr, "probetop compare: step %d rank %d: in %s only, not compared\n", (int)d[1].v[j].step,
                    (int)d[1].v[j].rank, CMD_ESC(c->paths[1]));
    free(used);
    if (npairs && (nalone[0] || nalone[1]))
        fprintf(stderr, "probetop compare: %zu (step, rank) pair%s in one dump only (%zu problem, %zu benchmark), "
                "not compared\n", nalone[0] + nalone[1], nalone[0] + nalone[1] == 1 ? "" : "s", nalone[0], nalone[1]);
    if (!npairs)
        fprintf(stderr, "probetop compare: %s and %s share no (step, rank): nothing to compare\n", CMD_ESC(c->paths[0]),
                CMD_ESC(c->paths[1]));
    return (long)npairs;
}

/* The database thread write_visdb_open has just started is the slowest
 * stage of the --vis-db pipeline (SQLite's inserts and index upkeep, one
 * thread by nature); the threads that read, compare and make its rows run
 * ahead of it, bounded by its queue.  So they yield to it: this thread and
 * the ones it starts from now on (they inherit it) run at a nice value 5
 * above, and on two cores the writer no longer waits behind a producer
 * whose rows would only queue (tests/bench/visdb.sh on an idle 2-core
 * machine: 3.08 s -> 2.85 s, the mean of 6 runs).  On Linux the nice value
 * is a thread's own, and under autogroup scheduling (the default) it only
 * shares out the process's CPU among its threads.  Advice: a failure
 * changes nothing. */
static void writer_first(void) {
    errno = 0;
    int pr = getpriority(PRIO_PROCESS, 0);
    if (pr != -1 || errno == 0) (void)setpriority(PRIO_PROCESS, 0, pr + 5);
}

/* Opens what the run writes: the layer mapping, --out, --csv.  0, or -1
 * (said, r->rc set). */
static int open_outputs(struct crun *r) {
    const struct copts *c = r->c;
    struct pt_error err;
    if (c->lm && cmp_files_lmap_load(&r->map, c->lm, &err) != 0) goto fail;
    if (c->vis) {
        struct write_visdb_opts vo = {.compare = 1, .overflow = c->overflow};
        if (write_visdb_open(c->vis, &vo, &r->vis, &err) != 0) goto fail;
        writer_first();
    }
    if (c->first && !c->csv && !c->odir) return 0;
    if (c->odir && out_dir(c->odir, &err) != 0) goto fail;
    if (c->csv && outf_open(&r->out, c->csv, &err) != 0) goto fail;
    return 0;
fail:
    fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
    r->rc = EXIT_USAGE;
    return -1;
}

static int run(int argc, char **argv) {
    if (cmd_compare_runs_wanted(argc, argv)) return cmd_compare_runs(argc, argv);   /* two runs of trend data */
    struct copts c;
    int prc = parse_args(argc, argv, &c);
    if (prc != EXIT_OK) return prc;
    if (!c.paths[1]) return cmd_compare_visdb_build(c.paths[0], c.vis, c.overflow);
    struct pt_error err;
    struct graph_dirs d[2];
    if (graph_scan(c.paths[0], &d[0], &err) != 0) { fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg)); return EXIT_USAGE; }
    if (graph_scan(c.paths[1], &d[1], &err) != 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        graph_dirs_free(&d[0]);
        return EXIT_USAGE;
    }
    struct crun r;
    memset(&r, 0, sizeof r);
    r.c = &c;
    r.rc = EXIT_OK;
    struct cmp_scan_pair *pairs = calloc(d[0].n + 1, sizeof *pairs);
    r.sum = calloc(d[0].n + 1, sizeof *r.sum);
    if (!pairs || !r.sum) {
        fprintf(stderr, "probetop compare: out of memory\n");
        r.rc = EXIT_USAGE;
        goto done;
    }
    long np = pair_up(d, &c, pairs, &r.multi_step);
    if (np <= 0) {
        r.rc = EXIT_USAGE;
        goto done;
    }
    r.npairs = (size_t)np;
    if (open_outputs(&r) != 0) goto done;
    if (c.first && !c.csv && !c.odir && !c.vis) {
        r.rc = run_first(pairs, r.npairs, r.sum, c.fuzzy, c.lm ? &r.map : NULL, c.mc, c.partial_ok);
        goto done;
    }
    r.quiet = c.first || r.out.is_stdout;   /* the counts lines would mix with the csv on stdout */
    for (size_t k = 0; k < r.npairs; k++)
        if (compare_pair(&r, &pairs[k], k) != 0) goto done;
    if (r.rc == EXIT_OK && (r.rc = pairs_exit(r.npairs, r.nunread, r.any_error, c.partial_ok)) == EXIT_USAGE) goto done;
    if (c.first) {
        print_first_origin(pairs, r.npairs, r.sum, c.fuzzy, c.lm != NULL, 1);
    } else if (!r.quiet) print_first_origin(pairs, r.npairs, r.sum, c.fuzzy, c.lm != NULL, 0);
done:
    if (r.vis && write_visdb_close(r.vis, r.rc != EXIT_USAGE, &err) != 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        r.rc = EXIT_USAGE;
    }
    if (r.out.f && outf_close(&r.out, r.rc != EXIT_USAGE, &err) != 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        r.rc = EXIT_USAGE;
    }
    for (size_t k = 0; r.sum && k < r.npairs; k++) compare_run_pair_clear(&r.sum[k]);
    free(r.sum);
    csv_mem_free(&r.csv);
    free(pairs);
    cmp_files_lmap_free(&r.map);
    graph_dirs_free(&d[0]);
    graph_dirs_free(&d[1]);
    return r.rc;
}

const struct cmd_entry cmd_compare_entry = {
    .name = "compare",
    .usage = "probetop compare PROBLEM BENCH [--csv FILE|-] [--out DIR] [--vis-db FILE [--overflow]] [--first] "
             "[--fuzzy-match] [--layer-mapping FILE|auto] [--match-config FILE] [--partial-ok]\n"
             "probetop compare PROBLEM BENCH [--format text|csv|json] [--csv FILE|-] [--first] [--threshold P] "
             "[--metric NAME] [--mapping FILE] [--mem SIZE] [--partial-ok]   (two runs of trend data)",
    .summary = "compare two dumps as msprobe compare does: csv of every tensor, first divergent node",
    .help = "  PROBLEM, BENCH          rank folders, step folders, dump roots or dump.json files\n"
            "  --csv FILE|-            write msprobe's compare table (statistics: 27 columns + NPU_Stack_Info);\n"
            "                          with several (step, rank) pairs, Step and Rank columns lead\n"
            "  --out DIR               one csv per pair, compare_result_rank<R>[_step<S>].csv (as msprobe)\n"
            "  --vis-db FILE           write the .vis.db msprobe graph_visualize writes (its TensorBoard\n"
            "                          plugin opens it); with one run and no BENCH, its build database\n"
            "  --overflow, -oc         with --vis-db: msprobe's overflow levels too (graph_visualize -oc)\n"
            "  --first                 print only the run's first divergence: the earliest diverging\n"
            "                          operation (node order, steps, micro steps, then ranks), error\n"
            "                          before warning: name, level, step, rank, worst relative error,\n"
            "                          micro step, enclosing module\n"
            "  --fuzzy-match           match calls by name without call counters (msprobe -fm)\n"
            "  --layer-mapping FILE|auto  msprobe -lm: map problem entries to benchmark entries by\n"
            "                          their module path and call order, renaming attributes per the\n"
            "                          YAML (ClassName: {problem_attr: bench_attr}); auto: no renames.\n"
            "                          Needed when the frameworks differ (also -lm FILE|auto)\n"
            "  --match-config FILE     apply a saved match config (msprobe .vis.config JSON)\n"
            "  --partial-ok            a (step, rank) pair whose dumps cannot be read is left out\n"
            "                          and named on stderr; accept that (exit as if complete)\n"
            "Exit: 0 nothing at error level, 1 something is, 2 bad input (nothing could be\n"
            "compared), 3 nothing at error level but some pairs could not be compared.\n"
            "Two runs of trend data (.trend.db files, monitor trees v1/v2, or one of each): the\n"
            "per-target difference table (cells, parting cells, first parting step and rank, largest\n"
            "|p-b|/|b|) and the first step x target where the runs part\n"
            "  --format text|csv|json  the table's form (text); --csv FILE|- writes it as csv\n"
            "  --threshold P           a cell parts above |p-b|/|b| P percent (1), or NaN on one side\n"
            "  --metric NAME           one metric only\n"
            "  --mapping FILE          rename the problem's target names ({\"old\": \"new\"}) to match\n"
            "  --mem SIZE              memory for a .trend.db read by slices\n"
            "  Exit: 0 the runs do not part, 1 they part, 2 bad input, 3 no part but a file unread.\n",
    .run = run,
};
