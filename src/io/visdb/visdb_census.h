/* visdb_census: counts over a whole msProbe .vis.db (all its graphs), for
 * the headless commands: nodes per graph and side, matched nodes, the
 * levels the overflow check stored, and the flagged nodes themselves.
 * Reads through an open struct visdb (src/io/visdb/read_visdb.h: read-only,
 * immutable, nothing created beside the file). */
#ifndef PT_VISDB_CENSUS_H
#define PT_VISDB_CENSUS_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "src/io/visdb/read_visdb.h"

/* One (step, rank) graph; side 0 = the problem (NPU), 1 = the benchmark. */
struct visdb_census_graph {
    int32_t step, rank;
    size_t nodes[2];
    size_t matched[2];         /* nodes with a counterpart (compare graphs) */
    size_t ovf[2][4];          /* by enum ovf_level (model/overflow/overflow.h); [0] unused */
};

struct visdb_census {
    struct visdb_census_graph *graphs;   /* ascending (step, rank) */
    size_t n;
};

int visdb_census(struct visdb *v, struct visdb_census *out, struct pt_error *err);
void visdb_census_free(struct visdb_census *c);

/* A node the overflow check flagged. */
struct visdb_flagged {
    int32_t step, rank;
    int side;                  /* 0 problem (NPU), 1 benchmark */
    int level;                 /* enum ovf_level */
    long order;                /* node_order: execution order in its graph */
    char *name;                /* owned */
};

/* Every flagged node at min_level or above, by step, rank, side, order. */
int visdb_flagged(struct visdb *v, int min_level, struct visdb_flagged **out, size_t *n, struct pt_error *err);
void visdb_flagged_free(struct visdb_flagged *f, size_t n);

#endif
