/* cmd_compare_visdb: the build .vis.db of one run (cmd_compare_visdb.h). */
#include <stdio.h>

#include "src/cmd/cmd.h"
#include "src/cmd/cmd_compare_visdb.h"
#include "src/io/dump/read_graph.h"
#include "src/io/visdb/write_visdb.h"

int cmd_compare_visdb_build(const char *path, const char *vis, int overflow) {
    struct pt_error err;
    struct graph_dirs d;
    if (graph_scan(path, &d, &err) != 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        return EXIT_USAGE;
    }
    struct write_visdb *w = NULL;
    struct write_visdb_opts o = {.compare = 0, .overflow = overflow};
    int rc = write_visdb_open(vis, &o, &w, &err);
    for (size_t i = 0; rc == 0 && i < d.n; i++) {
        struct tree *t = NULL;
        if (graph_read(d.v[i].dir, GRAPH_BUILD, &t, &err) != 0) {
            rc = -1;
            break;
        }
        t->step = d.v[i].step;
        t->rank = d.v[i].rank;
        rc = write_visdb_build(w, t, &err);
        if (rc == 0) printf("step %d rank %d: %zu nodes\n", (int)t->step, (int)t->rank, t->norder);
        tree_free(t);
    }
    if (w && write_visdb_close(w, rc == 0, rc == 0 ? &err : NULL) != 0) rc = -1;
    graph_dirs_free(&d);
    if (rc != 0) {
        fprintf(stderr, "probetop compare: %s\n", CMD_ESC(err.msg));
        return EXIT_USAGE;
    }
    return EXIT_OK;
}
