/* Trace shard files (probetop-formats(5), TRACE SHARDS; probetop(1),
 * TRACE: --shard, --merge): a generated run (tests/gen_trace.py: pipeline,
 * tensor groups in pg_config, recompute, micro-batches) written as shards
 * by `probetop trace --shard K/3` and read back as one run: every cube cell
 * (every target, micro-batches as micro steps), HTA's kernel and idle
 * tables, the breakdowns, steps and groups equal those of the unsharded
 * trace folder; the downsampled lanes equal the lanes of the kernels
 * downsampled; `--merge ... -o FILE` opens like any shard; a truncated
 * shard, a missing one, a doubled rank, shards of two runs and an unknown
 * version are said, naming the file. */
#include "pt_test.h"
#include "pt_trace.h"

#include <sys/stat.h>

#include "model/cube/names.h"
#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "model/trace/tshard.h"
#include "src/io/trace/read_shard.h"

#define GEN "--ranks 8 --steps 3 --pp 2 --micro 2 --tp 2 --pg-config --recompute"

static char traces[1200], shards[1300];

/* The generated traces, and their shards 1..3 of 3 in shards/. */
static int make(void) {
    if (traces[0]) return 0;
    const char *bin = getenv("PT_BIN"), *t = pt_gen_traces("trace_shard", GEN);
    if (!bin || !t) return -1;
    snprintf(traces, sizeof traces, "%s", t);
    snprintf(shards, sizeof shards, "%s/../shards", traces);
    for (int k = 1; k <= 3; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "'%s' trace '%s' --shard %d/3 -o '%s' 2>/dev/null", bin, traces, k, shards);
        if (system(cmd) != 0) return -1;
    }
    return 0;
}

static struct dataset *load_auto(const char *path, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

/* Every cell of a's cube is b's, by names (targets, steps, ranks). */
static void same_cube(const struct dataset *a, const struct dataset *b) {
    const struct cube *x = a->cube, *y = b->cube;
    CHECK_INT(y->nsteps, x->nsteps);
    CHECK_INT(y->nranks, x->nranks);
    CHECK_INT(y->nmetrics, x->nmetrics);
    if (y->nsteps != x->nsteps || y->nranks != x->nranks || y->nmetrics != x->nmetrics) return;
    for (int s = 0; s < x->nsteps; s++) {
        CHECK_INT(y->steps[s].value, x->steps[s].value);
        CHECK_INT(y->steps[s].origin, x->steps[s].origin);
        CHECK_INT(y->steps[s].micro, x->steps[s].micro);
    }
    for (int r = 0; r < x->nranks; r++) CHECK_INT(y->ranks[r], x->ranks[r]);
    size_t cells = 0, differ = 0;
    for (int m = 0; m < x->nmetrics; m++) {
        const struct cube_metric *mx = &x->metrics[m], *my = &y->metrics[m];
        CHECK_INT(my->ntargets, mx->ntargets);
        CHECK_INT(my->nstats, mx->nstats);
        for (uint32_t lt = 0; lt < mx->ntargets; lt++) {
            const char *name = names_str(x->names, mx->targets[lt]);
            uint32_t gy = names_find(y->names, name, strlen(name), 0, 0);
            uint32_t ly = cube_local_target(y, m, gy);
            CHECK(ly != UINT32_MAX);
            if (ly == UINT32_MAX) continue;
            for (int st = 0; st < mx->nstats; st++)
                for (int s = 0; s < x->nsteps; s++)
                    for (int r = 0; r < x->nranks; r++) {
                        float u = cube_get(x, m, st, lt, s, r), v = cube_get(y, m, st, ly, s, r);
                        cells++;
                        if (!(u == v || (u != u && v != v))) differ++;
                    }
        }
    }
    CHECK_INT(differ, 0);
    CHECK(cells > 100);
    fprintf(stderr, "cube cells compared: %zu, differing: %zu\n", cells, differ);
}

/* The breakdowns, steps, micro-batches, tables and groups of a are b's. */
static void same_run(const struct trace_run *a, const struct trace_run *b) {
    CHECK_INT(b->nranks, a->nranks);
    CHECK_INT(b->has_micro, a->has_micro);
    CHECK_INT(b->has_phases, a->has_phases);
    CHECK_INT(b->origin_ns, a->origin_ns);
    CHECK_INT(b->ngroups, a->ngroups);
    for (int g = 0; g < a->ngroups && g < b->ngroups; g++) {
        CHECK_INT(b->groups[g].dim, a->groups[g].dim);
        CHECK_INT(b->groups[g].nranks, a->groups[g].nranks);
        CHECK(!memcmp(b->groups[g].ranks, a->groups[g].ranks, (size_t)a->groups[g].nranks * sizeof *a->groups[g].ranks));
    }
    for (int i = 0; i < a->nranks && i < b->nranks; i++) {
        const struct trace_rank *x = &a->ranks[i], *y = &b->ranks[i];
        CHECK_INT(y->rank, x->rank);
        CHECK(!memcmp(&y->total, &x->total, sizeof x->total));
        CHECK_INT(y->nsteps, x->nsteps);
        CHECK_INT(y->nmicros, x->nmicros);
        CHECK_INT(y->nkernels, x->nkernels);
        for (int s = 0; s < x->nsteps && s < y->nsteps; s++) {
            CHECK_INT(y->steps[s].step, x->steps[s].step);
            CHECK_INT(y->steps[s].start_ns, x->steps[s].start_ns);
            CHECK_INT(y->steps[s].end_ns, x->steps[s].end_ns);
            CHECK(!memcmp(&y->steps[s].stats, &x->steps[s].stats, sizeof x->steps[s].stats));
        }
        for (size_t m = 0; m < x->nmicros && m < y->nmicros; m++)
            CHECK(!memcmp(&y->micros[m], &x->micros[m], sizeof x->micros[m]));
        CHECK(!memcmp(y->kernels->mask_ns, x->kernels->mask_ns, sizeof x->kernels->mask_ns));
        CHECK_INT(y->kernels->nk, x->kernels->nk);
        for (size_t k = 0; k < x->kernels->nk && k < y->kernels->nk; k++) {
            const struct kernels_stat *p = &x->kernels->k[k], *q = &y->kernels->k[k];
            CHECK_STR(b->names[q->name], a->names[p->name]);
            CHECK(p->count == q->count && p->sum_ns == q->sum_ns && p->max_ns == q->max_ns && p->min_ns == q->min_ns &&
                  p->type == q->type);
        }
        CHECK_INT(y->idle->n, x->idle->n);
        for (size_t k = 0; k < x->idle->n && k < y->idle->n; k++) {
            const struct idle_stream *p = &x->idle->v[k], *q = &y->idle->v[k];
            CHECK(p->stream == q->stream && p->host_ns == q->host_ns && p->kernel_ns == q->kernel_ns &&
                  p->other_ns == q->other_ns && p->kernels == q->kernels);
        }
    }
}

/* The shards' lanes: each slice's busy share per category equals the
 * kernels' (downsampled from the unsharded run's own kernels), to 1 per
 * mille (the segments' whole nanoseconds). */
static void same_lanes(const struct trace_run *a, const struct trace_run *b) {
    uint16_t p[TSHARD_SLICES * TSHARD_CATS], q[TSHARD_SLICES * TSHARD_CATS];
    int worst = 0;
    long busy = 0;
    CHECK_INT(b->lane_slices, TSHARD_SLICES);
    CHECK_INT(a->lane_slices, 0);
    for (int i = 0; i < a->nranks && i < b->nranks; i++)
        for (int s = 0; s < a->ranks[i].nsteps && s < b->ranks[i].nsteps; s++) {
            int64_t a0, a1, b0, b1;
            tshard_lanes(&a->ranks[i], s, TSHARD_SLICES, &a0, &a1, p);
            tshard_lanes(&b->ranks[i], s, TSHARD_SLICES, &b0, &b1, q);
            CHECK_INT(b0, a0);
            CHECK_INT(b1, a1);
            for (int j = 0; j < TSHARD_SLICES * TSHARD_CATS; j++) {
                int d = abs((int)p[j] - (int)q[j]);
                if (d > worst) worst = d;
                busy += p[j];
            }
        }
    CHECK(worst <= 1);
    CHECK(busy > 0);
}

static void shards_equal_unsharded(void) {
    if (!getenv("PT_PYTHON") || !getenv("PT_BIN")) SKIP("no python or PT_BIN");
    CHECK(make() == 0);
    if (!traces[0]) return;
    struct pt_error e;
    struct dataset *a = load(traces, &e), *b = load_auto(shards, &e);
    CHECK(a && b);
    if (a && b) {
        CHECK_STR(b->format->name, "trace_shard");
        CHECK_INT(b->nwarnings, 0);
        CHECK_INT(b->files_read, 3);
        same_cube(a, b);
        same_run(a->trace, b->trace);
        same_lanes(a->trace, b->trace);
    }
    /* a shard file alone opens too: its own ranks */
    char one[1400];
    snprintf(one, sizeof one, "%s/trace.shard-2-of-3.json", shards);
    struct dataset *c = load_auto(one, &e);
    CHECK(c != NULL);
    if (c) {
        CHECK_INT(c->trace->nranks, 3);
        CHECK_INT(c->trace->ranks[0].rank, 2);
    }
    dataset_free(a);
    dataset_free(b);
    dataset_free(c);
}

static void merged_file_opens(void) {
    if (!getenv("PT_PYTHON") || !getenv("PT_BIN")) SKIP("no python or PT_BIN");
    CHECK(make() == 0);
    if (!traces[0]) return;
    char out[1400], cmd[4096];
    snprintf(out, sizeof out, "%s/../merged.json", traces);
    snprintf(cmd, sizeof cmd, "'%s' trace --merge '%s/trace.shard-1-of-3.json' '%s/trace.shard-2-of-3.json' "
                              "'%s/trace.shard-3-of-3.json' -o '%s' 2>/dev/null", getenv("PT_BIN"), shards, shards, shards, out);
    CHECK(system(cmd) == 0);
    struct pt_error e;
    struct dataset *a = load(traces, &e), *b = load_auto(out, &e);
    CHECK(a && b);
    if (a && b) {
        CHECK_STR(b->format->name, "trace_shard");
        same_cube(a, b);
        same_run(a->trace, b->trace);
    }
    dataset_free(a);
    dataset_free(b);
}

/* ds's warnings joined, for CHECK_CONTAINS. */
static const char *warnings(const struct dataset *ds) {
    static char buf[8192];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ds->nwarnings && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n", ds->warnings[i]);
    return buf;
}

/* A copy of the shards in dir (name under the test's tmp). */
static const char *copy_set(const char *name) {
    static char dir[1400];
    char cmd[4096];
    snprintf(dir, sizeof dir, "%s/../%s", traces, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", dir, shards, dir);
    return system(cmd) == 0 ? dir : NULL;
}

static void bad_sets(void) {
    if (!getenv("PT_PYTHON") || !getenv("PT_BIN")) SKIP("no python or PT_BIN");
    CHECK(make() == 0);
    if (!traces[0]) return;
    struct pt_error e;
    char p[1600], cmd[4096];
    /* a truncated shard: said with its file and line, the others shown, its ranks named */
    const char *d = copy_set("trunc");
    snprintf(p, sizeof p, "%s/trace.shard-2-of-3.json", d);
    CHECK(truncate(p, 3000) == 0);
    struct dataset *ds = load_auto(d, &e);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->trace->nranks, 5);
        CHECK_CONTAINS(warnings(ds), "trace.shard-2-of-3.json: line");
        CHECK_CONTAINS(warnings(ds), "shard 2 of 3 is missing or unreadable");
        CHECK_CONTAINS(warnings(ds), "ranks missing (of 0..7, one trace file a rank): 2-4");
        dataset_free(ds);
    }
    /* a missing shard */
    d = copy_set("miss");
    snprintf(p, sizeof p, "%s/trace.shard-3-of-3.json", d);
    CHECK(unlink(p) == 0);
    ds = load_auto(d, &e);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->trace->nranks, 5);
        CHECK_CONTAINS(warnings(ds), "shard 3 of 3 is missing");
        CHECK_CONTAINS(warnings(ds), "): 5-7");
        dataset_free(ds);
    }
    /* a half-written one (its task killed) */
    d = copy_set("half");
    snprintf(cmd, sizeof cmd, "mv '%s/trace.shard-1-of-3.json' '%s/trace.shard-1-of-3.json.tmp.77'", d, d);
    CHECK(system(cmd) == 0);
    ds = load_auto(d, &e);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_CONTAINS(warnings(ds), "trace.shard-1-of-3.json.tmp.77 is a half-written shard");
        CHECK_CONTAINS(warnings(ds), "): 0-1");
        dataset_free(ds);
    }
    /* the same rank twice: the first kept, both files named */
    d = copy_set("dup");
    char one[1500];
    snprintf(one, sizeof one, "%s/../one.json", traces);
    snprintf(cmd, sizeof cmd, "'%s' trace --merge '%s/trace.shard-1-of-3.json' -o '%s' 2>/dev/null", getenv("PT_BIN"), d, one);
    CHECK(system(cmd) == 0);
    char *paths[2] = {(char *)d, one};
    struct dataset dd;
    memset(&dd, 0, sizeof dd);
    CHECK(read_shard_paths(paths, 2, NULL, &dd, &e) == 0);
    if (dd.trace) {
        CHECK_INT(dd.trace->nranks, 8);
        CHECK_CONTAINS(warnings(&dd), "one.json: rank 0 is also in ");
        CHECK_CONTAINS(warnings(&dd), "trace.shard-1-of-3.json is kept");
    }
    trace_run_free(dd.trace);
    dd.trace = NULL;
    for (size_t i = 0; i < dd.nwarnings; i++) free(dd.warnings[i]);
    free(dd.warnings);
    free(dd.warnidx);
    for (size_t i = 0; i < dd.nskipped; i++) free(dd.skipped[i]);
    free(dd.skipped);
    /* shards of two runs: refused, both named */
    d = copy_set("mixed");
    snprintf(cmd, sizeof cmd, "'%s' trace '%s' --shard 1/2 -o '%s' 2>/dev/null", getenv("PT_BIN"), traces, d);
    CHECK(system(cmd) == 0);
    ds = load_auto(d, &e);
    CHECK(ds == NULL);
    if (!ds) {
        CHECK_CONTAINS(e.msg, "are shards of two runs");
        CHECK_CONTAINS(e.msg, "trace.shard-1-of-2.json");
    }
    dataset_free(ds);
    /* another format version: refused, with both versions */
    d = copy_set("version");
    snprintf(cmd, sizeof cmd, "sed -i 's/\"version\": 2,/\"version\": 3,/' '%s/trace.shard-1-of-3.json'", d);
    CHECK(system(cmd) == 0);
    ds = load_auto(d, &e);
    CHECK(ds == NULL);
    if (!ds) CHECK_CONTAINS(e.msg, "trace.shard-1-of-3.json: trace shard format version 3; this probetop reads version 2");
    dataset_free(ds);
}

/* The fixture's shards (tests/data/traces/shards, of HTA's sampled_2rank)
 * open as HTA's traces themselves: the same cube, tables and breakdowns. */
static void fixture_shards(void) {
    const char *p = pt_shared_file("traces", "hta/sampled_2rank");
    if (!p) SKIP("PT_SHARED unset");
    char hta[1100];
    snprintf(hta, sizeof hta, "%s", p);
    const char *q = pt_shared_file("traces", "shards/sampled_2rank");
    struct pt_error e;
    struct dataset *a = load(hta, &e), *b = q ? load_auto(q, &e) : NULL;
    CHECK(a && b);
    if (a && b) {
        CHECK_STR(b->format->name, "trace_shard");
        CHECK_INT(b->trace->nranks, 2);
        same_cube(a, b);
        same_run(a->trace, b->trace);
        same_lanes(a->trace, b->trace);
    }
    dataset_free(a);
    dataset_free(b);
}

int main(void) {
    RUN(fixture_shards);
    RUN(shards_equal_unsharded);
    RUN(merged_file_opens);
    RUN(bad_sets);
    PT_DONE();
}
