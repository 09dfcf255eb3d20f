/* trace: the per-rank kernel timeline (model/trace/trace.h): freeing it, naming
 * its categories and phases, classifying kernels and annotations, and
 * HTA's breakdown figures (probetop-rules(7), PROFILER TRACES). */
#include "model/trace/trace.h"
#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "model/util/util.h"

#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

void trace_run_free(struct trace_run *run) {
    if (!run) return;
    for (int i = 0; i < run->nranks; i++) {
        free(run->ranks[i].file);
        free(run->ranks[i].steps);
        free(run->ranks[i].segs);
        kernels_table_free(run->ranks[i].kernels);
        idle_table_free(run->ranks[i].idle);
        free(run->ranks[i].micros);
        free(run->ranks[i].p2p);
    }
    free(run->ranks);
    for (int i = 0; i < run->ngroups; i++) free(run->groups[i].ranks);
    free(run->groups);
    free(run->groups_from);
    for (size_t i = 0; i < run->nnames; i++) free(run->names[i]);
    free(run->names);
    free(run);
}

int trace_run_steps(const struct trace_run *run, int32_t **steps, int *n) {
    size_t total = 0;
    for (int r = 0; r < run->nranks; r++) total += (size_t)run->ranks[r].nsteps;
    free(*steps);
    *n = 0;
    if (!(*steps = malloc((total ? total : 1) * sizeof **steps))) return -1;
    int32_t *v = *steps;
    int k = 0;
    for (int r = 0; r < run->nranks; r++)
        for (int s = 0; s < run->ranks[r].nsteps; s++) v[k++] = run->ranks[r].steps[s].step;
    qsort(v, (size_t)k, sizeof *v, util_cmp_i32);
    int d = 0;
    for (int i = 0; i < k; i++)
        if (d == 0 || v[i] != v[d - 1]) v[d++] = v[i];
    *n = d;
    return 0;
}

const char *trace_cat_name(int cat) {
    static const char *const n[TRACE_NCATS] = {"compute", "communication", "memory", "idle"};
    return cat >= 0 && cat < TRACE_NCATS ? n[cat] : "?";
}

const char *trace_phase_name(int phase) {
    static const char *const n[TRACE_NPHASES] = {"none", "forward", "backward", "pp_comm", "dp_grad", "optimizer",
                                                 "recompute", "dp_param", "tp_comm", "ep_comm", "cp_comm"};
    return phase >= 0 && phase < TRACE_NPHASES ? n[phase] : "?";
}

/* ---- classification (probetop-rules(7), PROFILER TRACES: Kernel categories) ---- */

static int starts(const char *s, size_t n, const char *lit) {
    size_t l = strlen(lit);
    return n >= l && !memcmp(s, lit, l);
}
static int contains(const char *s, size_t n, const char *lit) {
    size_t l = strlen(lit);
    for (const char *p = s, *end = s + n; (size_t)(end - p) >= l; p++) {
        p = memchr(p, lit[0], (size_t)(end - p) - l + 1);
        if (!p) return 0;
        if (!memcmp(p, lit, l)) return 1;
    }
    return 0;
}

/* HTA's communication pattern, plus Ascend's HCCL operators (hcom_*). */
static int is_comm(const char *s, size_t n) {
    return starts(s, n, "nccl") || starts(s, n, "hip") || starts(s, n, "hccl") || contains(s, n, "ncclKernel") ||
           starts(s, n, "hcom");
}
static int is_memory(const char *s, size_t n) {
    return starts(s, n, "Memcpy") || starts(s, n, "Memset") || starts(s, n, "dma");
}
/* HTA's computation pattern is an exclusion list: what matches none of it
 * computes. */
static int is_not_compute(const char *s, size_t n) {
    static const char *const pre[] = {"nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet",
                                      "pe_exe", "cpum_exe_subgraph", "hccl", "collective_subgraph_execution"};
    static const char *const sub[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (starts(s, n, pre[i])) return 1;
    for (size_t i = 0; i < sizeof sub / sizeof *sub; i++)
        if (contains(s, n, sub[i])) return 1;
    return starts(s, n, "cuda") && n > 4 && contains(s + 4, n - 4, "LaunchKernel");
}

int trace_classify(const char *name, size_t len) {
    if (is_comm(name, len)) return TRACE_COMM;
    if (is_memory(name, len)) return TRACE_MEMORY;
    if (!is_not_compute(name, len)) return TRACE_COMPUTE;
    return TRACE_MEMORY;   /* HTA's "other": neither compute nor communication, as memory is */
}

int trace_phase_of(const char *name, size_t len) {
    /* pipeline sends/receives first: "send_forward_recv_backward" is communication */
    if (contains(name, len, "send_forward") || contains(name, len, "recv_forward") ||
        contains(name, len, "send_backward") || contains(name, len, "recv_backward"))
        return TRACE_PH_PP_COMM;
    if (contains(name, len, "start_param_sync") || contains(name, len, "finish_param_sync")) return TRACE_PH_DP_PARAM;
    if (contains(name, len, "start_grad_sync") || contains(name, len, "finish_grad_sync") ||
        contains(name, len, "finalize_model_grads"))
        return TRACE_PH_DP_COMM;
    if (contains(name, len, "custom_forward")) return TRACE_PH_RECOMPUTE;
    for (const char *p = name, *end = name + len; (p = memchr(p, 'r', (size_t)(end - p))); p++)   /* recompute.*forward */
        if (starts(p, (size_t)(end - p), "recompute") && contains(p + 9, (size_t)(end - p) - 9, "forward")) return TRACE_PH_RECOMPUTE;
    if (contains(name, len, "forward_step")) return TRACE_PH_FORWARD;
    if (contains(name, len, "backward_step")) return TRACE_PH_BACKWARD;
    if (contains(name, len, "optimizer") || starts(name, len, "Optimizer.step")) return TRACE_PH_OPTIMIZER;
    return TRACE_PH_NONE;
}

/* ---- breakdown ---- */

#define IV_BIAS ((uint64_t)1 << 63)   /* struct iv_union's offset */

static void iv_add(struct iv_union *u, int64_t s, int64_t e) {
    uint64_t bs = (uint64_t)s ^ IV_BIAS, be = (uint64_t)e ^ IV_BIAS;
    if (bs > u->end) {   /* (the first one too: u->end is 0) */
        u->sum += u->end - u->start;
        u->start = bs;
        u->end = be;
        u->groups++;
    } else if (be > u->end) {
        u->end = be;
    }
}
static int64_t iv_total(const struct iv_union *u) { return (int64_t)(u->sum + (u->end - u->start)); }

_Static_assert(TRACE_NPHASES <= 32, "trace_acc.ph_seen holds a bit per phase");

void trace_acc_init(struct trace_acc *a) { memset(a, 0, offsetof(struct trace_acc, ph)); }

/* One kernel (start s, end e, category c, phase p) into a: the body of
 * trace_acc_add and trace_acc_add2, inlined into each. */
__attribute__((always_inline)) static inline void acc_add(struct trace_acc *a, int64_t s, int64_t e, int c, int p) {
    struct trace_stats *out = &a->out;
    if (!out->nkernels) {
        a->first = s, a->last = e;
    } else {
        if (s < a->first) a->first = s;
        if (e > a->last) a->last = e;
    }
    out->nkernels++;
    uint32_t bit = (uint32_t)1 << p;
    if (!(a->ph_seen & bit)) {   /* the phase's first kernel: its members made */
        a->ph_seen |= bit;
        memset(a->ph[p], 0, sizeof a->ph[p]);
        memset(&a->phcc[p], 0, sizeof a->phcc[p]);
        a->ph_first[p] = s, a->ph_last[p] = e;
    } else {
        if (s < a->ph_first[p]) a->ph_first[p] = s;
        if (e > a->ph_last[p]) a->ph_last[p] = e;
    }
    iv_add(&a->all, s, e);
    iv_add(&a->cat[c], s, e);
    iv_add(&a->ph[p][c], s, e);
    if (c == TRACE_COMPUTE || c == TRACE_COMM) {
        iv_add(&a->cc, s, e);
        iv_add(&a->phcc[p], s, e);
    }
    out->count[c]++;
    out->phase_count[p][c]++;
}

#define ACC_SEG(g) int64_t s = (g)->start_ns, e = (g)->start_ns + (g)->dur_ns; \
    int c = (g)->cat < TRACE_IDLE ? (g)->cat : TRACE_MEMORY, p = (g)->phase < TRACE_NPHASES ? (g)->phase : TRACE_PH_NONE

void trace_acc_add(struct trace_acc *a, const struct trace_seg *g) {
    ACC_SEG(g);
    acc_add(a, s, e, c, p);
}

void trace_acc_add2(struct trace_acc *restrict a, struct trace_acc *restrict b, const struct trace_seg *g) {
    ACC_SEG(g);
    acc_add(a, s, e, c, p);
    acc_add(b, s, e, c, p);
}

void trace_acc_add3(struct trace_acc *restrict a, struct trace_acc *restrict b, const struct trace_seg *g, struct trace_acc *restrict w,
                    const struct trace_seg *h) {
    ACC_SEG(g);
    acc_add(a, s, e, c, p);
    acc_add(b, s, e, c, p);
    acc_add(w, h->start_ns, h->start_ns + h->dur_ns, c, p);
}

void trace_acc_finish(const struct trace_acc *a, struct trace_stats *out) {
    *out = a->out;
    if (!out->nkernels) return;
    out->kernel_ns = a->last - a->first;
    out->idle_ns = out->kernel_ns - iv_total(&a->all);
    for (int c = 0; c < TRACE_IDLE; c++) out->cat_ns[c] = iv_total(&a->cat[c]);
    out->cat_ns[TRACE_IDLE] = out->idle_ns;
    out->count[TRACE_IDLE] = a->all.groups - 1;
    out->non_compute_ns = out->kernel_ns - out->cat_ns[TRACE_COMPUTE] - out->idle_ns;
    /* |compute and communication| = |compute| + |communication| - |either| */
    out->overlap_ns = out->cat_ns[TRACE_COMPUTE] + out->cat_ns[TRACE_COMM] - iv_total(&a->cc);
    for (uint32_t seen = a->ph_seen; seen; seen &= seen - 1) {   /* a phase without kernels keeps its zeros */
        int p = __builtin_ctz(seen);
        for (int c = 0; c < TRACE_IDLE; c++) out->phase_ns[p][c] = iv_total(&a->ph[p][c]);
        out->phase_overlap_ns[p] = out->phase_ns[p][TRACE_COMPUTE] + out->phase_ns[p][TRACE_COMM] - iv_total(&a->phcc[p]);
        out->phase_span_ns[p] = a->ph_last[p] - a->ph_first[p];   /* 0 when the phase has no kernel */
    }
}

void trace_stats_of(const struct trace_seg *segs, size_t n, const uint8_t *keep, struct trace_stats *out) {
    struct trace_acc a;
    trace_acc_init(&a);
    for (size_t i = 0; i < n; i++)
        if (!keep || keep[i]) trace_acc_add(&a, &segs[i]);
    trace_acc_finish(&a, out);
}

double trace_overlap_pct(const struct trace_stats *s) {
    return s->cat_ns[TRACE_COMM] > 0 ? 100.0 * (double)s->overlap_ns / (double)s->cat_ns[TRACE_COMM] : NAN;
}

/* ---- stragglers (probetop-rules(7), PROFILER TRACES: Stragglers) ---- */

/* Work of a rank in a step: its kernel span less the communication no
 * computation hides (mostly waiting for the other ranks). */
int64_t trace_work_ns(const struct trace_stats *s) { return s->kernel_ns - (s->cat_ns[TRACE_COMM] - s->overlap_ns); }


/* One (step, rank) with kernels, for sorting by step. */
struct work_row {
    int32_t step, rank;
    int64_t work;
};

static int cmp_work_row(const void *a, const void *b) {
    const struct work_row *x = a, *y = b;
    if (x->step != y->step) return (x->step > y->step) - (x->step < y->step);
    if (x->work != y->work) return (x->work > y->work) - (x->work < y->work);
    return (x->rank < y->rank) - (x->rank > y->rank);   /* on a tie the lower rank last: it is the one named */
}

/* Per step number met in any rank: the rank with the most work (rows
 * sorted by step, then work: no quadratic loop over steps and ranks). */
int trace_stragglers(const struct trace_run *run, struct trace_straggler **out, size_t *nout) {
    size_t nrows = 0;
    *out = NULL;
    *nout = 0;
    for (int r = 0; r < run->nranks; r++) nrows += (size_t)run->ranks[r].nsteps;
    struct work_row *w = malloc((nrows ? nrows : 1) * sizeof *w);
    struct trace_straggler *v = malloc((nrows ? nrows : 1) * sizeof *v);
    if (!w || !v) { free(w); free(v); return -1; }
    size_t k = 0, n = 0;
    for (int r = 0; r < run->nranks; r++)
        for (int s = 0; s < run->ranks[r].nsteps; s++) {
            const struct trace_step *st = &run->ranks[r].steps[s];
            if (st->stats.nkernels) w[k++] = (struct work_row){st->step, run->ranks[r].rank, trace_work_ns(&st->stats)};
        }
    if (k > 1) qsort(w, k, sizeof *w, cmp_work_row);
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && w[j].step == w[i].step) j++;
        size_t m = j - i;   /* ascending work: the median in the middle, the straggler last */
        int64_t med = m % 2 ? w[i + m / 2].work : (w[i + m / 2 - 1].work + w[i + m / 2].work) / 2;
        v[n++] = (struct trace_straggler){.step = w[i].step, .rank = w[j - 1].rank, .work = w[j - 1].work,
                                          .median = med, .nranks = (int)m};
        i = j;
    }
    free(w);
    *out = v;
    *nout = n;
    return 0;
}
