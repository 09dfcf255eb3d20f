/* cmp_files: the side files of a comparison, as msProbe writes them.
 *
 *  - layer mapping (`--layer-mapping FILE`, graph-compare.md §3.3): a YAML
 *    of attribute renames "ClassName:\n  problem_attr: bench_attr", applied
 *    to problem node ids before they are looked up on the benchmark side
 *    (MindSpore "Cell." ids also become "Module." when the benchmark is not
 *    MindSpore);
 *  - match config (`--match-config FILE`, `:save-match FILE`, §9 "save /
 *    apply match config"): a JSON object node -> counterpart, both
 *    directions, for every pair matched by hand.
 *
 * Owns nothing global: a struct cfile_lmap holds its rules and the buffer
 * the rename is returned in (so one lmap serves one thread). */
#ifndef PT_CMP_FILES_H
#define PT_CMP_FILES_H

#include <stddef.h>

#include "model/compare.h"
#include "model/err.h"

struct cfile_lmap {
    char (*from)[256], (*to)[256];
    size_t n;
    int cell_to_module;     /* MindSpore problem vs another framework */
    char buf[8192];
};

/* Reads the YAML subset; 0 ok, -1 with a message naming file and line. */
int cfile_lmap_load(struct cfile_lmap *m, const char *path, struct pt_error *err);
void cfile_lmap_free(struct cfile_lmap *m);
/* The cmp_opts.map callback: the renamed id (in m->buf). */
const char *cfile_lmap_apply(void *m, const char *npu_id);

/* What applying a match config did. */
struct cfile_report {
    size_t ok;              /* pairs now matched as the file says */
    size_t failed;          /* names that are not nodes, pairs that cannot match */
    char first_bad[256];    /* the first failure, for a message ("" none) */
};

/* Applies FILE to graph g: every "problem: benchmark" pair is matched by
 * hand (an existing match of either node is undone first); the reverse
 * "benchmark: problem" entries msProbe also writes are recognised and not
 * counted as failures.  -1 only when the file cannot be read or is not a
 * JSON object. */
int cfile_match_apply(struct cmp_graph *g, const char *path, struct cfile_report *rep, struct pt_error *err);

/* Writes every manual pair of g as msProbe's .vis.config (both
 * directions).  Returns the number of pairs written, -1 on error. */
long cfile_match_save(const struct cmp_graph *g, const char *path, struct pt_error *err);

#endif
