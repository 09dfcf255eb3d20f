/* read_visdb: a graph msProbe's graph_visualize built (build_*.vis.db /
 * compare_*.vis.db, probetop-formats(5), VIS.DB), opened read-only.
 *
 * visdb_open() checks the schema (a database of another kind gets a
 * message saying what it is) and reads tb_config; visdb_load() turns one
 * graph (step, rank, NPU or Bench side) into a struct tree in msProbe's
 * child order, with the stored verdicts beside it: precision index,
 * counterpart, overflow level, and the stored compare rows of each node
 * decoded once into model structs (model/graph/visparam.h). */
#ifndef PT_READ_VISDB_H
#define PT_READ_VISDB_H

#include <stdint.h>

#include "model/err.h"
#include "model/graph/tree.h"
#include "model/graph/visparam.h"

struct sqlite3;

struct visdb {
    struct sqlite3 *db;
    char *path;
    int compare;              /* graph_type "compare" (else "build") */
    char task[16];            /* summary / md5 / all / structure, "" for build */
    int micro_steps;
    int overflow_check;
    int32_t *ranks, *steps;
    size_t nranks, nsteps;
};

struct visdb_graph {
    struct tree *tree;        /* the nodes (no params: see input/output) */
    double *index;            /* per node: precision index, NAN when NULL */
    char **link;              /* per node: the counterpart id, NULL when unmatched */
    char **overflow;          /* per node: "medium"/"high"/"critical", NULL */
    struct vis_params *in, *out;   /* per node: input_data / output_data, decoded; a column
                                      that is not a JSON object keeps its message in .error */
};

int visdb_open(const char *path, struct visdb **out, struct pt_error *err);
void visdb_close(struct visdb *v);

/* source: "NPU" or "Bench". */
int visdb_load(struct visdb *v, int32_t step, int32_t rank, const char *source, struct visdb_graph **out,
               struct pt_error *err);
void visdb_graph_free(struct visdb_graph *g);

#endif
