/* test_layout_rename: the layer renaming of the Megatron layout
 * (probetop-rules(7), MEGATRON LAYOUT: Layer names): layer numbers in target
 * names, a simulated 8-rank TP2 PP2 VPP2 dump, the whole cube renamed to
 * global layers, and a monitor tree of the same run loaded and renamed.  The
 * layout itself and the `parallel` command: test_layout.c. */
#include "pt_test.h"
#include "pt_layout.h"
#include "model/cube/cube.h"
#include "model/cube/names.h"
#include "src/io/load.h"

static void test_names(void) {
    size_t at, dg;
    const char *n1 = "Module.0.module.decoder.layers.12.mlp.linear_fc1.ColumnParallelLinear.output.1";
    CHECK_INT(layout_find_layer(n1, strlen(n1), &at, &dg), 12);
    CHECK_INT(at, 31);
    CHECK_INT(dg, 2);
    const char *n2 = "Module.layers.0.1.x.input.0";
    CHECK_INT(layout_find_layer(n2, strlen(n2), &at, &dg), 0);
    CHECK_INT(at, 14);
    CHECK_INT(layout_find_layer("layers.7", 8, &at, &dg), 7);
    CHECK_INT(at, 7);
    CHECK_INT(layout_find_layer("module.layers", 13, NULL, NULL), -1);
    CHECK_INT(layout_find_layer("module.layers.", 14, NULL, NULL), -1);
    CHECK_INT(layout_find_layer("module.layers.3x.w", 18, NULL, NULL), -1);
    CHECK_INT(layout_find_layer("module.sublayers.3.w", 20, NULL, NULL), -1);
    CHECK_INT(layout_find_layer("module.layers.1234567890.w", 26, NULL, NULL), -1);
    CHECK_INT(layout_find_layer("a.layers.x.layers.5.w", 21, NULL, NULL), 5);
    CHECK_INT(layout_find_layer("Functional.linear.output.0", 26, NULL, NULL), -1);
    /* Only len bytes are looked at. */
    CHECK_INT(layout_find_layer("m.layers.45", 10, &at, &dg), 4);

    CHECK_INT(layout_dump_chunk(n1, strlen(n1)), 0);
    const char *n3 = "Module.1.module.decoder.layers.0.TransformerLayer.forward.4";
    CHECK_INT(layout_dump_chunk(n3, strlen(n3)), 1);
    CHECK_INT(layout_dump_chunk("Cell.3.network.layers.0.x", 25), 3);
    CHECK_INT(layout_dump_chunk("Module.module.module.GPTModel.forward.0", 39), 0);
    CHECK_INT(layout_dump_chunk("Module.12", 9), 0);
    CHECK_INT(layout_dump_chunk("Functional.1.x", 14), 0);
    CHECK_INT(layout_dump_chunk("Module.", 7), 0);

    struct pt_error e;
    struct layout *l = mk("W=32 L=48 TP=4 PP=4 V=3", &e);
    CHECK(l != NULL);
    if (!l) return;
    char out[256];
    /* Rank 9: stage 1, chunk 1 holds L16-18 -> local 2 is layer 18, index 17. */
    const char *n4 = "Module.1.module.decoder.layers.2.self_attention.linear_qkv.ColumnParallelLinear.output.0";
    CHECK_INT(layout_rename(l, 9, layout_dump_chunk(n4, strlen(n4)), n4, strlen(n4), out, sizeof out, &e), 1);
    CHECK_STR(out, "Module.1.module.decoder.layers.17.self_attention.linear_qkv.ColumnParallelLinear.output.0");
    CHECK_INT(layout_name_global_layer(l, 9, 1, n4, strlen(n4)), 18);
    /* Monitor names carry the chunk in vpp_stage. */
    const char *n5 = "module.decoder.layers.0.mlp.linear_fc1.weight";
    CHECK_INT(layout_rename(l, 31, 3, n5, strlen(n5), out, sizeof out, &e), 1);
    CHECK_STR(out, "module.decoder.layers.45.mlp.linear_fc1.weight");
    /* One digit becoming two or three, and the buffer bound. */
    CHECK_INT(layout_rename(l, 31, 3, "layers.2", 8, out, 10, &e), 1);
    CHECK_STR(out, "layers.47");
    CHECK_INT(layout_rename(l, 31, 3, "layers.2", 8, out, 9, &e), -1);
    CHECK_CONTAINS(e.msg, "does not fit");
    /* Nothing to rename: copied. */
    CHECK_INT(layout_rename(l, 0, 0, "module.embedding.word_embeddings.weight", 39, out, sizeof out, &e), 0);
    CHECK_STR(out, "module.embedding.word_embeddings.weight");
    CHECK_INT(layout_name_global_layer(l, 0, 0, "module.embedding.x", 18), -1);
    /* Layers a rank does not hold are errors naming what it holds. */
    CHECK_INT(layout_rename(l, 0, 0, "module.decoder.layers.3.w", 25, out, sizeof out, &e), -1);
    CHECK_STR(e.msg, "module.decoder.layers.3.w: rank 0 chunk 0 holds 3 transformer layers (Embed+L1-3), no local layers.3");
    CHECK_INT(layout_rename(l, 0, 7, "module.decoder.layers.0.w", 25, out, sizeof out, &e), -1);
    CHECK_STR(e.msg, "module.decoder.layers.0.w: rank 0 chunk 7 is not in the layout (32 ranks, 4 chunks per rank)");
    CHECK_INT(layout_rename(l, 40, 0, "layers.0", 8, out, sizeof out, &e), -1);
    layout_free(l);
    l = mk("W=6 L=8 TP=1 PP=3 V=2 SE", &e);
    if (l) {
        CHECK_INT(layout_rename(l, 1, 0, "layers.0", 8, out, sizeof out, &e), -1);
        CHECK_STR(e.msg, "layers.0: rank 1 chunk 0 holds 0 transformer layers (Embed), no local layers.0");
        CHECK_INT(layout_rename(l, 1, 1, "layers.0", 8, out, sizeof out, &e), -1);
        CHECK_STR(e.msg, "layers.0: rank 1 chunk 1 holds 0 transformer layers (nothing), no local layers.0");
    }
    layout_free(l);
}

/* The layer renaming in use (probetop-rules(7), MEGATRON LAYOUT: Layer names): a simulated dump of 8 ranks, TP 2, PP 2, VPP 2 (probetop-rules(7), MEGATRON LAYOUT: Examples),
 * where every rank names its chunks' layers by local index as Megatron's
 * named_modules() does.  Global renaming must put each model layer in
 * exactly one heat-map row (= one target name) holding exactly the ranks of
 * its pipeline stage, where the local names mixed layers of both stages. */
#define SIM_MAX 256
struct sim_row {
    char name[160];
    int nranks;
    int ranks[8];
    int global;     /* global layer number seen by this row, -1 none, -2 mixed */
};

static struct sim_row *sim_add(struct sim_row *rows, int *n, const char *name, int rank, int global) {
    for (int i = 0; i < *n; i++)
        if (strcmp(rows[i].name, name) == 0) {
            rows[i].ranks[rows[i].nranks++] = rank;
            if (rows[i].global != global) rows[i].global = -2;
            return &rows[i];
        }
    if (*n >= SIM_MAX) return NULL;
    struct sim_row *r = &rows[(*n)++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->nranks = 1;
    r->ranks[0] = rank;
    r->global = global;
    return r;
}

static void test_dump_renaming(void) {
    struct pt_error e;
    struct layout *l = mk("W=8 L=8 TP=2 PP=2 V=2", &e);
    CHECK(l != NULL);
    if (!l) return;
    static const char *const parts[] = {
        "self_attention.linear_qkv.ColumnParallelLinear.output.0",
        "mlp.linear_fc1.ColumnParallelLinear.input.0",
    };
    static struct sim_row local[SIM_MAX], global[SIM_MAX];
    int nlocal = 0, nglobal = 0;
    for (int r = 0; r < 8; r++) {
        for (int v = 0; v < 2; v++) {
            struct layout_chunk ch;
            layout_chunk(l, r, v, &ch);
            char name[160], renamed[170];
            if (ch.embedding) {
                snprintf(name, sizeof name, "Module.%d.module.embedding.word_embeddings.VocabParallelEmbedding.output.0", v);
                CHECK_INT(layout_rename(l, r, layout_dump_chunk(name, strlen(name)), name, strlen(name), renamed,
                                        sizeof renamed, &e), 0);
                sim_add(local, &nlocal, name, r, -1);
                sim_add(global, &nglobal, renamed, r, -1);
            }
            int nl = ch.first ? ch.last - ch.first + 1 : 0;
            CHECK_INT(nl, 2);
            for (int i = 0; i < nl; i++)
                for (size_t p = 0; p < 2; p++) {
                    snprintf(name, sizeof name, "Module.%d.module.decoder.layers.%d.%s", v, i, parts[p]);
                    int chunk = layout_dump_chunk(name, strlen(name));
                    CHECK_INT(chunk, v);
                    int g = layout_name_global_layer(l, r, chunk, name, strlen(name));
                    CHECK_INT(g, ch.first + i);
                    CHECK_INT(layout_rename(l, r, chunk, name, strlen(name), renamed, sizeof renamed, &e), 1);
                    sim_add(local, &nlocal, name, r, g);
                    sim_add(global, &nglobal, renamed, r, g);
                }
        }
    }
    /* Local names: Module.v...layers.i is on all 8 ranks and means two
     * different layers (one per stage). */
    int mixed = 0;
    for (int i = 0; i < nlocal; i++)
        if (strstr(local[i].name, ".layers.")) {
            CHECK_INT(local[i].nranks, 8);
            mixed += local[i].global == -2;
        }
    CHECK_INT(mixed, 8);   /* 2 chunks x 2 local indices x 2 parts */
    /* Global names: 8 layers x 2 parts rows + the embedding row, each one
     * layer, held by the 4 ranks of one stage. */
    CHECK_INT(nglobal, 17);
    int seen[9][2] = {{0}};
    for (int i = 0; i < nglobal; i++) {
        struct sim_row *row = &global[i];
        CHECK_INT(row->nranks, 4);
        if (row->global == -1) continue;   /* the embedding: stage 0 */
        CHECK(row->global >= 1 && row->global <= 8);
        if (row->global < 1 || row->global > 8) continue;
        int part = strstr(row->name, "linear_qkv") ? 0 : 1;
        seen[row->global][part]++;
        /* The renamed index is the global layer number - 1. */
        char want[32];
        snprintf(want, sizeof want, ".layers.%d.", row->global - 1);
        CHECK_CONTAINS(row->name, want);
        int stage = l->rank[row->ranks[0]].coord[LAYOUT_PP];
        for (int k = 0; k < row->nranks; k++) CHECK_INT(l->rank[row->ranks[k]].coord[LAYOUT_PP], stage);
        /* Layers 1-2 and 5-6 on stage 0, 3-4 and 7-8 on stage 1. */
        CHECK_INT(stage, ((row->global - 1) / 2) % 2);
    }
    for (int g = 1; g <= 8; g++) {
        CHECK_INT(seen[g][0], 1);
        CHECK_INT(seen[g][1], 1);
    }
    layout_free(l);
}


/* The same run as a cube, as a loader builds it from the rank dirs: the
 * whole-cube renaming moves every cell to its global layer's row. */
static struct cube *sim_cube(const struct layout *l, int standalone_names) {
    static const char *const parts[] = {
        "self_attention.linear_qkv.ColumnParallelLinear.output.0",
        "mlp.linear_fc1.ColumnParallelLinear.input.0",
    };
    struct names *n = names_new();
    struct cube_builder *b = cube_builder_new(n);
    const char *stats[] = {"norm", "max"};
    struct pt_error e;
    if (!b || cube_builder_metric(b, "forward", 2, stats) != 0) return NULL;
    cube_builder_step(b, 0, 0, -1);
    cube_builder_step(b, 1, 1, -1);
    for (int r = 0; r < l->world; r++)
        for (int v = 0; v < l->vpp; v++) {
            struct layout_chunk ch;
            layout_chunk(l, r, v, &ch);
            char name[200];
            for (int step = 0; step < 2; step++) {
                if (ch.embedding) {
                    snprintf(name, sizeof name, "Module.%d.module.embedding.word_embeddings.VocabParallelEmbedding.output.0", v);
                    uint32_t t = names_intern(n, name, strlen(name), 0, 0);
                    double vals[2] = {10.0 * r + step, -1};
                    cube_builder_add(b, 0, t, step, r, vals, 1);
                }
                int nl = ch.first ? ch.last - ch.first + 1 : 0;
                for (int i = 0; i < nl; i++)
                    for (int p = 0; p < 2; p++) {
                        snprintf(name, sizeof name, "Module.%d.module.decoder.layers.%d.%s", v, i, parts[p]);
                        uint32_t t = names_intern(n, name, strlen(name), 0, 0);
                        double vals[2] = {1000.0 * (ch.first + i) + 100 * p + 10 * r + step, step ? NAN : 2.0};
                        cube_builder_add(b, 0, t, step, r, vals, 3);
                    }
                if (standalone_names && ch.output) {
                    snprintf(name, sizeof name, "Module.%d.module.output_layer.ColumnParallelLinear.output.0", v);
                    uint32_t t = names_intern(n, name, strlen(name), 0, 0);
                    double vals[2] = {5.0, 5.0};
                    cube_builder_add(b, 0, t, step, r, vals, 3);
                }
            }
        }
    struct cube *c = NULL;
    if (cube_builder_finish(b, &c, &e) != 0) c = NULL;
    cube_builder_free(b);
    return c;
}

static void test_cube_global(void) {
    struct pt_error e;
    struct layout *l = mk("W=8 L=8 TP=2 PP=2 V=2", &e);
    CHECK(l != NULL);
    if (!l) return;
    struct cube *in = sim_cube(l, 1);
    CHECK(in != NULL);
    if (!in) {
        layout_free(l);
        return;
    }
    /* Local names: 1 embedding + 2 chunks x 2 layers x 2 parts + output. */
    CHECK_INT(names_count(in->names), 10);
    struct cube *g = NULL;
    CHECK_INT(layout_cube_global(l, in, &g, &e), 0);
    if (!g) {
        fprintf(stderr, "%s\n", e.msg);
        cube_free(in);
        layout_free(l);
        return;
    }
    CHECK_INT(names_count(g->names), 18);
    CHECK_INT(g->nranks, 8);
    CHECK_INT(g->nsteps, 2);
    CHECK_INT(g->nmetrics, 1);
    CHECK_INT(g->metrics[0].nstats, 2);
    CHECK_STR(g->metrics[0].stats[1], "max");
    /* Order: the embedding (before the first layer in the input), layers
     * by global number, then the output layer. */
    CHECK_STR(names_str(g->names, 0), "Module.0.module.embedding.word_embeddings.VocabParallelEmbedding.output.0");
    CHECK_STR(names_str(g->names, 1), "Module.0.module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear.output.0");
    CHECK_STR(names_str(g->names, 2), "Module.0.module.decoder.layers.0.mlp.linear_fc1.ColumnParallelLinear.input.0");
    CHECK_STR(names_str(g->names, 5), "Module.0.module.decoder.layers.2.self_attention.linear_qkv.ColumnParallelLinear.output.0");
    CHECK_STR(names_str(g->names, 9), "Module.1.module.decoder.layers.4.self_attention.linear_qkv.ColumnParallelLinear.output.0");
    CHECK_STR(names_str(g->names, 16), "Module.1.module.decoder.layers.7.mlp.linear_fc1.ColumnParallelLinear.input.0");
    CHECK_STR(names_str(g->names, 17), "Module.1.module.output_layer.ColumnParallelLinear.output.0");
    /* Every layer row: data on exactly the 4 ranks of its stage, the
     * values that rank wrote for that layer. */
    for (uint32_t t = 1; t <= 16; t++) {
        int layer = (int)(t - 1) / 2 + 1, part = (int)(t - 1) % 2;
        int stage = ((layer - 1) / 2) % 2;
        uint32_t lt = cube_local_target(g, 0, t);
        CHECK(lt != UINT32_MAX);
        if (lt == UINT32_MAX) continue;
        for (int ri = 0; ri < 8; ri++)
            for (int step = 0; step < 2; step++) {
                int r = g->ranks[ri];
                float v = cube_get(g, 0, 0, lt, step, ri), mx = cube_get(g, 0, 1, lt, step, ri);
                if (l->rank[r].coord[LAYOUT_PP] == stage) {
                    CHECK_NEAR(v, 1000.0 * layer + 100 * part + 10 * r + step, 0);
                    if (step) CHECK(isnan(mx) && !cube_is_missing(mx));
                    else CHECK_NEAR(mx, 2.0, 0);
                } else {
                    CHECK(cube_is_missing(v));
                    CHECK(cube_is_missing(mx));
                }
            }
    }
    /* The embedding: ranks 0-3, norm only. */
    uint32_t lt = cube_local_target(g, 0, 0);
    CHECK_NEAR(cube_get(g, 0, 0, lt, 1, 3), 31.0, 0);
    CHECK(cube_is_missing(cube_get(g, 0, 1, lt, 1, 3)));
    CHECK(cube_is_missing(cube_get(g, 0, 0, lt, 1, 4)));
    cube_free(g);

    /* A layout with more layers per chunk than the data uses: nothing in
     * the data contradicts it, so it is accepted. */
    struct layout *wrong = mk("W=8 L=16 TP=2 PP=2 V=4", &e);
    CHECK(wrong != NULL);
    if (wrong) {
        CHECK_INT(layout_cube_global(wrong, in, &g, &e), 0);
        cube_free(g);
        layout_free(wrong);
    }
    /* Layouts that contradict the run are refused with the reason. */
    wrong = mk("W=8 L=4 TP=2 PP=2", &e);   /* one chunk of 2 layers per stage */
    CHECK(wrong != NULL);
    if (wrong) {
        g = (struct cube *)1;
        CHECK_INT(layout_cube_global(wrong, in, &g, &e), -1);
        CHECK(g == NULL);
        CHECK_CONTAINS(e.msg, "cannot number the layers globally: Module.1.module.decoder.layers.0.");
        CHECK_CONTAINS(e.msg, "chunk 1 is not in the layout (8 ranks, 1 chunks per rank); does the parallel configuration match the run?");
        layout_free(wrong);
    }
    wrong = mk("W=4 L=8 PP=2 V=2", &e);
    CHECK(wrong != NULL);
    if (wrong) {
        CHECK_INT(layout_cube_global(wrong, in, &g, &e), -1);
        CHECK_STR(e.msg, "the data has rank 4 but the parallel layout has 4 ranks (0-3)");
        layout_free(wrong);
    }
    cube_free(in);
    layout_free(l);
}

/* End to end through the monitor reader: a training-monitor tree of the
 * same 8-rank run (vpp_stage = chunk, local layer names), loaded as the
 * app loads it, then renamed: one row per model layer. */
static void test_monitor_global(void) {
    const char *base = scratch();
    if (!base) SKIP("no scratch directory");
    char root[1200], dir[1300], path[1400], cmd[1300];
    snprintf(root, sizeof root, "%s/mon", base);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
    mkdir(root, 0755);
    struct pt_error e;
    struct layout *l = mk("W=8 L=8 TP=2 PP=2 V=2", &e);
    CHECK(l != NULL);
    if (!l) return;
    for (int r = 0; r < 8; r++) {
        snprintf(dir, sizeof dir, "%s/Dec03_21-34-40-rank%d-1a2b3c4d", root, r);
        mkdir(dir, 0755);
        snprintf(path, sizeof path, "%s/actv_0-1.csv", dir);
        char text[8192];
        size_t k = (size_t)snprintf(text, sizeof text, "vpp_stage,name,step,micro_step,norm,min,max,nans,shape,dtype\n");
        for (int step = 0; step < 2; step++)
            for (int v = 0; v < 2; v++) {
                struct layout_chunk ch;
                layout_chunk(l, r, v, &ch);
                if (ch.embedding)
                    k += (size_t)snprintf(text + k, sizeof text - k,
                                          "%d,module.embedding.word_embeddings.output,%d,0,%d,-1.0,1.0,0.0,\"[2, 4, 8]\",torch.bfloat16\n",
                                          v, step, 10 * r + step);
                for (int i = 0; i + ch.first <= ch.last; i++)
                    k += (size_t)snprintf(text + k, sizeof text - k,
                                          "%d,module.decoder.layers.%d.self_attention.linear_proj.output,%d,0,%d,-1.0,1.0,0.0,\"[2, 4, 8]\",torch.bfloat16\n",
                                          v, i, step, 1000 * (ch.first + i) + 10 * r + step);
            }
        CHECK_INT(pt_write(path, text), 0);
    }
    struct load_opts o;
    load_opts_init(&o);
    o.format = formats_find("monitor");
    struct dataset *ds = NULL;
    if (load_dataset(root, &o, &ds, &e) != 0) {
        fprintf(stderr, "load_dataset: %s\n", e.msg);
        CHECK(0);
        layout_free(l);
        return;
    }
    const struct cube *in = ds->cube;
    CHECK_INT(in->nranks, 8);
    CHECK_INT(in->nsteps, 2);
    CHECK_INT(names_count(in->names), 5);   /* embedding + layers.0/1 in chunks 0/1 */
    struct cube *g = NULL;
    CHECK_INT(layout_cube_global(l, in, &g, &e), 0);
    if (g) {
        CHECK_INT(names_count(g->names), 9);
        int m = cube_metric_find(g, "actv");
        int st = m >= 0 ? cube_stat_find(g, m, "norm") : -1;
        CHECK(m >= 0 && st >= 0);
        for (int layer = 1; layer <= 8 && m >= 0 && st >= 0; layer++) {
            char name[128];
            snprintf(name, sizeof name, "module.decoder.layers.%d.self_attention.linear_proj.output", layer - 1);
            int chunk = (layer - 1) / 4;   /* L1-4 chunk 0, L5-8 chunk 1 */
            uint32_t t = names_find(g->names, name, strlen(name), chunk, 0);
            CHECK(t != NAMES_NONE);
            if (t == NAMES_NONE) continue;
            uint32_t lt = cube_local_target(g, m, t);
            int stage = ((layer - 1) / 2) % 2, held = 0;
            for (int ri = 0; ri < 8; ri++) {
                int r = g->ranks[ri];
                float v = cube_get(g, m, st, lt, 1, ri);
                if (l->rank[r].coord[LAYOUT_PP] == stage) {
                    held++;
                    CHECK_NEAR(v, 1000.0 * layer + 10 * r + 1, 0);
                } else {
                    CHECK(cube_is_missing(v));
                }
            }
            CHECK_INT(held, 4);
        }
        /* Labels follow the new names. */
        CHECK_INT(names_build_labels(g->names, LABELS_MONITOR), 0);
        CHECK(names_label_find(g->names, "layers.7", LABEL_LAYER) != NAMES_NONE);
        CHECK(names_label_find(in->names, "layers.7", LABEL_LAYER) == NAMES_NONE);
        cube_free(g);
    }
    dataset_free(ds);
    layout_free(l);
}

int main(void) {
    RUN(test_names);
    RUN(test_dump_renaming);
    RUN(test_cube_global);
    RUN(test_monitor_global);
    PT_DONE();
}
