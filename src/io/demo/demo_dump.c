/* demo_dump: the demo's two msProbe dumps (see src/io/demo/demo_files.h):
 * stepS/rankR/dump.json (level mix: modules and API calls, statistics),
 * construct.json (every node's parent module) and stack.json (the call
 * stacks), written as msProbe's json.dump(indent=1) lays them out.
 *
 * Each rank runs the forward pass of its pipeline stage (rank = t + TP (dp
 * + DP stage), Megatron's default order): stage 0 the embedding and layers 0-1, stage 1 a recv of
 * the activation, layers 0-1 (Megatron numbers the layers of a stage from
 * 0), the final norm, the output layer and the loss; stage 0 ends with a
 * send to the same tensor-parallel slot of stage 1.  Every layer's
 * attention projection and fc2 end in an all_reduce over the
 * tensor-parallel group. */
#include "src/io/demo/demo_dump.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/demo.h"
#include "src/io/demo/demo_files.h"

#define M "Module.module.module."
#define LPS (DEMO_FILES_LAYERS / DEMO_FILES_PP)

/* A tensor's statistics; nan: all four are NaN. */
struct ts {
    double max, min, mean, norm;
    int nan;
};

enum { A_EMB, A_LN, A_LIN, A_SDPA, A_GELU, A_ADD, A_CE, A_SEND, A_RECV, A_AR, NAPI };
static const char *const api_names[NAPI] = {
    "Functional.embedding", "Functional.layer_norm", "Functional.linear", "Functional.scaled_dot_product_attention",
    "Functional.gelu", "Tensor.__add__", "Functional.cross_entropy", "Distributed.send", "Distributed.recv",
    "Distributed.all_reduce",
};

/* One rank's files while they are written. */
struct gen {
    FILE *dump, *cons, *stack;
    int ndata, ncons, nstack;
    int calls[NAPI];
    int problem, step, rank, stage, dp, t;
    struct ts act;         /* the hidden state flowing through */
    double drift;          /* the problem run's factor after the drifting node (1: none) */
    int weights_nan;       /* the optimizer wrote the NaN into the weights (the step after the birth) */
};

/* The statistics of a fresh tensor of typical norm scale: the same in both
 * runs (key, step, rank). */
static struct ts fresh(const struct gen *g, const char *key, double scale) {
    uint64_t k = demo_set_key(key);
    struct ts t;
    t.norm = scale * (1 + 0.05 * demo_noise(k, (uint64_t)g->step, (uint64_t)g->rank, 0)) * (1 - 0.01 * g->step);
    t.max = t.norm * 0.021 * (1 + 0.1 * demo_noise(k, (uint64_t)g->step, (uint64_t)g->rank, 1));
    t.min = -t.max * (0.9 + 0.1 * demo_noise(k, (uint64_t)g->step, (uint64_t)g->rank, 2));
    t.mean = t.norm * 2e-4 * demo_noise(k, (uint64_t)g->step, (uint64_t)g->rank, 3);
    t.nan = 0;
    return t;
}

static struct ts scaled(struct ts t, double f) {
    t.max *= f;
    t.min *= f;
    t.mean *= f;
    t.norm *= f;
    return t;
}

static void num(FILE *f, double v) {
    if (isnan(v)) fputs("NaN", f);
    else fprintf(f, "%.9g", v);
}

static void tensor(FILE *f, const char *ind, struct ts t, const char *dtype, int rows, int cols, int grad) {
    fprintf(f, "{\n%s \"type\": \"torch.Tensor\",\n%s \"dtype\": \"%s\",\n%s \"shape\": [\n%s  %d,\n%s  %d\n%s ],\n",
            ind, ind, dtype, ind, ind, rows, ind, cols, ind);
    fprintf(f, "%s \"Max\": ", ind);
    num(f, t.nan ? NAN : t.max);
    fprintf(f, ",\n%s \"Min\": ", ind);
    num(f, t.nan ? NAN : t.min);
    fprintf(f, ",\n%s \"Mean\": ", ind);
    num(f, t.nan ? NAN : t.mean);
    fprintf(f, ",\n%s \"Norm\": ", ind);
    num(f, t.nan ? NAN : t.norm);
    fprintf(f, ",\n%s \"requires_grad\": %s\n%s}", ind, grad ? "true" : "false", ind);
}

/* The file and line a node's stack names, by what it is. */
static void stack_entry(struct gen *g, const char *name, const char *file, int line, const char *code) {
    fprintf(g->stack, "%s\n \"%d\": [\n  [\n   \"%s\"\n  ],\n  [\n", g->nstack ? "," : "", g->nstack, name);
    fprintf(g->stack, "   \"File /workspace/Megatron-LM/%s, line %d, in forward, \\n %s\",\n", file, line, code);
    fputs("   \"File /workspace/Megatron-LM/pretrain_gpt.py, line 182, in forward_step, \\n output_tensor = model(tokens, "
          "position_ids, attention_mask, labels=labels)\"\n  ]\n ]", g->stack);
    g->nstack++;
}

static void construct(struct gen *g, const char *name, const char *parent) {
    fprintf(g->cons, "%s\n \"%s\": ", g->ncons++ ? "," : "", name);
    if (parent) fprintf(g->cons, "\"%s\"", parent);
    else fputs("null", g->cons);
}

/* A data entry: inputs in[0..nin) (in[0] the activation, the others
 * weights), kwargs (text of the input_kwargs object's members, "" none),
 * output out. */
static void entry(struct gen *g, const char *name, const struct ts *in, int nin, const char *kwargs, struct ts out,
                  const char *out_dtype) {
    FILE *f = g->dump;
    fprintf(f, "%s\n  \"%s\": {\n   \"input_args\": [\n", g->ndata++ ? "," : "", name);
    for (int i = 0; i < nin; i++) {
        fputs("    ", f);
        tensor(f, "    ", in[i], "torch.bfloat16", i ? 2048 : 4096, i ? 1024 : 2048, i > 0);
        fputs(i + 1 < nin ? ",\n" : "\n", f);
    }
    fprintf(f, "   ],\n   \"input_kwargs\": {%s},\n   \"output\": [\n    ", kwargs);
    tensor(f, "    ", out, out_dtype, 4096, 2048, 1);
    fputs("\n   ]\n  }", f);
}

/* An API call under module parent: its name (with the rank's call
 * counter) into name. */
static void api(struct gen *g, int which, const char *parent, const struct ts *in, int nin, const char *kwargs,
                struct ts out, char *name, size_t n, const char *file, int line, const char *code) {
    snprintf(name, n, "%s.%d.forward", api_names[which], g->calls[which]++);
    entry(g, name, in, nin, kwargs, out, "torch.bfloat16");
    construct(g, name, parent);
    stack_entry(g, name, file, line, code);
}

/* A module's own entry (its input, its output) and its place. */
static void module(struct gen *g, const char *name, const char *parent, struct ts in, struct ts out, const char *file,
                   int line) {
    entry(g, name, &in, 1, "", out, "torch.bfloat16");
    construct(g, name, parent);
    stack_entry(g, name, file, line, "return self._call_impl(*args, **kwargs)");
}

/* A weight: NaN the step after the birth (every rank: the optimizer). */
static struct ts weight(const struct gen *g, const char *key) {
    struct gen w = *g;
    w.rank = g->t + DEMO_FILES_TP * g->stage;   /* the same weights on every data-parallel replica */
    struct ts t = fresh(&w, key, 18.0);
    t.nan = g->weights_nan;
    return t;
}

/* Is the NaN born here: the problem run's born rank and step at node
 * layer/what (the fc1 of the stage's last layer). */
static int born_here(const struct gen *g, int layer, const char *what) {
    return g->problem && g->step == DEMO_FILES_BORN_STEP && g->rank == DEMO_FILES_BORN_RANK && layer == LPS - 1 &&
           !strcmp(what, "fc1");
}

/* A linear module (ColumnParallelLinear / RowParallelLinear) with its
 * Functional.linear and, for a row-parallel one, the all_reduce of the
 * tensor-parallel group.  scale: the output's typical norm. */
static void linear(struct gen *g, const char *mod, const char *parent, int layer, const char *what, int row,
                   double scale) {
    char name[256], key[300];
    struct ts in[2];
    in[0] = g->act;
    snprintf(key, sizeof key, "%s.weight", mod);
    in[1] = weight(g, key);
    struct ts out = fresh(g, mod, scale);
    out.nan = g->act.nan || in[1].nan || born_here(g, layer, what);
    /* the problem's drifting node: stage 1, local layer 1, fc2 */
    if (g->problem && g->stage == DEMO_FILES_PP - 1 && layer == 1 && !strcmp(what, "fc2")) g->drift = 1 + 0.3 * g->step;
    out = scaled(out, g->drift);
    api(g, A_LIN, mod, in, 2, "", out, name, sizeof name, "megatron/core/tensor_parallel/layers.py",
        row ? 1010 : 795, "output_parallel = self._forward_impl(input=input_parallel, weight=self.weight, bias=bias)");
    struct ts res = out;
    if (row) {
        /* the group's sum: NaN when any member's part is */
        char kw[200];
        int base = g->rank - g->t;
        snprintf(kw, sizeof kw,
                 "\n    \"group\": {\n     \"type\": \"torch.ProcessGroup\",\n     \"group_ranks\": [\n      %d,\n      %d\n     ],\n"
                 "     \"group_id\": \"tp%d\"\n    }\n   ",
                 base, base + 1, base / DEMO_FILES_TP);
        int peer_nan = g->problem && g->step == DEMO_FILES_BORN_STEP && base == DEMO_FILES_BORN_RANK - DEMO_FILES_BORN_RANK % DEMO_FILES_TP &&
                       layer == LPS - 1 && !strcmp(what, "fc2");
        res = scaled(fresh(g, key, scale * 1.4), g->drift);
        res.nan = out.nan || peer_nan;
        api(g, A_AR, mod, &out, 1, kw, res, name, sizeof name, "megatron/core/tensor_parallel/mappings.py", 24,
            "torch.distributed.all_reduce(input_, group=group)");
    }
    module(g, mod, parent, g->act, res, "megatron/core/tensor_parallel/layers.py", row ? 980 : 760);
    g->act = res;
}

static void layernorm(struct gen *g, const char *mod, const char *parent) {
    char name[256], key[300];
    struct ts in[2];
    in[0] = g->act;
    snprintf(key, sizeof key, "%s.weight", mod);
    in[1] = weight(g, key);
    struct ts out = scaled(fresh(g, mod, 64.0), g->drift);
    out.nan = g->act.nan || in[1].nan;
    api(g, A_LN, mod, in, 2, "", out, name, sizeof name, "megatron/core/fusions/fused_layer_norm.py", 160,
        "return torch.nn.functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)");
    module(g, mod, parent, in[0], out, "megatron/core/fusions/fused_layer_norm.py", 150);
    g->act = out;
}

/* An API call of the activation alone (gelu, attention, the residual add). */
static void simple(struct gen *g, int which, const char *parent, double scale, const char *file, int line,
                   const char *code) {
    char name[256];
    struct ts out = scaled(fresh(g, api_names[which], scale * (1 + 0.1 * g->calls[which])), g->drift);
    out.nan = g->act.nan;
    struct ts in = g->act;
    api(g, which, parent, &in, 1, "", out, name, sizeof name, file, line, code);
    g->act = out;
}

static void layer(struct gen *g, int l) {
    char L[200], sa[200], mlp[200], mod[256];
    snprintf(L, sizeof L, M "decoder.layers.%d.TransformerLayer.forward.0", l);
    snprintf(sa, sizeof sa, M "decoder.layers.%d.self_attention.SelfAttention.forward.0", l);
    snprintf(mlp, sizeof mlp, M "decoder.layers.%d.mlp.MLP.forward.0", l);
    struct ts lin = g->act;
    snprintf(mod, sizeof mod, M "decoder.layers.%d.input_layernorm.FusedLayerNorm.forward.0", l);
    layernorm(g, mod, L);
    struct ts sin = g->act;
    snprintf(mod, sizeof mod, M "decoder.layers.%d.self_attention.linear_qkv.ColumnParallelLinear.forward.0", l);
    linear(g, mod, sa, l, "qkv", 0, 90.0);
    simple(g, A_SDPA, sa, 30.0, "megatron/core/transformer/dot_product_attention.py", 142,
           "context = torch.nn.functional.scaled_dot_product_attention(query, key, value)");
    snprintf(mod, sizeof mod, M "decoder.layers.%d.self_attention.linear_proj.RowParallelLinear.forward.0", l);
    linear(g, mod, sa, l, "proj", 1, 40.0);
    module(g, sa, L, sin, g->act, "megatron/core/transformer/attention.py", 290);
    simple(g, A_ADD, L, 70.0, "megatron/core/transformer/transformer_layer.py", 301, "hidden_states = residual + hidden_states");
    struct ts min = g->act;
    snprintf(mod, sizeof mod, M "decoder.layers.%d.pre_mlp_layernorm.FusedLayerNorm.forward.0", l);
    layernorm(g, mod, L);
    snprintf(mod, sizeof mod, M "decoder.layers.%d.mlp.linear_fc1.ColumnParallelLinear.forward.0", l);
    linear(g, mod, mlp, l, "fc1", 0, 160.0);
    simple(g, A_GELU, mlp, 60.0, "megatron/core/transformer/mlp.py", 121, "intermediate_parallel = self.activation_func(intermediate_parallel)");
    snprintf(mod, sizeof mod, M "decoder.layers.%d.mlp.linear_fc2.RowParallelLinear.forward.0", l);
    linear(g, mod, mlp, l, "fc2", 1, 50.0);
    module(g, mlp, L, min, g->act, "megatron/core/transformer/mlp.py", 108);
    simple(g, A_ADD, L, 80.0, "megatron/core/transformer/transformer_layer.py", 330, "hidden_states = residual + mlp_output");
    module(g, L, M "decoder.TransformerBlock.forward.0", lin, g->act, "megatron/core/transformer/transformer_block.py", 420);
}

static int p2p_kwarg(char *kw, size_t n, const char *key, int peer) {
    return snprintf(kw, n, "\n    \"%s\": {\n     \"type\": \"int\",\n     \"value\": %d\n    }\n   ", key, peer);
}

static void forward(struct gen *g, struct ts recv_act) {
    char name[256], kw[200];
    const char *root = M "GPTModel.forward.0";
    if (g->stage == 0) {
        /* the embedding table (the token ids, integers, are left out: their
           norm would set the heat map's whole colour range) */
        struct ts in[1];
        in[0] = weight(g, "embedding.word_embeddings.weight");
        struct ts out = fresh(g, "embedding", 55.0);
        out.nan = in[0].nan;
        const char *emb = M "embedding.LanguageModelEmbedding.forward.0";
        snprintf(name, sizeof name, "%s.%d.forward", api_names[A_EMB], g->calls[A_EMB]++);
        entry(g, name, in, 1, "", out, "torch.bfloat16");
        construct(g, name, emb);
        stack_entry(g, name, "megatron/core/tensor_parallel/layers.py", 250, "output_parallel = self.weight[masked_input]");
        module(g, emb, root, in[0], out, "megatron/core/models/common/embeddings/language_model_embedding.py", 100);
        g->act = out;
    } else {
        p2p_kwarg(kw, sizeof kw, "src", g->rank - DEMO_FILES_TP * DEMO_FILES_DP);
        struct ts buf = fresh(g, "recv_buffer", 0.0);
        api(g, A_RECV, NULL, &buf, 1, kw, recv_act, name, sizeof name, "megatron/core/pipeline_parallel/p2p_communication.py",
            180, "torch.distributed.recv(tensor_recv_prev, src=get_pipeline_model_parallel_prev_rank())");
        g->act = recv_act;
    }
    struct ts blk_in = g->act;
    for (int l = 0; l < LPS; l++) layer(g, l);
    if (g->stage == DEMO_FILES_PP - 1) {
        layernorm(g, M "decoder.final_layernorm.FusedLayerNorm.forward.0", M "decoder.TransformerBlock.forward.0");
        module(g, M "decoder.TransformerBlock.forward.0", root, blk_in, g->act, "megatron/core/transformer/transformer_block.py", 480);
        linear(g, M "output_layer.ColumnParallelLinear.forward.0", root, -1, "out", 0, 900.0);
        module(g, root, NULL, blk_in, g->act, "megatron/core/models/gpt/gpt_model.py", 250);
        struct ts loss = fresh(g, "loss", 10.5);
        loss.max = loss.min = loss.mean = loss.norm = 10.5 - 0.3 * g->step;
        if (g->problem) loss = scaled(loss, g->drift);
        loss.nan = g->act.nan;
        struct ts in = g->act;
        api(g, A_CE, NULL, &in, 1, "", loss, name, sizeof name, "pretrain_gpt.py", 140,
            "losses = tensor_parallel.vocab_parallel_cross_entropy(output_tensor.float(), labels)");
    } else {
        module(g, M "decoder.TransformerBlock.forward.0", root, blk_in, g->act, "megatron/core/transformer/transformer_block.py", 480);
        module(g, root, NULL, blk_in, g->act, "megatron/core/models/gpt/gpt_model.py", 250);
        p2p_kwarg(kw, sizeof kw, "dst", g->rank + DEMO_FILES_TP * DEMO_FILES_DP);
        struct ts in = g->act;
        api(g, A_SEND, NULL, &in, 1, kw, in, name, sizeof name, "megatron/core/pipeline_parallel/p2p_communication.py",
            170, "torch.distributed.send(tensor_send_next, dst=get_pipeline_model_parallel_next_rank())");
    }
}

/* One rank's three files of one step; *sent: what stage 0 sent. */
static int rank_files(struct demo_files *set, int problem, int step, int rank, struct ts *sent) {
    struct gen g;
    memset(&g, 0, sizeof g);
    g.problem = problem;
    g.step = step;
    g.rank = rank;
    g.t = rank % DEMO_FILES_TP;
    g.stage = DEMO_FILES_STAGE(rank);
    g.dp = DEMO_FILES_DPI(rank);
    g.drift = 1;
    g.weights_nan = problem && step > DEMO_FILES_BORN_STEP;
    char *db = NULL, *cb = NULL, *sb = NULL;
    size_t dl = 0, cl = 0, sl = 0;
    g.dump = open_memstream(&db, &dl);
    g.cons = open_memstream(&cb, &cl);
    g.stack = open_memstream(&sb, &sl);
    if (!g.dump || !g.cons || !g.stack) {
        if (g.dump) fclose(g.dump);
        if (g.cons) fclose(g.cons);
        if (g.stack) fclose(g.stack);
        free(db);
        free(cb);
        free(sb);
        return -1;
    }
    fputs("{\n \"task\": \"statistics\",\n \"level\": \"mix\",\n \"framework\": \"pytorch\",\n \"dump_data_dir\": null,\n"
          " \"data\": {", g.dump);
    fputc('{', g.cons);
    fputc('{', g.stack);
    forward(&g, *sent);
    if (g.stage == 0) *sent = g.act;
    fputs("\n }\n}", g.dump);
    fputs("\n}", g.cons);
    fputs("\n}", g.stack);
    int bad = fclose(g.dump) != 0;
    bad |= fclose(g.cons) != 0;
    bad |= fclose(g.stack) != 0;
    if (bad) {
        free(db);
        free(cb);
        free(sb);
        return -1;
    }
    char path[200];
    const char *root = problem ? DEMO_FILES_PROBLEM : DEMO_FILES_BENCH;
    snprintf(path, sizeof path, "%s/step%d/rank%d/dump.json", root, step, rank);
    int rc = demo_set_add(set, path, db, dl);
    snprintf(path, sizeof path, "%s/step%d/rank%d/construct.json", root, step, rank);
    if (rc == 0) rc = demo_set_add(set, path, cb, cl);
    else free(cb);
    snprintf(path, sizeof path, "%s/step%d/rank%d/stack.json", root, step, rank);
    if (rc == 0) rc = demo_set_add(set, path, sb, sl);
    else free(sb);
    return rc;
}

int demo_dump_runs(struct demo_files *set) {
    for (int problem = 1; problem >= 0; problem--)
        for (int s = 0; s < DEMO_FILES_STEPS; s++) {
            /* stage 0 before stage 1: what each sends is what the next receives */
            struct ts sent[DEMO_FILES_RANKS];
            memset(sent, 0, sizeof sent);
            for (int stage = 0; stage < DEMO_FILES_PP; stage++)
                for (int r = 0; r < DEMO_FILES_RANKS; r++) {
                    if (DEMO_FILES_STAGE(r) != stage) continue;
                    struct ts *box = &sent[stage ? r - DEMO_FILES_TP * DEMO_FILES_DP : r];
                    if (rank_files(set, problem, s, r, box) != 0) return -1;
                }
        }
    return 0;
}
