/* fuzz_compare: two rank folders compared end to end, as `probetop
 * compare` and the compare panes do: input "problem dump.json \x1e bench
 * dump.json [\x1e construct.json]" (the construct.json, when given, goes
 * beside both dumps; a missing bench part is an empty file).  Both are
 * read (src/io/dump/read_graph.c), the table compare made and every cell of every
 * row written out (csv), then, when both build, the graph compare with
 * every cell of every row (the detail pane), the first divergence (the
 * md5 determinism rule included), the walk over the divergent nodes and
 * the run summary of the pair.  The seeds are md5, statistics-of-tensor
 * and null-item pairs. */
#include "fuzz.h"

#include "model/compare/compare.h"
#include "model/compare/compare_run.h"
#include "src/io/dump/read_graph.h"

static const char *const side[2] = {"npu", "bench"};

/* Writes one side's folder: its dump.json and, when given, construct.json. */
static void write_side(int s, const uint8_t *dump, size_t dlen, const uint8_t *cons, size_t clen, int has_cons) {
    char p[1024], f[1100];
    fuzz_path(p, sizeof p, side[s]);
    struct stat st;
    if (stat(p, &st) != 0 && mkdir(p, 0700) != 0) { perror(p); abort(); }
    snprintf(f, sizeof f, "%s/dump.json", side[s]);
    fuzz_write(f, dump, dlen);
    snprintf(f, sizeof f, "%s/construct.json", side[s]);
    if (has_cons) fuzz_write(f, cons, clen);
    else fuzz_unlink(f);
}

/* Every cell's text, as the csv writer and the detail pane ask for it. */
static size_t table_cells(const struct cmp_table *t) {
    char buf[4096];
    size_t n = 0;
    int nc = cmp_table_ncols(t);
    for (int c = 0; c < nc; c++) n += strlen(cmp_table_colname(t, c) ? cmp_table_colname(t, c) : "");
    for (size_t r = 0; r < t->nrows; r++)
        for (int c = 0; c < nc; c++) n += strlen(cmp_table_cell(t, &t->rows[r], c, buf, sizeof buf));
    return n;
}

static size_t graph_cells(const struct cmp_graph *g) {
    char buf[4096];
    size_t n = 0;
    int nc = 0;
    for (const char *const *h = cmp_header(g->mode); *h; h++) nc++;
    for (size_t r = 0; r < g->nrows; r++)
        for (int c = 0; c < nc; c++) n += strlen(cmp_graph_cell(g, &g->rows[r], c, buf, sizeof buf));
    return n;
}

static void graph_walk(const struct cmp_graph *g) {
    int first = cmp_first_divergence(g);
    if (first >= 0) (void)cmp_node_nondeterministic(g, first);
    int steps = 0;
    for (int n = cmp_next_divergent(g, -1, 1); n >= 0 && steps < 100000; n = cmp_next_divergent(g, n, 1), steps++)
        (void)cmp_node_level(g, n);
    struct compare_run_pair p;
    memset(&p, 0, sizeof p);
    if (compare_run_pair_from_graph(&p, g) == 0) {
        int which;
        (void)compare_run_first(&p, 1, &which);
    }
    compare_run_pair_clear(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[3];
    size_t len[3];
    int n = fuzz_split(data, size, part, len, 3);
    for (int s = 0; s < 2; s++)
        write_side(s, s < n ? part[s] : (const uint8_t *)"", s < n ? len[s] : 0, n > 2 ? part[2] : NULL,
                   n > 2 ? len[2] : 0, n > 2);
    struct tree *t[2] = {NULL, NULL};
    struct pt_error err;
    int ok = 1;
    for (int s = 0; s < 2 && ok; s++) {
        char p[1024];
        fuzz_path(p, sizeof p, side[s]);
        ok = graph_read(p, 0, &t[s], &err) == 0 && t[s];
    }
    if (ok) {
        struct cmp_opts o = {0};
        struct cmp_table *tb = NULL;
        if (cmp_table_new(t[0], t[1], &o, &tb, &err) == 0) {
            (void)table_cells(tb);
            struct compare_run_pair p;
            memset(&p, 0, sizeof p);
            (void)compare_run_pair_from_table(&p, tb);
            compare_run_pair_clear(&p);
            cmp_table_free(tb);
        }
        struct cmp_graph *g = NULL;
        if (tree_build(t[0], &err) == 0 && tree_build(t[1], &err) == 0 && cmp_graph_new(t[0], t[1], &o, &g, &err) == 0) {
            (void)graph_cells(g);
            graph_walk(g);
            cmp_graph_free(g);
        }
    }
    tree_free(t[0]);
    tree_free(t[1]);
    return 0;
}
