/* curves: the training-curves pane (issue 22) -- a problem run's series
 * against its benchmark's (PROBLEM BENCH of two curve inputs, or one run
 * alone), one series at a time.
 *
 * The problem and bench lines are overlaid on the ui canvas (braille, half
 * blocks or ASCII, as the line chart draws: problem '*', bench '+' in
 * ASCII), the relative error |p-b|/|b| is a strip under them, and a row of
 * marks under the plot names the findings of model/curves/curves_verdict.c
 * by glyph, so they read without colour: M the first misaligned step, S a
 * spike, J a jump (it stayed up), N NaN, I an infinity (lower case: the
 * benchmark's own).  The verdict runs once per load and stays in the pane.
 * Series are chosen with j/k (starting on the loss), f goes to the first
 * misaligned step, n/N to the next/previous finding of the series, zoom and
 * pan as in the line chart.  The status line names the cursor's step, both
 * values, the error and the finding there.
 *
 * A long run draws in O(columns): when the shown steps are more than two
 * per dot of the canvas, each dot column draws the smallest to the largest
 * value of its steps (and joins the last value of the column before to the
 * first of its own), from min/max pyramids built once per series picked
 * (model/curves/curves_minmax.h) for both runs and the relative error; the
 * y range comes from them too.  Fewer steps draw point by point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/curves/curves.h"
#include "model/curves/curves_minmax.h"
#include "model/curves/curves_verdict.h"
#include "model/util/rankdirs.h"
#include "ui/canvas.h"
#include "ui/text.h"
#include "ui/ui.h"
#include "views/view.h"

enum { CV_LEFT = 1, CV_RIGHT, CV_UP, CV_DOWN, CV_FIRSTMIS, CV_NEXT, CV_PREV, CV_ZIN, CV_ZOUT, CV_HOME, CV_END, CV_WHOLE, CV_OPEN };

static const struct keys_row cv_keys[] = {
    {KEYS_LEFT, NULL, CV_LEFT, "cursor to the previous step"}, {'h', NULL, CV_LEFT, "cursor to the previous step"},
    {KEYS_RIGHT, NULL, CV_RIGHT, "cursor to the next step"}, {'l', NULL, CV_RIGHT, "cursor to the next step"},
    {KEYS_UP, NULL, CV_UP, "previous series"}, {'k', NULL, CV_UP, "previous series"},
    {KEYS_DOWN, NULL, CV_DOWN, "next series"}, {'j', NULL, CV_DOWN, "next series"},
    {'f', NULL, CV_FIRSTMIS, "go to the first misaligned step (of the loss when this series has none)"},
    {'n', NULL, CV_NEXT, "next finding of the series (misaligned step, spike, NaN)"},
    {'N', NULL, CV_PREV, "previous finding"},
    {'Z', NULL, CV_ZIN, "zoom in on the steps around the cursor"},
    {'z', NULL, CV_ZOUT, "zoom out"},
    {'g', NULL, CV_HOME, "cursor to the first step"}, {KEYS_HOME, NULL, CV_HOME, "cursor to the first step"},
    {'G', NULL, CV_END, "cursor to the last step"}, {KEYS_END, NULL, CV_END, "cursor to the last step"},
    {'w', NULL, CV_WHOLE, "show every step"},
    {KEYS_ENTER, NULL, CV_OPEN, "open the step to dump in the run's dump root (--dump DIR): the heat map of its pass at that step"},
};

/* A finding of the selected series, at a step. */
struct cv_find {
    int64_t step;
    char mark;          /* M S J N I (lower case: the benchmark's) */
    double value, extra; /* the value; the median (spikes) or rel err (M) */
};

struct cv {
    struct curves_verdict v;
    int have_v;
    const struct curves *p, *b;   /* the runs (b NULL: one run) */
    size_t sel;                   /* series of p */
    const struct curves_series *sp, *sb;
    int64_t *steps;               /* union of the steps of sp and sb, ascending;
                                   * NULL when those of sp (cv_step()) */
    size_t nsteps;
    size_t cursor;                /* index into steps */
    size_t xv0, xv1;              /* shown [xv0, xv1); xv1 == 0 all */
    struct cv_find *finds;
    size_t nfinds;
    enum canvas_mode mode;
    /* min/max pyramids of sp's values, sb's, and rel (the relative error
     * at each point of sp, NaN where sb has no value there) */
    struct curves_minmax mp, mb, mr;
    double *rel;
    /* the dump root attached (a->curves_dump): rank folders of each
     * dump_next step in it; dump_root 0 none, -1 not a dump root */
    int dump_root, dump_ranks[2];
};

/* The last component of p (a trailing '/' ignored) into out; with up > 0
 * the component up levels above it ("" when there is none). */
static void component(const char *p, int up, char *out, size_t size) {
    size_t end = strlen(p);
    out[0] = '\0';
    for (int k = 0;; k++) {
        while (end > 1 && p[end - 1] == '/') end--;
        size_t start = end;
        while (start > 0 && p[start - 1] != '/') start--;
        if (k == up) {
            snprintf(out, size, "%.*s", (int)(end - start), p + start);
            return;
        }
        if (start == 0) return;
        end = start - 1;
    }
}

/* The legend's name of a run (path, beside the other run's other): the
 * log file's or folder's name; when both have the same one, the run
 * folder above it; "" when that is the same too or only says the run's
 * role (a problem/ and a bench/ folder: the legend says problem and
 * benchmark already). */
static void run_name(const char *path, const char *other, char *out, size_t size) {
    char o[256];
    out[0] = '\0';
    if (!path) return;
    for (int up = 0; up < 2; up++) {
        component(path, up, out, size);
        if (other) component(other, up, o, sizeof o);
        if (!other || strcmp(out, o)) break;
        out[0] = '\0';
    }
    if (!strcmp(out, "problem") || !strcmp(out, "bench") || !strcmp(out, "benchmark")) out[0] = '\0';
}

/* The i-th step of the union (not copied when the runs logged the same
 * steps, or there is one run: those of sp). */
static inline int64_t cv_step(const struct cv *c, size_t i) {
    return c->steps ? c->steps[i] : c->sp->pts[i].step;
}

static int cmp_find(const void *x, const void *y) {
    const struct cv_find *a = x, *b = y;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    return (a->mark >= 'a') - (b->mark >= 'a');
}

/* The benchmark's series for the problem's s: the same name, else the
 * same role. */
static const struct curves_series *bench_of(const struct curves *b, const struct curves_series *s) {
    if (!b) return NULL;
    const struct curves_series *o = curves_find(b, s->name);
    if (!o && s->role != CURVES_OTHER) o = curves_find_role(b, s->role);
    return o;
}

static int add_find(struct cv *c, size_t *cap, int64_t step, char mark, double value, double extra) {
    if (c->nfinds == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        struct cv_find *n = realloc(c->finds, nc * sizeof *n);
        if (!n) return -1;
        c->finds = n;
        *cap = nc;
    }
    c->finds[c->nfinds++] = (struct cv_find){step, mark, value, extra};
    return 0;
}

static void run_finds(struct cv *c, size_t *cap, const struct curves_run_report *r, const char *name, int bench) {
    for (size_t i = 0; i < r->nspikes; i++)
        if (!strcmp(r->spikes[i].series, name))
            add_find(c, cap, r->spikes[i].step, (char)((r->spikes[i].back ? 'S' : 'J') + (bench ? 32 : 0)),
                     r->spikes[i].value, r->spikes[i].median);
    for (size_t i = 0; i < r->nnonfinite; i++)
        if (!strcmp(r->nonfinite[i].series, name))
            add_find(c, cap, r->nonfinite[i].step, (char)((isnan(r->nonfinite[i].value) ? 'N' : 'I') + (bench ? 32 : 0)),
                     r->nonfinite[i].value, 0);
}

/* The first point of s at step or after it. */
static size_t lower(const struct curves_series *s, int64_t step) {
    size_t lo = 0, hi = s ? s->n : 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->pts[mid].step < step) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void free_pyramids(struct cv *c) {
    curves_minmax_free(&c->mp);
    curves_minmax_free(&c->mb);
    curves_minmax_free(&c->mr);
    free(c->rel);
    c->rel = NULL;
}

/* The pyramids of the picked series (once per pick: O(n)); a failed one
 * leaves its values to be scanned.  When the runs logged the same steps
 * (c->steps NULL), the three in one pass over both runs. */
static void build_pyramids(struct cv *c) {
    const size_t stride = sizeof(struct curves_point) / sizeof(double);
    const size_t n = c->sp->n;
    if (!c->sb) {
        curves_minmax_build(&c->mp, n ? &c->sp->pts[0].value : NULL, stride, n);
        return;
    }
    if (!(c->rel = malloc((n ? n : 1) * sizeof *c->rel))) {
        curves_minmax_build(&c->mp, n ? &c->sp->pts[0].value : NULL, stride, n);
        curves_minmax_build(&c->mb, c->sb->n ? &c->sb->pts[0].value : NULL, stride, c->sb->n);
        return;
    }
    if (!c->steps) {   /* the same steps: point i of both runs is step i */
        const struct curves_point *P = c->sp->pts, *Q = c->sb->pts;
        int fp = curves_minmax_begin(&c->mp, n ? &P[0].value : NULL, stride, n) == 0 && c->mp.nlev;
        int fb = curves_minmax_begin(&c->mb, n ? &Q[0].value : NULL, stride, n) == 0 && c->mb.nlev;
        int fr = curves_minmax_begin(&c->mr, c->rel, 1, n) == 0 && c->mr.nlev;
        for (size_t a = 0, blk = 0; a < n; a += CURVES_MINMAX_BLOCK, blk++) {
            size_t e = a + CURVES_MINMAX_BLOCK < n ? a + CURVES_MINMAX_BLOCK : n;
            double plo = INFINITY, phi = -INFINITY, blo = INFINITY, bhi = -INFINITY, rlo = INFINITY, rhi = -INFINITY;
            int pbad = 0, bbad = 0, rbad = 0;
            for (size_t i = a; i < e; i++) {
                double x = P[i].value, y = Q[i].value, r = curves_verdict_rel(x, y);
                c->rel[i] = r;
                if (!isfinite(x)) pbad = 1;
                else plo = x < plo ? x : plo, phi = x > phi ? x : phi;
                if (!isfinite(y)) bbad = 1;
                else blo = y < blo ? y : blo, bhi = y > bhi ? y : bhi;
                if (!isfinite(r)) rbad = 1;
                else rlo = r < rlo ? r : rlo, rhi = r > rhi ? r : rhi;
            }
            if (fp) curves_minmax_block(&c->mp, blk, plo, phi, pbad);
            if (fb) curves_minmax_block(&c->mb, blk, blo, bhi, bbad);
            if (fr) curves_minmax_block(&c->mr, blk, rlo, rhi, rbad);
        }
        if (fp) curves_minmax_finish(&c->mp);
        if (fb) curves_minmax_finish(&c->mb);
        if (fr) curves_minmax_finish(&c->mr);
        return;
    }
    curves_minmax_build(&c->mp, n ? &c->sp->pts[0].value : NULL, stride, n);
    curves_minmax_build(&c->mb, c->sb->n ? &c->sb->pts[0].value : NULL, stride, c->sb->n);
    for (size_t i = 0, j = 0; i < n; i++) {   /* both sorted: one walk */
        while (j < c->sb->n && c->sb->pts[j].step < c->sp->pts[i].step) j++;
        c->rel[i] = j < c->sb->n && c->sb->pts[j].step == c->sp->pts[i].step
                        ? curves_verdict_rel(c->sp->pts[i].value, c->sb->pts[j].value) : NAN;
    }
    curves_minmax_build(&c->mr, c->rel, 1, n);
}

/* The selected series' steps and findings. */
static void pick(struct cv *c, size_t sel) {
    free_pyramids(c);
    free(c->steps);
    free(c->finds);
    c->steps = NULL;
    c->finds = NULL;
    c->nsteps = c->nfinds = 0;
    c->xv0 = c->xv1 = 0;
    c->cursor = 0;
    c->sp = c->sb = NULL;
    if (!c->p || sel >= c->p->nseries) return;
    c->sel = sel;
    c->sp = &c->p->series[sel];
    c->sb = bench_of(c->b, c->sp);
    size_t nb = c->sb ? c->sb->n : 0, u = 0;
    /* both finished (sorted by step, one point a step): the steps of sp
     * when the runs logged the same steps (the usual pair) or there is
     * one run, not copied (cv_step()); else a merge */
    if (!nb || nb == c->sp->n) {
        while (u < c->sp->n && (!nb || c->sp->pts[u].step == c->sb->pts[u].step)) u++;
    }
    if (u && u == c->sp->n) {
        c->nsteps = u;
    } else {
        size_t n = c->sp->n + nb, i = 0, j = 0;
        if (!n || !(c->steps = malloc(n * sizeof *c->steps))) return;
        u = 0;
        while (i < c->sp->n || j < nb) {
            int64_t a = i < c->sp->n ? c->sp->pts[i].step : INT64_MAX, b = j < nb ? c->sb->pts[j].step : INT64_MAX;
            int64_t m = a < b ? a : b;
            if (a == m) i++;
            if (b == m) j++;
            c->steps[u++] = m;
        }
        c->nsteps = u;
    }
    build_pyramids(c);
    size_t cap = 0;
    if (c->have_v) {
        const struct curves_verdict *v = &c->v;
        if (v->misaligned && v->mis_series && !strcmp(v->mis_series, c->sp->name))
            add_find(c, &cap, v->mis_step, 'M', 0, v->mis_rel);
        else if (c->sp->role == CURVES_GRAD_NORM && v->grad_mis_step != CURVES_NO_STEP)
            add_find(c, &cap, v->grad_mis_step, 'M', 0, NAN);
        run_finds(c, &cap, &v->problem, c->sp->name, 0);
        if (c->sb && v->has_bench) run_finds(c, &cap, &v->bench, c->sb->name, 1);
    }
    if (c->nfinds) qsort(c->finds, c->nfinds, sizeof *c->finds, cmp_find);
}

static size_t step_index(const struct cv *c, int64_t step) {
    size_t lo = 0, hi = c->nsteps;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cv_step(c, mid) < step) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->nsteps ? lo : c->nsteps ? c->nsteps - 1 : 0;
}

/* The rank folders of the steps to dump in the dump root attached. */
static void scan_dump(struct cv *c, const struct session *a) {
    c->dump_root = 0;
    c->dump_ranks[0] = c->dump_ranks[1] = 0;
    if (!a->curves_dump || !c->have_v) return;
    struct util_rankdirs rd = {0};
    int steps = util_scan_root(a->curves_dump, &rd, NULL, NULL);
    c->dump_root = steps > 0 ? 1 : -1;
    for (size_t k = 0; steps > 0 && k < c->v.ndump && k < 2; k++)
        for (size_t i = 0; i < rd.n; i++) c->dump_ranks[k] += rd.v[i].step == c->v.dump[k].step;
    util_rankdirs_free(&rd);
}

/* What the status line says of the step to dump: its passes and whether
 * they are in the dump root. */
static void dump_text(const struct cv *c, const struct session *a, char *buf, size_t size) {
    buf[0] = '\0';
    if (!c->have_v || !c->v.ndump) return;
    const struct curves_dump_pass *d = c->v.dump;
    int n = c->v.ndump > 1 && d[1].step == d[0].step
                ? snprintf(buf, size, "dump step %lld (%s, %s)", (long long)d[0].step, d[0].pass, d[1].pass)
            : c->v.ndump > 1 ? snprintf(buf, size, "dump the %s of step %lld, the %s of %lld", d[0].pass, (long long)d[0].step,
                                        d[1].pass, (long long)d[1].step)
                             : snprintf(buf, size, "dump the %s of step %lld", d[0].pass, (long long)d[0].step);
    if (n < 0 || (size_t)n >= size) return;
    if (c->dump_root < 0) snprintf(buf + n, size - (size_t)n, ": %s is no dump root", a->curves_dump);
    else if (c->dump_root > 0 && (c->dump_ranks[0] > 0 || c->dump_ranks[1] > 0))
        snprintf(buf + n, size - (size_t)n, ": in %s (%d rank folder%s), Enter opens it", a->curves_dump,
                 c->dump_ranks[0] > 0 ? c->dump_ranks[0] : c->dump_ranks[1],
                 (c->dump_ranks[0] > 0 ? c->dump_ranks[0] : c->dump_ranks[1]) == 1 ? "" : "s");
    else if (c->dump_root > 0) snprintf(buf + n, size - (size_t)n, ": not in %s", a->curves_dump);
}

/* Enter: the step to dump opened in the dump root (the shell loads it;
 * this pane is gone when it returns 0). */
static int cv_open(struct cv *c, struct session *a) {
    if (!c->have_v || !c->v.ndump) { session_msg(a, "no step to dump: the curves point to none"); return 1; }
    if (!a->curves_dump) { session_msg(a, "no dump root: give it with --dump DIR (or probetop LOG DUMPDIR)"); return 1; }
    if (!a->host || !a->host->open_dump) return 0;
    size_t k = c->dump_ranks[0] > 0 || c->dump_ranks[1] <= 0 ? 0 : 1;
    if (c->dump_root <= 0 || c->dump_ranks[k] <= 0) {
        char t[600];
        dump_text(c, a, t, sizeof t);
        session_err(a, "%s", t);
        return 1;
    }
    struct pt_error err;
    /* copies: the pane and its verdict are freed while the dump opens */
    int64_t step = c->v.dump[k].step;
    char pass[32];
    snprintf(pass, sizeof pass, "%s", c->v.dump[k].pass);
    if (a->host->open_dump(a, a->curves_dump, step, pass, &err) != 0) session_err(a, "%s", err.msg);
    return 1;
}

static void load(struct cv *c, struct session *a) {
    if (c->have_v) curves_verdict_free(&c->v);
    c->have_v = 0;
    c->p = a->ds ? a->ds->curves : NULL;
    c->b = a->bench_ds ? a->bench_ds->curves : NULL;
    if (c->p && curves_verdict_run(c->p, c->b, NULL, &c->v) == 0) c->have_v = 1;
    scan_dump(c, a);
    size_t sel = 0;
    const struct curves_series *loss = c->p ? curves_find_role(c->p, CURVES_LOSS) : NULL;
    if (loss) sel = (size_t)(loss - c->p->series);
    pick(c, sel);
}

static int value_of(const struct curves_series *s, int64_t step, double *v) { return s && curves_value_at(s, step, v); }

static void fmt_num(double v, char *buf, size_t size) {
    if (isnan(v)) snprintf(buf, size, "NaN");
    else if (isinf(v)) snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
    else snprintf(buf, size, "%.6g", v);
}

static const struct cv_find *find_at(const struct cv *c, int64_t step) {
    for (size_t i = 0; i < c->nfinds; i++)
        if (c->finds[i].step == step) return &c->finds[i];
    return NULL;
}

/* What a finding is, in words. */
static void find_text(const struct cv *c, const struct cv_find *f, char *buf, size_t size) {
    char v[32], m[32];
    fmt_num(f->value, v, sizeof v);
    fmt_num(f->extra, m, sizeof m);
    const char *who = f->mark >= 'a' ? "bench " : "";
    switch (f->mark) {
    case 'M':
        if (isnan(f->extra)) snprintf(buf, size, "first misaligned step %lld (grad norm)", (long long)f->step);
        else snprintf(buf, size, "first misaligned step %lld: rel err %s > %g", (long long)f->step, m,
                      c->have_v ? 0.01 : 0.01);
        break;
    case 'S': case 's':
        snprintf(buf, size, "%sspike at step %lld: %s (median %s)", who, (long long)f->step, v, m);
        break;
    case 'J': case 'j':
        snprintf(buf, size, "%sjump at step %lld: %s (median %s), stays up", who, (long long)f->step, v, m);
        break;
    default:
        snprintf(buf, size, "%s%s at step %lld", who, v, (long long)f->step);
        break;
    }
}

/* --- drawing --- */

static void range_x(const struct cv *c, size_t *x0, size_t *x1) {
    *x0 = c->xv0;
    *x1 = c->xv1 ? c->xv1 : c->nsteps;
    if (*x1 > c->nsteps) *x1 = c->nsteps;
    if (*x0 >= *x1) *x0 = *x1 ? *x1 - 1 : 0;
}

/* A walk along a finished series in step order: the value at each step
 * of the union asked in ascending order, without a search per point. */
struct cv_walk {
    const struct curves_series *s;
    size_t j;
};

static void walk_start(struct cv_walk *w, const struct curves_series *s, int64_t step) {
    w->s = s;
    w->j = 0;
    if (!s) return;
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->pts[mid].step < step) lo = mid + 1;
        else hi = mid;
    }
    w->j = lo;
}

static int walk_at(struct cv_walk *w, int64_t step, double *v) {
    if (!w->s) return 0;
    while (w->j < w->s->n && w->s->pts[w->j].step < step) w->j++;
    if (w->j >= w->s->n || w->s->pts[w->j].step != step) return 0;
    *v = w->s->pts[w->j].value;
    return 1;
}

/* Plots series s (canvas series id; rel: the relative error of the problem
 * against the bench) over steps [x0, x1) on cv, y [lo, hi]. */
static void plot(struct canvas *cv, const struct cv *c, const struct curves_series *s, int id, size_t x0, size_t x1,
                 double lo, double hi, int rel) {
    int xd = canvas_xdots(cv), yd = canvas_ydots(cv);
    size_t span = x1 - x0;
    double px = NAN, py = NAN;
    struct cv_walk wp, wb;
    walk_start(&wp, rel ? c->sp : s, cv_step(c, x0));
    walk_start(&wb, rel ? c->sb : NULL, cv_step(c, x0));
    for (size_t i = x0; i < x1; i++) {
        double val, pb;
        if (rel) {
            int hp = walk_at(&wp, cv_step(c, i), &val), hb = walk_at(&wb, cv_step(c, i), &pb);
            if (!hp || !hb) { px = py = NAN; continue; }
            val = curves_verdict_rel(val, pb);
        } else if (!walk_at(&wp, cv_step(c, i), &val)) {
            continue;   /* a step the other run has: the line goes on */
        }
        if (!isfinite(val)) { px = py = NAN; continue; }
        if (val > hi) val = hi;
        double dx = span > 1 ? (double)(i - x0) * (xd - 1) / (double)(span - 1) : (xd - 1) / 2.0;
        double dy = (hi - val) / (hi - lo) * (yd - 1);
        if (isfinite(px)) canvas_line(cv, px, py, dx, dy, id);
        else canvas_line(cv, dx, dy, dx, dy, id);
        px = dx;
        py = dy;
    }
}

/* plot() for many steps a dot: each dot column of the canvas draws the
 * smallest to the largest value (m: the pyramid of s's values, or of rel)
 * of the points of s at its steps, joined to the column before by its
 * first value; a non-finite first or last value breaks the line there, a
 * column without a point of s leaves it going on. */
static void plot_dec(struct canvas *cv, const struct cv *c, const struct curves_series *s, const struct curves_minmax *m,
                     int id, size_t x0, size_t x1, double lo, double hi) {
    int xd = canvas_xdots(cv), yd = canvas_ydots(cv);
    size_t span = x1 - x0;
    double py = NAN;
    int pd = 0;
#define YDOT(v) ((hi - ((v) > hi ? hi : (v))) / (hi - lo) * (yd - 1))
    for (int d = 0; d < xd; d++) {
        size_t ua = x0 + span * (size_t)d / (size_t)xd, ub = x0 + span * (size_t)(d + 1) / (size_t)xd;
        if (ua >= ub) continue;
        size_t ja = lower(s, cv_step(c, ua)), jb = lower(s, cv_step(c, ub - 1) + 1);
        if (ja >= jb) continue;
        double mn, mx;
        int q = curves_minmax_query(m, ja, jb, &mn, &mx, NULL);
        double first = m->v[ja * m->stride], last = m->v[(jb - 1) * m->stride];
        if (q) {
            if (isfinite(py) && isfinite(first)) canvas_line(cv, pd, py, d, YDOT(first), id);
            canvas_line(cv, d, YDOT(mx), d, YDOT(mn), id);
        }
        py = q && isfinite(last) ? YDOT(last) : NAN;
        pd = d;
    }
#undef YDOT
}

static int col_of(const struct canvas *cv, size_t i, size_t x0, size_t x1) {
    int xd = canvas_xdots(cv);
    size_t span = x1 - x0;
    double dx = span > 1 ? (double)(i - x0) * (xd - 1) / (double)(span - 1) : (xd - 1) / 2.0;
    return (int)(dx / cv->dw);
}

/* Draws the canvas at (y, px0), the cursor column ccol reversed. */
static void blit(WINDOW *w, struct ui *u, const struct canvas *cv, int y, int px0, int ccol) {
    for (int cy = 0; cy < cv->h; cy++)
        for (int cx = 0; cx < cv->w; cx++) {
            char g[8];
            int s = canvas_cell(cv, cx, cy, g);
            if (s >= 0) {
                ui_role(w, u, ui_series_role(s));
                if (cx == ccol) wattron(w, A_REVERSE);
                ui_put(w, y + cy, px0 + cx, 1, g);
            } else if (cx == ccol) {
                ui_role(w, u, UI_DIM);
                ui_put(w, y + cy, px0 + cx, 1, ui_glyph_vline(u));
            }
        }
}

/* Legend: both runs named, their values at the cursor. */
static void draw_legend(struct view *v, struct session *a, const struct cv *c, int64_t cstep) {
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    char t[1200];
    double pv, bv;
    char ps[32] = "-", bs[32] = "-";
    if (value_of(c->sp, cstep, &pv)) fmt_num(pv, ps, sizeof ps);
    if (value_of(c->sb, cstep, &bv)) fmt_num(bv, bs, sizeof bs);
    int x = 0;
    const char *pg = u->utf8 ? "\xe2\x96\xa0" : "*", *bg = u->utf8 ? "\xe2\x96\xa0" : "+";
    ui_role(w, u, ui_series_role(0));
    wattron(w, A_BOLD);
    x += ui_put(w, 1, x, v->w - x, pg);
    ui_role(w, u, UI_NORMAL);
    char pn[256], bn[256];
    const char *other = c->b && a->npaths > 1 ? a->paths[1] : NULL;
    run_name(a->paths[0], other, pn, sizeof pn);
    run_name(other, a->paths[0], bn, sizeof bn);
    snprintf(t, sizeof t, " problem%s%s = %s  ", pn[0] ? " " : "", pn, ps);
    x += ui_put(w, 1, x, v->w - x, t);
    if (c->b) {
        ui_role(w, u, ui_series_role(1));
        wattron(w, A_BOLD);
        x += ui_put(w, 1, x, v->w - x, bg);
        ui_role(w, u, UI_NORMAL);
        snprintf(t, sizeof t, " %s%s = %s%s", bn[0] ? "bench " : "benchmark", bn, bs,
                 c->sb ? "" : " (no such series)");
        ui_put(w, 1, x, v->w - x, t);
    }

}

static void cv_draw(struct view *v, struct session *a) {
    struct cv *c = v->priv;
    WINDOW *w = v->win;
    struct ui *u = a->ui;
    werase(w);
    char t[1200];
    ui_role(w, u, v->focused ? UI_TITLE_FOCUS : UI_TITLE);
    ui_fill(w, 0, 0, v->w);
    int tn = snprintf(t, sizeof t, "%s Curves", v->focused ? ui_glyph_focus(u) : " ");
    if (c->sp)
        tn += snprintf(t + tn, sizeof t - (size_t)tn, "  %s (%zu/%zu)", c->sp->name, c->sel + 1, c->p->nseries);
    if (c->have_v && tn < (int)sizeof t)
        snprintf(t + tn, sizeof t - (size_t)tn, "  %s", curves_verdict_name(&c->v));
    ui_put(w, 0, 0, v->w, t);
    if (v->h < 3 || !c->sp || !c->nsteps) {
        ui_role(w, u, UI_DIM);
        if (v->h >= 2) ui_put(w, 1, 1, v->w - 1, "no training curves in this input");
        return;
    }
    if (c->cursor >= c->nsteps) c->cursor = c->nsteps - 1;
    size_t x0, x1;
    range_x(c, &x0, &x1);
    if (c->cursor < x0 || c->cursor >= x1) {   /* pan to keep the cursor */
        size_t span = x1 - x0;
        x0 = c->cursor > span / 2 ? c->cursor - span / 2 : 0;
        x1 = x0 + span;
        if (x1 > c->nsteps) { x1 = c->nsteps; x0 = x1 > span ? x1 - span : 0; }
        if (c->xv1) { c->xv0 = x0; c->xv1 = x1; }
    }
    int64_t cstep = cv_step(c, c->cursor);

    draw_legend(v, a, c, cstep);

    /* Rows: title, legend, plot, marks, strip (with a bench), x axis. */
    int strip_h = c->b ? (v->h >= 30 ? 5 : 2) : 0;
    int plot_h = v->h - 2 - 1 - strip_h - 1;
    if (plot_h < 1) { strip_h = 0; plot_h = v->h - 4; }
    if (plot_h < 1) return;

    /* y range of the shown steps, both runs (the pyramids: O(log n)) */
    double lo = INFINITY, hi = -INFINITY, rhi = 0, l, h;
    int64_t s0 = cv_step(c, x0), s1 = cv_step(c, x1 - 1) + 1;
    size_t pa = lower(c->sp, s0), pz = lower(c->sp, s1);
    if (curves_minmax_query(&c->mp, pa, pz, &l, &h, NULL)) lo = l, hi = h;
    if (c->sb && curves_minmax_query(&c->mb, lower(c->sb, s0), lower(c->sb, s1), &l, &h, NULL)) lo = fmin(lo, l), hi = fmax(hi, h);
    if (c->rel && curves_minmax_query(&c->mr, pa, pz, &l, &h, NULL) && h > 0) rhi = h;
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    if (lo == hi) { double pad = lo == 0 ? 1 : fabs(lo) * 0.1; lo -= pad; hi += pad; }
    if (rhi < 0.02) rhi = 0.02;   /* twice the threshold at least: small errors stay low */
    char ylo[32], yhi[32];
    text_fmt_tick(lo, ylo, sizeof ylo);
    text_fmt_tick(hi, yhi, sizeof yhi);
    if (text_width(ylo) > 9) text_fmt_compact(lo, 9, ylo, sizeof ylo);
    if (text_width(yhi) > 9) text_fmt_compact(hi, 9, yhi, sizeof yhi);
    int yw = (text_width(ylo) > text_width(yhi) ? text_width(ylo) : text_width(yhi)) + 1;
    if (yw < 6) yw = 6;
    if (yw > 13) yw = 13;
    int px0 = yw + 1, pw = v->w - px0;
    if (pw < 2) return;

    struct canvas cv;
    if (canvas_init(&cv, c->mode, pw, plot_h) != 0) return;
    /* more than two steps a dot: min/max per column */
    int dec = x1 - x0 > 2 * (size_t)canvas_xdots(&cv);
    if (c->sb && dec) plot_dec(&cv, c, c->sb, &c->mb, 1, x0, x1, lo, hi);
    else if (c->sb) plot(&cv, c, c->sb, 1, x0, x1, lo, hi, 0);
    if (dec) plot_dec(&cv, c, c->sp, &c->mp, 0, x0, x1, lo, hi);
    else plot(&cv, c, c->sp, 0, x0, x1, lo, hi, 0);   /* the problem on top */
    int ccol = col_of(&cv, c->cursor, x0, x1);
    blit(w, u, &cv, 2, px0, ccol);
    canvas_free(&cv);
    ui_role(w, u, UI_AXIS);
    ui_put(w, 2, 0, yw, yhi);
    if (plot_h > 1) ui_put(w, 1 + plot_h, 0, yw, ylo);
    for (int cy = 0; cy < plot_h; cy++) ui_put(w, 2 + cy, yw, 1, ui_glyph_vline(u));

    /* The marks row: a glyph per finding, in its column. */
    int my = 2 + plot_h;
    ui_role(w, u, UI_DIM);
    ui_put(w, my, 0, yw, "marks");
    ui_put(w, my, yw, 1, ui_glyph_vline(u));
    if (canvas_init(&cv, c->mode, pw, 1) == 0) {
        for (size_t i = 0; i < c->nfinds; i++) {
            const struct cv_find *f = &c->finds[i];
            size_t k = step_index(c, f->step);
            if (k < x0 || k >= x1) continue;
            int col = col_of(&cv, k, x0, x1);
            if (col < 0 || col >= pw) continue;
            /* the problem's mark wins a shared column, M over the rest */
            chtype old = mvwinch(w, my, px0 + col) & A_CHARTEXT;
            if (old == 'M' || (old >= 'A' && old <= 'Z' && f->mark >= 'a')) continue;
            ui_role(w, u, f->mark == 'M' ? UI_BAD : f->mark == 'N' || f->mark == 'n' ? UI_NAN : UI_WARN);
            wattron(w, A_BOLD);
            if (col == ccol) wattron(w, A_REVERSE);
            char m[2] = {f->mark, 0};
            ui_put(w, my, px0 + col, 1, m);
        }
        canvas_free(&cv);
    }

    /* The relative error strip. */
    if (strip_h > 0 && canvas_init(&cv, c->mode, pw, strip_h) == 0) {
        int sy = my + 1;
        if (dec && c->rel) plot_dec(&cv, c, c->sp, &c->mr, 2, x0, x1, 0, rhi);
        else plot(&cv, c, NULL, 2, x0, x1, 0, rhi, 1);
        blit(w, u, &cv, sy, px0, ccol);
        canvas_free(&cv);
        char rl[32];
        ui_role(w, u, UI_AXIS);
        snprintf(rl, sizeof rl, "%.3g%%", rhi * 100);
        ui_put(w, sy, 0, yw, rl);
        ui_role(w, u, UI_DIM);
        if (strip_h > 1) ui_put(w, sy + strip_h - 1, 0, yw, "rel");
        for (int cy = 0; cy < strip_h; cy++) ui_put(w, sy + cy, yw, 1, ui_glyph_vline(u));
    }

    /* x axis: first, cursor and last step. */
    int ay = my + 1 + strip_h;
    if (ay >= v->h) return;
    char lab[40];
    ui_role(w, u, UI_AXIS);
    snprintf(lab, sizeof lab, "%lld", (long long)cv_step(c, x0));
    int used = ui_put(w, ay, px0, pw, lab);
    snprintf(lab, sizeof lab, "%lld", (long long)cv_step(c, x1 - 1));
    int lw = text_width(lab);
    if (px0 + pw - lw > px0 + used + 1) ui_put(w, ay, px0 + pw - lw, lw, lab);
    snprintf(lab, sizeof lab, "%lld", (long long)cstep);
    lw = text_width(lab);
    int cxp = px0 + ccol - lw / 2;
    if (cxp < px0) cxp = px0;
    if (cxp + lw > v->w) cxp = v->w - lw;
    ui_role(w, u, UI_AXIS_SEL);
    ui_put(w, ay, cxp, lw, lab);
    ui_role(w, u, UI_DIM);
    ui_put(w, ay, 0, yw, "step");
}

/* --- input --- */

static void zoom(struct cv *c, int in) {
    size_t x0, x1;
    range_x(c, &x0, &x1);
    size_t span = x1 - x0, ns = in ? span / 2 : span * 2;
    if (ns < 2) ns = 2;
    if (ns >= c->nsteps) { c->xv0 = c->xv1 = 0; return; }
    size_t nx0 = c->cursor > ns / 2 ? c->cursor - ns / 2 : 0;
    if (nx0 + ns > c->nsteps) nx0 = c->nsteps - ns;
    c->xv0 = nx0;
    c->xv1 = nx0 + ns;
}

static void say_here(struct cv *c, struct session *a) {
    const struct cv_find *f = c->nsteps ? find_at(c, cv_step(c, c->cursor)) : NULL;
    if (!f) return;
    char t[300];
    find_text(c, f, t, sizeof t);
    session_msg(a, "%s", t);
}

static int cv_first_mis(struct cv *c, struct session *a) {
    if (!c->have_v || !c->v.misaligned) {
        session_msg(a, c->b ? "no misaligned step: the runs agree within %g for %d steps" : "one run: no benchmark to be misaligned from",
                    0.01, 3);
        return 1;
    }
    if (!c->sp || strcmp(c->sp->name, c->v.mis_series)) {
        const struct curves_series *s = curves_find(c->p, c->v.mis_series);
        if (s) pick(c, (size_t)(s - c->p->series));
    }
    c->cursor = step_index(c, c->v.mis_step);
    say_here(c, a);
    return 1;
}

static int cv_move_find(struct cv *c, struct session *a, int dir) {
    if (!c->nfinds) { session_msg(a, "no findings in %s", c->sp ? c->sp->name : "this series"); return 1; }
    int64_t cur = cv_step(c, c->cursor);
    const struct cv_find *f = NULL;
    if (dir > 0) {
        for (size_t i = 0; i < c->nfinds && !f; i++)
            if (c->finds[i].step > cur) f = &c->finds[i];
    } else {
        for (size_t i = c->nfinds; i-- > 0 && !f;)
            if (c->finds[i].step < cur) f = &c->finds[i];
    }
    if (!f) { session_msg(a, "no %s finding in %s", dir > 0 ? "later" : "earlier", c->sp->name); return 1; }
    c->cursor = step_index(c, f->step);
    say_here(c, a);
    return 1;
}

static int cv_key(struct view *v, struct session *a, int action, int key) {
    struct cv *c = v->priv;
    (void)key;
    if (!action) return 0;
    if (!c->sp || !c->nsteps) { session_msg(a, "no training curves in this input"); return 1; }
    switch (action) {
    case CV_LEFT: if (c->cursor > 0) c->cursor--; say_here(c, a); return 1;
    case CV_RIGHT: if (c->cursor + 1 < c->nsteps) c->cursor++; say_here(c, a); return 1;
    case CV_UP: case CV_DOWN: {
        size_t n = c->p->nseries, s = action == CV_DOWN ? (c->sel + 1) % n : (c->sel + n - 1) % n;
        int64_t at = cv_step(c, c->cursor);
        pick(c, s);
        c->cursor = step_index(c, at);
        return 1;
    }
    case CV_FIRSTMIS: return cv_first_mis(c, a);
    case CV_NEXT: return cv_move_find(c, a, 1);
    case CV_PREV: return cv_move_find(c, a, -1);
    case CV_ZIN: zoom(c, 1); return 1;
    case CV_ZOUT: zoom(c, 0); return 1;
    case CV_HOME: c->cursor = 0; return 1;
    case CV_END: c->cursor = c->nsteps - 1; return 1;
    case CV_WHOLE: c->xv0 = c->xv1 = 0; session_msg(a, "curves: every step"); return 1;
    case CV_OPEN: return cv_open(c, a);
    default: return 0;
    }
}

static void cv_status(struct view *v, struct session *a, char *buf, size_t size) {
    struct cv *c = v->priv;
    if (!c->sp || !c->nsteps) { snprintf(buf, size, "no training curves"); return; }
    int64_t st = cv_step(c, c->cursor);
    double pv, bv;
    char ps[32] = "-", bs[32] = "-", rs[48] = "", ft[300] = "";
    int hp = value_of(c->sp, st, &pv), hb = value_of(c->sb, st, &bv);
    if (hp) fmt_num(pv, ps, sizeof ps);
    if (hb) fmt_num(bv, bs, sizeof bs);
    if (hp && hb) {
        double r = curves_verdict_rel(pv, bv);
        if (isfinite(r)) snprintf(rs, sizeof rs, "  rel err %.3g%%", r * 100);
        else snprintf(rs, sizeof rs, "  rel err Inf");
    }
    const struct cv_find *f = find_at(c, st);
    if (f) {
        ft[0] = ' ';
        ft[1] = ' ';
        find_text(c, f, ft + 2, sizeof ft - 2);
    }
    /* with a dump root: whether the step to dump is in it, first (alone
     * when the verdict's sentence would not fit beside it) */
    char dt[700] = "";
    const char *why = c->have_v ? c->v.why : "";
    if (a->curves_dump) {
        dump_text(c, a, dt, sizeof dt - 4);
        if (dt[0] && strlen(dt) + strlen(why) + 40 > (size_t)(v->w > 0 ? v->w : 80)) {
            snprintf(buf, size, "step %lld  %s %s  %s %s%s%s\n%s", (long long)st, c->b ? "problem" : c->sp->name, ps,
                     c->b ? "bench" : "", c->b ? bs : "", rs, ft, dt);
            return;
        }
        if (dt[0]) strcat(dt, " | ");
    }
    if (c->b)
        snprintf(buf, size, "step %lld  problem %s  bench %s%s%s\n%s%s: %s  (%zu finding%s)", (long long)st, ps, bs, rs, ft, dt,
                 c->sp->name, c->have_v ? c->v.why : "", c->nfinds, c->nfinds == 1 ? "" : "s");
    else
        snprintf(buf, size, "step %lld  %s %s%s\n%s%s  (%zu finding%s)", (long long)st, c->sp->name, ps, ft, dt,
                 c->have_v ? c->v.why : "", c->nfinds, c->nfinds == 1 ? "" : "s");
}

static void cv_notify(struct view *v, struct session *a, unsigned what) {
    struct cv *c = v->priv;
    if (!(what & SESSION_CH_DATA)) return;
    /* a newer load (follow mode): the same series and step where they still are */
    char *name = c->sp ? strdup(c->sp->name) : NULL;
    int64_t at = c->nsteps ? cv_step(c, c->cursor) : 0;
    int had = c->nsteps > 0;
    load(c, a);
    if (name && c->p) {
        const struct curves_series *s = curves_find(c->p, name);
        if (s) pick(c, (size_t)(s - c->p->series));
    }
    free(name);
    if (had) c->cursor = step_index(c, at);
}

static int cv_init(struct view *v, struct session *a, struct pt_error *err) {
    struct cv *c = calloc(1, sizeof *c);
    if (!c) return pt_errorf(err, "out of memory");
    c->mode = a->ui && a->ui->utf8 ? CANVAS_BRAILLE : CANVAS_ASCII;
    v->priv = c;
    load(c, a);
    return 0;
}

static void cv_free(struct view *v) {
    struct cv *c = v->priv;
    if (!c) return;
    if (c->have_v) curves_verdict_free(&c->v);
    free_pyramids(c);
    free(c->steps);
    free(c->finds);
    free(c);
    v->priv = NULL;
}

static int cv_available(const struct session *a) { return a->ds && a->ds->curves && a->ds->curves->nseries; }

const struct view_ops view_curves = {
    .name = "curves",
    .title = "Curves",
    .init = cv_init,
    .free = cv_free,
    .available = cv_available,
    .draw = cv_draw,
    .key = cv_key,
    .notify = cv_notify,
    .status = cv_status,
    .hints = "h/l step  j/k series  f first misaligned  n/N findings  z/Z zoom  w whole  Enter open the dump",
    .keys = cv_keys,
    .nkeys = sizeof cv_keys / sizeof cv_keys[0],
};
