/* layout (pane): what the heat map asks of the Megatron layout pane. */
#ifndef PT_VIEWS_LAYOUT_H
#define PT_VIEWS_LAYOUT_H

struct app;

/* The heat map's rank axis order under `:group`: perm gets cube rank
 * indexes in display order.  Returns 0 when filled, -1 for the natural
 * order (no layout, `:group none`, or no cube).  Ranks outside the layout
 * keep their order after the others. */
int view_layout_rank_order(const struct app *a, int *perm, int n);

#endif
