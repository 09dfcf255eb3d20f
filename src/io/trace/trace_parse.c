/* trace_parse: one profiler trace file, streamed (see trace_parse.h).
 *
 * The file is read a piece at a time (inflated on the way when it is
 * gzip'ed) into one buffer the pull tokenizer walks in streaming mode; a
 * token cut by the end of a piece is read again after the refill.  A plain
 * file is mapped (trace_src.h), and the pieces are windows on it.  Only
 * what the model needs is kept, per event: device kernels (events with a
 * device stream), CPU events that carry a correlation id (the launches),
 * ProfilerStep#N spans and Megatron annotations (probetop-rules(7),
 * PROFILER TRACES). */
#include "src/io/trace/trace_parse.h"
#include "src/io/trace/trace_parse_ctx.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace/trace.h"
#include "model/trace/tpatterns.h"
#include "src/io/common/json.h"
#include "src/io/common/json_scan.h"
#include "src/io/trace/trace_fast.h"
#include "src/io/trace/trace_ncache.h"
#include "src/io/trace/trace_src.h"

#define TRACE_PARSE_PIECE ((size_t)4 << 20)    /* bytes read per refill */
#define TRACE_PARSE_TIME_MAX ((int64_t)1 << 61)  /* |ts|, dur: 73 years of nanoseconds */
#define TRACE_PARSE_ANNO_CACHE 65536            /* CPU event names whose phase is remembered */
#define TRACE_PARSE_EV_BYTES 256                /* bytes of text a kernel or launch event takes at least, mostly */
#define TRACE_PARSE_GZ_RATIO 16                 /* a gzip'ed trace's text over its file (13-20 on real ones) */
#define TRACE_PARSE_EV_FIRST 1024               /* fewer records than this: no room made ahead */

void trace_parse_names_free(struct trace_parse_names *nm) {
    util_smap_free(&nm->map);
    for (size_t i = 0; i < nm->n; i++) free(nm->v[i]);
    free(nm->v);
    free(nm->cat);
    memset(nm, 0, sizeof *nm);
}

void trace_parse_file_free(struct trace_parse_file *f) {
    struct trace_spill_budget *b = f->budget;
    const struct tpatterns *pat = f->patterns;
    for (size_t i = 0; i < f->npgs; i++) {
        free(f->pgs[i].name);
        free(f->pgs[i].desc);
        free(f->pgs[i].ranks);
    }
    free(f->pgs);
    free(f->pg_warn);
    trace_spill_free(f->kernels);
    trace_spill_free(f->launches);
    free(f->steps);
    free(f->annos);
    free(f->flows);
    memset(f, 0, sizeof *f);
    f->budget = b;
    f->patterns = pat;
}

int trace_parse_cmp_kernel_corr(const void *a, const void *b) {
    const struct trace_parse_kernel *x = a, *y = b;
    if (x->corr != y->corr) return (x->corr > y->corr) - (x->corr < y->corr);
    if (x->stream != y->stream) return (x->stream > y->stream) - (x->stream < y->stream);
    return (x->start > y->start) - (x->start < y->start);
}

int trace_parse_cmp_launch(const void *a, const void *b) {
    const struct trace_parse_launch *x = a, *y = b;
    return (x->corr > y->corr) - (x->corr < y->corr);
}

/* trace_parse_cmp_launch's order as one key (trace_spill_keys): the
 * correlation id with its sign bit flipped. */
static int launch_keys(const void *recs, size_t n, size_t rec, uint64_t *out) {
    const struct trace_parse_launch *v = recs;
    if (rec != sizeof *v) return -1;
    for (size_t i = 0; i < n; i++) out[i] = (uint64_t)v[i].corr ^ (uint64_t)1 << 63;
    return 0;
}


/* ---- numbers ---- */

int trace_parse_us_to_ns(const char *s, size_t n, int64_t *out) {
    const char *p = s, *end = s + n;
    while (p < end && *p == ' ') p++;
    while (end > p && end[-1] == ' ') end--;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    if (p >= end || *p < '0' || *p > '9') return -1;
    int64_t ip = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        if (ip > (INT64_MAX / 1000 - 9) / 10) return -1;   /* beyond int64 nanoseconds */
        ip = ip * 10 + (*p - '0');
    }
    int64_t frac = 0;
    int nd = 0, round = 0;
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9'; p++, nd++) {
            if (nd < 3) frac = frac * 10 + (*p - '0');
            else if (nd == 3) round = *p >= '5';
        }
    }
    for (int i = nd; i < 3; i++) frac *= 10;
    if (p < end && (*p == 'e' || *p == 'E')) {   /* rare: through a double */
        char tmp[64];
        size_t len = (size_t)(end - s);
        if (len >= sizeof tmp) return -1;
        memcpy(tmp, s, len);
        tmp[len] = '\0';
        char *q;
        double v = strtod(tmp, &q) * 1000.0;
        while (*q == ' ') q++;
        if (*q || !isfinite(v) || fabs(v) >= 9.2e18) return -1;
        *out = (int64_t)llround(v);
        return 0;
    }
    if (p != end) return -1;
    int64_t v = ip * 1000 + frac + round;
    *out = neg ? -v : v;
    return 0;
}

/* ---- streams ---- */

/* A stream made on first use, with room for as many records as the file's
 * text likely holds (one a TRACE_PARSE_EV_BYTES; gzip'ed text taken as
 * TRACE_PARSE_GZ_RATIO times the file), so that it does not grow by copies
 * (trace_spill_room: what spills stays the same; the room left over is
 * given back when the file is parsed); a guess of more than an eighth of
 * the budget is not made. */
int tp_new_stream(struct ctx *c, struct trace_spill **s, size_t rec, int (*cmp)(const void *, const void *)) {
    struct trace_parse_file *f = c->f;
    struct trace_spill_budget *b = f->budget ? f->budget : &f->own;
    if (!(*s = trace_spill_new(rec, cmp, b))) return pt_errorf(c->err, "out of memory");
    if (cmp == trace_parse_cmp_launch && rec == sizeof(struct trace_parse_launch)) trace_spill_keys(*s, launch_keys);
    uint64_t text = c->src.size > UINT64_MAX / TRACE_PARSE_GZ_RATIO ? UINT64_MAX : c->src.size * (c->src.gz ? TRACE_PARSE_GZ_RATIO : 1);
    uint64_t n = text / TRACE_PARSE_EV_BYTES;
    if (n > TRACE_PARSE_EV_FIRST && n <= b->cap / 8 / rec) trace_spill_room(*s, n);
    return 0;
}

/* Appends to a stream made on first use (inlined: rec is a constant of
 * each caller, so the copy is a few moves, not a memcpy call). */
__attribute__((always_inline)) static inline int push(struct ctx *c, struct trace_spill **s, size_t rec,
                                                      int (*cmp)(const void *, const void *), const void *v) {
    if (!*s && tp_new_stream(c, s, rec, cmp)) return -1;
    void *d = trace_spill_slot(*s, c->err);
    if (!d) return -1;
    memcpy(d, v, rec);
    return 0;
}

/* The current number or string as raw text. */
static void raw_text(const struct json_lex *lx, enum json_tok t, const char **s, size_t *n) {
    if (t == JT_STRING) { *s = lx->str; *n = lx->slen; }
    else { *s = lx->tok_start; *n = (size_t)(lx->pos - lx->tok_start); }
}

static int value_ns(const struct json_lex *lx, enum json_tok t, int64_t *out) {
    if (t != JT_NUMBER && t != JT_STRING) return -1;
    const char *s;
    size_t n;
    raw_text(lx, t, &s, &n);
    return trace_parse_us_to_ns(s, n, out);
}

/* The current number or numeric string as the nearest double (the
 * tokenizer's numbers are correctly rounded; a string through strtod). */
static double value_double(const struct json_lex *lx, enum json_tok t) {
    if (t == JT_NUMBER) return lx->num;
    char tmp[64];
    size_t n = lx->slen < sizeof tmp - 1 ? lx->slen : sizeof tmp - 1;
    memcpy(tmp, lx->str, n);
    tmp[n] = '\0';
    return strtod(tmp, NULL);
}

/* HTA's whole-us start and end of an event whose ts and dur it read as
 * doubles of us, as differences from the exact ns times: at epoch times
 * between 2^50 and 2^51 us (the years 2005 to 2041) a double holds a quarter
 * of a microsecond, so its
 * rounding of sub-us kernels is not that of the exact times
 * (probetop-rules(7), PROFILER TRACES). */
static void hta_round(struct trace_parse_kernel *k, double ts, double dur) {
    const double lim = 4e15;                     /* 2^62 ns in us, about */
    const int64_t ilim = 4000000000000000;
    double x = ts + dur;
    k->hta_ds = k->hta_de = 0;
    if (!(fabs(ts) < lim) || !(fabs(x) < lim)) return;
    /* ceil(ts) and floor(x), whole us, by truncation: exact below 2^52, and
     * no call (libm's are calls without SSE4.1) */
    int64_t s = (int64_t)ts, e = (int64_t)x;
    s += (double)s < ts;
    e -= (double)e > x;
    if (s >= ilim || e <= -ilim) return;
    int64_t ds = s * 1000 - k->start, de = e * 1000 - (k->start + k->dur);
    /* a double of us up to 2^61 ns is within a microsecond of the exact time */
    if (ds > -1000000 && ds < 1000000 && de > -1000000 && de < 1000000) k->hta_ds = (int32_t)ds, k->hta_de = (int32_t)de;
}

/* The double d is the whole us of ns exactly (|ns| <= TRACE_PARSE_TIME_MAX:
 * below 2^52 us, a sum of two too): hta_round's figures are 0 and 0. */
static inline int whole_us(int64_t ns, double d) {
    int64_t i = (int64_t)d;   /* (|d| < 2^52 here) */
    return (double)i == d && i * 1000 == ns;
}

/* ---- events ---- */

/* The event's name in the run's table: its index in *out, its category in *cat. */
/* The cache's answer for e's name: memo's (trace_parse_ctx.h) when e
 * began with a snapshot holding its name, else the cache's, remembered in
 * memo for the next event that begins so; NULL when the cache has none. */
__attribute__((always_inline)) static inline const int32_t *memo_get(struct tp_memo *memo, const struct trace_ncache *nc, const struct trace_fast_ev *e) {
    int i = e->snap_name;
    if (i >= 0 && memo[i].gen == e->snap[i].gen) return &memo[i].v;
    const int32_t *hit = trace_ncache_get(nc, e->namep, e->namelen);
    if (hit && i >= 0) memo[i] = (struct tp_memo){e->snap[i].gen, *hit};
    return hit;
}

static int intern(struct ctx *c, struct trace_fast_ev *e, uint32_t *out, uint8_t *cat) {
    struct trace_parse_names *nm = c->names;
    size_t n = e->namelen;
    const int32_t *hit = memo_get(c->kmemo, &c->kcache, e);
    if (hit) {   /* the map's answer for these bytes */
        *out = (uint32_t)*hit;
        *cat = nm->cat[*out];
        return 0;
    }
    const char *s = trace_fast_ev_name(e), *orig = s;
    int32_t *slot = util_smap_slot(&nm->map, s, 0);
    size_t len = strlen(s) + 1 + 3 * sizeof(void *);   /* the copy, the table's and the map's entries */
    if (!slot && c->f->budget && nm->bytes + len > c->f->budget->cap / 4) {   /* a file of ever new names */
        c->f->nlumped++;
        s = TRACE_PARSE_LUMPED;
        slot = util_smap_slot(&nm->map, s, 0);
        *cat = (uint8_t)tpatterns_kernel_cat(c->pat, c->md, orig, strlen(orig));   /* its own, not the lump's */
    } else {
        *cat = UINT8_MAX;
    }
    if (!slot) {   /* new: the map borrows the table's copy */
        nm->bytes += len;
        if (nm->n >= INT32_MAX) return pt_errorf(c->err, "%s: too many kernel names", c->path);
        if (UTIL_PUSH(nm->v, nm->n, nm->cap) || !(nm->v[nm->n] = strdup(s))) return pt_errorf(c->err, "out of memory");
        if (UTIL_PUSH(nm->cat, nm->n, nm->capcat)) { free(nm->v[nm->n]); return pt_errorf(c->err, "out of memory"); }
        if (!(slot = util_smap_slot(&nm->map, nm->v[nm->n], 1))) { free(nm->v[nm->n]); return pt_errorf(c->err, "out of memory"); }
        nm->cat[nm->n] = (uint8_t)tpatterns_kernel_cat(c->pat, c->md, s, strlen(s));
        *slot = (int32_t)nm->n++;
    }
    *out = (uint32_t)*slot;
    if (*cat == UINT8_MAX) {
        *cat = nm->cat[*out];
        if (strlen(nm->v[*out]) == n) trace_ncache_put(&c->kcache, nm->v[*out], n, *slot);   /* s itself, not the lump */
    }
    return 0;
}

/* The phase of a CPU event's name, remembered for the first
 * TRACE_PARSE_ANNO_CACHE names (a trace repeats its few hundred names). */
static int anno_phase(struct ctx *c, struct trace_fast_ev *e) {
    size_t n = e->namelen;
    const int32_t *hit = memo_get(c->amemo, &c->acache, e);
    if (hit) return *hit;
    const char *name = trace_fast_ev_name(e);
    int32_t *slot = util_smap_slot(&c->anno_cache, name, 0);
    int ph;
    if (slot) {
        ph = *slot;
    } else {
        ph = tpatterns_anno_phase(c->pat, c->md, name, n);
        if (n < 256 && c->anno_cache.n < TRACE_PARSE_ANNO_CACHE && (slot = util_smap_slot(&c->anno_cache, name, 1))) *slot = ph;
    }
    trace_ncache_put(&c->acache, name, n, ph);   /* (the same answer again: the map's entries never change) */
    return ph;
}

static int is_hw_pid(const struct ctx *c, int64_t pid) {
    for (size_t i = 0; i < c->nhw; i++)
        if (c->hw_pids[i] == pid) return 1;
    return 0;
}

static int parse_args(struct ctx *c, struct trace_fast_ev *e) {
    for (;;) {
        enum json_tok t = tp_next(c);
        if (t == JT_OBJ_END) return 0;
        if (t != JT_KEY) return -1;
        int which = JSON_IS(&c->lx, "stream") ? 1 : JSON_IS(&c->lx, "correlation") ? 2 : JSON_IS(&c->lx, "name") ? 3
                  : JSON_IS(&c->lx, "Task Type") ? 4 : JSON_IS(&c->lx, "Process Group Name") ? 5
                  : JSON_IS(&c->lx, "Process Group Description") ? 6 : JSON_IS(&c->lx, "Process Group Ranks") ? 7
                  : JSON_IS(&c->lx, "Collective name") ? 8 : JSON_IS(&c->lx, "Src Rank") || JSON_IS(&c->lx, "Dst Rank") ? 9
                  : JSON_IS(&c->lx, "Rank") ? 10 : 0;
        t = tp_next(c);
        if (t == JT_ERROR) return -1;
        int64_t v;
        if (which == 1 && !tp_value_int(&c->lx, t, &v)) e->stream = v;
        else if (which == 2 && !tp_value_int(&c->lx, t, &v)) e->corr = v;
        else if (which == 3 && t == JT_STRING) tp_copy_string(&c->lx, e->argname, sizeof e->argname);
        else if (which == 4 && t == JT_STRING) { e->task = 1; e->task_cat = trace_fast_task_cat(c->lx.str, c->lx.slen); }
        else if (which == 5 && t == JT_STRING) tp_copy_string(&c->lx, e->pgname, sizeof e->pgname);
        else if (which == 6 && t == JT_STRING) tp_copy_string(&c->lx, e->pgdesc, sizeof e->pgdesc);
        else if (which == 7 && t == JT_STRING && c->lx.slen < sizeof e->pgranks) tp_copy_string(&c->lx, e->pgranks, sizeof e->pgranks);
        else if (which == 8 && t == JT_STRING) e->p2p = JSON_IS(&c->lx, "send") ? 1 : JSON_IS(&c->lx, "recv") ? 2 : 0;
        else if (which == 9 && !tp_value_int(&c->lx, t, &v)) e->peer = v;
        else if (which == 10 && !tp_value_int(&c->lx, t, &v)) e->prank = v;
        else if (tp_skip(c, t)) return -1;
    }
}

/* A send's or receive's peer (trace_parse_kernel.p2p): "Dst Rank" or
 * "Src Rank", else "Rank" (the peer's index in its group) through the
 * group's ranks. */
static void p2p_peer(const struct ctx *c, const struct trace_fast_ev *e, struct trace_parse_kernel *k) {
    k->peer = -1;
    k->p2p = k->cat == TRACE_COMM ? e->p2p : 0;
    if (!k->p2p) return;
    if (e->peer >= 0 && e->peer <= INT32_MAX) k->peer = (int32_t)e->peer;
    /* a second half's k->pg names its own key table (trace_split.c), not
     * f->pgs, which it leaves empty: looked up at the merge */
    else if (c->half2) k->peer = tp_prank(e->prank);
    else if (k->pg && e->prank >= 0) {
        const struct trace_parse_pg *g = &c->f->pgs[k->pg - 1];
        if (e->prank < g->nranks) k->peer = g->ranks[e->prank];
    }
}

static int finish_event(struct ctx *c, struct trace_fast_ev *e) {
    struct trace_parse_file *f = c->f;
    if (e->ph == 'M') {
        if (!strcmp(trace_fast_ev_name(e), "process_name") && !strcmp(e->argname, "Ascend Hardware") && !is_hw_pid(c, e->pid)) {
            if (UTIL_PUSH(c->hw_pids, c->nhw, c->caphw)) return pt_errorf(c->err, "out of memory");
            c->hw_pids[c->nhw++] = e->pid;
            for (size_t i = 0; i < c->nhost && !c->late; i++) c->late = c->host_pids[i] == e->pid;
            c->late |= c->host_full;
        }
        return 0;
    }
    if ((e->ph == 's' || e->ph == 'f') && e->cat == TRACE_FAST_CAT_NPU_FLOW && e->has_id && e->has_ts && e->ts <= TRACE_PARSE_TIME_MAX &&
        e->ts >= -TRACE_PARSE_TIME_MAX) {
        /* torch_npu links a host launch to its device task by a flow, not by a correlation id */
        if (e->ph == 's') {
            struct trace_parse_launch l = {e->id, e->ts, 0};
            if (push(c, &f->launches, sizeof l, trace_parse_cmp_launch, &l)) return -1;
            f->nlaunches++;
        } else {
            if (UTIL_PUSH(f->flows, f->nflows, f->capflows)) return pt_errorf(c->err, "out of memory");
            f->flows[f->nflows++] = (struct trace_parse_flow){e->id, e->ts, e->tid};
        }
        return 0;
    }
    if (e->ph != 'X' || e->cat == TRACE_FAST_CAT_TRACE) return 0;
    int device = e->stream >= 0 || e->task || (c->nhw && is_hw_pid(c, e->pid));
    if (!e->has_ts || !e->has_dur) {
        if (device && e->bad_time) f->nbadts++;
        return 0;
    }
    if (e->dur < 0) { f->nneg++; return 0; }
    if (e->ts > TRACE_PARSE_TIME_MAX || e->ts < -TRACE_PARSE_TIME_MAX || e->dur > TRACE_PARSE_TIME_MAX) {   /* no sum of two times overflows */
        if (device) f->nbadts++;
        return 0;
    }
    if (device) {
        struct trace_parse_kernel kk, *k = &kk;
        memset(k, 0, sizeof *k);
        int64_t st = e->stream >= 0 ? e->stream : e->tid >= 0 ? e->tid : 0;
        k->start = e->ts;
        k->dur = e->dur;
        k->corr = e->corr;
        if (!whole_us(e->ts, e->ts_d) || !whole_us(e->dur, e->dur_d)) hta_round(k, e->ts_d, e->dur_d);
        k->stream = (uint16_t)(st > 65535 ? 65535 : st);
        uint8_t cat;
        if (intern(c, e, &k->name, &cat)) return -1;
        k->cat = (uint8_t)(e->task_cat >= 0 ? e->task_cat : cat);
        if (k->cat == TRACE_COMM && (c->half2 ? c->hooks->pkey(c, e->pgname, e->pgdesc, e->pgranks, &k->pg)
                                               : tp_pg_lookup(c, e->pgname, e->pgdesc, e->pgranks, &k->pg)))
            return -1;
        k->hta_kernel = e->cat == TRACE_FAST_CAT_KERNEL || e->task;
        p2p_peer(c, e, k);
        if (push(c, &f->kernels, sizeof *k, trace_parse_cmp_kernel_corr, k)) return -1;
        f->nkernels++;
        return 0;
    }
    if (!c->host_full) {
        size_t i = 0;
        while (i < c->nhost && c->host_pids[i] != e->pid) i++;
        if (i == c->nhost) {
            if (c->nhost < sizeof c->host_pids / sizeof *c->host_pids) c->host_pids[c->nhost++] = e->pid;
            else c->host_full = 1;
        }
    }
    if (e->corr >= 0) {
        struct trace_parse_launch l = {e->corr, e->ts, 0};
        struct trace_parse_kernel r = {.start = e->ts};   /* HTA's rounding of the launch's start */
        if (!whole_us(e->ts, e->ts_d)) hta_round(&r, e->ts_d, 0);
        l.hta_ds = r.hta_ds;
        if (push(c, &f->launches, sizeof l, trace_parse_cmp_launch, &l)) return -1;
        f->nlaunches++;
    }
    if (e->namelen > 13 && !memcmp(e->namep, "ProfilerStep#", 13)) {
        long n = util_num_after(trace_fast_ev_name(e), "ProfilerStep#");
        if (n >= 0) {
            if (UTIL_PUSH(f->steps, f->nsteps, f->capsteps)) return pt_errorf(c->err, "out of memory");
            f->steps[f->nsteps++] = (struct trace_parse_step){(int32_t)n, e->ts, e->ts + e->dur, (uint8_t)(e->cat == TRACE_FAST_CAT_GPU_ANNO)};
        }
        return 0;
    }
    int ph = e->cat == TRACE_FAST_CAT_GPU_ANNO ? TRACE_PH_NONE : anno_phase(c, e);
    if (ph != TRACE_PH_NONE) {
        if (UTIL_PUSH(f->annos, f->nannos, f->capannos)) return pt_errorf(c->err, "out of memory");
        f->annos[f->nannos++] = (struct trace_parse_anno){e->ts, e->ts + e->dur, -1, (uint8_t)ph};
    }
    return 0;
}

static int parse_event(struct ctx *c, struct trace_fast_ev *e) {
    trace_fast_ev_reset(e);
    for (;;) {
        enum json_tok t = tp_next(c);
        if (t == JT_OBJ_END) break;
        if (t != JT_KEY) return -1;
        const struct json_lex *lx = &c->lx;
        int key = JSON_IS(lx, "ph") ? 1 : JSON_IS(lx, "cat") ? 2 : JSON_IS(lx, "name") ? 3 : JSON_IS(lx, "ts") ? 4
                : JSON_IS(lx, "dur") ? 5 : JSON_IS(lx, "pid") ? 6 : JSON_IS(lx, "tid") ? 7 : JSON_IS(lx, "args") ? 8
                : JSON_IS(lx, "id") ? 9 : 0;
        t = tp_next(c);
        if (t == JT_ERROR) return -1;
        if (key != 8 && (t == JT_OBJ_BEGIN || t == JT_ARR_BEGIN)) {   /* not the scalar expected: stepped over */
            if (tp_skip(c, t)) return -1;
            continue;
        }
        switch (key) {
        case 1: if (t == JT_STRING && lx->slen) e->ph = lx->str[0]; break;
        case 2:
            if (t == JT_STRING)
                e->cat = lx->has_esc ? TRACE_FAST_CAT_OTHER : trace_fast_cat(lx->str, lx->slen);
            break;
        case 3: if (t == JT_STRING) e->namelen = tp_copy_string(lx, e->name, sizeof e->name); break;
        case 4:
            if (!value_ns(lx, t, &e->ts)) {
                e->has_ts = 1;
                e->ts_d = value_double(lx, t);
                if (!c->f->ts_frac) {
                    const char *s;
                    size_t n;
                    raw_text(lx, t, &s, &n);
                    c->f->ts_frac = memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n);
                }
            } else {
                e->bad_time = 1;
            }
            break;
        case 5:
            if (!value_ns(lx, t, &e->dur)) e->has_dur = 1, e->dur_d = value_double(lx, t);
            else e->bad_time = 1;
            break;
        case 6: if (tp_value_int(lx, t, &e->pid)) e->pid = -2; break;
        case 7: if (tp_value_int(lx, t, &e->tid)) e->tid = -1; break;
        case 8:
            if (t == JT_OBJ_BEGIN) { if (parse_args(c, e)) return -1; }
            else if (tp_skip(c, t)) return -1;
            break;
        case 9: {   /* a flow's id: a number or a numeric string */
            const char *rs;
            size_t rn;
            if (t == JT_NUMBER || t == JT_STRING) {
                raw_text(lx, t, &rs, &rn);
                e->has_id = !trace_fast_int64(rs, rn, &e->id);
            }
            break;
        }
        default: if (tp_skip(c, t)) return -1;
        }
    }
    return finish_event(c, e);
}

/* Events from one whose '{' the tokenizer just read: each read from its
 * bytes by trace_fast (trace_fast.h) while it can, else by parse_event.
 * The tokenizer is then just past a '{' (expecting a key or '}'), and so it
 * is past the '{' of the next event in the list: after an event read from
 * its bytes and followed by ", {", it is moved past that '{' and the next
 * one is read the same way; at the end it is moved to the last event's
 * '}', which it reads as the object's end. */
/* The '{' of the next event after the bytes q (just past an event's '}'):
 * a ',' and a '{' with white space around them, else NULL.  The usual
 * ",\n{" and ",\n  {" (Kineto's indent) first, a few compares; any other
 * white space by json_scan_ws. */
static const char *next_event(const char *q, const char *end) {
    if (end - q > 2 && q[0] == ',' && q[1] == '\n') {
        const char *r = q + 2;
        while (r < end && *r == ' ') r++;
        if (r < end && *r == '{') return r;
    }
    q = json_scan_ws(q, end);
    if (q >= end || *q != ',') return NULL;
    q = json_scan_ws(q + 1, end);
    return q < end && *q == '{' ? q : NULL;
}

static int parse_event_run(struct ctx *c, struct trace_fast_ev *e, size_t *nev) {
    const char *close;
    int frac;
    while (c->fast && trace_fast_event(c->lx.pos, c->lx.end, e, &close, &frac)) {
        if (frac) c->f->ts_frac = 1;
        if (finish_event(c, e)) return -1;
        const char *q = next_event(close + 1, c->lx.end);
        if (q) {
            if (c->split && c->lx.off0 + (uint64_t)(q - c->lx.buf) == c->split_off) {   /* the second half's first event */
                int m = c->hooks->meet(c);
                if (m) return m < 0 ? -1 : 2;
            }
            if ((++*nev & 0xffff) == 0 && c->cancel && atomic_load(c->cancel)) return pt_errorf(c->err, "cancelled");
            c->lx.pos = q + 1;
            continue;
        }
        c->lx.pos = close;
        enum json_tok t = tp_next(c);
        if (t == JT_OBJ_END) return 0;
        return t == JT_ERROR ? -1 : pt_errorf(c->err, "%s: the event reader lost its place", c->path);
    }
    return parse_event(c, e);
}

int tp_parse_events(struct ctx *c) {
    struct trace_fast_ev *e = calloc(1, sizeof *e);   /* (zeroed: no key predictions yet) */
    if (!e) return pt_errorf(c->err, "out of memory");
    memset(c->kmemo, 0, sizeof c->kmemo);   /* (their gens were this pass's reader's) */
    memset(c->amemo, 0, sizeof c->amemo);
    size_t nev = 0;
    for (;;) {
        enum json_tok t = tp_next(c);
        if (t == JT_ARR_END) break;
        if (t == JT_ERROR) { free(e); return -1; }
        if (t == JT_OBJ_BEGIN) {
            int r = c->split && c->lx.off0 + (uint64_t)(c->lx.pos - 1 - c->lx.buf) == c->split_off ? c->hooks->meet(c) : 0;
            if (!r) r = parse_event_run(c, e, &nev);
            if (r) {   /* the message is set, or the second half merged (2) */
                free(e);
                return r < 0 ? -1 : 2;
            }
        } else if (tp_skip(c, t)) {
            free(e);
            return -1;
        }
        if ((++nev & 0xffff) == 0 && c->cancel && atomic_load(c->cancel)) { free(e); return pt_errorf(c->err, "cancelled"); }
    }
    free(e);
    return 0;
}

/* Each process group's dimension by its description (a kernel's args may
 * name a group without describing it: pg_config's description then). */
static void resolve_pgs(struct ctx *c) {
    struct trace_parse_file *f = c->f;
    for (size_t i = 0; i < f->npgs; i++) {
        struct trace_parse_pg *g = &f->pgs[i];
        g->dim = (uint8_t)(*g->desc ? tpatterns_group_dim(c->pat, c->md, g->desc, strlen(g->desc)) : TPAT_DIM_NONE);
    }
}

/* The top object's members from its first key (seen: the "traceEvents"
 * list already read), then the end of the input. */
static int top_members(struct ctx *c, int seen) {
    for (;;) {
        enum json_tok t = tp_next(c);
        if (t == JT_OBJ_END) break;
        if (t != JT_KEY) return -1;
        int key = JSON_IS(&c->lx, "traceEvents") ? 1 : JSON_IS(&c->lx, "distributedInfo") ? 2
                : JSON_IS(&c->lx, "baseTimeNanoseconds") ? 3 : 0;
        t = tp_next(c);
        if (t == JT_ERROR) return -1;
        if (key == 1 && t == JT_ARR_BEGIN) {
            seen = 1;
            int r = tp_parse_events(c);
            if (r) return r == 2 ? 0 : -1;   /* 2: the rest was the second half's */
        } else if (key == 2 && t == JT_OBJ_BEGIN) {
            c->saw_dist = 1;
            if (tp_parse_dist_info(c)) return -1;
        } else if (key == 3 && t == JT_NUMBER) {
            const char *s;
            size_t n;
            raw_text(&c->lx, t, &s, &n);
            c->saw_base = 1;
            if (trace_fast_int64(s, n, &c->f->base_ns) || c->f->base_ns < 0)
                return pt_errorf(c->err, "%s: byte %llu: baseTimeNanoseconds is not a whole number of nanoseconds",
                                 c->path, (unsigned long long)(c->lx.off0 + (uint64_t)(c->lx.tok_start - c->lx.buf)));
        } else if (tp_skip(c, t)) {
            return -1;
        }
    }
    if (!seen) return pt_errorf(c->err, "%s: no \"traceEvents\" list: not a profiler trace", c->path);
    return tp_next(c) == JT_END ? 0 : -1;   /* only white space may follow */
}

int tp_top_rest(struct ctx *c) { return top_members(c, 1); }

static int parse_top(struct ctx *c) {
    enum json_tok t = tp_next(c);
    if (t == JT_ERROR) return -1;
    if (t == JT_OBJ_BEGIN) return top_members(c, 0);
    if (t != JT_ARR_BEGIN)
        return pt_errorf(c->err, "%s: not a profiler trace: expected a JSON object with \"traceEvents\" or a list of events",
                         c->path);
    int r = tp_parse_events(c);   /* torch_npu: a bare list of events */
    if (r) return r == 2 ? 0 : -1;
    return tp_next(c) == JT_END ? 0 : -1;   /* only white space may follow */
}

/* Adds the time base to the steps, annotations and flows (traces relative
 * to baseTimeNanoseconds); the kernels and launches get it when the trace
 * reader reads them back (their streams may be on disk). */
static int add_base(struct trace_parse_file *f, const char *path, struct pt_error *err) {
    int64_t b = f->base_ns;
    if (!b) return 0;
    int bad = 0;
    for (size_t i = 0; i < f->nsteps; i++)
        bad |= __builtin_add_overflow(f->steps[i].start, b, &f->steps[i].start) | __builtin_add_overflow(f->steps[i].end, b, &f->steps[i].end);
    for (size_t i = 0; i < f->nannos; i++)
        bad |= __builtin_add_overflow(f->annos[i].start, b, &f->annos[i].start) | __builtin_add_overflow(f->annos[i].end, b, &f->annos[i].end);
    for (size_t i = 0; i < f->nflows; i++) bad |= __builtin_add_overflow(f->flows[i].ts, b, &f->flows[i].ts);
    if (bad) return pt_errorf(err, "%s: baseTimeNanoseconds plus the event times is beyond 292 years of nanoseconds", path);
    return 0;
}

/* One pass over the file. */
static int parse_pass(struct ctx *c) {
    if (trace_src_open(&c->src, c->path, c->err)) return -1;
    if (!c->src.map && !c->buf && !(c->buf = malloc(c->cap + 1))) {   /* (mapped: no buffer unless the lease breaks) */
        trace_src_close(&c->src);
        return pt_errorf(c->err, "out of memory");
    }
    json_lex_init(&c->lx, c->src.map ? c->src.map : c->buf, 0, c->path, c->err);
    c->lx.more = 1;
    c->lx.streaming = 1;
    c->eof = 0;
    if (c->hooks) c->hooks->start(c);   /* (a big mapped file, when the caller asks: else nothing) */
    int rc = parse_top(c);
    if (c->hooks) c->hooks->end(c);
    c->f->bytes += c->src.raw;
    trace_src_close(&c->src);
    return rc;
}

struct ctx *tp_ctx_new(const char *path, struct trace_parse_names *names, size_t max_value, atomic_int *cancel,
                       struct trace_parse_file *f, struct pt_error *err) {
    struct ctx *c = calloc(1, sizeof *c);
    if (!c) { pt_errorf(err, "out of memory"); return NULL; }
    f->rank = -1;
    f->own.cap = UINT64_MAX;
    c->path = path;
    c->err = err;
    c->cancel = cancel;
    c->names = names;
    c->f = f;
    c->split_off = UINT64_MAX;
    const char *fe = getenv("PROBETOP_TRACE_FAST");
    c->fast = !(fe && !strcmp(fe, "0"));
    c->acache.own = 1;
    names->map.borrow = 1;
    c->max = max_value < 4096 ? 4096 : max_value;
    c->cap = TRACE_PARSE_PIECE < c->max ? TRACE_PARSE_PIECE : c->max;
    c->pat = f->patterns;
    if ((!c->pat && !(c->pat = c->own = tpatterns_new(err))) || !(c->md = tpatterns_md_new())) {
        if (c->pat) pt_errorf(err, "out of memory");
        tp_ctx_free(c);
        return NULL;
    }
    return c;
}

void tp_ctx_free(struct ctx *c) {
    if (!c) return;
    free(c->buf);
    free(c->hw_pids);
    tpatterns_md_free(c->md);
    tpatterns_free(c->own);
    util_smap_free(&c->anno_cache);
    trace_ncache_free(&c->acache);
    free(c);
}

int tp_parse_file(struct ctx *c) {
    struct trace_parse_file *f = c->f;
    int rc = parse_pass(c);
    if (!rc && c->late) {   /* again, the device processes known from the start */
        trace_parse_file_free(f);   /* (f->patterns kept; f->split_min not: one thread) */
        f->rank = -1;
        f->own.cap = UINT64_MAX;
        c->nhost = 0;
        c->host_full = 1;   /* no third pass */
        rc = parse_pass(c);
    }
    if (!rc) resolve_pgs(c);
    if (!rc) rc = add_base(f, c->path, c->err);
    /* a parsed file waits for the others within the budget (trace_spill.h) */
    if (!rc && f->kernels) rc = trace_spill_park(f->kernels, c->err);
    if (!rc && f->launches) rc = trace_spill_park(f->launches, c->err);
    return rc;
}
