/* graph: what the tree and detail panes share (views/tree.c, views/detail.c). */
#ifndef PT_VIEWS_GRAPH_H
#define PT_VIEWS_GRAPH_H

struct app;

/* The node the tree pane has selected (or the node of its list row), -1
 * none; *side = 0 problem, 1 benchmark. */
int tree_selected(struct app *a, int *side);

#endif
