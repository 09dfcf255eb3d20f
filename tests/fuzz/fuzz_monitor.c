/* fuzz_monitor: one monitor CSV (v1) through monitor_parse_csv, the part of
 * src/read_monitor.c that reads a file's bytes, with a --mapping; then the
 * step axis both ways (micro steps on and off) and every row's step. */
#include "fuzz.h"

#include "src/io/dataset.h"
#include "src/io/read_monitor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char from0[] = "layers", to0[] = "blocks";
    char *from[] = {from0}, *to[] = {to0};
    struct mapping map = {from, to, 1};
    struct dataset *ds = calloc(1, sizeof *ds);
    struct monitor_data md;
    if (!ds) abort();
    memset(&md, 0, sizeof md);
    char *buf = fuzz_strdup(data, size);   /* NUL-terminated, as json_read_file gives it */
    if (monitor_parse_csv(buf, size, "fuzz/actv_0-1.csv", 0, 3, &map, NULL, ds, &md) == 0) {
        for (int micro = 0; micro < 2; micro++) {
            struct mon_steps st;
            struct pt_error e;
            if (monitor_steps(&md, micro, &st, &e) != 0) continue;
            for (size_t i = 0; i < md.nfiles; i++)
                for (size_t r = 0; r < md.files[i].nrows; r++) (void)monitor_row_step(&st, &md.files[i].rows[r]);
            monitor_steps_free(&st);
        }
    }
    monitor_free(&md);
    dataset_free(ds);
    return 0;
}
