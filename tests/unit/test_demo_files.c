/* test_demo_files: what the demo's generator (src/io/demo/demo_files.h)
 * plants, read back two ways: the JSON of the files with cJSON (not
 * probetop's reader) for the structure and the drift, and probetop's real
 * readers for the NaN's origin across ranks, the trace and the anomaly
 * reports.  The expected values are the planted ones, worked out from the
 * rules the header states (not read from the program's answers). */
#include "pt_test.h"

#include <cjson/cJSON.h>

#include "model/overflow/anomaly.h"
#include "src/io/demo/demo_files.h"
#include "src/io/dump/ovf_origin.h"
#include "src/io/load.h"
#include "src/session/demo_session.h"
#include "src/session/session.h"
#include "model/util/fs.h"
#include "model/util/util.h"

static const struct demo_file *find(const struct demo_files *f, const char *path) {
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].path, path)) return &f->v[i];
    return NULL;
}

static cJSON *parse(const struct demo_files *f, const char *path) {
    const struct demo_file *x = find(f, path);
    CHECK(x != NULL);
    if (!x) return NULL;
    cJSON *j = cJSON_ParseWithLength(x->data, x->len);
    CHECK(j != NULL);
    if (!j) fprintf(stderr, "%s does not parse\n", path);
    return j;
}

/* Every file is there, once: 2 runs x 4 steps x 8 ranks x 3 dump files, 2
 * logs, 8 trace files, 8 monitor CSV files and 2 anomaly reports; and a
 * second make gives the same bytes (no clock, no rand()). */
static void test_counts(void) {
    struct demo_files a, b;
    struct pt_error err;
    CHECK_INT(demo_files_make(&a, &err), 0);
    CHECK_INT(demo_files_make(&b, &err), 0);
    CHECK_INT(a.n, 2 * 4 * 8 * 3 + 2 + 8 + 8 + 2);
    CHECK_INT(a.n, b.n);
    int same = a.n == b.n;
    for (size_t i = 0; same && i < a.n; i++)
        same = !strcmp(a.v[i].path, b.v[i].path) && a.v[i].len == b.v[i].len && !memcmp(a.v[i].data, b.v[i].data, a.v[i].len);
    CHECK(same);
    for (size_t i = 0; i < a.n; i++)
        for (size_t j = i + 1; j < a.n; j++)
            if (!strcmp(a.v[i].path, a.v[j].path)) CHECK(!"a path twice");
    CHECK(find(&a, "problem/dump/step3/rank7/stack.json") && find(&a, "bench/dump/step0/rank0/construct.json"));
    CHECK(find(&a, "problem/trace/rank5.pt.trace.json") && find(&a, "problem/train.log") && find(&a, "bench/train.log"));
    CHECK(find(&a, "problem/monitor/anomaly_detected/rank2/anomaly.json"));
    demo_files_free(&a);
    demo_files_free(&b);
}

/* A clean rank's three files agree: every data key has its parent in
 * construct.json (a module of the data, or null), every node has a stack;
 * stage 0 ends with a send to rank + 4, stage 1 starts with a recv from
 * rank - 4; 2 layers a stage, each with 4 linears and 2 all_reduces over
 * the rank's tensor-parallel pair. */
static void test_structure(void) {
    struct demo_files f;
    struct pt_error err;
    CHECK_INT(demo_files_make(&f, &err), 0);
    for (int rank = 0; rank < 8; rank++) {
        char p[100];
        snprintf(p, sizeof p, "bench/dump/step0/rank%d/dump.json", rank);
        cJSON *d = parse(&f, p);
        snprintf(p, sizeof p, "bench/dump/step0/rank%d/construct.json", rank);
        cJSON *c = parse(&f, p);
        snprintf(p, sizeof p, "bench/dump/step0/rank%d/stack.json", rank);
        cJSON *s = parse(&f, p);
        if (!d || !c || !s) continue;
        CHECK_STR(cJSON_GetObjectItem(d, "level")->valuestring, "mix");
        cJSON *data = cJSON_GetObjectItem(d, "data");
        int n = 0, linears = 0, reduces = 0;
        const char *first = NULL, *last = NULL;
        cJSON *e;
        cJSON_ArrayForEach(e, data) {
            n++;
            if (!first) first = e->string;
            last = e->string;
            cJSON *parent = cJSON_GetObjectItem(c, e->string);
            CHECK(parent != NULL);
            if (parent && cJSON_IsString(parent)) CHECK(cJSON_GetObjectItem(data, parent->valuestring) != NULL);
            linears += !strncmp(e->string, "Functional.linear.", 18);
            if (!strncmp(e->string, "Distributed.all_reduce.", 23)) {
                reduces++;
                cJSON *g = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "input_kwargs"), "group"), "group_ranks");
                CHECK_INT(cJSON_GetArraySize(g), 2);
                CHECK_INT(cJSON_GetArrayItem(g, 0)->valueint, rank - rank % 2);
                CHECK_INT(cJSON_GetArrayItem(g, 1)->valueint, rank - rank % 2 + 1);
            }
        }
        CHECK_INT(cJSON_GetArraySize(c), n);
        CHECK_INT(cJSON_GetArraySize(s), n);
        int stage = rank / 4;
        CHECK_INT(linears, 2 * 4 + stage);   /* stage 1 also has the output layer */
        CHECK_INT(reduces, 2 * 2);
        if (stage == 0) {
            CHECK_STR(last, "Distributed.send.0.forward");
            cJSON *dst = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(data, last), "input_kwargs"), "dst");
            CHECK_INT(cJSON_GetObjectItem(dst, "value")->valueint, rank + 4);
        } else {
            CHECK_STR(first, "Distributed.recv.0.forward");
            cJSON *src = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(data, first), "input_kwargs"), "src");
            CHECK_INT(cJSON_GetObjectItem(src, "value")->valueint, rank - 4);
        }
        cJSON_Delete(d);
        cJSON_Delete(c);
        cJSON_Delete(s);
    }
    demo_files_free(&f);
}

static double out_norm(cJSON *dump, const char *node) {
    cJSON *n = cJSON_GetObjectItem(cJSON_GetObjectItem(dump, "data"), node);
    cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(n, "output"), 0);
    cJSON *v = cJSON_GetObjectItem(o, "Norm");
    CHECK(v != NULL);
    return v ? v->valuedouble : NAN;
}

static double in_norm(cJSON *dump, const char *node) {
    cJSON *n = cJSON_GetObjectItem(cJSON_GetObjectItem(dump, "data"), node);
    cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(n, "input_args"), 0);
    cJSON *v = cJSON_GetObjectItem(o, "Norm");
    CHECK(v != NULL);
    return v ? v->valuedouble : NAN;
}

/* The drift: on the second stage's ranks (4..7) the problem's fc2 output
 * of local layer 1 is (1 + 0.3 step) times the benchmark's, its input the
 * same; the first stage (0..3) equals the benchmark at steps 0 and 1
 * (before the NaN). */
static void test_drift(void) {
    struct demo_files f;
    struct pt_error err;
    CHECK_INT(demo_files_make(&f, &err), 0);
    for (int step = 0; step < 2; step++)
        for (int rank = 0; rank < 8; rank++) {
            char p[100], b[100];
            snprintf(p, sizeof p, "problem/dump/step%d/rank%d/dump.json", step, rank);
            snprintf(b, sizeof b, "bench/dump/step%d/rank%d/dump.json", step, rank);
            cJSON *jp = parse(&f, p), *jb = parse(&f, b);
            if (!jp || !jb) continue;
            double want = rank >= 4 ? 1 + 0.3 * step : 1.0;
            CHECK_NEAR(out_norm(jp, DEMO_FILES_DRIFT_NODE) / out_norm(jb, DEMO_FILES_DRIFT_NODE), want, 1e-6);
            CHECK_NEAR(in_norm(jp, DEMO_FILES_DRIFT_NODE) / in_norm(jb, DEMO_FILES_DRIFT_NODE), 1.0, 1e-9);
            /* its module holds it */
            cJSON_Delete(jp);
            cJSON_Delete(jb);
        }
    cJSON *c = parse(&f, "problem/dump/step1/rank4/construct.json");
    CHECK_STR(cJSON_GetObjectItem(c, DEMO_FILES_DRIFT_NODE)->valuestring, DEMO_FILES_DRIFT_MODULE);
    cJSON_Delete(c);
    c = parse(&f, "problem/dump/step2/rank2/construct.json");
    CHECK_STR(cJSON_GetObjectItem(c, DEMO_FILES_BORN_NODE)->valuestring, DEMO_FILES_BORN_MODULE);
    cJSON_Delete(c);
    demo_files_free(&f);
}

/* Written to a folder and read by probetop's dump reader: NaN/Inf only at
 * steps 2 and 3; the origin search names rank 2's Functional.linear.6 at
 * step 2, and rank 6 received it through its recv from rank 2's send; the
 * benchmark has none.  The anomaly reports: the drift's turbulence (step
 * 1, rank 4) before the NaN (step 2, rank 2) in msProbe's order. */
static void test_readers(void) {
    const char *dir = pt_tmpdir("readers");
    CHECK(dir != NULL);
    if (!dir) return;
    struct demo_files f;
    struct pt_error err;
    CHECK_INT(demo_files_make(&f, &err), 0);
    CHECK_INT(demo_files_write(&f, dir, &err), 0);
    char p[1200];
    struct load_opts o;
    load_opts_init(&o);
    struct dataset *ds = NULL;
    snprintf(p, sizeof p, "%s/%s", dir, DEMO_FILES_PROBLEM);
    CHECK_INT(load_dataset(p, &o, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->cube->nsteps, 4);
        CHECK_INT(ds->cube->nranks, 8);
        int before = 1;
        for (size_t i = 0; i < ds->ovf.n; i++) before &= ds->ovf.v[i].step >= 2;
        CHECK(ds->ovf.n > 0 && before);
        struct ovf_origin_report rep = {0};
        CHECK_INT(ovf_origin_run(ds, &rep, &err), 0);
        CHECK_INT(rep.n, 1);
        if (rep.n == 1 && rep.v[0].norigins == 1) {
            CHECK_INT(rep.v[0].step, 2);
            CHECK_INT(rep.v[0].origins[0].rank, DEMO_FILES_BORN_RANK);
            CHECK_STR(rep.v[0].origins[0].name, DEMO_FILES_BORN_NODE);
            int recv = 0;
            for (size_t i = 0; i < rep.v[0].nchain; i++) {
                const struct ovf_origin_hop *h = &rep.v[0].chain[i];
                if (h->to.rank == DEMO_FILES_RECV_RANK && !strcmp(h->to.name, DEMO_FILES_RECV_NODE) && h->has_from)
                    recv = h->from.rank == DEMO_FILES_BORN_RANK && !strcmp(h->from.name, "Distributed.send.0.forward");
            }
            CHECK(recv);
        } else {
            CHECK(!"one origin");
        }
        ovf_origin_report_free(&rep);
        dataset_free(ds);
    }
    snprintf(p, sizeof p, "%s/%s", dir, DEMO_FILES_BENCH);
    CHECK_INT(load_dataset(p, &o, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->ovf.n, 0);
        dataset_free(ds);
    }
    snprintf(p, sizeof p, "%s/%s", dir, DEMO_FILES_MONITOR);
    CHECK_INT(load_dataset(p, &o, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->anomalies.n, 2);
        if (ds->anomalies.n == 2) {
            CHECK_INT(ds->anomalies.v[0].step, 1);
            CHECK_INT(ds->anomalies.v[0].rank, DEMO_FILES_DRIFT_RANK);
            CHECK_INT(ds->anomalies.v[1].step, 2);
            CHECK_INT(ds->anomalies.v[1].rank, DEMO_FILES_BORN_RANK);
            CHECK_INT(ds->anomalies.placed, 2);
        }
        dataset_free(ds);
    }
    snprintf(p, sizeof p, "%s/%s", dir, DEMO_FILES_TRACE);
    CHECK_INT(load_dataset(p, &o, &ds, &err), 0);
    if (ds) {
        CHECK(ds->trace != NULL);
        dataset_free(ds);
    }
    CHECK_INT(demo_files_remove(&f, dir), 0);
    /* the folder is left as it was: empty */
    size_t n = 0;
    char **left = fs_list_dir(dir, 1, &n);
    CHECK_INT(n, 0);
    if (left) fs_free_list(left, n);
    demo_files_free(&f);
}

/* The session side: a private folder under $TMPDIR, the pair in compare
 * mode with the trace, curves (both runs) and anomaly reports joined to
 * the problem run's data; closed, the folder is gone. */
static void test_session(void) {
    const char *dir = pt_tmpdir("session");
    CHECK(dir != NULL);
    if (!dir) return;
    setenv("TMPDIR", dir, 1);
    struct session s;
    memset(&s, 0, sizeof s);
    load_opts_init(&s.lopts);
    s.demo = 1;
    struct pt_error err;
    CHECK_INT(demo_session_open(&s, &err), 0);
    const char *d = demo_session_dir(&s);
    CHECK(d && !strncmp(d, dir, strlen(dir)) && strstr(d, "/probetop-demo-"));
    char keep[1200];
    snprintf(keep, sizeof keep, "%s", d ? d : "");
    CHECK_INT(s.mode, SESSION_MODE_COMPARE);
    CHECK_INT(s.npaths, 2);
    CHECK(s.paths[0] && util_ends_with(s.paths[0], "/problem/dump") && s.paths[1] && util_ends_with(s.paths[1], "/bench/dump"));
    CHECK(s.ds && s.ds->trace && s.ds->curves && s.ds->anomalies.n == 2);
    CHECK(s.bench_ds && s.bench_ds->curves);
    CHECK_STR(s.parallel_arg, "W=8 L=4 TP=2 PP=2");
    CHECK(fs_is_dir(keep));
    demo_session_close(&s);
    CHECK(!fs_is_dir(keep));
    CHECK(s.demo_files == NULL);
    dataset_free(s.ds);
    dataset_free(s.bench_ds);
    for (int i = 0; i < 2; i++) free(s.paths[i]);
    free(s.parallel_arg);
    unsetenv("TMPDIR");
}

/* The demo's problem dump is what msProbe reads: msProbe's own data2db on
 * it (run once with the reference tool, its database's canonical text
 * kept in tests/data/msprobe/derived/demo) equals probetop's data2db. */
static void test_msprobe_data2db(void) {
    const char *bin = getenv("PT_BIN"), *py = getenv("PT_PYTHON");
    const char *ref = pt_fixture("derived/demo/dump_data.trend.canonical.txt");
    if (!bin || !ref) SKIP("PT_BIN or the fixture absent");
    const char *dir = pt_tmpdir("msprobe");
    CHECK(dir != NULL);
    if (!dir) return;
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "'%s' demo --write '%s/d' >/dev/null && '%s' data2db --data '%s/d/problem/dump' --db '%s/db' 2>/dev/null && "
             "'%s' '%s/tools/trenddb_canon.py' '%s/db/dump_data.trend.db' > '%s/canon.txt' && cmp '%s/canon.txt' '%s'",
             bin, dir, bin, dir, dir, py && *py ? py : "python3", pt_shared(), dir, dir, dir, ref);
    CHECK_INT(system(cmd), 0);
}

int main(void) {
    RUN(test_counts);
    RUN(test_structure);
    RUN(test_drift);
    RUN(test_readers);
    RUN(test_session);
    RUN(test_msprobe_data2db);
    PT_DONE();
}
