/* monitor_summary: what `info` prints of a monitor tree (load_opts.summary;
 * read_monitor.h), worked out while its rows stream, a rank at a time
 * (monitor_read.rank_done, whole_ranks), so that no row outlives its rank
 * and no cell is laid out.  For each rank handed over: each file's part of
 * the step axis (monitor_steps_file) and each metric's pass on the pool's
 * threads, the targets numbered in between on the caller's thread in the
 * files' order (as monitor_to_cube numbers them).  A metric's pass marks
 * its targets and keeps the rows holding a NaN or an Inf; a cell's rows
 * are all of one rank, so whether such a row is its cell's first (the one
 * the cube keeps) is settled within the rank, by its rows again up to the
 * last such row (only when there is one).  At the end the axes are
 * declared and the cube finished with no row: the metrics get their
 * targets, ds->nonfinite the counts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube.h"
#include "model/cube/dataset.h"
#include "model/cube/names.h"
#include "model/util/pool.h"
#include "model/util/util.h"
#include "src/io/monitor/read_monitor.h"

/* Below this many rows, one thread: threads would cost more than they save. */
#define SUM_PAR_ROWS ((size_t)1 << 14)

/* A row with a NaN or an Inf: its cell (target, step, micro step, rank),
 * its place among its metric's rows of the rank, its non-finite columns. */
struct cand {
    uint32_t t;
    int32_t step, micro, rank;
    size_t ord, first;       /* first: the ord of the cell's first row */
    uint32_t nfmask;         /* bit per monitor_stat_names column */
};

/* Per metric of the read (monitor_file.metric). */
struct smetric {
    uint8_t *tbits;          /* a bit a target id: its targets */
    size_t cap;              /* bytes of tbits */
    size_t nf[MONITOR_NSTATS];   /* non-finite first rows per column */
    struct cand *cand;       /* this rank's */
    size_t ncand, capcand;
};

struct monitor_summary {
    int micro;
    struct pt_error *err;    /* the read's: why monitor_summary_rank stopped it */
    struct names *names;     /* owned until monitor_summary_names */
    struct monitor_targets tg;
    struct smetric *m;
    int nm;
    struct monitor_steps_file *sf;   /* per file handed over */
    size_t nsf, capsf;
    int32_t *steps;          /* not micro: the rows' steps (runs), sorted at the end */
    size_t nsteps, capsteps;
    int32_t *ranks;          /* of the files with rows, ascending */
    size_t nranks, capranks;
    /* the rank being handed over */
    const struct monitor_data *md;
    size_t first;
    int *todo;               /* metrics with rows in it */
    int ntodo;
};

struct monitor_summary *monitor_summary_new(int micro, struct pt_error *err) {
    struct monitor_summary *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->micro = micro;
    s->err = err;
    if (!(s->names = names_new())) {
        free(s);
        return NULL;
    }
    return s;
}

void monitor_summary_free(struct monitor_summary *s) {
    if (!s) return;
    names_free(s->names);
    monitor_targets_free(&s->tg);
    for (int i = 0; i < s->nm; i++) {
        free(s->m[i].tbits);
        free(s->m[i].cand);
    }
    free(s->m);
    monitor_steps_file_free(s->sf, s->nsf);
    free(s->steps);
    free(s->ranks);
    free(s->todo);
    free(s);
}

struct names *monitor_summary_names(struct monitor_summary *s) {
    struct names *n = s->names;
    s->names = NULL;
    return n;
}

static int steps_part(void *ctx, size_t i, struct pt_error *e) {
    struct monitor_summary *s = ctx;
    size_t k = s->first + i;
    return monitor_steps_file(&s->md->files[k], s->micro, &s->sf[k]) != 0 ? pt_errorf(e, "out of memory") : 0;
}

/* The target of row (tg frozen: any thread). */
static uint32_t row_target(struct monitor_summary *s, const struct monitor_row *row) {
    int32_t call = s->micro ? 0 : row->micro;
    if (!row->vpp && !call) return row->name < s->tg.n ? s->tg.memo[row->name] : NAMES_NONE;
    return monitor_target(&s->tg, s->names, s->md, row, call);
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

static size_t cand_slot(const struct cand *k, size_t mask) {
    uint64_t h = (uint64_t)k->t * 0x9E3779B97F4A7C15u;
    h ^= ((uint64_t)(uint32_t)k->step << 32 | (uint32_t)k->micro) + (uint64_t)(uint32_t)k->rank * 0xC2B2AE3D27D4EB4Fu;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    return (size_t)(h ^ (h >> 32)) & mask;
}

static int same_cell(const struct cand *a, const struct cand *b) {
    return a->t == b->t && a->step == b->step && a->micro == b->micro && a->rank == b->rank;
}

/* The cell of row r of file f. */
static struct cand row_cell(struct monitor_summary *s, const struct monitor_file *f, const struct monitor_row *row) {
    return (struct cand){.t = row_target(s, row), .step = row->step, .micro = row->micro, .rank = f->rank};
}

/* Which of metric mi's candidates are their cells' first rows: the rank's
 * rows of mi again, in order, up to the last candidate, each candidate
 * cell's first ord kept in a table of them; the first rows' columns
 * counted. */
static int firsts(struct monitor_summary *s, int mi) {
    struct smetric *m = &s->m[mi];
    size_t cap = 16;
    while (cap < 2 * m->ncand) cap *= 2;
    size_t *tab = malloc(cap * sizeof *tab), mask = cap - 1, last = m->cand[m->ncand - 1].ord, ord = 0;
    if (!tab) return -1;
    for (size_t i = 0; i < cap; i++) tab[i] = SIZE_MAX;
    for (size_t i = 0; i < m->ncand; i++) {   /* a slot a cell */
        struct cand *c = &m->cand[i];
        c->first = SIZE_MAX;
        size_t h = cand_slot(c, mask);
        while (tab[h] != SIZE_MAX && !same_cell(&m->cand[tab[h]], c)) h = (h + 1) & mask;
        if (tab[h] == SIZE_MAX) tab[h] = i;
    }
    for (size_t k = s->first; k < s->md->nfiles && ord <= last; k++) {
        const struct monitor_file *f = &s->md->files[k];
        if (f->metric != mi) continue;
        for (size_t r = 0; r < f->nrows && ord <= last; r++, ord++) {
            struct cand c = row_cell(s, f, &f->rows[r]);
            for (size_t h = cand_slot(&c, mask); tab[h] != SIZE_MAX; h = (h + 1) & mask) {
                struct cand *o = &m->cand[tab[h]];
                if (!same_cell(o, &c)) continue;
                if (o->first == SIZE_MAX) o->first = ord;
                break;
            }
        }
    }
    for (size_t i = 0; i < m->ncand; i++) {
        const struct cand *c = &m->cand[i];
        size_t h = cand_slot(c, mask);
        while (!same_cell(&m->cand[tab[h]], c)) h = (h + 1) & mask;
        if (m->cand[tab[h]].first != c->ord) continue;
        for (int st = 0; st < MONITOR_NSTATS; st++) m->nf[st] += (c->nfmask >> st) & 1;
    }
    free(tab);
    m->ncand = 0;
    return 0;
}

/* Metric todo[i]'s rows of the rank: its targets, and its rows with a
 * NaN or an Inf (rows describing no tensor are missing data). */
static int metric_pass(void *ctx, size_t i, struct pt_error *e) {
    struct monitor_summary *s = ctx;
    int mi = s->todo[i];
    struct smetric *m = &s->m[mi];
    size_t ord = 0;
    for (size_t k = s->first; k < s->md->nfiles; k++) {
        const struct monitor_file *f = &s->md->files[k];
        if (f->metric != mi) continue;
        for (size_t r = 0; r < f->nrows; r++, ord++) {
            const struct monitor_row *row = &f->rows[r];
            uint32_t t = row_target(s, row);
            if (t == NAMES_NONE) return pt_errorf(e, "out of memory");
            m->tbits[t / 8] |= (uint8_t)(1u << (t % 8));
            const double *v = f->vals + r * (size_t)f->nval;
            if ((row->present & MONITOR_ROW_NOTENSOR) || !any_nonfinite(v, f->nval)) continue;
            uint32_t nfmask = 0;
            for (int st = 0; st < MONITOR_NSTATS; st++) {
                if (!(f->valmask & (1u << st))) continue;
                uint64_t b;
                memcpy(&b, v++, sizeof b);
                if ((row->present & (1u << st)) && ((b >> 52) & 0x7ff) == 0x7ff) nfmask |= 1u << st;
            }
            if (!nfmask) continue;
            if (UTIL_PUSH(m->cand, m->ncand, m->capcand) != 0) return pt_errorf(e, "out of memory");
            struct cand c = {.t = t, .step = row->step, .micro = row->micro, .rank = f->rank, .ord = ord, .nfmask = nfmask};
            m->cand[m->ncand++] = c;
        }
    }
    if (m->ncand && firsts(s, mi) != 0) return pt_errorf(e, "out of memory");
    return 0;
}

/* The rank's rows in the files' order, on this thread: their targets
 * numbered, the steps (not micro) and ranks noted, the metrics to pass
 * over listed.  0, or -1 without memory. */
static int number(struct monitor_summary *s, size_t *rows) {
    const struct monitor_data *md = s->md;
    s->ntodo = 0;
    *rows = 0;
    for (size_t k = s->first; k < md->nfiles; k++) {
        const struct monitor_file *f = &md->files[k];
        if (!f->nrows) continue;
        *rows += f->nrows;
        if (f->metric >= s->nm) {
            struct smetric *m = realloc(s->m, (size_t)(f->metric + 1) * sizeof *m);
            if (!m) return -1;
            memset(m + s->nm, 0, (size_t)(f->metric + 1 - s->nm) * sizeof *m);
            s->m = m;
            s->nm = f->metric + 1;
            int *todo = realloc(s->todo, (size_t)s->nm * sizeof *todo);
            if (!todo) return -1;
            s->todo = todo;
        }
        int listed = 0;
        for (int i = 0; i < s->ntodo && !listed; i++) listed = s->todo[i] == f->metric;
        if (!listed) s->todo[s->ntodo++] = f->metric;
        if (!s->nranks || s->ranks[s->nranks - 1] != f->rank) {
            if (UTIL_PUSH(s->ranks, s->nranks, s->capranks) != 0) return -1;
            s->ranks[s->nranks++] = f->rank;
        }
        for (size_t r = 0; r < f->nrows; r++) {
            const struct monitor_row *row = &f->rows[r];
            int32_t call = s->micro ? 0 : row->micro;
            if (!s->micro && (!s->nsteps || s->steps[s->nsteps - 1] != row->step)) {
                if (UTIL_PUSH(s->steps, s->nsteps, s->capsteps) != 0) return -1;
                s->steps[s->nsteps++] = row->step;
            }
            if (!row->vpp && !call && row->name < s->tg.n && s->tg.memo[row->name] != NAMES_NONE) continue;
            if (monitor_target(&s->tg, s->names, md, row, call) == NAMES_NONE) return -1;
        }
    }
    size_t bytes = names_count(s->names) / 8 + 1;
    for (int i = 0; i < s->ntodo; i++) {
        struct smetric *m = &s->m[s->todo[i]];
        if (m->cap >= bytes) continue;
        uint8_t *b = realloc(m->tbits, bytes);
        if (!b) return -1;
        memset(b + m->cap, 0, bytes - m->cap);
        m->tbits = b;
        m->cap = bytes;
    }
    return 0;
}

int monitor_summary_rank(void *arg, const struct monitor_data *md, size_t first, struct dataset *ds) {
    struct monitor_summary *s = arg;
    struct pt_error *e = s->err;
    (void)ds;
    s->md = md;
    s->first = first;
    if (util_grow0((void **)&s->sf, &s->capsf, md->nfiles, sizeof *s->sf) != 0) return pt_errorf(e, "out of memory");
    s->nsf = md->nfiles;
    size_t n = md->nfiles - first, rows = 0;
    int rc = number(s, &rows) != 0 ? pt_errorf(e, "out of memory") : 0;
    int par = rows >= SUM_PAR_ROWS;
    if (rc == 0) {
        if (par && n >= 2) rc = util_pool_for(n, steps_part, s, e);
        else
            for (size_t i = 0; i < n && rc == 0; i++) rc = steps_part(s, i, e);
    }
    s->tg.frozen = 1;   /* every target of the rank is in: looked up only, on any thread */
    if (rc == 0) {
        if (par && s->ntodo >= 2) rc = util_pool_for((size_t)s->ntodo, metric_pass, s, e);
        else
            for (int i = 0; i < s->ntodo && rc == 0; i++) rc = metric_pass(s, (size_t)i, e);
    }
    s->tg.frozen = 0;
    return rc;
}

int monitor_summary_steps(const struct monitor_summary *s, const struct monitor_data *md, struct monitor_steps *st,
                          struct pt_error *err) {
    if (s->nsf != md->nfiles) {   /* a read with no file handed over */
        memset(st, 0, sizeof *st);
        st->micro = s->micro;
        return pt_errorf(err, "monitor data: files read but not summed up");
    }
    return monitor_steps_merge(md, s->sf, s->micro, st, err);
}

/* The ranks and (not micro) steps the rows had into b, as
 * cube_builder_finish would take them from rows, with its message when
 * they are too many.  0, or -1 with err. */
static int declare_axes(struct monitor_summary *s, struct cube_builder *b, struct pt_error *err) {
    size_t ns = util_sort_unique_i32(s->steps, s->nsteps), nr = util_sort_unique_i32(s->ranks, s->nranks);
    if (ns > CUBE_MAX_STEPS || nr > CUBE_MAX_RANKS)
        return pt_errorf(err, "%zu steps x %zu ranks is more than probetop can lay out", ns, nr);
    for (size_t j = 0; j < nr; j++)
        if (cube_builder_rank(b, s->ranks[j]) != 0) return pt_errorf(err, "out of memory");
    for (size_t j = 0; j < ns; j++)
        if (cube_builder_step(b, s->steps[j], s->steps[j], -1) != 0) return pt_errorf(err, "out of memory");
    return 0;
}

int monitor_summary_cube(struct monitor_summary *s, const struct monitor_data *md, const int *metric_of,
                         const int *stat_idx, struct cube_builder *b, struct dataset *ds, struct pt_error *err) {
    (void)md;
    if (declare_axes(s, b, err) != 0 || cube_builder_finish(b, &ds->cube, err) != 0) return -1;
    struct cube *c = ds->cube;
    uint32_t ntg = names_count(c->names);
    if (!(ds->nonfinite = calloc((size_t)c->nmetrics + 1, sizeof *ds->nonfinite))) return pt_errorf(err, "out of memory");
    uint8_t *bits = calloc(ntg / 8 + 1, 1);
    if (!bits) return pt_errorf(err, "out of memory");
    int rc = 0;
    for (int cm = 0; cm < c->nmetrics && rc == 0; cm++) {
        struct cube_metric *x = &c->metrics[cm];
        memset(bits, 0, ntg / 8 + 1);
        /* the read's metrics of this cube metric (one: their names differ) */
        for (int mi = 0; mi < s->nm; mi++) {
            if (metric_of[mi] != cm || !s->m[mi].tbits) continue;
            for (size_t j = 0; j < s->m[mi].cap && j < ntg / 8 + 1; j++) bits[j] |= s->m[mi].tbits[j];
            for (int st = 0; st < MONITOR_NSTATS; st++)
                if (stat_idx[(size_t)mi * MONITOR_NSTATS + st] >= 0) ds->nonfinite[cm] += s->m[mi].nf[st];
        }
        uint32_t n = 0;
        for (uint32_t t = 0; t < ntg; t++) n += (bits[t / 8] >> (t % 8)) & 1;
        uint32_t *tg = malloc((n ? n : 1) * sizeof *tg);
        if (!tg) { rc = pt_errorf(err, "out of memory"); break; }
        n = 0;
        for (uint32_t t = 0; t < ntg; t++)
            if ((bits[t / 8] >> (t % 8)) & 1) tg[n++] = t;
        free(x->targets);
        free(x->vals);
        x->targets = tg;
        x->ntargets = n;
        x->vals = NULL;
    }
    free(bits);
    return rc;
}
