/* pt_graph.h: a fixture dump read into a tree by the graph reader, for the
 * tests of the tree, the compare and the run summary.  Include after
 * pt_test.h. */
#ifndef PT_GRAPH_H
#define PT_GRAPH_H

#include "src/io/dump/read_graph.h"

/* tests/data/msprobe/<rel> read with flags (GRAPH_BUILD...); NULL
 * when the fixture is absent or does not read (the reason on stderr). */
static inline struct tree *pt_graph_load(const char *rel, int flags) {
    const char *dir = pt_fixture(rel);
    if (!dir) return NULL;
    struct tree *t;
    struct pt_error err;
    if (graph_read(dir, flags, &t, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    return t;
}

#endif
