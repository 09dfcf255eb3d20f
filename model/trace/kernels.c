/* kernels: HTA's kernel-type breakdown and per-name kernel statistics
 * (model/trace/kernels.h; probetop-rules(7), PROFILER TRACES). */
#include "model/trace/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kernels_table_free(struct kernels_table *t) {
    if (!t) return;
    free(t->k);
    free(t);
}

const char *kernels_type_name(int type) {
    static const char *const n[KERNELS_NTYPES] = {"COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER"};
    return type >= 0 && type < KERNELS_NTYPES ? n[type] : "?";
}

const char *kernels_mask_name(int mask, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (int t = 0; t < 3; t++)
        if (mask & (1 << t)) {
            int w = snprintf(buf + n, cap - n, "%s%s", n ? " overlapping " : "", kernels_type_name(t));
            if (w < 0 || (size_t)w >= cap - n) break;
            n += (size_t)w;
        }
    return buf;
}

static int starts(const char *s, const char *lit) { return !strncmp(s, lit, strlen(lit)); }

/* HTA's rules by name (hta/common/types.py): communication first, then
 * memory (Memcpy, Memset, dma), then computation unless the name is on its
 * list of what does not compute (synchronisation, event waits, launches). */
int kernels_type_of(const char *name, int cat) {
    if (cat == TRACE_COMM) return KERNELS_COMMUNICATION;
    if (starts(name, "Memcpy") || starts(name, "Memset") || starts(name, "dma")) return KERNELS_MEMORY;
    if (cat == TRACE_COMPUTE) return KERNELS_COMPUTATION;
    static const char *const pre[] = {"Stream Wait Event", "runFunction", "job_exe", "packet", "pe_exe",
                                      "cpum_exe_subgraph", "collective_subgraph_execution"};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (starts(name, pre[i])) return KERNELS_OTHER;
    static const char *const sub[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t i = 0; i < sizeof sub / sizeof *sub; i++)
        if (strstr(name, sub[i])) return KERNELS_OTHER;
    if (starts(name, "cuda") && strstr(name + 4, "LaunchKernel")) return KERNELS_OTHER;
    return KERNELS_MEMORY;   /* a torch_npu memory task (its own category) */
}

int kernels_acc_init(struct kernels_acc *a, const char *const *names, size_t nnames) {
    memset(a, 0, sizeof *a);
    a->names = names;
    a->nnames = nnames;
    a->slot = calloc(nnames ? nnames : 1, sizeof *a->slot);
    a->type = calloc(nnames ? nnames : 1, 1);
    a->out = calloc(1, sizeof *a->out);
    if (!a->slot || !a->type || !a->out) { kernels_acc_free(a); return -1; }
    return 0;
}

void kernels_acc_free(struct kernels_acc *a) {
    free(a->slot);
    free(a->type);
    kernels_table_free(a->out);
    memset(a, 0, sizeof *a);
}

/* The time up to t: between changes, the set of types whose merged interval
 * still runs gets the span. */
static void settle(struct kernels_acc *a, int64_t t) {
    while (a->cursor < t) {
        int mask = 0;
        int64_t next = t;
        for (int i = 0; i < 3; i++)
            if (a->end[i] > a->cursor) {
                mask |= 1 << i;
                if (a->end[i] < next) next = a->end[i];
            }
        if (!mask) { a->cursor = t; return; }
        a->out->mask_ns[mask] += next - a->cursor;
        a->cursor = next;
    }
}

int kernels_acc_add(struct kernels_acc *a, const struct trace_seg *g) {
    if (g->name >= a->nnames) return 0;
    int ty = a->type[g->name] ? a->type[g->name] - 1 : -1;
    if (ty < 0) {
        ty = kernels_type_of(a->names[g->name], g->cat);
        a->type[g->name] = (uint8_t)(ty + 1);
    }
    if (ty == KERNELS_OTHER) return 0;
    int64_t s = g->start_ns, e = g->start_ns + g->dur_ns;
    if (!a->started) {
        a->cursor = s;
        for (int i = 0; i < 3; i++) a->end[i] = s;
        a->started = 1;
    }
    settle(a, s);
    if (e > a->end[ty]) a->end[ty] = e;
    struct kernels_table *o = a->out;
    uint32_t k = a->slot[g->name];
    if (!k) {
        if (o->nk == a->cap) {
            size_t nc = a->cap ? 2 * a->cap : 64;
            struct kernels_stat *v = realloc(o->k, nc * sizeof *v);
            if (!v) return -1;
            o->k = v;
            a->cap = nc;
        }
        o->k[o->nk] = (struct kernels_stat){.name = g->name, .type = (uint8_t)ty, .max_ns = g->dur_ns, .min_ns = g->dur_ns};
        k = a->slot[g->name] = (uint32_t)++o->nk;
    }
    struct kernels_stat *st = &o->k[k - 1];
    st->count++;
    st->sum_ns += g->dur_ns;
    if (g->dur_ns > st->max_ns) st->max_ns = g->dur_ns;
    if (g->dur_ns < st->min_ns) st->min_ns = g->dur_ns;
    return 0;
}

static int cmp_stat(const void *x, const void *y) {
    const struct kernels_stat *a = x, *b = y;
    if (a->sum_ns != b->sum_ns) return (a->sum_ns < b->sum_ns) - (a->sum_ns > b->sum_ns);
    return (a->name > b->name) - (a->name < b->name);
}

struct kernels_table *kernels_acc_finish(struct kernels_acc *a) {
    if (a->started) settle(a, INT64_MAX);
    struct kernels_table *o = a->out;
    a->out = NULL;
    if (o && o->nk > 1) qsort(o->k, o->nk, sizeof *o->k, cmp_stat);
    kernels_acc_free(a);
    return o;
}

size_t kernels_top(const struct kernels_table *t, size_t k, struct kernels_stat *others) {
    size_t n = k && k < t->nk ? k : t->nk;
    *others = (struct kernels_stat){.name = UINT32_MAX, .type = KERNELS_OTHER};
    for (size_t i = n; i < t->nk; i++) {
        const struct kernels_stat *s = &t->k[i];
        if (!others->count || s->max_ns > others->max_ns) others->max_ns = s->max_ns;
        if (!others->count || s->min_ns < others->min_ns) others->min_ns = s->min_ns;
        others->count += s->count;
        others->sum_ns += s->sum_ns;
    }
    return n;
}

void kernels_run_masks(const struct trace_run *run, int64_t out[KERNELS_NMASKS]) {
    memset(out, 0, KERNELS_NMASKS * sizeof *out);
    for (int r = 0; r < run->nranks; r++)
        if (run->ranks[r].kernels)
            for (int m = 1; m < KERNELS_NMASKS; m++) out[m] += run->ranks[r].kernels->mask_ns[m];
}
