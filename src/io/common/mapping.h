/* mapping: --mapping FILE, ordered substring replacements of target
 * names, the same for every reader that takes it (dumps, monitor trees). */
#ifndef PT_MAPPING_H
#define PT_MAPPING_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"

struct mapping {         /* --mapping: ordered substring replacements */
    char **from, **to;
    size_t n;
};
int mapping_read(const char *path, struct mapping *m, struct pt_error *err);
/* A hash of the pairs (m NULL: none), for what a cache was read with. */
uint64_t mapping_hash(const struct mapping *m);
void mapping_free(struct mapping *m);

#endif
