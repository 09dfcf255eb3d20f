/* monitor_steps: a monitor tree's step axis (read_monitor.h, struct
 * monitor_steps; probetop-formats(5), MONITOR CSV TREES): each file's part
 * (its step range, rows of no tensor, its distinct steps and their micro
 * counts), worked out per file on the pool's threads or as rows stream,
 * merged in the files' order into the axis the one pass over every row
 * gives, and its layout of micro steps. */
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/util/pool.h"
#include "model/util/util.h"
#include "src/io/monitor/read_monitor.h"

void monitor_steps_free(struct monitor_steps *s) {
    free(s->orig);
    free(s->offset);
    free(s->count);
    memset(s, 0, sizeof *s);
}

int monitor_steps_file(const struct monitor_file *f, int micro, struct monitor_steps_file *sf) {
    memset(sf, 0, sizeof *sf);
    /* one pass over the rows: the steps' range and the notensor rows, and
     * (micro) the runs of one step (a file's rows are mostly of one step)
     * with their largest micro step + 1, which the steps then take by run */
    struct run { int32_t step, top; } *run = NULL;
    size_t k = 0;
    if (micro && f->nrows && !(run = malloc(f->nrows * sizeof *run))) return -1;
    for (size_t r = 0; r < f->nrows; r++) {
        const struct monitor_row *row = &f->rows[r];
        if (!sf->any || row->step < sf->min) sf->min = row->step;
        if (!sf->any || row->step > sf->max) sf->max = row->step;
        sf->any = 1;
        sf->notensor += (row->present & MONITOR_ROW_NOTENSOR) != 0;
        if (!micro || sf->bad) continue;
        if (row->micro >= CUBE_MAX_STEPS) {
            sf->bad = 1;
            sf->bad_step = row->step;
            sf->bad_micro = row->micro;
            continue;
        }
        if (!k || run[k - 1].step != row->step) run[k++] = (struct run){row->step, row->micro + 1};
        else if (row->micro + 1 > run[k - 1].top) run[k - 1].top = row->micro + 1;
    }
    if (!micro || sf->bad || !f->nrows) {
        free(run);
        return 0;
    }
    int32_t *all = malloc(k * sizeof *all);
    if (!all) {
        free(run);
        return -1;
    }
    for (size_t i = 0; i < k; i++) all[i] = run[i].step;
    size_t u = util_sort_unique_i32(all, k);
    sf->step = all;
    sf->n = u;
    if (!(sf->count = calloc(u, sizeof *sf->count))) {
        free(run);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        int32_t *cnt = &sf->count[(int32_t *)bsearch(&run[i].step, sf->step, u, sizeof *sf->step, util_cmp_i32) - sf->step];
        if (run[i].top > *cnt) *cnt = run[i].top;
    }
    free(run);
    return 0;
}

void monitor_steps_file_free(struct monitor_steps_file *sf, size_t n) {
    for (size_t i = 0; sf && i < n; i++) {
        free(sf[i].step);
        free(sf[i].count);
    }
    free(sf);
}

struct steps_job {
    const struct monitor_data *md;
    int micro;
    struct monitor_steps_file *sf;
};

static int steps_of_file(void *ctx, size_t i, struct pt_error *e) {
    struct steps_job *j = ctx;
    return monitor_steps_file(&j->md->files[i], j->micro, &j->sf[i]) != 0 ? pt_errorf(e, "out of memory") : 0;
}

/* Below this many rows, one thread: threads would cost more than they save. */
#define STEPS_PAR_ROWS ((size_t)1 << 14)

int monitor_steps_merge(const struct monitor_data *md, const struct monitor_steps_file *sf, int micro,
                        struct monitor_steps *s, struct pt_error *err) {
    memset(s, 0, sizeof *s);
    s->micro = micro;
    size_t total = 0;
    int any = 0;
    for (size_t i = 0; i < md->nfiles; i++) {
        s->notensor += sf[i].notensor;
        total += sf[i].n;
        if (!sf[i].any) continue;
        if (!any || sf[i].min < s->min_step) s->min_step = sf[i].min;
        if (sf[i].max > s->max_step) s->max_step = sf[i].max;
        any = 1;
    }
    if (!s->micro) return 0;
    /* micro_step 2000000000 in one row would lay out two billion steps */
    for (size_t i = 0; i < md->nfiles; i++)
        if (sf[i].bad)
            return pt_errorf(err, "%s: micro_step %ld at step %ld: more than the %d steps probetop lays out",
                             md->files[i].path, (long)sf[i].bad_micro, (long)sf[i].bad_step, CUBE_MAX_STEPS);
    s->min_step = s->max_step = 0;
    int32_t *all = malloc((total ? total : 1) * sizeof *all);
    if (!all) return pt_errorf(err, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < md->nfiles; i++)
        for (size_t j = 0; j < sf[i].n; j++) all[k++] = sf[i].step[j];
    size_t u = util_sort_unique_i32(all, k);
    s->orig = all;
    s->n = u;
    s->count = calloc(u ? u : 1, sizeof *s->count);
    s->offset = calloc(u ? u : 1, sizeof *s->offset);
    if (!s->count || !s->offset) { monitor_steps_free(s); return pt_errorf(err, "out of memory"); }
    for (size_t i = 0; i < md->nfiles; i++)
        for (size_t j = 0; j < sf[i].n; j++) {
            int32_t *c = &s->count[(int32_t *)bsearch(&sf[i].step[j], s->orig, u, sizeof *s->orig, util_cmp_i32) - s->orig];
            if (sf[i].count[j] > *c) *c = sf[i].count[j];
        }
    return monitor_steps_layout(s, md->nfiles ? md->files[0].path : "monitor data", err);
}

int monitor_steps(const struct monitor_data *md, int micro, struct monitor_steps *s, struct pt_error *err) {
    memset(s, 0, sizeof *s);
    size_t rows = 0;
    for (size_t i = 0; i < md->nfiles; i++) rows += md->files[i].nrows;
    struct monitor_steps_file *sf = calloc(md->nfiles ? md->nfiles : 1, sizeof *sf);
    if (!sf) return pt_errorf(err, "out of memory");
    struct steps_job j = {.md = md, .micro = micro, .sf = sf};
    int rc = 0;
    if (md->nfiles >= 2 && rows >= STEPS_PAR_ROWS) rc = util_pool_for(md->nfiles, steps_of_file, &j, err);
    else
        for (size_t i = 0; i < md->nfiles && rc == 0; i++) rc = steps_of_file(&j, i, err);
    if (rc == 0) rc = monitor_steps_merge(md, sf, micro, s, err);
    monitor_steps_file_free(sf, md->nfiles);
    return rc;
}

int monitor_steps_layout(struct monitor_steps *s, const char *path, struct pt_error *err) {
    int64_t off = 0;
    for (size_t j = 0; j < s->n; j++) {
        s->offset[j] = (int32_t)off;
        off += s->count[j];
        if (off > CUBE_MAX_STEPS) {
            int32_t steps = s->orig[j];
            monitor_steps_free(s);
            return pt_errorf(err, "%s: more than %d micro steps up to step %ld: more than probetop lays out", path,
                             CUBE_MAX_STEPS, (long)steps);
        }
    }
    s->min_step = 0;
    s->max_step = (int32_t)off - 1;
    return 0;
}
