/* fuzz_db: msProbe's SQLite files as bytes.  The input is written as
 * x.trend.db and opened by src/read_trenddb.c (into the cube), and as
 * x.vis.db and opened by src/read_visdb.c (schema and tb_config, then the
 * first graph of each side).  Journal files a previous input may have left
 * (a WAL database opened read-only makes -shm/-wal beside it) are removed
 * first, so every run starts from the input alone. */
#include "fuzz.h"

#include "model/cube.h"
#include "src/io/dataset.h"
#include "src/io/read_trenddb.h"
#include "src/io/read_visdb.h"

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
