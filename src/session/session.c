/* session: the setters of the shared state (see session.h).  They keep
 * the selected cell, the dimension value and the filtered row list in step
 * with each other, so panes never see a half-changed state. */
#include "src/session/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void session_changed(struct session *a, unsigned what) {
    if (a->host) a->host->changed(a, what);
}

static void vmsg(struct session *a, int error, const char *fmt, va_list ap) {
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    /* A message is one line: control bytes (a name from the data) go. */
    for (char *p = a->msg; *p; p++)
        if ((unsigned char)*p < 0x20) *p = ' ';
    a->msg_error = error;
    if (a->host) a->host->redraw(a);
}

void session_msg(struct session *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmsg(a, 0, fmt, ap);
    va_end(ap);
}

void session_err(struct session *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmsg(a, 1, fmt, ap);
    va_end(ap);
}

/* --- rows (the filtered targets of the metric) --- */

static void rebuild_rows(struct session *a) {
    free(a->rows);
    a->rows = NULL;
    a->nrows = 0;
    if (!a->cube || a->metric < 0 || a->metric >= a->cube->nmetrics) return;
    const struct cube_metric *m = &a->cube->metrics[a->metric];
    a->rows = malloc((m->ntargets ? m->ntargets : 1) * sizeof *a->rows);
    if (!a->rows) {
        session_err(a, "out of memory building the target list");
        return;
    }
    for (uint32_t lt = 0; lt < m->ntargets; lt++) {
        uint32_t g = m->targets[lt];
        if (a->regex_mask && !a->regex_mask[g]) continue;
        if (a->label_mask && !a->label_mask[g]) continue;
        a->rows[a->nrows++] = lt;
    }
}

long session_row_of(const struct session *a, uint32_t lt) {
    uint32_t lo = 0, hi = a->nrows;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a->rows[mid] == lt) return mid;
        if (a->rows[mid] < lt) lo = mid + 1; else hi = mid;
    }
    return -1;
}

/* Keeps sel_* valid for the cube and the rows, and dimval in step. */
static void fix_selection(struct session *a) {
    const struct cube *c = a->cube;
    if (!c) return;
    if (a->sel_step < 0 || a->sel_step >= c->nsteps) a->sel_step = 0;
    if (a->sel_rank < 0 || a->sel_rank >= c->nranks) a->sel_rank = 0;
    const struct cube_metric *m = &c->metrics[a->metric];
    uint32_t lt = a->sel_target == NAMES_NONE ? UINT32_MAX : cube_local_target(c, a->metric, a->sel_target);
    if (lt == UINT32_MAX || session_row_of(a, lt) < 0) {
        /* The nearest row at or after the old target, else the first. */
        uint32_t pick = UINT32_MAX;
        for (uint32_t i = 0; i < a->nrows; i++) {
            if (a->sel_target == NAMES_NONE || m->targets[a->rows[i]] >= a->sel_target) { pick = a->rows[i]; break; }
        }
        if (pick == UINT32_MAX && a->nrows) pick = a->rows[a->nrows - 1];
        a->sel_target = pick == UINT32_MAX ? NAMES_NONE : m->targets[pick];
    }
    switch (a->dim) {
    case DIM_STEP: a->dimval = a->sel_step; break;
    case DIM_RANK: a->dimval = a->sel_rank; break;
    case DIM_TARGET:
        a->dimval = a->sel_target == NAMES_NONE ? -1 : (int)cube_local_target(c, a->metric, a->sel_target);
        break;
    }
}

void session_refilter(struct session *a) {
    rebuild_rows(a);
    fix_selection(a);
}

int session_set_metric(struct session *a, int metric, int stat) {
    if (!a->cube || metric < 0 || metric >= a->cube->nmetrics) return -1;
    const struct cube_metric *m = &a->cube->metrics[metric];
    if (stat < 0) stat = 0;
    if (stat >= m->nstats) return -1;
    unsigned what = SESSION_CH_METRIC | SESSION_CH_COLOR;
    if (metric != a->metric) what |= SESSION_CH_FILTER;
    a->metric = metric;
    a->stat = stat;
    a->range_lo = 0;
    a->range_hi = 1;
    rebuild_rows(a);
    fix_selection(a);
    session_changed(a, what);
    return 0;
}

int session_set_dim(struct session *a, enum cube_dim dim, int value) {
    if (!a->cube) return -1;
    a->dim = dim;
    if (value >= 0) {
        if (dim == DIM_STEP) a->sel_step = value;
        else if (dim == DIM_RANK) a->sel_rank = value;
        else if ((uint32_t)value < a->cube->metrics[a->metric].ntargets)
            a->sel_target = a->cube->metrics[a->metric].targets[value];
    }
    fix_selection(a);
    a->range_lo = 0;
    a->range_hi = 1;
    session_changed(a, SESSION_CH_DIM | SESSION_CH_CURSOR | SESSION_CH_COLOR);
    return 0;
}

int session_select(struct session *a, int step, int rank, uint32_t target) {
    if (!a->cube) return -1;
    int old_dimval = a->dimval;
    if (step >= 0) a->sel_step = step;
    if (rank >= 0) a->sel_rank = rank;
    if (target != NAMES_NONE) a->sel_target = target;
    fix_selection(a);
    session_changed(a, SESSION_CH_CURSOR | (a->dimval != old_dimval ? SESSION_CH_DIM : 0));
    return 0;
}

int session_set_regex(struct session *a, const char *pattern, struct pt_error *err) {
    if (!pattern || !pattern[0]) {
        search_clear(&a->re);
        free(a->regex);
        free(a->regex_mask);
        a->regex = NULL;
        a->regex_mask = NULL;
    } else {
        struct search s;
        search_init(&s);
        if (search_compile(&s, pattern, 0, err) < 0) {
            search_free(&s);
            return -1;
        }
        const struct names *n = a->cube ? a->cube->names : NULL;
        uint32_t count = n ? names_count(n) : 0;
        uint8_t *mask = calloc(count ? count : 1, 1);
        char *text = strdup(pattern);
        if (!mask || !text) {
            free(mask);
            free(text);
            search_free(&s);
            return pt_errorf(err, "out of memory");
        }
        for (uint32_t t = 0; t < count; t++) {
            /* names and their labels: the search matches a target by either (probetop(1), Search pane (F4)) */
            int r = search_match_target(&s, n, t);
            if (r < 0) {
                char esc[512];
                const char *nm = names_str(n, t);
                pt_escape(nm, strlen(nm), esc, sizeof esc);
                pt_errorf(err, "%s; the old filter stays (stopped on %s)", s.why, esc);
                free(mask);
                free(text);
                search_free(&s);
                return -1;
            }
            mask[t] = (uint8_t)r;
        }
        search_free(&a->re);
        a->re = s;
        free(a->regex);
        free(a->regex_mask);
        a->regex = text;
        a->regex_mask = mask;
    }
    rebuild_rows(a);
    fix_selection(a);
    session_changed(a, SESSION_CH_FILTER | SESSION_CH_CURSOR | SESSION_CH_DIM);
    return 0;
}

void session_set_label_filter(struct session *a, uint8_t *mask, const char *desc) {
    free(a->label_mask);
    free(a->label_desc);
    a->label_mask = mask;
    a->label_desc = mask && desc ? strdup(desc) : NULL;
    rebuild_rows(a);
    fix_selection(a);
    session_changed(a, SESSION_CH_FILTER | SESSION_CH_CURSOR | SESSION_CH_DIM);
}

const char *session_rank_label(const struct session *a, int rank_index, char *buf, size_t size) {
    if (!a->cube || rank_index < 0 || rank_index >= a->cube->nranks) {
        snprintf(buf, size, "?");
        return buf;
    }
    int32_t r = a->cube->ranks[rank_index];
    if (a->hooks.rank && a->hooks.rank(a->hooks.ctx, r, buf, size)) return buf;
    snprintf(buf, size, "%d", (int)r);
    return buf;
}

const char *session_rank_both(const struct session *a, int rank_index, char *buf, size_t size) {
    char lab[64];
    session_rank_label(a, rank_index, lab, sizeof lab);
    if (!a->cube || rank_index < 0 || rank_index >= a->cube->nranks) snprintf(buf, size, "%s", lab);
    else {
        char num[16];
        snprintf(num, sizeof num, "%d", (int)a->cube->ranks[rank_index]);
        if (!strcmp(num, lab)) snprintf(buf, size, "%s", num);
        else snprintf(buf, size, "%s (%s)", num, lab);
    }
    return buf;
}

const char *session_target_label(const struct session *a, int rank_index, uint32_t target, char *buf, size_t size) {
    if (!a->cube || target >= names_count(a->cube->names)) {
        snprintf(buf, size, "?");
        return buf;
    }
    int32_t r = rank_index >= 0 && rank_index < a->cube->nranks ? a->cube->ranks[rank_index] : -1;
    char tmp[1024];
    if (a->hooks.target && a->hooks.target(a->hooks.ctx, r, target, tmp, sizeof tmp)) {
        pt_escape(tmp, strlen(tmp), buf, size);
        return buf;
    }
    names_display(a->cube->names, target, tmp, sizeof tmp);
    /* Names come from files: escape control bytes and invalid UTF-8. */
    pt_escape(tmp, strlen(tmp), buf, size);
    return buf;
}

/* A part of a name, case aside (what :goto accepts). */
static int ci_contains(const char *hay, const char *needle) {
    size_t n = strlen(needle);
    if (!n) return 1;
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n)) return 1;
    return 0;
}

int session_goto(struct session *a, const char *want, struct pt_error *err) {
    const struct cube *c = a->cube;
    const struct cube_metric *m = &c->metrics[a->metric];
    char disp[1024];
    uint32_t exact = NAMES_NONE, sub = NAMES_NONE, nsub = 0, sub2 = NAMES_NONE;
    for (uint32_t lt = 0; lt < m->ntargets; lt++) {
        uint32_t g = m->targets[lt];
        const char *name = names_str(c->names, g);
        names_display(c->names, g, disp, sizeof disp);
        if (!strcmp(disp, want) || (!strcmp(name, want) && exact == NAMES_NONE)) {
            exact = g;
            if (!strcmp(disp, want)) break;
        }
        if (ci_contains(disp, want)) {
            if (nsub == 0) sub = g;
            else if (nsub == 1) sub2 = g;
            nsub++;
        }
    }
    uint32_t pick = exact != NAMES_NONE ? exact : nsub == 1 ? sub : NAMES_NONE;
    if (pick == NAMES_NONE) {
        char e1[160], e2[160];
        if (nsub > 1) {
            pt_escape(names_display(c->names, sub, disp, sizeof disp), strlen(disp), e1, sizeof e1);
            pt_escape(names_display(c->names, sub2, disp, sizeof disp), strlen(disp), e2, sizeof e2);
            return pt_errorf(err, "%u targets contain '%s' (%s, %s, ...): be more specific", nsub, want, e1, e2);
        }
        /* In another metric? */
        for (int k = 0; k < c->nmetrics; k++) {
            if (k == a->metric) continue;
            const struct cube_metric *o = &c->metrics[k];
            for (uint32_t lt = 0; lt < o->ntargets; lt++) {
                names_display(c->names, o->targets[lt], disp, sizeof disp);
                if (ci_contains(disp, want))
                    return pt_errorf(err, "no target of metric %s matches '%s'; metric %s has one (:metric %s)",
                                     m->name, want, o->name, o->name);
            }
        }
        return pt_errorf(err, "no target matches '%s'", want);
    }
    uint32_t lt = cube_local_target(c, a->metric, pick);
    if (session_row_of(a, lt) < 0)
        return pt_errorf(err, "'%s' is hidden by the filter (/ then Enter on an empty line clears it)", want);
    session_select(a, -1, -1, pick);
    return 0;
}

/* Called once the dataset is there: picks msProbe's defaults (first
 * metric, its first statistic, dimension Step, first value). */
void session_data_ready(struct session *a) {
    a->cube = a->ds ? a->ds->cube : NULL;
    a->metric = 0;
    a->stat = 0;
    a->sel_step = a->sel_rank = 0;
    a->sel_target = NAMES_NONE;
    a->range_lo = 0;
    a->range_hi = 1;
    if (!a->cube || a->cube->nmetrics == 0) return;
    rebuild_rows(a);
    fix_selection(a);
}
