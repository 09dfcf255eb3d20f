/* test_readme_demo: the README's demo examples run as written.  The lines
 * between `<!-- readme-demo: begin -->` and `<!-- readme-demo: end -->`
 * that start with `probetop ` are run in order (the program from PT_BIN,
 * /tmp/demo replaced by a scratch folder, the first line being `probetop
 * demo --write /tmp/demo`), each checked for its exit code and a line of
 * its output (stdout and stderr) that the demo's planted facts give
 * (src/io/demo/demo_files.h: the NaN born on rank 2 at step 2 in
 * Functional.linear.6.forward, received by rank 6; the logs parting at
 * iteration 2; rank 3 the straggler; the drift's anomaly report on rank 4
 * at step 1 before the NaN's).  A README line this table does not know, or
 * an entry no README line uses, fails: the README and the test move
 * together. */
#include "pt_test.h"

#include <sys/wait.h>

struct example {
    const char *starts;   /* the command, /tmp/demo as written, up to its comment */
    int exit;
    const char *line;     /* in the output; "" nothing to look for */
    const char *file;     /* a file it writes (relative to the demo folder), or NULL */
};

static const struct example examples[] = {
    {"probetop demo --write /tmp/demo", 0, "wrote /tmp/demo: a problem run and its benchmark (4 steps x 8 ranks", NULL},
    {"probetop info /tmp/demo/problem/dump", 0, "ranks       8 (0..7)", NULL},
    {"probetop overflow /tmp/demo/problem/dump", 1,
     "first occurrence: critical at step 2 micro step 0, rank 2, position 35 (born here: origin across ranks)", NULL},
    {"probetop compare /tmp/demo/problem/dump /tmp/demo/bench/dump --first", 1,
     "       received from rank 2, position 46: Distributed.send.0.forward", NULL},
    {"probetop curves /tmp/demo/problem/train.log /tmp/demo/bench/train.log --dump /tmp/demo/problem/dump", 1,
     "first misaligned step: 2 ", NULL},
    {"probetop trace /tmp/demo/problem/trace --per-step", 0, "\n0                 3 ", NULL},
    {"probetop overflow /tmp/demo/problem/monitor", 1,
     "  high          1     0     4   1   0    23 forward   AnomalyTurbulence norm", NULL},
    {"probetop report /tmp/demo/problem/dump /tmp/demo/bench/dump --curves /tmp/demo/problem/train.log --out "
     "/tmp/demo/ticket.md", 1, "", "ticket.md"},
    {"probetop data2db --data /tmp/demo/problem/dump --db /tmp/demo/db", 0, "steps 0..3, ranks 0..7", NULL},
    {"probetop info /tmp/demo/db", 0, "format      trenddb", NULL},
    {"probetop parallel --world-size 8 --num-layers 4 --tp 2 --pp 2", 0, "Group1: Rank2-3   0     2", NULL},
};
#define NEX (sizeof examples / sizeof examples[0])

static char out[1 << 20];

static int run(const char *cmdline) {
    FILE *p = popen(cmdline, "r");
    size_t k = 0;
    if (!p) return -1;
    while (k + 1 < sizeof out) {
        size_t r = fread(out + k, 1, sizeof out - 1 - k, p);
        if (r == 0) break;
        k += r;
    }
    out[k] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* s with every "/tmp/demo" replaced by dir, into o (n bytes). */
static void replace(const char *s, const char *dir, char *o, size_t n) {
    size_t k = 0;
    while (*s && k + 1 < n) {
        if (!strncmp(s, "/tmp/demo", 9)) {
            k += (size_t)snprintf(o + k, n - k, "%s", dir);
            s += 9;
        } else {
            o[k++] = *s++;
        }
    }
    o[k < n ? k : n - 1] = '\0';
}

/* The README's marked command lines, comments cut, into v (at most max). */
static int readme_lines(char *text, char **v, int max) {
    char *b = strstr(text, "<!-- readme-demo: begin -->"), *e = strstr(text, "<!-- readme-demo: end -->");
    CHECK(b && e && b < e);
    if (!b || !e || b > e) return 0;
    *e = '\0';
    int n = 0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "probetop ", 9)) continue;
        char *hash = strstr(line, "  #");
        if (hash) *hash = '\0';
        size_t len = strlen(line);
        while (len && line[len - 1] == ' ') line[--len] = '\0';
        if (n < max) v[n++] = line;
    }
    return n;
}

static void test_examples(void) {
    const char *bin = getenv("PT_BIN"), *src = getenv("PT_SRC");
    if (!bin || !src) SKIP("PT_BIN or PT_SRC not set");
    char path[4200];
    snprintf(path, sizeof path, "%s/README.md", src);
    char *text = pt_slurp(path);
    CHECK(text != NULL);
    if (!text) return;
    const char *tmp = pt_tmpdir("readme");
    CHECK(tmp != NULL);
    if (!tmp) { free(text); return; }
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/demo", tmp);   /* demo --write makes it */
    char *lines[64];
    int n = readme_lines(text, lines, 64);
    CHECK(n >= 10);
    CHECK(n > 0 && !strcmp(lines[0], examples[0].starts));   /* the files first */
    int used[NEX] = {0};
    for (int i = 0; i < n; i++) {
        const struct example *x = NULL;
        for (size_t k = 0; k < NEX; k++)
            if (!strcmp(lines[i], examples[k].starts)) { x = &examples[k]; used[k] = 1; }
        if (!x) {
            fprintf(stderr, "README example '%s' has no expectation here\n", lines[i]);
            CHECK(!"a README example this test does not know");
            continue;
        }
        char cmd[8192], want[2048];
        replace(lines[i] + 8, dir, cmd + snprintf(cmd, sizeof cmd, "'%s'", bin), sizeof cmd - strlen(bin) - 2);
        strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
        int rc = run(cmd);
        replace(x->line, dir, want, sizeof want);
        if (rc != x->exit || !strstr(out, want)) fprintf(stderr, "$ %s\n-> exit %d\n%s\n", cmd, rc, out);
        CHECK_INT(rc, x->exit);
        CHECK_CONTAINS(out, want);
        if (x->file) {
            char f[1400];
            snprintf(f, sizeof f, "%s/%s", dir, x->file);
            char *t = pt_slurp(f);
            CHECK_CONTAINS(t, "born on rank 2 micro step 0, position 35: Functional.linear.6.forward");
            CHECK_CONTAINS(t, "| nan_overflow | 3 |");   /* the problem log alone: its NaN iteration */
            free(t);
        }
    }
    for (size_t k = 0; k < NEX; k++)
        if (!used[k]) {
            fprintf(stderr, "no README example '%s'\n", examples[k].starts);
            CHECK(!"an expectation no README example uses");
        }
    free(text);
}

/* demo --write refuses a folder that holds anything, and leaves it as it
 * was; a new folder appears whole or not at all (no .part-* beside it). */
static void test_write_refuses(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    const char *tmp = pt_tmpdir("refuse");
    CHECK(tmp != NULL);
    if (!tmp) return;
    char cmd[4096], f[1200];
    snprintf(f, sizeof f, "%s/full/keep.txt", tmp);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/full' && echo mine > '%s'", tmp, f);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' demo --write '%s/full' 2>&1", bin, tmp);
    CHECK_INT(run(cmd), 2);
    CHECK_CONTAINS(out, "not empty");
    char *t = pt_slurp(f);
    CHECK_STR(t, "mine\n");
    free(t);
    snprintf(cmd, sizeof cmd, "ls -A '%s' 2>&1", tmp);
    CHECK_INT(run(cmd), 0);
    CHECK_STR(out, "full\n");
    /* an empty folder is taken */
    snprintf(cmd, sizeof cmd, "mkdir '%s/empty' && '%s' demo --write '%s/empty/' 2>&1 && ls '%s/empty' && ls -A '%s'", tmp, bin,
             tmp, tmp, tmp);
    CHECK_INT(run(cmd), 0);
    CHECK_CONTAINS(out, "bench\nproblem\nempty\nfull\n");
    snprintf(cmd, sizeof cmd, "'%s' demo 2>&1", bin);
    CHECK_INT(run(cmd), 2);
    CHECK_CONTAINS(out, "--write DIR is missing");
}

/* `probetop --demo` without a terminal says so (exit 2) before writing
 * anything under $TMPDIR. */
static void test_no_terminal(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    const char *tmp = pt_tmpdir("noterm");
    CHECK(tmp != NULL);
    if (!tmp) return;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "TMPDIR='%s' '%s' --demo </dev/null 2>&1 | cat; ls -A '%s'", tmp, bin, tmp);
    CHECK_INT(run(cmd), 0);
    CHECK_STR(out, "probetop: the analyzer needs a terminal (stdin and stdout must be a tty)\n");
}

/* The demo's trace read as HolisticTraceAnalysis reads it: HTA's temporal
 * breakdown and overlap of these files (run once with the reference tool:
 * rank 3, the straggler, idle 658 us, compute 5784 us, non-compute 1083
 * us, kernel time 7525 us, overlap 13.77 %; rank 0 idle 661, compute 3864,
 * non-compute 3000, overlap 5.50 %) are probetop trace's. */
static void test_trace_as_hta(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    const char *tmp = pt_tmpdir("hta");
    CHECK(tmp != NULL);
    if (!tmp) return;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' demo --write '%s/d' >/dev/null && '%s' trace '%s/d/problem/trace' 2>&1", bin, tmp, bin, tmp);
    CHECK_INT(run(cmd), 0);
    CHECK_CONTAINS(out, "\n   3         7525          658   8.74         5784  76.86           1083  14.39    13.77       63\n");
    CHECK_CONTAINS(out, "\n   0         7525          661   8.78         3864  51.35           3000  39.87     5.50       63\n");
}

int main(void) {
    RUN(test_examples);
    RUN(test_write_refuses);
    RUN(test_trace_as_hta);
    RUN(test_no_terminal);
    PT_DONE();
}
