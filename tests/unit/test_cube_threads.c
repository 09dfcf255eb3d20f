/* The cube is laid out per metric on the pool's threads (issue 27 point 1;
 * model/cube/cube.c, cube_builder_finish), and a monitor tree's rows go
 * into the builder per metric on them too (src/io/monitor/monitor_cube.c).
 * With PROBETOP_THREADS=1 (every metric on the calling thread, in order,
 * as before) and =2, 4 the cube must be the same to the last bit:
 *
 *  - builder: a cube of six metrics of different sizes (past the rows
 *    that make the layout parallel), with NaN, +-Inf, values beyond
 *    float32, missing statistics, empty cells, duplicate rows (the first
 *    wins), no-tensor rows before and after rows with values, a statistic
 *    declared after rows were added, declared steps and an empty rank;
 *  - monitor: generated v1 and monitor_v2 trees with planted NaNs and Infs
 *    (micro steps as steps and as targets), and the real fixtures: the
 *    whole cube (axes, names, metrics, targets, values) and the counts
 *    `info` prints (each metric's non-finite count, counted on the pool,
 *    against one pass of cube_each_nonfinite);
 *  - steps: monitor_steps, worked out per file on the pool and merged,
 *    against the one pass over every row it was (written out here), on
 *    files of steps out of order, negative steps, micro steps, no-tensor
 *    rows and an empty file, and its error naming the first file of a
 *    micro step over CUBE_MAX_STEPS;
 *  - summary: `info`'s load (load_opts.summary: the cube's shape, no
 *    cell) against the whole cube on 1 thread, on 1/2/4 threads: axes,
 *    names, labels, each metric's statistics and targets, the no-tensor
 *    rows, the anomaly reports placed and each metric's non-finite count
 *    (the first row of a cell wins: a tree of duplicate rows written here,
 *    whose counts are also worked out by hand, and a monitor_v2 tree with
 *    one rank in two folders, and the demo's tree with its anomaly reports). */
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "pt_test.h"
#include "src/io/demo/demo_files.h"
#include "src/io/load.h"
#include "src/io/monitor/read_monitor.h"

/* 1 when a and b are the same cube, bit for bit. */
static int same_cube(const struct cube *a, const struct cube *b) {
    if (a->nsteps != b->nsteps || a->nranks != b->nranks || a->nmetrics != b->nmetrics) return 0;
    if (memcmp(a->steps, b->steps, (size_t)a->nsteps * sizeof *a->steps) ||
        memcmp(a->ranks, b->ranks, (size_t)a->nranks * sizeof *a->ranks))
        return 0;
    uint32_t nt = names_count(a->names);
    if (nt != names_count(b->names)) return 0;
    for (uint32_t t = 0; t < nt; t++) {
        const struct target *x = names_target(a->names, t), *y = names_target(b->names, t);
        if (x->len != y->len || x->vpp != y->vpp || x->call != y->call ||
            strcmp(names_str(a->names, t), names_str(b->names, t)))
            return 0;
    }
    for (int m = 0; m < a->nmetrics; m++) {
        const struct cube_metric *x = &a->metrics[m], *y = &b->metrics[m];
        if (strcmp(x->name, y->name) || x->nstats != y->nstats || x->ntargets != y->ntargets) return 0;
        for (int s = 0; s < x->nstats; s++)
            if (strcmp(x->stats[s], y->stats[s])) return 0;
        if (memcmp(x->targets, y->targets, x->ntargets * sizeof *x->targets)) return 0;
        size_t nv = (size_t)x->nstats * x->ntargets * (size_t)a->nsteps * (size_t)a->nranks;
        if (!x->vals || !y->vals || memcmp(x->vals, y->vals, nv * sizeof *x->vals)) return 0;
    }
    return 1;
}

/* The builder's cube under `threads` threads in all. */
static struct cube *built(const char *threads) {
    setenv("PROBETOP_THREADS", threads, 1);
    struct names *n = names_new();
    struct cube_builder *b = cube_builder_new(n);
    const char *st2[] = {"norm", "max"}, *st3[] = {"norm", "min", "max"};
    static const char *const mname[] = {"big", "mid", "small", "late", "sparse", "empty"};
    int m[6];
    for (int i = 0; i < 6; i++) m[i] = cube_builder_metric(b, mname[i], i % 2 ? 2 : 3, i % 2 ? st2 : st3);
    for (int s = 0; s < 12; s++) cube_builder_step(b, 100 + s, s / 3, s % 3);   /* declared, as micro steps */
    cube_builder_rank(b, 9);   /* a rank of no rows */
    char name[32];
    uint32_t t[200];
    for (int i = 0; i < 200; i++) {
        int len = snprintf(name, sizeof name, "layer.%d", i);
        t[i] = names_intern(n, name, (size_t)len, 0, i % 3);
    }
    unsigned x = 12345;
    for (int r = 0; r < 8; r++)
        for (int s = 0; s < 12; s++)
            for (int k = 0; k < 200; k++) {
                x = x * 1103515245u + 12345u;
                double v[3] = {(double)(x % 1000) / 7.0, -(double)k, 1e300};
                if (x % 97 == 0) v[0] = NAN;
                if (x % 89 == 0) v[1] = INFINITY;
                if (x % 83 == 0) v[2] = -INFINITY;
                uint32_t present = x % 13 == 0 ? 5u : 7u;
                if (x % 5) cube_builder_add(b, m[0], t[k], 100 + s, r, v, present);       /* some cells empty */
                if (k < 120) cube_builder_add(b, m[1], t[(k * 7) % 200], 100 + s, r, v, 3);
                if (k < 30 && x % 3 == 0) cube_builder_add(b, m[2], t[k], 100 + s, r, v, 7);
                if (k < 40) cube_builder_add(b, m[3], t[k + 100], 100 + s, r, v, 3);
                if (k % 50 == 0 && s % 4 == 0) cube_builder_add_notensor(b, m[4], t[k], 100 + s, r);
                if (k % 50 == 0 && s % 4 == 0 && r % 2) cube_builder_add(b, m[4], t[k], 100 + s, r, v, 3);
            }
    /* duplicates (the first wins) and a statistic declared after rows */
    double d[3] = {1, 2, 3};
    cube_builder_add(b, m[0], t[1], 100, 0, d, 7);
    cube_builder_add(b, m[2], t[0], 101, 1, d, 7);
    int late = cube_builder_stat(b, m[3], "mean");
    CHECK(late == 2);
    double l[3] = {4, 5, 6};
    cube_builder_add(b, m[3], t[199], 111, 7, l, 7);
    cube_builder_add(b, m[4], t[150], 105, 3, l, 1);
    struct cube *c = NULL;
    struct pt_error err;
    if (cube_builder_finish(b, &c, &err) != 0) {
        fprintf(stderr, "finish: %s\n", err.msg);
        c = NULL;
    }
    cube_builder_free(b);
    unsetenv("PROBETOP_THREADS");
    return c;
}

static void builder(void) {
    struct cube *one = built("1");
    CHECK(one != NULL);
    if (!one) return;
    /* what the cube must show, so that "the same" compares something */
    CHECK_INT(one->nmetrics, 6);
    CHECK_INT(one->nranks, 9);
    CHECK_INT(one->nsteps, 12);
    CHECK_INT(one->metrics[5].ntargets, 0);
    CHECK(cube_count_nonfinite(one, 0, -1, -1) > 0);
    CHECK(cube_count_present(one, 0) > 0);
    int nan_seen = 0, notensor = 0;
    const struct cube_metric *sp = &one->metrics[4];
    for (size_t i = 0; i < (size_t)sp->nstats * sp->ntargets * 12 * 9; i++) notensor += cube_is_notensor(sp->vals[i]);
    CHECK(notensor > 0);
    const struct cube_metric *bg = &one->metrics[0];
    for (size_t i = 0; i < (size_t)bg->nstats * bg->ntargets * 12 * 9; i++)
        nan_seen += isnan(bg->vals[i]) && !cube_is_missing(bg->vals[i]);
    CHECK(nan_seen > 0);
    /* the first of two rows of a cell wins, on any thread */
    int st = cube_step_find(one, 100), rk = cube_rank_find(one, 0);
    uint32_t lt = cube_local_target(one, 2, names_find(one->names, "layer.0", 7, 0, 0));
    CHECK(lt != UINT32_MAX);
    for (int k = 0; k < 3; k++) {
        const char *th = k == 0 ? "2" : k == 1 ? "3" : "4";
        struct cube *c = built(th);
        CHECK(c && same_cube(one, c));
        if (c && lt != UINT32_MAX) CHECK(cube_get(c, 2, 0, lt, st, rk) == cube_get(one, 2, 0, lt, st, rk));
        cube_free(c);
    }
    /* the late statistic: missing for the rows before it, a value after */
    int s7 = cube_step_find(one, 111), r7 = cube_rank_find(one, 7);
    uint32_t t199 = cube_local_target(one, 3, names_find(one->names, "layer.199", 9, 0, 199 % 3));
    CHECK(t199 != UINT32_MAX && cube_get(one, 3, 2, t199, s7, r7) == 6.0f);
    CHECK(cube_is_missing(cube_get(one, 3, 2, 0, 0, 0)));
    cube_free(one);
}

/* path loaded under `threads` threads (micro: --micro_step; summary: as
 * info loads it, load_opts.summary). */
static struct dataset *load_as(const char *path, const char *threads, int micro, int summary) {
    setenv("PROBETOP_THREADS", threads, 1);
    struct load_opts lo;
    load_opts_init(&lo);
    lo.micro_step = micro;
    lo.summary = summary;
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    if (load_dataset(path, &lo, &ds, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        ds = NULL;
    }
    unsetenv("PROBETOP_THREADS");
    return ds;
}
static struct dataset *load(const char *path, const char *threads, int micro) { return load_as(path, threads, micro, 0); }

/* Non-finite statistics of the cells cube_each_nonfinite visits. */
struct nf_one { const struct cube *c; size_t n; };
static int nf_cell(void *ctx, int metric, uint32_t lt, int step, int rank, const float *vals) {
    struct nf_one *k = ctx;
    (void)lt, (void)step, (void)rank;
    for (int s = 0; s < k->c->metrics[metric].nstats; s++)
        if (!isfinite(vals[s]) && !cube_is_missing(vals[s])) k->n++;
    return 0;
}

static void same_loads(const char *path) {
    for (int micro = 0; micro < 2; micro++) {
        struct dataset *one = load(path, "1", micro);
        CHECK(one != NULL);
        if (!one) continue;
        for (int k = 0; k < 2; k++) {
            struct dataset *ds = load(path, k ? "4" : "2", micro);
            CHECK(ds != NULL);
            if (!ds) continue;
            int same = same_cube(one->cube, ds->cube);
            if (!same) fprintf(stderr, "%s (micro %d): the cube differs between 1 and %s threads\n", path, micro, k ? "4" : "2");
            CHECK(same);
            CHECK_INT(ds->notensor_rows, one->notensor_rows);
            for (int m = 0; m < one->cube->nmetrics; m++) {
                struct nf_one k = {one->cube, 0};
                struct pt_error e;
                CHECK(cube_each_nonfinite(one->cube, m, -1, -1, nf_cell, &k, &e) == 0);
                CHECK_INT(cube_count_nonfinite(ds->cube, m, -1, -1), k.n);
            }
            CHECK_INT(names_label_count(ds->cube->names), names_label_count(one->cube->names));
            dataset_free(ds);
        }
        dataset_free(one);
    }
}

static void monitor(void) {
    const char *py = getenv("PT_PYTHON"), *g = pt_tool("gen_dump.py"), *tmp = pt_tmpdir("cube_threads");
    if (!py || !py[0] || !g || !tmp) SKIP("python3 or tests/gen_dump.py absent");
    char cmd[8192], v1[1200], v2[1200];
    snprintf(v1, sizeof v1, "%s/v1", tmp);
    snprintf(v2, sizeof v2, "%s/v2", tmp);
    /* 6 ranks of 8 steps: past the rows that make both steps parallel */
    snprintf(cmd, sizeof cmd,
             "'%s' '%s' --out '%s' --monitor --steps 8 --ranks 6 --layers 2 --micro-batches 2 --nan 3:1:mlp "
             "--nan 5:2:attn:inf --quiet >/dev/null 2>&1 && '%s' '%s' --out '%s' --monitor --monitor-v2 --steps 8 "
             "--ranks 6 --layers 2 --micro-batches 2 --nan 3:1:mlp --nan 5:2:attn:inf --quiet >/dev/null 2>&1",
             py, g, v1, py, g, v2);
    if (system(cmd) != 0) SKIP("tests/gen_dump.py failed");
    struct dataset *ds = load(v1, "1", 1);
    CHECK(ds && cube_count_nonfinite(ds->cube, 0, -1, -1) + cube_count_nonfinite(ds->cube, 1, -1, -1) > 0);
    size_t rows = 0;
    for (int m = 0; ds && m < ds->cube->nmetrics; m++) rows += cube_count_present(ds->cube, m);
    CHECK(rows >= 16384 * 6);   /* present cells, every statistic: rows enough for the threads */
    dataset_free(ds);
    same_loads(v1);
    same_loads(v2);
    static const char *const fixtures[] = {"msprobe/derived/synthetic_monitor_output", "msprobe/derived/monitor_v2_output",
                                           "nonfinite/monitor"};
    const char *src = getenv("PT_SRC");
    for (size_t i = 0; src && i < sizeof fixtures / sizeof *fixtures; i++) {
        char p[2048];
        snprintf(p, sizeof p, "%s/tests/data/%s", src, fixtures[i]);
        same_loads(p);
    }
}

/* The step axis as one pass over every row in the files' order (the
 * serial monitor_steps): orig/count of the micro steps, or the range. */
static void steps_serial(const struct monitor_data *md, int micro, int32_t *orig, int32_t *count, size_t *n,
                         int32_t *min, int32_t *max, size_t *notensor) {
    int any = 0;
    *n = 0, *min = 0, *max = 0, *notensor = 0;
    for (size_t i = 0; i < md->nfiles; i++)
        for (size_t r = 0; r < md->files[i].nrows; r++) {
            const struct monitor_row *row = &md->files[i].rows[r];
            *notensor += (row->present & MONITOR_ROW_NOTENSOR) != 0;
            if (!any || row->step < *min) *min = row->step;
            if (row->step > *max) *max = row->step;
            any = 1;
            size_t j = 0;
            while (j < *n && orig[j] < row->step) j++;
            if (j == *n || orig[j] != row->step) {
                memmove(orig + j + 1, orig + j, (*n - j) * sizeof *orig);
                memmove(count + j + 1, count + j, (*n - j) * sizeof *count);
                orig[j] = row->step, count[j] = 0, (*n)++;
            }
            if (row->micro + 1 > count[j]) count[j] = row->micro + 1;
        }
    if (micro) {
        int32_t off = 0;
        for (size_t j = 0; j < *n; j++) off += count[j];
        *min = 0, *max = off - 1;
    }
}

static void steps(void) {
    enum { NF = 9, ROWS = 5000, NSTEP = 64 };
    struct monitor_file f[NF];
    struct monitor_row *rows = calloc((size_t)NF * ROWS, sizeof *rows);
    CHECK(rows != NULL);
    if (!rows) return;
    memset(f, 0, sizeof f);
    unsigned x = 12345;
    for (int i = 0; i < NF; i++) {
        f[i].path = i % 2 ? "odd.csv" : "even.csv";
        f[i].rows = rows + (size_t)i * ROWS;
        f[i].nrows = i == 4 ? 0 : ROWS;   /* file 4: no row */
        for (size_t r = 0; r < f[i].nrows; r++) {
            x = x * 1103515245u + 12345u;
            struct monitor_row *w = &f[i].rows[r];
            /* runs of a step, in no order across files; some negative */
            w->step = (int32_t)((r / 97 + (size_t)i * 7) % NSTEP) - (i == 6 ? 20 : 0);
            w->micro = (int32_t)((x >> 8) % (unsigned)(1 + i % 4));
            w->present = (x >> 20) % 11 == 0 ? MONITOR_ROW_NOTENSOR : 1u;
        }
    }
    struct monitor_data md;
    memset(&md, 0, sizeof md);
    md.files = f;
    md.nfiles = NF;
    int32_t orig[2 * NSTEP + 40], count[2 * NSTEP + 40], min, max;
    size_t n, notensor;
    static const char *const th[] = {"1", "2", "4"};
    for (int micro = 0; micro < 2; micro++) {
        steps_serial(&md, micro, orig, count, &n, &min, &max, &notensor);
        CHECK(notensor > 0 && n > NSTEP / 2);
        for (size_t t = 0; t < 3; t++) {
            setenv("PROBETOP_THREADS", th[t], 1);
            struct monitor_steps s;
            struct pt_error e;
            CHECK(monitor_steps(&md, micro, &s, &e) == 0);
            CHECK_INT(s.notensor, notensor);
            CHECK_INT(s.min_step, min);
            CHECK_INT(s.max_step, max);
            if (micro) {
                CHECK_INT(s.n, n);
                CHECK(s.n == n && !memcmp(s.orig, orig, n * sizeof *orig) && !memcmp(s.count, count, n * sizeof *count));
                int32_t off = 0;
                for (size_t j = 0; j < n && j < s.n; j++) {
                    CHECK_INT(s.offset[j], off);
                    off += count[j];
                }
            }
            monitor_steps_free(&s);
        }
    }
    /* micro steps over the limit in files 5 and 3: the message names file 3's row */
    f[5].rows[10].micro = CUBE_MAX_STEPS + 5;
    f[3].rows[4000].micro = CUBE_MAX_STEPS;
    f[3].rows[4000].step = 77;
    for (size_t t = 0; t < 3; t++) {
        setenv("PROBETOP_THREADS", th[t], 1);
        struct monitor_steps s;
        struct pt_error e = {{0}};
        CHECK(monitor_steps(&md, 1, &s, &e) != 0);
        CHECK(strstr(e.msg, "odd.csv: micro_step 1000000 at step 77:") == e.msg);
        CHECK(monitor_steps(&md, 0, &s, &e) == 0);   /* steps, not micro steps: no limit */
        monitor_steps_free(&s);
    }
    unsetenv("PROBETOP_THREADS");
    free(rows);
}

/* 1 when s (a summary load) says what the whole cube of w says to info. */
static int same_summary(const struct dataset *w, const struct dataset *s) {
    const struct cube *a = w->cube, *b = s->cube;
    if (!s->nonfinite || a->nsteps != b->nsteps || a->nranks != b->nranks || a->nmetrics != b->nmetrics ||
        memcmp(a->steps, b->steps, (size_t)a->nsteps * sizeof *a->steps) ||
        memcmp(a->ranks, b->ranks, (size_t)a->nranks * sizeof *a->ranks) ||
        names_count(a->names) != names_count(b->names) || names_label_count(a->names) != names_label_count(b->names) ||
        w->notensor_rows != s->notensor_rows || w->anomalies.n != s->anomalies.n ||
        w->anomalies.placed != s->anomalies.placed)
        return 0;
    for (uint32_t t = 0; t < names_count(a->names); t++)
        if (strcmp(names_str(a->names, t), names_str(b->names, t)) ||
            names_target(a->names, t)->call != names_target(b->names, t)->call ||
            names_target(a->names, t)->vpp != names_target(b->names, t)->vpp)
            return 0;
    for (int m = 0; m < a->nmetrics; m++) {
        const struct cube_metric *x = &a->metrics[m], *y = &b->metrics[m];
        if (strcmp(x->name, y->name) || x->nstats != y->nstats || x->ntargets != y->ntargets || y->vals ||
            memcmp(x->targets, y->targets, x->ntargets * sizeof *x->targets) ||
            cube_count_nonfinite(a, m, -1, -1) != s->nonfinite[m])
            return 0;
        for (int st = 0; st < x->nstats; st++)
            if (strcmp(x->stats[st], y->stats[st])) return 0;
    }
    return 1;
}

static void same_summaries(const char *path) {
    static const char *const th[] = {"1", "2", "4"};
    for (int micro = 0; micro < 2; micro++) {
        struct dataset *whole = load(path, "1", micro);
        CHECK(whole != NULL);
        for (size_t k = 0; whole && k < sizeof th / sizeof *th; k++) {
            struct dataset *s = load_as(path, th[k], micro, 1);
            int same = s && same_summary(whole, s);
            if (!same) fprintf(stderr, "%s (micro %d, %s threads): the summary differs from the cube\n", path, micro, th[k]);
            CHECK(same);
            dataset_free(s);
        }
        dataset_free(whole);
    }
}

static void put(const char *dir, const char *file, const char *text) {
    char p[2400];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("vpp_stage,name,step,micro_step,norm,min,max,mean,nans,zeros,shape,dtype\n", f);
    fputs(text, f);
    fclose(f);
}

/* Duplicate rows: the cell's first row is the one counted, whatever the
 * later rows hold (a NaN first then a number, a number then Infs, a
 * no-tensor row then an Inf, a later file over an earlier one's cell). */
static void summary(void) {
    const char *tmp = pt_tmpdir("cube_summary");
    if (!tmp) SKIP("no temporary folder");
    char t[1200], r0[1300], r1[1300];
    snprintf(t, sizeof t, "%s/dup", tmp);
    snprintf(r0, sizeof r0, "%s/Dec03_21-34-40-rank0-1a2b3c4d", t);
    snprintf(r1, sizeof r1, "%s/Dec03_21-34-40-rank1-5e6f7a8b", t);
    CHECK(mkdir(t, 0755) == 0 && mkdir(r0, 0755) == 0 && mkdir(r1, 0755) == 0);
    const char *x = ",\"[2]\",torch.float32\n";
    char b[4096];
    snprintf(b, sizeof b,
             "0,a.x,0,0,nan,1,2,3,0,0%s0,a.x,0,0,1,2,3,4,0,0%s"          /* NaN first: 1 */
             "0,a.y,0,0,1,2,3,4,0,0%s0,a.y,0,0,inf,-inf,3,4,0,0%s"       /* a number first: 0 */
             "0,a.z,0,0,nan,nan,nan,nan,nan,nan,nan,nan\n0,a.z,0,0,inf,1,1,1,0,0%s"   /* no tensor first: 0 */
             "0,a.w,0,1,1e300,nan,,4,0,0%s",   /* beyond float32 (finite), NaN, empty (NaN, as pandas reads it): 2 */
             x, x, x, x, x, x);
    put(r0, "actv_0-0.csv", b);
    snprintf(b, sizeof b, "0,a.x,0,0,inf,inf,inf,inf,0,0%s0,a.v,1,0,-inf,1,2,3,0,0%s", x, x);   /* 0, then 1 */
    put(r0, "actv_0-1.csv", b);
    snprintf(b, sizeof b, "0,a.x,0,0,1,2,3,4,0,0%s0,a.x,0,0,nan,nan,nan,nan,0,0%s", x, x);   /* 0 */
    put(r1, "actv_0-0.csv", b);
    snprintf(b, sizeof b, "0,a.x,0,0,nan,nan,1,1,0,0%s1,a.x,0,0,inf,1,1,1,0,0%s", x, x);   /* 2, vpp 1 another target: 1 */
    put(r1, "actv_grad_0-0.csv", b);
    for (int micro = 0; micro < 2; micro++) {
        struct dataset *w = load(t, "1", micro), *s = load_as(t, "2", micro, 1);
        CHECK(w && s);
        if (w && s) {
            CHECK_INT(w->cube->nmetrics, 2);
            CHECK_INT(cube_count_nonfinite(w->cube, 0, -1, -1), 4);
            CHECK_INT(cube_count_nonfinite(w->cube, 1, -1, -1), 3);
            CHECK(same_summary(w, s));
        }
        dataset_free(w);
        dataset_free(s);
    }
    same_summaries(t);
    /* monitor_v2: one rank in two folders (rank_1, rank_01), a cell in both: the rank is summed up whole */
    char v[1300], f1[1400], f2[1400];
    snprintf(v, sizeof v, "%s/v2dup", tmp);
    snprintf(f1, sizeof f1, "%s/rank_1", v);
    snprintf(f2, sizeof f2, "%s/rank_01", v);
    CHECK(mkdir(v, 0755) == 0 && mkdir(f1, 0755) == 0 && mkdir(f2, 0755) == 0);
    static const char *const v2rows[] = {
        "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\n0,0,m.a.input.0,forward,1,2,3,4,0\n"
        "0,0,m.b.input.0,forward,inf,2,3,4,0\n",
        "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\n0,0,m.a.input.0,forward,nan,nan,3,4,0\n"
        "0,0,m.b.input.0,forward,1,2,3,4,0\n0,0,m.c.input.0,forward,1,-inf,3,4,0\n"};
    for (int i = 0; i < 2; i++) {
        char p[1500];
        snprintf(p, sizeof p, "%s/module_step0-0.csv", i ? f2 : f1);
        FILE *fp = fopen(p, "w");
        CHECK(fp != NULL);
        if (fp) { fputs(v2rows[i], fp); fclose(fp); }
    }
    same_summaries(v);
    /* the demo's monitor tree: msProbe's anomaly reports placed on the summary cube as on the whole one */
    const char *dd = pt_tmpdir("cube_summary_demo");
    struct demo_files df;
    struct pt_error derr;
    if (dd && demo_files_make(&df, &derr) == 0) {
        CHECK_INT(demo_files_write(&df, dd, &derr), 0);
        char p[1400];
        snprintf(p, sizeof p, "%s/%s", dd, DEMO_FILES_MONITOR);
        struct dataset *s = load_as(p, "2", 1, 1);
        CHECK(s && s->anomalies.placed == 2);
        dataset_free(s);
        same_summaries(p);
        demo_files_free(&df);
    }
    const char *py = getenv("PT_PYTHON"), *g = pt_tool("gen_dump.py");
    if (py && py[0] && g) {
        char cmd[8192], v1[1300], v2[1300];
        snprintf(v1, sizeof v1, "%s/v1", tmp);
        snprintf(v2, sizeof v2, "%s/v2", tmp);
        snprintf(cmd, sizeof cmd,
                 "'%s' '%s' --out '%s' --monitor --steps 8 --ranks 6 --layers 2 --micro-batches 2 --nan 3:1:mlp "
                 "--nan 5:2:attn:inf --quiet >/dev/null 2>&1 && '%s' '%s' --out '%s' --monitor --monitor-v2 --steps 8 "
                 "--ranks 6 --layers 2 --micro-batches 2 --nan 3:1:mlp --nan 5:2:attn:inf --quiet >/dev/null 2>&1",
                 py, g, v1, py, g, v2);
        CHECK(system(cmd) == 0);
        same_summaries(v1);
        same_summaries(v2);
    }
    static const char *const fixtures[] = {"msprobe/derived/synthetic_monitor_output", "msprobe/derived/monitor_v2_output",
                                           "nonfinite/monitor"};
    const char *src = getenv("PT_SRC");
    for (size_t i = 0; src && i < sizeof fixtures / sizeof *fixtures; i++) {
        char p[2048];
        snprintf(p, sizeof p, "%s/tests/data/%s", src, fixtures[i]);
        same_summaries(p);
    }
}

int main(void) {
    RUN(builder);
    RUN(monitor);
    RUN(steps);
    RUN(summary);
    PT_DONE();
}
