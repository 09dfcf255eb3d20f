/* read_stack: stack.json (grouped and per-name forms, probetop-formats(5),
 * STACK.JSON) into a struct tree, through the pull tokenizer. */
#ifndef PT_READ_STACK_H
#define PT_READ_STACK_H

#include "model/err.h"
#include "model/graph/tree.h"

/* Adds the stacks of path to t: 0, or -1 with a message naming the file
 * (and the line and byte for bad JSON). */
int read_stack_file(struct tree *t, const char *path, struct pt_error *err);

#endif
