/* monitor_cube: a monitor tree's rows (read_monitor.h, monitor_data) into
 * a cube builder, for v1 and monitor_v2 alike.  The targets are numbered
 * first, on the caller's thread, in the files' order (one look at each
 * row's name); then each cube metric's files go into the builder on the
 * pool's threads (model/util/pool.h), a metric's rows in the files' order:
 * every metric's rows are its own in the builder, so what it lays out is
 * the same on any number of threads. */
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/cube/names.h"
#include "model/util/pool.h"
#include "model/util/util.h"
#include "src/io/monitor/read_monitor.h"

/* Below this many rows, one thread: threads would cost more than they save. */
#define TO_CUBE_PAR_ROWS ((size_t)1 << 14)

int32_t monitor_row_step(const struct monitor_steps *s, const struct monitor_row *r) {
    if (!s->micro) return r->step;
    int32_t *pos = bsearch(&r->step, s->orig, s->n, sizeof *s->orig, util_cmp_i32);
    return pos ? s->offset[pos - s->orig] + r->micro : r->micro;
}

uint32_t monitor_target(struct monitor_targets *t, struct names *nm, const struct monitor_data *md,
                        const struct monitor_row *r, int32_t call) {
    const char *name = names_str(md->pool, r->name);
    if (t->frozen) {   /* every target is in: only looked up (any thread) */
        if (r->vpp || call) return names_find(nm, name, strlen(name), r->vpp, call);
        return r->name < t->n ? t->memo[r->name] : NAMES_NONE;
    }
    if (r->vpp || call) return names_intern(nm, name, strlen(name), r->vpp, call);
    if (r->name >= t->n) {
        size_t n = names_count(md->pool);
        uint32_t *m = realloc(t->memo, (n ? n : 1) * sizeof *m);
        if (!m) return NAMES_NONE;
        for (size_t i = t->n; i < n; i++) m[i] = NAMES_NONE;
        t->memo = m;
        t->n = n;
    }
    if (t->memo[r->name] == NAMES_NONE) t->memo[r->name] = names_intern(nm, name, strlen(name), 0, 0);
    return t->memo[r->name];
}

void monitor_targets_free(struct monitor_targets *t) {
    free(t->memo);
    memset(t, 0, sizeof *t);
}

int monitor_file_to_cube(const struct monitor_data *md, const struct monitor_file *f, int metric, const int *stat_idx,
                         const struct monitor_steps *st, int micro_axis, struct monitor_targets *tg, struct cube_builder *b) {
    struct names *nm = cube_builder_names(b);
    int32_t at = 0, step = 0;
    for (size_t r = 0; r < f->nrows; r++) {
        const struct monitor_row *row = &f->rows[r];
        uint32_t t = monitor_target(tg, nm, md, row, micro_axis ? 0 : row->micro);
        double v[MONITOR_NSTATS];
        uint32_t present = 0;
        const double *src = f->vals + r * (size_t)f->nval;
        for (int s = 0; s < MONITOR_NSTATS; s++) {
            if (!(f->valmask & (1u << s))) continue;
            double x = *src++;
            int k = stat_idx[s];
            if ((row->present & (1u << s)) && k >= 0) { v[k] = x; present |= 1u << k; }
        }
        /* a file's rows are mostly of one step: its place looked up once */
        if (r == 0 || row->step != at) {
            struct monitor_row key = {.step = row->step};
            step = monitor_row_step(st, &key);
            at = row->step;
        }
        int32_t at_step = step + (st->micro ? row->micro : 0);
        if (t == NAMES_NONE ||
            (row->present & MONITOR_ROW_NOTENSOR ? cube_builder_add_notensor(b, metric, t, at_step, f->rank)
                                             : cube_builder_add(b, metric, t, at_step, f->rank, v, present)) != 0)
            return -1;
    }
    return 0;
}

struct to_cube {
    const struct monitor_data *md;
    const int *metric_of;           /* cube metric of each md metric, -1 none */
    const int *stat_idx;            /* MONITOR_NSTATS a md metric */
    const struct monitor_steps *st;
    int micro_axis;
    struct monitor_targets *tg;     /* frozen */
    struct cube_builder *b;
    const int *order;               /* cube metrics, most rows first */
};

/* Cube metric order[i]'s files, in the files' order. */
static int to_cube_metric(void *ctx, size_t i, struct pt_error *e) {
    struct to_cube *w = ctx;
    int cm = w->order[i];
    for (size_t k = 0; k < w->md->nfiles; k++) {
        const struct monitor_file *f = &w->md->files[k];
        if (w->metric_of[f->metric] != cm) continue;
        if (monitor_file_to_cube(w->md, f, cm, w->stat_idx + (size_t)f->metric * MONITOR_NSTATS, w->st, w->micro_axis,
                                 w->tg, w->b) != 0)
            return pt_errorf(e, "out of memory");
    }
    return 0;
}

int monitor_to_cube(const struct monitor_data *md, const int *metric_of, const int *stat_idx,
                    const struct monitor_steps *st, int micro_axis, struct cube_builder *b) {
    struct names *nm = cube_builder_names(b);
    struct monitor_targets tg = {0};
    int ncm = 0, rc = 0;
    size_t rows = 0, *per = NULL;
    /* the targets, numbered in the files' order as one pass would */
    for (size_t k = 0; k < md->nfiles && rc == 0; k++) {
        const struct monitor_file *f = &md->files[k];
        if (metric_of[f->metric] < 0) continue;
        if (metric_of[f->metric] + 1 > ncm) ncm = metric_of[f->metric] + 1;
        rows += f->nrows;
        for (size_t r = 0; r < f->nrows; r++) {
            const struct monitor_row *row = &f->rows[r];
            int32_t call = micro_axis ? 0 : row->micro;
            if (!row->vpp && !call && row->name < tg.n && tg.memo[row->name] != NAMES_NONE) continue;
            if (monitor_target(&tg, nm, md, row, call) == NAMES_NONE) { rc = -1; break; }
        }
    }
    tg.frozen = 1;
    int *order = malloc((ncm ? (size_t)ncm : 1) * sizeof *order);
    per = calloc(ncm ? (size_t)ncm : 1, sizeof *per);
    if (rc == 0 && (!order || !per)) rc = -1;
    if (rc == 0) {
        for (size_t k = 0; k < md->nfiles; k++)
            if (metric_of[md->files[k].metric] >= 0) per[metric_of[md->files[k].metric]] += md->files[k].nrows;
        /* the metrics with most rows first: taken first, they end together */
        for (int i = 0; i < ncm; i++) {
            order[i] = i;
            for (int j = i; j > 0 && per[order[j - 1]] < per[order[j]]; j--) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        }
        struct to_cube w = {.md = md, .metric_of = metric_of, .stat_idx = stat_idx, .st = st,
                            .micro_axis = micro_axis, .tg = &tg, .b = b, .order = order};
        struct pt_error e;
        if (ncm >= 2 && rows >= TO_CUBE_PAR_ROWS) rc = util_pool_for((size_t)ncm, to_cube_metric, &w, &e);
        else
            for (int i = 0; i < ncm && rc == 0; i++) rc = to_cube_metric(&w, (size_t)i, &e);
    }
    free(order);
    free(per);
    monitor_targets_free(&tg);
    return rc;
}
