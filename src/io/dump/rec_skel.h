/* rec_skel: the fixed bytes of a dump.json record between its item lists,
 * as read last (parse_dump.c's record skeleton).  Most records of a dump
 * differ from the ones before only in their items: the bytes from the
 * record's '{' to its first list's '[' ("input_args": [), from that list's
 * ']' to the next list's '[' ("input_kwargs": {}, "is_recompute": false,
 * "output": [) and from that one's ']' to the record's '}' are the same
 * text, so that they are compared whole rather than read token by token.
 * A piece is kept only as the tokens read it (parse_dump.c learns it),
 * with what those tokens leave (a, b). */
#ifndef PT_REC_SKEL_H
#define PT_REC_SKEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "src/io/dump/lit_eq.h"

#define REC_SKEL_N 4          /* a forward record's pieces, a backward's, and room */
#define REC_SKEL_MAX 176      /* a piece's bytes at most (white space of deep indents included) */

struct rec_skel_lit {
    uint16_t len;             /* 0: none */
    uint16_t tail;            /* lit_tail(len) (lit_eq.h) */
    uint8_t a, b;             /* what reading it leaves (the piece's kind's) */
    uint32_t used;            /* when matched or learnt last (rec_skel's clock) */
    char s[REC_SKEL_MAX + 16];   /* zeros after len: lit_eq reads up to 15 past */
};
struct rec_skel {             /* one kind of piece */
    struct rec_skel_lit k[REC_SKEL_N];
    uint8_t hit;              /* the one that matched last, tried first */
    uint32_t clock;
};

/* Piece l at p (end: the buffer's end): compared by lit_eq when 16 bytes
 * past it are readable, else by memcmp. */
static inline int rec_skel_at(const struct rec_skel_lit *l, const char *p, const char *end) {
    size_t room = (size_t)(end - p);
    if (!l->len || room < l->len) return 0;
    return room >= (size_t)l->len + 16 ? lit_eq(p, l->s, l->len, l->tail) : !memcmp(p, l->s, l->len);
}

/* The piece the bytes [p, end) start with: its index, or -1.  Inline: it
 * is called some five times a record, and the one tried first (the last
 * matched) mostly matches. */
__attribute__((always_inline)) static inline int rec_skel_match(struct rec_skel *sk, const char *p, const char *end) {
    /* the one before first: a dump's records mostly come in runs of a kind */
    if (rec_skel_at(&sk->k[sk->hit], p, end)) {
        sk->k[sk->hit].used = ++sk->clock;
        return sk->hit;
    }
    for (int i = 0; i < REC_SKEL_N; i++)
        if (i != sk->hit && rec_skel_at(&sk->k[i], p, end)) {
            sk->hit = (uint8_t)i;
            sk->k[i].used = ++sk->clock;
            return i;
        }
    return -1;
}

/* Keeps [p, p + len) with a and b, in place of the one used least lately;
 * nothing when longer than REC_SKEL_MAX or kept already. */
void rec_skel_learn(struct rec_skel *sk, const char *p, size_t len, uint8_t a, uint8_t b);

#endif
