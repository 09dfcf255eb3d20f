/* test_reader_edges: the readers at their edges, each a
 * regression test: a dump.json that shrinks while read (SIGBUS before), a
 * monitor CSV claiming two billion micro steps (20 GB before), the writer's
 * reason surviving the reader, undefined behaviour on odd input, messages
 * that hid the real error or repeated per rank folder, step and rank numbers
 * from the path, and data2db interrupted by a signal or killed. */
#include "pt_test.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "src/io/load.h"
#include "src/io/common/json.h"
#include "src/io/dump/read_construct.h"
#include "src/io/dump/read_dump.h"
#include "src/io/dump/read_graph.h"
#include "src/io/trenddb/write_trenddb.h"


#define TEN "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":[2],\"Max\":1.0,\"Min\":0.0," \
            "\"Mean\":0.5,\"Norm\":1.0,\"requires_grad\":false}"
#define HEAD "{\"task\":\"statistics\",\"level\":\"mix\",\"framework\":\"pytorch\",\"dump_data_dir\":null,\"data\":{"

/* root/step<S>/rank<R>/dump.json with records record(i) for i < n; with
 * construct.json when cons. */
static int write_rank(const char *root, int step, int rank, int n, int cons) {
    char d[1400], p[1500];
    snprintf(d, sizeof d, "%s/step%d", root, step);
    mkdir(root, 0755);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/step%d/rank%d", root, step, rank);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/dump.json", d);
    FILE *f = fopen(p, "w");
    if (!f) return -1;
    fputs(HEAD, f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\"Module.layer%d.Linear.forward.0\":{\"input_args\":[" TEN "],\"input_kwargs\":{},"
                   "\"output\":[" TEN "]}", i ? "," : "", i);
    fputs("}}", f);
    if (fclose(f) != 0) return -1;
    if (!cons) return 0;
    snprintf(p, sizeof p, "%s/construct.json", d);
    return pt_write(p, "{}");
}

static struct dataset *load(const char *path, struct pt_error *err) {
    struct load_opts lo;
    load_opts_init(&lo);
    struct dataset *ds = NULL;
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static int sh(const char *cmd) {
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- a file that changes under the reader ---- */

/* The buffer the dump reader gets stays valid when the file shrinks under
 * it: with a mapping, the next page read was SIGBUS. */
static void test_shrinking_dump(void) {
    const char *t = pt_tmpdir("edges_shrink");
    char p[1200];
    snprintf(p, sizeof p, "%s/dump.json", t);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"data\":{", f);
    for (int i = 0; i < 20000; i++) fprintf(f, "%s\"r%d\":[1.5,2.5,3.5,4.5]", i ? "," : "", i);
    fputs("}}", f);
    fclose(f);
    pid_t pid = fork();
    if (pid == 0) {
        const char *buf;
        size_t len;
        struct pt_error err;
        if (json_map_file(p, (size_t)1 << 30, &buf, &len, &err) != 0) _exit(3);
        if (truncate(p, 100) != 0) _exit(4);
        struct json_lex lx;
        json_lex_init(&lx, buf, len, p, &err);
        enum json_tok k;
        size_t n = 0;
        while ((k = json_lex_next(&lx)) != JT_END && k != JT_ERROR) n++;
        json_unmap_file(buf, len);
        _exit(k == JT_END && n > 80000 ? 0 : 5);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    if (WIFSIGNALED(st)) fprintf(stderr, "reader killed by signal %d\n", WTERMSIG(st));
    CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
}

/* ---- two billion micro steps ---- */

static void micro_steps_claimed(const char *value) {
    const char *t = pt_tmpdir("edges_micro");
    char d[1200], p[1300];
    snprintf(d, sizeof d, "%s/Dec03_21-34-40-rank0-1a2b3c4d", t);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/actv_0-1.csv", d);
    char text[256];
    snprintf(text, sizeof text, "vpp_stage,name,step,micro_step,norm\n0,a.x,0,0,1.5\n0,a.x,0,%s,2.5\n", value);
    CHECK_INT(pt_write(p, text), 0);
    pid_t pid = fork();
    if (pid == 0) {
        /* 1 GiB of address space: the limit must be met before allocating
         * (not under AddressSanitizer, which reserves terabytes of shadow) */
#if !PT_ASAN
        struct rlimit rl = {(rlim_t)1 << 30, (rlim_t)1 << 30};
        setrlimit(RLIMIT_AS, &rl);
#endif
        struct pt_error err;
        struct dataset *ds = load(t, &err);
        if (ds) _exit(3);
        _exit(strstr(err.msg, "actv_0-1.csv") && strstr(err.msg, value) && strstr(err.msg, "more than") ? 0 : 4);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
}

static void test_two_billion_micro_steps(void) {
    micro_steps_claimed("2000000000");
    micro_steps_claimed("2147483647");
}

/* ---- the writer's reason survives ---- */

static int failing_store(void *ctx, const struct dump_file *f, int32_t step_base) {
    (void)f;
    (void)step_base;
    return pt_errorf(ctx, "out.trend.db: database or disk is full");
}

static void test_callback_reason_kept(void) {
    const char *t = pt_tmpdir("edges_cb");
    char root[1200];
    snprintf(root, sizeof root, "%s/d", t);
    CHECK_INT(write_rank(root, 0, 0, 2, 1), 0);
    struct load_opts lo;
    load_opts_init(&lo);
    struct dump_opts o = {.micro_step = 1, .want_rows = 1};
    struct dataset *ds = calloc(1, sizeof *ds);
    struct dump_summary sum;
    struct pt_error err;
    CHECK_INT(dump_read(root, &lo, &o, ds, failing_store, &err, &sum, &err), -1);
    CHECK_CONTAINS(err.msg, "disk is full");
    dataset_free(ds);
}

/* ---- undefined behaviour on odd input (caught by the sanitizer build) ---- */

static void test_ub_inputs(void) {
    const char *t = pt_tmpdir("edges_ub");
    char p[1200];
    /* micro step counts of Infinity, NaN and 1e300 */
    snprintf(p, sizeof p, "%s/construct.json", t);
    CHECK_INT(pt_write(p, "{\"megatron_micro_step_number\": Infinity, \"a\": [\"b\", 1e300], "
                          "\"c\": [\"b\", NaN], \"d\": [\"b\", -Infinity]}"), 0);
    struct construct c;
    struct pt_error err;
    /* read, each number clamped to the int32 range, a NaN read as 0 */
    int rc = construct_read(p, &c, &err);
    CHECK_INT(rc, 0);
    if (rc == 0) {
        CHECK_INT(c.megatron, 1);
        CHECK_INT(c.megatron_micro_steps, INT32_MAX);
        CHECK_INT(c.n, 3);
        if (c.n == 3) {
            CHECK_STR(c.v[0].name, "a");
            CHECK_INT(c.v[0].micro, INT32_MAX);
            CHECK_STR(c.v[1].name, "c");
            CHECK_INT(c.v[1].micro, 0);
            CHECK_STR(c.v[2].name, "d");
            CHECK_INT(c.v[2].micro, INT32_MIN);
        }
        construct_free(&c);
    }
    snprintf(p, sizeof p, "%s/construct2.json", t);
    CHECK_INT(pt_write(p, "{\"megatron_micro_step_number\": NaN}"), 0);
    rc = construct_read(p, &c, &err);
    CHECK_INT(rc, 0);
    if (rc == 0) {
        CHECK_INT(c.megatron, 1);
        CHECK_INT(c.megatron_micro_steps, 0);
        CHECK_INT(c.n, 0);
        construct_free(&c);
    }
    /* an empty dump.json (read as an empty buffer) */
    char d[1200];
    snprintf(d, sizeof d, "%s/step0", t);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/step0/rank0", t);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/dump.json", d);
    CHECK_INT(pt_write(p, ""), 0);
    CHECK(load(t, &err) == NULL);
    CHECK_CONTAINS(err.msg, "empty");
    /* a monitor target named 0: no label at all */
    const char *m = pt_tmpdir("edges_ub_mon");
    snprintf(d, sizeof d, "%s/Dec03_21-34-40-rank0-1a2b3c4d", m);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/actv_0-1.csv", d);
    CHECK_INT(pt_write(p, "vpp_stage,name,step,micro_step,norm\n0,0,0,0,1.5\n0,0,1,0,2.5\n"), 0);
    struct dataset *ds = load(m, &err);
    CHECK(ds != NULL);
    if (ds) CHECK_INT(ds->cube->nsteps, 2);
    dataset_free(ds);
}

/* ---- messages ---- */

static void test_real_error_not_hidden(void) {
    const char *t = pt_tmpdir("edges_hidden");
    char d[1200], p[1300];
    struct pt_error err;
    /* a truncated dump.json without construct.json: the JSON error is told */
    snprintf(d, sizeof d, "%s/step0", t);
    mkdir(d, 0755);
    snprintf(d, sizeof d, "%s/step0/rank0", t);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/dump.json", d);
    CHECK_INT(pt_write(p, HEAD "\"Module.a.forward.0\":{\"input_args\":[{\"type\":\"torch.Ten"), 0);
    CHECK(load(t, &err) == NULL);
    CHECK_CONTAINS(err.msg, "ends early");
    CHECK(!strstr(err.msg, "construct.json"));
    /* a JSON that is not an msProbe dump says so */
    snprintf(p, sizeof p, "%s/other.json", t);
    CHECK_INT(pt_write(p, "{\"a\": 1}"), 0);
    CHECK(load(p, &err) == NULL);
    CHECK_CONTAINS(err.msg, "not an msProbe dump");
    CHECK(!strstr(err.msg, "construct.json"));
}

static void test_one_note_for_many_folders(void) {
    const char *t = pt_tmpdir("edges_notes");
    char root[1200];
    snprintf(root, sizeof root, "%s/d", t);
    for (int r = 0; r < 40; r++) CHECK_INT(write_rank(root, r / 20, r % 20, 1, 0), 0);
    struct pt_error err;
    struct dataset *ds = load(root, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->nwarnings, 1);
    if (ds->nwarnings) {
        CHECK_CONTAINS(ds->warnings[0], "and 39 other rank folders");
        CHECK_CONTAINS(ds->warnings[0], "construct.json missing");
    }
    dataset_free(ds);
}

static void test_fifo_csv_named(void) {
    const char *t = pt_tmpdir("edges_fifo");
    char d[1200], p[1300];
    snprintf(d, sizeof d, "%s/Dec03_21-34-40-rank0-1a2b3c4d", t);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/actv_0-1.csv", d);
    CHECK_INT(mkfifo(p, 0644), 0);
    struct pt_error err;
    CHECK(load(t, &err) == NULL);
    CHECK_CONTAINS(err.msg, "actv_0-1.csv");
    CHECK_CONTAINS(err.msg, "FIFO");
}

static void test_long_record_name(void) {
    const char *t = pt_tmpdir("edges_long");
    char d[1200], p[1300];
    snprintf(d, sizeof d, "%s/rank0", t);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/dump.json", d);
    FILE *f = fopen(p, "w");
    fputs(HEAD "\"Module.", f);
    for (int i = 0; i < 5000; i++) fputc('x', f);
    fputs(".forward.0\":{\"input_args\":[" TEN "],\"output\":[]},\"Module.b.Linear.forward.0\":{\"input_args\":["
          TEN "],\"output\":[]}}}", f);
    fclose(f);
    struct pt_error err;
    struct dataset *ds = load(d, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    int said = 0;
    for (size_t i = 0; i < ds->nwarnings; i++)
        if (strstr(ds->warnings[i], "1 record with a name over 4095 bytes skipped")) said = 1;
    CHECK(said);
    CHECK(names_count(ds->cube->names) > 0);   /* the other record is there */
    dataset_free(ds);
}

/* Monitor CSV fields found eight bytes at a time: quoted names with a comma
 * and "" escapes, CRLF line ends, names ending on and across the 8-byte
 * steps, a last row at the very end of the bytes: each name exactly. */
static void test_monitor_csv_fields(void) {
    const char *t = pt_tmpdir("edges_csv");
    char d[1200], p[1300];
    snprintf(d, sizeof d, "%s/Dec03_21-34-40-rank0-1a2b3c4d", t);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/actv_0-1.csv", d);
    CHECK_INT(pt_write(p, "vpp_stage,name,step,micro_step,norm\r\n"
                          "0,\"a,b\"\"c\",0,0,1.5\r\n"
                          "0,abcdefg,0,0,2.5\r\n"
                          "0,abcdefgh,0,0,3.5\n"
                          "0,module.layers.10.mlp.dense_4h_to_h,0,0,4.5\r\n"
                          "0,x\"y,0,0,1e-3\n"
                          "0,last.one,0,0,7"),
              0);
    struct pt_error err;
    struct dataset *ds = load(t, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct names *n = ds->cube->names;
    static const char *const want[] = {"a,b\"c", "abcdefg", "abcdefgh", "module.layers.10.mlp.dense_4h_to_h", "x\"y"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int found = 0;
        for (uint32_t k = 0; k < names_count(n); k++) found |= !strcmp(names_str(n, k), want[i]);
        CHECK(found);
    }
    for (uint32_t k = 0; k < names_count(n); k++) CHECK(strchr(names_str(n, k), '\r') == NULL);
    dataset_free(ds);
}

/* cmd_info writes header fields escaped: no ESC byte reaches the terminal. */
static void test_info_escapes_header(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("edges_esc");
    char d[1200], p[1300], cmd[4000];
    snprintf(d, sizeof d, "%s/rank0", t);
    mkdir(d, 0755);
    snprintf(p, sizeof p, "%s/dump.json", d);
    CHECK_INT(pt_write(p, "{\"task\":\"statistics\\u001b]0;x\\u0007\",\"level\":\"L1\\u009b1m\","
                          "\"framework\":\"pytorch\\u001b[5m\",\"data\":{\"Module.a.forward.0\":"
                          "{\"input_args\":[" TEN "],\"output\":[]}}}"), 0);
    snprintf(cmd, sizeof cmd, "'%s' info '%s' > '%s/out.txt' 2>&1", bin, d, t);
    CHECK_INT(sh(cmd), 0);
    snprintf(p, sizeof p, "%s/out.txt", t);
    char *out = pt_slurp(p);
    CHECK(out && !strchr(out, 0x1b) && !strchr(out, 0x07));
    CHECK_CONTAINS(out, "pytorch\\x1b[5m");
    free(out);
}

static void test_dev_full_and_missing(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("edges_devfull");
    char root[1200], cmd[4000], p[1300];
    snprintf(root, sizeof root, "%s/d", t);
    CHECK_INT(write_rank(root, 0, 0, 1, 1), 0);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db /dev/full > '%s/out.txt' 2>&1", bin, root, t);
    CHECK_INT(sh(cmd), 2);
    snprintf(p, sizeof p, "%s/out.txt", t);
    char *out = pt_slurp(p);
    CHECK_CONTAINS(out, "a file of that name is in the way");
    CHECK(out && !strstr(out, "File exists"));
    free(out);
    /* one wording for a missing path, in every command */
    static const char *const cmds[] = {"info", "overflow", "compare", "data2db --db x --data", NULL};
    for (int i = 0; cmds[i]; i++) {
        snprintf(cmd, sizeof cmd, "'%s' %s /nonexistent/pt-edges%s > '%s/out.txt' 2>&1", bin, cmds[i],
                 !strcmp(cmds[i], "compare") ? " /nonexistent/pt-edges" : "", t);
        CHECK_INT(sh(cmd), 2);
        out = pt_slurp(p);
        CHECK_CONTAINS(out, "/nonexistent/pt-edges: No such file or directory");
        free(out);
    }
}

/* Every rank's dump.json broken: data2db refuses (exit 2) and leaves no
 * output folder, instead of an empty database and exit 0. */
static void test_data2db_all_broken(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("edges_allbroken");
    char cmd[4000], p[1300], out_dir[1300];
    static const char *const bodies[] = {"{\"task\": \"statistics\", \"data\": {", "[1]"};
    for (int r = 0; r < 2; r++) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/d/step0/rank%d' && printf '%%s' '%s' > '%s/d/step0/rank%d/dump.json'", t, r,
                 bodies[r], t, r);
        CHECK_INT(sh(cmd), 0);
    }
    snprintf(out_dir, sizeof out_dir, "%s/out", t);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s/d' --db '%s' > '%s/out.txt' 2>&1", bin, t, out_dir, t);
    CHECK_INT(sh(cmd), 2);
    snprintf(p, sizeof p, "%s/out.txt", t);
    char *out = pt_slurp(p);
    CHECK_CONTAINS(out, "no usable rank folder: no database written");
    CHECK_CONTAINS(out, "JSON ends early (truncated file?)");
    free(out);
    CHECK(access(out_dir, F_OK) != 0);
}

/* Permissions: a read-only output folder says so, an unreadable rank folder
 * is not "no dump.json".  Root reads and writes everything: skipped there. */
static void test_permissions(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    if (geteuid() == 0) SKIP("running as root: permissions are not enforced");
    const char *t = pt_tmpdir("edges_perm");
    char root[1200], ro[1200], cmd[4000], p[1300], rank[1300];
    snprintf(root, sizeof root, "%s/d", t);
    CHECK_INT(write_rank(root, 0, 0, 1, 1), 0);
    CHECK_INT(write_rank(root, 0, 1, 1, 1), 0);
    snprintf(ro, sizeof ro, "%s/ro", t);
    mkdir(ro, 0555);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s' > '%s/out.txt' 2>&1", bin, root, ro, t);
    CHECK_INT(sh(cmd), 2);
    snprintf(p, sizeof p, "%s/out.txt", t);
    char *out = pt_slurp(p);
    CHECK_CONTAINS(out, "Permission denied");
    CHECK(out && !strstr(out, ".tmp."));
    free(out);
    snprintf(rank, sizeof rank, "%s/step0/rank1", root);
    chmod(rank, 0);
    struct pt_error err;
    struct dataset *ds = load(root, &err);
    chmod(rank, 0755);
    CHECK(ds != NULL);
    if (!ds) return;
    int said = 0;
    for (size_t i = 0; i < ds->nwarnings; i++)
        if (strstr(ds->warnings[i], "rank1") && strstr(ds->warnings[i], "Permission denied")) said = 1;
    CHECK(said);
    dataset_free(ds);
}

/* ---- numbers from the path ---- */

static void test_path_numbers(void) {
    const char *t = pt_tmpdir("edges_numbers");
    char root[1200], p[1400];
    snprintf(root, sizeof root, "%s/prob", t);
    for (int s = 0; s < 4; s++)
        for (int r = 0; r < 6; r++) CHECK_INT(write_rank(root, s, r, 2, 1), 0);
    struct pt_error err;
    struct { const char *rel; int step, nranks, rank0; } cases[] = {
        {"", 0, 6, 0}, {"/step3", 3, 6, 0}, {"/step3/", 3, 6, 0}, {"/step3/rank5", 3, 1, 5}, {"/step3/rank5/dump.json", 3, 1, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(p, sizeof p, "%s%s", root, cases[i].rel);
        struct dataset *ds = load(p, &err);
        CHECK(ds != NULL);
        if (!ds) { fprintf(stderr, "%s\n", err.msg); continue; }
        CHECK_INT(ds->cube->steps[0].value, cases[i].step);
        CHECK_INT(ds->cube->steps[0].origin, cases[i].step);
        CHECK_INT(ds->cube->nranks, cases[i].nranks);
        CHECK_INT(ds->cube->ranks[0], cases[i].rank0);
        for (size_t k = 0; k < ds->ovf.n; k++) CHECK_INT(ds->ovf.v[k].step >= cases[i].step, 1);
        dataset_free(ds);
        /* compare's and the tree's numbering agree */
        struct graph_dirs g;
        CHECK_INT(graph_scan(p, &g, &err), 0);
        CHECK_INT(g.v[0].step, cases[i].step);
        CHECK_INT(g.v[0].rank, cases[i].rank0);
        graph_dirs_free(&g);
    }
    /* step3 against step2 of the same run: paired by rank */
    struct graph_dirs a, b;
    snprintf(p, sizeof p, "%s/step3", root);
    CHECK_INT(graph_scan(p, &a, &err), 0);
    snprintf(p, sizeof p, "%s/step2", root);
    CHECK_INT(graph_scan(p, &b, &err), 0);
    CHECK_INT(graph_pair(&a, &b, 4), 4);
    graph_dirs_free(&a);
    graph_dirs_free(&b);
    /* two whole runs: by (step, rank) */
    CHECK_INT(graph_scan(root, &a, &err), 0);
    CHECK_INT(graph_scan(root, &b, &err), 0);
    CHECK_INT(graph_pair(&a, &b, 13), 13);
    graph_dirs_free(&a);
    graph_dirs_free(&b);
}

/* ---- data2db interrupted or killed ---- */

static int count_tmp(const char *dir) {
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.tmp\\.' >/dev/null", dir);
    return sh(cmd) == 0;
}

static void test_data2db_signals(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    const char *t = pt_tmpdir("edges_sig");
    char root[1200], out[1200], p[1400];
    snprintf(root, sizeof root, "%s/d", t);
    snprintf(out, sizeof out, "%s/out", t);
    mkdir(out, 0755);
    for (int r = 0; r < 24; r++) CHECK_INT(write_rank(root, r / 8, r % 8, 4000, 1), 0);
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/err.txt", t);
        pid_t pid = fork();
        if (pid == 0) {
            int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 2);
            dup2(fd, 1);
            execl(bin, bin, "data2db", "--data", root, "--db", out, "--process_num", "1", (char *)NULL);
            _exit(127);
        }
        /* wait for the temporary file, then interrupt */
        int seen = 0;
        for (int k = 0; k < 20000 && !seen; k++) {
            seen = count_tmp(out);
            if (!seen) usleep(500);
        }
        kill(pid, sigs[i]);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!seen || WIFEXITED(st)) { fprintf(stderr, "data2db ended before the signal: not checked\n"); continue; }
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i]);
        CHECK(!count_tmp(out));
        char *e = pt_slurp(p);
        CHECK_CONTAINS(e, "interrupted by SIG");
        free(e);
    }
    /* a temporary file of a run whose process is gone is removed */
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(p, sizeof p, "%s/dump_data.trend.db.tmp.%ld", out, (long)dead);
    CHECK_INT(pt_write(p, "partial"), 0);
    char keep[1400];
    snprintf(keep, sizeof keep, "%s/dump_data.trend.db.tmp.%ld", out, (long)getpid());   /* alive: kept */
    CHECK_INT(pt_write(keep, "partial"), 0);
    char cmd[4000];
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s' > '%s/err.txt' 2>&1", bin, root, out, t);
    CHECK_INT(sh(cmd), 0);
    CHECK(access(p, F_OK) != 0);
    CHECK(access(keep, F_OK) == 0);
    snprintf(p, sizeof p, "%s/err.txt", t);
    char *e = pt_slurp(p);
    CHECK_CONTAINS(e, "the temporary file of an interrupted run");
    free(e);
    unlink(keep);
}

int main(void) {
    RUN(test_shrinking_dump);
    RUN(test_two_billion_micro_steps);
    RUN(test_callback_reason_kept);
    RUN(test_ub_inputs);
    RUN(test_real_error_not_hidden);
    RUN(test_one_note_for_many_folders);
    RUN(test_fifo_csv_named);
    RUN(test_long_record_name);
    RUN(test_monitor_csv_fields);
    RUN(test_info_escapes_header);
    RUN(test_dev_full_and_missing);
    RUN(test_data2db_all_broken);
    RUN(test_permissions);
    RUN(test_path_numbers);
    RUN(test_data2db_signals);
    PT_DONE();
}
