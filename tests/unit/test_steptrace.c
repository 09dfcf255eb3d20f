/* The Ascend step time readers (probetop-formats(5), ASCEND STEP TIME CSV):
 * the hand-made fixture tests/ascend/pp2 (its README says how its values
 * are made) read per rank and from msprof-analyze's cluster file, giving
 * the same cube; where ranks come from; hostile files (missing columns,
 * odd bytes, rows cut short, text for numbers, quotes) answered by notes
 * naming file and line, the good rows kept. */
#include "pt_cube.h"
#include "pt_test.h"

#include "model/util/util.h"
#include "src/io/load.h"
#include "src/io/ascend/read_steptrace.h"

static const char *fixture(const char *rel) {
    static char buf[2][4096];
    static int k;
    char *b = buf[k++ & 1];
    const char *src = getenv("PT_SRC");   /* the checkout (tests/CMakeLists.txt) */
    snprintf(b, 4096, "%s/tests/ascend/pp2%s%s", src ? src : ".", *rel ? "/" : "", rel);
    return b;
}

static struct dataset *load(const char *path, const char *format, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    if (format) lo.format = formats_find(format);
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static float cell(const struct dataset *ds, const char *target, const char *stat, int step, int rank) {
    return pt_cube_value(ds, "time", stat, target, 0, step, rank);
}

/* Rank r, step s of the fixture (tests/ascend/README.md). */
static double want_compute(int r, int s) { return 80000 + 1000 * r + 100 * s; }
static double want_free(int r, int s) { return r == 2 && s == 2 ? 40000.5 : 10000 - 500 * r; }

static void check_values(const struct dataset *ds) {
    const struct cube *c = ds->cube;
    CHECK_INT(c->nsteps, 3);
    CHECK_INT(c->nranks, 4);
    CHECK_INT(c->nmetrics, 1);
    for (int r = 0; r < 4; r++)
        for (int s = 1; s <= 3; s++) {
            double comp = want_compute(r, s), cno = 10000 + 500 * r, fr = want_free(r, s), bub = r >= 2 ? 3000 : 1000;
            double total = comp + cno + fr;
            CHECK_NEAR(cell(ds, "compute", "us", s, r), comp, 1e-3);
            CHECK_NEAR(cell(ds, "exposed_communication", "us", s, r), cno, 1e-3);
            CHECK_NEAR(cell(ds, "overlapped", "us", s, r), 5000, 1e-3);
            CHECK_NEAR(cell(ds, "communication", "us", s, r), cno + 5000, 1e-3);
            CHECK_NEAR(cell(ds, "idle", "us", s, r), fr, 1e-3);
            CHECK_NEAR(cell(ds, "bubble", "us", s, r), bub, 1e-3);
            CHECK_NEAR(cell(ds, "stage", "us", s, r), total - bub, 1e-2);
            CHECK_NEAR(cell(ds, "communication_excl_receive", "us", s, r), cno - bub, 1e-3);
            CHECK_NEAR(cell(ds, "compute", "pct", s, r), comp / total * 100, 1e-4);
            CHECK_NEAR(cell(ds, "idle", "pct", s, r), fr / total * 100, 1e-4);
        }
    /* the planted slow step: rank 2, step 2, idle 30 % of the step */
    CHECK_NEAR(cell(ds, "idle", "pct", 2, 2), 40000.5 / 133200.5 * 100, 1e-4);
    CHECK_NEAR(cell(ds, "preparing", "us", 1, 3), 203, 1e-3);
}

static void fixture_ranks(void) {
    struct pt_error err;
    struct dataset *ds = load(fixture(""), NULL, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_STR(formats_name(ds->format), "ascend_step");
    check_values(ds);
    /* rank 1's file (an older torch_npu) has no Preparing column: missing, not 0 */
    CHECK(cube_is_missing(cell(ds, "preparing", "us", 1, 1)));
    CHECK_NEAR(cell(ds, "preparing", "us", 3, 0), 200, 1e-3);
    CHECK_INT(ds->files_read, 4);
    CHECK_INT(ds->nwarnings, 0);
    CHECK_INT(ds->nskipped, 0);
    CHECK_INT(ds->micro_step, 0);   /* step tables have no micro steps */
    dataset_free(ds);
}

static void fixture_cluster(void) {
    struct pt_error err;
    struct dataset *ds = load(fixture("cluster_analysis_output"), NULL, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_STR(formats_name(ds->format), "ascend_cluster");
    check_values(ds);   /* the stage rows (maxima over a stage) are not ranks */
    CHECK_NEAR(cell(ds, "preparing", "us", 1, 1), 201, 1e-3);
    CHECK_INT(ds->nwarnings, 0);
    CHECK(strstr(ds->source, "cluster_step_trace_time.csv") != NULL);
    dataset_free(ds);
    /* the collection root opens per rank; --format picks the cluster file */
    ds = load(fixture(""), "ascend_cluster", &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_STR(formats_name(ds->format), "ascend_cluster");
        check_values(ds);
        dataset_free(ds);
    }
    /* the file itself */
    ds = load(fixture("cluster_analysis_output/cluster_step_trace_time.csv"), NULL, &err);
    CHECK(ds && !strcmp(formats_name(ds->format), "ascend_cluster"));
    dataset_free(ds);
}

static void lone_file(void) {
    struct pt_error err;
    /* the rank from profiler_info_2.json beside ASCEND_PROFILER_OUTPUT */
    struct dataset *ds =
        load(fixture("node1_5101_20250312101501001_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"), NULL, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_STR(formats_name(ds->format), "ascend_step");
    CHECK_INT(ds->cube->nranks, 1);
    CHECK_INT(ds->cube->ranks[0], 2);
    CHECK_NEAR(cell(ds, "idle", "us", 2, 2), 40000.5, 1e-3);
    dataset_free(ds);
    /* the output folder, and the profiling folder */
    ds = load(fixture("node1_5101_20250312101501001_ascend_pt/ASCEND_PROFILER_OUTPUT"), NULL, &err);
    CHECK(ds && ds->cube->nranks == 1 && ds->cube->ranks[0] == 2);
    dataset_free(ds);
    ds = load(fixture("node0_4102_20250312101500456_ascend_pt"), NULL, &err);
    CHECK(ds && ds->cube->nranks == 1 && ds->cube->ranks[0] == 1);
    dataset_free(ds);
}

/* Writes dir/rel (making its folders) with text. */
static void put(const char *dir, const char *rel, const char *text) {
    char p[4096], cmd[8192];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", p);
    if (system(cmd) != 0) return;
    FILE *f = fopen(p, "wb");
    if (!f) return;
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

#define HEAD "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble," \
             "Communication(Not Overlapped and Exclude Receive),Preparing\n"
#define ROW1 "1,10,2,1,3,4,15,1,1,0.5\n"

static int has_warning(const struct dataset *ds, const char *text) {
    for (size_t i = 0; i < ds->nwarnings; i++)
        if (strstr(ds->warnings[i], text)) return 1;
    return 0;
}

static void rank_sources(void) {
    const char *d = pt_tmpdir("ranks");
    if (!d) SKIP("no scratch folder");
    char root[1100];
    snprintf(root, sizeof root, "%s", d);
    put(root, "w_rank5_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", HEAD ROW1);
    put(root, "x_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", HEAD ROW1);
    put(root, "y_1_20250101000000_ascend_pt/profiler_info_1.json", "{}");
    put(root, "y_1_20250101000000_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", HEAD "1,11,2,1,3,4,15,1,1,0.5\n");
    put(root, "y_1_20250102000000_ascend_pt/profiler_info_1.json", "{}");
    put(root, "y_1_20250102000000_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", HEAD "1,12,2,1,3,4,15,1,1,0.5\n");
    put(root, "notes/readme.txt", "not a profile");
    struct pt_error err;
    struct dataset *ds = load(root, NULL, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    const struct cube *c = ds->cube;
    CHECK_INT(c->nranks, 3);   /* 1 (twice), 5 (its name), 6 (after the highest) */
    CHECK_INT(c->ranks[0], 1);
    CHECK_INT(c->ranks[1], 5);
    CHECK_INT(c->ranks[2], 6);
    CHECK_NEAR(cell(ds, "compute", "us", 1, 1), 12, 0);   /* the later folder of rank 1 */
    CHECK(has_warning(ds, "1 profiling folder names no rank"));
    CHECK(has_warning(ds, "numbered from 6 in folder order"));
    CHECK(has_warning(ds, "rank 1 profiled again in"));
    CHECK_INT(ds->nskipped, 1);
    if (ds->nskipped) CHECK_CONTAINS(ds->skipped[0], "y_1_20250101000000_ascend_pt");
    dataset_free(ds);
    CHECK_INT(steptrace_folder_rank("/nonexistent/job_Rank-12_ascend_pt"), 12);
    CHECK_INT(steptrace_folder_rank("/nonexistent/ranks_ascend_pt"), -1);
    CHECK_INT(steptrace_folder_rank("/nonexistent/rank99999999999_x"), -1);
}

/* steptrace_parse on text: the rows added, the notes in ds. */
static long parse(const char *text, int cluster, struct dataset *ds, struct steptrace_rows *rows) {
    size_t n = strlen(text);
    char *b = malloc(n + 1);
    if (!b) return -1;
    memcpy(b, text, n + 1);
    long got = steptrace_parse(b, n, "t.csv", cluster, 7, ds, rows);
    free(b);
    return got;
}

static void hostile(void) {
    struct dataset *ds = calloc(1, sizeof *ds);
    struct steptrace_rows rows = {0};
    if (!ds) return;
    /* a missing required column names it */
    CHECK_INT(parse("Step,Computing,Communication(Not Overlapped)\n1,2,3\n", 0, ds, &rows), 0);
    CHECK(has_warning(ds, "t.csv: line 1: the header has no Free column"));
    /* no header at all */
    CHECK_INT(parse("", 0, ds, &rows), 0);
    CHECK(has_warning(ds, "t.csv: empty: no header line"));
    /* odd bytes in the header: not a header */
    CHECK_INT(parse("\xff\xfe" "S\0t\0e\0p\0,\n1,2\n", 0, ds, &rows), 0);
    CHECK(has_warning(ds, "the header has no Step column"));
    /* a row cut short (the file truncated), the good rows kept */
    CHECK_INT(parse(HEAD ROW1 "2,10,2,1", 0, ds, &rows), 1);
    CHECK(has_warning(ds, "t.csv: line 3: 1 row skipped (the first has fewer fields than the header (cut short?))"));
    CHECK_INT(rows.n, 1);
    CHECK_INT(rows.v[0].rank, 7);
    CHECK_INT(rows.v[0].step, 1);
    CHECK_NEAR(rows.v[0].v[STEPTRACE_PREP], 0.5, 0);
    /* text for a number, a step that is no integer */
    CHECK_INT(parse(HEAD "1,ten,2,1,3,4,15,1,1,0.5\n2.5,1,2,1,3,4,15,1,1,0.5\n" ROW1, 0, ds, &rows), 1);
    CHECK(has_warning(ds, "t.csv: line 2: 2 rows skipped (the first has a time that is no number)"));
    /* N/A and empty cells are no value; a BOM and CRLF; quoted fields */
    steptrace_rows_free(&rows);
    CHECK_INT(parse("\xef\xbb\xbf" "Step,Computing,\"Communication(Not Overlapped)\",Free,Preparing\r\n"
                    "3, 9 ,\"1\",N/A,\r\n", 0, ds, &rows), 1);
    CHECK_INT(rows.n, 1);
    CHECK_INT(rows.v[0].step, 3);
    CHECK_NEAR(rows.v[0].v[STEPTRACE_COMPUTE], 9, 0);
    CHECK_INT(rows.v[0].present, (1u << STEPTRACE_COMPUTE) | (1u << STEPTRACE_EXPOSED));
    /* no step number (no schedule): step 0, said */
    steptrace_rows_free(&rows);
    CHECK_INT(parse("Step,Computing,Communication(Not Overlapped),Free\n,5,1,1\n", 0, ds, &rows), 1);
    CHECK_INT(rows.v[0].step, 0);
    CHECK(has_warning(ds, "rows without a Step number (profiled without a schedule) are step 0"));
    /* the cluster file: rank rows, stage rows passed over, other types refused */
    steptrace_rows_free(&rows);
    CHECK_INT(parse("Step,Type,Index,Computing,Communication(Not Overlapped),Free\n"
                    "1,rank,4,5,1,1\n1,stage,\"(4, 5)\",5,1,1\n1,node,4,5,1,1\n1,rank,-1,5,1,1\n"
                    "1,stage,\"(4, 5,1,1\n", 1, ds, &rows), 1);
    CHECK_INT(rows.v[0].rank, 4);
    CHECK(has_warning(ds, "t.csv: line 4: 3 rows skipped (the first has a Type other than rank or stage"));
    CHECK_INT(parse("Step,Computing,Communication(Not Overlapped),Free\n1,5,1,1\n", 1, ds, &rows), 0);
    CHECK(has_warning(ds, "the header has no Type column"));
    /* a huge step number is refused, not allocated for */
    CHECK_INT(parse("Step,Computing,Communication(Not Overlapped),Free\n99999999999,5,1,1\n", 0, ds, &rows), 0);
    steptrace_rows_free(&rows);
    dataset_free(ds);
}

/* A profiling folder with a timeline (trace_view.json) beside the step
 * table opens as the trace; --format ascend_step reads the table. */
static void trace_first(void) {
    const char *d = pt_tmpdir("both");
    if (!d) SKIP("no scratch folder");
    char root[1100];
    snprintf(root, sizeof root, "%s/w_1_2_ascend_pt", d);
    put(root, "profiler_info_3.json", "{}");
    put(root, "ASCEND_PROFILER_OUTPUT/step_trace_time.csv", HEAD ROW1);
    put(root, "ASCEND_PROFILER_OUTPUT/trace_view.json", "[{\"ph\": \"X\", \"name\": \"k\", \"ts\": 1, \"dur\": 1}]");
    const struct formats_row *f = formats_detect(root);
    CHECK(f != NULL);
    if (f) CHECK(strcmp(f->name, "ascend_step") != 0);
    struct pt_error err;
    struct dataset *ds = load(root, "ascend_step", &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->cube->ranks[0], 3);
        CHECK_NEAR(cell(ds, "compute", "us", 1, 3), 10, 0);
        dataset_free(ds);
    }
}

static void load_errors(void) {
    const char *d = pt_tmpdir("errors");
    if (!d) SKIP("no scratch folder");
    char root[1100], p[1200];
    snprintf(root, sizeof root, "%s", d);
    put(root, "a_ascend_pt/profiler_info_0.json", "{}");
    put(root, "a_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", "Step,Computing\n1,2\n");
    struct pt_error err;
    struct dataset *ds = load(root, NULL, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "no usable row in any step_trace_time.csv (first note: ");
    CHECK_CONTAINS(err.msg, "step_trace_time.csv: line 1: the header has no Communication(Not Overlapped) column");
    /* --format on a folder without the files */
    snprintf(p, sizeof p, "%s/a_ascend_pt/profiler_info_0.json", root);
    CHECK(load(root, "ascend_cluster", &err) == NULL);
    CHECK_CONTAINS(err.msg, "no cluster_step_trace_time.csv here, nor in cluster_analysis_output/");
    snprintf(p, sizeof p, "%s/a_ascend_pt", root);
    snprintf(root, sizeof root, "%s/notes", d);
    put(d, "notes/x.txt", "x");
    CHECK(load(root, "ascend_step", &err) == NULL);
    CHECK_CONTAINS(err.msg, "no ASCEND_PROFILER_OUTPUT/step_trace_time.csv here, nor in the folders inside");
}

int main(void) {
    RUN(fixture_ranks);
    RUN(fixture_cluster);
    RUN(lone_file);
    RUN(rank_sources);
    RUN(hostile);
    RUN(trace_first);
    RUN(load_errors);
    PT_DONE();
}
