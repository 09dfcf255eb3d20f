/* rec_skel: the record pieces kept (rec_skel.h; matched there, inline). */
#include <string.h>

#include "src/io/dump/rec_skel.h"

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
    memset(l->s + len, 0, 16);   /* lit_eq's padding */
    l->len = (uint16_t)len;
    l->tail = lit_tail(len);
    l->a = a;
    l->b = b;
    l->used = ++sk->clock;
    sk->hit = (uint8_t)old;
}
