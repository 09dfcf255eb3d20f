/* Layer mapping (model/graph/layermap, the YAML reader of src/io/compare/cmp_files) and
 * fuzzy matching (model/compare) against msProbe's own cases:
 *  - the MindSpore-vs-PyTorch pair of msProbe's layer-mapping unit tests
 *    (test/resources/layer_mapping, the construct.json and stack.json read
 *    in place; the 13-entry dump.json of msprobe's mindspore_ut test is
 *    rewritten here from its entry names), asserting the map msProbe's
 *    test asserts;
 *  - a gen_dump.py pair whose problem side has module attributes renamed,
 *    with a YAML renaming them back: the same matches and verdicts as the
 *    unrenamed pair;
 *  - bad YAML;
 *  - fuzzy matching: the quick_start pair with call counters shifted on one
 *    side matches what exact matching matched on the unshifted pair, and
 *    the API key is Python's non-overlapping re.sub. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/compare.h"
#include "model/graph/layermap.h"
#include "src/io/compare/cmp_files.h"
#include "src/io/dump/read_graph.h"
#include "tests/pt_test.h"

static int sh(const char *cmd) { return system(cmd); }

/* A rank folder: dump.json with the given entries (one small tensor in, one
 * out), and construct.json / stack.json copied from src (NULL: none). */
static int make_side(const char *dir, const char *framework, const char *const *names, size_t n, const char *src) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (sh(cmd) != 0) return -1;
    if (src) {
        snprintf(cmd, sizeof cmd, "cp '%s/construct.json' '%s/stack.json' '%s/' && chmod u+w '%s'/*.json", src, src,
                 dir, dir);
        if (sh(cmd) != 0) return -1;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const char *ty = strcmp(framework, "mindspore") ? "torch.Tensor" : "mindspore.Tensor";
    fprintf(f, "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"%s\", \"dump_data_dir\": null, "
               "\"data\": {", framework);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s\n\"%s\": {\"input_args\": [{\"type\": \"%s\", \"dtype\": \"Float32\", \"shape\": [2], "
                   "\"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0}], \"output\": [{\"type\": \"%s\", "
                   "\"dtype\": \"Float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, \"Norm\": 1.0}]}",
                i ? "," : "", names[i], ty, ty);
    fprintf(f, "}}\n");
    return fclose(f);
}

static const char *const MS[] = {
    "Tensor.__add__.0.forward",
    "Tensor.__bool__.1.forward",
    "Tensor.__add__.1.forward",
    "Mint.logical_or.0.forward",
    "Distributed.all_reduce.0.forward",
    "Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
    "Primitive.norm.RmsNorm.0.forward",
    "Cell.network_with_loss.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0",
    "Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.backward.0",
    "Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0",
    "Mint.cos.0.forward",
    "Functional.flash_attention_score.0.forward",
    "Functional.flash_attention_score.0.backward",
};
static const char *const PT[] = {
    "Tensor.__add__.0.forward",
    "Tensor.__add__.1.forward",
    "Tensor.__or__.0.forward",
    "Distributed.all_reduce.0.forward",
    "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
    "NPU.npu_rms_norm.0.forward",
    "Module.module.module.language_model.encoder.layers.0.input_norm.RMSNorm.forward.0",
    "Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0",
    "Module.module.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0",
    "Torch.cos.0.forward",
    "NPU.npu_fusion_attention.0.forward",
    "NPU.npu_fusion_attention.0.backward",
};
/* msprobe test/mindspore_ut/compare/test_layer_mapping.py, expected api mapping */
static const char *const EXPECT[] = {
    "N/A",
    "N/A",
    "Tensor.__add__.0.forward",
    "Tensor.__or__.0.forward",
    "Distributed.all_reduce.0.forward",
    "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
    "NPU.npu_rms_norm.0.forward",
    "Module.module.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0",
    "N/A",
    "Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0",
    "Torch.cos.0.forward",
    "NPU.npu_fusion_attention.0.forward",
    "NPU.npu_fusion_attention.0.backward",
};
/* its dump_file/layer_mapping.yaml */
static const char *YAML = "TopLayer:\n  network_with_loss: module\n\nVocabParallelEmbedding:\n"
                          "  logical_or: __or__\n  reduce_from_mp_region.all_reduce: all_reduce\n\n"
                          "ParallelTransformerLayer:\n  attention: self_attention\n\nParallelAttention:\n"
                          "  flash_attention_score: core_attention_flash.npu_fusion_attention\n\n"
                          "FusedRMSNorm:\n  RmsNorm: npu_rms_norm\n";

static void test_msprobe_cases(void) {
    const char *ms = pt_fixture("test/resources/layer_mapping/mindspore");
    const char *pt = pt_fixture("test/resources/layer_mapping/pytorch");
    if (!ms || !pt) SKIP("layer_mapping fixtures absent");
    const char *dir = pt_tmpdir("layermap_msprobe");
    char a[1200], b[1200], y[1200];
    snprintf(a, sizeof a, "%s/ms", dir);
    snprintf(b, sizeof b, "%s/pt", dir);
    snprintf(y, sizeof y, "%s/layer_mapping.yaml", dir);
    CHECK_INT(make_side(a, "mindspore", MS, sizeof MS / sizeof *MS, ms), 0);
    CHECK_INT(make_side(b, "pytorch", PT, sizeof PT / sizeof *PT, pt), 0);
    CHECK_INT(pt_write(y, YAML), 0);
    struct tree *ta = NULL, *tb = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(a, 0, &ta, &err), 0);
    CHECK_INT(graph_read(b, 0, &tb, &err), 0);
    struct cmp_files_lmap rules;
    CHECK_INT(cmp_files_lmap_load(&rules, y, &err), 0);
    CHECK_INT((int)rules.n, 6);
    if (!ta || !tb) goto out;
    char warn[512];
    struct layermap *m = cmp_files_lmap_build(&rules, ta, tb, warn, sizeof warn);
    CHECK(m != NULL);
    CHECK_STR(warn, "");
    if (m) {
        CHECK_INT((int)layermap_count(m), 13);
        CHECK_INT((int)layermap_found(m), 10);
        for (size_t i = 0; i < sizeof MS / sizeof *MS; i++) CHECK_STR(layermap_get(m, MS[i]), EXPECT[i]);
        CHECK(layermap_get(m, "DefaultModel") == NULL);   /* not an entry: looked up as itself */
    }
    layermap_free(m);
    /* automatic mapping: the top attributes differ (network_with_loss vs
     * module), so nothing below them meets; the top-layer APIs still do */
    struct cmp_files_lmap autom;
    CHECK_INT(cmp_files_lmap_load(&autom, CMP_FILES_LMAP_AUTO, &err), 0);
    CHECK_INT((int)autom.n, 0);
    m = cmp_files_lmap_build(&autom, ta, tb, warn, sizeof warn);
    CHECK(m != NULL);
    if (m) {
        CHECK_STR(layermap_get(m, MS[5]), "N/A");
        CHECK_STR(layermap_get(m, MS[2]), "Tensor.__add__.0.forward");
        CHECK_INT((int)layermap_found(m), 1);
    }
    layermap_free(m);
    cmp_files_lmap_free(&autom);
    /* a class the problem dump does not have: told with file and line */
    char y2[1300];
    snprintf(y2, sizeof y2, "%s/typo.yaml", dir);
    CHECK_INT(pt_write(y2, "TopLayer:\n  network_with_loss: module\nParalelAttention:\n  x: y\n"), 0);
    struct cmp_files_lmap typo;
    CHECK_INT(cmp_files_lmap_load(&typo, y2, &err), 0);
    m = cmp_files_lmap_build(&typo, ta, tb, warn, sizeof warn);
    CHECK(m != NULL);
    CHECK_CONTAINS(warn, "typo.yaml:3: class ParalelAttention is not a class of the problem dump");
    if (m) CHECK_STR(layermap_get(m, MS[5]), EXPECT[5]);
    layermap_free(m);
    cmp_files_lmap_free(&typo);
    /* "Cell" is the old name of the top layer and replaces a TopLayer block */
    snprintf(y2, sizeof y2, "%s/cell.yaml", dir);
    CHECK_INT(pt_write(y2, "TopLayer:\n  nothing: here\nCell: {network_with_loss: module}\n"), 0);
    CHECK_INT(cmp_files_lmap_load(&typo, y2, &err), 0);
    m = cmp_files_lmap_build(&typo, ta, tb, warn, sizeof warn);
    if (m) CHECK_STR(layermap_get(m, MS[5]), EXPECT[5]);
    CHECK_STR(warn, "");
    layermap_free(m);
    cmp_files_lmap_free(&typo);
out:
    cmp_files_lmap_free(&rules);
    tree_free(ta);
    tree_free(tb);
}

/* The fixture dump.json as it is (one entry each side): msprobe's
 * core_ut test_common_layer_mapping expects that entry mapped. */
static void test_fixture_as_is(void) {
    const char *ms = pt_fixture("test/resources/layer_mapping/mindspore");
    const char *pt = pt_fixture("test/resources/layer_mapping/pytorch");
    if (!ms || !pt) SKIP("layer_mapping fixtures absent");
    const char *dir = pt_tmpdir("layermap_asis");
    char y[1200];
    snprintf(y, sizeof y, "%s/m.yaml", dir);
    CHECK_INT(pt_write(y, YAML), 0);
    struct tree *ta = NULL, *tb = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(ms, 0, &ta, &err), 0);
    CHECK_INT(graph_read(pt, 0, &tb, &err), 0);
    struct cmp_files_lmap r;
    CHECK_INT(cmp_files_lmap_load(&r, y, &err), 0);
    if (ta && tb) {
        char warn[256];
        struct layermap *m = cmp_files_lmap_build(&r, ta, tb, warn, sizeof warn);
        CHECK(m != NULL);
        if (m) {
            CHECK_INT((int)layermap_count(m), 1);
            CHECK_STR(layermap_get(m, MS[5]), PT[4]);
        }
        layermap_free(m);
    }
    cmp_files_lmap_free(&r);
    tree_free(ta);
    tree_free(tb);
}

static void test_bad_yaml(void) {
    const char *dir = pt_tmpdir("layermap_bad");
    struct {
        const char *text, *want;
    } cases[] = {
        {"- a\n- b\n", "line 1: a list item"},
        {"just words\n", "line 1: not a mapping"},
        {"A:\n  no colon here\n", "line 2: expected \"problem_attribute: benchmark_attribute\""},
        {"A: b\n", "line 1: class A: expected its renames"},
        {"  x: y\n", "line 1: an indented rename before any"},
        {"A:\n  x:\n    y: z\n", "line 2: expected the benchmark attribute path"},
        {"A:\n  x: y\n    z: w\n", "line 3: uneven indentation"},
        {"A:\n\tx: y\n", "line 2: a tab"},
        {"A: {x: y\n", "line 1: a flow mapping must end with }"},
        {"A:\n  'x: y\n", "line 2: a quote is not closed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char p[1300];
        snprintf(p, sizeof p, "%s/bad%zu.yaml", dir, i);
        CHECK_INT(pt_write(p, cases[i].text), 0);
        struct cmp_files_lmap m;
        struct pt_error err;
        err.msg[0] = '\0';
        CHECK_INT(cmp_files_lmap_load(&m, p, &err), -1);
        CHECK_CONTAINS(err.msg, p);
        CHECK_CONTAINS(err.msg, cases[i].want);
        CHECK_INT((int)m.n, 0);
    }
    struct cmp_files_lmap m;
    struct pt_error err;
    char p[1300];
    snprintf(p, sizeof p, "%s/missing.yaml", dir);
    CHECK_INT(cmp_files_lmap_load(&m, p, &err), -1);
    CHECK_CONTAINS(err.msg, "missing.yaml");
    /* what is accepted: comments, quotes, flow style, "a:b" in braces, ---,
     * a repeated class replacing the earlier one, an empty file */
    snprintf(p, sizeof p, "%s/good.yaml", dir);
    CHECK_INT(pt_write(p, "---\n# c\nA:   # the A block\n  'x.y': \"z\"\n  k: v  # tail\nB: {p: q, 'r':s}\n"
                          "A:\n  only: this\nC: {}\n"), 0);
    CHECK_INT(cmp_files_lmap_load(&m, p, &err), 0);
    CHECK_INT((int)m.n, 3);
    if (m.n == 3) {
        CHECK_STR(m.rules[0].cls, "B");
        CHECK_STR(m.rules[1].from, "r");
        CHECK_STR(m.rules[1].to, "s");
        CHECK_STR(m.rules[2].cls, "A");
        CHECK_STR(m.rules[2].from, "only");
        CHECK_INT(m.rules[2].line, 8);
    }
    cmp_files_lmap_free(&m);
    snprintf(p, sizeof p, "%s/empty.yaml", dir);
    CHECK_INT(pt_write(p, "# nothing\n"), 0);
    CHECK_INT(cmp_files_lmap_load(&m, p, &err), 0);
    CHECK_INT((int)m.n, 0);
    cmp_files_lmap_free(&m);
}

/* ---- a generated pair with renamed attributes ---- */

static int same_outcome(const struct cmp_graph *x, const struct cmp_graph *y) {
    if (x->npu->nnodes != y->npu->nnodes || x->nmatched != y->nmatched || x->nrows != y->nrows) return 0;
    for (size_t i = 0; i < x->npu->nnodes; i++) {
        int bx = x->nodes[i].bench, by = y->nodes[i].bench;
        if ((bx < 0) != (by < 0) || x->nodes[i].index != y->nodes[i].index) return 0;
        if (bx >= 0 && strcmp(tree_id(x->bench, bx), tree_id(y->bench, by))) return 0;
    }
    return 1;
}

static void test_generated_rename(void) {
    const char *sh_dir = pt_shared(), *py = getenv("PT_PYTHON");
    if (!sh_dir || !py || !*py) SKIP("PT_SHARED or PT_PYTHON absent");
    const char *dir = pt_tmpdir("layermap_gen");
    char cmd[8192], bench[1200], npu[1200], ren[1200], y[1200];
    snprintf(bench, sizeof bench, "%s/bench", dir);
    snprintf(npu, sizeof npu, "%s/npu", dir);
    snprintf(ren, sizeof ren, "%s/renamed/step0/rank0", dir);
    snprintf(y, sizeof y, "%s/map.yaml", dir);
    const char *opts = "--steps 1 --ranks 1 --layers 2 --seed 5 --hidden 64 --heads 4 --ffn 128 --seq 16 "
                       "--vocab 100 --quiet --jobs 1";
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' %s", py, sh_dir, bench, opts);
    CHECK_INT(sh(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s' %s --drift 3:layers.1.mlp", py, sh_dir, npu,
             opts);
    CHECK_INT(sh(cmd), 0);
    /* the problem run names self_attention "attention" and mlp "feed_forward" */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && for f in dump construct stack; do sed -e "
                              "'s/\\.self_attention\\./.attention./g; s/\\.mlp\\./.feed_forward./g' "
                              "'%s/step0/rank0/'$f.json > '%s/'$f.json || exit 1; done", ren, npu, ren);
    CHECK_INT(sh(cmd), 0);
    CHECK_INT(pt_write(y, "TransformerLayer:\n  attention: self_attention\n  feed_forward: mlp\n"), 0);
    char bdir[1300], ndir[1300];
    snprintf(bdir, sizeof bdir, "%s/step0/rank0", bench);
    snprintf(ndir, sizeof ndir, "%s/step0/rank0", npu);
    struct tree *tb = NULL, *tn = NULL, *tr = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(bdir, GRAPH_BUILD, &tb, &err), 0);
    CHECK_INT(graph_read(ndir, GRAPH_BUILD, &tn, &err), 0);
    CHECK_INT(graph_read(ren, GRAPH_BUILD, &tr, &err), 0);
    struct cmp_files_lmap r;
    CHECK_INT(cmp_files_lmap_load(&r, y, &err), 0);
    struct cmp_graph *g0 = NULL, *g1 = NULL, *g2 = NULL;
    struct cmp_table *t0 = NULL, *t1 = NULL;
    struct layermap *m = NULL, *mauto = NULL;
    if (!tb || !tn || !tr) goto out;
    CHECK(tr->nrecs == tn->nrecs && tr->nnodes == tn->nnodes);
    char warn[512];
    m = cmp_files_lmap_build(&r, tr, tb, warn, sizeof warn);
    CHECK(m != NULL);
    CHECK_STR(warn, "");
    if (!m) goto out;
    /* every entry finds its counterpart, the one of the same place */
    CHECK_INT((int)layermap_found(m), (int)tr->nrecs);
    size_t same = 0;
    for (size_t i = 0; i < tr->nrecs; i++) {
        const char *mapped = layermap_get(m, tree_s(tr, tr->recs[i].name));
        same += mapped && !strcmp(mapped, tree_s(tn, tn->recs[i].name));
    }
    CHECK_INT((int)same, (int)tr->nrecs);
    struct cmp_opts plain = {0}, mapped = {.map = layermap_apply, .map_ctx = m};
    CHECK_INT(cmp_graph_new(tn, tb, &plain, &g0, &err), 0);
    CHECK_INT(cmp_graph_new(tr, tb, &mapped, &g1, &err), 0);
    if (g0 && g1) {
        CHECK(same_outcome(g0, g1));
        CHECK_INT((int)g1->nunmatched_npu, (int)g0->nunmatched_npu);
        CHECK(g0->nmatched > 100);
        /* the drifted layer is red in both: its first operation */
        int f0 = cmp_first_divergence(g0), f1 = cmp_first_divergence(g1);
        CHECK(f0 >= 0 && f0 == f1);
        int in = f0 >= 0 ? tree_enclosing_module(g0->npu, f0) : -1;
        CHECK(in >= 0);
        if (in >= 0) CHECK_CONTAINS(tree_id(g0->npu, in), "layers.1.mlp");
    }
    /* without the renames only what sits outside the renamed modules meets */
    struct cmp_files_lmap none;
    CHECK_INT(cmp_files_lmap_load(&none, CMP_FILES_LMAP_AUTO, &err), 0);
    mauto = cmp_files_lmap_build(&none, tr, tb, warn, sizeof warn);
    if (mauto) {
        struct cmp_opts o2 = {.map = layermap_apply, .map_ctx = mauto};
        CHECK_INT(cmp_graph_new(tr, tb, &o2, &g2, &err), 0);
        if (g2 && g0) CHECK(g2->nmatched < g0->nmatched);
    }
    cmp_files_lmap_free(&none);
    /* the table: the same rows, benchmarks and verdicts */
    CHECK_INT(cmp_table_new(tn, tb, &plain, &t0, &err), 0);
    CHECK_INT(cmp_table_new(tr, tb, &mapped, &t1, &err), 0);
    if (t0 && t1) {
        CHECK_INT((int)t1->nrows, (int)t0->nrows);
        size_t diff = 0;
        for (size_t i = 0; i < t0->nrows && i < t1->nrows; i++)
            diff += t0->rows[i].bp != t1->rows[i].bp || t0->rows[i].level != t1->rows[i].level;
        CHECK_INT((int)diff, 0);
        CHECK_INT((int)t1->counts[CL_ERROR], (int)t0->counts[CL_ERROR]);
        CHECK(t0->counts[CL_ERROR] > 0);
    }
out:
    cmp_table_free(t0);
    cmp_table_free(t1);
    cmp_graph_free(g0);
    cmp_graph_free(g1);
    cmp_graph_free(g2);
    layermap_free(m);
    layermap_free(mauto);
    cmp_files_lmap_free(&r);
    tree_free(tb);
    tree_free(tn);
    tree_free(tr);
}

/* ---- fuzzy matching ---- */

/* quick_start with ".0.forward" / ".0.backward" call counters made ".9000."
 * on the problem side (both directions, so that backward nodes still find
 * their forward twins when the tree is built): fuzzy matching still pairs every node exact matching pairs
 * on the unshifted dumps, with the same verdicts. */
static void test_fuzzy_shifted(void) {
    const char *pa = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016");
    const char *pb = pt_fixture("examples/quick_start/gpu_dump/step1/proc2016");
    if (!pa || !pb) SKIP("quick_start fixture absent");
    const char *dir = pt_tmpdir("layermap_fuzzy");
    char cmd[8192], sdir[1200];
    snprintf(sdir, sizeof sdir, "%s/shifted", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && for f in dump construct stack; do "
                              "sed -e 's/\\.0\\.forward/.9000.forward/g; s/\\.0\\.backward/.9000.backward/g' '%s/'$f.json > '%s/'$f.json || exit 1; done",
             sdir, pa, sdir);
    CHECK_INT(sh(cmd), 0);
    struct tree *a = NULL, *b = NULL, *s = NULL;
    struct pt_error err;
    CHECK_INT(graph_read(pa, GRAPH_BUILD, &a, &err), 0);
    CHECK_INT(graph_read(pb, GRAPH_BUILD, &b, &err), 0);
    CHECK_INT(graph_read(sdir, GRAPH_BUILD, &s, &err), 0);
    struct cmp_graph *ge = NULL, *gs = NULL, *gx = NULL;
    struct cmp_table *te = NULL, *ts = NULL;
    if (!a || !b || !s) goto out;
    CHECK_INT((int)s->nnodes, (int)a->nnodes);
    if (s->nnodes != a->nnodes) goto out;
    struct cmp_opts exact = {0}, fuzzy = {.fuzzy = 1};
    CHECK_INT(cmp_graph_new(a, b, &exact, &ge, &err), 0);
    CHECK_INT(cmp_graph_new(s, b, &fuzzy, &gs, &err), 0);
    CHECK_INT(cmp_graph_new(s, b, &exact, &gx, &err), 0);
    if (ge && gs && gx) {
        size_t agree = 0, shifted_api = 0;
        for (size_t i = 0; i < a->nnodes; i++) {
            agree += ge->nodes[i].bench == gs->nodes[i].bench && ge->nodes[i].index == gs->nodes[i].index;
            shifted_api += strstr(tree_id(s, (int)i), ".9000.forward") != NULL;
        }
        CHECK_INT((int)agree, (int)a->nnodes);
        CHECK(shifted_api > 10);
        CHECK_INT((int)gs->nmatched, (int)ge->nmatched);
        /* exact matching cannot pair the shifted APIs */
        CHECK((int)gx->nmatched <= (int)ge->nmatched - (int)shifted_api);
    }
    /* the table's two-queue walk: the same benchmark rows and verdicts */
    CHECK_INT(cmp_table_new(a, b, &exact, &te, &err), 0);
    CHECK_INT(cmp_table_new(s, b, &fuzzy, &ts, &err), 0);
    if (te && ts) {
        CHECK_INT((int)ts->nrows, (int)te->nrows);
        size_t diff = 0;
        for (size_t i = 0; i < te->nrows && i < ts->nrows; i++)
            diff += te->rows[i].bp != ts->rows[i].bp || te->rows[i].level != ts->rows[i].level;
        CHECK_INT((int)diff, 0);
    }
out:
    cmp_graph_free(ge);
    cmp_graph_free(gs);
    cmp_graph_free(gx);
    cmp_table_free(te);
    cmp_table_free(ts);
    tree_free(a);
    tree_free(b);
    tree_free(s);
}

/* msProbe's API key: re.sub(r'\.\d+\.', '.', id) then _rank\d+ removed, per
 * parent with a 1-based occurrence count.  The substitution does not
 * overlap: "Torch.x.1.0.forward" keys as "Torch.x.0.forward", so it pairs
 * with "Torch.x.2.0.forward" but not with "Torch.x.1.5.forward". */
static struct tree *small_tree(const char *const *apis, size_t n) {
    struct tree *t = tree_new();
    struct pt_error err;
    if (!t) return NULL;
    int root = tree_add_node(t, "DefaultModel", TK_MODULE, -1);
    int mod = tree_add_node(t, "Module.m.M.forward.0", TK_MODULE, root);
    for (size_t i = 0; i < n; i++) tree_add_node(t, apis[i], TK_API, mod);
    if (tree_finish(t, &err) != 0) { tree_free(t); return NULL; }
    return t;
}

static void test_fuzzy_key(void) {
    const char *na[] = {"Torch.x.1.0.forward", "Distributed.all_reduce_rank3.0.forward", "Torch.y.0.forward",
                        "Torch.y.1.forward"};
    /* x.1.5 first: a key that swallowed both counters would pair it */
    const char *ba[] = {"Torch.x.1.5.forward", "Distributed.all_reduce_rank5.7.forward", "Torch.y.4.forward",
                        "Torch.x.2.0.forward"};
    struct tree *a = small_tree(na, 4), *b = small_tree(ba, 4);
    struct cmp_graph *g = NULL;
    struct pt_error err;
    struct cmp_opts fuzzy = {.fuzzy = 1};
    CHECK(a && b);
    if (a && b) CHECK_INT(cmp_graph_new(a, b, &fuzzy, &g, &err), 0);
    if (g) {
        const char *want[][2] = {{"Torch.x.1.0.forward", "Torch.x.2.0.forward"},
                                 {"Distributed.all_reduce_rank3.0.forward", "Distributed.all_reduce_rank5.7.forward"},
                                 {"Torch.y.0.forward", "Torch.y.4.forward"},
                                 {"Torch.y.1.forward", NULL}};
        for (size_t i = 0; i < 4; i++) {
            int n = tree_find(a, want[i][0]);
            CHECK(n >= 0);
            if (n < 0) continue;
            int bm = g->nodes[n].bench;
            if (want[i][1]) CHECK_STR(bm >= 0 ? tree_id(b, bm) : "(none)", want[i][1]);
            else CHECK_INT(bm, -1);
        }
        int x15 = tree_find(b, "Torch.x.1.5.forward");
        CHECK(x15 >= 0 && g->bmatch[x15] < 0);
    }
    cmp_graph_free(g);
    tree_free(a);
    tree_free(b);
}

int main(void) {
    RUN(test_msprobe_cases);
    RUN(test_fixture_as_is);
    RUN(test_bad_yaml);
    RUN(test_generated_rename);
    RUN(test_fuzzy_shifted);
    RUN(test_fuzzy_key);
    PT_DONE();
}
