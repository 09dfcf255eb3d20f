/* test_layout: the Megatron layout (model/layout/layout.c) against every worked
 * example and error of probetop-rules(7), MEGATRON LAYOUT: Examples, and the
 * `parallel` command's text, JSON and CSV output.  The layer renaming:
 * test_layout_rename.c. */
#include <fcntl.h>

#include "pt_test.h"
#include "pt_layout.h"
#include "src/cmd/cmd.h"

/* Cell text of rank r, chunk v. */
static const char *cell(const struct layout *l, int r, int v) {
    static char buf[8][64];
    static int k;
    struct layout_chunk ch;
    char *b = buf[k++ & 7];
    if (layout_chunk(l, r, v, &ch) != 0) return "(out of range)";
    return layout_chunk_text(&ch, b, 64);
}

/* Group g of dimension d as "a,b,c". */
static const char *group(const struct layout *l, enum layout_dim d, int g) {
    static char buf[4][512];
    static int k;
    char *b = buf[k++ & 3];
    int m[LAYOUT_MAX_WORLD];
    size_t n = 0;
    b[0] = '\0';
    if (layout_group(l, d, g, m) != 0) return "(none)";
    for (int i = 0; i < l->size[d]; i++) n += (size_t)snprintf(b + n, 512 - n, "%s%d", i ? "," : "", m[i]);
    return b;
}

/* Ranks in layout_rank_order(by) as "a,b,c". */
static const char *order_str(const struct layout *l, int by) {
    static char buf[8192];
    int perm[LAYOUT_MAX_WORLD];
    size_t n = 0;
    layout_rank_order(l, by, perm);
    buf[0] = '\0';
    for (int i = 0; i < l->world; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", i ? "," : "", perm[i]);
    return buf;
}

static const char *row_label(const struct layout *l, int row) {
    static char buf[64];
    return layout_row_label(l, row, buf, sizeof buf);
}

/* probetop-rules(7), MEGATRON LAYOUT: Examples: the documentation example. */
static void test_doc_example(void) {
    struct pt_error e;
    struct layout *l = mk("W=32 L=48 TP=4 PP=4 V=3", &e);
    CHECK(l != NULL);
    if (!l) return;
    CHECK_INT(l->dp, 2);
    CHECK_INT(l->lps, 12);
    CHECK_INT(l->vpp, 4);
    CHECK_INT(l->tpp, 4);
    CHECK_STR(l->order, "tp-cp-ep-dp-pp");
    CHECK_INT(layout_ngroups(l, LAYOUT_TP), 8);
    CHECK_STR(group(l, LAYOUT_TP, 0), "0,1,2,3");
    CHECK_STR(group(l, LAYOUT_TP, 1), "4,5,6,7");
    CHECK_STR(group(l, LAYOUT_TP, 7), "28,29,30,31");
    CHECK_INT(layout_ngroups(l, LAYOUT_DP), 16);
    CHECK_STR(group(l, LAYOUT_DP, 0), "0,4");
    CHECK_STR(group(l, LAYOUT_DP, 1), "1,5");
    CHECK_STR(group(l, LAYOUT_DP, 3), "3,7");
    CHECK_STR(group(l, LAYOUT_DP, 4), "8,12");
    CHECK_INT(layout_ngroups(l, LAYOUT_PP), 8);
    CHECK_STR(group(l, LAYOUT_PP, 0), "0,8,16,24");
    CHECK_STR(group(l, LAYOUT_PP, 1), "1,9,17,25");
    CHECK_STR(group(l, LAYOUT_PP, 7), "7,15,23,31");
    CHECK_INT(layout_group(l, LAYOUT_PP, 8, (int[4]){0}), -1);
    /* Stages and model copies, as msProbe transposes the group lists. */
    CHECK_STR(order_str(l, LAYOUT_PP), "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
                                       "24,25,26,27,28,29,30,31");
    CHECK_STR(order_str(l, LAYOUT_DP), "0,1,2,3,8,9,10,11,16,17,18,19,24,25,26,27,"
                                       "4,5,6,7,12,13,14,15,20,21,22,23,28,29,30,31");
    CHECK_STR(order_str(l, -1), "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
                                "24,25,26,27,28,29,30,31");
    for (int r = 0; r < 32; r++) {
        CHECK_INT(l->rank[r].coord[LAYOUT_PP], r / 8);
        CHECK_INT(l->rank[r].coord[LAYOUT_DP], (r / 4) % 2);
        CHECK_INT(l->rank[r].coord[LAYOUT_TP], r % 4);
    }

    static const char *const table[8][4] = {
        {"Embed+L1-3", "L13-15", "L25-27", "L37-39"},
        {"Embed+L1-3", "L13-15", "L25-27", "L37-39"},
        {"L4-6", "L16-18", "L28-30", "L40-42"},
        {"L4-6", "L16-18", "L28-30", "L40-42"},
        {"L7-9", "L19-21", "L31-33", "L43-45"},
        {"L7-9", "L19-21", "L31-33", "L43-45"},
        {"L10-12", "L22-24", "L34-36", "L46-48+Out"},
        {"L10-12", "L22-24", "L34-36", "L46-48+Out"},
    };
    static const char *const labels[8] = {
        "Group0: Rank0-3", "Group1: Rank4-7", "Group2: Rank8-11", "Group3: Rank12-15",
        "Group4: Rank16-19", "Group5: Rank20-23", "Group6: Rank24-27", "Group7: Rank28-31",
    };
    CHECK_INT(l->nrows, 8);
    for (int row = 0; row < 8; row++) {
        CHECK_STR(row_label(l, row), labels[row]);
        CHECK_INT(layout_row_copy(l, row), row % 2);
        CHECK_INT(layout_row_stage(l, row), row / 2);
        CHECK_INT(l->row_rank[row], row * 4);
        for (int v = 0; v < 4; v++) {
            CHECK_STR(cell(l, l->row_rank[row], v), table[row][v]);
            /* Every member of the row's TP group holds the same. */
            CHECK_STR(cell(l, l->row_rank[row] + 3, v), table[row][v]);
        }
    }
    CHECK_STR(cell(l, 0, 4), "(out of range)");
    CHECK_STR(cell(l, 32, 0), "(out of range)");
    CHECK_STR(cell(l, -1, 0), "(out of range)");
    /* probetop-rules(7), MEGATRON LAYOUT: Layer names: local layers.i -> global number offset(v) + i + 1. */
    CHECK_INT(layout_global_layer(l, 0, 0, 0), 1);
    CHECK_INT(layout_global_layer(l, 0, 0, 2), 3);
    CHECK_INT(layout_global_layer(l, 0, 0, 3), -1);
    CHECK_INT(layout_global_layer(l, 9, 1, 0), 16);
    CHECK_INT(layout_global_layer(l, 31, 3, 2), 48);
    CHECK_INT(layout_global_layer(l, 31, 4, 0), -1);
    CHECK_INT(layout_global_layer(l, 31, 0, -1), -1);
    char buf[32];
    CHECK_STR(layout_rank_label(l, 13, buf, sizeof buf), "p1t1d1");
    CHECK_STR(layout_rank_label(l, 26, buf, sizeof buf), "p3t2d0");
    layout_free(l);
}

/* probetop-rules(7), MEGATRON LAYOUT: Examples: W=8, L=8, TP=2, PP=2, V=2. */
static void test_tp2_pp2_vpp2(void) {
    struct pt_error e;
    struct layout *l = mk("W=8 L=8 TP=2 PP=2 V=2", &e);
    CHECK(l != NULL);
    if (!l) return;
    CHECK_INT(l->vpp, 2);
    CHECK_INT(l->dp, 2);
    CHECK_STR(group(l, LAYOUT_TP, 0), "0,1");
    CHECK_STR(group(l, LAYOUT_TP, 3), "6,7");
    CHECK_STR(group(l, LAYOUT_DP, 0), "0,2");
    CHECK_STR(group(l, LAYOUT_DP, 1), "1,3");
    CHECK_STR(group(l, LAYOUT_DP, 2), "4,6");
    CHECK_STR(group(l, LAYOUT_DP, 3), "5,7");
    CHECK_STR(group(l, LAYOUT_PP, 0), "0,4");
    CHECK_STR(group(l, LAYOUT_PP, 3), "3,7");
    CHECK_STR(order_str(l, LAYOUT_PP), "0,1,2,3,4,5,6,7");
    for (int r = 0; r < 4; r++) {
        CHECK_STR(cell(l, r, 0), "Embed+L1-2");
        CHECK_STR(cell(l, r, 1), "L5-6");
        CHECK_STR(cell(l, r + 4, 0), "L3-4");
        CHECK_STR(cell(l, r + 4, 1), "L7-8+Out");
    }
    CHECK_INT(l->nrows, 4);
    static const char *const labels[4] = {"Group0: Rank0-1", "Group1: Rank2-3", "Group2: Rank4-5", "Group3: Rank6-7"};
    for (int row = 0; row < 4; row++) {
        CHECK_INT(layout_row_copy(l, row), row % 2);
        CHECK_STR(row_label(l, row), labels[row]);
    }
    layout_free(l);
}

/* probetop-rules(7), MEGATRON LAYOUT: Examples: standalone embedding, TP=1. */
static void test_standalone(void) {
    struct pt_error e;
    struct layout *l = mk("W=8 L=6 TP=1 PP=4 SE", &e);
    CHECK(l != NULL);
    if (!l) return;
    CHECK_INT(l->tpp, 3);
    CHECK_INT(l->lps, 2);
    CHECK_INT(l->dp, 2);
    CHECK_STR(group(l, LAYOUT_PP, 0), "0,2,4,6");
    CHECK_STR(group(l, LAYOUT_PP, 1), "1,3,5,7");
    CHECK_STR(order_str(l, LAYOUT_PP), "0,1,2,3,4,5,6,7");
    CHECK_STR(order_str(l, LAYOUT_DP), "0,2,4,6,1,3,5,7");
    static const char *const want[8] = {"Embed", "Embed", "L1-2", "L1-2", "L3-4", "L3-4", "L5-6+Out", "L5-6+Out"};
    for (int r = 0; r < 8; r++) {
        CHECK_STR(cell(l, r, 0), want[r]);
        char want[16];
        snprintf(want, sizeof want, "Rank%d", r);
        CHECK_STR(row_label(l, r), want);
        CHECK_INT(layout_row_copy(l, r), r % 2);
    }
    CHECK_STR(row_label(l, 0), "Rank0");
    CHECK_STR(row_label(l, 7), "Rank7");
    CHECK_INT(layout_global_layer(l, 0, 0, 0), -1);   /* the embedding stage has no layers */
    CHECK_INT(layout_global_layer(l, 3, 0, 1), 2);
    CHECK_INT(layout_global_layer(l, 6, 0, 0), 5);
    layout_free(l);
}

/* probetop-rules(7), MEGATRON LAYOUT: Examples: standalone embedding with a virtual pipeline. */
static void test_standalone_vpp(void) {
    struct pt_error e;
    struct layout *l = mk("W=6 L=8 TP=1 PP=3 V=2 SE", &e);
    CHECK(l != NULL);
    if (!l) return;
    CHECK_INT(l->tpp, 2);
    CHECK_INT(l->lps, 4);
    CHECK_INT(l->vpp, 2);
    for (int r = 0; r < 2; r++) {
        CHECK_STR(cell(l, r, 0), "Embed");
        CHECK_STR(cell(l, r, 1), "");
        CHECK_STR(cell(l, r + 2, 0), "L1-2");
        CHECK_STR(cell(l, r + 2, 1), "L5-6");
        CHECK_STR(cell(l, r + 4, 0), "L3-4");
        CHECK_STR(cell(l, r + 4, 1), "L7-8+Out");
    }
    CHECK_INT(layout_global_layer(l, 5, 1, 1), 8);
    CHECK_INT(layout_global_layer(l, 1, 1, 0), -1);
    layout_free(l);
}

/* probetop-rules(7), MEGATRON LAYOUT: Examples: a different rank order. */
static void test_order_tp_pp_dp(void) {
    struct pt_error e;
    struct layout *l = mk("W=8 L=8 TP=2 PP=2 tp-pp-dp", &e);
    CHECK(l != NULL);
    if (!l) return;
    CHECK_STR(l->order, "tp-pp-dp-ep-cp");
    CHECK_STR(group(l, LAYOUT_TP, 0), "0,1");
    CHECK_STR(group(l, LAYOUT_TP, 3), "6,7");
    CHECK_STR(group(l, LAYOUT_PP, 0), "0,2");
    CHECK_STR(group(l, LAYOUT_PP, 1), "1,3");
    CHECK_STR(group(l, LAYOUT_PP, 2), "4,6");
    CHECK_STR(group(l, LAYOUT_PP, 3), "5,7");
    CHECK_STR(group(l, LAYOUT_DP, 0), "0,4");
    CHECK_STR(group(l, LAYOUT_DP, 3), "3,7");
    static const int stage0[] = {0, 1, 4, 5}, stage1[] = {2, 3, 6, 7};
    for (int i = 0; i < 4; i++) {
        CHECK_STR(cell(l, stage0[i], 0), "Embed+L1-4");
        CHECK_STR(cell(l, stage1[i], 0), "L5-8+Out");
    }
    CHECK_STR(order_str(l, LAYOUT_DP), "0,1,2,3,4,5,6,7");
    CHECK_STR(order_str(l, LAYOUT_PP), "0,1,4,5,2,3,6,7");
    for (int row = 0; row < 4; row++) CHECK_INT(layout_row_copy(l, row), row / 2);
    layout_free(l);
    /* Upper case is the same order. */
    l = mk("W=8 L=8 TP=2 PP=2 ORDER=TP-PP-DP", &e);
    CHECK(l != NULL);
    if (l) CHECK_STR(group(l, LAYOUT_DP, 0), "0,4");
    layout_free(l);
}

/* Groups for an order where dp varies fastest: every group is a mixed
 * radix slice (probetop-rules(7), MEGATRON LAYOUT: Rank groups), checked against brute force over all coordinates. */
static void test_groups_any_order(void) {
    static const char *const orders[] = {"dp-pp-tp", "pp-dp-tp", "tp-dp-pp", "pp-tp-dp", "dp-ep-tp-cp-pp", "cp-pp-tp-dp"};
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        char words[128];
        snprintf(words, sizeof words, "W=24 L=12 TP=2 PP=3 ORDER=%s", orders[k]);
        struct pt_error e;
        struct layout *l = mk(words, &e);
        CHECK(l != NULL);
        if (!l) continue;
        CHECK_INT(l->dp, 4);
        for (int d = 0; d < LAYOUT_NDIM; d++) {
            int ng = layout_ngroups(l, (enum layout_dim)d), m[64], seen[24] = {0};
            CHECK_INT(ng * l->size[d], 24);
            for (int g = 0; g < ng; g++) {
                layout_group(l, (enum layout_dim)d, g, m);
                for (int c = 0; c < l->size[d]; c++) {
                    CHECK(m[c] >= 0 && m[c] < 24);
                    if (m[c] < 0 || m[c] >= 24) continue;
                    seen[m[c]]++;
                    CHECK_INT(l->rank[m[c]].coord[d], c);
                    CHECK_INT(l->rank[m[c]].group[d], g);
                    /* Members differ only along d. */
                    for (int o = 0; o < LAYOUT_NDIM; o++)
                        if (o != d) CHECK_INT(l->rank[m[c]].coord[o], l->rank[m[0]].coord[o]);
                }
            }
            for (int r = 0; r < 24; r++) CHECK_INT(seen[r], 1);
        }
        layout_free(l);
    }
}

/* probetop-rules(7), MEGATRON LAYOUT: Examples and every check of probetop-rules(7), MEGATRON LAYOUT: Validation, with msProbe's messages. */
static void expect_error(const char *words, const char *msg) {
    struct pt_error e = {{0}};
    struct layout *l = mk(words, &e);
    CHECK(l == NULL);
    CHECK_STR(e.msg, msg);
    layout_free(l);
}

static void test_errors(void) {
    expect_error("W=2000 L=8", "world_size (2000) exceeds the maximum supported value of 1024.");
    expect_error("W=8 L=300", "num_layers (300) exceeds the maximum supported value of 256.");
    expect_error("W=8 L=8 TP=3",
                 "world_size (8) is not divisible by tensor_parallel_size(3) x pipeline_parallel_size (1)");
    expect_error("W=8 L=7 PP=2", "number of layers (7) must be divisible by pipeline_parallel_size (2).");
    expect_error("W=8 L=8 PP=1 SE",
                 "number of layers (8) must be divisible by transformer_pipeline_parallel_size (0), "
                 "which is pipeline_parallel_size-1 when standalone_embedding_stage is enabled.");
    expect_error("W=8 L=8 PP=2 V=3",
                 "number of layers per pipeline stage (4) must be divisible by number of layers per virtual "
                 "pipeline stage (3).");
    expect_error("W=8 L=8 PP=1 V=2", "pipeline-model-parallel size should be greater than 1 with virtual-pipeline");
    expect_error("W=8 L=8 PP=2 ORDER=tp-dp", "The parallel size (pp) is (2), but it's not specified in order (tp-dp).");
    expect_error("W=8 L=8 PP=2 ORDER=tp-ep-pp-dp", "The ep and dp must be adjacent in order (tp-ep-pp-dp).");

    /* Check 1, each name, in the validation order whatever the argument order. */
    expect_error("L=8", "world_size must be a positive integer");
    expect_error("W=0 L=8", "world_size must be a positive integer");
    expect_error("W=-4 L=8", "world_size must be a positive integer");
    expect_error("W=true L=8", "world_size must be a positive integer");
    expect_error("W=1.5 L=8", "world_size must be a positive integer");
    expect_error("L=x W=abc", "world_size must be a positive integer");
    expect_error("W=8 L=", "num_layers must be a positive integer");
    expect_error("W=8 L=8 TP=0", "tensor_parallel_size must be a positive integer");
    expect_error("W=8 L=8 PP=two", "pipeline_parallel_size must be a positive integer");
    expect_error("W=8 L=8 PP=2 V=0", "num_layers_per_virtual_pipeline_stage must be a positive integer");
    expect_error("V=0 W=2000 L=8", "num_layers_per_virtual_pipeline_stage must be a positive integer");
    /* Huge numbers saturate and fail the range check, not wrap. */
    expect_error("W=99999999999999999999999 L=8", "world_size (9223372036854775807) exceeds the maximum supported value of 1024.");
    expect_error("W=8 L=8 TP=99999999999999999999",
                 "world_size (8) is not divisible by tensor_parallel_size(9223372036854775807) x pipeline_parallel_size (1)");
    expect_error("W=8 L=8 SE=maybe", "standalone_embedding_stage must be a boolean");
    /* Layers checks come after the world checks. */
    expect_error("W=6 L=7 PP=4", "world_size (6) is not divisible by tensor_parallel_size(1) x pipeline_parallel_size (4)");
    expect_error("W=8 L=10 PP=4 SE",
                 "number of layers (10) must be divisible by transformer_pipeline_parallel_size (3), "
                 "which is pipeline_parallel_size-1 when standalone_embedding_stage is enabled.");
    expect_error("W=8 L=8 PP=2 V=8",
                 "number of layers per pipeline stage (4) must be divisible by number of layers per virtual "
                 "pipeline stage (8).");
    /* Order: names missing, unknown and repeated tokens. */
    expect_error("W=8 L=8 TP=2 ORDER=pp-cp", "The parallel size (tp) is (2), but it's not specified in order (pp-cp).");
    expect_error("W=8 L=8 TP=2 PP=2 ORDER=tp-pp", "The parallel size (dp) is (2), but it's not specified in order (tp-pp).");
    expect_error("W=8 L=8 ORDER=tp-xx-dp-pp",
                 "unknown parallel dimension 'xx' in order (tp-xx-dp-pp): expected tp, cp, ep, dp or pp");
    expect_error("W=8 L=8 ORDER=tp--dp-pp",
                 "unknown parallel dimension '' in order (tp--dp-pp): expected tp, cp, ep, dp or pp");
    expect_error("W=8 L=8 ORDER=tp-dp-pp-tp", "parallel dimension 'tp' appears more than once in order (tp-dp-pp-tp)");
    expect_error("W=8 L=8 ORDER=tp-cp-ep-dp-pp-tp-cp-ep-dp-pp-tp-cp-ep-dp-pp-tp-cp-ep-dp-pp-tp-cp-ep-dp-pp",
                 "order (tp-cp-ep-dp-pp-tp-cp-ep-dp-pp-tp-cp-ep-dp-pp-tp-cp-ep-dp-pp-tp-...) is too long: "
                 "expected tokens tp, cp, ep, dp, pp joined by '-'");
    /* Hostile bytes in the order are escaped in the message. */
    struct layout_config c;
    struct pt_error e;
    layout_config_init(&c);
    c.world_size = 8;
    c.num_layers = 8;
    layout_config_set(&c, "order", "tp-\x1b[2J-dp-pp", &e);
    CHECK(layout_new(&c, &e) == NULL);
    CHECK(strchr(e.msg, '\x1b') == NULL);
    CHECK_CONTAINS(e.msg, "\\x1b");
}

/* Corner cases that are valid. */
static void test_edges(void) {
    struct pt_error e;
    struct layout *l = mk("W=1 L=1", &e);
    CHECK(l != NULL);
    if (l) {
        CHECK_INT(l->dp, 1);
        CHECK_INT(l->nrows, 1);
        CHECK_STR(cell(l, 0, 0), "Embed+L1-1+Out");
        CHECK_STR(row_label(l, 0), "Rank0");
        char out[64];
        CHECK_INT(layout_rename(l, 0, 0, "module.layers.0.weight", 22, out, sizeof out, &e), 1);
        CHECK_STR(out, "module.layers.0.weight");
    }
    layout_free(l);
    /* The maxima; PP=1 with V = L is no virtual pipeline. */
    l = mk("W=1024 L=256 TP=8 PP=8 V=4", &e);
    CHECK(l != NULL);
    if (l) {
        CHECK_INT(l->dp, 16);
        CHECK_INT(l->vpp, 8);
        CHECK_INT(l->nrows, 128);
        CHECK_STR(cell(l, 1023, 7), "L253-256+Out");
        CHECK_STR(row_label(l, 127), "Group127: Rank1016-1023");
    }
    layout_free(l);
    l = mk("W=4 L=8 V=8", &e);
    CHECK(l != NULL);
    if (l) {
        CHECK_INT(l->vpp, 1);
        CHECK_INT(l->vpp_layers, 8);
        CHECK_STR(cell(l, 3, 0), "Embed+L1-8+Out");
    }
    layout_free(l);
    /* ep-dp adjacency in either order is fine. */
    l = mk("W=8 L=8 PP=2 ORDER=tp-dp-ep-pp", &e);
    CHECK(l != NULL);
    if (l) CHECK_STR(l->order, "tp-dp-ep-pp-cp");
    layout_free(l);
    /* A single-layer chunk is still written as a range. */
    l = mk("W=4 L=4 PP=4", &e);
    CHECK(l != NULL);
    if (l) CHECK_STR(cell(l, 2, 0), "L3-3");
    layout_free(l);
}

static void test_config_text(void) {
    struct layout_config c;
    struct pt_error e;
    char buf[256];
    CHECK_INT(layout_config_parse(&c, "  W=32\tL=48 tp=4 Pp=4 V=3 tp-cp-dp-pp SE  ", &e), 0);
    CHECK_INT(c.world_size, 32);
    CHECK_INT(c.num_layers, 48);
    CHECK_INT(c.tp, 4);
    CHECK_INT(c.pp, 4);
    CHECK_INT(c.has_vpp, 1);
    CHECK_INT(c.vpp_layers, 3);
    CHECK_INT(c.standalone, 1);
    CHECK_STR(c.order, "tp-cp-dp-pp");
    CHECK_STR(layout_config_format(&c, buf, sizeof buf), "W=32 L=48 TP=4 PP=4 V=3 ORDER=tp-cp-dp-pp SE");
    struct layout_config c2;
    CHECK_INT(layout_config_parse(&c2, buf, &e), 0);
    CHECK(memcmp(&c, &c2, sizeof c) == 0);
    CHECK_INT(layout_config_parse(&c, "W=8 L=8", &e), 0);
    CHECK_STR(layout_config_format(&c, buf, sizeof buf), "W=8 L=8 TP=1 PP=1 ORDER=tp-cp-ep-dp-pp");
    CHECK_INT(layout_config_parse(&c, "W=8 X=3", &e), -1);
    CHECK_STR(e.msg, "unknown layout setting 'X' (expected W, L, TP, PP, V, ORDER or SE)");
    CHECK_INT(layout_config_parse(&c, "W=8 hello", &e), -1);
    CHECK_CONTAINS(e.msg, "'hello' is neither KEY=VALUE");
    /* Long names work too. */
    layout_config_init(&c);
    CHECK_INT(layout_config_set(&c, "num_layers_per_virtual_pipeline_stage", "2", &e), 0);
    CHECK_INT(layout_config_set(&c, "standalone_embedding_stage", "false", &e), 0);
    CHECK_INT(layout_config_set(&c, "world-size", "16", &e), 0);
    CHECK_INT(c.vpp_layers, 2);
    CHECK_INT(c.standalone, 0);
    CHECK_INT(c.world_size, 16);
    CHECK_INT(layout_dim_parse("DP"), LAYOUT_DP);
    CHECK_INT(layout_dim_parse("ep"), -1);
    CHECK_STR(layout_dim_name(LAYOUT_PP), "pp");
}

static void test_colors(void) {
    CHECK_INT(layout_copy_rgb(2, 0), 0x1f77b4);
    CHECK_INT(layout_copy_rgb(2, 1), 0xaec7e8);
    CHECK_INT(layout_copy_rgb(20, 19), 0x9edae5);
    CHECK_INT(layout_copy_rgb(21, 0), 0x393b79);
    CHECK_INT(layout_copy_rgb(40, 20), 0x3182bd);
    CHECK_INT(layout_copy_rgb(40, 39), 0xd9d9d9);
    CHECK_INT(layout_copy_rgb(41, 0), 0x440154);
    CHECK_INT(layout_copy_rgb(41, 40), 0xfde725);
    CHECK_INT(layout_copy_rgb(41, 20), 0x21918c);   /* the midpoint */
    CHECK_INT(layout_copy_rgb(101, 5), 0x461365);   /* halfway between the first two stops */
    CHECK_INT(layout_rgb_xterm256(0x000000), 16);
    CHECK_INT(layout_rgb_xterm256(0xffffff), 231);
    CHECK_INT(layout_rgb_xterm256(0x1f77b4), 31);
    CHECK_INT(layout_rgb_xterm256(0x7f7f7f), 244);
    CHECK_INT(layout_rgb_xterm256(0xff0000), 196);
    CHECK(layout_rgb_dark(0x440154));
    CHECK(!layout_rgb_dark(0xfde725));
    CHECK(!layout_rgb_dark(0xaec7e8));
}

/* --- the command --------------------------------------------------------- */


/* Runs `probetop parallel ARGS` in-process with stdout captured; returns
 * the exit code, output in out. */
static int run_cmd(char *out, size_t n, int argc, char **argv) {
    const char *dir = scratch();
    char path[4200];
    snprintf(path, sizeof path, "%s/out.txt", dir ? dir : "/tmp");
    fflush(stdout);
    int saved = dup(1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || saved < 0) return -100;
    dup2(fd, 1);
    close(fd);
    int rc = cmd_parallel_entry.run(argc, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    FILE *f = fopen(path, "rb");
    size_t k = f ? fread(out, 1, n - 1, f) : 0;
    out[k] = '\0';
    if (f) fclose(f);
    return rc;
}

#define RUN_CMD(buf, ...) run_cmd(buf, sizeof buf, \
    (int)(sizeof((char *[]){"parallel", __VA_ARGS__}) / sizeof(char *)), (char *[]){"parallel", __VA_ARGS__})

static void test_cmd_text(void) {
    static char out[65536];
    int rc = RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--tp", "2", "--pp", "2", "--vpp-layers=2",
                     "--color", "never", "--width", "0");
    CHECK_INT(rc, 0);
    CHECK_STR(out,
              "Model Parallelism Configuration | Total Layers: 8 | DP=2 | TP=2 | PP=2 | VPP=2\n"
              "Order tp-cp-ep-dp-pp | 4 layers per pipeline stage | 2 per virtual stage\n"
              "\n"
              "TP Group         PP  Copy | Stage 0      Stage 1\n"
              "Group0: Rank0-1   0     1 |  Embed+L1-2   L5-6\n"
              "Group1: Rank2-3   0     2 |  Embed+L1-2   L5-6\n"
              "Group2: Rank4-5   1     1 |  L3-4         L7-8+Out\n"
              "Group3: Rank6-7   1     2 |  L3-4         L7-8+Out\n"
              "\n"
              "Model Copies: 2 (column Copy)\n");

    /* Wrapping: the documentation example at 60 columns, two blocks. */
    rc = RUN_CMD(out, "--world-size=32", "--num-layers=48", "--tp=4", "--pp=4", "--vpp-layers=3", "--width=60",
                 "--color=never");
    CHECK_INT(rc, 0);
    CHECK_CONTAINS(out, "TP Group           PP  Copy | Stage 0      Stage 1\n");
    CHECK_CONTAINS(out, "\nTP Group           PP  Copy | Stage 2   Stage 3\n");
    CHECK_CONTAINS(out, "Group7: Rank28-31   3     2 |  L10-12       L22-24\n");
    CHECK_CONTAINS(out, "Group7: Rank28-31   3     2 |  L34-36    L46-48+Out\n");
    size_t maxw = 0, w = 0;
    for (const char *p = out; *p; p++) {
        if (*p == '\n') { if (w > maxw) maxw = w; w = 0; }
        else w++;
    }
    CHECK_INT(maxw, 59);   /* every line fits the 60 columns */
    CHECK_CONTAINS(out, "Model Parallelism Configuration | Total Layers: 48 | DP=2 |\nTP=4 | PP=4 | VPP=4\n"
                        "Order tp-cp-ep-dp-pp | 12 layers per pipeline stage |\n3 per virtual stage\n\n");

    /* Colour: ANSI 256-colour backgrounds by copy, and a legend. */
    rc = RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--tp", "2", "--pp", "2", "--color", "always",
                 "--width", "0");
    CHECK_INT(rc, 0);
    CHECK_CONTAINS(out, "\033[48;5;31m\033[38;5;231m Embed+L1-4 \033[0m");
    CHECK_CONTAINS(out, "Model Copies:  \033[48;5;31m\033[38;5;231m  \033[0m Model Copy 1  \033[48;5;152m\033[38;5;16m  \033[0m Model Copy 2\n");

    /* Piped with auto colour: no escapes. */
    rc = RUN_CMD(out, "--world-size", "8", "--num-layers", "6", "--pp", "4", "--standalone-embedding");
    CHECK_INT(rc, 0);
    CHECK(strchr(out, '\033') == NULL);
    CHECK_CONTAINS(out, "Rank0      0     1 |  Embed\n");
    CHECK_CONTAINS(out, "Rank7      3     2 |  L5-6+Out\n");
    CHECK_CONTAINS(out, "standalone embedding stage\n");
}

static void test_cmd_json_csv(void) {
    static char out[1 << 20];
    int rc = RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--tp", "2", "--pp", "2", "--order", "tp-pp-dp",
                     "--format", "csv");
    CHECK_INT(rc, 0);
    CHECK_STR(out,
              "rank,dp,pp,tp,chunk,embedding,output,first_layer,last_layer,text\n"
              "0,0,0,0,0,1,0,1,4,Embed+L1-4\n"
              "1,0,0,1,0,1,0,1,4,Embed+L1-4\n"
              "2,0,1,0,0,0,1,5,8,L5-8+Out\n"
              "3,0,1,1,0,0,1,5,8,L5-8+Out\n"
              "4,1,0,0,0,1,0,1,4,Embed+L1-4\n"
              "5,1,0,1,0,1,0,1,4,Embed+L1-4\n"
              "6,1,1,0,0,0,1,5,8,L5-8+Out\n"
              "7,1,1,1,0,0,1,5,8,L5-8+Out\n");
    rc = RUN_CMD(out, "--world-size", "6", "--num-layers", "8", "--pp", "3", "--vpp-layers", "2",
                 "--standalone-embedding", "--format", "csv");
    CHECK_INT(rc, 0);
    CHECK_CONTAINS(out, "\n0,0,0,0,0,1,0,,,Embed\n0,0,0,0,1,0,0,,,\n");
    CHECK_CONTAINS(out, "\n5,1,2,0,1,0,1,7,8,L7-8+Out\n");

    rc = RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--tp", "2", "--pp", "2", "--vpp-layers", "2",
                 "--format", "json");
    CHECK_INT(rc, 0);
    CHECK_CONTAINS(out, "\"world_size\": 8,\n");
    CHECK_CONTAINS(out, "\"vpp\": 2,\n");
    CHECK_CONTAINS(out, "\"vpp_layers\": 2,\n");
    CHECK_CONTAINS(out, "\"order\": \"tp-cp-ep-dp-pp\",\n");
    CHECK_CONTAINS(out, "\"tp\": [[0, 1], [2, 3], [4, 5], [6, 7]]");
    CHECK_CONTAINS(out, "\"dp\": [[0, 2], [1, 3], [4, 6], [5, 7]]");
    CHECK_CONTAINS(out, "\"pp\": [[0, 4], [1, 5], [2, 6], [3, 7]]");
    CHECK_CONTAINS(out, "{\"rank\": 6, \"dp\": 1, \"pp\": 1, \"tp\": 0, \"chunks\": [\n"
                        "      {\"chunk\": 0, \"embedding\": false, \"output\": false, \"layers\": [3, 4], \"text\": \"L3-4\"},\n"
                        "      {\"chunk\": 1, \"embedding\": false, \"output\": true, \"layers\": [7, 8], \"text\": \"L7-8+Out\"}]},\n");
    CHECK_CONTAINS(out, "\"rank\": 7,");
    CHECK_CONTAINS(out, "]}\n  ]\n}\n");
    /* Valid JSON when the PT_PYTHON interpreter is around to say so. */
    const char *py = getenv("PT_PYTHON");
    const char *dir = scratch();
    if (py && *py && dir) {
        char path[4200], cmd[8600];
        snprintf(path, sizeof path, "%s/l.json", dir);
        CHECK_INT(pt_write(path, out), 0);
        snprintf(cmd, sizeof cmd,
                 "'%s' -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                 "assert len(d[\"ranks\"])==8 and d[\"ranks\"][1][\"chunks\"][1][\"layers\"]==[5,6]' '%s'", py, path);
        CHECK_INT(system(cmd), 0);
    }
}

static void test_cmd_errors(void) {
    char out[4096];
    /* Invalid configuration: exit 2, nothing on stdout. */
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "7", "--pp", "2"), EXIT_USAGE);
    CHECK_STR(out, "");
    CHECK_INT(RUN_CMD(out, "--world-size", "2000", "--num-layers", "8"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--order", "tp-ep-pp-dp", "--pp", "2"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--standalone-embedding=perhaps", "--pp", "2"),
              EXIT_USAGE);
    /* Usage errors. */
    CHECK_INT(RUN_CMD(out, "--num-layers", "8"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--format", "xml"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--color", "sometimes"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--width", "-3"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--bogus"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers"), EXIT_USAGE);
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "extra"), EXIT_USAGE);
    CHECK_STR(out, "");
    /* Megatron's own argument names. */
    CHECK_INT(RUN_CMD(out, "--world-size", "8", "--num-layers", "8", "--tensor-model-parallel-size", "2",
                      "--pipeline-model-parallel-size", "2", "--num-layers-per-virtual-pipeline-stage", "2",
                      "--format", "csv"), 0);
    CHECK_CONTAINS(out, "\n7,1,1,1,1,0,1,7,8,L7-8+Out\n");
}

/* The real binary, when it is built: the command is in main's table. */
static void test_binary(void) {
    const char *bin = getenv("PT_BIN");
    struct stat st;
    if (!bin || stat(bin, &st) != 0) SKIP("PT_BIN not built");
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "'%s' parallel --world-size 8 --num-layers 7 --pp 2 >/dev/null 2>&1", bin);
    int st_rc = system(cmd);
    CHECK(WIFEXITED(st_rc));
    CHECK_INT(WEXITSTATUS(st_rc), 2);
    snprintf(cmd, sizeof cmd, "'%s' parallel --world-size 4 --num-layers 4 --pp 2 --format csv", bin);
    FILE *p = popen(cmd, "r");
    char out[4096] = "";
    size_t k = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[k] = '\0';
    int prc = p ? pclose(p) : -1;
    CHECK_INT(WEXITSTATUS(prc), 0);
    CHECK_CONTAINS(out, "3,1,1,0,0,0,1,3,4,L3-4+Out\n");
}

int main(void) {
    RUN(test_doc_example);
    RUN(test_tp2_pp2_vpp2);
    RUN(test_standalone);
    RUN(test_standalone_vpp);
    RUN(test_order_tp_pp_dp);
    RUN(test_groups_any_order);
    RUN(test_errors);
    RUN(test_edges);
    RUN(test_config_text);
    RUN(test_colors);
    RUN(test_cmd_text);
    RUN(test_cmd_json_csv);
    RUN(test_cmd_errors);
    RUN(test_binary);
    PT_DONE();
}
