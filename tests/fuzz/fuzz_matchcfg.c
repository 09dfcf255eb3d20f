/* fuzz_matchcfg: a --match-config / :save-match file (src/io/compare/cmp_files.c
 * cmp_files_match_apply) applied to the compare graph of a fixed pair, then
 * saved again. */
#include "fuzz_pair.h"

#include "model/compare/compare.h"
#include "src/io/compare/cmp_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct tree *npu, *bench;
    fuzz_pair(&npu, &bench);
    char path[1024], out[1024];
    struct pt_error err;
    struct cmp_opts o = {0};
    struct cmp_graph *g = NULL;
    if (cmp_graph_new(npu, bench, &o, &g, &err) != 0) {
        fprintf(stderr, "fuzz_matchcfg: %s\n", err.msg);
        abort();
    }
    fuzz_write("m.vis.config", data, size);
    fuzz_path(path, sizeof path, "m.vis.config");
    fuzz_path(out, sizeof out, "saved.vis.config");
    struct cmp_files_report rep;
    if (cmp_files_match_apply(g, path, &rep, &err) == 0) (void)cmp_files_match_save(g, out, &err);
    cmp_graph_free(g);
    return 0;
}
