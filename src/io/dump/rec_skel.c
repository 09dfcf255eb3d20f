/* rec_skel: the record pieces kept and matched (rec_skel.h). */
#include <string.h>

#include "src/io/dump/rec_skel.h"

static int lit_at(const struct rec_skel_lit *l, const char *p, const char *end) {
    return l->len && (size_t)(end - p) >= l->len && !memcmp(p, l->s, l->len);
}

int rec_skel_match(struct rec_skel *sk, const char *p, const char *end) {
    /* the one before first: a dump's records mostly come in runs of a kind */
    if (lit_at(&sk->k[sk->hit], p, end)) {
        sk->k[sk->hit].used = ++sk->clock;
        return sk->hit;
    }
    for (int i = 0; i < REC_SKEL_N; i++)
        if (i != sk->hit && lit_at(&sk->k[i], p, end)) {
            sk->hit = (uint8_t)i;
            sk->k[i].used = ++sk->clock;
            return i;
        }
    return -1;
}

void rec_skel_learn(struct rec_skel *sk, const char *p, size_t len, uint8_t a, uint8_t b) {
    if (!len || len > REC_SKEL_MAX) return;
    int old = 0;
    for (int i = 0; i < REC_SKEL_N; i++) {
        const struct rec_skel_lit *l = &sk->k[i];
        if (l->len == len && !memcmp(l->s, p, len) && l->a == a && l->b == b) return;
        if (l->used < sk->k[old].used) old = i;
    }
    struct rec_skel_lit *l = &sk->k[old];
    memcpy(l->s, p, len);
    l->len = (uint16_t)len;
    l->a = a;
    l->b = b;
    l->used = ++sk->clock;
    sk->hit = (uint8_t)old;
}
