/* read_construct: construct.json (plain, old "" roots, Megatron form) and
 * stack.json (grouped and per-name forms), probetop-formats(5), CONSTRUCT.JSON; probetop-formats(5), STACK.JSON. */
#ifndef PT_READ_CONSTRUCT_H
#define PT_READ_CONSTRUCT_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/util/arena.h"

enum construct_parent { CONSTRUCT_NULL, CONSTRUCT_EMPTY, CONSTRUCT_NAME };

struct construct_node {
    char *name;            /* in the construct's strings */
    char *parent;          /* CONSTRUCT_NAME only, in the construct's strings */
    uint8_t parent_kind;   /* enum construct_parent */
    int32_t micro;         /* Megatron micro step index, 0 otherwise */
};

struct construct {
    struct construct_node *v;   /* in file order (pre-order of the call tree) */
    size_t n;
    int megatron;          /* had megatron_micro_step_number */
    long megatron_micro_steps;
    struct util_arena strings;   /* every name and parent: one bump each, one free for all */
};

int construct_read(const char *path, struct construct *out, struct pt_error *err);
/* The same from the file's bytes already read (NUL-terminated; path names
 * it in messages). */
int construct_parse(const char *path, const char *buf, size_t len, struct construct *out, struct pt_error *err);
void construct_free(struct construct *c);

struct stack_entry {
    char *name;
    char **frames;
    size_t nframes;
};

struct stack {
    struct stack_entry *v; /* one per entry name, in file order */
    size_t n;
    int grouped;           /* the file had the grouped {"0": [[names], [frames]]} form */
};

int stack_read(const char *path, struct stack *out, struct pt_error *err);
void stack_free(struct stack *s);
/* Frames of name; a backward name falls back to its forward counterpart. */
const struct stack_entry *stack_find(const struct stack *s, const char *name);

#endif
