/* test_compare_stream: the table compare a block at a time
 * (cmp_table_open / cmp_table_next), what `probetop compare --csv` writes
 * from: the same rows, verdicts, counts and first divergence as the whole
 * table, in one block's memory; and the csv of a generated pair byte for
 * byte as the whole-table command wrote it. */
#include <stdint.h>

#include "model/compare/compare.h"
#include "model/compare/compare_run.h"
#include "pt_test.h"
#include "pt_graph.h"
#include "src/cmd/cmd.h"
#include "src/io/dump/read_graph.h"

#define STEP0 "examples/quick_start/gpu_dump/step0/proc2016"
#define STEP1 "examples/quick_start/gpu_dump/step1/proc2016"

/* Blocks of about want rows against the whole table, with and without
 * fuzzy matching. */
static void check_blocks(struct tree *npu, struct tree *bench, int fuzzy, size_t want) {
    struct cmp_opts o = {.fuzzy = fuzzy};
    struct cmp_table *whole, *t;
    struct pt_error err;
    CHECK_INT(cmp_table_new(npu, bench, &o, &whole, &err), 0);
    CHECK_INT(cmp_table_open(npu, bench, &o, &t, &err), 0);
    if (!whole || !t) { cmp_table_free(whole); cmp_table_free(t); return; }
    struct compare_run_pair ws = {0}, bs = {0};
    compare_run_pair_clear(&bs);
    CHECK_INT(compare_run_pair_from_table(&ws, whole), 0);
    size_t at = 0, blocks = 0, maxcap = 0;
    int same = 1, whole_entries = 1;
    long got;
    while ((got = cmp_table_next(t, want, &err)) > 0) {
        blocks++;
        if (t->caprows > maxcap) maxcap = t->caprows;
        CHECK_INT((long)t->nrows, got);
        if (at + t->nrows > whole->nrows) { same = 0; break; }
        same &= !memcmp(t->rows, whole->rows + at, t->nrows * sizeof *t->rows);
        /* a block starts a dump entry: the verdicts judge whole entries */
        if (at) whole_entries &= whole->rows[at - 1].rec != t->rows[0].rec;
        CHECK_INT(compare_run_pair_add_table(&bs, t), 0);
        at += t->nrows;
    }
    CHECK_INT(got, 0);
    CHECK_INT(cmp_table_next(t, want, &err), 0);   /* the end stays the end */
    CHECK(same);
    CHECK(whole_entries);
    CHECK_INT((long)at, (long)whole->nrows);
    CHECK_INT((long)t->nall, (long)whole->nrows);
    for (int l = 0; l < 3; l++) CHECK_INT((long)t->counts[l], (long)whole->counts[l]);
    /* the largest dump entry: a block ends only between entries */
    size_t maxent = 0;
    for (size_t i = 0, k; i < whole->nrows; i = k) {
        for (k = i; k < whole->nrows && whole->rows[k].rec == whole->rows[i].rec; k++) {}
        if (k - i > maxent) maxent = k - i;
    }
    if (fuzzy) CHECK_INT((long)blocks, 1);
    else {
        /* one block's memory, not the table's */
        CHECK(blocks >= whole->nrows / (want + maxent));
        CHECK(maxcap <= 2 * (want + 64 + maxent));
    }
    CHECK_INT((long)bs.nerror, (long)ws.nerror);
    CHECK_INT((long)bs.nwarning, (long)ws.nwarning);
    for (int w = 0; w < 2; w++) {
        CHECK_INT(bs.first[w].have, ws.first[w].have);
        CHECK_INT(bs.first[w].at.order, ws.first[w].at.order);
        CHECK(bs.first[w].worst == ws.first[w].worst);
        CHECK_STR(bs.first[w].name ? bs.first[w].name : "", ws.first[w].name ? ws.first[w].name : "");
    }
    compare_run_pair_clear(&ws);
    compare_run_pair_clear(&bs);
    cmp_table_free(whole);
    cmp_table_free(t);
}

static void test_blocks_quick_start(void) {
    struct tree *npu = pt_graph_load(STEP0, 0), *bench = pt_graph_load(STEP1, 0);
    if (!npu || !bench) { tree_free(npu); tree_free(bench); SKIP("fixtures absent"); }
    check_blocks(npu, bench, 0, 100);
    check_blocks(npu, bench, 0, 1);
    check_blocks(npu, bench, 0, 5000);   /* more than the table: one block */
    check_blocks(npu, bench, 1, 100);
    check_blocks(bench, npu, 0, 257);
    tree_free(npu);
    tree_free(bench);
}

/* FNV-1a of a file's bytes; 0 when unreadable. */
static uint64_t file_hash(const char *path, long *size) {
    FILE *f = fopen(path, "rb");
    *size = -1;
    if (!f) return 0;
    uint64_t h = 1469598103934665603ull;
    int c;
    long n = 0;
    while ((c = getc(f)) != EOF) {
        h = (h ^ (uint64_t)(unsigned char)c) * 1099511628211ull;
        n++;
    }
    fclose(f);
    *size = n;
    return h;
}

/* A generated pair (one drifted MLP, other seeds) of 21 268 rows, more
 * than one block: the csv, and the --out csv, are the bytes the whole-table command
 * wrote (its hash recorded from that command). */
static void test_csv_bytes_generated(void) {
    const char *dir = pt_tmpdir("compare_stream");
    char p[1200], b[1200], npu[1300], bench[1300], csv[1200], odir[1200], pcsv[1300], out[1200], err[1200];
    if (pt_gen_pair(dir, "--steps 1 --ranks 1 --layers 20 --micro-batches 4 --level mix --quiet --jobs 1",
                    "--seed 2 --drift 1.5:layers.3.mlp", p, b, sizeof p) != 0)
        SKIP("PT_PYTHON or tests/gen_dump.py absent");
    snprintf(npu, sizeof npu, "%s/step0/rank0", p);
    snprintf(bench, sizeof bench, "%s/step0/rank0", b);
    snprintf(csv, sizeof csv, "%s/out.csv", dir);
    snprintf(odir, sizeof odir, "%s/outdir", dir);
    snprintf(pcsv, sizeof pcsv, "%s/compare_result_rank0.csv", odir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *argv[] = {"compare", npu, bench, "--csv", csv, "--out", odir};
    CHECK_INT(pt_capture(out, err, cmd_compare_entry.run, 7, argv), EXIT_FOUND);
    char *so = pt_slurp(out);
    CHECK_CONTAINS(so, "step 0 rank 0: 21268 rows (pass 20942, warning 166, error 160)");
    CHECK_CONTAINS(so, "first divergence: Functional.linear.14.forward in ");
    free(so);
    long size;
    uint64_t h = file_hash(csv, &size);
    CHECK_INT(size, 16390384);
    CHECK(h == 0xd70b5a46ce747f8full);
    if (h != 0xd70b5a46ce747f8full) fprintf(stderr, "csv hash %016llx\n", (unsigned long long)h);
    h = file_hash(pcsv, &size);
    CHECK_INT(size, 16390384);
    CHECK(h == 0xd70b5a46ce747f8full);
}

int main(void) {
    RUN(test_blocks_quick_start);
    RUN(test_csv_bytes_generated);
    PT_DONE();
}
