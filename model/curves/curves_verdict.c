/* curves_verdict: a problem run's curves against its benchmark's, classified
 * as the accuracy-debugging guide does (see curves_verdict.h; the rules are
 * probetop-rules(7), TRAINING CURVES). */
#include "model/curves/curves_verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"

void curves_verdict_defaults(struct curves_verdict_opts *o) {
    *o = (struct curves_verdict_opts){.threshold = 0.01, .window = 3, .spike_loss = 1.2, .spike_grad = 2.0,
                                      .median_span = 9, .back_span = 5, .logp_limit = 0.01};
}

double curves_verdict_rel(double p, double b) {
    if (isnan(p) && isnan(b)) return 0;
    if (!isfinite(p) || !isfinite(b)) return p == b ? 0 : INFINITY;
    if (p == b) return 0;
    if (b == 0) return INFINITY;
    return fabs(p - b) / fabs(b);
}

/* ---- distinct steps ---- */

struct stepset { int64_t *v; size_t n, cap; };

static int stepset_add(struct stepset *s, int64_t step) {
    if (UTIL_PUSH(s->v, s->n, s->cap) != 0) return -1;
    s->v[s->n++] = step;
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The number of distinct steps (the set sorted in place). */
static size_t stepset_count(struct stepset *s) {
    if (!s->n) return 0;
    qsort(s->v, s->n, sizeof *s->v, cmp_i64);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++) k += s->v[i] != s->v[i - 1];
    return k;
}

/* ---- one run ---- */

static void set_first(int64_t *first, int64_t step) {
    if (*first == CURVES_NO_STEP || step < *first) *first = step;
}

/* Spikes of one loss or grad-norm series: a finite value above median x
 * factor, the median of the previous median_span finite values (at least
 * half of them there, and positive), where the point before was not above
 * its own bar (a run of such points is one event, at its first step).  A
 * spike when a value within the next back_span finite points is back at
 * least halfway from the peak to the median, else a jump (a new level). */
static int find_spikes(const struct curves_series *s, double factor, const struct curves_verdict_opts *o,
                       struct curves_run_report *r, size_t *cap, struct stepset *steps) {
    int span = o->median_span > 0 ? o->median_span : 9;
    double win[64], tmp[64];
    if (span > 64) span = 64;
    int have = 0, head = 0, prev_above = 0;
    for (size_t i = 0; i < s->n; i++) {
        double v = s->pts[i].value;
        if (!isfinite(v)) continue;
        int above = 0;
        if (have >= (span + 1) / 2) {
            for (int a = 0; a < have; a++) {   /* insertion sort: a handful of values */
                int z = a;
                for (; z > 0 && tmp[z - 1] > win[a]; z--) tmp[z] = tmp[z - 1];
                tmp[z] = win[a];
            }
            double med = have % 2 ? tmp[have / 2] : (tmp[have / 2 - 1] + tmp[have / 2]) / 2;
            above = med > 0 && v > med * factor;
            if (above && !prev_above) {
                double half = med + (v - med) / 2;
                int back = 0, seen = 0;
                for (size_t j = i + 1; j < s->n && seen < o->back_span && !back; j++) {
                    if (!isfinite(s->pts[j].value)) continue;
                    seen++;
                    back = s->pts[j].value <= half;
                }
                if (UTIL_PUSH(r->spikes, r->nspikes, *cap) != 0 || stepset_add(steps, s->pts[i].step) != 0) return -1;
                r->spikes[r->nspikes++] = (struct curves_spike){s->name, s->role, s->pts[i].step, v, med, back};
                int64_t *first = s->role == CURVES_LOSS ? &r->first_loss_bad : &r->first_grad_bad;
                set_first(first, s->pts[i].step);
            }
        }
        prev_above = above;
        if (have < span) win[have++] = v;
        else {
            win[head] = v;
            head = (head + 1) % span;
        }
    }
    return 0;
}

static int scan_series(const struct curves_series *s, const struct curves_verdict_opts *o, struct curves_run_report *r,
                       size_t *ncap, struct stepset *bad, struct stepset *ovf) {
    size_t dcap = 0;
    for (size_t i = 0; i < s->n; i++) {
        int64_t step = s->pts[i].step;
        double v = s->pts[i].value;
        if (!isfinite(v)) {
            if (UTIL_PUSH(r->nonfinite, r->nnonfinite, *ncap) != 0 || stepset_add(bad, step) != 0) return -1;
            r->nonfinite[r->nnonfinite++] = (struct curves_nonfinite){s->name, step, v};
            if (s->role == CURVES_LOSS) set_first(&r->first_loss_bad, step);
            if (s->role == CURVES_GRAD_NORM) set_first(&r->first_grad_bad, step);
            continue;
        }
        if (s->role == CURVES_SKIPPED || s->role == CURVES_NAN_ITERS) {
            double *sum = s->role == CURVES_SKIPPED ? &r->skipped : &r->nan_iters;
            *sum = (*sum < 0 ? 0 : *sum) + v;
            if (v > 0 && stepset_add(s->role == CURVES_SKIPPED ? ovf : bad, step) != 0) return -1;
        } else if (s->role == CURVES_LOSS_SCALE && i > 0 && isfinite(s->pts[i - 1].value) && v < s->pts[i - 1].value) {
            if (UTIL_PUSH(r->drops, r->ndrops, dcap) != 0 || stepset_add(ovf, step) != 0) return -1;
            r->drops[r->ndrops++] = (struct curves_scale_drop){step, s->pts[i - 1].value, v};
        } else if (s->role == CURVES_LOGP_DIFF && fabs(v) > o->logp_limit) {
            if (!r->logp_series || step < r->logp_step) {
                r->logp_series = s->name;
                r->logp_step = step;
                r->logp_value = v;
            }
            r->logp_over++;
        }
    }
    return 0;
}

static int report_run(const struct curves *c, const struct curves_verdict_opts *o, struct curves_run_report *r) {
    memset(r, 0, sizeof *r);
    r->skipped = r->nan_iters = -1;
    r->first_loss_bad = r->first_grad_bad = r->logp_step = CURVES_NO_STEP;
    struct stepset bad = {0}, ovf = {0}, spk = {0};
    size_t scap = 0, ncap = 0;
    int rc = 0;
    for (size_t i = 0; i < c->nseries && rc == 0; i++) {
        const struct curves_series *s = &c->series[i];
        rc = scan_series(s, o, r, &ncap, &bad, &ovf);
        if (rc == 0 && (s->role == CURVES_LOSS || s->role == CURVES_GRAD_NORM))
            rc = find_spikes(s, s->role == CURVES_LOSS ? o->spike_loss : o->spike_grad, o, r, &scap, &spk);
    }
    r->nonfinite_steps = stepset_count(&bad);
    r->overflow_steps = stepset_count(&ovf);
    r->spike_steps = stepset_count(&spk);
    free(bad.v);
    free(ovf.v);
    free(spk.v);
    return rc;
}

static void came_first(struct curves_run_report *r) {
    int64_t l = r->first_loss_bad, g = r->first_grad_bad;
    r->came_first = l == CURVES_NO_STEP || g == CURVES_NO_STEP ? NULL : g < l ? "grad_norm" : l < g ? "loss" : "same";
}

/* ---- the two runs step by step ---- */

/* The first step from which rel (p against b; below: (b-p)/|b| when
 * below_only) stays above o->threshold for o->window common steps (or to
 * the end of the common steps); CURVES_NO_STEP none.  Fills the error's
 * growth into v when v is given. */
static int64_t first_apart(const struct curves_series *p, const struct curves_series *b, int below_only,
                           const struct curves_verdict_opts *o, double *rel_at, struct curves_verdict *v) {
    int64_t start = CURVES_NO_STEP, found = CURVES_NO_STEP;
    double start_rel = 0;
    int run = 0;
    size_t i = 0, j = 0, common = 0;
    int window = o->window > 0 ? o->window : 1;
    while (i < p->n && j < b->n) {
        if (p->pts[i].step < b->pts[j].step) { i++; continue; }
        if (p->pts[i].step > b->pts[j].step) { j++; continue; }
        int64_t step = p->pts[i].step;
        double pv = p->pts[i].value, bv = b->pts[j].value;
        double rel = curves_verdict_rel(pv, bv);
        if (below_only) rel = isfinite(pv) && isfinite(bv) && bv != 0 ? (bv - pv) / fabs(bv) : 0;
        if (v) {
            if (!common) { v->first_common = step; v->rel_first = rel; v->rel_max = rel; v->rel_max_step = step; }
            if (rel > v->rel_max) { v->rel_max = rel; v->rel_max_step = step; }
            v->rel_last = rel;
        }
        common++;
        if (rel > o->threshold) {
            if (!run++) { start = step; start_rel = rel; }
            if (run >= window && found == CURVES_NO_STEP) { found = start; *rel_at = start_rel; }
        } else run = 0;
        i++, j++;
    }
    if (found == CURVES_NO_STEP && run > 0) { found = start; *rel_at = start_rel; }   /* above to the end */
    if (v) v->common = common;
    return found;
}

/* The error at the step before step (common steps), or -1 none. */
static double rel_before(const struct curves_series *p, const struct curves_series *b, int64_t step) {
    double best = -1;
    int64_t at = CURVES_NO_STEP;
    for (size_t i = 0; i < p->n && p->pts[i].step < step; i++) {
        double bv;
        if (curves_value_at(b, p->pts[i].step, &bv) && p->pts[i].step > at) {
            at = p->pts[i].step;
            best = curves_verdict_rel(p->pts[i].value, bv);
        }
    }
    return best;
}

static int spike_at(const struct curves_run_report *r, enum curves_role role, int64_t lo, int64_t hi) {
    for (size_t k = 0; k < r->nspikes; k++)
        if (r->spikes[k].role == role && r->spikes[k].step >= lo && r->spikes[k].step <= hi) return 1;
    return 0;
}

/* ---- the verdict ---- */

static void dump1(struct curves_verdict *v, int64_t step, const char *pass) {
    if (v->ndump < 2) v->dump[v->ndump++] = (struct curves_dump_pass){step, pass};
}

static void say(struct curves_verdict *v, enum curves_verdict_kind kind, int64_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void say(struct curves_verdict *v, enum curves_verdict_kind kind, int64_t at, const char *fmt, ...) {
    v->kind = kind;
    v->at = at;
    v->found = kind != CURVES_ALIGNED;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof v->why, fmt, ap);
    va_end(ap);
    v->ndump = 0;
    switch (kind) {
    case CURVES_LOSS_JUMP: dump1(v, at - 1, "backward"); dump1(v, at, "forward"); break;
    case CURVES_GRAD_JUMP: dump1(v, at, "backward"); break;
    case CURVES_FROM_START: case CURVES_RL_LOGP: case CURVES_RL_REWARD: dump1(v, at, "forward"); break;
    case CURVES_DRIFT: dump1(v, at, "forward"); dump1(v, at, "backward"); break;
    default: break;
    }
}

/* The first step of a problem finding the benchmark does not share: a
 * non-finite step, or a spike (of role, any when role is CURVES_NROLES). */
static int64_t first_extra_nonfinite(const struct curves_run_report *p, const struct curves_run_report *b,
                                     const char **series) {
    int64_t best = CURVES_NO_STEP;
    for (size_t k = 0; k < p->nnonfinite; k++) {
        int shared = 0;
        for (size_t m = 0; b && m < b->nnonfinite && !shared; m++) shared = b->nonfinite[m].step == p->nonfinite[k].step;
        if (!shared && (best == CURVES_NO_STEP || p->nonfinite[k].step < best)) {
            best = p->nonfinite[k].step;
            *series = p->nonfinite[k].series;
        }
    }
    return best;
}

static const struct curves_spike *first_extra_spike(const struct curves_run_report *p, const struct curves_run_report *b) {
    const struct curves_spike *best = NULL;
    for (size_t k = 0; k < p->nspikes; k++) {
        const struct curves_spike *s = &p->spikes[k];
        if (b && spike_at(b, s->role, s->step - 1, s->step + 1)) continue;
        if (!best || s->step < best->step || (s->step == best->step && s->role == CURVES_GRAD_NORM)) best = s;
    }
    return best;
}

/* NaN / overflow: the first non-finite step decides the pass, by the
 * series (a grad norm's is its backward; a loss's, the step's forward and
 * the backward before it). */
static int nan_verdict(struct curves_verdict *v, const struct curves *problem) {
    const struct curves_run_report *p = &v->problem, *b = v->has_bench ? &v->bench : NULL;
    int more = b ? p->nonfinite_steps > b->nonfinite_steps || p->overflow_steps > b->overflow_steps
                 : p->nonfinite_steps > 0;
    if (!more) return 0;
    const char *series = NULL;
    int64_t at = first_extra_nonfinite(p, b, &series);
    if (at == CURVES_NO_STEP) {
        say(v, CURVES_NAN, CURVES_NO_STEP, "more overflow steps (skipped iterations, loss-scale drops) than the benchmark: %zu against %zu",
            p->overflow_steps, b ? b->overflow_steps : 0);
        return 1;
    }
    const struct curves_series *s = curves_find(problem, series);
    if (b)
        say(v, CURVES_NAN, at, "non-finite %s at step %lld (%zu non-finite steps, the benchmark %zu)", series,
            (long long)at, p->nonfinite_steps, b->nonfinite_steps);
    else
        say(v, CURVES_NAN, at, "non-finite %s at step %lld (%zu non-finite steps)", series, (long long)at,
            p->nonfinite_steps);
    if (s && s->role == CURVES_GRAD_NORM) dump1(v, at, "backward");
    else {
        dump1(v, at - 1, "backward");
        dump1(v, at, "forward");
    }
    return 1;
}

/* Misaligned at N (not from the start): a jump when the problem's loss
 * spikes or jumps at N, or the error crosses at once (at most the threshold
 * at the common step before, over 5 x the threshold at N); the grad norm's
 * when its own misalignment comes first and is a jump too (a spike there,
 * or the loss's is); else a drift. */
static void misaligned_verdict(struct curves_verdict *v, const struct curves_series *pl, const struct curves_series *bl,
                               const struct curves_verdict_opts *o) {
    int64_t n = v->mis_step;
    if (v->from_start) {
        say(v, CURVES_FROM_START, n, "the loss is misaligned from the first common step %lld (relative error %.3g)",
            (long long)n, v->mis_rel);
        return;
    }
    double before = rel_before(pl, bl, n);
    int abrupt = spike_at(&v->problem, CURVES_LOSS, n, n) ||
                 (before >= 0 && before <= o->threshold && v->mis_rel > 5 * o->threshold);
    if (v->grad_mis_step != CURVES_NO_STEP && v->grad_mis_step < n &&
        (spike_at(&v->problem, CURVES_GRAD_NORM, v->grad_mis_step, v->grad_mis_step) || abrupt)) {
        say(v, CURVES_GRAD_JUMP, v->grad_mis_step, "the grad norm jumps at step %lld, before the loss parts at %lld",
            (long long)v->grad_mis_step, (long long)n);
        return;
    }
    if (abrupt) {
        say(v, CURVES_LOSS_JUMP, n, "the loss jumps away from the benchmark at step %lld (relative error %.3g)",
            (long long)n, v->mis_rel);
        return;
    }
    say(v, CURVES_DRIFT, n, "aligned at first, the loss drifts apart from step %lld (error %.3g there, %.3g at the last common step)",
        (long long)n, v->mis_rel, v->rel_last);
}

static void compare_runs(struct curves_verdict *v, const struct curves *problem, const struct curves *bench,
                         const struct curves_verdict_opts *o) {
    const struct curves_series *pl = curves_find_role(problem, CURVES_LOSS), *bl = curves_find_role(bench, CURVES_LOSS);
    const struct curves_series *pg = curves_find_role(problem, CURVES_GRAD_NORM), *bg = curves_find_role(bench, CURVES_GRAD_NORM);
    const struct curves_series *pr = curves_find_role(problem, CURVES_REWARD), *br = curves_find_role(bench, CURVES_REWARD);
    v->loss_p = pl ? pl->name : NULL;
    v->loss_b = bl ? bl->name : NULL;
    if (pl && bl) {
        v->mis_step = first_apart(pl, bl, 0, o, &v->mis_rel, v);
        v->misaligned = v->mis_step != CURVES_NO_STEP;
        v->mis_series = pl->name;
        v->from_start = v->misaligned && v->mis_step == v->first_common;
        if (v->misaligned) set_first(&v->problem.first_loss_bad, v->mis_step);
    }
    if (pg && bg) {
        double r;
        v->grad_mis_step = first_apart(pg, bg, 0, o, &r, NULL);
        if (v->grad_mis_step != CURVES_NO_STEP) set_first(&v->problem.first_grad_bad, v->grad_mis_step);
    }
    if (pr && br) {
        v->reward_step = first_apart(pr, br, 1, o, &v->reward_rel, NULL);
        v->reward_below = v->reward_step != CURVES_NO_STEP;
    }
}

static void classify(struct curves_verdict *v, const struct curves *problem, const struct curves *bench,
                     const struct curves_verdict_opts *o) {
    const struct curves_run_report *p = &v->problem, *b = v->has_bench ? &v->bench : NULL;
    say(v, CURVES_ALIGNED, CURVES_NO_STEP, b ? "the problem run follows the benchmark" : "no spike, no non-finite value");
    if (v->misaligned && v->from_start) {
        misaligned_verdict(v, curves_find_role(problem, CURVES_LOSS), curves_find_role(bench, CURVES_LOSS), o);
        return;
    }
    /* the earliest finding decides; on a tie NaN, then misalignment, spikes, RL */
    int64_t nan_at = CURVES_NO_STEP;
    struct curves_verdict tmp = *v;
    if (nan_verdict(&tmp, problem)) nan_at = tmp.at == CURVES_NO_STEP ? INT64_MAX - 1 : tmp.at;
    const struct curves_spike *sp = b ? (p->spike_steps > b->spike_steps ? first_extra_spike(p, b) : NULL)
                                      : first_extra_spike(p, NULL);
    int64_t mis_at = v->misaligned ? v->mis_step : CURVES_NO_STEP;
    if (v->misaligned && v->grad_mis_step != CURVES_NO_STEP && v->grad_mis_step < mis_at) mis_at = v->grad_mis_step;
    int64_t best = INT64_MAX;
    int which = 0;
    int64_t cand[5] = {nan_at, mis_at, sp ? sp->step : CURVES_NO_STEP, p->logp_series ? p->logp_step : CURVES_NO_STEP,
                       v->reward_below ? v->reward_step : CURVES_NO_STEP};
    for (int k = 0; k < 5; k++)
        if (cand[k] != CURVES_NO_STEP && cand[k] < best) { best = cand[k]; which = k + 1; }
    switch (which) {
    case 1: *v = tmp; break;
    case 2: misaligned_verdict(v, curves_find_role(problem, CURVES_LOSS), curves_find_role(bench, CURVES_LOSS), o); break;
    case 3:
        if (sp->role == CURVES_GRAD_NORM)
            say(v, CURVES_GRAD_JUMP, sp->step, "the grad norm %s at step %lld (%.4g, median %.4g)%s",
                sp->back ? "spikes" : "jumps", (long long)sp->step, sp->value, sp->median, b ? ", not in the benchmark" : "");
        else
            say(v, CURVES_LOSS_JUMP, sp->step, "the loss %s at step %lld (%.4g, median %.4g)%s",
                sp->back ? "spikes" : "jumps", (long long)sp->step, sp->value, sp->median, b ? ", not in the benchmark" : "");
        if (b) v->kind = CURVES_SPIKES;
        break;
    case 4:
        say(v, CURVES_RL_LOGP, p->logp_step, "%s is %.4g at step %lld, over %g (%zu points over)", p->logp_series,
            p->logp_value, (long long)p->logp_step, o->logp_limit, p->logp_over);
        break;
    case 5:
        say(v, CURVES_RL_REWARD, v->reward_step, "the reward falls below the benchmark's from step %lld (%.3g below)",
            (long long)v->reward_step, v->reward_rel);
        break;
    default: break;
    }
}

int curves_verdict_run(const struct curves *problem, const struct curves *bench, const struct curves_verdict_opts *o,
                       struct curves_verdict *v) {
    struct curves_verdict_opts def;
    if (!o) {
        curves_verdict_defaults(&def);
        o = &def;
    }
    memset(v, 0, sizeof *v);
    v->has_bench = bench != NULL;
    v->mis_step = v->grad_mis_step = v->reward_step = v->first_common = v->rel_max_step = v->at = CURVES_NO_STEP;
    if (report_run(problem, o, &v->problem) != 0 || (bench && report_run(bench, o, &v->bench) != 0)) {
        curves_verdict_free(v);
        return -1;
    }
    if (bench) compare_runs(v, problem, bench, o);
    came_first(&v->problem);
    if (bench) came_first(&v->bench);
    classify(v, problem, bench, o);
    return 0;
}

static void report_free(struct curves_run_report *r) {
    free(r->spikes);
    free(r->nonfinite);
    free(r->drops);
    memset(r, 0, sizeof *r);
}

void curves_verdict_free(struct curves_verdict *v) {
    report_free(&v->problem);
    report_free(&v->bench);
}

const char *curves_verdict_name(const struct curves_verdict *v) {
    static const char *const names[CURVES_NKINDS] = {"aligned", "misaligned_from_start", "loss_jump", "grad_norm_jump",
                                                     "long_term_drift", "nan_overflow", "spikes", "rl_logp_diff",
                                                     "rl_reward_below"};
    if (v->kind == CURVES_ALIGNED && !v->has_bench) return "clean";
    return (unsigned)v->kind < CURVES_NKINDS ? names[v->kind] : "aligned";
}
