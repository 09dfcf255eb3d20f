/* fuzz_monitor: one monitor CSV (v1) through monitor_parse_csv, the part of
 * src/io/monitor/read_monitor.c that reads a file's bytes, with a --mapping; then the
 * step axis both ways (micro steps on and off) and every row's step; and
 * the same bytes again in a buffer as a reused one holds them (an older
 * file's bytes past the NUL): the same rows. */
#include "fuzz_monitor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fuzz_mapping fm;
    fuzz_mapping_init(&fm);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct monitor_data md;
    if (!ds) abort();
    memset(&md, 0, sizeof md);
    char *buf = fuzz_strdup(data, size);   /* NUL-terminated, as json_read_file gives it */
    int rc = monitor_parse_csv(buf, size, "fuzz/actv_0-1.csv", 0, 3, &fm.map, NULL, ds, &md);
    if (rc == 0) fuzz_monitor_walk(&md);
    struct dataset *ds2 = calloc(1, sizeof *ds2);
    struct monitor_data md2;
    if (!ds2) abort();
    memset(&md2, 0, sizeof md2);
    int rc2 = monitor_parse_csv(fuzz_stale_copy(data, size), size, "fuzz/actv_0-1.csv", 0, 3, &fm.map, NULL, ds2, &md2);
    if (rc != rc2 || ds->nwarnings != ds2->nwarnings) abort();
    if (rc == 0) fuzz_monitor_same(&md, &md2);
    monitor_free(&md2);
    dataset_free(ds2);
    monitor_free(&md);
    dataset_free(ds);
    return 0;
}
