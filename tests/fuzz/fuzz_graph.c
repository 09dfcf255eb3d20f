/* fuzz_graph: one rank folder through src/io/dump/read_graph.c, the reader of the
 * model tree and compare panes: input "dump.json \x1e construct.json \x1e
 * stack.json" (missing parts: no such file), read with GRAPH_BUILD, then
 * the same tree compared with itself (model/compare/compare.c on what the reader
 * accepted). */
#include "fuzz.h"

#include "model/compare/compare.h"
#include "src/io/dump/read_graph.h"

static const char *const names[3] = {"dump.json", "construct.json", "stack.json"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[3];
    size_t len[3];
    int n = fuzz_split(data, size, part, len, 3);
    for (int i = 0; i < 3; i++) {
        if (i < n) fuzz_write(names[i], part[i], len[i]);
        else fuzz_unlink(names[i]);
    }
    struct tree *t = NULL;
    struct pt_error err;
    if (graph_read(fuzz_dir(), GRAPH_BUILD, &t, &err) == 0 && t) {
        struct cmp_opts o = {0};
        struct cmp_graph *g = NULL;
        if (cmp_graph_new(t, t, &o, &g, &err) == 0) cmp_graph_free(g);
        tree_free(t);
    }
    t = NULL;
    if (graph_read(fuzz_dir(), 0, &t, &err) == 0) tree_free(t);
    return 0;
}
