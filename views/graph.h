/* graph: what the tree and detail panes share (views/tree.c, views/detail.c). */
#ifndef PT_VIEWS_GRAPH_H
#define PT_VIEWS_GRAPH_H

#include <stdint.h>

#include "model/err.h"

struct app;

/* The node the tree pane has selected (or the node of its list row), -1
 * none; *side = 0 problem, 1 benchmark. */
int tree_selected(struct app *a, int *side);

/* Shows node name of the graph of (step, rank) in the tree screen, loading
 * that graph first when another one is shown (the node is selected when the
 * load completes).  0 ok, -1 with a message. */
int tree_goto(struct app *a, int32_t step, int32_t rank, const char *name, struct pt_error *err);

#endif
