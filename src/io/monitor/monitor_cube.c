/* monitor_cube: a monitor tree's rows (read_monitor.h, monitor_data) into
 * a cube builder, for v1 and monitor_v2 alike.  The targets are numbered
 * first, on the caller's thread, in the files' order (one look at each
 * row's name); then each cube metric's files go into the builder on the
 * pool's threads (model/util/pool.h), a metric's rows in the files' order:
 * every metric's rows are its own in the builder, so what it lays out is
 * the same on any number of threads. */
#include <math.h>
#include <stdint.h>
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

/* The targets of md's rows into tg (then frozen) and nm, numbered in the
 * files' order as one pass would; *ncm the cube metrics, *rows their rows,
 * order (malloc'd) the cube metrics with most rows first: taken first on
 * the pool, they end together.  0, or -1 without memory. */
static int number_targets(const struct monitor_data *md, const int *metric_of, int micro_axis, struct names *nm,
                          struct monitor_targets *tg, int *ncm, size_t *rows, int **order) {
    int rc = 0;
    *ncm = 0;
    *rows = 0;
    for (size_t k = 0; k < md->nfiles && rc == 0; k++) {
        const struct monitor_file *f = &md->files[k];
        if (metric_of[f->metric] < 0) continue;
        if (metric_of[f->metric] + 1 > *ncm) *ncm = metric_of[f->metric] + 1;
        *rows += f->nrows;
        for (size_t r = 0; r < f->nrows; r++) {
            const struct monitor_row *row = &f->rows[r];
            int32_t call = micro_axis ? 0 : row->micro;
            if (!row->vpp && !call && row->name < tg->n && tg->memo[row->name] != NAMES_NONE) continue;
            if (monitor_target(tg, nm, md, row, call) == NAMES_NONE) { rc = -1; break; }
        }
    }
    tg->frozen = 1;
    size_t n = *ncm ? (size_t)*ncm : 1, *per = calloc(n, sizeof *per);
    *order = malloc(n * sizeof **order);
    if (rc != 0 || !*order || !per) {
        free(per);
        return -1;
    }
    for (size_t k = 0; k < md->nfiles; k++)
        if (metric_of[md->files[k].metric] >= 0) per[metric_of[md->files[k].metric]] += md->files[k].nrows;
    for (int i = 0; i < *ncm; i++) {
        (*order)[i] = i;
        for (int j = i; j > 0 && per[(*order)[j - 1]] < per[(*order)[j]]; j--) {
            int t = (*order)[j];
            (*order)[j] = (*order)[j - 1];
            (*order)[j - 1] = t;
        }
    }
    free(per);
    return 0;
}

int monitor_to_cube(const struct monitor_data *md, const int *metric_of, const int *stat_idx,
                    const struct monitor_steps *st, int micro_axis, struct cube_builder *b) {
    struct monitor_targets tg = {0};
    int ncm = 0, *order = NULL;
    size_t rows = 0;
    int rc = number_targets(md, metric_of, micro_axis, cube_builder_names(b), &tg, &ncm, &rows, &order);
    if (rc == 0) {
        struct to_cube w = {.md = md, .metric_of = metric_of, .stat_idx = stat_idx, .st = st,
                            .micro_axis = micro_axis, .tg = &tg, .b = b, .order = order};
        struct pt_error e;
        if (ncm >= 2 && rows >= TO_CUBE_PAR_ROWS) rc = util_pool_for((size_t)ncm, to_cube_metric, &w, &e);
        else
            for (int i = 0; i < ncm && rc == 0; i++) rc = to_cube_metric(&w, (size_t)i, &e);
    }
    free(order);
    monitor_targets_free(&tg);
    return rc;
}

/* ---- info: what the cube would say, without its cells (monitor_summary) ---- */

/* A row with a non-finite value: (target, step, rank) is its cell, ord its
 * place among the metric's rows, nf its non-finite statistics. */
struct sum_cand {
    uint32_t t;
    int32_t step, rank;
    size_t ord, first, nf;   /* first: the ord of the cell's first row */
};

struct sum_metric {
    uint8_t *tbits;          /* a bit a target id: the metric's targets */
    int32_t *steps;          /* not micro: its rows' steps, distinct (sorted at the end) */
    size_t nsteps, capsteps;
    struct sum_cand *cand;
    size_t ncand, capcand;
    size_t nonfinite;
};

struct to_sum {
    struct to_cube w;
    struct sum_metric *sm;   /* a cube metric */
    uint32_t ntg;
};

static size_t cand_slot(const struct sum_cand *k, size_t mask) {
    uint64_t h = ((uint64_t)k->t * 0x9E3779B97F4A7C15u) ^ ((uint64_t)(uint32_t)k->step << 32 | (uint32_t)k->rank);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    return (size_t)(h ^ (h >> 32)) & mask;
}

/* Which of m's candidates is its cell's first row (cube_builder_finish:
 * the first row of a cell wins): the rows again, in the same order, up to
 * the last candidate, each cell's first ord kept in a table of the
 * candidates' cells.  The non-finite count is the first rows'. */
static int sum_firsts(struct to_sum *s, int cm, struct sum_metric *m) {
    const struct to_cube *w = &s->w;
    size_t cap = 16;
    while (cap < 2 * m->ncand) cap *= 2;
    size_t *tab = malloc(cap * sizeof *tab), mask = cap - 1, last = m->cand[m->ncand - 1].ord, ord = 0;
    if (!tab) return -1;
    for (size_t i = 0; i < cap; i++) tab[i] = SIZE_MAX;
    for (size_t i = 0; i < m->ncand; i++) {   /* one slot a cell */
        struct sum_cand *c = &m->cand[i];
        c->first = SIZE_MAX;
        size_t h = cand_slot(c, mask);
        while (tab[h] != SIZE_MAX) {
            const struct sum_cand *o = &m->cand[tab[h]];
            if (o->t == c->t && o->step == c->step && o->rank == c->rank) break;
            h = (h + 1) & mask;
        }
        if (tab[h] == SIZE_MAX) tab[h] = i;
    }
    for (size_t k = 0; k < w->md->nfiles && ord <= last; k++) {
        const struct monitor_file *f = &w->md->files[k];
        if (w->metric_of[f->metric] != cm) continue;
        int32_t at = 0, step = 0;
        for (size_t r = 0; r < f->nrows && ord <= last; r++, ord++) {
            const struct monitor_row *row = &f->rows[r];
            if (r == 0 || row->step != at) {
                struct monitor_row key = {.step = row->step};
                step = monitor_row_step(w->st, &key);
                at = row->step;
            }
            struct sum_cand c = {.t = monitor_target(w->tg, cube_builder_names(w->b), w->md, row, w->micro_axis ? 0 : row->micro),
                                 .step = step + (w->st->micro ? row->micro : 0), .rank = f->rank};
            for (size_t h = cand_slot(&c, mask); tab[h] != SIZE_MAX; h = (h + 1) & mask) {
                struct sum_cand *o = &m->cand[tab[h]];
                if (o->t != c.t || o->step != c.step || o->rank != c.rank) continue;
                if (o->first == SIZE_MAX) o->first = ord;
                break;
            }
        }
    }
    for (size_t i = 0; i < m->ncand; i++) {
        const struct sum_cand *c = &m->cand[i];
        size_t h = cand_slot(c, mask);
        while (m->cand[tab[h]].t != c->t || m->cand[tab[h]].step != c->step || m->cand[tab[h]].rank != c->rank)
            h = (h + 1) & mask;
        if (m->cand[tab[h]].first == c->ord) m->nonfinite += c->nf;
    }
    free(tab);
    return 0;
}

/* 1 when one of the n values is NaN or +-Inf: all its exponent bits set,
 * so that one more carries into the sign bit (no branch, no compare). */
static int any_nonfinite(const double *v, int n) {
    const uint64_t exp = 0x7ff0000000000000u, one = (uint64_t)1 << 52;
    uint64_t acc = 0;
    for (int k = 0; k < n; k++) {
        uint64_t b;
        memcpy(&b, &v[k], sizeof b);
        acc |= (b & exp) + one;
    }
    return (int)(acc >> 63);
}

/* Cube metric order[i]: its targets, steps (not micro) and non-finite
 * cells, from its rows in the files' order. */
static int sum_metric(void *ctx, size_t i, struct pt_error *e) {
    struct to_sum *s = ctx;
    const struct to_cube *w = &s->w;
    int cm = w->order[i];
    struct sum_metric *m = &s->sm[cm];
    size_t ord = 0;
    if (!(m->tbits = calloc(s->ntg / 8 + 1, 1))) return pt_errorf(e, "out of memory");
    for (size_t k = 0; k < w->md->nfiles; k++) {
        const struct monitor_file *f = &w->md->files[k];
        if (w->metric_of[f->metric] != cm) continue;
        const int *stat_idx = w->stat_idx + (size_t)f->metric * MONITOR_NSTATS;
        int32_t at = 0, step = 0;
        for (size_t r = 0; r < f->nrows; r++, ord++) {
            const struct monitor_row *row = &f->rows[r];
            int32_t call = w->micro_axis ? 0 : row->micro;
            /* the usual row (vpp 0, call 0): its name's target, as monitor_target looks it up */
            uint32_t t = !row->vpp && !call ? (row->name < w->tg->n ? w->tg->memo[row->name] : NAMES_NONE)
                                            : monitor_target(w->tg, cube_builder_names(w->b), w->md, row, call);
            if (t == NAMES_NONE) return pt_errorf(e, "out of memory");
            m->tbits[t / 8] |= (uint8_t)(1u << (t % 8));
            if (r == 0 || row->step != at) {
                struct monitor_row key = {.step = row->step};
                step = monitor_row_step(w->st, &key);
                at = row->step;
                if (!w->st->micro && (!m->nsteps || m->steps[m->nsteps - 1] != step)) {
                    if (UTIL_PUSH(m->steps, m->nsteps, m->capsteps) != 0) return pt_errorf(e, "out of memory");
                    m->steps[m->nsteps++] = step;
                }
            }
            if (row->present & MONITOR_ROW_NOTENSOR) continue;   /* missing data, not NaN */
            size_t nf = 0;
            const double *src = f->vals + r * (size_t)f->nval;
            if (!any_nonfinite(src, f->nval)) continue;   /* the usual row: every value finite */
            for (int st = 0; st < MONITOR_NSTATS; st++) {
                if (!(f->valmask & (1u << st))) continue;
                double x = *src++;
                nf += (row->present & (1u << st)) && stat_idx[st] >= 0 && !isfinite(x);
            }
            if (!nf) continue;
            if (UTIL_PUSH(m->cand, m->ncand, m->capcand) != 0) return pt_errorf(e, "out of memory");
            m->cand[m->ncand++] = (struct sum_cand){.t = t, .step = step + (w->st->micro ? row->micro : 0),
                                                    .rank = f->rank, .ord = ord, .nf = nf};
        }
    }
    if (m->ncand && sum_firsts(s, cm, m) != 0) return pt_errorf(e, "out of memory");
    if (m->nsteps) {
        qsort(m->steps, m->nsteps, sizeof *m->steps, util_cmp_i32);
        size_t u = 0;
        for (size_t j = 0; j < m->nsteps; j++)
            if (!u || m->steps[u - 1] != m->steps[j]) m->steps[u++] = m->steps[j];
        m->nsteps = u;
    }
    return 0;
}

/* The axes the rows would give into b: the ranks of files with rows and
 * (not micro: declared by the caller) the metrics' steps, as
 * cube_builder_finish would take them from rows, with its message when
 * they are too many.  0, or -1 with err. */
static int sum_axes(const struct monitor_data *md, const int *metric_of, const struct sum_metric *sm, int ncm,
                    struct cube_builder *b, struct pt_error *err) {
    int32_t *rk = NULL, *sv = NULL;
    size_t nr = 0, caprk = 0, ns = 0;
    int rc = 0;
    for (size_t k = 0; k < md->nfiles && rc == 0; k++) {
        const struct monitor_file *f = &md->files[k];
        if (metric_of[f->metric] < 0 || !f->nrows || (nr && rk[nr - 1] == f->rank)) continue;
        if (UTIL_PUSH(rk, nr, caprk) != 0) rc = -1;
        else rk[nr++] = f->rank;
    }
    if (rc == 0 && nr) {
        qsort(rk, nr, sizeof *rk, util_cmp_i32);
        size_t u = 0;
        for (size_t j = 0; j < nr; j++)
            if (!u || rk[u - 1] != rk[j]) rk[u++] = rk[j];
        nr = u;
    }
    size_t total = 0;
    for (int i = 0; i < ncm; i++) total += sm[i].nsteps;
    if (rc == 0 && !(sv = malloc((total ? total : 1) * sizeof *sv))) rc = -1;
    for (int i = 0; i < ncm && rc == 0; i++)
        if (sm[i].nsteps) memcpy(sv + ns, sm[i].steps, sm[i].nsteps * sizeof *sv), ns += sm[i].nsteps;
    if (rc == 0 && ns) {
        qsort(sv, ns, sizeof *sv, util_cmp_i32);
        size_t u = 0;
        for (size_t j = 0; j < ns; j++)
            if (!u || sv[u - 1] != sv[j]) sv[u++] = sv[j];
        ns = u;
    }
    if (rc != 0) rc = pt_errorf(err, "out of memory");
    else if (ns > CUBE_MAX_STEPS || nr > CUBE_MAX_RANKS)
        rc = pt_errorf(err, "%zu steps x %zu ranks is more than probetop can lay out", ns, nr);
    for (size_t j = 0; j < nr && rc == 0; j++)
        if (cube_builder_rank(b, rk[j]) != 0) rc = pt_errorf(err, "out of memory");
    for (size_t j = 0; j < ns && rc == 0; j++)
        if (cube_builder_step(b, sv[j], sv[j], -1) != 0) rc = pt_errorf(err, "out of memory");
    free(rk);
    free(sv);
    return rc;
}

/* The finished cube's metrics get their targets (no cells), ds its
 * non-finite counts. */
static int sum_apply(const struct sum_metric *sm, int ncm, uint32_t ntg, struct cube *c, struct dataset *ds,
                     struct pt_error *err) {
    if (!(ds->nonfinite = calloc((size_t)c->nmetrics + 1, sizeof *ds->nonfinite))) return pt_errorf(err, "out of memory");
    for (int i = 0; i < c->nmetrics && i < ncm; i++) {
        struct cube_metric *cm = &c->metrics[i];
        uint32_t n = 0;
        for (uint32_t t = 0; t < ntg; t++) n += (sm[i].tbits[t / 8] >> (t % 8)) & 1;
        uint32_t *tg = malloc((n ? n : 1) * sizeof *tg);
        if (!tg) return pt_errorf(err, "out of memory");
        n = 0;
        for (uint32_t t = 0; t < ntg; t++)
            if ((sm[i].tbits[t / 8] >> (t % 8)) & 1) tg[n++] = t;
        free(cm->targets);
        free(cm->vals);
        cm->targets = tg;
        cm->ntargets = n;
        cm->vals = NULL;
        ds->nonfinite[i] = sm[i].nonfinite;
    }
    return 0;
}

int monitor_summary_cube(const struct monitor_data *md, const int *metric_of, const int *stat_idx,
                         const struct monitor_steps *st, int micro_axis, struct cube_builder *b, struct dataset *ds,
                         struct pt_error *err) {
    struct monitor_targets tg = {0};
    int ncm = 0, *order = NULL;
    size_t rows = 0;
    struct sum_metric *sm = NULL;
    int rc = number_targets(md, metric_of, micro_axis, cube_builder_names(b), &tg, &ncm, &rows, &order);
    if (rc == 0 && !(sm = calloc(ncm ? (size_t)ncm : 1, sizeof *sm))) rc = -1;
    if (rc != 0) rc = pt_errorf(err, "out of memory");
    struct to_sum s = {.w = {.md = md, .metric_of = metric_of, .stat_idx = stat_idx, .st = st, .micro_axis = micro_axis,
                             .tg = &tg, .b = b, .order = order},
                       .sm = sm, .ntg = names_count(cube_builder_names(b))};
    if (rc == 0 && ncm >= 2 && rows >= TO_CUBE_PAR_ROWS) rc = util_pool_for((size_t)ncm, sum_metric, &s, err);
    else
        for (int i = 0; i < ncm && rc == 0; i++) rc = sum_metric(&s, (size_t)i, err);
    if (rc == 0) rc = sum_axes(md, metric_of, sm, ncm, b, err);
    if (rc == 0) rc = cube_builder_finish(b, &ds->cube, err);
    if (rc == 0) rc = sum_apply(sm, ncm, s.ntg, ds->cube, ds, err);
    for (int i = 0; sm && i < ncm; i++) {
        free(sm[i].tbits);
        free(sm[i].steps);
        free(sm[i].cand);
    }
    free(sm);
    free(order);
    monitor_targets_free(&tg);
    return rc;
}
