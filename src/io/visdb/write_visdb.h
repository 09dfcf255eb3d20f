/* write_visdb: the .vis.db msProbe's graph_visualize writes, from our own
 * graphs (probetop-formats(5), VIS.DB; probetop(1), compare --vis-db).
 *
 * One database holds every (step, rank) graph of a run: a compare (the
 * problem graph as data_source NPU, the benchmark as Bench, from a
 * model/compare/compare.h graph compare) or a build (one run, NPU only).
 * Rows are msProbe's row for row: tb_nodes (node order, type, parent,
 * children, precision index, overflow level with -oc, micro step,
 * counterpart chain, stack id, communication links, the params of
 * input_data / output_data as msProbe formats them), tb_stack, tb_config
 * and the seven indexes.
 *
 * The file is written under a temporary name beside the one asked for
 * (FILE.tmp.PID, no journal) and renamed into place at write_visdb_close;
 * a run that fails leaves no file. */
#ifndef PT_WRITE_VISDB_H
#define PT_WRITE_VISDB_H

#include "model/compare/compare.h"
#include "model/err.h"
#include "model/graph/tree.h"

struct write_visdb;

struct write_visdb_opts {
    int compare;          /* 1: compare database, 0: build */
    int overflow;         /* -oc: overflow levels, tb_config.overflow_check 1 */
};

int write_visdb_open(const char *path, const struct write_visdb_opts *o, struct write_visdb **out,
                     struct pt_error *err);
/* One (step, rank) pair of a compare: g's two trees (built), their step and
 * rank as set on the trees. */
int write_visdb_compare(struct write_visdb *w, const struct cmp_graph *g, struct pt_error *err);
/* One (step, rank) graph of a build (t built). */
int write_visdb_build(struct write_visdb *w, const struct tree *t, struct pt_error *err);
/* ok: the communication links, tb_config, the indexes, then the rename;
 * !ok: the temporary file removed.  Frees w.  0, or -1 with err. */
int write_visdb_close(struct write_visdb *w, int ok, struct pt_error *err);

#endif
