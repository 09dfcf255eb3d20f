/* cmp_files: the side files of a comparison, as msProbe writes them.
 *
 *  - layer mapping (`--layer-mapping FILE`, probetop-rules(7), MATCHING: Graph matching): the
 *    YAML of attribute renames "ClassName:\n  problem_path: bench_path"
 *    read into rules for model/graph/layermap.c, which computes the name map of a
 *    (step, rank) pair from both dumps; "auto" instead of a file is
 *    msProbe's `-lm` without a file (the automatic mapping, no renames);
 *  - match config (`--match-config FILE`, `:save-match FILE`, msProbe's browser: "save /
 *    apply match config"): a JSON object node -> counterpart, both
 *    directions, for every pair matched by hand.
 *
 * Owns nothing global: a struct cmp_files_lmap holds the rules read and their
 * strings. */
#ifndef PT_CMP_FILES_H
#define PT_CMP_FILES_H

#include <stddef.h>

#include "model/compare/compare.h"
#include "model/err.h"
#include "model/graph/layermap.h"

/* The word that asks for the automatic layer mapping instead of a file (a
 * file of that name is given as ./auto). */
#define CMP_FILES_LMAP_AUTO "auto"

struct cmp_files_lmap {
    char *path;                 /* the YAML, NULL for the automatic mapping */
    struct layermap_rule *rules;    /* strings owned */
    size_t n;
};

/* Reads the YAML (a mapping of class -> mapping of attribute path ->
 * attribute path, block or flow style); path CMP_FILES_LMAP_AUTO gives no rules.
 * 0 ok, -1 with a message naming the file and line. */
int cmp_files_lmap_load(struct cmp_files_lmap *m, const char *path, struct pt_error *err);
void cmp_files_lmap_free(struct cmp_files_lmap *m);

/* The map of one pair of dumps: NULL when none could be made (msProbe then
 * compares without one, and so do we).  Anything worth telling the user
 * (rules whose class the problem dump lacks, with file and line; why no map
 * could be made) is written to warn, one line each ("" when nothing). */
struct layermap *cmp_files_lmap_build(const struct cmp_files_lmap *m, const struct tree *npu, const struct tree *bench,
                              char *warn, size_t wsize);

/* What applying a match config did. */
struct cmp_files_report {
    size_t ok;              /* pairs now matched as the file says */
    size_t failed;          /* names that are not nodes, pairs that cannot match */
    char first_bad[256];    /* the first failure, for a message ("" none) */
};

/* Applies FILE to graph g: every "problem: benchmark" pair is matched by
 * hand (an existing match of either node is undone first); the reverse
 * "benchmark: problem" entries msProbe also writes are recognised and not
 * counted as failures.  -1 only when the file cannot be read or is not a
 * JSON object. */
int cmp_files_match_apply(struct cmp_graph *g, const char *path, struct cmp_files_report *rep, struct pt_error *err);

/* Writes every manual pair of g as msProbe's .vis.config (both
 * directions).  Returns the number of pairs written, -1 on error. */
long cmp_files_match_save(const struct cmp_graph *g, const char *path, struct pt_error *err);

#endif
