/* The headless commands through the real binary (PT_BIN): exit codes,
 * --help/--version/help COMMAND, info --json keys, data2db outputs and the
 * promise never to write into the input folder. */
#include "pt_test.h"

#include <sys/wait.h>

/* Runs a shell command line, capturing stdout+stderr into out; returns the exit code. */
static int run(const char *cmdline, char *out, size_t n) {
    FILE *p = popen(cmdline, "r");
    size_t k = 0;
    if (!p) return -1;
    while (k + 1 < n) {
        size_t r = fread(out + k, 1, n - 1 - k, p);
        if (r == 0) break;
        k += r;
    }
    out[k] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *bin(void) { return getenv("PT_BIN"); }
static char out[1 << 20];

static void help_and_version(void) {
    char cmd[4096];
    if (!bin()) SKIP("PT_BIN not set");
    snprintf(cmd, sizeof cmd, "'%s' --help 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "data2db");
    CHECK_CONTAINS(out, "info");
    snprintf(cmd, sizeof cmd, "'%s' --version 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "probetop ");
    snprintf(cmd, sizeof cmd, "'%s' help data2db 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "--micro_step");
    snprintf(cmd, sizeof cmd, "'%s' help nosuchcommand 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "'%s' info 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "'%s' info --bogus x 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "--bogus");
}

/* The end of every command's option parsing is one (cmd_operand): an
 * unknown option, an operand too many and a missing one are refused with
 * exit 2 and the same wording whatever the command. */
static void operands_written_once(void) {
    static const char *const cmds[] = {"info", "overflow", "trace", "compare", "data2db", "parallel"};
    char cmd[4096], want[256];
    if (!bin()) SKIP("PT_BIN not set");
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        snprintf(cmd, sizeof cmd, "'%s' %s --bogus 2>&1", bin(), cmds[i]);
        CHECK_INT(run(cmd, out, sizeof out), 2);
        snprintf(want, sizeof want, "probetop %s: unknown option '--bogus' (see probetop help %s)\n", cmds[i], cmds[i]);
        CHECK_CONTAINS(out, want);
    }
    static const char *const one[] = {"info", "overflow", "trace"};
    for (size_t i = 0; i < sizeof one / sizeof *one; i++) {
        snprintf(cmd, sizeof cmd, "'%s' %s a b 2>&1", bin(), one[i]);
        CHECK_INT(run(cmd, out, sizeof out), 2);
        snprintf(want, sizeof want, "probetop %s: PATH is given already: 'b' is one too many\nusage: probetop %s PATH",
                 one[i], one[i]);
        CHECK_CONTAINS(out, want);
        snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", bin(), one[i]);
        CHECK_INT(run(cmd, out, sizeof out), 2);
        snprintf(want, sizeof want, "probetop %s: PATH is missing\nusage: probetop %s PATH", one[i], one[i]);
        CHECK_CONTAINS(out, want);
    }
    snprintf(cmd, sizeof cmd, "'%s' compare a b c 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "probetop compare: PROBLEM and BENCH are given already: 'c' is one too many\n");
    snprintf(cmd, sizeof cmd, "'%s' data2db extra 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "probetop data2db: unknown argument 'extra' (see probetop help data2db)\n");
}

/* Output that cannot be written (a full disk) is an error, exit 2 with a
 * message, for every command. */
static void full_disk(void) {
    char cmd[4096];
    if (!bin()) SKIP("PT_BIN not set");
    if (access("/dev/full", W_OK) != 0) SKIP("no /dev/full");
    snprintf(cmd, sizeof cmd, "'%s' --help 2>&1 >/dev/full", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "cannot write the output");
    snprintf(cmd, sizeof cmd, "'%s' parallel --world-size 8 --num-layers 4 --tp 2 --pp 2 2>&1 >/dev/full", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "cannot write the output");
    const char *p = pt_fixture("examples/quick_start/gpu_dump");
    if (!p) return;
    snprintf(cmd, sizeof cmd, "'%s' info '%s' 2>&1 >/dev/full", bin(), p);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "cannot write the output");
    snprintf(cmd, sizeof cmd, "'%s' compare '%s/step0/proc2016' '%s/step1/proc2016' --csv /dev/full 2>&1 >/dev/null",
             bin(), p, p);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "write failed");
}

static void info_json(void) {
    const char *p = pt_fixture("examples/quick_start/gpu_dump");
    char cmd[8192];
    if (!bin() || !p) SKIP("PT_BIN or fixtures absent");
    snprintf(cmd, sizeof cmd, "'%s' info --json '%s' 2>/dev/null", bin(), p);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    const char *keys[] = {"\"format\": \"dump\"", "\"steps\": [0, 1, 2", "\"ranks\": [0]", "\"targets\": 656",
                          "\"metrics\": [\"forward\", \"backward\", \"recompute\", \"parameters_grad\"]",
                          "\"statistics\": {\"forward\": [\"norm\", \"max\", \"min\", \"mean\"]",
                          "\"nonfinite\": {\"forward\": 0", "\"skipped\": []"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) CHECK_CONTAINS(out, keys[i]);
    /* valid JSON, checked by Python when there is one */
    const char *py = getenv("PT_PYTHON");
    if (py && *py) {
        snprintf(cmd, sizeof cmd, "'%s' info --json '%s' 2>/dev/null | '%s' -c 'import json,sys; d=json.load(sys.stdin); "
                 "assert d[\"targets\"]==656 and len(d[\"steps\"])==21, d'", bin(), p, py);
        CHECK_INT(system(cmd), 0);
    }
    snprintf(cmd, sizeof cmd, "'%s' info '%s' --micro_step false 2>&1", bin(), p);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "steps       2 (0..1)");
    CHECK_CONTAINS(out, "targets     1319");
}

static void bad_paths(void) {
    char cmd[8192];
    if (!bin()) SKIP("PT_BIN not set");
    snprintf(cmd, sizeof cmd, "'%s' info /nonexistent/x 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "/nonexistent/x: No such file or directory");
    const char *d = pt_tmpdir("cli_bad");
    char f[4200];
    snprintf(f, sizeof f, "%s/broken.trend.db", d);
    pt_write(f, "garbage garbage garbage garbage garbage garbage garbage garbage garbage garbage");
    snprintf(cmd, sizeof cmd, "'%s' info '%s' 2>&1", bin(), f);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "broken.trend.db");
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s/out' 2>&1", bin(), d, d);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "no dump");
    snprintf(cmd, sizeof cmd, "'%s' data2db --data /nonexistent --db '%s/out' 2>&1", bin(), d);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' 2>&1", bin(), d);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "--db");
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s/o' --micro_step maybe 2>&1", bin(), d, d);
    CHECK_INT(run(cmd, out, sizeof out), 2);
}

static void data2db_cli(void) {
    const char *p = pt_fixture("examples/quick_start/gpu_dump");
    const char *sh = pt_shared();
    char cmd[8192], before[1 << 14], after[1 << 14];
    if (!bin() || !p) SKIP("PT_BIN or fixtures absent");
    const char *d = pt_tmpdir("cli_d2db");
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -printf '%%p %%s %%T@\\n' | sort", p);
    run(cmd, before, sizeof before);
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s/new/out' --micro_step false 2>&1", bin(), p, d);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "dump_data.trend.db");
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -printf '%%p %%s %%T@\\n' | sort", p);
    run(cmd, after, sizeof after);
    CHECK_STR(after, before);   /* the input folder is never written */
    const char *py = getenv("PT_PYTHON");
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/trenddb_canon.py' '%s/new/out/dump_data.trend.db' | cmp -s - "
             "'%s/fixtures/msprobe/derived/gpu_dump.micro_step_false/dump_data.trend.canonical.txt'",
             py && *py ? py : "python3", sh, d, sh);
    CHECK_INT(system(cmd), 0);
    /* no temporary file left behind, and the output reads back */
    snprintf(cmd, sizeof cmd, "ls '%s/new/out'", d);
    run(cmd, out, sizeof out);
    CHECK_STR(out, "dump_data.trend.db\n");
    snprintf(cmd, sizeof cmd, "'%s' info '%s/new/out' 2>&1", bin(), d);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "targets     1319");
    /* auto format on a monitor tree */
    const char *m = pt_fixture("derived/synthetic_monitor_output");
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s/mon' 2>&1 && ls '%s/mon'", bin(), m, d, d);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "monitor_data.trend.db");
}

static void mapping(void) {
    const char *m = pt_fixture("derived/synthetic_monitor_output");
    char cmd[8192];
    if (!bin() || !m) SKIP("PT_BIN or fixtures absent");
    const char *d = pt_tmpdir("cli_map");
    char f[4200];
    snprintf(f, sizeof f, "%s/map.json", d);
    pt_write(f, "{\"module.decoder.\": \"dec.\", \"layers\": \"L\"}");
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s' --mapping '%s' 2>&1 && sqlite3 '%s/monitor_data.trend.db' "
             "\"select target_name from monitoring_targets where target_name like 'dec.L.0%%' limit 1\"", bin(), m, d, f, d);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "dec.L.0.");
    pt_write(f, "{\"a\": 1}");
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s' --db '%s/x' --mapping '%s' 2>&1", bin(), m, d, f);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "key \"a\"");
}

/* Every option that names a file beside the data (--layer-mapping,
 * --match-config, --mapping), headless and in the analyzer, given a FIFO,
 * /dev/zero and a 65 MB sparse file: refused at once with a message naming
 * it, exit 2, under a 2 GB address-space cap and a 20 s timeout (the FIFO
 * used to block for ever, /dev/zero to grow memory without bound). */
static void side_files_not_files(void) {
    const char *g = pt_fixture("examples/quick_start/gpu_dump");
    const char *a = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016");
    const char *b = pt_fixture("examples/quick_start/gpu_dump/step1/proc2016");
    if (!bin() || !g || !a || !b) SKIP("PT_BIN or fixtures absent");
    const char *d = pt_tmpdir("cli_side");
    char fifo[4200], big[4200], cmd[16384];
    snprintf(fifo, sizeof fifo, "%s/fifo", d);
    snprintf(big, sizeof big, "%s/big.json", d);
    unlink(fifo);
    CHECK_INT(mkfifo(fifo, 0600), 0);
    snprintf(cmd, sizeof cmd, "truncate -s 65M '%s'", big);
    CHECK_INT(system(cmd), 0);
    const char *files[] = {fifo, "/dev/zero", big};
    const char *why[] = {"is a FIFO, not a regular file", "is a special file, not a regular file", "more than the"};
    char opts[7][8600];
    snprintf(opts[0], sizeof opts[0], "compare '%s' '%s' --layer-mapping", a, b);
    snprintf(opts[1], sizeof opts[1], "compare '%s' '%s' --match-config", a, b);
    snprintf(opts[2], sizeof opts[2], "'%s' '%s' --layer-mapping", a, b);
    snprintf(opts[3], sizeof opts[3], "'%s' '%s' --match-config", a, b);
    snprintf(opts[4], sizeof opts[4], "info '%s' --mapping", g);
    snprintf(opts[5], sizeof opts[5], "data2db --data '%s' --db '%s/db' --mapping", g, d);
    snprintf(opts[6], sizeof opts[6], "'%s' --mapping", g);
    for (int o = 0; o < 7; o++)
        for (int f = 0; f < 3; f++) {
            /* a sanitized build (PT_TIMEOUT_SCALE set) maps terabytes of
             * shadow memory: no address-space cap there, the timeout bounds it */
            snprintf(cmd, sizeof cmd, "%s timeout 20 '%s' %s '%s' </dev/null 2>&1",
                     getenv("PT_TIMEOUT_SCALE") ? "" : "ulimit -v 2000000;", bin(), opts[o], files[f]);
            int rc = run(cmd, out, sizeof out);
            if (rc != 2) fprintf(stderr, "%s: exit %d\n", cmd, rc);
            CHECK_INT(rc, 2);
            CHECK_CONTAINS(out, files[f]);
            CHECK_CONTAINS(out, why[f]);
        }
    unlink(fifo);
    unlink(big);
}

/* The first control byte of what a command wrote (ESC, BEL, any C0 but tab
 * and newline, DEL, a C1 control in UTF-8 or as a raw byte), -1 when none:
 * no user-controlled text reaches the terminal raw. */
static long raw_control(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    for (long i = 0; p[i]; i++) {
        /* 0x80..0x9f after 0xc2 is a C1 control; after an ASCII byte, a
         * stray 8-bit control (a continuation byte elsewhere) */
        if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n') || p[i] == 0x7f ||
            (p[i] >= 0x80 && p[i] < 0xa0 && (i == 0 || p[i - 1] == 0xc2 || p[i - 1] < 0x80)))
            return i;
    }
    return -1;
}

/* A folder whose name carries ESC ] 0 ; ... BEL (retitles a terminal),
 * ESC [ 2 J (clears it), an 8-bit CSI in UTF-8 and raw, with a monitor_v2
 * tree (a bad row: a warning naming the file) and two dumps whose node
 * name carries the same: overflow (its error, warning, csv, json and the
 * --follow line) and compare (its errors, csv and --first) write none of
 * those bytes. */
static void escapes_never_raw(void) {
    if (!bin()) SKIP("PT_BIN not set");
    const char *d = pt_tmpdir("cli_esc");
    char ev[4200], f[4400], cmd[16384];
    snprintf(ev, sizeof ev, "%s/ev\x1b]0;pwned\x07il\x1b[2J\xc2\x9b" "1m\x9b" "2J", d);
    CHECK_INT(mkdir(ev, 0755), 0);
    snprintf(f, sizeof f, "%s/rank_0", ev);
    mkdir(f, 0755);
    snprintf(f, sizeof f, "%s/rank_0/module_step4-4.csv", ev);
    /* the NaN row holds a finite max too: a row all NaN would be no tensor */
    pt_write(f, "vpp_stage,step,module_name,scope,norm,max\n0,4,m.\x1b]0;x\x07" "a\x1b[2J,forward,nan,1\n0,x,m.b,forward,1,1\n");
    const char *dump = "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"data\": {"
                       "\"Functional.re\\u001b[2J\\u009blu\\u0007.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", "
                       "\"dtype\": \"torch.float32\", \"shape\": [4], \"Max\": 1, \"Min\": 0, \"Mean\": 0, \"Norm\": 1}], "
                       "\"input_kwargs\": {}, \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
                       "\"shape\": [4], \"Max\": %s, \"Min\": 0, \"Mean\": 0, \"Norm\": %s}]}}}";
    char text[2048];
    snprintf(f, sizeof f, "%s/p", ev);
    mkdir(f, 0755);
    snprintf(f, sizeof f, "%s/p/dump.json", ev);
    snprintf(text, sizeof text, dump, "NaN", "NaN");
    pt_write(f, text);
    snprintf(f, sizeof f, "%s/b", ev);
    mkdir(f, 0755);
    snprintf(f, sizeof f, "%s/b/dump.json", ev);
    snprintf(text, sizeof text, dump, "1", "1");
    pt_write(f, text);
    const char *runs[] = {
        "overflow '%s/none'",                            /* the error names the path */
        "overflow '%s'",                                 /* the warning, the text listing */
        "overflow '%s' --format csv",
        "overflow '%s' --format json",
        "overflow '%s' --follow --idle 1",               /* the following line */
        "overflow '%s/p' --format csv",
        "overflow '%s/p' --format json",
        "compare '%s/none' '%s/b'",                      /* compare's errors */
        "compare '%s/p' '%s/b' --match-config '%s/none.json'",
        "compare '%s/p' '%s/b' --csv -",
        "compare '%s/p' '%s/b' --first",
        "compare '%s/p' '%s/b'",
        "compare '%s/rank_0' '%s/b' --bogus\x1b[2J",
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char line[12000];
        snprintf(line, sizeof line, runs[i], ev, ev, ev);
        snprintf(cmd, sizeof cmd, "timeout 20 '%s' %s </dev/null 2>&1", bin(), line);
        int rc = run(cmd, out, sizeof out);
        CHECK(rc >= 0 && rc <= 2);
        long at = raw_control(out);
        if (at >= 0) fprintf(stderr, "%s: a raw control byte at %ld: %.200s\n", runs[i], at, out);
        CHECK_INT(at, -1);
        CHECK(strlen(out) > 0);
    }
    /* what the bytes became: pt_escape's notation */
    snprintf(cmd, sizeof cmd, "timeout 20 '%s' overflow '%s/none' 2>&1", bin(), ev);
    run(cmd, out, sizeof out);
    CHECK_CONTAINS(out, "ev\\x1b]0;pwned\\x07il\\x1b[2J\\u009b1m\\x9b2J/none");
    snprintf(cmd, sizeof cmd, "timeout 20 '%s' overflow '%s' --format csv 2>/dev/null", bin(), ev);
    run(cmd, out, sizeof out);
    CHECK_CONTAINS(out, "m.\\x1b]0;x\\x07a\\x1b[2J");
    snprintf(cmd, sizeof cmd, "timeout 20 '%s' overflow '%s/p' --format json 2>/dev/null", bin(), ev);
    run(cmd, out, sizeof out);
    CHECK_CONTAINS(out, "Functional.re\\u001b[2J\\u009blu\\u0007");
}

/* info writes steps as the panes do: step 1 of quick_start opened alone
 * is micro steps 1.0..1.9 (not 1..10), the whole run 0.0..1.9. */
static void info_steps(void) {
    const char *g = pt_fixture("examples/quick_start/gpu_dump");
    if (!bin() || !g) SKIP("PT_BIN or fixtures absent");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' info '%s/step1' 2>&1", bin(), g);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "steps       10 (1.0..1.9), micro steps of 1 step\n");
    snprintf(cmd, sizeof cmd, "'%s' info '%s' 2>&1", bin(), g);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "steps       21 (0.0..1.9), micro steps of 2 steps\n");
}

/* One spelling for options: msProbe's --micro_step, and --micro-step
 * alike, for the analyzer and every command; --help documents the
 * first. */
static void option_spellings(void) {
    const char *g = pt_fixture("examples/quick_start/gpu_dump");
    if (!bin() || !g) SKIP("PT_BIN or fixtures absent");
    char cmd[8192];
    static const char *const spell[] = {"--micro_step", "--micro-step", "--micro_step=", "--micro-step="};
    for (int i = 0; i < 4; i++) {
        int eq = spell[i][strlen(spell[i]) - 1] == '=';
        snprintf(cmd, sizeof cmd, "'%s' info '%s' %s%sfalse 2>&1", bin(), g, spell[i], eq ? "" : " ");
        CHECK_INT(run(cmd, out, sizeof out), 0);
        CHECK_CONTAINS(out, "steps       2 (0..1)\n");
        /* the analyzer takes both (a bad value says the option's name) */
        snprintf(cmd, sizeof cmd, "'%s' --demo %s%smaybe 2>&1", bin(), spell[i], eq ? "" : " ");
        CHECK_INT(run(cmd, out, sizeof out), 2);
        CHECK_CONTAINS(out, "--micro_step wants true or false, not 'maybe'");
    }
    snprintf(cmd, sizeof cmd, "'%s' --help 2>&1", bin());
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "  --micro_step B ");
}

/* data2db --parallel: W=2 L=4 PP=2; each rank's dump names its layers 0..1
 * locally; rank 1's layers.0 is the model's layer index 2. */
static void parallel_rename(void) {
    char cmd[8192], p[4200];
    if (!bin()) SKIP("PT_BIN not set");
    const char *d = pt_tmpdir("cli_parallel");
    const char *rec = "{\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": 1, "
                      "\"Min\": 0, \"Mean\": 0.5, \"Norm\": 1}]}";
    for (int r = 0; r < 2; r++) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/dump/step0/rank%d'", d, r);
        CHECK_INT(system(cmd), 0);
        snprintf(p, sizeof p, "%s/dump/step0/rank%d/dump.json", d, r);
        char text[2048];
        snprintf(text, sizeof text, "{\"data\": {\"Module.decoder.layers.0.mlp.MLP.forward.0\": %s, "
                 "\"Module.decoder.layers.1.mlp.MLP.forward.0\": %s}}", rec, rec);
        pt_write(p, text);
    }
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s/dump' --db '%s/out' --micro_step false --parallel 'W=2 L=4 PP=2' 2>&1 && "
             "sqlite3 '%s/out/dump_data.trend.db' \"select d.rank || ':' || m.target_name from trend_data d join "
             "monitoring_targets m using(target_id) order by d.rank, m.target_name\"", bin(), d, d, d);
    CHECK_INT(run(cmd, out, sizeof out), 0);
    CHECK_CONTAINS(out, "0:Module.decoder.layers.0.mlp.MLP.output.0\n0:Module.decoder.layers.1.mlp.MLP.output.0\n"
                        "1:Module.decoder.layers.2.mlp.MLP.output.0\n1:Module.decoder.layers.3.mlp.MLP.output.0");
    snprintf(cmd, sizeof cmd, "'%s' data2db --data '%s/dump' --db '%s/bad' --parallel 'W=3 L=4 PP=2' 2>&1", bin(), d, d);
    CHECK_INT(run(cmd, out, sizeof out), 2);
    CHECK_CONTAINS(out, "--parallel");
}

int main(void) {
    RUN(parallel_rename);
    RUN(help_and_version);
    RUN(operands_written_once);
    RUN(full_disk);
    RUN(info_json);
    RUN(bad_paths);
    RUN(data2db_cli);
    RUN(mapping);
    RUN(side_files_not_files);
    RUN(escapes_never_raw);
    RUN(info_steps);
    RUN(option_spellings);
    PT_DONE();
}
