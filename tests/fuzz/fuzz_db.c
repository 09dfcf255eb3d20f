/* fuzz_db: msProbe's SQLite files as bytes.  The input is written as
 * x.trend.db and opened by src/io/trenddb/read_trenddb.c (into the cube, and lazily), and as
 * x.vis.db and opened by src/io/visdb/read_visdb.c (schema and tb_config, then the
 * first graph of each side).  Journal files a previous input may have left
 * (a WAL database opened read-only makes -shm/-wal beside it) are removed
 * first, so every run starts from the input alone. */
#include "fuzz.h"

#include "model/cube/cube.h"
#include "src/io/load.h"
#include "src/io/trenddb/read_trenddb.h"
#include "src/io/visdb/read_visdb.h"

static void clean(const char *name) {
    char p[128];
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", name, side[i]);
        fuzz_unlink(p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[1024];
    struct pt_error err;

    clean("x.trend.db");
    fuzz_write("x.trend.db", data, size);
    fuzz_path(path, sizeof path, "x.trend.db");
    struct load_opts o;
    load_opts_init(&o);
    struct dataset *ds = calloc(1, sizeof *ds);
    if (!ds) abort();
    (void)trenddb_load(path, &o, ds, &err);
    dataset_free(ds);
    /* lazily (the analyzer's way, probetop(1) --mem 0): a slice of each
     * dimension, a cell, the non-finite count */
    o.lazy = 1;
    if (!(ds = calloc(1, sizeof *ds))) abort();
    if (trenddb_load(path, &o, ds, &err) == 0 && ds->cube && ds->cube->nmetrics > 0) {
        struct cube_slice sl;
        for (int d = DIM_STEP; d <= DIM_TARGET; d++) (void)cube_slice(ds->cube, 0, 0, (enum cube_dim)d, 0, &sl);
        if (ds->cube->metrics[0].ntargets && ds->cube->nsteps && ds->cube->nranks) (void)cube_get(ds->cube, 0, 0, 0, 0, 0);
        (void)cube_count_nonfinite(ds->cube, 0, -1, -1);
    }
    dataset_free(ds);
    clean("x.trend.db");

    clean("x.vis.db");
    fuzz_write("x.vis.db", data, size);
    fuzz_path(path, sizeof path, "x.vis.db");
    struct visdb *v = NULL;
    if (visdb_open(path, &v, &err) == 0) {
        static const char *const src[] = {"NPU", "Bench"};
        for (int s = 0; s < 2; s++) {
            struct visdb_graph *g = NULL;
            if (visdb_load(v, v->steps[0], v->ranks[0], src[s], &g, &err) == 0) visdb_graph_free(g);
        }
        visdb_close(v);
    }
    clean("x.vis.db");
    return 0;
}
