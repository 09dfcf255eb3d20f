/* demo: the demo transformer (see demo.h). */
#include "model/cube/demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "Module.module.module."

enum { MET_FWD, MET_BWD, MET_PGRAD, NMET };
static const char *const metric_names[NMET] = {"forward", "backward", "parameters_grad"};
static const char *const stat_names[4] = {"norm", "max", "min", "mean"};

/* One row of a decoder layer, in execution order. */
struct slot {
    const char *mod;     /* module path inside the layer, or NULL for an API call */
    const char *io;      /* "input.0", "output.0" */
    const char *api;     /* "Functional.linear", "Tensor.__add__" when mod == NULL */
    int call_k, calls;   /* call index = layer * calls + call_k */
    double base;         /* typical forward norm */
};

static const struct slot layer_slots[] = {
    {"input_layernorm.RMSNorm", "output.0", NULL, 0, 0, 30},
    {"self_attention.linear_qkv.ColumnParallelLinear", "input.0", NULL, 0, 0, 30},
    {NULL, "output.0", "Functional.linear", 0, 4, 45},
    {"self_attention.linear_qkv.ColumnParallelLinear", "output.0", NULL, 0, 0, 45},
    {"self_attention.core_attention.DotProductAttention", "output.0", NULL, 0, 0, 12},
    {"self_attention.linear_proj.RowParallelLinear", "input.0", NULL, 0, 0, 12},
    {NULL, "output.0", "Functional.linear", 1, 4, 20},
    {"self_attention.linear_proj.RowParallelLinear", "output.0", NULL, 0, 0, 20},
    {NULL, "output.0", "Tensor.__add__", 0, 2, 40},
    {"pre_mlp_layernorm.RMSNorm", "output.0", NULL, 0, 0, 30},
    {"mlp.linear_fc1.ColumnParallelLinear", "input.0", NULL, 0, 0, 30},
    {NULL, "output.0", "Functional.linear", 2, 4, 80},
    {"mlp.linear_fc1.ColumnParallelLinear", "output.0", NULL, 0, 0, 80},
    {"mlp.linear_fc2.RowParallelLinear", "input.0", NULL, 0, 0, 25},
    {NULL, "output.0", "Functional.linear", 3, 4, 35},
    {"mlp.linear_fc2.RowParallelLinear", "output.0", NULL, 0, 0, 35},
    {NULL, "output.0", "Tensor.__add__", 1, 2, 50},
};
#define NSLOTS ((int)(sizeof layer_slots / sizeof layer_slots[0]))
#define BURST_SLOT 15   /* mlp.linear_fc2 output */
#define DRIFT_SLOT 7    /* self_attention.linear_proj output */
#define DRIFT_LAYER 2

static const char *const weight_mods[4] = {
    "self_attention.linear_qkv.ColumnParallelLinear", "self_attention.linear_proj.RowParallelLinear",
    "mlp.linear_fc1.ColumnParallelLinear", "mlp.linear_fc2.RowParallelLinear",
};

/* The shape of one demo and where its burst starts. */
struct shape {
    int nsteps, nranks, nlayers;
    int burst_step, burst_rank, burst_layer, peer_rank;
};

/* A target of the demo: what the value model needs about it. */
struct dtarget {
    uint32_t id;
    int layer;           /* -1 embedding, nlayers = after the last layer */
    int pos;             /* execution position */
    int slot;            /* layer_slots index, -1 outside layers */
    double base;
    int drift;
};

double demo_noise(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
    uint64_t z = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
                 (c + 0x8cb92ba72f3d8dd7ull) * 0x94d049bb133111ebull ^ d * 0xd6e8feb86659fd39ull;
    z ^= z >> 30; z *= 0xbf58476d1ce4e5b9ull;
    z ^= z >> 27; z *= 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 52) - 1.0;
}

/* First execution position that is non-finite in the forward pass of
 * (step, rank), or INT_MAX-ish when the pass is clean.  The burst starts at
 * one module on one rank, reaches earlier layers a step later (the
 * optimizer wrote NaN into the weights), the tensor-parallel peer one step
 * after the rank, and every rank two steps after that. */
static int nan_from(const struct shape *sh, const struct dtarget *first_of_layer, int step, int rank) {
    int delay = rank == sh->burst_rank ? 0 : rank == sh->peer_rank ? 1 : 3;
    int k = step - sh->burst_step - delay;
    if (k < 0) return 1 << 30;
    if (k == 0) return first_of_layer[sh->burst_layer].pos + BURST_SLOT;
    int layer = sh->burst_layer - 2 * k;
    if (layer <= 0) return 0;
    return first_of_layer[layer].pos;
}

/* Values of one (metric, target, step, rank): vals[4] = norm, max, min, mean. */
static void cell(const struct shape *sh, const struct dtarget *t, const struct dtarget *layer0, int metric,
                 int step, int rank, double vals[4]) {
    int from = nan_from(sh, layer0, step, rank);
    int bad = metric == MET_FWD ? t->pos >= from : from < (1 << 30);
    if (bad) {
        if (metric == MET_FWD && t->pos == from && step == sh->burst_step && rank == sh->burst_rank) {
            vals[0] = INFINITY; vals[1] = INFINITY; vals[2] = -INFINITY; vals[3] = NAN;
        } else {
            vals[0] = vals[1] = vals[2] = vals[3] = NAN;
        }
        return;
    }
    double scale = metric == MET_FWD ? 1.0 : metric == MET_BWD ? 2e-3 : 4e-2;
    double n = t->base * scale * (1 + 0.03 * (t->layer < 0 ? 0 : t->layer));
    n *= 1 + 0.04 * demo_noise(t->id, (uint64_t)step, (uint64_t)rank, (uint64_t)metric * 4 + 0);
    n *= 1 - 0.008 * step;                      /* training settles */
    n *= 1 + 0.01 * (rank % 2);                 /* the TP halves differ a little */
    if (t->drift) n *= 1 + (metric == MET_FWD ? 0.3 : 0.15) * step;
    double mx = n * 0.12 * (1 + 0.1 * demo_noise(t->id, (uint64_t)step, (uint64_t)rank, (uint64_t)metric * 4 + 1));
    double mn = -mx * (0.9 + 0.1 * demo_noise(t->id, (uint64_t)step, (uint64_t)rank, (uint64_t)metric * 4 + 2));
    double mean = 0.002 * n * demo_noise(t->id, (uint64_t)step, (uint64_t)rank, (uint64_t)metric * 4 + 3);
    vals[0] = n; vals[1] = mx; vals[2] = mn; vals[3] = mean;
}

/* Interns the forward targets of a model of nlayers layers (at most max
 * targets) into n; fills t[] and first_of_layer[]. */
static int make_targets(struct names *n, int nlayers, int max, int with_ends, struct dtarget *t,
                        struct dtarget *first_of_layer, int *count) {
    char name[256];
    int k = 0, pos = 0;
    if (with_ends && k < max) {
        uint32_t id = names_intern(n, PREFIX "embedding.word_embeddings.VocabParallelEmbedding.output.0",
                                   strlen(PREFIX "embedding.word_embeddings.VocabParallelEmbedding.output.0"), 0, 0);
        if (id == NAMES_NONE) return -1;
        t[k++] = (struct dtarget){id, -1, pos++, -1, 25, 0};
    }
    for (int l = 0; l < nlayers && k < max; l++) {
        first_of_layer[l].pos = pos;
        for (int s = 0; s < NSLOTS && k < max; s++) {
            const struct slot *sl = &layer_slots[s];
            int32_t call = 0;
            if (sl->mod) snprintf(name, sizeof name, PREFIX "decoder.layers.%d.%s.%s", l, sl->mod, sl->io);
            else { snprintf(name, sizeof name, "%s.%s", sl->api, sl->io); call = l * sl->calls + sl->call_k; }
            uint32_t id = names_intern(n, name, strlen(name), 0, call);
            if (id == NAMES_NONE) return -1;
            t[k++] = (struct dtarget){id, l, pos++, s, sl->base, l == DRIFT_LAYER && s == DRIFT_SLOT};
        }
    }
    if (with_ends) {
        static const char *const tail[2] = {
            PREFIX "decoder.final_layernorm.RMSNorm.output.0",
            PREFIX "output_layer.ColumnParallelLinear.output.0",
        };
        for (int i = 0; i < 2 && k < max; i++) {
            uint32_t id = names_intern(n, tail[i], strlen(tail[i]), 0, 0);
            if (id == NAMES_NONE) return -1;
            t[k++] = (struct dtarget){id, nlayers, pos++, -1, i ? 60 : 30, 0};
        }
    }
    *count = k;
    return 0;
}

int demo_cube(struct cube **out, struct pt_error *err) {
    const struct shape sh = {DEMO_STEPS, DEMO_RANKS, DEMO_LAYERS, DEMO_BURST_STEP, DEMO_BURST_RANK, 5, 4};
    struct dtarget t[3 + DEMO_LAYERS * NSLOTS], layer0[DEMO_LAYERS];
    struct dtarget w[DEMO_LAYERS * 4];
    int nt = 0;
    char name[256];
    *out = NULL;
    struct names *n = names_new();
    if (!n) return pt_errorf(err, "demo: out of memory");
    struct cube_builder *b = cube_builder_new(n);
    if (!b) { names_free(n); return pt_errorf(err, "demo: out of memory"); }
    if (make_targets(n, DEMO_LAYERS, (int)(sizeof t / sizeof t[0]), 1, t, layer0, &nt) < 0) goto oom;
    /* Parameter gradients: the four weights of every layer. */
    for (int l = 0; l < DEMO_LAYERS; l++)
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, PREFIX "decoder.layers.%d.%s.weight", l, weight_mods[i]);
            uint32_t id = names_intern(n, name, strlen(name), 0, 0);
            if (id == NAMES_NONE) goto oom;
            w[l * 4 + i] = (struct dtarget){id, l, 0, -1, 40, 0};
        }
    int met[NMET];
    for (int m = 0; m < NMET; m++)
        if ((met[m] = cube_builder_metric(b, metric_names[m], 4, stat_names)) < 0) goto oom;
    for (int s = 0; s < sh.nsteps; s++)
        if (cube_builder_step(b, s, s, -1) < 0) goto oom;
    for (int r = 0; r < sh.nranks; r++)
        if (cube_builder_rank(b, r) < 0) goto oom;
    double v[4];
    for (int s = 0; s < sh.nsteps; s++)
        for (int r = 0; r < sh.nranks; r++) {
            for (int i = 0; i < nt; i++) {
                cell(&sh, &t[i], layer0, MET_FWD, s, r, v);
                if (cube_builder_add(b, met[MET_FWD], t[i].id, s, r, v, 0xf) < 0) goto oom;
                /* Backward hooks see modules, not API calls. */
                if (t[i].slot >= 0 && !layer_slots[t[i].slot].mod) continue;
                cell(&sh, &t[i], layer0, MET_BWD, s, r, v);
                if (cube_builder_add(b, met[MET_BWD], t[i].id, s, r, v, 0xf) < 0) goto oom;
            }
            for (int i = 0; i < DEMO_LAYERS * 4; i++) {
                cell(&sh, &w[i], layer0, MET_PGRAD, s, r, v);
                if (cube_builder_add(b, met[MET_PGRAD], w[i].id, s, r, v, 0xf) < 0) goto oom;
            }
        }
    if (names_build_labels(n, LABELS_DUMP) < 0) goto oom;
    int rc = cube_builder_finish(b, out, err);
    cube_builder_free(b);
    return rc;
oom:
    cube_builder_free(b);
    return pt_errorf(err, "demo: out of memory");
}

int demo_cube_big(int ranks, int targets, struct cube **out, struct pt_error *err) {
    *out = NULL;
    if (ranks < 1 || ranks > 100000 || targets < 1 || targets > 100000)
        return pt_errorf(err, "demo size %dx%d: ranks and targets must be 1..100000", ranks, targets);
    int nlayers = (targets + NSLOTS - 1) / NSLOTS;
    struct shape sh = {4, ranks, nlayers, 1, ranks * 5 / 8, nlayers * 5 / 8, (ranks * 5 / 8) ^ 1};
    if (sh.peer_rank >= ranks) sh.peer_rank = sh.burst_rank;
    struct dtarget *t = malloc((size_t)targets * sizeof *t);
    struct dtarget *layer0 = malloc((size_t)nlayers * sizeof *layer0);
    struct names *n = names_new();
    struct cube *c = calloc(1, sizeof *c);
    int nt = 0;
    if (c) c->names = n;
    if (!t || !layer0 || !n || !c) goto oom;
    if (make_targets(n, nlayers, targets, 0, t, layer0, &nt) < 0) goto oom;
    c->nsteps = sh.nsteps;
    c->nranks = ranks;
    c->steps = calloc((size_t)sh.nsteps, sizeof *c->steps);
    c->ranks = calloc((size_t)ranks, sizeof *c->ranks);
    c->metrics = calloc(1, sizeof *c->metrics);
    if (!c->steps || !c->ranks || !c->metrics) goto oom;
    for (int s = 0; s < sh.nsteps; s++) c->steps[s] = (struct cube_step){s, s, -1};
    for (int r = 0; r < ranks; r++) c->ranks[r] = r;
    c->nmetrics = 1;
    struct cube_metric *m = &c->metrics[0];
    m->name = strdup("forward");
    m->stats[0] = strdup("norm");
    if (!m->name || !m->stats[0]) goto oom;
    m->nstats = 1;
    m->ntargets = (uint32_t)nt;
    m->targets = malloc((size_t)nt * sizeof *m->targets);
    m->vals = malloc((size_t)nt * sh.nsteps * ranks * sizeof *m->vals);
    if (!m->targets || !m->vals) goto oom;
    double v[4];
    for (int i = 0; i < nt; i++) {
        m->targets[i] = t[i].id;   /* interned in order: local == global */
        for (int s = 0; s < sh.nsteps; s++)
            for (int r = 0; r < ranks; r++) {
                cell(&sh, &t[i], layer0, MET_FWD, s, r, v);
                m->vals[cube_index(c, m, 0, (uint32_t)i, s, r)] = (float)v[0];
            }
    }
    if (names_build_labels(n, LABELS_DUMP) < 0) goto oom;
    free(t);
    free(layer0);
    *out = c;
    return 0;
oom:
    free(t);
    free(layer0);
    if (c) cube_free(c);   /* frees n too */
    else if (n) names_free(n);
    return pt_errorf(err, "demo %dx%d: out of memory", ranks, targets);
}
