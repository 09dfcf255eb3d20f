/* idle: HTA's idle time breakdown per stream (model/trace/idle.h;
 * probetop-rules(7), PROFILER TRACES: Idle time). */
#include "model/trace/idle.h"

#include <stdlib.h>
#include <string.h>

void idle_table_free(struct idle_table *t) {
    if (!t) return;
    free(t->v);
    free(t);
}

int idle_acc_init(struct idle_acc *a) {
    memset(a, 0, sizeof *a);
    a->slot_of = malloc(65536 * sizeof *a->slot_of);
    a->out = calloc(1, sizeof *a->out);
    if (!a->slot_of || !a->out) { idle_acc_free(a); return -1; }
    memset(a->slot_of, 0xff, 65536 * sizeof *a->slot_of);
    return 0;
}

void idle_acc_free(struct idle_acc *a) {
    free(a->slot_of);
    idle_table_free(a->out);
    memset(a, 0, sizeof *a);
}

int idle_acc_add(struct idle_acc *a, uint16_t stream, int64_t start, int64_t end, int64_t launch) {
    struct idle_table *o = a->out;
    int32_t i = a->slot_of[stream];
    if (i < 0) {
        if (o->n == a->cap) {
            size_t nc = a->cap ? 2 * a->cap : 16;
            struct idle_stream *v = realloc(o->v, nc * sizeof *v);
            if (!v) return -1;
            o->v = v;
            a->cap = nc;
        }
        o->v[o->n] = (struct idle_stream){.stream = stream, .last_end = end, .kernels = 1};
        a->slot_of[stream] = (int32_t)o->n++;
        return 0;
    }
    struct idle_stream *s = &o->v[i];
    int64_t gap = start - s->last_end;
    if (launch != IDLE_NO_LAUNCH && launch > s->last_end) s->host_ns += gap;   /* the CPU was late */
    else if (gap < IDLE_KERNEL_WAIT_NS) s->kernel_ns += gap;                   /* launch overhead */
    else s->other_ns += gap;
    s->last_end = end;
    s->kernels++;
    return 0;
}

static int cmp_stream(const void *x, const void *y) {
    const struct idle_stream *a = x, *b = y;
    return (a->stream > b->stream) - (a->stream < b->stream);
}

struct idle_table *idle_acc_finish(struct idle_acc *a) {
    struct idle_table *o = a->out;
    a->out = NULL;
    if (o && o->n > 1) qsort(o->v, o->n, sizeof *o->v, cmp_stream);
    idle_acc_free(a);
    return o;
}
