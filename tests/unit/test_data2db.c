/* data2db against msProbe's own outputs: for every reference database under
 * tests/data/msprobe/derived/<case>.micro_step_<b>/, the database we
 * write from the same input prints, under trenddb_canon.py, exactly the
 * reference *.canonical.txt. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pt_test.h"

#include "src/io/load.h"
#include "src/io/trenddb/write_trenddb.h"

static int canon_equal(const char *db, const char *ref) {
    const char *py = getenv("PT_PYTHON");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/trenddb_canon.py' '%s' > '%s.canon' && cmp -s '%s.canon' '%s'",
             py && *py ? py : "python3", pt_shared(), db, db, db, ref);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "diff '%s.canon' '%s' | head -20 >&2", db, ref);
        if (system(cmd) != 0) {}
    }
    return rc == 0;
}

static void one_case(const char *input_rel, const char *case_dir, int micro, int monitor) {
    const char *in = pt_fixture(input_rel);
    char refdir[4096], ref[4096], out[4096], db[4096];
    if (!in) SKIP("fixture absent");
    snprintf(refdir, sizeof refdir, "%s/fixtures/msprobe/derived/%s", pt_shared(), case_dir);
    snprintf(ref, sizeof ref, "%s/%s.trend.canonical.txt", refdir, monitor ? "monitor_data" : "dump_data");
    snprintf(out, sizeof out, "%s", pt_tmpdir(case_dir));
    struct load_opts lo;
    load_opts_init(&lo);
    lo.micro_step = micro;
    struct dataset *ds = calloc(1, sizeof *ds);
    struct tdb_result res;
    struct pt_error err;
    int rc = monitor ? trenddb_write_monitor(in, out, &lo, ds, &res, &err) : trenddb_write_dump(in, out, &lo, ds, &res, &err);
    if (rc != 0) fprintf(stderr, "%s\n", err.msg);
    CHECK_INT(rc, 0);
    dataset_free(ds);
    snprintf(db, sizeof db, "%s/%s.trend.db", out, monitor ? "monitor_data" : "dump_data");
    CHECK(access(db, F_OK) == 0);
    CHECK(canon_equal(db, ref));
}

static void gpu_dump_micro(void) { one_case("examples/quick_start/gpu_dump", "gpu_dump.micro_step_true", 1, 0); }
static void gpu_dump_nomicro(void) { one_case("examples/quick_start/gpu_dump", "gpu_dump.micro_step_false", 0, 0); }
static void input_format_correct(void) {
    one_case("test/msprobe_test/visualization_ut/input_format_correct", "input_format_correct.micro_step_true", 1, 0);
}
static void monitor_micro(void) { one_case("derived/synthetic_monitor_output", "synthetic_monitor.micro_step_true", 1, 1); }
static void monitor_nomicro(void) { one_case("derived/synthetic_monitor_output", "synthetic_monitor.micro_step_false", 0, 1); }

/* data2db reads rank by rank, foreseeing each step's micro step count from
 * construct.json; a step whose every dump.json is broken has none: the
 * writer finds its foresight wrong and reads again in the list's order.
 * Its database equals the one written without that step's folders. */
static void foresight_wrong(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("data2db_foresight");
    const char *py = getenv("PT_PYTHON");
    char cmd[8192], broken[1100], without[1100], outb[1100], outw[1100], db[1200], dbw[1200];
    snprintf(broken, sizeof broken, "%s/broken", t);
    snprintf(without, sizeof without, "%s/without", t);
    snprintf(outb, sizeof outb, "%s/out_broken", t);
    snprintf(outw, sizeof outw, "%s/out_without", t);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s' --steps 3 --ranks 2 --layers 2 --micro-batches 2 --tp 2 --quiet "
             ">/dev/null 2>&1 && cp -r '%s' '%s' && rm -r '%s/step1' && for f in '%s'/step1/rank*/dump.json; do "
             "printf '{\"data\": {' > \"$f\"; done && mkdir -p '%s' '%s'",
             py && *py ? py : "python3", pt_shared(), broken, broken, without, without, broken, outb, outw);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    struct load_opts lo;
    load_opts_init(&lo);
    struct tdb_result res;
    struct pt_error err;
    struct dataset *ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump(broken, outb, &lo, ds, &res, &err), 0);
    CHECK(res.rows > 0);
    CHECK_INT((long long)ds->nskipped, 2);   /* said once, not once per try */
    dataset_free(ds);
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump(without, outw, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    snprintf(db, sizeof db, "%s/dump_data.trend.db", outb);
    snprintf(dbw, sizeof dbw, "%s/dump_data.trend.db", outw);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/trenddb_canon.py' '%s' > '%s.canon'", py && *py ? py : "python3",
             pt_shared(), dbw, dbw);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s.canon", dbw);
    CHECK(canon_equal(db, cmd));
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '[.]tmp[.]' >/dev/null", outb);   /* the first try left nothing */
    CHECK(system(cmd) != 0);
}

static int integrity_ok(const char *db) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "test \"$(sqlite3 '%s' 'PRAGMA integrity_check')\" = ok", db);
    return system(cmd) == 0;
}

/* trend_data is built in key order beside SQLite: the file passes SQLite's
 * own check.  A MindSpore graph/ + pynative/ root without micro steps
 * brings each rank's rows twice, the second time out of key order: read
 * again with INSERTs, whose OR IGNORE keeps graph/'s, it equals graph/
 * alone. */
static void bulk_and_back(void) {
    if (!pt_shared()) SKIP("no test data (PT_SHARED: run through ctest)");
    const char *t = pt_tmpdir("data2db_bulk");
    const char *py = getenv("PT_PYTHON");
    char cmd[8192], root[1100], out[1100], outg[1100], db[1200], dbg[1200];
    snprintf(root, sizeof root, "%s/ms", t);
    snprintf(out, sizeof out, "%s/out", t);
    snprintf(outg, sizeof outg, "%s/out_graph", t);
    snprintf(cmd, sizeof cmd,
             "'%s' '%s/tools/gen_dump.py' --out '%s/graph' --steps 2 --ranks 2 --layers 2 --micro-batches 2 --tp 2 "
             "--quiet >/dev/null 2>&1 && cp -r '%s/graph' '%s/pynative' && mkdir -p '%s' '%s'",
             py && *py ? py : "python3", pt_shared(), root, root, root, out, outg);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    if (system("sqlite3 -version >/dev/null 2>&1") != 0) SKIP("sqlite3 shell absent");
    struct load_opts lo;
    load_opts_init(&lo);
    struct tdb_result res;
    struct pt_error err;
    struct dataset *ds = calloc(1, sizeof *ds);
    snprintf(cmd, sizeof cmd, "%s/graph", root);
    CHECK_INT(trenddb_write_dump(cmd, outg, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    snprintf(dbg, sizeof dbg, "%s/dump_data.trend.db", outg);
    CHECK(integrity_ok(dbg));
    lo.micro_step = 0;
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump(cmd, outg, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    size_t rows = res.rows;
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump(root, out, &lo, ds, &res, &err), 0);
    CHECK_INT((long long)ds->nwarnings, 0);   /* the first try's notes are not said */
    dataset_free(ds);
    CHECK_INT((long long)res.rows, (long long)rows);
    snprintf(db, sizeof db, "%s/dump_data.trend.db", out);
    CHECK(integrity_ok(db));
    CHECK(integrity_ok(dbg));
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/trenddb_canon.py' '%s' > '%s.canon'", py && *py ? py : "python3",
             pt_shared(), dbg, dbg);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s.canon", dbg);
    CHECK(canon_equal(db, cmd));
    snprintf(cmd, sizeof cmd, "ls '%s' '%s' | grep -c '[.]tmp[.]' >/dev/null", out, outg);   /* no scratch file left */
    CHECK(system(cmd) != 0);
}

/* The rows of a table of db, in key order, as the sqlite3 shell prints them, into out. */
static int dump_table(const char *db, const char *sql, const char *out) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' '%s' > '%s'", db, sql, out);
    return system(cmd);
}

/* A monitor tree of 12 ranks (so with a rank summary): written at once its
 * rows go in rank by rank, sorted, built in key order beside SQLite, and
 * the summary is made while they stream.  The same tree as three shards
 * and their merge goes in by INSERTs and the summary from a scan of
 * trend_data: the two are the same, canonical text and summary rows. */
static void monitor_streamed(void) {
    const char *gen = pt_tool("gen_dump.py"), *canon = pt_tool("trenddb_canon.py");
    if (!gen || !canon) SKIP("tests/gen_dump.py absent");
    if (system("sqlite3 -version >/dev/null 2>&1") != 0) SKIP("sqlite3 shell absent");
    const char *t = pt_tmpdir("data2db_mon_streamed");
    const char *py = getenv("PT_PYTHON");
    char cmd[8192], tree[1100], out[1100], shards[1100], merged[1100], db[1200], dbm[1200], f1[1300], f2[1300];
    snprintf(tree, sizeof tree, "%s/tree", t);
    snprintf(out, sizeof out, "%s/out", t);
    snprintf(shards, sizeof shards, "%s/shards", t);
    snprintf(merged, sizeof merged, "%s/merged", t);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && '%s' '%s' --monitor --out '%s' --steps 3 --ranks 12 --layers 2 --micro-batches 2 "
             "--nan 1:9:layers.1 --quiet >/dev/null 2>&1 && mkdir -p '%s' '%s' '%s'",
             tree, py && *py ? py : "python3", gen, tree, out, shards, merged);
    if (system(cmd) != 0) SKIP("gen_dump.py failed");
    struct load_opts lo;
    load_opts_init(&lo);
    struct tdb_result res;
    struct pt_error err;
    struct dataset *ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_monitor(tree, out, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    size_t rows = res.rows;
    CHECK(rows > 0);
    CHECK_INT(res.max_rank, 11);
    for (int k = 1; k <= 3; k++) {
        ds = calloc(1, sizeof *ds);
        CHECK_INT(trenddb_write_monitor_shard(tree, shards, &lo, k, 3, ds, &res, &err), 0);
        dataset_free(ds);
    }
    ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_merge(shards, 1, merged, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    CHECK_INT((long long)res.rows, (long long)rows);
    snprintf(db, sizeof db, "%s/monitor_data.trend.db", out);
    snprintf(dbm, sizeof dbm, "%s/monitor_data.trend.db", merged);
    CHECK(integrity_ok(db));
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' > '%s.canon'", py && *py ? py : "python3", canon, dbm, dbm);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s.canon", dbm);
    CHECK(canon_equal(db, cmd));
    /* the summary: every row the same; groups of 8 and all ranks, whose
     * NaN counts add up to the whole's */
    const char *q = "SELECT * FROM probetop_rank_summary ORDER BY group_size, rank_group, step, target_id, metric_id";
    snprintf(f1, sizeof f1, "%s/summary.txt", out);
    snprintf(f2, sizeof f2, "%s/summary.txt", merged);
    CHECK_INT(dump_table(db, q, f1), 0);
    CHECK_INT(dump_table(dbm, q, f2), 0);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", f1, f2);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "test \"$(sqlite3 '%s' 'SELECT count(DISTINCT group_size) || \" \" || count(DISTINCT rank_group) || \" \" || "
             "(sum(norm_nan * (group_size = 8)) = sum(norm_nan * (group_size = 0)) AND "
             "sum(norm_nan * (group_size = 8 AND rank_group = 1)) > 0) FROM probetop_rank_summary')\" = '2 2 1'", db);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '[.]tmp[.]' >/dev/null", out);   /* no scratch file left */
    CHECK(system(cmd) != 0);
}


/* A tree made by gen_dump.py (args) into <t>/in; 0, or -1. */
static int gen_tree(const char *t, const char *args) {
    const char *gen = pt_tool("gen_dump.py"), *py = getenv("PT_PYTHON");
    char cmd[8192];
    if (!gen) return -1;
    snprintf(cmd, sizeof cmd, "rm -rf '%s/in' && '%s' '%s' --out '%s/in' %s --quiet >/dev/null 2>&1", t,
             py && *py ? py : "python3", gen, t, args);
    return system(cmd) == 0 ? 0 : -1;
}

/* A count of /proc/self/io so far (key: "wchar", bytes this process
 * handed to write calls; "rchar", to read calls), -1 when not told. */
static long long io_now(const char *key) {
    FILE *f = fopen("/proc/self/io", "r");
    char line[128], k[32];
    long long v = -1, x;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%31[^:]: %lld", k, &x) == 2 && strcmp(k, key) == 0) {
            v = x;
            break;
        }
    if (f) fclose(f);
    return v;
}

/* The dump in T/in (gen_tree's) written into T/out (created); db: its
 * .trend.db, st: its stat (its integrity is the caller's to check, after
 * what it counts of this write's reads and writes). */
static void write_db(const char *t, char *in, char *out, char *db, struct stat *st) {
    snprintf(in, 1100, "%s/in", t);
    snprintf(out, 1100, "%s/out", t);
    mkdir(out, 0755);
    struct load_opts lo;
    load_opts_init(&lo);
    struct tdb_result res;
    struct pt_error err;
    struct dataset *ds = calloc(1, sizeof *ds);
    CHECK_INT(trenddb_write_dump(in, out, &lo, ds, &res, &err), 0);
    dataset_free(ds);
    snprintf(db, 1200, "%s/dump_data.trend.db", out);
    CHECK_INT(stat(db, st), 0);
}

/* Each page of the database is written once: trend_data's pages go
 * straight into the file at their place (no scratch file copied in), so a
 * dump of 4 ranks (no rank summary, no spool) costs about the file's size
 * in writes, where writing the tree elsewhere first cost twice its pages. */
static void pages_written_once(void) {
    const char *t = pt_tmpdir("data2db_once");
    char in[1100], out[1100], db[1200];
    struct stat st;
    if (gen_tree(t, "--steps 3 --ranks 4 --layers 8 --micro-batches 2") != 0) SKIP("gen_dump.py failed");
    long long w0 = io_now("wchar");   /* after gen_dump.py: a child's writes count once it is reaped */
    if (w0 < 0) SKIP("no /proc/self/io");
    write_db(t, in, out, db, &st);
    long long written = io_now("wchar") - w0;
    CHECK(integrity_ok(db));
    CHECK(st.st_size > (1 << 20));   /* the tree is most of the file */
    if (written > st.st_size * 5 / 4) fprintf(stderr, "%lld bytes written for a file of %lld\n", written, (long long)st.st_size);
    CHECK(written <= st.st_size * 5 / 4);
}

/* 66 rank folders foresee groups of 64 ranks for the rank summary, but
 * the last two have no rows: the summary made on the way does not fit and
 * comes from trend_data, now in the file; the dump is read once (it was
 * read again with INSERTs): bytes read stay under 1.5 times its dump.json
 * and construct.json files. */
static void summary_unforeseen(void) {
    const char *t = pt_tmpdir("data2db_unforeseen");
    char in[1100], out[1100], db[1200], cmd[4400];
    struct stat st;
    if (gen_tree(t, "--steps 1 --ranks 66 --layers 2 --micro-batches 1 --tp 2") != 0) SKIP("gen_dump.py failed");
    snprintf(cmd, sizeof cmd,
             "for r in 64 65; do printf '{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {}}' "
             "> '%s/in/step0/rank'$r/dump.json || exit 1; done; "
             "find '%s/in' '(' -name dump.json -o -name construct.json ')' -exec cat {} + | wc -c",
             t, t);
    FILE *p = popen(cmd, "r");
    long long insize = 0;
    if (!p || fscanf(p, "%lld", &insize) != 1) insize = 0;
    if (p) pclose(p);
    if (insize <= 0) SKIP("could not empty the last ranks");
    long long r0 = io_now("rchar");
    if (r0 < 0) SKIP("no /proc/self/io");
    write_db(t, in, out, db, &st);
    long long nread = io_now("rchar") - r0;
    if (nread >= insize * 3 / 2) fprintf(stderr, "%lld bytes read for an input of %lld\n", nread, insize);
    CHECK(nread < insize * 3 / 2);
    CHECK(integrity_ok(db));
    snprintf(cmd, sizeof cmd,
             "test \"$(sqlite3 '%s' 'SELECT (SELECT max(rank) FROM trend_data), count(DISTINCT rank_group), "
             "max(group_size) FROM probetop_rank_summary WHERE group_size > 0')\" = '63|8|8'",
             db);
    CHECK_INT(system(cmd), 0);
}

/* --process_num 128 over 66 rank folders: a thread per folder (the
 * reader kept the ids of 64, and wrote past them: ASan's stack overflow in
 * the sanitizer build), the same bytes as one thread writes. */
static void threads_past_64(void) {
    const char *t = pt_tmpdir("data2db_threads");
    char in[1100], out[2][1100], db[2][1200], cmd[2600];
    if (gen_tree(t, "--steps 1 --ranks 66 --layers 1 --micro-batches 1 --hidden 8 --heads 2 --ffn 16 --seq 4 "
                    "--vocab 16") != 0)
        SKIP("gen_dump.py failed");
    snprintf(in, sizeof in, "%s/in", t);
    for (int k = 0; k < 2; k++) {
        snprintf(out[k], sizeof out[k], "%s/out%d", t, k);
        mkdir(out[k], 0755);
        struct load_opts lo;
        load_opts_init(&lo);
        lo.threads = k ? 128 : 1;
        struct tdb_result res;
        struct pt_error err;
        struct dataset *ds = calloc(1, sizeof *ds);
        CHECK_INT(trenddb_write_dump(in, out[k], &lo, ds, &res, &err), 0);
        dataset_free(ds);
        snprintf(db[k], sizeof db[k], "%s/dump_data.trend.db", out[k]);
    }
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", db[0], db[1]);
    CHECK_INT(system(cmd), 0);
}

/* data2db whose writes stop at limit bytes a file (RLIMIT_FSIZE: the
 * pages of a bulk-built table meet it) fails with what went wrong, and
 * leaves no file in the output folder, the temporary one removed. */
static void fails_at(const char *in, const char *out, off_t limit, const char *says) {
    fflush(NULL);
    int pfd[2];
    CHECK_INT(pipe(pfd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
        setrlimit(RLIMIT_FSIZE, &rl);
        struct load_opts lo;
        load_opts_init(&lo);
        struct tdb_result res;
        struct pt_error err = {0};
        struct dataset *ds = calloc(1, sizeof *ds);
        int rc = trenddb_write_dump(in, out, &lo, ds, &res, &err);
        if (write(pfd[1], err.msg, strlen(err.msg)) < 0) {}
        _exit(rc == 0 ? 0 : 3);
    }
    close(pfd[1]);
    char msg[2048] = {0};
    size_t n = 0;
    ssize_t r;
    while (n < sizeof msg - 1 && (r = read(pfd[0], msg + n, sizeof msg - 1 - n)) > 0) n += (size_t)r;
    close(pfd[0]);
    int status = 0;
    CHECK_INT((int)waitpid(pid, &status, 0), (int)pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    CHECK_CONTAINS(msg, says);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", out);   /* nothing beside: no .tmp, no database */
    CHECK_INT(system(cmd), 0);
}

/* A dump of 12 ranks: trend_data's pages, then SQLite's (tags), then the
 * rank summary's, the file's last. */
static void bulk_write_fails(void) {
    const char *t = pt_tmpdir("data2db_fail");
    char in[1100], out[1100], db[1200];
    struct stat st;
    if (gen_tree(t, "--steps 4 --ranks 12 --layers 2 --micro-batches 2") != 0) SKIP("gen_dump.py failed");
    write_db(t, in, out, db, &st);
    CHECK(integrity_ok(db));
    unlink(db);
    /* half way: in trend_data's pages; 8 kB short: in the rank summary's */
    fails_at(in, out, st.st_size / 2, "could not write the table's pages");
    fails_at(in, out, st.st_size - 8192, "could not write the table's pages");
}

int main(void) {
    RUN(gpu_dump_micro);
    RUN(gpu_dump_nomicro);
    RUN(input_format_correct);
    RUN(monitor_micro);
    RUN(monitor_nomicro);
    RUN(foresight_wrong);
    RUN(bulk_and_back);
    RUN(monitor_streamed);
    RUN(pages_written_once);
    RUN(bulk_write_fails);
    RUN(summary_unforeseen);
    RUN(threads_past_64);
    PT_DONE();
}
