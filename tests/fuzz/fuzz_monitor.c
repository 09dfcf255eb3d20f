/* fuzz_monitor: one monitor CSV (v1) through monitor_parse_csv, the part of
 * src/io/monitor/read_monitor.c that reads a file's bytes, with a --mapping; then the
 * step axis both ways (micro steps on and off) and every row's step. */
#include "fuzz_monitor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fuzz_mapping fm;
    fuzz_mapping_init(&fm);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct monitor_data md;
    if (!ds) abort();
    memset(&md, 0, sizeof md);
    char *buf = fuzz_strdup(data, size);   /* NUL-terminated, as json_read_file gives it */
    if (monitor_parse_csv(buf, size, "fuzz/actv_0-1.csv", 0, 3, &fm.map, NULL, ds, &md) == 0) fuzz_monitor_walk(&md);
    monitor_free(&md);
    dataset_free(ds);
    return 0;
}
