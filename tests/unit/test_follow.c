/* test_follow: data that grows (probetop(1), FOLLOW MODE).
 *
 * - the swap keeps the user's place by value: a newer dataset whose
 *   metrics, steps, ranks and target ids are ordered differently leaves
 *   the cursor on the same metric/statistic/step/rank/target, the regex
 *   filter matched on the new names, the label filter carried by name;
 * - each folder reader (dump, monitor, monitor_v2) reads only the first
 *   steps when asked (load_opts.max_steps) and says it left some out;
 * - each treats a file still being written (a CSV row without its line
 *   end, a dump.json that does not parse yet) as pending in follow mode
 *   while it is young, and as today (a warning, a skip) once it is old;
 * - `probetop overflow --follow --idle 2` on a growing monitor tree prints
 *   the entry that appears and exits with the gate's code. */
#include "pt_test.h"
#include "pt_cube.h"

#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <utime.h>

#include "model/cube/cube.h"
#include "src/session/session.h"
#include "src/session/swap.h"
#include "src/io/load.h"
#include "src/io/common/sqlite_ro.h"
#include "src/io/common/watch.h"

/* ---- the swap ---- */

/* A dataset of metrics m[] (each with stats "norm","max"), steps 0..ns-1,
 * ranks 0..nr-1, targets t[] interned in that order; value = step*100 +
 * rank*10 + target's position in `order`. */
static struct dataset *make_ds(const char *const *m, int nm, int ns, int nr, const char *const *t, int nt) {
    struct names *n = names_new();
    struct cube_builder *b = cube_builder_new(n);
    static const char *const stats[] = {"norm", "max"};
    for (int i = 0; i < nm; i++) cube_builder_metric(b, m[i], 2, stats);
    for (int k = 0; k < nt; k++) {
        uint32_t id = names_intern(n, t[k], strlen(t[k]), 0, 0);
        for (int i = 0; i < nm; i++)
            for (int s = 0; s < ns; s++)
                for (int r = 0; r < nr; r++) {
                    double v[2] = {s * 100 + r * 10 + t[k][0], -1};
                    cube_builder_add(b, i, id, s, r, v, 3);
                }
    }
    struct dataset *d = calloc(1, sizeof *d);
    struct pt_error err;
    CHECK_INT(cube_builder_finish(b, &d->cube, &err), 0);
    cube_builder_free(b);
    names_build_labels(d->cube->names, LABELS_DUMP);
    d->labels = LABELS_DUMP;
    d->path = strdup("mem");
    return d;
}

static void test_swap_keeps_place(void) {
    static const char *const m1[] = {"forward", "backward"}, *const t1[] = {"a.x", "b.y", "c.z"};
    static const char *const m2[] = {"backward", "extra", "forward"}, *const t2[] = {"0.new", "c.z", "a.x", "b.y"};
    struct session a;
    memset(&a, 0, sizeof a);
    search_init(&a.re);
    a.ds = make_ds(m1, 2, 2, 2, t1, 3);
    session_data_ready(&a);
    struct pt_error err;
    /* backward/max, dimension rank, the cell step 1 rank 1 target b.y */
    CHECK_INT(session_set_metric(&a, cube_metric_find(a.cube, "backward"), 1), 0);
    CHECK_INT(session_set_dim(&a, DIM_RANK, 1), 0);
    uint32_t by = names_find(a.cube->names, "b.y", 3, 0, 0);
    CHECK_INT(session_select(&a, 1, 1, by), 0);
    CHECK_INT(session_set_regex(&a, "[bc]\\.", &err), 0);
    CHECK_INT(a.nrows, 2);
    a.range_lo = 0.25;

    /* a newer dataset: more steps, ranks, metrics and targets, other ids */
    struct dataset *nd = make_ds(m2, 3, 4, 3, t2, 4);
    CHECK_INT(swap_dataset(&a, nd, &err), 0);
    CHECK(a.ds == nd && a.cube == nd->cube && a.swap_from == NULL);
    CHECK_STR(a.cube->metrics[a.metric].name, "backward");
    CHECK_STR(a.cube->metrics[a.metric].stats[a.stat], "max");
    CHECK_INT(a.dim, DIM_RANK);
    CHECK_INT(a.cube->steps[a.sel_step].value, 1);
    CHECK_INT(a.cube->ranks[a.sel_rank], 1);
    CHECK_INT(a.dimval, a.sel_rank);
    CHECK_STR(names_str(a.cube->names, a.sel_target), "b.y");
    CHECK(a.range_lo == 0.25);
    /* the regex matched again on the new names: c.z and b.y, not 0.new */
    CHECK(a.regex && a.regex_mask);
    CHECK_INT(a.nrows, 2);
    CHECK_INT(a.regex_mask[names_find(a.cube->names, "0.new", 5, 0, 0)], 0);
    CHECK_INT(a.regex_mask[names_find(a.cube->names, "c.z", 3, 0, 0)], 1);
    /* the value under the cursor is the same cell's */
    uint32_t lt = cube_local_target(a.cube, a.metric, a.sel_target);
    CHECK(cube_get(a.cube, a.metric, 0, lt, a.sel_step, a.sel_rank) == (float)(100 + 10 + 'b'));

    /* a label filter is carried by name */
    uint8_t *mask = calloc(names_count(a.cube->names), 1);
    mask[names_find(a.cube->names, "c.z", 3, 0, 0)] = 1;
    session_set_label_filter(&a, mask, "demo");
    static const char *const t3[] = {"c.z", "zz.top", "b.y", "a.x", "0.new"};
    CHECK_INT(swap_dataset(&a, make_ds(m2, 3, 5, 3, t3, 5), &err), 0);
    CHECK(a.label_mask != NULL);
    CHECK_INT(a.label_mask[names_find(a.cube->names, "c.z", 3, 0, 0)], 1);
    CHECK_INT(a.label_mask[names_find(a.cube->names, "b.y", 3, 0, 0)], 0);
    CHECK_INT(a.nrows, 1);
    CHECK_STR(names_str(a.cube->names, a.sel_target), "c.z");   /* b.y filtered out: the next row */
    CHECK_INT(a.cube->steps[a.sel_step].value, 1);

    /* data that holds nothing (a writer at work) is not swapped in */
    struct dataset *keep = a.ds;
    CHECK_INT(swap_dataset(&a, make_ds(m2, 0, 1, 1, t3, 1), &err), -1);
    CHECK(a.ds == keep);
    CHECK_STR(names_str(a.cube->names, a.sel_target), "c.z");

    /* swap_* translate old indexes only during a swap */
    CHECK_INT(swap_step(&a, 0), -1);
    dataset_free(a.ds);
    free(a.rows);
    free(a.regex);
    free(a.regex_mask);
    free(a.label_mask);
    free(a.label_desc);
    search_free(&a.re);
}

/* ---- readers: max_steps and pending files ---- */

static struct dataset *load(const char *path, int follow, int max_steps, struct pt_error *err) {
    struct load_opts lo;
    load_opts_init(&lo);
    lo.follow = follow;
    lo.max_steps = max_steps;
    lo.micro_step = 0;
    struct dataset *ds = NULL;
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static void age(const char *path) {
    struct utimbuf u = {time(NULL) - 3600, time(NULL) - 3600};
    utime(path, &u);
}

#define MON1_HEAD "vpp_stage,name,step,micro_step,norm,min,max,mean\n"

static void mon1_file(const char *dir, int step, const char *tail) {
    char p[1500], text[1024];
    snprintf(p, sizeof p, "%s/actv_%d-%d.csv", dir, step, step);
    snprintf(text, sizeof text, MON1_HEAD "0,layers.0.mlp,%d,0,1.5,0,2,1\n%s", step, tail);
    CHECK_INT(pt_write(p, text), 0);
}

static void test_monitor_partial(void) {
    const char *t = pt_tmpdir("follow_mon1");
    char root[1100], dir[1200], last[1300];
    snprintf(root, sizeof root, "%s/mon", t);
    snprintf(dir, sizeof dir, "%s/Nov14_22-13-20-rank0-d85ad257", root);
    mkdir(root, 0755);
    mkdir(dir, 0755);
    for (int s = 0; s < 3; s++) mon1_file(dir, s, "");
    mon1_file(dir, 3, "0,layers.1.mlp,3,0,7.2");   /* a row cut short: no line end */
    snprintf(last, sizeof last, "%s/actv_3-3.csv", dir);
    struct pt_error err;
    struct dataset *ds = load(root, 1, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->npending, 1);
    CHECK_INT(ds->nwarnings, 0);
    CHECK_INT(ds->nskipped, 0);
    CHECK_INT(ds->cube->nsteps, 4);
    CHECK(pt_cube_value(ds, "actv", "norm", "layers.1.mlp", 0, 3, 0) == -12345);   /* not read half */
    CHECK(pt_cube_value(ds, "actv", "norm", "layers.0.mlp", 0, 3, 0) == 1.5f);
    dataset_free(ds);
    /* first steps only */
    ds = load(root, 0, 2, &err);
    CHECK(ds && ds->more == 2 && ds->cube->nsteps == 2);
    dataset_free(ds);
    ds = load(root, 0, 4, &err);
    CHECK(ds && ds->more == 0 && ds->cube->nsteps == 4);
    dataset_free(ds);
    /* the writer gone (old file): the row was cut, so it is left out, said
     * with its line, and the file is partial (a gate cannot pass on it) */
    age(last);
    for (int f = 1; f >= 0; f--) {
        ds = load(root, f, 0, &err);
        CHECK(ds && ds->npending == 0);
        if (!ds) continue;
        CHECK(pt_cube_value(ds, "actv", "norm", "layers.1.mlp", 0, 3, 0) == -12345);
        CHECK(pt_cube_value(ds, "actv", "norm", "layers.0.mlp", 0, 3, 0) == 1.5f);
        CHECK_INT(ds->npartial, 1);
        if (ds->npartial) CHECK_STR(ds->partial[0], last);
        CHECK_INT(ds->nwarnings, 1);
        if (ds->nwarnings) CHECK_CONTAINS(ds->warnings[0], "actv_3-3.csv: line 3: the last row has no line end");
        dataset_free(ds);
    }
}

static void test_monitor_v2_partial(void) {
    const char *t = pt_tmpdir("follow_mon2");
    char root[1100], dir[1200], p[1300];
    snprintf(root, sizeof root, "%s/mon", t);
    snprintf(dir, sizeof dir, "%s/rank_0", root);
    mkdir(root, 0755);
    mkdir(dir, 0755);
    for (int s = 0; s < 3; s++) {
        char text[512];
        snprintf(p, sizeof p, "%s/module_step%d-%d.csv", dir, s, s);
        snprintf(text, sizeof text, "vpp_stage,step,module_name,scope,min,max,mean,norm,nans\r\n"
                 "0,%d,layers.0.mlp.output.0,forward,0,1,0.5,2.5,0\r\n%s", s,
                 s == 2 ? "0,2,layers.1.mlp.output.0,forward,0,1,0." : "");
        CHECK_INT(pt_write(p, text), 0);
    }
    struct pt_error err;
    struct dataset *ds = load(root, 1, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->npending, 1);
    CHECK_INT(ds->nwarnings, 0);
    CHECK_INT(ds->cube->nsteps, 3);
    CHECK(pt_cube_value(ds, "module/forward", "norm", "layers.1.mlp.output.0", 0, 2, 0) == -12345);
    dataset_free(ds);
    ds = load(root, 0, 1, &err);
    CHECK(ds && ds->more == 2 && ds->cube->nsteps == 1);
    dataset_free(ds);
    age(p);
    ds = load(root, 1, 0, &err);
    CHECK(ds && ds->npending == 0);
    dataset_free(ds);
}

#define TEN "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"Max\":1.0,\"Min\":0.0," \
            "\"Mean\":0.5,\"Norm\":1.0,\"requires_grad\":false}"
#define DUMP_JSON "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\",\"dump_data_dir\":null," \
                  "\"data\":{\"Module.layer0.Linear.forward.0\":{\"input_args\":[" TEN "],\"input_kwargs\":{}," \
                  "\"output\":[" TEN "]}}}"

static void dump_rank(const char *root, int step, int rank, const char *text, char *path, size_t n) {
    char d[1400];
    snprintf(d, sizeof d, "%s/step%d", root, step);
    mkdir(root, 0755);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/step%d/rank%d", root, step, rank);
    mkdir(d, 0755);
    snprintf(path, n, "%s/dump.json", d);
    CHECK_INT(pt_write(path, text), 0);
}

static void test_dump_partial(void) {
    const char *t = pt_tmpdir("follow_dump");
    char root[1100], p[1500], half[300];
    snprintf(root, sizeof root, "%s/dump", t);
    for (int s = 0; s < 3; s++) dump_rank(root, s, 0, DUMP_JSON, p, sizeof p);
    snprintf(half, sizeof half, "%.*s", (int)strlen(DUMP_JSON) / 2, DUMP_JSON);
    dump_rank(root, 2, 1, half, p, sizeof p);
    struct pt_error err;
    struct dataset *ds = load(root, 1, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->npending, 1);
    CHECK_INT(ds->nwarnings, 0);
    CHECK_INT(ds->nskipped, 0);
    CHECK_INT(ds->cube->nsteps, 3);
    dataset_free(ds);
    /* a rank folder made, its dump.json not written yet */
    char d[1300];
    snprintf(d, sizeof d, "%s/step2/rank2", root);
    mkdir(d, 0755);
    ds = load(root, 1, 0, &err);
    CHECK(ds && ds->npending == 2 && ds->nwarnings == 0);
    dataset_free(ds);
    rmdir(d);
    ds = load(root, 0, 1, &err);
    CHECK(ds && ds->more == 3 && ds->cube->nsteps == 1 && ds->nrankdirs == 1);
    dataset_free(ds);
    /* old and still broken: skipped with a warning, as without follow mode */
    age(p);
    ds = load(root, 1, 0, &err);
    CHECK(ds && ds->npending == 0 && ds->nskipped == 1 && ds->nwarnings >= 1);
    dataset_free(ds);
}

/* A .trend.db in the middle of a transaction (a rollback journal beside
 * it) is not read half-written: refused until the journal is gone. */
static void test_db_mid_transaction(void) {
    const char *t = pt_tmpdir("follow_db");
    char p[1200], j[1300];
    snprintf(p, sizeof p, "%s/x.trend.db", t);
    snprintf(j, sizeof j, "%s-journal", p);
    sqlite3 *db = NULL;
    CHECK_INT(sqlite3_open(p, &db), SQLITE_OK);
    CHECK_INT(sqlite3_exec(db, "CREATE TABLE a(x); INSERT INTO a VALUES (1);", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    struct pt_error err;
    CHECK_INT(pt_write(j, "journal"), 0);
    db = NULL;
    CHECK_INT(sqlite_ro_open(p, &db, &err), -1);
    CHECK_CONTAINS(err.msg, "middle of a write transaction");
    CHECK(db == NULL);
    unlink(j);
    CHECK_INT(sqlite_ro_open(p, &db, &err), 0);
    sqlite3_close(db);
    CHECK(access(j, F_OK) != 0);   /* nothing made beside it */
}

/* The watch: a new step folder two levels down, a file appended to, a
 * database replaced by rename are changes; for a file input, another file
 * of its folder is not. */
static void test_watch(void) {
    const char *t = pt_tmpdir("follow_watch");
    char root[1100], p[1300], db[1300], other[1300], tmp[1300];
    snprintf(root, sizeof root, "%s/run", t);
    mkdir(root, 0755);
    struct watch *w = NULL;
    struct pt_error err;
    CHECK_INT(watch_open(root, &w, &err), 0);
    if (!w) return;
    CHECK_INT(watch_wait(w, 300, -1), 0);
    snprintf(p, sizeof p, "%s/step1", root);
    mkdir(p, 0755);
    CHECK_INT(watch_wait(w, 3000, -1), 1);
    while (watch_wait(w, 300, -1) == 1) {}
    snprintf(p, sizeof p, "%s/step1/rank0", root);
    mkdir(p, 0755);
    CHECK_INT(watch_wait(w, 3000, -1), 1);
    while (watch_wait(w, 300, -1) == 1) {}
    snprintf(p, sizeof p, "%s/step1/rank0/dump.json", root);
    CHECK_INT(pt_write(p, "{"), 0);
    CHECK_INT(watch_wait(w, 3000, -1), 1);
    watch_close(w);

    snprintf(db, sizeof db, "%s/x.trend.db", t);
    snprintf(other, sizeof other, "%s/notes.txt", t);
    snprintf(tmp, sizeof tmp, "%s/.x.tmp", t);
    CHECK_INT(pt_write(db, "1"), 0);
    CHECK_INT(watch_open(db, &w, &err), 0);
    if (!w) return;
    CHECK_INT(pt_write(other, "not it"), 0);
    CHECK_INT(watch_wait(w, 500, -1), 0);
    CHECK_INT(pt_write(tmp, "22"), 0);
    CHECK_INT(watch_wait(w, 500, -1), 0);
    CHECK_INT(rename(tmp, db), 0);
    CHECK_INT(watch_wait(w, 3000, -1), 1);
    watch_close(w);
}

/* ---- overflow --follow ---- */

static void test_overflow_follow(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin || access(bin, X_OK) != 0) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("follow_overflow");
    char root[1100], dir[1200], out[1200];
    snprintf(root, sizeof root, "%s/mon", t);
    snprintf(dir, sizeof dir, "%s/Nov14_22-13-20-rank0-d85ad257", root);
    snprintf(out, sizeof out, "%s/out.txt", t);
    mkdir(root, 0755);
    mkdir(dir, 0755);
    mon1_file(dir, 0, "");
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(out, "w", stdout)) _exit(99);
        execl(bin, bin, "overflow", "--follow", "--idle", "2", root, (char *)NULL);
        _exit(98);
    }
    CHECK(pid > 0);
    /* it prints its header once it has read the tree: then the NaN comes */
    for (int i = 0; i < 500; i++) {
        char *o = pt_slurp(out);
        int ready = o && strstr(o, "following");
        free(o);
        if (ready) break;
        usleep(10000);
    }
    mon1_file(dir, 1, "0,layers.1.mlp,1,0,nan,0,2,1\n");
    int st = -1;
    CHECK_INT(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    char *o = pt_slurp(out);
    CHECK(o != NULL);
    if (o) {
        CHECK_CONTAINS(o, "nonfinite     1     0     0");
        CHECK_CONTAINS(o, "layers.1.mlp");
        CHECK_CONTAINS(o, "no change for 2 s");
        CHECK_CONTAINS(o, "exit 1");
        CHECK(strstr(o, "layers.0.mlp") == NULL);   /* finite: never listed */
    }
    free(o);
    /* SIGTERM stops it too, with the gate's code: nothing non-finite here */
    char clean[1200];
    snprintf(clean, sizeof clean, "%s/clean", t);
    snprintf(dir, sizeof dir, "%s/Nov14_22-13-20-rank0-aa", clean);
    mkdir(clean, 0755);
    mkdir(dir, 0755);
    mon1_file(dir, 0, "");
    snprintf(out, sizeof out, "%s/out2.txt", t);
    pid = fork();
    if (pid == 0) {
        if (!freopen(out, "w", stdout)) _exit(99);
        execl(bin, bin, "overflow", "--follow", clean, (char *)NULL);
        _exit(98);
    }
    for (int i = 0; i < 500; i++) {
        char *x = pt_slurp(out);
        int ready = x && strstr(x, "following");
        free(x);
        if (ready) break;
        usleep(10000);
    }
    kill(pid, SIGTERM);
    CHECK_INT(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    o = pt_slurp(out);
    if (o) CHECK_CONTAINS(o, "stopped by SIGTERM");
    free(o);
}

/* On a dump: the NaN/Inf records, never the numeric-jump heuristic's (the
 * healthy sums of every step and rank), and the origin across ranks when it
 * stops. */
static void test_overflow_follow_dump(void) {
    const char *bin = getenv("PT_BIN"), *py = getenv("PT_PYTHON"), *s = pt_shared();
    if (!bin || access(bin, X_OK) != 0) SKIP("PT_BIN not set");
    if (!py || !py[0] || !s) SKIP("no python or shared tools");
    const char *t = pt_tmpdir("follow_overflow_dump");
    char root[1100], out[1200], cmd[4096];
    snprintf(root, sizeof root, "%s/run", t);
    snprintf(out, sizeof out, "%s/out.txt", t);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 2 --ranks 2 --pp 2 --layers 2 --hidden 64 --heads 4 "
             "--ffn 128 --seq 8 --vocab 64 --nan 1:0:layers.0.mlp --quiet",
             py, s, root);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(out, "w", stdout)) _exit(99);
        execl(bin, bin, "overflow", "--follow", "--idle", "1", root, (char *)NULL);
        _exit(98);
    }
    CHECK(pid > 0);
    int st = -1;
    CHECK_INT(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    char *o = pt_slurp(out);
    CHECK(o != NULL);
    if (o) {
        CHECK_CONTAINS(o, "Max=nan");
        CHECK(strstr(o, "Norm jump") == NULL);   /* the heuristic alone: not printed */
        CHECK_CONTAINS(o, "origin across ranks, step 1");
        CHECK_CONTAINS(o, "  born on rank 0 ");
        CHECK_CONTAINS(o, "no change for 1 s");
    }
    free(o);
}

int main(void) {
    RUN(test_swap_keeps_place);
    RUN(test_monitor_partial);
    RUN(test_monitor_v2_partial);
    RUN(test_dump_partial);
    RUN(test_db_mid_transaction);
    RUN(test_watch);
    RUN(test_overflow_follow);
    RUN(test_overflow_follow_dump);
    PT_DONE();
}
