/* test_vt_commands: the messages of the `:` commands, table-driven, so that
 * every message a user can get from the `:` prompt is shown by a test.
 *
 * Each table row is a command line typed at the `:` prompt of the real
 * binary and a text the screen must show after it: the usage line, the
 * refusal of a bad argument, the answer of a pane that cannot do it.  The
 * texts are the program's messages; a row fails when the message
 * changes or never appears (VT_WAIT fails with the screen).  One session
 * per input kind: the demo (trend data), the demo with --ascii, two compared
 * dumps (the tree's commands), a single dump.  Consecutive rows expect
 * different texts, so a stale message is never taken for the answer. */
#include "pt_test.h"
#include "screen/vt.h"

#include <sys/wait.h>

#define QS "examples/quick_start/gpu_dump"

struct row {
    const char *line;      /* typed after ':' */
    const char *want;      /* on screen once the command ran */
};

/* Types each row's command and waits for its text; a row whose text is on
 * screen before the command is a table bug (it would pass on a stale
 * message). */
static void run_rows(struct vt *vt, const struct row *rows, size_t n) {
    for (size_t i = 0; i < n && !vt->broken; i++) {
        if (vt_has(vt, rows[i].want)) {
            fprintf(stderr, "row %zu (:%s): \"%s\" is on screen before the command\n", i, rows[i].line, rows[i].want);
            CHECK(!vt_has(vt, rows[i].want));
            vt_dump(vt, stderr);
            continue;
        }
        char keys[600];
        snprintf(keys, sizeof keys, ":%s<Enter>", rows[i].line);
        vt_send(vt, keys);
        VT_WAIT(vt, vt_has(vt, rows[i].want));
        CHECK(vt_has(vt, rows[i].want));
    }
}

static void quit(struct vt *vt) {
    vt_send(vt, "<Esc>:q<Enter>");
    int st = -1;
    CHECK_INT(vt_wait_exit(vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    vt_close(vt);
}

/* The demo: the global commands, the heat map's, the line chart's and the
 * layout pane's, with no parallel layout set. */
static const struct row demo_rows[] = {
    { "nosuch", "no command ':nosuch' (? lists them)" },
    { "step", "usage: :step N" },
    { "step x", ":step wants a step number, not 'x'" },
    { "step 99", "no step 99 (steps 0..15)" },
    { "rank", "usage: :rank N" },
    { "rank y", ":rank wants a rank number, not 'y'" },
    { "rank 99", "no rank 99 (ranks 0..7)" },
    { "metric", "usage: :metric NAME" },
    { "metric nope", "no metric 'nope' (there are: forward" },
    { "stat", "usage: :stat NAME" },
    { "stat nope", "has no statistic 'nope' (it has: norm" },
    { "dim", "usage: :dim step|rank|module" },
    { "dim x", ":dim wants step, rank or module, not 'x'" },
    { "goto", "usage: :goto TARGET (a full name or a unique part of one)" },
    { "goto zzzz", "no target matches 'zzzz'" },
    { "view", "usage: :view NAME" },
    { "view nope", "no pane or screen 'nope' for this input" },
    { "range", "usage: :range LO HI (values; cells outside are hidden)" },
    { "range 2 1", ":range wants two numbers LO < HI, got '2 1'" },
    { "range 1e30 2e30", "1e30..2e30 misses the slice's values" },
    { "log maybe", ":log wants on or off" },
    { "color", "usage: :color gradient|segmented" },
    { "color x", ":color wants gradient or segmented, not 'x'" },
    { "split", "usage: :split PERCENT (the heat map's share, 20..90)" },
    { "split 5", ":split wants 20..90, not '5'" },
    { "run", "usage: :run problem|bench|diff" },
    { "run x", ":run wants problem, bench or diff, not 'x'" },
    { "run bench", "the run choice needs two runs (probetop PROBLEM BENCH)" },
    { "step 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "too many arguments for :step" },
    { "zoom", "usage: :zoom X Y (source cells per screen cell, 1 = none)" },
    { "zoom 0 1", ":zoom wants two whole numbers >= 1, got '0 1'" },
    { "chart", "usage: :chart braille|half|ascii" },
    { "chart x", ":chart wants braille, half or ascii, not 'x'" },
    { "group", "usage: :group pp|dp|tp|none" },
    { "group tp", "no parallel layout to group by: set one with :parallel W=.. L=.." },
    { "group x", "group ranks by pp, dp, tp or none, not 'x'" },
    { "layers", "usage: :layers global|local" },
    { "layers x", "layers global or local, not 'x'" },
    { "layers global", "no parallel layout: set one with :parallel W=.. L=.. [TP=..] [PP=..] [V=..]" },
    { "ovf-rank", "usage: ovf-rank N|all" },
    { "ovf-step x", "ovf-step: 'x' is not a number" },
    { "ovf-rank 99", "ovf-rank: there is no rank 99" },
};

static void test_demo(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 200, 50, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    run_rows(&vt, demo_rows, sizeof demo_rows / sizeof demo_rows[0]);
    quit(&vt);
}

static const struct row ascii_rows[] = {
    { "chart braille", "braille needs a UTF-8 locale (and no --ascii)" },
    { "chart half", "half needs a UTF-8 locale (and no --ascii)" },
};

static void test_ascii(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", "--ascii", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 200, 50, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    run_rows(&vt, ascii_rows, sizeof ascii_rows / sizeof ascii_rows[0]);
    quit(&vt);
}

/* The demo with a layout its data fits (one pipeline stage): global layer
 * names, then a layout that contradicts them. */
static const struct row layout_rows[] = {
    { "layers global", "layers.N is now the global layer index" },
    { "parallel W=8 L=8 TP=2 PP=2", "layout set, names stay local: " },
};

static void test_layout(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", "--parallel", "W=8 L=8 TP=2", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 200, 50, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    run_rows(&vt, layout_rows, sizeof layout_rows / sizeof layout_rows[0]);
    quit(&vt);
}

/* Two compared dumps: the tree screen's own commands. */
static const struct row compare_rows[] = {
    { "node", "usage: :node NAME" },
    { "node zzzz", "no node 'zzzz' in this graph" },
    { "node Module", "nodes contain 'Module': be more specific" },
    { "step", "usage: :step N" },
    { "step x", ":step wants a number, not 'x'" },
    { "step 99", "no graph for step 99 rank" },
    { "rank", "usage: :rank N" },
    { "rank y", ":rank wants a number, not 'y'" },
    { "save-match", "usage: :save-match FILE" },
    { "match", "usage: :match PROBLEM_NODE BENCH_NODE" },
    { "match zzzz DefaultModel", "no node 'zzzz' in this graph" },
    { "match DefaultModel DefaultModel", "DefaultModel is matched already" },
    { "save-match /nonexistent/x/m.yaml", "/nonexistent/x/m.yaml: No such file or directory" },
    { "match Module.fc.Linear.parameters_grad.0 DefaultModel", "benchmark DefaultModel is matched already" },
};

static void test_compare(void) {
    const char *p = pt_fixture(QS "/step0/proc2016"), *b = pt_fixture(QS "/step1/proc2016");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!p || !b) SKIP("quick_start fixtures absent");
    const char *args[] = { p, b, NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 200, 50, args, NULL), 0);
    /* the tree's cursor (U+25B6): the graphs are loaded */
    VT_WAIT(&vt, vt_has(&vt, "Tree") && vt_has(&vt, "\xe2\x96\xb6"));
    run_rows(&vt, compare_rows, sizeof compare_rows / sizeof compare_rows[0]);
    quit(&vt);
}

/* One dump: no benchmark to match against. */
static const struct row single_rows[] = {
    { "match a b", "manual matching needs two compared runs" },
    { "run bench", "the run choice needs two runs (probetop PROBLEM BENCH)" },
};

static void test_single(void) {
    const char *p = pt_fixture(QS "/step0/proc2016");
    if (!vt_bin()) SKIP("PT_BIN not set");
    if (!p) SKIP("quick_start fixtures absent");
    const char *args[] = { p, NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 200, 50, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    run_rows(&vt, single_rows, sizeof single_rows / sizeof single_rows[0]);
    quit(&vt);
}

/* Messages before the screen starts: the program says why and exits 2. */
struct start_row {
    const char *args[6];   /* "QS0"/"QS1": the quick_start dumps of step 0/1 */
    const char *env[2];
    const char *want;
};

static const struct start_row start_rows[] = {
    { { "--demo=trend" }, { "TERM=probetop-no-such-term" },
      "cannot start the terminal 'probetop-no-such-term' (is its terminfo entry installed?)" },
    { { "QS0", "QS1", "--match-config", "/nonexistent/m.yaml" }, { NULL },
      "probetop: --match-config /nonexistent/m.yaml: cannot open" },
};

static void test_startup(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *qs[2] = { pt_fixture(QS "/step0/proc2016"), pt_fixture(QS "/step1/proc2016") };
    for (size_t i = 0; i < sizeof start_rows / sizeof start_rows[0]; i++) {
        const struct start_row *r = &start_rows[i];
        const char *args[7] = { NULL };
        int ok = 1;
        for (int k = 0; k < 6 && r->args[k]; k++) {
            args[k] = !strcmp(r->args[k], "QS0") ? qs[0] : !strcmp(r->args[k], "QS1") ? qs[1] : r->args[k];
            if (!args[k]) ok = 0;
        }
        if (!ok) { fprintf(stderr, "row %zu: quick_start fixtures absent\n", i); pt_skip++; continue; }
        struct vt vt;
        CHECK_INT(vt_spawn_app(&vt, 120, 10, args, r->env[0] ? r->env : NULL), 0);
        VT_WAIT(&vt, vt_has(&vt, r->want));
        int st = -1;
        CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
        vt_close(&vt);
    }
}

/* stdin not a tty: the shell gives it /dev/null, the message comes out on
 * the pty. */
static void test_not_a_tty(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    int st = -1;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "exec '%s' --demo=trend </dev/null", vt_bin());
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    CHECK_INT(vt_spawn(&vt, 120, 10, argv, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "the analyzer needs a terminal (stdin and stdout must be a tty)"));
    CHECK_INT(vt_wait_exit(&vt, 0, &st), 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0);
    vt_close(&vt);
}

int main(void) {
    RUN(test_demo);
    RUN(test_ascii);
    RUN(test_layout);
    RUN(test_compare);
    RUN(test_single);
    RUN(test_startup);
    RUN(test_not_a_tty);
    PT_DONE();
}
