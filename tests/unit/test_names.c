/* names: interning and the label rules of probetop-rules(7), LABELS (its verified examples). */
#include "pt_test.h"

#include "model/cube/names.h"

struct got { char s[2048]; };

static void collect(void *ctx, int cat, const char *text, size_t len) {
    struct got *g = ctx;
    char one[512];
    snprintf(one, sizeof one, "%s:%.*s;", label_cat_name(cat), (int)len, text);
    strncat(g->s, one, sizeof g->s - strlen(g->s) - 1);
}

/* Labels as a sorted "cat:text;" list for comparison. */
static const char *labels(const char *name, enum label_rules r) {
    static struct got g;
    char *parts[64];
    int n = 0;
    g.s[0] = '\0';
    labels_derive(name, strlen(name), r, collect, &g);
    static char sorted[2048];
    char tmp[2048];
    snprintf(tmp, sizeof tmp, "%s", g.s);
    for (char *t = strtok(tmp, ";"); t && n < 64; t = strtok(NULL, ";")) parts[n++] = t;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(parts[j - 1], parts[j]) > 0; j--) { char *x = parts[j]; parts[j] = parts[j - 1]; parts[j - 1] = x; }
    sorted[0] = '\0';
    for (int i = 0; i < n; i++) { strcat(sorted, parts[i]); strcat(sorted, ";"); }
    return sorted;
}

static void dump_examples(void) {
    CHECK_STR(labels("Module.blocks.0.fsdp_wrapped_module.norm.1.WanLayerNorm.input.0", LABELS_DUMP),
              "default:Module;index:input.0;layer:blocks.0;layer:norm.1;module:WanLayerNorm;module:fsdp_wrapped_module;");
    CHECK_STR(labels("Module.layer1.0.downsample.0.Conv2d.input.0", LABELS_DUMP),
              "default:Module;index:input.0;layer:downsample.0;layer:layer1.0;module:Conv2d;");
    CHECK_STR(labels("Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.output.0", LABELS_DUMP),
              "default:Module;index:output.0;layer:layers.0;module:module.module.language_model.encoder;module:self_attention.ParallelAttention;");
    CHECK_STR(labels("Module.0.module.decoder.layers.12.mlp.linear_fc1.ColumnParallelLinear.output.1", LABELS_DUMP),
              "default:Module;index:output.1;layer:layers.12;module:mlp.linear_fc1.ColumnParallelLinear;module:module.decoder;");
    CHECK_STR(labels("Module.layers.0.1.x.input.0", LABELS_DUMP), "default:Module;index:input.0;layer:layers.0;module:x;");
    CHECK_STR(labels("Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.input.0", LABELS_DUMP),
              "default:Cell;index:input.0;module:network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding;");
    CHECK_STR(labels("Module.fc.Linear.weight", LABELS_DUMP), "default:Module;index:Linear.weight;module:fc;");
    CHECK_STR(labels("Functional.conv2d.input.0", LABELS_DUMP), "function:Functional.conv2d;index:input.0;");
    CHECK_STR(labels("Primitive.norm.RmsNorm.output.0", LABELS_DUMP), "function:Primitive.norm.RmsNorm;index:output.0;");
    CHECK_STR(labels("Module.input.0", LABELS_DUMP), "");
    CHECK_STR(labels("a.b", LABELS_DUMP), "");
}

static void monitor_examples(void) {
    CHECK_STR(labels("module.decoder.layers.0.input_layernorm.weight", LABELS_MONITOR),
              "layer:layers.0;module:decoder;module:input_layernorm;module:layers;module:module;module:weight;");
    CHECK_STR(labels("1.post_attention_norm.weight", LABELS_MONITOR), "module:post_attention_norm;module:weight;");
    CHECK_STR(labels("module.embedding.word_embeddings.input_0", LABELS_MONITOR),
              "module:embedding;module:input_0;module:module;module:word_embeddings;");
}

static void interning(void) {
    struct names *n = names_new();
    uint32_t a = names_intern(n, "Functional.conv2d.input.0", 25, 0, 1);
    uint32_t b = names_intern(n, "Functional.conv2d.input.0", 25, 0, 2);
    uint32_t c = names_intern(n, "Functional.conv2d.input.0", 25, 0, 1);
    CHECK_INT(a, 0);
    CHECK_INT(b, 1);
    CHECK_INT(c, a);
    CHECK_INT(names_find(n, "Functional.conv2d.input.0", 25, 1, 1), NAMES_NONE);
    char buf[128];
    CHECK_STR(names_display(n, b, buf, sizeof buf), "Functional.conv2d.input.0#2");
    /* many names force rehashing; all stay findable */
    for (int i = 0; i < 20000; i++) {
        snprintf(buf, sizeof buf, "Module.layers.%d.mlp.Linear.output.0", i);
        names_intern(n, buf, strlen(buf), 0, 0);
    }
    CHECK_INT(names_count(n), 20002);
    CHECK_INT(names_find(n, "Module.layers.777.mlp.Linear.output.0", 37, 0, 0), 779);
    CHECK_INT(names_build_labels(n, LABELS_DUMP), 0);
    uint32_t l = names_label_find(n, "layers.777", LABEL_LAYER);
    CHECK(l != NAMES_NONE);
    CHECK_INT(names_label(n, l)->ntargets, 1);
    CHECK_INT(names_label(n, l)->targets[0], 779);
    uint32_t idx = names_label_find(n, "output.0", -1);
    CHECK(idx != NAMES_NONE);
    CHECK_INT(names_label(n, idx)->ntargets, 20000);
    const uint32_t *ids;
    uint32_t cnt;
    names_target_labels(n, 0, &ids, &cnt);
    CHECK_INT(cnt, 2);   /* function Functional.conv2d, index input.0 */
    names_free(n);
}

int main(void) {
    RUN(dump_examples);
    RUN(monitor_examples);
    RUN(interning);
    PT_DONE();
}
