/* test_reload: follow mode's reload of a monitor tree or a dump parses
 * only what changed (src/io/monitor/mon_cache.h, src/io/dump/dump_cache.h), and gives
 * what a fresh load gives.
 *
 * Each step below changes a v1 or monitor_v2 tree (or a dump) the way a training or
 * a user does, loads it through one cache kept across the loads, and
 * compares the result with a fresh load (no cache) cell by cell: metrics,
 * statistics, steps, ranks, target names in order, every value's bits,
 * the warnings, skipped and pending files, files and bytes read.  The
 * cache's counts say what was parsed again:
 * - nothing changed: every file kept;
 * - rows appended to a file, a new step's file, a file rewritten with the
 *   same size: that file parsed again, the rest kept;
 * - a file removed: its part dropped;
 * - a file being written (a row without its line end, in follow mode):
 *   pending on every load, never kept;
 * - a file with a bad header: its warning and skip said on every load;
 * - another --mapping: everything parsed again, names renamed;
 * - progressive rounds (max_steps) then the whole load.
 * A dump likewise, by rank folder: new step folders, a rewritten
 * dump.json, a folder removed, one being written, a NaN's overflow
 * records, notes said for many folders at once, and a budget that keeps
 * nothing. */
#include "pt_test.h"

#include <time.h>
#include <utime.h>

#include "model/cube/cube.h"
#include "model/cube/names.h"
#include "src/io/load.h"
#include "src/io/dump/dump_cache.h"
#include "src/io/monitor/mon_cache.h"

/* Sets a file's times an hour back: older than the cache's one-second
 * rule, as files written earlier in a training are. */
static void age(const char *path, int minutes) {
    time_t t = time(NULL) - 3600 + minutes * 60;
    struct utimbuf u = {t, t};
    CHECK_INT(utime(path, &u), 0);
}

static struct dataset *load_with(const char *path, struct mon_cache *c, struct dump_cache *dc, int follow,
                                 const char *mapping, int max_steps) {
    struct load_opts lo;
    load_opts_init(&lo);
    lo.follow = follow;
    lo.mon_cache = c;
    lo.dump_cache = dc;
    lo.mapping = mapping;
    lo.max_steps = max_steps;
    struct dataset *ds = NULL;
    struct pt_error err;
    if (load_dataset(path, &lo, &ds, &err) != 0) {
        fprintf(stderr, "load %s: %s\n", path, err.msg);
        return NULL;
    }
    return ds;
}

static void same_strs(char **a, size_t na, char **b, size_t nb, const char *what) {
    CHECK_INT(na, nb);
    for (size_t i = 0; i < na && i < nb; i++)
        if (strcmp(a[i], b[i])) {
            fprintf(stderr, "%s %zu: \"%s\" vs \"%s\"\n", what, i, a[i], b[i]);
            CHECK(0);
        }
}

static struct dataset *load(const char *path, struct mon_cache *c, int follow, const char *mapping, int max_steps) {
    return load_with(path, c, NULL, follow, mapping, max_steps);
}

/* x (through the cache) and y (fresh) hold the same data. */
static void same(const struct dataset *x, const struct dataset *y) {
    CHECK(x && y);
    if (!x || !y) return;
    same_strs(x->warnings, x->nwarnings, y->warnings, y->nwarnings, "warning");
    same_strs(x->skipped, x->nskipped, y->skipped, y->nskipped, "skipped");
    same_strs(x->pending, x->npending, y->pending, y->npending, "pending");
    CHECK_INT(x->files_read, y->files_read);
    CHECK_INT(x->bytes_read, y->bytes_read);
    CHECK_INT(x->more, y->more);
    CHECK_INT(x->nrankdirs, y->nrankdirs);
    for (size_t i = 0; i < x->nrankdirs && i < y->nrankdirs; i++) {
        CHECK_STR(x->rankdirs[i].dir, y->rankdirs[i].dir);
        CHECK_INT(x->rankdirs[i].step, y->rankdirs[i].step);
        CHECK_INT(x->rankdirs[i].rank, y->rankdirs[i].rank);
    }
    CHECK_INT(x->ovf.n, y->ovf.n);
    for (size_t i = 0; i < x->ovf.n && i < y->ovf.n; i++) {
        const struct ovf_entry *p = &x->ovf.v[i], *q = &y->ovf.v[i];
        CHECK(p->step == q->step && p->micro == q->micro && p->rank == q->rank && p->pos == q->pos &&
              p->level == q->level && p->jump == q->jump);
        CHECK_STR(p->name, q->name);
        CHECK_STR(p->what, q->what);
    }
    const struct cube *a = x->cube, *b = y->cube;
    CHECK(a && b);
    if (!a || !b) return;
    CHECK_INT(a->nsteps, b->nsteps);
    CHECK_INT(a->nranks, b->nranks);
    CHECK_INT(a->nmetrics, b->nmetrics);
    if (a->nsteps != b->nsteps || a->nranks != b->nranks || a->nmetrics != b->nmetrics) return;
    CHECK(!memcmp(a->steps, b->steps, (size_t)a->nsteps * sizeof *a->steps));
    CHECK(!memcmp(a->ranks, b->ranks, (size_t)a->nranks * sizeof *a->ranks));
    CHECK_INT(names_count(a->names), names_count(b->names));
    for (int m = 0; m < a->nmetrics; m++) {
        const struct cube_metric *p = &a->metrics[m], *q = &b->metrics[m];
        CHECK_STR(p->name, q->name);
        CHECK_INT(p->nstats, q->nstats);
        CHECK_INT(p->ntargets, q->ntargets);
        if (p->nstats != q->nstats || p->ntargets != q->ntargets) continue;
        for (int s = 0; s < p->nstats; s++) CHECK_STR(p->stats[s], q->stats[s]);
        for (uint32_t t = 0; t < p->ntargets; t++) {
            const struct target *ta = names_target(a->names, p->targets[t]), *tb = names_target(b->names, q->targets[t]);
            CHECK_STR(names_str(a->names, p->targets[t]), names_str(b->names, q->targets[t]));
            CHECK_INT(ta->vpp, tb->vpp);
            CHECK_INT(ta->call, tb->call);
        }
        size_t n = (size_t)p->nstats * p->ntargets * (size_t)a->nsteps * (size_t)a->nranks;
        CHECK(!memcmp(p->vals, q->vals, n * sizeof *p->vals));   /* bits: missing, NaN and Inf alike */
    }
}

/* Loads through c and fresh, compares, and checks how many files the
 * cache parsed again this time (-1: don't check). */
static void check_load(const char *root, struct mon_cache *c, int follow, const char *mapping, long parsed_now,
                       const char *what) {
    fprintf(stderr, "  %s\n", what);
    struct mon_cache_stats before = mon_cache_stats(c);
    struct dataset *x = load(root, c, follow, mapping, 0), *y = load(root, NULL, follow, mapping, 0);
    same(x, y);
    struct mon_cache_stats after = mon_cache_stats(c);
    if (parsed_now >= 0) CHECK_INT(after.parsed - before.parsed, parsed_now);
    dataset_free(x);
    dataset_free(y);
}

#define V1_HEAD "vpp_stage,name,step,micro_step,norm,min,max,mean,nans\n"

static void v1_file(const char *root, int rank, const char *metric, int step, const char *extra) {
    char dir[1200], p[1400], text[4096];
    snprintf(dir, sizeof dir, "%s/Nov14_22-13-20-rank%d-d85ad257", root, rank);
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/%s_%d-%d.csv", dir, metric, step, step);
    size_t o = (size_t)snprintf(text, sizeof text, V1_HEAD);
    for (int l = 0; l < 3; l++)
        for (int mb = 0; mb < 2; mb++)
            o += (size_t)snprintf(text + o, sizeof text - o, "0,layers.%d.mlp.output,%d,%d,%d.5,-1,%d,0.25,0\n", l, step,
                                  mb, step * 100 + rank * 10 + l, l + mb);
    snprintf(text + o, sizeof text - o, "%s", extra);
    CHECK_INT(pt_write(p, text), 0);
    age(p, 0);
}

static void path_of(char *p, size_t n, const char *root, int rank, const char *name) {
    snprintf(p, n, "%s/Nov14_22-13-20-rank%d-d85ad257/%s", root, rank, name);
}

static void test_v1_reloads(void) {
    const char *t = pt_tmpdir("mon_cache_v1");
    char root[1100], p[1500];
    snprintf(root, sizeof root, "%s/mon", t);
    mkdir(root, 0755);
    for (int r = 0; r < 2; r++)
        for (int s = 0; s < 3; s++) {
            v1_file(root, r, "actv", s, "");
            v1_file(root, r, "grad_reduced", s, "");
        }
    struct mon_cache *c = mon_cache_new((uint64_t)1 << 30);
    CHECK(c != NULL);
    if (!c) return;
    check_load(root, c, 1, NULL, 12, "first load: every file parsed");
    check_load(root, c, 1, NULL, 0, "nothing changed: every file kept");
    CHECK_INT(mon_cache_stats(c).parts, 12);

    /* rows appended to a file (a training writes the next micro batch) */
    path_of(p, sizeof p, root, 1, "actv_2-2.csv");
    FILE *f = fopen(p, "ab");
    CHECK(f != NULL);
    if (f) {
        fputs("0,layers.0.mlp.output,2,2,9.5,-1,9,0.25,0\n0,layers.9.new,2,2,inf,nan,-inf,1,3\n", f);
        fclose(f);
    }
    age(p, 1);
    check_load(root, c, 1, NULL, 1, "rows appended: that file parsed again");

    /* a new step's files */
    v1_file(root, 0, "actv", 3, "");
    v1_file(root, 1, "actv", 3, "");
    check_load(root, c, 1, NULL, 2, "a new step: its two files parsed");

    /* a file rewritten with the same size (another time stamp) */
    path_of(p, sizeof p, root, 0, "grad_reduced_1-1.csv");
    char *text = pt_slurp(p);
    CHECK(text != NULL);
    if (text) {
        char *v = strstr(text, "100.5");
        CHECK(v != NULL);
        if (v) memcpy(v, "777.5", 5);
        CHECK_INT(pt_write(p, text), 0);
        free(text);
    }
    age(p, 2);
    check_load(root, c, 1, NULL, 1, "a file rewritten, same size: parsed again");

    /* a file removed: its part goes */
    path_of(p, sizeof p, root, 1, "grad_reduced_0-0.csv");
    CHECK_INT(unlink(p), 0);
    check_load(root, c, 1, NULL, 0, "a file removed");
    CHECK_INT(mon_cache_stats(c).parts, 13);

    /* a file being written: pending each time, never kept */
    v1_file(root, 0, "actv", 4, "0,layers.2.mlp.output,4,0,7.5");
    path_of(p, sizeof p, root, 0, "actv_4-4.csv");
    struct utimbuf now = {time(NULL), time(NULL)};
    utime(p, &now);
    check_load(root, c, 1, NULL, 1, "a row without its line end: pending");
    check_load(root, c, 1, NULL, 1, "still pending: read again");
    CHECK_INT(mon_cache_stats(c).parts, 13);
    /* without follow mode the same file is read whole (another stamp) */
    check_load(root, c, 0, NULL, 14, "follow mode off: all parsed again");

    /* a bad file: its notes said on every load */
    path_of(p, sizeof p, root, 1, "actv_5-5.csv");
    CHECK_INT(pt_write(p, "vpp,nom\n1,2\n"), 0);
    age(p, 0);
    check_load(root, c, 1, NULL, -1, "a bad header");
    check_load(root, c, 1, NULL, 1, "a bad header, kept: its note again (the pending file parsed)");

    /* another --mapping: every name again */
    char map[1200];
    snprintf(map, sizeof map, "%s/map.yaml", t);
    CHECK_INT(pt_write(map, "{\"layers\": \"blocks\"}\n"), 0);
    check_load(root, c, 1, map, 15, "--mapping: all parsed again");
    struct dataset *m = load(root, c, 1, map, 0);
    CHECK(m && names_find(m->cube->names, "blocks.1.mlp.output", 19, 0, 0) != NAMES_NONE);
    CHECK(m && names_find(m->cube->names, "layers.1.mlp.output", 19, 0, 0) == NAMES_NONE);
    dataset_free(m);
    check_load(root, c, 1, NULL, 15, "no --mapping again: all parsed again");

    /* progressive rounds through the cache, then the whole */
    struct dataset *r1 = load(root, c, 1, NULL, 1), *r2 = load(root, c, 1, NULL, 0), *fresh = load(root, NULL, 1, NULL, 0);
    CHECK(r1 && r1->more > 0);
    same(r2, fresh);
    dataset_free(r1);
    dataset_free(r2);
    dataset_free(fresh);
    struct mon_cache_stats st = mon_cache_stats(c);
    CHECK(st.bytes > 0);
    CHECK_INT(st.parts, 14);
    mon_cache_free(c);

    /* a budget that keeps nothing: every load parses every file, alike */
    c = mon_cache_new(1);
    CHECK(c != NULL);
    if (!c) return;
    check_load(root, c, 1, NULL, 15, "budget of a byte");
    check_load(root, c, 1, NULL, 15, "budget of a byte, again");
    CHECK_INT(mon_cache_stats(c).parts, 0);
    mon_cache_free(c);
}

#define V2_HEAD "vpp_stage,step,module_name,scope,micro_step,min,max,mean,norm,nans\r\n"

static void v2_file(const char *root, int rank, const char *slug, int step, const char *extra) {
    char dir[1200], p[1400], text[4096];
    snprintf(dir, sizeof dir, "%s/rank_%d", root, rank);
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/%s_step%d-%d.csv", dir, slug, step, step);
    size_t o = (size_t)snprintf(text, sizeof text, V2_HEAD);
    for (int l = 0; l < 2; l++)
        for (int mb = 1; mb <= 2; mb++) {
            o += (size_t)snprintf(text + o, sizeof text - o, "0,%d,layers.%d.mlp,forward,%d,-1,%d,0.5,%d.25,0\r\n", step,
                                  l, mb, l, step * 100 + rank * 10 + l);
            o += (size_t)snprintf(text + o, sizeof text - o, "0,%d,layers.%d.mlp,backward,%d,-2,%d,0.5,%d.75,0\r\n",
                                  step, l, mb, l, step * 100 + rank * 10 + l);
        }
    snprintf(text + o, sizeof text - o, "%s", extra);
    CHECK_INT(pt_write(p, text), 0);
    age(p, 0);
}

static void test_v2_reloads(void) {
    const char *t = pt_tmpdir("mon_cache_v2");
    char root[1100], p[1500];
    snprintf(root, sizeof root, "%s/mon", t);
    mkdir(root, 0755);
    for (int r = 0; r < 2; r++)
        for (int s = 0; s < 2; s++) v2_file(root, r, "module", s, "");
    struct mon_cache *c = mon_cache_new((uint64_t)1 << 30);
    CHECK(c != NULL);
    if (!c) return;
    check_load(root, c, 1, NULL, 4, "v2 first load");
    check_load(root, c, 1, NULL, 0, "v2 nothing changed");
    /* rows of a new scope appended (its metric is new), and a new step */
    snprintf(p, sizeof p, "%s/rank_1/module_step1-1.csv", root);
    FILE *f = fopen(p, "ab");
    CHECK(f != NULL);
    if (f) {
        fputs("0,1,layers.0.mlp,recompute,1,nan,inf,0,1,1\r\n", f);
        fclose(f);
    }
    age(p, 1);
    v2_file(root, 0, "module", 2, "");
    v2_file(root, 1, "optimizer", 2, "");
    check_load(root, c, 1, NULL, 3, "v2 rows appended, a new scope, new steps");
    /* being written: pending, never kept */
    v2_file(root, 0, "module", 3, "0,3,layers.0.mlp,forward,1,-1");
    snprintf(p, sizeof p, "%s/rank_0/module_step3-3.csv", root);
    struct utimbuf now = {time(NULL), time(NULL)};
    utime(p, &now);
    check_load(root, c, 1, NULL, 1, "v2 pending");
    check_load(root, c, 1, NULL, 1, "v2 pending again");
    CHECK_INT(mon_cache_stats(c).parts, 6);
    mon_cache_free(c);
}

/* ---- dumps ---- */

#define TEN(v) "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"Max\":" v ",\"Min\":0.0," \
               "\"Mean\":0.5,\"Norm\":1.0,\"requires_grad\":false}"

/* stepS/rankR/dump.json: two linear layers whose values tell step and rank
 * apart; nan: the second's output is NaN (an overflow record). */
static void dump_folder(const char *root, int step, int rank, int nan, char *path, size_t n) {
    char d[1400], text[4096];
    snprintf(d, sizeof d, "%s/step%d", root, step);
    mkdir(root, 0755);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/step%d/rank%d", root, step, rank);
    mkdir(d, 0755);
    snprintf(path, n, "%s/dump.json", d);
    snprintf(text, sizeof text,
             "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\",\"dump_data_dir\":null,\"data\":{"
             "\"Module.layer0.Linear.forward.0\":{\"input_args\":[" TEN("%d.5") "],\"input_kwargs\":{},\"output\":["
             TEN("%d.25") "]},"
             "\"Module.layer1.Linear.forward.0\":{\"input_args\":[" TEN("2.0") "],\"input_kwargs\":{},\"output\":["
             TEN("%s") "]}}}",
             step * 10 + rank, step * 10 + rank + 1, nan ? "NaN" : "3.0");
    CHECK_INT(pt_write(path, text), 0);
    age(path, 0);
}

static void check_dump_load(const char *root, struct dump_cache *dc, long parsed_now, const char *what) {
    fprintf(stderr, "  %s\n", what);
    struct dump_cache_stats before = dump_cache_stats(dc);
    struct dataset *x = load_with(root, NULL, dc, 1, NULL, 0), *y = load_with(root, NULL, NULL, 1, NULL, 0);
    same(x, y);
    struct dump_cache_stats after = dump_cache_stats(dc);
    if (parsed_now >= 0) CHECK_INT(after.parsed - before.parsed, parsed_now);
    dataset_free(x);
    dataset_free(y);
}

static void test_dump_reloads(void) {
    const char *t = pt_tmpdir("reload_dump");
    char root[1100], p[1500];
    snprintf(root, sizeof root, "%s/dump", t);
    for (int s = 0; s < 2; s++)
        for (int r = 0; r < 2; r++) dump_folder(root, s, r, s == 1 && r == 1, p, sizeof p);
    struct dump_cache *dc = dump_cache_new((uint64_t)1 << 30);
    CHECK(dc != NULL);
    if (!dc) return;
    check_dump_load(root, dc, 4, "dump: first load");
    CHECK_INT(dump_cache_stats(dc).parts, 4);
    check_dump_load(root, dc, 0, "dump: nothing changed, every folder kept");
    struct dataset *d = load_with(root, NULL, dc, 1, NULL, 0);
    CHECK(d && d->ovf.n > 0 && d->nwarnings > 0);   /* the NaN; construct.json missing in 4 folders */
    dataset_free(d);

    for (int r = 0; r < 2; r++) dump_folder(root, 2, r, r == 0, p, sizeof p);
    check_dump_load(root, dc, 2, "dump: a new step's folders parsed");

    dump_folder(root, 0, 1, 1, p, sizeof p);   /* rewritten: now with a NaN */
    age(p, 3);
    check_dump_load(root, dc, 1, "dump: a rewritten dump.json parsed again");

    snprintf(p, sizeof p, "%s/step0/rank0/dump.json", root);
    CHECK_INT(unlink(p), 0);
    snprintf(p, sizeof p, "%s/step0/rank0", root);
    CHECK_INT(rmdir(p), 0);
    check_dump_load(root, dc, 0, "dump: a folder removed");
    CHECK_INT(dump_cache_stats(dc).parts, 5);

    /* being written: pending each time, never kept */
    dump_folder(root, 3, 0, 0, p, sizeof p);
    char *text = pt_slurp(p);
    CHECK(text != NULL);
    if (text) {
        text[strlen(text) / 2] = '\0';
        CHECK_INT(pt_write(p, text), 0);
        free(text);
    }
    check_dump_load(root, dc, 1, "dump: a dump.json being written");
    check_dump_load(root, dc, 1, "dump: still being written, read again");
    CHECK_INT(dump_cache_stats(dc).parts, 5);
    dump_cache_free(dc);

    /* a budget that keeps nothing: every load parses every folder, alike */
    dc = dump_cache_new(1);
    CHECK(dc != NULL);
    if (!dc) return;
    check_dump_load(root, dc, 6, "dump: budget of a byte");
    check_dump_load(root, dc, 6, "dump: budget of a byte, again");
    CHECK_INT(dump_cache_stats(dc).parts, 0);
    dump_cache_free(dc);
}

int main(void) {
    RUN(test_v1_reloads);
    RUN(test_v2_reloads);
    RUN(test_dump_reloads);
    PT_DONE();
}
