/* Hostile and broken inputs: each gets a clear message naming the file and
 * the place, or a warning with the good part loaded; never a crash or hang.
 * Everything is generated here, under PT_TMP. */
#include "pt_test.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "src/io/load.h"

static const char GOOD[] =
    "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"dump_data_dir\": null, \"data\": {"
    "\"Functional.linear.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
    "\"shape\": [2], \"Max\": 1.0, \"Min\": -1.0, \"Mean\": 0.5, \"Norm\": 2.0}], \"input_kwargs\": {}, "
    "\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 3.0, "
    "\"Min\": -3.0, \"Mean\": 0.0, \"Norm\": 4.0}]}}}";

static char root[4096];

/* A dump root with step0/rank0 (and optionally rank1 good) holding text. */
static const char *make_dump(const char *name, const char *text, int with_good_rank) {
    char p[4096];
    snprintf(root, sizeof root, "%s", pt_tmpdir(name));
    snprintf(p, sizeof p, "%s/step0/rank0", root);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    if (system(cmd) != 0) return NULL;
    snprintf(p, sizeof p, "%s/step0/rank0/dump.json", root);
    if (text) pt_write(p, text);
    snprintf(p, sizeof p, "%s/step0/rank0/construct.json", root);
    pt_write(p, "{\"Functional.linear.0.forward\": null}");
    if (with_good_rank) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/step0/rank1'", root);
        if (system(cmd) != 0) return NULL;
        snprintf(p, sizeof p, "%s/step0/rank1/dump.json", root);
        pt_write(p, GOOD);
    }
    return root;
}

static int try_load(const char *path, struct dataset **ds, struct pt_error *err) {
    struct load_opts lo;
    load_opts_init(&lo);
    *ds = NULL;
    return load_dataset(path, &lo, ds, err);
}

/* Loading fails with a message that contains each of the needles. */
static void expect_error(const char *path, const char *n1, const char *n2) {
    struct dataset *ds;
    struct pt_error err = {{0}};
    CHECK_INT(try_load(path, &ds, &err), -1);
    CHECK_CONTAINS(err.msg, n1);
    if (n2) CHECK_CONTAINS(err.msg, n2);
    dataset_free(ds);
}

/* Loading succeeds from the good rank; the bad file is skipped with a warning naming it. */
static void expect_skip(const char *text, const char *needle) {
    struct dataset *ds;
    struct pt_error err;
    const char *r = make_dump("skip", text, 1);
    CHECK_INT(try_load(r, &ds, &err), 0);
    if (!ds) return;
    CHECK_INT(ds->files_read, 1);
    CHECK_INT(ds->nskipped, 1);
    if (ds->nskipped) CHECK_CONTAINS(ds->skipped[0], "rank0/dump.json");
    int found = 0;
    for (size_t i = 0; i < ds->nwarnings; i++)
        if (strstr(ds->warnings[i], "rank0/dump.json") && strstr(ds->warnings[i], needle)) found = 1;
    CHECK(found);
    CHECK_INT(names_count(ds->cube->names), 2);
    dataset_free(ds);
}

static void empty_file(void) {
    expect_error(make_dump("empty", "", 0), "rank0/dump.json", "empty");
    expect_skip("", "empty");
}

static void truncated_json(void) {
    char t[sizeof GOOD];
    memcpy(t, GOOD, sizeof GOOD);
    t[200] = '\0';
    expect_error(make_dump("trunc", t, 0), "rank0/dump.json: line 1", "truncated");
    expect_skip(t, "truncated");
}

static void not_an_object(void) {
    expect_error(make_dump("notobj", "[1, 2, 3]", 0), "rank0/dump.json", "expected a JSON object");
    expect_skip("\"just a string\"", "expected a JSON object");
}

static void data_missing_or_wrong(void) {
    expect_error(make_dump("nodata", "{\"task\": \"statistics\"}", 0), "rank0/dump.json", "no \"data\"");
    expect_error(make_dump("baddata", "{\"data\": [1, 2]}", 0), "rank0/dump.json", "key \"data\"");
}

static void string_statistic(void) {
    struct dataset *ds;
    struct pt_error err;
    const char *r = make_dump("strstat",
        "{\"data\": {\"Functional.relu.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
        "\"torch.float32\", \"Max\": \"1.5\", \"Min\": \"abc\", \"Mean\": \"inf\", \"Norm\": {\"x\": 1}}], "
        "\"output\": []}}}", 0);
    CHECK_INT(try_load(r, &ds, &err), 0);
    if (!ds) return;
    const struct cube *c = ds->cube;
    int m = cube_metric_find(c, "forward");
    CHECK_INT(c->metrics[m].ntargets, 1);
    CHECK_NEAR(cube_get(c, m, cube_stat_find(c, m, "max"), 0, 0, 0), 1.5, 0);
    CHECK(cube_is_missing(cube_get(c, m, cube_stat_find(c, m, "min"), 0, 0, 0)));
    CHECK(isinf(cube_get(c, m, cube_stat_find(c, m, "mean"), 0, 0, 0)));
    CHECK(cube_is_missing(cube_get(c, m, cube_stat_find(c, m, "norm"), 0, 0, 0)));
    dataset_free(ds);
}

static void odd_names(void) {
    struct dataset *ds;
    struct pt_error err;
    const char *r = make_dump("oddnames",
        "{\"data\": {\"Functional.re\\u001b[31mlu\\n.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", "
        "\"dtype\": \"torch.float32\", \"Max\": 1, \"Min\": 0, \"Mean\": 0, \"Norm\": 1}]},"
        " \"Functional.\xff\xfe.0.forward\": {\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"Max\": 1, \"Min\": 0, \"Mean\": 0, \"Norm\": 1}]}}}", 0);
    CHECK_INT(try_load(r, &ds, &err), 0);
    if (!ds) return;
    CHECK_INT(names_count(ds->cube->names), 2);
    char esc[256];
    const char *n0 = names_str(ds->cube->names, 0), *n1 = names_str(ds->cube->names, 1);
    CHECK_STR(pt_escape(n0, strlen(n0), esc, sizeof esc), "Functional.re\\x1b[31mlu\\n.input.0");
    CHECK_STR(pt_escape(n1, strlen(n1), esc, sizeof esc), "Functional.\\xff\\xfe.output.0");
    /* C1 controls (U+009B is an 8-bit CSI) are escaped; other UTF-8 stays */
    CHECK_STR(pt_escape("a\xc2\x9b" "31m\xc2\x85", 8, esc, sizeof esc), "a\\u009b31m\\u0085");
    CHECK_STR(pt_escape("\xc2\xa0\xc3\xa9", 4, esc, sizeof esc), "\xc2\xa0\xc3\xa9");
    dataset_free(ds);
}

static void deep_nesting(void) {
    size_t depth = 100000;
    char *t = malloc(depth * 2 + 64);
    size_t o = (size_t)sprintf(t, "{\"data\": {\"Functional.x.0.forward\": {\"input_args\": ");
    memset(t + o, '[', depth);
    o += depth;
    memset(t + o, ']', depth);
    o += depth;
    strcpy(t + o, "}}}");
    expect_error(make_dump("deep", t, 0), "rank0/dump.json", "nesting deeper than 512");
    free(t);
}

static void huge_number(void) {
    /* the same code path as a 2 GB digit string: the tokenizer stops at 400
     * characters, after reading the file (refused above 10 GiB) */
    size_t n = 50u << 20;
    char *t = malloc(n + 64);
    size_t o = (size_t)sprintf(t, "{\"data\": {\"x.0.forward\": {\"input_args\": [");
    memset(t + o, '7', n);
    o += n;
    strcpy(t + o, "]}}}");
    expect_error(make_dump("hugenum", t, 0), "rank0/dump.json", "number too long");
    free(t);
}

static void construct_missing(void) {
    struct dataset *ds;
    struct pt_error err;
    const char *r = make_dump("nocons", GOOD, 1);
    char p[4200];
    snprintf(p, sizeof p, "%s/step0/rank0/construct.json", r);
    unlink(p);
    snprintf(p, sizeof p, "%s/step0/rank1/construct.json", r);
    unlink(p);
    CHECK_INT(try_load(r, &ds, &err), 0);
    if (!ds) return;
    CHECK_INT(ds->files_read, 2);
    int n = 0;
    for (size_t i = 0; i < ds->nwarnings; i++) n += strstr(ds->warnings[i], "construct.json missing") != NULL;
    CHECK(n >= 1);
    CHECK_INT(names_count(ds->cube->names), 2);
    dataset_free(ds);
}

static void fifo_or_folder(void) {
    char p[4200];
    const char *r = make_dump("fifo", NULL, 1);
    snprintf(p, sizeof p, "%s/step0/rank0/dump.json", r);
    CHECK_INT(mkfifo(p, 0600), 0);
    struct dataset *ds;
    struct pt_error err;
    CHECK_INT(try_load(r, &ds, &err), 0);   /* never blocks on the FIFO; rank1 loads */
    if (ds) {
        CHECK_INT(ds->files_read, 1);
        CHECK_INT(ds->nskipped, 1);
    }
    dataset_free(ds);
    /* a FIFO given as the path itself */
    expect_error(p, "FIFO", NULL);
    r = make_dump("folder", NULL, 0);
    snprintf(p, sizeof p, "%s/step0/rank0/dump.json", r);
    CHECK_INT(mkdir(p, 0700), 0);
    expect_error(r, r, "no rank or proc folder with a dump.json");
}

static void no_data_folder(void) {
    const char *d = pt_tmpdir("nodata_folder");
    char p[4200];
    snprintf(p, sizeof p, "%s/notes.txt", d);
    pt_write(p, "hello");
    expect_error(d, d, "no msProbe data found");
}

static void csv_problems(void) {
    const char *d = pt_tmpdir("badcsv");
    char p[4200], cmd[4300];
    snprintf(p, sizeof p, "%s/Dec03_21-34-40-rank0-1a2b3c4d", d);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    CHECK_INT(system(cmd), 0);
    snprintf(p, sizeof p, "%s/Dec03_21-34-40-rank0-1a2b3c4d/actv_0-0.csv", d);
    pt_write(p, "name,step,micro_step,norm\nx.input,0,0,1.5\n");                 /* no vpp_stage column */
    snprintf(p, sizeof p, "%s/Dec03_21-34-40-rank0-1a2b3c4d/grad_reduced_0-0.csv", d);
    pt_write(p, "vpp_stage,name,step,norm,max\n0,a.weight,0,1.0,abc\nzero,b.weight,0,2.0,3.0\n0,c.weight,0,nan,4\n");
    struct dataset *ds;
    struct pt_error err;
    CHECK_INT(try_load(d, &ds, &err), 0);
    if (!ds) return;
    int col = 0, row = 0;
    for (size_t i = 0; i < ds->nwarnings; i++) {
        if (strstr(ds->warnings[i], "actv_0-0.csv: line 1") && strstr(ds->warnings[i], "vpp_stage")) col = 1;
        if (strstr(ds->warnings[i], "grad_reduced_0-0.csv: line 3")) row = 1;
    }
    CHECK(col);
    CHECK(row);
    const struct cube *c = ds->cube;
    int m = cube_metric_find(c, "grad_reduced");
    CHECK(m >= 0);
    if (m >= 0) {
        CHECK_INT(c->metrics[m].ntargets, 2);
        CHECK(cube_is_missing(cube_get(c, m, cube_stat_find(c, m, "max"), 0, 0, 0)));   /* "abc" -> NULL */
        CHECK(isnan(cube_get(c, m, cube_stat_find(c, m, "norm"), 1, 0, 0)));           /* "nan" -> NaN */
    }
    dataset_free(ds);
}

static void not_sqlite(void) {
    const char *d = pt_tmpdir("notsqlite");
    char p[4200];
    snprintf(p, sizeof p, "%s/x.trend.db", d);
    pt_write(p, "this is not a database, just text that is long enough to have a header.........");
    expect_error(p, "x.trend.db", "not an SQLite database");
    expect_error(d, "x.trend.db", NULL);
}

static void other_schema(void) {
    const char *d = pt_tmpdir("otherschema");
    char p[4200], cmd[4400];
    snprintf(p, sizeof p, "%s/other.db", d);
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'CREATE TABLE t(a); INSERT INTO t VALUES (1);'", p);
    if (system(cmd) != 0) SKIP("sqlite3 command-line tool absent");
    expect_error(p, "other.db", "table monitoring_metrics is missing");
    struct stat before, after;
    stat(p, &before);
    struct dataset *ds;
    struct pt_error err;
    try_load(p, &ds, &err);
    stat(p, &after);
    CHECK(before.st_mtime == after.st_mtime && before.st_size == after.st_size);   /* read-only */
}

static void missing_path(void) {
    expect_error("/nonexistent/probetop/path", "/nonexistent/probetop/path", "No such file or directory");
}

int main(void) {
    RUN(empty_file);
    RUN(truncated_json);
    RUN(not_an_object);
    RUN(data_missing_or_wrong);
    RUN(string_statistic);
    RUN(odd_names);
    RUN(deep_nesting);
    RUN(huge_number);
    RUN(construct_missing);
    RUN(fifo_or_folder);
    RUN(no_data_folder);
    RUN(csv_problems);
    RUN(not_sqlite);
    RUN(other_schema);
    RUN(missing_path);
    PT_DONE();
}
