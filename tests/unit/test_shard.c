/* data2db --shard / --merge and folders of shards (probetop(1), data2db):
 * the merge of K-of-N shards prints, under trenddb_canon.py, exactly what
 * one process writes; a folder of shards opens as that one database (every
 * cell equal); overlapping ranks, a half-written shard and an incomplete set
 * are refused with a message naming the file. */
#include "pt_test.h"

#include <math.h>

#include "model/cube/names.h"
#include "src/io/load.h"
#include "src/io/trenddb/write_trenddb.h"

static int canon_same(const char *a, const char *b) {
    const char *py = getenv("PT_PYTHON");
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/trenddb_canon.py' '%s' > '%s.canon' && '%s' '%s/tools/trenddb_canon.py' '%s' > '%s.canon' && "
             "cmp -s '%s.canon' '%s.canon'",
             py && *py ? py : "python3", pt_shared(), a, a, py && *py ? py : "python3", pt_shared(), b, b, a, b);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "diff '%s.canon' '%s.canon' | head -20 >&2", a, b);
        if (system(cmd) != 0) {}
    }
    return rc == 0;
}

static int monitor_kind;   /* the kind one() converts: 0 dump, 1 monitor */

static int write_shards(const char *in, const char *dir, int n, int micro) {
    for (int k = 1; k <= n; k++) {
        struct load_opts lo;
        load_opts_init(&lo);
        lo.micro_step = micro;
        struct dataset *ds = calloc(1, sizeof *ds);
        struct tdb_result res;
        struct pt_error err;
        int rc = monitor_kind ? trenddb_write_monitor_shard(in, dir, &lo, k, n, ds, &res, &err)
                              : trenddb_write_dump_shard(in, dir, &lo, k, n, ds, &res, &err);
        if (rc != 0) fprintf(stderr, "shard %d/%d: %s\n", k, n, err.msg);
        dataset_free(ds);
        if (rc != 0) return -1;
    }
    return 0;
}

/* Every cell of b equals a's: same axes, same targets by name. */
static void same_cube(const struct cube *a, const struct cube *b, int want_cells) {
    CHECK_INT(a->nsteps, b->nsteps);
    CHECK_INT(a->nranks, b->nranks);
    CHECK_INT(a->nmetrics, b->nmetrics);
    if (a->nsteps != b->nsteps || a->nranks != b->nranks || a->nmetrics != b->nmetrics) return;
    for (int s = 0; s < a->nsteps; s++) CHECK_INT(a->steps[s].value, b->steps[s].value);
    for (int r = 0; r < a->nranks; r++) CHECK_INT(a->ranks[r], b->ranks[r]);
    size_t cells = 0, diff = 0;
    for (int m = 0; m < a->nmetrics; m++) {
        const struct cube_metric *ma = &a->metrics[m], *mb = &b->metrics[m];
        CHECK_STR(ma->name, mb->name);
        CHECK_INT(ma->ntargets, mb->ntargets);
        CHECK_INT(ma->nstats, mb->nstats);
        if (ma->ntargets != mb->ntargets || ma->nstats != mb->nstats) continue;
        for (uint32_t t = 0; t < ma->ntargets; t++) {
            const struct target *ta = names_target(a->names, ma->targets[t]);
            uint32_t gb = names_find(b->names, names_str(a->names, ma->targets[t]), ta->len, ta->vpp, ta->call);
            uint32_t lt = gb == NAMES_NONE ? UINT32_MAX : cube_local_target(b, m, gb);
            if (lt == UINT32_MAX || lt >= mb->ntargets) { diff++; continue; }
            for (int st = 0; st < ma->nstats; st++)
                for (int s = 0; s < a->nsteps; s++)
                    for (int r = 0; r < a->nranks; r++) {
                        float x = cube_get(a, m, st, t, s, r), y = cube_get(b, m, st, lt, s, r);
                        cells++;
                        if (memcmp(&x, &y, sizeof x) != 0) diff++;
                    }
        }
    }
    CHECK(cells > 0 || !want_cells);
    CHECK_INT(diff, 0);
}

/* want_cells 0: msProbe's own test dump with no usable tensor (no rows) */
static void one(const char *in, const char *name, int n, int micro, int want_cells) {
    char single[1100], shards[1100], merged[1100], a[1200], b[1200];
    const char *t = pt_tmpdir(name);
    snprintf(single, sizeof single, "%s/single", t);
    snprintf(shards, sizeof shards, "%s/shards", t);
    snprintf(merged, sizeof merged, "%s/merged", t);
    mkdir(single, 0777);
    mkdir(shards, 0777);
    mkdir(merged, 0777);
    struct load_opts lo;
    load_opts_init(&lo);
    lo.micro_step = micro;
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    int rc = monitor_kind ? trenddb_write_monitor(in, single, &lo, ds, &res, &err)
                          : trenddb_write_dump(in, single, &lo, ds, &res, &err);
    dataset_free(ds);
    CHECK_INT(rc, 0);
    CHECK_INT(write_shards(in, shards, n, micro), 0);
    ds = calloc(1, sizeof *ds);
    rc = trenddb_merge(shards, monitor_kind, merged, &lo, ds, &res, &err);
    if (rc != 0) fprintf(stderr, "%s\n", err.msg);
    dataset_free(ds);
    CHECK_INT(rc, 0);
    const char *kind = monitor_kind ? "monitor_data" : "dump_data";
    snprintf(a, sizeof a, "%s/%s.trend.db", single, kind);
    snprintf(b, sizeof b, "%s/%s.trend.db", merged, kind);
    CHECK(canon_same(a, b));
    /* the folder of shards, opened as one run */
    struct dataset *da = NULL, *db = NULL;
    CHECK_INT(load_dataset(a, &lo, &da, &err), 0);
    rc = load_dataset(shards, &lo, &db, &err);
    if (rc != 0) fprintf(stderr, "%s\n", err.msg);
    CHECK_INT(rc, 0);
    if (da && db) same_cube(da->cube, db->cube, want_cells);
    dataset_free(da);
    dataset_free(db);
}

static void fixture(const char *rel, const char *name, int n, int micro, int want_cells) {
    const char *in = pt_fixture(rel);
    if (!in) SKIP("fixture absent");
    one(in, name, n, micro, want_cells);
}

/* proc folders (renumbered ranks), two steps */
static void gpu_dump(void) {
    fixture("examples/quick_start/gpu_dump", "shard_gpu_1", 1, 1, 1);
    fixture("examples/quick_start/gpu_dump", "shard_gpu_3", 3, 0, 1);   /* more tasks than ranks */
}
/* steps of different rank counts */
static void input_format(void) {
    fixture("test/msprobe_test/visualization_ut/input_format_correct", "shard_ifc_2", 2, 1, 0);
    fixture("test/msprobe_test/visualization_ut/input_format_correct", "shard_ifc_2f", 2, 0, 0);
}

/* gen_dump.py: 6 ranks, 3 steps, 2 micro batches, tensor and pipeline parallel */
static const char *generated(void) {
    static char out[1100];
    if (!pt_shared()) return NULL;
    if (out[0]) return out;
    const char *t = pt_tmpdir("shard_gen");
    if (!t) return NULL;
    char cmd[4096];
    snprintf(out, sizeof out, "%s/dump", t);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 3 --ranks 6 --layers 3 --micro-batches 2 --tp 2 --pp 3 "
             "--nan 1:4:mlp --quiet >/dev/null 2>&1",
             getenv("PT_PYTHON") && *getenv("PT_PYTHON") ? getenv("PT_PYTHON") : "python3", pt_shared(), out);
    if (system(cmd) != 0) { out[0] = 0; return NULL; }
    return out;
}

static void generated_dump(void) {
    const char *in = generated();
    if (!in) SKIP("the test data (PT_SHARED) or python3 absent");
    one(in, "shard_gen_4", 4, 1, 1);
    one(in, "shard_gen_5f", 5, 0, 1);
    /* rank 5 (shard 5 of 5 alone) and one file of rank 2 without
     * construct.json: one micro step where the others have two, so a shard's
     * own micro step numbering differs from the whole run's */
    char uneven[1200], cmd[4096];
    snprintf(uneven, sizeof uneven, "%s/uneven", pt_tmpdir("shard_gen_uneven"));
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s' && rm '%s'/step*/rank5/construct.json '%s'/step1/rank2/construct.json", in,
             uneven, uneven, uneven);
    CHECK_INT(system(cmd), 0);
    one(uneven, "shard_gen_uneven5", 5, 1, 1);
}

static void overlap_refused(void) {
    const char *in = generated();
    if (!in) SKIP("the test data (PT_SHARED) or python3 absent");
    char fewer[1200], dir[1200], cmd[4096], out[1200];
    const char *t = pt_tmpdir("shard_overlap");
    snprintf(fewer, sizeof fewer, "%s/fewer", t);
    snprintf(dir, sizeof dir, "%s/shards", t);
    snprintf(out, sizeof out, "%s/out", t);
    mkdir(dir, 0777);
    mkdir(out, 0777);
    /* the same run with ranks 4 and 5 gone, and two more steps of ranks 0..2
     * (as many rank folders as the original, 18): its second half is ranks 2..3 */
    snprintf(cmd, sizeof cmd,
             "cp -r '%s' '%s' && rm -rf '%s'/step*/rank4 '%s'/step*/rank5 && for s in 3 4; do mkdir '%s'/step$s && "
             "cp -r '%s'/step0/rank0 '%s'/step0/rank1 '%s'/step0/rank2 '%s'/step$s/; done",
             in, fewer, fewer, fewer, fewer, fewer, fewer, fewer, fewer);
    CHECK_INT(system(cmd), 0);
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    CHECK_INT(trenddb_write_dump_shard(in, dir, &lo, 1, 2, ds, &res, &err), 0);     /* ranks 0..2 */
    dataset_free(ds);
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump_shard(fewer, dir, &lo, 2, 2, ds, &res, &err), 0);  /* ranks 2..3 */
    dataset_free(ds);
    struct dataset *d = NULL;
    CHECK(load_dataset(dir, &lo, &d, &err) != 0);
    CHECK_CONTAINS(err.msg, "dump_data.shard-1-of-2.trend.db and ");
    CHECK_CONTAINS(err.msg, "dump_data.shard-2-of-2.trend.db both hold rank 2");
    dataset_free(d);
    ds = calloc(1, sizeof *ds);
    CHECK(trenddb_merge(dir, 0, out, &lo, ds, &res, &err) != 0);
    CHECK_CONTAINS(err.msg, "both hold rank 2");
    dataset_free(ds);
    char f[1300];
    snprintf(f, sizeof f, "%s/dump_data.trend.db", out);
    CHECK(access(f, F_OK) != 0);
    /* shards of two different dumps, even without a common rank */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/step3 '%s'/step4 '%s'/*", fewer, fewer, dir);
    CHECK_INT(system(cmd), 0);
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump_shard(in, dir, &lo, 1, 2, ds, &res, &err), 0);
    dataset_free(ds);
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump_shard(fewer, dir, &lo, 2, 2, ds, &res, &err), 0);
    dataset_free(ds);
    d = NULL;
    CHECK(load_dataset(dir, &lo, &d, &err) != 0);
    CHECK_CONTAINS(err.msg, "not shards of one dump (18 and 12 rank folders found)");
    dataset_free(d);
}

static void half_written_refused(void) {
    const char *in = generated();
    if (!in) SKIP("the test data (PT_SHARED) or python3 absent");
    const char *t = pt_tmpdir("shard_half");
    char dir[1200], tmp[1300], out[1200], f[1300];
    snprintf(dir, sizeof dir, "%s/shards", t);
    snprintf(out, sizeof out, "%s/out", t);
    mkdir(dir, 0777);
    mkdir(out, 0777);
    CHECK_INT(write_shards(in, dir, 3, 1), 0);
    /* the third task killed while writing: its temporary file, no database */
    snprintf(f, sizeof f, "%s/dump_data.shard-3-of-3.trend.db", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.999999", f);
    CHECK_INT(rename(f, tmp), 0);
    struct load_opts lo;
    load_opts_init(&lo);
    struct pt_error err;
    struct dataset *d = NULL;
    CHECK(load_dataset(dir, &lo, &d, &err) != 0);
    CHECK_CONTAINS(err.msg, "dump_data.shard-3-of-3.trend.db.tmp.999999: a half-written shard");
    dataset_free(d);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    CHECK(trenddb_merge(dir, 0, out, &lo, ds, &res, &err) != 0);
    CHECK_CONTAINS(err.msg, "half-written");
    dataset_free(ds);
    snprintf(f, sizeof f, "%s/dump_data.trend.db", out);
    CHECK(access(f, F_OK) != 0);
    /* gone altogether: the set is incomplete */
    CHECK_INT(unlink(tmp), 0);
    d = NULL;
    CHECK(load_dataset(dir, &lo, &d, &err) != 0);
    CHECK_CONTAINS(err.msg, "incomplete set of shards: 2 of 3 present, dump_data.shard-3-of-3.trend.db missing");
    dataset_free(d);
}

/* monitor trees: the fixture (2 ranks, a third task with none), and a
 * generated tree of 6 ranks where rank 5 has one micro step where the
 * others have two, rank 2 lacks a step in one file and a whole CSV */
static void monitor_trees(void) {
    monitor_kind = 1;
    const char *in = pt_fixture("derived/synthetic_monitor_output");
    if (in) {
        one(in, "shard_mon_3", 3, 1, 1);
        one(in, "shard_mon_3f", 3, 0, 1);
    }
    const char *py = getenv("PT_PYTHON");
    const char *t = pt_shared() ? pt_tmpdir("shard_mon_gen") : NULL;
    char out[1100], cmd[6000];
    if (t) {
        snprintf(out, sizeof out, "%s/mon", t);
        snprintf(cmd, sizeof cmd,
                 "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 3 --ranks 6 --layers 2 --micro-batches 2 --tp 2 "
                 "--monitor --quiet >/dev/null 2>&1 && cd '%s' && d5=$(ls | sed -n 6p) && d2=$(ls | sed -n 3p) && "
                 "for f in \"$d5\"/*.csv; do awk -F, 'NR==1 || $4==0' \"$f\" > \"$f.t\" && mv \"$f.t\" \"$f\"; done && "
                 "awk -F, 'NR==1 || $3!=1' \"$d2/actv_1-1.csv\" > x.t && mv x.t \"$d2/actv_1-1.csv\" && "
                 "rm \"$d2/exp_avg_2-2.csv\"",
                 py && *py ? py : "python3", pt_shared(), out, out);
        if (system(cmd) == 0) {
            one(out, "shard_mon_gen6", 6, 1, 1);
            one(out, "shard_mon_gen4f", 4, 0, 1);
        } else {
            t = NULL;
        }
    }
    monitor_kind = 0;
    if (!in && !t) SKIP("fixture and test data (PT_SHARED) absent");
}

int main(void) {
    RUN(gpu_dump);
    RUN(monitor_trees);
    RUN(input_format);
    RUN(generated_dump);
    RUN(overlap_refused);
    RUN(half_written_refused);
    PT_DONE();
}
