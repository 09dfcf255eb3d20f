/* bench_compare: the compare figures of README.md's measurements.
 *
 *   bench_compare PROBLEM_ROOT BENCH_ROOT
 *
 * Both roots are gen_dump.py outputs (stepS/rankR folders).  Times, for
 * step 0 rank 0 (one ~15 MB pair at the reference scale): reading both
 * dumps, the table compare with every csv cell formatted (what `probetop
 * compare --csv` does), and the tree build + graph compare (what the tree
 * pane needs before its first frame); then the graph compare of all rank
 * pairs of step 0.  With PT_BIN set, also the whole `probetop compare
 * --csv` command on that pair (best and mean of 5 runs, the csv written to
 * a temporary file), which is the figure to hold against msProbe's
 * compare and graph_visualize on the same pair (README.md's table has both,
 * measured on one machine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "model/compare/compare.h"
#include "src/io/dump/read_graph.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int pair(const char *root_a, const char *root_b, int step, int rank, int csv, double *t_read, double *t_table,
                double *t_graph, size_t *rows, size_t *nodes) {
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/step%d/rank%d", root_a, step, rank);
    snprintf(b, sizeof b, "%s/step%d/rank%d", root_b, step, rank);
    struct tree *ta, *tb;
    struct pt_error err;
    double t0 = now();
    if (graph_read(a, 0, &ta, &err) != 0) { fprintf(stderr, "%s\n", err.msg); return -1; }
    if (graph_read(b, 0, &tb, &err) != 0) { fprintf(stderr, "%s\n", err.msg); tree_free(ta); return -1; }
    double t1 = now();
    if (csv) {
        /* a block of rows at a time, as the command makes and writes them */
        struct cmp_table *t;
        if (cmp_table_open(ta, tb, NULL, &t, &err) != 0) { fprintf(stderr, "%s\n", err.msg); return -1; }
        static char buf[1 << 16];
        size_t bytes = 0;
        long got;
        while ((got = cmp_table_next(t, 16384, &err)) > 0)
            for (size_t i = 0; i < t->nrows; i++)
                for (int c = 0; c < 28; c++) bytes += strlen(cmp_table_cell(t, &t->rows[i], c, buf, sizeof buf));
        *rows = t->nall;
        cmp_table_free(t);
        (void)bytes;
        if (got < 0) { fprintf(stderr, "%s\n", err.msg); return -1; }
    }
    double t2 = now();
    struct cmp_graph *g = NULL;
    if (tree_build(ta, &err) != 0 || tree_build(tb, &err) != 0 || cmp_graph_new(ta, tb, NULL, &g, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        tree_free(ta);
        tree_free(tb);
        return -1;
    }
    *nodes = ta->norder;
    cmp_first_divergence(g);
    double t3 = now();
    cmp_graph_free(g);
    tree_free(ta);
    tree_free(tb);
    *t_read = t1 - t0;
    *t_table = t2 - t1;
    *t_graph = t3 - t2;
    return 0;
}

/* Runs the command with stdout and stderr to /dev/null; its exit status. */
static int run_cmd(char *const argv[]) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); }
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void time_command(const char *bin, const char *root_a, const char *root_b) {
    char a[4096], b[4096], out[] = "/tmp/bench_compare_XXXXXX";
    snprintf(a, sizeof a, "%s/step0/rank0", root_a);
    snprintf(b, sizeof b, "%s/step0/rank0", root_b);
    int fd = mkstemp(out);
    if (fd < 0) { perror("mkstemp"); return; }
    close(fd);
    char *argv[] = {(char *)bin, "compare", a, b, "--csv", out, NULL};
    double best = 1e9, sum = 0;
    int n = 5, st = 0;
    for (int i = 0; i < n; i++) {
        double t0 = now();
        st = run_cmd(argv);
        double t = now() - t0;
        if (t < best) best = t;
        sum += t;
    }
    struct stat sb;
    long long bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
    unlink(out);
    if (st != 0 && st != 1) { fprintf(stderr, "bench_compare: %s compare exited %d\n", bin, st); return; }
    printf("probetop compare --csv (whole command, %lld-byte csv) seconds=%.3f best, %.3f mean of %d  "
           "vs msprobe compare 15 s: %.1fx\n", bytes, best, sum / n, n, 15.0 / best);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_compare PROBLEM_ROOT BENCH_ROOT\n");
        return 2;
    }
    double r, t, g;
    size_t rows = 0, nodes = 0;
    if (pair(argv[1], argv[2], 0, 0, 1, &r, &t, &g, &rows, &nodes) != 0) return 1;
    printf("compare, one rank pair (step0/rank0): read both %.3f s, table %zu rows %.3f s, "
           "tree+graph %zu nodes %.3f s\n", r, rows, t, nodes, g);
    const char *bin = getenv("PT_BIN");
    if (bin && *bin) time_command(bin, argv[1], argv[2]);
    else printf("probetop compare --csv: set PT_BIN to time the whole command\n");
    printf("tree ready (read + build + graph compare) seconds=%.3f  vs msprobe graph_visualize 14 s: %.1fx\n", r + g,
           14.0 / (r + g));
    double total = 0;
    int npairs = 0;
    for (int rank = 0; rank < 64; rank++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/step0/rank%d/dump.json", argv[1], rank);
        FILE *f = fopen(p, "r");
        if (!f) break;
        fclose(f);
        if (pair(argv[1], argv[2], 0, rank, 0, &r, &t, &g, &rows, &nodes) != 0) return 1;
        total += r + g;
        npairs++;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("graph compare of %d rank pairs (step 0) seconds=%.3f  vs msprobe 127 s for 8: %.1fx; peak RSS %ld MB\n",
           npairs, total, npairs == 8 ? 127.0 / total : 0.0, ru.ru_maxrss / 1024);
    return 0;
}
