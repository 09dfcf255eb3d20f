/* fuzz_pair.h: a tiny problem/benchmark pair of rank folders, written into
 * the harness's folder once and read with src/io/dump/read_graph.c, for the
 * harnesses of the files that act on a pair (layer-mapping YAML, match
 * config).  The problem run names two modules differently ("attention" vs
 * "self_attention", "mlp" vs "feed_forward"), as layer mappings exist for. */
#ifndef PT_FUZZ_PAIR_H
#define PT_FUZZ_PAIR_H

#include "fuzz.h"

#include "src/io/dump/read_graph.h"

#define FP_T(d) "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2, 4], " \
                "\"Max\": " d ", \"Min\": -1.0, \"Mean\": 0.5, \"Norm\": 3.0, \"requires_grad\": true}"
#define FP_REC(name, d) "\"" name "\": {\"input_args\": [" FP_T(d) "], \"input_kwargs\": {}, \"output\": [" FP_T(d) "]}"
#define FP_DUMP(att, mlp)                                                                        \
    "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {"       \
    FP_REC("Module.model.Net.forward.0", "1.0") ", "                                              \
    FP_REC("Module.model." att ".Attention.forward.0", "2.0") ", "                                \
    FP_REC("Torch.matmul.0.forward", "2.5") ", "                                                  \
    FP_REC("Module.model." mlp ".MLP.forward.0", "3.0") ", "                                      \
    FP_REC("Tensor.__add__.0.forward", "3.5") ", "                                                \
    FP_REC("Module.model." mlp ".MLP.backward.0", "4.0") ", "                                     \
    FP_REC("Module.model.Net.backward.0", "5.0") "}}"
#define FP_CONS(att, mlp)                                                                        \
    "{\"Module.model.Net.forward.0\": null, "                                                     \
    "\"Module.model." att ".Attention.forward.0\": \"Module.model.Net.forward.0\", "              \
    "\"Torch.matmul.0.forward\": \"Module.model." att ".Attention.forward.0\", "                  \
    "\"Module.model." mlp ".MLP.forward.0\": \"Module.model.Net.forward.0\", "                    \
    "\"Tensor.__add__.0.forward\": \"Module.model." mlp ".MLP.forward.0\", "                      \
    "\"Module.model.Net.backward.0\": null, "                                                     \
    "\"Module.model." mlp ".MLP.backward.0\": \"Module.model.Net.backward.0\"}"

/* Reads the pair (once per process; the trees live until exit). */
static void fuzz_pair(struct tree **npu, struct tree **bench) {
    static struct tree *t[2];
    if (!t[0]) {
        static const char *const dump[2] = {FP_DUMP("attention", "mlp"), FP_DUMP("self_attention", "feed_forward")};
        static const char *const cons[2] = {FP_CONS("attention", "mlp"), FP_CONS("self_attention", "feed_forward")};
        static const char *const side[2] = {"npu", "bench"};
        for (int i = 0; i < 2; i++) {
            char p[1024], f[1100];
            struct pt_error err;
            fuzz_path(p, sizeof p, side[i]);
            if (mkdir(p, 0700) != 0) { perror(p); abort(); }
            snprintf(f, sizeof f, "%s/dump.json", side[i]);
            fuzz_write(f, dump[i], strlen(dump[i]));
            snprintf(f, sizeof f, "%s/construct.json", side[i]);
            fuzz_write(f, cons[i], strlen(cons[i]));
            if (graph_read(p, GRAPH_BUILD, &t[i], &err) != 0) {
                fprintf(stderr, "fuzz_pair: %s\n", err.msg);
                abort();
            }
        }
    }
    *npu = t[0];
    *bench = t[1];
}

#endif
