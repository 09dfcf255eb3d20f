/* read_graph: msProbe dump folders into model/graph/tree.h graphs.
 *
 * graph_read() loads one rank folder (dump.json + construct.json +
 * stack.json) into a struct tree: every dump record flattened into params
 * by probetop-rules(7), GRAPH BUILDING: Params, the construct pairs (plain and Megatron form),
 * the stacks (grouped and per-name form); with build set it then builds the
 * tree (probetop-rules(7), GRAPH BUILDING).  graph_scan() finds the rank folders of a path given on the
 * command line (a rank folder, a step folder, a dump root, or a dump.json
 * file), numbered by step and rank as msProbe does (probetop-formats(5), DUMP FOLDERS). */
#ifndef PT_READ_GRAPH_H
#define PT_READ_GRAPH_H

#include <stdint.h>

#include "model/err.h"
#include "model/graph/tree.h"

/* One rank folder of a dump. */
struct graph_dir {
    int32_t step, rank;
    char *dir;            /* owned */
};

struct graph_dirs {
    struct graph_dir *v;
    size_t n;
};

int graph_scan(const char *path, struct graph_dirs *out, struct pt_error *err);
void graph_dirs_free(struct graph_dirs *d);
/* The entry of b that a->v[i] is compared with, or -1: the same (step,
 * rank); the same rank when each side holds one step (step0 against
 * step1); the one entry when each side holds one. */
long graph_pair(const struct graph_dirs *a, const struct graph_dirs *b, size_t i);

/* Flags for graph_read. */
#define GRAPH_BUILD 1        /* build the tree (needs a non-empty construct.json) */
#define GRAPH_NO_STACK 2     /* skip stack.json */
#define GRAPH_NO_CONSTRUCT 4 /* skip construct.json too (the records alone: the origin search) */

/* Reads dir (a folder holding dump.json, or a dump.json file).  Without
 * GRAPH_BUILD a missing or empty construct.json is fine (the records alone
 * serve the table compare).  On failure *out is NULL. */
int graph_read(const char *dir, int flags, struct tree **out, struct pt_error *err);

/* What graph_read(dir, GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT) gives the
 * origin search, from what the load kept of dir's dump.json (c,
 * model/overflow/origin_cap.h): every record, by its name, with its params
 * when c marks it or want(name) (the rules' communication ops) asks for
 * them, parsed from the record's own bytes; the other records have none
 * (the header -- task, level, framework -- is not read).  0 (*out set), 1
 * when c is of no use here (another file than graph_read reads, changed
 * since: read it whole), -1 out of memory (err). */
struct origin_cap;
int graph_read_cap(const char *dir, const struct origin_cap *c, int (*want)(const char *name), struct tree **out,
                   struct pt_error *err);

#endif
