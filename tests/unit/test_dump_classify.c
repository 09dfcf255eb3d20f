/* A dump record name's metric and stored name (src/io/dump/dump_classify.c):
 * names written out by hand with msProbe's answers (Python's
 * str.replace(".forward.", ".").replace(".forward", "") and the like), and
 * many made of the words that matter, held to the classification as it was
 * written before the one-walk path (the test of ".<w>." or the end, then
 * dump_strip_word's two passes). */
#include "pt_test.h"

#include <stdlib.h>

#include "src/io/dump/dump_classify.h"
#include "src/io/dump/read_dump.h"

static char out[512];

/* dump_classify of name into out; its metric. */
static int cls(const char *name) {
    size_t n = strlen(name);
    memcpy(out, name, n + 1);
    int m = dump_classify(out, &n);
    if (m >= 0) CHECK_INT(strlen(out), n);
    return m;
}

static void by_hand(void) {
    static const struct { const char *name; int metric; const char *stored; } v[] = {
        {"Module.layers.17.mlp.forward.0", DM_FORWARD, "Module.layers.17.mlp.0"},
        {"Module.layers.17.mlp.backward.3", DM_BACKWARD, "Module.layers.17.mlp.3"},
        {"Tensor.add.0.forward", DM_FORWARD, "Tensor.add.0"},
        {"a.forward.forward.b", DM_FORWARD, "a.b"},        /* pass 1 keeps one, pass 2 takes it */
        {"a.forwardx.forward.1", DM_FORWARD, "ax.1"},      /* ".forward" before "x" goes in pass 2 */
        {"a.forwardx.1", -1, NULL},                        /* no ".forward." and not at the end */
        {"a.forwardx.backward.1", DM_BACKWARD, "a.forwardx.1"},   /* forward's test fails: whole for backward */
        {"x.backward", DM_BACKWARD, "x"},
        {".forward", DM_FORWARD, ""},
        {".forward.", DM_FORWARD, "."},
        {"Module.fc.weight.parameters_grad", DM_PARAMS_GRAD, "Module.fc.weight"},
        {"Module.fc.parameters_grad.1", DM_PARAMS_GRAD, "Module.fc"},
        {"Module.fc.weight", -1, NULL},
        /* longer than 16 and 32 bytes: the word in a whole block, across two, in the last bytes */
        {"Module.language_model.encoder.layers.0.forward.0", DM_FORWARD, "Module.language_model.encoder.layers.0.0"},
        {"Module.layers.17.self_attention.core_attention.backward", DM_BACKWARD,
         "Module.layers.17.self_attention.core_attention"},
        {"Functional.linear.forward.1", DM_FORWARD, "Functional.linear.1"},
        {"Functional.linear.forwards.1", -1, NULL},
        {"Torch.matmul.backwar", -1, NULL},
        {"Module.a.backward.b.forward.c.backward", DM_FORWARD, "Module.a.backward.b.c.backward"},
        {"Module.layers.1.backward.0.backward", DM_BACKWARD, "Module.layers.1.0"},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        CHECK_INT(cls(v[i].name), v[i].metric);
        if (v[i].stored) CHECK_STR(out, v[i].stored);
    }
}

/* The classification as written before: ".<w>." anywhere or ".<w>" at the
 * end, then the two passes for every name. */
static int old_way(char *k, size_t *n) {
    static const char *const words[2] = {"forward", "backward"};
    for (int w = 0; w < 2; w++) {
        char dotted[16], tail[16];
        snprintf(dotted, sizeof dotted, ".%s.", words[w]);
        snprintf(tail, sizeof tail, ".%s", words[w]);
        size_t tl = strlen(tail);
        int has = 0;
        for (size_t i = 0; i + tl + 1 <= *n && !has; i++) has = !memcmp(k + i, dotted, tl + 1);
        if (has || (*n >= tl && !memcmp(k + *n - tl, tail, tl))) {
            *n = dump_strip_word(k, *n, words[w]);
            return w == 0 ? DM_FORWARD : DM_BACKWARD;
        }
    }
    return -2;   /* the rest (parameters_grad) is the same code either way */
}

static void made_names(void) {
    /* long parts too: names past 16 and 32 bytes go through the sixteen-byte
     * blocks and the last block's masked bytes (find_words) */
    static const char *const parts[] = {".forward", ".backward", ".", "forward", "x", ".0", ".forwardx", "b",
                                        ".backwardy", "Module.layers.17", ".f", ".b", "backward"};
    srand(27);
    int odd = 0;
    for (int t = 0; t < 200000; t++) {
        char name[512], a[512], b[512];
        size_t n = 0;
        int np = 1 + rand() % (t % 2 ? 7 : 16);
        for (int i = 0; i < np; i++) {
            const char *p = parts[rand() % (int)(sizeof parts / sizeof *parts)];
            size_t l = strlen(p);
            memcpy(name + n, p, l);
            n += l;
        }
        name[n] = '\0';
        size_t na = n, nb = n;
        memcpy(a, name, n + 1);
        memcpy(b, name, n + 1);
        int ma = dump_classify(a, &na), mb = old_way(b, &nb);
        if (mb == -2) continue;   /* not forward or backward: not what changed */
        if (ma != mb || na != nb || memcmp(a, b, na + 1)) {
            if (odd++ < 5) printf("  %s: %d '%s' (was %d '%s')\n", name, ma, a, mb, b);
        }
    }
    CHECK_INT(odd, 0);
}

int main(void) {
    RUN(by_hand);
    RUN(made_names);
    PT_DONE();
}
