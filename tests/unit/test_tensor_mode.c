/* test_tensor_mode: a tensor-mode pair written by the test (dump.json with
 * "task": "tensor" and data_name fields, .npy files in dump_tensor_data)
 * through `probetop compare --csv -` and through cmp_graph: the 25 columns
 * plus Data_name, the metric values, Result and Err_message, rules E3, W2
 * and E7, a missing file, an unmatched entry; and .pt files falling back to
 * statistics. */
#include "pt_test.h"
#include "npy_write.h"
#include "tensor_pair.h"
#include "model/compare/compare.h"
#include "model/compare/tensorcmp.h"
#include "src/cmd/cmd.h"
#include "src/io/dump/read_graph.h"
#include "src/io/dump/read_npy.h"

static char root[2048];

static int make_pair(const char *name, const char *ext, char *npu, char *bench, size_t size) {
    snprintf(npu, size, "%s/%s/npu/rank0", root, name);
    snprintf(bench, size, "%s/%s/bench/rank0", root, name);
    return tp_write_side(npu, 0, ext) == 0 && tp_write_side(bench, 1, ext) == 0 ? 0 : -1;
}

static const char *const header =
    "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,NPU Requires_grad,"
    "Bench Requires_grad,Cosine,EucDist,MaxAbsErr,MaxRelativeErr,One Thousandth Err Ratio,Five Thousandths Err Ratio,"
    "NPU max,NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,Requires_grad Consistent,Result,"
    "Err_message,NPU_Stack_Info,Data_name";   /* the pair has a stack.json ({}): msProbe adds the column */

static void test_csv(void) {
    char npu[2200], bench[2200], out[2400], errf[2400];
    CHECK_INT(make_pair("csv", ".npy", npu, bench, sizeof npu), 0);
    snprintf(out, sizeof out, "%s/csv.out", root);
    snprintf(errf, sizeof errf, "%s/csv.err", root);
    const char *argv[] = {"compare", npu, bench, "--csv", "-"};
    int rc = pt_capture(out, errf, cmd_compare_entry.run, 5, argv);
    CHECK_INT(rc, 1);                         /* errors present */
    char *text = pt_slurp(out), *e = pt_slurp(errf);
    CHECK(text != NULL);
    if (!text) { free(e); return; }
    CHECK_CONTAINS(e, "1 tensor files could not be read");
    CHECK_CONTAINS(e, "Functional.relu.0.forward.output.0.npy");
    char *p = text;
    char *h = p, *nl = strchr(p, '\n');
    if (nl) { *nl = '\0'; p = nl + 1; }
    CHECK_STR(h, header);
    char *f[40];
    char *rows[9][40];
    int nf[9], nrows = 0;
    while (nrows < 9 && (nf[nrows] = pt_csv_record(&p, f, 40)) > 0) {
        memcpy(rows[nrows], f, sizeof f);
        nrows++;
    }
    CHECK_INT(nrows, 9);
    if (nrows < 9) { free(text); free(e); return; }
    for (int i = 0; i < 9; i++) CHECK_INT(nf[i], 27);
    /* add: input identical, output off by 0.1 in one of four */
    CHECK_STR(rows[0][0], "Functional.add.0.forward.input.0");
    CHECK_STR(rows[0][8], "1.0");
    CHECK_STR(rows[0][9], "0.0");
    CHECK_STR(rows[0][12], "1.0");
    CHECK_STR(rows[0][23], "pass");
    CHECK_STR(rows[0][24], "[]");
    CHECK_STR(rows[0][25], "N/A");            /* NPU_Stack_Info: stack.json names no entry */
    CHECK_STR(rows[0][26], "['Functional.add.0.forward.input.0.npy', 'Functional.add.0.forward.input.0.npy']");
    CHECK_STR(rows[1][8], "0.999924");
    CHECK_STR(rows[1][9], "0.09999990463256836");
    CHECK_STR(rows[1][10], "0.099999904633");
    CHECK_STR(rows[1][11], "0.024999976158");
    CHECK_STR(rows[1][12], "0.75");
    CHECK_STR(rows[1][13], "0.75");
    CHECK_STR(rows[1][14], "4");              /* NPU max from dump.json */
    CHECK_STR(rows[1][23], "pass");
    /* mul: the int argument has no file; the output flips sign (E3, W2) */
    CHECK_STR(rows[3][0], "Functional.mul.0.forward.input.1");
    for (int c = 8; c < 14; c++) CHECK_STR(rows[3][c], "unsupported");
    CHECK_STR(rows[3][24], "[\"NPU does not have data file.\"]");
    CHECK_STR(rows[3][26], "['-1', '-1']");
    CHECK_STR(rows[4][8], "-1.0");
    CHECK_STR(rows[4][9], "21.908902300206645");
    CHECK_STR(rows[4][10], "16.0");
    CHECK_STR(rows[4][11], "2.0");
    CHECK_STR(rows[4][12], "0.0");
    CHECK_STR(rows[4][23], "error");
    CHECK_STR(rows[4][24], "[\"error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.\", "
                           "\"warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1\"]");
    /* relu: shapes differ; the benchmark's output file is missing */
    for (int c = 8; c < 14; c++) CHECK_STR(rows[5][c], "shape unmatched");
    CHECK_STR(rows[5][23], "error");
    CHECK_STR(rows[5][24], "[\"Shape of NPU and bench tensor do not match. Skipped.\", "
                           "\"error: The shape of NPU and Bench are inconsistent.\"]");
    for (int c = 8; c < 14; c++) CHECK_STR(rows[6][c], "unsupported");
    CHECK_STR(rows[6][24], "[\"Dump file: Functional.relu.0.forward.output.0.npy or "
                           "Functional.relu.0.forward.output.0.npy not found or read failed.\"]");
    /* sub: no benchmark entry */
    CHECK_STR(rows[7][1], "N/A");
    for (int c = 8; c < 14; c++) CHECK_STR(rows[7][c], "unsupported");
    CHECK_STR(rows[7][18], "N/A");
    CHECK_STR(rows[7][24], "[\"Bench api/module unmatched.\"]");
    CHECK_STR(rows[7][26], "['Functional.sub.0.forward.input.0.npy', 'N/A']");
    free(text);
    free(e);
}

static void test_graph(void) {
    char npu[2200], bench[2200];
    CHECK_INT(make_pair("graph", ".npy", npu, bench, sizeof npu), 0);
    struct tree *a = NULL, *b = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(npu, GRAPH_BUILD, &a, &err), 0);
    CHECK_INT(graph_read(bench, GRAPH_BUILD, &b, &err), 0);
    if (!a || !b) { tree_free(a); tree_free(b); return; }
    struct cmp_opts o;
    memset(&o, 0, sizeof o);
    CHECK(npy_setup_opts(&o, a, b) == NULL);
    struct cmp_graph *g = NULL;
    CHECK_INT(cmp_graph_new(a, b, &o, &g, &err), 0);
    if (!g) { tree_free(a); tree_free(b); return; }
    CHECK_INT(g->mode, CMP_TENSOR);
    CHECK_INT(g->tensor_failed, 1);
    int add = tree_find(a, "Functional.add.0.forward"), mul = tree_find(a, "Functional.mul.0.forward");
    int relu = tree_find(a, "Functional.relu.0.forward"), sub = tree_find(a, "Functional.sub.0.forward");
    CHECK_INT(g->nodes[add].index, CL_PASS);
    CHECK_INT(g->nodes[mul].index, CL_ERROR);
    CHECK_INT(g->nodes[relu].index, CL_ERROR);
    CHECK_INT(g->nodes[sub].bench, -1);
    CHECK_INT(cmp_first_divergence(g), mul);
    CHECK_NEAR(g->nodes[mul].worst_rel, 2.0, 0);
    char buf[1024];
    const struct crow *r = &g->rows[g->nodes[add].row0 + 1];
    CHECK_STR(cmp_graph_cell(g, r, 8, buf, sizeof buf), "0.999924");
    CHECK_STR(cmp_graph_cell(g, r, 11, buf, sizeof buf), "0.024999976158");
    CHECK_STR(cmp_graph_cell(g, r, 23, buf, sizeof buf), "pass");
    r = &g->rows[g->nodes[mul].row0 + 2];
    CHECK_STR(cmp_graph_cell(g, r, 0, buf, sizeof buf), "Functional.mul.0.forward.output.0");
    CHECK_STR(cmp_graph_cell(g, r, 8, buf, sizeof buf), "-1.0");
    CHECK_STR(cmp_graph_cell(g, r, 23, buf, sizeof buf), "error");
    CHECK_CONTAINS(cmp_graph_cell(g, r, 24, buf, sizeof buf), "Cosine > 0.9");
    /* manual match after an unmatch reloads the tensors */
    CHECK_INT(cmp_unmatch(g, mul, &err), 0);
    CHECK_INT(cmp_manual_match(g, mul, tree_find(b, "Functional.mul.0.forward"), 0, &err), 0);
    CHECK_INT(g->nodes[mul].index, CL_ERROR);
    r = &g->rows[g->nodes[mul].row0 + 2];
    CHECK_STR(cmp_graph_cell(g, r, 9, buf, sizeof buf), "21.908902300206645");
    cmp_graph_free(g);
    /* without a loader the same dumps compare on statistics */
    struct cmp_opts none;
    memset(&none, 0, sizeof none);
    CHECK_INT(cmp_graph_new(a, b, &none, &g, &err), 0);
    if (g) {
        CHECK_INT(g->mode, CMP_SUMMARY);
        CHECK_STR(cmp_graph_cell(g, &g->rows[g->nodes[mul].row0 + 2], 8, buf, sizeof buf), "0");   /* Max diff of two ints */
        cmp_graph_free(g);
    }
    tree_free(a);
    tree_free(b);
}

static void test_pt_fallback(void) {
    char npu[2200], bench[2200], out[2400], errf[2400];
    CHECK_INT(make_pair("pt", ".pt", npu, bench, sizeof npu), 0);
    snprintf(out, sizeof out, "%s/pt.out", root);
    snprintf(errf, sizeof errf, "%s/pt.err", root);
    const char *argv[] = {"compare", npu, bench, "--csv", "-"};
    pt_capture(out, errf, cmd_compare_entry.run, 5, argv);
    char *text = pt_slurp(out), *e = pt_slurp(errf);
    CHECK_CONTAINS(e, "tensor files are PyTorch .pt: comparing statistics");
    CHECK(text && !strncmp(text, "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,"
                                 "NPU Requires_grad,Bench Requires_grad,Max diff,", 120));
    CHECK(text && !strstr(text, "Data_name"));
    free(text);
    free(e);
}

int main(void) {
    const char *d = pt_tmpdir("tensor_mode");
    if (!d) return 1;
    snprintf(root, sizeof root, "%s", d);
    RUN(test_csv);
    RUN(test_graph);
    RUN(test_pt_fallback);
    PT_DONE();
}
