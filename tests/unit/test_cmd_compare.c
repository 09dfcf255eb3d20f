/* test_cmd_compare: `probetop compare` end to end (the command's run()
 * called in-process): the csv of the quick_start pair row for row against
 * msProbe's, exit codes, --first on a generated pair with and without
 * --drift, bad input, and an md5 pair with null items. */
#include "pt_test.h"
#include "src/cmd/cmd.h"

static void test_csv_quick_start(void) {
    const char *a = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016");
    const char *b = pt_fixture("examples/quick_start/gpu_dump/step1/proc2016");
    const char *sh = pt_shared();
    if (!a || !b || !sh) SKIP("fixtures absent");
    char want[4096], csv[1200], out[1200], err[1200];
    snprintf(want, sizeof want, "%s/fixtures/msprobe-outputs/gpu_dump_step0_vs_step1.compare_result.csv", sh);
    const char *dir = pt_tmpdir("cmd_compare");
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *argv[] = {"compare", a, b, "--csv", csv};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv), EXIT_FOUND);   /* three rows at error level */
    char *got = pt_slurp(csv), *exp = pt_slurp(want);
    CHECK(got && exp);
    if (!got || !exp) { free(got); free(exp); return; }
    char *p = got, *q = exp, *f1[40], *f2[40];
    int rows = 0, bad = 0, n1, n2;
    while ((n1 = pt_csv_record(&p, f1, 40)) > 0 && (n2 = pt_csv_record(&q, f2, 40)) > 0) {
        if (n1 != n2) { bad++; break; }
        double scale = 0;
        if (rows > 0)
            for (int c = 16; c < 24; c++) scale = fmax(scale, fabs(strtod(f2[c], NULL)));
        for (int c = 0; c < n1; c++)
            if (!pt_same_cell(f1[c], f2[c], scale) && bad++ < 5)
                fprintf(stderr, "line %d col %d: %.100s / %.100s\n", rows + 1, c, f1[c], f2[c]);
        rows++;
    }
    CHECK_INT(rows, 2823);
    CHECK_INT(bad, 0);
    CHECK_INT(*p, '\0');
    free(got);
    free(exp);
    char *so = pt_slurp(out);
    CHECK_CONTAINS(so, "2822 rows (pass 2756, warning 63, error 3)");
    CHECK_CONTAINS(so, "unmatched 220 problem / 58 benchmark");
    free(so);
    /* --first: the earliest diverging operation in msProbe's node_order,
     * the fc's linear (the db's first node at index 1), with its module */
    const char *argv2[] = {"compare", a, b, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv2), EXIT_FOUND);
    so = pt_slurp(out);
    CHECK_STR(so, "Functional.linear.0.forward\terror\tstep 0\trank 0\tworst relative error 74.3392%"
                  "\tmicro step 0\tin Module.fc.Linear.forward.0\n");
    free(so);
    /* the same answer as the headline of the full compare */
    const char *argv2b[] = {"compare", a, b};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 3, argv2b), EXIT_FOUND);
    so = pt_slurp(out);
    CHECK_CONTAINS(so, "first divergence: Functional.linear.0.forward in Module.fc.Linear.forward.0 (error) at step 0, "
                       "micro step 0, rank 0");
    free(so);
    /* --out DIR: one pair, one csv named as msProbe's, equal to --csv's */
    char od[1300], one[1400];
    snprintf(od, sizeof od, "%s/out", dir);
    const char *argv2c[] = {"compare", a, b, "--out", od};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv2c), EXIT_FOUND);
    snprintf(one, sizeof one, "%s/compare_result_rank0.csv", od);
    char *c1 = pt_slurp(one), *c2 = pt_slurp(csv);
    CHECK(c1 && c2 && !strcmp(c1, c2));
    free(c1);
    free(c2);
    /* the same dump against itself: nothing diverges */
    const char *argv3[] = {"compare", a, a, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv3), EXIT_OK);
    so = pt_slurp(out);
    CHECK_CONTAINS(so, "no divergence");
    free(so);
    /* a match config naming an unknown node: a warning, the rest applied */
    char mc[1300];
    snprintf(mc, sizeof mc, "%s/m.vis.config", dir);
    pt_write(mc, "{\"Module.fc.Linear.parameters_grad.0\": \"Module.fc.Linear.parameters_grad.1\", \"No.such\": \"x\"}");
    const char *argv4[] = {"compare", a, b, "--match-config", mc};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv4), EXIT_FOUND);
    char *se = pt_slurp(err);
    CHECK_CONTAINS(se, "No.such is not a node of the problem graph");
    CHECK_CONTAINS(se, "1 pairs applied, 1 failed");
    free(se);
    so = pt_slurp(out);
    CHECK_CONTAINS(so, "unmatched 219 problem / 57 benchmark");
    free(so);
}

static void test_drift_first(void) {
    const char *sh = pt_shared(), *py = getenv("PT_PYTHON");
    if (!sh || !py || !*py) SKIP("PT_SHARED or PT_PYTHON absent");
    const char *dir = pt_tmpdir("cmd_compare_drift");
    char cmd[4096], npu[1200], bench[1200], out[1200], err[1200];
    snprintf(npu, sizeof npu, "%s/npu", dir);
    snprintf(bench, sizeof bench, "%s/bench", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *opts = "--steps 2 --ranks 2 --tp 2 --layers 4 --seed 7 --hidden 256 --heads 4 --ffn 512 --seq 64 "
                       "--vocab 1000 --quiet --jobs 1";
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' %s", py, sh, bench, opts);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' %s --drift 3:layers.2.mlp", py, sh, npu, opts);
    CHECK_INT(system(cmd), 0);
    const char *argv[] = {"compare", npu, bench, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv), EXIT_FOUND);
    char *so = pt_slurp(out);
    /* every rank drifts from step 0: the first is rank 0's first operation
     * inside the drifted MLP, not the MLP module */
    CHECK_CONTAINS(so, "\terror\tstep 0\trank 0\t");
    CHECK_CONTAINS(so, "\tmicro step 0\tin Module.module.module.decoder.layers.2.mlp.");
    CHECK(so && strncmp(so, "Module.", 7) != 0);
    free(so);
    /* without the drift: identical runs */
    const char *argv2[] = {"compare", bench, bench, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv2), EXIT_OK);
    so = pt_slurp(out);
    CHECK_CONTAINS(so, "no divergence");
    free(so);
    /* csv to stdout: header once for the four (step, rank) pairs, each
     * row led by its step and rank */
    const char *argv3[] = {"compare", npu, bench, "--csv", "-"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv3), EXIT_FOUND);
    so = pt_slurp(out);
    CHECK(so && !strncmp(so, "Step,Rank,NPU Name,Bench Name,", 30));
    CHECK(so && strstr(so + 20, "NPU Name,Bench Name,") == NULL);
    CHECK(so && strstr(so, "\n0,0,") && strstr(so, "\n0,1,") && strstr(so, "\n1,0,") && strstr(so, "\n1,1,"));
    /* every row has the 2 + 28 fields */
    char *p = so, *f[40];
    int n, bad = 0, rows = 0;
    while (p && (n = pt_csv_record(&p, f, 40)) > 0) {
        bad += n != 30;
        rows++;
    }
    CHECK_INT(bad, 0);
    CHECK(rows > 100);
    free(so);
    /* --out DIR: one csv per pair, msProbe's names with the step, nothing else left there */
    char od[1300], name[1500];
    snprintf(od, sizeof od, "%s/per_pair", dir);
    const char *argv3b[] = {"compare", npu, bench, "--out", od};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv3b), EXIT_FOUND);
    for (int st = 0; st < 2; st++)
        for (int rk = 0; rk < 2; rk++) {
            snprintf(name, sizeof name, "%s/compare_result_rank%d_step%d.csv", od, rk, st);
            char *c = pt_slurp(name);
            CHECK(c && !strncmp(c, "NPU Name,Bench Name,", 20));
            free(c);
        }
    snprintf(name, sizeof name, "ls -A '%s' | wc -l | grep -qx 4", od);
    CHECK_INT(system(name), 0);
    /* a file where the folder should be */
    snprintf(name, sizeof name, "%s/compare_result_rank0_step0.csv", od);
    const char *argv3c[] = {"compare", npu, bench, "--out", name};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv3c), EXIT_USAGE);
    char *se0 = pt_slurp(err);
    CHECK_CONTAINS(se0, "not a folder");
    free(se0);
    /* L1 dumps: no tree, said so, the table still compared */
    char l1[1200];
    snprintf(l1, sizeof l1, "%s/l1", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' --level L1 --steps 1 --layers 2 --hidden 64 "
                              "--heads 2 --ffn 128 --seq 16 --vocab 100 --quiet --jobs 1", py, sh, l1);
    CHECK_INT(system(cmd), 0);
    const char *argv4[] = {"compare", l1, l1};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 3, argv4), EXIT_OK);
    char *se = pt_slurp(err);
    CHECK_CONTAINS(se, "no model structure");
    free(se);
    so = pt_slurp(out);
    CHECK_CONTAINS(so, "rows (pass");
    free(so);
}

/* A NaN planted at step 1 rank 1: --first finds it there, past the
 * clean pairs before it, and names its module. */
static void test_whole_run_first(void) {
    const char *sh = pt_shared(), *py = getenv("PT_PYTHON");
    if (!sh || !py || !*py) SKIP("PT_SHARED or PT_PYTHON absent");
    const char *dir = pt_tmpdir("cmd_compare_run");
    char cmd[4096], npu[1200], bench[1200], out[1200], err[1200];
    snprintf(npu, sizeof npu, "%s/npu", dir);
    snprintf(bench, sizeof bench, "%s/bench", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *opts = "--steps 2 --ranks 4 --tp 2 --layers 2 --seed 3 --hidden 64 --heads 4 --ffn 128 --seq 8 "
                       "--vocab 64 --quiet --jobs 1";
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' %s && '%s' '%s/tools/gen_dump.py' --out '%s' %s "
                              "--nan 1:3:layers.1.mlp", py, sh, bench, opts, py, sh, npu, opts);
    CHECK_INT(system(cmd), 0);
    const char *argv[] = {"compare", npu, bench, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv), EXIT_FOUND);
    char *so = pt_slurp(out);
    CHECK_CONTAINS(so, "\terror\tstep 1\trank 3\tworst relative error");
    CHECK_CONTAINS(so, "\tin Module.module.module.decoder.layers.1.mlp.");
    CHECK(so && strncmp(so, "Module.", 7) != 0);
    /* the full compare's headline names the same node */
    const char *name_end = so ? strchr(so, '\t') : NULL;
    char want[600] = "";
    if (name_end) snprintf(want, sizeof want, "first divergence: %.*s in ", (int)(name_end - so), so);
    free(so);
    const char *argv2[] = {"compare", npu, bench};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 3, argv2), EXIT_FOUND);
    so = pt_slurp(out);
    CHECK(want[0]);
    CHECK_CONTAINS(so, want);
    CHECK_CONTAINS(so, "at step 1, micro step 0, rank 3");
    free(so);
    /* a pair that cannot be read: named and left out, the others
     * compared; what they hold at error level fails the gate (exit 1
     * before 3, probetop(1), EXIT STATUS) */
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/broken' && truncate -s 1000 '%s/broken/step0/rank2/dump.json'", npu, dir,
             dir);
    CHECK_INT(system(cmd), 0);
    char broken[1300];
    snprintf(broken, sizeof broken, "%s/broken", dir);
    const char *argv3[] = {"compare", broken, bench, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv3), EXIT_FOUND);
    char *se = pt_slurp(err);
    CHECK_CONTAINS(se, "step 0 rank 2: ");
    CHECK_CONTAINS(se, "dump.json");
    CHECK_CONTAINS(se, "1 of 8 (step, rank) pairs could not be compared\n");
    free(se);
    so = pt_slurp(out);
    CHECK_CONTAINS(so, "\terror\tstep 1\trank 3\t");
    free(so);
}

/* An md5 pair (tests/md5/): msProbe's md5 table byte for byte, null
 * items included (they crashed the csv), and the determinism rule as the
 * first divergence, with and without structure. */
static void test_md5_pair(void) {
    const char *src = getenv("PT_SRC");
    if (!src) SKIP("PT_SRC absent");
    char a[1200], b[1200], want[1200], csv[1300], out[1300], err[1300], cmd[4200];
    snprintf(a, sizeof a, "%s/tests/md5/npu", src);
    snprintf(b, sizeof b, "%s/tests/md5/bench", src);
    snprintf(want, sizeof want, "%s/tests/md5/msprobe_compare_result.csv", src);
    const char *dir = pt_tmpdir("cmd_compare_md5");
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *argv[] = {"compare", a, b, "--csv", csv};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv), EXIT_FOUND);
    char *got = pt_slurp(csv), *exp = pt_slurp(want);
    CHECK(got && exp);
    if (got && exp) CHECK_STR(got, exp);
    free(got);
    free(exp);
    char *so = pt_slurp(out);
    CHECK_CONTAINS(so, "25 rows (pass 15, warning 3, error 7)");
    /* the embedding's input differs already: the relu, same input and a
     * different output, is the operator to suspect */
    CHECK_CONTAINS(so, "first nondeterministic operator (inputs equal, outputs differ): Functional.relu.0.forward "
                       "(error) at step 0, micro step 0, rank 0");
    free(so);
    const char *argv2[] = {"compare", a, b, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv2), EXIT_FOUND);
    so = pt_slurp(out);
    CHECK_STR(so, "Functional.relu.0.forward\terror\tstep 0\trank 0\tworst relative error -\tmicro step 0\tin -\n"
                  "determinism: the first operator whose inputs' checksums equal the benchmark's and whose outputs' "
                  "differ\n");
    free(so);
    /* with structure (a construct.json of top-level APIs): the graph's answer is the same */
    for (int s = 0; s < 2; s++) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/s%d' && cp '%s/dump.json' '%s/s%d/' && printf '%%s' '{\"Functional."
                 "embedding.0.forward\": null, \"Functional.conv2d.0.forward\": null, \"Functional.relu.0.forward\": "
                 "null, \"Functional.linear.0.forward\": null}' > '%s/s%d/construct.json'",
                 dir, s, s ? b : a, dir, s, dir, s);
        CHECK_INT(system(cmd), 0);
    }
    char sa[1300], sb[1300];
    snprintf(sa, sizeof sa, "%s/s0", dir);
    snprintf(sb, sizeof sb, "%s/s1", dir);
    const char *argv3[] = {"compare", sa, sb, "--first"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv3), EXIT_FOUND);
    so = pt_slurp(out);
    CHECK(so && !strncmp(so, "Functional.relu.0.forward\terror\tstep 0\trank 0\t", 45));
    CHECK_CONTAINS(so, "\ndeterminism: ");
    free(so);
    /* a run against itself with one rank's dump.json cut: nothing diverges
     * in what was read, but the gate cannot pass (exit 3, probetop(1),
     * EXIT STATUS) unless --partial-ok */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/run/step0/rank0' '%s/run/step0/rank1' && cp '%s/dump.json' "
             "'%s/run/step0/rank0/' && head -c 1500 '%s/dump.json' > '%s/run/step0/rank1/dump.json'",
             dir, dir, a, dir, a, dir);
    CHECK_INT(system(cmd), 0);
    char run[1300];
    snprintf(run, sizeof run, "%s/run", dir);
    const char *argv4[] = {"compare", run, run};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 3, argv4), EXIT_INCOMPLETE);
    char *se = pt_slurp(err);
    CHECK_CONTAINS(se, "step 0 rank 1: ");
    CHECK_CONTAINS(se, "rank1/dump.json");
    CHECK_CONTAINS(se, "1 of 2 (step, rank) pairs could not be compared: the answer covers the others only");
    free(se);
    const char *argv5[] = {"compare", run, run, "--first", "--partial-ok"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv5), EXIT_OK);
    so = pt_slurp(out);
    CHECK_CONTAINS(so, "no divergence");
    free(so);
}

/* The real quick_start pair turned into md5 dumps (every tensor given the
 * CRC-32 of the text of its statistics): the backward outputs of
 * Functional.conv2d.0.backward are [null, {...}, null].  The counts and
 * those rows are msProbe's compare of the same files (run once, stored). */
static void test_md5_quick_start(void) {
    const char *a = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016");
    const char *b = pt_fixture("examples/quick_start/gpu_dump/step1/proc2016");
    const char *py = getenv("PT_PYTHON");
    if (!a || !b || !py || !*py) SKIP("fixtures or PT_PYTHON absent");
    const char *dir = pt_tmpdir("cmd_compare_md5qs");
    char script[1300], cmd[6000], csv[1300], out[1300], err[1300], d0[1300], d1[1300];
    snprintf(script, sizeof script, "%s/md5.py", dir);
    pt_write(script, "import json, os, shutil, sys, zlib\n"
                     "def add(o):\n"
                     "    if isinstance(o, dict):\n"
                     "        if 'Tensor' in str(o.get('type', '')) and 'dtype' in o:\n"
                     "            o['md5'] = '%08x' % zlib.crc32(json.dumps([o.get(k) for k in ('Max', 'Min', 'Mean', "
                     "'Norm')] + [0]).encode())\n"
                     "        for v in o.values(): add(v)\n"
                     "    elif isinstance(o, list):\n"
                     "        for v in o: add(v)\n"
                     "src, dst = sys.argv[1], sys.argv[2]\n"
                     "os.makedirs(dst)\n"
                     "d = json.load(open(src + '/dump.json'))\n"
                     "add(d)\n"
                     "json.dump(d, open(dst + '/dump.json', 'w'), indent=1)\n"
                     "for f in ('construct.json', 'stack.json'): shutil.copyfile(src + '/' + f, dst + '/' + f)\n");
    snprintf(d0, sizeof d0, "%s/step0/proc2016", dir);
    snprintf(d1, sizeof d1, "%s/step1/proc2016", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s' && '%s' '%s' '%s' '%s'", py, script, a, d0, py, script, b, d1);
    CHECK_INT(system(cmd), 0);
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *argv[] = {"compare", d0, d1, "--csv", csv};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv), EXIT_FOUND);
    char *so = pt_slurp(out), *got = pt_slurp(csv);
    CHECK_CONTAINS(so, "2822 rows (pass 753, warning 161, error 1908)");
    CHECK_CONTAINS(got, "\nFunctional.conv2d.0.backward.input.0,Functional.conv2d.0.backward.input.0,torch.float32,"
                        "torch.float32,\"[32, 64, 112, 112]\",\"[32, 64, 112, 112]\",False,False,f9ca1007,28a90d96,True,"
                        "error,\"[\"\"error: The CRC-32 value of NPU differs from that of the bench.\"\"]\",N/A\n"
                        "Functional.conv2d.0.backward.output.0,Functional.conv2d.0.backward.output.0,None,None,None,None,"
                        "N/A,N/A,N/A,N/A,True,pass,[],N/A\n"
                        "Functional.conv2d.0.backward.output.1,Functional.conv2d.0.backward.output.1,torch.float32,"
                        "torch.float32,\"[64, 3, 7, 7]\",\"[64, 3, 7, 7]\",False,False,f60fa586,5a288048,True,error,"
                        "\"[\"\"error: The CRC-32 value of NPU differs from that of the bench.\"\"]\",N/A\n"
                        "Functional.conv2d.0.backward.output.2,Functional.conv2d.0.backward.output.2,None,None,None,None,"
                        "N/A,N/A,N/A,N/A,True,pass,[],N/A\n");
    free(so);
    free(got);
}

/* msProbe's compare adds NPU_Stack_Info whenever the problem folder has a
 * stack.json, an empty one ({}) included; its rows then say N/A. */
/* A pair of rank folders in a scratch dir, the same dump.json in both,
 * and where the compare's stdout, stderr and csv go. */
struct pair { char p[1200], b[1200], out[1300], err[1300], csv[1300]; };

static void pair_make(struct pair *x, const char *name, const char *dump) {
    const char *dir = pt_tmpdir(name);
    char f[1300];
    snprintf(x->p, sizeof x->p, "%s/npu", dir);
    snprintf(x->b, sizeof x->b, "%s/bench", dir);
    snprintf(x->out, sizeof x->out, "%s/stdout", dir);
    snprintf(x->err, sizeof x->err, "%s/stderr", dir);
    snprintf(x->csv, sizeof x->csv, "%s/out.csv", dir);
    const char *sides[] = {x->p, x->b};
    for (int i = 0; i < 2; i++) {
        CHECK_INT(mkdir(sides[i], 0755), 0);
        snprintf(f, sizeof f, "%s/dump.json", sides[i]);
        pt_write(f, dump);
    }
}

static void test_csv_empty_stack(void) {
    const char *dump = "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", "
                       "\"dump_data_dir\": null, \"data\": {\"Torch.add.0.forward\": {\"input_args\": [{\"type\": "
                       "\"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, "
                       "\"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}], \"input_kwargs\": {}, \"output\": []}}}";
    struct pair x;
    pair_make(&x, "cmd_compare_stack", dump);
    char f[1300];
    snprintf(f, sizeof f, "%s/stack.json", x.p);
    pt_write(f, "{}\n");
    const char *argv[] = {"compare", x.p, x.b, "--csv", x.csv};
    CHECK_INT(pt_capture(x.out, x.err, cmd_compare_entry.run, 5, argv), EXIT_OK);
    char *got = pt_slurp(x.csv);
    CHECK_CONTAINS(got, ",Result,Err_message,NPU_Stack_Info\n");
    CHECK_CONTAINS(got, ",True,pass,[],N/A\n");
    free(got);
}

/* Names with bytes the csv must quote or escape (a comma, a quote, ESC, a
 * C1 control, a tab, UTF-8) keep msprobe's quoting and reach no terminal
 * as controls; plain fields are written as they are. */
static void test_csv_odd_names(void) {
    const char *t = "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, "
                    "\"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": false}";
    char dump[2000];
    snprintf(dump, sizeof dump,
             "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": null, "
             "\"data\": {\"Torch.a,b.0.forward\": {\"input_args\": [%s], \"input_kwargs\": {}, \"output\": []}, "
             "\"Torch.q\\\"\\u001b\\u009b\\t\\u00e9x.1.forward\": {\"input_args\": [%s], \"input_kwargs\": {}, "
             "\"output\": []}}}", t, t);
    struct pair x;
    pair_make(&x, "cmd_compare_odd", dump);
    const char *argv[] = {"compare", x.p, x.b, "--csv", x.csv};
    CHECK_INT(pt_capture(x.out, x.err, cmd_compare_entry.run, 5, argv), EXIT_OK);
    char *got = pt_slurp(x.csv);
    CHECK_CONTAINS(got, "\n\"Torch.a,b.0.forward.input.0\",\"Torch.a,b.0.forward.input.0\",torch.float32,"
                        "torch.float32,[2],[2],False,False,");
    CHECK_CONTAINS(got, "\n\"Torch.q\"\"\\x1b\\u009b\t\xc3\xa9x.1.forward.input.0\",\"Torch.q\"\"\\x1b\\u009b\t"
                        "\xc3\xa9x.1.forward.input.0\",torch.float32,");
    CHECK(got && !strchr(got, '\x1b'));
    free(got);
}

static void test_bad_input(void) {
    const char *dir = pt_tmpdir("cmd_compare_bad");
    char out[1200], err[1200], a[1200], p[1300];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *argv[] = {"compare", "/nonexistent/a"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 2, argv), EXIT_USAGE);
    const char *argv2[] = {"compare", "/nonexistent/a", "/nonexistent/b"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 3, argv2), EXIT_USAGE);
    char *se = pt_slurp(err);
    CHECK_CONTAINS(se, "/nonexistent/a");
    free(se);
    const char *argv3[] = {"compare", "a", "b", "--bogus"};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 4, argv3), EXIT_USAGE);
    /* a folder with a broken dump.json */
    snprintf(a, sizeof a, "%s/r", dir);
    snprintf(p, sizeof p, "mkdir -p '%s'", a);
    CHECK_INT(system(p), 0);
    snprintf(p, sizeof p, "%s/dump.json", a);
    pt_write(p, "{\"task\": \"statistics\", \"data\": {\"x\": [");
    const char *argv4[] = {"compare", a, a};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 3, argv4), EXIT_USAGE);
    se = pt_slurp(err);
    CHECK_CONTAINS(se, "dump.json");
    free(se);
    /* frameworks differ without a layer mapping */
    const char *ms = pt_fixture("test/resources/layer_mapping/mindspore");
    const char *pt = pt_fixture("test/resources/layer_mapping/pytorch");
    if (ms && pt) {
        const char *argv5[] = {"compare", ms, pt};
        CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 3, argv5), EXIT_USAGE);
        se = pt_slurp(err);
        CHECK_CONTAINS(se, "--layer-mapping");
        free(se);
        char lm[1300];
        snprintf(lm, sizeof lm, "%s/map.yaml", dir);
        pt_write(lm, "ParallelTransformer:\n  layers: layers\n");
        const char *argv6[] = {"compare", ms, pt, "--layer-mapping", lm};
        CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 5, argv6), EXIT_OK);
    }
}

int main(void) {
    RUN(test_csv_quick_start);
    RUN(test_drift_first);
    RUN(test_whole_run_first);
    RUN(test_csv_empty_stack);
    RUN(test_csv_odd_names);
    RUN(test_bad_input);
    RUN(test_md5_pair);
    RUN(test_md5_quick_start);
    PT_DONE();
}
