/* origin_search: the origin search as a background job of the session. */
#include "src/session/origin_search.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "src/io/dump/ovf_origin.h"
#include "src/session/session.h"

struct origin_search {
    pthread_t thread;
    int running;                  /* started and not joined */
    atomic_int done;
    int rc;
    const struct dataset *ds;
    struct ovf_origin_report rep;
    struct pt_error err;
};

static void *run(void *arg) {
    struct origin_search *o = arg;
    o->rc = ovf_origin_run(o->ds, &o->rep, &o->err);
    atomic_store(&o->done, 1);
    return NULL;
}

void origin_search_start(struct session *a) {
    if (a->origin || !a->ds || !a->ds->ovf_levels || a->ds->ovf.n == 0) return;
    struct origin_search *o = calloc(1, sizeof *o);
    if (!o) return;
    o->ds = a->ds;
    atomic_init(&o->done, 0);
    if (pthread_create(&o->thread, NULL, run, o) != 0) {
        free(o);
        return;
    }
    o->running = 1;
    a->origin = o;
}

int origin_search_poll(struct session *a) {
    struct origin_search *o = a->origin;
    if (!o || !o->running || !atomic_load(&o->done)) return 0;
    pthread_join(o->thread, NULL);
    o->running = 0;
    return 1;
}

int origin_search_busy(const struct session *a) { return a->origin && a->origin->running; }

void origin_search_stop(struct session *a) {
    struct origin_search *o = a->origin;
    if (!o) return;
    if (o->running) pthread_join(o->thread, NULL);
    ovf_origin_report_free(&o->rep);
    free(o);
    a->origin = NULL;
}

const struct ovf_origin_report *origin_search_report(const struct session *a) {
    const struct origin_search *o = a->origin;
    if (!o || o->running || o->rc != 0 || o->rep.n == 0) return NULL;
    return &o->rep;
}

long origin_search_entry(const struct session *a) {
    const struct ovf_origin_report *o = origin_search_report(a);
    return o && a->ds ? ovf_origin_entry(o, &a->ds->ovf) : -1;
}

int origin_search_first(const struct session *a, int32_t *step, int32_t *rank, uint32_t *pos, const char **name,
                     size_t *nreached) {
    const struct ovf_origin_report *o = origin_search_report(a);
    if (!o || !o->v[0].norigins) return 0;
    const struct ovf_origin_node *n = &o->v[0].origins[0];
    *step = n->step;
    *rank = n->rank;
    *pos = n->pos;
    *name = n->name;
    *nreached = o->v[0].nchain;
    return 1;
}
