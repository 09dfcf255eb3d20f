/* tree_flow: the tree pane's data-flow keys (< the producer of the
 * selected node's input, > a consumer of its output, Backspace one hop
 * back, Esc clears the walk) and the breadcrumb of the walk on the row under the title
 * (src/session/flow.h holds the walk and finds the links). */
#include <stdio.h>
#include <string.h>

#include "src/session/flow.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/tree.h"

int tree_flow_breadcrumb(const struct tp *p, const struct session *a, WINDOW *w, int width) {
    if (p->list != L_TREE || !have_tree(p) || !a->graphs || a->graphs->walk.n < 2) return 0;
    if (!w) return 1;
    struct ui *u = a->ui;
    char crumbs[4096], line[4200], fit[4200];
    flow_breadcrumb(a, !u->utf8, crumbs, sizeof crumbs);
    snprintf(line, sizeof line, "flow: %s", crumbs);
    ui_role(w, u, UI_HINT);
    ui_fill(w, 1, 0, width);
    /* the newest hop is at the right end: cut on the left */
    ui_put(w, 1, 0, width, text_fit(line, width, TEXT_CUT_LEFT, u->utf8, fit, sizeof fit));
    return 1;
}

void tree_flow_key(struct tp *p, struct session *a, int dir) {
    struct pt_error err;
    if (dir == -2) {
        a->graphs->walk.n = 0;
        session_msg(a, "data-flow walk cleared");
        return;
    }
    if (dir < 0) {
        if (flow_back(a, &err) != 0) session_msg(a, "%s", err.msg);
        return;
    }
    int n = p->sel;
    if (p->list != L_TREE) {
        if (p->lcur >= p->nl || p->lrows[p->lcur].side != 0) {
            session_msg(a, "< and > follow a problem node's tensors");
            return;
        }
        n = p->lrows[p->lcur].node;
        p->list = L_TREE;
        tree_rows_select(p, n);
    }
    if (n < 0) return;
    struct flow_link l;
    int k = flow_pick(a, n, dir, &l, &err);
    if (k < 0) {
        session_err(a, "%s", err.msg);
        return;
    }
    if (k == 0) {
        uint32_t np;
        tree_params(T(p), n, &np);
        session_msg(a, !np ? "no inputs or outputs in the dump: nothing to follow"
                       : dir ? "no consumer found: no later input equals an output of this node"
                             : "no producer found: no earlier output equals an input of this node");
        return;
    }
    if (flow_follow(a, n, &l, &err) != 0) session_err(a, "%s", err.msg);
}
