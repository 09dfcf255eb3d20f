/* layermap: msProbe's layer mapping (probetop-rules(7), MATCHING: Graph matching), the name map
 * problem dump entry -> benchmark dump entry used when the two runs come
 * from different frameworks or name their modules differently.
 *
 * Every dump entry of a side gets a scope: the module path with attribute
 * names (for a module its own path; for an API its construct.json parent's
 * path), then for an API the framework function that called it (read from
 * its stack.json lines), then the attribute name (modules) or API name.
 * Backward entries take the scope of their forward twin, and the layer
 * indices under a ParallelTransformer's "layers" are renumbered from 0.
 * Both sides' scopes go into a trie.  A problem entry is mapped by walking
 * its scope down the problem trie, renaming segments by the user's rules
 * (ClassName: {problem_attr_path: bench_attr_path}, ClassName being the
 * class of the trie node the walk is at), and taking the n-th benchmark
 * entry of the same state (forward, backward, parameters_grad) at the
 * renamed scope, n being the problem entry's position at its own scope.
 *
 * Owns the map it builds (names copied) and nothing global; reads only the
 * two trees given.  File formats live elsewhere (src/io/compare/cmp_files.c reads the
 * YAML into rules). */
#ifndef PT_LAYERMAP_H
#define PT_LAYERMAP_H

#include <stddef.h>

#include "model/err.h"
#include "model/graph/tree.h"

/* One rename of the YAML: in class cls, the attribute path from (one or
 * more dot-separated segments) becomes to.  line is where it was written,
 * cls_line where its class was (for messages). */
struct layermap_rule {
    const char *cls, *from, *to;
    int line, cls_line;
};

/* What a problem entry maps to when the benchmark has no counterpart (the
 * text msProbe writes). */
#define LAYERMAP_NONE "N/A"

struct layermap;

/* Builds the map of every problem dump entry.  rules may be empty (msProbe's
 * "-lm" without a file: the automatic mapping).  Rules are taken in order; a
 * later rule for the same class and path replaces an earlier one, and class
 * "Cell" stands for the top layer as msProbe's older files wrote it.
 * Fails (-1) when an entry or construct.json parent has fewer than four
 * dot-separated fields, as msProbe does; the caller then compares without
 * a map. */
int layermap_build(const struct tree *npu, const struct tree *bench, const struct layermap_rule *rules, size_t nrules,
                   struct layermap **out, struct pt_error *err);
void layermap_free(struct layermap *m);

/* The benchmark entry of a problem entry: its name, LAYERMAP_NONE when there is
 * none, NULL when id is not a problem dump entry (msProbe then looks the id
 * itself up).  Also the cmp_opts.map callback (ctx: the struct layermap). */
const char *layermap_get(const struct layermap *m, const char *npu_id);
const char *layermap_apply(void *ctx, const char *npu_id);

/* Number of problem entries mapped (all of them, LAYERMAP_NONE included), and
 * how many found a counterpart. */
size_t layermap_count(const struct layermap *m);
size_t layermap_found(const struct layermap *m);

/* Rules whose class is no class (nor attribute) of the problem dump: their
 * renames can never apply, which usually means a typo.  Indices into the
 * rules given to layermap_build, in rule order. */
size_t layermap_unused(const struct layermap *m, const size_t **rule_index);

#endif
