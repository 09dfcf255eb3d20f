/* fuzz_monitor_v2: one monitor_v2 CSV through monitor_v2_parse_csv, the
 * part of src/io/monitor/read_monitor_v2.c that reads a file's bytes, with a
 * --mapping.  The first byte picks the slug (module, weight_grad,
 * optimizer, param, cc), the rest is the file; then the step axis both
 * ways (micro steps on and off) and every row's step; and the same bytes
 * again in a buffer as a reused one holds them (an older file's bytes
 * past the NUL): the same rows. */
#include "fuzz_monitor.h"

#include "src/io/dump/read_dump.h"
#include "src/io/monitor/read_monitor_v2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    struct fuzz_mapping fm;
    fuzz_mapping_init(&fm);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct monitor_v2_metrics *mt = calloc(1, sizeof *mt);
    struct monitor_data md;
    if (!ds || !mt) abort();
    memset(&md, 0, sizeof md);
    char *buf = fuzz_strdup(data + 1, size - 1);   /* NUL-terminated, as json_read_file gives it */
    int rc = monitor_v2_parse_csv(buf, size - 1, "fuzz/rank_3/x.csv", data[0] % 5, 3, &fm.map, mt, ds, &md);
    if (rc == 0) fuzz_monitor_walk(&md);
    struct dataset *ds2 = calloc(1, sizeof *ds2);
    struct monitor_v2_metrics *mt2 = calloc(1, sizeof *mt2);
    struct monitor_data md2;
    if (!ds2 || !mt2) abort();
    memset(&md2, 0, sizeof md2);
    int rc2 = monitor_v2_parse_csv(fuzz_stale_copy(data + 1, size - 1), size - 1, "fuzz/rank_3/x.csv", data[0] % 5, 3,
                                   &fm.map, mt2, ds2, &md2);
    if (rc != rc2 || ds->nwarnings != ds2->nwarnings) abort();
    if (rc == 0) fuzz_monitor_same(&md, &md2);
    monitor_free(&md2);
    dataset_free(ds2);
    free(mt2);
    monitor_free(&md);
    dataset_free(ds);
    free(mt);
    return 0;
}
