/* Hostile profiler traces (probetop-formats(5), PROFILER TRACES): cut gzip
 * and cut rank files, traces without kernels or steps, odd and broken
 * events, a string past the value limit, a sub-folder that cannot be
 * listed, and the bound of --mem: a gzip bomb and ever new kernel names.
 * The figures of good traces: test_trace.c. */
#include "pt_cube.h"
#include "pt_test.h"
#include "pt_trace.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include <zlib.h>

#include "src/io/trace/trace_parse.h"

static void hostile_truncated_gz(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100], f[1200], cut[1300];
    const char *dir = pt_tmpdir("trunc");
    if (!dir || gen(dir, "--ranks 1 --gz --pad-mb 1") != 0) { CHECK(!"gen failed"); return; }
    snprintf(p, sizeof p, "%s", dir);
    snprintf(f, sizeof f, "%s/rank_0.json.gz", p);
    snprintf(cut, sizeof cut, "%s/cut.json.gz", p);
    struct stat st;
    CHECK_INT(stat(f, &st), 0);
    char cmd[4000];
    snprintf(cmd, sizeof cmd, "head -c %lld '%s' > '%s' && rm '%s'", (long long)st.st_size / 2, f, cut, f);
    CHECK_INT(system(cmd), 0);
    struct pt_error err;
    struct dataset *ds = load(cut, &err);
    CHECK(ds == NULL);
    if (ds) dataset_free(ds);
    CHECK_CONTAINS(err.msg, "cut.json.gz");
    CHECK_CONTAINS(err.msg, "ends early");
}

/* Cuts path to half its size. */
static void cut_half(const char *path) {
    struct stat st;
    CHECK_INT(stat(path, &st), 0);
    CHECK_INT(truncate(path, st.st_size / 2), 0);
}

/* A run of 4 ranks whose rank 3 file is cut in the middle (plain and
 * gzip'd): the other 3 load, with the figures of the 3 files alone, and
 * a warning and a skip name the cut one.  Every file cut: the load fails
 * with the first one's message.  In follow mode a young cut file is being
 * written (pending), not a warning. */
static void hostile_truncated_rank(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    static const char *const kinds[2][2] = {{"--ranks 4", "rank_3.json"}, {"--ranks 4 --gz", "rank_3.json.gz"}};
    for (int g = 0; g < 2; g++) {
        char whole[1100], three[1200], bad[1300], cmd[4000];
        const char *dir = pt_tmpdir(g ? "trunc_rank_gz" : "trunc_rank");
        if (!dir || gen(dir, kinds[g][0]) != 0) { CHECK(!"gen failed"); return; }
        snprintf(whole, sizeof whole, "%s", dir);
        snprintf(three, sizeof three, "%s.three", whole);
        snprintf(bad, sizeof bad, "%s/%s", whole, kinds[g][1]);
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s' && rm '%s/%s'", three, whole, three, three, kinds[g][1]);
        CHECK_INT(system(cmd), 0);
        cut_half(bad);
        struct utimbuf old = {time(NULL) - 3600, time(NULL) - 3600};
        CHECK_INT(utime(bad, &old), 0);
        struct pt_error err;
        struct dataset *ds = load(whole, &err), *ref = load(three, &err);
        CHECK(ds && ref);
        if (ds && ref) {
            CHECK_INT(ds->trace->nranks, 3);
            CHECK(rank_of(ds, 3) == NULL);
            CHECK_INT(ds->nskipped, 1);
            if (ds->nskipped) CHECK_STR(ds->skipped[0], bad);
            int named = 0;
            for (size_t i = 0; i < ds->nwarnings; i++) named |= strstr(ds->warnings[i], kinds[g][1]) != NULL;
            CHECK(named);
            int64_t a[12], b[12];
            totals(ds, a, 3);
            totals(ref, b, 3);
            for (int k = 0; k < 12; k++) CHECK_INT(a[k], b[k]);
            CHECK_INT(ds->cube->nsteps, ref->cube->nsteps);
        }
        dataset_free(ds);
        dataset_free(ref);

        /* being written: pending in follow mode while young */
        struct load_opts lo;
        load_opts_init(&lo);
        lo.format = formats_find("trace");
        lo.follow = 1;
        struct utimbuf now = {time(NULL), time(NULL)};
        CHECK_INT(utime(bad, &now), 0);
        ds = NULL;
        CHECK_INT(load_dataset(whole, &lo, &ds, &err), 0);
        if (ds) {
            CHECK_INT(ds->npending, 1);
            CHECK_INT(ds->nskipped, 0);
            CHECK_INT(ds->trace->nranks, 3);
        }
        dataset_free(ds);

        /* every file cut: the first one's message */
        for (int r = 0; r < 3; r++) {
            char p[1400];
            snprintf(p, sizeof p, "%s/rank_%d.json%s", whole, r, g ? ".gz" : "");
            cut_half(p);
        }
        ds = load(whole, &err);
        CHECK(ds == NULL);
        dataset_free(ds);
        CHECK_CONTAINS(err.msg, g ? "rank_0.json.gz" : "rank_0.json");
    }
}

static void hostile_no_kernels(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    const char *dir = pt_tmpdir("nokernels");
    if (!dir || gen(dir, "--ranks 2 --no-kernels") != 0) { CHECK(!"gen failed"); return; }
    snprintf(p, sizeof p, "%s", dir);
    struct pt_error err;
    struct dataset *ds = load(p, &err);
    CHECK(ds == NULL);
    if (ds) dataset_free(ds);
    CHECK_CONTAINS(err.msg, "no device kernels in 2 trace files");
}

static void hostile_no_steps(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("nosteps", "--ranks 2 --no-steps", p, sizeof p);
    if (!ds) return;
    CHECK_INT(whole_steps(ds), 1);
    CHECK_INT(ds->cube->steps[0].origin, 0);
    CHECK(ds->nwarnings >= 1);
    if (ds->nwarnings) CHECK_CONTAINS(ds->warnings[0], "no ProfilerStep#N");
    /* without steps HTA keeps every kernel */
    CHECK_INT(rank_of(ds, 0)->nwindow, rank_of(ds, 0)->nsegs);
    dataset_free(ds);
}

static void hostile_events(void) {
    const char *dir = pt_tmpdir("events");
    if (!dir) { CHECK(!"tmpdir"); return; }
    char p[1200];
    struct pt_error err;
    struct dataset *ds;
    /* negative durations are skipped and said */
    snprintf(p, sizeof p, "%s/neg.json", dir);
    const char *neg = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\", \"ts\": 10, \"dur\": -5, \"args\": {\"stream\": 7, \"correlation\": 1}},"
                      "{\"ph\": \"X\", \"name\": \"k2\", \"ts\": \"20.5\", \"dur\": 5, \"args\": {\"stream\": 7, \"correlation\": 2}}]}";
    CHECK_INT(pt_write(p, neg), 0);
    ds = load(p, &err);
    CHECK(ds != NULL);
    if (ds) {
        int said = 0;
        for (size_t i = 0; i < ds->nwarnings; i++) said |= strstr(ds->warnings[i], "1 events with a negative duration") != NULL;
        CHECK(said);
        CHECK_INT(ds->trace->ranks[0].nsegs, 1);
        dataset_free(ds);
    }
    /* a container where a scalar belongs is stepped over, the event kept */
    snprintf(p, sizeof p, "%s/odd.json", dir);
    const char *odd = "{\"traceEvents\": [{\"ph\": \"X\", \"tid\": {\"a\": [1, {\"b\": 2}]}, \"name\": [\"x\"], \"ts\": 1, "
                      "\"dur\": 2, \"args\": {\"stream\": {\"s\": 1}, \"correlation\": 3}}, "
                      "{\"ph\": \"X\", \"name\": \"gemm\", \"ts\": 5, \"dur\": 2, \"args\": {\"stream\": 7}}]}";
    CHECK_INT(pt_write(p, odd), 0);
    ds = load(p, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->trace->ranks[0].nsegs, 1);
        dataset_free(ds);
    }
    /* not JSON at all; JSON but no traceEvents; trailing junk */
    static const struct { const char *text, *msg; } bad[] = {
        {"hello", "expected a JSON value"},
        {"{\"schemaVersion\": 1, \"x\": []}", "no \"traceEvents\" list"},
        {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"args\": {\"stream\": 1}}]} junk", "unexpected text"},
        {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 1, \"args\": {\"stream\": 1}}", "ends early"},
        {"42", "not a profiler trace"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(p, sizeof p, "%s/bad%zu.json", dir, i);
        CHECK_INT(pt_write(p, bad[i].text), 0);
        ds = load(p, &err);
        CHECK(ds == NULL);
        if (ds) dataset_free(ds);
        CHECK_CONTAINS(err.msg, bad[i].msg);
        char base[64];
        snprintf(base, sizeof base, "bad%zu.json", i);
        CHECK_CONTAINS(err.msg, base);
    }
}

/* One string longer than the value limit: refused with the byte, after
 * reading no more than the limit (the limit is 256 MiB in use; 1 MiB here,
 * so the test writes 3 MB, not 2 GB). */
static void hostile_huge_string(void) {
    const char *dir = pt_tmpdir("huge");
    if (!dir) { CHECK(!"tmpdir"); return; }
    char p[1200];
    snprintf(p, sizeof p, "%s/huge.json.gz", dir);
    gzFile g = gzopen(p, "wb");
    CHECK(g != NULL);
    if (!g) return;
    gzputs(g, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"");
    char chunk[4096];
    memset(chunk, 'a', sizeof chunk);
    for (int i = 0; i < 768; i++) gzwrite(g, chunk, sizeof chunk);
    gzputs(g, "\", \"ts\": 1, \"dur\": 1}]}");
    gzclose(g);
    struct trace_parse_names nm;
    struct trace_parse_file f;
    memset(&nm, 0, sizeof nm);
    memset(&f, 0, sizeof f);
    struct pt_error err;
    CHECK_INT(trace_parse(p, &nm, (size_t)1 << 20, NULL, &f, &err), -1);
    CHECK_CONTAINS(err.msg, "huge.json.gz: byte 37: a single JSON value longer than 1 MiB");
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
    /* under the limit the same shape reads */
    memset(&f, 0, sizeof f);
    CHECK_INT(trace_parse(p, &nm, (size_t)8 << 20, NULL, &f, &err), 0);
    trace_parse_file_free(&f);
    trace_parse_names_free(&nm);
}

/* The load of dir as nobody when root (a folder of mode 0 does not stop
 * root), in a child: 0 when it loads 2 ranks with a warning naming the
 * folder locked and that folder skipped; 1 when the load fails; 2 when the
 * uid cannot be dropped. */
static int load_as_other(const char *dir, const char *locked) {
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
        struct pt_error err;
        struct dataset *ds = load(dir, &err);
        if (!ds) { fprintf(stderr, "%s\n", err.msg); _exit(1); }
        int warned = 0, skipped = 0;
        for (size_t i = 0; i < ds->nwarnings; i++) warned |= strstr(ds->warnings[i], locked) && strstr(ds->warnings[i], "cannot list");
        for (size_t i = 0; i < ds->nskipped; i++) skipped |= !strcmp(ds->skipped[i], locked);
        int ok = ds->trace && ds->trace->nranks == 2 && warned && skipped;
        dataset_free(ds);
        _exit(ok ? 0 : 3);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return 4;
    return WEXITSTATUS(st);
}

/* The exit status of `probetop ARGS dir` run as nobody when root, its
 * stderr into errf; -1 when it cannot run. */
static int cli_as_other(const char *cmd, const char *dir, const char *errf) {
    const char *bin = getenv("PT_BIN");
    pid_t pid = fork();
    if (pid < 0 || !bin) return -1;
    if (pid == 0) {
        int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 2) < 0 || dup2(nul, 1) < 0) _exit(120);
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(121);
        execl(bin, "probetop", cmd, dir, (char *)NULL);
        _exit(122);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

/* Two readable ranks and a sub-folder that cannot be listed: the folder is
 * left out with a warning, as the dump and monitor readers do; `trace` and
 * `info` exit 0. */
static void unreadable_subfolder(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("unreadable");
    char dir[1100], locked[1200], errf[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(dir, sizeof dir, "%s/run", d);
    snprintf(locked, sizeof locked, "%s/run/zz_locked", d);
    snprintf(errf, sizeof errf, "%s/stderr", d);
    if (gen(dir, "--ranks 2") != 0 || gen(locked, "--ranks 1") != 0) { CHECK(!"gen_trace.py failed"); return; }
    CHECK_INT(chmod(d, 0755), 0);
    CHECK_INT(chmod(locked, 0), 0);
    if (geteuid() != 0) {   /* not root: mode 0 is enough, unless some capability opens it anyway */
        DIR *x = opendir(locked);
        if (x) { closedir(x); chmod(locked, 0755); SKIP("a folder of mode 0 still opens"); }
    }
    int rc = load_as_other(dir, locked);
    if (rc == 2) { chmod(locked, 0755); SKIP("cannot run as another user"); }
    CHECK_INT(rc, 0);
    if (getenv("PT_BIN")) {
        CHECK_INT(cli_as_other("trace", dir, errf), 0);
        char *e = pt_slurp(errf);
        CHECK(e != NULL);
        if (e) { CHECK_CONTAINS(e, "zz_locked: cannot list: Permission denied: skipped"); free(e); }
        CHECK_INT(cli_as_other("info", dir, errf), 0);
    }
    chmod(locked, 0755);   /* the next run's rm -rf */
}

/* `probetop trace --per-step --format csv --mem MEM dir`: its stdout into
 * out, its peak resident memory (KiB) into *kib; the exit status or -1. */
static int trace_child(const char *dir, const char *mem, const char *out, long *kib) {
    const char *bin = getenv("PT_BIN");
    pid_t pid = bin ? fork() : -1;
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 1) < 0 || dup2(nul, 2) < 0) _exit(120);
        execl(bin, "probetop", "trace", dir, "--per-step", "--format", "csv", "--mem", mem, (char *)NULL);
        _exit(121);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st)) return -1;
    *kib = ru.ru_maxrss;
    return WEXITSTATUS(st);
}


static struct dataset *load_mem(const char *path, uint64_t mem, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    lo.format = formats_find("trace");
    lo.mem_budget = mem;
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

/* A gzip bomb (tests/gen_trace.py --bomb: 400 000 sub-us kernels and their
 * launches, out of order, 8 MB of gzip): with --mem 8M the kernels go
 * through a temporary file and the lane view merges them, the per-step
 * figures, HTA's window and the cube equal those of an unbounded load, and
 * the process stays within --mem and the fixed part (piece buffers of 4 MiB
 * per parsing thread, the program). */
static void bomb_bounded(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    const char *d = pt_tmpdir("bomb");
    char dir[1100], o1[1200], o2[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(dir, sizeof dir, "%s/run", d);
    if (gen(dir, "--ranks 1 --steps 4 --bomb 400000 --gz") != 0) { CHECK(!"gen_trace.py failed"); return; }
    /* the command first: a child's peak memory counts its parent's at the fork */
    if (getenv("PT_BIN")) {
        long kb_big = 0, kb_small = 0;
        snprintf(o1, sizeof o1, "%s/big.csv", d);
        snprintf(o2, sizeof o2, "%s/small.csv", d);
        CHECK_INT(trace_child(dir, "1G", o1, &kb_big), 0);
        CHECK_INT(trace_child(dir, "8M", o2, &kb_small), 0);
        char *x = pt_slurp(o1), *y = pt_slurp(o2);
        CHECK(x && y && strlen(x) > 500);
        if (x && y) CHECK_STR(y, x);   /* every (step, rank) row, the same */
        free(x);
        free(y);
        fprintf(stderr, "bomb: peak RSS %ld KiB unbounded, %ld KiB with --mem 8M\n", kb_big, kb_small);
#if !PT_ASAN
        CHECK(kb_small <= (8 + 24) * 1024);
        CHECK(kb_big > kb_small + 8 * 1024);
#endif
    }
    struct pt_error err;
    struct dataset *big = load_mem(dir, (uint64_t)1 << 30, &err), *small = load_mem(dir, (uint64_t)8 << 20, &err);
    CHECK(big != NULL && small != NULL);
    if (big && small) {
        const struct trace_rank *a = &big->trace->ranks[0], *b = &small->trace->ranks[0];
        CHECK_INT(a->nkernels, 400000);
        CHECK_INT(b->nkernels, 400000);
        CHECK_INT(a->lane_merge_ns, 0);
        CHECK_INT(a->nsegs, 400000);
        CHECK(b->lane_merge_ns > 0);
        CHECK(b->nsegs < 400000 / 2);                       /* 2 MiB of segments: about 87 000 */
        CHECK_INT(b->nsteps, 4);
        CHECK_INT(a->nsteps, b->nsteps);
        for (int i = 0; i < a->nsteps && i < b->nsteps; i++) {
            CHECK_INT(b->steps[i].stats.nkernels, 100000);
            CHECK(!memcmp(&a->steps[i].stats, &b->steps[i].stats, sizeof a->steps[i].stats));
            CHECK_INT(a->steps[i].start_ns, b->steps[i].start_ns);
            CHECK_INT(a->steps[i].end_ns, b->steps[i].end_ns);
        }
        CHECK(!memcmp(&a->total, &b->total, sizeof a->total));
        CHECK_INT(a->nwindow, b->nwindow);
        CHECK_NEAR(pt_cube_value(small, "time", "us", "idle", 0, 2, 0), pt_cube_value(big, "time", "us", "idle", 0, 2, 0), 0);
        int said = 0;
        for (size_t i = 0; i < small->nwarnings; i++)
            said += strstr(small->warnings[i], "more than --mem holds for the lane view") != NULL ||
                    strstr(small->warnings[i], "went through a temporary file") != NULL;
        CHECK_INT(said, 2);
        /* the lane view's segments cover what the kernels cover */
        CHECK_INT(b->segs[0].start_ns, a->segs[0].start_ns);
    }
    dataset_free(big);
    dataset_free(small);
}

/* A trace of ever new kernel names: past a quarter of --mem the names are
 * lumped under one, said in a warning; the figures still count them. */
static void names_beyond_mem(void) {
    const char *d = pt_tmpdir("names");
    char f[1200];
    if (!d) { CHECK(!"tmpdir"); return; }
    snprintf(f, sizeof f, "%s/rank_0.json", d);
    FILE *o = fopen(f, "w");
    CHECK(o != NULL);
    if (!o) return;
    fputs("{\"traceEvents\": [", o);
    for (int i = 0; i < 20000; i++)
        fprintf(o, "%s{\"ph\": \"X\", \"name\": \"kernel_with_a_name_of_its_own_%06d\", \"ts\": %d, \"dur\": 1, "
                   "\"args\": {\"stream\": 7}}", i ? ",\n" : "", i, 2 * i);
    fputs("]}\n", o);
    fclose(o);
    struct pt_error err;
    struct dataset *ds = load_mem(d, (uint64_t)1 << 20, &err);   /* 256 KiB of names: some 3 000 */
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK(ds->trace->nnames > 1000 && ds->trace->nnames < 10000);
    CHECK_INT(ds->trace->ranks[0].total.nkernels, 20000);
    CHECK_INT(ds->trace->ranks[0].total.kernel_ns, 39999000);
    int said = 0;
    for (size_t i = 0; i < ds->nwarnings; i++) said += strstr(ds->warnings[i], "names beyond what --mem holds") != NULL;
    CHECK_INT(said, 1);
    CHECK_STR(ds->trace->names[ds->trace->ranks[0].segs[19999].name], TRACE_PARSE_LUMPED);
    dataset_free(ds);
}

int main(void) {
    RUN(hostile_truncated_gz);
    RUN(hostile_truncated_rank);
    RUN(hostile_no_kernels);
    RUN(hostile_no_steps);
    RUN(hostile_events);
    RUN(hostile_huge_string);
    RUN(unreadable_subfolder);
    RUN(bomb_bounded);
    RUN(names_beyond_mem);
    PT_DONE();
}
