/* graph_jv: a tiny JSON value tree, built from the pull tokenizer
 * (src/io/common/json.h) one record at a time in a scratch arena, for the
 * graph reader.  The tokenizer rather than cJSON because msProbe's output
 * depends on whether a number was written as an int ("2") or a float
 * ("2.0"), which cJSON forgets: a number keeps its literal and is_int. */
#ifndef PT_GRAPH_JV_H
#define PT_GRAPH_JV_H

#include <stddef.h>
#include <stdint.h>

#include "model/util/arena.h"
#include "src/io/common/json.h"

enum { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
    uint8_t t;
    uint8_t is_int;       /* J_NUM written without '.', 'e' (a Python int) */
    uint32_t n;           /* J_ARR/J_OBJ: number of items */
    double d;
    int64_t i;
    const char *s;        /* J_STR (decoded, NUL-terminated); J_NUM: raw literal */
    size_t slen;
    struct jv *kids;      /* items */
    const char **keys;    /* J_OBJ: keys */
    size_t *klens;
};

struct jparse {
    struct json_lex lx;
    struct util_arena ar;
    /* scratch stacks for items of open containers */
    struct jv *items; size_t nitems, capitems;
    const char **keys; size_t *klens; size_t nkeys, capkeys;
    int oom;
};

/* Frees the arena and the scratch stacks (not the tokenizer's input). */
void graph_jv_free(struct jparse *jp);
/* The current string token (key or value), decoded, NUL-terminated, in the
 * arena; NULL (jp->oom set) when out of memory. */
const char *graph_jv_text(struct jparse *jp, size_t *len);
/* Parses the value whose first token is tok into *v (recursive; the
 * tokenizer bounds the depth); -1 on a syntax error or out of memory. */
int graph_jv_parse(struct jparse *jp, enum json_tok tok, struct jv *v);
/* The member key of object o (the last of duplicates, as json.load), or NULL. */
const struct jv *graph_jv_get(const struct jv *o, const char *key);

#endif
