/* parse_dump_elem: one value of a dump.json record's input or output list
 * (a tensor object, mostly) as parse_dump.c reads it, and the fast way to
 * read it: the members of a tensor object straight from their bytes, with
 * the tokenizer taking over on anything unsure. */
#ifndef PT_PARSE_DUMP_ELEM_H
#define PT_PARSE_DUMP_ELEM_H

#include <stddef.h>
#include <stdint.h>

#include "model/overflow/overflow.h"
#include "src/io/common/json.h"

struct elem {             /* one parsed value, for both consumers */
    struct ovf_elem o;
    int usable;           /* a trend-usable tensor object */
    double v[4];
    uint8_t present;
    uint8_t nonfinite;    /* an item the origin search reads as holding NaN/Inf
                             (origin_flags_nonfinite): a tensor of its own dtype with a
                             non-finite Max or Min */
    /* Read from its bytes (parse_dump_elem_fast): no escape, no nested
     * object, no string in an array; plain: with it only a tensor's usual
     * keys (type, dtype, shape, Max, Min, Mean, Norm, requires_grad) and a
     * type given as a string other than "int" -- a positional item the
     * origin search's light capture takes nothing from (origin_light.h). */
    uint8_t fast, plain;
};

/* What the members of an object leave once all are read: its type and
 * dtype (tl, dl bytes; type_str, dtype_str: given as strings, the dtype not
 * empty), its last Norm (norm_num: a number), mm_nonfinite: a non-finite
 * Max or Min.  Fills the rest of e. */
void parse_dump_elem_finish(struct elem *e, const char *type, size_t tl, const char *dtype, size_t dl, double norm,
                            int norm_num, int type_str, int dtype_str, int mm_nonfinite);

/* Skeletons of the tensor objects read last (a worker's, kept from file to
 * file: struct dump_scratch, read_dump.h; zeroed before its first object):
 * most objects of a dump.json differ from the one
 * before only in their values, so that their bytes are compared with a
 * skeleton's, a block at a time, rather than read member by member
 * (parse_dump_elem.c). */
#define ELEM_TMPL_SLOTS 12
struct elem_tmpl_slot {
    uint16_t off;             /* its literal in lit */
    uint8_t len;
    uint16_t tail;            /* the bits of len's last 1 to 16 bytes in a 16-byte compare's mask (0: none) */
    uint8_t kind;             /* of the value after it */
    int8_t which;             /* the member it belongs to */
};
struct elem_tmpl_one {
    uint8_t live, n;          /* n values; s[n] the literal up to the '}' */
    uint32_t used;            /* when it was made or matched last (elem_tmpl's clock) */
    uint8_t dup;              /* a key that counts given twice (parse_elem's reread) */
    uint8_t other;            /* a key not among a tensor's usual ones (struct elem's plain) */
    /* a type and dtype given as strings, when the object's was read as part
     * of the literals (in lit at type_off, tl bytes; has: which of the two) */
    uint8_t has, tl, dl;
    uint8_t fin;              /* with both: what they make of the object (parse_dump_elem.c's FIN_) */
    uint16_t type_off, dtype_off;
    struct elem_tmpl_slot s[ELEM_TMPL_SLOTS + 1];
    char lit[512];
};
#define ELEM_TMPL_N 6         /* a record's items, its parameters, a nested list's */
/* A statistic read before at a skeleton's slot: its bytes, from its first
 * to the one that ended it (n of them: a ',', a '}', a ']' or white
 * space), and its value.  A dump repeats its statistics (an op's output is
 * the next op's input; the same parameters each step), so the same bytes
 * give the same number without reading them again (parse_dump_elem.c). */
#define ELEM_NUM_BITS 12      /* 192 KB: at 134 MB (gen_dump.py) 256 kept ~66 % of the lookups, 1024
                                 cut 15 M more instructions of 1 290 M (callgrind); 4096 miss 240 k of
                                 666 k lookups, 1024 356 k (the objects the memo has not) */
#define ELEM_NUM_N (1u << ELEM_NUM_BITS)
struct elem_num {
    char t[32];               /* 32 bytes copied; the first n compared */
    double v;
    uint8_t n;                /* 0: none */
};
/* An object read before, whole: its bytes from past its '{' to its '}'
 * (len of them) and what they made.  A dump repeats its objects too (an
 * op's output is the next op's input: at 134 MB, gen_dump.py, 61 % of the
 * objects are met again among the last 256), and the same bytes make the
 * same elem (parse_dump_elem.c).  The bytes are copied, not pointed to: a
 * buffer may be refilled or used again while the skeletons live. */
#define ELEM_MEMO_BITS 8
#define ELEM_MEMO_N (1u << ELEM_MEMO_BITS)
#define ELEM_MEMO_MAX 320     /* an object's bytes at most (gen_dump.py's: 250, some 290); 106 KB in all */
struct elem_memo {
    uint16_t len;             /* 0: none */
    uint8_t rr;               /* what it set *reread to */
    struct elem e;
    char t[ELEM_MEMO_MAX];
};
struct elem_tmpl {
    struct elem_tmpl_one k[ELEM_TMPL_N];
    uint8_t hit;              /* the one that matched last */
    uint32_t clock;
    struct elem_num num[ELEM_NUM_N];   /* by a hash of the 16 bytes at a statistic */
    struct elem_memo memo[ELEM_MEMO_N];   /* by a hash of an object's last 32 bytes and length */
};

/* The object whose '{' was the last token of lx, read from its bytes into
 * e as parse_dump.c's parse_elem reads it through the tokens, when every
 * member is one it is sure of (a key without escapes, a string without
 * escapes, a number json_lex_number_fast reads, a literal, an array of
 * scalars; no nested object): then 1, with lx past the object's '}' and
 * *reread set where the tokens would have set it (cap: the origin search
 * keeps records).  Else 0, with lx and *reread untouched.  tm: the
 * parse's skeletons (NULL: none).  Off when PROBETOP_DUMP_FAST=0
 * (parse_dump_elem_on). */
int parse_dump_elem_fast(struct json_lex *lx, int cap, struct elem *e, uint8_t *reread, struct elem_tmpl *tm);
/* 0 when PROBETOP_DUMP_FAST is "0" (the tokens alone, to compare). */
int parse_dump_elem_on(void);

#endif
