/* origin_ranks: each rank's own part of the origin search (its first
 * communication op, a birth before it, its communication ops and their
 * candidates, origin_build_rank) on the pool's threads, each rank into
 * arrays of its own, then joined in rank order into the search's, so that
 * the result is the one the ranks taken one after the other give, whatever
 * the number of threads. */
#include "model/overflow/origin_int.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/pool.h"

struct rank_part {
    struct st loc;      /* the rank's nodes, candidates and groups, offsets from 0 */
};

struct ranks_job {
    struct st *s;
    struct rank_part *parts;
    int32_t *born;
};

/* The arrays of a rank's part (what the join has not taken). */
static void part_free(struct st *L) {
    for (size_t i = 0; i < L->nn; i++)
        if (L->nodes[i].own_conn) free(L->nodes[i].conn);
    for (size_t i = 0; i < L->ngsets; i++) free(L->gsets[i].v);
    free(L->gsets);
    util_smap_free(&L->groups);
    free(L->nodes);
    free(L->cands);
    memset(L, 0, sizeof *L);
}

static int build_one(void *ctx, size_t i, struct pt_error *e) {
    (void)e;
    struct ranks_job *j = ctx;
    const struct st *s = j->s;
    struct st *L = &j->parts[i].loc;
    /* s->ri[i] is this rank's alone */
    *L = (struct st){.R = s->R, .nr = s->nr, .rules = s->rules, .ri = s->ri, .groups = {.borrow = 1}};
    const struct tree *t = s->R[i].tree;
    const uint8_t *fl = s->R[i].flags;
    struct rankinfo *ri = &s->ri[i];
    ri->first_comm = -1;
    j->born[i] = -1;
    /* before any communication: the rank's first candidate */
    for (size_t r = 0; r < t->nrecs; r++) {
        const char *name = origin_rec_name(t, r);
        if (origin_comm(name, s->rules)) {
            ri->first_comm = (int32_t)r;
            break;
        }
        if (origin_born(name, fl[r], s->rules)) {
            j->born[i] = (int32_t)r;
            /* its communication ops still make the chain */
            for (size_t k = r + 1; k < t->nrecs && ri->first_comm < 0; k++)
                if (origin_comm(origin_rec_name(t, k), s->rules)) ri->first_comm = (int32_t)k;
            break;
        }
    }
    return origin_build_rank(L, (int)i);
}

/* Appends rank r's part to s (its arrays then gone): node and candidate
 * indexes moved past s's, its groups' ranks shared with the same groups
 * of earlier ranks. */
static int join(struct st *s, size_t r, struct st *L) {
    size_t no = s->nn, co = s->nc;
    int32_t *map = malloc((L->ngsets ? L->ngsets : 1) * sizeof *map);
    if (!map || util_grow((void **)&s->nodes, &s->capn, s->nn + L->nn, sizeof *s->nodes) != 0 ||
        util_grow((void **)&s->cands, &s->capc, s->nc + L->nc, sizeof *s->cands) != 0) {
        free(map);
        return -1;
    }
    for (size_t g = 0; g < L->ngsets; g++) {
        int32_t *slot = util_smap_slot(&s->groups, L->gsets[g].text, 1);
        if (!slot || (*slot < 0 && UTIL_PUSH(s->gsets, s->ngsets, s->capg) != 0)) {
            free(map);
            return -1;
        }
        if (*slot < 0) {   /* the first rank naming it: its ranks move over */
            s->gsets[s->ngsets] = L->gsets[g];
            L->gsets[g].v = NULL;
            *slot = (int32_t)s->ngsets++;
        }
        map[g] = *slot;
    }
    for (size_t i = 0; i < L->nn; i++) {
        struct cnode c = L->nodes[i];
        c.c0 += co;
        if (!c.own_conn) {
            c.gs = map[c.gs];
            c.conn = s->gsets[c.gs].v;
        }
        s->nodes[s->nn++] = c;
        L->nodes[i].own_conn = 0;   /* its conn is s's now */
    }
    if (L->nc) memcpy(s->cands + s->nc, L->cands, L->nc * sizeof *s->cands);
    s->nc += L->nc;
    struct rankinfo *ri = &s->ri[r];
    ri->n0 += no;
    ri->n1 += no;
    ri->a0 += co;
    free(map);
    part_free(L);
    return 0;
}

int origin_build_ranks(struct st *s, int32_t *born) {
    struct rank_part *parts = calloc(s->nr ? s->nr : 1, sizeof *parts);
    if (!parts) return -1;
    struct ranks_job j = {s, parts, born};
    struct pt_error e = {{0}};
    int rc = util_pool_for(s->nr, build_one, &j, &e);
    for (size_t r = 0; r < s->nr && rc == 0; r++) rc = join(s, r, &parts[r].loc);
    for (size_t r = 0; r < s->nr; r++) part_free(&parts[r].loc);
    free(parts);
    return rc;
}
