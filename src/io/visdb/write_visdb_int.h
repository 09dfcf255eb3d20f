/* write_visdb_int: what the .vis.db writer's files share (internal to
 * src/io/visdb/write_visdb*.c): a growing text buffer, JSON text as
 * Python's json.dumps writes it, the param objects of input_data /
 * output_data, and the overflow levels and communication links. */
#ifndef PT_WRITE_VISDB_INT_H
#define PT_WRITE_VISDB_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/compare/compare.h"
#include "model/graph/comm.h"
#include "model/graph/tree.h"

struct write_visdb_buf { char *b; size_t n, cap; int oom; };

void write_visdb_text_add(struct write_visdb_buf *v, const char *s, size_t n);
void write_visdb_text_cstr(struct write_visdb_buf *v, const char *s);
/* s as a JSON string literal, ensure_ascii (\uXXXX beyond ASCII). */
void write_visdb_text_json(struct write_visdb_buf *v, const char *s);
/* The input_data (output 0) or output_data (1) column of node n of t:
 * msProbe's formatted param objects (probetop-formats(5), VIS.DB).  g and
 * rowof (per param of t: its compare row, -1 none) for a problem node of
 * a compare, else NULL; mode the compare's (md5 keeps the checksums). */
void write_visdb_text_params(struct write_visdb_buf *v, const struct tree *t, int n, int output,
                             const struct cmp_graph *g, const int32_t *rowof, enum cmp_mode mode);

/* msProbe's overflow level of record r of t (its -oc check: inputs and
 * outputs, not the weights); enum ovf_level. */
int write_visdb_links_level(const struct tree *t, int r);

/* Communication links of one (side, step): a copy of each rank's
 * Distributed.* records, kept until the run ends. */
struct write_visdb_comm {
    int bench;               /* data source Bench */
    int32_t step, rank;
    struct tree *t;          /* records only */
    char **index;            /* per record: the peer text ("0", "0.5", "1", a level, "Nan") */
};
/* The Distributed.* records of t (side bench) copied into c; index text per
 * record from the node's precision index (g, NPU side) or overflow level
 * (levels != NULL: per record of t). 0, -1 out of memory. */
int write_visdb_links_keep(struct write_visdb_comm *c, const struct tree *t, int bench,
                           const struct cmp_graph *g, const uint8_t *levels);
void write_visdb_links_free(struct write_visdb_comm *c);

#endif
