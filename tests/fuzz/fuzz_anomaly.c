/* fuzz_anomaly: one msProbe anomaly report (anomaly.json or
 * anomaly_analyse.json) through anomaly_parse, the part of
 * src/io/monitor/read_anomaly.c that reads a file's bytes; then msProbe's order
 * and the placing of every entry on a small v1-shaped cube and a
 * v2-shaped one (tag parsing, metric and target lookups, the cell index). */
#include "fuzz.h"

#include "model/overflow/anomaly.h"
#include "model/cube/cube.h"
#include "src/io/load.h"
#include "src/io/monitor/read_anomaly.h"

/* A cube with the metrics and targets the seeds name, micro steps on. */
static struct cube *small_cube(int v2) {
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    struct cube *c = NULL;
    if (!b) abort();
    static const char *const stats[] = {"norm", "max"};
    static const char *const v1m[] = {"actv", "actv_grad", "grad_reduced"};
    static const char *const v2m[] = {"module/forward", "module/backward", "weight_grad/reduced"};
    static const char *const v1t[] = {"layers.0.mlp.output", "layers.0.mlp.output", "layers.1.mlp.weight"};
    static const char *const v2t[] = {"layers.0.mlp.output.0", "layers.0.mlp.grad_output.0", "layers.1.mlp.weight"};
    double v[2] = {1.0, 2.0};
    for (int m = 0; m < 3; m++) {
        int cm = cube_builder_metric(b, v2 ? v2m[m] : v1m[m], 2, stats);
        const char *t = v2 ? v2t[m] : v1t[m];
        uint32_t id = names_intern(nm, t, strlen(t), 0, 0);
        for (int s = 0; s < 4; s++) {
            if (cube_builder_step(b, s, s / 2, s % 2) != 0) abort();
            for (int r = 0; r < 2; r++)
                if (cm < 0 || id == NAMES_NONE || cube_builder_add(b, cm, id, s, r, v, 3) != 0) abort();
        }
    }
    struct pt_error e;
    if (cube_builder_finish(b, &c, &e) != 0) abort();
    cube_builder_free(b);
    return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct dataset *ds = calloc(1, sizeof *ds);
    struct anomaly_list l = {0};
    struct pt_error e;
    if (!ds) abort();
    char *buf = fuzz_strdup(data, size);   /* NUL-terminated, as json_read_file gives it */
    if (anomaly_parse(buf, size, "fuzz/rank0/anomaly.json", &l, ds, &e) == 0) {
        anomaly_sort(&l);
        for (size_t i = 1; i < l.n; i++)
            if (anomaly_cmp(&l.v[i - 1], &l.v[i]) > 0) abort();   /* sorted means sorted */
        for (int v2 = 0; v2 < 2; v2++) {
            struct cube *c = small_cube(v2);
            if (anomaly_place(&l, c, &e) == 0)
                for (size_t i = 0; i < l.n; i++) {
                    const struct anomaly *a = &l.v[i];
                    if (a->metric < 0) continue;
                    long at = anomaly_at(&l, a->metric, a->step_idx, a->rank_idx, a->target);
                    if (at < 0 || at > (long)i) abort();   /* the cell's first entry, in list order */
                }
            cube_free(c);
        }
    }
    free(buf);
    anomaly_list_free(&l);
    dataset_free(ds);
    return 0;
}
