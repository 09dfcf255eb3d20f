/* runpair: two runs of trend data matched, where they part, the
 * difference table (runpair.h). */
#include "model/compare/runpair.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare/rundiff.h"

/* name with every occurrence of each from[k] replaced by to[k], key after
 * key; malloc'd, NULL when out of memory. */
static char *renamed(const char *name, char *const *from, char *const *to, size_t nmap) {
    char *s = strdup(name);
    for (size_t k = 0; s && k < nmap; k++) {
        size_t fl = strlen(from[k]), tl = strlen(to[k]), n = 0;
        if (!fl) continue;
        for (const char *q = s; (q = strstr(q, from[k])); q += fl) n++;
        if (!n) continue;
        size_t len = strlen(s) + n * tl - n * fl;
        char *o = malloc(len + 1), *w = o;
        if (!o) { free(s); return NULL; }
        const char *r = s;
        for (const char *q; (q = strstr(r, from[k])); r = q + fl) {
            memcpy(w, r, (size_t)(q - r));
            w += q - r;
            memcpy(w, to[k], tl);
            w += tl;
        }
        strcpy(w, r);
        free(s);
        s = o;
    }
    return s;
}

void runpair_free(struct runpair *rp) {
    if (!rp) return;
    for (int m = 0; m < rp->nmetrics; m++) {
        free(rp->m[m].targets);
        free(rp->m[m].plt);
        free(rp->m[m].blt);
    }
    free(rp->m);
    names_free(rp->names);
    free(rp->tp);
    free(rp->tb);
    free(rp->pstep);
    free(rp->bstep);
    free(rp->prank);
    free(rp->brank);
    free(rp);
}

static int grow_ids(uint32_t **v, uint32_t *cap, uint32_t need) {
    if (need <= *cap) return 0;
    uint32_t nc = *cap ? *cap * 2 : 256;
    while (nc < need) nc *= 2;
    uint32_t *nv = realloc(*v, (size_t)nc * sizeof *nv);
    if (!nv) return -1;
    for (uint32_t i = *cap; i < nc; i++) nv[i] = NAMES_NONE;
    *v = nv;
    *cap = nc;
    return 0;
}

/* The pair's targets: the problem's renamed, then the benchmark's. */
static int match_targets(struct runpair *rp, char *const *from, char *const *to, size_t nmap) {
    uint32_t np = names_count(rp->p->names), nb = names_count(rp->b->names), cap = 0, capb = 0;
    if (grow_ids(&rp->tp, &cap, np + nb + 1) != 0 || grow_ids(&rp->tb, &capb, np + nb + 1) != 0) return -1;
    for (uint32_t t = 0; t < np; t++) {
        const struct target *tg = names_target(rp->p->names, t);
        char *nm = renamed(names_str(rp->p->names, t), from, to, nmap);
        if (!nm) return -1;
        uint32_t id = names_intern(rp->names, nm, strlen(nm), tg->vpp, tg->call);
        free(nm);
        if (id == NAMES_NONE) return -1;
        if (rp->tp[id] == NAMES_NONE) rp->tp[id] = t;   /* two names renamed onto one: the first keeps it */
    }
    for (uint32_t t = 0; t < nb; t++) {
        const struct target *tg = names_target(rp->b->names, t);
        uint32_t id = names_intern(rp->names, names_str(rp->b->names, t), tg->len, tg->vpp, tg->call);
        if (id == NAMES_NONE) return -1;
        if (rp->tb[id] == NAMES_NONE) rp->tb[id] = t;
    }
    return 0;
}

/* The targets of pair metric pm: both runs', and the counts of each run's own. */
static int match_metric_targets(struct runpair *rp, struct runpair_metric *pm) {
    const struct cube_metric *a = &rp->p->metrics[pm->p], *b = &rp->b->metrics[pm->b];
    uint32_t n = names_count(rp->names), k = 0;
    size_t most = a->ntargets < b->ntargets ? a->ntargets : b->ntargets;
    pm->targets = malloc((most + 1) * sizeof *pm->targets);
    pm->plt = malloc((most + 1) * sizeof *pm->plt);
    pm->blt = malloc((most + 1) * sizeof *pm->blt);
    if (!pm->targets || !pm->plt || !pm->blt) return -1;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t pl = rp->tp[t] == NAMES_NONE ? UINT32_MAX : cube_local_target(rp->p, pm->p, rp->tp[t]);
        uint32_t bl = rp->tb[t] == NAMES_NONE ? UINT32_MAX : cube_local_target(rp->b, pm->b, rp->tb[t]);
        if (pl != UINT32_MAX && bl != UINT32_MAX) {
            pm->targets[k] = t;
            pm->plt[k] = pl;
            pm->blt[k++] = bl;
        } else if (pl != UINT32_MAX) pm->p_only++;
        else if (bl != UINT32_MAX) pm->b_only++;
    }
    pm->ntargets = k;
    return 0;
}

/* The benchmark's metric of the problem's metric m: by name, else by alias. */
static int metric_match(const struct cube *p, const struct cube *b, int m, const char *(*alias)(const char *)) {
    const char *name = p->metrics[m].name;
    int bm = cube_metric_find(b, name);
    if (bm >= 0 || !alias) return bm;
    const char *al = alias(name);
    if (al && (bm = cube_metric_find(b, al)) >= 0) return bm;
    for (int k = 0; k < b->nmetrics; k++)
        if ((al = alias(b->metrics[k].name)) && !strcmp(al, name)) return k;
    return -1;
}

int runpair_build(const struct cube *p, const struct cube *b, char *const *from, char *const *to, size_t nmap,
                  const char *(*alias)(const char *metric), struct runpair **out, struct pt_error *err) {
    *out = NULL;
    struct runpair *rp = calloc(1, sizeof *rp);
    if (!rp) return pt_errorf(err, "out of memory");
    rp->p = p;
    rp->b = b;
    rp->names = names_new();
    rp->pstep = malloc((size_t)(p->nsteps + 1) * sizeof *rp->pstep);
    rp->bstep = malloc((size_t)(p->nsteps + 1) * sizeof *rp->bstep);
    rp->prank = malloc((size_t)(p->nranks + 1) * sizeof *rp->prank);
    rp->brank = malloc((size_t)(p->nranks + 1) * sizeof *rp->brank);
    rp->m = calloc((size_t)p->nmetrics + 1, sizeof *rp->m);
    if (!rp->names || !rp->pstep || !rp->bstep || !rp->prank || !rp->brank || !rp->m) goto oom;
    for (int s = 0; s < p->nsteps; s++) {
        int j = cube_step_find(b, p->steps[s].value);
        if (j < 0) { rp->p_only_steps++; continue; }
        rp->pstep[rp->nsteps] = s;
        rp->bstep[rp->nsteps++] = j;
    }
    rp->b_only_steps = b->nsteps - rp->nsteps;
    for (int r = 0; r < p->nranks; r++) {
        int j = cube_rank_find(b, p->ranks[r]);
        if (j < 0) { rp->p_only_ranks++; continue; }
        rp->prank[rp->nranks] = r;
        rp->brank[rp->nranks++] = j;
    }
    rp->b_only_ranks = b->nranks - rp->nranks;
    if (match_targets(rp, from, to, nmap) != 0) goto oom;
    for (int m = 0; m < p->nmetrics; m++) {
        int bm = metric_match(p, b, m, alias);
        if (bm < 0) { rp->p_only_metrics++; continue; }
        struct runpair_metric *pm = &rp->m[rp->nmetrics++];
        pm->p = m;
        pm->b = bm;
        for (int s = 0; s < p->metrics[m].nstats && pm->nstats < CUBE_MAX_STATS; s++) {
            int k = cube_stat_find(b, bm, p->metrics[m].stats[s]);
            if (k < 0) continue;
            pm->pstat[pm->nstats] = s;
            pm->bstat[pm->nstats++] = k;
        }
        if (match_metric_targets(rp, pm) != 0) goto oom;
    }
    rp->b_only_metrics = b->nmetrics - rp->nmetrics;
    if (!rp->nmetrics) {
        runpair_free(rp);
        return pt_errorf(err, "the two runs share no metric (the problem has %s%s)", p->nmetrics ? p->metrics[0].name : "none",
                         p->nmetrics > 1 ? ", ..." : "");
    }
    if (!rp->nsteps || !rp->nranks) {
        runpair_free(rp);
        return pt_errorf(err, "the two runs share no %s", !rp->nsteps ? "step" : "rank");
    }
    *out = rp;
    return 0;
oom:
    runpair_free(rp);
    return pt_errorf(err, "out of memory");
}

int runpair_parts(float p, float b, double threshold) {
    if (cube_is_missing(p) || cube_is_missing(b)) return 0;
    if (isnan(p) || isnan(b)) return isnan(p) != isnan(b);
    float r = rundiff_cell(p, b);
    return !(r <= threshold);
}

/* The two runs' slices of pair metric pm, shared statistic k, shared step s. */
static int slices(const struct runpair *rp, const struct runpair_metric *pm, int k, int s, struct cube_slice *ps,
                  struct cube_slice *bs, struct pt_error *err) {
    char st[40];
    if (cube_slice(rp->p, pm->p, pm->pstat[k], DIM_STEP, rp->pstep[s], ps) != 0)
        return pt_errorf(err, "the problem run's %s at step %s did not load", rp->p->metrics[pm->p].name,
                         cube_step_text(rp->p, rp->pstep[s], st, sizeof st));
    if (cube_slice(rp->b, pm->b, pm->bstat[k], DIM_STEP, rp->bstep[s], bs) != 0)
        return pt_errorf(err, "the benchmark's %s at step %s did not load", rp->b->metrics[pm->b].name,
                         cube_step_text(rp->b, rp->bstep[s], st, sizeof st));
    return 0;
}

/* The first parting cell of pair metric m at shared step s, in target,
 * rank, statistic order: 1 found, 0 none, -1 err.  The slices of every
 * statistic are taken one statistic at a time (a slice pointer holds only
 * until other blocks of its cube are fetched), so the order is kept by
 * comparing candidates. */
static int first_at(const struct runpair *rp, int m, int s, double thr, struct runpair_cell *out,
                    struct pt_error *err) {
    const struct runpair_metric *pm = &rp->m[m];
    int found = 0;
    for (int k = 0; k < pm->nstats; k++) {
        struct cube_slice ps, bs;
        if (slices(rp, pm, k, s, &ps, &bs, err) != 0) return -1;
        for (uint32_t t = 0; t < pm->ntargets; t++) {
            if (found && pm->targets[t] > out->target) break;
            for (int r = 0; r < rp->nranks; r++) {
                float p = cube_slice_at(&ps, rp->prank[r], (int)pm->plt[t]);
                float b = cube_slice_at(&bs, rp->brank[r], (int)pm->blt[t]);
                if (!runpair_parts(p, b, thr)) continue;
                /* earlier target, or same target and lower rank (a later statistic loses ties) */
                if (found && (pm->targets[t] > out->target || (pm->targets[t] == out->target && r >= out->rank))) break;
                *out = (struct runpair_cell){m, k, s, r, pm->targets[t], p, b, rundiff_cell(p, b)};
                found = 1;
                break;
            }
        }
    }
    return found;
}

int runpair_first_step(const struct runpair *rp, int metric, int s, double thr, struct runpair_cell *out,
                       struct pt_error *err) {
    for (int m = metric < 0 ? 0 : metric; m < (metric < 0 ? rp->nmetrics : metric + 1); m++) {
        int f = first_at(rp, m, s, thr, out, err);
        if (f != 0) return f;
    }
    return 0;
}

int runpair_first(const struct runpair *rp, int metric, double thr, struct runpair_cell *out, struct pt_error *err) {
    for (int s = 0; s < rp->nsteps; s++) {
        int f = runpair_first_step(rp, metric, s, thr, out, err);
        if (f != 0) return f;
    }
    return 0;
}

/* ---- the table ---- */

/* rel a worse than rel b: NaN, then Inf, then the larger */
static int worse(float a, float b) {
    if (isnan(b)) return 0;
    if (isnan(a)) return 1;
    return a > b;
}

static int table_metric(const struct runpair *rp, int m, double thr, struct runpair_row *rows, struct pt_error *err) {
    const struct runpair_metric *pm = &rp->m[m];
    for (int s = 0; s < rp->nsteps; s++)
        for (int k = 0; k < pm->nstats; k++) {
            struct cube_slice ps, bs;
            if (slices(rp, pm, k, s, &ps, &bs, err) != 0) return -1;
            for (uint32_t t = 0; t < pm->ntargets; t++) {
                struct runpair_row *w = &rows[t];
                for (int r = 0; r < rp->nranks; r++) {
                    float p = cube_slice_at(&ps, rp->prank[r], (int)pm->plt[t]);
                    float b = cube_slice_at(&bs, rp->brank[r], (int)pm->blt[t]);
                    if (cube_is_missing(p) || cube_is_missing(b)) continue;
                    w->compared++;
                    struct runpair_cell c = {m, k, s, r, pm->targets[t], p, b, rundiff_cell(p, b)};
                    if (runpair_parts(p, b, thr)) {
                        w->parted++;
                        /* steps ascend; within a step the lower rank, then the earlier statistic */
                        if (!w->has_first || (w->first.step == s && r < w->first.rank)) {
                            w->first = c;
                            w->has_first = 1;
                        }
                    }
                    if (isnan(p) && isnan(b)) continue;   /* both NaN: no difference to rank */
                    if (!w->has_max || worse(c.rel, w->max.rel)) {
                        w->max = c;
                        w->has_max = 1;
                    }
                }
            }
        }
    return 0;
}

int runpair_table(const struct runpair *rp, double thr, struct runpair_row **rows, size_t *n, struct pt_error *err) {
    *rows = NULL;
    *n = 0;
    size_t total = 0;
    for (int m = 0; m < rp->nmetrics; m++) total += rp->m[m].ntargets + rp->m[m].p_only + rp->m[m].b_only;
    struct runpair_row *v = calloc(total + 1, sizeof *v);
    if (!v) return pt_errorf(err, "out of memory");
    size_t k = 0;
    for (int m = 0; m < rp->nmetrics; m++) {
        const struct runpair_metric *pm = &rp->m[m];
        for (uint32_t t = 0; t < pm->ntargets; t++) v[k + t] = (struct runpair_row){.metric = m, .target = pm->targets[t]};
        if (table_metric(rp, m, thr, v + k, err) != 0) {
            free(v);
            return -1;
        }
        k += pm->ntargets;
        /* each run's own targets of this metric */
        for (int side = RUNPAIR_PROBLEM_ONLY; side <= RUNPAIR_BENCH_ONLY; side++)
            for (uint32_t t = 0; t < names_count(rp->names); t++) {
                uint32_t pl = rp->tp[t] == NAMES_NONE ? UINT32_MAX : cube_local_target(rp->p, pm->p, rp->tp[t]);
                uint32_t bl = rp->tb[t] == NAMES_NONE ? UINT32_MAX : cube_local_target(rp->b, pm->b, rp->tb[t]);
                if ((side == RUNPAIR_PROBLEM_ONLY && pl != UINT32_MAX && bl == UINT32_MAX) ||
                    (side == RUNPAIR_BENCH_ONLY && bl != UINT32_MAX && pl == UINT32_MAX))
                    v[k++] = (struct runpair_row){.metric = m, .target = t, .side = (enum runpair_side)side};
            }
    }
    *rows = v;
    *n = k;
    return 0;
}
