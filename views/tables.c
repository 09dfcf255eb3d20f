/* tables: HTA's other first tables of a profiled run in a pane (probetop(1),
 * probetop trace; probetop-rules(7), PROFILER TRACES: Kernel types, Top
 * kernels, Idle time): the time each set of kernel types runs over all
 * ranks, each rank's top kernels by total time (the rest as one `others`
 * row) and its idle time per stream split into host wait, kernel wait and
 * other.  The figures are the model's (model/trace/kernels.h, idle.h), read
 * from the session's trace; `:view tables` shows the pane, q goes back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "model/trace/trace.h"
#include "ui/nav.h"
#include "ui/ui.h"
#include "views/view.h"

enum { TB_UP = 1, TB_DOWN, TB_PGUP, TB_PGDN, TB_TOP, TB_BOTTOM, TB_CLOSE, TB_HALFUP, TB_HALFDN, TB_ALL };

static const int tables_nav[NAV_COUNT] = {
    [NAV_UP] = TB_UP, [NAV_DOWN] = TB_DOWN, [NAV_PGUP] = TB_PGUP, [NAV_PGDN] = TB_PGDN,
    [NAV_HALFUP] = TB_HALFUP, [NAV_HALFDN] = TB_HALFDN, [NAV_TOP] = TB_TOP, [NAV_BOTTOM] = TB_BOTTOM,
};

static const struct keys_row tables_keys[] = {
    {'j', NULL, TB_DOWN, "scroll down"}, {KEYS_DOWN, NULL, TB_DOWN, NULL},
    {'k', NULL, TB_UP, "scroll up"}, {KEYS_UP, NULL, TB_UP, NULL},
    {KEYS_PGDN, NULL, TB_PGDN, "page down"}, {' ', NULL, TB_PGDN, NULL},
    {KEYS_PGUP, NULL, TB_PGUP, "page up"},
    {KEYS_CTRL('d'), NULL, TB_HALFDN, "half a page down"}, {KEYS_CTRL('u'), NULL, TB_HALFUP, "half a page up"},
    {'g', NULL, TB_TOP, "top"}, {KEYS_HOME, NULL, TB_TOP, NULL},
    {'G', NULL, TB_BOTTOM, "bottom"}, {KEYS_END, NULL, TB_BOTTOM, NULL},
    {'A', NULL, TB_ALL, "top kernels: the first 10 of each rank / every kernel name"},
    {'q', NULL, TB_CLOSE, "back to the screen before"}, {KEYS_ESC, NULL, TB_CLOSE, NULL},
};

#define TB_TOPK 10   /* HTA's num_kernels, as `probetop trace` */

struct tb {
    int top;     /* first line shown */
    int all;     /* every kernel name, not the first TB_TOPK */
    int nlines;  /* of the last frame */
};

static const struct trace_run *run_of(const struct session *a) { return a->ds ? a->ds->trace : NULL; }

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* One line: drawn when it is in the window, counted either way. */
struct emit {
    struct view *v;
    struct session *a;
    int line, top;
};

static void put(struct emit *e, int role, const char *text) {
    int y = e->line - e->top + 1;
    if (y >= 1 && y < e->v->h) {
        ui_role(e->v->win, e->a->ui, role);
        if (role == UI_AXIS) ui_fill(e->v->win, y, 0, e->v->w);
        ui_put(e->v->win, y, 1, e->v->w - 1, text);
    }
    e->line++;
}

static void top_row(struct emit *e, const struct trace_run *run, int32_t rank, const struct kernels_stat *s, int others) {
    char buf[1200];
    const char *name = others ? "others" : s->name < run->nnames ? run->names[s->name] : "?";
    snprintf(buf, sizeof buf, "%5d %-13s %8llu %12.0f %10.0f %10.0f %10.1f  %.1000s", rank,
             others ? "-" : kernels_type_name(s->type), (unsigned long long)s->count, us(s->sum_ns), us(s->max_ns),
             us(s->min_ns), s->count ? us(s->sum_ns) / (double)s->count : 0.0, name);
    put(e, others ? UI_DIM : UI_NORMAL, buf);
}

/* Every line from e->top on; the number of lines. */
static int tables_lines(struct emit *e, const struct tb *p, const struct trace_run *run) {
    char buf[256], nm[96];
    int64_t ns[KERNELS_NMASKS], tot = 0;
    kernels_run_masks(run, ns);
    for (int m = 1; m < KERNELS_NMASKS; m++) tot += ns[m];
    put(e, UI_TITLE, "Kernel types, all ranks: the time each set of types runs (overlaps apart)");
    snprintf(buf, sizeof buf, "%-56s %14s %7s", "type", "us", "%");
    put(e, UI_AXIS, buf);
    int done[KERNELS_NMASKS] = {0};
    for (int k = 1; k < KERNELS_NMASKS; k++) {   /* by time, the longest first */
        int best = 0;
        for (int m = 1; m < KERNELS_NMASKS; m++)
            if (!done[m] && ns[m] && (!best || ns[m] > ns[best])) best = m;
        if (!best) break;
        done[best] = 1;
        snprintf(buf, sizeof buf, "%-56s %14.0f %7.2f", kernels_mask_name(best, nm, sizeof nm), us(ns[best]),
                 tot ? 100.0 * (double)ns[best] / (double)tot : 0.0);
        put(e, UI_NORMAL, buf);
    }
    put(e, UI_NORMAL, "");
    put(e, UI_TITLE, p->all ? "Kernels per rank by total time (A: the first 10)"
                            : "Top kernels per rank by total time, the rest as 'others' (A: every kernel)");
    put(e, UI_AXIS, " rank type             count       sum_us     max_us     min_us    mean_us  name");
    for (int r = 0; r < run->nranks; r++) {
        const struct kernels_table *t = run->ranks[r].kernels;
        if (!t) continue;
        struct kernels_stat o;
        size_t n = kernels_top(t, p->all ? 0 : TB_TOPK, &o);
        for (size_t i = 0; i < n; i++) top_row(e, run, run->ranks[r].rank, &t->k[i], 0);
        if (o.count) top_row(e, run, run->ranks[r].rank, &o, 1);
    }
    put(e, UI_NORMAL, "");
    put(e, UI_TITLE, "Idle time per rank and stream: host wait (the CPU launched late), kernel wait (< 30 us), other");
    put(e, UI_AXIS, " rank stream  host_wait_us kernel_wait_us     other_us");
    for (int r = 0; r < run->nranks; r++) {
        const struct idle_table *t = run->ranks[r].idle;
        for (size_t i = 0; t && i < t->n; i++) {
            snprintf(buf, sizeof buf, "%5d %6u %13.0f %14.0f %12.0f", run->ranks[r].rank, (unsigned)t->v[i].stream,
                     us(t->v[i].host_ns), us(t->v[i].kernel_ns), us(t->v[i].other_ns));
            put(e, UI_NORMAL, buf);
        }
    }
    return e->line;
}

static void tables_draw(struct view *v, struct session *a) {
    struct tb *p = v->priv;
    const struct trace_run *run = run_of(a);
    werase(v->win);
    ui_role(v->win, a->ui, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(v->win, 0, 0, v->w);
    ui_put(v->win, 0, 0, v->w, " Kernel tables (HTA's kernel breakdown and idle time; q goes back)");
    if (!run) return;
    struct emit count = {v, a, 0, 1 << 30};
    p->nlines = tables_lines(&count, p, run);   /* counted first: with top past the end nothing is drawn */
    if (p->top > p->nlines - (v->h - 1)) p->top = p->nlines - (v->h - 1);
    if (p->top < 0) p->top = 0;
    struct emit e = {v, a, 0, p->top};
    tables_lines(&e, p, run);
}

static int tables_key(struct view *v, struct session *a, int action, int key) {
    struct tb *p = v->priv;
    int page = v->h > 2 ? v->h - 2 : 1;
    if (nav_of_key(key)) action = tables_nav[nav_of_key(key)];
    switch (action) {
    case TB_UP: case TB_DOWN: case TB_PGUP: case TB_PGDN: case TB_HALFUP: case TB_HALFDN:
        p->top += (int)nav_delta(nav_move_of(tables_nav, action), page);
        break;
    case TB_TOP: p->top = 0; break;
    case TB_BOTTOM: p->top = 1 << 29; break;
    case TB_ALL: p->all = !p->all; break;
    case TB_CLOSE: a->host->back(a); break;
    default: return 0;
    }
    if (p->top < 0) p->top = 0;
    a->host->redraw(a);
    return 1;
}

static void tables_status(struct view *v, struct session *a, char *buf, size_t size) {
    const struct tb *p = v->priv;
    const struct trace_run *run = run_of(a);
    int last = p->top + v->h - 1 < p->nlines ? p->top + v->h - 1 : p->nlines;
    snprintf(buf, size, "kernel tables of %d rank%s: lines %d-%d of %d", run ? run->nranks : 0,
             run && run->nranks == 1 ? "" : "s", p->nlines ? p->top + 1 : 0, last, p->nlines);
}

static int tables_init(struct view *v, struct session *a, struct pt_error *err) {
    (void)a;
    struct tb *p = calloc(1, sizeof *p);
    if (!p) return pt_errorf(err, "out of memory");
    v->priv = p;
    return 0;
}

static void tables_free(struct view *v) {
    free(v->priv);
    v->priv = NULL;
}

static int tables_available(const struct session *a) { return run_of(a) != NULL; }

const struct view_ops view_tables = {
    .name = "tables",
    .title = "Kernel tables",
    .init = tables_init,
    .free = tables_free,
    .available = tables_available,
    .draw = tables_draw,
    .key = tables_key,
    .status = tables_status,
    .hints = "j/k scroll  A all kernels  q back",
    .keys = tables_keys,
    .nkeys = sizeof tables_keys / sizeof tables_keys[0],
};
