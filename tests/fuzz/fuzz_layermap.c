/* fuzz_layermap: the --layer-mapping YAML (src/io/compare/cmp_files.c
 * cmp_files_lmap_load), then the map model/graph/layermap.c builds from the rules
 * read, on a fixed pair whose module names differ. */
#include "fuzz_pair.h"

#include "src/io/compare/cmp_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct tree *npu, *bench;
    fuzz_pair(&npu, &bench);
    char path[1024], warn[1024];
    struct pt_error err;
    struct cmp_files_lmap m;
    fuzz_write("map.yaml", data, size);
    fuzz_path(path, sizeof path, "map.yaml");
    memset(&m, 0, sizeof m);
    if (cmp_files_lmap_load(&m, path, &err) == 0) {
        struct layermap *lm = cmp_files_lmap_build(&m, npu, bench, warn, sizeof warn);
        if (lm) {
            for (size_t i = 0; i < npu->nrecs; i++) (void)layermap_get(lm, tree_s(npu, npu->recs[i].name));
            layermap_free(lm);
        }
    }
    cmp_files_lmap_free(&m);
    return 0;
}
